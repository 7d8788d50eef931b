//! Where scores are gathered and kept: a per-slot scratch accumulator stamped with a query
//! epoch (so nothing is cleared between queries and only touched slots are visited; enhanced
//! scoring's, while compat keeps dense sums of its own), the sinks a scoring pass pushes hits
//! into, and the one top-k: score descending, then slot ascending (index order).

use std::cmp::Ordering;

/// One search result: a slot and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub slot: u32,
    pub score: f64,
}

/// Extra entries a per-slot scratch table may keep beyond twice what a query needs.
pub const SCRATCH_SLACK: usize = 4096;

/// Size a per-slot scratch table for `need` entries: grown with `fill`, and handed back to
/// the allocator (cut to `need`) once it holds more than twice that plus [`SCRATCH_SLACK`],
/// so an index that shrank (removals, compaction) does not keep its largest query's scratch.
/// Entries below `need` are left as they are.
pub fn fit<T: Clone>(table: &mut Vec<T>, need: usize, fill: T) {
    if table.len() < need {
        table.resize(need, fill);
    } else if table.len() > need.saturating_mul(2).saturating_add(SCRATCH_SLACK) {
        table.truncate(need);
        table.shrink_to_fit();
    }
}

/// A per-slot accumulator cell that carries the epoch of the query that last wrote it.
pub trait Cell: Copy {
    /// The epoch stamp.
    fn epoch(&self) -> u32;
    /// A zeroed cell stamped with `epoch`.
    fn fresh(epoch: u32) -> Self;
    /// The cell as the query of `epoch` reads it: itself if that query wrote it, else
    /// [`Cell::fresh`]. A cell type may give a form without a branch (whether a posting's
    /// tool was touched before is a coin toss to the branch predictor).
    #[inline]
    fn renew(self, epoch: u32) -> Self {
        if self.epoch() == epoch {
            self
        } else {
            Self::fresh(epoch)
        }
    }
}

/// Epoch-stamped per-slot scratch plus the list of slots a query touched.
#[derive(Debug)]
pub struct Accumulator<C> {
    cells: Vec<C>,
    epoch: u32,
    /// The touched slots in its first `touched_len` entries; one longer than `cells`, so a
    /// slot is written at the end of the list with no test for room (a query touches each
    /// slot once at most).
    touched: Vec<u32>,
    touched_len: usize,
}

impl<C> Default for Accumulator<C> {
    fn default() -> Self {
        Self {
            cells: Vec::new(),
            epoch: 0,
            touched: Vec::new(),
            touched_len: 0,
        }
    }
}

