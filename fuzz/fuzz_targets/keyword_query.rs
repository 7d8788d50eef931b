//! The ToolSearch query parsers (`+term`, `server:`, `+server`, names, `select:` /
//! `discover:`-shaped text, JavaScript whitespace) and the keyword search, checked against a
//! literal port of the reference's `searchToolsWithKeywords` (the `+3` rule included) and of
//! the keyword + TF-IDF merge.
#![no_main]

mod common;

use arbitrary::Arbitrary;
use common::{dedup, FQuery, FTool};
use libfuzzer_sys::fuzz_target;
use tool_index_core::enhanced::analyze::MAX_TOKEN_LEN;
use tool_index_core::enhanced::{name_key, server_and_leaf, EnhancedIndex, Params};
use tool_index_core::hybrid::{tool_search_rank, MergeWeights};
use tool_index_core::index::DEFAULT_MIN_SCORE;
use tool_index_core::keyword::{keyword_outcome, parse_query, KeywordOutcome};
use tool_index_core::text::{
    contains_word_bounded, is_js_whitespace, js_lower, js_split_whitespace, js_trim,
};
use tool_index_core::{parse_tool_name, IndexOptions, ToolDoc, ToolIndex};

#[derive(Arbitrary, Debug)]
struct Input {
    tools: Vec<FTool>,
    queries: Vec<(FQuery, u8)>,
    outside: Option<u8>,
}

/// The reference's keyword search over the indexed tools, literally: (name, score); the
/// exact and prefix paths score f64::INFINITY.
fn literal(docs: &[ToolDoc], query: &str, max: usize) -> Vec<(String, f64)> {
    let q = js_trim(&js_lower(query)).to_owned();
    if let Some(t) = docs.iter().find(|t| js_lower(&t.name) == q) {
        return vec![(t.name.clone(), f64::INFINITY)];
    }
    if q.starts_with("mcp__") && q.len() > 5 {
        let p: Vec<(String, f64)> = docs
            .iter()
            .filter(|t| js_lower(&t.name).starts_with(&q))
            .take(max)
            .map(|t| (t.name.clone(), f64::INFINITY))
            .collect();
        if !p.is_empty() {
            return p;
        }
    }
    let terms: Vec<&str> = js_split_whitespace(&q)
        .into_iter()
        .filter(|t| !t.is_empty())
        .collect();
    let mut required = Vec::new();
    let mut optional = Vec::new();
    for t in &terms {
        if t.starts_with('+') && t.len() > 1 {
            required.push(&t[1..]);
        } else {
            optional.push(*t);
        }
    }
    let scoring: Vec<&str> = if required.is_empty() {
        terms.clone()
    } else {
        required.iter().chain(&optional).copied().collect()
    };
    let mut scored = Vec::new();
    for t in docs {
        let parsed = parse_tool_name(&t.name);
        let desc = js_lower(&t.description);
        let hint = t.search_hint.as_deref().map(js_lower).unwrap_or_default();
        let ok = required.iter().all(|term| {
            parsed.parts().any(|p| p == *term)
                || parsed.parts().any(|p| p.contains(*term))
                || contains_word_bounded(&desc, term)
                || (!hint.is_empty() && contains_word_bounded(&hint, term))
        });
        if !ok {
            continue;
        }
        let mut score = 0u32;
        for term in &scoring {
            if parsed.parts().any(|p| p == *term) {
                score += if parsed.is_mcp { 12 } else { 10 };
            } else if parsed.parts().any(|p| p.contains(*term)) {
                score += if parsed.is_mcp { 6 } else { 5 };
            }
            if score == 0 && parsed.full.contains(term) {
                score += 3;
            }
            if !hint.is_empty() && contains_word_bounded(&hint, term) {
                score += 4;
            }
            if contains_word_bounded(&desc, term) {
                score += 2;
            }
        }
        if score > 0 {
            scored.push((t.name.clone(), score as f64));
        }
    }
    // Stable sort, best first.
    scored.sort_by(|a, b| b.1.total_cmp(&a.1));
    scored.truncate(max);
    scored
}

