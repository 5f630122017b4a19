//! `Graph`: the public handle of a store, and the counters it reports.
//!
//! A `Graph` is the one owner of a store's lifetime: the store closes when
//! `close` is called or its last `Graph` clone is dropped, never when some
//! snapshot or transaction that outlived it goes (see `crate::store`).

use crate::batch;
use crate::error::{Result, VertexId};
use crate::ids::IdMap;
use crate::lsm::layers::Layers;
use crate::manifest::Totals;
use crate::mem::MemoryUsage;
use crate::options::Options;
use crate::read::Snapshot;
use crate::store::maintain::{self, LsmState};
use crate::store::Store;
use crate::txn::{Isolation, WriteTxn};
use crate::value::Value;
use crate::version::{Clock, Timestamp};
use crate::wal::Wal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

impl std::fmt::Debug for Graph {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let store = self.store();
        f.debug_struct("Graph")
            .field("home", &store.home)
            .field("directed", &store.opts.directed)
            .field("timestamp", &store.clock.visible())
            .finish()
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
#[derive(Clone)]
pub struct Graph {
    handle: Arc<Handle>,
}

/// What `Graph` clones share: dropping the last one closes the store.
struct Handle {
    store: Arc<Store>,
}

impl Drop for Handle {
    /// The last `Graph` handle is gone: close the store on this thread, so
    /// a reopen right after finds it closed (snapshots and transactions
    /// that outlive it hold the `Store`, which does nothing when dropped).
    /// Errors cannot be reported from here; callers that care call
    /// `Graph::close` first.
    fn drop(&mut self) {
        let _ = self.store.close();
    }
}

/// What `Graph::changes` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct Changes {
    /// The timestamp asked for: changes are after it.
    pub since: Timestamp,
    /// The newest commit visible when they were read: changes are up to
    /// and including it, so the next call can ask `since: until`.
    pub until: Timestamp,
    /// The writes, in commit order.
    pub changes: Vec<crate::changes::Change>,
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
    /// Property edges (`WriteTxn::add_edge`) in the latest state.
    pub property_edges: u64,
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
    /// Vertex lists the runs and levels hold whole, marked as pivots so
    /// that reads stop there (`Options::update_policy`), both directions.
    pub pivot_marks: u64,
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
            + self.memory.table_bytes
            + self.memory.adjacency_bytes
            + self.run_bytes
            + self.id_bytes
            + self.kept_read_bytes
    }
}

impl Graph {
    /// A store held entirely in memory.
    pub fn in_memory(opts: Options) -> Graph {
        let ids = IdMap::new();
        ids.limit(opts.max_vertex_ids);
        let keys = crate::keys::Keys::new(opts.string_ids);
        let store = Store::new(
            opts,
            ids,
            keys,
            Clock::new(),
            Layers::default(),
            LsmState::default(),
            None,
        );
        Graph::over(Arc::new(store))
    }

    fn over(store: Arc<Store>) -> Graph {
        Graph {
            handle: Arc::new(Handle { store }),
        }
    }

    /// The store (engine modules' tests work on it too).
    #[inline]
    pub(crate) fn store(&self) -> &Arc<Store> {
        &self.handle.store
    }

    /// Opens the store in directory `dir`, creating it (and the directory)
    /// if it holds none. Its levels are kept as files there and read through
    /// memory maps; every commit is appended to a write-ahead log before it
    /// becomes visible (durable as `Options::sync` says), and the MemGraph
    /// is flushed to new level files as it fills. Reopening after a crash
    /// replays the log: every commit that returned is there, and a commit
    /// or batch that did not return is there whole or not at all.
    ///
    /// With `Options::read_only`, an existing store is opened without
    /// changing any file (it needs read access only) and alongside other
    /// read-only handles; see there.
    ///
    /// # Errors
    /// `StoreLocked` if the directory is open already (in this process or
    /// another; for a read-only open, open for writing); `Io` if a file cannot be read or written; `Corrupt` or
    /// `UnsupportedFormat` (naming the file and offset) for a damaged or
    /// foreign manifest, level file or log record (a torn last record is
    /// not damage: it is dropped); `OptionsMismatch` if `opts` contradicts
    /// the stored graph (directed vs undirected; [`stored_kind`] tells
    /// which a store is); `NotAStore` if `dir` holds files that are not a
    /// store's, or no store while `Options::create_if_missing` is off or
    /// `Options::read_only` is on; a
    /// MANIFEST missing from a directory that holds level files or logged
    /// commits is `Corrupt` (never an empty new store over them). Nothing
    /// is modified when opening fails.
    pub fn open(dir: impl AsRef<Path>, opts: Options) -> Result<Graph> {
        crate::open::open(dir.as_ref(), opts).map(Graph::over)
    }

