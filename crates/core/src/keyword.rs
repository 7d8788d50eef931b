//! Keyword search and the ToolSearch merge (SPEC §6).
//!
//! The reference scores every deferred tool against every query term with substring and
//! `\bterm\b` regex tests. Here the same scores come from postings ([`KeywordIndex`]) built
//! lazily on the first keyword search (see [`warm_keyword_index`]) and then kept up to date
//! tool by tool on every upsert and remove. The postings read the tools through
//! [`KeywordDocs`], a read-only view: this module knows nothing of the index that keeps them,
//! and the merge with TF-IDF lives in the `hybrid` module.
//!
//! * **exact / prefix paths** — a map from lowercased name to its first slot, and the sorted
//!   lowercased names that start with `mcp__`.
//! * **name parts** — the distinct parts of all names, each with its slots; "a part equals the
//!   term" is one hash look-up, "a part contains the term" is answered by a 1/2/3-byte n-gram
//!   index over the distinct parts (exact for terms of up to 3 bytes, a candidate filter
//!   verified with `str::contains` for longer ones).
//! * **searchHint / description** — for every maximal ASCII `\w` run (`[a-z0-9_]+`) of the
//!   lowercased texts, the slots whose hint and/or description has it. For a term made only
//!   of `[a-z0-9_]`, `\bterm\b` matches iff some maximal run *equals* the term (JavaScript's
//!   `\w` is ASCII-only without the `u` flag), so such terms never touch the texts. For any
//!   other term, every maximal `\w` run of the term must be a maximal run of the text, a
//!   leading non-word character must follow a word character in the text, and a trailing one
//!   must precede a word character; the intersection of those postings is verified with
//!   [`contains_word_bounded`], the literal rule.
//!
//! The reference's `+3 if the running score is still 0 and full contains the term` can never
//! fire: a term has no whitespace, and `full` is the parts joined by spaces (built-in names) or
//! the name with every `_` turned into a space (MCP names, whose parts are the `_`-separated
//! pieces), so a whitespace-free substring of `full` lies inside one part — and then the part
//! rule has already added 5 or 6 points. The scorer therefore sums independent per-term
//! contributions; the unit tests check this against a literal port that keeps the rule.

use std::cell::RefCell;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use crate::collector::Hit;
use crate::name::{ParsedName, MCP_PREFIX};
use crate::store::{retain_mapped, too_many_dead};
use crate::text::{contains_word_bounded, is_js_word, js_lower, js_split_whitespace, js_trim};

/// Points when a name part equals the term: MCP tools.
pub const PART_EQUAL_MCP: u32 = 12;
/// Points when a name part equals the term: built-in tools.
pub const PART_EQUAL: u32 = 10;
/// Points when the term is inside a name part (and equals none): MCP tools.
pub const PART_INSIDE_MCP: u32 = 6;
/// Points when the term is inside a name part (and equals none): built-in tools.
pub const PART_INSIDE: u32 = 5;
/// Points when the searchHint matches `\bterm\b`.
pub const HINT_WORD: u32 = 4;
/// Points when the description matches `\bterm\b`.
pub const DESC_WORD: u32 = 2;

/// One keyword result. Same type as a TF-IDF [`Hit`]: `slot` names the tool in the index.
///
/// `score` is the keyword score (a positive integer) for a scored search; for the exact-name
/// and `mcp__`-prefix paths, which are not scored, it is `f64::INFINITY`.
pub type KeywordHit = Hit;

/// One distinct scoring term of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerm {
    /// The term, lowercased, without a leading `+` if it was required.
    pub text: String,
    /// How often it occurs among the scoring terms (the reference scores repeats again).
    pub weight: u32,
    /// Whether some occurrence was written `+term`.
    pub required: bool,
}

/// A parsed keyword query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeywordQuery {
    /// `query.toLowerCase().trim()`: compared with lowercased tool names for the exact and
    /// prefix paths.
    pub normalized: String,
    /// Distinct scoring terms in first-seen scoring order (required terms, then optional).
    pub terms: Vec<QueryTerm>,
    /// How many of `terms` are required.
    pub required: usize,
}

impl KeywordQuery {
    /// Whether the `mcp__` prefix path applies (`normalized` starts with `mcp__` and is longer).
    pub fn wants_prefix(&self) -> bool {
        self.normalized.len() > MCP_PREFIX.len() && self.normalized.starts_with(MCP_PREFIX)
    }
}

