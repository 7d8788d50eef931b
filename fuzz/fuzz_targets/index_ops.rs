//! Index build + search, compat and enhanced, with upsert / remove sequences: no panic,
//! results sorted and in range, a shorter enhanced list a prefix of a longer, duplicate batches rejected without a change, and the
//! incrementally maintained index equal (bit for bit) to a fresh build of the same list.
//! (Enhanced incremental = rebuild and the duplicate-free server filter were bugs this
//! target and the property suites found; see RELIABILITY.md, "Findings".)
#![no_main]

mod common;

use arbitrary::Arbitrary;
use common::{check_sorted, dedup, FName, FQuery, FTool};
use libfuzzer_sys::fuzz_target;
use tool_index_core::enhanced::{EnhancedIndex, Params, CROWD_RANK};
use tool_index_core::hybrid::{tool_search_rank, MergeWeights};
use tool_index_core::index::Hit;
use tool_index_core::keyword::keyword_search;
use tool_index_core::{ErrorCode, IndexOptions, ToolDoc, ToolIndex};

#[derive(Arbitrary, Debug)]
struct FParams {
    k1: u8,
    weights: [u8; 5],
    b: [u8; 5],
    typo: u8,
    abstain: u8,
    /// Clause, synonym and quote weights, abstain confidence (0 turns each off).
    extra: [u8; 4],
    /// The crowd rule's gap (0 turns it off), weight and confidence cut (up to 2: above the
    /// name tiers' 1).
    crowd: [u8; 3],
}

impl FParams {
    fn params(&self) -> Params {
        Params {
            k1: 0.1 + self.k1 as f64 / 64.0,
            weights: self.weights.map(|w| w as f64 / 32.0),
            b: self.b.map(|b| b as f64 / 255.0),
            typo_weight: self.typo as f64 / 128.0,
            lexicon_weight: 0.8,
            abstain_coverage: self.abstain as f64 / 255.0,
            unknown_weight: 0.25,
            clause_weight: self.extra[0] as f64 / 255.0,
            synonym_weight: self.extra[1] as f64 / 255.0,
            quote_weight: self.extra[2] as f64 / 255.0,
            abstain_confidence: self.extra[3] as f64 / 255.0,
            crowd_gap: self.crowd[0] as f64 / 255.0,
            crowd_weight: self.crowd[1] as f64 / 128.0,
            crowd_confidence: self.crowd[2] as f64 / 128.0,
            ..Params::default()
        }
    }
}

#[derive(Arbitrary, Debug)]
enum Op {
    Upsert(Vec<FTool>),
    Remove(Vec<FName>),
    Search(FQuery, u8, u8),
    Keyword(FQuery, u8),
    Rank(FQuery, u8, Option<FName>),
    Explain(FQuery, FName),
}

#[derive(Arbitrary, Debug)]
struct Input {
    params: Option<FParams>,
    parallel: bool,
    initial: Vec<FTool>,
    ops: Vec<Op>,
}

const MINS: [f64; 5] = [0.0, 0.1, 0.5, 1.0, -1.0];

fn names_c(i: &ToolIndex) -> Vec<String> {
    i.store()
        .slots()
        .map(|s| i.doc(s).unwrap().name.clone())
        .collect()
}
fn names_e(i: &EnhancedIndex) -> Vec<String> {
    i.store()
        .slots()
        .map(|s| i.name(s).unwrap().to_owned())
        .collect()
}
fn res_c(i: &ToolIndex, h: &[Hit]) -> Vec<(String, u64)> {
    h.iter()
        .map(|h| (i.doc(h.slot).unwrap().name.clone(), h.score.to_bits()))
        .collect()
}
fn res_e(i: &EnhancedIndex, h: &[Hit]) -> Vec<(String, u64)> {
    h.iter()
        .map(|h| (i.name(h.slot).unwrap().to_owned(), h.score.to_bits()))
        .collect()
}

fn apply_upsert(model: &mut Vec<ToolDoc>, batch: &[ToolDoc]) {
    for t in batch {
        match model.iter_mut().find(|m| m.name == t.name) {
            Some(m) => *m = t.clone(),
            None => model.push(t.clone()),
        }
    }
}

