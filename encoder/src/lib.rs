//! N-API companion addon of `@ccb/tool-index-native`: the local sentence encoder. Kept out of the
//! base addon so that its size and build time stay as they are.
#![deny(clippy::all)]

use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::*;
use napi::Task;
use napi_derive::napi;
use std::borrow::Cow;

use tool_index_encoder::{Encoder, EncoderError, TextKind, VectorCache};

fn to_napi(e: EncoderError) -> Error {
    Error::new(
        Status::GenericFailure,
        format!("[{}] {}", e.code, e.message),
    )
}

/// A sentence encoder loaded from a model directory (`config.json`, `tokenizer.json`,
/// `model.safetensors`). `embed` runs on the libuv thread pool, off the JS thread.
#[napi]
pub struct LocalEncoder {
    inner: Arc<Encoder>,
    cache: Option<Arc<Mutex<VectorCache>>>,
}

/// A model's prompts (see `LocalEncoder.prompts`).
#[napi(object)]
pub struct Prompts {
    /// Before a search request.
    pub query: String,
    /// Before a text searched.
    pub document: String,
}

fn kind_of(query: Option<bool>) -> TextKind {
    if query == Some(true) {
        TextKind::Query
    } else {
        TextKind::Document
    }
}

/// Options of `LocalEncoder.load`.
#[napi(object)]
pub struct LoadOptions {
    /// Longest input in tokens (default 256).
    pub max_tokens: Option<u32>,
    /// Directory of the on-disk vector cache (keyed by model id and text); none: no cache.
    pub cache_dir: Option<String>,
}

#[napi]
impl LocalEncoder {
    /// Load a model directory (synchronous: about 0.1 s for MiniLM-L6). Errors carry
    /// `[E_MODEL_NOT_FOUND]` or `[E_MODEL_INVALID]` at the start of the message.
    #[napi(factory, catch_unwind)]
    pub fn load(dir: String, options: Option<LoadOptions>) -> Result<Self> {
        let max = options
            .as_ref()
            .and_then(|o| o.max_tokens)
            .map(|m| m as usize);
        let enc = match max {
            Some(m) => Encoder::load_with(&dir, m),
            None => Encoder::load(&dir),
        }
        .map_err(to_napi)?;
        let cache = options
            .and_then(|o| o.cache_dir)
            .map(|d| Arc::new(Mutex::new(VectorCache::open(d, enc.model_id(), enc.dim()))));
        Ok(Self {
            inner: Arc::new(enc),
            cache,
        })
    }

    /// Vector length.
    #[napi(getter)]
    pub fn dim(&self) -> u32 {
        self.inner.dim() as u32
    }

    /// Model id (directory name and a hash of its config and weights size).
    #[napi(getter)]
    pub fn model_id(&self) -> String {
        self.inner.model_id().to_string()
    }

    /// Embed texts off the JS thread: resolves to one flat Float32Array of `texts.length * dim`
    /// floats (row i is text i), each row L2-normalized. Cached texts are not recomputed; new
    /// vectors are added to the cache and the cache file is rewritten, unless `keep` is false
    /// (search requests: read from the cache, never added to it). `query` marks search requests
    /// for a model with prompts (`config_sentence_transformers.json`): they get its query prompt,
    /// other texts its document prompt.
    #[napi(ts_return_type = "Promise<Float32Array>")]
    pub fn embed(
        &self,
        texts: Vec<String>,
        keep: Option<bool>,
        query: Option<bool>,
    ) -> AsyncTask<EmbedTask> {
        AsyncTask::new(EmbedTask {
            enc: self.inner.clone(),
            cache: self.cache.clone(),
            texts,
            keep: keep.unwrap_or(true),
            kind: kind_of(query),
        })
    }

