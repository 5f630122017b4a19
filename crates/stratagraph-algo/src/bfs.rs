//! Direction-optimising breadth-first search (Beamer, Asanović, Patterson, SC'12).
//!
//! Top-down steps expand the frontier along out-edges; once the frontier's out-edges
//! outnumber a fraction of the still-unexplored edges, bottom-up steps let every unvisited
//! vertex look for a parent among its in-neighbours and stop at the first hit, which skips
//! most edge checks on low-diameter graphs. Semantics follow Graphalytics: depth along
//! out-edges on directed graphs, source at depth 0.
//!
//! A bottom-up step reads whole the in-lists of the vertices it finds no parent for; when
//! those fit in a budget it keeps them, and the search ends on them in memory (`residual`)
//! instead of reading the graph at every later level.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use rayon::prelude::*;

use crate::pool::{run_in_pool, MIN_VERTICES_PER_TASK, ORDERED_FRONTIER};
use crate::view::GraphView;

mod residual;

/// Depth reported for vertices the source cannot reach, and for holes.
///
/// Graphalytics writes `i64::MAX` for these; the validation runner converts.
pub const BFS_UNREACHABLE: u64 = u64::MAX;

/// The level of a vertex not reached (yet, during the search; at all, in
/// what `levels_in_pool` returns, where holes have it too).
pub(crate) const UNVISITED: u32 = u32::MAX;
/// Holes (ids that are not vertices) are marked once, up front, so no step
/// asks the view about existence again (on a store that is not free).
const HOLE: u32 = u32::MAX - 1;
/// Switch to bottom-up when frontier out-edges exceed unexplored edges / ALPHA (GAP default).
const ALPHA: u64 = 15;
/// Switch back to top-down when the frontier shrinks below vertices / BETA (GAP default).
const BETA: u64 = 18;

/// Hop distance from `source` to every vertex, indexed by dense id.
///
/// Returns [`BFS_UNREACHABLE`] for unreachable vertices and holes; if `source` is a hole
/// every entry is unreachable. `threads` = 0 uses all cores.
pub fn bfs<G: GraphView>(g: &G, source: u32, threads: usize) -> Vec<u64> {
    run_in_pool(threads, || bfs_in_pool(g, source))
}

fn bfs_in_pool<G: GraphView>(g: &G, source: u32) -> Vec<u64> {
    levels_in_pool(g, source)
        .into_par_iter()
        .map(|d| match d {
            UNVISITED => BFS_UNREACHABLE,
            d => u64::from(d),
        })
        .collect()
}

/// Each vertex's BFS level from `source` (`UNVISITED` for unreachable
/// vertices and holes), found direction-optimising on the current rayon
/// pool: the first pass of betweenness as well.
pub(crate) fn levels_in_pool<G: GraphView>(g: &G, source: u32) -> Vec<u32> {
    levels_keeping(g, source, residual::BUDGET_BYTES_PER_VERTEX)
}

/// `levels_in_pool` where a bottom-up step may keep `bytes_per_vertex`
/// bytes a vertex of the graph to end the search on (see `residual`): 0
/// keeps none unless nothing is left, so that tests can take every path.
fn levels_keeping<G: GraphView>(g: &G, source: u32, bytes_per_vertex: usize) -> Vec<u32> {
    let n = g.id_bound() as usize;
    let depth: Vec<AtomicU32> = (0..n as u32)
        .into_par_iter()
        .map(|v| AtomicU32::new(if g.contains(v) { UNVISITED } else { HOLE }))
        .collect();
    if g.contains(source) {
        depth[source as usize].store(0, Relaxed);
        traverse(g, source, &depth, n.saturating_mul(bytes_per_vertex));
    }
    depth
        .into_par_iter()
        .map(|d| match d.into_inner() {
            HOLE => UNVISITED,
            d => d,
        })
        .collect()
}

