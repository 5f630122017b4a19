//! `Graph`: the public entry point, owning everything one store shares.

use crate::batch;
use crate::csr::Segment;
use crate::error::{Error, Result};
use crate::ids::IdMap;
use crate::lsm::layers::{FlushedRun, Layers, Level};
use crate::lsm::maintain::{self, LsmState};
use crate::manifest::{Manifest, RunFiles, Totals};
use crate::mem::{MemGraph, MemoryUsage, Stamping};
use crate::mem_view::MemPage;
use crate::options::Options;
use crate::snapshot::Snapshot;
use crate::txn::WriteTxn;
use crate::util::files::io_error;
use crate::version::{Clock, Timestamp};
use crate::wal::{self, Wal};
use crate::VertexId;
use parking_lot::RwLock;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// State shared by a graph's handles, transactions and snapshots.
pub(crate) struct Shared {
    pub opts: Options,
    pub ids: IdMap,
    pub mem: MemGraph,
    pub clock: Clock,
    /// Transactions hold it shared while committing; batches exclusively.
    pub writers: RwLock<()>,
    /// The flushed runs below the MemGraph; replaced whole by each flush.
    pub layers: RwLock<Arc<Layers>>,
    pub lsm: LsmState,
    /// The directory of an on-disk store (`None`: in memory).
    pub home: Option<PathBuf>,
    /// The write-ahead log of an on-disk store, attached once recovery is
    /// done (recovery's own re-applied commits are not logged again).
    pub wal: OnceLock<Arc<Wal>>,
    /// Held (locked) while the store is open, so a second open is refused.
    _dir_lock: Option<File>,
    /// Live `Graph` handles (snapshots and flush threads also hold `Shared`).
    handles: AtomicUsize,
    pool: Option<rayon::ThreadPool>,
}

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Graph")
            .field("home", &self.shared.home)
            .field("directed", &self.shared.opts.directed)
            .field("timestamp", &self.shared.clock.visible())
            .finish()
    }
}

impl Drop for Shared {
    /// Dropping the last handle of an on-disk store closes it as
    /// `Graph::close` would; errors cannot be reported from here, so callers
    /// that care call `close` first.
    fn drop(&mut self) {
        // A store whose opening failed has nothing to close (and opening
        // must not change files when it fails).
        if self.home.is_some() && !self.recovering() {
            let _ = maintain::flush_and_compact(self);
        }
    }
}

/// A dynamic graph store. Cheap to clone: clones share one store, and every
/// method takes `&self`, so a `Graph` can be used from many threads at once.
///
/// ```
/// use stratagraph::{Graph, Options};
/// let g = Graph::in_memory(Options::default());
/// let mut tx = g.begin();
/// tx.insert_edge(1, 2, 1.0)?;
/// tx.insert_edge(2, 3, 0.5)?;
/// tx.commit()?;
/// let snap = g.snapshot();
/// assert_eq!(snap.edge_count(), 2);
/// assert_eq!(snap.weight(2, 3), Some(0.5));
/// # Ok::<(), stratagraph::Error>(())
/// ```
pub struct Graph {
    shared: Arc<Shared>,
}

impl Clone for Graph {
    fn clone(&self) -> Self {
        self.shared.handles.fetch_add(1, Ordering::Relaxed);
        Graph {
            shared: self.shared.clone(),
        }
    }
}

impl Drop for Graph {
    fn drop(&mut self) {
        if self.shared.handles.fetch_sub(1, Ordering::AcqRel) == 1 {
            // The last handle: let a background flush finish here, so the
            // store closes on this thread (unless snapshots outlive it).
            maintain::join_worker(&self.shared);
        }
    }
}

