//! One tool index over either scorer: the compat TF-IDF [`ToolIndex`] or the enhanced
//! BM25F [`EnhancedIndex`]. Engine dispatch, option validation, the enhanced ToolSearch
//! ranking and the explain record live here, so the N-API binding only converts values and
//! `cargo test` covers everything that decides a result.

use std::fmt;
use std::str::FromStr;

use crate::enhanced::{self, EnhancedIndex, Params};
use crate::error::{finite, limit_from_f64, ErrorCode, IndexError};
use crate::hybrid::{self, MergeWeights};
use crate::index::{Hit, IndexOptions, ToolChunk, ToolDoc, ToolIndex, DEFAULT_MIN_SCORE};
use crate::keyword;
use crate::pipeline::read_all;

/// The most elements the binding reads from one JavaScript array (tools, names, flags):
/// 16,777,216. A longer `length` (including a sparse array whose `length` was set by hand)
/// is rejected with [`ErrorCode::TooLarge`] before any element is read or any memory is
/// sized from it.
pub const MAX_LIST_LEN: usize = 1 << 24;

/// Check a JavaScript array length against [`MAX_LIST_LEN`].
pub fn check_list_len(len: u64, what: &str) -> Result<usize, IndexError> {
    if len > MAX_LIST_LEN as u64 {
        return Err(IndexError::new(
            ErrorCode::TooLarge,
            format!("{what} has {len} elements; the limit is {MAX_LIST_LEN}"),
        ));
    }
    Ok(len as usize)
}

/// The scoring mode of an index.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Scoring {
    /// The reference's TF-IDF cosine with the name boost (the default).
    #[default]
    Compat,
    /// BM25F over five fields with name matching.
    Enhanced,
}

impl Scoring {
    /// `"compat"` or `"enhanced"`: the JavaScript spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Scoring::Compat => "compat",
            Scoring::Enhanced => "enhanced",
        }
    }
}

impl fmt::Display for Scoring {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Scoring {
    type Err = IndexError;
    /// Parse `'compat'` or `'enhanced'`; anything else is [`ErrorCode::InvalidScoring`].
    fn from_str(s: &str) -> Result<Self, IndexError> {
        match s {
            "compat" => Ok(Scoring::Compat),
            "enhanced" => Ok(Scoring::Enhanced),
            other => Err(enhanced::unknown_scoring(other)),
        }
    }
}

/// Enhanced-ranking parameters as a caller gives them: each `None` keeps its default.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Tuning {
    pub k1: Option<f64>,
    /// Five field weights (name, server, searchHint, description, schema); `Some(None)`-like
    /// shapes are expressed as a list of any length and checked here.
    pub weights: Option<Vec<f64>>,
    pub b: Option<Vec<f64>>,
    pub typo_weight: Option<f64>,
    pub lexicon_weight: Option<f64>,
    pub abstain_coverage: Option<f64>,
    pub unknown_weight: Option<f64>,
    pub abstain_confidence: Option<f64>,
    pub confidence_scale: Option<f64>,
    pub clause_weight: Option<f64>,
    pub synonym_weight: Option<f64>,
    pub generic_name_weight: Option<f64>,
    pub quote_weight: Option<f64>,
    pub unigram_weight: Option<f64>,
    pub crowd_gap: Option<f64>,
    pub crowd_weight: Option<f64>,
    pub crowd_confidence: Option<f64>,
    pub crowd_coverage: Option<f64>,
}

