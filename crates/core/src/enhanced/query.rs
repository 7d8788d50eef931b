//! The query side: a request analysed into weighted terms (words, stems, synonyms, quoted
//! words, CJK lexicon expansions, typo corrections), raw name tokens and server filters,
//! and a multi-step request's clauses.

use std::borrow::Cow;
use std::hash::BuildHasher;
use std::sync::OnceLock;

use compact_str::CompactString;
use rustc_hash::{FxBuildHasher, FxHashMap, FxHashSet};

use super::analyze;
use super::lexicon;
use super::names::{
    compact, compact_key, name_key, name_trim, trimmed_key, NAMES_COMPACT, NAMES_KEY,
};
use super::tools::for_each_deletion;
use super::EnhancedIndex;

/// A term of an analysed query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryTerm {
    pub term: CompactString,
    pub weight: f64,
    /// Why it is in the query: `"query"`, `"synonym:<word>"`, `"typo:<original>"`,
    /// `"lexicon"` or `"unigram"` (a single CJK character of the request).
    pub origin: Cow<'static, str>,
    pub required: bool,
}

impl QueryTerm {
    /// Whether a tool that has the term covers its IDF mass (see
    /// `EnhancedIndex::query_mass`): every term but a unigram, which adds evidence only.
    pub fn covers(&self) -> bool {
        self.origin != "unigram"
    }
}

/// An analysed query.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ParsedQuery {
    pub terms: Vec<QueryTerm>,
    /// Normalized raw tokens, for name matching, with whether each looked like an identifier
    /// (`snake_case`, `kebab-case`, `CamelCase`) or was the whole query.
    pub raw: Vec<CompactString>,
    pub raw_ident: Vec<bool>,
    /// Which of each raw token's keys are name keys of the index (bit 1: the key itself,
    /// bit 2: its words run together); a token without an entry here is looked up.
    pub raw_named: Vec<u8>,
    /// `server:` / `+server` filters (compacted server keys).
    pub servers: Vec<String>,
}

/// What one request's analysis has already worked out, shared with its clauses.
#[derive(Default)]
pub(super) struct QueryMemo {
    /// Tokens by word.
    pub(super) words: analyze::WordMemo,
    /// Typo corrections by unknown word.
    pub(super) typos: FxHashMap<String, Vec<String>>,
    /// What each raw word (trimmed, as written) is to the name tiers.
    pub(super) names: FxHashMap<CompactString, RawName>,
    /// Analysed queries of earlier requests, emptied, whose lists a new analysis fills
    /// instead of allocating its own (see [`ParsedQuery::recycle`]).
    pub(super) spare: Vec<ParsedQuery>,
}

impl ParsedQuery {
    /// The most queries kept for reuse between requests, and the most terms a kept one
    /// has room for: a request of thousands of words leaves no large lists behind.
    pub(super) const SPARE: usize = 9;
    const SPARE_TERMS: usize = 256;

    /// Empty `done` (analysed queries a request has finished with) into `spare`, as room for
    /// the next request's analyses, up to [`Self::SPARE`] of them of modest size.
    pub(super) fn recycle(done: impl IntoIterator<Item = ParsedQuery>, spare: &mut Vec<Self>) {
        for mut q in done {
            if spare.len() >= Self::SPARE || q.terms.capacity() > Self::SPARE_TERMS {
                continue;
            }
            q.terms.clear();
            q.raw.clear();
            q.raw_ident.clear();
            q.raw_named.clear();
            q.servers.clear();
            spare.push(q);
        }
    }
}

/// A raw word of a request as the name tiers read it (see `EnhancedIndex::raw_name`): it
/// depends on the word and the index's names, so an index keeps it until its tools change.
#[derive(Clone, Debug)]
pub(super) struct RawName {
    key: CompactString,
    ident: bool,
    pub(super) named: u8,
}

/// What [`EnhancedIndex::parse_query_with`] works out of a text.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Analysis {
    /// A whole request: its terms, raw name tokens and server filters.
    Request,
    /// A clause of a request: its terms and server filters (a clause is scored by its terms).
    Clause,
    /// A request's raw name tokens and server filters only (its terms come from its clauses).
    Names,
}

/// The most clauses a request is split into; a request of more is searched as one step.
const MAX_CLAUSES: usize = 8;

