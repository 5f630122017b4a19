//! Global triangle counting by sorted-merge intersection on a degree-ordered orientation.
//!
//! Each triangle is counted once, from its lowest-ranked vertex, where rank orders vertices
//! by (degree, id). Orienting edges from low to high rank bounds every vertex's forward
//! neighbourhood by O(√m), which is what keeps hub-heavy social graphs tractable. The
//! orientation is applied on the fly while scanning the view; nothing is materialised except
//! one vertex's forward list in a per-task buffer.

use rayon::prelude::*;

use crate::neighborhood::{count_common_where, count_in_slice, undirected};
use crate::pool::{run_in_pool, MIN_VERTICES_PER_TASK};
use crate::view::GraphView;

/// Number of triangles in the undirected simple graph underlying `g`.
///
/// Direction is ignored, reciprocal arcs and duplicates are merged, and self-loops are
/// dropped; this is the convention behind SNAP's published "number of triangles", so for a
/// directed graph the result is the number of vertex triples that are pairwise adjacent in
/// either direction (a directed 3-cycle and a transitive triple both count once).
pub fn triangle_count<G: GraphView>(g: &G, threads: usize) -> u64 {
    run_in_pool(threads, || {
        let n = g.id_bound();
        // Degree used only for ordering; any total order is correct, degree makes it fast.
        let degree: Vec<u32> = (0..n)
            .into_par_iter()
            .map(|v| {
                if !g.contains(v) {
                    0
                } else if g.is_directed() {
                    g.out_degree(v).saturating_add(g.in_degree(v))
                } else {
                    g.out_degree(v)
                }
            })
            .collect();
        // Rank key: any total order is correct, degree order makes it fast.
        let key = |v: u32| (u64::from(degree[v as usize]) << 32) | u64::from(v);
        let directed = g.is_directed();
        (0..n)
            .into_par_iter()
            .with_min_len(MIN_VERTICES_PER_TASK)
            .filter(|&v| g.contains(v))
            .map_init(
                || (Vec::new(), Vec::new()),
                |(forward, keys), v| {
                    // v's neighbours ranked above it, ascending by id, with
                    // their rank keys beside them so the inner loops never
                    // look up a degree.
                    forward.clear();
                    keys.clear();
                    let kv = key(v);
                    for u in undirected(g, v) {
                        let ku = key(u);
                        if ku > kv {
                            forward.push(u);
                            keys.push(ku);
                        }
                    }
                    let (forward, keys) = (&forward[..], &keys[..]);
                    forward
                        .iter()
                        .zip(keys)
                        .map(|(&u, &ku)| {
                            // The third vertex is in `forward` and ranks above u.
                            let keep = |k: usize| keys[k] > ku;
                            match g.out_neighbor_slice(u).filter(|_| !directed) {
                                Some(list) => count_in_slice(forward, list, keep),
                                None => count_common_where(forward, undirected(g, u), keep),
                            }
                        })
                        .sum::<u64>()
                },
            )
            .sum()
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn k4_has_four_triangles() {
        let e = [(1, 2), (1, 3), (1, 4), (2, 3), (2, 4), (3, 4)];
        let g = CsrGraph::from_pairs(&e, None, false).unwrap();
        assert_eq!(triangle_count(&g, 1), 4);
        assert_eq!(triangle_count(&g, 2), 4);
    }

    #[test]
    fn directed_ignores_direction_loops_and_reciprocity() {
        // Cycle 1->2->3->1 plus reciprocal 2->1 and a self-loop: still one triangle.
        let e = [(1, 2), (2, 3), (3, 1), (2, 1), (3, 3), (3, 4)];
        let g = CsrGraph::from_pairs(&e, None, true).unwrap();
        assert_eq!(triangle_count(&g, 2), 1);
    }
}
