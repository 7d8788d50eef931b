//! The scoring pass: BM25F over the query terms' postings into the collector, each
//! matching tool's confidence and name tier, filters, and the abstain rule.

use rustc_hash::{FxHashMap, FxHashSet};

use super::analyze::has_cjk;
use super::params::{confidence, COMMON_FROM, COMMON_SHARE, CROWD_RANK};
use super::{EnhancedIndex, ParsedQuery, FIELDS};
use crate::collector::{best_k, Hit, HitSink};

/// What a scoring pass found out besides its hits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Pass {
    /// The request is answered with nothing: the sink's hits are no answer.
    pub abstains: bool,
    /// No filter and no name tier applied: every touched tool is a hit at tier 0, its score
    /// [`EnhancedIndex::hit_of`] of the evidence the scratch keeps.
    pub plain: bool,
}

/// A query term, ready for scoring: its id, field weights and `query weight · idf`.
pub(super) struct TermWeights {
    pub(super) id: u32,
    pub(super) fields: [f64; FIELDS],
    pub(super) idf: f64,
}

/// Per slot: (score, epoch).
#[derive(Clone, Copy)]
pub(super) struct Cell(pub(super) f64, u32);

impl crate::collector::Cell for Cell {
    fn epoch(&self) -> u32 {
        self.1
    }
    fn fresh(epoch: u32) -> Self {
        Cell(0.0, epoch)
    }
    #[inline]
    fn renew(self, epoch: u32) -> Self {
        Cell(masked(self.0, self.1 == epoch), epoch)
    }
}

/// `x` if `keep`, else +0, by a mask on its bits rather than a branch (the compiler turns a
/// select of two floats, or a mask it can see through, back into one).
#[inline(always)]
fn masked(x: f64, keep: bool) -> f64 {
    f64::from_bits(x.to_bits() & std::hint::black_box(u64::from(keep).wrapping_neg()))
}

pub(super) type Scratch = crate::collector::Accumulator<Cell>;

/// What a seeded slot holds before any evidence (see [`EnhancedIndex::accumulate_terms`]):
/// −0, which adding the non-negative contributions to a fresh +0 never gives.
const SEEDED: f64 = -0.0;

/// The least evidence a tier-0 hit needs for a sink to keep it
/// ([`EnhancedIndex::least_kept_evidence`] of the sink's floor), worked out again whenever
/// the floor moves: a scoring loop passes by every tool below it.
struct KeptEvidence {
    floor: f64,
    evidence: f64,
}

impl KeptEvidence {
    fn of(index: &EnhancedIndex, hits: &impl HitSink, max_idf: f64) -> Self {
        let floor = hits.floor();
        Self {
            floor,
            evidence: index.least_kept_evidence(floor, max_idf),
        }
    }

    /// After a push: the sink's floor again, if it moved.
    #[inline]
    fn follow(&mut self, index: &EnhancedIndex, hits: &impl HitSink, max_idf: f64) {
        if hits.floor() != self.floor {
            *self = Self::of(index, hits, max_idf);
        }
    }
}

/// A slot's evidence in this pass, if a term added any (a slot only seeded has none).
#[inline]
pub(super) fn evidence(s: &Scratch, slot: u32) -> Option<f64> {
    s.get(slot)
        .map(|c| c.0)
        .filter(|x| !(*x == 0.0 && x.is_sign_negative()))
}

/// A term's postings of at least this many tools get their saturations kept (shorter lists
/// cost little to score again).
const TF_CACHE_MIN: usize = 16;
/// Most saturations kept at once (8 bytes each): past it, terms are scored as they come.
const TF_CACHE_MAX: usize = 1 << 21;

/// Per term, the BM25 saturation of its BM25F pseudo-frequency (`saturation` of `weighted_tf`)
/// in each of its postings, in posting order, kept from the first request that scores the
/// term: a posting then costs one multiplication by the term's `w · idf`. They depend on the
/// tools' field lengths (through the norms), so any change of the tools empties the cache
/// ([`TfCache::clear`] from `refresh`). A kept value is the one `saturation` gives, so a score
/// is the same to the bit whether or not its term was kept.
#[derive(Default)]
pub(super) struct TfCache {
    by_term: FxHashMap<u32, Box<[f64]>>,
    held: usize,
}

impl TfCache {
    /// Forget every kept value (the tools changed).
    pub(super) fn clear(&mut self) {
        self.by_term = FxHashMap::default();
        self.held = 0;
    }

    /// A term's kept saturations, if it has them.
    pub(super) fn get(&self, id: u32) -> Option<&[f64]> {
        self.by_term.get(&id).map(|t| &t[..])
    }

    /// Values held (for the index's size estimate).
    pub(super) fn held(&self) -> usize {
        self.held
    }
}

