//! Results to JavaScript: search hits, ToolSearch rankings, a tool's terms and explanations,
//! each converted from its core type with `From`.

use napi_derive::napi;
use tool_index_core::engine;

use crate::options::Scoring;

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

/// The keyword search's hits and the path that answered (`keywordRank`).
#[napi(object)]
pub struct KeywordRanking {
    /// `exact` and `prefix` are unscored (their hits score `Infinity`).
    pub path: crate::options::KeywordPath,
    pub hits: Vec<SearchHit>,
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
