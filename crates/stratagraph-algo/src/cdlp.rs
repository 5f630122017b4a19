//! Community detection by synchronous label propagation, as Graphalytics defines it.
//!
//! Every vertex adopts the most frequent label among its neighbours, ties going to the
//! smallest label. Labels are collected per range of vertices (by unordered scans: votes need
//! no order) and sorted per vertex, which handles the tie rule for free (the first longest run
//! is the smallest label) and avoids hashing.

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
        // Existence is looked up once: on a store it is not free.
        let alive: Vec<bool> = (0..n).into_par_iter().map(|v| g.contains(v)).collect();
        let mut labels: Vec<u64> = (0..n)
            .into_par_iter()
            .map(|v| {
                if alive[v as usize] {
                    g.external_id(v)
                } else {
                    CDLP_HOLE
                }
            })
            .collect();
        let mut next = labels.clone();
        for _ in 0..iterations {
            // By ranges of vertices: votes need no order, so a store hands
            // each list over in pieces (`scan_*_unordered`), where asking
            // vertex by vertex would merge them.
            next.par_chunks_mut(MIN_VERTICES_PER_TASK)
                .enumerate()
                .for_each_init(Votes::default, |votes, (chunk, out)| {
                    let start = (chunk * MIN_VERTICES_PER_TASK) as u32;
                    let end = start + out.len() as u32;
                    votes.collect(g, &labels, start..end);
                    for (i, slot) in out.iter_mut().enumerate() {
                        let v = start + i as u32;
                        let own = labels[v as usize];
                        *slot = if alive[v as usize] {
                            votes.winner(i).unwrap_or(own)
                        } else {
                            own
                        };
                    }
                });
            std::mem::swap(&mut labels, &mut next);
        }
        labels
    })
}

/// One task's neighbour labels for a range of vertices, out-neighbours
/// and (directed) in-neighbours in two flat lists with per-vertex starts.
#[derive(Default)]
struct Votes {
    out: Vec<u64>,
    out_starts: Vec<usize>,
    inn: Vec<u64>,
    in_starts: Vec<usize>,
    buf: Vec<u64>,
}

impl Votes {
    /// Gathers the labels of every vertex's neighbours in `range`
    /// (self-loops do not vote).
    fn collect<G: GraphView>(&mut self, g: &G, labels: &[u64], range: std::ops::Range<u32>) {
        let fill = |list: &mut Vec<u64>, starts: &mut Vec<usize>, v: u32, pieces: &[&[u32]]| {
            starts.push(list.len());
            for piece in pieces {
                piece
                    .iter()
                    .filter(|&&u| u != v)
                    .for_each(|&u| list.push(labels[u as usize]));
            }
        };
        let (out, out_starts) = (&mut self.out, &mut self.out_starts);
        out.clear();
        out_starts.clear();
        g.scan_out_unordered(range.clone(), |v, pieces| fill(out, out_starts, v, pieces));
        out_starts.push(out.len());
        let (inn, in_starts) = (&mut self.inn, &mut self.in_starts);
        inn.clear();
        in_starts.clear();
        if g.is_directed() {
            g.scan_in_unordered(range, |v, pieces| fill(inn, in_starts, v, pieces));
        }
        in_starts.push(inn.len());
    }

    /// The winning label of the `i`-th vertex of the range, `None` if no
    /// neighbour voted.
    fn winner(&mut self, i: usize) -> Option<u64> {
        let part = |starts: &[usize]| -> std::ops::Range<usize> {
            match (starts.get(i), starts.get(i + 1)) {
                (Some(&a), Some(&b)) => a..b,
                _ => 0..0,
            }
        };
        self.buf.clear();
        let (o, n) = (part(&self.out_starts), part(&self.in_starts));
        self.buf.extend_from_slice(self.out.get(o).unwrap_or(&[]));
        self.buf.extend_from_slice(self.inn.get(n).unwrap_or(&[]));
        most_frequent_smallest(&mut self.buf)
    }
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
