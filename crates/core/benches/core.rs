//! Core micro-benchmarks (divan): tokenizing, building (parallel vs serial), searching and
//! incremental update, at 1k / 10k / 100k tools. `cargo bench -p tool-index-core`.
//!
//! The catalog is the real ETOM tools (`$TOOL_INDEX_BENCH_DATA/etom/tools.json`, the folder of
//! the public retrieval sets) repeated under distinct server names up to the
//! size; without the data it falls back to generated text. The JS-level suite is `bench/run.mjs`.

use std::sync::OnceLock;

use divan::{black_box, Bencher};
use tool_index_core::{tokenize_and_stem, IndexOptions, ToolDoc, ToolIndex};

fn main() {
    divan::main();
}

const SIZES: [usize; 3] = [1_000, 10_000, 100_000];

const QUERIES: [&str; 6] = [
    "create a github issue",
    "On Binance, get the current price of BTCUSDT",
    "send a message to a slack channel",
    "list heroku apps",
    "Can I find academic research papers on this topic?",
    "search files by content and rename them",
];

/// Real (name, description) pairs, or generated ones when the data is absent.
fn real_tools() -> &'static Vec<(String, String)> {
    static TOOLS: OnceLock<Vec<(String, String)>> = OnceLock::new();
    TOOLS.get_or_init(|| {
        let dir = std::env::var("TOOL_INDEX_BENCH_DATA").unwrap_or_default();
        let parsed = (!dir.is_empty())
            .then(|| std::fs::read_to_string(format!("{dir}/etom/tools.json")).ok())
            .flatten()
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok());
        if let Some(serde_json::Value::Array(items)) = parsed {
            let tools: Vec<(String, String)> = items
                .iter()
                .filter_map(|t| {
                    let name = t
                        .get("tool_name")
                        .or_else(|| t.get("name"))?
                        .as_str()?
                        .to_owned();
                    let desc = t
                        .get("description")
                        .and_then(|d| d.as_str())
                        .unwrap_or("")
                        .to_owned();
                    Some((name, desc))
                })
                .collect();
            if !tools.is_empty() {
                return tools;
            }
        }
        // Fallback: deterministic generated text.
        eprintln!(
            "benches: no ETOM tools at $TOOL_INDEX_BENCH_DATA/etom/tools.json ({dir:?}; set it to a \
             bench-data folder); timing generated text instead"
        );
        const WORDS: [&str; 24] = [
            "create",
            "list",
            "get",
            "update",
            "delete",
            "search",
            "file",
            "issue",
            "message",
            "channel",
            "repository",
            "price",
            "order",
            "user",
            "project",
            "document",
            "query",
            "database",
            "image",
            "report",
            "calendar",
            "event",
            "task",
            "record",
        ];
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            WORDS[(x % WORDS.len() as u64) as usize]
        };
        (0..2_000)
            .map(|_| {
                let name = format!("{}_{}", next(), next());
                let desc = (0..16).map(|_| next()).collect::<Vec<_>>().join(" ");
                (name, desc)
            })
            .collect()
    })
}

fn catalog(n: usize) -> Vec<ToolDoc> {
    let real = real_tools();
    (0..n)
        .map(|i| {
            let (tool, desc) = &real[i % real.len()];
            ToolDoc::new(
                format!("mcp__srv{}__{}_{}", i / real.len(), tool, i),
                desc.clone(),
            )
        })
        .collect()
}

fn server(k: usize) -> Vec<ToolDoc> {
    let real = real_tools();
    (0..20)
        .map(|j| {
            let (tool, desc) = &real[(k * 20 + j) % real.len()];
            ToolDoc::new(format!("mcp__newserver{k}__{tool}_{j}"), desc.clone())
        })
        .collect()
}

fn serial() -> IndexOptions {
    IndexOptions {
        parallel_threshold: usize::MAX,
    }
}

#[divan::bench]
fn tokenize_description(b: Bencher) {
    let text = real_tools()[0].1.clone();
    b.bench(|| tokenize_and_stem(black_box(&text)));
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn build(b: Bencher, n: usize) {
    b.with_inputs(|| catalog(n))
        .bench_values(|docs| ToolIndex::build(docs, IndexOptions::default()).unwrap());
}

#[divan::bench(args = SIZES, sample_count = 10, sample_size = 1)]
fn build_serial(b: Bencher, n: usize) {
    b.with_inputs(|| catalog(n))
        .bench_values(|docs| ToolIndex::build(docs, serial()).unwrap());
}

#[divan::bench(args = SIZES)]
fn search(b: Bencher, n: usize) {
    let index = ToolIndex::build(catalog(n), IndexOptions::default()).unwrap();
    let mut i = 0;
    b.bench_local(|| {
        i = (i + 1) % QUERIES.len();
        index.search(black_box(QUERIES[i]), 5, 0.1)
    });
}

/// Add one 20-tool MCP server to a 10k index, then remove it (one cycle).
#[divan::bench(sample_count = 50)]
fn upsert_remove_20_into_10k(b: Bencher) {
    let mut index = ToolIndex::build(catalog(10_000), IndexOptions::default()).unwrap();
    let servers: Vec<Vec<ToolDoc>> = (0..8).map(server).collect();
    let names: Vec<Vec<String>> = servers
        .iter()
        .map(|s| s.iter().map(|d| d.name.clone()).collect())
        .collect();
    let mut k = 0;
    b.bench_local(|| {
        k = (k + 1) % servers.len();
        index.upsert(servers[k].clone()).unwrap();
        index.remove(&names[k])
    });
}

/// The rebuild that an upsert replaces: 10,020 tools from scratch.
#[divan::bench(sample_count = 10, sample_size = 1)]
fn rebuild_10k_plus_20(b: Bencher) {
    b.with_inputs(|| {
        let mut docs = catalog(10_000);
        docs.extend(server(0));
        docs
    })
    .bench_values(|docs| ToolIndex::build(docs, IndexOptions::default()).unwrap());
}
