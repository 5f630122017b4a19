//! Single-source betweenness dependencies with Brandes' algorithm, level-synchronous.
//!
//! The direction-optimising BFS (`crate::bfs`) gives each vertex's level; path counts (σ)
//! are then pulled level by level from in-neighbours one level up, and dependencies (δ) are
//! pulled in reverse level order from out-neighbours one level down. Pulling means every
//! value is written by exactly one task, so no floating-point atomics are needed and results
//! do not depend on the thread count.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use rayon::prelude::*;

use crate::bfs::{levels_in_pool, UNVISITED};
use crate::pool::run_in_pool;
use crate::view::GraphView;

/// Dependency `δ_s(v) = Σ_{t≠s,v} σ_st(v)/σ_st` of every vertex on the source `s`, indexed
/// by dense id: the single-source term of Brandes' betweenness centrality.
///
/// Paths follow out-edges on directed graphs and are unweighted. No normalisation is
/// applied: summing the result over every source gives raw betweenness for directed graphs
/// and twice the raw value for undirected ones (each unordered pair is seen from both ends).
/// The source itself, unreachable vertices and holes get 0.0.
pub fn betweenness_single_source<G: GraphView>(g: &G, source: u32, threads: usize) -> Vec<f64> {
    run_in_pool(threads, || brandes(g, source))
}

/// Inlined on purpose: kernels are instantiated in the caller's crate, and
/// without it every edge of the σ and δ passes paid a call into this one.
#[inline]
fn load(a: &AtomicU64) -> f64 {
    f64::from_bits(a.load(Relaxed))
}

fn brandes<G: GraphView>(g: &G, source: u32) -> Vec<f64> {
    let n = g.id_bound() as usize;
    if !g.contains(source) {
        return vec![0.0; n];
    }
    // The levels of a direction-optimising BFS: its bottom-up steps read
    // in-lists range by range instead of every out-list vertex by vertex.
    let depth = levels_in_pool(g, source);
    let mut levels: Vec<Vec<u32>> = Vec::new();
    for (v, &d) in depth.iter().enumerate() {
        if d != UNVISITED {
            let d = d as usize;
            if levels.len() <= d {
                levels.resize_with(d + 1, Vec::new);
            }
            levels[d].push(v as u32);
        }
    }

    let zero = 0.0f64.to_bits();
    let sigma: Vec<AtomicU64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU64::new(zero))
        .collect();
    sigma[source as usize].store(1.0f64.to_bits(), Relaxed);
    for (l, members) in levels.iter().enumerate().skip(1) {
        let parent_level = l as u32 - 1;
        members.par_iter().for_each(|&w| {
            let mut s = 0.0;
            g.for_each_in_unordered(w, |u| {
                if depth[u as usize] == parent_level {
                    s += load(&sigma[u as usize]);
                }
            });
            sigma[w as usize].store(s.to_bits(), Relaxed);
        });
    }

    let delta: Vec<AtomicU64> = (0..n)
        .into_par_iter()
        .map(|_| AtomicU64::new(zero))
        .collect();
    for (l, members) in levels.iter().enumerate().rev() {
        let child_level = l as u32 + 1;
        members.par_iter().for_each(|&v| {
            let sv = load(&sigma[v as usize]);
            let mut d = 0.0;
            g.for_each_out_unordered(v, |w| {
                if depth[w as usize] == child_level {
                    d += sv / load(&sigma[w as usize]) * (1.0 + load(&delta[w as usize]));
                }
            });
            delta[v as usize].store(d.to_bits(), Relaxed);
        });
    }
    delta[source as usize].store(zero, Relaxed);
    delta
        .into_par_iter()
        .map(|d| f64::from_bits(d.into_inner()))
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;
    use crate::CsrGraph;

    #[test]
    fn undirected_path() {
        // 0-1-2-3 from 0: 1 lies on the paths to 2 and 3, 2 on the path to 3.
        let g = CsrGraph::from_pairs(&[(0, 1), (1, 2), (2, 3)], None, false).unwrap();
        assert_eq!(
            betweenness_single_source(&g, 0, 2),
            vec![0.0, 2.0, 1.0, 0.0]
        );
    }

    #[test]
    fn diamond_splits_dependency() {
        // 0->1, 0->2, 1->3, 2->3, 3->4: two shortest paths to 3 and 4, each middle vertex
        // carries half of both; 3 carries all of 4. Vertex 5 is unreachable.
        let e = [(0, 1), (0, 2), (1, 3), (2, 3), (3, 4), (5, 0)];
        let g = CsrGraph::from_pairs(&e, None, true).unwrap();
        for t in [1, 2] {
            assert_eq!(
                betweenness_single_source(&g, 0, t),
                vec![0.0, 1.0, 1.0, 1.0, 0.0, 0.0]
            );
        }
    }
}
