//! N-API binding of `tool-index-core`. Conversions only: every function here turns
//! JavaScript values into core types (`From`/`TryFrom` at the edge), calls the core, and turns
//! the answer back. Engine dispatch, option checks and ranking live in
//! `tool_index_core::engine`. Errors cross as `napi::Error<ErrorCode>`, so `err.code` is the
//! stable core code. Every export is `catch_unwind`, so a Rust panic becomes a JavaScript
//! error, never an abort.

#![deny(clippy::all)]

use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::time::Instant;
use tool_index_core as core;
use tool_index_core::engine::{self, Engine};
use tool_index_core::ErrorCode;

mod memory;
mod vector;

/// The JavaScript error for a core error.
fn coded(e: core::IndexError) -> Error<ErrorCode> {
    Error::new(e.code, e.message)
}

/// A JavaScript array read element by element. Its `length` is checked against
/// [`engine::MAX_LIST_LEN`] before anything is read or allocated, so a sparse array with a
/// huge `length` is an `E_TOO_LARGE` error, not an allocation failure. Conversion problems
/// are kept and thrown (coded) when the function body takes the list.
pub struct List<T>(std::result::Result<Vec<T>, core::IndexError>);

impl<T> List<T> {
    fn take(self) -> Result<Vec<T>, ErrorCode> {
        self.0.map_err(coded)
    }
}

fn opt_list<T>(l: Option<List<T>>) -> Result<Option<Vec<T>>, ErrorCode> {
    l.map(List::take).transpose()
}

impl<T> TypeName for List<T> {
    fn type_name() -> &'static str {
        "Array<T>"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl<T: FromNapiValue> FromNapiValue for List<T> {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        // SAFETY: forwarded from the caller.
        unsafe { read_array(env, value, |v| T::from_napi_value(env, v)) }
    }
}

/// Read a JavaScript array with `item` converting each element (see [`List`]).
///
/// # Safety
/// `env` and `value` must be a live env and a value of the current call.
unsafe fn read_array<T>(
    env: sys::napi_env,
    value: sys::napi_value,
    mut item: impl FnMut(sys::napi_value) -> Result<T>,
) -> Result<List<T>> {
    // SAFETY: forwarded from the caller (a live env and a value of this call).
    let arr = unsafe { Array::from_napi_value(env, value)? };
    let len = match engine::check_list_len(u64::from(arr.len()), "array") {
        Ok(n) => n,
        Err(e) => return Ok(List(Err(e))),
    };
    // Grow with the elements actually read, never reserve from `length` alone.
    let mut out = Vec::with_capacity(len.min(1024));
    for i in 0..arr.len() {
        let mut element = std::ptr::null_mut();
        // SAFETY: a live env, the array of this call and an index below its length.
        let got = unsafe { sys::napi_get_element(env, value, i, &mut element) };
        let converted = if got == sys::Status::napi_ok {
            item(element)
        } else {
            Err(Error::from_status(Status::from(got)))
        };
        match converted {
            Ok(v) => out.push(v),
            Err(e) => {
                // A conversion that ran into a JavaScript exception (a getter that
                // throws, a hole read as `undefined`) leaves it pending: take it, so the
                // coded error is the one the caller sees.
                let mut pending = false;
                // SAFETY: a live env of this call; the exception value is dropped.
                unsafe {
                    if sys::napi_is_exception_pending(env, &mut pending) == sys::Status::napi_ok
                        && pending
                    {
                        let mut ex = std::ptr::null_mut();
                        sys::napi_get_and_clear_last_exception(env, &mut ex);
                    }
                }
                return Ok(List(Err(core::IndexError::new(
                    ErrorCode::InvalidArg,
                    format!("array element {i}: {}", e.reason),
                ))));
            }
        }
    }
    Ok(List(Ok(out)))
}

impl<T: FromNapiValue> ValidateNapiValue for List<T> {}

