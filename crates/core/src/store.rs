//! The slot store both scorers keep their tools in: documents by slot, the name → slot map,
//! the live count, the term vocabulary and per-term postings sorted by slot, plus linking,
//! unlinking, compaction of slots and of dead terms under churn, generations and the
//! unique-name rule. A scorer keeps only its own document analysis and formula on top (`D`
//! is its per-tool record, `P` its per-posting payload).

use hashbrown::HashTable;
use rustc_hash::FxHashSet;

use crate::error::{ErrorCode, IndexError};
use crate::text::{hash_text, same_text};

/// What the store needs to know about a scorer's per-tool record.
pub trait SlotDoc {
    /// The tool's name (unique in the store).
    fn name(&self) -> &str;
    /// The term ids this tool is posted under.
    fn term_ids(&self) -> impl Iterator<Item = u32> + '_;
    /// Renumber the record's term ids by an old → new map (see
    /// [`SlotStore::maybe_compact_terms`]; every id the record holds is live, so none maps
    /// to `u32::MAX`).
    fn remap_terms(&mut self, map: &[u32]);
}

/// Compaction starts once this many slots are empty (and more than half are).
pub const COMPACT_MIN_EMPTY: usize = 64;

/// Term compaction starts once this many terms are dead (posted under by no tool) and the
/// dead outnumber the live ones.
pub const COMPACT_MIN_DEAD_TERMS: usize = 64;

/// The one compaction rule for terms, words and parts: drop the dead ones once there are at
/// least [`COMPACT_MIN_DEAD_TERMS`] and more than the live ones. Each compaction then costs
/// no more than the churn that left that many dead behind, so a change stays cheap on
/// average, and the vocabulary stays within twice the live terms plus the minimum.
pub fn too_many_dead(dead: usize, total: usize) -> bool {
    dead >= COMPACT_MIN_DEAD_TERMS && dead * 2 > total
}

/// Drop the entries of a table by term id whose terms a compaction dropped (`u32::MAX` in
/// its old → new `map`), keeping the others in order: the entry of old id `i` ends at
/// `map[i]`, as the map is monotonic.
pub(crate) fn retain_mapped<T>(table: &mut Vec<T>, map: &[u32]) {
    let mut old = 0;
    table.retain(|_| {
        old += 1;
        map[old - 1] != u32::MAX
    });
}

/// Documents, names, vocabulary and sorted postings shared by every scorer.
#[derive(Debug, Clone)]
pub struct SlotStore<D, P> {
    pub(crate) docs: Vec<Option<D>>,
    /// Live slots by the hash of their tool's name (the name itself is the record's).
    by_name: HashTable<u32>,
    pub(crate) live: usize,
    /// Term ids by the hash of their text (the text is kept once, in `term_text`).
    vocab: HashTable<u32>,
    pub(crate) term_text: Vec<Box<str>>,
    /// Per term, `(slot, payload)` sorted by slot.
    pub(crate) postings: Vec<Vec<(u32, P)>>,
    /// How many terms have an empty posting list (no live tool has them).
    dead_terms: usize,
    pub(crate) generation: u64,
}

impl<D, P> Default for SlotStore<D, P> {
    fn default() -> Self {
        Self {
            docs: Vec::new(),
            by_name: HashTable::new(),
            live: 0,
            vocab: HashTable::new(),
            term_text: Vec::new(),
            postings: Vec::new(),
            dead_terms: 0,
            generation: 0,
        }
    }
}

impl<D: SlotDoc, P> SlotStore<D, P> {
    /// Number of live tools.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// One past the last slot in use (live or empty).
    pub fn slot_count(&self) -> usize {
        self.docs.len()
    }

    /// Increases whenever compaction renumbers slots. Term compaction
    /// ([`SlotStore::maybe_compact_terms`]) leaves it alone: term ids never leave the index
    /// (a [`crate::index::PreparedQuery`] that holds some is only valid until the next
    /// change, as its weights are).
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// Number of terms in the vocabulary, live or dead (dead ones go at the next term
    /// compaction).
    pub fn term_count(&self) -> usize {
        self.term_text.len()
    }

    /// Number of terms some live tool has.
    pub fn live_term_count(&self) -> usize {
        self.term_text.len() - self.dead_terms
    }

