//! The stratagraph-algo kernels, reshaped for Python.
//!
//! Kernels return one value per internal id, holes included; Python gets
//! one value per vertex in `Snapshot.vertices()` order, so results line up
//! with that array. Sentinels become numpy-friendly values: -1 for BFS
//! depths, the representative's external id for WCC labels. These run with
//! the GIL released, so nothing here touches Python.

use stratagraph::Snapshot;
use stratagraph_algo::{SsspError, BFS_UNREACHABLE};

use crate::index::VertexIndex;

/// BFS depth of every vertex, -1 where `source` cannot reach.
pub fn bfs(snap: &Snapshot, idx: &VertexIndex, source: u32, threads: usize) -> Vec<i64> {
    let depth = stratagraph_algo::bfs(snap, source, threads);
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
    Ok(idx.compact(stratagraph_algo::sssp(snap, source, threads)?))
}

/// Component labels: the external id of the component's member that comes
/// first in `vertices()` order (the kernel labels by smallest internal id).
pub fn wcc(snap: &Snapshot, idx: &VertexIndex, threads: usize) -> Vec<u64> {
    let label = stratagraph_algo::wcc(snap, threads);
    idx.map(&label, |&l| idx.external(l))
}

pub fn pagerank(
    snap: &Snapshot,
    idx: &VertexIndex,
    damping: f64,
    iterations: u32,
    threads: usize,
) -> Vec<f64> {
    idx.compact(stratagraph_algo::pagerank(
        snap, damping, iterations, threads,
    ))
}

pub fn lcc(snap: &Snapshot, idx: &VertexIndex, threads: usize) -> Vec<f64> {
    idx.compact(stratagraph_algo::lcc(snap, threads))
}

/// Labels are external vertex ids (the kernel starts from them).
pub fn cdlp(snap: &Snapshot, idx: &VertexIndex, iterations: u32, threads: usize) -> Vec<u64> {
    idx.compact(stratagraph_algo::cdlp(snap, iterations, threads))
}

pub fn betweenness(snap: &Snapshot, idx: &VertexIndex, source: u32, threads: usize) -> Vec<f64> {
    idx.compact(stratagraph_algo::betweenness_single_source(
        snap, source, threads,
    ))
}