fuzz_target!(|input: Input| {
    let docs = dedup(input.tools.iter().take(16).map(FTool::doc).collect());
    let names: Vec<String> = docs.iter().map(|d| d.name.clone()).collect();
    let c = ToolIndex::build(docs.clone(), IndexOptions::default()).unwrap();
    let e = EnhancedIndex::build(docs.clone(), Params::default(), 512).unwrap();
    let outside = input
        .outside
        .map(|i| common::pick(common::BUILTINS, i).to_owned());

    for (fq, max) in input.queries.iter().take(8) {
        let q = fq.render(&names);
        let max = *max as usize % 24;

        // The compat parser.
        let p = parse_query(&q);
        assert_eq!(p.normalized, js_trim(&js_lower(&q)));
        assert!(p.required <= p.terms.len());
        assert!(
            p.terms[..p.required].iter().all(|t| t.required),
            "required terms first"
        );
        for (i, t) in p.terms.iter().enumerate() {
            assert!(!t.text.is_empty() && t.weight >= 1 && !t.text.contains(is_js_whitespace));
            assert!(
                p.terms[..i].iter().all(|u| u.text != t.text),
                "repeated term"
            );
        }

        // The compat keyword search against the literal port.
        let got: Vec<(String, f64)> = match keyword_outcome(&c, &p, max) {
            KeywordOutcome::Exact(s) => vec![(c.doc(s).unwrap().name.clone(), f64::INFINITY)],
            KeywordOutcome::Prefix(v) => v
                .iter()
                .map(|s| (c.doc(*s).unwrap().name.clone(), f64::INFINITY))
                .collect(),
            KeywordOutcome::Scored(v) => v
                .iter()
                .map(|h| (c.doc(h.slot).unwrap().name.clone(), h.score))
                .collect(),
        };
        let want = literal(&docs, &q, max);
        assert_eq!(got, want, "keyword search for {q:?} (max {max})");

        // The merge against the literal one.
        let ranked = tool_search_rank(
            &c,
            &q,
            max,
            MergeWeights::default(),
            DEFAULT_MIN_SCORE,
            None,
        );
        let tfidf = c.search(&q, max, DEFAULT_MIN_SCORE);
        let mut merged: Vec<(String, f64)> = Vec::new();
        let n = want.len();
        for (r, (name, _)) in want.iter().enumerate() {
            merged.push((name.clone(), ((n - r) as f64 / n as f64) * 0.4));
        }
        for h in &tfidf {
            let name = &c.doc(h.slot).unwrap().name;
            match merged.iter_mut().find(|m| &m.0 == name) {
                Some(m) => m.1 += h.score * 0.6,
                None => merged.push((name.clone(), h.score * 0.6)),
            }
        }
        merged.sort_by(|a, b| b.1.total_cmp(&a.1));
        merged.truncate(max);
        let got: Vec<(String, f64)> = ranked
            .iter()
            .map(|r| (r.name(&c, None).unwrap().to_owned(), r.score))
            .collect();
        assert_eq!(got.len(), merged.len(), "merge for {q:?}");
        for (g, w) in got.iter().zip(&merged) {
            assert!(
                g.0 == w.0 && (g.1 - w.1).abs() <= 1e-12,
                "merge for {q:?}: {got:?} vs {merged:?}"
            );
        }

        // exact_outside: a non-indexed exact name leads when no indexed name is exact.
        if let Some(o) = &outside {
            let r = tool_search_rank(
                &c,
                &q,
                max,
                MergeWeights::default(),
                DEFAULT_MIN_SCORE,
                Some(o),
            );
            let indexed_exact = docs.iter().any(|d| js_lower(&d.name) == p.normalized);
            if !indexed_exact && js_lower(o) == p.normalized && max > 0 {
                assert_eq!(r[0].slot, None);
                assert_eq!(r[0].name(&c, Some(o)), Some(o.as_str()));
            }
        }

        // The enhanced parser and search.
        let pq = e.parse_query(&q);
        assert_eq!(pq.raw.len(), pq.raw_ident.len());
        assert!(
            pq.servers.iter().all(|s| !s.is_empty()),
            "empty server filter from {q:?}"
        );
        for t in &pq.terms {
            assert!(
                !t.term.is_empty() && t.term.len() <= MAX_TOKEN_LEN,
                "query term {:?}",
                t.term
            );
            assert!(t.weight > 0.0 && t.weight.is_finite());
        }
        let hits = e.search_parsed(&pq, max, 0.0);
        common::check_sorted(&hits, max);
        if !pq.servers.is_empty() {
            // Server filters keep only those servers' tools.
            for h in &hits {
                let name = e.name(h.slot).unwrap();
                let doc = docs.iter().find(|d| d.name == name).unwrap();
                let (server, _) = server_and_leaf(&doc.name, doc.server.as_deref());
                let key = server.map(|s| name_key(s).replace('_', ""));
                assert!(
                    key.is_some_and(|k| pq.servers.contains(&k)),
                    "{name:?} is not on {:?} ({q:?})",
                    pq.servers
                );
            }
        }
    }
});
