//! The `ToolIndex` class: a native index over the core engine, with its memory reported to
//! the JavaScript engine and freed on `dispose()`.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use std::time::Instant;
use tool_index_core as core;
use tool_index_core::engine::{self, Engine};
use tool_index_core::ErrorCode;

use crate::error::coded;
use crate::list::{Entries, List};
use crate::memory;
use crate::options::{IndexOptions, RankOptions, Scoring};
use crate::results::{EntryTerms, Explanation, KeywordRanking, RankedResult, SearchHit};

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

    /// Report the change in the index's native size to the engine's GC accounting; returns
    /// the change reported (0 if the engine refused it).
    fn account(&mut self, env: &Env) -> i64 {
        let now = self.inner.as_ref().map_or(0, |e| e.heap_bytes()) as i64;
        let delta = now - self.reported;
        if memory::report(env, delta) {
            self.reported = now;
            return delta;
        }
        0
    }

    /// [`Self::account`] after a build or update that began at `started`, then let the
    /// collection pace see the build.
    fn account_build(&mut self, env: &Env, started: Instant) {
        let built = self.account(env);
        memory::after_build(env, started.elapsed(), built);
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
        // The entries are read here, after the options (whose getters therefore run first),
        // in chunks that the index analyses while the next are read.
        let expected = tools.len();
        let engine = Engine::build_streamed(tools.chunks(), expected, options).map_err(coded)?;
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
    /// `null` when no tool has that name. `minScore`: the display threshold `search` is given
    /// (default: the index's); below it `score` is 0 and `note` says so.
    #[napi(catch_unwind)]
    pub fn explain(
        &self,
        query: String,
        name: String,
        min_score: Option<f64>,
    ) -> Result<Option<Explanation>, ErrorCode> {
        let engine = self.engine()?;
        let min = match min_score {
            Some(m) if m.is_nan() => {
                return Err(Error::new(
                    ErrorCode::InvalidNumber,
                    "minScore must be a number, got NaN",
                ))
            }
            Some(m) => m,
            None => engine.min_score(),
        };
        Ok(engine.explain_at(&query, &name, min).map(Into::into))
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

    /// The keyword search with the path that answered it (`exact`, `prefix`, `required`,
    /// `terms`). With `termsOnly`, the scoring path alone: no exact-name and no `mcp__`-prefix
    /// path, for tools a host keeps outside its main index (claude-code-best also scores its
    /// already-loaded tools by the keyword rules, on the `terms` path only).
    #[napi(catch_unwind)]
    pub fn keyword_rank(
        &self,
        query: String,
        max_results: Option<f64>,
        terms_only: Option<bool>,
    ) -> Result<KeywordRanking, ErrorCode> {
        let (path, hits) = self
            .engine()?
            .keyword_rank(
                &query,
                max_results.unwrap_or(5.0),
                terms_only.unwrap_or(false),
            )
            .map_err(coded)?;
        Ok(KeywordRanking {
            path: path.into(),
            hits: hits.into_iter().map(Into::into).collect(),
        })
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
        let options = options
            .map(TryInto::try_into)
            .transpose()?
            .unwrap_or_default();
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
        let docs = tools.take()?;
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
