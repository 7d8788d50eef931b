//! N-API binding of `tool-index-core`. Conversions only: every function here turns
//! JavaScript values into core types (`From`/`TryFrom` at the edge), calls the core, and turns
//! the answer back. Engine dispatch, option checks and ranking live in
//! `tool_index_core::engine`. Errors cross as `napi::Error<ErrorCode>`, so `err.code` is the
//! stable core code. Every export is `catch_unwind`, so a Rust panic becomes a JavaScript
//! error, never an abort.

#![deny(clippy::all)]

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tool_index_core as core;
use tool_index_core::engine;
use tool_index_core::ErrorCode;

mod error;
mod list;
mod memory;
mod options;
mod results;
mod tool_index;
mod trim;
mod vector;

use list::{opt_list, List};

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
        parts: p.parts().map(str::to_owned).collect(),
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

/// The clauses (steps) of a request as the enhanced ranking splits it: sentence ends,
/// "then" / "finally" / "also", and "and" or a comma before a step verb; one element when
/// the request has one step. A lead-in ("On GitHub, …") stays with the step after it, and a
/// sentence that names no action ("I'm a Leo.") joins the next.
#[napi(catch_unwind)]
pub fn split_clauses(text: String) -> Vec<String> {
    let text = core::enhanced::analysed_prefix(&text);
    core::enhanced::analyze::clauses(text)
        .into_iter()
        .map(|c| c.trim().to_owned())
        .collect()
}

/// The request with each word of the Chinese lexicon replaced by its English words and other
/// CJK text dropped (`在 GitHub 上创建 issue` → `GitHub create issue`): what an English
/// sentence encoder is given for a request it cannot read.
#[napi(catch_unwind)]
pub fn lexicon_gloss(text: String) -> String {
    core::enhanced::lexicon::gloss(&text)
}

/// A tool as `isDeferredTool` sees it.
#[napi(object)]
pub struct DeferralInput {
    pub name: String,
    pub always_load: Option<bool>,
}

/// Reference `isDeferredTool`: `alwaysLoad === true` or a core name → false, else true.
/// `coreTools` replaces the default core set when given.
#[napi(catch_unwind)]
pub fn is_deferred_tool(
    tool: DeferralInput,
    #[napi(ts_arg_type = "Array<string> | undefined | null")] core_tools: Option<List<String>>,
) -> Result<bool, ErrorCode> {
    let core_tools = opt_list(core_tools)?;
    let policy = core::CorePolicy::new(core_tools.as_deref(), &[], &[]);
    Ok(core::is_deferred(
        &tool.name,
        tool.always_load.unwrap_or(false),
        &policy,
    ))
}

/// Which of `names` belong in the index (deferred, or forced in, and not excluded):
/// a boolean per name. `alwaysLoad[i]` is the i-th tool's flag.
#[napi(catch_unwind)]
pub fn select_indexable(
    #[napi(ts_arg_type = "Array<string>")] names: List<String>,
    #[napi(ts_arg_type = "Array<boolean>")] always_load: List<bool>,
    #[napi(ts_arg_type = "Array<string> | undefined | null")] core_tools: Option<List<String>>,
    #[napi(ts_arg_type = "Array<string> | undefined | null")] exclude: Option<List<String>>,
    #[napi(ts_arg_type = "Array<string> | undefined | null")] include_force: Option<List<String>>,
) -> Result<Vec<bool>, ErrorCode> {
    let names = names.take()?;
    let always_load = always_load.take()?;
    let core_tools = opt_list(core_tools)?;
    let exclude = opt_list(exclude)?;
    let include_force = opt_list(include_force)?;
    let policy = core::CorePolicy::new(
        core_tools.as_deref(),
        exclude.as_deref().unwrap_or(&[]),
        include_force.as_deref().unwrap_or(&[]),
    );
    Ok(names
        .iter()
        .enumerate()
        .map(|(i, n)| policy.should_index(n, always_load.get(i).copied().unwrap_or(false)))
        .collect())
}

/// The default core-tool names (never deferred).
#[napi(catch_unwind)]
pub fn core_tools() -> Vec<&'static str> {
    core::CORE_TOOLS.to_vec()
}

/// The enhanced ranking's crowd rule as chosen on the dev split (the four `Tuning` fields).
#[napi(object)]
pub struct CrowdRule {
    pub crowd_gap: f64,
    pub crowd_weight: f64,
    pub crowd_confidence: f64,
    pub crowd_coverage: f64,
}

/// The crowd rule's values chosen on the dev split: spread them into `tuning` to opt in.
#[napi(catch_unwind)]
pub fn crowd_abstain() -> CrowdRule {
    let (crowd_gap, crowd_weight, crowd_confidence, crowd_coverage) = core::enhanced::CROWD_RULE;
    CrowdRule {
        crowd_gap,
        crowd_weight,
        crowd_confidence,
        crowd_coverage,
    }
}

/// The most elements any native function reads from one array argument (larger `length`s
/// throw `E_TOO_LARGE` before anything is read).
#[napi(catch_unwind)]
pub fn max_list_length() -> u32 {
    engine::MAX_LIST_LEN as u32
}

/// Declares this module's Node-API version to the runtime. By default it is
/// `NAPI_VERSION_EXPERIMENTAL`, under which the runtime runs the module's finalizers during
/// garbage collection instead of queueing them for a later turn of the event loop (so a dropped
/// index's native memory comes back even in a loop that never yields). Every finalizer of this
/// module only frees Rust memory and calls Node-API functions that runtimes allow there since
/// Node 20.18.3, 22.13.0, 23.5.0 and Bun 1.4.0. On an older Node the package's loader
/// (`native.js`) sets `TOOL_INDEX_DEFER_FINALIZERS=1` before loading, and the module declares
/// version 8, the default of a module that declares none.
#[no_mangle]
pub extern "C" fn node_api_module_get_api_version_v1() -> i32 {
    if std::env::var_os("TOOL_INDEX_DEFER_FINALIZERS").is_some_and(|v| v == "1") {
        8
    } else {
        i32::MAX
    }
}
