//! Runs kernels on a dedicated rayon pool so the caller controls parallelism per call.

/// Runs `f` inside a rayon pool with `threads` workers (0 = rayon's default, all cores; at
/// most `stratagraph::MAX_THREADS`).
///
/// A per-call pool (rather than the global one) is what lets benchmarks sweep thread counts
/// in one process. If the pool cannot be built (the OS refused to spawn threads) the work
/// still runs, on the current global pool, because a slower answer beats no answer.
pub(crate) fn run_in_pool<R: Send>(threads: usize, f: impl FnOnce() -> R + Send) -> R {
    let threads = threads.min(stratagraph::MAX_THREADS);
    match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(pool) => pool.install(f),
        Err(_) => f(),
    }
}

/// Minimum number of vertices per rayon task in vertex-parallel loops; keeps task overhead
/// negligible next to the per-vertex work on small graphs.
pub(crate) const MIN_VERTICES_PER_TASK: usize = 256;

/// The ranges of `MIN_VERTICES_PER_TASK` ids that cover `0..n`, as a
/// parallel iterator. Whole-graph passes go by ranges so that a store can
/// hand a range's lists over straight from its level
/// (`GraphView::scan_out_range`) instead of looking up each vertex.
pub(crate) fn par_ranges(
    n: u32,
) -> impl rayon::iter::ParallelIterator<Item = std::ops::Range<u32>> {
    use rayon::prelude::*;
    let step = MIN_VERTICES_PER_TASK as u32;
    (0..n.div_ceil(step))
        .into_par_iter()
        .map(move |t| t * step..(t * step).saturating_add(step).min(n))
}

/// Frontiers of at least this many vertices are put in vertex order before their lists are
/// read. A store larger than memory reads a list's page from disk when it is touched; in
/// vertex order, neighbouring frontier vertices share pages and the kernel's read-ahead
/// fetches the next ones, so a step reads its pages about once each, in file order. At scale
/// 24 under a memory cap of a fifth of the store, SSSP took 21 s so, and had not finished
/// after 18 min without. In memory the sort costs less than the locality it gives the
/// distance and level arrays (SSSP at scale 20 was 10-20% faster, BFS no slower).
pub(crate) const ORDERED_FRONTIER: usize = 1024;