/// The most words [`EnhancedIndex`] keeps analysed between requests (words of up to
/// [`analyze::MAX_MEMO_WORD`] bytes: well under 1 MB in all).
pub const WORD_CACHE_MAX: usize = 4096;

impl EnhancedIndex {
    /// Analyse a query: terms (with typo and lexicon expansions), raw tokens, server filters;
    /// the request [`EnhancedIndex::search`] scores. A request of several clauses is analysed
    /// clause by clause, its terms those of its clauses together.
    pub fn parse_query(&self, query: &str) -> ParsedQuery {
        self.request_with(query, &mut QueryMemo::default()).0
    }

    /// A request as search reads it: the request analysed, and its clauses when it has
    /// several steps ([`EnhancedIndex::clause_queries`]). A request of several clauses is
    /// analysed clause by clause, and its terms are the clauses' terms together (each once,
    /// at its highest weight, required where any clause requires it, and of the origin the
    /// request's own analysis would give it: a word of the request before a CJK character,
    /// a synonym, a lexicon expansion or a correction); its raw name tokens and server
    /// filters are read off the whole request. So each word is analysed once.
    pub(super) fn request_with(
        &self,
        query: &str,
        memo: &mut QueryMemo,
    ) -> (ParsedQuery, Vec<ParsedQuery>) {
        if self.params.clause_weight > 0.0 {
            let pieces = analyze::clauses(analysed_prefix(query));
            if (2..=MAX_CLAUSES).contains(&pieces.len()) {
                let all: Vec<ParsedQuery> = pieces
                    .into_iter()
                    .map(|c| self.parse_query_with(c, memo, Analysis::Clause))
                    .collect();
                let mut q = self.parse_query_with(query, memo, Analysis::Names);
                merge_terms(&mut q.terms, &all);
                let parts: Vec<ParsedQuery> =
                    all.into_iter()
                        .filter(|pq| {
                            pq.terms.iter().any(|t| {
                                t.origin == "query"
                                    && self.store.term_id(&t.term).is_some_and(|id| {
                                        !self.store.postings[id as usize].is_empty()
                                    })
                            })
                        })
                        .collect();
                return (q, if parts.len() < 2 { Vec::new() } else { parts });
            }
        }
        (
            self.parse_query_with(query, memo, Analysis::Request),
            Vec::new(),
        )
    }

    /// What a raw word of a request (trimmed) is to the name tiers: its name key, whether it
    /// looks like an identifier, and which of its keys name a tool here.
    fn raw_name(&self, trimmed: &str) -> RawName {
        let key = trimmed_key(trimmed);
        let mut named = 0;
        if self.keys.contains_key(key.as_str()) {
            named |= NAMES_KEY;
        }
        if self.keys.contains_key(&compact_key(&key)) {
            named |= NAMES_COMPACT;
        }
        RawName {
            ident: looks_like_identifier(trimmed),
            key,
            named,
        }
    }

