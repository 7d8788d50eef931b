//! The inverted tool index with compat TF-IDF scoring (SPEC §4–5, §8).
//!
//! Layout: terms are interned to `u32` ids; each term has a postings list of
//! `(slot, weighted tf)`; IDF and document norms are computed once per build or update, so a
//! query touches only the postings of its own terms. The compat name boost finds the tools
//! whose normalized name occurs in the query with the name matcher (`names`), kept up to
//! date on every change, instead of testing every tool.
//!
//! Documents live in *slots*; slot order is index order (ties in results go to the lower
//! slot). Removing a tool leaves an empty slot, so the survivors keep their relative order,
//! and adding a tool appends it — exactly the order a fresh build of the same list has.

use std::cell::{OnceCell, RefCell};
use std::convert::Infallible;

use hashbrown::HashTable;
use rayon::prelude::*;
use rustc_hash::FxHashSet;

use crate::collector::{HitSink, TopK, SMALL_K};
use crate::cosine::{Keep, Pass, Scratch};
pub use crate::cosine::{PreparedTerm, CJK_MIN_BIGRAM_MATCHES, NAME_BOOST};
use crate::error::IndexError;
use crate::keyword::{KeywordDocs, KeywordFields, KeywordIndex, KeywordSource};
use crate::name::{parse_tool_name, ParsedName};
use crate::names::NameMatcher;
use crate::pipeline;
pub use crate::pipeline::BUILD_CHUNK;
use crate::store::{self, check_unique, duplicate_names, Scorer, SlotStore};
use crate::text::{hash_text, is_cjk, js_lower, js_lower_owned, same_text, span};
use crate::tokenize::tokenize_and_stem_into;

/// Field weights of the compat weighted TF: name, searchHint, description.
pub const COMPAT_WEIGHTS: [f64; 3] = [3.0, 2.5, 1.0];
/// The reference's default display threshold (`TOOL_SEARCH_DISPLAY_MIN_SCORE`).
pub const DEFAULT_MIN_SCORE: f64 = 0.10;
/// Below this many tools a build tokenizes on one thread (measured: see `bench/`).
pub const DEFAULT_PARALLEL_THRESHOLD: usize = 512;

/// A chunk of tools as a caller reads them; an error (a tool that could not be read) ends
/// the build.
pub type ToolChunk = Result<Vec<ToolDoc>, IndexError>;

/// A tool as the index takes it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolDoc {
    pub name: String,
    pub description: String,
    pub search_hint: Option<String>,
    /// Overrides the `mcp__` prefix test when given.
    pub is_mcp: Option<bool>,
    /// The MCP server (enhanced scoring; `mcp__<server>__` names carry it already).
    pub server: Option<String>,
    /// Flattened input-schema text: property names and descriptions (enhanced scoring).
    pub schema_text: Option<String>,
}

impl ToolDoc {
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            ..Self::default()
        }
    }

    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.search_hint = Some(hint.into());
        self
    }
}

/// Build options.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// Tokenize on the rayon pool when a build or update has at least this many tools.
    pub parallel_threshold: usize,
}

impl Default for IndexOptions {
    fn default() -> Self {
        Self {
            parallel_threshold: DEFAULT_PARALLEL_THRESHOLD,
        }
    }
}

pub use crate::collector::{top_k, Hit};

/// What the index keeps of a tool.
#[derive(Debug, Clone)]
pub struct Doc {
    pub name: String,
    pub parsed: ParsedName,
    pub is_mcp: bool,
    /// Lowercased searchHint ("" when absent) and description, for the keyword scorer. Kept
    /// as read (not shrunk to fit: a build thread that reallocated them would contend for the
    /// allocator with the thread that read them).
    pub hint_lower: String,
    pub desc_lower: String,
    pub has_hint: bool,
    /// `(term id, weighted tf)` in first-seen order (name → hint → description).
    terms: Vec<(u32, f64)>,
    /// ‖d‖ of the TF-IDF vector.
    norm: f64,
}

/// A tool analysed without touching the shared vocabulary (so it can run in parallel).
pub(crate) struct Analyzed {
    name: String,
    is_mcp: Option<bool>,
    has_hint: bool,
    parsed: ParsedName,
    hint_lower: String,
    desc_lower: String,
    /// Each distinct token in first-seen order: its field, its byte range in that field's
    /// lowercased text (tokens stay slices of the texts, so only new vocabulary allocates),
    /// the hash the vocabulary keys it by, and its weighted tf.
    tf: Vec<AnalyzedTerm>,
}

/// One distinct token of an analysed tool (see [`Analyzed::tf`]).
struct AnalyzedTerm {
    field: u8,
    start: u32,
    len: u32,
    hash: u64,
    tf: f64,
}

store::named_by_field!(ToolDoc, Analyzed);

impl Analyzed {
    fn token(&self, t: &AnalyzedTerm) -> &str {
        let texts = [&self.parsed.full, &self.hint_lower, &self.desc_lower];
        span(texts[usize::from(t.field)], t.start, t.len)
    }
}

/// Distinct tokens a build thread's analysis scratch keeps room for between tools.
const MAX_KEPT_SCRATCH: usize = 4096;

