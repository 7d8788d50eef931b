//! **Enhanced** ranking: BM25F over five fields with name-aware matching.
//!
//! * Fields: the tool's own name (the leaf after `mcp__server__`), its server, the
//!   searchHint, the description, and the input schema's property names and descriptions,
//!   each with a weight and a length normalization ([`Params`]).
//! * One analyzer for tools and queries ([`analyze`]): Unicode words, identifier splitting,
//!   Snowball stemming, CJK bigrams, a token-length cap.
//! * Name matching on token boundaries: a query token equal to a tool's full name, its leaf
//!   name or its compacted name (`croncreate`), or a server plus a leaf
//!   (`slack send_message`), puts the tool in a *tier* that BM25F cannot outrank.
//! * `server:NAME` and `+NAME` (a known server) restrict results to a server; `+word`
//!   requires a word.
//! * Typo tolerance on name words (one edit, words of 5+ letters), a Chinese → English
//!   lexicon ([`lexicon`]) for CJK queries, English synonyms at a low weight, quoted words
//!   (argument values) at a lower weight, and generic words weighing less in names.
//! * Multi-step requests are split into clauses, and results picked so that each clause is
//!   covered ([`EnhancedIndex::search`]).
//! * An abstain rule: when no name matched and the best tool's confidence is low and it
//!   covers little of the request, nothing is returned.
//!
//! Scores: `tier + confidence`, where `tier` ∈ {0, 1, 2, 3} is the name-match tier and
//! `confidence` ∈ [0, 1) grows with the BM25F evidence, not with the share of the request
//! matched ([`confidence`]).

pub mod analyze;
pub mod lexicon;
pub mod segment;

use std::borrow::Cow;
use std::cell::RefCell;

use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use crate::collector::{best_k, rank_order, top_k, Hit};
use crate::error::{ErrorCode, IndexError};
use crate::index::ToolDoc;
use crate::name::MCP_PREFIX;
use crate::store::{Scorer, SlotDoc, SlotStore};
use analyze::{is_cjk, Analyzer};

/// Number of fields.
pub const FIELDS: usize = 5;
/// Field names, in field order.
pub const FIELD_NAMES: [&str; FIELDS] = ["name", "server", "searchHint", "description", "schema"];

/// Ranking parameters (chosen by measurement on the dev split of `bench/quality.mjs`).
#[derive(Debug, Clone, PartialEq)]
pub struct Params {
    /// BM25 term-frequency saturation.
    pub k1: f64,
    /// Field weights: name, server, searchHint, description, schema.
    pub weights: [f64; FIELDS],
    /// Field length normalization (0 = none, 1 = full).
    pub b: [f64; FIELDS],
    /// Query weight of a one-edit correction of an unknown word.
    pub typo_weight: f64,
    /// Query weight of a lexicon expansion of CJK text.
    pub lexicon_weight: f64,
    /// Abstain only when the best tool also matches less than this share of the query's
    /// IDF mass (see [`Params::abstain_confidence`]; 0 turns abstaining off).
    pub abstain_coverage: f64,
    /// How much a query word that no tool has counts in the query's mass (×its IDF).
    pub unknown_weight: f64,
    /// Abstain when the best tool's confidence ([`confidence`]) is below this, it covers
    /// less than [`Params::abstain_coverage`] of the request, no name matched and no server
    /// filter was given: the request matched only a few weak words (0 turns it off).
    pub abstain_confidence: f64,
    /// Evidence at which a tool's confidence is one half (see [`confidence`]).
    pub confidence_scale: f64,
    /// Weight of per-clause coverage in multi-step requests (0 turns it off; see
    /// [`EnhancedIndex::search`]).
    pub clause_weight: f64,
    /// Query weight of a synonym ([`analyze::SYNONYMS`]) of a query word.
    pub synonym_weight: f64,
    /// Name-field weight of a generic word ([`analyze::GENERIC_NAME_WORDS`]) in place of
    /// `weights[0]`.
    pub generic_name_weight: f64,
    /// Query weight of words inside quotation marks (argument values: "named 'Daily Tasks'").
    pub quote_weight: f64,
}

/// A tool's confidence from its evidence: `e / (e + scale)`, in `[0, 1)`. The evidence is
/// the tool's BM25F score divided by the largest IDF the index can give (that of a word in
/// one tool), so it counts the query words the tool matches, each by how rare and how
/// prominent it is: about 1 for one rare word in the name, 2–3 for a typical right answer,
/// whatever the length of the request.
pub fn confidence(evidence: f64, scale: f64) -> f64 {
    let e = evidence.max(0.0);
    (e / (e + scale.max(1e-9))).min(0.999_999)
}

impl Default for Params {
    fn default() -> Self {
        Self {
            k1: 1.2,
            weights: [3.0, 1.5, 2.0, 1.0, 0.2],
            b: [0.3, 0.3, 0.5, 0.75, 0.75],
            typo_weight: 0.6,
            lexicon_weight: 0.8,
            abstain_coverage: 0.5,
            unknown_weight: 0.25,
            abstain_confidence: 0.23,
            confidence_scale: 1.0,
            clause_weight: 0.4,
            synonym_weight: 0.2,
            generic_name_weight: 1.0,
            quote_weight: 0.3,
        }
    }
}

/// Name-match tiers.
pub const TIER_LEAF: u8 = 1;
pub const TIER_SERVER_LEAF: u8 = 2;
pub const TIER_FULL: u8 = 3;

#[derive(Debug, Clone)]
pub(crate) struct Doc {
    name: String,
    server_key: Option<String>,
    terms: Vec<(u32, [u16; FIELDS])>,
    len: [u32; FIELDS],
    /// `1 / (1 - b + b * len / avg)` per field.
    norm: [f64; FIELDS],
    keys: Vec<(String, u8)>,
}

impl SlotDoc for Doc {
    fn name(&self) -> &str {
        &self.name
    }
    fn term_ids(&self) -> impl Iterator<Item = u32> + '_ {
        self.terms.iter().map(|&(t, _)| t)
    }
}

struct Analyzed {
    name: String,
    server_key: Option<String>,
    tf: Vec<(String, [u16; FIELDS])>,
    len: [u32; FIELDS],
    keys: Vec<(String, u8)>,
}

/// Marks compacted-name keys (`croncreate` for `CronCreate`, `sendmessage` for
/// `send_message`) in the key map: they only come from multi-word names, so even a plain
/// query word may match them.
const COMPACT_MARK: char = '\u{1}';

/// Lowercase, `-` → `_`, quotes and surrounding punctuation trimmed.
pub fn name_key(s: &str) -> String {
    let t = s.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'));
    if t.is_ascii() {
        // One pass and one allocation; the same as below for ASCII.
        return t
            .bytes()
            .map(|b| match b {
                b'-' => '_',
                _ => char::from(b.to_ascii_lowercase()),
            })
            .collect();
    }
    t.to_lowercase().replace('-', "_")
}

fn compact(s: &str) -> String {
    s.chars().filter(|c| *c != '_').collect()
}

/// Split a name into (server, leaf): `mcp__srv__tool` → (`srv`, `tool`); else (given server, name).
pub fn server_and_leaf<'a>(name: &'a str, server: Option<&'a str>) -> (Option<&'a str>, &'a str) {
    if let Some(rest) = name.strip_prefix(MCP_PREFIX) {
        if let Some(i) = rest.find("__") {
            return (Some(&rest[..i]), &rest[i + 2..]);
        }
        return (server, rest);
    }
    (server, name)
}

fn analyze_doc(a: &Analyzer, doc: &ToolDoc) -> Analyzed {
    let (server, leaf) = server_and_leaf(&doc.name, doc.server.as_deref());
    let texts: [&str; FIELDS] = [
        leaf,
        server.unwrap_or(""),
        doc.search_hint.as_deref().unwrap_or(""),
        &doc.description,
        doc.schema_text.as_deref().unwrap_or(""),
    ];
    let mut order: Vec<(String, [u16; FIELDS])> = Vec::new();
    let mut pos: FxHashMap<String, usize> = FxHashMap::default();
    let mut len = [0u32; FIELDS];
    for (f, text) in texts.iter().enumerate() {
        a.analyze(text, |t| {
            len[f] += 1;
            let i = match pos.get(t.as_ref()) {
                Some(&i) => i,
                None => {
                    order.push((t.to_string(), [0; FIELDS]));
                    pos.insert(t.into_owned(), order.len() - 1);
                    order.len() - 1
                }
            };
            order[i].1[f] = order[i].1[f].saturating_add(1);
        });
    }
    let server_key = server.map(|s| compact(&name_key(s)));
    let full = name_key(&doc.name);
    let leaf_key = name_key(leaf);
    let mut keys = vec![(full.clone(), TIER_FULL)];
    if leaf_key != full {
        keys.push((leaf_key.clone(), TIER_LEAF));
    }
    let c = compact(&leaf_key);
    if analyze::split_identifier(leaf).len() > 1 && c.len() >= 4 {
        keys.push((format!("{COMPACT_MARK}{c}"), TIER_LEAF));
    }
    Analyzed {
        name: doc.name.clone(),
        server_key,
        tf: order,
        len,
        keys,
    }
}

