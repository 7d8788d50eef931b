//! `Engine::heap_bytes` is what the binding reports to the JavaScript engine's GC as external
//! memory; it should track what the index really holds on the heap. A counting global
//! allocator measures the bytes an index keeps after its build, and the report must stay close.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::sync::Mutex;

use tool_index_core::engine::{Engine, EngineOptions, Scoring};
use tool_index_core::ToolDoc;

struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);
/// Tests measure one at a time: the counter is process-wide.
static SERIAL: Mutex<()> = Mutex::new(());

// SAFETY: forwards to the system allocator and only counts sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_add(
            new_size as isize - layout.size() as isize,
            Ordering::Relaxed,
        );
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const WORDS: &[&str] = &[
    "create",
    "issue",
    "repository",
    "github",
    "file",
    "read",
    "write",
    "list",
    "directory",
    "search",
    "query",
    "database",
    "table",
    "row",
    "update",
    "delete",
    "user",
    "message",
    "channel",
    "slack",
    "send",
    "email",
    "calendar",
    "event",
    "schedule",
    "weather",
    "forecast",
    "price",
    "stock",
    "order",
    "payment",
    "invoice",
    "customer",
    "ticket",
    "comment",
    "branch",
    "commit",
    "pull",
    "request",
    "merge",
    "deploy",
    "server",
    "log",
    "metric",
    "alert",
    "image",
    "resize",
    "convert",
    "translate",
    "text",
    "summarize",
    "document",
    "page",
    "browser",
    "click",
];

fn docs(n: usize) -> Vec<ToolDoc> {
    let mut seed = 0x9e37_79b9_u64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        WORDS[(seed % WORDS.len() as u64) as usize]
    };
    (0..n)
        .map(|i| {
            let description = (0..24).map(|_| next()).collect::<Vec<_>>().join(" ");
            let name = if i % 3 == 0 {
                format!("mcp__srv{}__{}_{}_{i}", i % 17, next(), next())
            } else {
                format!("{}{}Tool{i}", next(), next())
            };
            ToolDoc {
                name,
                description,
                search_hint: (i % 4 == 0).then(|| format!("{} {}", next(), next())),
                is_mcp: None,
                server: None,
                schema_text: (i % 2 == 0).then(|| format!("path {} content {}", next(), next())),
            }
        })
        .collect()
}

fn measured(n: usize, scoring: Scoring) -> (usize, usize) {
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let input = docs(n);
    let options = EngineOptions {
        scoring: Some(scoring),
        ..EngineOptions::default()
    };
    let before = LIVE.load(Ordering::SeqCst);
    // The input is consumed by the build; count it out so only what the index keeps remains.
    let input_bytes: usize = input
        .iter()
        .map(|d| {
            d.name.capacity()
                + d.description.capacity()
                + d.search_hint.as_ref().map_or(0, String::capacity)
                + d.schema_text.as_ref().map_or(0, String::capacity)
        })
        .sum::<usize>()
        + input.capacity() * std::mem::size_of::<ToolDoc>();
    let engine = Engine::build(input, options).expect("build");
    // A first search may fill lazily built parts; the report is taken after it too.
    let _ = engine.search_slots("create a github issue", 5, 0.0);
    let after = LIVE.load(Ordering::SeqCst);
    let held = (after - before + input_bytes as isize).max(0) as usize;
    let reported = engine.heap_bytes();
    drop(engine);
    (held, reported)
}

#[test]
fn reported_heap_bytes_track_the_allocations() {
    for scoring in [Scoring::Compat, Scoring::Enhanced] {
        for n in [200, 2_000] {
            let (held, reported) = measured(n, scoring);
            let ratio = reported as f64 / held as f64;
            println!(
                "{scoring:?} {n} tools: held {held} B, reported {reported} B, ratio {ratio:.2}"
            );
            assert!(
                (0.75..=1.25).contains(&ratio),
                "{scoring:?} {n}: reported {reported} B for {held} B held (ratio {ratio:.2})"
            );
        }
    }
}

/// The bytes an engine that `make` builds (and changes) holds once made, counted by the
/// allocator, and the bytes it reports (the caller holds [`SERIAL`]).
fn held_by(make: impl FnOnce() -> Engine) -> (usize, usize) {
    let before = LIVE.load(Ordering::SeqCst);
    let engine = make();
    let held = (LIVE.load(Ordering::SeqCst) - before).max(0) as usize;
    let reported = engine.heap_bytes();
    drop(engine);
    (held, reported)
}

/// A long-lived index that keeps replacing one tool's words and adding and removing tools
/// with new words holds (and reports) about what a fresh build of the same tools does: the
/// terms no tool has any more are dropped.
#[test]
fn churn_holds_about_what_a_fresh_build_holds() {
    const CYCLES: usize = 3_000;
    let _guard = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let replaced = |i: usize| format!("open tabs {i} ts{i} id{}", i * 31);
    for scoring in [Scoring::Compat, Scoring::Enhanced] {
        let options = EngineOptions {
            scoring: Some(scoring),
            ..EngineOptions::default()
        };
        let name7 = docs(300)[7].name.clone();
        let (held, reported) = held_by(|| {
            let mut e = Engine::build(docs(300), options.clone()).expect("build");
            // Keyword postings built up front, so the changes update them too.
            let _ = e.keyword_search("create issue", 5.0);
            for i in 0..CYCLES {
                e.upsert(vec![ToolDoc::new(name7.clone(), replaced(i))])
                    .expect("upsert");
                let name = format!("mcp__s{i}__leaf{i}");
                e.upsert(vec![ToolDoc::new(
                    &name,
                    format!("alpha{i} beta{i} gamma{i}"),
                )])
                .expect("upsert");
                e.remove(&[name]);
            }
            // Compaction of the slots dropped the keyword postings: built again on use.
            let _ = e.keyword_search("create issue", 5.0);
            e
        });
        let fresh = || {
            let mut tools = docs(300);
            tools[7].description = replaced(CYCLES - 1);
            let e = Engine::build(tools, options.clone()).expect("build");
            let _ = e.keyword_search("create issue", 5.0);
            e
        };
        let (fresh_held, fresh_reported) = held_by(fresh);
        println!(
            "{scoring:?} after {CYCLES} cycles: held {held} B (fresh {fresh_held} B), \
             reported {reported} B (fresh {fresh_reported} B)"
        );
        assert!(
            held <= 2 * fresh_held,
            "{scoring:?}: {held} B held, a fresh build {fresh_held} B"
        );
        assert!(
            reported <= 2 * fresh_reported,
            "{scoring:?}: {reported} B reported, a fresh build {fresh_reported} B"
        );
    }
}
