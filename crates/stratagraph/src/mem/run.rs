//! A sorted run of edge versions: the unit every adjacency container is made of.
//!
//! Layout: one shared allocation of `u32` words,
//! `[header; 8][dst; cap][stamp; cap]([weight lo; cap][weight hi; cap])`.
//! Columns rather than (dst, stamp) pairs so that the common read, a scan of
//! destinations with no version to check, touches 4 bytes per edge as a CSR
//! does. One allocation per run (not three `Vec`s) keeps the per-vertex cost
//! of low-degree vertices small, which dominates memory on power-law graphs.
//! Weight columns exist only once some edge of the run has a weight other
//! than 1.0, so unweighted graphs pay nothing for weights.
//!
//! The allocation is an `Arc` so that a reader can take a reference-counted
//! copy of a vertex's run under the vertex lock and scan it after releasing
//! the lock; a writer that finds the run shared copies it first
//! (copy-on-write), otherwise it edits in place.
//!
//! Entries are sorted by destination and, within one destination (a
//! *group*), newest version first. Stamps are 31-bit offsets from the run's
//! `base` timestamp with the top bit marking a tombstone (see `stamp`).

use std::sync::Arc;

const H_LEN: usize = 0;
const H_FLAGS: usize = 1;
const H_BASE_LO: usize = 2;
const H_BASE_HI: usize = 3;
const H_MAX: usize = 4;
const H_TOMBS: usize = 5;
const H_GROUPS: usize = 6;
const H_PRUNED: usize = 7;
const HDR: usize = 8;
const F_WEIGHTED: u32 = 1;

/// Stamp encoding: offset from the run's base in the low 31 bits, tombstone in the top bit.
pub(crate) mod stamp {
    /// Marks a version that deletes the edge.
    pub(crate) const TOMB: u32 = 1 << 31;
    /// The timestamp offset of a stamp.
    #[inline]
    pub(crate) fn offset(s: u32) -> u32 {
        s & !TOMB
    }
    /// Whether a stamp marks a deletion.
    #[inline]
    pub(crate) fn is_tomb(s: u32) -> bool {
        s & TOMB != 0
    }
}

/// One edge version as written or read in bulk.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Entry {
    pub dst: u32,
    pub stamp: u32,
    pub weight: f64,
}

/// A sorted run of edge versions (see the module docs).
#[derive(Clone)]
pub(crate) struct Run(Arc<[u32]>);

/// Next capacity when a run is full: about 1.5x, so slack stays near 20%.
fn grow(cap: usize) -> usize {
    match cap {
        0..=1 => 2,
        2..=3 => 4,
        _ => cap + cap / 2,
    }
}

impl Run {
    /// An empty run with room for `cap` entries.
    pub(crate) fn with_capacity(cap: usize, weighted: bool, base: u64) -> Run {
        let width = if weighted { 4 } else { 2 };
        let mut words: Arc<[u32]> = std::iter::repeat_n(0u32, HDR + cap * width).collect();
        let w = Arc::get_mut(&mut words).expect("fresh Arc is unique");
        w[H_FLAGS] = if weighted { F_WEIGHTED } else { 0 };
        w[H_BASE_LO] = base as u32;
        w[H_BASE_HI] = (base >> 32) as u32;
        Run(words)
    }

    /// A run holding `entries` (already sorted by dst, newest first within a
    /// dst) with `extra` free slots.
    pub(crate) fn from_entries(entries: &[Entry], extra: usize, base: u64) -> Run {
        let weighted = entries.iter().any(|e| e.weight != 1.0);
        let mut run = Run::with_capacity(entries.len() + extra, weighted, base);
        let cap = run.cap();
        let w = run.words_mut();
        let (mut max, mut tombs, mut groups) = (0u32, 0u32, 0u32);
        for (i, e) in entries.iter().enumerate() {
            w[HDR + i] = e.dst;
            w[HDR + cap + i] = e.stamp;
            if weighted {
                let bits = e.weight.to_bits();
                w[HDR + 2 * cap + i] = bits as u32;
                w[HDR + 3 * cap + i] = (bits >> 32) as u32;
            }
            max = max.max(stamp::offset(e.stamp));
            tombs += u32::from(stamp::is_tomb(e.stamp));
            groups += u32::from(i == 0 || entries[i - 1].dst != e.dst);
        }
        w[H_LEN] = entries.len() as u32;
        w[H_MAX] = max;
        w[H_TOMBS] = tombs;
        w[H_GROUPS] = groups;
        run
    }

