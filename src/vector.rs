//! Binding of the core's quantized per-tool vector store (`tool_index_core::vector`).
//! Conversions only.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tool_index_core::vector::VectorStore;
use tool_index_core::{ErrorCode, IndexError};

use crate::error::coded;

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
/// cosine similarity. Errors carry `code` (`E_INVALID_ARG`, `E_INVALID_NUMBER`).
#[napi(js_name = "NativeVectorStore")]
pub struct NativeVectorStore {
    inner: VectorStore,
}

#[napi]
impl NativeVectorStore {
    /// An empty store of `dim`-float vectors (1..=8192).
    #[napi(constructor, catch_unwind)]
    pub fn new(dim: u32) -> Result<Self, ErrorCode> {
        VectorStore::new(dim as usize)
            .map(|inner| Self { inner })
            .map_err(coded)
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
    pub fn upsert(&mut self, name: String, vector: Float32Array) -> Result<(), ErrorCode> {
        self.inner.upsert(&name, &vector).map_err(coded)
    }

    /// Insert or replace many: `vectors` is flat, `names.length * dim` floats, row i for name i.
    #[napi(catch_unwind)]
    pub fn upsert_many(
        &mut self,
        names: Vec<String>,
        vectors: Float32Array,
    ) -> Result<(), ErrorCode> {
        let d = self.inner.dim();
        if vectors.len() != names.len() * d {
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

    /// Remove the vector of `name`; false when it had none.
    #[napi(catch_unwind)]
    pub fn remove(&mut self, name: String) -> bool {
        self.inner.remove(&name)
    }

    /// Remove every vector.
    #[napi(catch_unwind)]
    pub fn clear(&mut self) {
        self.inner.clear()
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
