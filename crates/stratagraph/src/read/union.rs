//! The scan path for a vertex whose edges below the MemGraph sit in plain
//! segments only (the usual state: compaction strips timestamps older than
//! the watermark, and a flush with no snapshot open writes none).
//!
//! Plain segments hold live edges and no tombstones, so below the MemGraph
//! a vertex's edges are the sorted union of its slices, whatever their
//! order; a destination found in two of them is one edge whose weight the
//! newer decides, which a destination-only scan does not need. Only the
//! MemGraph's versions can hide an edge, and it is the newest source, so
//! its decided list is laid over the union last. These loops move
//! destinations only, with no per-entry version or source bookkeeping,
//! which is what keeps a scan with a fifth of the graph above the levels
//! close to a CSR scan (`read::merge` handles everything else).

use crate::util::search::gallop_below;

/// Most plain slices one vertex is gathered from on this path (L0 runs
/// plus one part per level); a vertex spread wider takes the general merge.
pub(crate) const MAX_SLICES: usize = 16;

/// Reusable buffers for one thread's scans.
#[derive(Default)]
pub(crate) struct ListScratch {
    /// Where unions are built.
    pub lists: Unions,
    /// The MemGraph's decided destinations of the vertex being read, when
    /// copied under its lock: the live ones (`adds`) and the tombstones
    /// (`kills`), each ascending.
    pub adds: Vec<u32>,
    pub kills: Vec<u32>,
    /// A list built whole by another path (the general merge, or a scan of
    /// the MemGraph alone).
    pub list: Vec<u32>,
}

/// The buffers a union is built in.
#[derive(Default)]
pub(crate) struct Unions {
    /// The result handed to callers.
    out: Vec<u32>,
    /// Intermediate unions.
    tmp: Vec<u32>,
}

impl Unions {
    /// The union of `lists` with the MemGraph's decisions laid over it
    /// (`kills` removed, `adds` added; the two share no destination),
    /// handed to `f`: without a copy when one slice is all there is.
    #[inline]
    pub(crate) fn resolve<R>(
        &mut self,
        lists: &[&[u32]],
        adds: &[u32],
        kills: &[u32],
        f: impl FnOnce(&[u32]) -> R,
    ) -> R {
        let Unions { out, tmp } = self;
        if adds.is_empty() && kills.is_empty() {
            return match lists {
                [] => f(&[]),
                [one] => f(one),
                _ => {
                    union_many(lists, out, tmp);
                    f(out)
                }
            };
        }
        if kills.is_empty() {
            // The MemGraph only adds (the usual tail of inserts): add to the
            // smaller slices, then unite the result with the largest slice,
            // so the bulk of the edges is copied once.
            let big = (0..lists.len()).max_by_key(|&i| lists[i].len());
            let Some(big) = big else {
                return f(adds);
            };
            let mut others: [&[u32]; MAX_SLICES] = [&[]; MAX_SLICES];
            let mut n = 0;
            for (i, l) in lists.iter().enumerate() {
                if i != big && n < MAX_SLICES {
                    others[n] = l;
                    n += 1;
                }
            }
            match others.get(..n).unwrap_or(&[]) {
                [] => union_into(lists[big], adds, out),
                [one] => {
                    union_into(one, adds, tmp);
                    union_into(lists[big], tmp, out);
                }
                many => {
                    union_many(many, out, tmp);
                    union_into(out, adds, tmp);
                    union_into(lists[big], tmp, out);
                }
            }
            return f(out);
        }
        match lists {
            [] => tmp.clear(),
            [one] => remove_into(one, kills, tmp),
            _ => {
                union_many(lists, out, tmp);
                remove_into(out, kills, tmp);
            }
        }
        union_into(tmp, adds, out);
        f(out)
    }
}

