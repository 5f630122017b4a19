//! `Graph`: the public entry point, owning everything one store shares.

use crate::batch;
use crate::error::{Error, Result};
use crate::ids::IdMap;
use crate::lsm::layers::Layers;
use crate::lsm::maintain::{self, LsmState};
use crate::mem::{MemGraph, MemoryUsage, Stamping};
use crate::options::Options;
use crate::snapshot::Snapshot;
use crate::txn::WriteTxn;
use crate::version::{Clock, Timestamp};
use crate::VertexId;
use parking_lot::RwLock;
use std::sync::Arc;

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
    pool: Option<rayon::ThreadPool>,
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
    shared: Arc<Shared>,
}

/// Counters describing a store at one moment.
#[derive(Debug, Clone, Copy, PartialEq)]
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
    /// Bytes of the flushed runs below the MemGraph.
    pub run_bytes: usize,
    /// Flushed runs below the MemGraph.
    pub runs: usize,
    /// Flushes whose versions still wait to leave the MemGraph because an
    /// older snapshot is open.
    pub pending_cleanups: usize,
    /// Flushes that wrote a run, since the store was created.
    pub flushes: u64,
    /// Compactions (runs merged into one), since the store was created.
    pub compactions: u64,
    /// Snapshots currently open.
    pub open_snapshots: usize,
}

impl Stats {
    /// Total bytes (MemGraph + runs + id dictionary).
    pub fn total_bytes(&self) -> usize {
        self.memory.slot_bytes + self.memory.adjacency_bytes + self.run_bytes + self.id_bytes
    }
}

impl Shared {
    /// The stamping context for commit `ts`, or `SnapshotTooOld` if the
    /// oldest open snapshot lags more than the stamp window behind it.
    pub(crate) fn stamping(&self, ts: Timestamp) -> Result<Stamping> {
        let watermark = self.clock.watermark();
        let window = u64::from(self.opts.stamp_window);
        if ts - watermark >= window {
            return Err(Error::SnapshotTooOld {
                snapshot_ts: watermark,
                commit_ts: ts,
                window,
            });
        }
        Ok(Stamping {
            ts,
            watermark,
            window,
        })
    }
}

impl Graph {
    /// A store held entirely in memory.
    pub fn in_memory(opts: Options) -> Graph {
        let pool = (opts.threads > 0).then(|| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(opts.threads)
                .build()
                .ok()
        });
        Graph {
            shared: Arc::new(Shared {
                opts,
                ids: IdMap::new(),
                mem: MemGraph::new(),
                clock: Clock::new(),
                writers: RwLock::new(()),
                layers: RwLock::new(Arc::new(Layers::default())),
                lsm: LsmState::default(),
                pool: pool.flatten(),
            }),
        }
    }

    /// The shared state, for tests of engine modules that work on it (the
    /// flush tests now; the LSM layer once it is wired in).
    #[cfg(test)]
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
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

    fn run<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R {
        match &self.shared.pool {
            Some(pool) => pool.install(f),
            None => f(),
        }
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
    /// # Errors
    /// `InvalidWeight`, `SelfLoop`, `VertexNotFound` (without auto-creation)
    /// or `VertexIdsExhausted`, naming the first offending element's index;
    /// `SnapshotTooOld`. On error nothing is applied.
    pub fn insert_edges(&self, edges: &[(VertexId, VertexId, f64)]) -> Result<Timestamp> {
        let ts = self.run(|| batch::insert_edges(&self.shared, edges))?;
        maintain::note_writes(&self.shared, 2 * edges.len());
        Ok(ts)
    }

    /// Deletes a batch of edges atomically at one timestamp. An edge listed
    /// twice is deleted once.
    ///
    /// # Errors
    /// `EdgeNotFound` naming the first missing edge's index, or
    /// `SnapshotTooOld`; on error nothing is applied.
    pub fn delete_edges(&self, edges: &[(VertexId, VertexId)]) -> Result<Timestamp> {
        let ts = self.run(|| batch::delete_edges(&self.shared, edges))?;
        maintain::note_writes(&self.shared, 2 * edges.len());
        Ok(ts)
    }

    /// Creates a batch of vertices atomically (existing ones are left alone).
    ///
    /// # Errors
    /// `VertexIdsExhausted` or `SnapshotTooOld`; on error nothing is applied.
    pub fn insert_vertices(&self, vertices: &[VertexId]) -> Result<Timestamp> {
        self.run(|| batch::insert_vertices(&self.shared, vertices))
    }

    /// Counts and memory. Walks every vertex to measure memory, so it costs
    /// about as much as a scan of the vertex table.
    pub fn stats(&self) -> Stats {
        let snap = self.snapshot();
        let bound = self.shared.ids.bound();
        let layers = self.shared.layers.read().clone();
        Stats {
            timestamp: snap.timestamp(),
            vertices: snap.vertex_count(),
            edges: snap.edge_count(),
            ids_assigned: bound,
            memory: self.shared.mem.usage(bound),
            id_bytes: self.shared.ids.memory_bytes(),
            run_bytes: layers.bytes(),
            runs: layers.runs.len(),
            pending_cleanups: self.shared.lsm.pending_cleanups(),
            flushes: self.shared.lsm.counts().0,
            compactions: self.shared.lsm.counts().1,
            open_snapshots: self.shared.clock.open_snapshots() - 1,
        }
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
        maintain::flush(&self.shared).map(drop)
    }
}