    #[inline]
    pub(crate) fn len(&self) -> usize {
        self.0[H_LEN] as usize
    }

    #[inline]
    pub(crate) fn weighted(&self) -> bool {
        self.0[H_FLAGS] & F_WEIGHTED != 0
    }

    #[inline]
    fn width(&self) -> usize {
        if self.weighted() {
            4
        } else {
            2
        }
    }

    #[inline]
    pub(crate) fn cap(&self) -> usize {
        (self.0.len() - HDR) / self.width()
    }

    /// Timestamp that stamp offsets are relative to.
    #[inline]
    pub(crate) fn base(&self) -> u64 {
        u64::from(self.0[H_BASE_LO]) | (u64::from(self.0[H_BASE_HI]) << 32)
    }

    /// Largest stamp offset ever written (an upper bound after removals).
    #[inline]
    pub(crate) fn max_offset(&self) -> u32 {
        self.0[H_MAX]
    }

    /// Number of tombstone entries.
    #[inline]
    pub(crate) fn tombstones(&self) -> usize {
        self.0[H_TOMBS] as usize
    }

    /// Number of distinct destinations.
    #[inline]
    pub(crate) fn groups(&self) -> usize {
        self.0[H_GROUPS] as usize
    }

    /// Entries that are not the only live version of their destination.
    #[inline]
    pub(crate) fn garbage(&self) -> usize {
        self.len() - self.groups() + self.tombstones()
    }

    /// Garbage count left by the last full prune (to avoid re-pruning a run
    /// whose old versions are pinned by a snapshot on every write).
    #[inline]
    pub(crate) fn pruned_garbage(&self) -> usize {
        self.0[H_PRUNED] as usize
    }

    pub(crate) fn set_pruned_garbage(&mut self, n: usize) {
        self.words_mut()[H_PRUNED] = n.min(u32::MAX as usize) as u32;
    }

    /// True when every entry is the single live version of its destination:
    /// then a reader whose snapshot offset is at least `max_offset` may treat
    /// the destination column as a plain CSR slice.
    #[inline]
    pub(crate) fn is_plain(&self) -> bool {
        self.tombstones() == 0 && self.groups() == self.len()
    }

    #[inline]
    pub(crate) fn dsts(&self) -> &[u32] {
        &self.0[HDR..HDR + self.len()]
    }

    #[inline]
    pub(crate) fn stamps(&self) -> &[u32] {
        let cap = self.cap();
        &self.0[HDR + cap..HDR + cap + self.len()]
    }

    #[inline]
    pub(crate) fn weight(&self, i: usize) -> f64 {
        if !self.weighted() {
            return 1.0;
        }
        let cap = self.cap();
        let lo = u64::from(self.0[HDR + 2 * cap + i]);
        let hi = u64::from(self.0[HDR + 3 * cap + i]);
        f64::from_bits(lo | (hi << 32))
    }

    #[inline]
    pub(crate) fn entry(&self, i: usize) -> Entry {
        Entry {
            dst: self.dsts()[i],
            stamp: self.stamps()[i],
            weight: self.weight(i),
        }
    }

    /// Index range of the versions of `dst` (empty range at its insert position).
    #[inline]
    pub(crate) fn group(&self, dst: u32) -> std::ops::Range<usize> {
        let d = self.dsts();
        let start = d.partition_point(|&x| x < dst);
        let mut end = start;
        while end < d.len() && d[end] == dst {
            end += 1;
        }
        start..end
    }

