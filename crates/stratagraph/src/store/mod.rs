//! The store: the state one open graph shares between its handles,
//! transactions, snapshots and background threads, and the maintenance
//! that keeps it within its budget (`maintain`).
//!
//! `Store` sits below every public type: `Graph` (the handle), `WriteTxn`
//! and batches (the write path) and `Snapshot` (the read path) all hold an
//! `Arc<Store>`, and it knows none of them. It does no work when dropped:
//! whoever drops the last `Arc` (often a reader thread letting go of a
//! snapshot) must not find itself flushing or compacting a store. The
//! close work (flush, merge, manifest, log sync, releasing the directory)
//! runs in [`Store::close`], which `Graph::close` and the drop of the last
//! `Graph` handle call; afterwards the store refuses writes with
//! `Error::Closed`, and snapshots taken before keep reading the data they
//! hold (memory and mapped level files, which need no open file handle).

pub mod checkpoint;
pub(crate) mod maintain;
mod settle;

use crate::blind::BlindLedger;
use crate::conflict::Conflicts;
use crate::csr::SegmentBytes;
use crate::direction::Direction;
use crate::error::{Error, Result};
use crate::ids::IdMap;
use crate::keys::Keys;
use crate::lsm::layers::{FlushedRun, Layers};
use crate::lsm::LevelSink;
use crate::mem::{MemGraph, Stamping};
use crate::options::{Options, UpdatePolicy, MAX_THREADS};
use crate::pivot::DegreeSketch;
use crate::props::PropStore;
use crate::util::dir_lock::DirLock;
use crate::version::{Clock, Timestamp};
use crate::wal::Wal;
use maintain::LsmState;
use parking_lot::{Mutex, RwLock};
use settle::live_below;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// State shared by a graph's handles, transactions and snapshots.
pub(crate) struct Store {
    pub opts: Options,
    pub ids: IdMap,
    /// The vertex keys of a store that names vertices by strings.
    pub keys: Keys,
    pub mem: MemGraph,
    pub clock: Clock,
    /// Transactions hold it shared while committing; batches and `close`
    /// exclusively.
    pub writers: RwLock<()>,
    /// What recent commits wrote, for transactions' conflict checks.
    pub conflicts: Conflicts,
    /// Inserts written without looking below the MemGraph, until the
    /// count knows whether each was new (`blind.rs`).
    pub blind: BlindLedger<Arc<Layers>>,
    /// Vertex labels and properties.
    pub props: PropStore,
    /// Each vertex's degree, estimated, for the adaptive update policy
    /// (`crate::pivot`); stepped only under that policy.
    pub sketch: DegreeSketch,
    /// The flushed runs below the MemGraph; replaced whole by each flush.
    pub layers: RwLock<Arc<Layers>>,
    pub lsm: LsmState,
    /// The directory of an on-disk store (`None`: in memory).
    pub home: Option<PathBuf>,
    /// The write-ahead log of an on-disk store, attached once recovery is
    /// done (recovery's own re-applied commits are not logged again).
    pub wal: OnceLock<Arc<Wal>>,
    /// Held (locked) while the store is open, so a second open is refused;
    /// taken and dropped by `close`.
    dir_lock: Mutex<Option<DirLock>>,
    /// Set by `close` (under the writers' gate): no write starts after it.
    closed: AtomicBool,
    /// Set once a read-only store has replayed its log (`Options::read_only`),
    /// to the number of log segments it read: no write or maintenance starts
    /// after it, and `close` writes nothing.
    read_only: OnceLock<usize>,
    pool: Option<rayon::ThreadPool>,
    /// Compaction's merges (`Options::compaction_threads`), built on the
    /// first compaction: most in-memory stores never need it.
    merge_pool: OnceLock<Option<rayon::ThreadPool>>,
}

/// A pool of `threads` workers (0: rayon's default count, one a core)
/// named `NAME-i`; `None` if the system would not start one.
fn build_pool(threads: usize, name: &'static str) -> Option<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads.min(MAX_THREADS))
        .thread_name(move |i| format!("{name}-{i}"))
        .build()
        .ok()
}