/// Counters describing a store at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Stats {
    /// Newest published commit.
    pub timestamp: Timestamp,
    /// Vertices at that commit.
    pub vertices: u64,
    /// Edges at that commit (undirected edges once).
    pub edges: u64,
    /// Internal ids handed out (including ids of deleted vertices).
    pub ids_assigned: u32,
    /// Memory of the MemGraph.
    pub memory: MemoryUsage,
    /// Memory of the id dictionary.
    pub id_bytes: usize,
    /// Bytes of the runs and level parts below the MemGraph.
    pub run_bytes: usize,
    /// Bytes of what snapshots copied of the MemGraph and merged of hubs'
    /// lists, kept for later snapshots until the next flush or compaction
    /// (see [`Snapshot::scan_out`]).
    pub kept_read_bytes: usize,
    /// L0 runs (whole flushes not yet merged into L1).
    pub runs: usize,
    /// Per level L1..Ln: parts and entries (edge versions, both
    /// directions) it holds.
    pub levels: Vec<LevelStats>,
    /// Flushes whose versions still wait to leave the MemGraph because an
    /// older snapshot is open.
    pub pending_cleanups: usize,
    /// Flushes that wrote a run, since the store was opened (`lifetime`
    /// counts every session of an on-disk store).
    pub flushes: u64,
    /// Compactions (runs merged into one), since the store was opened.
    pub compactions: u64,
    /// Snapshots currently open.
    pub open_snapshots: usize,
    /// Write-ahead log segment files on disk (0 in memory).
    pub log_segments: usize,
    /// Bytes appended to the write-ahead log since the store was opened.
    pub log_bytes: u64,
    /// Bytes of level files (runs) written by flushes and compactions since
    /// the store was opened.
    pub level_bytes_written: u64,
    /// Bytes written to storage (log and level files) per byte of edge
    /// writes callers made since the store was opened, counting an edge
    /// write as 24 bytes (source and destination `u64`, weight `f64`, as a
    /// batch logs it). 0 before any write.
    pub write_amplification: f64,
    /// Writers that waited for a background flush because the MemGraph
    /// filled again while one was running, and the seconds they waited.
    pub stalls: u64,
    /// See `stalls`.
    pub stall_seconds: f64,
    /// The same work counted over the store's whole life: for an on-disk
    /// store, every earlier session's (kept in its manifest) plus this
    /// one's; for one in memory, this session's.
    pub lifetime: Totals,
}

/// One CSR file pair below the MemGraph (an L0 run or a part of a level),
/// as `Graph::runs` describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct RunInfo {
    /// The run's id (its files are `run-<id>-out.seg`, `-in.seg`).
    pub id: u64,
    /// 0 for an L0 run (one flush, every vertex), `i` for a part of level
    /// `Li` (one vertex range of it).
    pub level: u32,
    /// The internal ids it covers.
    pub vertices: std::ops::Range<u32>,
    /// The newest commit it holds.
    pub cut: Timestamp,
    /// Bytes of its segments.
    pub bytes: u64,
    /// Edge entries (versions) in its segments.
    pub entries: u64,
}

/// One level's size, in `Stats::levels`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LevelStats {
    /// Parts (vertex ranges, one file pair each).
    pub parts: usize,
    /// Edge entries (versions) in both directions.
    pub entries: u64,
    /// Bytes of its segments.
    pub bytes: u64,
}

impl Stats {
    /// Total bytes (MemGraph + runs + id dictionary + kept reads).
    pub fn total_bytes(&self) -> usize {
        self.memory.slot_bytes
            + self.memory.adjacency_bytes
            + self.run_bytes
            + self.id_bytes
            + self.kept_read_bytes
    }
}

impl Shared {
    /// The log, if this store has one running.
    #[inline]
    pub(crate) fn log(&self) -> Option<&Wal> {
        self.wal.get().map(|w| &**w)
    }

    /// Whether this on-disk store is still being opened (its log not yet
    /// attached): no background work may start then.
    pub(crate) fn recovering(&self) -> bool {
        self.home.is_some() && self.wal.get().is_none()
    }