    /// [`EnhancedIndex::parse_query`]'s analysis of one text, as `mode` says, with a memo of
    /// analysed words and typo corrections shared by a request and its clauses.
    pub(super) fn parse_query_with(
        &self,
        query: &str,
        memo: &mut QueryMemo,
        mode: Analysis,
    ) -> ParsedQuery {
        let names = mode != Analysis::Clause;
        let words = mode != Analysis::Names;
        let query = analysed_prefix(query);
        let mut q = memo.spare.pop().unwrap_or_default();
        let mut seen = TermPositions::default();
        let raws = whitespace_tokens(query);
        // The text the words are read from (none when only names are wanted).
        let mut free_text = String::with_capacity(if words { query.len() + 1 } else { 0 });
        let mut quoted_text = String::new();
        if words {
            // Room for each word's term and a few synonyms, so the list grows once at most.
            q.terms.reserve(raws.len().min(64) + 8);
        }
        if names {
            q.raw.reserve(raws.len());
            q.raw_ident.reserve(raws.len());
            q.raw_named.reserve(raws.len());
        }
        let quoted = if words {
            quoted_tokens(&raws)
        } else {
            Vec::new()
        };
        // The words the lexicon reads: every word but the `server:` / `+server` filters (a
        // server named in Han characters is a filter, not a request for its meaning).
        let mut lexicon_text = String::new();
        let has_cjk = words && analyze::has_cjk(query);
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
            if has_cjk {
                lexicon_text.push_str(raw);
                lexicon_text.push(' ');
            }
            let trimmed = if names { name_trim(body) } else { "" };
            if !trimmed.is_empty() {
                let name = match memo.names.get(trimmed) {
                    Some(n) => n.clone(),
                    None => {
                        let n = self.raw_name(trimmed);
                        if trimmed.len() <= analyze::MAX_MEMO_WORD {
                            memo.names.insert(CompactString::from(trimmed), n.clone());
                        }
                        n
                    }
                };
                // A word that is the whole request counts as a name (`raws` splits where
                // `trim` cuts, so this is `query.trim() == raw` without trimming per word).
                q.raw.push(name.key);
                q.raw_ident.push(name.ident || raws.len() == 1);
                q.raw_named.push(name.named);
            }
            if !words {
                continue;
            }
            if required {
                self.add_required(&mut q, &mut seen, body);
            } else if quoted[ri] {
                quoted_text.push_str(body);
                quoted_text.push(' ');
            } else {
                free_text.push_str(body);
                free_text.push(' ');
            }
        }
        if !words {
            q.servers.sort_unstable();
            q.servers.dedup();
            return q;
        }
        // Quoted text is mostly an argument value ("named 'Daily Tasks'"): its words weigh
        // less, unless the request is nothing but a quotation.
        if !free_text.chars().any(char::is_alphanumeric) {
            free_text = std::mem::take(&mut quoted_text);
        }
        // Single characters of CJK runs (unigrams, see `analyze`) are weaker evidence than
        // words: they weigh `unigram_weight` (none at 0 or below) and, like typo corrections,
        // stay out of the request's mass (`query_mass`) and of the mass a tool covers. They are
        // added after the words, so a character that is also a word of its own stays a word.
        let uw = self.params.unigram_weight;
        let mut unigrams: Vec<(String, f64)> = Vec::new();
        self.analyzer
            .query_tokens_tagged(&free_text, &mut memo.words, |t, unigram| {
                if !unigram {
                    seen.add(&mut q, t, 1.0, &|| Cow::Borrowed("query"), false)
                } else if uw > 0.0 {
                    unigrams.push((t.into_owned(), uw));
                }
            });
        let quote_weight = self.params.quote_weight;
        self.analyzer
            .query_tokens_tagged(&quoted_text, &mut memo.words, |t, unigram| {
                if !unigram {
                    seen.add(&mut q, t, quote_weight, &|| Cow::Borrowed("query"), false)
                } else if uw > 0.0 {
                    unigrams.push((t.into_owned(), quote_weight * uw));
                }
            });
        for (t, w) in unigrams {
            seen.add(
                &mut q,
                Cow::Owned(t),
                w,
                &|| Cow::Borrowed("unigram"),
                false,
            );
        }
        if self.params.synonym_weight > 0.0 {
            self.add_synonyms(&mut q, &mut seen);
        }
        q.servers.sort_unstable();
        q.servers.dedup();
        if has_cjk {
            self.add_lexicon(&mut q, &mut seen, &lexicon_text);
        }
        self.add_corrections(&mut q, &mut seen, memo);
        q
    }

    /// A required `+word`'s terms: its words, not the characters of a CJK run.
    #[cold]
    #[inline(never)]
    fn add_required(&self, q: &mut ParsedQuery, seen: &mut TermPositions, body: &str) {
        for t in self.analyzer.word_tokens(body) {
            seen.add(q, Cow::Owned(t), 1.0, &|| Cow::Borrowed("query"), true);
        }
    }

    /// The synonyms of the request's own words (most have none), as the synonym map spells
    /// them (so the list borrows the index, not the query it extends).
    #[inline(never)]
    fn add_synonyms(&self, q: &mut ParsedQuery, seen: &mut TermPositions) {
        let words: Vec<(&str, &Vec<String>)> = q
            .terms
            .iter()
            .filter(|t| t.origin == "query" && t.weight >= 1.0)
            .filter_map(|t| {
                let (word, syn) = self.synonyms.get_key_value(t.term.as_str())?;
                Some((word.as_str(), syn))
            })
            .collect();
        for (word, syn) in words {
            for s in syn.iter().filter(|s| !self.common_synonym(s)) {
                seen.add(
                    q,
                    Cow::Borrowed(s.as_str()),
                    self.params.synonym_weight,
                    &|| synonym_origin(word),
                    false,
                );
            }
        }
    }

    /// The English words the lexicon gives the request's CJK runs (`text`).
    #[cold]
    #[inline(never)]
    fn add_lexicon(&self, q: &mut ParsedQuery, seen: &mut TermPositions, text: &str) {
        for en in lexicon::expand(text) {
            let t = self.analyzer.stem_word(en);
            if !t.is_empty() {
                seen.add(
                    q,
                    Cow::Owned(t),
                    self.params.lexicon_weight,
                    &|| Cow::Borrowed("lexicon"),
                    false,
                );
            }
        }
    }

    /// One-edit corrections of the request's unknown words against the name vocabulary
    /// (each word's kept in `memo`).
    #[inline(never)]
    fn add_corrections(&self, q: &mut ParsedQuery, seen: &mut TermPositions, memo: &mut QueryMemo) {
        let unknown: Vec<String> = q
            .terms
            .iter()
            // Most terms are known: that is asked before their characters are counted.
            .filter(|t| t.term.len() >= 5 && t.origin == "query")
            .filter(|t| {
                self.store
                    .term_id(&t.term)
                    .is_none_or(|id| self.store.postings[id as usize].is_empty())
            })
            .filter(|t| t.term.chars().count() >= 5 && !analyze::has_cjk(&t.term))
            .map(|t| t.term.as_str().to_owned())
            .collect();
        for u in unknown {
            if !memo.typos.contains_key(&u) {
                let fixes = self.corrections(&u);
                memo.typos.insert(u.clone(), fixes);
            }
            for c in &memo.typos[&u] {
                seen.add(
                    q,
                    Cow::Borrowed(c.as_str()),
                    self.params.typo_weight,
                    &|| Cow::Owned(format!("typo:{u}")),
                    false,
                );
            }
        }
    }

    /// Whether a synonym is too common to add ([`EnhancedIndex::is_common`]). At a synonym's
    /// low weight such a word (a low IDF) moves little, and its long posting list is what a
    /// request's synonyms cost most.
    fn common_synonym(&self, s: &str) -> bool {
        self.store.term_id(s).is_some_and(|id| self.is_common(id))
    }

    /// Whether a term is in some tool's name or server field now (the deletion map may hold
    /// terms that no longer are, after removals: they are skipped here, so corrections depend
    /// only on the current tools, not on the index's history).
    pub(super) fn is_name_term(&self, id: u32) -> bool {
        self.store.postings[id as usize]
            .iter()
            .any(|(_, tf)| tf[0] > 0 || tf[1] > 0)
    }

    #[inline(never)]
    pub(super) fn corrections(&self, word: &str) -> Vec<String> {
        // Candidates by term id, each once (thousands of names may share a deletion), then
        // the name terms among them other than the word itself.
        let mut ids: FxHashSet<u32> = FxHashSet::default();
        if let Some(found) = self.deletes.get(word) {
            ids.extend(found.iter().copied());
        }
        for_each_deletion(word, |d| {
            if let Some(id) = self.store.term_id(d) {
                ids.insert(id);
            }
            if let Some(found) = self.deletes.get(d) {
                ids.extend(found.iter().copied());
            }
        });
        let mut out: Vec<&str> = ids
            .into_iter()
            .filter(|&id| self.is_name_term(id))
            .map(|id| &*self.store.term_text[id as usize])
            .filter(|&t| t != word)
            .collect();
        // A fixed order (not the order terms entered the vocabulary) before keeping three.
        out.sort_unstable();
        out.truncate(3);
        out.into_iter().map(str::to_owned).collect()
    }

    /// The analysed clauses of a multi-step request (their terms; raw name tokens are not
    /// kept); empty when it has fewer than two clauses with a word some tool has, or more than
    /// eight (or clause coverage is off).
    pub fn clause_queries(&self, query: &str) -> Vec<ParsedQuery> {
        self.request_with(query, &mut QueryMemo::default()).1
    }
}

