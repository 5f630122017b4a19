//! Keeping the MemGraph within its budget: when to flush, the flush itself,
//! and the clean-up that drops flushed versions from the MemGraph.
//!
//! A flush never stops writers or readers. It picks a cut (the newest
//! published commit) and the watermark, writes every version up to the cut
//! that a snapshot at or after the watermark can need into a run (out- and,
//! for directed graphs, in-edges), and publishes a new `Layers` with that
//! run in front. Until then nothing changed for anyone; afterwards, new
//! snapshots see the run below the MemGraph and find its versions in both
//! places, which reads the same. The MemGraph drops those versions
//! (`EdgeSet::drop_upto`) only when every `Layers` older than the run has
//! been dropped, because holders of those (old snapshots, commits in
//! flight) know no run and read the versions from the MemGraph.
//!
//! Background flushes run on their own thread, started when the versions
//! written since the last flush exceed `Options::memgraph_bytes`; callers'
//! threads only count and, at most, spawn. A background flush hands
//! compaction to a thread of its own (`schedule_compaction`), so a long
//! merge deep in the levels never holds up the next flush, and writers
//! stall only when both MemGraphs are full. If compaction falls far behind
//! (`L0_STOP` runs in L0), flushes wait for it, and writers with them:
//! reads must not slow down without bound.
//!
//! Locks, always taken in this order: `flushing` (one flush or clean-up at
//! a time), `compacting` (one compaction), `manifest` (what the manifest
//! says changes together with what is published, and is written in that
//! order), then the layers lock, `retired` and `pending`.

use super::Store;
use crate::csr::{Encoding, Segment, SegmentBytes, SegmentWriter};
use crate::direction::Direction;
use crate::error::{Error, Result};
use crate::lsm::flush::{flush_direction, Pivots};
use crate::lsm::layers::{FlushedRun, Layers, Level};
use crate::lsm::leveling::{self, L0_RUNS};
use crate::manifest::{LogSegment, Manifest, PropsFile, RunFiles, Totals, VertexIds, VertexTable};
use crate::pivot::Plan;
use crate::props::file as props_file;
use crate::util::faults::{hit, FileOp};
use crate::util::files::write_atomically;
use crate::version::Timestamp;
use crate::vertex_file;
use crate::wal::Wal;
use parking_lot::Mutex;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// Flush bookkeeping of one store.
#[derive(Default)]
pub(crate) struct LsmState {
    /// Serialises flushes and clean-ups.
    flushing: Mutex<()>,
    /// Serialises compactions (the background one and explicit ones).
    compacting: Mutex<()>,
    /// Held while the flushed cut, the durable vertices and the published
    /// layers change and the manifest describing them is written, so a
    /// manifest never names a cut without the run that holds it.
    pub(super) manifest: Mutex<()>,
    /// A flush asked for compaction since the compaction thread last looked.
    compact_wanted: AtomicBool,
    /// The compaction thread is running.
    compactor: AtomicBool,
    /// Clean-ups waiting for old `Layers` to be dropped, oldest first: the
    /// cut whose versions may go, and every `Layers` published before its
    /// run that was still held when the run was published.
    pending: Mutex<Vec<(Timestamp, Vec<Weak<Layers>>)>>,
    /// Every replaced `Layers` that may still be held (flushes and
    /// compactions both replace them; a holder of any of them may lack a
    /// run published later).
    retired: Mutex<Vec<Weak<Layers>>>,
    /// Edge versions written to the MemGraph since the last flush began.
    written: AtomicUsize,
    /// MemGraph bytes that flushed versions an open snapshot still reads
    /// were holding after the last clean-up (0 when nothing was held): the
    /// flush trigger counts only the bytes above them, which a flush can
    /// free, so a long-lived snapshot does not set off flush after flush.
    pinned_bytes: AtomicUsize,
    /// A background flush is scheduled or running.
    scheduled: AtomicBool,
    /// The cut of the newest run (0: none yet).
    last_cut: AtomicU64,
    /// The newest cut whose flush is running or whose clean-up has not yet
    /// dropped its versions from the MemGraph (0: none). Writers prune no
    /// further than this (`prune_horizon`).
    unclean_cut: AtomicU64,
    /// Runs and parts written so far (names segments and their files).
    runs: AtomicU64,
    /// Per level, the vertex where the round robin choosing which part
    /// goes down next resumes.
    cursors: Mutex<Vec<u32>>,
    /// Flushes and compactions done, for `Stats`.
    flushes: AtomicU64,
    compactions: AtomicU64,
    /// The first error a background flush hit, kept for `Graph::flush`.
    bg_error: Mutex<Option<Error>>,
    /// Background flush threads that may still run (a finished flush's
    /// thread can linger for its clean-up while the next flush runs).
    workers: Mutex<Vec<std::thread::JoinHandle<()>>>,
    /// Set when the store closes (`Store::close`): lingering threads stop.
    closing: AtomicBool,
    /// Edge versions written before the latest flush began (`written`
    /// counts the rest), for write amplification.
    flushed_versions: AtomicU64,
    /// Bytes of level files (runs) written by flushes and compactions.
    level_bytes_written: AtomicU64,
    /// Writers that waited for a flush, and how long in total.
    stalls: AtomicU64,
    stall_nanos: AtomicU64,
    /// What earlier sessions of an on-disk store did (its manifest's
    /// totals when it was opened); the counters above add this session.
    earlier: Totals,
    /// On disk: the vertex table as of `last_cut`, for the manifest
    /// (captured by the flush that set the cut, while a registered
    /// snapshot kept that state readable).
    durable_vertices: Mutex<DurableVertices>,
    /// On disk: the properties file the manifest names (`None`: no label
    /// or property was ever kept).
    durable_props: Mutex<Option<PropsFile>>,
    /// On disk: what the vertex file holds (appended to under the manifest
    /// lock before each manifest write).
    vertex_file: Mutex<vertex_file::Written>,
}

/// A registration that holds the watermark at or below its timestamp while
/// a flush reads the state there (writers must not prune versions the flush
/// has yet to copy). Unlike a snapshot it never makes a commit fail for its
/// age: see `Store::stamping`.
struct Pin<'c> {
    clock: &'c crate::version::Clock,
    ts: Timestamp,
}

impl<'c> Pin<'c> {
    fn new(clock: &'c crate::version::Clock) -> Self {
        Pin {
            clock,
            ts: clock.pin(),
        }
    }
}

impl Drop for Pin<'_> {
    fn drop(&mut self) {
        self.clock.unpin(self.ts);
    }
}

impl LsmState {
    /// The state of a store reopened with runs up to `last_cut` and run
    /// files numbered below `next_run`.
    pub(crate) fn resume(manifest: &Manifest) -> LsmState {
        LsmState {
            last_cut: AtomicU64::new(manifest.last_ts),
            runs: AtomicU64::new(manifest.next_run),
            durable_vertices: Mutex::new(DurableVertices::listed(&manifest.vertices)),
            durable_props: Mutex::new(manifest.props),
            // A manifest that lists its ids (version 5 and before) has no
            // vertex file yet: the next manifest write starts one.
            vertex_file: Mutex::new(match manifest.vertices.ids {
                VertexIds::File { bytes } => vertex_file::Written {
                    ids: manifest.vertices.len,
                    bytes,
                },
                VertexIds::Listed(_) => vertex_file::Written::default(),
            }),
            earlier: manifest.totals,
            ..LsmState::default()
        }
    }

    /// Flush-related counters for `Stats`.
    pub(crate) fn pending_cleanups(&self) -> usize {
        self.pending.lock().len()
    }

