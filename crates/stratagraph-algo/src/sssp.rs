//! Delta-stepping single-source shortest paths (Meyer & Sanders), in the bucket-fusion form
//! used by the GAP benchmark suite.
//!
//! Vertices are kept in buckets of width `delta` by tentative distance; all vertices of the
//! lowest non-empty bucket are relaxed in parallel, and the bucket is re-processed until no
//! relaxation lands in it again. Light and heavy edges are relaxed together, which keeps the
//! code short at the price of a few redundant relaxations. Each bucket entry carries the
//! distance it was made with, and only the entry of a vertex's current distance relaxes its
//! edges: a vertex whose distance drops several times reads its list once, not once per
//! drop (on the W1 graph at scale 20 that halved the kernel's time on the static CSR and on
//! the store alike). Distances live in `AtomicU64`s
//! holding `f64` bits: for non-negative floats the bit patterns order like the values, so a
//! single `fetch_min` is a correct lock-free relaxation.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::pool::{run_in_pool, MIN_VERTICES_PER_TASK, ORDERED_FRONTIER};
use crate::view::GraphView;

/// Why shortest paths could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SsspError {
    /// Graphalytics (and delta-stepping) require weights `>= 0`; NaN is rejected too.
    #[error("edge {from} -> {to} has weight {weight}, but weights must be >= 0")]
    InvalidWeight {
        /// External id of the edge's source.
        from: u64,
        /// External id of the edge's target.
        to: u64,
        /// The offending weight.
        weight: f64,
    },
    /// The bucket width must be a positive number.
    #[error("delta must be positive, got {0}")]
    InvalidDelta(f64),
}

/// Weighted distances from `source` with an automatically chosen bucket width.
///
/// Uses the mean edge weight as `delta` (1.0 if all weights are zero), a choice that keeps
/// the average bucket holding roughly one hop of work. See [`sssp_with_delta`].
pub fn sssp<G: GraphView>(g: &G, source: u32, threads: usize) -> Result<Vec<f64>, SsspError> {
    run_in_pool(threads, || {
        let (sum, arcs) = check_weights(g)?;
        let mean = if arcs == 0 { 0.0 } else { sum / arcs as f64 };
        let delta = if mean > 0.0 { mean } else { 1.0 };
        Ok(delta_stepping(g, source, delta))
    })
}

/// Weighted distances from `source` (out-edges on directed graphs), indexed by dense id.
///
/// Unreachable vertices and holes get `f64::INFINITY`; the source gets 0.0 (or everything is
/// infinite if the source is a hole). `delta` is the bucket width: small values approach
/// Dijkstra's work efficiency, large ones Bellman-Ford's parallelism.
pub fn sssp_with_delta<G: GraphView>(
    g: &G,
    source: u32,
    delta: f64,
    threads: usize,
) -> Result<Vec<f64>, SsspError> {
    if delta.is_nan() || delta <= 0.0 {
        return Err(SsspError::InvalidDelta(delta));
    }
    run_in_pool(threads, || {
        check_weights(g)?;
        Ok(delta_stepping(g, source, delta))
    })
}

/// Rejects negative or NaN weights up front (the relaxation's bit-order trick and the
/// bucket invariant both depend on it) and returns the weight sum and arc count.
fn check_weights<G: GraphView>(g: &G) -> Result<(f64, u64), SsspError> {
    // One pass over the weights alone (a store need not read the
    // destinations beside them), and no existence test: holes have no
    // edges (a `GraphView` rule), and asking a store whether each vertex
    // exists is not free. The lowest vertex with a bad weight is kept.
    let (sum, arcs, bad) = (0..g.id_bound())
        .into_par_iter()
        .with_min_len(MIN_VERTICES_PER_TASK)
        .map(|v| {
            let mut acc = (0.0, 0u64, None);
            g.for_each_out_weight_unordered(v, |w| {
                if w.is_nan() || w < 0.0 {
                    acc.2 = Some(v);
                }
                acc.0 += w;
                acc.1 += 1;
            });
            acc
        })
        .reduce(
            || (0.0, 0, None),
            |a, b| (a.0 + b.0, a.1 + b.1, a.2.or(b.2)),
        );
    if let Some(v) = bad {
        // Its first bad edge, in the same order, names the destination.
        let mut first = None;
        g.for_each_out_weighted_unordered(v, |u, w| {
            if (w.is_nan() || w < 0.0) && first.is_none() {
                first = Some((u, w));
            }
        });
        let (u, w) = first.unwrap_or((v, f64::NAN));
        return Err(SsspError::InvalidWeight {
            from: g.external_id(v),
            to: g.external_id(u),
            weight: w,
        });
    }
    Ok((sum, arcs))
}

/// Vertices waiting in each bucket, each with the distance (as `f64` bits)
/// it had when it was put there.
type Bins = BTreeMap<u64, Vec<(u32, u64)>>;

fn merge_bins(mut a: Bins, b: Bins) -> Bins {
    for (k, mut v) in b {
        let slot = a.entry(k).or_default();
        if slot.len() < v.len() {
            std::mem::swap(slot, &mut v);
        }
        slot.extend_from_slice(&v);
    }
    a
}

