//! A local sentence encoder: a BERT sentence-transformer (for example all-MiniLM-L6-v2) run with
//! candle on the CPU, from a model directory holding `config.json`, `tokenizer.json` and
//! `model.safetensors`. No Python, no server, no network.
//!
//! Embeddings are computed exactly as sentence-transformers does for these models: token
//! embeddings from the last layer, mean-pooled over the attention mask, then L2-normalized. A
//! model trained with prompts (the E5 family: `query: ` before a search request, `passage: `
//! before a text searched) names them in `config_sentence_transformers.json`, and
//! [`Encoder::prompted`] puts them in front.
//! [`VectorCache`] keeps computed vectors on disk, keyed by the model id and the text.

mod cache;

use std::fmt;
use std::path::{Path, PathBuf};

use candle_core::{DType, Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config};
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

pub use cache::{text_key, VectorCache};

/// Longest input in tokens (sentence-transformers' `max_seq_length` for MiniLM); longer texts are
/// truncated, as sentence-transformers does.
pub const DEFAULT_MAX_TOKENS: usize = 256;

/// Texts encoded per forward pass.
const BATCH: usize = 32;

/// What went wrong loading a model or encoding text. `code` is stable.
#[derive(Debug, Clone)]
pub struct EncoderError {
    /// Stable error code: `E_MODEL_NOT_FOUND`, `E_MODEL_INVALID`, `E_ENCODE`, `E_CACHE`.
    pub code: &'static str,
    /// Human-readable detail.
    pub message: String,
}

impl EncoderError {
    fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for EncoderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for EncoderError {}

/// The fewest positions a model may have: the shortest truncation, so that a text keeps some
/// words beside its [CLS] and [SEP] tokens.
const MIN_POSITIONS: u64 = 8;

/// The largest `tokenizer.json` read (MiniLM's is 0.7 MB; large multilingual ones about 17 MB).
const MAX_TOKENIZER_BYTES: u64 = 256 << 20;

/// The largest `config.json` read (a real one is under 1 KB).
const MAX_CONFIG_BYTES: u64 = 1 << 20;

/// The largest weights file read (`model.safetensors`): 2 GiB, half a billion f32 parameters.
const MAX_WEIGHTS_BYTES: u64 = 2 << 30;

/// The largest `config_sentence_transformers.json` read.
const MAX_PROMPTS_BYTES: u64 = 1 << 20;

/// The longest prompt, in characters.
const MAX_PROMPT_CHARS: usize = 256;

/// What a text is to the model: a search request or a text searched (a tool's description).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TextKind {
    /// A search request.
    Query,
    /// A text searched.
    Document,
}

/// The prompts a model was trained with, from `prompts` of `config_sentence_transformers.json`:
/// `query`, and `document` (else `passage`). Empty when the file or the entry is missing.
#[derive(Debug, Default, PartialEq, Eq)]
struct Prompts {
    query: String,
    document: String,
}

/// The prompts named in a `config_sentence_transformers.json` text. A prompt that is not a
/// string of at most `MAX_PROMPT_CHARS` characters is `E_MODEL_INVALID`.
fn read_prompts(text: &str) -> Result<Prompts, EncoderError> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(invalid)?;
    let Some(prompts) = v.get("prompts").filter(|p| !p.is_null()) else {
        return Ok(Prompts::default());
    };
    let prompts = prompts
        .as_object()
        .ok_or_else(|| invalid("config_sentence_transformers.json: prompts is not an object"))?;
    let read = |names: &[&str]| -> Result<String, EncoderError> {
        let Some(p) = names.iter().find_map(|n| prompts.get(*n)) else {
            return Ok(String::new());
        };
        match p.as_str() {
            Some(s) if s.chars().count() <= MAX_PROMPT_CHARS => Ok(s.to_owned()),
            _ => Err(invalid(format!(
                "config_sentence_transformers.json: a prompt must be a string of at most {MAX_PROMPT_CHARS} characters"
            ))),
        }
    };
    Ok(Prompts {
        query: read(&["query"])?,
        document: read(&["document", "passage"])?,
    })
}

