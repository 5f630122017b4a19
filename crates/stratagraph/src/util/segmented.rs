//! An append-only table indexed by `u32`, readable without locks.
//!
//! Vertex slots and the internal-to-external id table grow while readers
//! index them concurrently. A `Vec` behind a lock would make every read take
//! the lock and every growth copy the table; instead items live in buckets
//! whose sizes double (1024, 1024, 2048, 4096, ...), each allocated once and
//! never moved, so a reference into the table stays valid for the table's
//! life and a lookup is two array indexings.

use std::sync::OnceLock;

const FIRST_BITS: u32 = 10;
const FIRST: u64 = 1 << FIRST_BITS;
/// Enough buckets to cover every `u32` index.
const BUCKETS: usize = (32 - FIRST_BITS + 1) as usize;

/// Append-only table of `T` indexed by `u32`; unallocated items read as absent.
pub(crate) struct SegmentedTable<T> {
    buckets: [OnceLock<Box<[T]>>; BUCKETS],
}

/// Bucket number and offset inside it for index `i`.
#[inline]
fn locate(i: u32) -> (usize, usize) {
    let q = (u64::from(i) >> FIRST_BITS) + 1;
    let b = q.ilog2();
    let start = FIRST * ((1u64 << b) - 1);
    (b as usize, (u64::from(i) - start) as usize)
}

impl<T: Default> SegmentedTable<T> {
    pub(crate) fn new() -> Self {
        SegmentedTable {
            buckets: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    /// The item at `i`, if its bucket has been allocated.
    #[inline]
    pub(crate) fn get(&self, i: u32) -> Option<&T> {
        let (b, off) = locate(i);
        self.buckets[b].get().and_then(|bucket| bucket.get(off))
    }

    /// The item at `i`, allocating its bucket (default-filled) if needed.
    pub(crate) fn get_or_alloc(&self, i: u32) -> &T {
        let (b, off) = locate(i);
        let bucket = self.buckets[b].get_or_init(|| {
            let len = FIRST << b;
            (0..len).map(|_| T::default()).collect()
        });
        &bucket[off]
    }

    /// Bytes held by allocated buckets.
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.buckets
            .iter()
            .filter_map(|b| b.get())
            .map(|b| std::mem::size_of_val(&**b))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bucket_boundaries_map_every_index_once() {
        let mut expected = (0usize, 0usize);
        for i in 0..(FIRST as u32 * 9) {
            let got = locate(i);
            if got != expected {
                assert_eq!(got, (expected.0 + 1, 0), "index {i}");
            }
            expected = (got.0, got.1 + 1);
        }
        assert_eq!(locate(u32::MAX).0, BUCKETS - 1);
    }

    #[test]
    fn items_are_stable_and_absent_until_allocated() {
        let t: SegmentedTable<std::sync::atomic::AtomicU64> = SegmentedTable::new();
        assert!(t.get(5000).is_none());
        t.get_or_alloc(5000)
            .store(7, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(
            t.get(5000)
                .map(|a| a.load(std::sync::atomic::Ordering::Relaxed)),
            Some(7)
        );
        assert!(
            t.get(0).is_none(),
            "bucket 0 is separate from 5000's bucket"
        );
    }
}