/// A tool entry as the index takes it. `inputSchema` is accepted and ignored by the
/// native index (the TypeScript layer keeps it).
#[napi(object)]
pub struct ToolEntry {
    pub name: String,
    pub description: Option<String>,
    pub search_hint: Option<String>,
    pub is_mcp: Option<bool>,
    /// The MCP server (used by enhanced scoring; `mcp__<server>__` names carry it already).
    pub server: Option<String>,
    /// Input-schema property names and descriptions as text (used by enhanced scoring).
    pub schema_text: Option<String>,
}

impl From<ToolEntry> for core::ToolDoc {
    fn from(t: ToolEntry) -> Self {
        core::ToolDoc {
            name: t.name,
            description: t.description.unwrap_or_default(),
            search_hint: t.search_hint,
            is_mcp: t.is_mcp,
            server: t.server,
            schema_text: t.schema_text,
        }
    }
}

/// An array of [`ToolEntry`] read straight into core documents: the six property keys are
/// created once per array, not once per element and field, and each element is checked to be
/// an object.
pub struct Entries(List<core::ToolDoc>);

impl TypeName for Entries {
    fn type_name() -> &'static str {
        "Array<ToolEntry>"
    }
    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ValidateNapiValue for Entries {}

impl FromNapiValue for Entries {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        const KEYS: [&str; 6] = [
            "name",
            "description",
            "searchHint",
            "isMcp",
            "server",
            "schemaText",
        ];
        let mut keys = [std::ptr::null_mut(); 6];
        for (k, name) in keys.iter_mut().zip(KEYS) {
            // SAFETY: a live env of this call; the key is a valid UTF-8 slice.
            check_status!(unsafe {
                sys::napi_create_string_utf8(env, name.as_ptr().cast(), name.len() as isize, k)
            })?;
        }
        let field = |obj: sys::napi_value, k: usize| -> Result<sys::napi_value> {
            let mut v = std::ptr::null_mut();
            // SAFETY: a live env, an object of this call and a key created above.
            check_status!(
                unsafe { sys::napi_get_property(env, obj, keys[k], &mut v) },
                "Failed to get property `{}`",
                KEYS[k]
            )?;
            Ok(v)
        };
        // SAFETY: forwarded from the caller; every value read is of this call.
        let list = unsafe {
            read_array(env, value, |obj| {
                let mut ty = 0;
                check_status!(sys::napi_typeof(env, obj, &mut ty))?;
                if ty != sys::ValueType::napi_object {
                    return Err(Error::new(
                        Status::ObjectExpected,
                        "a tool entry must be an object",
                    ));
                }
                let name = field(obj, 0)?;
                let name = String::from_napi_value(env, name)
                    .map_err(|e| Error::new(e.status, format!("`name`: {}", e.reason)))?;
                let text = |k: usize| -> Result<Option<String>> {
                    Option::<String>::from_napi_value(env, field(obj, k)?)
                        .map_err(|e| Error::new(e.status, format!("`{}`: {}", KEYS[k], e.reason)))
                };
                let description = text(1)?;
                let search_hint = text(2)?;
                let is_mcp = Option::<bool>::from_napi_value(env, field(obj, 3)?)
                    .map_err(|e| Error::new(e.status, format!("`isMcp`: {}", e.reason)))?;
                Ok(core::ToolDoc::from(ToolEntry {
                    name,
                    description,
                    search_hint,
                    is_mcp,
                    server: text(4)?,
                    schema_text: text(5)?,
                }))
            })?
        };
        Ok(Entries(list))
    }
}

