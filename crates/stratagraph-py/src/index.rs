//! A snapshot's vertices in Python order, and whole-graph extraction.
//!
//! Python sees vertices as positions `0..num_vertices` in ascending internal
//! id order (the order the engine iterates), while the engine and kernels
//! index by internal id with holes for deleted ids. `VertexIndex` converts
//! between the two; it is built once per snapshot, on first need, since a
//! snapshot never changes.

use rayon::prelude::*;
use stratagraph::Snapshot;

/// Internal id <-> position, and each position's external id.
pub struct VertexIndex {
    /// Internal ids of the live vertices, ascending: position -> internal id.
    pub live: Vec<u32>,
    /// External id of each position.
    pub ext: Vec<u64>,
    /// Internal id -> position (`u32::MAX` for holes).
    pub pos: Vec<u32>,
}

impl VertexIndex {
    pub fn build(snap: &Snapshot) -> Self {
        let live: Vec<u32> = snap.vertices().collect();
        let ext = live
            .iter()
            .map(|&v| snap.external_id_unchecked(v))
            .collect();
        let mut pos = vec![u32::MAX; snap.id_bound() as usize];
        for (i, &v) in live.iter().enumerate() {
            pos[v as usize] = i as u32;
        }
        VertexIndex { live, ext, pos }
    }

    /// Every internal id is live, so positions are internal ids (the usual
    /// case: a store with no deleted vertex), and a kernel's per-id result
    /// is already in Python order.
    fn dense(&self) -> bool {
        self.live.len() == self.pos.len()
    }

    /// The live vertices' entries of a per-internal-id array, in position
    /// order: the array itself when every id is live, else gathered (in
    /// parallel: at a million vertices the gather is a visible share of a
    /// fast kernel's time).
    pub fn compact<T: Copy + Send + Sync>(&self, mut by_id: Vec<T>) -> Vec<T> {
        if self.dense() {
            by_id.truncate(self.live.len());
            return by_id;
        }
        self.map(&by_id, |&x| x)
    }

    /// The external id of live internal id `v`, from this index's flat
    /// table (the engine's own table is paged).
    pub fn external(&self, v: u32) -> u64 {
        let p = if self.dense() {
            v
        } else {
            self.pos[v as usize]
        };
        self.ext[p as usize]
    }

    /// `f` of each live vertex's entry of a per-internal-id array, in
    /// position order, in parallel.
    pub fn map<T: Sync, U: Send>(&self, by_id: &[T], f: impl Fn(&T) -> U + Sync + Send) -> Vec<U> {
        if self.dense() {
            return by_id[..self.live.len()].par_iter().map(f).collect();
        }
        self.live
            .par_iter()
            .map(|&v| f(&by_id[v as usize]))
            .collect()
    }
}

/// Every edge as (source ids, destination ids, weights), ordered by source
/// position, then destination internal id. An undirected edge appears once,
/// from its endpoint with the smaller internal id.
pub fn edges(
    snap: &Snapshot,
    idx: &VertexIndex,
    with_weights: bool,
) -> (Vec<u64>, Vec<u64>, Vec<f64>) {
    let m = usize::try_from(snap.edge_count()).unwrap_or(0);
    let (mut src, mut dst) = (Vec::with_capacity(m), Vec::with_capacity(m));
    let mut weights = Vec::with_capacity(if with_weights { m } else { 0 });
    let directed = snap.is_directed();
    for (&v, &ext) in idx.live.iter().zip(&idx.ext) {
        if with_weights {
            for (d, w) in snap.out_weighted_of(v) {
                if directed || v <= d {
                    src.push(ext);
                    dst.push(snap.external_id_unchecked(d));
                    weights.push(w);
                }
            }
        } else {
            snap.for_each_out_of(v, |d| {
                if directed || v <= d {
                    src.push(ext);
                    dst.push(snap.external_id_unchecked(d));
                }
            });
        }
    }
    (src, dst, weights)
}

/// The weighted adjacency matrix in CSR form over positions: (indptr,
/// indices, data). Undirected edges appear in both rows, a self-loop once
/// on the diagonal, as in networkx's `to_scipy_sparse_array`.
pub fn csr(snap: &Snapshot, idx: &VertexIndex) -> (Vec<i64>, Vec<i64>, Vec<f64>) {
    let mut indptr = Vec::with_capacity(idx.live.len() + 1);
    let (mut indices, mut data) = (Vec::new(), Vec::new());
    indptr.push(0);
    for &v in &idx.live {
        for (d, w) in snap.out_weighted_of(v) {
            indices.push(i64::from(idx.pos[d as usize]));
            data.push(w);
        }
        indptr.push(indices.len() as i64);
    }
    (indptr, indices, data)
}

/// Degrees as networkx counts them: in + out on directed graphs; on
/// undirected ones the neighbour count, a self-loop counting twice.
pub fn degree_of(snap: &Snapshot, v: u32) -> usize {
    if snap.is_directed() {
        snap.out_degree_of(v) + snap.in_degree_of(v)
    } else {
        snap.out_degree_of(v) + usize::from(snap.weight_of(v, v).is_some())
    }
}