fn traverse<G: GraphView>(g: &G, source: u32, depth: &[AtomicU32], budget: usize) {
    let n = depth.len();
    // The stored edges, as GAP counts them (each undirected edge both ways;
    // an undirected self-loop is counted twice, which only nudges the
    // direction heuristic): no pass over the lists is needed for it.
    let edges = g.edge_count();
    let mut edges_to_check = if g.is_directed() { edges } else { 2 * edges };
    let mut scout = u64::from(g.out_degree(source));
    let mut frontier = vec![source];
    let mut level = 0u32;
    while !frontier.is_empty() {
        if scout > edges_to_check / ALPHA {
            let mut awake = frontier.len() as u64;
            loop {
                let old_awake = awake;
                let kept;
                (awake, kept) = residual::bottom_up_keeping(g, depth, level, budget);
                level += 1;
                if let Some(res) = kept {
                    residual::finish(depth, &res, level, awake, old_awake);
                    return;
                }
                if awake == 0 || (awake < old_awake && awake <= n as u64 / BETA) {
                    break;
                }
            }
            frontier = (0..n as u32)
                .into_par_iter()
                .with_min_len(MIN_VERTICES_PER_TASK)
                .filter(|&v| depth[v as usize].load(Relaxed) == level)
                .collect();
            scout = 1;
        } else {
            edges_to_check = edges_to_check.saturating_sub(scout);
            frontier = top_down_step(g, depth, &frontier, level);
            // In vertex order before the degrees below are read, and the
            // lists in the next step (a bottom-up step's frontier is
            // collected in order already).
            if frontier.len() >= ORDERED_FRONTIER {
                frontier.par_sort_unstable();
            }
            scout = scout_upto(g, &frontier, edges_to_check / ALPHA);
            level += 1;
        }
    }
}

/// The frontier's out-edges, counted in vertex order only until they pass
/// `limit`: past it the next step is bottom-up whatever the rest come to,
/// and on a store a degree may read the vertex's list (at scale 24 under a
/// memory cap, counting a first frontier of 239,330 vertices whole read
/// 1.39 GB).
fn scout_upto<G: GraphView>(g: &G, frontier: &[u32], limit: u64) -> u64 {
    let mut sum = 0u64;
    for chunk in frontier.chunks(SCOUT_CHUNK) {
        sum += chunk
            .par_iter()
            .map(|&v| u64::from(g.out_degree(v)))
            .sum::<u64>();
        if sum > limit {
            break;
        }
    }
    sum
}

/// Frontier vertices whose degrees `scout_upto` sums between two looks at
/// the limit: enough to keep the threads busy.
const SCOUT_CHUNK: usize = 4096;

/// Claims unvisited out-neighbours of the frontier with a CAS so each vertex enters the
/// next frontier exactly once.
fn top_down_step<G: GraphView>(
    g: &G,
    depth: &[AtomicU32],
    frontier: &[u32],
    level: u32,
) -> Vec<u32> {
    // Order does not matter: a store hands a list over in pieces.
    claim_from(depth, frontier, level, |u, next| {
        g.for_each_out_unordered(u, |w| next.take(w));
    })
}

/// One task's part of the next frontier in a top-down step.
struct Claims<'a> {
    depth: &'a [AtomicU32],
    level: u32,
    next: Vec<u32>,
}

impl Claims<'_> {
    /// Gives `w` the next level if it has none, and then the next frontier.
    #[inline]
    fn take(&mut self, w: u32) {
        let d = &self.depth[w as usize];
        if d.load(Relaxed) == UNVISITED
            && d.compare_exchange(UNVISITED, self.level + 1, Relaxed, Relaxed)
                .is_ok()
        {
            self.next.push(w);
        }
    }
}

