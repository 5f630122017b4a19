//! One vertex's adjacency in one direction, adapted to its degree.
//!
//! Low-degree vertices (the vast majority in power-law graphs) keep a single
//! sorted run: one allocation, no index, binary search for look-ups. Once a
//! run passes `BLOCK` entries it is split into a blocked list: sorted runs of
//! at most `BLOCK` entries plus an array of each block's lower bound, so an
//! insert shifts at most one block and a reader that shares the list copies
//! at most one block on write (LSGraph's degree-differentiated containers,
//! LSMGraph's segmented edge array). When deletes shrink a blocked list
//! below a quarter block it folds back into a single run.
//!
//! `BLOCK` = 256 entries (2 KiB of dst+stamp columns): large enough that a
//! sequential scan crosses few block boundaries, small enough that shifting
//! half a block costs about as much as the binary search that precedes it.

use super::run::{stamp, Entry, Run};
use super::versions::{kept_len, offset_of, pruned_entries, Effect, Stamping};
use crate::version::Decided;
use std::sync::Arc;

/// Entries per block (and the largest single run).
pub(crate) const BLOCK: usize = 256;

/// Adjacency of one vertex in one direction.
#[derive(Clone)]
pub(crate) enum EdgeSet {
    /// Up to `BLOCK` entries in one run.
    Small(Run),
    /// More: a list of runs, each at most `BLOCK` entries.
    Large(Arc<Blocked>),
}

/// Runs ordered by destination; every version of one destination lives in
/// exactly one block.
pub(crate) struct Blocked {
    /// `lows[i]` <= every destination in `blocks[i]` < `lows[i + 1]`.
    lows: Vec<u32>,
    blocks: Vec<Run>,
    len: usize,
    /// Heap bytes of the list (see `measure`), kept up to date by every
    /// write so that the MemGraph's byte count costs O(1) per write.
    bytes: usize,
}

impl Clone for Blocked {
    fn clone(&self) -> Self {
        Blocked::new(self.lows.clone(), self.blocks.clone(), self.len)
    }
}

/// One write of a batch, for `EdgeSet::apply_sorted`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Write {
    pub dst: u32,
    /// `Some(weight)` inserts, `None` deletes.
    pub weight: Option<f64>,
    /// For a delete: the set holds no version of `dst` but a run below the
    /// MemGraph holds it live, so it must be buried. Inserts ignore it: one
    /// into a destination the set holds no version of reports
    /// `Effect::Fresh`, for the caller to settle against the levels.
    pub below: bool,
}

impl Default for EdgeSet {
    fn default() -> Self {
        EdgeSet::new()
    }
}

impl EdgeSet {
    /// An empty set. It shares one process-wide empty run, so the millions
    /// of vertex slots without edges in one direction allocate nothing (and
    /// `EdgeSet` needs no `Option` around it: 16 bytes, not 24, per slot
    /// field). The first write copies the shared run like any shared one.
    pub(crate) fn new() -> EdgeSet {
        static EMPTY: std::sync::OnceLock<Run> = std::sync::OnceLock::new();
        EdgeSet::Small(
            EMPTY
                .get_or_init(|| Run::with_capacity(0, false, 0))
                .clone(),
        )
    }

