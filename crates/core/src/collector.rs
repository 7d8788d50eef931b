//! The collector every scorer uses: a per-slot scratch accumulator stamped with a query
//! epoch (so nothing is cleared between queries and only touched slots are visited), and the
//! one top-k: score descending, then slot ascending (index order).

/// One search result: a slot and its score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    pub slot: u32,
    pub score: f64,
}

/// A per-slot accumulator cell that carries the epoch of the query that last wrote it.
pub trait Cell: Copy {
    /// The epoch stamp.
    fn epoch(&self) -> u32;
    /// A zeroed cell stamped with `epoch`.
    fn fresh(epoch: u32) -> Self;
}

/// Epoch-stamped per-slot scratch plus the list of slots a query touched.
#[derive(Debug)]
pub struct Accumulator<C> {
    cells: Vec<C>,
    epoch: u32,
    touched: Vec<u32>,
}

impl<C> Default for Accumulator<C> {
    fn default() -> Self {
        Self {
            cells: Vec::new(),
            epoch: 0,
            touched: Vec::new(),
        }
    }
}

impl<C: Cell> Accumulator<C> {
    /// Start a query over `slots` slots: a new epoch (cells of older epochs read as empty).
    pub fn begin(&mut self, slots: usize) {
        if self.cells.len() < slots {
            self.cells.resize(slots, C::fresh(0));
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.cells.iter_mut().for_each(|c| *c = C::fresh(0));
            self.epoch = 1;
        }
        self.touched.clear();
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
            self.touched.push(slot);
        }
        c
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
        &self.touched
    }

    /// Touched slots and the cells, for a pass that reads both.
    pub fn parts(&mut self) -> (&[u32], &mut [C]) {
        (&self.touched, &mut self.cells)
    }
}

/// Keep the `k` best hits, sorted by score descending then slot ascending. Scores compare
/// with `total_cmp` (so the order is total even with NaN).
pub fn top_k(hits: &mut Vec<Hit>, k: usize) {
    let cmp = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(a.slot.cmp(&b.slot));
    if k == 0 {
        hits.clear();
        return;
    }
    if hits.len() > k {
        hits.select_nth_unstable_by(k - 1, cmp);
        hits.truncate(k);
    }
    hits.sort_unstable_by(cmp);
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