/// Parse a query the way the reference does: lowercase (JS `toLowerCase`), trim (JS
/// whitespace), split on JS whitespace; `+term` (more than the `+`) is required.
pub fn parse_query(query: &str) -> KeywordQuery {
    let normalized = js_trim(&js_lower(query)).to_owned();
    let mut required: Vec<&str> = Vec::new();
    let mut optional: Vec<&str> = Vec::new();
    for t in js_split_whitespace(&normalized) {
        if t.is_empty() {
            continue;
        }
        match t.strip_prefix('+') {
            Some(rest) if !rest.is_empty() => required.push(rest),
            _ => optional.push(t),
        }
    }
    let n_required = required.len();
    let mut terms: Vec<QueryTerm> = Vec::new();
    let mut pos: FxHashMap<&str, usize> = FxHashMap::default();
    for (i, t) in required.into_iter().chain(optional).enumerate() {
        let is_req = i < n_required;
        match pos.get(t) {
            Some(&at) => {
                let q = &mut terms[at];
                q.weight = q.weight.saturating_add(1);
                q.required |= is_req;
            }
            None => {
                pos.insert(t, terms.len());
                terms.push(QueryTerm {
                    text: t.to_owned(),
                    weight: 1,
                    required: is_req,
                });
            }
        }
    }
    let required = terms.iter().filter(|t| t.required).count();
    KeywordQuery {
        normalized,
        terms,
        required,
    }
}

/// What the keyword search found, by path.
#[derive(Debug, Clone, PartialEq)]
pub enum KeywordOutcome {
    /// An indexed tool's lowercased name equals the query (the first such tool in index order).
    Exact(u32),
    /// Indexed tools whose lowercased name starts with an `mcp__…` query, in index order,
    /// at most `max_results` (never empty).
    Prefix(Vec<u32>),
    /// Scored hits, best first (ties in index order), at most `max_results`.
    Scored(Vec<KeywordHit>),
}

impl KeywordOutcome {
    /// The slots in rank order.
    pub fn slots(&self) -> Vec<u32> {
        match self {
            KeywordOutcome::Exact(s) => vec![*s],
            KeywordOutcome::Prefix(v) => v.clone(),
            KeywordOutcome::Scored(v) => v.iter().map(|h| h.slot).collect(),
        }
    }

    /// As hits; the unscored paths get `f64::INFINITY`.
    pub fn into_hits(self) -> Vec<KeywordHit> {
        let unscored = |slot| Hit {
            slot,
            score: f64::INFINITY,
        };
        match self {
            KeywordOutcome::Exact(s) => vec![unscored(s)],
            KeywordOutcome::Prefix(v) => v.into_iter().map(unscored).collect(),
            KeywordOutcome::Scored(v) => v,
        }
    }
}

/// Which path of the keyword search answers a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeywordPath {
    /// An indexed tool's lowercased name equals the query.
    Exact,
    /// The query starts with `mcp__` and names the start of some indexed MCP tool.
    Prefix,
    /// Scored, with `+required` terms: only tools that have every one of them.
    Required,
    /// Scored, every term optional: the one path a host may run over other tools as well
    /// (claude-code-best scores its already-loaded tools there too).
    Terms,
}

impl KeywordOutcome {
    /// The path this outcome came from (`query` is the query it answered).
    pub fn path(&self, query: &KeywordQuery) -> KeywordPath {
        match self {
            KeywordOutcome::Exact(_) => KeywordPath::Exact,
            KeywordOutcome::Prefix(_) => KeywordPath::Prefix,
            KeywordOutcome::Scored(_) if query.required > 0 => KeywordPath::Required,
            KeywordOutcome::Scored(_) => KeywordPath::Terms,
        }
    }
}

/// The scoring path alone over the indexed tools: no exact-name and no `mcp__`-prefix path,
/// best first (ties in index order), at most `max_results`.
pub fn keyword_terms<I: KeywordSource + ?Sized>(
    index: &I,
    query: &KeywordQuery,
    max_results: usize,
) -> Vec<KeywordHit> {
    if max_results == 0 {
        return Vec::new();
    }
    index.keyword_index().score(index, query, max_results)
}

/// Compat keyword search (`searchToolsWithKeywords`) over the indexed (deferred) tools, with
/// the indexed tools also serving as the full list for the exact-name path.
///
/// Like the reference, the exact-name path returns its one hit even when `max_results` is 0.
pub fn keyword_search<I: KeywordSource + ?Sized>(
    index: &I,
    query: &str,
    max_results: usize,
) -> Vec<KeywordHit> {
    keyword_outcome(index, &parse_query(query), max_results).into_hits()
}