    pub fn doc(&self, slot: u32) -> Option<&D> {
        self.docs.get(slot as usize).and_then(Option::as_ref)
    }

    pub fn slot_of(&self, name: &str) -> Option<u32> {
        let docs = &self.docs;
        self.by_name
            .find(hash_text(name), |&s| name_at(docs, s) == Some(name))
            .copied()
    }

    /// Live slots in index order.
    pub fn slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.docs
            .iter()
            .enumerate()
            .filter(|(_, d)| d.is_some())
            .map(|(i, _)| i as u32)
    }

    /// A tool's term texts, in its record's order (empty for an empty slot).
    pub fn tokens(&self, slot: u32) -> Vec<&str> {
        self.doc(slot)
            .map(|d| d.term_ids().map(|t| &*self.term_text[t as usize]).collect())
            .unwrap_or_default()
    }

    /// An estimate of the heap bytes of the store: `doc_bytes` of each live record (what it
    /// holds beyond its own size), the slot table, the postings at `P`'s size, the vocabulary
    /// and the name map (hash-map overhead approximated per entry).
    pub fn heap_bytes(&self, doc_bytes: impl Fn(&D) -> usize) -> usize {
        use std::mem::size_of;
        let docs: usize = self.docs.iter().flatten().map(doc_bytes).sum();
        let postings: usize = self
            .postings
            .iter()
            .map(|p| p.capacity() * size_of::<(u32, P)>() + 24)
            .sum();
        let vocab: usize = self
            .term_text
            .iter()
            .map(|t| t.len() + 16 + 16)
            .sum::<usize>()
            + self.vocab.capacity() * 5;
        docs + self.docs.capacity() * size_of::<Option<D>>()
            + postings
            + vocab
            + self.by_name.capacity() * 5
    }

    /// Room for `n` more tools.
    pub fn reserve(&mut self, n: usize) {
        self.docs.reserve(n);
        let docs = &self.docs;
        self.by_name
            .reserve(n, |&s| name_at(docs, s).map_or(0, hash_text));
    }

    /// A fresh slot at the end.
    pub fn push_slot(&mut self) -> u32 {
        self.docs.push(None);
        (self.docs.len() - 1) as u32
    }

    /// The id of a term, and whether it was new (new terms get an empty posting list).
    pub fn intern(&mut self, term: &str) -> (u32, bool) {
        self.intern_hashed(term, hash_text(term))
    }

    /// [`SlotStore::intern`] of a term whose `hash_text` the caller already has.
    pub fn intern_hashed(&mut self, term: &str, hash: u64) -> (u32, bool) {
        debug_assert_eq!(hash, hash_text(term));
        let text = &self.term_text;
        if let Some(&id) = self
            .vocab
            .find(hash, |&id| same_text(&text[id as usize], term))
        {
            return (id, false);
        }
        let id = self.term_text.len() as u32;
        self.term_text.push(term.into());
        let text = &self.term_text;
        self.vocab
            .insert_unique(hash, id, |&i| hash_text(&text[i as usize]));
        self.postings.push(Vec::new());
        self.dead_terms += 1;
        (id, true)
    }

    /// The id of a known term.
    pub fn term_id(&self, term: &str) -> Option<u32> {
        let text = &self.term_text;
        self.vocab
            .find(hash_text(term), |&id| same_text(&text[id as usize], term))
            .copied()
    }

    /// Post `slot` under `term`, keeping the list sorted (appends in slot order are O(1); a
    /// tool replaced in place goes to its sorted position).
    pub fn post(&mut self, term: u32, slot: u32, payload: P) {
        let p = &mut self.postings[term as usize];
        if p.is_empty() {
            self.dead_terms -= 1;
        }
        if p.last().is_none_or(|&(s, _)| s < slot) {
            p.push((slot, payload));
        } else {
            let at = p.partition_point(|&(s, _)| s < slot);
            p.insert(at, (slot, payload));
        }
    }

    /// `slot`'s payload under `term`, by binary search.
    pub fn posting(&self, term: u32, slot: u32) -> Option<&P> {
        let p = &self.postings[term as usize];
        p.binary_search_by_key(&slot, |&(s, _)| s)
            .ok()
            .map(|i| &p[i].1)
    }

    /// Put a tool's record in its slot (the slot's postings are the caller's to add).
    pub fn occupy(&mut self, slot: u32, doc: D) {
        let hash = hash_text(doc.name());
        let cell = &mut self.docs[slot as usize];
        if let Some(old) = cell.take() {
            // Replaced in place without `vacate`: the old record's name goes with it.
            self.live -= 1;
            self.unname(&old, slot);
        }
        let docs = &self.docs;
        match self
            .by_name
            .find_entry(hash, |&s| name_at(docs, s) == Some(doc.name()))
        {
            // Another slot had this name: the name now means this slot.
            Ok(mut entry) => *entry.get_mut() = slot,
            Err(_) => {
                self.by_name
                    .insert_unique(hash, slot, |&s| name_at(docs, s).map_or(0, hash_text));
            }
        }
        self.docs[slot as usize] = Some(doc);
        self.live += 1;
    }

    /// Drop `slot` from the name table if `doc`'s name maps to it.
    fn unname(&mut self, doc: &D, slot: u32) {
        if let Ok(entry) = self
            .by_name
            .find_entry(hash_text(doc.name()), |&s| s == slot)
        {
            entry.remove();
        }
    }

    /// Take a tool out: its postings and name go, the slot stays (empty) until compaction.
    pub fn vacate(&mut self, slot: u32) -> Option<D> {
        let doc = self.docs.get_mut(slot as usize)?.take()?;
        for t in doc.term_ids() {
            let p = &mut self.postings[t as usize];
            if let Ok(i) = p.binary_search_by_key(&slot, |&(s, _)| s) {
                p.remove(i);
                if p.is_empty() {
                    self.dead_terms += 1;
                }
            }
        }
        self.unname(&doc, slot);
        self.live -= 1;
        Some(doc)
    }

    /// Take several tools out at once ([`SlotStore::vacate`] for each, with each posting list
    /// they share filtered once: removing a server's thousands of tools that share words costs
    /// the length of those lists, not that times the tools). Returns the records taken, with
    /// their slots; empty or unknown slots are left as they are.
    pub fn vacate_many(&mut self, slots: &[u32]) -> Vec<(u32, D)> {
        let mut gone = vec![0u64; self.docs.len().div_ceil(64)];
        let mut taken = Vec::with_capacity(slots.len());
        for &slot in slots {
            let Some(doc) = self.docs.get_mut(slot as usize).and_then(Option::take) else {
                continue;
            };
            gone[slot as usize / 64] |= 1 << (slot % 64);
            self.unname(&doc, slot);
            self.live -= 1;
            taken.push((slot, doc));
        }
        let mut terms: Vec<u32> = taken.iter().flat_map(|(_, d)| d.term_ids()).collect();
        terms.sort_unstable();
        terms.dedup();
        for t in terms {
            let p = &mut self.postings[t as usize];
            let before = p.len();
            p.retain(|&(s, _)| gone[s as usize / 64] & (1 << (s % 64)) == 0);
            if before > 0 && p.is_empty() {
                self.dead_terms += 1;
            }
        }
        taken
    }

    /// Renumber slots densely when more than half of them (and at least
    /// [`COMPACT_MIN_EMPTY`]) are empty. Returns the old → new map (`u32::MAX` for emptied
    /// slots) so the scorer can renumber its own side tables; the generation increases.
    pub fn maybe_compact(&mut self) -> Option<Vec<u32>> {
        let empty = self.docs.len() - self.live;
        if empty < COMPACT_MIN_EMPTY || empty * 2 < self.docs.len() {
            return None;
        }
        let mut map = vec![u32::MAX; self.docs.len()];
        let mut next = 0u32;
        for (i, d) in self.docs.iter().enumerate() {
            if d.is_some() {
                map[i] = next;
                next += 1;
            }
        }
        self.docs.retain(Option::is_some);
        // The map is monotonic, so every posting list stays sorted.
        for p in &mut self.postings {
            for e in p.iter_mut() {
                e.0 = map[e.0 as usize];
            }
        }
        // Names keep their hashes; only the slots they point at move.
        for v in self.by_name.iter_mut() {
            *v = map[*v as usize];
        }
        self.generation += 1;
        Some(map)
    }

    /// Drop the dead terms (no live tool has them) when [`too_many_dead`] says so: the live
    /// ones are renumbered densely, in their order, and the vocabulary, the texts, the
    /// postings and each record's term ids follow. Returns the old → new map (`u32::MAX` for
    /// dropped terms; monotonic, so anything kept in term-id order keeps its order) for the
    /// scorer's own tables by term id. Slots do not move, so the generation stays.
    pub fn maybe_compact_terms(&mut self) -> Option<Vec<u32>> {
        if !too_many_dead(self.dead_terms, self.term_text.len()) {
            return None;
        }
        let mut map = vec![u32::MAX; self.term_text.len()];
        let mut next = 0u32;
        for (m, p) in map.iter_mut().zip(&self.postings) {
            if !p.is_empty() {
                *m = next;
                next += 1;
            }
        }
        retain_mapped(&mut self.term_text, &map);
        retain_mapped(&mut self.postings, &map);
        // The texts keep their hashes: entries stay where they are, with their new ids.
        self.vocab.retain(|id| {
            *id = map[*id as usize];
            *id != u32::MAX
        });
        let text = &self.term_text;
        self.vocab.shrink_to_fit(|&i| hash_text(&text[i as usize]));
        self.term_text.shrink_to_fit();
        self.postings.shrink_to_fit();
        for d in self.docs.iter_mut().flatten() {
            d.remap_terms(&map);
        }
        self.dead_terms = 0;
        Some(map)
    }
}