    /// Runs `f`, which uses rayon, on the store's own thread pool (the
    /// calling thread waits). Callers must not hold the writers' gate
    /// inside `f`'s jobs; see `batch::insert_edges`.
    pub(crate) fn par<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.pool {
            Some(pool) => pool.install(f),
            None => f(),
        }
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
}

/// The most commits a MemGraph stamp offset can span (31 bits, less one
/// value kept for saturation).
const MAX_STAMP_SPAN: u64 = (1 << 31) - 2;

impl Graph {
    /// A store held entirely in memory.
    pub fn in_memory(opts: Options) -> Graph {
        let ids = IdMap::new();
        ids.limit(opts.max_vertex_ids);
        Graph::assemble(
            opts,
            ids,
            Clock::new(),
            Layers::default(),
            LsmState::default(),
            None,
        )
    }

    fn assemble(
        opts: Options,
        ids: IdMap,
        clock: Clock,
        layers: Layers,
        lsm: LsmState,
        home: Option<(PathBuf, File)>,
    ) -> Graph {
        let (home, dir_lock) = home.unzip();
        // Always a pool of its own (0 threads: rayon's default count), so
        // no caller of a batch is ever one of the threads that run it (see
        // `batch::insert_edges`).
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(opts.threads)
            .thread_name(|i| format!("stratagraph-{i}"))
            .build()
            .ok();
        Graph {
            shared: Arc::new(Shared {
                opts,
                ids,
                mem: MemGraph::new(),
                clock,
                writers: RwLock::new(()),
                layers: RwLock::new(Arc::new(layers)),
                lsm,
                home,
                wal: OnceLock::new(),
                _dir_lock: dir_lock,
                handles: AtomicUsize::new(1),
                pool,
            }),
        }
    }

    /// Opens the store in directory `dir`, creating it (and the directory)
    /// if it holds none. Its levels are kept as files there and read through
    /// memory maps; every commit is appended to a write-ahead log before it
    /// becomes visible (durable as `Options::sync` says), and the MemGraph
    /// is flushed to new level files as it fills. Reopening after a crash
    /// replays the log: every commit that returned is there, and a commit
    /// or batch that did not return is there whole or not at all.
    ///
    /// # Errors
    /// `StoreLocked` if the directory is open already (in this process or
    /// another); `Io` if a file cannot be read or written; `Corrupt` or
    /// `UnsupportedFormat` (naming the file and offset) for a damaged or
    /// foreign manifest, level file or log record (a torn last record is
    /// not damage: it is dropped); `OptionsMismatch` if `opts` contradicts
    /// the stored graph (directed vs undirected). Nothing is modified when
    /// opening fails.
    pub fn open(dir: impl AsRef<Path>, opts: Options) -> Result<Graph> {
        let dir = dir.as_ref().to_path_buf();
        std::fs::create_dir_all(&dir).map_err(|e| io_error(&dir, "create directory", &e))?;
        let lock = lock_dir(&dir)?;
        let manifest = Manifest::read(&dir)?.unwrap_or(Manifest {
            directed: opts.directed,
            last_ts: 0,
            next_run: 0,
            vertices: Vec::new(),
            runs: Vec::new(),
            totals: Totals::default(),
        });
        let manifest_path = dir.join(crate::manifest::FILE).display().to_string();
        if manifest.directed != opts.directed {
            return Err(Error::OptionsMismatch {
                file: manifest_path,
                what: format!(
                    "the store is {}, the options ask for {}",
                    if manifest.directed {
                        "directed"
                    } else {
                        "undirected"
                    },
                    if opts.directed {
                        "directed"
                    } else {
                        "undirected"
                    }
                ),
            });
        }
        let layers = open_layers(&dir, &manifest, &manifest_path)?;
        let ids = IdMap::new();
        for (i, &(ext, _)) in manifest.vertices.iter().enumerate() {
            if ids.intern(ext) != Some(i as u32) {
                return Err(Error::Corrupt {
                    file: manifest_path,
                    offset: 0,
                    what: format!("external id {ext} is listed twice (internal id {i})"),
                });
            }
        }
        // Checks the whole log before anything is changed.
        let mut log = wal::recover::read(&dir, &ids, manifest.last_ts)?;
        let policy = opts.sync;
        let g = Graph::assemble(
            opts,
            ids,
            Clock::resume(manifest.last_ts),
            layers,
            LsmState::resume(&manifest),
            Some((dir.clone(), lock)),
        );
        let shared = &g.shared;
        let mut alive = 0u64;
        for (v, &(_, is_alive)) in manifest.vertices.iter().enumerate() {
            if is_alive {
                let v = v as u32;
                let mut st = shared.mem.lock(v);
                // Existing since before every snapshot of this session.
                st.life.set(0, true, 0);
                shared.mem.mark_clean(v);
                alive += 1;
            }
        }
        let edges = g.count_edges();
        shared.clock.set_counts(edges, alive);
        wal::recover::replay(shared, std::mem::take(&mut log.commits))?;
        wal::recover::cut_newest(&log)?;
        let wal = Wal::create(
            &dir,
            policy,
            log.next_segment,
            log.segments,
            shared.ids.bound(),
        )?;
        // After recovery, which must take back every id the log assigned.
        shared.ids.limit(shared.opts.max_vertex_ids);
        shared.ids.attach_journal(wal.clone());
        let _ = shared.wal.set(wal);
        maintain::checkpoint(shared)?;
        remove_orphans(&dir, &shared.layers.read());
        Ok(g)
    }