/// Keyword search on a parsed query, telling which path answered.
pub fn keyword_outcome<I: KeywordSource + ?Sized>(
    index: &I,
    query: &KeywordQuery,
    max_results: usize,
) -> KeywordOutcome {
    let kw = index.keyword_index();
    if let Some(slot) = kw.exact(&query.normalized) {
        return KeywordOutcome::Exact(slot);
    }
    kw.after_exact(index, query, max_results)
}

/// Build the keyword postings now instead of on the first keyword search (once built, they
/// are updated with every `upsert` / `remove`).
pub fn warm_keyword_index<I: KeywordSource + ?Sized>(index: &I) {
    index.keyword_index();
}

/// What the keyword scorer reads of one tool.
#[derive(Debug, Clone, Copy)]
pub struct KeywordFields<'a> {
    /// The tool's name as given.
    pub name: &'a str,
    /// `parseToolName(name)` (its parts and MCP flag).
    pub parsed: &'a ParsedName,
    /// The lowercased searchHint (`""` when absent).
    pub hint_lower: &'a str,
    /// The lowercased description.
    pub desc_lower: &'a str,
}

/// A read-only view of the tools keyword postings are built from, by slot.
pub trait KeywordDocs {
    /// The live slots, ascending (index order).
    fn keyword_slots(&self) -> Vec<u32>;
    /// The fields of the tool in `slot` (`None` for an empty slot).
    fn keyword_fields(&self, slot: u32) -> Option<KeywordFields<'_>>;
}

/// An index that keeps keyword postings over its own tools.
pub trait KeywordSource: KeywordDocs {
    /// The postings of the index's current tools (built on first use).
    fn keyword_index(&self) -> &KeywordIndex;
}

// ---------------------------------------------------------------------------------------
// The postings.

/// Field bits of a packed text posting `slot << 2 | bits`.
const F_HINT: u32 = 1;
const F_DESC: u32 = 2;

/// Build per-document keys on the rayon pool from this many tools on.
const PARALLEL_BUILD: usize = 512;

fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `len << 24 | bytes`, for 1 to 3 bytes.
fn gram_key(b: &[u8]) -> u32 {
    let mut k = (b.len() as u32) << 24;
    for (i, &x) in b.iter().enumerate() {
        k |= (x as u32) << (16 - 8 * i);
    }
    k
}

/// Insert `e` into a list sorted by `key` (appending when it sorts last, the common case).
fn insert_sorted(list: &mut Vec<u32>, e: u32, key: impl Fn(u32) -> u32) {
    let k = key(e);
    if list.last().is_none_or(|&x| key(x) < k) {
        list.push(e);
    } else {
        let at = list.partition_point(|&x| key(x) < k);
        list.insert(at, e);
    }
}

/// Remove the entry whose `key` is `k` from a list sorted by `key`; true when that left the
/// list empty.
fn remove_sorted(list: &mut Vec<u32>, k: u32, key: impl Fn(u32) -> u32) -> bool {
    let at = list.partition_point(|&x| key(x) < k);
    if list.get(at).is_some_and(|&x| key(x) == k) {
        list.remove(at);
        return list.is_empty();
    }
    false
}

fn packed_slot(e: u32) -> u32 {
    e >> 2
}

/// The keyword postings of an index's tools (see the module docs). Built from a
/// [`KeywordDocs`] view, then updated one tool at a time with [`KeywordIndex::add`] and
/// [`KeywordIndex::remove`].
#[derive(Default)]
pub struct KeywordIndex {
    /// Lowercased name → the slots with it, ascending (the first one answers).
    exact: FxHashMap<Box<str>, Vec<u32>>,
    /// Lowercased names starting with `mcp__`, sorted, with their slots.
    mcp_names: Vec<(Box<str>, u32)>,
    /// `parseToolName(name).isMcp` by slot.
    is_mcp: Vec<bool>,
    /// Distinct name part → part id.
    part_ids: FxHashMap<Box<str>, u32>,
    part_text: Vec<Box<str>>,
    /// Part id → ascending slots having the part.
    part_slots: Vec<Vec<u32>>,
    /// 1-, 2- and 3-byte substrings of parts → ascending part ids.
    part_grams: FxHashMap<u32, Vec<u32>>,
    max_part_len: usize,
    /// Maximal ASCII `\w` run → packed postings `slot << 2 | F_HINT? | F_DESC?`.
    words: FxHashMap<Box<str>, Vec<u32>>,
    /// Non-word char that follows a word char somewhere → packed postings.
    follows_word: FxHashMap<char, Vec<u32>>,
    /// Non-word char that precedes a word char somewhere → packed postings.
    precedes_word: FxHashMap<char, Vec<u32>>,
    /// Name parts no tool has any more (an empty `part_slots` list).
    dead_parts: usize,
    /// Words no tool has any more (an empty `words` list).
    dead_words: usize,
    /// Bumped by every change (the scratch re-reads `is_mcp` when it moves).
    version: u64,
    scratch: RefCell<Scratch>,
}

