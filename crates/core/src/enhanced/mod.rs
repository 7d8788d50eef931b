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
mod clauses;
mod coverage;
mod explain;
pub mod lexicon;
mod names;
mod params;
mod query;
mod score;
pub mod segment;
mod tools;
mod wordlists;
mod words;

use std::cell::RefCell;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::collector::{top_k, Hit, TopK, SMALL_K};
use crate::error::{ErrorCode, IndexError};
use crate::index::ToolDoc;
use crate::store::{Scorer, SlotStore};
use analyze::Analyzer;

pub use explain::{Explain, TermExplain};
pub use names::{name_key, server_and_leaf, TIER_FULL, TIER_LEAF, TIER_SERVER_LEAF};
pub use params::{confidence, Params, CROWD_RANK, CROWD_RULE};
use query::QueryMemo;
pub use query::{
    analysed_prefix, quoted_tokens, ParsedQuery, QueryTerm, MAX_QUERY_ANALYSED, WORD_CACHE_MAX,
};
use score::Scratch;
pub use tools::Doc;

/// Number of fields.
pub const FIELDS: usize = 5;
/// Field names, in field order.
pub const FIELD_NAMES: [&str; FIELDS] = ["name", "server", "searchHint", "description", "schema"];
/// The index of the schema field in [`FIELD_NAMES`].
pub const SCHEMA_FIELD: usize = 4;

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
    /// The scratch of a multi-step request's clause scores (read beside the request's own).
    clause_scratch: RefCell<Scratch>,
    /// Pseudo-frequencies of the terms requests score, kept until the tools change.
    tf_cache: RefCell<score::TfCache>,
    /// Words requests have had, with their tokens (analysis is the same for every index, so
    /// this only saves work); past [`WORD_CACHE_MAX`] words, only those a later request read
    /// again stay ([`analyze::WordMemo::trim`]).
    word_cache: RefCell<analyze::WordMemo>,
    /// Typo corrections requests have had, by unknown word: they depend on the tools, so any
    /// change empties it; at most [`WORD_CACHE_MAX`] words, then it starts over.
    typo_cache: RefCell<FxHashMap<String, Vec<String>>>,
    /// What raw words of requests are to the name tiers ([`query::RawName`]): they depend on
    /// the tools' names, so any change empties it; at most [`WORD_CACHE_MAX`] words, then it
    /// starts over.
    name_cache: RefCell<FxHashMap<compact_str::CompactString, query::RawName>>,
    /// Emptied analyses of earlier requests, for the next to fill ([`ParsedQuery::recycle`]).
    spare_queries: RefCell<Vec<ParsedQuery>>,
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
            clause_scratch: RefCell::new(Scratch::default()),
            tf_cache: RefCell::new(score::TfCache::default()),
            word_cache: RefCell::new(analyze::WordMemo::default()),
            typo_cache: RefCell::new(FxHashMap::default()),
            name_cache: RefCell::new(FxHashMap::default()),
            spare_queries: RefCell::new(Vec::new()),
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

    /// Build from tools that arrive in chunks, in order, as the caller reads them (the
    /// binding reads JavaScript entries this way, in chunks of
    /// [`BUILD_CHUNK`](crate::index::BUILD_CHUNK)). When the caller expects (`expected`, a
    /// hint) a large build, each chunk is analysed on the rayon pool as soon as it arrives and
    /// linked on a linking thread, so reading, analysis and linking overlap. The index equals
    /// [`EnhancedIndex::build`] of all the tools, and so do the errors: a chunk that is an
    /// error ends the build with it, and repeated names
    /// ([`crate::ErrorCode::DuplicateName`], the same names in the same order) are reported
    /// once every chunk has been read.
    pub fn build_streamed(
        chunks: impl IntoIterator<Item = crate::index::ToolChunk>,
        expected: usize,
        params: Params,
        parallel_threshold: usize,
    ) -> Result<Self, IndexError> {
        let chunks = chunks.into_iter();
        if !crate::pipeline::streams(expected, parallel_threshold) {
            // Small, or on a pool thread: read everything first.
            let tools = crate::pipeline::read_all(chunks, expected)?;
            return Self::build(tools, params, parallel_threshold);
        }
        let mut idx = Self::new(params, parallel_threshold);
        let analyzer = tools::ChunkAnalyzer::default();
        let analyze = |chunk: Vec<ToolDoc>| analyzer.analyze(&chunk);
        let repeated = crate::pipeline::link_streamed(&mut idx, chunks, &analyze, true)?;
        if !repeated.is_empty() {
            return Err(crate::store::duplicate_names(&repeated));
        }
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
        self.store.heap_bytes(|d| {
            d.name.capacity()
                + d.server_key.as_ref().map_or(0, String::capacity)
                + d.terms.capacity() * size_of::<(u32, [u16; FIELDS])>()
                + d.keys.iter().map(|k| k.0.capacity() + 32).sum::<usize>()
        }) + deletes
            + keys
            + self.norms.capacity() * size_of::<[f64; FIELDS]>()
            + self
                .tf_cache
                .try_borrow()
                .map_or(0, |c| c.held() * size_of::<f64>())
            + self.name_cache.try_borrow().map_or(0, |m| {
                m.capacity() * (2 * size_of::<compact_str::CompactString>() + 8)
            })
            + self.spare_queries.try_borrow().map_or(0, |v| {
                v.iter()
                    .map(|q| {
                        q.terms.capacity() * size_of::<QueryTerm>()
                            + q.raw.capacity() * size_of::<compact_str::CompactString>()
                            + q.raw_ident.capacity()
                            + q.raw_named.capacity()
                            + q.servers.capacity() * size_of::<String>()
                    })
                    .sum()
            })
    }

    /// The tools' slots, names and vocabulary: [`SlotStore::len`], `slot_of`, `slots`,
    /// `generation`, `tokens` (a tool's distinct analysed terms, first seen first).
    pub fn store(&self) -> &SlotStore<Doc, [u16; FIELDS]> {
        &self.store
    }

    /// The name of the tool in a slot.
    pub fn name(&self, slot: u32) -> Option<&str> {
        self.store.doc(slot).map(|d| d.name.as_str())
    }

    /// Add or replace tools (replacements keep their slot). Returns each tool's slot.
    pub fn upsert(&mut self, tools: Vec<ToolDoc>) -> Result<Vec<u32>, IndexError> {
        crate::store::upsert(self, tools)
    }

    /// Remove tools by name; returns how many were present.
    pub fn remove<S: AsRef<str>>(&mut self, names: &[S]) -> usize {
        crate::store::remove(self, names)
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
            typos: self.typo_cache.take(),
            names: self.name_cache.take(),
            spare: self.spare_queries.take(),
        };
        let (q, parts) = self.request_with(query, &mut memo);
        memo.words.trim(WORD_CACHE_MAX);
        if memo.typos.len() > WORD_CACHE_MAX {
            memo.typos = FxHashMap::default();
        }
        if memo.names.len() > WORD_CACHE_MAX {
            memo.names = FxHashMap::default();
        }
        self.word_cache.replace(memo.words);
        self.typo_cache.replace(memo.typos);
        self.name_cache.replace(memo.names);
        let hits = self.search_clauses(&q, &parts, limit, min_score);
        ParsedQuery::recycle(std::iter::once(q).chain(parts), &mut memo.spare);
        self.spare_queries.replace(memo.spare);
        hits
    }

    /// How many postings the terms of an analysed query have: the work of its scoring loop
    /// (for measuring the cost per matching posting at different index sizes).
    pub fn matching_postings(&self, q: &ParsedQuery) -> usize {
        q.terms
            .iter()
            .filter_map(|t| self.store.term_id(&t.term))
            .map(|id| self.store.postings[id as usize].len())
            .sum()
    }

    /// [`EnhancedIndex::search`] on an analysed query (one clause).
    pub fn search_parsed(&self, q: &ParsedQuery, limit: usize, min_score: f64) -> Vec<Hit> {
        self.search_clauses(q, &[], limit, min_score)
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
        // The crowd rule reads the first CROWD_RANK, so they get their final scores.
        let upto = if self.params.crowd_rule_on() {
            limit.max(CROWD_RANK)
        } else {
            limit
        };
        let mut hits = if parts.len() < 2 && upto <= SMALL_K {
            // One clause and a small limit: the best are kept while scoring instead of every
            // match collected and then selected.
            let mut top = TopK::new(upto);
            if self.score_into(q, &self.tiers(q), &mut top).abstains {
                return Vec::new();
            }
            top.into_vec()
        } else if parts.len() < 2 {
            self.score(q)
        } else {
            let clause_terms = self.clause_terms(parts);
            self.search_steps(q, &clause_terms, upto, min_score)
        };
        if self.crowd_abstains(q, &hits) {
            return Vec::new();
        }
        hits.retain(|h| h.score >= min_score);
        top_k(&mut hits, limit);
        hits
    }
}

