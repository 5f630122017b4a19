//! Static compressed-sparse-row graph: the yardstick the engine is benchmarked against.
//!
//! It is deliberately the fastest layout a read-only graph can have (contiguous `u32` target
//! arrays, a separate in-CSR for directed graphs, weights in their own column so unweighted
//! scans never touch them) so that "engine vs. CSR" measures the real cost of dynamism.

use std::ops::Range;

use rayon::prelude::*;
use stratagraph::on_huge_pages;

use crate::view::GraphView;

/// Why a [`CsrGraph`] could not be built.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// Dense ids are `u32` and `u32::MAX` is reserved as a sentinel by the kernels.
    #[error("graph has {0} distinct vertices, more than the {max} a u32 id space allows", max = u32::MAX - 1)]
    TooManyVertices(usize),
}

/// An immutable CSR graph with dense ids `0..n` assigned in ascending external-id order.
///
/// Because dense ids follow external-id order, "smallest dense id" and "smallest external
/// id" coincide, which keeps WCC representatives and CDLP tie-breaks aligned with the
/// Graphalytics reference outputs without any extra mapping.
#[derive(Debug, Clone)]
pub struct CsrGraph {
    directed: bool,
    ext_ids: Vec<u64>,
    out_offsets: Vec<usize>,
    out_targets: Vec<u32>,
    out_weights: Option<Vec<f64>>,
    /// Empty for undirected graphs: the out-CSR already holds both directions.
    in_offsets: Vec<usize>,
    in_targets: Vec<u32>,
    edge_count: u64,
}

/// Arc key: source in the high half, target in the low half, so sorting keys sorts arcs by
/// (source, target) with a single integer comparison.
fn arc_key(src: u32, dst: u32) -> u64 {
    (u64::from(src) << 32) | u64::from(dst)
}

fn key_src(key: u64) -> u32 {
    (key >> 32) as u32
}

fn key_dst(key: u64) -> u32 {
    key as u32
}

/// Offsets for `n` vertices over arcs sorted by source: `offsets[v]` is the first arc whose
/// source is `>= v`. Computed by independent binary searches so it parallelises trivially.
fn offsets_from_sorted(keys: &[u64], n: usize) -> Vec<usize> {
    (0..=n)
        .into_par_iter()
        .map(|v| keys.partition_point(|&k| (key_src(k) as usize) < v))
        .collect()
}

impl CsrGraph {
    /// Builds a graph from `(external src, external dst, weight)` edges.
    ///
    /// `vertices` adds vertices that may have no edges (Graphalytics `.v` files); every edge
    /// endpoint becomes a vertex whether or not it is listed. For undirected graphs each edge
    /// is stored in both directions. Duplicate arcs are merged, keeping the smallest weight
    /// (the only one shortest paths can use). Self-loops are kept; kernels that must ignore
    /// them (TC, LCC, CDLP) do so themselves. With `weighted == false` the weights are
    /// dropped and [`GraphView::out_weighted`] reports 1.0.
    pub fn from_edges(
        edges: &[(u64, u64, f64)],
        vertices: Option<&[u64]>,
        directed: bool,
        weighted: bool,
    ) -> Result<Self, BuildError> {
        let ext_ids = collect_ids(edges.par_iter().map(|e| (e.0, e.1)), vertices)?;
        let n = ext_ids.len();
        let dense = |x: u64| ext_ids.binary_search(&x).unwrap_or(0) as u32;
        if weighted {
            let mut arcs: Vec<(u64, f64)> = edges
                .par_iter()
                .flat_map_iter(|&(s, d, w)| {
                    let (s, d) = (dense(s), dense(d));
                    let rev = (!directed && s != d).then(|| (arc_key(d, s), w));
                    std::iter::once((arc_key(s, d), w)).chain(rev)
                })
                .collect();
            arcs.par_sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            arcs.dedup_by_key(|a| a.0);
            let (keys, weights): (Vec<u64>, Vec<f64>) = arcs.into_par_iter().unzip();
            Ok(Self::from_sorted_keys(
                ext_ids,
                keys,
                Some(weights),
                directed,
            ))
        } else {
            let mut keys: Vec<u64> = edges
                .par_iter()
                .flat_map_iter(|&(s, d, _)| arcs_of(dense(s), dense(d), directed))
                .collect();
            keys.par_sort_unstable();
            keys.dedup();
            debug_assert!(n == 0 || keys.iter().all(|&k| (key_src(k) as usize) < n));
            Ok(Self::from_sorted_keys(ext_ids, keys, None, directed))
        }
    }