/// The name of the tool in `slot`, if the slot is live.
fn name_at<D: SlotDoc>(docs: &[Option<D>], slot: u32) -> Option<&str> {
    docs.get(slot as usize)?.as_ref().map(SlotDoc::name)
}

/// A tool record with a name (the store's key).
pub trait Named {
    /// The tool's name.
    fn name(&self) -> &str;
}

/// [`Named`] for records that keep their name in a `name: String` field: the tool record
/// and each scorer's analysed form.
macro_rules! named_by_field {
    ($($t:ty),+ $(,)?) => {$(
        impl $crate::store::Named for $t {
            fn name(&self) -> &str {
                &self.name
            }
        }
    )+};
}
pub(crate) use named_by_field;

/// [`SlotDoc`] for stored records that keep their name in `name` and, in each pair of
/// `terms: Vec<(u32, _)>`, the term id first (both scorers' documents: one copy of the rule
/// that renumbers them).
macro_rules! slot_doc_by_fields {
    ($t:ty) => {
        impl $crate::store::SlotDoc for $t {
            fn name(&self) -> &str {
                &self.name
            }
            fn term_ids(&self) -> impl Iterator<Item = u32> + '_ {
                self.terms.iter().map(|&(t, _)| t)
            }
            fn remap_terms(&mut self, map: &[u32]) {
                for (t, _) in &mut self.terms {
                    *t = map[*t as usize];
                }
            }
        }
    };
}
pub(crate) use slot_doc_by_fields;