/// What the encoder takes from `config.json` beyond candle's own reading.
#[derive(Debug, PartialEq, Eq)]
struct Shape {
    dim: usize,
    max_positions: usize,
}

/// The fields candle's BERT divides or sizes by, checked: a hidden size split evenly into
/// attention heads, and at least one position. Anything else is `E_MODEL_INVALID`.
fn check_config(v: &serde_json::Value) -> Result<Shape, EncoderError> {
    let field = |name: &str| v.get(name).and_then(|x| x.as_u64());
    let dim = field("hidden_size").ok_or_else(|| invalid("config.json has no hidden_size"))?;
    let heads = field("num_attention_heads").unwrap_or(12);
    let max_positions = field("max_position_embeddings").unwrap_or(512);
    if dim == 0 || dim > 65_536 {
        return Err(invalid(format!(
            "config.json: hidden_size {dim} is not from 1 to 65536"
        )));
    }
    if heads == 0 || dim % heads != 0 {
        return Err(invalid(format!(
            "config.json: hidden_size {dim} does not split into {heads} attention heads"
        )));
    }
    if max_positions < MIN_POSITIONS {
        return Err(invalid(format!(
            "config.json: max_position_embeddings {max_positions} is under {MIN_POSITIONS}"
        )));
    }
    Ok(Shape {
        dim: dim as usize,
        max_positions: max_positions.min(1 << 20) as usize,
    })
}

/// The truncation length: `max_tokens`, at least `MIN_POSITIONS`, at most the model's positions.
fn truncation(max_tokens: usize, max_positions: usize) -> usize {
    max_tokens.max(MIN_POSITIONS as usize).min(max_positions)
}

/// A regular file's text, refused past `limit` bytes (a FIFO or a device is never opened).
fn read_small(path: &Path, limit: u64) -> Result<String, EncoderError> {
    String::from_utf8(read_bytes(path, limit)?).map_err(invalid)
}

/// The bytes of a regular file of at most `limit` bytes (`E_MODEL_INVALID` otherwise).
fn read_bytes(path: &Path, limit: u64) -> Result<Vec<u8>, EncoderError> {
    use std::io::Read;
    let meta = std::fs::metadata(path).map_err(invalid)?;
    if !meta.is_file() {
        return Err(invalid(format!("{} is not a regular file", path.display())));
    }
    if meta.len() > limit {
        return Err(invalid(format!("{} is over {limit} bytes", path.display())));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .map_err(invalid)?
        .take(limit + 1)
        .read_to_end(&mut bytes)
        .map_err(invalid)?;
    if bytes.len() as u64 > limit {
        return Err(invalid(format!("{} is over {limit} bytes", path.display())));
    }
    Ok(bytes)
}

fn invalid(e: impl fmt::Display) -> EncoderError {
    EncoderError::new("E_MODEL_INVALID", e.to_string())
}

/// Characters of text kept a token of the truncation length: a WordPiece token covers at most a
/// 100-character word (a longer one is one unknown token), so clipping there leaves the first
/// tokens as they were while the tokenizer never reads a megabyte text to keep 256 tokens of it.
const CHARS_PER_TOKEN: usize = 128;

/// The first `chars` characters of `text`.
fn clip(text: &str, chars: usize) -> &str {
    match text.char_indices().nth(chars) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

fn encode_err(e: impl fmt::Display) -> EncoderError {
    EncoderError::new("E_ENCODE", e.to_string())
}

/// A loaded sentence encoder. Cheap to share behind an `Arc`; `embed` takes `&self`.
pub struct Encoder {
    model: BertModel,
    tokenizer: Tokenizer,
    device: Device,
    dim: usize,
    /// The most characters of a text given to the tokenizer (see [`clip`]).
    clip_chars: usize,
    model_id: String,
    dir: PathBuf,
    prompts: Prompts,
}

impl fmt::Debug for Encoder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Encoder")
            .field("model_id", &self.model_id)
            .field("dim", &self.dim)
            .finish()
    }
}

/// 64-bit FNV-1a.
pub(crate) fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