/// `f` on `pool` (the calling thread waits), or right here without one.
fn run_on<R: Send>(pool: Option<&rayon::ThreadPool>, f: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// The most commits a MemGraph stamp offset can span (31 bits, less one
/// value kept for saturation).
const MAX_STAMP_SPAN: u64 = (1 << 31) - 2;

impl Store {
    /// A store over the given parts; `home` is an on-disk store's directory
    /// and the locked file that keeps it ours (`None` for a read-only
    /// store whose directory has no `LOCK` file).
    pub(crate) fn new(
        opts: Options,
        ids: IdMap,
        keys: Keys,
        clock: Clock,
        layers: Layers,
        lsm: LsmState,
        home: Option<(PathBuf, Option<DirLock>)>,
    ) -> Store {
        let (home, dir_lock) = home.unzip();
        let dir_lock = dir_lock.flatten();
        // Always a pool of its own (0 threads: rayon's default count), so
        // no caller of a batch is ever one of the threads that run it (see
        // `batch::insert_edges`).
        let pool = build_pool(opts.threads, "stratagraph");
        let sketch = DegreeSketch::default();
        if matches!(opts.update_policy, UpdatePolicy::Adaptive { .. }) {
            sketch.seed(&layers);
        }
        Store {
            opts,
            ids,
            keys,
            mem: MemGraph::new(),
            clock,
            writers: RwLock::new(()),
            conflicts: Conflicts::default(),
            blind: BlindLedger::default(),
            props: PropStore::default(),
            sketch,
            layers: RwLock::new(Arc::new(layers)),
            lsm,
            home,
            wal: OnceLock::new(),
            dir_lock: Mutex::new(dir_lock),
            closed: AtomicBool::new(false),
            read_only: OnceLock::new(),
            pool,
            merge_pool: OnceLock::new(),
        }
    }

    /// Whether writes step the degree sketch (the adaptive update policy).
    #[inline]
    pub(crate) fn sketches_degrees(&self) -> bool {
        matches!(self.opts.update_policy, UpdatePolicy::Adaptive { .. })
    }

    /// Steps the degree sketch for a new edge `s -> d` at `ts`: `s`'s
    /// out-degree (an undirected graph: both ends').
    #[inline]
    pub(crate) fn count_new_edge(&self, s: u32, d: u32, ts: u64) {
        self.sketch.bump(s, d, ts);
        if !self.opts.directed && s != d {
            self.sketch.bump(d, s, ts);
        }
    }

    /// Refuses `v` in a store that names vertices by string keys when no
    /// key was given `v` (a write must not create a vertex without one).
    #[inline]
    pub(crate) fn check_vertex_id(&self, v: u64) -> Result<()> {
        if self.keys.enabled() && !self.keys.is_key_id(v) {
            return Err(Error::WrongIdKind {
                vertex: v.to_string(),
                what: "this store names vertices by string keys, and no key has this id \
                       (Graph::intern_key gives a key its id)"
                    .into(),
            });
        }
        Ok(())
    }

    /// The id of vertex key `key`, given now if it has none.
    pub(crate) fn intern_key(&self, key: &str) -> Result<u64> {
        if !self.keys.enabled() {
            return Err(Error::WrongIdKind {
                vertex: format!("{key:?}"),
                what: "this store names vertices by integers (a store created with \
                       Options::string_ids names them by strings)"
                    .into(),
            });
        }
        if let Some(why) = crate::props::names::check(key) {
            return Err(Error::WrongIdKind {
                vertex: format!("{key:?}"),
                what: format!("a vertex key {why}"),
            });
        }
        Ok(self.keys.intern(key))
    }

    /// Property edge `id` with `ends` as a reader names it (external ids,
    /// the label's name).
    pub(crate) fn edge(
        &self,
        id: crate::props::edges::EdgeId,
        ends: crate::props::edges::Ends,
    ) -> crate::props::edges::Edge {
        crate::props::edges::Edge {
            id,
            src: self.ids.external(ends.src),
            dst: self.ids.external(ends.dst),
            label: self.props.labels.name(ends.label),
        }
    }

    /// The log, if this store has one running.
    #[inline]
    pub(crate) fn log(&self) -> Option<&Wal> {
        self.wal.get().map(|w| &**w)
    }

    /// Whether this on-disk store is still being opened (its log not yet
    /// attached), or was opened read-only (it never attaches one): no
    /// background work may start then.
    pub(crate) fn recovering(&self) -> bool {
        self.home.is_some() && self.wal.get().is_none()
    }

    /// `Closed` naming `op` once the store is closed, `ReadOnly` once a
    /// read-only store is open. Writers call it while holding the writers'
    /// gate, which `close` takes exclusively to set the flag, so no write
    /// is applied after `close` began.
    #[inline]
    pub(crate) fn check_writable(&self, op: &'static str) -> Result<()> {
        let store = || self.home.as_ref().map(|d| d.display().to_string());
        if self.closed.load(Ordering::Acquire) {
            return Err(Error::Closed { op, store: store() });
        }
        if self.is_read_only() {
            return Err(Error::ReadOnly {
                op,
                store: store().unwrap_or_default(),
            });
        }
        Ok(())
    }

    /// Makes this store read-only (see `Options::read_only`): called by
    /// opening once the `log_segments` it read are replayed.
    pub(crate) fn set_read_only(&self, log_segments: usize) {
        let _ = self.read_only.set(log_segments);
    }

    /// Whether this store was opened read-only.
    pub(crate) fn is_read_only(&self) -> bool {
        self.read_only.get().is_some()
    }

    /// The log segments on disk: the running log's, or those a read-only
    /// store read.
    pub(crate) fn log_segments(&self) -> usize {
        match (self.log(), self.read_only.get()) {
            (Some(wal), _) => wal.segments(),
            (None, Some(&read)) => read,
            (None, None) => 0,
        }
    }

    /// The exact edge count at `ts`, from the clock's count there (which
    /// counts every blind insert as new): settles the blind inserts at or
    /// before `ts` still waiting, against the current levels, and those
    /// flushes deferred, on the store's pool, and takes away the
    /// re-weights among them.
    pub(crate) fn edges_at(&self, counted: u64, ts: Timestamp) -> u64 {
        use rayon::prelude::*;
        const GRAIN: usize = 4096;
        let mut settler = self.blind.counting_settler();
        if settler.unsettled_upto(ts) {
            let current = self.layers.read().clone();
            settler.settle_upto(
                ts,
                current,
                |k| self.par(|| k.par_sort_unstable()),
                |k, belows| {
                    // A chunk boundary inside one source's keys only
                    // costs its lists a second read.
                    self.par(|| {
                        let parts: Vec<Vec<bool>> =
                            k.par_chunks(GRAIN).map(|c| live_below(belows, c)).collect();
                        parts.concat()
                    })
                },
            );
        }
        let reweights = settler.reweights_upto(ts);
        debug_assert!(
            reweights <= counted,
            "{reweights} re-weights of {counted} edges"
        );
        counted.saturating_sub(reweights)
    }

    /// Settles the blind inserts flushes deferred, on this thread (a
    /// background one, which must not take the pool from writers), without
    /// holding up flushes meanwhile (`BlindLedger::settle_deferred_apart`).
    pub(crate) fn settle_deferred(&self) {
        self.blind
            .settle_deferred_apart(|k| k.sort_unstable(), |k, belows| live_below(belows, k));
    }

    /// Runs `f`, which uses rayon, on the store's own thread pool (the
    /// calling thread waits). Callers must not hold the writers' gate
    /// inside `f`'s jobs; see `batch::insert_edges`.
    pub(crate) fn par<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        run_on(self.pool.as_ref(), f)
    }

    /// Runs `f`, which uses rayon, on the pool compactions merge on (see
    /// `Options::compaction_threads`); the calling thread waits.
    pub(crate) fn merge_par<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        let pool = self
            .merge_pool
            .get_or_init(|| build_pool(self.opts.compaction_threads, "stratagraph-merge"));
        run_on(pool.as_ref(), f)
    }

    /// The stamping context for commit `ts`, or `SnapshotTooOld` if the
    /// oldest open snapshot lags more than the stamp window behind it.
    ///
    /// A flush's pin may hold the watermark further back than the window
    /// for the moment the flush runs; the commit then goes ahead with the
    /// window widened to cover it, up to what the stamp encoding can hold.
    pub(crate) fn stamping(&self, ts: Timestamp) -> Result<Stamping> {
        let window = u64::from(self.opts.stamp_window).min(MAX_STAMP_SPAN);
        let snapshots = self.clock.snapshot_watermark();
        let watermark = self.clock.watermark();
        let lag = ts - watermark;
        if ts - snapshots >= window || lag >= MAX_STAMP_SPAN {
            return Err(Error::SnapshotTooOld {
                snapshot_ts: snapshots,
                commit_ts: ts,
                window,
            });
        }
        // Pruning stops at a flushed cut still waiting for its clean-up
        // (see `LsmState::prune_horizon`), unless that cut is so old that
        // offsets from it would not fit a stamp: then the clean-up waits
        // for the next flush instead.
        let prune_to = match self.lsm.prune_horizon() {
            Some(cut) if cut < watermark && ts - cut < MAX_STAMP_SPAN => cut,
            _ => watermark,
        };
        Ok(Stamping {
            ts,
            watermark: prune_to,
            window: window.max(ts - prune_to + 1),
        })
    }

    /// Closes the store; later calls do nothing and return `Ok`.
    ///
    /// In order: no write starts any more (commits under way finish
    /// first); background flush and compaction threads are joined; an
    /// on-disk store flushes everything, merges it into one level and
    /// writes its manifest; the log is synced and its file closed; the
    /// directory lock is released, so the store can be opened again (by
    /// this process or another) while snapshots of this one still live.
    ///
    /// Each step runs even if an earlier one failed, and the first error is
    /// returned: a failed flush leaves the commits in the synced log, which
    /// the next open replays.
    pub(crate) fn close(&self) -> Result<()> {
        {
            let _gate = self.writers.write();
            if self.closed.swap(true, Ordering::AcqRel) {
                return Ok(());
            }
        }
        maintain::join_worker(self);
        let background = maintain::take_background_error(self).map_or(Ok(()), Err);
        let log_failed = self.log().is_some_and(Wal::has_failed);
        let settled = match &self.home {
            // Nothing was written, so there is nothing to flush.
            Some(_) if self.is_read_only() => background,
            // The commits the log failed are in the MemGraph, unseen: they
            // must not reach a level file. The log and the last manifest
            // hold every commit that succeeded, so nothing is flushed, and
            // the failure was reported to the commits it took down.
            Some(dir) if log_failed => {
                maintain::remove_unnamed_runs(dir);
                Ok(())
            }
            Some(dir) => {
                let settled = maintain::flush_and_compact(self);
                if settled.is_err() {
                    maintain::remove_unnamed_runs(dir);
                }
                background.and(settled)
            }
            None => background,
        };
        let log = self.log().map_or(Ok(()), Wal::close);
        drop(self.dir_lock.lock().take());
        settled.and(log)
    }
}

impl LevelSink for Store {
    fn options(&self) -> &Options {
        &self.opts
    }

    fn watermark(&self) -> Timestamp {
        self.clock.watermark()
    }

    fn par<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        self.merge_par(f)
    }

    fn new_run(
        &self,
        out: SegmentBytes,
        inn: Option<SegmentBytes>,
        cut: Timestamp,
    ) -> Result<Arc<FlushedRun>> {
        let id = self.lsm.next_run_id();
        let out = maintain::store_segment(self, out, id, Direction::Out)?;
        let inn = inn
            .map(|b| maintain::store_segment(self, b, id, Direction::In))
            .transpose()?;
        Ok(Arc::new(FlushedRun { id, out, inn, cut }))
    }
}
