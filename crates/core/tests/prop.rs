//! Property tests (proptest) of the core: incremental = rebuild, determinism and ordering,
//! score ranges, the enhanced token cap, and tokenizers that never panic.
//!
//! Cases per property: `PROPTEST_CASES` (default 96 here; e.g. `PROPTEST_CASES=5000 cargo
//! test -p tool-index-core --release --test prop` for a long run). Failures are persisted
//! by proptest under `crates/core/proptest-regressions/`.

mod common;

use std::collections::HashMap;

use common::fresh_word;

use proptest::prelude::*;
use proptest::test_runner::Config;

use tool_index_core::enhanced::analyze::{split_identifier, Analyzer, MAX_TOKEN_LEN};
use tool_index_core::enhanced::{lexicon, name_key, server_and_leaf, EnhancedIndex, Params};
use tool_index_core::hybrid::{tool_search_rank, MergeWeights};
use tool_index_core::index::{Hit, NAME_BOOST};
use tool_index_core::keyword::{keyword_search, parse_query, warm_keyword_index};
use tool_index_core::store::COMPACT_MIN_DEAD_TERMS;
use tool_index_core::text::{is_js_whitespace, js_lower};
use tool_index_core::{
    parse_tool_name, stem, tokenize, tokenize_and_stem, IndexOptions, ToolDoc, ToolIndex,
};

fn config(default_cases: u32) -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default_cases);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

// ---------------------------------------------------------------------------------------
// Generators

/// Words with near-misses (one edit apart), stems and stop words, so that typo correction,
/// stemming and IDF collisions happen often.
const WORDS: &[&str] = &[
    "create",
    "creates",
    "created",
    "creation",
    "issue",
    "issues",
    "tissue",
    "send",
    "sends",
    "message",
    "messages",
    "massage",
    "slack",
    "schedule",
    "scheduled",
    "shedule",
    "cron",
    "prompt",
    "prompts",
    "file",
    "files",
    "filed",
    "list",
    "lists",
    "listing",
    "search",
    "searcher",
    "research",
    "github",
    "gitlab",
    "repository",
    "channel",
    "channels",
    "pdf",
    "parse",
    "parser",
    "parsing",
    "image",
    "images",
    "imagine",
    "database",
    "databases",
    "the",
    "a",
    "of",
    "and",
    "use",
    "using",
    "tool",
    "tools",
    "ls",
    "run",
    "running",
    "quickly",
    "mongo",
    "mongodb",
    "http",
    "server",
    "servers",
    "issue_tracker",
    "send-message",
    "CronCreate",
    "MongoDBDatabase",
    "解析",
    "文件",
    "发送",
    "消息",
    "定时",
    "任务",
    "東京",
    "タワー",
    "😀",
    "𠀀𠀁",
    "Σίσυφος",
    "İstanbul",
    "straße",
    "ǅemal",
];

const SERVERS: &[&str] = &["github", "slack", "my_server", "jira", "fs", "x"];
const LEAVES: &[&str] = &[
    "create_issue",
    "send_message",
    "list_files",
    "search",
    "do_thing",
    "merge-pdfs",
    "Run",
    "ls",
    "",
    "_",
    "a__b",
];
const BUILTINS: &[&str] = &[
    "CronCreate",
    "NotebookEditTool",
    "HTTPServer",
    "ls",
    "PdfParse",
    "snake_case_name",
    "Search",
    "ImageGen",
    "x",
    "MongoDBDatabase",
    "__",
    "Tool😀",
    "Ωmega",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::sample::select(WORDS).prop_map(str::to_owned),
        1 => "[a-z0-9_-]{1,12}",
        1 => any::<String>().prop_map(|s| s.chars().take(8).collect()),
    ]
}

fn text(max_words: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(
        (
            word(),
            prop::sample::select(&[" ", " ", " ", ", ", ". ", "_", "-", "\n", "", "\t"][..]),
        ),
        0..max_words,
    )
    .prop_map(|v| v.into_iter().map(|(w, sep)| format!("{w}{sep}")).collect())
}

fn tool_name() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => (prop::sample::select(SERVERS), prop::sample::select(LEAVES))
            .prop_map(|(s, l)| format!("mcp__{s}__{l}")),
        2 => prop::sample::select(BUILTINS).prop_map(str::to_owned),
        1 => "[A-Za-z_]{1,10}",
        1 => (prop::sample::select(BUILTINS), 0u8..4).prop_map(|(b, n)| format!("{b}{n}")),
    ]
}

fn tool_with_name(name: String) -> impl Strategy<Value = ToolDoc> {
    (
        text(14),
        prop::option::of(text(5)),
        prop::option::of(any::<bool>()),
        prop::option::of(prop::sample::select(SERVERS)),
        prop::option::of(text(6)),
    )
        .prop_map(
            move |(description, search_hint, is_mcp, server, schema_text)| ToolDoc {
                name: name.clone(),
                description,
                search_hint,
                is_mcp,
                server: server.map(str::to_owned),
                schema_text,
            },
        )
}

fn tool() -> impl Strategy<Value = ToolDoc> {
    tool_name().prop_flat_map(tool_with_name)
}

/// Tools with distinct names, in order.
fn catalog(max: usize) -> impl Strategy<Value = Vec<ToolDoc>> {
    prop::collection::vec(tool(), 0..max).prop_map(dedup)
}

fn dedup(tools: Vec<ToolDoc>) -> Vec<ToolDoc> {
    let mut seen = std::collections::HashSet::new();
    tools
        .into_iter()
        .filter(|t| seen.insert(t.name.clone()))
        .collect()
}

