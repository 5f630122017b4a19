//! Neighbourhood helpers shared by the kernels that treat a graph as undirected and
//! intersect neighbour lists (LCC, triangle counting).

use std::iter::Peekable;

use crate::view::GraphView;

/// Sorted union of two ascending iterators, without duplicates. Lets a directed graph be
/// read as undirected (`out ∪ in`) on the fly instead of materialising a symmetric copy.
/// With `b == None` it is just `a` (undirected graphs already list every neighbour there).
pub(crate) struct Union<I: Iterator<Item = u32>> {
    a: Peekable<I>,
    b: Option<Peekable<I>>,
}

impl<I: Iterator<Item = u32>> Iterator for Union<I> {
    type Item = u32;

    #[inline]
    fn next(&mut self) -> Option<u32> {
        let Some(b) = self.b.as_mut() else {
            return self.a.next();
        };
        match (self.a.peek().copied(), b.peek().copied()) {
            (Some(x), Some(y)) if x < y => self.a.next(),
            (Some(x), Some(y)) if y < x => b.next(),
            (Some(_), Some(_)) => {
                b.next();
                self.a.next()
            }
            (Some(_), None) => self.a.next(),
            (None, _) => b.next(),
        }
    }
}

/// Neighbours of `v` ignoring direction: the union of out- and in-neighbours on directed
/// graphs (reciprocal arcs appear once), the plain neighbour list on undirected ones.
/// May include `v` itself if it has a self-loop.
pub(crate) fn undirected<G: GraphView>(g: &G, v: u32) -> Union<G::Neighbors<'_>> {
    Union {
        a: g.out_neighbors(v).peekable(),
        b: g.is_directed().then(|| g.in_neighbors(v).peekable()),
    }
}

/// Fills `buf` with the undirected neighbourhood of `v` minus `v` itself, ascending.
pub(crate) fn undirected_into<G: GraphView>(g: &G, v: u32, buf: &mut Vec<u32>) {
    buf.clear();
    buf.extend(undirected(g, v).filter(|&u| u != v));
}

/// Counts the ids that ascending `a` and ascending `b` share, leaving out
/// `exclude`: the shorter list probes the longer (`count_in_slice`).
#[inline]
pub(crate) fn count_common(a: &[u32], b: &[u32], exclude: u32) -> u64 {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    count_in_slice(short, long, |k| short[k] != exclude)
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

/// Counts the ids `set[k]` of ascending `set` that occur in ascending
/// `list`, among those with `keep(k)`.
///
/// A `set` much shorter than `list` (a low-degree vertex's list against a
/// hub's) probes `list` by galloping, kept ids only: O(|set| log) instead
/// of walking the hub's whole list, which is what made triangle counting
/// cost the sum of squared degrees. Otherwise a linear merge that stops at
/// the end of either, testing `keep` on common ids only.
#[inline]
pub(crate) fn count_in_slice(set: &[u32], list: &[u32], keep: impl Fn(usize) -> bool) -> u64 {
    let mut count = 0u64;
    if set.len().saturating_mul(PROBE_RATIO) < list.len() {
        let mut rest = list;
        for (k, &w) in set.iter().enumerate() {
            if !keep(k) {
                continue;
            }
            let i = gallop(rest, w);
            let Some(&x) = rest.get(i) else {
                break;
            };
            count += u64::from(x == w);
            rest = &rest[i..];
        }
    } else {
        let (mut i, mut j) = (0, 0);
        while i < set.len() && j < list.len() {
            let (a, b) = (set[i], list[j]);
            if a == b && keep(i) {
                count += 1;
            }
            i += usize::from(a <= b);
            j += usize::from(b <= a);
        }
    }
    count
}

/// Counts the ids `set[k]` of ascending `set` that the ascending iterator
/// `items` yields, among those with `keep(k)`; stops once `items` passes
/// the end of `set`. For lists held only as iterators (see
/// `count_in_slice`).
#[inline]
pub(crate) fn count_common_where(
    set: &[u32],
    items: impl Iterator<Item = u32>,
    keep: impl Fn(usize) -> bool,
) -> u64 {
    let Some(&last) = set.last() else {
        return 0;
    };
    let mut count = 0u64;
    let mut i = 0;
    for w in items {
        if w > last {
            break;
        }
        while set[i] < w {
            i += 1;
        }
        if set[i] == w && keep(i) {
            count += 1;
        }
    }
    count
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;

    #[test]
    fn count_common_both_strategies_and_orders() {
        let evens: Vec<u32> = (0..100).map(|x| x * 2).collect();
        let all: Vec<u32> = (0..300).collect();
        let few = [3, 4, 198];
        for (a, b, exclude, want) in [
            (&evens[..], &all[..], 4, 99),  // merge
            (&evens[..], &few[..], 198, 1), // the short list probes
            (&[][..], &all[..3], 9, 0),
        ] {
            assert_eq!(count_common(a, b, exclude), want);
            assert_eq!(count_common(b, a, exclude), want);
        }
    }

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
    fn count_in_slice_both_strategies_match_a_set_model() {
        let list: Vec<u32> = (0..400).map(|x| x * 3).collect();
        let sets: [Vec<u32>; 3] = [
            vec![0, 3, 4, 300, 1197, 1198, 5000], // probes (7 * 2 < 400)
            (0..200).map(|x| x * 2).collect(),    // merge
            vec![],
        ];
        for set in &sets {
            for keep_odd in [false, true] {
                let keep = |k: usize| !keep_odd || set[k] % 2 == 1;
                let want = set
                    .iter()
                    .filter(|&&w| list.contains(&w) && (!keep_odd || w % 2 == 1))
                    .count() as u64;
                assert_eq!(count_in_slice(set, &list, keep), want);
                assert_eq!(count_common_where(set, list.iter().copied(), keep), want);
            }
        }
    }

    #[test]
    fn union_dedupes() {
        let u = Union {
            a: vec![1, 3, 5].into_iter().peekable(),
            b: Some(vec![2, 3, 6].into_iter().peekable()),
        };
        assert_eq!(u.collect::<Vec<_>>(), vec![1, 2, 3, 5, 6]);
    }
}
