//! Binding of the core's quantized per-tool vector store (`tool_index_core::vector`).
//! Conversions only.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tool_index_core::vector::VectorStore;
use tool_index_core::{ErrorCode, IndexError};

use crate::error::coded;
use crate::list::List;
use crate::memory;

/// The longest vector the store takes, in floats.
#[napi]
// Read from JavaScript only; a test build of this crate does not export it.
#[cfg_attr(test, allow(dead_code))]
pub const MAX_VECTOR_DIM: u32 = tool_index_core::vector::MAX_DIM as u32;

/// One vector-search result: tool name and cosine similarity.
#[napi(object)]
pub struct VectorHit {
    pub name: String,
    pub score: f64,
}

/// Per-tool int8-quantized unit vectors, upserted and removed by name; brute-force top-k by
/// cosine similarity. Errors carry `code` (`E_INVALID_ARG`, `E_INVALID_NUMBER`). Its native
/// memory is reported to the JavaScript engine, so a dropped store is collected as its size
/// asks; `dispose()` frees it at once.
#[napi(js_name = "NativeVectorStore", custom_finalize)]
pub struct NativeVectorStore {
    inner: VectorStore,
    /// Bytes last reported with `adjust_external_memory`.
    reported: i64,
}

impl NativeVectorStore {
    /// Upsert `names[i]` with row i of the flat `vectors`.
    fn upsert_rows(&mut self, names: &[String], vectors: &[f32]) -> Result<(), ErrorCode> {
        let d = self.inner.dim();
        if Some(vectors.len()) != names.len().checked_mul(d) {
            return Err(coded(IndexError::new(
                ErrorCode::InvalidArg,
                format!(
                    "{} floats for {} names of dimension {d}",
                    vectors.len(),
                    names.len()
                ),
            )));
        }
        for (i, n) in names.iter().enumerate() {
            self.inner
                .upsert(n, &vectors[i * d..(i + 1) * d])
                .map_err(coded)?;
        }
        Ok(())
    }

    /// Report the change in the store's native size to the engine's GC accounting.
    fn account(&mut self, env: &Env) {
        let now = self.inner.heap_bytes() as i64;
        if memory::report(env, now - self.reported) {
            self.reported = now;
        }
    }
}

impl ObjectFinalize for NativeVectorStore {
    fn finalize(mut self, env: Env) -> Result<()> {
        self.inner.clear();
        self.account(&env);
        Ok(())
    }
}

#[napi]
impl NativeVectorStore {
    /// An empty store of `dim`-float vectors (1..=8192).
    #[napi(constructor, catch_unwind)]
    pub fn new(dim: u32) -> Result<Self, ErrorCode> {
        VectorStore::new(dim as usize)
            .map(|inner| Self { inner, reported: 0 })
            .map_err(coded)
    }

    /// Free the stored vectors now instead of at garbage collection; the store is empty after.
    #[napi(catch_unwind)]
    pub fn dispose(&mut self, env: Env) {
        self.inner.clear();
        self.account(&env);
    }

    /// Vector length.
    #[napi(getter, catch_unwind)]
    pub fn dim(&self) -> u32 {
        self.inner.dim() as u32
    }

    /// Number of tools stored.
    #[napi(getter, catch_unwind)]
    pub fn size(&self) -> u32 {
        self.inner.len() as u32
    }

    /// True when `name` has a vector.
    #[napi(catch_unwind)]
    pub fn has(&self, name: String) -> bool {
        self.inner.contains(&name)
    }

    /// Insert or replace the vector of `name`.
    #[napi(catch_unwind)]
    pub fn upsert(
        &mut self,
        env: Env,
        name: String,
        vector: Float32Array,
    ) -> Result<(), ErrorCode> {
        let r = self.inner.upsert(&name, &vector).map_err(coded);
        self.account(&env);
        r
    }

    /// Insert or replace many: `vectors` is flat, `names.length * dim` floats, row i for name i.
    #[napi(catch_unwind)]
    pub fn upsert_many(
        &mut self,
        env: Env,
        #[napi(ts_arg_type = "Array<string>")] names: List<String>,
        vectors: Float32Array,
    ) -> Result<(), ErrorCode> {
        // The array's length is checked before anything is allocated for it.
        let names = names.take()?;
        let r = self.upsert_rows(&names, &vectors);
        self.account(&env);
        r
    }

    /// Remove the vector of `name`; false when it had none.
    #[napi(catch_unwind)]
    pub fn remove(&mut self, env: Env, name: String) -> bool {
        let removed = self.inner.remove(&name);
        self.account(&env);
        removed
    }

    /// Remove every vector.
    #[napi(catch_unwind)]
    pub fn clear(&mut self, env: Env) {
        self.inner.clear();
        self.account(&env);
    }

    /// The `k` stored tools nearest to `query` (cosine), best first.
    #[napi(catch_unwind)]
    pub fn search(&self, query: Float32Array, k: u32) -> Result<Vec<VectorHit>, ErrorCode> {
        let hits = self.inner.search(&query, k as usize).map_err(coded)?;
        Ok(hits
            .into_iter()
            .map(|h| VectorHit {
                name: h.name,
                score: f64::from(h.score),
            })
            .collect())
    }
}
