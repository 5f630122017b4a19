//! What recent commits wrote, so a transaction can tell whether an element
//! it writes (or, when serializable, read) changed after its snapshot.
//!
//! Transactions read one snapshot and buffer their writes; at commit each
//! asks this window whether a commit newer than its snapshot wrote any
//! element it is about to write (snapshot isolation, first committer wins)
//! or read (serializable, validated optimistically as in Aster over
//! RocksDB's optimistic transactions). The check, the commit's timestamp
//! and the record of its own writes happen under one lock, so of two
//! transactions that conflict exactly one commits.
//!
//! The window keeps only what a transaction could still be asked about.
//! Each transaction registers, before its snapshot opens, the newest
//! visible timestamp then (a lower bound of its snapshot's); a write at or
//! below the oldest such bound, or below the visible timestamp when no
//! transaction reads, can conflict with nothing and goes at the next
//! commit. Read-only snapshots (analytics) hold nothing back here.
//!
//! While no transaction reads, nothing is recorded at all: single-call
//! writes and batches skip the window (and its lock) entirely, so they
//! cost what they cost before transactions could conflict. The first
//! transaction to read then waits for the commits already in flight
//! (`reader_begins` drains them through the writers' gate), so every
//! commit its snapshot does not see is one that recorded its writes.
//! Batches are recorded by the vertices they touch rather than per edge.
//!
//! Commits go on recording for `LINGER` after the last reader ends. A drain
//! waits for the commits in flight to become durable, so it costs a log
//! sync, and it holds back every commit behind it. A server whose clients
//! each run one transaction per request often has no reader for a moment
//! between requests; stopping at once would make nearly every request
//! drain.

use crate::direction::Direction;
use crate::version::Timestamp;
use parking_lot::{Mutex, MutexGuard};
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long commits keep recording their writes after the last reader
/// ended (see the module notes): long beside a drain's cost (a log sync),
/// short beside what a store with no readers at all would pay.
const LINGER: Duration = Duration::from_millis(100);

/// One element a commit can write or a transaction can read, by internal
/// id. Edges of an undirected graph are keyed (min, max).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Key {
    /// A vertex created or deleted by name (`insert_vertex`,
    /// `delete_vertex`): the element snapshot isolation protects.
    Vertex(u32),
    /// A vertex that came into existence because an edge named it. Two
    /// transactions that both add edges at a new vertex do not conflict
    /// over it; only a serializable read of its existence does.
    Created(u32),
    /// One edge (its presence and weight).
    Edge(u32, u32),
    /// A vertex's edges on one side, as a whole: written by every edge
    /// write and vertex delete there, read by a neighbour list.
    Adjacency(u32, Direction),
    /// One property of a vertex (vertex, interned key).
    Property(u32, u32),
    /// A vertex's label and properties as a whole: written by every
    /// property write and delete of the vertex, read by reading them all.
    Properties(u32),
    /// Every vertex's property `key` among those labelled `label`
    /// (interned label, key), as a look-up by value reads them: written by
    /// every write of that key on such a vertex.
    Predicate(u32, u32),
    /// A property edge's existence (by id).
    PropertyEdge(u64),
    /// One property of a property edge (edge id, interned key).
    EdgeProperty(u64, u32),
    /// A vertex's property edges on one side, as a whole: written by every
    /// property edge added or removed there, read by reading them.
    EdgeList(u32, Direction),
}

impl Key {
    /// The vertices whose writes this key depends on (for batches, which
    /// are kept by vertex); `None` for a key no vertex write of a batch
    /// touches.
    fn vertices(self) -> Option<[u32; 2]> {
        Some(match self {
            Key::Vertex(v)
            | Key::Created(v)
            | Key::Adjacency(v, _)
            | Key::Property(v, _)
            | Key::Properties(v) => [v, v],
            Key::Edge(s, d) => [s, d],
            // Batches write no properties and no property edges.
            Key::Predicate(..)
            | Key::PropertyEdge(_)
            | Key::EdgeProperty(..)
            | Key::EdgeList(..) => return None,
        })
    }
}

/// The vertices a batch touched, ascending; `None` for all of them (a bulk
/// load).
pub(crate) type Touched = Option<Arc<[u32]>>;

/// The recent writes of one open store.
#[derive(Default)]
pub(crate) struct Conflicts {
    window: Mutex<Window>,
    /// Whether any transaction reads (`Window::readers` is not empty):
    /// read without the lock by commits deciding whether to record.
    watched: AtomicBool,
}

