//! Commit timestamps, their in-order publication, and the snapshot registry
//! that yields the garbage-collection watermark.
//!
//! A commit takes the next timestamp while it holds the locks of every vertex
//! it writes, so two commits touching one vertex apply in timestamp order. It
//! may finish applying before an earlier commit on other vertices does, so
//! publication waits its turn: `visible` moves from `t-1` to `t` only, and a
//! snapshot, which reads `visible`, can never see a commit without all
//! earlier ones. A commit whose turn has not come leaves its counts with
//! the clock and sleeps; the commit before it publishes both. It does not
//! spin for its turn: after a group of commits becomes durable by one log
//! sync their committers wake in any order, and on a machine with fewer
//! cores than committers spinning until each predecessor has published
//! costs more context switches than the commits themselves
//! (bench/NOTES.md).
//!
//! The watermark is `min(visible, oldest open snapshot)`. Writers read it
//! without a lock; snapshots register under the state mutex that publication
//! also takes, so `visible` cannot move between a snapshot choosing its
//! timestamp and lowering `oldest` — a writer can never compute a watermark
//! above a snapshot that is being opened.

use crate::util::polling::poll_while_idle;
use parking_lot::{Condvar, Mutex};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// How long a commit polls for its turn to publish before it leaves its
/// counts to the commit before it and sleeps.
const TURN_POLL: Duration = Duration::from_micros(50);

/// A commit timestamp. Timestamps start at 1; 0 is "before everything".
pub type Timestamp = u64;

/// What one source (a MemGraph edge set, a segment) holds for one edge as
/// a snapshot at some timestamp sees it. Sources are stacked newest first,
/// and the first that decides the edge answers for all of them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Decided {
    /// No version at or before the timestamp here: older sources decide.
    Undecided,
    /// The newest version here is a tombstone: the edge is absent.
    Deleted,
    /// The newest version here is live, with this weight.
    Live(f64),
}

impl Decided {
    /// The edge's weight if it is live (`None`: absent or undecided).
    #[inline]
    pub(crate) fn weight(self) -> Option<f64> {
        match self {
            Decided::Live(w) => Some(w),
            Decided::Undecided | Decided::Deleted => None,
        }
    }

    /// Whether this source decides the edge (older ones are not asked).
    #[inline]
    pub(crate) fn decides(self) -> bool {
        self != Decided::Undecided
    }
}

/// Counters as of one published timestamp.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Published {
    pub ts: Timestamp,
    pub edges: u64,
    pub vertices: u64,
}

struct State {
    edges: u64,
    vertices: u64,
    snapshots: BTreeMap<Timestamp, usize>,
    /// Internal registrations (a flush reading the state at its cut): they
    /// hold the watermark like snapshots, but a commit is never refused
    /// for their age (see `Store::stamping`).
    pins: BTreeMap<Timestamp, usize>,
    /// Commits that finished before their turn, with their changes to
    /// the counts: published by the commit before them.
    finished: BTreeMap<Timestamp, (i64, i64)>,
    /// Committers asleep until `visible` reaches their timestamp.
    sleepers: usize,
}

pub(crate) struct Clock {
    next: AtomicU64,
    visible: AtomicU64,
    /// Oldest open snapshot (`u64::MAX`: none).
    oldest: AtomicU64,
    /// Oldest internal pin (`u64::MAX`: none).
    oldest_pin: AtomicU64,
    /// The newest timestamp readers may see (`u64::MAX`: no limit): set
    /// below the first commit that failed to reach the log, which stays
    /// published (later commits wait for it) but is never seen.
    cap: AtomicU64,
    state: Mutex<State>,
    /// Notified when `visible` moves while committers sleep on it.
    moved: Condvar,
}

/// A taken timestamp that must be published, even if the commit fails: a
/// gap would stall every later commit. Dropping an unpublished ticket
/// publishes an empty commit.
pub(crate) struct Ticket<'c> {
    clock: &'c Clock,
    ts: Timestamp,
    done: bool,
}

impl Ticket<'_> {
    pub(crate) fn ts(&self) -> Timestamp {
        self.ts
    }

    /// Publishes the commit with its change to the edge and vertex counts.
    pub(crate) fn publish(mut self, d_edges: i64, d_vertices: i64) -> Timestamp {
        self.done = true;
        self.clock.publish(self.ts, d_edges, d_vertices);
        self.ts
    }

    /// Publishes the commit if its log record became `durable`, and fails
    /// it (see `fail`) if not, returning the log's error.
    pub(crate) fn settle(
        self,
        durable: crate::error::Result<()>,
        d_edges: i64,
        d_vertices: i64,
    ) -> crate::error::Result<Timestamp> {
        match durable {
            Ok(()) => Ok(self.publish(d_edges, d_vertices)),
            Err(e) => {
                self.fail();
                Err(e)
            }
        }
    }

    /// Publishes a commit that applied its writes but then failed to reach
    /// the log: readers never see it, nor any later timestamp (a commit
    /// after it in the log failed too, as the log is written in timestamp
    /// order), so its versions in the MemGraph stay hidden until the store
    /// is reopened without them.
    fn fail(mut self) {
        self.done = true;
        self.clock.cap.fetch_min(self.ts - 1, Ordering::SeqCst);
        self.clock.publish(self.ts, 0, 0);
    }
}

