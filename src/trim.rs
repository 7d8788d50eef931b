//! Handing freed pages back to the system once the process has stopped freeing indexes.
//!
//! glibc's allocator keeps freed memory in its arenas (and, once a large block was freed,
//! serves large blocks from them too), so without a trim the process keeps the high-water mark
//! of every build/free burst. A trim right after each free cost a loop that builds and frees
//! indexes twice: the trim itself, then the page faults of the next build taking the same pages
//! back. So [`soon`] asks one background thread to trim once no index has been built or freed
//! for [`QUIET`] and at least [`MIN_FREED`] bytes were freed since the last trim: a build/free
//! loop reuses its pages from the free lists, and they go back to the system when the loop
//! stops. Small frees are left to the allocator to reuse: a trim walks every arena, and a few
//! hundred KB are not worth it. Without that thread (it could not be started), [`soon`] trims at
//! once when enough was freed.

use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::thread::Thread;
use std::time::Duration;

/// How long the process must go without building or freeing an index before the freed pages go
/// back.
pub const QUIET: Duration = Duration::from_millis(200);

/// Bytes freed since the last trim below which no trim is made.
pub const MIN_FREED: i64 = 4 << 20;

/// Bytes freed (or estimated freed) since the last trim.
static FREED: AtomicI64 = AtomicI64::new(0);

/// Builds and frees so far: the thread trims once a [`QUIET`] span leaves it unchanged.
static ACTIVITY: AtomicU64 = AtomicU64::new(0);

/// Whether the thread is waiting out a quiet span (calls then only count; they do not wake it).
static ARMED: AtomicBool = AtomicBool::new(false);

/// The trimming thread; `None` when it could not be started.
static TRIMMER: OnceLock<Option<Thread>> = OnceLock::new();

fn trimmer() -> Option<&'static Thread> {
    TRIMMER
        .get_or_init(|| {
            std::thread::Builder::new()
                .name("tool-index-trim".into())
                .spawn(|| loop {
                    std::thread::park();
                    if !ARMED.load(Ordering::SeqCst) {
                        continue; // a spurious wake-up
                    }
                    loop {
                        let seen = ACTIVITY.load(Ordering::SeqCst);
                        std::thread::sleep(QUIET);
                        if ACTIVITY.load(Ordering::SeqCst) == seen {
                            break;
                        }
                    }
                    // Disarm before looking at what was freed: a call from now on arms again.
                    ARMED.store(false, Ordering::SeqCst);
                    trim_if_due();
                })
                .ok()
                .map(|handle| handle.thread().clone())
        })
        .as_ref()
}

fn trim_if_due() {
    // Take the count whole, so frees counted meanwhile are never lost; put back what is too
    // little to trim for.
    let freed = FREED.swap(0, Ordering::SeqCst);
    if freed >= MIN_FREED {
        give_back();
    } else {
        FREED.fetch_add(freed, Ordering::SeqCst);
    }
}

/// About `bytes` were freed: hand the free pages back to the system once building and freeing
/// stop for [`QUIET`], if [`MIN_FREED`] bytes were freed since the last trim. Only the first call
/// of a burst wakes the thread.
pub fn soon(bytes: i64) {
    FREED.fetch_add(bytes.max(0), Ordering::SeqCst);
    ACTIVITY.fetch_add(1, Ordering::SeqCst);
    if !ARMED.swap(true, Ordering::SeqCst) {
        match trimmer() {
            Some(thread) => thread.unpark(),
            None => {
                ARMED.store(false, Ordering::SeqCst);
                trim_if_due();
            }
        }
    }
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn give_back() {
    // SAFETY: malloc_trim only walks the allocator's own free lists; any thread may call it.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Other allocators return freed pages on their own terms.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn give_back() {}