impl std::fmt::Debug for KeywordIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeywordIndex")
            .field("names", &self.exact.len())
            .field("parts", &self.part_text.len())
            .field("words", &self.words.len())
            .finish()
    }
}

/// Keys of one text field.
#[derive(Default)]
struct FieldKeys<'a> {
    words: Vec<&'a str>,
    follows: Vec<char>,
    precedes: Vec<char>,
}

fn field_keys(text: &str) -> FieldKeys<'_> {
    let mut k = FieldKeys::default();
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if !is_word_byte(b[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < b.len() && is_word_byte(b[i]) {
            i += 1;
        }
        k.words.push(&text[start..i]);
        if let Some(c) = text[..start].chars().next_back() {
            k.precedes.push(c);
        }
        if let Some(c) = text[i..].chars().next() {
            k.follows.push(c);
        }
    }
    k.words.sort_unstable();
    k.words.dedup();
    k.follows.sort_unstable();
    k.follows.dedup();
    k.precedes.sort_unstable();
    k.precedes.dedup();
    k
}

/// Merge the sorted keys of hint and description into `(key, field bits)`.
fn merge_fields<T: Ord + Copy>(hint: &[T], desc: &[T]) -> Vec<(T, u32)> {
    let mut out = Vec::with_capacity(hint.len() + desc.len());
    let (mut i, mut j) = (0, 0);
    while i < hint.len() || j < desc.len() {
        match (hint.get(i), desc.get(j)) {
            (Some(&h), Some(&d)) if h == d => {
                out.push((h, F_HINT | F_DESC));
                i += 1;
                j += 1;
            }
            (Some(&h), Some(&d)) if h < d => {
                out.push((h, F_HINT));
                i += 1;
            }
            (Some(&h), None) => {
                out.push((h, F_HINT));
                i += 1;
            }
            (_, Some(&d)) => {
                out.push((d, F_DESC));
                j += 1;
            }
            (None, None) => break,
        }
    }
    out
}

/// Everything one tool is posted under.
struct DocKeys<'a> {
    slot: u32,
    lower_name: String,
    is_mcp: bool,
    parts: Vec<&'a str>,
    words: Vec<(&'a str, u32)>,
    follows: Vec<(char, u32)>,
    precedes: Vec<(char, u32)>,
}

fn doc_keys<'a>(slot: u32, d: &KeywordFields<'a>) -> DocKeys<'a> {
    let hint = field_keys(d.hint_lower);
    let desc = field_keys(d.desc_lower);
    let mut parts: Vec<&str> = d.parsed.parts().collect();
    parts.sort_unstable();
    parts.dedup();
    DocKeys {
        slot,
        lower_name: js_lower(d.name),
        is_mcp: d.parsed.is_mcp,
        parts,
        words: merge_fields(&hint.words, &desc.words),
        follows: merge_fields(&hint.follows, &desc.follows),
        precedes: merge_fields(&hint.precedes, &desc.precedes),
    }
}

impl KeywordIndex {
    /// The postings of every tool in `docs`.
    pub fn build<D: KeywordDocs + ?Sized>(docs: &D) -> Self {
        let fields: Vec<(u32, KeywordFields)> = docs
            .keyword_slots()
            .into_iter()
            .filter_map(|s| docs.keyword_fields(s).map(|f| (s, f)))
            .collect();
        let keys: Vec<DocKeys> = if fields.len() >= PARALLEL_BUILD {
            fields.par_iter().map(|(s, f)| doc_keys(*s, f)).collect()
        } else {
            fields.iter().map(|(s, f)| doc_keys(*s, f)).collect()
        };
        let n_slots = fields.last().map_or(0, |(s, _)| *s as usize + 1);
        let mut kw = KeywordIndex {
            is_mcp: vec![false; n_slots],
            ..Default::default()
        };
        for k in keys {
            kw.insert(k);
        }
        kw
    }

    /// Post the tool now in `slot` (the slot holds no tool in these postings).
    pub fn add(&mut self, slot: u32, fields: &KeywordFields) {
        self.insert(doc_keys(slot, fields));
    }

