//! Keyword search and the ToolSearch merge (SPEC §6).
//!
//! The reference scores every deferred tool against every query term with substring and
//! `\bterm\b` regex tests. Here the same scores come from postings built once per index
//! version (lazily, on the first keyword search after a build or an update, see
//! [`warm_keyword_index`]):
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

use crate::index::{Hit, ToolIndex};
use crate::name::MCP_PREFIX;
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

/// Compat keyword search (`searchToolsWithKeywords`) over the indexed (deferred) tools, with
/// the indexed tools also serving as the full list for the exact-name path.
///
/// Like the reference, the exact-name path returns its one hit even when `max_results` is 0.
pub fn keyword_search(index: &ToolIndex, query: &str, max_results: usize) -> Vec<KeywordHit> {
    keyword_outcome(index, &parse_query(query), max_results).into_hits()
}

/// Keyword search on a parsed query, telling which path answered.
pub fn keyword_outcome(
    index: &ToolIndex,
    query: &KeywordQuery,
    max_results: usize,
) -> KeywordOutcome {
    let kw = index.keyword_index();
    if let Some(slot) = kw.exact(&query.normalized) {
        return KeywordOutcome::Exact(slot);
    }
    kw.after_exact(index, query, max_results)
}

/// Build the keyword postings now instead of on the first keyword search (they are dropped
/// by every `upsert` / `remove` and rebuilt lazily).
pub fn warm_keyword_index(index: &ToolIndex) {
    index.keyword_index();
}

/// Weights of the ToolSearch merge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MergeWeights {
    pub keyword: f64,
    pub tfidf: f64,
}

impl Default for MergeWeights {
    /// The reference's defaults: 0.4 keyword, 0.6 TF-IDF.
    fn default() -> Self {
        Self {
            keyword: 0.4,
            tfidf: 0.6,
        }
    }
}

/// One merged ToolSearch result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankedHit {
    /// The tool's slot; `None` only for the `exact_outside` tool of [`tool_search_rank`].
    pub slot: Option<u32>,
    /// Merged score.
    pub score: f64,
    /// 0-based rank in the keyword list, if the keyword search found it.
    pub keyword_rank: Option<u32>,
    /// Unweighted TF-IDF score, if the TF-IDF search found it.
    pub tfidf_score: Option<f64>,
}

impl RankedHit {
    /// The tool's name: the indexed tool's, or `exact_outside` for the slot-less hit.
    pub fn name<'a>(
        &self,
        index: &'a ToolIndex,
        exact_outside: Option<&'a str>,
    ) -> Option<&'a str> {
        match self.slot {
            Some(s) => index.doc(s).map(|d| d.name.as_str()),
            None => exact_outside,
        }
    }
}

/// The ToolSearch ranking: keyword search and TF-IDF search (`index.search(query,
/// max_results, min_score)`) merged. A keyword hit at 0-based rank r of n scores
/// `(n − r)/n × weights.keyword`, a TF-IDF hit `score × weights.tfidf`; summed per tool,
/// sorted descending (stable: keyword hits in rank order, then TF-IDF-only hits in rank
/// order), first `max_results`.
///
/// `exact_outside` is a tool that is not indexed (a core tool, say) whose name the host
/// found equal to the query: when no indexed tool's lowercased name equals the trimmed,
/// lowercased query and this name's does, the keyword list is that one tool (the reference
/// looks in the deferred tools first, then in all tools). It is ignored otherwise.
pub fn tool_search_rank(
    index: &ToolIndex,
    query: &str,
    max_results: usize,
    weights: MergeWeights,
    min_score: f64,
    exact_outside: Option<&str>,
) -> Vec<RankedHit> {
    let parsed = parse_query(query);
    let kw = index.keyword_index();
    let keyword: Vec<Option<u32>> = match kw.exact(&parsed.normalized) {
        Some(slot) => vec![Some(slot)],
        None if exact_outside.is_some_and(|n| js_lower(n) == parsed.normalized) => vec![None],
        None => kw
            .after_exact(index, &parsed, max_results)
            .slots()
            .into_iter()
            .map(Some)
            .collect(),
    };
    let tfidf = index.search(query, max_results, min_score);
    merge(&keyword, &tfidf, max_results, weights)
}