impl EnhancedIndex {
    pub(super) fn idf(&self, term: u32) -> f64 {
        let n = self.store.live as f64;
        let df = self.store.postings[term as usize].len() as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// A term's BM25F contribution in one slot (`tfs` its field frequencies there).
    pub(super) fn term_score(&self, tw: &TermWeights, slot: u32, tfs: &[u16; FIELDS]) -> f64 {
        bm25f(tw, self.params.k1, tfs, &self.norms[slot as usize])
    }

    /// A query term's field weights (generic words weigh less in the name) and `w · idf`.
    pub(super) fn term_weights(&self, id: u32, w: f64) -> TermWeights {
        let mut fields = self.params.weights;
        if self.is_generic(id) {
            fields[0] = self.params.generic_name_weight.min(fields[0]);
        }
        TermWeights {
            id,
            fields,
            idf: w * self.idf(id),
        }
    }

    /// A term's kept saturations (one per posting), worked out and kept now if the term's
    /// postings are long enough and the cache has room; `None`: score the postings as they
    /// come.
    pub(super) fn kept_saturations<'c>(
        &self,
        cache: &'c mut TfCache,
        tw: &TermWeights,
        postings: &[(u32, [u16; FIELDS])],
    ) -> Option<&'c [f64]> {
        if postings.len() < TF_CACHE_MIN {
            return None;
        }
        if cache.held + postings.len() > TF_CACHE_MAX && !cache.by_term.contains_key(&tw.id) {
            return None;
        }
        let held = &mut cache.held;
        let kept = cache.by_term.entry(tw.id).or_insert_with(|| {
            let k1 = self.params.k1;
            let sats: Box<[f64]> = postings
                .iter()
                .map(|(slot, tfs)| {
                    saturation(
                        k1,
                        weighted_tf(&tw.fields, tfs, &self.norms[*slot as usize]),
                    )
                })
                .collect();
            *held += sats.len();
            sats
        });
        Some(&kept[..])
    }

    /// Add one term's contributions over its postings into the scratch cells: from its kept
    /// saturations where it has them (or gets them now), else from the tools' norms.
    /// The same values either way.
    pub(super) fn accumulate(
        &self,
        s: &mut Scratch,
        cache: &mut TfCache,
        tw: &TermWeights,
        touched_only: bool,
    ) {
        let k1 = self.params.k1;
        let postings = &self.store.postings[tw.id as usize];
        match self.kept_saturations(cache, tw, postings) {
            Some(sats) => {
                let each = postings.iter().zip(sats).map(|(p, &sat)| (p.0, sat));
                if touched_only {
                    // An untouched cell gets +0 (see `update_touched`): no branch on it.
                    s.update_touched(each, |c, sat, touched| c.0 += masked(tw.idf * sat, touched));
                } else {
                    s.update_ascending(each, |c, sat| c.0 += tw.idf * sat);
                }
            }
            None => {
                let each = postings.iter().map(|p| (p.0, p));
                let score = |(slot, tfs): &(u32, [u16; FIELDS])| {
                    bm25f(tw, k1, tfs, &self.norms[*slot as usize])
                };
                if touched_only {
                    s.update_touched(each, |c, p, touched| {
                        if touched {
                            c.0 += score(p);
                        }
                    });
                } else {
                    s.update_ascending(each, |c, p| c.0 += score(p));
                }
            }
        }
    }

    /// Add terms `(id, query weight, exempt)` into the scratch. When some but not all of them
    /// are common ([`EnhancedIndex::is_common`]) and not exempt, the others are added first,
    /// in order, then the `seed` slots the others missed are marked ([`evidence`] reads them
    /// as untouched until a term adds to them), then each common term is added onto the
    /// touched and seeded tools only: a tool that has nothing but common words of the request
    /// gets no evidence (unless seeded), and every other tool the same sum as a full pass
    /// (added in that order). Otherwise every term is added as it comes.
    pub(super) fn accumulate_terms<I>(
        &self,
        s: &mut Scratch,
        cache: &mut TfCache,
        terms: I,
        seed: impl IntoIterator<Item = u32>,
    ) where
        I: Iterator<Item = (u32, f64, bool)> + Clone,
    {
        let common = |(id, _, exempt): (u32, f64, bool)| !exempt && self.is_common(id);
        let split = self.splits_common(terms.clone());
        for t in terms.clone() {
            if !split || !common(t) {
                self.accumulate(s, cache, &self.term_weights(t.0, t.1), false);
            }
        }
        if split {
            for slot in seed {
                if s.get(slot).is_none() {
                    s.cell(slot).0 = SEEDED;
                }
            }
            for t in terms.filter(|&t| common(t)) {
                self.accumulate(s, cache, &self.term_weights(t.0, t.1), true);
            }
        }
    }

    /// The terms of a request some tool has, as the scoring pass reads them: `(term id,
    /// query weight, required, whether it covers mass)`.
    pub(super) fn scored_terms(&self, q: &ParsedQuery) -> Vec<(u32, f64, bool, bool)> {
        // Sized once for every term (most requests' words are known).
        let mut v = Vec::with_capacity(q.terms.len());
        v.extend(
            q.terms
                .iter()
                .filter_map(|t| {
                    self.store
                        .term_id(&t.term)
                        .map(|id| (id, t.weight, t.required, t.covers()))
                })
                .filter(|(id, ..)| !self.store.postings[*id as usize].is_empty()),
        );
        v
    }

    /// Whether [`EnhancedIndex::accumulate_terms`] leaves the common ones of these terms
    /// `(id, query weight, exempt)` to the tools the others find: some are common and not
    /// exempt, and some are not.
    pub(super) fn splits_common(&self, terms: impl Iterator<Item = (u32, f64, bool)>) -> bool {
        let (mut all, mut commons) = (0usize, 0usize);
        for (id, _, exempt) in terms {
            all += 1;
            commons += usize::from(!exempt && self.is_common(id));
        }
        commons > 0 && commons < all
    }

    /// Whether a word is common: more than [`COMMON_SHARE`] of the tools, and at least
    /// [`COMMON_FROM`] of them, have it (the rule for synonyms and for the scoring pass).
    pub(super) fn is_common(&self, id: u32) -> bool {
        let df = self.store.postings[id as usize].len();
        df >= COMMON_FROM && df as f64 > COMMON_SHARE * self.store.live as f64
    }

    /// A term's contribution in the tool of its `at`-th posting, from `sats` (its kept
    /// saturations) when given.
    pub(super) fn contribution_at(&self, tw: &TermWeights, sats: Option<&[f64]>, at: usize) -> f64 {
        match sats {
            Some(sats) => tw.idf * sats[at],
            None => {
                let (slot, tfs) = &self.store.postings[tw.id as usize][at];
                self.term_score(tw, *slot, tfs)
            }
        }
    }

    pub(super) fn is_generic(&self, id: u32) -> bool {
        !self.generic.is_empty() && self.generic.contains(&*self.store.term_text[id as usize])
    }

    /// Evidence below which a tool's tier-0 score ([`EnhancedIndex::confidence_of`]) stands
    /// below `floor` for certain: the inverse of the confidence at `floor` less the largest
    /// tie-break (1e-9) and a margin far above rounding; −∞ when nothing can be ruled out.
    fn least_kept_evidence(&self, floor: f64, max_idf: f64) -> f64 {
        let c = floor - 2e-9;
        if c.is_nan() || c <= 0.0 || c >= 0.999_999 {
            return f64::NEG_INFINITY;
        }
        let scale = self.params.confidence_scale.max(1e-9);
        let e = scale * c / (1.0 - c);
        e * max_idf * (1.0 - 1e-9)
    }

    /// Evidence → confidence, with a tie-break below any real difference: of two tools
    /// with the same evidence, the one with fewer words (the more specific) first.
    pub(super) fn confidence_of(&self, raw: f64, max_idf: f64, slot: u32) -> f64 {
        let c = confidence(raw / max_idf, self.params.confidence_scale);
        (c + self.ties[slot as usize]).min(0.999_999)
    }

    /// Every matching tool (name tier and server / required-word filters applied) with its
    /// score `tier + confidence`; empty when the request abstains.
    pub(super) fn score(&self, q: &ParsedQuery) -> Vec<Hit> {
        let mut hits = Vec::new();
        if self.score_into(q, &self.tiers(q), &mut hits).abstains {
            hits.clear();
        }
        hits
    }

    /// Whether a request, with its name tiers, is plain: no server filter, no required word
    /// and no name tier, so every tool its pass touches is a hit at tier 0 ([`Pass::plain`]).
    pub(super) fn plain_request(q: &ParsedQuery, tiers: &FxHashMap<u32, u8>) -> bool {
        q.servers.is_empty() && tiers.is_empty() && !q.terms.iter().any(|t| t.required)
    }

    /// A tool's hit at a name tier, from its evidence (the scoring pass's sum).
    pub(super) fn hit_of(&self, slot: u32, tier: f64, raw: f64, max_idf: f64) -> Hit {
        Hit {
            slot,
            score: tier + self.confidence_of(raw, max_idf, slot),
        }
    }

    /// Every touched tool with evidence into the sink at tier 0, as the pass found them. A
    /// tool whose evidence is below what the sink's floor asks for is only a candidate for
    /// the best: its hit would not be kept, so it is not worked out (nor `note`d: below a
    /// kept hit's evidence, it is not the best either). `SEEDED_CELLS`: whether some cells
    /// may be only seeded (no evidence, passed by); a plain request has none, and its loop
    /// does not test for them.
    fn push_tier_zero<const SEEDED_CELLS: bool>(
        &self,
        s: &Scratch,
        hits: &mut impl HitSink,
        max_idf: f64,
        mut note: impl FnMut(u32, f64, f64),
    ) {
        let mut least = KeptEvidence::of(self, hits, max_idf);
        for &slot in s.touched() {
            let score = if SEEDED_CELLS {
                evidence(s, slot)
            } else {
                s.get(slot).map(|c| c.0)
            };
            let Some(score) = score else {
                continue;
            };
            if score < least.evidence {
                continue;
            }
            note(slot, 0.0, score);
            hits.push(self.hit_of(slot, 0.0, score, max_idf));
            least.follow(self, hits, max_idf);
        }
    }

    /// [`EnhancedIndex::score`] into a sink (a top-k keeps only the best while scoring), with
    /// the request's name tiers ([`EnhancedIndex::tiers`]). The scratch keeps each touched
    /// tool's evidence until the next pass.
    pub(super) fn score_into(
        &self,
        q: &ParsedQuery,
        tiers: &FxHashMap<u32, u8>,
        hits: &mut impl HitSink,
    ) -> Pass {
        let p = &self.params;
        let terms = self.scored_terms(q);
        // Each required word must be a term some tool has (looked up in a set: a request of
        // thousands of `+word`s stays linear).
        let required_missing = q.terms.iter().any(|t| t.required) && {
            let known_required: FxHashSet<&str> = terms
                .iter()
                .filter(|t| t.2)
                .map(|t| &*self.store.term_text[t.0 as usize])
                .collect();
            q.terms
                .iter()
                .any(|t| t.required && !known_required.contains(t.term.as_str()))
        };
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        s.begin(self.store.docs.len());
        let required: Vec<u32> = terms.iter().filter(|t| t.2).map(|t| t.0).collect();
        let mut cache = self.tf_cache.borrow_mut();
        // A required word is never left to the tools others find; named tools get the
        // request's common words as the tools its rarer words find do.
        let each = terms.iter().map(|t| (t.0, t.1, t.2));
        self.accumulate_terms(s, &mut cache, each, tiers.keys().copied());
        drop(cache);
        let server_ok = |slot: u32| {
            q.servers.is_empty()
                || self.store.docs[slot as usize]
                    .as_ref()
                    .and_then(|d| d.server_key.as_ref())
                    .is_some_and(|k| q.servers.contains(k))
        };
        let has_required = |slot: u32| {
            required
                .iter()
                .all(|&t| self.store.posting(t, slot).is_some())
        };
        hits.expect(s.touched().len() + tiers.len());
        let max_idf = self.idf_unknown();
        // The best-scoring tool and its evidence (what the abstain rules look at).
        let mut best_raw = 0.0f64;
        let mut best_slot: Option<u32> = None;
        let mut best_score = f64::NEG_INFINITY;
        // A touched tool that passes the filters, at its name tier, with its evidence: is it
        // the best tool so far (what the abstain rules look at)?
        let mut note = |slot: u32, tier: f64, score: f64| {
            if tier * 1e6 + score > best_score {
                best_score = tier * 1e6 + score;
                best_raw = score;
                best_slot = Some(slot);
            }
        };
        // Its hit. The filters and tiers are looked at only when the request has some (most
        // have none).
        let hit = |slot: u32, tier: f64, score: f64| self.hit_of(slot, tier, score, max_idf);
        let plain = Self::plain_request(q, tiers);
        if required_missing {
            // A required word no tool has: nothing matches.
        } else if plain {
            // The usual request (no filter, no name): every touched tool, at tier 0.
            self.push_tier_zero::<false>(s, hits, max_idf, &mut note);
        } else if q.servers.is_empty() && required.is_empty() {
            // Names only (no filter): the named tools first, each at its tier, then every
            // other touched tool as in the plain pass (at tier 0, skipped below `least`).
            // Their cells are read as seeded meanwhile, so the loop below passes them by
            // without a look-up, and then given their evidence back (what the pass leaves in
            // the scratch is read again).
            let mut named: Vec<(u32, f64)> = Vec::with_capacity(tiers.len());
            for (&slot, &tier) in tiers {
                let tier = f64::from(tier);
                match evidence(s, slot) {
                    Some(score) => {
                        note(slot, tier, score);
                        hits.push(hit(slot, tier, score));
                        named.push((slot, score));
                        s.cell(slot).0 = SEEDED;
                    }
                    None => hits.push(Hit { slot, score: tier }),
                }
            }
            self.push_tier_zero::<true>(s, hits, max_idf, &mut note);
            for (slot, score) in named {
                s.cell(slot).0 = score;
            }
        } else {
            // Filters (and maybe names): a tool at tier 0 whose evidence is below what the
            // sink's floor asks for is passed by before its filters are looked at (as in the
            // plain pass, it would not be kept, nor be the best); the others are looked up.
            let mut least = KeptEvidence::of(self, hits, max_idf);
            for &slot in s.touched() {
                let Some(score) = evidence(s, slot) else {
                    continue;
                };
                let tier = if tiers.is_empty() {
                    0.0
                } else {
                    f64::from(tiers.get(&slot).copied().unwrap_or(0))
                };
                if (tier == 0.0 && score < least.evidence)
                    || !server_ok(slot)
                    || (!required.is_empty() && !has_required(slot))
                {
                    continue;
                }
                note(slot, tier, score);
                hits.push(hit(slot, tier, score));
                least.follow(self, hits, max_idf);
            }
        }
        let names_only = !plain && q.servers.is_empty() && required.is_empty();
        for (&slot, &tier) in tiers.iter().filter(|_| !names_only) {
            if evidence(s, slot).is_none()
                && server_ok(slot)
                && !required_missing
                && (required.is_empty() || has_required(slot))
            {
                hits.push(Hit {
                    slot,
                    score: tier as f64,
                });
            }
        }
        // Abstain: nothing named, the best tool's evidence is weak, and it covers little of
        // the request (a short request fully matched in a small index is no reason to).
        if tiers.is_empty() && q.servers.is_empty() {
            let conf = confidence(best_raw / self.idf_unknown(), p.confidence_scale);
            if conf < p.abstain_confidence {
                let best_cov = best_slot.map_or(0.0, |slot| self.coverage(q, &terms, slot));
                if best_cov < p.abstain_coverage {
                    return Pass {
                        abstains: true,
                        plain,
                    };
                }
            }
        }
        Pass {
            abstains: false,
            plain,
        }
    }

    /// The request's mass a tool covers: the weighted IDF of each term it has that covers
    /// mass (`terms` as the scoring pass reads them), added in that order.
    fn covered_mass(&self, terms: &[(u32, f64, bool, bool)], slot: u32) -> f64 {
        let mut mass = 0.0;
        for &(id, w, _, covers) in terms {
            if covers && self.store.posting(id, slot).is_some() {
                mass += self.term_weights(id, w).idf;
            }
        }
        mass
    }

    /// The share of the request's IDF mass a tool matches (`terms` as
    /// [`EnhancedIndex::scored_terms`] gives them): the `coverage` of `explain`, read by the
    /// default abstain rule and the crowd rule.
    pub(super) fn coverage(
        &self,
        q: &ParsedQuery,
        terms: &[(u32, f64, bool, bool)],
        slot: u32,
    ) -> f64 {
        self.covered_mass(terms, slot) / self.query_mass(q).max(1e-9)
    }

    /// The crowd rule ([`super::Params::crowd_gap`]) on a request's final hits: whether it is
    /// answered with nothing because no tool stands out of the crowd of weak matches, and the
    /// best matches little of the request.
    pub(super) fn crowd_abstains(&self, q: &ParsedQuery, hits: &[Hit]) -> bool {
        let p = &self.params;
        if !p.crowd_rule_on() || !q.servers.is_empty() || hits.len() < CROWD_RANK {
            return false;
        }
        let top = best_k(hits.iter().copied(), CROWD_RANK);
        let (best, crowd) = (top[0].score, top[CROWD_RANK - 1].score);
        best < p.crowd_confidence.min(1.0)
            && best - p.crowd_weight * crowd < p.crowd_gap
            && self.coverage(q, &self.scored_terms(q), top[0].slot) < p.crowd_coverage
    }

    /// The query's IDF mass: what a tool matching every query word would cover. Words of the
    /// query count whether or not any tool has them (an unknown word is evidence that no tool
    /// fits), except CJK bigrams no tool has (splitting artifacts such as `送消`); lexicon
    /// expansions count at their weight; typo corrections do not.
    pub(super) fn query_mass(&self, q: &ParsedQuery) -> f64 {
        q.terms
            .iter()
            .filter_map(|t| {
                let known = self
                    .store
                    .term_id(&t.term)
                    .filter(|&id| !self.store.postings[id as usize].is_empty());
                match (&*t.origin, known) {
                    ("query", Some(id)) => Some(t.weight * self.idf(id)),
                    ("query", None) if !has_cjk(&t.term) => {
                        Some(t.weight * self.params.unknown_weight * self.idf_unknown())
                    }
                    ("lexicon", Some(id)) => Some(t.weight * self.idf(id)),
                    _ => None,
                }
            })
            .sum()
    }

    pub(super) fn idf_unknown(&self) -> f64 {
        let n = self.store.live as f64;
        (1.0 + (n + 0.5) / 0.5).ln()
    }
}

