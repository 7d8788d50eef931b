//! Why a tool scored what it did: the scoring pass's own terms, weights and formula,
//! one tool at a time.

use super::query::QueryMemo;
use super::{EnhancedIndex, FIELDS, FIELD_NAMES};

/// One field's share of a term's score, for [`EnhancedIndex::explain`].
#[derive(Debug, Clone, PartialEq)]
pub struct TermExplain {
    pub term: String,
    pub origin: String,
    pub idf: f64,
    /// `(field, tf, weighted normalized tf)` for the fields that have the term.
    pub fields: Vec<(&'static str, u16, f64)>,
    /// The term's BM25F contribution.
    pub score: f64,
}

/// Why a tool scored what it did.
#[derive(Debug, Clone, PartialEq)]
pub struct Explain {
    pub name: String,
    /// Share of the query's IDF mass this tool matches (what the abstain rule looks at).
    pub coverage: f64,
    pub tier: u8,
    pub relevance: f64,
    pub score: f64,
    pub terms: Vec<TermExplain>,
    pub filtered: Option<String>,
}

impl EnhancedIndex {
    /// Per-term, per-field contributions of one tool for a query.
    pub fn explain(&self, query: &str, name: &str) -> Option<Explain> {
        let slot = self.store().slot_of(name)?;
        let doc = self.store.docs[slot as usize].as_ref()?;
        let (q, parts) = self.request_with(query, &mut QueryMemo::default());
        let mut terms = Vec::new();
        // Whether every word the tool has is common (see `accumulate_terms`).
        let mut only_common = true;
        for t in &q.terms {
            let Some(id) = self.store.term_id(&t.term) else {
                continue;
            };
            let Some(&tfs) = self.store.posting(id, slot) else {
                continue;
            };
            only_common &= !t.required && self.is_common(id);
            // The scoring pass's own weights and formula.
            let tw = self.term_weights(id, t.weight);
            let norm = &self.norms[slot as usize];
            let fields = (0..FIELDS)
                .filter(|&f| tfs[f] > 0)
                .map(|f| {
                    let v = tw.fields[f] * f64::from(tfs[f]) * norm[f];
                    (FIELD_NAMES[f], tfs[f], v)
                })
                .collect();
            terms.push(TermExplain {
                term: t.term.to_string(),
                origin: t.origin.to_string(),
                idf: self.idf(id),
                fields,
                score: self.term_score(&tw, slot, &tfs),
            });
        }
        // Every match before the clauses' coverage and the crowd rule (empty when the request
        // abstains), then the ranking `search` makes of them, every tool worked out: the score
        // of the tool is the one `search` gives it (a multi-step request's coverage included).
        let hits = self.score(&q);
        // A query of server filters alone lists that server's tools without scoring any.
        let filter_only = q.terms.is_empty() && !q.servers.is_empty();
        let ranked = if hits.is_empty() && !filter_only {
            Vec::new()
        } else {
            self.search_clauses(&q, &parts, usize::MAX, f64::NEG_INFINITY)
        };
        // The crowd rule reads the final ranking: a search that abstains has no result.
        let crowd = self.params.crowd_rule_on() && !hits.is_empty() && ranked.is_empty();
        let hit = ranked.iter().find(|h| h.slot == slot);
        let tier = self.tiers(&q).get(&slot).copied().unwrap_or(0);
        let scored = self.scored_terms(&q);
        let splits = self.splits_common(scored.iter().map(|t| (t.0, t.1, t.2)));
        let only_common = only_common && !terms.is_empty();
        Some(Explain {
            name: doc.name.clone(),
            coverage: self.coverage(&q, &scored, slot),
            tier,
            relevance: hit.map(|h| h.score - tier as f64).unwrap_or(0.0),
            score: hit.map(|h| h.score).unwrap_or(0.0),
            terms,
            filtered: if hit.is_none() {
                Some(if crowd {
                    "the query abstained: no tool stands out of the crowd".into()
                } else if hits.is_empty() {
                    "the query abstained or matched nothing".into()
                } else if only_common && tier == 0 && splits {
                    "it has only words more than a quarter of the tools have; the query's rarer words found other tools".into()
                } else {
                    "filtered out (server or required term) or no match".into()
                })
            } else {
                None
            },
        })
    }
}
