//! Multi-step requests: per-clause coverage of the results (xQuAD-style greedy picking
//! over the best candidates and each clause's top tools).

use rustc_hash::FxHashMap;

use super::score::{evidence, TermWeights};
use super::{EnhancedIndex, ParsedQuery};
use crate::collector::{best_k, rank_order, Hit, TopK};

/// The pool of a multi-step request: its best candidates, a number that does not depend on
/// `limit`, so a shorter list is a prefix of a longer.
const POOL: usize = 20;

/// What follows the picks of a multi-step request: nothing, or the tools outside the pool
/// (as they are, or at most the last pick's score).
#[derive(Debug, Clone, Copy, PartialEq)]
enum Tail {
    None,
    AsIs,
    Capped(f64),
}

/// The picks over a multi-step request's pool.
struct Picked {
    out: Vec<Hit>,
    tail: Tail,
    /// How many tools the pool had (the head and the clause tops that joined it).
    pool: usize,
    /// The clause tops' bits by slot (kept when the tail is needed).
    extra: Vec<u64>,
}

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

    /// A multi-step request's hits, picked for clause coverage ([`EnhancedIndex::cover_clauses`]);
    /// empty when it abstains. A request with no filter and no name (the usual one) is scored
    /// into a top-k of the pool's head, its clause tops' hits read off the scratch; the tools
    /// outside the pool are scored only when the picks need them after the pool.
    pub(super) fn search_steps(
        &self,
        q: &ParsedQuery,
        clause_terms: &[Vec<(u32, f64)>],
        limit: usize,
        min_score: f64,
    ) -> Vec<Hit> {
        let tiers = self.tiers(q);
        if Self::plain_request(q, &tiers) {
            let mut top = TopK::new(POOL);
            let pass = self.score_into(q, &tiers, &mut top);
            let head = top.into_vec();
            if pass.abstains || head.is_empty() {
                return Vec::new();
            }
            if pass.plain {
                // The tools the pass touched: each a hit at tier 0 (the clause scores below
                // use a scratch of their own, so the pass's evidence stays).
                let touched = self.scratch.borrow().touched().len();
                let extras = |extra: &[u64]| self.plain_hits(extra);
                let picked = self.pick_steps(head, extras, clause_terms, limit, min_score);
                // Hits outside the pool: every touched tool but those in it.
                if picked.tail == Tail::None || touched == picked.pool {
                    return picked.out;
                }
            }
        }
        // Filters or names (or the tools outside the pool wanted): every hit.
        let mut hits = Vec::new();
        if self.score_into(q, &tiers, &mut hits).abstains {
            return Vec::new();
        }
        self.cover_clauses(hits, clause_terms, limit, min_score)
    }

    /// The hits of the slots whose bits are set (`slot / 64`, bit `slot % 64`) among the tools
    /// the last plain scoring pass touched ([`super::score::Pass::plain`]), from the evidence it left in the
    /// scratch: the hits that pass gave them.
    fn plain_hits(&self, bits: &[u64]) -> Vec<Hit> {
        let max_idf = self.idf_unknown();
        let s = self.scratch.borrow();
        let mut hits = Vec::new();
        for (i, &word) in bits.iter().enumerate() {
            let mut b = word;
            while b != 0 {
                let slot = i as u32 * 64 + b.trailing_zeros();
                b &= b - 1;
                if let Some(c) = s.get(slot) {
                    hits.push(self.hit_of(slot, 0.0, c.0, max_idf));
                }
            }
        }
        hits
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
        if hits.is_empty() {
            return hits;
        }
        let lambda = self.params.clause_weight;
        // The pool's head: the best whole-request candidates, in rank order.
        let head = if hits.len() <= POOL {
            let mut all = hits.clone();
            all.sort_unstable_by(rank_order);
            all
        } else {
            best_k(hits.iter().copied(), POOL)
        };
        let last = head.last().copied();
        // The clause tops among the hits (found by their bits, one test a hit).
        let is_extra = |extra: &[u64], slot: u32| {
            extra
                .get(slot as usize / 64)
                .is_some_and(|w| w & (1 << (slot % 64)) != 0)
        };
        let extras = |extra: &[u64]| {
            hits.iter()
                .copied()
                .filter(|h| is_extra(extra, h.slot))
                .collect()
        };
        let mut picked = self.pick_steps(head, extras, clause_terms, limit, min_score);
        let beyond = |h: &Hit| last.is_none_or(|l| rank_order(h, &l).is_gt());
        let rest = hits
            .iter()
            .filter(|h| beyond(h) && !is_extra(&picked.extra, h.slot));
        match picked.tail {
            Tail::None => {}
            Tail::AsIs => picked.out.extend(rest),
            Tail::Capped(last) => picked.out.extend(rest.map(|h| {
                let tier = h.score.floor();
                let v = tier + (1.0 - lambda) * (h.score - tier);
                Hit {
                    slot: h.slot,
                    score: v.min(last),
                }
            })),
        }
        picked.out
    }

    /// The picks of [`EnhancedIndex::cover_clauses`] over a pool: `head` (the best
    /// candidates, in rank order) and the clause tops ranked after it, which `extras` gives
    /// (the hits of the slots whose bits are set, in any order).
    fn pick_steps(
        &self,
        head: Vec<Hit>,
        extras: impl FnOnce(&[u64]) -> Vec<Hit>,
        clause_terms: &[Vec<(u32, f64)>],
        limit: usize,
        min_score: f64,
    ) -> Picked {
        let lambda = self.params.clause_weight;
        let mut pool = head;
        let head = pool.len();
        // Each clause's scores of the head's tools (read off the clause's own scoring pass),
        // and its best few tools, marked in a bit set over the slots.
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
        // Hits ranked after the head: the clause tops among them join the pool (after the
        // head, in rank order), the others follow it.
        let last = pool.last().copied();
        let beyond = |h: &Hit| last.is_none_or(|l| rank_order(h, &l).is_gt());
        pool.extend(extras(&extra).into_iter().filter(beyond));
        pool[head..].sort_unstable_by(rank_order);
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
                        .filter_map(|(tw, sats)| {
                            let postings = &self.store.postings[tw.id as usize];
                            let at = postings.binary_search_by_key(&h.slot, |&(s, _)| s).ok()?;
                            Some(self.contribution_at(tw, *sats, at))
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
        let done = |out: Vec<Hit>, tail: Tail| Picked {
            out,
            tail,
            pool: n,
            extra: Vec::new(),
        };
        if r.len() < 2 {
            let mut picked = done(hits, Tail::AsIs);
            picked.extra = extra;
            return picked;
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
                return done(out, Tail::None);
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
            return done(out, Tail::None);
        }
        let mut picked = done(out, Tail::Capped(last));
        picked.extra = extra;
        picked
    }

    /// A clause's BM25F score (its terms, no filters) of each tool of `head`, and the `k`
    /// tools with the highest such score. A term with kept saturations (see `TfCache`)
    /// is scored from them (the same values).
    fn clause_scores(&self, terms: &[(u32, f64)], head: &[Hit], k: usize) -> (Vec<f64>, Vec<u32>) {
        let mut cache = self.tf_cache.borrow_mut();
        if let [(id, w)] = *terms {
            // One term: its own contributions are the scores (no accumulator needed).
            let tw = self.term_weights(id, w);
            let postings = &self.store.postings[id as usize];
            let sats = self.kept_saturations(&mut cache, &tw, postings);
            let top = best_k(
                (0..postings.len()).map(|at| Hit {
                    slot: postings[at].0,
                    score: self.contribution_at(&tw, sats, at),
                }),
                k,
            );
            let row = head
                .iter()
                .map(|h| {
                    postings
                        .binary_search_by_key(&h.slot, |&(s, _)| s)
                        .map_or(0.0, |at| self.contribution_at(&tw, sats, at))
                })
                .collect();
            return (row, top.into_iter().map(|h| h.slot).collect());
        }
        // A scratch of its own: the request's scoring pass may still be read from its scratch.
        let mut guard = self.clause_scratch.borrow_mut();
        let s = &mut *guard;
        s.begin(self.store.docs.len());
        // The head's tools are seeded: their clause scores count the clause's common words.
        let each = terms.iter().map(|&(id, w)| (id, w, false));
        self.accumulate_terms(s, &mut cache, each, head.iter().map(|h| h.slot));
        let row = head
            .iter()
            .map(|h| evidence(s, h.slot).unwrap_or(0.0))
            .collect();
        // A seeded tool of the head without evidence (−0) ranks below every tool with some,
        // and the head is in the pool anyway: no test for it here.
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

    /// A catalog where many tools share the words of several steps.
    fn steps_catalog() -> EnhancedIndex {
        let verbs = ["create", "rename", "list", "delete", "send", "archive"];
        let things = ["file", "folder", "message", "note", "event"];
        let tools: Vec<ToolDoc> = (0..90)
            .map(|i| ToolDoc {
                name: format!("{}_{}_{i}", verbs[i % 6], things[i % 5]),
                description: format!(
                    "{} a {} {}",
                    verbs[i % 6],
                    things[(i / 6) % 5],
                    "in the workspace ".repeat(i % 3)
                ),
                server: (i % 4 == 0).then(|| format!("srv{}", i % 8)),
                ..ToolDoc::default()
            })
            .collect();
        EnhancedIndex::build(tools, Params::default(), 512).unwrap()
    }

    /// A multi-step request's picks are the same, to the bit, whether its head comes from a
    /// top-k pass (a plain request) or from every hit, at any limit and display threshold,
    /// with or without names and filters, and when the tools after the pool are wanted.
    #[test]
    fn steps_from_the_top_k_equal_steps_from_every_hit() {
        let i = steps_catalog();
        let requests = [
            "create a file, then rename the folder and list the messages",
            "send a message then archive the note",
            "delete the event. Finally, create a note in the workspace",
            "list files then send_message_4 and delete the folder",
            "create_file_0 then rename it",
            "server:srv0 create a file then archive the event",
            "+archive a note then send it",
            "rename the zzzz then list the qqqq",
            // A long first step: the second step's tools rank after the best twenty.
            "create a file folder message note event in the workspace workspace, then archive",
            "list every file folder message note in the workspace then delete",
        ];
        let bits = |h: &[Hit]| {
            h.iter()
                .map(|h| (h.slot, h.score.to_bits()))
                .collect::<Vec<_>>()
        };
        let mut tails = 0;
        for request in requests {
            let q = i.parse_query(request);
            let parts = i.clause_queries(request);
            if parts.len() < 2 {
                continue;
            }
            let terms = i.clause_terms(&parts);
            for limit in [1, 3, 5, 10, 20, 25, 40, 200] {
                for min_score in [0.0, 0.1, 0.5] {
                    let got = i.search_steps(&q, &terms, limit, min_score);
                    let want = i.cover_clauses(i.score(&q), &terms, limit, min_score);
                    assert_eq!(bits(&got), bits(&want), "{request:?} {limit} {min_score}");
                    tails += usize::from(got.len() > POOL + 3 * terms.len());
                }
            }
        }
        // Some lists ran past the pool (the tools outside it were wanted).
        assert!(tails > 0);
    }

    /// After a plain pass into a top-k, every touched tool's hit read off the scratch is the
    /// hit a pass collecting every hit gives it; no other slot has one.
    #[test]
    fn plain_hits_are_the_pass_hits() {
        let i = steps_catalog();
        let all = vec![u64::MAX; i.store.docs.len().div_ceil(64)];
        for request in [
            "create a file in the workspace",
            "archive a note then send a message",
            "rename the zzzz",
        ] {
            let q = i.parse_query(request);
            let tiers = i.tiers(&q);
            assert!(tiers.is_empty(), "{request}");
            let mut every = Vec::new();
            assert!(!i.score_into(&q, &tiers, &mut every).abstains);
            let mut top = TopK::new(3);
            let pass = i.score_into(&q, &tiers, &mut top);
            assert!(pass.plain, "{request}");
            let mut got = i.plain_hits(&all);
            got.sort_unstable_by(rank_order);
            every.sort_unstable_by(rank_order);
            let bits = |h: &[Hit]| {
                h.iter()
                    .map(|h| (h.slot, h.score.to_bits()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(bits(&got), bits(&every), "{request}");
        }
    }

    /// A clause's common word counts in the clause scores of the head's tools, and of the
    /// tools its rarer words find; no other tool is among its best.
    #[test]
    fn a_clause_scores_its_common_words_for_the_head() {
        let tools: Vec<ToolDoc> = (0..100)
            .map(|k| ToolDoc {
                name: format!("tool_{k}"),
                description: if k < 2 {
                    "rotate the record".to_owned()
                } else if k < 60 {
                    format!("keep the record{}", " record".repeat(k % 4))
                } else {
                    "ledger archive".to_owned()
                },
                ..ToolDoc::default()
            })
            .collect();
        let i = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        let (rotate, record) = (
            i.store.term_id("rotat").unwrap(),
            i.store.term_id("record").unwrap(),
        );
        assert!(i.is_common(record) && !i.is_common(rotate));
        let terms = [(rotate, 1.0), (record, 1.0)];
        let head: Vec<Hit> = [0, 7, 30, 80]
            .into_iter()
            .map(|slot| Hit { slot, score: 0.0 })
            .collect();
        let (row, top) = i.clause_scores(&terms, &head, 3);
        let want: Vec<f64> = head
            .iter()
            .map(|h| {
                let r = [(rotate, 1.0)];
                let c = [(record, 1.0)];
                0.0 + (direct(&i, &r, h.slot) + direct(&i, &c, h.slot))
            })
            .collect();
        assert_eq!(row, want);
        assert!(row[1] > 0.0 && row[2] > 0.0 && row[3] == 0.0);
        // Tool 3 scores as tool 7 on the clause (the same description) and would come first,
        // but only the rarer word's tools and the head's are candidates.
        assert_eq!(top, vec![0, 1, 7]);
    }

    /// The head's clause scores equal the term-by-term sums (to the bit; the clauses here
    /// have no common word, see `a_clause_scores_its_common_words_for_the_head`), and the
    /// clause's best tools are the first of every slot in rank order, whether its terms' frequencies
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