std::thread_local! {
    /// A build thread's scratch for [`analyze`]: the lookup of a tool's distinct tokens by
    /// hash, and their counts per field.
    static ANALYSIS_SCRATCH: RefCell<(HashTable<u32>, Vec<[u32; 3]>)> =
        RefCell::new((HashTable::with_capacity(256), Vec::with_capacity(256)));
}

fn analyze(doc: ToolDoc) -> Analyzed {
    let parsed = parse_tool_name(&doc.name);
    // The name field is the parsed name: its parts, already lowercased, joined by spaces
    // (an MCP name's runs of underscores may leave two spaces, which no token sees).
    let name_text = &parsed.full;
    let has_hint = doc.search_hint.is_some();
    let hint_lower = js_lower_owned(doc.search_hint.unwrap_or_default());
    let desc_lower = js_lower_owned(doc.description);

    // Per token: where it was first seen and its hash (the term it becomes), and its counts in
    // the three fields (beside it, in the thread's scratch); found again by its hash. Sized
    // for the usual tool up front (a word every ~8 bytes), so the list rarely grows; the
    // lookup table and the counts are the thread's, reused tool after tool.
    let texts = [name_text.as_str(), &hint_lower, &desc_lower];
    let guess = ((name_text.len() + hint_lower.len() + desc_lower.len()) / 8).clamp(8, 256);
    let mut tf: Vec<AnalyzedTerm> = Vec::with_capacity(guess);
    ANALYSIS_SCRATCH.with_borrow_mut(|(pos, counts)| {
        pos.clear();
        counts.clear();
        let mut max = [0u32; 3];
        for (field, text) in texts.into_iter().enumerate() {
            let base = text.as_ptr() as usize;
            tokenize_and_stem_into(text, |t| {
                let hash = hash_text(t);
                let seen = |&i: &u32| {
                    let a = &tf[i as usize];
                    same_text(span(texts[usize::from(a.field)], a.start, a.len), t)
                };
                let i = match pos.find(hash, seen) {
                    Some(&i) => i as usize,
                    None => {
                        // `t` is a slice of `text`: keep its range, not a copy.
                        let start = (t.as_ptr() as usize - base) as u32;
                        tf.push(AnalyzedTerm {
                            field: field as u8,
                            start,
                            len: t.len() as u32,
                            hash,
                            tf: 0.0,
                        });
                        counts.push([0; 3]);
                        let i = tf.len() - 1;
                        pos.insert_unique(hash, i as u32, |&j| tf[j as usize].hash);
                        i
                    }
                };
                counts[i][field] += 1;
                max[field] = max[field].max(counts[i][field]);
            });
        }
        for (t, counts) in tf.iter_mut().zip(counts.iter()) {
            let mut best = f64::NEG_INFINITY;
            for f in 0..3 {
                if counts[f] > 0 {
                    let v = counts[f] as f64 / max[f].max(1) as f64 * COMPAT_WEIGHTS[f];
                    if v > best {
                        best = v;
                    }
                }
            }
            t.tf = best;
        }
        // A tool of many distinct words leaves the thread no larger scratch than usual.
        if counts.capacity() > MAX_KEPT_SCRATCH {
            *pos = HashTable::with_capacity(256);
            *counts = Vec::with_capacity(256);
        }
    });
    Analyzed {
        name: doc.name,
        is_mcp: doc.is_mcp,
        has_hint,
        parsed,
        hint_lower,
        desc_lower,
        tf,
    }
}

/// Analyse tools on the rayon pool, in order.
fn analyze_all(tools: Vec<ToolDoc>) -> Vec<Analyzed> {
    tools.into_par_iter().map(analyze).collect()
}

/// The tool index.
pub struct ToolIndex {
    opts: IndexOptions,
    /// Tools, names, vocabulary and sorted postings `(slot, weighted tf)`.
    store: SlotStore<Doc, f64>,
    idf: Vec<f64>,
    names: NameMatcher,
    /// `‖d‖` by slot (0 for an empty slot).
    norms: Vec<f64>,
    /// The cosine pass's scratch.
    scratch: RefCell<Scratch>,
    /// Keyword-search postings, built on first use, then updated tool by tool with every
    /// change (dropped, to be rebuilt on use, only when compaction renumbers the slots).
    keyword: OnceCell<KeywordIndex>,
}

impl std::fmt::Debug for ToolIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolIndex")
            .field("len", &self.store.live)
            .field("terms", &self.store.term_text.len())
            .finish()
    }
}

impl Default for ToolIndex {
    fn default() -> Self {
        Self::new(IndexOptions::default())
    }
}

impl ToolIndex {
    /// An empty index.
    pub fn new(opts: IndexOptions) -> Self {
        Self {
            opts,
            store: SlotStore::default(),
            idf: Vec::new(),
            names: NameMatcher::default(),
            norms: Vec::new(),
            scratch: RefCell::new(Scratch::default()),
            keyword: OnceCell::new(),
        }
    }

    /// Build an index from tools in order. Two tools with one name are an error
    /// ([`crate::ErrorCode::DuplicateName`]) and nothing is built.
    pub fn build(tools: Vec<ToolDoc>, opts: IndexOptions) -> Result<Self, IndexError> {
        check_unique(tools.iter().map(|t| t.name.as_str()))?;
        let mut index = Self::new(opts);
        index.insert_batch(tools);
        index.refresh();
        Ok(index)
    }