impl Encoder {
    /// Load a model directory (`config.json`, `tokenizer.json`, `model.safetensors`), truncating
    /// inputs at [`DEFAULT_MAX_TOKENS`] tokens.
    pub fn load(dir: impl AsRef<Path>) -> Result<Self, EncoderError> {
        Self::load_with(dir, DEFAULT_MAX_TOKENS)
    }

    /// Load a model directory, truncating inputs at `max_tokens` tokens (at most the model's
    /// position table).
    pub fn load_with(dir: impl AsRef<Path>, max_tokens: usize) -> Result<Self, EncoderError> {
        let dir = dir.as_ref().to_path_buf();
        let file = |name: &str| -> Result<PathBuf, EncoderError> {
            let p = dir.join(name);
            if p.is_file() {
                Ok(p)
            } else {
                Err(EncoderError::new(
                    "E_MODEL_NOT_FOUND",
                    format!("{} not found", p.display()),
                ))
            }
        };
        let config_path = file("config.json")?;
        let tokenizer_path = file("tokenizer.json")?;
        let weights_path = file("model.safetensors")?;
        let prompts_path = dir.join("config_sentence_transformers.json");
        let prompts_text = if prompts_path.exists() {
            read_small(&prompts_path, MAX_PROMPTS_BYTES)?
        } else {
            String::new()
        };
        let prompts = if prompts_text.is_empty() {
            Prompts::default()
        } else {
            read_prompts(&prompts_text)?
        };

        let config_text = read_small(&config_path, MAX_CONFIG_BYTES)?;
        let config: Config = serde_json::from_str(&config_text).map_err(invalid)?;
        let shape = check_config(&serde_json::from_str(&config_text).map_err(invalid)?)?;
        let dim = shape.dim;

        let tokenizer_text = read_small(&tokenizer_path, MAX_TOKENIZER_BYTES)?;
        let mut tokenizer = Tokenizer::from_bytes(tokenizer_text.as_bytes()).map_err(invalid)?;
        tokenizer
            .with_truncation(Some(TruncationParams {
                max_length: truncation(max_tokens, shape.max_positions),
                ..Default::default()
            }))
            .map_err(invalid)?;
        tokenizer.with_padding(Some(PaddingParams {
            strategy: PaddingStrategy::BatchLongest,
            ..Default::default()
        }));

        let device = Device::Cpu;
        // The weights are read, not mapped: a file truncated while a mapping of it is read
        // kills the process (SIGBUS), while a read just comes back short and fails the load.
        let weights = read_bytes(&weights_path, MAX_WEIGHTS_BYTES)?;
        let weights_hash = fnv1a64(&weights);
        let vb =
            VarBuilder::from_buffered_safetensors(weights, DType::F32, &device).map_err(invalid)?;
        // Checkpoints saved from BertModel have bare names ("embeddings.…"); BertForX ones prefix
        // "bert.". A loader that panics on a config it does not expect is an invalid model, not
        // an abort; the first attempt's error is the one reported when both fail.
        let load = |vb: VarBuilder| {
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                BertModel::load(vb, &config)
            }))
            .map_err(|_| invalid("the model's config does not fit its weights"))?
            .map_err(invalid)
        };
        let model = match load(vb.clone()) {
            Ok(m) => m,
            Err(first) => load(vb.pp("bert")).map_err(|_| first)?,
        };

        let name = dir
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "model".to_string());
        let model_id = format!(
            "{name}@{:016x}",
            fnv1a64(
                format!(
                    "{config_text}\u{0}{weights_hash:016x}\u{0}{:016x}\u{0}{max_tokens}{}",
                    fnv1a64(tokenizer_text.as_bytes()),
                    // Models without prompts keep the ids (and cached vectors) they had.
                    if prompts == Prompts::default() {
                        String::new()
                    } else {
                        format!("\u{0}{}\u{0}{}", prompts.query, prompts.document)
                    }
                )
                .as_bytes()
            )
        );
        Ok(Self {
            model,
            tokenizer,
            device,
            dim,
            clip_chars: truncation(max_tokens, shape.max_positions) * CHARS_PER_TOKEN,
            model_id,
            dir,
            prompts,
        })
    }

    /// The prompt the model wants before a text of this kind (empty for most models).
    pub fn prompt(&self, kind: TextKind) -> &str {
        match kind {
            TextKind::Query => &self.prompts.query,
            TextKind::Document => &self.prompts.document,
        }
    }

    /// `text` as the model is given it: its kind's prompt, then the text.
    pub fn prompted(&self, text: &str, kind: TextKind) -> String {
        let prompt = self.prompt(kind);
        let mut s = String::with_capacity(prompt.len() + text.len());
        s.push_str(prompt);
        s.push_str(text);
        s
    }

    /// Vector length (the model's hidden size, 384 for MiniLM-L6).
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Identifies the model and its settings: the directory name and a hash of its config,
    /// weights, tokenizer, token limit and prompts. Vector caches are keyed by it.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// The model directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Embed texts as given (no prompt; see [`Encoder::prompted`]): one L2-normalized vector of
    /// [`Encoder::dim`] floats per text, in order.
    /// Texts are batched by length to keep padding small; an empty text gets the vector of its
    /// special tokens alone.
    pub fn embed<S: AsRef<str>>(&self, texts: &[S]) -> Result<Vec<Vec<f32>>, EncoderError> {
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].as_ref().len());
        let mut out = vec![Vec::new(); texts.len()];
        for chunk in order.chunks(BATCH) {
            let batch: Vec<&str> = chunk.iter().map(|&i| texts[i].as_ref()).collect();
            let vecs = self.embed_batch(&batch)?;
            for (&i, v) in chunk.iter().zip(vecs) {
                out[i] = v;
            }
        }
        Ok(out)
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EncoderError> {
        let clipped: Vec<&str> = texts.iter().map(|t| clip(t, self.clip_chars)).collect();
        let encodings = self
            .tokenizer
            .encode_batch(clipped, true)
            .map_err(encode_err)?;
        let n = encodings.len();
        let len = encodings.first().map(|e| e.get_ids().len()).unwrap_or(0);
        let mut ids = Vec::with_capacity(n * len);
        let mut types = Vec::with_capacity(n * len);
        let mut mask = Vec::with_capacity(n * len);
        for e in &encodings {
            ids.extend(e.get_ids().iter().map(|&x| x as i64));
            types.extend(e.get_type_ids().iter().map(|&x| x as i64));
            mask.extend(e.get_attention_mask().iter().map(|&x| x as i64));
        }
        let ids = Tensor::from_vec(ids, (n, len), &self.device).map_err(encode_err)?;
        let types = Tensor::from_vec(types, (n, len), &self.device).map_err(encode_err)?;
        let mask = Tensor::from_vec(mask, (n, len), &self.device).map_err(encode_err)?;
        let hidden = self
            .model
            .forward(&ids, &types, Some(&mask))
            .map_err(encode_err)?; // (n, len, dim)
        let maskf = mask
            .to_dtype(DType::F32)
            .map_err(encode_err)?
            .unsqueeze(2)
            .map_err(encode_err)?; // (n, len, 1)
        let summed = hidden
            .broadcast_mul(&maskf)
            .and_then(|t| t.sum(1))
            .map_err(encode_err)?; // (n, dim)
        let counts = maskf
            .sum(1)
            .and_then(|t| t.clamp(1e-9f32, f32::MAX))
            .map_err(encode_err)?; // (n, 1)
        let mean = summed.broadcast_div(&counts).map_err(encode_err)?;
        let rows: Vec<Vec<f32>> = mean.to_vec2().map_err(encode_err)?;
        Ok(rows.into_iter().map(normalize).collect())
    }
}

