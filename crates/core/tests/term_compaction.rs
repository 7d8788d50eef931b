//! Term compaction under churn: a long-lived index that keeps replacing and removing tools
//! drops the terms no tool has any more, so its vocabulary and size stay near those of a
//! fresh build of the same tools, and it answers exactly as that build does.

mod common;

use common::fresh_word;
use tool_index_core::enhanced::{EnhancedIndex, Params};
use tool_index_core::hybrid::{tool_search_rank, MergeWeights};
use tool_index_core::index::Hit;
use tool_index_core::keyword::{keyword_search, warm_keyword_index, KeywordSource};
use tool_index_core::store::COMPACT_MIN_DEAD_TERMS;
use tool_index_core::{IndexOptions, ToolDoc, ToolIndex};

/// How many changes each churn makes.
const CYCLES: usize = 3_000;

fn base(n: usize) -> Vec<ToolDoc> {
    (0..n)
        .map(|i| {
            let name = if i % 3 == 0 {
                format!("mcp__srv{}__create_issue_{i}", i % 7)
            } else {
                format!("Tool{i}Send")
            };
            ToolDoc::new(name, format!("create issue send message {i}"))
                .with_hint(format!("message {}", fresh_word("hint", i)))
        })
        .collect()
}

/// One kind of churn over a base catalog: what it does at step `i`, and the list it leaves.
#[derive(Debug, Clone, Copy)]
enum Churn {
    /// One tool's description replaced with new words, `upsert` of the same name.
    Replace,
    /// A tool with a new name and new words added, then removed.
    AddRemove,
    /// Both at once: a batch that replaces one tool and adds another, then a removal.
    Mixed,
}

impl Churn {
    fn step(self, i: usize) -> (Vec<ToolDoc>, Vec<String>) {
        let words = |k: usize| {
            format!(
                "open tabs {} {} {i}",
                fresh_word("ts", k),
                fresh_word("id", k * 31)
            )
        };
        let replaced = ToolDoc::new("Tool7Send", words(i));
        let added = |name: String| ToolDoc::new(name, words(i + 1_000_000));
        let new_name = format!("mcp__{}__{}", fresh_word("srv", i), fresh_word("leaf", i));
        match self {
            Churn::Replace => (vec![replaced], vec![]),
            Churn::AddRemove => (vec![added(new_name.clone())], vec![new_name]),
            Churn::Mixed => (vec![replaced, added(new_name.clone())], vec![new_name]),
        }
    }

    /// The tools left after `CYCLES` steps.
    fn result(self, base: &[ToolDoc]) -> Vec<ToolDoc> {
        let mut out = base.to_vec();
        if !matches!(self, Churn::AddRemove) {
            let (upserted, _) = self.step(CYCLES - 1);
            out[7] = upserted[0].clone();
        }
        out
    }
}

const CHURNS: [Churn; 3] = [Churn::Replace, Churn::AddRemove, Churn::Mixed];

fn queries() -> Vec<String> {
    let last = CYCLES - 1;
    vec![
        "create issue".into(),
        "send message 17".into(),
        format!("open tabs {}", fresh_word("ts", last)),
        // A word gone from every tool, and a one-letter slip of a live one.
        format!("open {}", fresh_word("ts", last - 1)),
        format!("{} tabs", &fresh_word("hint", 12)[1..]),
        "tool7send".into(),
        "+create srv3".into(),
        "mcp__srv3__create_issue_3".into(),
    ]
}

/// The vocabulary stays within twice its live terms plus the compaction minimum, its live
/// terms are those of a fresh build, and the size stays near that build's.
fn assert_bounded(what: &str, terms: usize, live: usize, fresh_terms: usize, heap: [usize; 2]) {
    assert_eq!(live, fresh_terms, "{what}: live terms");
    assert!(
        terms <= 2 * live + COMPACT_MIN_DEAD_TERMS,
        "{what}: {terms} terms for {live} live"
    );
    let [churned, fresh] = heap;
    println!("{what}: {terms} terms ({live} live); heap {churned} B, a fresh build {fresh} B");
    assert!(
        churned <= 2 * fresh,
        "{what}: {churned} heap bytes, a fresh build {fresh}"
    );
}

