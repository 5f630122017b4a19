//! Pull-based PageRank with the Graphalytics dangling-vertex rule.
//!
//! Pull (each vertex sums over its in-neighbours) needs no atomics and writes every score
//! exactly once per iteration, so results are identical for any thread count. Sinks (out-
//! degree 0) would otherwise leak rank; Graphalytics redistributes their total rank evenly
//! over all vertices, which keeps the scores summing to 1.

use rayon::prelude::*;

use crate::pool::{run_in_pool, MIN_VERTICES_PER_TASK};
use crate::view::GraphView;

/// PageRank scores after exactly `iterations` synchronous iterations, indexed by dense id.
///
/// `PR_0(v) = 1/|V|` and
/// `PR_i(v) = (1-d)/|V| + d·Σ_{u→v} PR_{i-1}(u)/outdeg(u) + d/|V|·Σ_{outdeg(w)=0} PR_{i-1}(w)`,
/// with `|V|` = [`GraphView::vertex_count`] (holes are not vertices and score 0.0). There is
/// no early stop, as the specification demands. A self-loop is an ordinary edge: it counts
/// in the out-degree and feeds rank back to its vertex.
pub fn pagerank<G: GraphView>(g: &G, damping: f64, iterations: u32, threads: usize) -> Vec<f64> {
    run_in_pool(threads, || pagerank_in_pool(g, damping, iterations))
}

fn pagerank_in_pool<G: GraphView>(g: &G, damping: f64, iterations: u32) -> Vec<f64> {
    let n = g.id_bound();
    let count = g.vertex_count();
    if count == 0 {
        return vec![0.0; n as usize];
    }
    let inv_n = 1.0 / count as f64;
    // Existence is looked up once: on a store it is not free, and the
    // iterations would ask for every vertex each time.
    let alive: Vec<bool> = (0..n).into_par_iter().map(|v| g.contains(v)).collect();
    let live = |v: u32| alive[v as usize];
    let mut rank: Vec<f64> = (0..n)
        .into_par_iter()
        .map(|v| if live(v) { inv_n } else { 0.0 })
        .collect();
    let out_degree: Vec<u32> = (0..n)
        .into_par_iter()
        .map(|v| if live(v) { g.out_degree(v) } else { 0 })
        .collect();
    // rank / out-degree, precomputed once per iteration so each edge costs one load.
    let mut contrib = vec![0.0; n as usize];
    for _ in 0..iterations {
        let dangling = dangling_sum(&rank, &out_degree);
        contrib
            .par_iter_mut()
            .with_min_len(MIN_VERTICES_PER_TASK)
            .enumerate()
            .for_each(|(v, c)| {
                let d = out_degree[v];
                *c = if d == 0 { 0.0 } else { rank[v] / f64::from(d) };
            });
        let base = (1.0 - damping) * inv_n + damping * dangling * inv_n;
        // By ranges of vertices, so a store reads each range's in-lists
        // straight from its level (`scan_in_range`).
        rank.par_chunks_mut(MIN_VERTICES_PER_TASK)
            .enumerate()
            .for_each(|(chunk, ranks)| {
                let start = (chunk * MIN_VERTICES_PER_TASK) as u32;
                let end = start + ranks.len() as u32;
                // Unordered: a store's in-edges in several layers come as
                // pieces, summed one after the other (the same order every
                // run).
                g.scan_in_unordered(start..end, |v, pieces| {
                    ranks[(v - start) as usize] = if live(v) {
                        let sum = |l: &[u32]| l.iter().map(|&u| contrib[u as usize]).sum::<f64>();
                        let incoming: f64 = pieces.iter().map(|l| sum(l)).sum();
                        base + damping * incoming
                    } else {
                        0.0
                    };
                });
            });
    }
    rank
}

/// Total rank of sinks. Summed in fixed-size blocks, then sequentially over the blocks, so
/// the floating-point result does not depend on how rayon splits the work (and therefore on
/// the thread count). Holes have rank 0.0, so including them is harmless.
fn dangling_sum(rank: &[f64], out_degree: &[u32]) -> f64 {
    const BLOCK: usize = 4096;
    let blocks: Vec<f64> = rank
        .par_chunks(BLOCK)
        .zip(out_degree.par_chunks(BLOCK))
        .map(|(r, d)| {
            r.iter()
                .zip(d)
                .filter(|&(_, &deg)| deg == 0)
                .map(|(&x, _)| x)
                .sum()
        })
        .collect();
    blocks.iter().sum()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn two_vertex_chain_by_hand() {
        // 1 -> 2, vertex 2 is a sink. d = 0.5, |V| = 2.
        // it 1: dangling = 0.5; base = 0.25 + 0.5*0.5*0.5 = 0.375
        //       PR(1) = 0.375, PR(2) = 0.375 + 0.5*0.5 = 0.625
        // it 2: dangling = 0.625; base = 0.25 + 0.5*0.625*0.5 = 0.40625
        //       PR(1) = 0.40625, PR(2) = 0.40625 + 0.5*0.375 = 0.59375
        let g = CsrGraph::from_pairs(&[(1, 2)], None, true).unwrap();
        for t in [1, 2] {
            assert_eq!(pagerank(&g, 0.5, 1, t), vec![0.375, 0.625]);
            assert_eq!(pagerank(&g, 0.5, 2, t), vec![0.40625, 0.59375]);
        }
        assert_eq!(pagerank(&g, 0.5, 0, 1), vec![0.5, 0.5]);
    }

    #[test]
    fn undirected_regular_graph_is_uniform() {
        let g = CsrGraph::from_pairs(&[(1, 2), (2, 3), (3, 1)], None, false).unwrap();
        for r in pagerank(&g, 0.85, 10, 2) {
            assert!((r - 1.0 / 3.0).abs() < 1e-15);
        }
    }
}