    /// Edges visible now, counted from the adjacency (undirected: once).
    fn count_edges(&self) -> u64 {
        let snap = self.snapshot();
        let (mut n, mut loops) = (0u64, 0u64);
        for v in 0..snap.id_bound() {
            n += snap.out_degree_of(v) as u64;
            loops += u64::from(snap.weight_of(v, v).is_some());
        }
        if self.shared.opts.directed {
            n
        } else {
            (n + loops) / 2
        }
    }

    /// Flushes everything, merges the runs into one and writes the
    /// manifest, so that an on-disk store reopens with all its data (for an
    /// in-memory store: flushes and compacts). The store stays usable;
    /// dropping its last handle does the same, but cannot report errors.
    ///
    /// # Errors
    /// The first error a background flush hit, or this one's.
    pub fn close(&self) -> Result<()> {
        if let Some(e) = maintain::take_background_error(&self.shared) {
            return Err(e);
        }
        maintain::flush_and_compact(&self.shared)
    }

    /// The shared state, for tests of engine modules that work on it (the
    /// flush tests now; the LSM layer once it is wired in).
    #[cfg(test)]
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// The directory of an on-disk store (`None` for an in-memory one).
    pub fn path(&self) -> Option<&Path> {
        self.shared.home.as_deref()
    }

    /// The options the store was created with.
    pub fn options(&self) -> &Options {
        &self.shared.opts
    }

    /// Starts a write transaction.
    pub fn begin(&self) -> WriteTxn {
        WriteTxn::new(self.shared.clone())
    }

