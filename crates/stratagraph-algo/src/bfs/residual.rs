//! The end of a search on the lists a bottom-up step read whole.
//!
//! A bottom-up step reads the in-list of every vertex still unvisited, and
//! for those that find no parent it reads the list to its end. Those
//! vertices and lists are the *residual*: every vertex the search can still
//! reach is one of them, and every edge into it is in its list, so the rest
//! of the search needs nothing else. On a graph whose dense levels leave few
//! vertices behind (a small-world graph's first bottom-up step finds most of
//! it), the residual is a small part of the graph, and keeping it lets the
//! later levels run on it in memory instead of reading the graph again at
//! every level. That is what matters for a store larger than memory, where
//! each dense step otherwise reads a whole side of the store from disk.
//!
//! The residual is kept only within a budget (`BUDGET_BYTES_PER_VERTEX`); a
//! step whose residual would be larger keeps none, and the next bottom-up
//! step, which leaves fewer vertices behind, tries again.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering::Relaxed};

use rayon::prelude::*;

use super::{claim_from, ALPHA, BETA, UNVISITED};
use crate::kept::KeptLists;
use crate::pool::{par_ranges, MIN_VERTICES_PER_TASK};
use crate::view::GraphView;

/// The residual may take this many bytes a vertex of the graph
/// (`KeptLists::cost`: 12 a vertex, 4 an id): as much memory as the
/// search's level array. Its reverse, built for top-down steps from the
/// lists still unvisited, takes at most three times the ids' share while
/// it is sorted.
pub(super) const BUDGET_BYTES_PER_VERTEX: usize = 4;

/// The residual of one bottom-up step.
pub(super) struct Residual {
    parts: Vec<KeptLists>,
}

impl Residual {
    /// Vertices kept, in all parts.
    fn vertices(&self) -> usize {
        self.parts.iter().map(KeptLists::vertex_count).sum()
    }

    /// List entries kept, in all parts.
    fn ids(&self) -> usize {
        self.parts.iter().map(KeptLists::id_count).sum()
    }
}

/// A bottom-up step that keeps the residual if it fits in `budget` bytes:
/// every vertex unvisited before the step scans its in-list for one at
/// `level` and takes `level + 1` if it finds one. Returns how many it
/// found, and the residual if kept.
pub(super) fn bottom_up_keeping<G: GraphView>(
    g: &G,
    depth: &[AtomicU32],
    level: u32,
    budget: usize,
) -> (u64, Option<Residual>) {
    let held = AtomicUsize::new(0);
    let over = AtomicBool::new(false);
    let parts: Vec<(u64, KeptLists)> = par_ranges(depth.len() as u32)
        .fold(
            || (0u64, KeptLists::default()),
            |(mut found, mut kept), range| {
                let before = kept.cost();
                let keep = !over.load(Relaxed);
                let unvisited = |v: u32| depth[v as usize].load(Relaxed) == UNVISITED;
                // The vertex whose pieces are coming, and where its ids
                // start in `kept`; pieces of one vertex come one after the
                // other, and stop after a hit. A vertex whose search found
                // no parent and has no in-neighbour at all is left out
                // (nothing can reach it).
                let mut cur: Option<(u32, usize)> = None;
                g.scan_in_until(range, unvisited, |v, piece| {
                    if let Some((u, mark)) = cur.filter(|&(u, _)| u != v) {
                        kept.close(u, mark);
                        cur = None;
                    }
                    let mark = cur.get_or_insert((v, kept.mark())).1;
                    let hit = piece
                        .iter()
                        .any(|&u| depth[u as usize].load(Relaxed) == level);
                    if hit {
                        depth[v as usize].store(level + 1, Relaxed);
                        found += 1;
                        kept.drop_from(mark);
                        cur = None;
                    } else if keep {
                        kept.extend(piece);
                    }
                    hit
                });
                if let Some((u, mark)) = cur {
                    kept.close(u, mark);
                }
                if keep {
                    let grown = kept.cost() - before;
                    if held.fetch_add(grown, Relaxed) + grown > budget {
                        over.store(true, Relaxed);
                    }
                }
                (found, kept)
            },
        )
        .collect();
    let found = parts.iter().map(|(f, _)| f).sum();
    if over.load(Relaxed) {
        return (found, None);
    }
    let parts = parts.into_iter().map(|(_, p)| p).collect();
    (found, Some(Residual { parts }))
}