    /// Whether the set holds no entries at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.entries() == 0
    }

    /// Number of stored entries (versions, not live edges).
    pub(crate) fn entries(&self) -> usize {
        match self {
            EdgeSet::Small(r) => r.len(),
            EdgeSet::Large(b) => b.len,
        }
    }

    /// The runs in destination order.
    pub(crate) fn runs(&self) -> &[Run] {
        match self {
            EdgeSet::Small(r) => std::slice::from_ref(r),
            EdgeSet::Large(b) => &b.blocks,
        }
    }

    fn run_for(&self, dst: u32) -> &Run {
        match self {
            EdgeSet::Small(r) => r,
            EdgeSet::Large(b) => &b.blocks[b.index_of(dst)],
        }
    }

    /// Starts loading the first line any look-up reads: the run of a small
    /// set, the block list of a large one (see `util::prefetch`).
    #[inline]
    pub(crate) fn prefetch(&self) {
        match self {
            EdgeSet::Small(r) => r.prefetch(),
            EdgeSet::Large(b) => crate::util::prefetch::line(&**b),
        }
    }

    /// Weight of `dst` in the latest state.
    #[cfg(test)] // writers use `decided` (it tells "no version" apart)
    pub(crate) fn latest(&self, dst: u32) -> Option<f64> {
        self.run_for(dst).latest(dst)
    }

    /// Weight of `dst` as a snapshot at `ts` sees it.
    pub(crate) fn visible(&self, dst: u32, ts: u64) -> Option<f64> {
        self.run_for(dst).visible(dst, ts)
    }

    /// Destinations live in the latest state.
    pub(crate) fn latest_dsts(&self) -> Vec<u32> {
        let mut out = Vec::new();
        for run in self.runs() {
            let (d, st) = (run.dsts(), run.stamps());
            for i in 0..d.len() {
                if (i == 0 || d[i - 1] != d[i]) && !stamp::is_tomb(st.get(i)) {
                    out.push(d[i]);
                }
            }
        }
        out
    }

    /// Calls `f(dst, state)` for every destination with a version at or
    /// before `ts`, ascending, where `state` is that newest version's weight,
    /// or `None` for a tombstone. Destinations whose versions are all newer
    /// than `ts` are skipped: an older source decides them.
    pub(crate) fn for_each_decided(&self, ts: u64, mut f: impl FnMut(u32, Option<f64>)) {
        self.walk_decided(ts, |run, d, live| f(d, live.map(|e| run.weight(e))));
    }

    /// `for_each_decided` without weights: `f(dst, live)`.
    pub(crate) fn for_each_decided_dst(&self, ts: u64, mut f: impl FnMut(u32, bool)) {
        self.walk_decided(ts, |_, d, live| f(d, live.is_some()));
    }

    /// The walk behind `for_each_decided*`: `f(run, dst, entry)` with the
    /// entry of the visible version, `None` for a tombstone. A run holding
    /// only single versions visible at `ts` is walked as a bare slice.
    #[inline]
    fn walk_decided(&self, ts: u64, mut f: impl FnMut(&Run, u32, Option<usize>)) {
        for run in self.runs() {
            let rel = offset_of(ts, run.base());
            let (d, st) = (run.dsts(), run.stamps());
            if run.is_plain() && run.max_offset() <= rel {
                d.iter().enumerate().for_each(|(e, &x)| f(run, x, Some(e)));
                continue;
            }
            for g in run.group_ranges() {
                let group = st.slice(g.clone());
                if let Some(k) = group.position(|s| stamp::offset(s) <= rel) {
                    let live = !stamp::is_tomb(group.get(k));
                    f(run, d[g.start], live.then_some(g.start + k));
                }
            }
        }
    }

    /// What this set says about `dst` at `ts` (see `for_each_decided`).
    pub(crate) fn decided(&self, dst: u32, ts: u64) -> Decided {
        let run = self.run_for(dst);
        let g = run.group(dst);
        let rel = offset_of(ts, run.base());
        let group = run.stamps().slice(g.clone());
        match group.position(|s| stamp::offset(s) <= rel) {
            None => Decided::Undecided,
            Some(k) if stamp::is_tomb(group.get(k)) => Decided::Deleted,
            Some(k) => Decided::Live(run.weight(g.start + k)),
        }
    }

    /// Calls `f(dst, ts, tomb, weight)` for every version committed after
    /// `from` and up to `cut` that a snapshot at or after `watermark` can
    /// need, in run
    /// order (by destination, newest first), with absolute timestamps: every
    /// version newer than the watermark, and the newest one at or below it.
    /// That one is reported with timestamp 0 ("older than every snapshot")
    /// when it is live; a tombstone keeps its timestamp, since it must still
    /// hide older copies of the edge in lower levels. What a flush writes;
    /// versions up to `from` are in earlier flushes' runs already.
    ///
    /// A pruned version's stamp says only "at or before the run's base", so
    /// one whose base is past `cut` is left out: it may be newer than `cut`,
    /// and it stays in the MemGraph (see `drop_upto`) until a later flush.
    pub(crate) fn for_each_version(
        &self,
        watermark: u64,
        from: u64,
        cut: u64,
        mut f: impl FnMut(u32, u64, bool, f64),
    ) {
        for run in self.runs() {
            let base = run.base();
            let wm = offset_of(watermark, base);
            let (d, st) = (run.dsts(), run.stamps());
            for g in run.group_ranges() {
                let dst = d[g.start];
                for k in g {
                    let s = st.get(k);
                    let off = stamp::offset(s);
                    let tomb = stamp::is_tomb(s);
                    let at = base + u64::from(off);
                    if at > cut {
                        continue;
                    }
                    if at <= from {
                        break; // this and older versions: flushed before
                    }
                    if off <= wm {
                        // Newest at or below the watermark; older ones are dead.
                        f(dst, if tomb { at } else { 0 }, tomb, run.weight(k));
                        break;
                    }
                    f(dst, at, tomb, run.weight(k));
                }
            }
        }
    }

    /// Drops every version a flush up to commit `cut` has written to a
    /// segment (those `for_each_version(_, cut, _)` reports, and the older
    /// ones it had already pruned away), once no reader can still read this
    /// set without that segment. Returns whether anything was dropped.
    pub(crate) fn drop_upto(&mut self, cut: u64) -> bool {
        let flushed = |r: &Run, s: u32| r.base() + u64::from(stamp::offset(s)) <= cut;
        let any = self.runs().iter().any(|r| {
            let st = r.stamps();
            (0..r.len()).any(|k| flushed(r, st.get(k)))
        });
        if !any {
            return false;
        }
        // The rebuilt set needs one base: the newest of the runs' bases.
        // Every kept version is newer than `cut` or than its own run's base
        // (offset-0 versions survive only when that base is past `cut`), and
        // bases are past watermarks, so re-stamping against the newest base
        // keeps what every live snapshot sees.
        let base = self.runs().iter().map(Run::base).max().unwrap_or(0);
        let mut kept: Vec<Entry> = Vec::new();
        for r in self.runs() {
            let st = r.stamps();
            for k in 0..r.len() {
                let s = st.get(k);
                if flushed(r, s) {
                    continue;
                }
                let (dst, abs) = (r.dsts()[k], r.base() + u64::from(stamp::offset(s)));
                // Versions at or before the new base all read as "at or
                // before it": the newest of them is the one snapshots see,
                // older ones would only repeat its stamp.
                if kept
                    .last()
                    .is_some_and(|e| e.dst == dst && stamp::offset(e.stamp) == 0)
                {
                    continue;
                }
                kept.push(Entry {
                    dst,
                    stamp: offset_of(abs, base) | (s & stamp::TOMB),
                    weight: r.weight(k),
                });
            }
        }
        *self = if kept.is_empty() {
            EdgeSet::new()
        } else {
            EdgeSet::from_entries(&kept, base)
        };
        true
    }

    /// Inserts or re-weights one edge.
    pub(crate) fn put(&mut self, dst: u32, weight: f64, s: &Stamping) -> Effect {
        self.write(dst, |run| run.put(dst, weight, s))
    }

    /// Deletes one edge if present.
    pub(crate) fn kill(&mut self, dst: u32, s: &Stamping) -> Effect {
        self.write(dst, |run| run.kill(dst, s))
    }

    /// Deletes one edge known to be live in an older source when this set
    /// may hold no version of it (see `Run::bury`).
    // Only the LSM tests write through it until the LSM write path is wired.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) fn bury(&mut self, dst: u32, s: &Stamping) -> Effect {
        self.write(dst, |run| run.bury(dst, s))
    }

    fn write(&mut self, dst: u32, f: impl FnOnce(&mut Run) -> Effect) -> Effect {
        let effect = match self {
            EdgeSet::Small(run) => {
                let e = f(run);
                if run.len() > BLOCK {
                    *self = EdgeSet::Large(Arc::new(Blocked::split(run)));
                }
                e
            }
            EdgeSet::Large(list) => {
                let list = Arc::make_mut(list);
                let i = list.index_of(dst);
                let (before, bytes, blocks) = (
                    list.blocks[i].len(),
                    list.blocks[i].heap_bytes(),
                    list.blocks.len(),
                );
                let e = f(&mut list.blocks[i]);
                list.len = list.len + list.blocks[i].len() - before;
                list.lows[i] = list.lows[i].min(dst);
                list.rebalance(i);
                list.bytes = if list.blocks.len() == blocks {
                    list.bytes + list.blocks[i].heap_bytes() - bytes
                } else {
                    list.measure()
                };
                // Deletes leave tombstones, so a list only shrinks back to
                // one run when a flush's clean-up (`drop_upto`) rebuilds it.
                e
            }
        };
        effect
    }

    /// Applies writes sorted by destination (one per destination), returning
    /// each write's effect in order. Few writes into a large list go one by
    /// one; otherwise the list is rebuilt in one merge pass, which also drops
    /// all garbage, so a batch costs O(degree + writes) per vertex.
    pub(crate) fn apply_sorted(
        &mut self,
        writes: &[Write],
        s: &Stamping,
        effects: &mut Vec<Effect>,
    ) {
        if writes.len() * 16 < self.entries() {
            for w in writes {
                effects.push(match (w.weight, w.below) {
                    (Some(x), _) => self.put(w.dst, x, s),
                    (None, true) => self.bury(w.dst, s),
                    (None, false) => self.kill(w.dst, s),
                });
            }
            return;
        }
        // Every run's base is a past watermark, so re-basing all of them on
        // the current watermark only shrinks offsets.
        let new_base = self
            .runs()
            .iter()
            .map(Run::base)
            .fold(s.watermark, u64::max);
        let old: Vec<Entry> = self
            .runs()
            .iter()
            .flat_map(|r| pruned_entries(r, new_base))
            .collect();
        let t = offset_of(s.ts, new_base);
        let mut out: Vec<Entry> = Vec::with_capacity(old.len() + writes.len());
        let mut i = 0;
        for w in writes {
            while i < old.len() && old[i].dst < w.dst {
                out.push(old[i]);
                i += 1;
            }
            let g_start = i;
            while i < old.len() && old[i].dst == w.dst {
                i += 1;
            }
            let group = &old[g_start..i];
            let live = group.first().filter(|e| !stamp::is_tomb(e.stamp));
            let stamps: Vec<u32> = group.iter().map(|e| e.stamp).collect();
            // After pruning to the watermark, offset 0 marks "at or before W".
            let keep = kept_len(&stamps[..], 0);
            match (w.weight, live) {
                (Some(weight), _) => {
                    out.push(Entry {
                        dst: w.dst,
                        stamp: t,
                        weight,
                    });
                    out.extend_from_slice(&group[..keep]);
                    effects.push(if live.is_some() {
                        Effect::Updated
                    } else if group.is_empty() {
                        Effect::Fresh
                    } else {
                        Effect::Added
                    });
                }
                (None, Some(l)) => {
                    out.push(Entry {
                        dst: w.dst,
                        stamp: t | stamp::TOMB,
                        weight: l.weight,
                    });
                    out.extend_from_slice(&group[..keep]);
                    effects.push(Effect::Removed);
                }
                (None, None) if group.is_empty() && w.below => {
                    out.push(Entry {
                        dst: w.dst,
                        stamp: t | stamp::TOMB,
                        weight: 1.0,
                    });
                    effects.push(Effect::Removed);
                }
                (None, None) => {
                    out.extend_from_slice(group);
                    effects.push(Effect::Unchanged);
                }
            }
        }
        out.extend_from_slice(&old[i..]);
        *self = EdgeSet::from_entries(&out, new_base);
    }

    /// Builds a set from sorted entries with the given base.
    pub(crate) fn from_entries(entries: &[Entry], base: u64) -> EdgeSet {
        if entries.len() <= BLOCK {
            return EdgeSet::Small(Run::from_entries(entries, 0, base));
        }
        // Full blocks with no slack: a bulk-built set is mostly read, and an
        // insert into a full block splits it into two half-full ones.
        let target = BLOCK;
        let mut lows = Vec::new();
        let mut blocks = Vec::new();
        let mut start = 0;
        while start < entries.len() {
            let end = group_boundary(entries, (start + target).min(entries.len()));
            lows.push(entries[start].dst);
            blocks.push(Run::from_entries(&entries[start..end], 0, base));
            start = end;
        }
        EdgeSet::Large(Arc::new(Blocked::new(lows, blocks, entries.len())))
    }

    /// Heap bytes held (shared runs counted fully).
    #[inline]
    pub(crate) fn heap_bytes(&self) -> usize {
        match self {
            // The shared empty run belongs to no vertex. (Told apart by its
            // length alone, which the pointer carries: this is read at every
            // write lock, see `SlotGuard`, and must not touch the run.)
            EdgeSet::Small(r) if r.is_header_only() => 0,
            EdgeSet::Small(r) => r.heap_bytes(),
            EdgeSet::Large(b) => b.bytes,
        }
    }
}

