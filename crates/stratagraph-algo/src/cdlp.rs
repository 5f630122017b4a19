//! Community detection by synchronous label propagation, as Graphalytics defines it.
//!
//! Every vertex adopts the most frequent label among its neighbours, ties going to the
//! smallest label. Labels are collected into a per-task buffer and sorted, which handles the
//! tie rule for free (the first longest run is the smallest label) and avoids hashing.

use rayon::prelude::*;

use crate::pool::{run_in_pool, MIN_VERTICES_PER_TASK};
use crate::view::GraphView;

/// Label reported for holes.
pub const CDLP_HOLE: u64 = u64::MAX;

/// Labels after exactly `iterations` synchronous rounds, indexed by dense id.
///
/// Initial labels are external ids ([`GraphView::external_id`]), so results compare directly
/// with Graphalytics outputs. On directed graphs in- and out-neighbours are both counted, so
/// a reciprocal neighbour votes twice (per the specification). A vertex without neighbours
/// keeps its label. Self-loops do not vote: `N(v)` never contains `v`. No early stop, since
/// labels may oscillate. Holes get [`CDLP_HOLE`].
pub fn cdlp<G: GraphView>(g: &G, iterations: u32, threads: usize) -> Vec<u64> {
    run_in_pool(threads, || {
        let n = g.id_bound();
        let mut labels: Vec<u64> = (0..n)
            .into_par_iter()
            .map(|v| {
                if g.contains(v) {
                    g.external_id(v)
                } else {
                    CDLP_HOLE
                }
            })
            .collect();
        for _ in 0..iterations {
            labels = (0..n)
                .into_par_iter()
                .with_min_len(MIN_VERTICES_PER_TASK)
                .map_init(Vec::new, |buf, v| {
                    let own = labels[v as usize];
                    if !g.contains(v) {
                        return own;
                    }
                    buf.clear();
                    // `for_each` rather than `extend`: it folds, which a
                    // store's neighbour iterator runs as a plain slice loop
                    // (`extend` steps `next` per element).
                    let mut vote = |u: u32| {
                        if u != v {
                            buf.push(labels[u as usize]);
                        }
                    };
                    g.out_neighbors(v).for_each(&mut vote);
                    if g.is_directed() {
                        g.in_neighbors(v).for_each(&mut vote);
                    }
                    most_frequent_smallest(buf).unwrap_or(own)
                })
                .collect();
        }
        labels
    })
}

/// The most frequent value, smallest on ties; `None` for an empty buffer.
fn most_frequent_smallest(buf: &mut [u64]) -> Option<u64> {
    buf.sort_unstable();
    let mut best: Option<(usize, u64)> = None;
    for run in buf.chunk_by(|a, b| a == b) {
        let better = match best {
            None => true,
            Some((len, _)) => run.len() > len,
        };
        if better {
            best = Some((run.len(), run[0]));
        }
    }
    best.map(|(_, label)| label)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn tie_takes_smallest_label() {
        assert_eq!(most_frequent_smallest(&mut [7, 3, 7, 3, 9]), Some(3));
        assert_eq!(most_frequent_smallest(&mut [7, 3, 7]), Some(7));
        assert_eq!(most_frequent_smallest(&mut []), None);
    }

    #[test]
    fn path_by_hand() {
        // Undirected path 10-20-30 plus isolated 40.
        // Round 1: 10 <- {20} = 20; 20 <- {10,30} tie = 10; 30 <- {20} = 20; 40 keeps 40.
        // Round 2: 10 <- {10} = 10; 20 <- {20,20} = 20; 30 <- {10} = 10.
        let g = CsrGraph::from_pairs(&[(10, 20), (20, 30)], Some(&[40]), false).unwrap();
        assert_eq!(cdlp(&g, 1, 2), vec![20, 10, 20, 40]);
        assert_eq!(cdlp(&g, 2, 1), vec![10, 20, 10, 40]);
    }

    #[test]
    fn directed_reciprocal_neighbour_votes_twice() {
        // 1 <-> 2, 3 -> 1, 4 -> 1: vertex 1 sees labels {2, 2, 3, 4} and picks 2.
        let g = CsrGraph::from_pairs(&[(1, 2), (2, 1), (3, 1), (4, 1)], None, true).unwrap();
        assert_eq!(cdlp(&g, 1, 1)[0], 2);
    }
}