/// Build the error for an unknown scoring mode.
pub fn unknown_scoring(s: &str) -> IndexError {
    IndexError::new(
        ErrorCode::InvalidScoring,
        format!("unknown scoring mode {s:?}; expected 'compat' or 'enhanced'"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(name: &str, desc: &str) -> ToolDoc {
        ToolDoc::new(name, desc)
    }

    #[test]
    fn cjk_unigrams_match_words_the_bigrams_split_differently() {
        // 改为 ("change to") and 更改 ("change") share only 改.
        let tools = vec![
            doc("clock_alarm_cancel", "取消闹钟工具"),
            doc("clock_alarm_change", "更改闹钟工具"),
            doc("flight_ticket_cancel", "机票预订取消工具"),
        ];
        let q = "把明天的闹钟改为七点";
        let idx = EnhancedIndex::build(tools.clone(), Params::default(), 512).unwrap();
        assert_eq!(top(&idx, q)[0], "clock_alarm_change");
        // Without unigrams in the request, both alarm tools match 闹钟 alone, and the first wins.
        let off = Params {
            unigram_weight: 0.0,
            ..Params::default()
        };
        let idx = EnhancedIndex::build(tools, off, 512).unwrap();
        assert_eq!(top(&idx, q)[0], "clock_alarm_cancel");
        let parsed = idx.parse_query(q);
        assert!(parsed.terms.iter().all(|t| t.origin != "unigram"));
    }

    #[test]
    fn cjk_unigrams_stay_out_of_the_schema_and_the_request_mass() {
        let mut with_schema = doc("stock_quote", "Get a stock quote");
        with_schema.schema_text = Some("代码 股票代码".to_owned());
        let tools = vec![with_schema, doc("weather", "天气预报")];
        let idx = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        // 码 alone is in the schema only as part of 代码: no unigram is indexed there.
        assert!(top(&idx, "码").is_empty());
        // The bigram still matches.
        assert_eq!(top(&idx, "代码"), vec!["stock_quote"]);
        let q = idx.parse_query("查询天气");
        let unigrams: Vec<&str> = q
            .terms
            .iter()
            .filter(|t| t.origin == "unigram")
            .map(|t| t.term.as_str())
            .collect();
        assert_eq!(unigrams, vec!["查", "询", "天", "气"]);
        assert!(q
            .terms
            .iter()
            .filter(|t| t.origin == "unigram")
            .all(|t| t.weight < 1.0));
        // The request's mass is that of its words alone.
        let words = ParsedQuery {
            terms: q
                .terms
                .iter()
                .filter(|t| t.origin != "unigram")
                .cloned()
                .collect(),
            ..q.clone()
        };
        assert_eq!(
            idx.query_mass(&q).to_bits(),
            idx.query_mass(&words).to_bits()
        );
    }

    #[test]
    fn cjk_unigrams_add_evidence_but_cover_nothing() {
        let tools = vec![
            doc("weather_forecast", "天气预报"),
            doc("send_email", "发送电子邮件"),
            doc("book_table", "预订餐厅座位"),
        ];
        let idx = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        // 今天心情很好 ("I'm in a good mood today") shares only 天 with 天气: no answer.
        assert!(top(&idx, "今天心情很好").is_empty());
        assert_eq!(top(&idx, "今天天气怎么样")[0], "weather_forecast");
        // A tool's coverage stays a share of the request's mass.
        let e = idx
            .explain("查询今天的天气预报", "weather_forecast")
            .unwrap();
        assert!(e.coverage <= 1.0 + 1e-12, "{}", e.coverage);
    }

    #[test]
    fn a_required_cjk_word_asks_for_its_words_and_a_lone_character_is_a_word() {
        let mut upload = doc("upload_tool", "Upload to the server");
        upload.schema_text = Some("文件路径".to_owned());
        let tools = vec![
            upload,
            doc("order_lookup", "订单 查询"),
            doc("pick_one", "单 选择"),
        ];
        let idx = EnhancedIndex::build(tools.clone(), Params::default(), 512).unwrap();
        // 文件 is in the schema only, where no unigram is indexed: `+文件` asks for 文件 alone.
        assert_eq!(top(&idx, "+文件"), vec!["upload_tool"]);
        let q = idx.parse_query("+文件");
        assert!(q.terms.iter().all(|t| t.origin != "unigram" || !t.required));
        // A lone character is a word of the request, at full weight and in its mass.
        let q = idx.parse_query("单");
        assert_eq!(q.terms.len(), 1);
        assert_eq!(
            (q.terms[0].origin.as_ref(), q.terms[0].weight),
            ("query", 1.0)
        );
        assert_eq!(top(&idx, "单")[0], "pick_one");
        let off = Params {
            unigram_weight: 0.0,
            ..Params::default()
        };
        let idx = EnhancedIndex::build(tools, off, 512).unwrap();
        assert_eq!(top(&idx, "单")[0], "pick_one");
    }

    /// The analyses a request leaves for the next to fill change no result, and a request of
    /// thousands of words leaves no large list behind.
    #[test]
    fn spare_analyses_change_nothing_and_stay_small() {
        let i = idx();
        let scores = |q: &str| {
            i.search(q, 5, 0.0)
                .iter()
                .map(|h| (h.slot, h.score.to_bits()))
                .collect::<Vec<_>>()
        };
        let requests = [
            "send a message to the team",
            "create a file named a.txt, then rename it and list the folder",
            "+message server:none slack",
        ];
        let first: Vec<_> = requests.iter().map(|q| scores(q)).collect();
        let huge: String = (0..5_000).map(|k| format!("w{k}x, then ")).collect();
        i.search(&huge, 5, 0.0);
        let again: Vec<_> = requests.iter().map(|q| scores(q)).collect();
        assert_eq!(first, again);
        let spare = i.spare_queries.borrow();
        assert!(spare.len() <= ParsedQuery::SPARE);
        assert!(spare
            .iter()
            .all(|q| q.terms.is_empty() && q.terms.capacity() <= 256));
    }

    #[test]
    fn scratch_follows_the_index_down() {
        let tools: Vec<ToolDoc> = (0..12_000)
            .map(|i| doc(&format!("tool{i}"), &format!("create file number {i}")))
            .collect();
        let mut idx = EnhancedIndex::build(tools.clone(), Params::default(), 512).unwrap();
        assert!(!idx.search("create file", 5, 0.0).is_empty());
        assert!(!idx.search("create file, then number 42", 5, 0.0).is_empty());
        assert!(idx.scratch.borrow().held() >= 12_000);
        assert!(idx.clause_scratch.borrow().held() >= 12_000);
        let gone: Vec<String> = tools[100..].iter().map(|t| t.name.clone()).collect();
        idx.remove(&gone);
        let fresh = EnhancedIndex::build(tools[..100].to_vec(), Params::default(), 512).unwrap();
        for q in ["create file", "number 42", "create file, then number 42"] {
            let names = |i: &EnhancedIndex, hits: Vec<Hit>| {
                hits.iter()
                    .map(|h| (i.name(h.slot).unwrap().to_owned(), h.score.to_bits()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(
                names(&idx, idx.search(q, 5, 0.0)),
                names(&fresh, fresh.search(q, 5, 0.0)),
                "{q}"
            );
        }
        let bound = 2 * idx.store.docs.len() + crate::collector::SCRATCH_SLACK + 1;
        for scratch in [&idx.scratch, &idx.clause_scratch] {
            let held = scratch.borrow().held();
            assert!(held <= bound, "{held} > {bound}");
        }
    }

    /// The test catalog, in index order.
    fn small_catalog() -> Vec<ToolDoc> {
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
        ]
    }

    fn idx() -> EnhancedIndex {
        EnhancedIndex::build(small_catalog(), Params::default(), 512).unwrap()
    }

    /// A build on one thread, a build through the pipeline and streamed builds (in the
    /// reader's chunks, in other chunk sizes, without a size hint) give the same vocabulary,
    /// the same documents slot by slot and the same hits, to the bit, around the sizes where
    /// the pipeline starts.
    #[test]
    fn streamed_and_pipelined_builds_equal_a_serial_build() {
        use crate::index::BUILD_CHUNK;
        let servers = ["github", "slack", "notion", "jira", "drive"];
        let verbs = ["create", "list", "delete", "update", "search", "send"];
        for n in [BUILD_CHUNK * 2 - 1, BUILD_CHUNK * 2, BUILD_CHUNK * 3 + 17] {
            let tools: Vec<ToolDoc> = (0..n)
                .map(|i| {
                    let (s, v) = (servers[i % 5], verbs[i % 6]);
                    ToolDoc::new(
                        format!("mcp__{s}__{v}_item{i}"),
                        format!("{v} an item {} in {s}, report {} 文件解析", i % 97, i % 13),
                    )
                })
                .collect();
            let serial =
                EnhancedIndex::build(tools.clone(), Params::default(), usize::MAX).unwrap();
            let pipelined = EnhancedIndex::build(tools.clone(), Params::default(), 512).unwrap();
            let chunks = |size: usize| {
                tools
                    .chunks(size)
                    .map(|c| Ok(c.to_vec()))
                    .collect::<Vec<_>>()
            };
            let streamed =
                EnhancedIndex::build_streamed(chunks(BUILD_CHUNK), n, Params::default(), 512)
                    .unwrap();
            let odd =
                EnhancedIndex::build_streamed(chunks(500), n, Params::default(), 512).unwrap();
            let unhinted =
                EnhancedIndex::build_streamed(chunks(BUILD_CHUNK), 0, Params::default(), 512)
                    .unwrap();
            for other in [&pipelined, &streamed, &odd, &unhinted] {
                assert_eq!(serial.store.term_text, other.store.term_text, "{n}");
                for slot in 0..n as u32 {
                    let (a, b) = (
                        serial.store.doc(slot).unwrap(),
                        other.store.doc(slot).unwrap(),
                    );
                    assert_eq!(
                        (&a.name, &a.terms, a.len),
                        (&b.name, &b.terms, b.len),
                        "{n} {slot}"
                    );
                }
                for q in [
                    "create an item in github",
                    "send report 7",
                    "解析文件",
                    "item42",
                ] {
                    let bits = |i: &EnhancedIndex| {
                        i.search(q, 20, 0.0)
                            .iter()
                            .map(|h| (h.slot, h.score.to_bits()))
                            .collect::<Vec<_>>()
                    };
                    assert_eq!(bits(&serial), bits(other), "{n} {q}");
                }
            }
        }
    }

    fn top(i: &EnhancedIndex, q: &str) -> Vec<String> {
        i.search(q, 5, 0.0)
            .iter()
            .map(|h| i.name(h.slot).unwrap().to_owned())
            .collect()
    }

    /// What the name tiers found of a word is kept per index, and forgotten when the tools
    /// change: a tool added under a word already searched gets its name tier, and one
    /// removed loses it.
    #[test]
    fn name_tiers_follow_the_tools() {
        let mut i = idx();
        let tier_of = |i: &EnhancedIndex, q: &str, name: &str| {
            let slot = i.store().slot_of(name).unwrap();
            i.tiers(&i.parse_query(q)).get(&slot).copied().unwrap_or(0)
        };
        let names = |i: &EnhancedIndex, q: &str| top(i, q);
        assert!(!names(&i, "run frob_nicate now").contains(&"frob_nicate".to_owned()));
        assert!(i.name_cache.borrow().contains_key("frob_nicate"));
        i.upsert(vec![ToolDoc::new("frob_nicate", "Turn widgets around")])
            .unwrap();
        assert_eq!(names(&i, "run frob_nicate now")[0], "frob_nicate");
        assert!(tier_of(&i, "run frob_nicate now", "frob_nicate") > 0);
        let named = |i: &EnhancedIndex| i.name_cache.borrow()["frob_nicate"].named;
        assert_ne!(named(&i), 0);
        i.remove(&["frob_nicate"]);
        assert!(!names(&i, "run frob_nicate now").contains(&"frob_nicate".to_owned()));
        assert_eq!(named(&i), 0);
        assert!(i.tiers(&i.parse_query("run frob_nicate now")).is_empty());
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
    fn typo_corrections_follow_the_tools() {
        let mut i = idx();
        // No name word is one edit from "deplyo" yet: no correction (and that is remembered).
        assert!(top(&i, "deplyo").is_empty());
        i.upsert(vec![doc(
            "mcp__cloud__deploy_app",
            "Ship a build to production",
        )])
        .unwrap();
        assert_eq!(top(&i, "deplyo"), ["mcp__cloud__deploy_app"]);
        i.remove(&["mcp__cloud__deploy_app"]);
        assert!(top(&i, "deplyo").is_empty());
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
        let held = i.word_cache.borrow().len();
        assert!(held <= WORD_CACHE_MAX);
        i.search(
            &format!("{} {}", "x".repeat(10_000), "y".repeat(65)),
            5,
            0.0,
        );
        assert_eq!(i.word_cache.borrow().len(), held, "long words are not kept");
        assert!(i.typo_cache.borrow().len() <= WORD_CACHE_MAX);
        for (q, want) in queries.iter().zip(&cold) {
            assert_eq!(&i.search(q, 5, 0.0), want, "{q}");
            assert_eq!(&i.search(q, 5, 0.0), want, "{q}, cached");
        }
    }

    #[test]
    fn chunked_parallel_build_equals_serial() {
        // More tools than one build chunk, words shared across chunks (warm memos) and new
        // in each: the parallel, chunked build and the serial one give the same index.
        let words = [
            "file", "issue", "message", "calendar", "invoice", "report", "deploy",
        ];
        let tools: Vec<ToolDoc> = (0..9_000)
            .map(|i| {
                let w = words[i % words.len()];
                doc(
                    &format!("mcp__s{}__{w}_tool_{i}", i % 37),
                    &format!("Handle the {w} number w{i}x; sending {w}s, {i} times"),
                )
            })
            .collect();
        let parallel = EnhancedIndex::build(tools.clone(), Params::default(), 512).unwrap();
        let serial = EnhancedIndex::build(tools, Params::default(), usize::MAX).unwrap();
        assert_eq!(parallel.store().len(), serial.store().len());
        for slot in [0u32, 1, 4_095, 8_191, 8_192, 8_999] {
            assert_eq!(parallel.name(slot), serial.name(slot));
            assert_eq!(parallel.store().tokens(slot), serial.store().tokens(slot));
        }
        // The same slots with the same score bits, in the same order.
        let bits = |hits: Vec<Hit>| -> Vec<(u32, u64)> {
            hits.iter().map(|h| (h.slot, h.score.to_bits())).collect()
        };
        let queries = [
            "send a message",
            "w8500x invoice",
            "deploy report",
            "calendar_tool_42",
        ];
        for q in queries {
            let x = bits(parallel.search(q, 10, 0.0));
            assert!(!x.is_empty(), "{q}");
            assert_eq!(x, bits(serial.search(q, 10, 0.0)), "{q}");
        }
    }

    /// 40 look-alike widget tools (a crowd), a few distinct ones, and 200 others that share
    /// no word with a widget (so widget words are not common).
    fn crowd_catalog() -> Vec<ToolDoc> {
        let mut tools: Vec<ToolDoc> = (0..40)
            .map(|i| {
                doc(
                    &format!("widget_tool_{i}"),
                    &format!("Manage widget number {i}: list, count and archive widgets"),
                )
            })
            .collect();
        tools.extend(small_catalog());
        tools.extend((0..200).map(|i| {
            doc(
                &format!("filler_{i}"),
                &format!("Handle item{i} records in store{}", i % 7),
            )
        }));
        tools
    }

    fn crowd_on() -> Params {
        let (crowd_gap, crowd_weight, crowd_confidence, crowd_coverage) = CROWD_RULE;
        Params {
            crowd_gap,
            crowd_weight,
            crowd_confidence,
            crowd_coverage,
            ..Params::default()
        }
    }

    #[test]
    fn crowd_rule_abstains_only_on_a_crowd_of_weak_matches() {
        let on = EnhancedIndex::build(crowd_catalog(), crowd_on(), 512).unwrap();
        let off = EnhancedIndex::build(crowd_catalog(), Params::default(), 512).unwrap();
        // (request, answered with nothing under the rule)
        let cases = [
            // Every widget tool matches the same words, none stands out, and the best matches
            // little of the request.
            ("count the widgets in the lunar greenhouse ledger", true),
            // A crowd too, but the best matches all of the request.
            ("count the widgets please", false),
            // A name, a rare word, a server filter: never a crowd.
            ("widget_tool_7", false),
            ("parse a pdf", false),
            ("server:github create", false),
            // Fewer than CROWD_RANK tools match at all.
            ("send a message to a channel", false),
        ];
        for (q, abstains) in cases {
            let with = on.search(q, 5, 0.0);
            let without = off.search(q, 5, 0.0);
            assert!(!without.is_empty(), "{q}");
            assert_eq!(with.is_empty(), abstains, "{q}");
            if !abstains {
                // When the rule lets a request through, its results are unchanged.
                assert_eq!(with, without, "{q}");
            }
        }
        // However wide its cuts, the rule never abstains on a named tool.
        let wide = Params {
            crowd_gap: 10.0,
            crowd_confidence: 5.0,
            ..crowd_on()
        };
        let greedy = EnhancedIndex::build(crowd_catalog(), wide, 512).unwrap();
        assert!(greedy
            .search("count the widgets in the lunar greenhouse ledger", 5, 0.0)
            .is_empty());
        assert!(!greedy.search("widget_tool_7", 5, 0.0).is_empty());
        // Without the coverage cut (above 1), a crowd is answered with nothing whatever its best
        // tool matches.
        let any_coverage = Params {
            crowd_coverage: 1.5,
            ..crowd_on()
        };
        let blind = EnhancedIndex::build(crowd_catalog(), any_coverage, 512).unwrap();
        assert!(blind.search("count the widgets please", 5, 0.0).is_empty());
        assert!(!on.search("count the widgets please", 5, 0.0).is_empty());
    }

    #[test]
    fn small_limits_give_prefixes_of_the_collected_list() {
        // One-clause requests with a limit up to SMALL_K keep their best while scoring; a
        // larger limit collects every match: the first must be a prefix of the second, with
        // the crowd rule on and off, at a threshold and without.
        for params in [Params::default(), crowd_on()] {
            let idx = EnhancedIndex::build(crowd_catalog(), params, 512).unwrap();
            for q in [
                "archive a widget",
                "widget number 7",
                "send a message",
                "count the widgets please",
                "parse a pdf",
                "server:github create",
                "+widget list",
            ] {
                for min in [0.0, 0.3] {
                    let all = idx.search(q, SMALL_K + 40, min);
                    for k in [0, 1, 2, 5, 30, SMALL_K] {
                        let want = &all[..k.min(all.len())];
                        assert_eq!(idx.search(q, k, min), want, "{q} k={k} min={min}");
                    }
                }
            }
        }
    }

    #[test]
    fn crowd_rule_keeps_results_of_the_requests_it_lets_through() {
        // Multi-step requests included: their clause coverage is worked out to CROWD_RANK
        // results when the rule is on, and the first `limit` must not change.
        let on = EnhancedIndex::build(crowd_catalog(), crowd_on(), 512).unwrap();
        let off = EnhancedIndex::build(crowd_catalog(), Params::default(), 512).unwrap();
        for q in [
            "archive widget 3 and then send a slack message",
            "create an issue, then list files in the directory",
            "parse the pdf and then count widgets",
            "schedule a prompt",
        ] {
            for limit in [1, 5, 12] {
                let with = on.search(q, limit, 0.0);
                if !with.is_empty() {
                    assert_eq!(with, off.search(q, limit, 0.0), "{q} / {limit}");
                }
            }
        }
        // The rule reads a request's final best CROWD_RANK, as a search for that many shows
        // them, and the best one's coverage, as `explain` gives it.
        let (gap, weight, cut, cover) = CROWD_RULE;
        for q in [
            "count the widgets please",
            "list the widgets and then count the widgets",
            "archive widgets, then list widgets, then count them",
            "manage a widget number and then archive it",
            "count widgets in the lunar greenhouse ledger",
        ] {
            let top = off.search(q, CROWD_RANK, 0.0);
            let coverage = |h: &Hit| off.explain(q, off.name(h.slot).unwrap()).unwrap().coverage;
            let rule = top.len() >= CROWD_RANK
                && top[0].score < cut
                && top[0].score - weight * top[CROWD_RANK - 1].score < gap
                && coverage(&top[0]) < cover;
            assert_eq!(on.search(q, 5, 0.0).is_empty(), rule, "{q}");
        }
        let e = on
            .explain(
                "count the widgets in the lunar greenhouse ledger",
                "widget_tool_3",
            )
            .unwrap();
        assert_eq!(e.score, 0.0);
        assert!(e.filtered.unwrap().contains("crowd"));
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
        let mut tools = small_catalog();
        tools.retain(|t| t.name != "mcp__slack__send_message");
        tools.push(doc("mcp__jira__create_ticket", "Create a Jira ticket"));
        let b = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
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

    /// Tools that share common words ("file", "data") in descriptions of different lengths,
    /// so those words' postings are long enough for their saturations to be kept.
    fn shared_word_catalog(n: usize, tag: &str) -> Vec<ToolDoc> {
        (0..n)
            .map(|i| {
                let filler = "detail ".repeat(i % 7);
                doc(
                    &format!("{tag}_tool_{i}"),
                    &format!(
                        "Read file data {filler}and report {}",
                        ["rows", "bytes", "lines"][i % 3]
                    ),
                )
            })
            .collect()
    }

    #[test]
    fn kept_term_frequencies_follow_the_tools() {
        let scored = |i: &EnhancedIndex, q: &str| -> Vec<(String, u64)> {
            i.search(q, 10, 0.0)
                .iter()
                .map(|h| (i.name(h.slot).unwrap().to_owned(), h.score.to_bits()))
                .collect()
        };
        let queries = ["file data", "read file rows", "data bytes then file lines"];
        let mut a =
            EnhancedIndex::build(shared_word_catalog(40, "a"), Params::default(), 512).unwrap();
        for q in queries {
            let cold = scored(&a, q);
            assert_eq!(
                scored(&a, q),
                cold,
                "{q}: kept values score as computed ones"
            );
        }
        assert!(a.tf_cache.borrow().held() > 0, "the long lists were kept");
        // New tools with longer descriptions change every tool's length normalization: what
        // was kept no longer holds, and scores must equal those of a fresh build.
        let more = shared_word_catalog(30, "b")
            .into_iter()
            .map(|d| {
                let long = format!("{} {}", d.description, "file context ".repeat(12));
                doc(&d.name, &long)
            })
            .collect::<Vec<_>>();
        a.upsert(more.clone()).unwrap();
        a.remove(&["a_tool_3", "a_tool_4"]);
        let mut tools = shared_word_catalog(40, "a");
        tools.retain(|t| t.name != "a_tool_3" && t.name != "a_tool_4");
        tools.extend(more);
        let b = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        for q in queries {
            assert_eq!(scored(&a, q), scored(&b, q), "{q}");
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

    /// `explain` scores a tool as `search` does: for a multi-step request, with each clause's
    /// coverage, for every tool (beyond the first few a search is asked for too).
    #[test]
    fn explain_scores_as_search_does() {
        let i = catalog();
        for q in [
            "Create a new file with the content hello, then rename the file, and finally list the directory",
            "delete the file and list the directory",
            "find a good hotel deal in Paris",
        ] {
            let all = i.search(q, usize::MAX, f64::NEG_INFINITY);
            assert!(!all.is_empty(), "{q}");
            for h in &all {
                let name = i.name(h.slot).unwrap();
                let e = i.explain(q, name).unwrap();
                assert_eq!(e.score.to_bits(), h.score.to_bits(), "{q}: {name}");
                assert!(e.filtered.is_none(), "{q}: {name}");
            }
            for h in i.search(q, 2, f64::NEG_INFINITY) {
                let name = i.name(h.slot).unwrap();
                assert_eq!(i.explain(q, name).unwrap().score.to_bits(), h.score.to_bits(), "{q}: {name}");
            }
        }
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

    /// A synonym is left out of a request only when more than a quarter of the tools, and
    /// at least 32 of them, have it; the request's own words are never left out.
    #[test]
    fn common_synonyms_are_left_out() {
        // (tools, of them with "change", synonym added for "modify")
        let cases = [
            (200, 50, true),
            (200, 51, false),
            (40, 31, true),
            (40, 32, false),
            (400, 100, true),
            (400, 101, false),
            (3, 1, true),
        ];
        for (n, with, added) in cases {
            let tools: Vec<ToolDoc> = (0..n)
                .map(|k| {
                    let word = if k < with { "change" } else { "rotate" };
                    doc(&format!("tool_{k}"), &format!("{word} the record {k}"))
                })
                .collect();
            let i = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
            let q = i.parse_query("modify the record");
            let has = |origin: &str| {
                q.terms
                    .iter()
                    .any(|t| t.term == "chang" && t.origin.starts_with(origin))
            };
            assert_eq!(has("synonym:"), added, "{n} tools, {with} with it");
            // Asked for by name, a common word is a query word as always.
            let q = i.parse_query("change the record");
            assert!(q.terms.iter().any(|t| t.term == "chang" && t.weight == 1.0));
        }
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
        let q = steps.join(", then ");
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
