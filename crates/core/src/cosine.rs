//! The compat cosine pass (SPEC §5): a prepared query's postings summed per tool into dense
//! sums, each sum turned into the cosine (with the CJK guard and the name boost) and handed to
//! a sink. One thread: scoring slot ranges on the rayon pool was measured slower at 10k tools
//! and no faster at 100k on a two-core machine (see the README's benchmark notes).

use crate::collector::{fit, Hit, HitSink};

/// The score a tool gets when the query contains its normalized name.
pub const NAME_BOOST: f64 = 0.75;
/// A CJK-only match needs at least this many query bigrams in the tool.
pub const CJK_MIN_BIGRAM_MATCHES: u32 = 2;

/// One analysed query term (see `ToolIndex::prepare`).
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedTerm {
    /// The stemmed term.
    pub text: String,
    /// Its vocabulary id (`None` when no tool has it).
    pub id: Option<u32>,
    /// Query-side TF × IDF (TF relative to the most frequent query term).
    pub weight: f64,
    /// Occurrences in the query.
    pub count: u32,
    /// Whether it is a CJK bigram (for the CJK guard).
    pub cjk: bool,
}

/// Which scored tools a pass hands on.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Keep {
    /// Those scoring at least this.
    AtLeast(f64),
    /// Those scoring above 0.
    Positive,
    /// Every tool touched or named.
    All,
}

impl Keep {
    #[inline]
    fn qualifies(self, score: f64) -> bool {
        match self {
            Keep::AtLeast(m) => score.partial_cmp(&m) != Some(std::cmp::Ordering::Less),
            Keep::Positive => score > 0.0,
            Keep::All => true,
        }
    }

    /// The score below which nothing qualifies.
    fn bar(self) -> f64 {
        match self {
            Keep::AtLeast(m) => m,
            Keep::Positive | Keep::All => f64::NEG_INFINITY,
        }
    }
}

/// What the CJK guard counts of a tool in one query: its matched CJK bigrams, whether a
/// non-CJK term matched, and whether any term did.
#[derive(Clone, Copy, Default)]
struct Mark {
    cjk: u16,
    other: bool,
    seen: bool,
}

/// One query's scratch: dense per-slot sums, the slots touched in first-touch order, and (in
/// a query with CJK terms) the guard's marks. Only the touched slots are reset, when the next
/// query begins.
#[derive(Default)]
pub(crate) struct Scratch {
    acc: Vec<f64>,
    marks: Vec<Mark>,
    /// `order[..touched]` are the touched slots; `order` holds one entry more than there are
    /// slots, so a first touch is recorded without a capacity check or a branch.
    order: Vec<u32>,
    touched: usize,
    /// Whether the last query wrote marks.
    marked: bool,
}

impl Scratch {
    /// Reset what the last query touched and size for `slots` slots (marks only when `cjk`).
    fn begin(&mut self, slots: usize, cjk: bool) {
        for &slot in &self.order[..self.touched] {
            self.acc[slot as usize] = 0.0;
        }
        if self.marked {
            for &slot in &self.order[..self.touched] {
                self.marks[slot as usize] = Mark::default();
            }
        }
        self.touched = 0;
        self.marked = cjk;
        fit(&mut self.acc, slots, 0.0);
        // One more than the slots: a posting writes its slot one past the last first touch.
        fit(&mut self.order, slots + 1, 0);
        // Marks grow only for a CJK query; any query cuts back marks the index outgrew.
        if cjk || self.marks.len() > slots {
            fit(&mut self.marks, slots, Mark::default());
        }
    }

    /// The most entries any of its per-slot tables has room for.
    #[cfg(test)]
    pub(crate) fn held(&self) -> usize {
        self.acc
            .capacity()
            .max(self.order.capacity())
            .max(self.marks.capacity())
    }

    /// The touched slots, in first-touch order.
    fn touched(&self) -> &[u32] {
        &self.order[..self.touched]
    }

    #[inline]
    fn sum(&self, slot: u32) -> f64 {
        self.acc[slot as usize]
    }

    #[inline]
    fn mark(&self, slot: u32) -> Mark {
        self.marks[slot as usize]
    }

    /// Add a term's postings without CJK marks. Every contribution is positive (a term of
    /// weight 0 is skipped), so a zero sum means "not touched yet".
    #[inline]
    fn add_plain(&mut self, postings: &[(u32, f64)], w: f64, idf: f64) {
        // Locals, so the compiler keeps the tables and the count in registers: through
        // `self` every store might alias the fields and they are reloaded each posting.
        let (acc, order) = (&mut self.acc[..], &mut self.order[..]);
        let mut touched = self.touched;
        for &(slot, tf) in postings {
            let a = &mut acc[slot as usize];
            order[touched] = slot;
            touched += usize::from(*a == 0.0);
            *a += w * (tf * idf);
        }
        self.touched = touched;
    }