/// The ascending union of two ascending lists, each value once, into `out`
/// (cleared first).
#[inline]
pub(crate) fn union_into(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (big, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if small.len().saturating_mul(8) < big.len() {
        // A few values into a long list: copy the stretches between them.
        let mut i = 0;
        for &d in small {
            let k = gallop_below(big, i, d);
            out.extend_from_slice(big.get(i..k).unwrap_or(&[]));
            out.push(d);
            i = k + usize::from(big.get(k) == Some(&d));
        }
        out.extend_from_slice(big.get(i..).unwrap_or(&[]));
        return;
    }
    let (mut i, mut j) = (0, 0);
    // Branch-light: one comparison decides which side advances (both, on
    // equal values), which keeps interleaved lists from mispredicting.
    while let (Some(&x), Some(&y)) = (a.get(i), b.get(j)) {
        out.push(x.min(y));
        i += usize::from(x <= y);
        j += usize::from(y <= x);
    }
    out.extend_from_slice(a.get(i..).unwrap_or(&[]));
    out.extend_from_slice(b.get(j..).unwrap_or(&[]));
}

/// Buffers an ordered scan merges a vertex's disjoint pieces in.
#[derive(Default)]
pub(crate) struct MergeScratch {
    out: Vec<u32>,
    tmp: Vec<u32>,
}

/// The ascending merge of `pieces`, ascending lists no two of which hold
/// the same id (a vertex's plain slices and its MemGraph additions, as its
/// page has them in pieces): the one piece itself when there is one, else
/// built in `sc`. Knowing the pieces disjoint spares the equality checks
/// of `union_into` and fixes where every output id goes.
pub(crate) fn merge_disjoint<'a>(pieces: &[&'a [u32]], sc: &'a mut MergeScratch) -> &'a [u32] {
    match pieces {
        [] => &[],
        [one] => one,
        [a, b] => {
            merge_two_disjoint(a, b, &mut sc.out);
            &sc.out
        }
        _ => {
            // Smallest first, so the bulk of the ids is moved once (any
            // pieces past `MAX_SLICES`, which no caller has, after them).
            let mut order: [&[u32]; MAX_SLICES] = [&[]; MAX_SLICES];
            let (first, rest) = pieces.split_at(pieces.len().min(MAX_SLICES));
            let order = &mut order[..first.len()];
            order.copy_from_slice(first);
            order.sort_unstable_by_key(|p| p.len());
            let MergeScratch { out, tmp } = sc;
            merge_two_disjoint(order[0], order[1], out);
            for p in order[2..].iter().chain(rest) {
                merge_two_disjoint(out, p, tmp);
                std::mem::swap(out, tmp);
            }
            out
        }
    }
}

/// The ascending merge of two disjoint ascending lists into `out`
/// (replacing its contents).
///
/// A merge is bound by a chain per output id: compare the two heads, step
/// the side taken, load its next head. This one runs two such chains side
/// by side, the smallest ids from the front and the largest from the back,
/// which meet in the middle without overlap because no id is in both lists;
/// the processor overlaps them, about halving the time per id. A few ids
/// into a long list take the stretch copy of `union_into` instead.
pub(crate) fn merge_two_disjoint(a: &[u32], b: &[u32], out: &mut Vec<u32>) {
    let (big, small) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    if small.len().saturating_mul(12) < big.len() {
        union_into(big, small, out);
        return;
    }
    let n = a.len() + b.len();
    out.clear();
    out.resize(n, 0);
    // Heads as u64, so a spent side reads as past every id (front) or
    // before every id (back, as -1) without a branch on which it is.
    let front = |l: &[u32], i: usize| l.get(i).map_or(u64::MAX, |&x| u64::from(x));
    let back = |l: &[u32], end: usize| {
        end.checked_sub(1)
            .and_then(|i| l.get(i))
            .map_or(-1, |&x| i64::from(x))
    };
    let (mut i, mut j) = (0, 0);
    let (mut ie, mut je) = (a.len(), b.len());
    let (low, high) = out.split_at_mut(n / 2);
    // `high` is one longer than `low` when `n` is odd: its first slot is
    // the one id left between the chains.
    let odd = high.len() > low.len();
    for (lo, hi) in low.iter_mut().zip(high.iter_mut().rev()) {
        let (x, y) = (front(a, i), front(b, j));
        let take_a = x < y;
        *lo = x.min(y) as u32;
        i += usize::from(take_a);
        j += usize::from(!take_a);
        let (x, y) = (back(a, ie), back(b, je));
        let take_a = x > y;
        *hi = x.max(y) as u32;
        ie -= usize::from(take_a);
        je -= usize::from(!take_a);
    }
    if let (true, Some(mid)) = (odd, high.first_mut()) {
        *mid = front(a, i).min(front(b, j)) as u32;
    }
}