/// What a scorer does to its own tables when tools come and go. The add / replace / remove
/// flow over the slot store is written once, in [`upsert`] and [`remove`]; a scorer supplies
/// only its analysis and bookkeeping.
pub(crate) trait Scorer {
    /// The tool record a scorer analyses.
    type Tool: Named;
    /// A tool analysed without touching the index (on any thread), ready to link.
    type Analyzed: Named + Send;
    /// The scorer's per-tool record in the store.
    type Doc: SlotDoc;
    /// The scorer's per-posting payload.
    type Payload;
    /// The slot store the scorer keeps its tools in.
    fn store(&self) -> &SlotStore<Self::Doc, Self::Payload>;
    /// The same, to change.
    fn store_mut(&mut self) -> &mut SlotStore<Self::Doc, Self::Payload>;
    /// Put an analysed tool into a vacant slot: its document, its postings (new terms join
    /// the vocabulary) and the scorer's own entries.
    fn link(&mut self, slot: u32, a: Self::Analyzed);
    /// Empty a slot: the tool's document, postings and the scorer's own entries go.
    fn vacate(&mut self, slot: u32);
    /// Empty several slots at once (as [`Scorer::vacate`] on each; a scorer filters each of
    /// its shared lists once).
    fn vacate_many(&mut self, slots: &[u32]) {
        for &slot in slots {
            self.vacate(slot);
        }
    }
    /// Analyse a tool into a slot `vacate` emptied.
    fn fill(&mut self, slot: u32, tool: Self::Tool);
    /// Append new tools, in order, in new slots.
    fn insert_batch(&mut self, tools: Vec<Self::Tool>);
    /// Renumber slots when enough are empty.
    fn maybe_compact(&mut self);
    /// Drop dead terms when enough are dead ([`SlotStore::maybe_compact_terms`]), with the
    /// scorer's own tables by term id (and any vocabulary of its own, by the same rule).
    fn maybe_compact_terms(&mut self);
    /// Recompute collection statistics after a change.
    fn refresh(&mut self);
}

