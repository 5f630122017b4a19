//! Stable grouping of items by a dense `u32` owner id (a counting sort).
//!
//! Batches and CSR building both need writes grouped by vertex. Vertex ids
//! are dense, so when a batch is large next to the id space a counting sort
//! does in two linear passes what a comparison sort does in `log n`, and it
//! is stable: items of one owner keep their input order, which is what
//! "the last write to an edge wins" and sorted-input fast paths rely on.
//!
//! It runs in two cache-friendly passes, both parallel, writing disjoint
//! slices with no `unsafe` (see `group_pairs`).

use rayon::prelude::*;

/// Items grouped by `owner(item)` ascending, stable within an owner.
/// `bound` must exceed every owner id.
pub(crate) fn group_by_owner<T, F>(items: &[T], bound: u32, owner: F) -> Vec<T>
where
    T: Copy + Default + Send + Sync,
    F: Fn(&T) -> u32 + Sync,
{
    group_indexed(items.len(), bound, |i| owner(&items[i]), |i| items[i]).0
}

/// The values `value(i)` of items `i` in `0..n`, grouped by `owner(i)`
/// ascending and in index order within an owner, with `starts` (`bound + 1`
/// entries): owner `o`'s values are `grouped[starts[o]..starts[o + 1]]`,
/// which is what a CSR's offsets are. Taking items by index lets a caller
/// group what it never materialises as items (both endpoints of an edge
/// list, say) and move only the part it needs.
pub(crate) fn group_indexed<V, O, F>(
    n: usize,
    bound: u32,
    owner: O,
    value: F,
) -> (Vec<V>, Vec<usize>)
where
    V: Copy + Default + Send + Sync,
    O: Fn(usize) -> u32 + Sync,
    F: Fn(usize) -> V + Sync,
{
    let tasks = rayon::current_num_threads().clamp(1, 64);
    let chunk = n.div_ceil(tasks).max(1);
    let parts: Vec<_> = (0..n.div_ceil(chunk))
        .map(|t| {
            let items = t * chunk..((t + 1) * chunk).min(n);
            let (owner, value) = (&owner, &value);
            move || items.clone().map(move |i| (owner(i), value(i)))
        })
        .collect();
    group_pairs(parts, bound)
}

/// The transpose of a CSR over vertices `0..bound` (`offsets`, `dsts`):
/// per destination, its sources ascending, with the offsets of that.
pub(crate) fn transpose(offsets: &[u32], dsts: &[u32], bound: u32) -> (Vec<u32>, Vec<usize>) {
    let tasks = rayon::current_num_threads().clamp(1, 64);
    let per_task = dsts.len().div_ceil(tasks).max(1) as u32;
    // Source ranges with about the same number of entries each.
    let mut cuts = vec![0usize];
    for t in 1..tasks as u32 {
        let v = offsets.partition_point(|&o| o < t * per_task);
        if v > *cuts.last().unwrap_or(&0) && v < offsets.len() - 1 {
            cuts.push(v);
        }
    }
    cuts.push(offsets.len() - 1);
    let parts: Vec<_> = cuts
        .windows(2)
        .map(|w| {
            let sources = w[0]..w[1];
            move || {
                sources.clone().flat_map(move |s| {
                    let r = offsets[s] as usize..offsets[s + 1] as usize;
                    dsts[r].iter().map(move |&d| (d, s as u32))
                })
            }
        })
        .collect();
    group_pairs(parts, bound)
}

/// Owners per bucket of the first pass (a power of two) for `bound`
/// owners: at most `BUCKETS` buckets, so the first pass writes to few
/// enough places at once to stay in cache, and one bucket's owners few
/// enough for the second pass's counters to stay there too.
fn bucket_shift(bound: u32) -> u32 {
    const BUCKETS: u32 = 1024;
    let bits = u32::BITS - bound.saturating_sub(1).leading_zeros();
    bits.saturating_sub(BUCKETS.trailing_zeros())
}

/// One part's pairs after the first pass, split by bucket, and where each
/// bucket's share starts (`at[b]..at[b + 1]`).
type Split<V> = (Vec<(u32, V)>, Vec<usize>);