/// A query term, ready for scoring: its id, field weights and `query weight · idf`.
struct TermWeights {
    id: u32,
    fields: [f64; FIELDS],
    idf: f64,
}

/// Per-posting contributions of a request's terms, kept by its scoring pass for the
/// clauses that score the same terms again (a term counts as the same when its id and
/// query weight are). Values follow the term's postings, in order.
#[derive(Default)]
struct Kept {
    /// The `(term id, query weight bits)` pairs to keep.
    want: FxHashSet<(u32, u64)>,
    /// Where each kept term's values are: `(start, len)` in `values`.
    ranges: FxHashMap<(u32, u64), (usize, usize)>,
    values: Vec<f64>,
}

impl Kept {
    /// Keep the contributions of these `(term id, query weight)` pairs.
    fn wanting(pairs: impl IntoIterator<Item = (u32, f64)>) -> Self {
        Kept {
            want: pairs.into_iter().map(|(id, w)| (id, w.to_bits())).collect(),
            ..Kept::default()
        }
    }

    fn wants(&self, id: u32, w: f64) -> bool {
        !self.want.is_empty() && self.want.contains(&(id, w.to_bits()))
    }

    /// Start keeping a term's values (they follow, one per posting).
    fn open(&mut self, id: u32, w: f64, len: usize) {
        self.ranges
            .insert((id, w.to_bits()), (self.values.len(), len));
    }

    /// The kept values of this term at this weight, one per posting.
    fn get(&self, id: u32, w: f64) -> Option<&[f64]> {
        let &(start, len) = self.ranges.get(&(id, w.to_bits()))?;
        self.values.get(start..start + len)
    }
}

/// Per slot: (score, covered IDF mass, epoch).
#[derive(Clone, Copy)]
struct Cell(f64, f64, u32);

impl crate::collector::Cell for Cell {
    fn epoch(&self) -> u32 {
        self.2
    }
    fn fresh(epoch: u32) -> Self {
        Cell(0.0, 0.0, epoch)
    }
}

type Scratch = crate::collector::Accumulator<Cell>;

/// A term of an analysed query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    pub term: String,
    pub weight: f64,
    /// Why it is in the query: `"query"`, `"synonym:<word>"`, `"typo:<original>"` or
    /// `"lexicon"`.
    pub origin: Cow<'static, str>,
    pub required: bool,
}

/// An analysed query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedQuery {
    pub terms: Vec<QueryTerm>,
    /// Normalized raw tokens, for name matching, with whether each looked like an identifier
    /// (`snake_case`, `kebab-case`, `CamelCase`) or was the whole query.
    pub raw: Vec<String>,
    pub raw_ident: Vec<bool>,
    /// `server:` / `+server` filters (compacted server keys).
    pub servers: Vec<String>,
}

/// One field's share of a term's score, for [`EnhancedIndex::explain`].
#[derive(Debug, Clone, PartialEq)]
pub struct TermExplain {
    pub term: String,
    pub origin: String,
    pub idf: f64,
    /// `(field, tf, weighted normalized tf)` for the fields that have the term.
    pub fields: Vec<(&'static str, u16, f64)>,
    /// The term's BM25F contribution.
    pub score: f64,
}

/// Why a tool scored what it did.
#[derive(Debug, Clone, PartialEq)]
pub struct Explain {
    pub name: String,
    /// Share of the query's IDF mass this tool matches (what the abstain rule looks at).
    pub coverage: f64,
    pub tier: u8,
    pub relevance: f64,
    pub score: f64,
    pub terms: Vec<TermExplain>,
    pub filtered: Option<String>,
}

/// What one request's analysis has already worked out, shared with its clauses.
#[derive(Default)]
struct QueryMemo {
    /// Tokens by word.
    words: analyze::WordMemo,
    /// Typo corrections by unknown word.
    typos: FxHashMap<String, Vec<String>>,
}

/// The most words [`EnhancedIndex`] keeps analysed between requests (words of up to
/// [`analyze::MAX_MEMO_WORD`] bytes: well under 1 MB in all).
pub const WORD_CACHE_MAX: usize = 4096;

/// The enhanced index.
pub struct EnhancedIndex {
    params: Params,
    analyzer: Analyzer,
    parallel_threshold: usize,
    /// Tools, names, vocabulary and sorted postings `(slot, per-field tf)`.
    store: SlotStore<Doc, [u16; FIELDS]>,
    /// Terms seen in the name or server field, by their one-deletion variants.
    deletes: FxHashMap<Box<str>, Vec<u32>>,
    name_terms: FxHashSet<u32>,
    keys: FxHashMap<String, Vec<(u32, u8)>>,
    servers: FxHashMap<String, Vec<u32>>,
    len_sum: [u64; FIELDS],
    /// Per slot, the field length normalizations (zeros for an empty slot).
    norms: Vec<[f64; FIELDS]>,
    /// Per slot, the tie-break added to a confidence: `1e-9 / (1 + the tool's word count)`.
    ties: Vec<f64>,
    scratch: RefCell<Scratch>,
    /// Words requests have had, with their tokens (analysis is the same for every index, so
    /// this only saves work); at most [`WORD_CACHE_MAX`] words, then it starts over.
    word_cache: RefCell<analyze::WordMemo>,
    /// Stem → the stems of its synonyms.
    synonyms: FxHashMap<String, Vec<String>>,
    /// Stems of [`analyze::GENERIC_NAME_WORDS`].
    generic: FxHashSet<String>,
}

impl std::fmt::Debug for EnhancedIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EnhancedIndex")
            .field("len", &self.store.live)
            .finish()
    }
}

fn deletions(word: &str) -> Vec<String> {
    let chars: Vec<char> = word.chars().collect();
    (0..chars.len())
        .map(|i| {
            chars
                .iter()
                .enumerate()
                .filter(|(j, _)| *j != i)
                .map(|(_, c)| *c)
                .collect()
        })
        .collect()
}

impl EnhancedIndex {
    /// An empty index.
    pub fn new(params: Params, parallel_threshold: usize) -> Self {
        Self {
            params,
            analyzer: Analyzer::default(),
            parallel_threshold,
            store: SlotStore::default(),
            deletes: FxHashMap::default(),
            name_terms: FxHashSet::default(),
            keys: FxHashMap::default(),
            servers: FxHashMap::default(),
            len_sum: [0; FIELDS],
            norms: Vec::new(),
            ties: Vec::new(),
            scratch: RefCell::new(Scratch::default()),
            word_cache: RefCell::new(analyze::WordMemo::default()),
            synonyms: FxHashMap::default(),
            generic: FxHashSet::default(),
        }
        .with_word_tables()
    }

    fn with_word_tables(mut self) -> Self {
        for group in analyze::SYNONYMS {
            let stems: Vec<String> = group
                .iter()
                .map(|w| self.analyzer.stem_word(w))
                .filter(|s| !s.is_empty())
                .collect();
            for s in &stems {
                let e = self.synonyms.entry(s.clone()).or_default();
                for o in &stems {
                    if o != s && !e.contains(o) {
                        e.push(o.clone());
                    }
                }
            }
        }
        self.generic = analyze::GENERIC_NAME_WORDS
            .iter()
            .map(|w| self.analyzer.stem_word(w))
            .filter(|s| !s.is_empty())
            .collect();
        self
    }

    /// Build from tools in order; duplicate names are an error.
    pub fn build(
        tools: Vec<ToolDoc>,
        params: Params,
        parallel_threshold: usize,
    ) -> Result<Self, IndexError> {
        crate::store::check_unique(tools.iter().map(|t| t.name.as_str()))?;
        let mut idx = Self::new(params, parallel_threshold);
        idx.insert_batch(tools);
        idx.refresh();
        Ok(idx)
    }