/// Add or replace tools (a replacement keeps its slot); returns each tool's slot, in input
/// order. Two tools of the batch with one name are an error and nothing changes.
pub(crate) fn upsert<S: Scorer>(
    scorer: &mut S,
    tools: Vec<S::Tool>,
) -> Result<Vec<u32>, IndexError> {
    check_unique(tools.iter().map(Named::name))?;
    let mut slots = Vec::with_capacity(tools.len());
    let mut fresh = Vec::with_capacity(tools.len());
    let mut replaced = Vec::new();
    let mut next = scorer.store().slot_count() as u32;
    for t in tools {
        match scorer.store().slot_of(t.name()) {
            Some(slot) => {
                slots.push(slot);
                replaced.push((slot, t));
            }
            None => {
                slots.push(next);
                next += 1;
                fresh.push(t);
            }
        }
    }
    // Replacements keep their slots: all of them emptied at once (each shared list filtered
    // once), then filled in input order.
    let emptied: Vec<u32> = replaced.iter().map(|(slot, _)| *slot).collect();
    scorer.vacate_many(&emptied);
    for (slot, t) in replaced {
        scorer.fill(slot, t);
    }
    scorer.insert_batch(fresh);
    // A replaced tool may leave terms no tool has any more.
    scorer.maybe_compact_terms();
    scorer.refresh();
    Ok(slots)
}

/// Remove tools by name; returns how many were present. Compacts when enough slots are empty,
/// and drops dead terms when enough are dead.
pub(crate) fn remove<S: Scorer, N: AsRef<str>>(scorer: &mut S, names: &[N]) -> usize {
    let mut slots: Vec<u32> = names
        .iter()
        .filter_map(|name| scorer.store().slot_of(name.as_ref()))
        .collect();
    slots.sort_unstable();
    slots.dedup();
    let removed = slots.len();
    scorer.vacate_many(&slots);
    if removed > 0 {
        scorer.maybe_compact();
        scorer.maybe_compact_terms();
        scorer.refresh();
    }
    removed
}

/// Two tools in one batch with the same name are an error ([`ErrorCode::DuplicateName`],
/// naming up to five of them).
pub fn check_unique<'a>(names: impl IntoIterator<Item = &'a str>) -> Result<(), IndexError> {
    let mut seen = FxHashSet::default();
    let mut dups: Vec<&str> = Vec::new();
    for name in names {
        if !seen.insert(name) && dups.len() < MAX_NAMED_DUPLICATES {
            dups.push(name);
        }
    }
    if dups.is_empty() {
        Ok(())
    } else {
        Err(duplicate_names(&dups))
    }
}

/// How many repeated names a [`ErrorCode::DuplicateName`] error names.
pub(crate) const MAX_NAMED_DUPLICATES: usize = 5;