fn query() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => text(6),
        1 => (tool_name(), text(3)).prop_map(|(n, t)| format!("{n} {t}")),
        1 => (prop::sample::select(SERVERS), text(3)).prop_map(|(s, t)| format!("+{s} {t}")),
        1 => (prop::sample::select(SERVERS), text(3)).prop_map(|(s, t)| format!("server:{s} {t}")),
        1 => (word(), text(3)).prop_map(|(w, t)| format!("+{w} {t}")),
        1 => (prop::sample::select(SERVERS), prop::sample::select(LEAVES)).prop_map(|(s, l)| format!("{s} {l}")),
        1 => any::<String>(),
    ]
}

#[derive(Debug, Clone)]
enum Op {
    Upsert(Vec<ToolDoc>),
    Remove(Vec<String>),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        3 => prop::collection::vec(tool(), 0..5).prop_map(|v| Op::Upsert(dedup(v))),
        2 => prop::collection::vec(tool_name(), 0..4).prop_map(Op::Remove),
    ]
}

/// The list a sequence of operations leaves: upsert replaces in place or appends; remove deletes.
fn apply(model: &mut Vec<ToolDoc>, op: &Op) {
    match op {
        Op::Upsert(batch) => {
            for t in batch {
                match model.iter_mut().find(|m| m.name == t.name) {
                    Some(m) => *m = t.clone(),
                    None => model.push(t.clone()),
                }
            }
        }
        Op::Remove(names) => model.retain(|m| !names.contains(&m.name)),
    }
}

// ---------------------------------------------------------------------------------------
// Helpers

fn compat_names(idx: &ToolIndex) -> Vec<String> {
    idx.store()
        .slots()
        .map(|s| idx.doc(s).unwrap().name.clone())
        .collect()
}

fn enhanced_names(idx: &EnhancedIndex) -> Vec<String> {
    idx.store()
        .slots()
        .map(|s| idx.name(s).unwrap().to_owned())
        .collect()
}

/// Results as (name, score bits), so equality is bit-equality.
fn compat_result(idx: &ToolIndex, hits: &[Hit]) -> Vec<(String, u64)> {
    hits.iter()
        .map(|h| (idx.doc(h.slot).unwrap().name.clone(), h.score.to_bits()))
        .collect()
}

fn enhanced_result(idx: &EnhancedIndex, hits: &[Hit]) -> Vec<(String, u64)> {
    hits.iter()
        .map(|h| (idx.name(h.slot).unwrap().to_owned(), h.score.to_bits()))
        .collect()
}

/// Best first; equal scores in index order (slot order is index order).
fn assert_sorted(hits: &[Hit]) -> Result<(), TestCaseError> {
    for w in hits.windows(2) {
        prop_assert!(
            w[0].score > w[1].score || (w[0].score == w[1].score && w[0].slot < w[1].slot),
            "not sorted: {:?}",
            w
        );
    }
    Ok(())
}

fn compat_opts(parallel: bool) -> IndexOptions {
    IndexOptions {
        parallel_threshold: if parallel { 1 } else { usize::MAX },
    }
}

// ---------------------------------------------------------------------------------------
// Properties