    /// Take out the tool that was in `slot`, with the fields it was posted under.
    pub fn remove(&mut self, slot: u32, fields: &KeywordFields) {
        self.version += 1;
        let k = doc_keys(slot, fields);
        if let Some(list) = self.exact.get_mut(k.lower_name.as_str()) {
            remove_sorted(list, slot, |s| s);
            if list.is_empty() {
                self.exact.remove(k.lower_name.as_str());
            }
        }
        if k.lower_name.starts_with(MCP_PREFIX) {
            let at = self
                .mcp_names
                .partition_point(|(n, s)| (&**n, *s) < (k.lower_name.as_str(), slot));
            if self
                .mcp_names
                .get(at)
                .is_some_and(|(n, s)| **n == *k.lower_name && *s == slot)
            {
                self.mcp_names.remove(at);
            }
        }
        for p in k.parts {
            if let Some(&id) = self.part_ids.get(p) {
                if remove_sorted(&mut self.part_slots[id as usize], slot, |s| s) {
                    self.dead_parts += 1;
                }
            }
        }
        for (w, _) in k.words {
            if let Some(list) = self.words.get_mut(w) {
                if remove_sorted(list, slot, packed_slot) {
                    self.dead_words += 1;
                }
            }
        }
        for (c, _) in k.follows {
            if let Some(list) = self.follows_word.get_mut(&c) {
                remove_sorted(list, slot, packed_slot);
            }
        }
        for (c, _) in k.precedes {
            if let Some(list) = self.precedes_word.get_mut(&c) {
                remove_sorted(list, slot, packed_slot);
            }
        }
        if let Some(m) = self.is_mcp.get_mut(slot as usize) {
            *m = false;
        }
    }

    fn insert(&mut self, k: DocKeys) {
        self.version += 1;
        let slot = k.slot;
        if self.is_mcp.len() <= slot as usize {
            self.is_mcp.resize(slot as usize + 1, false);
        }
        self.is_mcp[slot as usize] = k.is_mcp;
        for p in k.parts {
            let id = match self.part_ids.get(p) {
                Some(&id) => id,
                None => self.new_part(p),
            };
            let list = &mut self.part_slots[id as usize];
            if list.is_empty() {
                self.dead_parts -= 1;
            }
            insert_sorted(list, slot, |s| s);
        }
        for (w, f) in k.words {
            match self.words.get_mut(w) {
                Some(list) => {
                    if list.is_empty() {
                        self.dead_words -= 1;
                    }
                    insert_sorted(list, slot << 2 | f, packed_slot)
                }
                None => {
                    self.words.insert(w.into(), vec![slot << 2 | f]);
                }
            }
        }
        for (c, f) in k.follows {
            insert_sorted(
                self.follows_word.entry(c).or_default(),
                slot << 2 | f,
                packed_slot,
            );
        }
        for (c, f) in k.precedes {
            insert_sorted(
                self.precedes_word.entry(c).or_default(),
                slot << 2 | f,
                packed_slot,
            );
        }
        if k.lower_name.starts_with(MCP_PREFIX) {
            let entry = (Box::<str>::from(k.lower_name.as_str()), slot);
            let at = self.mcp_names.partition_point(|e| *e < entry);
            self.mcp_names.insert(at, entry);
        }
        match self.exact.get_mut(k.lower_name.as_str()) {
            Some(list) => insert_sorted(list, slot, |s| s),
            None => {
                self.exact.insert(k.lower_name.into_boxed_str(), vec![slot]);
            }
        }
    }

    /// A new distinct name part: its id, and its 1- to 3-byte substrings in the gram index.
    fn new_part(&mut self, p: &str) -> u32 {
        let id = self.part_text.len() as u32;
        self.part_ids.insert(p.into(), id);
        self.part_text.push(p.into());
        self.part_slots.push(Vec::new());
        // Dead until `insert` posts its first slot.
        self.dead_parts += 1;
        let b = p.as_bytes();
        self.max_part_len = self.max_part_len.max(b.len());
        for i in 0..b.len() {
            for len in 1..=3.min(b.len() - i) {
                let list = self.part_grams.entry(gram_key(&b[i..i + len])).or_default();
                if list.last() != Some(&id) {
                    list.push(id);
                }
            }
        }
        id
    }