fn docs(tools: Entries) -> Result<Vec<core::ToolDoc>, ErrorCode> {
    tools.0.take()
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

/// The clauses (steps) of a request as the enhanced ranking splits it: sentence ends,
/// "then" / "finally" / "also", and "and" or a comma before a step verb; one element when
/// the request has one step.
#[napi(catch_unwind)]
pub fn split_clauses(text: String) -> Vec<String> {
    let text = core::enhanced::analysed_prefix(&text);
    core::enhanced::analyze::clauses(text)
        .into_iter()
        .map(|c| c.trim().to_owned())
        .collect()
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

/// The most elements any native function reads from one array argument (larger `length`s
/// throw `E_TOO_LARGE` before anything is read).
#[napi(catch_unwind)]
pub fn max_list_length() -> u32 {
    engine::MAX_LIST_LEN as u32
}

/// The scoring mode of an index.
#[napi(string_enum = "lowercase")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scoring {
    /// The reference's TF-IDF cosine with the name boost (the default).
    Compat,
    /// BM25F over name, server, searchHint, description and schema, with name matching.
    Enhanced,
}

impl From<engine::Scoring> for Scoring {
    fn from(s: engine::Scoring) -> Self {
        match s {
            engine::Scoring::Compat => Scoring::Compat,
            engine::Scoring::Enhanced => Scoring::Enhanced,
        }
    }
}

/// A `scoring` option as given: a known mode, or the coded error an unknown string throws
/// (`E_INVALID_SCORING` from the core's parser, not a generic conversion error).
pub struct ScoringOption(std::result::Result<engine::Scoring, core::IndexError>);

impl TypeName for ScoringOption {
    fn type_name() -> &'static str {
        "Scoring"
    }
    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ValidateNapiValue for ScoringOption {}

impl FromNapiValue for ScoringOption {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        // SAFETY: forwarded from the caller.
        let s = unsafe { String::from_napi_value(env, value)? };
        Ok(ScoringOption(s.parse()))
    }
}

/// Index options.
#[napi(object, object_to_js = false)]
pub struct IndexOptions {
    /// `'compat'` (the reference's TF-IDF, the default here) or `'enhanced'` (BM25F with
    /// name matching, see the README); any other string throws `E_INVALID_SCORING`.
    #[napi(ts_type = "Scoring")]
    pub scoring: Option<ScoringOption>,
    /// Display threshold for `search` (default 0.10, `TOOL_SEARCH_DISPLAY_MIN_SCORE`).
    pub min_score: Option<f64>,
    /// Tokenize on worker threads from this many tools up (default 512).
    pub parallel_threshold: Option<u32>,
    /// Enhanced-ranking parameters (advanced; the defaults are measured, see the README).
    pub tuning: Option<Tuning>,
}

/// Enhanced-ranking parameters; each one left out keeps its default.
#[napi(object, object_to_js = false)]
pub struct Tuning {
    /// BM25 term-frequency saturation (default 1.2).
    pub k1: Option<f64>,
    /// Field weights: name, server, searchHint, description, schema.
    #[napi(ts_type = "Array<number>")]
    pub weights: Option<List<f64>>,
    /// Field length normalization, same field order.
    #[napi(ts_type = "Array<number>")]
    pub b: Option<List<f64>>,
    pub typo_weight: Option<f64>,
    pub lexicon_weight: Option<f64>,
    /// Abstain only below this share of the query's IDF mass (default 0.5; 0 turns abstaining off).
    pub abstain_coverage: Option<f64>,
    /// Weight of query words no tool has, in the query's IDF mass.
    pub unknown_weight: Option<f64>,
    /// Abstain when the best tool's confidence is below this (default 0.23; 0 turns it off).
    pub abstain_confidence: Option<f64>,
    /// Evidence at which confidence is one half (default 1).
    pub confidence_scale: Option<f64>,
    /// Weight of per-clause coverage in multi-step requests (default 0.4; 0 turns it off).
    pub clause_weight: Option<f64>,
    /// Query weight of synonyms of query words (default 0.2; 0 turns them off).
    pub synonym_weight: Option<f64>,
    /// Name-field weight of generic words such as "find", "get", "id" (default 1).
    pub generic_name_weight: Option<f64>,
    /// Query weight of words inside quotation marks (default 0.3).
    pub quote_weight: Option<f64>,
}