    /// How far writers may prune and re-base MemGraph versions, if less
    /// than the watermark allows. A version re-based past a cut reads as
    /// "at or before the new base", so neither `drop_upto` nor the next
    /// flush can tell whether that cut's run holds it: it would stay in
    /// the MemGraph, and be written again, until a later cut passes the
    /// base. Stopping at the newest cut not yet cleaned up keeps every
    /// flushed version droppable; once the clean-up is done, the limit
    /// goes, so a MemGraph that never flushes still prunes to the
    /// watermark.
    pub(crate) fn prune_horizon(&self) -> Option<Timestamp> {
        match self.unclean_cut.load(Ordering::Acquire) {
            0 => None,
            cut => Some(cut),
        }
    }

    /// Sets `unclean_cut` to the newest cut still waiting for its
    /// clean-up. The caller holds the flush lock, so no flush is running.
    fn refresh_horizon(&self) {
        let pending = self.pending.lock();
        let newest = pending.last().map_or(0, |p| p.0);
        self.unclean_cut.store(newest, Ordering::Release);
    }

    /// The properties file the manifest names, if any.
    pub(crate) fn props_file(&self) -> Option<PropsFile> {
        *self.durable_props.lock()
    }

    /// A fresh id for a run or level part (its file names).
    pub(crate) fn next_run_id(&self) -> u64 {
        self.runs.fetch_add(1, Ordering::Relaxed)
    }

    /// What this session did (`log_bytes`: what it appended to the log).
    pub(crate) fn session(&self, log_bytes: u64) -> Totals {
        Totals {
            versions: self.flushed_versions.load(Ordering::Relaxed)
                + self.written.load(Ordering::Relaxed) as u64,
            log_bytes,
            level_bytes_written: self.level_bytes_written.load(Ordering::Relaxed),
            flushes: self.flushes.load(Ordering::Relaxed),
            compactions: self.compactions.load(Ordering::Relaxed),
            stalls: self.stalls.load(Ordering::Relaxed),
            stall_nanos: self.stall_nanos.load(Ordering::Relaxed),
        }
    }

    /// `session` added to the earlier sessions': the store's work since
    /// it was created.
    pub(crate) fn lifetime(&self, session: &Totals) -> Totals {
        self.earlier.plus(session)
    }
}

/// Counts `versions` MemGraph writes and starts a background flush when the
/// MemGraph's heap bytes (`MemGraph::bytes`, less what open snapshots pin)
/// reach its budget, `Options::memgraph_bytes`. A writer stalls (after its
/// commit, holding no lock) only when a flush is already running and the
/// MemGraph has grown past twice its budget: writes are outrunning
/// flushes, and waiting keeps the MemGraph within twice its budget.
pub(crate) fn note_writes(store: &Arc<Store>, versions: usize) {
    let lsm = &store.lsm;
    lsm.written.fetch_add(versions, Ordering::Relaxed);
    // The blind inserts waiting leave with the next flush too.
    let bytes = (store.mem.bytes() + store.blind.bytes())
        .saturating_sub(lsm.pinned_bytes.load(Ordering::Relaxed));
    if bytes < store.opts.memgraph_bytes || store.recovering() {
        return;
    }
    if lsm.scheduled.swap(true, Ordering::AcqRel) {
        if bytes >= store.opts.memgraph_bytes.saturating_mul(2) {
            stall(lsm);
        }
        return;
    }
    let store = Arc::clone(store);
    let spawned = std::thread::Builder::new()
        .name("stratagraph-flush".into())
        .spawn(move || {
            if let Err(e) = flush(&store) {
                store.lsm.bg_error.lock().get_or_insert(e);
            }
            // Compaction is asked for before the flush counts as done, so
            // `wait_idle` never sees neither running in between.
            schedule_compaction(&store);
            store.lsm.scheduled.store(false, Ordering::Release);
            settle_deferred_if_due(&store);
            linger(&store);
        });
    // No thread to be had: the next write tries again.
    keep_worker(lsm, spawned, &lsm.scheduled);
}

/// Keeps a background thread's handle for `join_worker`; if no thread
/// could be started, clears its `running` flag so the next caller retries.
fn keep_worker(
    lsm: &LsmState,
    spawned: std::io::Result<std::thread::JoinHandle<()>>,
    running: &AtomicBool,
) {
    match spawned {
        Ok(handle) => {
            let mut workers = lsm.workers.lock();
            workers.retain(|h| !h.is_finished());
            workers.push(handle);
        }
        Err(_) => running.store(false, Ordering::Release),
    }
}

/// Waits until the running background flush is done, counting the stall
/// as it starts (a writer held up for good, behind a flush that waits for
/// compaction, shows in `Stats::stalls` at once) and its time when it ends.
fn stall(lsm: &LsmState) {
    let start = std::time::Instant::now();
    lsm.stalls.fetch_add(1, Ordering::Relaxed);
    while lsm.scheduled.load(Ordering::Acquire) {
        std::thread::sleep(std::time::Duration::from_micros(100));
    }
    let nanos = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
    lsm.stall_nanos.fetch_add(nanos, Ordering::Relaxed);
}

/// After a background flush: the versions it wrote stay in the MemGraph
/// until every older `Layers` is dropped, and every read of their vertices
/// merges them with their flushed copies until then. Commits and batches
/// that were in flight during the flush let go of the old layers within
/// moments, so the thread waits for that (a second at most, without the
/// flush lock, so the next flush is never held up) and cleans up as soon
/// as it can. An old snapshot may hold the layers for good; then the next
/// flush cleans up.
fn linger(store: &Store) {
    let lsm = &store.lsm;
    let start = std::time::Instant::now();
    while !lsm.closing.load(Ordering::Acquire)
        && start.elapsed() < std::time::Duration::from_secs(1)
    {
        if lsm.pending.lock().is_empty() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
        if a_cut_is_ready(lsm) {
            if let Some(_one) = lsm.flushing.try_lock() {
                clean_up(store);
            }
        }
    }
}

