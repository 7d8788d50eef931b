//! Handing freed pages back to the system once the process has stopped freeing indexes.
//!
//! glibc's allocator keeps freed memory in its arenas (and, once a large block was freed,
//! serves large blocks from them too), so without a trim the process keeps the high-water mark
//! of every build/free burst. A trim right after each free cost a loop that builds and frees
//! indexes twice: the trim itself, then the page faults of the next build taking the same pages
//! back. So [`soon`] asks one background thread to trim once no index has been freed for
//! [`QUIET`]: a build/free loop reuses its pages from the free lists, and they go back to the
//! system when the loop stops. Without that thread (it could not be started), [`soon`] trims at
//! once.

use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// How long the process must go without freeing an index before the freed pages go back.
pub const QUIET: Duration = Duration::from_millis(200);

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
                    give_back();
                }
            })
            .ok()
            .map(|_| Mutex::new(tx))
    })
    .as_ref()
}

/// Memory was freed: hand the free pages back to the system once freeing stops for [`QUIET`].
pub fn soon() {
    let rung = bell().is_some_and(|b| b.lock().is_ok_and(|tx| tx.send(()).is_ok()));
    if !rung {
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
