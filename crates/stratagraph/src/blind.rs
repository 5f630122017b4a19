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
//! Settling an insert needs levels that hold exactly the versions of the
//! edge older than it. While the insert *waits* (its commit not yet
//! flushed) the current levels are such: when the insert was written the
//! MemGraph held no version of the edge, so every older one was below, and
//! versions reach the levels only through a flush. A flush does not settle
//! its inserts; it *defers* them ([`Settler::defer_upto`]) together with a
//! copy of the levels as they were before its run, and publishes its run
//! while still holding the [`Settler`], so no one settles a waiting insert
//! against levels that already hold it. Deferred inserts are settled later
//! against their own copies, several flushes' worth in one pass in vertex
//! order ([`Settler::settle_deferred`]): under a memory cap each pass reads
//! most pages of the levels, so one pass for many flushes saves the rest.
//! The copies share their segments with the levels of the day (only the
//! runs flushed since differ), and compaction rewrites levels without
//! changing any edge's latest state, so a copy stays right however old.

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

/// How a settling pass cuts its inserts into slices of sources, sorted and
/// searched one after another: each of at most `keys` keys, unless one
/// bucket of `1 << shift` consecutive sources holds more. A key takes 16
/// bytes sorted, twice what the insert takes in the ledger: sorted all at
/// once, a pass over a load's deferred inserts at k24 took the process past
/// its 545 MiB cap (`bench/NOTES.md`, session 53).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Slicing {
    keys: usize,
    shift: u32,
}

/// 16 MiB of keys a slice.
const SLICING: Slicing = Slicing {
    keys: 1 << 20,
    shift: 12,
};

/// Searches every insert of `groups[g]` as `(key, g)` in `belows[g]`
/// (`live_below`, given each slice's keys put in order by `sort`): returns
/// how many inserts there were and the keys of those the levels held live.
fn search<B>(
    groups: &[Waiting],
    belows: &[B],
    slicing: Slicing,
    mut sort: impl FnMut(&mut [(u64, u32)]),
    mut live_below: impl FnMut(&[(u64, u32)], &[B]) -> Vec<bool>,
) -> (usize, HashSet<(u64, u32)>) {
    let bucket = |s: u32| (s >> slicing.shift) as usize;
    let mut counts: Vec<usize> = Vec::new();
    for &(s, _) in groups.iter().flat_map(|w| &w.pairs) {
        let b = bucket(s);
        if b >= counts.len() {
            counts.resize(b + 1, 0);
        }
        counts[b] += 1;
    }
    let mut live_keys = HashSet::new();
    let mut keys: Vec<(u64, u32)> = Vec::new();
    let mut next = 0;
    while next < counts.len() {
        let (first, mut n) = (next, 0);
        while next < counts.len() && (n == 0 || n + counts[next] <= slicing.keys) {
            n += counts[next];
            next += 1;
        }
        if n == 0 {
            continue;
        }
        keys.clear();
        keys.reserve_exact(n);
        for (g, w) in groups.iter().enumerate() {
            let of_slice = w
                .pairs
                .iter()
                .filter(|&&(s, _)| (first..next).contains(&bucket(s)));
            keys.extend(of_slice.map(|&(s, d)| (key(s, d), g as u32)));
        }
        sort(&mut keys);
        let live = live_below(&keys, belows);
        live_keys.extend(keys.iter().zip(live).filter(|(_, l)| *l).map(|(&k, _)| k));
    }
    (counts.iter().sum(), live_keys)
}

#[derive(Default)]
struct Settled {
    /// Re-weights at timestamps every snapshot is past (see `fold_upto`).
    folded: u64,
    /// `(ts, n)`: `n` re-weights settled at timestamps up to `ts` (beyond
    /// `folded`), ascending in both.
    cumulative: Vec<(u64, u64)>,
}

/// See the module documentation. `B` is what a deferred flush's inserts
/// are settled against: the store's levels as they were before its run.
pub(crate) struct BlindLedger<B> {
    waiting: Mutex<Waiting>,
    /// `Waiting::bytes` of `waiting`, read without its lock.
    bytes: AtomicUsize,
    /// `Waiting::bytes` of the deferred inserts, kept under the settle lock
    /// and read without it.
    deferred_bytes: AtomicUsize,
    /// Held by a settling pass from taking deferred inserts out to
    /// recording what it found (`settle_deferred_apart`), and by a count,
    /// which must not miss the inserts such a pass holds.
    pass: Mutex<()>,
    /// The re-weights found, and the inserts flushed before they were
    /// settled, each flush's with the levels below its run.
    settled: Mutex<(Settled, Vec<(Waiting, B)>)>,
    slicing: Slicing,
}

