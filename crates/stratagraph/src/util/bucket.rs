//! Stable grouping of items by a dense `u32` owner id (a counting sort).
//!
//! Batches and CSR building both need writes grouped by vertex. Vertex ids
//! are dense, so when a batch is large next to the id space a counting sort
//! does in two linear passes what a comparison sort does in `log n`, and it
//! is stable: items of one owner keep their input order, which is what
//! "the last write to an edge wins" and sorted-input fast paths rely on.
//!
//! The scatter is parallel without shared mutable state: the owner range is
//! cut into one contiguous slice of the output per task (balanced by item
//! count), and each task reads the whole input and writes only the items
//! whose owner falls in its range. Reading the input once per task costs a
//! sequential pass each; writing stays disjoint and needs no `unsafe`.

use rayon::prelude::*;

/// Items grouped by `owner(item)` ascending, stable within an owner.
/// `bound` must exceed every owner id.
pub(crate) fn group_by_owner<T, F>(items: &[T], bound: u32, owner: F) -> Vec<T>
where
    T: Copy + Default + Send + Sync,
    F: Fn(&T) -> u32 + Sync,
{
    let n = items.len();
    if n == 0 {
        return Vec::new();
    }
    let bound = bound as usize;
    let tasks = rayon::current_num_threads().clamp(1, 64);
    let chunk = n.div_ceil(tasks).max(1);
    // Per-chunk histograms, summed: counts[o] = items owned by o.
    let counts: Vec<u32> = items
        .par_chunks(chunk)
        .map(|c| {
            let mut h = vec![0u32; bound];
            for it in c {
                h[owner(it) as usize] += 1;
            }
            h
        })
        .reduce_with(|mut a, b| {
            a.iter_mut().zip(&b).for_each(|(x, y)| *x += y);
            a
        })
        .unwrap_or_default();
    // start[o]: first output slot of owner o.
    let mut start = Vec::with_capacity(bound + 1);
    let mut acc = 0usize;
    for &c in &counts {
        start.push(acc);
        acc += c as usize;
    }
    start.push(acc);
    // Owner ranges with about n / tasks items each.
    let mut cuts = vec![0usize];
    for t in 1..tasks {
        let target = n * t / tasks;
        let o = start.partition_point(|&s| s < target).min(bound);
        if o > *cuts.last().unwrap_or(&0) {
            cuts.push(o);
        }
    }
    cuts.push(bound);
    let mut out = vec![T::default(); n];
    let mut slices = Vec::with_capacity(cuts.len() - 1);
    let mut rest: &mut [T] = &mut out;
    for w in cuts.windows(2) {
        let (here, tail) = rest.split_at_mut(start[w[1]] - start[w[0]]);
        slices.push((w[0], w[1], here));
        rest = tail;
    }
    slices.into_par_iter().for_each(|(lo, hi, dst)| {
        let base = start[lo];
        let mut next: Vec<usize> = start[lo..hi].iter().map(|s| s - base).collect();
        for it in items {
            let o = owner(it) as usize;
            if (lo..hi).contains(&o) {
                dst[next[o - lo]] = *it;
                next[o - lo] += 1;
            }
        }
    });
    out
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