    /// Build from tools that arrive in chunks, in order, as the caller reads them (the
    /// binding reads JavaScript entries this way, in chunks of [`BUILD_CHUNK`]). When the
    /// caller expects (`expected`, a hint: its array's length) a large build, each chunk is
    /// analysed on the rayon pool as soon as it arrives and linked on a linking thread, so
    /// reading, analysis and linking overlap. The index equals [`ToolIndex::build`] of all
    /// the tools, and so do the errors: a chunk that is an error ends the build with it
    /// (nothing more is read), and repeated names ([`crate::ErrorCode::DuplicateName`], the
    /// same names in the same order) are reported only once every chunk has been read.
    pub fn build_streamed(
        chunks: impl IntoIterator<Item = ToolChunk>,
        expected: usize,
        opts: IndexOptions,
    ) -> Result<Self, IndexError> {
        let chunks = chunks.into_iter();
        if !pipeline::streams(expected, opts.parallel_threshold) {
            // Small, or on a pool thread: read everything first.
            return Self::build(pipeline::read_all(chunks, expected)?, opts);
        }
        let mut index = Self::new(opts);
        let repeated = pipeline::link_streamed(&mut index, chunks, &analyze_all, true)?;
        if !repeated.is_empty() {
            return Err(duplicate_names(&repeated));
        }
        index.refresh();
        Ok(index)
    }

    /// Add tools, replacing (in place, keeping their position) any with the same name.
    /// Results afterwards equal those of a fresh build of the resulting list.
    /// Returns the slot of each given tool, in input order.
    pub fn upsert(&mut self, tools: Vec<ToolDoc>) -> Result<Vec<u32>, IndexError> {
        store::upsert(self, tools)
    }

    /// Remove tools by name; returns how many were present.
    pub fn remove<S: AsRef<str>>(&mut self, names: &[S]) -> usize {
        store::remove(self, names)
    }

