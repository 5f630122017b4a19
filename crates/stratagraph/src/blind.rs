//! The blind ledger: inserts written without asking the levels below the
//! MemGraph whether the edge was already there (`Options::blind_inserts`).
//!
//! Telling a new edge from a re-weight of one that lives only in a level
//! costs a search of that vertex's list in every level, at a random place
//! for every edge written: in memory a few cache misses, under a memory cap
//! a page read. Nothing but the edge count needs the answer (readers merge
//! versions newest first, and an in-edge written twice reads once), so such
//! an insert (`Effect::Fresh`) is counted as new when it commits and kept
//! here as (timestamp, source, destination) until it is *settled*: the
//! levels are asked, all the inserts waiting at once and sorted by vertex,
//! and each one the levels held live turns out a re-weight, which makes the
//! count one too high from its timestamp on. A snapshot's exact count is
//! the clock's count at its timestamp less the re-weights settled at or
//! before it ([`Settler::reweights_upto`]).
//!
//! Settling needs the levels to hold exactly the versions of the edge older
//! than the insert. They hold all of those: when the insert was written the
//! MemGraph held no version of the edge, so every older one was below. They
//! hold none as new: versions reach the levels only through a flush, and a
//! flush settles everything up to its cut, against the levels as they were
//! before it, and publishes its run while still holding the [`Settler`];
//! anyone else settling holds it from taking the levels to recording the
//! result. Compaction rewrites levels without changing any edge's latest
//! state.

use parking_lot::{Mutex, MutexGuard};
use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The key an insert `src -> dst` is settled by: sorting keys sorts by
/// vertex, so the levels are read in order.
pub(crate) fn key(src: u32, dst: u32) -> u64 {
    (u64::from(src) << 32) | u64::from(dst)
}

/// The inserts of one commit or more, 8 bytes each plus 16 a commit: what
/// a load keeps here between flushes is counted in the MemGraph's budget.
#[derive(Default)]
struct Waiting {
    /// `(ts, end)`: the commit at `ts` wrote `pairs[previous end..end]`.
    commits: Vec<(u64, usize)>,
    /// `(src, dst)`: the stored out side; an undirected edge by either end.
    pairs: Vec<(u32, u32)>,
    /// The oldest and newest commit here (`u64::MAX`, 0 when empty).
    oldest: u64,
    newest: u64,
}

impl Waiting {
    fn empty() -> Waiting {
        Waiting {
            oldest: u64::MAX,
            ..Waiting::default()
        }
    }

    fn push(&mut self, ts: u64, pairs: &[(u32, u32)]) {
        self.pairs.extend_from_slice(pairs);
        self.commits.push((ts, self.pairs.len()));
        self.oldest = self.oldest.min(ts);
        self.newest = self.newest.max(ts);
    }

    /// Each commit with its inserts.
    fn each(&self) -> impl Iterator<Item = (u64, &[(u32, u32)])> {
        let mut start = 0;
        self.commits.iter().map(move |&(ts, end)| {
            let part = &self.pairs[start..end];
            start = end;
            (ts, part)
        })
    }

    fn bytes(&self) -> usize {
        self.pairs.capacity() * 8 + self.commits.capacity() * 16
    }
}

#[derive(Default)]
struct Settled {
    /// Re-weights at timestamps every snapshot is past (see `fold_upto`).
    folded: u64,
    /// `(ts, n)`: `n` re-weights settled at timestamps up to `ts` (beyond
    /// `folded`), ascending in both.
    cumulative: Vec<(u64, u64)>,
}

/// See the module documentation.
pub(crate) struct BlindLedger {
    waiting: Mutex<Waiting>,
    /// `Waiting::bytes` of `waiting`, read without its lock.
    bytes: AtomicUsize,
    settled: Mutex<Settled>,
}

impl Default for BlindLedger {
    fn default() -> Self {
        BlindLedger {
            waiting: Mutex::new(Waiting::empty()),
            bytes: AtomicUsize::new(0),
            settled: Mutex::default(),
        }
    }
}

impl BlindLedger {
    /// Records the blind inserts of the commit at `ts`, before it is
    /// published (so a snapshot that sees the commit finds them here).
    pub(crate) fn record(&self, ts: u64, pairs: &[(u32, u32)]) {
        if pairs.is_empty() {
            return;
        }
        let mut w = self.waiting.lock();
        w.push(ts, pairs);
        self.bytes.store(w.bytes(), Ordering::Relaxed);
    }

    /// Heap bytes of the inserts waiting (they leave at the next flush).
    pub(crate) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// Whether an insert at or before `ts` waits to be settled.
    pub(crate) fn waiting_upto(&self, ts: u64) -> bool {
        self.waiting.lock().oldest <= ts
    }

    /// How many inserts wait to be settled.
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> usize {
        self.waiting.lock().pairs.len()
    }

    /// The right to settle (see the module documentation).
    pub(crate) fn settler(&self) -> Settler<'_> {
        Settler {
            ledger: self,
            settled: self.settled.lock(),
        }
    }

    /// Takes out the inserts at or before `ts`: all of them, as a flush
    /// usually does, without a copy.
    fn take_upto(&self, ts: u64) -> Waiting {
        let mut w = self.waiting.lock();
        let taken = if w.newest <= ts {
            std::mem::replace(&mut *w, Waiting::empty())
        } else if w.oldest > ts {
            Waiting::empty()
        } else {
            let (mut taken, mut kept) = (Waiting::empty(), Waiting::empty());
            for (t, pairs) in w.each() {
                if t <= ts { &mut taken } else { &mut kept }.push(t, pairs);
            }
            *w = kept;
            taken
        };
        self.bytes.store(w.bytes(), Ordering::Relaxed);
        taken
    }
}