impl Tuning {
    /// The parameters this tuning gives, checked: numbers finite, field arrays exactly five
    /// finite numbers `>= 0` ([`ErrorCode::InvalidNumber`] otherwise).
    pub fn params(&self) -> Result<Params, IndexError> {
        let mut p = Params::default();
        let five = |v: &[f64], what: &str| -> Result<[f64; 5], IndexError> {
            if v.len() != 5 || v.iter().any(|x| !x.is_finite() || *x < 0.0) {
                return Err(IndexError::new(
                    ErrorCode::InvalidNumber,
                    format!("{what} must be 5 finite numbers >= 0"),
                ));
            }
            Ok([v[0], v[1], v[2], v[3], v[4]])
        };
        if let Some(v) = self.k1 {
            p.k1 = finite(v, "tuning.k1")?;
        }
        if let Some(v) = &self.weights {
            p.weights = five(v, "tuning.weights")?;
        }
        if let Some(v) = &self.b {
            p.b = five(v, "tuning.b")?;
        }
        if let Some(v) = self.typo_weight {
            p.typo_weight = finite(v, "tuning.typoWeight")?;
        }
        if let Some(v) = self.lexicon_weight {
            p.lexicon_weight = finite(v, "tuning.lexiconWeight")?;
        }
        if let Some(v) = self.unknown_weight {
            p.unknown_weight = finite(v, "tuning.unknownWeight")?;
        }
        if let Some(v) = self.abstain_coverage {
            p.abstain_coverage = finite(v, "tuning.abstainCoverage")?;
        }
        if let Some(v) = self.abstain_confidence {
            p.abstain_confidence = finite(v, "tuning.abstainConfidence")?;
        }
        if let Some(v) = self.confidence_scale {
            p.confidence_scale = finite(v, "tuning.confidenceScale")?;
        }
        if let Some(v) = self.clause_weight {
            p.clause_weight = finite(v, "tuning.clauseWeight")?;
        }
        if let Some(v) = self.synonym_weight {
            p.synonym_weight = finite(v, "tuning.synonymWeight")?;
        }
        if let Some(v) = self.generic_name_weight {
            p.generic_name_weight = finite(v, "tuning.genericNameWeight")?;
        }
        if let Some(v) = self.quote_weight {
            p.quote_weight = finite(v, "tuning.quoteWeight")?;
        }
        if let Some(v) = self.unigram_weight {
            p.unigram_weight = finite(v, "tuning.unigramWeight")?;
        }
        if let Some(v) = self.crowd_gap {
            p.crowd_gap = finite(v, "tuning.crowdGap")?;
        }
        if let Some(v) = self.crowd_weight {
            p.crowd_weight = finite(v, "tuning.crowdWeight")?;
        }
        if let Some(v) = self.crowd_confidence {
            p.crowd_confidence = finite(v, "tuning.crowdConfidence")?;
        }
        if let Some(v) = self.crowd_coverage {
            p.crowd_coverage = finite(v, "tuning.crowdCoverage")?;
        }
        Ok(p)
    }
}

/// Options of [`Engine::build`], as a caller gives them (all optional).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EngineOptions {
    /// Compat (the default) or enhanced. A caller holding a string parses it with
    /// [`Scoring::from_str`], whose error is [`ErrorCode::InvalidScoring`].
    pub scoring: Option<Scoring>,
    /// Display threshold of `search` (default [`DEFAULT_MIN_SCORE`]).
    pub min_score: Option<f64>,
    /// Tokenize on worker threads from this many tools up.
    pub parallel_threshold: Option<u32>,
    pub tuning: Option<Tuning>,
}

/// Options of [`Engine::tool_search_rank`], as a caller gives them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RankOptions {
    pub keyword_weight: Option<f64>,
    pub tfidf_weight: Option<f64>,
    pub min_score: Option<f64>,
    pub exact_outside: Option<String>,
    /// The keyword half, made by the caller (compat only; see
    /// [`hybrid::tool_search_rank_listed`]; `None`: a tool the caller knows is not indexed,
    /// answered with an empty name, which the caller fills in by its keyword rank).
    /// `exact_outside` is then not used.
    pub keyword_list: Option<Vec<Option<String>>>,
}

/// One merged ToolSearch result with its name resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    pub name: String,
    pub score: f64,
    /// `None` for the `exact_outside` tool.
    pub id: Option<u32>,
    pub keyword_rank: Option<u32>,
    pub tfidf_score: Option<f64>,
}

/// One search result with its name resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct NamedHit {
    pub name: String,
    pub score: f64,
    pub id: u32,
}

/// One term's share of a score (both scorers).
#[derive(Debug, Clone, PartialEq)]
pub struct TermContribution {
    pub term: String,
    /// `query`, `lexicon` or `typo:<word>`.
    pub origin: String,
    /// Compat: query-side TF × IDF. Enhanced: the term's IDF.
    pub weight: f64,
    /// Compat: tool-side TF × IDF. Enhanced: the weighted, normalized TF.
    pub tool_weight: f64,
    /// Enhanced: `field:tf` pairs.
    pub fields: Vec<String>,
    pub contribution: f64,
}

/// Why a tool scored what it did (both scorers).
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    pub name: String,
    pub scoring: Scoring,
    pub score: f64,
    pub tier: u32,
    pub relevance: f64,
    pub coverage: Option<f64>,
    pub terms: Vec<TermContribution>,
    pub note: Option<String>,
}