    /// An estimate of the heap bytes this index holds (what the binding reports to the
    /// JavaScript engine as external memory). Counts capacities of the main tables and the
    /// lengths of the kept texts; hash-map overhead is approximated per entry.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.store.heap_bytes(|d| {
            d.name.capacity()
                + d.parsed.heap_bytes()
                + d.hint_lower.capacity()
                + d.desc_lower.capacity()
                + d.terms.capacity() * size_of::<(u32, f64)>()
        }) + (self.idf.capacity() + self.norms.capacity()) * 8
            + self.names.heap_bytes()
    }

    /// The tools' slots, names and vocabulary: [`SlotStore::len`], `slot_of`, `slots`,
    /// `generation` (how many times compaction renumbered slots; slots handed out before a
    /// change of it are no longer valid), `tokens` (the reference's `tokens` of a tool).
    pub fn store(&self) -> &SlotStore<Doc, f64> {
        &self.store
    }

    /// The tool in a slot (slots come from [`Hit::slot`] and [`SlotStore::slots`]).
    pub fn doc(&self, slot: u32) -> Option<&Doc> {
        self.store.doc(slot)
    }

    /// The reference's `tfVector` of a tool: `(term, tf × idf)` in `tokens` order.
    pub fn tf_vector(&self, slot: u32) -> Vec<(&str, f64)> {
        self.doc(slot)
            .map(|d| {
                d.terms
                    .iter()
                    .map(|&(t, tf)| {
                        (
                            &*self.store.term_text[t as usize],
                            tf * self.idf[t as usize],
                        )
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    /// IDF of a term (`None` when no tool has it).
    pub fn idf(&self, term: &str) -> Option<f64> {
        self.store.term_id(term).map(|t| self.idf[t as usize])
    }

    /// Compat `searchTools(query, index, limit)` with a display threshold.
    ///
    /// Every tool that shares a term with the query is scored, through the postings of the
    /// query's terms. With `min_score <= 0` tools that share nothing also qualify, with score
    /// 0, in index order, as in the reference.
    pub fn search(&self, query: &str, limit: usize, min_score: f64) -> Vec<Hit> {
        if self.store.live == 0 || query.trim().is_empty() {
            return Vec::new();
        }
        let pq = self.prepare(query);
        if min_score > 0.0 {
            // Only the tools that reach the threshold become hits.
            return self.best_hits(&pq, Some(min_score), limit);
        }
        // A query without a token (only stop words) finds nothing, even at threshold 0.
        if pq.terms.is_empty() {
            return Vec::new();
        }
        // Every tool qualifies: the positive scores first, then the zeros in index order.
        let mut hits = self.best_hits(&pq, None, limit);
        if hits.len() < limit {
            let have: FxHashSet<u32> = hits.iter().map(|h| h.slot).collect();
            let room = limit - hits.len();
            hits.extend(
                self.store()
                    .slots()
                    .filter(|s| !have.contains(s))
                    .take(room)
                    .map(|slot| Hit { slot, score: 0.0 }),
            );
        }
        hits
    }

    /// The best `limit` hits of a prepared query, best first: those scoring at least `min`, or
    /// without `min` those scoring above 0. A small `limit` keeps only its best while scoring,
    /// without collecting the others first.
    fn best_hits(&self, pq: &PreparedQuery, min: Option<f64>, limit: usize) -> Vec<Hit> {
        let keep = min.map_or(Keep::Positive, Keep::AtLeast);
        if limit <= SMALL_K {
            let mut top = TopK::new(limit);
            self.each_hit(pq, keep, &mut top);
            return top.into_vec();
        }
        let mut hits = Vec::new();
        self.each_hit(pq, keep, &mut hits);
        top_k(&mut hits, limit);
        hits
    }

    /// Analyse a query once: lowercased text, distinct stemmed terms with their query-side
    /// TF × IDF, and ‖q‖. Both [`ToolIndex::search`] and [`ToolIndex::explain`] read this
    /// one object, so an explanation always describes the score search gave.
    pub fn prepare(&self, query: &str) -> PreparedQuery {
        let lower = js_lower(query);
        // Distinct query tokens with counts, first-seen order.
        let qterms = crate::tokenize::distinct_stemmed(&lower);
        let max = qterms.iter().map(|q| q.1).max().unwrap_or(1) as f64;
        let terms: Vec<PreparedTerm> = qterms
            .iter()
            .map(|&(t, c)| {
                let id = self.store.term_id(t);
                let idf = id.map(|i| self.idf[i as usize]).unwrap_or(0.0);
                PreparedTerm {
                    text: t.to_owned(),
                    id,
                    weight: c as f64 / max * idf,
                    count: c,
                    cjk: t.chars().next().is_some_and(is_cjk),
                }
            })
            .collect();
        let qnorm = terms
            .iter()
            .map(|t| t.weight * t.weight)
            .sum::<f64>()
            .sqrt();
        let has_cjk = terms.iter().any(|t| t.cjk);
        PreparedQuery {
            blank: query.trim().is_empty(),
            lower,
            terms,
            qnorm,
            has_cjk,
        }
    }

    /// Every tool with a score > 0 or a name boost, unsorted and unfiltered.
    pub fn score_all(&self, query: &str) -> Vec<Hit> {
        if self.store.live == 0 || query.trim().is_empty() {
            return Vec::new();
        }
        self.score_prepared(&self.prepare(query))
    }

    /// [`ToolIndex::score_all`] on a prepared query.
    pub fn score_prepared(&self, pq: &PreparedQuery) -> Vec<Hit> {
        let mut hits = Vec::new();
        self.each_hit(pq, Keep::All, &mut hits);
        hits
    }

    /// Each hit of a prepared query that `keep` lets through, once, into `sink`: the cosine
    /// pass over this index's postings, norms and name-boosted tools.
    fn each_hit(&self, pq: &PreparedQuery, keep: Keep, sink: &mut impl HitSink) {
        if self.store.live == 0 || pq.blank || pq.terms.is_empty() {
            return;
        }
        let boosted = self.boosted(&pq.lower);
        let pass = Pass {
            postings: &self.store.postings,
            idf: &self.idf,
            norms: &self.norms,
            terms: &pq.terms,
            qnorm: pq.qnorm,
            has_cjk: pq.has_cjk,
            boosted: &boosted,
            slots: self.store.docs.len() as u32,
            keep,
        };
        pass.run(&mut self.scratch.borrow_mut(), sink);
    }

    /// The slots whose normalized name occurs in a lowercased query (`-` and `_` read as
    /// spaces), sorted, each once.
    fn boosted(&self, lower: &str) -> Vec<u32> {
        let mut boosted = Vec::new();
        self.names.matches(&name_haystack(lower), &mut boosted);
        boosted.sort_unstable();
        boosted.dedup();
        boosted
    }
}

/// What the name boost looks for tool names in: the lowercased query with `-` and `_` read
/// as spaces.
fn name_haystack(lower: &str) -> String {
    lower
        .chars()
        .map(|c| if c == '-' || c == '_' { ' ' } else { c })
        .collect()
}

/// What the keyword scorer reads of a tool.
fn keyword_fields(d: &Doc) -> KeywordFields<'_> {
    KeywordFields {
        name: &d.name,
        parsed: &d.parsed,
        hint_lower: &d.hint_lower,
        desc_lower: &d.desc_lower,
    }
}

impl KeywordDocs for ToolIndex {
    fn keyword_slots(&self) -> Vec<u32> {
        self.store().slots().collect()
    }
    fn keyword_fields(&self, slot: u32) -> Option<KeywordFields<'_>> {
        self.doc(slot).map(keyword_fields)
    }
}

impl KeywordSource for ToolIndex {
    fn keyword_index(&self) -> &KeywordIndex {
        self.keyword.get_or_init(|| KeywordIndex::build(self))
    }
}

store::slot_doc_by_fields!(Doc);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorCode;

    fn sample() -> Vec<ToolDoc> {
        vec![
            ToolDoc::new(
                "CronCreate",
                "Schedule a prompt to run later or on a recurring cron schedule",
            )
            .with_hint("schedule a recurring or one-shot prompt"),
            ToolDoc::new(
                "mcp__github__create_issue",
                "Create a new issue in a GitHub repository",
            ),
            ToolDoc::new(
                "mcp__slack__send_message",
                "Send a message to a Slack channel",
            ),
            ToolDoc::new("PdfParse", "解析PDF文件并提取文本").with_hint("解析 pdf 文件"),
            ToolDoc::new("ls", "List files in a directory"),
        ]
    }

    fn names(index: &ToolIndex, hits: &[Hit]) -> Vec<String> {
        hits.iter()
            .map(|h| index.doc(h.slot).unwrap().name.clone())
            .collect()
    }

    #[test]
    fn finds_by_hint_and_description() {
        let idx = ToolIndex::build(sample(), IndexOptions::default()).unwrap();
        let hits = idx.search("schedule cron job", 5, DEFAULT_MIN_SCORE);
        assert_eq!(names(&idx, &hits)[0], "CronCreate");
        assert!(hits[0].score > 0.0 && hits[0].score <= 1.0);
        let hits = idx.search("解析pdf文件", 5, DEFAULT_MIN_SCORE);
        assert_eq!(names(&idx, &hits), vec!["PdfParse"]);
        assert!(idx.search("", 5, 0.1).is_empty());
        assert!(idx.search("   ", 5, 0.1).is_empty());
        assert!(idx.search("the of and", 5, 0.1).is_empty());
        assert!(idx.search("zzzz", 5, 0.1).is_empty());
    }

    #[test]
    fn name_boost_is_raw_substring() {
        let idx = ToolIndex::build(sample(), IndexOptions::default()).unwrap();
        // "tools" contains "ls": the reference quirk compat keeps.
        let hits = idx.search("which tools exist", 5, DEFAULT_MIN_SCORE);
        assert_eq!(names(&idx, &hits), vec!["ls"]);
        assert_eq!(hits[0].score, NAME_BOOST);
        let hits = idx.search("github_create-issue please", 5, DEFAULT_MIN_SCORE);
        assert_eq!(names(&idx, &hits)[0], "mcp__github__create_issue");
    }

    #[test]
    fn a_query_may_touch_every_tool() {
        // Each term is in two of three tools (IDF > 0), so "xray yak zebu" touches all three
        // before its last postings are read.
        let tools = vec![
            ToolDoc::new("AlphaTool", "xray yak"),
            ToolDoc::new("BetaTool", "yak zebu"),
            ToolDoc::new("GammaTool", "xray zebu"),
        ];
        let idx = ToolIndex::build(tools, IndexOptions::default()).unwrap();
        for _ in 0..2 {
            let hits = idx.search("xray yak zebu", 5, 0.0);
            assert_eq!(hits.len(), 3);
            assert_eq!(idx.score_all("xray yak zebu").len(), 3);
        }
    }

    #[test]
    fn ties_at_the_bar_go_to_the_lower_slot() {
        // Six tools alike but for a one-word name of the same length, the odd ones matching
        // the second query word where the even ones match the first: exactly equal scores,
        // and lower slots reached after higher ones (the second word's postings come later).
        // Each small limit keeps the lowest slots, as the unlimited list does.
        let mut tools: Vec<ToolDoc> = (0..6)
            .map(|i| {
                let text = if i % 2 == 0 {
                    "render widget"
                } else {
                    "draw chart"
                };
                ToolDoc::new(format!("q{i}"), text)
            })
            .collect();
        for (i, other) in ["Other", "Else", "Third", "Fourth"].into_iter().enumerate() {
            tools.insert(2 * i + 1, ToolDoc::new(other, "unrelated words entirely"));
        }
        let idx = ToolIndex::build(tools, IndexOptions::default()).unwrap();
        for min in [0.0, DEFAULT_MIN_SCORE] {
            let all = idx.search("widget chart", usize::MAX, min);
            // At threshold 0 every tool is listed, the unrelated ones last with 0.
            assert_eq!(all.len(), if min == 0.0 { 10 } else { 6 });
            assert!(all[..6]
                .iter()
                .all(|h| h.score == all[0].score && h.score > 0.0));
            for k in 1..=6 {
                assert_eq!(
                    idx.search("widget chart", k, min),
                    all[..k],
                    "k={k} min={min}"
                );
            }
            assert_eq!(names(&idx, &all[..3]), vec!["q0", "q1", "q2"]);
        }
    }

    #[test]
    fn a_query_starts_from_clean_scratch() {
        // Alternate CJK and plain queries: neither may see the sums or marks of the last.
        let idx = ToolIndex::build(sample(), IndexOptions::default()).unwrap();
        let cjk = idx.search("解析pdf文件", 5, DEFAULT_MIN_SCORE);
        let plain = idx.search("schedule cron job", 5, DEFAULT_MIN_SCORE);
        for _ in 0..3 {
            assert_eq!(idx.search("解析pdf文件", 5, DEFAULT_MIN_SCORE), cjk);
            assert_eq!(idx.search("schedule cron job", 5, DEFAULT_MIN_SCORE), plain);
        }
    }

    #[test]
    fn large_builds_inside_parallel_jobs_finish() {
        // More large builds at once on the pool than it has threads: a build that waited on
        // the pool from a pool thread could wait forever. Fails (not hangs) after a minute.
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let lens: Vec<usize> = (0..4 * rayon::current_num_threads())
                .into_par_iter()
                .map(|k| {
                    let tools = (0..BUILD_CHUNK * 2 + k)
                        .map(|i| ToolDoc::new(format!("t{k}_{i}"), format!("word{} file", i % 97)))
                        .collect();
                    ToolIndex::build(tools, IndexOptions::default())
                        .unwrap()
                        .store()
                        .len()
                })
                .collect();
            let _ = tx.send(lens);
        });
        let lens = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("parallel builds did not finish within a minute");
        assert!(lens
            .iter()
            .enumerate()
            .all(|(k, &n)| n == BUILD_CHUNK * 2 + k));
    }

    #[test]
    fn scratch_follows_the_index_down() {
        // After most tools go (and the slots are compacted), a query's scratch is cut to the
        // slots left, and results still equal a fresh build's.
        let tools: Vec<ToolDoc> = (0..12_000)
            .map(|i| ToolDoc::new(format!("tool{i}"), format!("create file number {i}")))
            .collect();
        let mut idx = ToolIndex::build(tools.clone(), IndexOptions::default()).unwrap();
        assert!(!idx.search("create file", 5, 0.0).is_empty());
        assert!(idx.scratch.borrow().held() >= 12_000);
        let gone: Vec<String> = tools[100..].iter().map(|t| t.name.clone()).collect();
        idx.remove(&gone);
        let fresh = ToolIndex::build(tools[..100].to_vec(), IndexOptions::default()).unwrap();
        for q in ["create file", "number 42", "解析文件"] {
            assert_eq!(idx.search(q, 5, 0.0), fresh.search(q, 5, 0.0), "{q}");
        }
        let held = idx.scratch.borrow().held();
        let bound = 2 * idx.store.docs.len() + crate::collector::SCRATCH_SLACK + 1;
        assert!(held <= bound, "{held} > {bound}");
    }

    #[test]
    fn duplicate_names_are_rejected() {
        let mut tools = sample();
        tools.push(ToolDoc::new("ls", "again"));
        let err = ToolIndex::build(tools, IndexOptions::default()).unwrap_err();
        assert_eq!(err.code, ErrorCode::DuplicateName);
    }

    #[test]
    fn incremental_equals_rebuild() {
        let all = sample();
        let mut idx = ToolIndex::build(all[..2].to_vec(), IndexOptions::default()).unwrap();
        idx.upsert(all[2..].to_vec()).unwrap();
        idx.remove(&["mcp__github__create_issue"]);
        idx.upsert(vec![ToolDoc::new(
            "ls",
            "List files and folders in a directory",
        )])
        .unwrap();
        let mut expect: Vec<ToolDoc> = all
            .into_iter()
            .filter(|t| t.name != "mcp__github__create_issue")
            .collect();
        expect[3] = ToolDoc::new("ls", "List files and folders in a directory");
        let fresh = ToolIndex::build(expect, IndexOptions::default()).unwrap();
        for q in [
            "list files",
            "send slack message",
            "schedule",
            "解析pdf",
            "tools",
        ] {
            let a = idx.search(q, 10, 0.0);
            let b = fresh.search(q, 10, 0.0);
            assert_eq!(names(&idx, &a), names(&fresh, &b), "{q}");
            for (x, y) in a.iter().zip(&b) {
                assert_eq!(x.score, y.score, "{q}");
            }
        }
    }

    #[test]
    fn top_k_orders_ties_by_slot() {
        let mut hits = vec![
            Hit {
                slot: 3,
                score: 0.5,
            },
            Hit {
                slot: 1,
                score: 0.5,
            },
            Hit {
                slot: 2,
                score: 0.9,
            },
            Hit {
                slot: 0,
                score: 0.1,
            },
        ];
        top_k(&mut hits, 3);
        assert_eq!(
            hits.iter().map(|h| h.slot).collect::<Vec<_>>(),
            vec![2, 1, 3]
        );
    }

    /// A large build links chunks while the pool analyses the next ones: the same slots,
    /// vocabulary (ids in first-seen order), per-tool terms and results as a build on one
    /// thread, at sizes around the chunk edges.
    #[test]
    fn chunked_build_equals_one_thread() {
        let words = [
            "create", "issue", "file", "files", "message", "send", "schedule", "running",
            "database", "query", "user", "users", "解析", "文件", "pdf", "report",
        ];
        let tool = |i: usize| {
            let w = |k: usize| words[(i * 7 + k * 13 + i / 5) % words.len()];
            let name = if i.is_multiple_of(3) {
                format!("mcp__srv{}__{}_{}_{i}", i % 11, w(0), w(1))
            } else {
                format!("Tool{i}{}", w(2))
            };
            let desc = format!("{} {} the {} of {} {i}", w(3), w(4), w(5), w(6));
            let doc = ToolDoc::new(&name, &desc);
            if i.is_multiple_of(4) {
                doc.with_hint(w(7))
            } else {
                doc
            }
        };
        for n in [BUILD_CHUNK * 2 - 1, BUILD_CHUNK * 2, BUILD_CHUNK * 3 + 17] {
            let tools: Vec<ToolDoc> = (0..n).map(tool).collect();
            let serial = ToolIndex::build(
                tools.clone(),
                IndexOptions {
                    parallel_threshold: usize::MAX,
                },
            )
            .unwrap();
            // Streamed in chunks of another size than the build's, as a reader might.
            let streamed = ToolIndex::build_streamed(
                tools.chunks(777).map(|c| Ok(c.to_vec())),
                n,
                IndexOptions::default(),
            )
            .unwrap();
            // A hint far off either way changes nothing.
            let (few, many) = (&tools[..3], 1 << 20);
            let hinted = ToolIndex::build_streamed([Ok(few.to_vec())], many, Default::default());
            let hinted = hinted.unwrap();
            assert_eq!(
                hinted.store.term_text,
                ToolIndex::build(few.to_vec(), Default::default())
                    .unwrap()
                    .store
                    .term_text
            );
            let unhinted = ToolIndex::build_streamed(
                tools.chunks(500).map(|c| Ok(c.to_vec())),
                0,
                Default::default(),
            );
            assert_eq!(unhinted.unwrap().norms, serial.norms, "{n}");
            let chunked = ToolIndex::build(tools, IndexOptions::default()).unwrap();
            for other in [&chunked, &streamed] {
                assert_eq!(serial.store.term_text, other.store.term_text, "{n}");
                assert_eq!(serial.idf, other.idf, "{n}");
                assert_eq!(serial.norms, other.norms, "{n}");
                for slot in 0..n as u32 {
                    let (a, b) = (serial.doc(slot).unwrap(), other.doc(slot).unwrap());
                    assert_eq!((&a.name, &a.terms), (&b.name, &b.terms), "{n} {slot}");
                }
            }
            for q in [
                "create file",
                "send the user a message",
                "解析文件",
                "report 17",
            ] {
                let bits = |hits: Vec<Hit>| {
                    hits.iter()
                        .map(|h| (h.slot, h.score.to_bits()))
                        .collect::<Vec<_>>()
                };
                assert_eq!(
                    bits(serial.search(q, 40, 0.0)),
                    bits(chunked.search(q, 40, 0.0)),
                    "{n} {q}"
                );
                assert_eq!(
                    bits(serial.search(q, 40, 0.0)),
                    bits(streamed.search(q, 40, 0.0)),
                    "{n} {q}"
                );
            }
        }
    }
}