proptest! {
    #![proptest_config(config(96))]

    /// Compat: any upsert/remove sequence equals a fresh build of the resulting list, for
    /// TF-IDF search, keyword search and the ToolSearch merge.
    #[test]
    fn compat_incremental_equals_rebuild(
        initial in catalog(12),
        ops in prop::collection::vec(op(), 1..8),
        queries in prop::collection::vec(query(), 1..6),
        parallel in any::<bool>(),
    ) {
        let mut idx = ToolIndex::build(initial.clone(), compat_opts(parallel)).unwrap();
        // Keyword postings built up front, so every op below updates them in place.
        warm_keyword_index(&idx);
        let mut model = initial;
        for op in &ops {
            match op {
                Op::Upsert(batch) => { idx.upsert(batch.clone()).unwrap(); }
                Op::Remove(names) => { idx.remove(names); }
            }
            apply(&mut model, op);
        }
        let fresh = ToolIndex::build(model.clone(), IndexOptions::default()).unwrap();
        prop_assert_eq!(idx.store().len(), model.len());
        prop_assert_eq!(compat_names(&idx), compat_names(&fresh));
        for q in &queries {
            for min in [0.0, 0.1] {
                let a = idx.search(q, 50, min);
                let b = fresh.search(q, 50, min);
                prop_assert_eq!(compat_result(&idx, &a), compat_result(&fresh, &b), "query {:?}", q);
            }
            let a = keyword_search(&idx, q, 50);
            let b = keyword_search(&fresh, q, 50);
            prop_assert_eq!(compat_result(&idx, &a), compat_result(&fresh, &b), "keyword {:?}", q);
            let a = tool_search_rank(&idx, q, 10, MergeWeights::default(), 0.1, None);
            let b = tool_search_rank(&fresh, q, 10, MergeWeights::default(), 0.1, None);
            let na: Vec<(Option<&str>, u64)> = a.iter().map(|h| (h.name(&idx, None), h.score.to_bits())).collect();
            let nb: Vec<(Option<&str>, u64)> = b.iter().map(|h| (h.name(&fresh, None), h.score.to_bits())).collect();
            prop_assert_eq!(na, nb, "rank {:?}", q);
        }
    }

    /// Enhanced: any upsert/remove sequence equals a fresh build of the resulting list.
    #[test]
    fn enhanced_incremental_equals_rebuild(
        initial in catalog(12),
        ops in prop::collection::vec(op(), 1..8),
        queries in prop::collection::vec(query(), 1..6),
        parallel in any::<bool>(),
    ) {
        let threshold = if parallel { 1 } else { usize::MAX };
        let mut idx = EnhancedIndex::build(initial.clone(), Params::default(), threshold).unwrap();
        let mut model = initial;
        for op in &ops {
            match op {
                Op::Upsert(batch) => { idx.upsert(batch.clone()).unwrap(); }
                Op::Remove(names) => { idx.remove(names); }
            }
            apply(&mut model, op);
        }
        let fresh = EnhancedIndex::build(model.clone(), Params::default(), 512).unwrap();
        prop_assert_eq!(idx.store().len(), model.len());
        prop_assert_eq!(enhanced_names(&idx), enhanced_names(&fresh));
        for q in &queries {
            let a = idx.search(q, 50, 0.0);
            let b = fresh.search(q, 50, 0.0);
            prop_assert_eq!(enhanced_result(&idx, &a), enhanced_result(&fresh, &b), "query {:?}", q);
        }
    }

    /// Enhanced, searched between the changes too: what a search keeps for later ones (the
    /// saturations of long posting lists) never outlives the tools it was worked out
    /// for. Catalogs large enough for common words to reach the lists that are kept.
    #[test]
    fn enhanced_searches_between_changes_equal_a_rebuild(
        initial in catalog(48),
        ops in prop::collection::vec(op(), 1..6),
        queries in prop::collection::vec(query(), 1..5),
    ) {
        let mut idx = EnhancedIndex::build(initial.clone(), Params::default(), 512).unwrap();
        let mut model = initial;
        for op in &ops {
            for q in &queries {
                idx.search(q, 5, 0.0);
            }
            match op {
                Op::Upsert(batch) => { idx.upsert(batch.clone()).unwrap(); }
                Op::Remove(names) => { idx.remove(names); }
            }
            apply(&mut model, op);
        }
        let fresh = EnhancedIndex::build(model, Params::default(), 512).unwrap();
        for q in &queries {
            let a = idx.search(q, 50, 0.0);
            let b = fresh.search(q, 50, 0.0);
            prop_assert_eq!(enhanced_result(&idx, &a), enhanced_result(&fresh, &b), "query {:?}", q);
        }
    }

    /// Searching twice gives the same; results are sorted (score desc, ties by index order),
    /// within the limit and at or above the threshold; compat scores are cosines in [0, 1]
    /// (the documented name boost lifts a score to exactly 0.75, which is inside that range);
    /// enhanced scores are tier + relevance in [0, 4).
    #[test]
    fn results_deterministic_sorted_and_in_range(
        tools in catalog(16),
        queries in prop::collection::vec(query(), 1..6),
        limit in 0usize..12,
        min in prop::sample::select(&[0.0, 0.1, 0.5][..]),
    ) {
        let compat = ToolIndex::build(tools.clone(), IndexOptions::default()).unwrap();
        let enhanced = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        for q in &queries {
            let a = compat.search(q, limit, min);
            prop_assert_eq!(&a, &compat.search(q, limit, min));
            prop_assert!(a.len() <= limit);
            assert_sorted(&a)?;
            for h in &a {
                prop_assert!(h.score >= min);
            }
            // Unfiltered: every score is a cosine in [0, 1], or the 0.75 boost.
            let boosted_query = q.to_lowercase().replace(['-', '_'], " ");
            for h in compat.score_all(q) {
                prop_assert!(h.score.is_finite() && (0.0..=1.0).contains(&h.score), "score {} for {:?}", h.score, q);
                let doc = compat.doc(h.slot).unwrap();
                if h.score == NAME_BOOST && !boosted_query.contains(doc.parsed.full.as_str()) {
                    // A genuine cosine of exactly 0.75 is possible but must then come from terms.
                    let e = compat.explain(q, &doc.name).unwrap();
                    prop_assert!(e.cosine > 0.0);
                }
            }
            let b = enhanced.search(q, limit, min);
            prop_assert_eq!(&b, &enhanced.search(q, limit, min));
            prop_assert!(b.len() <= limit);
            assert_sorted(&b)?;
            for h in &b {
                prop_assert!(h.score.is_finite() && h.score >= 0.0 && h.score < 4.0, "enhanced score {}", h.score);
                prop_assert!(h.score >= min);
                // `explain` gives each result the score `search` gave it, multi-step requests
                // (clause coverage) included.
                let name = enhanced.name(h.slot).unwrap();
                let e = enhanced.explain(q, name).unwrap();
                prop_assert_eq!(e.score.to_bits(), h.score.to_bits(), "explain {:?} {:?}", q, name);
            }
        }
    }

    /// Compat search without a limit returns exactly the tools with a positive score (or the
    /// name boost) at or above the threshold, and a smaller limit returns a prefix of it.
    #[test]
    fn limits_give_prefixes(tools in catalog(16), q in query(), k in 0usize..8) {
        let idx = ToolIndex::build(tools.clone(), IndexOptions::default()).unwrap();
        let all = idx.search(&q, usize::MAX, 0.1);
        let some = idx.search(&q, k, 0.1);
        prop_assert_eq!(&all[..k.min(all.len())], &some[..]);
        let e = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        let all = e.search(&q, usize::MAX, 0.0);
        let some = e.search(&q, k, 0.0);
        prop_assert_eq!(&all[..k.min(all.len())], &some[..]);
    }

    /// A multi-step request over a catalog larger than the clause pool: any limit and
    /// threshold give a prefix of the unlimited list (the tools outside the pool included).
    #[test]
    fn clause_limits_give_prefixes(
        descriptions in prop::collection::vec(text(14), 21..64),
        steps in prop::collection::vec(text(5), 2..4),
        k in 0usize..48,
        min in prop::sample::select(&[0.0, 0.2, 0.9][..]),
    ) {
        let tools: Vec<ToolDoc> = descriptions
            .into_iter()
            .enumerate()
            .map(|(i, d)| ToolDoc::new(format!("tool_{i}"), d))
            .collect();
        let q = steps.join(", then ");
        let plain = Params { clause_weight: 0.0, ..Params::default() };
        let flat = EnhancedIndex::build(tools.clone(), plain, 512).unwrap();
        let e = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        let all = e.search(&q, usize::MAX, 0.0);
        // Clause coverage reorders the matching tools; it neither adds nor drops one.
        let mut slots: Vec<u32> = all.iter().map(|h| h.slot).collect();
        let mut want: Vec<u32> = flat.search(&q, usize::MAX, 0.0).iter().map(|h| h.slot).collect();
        slots.sort_unstable();
        want.sort_unstable();
        prop_assert_eq!(slots, want);
        let all = e.search(&q, usize::MAX, min);
        let some = e.search(&q, k, min);
        prop_assert_eq!(&all[..k.min(all.len())], &some[..]);
    }

    /// No enhanced token, of a text, a query or an indexed tool, is longer than MAX_TOKEN_LEN bytes.
    #[test]
    fn enhanced_tokens_are_capped(s in any::<String>(), long in "[a-zA-Z0-9]{50,200}", tools in catalog(6)) {
        let a = Analyzer::default();
        let joined = format!("{s} {long} {s}{long}_{long} {}", long.to_uppercase());
        for t in a.tokens(&joined).into_iter().chain(a.query_tokens(&joined)).chain(a.tokens(&s)) {
            prop_assert!(!t.is_empty() && t.len() <= MAX_TOKEN_LEN, "token of {} bytes: {:?}", t.len(), t);
        }
        let mut tools = tools;
        tools.push(ToolDoc::new(format!("mcp__{long}__{long}"), joined.clone()).with_hint(long.clone()));
        let tools = dedup(tools);
        let idx = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        for slot in idx.store().slots() {
            for t in idx.store().tokens(slot) {
                prop_assert!(!t.is_empty() && t.len() <= MAX_TOKEN_LEN, "indexed token of {} bytes", t.len());
            }
        }
    }

    /// The tokenizers and parsers never panic on any string, and their output has the
    /// documented shape.
    #[test]
    fn tokenizers_never_panic(s in any::<String>(), t in text(12)) {
        for input in [s.as_str(), t.as_str()] {
            for tok in tokenize(input) {
                prop_assert!(!tok.is_empty());
                let cjk = tok.chars().all(|c| matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}'));
                let word = tok.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
                    && !tok.starts_with(['-', '_']) && !tok.ends_with(['-', '_']);
                prop_assert!((cjk && tok.chars().count() == 2) || word, "odd token {:?}", tok);
            }
            let stemmed = tokenize_and_stem(input);
            prop_assert_eq!(stemmed.len(), tokenize(input).len());
            for w in tokenize(input) {
                let _ = stem(&w);
            }
            let p = parse_tool_name(input);
            prop_assert!(p.parts().all(|x| !x.is_empty()));
            let _ = parse_query(input);
            let a = Analyzer::default();
            let _ = a.tokens(input);
            let _ = a.query_tokens(input);
            let _ = a.stem_word(input);
            let _ = split_identifier(input);
            let _ = name_key(input);
            let _ = server_and_leaf(input, Some(input));
            let _ = lexicon::expand(input);
        }
    }

    /// `parseToolName` equals the reference's chain of string operations, spelled out (MCP:
    /// split on `__`, then on `_`; `full` replaces `__`, then `_`; built-in: split camel
    /// edges, `_` to space, lowercase, split on whitespace), and the parsed name tokenizes as
    /// its parts joined by spaces (the name field a build indexes).
    #[test]
    fn parse_tool_name_is_the_reference_chain(
        name in prop_oneof![
            "[a-zA-Z_ Σσİ解析\t-]{0,16}",
            "[a-zA-Z_ Σσİ解析\t-]{0,12}".prop_map(|s| format!("mcp__{s}")),
            "[A-Za-z]{1,6}_{1,5}[A-Za-z]{0,6}_{0,4}".prop_map(|s| format!("mcp__{s}")),
        ],
    ) {
        let (parts, full): (Vec<String>, String) = match name.strip_prefix("mcp__") {
            Some(rest) => {
                let lower = js_lower(rest);
                let parts = lower
                    .split("__")
                    .flat_map(|seg| seg.split('_'))
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned)
                    .collect();
                (parts, lower.replace("__", " ").replace('_', " "))
            }
            None => {
                let mut spaced = String::new();
                let mut prev_lower = false;
                for c in name.chars() {
                    if prev_lower && c.is_ascii_uppercase() {
                        spaced.push(' ');
                    }
                    spaced.push(c);
                    prev_lower = c.is_ascii_lowercase();
                }
                let lower = js_lower(&spaced.replace('_', " "));
                let parts: Vec<String> = lower
                    .split(is_js_whitespace)
                    .filter(|p| !p.is_empty())
                    .map(str::to_owned)
                    .collect();
                let full = parts.join(" ");
                (parts, full)
            }
        };
        let p = parse_tool_name(&name);
        prop_assert_eq!(p.parts().collect::<Vec<_>>(), parts.iter().map(String::as_str).collect::<Vec<_>>());
        prop_assert_eq!(&p.full, &full);
        prop_assert_eq!(p.is_mcp, name.starts_with("mcp__"));
        prop_assert_eq!(tokenize_and_stem(&p.full), tokenize_and_stem(&js_lower(&parts.join(" "))));
    }

    /// The tokenizer equals the reference's scan spelled out character by character: maximal
    /// runs of CJK ideographs give their bigrams, a word starts with an ASCII letter or digit
    /// and runs over letters, digits, `-` and `_`, trimmed of trailing `-` and `_`; stop words
    /// and empty words go.
    #[test]
    fn tokenize_is_the_reference_scan(s in "[a-zA-Z0-9_ ,.Σé解析文件查询😀\t-]{0,24}", t in text(8)) {
        for input in [s.as_str(), t.as_str()] {
            let lower = js_lower(input);
            let chars: Vec<char> = lower.chars().collect();
            let cjk = |c: char| matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3400}'..='\u{4DBF}');
            let start = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
            let mut want: Vec<String> = Vec::new();
            let mut i = 0;
            while i < chars.len() {
                if cjk(chars[i]) {
                    let mut j = i;
                    while j < chars.len() && cjk(chars[j]) {
                        j += 1;
                    }
                    for k in i..j.saturating_sub(1) {
                        want.push(chars[k..k + 2].iter().collect());
                    }
                    i = j;
                } else if start(chars[i]) {
                    let mut j = i;
                    while j < chars.len() && (start(chars[j]) || chars[j] == '-' || chars[j] == '_') {
                        j += 1;
                    }
                    let w: String = chars[i..j].iter().collect();
                    let w = w.trim_end_matches(['-', '_']).to_owned();
                    if !w.is_empty() && !tool_index_core::tokenize::is_stop_word(&w) {
                        want.push(w);
                    }
                    i = j;
                } else {
                    i += 1;
                }
            }
            prop_assert_eq!(tokenize(input), want, "{:?}", input);
        }
    }

    /// Building from any strings (names, texts) and searching with any string never panics.
    #[test]
    fn arbitrary_strings_build_and_search(names in prop::collection::vec(any::<String>(), 0..6), texts in prop::collection::vec(any::<String>(), 6), q in any::<String>()) {
        let mut names = names;
        names.sort();
        names.dedup();
        let tools: Vec<ToolDoc> = names
            .iter()
            .enumerate()
            .map(|(i, n)| ToolDoc {
                name: n.clone(),
                description: texts[i % texts.len()].clone(),
                search_hint: Some(texts[(i + 1) % texts.len()].clone()),
                is_mcp: None,
                server: Some(texts[(i + 2) % texts.len()].clone()),
                schema_text: Some(texts[(i + 3) % texts.len()].clone()),
            })
            .collect();
        let c = ToolIndex::build(tools.clone(), IndexOptions::default()).unwrap();
        let e = EnhancedIndex::build(tools, Params::default(), 512).unwrap();
        for query in [q.as_str(), texts[0].as_str()] {
            let _ = c.search(query, 10, 0.0);
            let _ = keyword_search(&c, query, 10);
            let _ = tool_search_rank(&c, query, 10, MergeWeights::default(), 0.1, names.first().map(String::as_str));
            let _ = e.search(query, 10, 0.0);
            for n in &names {
                let _ = c.explain(query, n);
                let _ = e.explain(query, n);
            }
        }
    }
}