/// The merge step of [`tool_search_rank`] on ready lists (`None` = the slot-less tool).
pub fn merge(
    keyword: &[Option<u32>],
    tfidf: &[Hit],
    max_results: usize,
    weights: MergeWeights,
) -> Vec<RankedHit> {
    let n = keyword.len();
    let mut merged: Vec<RankedHit> = Vec::with_capacity(n + tfidf.len());
    for (r, &slot) in keyword.iter().enumerate() {
        merged.push(RankedHit {
            slot,
            score: ((n - r) as f64 / n as f64) * weights.keyword,
            keyword_rank: Some(r as u32),
            tfidf_score: None,
        });
    }
    for h in tfidf {
        let add = h.score * weights.tfidf;
        match merged[..n].iter_mut().find(|m| m.slot == Some(h.slot)) {
            Some(m) => {
                m.score += add;
                m.tfidf_score = Some(h.score);
            }
            None => merged.push(RankedHit {
                slot: Some(h.slot),
                score: add,
                keyword_rank: None,
                tfidf_score: Some(h.score),
            }),
        }
    }
    // JS `sort((a, b) => b.score - a.score)` is stable and treats ±0 as equal; NaN (only
    // from NaN weights) goes last so the order stays total.
    let key = |s: f64| {
        if s.is_nan() {
            f64::NEG_INFINITY
        } else if s == 0.0 {
            0.0
        } else {
            s
        }
    };
    merged.sort_by(|a, b| key(b.score).total_cmp(&key(a.score)));
    merged.truncate(max_results);
    merged
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

/// The keyword postings of one index version (see the module docs).
#[derive(Default)]
pub(crate) struct KeywordIndex {
    /// Lowercased name → first slot with it.
    exact: FxHashMap<Box<str>, u32>,
    /// Lowercased names starting with `mcp__`, sorted, with their slots.
    mcp_names: Vec<(Box<str>, u32)>,
    /// `parseToolName(name).isMcp` by slot.
    is_mcp: Vec<bool>,
    /// Distinct name part → part id.
    part_ids: FxHashMap<Box<str>, u32>,
    part_text: Vec<Box<str>>,
    /// Part id → ascending slots having the part.
    /// (Flattened: the slots of part `p` are `part_slots[part_off[p]..part_off[p + 1]]`.)
    part_off: Vec<u32>,
    part_slots: Vec<u32>,
    /// 1-, 2- and 3-byte substrings of parts → ascending part ids.
    part_grams: FxHashMap<u32, Vec<u32>>,
    max_part_len: usize,
    /// Maximal ASCII `\w` run → packed postings `slot << 2 | F_HINT? | F_DESC?`.
    words: FxHashMap<Box<str>, Vec<u32>>,
    /// Non-word char that follows a word char somewhere → packed postings.
    follows_word: FxHashMap<char, Vec<u32>>,
    /// Non-word char that precedes a word char somewhere → packed postings.
    precedes_word: FxHashMap<char, Vec<u32>>,
    scratch: RefCell<Scratch>,
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

struct DocKeys<'a> {
    slot: u32,
    lower_name: String,
    is_mcp: bool,
    parts: Vec<&'a str>,
    words: Vec<(&'a str, u32)>,
    follows: Vec<(char, u32)>,
    precedes: Vec<(char, u32)>,
}

impl KeywordIndex {
    pub(crate) fn build(index: &ToolIndex) -> Self {
        let docs: Vec<(u32, &crate::index::Doc)> = index
            .slots()
            .filter_map(|s| index.doc(s).map(|d| (s, d)))
            .collect();
        fn analyze<'a>(&(slot, d): &(u32, &'a crate::index::Doc)) -> DocKeys<'a> {
            let hint = field_keys(&d.hint_lower);
            let desc = field_keys(&d.desc_lower);
            let mut parts: Vec<&str> = d.parsed.parts.iter().map(String::as_str).collect();
            parts.sort_unstable();
            parts.dedup();
            DocKeys {
                slot,
                lower_name: js_lower(&d.name),
                is_mcp: d.parsed.is_mcp,
                parts,
                words: merge_fields(&hint.words, &desc.words),
                follows: merge_fields(&hint.follows, &desc.follows),
                precedes: merge_fields(&hint.precedes, &desc.precedes),
            }
        }
        let keys: Vec<DocKeys> = if docs.len() >= PARALLEL_BUILD {
            docs.par_iter().map(analyze).collect()
        } else {
            docs.iter().map(analyze).collect()
        };

        let n_slots = docs.last().map_or(0, |(s, _)| *s as usize + 1);
        let mut kw = KeywordIndex {
            is_mcp: vec![false; n_slots],
            ..Default::default()
        };
        let mut part_lists: Vec<Vec<u32>> = Vec::new();
        for k in keys {
            let slot = k.slot;
            kw.is_mcp[slot as usize] = k.is_mcp;
            for p in k.parts {
                let id = match kw.part_ids.get(p) {
                    Some(&id) => id,
                    None => {
                        let id = kw.part_text.len() as u32;
                        kw.part_ids.insert(p.into(), id);
                        kw.part_text.push(p.into());
                        part_lists.push(Vec::new());
                        id
                    }
                };
                part_lists[id as usize].push(slot);
            }
            for (w, f) in k.words {
                match kw.words.get_mut(w) {
                    Some(p) => p.push(slot << 2 | f),
                    None => {
                        kw.words.insert(w.into(), vec![slot << 2 | f]);
                    }
                }
            }
            for (c, f) in k.follows {
                kw.follows_word.entry(c).or_default().push(slot << 2 | f);
            }
            for (c, f) in k.precedes {
                kw.precedes_word.entry(c).or_default().push(slot << 2 | f);
            }
            if k.lower_name.starts_with(MCP_PREFIX) {
                kw.mcp_names.push((k.lower_name.as_str().into(), slot));
            }
            kw.exact
                .entry(k.lower_name.into_boxed_str())
                .or_insert(slot);
        }
        kw.mcp_names.sort_unstable();
        kw.part_off.reserve(part_lists.len() + 1);
        kw.part_off.push(0);
        kw.part_slots
            .reserve(part_lists.iter().map(Vec::len).sum::<usize>());
        for l in part_lists {
            kw.part_slots.extend_from_slice(&l);
            kw.part_off.push(kw.part_slots.len() as u32);
        }
        for (id, p) in kw.part_text.iter().enumerate() {
            let b = p.as_bytes();
            kw.max_part_len = kw.max_part_len.max(b.len());
            for i in 0..b.len() {
                for len in 1..=3.min(b.len() - i) {
                    let list = kw.part_grams.entry(gram_key(&b[i..i + len])).or_default();
                    if list.last() != Some(&(id as u32)) {
                        list.push(id as u32);
                    }
                }
            }
        }
        kw
    }

    fn slots_of_part(&self, p: u32) -> &[u32] {
        let p = p as usize;
        &self.part_slots[self.part_off[p] as usize..self.part_off[p + 1] as usize]
    }

    fn exact(&self, normalized: &str) -> Option<u32> {
        self.exact.get(normalized).copied()
    }

    /// The prefix and scored paths (the exact path already failed).
    fn after_exact(
        &self,
        index: &ToolIndex,
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

    fn score(
        &self,
        index: &ToolIndex,
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
        s.begin(&self.is_mcp, query.terms.len());
        let n_req = query.required as u32;
        // Required terms come first: each one only scores tools that matched every earlier
        // one, and optional terms only score tools that matched them all.
        let mut seen_req = 0;
        for term in &query.terms {
            let need = if term.required { seen_req } else { n_req };
            s.start_term(term.weight, term.required, need);
            if need > 0 {
                self.mark_term::<true>(index, &term.text, s);
            } else {
                self.mark_term::<false>(index, &term.text, s);
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
    fn mark_term<const GATED: bool>(&self, index: &ToolIndex, term: &str, s: &mut Scratch) {
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
            let Some(doc) = index.doc(slot) else { continue };
            let mut bits = 0;
            if f & F_HINT != 0 && contains_word_bounded(&doc.hint_lower, term) {
                bits |= F_HINT;
            }
            if f & F_DESC != 0 && contains_word_bounded(&doc.desc_lower, term) {
                bits |= F_DESC;
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
}

impl Scratch {
    fn begin(&mut self, is_mcp: &[bool], n_terms: usize) {
        if self.acc.len() != is_mcp.len() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{IndexOptions, ToolDoc};
    use crate::name::{parse_tool_name, ParsedName};

    /// The reference's `searchToolsWithKeywords`, transliterated (deferred = all = the index).
    /// Exact / prefix hits get `f64::INFINITY`, like [`keyword_search`].
    fn naive(index: &ToolIndex, query: &str, max: usize) -> Vec<(String, f64)> {
        let docs: Vec<(&crate::index::Doc, ParsedName)> = index
            .slots()
            .map(|s| index.doc(s).unwrap())
            .map(|d| (d, parse_tool_name(&d.name)))
            .collect();
        naive_on(&docs, &mut Memo::default(), query, max)
    }

    /// Per term, per tool: the literal tests `[part equal, inside a part, full contains,
    /// hint \bterm\b, description \bterm\b]` (memoized only to keep the test fast).
    type Memo = std::collections::HashMap<String, Vec<[bool; 5]>>;

    fn facts<'m>(
        docs: &[(&crate::index::Doc, ParsedName)],
        memo: &'m mut Memo,
        t: &str,
    ) -> &'m [[bool; 5]] {
        memo.entry(t.to_owned()).or_insert_with(|| {
            docs.iter()
                .map(|(d, parsed)| {
                    let hint = &*d.hint_lower;
                    [
                        parsed.parts.iter().any(|p| p == t),
                        parsed.parts.iter().any(|p| p.contains(t)),
                        parsed.full.contains(t),
                        !hint.is_empty() && contains_word_bounded(hint, t),
                        contains_word_bounded(&d.desc_lower, t),
                    ]
                })
                .collect()
        })
    }

    fn naive_on(
        docs: &[(&crate::index::Doc, ParsedName)],
        memo: &mut Memo,
        query: &str,
        max: usize,
    ) -> Vec<(String, f64)> {
        let q = js_trim(&js_lower(query)).to_owned();
        if let Some((d, _)) = docs.iter().find(|(d, _)| js_lower(&d.name) == q) {
            return vec![(d.name.clone(), f64::INFINITY)];
        }
        if q.starts_with("mcp__") && q.encode_utf16().count() > 5 {
            let m: Vec<(String, f64)> = docs
                .iter()
                .filter(|(d, _)| js_lower(&d.name).starts_with(&q))
                .take(max)
                .map(|(d, _)| (d.name.clone(), f64::INFINITY))
                .collect();
            if !m.is_empty() {
                return m;
            }
        }
        let terms: Vec<&str> = js_split_whitespace(&q)
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect();
        let mut required = Vec::new();
        let mut optional = Vec::new();
        for &t in &terms {
            if t.starts_with('+') && t.encode_utf16().count() > 1 {
                required.push(&t[1..]);
            } else {
                optional.push(t);
            }
        }
        let scoring: Vec<&str> = if required.is_empty() {
            terms.clone()
        } else {
            required.iter().chain(&optional).copied().collect()
        };
        for t in &scoring {
            facts(docs, memo, t);
        }
        let memo = &*memo;
        let mut scored: Vec<(String, f64)> = Vec::new();
        for (i, (d, parsed)) in docs.iter().enumerate() {
            let f = |t: &str| memo[t][i];
            // parts.includes || parts.some(includes) || desc \b || (hint non-empty && hint \b)
            let ok = required.iter().all(|t| {
                let [eq, inside, _, hint, desc] = f(t);
                eq || inside || desc || hint
            });
            if !ok {
                continue;
            }
            let mut score = 0u32;
            for t in &scoring {
                let [eq, inside, full, hint, desc] = f(t);
                if eq {
                    score += if parsed.is_mcp { 12 } else { 10 };
                } else if inside {
                    score += if parsed.is_mcp { 6 } else { 5 };
                }
                if score == 0 && full {
                    score += 3;
                }
                if hint {
                    score += 4;
                }
                if desc {
                    score += 2;
                }
            }
            if score > 0 {
                scored.push((d.name.clone(), score as f64));
            }
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(max);
        scored
    }

    fn fast(index: &ToolIndex, query: &str, max: usize) -> Vec<(String, f64)> {
        keyword_search(index, query, max)
            .into_iter()
            .map(|h| (index.doc(h.slot).unwrap().name.clone(), h.score))
            .collect()
    }

    fn extras() -> Vec<ToolDoc> {
        vec![
            ToolDoc::new(
                "NotebookEditTool",
                "Edit a Jupyter notebook cell; c++ and x$10 and e.g. file.txt",
            )
            .with_hint("notebook editing, c++x, ++x"),
            ToolDoc::new(
                "CronCreate",
                "Schedule a prompt to run later or on a recurring cron schedule",
            )
            .with_hint("schedule a recurring or one-shot prompt"),
            ToolDoc::new(
                "HTTPServer",
                "Serve files over HTTP: 'aapl' quotes, résumé parsing, 文件file",
            ),
            ToolDoc::new("mcp__a___b", "weird separators __ and _x_ and a+b"),
            ToolDoc::new(
                "mcp__Upper__CASE_Tool",
                "Upper-case MCP name; KELVIN \u{212A} sign",
            )
            .with_hint(""),
            ToolDoc::new("MCP__not_mcp", "case-sensitive prefix"),
            ToolDoc::new("mcp__uni__café_résumé", "unicode parts ǅ Σ ΣΑΣ")
                .with_hint("Unicode hint: naïve—test"),
            ToolDoc::new(
                "snake_case_name",
                "a snake case tool with c++ code and $10 fees ($10)",
            ),
            ToolDoc::new("ls", "List files in a directory"),
            ToolDoc::new(
                "mcp__github__create_issue",
                "dup-ish of a catalog name? no: create a GitHub issue",
            ),
        ]
    }

    /// The vendored parity catalog (or `TOOL_INDEX_PARITY`), or `None` when it is absent.
    fn catalog_index() -> Option<(ToolIndex, serde_json::Value)> {
        let path = std::env::var("TOOL_INDEX_PARITY")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| {
                std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../../__test__/fixtures/parity/reference-vectors.json")
            });
        let Ok(text) = std::fs::read_to_string(&path) else {
            assert!(
                std::env::var("TOOL_INDEX_REQUIRE_PARITY").as_deref() != Ok("1"),
                "parity vectors required but missing at {}",
                path.display()
            );
            eprintln!("skipped: no parity vectors at {}", path.display());
            return None;
        };
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut tools: Vec<ToolDoc> = v["catalog"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| ToolDoc {
                name: t["name"].as_str().unwrap().to_owned(),
                description: t["description"].as_str().unwrap_or("").to_owned(),
                search_hint: t["searchHint"].as_str().map(str::to_owned),
                ..ToolDoc::default()
            })
            .collect();
        let have: std::collections::HashSet<String> =
            tools.iter().map(|t| t.name.clone()).collect();
        tools.extend(extras().into_iter().filter(|t| !have.contains(&t.name)));
        Some((ToolIndex::build(tools, IndexOptions::default()).unwrap(), v))
    }

    const TRICKY: &[&str] = &[
        "c++",
        "'aapl'",
        "$10",
        "+",
        "++x",
        "mcp__",
        "mcp__github",
        "",
        "   ",
        "+github",
        "+file",
        "+file +read",
        "+zzzz file",
        "+",
        "+ +",
        "++",
        "file file file",
        "+file file",
        "résumé",
        "é",
        "文件",
        "文件file",
        "naïve—test",
        "k",
        "\u{212A}",
        "e.g.",
        "e.g",
        "file.txt",
        "a+b",
        "_x_",
        "_",
        "__",
        "a",
        "a b c",
        "mcp__github__create_issue",
        "MCP__GITHUB",
        "mcp__a",
        "mcp__a___b",
        "mcp__zz",
        "notebookedittool",
        "NotebookEditTool",
        "  NotebookEditTool  ",
        "notebook",
        "edit",
        "http",
        "httpserver",
        "cron create",
        "+cron +create schedule",
        "ls",
        "l",
        "σ",
        "ς",
        "ΣΑΣ",
        "ǆ",
        "(x)",
        "($10)",
        "-",
        "--",
        "'",
        "''",
        "\"json\"",
        "json,",
        "github.",
        "+github. issue",
        "create-issue",
        "create_issue",
        "github create issue",
        "x$10",
        "sign",
        "\u{FEFF}file\u{3000}read\u{85}",
        "mcp__uni__café",
        "café",
        "+café",
        "up",
        "upper-case",
        "per",
        "issue issue +issue",
    ];

    #[test]
    fn fast_path_equals_literal_algorithm() {
        let Some((index, v)) = catalog_index() else {
            return;
        };
        let mut queries: Vec<String> = TRICKY.iter().map(|s| s.to_string()).collect();
        for c in v["keyword"].as_array().unwrap() {
            queries.push(c["query"].as_str().unwrap().to_owned());
        }
        // Required-term variants of the vector queries.
        let base = queries.clone();
        for (i, q) in base.iter().enumerate() {
            let plus: Vec<String> = q
                .split(' ')
                .enumerate()
                .map(|(j, t)| {
                    if (i + j) % 3 == 0 {
                        format!("+{t}")
                    } else {
                        t.to_owned()
                    }
                })
                .collect();
            queries.push(plus.join(" "));
        }
        // Random queries over the catalog's own words, parts, fragments and punctuation.
        let mut pool: Vec<String> = Vec::new();
        for s in index.slots().step_by(7) {
            let d = index.doc(s).unwrap();
            pool.extend(d.desc_lower.split_whitespace().take(12).map(str::to_owned));
            pool.extend(d.parsed.parts.iter().cloned());
            if let Some(p) = d.parsed.parts.last() {
                let cut: String = p.chars().skip(1).take(3).collect();
                pool.push(cut);
            }
        }
        pool.extend(TRICKY.iter().map(|s| s.to_string()));
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        };
        for _ in 0..1500 {
            let k = 1 + rnd(5);
            let mut q = Vec::new();
            for _ in 0..k {
                let mut t = pool[rnd(pool.len())].clone();
                match rnd(8) {
                    0 => t = format!("+{t}"),
                    1 => t.push_str([",", ".", "'", "+", ")", "é"][rnd(6)]),
                    2 => t.insert_str(0, ["'", "(", "$", "-", "文"][rnd(5)]),
                    _ => {}
                }
                q.push(t);
            }
            queries.push(q.join(" "));
        }
        let docs: Vec<(&crate::index::Doc, ParsedName)> = index
            .slots()
            .map(|s| index.doc(s).unwrap())
            .map(|d| (d, parse_tool_name(&d.name)))
            .collect();
        let mut memo = Memo::default();
        for q in &queries {
            // The literal list for a large limit; smaller limits cut it (the exact path
            // ignores the limit, every other path yields nothing at limit 0).
            let full = naive_on(&docs, &mut memo, q, 40);
            for max in [0, 1, 3, 10, 40] {
                let want: Vec<(String, f64)> = if full.len() == 1
                    && full[0].1 == f64::INFINITY
                    && parse_query(q).normalized == js_lower(&full[0].0)
                {
                    full.clone()
                } else {
                    full.iter().take(max).cloned().collect()
                };
                assert_eq!(fast(&index, q, max), want, "query {q:?} max {max}");
            }
        }
        assert!(queries.len() > 2000);
    }

    #[test]
    fn parse_query_rules() {
        let q = parse_query("  +Foo bar +  foo +bar baz\u{3000}+ ");
        assert_eq!(q.normalized, "+foo bar +  foo +bar baz\u{3000}+");
        let got: Vec<(&str, u32, bool)> = q
            .terms
            .iter()
            .map(|t| (t.text.as_str(), t.weight, t.required))
            .collect();
        assert_eq!(
            got,
            vec![
                ("foo", 2, true),
                ("bar", 2, true),
                ("+", 2, false),
                ("baz", 1, false)
            ]
        );
        assert_eq!(q.required, 2);
        assert!(parse_query("MCP__x").wants_prefix());
        assert!(!parse_query("mcp__").wants_prefix());
        assert!(parse_query(" \u{FEFF} ").terms.is_empty());
    }

    #[test]
    fn updates_drop_the_keyword_postings() {
        let mut idx = ToolIndex::build(extras(), IndexOptions::default()).unwrap();
        assert_eq!(fast(&idx, "notebook", 5)[0].0, "NotebookEditTool");
        idx.remove(&["NotebookEditTool"]);
        idx.upsert(vec![ToolDoc::new("ls", "notebook viewer")])
            .unwrap();
        let mut expect: Vec<ToolDoc> = extras()
            .into_iter()
            .filter(|t| t.name != "NotebookEditTool")
            .collect();
        let at = expect.iter().position(|t| t.name == "ls").unwrap();
        expect[at] = ToolDoc::new("ls", "notebook viewer");
        let fresh = ToolIndex::build(expect, IndexOptions::default()).unwrap();
        for q in [
            "notebook",
            "c++",
            "ls",
            "+notebook viewer",
            "mcp__a",
            "file",
        ] {
            assert_eq!(fast(&idx, q, 10), fast(&fresh, q, 10), "{q}");
            assert_eq!(fast(&idx, q, 10), naive(&idx, q, 10), "{q}");
        }
    }

    #[test]
    fn merge_order_and_exact_outside() {
        let idx = ToolIndex::build(extras(), IndexOptions::default()).unwrap();
        // A core tool named like the query: the keyword list is that one slot-less tool.
        let r = tool_search_rank(
            &idx,
            " Bash ",
            5,
            MergeWeights::default(),
            0.1,
            Some("Bash"),
        );
        assert_eq!(r[0].slot, None);
        assert_eq!(r[0].keyword_rank, Some(0));
        assert!((r[0].score - 0.4).abs() < 1e-12);
        assert_eq!(r[0].name(&idx, Some("Bash")), Some("Bash"));
        // Ignored when it does not equal the query, or when an indexed tool does.
        let r = tool_search_rank(&idx, "bash", 5, MergeWeights::default(), 0.1, Some("Grep"));
        assert!(r.iter().all(|h| h.slot.is_some()));
        let r = tool_search_rank(&idx, "ls", 5, MergeWeights::default(), 0.1, Some("LS"));
        assert_eq!(r[0].name(&idx, None), Some("ls"));
        // Ties: keyword hits in rank order first, then TF-IDF-only hits.
        let m = merge(
            &[Some(4), Some(2)],
            &[
                Hit {
                    slot: 7,
                    score: 1.0,
                },
                Hit {
                    slot: 2,
                    score: 0.5,
                },
            ],
            5,
            MergeWeights {
                keyword: 0.5,
                tfidf: 0.5,
            },
        );
        let got: Vec<(Option<u32>, f64)> = m.iter().map(|h| (h.slot, h.score)).collect();
        assert_eq!(got, vec![(Some(4), 0.5), (Some(2), 0.5), (Some(7), 0.5)]);
        assert_eq!(m[1].keyword_rank, Some(1));
        assert_eq!(m[1].tfidf_score, Some(0.5));
        assert!(merge(&[Some(1)], &[], 0, MergeWeights::default()).is_empty());
    }
}