    /// Builds an unweighted graph from `(external src, external dst)` pairs; see
    /// [`CsrGraph::from_edges`] for the rules on vertices, duplicates and self-loops.
    pub fn from_pairs(
        edges: &[(u64, u64)],
        vertices: Option<&[u64]>,
        directed: bool,
    ) -> Result<Self, BuildError> {
        let ext_ids = collect_ids(edges.par_iter().copied(), vertices)?;
        let dense = |x: u64| ext_ids.binary_search(&x).unwrap_or(0) as u32;
        let mut keys: Vec<u64> = edges
            .par_iter()
            .flat_map_iter(|&(s, d)| arcs_of(dense(s), dense(d), directed))
            .collect();
        keys.par_sort_unstable();
        keys.dedup();
        Ok(Self::from_sorted_keys(ext_ids, keys, None, directed))
    }

    fn from_sorted_keys(
        ext_ids: Vec<u64>,
        keys: Vec<u64>,
        out_weights: Option<Vec<f64>>,
        directed: bool,
    ) -> Self {
        let n = ext_ids.len();
        let out_offsets = offsets_from_sorted(&keys, n);
        let out_targets: Vec<u32> = keys.par_iter().map(|&k| key_dst(k)).collect();
        let loops = keys
            .par_iter()
            .filter(|&&k| key_src(k) == key_dst(k))
            .count() as u64;
        let arcs = keys.len() as u64;
        let (in_offsets, in_targets, edge_count) = if directed {
            let mut rev: Vec<u64> = keys
                .par_iter()
                .map(|&k| arc_key(key_dst(k), key_src(k)))
                .collect();
            drop(keys);
            rev.par_sort_unstable();
            let offsets = offsets_from_sorted(&rev, n);
            let targets = rev.par_iter().map(|&k| key_dst(k)).collect();
            (offsets, targets, arcs)
        } else {
            (Vec::new(), Vec::new(), (arcs - loops) / 2 + loops)
        };
        // Placed as the engine places its level columns, so comparisons
        // with it are like for like (see `stratagraph::on_huge_pages`).
        CsrGraph {
            directed,
            ext_ids,
            out_offsets: on_huge_pages(out_offsets),
            out_targets: on_huge_pages(out_targets),
            out_weights: out_weights.map(on_huge_pages),
            in_offsets: on_huge_pages(in_offsets),
            in_targets: on_huge_pages(in_targets),
            edge_count,
        }
    }

    /// Dense id of an external id, if that vertex exists.
    pub fn dense_id(&self, external: u64) -> Option<u32> {
        self.ext_ids.binary_search(&external).ok().map(|i| i as u32)
    }

    /// External ids indexed by dense id (ascending).
    pub fn external_ids(&self) -> &[u64] {
        &self.ext_ids
    }

    /// Whether the graph carries an explicit weight column.
    pub fn is_weighted(&self) -> bool {
        self.out_weights.is_some()
    }

    /// Bytes held by the graph's arrays (ids, offsets, targets, weights).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        self.ext_ids.len() * size_of::<u64>()
            + (self.out_offsets.len() + self.in_offsets.len()) * size_of::<usize>()
            + (self.out_targets.len() + self.in_targets.len()) * size_of::<u32>()
            + self
                .out_weights
                .as_ref()
                .map_or(0, |w| w.len() * size_of::<f64>())
    }

    /// Out-neighbours of `v` as a slice (empty if `v` is out of range).
    pub fn out_slice(&self, v: u32) -> &[u32] {
        &self.out_targets[range(&self.out_offsets, v)]
    }

    /// In-neighbours of `v` as a slice (empty if `v` is out of range).
    pub fn in_slice(&self, v: u32) -> &[u32] {
        if self.directed {
            &self.in_targets[range(&self.in_offsets, v)]
        } else {
            self.out_slice(v)
        }
    }
}

/// One arc for a directed edge, two for an undirected non-loop edge.
fn arcs_of(s: u32, d: u32, directed: bool) -> impl Iterator<Item = u64> {
    let rev = (!directed && s != d).then(|| arc_key(d, s));
    std::iter::once(arc_key(s, d)).chain(rev)
}

/// Sorted, deduplicated external ids of all endpoints plus the explicit vertex list.
fn collect_ids(
    endpoints: impl ParallelIterator<Item = (u64, u64)>,
    vertices: Option<&[u64]>,
) -> Result<Vec<u64>, BuildError> {
    let mut ids: Vec<u64> = endpoints.flat_map_iter(|(s, d)| [s, d]).collect();
    if let Some(vs) = vertices {
        ids.extend_from_slice(vs);
    }
    ids.par_sort_unstable();
    ids.dedup();
    if ids.len() >= u32::MAX as usize {
        return Err(BuildError::TooManyVertices(ids.len()));
    }
    Ok(ids)
}

/// Arc range of `v`, or an empty range for out-of-range ids so bad ids cannot panic.
fn range(offsets: &[usize], v: u32) -> Range<usize> {
    let v = v as usize;
    match (offsets.get(v), offsets.get(v + 1)) {
        (Some(&a), Some(&b)) => a..b,
        _ => 0..0,
    }
}

/// Weighted out-edge iterator: zips the target slice with the weight column, or with a
/// constant 1.0 when the graph is unweighted.
#[derive(Debug, Clone)]
pub struct WeightedIter<'a> {
    targets: std::slice::Iter<'a, u32>,
    weights: Option<std::slice::Iter<'a, f64>>,
}