    /// Bytes of the allocation, including the `Arc` counters.
    pub(crate) fn heap_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.0) + 2 * std::mem::size_of::<usize>()
    }

    /// Whether another holder (a reader) shares this run's allocation.
    #[cfg(test)]
    pub(crate) fn is_shared(&self) -> bool {
        Arc::strong_count(&self.0) > 1
    }

    /// The words, copied first if a reader holds this allocation.
    fn words_mut(&mut self) -> &mut [u32] {
        if Arc::get_mut(&mut self.0).is_none() {
            self.0 = Arc::from(&self.0[..]);
        }
        Arc::get_mut(&mut self.0).expect("unique after copy")
    }

    /// Re-lays the run with a new capacity and weightedness.
    fn relayout(&mut self, cap: usize, weighted: bool) {
        let len = self.len();
        let mut next = Run::with_capacity(cap.max(len), weighted, self.base());
        let ncap = next.cap();
        let (ocap, oweighted) = (self.cap(), self.weighted());
        let old = &self.0;
        let w = next.words_mut();
        w[..HDR].copy_from_slice(&old[..HDR]);
        w[H_FLAGS] = if weighted { F_WEIGHTED } else { 0 };
        w[HDR..HDR + len].copy_from_slice(&old[HDR..HDR + len]);
        w[HDR + ncap..HDR + ncap + len].copy_from_slice(&old[HDR + ocap..HDR + ocap + len]);
        if weighted {
            if oweighted {
                for k in 2..4 {
                    w[HDR + k * ncap..HDR + k * ncap + len]
                        .copy_from_slice(&old[HDR + k * ocap..HDR + k * ocap + len]);
                }
            } else {
                let one = 1.0f64.to_bits();
                w[HDR + 2 * ncap..HDR + 2 * ncap + len].fill(one as u32);
                w[HDR + 3 * ncap..HDR + 3 * ncap + len].fill((one >> 32) as u32);
            }
        }
        *self = next;
    }

    /// Inserts `e` at index `i` (the caller keeps the sort order).
    pub(crate) fn insert(&mut self, i: usize, e: Entry) {
        let len = self.len();
        debug_assert!(i <= len);
        let new_group =
            !((i > 0 && self.dsts()[i - 1] == e.dst) || (i < len && self.dsts()[i] == e.dst));
        let need_weights = e.weight != 1.0 && !self.weighted();
        if len == self.cap() || need_weights {
            let cap = if len == self.cap() {
                grow(len)
            } else {
                self.cap()
            };
            self.relayout(cap, self.weighted() || need_weights);
        }
        let cap = self.cap();
        let width = self.width();
        let w = self.words_mut();
        for k in 0..width {
            let col = HDR + k * cap;
            w.copy_within(col + i..col + len, col + i + 1);
        }
        w[HDR + i] = e.dst;
        w[HDR + cap + i] = e.stamp;
        if width == 4 {
            let bits = e.weight.to_bits();
            w[HDR + 2 * cap + i] = bits as u32;
            w[HDR + 3 * cap + i] = (bits >> 32) as u32;
        }
        w[H_LEN] += 1;
        w[H_MAX] = w[H_MAX].max(stamp::offset(e.stamp));
        w[H_TOMBS] += u32::from(stamp::is_tomb(e.stamp));
        w[H_GROUPS] += u32::from(new_group);
    }

    /// Overwrites entry `i` with a version of the same destination.
    pub(crate) fn replace(&mut self, i: usize, e: Entry) {
        debug_assert_eq!(self.dsts()[i], e.dst);
        if e.weight != 1.0 && !self.weighted() {
            self.relayout(self.cap(), true);
        }
        let old_tomb = stamp::is_tomb(self.stamps()[i]);
        let cap = self.cap();
        let weighted = self.weighted();
        let w = self.words_mut();
        w[HDR + cap + i] = e.stamp;
        if weighted {
            let bits = e.weight.to_bits();
            w[HDR + 2 * cap + i] = bits as u32;
            w[HDR + 3 * cap + i] = (bits >> 32) as u32;
        }
        w[H_MAX] = w[H_MAX].max(stamp::offset(e.stamp));
        w[H_TOMBS] = w[H_TOMBS] - u32::from(old_tomb) + u32::from(stamp::is_tomb(e.stamp));
    }

    /// Removes the entries in `range` (the caller keeps groups contiguous).
    pub(crate) fn remove(&mut self, range: std::ops::Range<usize>) {
        if range.is_empty() {
            return;
        }
        let len = self.len();
        let (a, b) = (range.start, range.end);
        let d = self.dsts();
        // A destination loses its group only if none of its versions stays:
        // count the distinct destinations in the range, minus those whose
        // group continues just before or just after it.
        let distinct = (a..b).filter(|&i| i == a || d[i - 1] != d[i]).count() as u32;
        let left = a > 0 && d[a - 1] == d[a];
        let right = b < len && d[b] == d[b - 1];
        let kept = if d[a] == d[b - 1] {
            u32::from(left || right)
        } else {
            u32::from(left) + u32::from(right)
        };
        let lost_groups = distinct - kept;
        let tombs = self.stamps()[a..b]
            .iter()
            .filter(|&&s| stamp::is_tomb(s))
            .count() as u32;
        let cap = self.cap();
        let width = self.width();
        let w = self.words_mut();
        for k in 0..width {
            let col = HDR + k * cap;
            w.copy_within(col + b..col + len, col + a);
        }
        w[H_LEN] -= (b - a) as u32;
        w[H_TOMBS] -= tombs;
        w[H_GROUPS] -= lost_groups;
    }

    /// Copies every entry out.
    pub(crate) fn entries(&self) -> impl Iterator<Item = Entry> + '_ {
        (0..self.len()).map(move |i| self.entry(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn e(dst: u32, stamp: u32) -> Entry {
        Entry {
            dst,
            stamp,
            weight: 1.0,
        }
    }

    #[test]
    fn insert_keeps_columns_and_counters() {
        let mut r = Run::with_capacity(0, false, 0);
        for (i, d) in [5u32, 1, 9, 3].iter().enumerate() {
            let at = r.group(*d).start;
            r.insert(at, e(*d, i as u32 + 1));
        }
        assert_eq!(r.dsts(), &[1, 3, 5, 9]);
        assert_eq!(r.stamps(), &[2, 4, 1, 3]);
        assert_eq!((r.groups(), r.tombstones(), r.max_offset()), (4, 0, 4));
        assert!(r.is_plain());
        // A second version of 3 (newest first) and a tombstone of 9.
        r.insert(1, e(3, 6));
        r.insert(4, e(9, 7 | stamp::TOMB));
        assert_eq!(r.dsts(), &[1, 3, 3, 5, 9, 9]);
        assert_eq!((r.groups(), r.tombstones(), r.garbage()), (4, 1, 3));
        assert!(!r.is_plain());
        r.remove(1..3);
        assert_eq!(r.dsts(), &[1, 5, 9, 9]);
        assert_eq!((r.groups(), r.tombstones()), (3, 1));
        r.remove(2..3);
        assert_eq!(
            (r.groups(), r.tombstones(), r.dsts()),
            (3, 0, &[1u32, 5, 9][..])
        );
    }

    #[test]
    fn weights_appear_only_when_needed_and_survive_growth() {
        let mut r = Run::with_capacity(2, false, 7);
        r.insert(0, e(1, 1));
        assert!(!r.weighted());
        r.insert(
            1,
            Entry {
                dst: 2,
                stamp: 2,
                weight: 2.5,
            },
        );
        assert!(r.weighted());
        for d in 3..40 {
            r.insert(
                r.len(),
                Entry {
                    dst: d,
                    stamp: 3,
                    weight: f64::from(d) / 4.0,
                },
            );
        }
        assert_eq!(r.base(), 7);
        assert_eq!(r.weight(0), 1.0);
        assert_eq!(r.weight(1), 2.5);
        assert_eq!(r.weight(38), 39.0 / 4.0);
        r.replace(
            0,
            Entry {
                dst: 1,
                stamp: 9 | stamp::TOMB,
                weight: -0.5,
            },
        );
        assert_eq!((r.weight(0), r.tombstones(), r.max_offset()), (-0.5, 1, 9));
    }

    #[test]
    fn writes_to_a_shared_run_copy_and_leave_the_reader_alone() {
        let mut r = Run::from_entries(&[e(1, 1), e(2, 1)], 4, 0);
        let reader = r.clone();
        assert!(r.is_shared());
        r.insert(2, e(3, 2));
        assert_eq!(reader.dsts(), &[1, 2]);
        assert_eq!(r.dsts(), &[1, 2, 3]);
        assert!(!r.is_shared());
    }
}