/// A top-down step: `targets(u, claims)` hands every out-neighbour of
/// the frontier vertex `u` (on the graph, or on a residual's reverse) to
/// `claims.take`. Returns the next frontier, each vertex once.
fn claim_from(
    depth: &[AtomicU32],
    frontier: &[u32],
    level: u32,
    targets: impl Fn(u32, &mut Claims<'_>) + Sync,
) -> Vec<u32> {
    frontier
        .par_iter()
        .fold(
            || Claims {
                depth,
                level,
                next: Vec::new(),
            },
            |mut claims, &u| {
                targets(u, &mut claims);
                claims
            },
        )
        .map(|claims| claims.next)
        .reduce(Vec::new, |mut a, mut b| {
            if a.len() < b.len() {
                std::mem::swap(&mut a, &mut b);
            }
            a.extend_from_slice(&b);
            a
        })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;
    use crate::CsrGraph;

    const U: u64 = BFS_UNREACHABLE;

    #[test]
    fn directed_follows_out_edges_only() {
        // 1 -> 2 -> 3, 4 -> 1: from 1, vertex 4 is unreachable.
        let g = CsrGraph::from_pairs(&[(1, 2), (2, 3), (4, 1)], None, true).unwrap();
        for t in [1, 2] {
            assert_eq!(bfs(&g, 0, t), vec![0, 1, 2, U]);
        }
    }

    #[test]
    fn star_forces_bottom_up() {
        // A hub with many leaves plus a tail: the hub's frontier triggers bottom-up steps.
        let mut edges: Vec<(u64, u64)> = (1..=200).map(|i| (0, i)).collect();
        edges.extend([(200, 300), (300, 301)]);
        let g = CsrGraph::from_pairs(&edges, Some(&[999]), false).unwrap();
        let d = bfs(&g, 0, 2);
        assert_eq!(d[0], 0);
        assert!(d[1..=200].iter().all(|&x| x == 1));
        assert_eq!(d[201], 2); // external 300
        assert_eq!(d[202], 3); // external 301
        assert_eq!(d[203], U); // isolated 999
    }

    /// Levels by a plain queue, the reference the search must match.
    fn queue_levels(g: &CsrGraph, source: u32) -> Vec<u32> {
        let mut depth = vec![UNVISITED; g.id_bound() as usize];
        depth[source as usize] = 0;
        let mut queue = std::collections::VecDeque::from([source]);
        while let Some(u) = queue.pop_front() {
            for w in g.out_neighbors(u) {
                if depth[w as usize] == UNVISITED {
                    depth[w as usize] = depth[u as usize] + 1;
                    queue.push_back(w);
                }
            }
        }
        depth
    }

    /// Every budget: none (the search reads the graph to its end), the
    /// default, and enough for any residual.
    fn check_every_budget(g: &CsrGraph, source: u32) {
        let want = queue_levels(g, source);
        for bytes_per_vertex in [0, residual::BUDGET_BYTES_PER_VERTEX, 1 << 20] {
            for threads in [1, 2] {
                let got = run_in_pool(threads, || levels_keeping(g, source, bytes_per_vertex));
                assert_eq!(
                    got, want,
                    "{bytes_per_vertex} bytes a vertex, {threads} threads"
                );
            }
        }
    }

    #[test]
    fn residual_search_takes_every_turn() {
        // A hub whose leaves start the search bottom-up (and keep the rest),
        // a chain the residual walks top-down, and a second hub at its end
        // that turns it bottom-up again; both ways round.
        let mut edges: Vec<(u64, u64)> = (1..=200).map(|i| (0, i)).collect();
        edges.extend((200..260).map(|i| (i, i + 1)));
        edges.push((260, 300));
        edges.extend((301..=700).map(|i| (300, i)));
        edges.extend([(701, 702), (702, 701)]); // never reached
        for directed in [false, true] {
            let g = CsrGraph::from_pairs(&edges, Some(&[703]), directed).unwrap();
            check_every_budget(&g, 0);
            check_every_budget(&g, 230);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        #[test]
        fn residual_search_matches_a_queue(
            edges in proptest::collection::vec((0u64..60, 0u64..60), 1..240),
            directed: bool,
            source in 0u32..60,
        ) {
            let g = CsrGraph::from_pairs(&edges, Some(&(0..60).collect::<Vec<_>>()), directed).unwrap();
            check_every_budget(&g, source);
        }
    }

    #[test]
    fn scout_counts_up_to_its_limit() {
        let edges: Vec<(u64, u64)> = (0..10_000u64).map(|i| (i, (i + 1) % 10_000)).collect();
        let g = CsrGraph::from_pairs(&edges, None, true).unwrap();
        let frontier: Vec<u32> = (0..10_000).collect();
        assert_eq!(scout_upto(&g, &frontier, 10_000), 10_000);
        assert_eq!(scout_upto(&g, &frontier, 9_999), 10_000);
        // One chunk is enough to pass a small limit.
        assert_eq!(scout_upto(&g, &frontier, 10), SCOUT_CHUNK as u64);
    }

    #[test]
    fn hole_source_reaches_nothing() {
        let g = CsrGraph::from_pairs(&[(1, 2)], None, false).unwrap();
        assert_eq!(bfs(&g, 7, 1), vec![U, U]);
    }
}