fuzz_target!(|input: Input| {
    let params = input
        .params
        .as_ref()
        .map(FParams::params)
        .unwrap_or_default();
    let threshold = if input.parallel { 1 } else { 1 << 30 };
    let initial: Vec<ToolDoc> = input.initial.iter().take(24).map(FTool::doc).collect();

    // A build with repeated names is an error, and nothing is built.
    let unique = dedup(initial.clone());
    if unique.len() != initial.len() {
        let e = ToolIndex::build(initial.clone(), IndexOptions::default()).unwrap_err();
        assert_eq!(e.code, ErrorCode::DuplicateName);
        let e = EnhancedIndex::build(initial.clone(), params.clone(), threshold).unwrap_err();
        assert_eq!(e.code, ErrorCode::DuplicateName);
    }
    let mut model = unique;
    let mut c = ToolIndex::build(
        model.clone(),
        IndexOptions {
            parallel_threshold: threshold,
        },
    )
    .unwrap();
    let mut e = EnhancedIndex::build(model.clone(), params.clone(), threshold).unwrap();
    let mut queries: Vec<String> = Vec::new();

    for op in input.ops.iter().take(12) {
        let names: Vec<String> = model.iter().map(|t| t.name.clone()).collect();
        match op {
            Op::Upsert(batch) => {
                let batch: Vec<ToolDoc> = batch.iter().take(8).map(FTool::doc).collect();
                let unique = dedup(batch.clone());
                if unique.len() != batch.len() {
                    let before = names_c(&c);
                    assert_eq!(
                        c.upsert(batch.clone()).unwrap_err().code,
                        ErrorCode::DuplicateName
                    );
                    assert_eq!(e.upsert(batch).unwrap_err().code, ErrorCode::DuplicateName);
                    assert_eq!(names_c(&c), before);
                    assert_eq!(names_e(&e), before);
                } else {
                    let sc = c.upsert(batch.clone()).unwrap();
                    let se = e.upsert(batch.clone()).unwrap();
                    assert_eq!(sc.len(), batch.len());
                    assert_eq!(se.len(), batch.len());
                    for (slot, t) in sc.iter().zip(&batch) {
                        assert_eq!(c.doc(*slot).unwrap().name, t.name);
                    }
                    for (slot, t) in se.iter().zip(&batch) {
                        assert_eq!(e.name(*slot).unwrap(), t.name);
                    }
                    apply_upsert(&mut model, &batch);
                }
            }
            Op::Remove(list) => {
                let list: Vec<String> = list.iter().take(8).map(FName::render).collect();
                let present = model.iter().filter(|t| list.contains(&t.name)).count();
                assert_eq!(c.remove(&list), present);
                assert_eq!(e.remove(&list), present);
                model.retain(|t| !list.contains(&t.name));
            }
            Op::Search(q, limit, min) => {
                let q = q.render(&names);
                let limit = *limit as usize % 40;
                let min = MINS[*min as usize % MINS.len()];
                let hc = c.search(&q, limit, min);
                check_sorted(&hc, limit);
                for h in &hc {
                    assert!(
                        (0.0..=1.0).contains(&h.score) && h.score >= min,
                        "compat score {}",
                        h.score
                    );
                }
                // The streaming top-k (limits up to 32, with its floor skip) gives a prefix of
                // what collecting every hit gives (a limit of 64), and a repeat is the same.
                let mut all = c.search(&q, 64, min);
                all.truncate(limit);
                assert_eq!(hc, all, "compat top-k is not a prefix of the full list");
                assert_eq!(
                    hc,
                    c.search(&q, limit, min),
                    "compat search not deterministic"
                );
                let he = e.search(&q, limit, min);
                check_sorted(&he, limit);
                for h in &he {
                    assert!(
                        h.score.is_finite() && h.score < 4.0 && h.score >= min,
                        "enhanced score {}",
                        h.score
                    );
                }
                assert_eq!(
                    he,
                    e.search(&q, limit, min),
                    "enhanced search not deterministic"
                );
                // A shorter list is a prefix of a longer one, and whether a request abstains
                // does not depend on the limit (the crowd rule reads the final best CROWD_RANK
                // whatever the limit).
                if limit > 0 {
                    let longer = e.search(&q, CROWD_RANK.max(limit) + 1, min);
                    assert_eq!(
                        he.len(),
                        limit.min(longer.len()),
                        "abstaining depends on the limit"
                    );
                    assert_eq!(he[..], longer[..he.len()], "a shorter list is not a prefix");
                }
                queries.push(q);
            }
            Op::Keyword(q, max) => {
                let q = q.render(&names);
                let max = *max as usize % 40;
                let hits = keyword_search(&c, &q, max);
                assert!(hits.len() <= max.max(1));
                queries.push(q);
            }
            Op::Rank(q, max, outside) => {
                let q = q.render(&names);
                let max = *max as usize % 40;
                let outside = outside.as_ref().map(FName::render);
                let r = tool_search_rank(
                    &c,
                    &q,
                    max,
                    MergeWeights::default(),
                    0.1,
                    outside.as_deref(),
                );
                assert!(r.len() <= max);
                for w in r.windows(2) {
                    assert!(w[0].score >= w[1].score);
                }
                queries.push(q);
            }
            Op::Explain(q, name) => {
                let q = q.render(&names);
                let name = name.render();
                let ec = c.explain(&q, &name);
                assert_eq!(ec.is_some(), model.iter().any(|t| t.name == name));
                if let Some(x) = ec {
                    assert!((0.0..=1.0).contains(&x.cosine));
                }
                let _ = e.explain(&q, &name);
            }
        }
        assert_eq!(c.store().len(), model.len());
        assert_eq!(e.store().len(), model.len());
    }

    // Incremental equals rebuild.
    let fc = ToolIndex::build(model.clone(), IndexOptions::default()).unwrap();
    let fe = EnhancedIndex::build(model.clone(), params, 512).unwrap();
    let want: Vec<String> = model.iter().map(|t| t.name.clone()).collect();
    assert_eq!(names_c(&c), want);
    assert_eq!(names_e(&e), want);
    for q in &queries {
        assert_eq!(
            res_c(&c, &c.search(q, 50, 0.0)),
            res_c(&fc, &fc.search(q, 50, 0.0)),
            "compat {q:?}"
        );
        assert_eq!(
            res_c(&c, &keyword_search(&c, q, 50)),
            res_c(&fc, &keyword_search(&fc, q, 50)),
            "keyword {q:?}"
        );
        assert_eq!(
            res_e(&e, &e.search(q, 50, 0.0)),
            res_e(&fe, &fe.search(q, 50, 0.0)),
            "enhanced {q:?}"
        );
    }
});