impl Iterator for WeightedIter<'_> {
    type Item = (u32, f64);

    #[inline]
    fn next(&mut self) -> Option<(u32, f64)> {
        let t = *self.targets.next()?;
        let w = match &mut self.weights {
            Some(ws) => ws.next().copied().unwrap_or(1.0),
            None => 1.0,
        };
        Some((t, w))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.targets.size_hint()
    }
}

impl GraphView for CsrGraph {
    type Neighbors<'a> = std::iter::Copied<std::slice::Iter<'a, u32>>;
    type Weighted<'a> = WeightedIter<'a>;

    fn id_bound(&self) -> u32 {
        self.ext_ids.len() as u32
    }

    fn contains(&self, v: u32) -> bool {
        (v as usize) < self.ext_ids.len()
    }

    fn vertex_count(&self) -> u64 {
        self.ext_ids.len() as u64
    }

    fn edge_count(&self) -> u64 {
        self.edge_count
    }

    fn is_directed(&self) -> bool {
        self.directed
    }

    #[inline]
    fn out_degree(&self, v: u32) -> u32 {
        range(&self.out_offsets, v).len() as u32
    }

    #[inline]
    fn in_degree(&self, v: u32) -> u32 {
        if self.directed {
            range(&self.in_offsets, v).len() as u32
        } else {
            self.out_degree(v)
        }
    }

    #[inline]
    fn out_neighbors(&self, v: u32) -> Self::Neighbors<'_> {
        self.out_slice(v).iter().copied()
    }

    #[inline]
    fn in_neighbors(&self, v: u32) -> Self::Neighbors<'_> {
        self.in_slice(v).iter().copied()
    }

    #[inline]
    fn out_weighted(&self, v: u32) -> Self::Weighted<'_> {
        let r = range(&self.out_offsets, v);
        WeightedIter {
            targets: self.out_targets[r.clone()].iter(),
            weights: self.out_weights.as_ref().map(|w| w[r].iter()),
        }
    }

    fn external_id(&self, v: u32) -> u64 {
        self.ext_ids.get(v as usize).copied().unwrap_or(u64::MAX)
    }

    #[inline]
    fn out_neighbor_slice(&self, v: u32) -> Option<&[u32]> {
        Some(self.out_slice(v))
    }

    fn with_out_pieces<R>(&self, v: u32, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        f(&[self.out_slice(v)])
    }

    fn with_in_pieces<R>(&self, v: u32, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        f(&[self.in_slice(v)])
    }

    fn scan_out_range(&self, range: std::ops::Range<u32>, mut f: impl FnMut(u32, &[u32])) {
        for v in range {
            f(v, self.out_slice(v));
        }
    }

    fn scan_in_range(&self, range: std::ops::Range<u32>, mut f: impl FnMut(u32, &[u32])) {
        for v in range {
            f(v, self.in_slice(v));
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;

    #[test]
    fn undirected_build_symmetrises_and_dedupes() {
        // Edge listed in both directions plus a duplicate and a self-loop.
        let g = CsrGraph::from_pairs(
            &[(10, 20), (20, 10), (10, 20), (30, 30)],
            Some(&[40]),
            false,
        )
        .unwrap();
        assert_eq!(g.external_ids(), &[10, 20, 30, 40]);
        assert_eq!(g.out_slice(0), &[1]);
        assert_eq!(g.out_slice(1), &[0]);
        assert_eq!(g.out_slice(2), &[2]);
        assert_eq!(g.out_slice(3), &[] as &[u32]);
        assert_eq!(g.edge_count(), 2);
        assert_eq!(g.in_degree(1), 1);
        assert_eq!(g.dense_id(30), Some(2));
        assert_eq!(g.dense_id(35), None);
    }

    #[test]
    fn directed_build_has_in_csr_and_min_weight() {
        let g = CsrGraph::from_edges(
            &[(1, 2, 5.0), (1, 2, 3.0), (3, 1, 1.5), (1, 3, 2.0)],
            None,
            true,
            true,
        )
        .unwrap();
        assert_eq!(g.edge_count(), 3);
        assert_eq!(
            g.out_weighted(0).collect::<Vec<_>>(),
            vec![(1, 3.0), (2, 2.0)]
        );
        assert_eq!(g.in_slice(0), &[2]);
        assert_eq!(g.in_slice(1), &[0]);
        assert_eq!(g.in_degree(2), 1);
        assert_eq!(g.out_degree(7), 0);
        assert_eq!(g.out_neighbors(99).count(), 0);
    }

    #[test]
    fn unweighted_reports_unit_weights() {
        let g = CsrGraph::from_edges(&[(1, 2, 5.0)], None, true, false).unwrap();
        assert!(!g.is_weighted());
        assert_eq!(g.out_weighted(0).collect::<Vec<_>>(), vec![(1, 1.0)]);
    }
}