/// `tokens` and per-token weights of one tool.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryTerms {
    pub tokens: Vec<String>,
    pub weights: Vec<f64>,
}

enum Kind {
    Compat(Box<ToolIndex>),
    Enhanced(Box<EnhancedIndex>),
}

/// A tool index over either scorer, with its display threshold.
pub struct Engine {
    kind: Kind,
    min_score: f64,
}

impl fmt::Debug for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Engine")
            .field("scoring", &self.scoring())
            .field("len", &self.len())
            .finish()
    }
}

fn opt_finite(v: Option<f64>, default: f64, what: &str) -> Result<f64, IndexError> {
    v.map_or(Ok(default), |m| finite(m, what))
}

/// Validated options: the scoring, the enhanced parameters, the display threshold and the
/// build options.
fn checked(options: &EngineOptions) -> Result<(Scoring, Params, f64, IndexOptions), IndexError> {
    let params = match &options.tuning {
        Some(t) => t.params()?,
        None => Params::default(),
    };
    let scoring = options.scoring.unwrap_or_default();
    let min_score = opt_finite(options.min_score, DEFAULT_MIN_SCORE, "minScore")?;
    let mut opts = IndexOptions::default();
    if let Some(p) = options.parallel_threshold {
        opts.parallel_threshold = p as usize;
    }
    Ok((scoring, params, min_score, opts))
}

impl Engine {
    /// Build from tools in order with validated options. Errors: duplicate names
    /// ([`ErrorCode::DuplicateName`]), an unknown scoring ([`ErrorCode::InvalidScoring`]),
    /// a non-finite threshold or bad tuning ([`ErrorCode::InvalidNumber`]).
    pub fn build(docs: Vec<ToolDoc>, options: EngineOptions) -> Result<Self, IndexError> {
        let (scoring, params, min_score, opts) = checked(&options)?;
        let kind = match scoring {
            Scoring::Compat => Kind::Compat(Box::new(ToolIndex::build(docs, opts)?)),
            Scoring::Enhanced => Kind::Enhanced(Box::new(EnhancedIndex::build(
                docs,
                params,
                opts.parallel_threshold,
            )?)),
        };
        Ok(Self { kind, min_score })
    }

    /// [`Engine::build`] of tools that arrive in chunks as the caller reads them: each chunk
    /// is analysed and linked while the next is read ([`ToolIndex::build_streamed`],
    /// [`EnhancedIndex::build_streamed`]; `expected` is the number of tools the caller
    /// expects). Errors come in the order of a build of all the tools
    /// after they were read: a chunk that is an error (nothing more is read), then the
    /// options', then repeated names.
    pub fn build_streamed(
        chunks: impl IntoIterator<Item = ToolChunk>,
        expected: usize,
        options: EngineOptions,
    ) -> Result<Self, IndexError> {
        let Ok((scoring, params, min_score, opts)) = checked(&options) else {
            return Self::build(read_all(chunks, expected)?, options);
        };
        let kind = match scoring {
            Scoring::Compat => {
                Kind::Compat(Box::new(ToolIndex::build_streamed(chunks, expected, opts)?))
            }
            Scoring::Enhanced => Kind::Enhanced(Box::new(EnhancedIndex::build_streamed(
                chunks,
                expected,
                params,
                opts.parallel_threshold,
            )?)),
        };
        Ok(Self { kind, min_score })
    }

    pub fn scoring(&self) -> Scoring {
        match self.kind {
            Kind::Compat(_) => Scoring::Compat,
            Kind::Enhanced(_) => Scoring::Enhanced,
        }
    }

    /// The index's display threshold.
    pub fn min_score(&self) -> f64 {
        self.min_score
    }

