//! N-API binding of `tool-index-core`. Conversions only: every function here turns
//! JavaScript values into core types, calls the core, and turns the answer back.
//! Every export is `catch_unwind`, so a Rust panic becomes a JavaScript error, never an abort.

#![deny(clippy::all)]

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tool_index_core as core;

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
    /// `'compat'` (the reference's TF-IDF, the default).
    pub scoring: Option<String>,
    /// Display threshold for `search` (default 0.10, `TOOL_SEARCH_DISPLAY_MIN_SCORE`).
    pub min_score: Option<f64>,
    /// Tokenize on worker threads from this many tools up (default 512).
    pub parallel_threshold: Option<u32>,
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

/// A native tool index. Not shareable across threads or workers: build one per worker.
#[napi]
pub struct ToolIndex {
    inner: core::ToolIndex,
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
        if let Some(o) = options {
            if let Some(s) = o.scoring.as_deref() {
                if s != "compat" {
                    return Err(coded(&env, core::IndexError::new(
                        core::ErrorCode::InvalidScoring,
                        format!("unknown scoring mode {s:?}; expected 'compat'"),
                    )));
                }
            }
            if let Some(m) = o.min_score {
                min_score = core::error::finite(m, "minScore").map_err(|e| coded(&env, e))?;
            }
            if let Some(p) = o.parallel_threshold {
                opts.parallel_threshold = p as usize;
            }
        }
        let inner = core::ToolIndex::build(doc_vec(tools), opts).map_err(|e| coded(&env, e))?;
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
    pub fn search(&self, env: Env, query: String, limit: Option<f64>, min_score: Option<f64>) -> Result<Vec<SearchHit>> {
        let limit = core::error::limit_from_f64(limit.unwrap_or(5.0)).map_err(|e| coded(&env, e))?;
        let min = match min_score {
            Some(m) => core::error::finite(m, "minScore").map_err(|e| coded(&env, e))?,
            None => self.min_score,
        };
        Ok(self
            .inner
            .search(&query, limit, min)
            .into_iter()
            .filter_map(|h| {
                self.inner.doc(h.slot).map(|d| SearchHit {
                    name: d.name.clone(),
                    score: h.score,
                    id: h.slot,
                })
            })
            .collect())
    }

    /// `search` as a flat `Float64Array` `[id0, score0, id1, score1, ...]` (no strings cross
    /// the boundary; the TypeScript layer maps ids to its own entries).
    #[napi(catch_unwind)]
    pub fn search_ids(&self, env: Env, query: String, limit: f64, min_score: f64) -> Result<Float64Array> {
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
    pub fn keyword_search(&self, env: Env, query: String, max_results: Option<f64>) -> Result<Vec<SearchHit>> {
        let max = core::error::limit_from_f64(max_results.unwrap_or(5.0)).map_err(|e| coded(&env, e))?;
        Ok(core::keyword::keyword_search(&self.inner, &query, max)
            .into_iter()
            .filter_map(|h| {
                self.inner.doc(h.slot).map(|d| SearchHit {
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
            keyword: core::error::finite(o.keyword_weight.unwrap_or(defaults.keyword), "keywordWeight").map_err(err)?,
            tfidf: core::error::finite(o.tfidf_weight.unwrap_or(defaults.tfidf), "tfidfWeight").map_err(err)?,
        };
        let min = match o.min_score {
            Some(m) => core::error::finite(m, "minScore").map_err(err)?,
            None => self.min_score,
        };
        let outside = o.exact_outside.as_deref();
        let hits = core::keyword::tool_search_rank(&self.inner, &query, max, weights, min, outside);
        Ok(hits
            .into_iter()
            .filter_map(|h| {
                h.name(&self.inner, outside).map(|name| RankedResult {
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
        self.inner.upsert(doc_vec(tools)).map_err(|e| coded(&env, e))
    }

    /// Increases when removals renumber ids (ids from before are then invalid).
    #[napi(getter, catch_unwind)]
    pub fn generation(&self) -> u32 {
        self.inner.generation() as u32
    }

    /// Remove tools by name; returns how many were present.
    #[napi(catch_unwind)]
    pub fn remove(&mut self, names: Vec<String>) -> u32 {
        self.inner.remove(&names) as u32
    }

    /// Ids of all tools in index order.
    #[napi(catch_unwind)]
    pub fn ids(&self) -> Vec<u32> {
        self.inner.slots().collect()
    }

    /// Names of all tools in index order.
    #[napi(catch_unwind)]
    pub fn names(&self) -> Vec<String> {
        self.inner
            .slots()
            .filter_map(|s| self.inner.doc(s).map(|d| d.name.clone()))
            .collect()
    }

    /// The id of a tool by name, or `null`.
    #[napi(catch_unwind)]
    pub fn id_of(&self, name: String) -> Option<u32> {
        self.inner.slot_of(&name)
    }

    /// `tokens` and `tfVector` of the tool with this id (`null` for an unknown id).
    #[napi(catch_unwind)]
    pub fn entry_terms(&self, id: u32) -> Option<EntryTerms> {
        self.inner.doc(id)?;
        let v = self.inner.tf_vector(id);
        Some(EntryTerms {
            tokens: v.iter().map(|(t, _)| (*t).to_owned()).collect(),
            weights: v.iter().map(|(_, w)| *w).collect(),
        })
    }

    /// The normalized name (`parseToolName(name).full`) of the tool with this id.
    #[napi(catch_unwind)]
    pub fn normalized_name(&self, id: u32) -> Option<String> {
        self.inner.doc(id).map(|d| d.parsed.full.clone())
    }
}