/// Groups the `(owner, value)` pairs that the parts yield (each part is
/// called twice and must yield the same pairs both times) by owner,
/// stable in part order, then within a part.
///
/// A counting sort straight into place writes each value to a random one
/// of `bound` places: two cache misses per value once `bound` is in the
/// millions. So it goes in two passes (LSD radix style): each part first
/// splits its pairs by owner bucket (1024 places), then each bucket,
/// whose values and counters fit in cache, is counted and laid out from
/// every part's share of it, in part order. Both passes run in parallel
/// and write disjoint slices, with no `unsafe`.
fn group_pairs<V, P, I>(parts: Vec<P>, bound: u32) -> (Vec<V>, Vec<usize>)
where
    V: Copy + Default + Send + Sync,
    P: Fn() -> I + Send + Sync,
    I: Iterator<Item = (u32, V)>,
{
    let shift = bucket_shift(bound);
    let buckets = (bound as usize).div_ceil(1 << shift).max(1);
    // Pass 1: per part, its pairs split by bucket (`at[b]..at[b + 1]`).
    let split: Vec<Split<V>> = parts
        .into_par_iter()
        .map(|part| {
            let mut at = vec![0usize; buckets + 1];
            for (o, _) in part() {
                at[(o >> shift) as usize + 1] += 1;
            }
            for b in 0..buckets {
                at[b + 1] += at[b];
            }
            let mut pairs = vec![(0u32, V::default()); at[buckets]];
            let mut next = at.clone();
            for (o, v) in part() {
                let b = (o >> shift) as usize;
                pairs[next[b]] = (o, v);
                next[b] += 1;
            }
            (pairs, at)
        })
        .collect();
    // Where each bucket's values start in the output.
    let mut first = Vec::with_capacity(buckets + 1);
    let mut acc = 0usize;
    for b in 0..buckets {
        first.push(acc);
        acc += split.iter().map(|(_, at)| at[b + 1] - at[b]).sum::<usize>();
    }
    first.push(acc);
    let mut out = vec![V::default(); acc];
    let mut starts = vec![0usize; bound as usize + 1];
    starts[bound as usize] = acc;
    // Pass 2: each bucket, counted and laid out in its own output slice.
    let mut tasks = Vec::with_capacity(buckets);
    let (mut out_rest, mut starts_rest): (&mut [V], &mut [usize]) =
        (&mut out, &mut starts[..bound as usize]);
    for b in 0..buckets {
        let owners = (1usize << shift).min(starts_rest.len());
        let (o_here, o_tail) = out_rest.split_at_mut(first[b + 1] - first[b]);
        let (s_here, s_tail) = starts_rest.split_at_mut(owners);
        tasks.push((b, o_here, s_here));
        out_rest = o_tail;
        starts_rest = s_tail;
    }
    tasks.into_par_iter().for_each(|(b, dst, starts)| {
        let base = b << shift;
        let shares = || split.iter().flat_map(|(p, at)| &p[at[b]..at[b + 1]]);
        let mut next = vec![0usize; starts.len()];
        for &(o, _) in shares() {
            next[o as usize - base] += 1;
        }
        let mut acc = 0;
        for (s, n) in starts.iter_mut().zip(next.iter_mut()) {
            *s = first[b] + acc;
            let count = *n;
            *n = acc;
            acc += count;
        }
        for &(o, v) in shares() {
            let k = o as usize - base;
            dst[next[k]] = v;
            next[k] += 1;
        }
    });
    (out, starts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn matches_a_stable_sort(items in proptest::collection::vec((0u32..50, 0u32..1000), 0..500)) {
            let got = group_by_owner(&items, 50, |&(o, _)| o);
            let mut want = items.clone();
            want.sort_by_key(|&(o, _)| o);
            prop_assert_eq!(got, want);
        }

        #[test]
        fn starts_delimit_each_owner(items in proptest::collection::vec((0u32..50, 0u32..1000), 0..500)) {
            let (got, starts) = group_indexed(items.len(), 50, |i| items[i].0, |i| items[i].1);
            prop_assert_eq!(starts.len(), 51);
            prop_assert_eq!(starts[50], items.len());
            for o in 0..50u32 {
                let want: Vec<u32> = items.iter().filter(|it| it.0 == o).map(|it| it.1).collect();
                prop_assert_eq!(&got[starts[o as usize]..starts[o as usize + 1]], &want[..]);
            }
        }

        #[test]
        fn transpose_lists_sources_ascending(lists in proptest::collection::vec(
            proptest::collection::btree_set(0u32..40, 0..10), 1..40)) {
            let bound = 40u32;
            let mut offsets = vec![0u32];
            let mut dsts = Vec::new();
            for l in &lists {
                dsts.extend(l.iter().copied());
                offsets.push(dsts.len() as u32);
            }
            offsets.resize(bound as usize + 1, dsts.len() as u32);
            let (srcs, starts) = transpose(&offsets, &dsts, bound);
            for d in 0..bound {
                let want: Vec<u32> = (0..lists.len() as u32)
                    .filter(|&s| lists[s as usize].contains(&d))
                    .collect();
                prop_assert_eq!(&srcs[starts[d as usize]..starts[d as usize + 1]], &want[..]);
            }
        }
    }

    #[test]
    fn spreads_over_threads_with_skewed_owners() {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap();
        // One owner holds most items: cuts must stay ordered and exact.
        let items: Vec<(u32, u32)> = (0..10_000u32)
            .map(|i| (if i % 10 == 0 { i % 97 } else { 42 }, i))
            .collect();
        let got = pool.install(|| group_by_owner(&items, 97, |&(o, _)| o));
        let mut want = items.clone();
        want.sort_by_key(|&(o, _)| o);
        assert_eq!(got, want);
    }
}