    pub fn len(&self) -> usize {
        match &self.kind {
            Kind::Compat(i) => i.store().len(),
            Kind::Enhanced(i) => i.store().len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The compat index, when this is one.
    pub fn compat(&self) -> Option<&ToolIndex> {
        match &self.kind {
            Kind::Compat(i) => Some(i),
            Kind::Enhanced(_) => None,
        }
    }

    /// The enhanced index, when this is one.
    pub fn enhanced(&self) -> Option<&EnhancedIndex> {
        match &self.kind {
            Kind::Compat(_) => None,
            Kind::Enhanced(i) => Some(i),
        }
    }

    /// The name of the tool in a slot.
    pub fn name(&self, slot: u32) -> Option<&str> {
        match &self.kind {
            Kind::Compat(i) => i.doc(slot).map(|d| d.name.as_str()),
            Kind::Enhanced(i) => i.name(slot),
        }
    }

    /// Live slots in index order.
    pub fn slots(&self) -> Vec<u32> {
        match &self.kind {
            Kind::Compat(i) => i.store().slots().collect(),
            Kind::Enhanced(i) => i.store().slots().collect(),
        }
    }

    /// Names in index order.
    pub fn names(&self) -> Vec<String> {
        self.slots()
            .into_iter()
            .filter_map(|s| self.name(s).map(str::to_owned))
            .collect()
    }

    pub fn slot_of(&self, name: &str) -> Option<u32> {
        match &self.kind {
            Kind::Compat(i) => i.store().slot_of(name),
            Kind::Enhanced(i) => i.store().slot_of(name),
        }
    }

    /// One past the last slot in use (live or emptied): stays within 2× [`Engine::len`]
    /// under churn, as removals compact.
    pub fn slot_count(&self) -> usize {
        match &self.kind {
            Kind::Compat(i) => i.store().slot_count(),
            Kind::Enhanced(i) => i.store().slot_count(),
        }
    }

    pub fn generation(&self) -> u64 {
        match &self.kind {
            Kind::Compat(i) => i.store().generation(),
            Kind::Enhanced(i) => i.store().generation(),
        }
    }

    /// An estimate of the heap bytes held (reported to the JavaScript engine).
    pub fn heap_bytes(&self) -> usize {
        std::mem::size_of::<Self>()
            + match &self.kind {
                Kind::Compat(i) => i.heap_bytes(),
                Kind::Enhanced(i) => i.heap_bytes(),
            }
    }

    /// Raw search: slots and scores, best first.
    pub fn search_slots(&self, query: &str, limit: usize, min: f64) -> Vec<Hit> {
        match &self.kind {
            Kind::Compat(i) => i.search(query, limit, min),
            Kind::Enhanced(i) => i.search(query, limit, min),
        }
    }

    /// Search with a JavaScript-number limit and optional threshold (default: the
    /// index's). Errors: [`ErrorCode::InvalidLimit`], [`ErrorCode::InvalidNumber`].
    pub fn search(
        &self,
        query: &str,
        limit: f64,
        min_score: Option<f64>,
    ) -> Result<Vec<NamedHit>, IndexError> {
        let limit = limit_from_f64(limit)?;
        let min = opt_finite(min_score, self.min_score, "minScore")?;
        Ok(self.named(self.search_slots(query, limit, min)))
    }

    /// `search` as `[id, score, id, score, ...]`.
    pub fn search_flat(
        &self,
        query: &str,
        limit: f64,
        min_score: f64,
    ) -> Result<Vec<f64>, IndexError> {
        let limit = limit_from_f64(limit)?;
        let min = finite(min_score, "minScore")?;
        let hits = self.search_slots(query, limit, min);
        let mut flat = Vec::with_capacity(hits.len() * 2);
        for h in hits {
            flat.push(f64::from(h.slot));
            flat.push(h.score);
        }
        Ok(flat)
    }

    fn named(&self, hits: Vec<Hit>) -> Vec<NamedHit> {
        hits.into_iter()
            .filter_map(|h| {
                self.name(h.slot).map(|name| NamedHit {
                    name: name.to_owned(),
                    score: h.score,
                    id: h.slot,
                })
            })
            .collect()
    }

    /// The keyword search of ToolSearch (compat); an enhanced index answers with its
    /// search at its own threshold.
    pub fn keyword_search(&self, query: &str, max: f64) -> Result<Vec<NamedHit>, IndexError> {
        let max = limit_from_f64(max)?;
        match &self.kind {
            Kind::Compat(i) => Ok(self.named(
                keyword::keyword_search(&**i, query, max)
                    .into_iter()
                    .map(|h| Hit {
                        slot: h.slot,
                        score: h.score,
                    })
                    .collect(),
            )),
            Kind::Enhanced(i) => Ok(self.named(i.search(query, max, self.min_score))),
        }
    }

    /// The keyword search with the path that answered it. `terms_only` runs the scoring path
    /// alone (no exact-name and no `mcp__`-prefix path), as a host does over tools it keeps
    /// outside the index. Enhanced indexes have no keyword scorer: their search answers, as
    /// [`Engine::keyword_search`] does, on the `Terms` path.
    pub fn keyword_rank(
        &self,
        query: &str,
        max: f64,
        terms_only: bool,
    ) -> Result<(keyword::KeywordPath, Vec<NamedHit>), IndexError> {
        let max = limit_from_f64(max)?;
        match &self.kind {
            Kind::Compat(i) => {
                let parsed = keyword::parse_query(query);
                let (path, hits) = if terms_only {
                    let path = if parsed.required > 0 {
                        keyword::KeywordPath::Required
                    } else {
                        keyword::KeywordPath::Terms
                    };
                    (path, keyword::keyword_terms(&**i, &parsed, max))
                } else {
                    let outcome = keyword::keyword_outcome(&**i, &parsed, max);
                    (outcome.path(&parsed), outcome.into_hits())
                };
                Ok((path, self.named(hits)))
            }
            Kind::Enhanced(i) => Ok((
                keyword::KeywordPath::Terms,
                self.named(i.search(query, max, self.min_score)),
            )),
        }
    }

    /// The whole ToolSearch ranking: compat merges keyword and TF-IDF results; enhanced
    /// uses its search, with a non-indexed exact-name tool first when the query is its name
    /// and no indexed tool's is.
    pub fn tool_search_rank(
        &self,
        query: &str,
        max: f64,
        options: &RankOptions,
    ) -> Result<Vec<Ranked>, IndexError> {
        let max = limit_from_f64(max)?;
        let defaults = MergeWeights::default();
        let weights = MergeWeights {
            keyword: opt_finite(options.keyword_weight, defaults.keyword, "keywordWeight")?,
            tfidf: opt_finite(options.tfidf_weight, defaults.tfidf, "tfidfWeight")?,
        };
        let min = opt_finite(options.min_score, self.min_score, "minScore")?;
        let outside = options.exact_outside.as_deref();
        match &self.kind {
            Kind::Compat(i) if options.keyword_list.is_some() => {
                let list = options.keyword_list.as_deref().unwrap_or_default();
                check_list_len(list.len() as u64, "keywordList")?;
                let names: Vec<Option<&str>> = list.iter().map(Option::as_deref).collect();
                let hits = hybrid::tool_search_rank_listed(i, query, &names, max, weights, min);
                Ok(hits
                    .into_iter()
                    .filter_map(|h| {
                        let name = match (h.slot, h.outside) {
                            (Some(s), _) => i.doc(s).map(|d| d.name.as_str()),
                            (None, Some(k)) => names.get(k as usize).map(|n| n.unwrap_or("")),
                            (None, None) => None,
                        };
                        name.map(|name| Ranked {
                            name: name.to_owned(),
                            score: h.score,
                            id: h.slot,
                            keyword_rank: h.keyword_rank,
                            tfidf_score: h.tfidf_score,
                        })
                    })
                    .collect())
            }
            Kind::Compat(i) => Ok(
                hybrid::tool_search_rank(i, query, max, weights, min, outside)
                    .into_iter()
                    .filter_map(|h| {
                        h.name(i, outside).map(|name| Ranked {
                            name: name.to_owned(),
                            score: h.score,
                            id: h.slot,
                            keyword_rank: h.keyword_rank,
                            tfidf_score: h.tfidf_score,
                        })
                    })
                    .collect(),
            ),
            Kind::Enhanced(i) => Ok(enhanced_rank(i, query, max, min, outside)),
        }
    }

    /// Add or replace tools; the id of each, in input order.
    pub fn upsert(&mut self, docs: Vec<ToolDoc>) -> Result<Vec<u32>, IndexError> {
        match &mut self.kind {
            Kind::Compat(i) => i.upsert(docs),
            Kind::Enhanced(i) => i.upsert(docs),
        }
    }

    /// Remove tools by name; how many were present.
    pub fn remove<S: AsRef<str>>(&mut self, names: &[S]) -> usize {
        match &mut self.kind {
            Kind::Compat(i) => i.remove(names),
            Kind::Enhanced(i) => i.remove(names),
        }
    }

    /// `tokens` and `tfVector` of a tool (enhanced: its analyzer's tokens, weights 0).
    pub fn entry_terms(&self, slot: u32) -> Option<EntryTerms> {
        match &self.kind {
            Kind::Compat(i) => {
                i.doc(slot)?;
                let v = i.tf_vector(slot);
                Some(EntryTerms {
                    tokens: v.iter().map(|(t, _)| (*t).to_owned()).collect(),
                    weights: v.iter().map(|(_, w)| *w).collect(),
                })
            }
            Kind::Enhanced(i) => {
                i.name(slot)?;
                let tokens: Vec<String> = i
                    .store()
                    .tokens(slot)
                    .into_iter()
                    .map(str::to_owned)
                    .collect();
                Some(EntryTerms {
                    weights: vec![0.0; tokens.len()],
                    tokens,
                })
            }
        }
    }

    /// Per-term contributions to one tool's score; `None` when no tool has that name.
    pub fn explain(&self, query: &str, name: &str) -> Option<Explanation> {
        self.explain_at(query, name, self.min_score)
    }

    /// [`Engine::explain`] against the display threshold `min_score` that `search` is given:
    /// a tool that scores below it is no result, so its `score` is 0 and `note` says why
    /// (`relevance` keeps what it reached).
    pub fn explain_at(&self, query: &str, name: &str, min_score: f64) -> Option<Explanation> {
        let mut e = self.explain_raw(query, name, min_score)?;
        if e.score < min_score && e.score > 0.0 {
            e.note.get_or_insert_with(|| {
                format!("score {} below the display threshold {min_score}", e.score)
            });
            e.score = 0.0;
        }
        Some(e)
    }

    fn explain_raw(&self, query: &str, name: &str, min_score: f64) -> Option<Explanation> {
        match &self.kind {
            Kind::Compat(i) => i.explain(query, name).map(|e| Explanation {
                name: e.name,
                scoring: Scoring::Compat,
                score: e.score,
                tier: u32::from(e.name_boosted),
                relevance: e.cosine,
                coverage: None,
                note: (e.score < min_score)
                    .then(|| format!("score {} below the display threshold {min_score}", e.score)),
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
            Kind::Enhanced(i) => i.explain(query, name).map(|e| Explanation {
                name: e.name,
                scoring: Scoring::Enhanced,
                score: e.score,
                tier: u32::from(e.tier),
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
}

/// Enhanced ToolSearch ranking: the enhanced search, with a non-indexed exact-name tool
/// (e.g. a core tool) first when the query is its name and no indexed tool's name is.
pub fn enhanced_rank(
    index: &EnhancedIndex,
    query: &str,
    max: usize,
    min: f64,
    outside: Option<&str>,
) -> Vec<Ranked> {
    let mut out: Vec<Ranked> = index
        .search(query, max, min)
        .into_iter()
        .filter_map(|h| {
            index.name(h.slot).map(|name| Ranked {
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
                Ranked {
                    name: name.to_owned(),
                    score: f64::from(enhanced::TIER_FULL) + 1.0,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn tools() -> Vec<ToolDoc> {
        vec![
            ToolDoc::new(
                "mcp__github__create_issue",
                "Create a new issue in a repository",
            ),
            ToolDoc::new("mcp__slack__send_message", "Send a message to a channel"),
            ToolDoc::new("NotebookEdit", "Edit a cell of a Jupyter notebook"),
        ]
    }

    fn opts(scoring: &str) -> EngineOptions {
        EngineOptions {
            scoring: Some(scoring.parse().unwrap()),
            ..EngineOptions::default()
        }
    }

    #[test]
    fn scoring_parses_and_rejects() {
        assert_eq!("compat".parse::<Scoring>(), Ok(Scoring::Compat));
        assert_eq!("enhanced".parse::<Scoring>(), Ok(Scoring::Enhanced));
        let e = "bm25".parse::<Scoring>().unwrap_err();
        assert_eq!(e.code, ErrorCode::InvalidScoring);
    }

    #[test]
    fn options_are_validated() {
        let bad_min = EngineOptions {
            min_score: Some(f64::NAN),
            ..EngineOptions::default()
        };
        assert_eq!(
            Engine::build(tools(), bad_min).unwrap_err().code,
            ErrorCode::InvalidNumber
        );
        let bad_weights = EngineOptions {
            scoring: Some(Scoring::Enhanced),
            tuning: Some(Tuning {
                weights: Some(vec![1.0; 4]),
                ..Tuning::default()
            }),
            ..EngineOptions::default()
        };
        assert_eq!(
            Engine::build(tools(), bad_weights).unwrap_err().code,
            ErrorCode::InvalidNumber
        );
        let e = Engine::build(tools(), EngineOptions::default()).unwrap();
        assert_eq!(
            e.search("issue", f64::NAN, None).unwrap_err().code,
            ErrorCode::InvalidLimit
        );
        assert_eq!(
            e.search("issue", 5.0, Some(f64::INFINITY))
                .unwrap_err()
                .code,
            ErrorCode::InvalidNumber
        );
        let rank = RankOptions {
            keyword_weight: Some(f64::NAN),
            ..RankOptions::default()
        };
        assert_eq!(
            e.tool_search_rank("issue", 5.0, &rank).unwrap_err().code,
            ErrorCode::InvalidNumber
        );
    }

    #[test]
    fn keyword_paths_and_a_caller_made_keyword_half() {
        use keyword::KeywordPath;
        let e = Engine::build(tools(), opts("compat")).unwrap();
        let path = |q: &str, terms_only: bool| e.keyword_rank(q, 5.0, terms_only).unwrap().0;
        assert_eq!(path("notebookedit", false), KeywordPath::Exact);
        assert_eq!(path("mcp__github", false), KeywordPath::Prefix);
        assert_eq!(path("+issue create", false), KeywordPath::Required);
        assert_eq!(path("create issue", false), KeywordPath::Terms);
        // The scoring path alone: a name or a prefix is scored as words.
        let (p, hits) = e.keyword_rank("mcp__github", 5.0, true).unwrap();
        assert_eq!((p, hits.len()), (KeywordPath::Terms, 0));
        let (p, hits) = e.keyword_rank("notebook", 5.0, true).unwrap();
        assert_eq!(
            (p, hits[0].name.as_str()),
            (KeywordPath::Terms, "NotebookEdit")
        );
        assert!(hits[0].score.is_finite());
        assert_eq!(path("+issue", true), KeywordPath::Required);

        let listed = RankOptions {
            keyword_list: Some(vec![
                Some("Terminal".into()),
                Some("mcp__github__create_issue".into()),
                None,
            ]),
            exact_outside: Some("create issue".into()),
            ..RankOptions::default()
        };
        let r = e.tool_search_rank("create issue", 5.0, &listed).unwrap();
        let names: Vec<(&str, Option<u32>)> = r.iter().map(|h| (h.name.as_str(), h.id)).collect();
        assert_eq!(names[0].0, "mcp__github__create_issue");
        assert!(names.contains(&("Terminal", None)));
        // The caller's unnamed entry comes back nameless, at its keyword rank.
        assert!(r
            .iter()
            .any(|h| h.name.is_empty() && h.keyword_rank == Some(2)));
        // Enhanced ranks by its own search and ignores the list.
        let en = Engine::build(tools(), opts("enhanced")).unwrap();
        let r = en.tool_search_rank("create issue", 5.0, &listed).unwrap();
        assert!(r.iter().all(|h| h.name != "Terminal"));
    }

    #[test]
    fn list_lengths_are_capped() {
        assert_eq!(check_list_len(3, "tools"), Ok(3));
        assert_eq!(
            check_list_len(u64::from(u32::MAX), "tools")
                .unwrap_err()
                .code,
            ErrorCode::TooLarge
        );
    }

    #[test]
    fn both_engines_search_rank_and_explain() {
        for scoring in ["compat", "enhanced"] {
            let e = Engine::build(tools(), opts(scoring)).unwrap();
            assert_eq!(e.scoring().as_str(), scoring);
            let hits = e.search("create issue", 5.0, None).unwrap();
            assert_eq!(hits[0].name, "mcp__github__create_issue", "{scoring}");
            let ranked = e
                .tool_search_rank("create issue", 5.0, &RankOptions::default())
                .unwrap();
            assert_eq!(ranked[0].name, "mcp__github__create_issue", "{scoring}");
            let x = e
                .explain("create issue", "mcp__github__create_issue")
                .unwrap();
            assert!((x.score - hits[0].score).abs() < 1e-12, "{scoring}");
            assert!(e.explain("create issue", "nope").is_none());
            assert!(e.heap_bytes() > 0);
        }
    }

    #[test]
    fn enhanced_rank_puts_an_outside_exact_name_first() {
        let e = Engine::build(tools(), opts("enhanced")).unwrap();
        let o = RankOptions {
            exact_outside: Some("Read".into()),
            ..RankOptions::default()
        };
        let r = e.tool_search_rank("read", 5.0, &o).unwrap();
        assert_eq!(r[0].name, "Read");
        assert_eq!(r[0].id, None);
        assert!(e.tool_search_rank("read", 0.0, &o).unwrap().is_empty());
    }

    #[test]
    fn heap_estimate_follows_changes() {
        for scoring in ["compat", "enhanced"] {
            let mut e = Engine::build(Vec::new(), opts(scoring)).unwrap();
            let empty = e.heap_bytes();
            let many: Vec<ToolDoc> = (0..200)
                .map(|i| ToolDoc::new(format!("tool_{i}"), format!("does thing number {i}")))
                .collect();
            e.upsert(many).unwrap();
            let full = e.heap_bytes();
            assert!(full > empty + 200 * 16, "{scoring}: {empty} -> {full}");
        }
    }

    #[test]
    fn slots_stay_dense_under_churn_in_both_engines() {
        for scoring in ["compat", "enhanced"] {
            let tool = |i: usize| {
                ToolDoc::new(
                    format!("mcp__srv{}__tool_{i}", i % 3),
                    format!("does thing {i} with file data"),
                )
            };
            let mut e = Engine::build((0..100).map(tool).collect(), opts(scoring)).unwrap();
            for i in 100..10_100 {
                e.upsert(vec![tool(i)]).unwrap();
                let old = format!("mcp__srv{}__tool_{}", (i - 100) % 3, i - 100);
                assert_eq!(e.remove(&[old]), 1);
            }
            assert_eq!(e.len(), 100);
            assert!(
                e.slot_count() <= 200,
                "{scoring}: last slot {} for 100 live tools",
                e.slot_count()
            );
            assert!(e.generation() > 0);
            // Results equal a fresh build of the same list.
            let fresh = Engine::build((10_000..10_100).map(tool).collect(), opts(scoring)).unwrap();
            for q in ["file data", "+file tool_10050", "srv1 thing", "tool_10099"] {
                let a: Vec<(String, u64)> = e
                    .search(q, 10.0, None)
                    .unwrap()
                    .into_iter()
                    .map(|h| (h.name, h.score.to_bits()))
                    .collect();
                let b: Vec<(String, u64)> = fresh
                    .search(q, 10.0, None)
                    .unwrap()
                    .into_iter()
                    .map(|h| (h.name, h.score.to_bits()))
                    .collect();
                assert_eq!(a, b, "{scoring}: {q}");
            }
        }
    }

    /// `+file data` against `file data` at 40k tools, both engines (printed; run with
    /// `cargo test -p tool-index-core --lib plus_term -- --ignored --nocapture`).
    #[test]
    #[ignore = "timing figures, printed only"]
    fn plus_term_cost_at_40k() {
        let words = [
            "file", "data", "read", "write", "issue", "message", "channel", "repo",
        ];
        let docs: Vec<ToolDoc> = (0..40_000)
            .map(|i| {
                ToolDoc::new(
                    format!("mcp__s{}__tool_{i}", i % 50),
                    format!(
                        "{} {} {} thing {i}",
                        words[i % 8],
                        words[(i / 8) % 8],
                        words[(i / 64) % 8]
                    ),
                )
            })
            .collect();
        for scoring in ["compat", "enhanced"] {
            let e = Engine::build(docs.clone(), opts(scoring)).unwrap();
            for q in ["file data", "+file data"] {
                let runs = 50;
                let t = std::time::Instant::now();
                for _ in 0..runs {
                    std::hint::black_box(e.search(q, 5.0, None).unwrap());
                }
                let us = t.elapsed().as_secs_f64() * 1e6 / f64::from(runs);
                eprintln!("{scoring} 40k `{q}`: {us:.0} us/query");
            }
        }
    }

    #[test]
    fn ten_megabyte_queries_answer_quickly() {
        let docs: Vec<ToolDoc> = (0..2000)
            .map(|i| {
                ToolDoc::new(
                    format!("mcp__s{}__tool_{i}", i % 7),
                    format!("reads file {i} data"),
                )
            })
            .collect();
        let pieces = [
            "a".repeat(10 << 20),
            "file data ".repeat(1 << 20),
            "数据文件".repeat(10 << 18),
            "+file ".repeat(10 << 17),
            "x_y-Z".repeat(2 << 20),
        ];
        for scoring in ["compat", "enhanced"] {
            let e = Engine::build(docs.clone(), opts(scoring)).unwrap();
            for q in &pieces {
                let t = std::time::Instant::now();
                e.search(q, 5.0, None).unwrap();
                e.tool_search_rank(q, 5.0, &RankOptions::default()).unwrap();
                e.explain(q, "mcp__s0__tool_0").unwrap();
                let ms = t.elapsed().as_millis();
                eprintln!("{scoring} {}-byte query: {ms} ms", q.len());
            }
        }
    }
}
