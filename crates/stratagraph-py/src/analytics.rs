//! The stratagraph-algo kernels, reshaped for Python.
//!
//! Kernels return one value per internal id, holes included; Python gets
//! one value per vertex in `Snapshot.vertices()` order, so results line up
//! with that array. Sentinels become numpy-friendly values: -1 for BFS
//! depths, the representative's external id for WCC labels. These run with
//! the GIL released, so nothing here touches Python.
//!
//! Each kernel's own run is timed (`kernel`), so the speed benchmark can
//! split a Python call's time into the kernel and what this wrapper adds
//! around it, both measured in the same call (`_native._last_kernel_seconds`):
//! on a shared machine two separate runs of the same kernel differ by more
//! than the few percent the wrapper costs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use stratagraph::Snapshot;
use stratagraph_algo::{SsspError, BFS_UNREACHABLE};

use crate::index::VertexIndex;

/// Nanoseconds the last kernel run through `kernel` took, in any thread.
static LAST_KERNEL_NANOS: AtomicU64 = AtomicU64::new(0);

/// Runs a kernel, recording its time for `last_kernel_seconds`.
fn kernel<R>(run: impl FnOnce() -> R) -> R {
    let start = Instant::now();
    let r = run();
    let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    LAST_KERNEL_NANOS.store(nanos, Ordering::Relaxed);
    r
}

/// Seconds the last kernel took inside a Snapshot analytics method (the
/// most recent to finish, in whichever thread); what the method added
/// around it is its own time minus this.
pub fn last_kernel_seconds() -> f64 {
    LAST_KERNEL_NANOS.load(Ordering::Relaxed) as f64 / 1e9
}

/// BFS depth of every vertex, -1 where `source` cannot reach.
pub fn bfs(snap: &Snapshot, idx: &VertexIndex, source: u32, threads: usize) -> Vec<i64> {
    let depth = kernel(|| stratagraph_algo::bfs(snap, source, threads));
    idx.map(&depth, |&d| match d {
        BFS_UNREACHABLE => -1,
        d => i64::try_from(d).unwrap_or(-1),
    })
}

/// Weighted distances, `inf` where `source` cannot reach.
pub fn sssp(
    snap: &Snapshot,
    idx: &VertexIndex,
    source: u32,
    threads: usize,
) -> Result<Vec<f64>, SsspError> {
    Ok(idx.compact(kernel(|| stratagraph_algo::sssp(snap, source, threads))?))
}

/// Component labels: the external id of the component's member that comes
/// first in `vertices()` order (the kernel labels by smallest internal id).
pub fn wcc(snap: &Snapshot, idx: &VertexIndex, threads: usize) -> Vec<u64> {
    let label = kernel(|| stratagraph_algo::wcc(snap, threads));
    idx.map(&label, |&l| idx.external(l))
}

pub fn pagerank(
    snap: &Snapshot,
    idx: &VertexIndex,
    damping: f64,
    iterations: u32,
    threads: usize,
) -> Vec<f64> {
    idx.compact(kernel(|| {
        stratagraph_algo::pagerank(snap, damping, iterations, threads)
    }))
}

pub fn lcc(snap: &Snapshot, idx: &VertexIndex, threads: usize) -> Vec<f64> {
    idx.compact(kernel(|| stratagraph_algo::lcc(snap, threads)))
}

/// Labels are external vertex ids (the kernel starts from them).
pub fn cdlp(snap: &Snapshot, idx: &VertexIndex, iterations: u32, threads: usize) -> Vec<u64> {
    idx.compact(kernel(|| stratagraph_algo::cdlp(snap, iterations, threads)))
}

pub fn betweenness(snap: &Snapshot, idx: &VertexIndex, source: u32, threads: usize) -> Vec<f64> {
    idx.compact(kernel(|| {
        stratagraph_algo::betweenness_single_source(snap, source, threads)
    }))
}

pub fn triangle_count(snap: &Snapshot, threads: usize) -> u64 {
    kernel(|| stratagraph_algo::triangle_count(snap, threads))
}