/// Where a term's origin puts it in a request's own analysis, which adds the request's
/// words, then the characters of its CJK runs, its synonyms, lexicon expansions and
/// corrections: a term found in several clauses keeps the earliest.
fn origin_rank(origin: &str) -> u8 {
    match origin {
        "query" => 0,
        "unigram" => 1,
        "lexicon" => 3,
        o if o.starts_with("synonym:") => 2,
        _ => 4,
    }
}

/// Add the terms of a request's clauses, in order, to its term list: each term once, at its
/// highest weight, required where any clause requires it, with the earliest origin.
fn merge_terms(terms: &mut Vec<QueryTerm>, clauses: &[ParsedQuery]) {
    let mut seen = TermPositions::default();
    terms.reserve(clauses.iter().map(|c| c.terms.len()).sum());
    for t in clauses.iter().flat_map(|c| &c.terms) {
        match seen.find(terms, &t.term) {
            Ok(i) => {
                let e = &mut terms[i];
                e.required |= t.required;
                e.weight = e.weight.max(t.weight);
                if origin_rank(&t.origin) < origin_rank(&e.origin) {
                    e.origin = t.origin.clone();
                }
            }
            Err(hash) => {
                seen.note(&t.term, terms.len(), hash);
                terms.push(t.clone());
            }
        }
    }
}