impl TryFrom<Tuning> for engine::Tuning {
    type Error = Error<ErrorCode>;
    fn try_from(t: Tuning) -> Result<Self, ErrorCode> {
        Ok(engine::Tuning {
            k1: t.k1,
            weights: opt_list(t.weights)?,
            b: opt_list(t.b)?,
            typo_weight: t.typo_weight,
            lexicon_weight: t.lexicon_weight,
            abstain_coverage: t.abstain_coverage,
            unknown_weight: t.unknown_weight,
            abstain_confidence: t.abstain_confidence,
            confidence_scale: t.confidence_scale,
            clause_weight: t.clause_weight,
            synonym_weight: t.synonym_weight,
            generic_name_weight: t.generic_name_weight,
            quote_weight: t.quote_weight,
        })
    }
}

impl TryFrom<IndexOptions> for engine::EngineOptions {
    type Error = Error<ErrorCode>;
    fn try_from(o: IndexOptions) -> Result<Self, ErrorCode> {
        Ok(engine::EngineOptions {
            scoring: o.scoring.map(|s| s.0.map_err(coded)).transpose()?,
            min_score: o.min_score,
            parallel_threshold: o.parallel_threshold,
            tuning: o.tuning.map(TryInto::try_into).transpose()?,
        })
    }
}

/// One search result.
#[napi(object)]
pub struct SearchHit {
    /// Tool name.
    pub name: String,
    /// Score: cosine similarity in [0, 1], or 0.75 from the name boost.
    pub score: f64,
    /// The tool's id in this index (stable until it is removed).
    pub id: u32,
}

impl From<engine::NamedHit> for SearchHit {
    fn from(h: engine::NamedHit) -> Self {
        Self {
            name: h.name,
            score: h.score,
            id: h.id,
        }
    }
}

/// Options of `toolSearchRank`.
#[napi(object, object_to_js = false)]
pub struct RankOptions {
    /// Weight of the keyword half (default 0.4, `TOOL_SEARCH_WEIGHT_KEYWORD`).
    pub keyword_weight: Option<f64>,
    /// Weight of the TF-IDF half (default 0.6, `TOOL_SEARCH_WEIGHT_TFIDF`).
    pub tfidf_weight: Option<f64>,
    /// Display threshold of the TF-IDF half (default: the index's).
    pub min_score: Option<f64>,
    /// A non-indexed tool (e.g. a core tool) whose lowercased name equals the trimmed,
    /// lowercased query; used when no indexed tool matches the query exactly.
    pub exact_outside: Option<String>,
}

impl From<RankOptions> for engine::RankOptions {
    fn from(o: RankOptions) -> Self {
        Self {
            keyword_weight: o.keyword_weight,
            tfidf_weight: o.tfidf_weight,
            min_score: o.min_score,
            exact_outside: o.exact_outside,
        }
    }
}

/// One merged ToolSearch result.
#[napi(object)]
pub struct RankedResult {
    /// Tool name.
    pub name: String,
    /// Merged score: keyword part + TF-IDF part.
    pub score: f64,
    /// The tool's id; absent for the `exactOutside` tool.
    pub id: Option<u32>,
    /// 0-based rank in the keyword list, if the keyword search found it.
    pub keyword_rank: Option<u32>,
    /// Unweighted TF-IDF score, if the TF-IDF search found it.
    pub tfidf_score: Option<f64>,
}

impl From<engine::Ranked> for RankedResult {
    fn from(r: engine::Ranked) -> Self {
        Self {
            name: r.name,
            score: r.score,
            id: r.id,
            keyword_rank: r.keyword_rank,
            tfidf_score: r.tfidf_score,
        }
    }
}

/// The reference's `tokens` and `tfVector` of one indexed tool.
#[napi(object)]
pub struct EntryTerms {
    /// Distinct tokens, first seen in name, then searchHint, then description.
    pub tokens: Vec<String>,
    /// `tfVector` values in `tokens` order (weighted TF x IDF).
    pub weights: Vec<f64>,
}

impl From<engine::EntryTerms> for EntryTerms {
    fn from(e: engine::EntryTerms) -> Self {
        Self {
            tokens: e.tokens,
            weights: e.weights,
        }
    }
}