/// The BM25F formula: a term's contribution in one tool from its field frequencies `tfs` and
/// the tool's field length normalizations `norm` (explain and the uncached terms come here; a
/// term with kept saturations has the same `saturation` of the same `weighted_tf`).
#[inline]
fn bm25f(tw: &TermWeights, k1: f64, tfs: &[u16; FIELDS], norm: &[f64; FIELDS]) -> f64 {
    saturate(tw, k1, weighted_tf(&tw.fields, tfs, norm))
}

/// BM25's saturation of a pseudo-frequency `tfw`, times the term's `w · idf`.
#[inline]
fn saturate(tw: &TermWeights, k1: f64, tfw: f64) -> f64 {
    tw.idf * saturation(k1, tfw)
}

/// BM25's saturation of a pseudo-frequency `tfw` (what the cache keeps a posting).
#[inline]
fn saturation(k1: f64, tfw: f64) -> f64 {
    tfw / (k1 + tfw)
}

/// `Σ_f weight_f · tf_f · norm_f`: a term's BM25F pseudo-frequency in one tool.
pub(super) fn weighted_tf(
    weights: &[f64; FIELDS],
    tfs: &[u16; FIELDS],
    norm: &[f64; FIELDS],
) -> f64 {
    weights
        .iter()
        .zip(tfs)
        .zip(norm)
        .filter(|((_, tf), _)| **tf > 0)
        .map(|((w, tf), n)| w * f64::from(*tf) * n)
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enhanced::Params;
    use crate::ToolDoc;
    use proptest::prelude::*;

    fn index_with_scale(scale: f64) -> EnhancedIndex {
        let tools = vec![ToolDoc {
            name: "one_tool".into(),
            description: "a tool".into(),
            ..ToolDoc::default()
        }];
        let params = Params {
            confidence_scale: scale,
            ..Params::default()
        };
        EnhancedIndex::build(tools, params, 512).unwrap()
    }

    /// A plain pass into a top-k of any size abstains exactly when a pass collecting every
    /// hit does, at every coverage cut (the rule reads the best tool's covered mass, so the
    /// top-k pass must find the same best tool while it skips tools below its floor).
    #[test]
    fn a_top_k_pass_abstains_as_a_pass_of_every_hit() {
        use crate::collector::TopK;
        let words = [
            "file", "folder", "note", "event", "message", "archive", "list", "send",
        ];
        let tools: Vec<ToolDoc> = (0..80)
            .map(|i| ToolDoc {
                name: format!("tool_{i}"),
                description: (0..1 + i % 5)
                    .map(|j| words[(i * 3 + j * 5) % words.len()])
                    .collect::<Vec<_>>()
                    .join(" "),
                ..ToolDoc::default()
            })
            .collect();
        let requests = [
            "send a note",
            "archive the folder and list every event",
            "file message zzzz qqqq",
            "list",
            "note note folder unknown words here",
        ];
        let mut decisions = [0usize; 2];
        for cut in [0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95, 1.0] {
            let params = Params {
                abstain_confidence: 1.0,
                abstain_coverage: cut,
                ..Params::default()
            };
            let i = EnhancedIndex::build(tools.clone(), params, 512).unwrap();
            for request in requests {
                let q = i.parse_query(request);
                let tiers = i.tiers(&q);
                assert!(EnhancedIndex::plain_request(&q, &tiers), "{request}");
                let mut every = Vec::new();
                let want = i.score_into(&q, &tiers, &mut every).abstains;
                decisions[usize::from(want)] += 1;
                for k in 1..=6 {
                    let mut top = TopK::new(k);
                    let got = i.score_into(&q, &tiers, &mut top).abstains;
                    assert_eq!(got, want, "{request:?} cut {cut} k {k}");
                }
            }
        }
        // Both decisions were taken.
        assert!(decisions[0] > 0 && decisions[1] > 0, "{decisions:?}");
    }

    /// Forty words `w0x` … `w39x`, none common, and 240 tools named by `name` (from the tool's
    /// number and the words) whose descriptions hold more of the words the later the tool, so
    /// better hits keep arriving after a top-k is full (a pass must not skip them).
    fn forty_word_tools(name: impl Fn(usize, &[String]) -> String) -> Vec<ToolDoc> {
        let words: Vec<String> = (0..40).map(|w| format!("w{w}x")).collect();
        (0..240)
            .map(|i| ToolDoc {
                name: name(i, &words),
                description: (0..1 + i / 30)
                    .map(|j| words[(i * 7 + j * 3) % 40].as_str())
                    .collect::<Vec<_>>()
                    .join(" "),
                ..ToolDoc::default()
            })
            .collect()
    }

    /// Hits as `(slot, score bits)`, to compare them to the bit.
    fn bits(hits: &[Hit]) -> Vec<(u32, u64)> {
        hits.iter().map(|h| (h.slot, h.score.to_bits())).collect()
    }

    /// A request that names tools (no filter) into a top-k of any size keeps the first k
    /// hits, to the bit, of every tool's hit worked out from the evidence the pass leaves
    /// (named tools at their tier, with evidence or without), and the named tools keep their
    /// evidence in the scratch (the term-by-term sum).
    #[test]
    fn a_named_request_into_a_top_k_keeps_the_best_of_every_hit() {
        use crate::collector::{top_k, TopK};
        let tools = forty_word_tools(|i, w| format!("{}_{}_{i}", w[i % 40], w[(i / 40) % 40]));
        let n = |k: usize| tools[k].name.clone();
        let requests = [
            format!("{} please w3x the w10x w17x", n(14)),
            format!("use {} and {} for w1x w4x w7x w10x", n(8), n(229)),
            n(12),
            format!("{} with zzzz w21x w24x", n(59)),
            format!("{} w5x w8x w11x w14x w17x w20x", n(6)),
            format!("{} and {} zzzz qqqq w2x", n(3), n(140)),
            // The leaf's words run together: named, with no word of the tool's in the request.
            format!("run {} now w9x w12x", n(21).replace('_', "")),
        ];
        let i = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        let (mut with, mut without) = (0, 0);
        for request in &requests {
            let q = i.parse_query(request);
            let tiers = i.tiers(&q);
            assert!(!tiers.is_empty(), "{request}");
            assert!(!EnhancedIndex::plain_request(&q, &tiers), "{request}");
            for k in 1..=8 {
                let mut top = TopK::new(k);
                i.score_into(&q, &tiers, &mut top);
                let got = top.into_vec();
                let s = i.scratch.borrow();
                let max_idf = i.idf_unknown();
                let tier = |slot: u32| f64::from(tiers.get(&slot).copied().unwrap_or(0));
                let mut every: Vec<Hit> = s
                    .touched()
                    .iter()
                    .filter_map(|&slot| {
                        Some(i.hit_of(slot, tier(slot), evidence(&s, slot)?, max_idf))
                    })
                    .collect();
                for (&slot, &t) in &tiers {
                    match evidence(&s, slot) {
                        Some(e) => {
                            with += 1;
                            let want = direct(&i, &q, slot);
                            assert!(
                                (e - want).abs() <= 1e-12 * want.abs().max(1.0),
                                "{request:?} {slot}"
                            );
                        }
                        None => {
                            without += 1;
                            assert_eq!(direct(&i, &q, slot), 0.0, "{request:?} {slot}");
                            every.push(Hit {
                                slot,
                                score: f64::from(t),
                            });
                        }
                    }
                }
                top_k(&mut every, usize::MAX);
                assert_eq!(
                    bits(&got),
                    bits(&every[..k.min(every.len())]),
                    "{request:?} k {k}"
                );
            }
        }
        // Named tools with evidence and without were both seen.
        assert!(with > 0 && without > 0, "{with} {without}");
    }

    /// A request with filters (required words, servers; with or without names) into a
    /// top-k of any size keeps, to the bit, the first k of all its hits (the same pass into
    /// a list, which has no floor and so skips nothing), and abstains alike.
    #[test]
    fn a_filtered_request_into_a_top_k_keeps_the_best_of_every_hit() {
        use crate::collector::{top_k, TopK};
        // Three servers take turns.
        let servers = ["alpha", "beta", "gamma"];
        let mut tools =
            forty_word_tools(|i, w| format!("mcp__{}__{}_{i}", servers[i % 3], w[(i / 3) % 40]));
        // Named by its leaf's words run together (no term of its name in the request), with
        // one word of the request, the last: little evidence, reached after the top-k is full.
        tools.push(ToolDoc::new("mcp__alpha__quiet_leaf", "w39x"));
        let named = tools[14].name.clone();
        let requests = [
            "+w3x w10x w17x".to_owned(),
            "+w5x +w8x w11x w14x".to_owned(),
            "w1x +w4x w7x w10x w13x w16x".to_owned(),
            "server:beta w3x w10x w17x w24x".to_owned(),
            "server:gamma +w2x w9x w16x".to_owned(),
            format!("{named} +w3x w10x"),
            format!("{named} server:alpha w3x w6x"),
            "+w3x".to_owned(),
            "+zzzz w3x".to_owned(),
            "server:alpha w1x w4x w7x w10x w13x w16x w19x w39x quietleaf".to_owned(),
        ];
        let i = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        let mut kept = 0;
        for request in &requests {
            let q = i.parse_query(request);
            let tiers = i.tiers(&q);
            assert!(!EnhancedIndex::plain_request(&q, &tiers), "{request}");
            let mut every: Vec<Hit> = Vec::new();
            let all = i.score_into(&q, &tiers, &mut every);
            top_k(&mut every, usize::MAX);
            for k in 1..=8 {
                let mut top = TopK::new(k);
                let pass = i.score_into(&q, &tiers, &mut top);
                assert_eq!(pass.abstains, all.abstains, "{request:?} k {k}");
                let got = top.into_vec();
                kept += got.len();
                assert_eq!(
                    bits(&got),
                    bits(&every[..k.min(every.len())]),
                    "{request:?} k {k}"
                );
            }
        }
        assert!(kept > 100, "{kept}");
    }

    /// An index of `n` tools: the first three have "rotate" and "record", the next `with - 3`
    /// only "record", the others neither.
    fn record_index(n: usize, with: usize) -> EnhancedIndex {
        let tools: Vec<ToolDoc> = (0..n)
            .map(|k| ToolDoc {
                name: format!("tool_{k}"),
                description: match k {
                    _ if k < 3 => "rotate the record".to_owned(),
                    _ if k < with => "keep the record".to_owned(),
                    _ => "ledger archive".to_owned(),
                },
                ..ToolDoc::default()
            })
            .collect();
        EnhancedIndex::build(tools, Params::default(), 512).unwrap()
    }

    /// A request's evidence in a slot, term by term from the postings: the terms that are not
    /// common first, then the common ones.
    fn direct(i: &EnhancedIndex, q: &ParsedQuery, slot: u32) -> f64 {
        let ids: Vec<(u32, f64)> = q
            .terms
            .iter()
            .filter_map(|t| Some((i.store.term_id(&t.term)?, t.weight)))
            .collect();
        let (common, rare): (Vec<_>, Vec<_>) = ids.iter().partition(|(id, _)| i.is_common(*id));
        let mut sum = 0.0;
        for &(id, w) in rare.iter().chain(&common) {
            if let Some(tfs) = i.store.posting(id, slot) {
                sum += i.term_score(&i.term_weights(id, w), slot, tfs);
            }
        }
        sum
    }

    /// A word more than a quarter of the tools (and at least 32) have adds its evidence only
    /// to the tools the request's rarer words find, each scored as a full pass would; alone,
    /// or required, it finds every tool that has it; a tool the request names gets it too.
    #[test]
    fn common_words_score_the_tools_rarer_words_find() {
        // (tools, of them with "record", hits for "rotate the record")
        let cases = [
            (100, 60, 3),
            (100, 25, 25),
            (100, 31, 31),
            (120, 32, 3),
            (40, 20, 20),
        ];
        for (n, with, want) in cases {
            let i = record_index(n, with);
            let q = i.parse_query("rotate the record");
            let hits = i.score(&q);
            assert_eq!(hits.len(), want, "{n} tools, {with} with it");
            for h in &hits {
                let e = direct(&i, &q, h.slot);
                assert_eq!(
                    h.score.to_bits(),
                    i.hit_of(h.slot, 0.0, e, i.idf_unknown()).score.to_bits()
                );
            }
            // `explain` says why a tool with the common word alone has no score.
            let why = i.explain("rotate the record", "tool_10").unwrap();
            assert_eq!(why.score == 0.0, want == 3);
            assert_eq!(
                why.filtered
                    .is_some_and(|f| f.contains("a quarter of the tools")),
                want == 3,
                "{n} tools, {with} with it"
            );
            // Alone, or required, the common word finds every tool that has it.
            assert_eq!(i.score(&i.parse_query("record")).len(), with);
            assert_eq!(i.score(&i.parse_query("+record rotate")).len(), with);
            // A tool named by the request, with only the common word: its name tier and the
            // word's evidence.
            let q = i.parse_query("tool5 rotate the record");
            let tier = i.tiers(&q)[&5];
            let hit = i.score(&q).into_iter().find(|h| h.slot == 5).unwrap();
            let e = direct(&i, &q, 5);
            assert!(e > 0.0);
            assert_eq!(
                hit.score.to_bits(),
                i.hit_of(5, f64::from(tier), e, i.idf_unknown())
                    .score
                    .to_bits()
            );
            // A named tool without any of the words stands at its tier.
            let last = n as u32 - 1;
            let q = i.parse_query(&format!("tool{last} rotate the record"));
            let tier = i.tiers(&q)[&last];
            assert_eq!(direct(&i, &q, last), 0.0);
            let hit = i.score(&q).into_iter().find(|h| h.slot == last).unwrap();
            assert_eq!(hit.score, f64::from(tier), "{n} tools");
        }
    }

    proptest! {
        /// Evidence below the least kept evidence for a floor gives a tier-0 score below that
        /// floor, whatever the tie-break (up to its largest, 1e-9), floors near 0 and at the
        /// cap included.
        #[test]
        fn evidence_below_the_least_kept_scores_below_the_floor(
            floor in prop_oneof![0.0f64..1.0, Just(1e-9), Just(3e-9), Just(0.999_999), Just(0.999_998_5)],
            scale in prop_oneof![0.01f64..20.0, Just(1.0)],
            max_idf in 0.01f64..50.0,
            below in 0.0f64..1.0,
        ) {
            let i = index_with_scale(scale);
            let least = i.least_kept_evidence(floor, max_idf);
            if least == f64::NEG_INFINITY {
                return Ok(());
            }
            prop_assert!(least > 0.0);
            // Evidence from 0 up to just under the least kept.
            for raw in [below * least, least * (1.0 - 1e-15), least - least * f64::EPSILON] {
                if raw < least {
                    let c = confidence(raw / max_idf, scale);
                    prop_assert!((c + 1e-9).min(0.999_999) < floor, "{raw} {least} {c} {floor}");
                }
            }
        }
    }
}
