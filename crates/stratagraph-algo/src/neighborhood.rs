//! Neighbourhood helpers shared by the kernels that treat a graph as undirected and
//! intersect neighbour lists (LCC, triangle counting).

use std::iter::Peekable;

use rayon::prelude::*;

use crate::view::GraphView;

/// Bit of a neighbour's direction mask: the arc `v -> u` exists.
pub(crate) const OUT: u8 = 1;
/// Bit of a neighbour's direction mask: the arc `u -> v` exists.
pub(crate) const IN: u8 = 2;
/// The mask of an undirected edge: both arcs exist.
pub(crate) const BOTH: u8 = OUT | IN;

/// Sorted union of two ascending iterators, without duplicates, each id
/// with the mask of the iterators that yielded it (`OUT` for `a`, `IN` for
/// `b`). Lets a directed graph be read as undirected (`out ∪ in`) on the
/// fly instead of materialising a symmetric copy. With `b == None` it is
/// just `a`, every id marked `BOTH` (undirected graphs already list every
/// neighbour there, and each edge runs both ways).
pub(crate) struct Union<I: Iterator<Item = u32>> {
    a: Peekable<I>,
    b: Option<Peekable<I>>,
}

impl<I: Iterator<Item = u32>> Iterator for Union<I> {
    type Item = (u32, u8);

    #[inline]
    fn next(&mut self) -> Option<(u32, u8)> {
        let Some(b) = self.b.as_mut() else {
            return self.a.next().map(|x| (x, BOTH));
        };
        match (self.a.peek().copied(), b.peek().copied()) {
            (Some(x), Some(y)) if x < y => self.a.next().map(|x| (x, OUT)),
            (Some(x), Some(y)) if y < x => b.next().map(|y| (y, IN)),
            (Some(_), Some(_)) => {
                b.next();
                self.a.next().map(|x| (x, BOTH))
            }
            (Some(_), None) => self.a.next().map(|x| (x, OUT)),
            (None, _) => b.next().map(|y| (y, IN)),
        }
    }
}

/// Neighbours of `v` ignoring direction, ascending, each with the
/// directions of the arcs that join it to `v` (`OUT`, `IN`, or `BOTH` for
/// a reciprocal pair or an undirected edge): the union of out- and
/// in-neighbours on directed graphs (reciprocal arcs appear once), the
/// plain neighbour list on undirected ones. May include `v` itself if it
/// has a self-loop.
pub(crate) fn undirected<G: GraphView>(g: &G, v: u32) -> Union<G::Neighbors<'_>> {
    Union {
        a: g.out_neighbors(v).peekable(),
        b: g.is_directed().then(|| g.in_neighbors(v).peekable()),
    }
}

/// Every vertex's rank key for a degree-ordered orientation, by dense id:
/// (degree ignoring direction, id), so any two differ. Orienting each edge
/// from the lower key to the higher bounds every vertex's forward
/// neighbourhood by O(√m), which keeps hub-heavy graphs tractable; any
/// total order would be correct. Holes get their id alone.
pub(crate) fn rank_keys<G: GraphView>(g: &G) -> Vec<u64> {
    (0..g.id_bound())
        .into_par_iter()
        .map(|v| {
            let degree = if !g.contains(v) {
                0
            } else if g.is_directed() {
                g.out_degree(v).saturating_add(g.in_degree(v))
            } else {
                g.out_degree(v)
            };
            (u64::from(degree) << 32) | u64::from(v)
        })
        .collect()
}

/// One vertex's neighbours ranked above it (its forward neighbours in a
/// degree-ordered orientation), handed out from the highest rank down,
/// each with the forward neighbours ranked above it as an ascending set:
/// the third vertices a triangle through both can have. Built that way,
/// the set is exactly what an intersection must look at, so its size (not
/// the whole forward list's) picks the intersection's strategy.
pub(crate) struct Forward {
    /// (rank key, id, arcs to the vertex) of each forward neighbour.
    order: Vec<(u64, u32, u8)>,
    /// Ids ranked above the neighbour being handed out, ascending.
    above: Vec<u32>,
    /// The arcs joining each of `above` to the vertex.
    above_dirs: Vec<u8>,
}