    /// Drop the words and name parts no tool has any more, each when the store's term rule
    /// ([`too_many_dead`]) says so: the words with their empty lists (and the empty lists of
    /// the characters around words), the parts renumbered densely in their order, with their
    /// texts, slot lists and n-gram lists. Searches find the same: a dropped key matched no
    /// tool.
    pub fn maybe_compact(&mut self) {
        if too_many_dead(self.dead_words, self.words.len()) {
            self.words.retain(|_, l| !l.is_empty());
            self.words.shrink_to_fit();
            self.follows_word.retain(|_, l| !l.is_empty());
            self.precedes_word.retain(|_, l| !l.is_empty());
            self.dead_words = 0;
        }
        if too_many_dead(self.dead_parts, self.part_text.len()) {
            let mut map = vec![u32::MAX; self.part_text.len()];
            let mut next = 0u32;
            for (m, l) in map.iter_mut().zip(&self.part_slots) {
                if !l.is_empty() {
                    *m = next;
                    next += 1;
                }
            }
            let keep = |id: &mut u32| {
                *id = map[*id as usize];
                *id != u32::MAX
            };
            retain_mapped(&mut self.part_text, &map);
            retain_mapped(&mut self.part_slots, &map);
            self.part_ids.retain(|_, id| keep(id));
            self.part_ids.shrink_to_fit();
            // The map is monotonic: each n-gram's ids stay ascending.
            self.part_grams.retain(|_, ids| {
                ids.retain_mut(keep);
                !ids.is_empty()
            });
            self.max_part_len = self.part_text.iter().map(|p| p.len()).max().unwrap_or(0);
            self.dead_parts = 0;
        }
    }

    /// How many distinct name parts and words the postings hold, with those no tool has
    /// any more (until [`KeywordIndex::maybe_compact`] drops them).
    pub fn key_counts(&self) -> (usize, usize) {
        (self.part_text.len(), self.words.len())
    }

    fn slots_of_part(&self, p: u32) -> &[u32] {
        &self.part_slots[p as usize]
    }

    /// The first slot (in index order) whose lowercased name equals `normalized`.
    pub fn exact(&self, normalized: &str) -> Option<u32> {
        self.exact.get(normalized).and_then(|l| l.first().copied())
    }

    /// The prefix and scored paths (the exact path already failed).
    fn after_exact<D: KeywordDocs + ?Sized>(
        &self,
        index: &D,
        query: &KeywordQuery,
        max_results: usize,
    ) -> KeywordOutcome {
        if max_results == 0 {
            // The reference's prefix list is then empty, so it falls through to scoring, and
            // the scored list is cut to nothing.
            return KeywordOutcome::Scored(Vec::new());
        }
        if query.wants_prefix() {
            let q = query.normalized.as_str();
            let from = self.mcp_names.partition_point(|(n, _)| &**n < q);
            // Unscored: every prefix match ties, so the collector keeps index order.
            let mut hits: Vec<Hit> = self.mcp_names[from..]
                .iter()
                .take_while(|(n, _)| n.starts_with(q))
                .map(|&(_, slot)| Hit { slot, score: 0.0 })
                .collect();
            if !hits.is_empty() {
                crate::collector::top_k(&mut hits, max_results);
                return KeywordOutcome::Prefix(hits.into_iter().map(|h| h.slot).collect());
            }
        }
        KeywordOutcome::Scored(self.score(index, query, max_results))
    }

    fn score<D: KeywordDocs + ?Sized>(
        &self,
        index: &D,
        query: &KeywordQuery,
        max_results: usize,
    ) -> Vec<KeywordHit> {
        if query.terms.is_empty() {
            return Vec::new();
        }
        let mut own;
        let mut guard = self.scratch.try_borrow_mut();
        let s: &mut Scratch = match guard.as_deref_mut() {
            Ok(s) => s,
            Err(_) => {
                own = Scratch::default();
                &mut own
            }
        };
        s.begin(&self.is_mcp, self.version, query.terms.len());
        let n_req = query.required as u32;
        // Required terms come first: each one only scores tools that matched every earlier
        // one, and optional terms only score tools that matched them all.
        let mut seen_req = 0;
        for term in &query.terms {
            let need = if term.required { seen_req } else { n_req };
            s.start_term(term.weight, term.required, need);
            if need > 0 {
                self.mark_term::<true, D>(index, &term.text, s);
            } else {
                self.mark_term::<false, D>(index, &term.text, s);
            }
            if term.required {
                if s.hits == 0 {
                    return Vec::new();
                }
                seen_req += 1;
            }
        }
        // Best first, ties to the lower slot: the shared collector's top-k.
        let acc = &s.acc;
        let mut hits: Vec<Hit> = s
            .touched
            .iter()
            .filter(|&&slot| acc[slot as usize].req == n_req)
            .map(|&slot| Hit {
                slot,
                score: f64::from(acc[slot as usize].score),
            })
            .collect();
        crate::collector::top_k(&mut hits, max_results);
        hits
    }