/// The origin of a synonym of `word` (`synonym:<word>`). The labels of the stems of the
/// synonym table ([`analyze::SYNONYMS`], the words an index's synonyms come from) are made once
/// per process and kept (a few kilobytes), so a synonym term's origin costs no new string; any
/// other word's label is made as it is asked for.
fn synonym_origin(word: &str) -> Cow<'static, str> {
    static LABELS: OnceLock<FxHashMap<String, String>> = OnceLock::new();
    let labels = LABELS.get_or_init(|| {
        let analyzer = analyze::Analyzer::default();
        analyze::SYNONYMS
            .iter()
            .flat_map(|group| group.iter())
            .map(|w| analyzer.stem_word(w))
            .filter(|stem| !stem.is_empty())
            .map(|stem| {
                let label = format!("synonym:{stem}");
                (stem, label)
            })
            .collect()
    });
    match labels.get(word) {
        Some(label) => Cow::Borrowed(label.as_str()),
        None => Cow::Owned(format!("synonym:{word}")),
    }
}

/// Where each term of a query under construction sits in its term list: while the list is
/// short, a scan of the terms' hashes (kept in place, no copy of a term; a term is compared
/// only where its hash matches), then a map (so a request of thousands of distinct words
/// stays linear).
struct TermPositions {
    /// The hashes of the first terms listed, in list order.
    hashes: [u64; Self::SCAN],
    map: Option<FxHashMap<String, usize>>,
}

impl Default for TermPositions {
    fn default() -> Self {
        Self {
            hashes: [0; Self::SCAN],
            map: None,
        }
    }
}

impl TermPositions {
    /// Up to this many terms, duplicates are found by scanning.
    const SCAN: usize = 32;

    /// The term's place in `terms`, or (when it is not there) its hash for [`Self::note`].
    fn find(&mut self, terms: &[QueryTerm], term: &str) -> Result<usize, u64> {
        if let Some(map) = &self.map {
            return map.get(term).copied().ok_or(0);
        }
        if terms.len() <= Self::SCAN {
            let hash = FxBuildHasher.hash_one(term);
            let listed = &self.hashes[..terms.len()];
            return listed
                .iter()
                .zip(terms)
                .position(|(&h, t)| h == hash && t.term == term)
                .ok_or(hash);
        }
        let map: FxHashMap<String, usize> = terms
            .iter()
            .enumerate()
            .map(|(i, t)| (t.term.as_str().to_owned(), i))
            .collect();
        let found = map.get(term).copied();
        self.map = Some(map);
        found.ok_or(0)
    }

    /// Add a term to a query under construction: a term it has already keeps its place
    /// (required if either is, at the higher weight); a new one goes last, its origin worked
    /// out only then (a synonym or correction the query already has keeps its first origin,
    /// with no label made for it).
    fn add(
        &mut self,
        q: &mut ParsedQuery,
        term: Cow<'_, str>,
        weight: f64,
        origin: &dyn Fn() -> Cow<'static, str>,
        required: bool,
    ) {
        let hash = match self.find(&q.terms, &term) {
            Ok(i) => {
                let existing = &mut q.terms[i];
                existing.required |= required;
                existing.weight = existing.weight.max(weight);
                return;
            }
            Err(hash) => hash,
        };
        self.note(&term, q.terms.len(), hash);
        q.terms.push(QueryTerm {
            term: CompactString::from(term),
            weight,
            origin: origin(),
            required,
        });
    }

