//! A large build in three overlapped stages, written once for every scorer: the caller's
//! thread reads chunks of tools (the binding reads JavaScript values there, and only that
//! thread may touch them), the rayon pool analyses each chunk as it arrives (the analysis
//! touches nothing shared), and a linking thread links the analysed chunks, in order, into the
//! index (its vocabulary and postings change on one thread at a time, so slots and term ids
//! come out as a one-thread build gives them).

use std::sync::mpsc::{sync_channel, Receiver};

use crate::error::IndexError;
use crate::store::{Named, Scorer, MAX_NAMED_DUPLICATES};

/// Large builds go in chunks of this many tools: builds of at least two chunks analyse each
/// chunk on the rayon pool while a linking thread links the chunks before it, in order. A
/// caller that reads tools as it builds (`build_streamed`) hands them over in chunks of this
/// size.
pub const BUILD_CHUNK: usize = 1024;
/// How many analysed chunks may wait for the linking thread before the reader waits.
const CHUNKS_AHEAD: usize = 2;

/// Read `chunks` on this thread, analyse each on the rayon pool with `analyze`, and hand the
/// analysed chunks, in order, to `link` on a linking thread. A chunk that is an error stops
/// the reading; it is returned once the chunks read before it are linked. `None` when no
/// linking thread could be started: then nothing has been read, and the caller builds
/// without one. Not for a pool thread: it waits for work queued on the pool.
fn pipelined<T, A, E>(
    chunks: &mut impl Iterator<Item = Result<Vec<T>, E>>,
    analyze: &(impl Fn(Vec<T>) -> Vec<A> + Sync),
    mut link: impl FnMut(Vec<A>) + Send,
) -> Option<Result<(), E>>
where
    T: Send,
    A: Send,
{
    let (order_tx, order_rx) = sync_channel::<Receiver<Vec<A>>>(CHUNKS_AHEAD);
    std::thread::scope(|scope| {
        let linker = std::thread::Builder::new().spawn_scoped(scope, move || {
            for analysed in order_rx {
                // An analysis that panicked sends nothing: stop here; its panic ends the
                // build when the reading's scope closes.
                let Ok(chunk) = analysed.recv() else { break };
                link(chunk);
            }
        });
        let Ok(linker) = linker else {
            return None;
        };
        let read = rayon::in_place_scope(move |pool| {
            for chunk in chunks {
                let tools = chunk?;
                let (tx, rx) = sync_channel(1);
                pool.spawn(move |_| {
                    let _ = tx.send(analyze(tools));
                });
                if order_tx.send(rx).is_err() {
                    break; // the linker stopped: an analysis panicked
                }
            }
            Ok(())
        });
        linker
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Some(read)
    })
}

/// Link analysed tools into new slots, in order.
pub(crate) fn link_all<S: Scorer>(scorer: &mut S, analyzed: impl IntoIterator<Item = S::Analyzed>) {
    for a in analyzed {
        let slot = scorer.store_mut().push_slot();
        scorer.link(slot, a);
    }
}

/// [`link_all`], but with `check` a tool whose name the index already holds is not linked:
/// its name goes to `repeated` (the first [`MAX_NAMED_DUPLICATES`]).
fn link_checked<S: Scorer>(
    scorer: &mut S,
    analyzed: Vec<S::Analyzed>,
    check: bool,
    repeated: &mut Vec<String>,
) {
    scorer.store_mut().reserve(analyzed.len());
    for a in analyzed {
        if check && scorer.store().slot_of(a.name()).is_some() {
            if repeated.len() < MAX_NAMED_DUPLICATES {
                repeated.push(a.name().to_owned());
            }
            continue;
        }
        let slot = scorer.store_mut().push_slot();
        scorer.link(slot, a);
    }
}

/// Analyse chunks on the rayon pool as they are read and link them, in order, on a linking
/// thread, at most [`CHUNKS_AHEAD`] analysed chunks behind the reading. With `check`, tools
/// whose names the index already holds are left out and their names returned (see
/// [`link_checked`]). A chunk that is an error stops the reading; it is returned once the
/// chunks already read are linked.
pub(crate) fn link_streamed<S, E>(
    scorer: &mut S,
    mut chunks: impl Iterator<Item = Result<Vec<S::Tool>, E>>,
    analyze: &(impl Fn(Vec<S::Tool>) -> Vec<S::Analyzed> + Sync),
    check: bool,
) -> Result<Vec<String>, E>
where
    S: Scorer + Send,
    S::Tool: Send,
{
    let mut repeated = Vec::new();
    let linked = pipelined(&mut chunks, analyze, |chunk| {
        link_checked(scorer, chunk, check, &mut repeated)
    });
    if let Some(read) = linked {
        return read.map(|()| repeated);
    }
    // No thread to be had: analyse each chunk on the pool, then link it here.
    for chunk in chunks {
        link_checked(scorer, analyze(chunk?), check, &mut repeated);
    }
    Ok(repeated)
}