    /// Set this term's flags on every slot it matches.
    fn mark_term<const GATED: bool, D: KeywordDocs + ?Sized>(
        &self,
        index: &D,
        term: &str,
        s: &mut Scratch,
    ) {
        // Name parts. No part contains `_` (parseToolName splits on it).
        let equal = self.part_ids.get(term).copied();
        if let Some(p) = equal {
            for &slot in self.slots_of_part(p) {
                s.name::<GATED>(slot, LEVEL_EQ);
            }
        }
        if !term.contains('_') && term.len() <= self.max_part_len {
            let b = term.as_bytes();
            if b.len() <= 3 {
                if let Some(parts) = self.part_grams.get(&gram_key(b)) {
                    for &p in parts {
                        if Some(p) != equal {
                            for &slot in self.slots_of_part(p) {
                                s.name::<GATED>(slot, LEVEL_IN);
                            }
                        }
                    }
                }
            } else {
                let mut best: Option<&[u32]> = None;
                for w in b.windows(3) {
                    match self.part_grams.get(&gram_key(w)) {
                        None => {
                            best = Some(&[]);
                            break;
                        }
                        Some(l) if best.is_none_or(|b| l.len() < b.len()) => best = Some(l),
                        Some(_) => {}
                    }
                }
                for &p in best.unwrap_or(&[]) {
                    if Some(p) != equal && self.part_text[p as usize].contains(term) {
                        for &slot in self.slots_of_part(p) {
                            s.name::<GATED>(slot, LEVEL_IN);
                        }
                    }
                }
            }
        }

        // searchHint / description.
        if term.bytes().all(is_word_byte) {
            if let Some(p) = self.words.get(term) {
                for &e in p {
                    s.text::<GATED>(e >> 2, e);
                }
            }
            return;
        }
        let mut lists: Vec<&[u32]> = Vec::new();
        for run in term
            .split(|c: char| !is_js_word(c))
            .filter(|r| !r.is_empty())
        {
            match self.words.get(run) {
                Some(p) => lists.push(p),
                None => return,
            }
        }
        let (first, last) = match (term.chars().next(), term.chars().next_back()) {
            (Some(f), Some(l)) => (f, l),
            _ => return,
        };
        if !is_js_word(first) {
            match self.follows_word.get(&first) {
                Some(p) => lists.push(p),
                None => return,
            }
        }
        if !is_js_word(last) {
            match self.precedes_word.get(&last) {
                Some(p) => lists.push(p),
                None => return,
            }
        }
        lists.sort_unstable_by_key(|l| l.len());
        // Never empty: a term with a non-word character has a non-word first or last
        // character, or a word run on each side of it.
        let Some((driver, rest)) = lists.split_first() else {
            return;
        };
        let mut pos = vec![0usize; rest.len()];
        'cand: for &e in *driver {
            let slot = e >> 2;
            let mut f = e & 3;
            for (k, l) in rest.iter().enumerate() {
                let at = pos[k] + l[pos[k]..].partition_point(|&x| x >> 2 < slot);
                pos[k] = at;
                match l.get(at) {
                    Some(&x) if x >> 2 == slot => f &= x & 3,
                    _ => continue 'cand,
                }
                if f == 0 {
                    continue 'cand;
                }
            }
            let Some(doc) = index.keyword_fields(slot) else {
                continue;
            };
            let mut bits = 0;
            for (bit, text) in [(F_HINT, doc.hint_lower), (F_DESC, doc.desc_lower)] {
                if f & bit == 0 {
                    continue;
                }
                let found = if s.verify_left >= text.len() {
                    s.verify_left -= text.len();
                    contains_word_bounded(text, term)
                } else {
                    s.verify_left = 0;
                    true
                };
                if found {
                    bits |= bit;
                }
            }
            if bits != 0 {
                s.text::<GATED>(slot, bits);
            }
        }
    }
}

/// Name-part points by `[is_mcp][level]`, level 0 none, 1 inside a part, 2 equal to a part.
const NAME_POINTS: [[u32; 3]; 2] = [
    [0, PART_INSIDE, PART_EQUAL],
    [0, PART_INSIDE_MCP, PART_EQUAL_MCP],
];
const LEVEL_IN: u8 = 1;
const LEVEL_EQ: u8 = 2;