/// The residual's edges the other way round, for top-down steps: for each
/// source (any vertex with an edge into the residual), the residual
/// vertices it points to.
struct Reverse {
    /// The sources, ascending.
    srcs: Vec<u32>,
    /// `srcs[i]`'s targets are `dsts[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    dsts: Vec<u32>,
}

impl Reverse {
    /// Built from the lists of the residual vertices still unvisited (those
    /// visited since can no longer be claimed).
    fn of(res: &Residual, depth: &[AtomicU32]) -> Reverse {
        let mut pairs: Vec<u64> = res
            .parts
            .par_iter()
            .flat_map_iter(|p| {
                p.lists()
                    .filter(|&(w, _)| depth[w as usize].load(Relaxed) == UNVISITED)
                    .flat_map(|(w, list)| {
                        list.iter()
                            .map(move |&u| (u64::from(u) << 32) | u64::from(w))
                    })
            })
            .collect();
        pairs.par_sort_unstable();
        let mut srcs = Vec::new();
        let mut starts = Vec::new();
        let mut dsts = Vec::with_capacity(pairs.len());
        for (i, &p) in pairs.iter().enumerate() {
            let u = (p >> 32) as u32;
            if srcs.last() != Some(&u) {
                srcs.push(u);
                starts.push(i);
            }
            dsts.push(p as u32);
        }
        starts.push(pairs.len());
        Reverse { srcs, starts, dsts }
    }

    fn targets(&self, u: u32) -> &[u32] {
        match self.srcs.binary_search(&u) {
            Ok(i) => match (self.starts.get(i), self.starts.get(i + 1)) {
                (Some(&s), Some(&e)) => self.dsts.get(s..e).unwrap_or(&[]),
                _ => &[],
            },
            Err(_) => &[],
        }
    }
}

/// Runs the search from the level a bottom-up step just found (`level`,
/// `awake` vertices, after `old_awake` at the level before) to its end,
/// on `res` alone: bottom-up steps scan its lists, top-down steps its
/// reverse, and the choice between them follows the same rule as on the
/// whole graph, measured on the residual.
pub(super) fn finish(
    depth: &[AtomicU32],
    res: &Residual,
    mut level: u32,
    mut awake: u64,
    old_awake: u64,
) {
    let n = res.vertices() as u64;
    let mut edges_to_check = res.ids() as u64;
    let mut reverse: Option<Reverse> = None;
    // Bottom-up first, where the caller was, until the rule says otherwise.
    let mut frontier: Option<Vec<u32>> = None;
    let mut old = old_awake;
    loop {
        match frontier.take() {
            None => {
                if awake == 0 {
                    return;
                }
                if awake < old && awake <= n / BETA {
                    // Back to top-down, from the level just found; its
                    // vertices may lie outside the residual (those the
                    // step that kept it found), so look at them all.
                    frontier = Some(
                        (0..depth.len() as u32)
                            .into_par_iter()
                            .with_min_len(MIN_VERTICES_PER_TASK)
                            .filter(|&v| depth[v as usize].load(Relaxed) == level)
                            .collect(),
                    );
                    continue;
                }
                old = awake;
                awake = bottom_up(depth, res, level);
                level += 1;
            }
            Some(f) => {
                if f.is_empty() {
                    return;
                }
                let rev = reverse.get_or_insert_with(|| Reverse::of(res, depth));
                let scout: u64 = f.par_iter().map(|&u| rev.targets(u).len() as u64).sum();
                if scout > edges_to_check / ALPHA {
                    // Bottom-up again: as the caller does, count the
                    // frontier as the level found before.
                    old = f.len() as u64;
                    awake = bottom_up(depth, res, level);
                    level += 1;
                    continue;
                }
                edges_to_check = edges_to_check.saturating_sub(scout);
                frontier = Some(top_down(depth, rev, &f, level));
                level += 1;
            }
        }
    }
}