    /// Embed texts on the calling thread (for tools and tests; blocks the JS thread).
    #[napi(catch_unwind)]
    pub fn embed_sync(
        &self,
        texts: Vec<String>,
        keep: Option<bool>,
        query: Option<bool>,
    ) -> Result<Float32Array> {
        Ok(Float32Array::new(run(
            &self.inner,
            self.cache.as_ref(),
            &texts,
            keep.unwrap_or(true),
            kind_of(query),
        )?))
    }

    /// The prompts the model puts before search requests and before texts searched (empty
    /// strings for a model without them).
    #[napi(getter)]
    pub fn prompts(&self) -> Prompts {
        Prompts {
            query: self.inner.prompt(TextKind::Query).to_string(),
            document: self.inner.prompt(TextKind::Document).to_string(),
        }
    }

    /// Number of vectors in the on-disk cache (0 without one).
    #[napi(getter)]
    pub fn cached(&self) -> u32 {
        self.cache
            .as_ref()
            .map(|c| c.lock().map(|c| c.len()).unwrap_or(0))
            .unwrap_or(0) as u32
    }
}

fn run(
    enc: &Encoder,
    cache: Option<&Arc<Mutex<VectorCache>>>,
    texts: &[String],
    keep: bool,
    kind: TextKind,
) -> Result<Vec<f32>> {
    let dim = enc.dim();
    // The cache is keyed by the text as the model reads it, prompt included, so a request and a
    // tool text that read alike never share a vector under a model with prompts.
    let texts: Vec<Cow<'_, str>> = if enc.prompt(kind).is_empty() {
        texts.iter().map(|t| Cow::Borrowed(t.as_str())).collect()
    } else {
        texts
            .iter()
            .map(|t| Cow::Owned(enc.prompted(t, kind)))
            .collect()
    };
    let mut out = vec![0f32; texts.len() * dim];
    let mut missing: Vec<usize> = Vec::new();
    match cache {
        Some(c) => {
            let c = c
                .lock()
                .map_err(|_| Error::from_reason("[E_CACHE] cache lock poisoned"))?;
            for (i, t) in texts.iter().enumerate() {
                match c.get(t.as_ref()) {
                    Some(v) => out[i * dim..(i + 1) * dim].copy_from_slice(v),
                    None => missing.push(i),
                }
            }
        }
        None => missing.extend(0..texts.len()),
    }
    if !missing.is_empty() {
        let batch: Vec<&str> = missing.iter().map(|&i| texts[i].as_ref()).collect();
        let vecs = enc.embed(&batch).map_err(to_napi)?;
        for (&i, v) in missing.iter().zip(&vecs) {
            out[i * dim..(i + 1) * dim].copy_from_slice(v);
        }
        if let Some(c) = cache.filter(|_| keep) {
            let mut c = c
                .lock()
                .map_err(|_| Error::from_reason("[E_CACHE] cache lock poisoned"))?;
            for (&i, v) in missing.iter().zip(vecs) {
                c.put(texts[i].as_ref(), v);
            }
            // A cache that cannot be written (a read-only home, a name already taken) costs the
            // next start a recomputation, never this call its vectors.
            c.save().ok();
        }
    }
    Ok(out)
}

/// The background work of `LocalEncoder.embed`.
pub struct EmbedTask {
    enc: Arc<Encoder>,
    cache: Option<Arc<Mutex<VectorCache>>>,
    texts: Vec<String>,
    keep: bool,
    kind: TextKind,
}

impl Task for EmbedTask {
    type Output = Vec<f32>;
    type JsValue = Float32Array;

    fn compute(&mut self) -> Result<Self::Output> {
        // On the thread pool a panic would abort the process: it becomes an error instead.
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run(
                &self.enc,
                self.cache.as_ref(),
                &self.texts,
                self.keep,
                self.kind,
            )
        }))
        .unwrap_or_else(|_| Err(Error::from_reason("[E_ENCODE] the encoder panicked")))
    }

    fn resolve(&mut self, _env: Env, output: Self::Output) -> Result<Self::JsValue> {
        Ok(Float32Array::new(output))
    }
}