proptest! {
    #![proptest_config(config(12))]

    /// Large catalogs with many removals (the compat index compacts its slots once more than
    /// half are empty and at least 64) still equal a fresh build.
    #[test]
    fn compaction_equals_rebuild(
        n in 80usize..220,
        removed_every in 2usize..4,
        seed_texts in prop::collection::vec(text(8), 8),
        queries in prop::collection::vec(query(), 1..5),
        readd in prop::collection::vec(0usize..220, 0..10),
    ) {
        let make = |i: usize| {
            let name = match i % 3 {
                0 => format!("mcp__{}__tool_{i}", SERVERS[i % SERVERS.len()]),
                1 => format!("Builtin{i}Tool"),
                _ => format!("plain_{i}"),
            };
            ToolDoc::new(name, seed_texts[i % seed_texts.len()].clone()).with_hint(seed_texts[(i * 7) % seed_texts.len()].clone())
        };
        let all: Vec<ToolDoc> = (0..n).map(make).collect();
        let mut c = ToolIndex::build(all.clone(), IndexOptions::default()).unwrap();
        let mut e = EnhancedIndex::build(all.clone(), Params::default(), 512).unwrap();
        let gone: Vec<String> = all.iter().enumerate().filter(|(i, _)| i % removed_every != 0).map(|(_, t)| t.name.clone()).collect();
        let generation = c.store().generation();
        c.remove(&gone);
        e.remove(&gone);
        let mut model: Vec<ToolDoc> = all.iter().filter(|t| !gone.contains(&t.name)).cloned().collect();
        if gone.len() >= 64 && gone.len() * 2 >= n {
            prop_assert!(c.store().generation() > generation, "expected a compaction");
        }
        let mut back: Vec<ToolDoc> = readd.iter().filter(|&&i| i < n).map(|&i| make(i)).collect();
        back = dedup(back);
        c.upsert(back.clone()).unwrap();
        e.upsert(back.clone()).unwrap();
        apply(&mut model, &Op::Upsert(back));
        let fc = ToolIndex::build(model.clone(), IndexOptions::default()).unwrap();
        let fe = EnhancedIndex::build(model, Params::default(), 512).unwrap();
        prop_assert_eq!(compat_names(&c), compat_names(&fc));
        prop_assert_eq!(enhanced_names(&e), enhanced_names(&fe));
        for q in &queries {
            prop_assert_eq!(compat_result(&c, &c.search(q, 30, 0.0)), compat_result(&fc, &fc.search(q, 30, 0.0)));
            prop_assert_eq!(compat_result(&c, &keyword_search(&c, q, 30)), compat_result(&fc, &keyword_search(&fc, q, 30)));
            prop_assert_eq!(enhanced_result(&e, &e.search(q, 30, 0.0)), enhanced_result(&fe, &fe.search(q, 30, 0.0)));
        }
    }
}

