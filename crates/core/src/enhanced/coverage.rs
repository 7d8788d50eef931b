//! Multi-step requests: per-clause coverage of the results (xQuAD-style greedy picking
//! over the best candidates and each clause's top tools).

use rustc_hash::FxHashMap;

use super::score::TermWeights;
use super::{EnhancedIndex, ParsedQuery};
use crate::collector::{best_k, rank_order, Hit};

impl EnhancedIndex {
    /// Each clause's known terms `(id, weight)`, without those other clauses share (the
    /// object a request names once and refers to again: "create a collection …, then list
    /// the trash in this collection" scores its second clause by "list" and "trash"); a
    /// clause with nothing of its own keeps all of its terms.
    pub(super) fn clause_terms(&self, parts: &[ParsedQuery]) -> Vec<Vec<(u32, f64)>> {
        let known = |pq: &ParsedQuery| -> Vec<(u32, f64)> {
            pq.terms
                .iter()
                .filter_map(|t| {
                    let id = self.store.term_id(&t.term)?;
                    (!self.store.postings[id as usize].is_empty()).then_some((id, t.weight))
                })
                .collect()
        };
        let all: Vec<Vec<(u32, f64)>> = parts.iter().map(known).collect();
        // In how many clauses each term is (once per clause), so the filter stays linear.
        let mut clauses_with: FxHashMap<u32, usize> = FxHashMap::default();
        for ts in &all {
            let mut ids: Vec<u32> = ts.iter().map(|&(id, _)| id).collect();
            ids.sort_unstable();
            ids.dedup();
            for id in ids {
                *clauses_with.entry(id).or_insert(0) += 1;
            }
        }
        all.iter()
            .map(|ts| {
                let own: Vec<(u32, f64)> = ts
                    .iter()
                    .copied()
                    .filter(|(id, _)| clauses_with[id] == 1)
                    .collect();
                if own.is_empty() {
                    ts.clone()
                } else {
                    own
                }
            })
            .collect()
    }

