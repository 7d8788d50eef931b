//! The ToolSearch ranking (SPEC §6): the keyword scorer's list and the compat TF-IDF
//! search merged. This module owns the combination; the keyword postings ([`crate::keyword`])
//! and the TF-IDF index ([`crate::index`]) know nothing of each other or of it.

use crate::collector::Hit;
use crate::index::ToolIndex;
use crate::keyword::{keyword_outcome, parse_query, KeywordSource};
use crate::text::js_lower;

/// Weights of the ToolSearch merge.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MergeWeights {
    pub keyword: f64,
    pub tfidf: f64,
}

impl Default for MergeWeights {
    /// The reference's defaults: 0.4 keyword, 0.6 TF-IDF.
    fn default() -> Self {
        Self {
            keyword: 0.4,
            tfidf: 0.6,
        }
    }
}

/// One merged ToolSearch result.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankedHit {
    /// The tool's slot; `None` only for a tool that is not indexed: the `exact_outside` tool
    /// of [`tool_search_rank`], or a name of the caller's list in [`tool_search_rank_listed`].
    pub slot: Option<u32>,
    /// For a tool that is not indexed: its position in the caller's list of names (0 for
    /// `exact_outside`).
    pub outside: Option<u32>,
    /// Merged score.
    pub score: f64,
    /// 0-based rank in the keyword list, if the keyword search found it.
    pub keyword_rank: Option<u32>,
    /// Unweighted TF-IDF score, if the TF-IDF search found it.
    pub tfidf_score: Option<f64>,
}

impl RankedHit {
    /// The tool's name: the indexed tool's, or `exact_outside` for the slot-less hit.
    pub fn name<'a>(
        &self,
        index: &'a ToolIndex,
        exact_outside: Option<&'a str>,
    ) -> Option<&'a str> {
        match self.slot {
            Some(s) => index.doc(s).map(|d| d.name.as_str()),
            None => exact_outside,
        }
    }
}

/// The ToolSearch ranking: keyword search and TF-IDF search (`index.search(query,
/// max_results, min_score)`) merged. A keyword hit at 0-based rank r of n scores
/// `(n − r)/n × weights.keyword`, a TF-IDF hit `score × weights.tfidf`; summed per tool,
/// sorted descending (stable: keyword hits in rank order, then TF-IDF-only hits in rank
/// order), first `max_results`.
///
/// `exact_outside` is a tool that is not indexed (a core tool, say) whose name the host
/// found equal to the query: when no indexed tool's lowercased name equals the trimmed,
/// lowercased query and this name's does, the keyword list is that one tool (the reference
/// looks in the deferred tools first, then in all tools). It is ignored otherwise.
pub fn tool_search_rank(
    index: &ToolIndex,
    query: &str,
    max_results: usize,
    weights: MergeWeights,
    min_score: f64,
    exact_outside: Option<&str>,
) -> Vec<RankedHit> {
    let parsed = parse_query(query);
    let indexed_exact = index.keyword_index().exact(&parsed.normalized).is_some();
    let keyword: Vec<Option<u32>> =
        if !indexed_exact && exact_outside.is_some_and(|n| js_lower(n) == parsed.normalized) {
            vec![None]
        } else {
            keyword_outcome(index, &parsed, max_results)
                .slots()
                .into_iter()
                .map(Some)
                .collect()
        };
    let tfidf = index.search(query, max_results, min_score);
    merge(&keyword, &tfidf, max_results, weights)
}

/// [`tool_search_rank`] with the keyword half made by the caller: `keyword` is its list of
/// tools, best first (the first `max_results` are kept, each name once). A name no indexed
/// tool has, and `None` (a tool the caller knows is not indexed, whatever its name), is merged
/// as given, by its place in the list: a host that runs the keyword rules over tools it does
/// not index (claude-code-best scores its already-loaded tools too) passes the merged list
/// here, and the weighting and the TF-IDF half stay this module's.
pub fn tool_search_rank_listed(
    index: &ToolIndex,
    query: &str,
    keyword: &[Option<&str>],
    max_results: usize,
    weights: MergeWeights,
    min_score: f64,
) -> Vec<RankedHit> {
    let mut seen: rustc_hash::FxHashSet<&str> = rustc_hash::FxHashSet::default();
    let entries: Vec<Entry> = keyword
        .iter()
        .enumerate()
        .filter(|(_, n)| n.is_none_or(|n| seen.insert(n)))
        .take(max_results)
        .map(|(i, n)| match n.and_then(|n| index.store().slot_of(n)) {
            Some(slot) => Entry::Slot(slot),
            None => Entry::Outside(i as u32),
        })
        .collect();
    let tfidf = index.search(query, max_results, min_score);
    merge_entries(&entries, &tfidf, max_results, weights)
}

