//! The compat name-boost matcher: which tools' normalized names occur, as raw substrings, in
//! a query.
//!
//! Names are kept by their first bytes: a name of 8 bytes or more under its first 8 bytes
//! (verified with `starts_with` on a hit), a shorter one under all of its bytes (a hit is the
//! name). A query is scanned once, one look-up per byte position for the long names, plus one
//! per short-name length that some short name starting with that byte has. Adding and removing a
//! tool is a hash insert or delete, so the matcher is kept up to date on every change instead
//! of being rebuilt: building it for 10k tools costs about as much as hashing their names.

use hashbrown::HashTable;
use rustc_hash::FxHashMap;

use crate::text::hash_text;

/// Names this long or longer are keyed by their first `HEAD` bytes.
const HEAD: usize = 8;

/// The first 8 bytes of `b` (at least 8 long) as a key.
fn head_key(b: &[u8]) -> u64 {
    let mut k = [0u8; HEAD];
    k.copy_from_slice(&b[..HEAD]);
    u64::from_le_bytes(k)
}

/// All of `b` (1 to 7 bytes) and its length as a key.
fn short_key(b: &[u8]) -> u64 {
    let mut k = [0u8; HEAD];
    k[..b.len()].copy_from_slice(b);
    k[HEAD - 1] = b.len() as u8;
    u64::from_le_bytes(k)
}

/// The slots that share one normalized name: the first inline, any others in a vector (so
/// the usual name, held by one tool, costs no allocation of its own).
#[derive(Debug, Clone)]
struct SlotList {
    /// `u32::MAX` when the list is empty.
    first: u32,
    more: Vec<u32>,
}

impl Default for SlotList {
    fn default() -> Self {
        Self {
            first: u32::MAX,
            more: Vec::new(),
        }
    }
}

impl SlotList {
    fn one(slot: u32) -> Self {
        Self {
            first: slot,
            more: Vec::new(),
        }
    }

    fn is_empty(&self) -> bool {
        self.first == u32::MAX
    }

    fn push(&mut self, slot: u32) {
        if self.is_empty() {
            self.first = slot;
        } else {
            self.more.push(slot);
        }
    }

    fn remove(&mut self, slot: u32) {
        if self.first == slot {
            self.first = self.more.pop().unwrap_or(u32::MAX);
        } else if let Some(i) = self.more.iter().position(|&s| s == slot) {
            self.more.swap_remove(i);
        }
    }

    fn append_to(&self, out: &mut Vec<u32>) {
        if !self.is_empty() {
            out.push(self.first);
            out.extend_from_slice(&self.more);
        }
    }

    fn renumber(&mut self, map: &[u32]) {
        if !self.is_empty() {
            self.first = map[self.first as usize];
        }
        for s in &mut self.more {
            *s = map[*s as usize];
        }
    }
}

/// Normalized names → slots, searchable by substring.
#[derive(Debug, Default, Clone)]
pub(crate) struct NameMatcher {
    /// Name ids, by the hash of their name (each name's text is kept once, in `text`).
    ids: HashTable<u32>,
    /// Name id → name ("" for a free id).
    text: Vec<Box<str>>,
    /// Name id → slots with that name (unordered).
    slots: Vec<SlotList>,
    /// Ids no name uses any more.
    free: Vec<u32>,
    /// First 8 bytes → ids of the names of 8 bytes or more that start with them.
    long: FxHashMap<u64, Vec<u32>>,
    /// A name of 1 to 7 bytes → its id.
    short: FxHashMap<u64, u32>,
    /// By first byte: bit `k - 1` is set when a short name of `k` bytes may start with it.
    short_first: Vec<u8>,
    /// Slots whose normalized name is empty (it occurs in every query).
    empty: Vec<u32>,
}

impl NameMatcher {
    /// The id of a name in use.
    fn id_of(&self, full: &str) -> Option<u32> {
        let text = &self.text;
        self.ids
            .find(hash_text(full), |&id| &*text[id as usize] == full)
            .copied()
    }

    /// `slot` now holds a tool whose normalized name is `full`.
    pub(crate) fn add(&mut self, slot: u32, full: &str) {
        if full.is_empty() {
            self.empty.push(slot);
            return;
        }
        if let Some(id) = self.id_of(full) {
            self.slots[id as usize].push(slot);
            return;
        }
        let id = match self.free.pop() {
            Some(id) => {
                self.text[id as usize] = full.into();
                self.slots[id as usize] = SlotList::one(slot);
                id
            }
            None => {
                self.text.push(full.into());
                self.slots.push(SlotList::one(slot));
                (self.text.len() - 1) as u32
            }
        };
        let text = &self.text;
        self.ids
            .insert_unique(hash_text(full), id, |&i| hash_text(&text[i as usize]));
        let b = full.as_bytes();
        if b.len() >= HEAD {
            self.long.entry(head_key(b)).or_default().push(id);
        } else {
            self.short.insert(short_key(b), id);
            if self.short_first.is_empty() {
                self.short_first = vec![0; 256];
            }
            self.short_first[b[0] as usize] |= 1 << (b.len() - 1);
        }
    }