impl<C: Cell> Accumulator<C> {
    /// Start a query over `slots` slots: a new epoch (cells of older epochs read as empty).
    pub fn begin(&mut self, slots: usize) {
        fit(&mut self.cells, slots, C::fresh(0));
        // One entry more than the cells: once every slot is touched, a posting of a slot
        // touched before is still written past the list's end.
        fit(&mut self.touched, self.cells.len() + 1, 0);
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.cells.iter_mut().for_each(|c| *c = C::fresh(0));
            self.epoch = 1;
        }
        self.touched_len = 0;
    }

    /// How many cells it has room for.
    pub fn held(&self) -> usize {
        self.cells.capacity()
    }

    /// The current query's epoch.
    pub fn epoch(&self) -> u32 {
        self.epoch
    }

    /// The slot's cell for this query, zeroed and recorded as touched on first use.
    #[inline]
    pub fn cell(&mut self, slot: u32) -> &mut C {
        let c = &mut self.cells[slot as usize];
        if c.epoch() != self.epoch {
            *c = C::fresh(self.epoch);
            self.touched[self.touched_len] = slot;
            self.touched_len += 1;
        }
        c
    }

    /// [`Accumulator::cell`] over a run of slots: `f` gets each slot's cell (zeroed and
    /// recorded as touched on first use) with the item that came with the slot. One call for a
    /// whole posting list holds the table and the epoch in registers, where a loop of `cell`
    /// calls reads them again at every slot. No branch depends on whether a slot was touched
    /// before: the slot is written at the end of the touched list every time and the list
    /// grows by one only on first use, and the cell is [`Cell::renew`]ed.
    #[inline]
    pub fn update_each<T>(
        &mut self,
        items: impl IntoIterator<Item = (u32, T)>,
        mut f: impl FnMut(&mut C, T),
    ) {
        let (cells, touched, epoch) = (&mut self.cells[..], &mut self.touched[..], self.epoch);
        let mut n = self.touched_len;
        for (slot, item) in items {
            let c = &mut cells[slot as usize];
            let first = c.epoch() != epoch;
            touched[n] = slot;
            n += usize::from(first);
            *c = c.renew(epoch);
            f(c, item);
        }
        self.touched_len = n;
    }

    /// [`Accumulator::update_each`] for a run of strictly ascending slots (a posting list):
    /// when the query has touched no slot yet, every cell is stale, so each is made fresh
    /// without being read or tested; otherwise [`Accumulator::update_each`].
    #[inline]
    pub fn update_ascending<T>(
        &mut self,
        items: impl IntoIterator<Item = (u32, T)>,
        mut f: impl FnMut(&mut C, T),
    ) {
        if self.touched_len != 0 {
            return self.update_each(items, f);
        }
        let (cells, touched, epoch) = (&mut self.cells[..], &mut self.touched[..], self.epoch);
        let mut n = 0;
        let mut before: Option<u32> = None;
        for (slot, item) in items {
            debug_assert!(before < Some(slot), "slots must be strictly ascending");
            before = Some(slot);
            let c = &mut cells[slot as usize];
            *c = C::fresh(epoch);
            touched[n] = slot;
            n += 1;
            f(c, item);
        }
        self.touched_len = n;
    }

    /// [`Accumulator::update_each`] for the cells this query has already touched: `f` gets
    /// every slot's cell with whether this query touched it, and must leave one it has not
    /// touched as a reader sees it (such a cell is read as empty whatever it holds, so adding
    /// zero to it will do; no slot becomes touched). So the caller may add without a branch.
    #[inline]
    pub fn update_touched<T>(
        &mut self,
        items: impl IntoIterator<Item = (u32, T)>,
        mut f: impl FnMut(&mut C, T, bool),
    ) {
        let (cells, epoch) = (&mut self.cells[..], self.epoch);
        for (slot, item) in items {
            let c = &mut cells[slot as usize];
            let touched = c.epoch() == epoch;
            f(c, item, touched);
        }
    }

    /// The slot's cell if this query touched it.
    #[inline]
    pub fn get(&self, slot: u32) -> Option<&C> {
        self.cells
            .get(slot as usize)
            .filter(|c| c.epoch() == self.epoch)
    }

    /// The slot's cell as stored (any epoch), for in-place use after scoring.
    #[inline]
    pub fn raw(&mut self, slot: u32) -> &mut C {
        &mut self.cells[slot as usize]
    }

    /// Slots touched by this query, in first-touch order.
    pub fn touched(&self) -> &[u32] {
        &self.touched[..self.touched_len]
    }

    /// Touched slots and the cells, for a pass that reads both.
    pub fn parts(&mut self) -> (&[u32], &mut [C]) {
        (&self.touched[..self.touched_len], &mut self.cells)
    }
}

/// The rank order: score descending (with `total_cmp`, so the order is total even with NaN),
/// then slot ascending.
pub fn rank_order(a: &Hit, b: &Hit) -> Ordering {
    b.score.total_cmp(&a.score).then(a.slot.cmp(&b.slot))
}

/// Up to this many, the best hits are kept in a small sorted buffer, where one comparison
/// turns most hits away; above it, quickselect.
pub const SMALL_K: usize = 32;

/// Keep the `k` best hits, in [`rank_order`].
pub fn top_k(hits: &mut Vec<Hit>, k: usize) {
    if k == 0 {
        hits.clear();
        return;
    }
    if hits.len() > k {
        if k <= SMALL_K {
            *hits = best_k(hits.iter().copied(), k);
            return;
        }
        hits.select_nth_unstable_by(k - 1, rank_order);
        hits.truncate(k);
    }
    hits.sort_unstable_by(rank_order);
}

