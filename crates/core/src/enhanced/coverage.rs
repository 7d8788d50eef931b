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
        // The pool's head: the best whole-request candidates, in rank order.
        let mut pool = if hits.len() <= POOL {
            let mut all = hits.clone();
            all.sort_unstable_by(rank_order);
            all
        } else {
            best_k(hits.iter().copied(), POOL)
        };
        let head = pool.len();
        // Each clause's scores of the head's tools (read off the clause's own scoring pass),
        // and its best few tools, marked in a bit set over the slots (one test per hit below).
        let mut extra = vec![0u64; self.store.docs.len().div_ceil(64)];
        let mut r: Vec<Vec<f64>> = clause_terms
            .iter()
            .map(|ts| {
                let (row, top) = self.clause_scores(ts, &pool, 3);
                for slot in top {
                    extra[slot as usize / 64] |= 1 << (slot % 64);
                }
                row
            })
            .collect();
        let is_extra = |slot: u32| extra[slot as usize / 64] & (1 << (slot % 64)) != 0;
        // Hits ranked after the head: the clause tops among them join the pool (after the
        // head, in rank order), the others follow it.
        let last = pool.last().copied();
        let beyond = |h: &Hit| last.is_none_or(|l| rank_order(h, &l).is_gt());
        pool.extend(hits.iter().filter(|h| is_extra(h.slot) && beyond(h)));
        pool[head..].sort_unstable_by(rank_order);
        let rest = || {
            hits.iter()
                .copied()
                .filter(|h| beyond(h) && !is_extra(h.slot))
        };
        // The few tops that joined: their clause scores term by term.
        {
            let cache = self.tf_cache.borrow();
            for (row, terms) in r.iter_mut().zip(clause_terms) {
                let scorers: Vec<(TermWeights, Option<&[f64]>)> = terms
                    .iter()
                    .map(|&(id, w)| (self.term_weights(id, w), cache.get(id)))
                    .collect();
                row.extend(pool[head..].iter().map(|h| {
                    scorers
                        .iter()
                        .filter_map(|(tw, tfs)| {
                            let postings = &self.store.postings[tw.id as usize];
                            let at = postings.binary_search_by_key(&h.slot, |&(s, _)| s).ok()?;
                            Some(self.contribution_at(tw, *tfs, at))
                        })
                        .sum::<f64>()
                }));
            }
        }
        // Each clause's scores over the best such score; a clause no candidate scores on
        // counts for nothing.
        r.retain_mut(|row| {
            let max = row.iter().copied().fold(0.0f64, f64::max);
            if max > 0.0 {
                row.iter_mut().for_each(|x| *x /= max);
            }
            max > 0.0
        });
        let hits = pool;
        let n = hits.len();
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

    /// A clause's BM25F score (its terms, no filters) of each tool of `head`, and the `k`
    /// tools with the highest such score. A term with kept pseudo-frequencies (see `TfCache`)
    /// is scored from them (the same values).
    fn clause_scores(&self, terms: &[(u32, f64)], head: &[Hit], k: usize) -> (Vec<f64>, Vec<u32>) {
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
            let row = head
                .iter()
                .map(|h| {
                    postings
                        .binary_search_by_key(&h.slot, |&(s, _)| s)
                        .map_or(0.0, |at| self.contribution_at(&tw, tfs, at))
                })
                .collect();
            return (row, top.into_iter().map(|h| h.slot).collect());
        }
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        s.begin(self.store.docs.len());
        for &(id, w) in terms {
            self.accumulate(s, &mut cache, &self.term_weights(id, w));
        }
        let row = head
            .iter()
            .map(|h| s.get(h.slot).map_or(0.0, |c| c.0))
            .collect();
        let touched = s
            .touched()
            .iter()
            .filter_map(|&slot| s.get(slot).map(|c| Hit { slot, score: c.0 }));
        (
            row,
            best_k(touched, k).into_iter().map(|h| h.slot).collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enhanced::Params;
    use crate::ToolDoc;

    /// A clause's score of a slot, worked out term by term from the postings (an empty sum
    /// as 0, not −0).
    fn direct(i: &EnhancedIndex, terms: &[(u32, f64)], slot: u32) -> f64 {
        0.0 + terms
            .iter()
            .filter_map(|&(id, w)| {
                let tw = i.term_weights(id, w);
                let (_, tfs) = i.store.postings[id as usize]
                    .iter()
                    .find(|(s, _)| *s == slot)?;
                Some(i.term_score(&tw, slot, tfs))
            })
            .sum::<f64>()
    }

    /// The head's clause scores equal the term-by-term sums (to the bit), and the clause's
    /// best tools are the first of every slot in rank order, whether its terms' frequencies
    /// are kept (long lists) or not, for one term and for several.
    #[test]
    fn clause_scores_equal_the_direct_sums() {
        let tools: Vec<ToolDoc> = (0..60)
            .map(|i| ToolDoc {
                name: format!("tool_{i}"),
                description: format!(
                    "{} file {}{}",
                    ["read", "write", "list"][i % 3],
                    "data ".repeat(i % 4),
                    if i % 9 == 0 { "archive rare" } else { "" }
                ),
                ..ToolDoc::default()
            })
            .collect();
        let i = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        let id = |t: &str| i.store.term_id(t).unwrap();
        let slots = i.store.docs.len() as u32;
        let head: Vec<Hit> = (0..slots)
            .step_by(3)
            .map(|slot| Hit { slot, score: 0.0 })
            .collect();
        let clauses: Vec<Vec<(u32, f64)>> = vec![
            vec![(id("file"), 1.0)],
            vec![(id("rare"), 0.5)],
            vec![(id("data"), 1.0), (id("archiv"), 0.7), (id("read"), 1.0)],
            vec![(id("rare"), 1.0), (id("list"), 0.3)],
        ];
        for terms in &clauses {
            // Twice: the second time, the long lists' frequencies are kept.
            for _ in 0..2 {
                let (row, top) = i.clause_scores(terms, &head, 3);
                let want: Vec<u64> = head
                    .iter()
                    .map(|h| direct(&i, terms, h.slot).to_bits())
                    .collect();
                let got: Vec<u64> = row.iter().map(|x| x.to_bits()).collect();
                assert_eq!(got, want, "{terms:?}");
                let all = (0..slots)
                    .map(|slot| Hit {
                        slot,
                        score: direct(&i, terms, slot),
                    })
                    .filter(|h| h.score > 0.0);
                let best: Vec<u32> = best_k(all, 3).into_iter().map(|h| h.slot).collect();
                assert_eq!(top, best, "{terms:?}");
            }
        }
    }
}
