//! Global triangle counting by sorted-merge intersection on a degree-ordered orientation.
//!
//! Each triangle is counted once, from its lowest-ranked vertex, where rank orders vertices
//! by (degree, id) (`neighborhood::rank_keys`). The orientation is applied on the fly while
//! scanning the view; nothing is materialised except one vertex's forward list in a per-task
//! buffer. Each forward neighbour's list is intersected with it piece by piece where a store
//! holds it in pieces, so no list is merged first.

use rayon::prelude::*;

use crate::neighborhood::{count_in_slice, rank_keys, Adjacent, Forward};
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
        let key = rank_keys(g);
        (0..g.id_bound())
            .into_par_iter()
            .with_min_len(MIN_VERTICES_PER_TASK)
            .filter(|&v| g.contains(v))
            .map_init(
                || (Forward::new(), Adjacent::new()),
                |(forward, adjacent), v| {
                    forward.load(g, v, &key);
                    let mut count = 0;
                    // Triangles v, u, w with w ranked above u.
                    forward.each(|u, _, above, _| {
                        count += if g.is_directed() {
                            // Its arcs with u may run either way, or both.
                            adjacent.find(g, u, above);
                            adjacent.hits.len() as u64
                        } else if above.is_empty() {
                            0
                        } else {
                            g.with_out_pieces(u, |pieces| {
                                pieces.iter().map(|p| count_in_slice(above, p)).sum()
                            })
                        };
                    });
                    count
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