/// The `k` best of a stream of hits (one per slot), in [`rank_order`], kept in a small
/// sorted buffer: for small `k` over a stream that need not be collected first.
pub fn best_k(hits: impl IntoIterator<Item = Hit>, k: usize) -> Vec<Hit> {
    let mut top = TopK::new(k);
    hits.into_iter().for_each(|h| top.push(h));
    top.into_vec()
}

/// Where a scoring pass puts its hits: all of them ([`Vec`]) or only the best ([`TopK`]).
pub trait HitSink {
    /// About this many hits may follow.
    fn expect(&mut self, _n: usize) {}
    fn push(&mut self, h: Hit);
    /// A hit scoring below this would not be kept (one scoring exactly this still may be), so
    /// a scorer may skip what it can show falls below it.
    fn floor(&self) -> f64 {
        f64::NEG_INFINITY
    }
}

impl HitSink for Vec<Hit> {
    fn expect(&mut self, n: usize) {
        self.reserve(n);
    }
    #[inline]
    fn push(&mut self, h: Hit) {
        Vec::push(self, h);
    }
}

impl HitSink for TopK {
    #[inline]
    fn push(&mut self, h: Hit) {
        TopK::push(self, h);
    }
    #[inline]
    fn floor(&self) -> f64 {
        self.floor
    }
}

/// The push side of [`best_k`]: the `k` best hits seen so far (one per slot), in
/// [`rank_order`].
pub struct TopK {
    k: usize,
    best: Vec<Hit>,
    /// The score of the `k`-th best once there are `k` (`-∞` before, `+∞` when `k` is 0): a
    /// hit scoring below it is not kept.
    floor: f64,
}

impl TopK {
    pub fn new(k: usize) -> Self {
        TopK {
            k,
            best: Vec::with_capacity(k + 1),
            floor: if k == 0 {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            },
        }
    }

    /// Offer a hit. Most hits of a large pass fall below the last kept one: that test (one
    /// comparison with the floor) is inlined at the caller, the insertion is not.
    #[inline(always)]
    pub fn push(&mut self, h: Hit) {
        // `<` on two scores means neither is NaN and `total_cmp` agrees: a cheap first test.
        if h.score < self.floor {
            return;
        }
        let (k, best) = (self.k, &self.best);
        if k == 0 || (best.len() == k && rank_order(&h, &best[k - 1]).is_ge()) {
            return;
        }
        self.insert(h);
    }

    /// Put a hit that belongs among the best in its place.
    #[inline(never)]
    fn insert(&mut self, h: Hit) {
        let best = &mut self.best;
        if best.len() == self.k {
            // Full: the last goes (the new hit ranks above it).
            best.pop();
        }
        // Moved up from the end past the hits it ranks before (the list is short).
        best.push(h);
        let mut at = best.len() - 1;
        while at > 0 && rank_order(&h, &best[at - 1]).is_lt() {
            best[at] = best[at - 1];
            at -= 1;
        }
        best[at] = h;
        if best.len() == self.k {
            self.floor = best[self.k - 1].score;
        }
    }

