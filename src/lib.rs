//! N-API binding of `tool-index-core`. Conversions only: every function here turns
//! JavaScript values into core types, calls the core, and turns the answer back.
//! Every export is `catch_unwind`, so a Rust panic becomes a JavaScript error, never an abort.

#![deny(clippy::all)]

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tool_index_core as core;

/// An error with a stable `code` (see the README's error table).
fn to_js(e: core::IndexError) -> Error {
    Error::new(Status::InvalidArg, format!("[{}] {}", e.code.as_str(), e.message))
}

/// A tool entry as the index takes it. `inputSchema` is accepted and ignored by the
/// native index (the TypeScript layer keeps it).
#[napi(object)]
pub struct ToolEntry {
    pub name: String,
    pub description: Option<String>,
    pub search_hint: Option<String>,
    pub is_mcp: Option<bool>,
}

impl From<ToolEntry> for core::ToolDoc {
    fn from(t: ToolEntry) -> Self {
        core::ToolDoc {
            name: t.name,
            description: t.description.unwrap_or_default(),
            search_hint: t.search_hint,
            is_mcp: t.is_mcp,
        }
    }
}

/// Result of `parseToolName`.
#[napi(object)]
pub struct ParsedToolName {
    pub parts: Vec<String>,
    pub full: String,
    pub is_mcp: bool,
}

/// Split a tool name into lowercased parts (`mcp__github__create_issue` → github, create, issue).
#[napi(catch_unwind)]
pub fn parse_tool_name(name: String) -> ParsedToolName {
    let p = core::parse_tool_name(&name);
    ParsedToolName {
        parts: p.parts,
        full: p.full,
        is_mcp: p.is_mcp,
    }
}

/// The compat tokenizer: lowercased CJK bigrams and ASCII words, stop words dropped.
#[napi(catch_unwind)]
pub fn tokenize(text: String) -> Vec<String> {
    core::tokenize(&text)
}

/// `tokenize` followed by the reference's suffix stemmer.
#[napi(catch_unwind)]
pub fn tokenize_and_stem(text: String) -> Vec<String> {
    core::tokenize_and_stem(&text)
}

/// The default core-tool names (never deferred).
#[napi(catch_unwind)]
pub fn core_tools() -> Vec<&'static str> {
    core::CORE_TOOLS.to_vec()
}