/// One step of a long churn: replace one of the first tools with new words, add a tool with
/// a new name (removing the one the last such step added), remove a tool, or any [`op`].
#[derive(Debug, Clone)]
enum Churn {
    Replace(usize),
    AddNext,
    Remove(usize),
    Any(Op),
}

fn churn() -> impl Strategy<Value = Churn> {
    prop_oneof![
        4 => (0usize..3).prop_map(Churn::Replace),
        2 => Just(Churn::AddNext),
        1 => (0usize..16).prop_map(Churn::Remove),
        1 => op().prop_map(Churn::Any),
    ]
}

/// New words per churn step.
const FRESH_PER_STEP: usize = 6;

proptest! {
    #![proptest_config(config(24))]

    /// Incremental = rebuild under long churn: tools replaced with new words and new names
    /// added and removed leave far more dead terms than live ones, so both scorers compact
    /// their vocabularies (and the compat keyword postings theirs) several times on the way;
    /// the vocabulary stays within twice the live terms plus the minimum, and search, keyword
    /// search, the ToolSearch merge, explanations and typo corrections equal a fresh build's.
    #[test]
    fn term_compaction_equals_rebuild(
        initial in catalog(12),
        steps in prop::collection::vec(churn(), 80..120),
        queries in prop::collection::vec(query(), 1..4),
        parallel in any::<bool>(),
    ) {
        let mut c = ToolIndex::build(initial.clone(), compat_opts(parallel)).unwrap();
        warm_keyword_index(&c);
        let threshold = if parallel { 1 } else { usize::MAX };
        let mut e = EnhancedIndex::build(initial.clone(), Params::default(), threshold).unwrap();
        let mut model = initial;
        let mut fresh = 0;
        let mut added: Option<String> = None;
        let mut terms = [c.store().term_count(), e.store().term_count()];
        let mut compactions = [0usize; 2];
        for (i, step) in steps.iter().enumerate() {
            let mut words = || {
                let w: Vec<String> = (0..FRESH_PER_STEP).map(|k| fresh_word("zq", fresh + k)).collect();
                fresh += FRESH_PER_STEP;
                format!("{} {}", WORDS[i % WORDS.len()], w.join(" "))
            };
            let op = match step {
                Churn::Replace(k) if !model.is_empty() => {
                    let mut t = model[k % model.len().min(3)].clone();
                    t.description = words();
                    Op::Upsert(vec![t])
                }
                Churn::AddNext => {
                    if let Some(name) = added.take() {
                        let gone = vec![name];
                        c.remove(&gone);
                        e.remove(&gone);
                        apply(&mut model, &Op::Remove(gone));
                    }
                    let name = format!("mcp__{}__{}_{}", fresh_word("srv", i), fresh_word("leaf", i), WORDS[i % WORDS.len()]);
                    added = Some(name.clone());
                    Op::Upsert(vec![ToolDoc::new(name, words()).with_hint(words())])
                }
                Churn::Remove(k) if !model.is_empty() => Op::Remove(vec![model[k % model.len()].name.clone()]),
                Churn::Any(op) => op.clone(),
                _ => continue,
            };
            match &op {
                Op::Upsert(batch) => { c.upsert(batch.clone()).unwrap(); e.upsert(batch.clone()).unwrap(); }
                Op::Remove(names) => { c.remove(names); e.remove(names); }
            }
            apply(&mut model, &op);
            let now = [c.store().term_count(), e.store().term_count()];
            let live = [c.store().live_term_count(), e.store().live_term_count()];
            for k in 0..2 {
                prop_assert!(now[k] <= 2 * live[k] + COMPACT_MIN_DEAD_TERMS, "{} terms, {} live", now[k], live[k]);
                // Only a compaction makes the vocabulary smaller.
                compactions[k] += usize::from(now[k] < terms[k]);
            }
            terms = now;
        }
        prop_assert!(compactions.iter().all(|&n| n > 0), "compactions {:?} after {} new words", compactions, fresh);
        let fc = ToolIndex::build(model.clone(), IndexOptions::default()).unwrap();
        let fe = EnhancedIndex::build(model.clone(), Params::default(), 512).unwrap();
        prop_assert_eq!(c.store().live_term_count(), fc.store().term_count());
        prop_assert_eq!(e.store().live_term_count(), fe.store().term_count());
        prop_assert_eq!(compat_names(&c), compat_names(&fc));
        prop_assert_eq!(enhanced_names(&e), enhanced_names(&fe));
        // The newest words, a word gone from every tool, and one-letter slips of the live
        // added tool's name words (typo corrections read the name vocabulary).
        let mut queries = queries;
        queries.push(format!("{} {}", fresh_word("zq", fresh - 1), fresh_word("zq", fresh - 2 * FRESH_PER_STEP - 1)));
        if let Some(name) = &added {
            let leaf = name.split("__").nth(2).unwrap_or_default();
            queries.push(leaf.chars().skip(1).collect::<String>().replace('_', " "));
            queries.push(format!("{} {}", name.replace("__", " ").replace('_', " "), fresh_word("zq", fresh - 3)));
        }
        let probes: Vec<String> = model.iter().take(4).map(|t| t.name.clone()).collect();
        for q in &queries {
            for min in [0.0, 0.1] {
                prop_assert_eq!(compat_result(&c, &c.search(q, 30, min)), compat_result(&fc, &fc.search(q, 30, min)), "query {:?}", q);
            }
            prop_assert_eq!(compat_result(&c, &keyword_search(&c, q, 30)), compat_result(&fc, &keyword_search(&fc, q, 30)), "keyword {:?}", q);
            let a = tool_search_rank(&c, q, 10, MergeWeights::default(), 0.1, None);
            let b = tool_search_rank(&fc, q, 10, MergeWeights::default(), 0.1, None);
            let na: Vec<(Option<&str>, u64)> = a.iter().map(|h| (h.name(&c, None), h.score.to_bits())).collect();
            let nb: Vec<(Option<&str>, u64)> = b.iter().map(|h| (h.name(&fc, None), h.score.to_bits())).collect();
            prop_assert_eq!(na, nb, "rank {:?}", q);
            prop_assert_eq!(enhanced_result(&e, &e.search(q, 30, 0.0)), enhanced_result(&fe, &fe.search(q, 30, 0.0)), "enhanced {:?}", q);
            for name in &probes {
                prop_assert_eq!(c.explain(q, name), fc.explain(q, name), "explain {:?} {:?}", q, name);
                prop_assert_eq!(e.explain(q, name), fe.explain(q, name), "enhanced explain {:?} {:?}", q, name);
            }
        }
    }
}