    /// Greedy per-clause coverage over the best candidates: each pick maximizes
    /// `tier + (1 − λ) c + λ Σ_i P(i) · r_i(t) · uncovered_i` (xQuAD), where `c` is the whole-request
    /// confidence, `r_i(t)` the tool's score on clause `i` over the best such score,
    /// `P(i) = 1 / clauses`, and `uncovered_i` the product of `1 − r_i` over the tools
    /// already picked. The picked values never increase, so scores stay sorted.
    ///
    /// The tools outside the pool follow at or below the last pick. Only what can reach the
    /// first `limit` is worked out: picking stops once the best candidate left stands below
    /// the `limit`-th pick, and the tools outside the pool are left out when `limit` picks at
    /// or above `min_score` stand strictly above the last.
    pub(super) fn cover_clauses(
        &self,
        hits: Vec<Hit>,
        clause_terms: &[Vec<(u32, f64)>],
        limit: usize,
        min_score: f64,
    ) -> Vec<Hit> {
        // A pool that does not depend on `limit`, so a shorter list is a prefix of a longer.
        const POOL: usize = 20;
        let lambda = self.params.clause_weight;
        let pool = POOL;
        // The pool: the best whole-request candidates plus each clause's best few.
        // Clause tops are marked in a bit set over the slots (one test per hit below).
        let mut extra = vec![0u64; self.store.docs.len().div_ceil(64)];
        for ts in clause_terms {
            for slot in self.top_raw(ts, 3) {
                extra[slot as usize / 64] |= 1 << (slot % 64);
            }
        }
        let is_extra = |slot: u32| extra[slot as usize / 64] & (1 << (slot % 64)) != 0;
        let mut best = if hits.len() <= pool {
            let mut all = hits.clone();
            all.sort_unstable_by(rank_order);
            all
        } else {
            best_k(hits.iter().copied(), pool)
        };
        // Hits ranked after the best `pool`: the clause tops among them join the pool, the
        // others follow it. (The few clause tops are found by the bit set first.)
        let last = best.last().copied();
        let beyond = |h: &Hit| last.is_none_or(|l| rank_order(h, &l).is_gt());
        best.extend(hits.iter().filter(|h| is_extra(h.slot) && beyond(h)));
        best.sort_unstable_by(rank_order);
        let rest = || {
            hits.iter()
                .copied()
                .filter(|h| beyond(h) && !is_extra(h.slot))
        };
        let hits = best;
        let n = hits.len();
        let mut r: Vec<Vec<f64>> = Vec::with_capacity(clause_terms.len());
        let cache = self.tf_cache.borrow();
        for terms in clause_terms {
            // Each term's score in a slot: from its kept pseudo-frequencies, or computed.
            let scorers: Vec<(TermWeights, Option<&[f64]>)> = terms
                .iter()
                .map(|&(id, w)| (self.term_weights(id, w), cache.get(id)))
                .collect();
            let mut row: Vec<f64> = hits
                .iter()
                .map(|h| {
                    scorers
                        .iter()
                        .filter_map(|(tw, tfs)| {
                            let postings = &self.store.postings[tw.id as usize];
                            let at = postings.binary_search_by_key(&h.slot, |&(s, _)| s).ok()?;
                            Some(self.contribution_at(tw, *tfs, at))
                        })
                        .sum()
                })
                .collect();
            let max = row.iter().copied().fold(0.0f64, f64::max);
            if max > 0.0 {
                row.iter_mut().for_each(|x| *x /= max);
                r.push(row);
            }
        }
        if r.len() < 2 {
            let mut all = hits;
            all.extend(rest());
            return all;
        }
        let pi = 1.0 / r.len() as f64;
        let mut uncovered = vec![1.0f64; r.len()];
        let mut taken = vec![false; n];
        let mut out: Vec<Hit> = Vec::with_capacity(n);
        for _ in 0..n {
            let mut best: Option<(usize, f64)> = None;
            for j in (0..n).filter(|&j| !taken[j]) {
                let tier = hits[j].score.floor();
                let c = hits[j].score - tier;
                let div: f64 = (0..r.len()).map(|i| pi * r[i][j] * uncovered[i]).sum();
                let v = tier + ((1.0 - lambda) * c + lambda * div).min(0.999_999);
                if best.is_none_or(|(_, b)| v > b) {
                    best = Some((j, v));
                }
            }
            let Some((j, v)) = best else { break };
            // Values only fall from pick to pick: once the best left is below the
            // `limit`-th pick, neither it nor any tool outside the pool can reach the first
            // `limit` (ties included).
            if limit > 0 && out.len() >= limit && v < out[limit - 1].score {
                return out;
            }
            taken[j] = true;
            for (i, u) in uncovered.iter_mut().enumerate() {
                *u *= 1.0 - r[i][j];
            }
            out.push(Hit {
                slot: hits[j].slot,
                score: v,
            });
        }
        // The tools outside the pool follow, at or below the last pick.
        let last = out.last().map_or(f64::INFINITY, |h| h.score);
        let decided = out
            .iter()
            .filter(|h| h.score > last && h.score >= min_score)
            .count();
        if decided >= limit {
            return out;
        }
        for h in rest() {
            let tier = h.score.floor();
            let v = tier + (1.0 - lambda) * (h.score - tier);
            out.push(Hit {
                slot: h.slot,
                score: v.min(last),
            });
        }
        out
    }

    /// The `k` slots with the highest BM25F score for these terms (no filters). A term with
    /// kept pseudo-frequencies (see `TfCache`) is scored from them (the same values).
    pub(super) fn top_raw(&self, terms: &[(u32, f64)], k: usize) -> Vec<u32> {
        let mut cache = self.tf_cache.borrow_mut();
        if let [(id, w)] = *terms {
            // One term: its own contributions are the scores (no accumulator needed).
            let tw = self.term_weights(id, w);
            let postings = &self.store.postings[id as usize];
            let tfs = self.kept_tfs(&mut cache, &tw, postings);
            let top = best_k(
                (0..postings.len()).map(|at| Hit {
                    slot: postings[at].0,
                    score: self.contribution_at(&tw, tfs, at),
                }),
                k,
            );
            return top.into_iter().map(|h| h.slot).collect();
        }
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        s.begin(self.store.docs.len());
        for &(id, w) in terms {
            self.accumulate(s, &mut cache, &self.term_weights(id, w));
        }
        let touched = s
            .touched()
            .iter()
            .filter_map(|&slot| s.get(slot).map(|c| Hit { slot, score: c.0 }));
        best_k(touched, k).into_iter().map(|h| h.slot).collect()
    }
}