    /// A snapshot of everything committed so far.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::open(self.shared.clone())
    }

    /// Inserts (or re-weights) one edge in its own transaction.
    ///
    /// # Errors
    /// As [`WriteTxn::insert_edge`] and [`WriteTxn::commit`].
    pub fn insert_edge(&self, src: VertexId, dst: VertexId, weight: f64) -> Result<Timestamp> {
        let mut tx = self.begin();
        tx.insert_edge(src, dst, weight)?;
        tx.commit()
    }

    /// Deletes one edge in its own transaction.
    ///
    /// # Errors
    /// As [`WriteTxn::delete_edge`] and [`WriteTxn::commit`].
    pub fn delete_edge(&self, src: VertexId, dst: VertexId) -> Result<Timestamp> {
        let mut tx = self.begin();
        tx.delete_edge(src, dst)?;
        tx.commit()
    }

    /// Creates one vertex in its own transaction (no-op if it exists).
    ///
    /// # Errors
    /// As [`WriteTxn::insert_vertex`].
    pub fn insert_vertex(&self, v: VertexId) -> Result<Timestamp> {
        let mut tx = self.begin();
        tx.insert_vertex(v)?;
        tx.commit()
    }

    /// Deletes one vertex and all its edges in its own transaction.
    ///
    /// # Errors
    /// As [`WriteTxn::delete_vertex`].
    pub fn delete_vertex(&self, v: VertexId) -> Result<Timestamp> {
        let mut tx = self.begin();
        tx.delete_vertex(v)?;
        tx.commit()
    }

    /// Inserts (or re-weights) a batch of edges atomically at one timestamp.
    /// Within the batch, a later duplicate of an edge wins. Missing endpoints
    /// are created (unless `Options::auto_create_vertices` is false).
    ///
    /// A batch of at least `Options::bulk_load_min_edges` edges into a store
    /// that holds no edge yet is a bulk load: it is written straight into a
    /// CSR level below the MemGraph, several times faster, and read at CSR
    /// speed from then on. Its meaning is the same either way.
    ///
    /// # Errors
    /// `InvalidWeight`, `SelfLoop`, `VertexNotFound` (without auto-creation)
    /// or `VertexIdsExhausted`, naming the first offending element's index;
    /// `SnapshotTooOld`. On error nothing is applied.
    pub fn insert_edges(&self, edges: &[(VertexId, VertexId, f64)]) -> Result<Timestamp> {
        let (ts, versions) = batch::insert_edges(&self.shared, edges)?;
        maintain::note_writes(&self.shared, versions);
        Ok(ts)
    }

    /// Deletes a batch of edges atomically at one timestamp. An edge listed
    /// twice is deleted once.
    ///
    /// # Errors
    /// `EdgeNotFound` naming the first missing edge's index, or
    /// `SnapshotTooOld`; on error nothing is applied.
    pub fn delete_edges(&self, edges: &[(VertexId, VertexId)]) -> Result<Timestamp> {
        let ts = batch::delete_edges(&self.shared, edges)?;
        maintain::note_writes(&self.shared, 2 * edges.len());
        Ok(ts)
    }

    /// Creates a batch of vertices atomically (existing ones are left alone).
    ///
    /// # Errors
    /// `VertexIdsExhausted` or `SnapshotTooOld`; on error nothing is applied.
    pub fn insert_vertices(&self, vertices: &[VertexId]) -> Result<Timestamp> {
        batch::insert_vertices(&self.shared, vertices)
    }

    /// Counts and memory. Walks every vertex to measure memory, so it costs
    /// about as much as a scan of the vertex table.
    pub fn stats(&self) -> Stats {
        let snap = self.snapshot();
        let bound = self.shared.ids.bound();
        let layers = self.shared.layers.read().clone();
        let session = self
            .shared
            .lsm
            .session(self.shared.log().map_or(0, Wal::appended));
        Stats {
            timestamp: snap.timestamp(),
            vertices: snap.vertex_count(),
            edges: snap.edge_count(),
            ids_assigned: bound,
            memory: self.shared.mem.usage(bound),
            id_bytes: self.shared.ids.memory_bytes(),
            run_bytes: layers.bytes(),
            kept_read_bytes: layers.kept.bytes(MemPage::bytes)
                + layers.kept_hubs.bytes(std::mem::size_of_val),
            runs: layers.runs.len(),
            levels: layers
                .levels
                .iter()
                .map(|l| LevelStats {
                    parts: l.parts().len(),
                    entries: l.entries(),
                    bytes: l.parts().iter().map(|p| p.bytes()).sum(),
                })
                .collect(),
            pending_cleanups: self.shared.lsm.pending_cleanups(),
            flushes: session.flushes,
            compactions: session.compactions,
            open_snapshots: self.shared.clock.open_snapshots() - 1,
            log_segments: self.shared.log().map_or(0, Wal::segments),
            log_bytes: session.log_bytes,
            level_bytes_written: session.level_bytes_written,
            write_amplification: session.write_amplification(),
            stalls: session.stalls,
            stall_seconds: session.stall_seconds(),
            lifetime: self.shared.lsm.lifetime(&session),
        }
    }

    /// The runs and level parts below the MemGraph: L0 runs newest first,
    /// then each level's parts by vertex range.
    pub fn runs(&self) -> Vec<RunInfo> {
        let layers = self.shared.layers.read().clone();
        let levels = layers
            .levels
            .iter()
            .enumerate()
            .flat_map(|(i, l)| l.parts().iter().map(move |p| (i as u32 + 1, p)));
        layers
            .runs
            .iter()
            .map(|r| (0, r))
            .chain(levels)
            .map(|(level, r)| RunInfo {
                id: r.id,
                level,
                vertices: r.range(),
                cut: r.cut,
                bytes: r.bytes(),
                entries: r.entries(),
            })
            .collect()
    }

    /// Flushes everything committed so far and merges every run and level
    /// into one level, on the calling thread: afterwards a snapshot reads
    /// the graph as a plain CSR (edges older than every open snapshot lose
    /// their timestamps, deleted edges their tombstones). Worth calling after
    /// a bulk load or before a long analytics phase; closing a store does it
    /// too. It rewrites the whole graph, so it costs about a full write of
    /// it.
    ///
    /// # Errors
    /// The error an earlier background flush hit, if any, or an I/O error
    /// writing the level files or the manifest.
    pub fn compact(&self) -> Result<()> {
        if let Some(e) = maintain::take_background_error(&self.shared) {
            return Err(e);
        }
        maintain::flush_and_compact(&self.shared)
    }

    /// Waits until the background flush and compaction threads are idle,
    /// then drops from the MemGraph what was flushed and no open snapshot
    /// still reads there. Nothing is flushed or merged that was not already
    /// due: this is for measuring or inspecting the store in a steady state
    /// (benchmarks, tests), not needed for correctness.
    pub fn wait_idle(&self) {
        maintain::wait_idle(&self.shared);
    }

    /// Writes everything committed so far out of the MemGraph into a run
    /// below it, on the calling thread, and drops the written versions from
    /// the MemGraph unless an older snapshot still needs them there.
    /// Flushes also happen on their own, in the background, whenever the
    /// MemGraph outgrows `Options::memgraph_bytes`; this is for callers that
    /// want it now (before a long read-only phase, or in tests).
    ///
    /// # Errors
    /// The error an earlier background flush hit, if any, or this flush's.
    pub fn flush(&self) -> Result<()> {
        if let Some(e) = maintain::take_background_error(&self.shared) {
            return Err(e);
        }
        maintain::flush_now(&self.shared).map(drop)
    }
}