impl<B> Default for BlindLedger<B> {
    fn default() -> Self {
        BlindLedger {
            waiting: Mutex::new(Waiting::empty()),
            bytes: AtomicUsize::new(0),
            deferred_bytes: AtomicUsize::new(0),
            pass: Mutex::new(()),
            settled: Mutex::new((Settled::default(), Vec::new())),
            slicing: SLICING,
        }
    }
}

impl<B> BlindLedger<B> {
    /// A ledger whose passes cut their inserts as `keys` and `shift` say
    /// (`Slicing`), for tests of small passes in many slices.
    #[cfg(test)]
    fn sliced(keys: usize, shift: u32) -> Self {
        BlindLedger {
            slicing: Slicing { keys, shift },
            ..BlindLedger::default()
        }
    }

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

    /// Heap bytes of the inserts flushes deferred (they leave at the next
    /// settling pass).
    pub(crate) fn deferred_bytes(&self) -> usize {
        self.deferred_bytes.load(Ordering::Relaxed)
    }

    /// Whether an insert at or before `ts` waits for a flush.
    fn waiting_upto(&self, ts: u64) -> bool {
        self.waiting.lock().oldest <= ts
    }

    /// How many inserts wait for a flush.
    #[cfg(test)]
    pub(crate) fn waiting(&self) -> usize {
        self.waiting.lock().pairs.len()
    }

    /// The right to defer and settle (see the module documentation): what
    /// a flush takes to defer its inserts and publish its run.
    pub(crate) fn settler(&self) -> Settler<'_, B> {
        Settler {
            ledger: self,
            guard: self.settled.lock(),
            _pass: None,
        }
    }

    /// The settler for a count: also waits for a settling pass in progress
    /// (`settle_deferred_apart`) and keeps the next from starting, so the
    /// re-weights it reads miss no insert.
    pub(crate) fn counting_settler(&self) -> Settler<'_, B> {
        let pass = self.pass.lock();
        Settler {
            ledger: self,
            guard: self.settled.lock(),
            _pass: Some(pass),
        }
    }

    /// Settles every deferred insert, as `Settler::settle_deferred` does,
    /// but holds the settler only to take them out and to record what the
    /// search found: flushes defer and publish meanwhile, and only counts
    /// wait for the pass. For background passes, whose search reads the
    /// levels from disk under a memory cap.
    pub(crate) fn settle_deferred_apart(
        &self,
        sort: impl FnMut(&mut [(u64, u32)]),
        live_below: impl FnMut(&[(u64, u32)], &[B]) -> Vec<bool>,
    ) -> usize {
        let _pass = self.pass.lock();
        let (groups, belows) = self.settler().take_deferred();
        let (n, live) = search(&groups, &belows, self.slicing, sort, live_below);
        drop(belows);
        self.settler().record(&groups, n, &live)
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

/// Held while settling inserts and, by a flush, from deferring its inserts
/// until its run is published.
pub(crate) struct Settler<'a, B> {
    ledger: &'a BlindLedger<B>,
    guard: MutexGuard<'a, (Settled, Vec<(Waiting, B)>)>,
    /// A count's hold on the pass lock (`BlindLedger::counting_settler`).
    _pass: Option<MutexGuard<'a, ()>>,
}