/// Recent writes, newest timestamp per element.
#[derive(Default)]
pub(crate) struct Window {
    latest: FxHashMap<Key, Timestamp>,
    /// Every recorded write in the order recorded (roughly timestamp
    /// order), so pruning walks from the front.
    order: VecDeque<(Timestamp, Key)>,
    batches: VecDeque<(Timestamp, Touched)>,
    /// Transactions between opening their snapshot and committing, by a
    /// lower bound of their snapshot's timestamp (with how many share it):
    /// while there are none, batches need not be recorded.
    readers: BTreeMap<Timestamp, usize>,
    /// Whether the commits that decided not to record before the first
    /// of the current readers began have all finished. Stays true while
    /// commits record (`Conflicts::watched`), readers or not.
    drained: bool,
    /// When the last reader ended, while commits still record.
    idle_since: Option<Instant>,
}

impl Conflicts {
    /// The window, locked: check, take the commit's timestamp and record
    /// its writes before letting go. Taken after the commit's vertex locks
    /// and before the log's.
    pub(crate) fn lock(&self) -> MutexGuard<'_, Window> {
        self.window.lock()
    }

    /// Whether a commit must record its writes: some transaction reads.
    /// A commit asks while it holds the writers' gate (shared) and before
    /// it takes its timestamp.
    pub(crate) fn watched(&self) -> bool {
        self.watched.load(Ordering::SeqCst)
    }

    /// A transaction is about to open its snapshot, which will be at or
    /// after `visible` (the newest visible timestamp now): from now on
    /// every commit records its writes. Commits that decided not to before
    /// this must finish first, so the snapshot sees them: if they may not
    /// have, `drain` waits for them (it takes the writers' gate
    /// exclusively, which every commit holds until it has published).
    /// Returns the bound to hand back to `reader_ends`.
    pub(crate) fn reader_begins(&self, visible: Timestamp, drain: impl FnOnce()) -> Timestamp {
        let drained = {
            let mut w = self.window.lock();
            *w.readers.entry(visible).or_insert(0) += 1;
            w.idle_since = None;
            self.watched.store(true, Ordering::SeqCst);
            w.drained
        };
        if !drained {
            // Not under the window's lock: the commits drained may need it.
            drain();
            // Commits have recorded since this reader registered, and go
            // on doing so at least until it ends.
            self.window.lock().drained = true;
        }
        visible
    }

    /// The transaction that called `reader_begins` has committed or gone.
    pub(crate) fn reader_ends(&self, bound: Timestamp) {
        let mut w = self.window.lock();
        if let Some(n) = w.readers.get_mut(&bound) {
            *n -= 1;
            if *n == 0 {
                w.readers.remove(&bound);
            }
        }
        if w.readers.is_empty() {
            w.idle_since = Some(Instant::now());
        }
    }

    /// Records that the commit at `ts` wrote `keys` (see `Window::record`),
    /// and stops the recording once no transaction has read for `LINGER`.
    pub(crate) fn record(
        &self,
        w: &mut Window,
        ts: Timestamp,
        visible: Timestamp,
        keys: impl IntoIterator<Item = Key>,
    ) {
        w.record(ts, visible, keys);
        self.stop_if_idle(w, Instant::now());
    }

    /// Stops recording if the last reader ended `LINGER` before `now`. The
    /// next reader then drains again.
    fn stop_if_idle(&self, w: &mut Window, now: Instant) {
        if w.idle_since
            .is_some_and(|since| now.duration_since(since) >= LINGER)
        {
            debug_assert!(w.readers.is_empty());
            self.watched.store(false, Ordering::SeqCst);
            w.drained = false;
            w.idle_since = None;
        }
    }

    /// Records a published batch at `ts` if a transaction might be checked
    /// against it. The caller still holds the writers' gate, so no commit
    /// checks between the batch's publication and this record.
    pub(crate) fn record_batch(&self, ts: Timestamp, touched: impl FnOnce() -> Touched) {
        let mut w = self.window.lock();
        if !w.readers.is_empty() {
            let t = touched();
            w.batches.push_back((ts, t));
        }
    }
}

impl Window {
    /// The first of `keys` a commit after `since` wrote, with that commit's
    /// timestamp.
    pub(crate) fn find(
        &self,
        since: Timestamp,
        keys: impl IntoIterator<Item = Key>,
    ) -> Option<(Key, Timestamp)> {
        let batches: Vec<&(Timestamp, Touched)> =
            self.batches.iter().filter(|(ts, _)| *ts > since).collect();
        for key in keys {
            if let Some(&ts) = self.latest.get(&key) {
                if ts > since {
                    return Some((key, ts));
                }
            }
            for (ts, touched) in &batches {
                let hit = match touched {
                    None => true,
                    Some(vs) => key
                        .vertices()
                        .is_some_and(|ends| ends.iter().any(|v| vs.binary_search(v).is_ok())),
                };
                if hit {
                    return Some((key, *ts));
                }
            }
        }
        None
    }