/// First index at or after `i` that starts a new destination.
fn group_boundary(entries: &[Entry], mut i: usize) -> usize {
    while i > 0 && i < entries.len() && entries[i].dst == entries[i - 1].dst {
        i += 1;
    }
    i
}

impl Blocked {
    fn new(lows: Vec<u32>, blocks: Vec<Run>, len: usize) -> Blocked {
        let mut b = Blocked {
            lows,
            blocks,
            len,
            bytes: 0,
        };
        b.bytes = b.measure();
        b
    }

    /// Heap bytes held: the list, its two vectors and its runs (shared runs
    /// counted fully, and the list counted with its `Arc` counters).
    fn measure(&self) -> usize {
        std::mem::size_of::<Blocked>()
            + 2 * std::mem::size_of::<usize>()
            + self.lows.capacity() * 4
            + self.blocks.capacity() * std::mem::size_of::<Run>()
            + self.blocks.iter().map(Run::heap_bytes).sum::<usize>()
    }

    fn split(run: &Run) -> Blocked {
        let entries: Vec<Entry> = run.entries().collect();
        match EdgeSet::from_entries(&entries, run.base()) {
            EdgeSet::Large(b) => Arc::try_unwrap(b).unwrap_or_else(|b| (*b).clone()),
            EdgeSet::Small(r) => {
                let (low, len) = (r.dsts().first().copied().unwrap_or(0), r.len());
                Blocked::new(vec![low], vec![r], len)
            }
        }
    }

