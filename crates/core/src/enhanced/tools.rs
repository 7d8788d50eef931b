//! The tool side: each tool's analysis into five fields, and the index's bookkeeping as
//! tools come and go (postings, name keys, servers, the typo map, length normalization).

use std::convert::Infallible;
use std::sync::Mutex;

use hashbrown::HashTable;
use rayon::prelude::*;
use rustc_hash::FxHashSet;

use super::analyze::{self, Analyzer, WordMemo};
use super::names::{
    compact, compact_key, name_key, server_and_leaf, COMPACT_MARK, TIER_FULL, TIER_LEAF,
};
use super::{EnhancedIndex, FIELDS, SCHEMA_FIELD};
use crate::index::ToolDoc;
use crate::pipeline;
use crate::store::{named_by_field, slot_doc_by_fields, Scorer, SlotStore};
use crate::text::{hash_text, same_text, span};

/// An enhanced index's record of one tool: its name, server, analysed terms with their
/// per-field frequencies, field lengths and name keys (read through the index).
#[derive(Debug, Clone)]
pub struct Doc {
    pub(super) name: String,
    pub(super) server_key: Option<String>,
    pub(super) terms: Vec<(u32, [u16; FIELDS])>,
    pub(super) len: [u32; FIELDS],
    /// `1 / (1 - b + b * len / avg)` per field.
    pub(super) norm: [f64; FIELDS],
    pub(super) keys: Vec<(String, u8)>,
}

slot_doc_by_fields!(Doc);

pub(crate) struct Analyzed {
    pub(super) name: String,
    pub(super) server_key: Option<String>,
    /// The tool's distinct terms, one after another (one allocation, not one a term).
    pub(super) text: String,
    /// Each distinct term in the order it first appears: its byte range in `text`, the hash
    /// the vocabulary keys it by, and its per-field frequencies.
    pub(super) tf: Vec<Term>,
    pub(super) len: [u32; FIELDS],
    pub(super) keys: Vec<(String, u8)>,
}

named_by_field!(Analyzed);

/// One distinct term of an analysed tool (see [`Analyzed::tf`]).
pub(super) struct Term {
    start: u32,
    len: u32,
    hash: u64,
    tfs: [u16; FIELDS],
}

impl Term {
    fn text<'a>(&self, text: &'a str) -> &'a str {
        span(text, self.start, self.len)
    }
}

/// What analysing many tools in a row reuses: the tokens of words already analysed (a
/// catalog's tools share most of their words, so a build stems each distinct word once) and
/// the per-tool term table.
#[derive(Default)]
pub(super) struct DocScratch {
    memo: WordMemo,
    /// The tool being analysed: its distinct terms by hash, as indexes into its term list.
    seen: HashTable<u32>,
}

/// A tool's five fields analysed: its distinct terms in the order they first appear, with
/// their per-field frequencies, its field lengths and its name keys.
pub(super) fn analyze_doc(a: &Analyzer, scratch: &mut DocScratch, doc: &ToolDoc) -> Analyzed {
    let (server, leaf) = server_and_leaf(&doc.name, doc.server.as_deref());
    let texts: [&str; FIELDS] = [
        leaf,
        server.unwrap_or(""),
        doc.search_hint.as_deref().unwrap_or(""),
        &doc.description,
        doc.schema_text.as_deref().unwrap_or(""),
    ];
    let DocScratch { memo, seen } = scratch;
    seen.clear();
    let mut len = [0u32; FIELDS];
    // Sized for the usual tool up front (a distinct term every ~8 bytes of its fields, some
    // 6 bytes each), so neither grows term by term.
    let bytes: usize = texts.iter().map(|t| t.len()).sum();
    let guess = (bytes / 8).clamp(8, 256);
    let mut text = String::with_capacity(guess * 6);
    let mut tf: Vec<Term> = Vec::with_capacity(guess);
    for (f, field) in texts.iter().enumerate() {
        // CJK characters (unigrams) count as terms but not in the field's length, and not at
        // all in the schema: parameter texts share common characters (数, 名, 码) with every
        // request, and matched them in the Chinese parameter texts of English tools.
        a.analyze_tagged(field, memo, |t, unigram| {
            if unigram && f == SCHEMA_FIELD {
                return;
            }
            if !unigram {
                len[f] += 1;
            }
            let hash = hash_text(&t);
            let i = match seen.find(hash, |&i| same_text(tf[i as usize].text(&text), &t)) {
                Some(&i) => i as usize,
                None => {
                    let i = tf.len();
                    tf.push(Term {
                        start: text.len() as u32,
                        len: t.len() as u32,
                        hash,
                        tfs: [0; FIELDS],
                    });
                    text.push_str(&t);
                    seen.insert_unique(hash, i as u32, |&j| tf[j as usize].hash);
                    i
                }
            };
            let tfs = &mut tf[i].tfs;
            tfs[f] = tfs[f].saturating_add(1);
        });
    }
    let server_key = server.map(|s| compact(&name_key(s)));
    let full = name_key(&doc.name);
    let leaf_key = name_key(leaf);
    let mut keys = vec![(full.clone(), TIER_FULL)];
    if leaf_key != full {
        keys.push((leaf_key.clone(), TIER_LEAF));
    }
    // The leaf's words run together ("createissue"), for a request that writes them so.
    let c = compact_key(&leaf_key);
    if analyze::split_identifier(leaf).len() > 1 && c.len() - COMPACT_MARK.len_utf8() >= 4 {
        keys.push((c, TIER_LEAF));
    }
    Analyzed {
        name: doc.name.clone(),
        server_key,
        text,
        tf,
        len,
        keys,
    }
}

