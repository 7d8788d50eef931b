//! Options from JavaScript: the scoring mode, index options, enhanced tuning and ToolSearch
//! rank options, each converted to its core type with `From` / `TryFrom`.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use tool_index_core as core;
use tool_index_core::engine;
use tool_index_core::keyword;
use tool_index_core::ErrorCode;

use crate::error::coded;
use crate::list::{opt_list, List};

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
    /// Display threshold for `search` (default 0.10). The native class reads no environment
    /// variable: the package's `ToolIndex` applies `TOOL_SEARCH_DISPLAY_MIN_SCORE` itself.
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
    /// Query weight of synonyms of query words (default 0.3; 0 turns them off).
    pub synonym_weight: Option<f64>,
    /// Name-field weight of generic words such as "find", "get", "id" (default 1).
    pub generic_name_weight: Option<f64>,
    /// Query weight of words inside quotation marks (default 0.3).
    pub quote_weight: Option<f64>,
    /// Query weight of the single characters of a request's CJK runs of two or more, matched
    /// beside the run's bigrams (default 0.7; 0 or below leaves them out). They add evidence but
    /// cover none of the request (see `coverage` of `explain`); a lone character is a word.
    pub unigram_weight: Option<f64>,
    /// The crowd rule (default 0: off; `CROWD_ABSTAIN` holds the values chosen on the dev split):
    /// a request gets nothing when at least 30 tools match, the best scores below
    /// `crowdConfidence`, stands less than `crowdGap` above `crowdWeight` x the 30th's score,
    /// and matches less than `crowdCoverage` of the request.
    pub crowd_gap: Option<f64>,
    /// The crowd rule's weight of the 30th tool's score (default 1).
    pub crowd_weight: Option<f64>,
    /// The crowd rule applies only when the best score is below this (default 0.4).
    pub crowd_confidence: Option<f64>,
    /// The crowd rule applies only when the best tool matches less than this share of the
    /// request's IDF mass (its `coverage` in `explain`; default 0.45; above 1: whatever it matches).
    pub crowd_coverage: Option<f64>,
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
            unigram_weight: t.unigram_weight,
            crowd_gap: t.crowd_gap,
            crowd_weight: t.crowd_weight,
            crowd_confidence: t.crowd_confidence,
            crowd_coverage: t.crowd_coverage,
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

/// Options of `toolSearchRank`.
#[napi(object, object_to_js = false)]
pub struct RankOptions {
    /// Weight of the keyword half (default 0.4; `toolSearch` passes `TOOL_SEARCH_WEIGHT_KEYWORD`,
    /// the native class reads no environment variable).
    pub keyword_weight: Option<f64>,
    /// Weight of the TF-IDF half (default 0.6; `toolSearch` passes `TOOL_SEARCH_WEIGHT_TFIDF`,
    /// the native class reads no environment variable).
    pub tfidf_weight: Option<f64>,
    /// Display threshold of the TF-IDF half (default: the index's).
    pub min_score: Option<f64>,
    /// A non-indexed tool (e.g. a core tool) whose lowercased name equals the trimmed,
    /// lowercased query; used when no indexed tool matches the query exactly.
    pub exact_outside: Option<String>,
    /// The keyword half made by the caller: tool names, best first (the first `maxResults`,
    /// each once). A name no indexed tool has is merged as given, with no id; `null` is a tool
    /// the caller knows is not indexed (returned with an empty name, to be named by its
    /// `keywordRank`). Compat only (enhanced ignores it); `exactOutside` is then not used.
    #[napi(ts_type = "Array<string | null>")]
    pub keyword_list: Option<List<Option<String>>>,
}

impl TryFrom<RankOptions> for engine::RankOptions {
    type Error = Error<ErrorCode>;
    fn try_from(o: RankOptions) -> Result<Self, ErrorCode> {
        Ok(Self {
            keyword_weight: o.keyword_weight,
            tfidf_weight: o.tfidf_weight,
            min_score: o.min_score,
            exact_outside: o.exact_outside,
            keyword_list: opt_list(o.keyword_list)?,
        })
    }
}

/// Which path of the keyword search answered (`keywordRank`).
#[napi(string_enum = "lowercase")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeywordPath {
    /// An indexed tool's lowercased name equals the query.
    Exact,
    /// An `mcp__…` query that starts some indexed MCP tool's name.
    Prefix,
    /// Scored, with `+required` terms.
    Required,
    /// Scored, every term optional.
    Terms,
}

impl From<keyword::KeywordPath> for KeywordPath {
    fn from(p: keyword::KeywordPath) -> Self {
        match p {
            keyword::KeywordPath::Exact => KeywordPath::Exact,
            keyword::KeywordPath::Prefix => KeywordPath::Prefix,
            keyword::KeywordPath::Required => KeywordPath::Required,
            keyword::KeywordPath::Terms => KeywordPath::Terms,
        }
    }
}