/// Whether a build of about `expected` tools (a hint) goes through [`link_streamed`]: it is
/// large enough to be worth a linking thread (two chunks or more, and at least the scorer's
/// parallel threshold), and this is not a pool thread (which must not wait for work queued
/// behind it on its own pool).
pub(crate) fn streams(expected: usize, parallel_threshold: usize) -> bool {
    expected >= (BUILD_CHUNK * 2).max(parallel_threshold) && rayon::current_thread_index().is_none()
}

/// Every tool of a chunked source, in order, or its first error. `expected` (a hint) sizes the
/// list up front, up to 64 chunks' worth.
pub(crate) fn read_all<T>(
    chunks: impl IntoIterator<Item = Result<Vec<T>, IndexError>>,
    expected: usize,
) -> Result<Vec<T>, IndexError> {
    let mut tools = Vec::with_capacity(expected.min(BUILD_CHUNK * 64));
    for chunk in chunks {
        tools.extend(chunk?);
    }
    Ok(tools)
}

/// Tools in chunks of [`BUILD_CHUNK`], in order.
pub(crate) fn chunks_of<T>(tools: Vec<T>) -> impl Iterator<Item = Vec<T>> {
    let mut tools = tools.into_iter();
    std::iter::from_fn(move || {
        let chunk: Vec<T> = tools.by_ref().take(BUILD_CHUNK).collect();
        (!chunk.is_empty()).then_some(chunk)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::enhanced::{EnhancedIndex, Params};
    use crate::index::{IndexOptions, ToolChunk, ToolDoc, ToolIndex};
    use crate::ErrorCode;

    type Built = Result<(), IndexError>;

    /// Both scorers' build of a list, and their streamed build of chunks with a size hint.
    type Build = fn(Vec<ToolDoc>) -> Built;
    type Streamed = fn(&mut dyn Iterator<Item = ToolChunk>, usize) -> Built;

    fn scorers() -> [(&'static str, Build, Streamed); 2] {
        [
            (
                "compat",
                |t| ToolIndex::build(t, IndexOptions::default()).map(drop),
                |c, n| ToolIndex::build_streamed(c, n, IndexOptions::default()).map(drop),
            ),
            (
                "enhanced",
                |t| EnhancedIndex::build(t, Params::default(), 512).map(drop),
                |c, n| EnhancedIndex::build_streamed(c, n, Params::default(), 512).map(drop),
            ),
        ]
    }

    /// A streamed build fails as a build of all its tools does, for either scorer: repeated
    /// names (across chunks, up to five, in order) once everything is read, and a chunk that
    /// is an error before that, with nothing read after it.
    #[test]
    fn streamed_build_errors_equal_a_build() {
        let n = BUILD_CHUNK * 4;
        let mut tools: Vec<ToolDoc> = (0..n)
            .map(|i| ToolDoc::new(format!("tool{i}"), format!("word{} file", i % 31)))
            .collect();
        for (at, copy) in [
            (5, 3000),
            (3500, 3001),
            (3999, 3000),
            (4000, 7),
            (4001, 7),
            (4002, 8),
            (4090, 9),
        ] {
            tools[at].name = format!("tool{copy}");
        }
        for (scorer, build, streamed) in scorers() {
            let whole = build(tools.clone()).unwrap_err();
            let mut chunks = tools.chunks(BUILD_CHUNK).map(|c| Ok(c.to_vec()));
            let got = streamed(&mut chunks, n).unwrap_err();
            assert_eq!(whole.code, ErrorCode::DuplicateName, "{scorer}");
            assert_eq!(
                (whole.code, &whole.message),
                (got.code, &got.message),
                "{scorer}"
            );

            // A read error in the last chunk wins over repeats before it; nothing after it is
            // read.
            let mut read = 0;
            let mut failing = tools
                .chunks(BUILD_CHUNK)
                .enumerate()
                .map(|(k, c)| {
                    read += 1;
                    if k == 3 {
                        Err(IndexError::new(ErrorCode::InvalidArg, "element 3072"))
                    } else {
                        Ok(c.to_vec())
                    }
                })
                .chain(std::iter::from_fn(|| panic!("read past the error")));
            let err = streamed(&mut failing, n).unwrap_err();
            assert_eq!(
                (err.code, err.message.as_str()),
                (ErrorCode::InvalidArg, "element 3072"),
                "{scorer}"
            );
            drop(failing);
            assert_eq!(read, 4, "{scorer}");
        }
    }
}