/// Held while settling inserts and, by a flush, until its run is published.
pub(crate) struct Settler<'a> {
    ledger: &'a BlindLedger,
    settled: MutexGuard<'a, Settled>,
}

impl Settler<'_> {
    /// Settles every insert at or before `ts`. `live_below(src, dst)` says
    /// whether the levels hold the edge live; `sort` orders the inserts by
    /// vertex first (the caller may do it in parallel), so the levels are
    /// read in order. Returns how many were settled.
    pub(crate) fn settle_upto(
        &mut self,
        ts: u64,
        sort: impl FnOnce(&mut [u64]),
        live_below: impl FnOnce(&[u64]) -> Vec<bool>,
    ) -> usize {
        let taken = self.ledger.take_upto(ts);
        if taken.pairs.is_empty() {
            return 0;
        }
        let mut keys: Vec<u64> = taken.pairs.iter().map(|&(s, d)| key(s, d)).collect();
        sort(&mut keys);
        let live = live_below(&keys);
        // Re-weights are the rare case (a load writes new edges): find
        // their commits only when there are some.
        let reweighted: HashSet<u64> = keys
            .iter()
            .zip(&live)
            .filter(|(_, &l)| l)
            .map(|(&k, _)| k)
            .collect();
        if !reweighted.is_empty() {
            let mut by_ts: Vec<(u64, u64)> = taken
                .each()
                .map(|(t, pairs)| {
                    let n = pairs
                        .iter()
                        .filter(|&&(s, d)| reweighted.contains(&key(s, d)));
                    (t, n.count() as u64)
                })
                .filter(|&(_, n)| n > 0)
                .collect();
            by_ts.sort_unstable();
            for (t, n) in by_ts {
                self.add(t, n);
            }
        }
        taken.pairs.len()
    }

    /// `n` more re-weights at `ts`.
    fn add(&mut self, ts: u64, n: u64) {
        let c = &mut self.settled.cumulative;
        // Settling takes a prefix of commit order, so `ts` is almost
        // always the newest; an older one shifts the sums after it.
        let i = c.partition_point(|&(t, _)| t < ts);
        let before = if i == 0 { 0 } else { c[i - 1].1 };
        if i < c.len() && c[i].0 == ts {
            c[i..].iter_mut().for_each(|e| e.1 += n);
        } else {
            c.insert(i, (ts, before + n));
            c[i + 1..].iter_mut().for_each(|e| e.1 += n);
        }
    }

    /// Re-weights settled at or before `ts`, which the clock counted as new
    /// edges. Exact for `ts` once nothing at or before it waits.
    pub(crate) fn reweights_upto(&self, ts: u64) -> u64 {
        let c = &self.settled.cumulative;
        let i = c.partition_point(|&(t, _)| t <= ts);
        self.settled.folded + if i == 0 { 0 } else { c[i - 1].1 }
    }

    /// Folds the re-weights at or before `watermark` into one sum: no
    /// snapshot older than the watermark is open or can be taken, so every
    /// one subtracts them all.
    pub(crate) fn fold_upto(&mut self, watermark: u64) {
        let s = &mut *self.settled;
        let i = s.cumulative.partition_point(|&(t, _)| t <= watermark);
        if i == 0 {
            return;
        }
        let gone = s.cumulative[i - 1].1;
        s.folded += gone;
        s.cumulative.drain(..i);
        s.cumulative.iter_mut().for_each(|e| e.1 -= gone);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_vertex(k: &mut [u64]) {
        k.sort_unstable();
    }

    #[test]
    fn settles_a_prefix_and_counts_reweights_by_timestamp() {
        let l = BlindLedger::default();
        l.record(3, &[(5, 6), (1, 2)]);
        l.record(4, &[(1, 3)]);
        l.record(7, &[(9, 9)]);
        assert!(l.waiting_upto(3) && !l.waiting_upto(2));
        assert!(l.bytes() >= 4 * 8 + 3 * 16);
        let live = |k: &[u64]| {
            assert!(k.is_sorted(), "settled in vertex order");
            k.iter().map(|&k| k != key(5, 6)).collect()
        };
        let mut s = l.settler();
        assert_eq!(s.settle_upto(4, by_vertex, live), 3);
        assert_eq!(l.waiting(), 1);
        assert!(!l.waiting_upto(6) && l.waiting_upto(7));
        // (1,2)@3 and (1,3)@4 were live below: re-weights; (5,6) was new.
        assert_eq!([2, 3, 4, 9].map(|t| s.reweights_upto(t)), [0, 1, 2, 2]);
        assert_eq!(s.settle_upto(9, by_vertex, live), 1);
        assert_eq!((l.waiting(), l.bytes()), (0, 0));
        assert_eq!(s.reweights_upto(6), 2);
        assert_eq!(s.reweights_upto(7), 3);
        s.fold_upto(4);
        assert_eq!([4, 6, 7, 100].map(|t| s.reweights_upto(t)), [2, 2, 3, 3]);
    }

    #[test]
    fn an_older_settlement_shifts_the_sums_after_it() {
        let l = BlindLedger::default();
        let mut s = l.settler();
        s.add(10, 1);
        s.add(10, 1);
        s.add(20, 1);
        s.add(15, 1);
        s.add(5, 1);
        assert_eq!(
            [4, 5, 10, 14, 15, 20, 21].map(|t| s.reweights_upto(t)),
            [0, 1, 3, 3, 4, 5, 5]
        );
    }
}
