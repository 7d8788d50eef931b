//! The indexes' native memory as the JavaScript engine sees it.
//!
//! Every index reports its native size (N-API external memory), so the garbage collector
//! weighs a wrapper by what it holds. That alone lets a loop that drops indexes without
//! `dispose()` pile up garbage: V8 starts a collection for external memory only once it has
//! grown 64 MB since the last one, and in a loop that never yields its heap only grows.
//! So this module keeps a per-thread ledger of what may be garbage: the bytes indexes built
//! since the last collection it asked for, less the bytes freed since without one
//! (`dispose()`, updates that shrink an index, finalizers run by the engine's own
//! collections), not counting the index just built, which is live. Once that reaches
//! [`MIN_CHURN`] bytes, it asks for a collection: under V8 by reporting, for the span of one
//! call, more than V8's hard external limit (V8 then collects at once and runs the finalizers
//! of dropped indexes), under Bun through `Bun.gc(true)`. The pace is amortized against build
//! time: a collection is asked for only after [`WORK_PER_COLLECTION`] times the recent
//! collections' cost in building (a moving average, so one collection that the OS happened to
//! preempt does not stall the pace), so where a collection is slow (a large JavaScript heap)
//! more garbage may wait, in proportion. A loop that disposes what it builds leaves no garbage
//! and is never made to collect.
//!
//! Every build and update, and whatever frees an index's memory, also has the freed pages
//! handed back to the system once such calls stop and enough was freed ([`crate::trim`]), so
//! RSS follows what is live, not the last burst's peak.

use std::cell::Cell;
use std::time::{Duration, Instant};

use napi::bindgen_prelude::{Function, JsObjectValue, Object, Unknown};
use napi::{Env, ValueType};

/// Bytes that may be garbage (built since the last collection, not freed since) before
/// another collection is asked for.
pub const MIN_CHURN: i64 = 2 << 20;

/// Build time owed per unit of collection time: collections take at most half of a loop
/// that does nothing but build, and a share of one that does anything else.
pub const WORK_PER_COLLECTION: u32 = 1;

/// More than V8's hard external-memory limit (half the old-generation maximum): reported for
/// the span of one call, it makes V8 collect at once instead of starting incremental marking.
const V8_PRESSURE: i64 = 1 << 44;

/// The JavaScript engine this thread runs, found on first use.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Runtime {
    Unknown,
    V8,
    Bun,
}

#[derive(Clone, Copy)]
struct Ledger {
    runtime: Runtime,
    /// Bytes reported upward (builds, updates) since the last collection asked for, less
    /// those reported freed since (never below 0).
    churn: i64,
    /// Build time since that collection.
    work: Duration,
    /// How long recent collections took, less the finalizers' freeing: a moving average
    /// (each new collection weighs a quarter).
    cost: Duration,
    /// Time finalizers spent freeing indexes (a running sum).
    freeing: Duration,
}

thread_local! {
    static LEDGER: Cell<Ledger> = const {
        Cell::new(Ledger {
            runtime: Runtime::Unknown,
            churn: 0,
            work: Duration::ZERO,
            cost: Duration::ZERO,
            freeing: Duration::ZERO,
        })
    };
}

fn update(f: impl FnOnce(&mut Ledger)) {
    LEDGER.with(|l| {
        let mut v = l.get();
        f(&mut v);
        l.set(v);
    });
}

/// Report `delta` bytes of change in one index's native size to the engine. Returns whether
/// the engine took it (the caller then records the new size). Callable from a finalizer.
pub fn report(env: &Env, delta: i64) -> bool {
    if delta == 0 {
        return true;
    }
    if delta < 0 {
        crate::trim::soon(-delta);
    }
    if env.adjust_external_memory(delta).is_err() {
        return false;
    }
    update(|v| v.churn = (v.churn + delta).max(0));
    true
}

/// A finalizer freed an index's native memory in `took`.
pub fn freed(took: Duration) {
    update(|v| v.freeing += took);
}

/// After a build or an update that took `work` and grew its (live) index by `built` bytes:
/// ask the engine to collect garbage when it is due (see the module's documentation). Never
/// call from a finalizer.
pub fn after_build(env: &Env, work: Duration, built: i64) {
    // A build frees its working buffers as it goes: about as much as it keeps.
    crate::trim::soon(built);
    update(|v| v.work += work);
    let v = LEDGER.with(Cell::get);
    if v.churn - built.max(0) < MIN_CHURN || v.work < v.cost * WORK_PER_COLLECTION {
        return;
    }
    let runtime = match v.runtime {
        Runtime::Unknown if is_bun(env) => Runtime::Bun,
        Runtime::Unknown => Runtime::V8,
        known => known,
    };
    let started = Instant::now();
    match runtime {
        Runtime::Bun => bun_gc(env),
        _ => {
            // Finalizers of dropped indexes run inside this call.
            if env.adjust_external_memory(V8_PRESSURE).is_ok() {
                let _ = env.adjust_external_memory(-V8_PRESSURE);
            }
        }
    }
    let elapsed = started.elapsed();
    update(|now| {
        // Freeing the dropped indexes is owed whether or not a collection runs (dispose()
        // pays it too); only the collection itself sets the pace. Counting it would let the
        // pace slow as garbage grows, and the garbage grow as the pace slows.
        let took = elapsed.saturating_sub(now.freeing.saturating_sub(v.freeing));
        now.cost = if v.runtime == Runtime::Unknown {
            took
        } else {
            (v.cost * 3 + took) / 4
        };
        now.runtime = runtime;
        now.churn = 0;
        now.work = Duration::ZERO;
    });
}

/// Bun: a global `Bun` object and `process.versions.bun` a string.
fn is_bun(env: &Env) -> bool {
    let Ok(global) = env.get_global() else {
        return false;
    };
    let bun = global
        .get_named_property::<Unknown>("Bun")
        .is_ok_and(|b| b.get_type().is_ok_and(|t| t == ValueType::Object));
    let versioned = global
        .get_named_property::<Object>("process")
        .and_then(|p| p.get_named_property::<Object>("versions"))
        .and_then(|v| v.get_named_property::<Unknown>("bun"))
        .is_ok_and(|b| b.get_type().is_ok_and(|t| t == ValueType::String));
    bun && versioned
}

/// `Bun.gc(true)`: a synchronous full collection. A failure is ignored (nothing is freed).
fn bun_gc(env: &Env) {
    let Ok(global) = env.get_global() else {
        return;
    };
    let gc = global
        .get_named_property::<Object>("Bun")
        .and_then(|b| b.get_named_property::<Function<bool, Unknown>>("gc"));
    if let Ok(gc) = gc {
        let _ = gc.call(true);
    }
}