impl Drop for Ticket<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.clock.publish(self.ts, 0, 0);
        }
    }
}

impl Clock {
    pub(crate) fn new() -> Self {
        Clock {
            next: AtomicU64::new(0),
            visible: AtomicU64::new(0),
            oldest: AtomicU64::new(u64::MAX),
            oldest_pin: AtomicU64::new(u64::MAX),
            cap: AtomicU64::new(u64::MAX),
            state: Mutex::new(State {
                edges: 0,
                vertices: 0,
                snapshots: BTreeMap::new(),
                pins: BTreeMap::new(),
                finished: BTreeMap::new(),
                sleepers: 0,
            }),
            moved: Condvar::new(),
        }
    }

    /// A clock for a reopened store whose data was committed up to `ts`.
    pub(crate) fn resume(ts: Timestamp) -> Self {
        let c = Clock::new();
        c.next.store(ts, Ordering::SeqCst);
        c.visible.store(ts, Ordering::SeqCst);
        c
    }

    /// Moves the clock to `ts` as if every commit up to it were published:
    /// recovery replays logged commits at their own timestamps, which may
    /// skip numbers (commits that failed after taking theirs). Only for a
    /// store nobody else uses yet.
    pub(crate) fn resume_at(&self, ts: Timestamp) {
        self.next.store(ts, Ordering::SeqCst);
        self.visible.store(ts, Ordering::SeqCst);
    }

    /// Sets the counters of a reopened store (before anyone reads them).
    pub(crate) fn set_counts(&self, edges: u64, vertices: u64) {
        let mut st = self.state.lock();
        st.edges = edges;
        st.vertices = vertices;
    }

    /// Takes the next commit timestamp.
    pub(crate) fn take(&self) -> Ticket<'_> {
        Ticket {
            clock: self,
            ts: self.next.fetch_add(1, Ordering::AcqRel) + 1,
            done: false,
        }
    }

    /// No open or future snapshot or pin is older than this: versions it
    /// hides may be dropped.
    pub(crate) fn watermark(&self) -> Timestamp {
        let v = self.seen();
        let o = self.oldest.load(Ordering::SeqCst);
        let p = self.oldest_pin.load(Ordering::SeqCst);
        v.min(o).min(p)
    }

    /// The watermark callers' snapshots alone would give: what the age
    /// limit of `Options::stamp_window` is checked against.
    pub(crate) fn snapshot_watermark(&self) -> Timestamp {
        let v = self.seen();
        v.min(self.oldest.load(Ordering::SeqCst))
    }

    /// Edges as of the newest published timestamp.
    pub(crate) fn edges(&self) -> u64 {
        self.state.lock().edges
    }

    /// The newest published timestamp readers may see.
    pub(crate) fn visible(&self) -> Timestamp {
        self.seen()
    }

    /// `visible` held at the cap a failed commit set.
    fn seen(&self) -> Timestamp {
        let v = self.visible.load(Ordering::SeqCst);
        v.min(self.cap.load(Ordering::SeqCst))
    }

    /// Makes `ts` visible once every earlier timestamp is, and returns
    /// then. `visible` moves only here, under the state lock.
    fn publish(&self, ts: Timestamp, d_edges: i64, d_vertices: i64) {
        // The commit before is usually publishing this very moment.
        poll_while_idle(TURN_POLL, || self.visible.load(Ordering::Acquire) >= ts - 1);
        let mut st = self.state.lock();
        if self.visible.load(Ordering::Acquire) != ts - 1 {
            // Not its turn: the commit before it publishes it.
            st.finished.insert(ts, (d_edges, d_vertices));
            while self.visible.load(Ordering::Acquire) < ts {
                st.sleepers += 1;
                self.moved.wait(&mut st);
                st.sleepers -= 1;
            }
            return;
        }
        let (mut at, mut d) = (ts, (d_edges, d_vertices));
        loop {
            st.edges = st.edges.wrapping_add_signed(d.0);
            st.vertices = st.vertices.wrapping_add_signed(d.1);
            self.visible.store(at, Ordering::SeqCst);
            match st.finished.remove(&(at + 1)) {
                Some(next) => (at, d) = (at + 1, next),
                None => break,
            }
        }
        if st.sleepers > 0 {
            self.moved.notify_all();
        }
    }

    /// Registers a snapshot at the newest published timestamp.
    pub(crate) fn open_snapshot(&self) -> Published {
        let mut st = self.state.lock();
        let ts = self.seen();
        register(&mut st.snapshots, &self.oldest, ts);
        Published {
            ts,
            edges: st.edges,
            vertices: st.vertices,
        }
    }

    /// Registers one more holder of an already open snapshot timestamp.
    pub(crate) fn reopen_snapshot(&self, ts: Timestamp) {
        register(&mut self.state.lock().snapshots, &self.oldest, ts);
    }

    pub(crate) fn close_snapshot(&self, ts: Timestamp) {
        release(&mut self.state.lock().snapshots, &self.oldest, ts);
    }

    /// Registers an internal reader of the state at the newest published
    /// timestamp, returned; release it with `unpin`.
    pub(crate) fn pin(&self) -> Timestamp {
        let mut st = self.state.lock();
        let ts = self.seen();
        register(&mut st.pins, &self.oldest_pin, ts);
        ts
    }

    pub(crate) fn unpin(&self, ts: Timestamp) {
        release(&mut self.state.lock().pins, &self.oldest_pin, ts);
    }

    /// Number of open snapshots.
    pub(crate) fn open_snapshots(&self) -> usize {
        self.state.lock().snapshots.values().sum()
    }
}