/// Each one-character deletion of `word`, in order of the character left out, handed to `f`
/// (one buffer reused for all of them).
pub(super) fn for_each_deletion(word: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::with_capacity(word.len());
    for (i, c) in word.char_indices() {
        buf.clear();
        buf.push_str(&word[..i]);
        buf.push_str(&word[i + c.len_utf8()..]);
        f(&buf);
    }
}

/// Analyses chunks of tools on the rayon pool, two jobs a thread, so that each job's word
/// memo sees many tools. A job takes an analyzer and a scratch from the pool and gives them
/// back, so the memos stay warm from chunk to chunk (all dropped with the build).
#[derive(Default)]
pub(super) struct ChunkAnalyzer {
    pool: Mutex<Vec<(Analyzer, DocScratch)>>,
}

impl ChunkAnalyzer {
    /// The chunk's tools analysed, in order.
    pub(super) fn analyze(&self, chunk: &[ToolDoc]) -> Vec<Analyzed> {
        let per_job = chunk
            .len()
            .div_ceil(2 * rayon::current_num_threads())
            .max(64);
        let parts: Vec<Vec<Analyzed>> = chunk
            .par_chunks(per_job)
            .map(|part| {
                let taken = self.pool.lock().ok().and_then(|mut p| p.pop());
                let (a, mut scratch) = taken.unwrap_or_default();
                let out = part
                    .iter()
                    .map(|t| analyze_doc(&a, &mut scratch, t))
                    .collect();
                if let Ok(mut p) = self.pool.lock() {
                    p.push((a, scratch));
                }
                out
            })
            .collect();
        parts.into_iter().flatten().collect()
    }
}

impl Scorer for EnhancedIndex {
    type Tool = ToolDoc;
    type Analyzed = Analyzed;

    type Doc = Doc;
    type Payload = [u16; FIELDS];

    fn store(&self) -> &SlotStore<Doc, [u16; FIELDS]> {
        &self.store
    }

    fn store_mut(&mut self) -> &mut SlotStore<Doc, [u16; FIELDS]> {
        &mut self.store
    }