/// One term's share of a score, from `explain`.
#[napi(object)]
pub struct TermContribution {
    /// The (analysed) query term.
    pub term: String,
    /// `query`, `lexicon` or `typo:<word>` (enhanced); `query` (compat).
    pub origin: String,
    /// Compat: the query-side TF x IDF. Enhanced: the term's IDF.
    pub weight: f64,
    /// Compat: the tool-side TF x IDF. Enhanced: the term's weighted, normalized TF.
    pub tool_weight: f64,
    /// Per field (enhanced): `field:tf` pairs, e.g. `["name:1", "description:3"]`.
    pub fields: Vec<String>,
    /// The term's part of the score.
    pub contribution: f64,
}

/// Why a tool scored what it did.
#[napi(object)]
pub struct Explanation {
    pub name: String,
    pub scoring: Scoring,
    /// The score `search` gives the tool (0 when it is not a result).
    pub score: f64,
    /// Enhanced: the name-match tier (0-3). Compat: 1 when the name boost applied.
    pub tier: u32,
    /// Enhanced: BM25F relevance in [0, 1). Compat: the cosine before guard and boost.
    pub relevance: f64,
    /// Enhanced: the share of the query's IDF mass the tool matches. Compat: absent.
    pub coverage: Option<f64>,
    pub terms: Vec<TermContribution>,
    /// Why the tool is not a result, when it is not.
    pub note: Option<String>,
}

impl From<engine::Explanation> for Explanation {
    fn from(e: engine::Explanation) -> Self {
        Self {
            name: e.name,
            scoring: e.scoring.into(),
            score: e.score,
            tier: e.tier,
            relevance: e.relevance,
            coverage: e.coverage,
            note: e.note,
            terms: e
                .terms
                .into_iter()
                .map(|t| TermContribution {
                    term: t.term,
                    origin: t.origin,
                    weight: t.weight,
                    tool_weight: t.tool_weight,
                    fields: t.fields,
                    contribution: t.contribution,
                })
                .collect(),
        }
    }
}

/// A native tool index. Not shareable across threads or workers: build one per worker.
/// Its native memory is reported to the JavaScript engine; `dispose()` frees it at once.
#[napi(custom_finalize)]
pub struct ToolIndex {
    /// `None` after `dispose()`.
    inner: Option<Engine>,
    /// Bytes last reported with `adjust_external_memory`.
    reported: i64,
}

impl ToolIndex {
    fn engine(&self) -> Result<&Engine, ErrorCode> {
        self.inner.as_ref().ok_or_else(disposed)
    }

    fn engine_mut(&mut self) -> Result<&mut Engine, ErrorCode> {
        self.inner.as_mut().ok_or_else(disposed)
    }

    /// Report the change in the index's native size to the engine's GC accounting.
    fn account(&mut self, env: &Env) {
        let now = self.inner.as_ref().map_or(0, |e| e.heap_bytes()) as i64;
        if memory::report(env, now - self.reported) {
            self.reported = now;
        }
    }

    /// [`Self::account`] after a build or update that began at `started`, then let the
    /// collection pace see the build.
    fn account_build(&mut self, env: &Env, started: Instant) {
        self.account(env);
        memory::after_build(env, started.elapsed());
    }
}

fn disposed() -> Error<ErrorCode> {
    Error::new(
        ErrorCode::Disposed,
        "this ToolIndex was disposed; build a new one",
    )
}

impl ObjectFinalize for ToolIndex {
    fn finalize(mut self, env: Env) -> Result<()> {
        let started = Instant::now();
        self.inner = None;
        memory::freed(started.elapsed());
        self.account(&env);
        Ok(())
    }
}

