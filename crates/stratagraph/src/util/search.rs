//! Finding a destination in a long sorted column with few dependent misses.
//!
//! A binary search over a list that spans many cache lines misses once per
//! halving, and each miss waits for the one before it: a single-edge insert
//! at scale 20 spends most of its look-up below the MemGraph there (the
//! source's list has 176 entries at the median and thousands for hubs).
//! Probing several evenly spaced entries at once lets their loads overlap,
//! so each round costs about one miss and narrows the range `WAYS + 1`
//! times instead of twice.

/// Probes per round. The loads of one round are independent; eight stay
/// well within what a core keeps in flight.
const WAYS: usize = 8;

/// Rounds go on down to one cache line of entries, where a plain binary
/// search finishes in lines already loaded. (Stopping at four lines left
/// two dependent misses: 0.37M single-edge inserts/s against 0.44M/s.)
const WIDE_MIN: usize = 16;

/// The number of leading entries of ascending `d` that are below `x`
/// (`d.partition_point(|&y| y < x)`).
#[inline]
pub(crate) fn count_below(d: &[u32], x: u32) -> usize {
    let (mut lo, mut hi) = (0, d.len());
    while hi - lo >= WIDE_MIN {
        // Probes at lo + step * i for i in 1..=WAYS, all inside lo..hi.
        let step = (hi - lo) / (WAYS + 1);
        let below = (1..=WAYS).filter(|&i| d[lo + step * i] < x).count();
        // The answer lies after the last probe below `x` and at or before
        // the first probe that is not.
        let new_lo = if below == 0 {
            lo
        } else {
            lo + step * below + 1
        };
        if below < WAYS {
            hi = lo + step * (below + 1);
        }
        lo = new_lo;
    }
    lo + d[lo..hi].partition_point(|&y| y < x)
}

/// The first index at or after `from` whose entry in ascending `d` is not
/// below `x` (`from + d[from..].partition_point(|&y| y < x)`), found by
/// galloping: steps of 1, 2, 4, ... then a binary search inside the last
/// one. A merge that drops a few ids into a long list finds each place in
/// about log2 of the distance from the last, where a binary search over
/// the whole rest of the list costs log2 of its length, in misses for a
/// hub's list.
#[inline]
pub(crate) fn gallop_below(d: &[u32], from: usize, x: u32) -> usize {
    let rest = d.get(from..).unwrap_or(&[]);
    let mut hi = 1;
    while rest.get(hi - 1).is_some_and(|&y| y < x) {
        hi *= 2;
    }
    // Every entry before `hi / 2` is below `x`; `rest[hi - 1]` is not, or
    // lies past the end.
    let lo = hi / 2;
    let hi = hi.min(rest.len());
    from + lo + rest.get(lo..hi).unwrap_or(&[]).partition_point(|&y| y < x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn agrees_with_partition_point(
            mut d in proptest::collection::vec(0u32..5000, 0..3000),
            probes in proptest::collection::vec(0u32..5100, 1..40),
        ) {
            d.sort_unstable();
            for x in probes.into_iter().chain([0, u32::MAX]).chain(d.iter().copied().take(20)) {
                prop_assert_eq!(count_below(&d, x), d.partition_point(|&y| y < x), "x = {}", x);
            }
        }
    }

    proptest! {
        /// From any start, against `partition_point` over the rest.
        #[test]
        fn gallop_agrees_with_partition_point(
            mut d in proptest::collection::vec(0u32..5000, 0..3000),
            probes in proptest::collection::vec((0u32..5100, 0usize..3100), 1..40),
        ) {
            d.sort_unstable();
            for (x, from) in probes.into_iter().chain([(0, 0), (u32::MAX, 0), (u32::MAX, d.len())]) {
                let want = from + d.get(from..).unwrap_or(&[]).partition_point(|&y| y < x);
                prop_assert_eq!(gallop_below(&d, from, x), want, "x = {}, from = {}", x, from);
            }
        }
    }

    #[test]
    fn runs_of_equal_entries_and_every_length_up_to_a_few_rounds() {
        for len in 0..700usize {
            let d: Vec<u32> = (0..len as u32).map(|i| i / 3 * 2).collect();
            for x in 0..=(len as u32 / 3 * 2 + 2) {
                assert_eq!(
                    count_below(&d, x),
                    d.partition_point(|&y| y < x),
                    "len {len} x {x}"
                );
            }
        }
    }
}