    fn link(&mut self, slot: u32, a: Analyzed) {
        let mut terms = Vec::with_capacity(a.tf.len());
        for t in &a.tf {
            let (id, _) = self.store.intern_hashed(t.text(&a.text), t.hash);
            let tfs = t.tfs;
            if (tfs[0] > 0 || tfs[1] > 0) && self.name_terms.insert(id) {
                let text = self.store.term_text[id as usize].clone();
                if text.chars().count() >= 4 && !analyze::has_cjk(&text) {
                    let deletes = &mut self.deletes;
                    for_each_deletion(&text, |d| deletes.entry(d.into()).or_default().push(id));
                }
            }
            self.store.post(id, slot, tfs);
            terms.push((id, tfs));
        }
        // A key or server other tools have already is not copied again.
        for (k, tier) in &a.keys {
            match self.keys.get_mut(k) {
                Some(v) => v.push((slot, *tier)),
                None => {
                    self.keys.insert(k.clone(), vec![(slot, *tier)]);
                }
            }
        }
        if let Some(s) = &a.server_key {
            match self.servers.get_mut(s) {
                Some(v) => v.push(slot),
                None => {
                    self.servers.insert(s.clone(), vec![slot]);
                }
            }
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

    fn vacate_many(&mut self, slots: &[u32]) {
        let taken = self.store.vacate_many(slots);
        if taken.is_empty() {
            return;
        }
        let mut gone = vec![0u64; self.store.docs.len().div_ceil(64)];
        for (slot, _) in &taken {
            gone[*slot as usize / 64] |= 1 << (slot % 64);
        }
        let is_gone = |slot: u32| gone[slot as usize / 64] & (1 << (slot % 64)) != 0;
        // Each name key and server list the tools were on, filtered once.
        let keys: FxHashSet<&str> = taken
            .iter()
            .flat_map(|(_, d)| d.keys.iter().map(|(k, _)| k.as_str()))
            .collect();
        for k in keys {
            if let Some(v) = self.keys.get_mut(k) {
                v.retain(|e| !is_gone(e.0));
                if v.is_empty() {
                    self.keys.remove(k);
                }
            }
        }
        let servers: FxHashSet<&str> = taken
            .iter()
            .filter_map(|(_, d)| d.server_key.as_deref())
            .collect();
        for s in servers {
            if let Some(v) = self.servers.get_mut(s) {
                v.retain(|&e| !is_gone(e));
                if v.is_empty() {
                    self.servers.remove(s);
                }
            }
        }
        for (_, doc) in &taken {
            for f in 0..FIELDS {
                self.len_sum[f] -= doc.len[f] as u64;
            }
        }
    }

    fn fill(&mut self, slot: u32, tool: ToolDoc) {
        let a = analyze_doc(&self.analyzer, &mut DocScratch::default(), &tool);
        self.link(slot, a);
    }

    /// Analyse and link tools in order. Large batches go in chunks of
    /// [`BUILD_CHUNK`](crate::index::BUILD_CHUNK) tools
    /// through the build pipeline (the pool analyses chunks while a linking thread links
    /// the ones before, see [`pipeline::link_streamed`]), so the analysed form of a few
    /// chunks is held at a time, and each chunk's tools are freed once it is analysed.
    fn insert_batch(&mut self, tools: Vec<ToolDoc>) {
        if tools.len() < self.parallel_threshold {
            let mut scratch = DocScratch::default();
            let analyzed: Vec<Analyzed> = tools
                .iter()
                .map(|t| analyze_doc(&self.analyzer, &mut scratch, t))
                .collect();
            return pipeline::link_all(self, analyzed);
        }
        let analyzer = ChunkAnalyzer::default();
        let analyze = |chunk: Vec<ToolDoc>| analyzer.analyze(&chunk);
        if pipeline::streams(tools.len(), self.parallel_threshold) {
            let chunks = pipeline::chunks_of(tools).map(Ok::<_, Infallible>);
            let Ok(_) = pipeline::link_streamed(self, chunks, &analyze, false);
        } else {
            // On a pool thread, or under two chunks: each chunk analysed, then linked.
            for chunk in pipeline::chunks_of(tools) {
                pipeline::link_all(self, analyze(chunk));
            }
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

    /// Drop dead terms (see [`SlotStore::maybe_compact_terms`]) from the name-term set and
    /// the typo map, and renumber the rest there. Corrections read only terms some tool
    /// has in its name now, so the dropped ones changed nothing.
    fn maybe_compact_terms(&mut self) {
        let Some(map) = self.store.maybe_compact_terms() else {
            return;
        };
        let keep = |id: &mut u32| {
            *id = map[*id as usize];
            *id != u32::MAX
        };
        self.name_terms = self
            .name_terms
            .iter()
            .map(|&id| map[id as usize])
            .filter(|&id| id != u32::MAX)
            .collect();
        self.deletes.retain(|_, ids| {
            ids.retain_mut(keep);
            !ids.is_empty()
        });
        self.deletes.shrink_to_fit();
    }

    fn refresh(&mut self) {
        // Corrections depend on the tools' name words; kept saturations on their lengths.
        self.typo_cache.get_mut().clear();
        self.name_cache.get_mut().clear();
        self.tf_cache.get_mut().clear();
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