#[napi]
impl ToolIndex {
    /// Build an index from plain tool entries, in order. Duplicate names throw `E_DUPLICATE_NAME`.
    #[napi(constructor, catch_unwind)]
    pub fn new(
        env: Env,
        #[napi(ts_arg_type = "Array<ToolEntry>")] tools: Entries,
        options: Option<IndexOptions>,
    ) -> Result<Self, ErrorCode> {
        let started = Instant::now();
        let options = match options {
            Some(o) => o.try_into()?,
            None => engine::EngineOptions::default(),
        };
        let engine = Engine::build(docs(tools)?, options).map_err(coded)?;
        let mut index = Self {
            inner: Some(engine),
            reported: 0,
        };
        index.account_build(&env, started);
        Ok(index)
    }

    /// Number of tools.
    #[napi(getter, catch_unwind)]
    pub fn length(&self) -> Result<u32, ErrorCode> {
        Ok(self.engine()?.len() as u32)
    }

    /// Search: best first, ties in index order, scores at or above the threshold.
    /// `limit` defaults to 5; fractions are truncated; NaN or negative throws `E_INVALID_LIMIT`.
    #[napi(catch_unwind)]
    pub fn search(
        &self,
        query: String,
        limit: Option<f64>,
        min_score: Option<f64>,
    ) -> Result<Vec<SearchHit>, ErrorCode> {
        let hits = self
            .engine()?
            .search(&query, limit.unwrap_or(5.0), min_score)
            .map_err(coded)?;
        Ok(hits.into_iter().map(Into::into).collect())
    }

    /// The scoring mode: `'compat'` or `'enhanced'`.
    #[napi(getter, catch_unwind)]
    pub fn scoring(&self) -> Result<Scoring, ErrorCode> {
        Ok(self.engine()?.scoring().into())
    }

    /// Per-term (and, enhanced, per-field) contributions to one tool's score for a query;
    /// `null` when no tool has that name.
    #[napi(catch_unwind)]
    pub fn explain(&self, query: String, name: String) -> Result<Option<Explanation>, ErrorCode> {
        Ok(self.engine()?.explain(&query, &name).map(Into::into))
    }