    /// The ranking parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// An estimate of the heap bytes this index holds (what the binding reports to the
    /// JavaScript engine as external memory).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let docs: usize = self
            .store
            .docs
            .iter()
            .flatten()
            .map(|d| {
                d.name.capacity()
                    + d.server_key.as_ref().map_or(0, String::capacity)
                    + d.terms.capacity() * size_of::<(u32, [u16; FIELDS])>()
                    + d.keys.iter().map(|k| k.0.capacity() + 32).sum::<usize>()
            })
            .sum();
        let postings: usize = self
            .store
            .postings
            .iter()
            .map(|p| p.capacity() * size_of::<(u32, [u16; FIELDS])>() + 24)
            .sum();
        let vocab: usize = self.store.term_text.iter().map(|t| 2 * t.len() + 48).sum();
        let deletes: usize = self
            .deletes
            .iter()
            .map(|(k, v)| k.len() + v.capacity() * 4 + 48)
            .sum();
        let keys: usize = self
            .keys
            .iter()
            .map(|(k, v)| k.capacity() + v.capacity() * 8 + 48)
            .sum();
        docs + self.store.docs.capacity() * size_of::<Option<Doc>>()
            + postings
            + vocab
            + deletes
            + keys
            + self.store.by_name.len() * 48
            + self.store.by_name.keys().map(String::len).sum::<usize>()
            + self.norms.capacity() * size_of::<[f64; FIELDS]>()
    }

    pub fn len(&self) -> usize {
        self.store.live
    }

    pub fn is_empty(&self) -> bool {
        self.store.live == 0
    }

    /// Increases when removals renumber slots.
    pub fn generation(&self) -> u64 {
        self.store.generation()
    }

    /// One past the last slot in use (live or emptied).
    pub fn slot_count(&self) -> usize {
        self.store.slot_count()
    }

    /// The name of the tool in a slot.
    pub fn name(&self, slot: u32) -> Option<&str> {
        self.store.doc(slot).map(|d| d.name.as_str())
    }

    pub fn slot_of(&self, name: &str) -> Option<u32> {
        self.store.slot_of(name)
    }

    pub fn slots(&self) -> impl Iterator<Item = u32> + '_ {
        self.store.slots()
    }

    /// Distinct analysed terms of a tool, first seen first.
    pub fn tokens(&self, slot: u32) -> Vec<&str> {
        self.store
            .docs
            .get(slot as usize)
            .and_then(Option::as_ref)
            .map(|d| {
                d.terms
                    .iter()
                    .map(|(t, _)| &*self.store.term_text[*t as usize])
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Add or replace tools (replacements keep their slot). Returns each tool's slot.
    pub fn upsert(&mut self, tools: Vec<ToolDoc>) -> Result<Vec<u32>, IndexError> {
        crate::store::upsert(self, tools)
    }

    /// Remove tools by name; returns how many were present.
    pub fn remove<S: AsRef<str>>(&mut self, names: &[S]) -> usize {
        crate::store::remove(self, names)
    }

    fn link(&mut self, slot: u32, a: Analyzed) {
        let mut terms = Vec::with_capacity(a.tf.len());
        for (tok, tfs) in a.tf {
            let (id, _) = self.store.intern(&tok);
            if (tfs[0] > 0 || tfs[1] > 0) && self.name_terms.insert(id) {
                let text = self.store.term_text[id as usize].clone();
                if text.chars().count() >= 4 && !text.chars().any(is_cjk) {
                    for d in deletions(&text) {
                        self.deletes.entry(d.into_boxed_str()).or_default().push(id);
                    }
                }
            }
            self.store.post(id, slot, tfs);
            terms.push((id, tfs));
        }
        for (k, tier) in &a.keys {
            self.keys.entry(k.clone()).or_default().push((slot, *tier));
        }
        if let Some(s) = &a.server_key {
            self.servers.entry(s.clone()).or_default().push(slot);
        }
        for f in 0..FIELDS {
            self.len_sum[f] += a.len[f] as u64;
        }
        self.store.occupy(
            slot,
            Doc {
                name: a.name,
                server_key: a.server_key,
                terms,
                len: a.len,
                norm: [1.0; FIELDS],
                keys: a.keys,
            },
        );
    }

    fn idf(&self, term: u32) -> f64 {
        let n = self.store.live as f64;
        let df = self.store.postings[term as usize].len() as f64;
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// Analyse a query: terms (with typo and lexicon expansions), raw tokens, server filters.
    pub fn parse_query(&self, query: &str) -> ParsedQuery {
        self.parse_query_with(query, &mut QueryMemo::default(), true)
    }

    /// [`EnhancedIndex::parse_query`] with a memo of analysed words and typo corrections,
    /// shared by a request and its clauses. Without `names`, the raw name tokens are left
    /// out (a clause is scored by its terms only).
    fn parse_query_with(&self, query: &str, memo: &mut QueryMemo, names: bool) -> ParsedQuery {
        let query = analysed_prefix(query);
        let mut q = ParsedQuery::default();
        // Term → its position in `q.terms` (a map, so many distinct words stay linear).
        let mut seen: FxHashMap<String, usize> = FxHashMap::default();
        let mut add = |q: &mut ParsedQuery,
                       term: String,
                       weight: f64,
                       origin: Cow<'static, str>,
                       required: bool| {
            if let Some(&i) = seen.get(&term) {
                let existing = &mut q.terms[i];
                existing.required |= required;
                existing.weight = existing.weight.max(weight);
                return;
            }
            seen.insert(term.clone(), q.terms.len());
            q.terms.push(QueryTerm {
                term,
                weight,
                origin,
                required,
            });
        };
        let mut free_text = String::new();
        let mut quoted_text = String::new();
        let raws: Vec<&str> = query.split_whitespace().collect();
        let quoted = quoted_tokens(&raws);
        for (ri, &raw) in raws.iter().enumerate() {
            // `+word` requires a word; `+1 555 …` and `+1234567890` are phone numbers.
            let (required, body) = match raw.strip_prefix('+') {
                Some(b) if b.chars().next().is_some_and(char::is_alphabetic) => (true, b),
                _ => (false, raw),
            };
            if let Some(s) = body.strip_prefix("server:") {
                let key = compact(&name_key(s));
                if !key.is_empty() {
                    q.servers.push(key);
                }
                continue;
            }
            if required {
                let key = compact(&name_key(body));
                if !key.is_empty() && self.servers.contains_key(&key) {
                    q.servers.push(key);
                    continue;
                }
            }
            let key = if names { name_key(body) } else { String::new() };
            if !key.is_empty() {
                let trimmed =
                    body.trim_matches(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'));
                let camel = trimmed
                    .chars()
                    .zip(trimmed.chars().skip(1))
                    .any(|(a, b)| (a.is_lowercase() || a.is_ascii_digit()) && b.is_uppercase());
                let ident =
                    camel || trimmed.contains('_') || trimmed.trim_matches('-').contains('-');
                q.raw.push(key);
                q.raw_ident.push(ident || query.trim() == raw);
            }
            if required {
                for t in self.analyzer.tokens(body) {
                    add(&mut q, t, 1.0, Cow::Borrowed("query"), true);
                }
            } else if quoted[ri] {
                quoted_text.push_str(body);
                quoted_text.push(' ');
            } else {
                free_text.push_str(body);
                free_text.push(' ');
            }
        }
        // Quoted text is mostly an argument value ("named 'Daily Tasks'"): its words weigh
        // less, unless the request is nothing but a quotation.
        if !free_text.chars().any(char::is_alphanumeric) {
            free_text = std::mem::take(&mut quoted_text);
        }
        for t in self.analyzer.query_tokens_with(&free_text, &mut memo.words) {
            add(&mut q, t, 1.0, Cow::Borrowed("query"), false);
        }
        for t in self
            .analyzer
            .query_tokens_with(&quoted_text, &mut memo.words)
        {
            add(
                &mut q,
                t,
                self.params.quote_weight,
                Cow::Borrowed("query"),
                false,
            );
        }
        if self.params.synonym_weight > 0.0 {
            let words: Vec<String> = q
                .terms
                .iter()
                .filter(|t| t.origin == "query" && t.weight >= 1.0)
                .map(|t| t.term.clone())
                .collect();
            for w in words {
                if let Some(syn) = self.synonyms.get(&w) {
                    for s in syn {
                        add(
                            &mut q,
                            s.clone(),
                            self.params.synonym_weight,
                            Cow::Owned(format!("synonym:{w}")),
                            false,
                        );
                    }
                }
            }
        }
        q.servers.sort_unstable();
        q.servers.dedup();
        if query.chars().any(is_cjk) {
            for en in lexicon::expand(query) {
                let t = self.analyzer.stem_word(en);
                if !t.is_empty() {
                    add(
                        &mut q,
                        t,
                        self.params.lexicon_weight,
                        Cow::Borrowed("lexicon"),
                        false,
                    );
                }
            }
        }
        // One-edit corrections of unknown words against the name vocabulary.
        let unknown: Vec<String> = q
            .terms
            .iter()
            .filter(|t| {
                t.origin == "query" && t.term.chars().count() >= 5 && !t.term.chars().any(is_cjk)
            })
            .filter(|t| {
                self.store
                    .vocab
                    .get(t.term.as_str())
                    .is_none_or(|&id| self.store.postings[id as usize].is_empty())
            })
            .map(|t| t.term.clone())
            .collect();
        for u in unknown {
            let fixes = match memo.typos.get(&u) {
                Some(f) => f.clone(),
                None => {
                    let f = self.corrections(&u);
                    memo.typos.insert(u.clone(), f.clone());
                    f
                }
            };
            for c in fixes {
                add(
                    &mut q,
                    c,
                    self.params.typo_weight,
                    Cow::Owned(format!("typo:{u}")),
                    false,
                );
            }
        }
        q
    }

    /// Whether a term is in some tool's name or server field now (the deletion map may hold
    /// terms that no longer are, after removals: they are skipped here, so corrections depend
    /// only on the current tools, not on the index's history).
    fn is_name_term(&self, id: u32) -> bool {
        self.store.postings[id as usize]
            .iter()
            .any(|(_, tf)| tf[0] > 0 || tf[1] > 0)
    }

    fn corrections(&self, word: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        let mut push = |id: u32| {
            if self.is_name_term(id) {
                let t = self.store.term_text[id as usize].to_string();
                if t != word && !out.contains(&t) {
                    out.push(t);
                }
            }
        };
        if let Some(ids) = self.deletes.get(word) {
            ids.iter().for_each(|&i| push(i));
        }
        for d in deletions(word) {
            if let Some(&id) = self.store.vocab.get(d.as_str()) {
                push(id);
            }
            if let Some(ids) = self.deletes.get(d.as_str()) {
                ids.iter().for_each(|&i| push(i));
            }
        }
        // A fixed order (not the order terms entered the vocabulary) before keeping three.
        out.sort_unstable();
        out.truncate(3);
        out
    }

    /// Name-match tier of each slot that has one.
    fn tiers(&self, q: &ParsedQuery) -> FxHashMap<u32, u8> {
        let mut tiers: FxHashMap<u32, u8> = FxHashMap::default();
        let compacts: Vec<String> = q.raw.iter().map(|r| compact(r)).collect();
        // The query's words and servers a leaf match may be on (made on the first leaf match).
        let mut raw_servers: Option<FxHashSet<&str>> = None;
        let mut key = String::new();
        for ((r, c), &ident) in q.raw.iter().zip(&compacts).zip(&q.raw_ident) {
            // A plain word ("image", "search") names a tool only when it is the whole query;
            // identifier-shaped tokens (`create_issue`, `CronCreate`) always may.
            key.clear();
            key.push(COMPACT_MARK);
            key.push_str(c);
            let candidates = [ident.then_some(r.as_str()), Some(key.as_str())];
            for cand in candidates.into_iter().flatten() {
                let Some(v) = self.keys.get(cand) else {
                    continue;
                };
                for &(slot, tier) in v {
                    let mut t = tier;
                    if tier == TIER_LEAF {
                        let servers = raw_servers.get_or_insert_with(|| {
                            compacts
                                .iter()
                                .map(String::as_str)
                                .chain(q.servers.iter().map(String::as_str))
                                .collect()
                        });
                        let on_server = self.store.docs[slot as usize]
                            .as_ref()
                            .and_then(|d| d.server_key.as_deref())
                            .is_some_and(|s| servers.contains(s));
                        if on_server {
                            t = TIER_SERVER_LEAF;
                        }
                    }
                    let e = tiers.entry(slot).or_insert(0);
                    *e = (*e).max(t);
                }
            }
        }
        tiers
    }

    /// Search: best first (tier, then confidence; ties to the tool with fewer words, then
    /// index order), scores at or above `min_score`, at most `limit`.
    ///
    /// A request of several steps ("create a file …, then rename it and list the folder")
    /// is also split into clauses ([`analyze::clauses`]); each result's score then mixes its
    /// whole-request confidence with how much it adds to the clauses the results above it
    /// have not yet covered (see [`EnhancedIndex::search_clauses`]), so one step's tools do
    /// not fill every slot.
    pub fn search(&self, query: &str, limit: usize, min_score: f64) -> Vec<Hit> {
        let mut memo = QueryMemo {
            words: self.word_cache.take(),
            typos: FxHashMap::default(),
        };
        let q = self.parse_query_with(query, &mut memo, true);
        let parts = self.clause_queries_with(query, &mut memo);
        if memo.words.len() > WORD_CACHE_MAX {
            memo.words = analyze::WordMemo::default();
        }
        self.word_cache.replace(memo.words);
        self.search_clauses(&q, &parts, limit, min_score)
    }

    /// How many postings the terms of an analysed query have: the work of its scoring loop
    /// (for measuring the cost per matching posting at different index sizes).
    pub fn matching_postings(&self, q: &ParsedQuery) -> usize {
        q.terms
            .iter()
            .filter_map(|t| self.store.vocab.get(t.term.as_str()))
            .map(|&id| self.store.postings[id as usize].len())
            .sum()
    }

    /// [`EnhancedIndex::search`] on an analysed query (one clause).
    pub fn search_parsed(&self, q: &ParsedQuery, limit: usize, min_score: f64) -> Vec<Hit> {
        self.search_clauses(q, &[], limit, min_score)
    }

    /// The analysed clauses of a multi-step request (their terms; raw name tokens are not
    /// kept); empty when it has fewer than two clauses with a word some tool has (or clause
    /// coverage is off).
    pub fn clause_queries(&self, query: &str) -> Vec<ParsedQuery> {
        self.clause_queries_with(query, &mut QueryMemo::default())
    }

    fn clause_queries_with(&self, query: &str, memo: &mut QueryMemo) -> Vec<ParsedQuery> {
        const MAX_CLAUSES: usize = 8;
        if self.params.clause_weight <= 0.0 {
            return Vec::new();
        }
        let text = analysed_prefix(query);
        let parts = analyze::clauses(text);
        if parts.len() < 2 || parts.len() > MAX_CLAUSES {
            return Vec::new();
        }
        let out: Vec<ParsedQuery> = parts
            .into_iter()
            .map(|c| self.parse_query_with(c, memo, false))
            .filter(|pq| {
                pq.terms.iter().any(|t| {
                    t.origin == "query"
                        && self
                            .store
                            .vocab
                            .get(t.term.as_str())
                            .is_some_and(|&id| !self.store.postings[id as usize].is_empty())
                })
            })
            .collect();
        if out.len() < 2 {
            return Vec::new();
        }
        out
    }

    /// Search with the request's clauses (none or one: a plain search).
    pub fn search_clauses(
        &self,
        q: &ParsedQuery,
        parts: &[ParsedQuery],
        limit: usize,
        min_score: f64,
    ) -> Vec<Hit> {
        if self.store.live == 0 || (q.terms.is_empty() && q.raw.is_empty() && q.servers.is_empty())
        {
            return Vec::new();
        }
        if q.terms.is_empty() && !q.servers.is_empty() {
            // Only a server filter: that server's tools, in index order.
            let mut hits: Vec<Hit> = q
                .servers
                .iter()
                .filter_map(|s| self.servers.get(s))
                .flatten()
                .map(|&slot| Hit { slot, score: 0.0 })
                .collect();
            hits.retain(|h| h.score >= min_score);
            top_k(&mut hits, limit);
            return hits;
        }
        if parts.len() < 2 {
            let mut hits = self.score(q, &mut Kept::default());
            hits.retain(|h| h.score >= min_score);
            top_k(&mut hits, limit);
            return hits;
        }
        let clause_terms = self.clause_terms(parts);
        let mut kept = Kept::wanting(clause_terms.iter().flatten().copied());
        let mut hits = self.score(q, &mut kept);
        if !hits.is_empty() {
            hits = self.cover_clauses(hits, &clause_terms, &kept, limit, min_score);
        }
        hits.retain(|h| h.score >= min_score);
        top_k(&mut hits, limit);
        hits
    }

    /// A term's BM25F contribution in one slot (`tfs` its field frequencies there).
    fn term_score(&self, tw: &TermWeights, slot: u32, tfs: &[u16; FIELDS]) -> f64 {
        let tfw = weighted_tf(&tw.fields, tfs, &self.norms[slot as usize]);
        tw.idf * tfw / (self.params.k1 + tfw)
    }

    /// A query term's field weights (generic words weigh less in the name) and `w · idf`.
    fn term_weights(&self, id: u32, w: f64) -> TermWeights {
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

    fn is_generic(&self, id: u32) -> bool {
        !self.generic.is_empty() && self.generic.contains(&*self.store.term_text[id as usize])
    }

    /// Evidence → confidence, with a tie-break below any real difference: of two tools
    /// with the same evidence, the one with fewer words (the more specific) first.
    fn confidence_of(&self, raw: f64, max_idf: f64, slot: u32) -> f64 {
        let c = confidence(raw / max_idf, self.params.confidence_scale);
        (c + self.ties[slot as usize]).min(0.999_999)
    }

    /// Each clause's known terms `(id, weight)`, without those other clauses share (the
    /// object a request names once and refers to again: "create a collection …, then list
    /// the trash in this collection" scores its second clause by "list" and "trash"); a
    /// clause with nothing of its own keeps all of its terms.
    fn clause_terms(&self, parts: &[ParsedQuery]) -> Vec<Vec<(u32, f64)>> {
        let known = |pq: &ParsedQuery| -> Vec<(u32, f64)> {
            pq.terms
                .iter()
                .filter_map(|t| {
                    let id = *self.store.vocab.get(t.term.as_str())?;
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
    fn cover_clauses(
        &self,
        hits: Vec<Hit>,
        clause_terms: &[Vec<(u32, f64)>],
        kept: &Kept,
        limit: usize,
        min_score: f64,
    ) -> Vec<Hit> {
        // A pool that does not depend on `limit`, so a shorter list is a prefix of a longer.
        const POOL: usize = 20;
        let lambda = self.params.clause_weight;
        let pool = POOL;
        // The pool: the best whole-request candidates plus each clause's best few.
        // Clause tops are marked in a bit set over the slots (one test per hit below).
        let mut extra = vec![0u64; self.store.docs.len().div_ceil(64)];
        for ts in clause_terms {
            for slot in self.top_raw(ts, 3, kept) {
                extra[slot as usize / 64] |= 1 << (slot % 64);
            }
        }
        let is_extra = |slot: u32| extra[slot as usize / 64] & (1 << (slot % 64)) != 0;
        let mut best = if hits.len() <= pool {
            let mut all = hits.clone();
            all.sort_unstable_by(rank_order);
            all
        } else {
            best_k(hits.iter().copied(), pool)
        };
        // Hits ranked after the best `pool`: the clause tops among them join the pool, the
        // others follow it.
        let last = best.last().copied();
        let beyond = |h: &Hit| last.is_none_or(|l| rank_order(h, &l).is_gt());
        best.extend(hits.iter().filter(|h| beyond(h) && is_extra(h.slot)));
        best.sort_unstable_by(rank_order);
        let rest = || {
            hits.iter()
                .copied()
                .filter(|h| beyond(h) && !is_extra(h.slot))
        };
        let hits = best;
        let n = hits.len();
        let mut r: Vec<Vec<f64>> = Vec::with_capacity(clause_terms.len());
        for terms in clause_terms {
            // Each term's score in a slot: its kept contribution there, or computed.
            let scorers: Vec<(TermWeights, Option<&[f64]>)> = terms
                .iter()
                .map(|&(id, w)| (self.term_weights(id, w), kept.get(id, w)))
                .collect();
            let mut row: Vec<f64> = hits
                .iter()
                .map(|h| {
                    scorers
                        .iter()
                        .filter_map(|(tw, values)| {
                            let postings = &self.store.postings[tw.id as usize];
                            let at = postings.binary_search_by_key(&h.slot, |&(s, _)| s).ok()?;
                            Some(match values {
                                Some(v) => v[at],
                                None => self.term_score(tw, h.slot, &postings[at].1),
                            })
                        })
                        .sum()
                })
                .collect();
            let max = row.iter().copied().fold(0.0f64, f64::max);
            if max > 0.0 {
                row.iter_mut().for_each(|x| *x /= max);
                r.push(row);
            }
        }
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

    /// The `k` slots with the highest BM25F score for these terms (no filters). A term the
    /// request's scoring pass kept takes its contributions from there (the same values).
    fn top_raw(&self, terms: &[(u32, f64)], k: usize, kept: &Kept) -> Vec<u32> {
        if let [(id, w)] = *terms {
            // One term: its own contributions are the scores (no accumulator needed).
            let postings = &self.store.postings[id as usize];
            let top = match kept.get(id, w) {
                Some(values) => best_k(
                    postings
                        .iter()
                        .zip(values)
                        .map(|(&(slot, _), &score)| Hit { slot, score }),
                    k,
                ),
                None => {
                    let tw = self.term_weights(id, w);
                    best_k(
                        postings.iter().map(|&(slot, tfs)| Hit {
                            slot,
                            score: self.term_score(&tw, slot, &tfs),
                        }),
                        k,
                    )
                }
            };
            return top.into_iter().map(|h| h.slot).collect();
        }
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        s.begin(self.store.docs.len());
        for &(id, w) in terms {
            let postings = &self.store.postings[id as usize];
            if let Some(values) = kept.get(id, w) {
                for (&(slot, _), &v) in postings.iter().zip(values) {
                    s.cell(slot).0 += v;
                }
                continue;
            }
            let tw = self.term_weights(id, w);
            for &(slot, tfs) in postings {
                let v = self.term_score(&tw, slot, &tfs);
                s.cell(slot).0 += v;
            }
        }
        let touched = s
            .touched()
            .iter()
            .filter_map(|&slot| s.get(slot).map(|c| Hit { slot, score: c.0 }));
        best_k(touched, k).into_iter().map(|h| h.slot).collect()
    }

    /// Every matching tool (name tier and server / required-word filters applied) with its
    /// score `tier + confidence`; empty when the request abstains. The per-posting
    /// contributions of the terms `kept` wants (same id and weight) are kept there.
    fn score(&self, q: &ParsedQuery, kept: &mut Kept) -> Vec<Hit> {
        let p = &self.params;
        let terms: Vec<(u32, f64, bool)> = q
            .terms
            .iter()
            .filter_map(|t| {
                self.store
                    .vocab
                    .get(t.term.as_str())
                    .map(|&id| (id, t.weight, t.required))
            })
            .filter(|(id, _, _)| !self.store.postings[*id as usize].is_empty())
            .collect();
        let required_missing = q.terms.iter().any(|t| {
            t.required
                && !terms
                    .iter()
                    .any(|(id, _, r)| *r && *self.store.term_text[*id as usize] == t.term)
        });
        let max_score = self.query_mass(q).max(1e-9);
        let mut guard = self.scratch.borrow_mut();
        let s = &mut *guard;
        s.begin(self.store.docs.len());
        let required: Vec<u32> = terms.iter().filter(|t| t.2).map(|t| t.0).collect();
        let keep: usize = terms
            .iter()
            .filter(|&&(id, w, _)| kept.wants(id, w))
            .map(|&(id, _, _)| self.store.postings[id as usize].len())
            .sum();
        kept.values.reserve_exact(keep);
        for &(id, w, _) in &terms {
            let idf = self.idf(id);
            let generic = self.is_generic(id);
            let mut weights = p.weights;
            if generic {
                weights[0] = p.generic_name_weight.min(weights[0]);
            }
            let postings = &self.store.postings[id as usize];
            if kept.wants(id, w) {
                kept.open(id, w, postings.len());
                for &(slot, tfs) in postings {
                    let tfw = weighted_tf(&weights, &tfs, &self.norms[slot as usize]);
                    let v = w * idf * tfw / (p.k1 + tfw);
                    let c = s.cell(slot);
                    c.0 += v;
                    c.1 += w * idf;
                    kept.values.push(v);
                }
                continue;
            }
            for &(slot, tfs) in postings {
                let tfw = weighted_tf(&weights, &tfs, &self.norms[slot as usize]);
                let c = s.cell(slot);
                c.0 += w * idf * tfw / (p.k1 + tfw);
                c.1 += w * idf;
            }
        }
        let tiers = self.tiers(q);
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
        let mut hits = Vec::with_capacity(s.touched().len() + tiers.len());
        let max_idf = self.idf_unknown();
        // The best-scoring tool's evidence and coverage (what the abstain rules look at).
        let mut best_raw = 0.0f64;
        let mut best_cov = 0.0f64;
        let mut best_score = f64::NEG_INFINITY;
        for &slot in s.touched() {
            let Some(&Cell(score, mass, _)) = s.get(slot) else {
                continue;
            };
            if required_missing || !server_ok(slot) || (!required.is_empty() && !has_required(slot))
            {
                continue;
            }
            let tier = if tiers.is_empty() {
                0.0
            } else {
                tiers.get(&slot).copied().unwrap_or(0) as f64
            };
            if tier * 1e6 + score > best_score {
                best_score = tier * 1e6 + score;
                best_raw = score;
                best_cov = mass;
            }
            hits.push(Hit {
                slot,
                score: tier + self.confidence_of(score, max_idf, slot),
            });
        }
        for (&slot, &tier) in &tiers {
            if s.get(slot).is_none()
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
            if conf < p.abstain_confidence && best_cov / max_score < p.abstain_coverage {
                return Vec::new();
            }
        }
        hits
    }

    /// The query's IDF mass: what a tool matching every query word would cover. Words of the
    /// query count whether or not any tool has them (an unknown word is evidence that no tool
    /// fits), except CJK bigrams no tool has (splitting artifacts such as `送消`); lexicon
    /// expansions count at their weight; typo corrections do not.
    fn query_mass(&self, q: &ParsedQuery) -> f64 {
        q.terms
            .iter()
            .filter_map(|t| {
                let known = self
                    .store
                    .vocab
                    .get(t.term.as_str())
                    .filter(|&&id| !self.store.postings[id as usize].is_empty());
                match (&*t.origin, known) {
                    ("query", Some(&id)) => Some(t.weight * self.idf(id)),
                    ("query", None) if !t.term.chars().any(is_cjk) => {
                        Some(t.weight * self.params.unknown_weight * self.idf_unknown())
                    }
                    ("lexicon", Some(&id)) => Some(t.weight * self.idf(id)),
                    _ => None,
                }
            })
            .sum()
    }

    fn idf_unknown(&self) -> f64 {
        let n = self.store.live as f64;
        (1.0 + (n + 0.5) / 0.5).ln()
    }

    /// Per-term, per-field contributions of one tool for a query.
    pub fn explain(&self, query: &str, name: &str) -> Option<Explain> {
        let slot = self.slot_of(name)?;
        let doc = self.store.docs[slot as usize].as_ref()?;
        let q = self.parse_query(query);
        let p = &self.params;
        let mut terms = Vec::new();
        for t in &q.terms {
            let Some(&id) = self.store.vocab.get(t.term.as_str()) else {
                continue;
            };
            let Some(&(_, tfs)) = doc.terms.iter().find(|(x, _)| *x == id) else {
                continue;
            };
            let idf = self.idf(id);
            let mut fields = Vec::new();
            let mut tfw = 0.0;
            let mut weights = p.weights;
            if self.is_generic(id) {
                weights[0] = p.generic_name_weight.min(weights[0]);
            }
            for f in 0..FIELDS {
                if tfs[f] > 0 {
                    let v = weights[f] * tfs[f] as f64 * doc.norm[f];
                    tfw += v;
                    fields.push((FIELD_NAMES[f], tfs[f], v));
                }
            }
            terms.push(TermExplain {
                term: t.term.clone(),
                origin: t.origin.to_string(),
                idf,
                fields,
                score: t.weight * idf * tfw / (p.k1 + tfw),
            });
        }
        let hits = self.score(&q, &mut Kept::default());
        let hit = hits.iter().find(|h| h.slot == slot);
        let tier = self.tiers(&q).get(&slot).copied().unwrap_or(0);
        let mass = self.query_mass(&q).max(1e-9);
        let matched: f64 = q
            .terms
            .iter()
            .filter_map(|t| {
                let id = *self.store.vocab.get(t.term.as_str())?;
                doc.terms
                    .iter()
                    .any(|(x, _)| *x == id)
                    .then(|| t.weight * self.idf(id))
            })
            .sum();
        Some(Explain {
            name: doc.name.clone(),
            coverage: matched / mass,
            tier,
            relevance: hit.map(|h| h.score - tier as f64).unwrap_or(0.0),
            score: hit.map(|h| h.score).unwrap_or(0.0),
            terms,
            filtered: if hit.is_none() {
                Some(if hits.is_empty() {
                    "the query abstained or matched nothing".into()
                } else {
                    "filtered out (server or required term) or no match".into()
                })
            } else {
                None
            },
        })
    }
}

/// Which whitespace-separated tokens of a request lie inside a quotation: from a token that
/// opens with `"`, `'`, `` ` ``, `“` or `‘` (after any opening bracket) to the token that
/// closes with the same mark (before trailing punctuation). A quotation that never closes
/// quotes nothing (an apostrophe, not a quote).
pub fn quoted_tokens(raws: &[&str]) -> Vec<bool> {
    const MARKS: [(char, char); 5] = [
        ('"', '"'),
        ('\'', '\''),
        ('`', '`'),
        ('\u{201C}', '\u{201D}'),
        ('\u{2018}', '\u{2019}'),
    ];
    let mut out = vec![false; raws.len()];
    let mut open: Option<(usize, char)> = None;
    for (i, raw) in raws.iter().enumerate() {
        let head = raw.trim_start_matches(['(', '[', '{']);
        let tail = raw.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}']);
        match open {
            None => {
                let Some(&(_, close)) = MARKS.iter().find(|(o, _)| head.starts_with(*o)) else {
                    continue;
                };
                let rest = &head[head.chars().next().map_or(0, char::len_utf8)..];
                let rest_tail =
                    rest.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}']);
                if !rest_tail.is_empty() && rest_tail.ends_with(close) {
                    out[i] = true;
                } else {
                    open = Some((i, close));
                }
            }
            Some((start, close)) => {
                if tail.ends_with(close) {
                    out[start..=i].iter_mut().for_each(|q| *q = true);
                    open = None;
                }
            }
        }
    }
    out
}

/// `Σ_f weight_f · tf_f · norm_f`: a term's BM25F pseudo-frequency in one tool.
fn weighted_tf(weights: &[f64; FIELDS], tfs: &[u16; FIELDS], norm: &[f64; FIELDS]) -> f64 {
    weights
        .iter()
        .zip(tfs)
        .zip(norm)
        .filter(|((_, tf), _)| **tf > 0)
        .map(|((w, tf), n)| w * f64::from(*tf) * n)
        .sum()
}

/// The enhanced scorer analyses at most this many bytes of a query (64 KiB, about 10,000
/// words): a longer query is cut at the last whitespace before the limit (or at the limit on
/// a character boundary when there is none). This bounds per-query work, so a 10 MB query
/// answers in milliseconds; no tool name or realistic request comes near it.
pub const MAX_QUERY_ANALYSED: usize = 64 * 1024;

/// The part of a query the enhanced scorer analyses (see [`MAX_QUERY_ANALYSED`]).
pub fn analysed_prefix(query: &str) -> &str {
    if query.len() <= MAX_QUERY_ANALYSED {
        return query;
    }
    let mut end = MAX_QUERY_ANALYSED;
    while !query.is_char_boundary(end) {
        end -= 1;
    }
    let head = &query[..end];
    match head.rfind(char::is_whitespace) {
        Some(i) if i > 0 => &head[..i],
        _ => head,
    }
}

/// Build the error for an unknown scoring mode.
pub fn unknown_scoring(s: &str) -> IndexError {
    IndexError::new(
        ErrorCode::InvalidScoring,
        format!("unknown scoring mode {s:?}; expected 'compat' or 'enhanced'"),
    )
}

impl Scorer for EnhancedIndex {
    type Tool = ToolDoc;

    type Doc = Doc;
    type Payload = [u16; FIELDS];

    fn store(&self) -> &SlotStore<Doc, [u16; FIELDS]> {
        &self.store
    }

    fn vacate(&mut self, slot: u32) {
        let Some(doc) = self.store.vacate(slot) else {
            return;
        };
        for (k, _) in &doc.keys {
            if let Some(v) = self.keys.get_mut(k) {
                v.retain(|e| e.0 != slot);
                if v.is_empty() {
                    self.keys.remove(k);
                }
            }
        }
        if let Some(s) = &doc.server_key {
            if let Some(v) = self.servers.get_mut(s) {
                v.retain(|e| *e != slot);
                if v.is_empty() {
                    self.servers.remove(s);
                }
            }
        }
        for f in 0..FIELDS {
            self.len_sum[f] -= doc.len[f] as u64;
        }
    }

    fn fill(&mut self, slot: u32, tool: ToolDoc) {
        let a = analyze_doc(&self.analyzer, &tool);
        self.link(slot, a);
    }

    fn insert_batch(&mut self, tools: Vec<ToolDoc>) {
        let a = &self.analyzer;
        let analyzed: Vec<Analyzed> = if tools.len() >= self.parallel_threshold {
            tools
                .par_iter()
                .map(|t| analyze_doc(&Analyzer::default(), t))
                .collect()
        } else {
            tools.iter().map(|t| analyze_doc(a, t)).collect()
        };
        for an in analyzed {
            let slot = self.store.push_slot();
            self.link(slot, an);
        }
    }

    /// Renumber slots when more than half are empty (see [`SlotStore::maybe_compact`]),
    /// with the name-key and server tables.
    fn maybe_compact(&mut self) {
        let Some(map) = self.store.maybe_compact() else {
            return;
        };
        for v in self.keys.values_mut() {
            for e in v.iter_mut() {
                e.0 = map[e.0 as usize];
            }
        }
        for v in self.servers.values_mut() {
            for e in v.iter_mut() {
                *e = map[*e as usize];
            }
        }
    }

    fn refresh(&mut self) {
        let n = self.store.live.max(1) as f64;
        let avg: [f64; FIELDS] = std::array::from_fn(|f| (self.len_sum[f] as f64 / n).max(1.0));
        let b = self.params.b;
        for d in self.store.docs.iter_mut().flatten() {
            for f in 0..FIELDS {
                d.norm[f] = 1.0 / (1.0 - b[f] + b[f] * d.len[f] as f64 / avg[f]);
            }
        }
        // Dense copy by slot: the query loop reads it instead of the tools.
        self.norms = self
            .store
            .docs
            .iter()
            .map(|d| d.as_ref().map_or([0.0; FIELDS], |d| d.norm))
            .collect();
        self.ties = self
            .store
            .docs
            .iter()
            .map(|d| {
                d.as_ref()
                    .map_or(0.0, |d| 1e-9 / (1.0 + f64::from(d.len.iter().sum::<u32>())))
            })
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, desc: &str) -> ToolDoc {
        ToolDoc::new(name, desc)
    }

    fn idx() -> EnhancedIndex {
        EnhancedIndex::build(
            vec![
                doc(
                    "CronCreate",
                    "Schedule a prompt to run later on a cron schedule",
                )
                .with_hint("schedule a recurring prompt"),
                doc(
                    "mcp__github__create_issue",
                    "Create a new issue in a GitHub repository",
                ),
                doc(
                    "mcp__slack__send_message",
                    "Send a message to a Slack channel",
                ),
                doc(
                    "mcp__discord__send_message",
                    "Send a message to a Discord channel",
                ),
                doc("mcp__my_server__do_thing", "Does a thing"),
                doc("ls", "List files in a directory"),
                doc("PdfParse", "Parse PDF files and extract their text"),
            ],
            Params::default(),
            512,
        )
        .unwrap()
    }

    fn top(i: &EnhancedIndex, q: &str) -> Vec<String> {
        i.search(q, 5, 0.0)
            .iter()
            .map(|h| i.name(h.slot).unwrap().to_owned())
            .collect()
    }

    #[test]
    fn names_win() {
        let i = idx();
        assert_eq!(top(&i, "create_issue")[0], "mcp__github__create_issue");
        assert_eq!(top(&i, "CronCreate")[0], "CronCreate");
        assert_eq!(top(&i, "use `croncreate` now")[0], "CronCreate");
        assert_eq!(top(&i, "slack send_message")[0], "mcp__slack__send_message");
        assert_eq!(
            top(&i, "discord send_message")[0],
            "mcp__discord__send_message"
        );
        assert_eq!(
            top(&i, "mcp__github__create_issue")[0],
            "mcp__github__create_issue"
        );
    }

    #[test]
    fn no_raw_substring_boost() {
        let i = idx();
        assert!(
            !top(&i, "which tools can schedule things").contains(&"ls".to_owned())
                || top(&i, "which tools can schedule things")[0] != "ls"
        );
        assert_eq!(top(&i, "list files")[0], "ls");
    }

    #[test]
    fn server_filters() {
        let i = idx();
        assert_eq!(
            top(&i, "send a message server:discord"),
            vec!["mcp__discord__send_message"]
        );
        assert_eq!(
            top(&i, "+slack send message"),
            vec!["mcp__slack__send_message"]
        );
        assert_eq!(
            top(&i, "server:my_server thing"),
            vec!["mcp__my_server__do_thing"]
        );
    }

    #[test]
    fn typos_cjk_and_lexicon() {
        let i = idx();
        assert_eq!(top(&i, "sheduled prompt")[0], "CronCreate");
        assert_eq!(top(&i, "解析pdf文件")[0], "PdfParse");
        assert_eq!(
            top(&i, "发送消息到频道")[0..2]
                .iter()
                .filter(|n| n.contains("send_message"))
                .count(),
            2
        );
    }

    #[test]
    fn abstains_on_unrelated_queries() {
        let i = idx();
        assert!(top(&i, "pause the music on my home theater").is_empty());
        assert!(top(&i, "").is_empty());
    }

    #[test]
    fn word_cache_changes_no_result() {
        let i = idx();
        let queries = [
            "create a GitHub issue",
            "send a Slack message, then list files",
            "解析pdf文件",
        ];
        let cold: Vec<Vec<Hit>> = queries
            .iter()
            .map(|q| EnhancedIndex::search(&i, q, 5, 0.0))
            .collect();
        // Fill the cache past its bound with words of other requests; long words are not kept.
        let many: String = (0..WORD_CACHE_MAX + 50)
            .map(|n| format!("word{n} "))
            .collect();
        i.search(&many, 5, 0.0);
        assert!(i.word_cache.borrow().len() <= WORD_CACHE_MAX);
        i.search(
            &format!("{} {}", "x".repeat(10_000), "y".repeat(65)),
            5,
            0.0,
        );
        assert!(i.word_cache.borrow().is_empty());
        for (q, want) in queries.iter().zip(&cold) {
            assert_eq!(&i.search(q, 5, 0.0), want, "{q}");
            assert_eq!(&i.search(q, 5, 0.0), want, "{q}, cached");
        }
    }

    #[test]
    fn incremental_equals_rebuild() {
        let mut a = idx();
        a.remove(&["mcp__slack__send_message"]);
        a.upsert(vec![doc(
            "mcp__jira__create_ticket",
            "Create a Jira ticket",
        )])
        .unwrap();
        let b = EnhancedIndex::build(
            vec![
                doc(
                    "CronCreate",
                    "Schedule a prompt to run later on a cron schedule",
                )
                .with_hint("schedule a recurring prompt"),
                doc(
                    "mcp__github__create_issue",
                    "Create a new issue in a GitHub repository",
                ),
                doc(
                    "mcp__discord__send_message",
                    "Send a message to a Discord channel",
                ),
                doc("mcp__my_server__do_thing", "Does a thing"),
                doc("ls", "List files in a directory"),
                doc("PdfParse", "Parse PDF files and extract their text"),
                doc("mcp__jira__create_ticket", "Create a Jira ticket"),
            ],
            Params::default(),
            512,
        )
        .unwrap();
        for q in [
            "create a ticket",
            "send message",
            "schedule",
            "pdf",
            "create_issue",
        ] {
            let x: Vec<(String, f64)> = a
                .search(q, 10, 0.0)
                .iter()
                .map(|h| (a.name(h.slot).unwrap().to_owned(), h.score))
                .collect();
            let y: Vec<(String, f64)> = b
                .search(q, 10, 0.0)
                .iter()
                .map(|h| (b.name(h.slot).unwrap().to_owned(), h.score))
                .collect();
            assert_eq!(x, y, "{q}");
        }
    }

    #[test]
    fn explain_adds_up() {
        let i = idx();
        let e = i
            .explain("schedule a recurring prompt", "CronCreate")
            .unwrap();
        assert_eq!(e.tier, 0);
        assert!(e.score > 0.0);
        assert!(e
            .terms
            .iter()
            .any(|t| t.fields.iter().any(|f| f.0 == "searchHint")));
    }

    fn index_of(tools: &[(&str, &str)]) -> EnhancedIndex {
        EnhancedIndex::build(
            tools.iter().map(|(n, d)| doc(n, d)).collect(),
            Params::default(),
            512,
        )
        .unwrap()
    }

    /// A catalog where one tool per request below is right; filler tools give the IDFs
    /// something to work with.
    fn catalog() -> EnhancedIndex {
        let mut tools: Vec<(String, String)> = vec![
            (
                "find_agency".into(),
                "Find a real estate agency by city".into(),
            ),
            (
                "hotel_deals".into(),
                "Search hotel deals and prices in a city".into(),
            ),
            (
                "create_file".into(),
                "Create a new file with the given content".into(),
            ),
            (
                "rename_file".into(),
                "Rename a file or move it to a new path".into(),
            ),
            ("delete_file".into(), "Delete a file".into()),
            (
                "list_directory".into(),
                "List the entries of a directory".into(),
            ),
            (
                "update_record".into(),
                "Change the fields of a record".into(),
            ),
            (
                "reserve_table".into(),
                "Reserve a table at a restaurant".into(),
            ),
            ("user_login".into(), "Login a user with a password".into()),
            (
                "send_sms".into(),
                "Send a text message to a phone number".into(),
            ),
        ];
        for i in 0..30 {
            tools.push((
                format!("filler_{i}"),
                format!("Unrelated widget number {i} for gadgets"),
            ));
        }
        EnhancedIndex::build(
            tools.iter().map(|(n, d)| doc(n, d)).collect(),
            Params::default(),
            512,
        )
        .unwrap()
    }

    #[test]
    fn request_table() {
        let i = catalog();
        // (request, a tool that must be first)
        let cases: &[(&str, &str)] = &[
            // A generic name word ("find") does not outrank the real match.
            ("find a good hotel deal in Paris", "hotel_deals"),
            // Synonyms: modify → change, book → reserve.
            ("modify the record fields", "update_record"),
            ("book a table for two", "reserve_table"),
            // Phrasal verb → the name's one word.
            ("log into my account with my password", "user_login"),
            // `+1 …` is a phone number, not a required word.
            ("text +1 555 1234 the message hello", "send_sms"),
        ];
        for (q, want) in cases {
            assert_eq!(top(&i, q).first().map(String::as_str), Some(*want), "{q}");
        }
    }

    #[test]
    fn synonyms_expand_at_low_weight() {
        let i = catalog();
        let q = i.parse_query("modify it");
        let syn: Vec<&QueryTerm> = q
            .terms
            .iter()
            .filter(|t| t.origin.starts_with("synonym:"))
            .collect();
        assert!(syn.iter().any(|t| t.term == "chang"), "{syn:?}");
        assert!(syn.iter().all(|t| t.weight < 1.0));
        // A synonym that is also a query word keeps the full weight.
        let q = i.parse_query("modify and change");
        assert!(q.terms.iter().any(|t| t.term == "chang" && t.weight == 1.0));
    }

    #[test]
    fn each_step_gets_a_slot() {
        let i = catalog();
        let q = "Create a new file with the content hello, then rename the file, and finally list the directory";
        let got = top(&i, q);
        for want in ["create_file", "rename_file", "list_directory"] {
            assert!(
                got[..3].contains(&want.to_owned()),
                "{want} not in the top 3 of {got:?}"
            );
        }
        // Off: the plain ranking.
        let p = Params {
            clause_weight: 0.0,
            ..Params::default()
        };
        assert!(i.clause_queries(q).len() >= 2);
        let plain = EnhancedIndex::build(vec![doc("a", "b")], p, 512).unwrap();
        assert!(plain.clause_queries(q).is_empty());
    }

    /// The largest request analysed (64 KiB), eight steps of 1,300 words each, every word
    /// in one tool: each of the first five results covers a different step. Its time is
    /// printed (`cargo test -- --nocapture`), not asserted; the clause work stays linear in
    /// the number of words.
    #[test]
    fn largest_multi_step_request() {
        let word = |i: usize| -> String {
            let mut w = String::from("q");
            let mut x = i;
            for _ in 0..4 {
                w.push(char::from(b'a' + (x % 26) as u8));
                x /= 26;
            }
            w
        };
        let tools: Vec<ToolDoc> = (0..1040)
            .map(|t| {
                let words: Vec<String> = (0..10).map(|k| word(t * 10 + k)).collect();
                doc(&format!("tool_{t}"), &words.join(" "))
            })
            .collect();
        let i = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        let steps: Vec<String> = (0..8)
            .map(|c| {
                let words: Vec<String> = (0..1300).map(|k| word(c * 1300 + k)).collect();
                words.join(" ")
            })
            .collect();
        let q = steps.join(" then ");
        assert!(q.len() <= MAX_QUERY_ANALYSED && q.len() > 60_000);
        let t = std::time::Instant::now();
        let hits = i.search(&q, 5, 0.0);
        eprintln!("64 KiB request of 8 steps: {:?}", t.elapsed());
        let steps_hit: FxHashSet<usize> = hits
            .iter()
            .map(|h| {
                let t: usize = i.name(h.slot).unwrap()["tool_".len()..].parse().unwrap();
                t * 10 / 1300
            })
            .collect();
        assert_eq!(hits.len(), 5);
        assert_eq!(steps_hit.len(), 5, "{hits:?}");
    }

    #[test]
    fn confidence_table() {
        // (evidence, scale, lower bound, upper bound)
        let cases: &[(f64, f64, f64, f64)] = &[
            (0.0, 1.0, 0.0, 0.0),
            (1.0, 1.0, 0.5, 0.5),
            (3.0, 1.0, 0.75, 0.75),
            (1e12, 1.0, 0.999, 0.999_999),
            (-1.0, 1.0, 0.0, 0.0),
        ];
        for &(e, s, lo, hi) in cases {
            let c = confidence(e, s);
            assert!(c >= lo && c <= hi, "confidence({e}, {s}) = {c}");
        }
    }

    #[test]
    fn abstains_on_weak_evidence_not_on_length() {
        let i = catalog();
        // Unrelated requests, short and long: nothing.
        for q in [
            "pause the music on my home theater",
            "can you recommend a nice vegan dessert recipe that uses ingredients from a farmers market near me this weekend",
        ] {
            assert!(top(&i, q).is_empty(), "{q}");
        }
        // A long request with a strong match still answers.
        let long = format!(
            "{} and then please rename the file report.txt to summary.txt in my home folder",
            "I have been working on a big project for a while and I am tidying it up,"
        );
        assert_eq!(top(&i, &long)[0], "rename_file");
        // A tiny index: a full match of a short request is no reason to abstain.
        let one = index_of(&[("ls", "list files")]);
        assert_eq!(top(&one, "list files"), vec!["ls"]);
    }

    #[test]
    fn ties_go_to_the_more_specific_tool() {
        // Same description, so the same evidence; the longer name comes first in the index.
        let i = index_of(&[
            ("beta_gamma_delta", "Export a report"),
            ("alpha", "Export a report"),
        ]);
        let hits = i.search("export report", 5, 0.0);
        assert_eq!(i.name(hits[0].slot), Some("alpha"));
        assert!(hits[0].score > hits[1].score && hits[0].score - hits[1].score < 1e-6);
    }

    #[test]
    fn quotations_table() {
        // (request, the tokens inside quotation marks)
        let cases: &[(&str, &[&str])] = &[
            (
                "create a note named 'Daily Tasks' now",
                &["'Daily", "Tasks'"],
            ),
            (
                "rename \"a.txt\" to \"b.txt\".",
                &["\"a.txt\"", "\"b.txt\"."],
            ),
            ("Paper's trading platform", &[]),
            ("it's the users' list", &[]),
            ("an 'unclosed quote here", &[]),
            ("read `/home/user/x`, then stop", &["`/home/user/x`,"]),
            (
                "title (\u{201C}Plan it\u{201D}) please",
                &["(\u{201C}Plan", "it\u{201D})"],
            ),
        ];
        for (q, want) in cases {
            let raws: Vec<&str> = q.split_whitespace().collect();
            let got: Vec<&str> = raws
                .iter()
                .zip(quoted_tokens(&raws))
                .filter(|(_, q)| *q)
                .map(|(r, _)| *r)
                .collect();
            assert_eq!(got, *want, "{q}");
        }
        // Quoted words weigh less; a request that is only a quotation keeps full weight.
        let i = catalog();
        let q = i.parse_query("create a file named 'report'");
        let w = |q: &ParsedQuery, t: &str| q.terms.iter().find(|x| x.term == t).map(|x| x.weight);
        assert_eq!(w(&q, "creat"), Some(1.0));
        assert!(w(&q, "report").unwrap() < 1.0);
        assert_eq!(w(&i.parse_query("\"delete file\""), "delet"), Some(1.0));
    }
}