/// A compat query analysed once, read by both search and explain.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedQuery {
    blank: bool,
    lower: String,
    pub terms: Vec<PreparedTerm>,
    /// ‖q‖.
    pub qnorm: f64,
    has_cjk: bool,
}

/// One query term's share of a compat score.
#[derive(Debug, Clone, PartialEq)]
pub struct CompatTermExplain {
    pub term: String,
    /// Query-side TF × IDF.
    pub query_weight: f64,
    /// Tool-side TF × IDF (0 when the tool lacks the term).
    pub tool_weight: f64,
    /// `query_weight × tool_weight / (‖q‖·‖d‖)`.
    pub contribution: f64,
}

/// Why a tool got its compat score.
#[derive(Debug, Clone, PartialEq)]
pub struct CompatExplain {
    pub name: String,
    pub cosine: f64,
    pub cjk_guard_zeroed: bool,
    pub name_boosted: bool,
    pub score: f64,
    pub terms: Vec<CompatTermExplain>,
}

impl ToolIndex {
    /// Per-term contributions of one tool's compat score for a query.
    pub fn explain(&self, query: &str, name: &str) -> Option<CompatExplain> {
        let slot = self.store().slot_of(name)?;
        let doc = self.doc(slot)?;
        let pq = self.prepare(query);
        let denom = pq.qnorm * doc.norm;
        let terms: Vec<CompatTermExplain> = pq
            .terms
            .iter()
            .map(|t| {
                let dw =
                    t.id.and_then(|id| {
                        doc.terms
                            .iter()
                            .find(|(x, _)| *x == id)
                            .map(|(_, tf)| tf * self.idf[id as usize])
                    })
                    .unwrap_or(0.0);
                CompatTermExplain {
                    term: t.text.clone(),
                    query_weight: t.weight,
                    tool_weight: dw,
                    contribution: if denom == 0.0 {
                        0.0
                    } else {
                        t.weight * dw / denom
                    },
                }
            })
            .collect();
        let cosine = terms.iter().map(|t| t.contribution).sum::<f64>().min(1.0);
        let hit = self
            .score_prepared(&pq)
            .into_iter()
            .find(|h| h.slot == slot);
        let score = hit.map(|h| h.score).unwrap_or(0.0);
        let name_boosted =
            !pq.terms.is_empty() && name_haystack(&pq.lower).contains(doc.parsed.full.as_str());
        Some(CompatExplain {
            name: doc.name.clone(),
            cosine,
            cjk_guard_zeroed: cosine > 0.0
                && score < cosine.min(NAME_BOOST.max(cosine))
                && !name_boosted,
            name_boosted,
            score,
            terms,
        })
    }
}

