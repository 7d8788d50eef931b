//! Compat mode reproduces the reference: every vector in `reference-vectors.json` passes.

mod common;

use tool_index_core::index::DEFAULT_MIN_SCORE;
use tool_index_core::{parse_tool_name, tokenize, tokenize_and_stem, IndexOptions, ToolIndex};

#[test]
fn tokenize_vectors() {
    let Some(v) = common::load() else {
        return;
    };
    let cases = v["tokenize"].as_array().unwrap();
    let mut bad = Vec::new();
    for c in cases {
        let text = c["text"].as_str().unwrap();
        if tokenize(text) != common::strings(&c["tokens"])
            || tokenize_and_stem(text) != common::strings(&c["stemmed"])
        {
            bad.push(text.to_owned());
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} tokenize vectors differ, e.g. {:?}",
        bad.len(),
        cases.len(),
        &bad[..bad.len().min(5)]
    );
}

#[test]
fn parse_tool_name_vectors() {
    let Some(v) = common::load() else {
        return;
    };
    let cases = v["parseToolName"].as_array().unwrap();
    let mut bad = Vec::new();
    for c in cases {
        let name = c["name"].as_str().unwrap();
        let p = parse_tool_name(name);
        if p.parts().collect::<Vec<_>>() != common::strings(&c["parts"])
            || p.full != c["full"].as_str().unwrap()
            || p.is_mcp != c["isMcp"].as_bool().unwrap()
        {
            bad.push(name.to_owned());
        }
    }
    assert!(
        bad.is_empty(),
        "{} of {} parseToolName vectors differ, e.g. {:?}",
        bad.len(),
        cases.len(),
        &bad[..bad.len().min(5)]
    );
}

#[test]
fn search_vectors() {
    let Some(v) = common::load() else {
        return;
    };
    let index = ToolIndex::build(common::catalog(&v), IndexOptions::default()).unwrap();
    let cases = v["search"].as_array().unwrap();
    let mut bad = Vec::new();
    for c in cases {
        let query = c["query"].as_str().unwrap();
        let limit = c["limit"].as_u64().unwrap() as usize;
        let hits = index.search(query, limit, DEFAULT_MIN_SCORE);
        let want = c["results"].as_array().unwrap();
        let got: Vec<(&str, f64)> = hits
            .iter()
            .map(|h| (index.doc(h.slot).unwrap().name.as_str(), h.score))
            .collect();
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
        "{} of {} search vectors differ:\n{}",
        bad.len(),
        cases.len(),
        bad[..bad.len().min(3)].join("\n")
    );
}