    /// Closes the store: waits for background flushes and compactions; an
    /// on-disk store then flushes everything, merges it into one level,
    /// writes its manifest, syncs and closes its log, and releases its
    /// directory, so it reopens at once with all its data (by this process
    /// or another). Every clone of this handle is closed with it.
    ///
    /// Afterwards writes, flushes and compactions fail with
    /// [`Error::Closed`](crate::Error::Closed), from this handle and from
    /// transactions begun before; snapshots, old and new, keep reading the
    /// data the store held (memory and mapped files, no file handles).
    /// Closing again does nothing. Dropping the last handle closes the
    /// store too, but cannot report errors.
    ///
    /// # Errors
    /// The first error a background flush hit, or this one's (every step of
    /// closing runs regardless; the log holds what a failed flush did not
    /// write, and the next open replays it).
    pub fn close(&self) -> Result<()> {
        self.store().close()
    }

    /// The directory of an on-disk store (`None` for an in-memory one).
    pub fn path(&self) -> Option<&Path> {
        self.store().home.as_deref()
    }

    /// The options the store was created with.
    pub fn options(&self) -> &Options {
        &self.store().opts
    }

    /// Starts a write transaction under snapshot isolation.
    pub fn begin(&self) -> WriteTxn {
        self.begin_with(Isolation::Snapshot)
    }

    /// Starts a write transaction at the given isolation level.
    pub fn begin_with(&self, isolation: Isolation) -> WriteTxn {
        WriteTxn::new(self.store().clone(), isolation)
    }

    /// Starts a write transaction that checks no conflicts: its writes
    /// apply as of its commit, as the single-call writes below do (a
    /// later commit's property value wins over an earlier one's, whatever
    /// either read). Loaders use it to build one batch while the batch
    /// before it commits, which a snapshot-isolated batch would conflict
    /// with. Each commit is still atomic, logged and durable.
    pub fn begin_unchecked(&self) -> WriteTxn {
        WriteTxn::unchecked(self.store().clone())
    }

    /// A transaction for one of the single-call writes below: applied as
    /// of its commit, so it never conflicts.
    fn single(&self) -> WriteTxn {
        WriteTxn::unchecked(self.store().clone())
    }