/// L2-normalize (sentence-transformers' `Normalize` module: divide by max(norm, 1e-12)).
fn normalize(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt().max(1e-12);
    for x in &mut v {
        *x /= norm;
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv_vectors() {
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
    }

    #[test]
    fn normalize_unit_and_zero() {
        let v = normalize(vec![3.0, 4.0]);
        assert!((v[0] - 0.6).abs() < 1e-6 && (v[1] - 0.8).abs() < 1e-6);
        assert_eq!(normalize(vec![0.0, 0.0]), vec![0.0, 0.0]);
    }

    #[test]
    fn config_shapes() {
        let cases: &[(&str, Option<(usize, usize)>)] = &[
            (
                r#"{"hidden_size":384,"num_attention_heads":12,"max_position_embeddings":512}"#,
                Some((384, 512)),
            ),
            (r#"{"hidden_size":384}"#, Some((384, 512))),
            (
                r#"{"hidden_size":8,"num_attention_heads":2,"max_position_embeddings":8}"#,
                Some((8, 8)),
            ),
            (
                r#"{"hidden_size":8,"num_attention_heads":2,"max_position_embeddings":4}"#,
                None,
            ),
            (r#"{"num_attention_heads":12}"#, None),
            (r#"{"hidden_size":0}"#, None),
            (r#"{"hidden_size":384,"num_attention_heads":0}"#, None),
            (r#"{"hidden_size":384,"num_attention_heads":7}"#, None),
            (r#"{"hidden_size":384,"max_position_embeddings":0}"#, None),
            (r#"{"hidden_size":100000}"#, None),
        ];
        for (text, want) in cases {
            let got = check_config(&serde_json::from_str(text).unwrap());
            match want {
                Some((dim, max_positions)) => assert_eq!(
                    got.unwrap(),
                    Shape {
                        dim: *dim,
                        max_positions: *max_positions
                    },
                    "{text}"
                ),
                None => assert_eq!(got.unwrap_err().code, "E_MODEL_INVALID", "{text}"),
            }
        }
    }

    #[test]
    fn clip_keeps_whole_characters() {
        assert_eq!(clip("héllo", 2), "hé");
        assert_eq!(clip("héllo", 5), "héllo");
        assert_eq!(clip("héllo", 50), "héllo");
        assert_eq!(clip("", 3), "");
        assert_eq!(clip("发送邮件", 1), "发");
    }

    #[test]
    fn truncation_never_passes_the_model_positions() {
        for (max_tokens, positions, want) in
            [(256, 512, 256), (2, 512, 8), (256, 8, 8), (256, 100, 100)]
        {
            assert_eq!(truncation(max_tokens, positions), want);
        }
    }

    #[test]
    fn prompts_of_sentence_transformers_config() {
        let cases: &[(&str, Option<(&str, &str)>)] = &[
            (
                r#"{"prompts":{"query":"query: ","document":"passage: "}}"#,
                Some(("query: ", "passage: ")),
            ),
            (
                r#"{"prompts":{"query":"query: ","passage":"passage: "}}"#,
                Some(("query: ", "passage: ")),
            ),
            (
                r#"{"prompts":{"query":"q: ","document":"d: ","passage":"p: "}}"#,
                Some(("q: ", "d: ")),
            ),
            (r#"{"prompts":{}}"#, Some(("", ""))),
            (r#"{"prompts":null}"#, Some(("", ""))),
            (r#"{"__version__":{}}"#, Some(("", ""))),
            (r#"{"prompts":{"query":7}}"#, None),
            (r#"{"prompts":["query: "]}"#, None),
            (r#"not json"#, None),
        ];
        for (text, want) in cases {
            match (read_prompts(text), want) {
                (Ok(p), Some((q, d))) => {
                    assert_eq!((p.query.as_str(), p.document.as_str()), (*q, *d), "{text}")
                }
                (Err(e), None) => assert_eq!(e.code, "E_MODEL_INVALID", "{text}"),
                (got, _) => panic!("{text}: {got:?}"),
            }
        }
        let long = format!(
            r#"{{"prompts":{{"query":"{}"}}}}"#,
            "x".repeat(MAX_PROMPT_CHARS + 1)
        );
        assert_eq!(read_prompts(&long).unwrap_err().code, "E_MODEL_INVALID");
    }

    #[test]
    fn missing_model_dir_is_a_coded_error() {
        let e = Encoder::load("/nonexistent/model/dir").unwrap_err();
        assert_eq!(e.code, "E_MODEL_NOT_FOUND");
    }
}