/// Ties go to index order across a rebuild with a different insertion history (explicit case).
#[test]
fn ties_follow_index_order() {
    let tools: Vec<ToolDoc> = (0..6)
        .map(|i| ToolDoc::new(format!("t{i}"), "same words here"))
        .collect();
    let idx = ToolIndex::build(tools, IndexOptions::default()).unwrap();
    let pos: HashMap<u32, usize> = idx
        .store()
        .slots()
        .enumerate()
        .map(|(i, s)| (s, i))
        .collect();
    let hits = idx.score_all("words");
    let mut hits = hits;
    tool_index_core::index::top_k(&mut hits, 10);
    let order: Vec<usize> = hits.iter().map(|h| pos[&h.slot]).collect();
    let mut sorted = order.clone();
    sorted.sort_unstable();
    assert_eq!(order, sorted);
}

/// Regression (found by this suite, fixed in 50e7b00 / b72ea0a; was index.rs `refresh`: `self.opts.parallel_threshold * 8` overflows): a build with
/// `parallel_threshold: usize::MAX` ("never parallel") panics with "attempt to multiply with
/// overflow" in debug builds (wraps in release). Expected: builds; use `saturating_mul`.
#[test]
fn huge_parallel_threshold_does_not_overflow() {
    let opts = IndexOptions {
        parallel_threshold: usize::MAX,
    };
    let idx = ToolIndex::build(vec![ToolDoc::new("ls", "list files")], opts).unwrap();
    assert_eq!(idx.search("list files", 5, 0.0).len(), 1);
    let e = EnhancedIndex::build(
        vec![ToolDoc::new("ls", "list files")],
        Params::default(),
        usize::MAX,
    )
    .unwrap();
    assert_eq!(e.search("list files", 5, 0.0).len(), 1);
}