#[cfg(test)]
mod zero_threshold_tests {
    use super::*;

    #[test]
    fn min_score_zero_lists_every_tool_like_the_reference() {
        let idx = ToolIndex::build(
            vec![
                ToolDoc::new("Qa1", "alpha"),
                ToolDoc::new("Qb2", "send message"),
                ToolDoc::new("Qc3", "gamma"),
                ToolDoc::new("Qd4", "send mail"),
            ],
            IndexOptions::default(),
        )
        .unwrap();
        let names = |hits: Vec<Hit>| {
            hits.iter()
                .map(|h| idx.doc(h.slot).unwrap().name.clone())
                .collect::<Vec<_>>()
        };
        let hits = idx.search("send message", 10, 0.0);
        assert_eq!(names(hits.clone()), vec!["Qb2", "Qd4", "Qa1", "Qc3"]);
        assert_eq!(hits[2].score, 0.0);
        assert_eq!(
            names(idx.search("send message", 3, 0.0)),
            vec!["Qb2", "Qd4", "Qa1"]
        );
        assert!(idx.search("the", 10, 0.0).is_empty());
    }
}

impl Scorer for ToolIndex {
    type Tool = ToolDoc;
    type Analyzed = Analyzed;

    type Doc = Doc;
    type Payload = f64;

