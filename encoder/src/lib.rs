//! N-API companion addon of `@ccb/tool-index-native`: the local sentence encoder. Kept out of the
//! base addon so that its size and build time stay as they are.
#![deny(clippy::all)]

use std::sync::atomic::{AtomicBool, Ordering};
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

fn disposed() -> Error {
    Error::from_reason("[E_DISPOSED] this LocalEncoder was disposed; load a new one")
}

/// A sentence encoder loaded from a model directory (`config.json`, `tokenizer.json`,
/// `model.safetensors`). `embed` runs on the libuv thread pool, off the JS thread. The size of
/// its weights is reported to the JavaScript engine, so a dropped encoder is collected as its
/// size asks; `dispose()` lets the weights go at once (an embedding already running keeps them
/// until it ends).
#[napi(custom_finalize)]
pub struct LocalEncoder {
    inner: Option<Arc<Encoder>>,
    cache: Option<Arc<Mutex<VectorCache>>>,
    /// Bytes reported with `adjust_external_memory`.
    reported: i64,
}

/// Cancels the embeddings it is passed to: one that has not started yet when `cancel()` is
/// called ends at once with `[E_ENCODE]` instead of running (one already running finishes).
#[napi]
pub struct EmbedCancel {
    flag: Arc<AtomicBool>,
}

#[napi]
impl EmbedCancel {
    /// A token not yet cancelled.
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        Self {
            flag: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Cancel the embeddings this token was passed to that have not started.
    #[napi]
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }
}

impl LocalEncoder {
    fn encoder(&self) -> Result<&Arc<Encoder>> {
        self.inner.as_ref().ok_or_else(disposed)
    }

    /// Drop the weights and report them gone.
    fn release(&mut self, env: &Env) {
        self.inner = None;
        self.cache = None;
        if self.reported != 0 && env.adjust_external_memory(-self.reported).is_ok() {
            self.reported = 0;
        }
    }
}

impl ObjectFinalize for LocalEncoder {
    fn finalize(mut self, env: Env) -> Result<()> {
        self.release(&env);
        Ok(())
    }
}

/// Declares the Node-API version as the main addon does (see its `node_api_module_get_api_version_v1`):
/// experimental, so the runtime runs finalizers during garbage collection and a dropped encoder's
/// weights come back even in a loop that never yields; version 8 when the loader sets
/// `TOOL_INDEX_DEFER_FINALIZERS=1` (an older Node, whose collections may not run them).
#[no_mangle]
pub extern "C" fn node_api_module_get_api_version_v1() -> i32 {
    if std::env::var_os("TOOL_INDEX_DEFER_FINALIZERS").is_some_and(|v| v == "1") {
        8
    } else {
        i32::MAX
    }
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
    pub fn load(env: Env, dir: String, options: Option<LoadOptions>) -> Result<Self> {
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
        // The weights dominate what an encoder holds: report their size.
        let weights = std::fs::metadata(enc.dir().join("model.safetensors"))
            .map(|m| i64::try_from(m.len()).unwrap_or(i64::MAX))
            .unwrap_or(0);
        let reported = if weights > 0 && env.adjust_external_memory(weights).is_ok() {
            weights
        } else {
            0
        };
        Ok(Self {
            inner: Some(Arc::new(enc)),
            cache,
            reported,
        })
    }

    /// Let the weights (and the cache's vectors) go now instead of at garbage collection; any
    /// later call but `dispose()` throws `[E_DISPOSED]`.
    #[napi(catch_unwind)]
    pub fn dispose(&mut self, env: Env) {
        self.release(&env);
    }

    /// Vector length.
    #[napi(getter)]
    pub fn dim(&self) -> Result<u32> {
        Ok(self.encoder()?.dim() as u32)
    }

    /// Model id (directory name and a hash of its config and weights size).
    #[napi(getter)]
    pub fn model_id(&self) -> Result<String> {
        Ok(self.encoder()?.model_id().to_string())
    }

    /// Embed texts off the JS thread: resolves to one flat Float32Array of `texts.length * dim`
    /// floats (row i is text i), each row L2-normalized. Cached texts are not recomputed; new
    /// vectors are added to the cache and the cache file is rewritten, unless `keep` is false
    /// (search requests: read from the cache, never added to it). `query` marks search requests
    /// for a model with prompts (`config_sentence_transformers.json`): they get its query prompt,
    /// other texts its document prompt. `cancel`: an embedding still waiting for a thread when
    /// it is cancelled ends with `[E_ENCODE]` without running.
    #[napi(ts_return_type = "Promise<Float32Array>")]
    pub fn embed(
        &self,
        texts: Vec<String>,
        keep: Option<bool>,
        query: Option<bool>,
        cancel: Option<&EmbedCancel>,
    ) -> Result<AsyncTask<EmbedTask>> {
        Ok(AsyncTask::new(EmbedTask {
            enc: self.encoder()?.clone(),
            cache: self.cache.clone(),
            texts,
            keep: keep.unwrap_or(true),
            kind: kind_of(query),
            cancel: cancel.map(|c| c.flag.clone()),
        }))
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
            self.encoder()?,
            self.cache.as_ref(),
            &texts,
            keep.unwrap_or(true),
            kind_of(query),
        )?))
    }

    /// The prompts the model puts before search requests and before texts searched (empty
    /// strings for a model without them).
    #[napi(getter)]
    pub fn prompts(&self) -> Result<Prompts> {
        let enc = self.encoder()?;
        Ok(Prompts {
            query: enc.prompt(TextKind::Query).to_string(),
            document: enc.prompt(TextKind::Document).to_string(),
        })
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
    cancel: Option<Arc<AtomicBool>>,
}

impl Task for EmbedTask {
    type Output = Vec<f32>;
    type JsValue = Float32Array;

    fn compute(&mut self) -> Result<Self::Output> {
        // A request whose caller stopped waiting (its deadline passed while this task queued
        // for a thread) does not take one for a whole embedding.
        if self
            .cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::SeqCst))
        {
            return Err(Error::from_reason(
                "[E_ENCODE] cancelled before the encoder started",
            ));
        }
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
