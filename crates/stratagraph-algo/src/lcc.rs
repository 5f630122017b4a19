//! Local clustering coefficient, as Graphalytics defines it for directed and undirected
//! graphs.
//!
//! For each vertex the undirected neighbourhood `N(v)` (in ∪ out, without `v`) is copied
//! into a per-task buffer; then each neighbour's out-list is intersected with it, piece by
//! piece where a store holds it in pieces (`GraphView::with_out_pieces`). Counting
//! out-edges of neighbours (rather than undirected links) is what makes the directed variant
//! count each direction of a reciprocal pair separately, exactly as the specification does.

use rayon::prelude::*;

use crate::neighborhood::{count_common, undirected_into};
use crate::pool::{run_in_pool, MIN_VERTICES_PER_TASK};
use crate::view::GraphView;

/// Local clustering coefficient of every vertex, indexed by dense id.
///
/// `LCC(v) = Σ_{u∈N(v)} |N(v) ∩ N_out(u)| / (|N(v)|·(|N(v)|-1))` with `N(v) = N_in(v) ∪
/// N_out(v) \ {v}`, and 0 when `|N(v)| ≤ 1`. On undirected graphs this is the usual
/// "closed wedges over wedges". Self-loops are ignored everywhere; holes get 0.0.
pub fn lcc<G: GraphView>(g: &G, threads: usize) -> Vec<f64> {
    run_in_pool(threads, || {
        (0..g.id_bound())
            .into_par_iter()
            .with_min_len(MIN_VERTICES_PER_TASK)
            .map_init(Vec::new, |buf, v| {
                if !g.contains(v) {
                    return 0.0;
                }
                undirected_into(g, v, buf);
                let k = buf.len() as u64;
                if k < 2 {
                    return 0.0;
                }
                // `u`'s out-list may come in disjoint pieces; their
                // counts add up. `buf` lacks `v`, so only `u` itself (a
                // self-loop) needs leaving out.
                let links: u64 = buf
                    .iter()
                    .map(|&u| {
                        g.with_out_pieces(u, |pieces| {
                            pieces.iter().map(|p| count_common(buf, p, u)).sum::<u64>()
                        })
                    })
                    .sum();
                links as f64 / (k * (k - 1)) as f64
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
