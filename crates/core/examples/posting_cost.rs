//! Enhanced search cost per matching posting at several catalog sizes.
//!
//! ```sh
//! node bench/dump-catalog.mjs /tmp/catalogs 10k,100k
//! cargo run --release -p tool-index-core --example posting_cost -- \
//!     /tmp/catalogs/queries.json /tmp/catalogs/catalog-10000.json /tmp/catalogs/catalog-100000.json
//! ```
//!
//! For each catalog: every query is analysed once, then searched (top 5, the default
//! threshold) in a timed loop; the figure is the summed time over the summed postings of the
//! queries' terms. Nothing is asserted: it prints.

use std::time::{Duration, Instant};

use tool_index_core::enhanced::{EnhancedIndex, Params};
use tool_index_core::index::DEFAULT_MIN_SCORE;

mod common;

use common::{queries_of, read_json, tools_of};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((queries, catalogs)) = args.split_first() else {
        eprintln!("usage: posting_cost QUERIES.json CATALOG.json...");
        std::process::exit(2);
    };
    let queries = queries_of(&read_json(queries));
    for path in catalogs {
        let tools = tools_of(&read_json(path));
        let n = tools.len();
        let index = EnhancedIndex::build(tools, Params::default(), 512).expect("unique names");
        let mut total = Duration::ZERO;
        let mut postings = 0usize;
        let mut per_query: Vec<f64> = Vec::new();
        for q in &queries {
            let parsed = index.parse_query(q);
            let p = index.matching_postings(&parsed);
            // Repeat so each query runs for about a millisecond.
            let once = Instant::now();
            std::hint::black_box(index.search_parsed(&parsed, 5, DEFAULT_MIN_SCORE));
            let reps = (1_000_000 / once.elapsed().as_nanos().max(1)).clamp(3, 2000) as u32;
            let t = Instant::now();
            for _ in 0..reps {
                std::hint::black_box(index.search_parsed(&parsed, 5, DEFAULT_MIN_SCORE));
            }
            let each = t.elapsed() / reps;
            total += each;
            postings += p;
            if p > 0 {
                per_query.push(each.as_nanos() as f64 / p as f64);
            }
        }
        per_query.sort_by(f64::total_cmp);
        let median = per_query.get(per_query.len() / 2).copied().unwrap_or(0.0);
        println!(
            "{n} tools: {} queries, mean {:.1} µs, {:.0} postings per query, {:.2} ns per posting (summed), median query {:.2} ns per posting",
            queries.len(),
            total.as_secs_f64() * 1e6 / queries.len() as f64,
            postings as f64 / queries.len() as f64,
            total.as_nanos() as f64 / postings.max(1) as f64,
            median,
        );
    }
}
