//! Query cost of compat and enhanced search on the same requests, for timing and for
//! instruction counts (which a shared machine does not blur).
//!
//! ```sh
//! node bench/dump-queries.mjs /tmp/sets.json                 # the quality sets, dev split
//! node bench/dump-catalog.mjs /tmp/catalogs 10k              # or a benchmark catalog
//! cargo build --profile profiling -p tool-index-core --example query_cost   # release, with symbols
//! Q=target/profiling/examples/query_cost
//! $Q sets /tmp/sets.json                                     # µs a query, per set
//! $Q catalog /tmp/catalogs/catalog-10000.json /tmp/catalogs/queries.json
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!   --toggle-collect='tool_index_core::enhanced::EnhancedIndex::search' $Q sets /tmp/sets.json enhanced
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null \
//!   --toggle-collect='tool_index_core::index::ToolIndex::search' $Q sets /tmp/sets.json compat
//! ```
//!
//! The last argument picks what runs: `both` (the default) times every query of every set
//! through both engines (top 5, threshold 0) and prints µs per query and the ratio;
//! `compat` or `enhanced` runs each query once through that engine only (divide the
//! instruction count by the number of queries it prints); `compat-shown` runs compat at the
//! reference's display threshold (what the drop-in and ToolSearch run); `dump` prints each
//! query's enhanced top 5 (names and scores to 1e-9) and `dump-compat` compat's at thresholds
//! 0.1 and 0 (to 1e-12), so two builds can be checked for identical rankings. Nothing is
//! asserted.

use std::time::Instant;

use tool_index_core::enhanced::{EnhancedIndex, Params};
use tool_index_core::index::DEFAULT_MIN_SCORE;
use tool_index_core::{IndexOptions, ToolDoc, ToolIndex};

mod common;

use common::{queries_of, read_json, tools_of};

/// One set of requests over one catalog, with both indexes built.
struct Set {
    id: String,
    compat: std::rc::Rc<ToolIndex>,
    enhanced: std::rc::Rc<EnhancedIndex>,
    queries: Vec<String>,
}

fn build(tools: Vec<ToolDoc>) -> (std::rc::Rc<ToolIndex>, std::rc::Rc<EnhancedIndex>) {
    let compat = ToolIndex::build(tools.clone(), IndexOptions::default()).expect("unique names");
    let enhanced = EnhancedIndex::build(tools, Params::default(), 512).expect("unique names");
    (std::rc::Rc::new(compat), std::rc::Rc::new(enhanced))
}

fn load(args: &[String]) -> (Vec<Set>, &str) {
    match args {
        [kind, sets, rest @ ..] if kind == "sets" => {
            let v = read_json(sets);
            let mut built = std::collections::HashMap::new();
            for (id, tools) in v["corpora"].as_object().expect("corpora") {
                built.insert(id.clone(), build(tools_of(tools)));
            }
            let sets = v["sets"]
                .as_array()
                .expect("sets")
                .iter()
                .map(|s| {
                    let corpus = s["corpus"].as_str().expect("corpus");
                    let (compat, enhanced) = built[corpus].clone();
                    Set {
                        id: s["id"].as_str().unwrap_or_default().to_owned(),
                        compat,
                        enhanced,
                        queries: queries_of(&s["queries"]),
                    }
                })
                .collect();
            (sets, rest.first().map_or("both", String::as_str))
        }
        [kind, catalog, queries, rest @ ..] if kind == "catalog" => {
            let (compat, enhanced) = build(tools_of(&read_json(catalog)));
            let set = Set {
                id: format!("{} tools", compat.store().len()),
                compat,
                enhanced,
                queries: queries_of(&read_json(queries)),
            };
            (vec![set], rest.first().map_or("both", String::as_str))
        }
        _ => {
            eprintln!("usage: query_cost sets SETS.json [both|compat|compat-shown|enhanced|dump|dump-compat]");
            eprintln!(
                "       query_cost catalog CATALOG.json QUERIES.json [both|compat|compat-shown|enhanced|dump|dump-compat]"
            );
            std::process::exit(2);
        }
    }
}