    /// `search` as a flat `Float64Array` `[id0, score0, id1, score1, ...]` (no strings cross
    /// the boundary; the TypeScript layer maps ids to its own entries).
    #[napi(catch_unwind, ts_return_type = "Float64Array")]
    pub fn search_ids<'env>(
        &self,
        env: &'env Env,
        query: String,
        limit: f64,
        min_score: f64,
    ) -> Result<Float64ArraySlice<'env>, ErrorCode> {
        let flat = self
            .engine()?
            .search_flat(&query, limit, min_score)
            .map_err(coded)?;
        // Copied into memory the JavaScript engine owns: an external buffer's finalizer waits
        // for the event loop under Node, so a loop that never yields would keep every result.
        Float64ArraySlice::copy_from(env, flat)
            .map_err(|e| Error::new(ErrorCode::Internal, e.reason.clone()))
    }

    /// The keyword search of ToolSearch (exact name, `mcp__` prefix, `+required` terms,
    /// +12/+10, +6/+5, +4, +2 points). `score` is the keyword score; `Infinity` for the
    /// exact-name and prefix paths, which are not scored.
    #[napi(catch_unwind)]
    pub fn keyword_search(
        &self,
        query: String,
        max_results: Option<f64>,
    ) -> Result<Vec<SearchHit>, ErrorCode> {
        let hits = self
            .engine()?
            .keyword_search(&query, max_results.unwrap_or(5.0))
            .map_err(coded)?;
        Ok(hits.into_iter().map(Into::into).collect())
    }

    /// The whole ToolSearch ranking in one call: keyword search and TF-IDF search, merged
    /// (keyword hit at rank r of n: (n - r)/n x keywordWeight; TF-IDF score x tfidfWeight).
    #[napi(catch_unwind)]
    pub fn tool_search_rank(
        &self,
        query: String,
        max_results: Option<f64>,
        options: Option<RankOptions>,
    ) -> Result<Vec<RankedResult>, ErrorCode> {
        let options = options.map(Into::into).unwrap_or_default();
        let hits = self
            .engine()?
            .tool_search_rank(&query, max_results.unwrap_or(5.0), &options)
            .map_err(coded)?;
        Ok(hits.into_iter().map(Into::into).collect())
    }

    /// Add tools or replace same-named ones in place; results then equal a fresh build.
    /// Returns each given tool's id, in input order.
    #[napi(catch_unwind)]
    pub fn upsert(
        &mut self,
        env: Env,
        #[napi(ts_arg_type = "Array<ToolEntry>")] tools: Entries,
    ) -> Result<Vec<u32>, ErrorCode> {
        let started = Instant::now();
        let docs = docs(tools)?;
        let ids = self.engine_mut()?.upsert(docs).map_err(coded)?;
        self.account_build(&env, started);
        Ok(ids)
    }

    /// Increases when removals renumber ids (ids from before are then invalid).
    #[napi(getter, catch_unwind)]
    pub fn generation(&self) -> Result<u32, ErrorCode> {
        Ok(self.engine()?.generation() as u32)
    }

    /// Remove tools by name; returns how many were present.
    #[napi(catch_unwind)]
    pub fn remove(
        &mut self,
        env: Env,
        #[napi(ts_arg_type = "Array<string>")] names: List<String>,
    ) -> Result<u32, ErrorCode> {
        let names = names.take()?;
        let n = self.engine_mut()?.remove(&names) as u32;
        self.account(&env);
        Ok(n)
    }

    /// Ids of all tools in index order.
    #[napi(catch_unwind)]
    pub fn ids(&self) -> Result<Vec<u32>, ErrorCode> {
        Ok(self.engine()?.slots())
    }

    /// Names of all tools in index order.
    #[napi(catch_unwind)]
    pub fn names(&self) -> Result<Vec<String>, ErrorCode> {
        Ok(self.engine()?.names())
    }

    /// The id of a tool by name, or `null`.
    #[napi(catch_unwind)]
    pub fn id_of(&self, name: String) -> Result<Option<u32>, ErrorCode> {
        Ok(self.engine()?.slot_of(&name))
    }

    /// `tokens` and `tfVector` of the tool with this id (`null` for an unknown id). In
    /// enhanced mode the tokens are the enhanced analyzer's and the weights are all 0
    /// (BM25F has no per-tool vector).
    #[napi(catch_unwind)]
    pub fn entry_terms(&self, id: u32) -> Result<Option<EntryTerms>, ErrorCode> {
        Ok(self.engine()?.entry_terms(id).map(Into::into))
    }

    /// The normalized name (`parseToolName(name).full`) of the tool with this id.
    #[napi(catch_unwind)]
    pub fn normalized_name(&self, id: u32) -> Result<Option<String>, ErrorCode> {
        Ok(self
            .engine()?
            .name(id)
            .map(|n| core::parse_tool_name(n).full))
    }

    /// Free the index's memory now. Every later call except `dispose()` (a no-op) and
    /// `disposed` throws `E_DISPOSED`.
    #[napi(catch_unwind)]
    pub fn dispose(&mut self, env: Env) {
        self.inner = None;
        self.account(&env);
    }

    /// Whether `dispose()` was called.
    #[napi(getter, catch_unwind)]
    pub fn disposed(&self) -> bool {
        self.inner.is_none()
    }

    /// The native heap bytes this index reports to the JavaScript engine (an estimate; 0
    /// after `dispose()`).
    #[napi(getter, catch_unwind)]
    pub fn external_memory(&self) -> f64 {
        self.reported as f64
    }
}

/// Declares this module's Node-API version to Node as `NAPI_VERSION_EXPERIMENTAL`, under which
/// Node runs the module's finalizers during garbage collection instead of queueing them for a
/// later turn of the event loop (so a dropped index's native memory comes back even in a loop
/// that never yields). Every finalizer of this module only frees Rust memory and calls
/// GC-safe Node-API functions.
#[no_mangle]
pub extern "C" fn node_api_module_get_api_version_v1() -> i32 {
    i32::MAX
}
