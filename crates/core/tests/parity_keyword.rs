//! Compat ToolSearch: the keyword search and the keyword + TF-IDF merge reproduce the
//! reference on every `keyword[]` and `hybrid[]` vector of `reference-vectors.json`.

mod common;

use tool_index_core::hybrid::{tool_search_rank, MergeWeights};
use tool_index_core::index::DEFAULT_MIN_SCORE;
use tool_index_core::keyword::keyword_search;
use tool_index_core::{IndexOptions, ToolIndex};

#[test]
fn keyword_vectors() {
    let Some(v) = common::load() else {
        return;
    };
    let index = ToolIndex::build(common::catalog(&v), IndexOptions::default()).unwrap();
    let cases = v["keyword"].as_array().unwrap();
    assert!(!cases.is_empty());
    let mut bad = Vec::new();
    for c in cases {
        let query = c["query"].as_str().unwrap();
        let max = c["maxResults"].as_u64().unwrap() as usize;
        let got: Vec<String> = keyword_search(&index, query, max)
            .iter()
            .map(|h| index.doc(h.slot).unwrap().name.clone())
            .collect();
        let want = common::strings(&c["results"]);
        if got != want {
            bad.push(format!("{query:?}\n  got  {got:?}\n  want {want:?}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} keyword vectors differ:\n{}",
        bad.len(),
        cases.len(),
        bad[..bad.len().min(3)].join("\n")
    );
}

#[test]
fn hybrid_vectors() {
    let Some(v) = common::load() else {
        return;
    };
    let index = ToolIndex::build(common::catalog(&v), IndexOptions::default()).unwrap();
    let cases = v["hybrid"].as_array().unwrap();
    assert!(!cases.is_empty());
    let mut bad = Vec::new();
    for c in cases {
        let query = c["query"].as_str().unwrap();
        let max = c["maxResults"].as_u64().unwrap() as usize;
        let hits = tool_search_rank(
            &index,
            query,
            max,
            MergeWeights::default(),
            DEFAULT_MIN_SCORE,
            None,
        );
        let got: Vec<(&str, f64)> = hits
            .iter()
            .map(|h| (h.name(&index, None).unwrap(), h.score))
            .collect();
        let want = c["results"].as_array().unwrap();
        let same = got.len() == want.len()
            && got.iter().zip(want).all(|((n, s), w)| {
                *n == w["name"].as_str().unwrap()
                    && (s - w["score"].as_f64().unwrap()).abs() <= 1e-9
            });
        if !same {
            bad.push(format!("{query:?}\n  got  {got:?}\n  want {want:?}"));
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} hybrid vectors differ:\n{}",
        bad.len(),
        cases.len(),
        bad[..bad.len().min(3)].join("\n")
    );
}

/// The keyword postings are dropped on update: an updated index answers like a fresh build.
#[test]
fn keyword_after_updates_equals_rebuild() {
    let Some(v) = common::load() else {
        return;
    };
    let all = common::catalog(&v);
    let (head, tail) = all.split_at(all.len() / 2);
    let mut index = ToolIndex::build(head.to_vec(), IndexOptions::default()).unwrap();
    let queries: Vec<&str> = v["keyword"]
        .as_array()
        .unwrap()
        .iter()
        .take(40)
        .map(|c| c["query"].as_str().unwrap())
        .collect();
    for q in &queries {
        keyword_search(&index, q, 10); // build the postings for the first version
    }
    index.upsert(tail.to_vec()).unwrap();
    let gone: Vec<String> = all.iter().step_by(3).map(|t| t.name.clone()).collect();
    index.remove(&gone);
    let kept: Vec<_> = all
        .iter()
        .filter(|t| !gone.contains(&t.name))
        .cloned()
        .collect();
    let fresh = ToolIndex::build(kept, IndexOptions::default()).unwrap();
    let names = |idx: &ToolIndex, q: &str| -> Vec<String> {
        keyword_search(idx, q, 10)
            .iter()
            .map(|h| idx.doc(h.slot).unwrap().name.clone())
            .collect()
    };
    for q in queries {
        assert_eq!(names(&index, q), names(&fresh, q), "{q}");
    }
}