impl Forward {
    pub(crate) fn new() -> Self {
        Self {
            order: Vec::new(),
            above: Vec::new(),
            above_dirs: Vec::new(),
        }
    }

    /// Takes `v`'s neighbours (`key` as `rank_keys` gives it) and returns
    /// how many there are besides `v` itself: `|N(v)|`.
    pub(crate) fn load<G: GraphView>(&mut self, g: &G, v: u32, key: &[u64]) -> u64 {
        self.order.clear();
        let kv = key[v as usize];
        let mut size = 0;
        for (u, dirs) in undirected(g, v).filter(|&(u, _)| u != v) {
            size += 1;
            let ku = key[u as usize];
            if ku > kv {
                self.order.push((ku, u, dirs));
            }
        }
        self.order
            .sort_unstable_by_key(|&(key, _, _)| std::cmp::Reverse(key));
        size
    }

    /// Calls `f(u, arcs between v and u, above, their arcs to v)` for every
    /// forward neighbour `u` of the loaded `v`, where `above` holds the
    /// forward neighbours ranked above `u`, ascending. Each `u` is then
    /// inserted in place, a move of at most the forward list's length,
    /// which the orientation keeps within O(√m).
    pub(crate) fn each(&mut self, mut f: impl FnMut(u32, u8, &[u32], &[u8])) {
        self.above.clear();
        self.above_dirs.clear();
        for &(_, u, dirs) in &self.order {
            f(u, dirs, &self.above, &self.above_dirs);
            let at = self.above.partition_point(|&w| w < u);
            self.above.insert(at, u);
            self.above_dirs.insert(at, dirs);
        }
    }
}

/// Finds which ids of an ascending set are neighbours of one vertex `u`,
/// ignoring direction, and by which arcs: `u`'s out- and in-lists are read
/// piece by piece where a store holds them so (`GraphView::with_out_pieces`,
/// `with_in_pieces`), so no list is merged. A reciprocal pair's far end is
/// in both lists; it is found once, with both bits.
pub(crate) struct Adjacent {
    /// Per index of the set: the round that last found it.
    seen: Vec<u32>,
    /// Per index of the set: `OUT` if `u -> set[k]`, `IN` if `set[k] ->
    /// u`, both for both (always both on an undirected graph).
    dirs: Vec<u8>,
    /// Counts calls of `find`, so `seen` needs no clearing between them.
    round: u32,
    /// Indices of the set found in the last round, in no set order.
    pub(crate) hits: Vec<u32>,
}

impl Adjacent {
    pub(crate) fn new() -> Self {
        Self {
            seen: Vec::new(),
            dirs: Vec::new(),
            round: 0,
            hits: Vec::new(),
        }
    }

    /// Fills `hits` with the indices `k` of ascending `set` whose id is
    /// adjacent to `u`.
    pub(crate) fn find<G: GraphView>(&mut self, g: &G, u: u32, set: &[u32]) {
        self.round = self.round.wrapping_add(1);
        if self.round == 0 {
            self.seen.fill(0);
            self.round = 1;
        }
        if self.seen.len() < set.len() {
            self.seen.resize(set.len(), 0);
            self.dirs.resize(set.len(), 0);
        }
        self.hits.clear();
        let Self {
            seen,
            dirs,
            round,
            hits,
        } = self;
        let round = *round;
        let mut mark = |k: usize, bit: u8| {
            if seen[k] == round {
                dirs[k] |= bit;
            } else {
                seen[k] = round;
                dirs[k] = bit;
                hits.push(k as u32);
            }
        };
        let out_bit = if g.is_directed() { OUT } else { BOTH };
        g.with_out_pieces(u, |pieces| {
            for p in pieces {
                each_in_slice(set, p, |k| mark(k, out_bit));
            }
        });
        if g.is_directed() {
            g.with_in_pieces(u, |pieces| {
                for p in pieces {
                    each_in_slice(set, p, |k| mark(k, IN));
                }
            });
        }
    }

    /// The arcs joining `u` and `set[k]` for a `k` of the last `hits`.
    pub(crate) fn dirs(&self, k: u32) -> u8 {
        self.dirs[k as usize]
    }
}