impl<B> Settler<'_, B> {
    /// A flush's part: moves the inserts waiting at or before `ts` (its
    /// cut) to the deferred ones, to be settled against `below`, the
    /// levels without the run the flush publishes while this is held
    /// (made only if some insert is deferred).
    pub(crate) fn defer_upto(&mut self, ts: u64, below: impl FnOnce() -> B) {
        let taken = self.ledger.take_upto(ts);
        if taken.pairs.is_empty() {
            return;
        }
        self.ledger
            .deferred_bytes
            .fetch_add(taken.bytes(), Ordering::Relaxed);
        self.guard.1.push((taken, below()));
    }

    /// How many flushes' inserts are deferred.
    pub(crate) fn deferred_flushes(&self) -> usize {
        self.guard.1.len()
    }

    /// Whether an insert at or before `ts` waits or is deferred: a
    /// snapshot at `ts` must settle before it counts.
    pub(crate) fn unsettled_upto(&self, ts: u64) -> bool {
        self.guard.1.iter().any(|(w, _)| w.oldest <= ts) || self.ledger.waiting_upto(ts)
    }

    /// Settles every deferred insert, each against its flush's levels, in
    /// slices of sources in vertex order (`Slicing`). `sort` orders a
    /// slice's `(key, flush)` pairs by key first (the caller may do it in
    /// parallel), so the levels are read in order; `live_below` says for
    /// each whether that flush's levels hold the edge live. Returns how
    /// many were settled.
    pub(crate) fn settle_deferred(
        &mut self,
        sort: impl FnMut(&mut [(u64, u32)]),
        live_below: impl FnMut(&[(u64, u32)], &[B]) -> Vec<bool>,
    ) -> usize {
        let (groups, belows) = self.take_deferred();
        let (n, live) = search(&groups, &belows, self.ledger.slicing, sort, live_below);
        self.record(&groups, n, &live)
    }

    /// Settles the inserts waiting at or before `ts` against `current`,
    /// which must be the levels of the moment (with every flushed run), and
    /// every deferred one against its own: what a snapshot at `ts` needs
    /// to count exactly. Arguments as for `settle_deferred`.
    pub(crate) fn settle_upto(
        &mut self,
        ts: u64,
        current: B,
        sort: impl FnMut(&mut [(u64, u32)]),
        live_below: impl FnMut(&[(u64, u32)], &[B]) -> Vec<bool>,
    ) -> usize {
        self.defer_upto(ts, || current);
        self.settle_deferred(sort, live_below)
    }

    /// Takes every deferred flush's inserts out, with their levels.
    fn take_deferred(&mut self) -> (Vec<Waiting>, Vec<B>) {
        self.ledger.deferred_bytes.store(0, Ordering::Relaxed);
        std::mem::take(&mut self.guard.1).into_iter().unzip()
    }

    /// Records the re-weights among `groups`' `n` inserts, those whose keys
    /// `search` found live below (`reweighted`); returns `n`.
    fn record(&mut self, groups: &[Waiting], n: usize, reweighted: &HashSet<(u64, u32)>) -> usize {
        // Re-weights are the rare case (a load writes new edges): find
        // their commits only when there are some.
        if !reweighted.is_empty() {
            let mut by_ts: Vec<(u64, u64)> = Vec::new();
            for (g, w) in groups.iter().enumerate() {
                let g = g as u32;
                by_ts.extend(
                    w.each()
                        .map(|(t, pairs)| {
                            let n = pairs
                                .iter()
                                .filter(|&&(s, d)| reweighted.contains(&(key(s, d), g)));
                            (t, n.count() as u64)
                        })
                        .filter(|&(_, n)| n > 0),
                );
            }
            by_ts.sort_unstable();
            for (t, k) in by_ts {
                self.add(t, k);
            }
        }
        n
    }

    /// `n` more re-weights at `ts`.
    fn add(&mut self, ts: u64, n: u64) {
        let c = &mut self.guard.0.cumulative;
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
    /// edges. Exact for `ts` once nothing at or before it waits or is
    /// deferred.
    pub(crate) fn reweights_upto(&self, ts: u64) -> u64 {
        let s = &self.guard.0;
        let i = s.cumulative.partition_point(|&(t, _)| t <= ts);
        s.folded + if i == 0 { 0 } else { s.cumulative[i - 1].1 }
    }

    /// Folds the re-weights at or before `watermark` into one sum: no
    /// snapshot older than the watermark is open or can be taken, so every
    /// one subtracts them all. (An insert settled later at an older
    /// timestamp is added to the sums after it, as any is.)
    pub(crate) fn fold_upto(&mut self, watermark: u64) {
        let s = &mut self.guard.0;
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

    fn by_vertex(k: &mut [(u64, u32)]) {
        k.sort_unstable();
    }

    /// Levels named by the edges they hold live.
    type Levels = &'static [(u32, u32)];

    fn live(keys: &[(u64, u32)], belows: &[Levels]) -> Vec<bool> {
        assert!(keys.is_sorted(), "settled in vertex order, in one pass");
        keys.iter()
            .map(|&(k, g)| belows[g as usize].iter().any(|&(s, d)| key(s, d) == k))
            .collect()
    }

    #[test]
    fn settles_a_prefix_and_counts_reweights_by_timestamp() {
        let l = BlindLedger::<Levels>::default();
        l.record(3, &[(5, 6), (1, 2)]);
        l.record(4, &[(1, 3)]);
        l.record(7, &[(9, 9)]);
        assert!(l.waiting_upto(3) && !l.waiting_upto(2));
        assert!(l.bytes() >= 4 * 8 + 3 * 16);
        let below: Levels = &[(1, 2), (1, 3), (9, 8)];
        let mut s = l.settler();
        assert!(s.unsettled_upto(3) && !s.unsettled_upto(2));
        assert_eq!(s.settle_upto(4, below, by_vertex, live), 3);
        assert_eq!(l.waiting(), 1);
        assert!(!s.unsettled_upto(6) && s.unsettled_upto(7));
        // (1,2)@3 and (1,3)@4 were live below: re-weights; (5,6) was new.
        assert_eq!([2, 3, 4, 9].map(|t| s.reweights_upto(t)), [0, 1, 2, 2]);
        assert_eq!(s.settle_upto(9, &[(9, 9)], by_vertex, live), 1);
        assert_eq!((l.waiting(), l.bytes(), l.deferred_bytes()), (0, 0, 0));
        assert_eq!(s.reweights_upto(6), 2);
        assert_eq!(s.reweights_upto(7), 3);
        s.fold_upto(4);
        assert_eq!([4, 6, 7, 100].map(|t| s.reweights_upto(t)), [2, 2, 3, 3]);
    }

    /// Flushes defer their inserts, each with the levels below its run;
    /// one pass later settles them all, each against its own levels, even
    /// after the watermark has passed them.
    #[test]
    fn deferred_flushes_settle_against_their_own_levels() {
        let l = BlindLedger::<Levels>::default();
        l.record(3, &[(1, 2), (4, 4)]);
        let mut s = l.settler();
        // The first flush's levels hold neither edge.
        s.defer_upto(3, || &[]);
        drop(s);
        // Written again after the flush, blind: its run holds (1, 2) now.
        l.record(5, &[(1, 2)]);
        l.record(6, &[(2, 0)]);
        let mut s = l.settler();
        s.defer_upto(5, || &[(1, 2), (4, 4)]);
        assert_eq!((s.deferred_flushes(), l.waiting()), (2, 1));
        assert!(l.deferred_bytes() >= 3 * 8 + 2 * 16 && l.bytes() > 0);
        // Nothing settled yet: a count must settle first.
        assert!(s.unsettled_upto(3) && s.unsettled_upto(5));
        assert_eq!(s.reweights_upto(9), 0);
        s.fold_upto(9);
        assert_eq!(s.settle_deferred(by_vertex, live), 3);
        assert_eq!((s.deferred_flushes(), l.deferred_bytes()), (0, 0));
        // Only (1,2)@5 was a re-weight; (1,2)@3 and (4,4)@3 were new.
        assert_eq!([5, 9].map(|t| s.reweights_upto(t)), [1, 1]);
        assert!(!s.unsettled_upto(5) && s.unsettled_upto(6));
        assert_eq!(s.settle_deferred(by_vertex, live), 0);
    }

    /// A pass cut into slices of sources looks each insert up once, in
    /// vertex order within each slice and slice after slice, in slices no
    /// larger than asked unless one bucket is, and settles as one uncut
    /// pass does.
    #[test]
    fn a_pass_in_slices_settles_as_one_pass() {
        let below: Levels = Box::leak(
            (0..30u32)
                .flat_map(|s| (0..4).map(move |d| (s, d)))
                .filter(|&(s, d)| (s + d) % 3 == 0)
                .collect::<Vec<_>>()
                .into_boxed_slice(),
        );
        let fill = |l: &BlindLedger<Levels>| {
            for f in 0..3u32 {
                for i in 0..20u32 {
                    let (s, d) = ((i * 7 + f * 3) % 30, (i + f) % 4);
                    l.record(u64::from(f * 100 + i + 1), &[(s, d)]);
                }
                l.settler().defer_upto(u64::from(f * 100 + 50), || below);
            }
        };
        let whole = BlindLedger::<Levels>::default();
        fill(&whole);
        let mut calls = 0;
        assert_eq!(
            whole.settle_deferred_apart(by_vertex, |k, b| {
                calls += 1;
                live(k, b)
            }),
            60
        );
        assert_eq!(calls, 1);

        let cut = BlindLedger::<Levels>::sliced(5, 1);
        fill(&cut);
        let mut seen: Vec<(u64, u32)> = Vec::new();
        let mut sizes = Vec::new();
        let settled = cut.settle_deferred_apart(by_vertex, |k, b| {
            assert!(seen.last() < k.first(), "slices in vertex order, apart");
            seen.extend_from_slice(k);
            sizes.push(k.len());
            live(k, b)
        });
        assert_eq!(settled, 60);
        assert_eq!(seen.len(), 60);
        // Sources 2b and 2b+1 share a bucket; no bucket here holds more
        // than 5 inserts, so no slice does.
        assert!(
            sizes.len() >= 12 && sizes.iter().all(|&n| n <= 5),
            "{sizes:?}"
        );
        let (a, b) = (whole.settler(), cut.settler());
        for t in [0, 1, 20, 50, 101, 150, 220, 300] {
            assert_eq!(a.reweights_upto(t), b.reweights_upto(t), "at {t}");
        }
        assert!(a.reweights_upto(300) > 0);
    }

    #[test]
    fn an_older_settlement_shifts_the_sums_after_it() {
        let l = BlindLedger::<()>::default();
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