/// Locks store directory `dir` for this process (an exclusive lock on its
/// `LOCK` file, released when the file is closed, also by a crash).
fn lock_dir(dir: &Path) -> Result<File> {
    let path = dir.join("LOCK");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io_error(&path, "open", &e))?;
    match file.try_lock() {
        Ok(()) => Ok(file),
        Err(std::fs::TryLockError::WouldBlock) => Err(Error::StoreLocked {
            dir: dir.display().to_string(),
        }),
        Err(std::fs::TryLockError::Error(e)) => Err(io_error(&path, "lock", &e)),
    }
}

/// Locks `dir` like `lock_dir` if it has a `LOCK` file (a store that was
/// opened before), without creating one: for read-only inspection.
pub(crate) fn lock_dir_if_present(dir: &Path) -> Result<Option<File>> {
    if !dir.is_dir() {
        return Err(Error::Io {
            file: dir.display().to_string(),
            op: "open directory",
            kind: std::io::ErrorKind::NotFound,
            message: "no such directory".into(),
        });
    }
    if dir.join("LOCK").exists() {
        lock_dir(dir).map(Some)
    } else {
        Ok(None)
    }
}

/// Opens the level files a manifest names (see `open_level_file`) and
/// arranges them as L0 runs and levels (see `arrange_layers`).
fn open_layers(dir: &Path, manifest: &Manifest, manifest_path: &str) -> Result<Layers> {
    let vertices = manifest.vertices.len();
    let mut runs = Vec::with_capacity(manifest.runs.len());
    for r in &manifest.runs {
        let out = open_level_file(&RunFiles::path(dir, r.id, false), vertices)?;
        let inn = if r.has_in {
            Some(open_level_file(&RunFiles::path(dir, r.id, true), vertices)?)
        } else {
            None
        };
        runs.push(FlushedRun {
            id: r.id,
            out,
            inn,
            cut: r.cut,
        });
    }
    arrange_layers(manifest, runs, manifest_path)
}