    /// Add a term's postings and mark them for the CJK guard (a term of weight 0 still marks).
    fn add_marked(&mut self, postings: &[(u32, f64)], w: f64, idf: f64, cjk: Option<u16>) {
        for &(slot, tf) in postings {
            let m = &mut self.marks[slot as usize];
            if !m.seen {
                m.seen = true;
                self.order[self.touched] = slot;
                self.touched += 1;
            }
            match cjk {
                Some(count) => m.cjk = m.cjk.saturating_add(count),
                None => m.other = true,
            }
            self.acc[slot as usize] += w * (tf * idf);
        }
    }
}

/// One query's cosine pass over an index's tables.
pub(crate) struct Pass<'a> {
    /// Postings by term id, sorted by slot.
    pub postings: &'a [Vec<(u32, f64)>],
    pub idf: &'a [f64],
    /// `‖d‖` by slot.
    pub norms: &'a [f64],
    pub terms: &'a [PreparedTerm],
    pub qnorm: f64,
    pub has_cjk: bool,
    /// The name-boosted slots, sorted, each once.
    pub boosted: &'a [u32],
    /// How many slots the index has (every posting's slot is below it).
    pub slots: u32,
    pub keep: Keep,
}

impl Pass<'_> {
    /// Every hit (once each, in no particular order) into `sink`: the postings into the
    /// scratch, then each touched tool's cosine, then the named tools.
    pub(crate) fn run(&self, s: &mut Scratch, sink: &mut impl HitSink) {
        let (qnorm, has_cjk, keep) = (self.qnorm, self.has_cjk, self.keep);
        s.begin(self.slots as usize, has_cjk);
        for t in self.terms {
            let Some(id) = t.id else { continue };
            // A term in every tool (IDF 0) adds nothing; it only matters to the CJK guard.
            if t.weight == 0.0 && !has_cjk {
                continue;
            }
            let (w, idf) = (t.weight, self.idf[id as usize]);
            let postings = &self.postings[id as usize];
            if has_cjk {
                let count = t.count.min(u16::MAX as u32) as u16;
                s.add_marked(postings, w, idf, t.cjk.then_some(count));
            } else {
                s.add_plain(postings, w, idf);
            }
        }
        let boosted = self.boosted;
        let score_of = |s: &Scratch, slot: u32| {
            let denom = qnorm * self.norms[slot as usize];
            // Rounding can put a perfect match a hair above 1; clamp (well within the 1e-9 parity tolerance).
            let score = if denom == 0.0 {
                0.0
            } else {
                (s.sum(slot) / denom).min(1.0)
            };
            let guarded = has_cjk && {
                let m = s.mark(slot);
                u32::from(m.cjk) < CJK_MIN_BIGRAM_MATCHES && !m.other
            };
            if guarded && score > 0.0 {
                0.0
            } else {
                score
            }
        };
        sink.expect(s.touched + boosted.len());
        // A tool whose sum is below `cut × ‖d‖` scores below both the bar and what the sink
        // keeps, so its division is skipped. The cut sits 1e-12 (relative) under the bar, far
        // more than the few roundings of the score, so no tool that could be kept (a tie at
        // the bar included) is skipped.
        let cut_of = |floor: f64| keep.bar().max(floor) * qnorm * (1.0 - 1e-12);
        let mut cut = cut_of(sink.floor());
        for &slot in s.touched() {
            if !boosted.is_empty() && boosted.binary_search(&slot).is_ok() {
                continue;
            }
            if s.sum(slot) < cut * self.norms[slot as usize] {
                continue;
            }
            let score = score_of(s, slot);
            if keep.qualifies(score) {
                sink.push(Hit { slot, score });
                cut = cut_of(sink.floor());
            }
        }
        // Name boost: a named tool scores at least NAME_BOOST.
        for &slot in boosted {
            let touched = if has_cjk {
                s.mark(slot).seen
            } else {
                s.sum(slot) != 0.0
            };
            let base = if touched { score_of(s, slot) } else { 0.0 };
            let score = base.max(NAME_BOOST);
            if keep.qualifies(score) {
                sink.push(Hit { slot, score });
            }
        }
    }
}