    /// `slot`, which held a tool whose normalized name is `full`, was emptied.
    pub(crate) fn remove(&mut self, slot: u32, full: &str) {
        if full.is_empty() {
            if let Some(i) = self.empty.iter().position(|&s| s == slot) {
                self.empty.swap_remove(i);
            }
            return;
        }
        let Some(id) = self.id_of(full) else {
            return;
        };
        let list = &mut self.slots[id as usize];
        list.remove(slot);
        if !list.is_empty() {
            return;
        }
        // The last tool with this name went: free its id.
        if let Ok(entry) = self.ids.find_entry(hash_text(full), |&i| i == id) {
            entry.remove();
        }
        self.slots[id as usize] = SlotList::default();
        self.text[id as usize] = Box::default();
        self.free.push(id);
        let b = full.as_bytes();
        if b.len() >= HEAD {
            let key = head_key(b);
            if let Some(ids) = self.long.get_mut(&key) {
                ids.retain(|&x| x != id);
                if ids.is_empty() {
                    self.long.remove(&key);
                }
            }
        } else {
            // `short_first` keeps its bit: it only filters look-ups.
            self.short.remove(&short_key(b));
        }
    }

    /// Renumber slots after compaction (`map[old]` is the new slot; emptied slots were
    /// removed from the matcher before).
    pub(crate) fn renumber(&mut self, map: &[u32]) {
        for list in &mut self.slots {
            list.renumber(map);
        }
        for s in &mut self.empty {
            *s = map[*s as usize];
        }
    }

    /// Append the slots whose normalized name occurs in `haystack` (each once, in no
    /// particular order).
    pub(crate) fn matches(&self, haystack: &str, out: &mut Vec<u32>) {
        out.extend_from_slice(&self.empty);
        if self.ids.is_empty() {
            return;
        }
        let b = haystack.as_bytes();
        let mut found: Vec<u32> = Vec::new();
        for i in 0..b.len() {
            let rest = &b[i..];
            if rest.len() >= HEAD && !self.long.is_empty() {
                if let Some(ids) = self.long.get(&head_key(rest)) {
                    for &id in ids {
                        if rest.starts_with(self.text[id as usize].as_bytes()) {
                            found.push(id);
                        }
                    }
                }
            }
            if let Some(&lens) = self.short_first.get(rest[0] as usize) {
                let mut lens = lens;
                while lens != 0 {
                    let k = lens.trailing_zeros() as usize + 1;
                    lens &= lens - 1;
                    if k > rest.len() {
                        break;
                    }
                    if let Some(&id) = self.short.get(&short_key(&rest[..k])) {
                        found.push(id);
                    }
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        for id in found {
            self.slots[id as usize].append_to(out);
        }
    }

    /// Heap bytes held (approximate, for the index's estimate).
    pub(crate) fn heap_bytes(&self) -> usize {
        let names: usize = self.text.iter().map(|t| t.len() + 16).sum();
        let slots: usize = self
            .slots
            .iter()
            .map(|s| s.more.capacity() * 4 + std::mem::size_of::<SlotList>())
            .sum();
        names
            + slots
            + self.ids.capacity() * 5
            + self.long.len() * 40
            + self.short.len() * 16
            + self.short_first.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(m: &NameMatcher, q: &str) -> Vec<u32> {
        let mut out = Vec::new();
        m.matches(q, &mut out);
        out.sort_unstable();
        out
    }

    #[test]
    fn substrings_long_and_short_and_updates() {
        let mut m = NameMatcher::default();
        m.add(0, "ls");
        m.add(1, "github create issue");
        m.add(2, "github create issue");
        m.add(3, "github create");
        m.add(4, "");
        m.add(5, "é");
        // Raw substrings, not words: "tools" contains "ls".
        assert_eq!(found(&m, "which tools"), vec![0, 4]);
        assert_eq!(
            found(&m, "please github create issue now"),
            vec![1, 2, 3, 4]
        );
        assert_eq!(found(&m, "github creat"), vec![4]);
        assert_eq!(found(&m, "café"), vec![4, 5]);
        m.remove(1, "github create issue");
        m.remove(4, "");
        assert_eq!(found(&m, "github create issue"), vec![2, 3]);
        m.remove(2, "github create issue");
        m.remove(0, "ls");
        assert_eq!(found(&m, "github create issue tools"), vec![3]);
        // A freed id is reused by the next new name.
        m.add(7, "slack send");
        assert_eq!(found(&m, "slack send message tools"), vec![7]);
        let mut map = vec![u32::MAX; 8];
        map[3] = 0;
        map[5] = 1;
        map[7] = 2;
        m.renumber(&map);
        assert_eq!(found(&m, "github create + slack send"), vec![0, 2]);
    }

    #[test]
    fn equals_a_naive_scan() {
        let names = [
            "a",
            "ab",
            "abc",
            "abcdefg",
            "abcdefgh",
            "abcdefghi",
            "bcdefghij",
            "x y",
            "xx",
            "解析",
            "解析pdf文件",
        ];
        let mut m = NameMatcher::default();
        for (i, n) in names.iter().enumerate() {
            m.add(i as u32, n);
        }
        for q in [
            "abcdefghij",
            "zzabcdefgh",
            "x y xx",
            "解析pdf文件 a",
            "",
            "b",
            "abcdefg",
        ] {
            let want: Vec<u32> = names
                .iter()
                .enumerate()
                .filter(|(_, n)| q.contains(*n))
                .map(|(i, _)| i as u32)
                .collect();
            assert_eq!(found(&m, q), want, "{q}");
        }
    }
}
