//! The stratagraph-algo kernels, reshaped for Python.
//!
//! Kernels return one value per internal id, holes included; Python gets
//! one value per vertex in `Snapshot.vertices()` order, so results line up
//! with that array. Sentinels become numpy-friendly values: -1 for BFS
//! depths, the representative's external id for WCC labels. These run with
//! the GIL released, so nothing here touches Python.
//!
//! Each kernel also runs on a projection of the snapshot's property edges
//! (`Projected`: the edges of some labels, weighted by a property, as a
//! static CSR over every vertex); its dense ids follow external ids, so
//! results are mapped back to `vertices()` order by external id.
//!
//! Each kernel's own run is timed (`kernel`), so the speed benchmark can
//! split a Python call's time into the kernel and what this wrapper adds
//! around it, both measured in the same call (`_native._last_kernel_seconds`):
//! on a shared machine two separate runs of the same kernel differ by more
//! than the few percent the wrapper costs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use rayon::prelude::*;
use stratagraph::Snapshot;
use stratagraph_algo::{CsrGraph, Projection, ProjectionError, SsspError, BFS_UNREACHABLE};

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

/// Which property edges a kernel runs on instead of the weighted
/// structure: the arguments of `stratagraph_algo::Projection`, owned, and
/// comparable so a snapshot can keep its last projection for the next
/// kernel that asks for the same one.
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectionSpec {
    /// Edge labels; empty: every label.
    pub labels: Vec<String>,
    /// The numeric edge property that weighs each edge.
    pub weight: Option<String>,
    /// The weight of an edge without that property.
    pub default_weight: Option<f64>,
}

/// A projection of a snapshot's property edges, with the way back from
/// its dense ids (ascending external id) to `vertices()` positions.
pub struct Projected {
    csr: CsrGraph,
    /// Position in `vertices()` -> dense id in `csr`.
    dense: Vec<u32>,
}

impl Projected {
    /// Projects `snap`'s property edges as `spec` says, undirected when
    /// the snapshot is.
    pub fn build(
        snap: &Snapshot,
        idx: &VertexIndex,
        spec: &ProjectionSpec,
    ) -> Result<Self, ProjectionError> {
        let labels: Vec<&str> = spec.labels.iter().map(String::as_str).collect();
        let csr = stratagraph_algo::project(
            snap,
            &Projection {
                labels: &labels,
                weight: spec.weight.as_deref(),
                default_weight: spec.default_weight,
                undirected: !snap.is_directed(),
            },
        )?;
        // The projection holds every vertex of the snapshot; u32::MAX
        // would only show a vertex missing from it (an engine bug).
        let dense = idx
            .ext
            .par_iter()
            .map(|&e| csr.dense_id(e).unwrap_or(u32::MAX))
            .collect();
        Ok(Projected { csr, dense })
    }

    /// The dense id of the vertex with external id `ext`.
    fn source(&self, ext: u64) -> u32 {
        self.csr.dense_id(ext).unwrap_or(u32::MAX)
    }

    /// `f` of each vertex's entry of a per-dense-id array, in `vertices()`
    /// order.
    fn map<T: Sync, U: Send>(&self, by_dense: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
        self.dense
            .par_iter()
            .map(|&d| f(&by_dense[d as usize]))
            .collect()
    }

    fn gather<T: Copy + Send + Sync>(&self, by_dense: &[T]) -> Vec<T> {
        self.map(by_dense, |&x| x)
    }
}

/// `bfs` on a projection; `source` is an external id.
pub fn bfs_projected(p: &Projected, source: u64, threads: usize) -> Vec<i64> {
    let depth = kernel(|| stratagraph_algo::bfs(&p.csr, p.source(source), threads));
    p.map(&depth, |&d| match d {
        BFS_UNREACHABLE => -1,
        d => i64::try_from(d).unwrap_or(-1),
    })
}

/// `sssp` on a projection; `source` is an external id.
pub fn sssp_projected(p: &Projected, source: u64, threads: usize) -> Result<Vec<f64>, SsspError> {
    let dist = kernel(|| stratagraph_algo::sssp(&p.csr, p.source(source), threads))?;
    Ok(p.gather(&dist))
}

/// `wcc` on a projection, labelled as `wcc` labels: by the member that
/// comes first in `vertices()` order (the kernel labels by smallest
/// dense id, i.e. smallest external id).
pub fn wcc_projected(p: &Projected, idx: &VertexIndex, threads: usize) -> Vec<u64> {
    let label = kernel(|| stratagraph_algo::wcc(&p.csr, threads));
    let mut first = vec![u64::MAX; label.len()];
    let mut taken = vec![false; label.len()];
    idx.ext
        .iter()
        .zip(&p.dense)
        .map(|(&ext, &d)| {
            let l = label[d as usize] as usize;
            if !taken[l] {
                taken[l] = true;
                first[l] = ext;
            }
            first[l]
        })
        .collect()
}

pub fn pagerank_projected(
    p: &Projected,
    damping: f64,
    iterations: u32,
    threads: usize,
) -> Vec<f64> {
    p.gather(&kernel(|| {
        stratagraph_algo::pagerank(&p.csr, damping, iterations, threads)
    }))
}

pub fn lcc_projected(p: &Projected, threads: usize) -> Vec<f64> {
    p.gather(&kernel(|| stratagraph_algo::lcc(&p.csr, threads)))
}

pub fn cdlp_projected(p: &Projected, iterations: u32, threads: usize) -> Vec<u64> {
    p.gather(&kernel(|| {
        stratagraph_algo::cdlp(&p.csr, iterations, threads)
    }))
}

/// `betweenness` on a projection; `source` is an external id.
pub fn betweenness_projected(p: &Projected, source: u64, threads: usize) -> Vec<f64> {
    p.gather(&kernel(|| {
        stratagraph_algo::betweenness_single_source(&p.csr, p.source(source), threads)
    }))
}

pub fn triangle_count_projected(p: &Projected, threads: usize) -> u64 {
    kernel(|| stratagraph_algo::triangle_count(&p.csr, threads))
}