    /// The kept hits, best first.
    pub fn into_vec(self) -> Vec<Hit> {
        self.best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fit_grows_and_gives_back() {
        // (length before, need, length after)
        let cases = [
            (0, 10, 10),
            (10, 10, 10),
            (10, 3, 10),
            (2 * 100 + SCRATCH_SLACK, 100, 2 * 100 + SCRATCH_SLACK),
            (2 * 100 + SCRATCH_SLACK + 1, 100, 100),
            (50_000, 0, 0),
            (50_000, 30_000, 50_000),
        ];
        for (before, need, after) in cases {
            let mut t = vec![7u8; before];
            fit(&mut t, need, 0);
            assert_eq!(t.len(), after, "{before} {need}");
            if after < before {
                assert!(t.capacity() < before, "{before} {need}: capacity kept");
            }
            assert!(
                t[..before.min(need)].iter().all(|&x| x == 7),
                "{before} {need}"
            );
        }
    }

    #[derive(Clone, Copy)]
    struct C(f64, u32);
    impl Cell for C {
        fn epoch(&self) -> u32 {
            self.1
        }
        fn fresh(epoch: u32) -> Self {
            C(0.0, epoch)
        }
    }

    #[test]
    fn epochs_isolate_queries() {
        let mut a: Accumulator<C> = Accumulator::default();
        a.begin(4);
        a.cell(2).0 += 1.0;
        a.cell(2).0 += 1.0;
        assert_eq!(a.touched(), &[2]);
        assert_eq!(a.get(2).map(|c| c.0), Some(2.0));
        a.begin(4);
        assert!(a.get(2).is_none());
        assert_eq!(a.cell(2).0, 0.0);
    }

    #[test]
    fn floor_is_the_kth_score_once_full() {
        let hit = |slot, score| Hit { slot, score };
        assert_eq!(TopK::new(0).floor(), f64::INFINITY);
        assert_eq!(Vec::<Hit>::new().floor(), f64::NEG_INFINITY);
        let mut top = TopK::new(2);
        top.push(hit(5, 0.5));
        assert_eq!(top.floor(), f64::NEG_INFINITY);
        top.push(hit(6, 0.9));
        assert_eq!(top.floor(), 0.5);
        top.push(hit(7, 0.7));
        assert_eq!(top.floor(), 0.7);
        // A tie at the floor from a lower slot is still kept.
        top.push(hit(4, 0.7));
        assert_eq!(top.into_vec(), vec![hit(6, 0.9), hit(4, 0.7)]);
    }

    #[test]
    fn top_k_is_score_then_slot() {
        let mut h = vec![
            Hit {
                slot: 3,
                score: 1.0,
            },
            Hit {
                slot: 1,
                score: 2.0,
            },
            Hit {
                slot: 0,
                score: 1.0,
            },
            Hit {
                slot: 2,
                score: 0.5,
            },
        ];
        top_k(&mut h, 3);
        assert_eq!(h.iter().map(|h| h.slot).collect::<Vec<_>>(), vec![1, 0, 3]);
        top_k(&mut h, 0);
        assert!(h.is_empty());
    }

    /// Scores from a small set, so ties are common; NaN and both zeros included.
    fn hits() -> impl Strategy<Value = Vec<Hit>> {
        let score = prop::sample::select(vec![0.0, -0.0, 0.5, 1.0, 1.5, 2.0, f64::NAN, -1.0]);
        prop::collection::vec(score, 0..120).prop_map(|scores| {
            scores
                .into_iter()
                .enumerate()
                .map(|(i, score)| Hit {
                    slot: (i as u32 * 7919) % 1009,
                    score,
                })
                .collect()
        })
    }

    fn sorted(mut h: Vec<Hit>) -> Vec<(u32, u64)> {
        h.sort_by(rank_order);
        h.iter().map(|h| (h.slot, h.score.to_bits())).collect()
    }

    proptest! {
        /// Every k, small or large: the first k of a full sort.
        #[test]
        fn top_k_is_a_prefix_of_the_sort(h in hits(), k in 0usize..80) {
            let want: Vec<(u32, u64)> = sorted(h.clone()).into_iter().take(k).collect();
            let mut got = h;
            top_k(&mut got, k);
            prop_assert_eq!(got.iter().map(|h| (h.slot, h.score.to_bits())).collect::<Vec<_>>(), want);
        }

        /// The streaming form: the first k of a full sort, whatever the order of the stream.
        #[test]
        fn best_k_of_a_stream(h in hits(), k in 0usize..40) {
            let want: Vec<(u32, u64)> = sorted(h.clone()).into_iter().take(k).collect();
            let got = best_k(h.into_iter().rev(), k);
            prop_assert_eq!(got.iter().map(|h| (h.slot, h.score.to_bits())).collect::<Vec<_>>(), want);
        }

        /// After every push, the kept hits are the first k of the stream so far, and the floor
        /// is the k-th score once there are k (−∞ before, +∞ for k = 0).
        #[test]
        fn top_k_floor_after_every_push(h in hits(), k in 0usize..12) {
            let mut top = TopK::new(k);
            for i in 0..h.len() {
                top.push(h[i]);
                let want: Vec<(u32, u64)> = sorted(h[..=i].to_vec()).into_iter().take(k).collect();
                let floor = match want.get(k.wrapping_sub(1)) {
                    _ if k == 0 => f64::INFINITY,
                    Some(&(_, bits)) if want.len() == k => f64::from_bits(bits),
                    _ => f64::NEG_INFINITY,
                };
                prop_assert_eq!(top.floor().to_bits(), floor.to_bits());
                prop_assert_eq!(top.best.iter().map(|h| (h.slot, h.score.to_bits())).collect::<Vec<_>>(), want);
            }
        }

        /// A posting list through `update_touched` changes the cells of the slots already
        /// touched, as a loop of `cell` over those slots would, and nothing else: no slot
        /// becomes touched.
        #[test]
        fn update_touched_adds_to_touched_cells_only(
            first in prop::collection::vec((0u32..16, -5i32..5), 0..30),
            second in prop::collection::vec((0u32..16, -5i32..5), 0..30),
        ) {
            let (mut a, mut b) = (Accumulator::<C>::default(), Accumulator::<C>::default());
            for acc in [&mut a, &mut b] {
                acc.begin(16);
                acc.update_each(first.iter().copied(), |c, v| c.0 += f64::from(v));
            }
            a.update_touched(second.iter().copied(), |c, v, touched| {
                c.0 += if touched { f64::from(v) } else { 0.0 }
            });
            for &(slot, v) in &second {
                if b.get(slot).is_some() {
                    b.cell(slot).0 += f64::from(v);
                }
            }
            prop_assert_eq!(a.touched(), b.touched());
            for slot in 0..16 {
                prop_assert_eq!(a.get(slot).map(|c| c.0.to_bits()), b.get(slot).map(|c| c.0.to_bits()));
            }
        }

        /// A run of ascending slots through `update_ascending` leaves the same cells and touched
        /// order as through `update_each`, first in a query or after other runs.
        #[test]
        fn update_ascending_is_update_each(
            before in prop::collection::vec((0u32..16, -5i32..5), 0..10),
            run in prop::collection::btree_map(0u32..16, -5i32..5, 0..16),
        ) {
            let (mut a, mut b) = (Accumulator::<C>::default(), Accumulator::<C>::default());
            for _ in 0..2 {
                a.begin(16);
                b.begin(16);
                a.update_each(before.iter().copied(), |c, v| c.0 += f64::from(v));
                b.update_each(before.iter().copied(), |c, v| c.0 += f64::from(v));
                a.update_ascending(run.iter().map(|(&s, &v)| (s, v)), |c, v| c.0 += f64::from(v));
                b.update_each(run.iter().map(|(&s, &v)| (s, v)), |c, v| c.0 += f64::from(v));
                prop_assert_eq!(a.touched(), b.touched());
                for slot in 0..16 {
                    prop_assert_eq!(a.get(slot).map(|c| c.0.to_bits()), b.get(slot).map(|c| c.0.to_bits()));
                }
            }
        }

        /// A posting list through `update_each` leaves the same cells, touched order and epoch
        /// as a loop of `cell` (a slot twice in one list included), query after query.
        #[test]
        fn update_each_is_a_loop_of_cell(
            lists in prop::collection::vec(prop::collection::vec((0u32..16, -5i32..5), 0..30), 0..6),
            queries in 1usize..4,
        ) {
            let (mut a, mut b) = (Accumulator::<C>::default(), Accumulator::<C>::default());
            for q in 0..queries {
                a.begin(16);
                b.begin(16);
                for list in lists.iter().skip(q) {
                    a.update_each(list.iter().copied(), |c, v| c.0 += f64::from(v));
                    for &(slot, v) in list {
                        b.cell(slot).0 += f64::from(v);
                    }
                }
                prop_assert_eq!(a.touched(), b.touched());
                prop_assert_eq!(a.epoch(), b.epoch());
                for slot in 0..16 {
                    prop_assert_eq!(a.get(slot).map(|c| c.0.to_bits()), b.get(slot).map(|c| c.0.to_bits()));
                }
            }
        }
    }
}
