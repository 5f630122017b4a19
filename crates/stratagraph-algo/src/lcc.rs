//! Local clustering coefficient, as Graphalytics defines it for directed and undirected
//! graphs.
//!
//! `LCC(v)` counts the arcs among `v`'s neighbours, and every such arc closes a triangle
//! through `v` in the undirected graph. So the triangles are enumerated once each, as
//! triangle counting does (from the lowest-ranked vertex of a degree-ordered orientation,
//! `crate::triangles`), and each one credits its three vertices with the arcs of the
//! opposite side. Intersecting every neighbour's list with every vertex's whole
//! neighbourhood instead finds each triangle six times and pays for hubs' lists far more
//! often. Neighbour lists are read piece by piece where a store holds them in pieces
//! (`neighborhood::Adjacent`), so no list is merged for an intersection.

use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use crate::neighborhood::{rank_keys, Adjacent, Forward};
use crate::pool::{run_in_pool, MIN_VERTICES_PER_TASK};
use crate::view::GraphView;

/// Local clustering coefficient of every vertex, indexed by dense id.
///
/// `LCC(v) = Σ_{u∈N(v)} |N(v) ∩ N_out(u)| / (|N(v)|·(|N(v)|-1))` with `N(v) = N_in(v) ∪
/// N_out(v) \ {v}`, and 0 when `|N(v)| ≤ 1`. On undirected graphs this is the usual
/// "closed wedges over wedges". Counting out-edges of neighbours (rather than undirected
/// links) is what makes the directed variant count each direction of a reciprocal pair
/// separately, exactly as the specification does. Self-loops are ignored everywhere; holes
/// get 0.0.
pub fn lcc<G: GraphView>(g: &G, threads: usize) -> Vec<f64> {
    run_in_pool(threads, || {
        let key = rank_keys(g);
        // Arcs among each vertex's neighbours, credited by whichever task
        // finds a triangle through it.
        let links: Vec<AtomicU64> = (0..g.id_bound()).map(|_| AtomicU64::new(0)).collect();
        let arcs = |dirs: u8| u64::from(dirs.count_ones());
        let sizes: Vec<u64> = (0..g.id_bound())
            .into_par_iter()
            .with_min_len(MIN_VERTICES_PER_TASK)
            .map_init(
                || (Forward::new(), Adjacent::new()),
                |(forward, adjacent), v| {
                    if !g.contains(v) {
                        return 0;
                    }
                    let size = forward.load(g, v, &key);
                    let mut own = 0;
                    // Triangles v, u, w with w ranked above u: each side's
                    // arcs go to the vertex opposite it.
                    forward.each(|u, v_u, above, v_above| {
                        adjacent.find(g, u, above);
                        let mut to_u = 0;
                        for &k in &adjacent.hits {
                            own += arcs(adjacent.dirs(k));
                            to_u += arcs(v_above[k as usize]);
                            links[above[k as usize] as usize].fetch_add(arcs(v_u), Relaxed);
                        }
                        if to_u > 0 {
                            links[u as usize].fetch_add(to_u, Relaxed);
                        }
                    });
                    if own > 0 {
                        links[v as usize].fetch_add(own, Relaxed);
                    }
                    size
                },
            )
            .collect();
        sizes
            .into_par_iter()
            .zip(links)
            .map(|(k, links)| {
                if k < 2 {
                    0.0
                } else {
                    links.into_inner() as f64 / (k * (k - 1)) as f64
                }
            })
            .collect()
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn undirected_triangle_with_tail() {
        // Triangle 1-2-3 plus 3-4 and a self-loop on 3 (ignored).
        let g =
            CsrGraph::from_pairs(&[(1, 2), (2, 3), (1, 3), (3, 4), (3, 3)], None, false).unwrap();
        let l = lcc(&g, 2);
        assert_eq!(l, vec![1.0, 1.0, 1.0 / 3.0, 0.0]);
    }

    #[test]
    fn directed_counts_each_direction() {
        // N(1) = {2,3}. Arcs between them: 2->3 and 3->2, so LCC(1) = 2/2 = 1.
        // With only 2->3 it would be 1/2.
        let both = CsrGraph::from_pairs(&[(1, 2), (3, 1), (2, 3), (3, 2)], None, true).unwrap();
        assert_eq!(lcc(&both, 1)[0], 1.0);
        let one = CsrGraph::from_pairs(&[(1, 2), (3, 1), (2, 3)], None, true).unwrap();
        assert_eq!(lcc(&one, 1)[0], 0.5);
        // Reciprocal arc 1<->2 counts once in |N(1)|.
        let recip = CsrGraph::from_pairs(&[(1, 2), (2, 1), (1, 3), (2, 3)], None, true).unwrap();
        // N(1) = {2,3}; arcs among them: 2->3 only -> 1/2.
        assert_eq!(lcc(&recip, 2)[0], 0.5);
    }
}