/// Counts one more holder of `ts` in `held` and lowers `oldest` to it.
/// The caller holds the state lock.
fn register(held: &mut BTreeMap<Timestamp, usize>, oldest: &AtomicU64, ts: Timestamp) {
    *held.entry(ts).or_insert(0) += 1;
    oldest.fetch_min(ts, Ordering::SeqCst);
}

/// Counts one holder of `ts` fewer and moves `oldest` to the oldest left.
/// The caller holds the state lock.
fn release(held: &mut BTreeMap<Timestamp, usize>, oldest: &AtomicU64, ts: Timestamp) {
    if let Some(n) = held.get_mut(&ts) {
        *n -= 1;
        if *n == 0 {
            held.remove(&ts);
        }
    }
    let first = held.keys().next().copied().unwrap_or(u64::MAX);
    oldest.store(first, Ordering::SeqCst);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn publication_is_in_timestamp_order_even_when_commits_finish_out_of_order() {
        let clock = Clock::new();
        let (a, b) = (clock.take(), clock.take());
        assert_eq!((a.ts(), b.ts()), (1, 2));
        std::thread::scope(|s| {
            let h = s.spawn(|| b.publish(1, 0));
            std::thread::sleep(std::time::Duration::from_millis(20));
            assert_eq!(clock.visible(), 0, "2 waits for 1");
            a.publish(1, 1);
            h.join().unwrap();
        });
        let p = clock.open_snapshot();
        assert_eq!((p.ts, p.edges, p.vertices), (2, 2, 1));
    }

    #[test]
    fn every_commit_returns_visible_whatever_the_order_its_committers_publish_in() {
        let clock = Clock::new();
        let tickets: Vec<Ticket<'_>> = (0..400).map(|_| clock.take()).collect();
        // Eight committers, each publishing every eighth ticket in order
        // (one committer holds one ticket at a time): which of them comes
        // first is up to the scheduler.
        let mut lanes: Vec<Vec<Ticket<'_>>> = (0..8).map(|_| Vec::new()).collect();
        for (i, t) in tickets.into_iter().enumerate() {
            lanes[i % 8].push(t);
        }
        std::thread::scope(|s| {
            for lane in lanes {
                let clock = &clock;
                s.spawn(move || {
                    for t in lane {
                        let ts = t.publish(1, 0);
                        assert!(clock.visible() >= ts, "{ts} returned unseen");
                    }
                });
            }
        });
        let p = clock.open_snapshot();
        assert_eq!((p.ts, p.edges), (400, 400));
        assert!(clock.state.lock().finished.is_empty());
    }

    #[test]
    fn watermark_follows_the_oldest_open_snapshot() {
        let clock = Clock::new();
        clock.take().publish(0, 0);
        let s1 = clock.open_snapshot();
        clock.take().publish(0, 0);
        clock.take().publish(0, 0);
        assert_eq!(clock.watermark(), s1.ts);
        clock.close_snapshot(s1.ts);
        assert_eq!(clock.watermark(), 3);
        drop(clock.take()); // an abandoned ticket still publishes
        assert_eq!(clock.visible(), 4);
    }

    #[test]
    fn a_failed_commit_and_every_later_one_stay_unseen() {
        let clock = Clock::new();
        clock.take().publish(1, 0);
        let (a, b, c) = (clock.take(), clock.take(), clock.take());
        a.publish(1, 0);
        b.fail();
        c.publish(0, 0); // published, so a later commit is not held up
        assert_eq!(clock.visible(), 2);
        let p = clock.open_snapshot();
        assert_eq!((p.ts, p.edges), (2, 2));
        clock.close_snapshot(p.ts);
        assert_eq!(clock.watermark(), 2);
        clock.take().publish(0, 0);
        assert_eq!(clock.pin(), 2);
    }
}