/// Arranges a manifest's opened runs (in its order) as L0 runs and levels,
/// checking that each level's parts form one: disjoint vertex ranges
/// starting on index pages.
pub(crate) fn arrange_layers(
    manifest: &Manifest,
    opened: Vec<FlushedRun>,
    manifest_path: &str,
) -> Result<Layers> {
    let mut runs = Vec::new();
    let mut levels: Vec<Vec<Arc<FlushedRun>>> = Vec::new();
    for (r, run) in manifest.runs.iter().zip(opened) {
        match usize::from(r.level) {
            0 => runs.push(Arc::new(run)),
            l => {
                levels.resize_with(levels.len().max(l), Vec::new);
                levels[l - 1].push(Arc::new(run));
            }
        }
    }
    let levels = levels
        .into_iter()
        .map(|parts| {
            Level::new(parts).map_err(|what| Error::Corrupt {
                file: manifest_path.to_string(),
                offset: 0,
                what,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(Layers::new(runs, levels))
}

/// Opens one level file of a store whose manifest lists `vertices` ids,
/// checking every block checksum and that it covers no vertex beyond them:
/// reads go straight to the mapped bytes without per-read checks, so damage
/// must be found here or it would be returned as data. (CRC-32C runs at
/// several GB/s, so this costs a fraction of reading the file once.)
pub(crate) fn open_level_file(path: &Path, vertices: usize) -> Result<Segment> {
    let seg = Segment::open(path)?;
    seg.verify()?;
    if seg.vertex_range().end as usize > vertices {
        return Err(Error::Corrupt {
            file: seg.name().to_string(),
            offset: 0,
            what: format!(
                "covers vertices up to {} but the manifest has {vertices}",
                seg.vertex_range().end
            ),
        });
    }
    Ok(seg)
}

/// Deletes run files (and temporaries) in `dir` that the manifest does not
/// name: left by a crash between writing a file and the manifest naming it,
/// or between a compaction's manifest and the deletion of what it replaced.
/// Best effort: a file that cannot be removed only wastes space.
fn remove_orphans(dir: &Path, live: &Layers) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let keep: std::collections::HashSet<PathBuf> = live
        .all()
        .flat_map(|r| {
            let mut v = vec![RunFiles::path(dir, r.id, false)];
            if r.inn.is_some() {
                v.push(RunFiles::path(dir, r.id, true));
            }
            v
        })
        .collect();
    for e in entries.flatten() {
        let path = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        let ours = (name.starts_with("run-")
            && (name.ends_with(".seg") || name.ends_with(".seg.tmp")))
            || name == format!("{}.tmp", crate::manifest::FILE);
        if ours && !keep.contains(&path) {
            let _ = std::fs::remove_file(&path);
        }
    }
}