/// The union of any number of ascending lists into `out`, using `tmp`.
pub(crate) fn union_many(lists: &[&[u32]], out: &mut Vec<u32>, tmp: &mut Vec<u32>) {
    match lists {
        [] => out.clear(),
        [one] => {
            out.clear();
            out.extend_from_slice(one);
        }
        [a, b, rest @ ..] => {
            union_into(a, b, out);
            for l in rest {
                union_into(out, l, tmp);
                std::mem::swap(out, tmp);
            }
        }
    }
}

/// `base` without the destinations in `kills` (both ascending), into
/// `out` (cleared first): the stretches between them are copied whole.
pub(crate) fn remove_into(base: &[u32], kills: &[u32], out: &mut Vec<u32>) {
    out.clear();
    out.reserve(base.len());
    let mut i = 0;
    for &d in kills {
        let k = gallop_below(base, i, d);
        out.extend_from_slice(base.get(i..k).unwrap_or(&[]));
        i = k + usize::from(base.get(k) == Some(&d));
    }
    out.extend_from_slice(base.get(i..).unwrap_or(&[]));
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn sorted(v: Vec<u32>) -> Vec<u32> {
        v.into_iter().collect::<BTreeSet<_>>().into_iter().collect()
    }

    proptest! {
        /// Against a set model: the union of the slices, minus the
        /// MemGraph's tombstones, plus its live destinations.
        #[test]
        fn resolve_matches_a_set_model(
            lists in prop::collection::vec(prop::collection::vec(0u32..200, 0..60), 0..5),
            mem in prop::collection::btree_map(0u32..200, prop::bool::weighted(0.8), 0..20),
        ) {
            let lists: Vec<Vec<u32>> = lists.into_iter().map(sorted).collect();
            let mut want: BTreeSet<u32> = lists.iter().flatten().copied().collect();
            for (&d, &live) in &mem {
                if live {
                    want.insert(d);
                } else {
                    want.remove(&d);
                }
            }
            let want: Vec<u32> = want.into_iter().collect();
            let slices: Vec<&[u32]> = lists.iter().map(Vec::as_slice).collect();
            let adds: Vec<u32> = mem.iter().filter(|e| *e.1).map(|e| *e.0).collect();
            let kills: Vec<u32> = mem.iter().filter(|e| !*e.1).map(|e| *e.0).collect();
            let got = Unions::default().resolve(&slices, &adds, &kills, <[u32]>::to_vec);
            prop_assert_eq!(got, want);
        }
    }

    proptest! {
        /// Against a sorted copy: disjoint pieces of any sizes, including
        /// ids at both ends of the `u32` range.
        #[test]
        fn merge_disjoint_matches_a_sort(
            ids in prop::collection::btree_set(
                prop_oneof![
                    prop::sample::select(vec![0u32, 1, 2, u32::MAX - 1, u32::MAX]),
                    any::<u32>(),
                    0u32..600,
                ],
                0..300,
            ),
            owner in prop::collection::vec(0usize..40, 300),
            pieces in 1usize..6,
            skewed in any::<bool>(),
        ) {
            // Skewed: nine ids in ten in the first piece, so a few ids
            // go into a long list (the stretch copy) as well.
            let mut lists = vec![Vec::new(); pieces];
            for (k, &d) in ids.iter().enumerate() {
                let o = owner[k];
                lists[if skewed && o < 36 { 0 } else { o % pieces }].push(d);
            }
            let slices: Vec<&[u32]> = lists.iter().map(Vec::as_slice).collect();
            let want: Vec<u32> = ids.iter().copied().collect();
            let mut sc = MergeScratch::default();
            prop_assert_eq!(merge_disjoint(&slices, &mut sc), &want[..]);
        }
    }

    #[test]
    fn one_slice_and_no_memgraph_is_handed_over_in_place() {
        let list = [1u32, 4, 9];
        let ptr = Unions::default().resolve(&[&list], &[], &[], |l| l.as_ptr());
        assert_eq!(ptr, list.as_ptr());
    }
}