/// One place of the keyword list: an indexed tool, or a name the caller gave (its position).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Entry {
    Slot(u32),
    Outside(u32),
}

/// The merge step of [`tool_search_rank`] on ready lists (`None` = the slot-less tool).
pub fn merge(
    keyword: &[Option<u32>],
    tfidf: &[Hit],
    max_results: usize,
    weights: MergeWeights,
) -> Vec<RankedHit> {
    let entries: Vec<Entry> = keyword
        .iter()
        .map(|s| s.map_or(Entry::Outside(0), Entry::Slot))
        .collect();
    merge_entries(&entries, tfidf, max_results, weights)
}

fn merge_entries(
    keyword: &[Entry],
    tfidf: &[Hit],
    max_results: usize,
    weights: MergeWeights,
) -> Vec<RankedHit> {
    let n = keyword.len();
    let mut merged: Vec<RankedHit> = Vec::with_capacity(n + tfidf.len());
    for (r, &entry) in keyword.iter().enumerate() {
        let (slot, outside) = match entry {
            Entry::Slot(s) => (Some(s), None),
            Entry::Outside(i) => (None, Some(i)),
        };
        merged.push(RankedHit {
            slot,
            outside,
            score: ((n - r) as f64 / n as f64) * weights.keyword,
            keyword_rank: Some(r as u32),
            tfidf_score: None,
        });
    }
    for h in tfidf {
        let add = h.score * weights.tfidf;
        match merged[..n].iter_mut().find(|m| m.slot == Some(h.slot)) {
            Some(m) => {
                m.score += add;
                m.tfidf_score = Some(h.score);
            }
            None => merged.push(RankedHit {
                slot: Some(h.slot),
                outside: None,
                score: add,
                keyword_rank: None,
                tfidf_score: Some(h.score),
            }),
        }
    }
    // JS `sort((a, b) => b.score - a.score)` is stable and treats ±0 as equal; NaN (only
    // from NaN weights) goes last so the order stays total.
    let key = |s: f64| {
        if s.is_nan() {
            f64::NEG_INFINITY
        } else if s == 0.0 {
            0.0
        } else {
            s
        }
    };
    merged.sort_by(|a, b| key(b.score).total_cmp(&key(a.score)));
    merged.truncate(max_results);
    merged
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{IndexOptions, ToolDoc};
    use crate::keyword::keyword_search;
    use crate::name::{parse_tool_name, ParsedName};
    use crate::text::{contains_word_bounded, js_split_whitespace, js_trim};

    /// The reference's `searchToolsWithKeywords`, transliterated (deferred = all = the index).
    /// Exact / prefix hits get `f64::INFINITY`, like [`keyword_search`].
    fn naive(index: &ToolIndex, query: &str, max: usize) -> Vec<(String, f64)> {
        let docs: Vec<(&crate::index::Doc, ParsedName)> = index
            .store()
            .slots()
            .map(|s| index.doc(s).unwrap())
            .map(|d| (d, parse_tool_name(&d.name)))
            .collect();
        naive_on(&docs, &mut Memo::default(), query, max)
    }

    /// Per term, per tool: the literal tests `[part equal, inside a part, full contains,
    /// hint \bterm\b, description \bterm\b]` (memoized only to keep the test fast).
    type Memo = std::collections::HashMap<String, Vec<[bool; 5]>>;

    fn facts<'m>(
        docs: &[(&crate::index::Doc, ParsedName)],
        memo: &'m mut Memo,
        t: &str,
    ) -> &'m [[bool; 5]] {
        memo.entry(t.to_owned()).or_insert_with(|| {
            docs.iter()
                .map(|(d, parsed)| {
                    let hint = &*d.hint_lower;
                    [
                        parsed.parts().any(|p| p == t),
                        parsed.parts().any(|p| p.contains(t)),
                        parsed.full.contains(t),
                        !hint.is_empty() && contains_word_bounded(hint, t),
                        contains_word_bounded(&d.desc_lower, t),
                    ]
                })
                .collect()
        })
    }

    fn naive_on(
        docs: &[(&crate::index::Doc, ParsedName)],
        memo: &mut Memo,
        query: &str,
        max: usize,
    ) -> Vec<(String, f64)> {
        let q = js_trim(&js_lower(query)).to_owned();
        if let Some((d, _)) = docs.iter().find(|(d, _)| js_lower(&d.name) == q) {
            return vec![(d.name.clone(), f64::INFINITY)];
        }
        if q.starts_with("mcp__") && q.encode_utf16().count() > 5 {
            let m: Vec<(String, f64)> = docs
                .iter()
                .filter(|(d, _)| js_lower(&d.name).starts_with(&q))
                .take(max)
                .map(|(d, _)| (d.name.clone(), f64::INFINITY))
                .collect();
            if !m.is_empty() {
                return m;
            }
        }
        let terms: Vec<&str> = js_split_whitespace(&q)
            .into_iter()
            .filter(|t| !t.is_empty())
            .collect();
        let mut required = Vec::new();
        let mut optional = Vec::new();
        for &t in &terms {
            if t.starts_with('+') && t.encode_utf16().count() > 1 {
                required.push(&t[1..]);
            } else {
                optional.push(t);
            }
        }
        let scoring: Vec<&str> = if required.is_empty() {
            terms.clone()
        } else {
            required.iter().chain(&optional).copied().collect()
        };
        for t in &scoring {
            facts(docs, memo, t);
        }
        let memo = &*memo;
        let mut scored: Vec<(String, f64)> = Vec::new();
        for (i, (d, parsed)) in docs.iter().enumerate() {
            let f = |t: &str| memo[t][i];
            // parts.includes || parts.some(includes) || desc \b || (hint non-empty && hint \b)
            let ok = required.iter().all(|t| {
                let [eq, inside, _, hint, desc] = f(t);
                eq || inside || desc || hint
            });
            if !ok {
                continue;
            }
            let mut score = 0u32;
            for t in &scoring {
                let [eq, inside, full, hint, desc] = f(t);
                if eq {
                    score += if parsed.is_mcp { 12 } else { 10 };
                } else if inside {
                    score += if parsed.is_mcp { 6 } else { 5 };
                }
                if score == 0 && full {
                    score += 3;
                }
                if hint {
                    score += 4;
                }
                if desc {
                    score += 2;
                }
            }
            if score > 0 {
                scored.push((d.name.clone(), score as f64));
            }
        }
        scored.sort_by(|a, b| b.1.total_cmp(&a.1));
        scored.truncate(max);
        scored
    }

    fn fast(index: &ToolIndex, query: &str, max: usize) -> Vec<(String, f64)> {
        keyword_search(index, query, max)
            .into_iter()
            .map(|h| (index.doc(h.slot).unwrap().name.clone(), h.score))
            .collect()
    }

    fn extras() -> Vec<ToolDoc> {
        vec![
            ToolDoc::new(
                "NotebookEditTool",
                "Edit a Jupyter notebook cell; c++ and x$10 and e.g. file.txt",
            )
            .with_hint("notebook editing, c++x, ++x"),
            ToolDoc::new(
                "CronCreate",
                "Schedule a prompt to run later or on a recurring cron schedule",
            )
            .with_hint("schedule a recurring or one-shot prompt"),
            ToolDoc::new(
                "HTTPServer",
                "Serve files over HTTP: 'aapl' quotes, résumé parsing, 文件file",
            ),
            ToolDoc::new("mcp__a___b", "weird separators __ and _x_ and a+b"),
            ToolDoc::new(
                "mcp__Upper__CASE_Tool",
                "Upper-case MCP name; KELVIN \u{212A} sign",
            )
            .with_hint(""),
            ToolDoc::new("MCP__not_mcp", "case-sensitive prefix"),
            ToolDoc::new("mcp__uni__café_résumé", "unicode parts ǅ Σ ΣΑΣ")
                .with_hint("Unicode hint: naïve—test"),
            ToolDoc::new(
                "snake_case_name",
                "a snake case tool with c++ code and $10 fees ($10)",
            ),
            ToolDoc::new("ls", "List files in a directory"),
            ToolDoc::new(
                "mcp__github__create_issue",
                "dup-ish of a catalog name? no: create a GitHub issue",
            ),
        ]
    }

    /// The vendored parity catalog (or `TOOL_INDEX_PARITY`), or `None` when it is absent.
    fn catalog_index() -> Option<(ToolIndex, serde_json::Value)> {
        let path = std::env::var("TOOL_INDEX_PARITY")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|_| {
                std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join("../../__test__/fixtures/parity/reference-vectors.json")
            });
        let Ok(text) = std::fs::read_to_string(&path) else {
            assert!(
                std::env::var("TOOL_INDEX_REQUIRE_PARITY").as_deref() != Ok("1"),
                "parity vectors required but missing at {}",
                path.display()
            );
            eprintln!("skipped: no parity vectors at {}", path.display());
            return None;
        };
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let mut tools: Vec<ToolDoc> = v["catalog"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| ToolDoc {
                name: t["name"].as_str().unwrap().to_owned(),
                description: t["description"].as_str().unwrap_or("").to_owned(),
                search_hint: t["searchHint"].as_str().map(str::to_owned),
                ..ToolDoc::default()
            })
            .collect();
        let have: std::collections::HashSet<String> =
            tools.iter().map(|t| t.name.clone()).collect();
        tools.extend(extras().into_iter().filter(|t| !have.contains(&t.name)));
        Some((ToolIndex::build(tools, IndexOptions::default()).unwrap(), v))
    }

    const TRICKY: &[&str] = &[
        "c++",
        "'aapl'",
        "$10",
        "+",
        "++x",
        "mcp__",
        "mcp__github",
        "",
        "   ",
        "+github",
        "+file",
        "+file +read",
        "+zzzz file",
        "+",
        "+ +",
        "++",
        "file file file",
        "+file file",
        "résumé",
        "é",
        "文件",
        "文件file",
        "naïve—test",
        "k",
        "\u{212A}",
        "e.g.",
        "e.g",
        "file.txt",
        "a+b",
        "_x_",
        "_",
        "__",
        "a",
        "a b c",
        "mcp__github__create_issue",
        "MCP__GITHUB",
        "mcp__a",
        "mcp__a___b",
        "mcp__zz",
        "notebookedittool",
        "NotebookEditTool",
        "  NotebookEditTool  ",
        "notebook",
        "edit",
        "http",
        "httpserver",
        "cron create",
        "+cron +create schedule",
        "ls",
        "l",
        "σ",
        "ς",
        "ΣΑΣ",
        "ǆ",
        "(x)",
        "($10)",
        "-",
        "--",
        "'",
        "''",
        "\"json\"",
        "json,",
        "github.",
        "+github. issue",
        "create-issue",
        "create_issue",
        "github create issue",
        "x$10",
        "sign",
        "\u{FEFF}file\u{3000}read\u{85}",
        "mcp__uni__café",
        "café",
        "+café",
        "up",
        "upper-case",
        "per",
        "issue issue +issue",
    ];

    #[test]
    fn fast_path_equals_literal_algorithm() {
        let Some((index, v)) = catalog_index() else {
            return;
        };
        let mut queries: Vec<String> = TRICKY.iter().map(|s| s.to_string()).collect();
        for c in v["keyword"].as_array().unwrap() {
            queries.push(c["query"].as_str().unwrap().to_owned());
        }
        // Required-term variants of the vector queries.
        let base = queries.clone();
        for (i, q) in base.iter().enumerate() {
            let plus: Vec<String> = q
                .split(' ')
                .enumerate()
                .map(|(j, t)| {
                    if (i + j) % 3 == 0 {
                        format!("+{t}")
                    } else {
                        t.to_owned()
                    }
                })
                .collect();
            queries.push(plus.join(" "));
        }
        // Random queries over the catalog's own words, parts, fragments and punctuation.
        let mut pool: Vec<String> = Vec::new();
        for s in index.store().slots().step_by(7) {
            let d = index.doc(s).unwrap();
            pool.extend(d.desc_lower.split_whitespace().take(12).map(str::to_owned));
            pool.extend(d.parsed.parts().map(str::to_owned));
            if let Some(p) = d.parsed.parts().last() {
                let cut: String = p.chars().skip(1).take(3).collect();
                pool.push(cut);
            }
        }
        pool.extend(TRICKY.iter().map(|s| s.to_string()));
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut rnd = |n: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as usize) % n
        };
        for _ in 0..1500 {
            let k = 1 + rnd(5);
            let mut q = Vec::new();
            for _ in 0..k {
                let mut t = pool[rnd(pool.len())].clone();
                match rnd(8) {
                    0 => t = format!("+{t}"),
                    1 => t.push_str([",", ".", "'", "+", ")", "é"][rnd(6)]),
                    2 => t.insert_str(0, ["'", "(", "$", "-", "文"][rnd(5)]),
                    _ => {}
                }
                q.push(t);
            }
            queries.push(q.join(" "));
        }
        let docs: Vec<(&crate::index::Doc, ParsedName)> = index
            .store()
            .slots()
            .map(|s| index.doc(s).unwrap())
            .map(|d| (d, parse_tool_name(&d.name)))
            .collect();
        let mut memo = Memo::default();
        for q in &queries {
            // The literal list for a large limit; smaller limits cut it (the exact path
            // ignores the limit, every other path yields nothing at limit 0).
            let full = naive_on(&docs, &mut memo, q, 40);
            for max in [0, 1, 3, 10, 40] {
                let want: Vec<(String, f64)> = if full.len() == 1
                    && full[0].1 == f64::INFINITY
                    && parse_query(q).normalized == js_lower(&full[0].0)
                {
                    full.clone()
                } else {
                    full.iter().take(max).cloned().collect()
                };
                assert_eq!(fast(&index, q, max), want, "query {q:?} max {max}");
            }
        }
        assert!(queries.len() > 2000);
    }

    #[test]
    fn parse_query_rules() {
        let q = parse_query("  +Foo bar +  foo +bar baz\u{3000}+ ");
        assert_eq!(q.normalized, "+foo bar +  foo +bar baz\u{3000}+");
        let got: Vec<(&str, u32, bool)> = q
            .terms
            .iter()
            .map(|t| (t.text.as_str(), t.weight, t.required))
            .collect();
        assert_eq!(
            got,
            vec![
                ("foo", 2, true),
                ("bar", 2, true),
                ("+", 2, false),
                ("baz", 1, false)
            ]
        );
        assert_eq!(q.required, 2);
        assert!(parse_query("MCP__x").wants_prefix());
        assert!(!parse_query("mcp__").wants_prefix());
        assert!(parse_query(" \u{FEFF} ").terms.is_empty());
    }

    #[test]
    fn updates_keep_the_keyword_postings_exact() {
        let mut idx = ToolIndex::build(extras(), IndexOptions::default()).unwrap();
        assert_eq!(fast(&idx, "notebook", 5)[0].0, "NotebookEditTool");
        idx.remove(&["NotebookEditTool"]);
        idx.upsert(vec![ToolDoc::new("ls", "notebook viewer")])
            .unwrap();
        let mut expect: Vec<ToolDoc> = extras()
            .into_iter()
            .filter(|t| t.name != "NotebookEditTool")
            .collect();
        let at = expect.iter().position(|t| t.name == "ls").unwrap();
        expect[at] = ToolDoc::new("ls", "notebook viewer");
        let fresh = ToolIndex::build(expect, IndexOptions::default()).unwrap();
        for q in [
            "notebook",
            "c++",
            "ls",
            "+notebook viewer",
            "mcp__a",
            "file",
        ] {
            assert_eq!(fast(&idx, q, 10), fast(&fresh, q, 10), "{q}");
            assert_eq!(fast(&idx, q, 10), naive(&idx, q, 10), "{q}");
        }
    }

    #[test]
    fn a_listed_keyword_half_merges_outside_names_and_keeps_the_weighting() {
        use crate::keyword::{keyword_outcome, keyword_terms, parse_query, KeywordPath};
        let idx = ToolIndex::build(extras(), IndexOptions::default()).unwrap();
        let w = MergeWeights::default();
        // The list the index would make itself gives the same ranking as the index alone.
        for q in [
            "schedule a recurring prompt",
            "notebook",
            "mcp__a",
            "+notebook cell",
        ] {
            let own: Vec<String> = keyword_search(&idx, q, 5)
                .iter()
                .map(|h| idx.doc(h.slot).unwrap().name.clone())
                .collect();
            let own: Vec<Option<&str>> = own.iter().map(|n| Some(n.as_str())).collect();
            assert_eq!(
                tool_search_rank_listed(&idx, q, &own, 5, w, 0.1),
                tool_search_rank(&idx, q, 5, w, 0.1, None),
                "{q}"
            );
        }
        // Names no tool has keep their place in the list; repeats count once; the list is cut to max.
        let r = tool_search_rank_listed(
            &idx,
            "schedule a recurring prompt",
            &[
                Some("Terminal"),
                Some("CronCreate"),
                Some("Terminal"),
                Some("TerminalRead"),
                Some("Bash"),
            ],
            3,
            w,
            0.1,
        );
        let places: Vec<(Option<u32>, Option<u32>, Option<u32>)> = r
            .iter()
            .map(|h| (h.slot, h.outside, h.keyword_rank))
            .collect();
        let cron = idx.store().slot_of("CronCreate");
        assert_eq!(r.len(), 3);
        // CronCreate: keyword rank 1 of 3 (0.4 × 2/3) plus its TF-IDF share, first.
        assert_eq!(places[0], (cron, None, Some(1)));
        assert!(r[0].tfidf_score.is_some());
        assert_eq!(places[1], (None, Some(0), Some(0)));
        assert_eq!(places[2], (None, Some(3), Some(2)));
        assert!((r[2].score - 0.4 / 3.0).abs() < 1e-12);
        // `None` is a tool outside the index even where a name would have matched: each keeps
        // its place (no repeat check), and none takes an indexed tool's slot.
        let r = tool_search_rank_listed(
            &idx,
            "schedule a recurring prompt",
            &[None, None, Some("CronCreate")],
            5,
            w,
            0.1,
        );
        let places: Vec<(Option<u32>, Option<u32>, Option<u32>)> = r
            .iter()
            .map(|h| (h.slot, h.outside, h.keyword_rank))
            .collect();
        assert!(places.contains(&(None, Some(0), Some(0))));
        assert!(places.contains(&(None, Some(1), Some(1))));
        assert!(places.contains(&(cron, None, Some(2))));
        assert!(tool_search_rank_listed(&idx, "x", &[], 5, w, 0.1)
            .iter()
            .all(|h| h.keyword_rank.is_none()));

        // Paths, and the scoring path alone.
        let path = |q: &str| {
            let p = parse_query(q);
            keyword_outcome(&idx, &p, 5).path(&p)
        };
        assert_eq!(path("croncreate"), KeywordPath::Exact);
        assert_eq!(path("mcp__uni"), KeywordPath::Prefix);
        assert_eq!(path("+notebook cell"), KeywordPath::Required);
        assert_eq!(path("notebook cell"), KeywordPath::Terms);
        assert_eq!(path("mcp__nothing here"), KeywordPath::Terms);
        let p = parse_query("croncreate");
        assert!(keyword_terms(&idx, &p, 5).is_empty());
        let p = parse_query("mcp__uni");
        assert!(keyword_terms(&idx, &p, 5).is_empty());
        let p = parse_query("schedule cron");
        let terms = keyword_terms(&idx, &p, 5);
        assert_eq!(terms, keyword_search(&idx, "schedule cron", 5));
        assert!(keyword_terms(&idx, &p, 0).is_empty());
    }

    #[test]
    fn merge_order_and_exact_outside() {
        let idx = ToolIndex::build(extras(), IndexOptions::default()).unwrap();
        // A core tool named like the query: the keyword list is that one slot-less tool.
        let r = tool_search_rank(
            &idx,
            " Bash ",
            5,
            MergeWeights::default(),
            0.1,
            Some("Bash"),
        );
        assert_eq!(r[0].slot, None);
        assert_eq!(r[0].keyword_rank, Some(0));
        assert!((r[0].score - 0.4).abs() < 1e-12);
        assert_eq!(r[0].name(&idx, Some("Bash")), Some("Bash"));
        // Ignored when it does not equal the query, or when an indexed tool does.
        let r = tool_search_rank(&idx, "bash", 5, MergeWeights::default(), 0.1, Some("Grep"));
        assert!(r.iter().all(|h| h.slot.is_some()));
        let r = tool_search_rank(&idx, "ls", 5, MergeWeights::default(), 0.1, Some("LS"));
        assert_eq!(r[0].name(&idx, None), Some("ls"));
        // Ties: keyword hits in rank order first, then TF-IDF-only hits.
        let m = merge(
            &[Some(4), Some(2)],
            &[
                Hit {
                    slot: 7,
                    score: 1.0,
                },
                Hit {
                    slot: 2,
                    score: 0.5,
                },
            ],
            5,
            MergeWeights {
                keyword: 0.5,
                tfidf: 0.5,
            },
        );
        let got: Vec<(Option<u32>, f64)> = m.iter().map(|h| (h.slot, h.score)).collect();
        assert_eq!(got, vec![(Some(4), 0.5), (Some(2), 0.5), (Some(7), 0.5)]);
        assert_eq!(m[1].keyword_rank, Some(1));
        assert_eq!(m[1].tfidf_score, Some(0.5));
        assert!(merge(&[Some(1)], &[], 0, MergeWeights::default()).is_empty());
    }
}