/// Mean µs a query over `reps` passes (after one warm-up pass).
fn time(queries: &[String], reps: usize, mut search: impl FnMut(&str)) -> f64 {
    queries.iter().for_each(|q| search(q));
    let t = Instant::now();
    for _ in 0..reps {
        queries.iter().for_each(|q| search(q));
    }
    t.elapsed().as_secs_f64() * 1e6 / (reps * queries.len().max(1)) as f64
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (sets, mode) = load(&args);
    let total: usize = sets.iter().map(|s| s.queries.len()).sum();
    match mode {
        "compat" | "enhanced" => {
            let before: Vec<usize> = sets.iter().map(|s| s.enhanced.heap_bytes()).collect();
            for s in &sets {
                for q in &s.queries {
                    if mode == "compat" {
                        std::hint::black_box(s.compat.search(q, 5, 0.0));
                    } else {
                        std::hint::black_box(s.enhanced.search(q, 5, 0.0));
                    }
                }
            }
            println!("{total} queries through {mode} search");
            // What enhanced search kept (its cache of saturations), per index.
            let mut seen = std::collections::HashSet::new();
            for (s, b) in sets.iter().zip(before) {
                if seen.insert(std::rc::Rc::as_ptr(&s.enhanced)) {
                    let after = s.enhanced.heap_bytes();
                    println!("{}: enhanced index {b} bytes before, {after} after", s.id);
                }
            }
        }
        "compat-shown" => {
            for s in &sets {
                for q in &s.queries {
                    std::hint::black_box(s.compat.search(q, 5, DEFAULT_MIN_SCORE));
                }
            }
            println!("{total} queries through compat search at the display threshold");
        }
        "dump-compat" => {
            for s in &sets {
                for q in &s.queries {
                    for min in [DEFAULT_MIN_SCORE, 0.0] {
                        let top: Vec<String> = s
                            .compat
                            .search(q, 5, min)
                            .iter()
                            .map(|h| {
                                let name = s.compat.doc(h.slot).map_or("?", |d| d.name.as_str());
                                format!("{name}:{:.12}", h.score)
                            })
                            .collect();
                        println!("{}\t{min}\t{q}\t{}", s.id, top.join(" "));
                    }
                }
            }
        }
        "dump" => {
            for s in &sets {
                for q in &s.queries {
                    let top: Vec<String> = s
                        .enhanced
                        .search(q, 5, 0.0)
                        .iter()
                        .map(|h| {
                            format!("{}:{:.9}", s.enhanced.name(h.slot).unwrap_or("?"), h.score)
                        })
                        .collect();
                    println!("{}\t{q}\t{}", s.id, top.join(" "));
                }
            }
        }
        "both" => {
            println!("| set | queries | compat µs | enhanced µs | enhanced / compat |");
            println!("|---|---:|---:|---:|---:|");
            let (mut c_all, mut e_all) = (0.0, 0.0);
            for s in &sets {
                let c = time(&s.queries, 3, |q| {
                    std::hint::black_box(s.compat.search(q, 5, 0.0));
                });
                let e = time(&s.queries, 3, |q| {
                    std::hint::black_box(s.enhanced.search(q, 5, 0.0));
                });
                let n = s.queries.len() as f64;
                c_all += c * n;
                e_all += e * n;
                println!(
                    "| {} | {} | {c:.1} | {e:.1} | {:.2}× |",
                    s.id,
                    s.queries.len(),
                    e / c
                );
            }
            let n = total.max(1) as f64;
            println!(
                "| all | {total} | {:.1} | {:.1} | {:.2}× |",
                c_all / n,
                e_all / n,
                e_all / c_all.max(f64::MIN_POSITIVE)
            );
        }
        other => {
            eprintln!(
                "unknown mode {other:?}: both, compat, compat-shown, enhanced, dump or dump-compat"
            );
            std::process::exit(2);
        }
    }
}
