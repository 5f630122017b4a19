//! A sorted run of edge versions: the unit every adjacency container is made of.
//!
//! Layout: one shared allocation of `u32` words,
//! `[header; 8][dst; cap]([stamp; cap])([weight lo; cap][weight hi; cap])`.
//! Columns rather than (dst, stamp) pairs so that the common read, a scan of
//! destinations with no version to check, touches 4 bytes per edge as a CSR
//! does. One allocation per run (not three `Vec`s) keeps the per-vertex cost
//! of low-degree vertices small, which dominates memory on power-law graphs.
//! Weight columns exist only once some edge of the run has a weight other
//! than 1.0, so unweighted graphs pay nothing for weights.
//!
//! The stamp column, too, exists only when needed. A *uniform* run holds one
//! live version per destination, all with the same stamp (kept in the
//! header): what a batch or bulk load writes, and what pruning leaves once
//! every entry is older than the watermark. Dropping the column saves 4 of
//! the 8 bytes per entry and halves the memory a scan streams through; the
//! first write that needs a different stamp adds it back.
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
const F_STAMPED: u32 = 2;

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

/// The stamps of a run (or a slice of one): a column, or one value repeated.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Stamps<'a> {
    /// One stamp per entry.
    Column(&'a [u32]),
    /// `len` entries that all carry `stamp`.
    Uniform { stamp: u32, len: usize },
}

impl<'a> Stamps<'a> {
    #[inline]
    pub(crate) fn len(&self) -> usize {
        match self {
            Stamps::Column(c) => c.len(),
            Stamps::Uniform { len, .. } => *len,
        }
    }

    #[inline]
    pub(crate) fn get(&self, i: usize) -> u32 {
        match self {
            Stamps::Column(c) => c[i],
            Stamps::Uniform { stamp, .. } => *stamp,
        }
    }

    #[inline]
    pub(crate) fn slice(&self, r: std::ops::Range<usize>) -> Stamps<'a> {
        match self {
            Stamps::Column(c) => Stamps::Column(&c[r]),
            Stamps::Uniform { stamp, .. } => Stamps::Uniform {
                stamp: *stamp,
                len: r.len(),
            },
        }
    }

    /// Index of the first stamp satisfying `f`.
    #[inline]
    pub(crate) fn position(&self, mut f: impl FnMut(u32) -> bool) -> Option<usize> {
        match self {
            Stamps::Column(c) => c.iter().position(|&s| f(s)),
            Stamps::Uniform { stamp, len } => (*len > 0 && f(*stamp)).then_some(0),
        }
    }
}

impl<'a> From<&'a [u32]> for Stamps<'a> {
    fn from(c: &'a [u32]) -> Self {
        Stamps::Column(c)
    }
}

/// Next capacity when a run is full: about 1.5x, so slack stays near 20%.
fn flags(weighted: bool, stamped: bool) -> u32 {
    (if weighted { F_WEIGHTED } else { 0 }) | (if stamped { F_STAMPED } else { 0 })
}

fn grow(cap: usize) -> usize {
    match cap {
        0..=1 => 2,
        2..=3 => 4,
        _ => cap + cap / 2,
    }
}

impl Run {
    /// An empty uniform run with room for `cap` entries.
    pub(crate) fn with_capacity(cap: usize, weighted: bool, base: u64) -> Run {
        Run::with_layout(cap, weighted, false, base)
    }

    fn with_layout(cap: usize, weighted: bool, stamped: bool, base: u64) -> Run {
        let width = 1 + usize::from(stamped) + 2 * usize::from(weighted);
        let mut words: Arc<[u32]> = std::iter::repeat_n(0u32, HDR + cap * width).collect();
        let w = Arc::get_mut(&mut words).expect("fresh Arc is unique");
        w[H_FLAGS] = flags(weighted, stamped);
        w[H_BASE_LO] = base as u32;
        w[H_BASE_HI] = (base >> 32) as u32;
        Run(words)
    }