    fn store(&self) -> &SlotStore<Doc, f64> {
        &self.store
    }

    fn store_mut(&mut self) -> &mut SlotStore<Doc, f64> {
        &mut self.store
    }

    /// Put an analysed tool into a (vacant) slot and its postings.
    fn link(&mut self, slot: u32, a: Analyzed) {
        self.names.add(slot, &a.parsed.full);
        let mut terms = Vec::with_capacity(a.tf.len());
        for t in &a.tf {
            let tok = a.token(t);
            let (id, new) = self.store.intern_hashed(tok, t.hash);
            let tf = t.tf;
            if new {
                self.idf.push(0.0);
            }
            self.store.post(id, slot, tf);
            terms.push((id, tf));
        }
        let is_mcp = a.is_mcp.unwrap_or(a.parsed.is_mcp);
        let has_hint = a.has_hint;
        self.store.occupy(
            slot,
            Doc {
                name: a.name,
                parsed: a.parsed,
                is_mcp,
                hint_lower: a.hint_lower,
                desc_lower: a.desc_lower,
                has_hint,
                terms,
                norm: 0.0,
            },
        );
        if let (Some(kw), Some(d)) = (self.keyword.get_mut(), self.store.doc(slot)) {
            kw.add(slot, &keyword_fields(d));
        }
    }