/// A slot's accumulator.
#[derive(Clone, Copy, Default)]
struct Acc {
    /// Id of the last term that touched the slot; `< base` means not yet in this query.
    mark: u32,
    score: u32,
    /// Required terms matched.
    req: u32,
    /// The current term's name-part level.
    name: u8,
    mcp: bool,
}

/// Per-query accumulators, reused across queries (indexed by slot). Each term gets a fresh
/// id, so nothing is cleared between terms or queries.
#[derive(Default)]
struct Scratch {
    acc: Vec<Acc>,
    /// The postings version `acc`'s `mcp` flags were read at.
    version: u64,
    /// Last term id handed out.
    counter: u32,
    /// First term id of the current query.
    base: u32,
    touched: Vec<u32>,
    // The current term.
    cur: u32,
    required: u32,
    /// With gating: slots must already have matched this many required terms.
    need: u32,
    /// Slots the current term touched (and let through).
    hits: usize,
    /// Points × weight by `[is_mcp][name level]`, and by text-posting field bits.
    name_add: [[u32; 3]; 2],
    text_add: [u32; 4],
    /// Bytes of hint and description text the current query may still read to check its
    /// punctuated terms' word boundaries (see [`VERIFY_BUDGET`]).
    verify_left: usize,
}

/// The most hint and description bytes one query reads to check where its terms with
/// punctuation (`a.b`, `c++`) stand as whole words. Each such check reads the tool's whole text,
/// so a query of many of them over long descriptions is bounded here: past the budget, a
/// punctuated term counts as found in a field where every word of it is (what the postings
/// already show), without reading the text. 256 MiB reads in about 50 ms; ordinary queries read
/// a few KiB.
pub const VERIFY_BUDGET: usize = 256 << 20;

impl Scratch {
    fn begin(&mut self, is_mcp: &[bool], version: u64, n_terms: usize) {
        if self.acc.len() != is_mcp.len() || self.version != version {
            self.version = version;
            self.acc = is_mcp
                .iter()
                .map(|&mcp| Acc {
                    mcp,
                    ..Acc::default()
                })
                .collect();
            self.counter = 0;
        }
        if u64::from(self.counter) + n_terms as u64 + 2 > u64::from(u32::MAX) {
            self.acc.iter_mut().for_each(|a| a.mark = 0);
            self.counter = 0;
        }
        self.base = self.counter + 1;
        self.touched.clear();
        self.verify_left = VERIFY_BUDGET;
    }

    fn start_term(&mut self, weight: u32, required: bool, need: u32) {
        self.counter += 1;
        self.cur = self.counter;
        self.required = required as u32;
        self.need = need;
        self.hits = 0;
        for (m, row) in NAME_POINTS.iter().enumerate() {
            for (l, &p) in row.iter().enumerate() {
                self.name_add[m][l] = p.saturating_mul(weight);
            }
        }
        for bits in 0..4u32 {
            let hint = if bits & F_HINT != 0 { HINT_WORD } else { 0 };
            let desc = if bits & F_DESC != 0 { DESC_WORD } else { 0 };
            self.text_add[bits as usize] = (hint + desc).saturating_mul(weight);
        }
    }

    /// The slot's accumulator if the current term may score it. `GATED`: only slots that
    /// matched `need` required terms.
    #[inline(always)]
    fn touch<const GATED: bool>(&mut self, slot: u32) -> Option<&mut Acc> {
        let a = &mut self.acc[slot as usize];
        if a.mark != self.cur {
            if a.mark < self.base {
                if GATED {
                    return None;
                }
                a.score = 0;
                a.req = 0;
                self.touched.push(slot);
            } else if GATED && a.req != self.need {
                return None;
            }
            a.mark = self.cur;
            a.name = 0;
            a.req += self.required;
            self.hits += 1;
        }
        Some(a)
    }

    /// A name part equal to (`LEVEL_EQ`) or containing (`LEVEL_IN`) the term: the better
    /// level counts.
    #[inline(always)]
    fn name<const GATED: bool>(&mut self, slot: u32, level: u8) {
        let adds = self.name_add;
        if let Some(a) = self.touch::<GATED>(slot) {
            if level > a.name {
                let add = adds[a.mcp as usize];
                a.score = a
                    .score
                    .saturating_add(add[level as usize] - add[a.name as usize]);
                a.name = level;
            }
        }
    }

    /// Hint / description points by field bits (each slot at most once per term).
    #[inline(always)]
    fn text<const GATED: bool>(&mut self, slot: u32, bits: u32) {
        let add = self.text_add[(bits & 3) as usize];
        if let Some(a) = self.touch::<GATED>(slot) {
            a.score = a.score.saturating_add(add);
        }
    }
}
