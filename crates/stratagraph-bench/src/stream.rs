//! Streams of one-operation transactions over one or more writer threads.
//!
//! insert_single, delete_mixed and mixed_rw all apply a file's records one
//! commit each, in file order per thread; this is the one loop they share,
//! so every figure of that kind measures the same thing.

use std::time::Instant;

/// Records per hand-out: threads take interleaved chunks of this many, so
/// each one follows the file's order and none waits for another's records.
const CHUNK: usize = 1024;

/// Applies `op` to every item on `threads` threads; with `timed`, returns
/// each call's wall time in nanoseconds (all threads' samples together).
///
/// # Errors
/// The first error `op` returns on any thread.
pub fn apply<T: Sync, E: Send>(
    items: &[T],
    threads: usize,
    timed: bool,
    op: impl Fn(&T) -> Result<(), E> + Sync,
) -> Result<Vec<u64>, E> {
    let threads = threads.max(1);
    let op = &op;
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                scope.spawn(move || {
                    let mut samples = Vec::new();
                    if timed {
                        samples.reserve(items.len() / threads + CHUNK);
                    }
                    for chunk in items.chunks(CHUNK).skip(t).step_by(threads) {
                        for item in chunk {
                            if timed {
                                let start = Instant::now();
                                op(item)?;
                                samples.push(start.elapsed().as_nanos() as u64);
                            } else {
                                op(item)?;
                            }
                        }
                    }
                    Ok(samples)
                })
            })
            .collect();
        let mut all = Vec::new();
        for w in workers {
            let samples = w
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic))?;
            all.extend(samples);
        }
        Ok(all)
    })
}