/// `count_in_slice` probes when `list` is this many times longer than `set`.
const PROBE_RATIO: usize = 2;

/// The first index of ascending `list` whose id is at least `w`: steps of
/// 1, 2, 4, ... from the front, then a binary search in the last step, so
/// a probe costs the log of the distance to its answer, and successive
/// probes of an ascending set cost the log of their gaps.
#[inline]
fn gallop(list: &[u32], w: u32) -> usize {
    let mut hi = 1;
    while hi < list.len() && list[hi - 1] < w {
        hi *= 2;
    }
    let lo = hi / 2;
    let hi = hi.min(list.len());
    lo + list[lo..hi].partition_point(|&x| x < w)
}

/// Counts the ids of ascending `set` that occur in ascending `list` (see
/// `each_in_slice`).
#[inline]
pub(crate) fn count_in_slice(set: &[u32], list: &[u32]) -> u64 {
    let mut count = 0u64;
    each_in_slice(set, list, |_| count += 1);
    count
}

/// Calls `hit(k)` for each id `set[k]` of ascending `set` that occurs in
/// ascending `list`, in ascending `k`.
///
/// A `set` much shorter than `list` (a low-degree vertex's list against a
/// hub's) probes `list` by galloping: O(|set| log) instead
/// of walking the hub's whole list, which is what made triangle counting
/// cost the sum of squared degrees. A `list` much shorter than `set` (the
/// few newest edges of a list a store holds in pieces) probes `set` the
/// same way. Otherwise a linear merge that stops at the end of either.
#[inline]
pub(crate) fn each_in_slice(set: &[u32], list: &[u32], mut hit: impl FnMut(usize)) {
    if list.len().saturating_mul(PROBE_RATIO) < set.len() {
        let mut from = 0;
        for &w in list {
            let k = from + gallop(&set[from..], w);
            let Some(&x) = set.get(k) else {
                break;
            };
            if x == w {
                hit(k);
            }
            from = k;
        }
    } else if set.len().saturating_mul(PROBE_RATIO) < list.len() {
        let mut rest = list;
        for (k, &w) in set.iter().enumerate() {
            let i = gallop(rest, w);
            let Some(&x) = rest.get(i) else {
                break;
            };
            if x == w {
                hit(k);
            }
            rest = &rest[i..];
        }
    } else {
        let (mut i, mut j) = (0, 0);
        while i < set.len() && j < list.len() {
            let (a, b) = (set[i], list[j]);
            if a == b {
                hit(i);
            }
            i += usize::from(a <= b);
            j += usize::from(b <= a);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;

    #[test]
    fn gallop_finds_the_first_id_not_below() {
        for len in 0..40u32 {
            let list: Vec<u32> = (0..len).map(|x| x * 2 + 1).collect();
            for w in 0..=2 * len + 2 {
                assert_eq!(
                    gallop(&list, w),
                    list.partition_point(|&x| x < w),
                    "len {len} w {w}"
                );
            }
        }
    }

    #[test]
    fn each_in_slice_all_strategies_match_a_set_model() {
        let list: Vec<u32> = (0..400).map(|x| x * 3).collect();
        let sets: [Vec<u32>; 4] = [
            vec![0, 3, 4, 300, 1197, 1198, 5000], // probes (7 * 2 < 400)
            (0..200).map(|x| x * 2).collect(),    // merge
            (0..2000).collect(),                  // probed (400 * 2 < 2000)
            vec![],
        ];
        for set in &sets {
            let want: Vec<usize> = (0..set.len()).filter(|&k| list.contains(&set[k])).collect();
            let mut hits = Vec::new();
            each_in_slice(set, &list, |k| hits.push(k));
            assert_eq!(hits, want, "set of {}", set.len());
            assert_eq!(count_in_slice(set, &list), want.len() as u64);
        }
    }

    #[test]
    fn union_dedupes() {
        let u = Union {
            a: vec![1, 3, 5].into_iter().peekable(),
            b: Some(vec![2, 3, 6].into_iter().peekable()),
        };
        assert_eq!(
            u.collect::<Vec<_>>(),
            vec![(1, OUT), (2, IN), (3, BOTH), (5, OUT), (6, IN)]
        );
    }
}