fn names(idx: &ToolIndex, hits: &[Hit]) -> Vec<(String, u64)> {
    hits.iter()
        .map(|h| (idx.doc(h.slot).unwrap().name.clone(), h.score.to_bits()))
        .collect()
}

#[test]
fn compat_churn_keeps_the_vocabulary_bounded() {
    let base = base(300);
    for churn in CHURNS {
        let mut idx = ToolIndex::build(base.clone(), IndexOptions::default()).unwrap();
        warm_keyword_index(&idx);
        for i in 0..CYCLES {
            let (upsert, remove) = churn.step(i);
            idx.upsert(upsert).unwrap();
            idx.remove(&remove);
        }
        let fresh = ToolIndex::build(churn.result(&base), IndexOptions::default()).unwrap();
        let what = format!("compat {churn:?}");
        assert_bounded(
            &what,
            idx.store().term_count(),
            idx.store().live_term_count(),
            fresh.store().term_count(),
            [idx.heap_bytes(), fresh.heap_bytes()],
        );
        // The keyword postings' own words and name parts are bounded the same way.
        let (parts, words) = idx.keyword_index().key_counts();
        let (fresh_parts, fresh_words) = fresh.keyword_index().key_counts();
        assert!(
            parts <= 2 * fresh_parts + COMPACT_MIN_DEAD_TERMS,
            "{what}: {parts} parts"
        );
        assert!(
            words <= 2 * fresh_words + COMPACT_MIN_DEAD_TERMS,
            "{what}: {words} words"
        );
        for q in queries() {
            for min in [0.0, 0.1] {
                let (a, b) = (idx.search(&q, 20, min), fresh.search(&q, 20, min));
                assert_eq!(names(&idx, &a), names(&fresh, &b), "{what} {q:?}");
            }
            let (a, b) = (keyword_search(&idx, &q, 20), keyword_search(&fresh, &q, 20));
            assert_eq!(names(&idx, &a), names(&fresh, &b), "{what} keyword {q:?}");
            let rank = |i: &ToolIndex| {
                tool_search_rank(i, &q, 10, MergeWeights::default(), 0.1, None)
                    .iter()
                    .map(|h| (h.name(i, None).map(str::to_owned), h.score.to_bits()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(rank(&idx), rank(&fresh), "{what} rank {q:?}");
            for name in ["Tool7Send", "Tool17Send", "mcp__srv3__create_issue_3"] {
                assert_eq!(
                    idx.explain(&q, name),
                    fresh.explain(&q, name),
                    "{what} {q:?}"
                );
            }
        }
    }
}

#[test]
fn enhanced_churn_keeps_the_vocabulary_bounded() {
    let base = base(300);
    for churn in CHURNS {
        let mut idx = EnhancedIndex::build(base.clone(), Params::default(), 512).unwrap();
        for i in 0..CYCLES {
            let (upsert, remove) = churn.step(i);
            idx.upsert(upsert).unwrap();
            idx.remove(&remove);
        }
        let fresh = EnhancedIndex::build(churn.result(&base), Params::default(), 512).unwrap();
        let what = format!("enhanced {churn:?}");
        assert_bounded(
            &what,
            idx.store().term_count(),
            idx.store().live_term_count(),
            fresh.store().term_count(),
            [idx.heap_bytes(), fresh.heap_bytes()],
        );
        let result = |i: &EnhancedIndex, hits: Vec<Hit>| {
            hits.iter()
                .map(|h| (i.name(h.slot).unwrap().to_owned(), h.score.to_bits()))
                .collect::<Vec<_>>()
        };
        for q in queries() {
            assert_eq!(
                result(&idx, idx.search(&q, 20, 0.0)),
                result(&fresh, fresh.search(&q, 20, 0.0)),
                "{what} {q:?}"
            );
            for name in ["Tool7Send", "Tool17Send", "mcp__srv3__create_issue_3"] {
                assert_eq!(
                    idx.explain(&q, name),
                    fresh.explain(&q, name),
                    "{what} {q:?}"
                );
            }
        }
    }
}