/// Regression (found by this suite, fixed in 50e7b00 / b72ea0a; was enhanced/mod.rs: `name_terms` / `deletes` are never pruned on remove): typo
/// corrections still come from the name vocabulary of removed tools, so after a removal the
/// results differ from a fresh build. Build [Schedule "make a plan", Planner "schedule meetings
/// and events"], remove Schedule, search "shedule": [Planner 0.226…] here, [] on a fresh build.
#[test]
fn enhanced_removed_names_do_not_drive_typo_corrections() {
    let schedule = ToolDoc::new("Schedule", "make a plan");
    let planner = ToolDoc::new("Planner", "schedule meetings and events");
    let mut inc =
        EnhancedIndex::build(vec![schedule, planner.clone()], Params::default(), 512).unwrap();
    inc.remove(&["Schedule"]);
    let fresh = EnhancedIndex::build(vec![planner], Params::default(), 512).unwrap();
    for q in ["shedule", "schedulx", "schedulxe meetings"] {
        assert_eq!(
            enhanced_result(&inc, &inc.search(q, 10, 0.0)),
            enhanced_result(&fresh, &fresh.search(q, 10, 0.0)),
            "{q}"
        );
    }
}

/// Regression (found by this suite, fixed in 50e7b00 / b72ea0a; was enhanced/mod.rs `corrections`: candidates are cut to 3 in vocabulary-id order, which
/// depends on the insertion history). Build [Baker, Caker, Laker, Maker], remove and re-add
/// Baker: "xaker" → Caker, Laker, Baker; a fresh build of [Caker, Laker, Maker, Baker] gives
/// Caker, Laker, Maker.
#[test]
fn enhanced_typo_candidates_do_not_depend_on_history() {
    let t = |n: &str| ToolDoc::new(n, format!("the {n} tool does things"));
    let mut inc = EnhancedIndex::build(
        vec![t("Baker"), t("Caker"), t("Laker"), t("Maker")],
        Params::default(),
        512,
    )
    .unwrap();
    inc.remove(&["Baker"]);
    inc.upsert(vec![t("Baker")]).unwrap();
    let fresh = EnhancedIndex::build(
        vec![t("Caker"), t("Laker"), t("Maker"), t("Baker")],
        Params::default(),
        512,
    )
    .unwrap();
    assert_eq!(
        enhanced_result(&inc, &inc.search("xaker", 10, 0.0)),
        enhanced_result(&fresh, &fresh.search("xaker", 10, 0.0))
    );
}