/// `bottom_up_keeping`'s search, on the residual's lists.
fn bottom_up(depth: &[AtomicU32], res: &Residual, level: u32) -> u64 {
    res.parts
        .par_iter()
        .map(|p| {
            let mut found = 0;
            for (v, list) in p.lists() {
                let d = &depth[v as usize];
                if d.load(Relaxed) == UNVISITED
                    && list
                        .iter()
                        .any(|&u| depth[u as usize].load(Relaxed) == level)
                {
                    d.store(level + 1, Relaxed);
                    found += 1;
                }
            }
            found
        })
        .sum()
}

/// A top-down step over the residual's reverse, as the step on the whole
/// graph.
fn top_down(depth: &[AtomicU32], rev: &Reverse, frontier: &[u32], level: u32) -> Vec<u32> {
    claim_from(depth, frontier, level, |u, next| {
        rev.targets(u).iter().for_each(|&w| next.take(w));
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;
    use crate::CsrGraph;

    fn lists(res: &Residual) -> Vec<(u32, Vec<u32>)> {
        res.parts
            .iter()
            .flat_map(|p| p.lists().map(|(v, l)| (v, l.to_vec())))
            .collect()
    }

    #[test]
    fn a_step_keeps_the_lists_it_found_no_parent_in() {
        // 0 -> 1, 0 -> 2; 1 -> 3; 3 -> 4; 2 -> 4; 5 has no in-edge.
        let g = CsrGraph::from_pairs(
            &[(0, 1), (0, 2), (1, 3), (3, 4), (2, 4), (5, 0)],
            None,
            true,
        )
        .unwrap();
        let fresh = || -> Vec<AtomicU32> {
            let d: Vec<AtomicU32> = (0..6).map(|_| AtomicU32::new(UNVISITED)).collect();
            d[0].store(0, Relaxed);
            d[1].store(1, Relaxed);
            d[2].store(1, Relaxed);
            d
        };
        let depth = fresh();
        let (found, kept) = bottom_up_keeping(&g, &depth, 1, 100);
        // 3 and 4 find a parent at level 1; 5 has no list and is left out.
        assert_eq!(found, 2);
        assert_eq!(lists(&kept.unwrap()), vec![]);

        // From level 0 only 1 and 2 are found: 3 and 4 keep their lists whole.
        let depth = fresh();
        depth[1].store(UNVISITED, Relaxed);
        depth[2].store(UNVISITED, Relaxed);
        let (found, kept) = bottom_up_keeping(&g, &depth, 0, 100);
        assert_eq!(found, 2);
        let res = kept.unwrap();
        assert_eq!(lists(&res), vec![(3, vec![1]), (4, vec![2, 3])]);
        assert_eq!((res.vertices(), res.ids()), (2, 3));

        // Two vertices and three ids cost 36 bytes: a budget of 36 keeps
        // them, and over budget nothing is kept and the same vertices are
        // found.
        let depth = fresh();
        depth[1].store(UNVISITED, Relaxed);
        depth[2].store(UNVISITED, Relaxed);
        assert!(bottom_up_keeping(&g, &depth, 0, 36).1.is_some());
        let depth = fresh();
        depth[1].store(UNVISITED, Relaxed);
        depth[2].store(UNVISITED, Relaxed);
        let (found, kept) = bottom_up_keeping(&g, &depth, 0, 35);
        assert_eq!(found, 2);
        assert!(kept.is_none());
        let levels: Vec<u32> = depth.iter().map(|d| d.load(Relaxed)).collect();
        assert_eq!(levels, vec![0, 1, 1, UNVISITED, UNVISITED, UNVISITED]);
    }

    #[test]
    fn the_reverse_holds_edges_into_unvisited_residual_vertices() {
        let g =
            CsrGraph::from_pairs(&[(0, 1), (0, 2), (1, 3), (3, 4), (2, 4)], None, true).unwrap();
        let depth: Vec<AtomicU32> = (0..5).map(|_| AtomicU32::new(UNVISITED)).collect();
        depth[0].store(0, Relaxed);
        let (_, kept) = bottom_up_keeping(&g, &depth, 0, 100);
        let res = kept.unwrap();
        depth[3].store(2, Relaxed);
        let rev = Reverse::of(&res, &depth);
        // 3 is visited now: only the edges into 4 are left.
        assert_eq!(rev.targets(2), &[4]);
        assert_eq!(rev.targets(3), &[4]);
        assert_eq!(rev.targets(1), &[] as &[u32]);
        assert_eq!(rev.targets(9), &[] as &[u32]);
    }
}