/// Waits until no background flush or compaction is running, then drops
/// from the MemGraph the flushed versions no holder of older layers still
/// needs (`Graph::wait_idle`). A clean-up a held snapshot blocks stays
/// pending.
pub(crate) fn wait_idle(store: &Store) {
    let lsm = &store.lsm;
    while lsm.scheduled.load(Ordering::Acquire) || lsm.compactor.load(Ordering::Acquire) {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    // A lingering thread may be between its polls: the flush lock waits
    // for a clean-up in progress, and this one takes what is ready.
    let _one = lsm.flushing.lock();
    clean_up(store);
}

/// Stops background work and waits for its threads: called by
/// `Store::close`, so the close work runs on the closing thread alone and
/// a reopen right after finds the store closed.
pub(crate) fn join_worker(store: &Store) {
    store.lsm.closing.store(true, Ordering::Release);
    // A flush thread joined here may have started a compaction thread
    // just before it saw `closing`: join until none is left.
    loop {
        let handles = std::mem::take(&mut *store.lsm.workers.lock());
        if handles.is_empty() {
            return;
        }
        for h in handles {
            let _ = h.join();
        }
    }
}

/// The error a background flush hit, if any (taken: reported once).
pub(crate) fn take_background_error(store: &Store) -> Option<Error> {
    store.lsm.bg_error.lock().take()
}

/// Flushes everything committed so far into a new run, then cleans up what
/// it can. Returns whether a run was written (nothing new: no run).
pub(crate) fn flush(store: &Store) -> Result<bool> {
    let lsm = &store.lsm;
    let _one = lsm.flushing.lock();
    // Each clean-up visits every vertex holding a slot, so a flush makes
    // one (at its end) unless an earlier flush's versions can go first.
    if a_cut_is_ready(lsm) {
        clean_up(store);
    }
    wait_for_room_in_l0(store);
    let pin = Pin::new(&store.clock);
    let cut = pin.ts;
    let from = lsm.last_cut.load(Ordering::Acquire);
    if cut <= from {
        drop(pin);
        clean_up(store);
        return Ok(false);
    }
    // The pin holds the watermark at or below the cut until the run is
    // written; from then on this keeps writers from re-basing past it.
    lsm.unclean_cut.store(cut, Ordering::Release);
    if let Some(log) = store.log() {
        // Every commit up to the cut is published, hence logged: after
        // this they are all in sealed segments, which the manifest written
        // below makes redundant.
        log.rotate()?;
    }
    let written = lsm.written.swap(0, Ordering::Relaxed);
    lsm.flushed_versions
        .fetch_add(written as u64, Ordering::Relaxed);
    let watermark = store.clock.watermark().min(cut);
    let bound = store.ids.bound();
    // Versions up to `from` are in earlier runs (and may still sit in the
    // MemGraph when an old snapshot holds back the clean-up).
    let span = (from, cut);
    let code = Encoding::flush(&store.opts);
    // The sources below the run, whose latest state completes the lists
    // of the vertices written as pivots (`crate::pivot`).
    let below = store.layers.read().clone();
    let plan = Plan::for_flush(&store.opts, &below, bound);
    let side = |dir: Direction| {
        let wants = |v: u32| plan.pivots(&store.sketch, v);
        // Out-lists only: they are what a neighbour look-up reads and what
        // the cost model prices; a directed graph's in-lists mirror them.
        let pivots = (plan != Plan::Deltas && dir == Direction::Out).then_some(Pivots {
            below: &below,
            wants: &wants,
            // About 16 bytes a copy while the run is built: at most the
            // MemGraph's budget again.
            budget: store.opts.memgraph_bytes / 16,
        });
        flush_direction(&store.mem, bound, dir, watermark, span, code, pivots)
    };
    let out = side(Direction::Out)?;
    let inn = if store.opts.directed {
        Some(side(Direction::In)?)
    } else {
        None
    };
    drop(below);
    let vertices = store.home.is_some().then(|| capture_vertices(store, cut));
    let props = write_props(store, cut)?;
    drop(pin);
    if out.is_empty() && inn.as_ref().is_none_or(SegmentWriter::is_empty) {
        // Only vertex, label or property changes since the last run: the
        // manifest and the properties file hold them. (A blind insert the
        // MemGraph keeps past the cut is deferred here all the same.)
        defer_and_publish(store, cut, || ());
        {
            let _m = lsm.manifest.lock();
            set_durable(lsm, cut, vertices);
            let replaced = set_durable_props(lsm, props);
            lsm.refresh_horizon();
            persist_locked(store, &[])?;
            remove_props_file(store, replaced);
        }
        // Slots of vertices only created or deleted go back here.
        clean_up(store);
        return Ok(false);
    }
    let run = {
        let id = lsm.next_run_id();
        let out = store_run_side(store, out, bound, id, Direction::Out)?;
        let inn = inn
            .map(|w| store_run_side(store, w, bound, id, Direction::In))
            .transpose()?;
        Arc::new(FlushedRun { id, out, inn, cut })
    };
    {
        let _m = lsm.manifest.lock();
        // The blind inserts up to the cut are deferred with the levels
        // without this run, which is published before anyone else may
        // settle (`blind.rs`).
        defer_and_publish(store, cut, || {
            let mut current = store.layers.write();
            let mut runs = vec![run];
            runs.extend(current.runs.iter().cloned());
            let next = Layers::new(runs, current.levels.clone());
            let old = std::mem::replace(&mut *current, Arc::new(next));
            let mut retired = lsm.retired.lock();
            retired.retain(|w| w.strong_count() > 0);
            retired.push(Arc::downgrade(&old));
            lsm.pending.lock().push((cut, retired.clone()));
        });
        set_durable(lsm, cut, vertices);
        let replaced = set_durable_props(lsm, props);
        persist_locked(store, &[])?;
        remove_props_file(store, replaced);
    }
    lsm.flushes.fetch_add(1, Ordering::Relaxed);
    // Commits and batches in flight hold the old layers for a moment; wait
    // for them (briefly, and not at all while snapshots are open: one may
    // hold them for good) so the flushed versions leave the MemGraph now
    // rather than at the next flush, and reads do not merge them with their
    // own copies until then. One clean-up then, ready or not: it also gives
    // back the slots of vertices with nothing left to flush.
    for _ in 0..20 {
        if store.clock.open_snapshots() > 0 || a_cut_is_ready(lsm) {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    clean_up(store);
    Ok(true)
}

/// Whether the oldest flush waiting for a clean-up has no holder of older
/// layers left, so a clean-up now would drop its versions.
fn a_cut_is_ready(lsm: &LsmState) -> bool {
    lsm.pending
        .lock()
        .first()
        .is_some_and(|(_, older)| older.iter().all(|w| w.strong_count() == 0))
}

/// Defers the blind inserts up to `cut` with a copy of the current levels
/// to settle them against later, then runs `publish` (a flush's new
/// `Layers`) before anyone else may settle, and folds the re-weights every
/// snapshot now subtracts. The copy is not one of the store's `Layers`, so
/// holding it keeps no flushed version in the MemGraph (`clean_up`).
fn defer_and_publish(store: &Store, cut: Timestamp, publish: impl FnOnce()) {
    let mut settler = store.blind.settler();
    settler.defer_upto(cut, || {
        let current = store.layers.read();
        Arc::new(Layers::new(current.runs.clone(), current.levels.clone()))
    });
    publish();
    settler.fold_upto(store.clock.watermark());
}

/// Most flushes whose blind inserts wait for one settling pass: each holds
/// the segments its levels had, which compaction may have replaced since.
const DEFERRED_FLUSHES: usize = 16;

/// Settles the blind inserts flushes deferred once they take the
/// MemGraph's budget or come from `DEFERRED_FLUSHES` flushes: the
/// background flush thread's last step, off the writers' path (the next
/// flush may start meanwhile), and the compaction thread's before it
/// publishes a step. Deferred inserts are memory outside the MemGraph's
/// budget, so they are held to one budget more: a memory cap sized for the
/// budget had no room for twice that beside it at k24 (`bench/NOTES.md`,
/// session 53). Both threads wait for a pass in progress, and the
/// compaction thread's wait is what holds writers back when passes fall
/// behind flushes (compaction, then flushes, wait); passes skipped while
/// one ran let the deferred inserts grow past three budgets and a k24
/// load under a cap was killed (`bench/NOTES.md`, session 54).
pub(crate) fn settle_deferred_if_due(store: &Store) {
    if store.blind.deferred_bytes() == 0 {
        return;
    }
    let due = store.blind.deferred_bytes() >= store.opts.memgraph_bytes
        || store.blind.settler().deferred_flushes() >= DEFERRED_FLUSHES;
    if due {
        store.settle_deferred();
    }
}

/// Keeps flushes and clean-ups from starting (and waits for a running one)
/// while a bulk load decides on and installs its level. Take it after the
/// writers' gate: a writer can stall on a flush while holding the gate.
pub(crate) fn hold_flushes(store: &Store) -> parking_lot::MutexGuard<'_, ()> {
    store.lsm.flushing.lock()
}

/// Folds the existence layers of batches no snapshot can tell apart any
/// more into the MemGraph's bits (`mem::Fresh`), as a clean-up does, if no
/// flush or clean-up runs now (one that does folds them itself).
pub(crate) fn fold_existence(store: &Store) {
    if let Some(_one) = store.lsm.flushing.try_lock() {
        store
            .mem
            .fold_fresh(store.clock.watermark(), store.ids.bound());
    }
}

/// Puts the levels built straight from a batch (`batch::bulk`) in place (one
/// filled level, the one its size calls for) and publishes the batch's
/// timestamp, both under the layers' write lock: the parts' entries carry
/// no stamps, and `Snapshot::open` reads the clock under the read lock, so
/// a snapshot gets the load together with the batch's timestamp or
/// neither.
///
/// The caller holds the writers' gate exclusively and `hold_flushes`, and
/// found no edge version anywhere (no runs, no levels, none in the
/// MemGraph): the load hides nothing, and no MemGraph version needs a
/// clean-up after it. `entries` counts its versions.
///
/// On disk the manifest written here is what makes the batch durable (it
/// is not logged). If writing it fails, the batch stays applied in memory,
/// as a commit whose log sync failed does, and the log refuses every later
/// write, so nothing is logged on top of a batch the disk lacks.
pub(crate) fn install_bulk_level(
    store: &Store,
    levels: Vec<Level>,
    ticket: crate::version::Ticket<'_>,
    added: (i64, i64),
    entries: u64,
) -> Result<Timestamp> {
    let lsm = &store.lsm;
    let cut = ticket.ts();
    let vertices = store.home.is_some().then(|| capture_vertices(store, cut));
    let _m = lsm.manifest.lock();
    let ts = {
        let mut current = store.layers.write();
        let next = Layers::new(Vec::new(), levels);
        if store.sketches_degrees() {
            store.sketch.seed(&next);
        }
        let old = std::mem::replace(&mut *current, Arc::new(next));
        // Holders of the old layers lack this load as they lack any later
        // flush's; that flush's clean-up must wait for them too.
        let mut retired = lsm.retired.lock();
        retired.retain(|w| w.strong_count() > 0);
        retired.push(Arc::downgrade(&old));
        ticket.publish(added.0, added.1)
    };
    lsm.flushed_versions.fetch_add(entries, Ordering::Relaxed);
    set_durable(lsm, cut, vertices);
    match persist_locked(store, &[]) {
        Ok(()) => Ok(ts),
        Err(e) => Err(match store.log() {
            Some(log) => log.fail(e),
            None => e,
        }),
    }
}

/// Most L0 runs before flushes wait for the compaction thread: every read
/// of a vertex looks into each run, so L0 must not grow without bound when
/// writes outrun compaction.
const L0_STOP: usize = 3 * L0_RUNS;

/// Waits while L0 is at `L0_STOP` runs and the compaction thread is
/// working on it (writers then stall behind the flush, and are counted).
fn wait_for_room_in_l0(store: &Store) {
    let lsm = &store.lsm;
    while store.layers.read().runs.len() >= L0_STOP
        && lsm.compactor.load(Ordering::Acquire)
        && !lsm.closing.load(Ordering::Acquire)
    {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// Records that everything up to `cut` is in runs, with the vertex table
/// as of `cut` for on-disk stores. The caller holds the manifest lock.
fn set_durable(lsm: &LsmState, cut: Timestamp, vertices: Option<DurableVertices>) {
    if let Some(v) = vertices {
        *lsm.durable_vertices.lock() = v;
    }
    lsm.last_cut.store(cut, Ordering::Release);
}

/// Writes (written, synced, renamed) the properties file of `cut` if a
/// label or property changed since the file the manifest names; on-disk
/// stores only. The caller holds the watermark at or below `cut`.
///
/// The file holds every label and property as of the cut, so one file is
/// all a store needs; it is rewritten whole when something changed,
/// which costs time in proportion to the properties at each flush (fine
/// while they live in memory anyway; see `docs/FORMAT.md` §6).
fn write_props(store: &Store, cut: Timestamp) -> Result<Option<PropsFile>> {
    let Some(dir) = store.home.as_deref() else {
        return Ok(None);
    };
    let since = store.lsm.durable_props.lock().map_or(0, |p| p.cut);
    if !store.props.changed_after(since) && !store.keys.is_dirty() {
        return Ok(None);
    }
    let id = store.lsm.next_run_id();
    // Every key given before the log rotated is in the file, so the
    // segments this flush retires hold no key only they know.
    let keys = store.keys.snapshot_for_file();
    let bytes = props_file::encode(&props_file::Contents {
        cut,
        indexes: store.props.index_names(),
        vertices: store.props.state_at(cut),
        next_edge: store.props.edges.peek_next(),
        edges: store.props.edge_state_at(cut),
        keys,
    });
    write_atomically(&props_file::path(dir, id), |f| {
        f.write_all(&bytes).map_err(|e| (e, "write"))
    })
    .inspect_err(|_| store.keys.mark_dirty())?;
    store
        .lsm
        .level_bytes_written
        .fetch_add(bytes.len() as u64, Ordering::Relaxed);
    Ok(Some(PropsFile { id, cut }))
}

/// Makes `new` (if any) the properties file the next manifest names;
/// returns the one it replaces. The caller holds the manifest lock.
fn set_durable_props(lsm: &LsmState, new: Option<PropsFile>) -> Option<PropsFile> {
    let new = new?;
    lsm.durable_props.lock().replace(new)
}

/// Deletes a properties file no manifest names any more (best effort: a
/// leftover is an orphan the next open removes).
fn remove_props_file(store: &Store, old: Option<PropsFile>) {
    if let (Some(dir), Some(old)) = (store.home.as_deref(), old) {
        let path = props_file::path(dir, old.id);
        if hit(&path, FileOp::Remove).is_ok() {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Asks the compaction thread to bring the levels within their sizes,
/// starting it if it is not running. It runs steps until none is needed,
/// then looks once more for a request that came meanwhile.
fn schedule_compaction(store: &Arc<Store>) {
    let lsm = &store.lsm;
    // A closing store compacts on the closing thread (`flush_and_compact`);
    // a thread started now could outlive the last handle.
    if lsm.closing.load(Ordering::Acquire) {
        return;
    }
    lsm.compact_wanted.store(true, Ordering::Release);
    if lsm.compactor.swap(true, Ordering::AcqRel) {
        return; // the running thread will see the request
    }
    let owned = Arc::clone(store);
    let spawned = std::thread::Builder::new()
        .name("stratagraph-compact".into())
        .spawn(move || {
            let lsm = &owned.lsm;
            loop {
                while lsm.compact_wanted.swap(false, Ordering::AcqRel) {
                    if let Err(e) = compact_as_needed(&owned) {
                        lsm.bg_error.lock().get_or_insert(e);
                    }
                }
                lsm.compactor.store(false, Ordering::Release);
                // A request between the last look and the line above
                // found the thread still running: take it up.
                if !lsm.compact_wanted.load(Ordering::Acquire)
                    || lsm.compactor.swap(true, Ordering::AcqRel)
                {
                    return;
                }
            }
        });
    // No thread to be had: the next flush asks again.
    keep_worker(lsm, spawned, &lsm.compactor);
}

/// Runs compaction steps until L0 and every level are within their sizes
/// (or the store is closing).
fn compact_as_needed(store: &Store) -> Result<()> {
    let lsm = &store.lsm;
    let _one = lsm.compacting.lock();
    while !lsm.closing.load(Ordering::Acquire) {
        let layers = current_runs(store);
        let step = leveling::next_step(store, &layers, &mut lsm.cursors.lock())?;
        let Some(step) = step else {
            return Ok(());
        };
        // Settle what flushes deferred only once it is due, not before every
        // step: under a memory cap a pass reads most pages of every level,
        // the bottom one included, however few inserts it settles, and
        // passes as frequent as L0 steps took more of this thread's time
        // than the merges (`bench/NOTES.md`, session 52). A copy of
        // levels a step replaces stays right (`blind.rs`); its files live
        // until the pass.
        settle_deferred_if_due(store);
        publish(store, step)?;
    }
    Ok(())
}

/// The current runs and levels, as a private `Layers`: a compaction reads
/// only runs, so it must not hold the published `Layers` itself, which
/// would keep flushed versions in the MemGraph for its whole length (see
/// `clean_up`).
fn current_runs(store: &Store) -> Layers {
    let cur = store.layers.read();
    Layers::new(cur.runs.clone(), cur.levels.clone())
}

/// Makes a compaction step current, then writes the manifest and deletes
/// the files it replaced. The caller holds the compaction lock, so the
/// levels the step started from are still the current ones; runs flushed
/// since stay in L0.
fn publish(store: &Store, step: leveling::Step) -> Result<()> {
    let lsm = &store.lsm;
    let _m = lsm.manifest.lock();
    {
        let mut current = store.layers.write();
        let runs = current
            .runs
            .iter()
            .filter(|r| !step.consumed.contains(&r.id))
            .cloned()
            .collect();
        let old = std::mem::replace(&mut *current, Arc::new(Layers::new(runs, step.levels)));
        // Snapshots holding the old layers keep their segments alive; the
        // MemGraph is not touched, so no clean-up waits on this. But
        // holders of the replaced set will lack the next flush's run: its
        // clean-up must wait for them too. Recorded under the layers lock,
        // so a flush publishing next sees it.
        let mut retired = lsm.retired.lock();
        retired.retain(|w| w.strong_count() > 0);
        retired.push(Arc::downgrade(&old));
    }
    lsm.compactions.fetch_add(1, Ordering::Relaxed);
    persist_locked(store, &step.dropped)
}

/// One side of a flush's run, written out (`SegmentWriter::finish_file`
/// streams it, so a run spanning every vertex never has its whole image in
/// memory) and opened.
pub(crate) fn store_run_side(
    store: &Store,
    writer: SegmentWriter,
    hi: u32,
    id: u64,
    side: Direction,
) -> Result<Segment> {
    match &store.home {
        Some(dir) => {
            let path = RunFiles::path(dir, id, side);
            let len = writer.finish_file(hi, &path)?;
            store
                .lsm
                .level_bytes_written
                .fetch_add(len, Ordering::Relaxed);
            Segment::open(&path)
        }
        None => store_segment(store, writer.finish(hi)?, id, side),
    }
}

/// Makes a finished segment readable: in memory as is, on disk as a file
/// (written, synced, renamed into place) that is then memory-mapped.
pub(crate) fn store_segment(
    store: &Store,
    bytes: SegmentBytes,
    id: u64,
    side: Direction,
) -> Result<Segment> {
    store
        .lsm
        .level_bytes_written
        .fetch_add(bytes.len() as u64, Ordering::Relaxed);
    match &store.home {
        Some(dir) => {
            let path = RunFiles::path(dir, id, side);
            bytes.write_file(&path)?;
            Segment::open(&path)
        }
        None => Segment::from_bytes(bytes, format!("memory run {id} ({})", side.name())),
    }
}

/// `persist_locked` under the manifest lock.
pub(crate) fn persist(store: &Store, dropped: &[u64]) -> Result<()> {
    let _m = store.lsm.manifest.lock();
    persist_locked(store, dropped)
}

/// For an on-disk store: writes the manifest naming the current runs, the
/// flushed cut and the vertex table as of it, then deletes the files of
/// `dropped` runs (mapped ones stay readable for the snapshots that hold
/// them until they let go). The caller holds the manifest lock.
fn persist_locked(store: &Store, dropped: &[u64]) -> Result<()> {
    let Some(dir) = &store.home else {
        return Ok(());
    };
    let layers = store.layers.read().clone();
    let manifest = Manifest {
        directed: store.opts.directed,
        string_ids: store.opts.string_ids,
        last_ts: store.lsm.last_cut.load(Ordering::Acquire),
        next_run: store.lsm.runs.load(Ordering::Relaxed),
        // Set from `durable` below.
        vertices: VertexTable::default(),
        runs: layers
            .runs
            .iter()
            .map(|r| (0, r))
            .chain(
                layers
                    .levels
                    .iter()
                    .enumerate()
                    .flat_map(|(i, l)| l.parts().iter().map(move |p| (i as u8 + 1, p))),
            )
            .map(|(level, r)| RunFiles {
                id: r.id,
                cut: r.cut,
                has_in: r.inn.is_some(),
                level,
            })
            .collect(),
        totals: store
            .lsm
            .lifetime(&store.lsm.session(store.log().map_or(0, Wal::appended))),
        log: None,
        props: *store.lsm.durable_props.lock(),
    };
    let durable = store.lsm.durable_vertices.lock().clone();
    // The ids first, synced, so that no manifest names more of the vertex
    // file than it holds.
    let written = {
        let mut file = store.lsm.vertex_file.lock();
        *file = vertex_file::append(dir, *file, durable.len, |v| store.ids.external_settled(v))?;
        *file
    };
    let manifest = Manifest {
        log: store.log().map(|log| {
            log.live_segments(manifest.last_ts, durable.len)
                .into_iter()
                .map(|(number, sealed_len)| LogSegment { number, sealed_len })
                .collect()
        }),
        vertices: VertexTable {
            len: durable.len,
            ids: VertexIds::File {
                bytes: written.bytes,
            },
            dead: durable.dead,
        },
        ..manifest
    };
    manifest.write(dir)?;
    if let Some(log) = store.log() {
        if let Some(first) = manifest.log.as_ref().and_then(|l| l.first()) {
            log.retire(first.number)?;
        }
    }
    for &id in dropped {
        for side in [Direction::Out, Direction::In] {
            let path = RunFiles::path(dir, id, side);
            match hit(&path, FileOp::Remove).and_then(|()| std::fs::remove_file(&path)) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(crate::util::files::io_error(&path, "remove", &e)),
            }
        }
    }
    Ok(())
}

/// Removes the run files (and temporaries) in `dir` that its manifest does
/// not name: what a flush or compaction that failed part way left. Best
/// effort: a file that cannot be removed only wastes space, and the next
/// open removes it.
pub(crate) fn remove_unnamed_runs(dir: &std::path::Path) {
    if let Ok(Some(m)) = Manifest::read(dir) {
        remove_runs_except(dir, &m.run_paths(dir));
    }
}

/// Whether file `name` of a store directory is a level file or a temporary
/// of one or of the MANIFEST: the files a store removes when no manifest
/// names them.
pub(crate) fn is_run_or_temporary(name: &str) -> bool {
    (name.starts_with("run-") && (name.ends_with(".seg") || name.ends_with(".seg.tmp")))
        || props_file::is_props_file(name.strip_suffix(".tmp").unwrap_or(name))
        || name == format!("{}.tmp", crate::manifest::FILE)
}

/// Removes the run files and temporaries in `dir` not in `keep`.
pub(crate) fn remove_runs_except(
    dir: &std::path::Path,
    keep: &std::collections::HashSet<std::path::PathBuf>,
) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if is_run_or_temporary(&name) && !keep.contains(&path) && hit(&path, FileOp::Remove).is_ok()
        {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// The vertex table as of the durable cut, for the manifests written until
/// the next cut: how many ids were assigned by it and which did not exist
/// there. The external ids are the id map's, which never change, so they
/// are appended to the vertex file from it rather than kept twice.
#[derive(Debug, Default, Clone)]
pub(crate) struct DurableVertices {
    len: u32,
    /// The manifest's dead ranges (`VertexTable::dead`).
    dead: Vec<(u32, u32)>,
}

impl DurableVertices {
    /// The table a manifest read on open lists.
    fn listed(table: &VertexTable) -> Self {
        DurableVertices {
            len: table.len,
            dead: table.dead.clone(),
        }
    }
}

/// Every assigned id and its existence at `cut`. The caller holds the
/// flush lock (no clean-up runs) and keeps the watermark at or below `cut`
/// (or is alone with the store), so the vertex histories still answer for
/// it (`MemGraph::alive_words_at`).
fn capture_vertices(store: &Store, cut: Timestamp) -> DurableVertices {
    let len = store.ids.bound();
    DurableVertices {
        len,
        dead: VertexTable::dead_of_words(store.mem.alive_words_at(cut, len), len),
    }
}

/// After recovery replayed the log: makes what it replayed durable in level
/// files and a manifest, so the old log segments can go (with any torn
/// tail). The caller is alone with the store.
pub(crate) fn checkpoint(store: &Store) -> Result<()> {
    if flush(store)? {
        return compact_as_needed(store);
    }
    let _one = store.lsm.flushing.lock();
    let cut = store.clock.visible();
    let _m = store.lsm.manifest.lock();
    *store.lsm.durable_vertices.lock() = capture_vertices(store, cut);
    store.lsm.last_cut.fetch_max(cut, Ordering::AcqRel);
    persist_locked(store, &[])
}

/// A flush on the caller's thread (`Graph::flush`), with the compaction it
/// calls for done there too, so the store is settled when it returns.
pub(crate) fn flush_now(store: &Store) -> Result<bool> {
    let flushed = flush(store)?;
    compact_as_needed(store)?;
    Ok(flushed)
}

/// Flushes everything, merges all runs and levels into one level and
/// writes the manifest: what closing a store leaves on disk.
pub(crate) fn flush_and_compact(store: &Store) -> Result<()> {
    flush(store)?;
    let _one = store.lsm.compacting.lock();
    let layers = current_runs(store);
    let filled = layers.levels.iter().filter(|l| !l.is_empty()).count();
    // One level that every later snapshot reads plain is already the goal.
    let versioned = layers.all().any(|r| {
        [Direction::Out, Direction::In]
            .iter()
            .any(|&d| !r.seg(d).is_plain_at(u64::MAX))
    });
    if !layers.runs.is_empty() || filled > 1 || versioned {
        let step = leveling::compact_fully(store, &layers)?;
        publish(store, step)?;
    }
    persist(store, &[])?;
    match store.log() {
        Some(log) => log.sync_all(),
        None => Ok(()),
    }
}

/// Drops flushed versions from the MemGraph for every pending cut whose
/// older `Layers` are all gone (in order: a cut waits for the ones before).
fn clean_up(store: &Store) {
    // Dropping up to the newest ready cut covers the older ones too.
    let ready = {
        let mut pending = store.lsm.pending.lock();
        let n = pending
            .iter()
            .take_while(|(_, older)| older.iter().all(|w| w.strong_count() == 0))
            .count();
        let newest = n.checked_sub(1).map(|k| pending[k].0);
        pending.drain(..n);
        newest
    };
    // Slots of vertices with nothing left but a settled existence go back
    // whether or not a cut is ready: a store that only creates vertices
    // fills the MemGraph with them too.
    let watermark = store.clock.watermark();
    let bound = store.ids.bound();
    store.mem.fold_fresh(watermark, bound);
    // A slot taken while this runs holds only versions newer than any
    // ready cut, so missing it here (see `holders_below`) only leaves its
    // give-back to the next clean-up.
    for v in store.mem.holders_below(bound) {
        store.mem.clean(v, ready, watermark);
    }
    note_pinned(store);
    // Only now: a version re-based past `cut` before it was dropped would
    // have stayed.
    store.lsm.refresh_horizon();
}

/// After a clean-up: what the MemGraph holds for flushes still waiting
/// for snapshots to close (all of it, to be safe: the versions written
/// since the last cut are counted in, which only delays the next flush by
/// at most their size), or 0 when none waits.
fn note_pinned(store: &Store) {
    let waiting = !store.lsm.pending.lock().is_empty();
    let pinned = if waiting { store.mem.bytes() } else { 0 };
    store.lsm.pinned_bytes.store(pinned, Ordering::Relaxed);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Graph, Options};
    use std::time::{Duration, Instant};

    /// Polls `cond` for up to 20 s.
    fn eventually(what: &str, mut cond: impl FnMut() -> bool) {
        let start = Instant::now();
        while !cond() {
            assert!(
                start.elapsed() < Duration::from_secs(20),
                "timed out: {what}"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// The MemGraph's byte count, kept write by write, equals a walk of
    /// every vertex after a mix of writes of every kind: single inserts,
    /// re-weights and deletes (into lists that grow past a block and
    /// shrink), batches, vertex deletes, transactions that roll back, and
    /// flushes whose clean-up frees versions, with and without a snapshot
    /// holding them.
    #[test]
    fn the_memgraph_s_byte_count_equals_a_walk_of_its_vertices() {
        let g = Graph::in_memory(Options {
            memgraph_bytes: 1 << 30,
            ..Options::default()
        });
        let store = Arc::clone(g.store());
        let walk = || {
            let u = store.mem.usage(store.ids.bound());
            u.adjacency_bytes + u.slot_bytes
        };
        let mut x: u64 = 7;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for round in 0..6 {
            for _ in 0..3000 {
                let (s, d) = (next(40), next(2000));
                match next(10) {
                    0..=5 => drop(g.insert_edge(s, d, 1.0 + (next(3) as f64))),
                    6..=7 => drop(g.delete_edge(s, d)),
                    _ => drop(g.insert_edge(d, s, 1.0)),
                }
            }
            let batch: Vec<_> = (0..500).map(|_| (next(3000), next(3000), 1.0)).collect();
            g.insert_edges(&batch).unwrap();
            g.delete_vertex(next(40)).unwrap();
            let mut tx = g.begin();
            tx.insert_edge(1, 2, 5.0).unwrap();
            drop(tx);
            assert_eq!(store.mem.bytes(), walk(), "round {round}, before the flush");
            let held = (round % 2 == 0).then(|| g.snapshot());
            g.flush().unwrap();
            g.insert_edge(3, 4, 1.0).unwrap();
            assert_eq!(store.mem.bytes(), walk(), "round {round}, after the flush");
            drop(held);
        }
        g.flush().unwrap();
        assert_eq!(store.mem.bytes(), walk(), "at the end");
        assert!(walk() > 0 || store.mem.bytes() == 0);
    }

    /// The MemGraph's slots follow what it holds, not the graph: a flush's
    /// clean-up gives back the slots of vertices it no longer holds
    /// anything of (not while a snapshot holds the flushed versions), and
    /// every vertex keeps its existence, for old snapshots too.
    #[test]
    fn slots_go_back_after_a_flush_and_existence_stays() {
        let g = Graph::in_memory(Options {
            memgraph_bytes: 1 << 30,
            ..Options::default()
        });
        let slots = || g.stats().memory.slot_bytes;
        for v in 0..3000u64 {
            g.insert_edge(v, (v * 7 + 1) % 3000, 1.0).unwrap();
        }
        g.insert_vertex(5000).unwrap();
        g.delete_vertex(17).unwrap();
        assert!(slots() >= 3000 * 64);
        let held = g.snapshot();
        g.flush().unwrap();
        assert!(
            slots() >= 3000 * 64,
            "a snapshot holds the flushed versions"
        );
        drop(held);
        let before = g.snapshot();
        g.insert_edge(1, 2, 1.0).unwrap();
        g.flush().unwrap();
        assert_eq!(
            slots(),
            2 * 64,
            "all but the ends of the edge `before` holds"
        );
        let now = g.snapshot();
        for s in [&before, &now] {
            assert!(s.has_vertex(5000) && !s.has_vertex(17) && !s.has_vertex(6000));
            assert!((0..3000).filter(|&v| v != 17).all(|v| s.has_vertex(v)));
            assert_eq!(s.vertex_count(), 3000);
        }
        assert!(now.has_edge(1, 2) && !before.has_edge(1, 2));
        assert_eq!(now.edge_count(), 3000 - 2 + 1);
        // A vertex created and deleted again after that is seen as it was
        // by each snapshot, with or without a slot.
        g.insert_vertex(17).unwrap();
        let again = g.snapshot();
        g.flush().unwrap();
        assert!(!now.has_vertex(17) && again.has_vertex(17));
        drop((before, now, again));
        g.flush().unwrap();
        assert_eq!(slots(), 0, "every slot went back");
        assert!(g.snapshot().has_vertex(17) && g.snapshot().has_edge(1, 2));
    }

    /// Blind inserts of two flushes wait deferred, each with the levels
    /// below its own run: an edge new in the first flush and written again
    /// before the second is one re-weight, and the count says so, whether
    /// a count or a background pass settles them.
    #[test]
    fn deferred_blind_inserts_settle_against_their_own_flushes_levels() {
        for settle_in_background in [false, true] {
            let g = Graph::in_memory(Options::default());
            // Inserts into an empty store know they are new: not blind.
            g.insert_edge(7, 8, 1.0).unwrap();
            g.flush().unwrap();
            g.insert_edge(0, 1, 1.0).unwrap();
            g.insert_edge(0, 2, 1.0).unwrap();
            g.flush().unwrap();
            // (0, 1) lives in the first run only now (no snapshot holds
            // the MemGraph's copy): written again blind.
            g.wait_idle();
            g.insert_edge(0, 1, 2.0).unwrap();
            g.insert_edge(0, 3, 1.0).unwrap();
            let second = g.snapshot();
            g.flush().unwrap();
            let store = g.store();
            assert_eq!(store.blind.settler().deferred_flushes(), 2);
            if settle_in_background {
                store.settle_deferred();
                assert_eq!(store.blind.settler().deferred_flushes(), 0);
            }
            assert_eq!(second.edge_count(), 4);
            assert_eq!(g.snapshot().edge_count(), 4);
            let now = g.snapshot();
            let weights = [1, 2, 3].map(|d| now.weight(0, d));
            assert_eq!(weights, [Some(2.0), Some(1.0), Some(1.0)]);
        }
    }

    /// A compaction step leaves blind inserts deferred until they are due
    /// (a pass reads every level, so passes must be few), and counts stay
    /// exact against the copies of the levels the step replaced.
    #[test]
    fn a_compaction_step_settles_deferred_inserts_only_once_due() {
        let g = Graph::in_memory(Options::default());
        g.insert_edge(0, 1, 1.0).unwrap();
        g.flush().unwrap();
        // The last round's flush puts L0 past its size: a step merges it.
        let rounds = L0_RUNS as u64;
        for i in 0..rounds {
            g.wait_idle();
            // Both blind: a re-weight of an edge below, and a new edge.
            g.insert_edge(0, 1, 2.0 + i as f64).unwrap();
            g.insert_edge(1, 10 + i, 1.0).unwrap();
            g.flush().unwrap();
        }
        g.wait_idle();
        let store = g.store();
        // (A count settles: read the ledger first.)
        let deferred = store.blind.settler().deferred_flushes();
        assert!(store.layers.read().runs.is_empty(), "L0 went down");
        assert!(deferred > 0, "the step settled what was not yet due");
        assert_eq!(g.snapshot().edge_count(), 1 + rounds);
        assert_eq!(
            store.blind.settler().deferred_flushes(),
            0,
            "the count settled"
        );
        assert_eq!(g.snapshot().weight(0, 1), Some(2.0 + (rounds - 1) as f64));
    }

    /// Counts stay exact while blind inserts are deferred and settled by
    /// racing passes: a writer re-inserts and deletes edges of earlier
    /// flushes under a small MemGraph (a flush every few hundred writes),
    /// one thread settles deferred inserts in a loop, and readers compare
    /// every snapshot's count with the edges a scan of it finds.
    #[test]
    fn counts_stay_exact_while_passes_race_flushes_and_counts() {
        let g = Arc::new(Graph::in_memory(Options {
            memgraph_bytes: 64 << 10,
            ..Options::default()
        }));
        let stop = Arc::new(AtomicBool::new(false));
        let settler = {
            let (g, stop) = (Arc::clone(&g), Arc::clone(&stop));
            std::thread::spawn(move || {
                while !stop.load(Ordering::Relaxed) {
                    g.store().settle_deferred();
                    std::thread::yield_now();
                }
            })
        };
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (g, stop) = (Arc::clone(&g), Arc::clone(&stop));
                std::thread::spawn(move || {
                    let mut checked = 0;
                    while !stop.load(Ordering::Relaxed) || checked == 0 {
                        let s = g.snapshot();
                        let scanned: usize = s.vertices().map(|v| s.out_degree_of(v)).sum();
                        assert_eq!(s.edge_count(), scanned as u64, "at {}", s.timestamp());
                        checked += 1;
                    }
                    checked
                })
            })
            .collect();
        let mut x = 12345u64;
        for _ in 0..150_000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (a, b) = ((x >> 33) % 300, (x >> 13) % 300);
            if (x >> 60) == 0 {
                match g.delete_edge(a, b) {
                    Ok(_) | Err(crate::Error::EdgeNotFound { .. }) => {}
                    Err(e) => panic!("{e}"),
                }
            } else {
                g.insert_edge(a, b, 1.0).unwrap();
            }
        }
        stop.store(true, Ordering::Relaxed);
        settler.join().unwrap();
        for r in readers {
            assert!(r.join().unwrap() > 0);
        }
        let s = g.snapshot();
        let scanned: usize = s.vertices().map(|v| s.out_degree_of(v)).sum();
        assert_eq!(s.edge_count(), scanned as u64);
        assert!(g.stats().flushes > 10, "{} flushes", g.stats().flushes);
    }

    /// A bulk load creates its vertices without slots; a snapshot older
    /// than the load sees none of them.
    #[test]
    fn a_bulk_load_takes_no_slots_and_old_snapshots_see_no_vertex() {
        let g = Graph::in_memory(Options::default());
        g.insert_vertex(3).unwrap();
        g.flush().unwrap();
        let old = g.snapshot();
        let edges: Vec<_> = (0..200_000u64)
            .map(|i| (i % 5000, (i * 31 + 7) % 5003, 1.0))
            .collect();
        g.insert_edges(&edges).unwrap();
        assert_eq!(g.stats().memory.slot_bytes, 0, "no slot taken");
        assert!(
            g.store().layers.read().runs.is_empty(),
            "a level, not a run"
        );
        let new = g.snapshot();
        assert_eq!(old.vertex_count(), 1);
        assert!(old.has_vertex(3) && !old.has_vertex(4));
        assert!(new.has_vertex(3) && new.has_vertex(4) && new.has_vertex(5002));
        assert_eq!(new.vertex_count(), 5003);
        drop((old, new));
        g.insert_edge(9000, 1, 1.0).unwrap();
        g.flush().unwrap();
        let s = g.snapshot();
        assert_eq!(s.vertex_count(), 5004);
        assert_eq!(g.stats().memory.slot_bytes, 0);
    }

    /// A large `insert_vertices` batch takes no slots either; the vertices
    /// it created keep their own history once written.
    #[test]
    fn many_vertices_at_once_take_no_slots() {
        let g = Graph::in_memory(Options::default());
        g.insert_vertices(&[1, 2]).unwrap();
        let old = g.snapshot();
        let many: Vec<u64> = (0..40_000).map(|v| v * 3).collect();
        g.insert_vertices(&many).unwrap();
        assert_eq!(
            g.stats().memory.slot_bytes,
            2 * 64,
            "only the small batch's"
        );
        let all = g.snapshot();
        assert_eq!((old.vertex_count(), all.vertex_count()), (2, 40_002));
        assert!(!old.has_vertex(3) && all.has_vertex(3) && all.has_vertex(119_997));
        g.delete_vertex(3).unwrap();
        g.insert_edge(6, 9, 1.0).unwrap();
        let after = g.snapshot();
        assert!(all.has_vertex(3) && !after.has_vertex(3) && after.has_edge(6, 9));
        drop((old, all, after));
        g.flush().unwrap();
        assert_eq!(g.stats().memory.slot_bytes, 0);
        let s = g.snapshot();
        assert_eq!(s.vertex_count(), 40_001);
        assert!(!s.has_vertex(3) && s.has_vertex(0) && s.has_edge(6, 9));
    }

    /// While a compaction runs (here: the test holds its lock), background
    /// flushes go on and L0 grows past its size; at `L0_STOP` runs flushes
    /// wait, and writers stall behind them; once compaction can run, it
    /// brings L0 back within its size and nothing written is lost.
    #[test]
    fn flushes_go_on_while_a_compaction_runs() {
        let g = Graph::in_memory(Options {
            memgraph_bytes: 4 << 10,
            ..Options::default()
        });
        let store = Arc::clone(g.store());
        let runs = || store.layers.read().runs.len();
        let compaction = store.lsm.compacting.lock();
        let writer = {
            let g = g.clone();
            std::thread::spawn(move || {
                for i in 0..20_000u64 {
                    g.insert_edge(i % 997, i, 1.0).unwrap();
                }
            })
        };
        eventually("L0 grows past its size", || runs() > L0_RUNS);
        eventually("flushes wait at L0_STOP runs", || {
            runs() >= L0_STOP && g.stats().stalls > 0
        });
        assert_eq!(runs(), L0_STOP, "no flush got past the stop");
        assert_eq!(g.stats().compactions, 0);
        drop(compaction);
        writer.join().unwrap();
        eventually("compaction catches up", || {
            !store.lsm.compactor.load(Ordering::Acquire) && runs() <= L0_RUNS
        });
        assert!(g.stats().compactions > 0);
        let s = g.snapshot();
        assert_eq!(s.edge_count(), 20_000);
        assert_eq!(s.out_degree(5).unwrap(), 20_000 / 997 + 1);
    }

    /// After `wait_idle` nothing runs in the background, L0 is within its
    /// size and the MemGraph holds only what the last flush did not take.
    #[test]
    fn wait_idle_leaves_a_settled_store() {
        let g = Graph::in_memory(Options {
            memgraph_bytes: 4 << 10,
            ..Options::default()
        });
        for i in 0..30_000u64 {
            g.insert_edge(i % 1013, i, 1.0).unwrap();
        }
        g.wait_idle();
        let store = g.store();
        assert!(!store.lsm.scheduled.load(Ordering::Acquire));
        assert!(!store.lsm.compactor.load(Ordering::Acquire));
        assert!(store.layers.read().runs.len() <= L0_RUNS);
        let stats = g.stats();
        assert_eq!(stats.pending_cleanups, 0);
        assert!(stats.flushes > 10 && stats.compactions > 0);
        let cut = store.lsm.last_cut.load(Ordering::Acquire);
        // Two versions (out and in) per commit after the last cut.
        let after = 2 * (stats.timestamp - cut) as usize;
        assert_eq!(stats.memory.entries, after);
        assert_eq!(g.snapshot().edge_count(), 30_000);
    }

    /// A batch that rebuilds a vertex's list re-bases its versions, and a
    /// version re-based past a cut no longer tells whether that cut's run
    /// holds it. While the cut's clean-up waits (here: for a commit in
    /// flight, which holds the old layers but not the watermark), re-basing
    /// must stop at the cut, or the flushed versions stay in the MemGraph
    /// until the next flush and are written to its run a second time.
    #[test]
    fn a_pending_clean_up_keeps_flushed_versions_droppable() {
        let g = Graph::in_memory(Options::default());
        let fan: Vec<_> = (1..=400u64).map(|d| (0, d, 1.0)).collect();
        g.insert_edges(&fan).unwrap();
        let store = Arc::clone(g.store());
        let in_flight = store.layers.read().clone();
        g.flush().unwrap();
        assert_eq!(g.stats().pending_cleanups, 1, "the held layers block it");
        // The watermark moves past the cut, then a batch rebuilds vertex
        // 0's list (30 writes into 400 entries take the rebuild path).
        g.insert_edge(5, 6, 1.0).unwrap();
        let more: Vec<_> = (1000..1030u64).map(|d| (0, d, 1.0)).collect();
        g.insert_edges(&more).unwrap();
        drop(in_flight);
        g.wait_idle();
        let stats = g.stats();
        assert_eq!(stats.pending_cleanups, 0);
        // Out and in versions of the two commits after the cut only.
        assert_eq!(stats.memory.entries, 2 + 2 * 30);
        assert_eq!(g.snapshot().out_degree(0).unwrap(), 430);
    }

    /// A flush's pin holds the watermark but never makes a commit fail,
    /// while an equally old snapshot does (the window is the callers').
    #[test]
    fn a_flush_pin_older_than_the_window_does_not_refuse_commits() {
        let g = Graph::in_memory(Options {
            stamp_window: 4,
            ..Options::default()
        });
        let store = g.store();
        let pin = Pin::new(&store.clock);
        for i in 0..20u64 {
            g.insert_edge(i, i + 1, 1.0).unwrap();
            g.insert_edge(i, i + 1, 2.0).unwrap(); // an old version to keep
        }
        assert_eq!(store.clock.watermark(), pin.ts, "the pin holds it");
        drop(pin);
        let s = g.snapshot();
        assert_eq!(s.edge_count(), 20);
        let old = g.snapshot();
        for i in 0..3u64 {
            g.insert_edge(100 + i, 0, 1.0).unwrap();
        }
        let err = g.insert_edge(200, 0, 1.0).unwrap_err();
        assert!(
            matches!(err, Error::SnapshotTooOld { snapshot_ts, .. } if snapshot_ts == old.timestamp())
        );
    }
}