    /// A run holding `entries` (already sorted by dst, newest first within a
    /// dst) with `extra` free slots; uniform (no stamp column) when every
    /// entry is the only, live version of its destination and all share one
    /// stamp.
    pub(crate) fn from_entries(entries: &[Entry], extra: usize, base: u64) -> Run {
        let weighted = entries.iter().any(|e| e.weight != 1.0);
        let first = entries.first().map_or(0, |e| e.stamp);
        let uniform = !stamp::is_tomb(first)
            && entries.iter().all(|e| e.stamp == first)
            && entries.windows(2).all(|p| p[0].dst != p[1].dst);
        let mut run = Run::with_layout(entries.len() + extra, weighted, !uniform, base);
        let cap = run.cap();
        let wcol = run.weight_col();
        let w = run.words_mut();
        let (mut max, mut tombs, mut groups) = (0u32, 0u32, 0u32);
        for (i, e) in entries.iter().enumerate() {
            w[HDR + i] = e.dst;
            if !uniform {
                w[HDR + cap + i] = e.stamp;
            }
            if weighted {
                let bits = e.weight.to_bits();
                w[wcol + i] = bits as u32;
                w[wcol + cap + i] = (bits >> 32) as u32;
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

    /// Whether the run has a stamp column (otherwise it is uniform).
    #[inline]
    pub(crate) fn stamped(&self) -> bool {
        self.0[H_FLAGS] & F_STAMPED != 0
    }

    #[inline]
    fn width(&self) -> usize {
        1 + usize::from(self.stamped()) + 2 * usize::from(self.weighted())
    }

    /// Word index where the low halves of the weights start.
    #[inline]
    fn weight_col(&self) -> usize {
        HDR + self.cap() * (1 + usize::from(self.stamped()))
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
    pub(crate) fn stamps(&self) -> Stamps<'_> {
        if self.stamped() {
            let cap = self.cap();
            Stamps::Column(&self.0[HDR + cap..HDR + cap + self.len()])
        } else {
            Stamps::Uniform {
                stamp: self.max_offset(),
                len: self.len(),
            }
        }
    }

    #[inline]
    pub(crate) fn weight(&self, i: usize) -> f64 {
        if !self.weighted() {
            return 1.0;
        }
        let (col, cap) = (self.weight_col(), self.cap());
        let lo = u64::from(self.0[col + i]);
        let hi = u64::from(self.0[col + cap + i]);
        f64::from_bits(lo | (hi << 32))
    }

    #[inline]
    pub(crate) fn entry(&self, i: usize) -> Entry {
        Entry {
            dst: self.dsts()[i],
            stamp: self.stamps().get(i),
            weight: self.weight(i),
        }
    }

    /// The index ranges of the run's groups (all versions of one
    /// destination, newest first), in destination order.
    pub(crate) fn group_ranges(&self) -> impl Iterator<Item = std::ops::Range<usize>> + '_ {
        let d = self.dsts();
        let mut i = 0;
        std::iter::from_fn(move || {
            if i >= d.len() {
                return None;
            }
            let start = i;
            i += 1;
            while i < d.len() && d[i] == d[start] {
                i += 1;
            }
            Some(start..i)
        })
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

    /// Whether the run has no room for entries (the shared empty run is
    /// one); read from the pointer, without touching the run.
    #[inline]
    pub(crate) fn is_header_only(&self) -> bool {
        self.0.len() == HDR
    }

    /// Bytes of the allocation, including the `Arc` counters.
    #[inline]
    pub(crate) fn heap_bytes(&self) -> usize {
        std::mem::size_of_val(&*self.0) + 2 * std::mem::size_of::<usize>()
    }

    /// Starts loading the run's header (see `util::prefetch`).
    #[inline]
    pub(crate) fn prefetch(&self) {
        crate::util::prefetch::line(&*self.0);
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

    /// Re-lays the run with a new capacity, weightedness and stamp column
    /// (a uniform run that gains the column gets its one stamp in every row).
    fn relayout(&mut self, cap: usize, weighted: bool, stamped: bool) {
        let len = self.len();
        let mut next = Run::with_layout(cap.max(len), weighted, stamped, self.base());
        let (ncap, nwcol) = (next.cap(), next.weight_col());
        let (ocap, owcol) = (self.cap(), self.weight_col());
        let (oweighted, ostamped) = (self.weighted(), self.stamped());
        let old = &self.0;
        let w = next.words_mut();
        w[..HDR].copy_from_slice(&old[..HDR]);
        w[H_FLAGS] = flags(weighted, stamped);
        w[HDR..HDR + len].copy_from_slice(&old[HDR..HDR + len]);
        if stamped {
            let col = &mut w[HDR + ncap..HDR + ncap + len];
            if ostamped {
                col.copy_from_slice(&old[HDR + ocap..HDR + ocap + len]);
            } else {
                col.fill(old[H_MAX]);
            }
        }
        if weighted {
            if oweighted {
                w[nwcol..nwcol + len].copy_from_slice(&old[owcol..owcol + len]);
                w[nwcol + ncap..nwcol + ncap + len]
                    .copy_from_slice(&old[owcol + ocap..owcol + ocap + len]);
            } else {
                let one = 1.0f64.to_bits();
                w[nwcol..nwcol + len].fill(one as u32);
                w[nwcol + ncap..nwcol + ncap + len].fill((one >> 32) as u32);
            }
        }
        *self = next;
    }

    /// Whether writing a version with `stamp` for a destination that `fresh`
    /// (has no version yet) keeps the run uniform.
    #[inline]
    fn stays_uniform(&self, stamp: u32, fresh: bool) -> bool {
        !self.stamped()
            && fresh
            && !stamp::is_tomb(stamp)
            && (self.len() == 0 || stamp == self.max_offset())
    }

    /// Inserts `e` at index `i` (the caller keeps the sort order).
    pub(crate) fn insert(&mut self, i: usize, e: Entry) {
        let len = self.len();
        debug_assert!(i <= len);
        let new_group =
            !((i > 0 && self.dsts()[i - 1] == e.dst) || (i < len && self.dsts()[i] == e.dst));
        let need_weights = e.weight != 1.0 && !self.weighted();
        let need_stamps = !self.stamped() && !self.stays_uniform(e.stamp, new_group);
        if len == self.cap() || need_weights || need_stamps {
            let cap = if len == self.cap() {
                grow(len)
            } else {
                self.cap()
            };
            self.relayout(
                cap,
                self.weighted() || need_weights,
                self.stamped() || need_stamps,
            );
        }
        let cap = self.cap();
        let width = self.width();
        let (weighted, stamped, wcol) = (self.weighted(), self.stamped(), self.weight_col());
        let w = self.words_mut();
        for k in 0..width {
            let col = HDR + k * cap;
            w.copy_within(col + i..col + len, col + i + 1);
        }
        w[HDR + i] = e.dst;
        if weighted {
            let bits = e.weight.to_bits();
            w[wcol + i] = bits as u32;
            w[wcol + cap + i] = (bits >> 32) as u32;
        }
        if stamped {
            w[HDR + cap + i] = e.stamp;
            w[H_MAX] = w[H_MAX].max(stamp::offset(e.stamp));
        } else {
            // Uniform: the header's stamp is every entry's stamp.
            w[H_MAX] = e.stamp;
        }
        w[H_LEN] += 1;
        w[H_TOMBS] += u32::from(stamp::is_tomb(e.stamp));
        w[H_GROUPS] += u32::from(new_group);
    }

    /// Overwrites entry `i` with a version of the same destination.
    pub(crate) fn replace(&mut self, i: usize, e: Entry) {
        debug_assert_eq!(self.dsts()[i], e.dst);
        let need_weights = e.weight != 1.0 && !self.weighted();
        // A uniform run of one entry may take any live stamp.
        let need_stamps = !self.stamped()
            && (stamp::is_tomb(e.stamp) || (e.stamp != self.max_offset() && self.len() > 1));
        if need_weights || need_stamps {
            self.relayout(
                self.cap(),
                self.weighted() || need_weights,
                self.stamped() || need_stamps,
            );
        }
        let old_tomb = stamp::is_tomb(self.stamps().get(i));
        let cap = self.cap();
        let (weighted, stamped, wcol) = (self.weighted(), self.stamped(), self.weight_col());
        let w = self.words_mut();
        if stamped {
            w[HDR + cap + i] = e.stamp;
            w[H_MAX] = w[H_MAX].max(stamp::offset(e.stamp));
        } else {
            w[H_MAX] = e.stamp;
        }
        if weighted {
            let bits = e.weight.to_bits();
            w[wcol + i] = bits as u32;
            w[wcol + cap + i] = (bits >> 32) as u32;
        }
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
        let st = self.stamps();
        let tombs = (a..b).filter(|&i| stamp::is_tomb(st.get(i))).count() as u32;
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
        assert!(matches!(r.stamps(), Stamps::Column(&[2, 4, 1, 3])));
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
    fn uniform_runs_drop_the_stamp_column_until_a_write_needs_it() {
        // One batch: every entry at stamp 3, so no column.
        let r = Run::from_entries(&[e(1, 3), e(4, 3), e(7, 3)], 0, 10);
        assert!(!r.stamped());
        assert_eq!(
            r.heap_bytes(),
            (HDR + 3) * 4 + 2 * std::mem::size_of::<usize>()
        );
        assert_eq!((r.visible(4, 12), r.visible(4, 13)), (None, Some(1.0)));
        // More writes at the same stamp keep it uniform.
        let mut r = r;
        r.insert(1, e(2, 3));
        assert!(!r.stamped());
        // A later stamp adds the column; every old entry keeps stamp 3.
        r.insert(4, e(8, 5));
        assert!(r.stamped());
        assert!(matches!(r.stamps(), Stamps::Column(&[3, 3, 3, 3, 5])));
        assert_eq!((r.visible(8, 14), r.visible(8, 15)), (None, Some(1.0)));
        assert_eq!(r.visible(7, 13), Some(1.0));
        // Versions and tombstones are never uniform.
        for entries in [vec![e(1, 3), e(1, 2)], vec![e(1, 3 | stamp::TOMB)]] {
            assert!(Run::from_entries(&entries, 0, 0).stamped());
        }
        // A tombstone written into a uniform run adds the column.
        let mut r = Run::from_entries(&[e(1, 3), e(4, 3)], 0, 0);
        r.replace(0, e(1, 4 | stamp::TOMB));
        assert!(r.stamped());
        assert_eq!(r.visible(1, 4), None);
        assert_eq!((r.visible(4, 2), r.visible(4, 3)), (None, Some(1.0)));
        // Emptied and refilled: the header stamp follows the new entry.
        let mut r = Run::from_entries(&[e(1, 9)], 0, 0);
        r.remove(0..1);
        r.insert(0, e(2, 4));
        assert!(!r.stamped());
        assert_eq!((r.visible(2, 3), r.visible(2, 4)), (None, Some(1.0)));
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
