//! Pure-Rust core of `@ccb/tool-index-native`.
//!
//! Nothing here depends on N-API: the binding crate at the repository root converts
//! JavaScript values into these types and back, and `cargo test`, the benches and the fuzz
//! targets link this crate directly.
//!
//! * [`name`] — `parseToolName` (SPEC §2).
//! * [`core_tools`] — the core-tool whitelist and the deferral / indexing policy (SPEC §1).
//! * [`mod@tokenize`] — the compat tokenizer and stemmer (SPEC §3), one small pure function a stage.
//! * [`index`] — the inverted tool index with compat TF-IDF scoring (SPEC §4–5, §8).
//! * [`keyword`] — the keyword scorer (SPEC §6), over a read-only view of the tools.
//! * [`hybrid`] — the ToolSearch merge of keyword and TF-IDF results (SPEC §6).
//! * [`engine`] — one index over either scorer: dispatch, option checks, ToolSearch ranking.
//! * [`error`] — errors with stable codes.

pub mod collector;
pub mod core_tools;
mod cosine;
pub mod engine;
pub mod enhanced;
pub mod error;
pub mod hybrid;
pub mod index;
pub mod keyword;
pub mod name;
mod names;
mod pipeline;
mod runs;
pub mod store;
pub mod text;
pub mod tokenize;
pub mod vector;

pub use core_tools::{is_deferred, CorePolicy, CORE_TOOLS};
pub use error::{ErrorCode, IndexError};

/// A core result with an [`IndexError`].
pub type Result5<T> = std::result::Result<T, IndexError>;
pub use index::{Hit, IndexOptions, ToolDoc, ToolIndex};
pub use name::{parse_tool_name, ParsedName};
pub use tokenize::{stem, tokenize, tokenize_and_stem};
