//! N-API binding of `tool-index-core`. Conversions only: every function here turns
//! JavaScript values into core types, calls the core, and turns the answer back.
//! Every export is `catch_unwind`, so a Rust panic becomes a JavaScript error, never an abort.

#![deny(clippy::all)]

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tool_index_core as core;

mod vector;

/// A JavaScript `Error` whose `code` property is the stable core code (`E_DUPLICATE_NAME`, ...).
fn coded(env: &Env, e: core::IndexError) -> Error {
    let make = || -> Result<Error> {
        let mut obj = env.create_error(Error::new(Status::InvalidArg, e.message.clone()))?;
        obj.set_named_property("code", e.code.as_str())?;
        Ok(Error::from(obj.to_unknown()))
    };
    make().unwrap_or_else(|err| err)
}

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

/// A tool as `isDeferredTool` sees it.
#[napi(object)]
pub struct DeferralInput {
    pub name: String,
    pub always_load: Option<bool>,
}

/// Reference `isDeferredTool`: `alwaysLoad === true` or a core name → false, else true.
/// `coreTools` replaces the default core set when given.
#[napi(catch_unwind)]
pub fn is_deferred_tool(tool: DeferralInput, core_tools: Option<Vec<String>>) -> bool {
    let policy = core::CorePolicy::new(core_tools.as_deref(), &[], &[]);
    core::is_deferred(&tool.name, tool.always_load.unwrap_or(false), &policy)
}

/// Which of `names` belong in the index (deferred, or forced in, and not excluded):
/// a boolean per name. `alwaysLoad[i]` is the i-th tool's flag.
#[napi(catch_unwind)]
pub fn select_indexable(
    names: Vec<String>,
    always_load: Vec<bool>,
    core_tools: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    include_force: Option<Vec<String>>,
) -> Vec<bool> {
    let policy = core::CorePolicy::new(
        core_tools.as_deref(),
        exclude.as_deref().unwrap_or(&[]),
        include_force.as_deref().unwrap_or(&[]),
    );
    names
        .iter()
        .enumerate()
        .map(|(i, n)| policy.should_index(n, always_load.get(i).copied().unwrap_or(false)))
        .collect()
}

/// The default core-tool names (never deferred).
#[napi(catch_unwind)]
pub fn core_tools() -> Vec<&'static str> {
    core::CORE_TOOLS.to_vec()
}

/// Index options.
#[napi(object)]
pub struct IndexOptions {
    /// `'compat'` (the reference's TF-IDF, the default here) or `'enhanced'` (BM25F with
    /// name matching, see the README).
    pub scoring: Option<String>,
    /// Display threshold for `search` (default 0.10, `TOOL_SEARCH_DISPLAY_MIN_SCORE`).
    pub min_score: Option<f64>,
    /// Tokenize on worker threads from this many tools up (default 512).
    pub parallel_threshold: Option<u32>,
    /// Enhanced-ranking parameters (advanced; the defaults are measured, see the README).
    pub tuning: Option<Tuning>,
}

/// Enhanced-ranking parameters; each one left out keeps its default.
#[napi(object)]
pub struct Tuning {
    /// BM25 term-frequency saturation (default 1.2).
    pub k1: Option<f64>,
    /// Field weights: name, server, searchHint, description, schema.
    pub weights: Option<Vec<f64>>,
    /// Field length normalization, same field order.
    pub b: Option<Vec<f64>>,
    pub typo_weight: Option<f64>,
    pub lexicon_weight: Option<f64>,
    /// Abstain below this share of the query's IDF mass (0 turns abstaining off).
    pub abstain_coverage: Option<f64>,
    /// Weight of query words no tool has, in the query's IDF mass.
    pub unknown_weight: Option<f64>,
}

