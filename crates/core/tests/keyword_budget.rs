//! The keyword half of ToolSearch checks where a punctuated term (`a.b`) stands as a whole word
//! by reading the tool's text; one query reads at most `VERIFY_BUDGET` bytes of it.

use std::time::Instant;

use tool_index_core::keyword::{keyword_search, VERIFY_BUDGET};
use tool_index_core::{IndexOptions, ToolDoc, ToolIndex};

fn tool(name: &str, description: String) -> ToolDoc {
    ToolDoc::new(name, description)
}

#[test]
fn punctuated_terms_are_checked_as_whole_words_within_the_budget() {
    let index = ToolIndex::build(
        vec![
            tool("a_tool", "reads node.js config files".into()),
            tool("b_tool", "reads nodexjs files and node js docs".into()),
        ],
        IndexOptions::default(),
    )
    .unwrap();
    let names = |q: &str| -> Vec<String> {
        keyword_search(&index, q, 5)
            .iter()
            .map(|h| index.doc(h.slot).unwrap().name.clone())
            .collect()
    };
    assert_eq!(names("node.js"), ["a_tool"]);
}

#[test]
fn many_punctuated_terms_over_a_long_description_stay_bounded() {
    // 20,000 distinct `wA.wB` terms whose words all occur in one 2 MiB description: each check
    // read the whole description (8.6 s from JavaScript before the budget).
    let words: Vec<String> = (0..20_000).map(|i| format!("w{i}")).collect();
    let mut description = words.join(" ");
    while description.len() < 2 << 20 {
        description.push_str(" filler text about files");
    }
    let index = ToolIndex::build(
        vec![tool("mcp__big__tool", description.clone())],
        IndexOptions::default(),
    )
    .unwrap();
    let query: Vec<String> = (0..20_000)
        .map(|i| format!("w{i}.w{}", (i + 1) % 20_000))
        .collect();
    let t0 = Instant::now();
    let hits = keyword_search(&index, &query.join(" "), 5);
    let took = t0.elapsed();
    // Past the budget the terms count where their words are: the tool is found.
    assert_eq!(hits.len(), 1);
    // The text read is bounded by the budget, about 128 checks of this description.
    assert!(VERIFY_BUDGET / description.len() < 200);
    eprintln!("20,000 punctuated terms over a 2 MiB description: {took:?}");
}