    /// Empty a slot: its postings, name and name-matcher entry go.
    fn vacate(&mut self, slot: u32) {
        if let Some(d) = self.store.vacate(slot) {
            self.names.remove(slot, &d.parsed.full);
            if let Some(kw) = self.keyword.get_mut() {
                kw.remove(slot, &keyword_fields(&d));
            }
        }
    }

    fn vacate_many(&mut self, slots: &[u32]) {
        for (slot, d) in self.store.vacate_many(slots) {
            self.names.remove(slot, &d.parsed.full);
            if let Some(kw) = self.keyword.get_mut() {
                kw.remove(slot, &keyword_fields(&d));
            }
        }
    }

    fn fill(&mut self, slot: u32, tool: ToolDoc) {
        let a = analyze(tool);
        self.link(slot, a);
    }

    fn insert_batch(&mut self, tools: Vec<ToolDoc>) {
        self.store.reserve(tools.len());
        if tools.len() < self.opts.parallel_threshold {
            return pipeline::link_all(self, tools.into_iter().map(analyze));
        }
        if !pipeline::streams(tools.len(), self.opts.parallel_threshold) {
            return pipeline::link_all(self, analyze_all(tools));
        }
        // Large builds: a linking thread links each chunk (into the shared vocabulary, in
        // order) while the pool analyses the next ones. The names were checked by the caller.
        let chunks = pipeline::chunks_of(tools).map(Ok::<_, Infallible>);
        let Ok(_) = pipeline::link_streamed(self, chunks, &analyze_all, false);
    }

    /// Renumber slots when more than half of them are empty (see [`SlotStore::maybe_compact`]).
    fn maybe_compact(&mut self) {
        if let Some(map) = self.store.maybe_compact() {
            self.names.renumber(&map);
            self.keyword = OnceCell::new();
        }
    }

    /// Drop dead terms (see [`SlotStore::maybe_compact_terms`]) with their IDF entries, and
    /// the keyword postings' dead words and name parts by the same rule.
    fn maybe_compact_terms(&mut self) {
        if let Some(map) = self.store.maybe_compact_terms() {
            store::retain_mapped(&mut self.idf, &map);
        }
        if let Some(kw) = self.keyword.get_mut() {
            kw.maybe_compact();
        }
    }

    /// Recompute IDF and norms after a change.
    fn refresh(&mut self) {
        let n = self.store.live as f64;
        for (t, p) in self.store.postings.iter().enumerate() {
            self.idf[t] = if p.is_empty() {
                0.0
            } else {
                (n / p.len() as f64).ln()
            };
        }
        let idf = &self.idf;
        let norm_of = |d: &mut Option<Doc>| {
            if let Some(d) = d {
                let mut sum = 0.0;
                for &(t, tf) in &d.terms {
                    let w = tf * idf[t as usize];
                    sum += w * w;
                }
                d.norm = sum.sqrt();
            }
        };
        if self.store.docs.len() >= self.opts.parallel_threshold.saturating_mul(8) {
            self.store.docs.par_iter_mut().for_each(norm_of);
        } else {
            self.store.docs.iter_mut().for_each(norm_of);
        }
        // Dense copy by slot (0 for empty slots): the query loop reads it, not the tools.
        self.norms = self
            .store
            .docs
            .iter()
            .map(|d| d.as_ref().map_or(0.0, |d| d.norm))
            .collect();
    }
}