/// Regression (found by this suite, fixed in 50e7b00 / b72ea0a; was quadratic query-term dedup: `qterms.iter_mut().find` in index.rs `score_all` /
/// `explain`, `terms.iter_mut().find` in keyword.rs `parse_query`, `q.terms.iter_mut().find`
/// in enhanced/mod.rs `parse_query`): a query of n distinct words costs O(n²). Through the
/// binding a 1 MiB query of distinct words (~180k) takes 30–40 s per search; the 4 MiB cap
/// allows ~10 minutes. Expected: linear (a hash map), so 4× the words cost ≈4× the time.
#[test]
fn long_queries_of_distinct_words_scale_linearly() {
    let docs = vec![ToolDoc::new("a", "alpha w1 w2"), ToolDoc::new("b", "beta")];
    let c = ToolIndex::build(docs.clone(), IndexOptions::default()).unwrap();
    let e = EnhancedIndex::build(docs, Params::default(), 512).unwrap();
    let query = |n: usize| {
        (0..n)
            .map(|i| format!("w{i:x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let time = |f: &dyn Fn(&str), q: &str| {
        let t = std::time::Instant::now();
        f(q);
        t.elapsed().as_secs_f64()
    };
    let (small, big) = (query(5_000), query(40_000));
    type Check<'a> = (&'a str, &'a dyn Fn(&str));
    let checks: [Check; 3] = [
        ("compat search", &|q| drop(c.search(q, 5, 0.1))),
        ("keyword search", &|q| drop(keyword_search(&c, q, 5))),
        ("enhanced search", &|q| drop(e.search(q, 5, 0.0))),
    ];
    for (what, f) in checks {
        let (a, b) = (time(f, &small), time(f, &big));
        // 8× the words: linear ≈ 8×, quadratic ≈ 64×.
        assert!(
            b < a * 24.0 + 0.05,
            "{what}: 5k words {a:.3} s, 40k words {b:.3} s"
        );
    }
}

/// Soak (slow, Linux): 20,000 build/search/upsert/remove/drop cycles, compat and enhanced,
/// with RSS from /proc/self/statm; growth after the first quarter must stay under 5%.
/// `cargo test -p tool-index-core --release --test prop -- --ignored soak_rss`.
#[test]
#[cfg(target_os = "linux")]
#[ignore = "soak: slow; run explicitly (see RELIABILITY.md)"]
fn soak_rss_stays_flat_over_build_drop_cycles() {
    fn rss() -> f64 {
        let s = std::fs::read_to_string("/proc/self/statm").unwrap();
        s.split_whitespace().nth(1).unwrap().parse::<f64>().unwrap() * 4096.0
    }
    let words = [
        "create", "issue", "send", "message", "list", "files", "search", "schedule", "cron",
        "image", "pdf", "parse",
    ];
    let docs: Vec<ToolDoc> = (0..151)
        .map(|i| {
            let desc: Vec<&str> = (0..30)
                .map(|j| words[(i * 7 + j * 3) % words.len()])
                .collect();
            ToolDoc::new(format!("mcp__srv{}__tool_{i}", i % 8), desc.join(" "))
                .with_hint("widgets and things")
        })
        .collect();
    let queries = [
        "schedule a recurring prompt",
        "create a github issue",
        "sheduled prmopt",
        "+srv1 send",
        "server:srv2 list",
        "解析pdf文件",
    ];
    let cycles = 20_000usize;
    let mut base = 0.0;
    for i in 0..cycles {
        if i % 2 == 0 {
            let mut e = EnhancedIndex::build(docs.clone(), Params::default(), 512).unwrap();
            e.search(queries[i % queries.len()], 5, 0.0);
            e.upsert(vec![
                ToolDoc::new(format!("added{}", i % 7), "added tool"),
                docs[i % 151].clone(),
            ])
            .unwrap();
            e.remove(&[docs[(i + 3) % 151].name.clone()]);
            let _ = e.explain(queries[(i + 1) % queries.len()], &docs[(i + 5) % 151].name);
        } else {
            let mut c = ToolIndex::build(docs.clone(), IndexOptions::default()).unwrap();
            c.search(queries[i % queries.len()], 5, 0.1);
            let _ = keyword_search(&c, queries[(i + 1) % queries.len()], 5);
            c.upsert(vec![ToolDoc::new(format!("added{}", i % 7), "added tool")])
                .unwrap();
            c.remove(&[docs[(i + 3) % 151].name.clone()]);
        }
        if i + 1 == cycles / 4 {
            base = rss();
        }
    }
    let end = rss();
    let growth = (end - base) / base * 100.0;
    eprintln!(
        "soak: rss after warm-up {:.2} MB, end {:.2} MB, growth {growth:.2}%",
        base / 1048576.0,
        end / 1048576.0
    );
    assert!(growth < 5.0, "rss grew {growth:.2}%");
}

/// Regression (found by the `keyword_query` fuzz target, fixed in b72ea0a; was enhanced/mod.rs `parse_query`): `+_`, `+-`, `+__` normalize to the empty server
/// key, and when some tool has an empty server (`server: ""`, or a name like `mcp____x`) they
/// act as a server filter that returns only those tools, while `server:` with an empty name is
/// ignored. Found by the `keyword_query` fuzz target. Expected: an empty key is never a server.
#[test]
fn plus_underscore_is_not_a_server_filter() {
    let mut odd = ToolDoc::new("odd", "a tool with an empty server");
    odd.server = Some(String::new());
    let idx = EnhancedIndex::build(
        vec![odd, ToolDoc::new("mcp__slack__send", "send a message")],
        Params::default(),
        512,
    )
    .unwrap();
    for q in ["+_", "+-", "+__ send"] {
        assert!(
            idx.parse_query(q).servers.is_empty(),
            "{q:?} parsed as a server filter"
        );
    }
    assert_eq!(idx.parse_query("server:").servers, Vec::<String>::new());
}

/// Regression (found by this suite, fixed in 50e7b00 / b72ea0a; was enhanced/mod.rs `search_parsed`, the server-only path): a query that names the same
/// server twice (`+slack server:slack`, `server:slack server:slack`, `+slack +slack`) lists each
/// of that server's tools twice. Found by the `keyword_query` fuzz target. Expected: each tool
/// once (dedup `q.servers`).
#[test]
fn repeated_server_filter_lists_each_tool_once() {
    let idx = EnhancedIndex::build(
        vec![
            ToolDoc::new("mcp__slack__send_message", "Send a message"),
            ToolDoc::new("mcp__github__create_issue", "Create an issue"),
        ],
        Params::default(),
        512,
    )
    .unwrap();
    for q in [
        "+slack server:slack",
        "server:slack server:slack",
        "+slack +slack",
    ] {
        assert_eq!(
            enhanced_result(&idx, &idx.search(q, 10, 0.0)).len(),
            1,
            "{q}"
        );
    }
}