    /// Record a new term's position (`at`, its place in the list) and the hash
    /// [`Self::find`] gave for it.
    fn note(&mut self, term: &str, at: usize, hash: u64) {
        match &mut self.map {
            Some(map) => {
                map.insert(term.to_owned(), at);
            }
            None => {
                if let Some(h) = self.hashes.get_mut(at) {
                    *h = hash;
                }
            }
        }
    }
}

/// A text's whitespace-separated tokens (`split_whitespace`), in a list sized once: a token
/// ends at an ASCII whitespace byte or at the end of the text (other whitespace, rare, only
/// makes the list grow).
fn whitespace_tokens(text: &str) -> Vec<&str> {
    let most = text.bytes().filter(u8::is_ascii_whitespace).count() + 1;
    let mut raws = Vec::with_capacity(most);
    raws.extend(text.split_whitespace());
    raws
}

/// Whether a (trimmed) word is shaped like an identifier: `camelCase` (a lowercase letter or
/// digit before a capital), `snake_case` (an underscore) or `kebab-case` (a hyphen between
/// other characters), found in one pass over its characters.
fn looks_like_identifier(word: &str) -> bool {
    let mut lower_before = false;
    // A character other than `-` seen, and a `-` seen after one.
    let mut other_before = false;
    let mut inner_hyphen = false;
    for c in word.chars() {
        if c == '_' || (lower_before && c.is_uppercase()) {
            return true;
        }
        if c == '-' {
            inner_hyphen |= other_before;
        } else if inner_hyphen {
            return true;
        } else {
            other_before = true;
        }
        lower_before = c.is_lowercase() || c.is_ascii_digit();
    }
    false
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
        match open {
            None => {
                let head = raw.trim_start_matches(['(', '[', '{']);
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
                let tail = raw.trim_end_matches(['.', ',', ';', ':', '!', '?', ')', ']', '}']);
                if tail.ends_with(close) {
                    out[start..=i].iter_mut().for_each(|q| *q = true);
                    open = None;
                }
            }
        }
    }
    out
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enhanced::Params;
    use crate::ToolDoc;

    /// A word is taken for a name when it looks like an identifier or is the whole request,
    /// whatever whitespace surrounds it.
    #[test]
    fn a_lone_word_is_a_name() {
        let tools = vec![ToolDoc {
            name: "word_tool".into(),
            description: "plain words".into(),
            ..ToolDoc::default()
        }];
        let idx = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        let cases: &[(&str, &[bool])] = &[
            ("plain", &[true]),
            ("  \u{3000}plain\t\n", &[true]),
            ("plain words", &[false, false]),
            ("  plain   word_tool ", &[false, true]),
            ("\u{a0}plain\u{2003}words\u{a0}", &[false, false]),
        ];
        for (query, want) in cases {
            assert_eq!(idx.parse_query(query).raw_ident, *want, "{query:?}");
        }
    }

    /// A request of several clauses gets the terms its own analysis would give it, read off
    /// its clauses: the same terms with the same weights, flags and origins (in the clauses'
    /// order), and the same raw name tokens and server filters.
    #[test]
    fn a_multi_step_request_has_the_terms_of_its_whole_text() {
        let tools = vec![
            ToolDoc::new("create_note", "Create a note in a notebook"),
            ToolDoc::new("make_file", "Make a new file in a folder; rename files"),
            ToolDoc::new("list_folder", "List the files of a folder"),
        ];
        let idx = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        let sorted = |q: &ParsedQuery| {
            let mut v: Vec<(String, u64, bool, String)> = q
                .terms
                .iter()
                .map(|t| {
                    let origin = t.origin.to_string();
                    (t.term.to_string(), t.weight.to_bits(), t.required, origin)
                })
                .collect();
            v.sort();
            v
        };
        for request in [
            "Create a note named a.txt, then make a file and list the folder.",
            "Create a note. Then make +notebook files, and list the folder server:other",
            "Finally, list the foldr, then create_note \"Plan, then act\" and rename it",
        ] {
            let (q, parts) = idx.request_with(request, &mut QueryMemo::default());
            assert!(parts.len() >= 2, "{request}");
            let whole = idx.parse_query_with(request, &mut QueryMemo::default(), Analysis::Request);
            assert_eq!(sorted(&q), sorted(&whole), "{request}");
            assert_eq!(q.raw, whole.raw, "{request}");
            assert_eq!(q.raw_ident, whole.raw_ident, "{request}");
            assert_eq!(q.servers, whole.servers, "{request}");
        }
    }

    /// A synonym's origin names the word it is a synonym of, whether its label was made
    /// ahead (a stem of the synonym table) or on the spot (any other word).
    #[test]
    fn synonym_origins_name_their_word() {
        let a = analyze::Analyzer::default();
        let stems = analyze::SYNONYMS
            .iter()
            .flat_map(|g| g.iter())
            .map(|w| a.stem_word(w));
        let others = ["", "unlisted", "synonym", "数据"].map(str::to_owned);
        for word in stems.chain(others) {
            let origin = synonym_origin(&word);
            assert_eq!(origin, format!("synonym:{word}"), "{word:?}");
        }
        let tools = vec![ToolDoc {
            name: "file_tool".into(),
            description: "edit a document".into(),
            ..ToolDoc::default()
        }];
        let idx = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        let q = idx.parse_query("modify the file");
        let origin = |t: &str| q.terms.iter().find(|x| x.term == t).unwrap().origin.clone();
        assert_eq!(origin("edit"), "synonym:modif");
        assert_eq!(origin("doc"), "synonym:file");
    }

    /// The tokens are `split_whitespace`'s, whatever whitespace separates them.
    #[test]
    fn whitespace_tokens_split_as_split_whitespace() {
        for text in [
            "",
            " ",
            "one",
            "  send   a message\t",
            "a\u{b}b\u{c}c\r\nd",
            "\u{3000}全角\u{3000}空白\u{a0}x\u{2003}y ",
            "'quoted words' +required server:x",
        ] {
            let want: Vec<&str> = text.split_whitespace().collect();
            assert_eq!(whitespace_tokens(text), want, "{text:?}");
        }
    }

    /// The one-pass identifier shape agrees with its definition: a lowercase letter or digit
    /// before a capital, an underscore, or a hyphen left once the outer hyphens are trimmed.
    #[test]
    fn identifier_shape() {
        let by_definition = |w: &str| {
            let camel = w
                .chars()
                .zip(w.chars().skip(1))
                .any(|(a, b)| (a.is_lowercase() || a.is_ascii_digit()) && b.is_uppercase());
            camel || w.contains('_') || w.trim_matches('-').contains('-')
        };
        for w in [
            "plain",
            "Plain",
            "PLAIN",
            "cronCreate",
            "ec2Instance",
            "HTTPServer",
            "snake_case",
            "_",
            "kebab-case",
            "-lead",
            "trail-",
            "--",
            "-",
            "a-",
            "-a-",
            "a--b",
            "a-b-",
            "éÉ",
            "éa-",
            "数据-x",
            "x1Y",
            "",
        ] {
            assert_eq!(looks_like_identifier(w), by_definition(w), "{w:?}");
        }
    }

    /// Each term once, with the largest weight and any `+` it was given, whether the request
    /// has a few distinct words (found by scanning) or many (found through the map).
    #[test]
    fn terms_are_merged_across_the_scan_limit() {
        let tools = vec![ToolDoc {
            name: "word_tool".into(),
            description: "word0 word1 word2".into(),
            ..ToolDoc::default()
        }];
        let idx = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        for distinct in [3, TermPositions::SCAN, TermPositions::SCAN + 1, 200] {
            let words: Vec<String> = (0..distinct).map(|i| format!("word{i}")).collect();
            let query = format!(
                "{} \"word0\" +word1 {} +word{}",
                words.join(" "),
                words.join(" "),
                distinct - 1
            );
            let q = idx.parse_query(&query);
            let mut seen: Vec<&str> = q.terms.iter().map(|t| t.term.as_str()).collect();
            let all = seen.len();
            seen.sort_unstable();
            seen.dedup();
            assert_eq!(seen.len(), all, "{distinct}: a term listed twice");
            let get = |w: &str| q.terms.iter().find(|t| t.term == w).unwrap();
            assert_eq!(get("word0").weight, 1.0, "{distinct}");
            assert!(get("word1").required, "{distinct}");
            assert!(get(&format!("word{}", distinct - 1)).required, "{distinct}");
            assert!(!get("word0").required, "{distinct}");
        }
    }
}