    /// Records that the commit at `ts` wrote `keys`, and forgets writes no
    /// transaction can ask about: at or below the oldest reader's bound,
    /// or with no reader, at or below `visible` (read under this lock, so
    /// a reader that begins later has a bound at least as new).
    pub(crate) fn record(
        &mut self,
        ts: Timestamp,
        visible: Timestamp,
        keys: impl IntoIterator<Item = Key>,
    ) {
        let horizon = self.readers.keys().next().copied().unwrap_or(visible);
        while let Some(&(t, key)) = self.order.front() {
            if t > horizon {
                break;
            }
            self.order.pop_front();
            if self.latest.get(&key) == Some(&t) {
                self.latest.remove(&key);
            }
        }
        while self.batches.front().is_some_and(|(t, _)| *t <= horizon) {
            self.batches.pop_front();
        }
        for key in keys {
            let at = self.latest.entry(key).or_insert(ts);
            *at = (*at).max(ts);
            self.order.push_back((ts, key));
        }
    }

    /// How many writes the window holds (for tests).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.order.len()
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;

    #[test]
    fn a_write_after_the_snapshot_is_found_and_one_before_is_not() {
        let c = Conflicts::default();
        let mut w = c.lock();
        w.record(5, 0, [Key::Edge(1, 2), Key::Adjacency(1, Direction::Out)]);
        assert_eq!(w.find(4, [Key::Edge(1, 2)]), Some((Key::Edge(1, 2), 5)));
        assert_eq!(w.find(5, [Key::Edge(1, 2)]), None);
        assert_eq!(w.find(4, [Key::Edge(2, 1), Key::Vertex(1)]), None);
    }

    #[test]
    fn pruning_keeps_every_write_a_snapshot_above_the_horizon_can_ask_for() {
        let c = Conflicts::default();
        let mut w = c.lock();
        w.record(3, 0, [Key::Vertex(7)]);
        w.record(4, 0, [Key::Vertex(7)]);
        // Recorded out of timestamp order, as concurrent commits may.
        w.record(9, 0, [Key::Vertex(8)]);
        w.record(6, 0, [Key::Vertex(9)]);
        w.record(10, 5, []);
        assert_eq!(w.find(5, [Key::Vertex(7)]), None);
        assert_eq!(w.find(5, [Key::Vertex(8)]), Some((Key::Vertex(8), 9)));
        assert_eq!(w.find(5, [Key::Vertex(9)]), Some((Key::Vertex(9), 6)));
        w.record(11, 10, []);
        assert_eq!(w.len(), 0);
    }

    #[test]
    fn a_reader_holds_back_pruning_until_it_ends() {
        let c = Conflicts::default();
        let mut drains = 0;
        let bound = c.reader_begins(4, || drains += 1);
        assert!(c.watched());
        let second = c.reader_begins(4, || drains += 1);
        assert_eq!(drains, 1, "the second reader finds the first drained");
        c.reader_ends(second);
        c.lock().record(5, 9, [Key::Vertex(1)]);
        c.lock().record(6, 9, [Key::Vertex(2)]);
        assert_eq!(
            c.lock().find(4, [Key::Vertex(1)]),
            Some((Key::Vertex(1), 5))
        );
        // Times are given, not read: a test thread can stall for LINGER.
        let ended = Instant::now();
        c.reader_ends(bound);
        assert!(c.watched(), "commits go on recording for a while");
        c.lock().record(7, 6, []);
        c.stop_if_idle(&mut c.lock(), ended);
        assert_eq!(c.lock().len(), 0);
        assert!(c.watched());
        let third = c.reader_begins(7, || drains += 1);
        assert_eq!(drains, 1, "no drain while commits still record");
        c.reader_ends(third);
        let later = Instant::now() + LINGER;
        c.stop_if_idle(&mut c.lock(), later);
        assert!(!c.watched());
        c.reader_begins(8, || drains += 1);
        assert_eq!(drains, 2, "once they stopped, the next reader drains");
    }

    #[test]
    fn batches_are_kept_by_vertex_and_only_while_someone_reads() {
        let c = Conflicts::default();
        c.record_batch(2, || panic!("no reader: nothing to compute"));
        let bound = c.reader_begins(2, || {});
        c.record_batch(3, || Some(Arc::from(vec![1, 4, 9])));
        c.reader_ends(bound);
        let w = c.lock();
        assert_eq!(w.find(2, [Key::Edge(2, 4)]), Some((Key::Edge(2, 4), 3)));
        assert_eq!(w.find(2, [Key::Edge(2, 5)]), None);
        assert_eq!(w.find(3, [Key::Vertex(9)]), None);
    }
}