/// The [`ErrorCode::DuplicateName`] error naming `dups` (repeats, in input order).
pub(crate) fn duplicate_names<S: AsRef<str>>(dups: &[S]) -> IndexError {
    let names: Vec<&str> = dups.iter().map(AsRef::as_ref).collect();
    IndexError::new(
        ErrorCode::DuplicateName,
        format!("tool names must be unique; repeated: {}", names.join(", ")),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    struct D(String, Vec<u32>);
    impl SlotDoc for D {
        fn name(&self) -> &str {
            &self.0
        }
        fn term_ids(&self) -> impl Iterator<Item = u32> + '_ {
            self.1.iter().copied()
        }
        fn remap_terms(&mut self, map: &[u32]) {
            for t in &mut self.1 {
                *t = map[*t as usize];
            }
        }
    }

    #[test]
    fn names_follow_their_slots() {
        let mut s: SlotStore<D, ()> = SlotStore::default();
        for i in 0..3 {
            let slot = s.push_slot();
            s.occupy(slot, D(format!("n{i}"), vec![]));
        }
        // Occupying a live slot replaces its record, and its name with it.
        s.occupy(1, D("m".into(), vec![]));
        assert_eq!(s.slot_of("n1"), None);
        assert_eq!(s.slot_of("m"), Some(1));
        assert_eq!(s.len(), 3);
        assert!(s.vacate(1).is_some());
        assert_eq!(s.slot_of("m"), None);
        assert_eq!(s.len(), 2);
        // The table grows (rehashing by the records' names) and finds every name.
        s.reserve(10);
        for i in 3..5000u32 {
            let slot = s.push_slot();
            s.occupy(slot, D(format!("n{i}"), vec![]));
        }
        assert!((3..5000u32).all(|i| s.slot_of(&format!("n{i}")) == Some(i)));
        assert_eq!(s.slot_of("n0"), Some(0));
        assert_eq!(s.slot_of("nope"), None);
    }

    #[test]
    fn postings_stay_sorted_and_compaction_renumbers() {
        let mut s: SlotStore<D, ()> = SlotStore::default();
        let (t, new) = s.intern("x");
        assert!(new);
        for i in 0..200u32 {
            let slot = s.push_slot();
            s.post(t, slot, ());
            s.occupy(slot, D(format!("n{i}"), vec![t]));
        }
        // Replace slot 5 in place: its posting goes back to its sorted position.
        s.vacate(5);
        s.post(t, 5, ());
        s.occupy(5, D("n5".into(), vec![t]));
        assert!(s.postings[0].windows(2).all(|w| w[0].0 < w[1].0));
        for i in 0..150u32 {
            s.vacate(i);
        }
        let map = s.maybe_compact().expect("compacts");
        assert_eq!(map[150], 0);
        assert_eq!(s.slot_count(), 50);
        assert_eq!(s.slot_of("n199"), Some(49));
        assert_eq!(s.generation(), 1);
        assert!(s.posting(t, 49).is_some());
    }

    #[test]
    fn term_compaction_drops_dead_terms_in_order() {
        let mut s: SlotStore<D, u32> = SlotStore::default();
        let mut slots = Vec::new();
        for i in 0..200u32 {
            // Tool i has its own term and the shared one.
            let (own, _) = s.intern(&format!("w{i}"));
            let (shared, _) = s.intern("shared");
            let slot = s.push_slot();
            s.post(own, slot, i);
            s.post(shared, slot, i);
            s.occupy(slot, D(format!("n{i}"), vec![own, shared]));
            slots.push(slot);
        }
        assert_eq!((s.term_count(), s.live_term_count()), (201, 201));
        assert!(s.maybe_compact_terms().is_none());
        // Below the minimum, or not more dead than live: nothing happens.
        for i in (0..200).step_by(2) {
            s.vacate(i);
        }
        assert_eq!(s.live_term_count(), 101);
        assert!(s.maybe_compact_terms().is_none());
        for i in (1..120).step_by(2) {
            s.vacate(i);
        }
        assert_eq!(s.live_term_count(), 41);
        let map = s.maybe_compact_terms().expect("160 dead, 41 live");
        // Monotonic: the live terms keep their order, densely.
        let kept: Vec<u32> = map.iter().copied().filter(|&m| m != u32::MAX).collect();
        assert_eq!(kept, (0..41).collect::<Vec<_>>());
        assert_eq!((s.term_count(), s.live_term_count()), (41, 41));
        assert_eq!(s.term_id("w0"), None);
        assert_eq!(s.term_id("w198"), None);
        for i in (121..200).step_by(2) {
            let own = s.term_id(&format!("w{i}")).expect("live");
            assert_eq!(s.tokens(i), vec![format!("w{i}").as_str(), "shared"]);
            assert_eq!(s.posting(own, i), Some(&i));
            assert_eq!(s.posting(s.term_id("shared").unwrap(), i), Some(&i));
        }
        // Slots did not move; new terms get the next ids.
        assert_eq!(s.generation(), 0);
        assert_eq!(s.intern("w0"), (41, true));
    }
}
