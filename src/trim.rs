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

use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// How long the process must go without building or freeing an index before the freed pages go
/// back.
pub const QUIET: Duration = Duration::from_millis(200);

/// Bytes freed since the last trim below which no trim is made.
pub const MIN_FREED: i64 = 4 << 20;

/// Bytes freed (or estimated freed) since the last trim.
static FREED: AtomicI64 = AtomicI64::new(0);

/// The trimming thread's doorbell; `None` when the thread could not be started.
static BELL: OnceLock<Option<Mutex<Sender<()>>>> = OnceLock::new();

fn bell() -> Option<&'static Mutex<Sender<()>>> {
    BELL.get_or_init(|| {
        let (tx, rx) = mpsc::channel::<()>();
        std::thread::Builder::new()
            .name("tool-index-trim".into())
            .spawn(move || {
                // Wait for a first ring, then until the rings stop for QUIET; trim; repeat.
                while rx.recv().is_ok() {
                    loop {
                        match rx.recv_timeout(QUIET) {
                            Ok(()) => continue,
                            Err(RecvTimeoutError::Timeout) => break,
                            Err(RecvTimeoutError::Disconnected) => return,
                        }
                    }
                    if FREED.load(Ordering::Relaxed) >= MIN_FREED {
                        FREED.store(0, Ordering::Relaxed);
                        give_back();
                    }
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    })
    .as_ref()
}

/// About `bytes` were freed: hand the free pages back to the system once building and freeing
/// stop for [`QUIET`], if [`MIN_FREED`] bytes were freed since the last trim.
pub fn soon(bytes: i64) {
    FREED.fetch_add(bytes.max(0), Ordering::Relaxed);
    let rung = bell().is_some_and(|b| b.lock().is_ok_and(|tx| tx.send(()).is_ok()));
    if !rung && FREED.load(Ordering::Relaxed) >= MIN_FREED {
        FREED.store(0, Ordering::Relaxed);
        give_back();
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