fn delta_stepping<G: GraphView>(g: &G, source: u32, delta: f64) -> Vec<f64> {
    let n = g.id_bound() as usize;
    let inf = f64::INFINITY.to_bits();
    let dist: Vec<AtomicU64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU64::new(inf))
        .collect();
    // `as` saturates, so infinite distances land in the last bucket instead of wrapping.
    let bucket_of = |d: f64| (d / delta) as u64;
    let mut pending = Bins::new();
    if g.contains(source) {
        dist[source as usize].store(0.0f64.to_bits(), Relaxed);
        pending.insert(0, vec![(source, 0.0f64.to_bits())]);
    }
    while let Some((bucket, mut frontier)) = pending.pop_first() {
        while !frontier.is_empty() {
            if frontier.len() >= ORDERED_FRONTIER {
                frontier.par_sort_unstable_by_key(|&(u, _)| u);
            }
            let mut produced = frontier
                .par_iter()
                .fold(Bins::new, |mut bins, &(u, pushed)| {
                    // A vertex whose distance dropped after this entry was
                    // made has a newer entry, which relaxes its edges with
                    // that distance: this one would read its list for
                    // nothing (and if the drop was into an earlier bucket,
                    // it was settled there).
                    let bits = dist[u as usize].load(Relaxed);
                    if bits != pushed {
                        return bins;
                    }
                    let du = f64::from_bits(bits);
                    // Order does not matter here; a store then reads a list
                    // in pieces without merging it.
                    g.for_each_out_weighted_unordered(u, |w, weight| {
                        let nd = du + weight;
                        let bits = nd.to_bits();
                        let slot = &dist[w as usize];
                        // Most relaxations improve nothing: a plain load
                        // spares them the locked `fetch_min`, which waits
                        // for every earlier load.
                        if bits < slot.load(Relaxed) && bits < slot.fetch_min(bits, Relaxed) {
                            bins.entry(bucket_of(nd)).or_default().push((w, bits));
                        }
                    });
                    bins
                })
                .reduce(Bins::new, merge_bins);
            frontier = produced.remove(&bucket).unwrap_or_default();
            pending = merge_bins(pending, produced);
        }
    }
    dist.into_par_iter()
        .map(|d| f64::from_bits(d.into_inner()))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn takes_cheaper_longer_path() {
        // 1->2 costs 10 directly but 1 via 3; 4 is unreachable.
        let g = CsrGraph::from_edges(
            &[(1, 2, 10.0), (1, 3, 0.5), (3, 2, 0.5), (4, 1, 1.0)],
            None,
            true,
            true,
        )
        .unwrap();
        for delta in [0.1, 1.0, 100.0] {
            let d = sssp_with_delta(&g, 0, delta, 2).unwrap();
            assert_eq!(d, vec![0.0, 1.0, 0.5, f64::INFINITY]);
        }
        assert_eq!(sssp(&g, 0, 1).unwrap()[1], 1.0);
    }

    /// On a store whose weights are read without their destinations (a
    /// packed level), the error still names the first bad edge of the
    /// lowest vertex that has one.
    #[test]
    fn a_store_names_its_first_bad_edge() {
        let g = stratagraph::Graph::in_memory(stratagraph::Options {
            pack_levels: true,
            ..stratagraph::Options::default()
        });
        g.insert_vertices(&(0..40).collect::<Vec<u64>>()).unwrap();
        let mut edges: Vec<(u64, u64, f64)> = (0..39).map(|v| (v, v + 1, 1.5)).collect();
        edges.extend([(30, 2, -2.0), (12, 7, 0.5), (12, 9, -1.0), (12, 20, -3.0)]);
        g.insert_edges(&edges).unwrap();
        g.compact().unwrap();
        let snap = g.snapshot();
        assert_eq!(
            sssp(&snap, 0, 2),
            Err(SsspError::InvalidWeight {
                from: 12,
                to: 9,
                weight: -1.0
            })
        );
        g.insert_edges(&[(12, 9, 1.0), (12, 20, 1.0)]).unwrap();
        g.compact().unwrap();
        assert!(matches!(
            sssp(&g.snapshot(), 0, 1),
            Err(SsspError::InvalidWeight {
                from: 30,
                to: 2,
                ..
            })
        ));
        g.insert_edges(&[(30, 2, 0.0)]).unwrap();
        let d = sssp(&g.snapshot(), 0, 1).unwrap();
        // 0 to 12 along the path, 12 -> 20 at 1.0, then the path again.
        assert_eq!(d[39], 12.0 * 1.5 + 1.0 + 19.0 * 1.5);
    }

    #[test]
    fn zero_weights_are_allowed() {
        let g = CsrGraph::from_edges(&[(1, 2, 0.0), (2, 3, 0.0)], None, false, true).unwrap();
        assert_eq!(sssp(&g, 2, 1).unwrap(), vec![0.0, 0.0, 0.0]);
    }

    #[test]
    fn rejects_negative_weight_and_bad_delta() {
        let g = CsrGraph::from_edges(&[(1, 2, -1.0)], None, true, true).unwrap();
        assert!(matches!(
            sssp(&g, 0, 1),
            Err(SsspError::InvalidWeight { from: 1, to: 2, .. })
        ));
        assert!(matches!(
            sssp_with_delta(&g, 0, 0.0, 1),
            Err(SsspError::InvalidDelta(_))
        ));
    }
}