fn params_from(t: Option<Tuning>) -> core::Result5<core::enhanced::Params> {
    let mut p = core::enhanced::Params::default();
    let Some(t) = t else { return Ok(p) };
    let fin = |v: f64, what: &str| core::error::finite(v, what);
    if let Some(v) = t.k1 {
        p.k1 = fin(v, "tuning.k1")?;
    }
    let five = |v: Vec<f64>, what: &str| -> core::Result5<[f64; 5]> {
        if v.len() != 5 || v.iter().any(|x| !x.is_finite() || *x < 0.0) {
            return Err(core::IndexError::new(
                core::ErrorCode::InvalidNumber,
                format!("{what} must be 5 finite numbers >= 0"),
            ));
        }
        Ok([v[0], v[1], v[2], v[3], v[4]])
    };
    if let Some(v) = t.weights {
        p.weights = five(v, "tuning.weights")?;
    }
    if let Some(v) = t.b {
        p.b = five(v, "tuning.b")?;
    }
    if let Some(v) = t.typo_weight {
        p.typo_weight = fin(v, "tuning.typoWeight")?;
    }
    if let Some(v) = t.lexicon_weight {
        p.lexicon_weight = fin(v, "tuning.lexiconWeight")?;
    }
    if let Some(v) = t.unknown_weight {
        p.unknown_weight = fin(v, "tuning.unknownWeight")?;
    }
    if let Some(v) = t.abstain_coverage {
        p.abstain_coverage = fin(v, "tuning.abstainCoverage")?;
    }
    Ok(p)
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

/// Options of `toolSearchRank`.
#[napi(object)]
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

/// The reference's `tokens` and `tfVector` of one indexed tool.
#[napi(object)]
pub struct EntryTerms {
    /// Distinct tokens, first seen in name, then searchHint, then description.
    pub tokens: Vec<String>,
    /// `tfVector` values in `tokens` order (weighted TF x IDF).
    pub weights: Vec<f64>,
}

/// The two scoring engines behind one class.
enum Engine {
    Compat(Box<core::ToolIndex>),
    Enhanced(Box<core::enhanced::EnhancedIndex>),
}

impl Engine {
    fn len(&self) -> usize {
        match self {
            Engine::Compat(i) => i.len(),
            Engine::Enhanced(i) => i.len(),
        }
    }
    fn name(&self, slot: u32) -> Option<&str> {
        match self {
            Engine::Compat(i) => i.doc(slot).map(|d| d.name.as_str()),
            Engine::Enhanced(i) => i.name(slot),
        }
    }
    fn search(&self, query: &str, limit: usize, min: f64) -> Vec<core::Hit> {
        match self {
            Engine::Compat(i) => i.search(query, limit, min),
            Engine::Enhanced(i) => i.search(query, limit, min),
        }
    }
    fn slots(&self) -> Vec<u32> {
        match self {
            Engine::Compat(i) => i.slots().collect(),
            Engine::Enhanced(i) => i.slots().collect(),
        }
    }
    fn slot_of(&self, name: &str) -> Option<u32> {
        match self {
            Engine::Compat(i) => i.slot_of(name),
            Engine::Enhanced(i) => i.slot_of(name),
        }
    }
    fn generation(&self) -> u64 {
        match self {
            Engine::Compat(i) => i.generation(),
            Engine::Enhanced(i) => i.generation(),
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
    pub scoring: String,
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

/// A native tool index. Not shareable across threads or workers: build one per worker.
#[napi]
pub struct ToolIndex {
    inner: Engine,
    min_score: f64,
}

fn doc_vec(tools: Vec<ToolEntry>) -> Vec<core::ToolDoc> {
    tools.into_iter().map(Into::into).collect()
}

#[napi]
impl ToolIndex {
    /// Build an index from plain tool entries, in order. Duplicate names throw `E_DUPLICATE_NAME`.
    #[napi(constructor, catch_unwind)]
    pub fn new(env: Env, tools: Vec<ToolEntry>, options: Option<IndexOptions>) -> Result<Self> {
        let mut opts = core::IndexOptions::default();
        let mut min_score = core::index::DEFAULT_MIN_SCORE;
        let mut enhanced = false;
        let mut params = core::enhanced::Params::default();
        if let Some(o) = options {
            params = params_from(o.tuning).map_err(|e| coded(&env, e))?;
            match o.scoring.as_deref() {
                None | Some("compat") => {}
                Some("enhanced") => enhanced = true,
                Some(s) => return Err(coded(&env, core::enhanced::unknown_scoring(s))),
            }
            if let Some(m) = o.min_score {
                min_score = core::error::finite(m, "minScore").map_err(|e| coded(&env, e))?;
            }
            if let Some(p) = o.parallel_threshold {
                opts.parallel_threshold = p as usize;
            }
        }
        let docs = doc_vec(tools);
        let inner = if enhanced {
            Engine::Enhanced(Box::new(
                core::enhanced::EnhancedIndex::build(docs, params, opts.parallel_threshold)
                    .map_err(|e| coded(&env, e))?,
            ))
        } else {
            Engine::Compat(Box::new(
                core::ToolIndex::build(docs, opts).map_err(|e| coded(&env, e))?,
            ))
        };
        Ok(Self { inner, min_score })
    }

    /// Number of tools.
    #[napi(getter, catch_unwind)]
    pub fn length(&self) -> u32 {
        self.inner.len() as u32
    }

    /// Search: best first, ties in index order, scores at or above the threshold.
    /// `limit` defaults to 5; fractions are truncated; NaN or negative throws `E_INVALID_LIMIT`.
    #[napi(catch_unwind)]
    pub fn search(
        &self,
        env: Env,
        query: String,
        limit: Option<f64>,
        min_score: Option<f64>,
    ) -> Result<Vec<SearchHit>> {
        let limit =
            core::error::limit_from_f64(limit.unwrap_or(5.0)).map_err(|e| coded(&env, e))?;
        let min = match min_score {
            Some(m) => core::error::finite(m, "minScore").map_err(|e| coded(&env, e))?,
            None => self.min_score,
        };
        Ok(self
            .inner
            .search(&query, limit, min)
            .into_iter()
            .filter_map(|h| {
                self.inner.name(h.slot).map(|name| SearchHit {
                    name: name.to_owned(),
                    score: h.score,
                    id: h.slot,
                })
            })
            .collect())
    }

    /// The scoring mode: `'compat'` or `'enhanced'`.
    #[napi(getter, catch_unwind)]
    pub fn scoring(&self) -> &'static str {
        match self.inner {
            Engine::Compat(_) => "compat",
            Engine::Enhanced(_) => "enhanced",
        }
    }

    /// Per-term (and, enhanced, per-field) contributions to one tool's score for a query;
    /// `null` when no tool has that name.
    #[napi(catch_unwind)]
    pub fn explain(&self, query: String, name: String) -> Option<Explanation> {
        match &self.inner {
            Engine::Compat(i) => i.explain(&query, &name).map(|e| Explanation {
                name: e.name,
                scoring: "compat".into(),
                score: e.score,
                tier: u32::from(e.name_boosted),
                relevance: e.cosine,
                coverage: None,
                note: (e.score < self.min_score)
                    .then(|| format!("score below the display threshold {}", self.min_score)),
                terms: e
                    .terms
                    .into_iter()
                    .map(|t| TermContribution {
                        term: t.term,
                        origin: "query".into(),
                        weight: t.query_weight,
                        tool_weight: t.tool_weight,
                        fields: Vec::new(),
                        contribution: t.contribution,
                    })
                    .collect(),
            }),
            Engine::Enhanced(i) => i.explain(&query, &name).map(|e| Explanation {
                name: e.name,
                scoring: "enhanced".into(),
                score: e.score,
                tier: e.tier as u32,
                relevance: e.relevance,
                coverage: Some(e.coverage),
                note: e.filtered,
                terms: e
                    .terms
                    .into_iter()
                    .map(|t| TermContribution {
                        fields: t
                            .fields
                            .iter()
                            .map(|(f, tf, _)| format!("{f}:{tf}"))
                            .collect(),
                        tool_weight: t.fields.iter().map(|(_, _, v)| v).sum(),
                        term: t.term,
                        origin: t.origin,
                        weight: t.idf,
                        contribution: t.score,
                    })
                    .collect(),
            }),
        }
    }

    /// `search` as a flat `Float64Array` `[id0, score0, id1, score1, ...]` (no strings cross
    /// the boundary; the TypeScript layer maps ids to its own entries).
    #[napi(catch_unwind)]
    pub fn search_ids(
        &self,
        env: Env,
        query: String,
        limit: f64,
        min_score: f64,
    ) -> Result<Float64Array> {
        let limit = core::error::limit_from_f64(limit).map_err(|e| coded(&env, e))?;
        let min = core::error::finite(min_score, "minScore").map_err(|e| coded(&env, e))?;
        let hits = self.inner.search(&query, limit, min);
        let mut flat = Vec::with_capacity(hits.len() * 2);
        for h in hits {
            flat.push(h.slot as f64);
            flat.push(h.score);
        }
        Ok(Float64Array::new(flat))
    }

    /// The keyword search of ToolSearch (exact name, `mcp__` prefix, `+required` terms,
    /// +12/+10, +6/+5, +4, +2 points). `score` is the keyword score; `Infinity` for the
    /// exact-name and prefix paths, which are not scored.
    #[napi(catch_unwind)]
    pub fn keyword_search(
        &self,
        env: Env,
        query: String,
        max_results: Option<f64>,
    ) -> Result<Vec<SearchHit>> {
        let max =
            core::error::limit_from_f64(max_results.unwrap_or(5.0)).map_err(|e| coded(&env, e))?;
        let Engine::Compat(inner) = &self.inner else {
            return self.search(env, query, Some(max as f64), None);
        };
        Ok(core::keyword::keyword_search(inner, &query, max)
            .into_iter()
            .filter_map(|h| {
                inner.doc(h.slot).map(|d| SearchHit {
                    name: d.name.clone(),
                    score: h.score,
                    id: h.slot,
                })
            })
            .collect())
    }

    /// The whole ToolSearch ranking in one call: keyword search and TF-IDF search, merged
    /// (keyword hit at rank r of n: (n - r)/n x keywordWeight; TF-IDF score x tfidfWeight).
    #[napi(catch_unwind)]
    pub fn tool_search_rank(
        &self,
        env: Env,
        query: String,
        max_results: Option<f64>,
        options: Option<RankOptions>,
    ) -> Result<Vec<RankedResult>> {
        let err = |e| coded(&env, e);
        let max = core::error::limit_from_f64(max_results.unwrap_or(5.0)).map_err(err)?;
        let o = options.unwrap_or(RankOptions {
            keyword_weight: None,
            tfidf_weight: None,
            min_score: None,
            exact_outside: None,
        });
        let defaults = core::keyword::MergeWeights::default();
        let weights = core::keyword::MergeWeights {
            keyword: core::error::finite(
                o.keyword_weight.unwrap_or(defaults.keyword),
                "keywordWeight",
            )
            .map_err(err)?,
            tfidf: core::error::finite(o.tfidf_weight.unwrap_or(defaults.tfidf), "tfidfWeight")
                .map_err(err)?,
        };
        let min = match o.min_score {
            Some(m) => core::error::finite(m, "minScore").map_err(err)?,
            None => self.min_score,
        };
        let outside = o.exact_outside.as_deref();
        let inner = match &self.inner {
            Engine::Compat(inner) => inner,
            Engine::Enhanced(e) => return Ok(enhanced_rank(e, &query, max, min, outside)),
        };
        let hits = core::keyword::tool_search_rank(inner, &query, max, weights, min, outside);
        Ok(hits
            .into_iter()
            .filter_map(|h| {
                h.name(inner, outside).map(|name| RankedResult {
                    name: name.to_owned(),
                    score: h.score,
                    id: h.slot,
                    keyword_rank: h.keyword_rank,
                    tfidf_score: h.tfidf_score,
                })
            })
            .collect())
    }

    /// Add tools or replace same-named ones in place; results then equal a fresh build.
    /// Returns each given tool's id, in input order.
    #[napi(catch_unwind)]
    pub fn upsert(&mut self, env: Env, tools: Vec<ToolEntry>) -> Result<Vec<u32>> {
        let docs = doc_vec(tools);
        match &mut self.inner {
            Engine::Compat(i) => i.upsert(docs),
            Engine::Enhanced(i) => i.upsert(docs),
        }
        .map_err(|e| coded(&env, e))
    }

    /// Increases when removals renumber ids (ids from before are then invalid).
    #[napi(getter, catch_unwind)]
    pub fn generation(&self) -> u32 {
        self.inner.generation() as u32
    }

    /// Remove tools by name; returns how many were present.
    #[napi(catch_unwind)]
    pub fn remove(&mut self, names: Vec<String>) -> u32 {
        (match &mut self.inner {
            Engine::Compat(i) => i.remove(&names),
            Engine::Enhanced(i) => i.remove(&names),
        }) as u32
    }

    /// Ids of all tools in index order.
    #[napi(catch_unwind)]
    pub fn ids(&self) -> Vec<u32> {
        self.inner.slots()
    }

    /// Names of all tools in index order.
    #[napi(catch_unwind)]
    pub fn names(&self) -> Vec<String> {
        self.inner
            .slots()
            .into_iter()
            .filter_map(|s| self.inner.name(s).map(str::to_owned))
            .collect()
    }

    /// The id of a tool by name, or `null`.
    #[napi(catch_unwind)]
    pub fn id_of(&self, name: String) -> Option<u32> {
        self.inner.slot_of(&name)
    }

    /// `tokens` and `tfVector` of the tool with this id (`null` for an unknown id). In
    /// enhanced mode the tokens are the enhanced analyzer's and the weights are all 0
    /// (BM25F has no per-tool vector).
    #[napi(catch_unwind)]
    pub fn entry_terms(&self, id: u32) -> Option<EntryTerms> {
        match &self.inner {
            Engine::Compat(i) => {
                i.doc(id)?;
                let v = i.tf_vector(id);
                Some(EntryTerms {
                    tokens: v.iter().map(|(t, _)| (*t).to_owned()).collect(),
                    weights: v.iter().map(|(_, w)| *w).collect(),
                })
            }
            Engine::Enhanced(i) => {
                i.name(id)?;
                let tokens: Vec<String> = i.tokens(id).into_iter().map(str::to_owned).collect();
                Some(EntryTerms {
                    weights: vec![0.0; tokens.len()],
                    tokens,
                })
            }
        }
    }

    /// The normalized name (`parseToolName(name).full`) of the tool with this id.
    #[napi(catch_unwind)]
    pub fn normalized_name(&self, id: u32) -> Option<String> {
        self.inner.name(id).map(|n| core::parse_tool_name(n).full)
    }
}

/// Enhanced ToolSearch ranking: the enhanced search, with a non-indexed exact-name tool
/// (e.g. a core tool) first when the query is its name and no indexed tool's name is.
fn enhanced_rank(
    index: &core::enhanced::EnhancedIndex,
    query: &str,
    max: usize,
    min: f64,
    outside: Option<&str>,
) -> Vec<RankedResult> {
    let mut out: Vec<RankedResult> = index
        .search(query, max, min)
        .into_iter()
        .filter_map(|h| {
            index.name(h.slot).map(|name| RankedResult {
                name: name.to_owned(),
                score: h.score,
                id: Some(h.slot),
                keyword_rank: None,
                tfidf_score: None,
            })
        })
        .collect();
    if let Some(name) = outside {
        let q = query.trim().to_lowercase();
        let indexed_exact = out.first().is_some_and(|r| r.name.to_lowercase() == q);
        if !indexed_exact && name.to_lowercase() == q && max > 0 {
            out.insert(
                0,
                RankedResult {
                    name: name.to_owned(),
                    score: f64::from(core::enhanced::TIER_FULL) + 1.0,
                    id: None,
                    keyword_rank: None,
                    tfidf_score: None,
                },
            );
            out.truncate(max);
        }
    }
    out
}