    #[inline]
    fn index_of(&self, dst: u32) -> usize {
        self.lows.partition_point(|&l| l <= dst).saturating_sub(1)
    }

    /// Splits block `i` if it overflowed, drops it if it emptied.
    fn rebalance(&mut self, i: usize) {
        let n = self.blocks[i].len();
        if n == 0 && self.blocks.len() > 1 {
            self.blocks.remove(i);
            let low = self.lows.remove(i);
            if i == 0 {
                self.lows[0] = self.lows[0].min(low);
            }
        } else if n > BLOCK {
            let run = &self.blocks[i];
            let entries: Vec<Entry> = run.entries().collect();
            let mid = group_boundary(&entries, n / 2);
            let (left, right) = entries.split_at(mid);
            if right.is_empty() {
                return; // one destination with > BLOCK versions: keep it whole
            }
            let base = run.base();
            self.blocks[i] = Run::from_entries(left, BLOCK / 4, base);
            self.blocks
                .insert(i + 1, Run::from_entries(right, BLOCK / 4, base));
            self.lows.insert(i + 1, right[0].dst);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ts: u64) -> Stamping {
        Stamping {
            ts,
            watermark: ts - 1,
            window: 1 << 30,
        }
    }

    fn live(set: &EdgeSet, ts: u64) -> Vec<u32> {
        set.runs()
            .iter()
            .flat_map(|r| {
                let mut v = Vec::new();
                let mut i = 0;
                while i < r.len() {
                    let d = r.dsts()[i];
                    if r.visible(d, ts).is_some() {
                        v.push(d);
                    }
                    while i < r.len() && r.dsts()[i] == d {
                        i += 1;
                    }
                }
                v
            })
            .collect()
    }

    /// The byte count a large list keeps as it is written equals a count
    /// from scratch after every write: inserts that split blocks, deletes
    /// that empty them, weights that add columns, and writes while a
    /// reader shares the list (which copy it first).
    #[test]
    fn a_large_list_s_byte_count_follows_every_write() {
        let mut set = EdgeSet::new();
        let mut held = Vec::new();
        let n = 6 * BLOCK as u32;
        let mut ts = 0;
        for k in 0..3 * n {
            ts += 1;
            let d = (k * 7919) % n;
            if k % 5 == 4 {
                set.kill(d, &at(ts));
            } else {
                let w = if k % 7 == 0 { 2.5 } else { 1.0 };
                set.put(d, w, &at(ts));
            }
            if k % 97 == 0 {
                held.push(set.clone());
            }
            if let EdgeSet::Large(b) = &set {
                assert_eq!(b.bytes, b.measure(), "after write {k}");
            }
        }
        assert!(matches!(set, EdgeSet::Large(_)));
        assert!(held.iter().any(|h| matches!(h, EdgeSet::Large(_))));
    }

    #[test]
    fn degree_transitions_small_large_small_keep_every_edge() {
        let mut set = EdgeSet::new();
        let n = 5 * BLOCK as u32;
        let mut ts = 0;
        // Insert in a scrambled order so every block sees inserts.
        for k in 0..n {
            ts += 1;
            let d = (k * 7919) % n;
            assert_eq!(set.put(d, f64::from(d), &at(ts)), Effect::Fresh);
        }
        assert!(matches!(set, EdgeSet::Large(_)));
        assert!(set.runs().iter().all(|r| r.len() <= BLOCK));
        assert_eq!(live(&set, ts), (0..n).collect::<Vec<_>>());
        assert_eq!(set.latest(77), Some(77.0));
        for d in 0..n - 10 {
            ts += 1;
            assert_eq!(set.kill(d, &at(ts)), Effect::Removed);
        }
        ts += 1;
        set.put(n + 1, 1.0, &at(ts));
        let mut want: Vec<u32> = (n - 10..n).collect();
        want.push(n + 1);
        assert_eq!(live(&set, ts), want);
        // Tombstones stay until a flush has written them out; dropping
        // everything up to the last kill leaves the survivors in one run.
        assert!(matches!(set, EdgeSet::Large(_)));
        assert!(set.drop_upto(ts - 1));
        assert!(matches!(set, EdgeSet::Small(_)), "shrinks back to one run");
        assert_eq!(live(&set, ts), vec![n + 1]);
        assert_eq!(set.latest_dsts(), vec![n + 1]);
    }

    #[test]
    fn batch_merge_matches_one_by_one_writes() {
        let mut a = EdgeSet::new();
        let mut b = EdgeSet::new();
        let mut ts = 1;
        for d in (0..600).step_by(3) {
            a.put(d, 1.0, &at(ts));
            b.put(d, 1.0, &at(ts));
        }
        ts += 1;
        let writes: Vec<Write> = (0..600)
            .step_by(2)
            .map(|d| Write {
                dst: d,
                weight: if d % 4 == 0 { Some(2.0) } else { None },
                below: false,
            })
            .collect();
        let mut fx_a = Vec::new();
        a.apply_sorted(&writes, &at(ts), &mut fx_a);
        let fx_b: Vec<Effect> = writes
            .iter()
            .map(|w| match w.weight {
                Some(x) => b.put(w.dst, x, &at(ts)),
                None => b.kill(w.dst, &at(ts)),
            })
            .collect();
        assert_eq!(fx_a, fx_b);
        assert_eq!(live(&a, ts), live(&b, ts));
        assert_eq!(live(&a, ts - 1), live(&b, ts - 1));
        for d in 0..600 {
            assert_eq!(a.latest(d), b.latest(d), "dst {d}");
        }
    }
}