    /// A snapshot of everything committed so far.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot::open(self.store().clone())
    }

    /// Every write committed after timestamp `since`, up to the newest
    /// commit visible now (`Changes::until`), in commit order: what a
    /// downstream copy applies to catch up. Read from the log of an
    /// on-disk store, which keeps retired segments within
    /// `Options::change_log_bytes` (`wal/archive.rs`).
    ///
    /// # Errors
    /// `ChangesUnavailable` for an in-memory store, or when commits after
    /// `since` may no longer all be kept (the message says from which
    /// timestamp they are); `Corrupt` or `Io` for a damaged or unreadable
    /// log file.
    pub fn changes(&self, since: Timestamp) -> Result<Changes> {
        let until = self.snapshot().timestamp();
        let changes = crate::changes::read(self.store(), since, until)?;
        Ok(Changes {
            since,
            until,
            changes,
        })
    }

    /// Inserts (or re-weights) one edge in its own transaction.
    ///
    /// # Errors
    /// As [`WriteTxn::insert_edge`] and [`WriteTxn::commit`].
    pub fn insert_edge(&self, src: VertexId, dst: VertexId, weight: f64) -> Result<Timestamp> {
        let mut tx = self.single();
        tx.insert_edge(src, dst, weight)?;
        tx.commit()
    }

    /// Deletes one edge in its own transaction.
    ///
    /// # Errors
    /// As [`WriteTxn::delete_edge`] and [`WriteTxn::commit`].
    pub fn delete_edge(&self, src: VertexId, dst: VertexId) -> Result<Timestamp> {
        let mut tx = self.single();
        tx.delete_edge(src, dst)?;
        tx.commit()
    }

    /// Creates one vertex in its own transaction (no-op if it exists).
    ///
    /// # Errors
    /// As [`WriteTxn::insert_vertex`].
    pub fn insert_vertex(&self, v: VertexId) -> Result<Timestamp> {
        let mut tx = self.single();
        tx.insert_vertex(v)?;
        tx.commit()
    }

    /// Creates vertex `v` with a label and properties in its own
    /// transaction (no-op if it exists).
    ///
    /// # Errors
    /// As [`WriteTxn::insert_vertex_with`].
    pub fn insert_vertex_with(
        &self,
        v: VertexId,
        label: &str,
        properties: &[(&str, Value)],
    ) -> Result<Timestamp> {
        let mut tx = self.single();
        tx.insert_vertex_with(v, label, properties)?;
        tx.commit()
    }

    /// Sets property `key` of vertex `v` in its own transaction.
    ///
    /// # Errors
    /// As [`WriteTxn::set_property`] and [`WriteTxn::commit`].
    pub fn set_property(&self, v: VertexId, key: &str, value: Value) -> Result<Timestamp> {
        let mut tx = self.single();
        tx.set_property(v, key, value)?;
        tx.commit()
    }

    /// The vertex id of `key` in a store that names vertices by string keys
    /// (`Options::string_ids`), given now if the key has none: every other
    /// call takes it where it takes a vertex. Ids go 0, 1, 2, ... in the
    /// order keys are first seen and never change; giving one creates no
    /// vertex.
    ///
    /// # Errors
    /// `WrongIdKind` in a store of integer ids, or for a key that is empty,
    /// over 1024 bytes or holds a control character.
    pub fn intern_key(&self, key: &str) -> Result<VertexId> {
        self.store().intern_key(key)
    }

    /// The vertex id of `key`, if it was given one.
    pub fn key_id(&self, key: &str) -> Option<VertexId> {
        self.store().keys.lookup(key)
    }

    /// The key of vertex id `v` in a store that names vertices by string
    /// keys; `None` in a store of integer ids or for an id no key has.
    pub fn key_of(&self, v: VertexId) -> Option<Arc<str>> {
        self.store().keys.name(v)
    }

    /// Creates an index of the vertices labelled `label` by their property
    /// `key`, over everything committed so far, kept in step by every
    /// commit after; `Snapshot::find_vertices` then looks values up
    /// instead of scanning. Returns `false` (writing nothing) if it exists.
    ///
    /// # Errors
    /// `InvalidName` for a bad label or key; `NotIndexable` if a vertex
    /// holds NaN there (nothing is created); as a batch for the rest.
    pub fn create_index(&self, label: &str, key: &str) -> Result<bool> {
        crate::schema::create_index(self.store(), label, key).map(|ts| ts.is_some())
    }

    /// The indexes, as (label, key), in the order they were created.
    pub fn indexes(&self) -> Vec<(String, String)> {
        self.store()
            .props
            .index_names()
            .into_iter()
            .map(|(l, k)| (l.to_string(), k.to_string()))
            .collect()
    }

    /// Deletes one vertex and all its edges in its own transaction.
    ///
    /// # Errors
    /// As [`WriteTxn::delete_vertex`].
    pub fn delete_vertex(&self, v: VertexId) -> Result<Timestamp> {
        let mut tx = self.single();
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
        let (ts, versions) = batch::insert_edges(self.store(), edges)?;
        maintain::note_writes(self.store(), versions);
        Ok(ts)
    }

    /// Deletes a batch of edges atomically at one timestamp. An edge listed
    /// twice is deleted once.
    ///
    /// # Errors
    /// `EdgeNotFound` naming the first missing edge's index, or
    /// `SnapshotTooOld`; on error nothing is applied.
    pub fn delete_edges(&self, edges: &[(VertexId, VertexId)]) -> Result<Timestamp> {
        let ts = batch::delete_edges(self.store(), edges)?;
        maintain::note_writes(self.store(), 2 * edges.len());
        Ok(ts)
    }

    /// Creates a batch of vertices atomically (existing ones are left alone).
    ///
    /// # Errors
    /// `VertexIdsExhausted` or `SnapshotTooOld`; on error nothing is applied.
    pub fn insert_vertices(&self, vertices: &[VertexId]) -> Result<Timestamp> {
        batch::insert_vertices(self.store(), vertices)
    }

    /// Counts and memory. Walks every vertex to measure memory, so it costs
    /// about as much as a scan of the vertex table.
    pub fn stats(&self) -> Stats {
        let snap = self.snapshot();
        let bound = self.store().ids.bound();
        let layers = self.store().layers.read().clone();
        let session = self
            .store()
            .lsm
            .session(self.store().log().map_or(0, Wal::appended));
        Stats {
            timestamp: snap.timestamp(),
            vertices: snap.vertex_count(),
            edges: snap.edge_count(),
            property_edges: self.store().props.edges.count(),
            ids_assigned: bound,
            memory: self.store().mem.usage(bound),
            id_bytes: self.store().ids.memory_bytes(),
            run_bytes: layers.bytes(),
            kept_read_bytes: crate::read::kept_bytes(&layers),
            runs: layers.runs.len(),
            pivot_marks: layers.pivot_marks(),
            levels: layers
                .levels
                .iter()
                .map(|l| LevelStats {
                    parts: l.parts().len(),
                    entries: l.entries(),
                    bytes: l.parts().iter().map(|p| p.bytes()).sum(),
                })
                .collect(),
            pending_cleanups: self.store().lsm.pending_cleanups(),
            flushes: session.flushes,
            compactions: session.compactions,
            open_snapshots: self.store().clock.open_snapshots() - 1,
            log_segments: self.store().log_segments(),
            log_bytes: session.log_bytes,
            level_bytes_written: session.level_bytes_written,
            write_amplification: session.write_amplification(),
            stalls: session.stalls,
            stall_seconds: session.stall_seconds(),
            lifetime: self.store().lsm.lifetime(&session),
        }
    }

    /// The runs and level parts below the MemGraph: L0 runs newest first,
    /// then each level's parts by vertex range.
    pub fn runs(&self) -> Vec<RunInfo> {
        let layers = self.store().layers.read().clone();
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
    /// writing the level files or the manifest; `Closed` after `close`.
    pub fn compact(&self) -> Result<()> {
        self.store().check_writable("compact")?;
        if let Some(e) = maintain::take_background_error(self.store()) {
            return Err(e);
        }
        maintain::flush_and_compact(self.store())
    }

    /// Writes a checkpoint of this store into directory `dest` (created; it
    /// must not exist or be empty) and returns the timestamp it holds
    /// every commit up to: a store of its own, which `Graph::open` opens
    /// at that state, for a backup, or as the base that
    /// `stratagraph export --as-of` replays the change feed onto. Level
    /// and properties files are hard-linked where `dest` is on the same
    /// file system (they never change, so the checkpoint shares their
    /// space until the store compacts them away), the MANIFEST and log
    /// segments copied. Everything committed is flushed first; writers
    /// wait while it runs. A failed checkpoint leaves nothing at `dest`.
    ///
    /// # Errors
    /// `InMemory` for an in-memory store; `ReadOnly`, `Closed`; `Io` if
    /// `dest` is a non-empty directory or a file cannot be written, or the
    /// error the flush hit.
    pub fn checkpoint(&self, dest: impl AsRef<Path>) -> Result<Timestamp> {
        crate::store::checkpoint::write(self.store(), dest.as_ref())
    }

    /// `checkpoint` into the store's own `checkpoints/<timestamp>`
    /// directory (see [`crate::checkpoints`]), where `stratagraph export
    /// --as-of` looks for a base; returns the timestamp and the directory.
    /// Remove one by deleting its directory.
    ///
    /// # Errors
    /// As `checkpoint`.
    pub fn save_checkpoint(&self) -> Result<(Timestamp, PathBuf)> {
        crate::store::checkpoint::save(self.store())
    }

    /// Waits until the background flush and compaction threads are idle,
    /// then drops from the MemGraph what was flushed and no open snapshot
    /// still reads there. Nothing is flushed or merged that was not already
    /// due: this is for measuring or inspecting the store in a steady state
    /// (benchmarks, tests), not needed for correctness.
    pub fn wait_idle(&self) {
        maintain::wait_idle(self.store());
    }

    /// Writes everything committed so far out of the MemGraph into a run
    /// below it, on the calling thread, and drops the written versions from
    /// the MemGraph unless an older snapshot still needs them there.
    /// Flushes also happen on their own, in the background, whenever the
    /// MemGraph outgrows `Options::memgraph_bytes`; this is for callers that
    /// want it now (before a long read-only phase, or in tests).
    ///
    /// # Errors
    /// The error an earlier background flush hit, if any, or this flush's;
    /// `Closed` after `close`.
    pub fn flush(&self) -> Result<()> {
        self.store().check_writable("flush")?;
        if let Some(e) = maintain::take_background_error(self.store()) {
            return Err(e);
        }
        maintain::flush_now(self.store()).map(drop)
    }
}
