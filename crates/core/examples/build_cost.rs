//! Build cost of the compat and enhanced indexes over one catalog, for timing and for
//! instruction counts.
//!
//! ```sh
//! node bench/dump-catalog.mjs /tmp/catalogs 10k,100k
//! cargo build --profile profiling -p tool-index-core --example build_cost
//! B=target/profiling/examples/build_cost
//! $B /tmp/catalogs/catalog-10000.json          # median ms of each build (and drop), 7 each
//! valgrind --tool=callgrind --callgrind-out-file=/dev/null $B /tmp/catalogs/catalog-10000.json enhanced 1
//! ```
//!
//! Arguments: the catalog, then `both` (the default), `compat` or `enhanced`, then the number
//! of builds (default 7). Each build starts from its own copy of the tool documents (the copy
//! is not timed) and runs on the rayon pool as the addon's builds do. Nothing is asserted.

use std::time::Instant;

use tool_index_core::enhanced::{EnhancedIndex, Params};
use tool_index_core::{IndexOptions, ToolDoc, ToolIndex};

mod common;

use common::{read_json, tools_of};

/// Median ms of `reps` runs of `build` over fresh copies of `tools`, and median ms of
/// dropping what it built.
fn median_ms<T>(
    tools: &[ToolDoc],
    reps: usize,
    mut build: impl FnMut(Vec<ToolDoc>) -> T,
) -> (f64, f64) {
    let (mut built, mut dropped): (Vec<f64>, Vec<f64>) = (0..reps.max(1))
        .map(|_| {
            let copy = tools.to_vec();
            let t = Instant::now();
            let index = std::hint::black_box(build(copy));
            let b = t.elapsed().as_secs_f64() * 1e3;
            let t = Instant::now();
            drop(index);
            (b, t.elapsed().as_secs_f64() * 1e3)
        })
        .unzip();
    built.sort_by(f64::total_cmp);
    dropped.sort_by(f64::total_cmp);
    (built[built.len() / 2], dropped[dropped.len() / 2])
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(catalog) = args.first() else {
        eprintln!("usage: build_cost CATALOG.json [both|compat|enhanced] [builds]");
        std::process::exit(2);
    };
    let mode = args.get(1).map_or("both", String::as_str);
    let reps: usize = args.get(2).and_then(|n| n.parse().ok()).unwrap_or(7);
    let tools = tools_of(&read_json(catalog));
    let compat = || {
        median_ms(&tools, reps, |t| {
            ToolIndex::build(t, IndexOptions::default()).expect("unique")
        })
    };
    let enhanced = || {
        median_ms(&tools, reps, |t| {
            EnhancedIndex::build(t, Params::default(), 512).expect("unique")
        })
    };
    println!("{} tools, {reps} builds each", tools.len());
    let show = |label: &str, (build, drop): (f64, f64)| {
        println!("{label}: {build:.1} ms (drop {drop:.1} ms)");
    };
    match mode {
        "compat" => show("compat", compat()),
        "enhanced" => show("enhanced", enhanced()),
        "both" => {
            show("compat", compat());
            show("enhanced", enhanced());
        }
        other => {
            eprintln!("unknown mode {other:?}: both, compat or enhanced");
            std::process::exit(2);
        }
    }
}
