//! `stratagraph.Graph`: the store handle, its single writes and batches.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use parking_lot::RwLock;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use stratagraph::{Graph, Options};

use crate::conversions::{self as conv, same_length, VertexArg};
use crate::edges::{self, EdgeArgs};
use crate::errors::{self, NotFound};
use crate::loaders;
use crate::snapshot::PySnapshot;
use crate::transaction::PyTransaction;
use crate::values;
use crate::vertices;

/// A dynamic graph store. Create one with ``Graph.in_memory()``.
///
/// Vertices are unsigned 64-bit integers, or in a store created with
/// ``string_ids=True`` ``str`` keys (see ``string_ids``). Every write is
/// atomic and gets a commit timestamp, which the write methods return. Readers work on
/// ``snapshot()`` objects, which stay unchanged while writes go on, so one
/// Python thread can analyse a snapshot while another writes: every call
/// that can take long releases the GIL.
///
/// Use it as a context manager (``with Graph.in_memory() as g:``) or call
/// ``close()``; after that every call on the graph, its snapshots and its
/// transactions raises ``stratagraph.Closed``.
#[pyclass(frozen, module = "stratagraph", name = "Graph")]
pub struct PyGraph {
    /// `None` once closed, so closing frees the store as soon as the last
    /// snapshot lets go of it instead of when Python collects this object.
    store: RwLock<Option<Graph>>,
    /// Shared with snapshots and transactions, which must refuse work once
    /// the graph is closed (an on-disk store will have closed its files).
    open: Arc<AtomicBool>,
    directed: bool,
    /// The store names vertices by string keys (`Options::string_ids`).
    string_ids: bool,
    /// Every commit waits for the log's sync (an on-disk store with
    /// `SyncPolicy::Always`): single writes then release the GIL, since a
    /// sync takes milliseconds. In memory they keep it: releasing and
    /// retaking it would cost more than the write.
    syncs: bool,
}

impl PyGraph {
    pub fn new(graph: Graph) -> Self {
        PyGraph {
            directed: graph.options().directed,
            string_ids: graph.options().string_ids,
            syncs: graph.path().is_some()
                && graph.options().sync == stratagraph::SyncPolicy::Always,
            store: RwLock::new(Some(graph)),
            open: Arc::new(AtomicBool::new(true)),
        }
    }

    /// Runs `f` on the store, or raises `Closed`.
    ///
    /// `read_recursive` because a plain read would queue behind a waiting
    /// `close()`, and this thread may hold the GIL that the thread being
    /// waited on needs in order to finish. `f` must not run Python code:
    /// convert arguments before calling this.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&Graph) -> PyResult<R>) -> PyResult<R> {
        let guard = self.store.read_recursive();
        let graph = guard.as_ref().ok_or_else(|| errors::closed("graph"))?;
        f(graph)
    }

    /// The key dictionary of `g` if the store is string-keyed (see
    /// `vertices.rs`), `None` if it names vertices by integers.
    fn dict<'g>(&self, g: &'g Graph) -> Option<&'g Graph> {
        self.string_ids.then_some(g)
    }

    /// The engine's error `e` as its Python exception, naming the keys of
    /// the vertices it names in a string-keyed store.
    fn error(&self, g: &Graph, e: stratagraph::Error) -> PyErr {
        vertices::engine_error(self.dict(g), e)
    }

    /// The id of vertex argument `v` for a write that may create the
    /// vertex, a new key given its id (see `vertices::create`).
    #[inline]
    fn create(&self, v: &VertexArg, arg: &str) -> PyResult<u64> {
        match v {
            VertexArg::Id(id) if !self.string_ids => Ok(*id),
            _ => self.with(|g| vertices::create(self.dict(g), v, arg)),
        }
    }

    /// The id of vertex argument `v` for a write that needs the vertex to
    /// exist: `NotFound` (as the engine says it for `op`) for a key that
    /// names no vertex.
    fn existing(&self, v: &VertexArg, arg: &str, op: stratagraph::Op) -> PyResult<u64> {
        match v {
            VertexArg::Id(id) => Ok(*id),
            VertexArg::Key(_) => self
                .with(|g| vertices::find(self.dict(g), v, arg))?
                .ok_or_else(|| NotFound::new_err(format!("{op}: vertex {v} does not exist"))),
        }
    }

    /// Runs one single write (which is short unless it waits for a sync),
    /// releasing the GIL when it will wait (see `syncs`).
    fn write(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Graph) -> stratagraph::Result<u64> + Send,
    ) -> PyResult<u64> {
        self.with(|g| {
            if self.syncs {
                py.detach(|| f(g)).map_err(|e| self.error(g, e))
            } else {
                f(g).map_err(|e| self.error(g, e))
            }
        })
    }

    /// Runs `f` in a transaction of its own and commits it, without the
    /// GIL (a commit waits for concurrent batch writes): the single calls
    /// the engine offers only inside transactions. A `Conflict` (another
    /// commit changed the same element in between) runs it again, as a
    /// single write would have been ordered after that commit.
    fn in_txn<R: Send>(
        &self,
        py: Python<'_>,
        f: impl Fn(&mut stratagraph::WriteTxn) -> stratagraph::Result<R> + Sync,
    ) -> PyResult<(R, u64)> {
        const ATTEMPTS: usize = 16;
        self.with(|g| {
            py.detach(|| {
                let mut attempt = 0;
                loop {
                    let mut tx = g.begin();
                    let out = f(&mut tx)?;
                    match tx.commit() {
                        Ok(ts) => return Ok((out, ts)),
                        Err(stratagraph::Error::Conflict { .. }) if attempt + 1 < ATTEMPTS => {
                            attempt += 1;
                        }
                        Err(e) => return Err(e),
                    }
                }
            })
            .map_err(|e| self.error(g, e))
        })
    }
}

#[pymethods]
impl PyGraph {
    /// A store held entirely in memory.
    ///
    /// ``threads`` bounds the threads batch writes use (0 = all cores);
    /// ``compaction_threads`` those a compaction merges on (0 = all cores),
    /// a pool apart, so that batches never wait for a merge's workers.
    /// With ``allow_self_loops=False`` an edge ``(v, v)`` raises
    /// ``InvalidInput``; with ``auto_create_vertices=False`` an edge to a
    /// missing vertex raises ``NotFound`` instead of creating it.
    /// ``max_vertex_ids`` caps the vertex ids the store takes in (each id it
    /// ever sees holds one for good, even after its vertex is removed): a
    /// write needing more raises ``CapacityExceeded`` and changes nothing.
    /// With ``string_ids=True`` the store names its vertices by ``str``
    /// keys (see ``string_ids``).
    /// ``_stamp_window`` is a testing aid (how many commits an open snapshot
    /// may lag before writes raise ``SnapshotTooOld``); leave it unset.
    #[staticmethod]
    #[pyo3(signature = (
        directed = true,
        *,
        threads = 0,
        compaction_threads = 0,
        allow_self_loops = true,
        auto_create_vertices = true,
        max_vertex_ids = None,
        string_ids = false,
        _stamp_window = None
    ))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    fn in_memory(
        directed: bool,
        threads: i64,
        compaction_threads: i64,
        allow_self_loops: bool,
        auto_create_vertices: bool,
        max_vertex_ids: Option<i64>,
        string_ids: bool,
        _stamp_window: Option<i64>,
    ) -> PyResult<Self> {
        let mut opts = Options {
            directed,
            string_ids,
            allow_self_loops,
            auto_create_vertices,
            max_vertex_ids: conv::max_vertex_ids(max_vertex_ids)?,
            threads: conv::threads(threads)?,
            compaction_threads: conv::compaction_threads(compaction_threads)?,
            ..Options::default()
        };
        if let Some(w) = _stamp_window {
            opts.stamp_window = conv::count(w, "_stamp_window", u64::from(u32::MAX))? as u32;
            if opts.stamp_window == 0 {
                return Err(pyo3::exceptions::PyValueError::new_err(
                    "_stamp_window: expected a positive integer, got 0",
                ));
            }
        }
        Ok(PyGraph::new(Graph::in_memory(opts)))
    }

    /// Opens the on-disk store in directory ``path``, creating it if it
    /// holds none. Flushed data lives there as memory-mapped files;
    /// ``close()`` (or leaving the ``with`` block) writes everything out and
    /// releases the directory, so the store reopens with all its data, even
    /// while snapshots or transactions of this graph are still referenced
    /// (they raise ``Closed``).
    ///
    /// ``directed`` only matters when the store is created (directed when
    /// left as ``None``): an existing store is opened as its manifest says,
    /// and an explicit value that contradicts it raises ``InvalidInput``
    /// naming both kinds. ``string_ids`` likewise: ``True`` creates a store
    /// that names vertices by ``str`` keys (see ``string_ids``), ``None``
    /// opens an existing store as it was created (integer ids for a new
    /// one), and a kind the store was not created with raises
    /// ``InvalidInput``.
    ///
    /// Every commit is appended to a write-ahead log before it becomes
    /// visible; reopening after a crash replays it. ``sync`` says when a
    /// commit counts as durable: ``"always"`` (returns after the log is
    /// synced to the device; concurrent commits share one sync),
    /// ``"interval:MS"`` (written to the OS at once, synced every MS
    /// milliseconds: a power loss may lose the last interval) or
    /// ``"never"`` (synced only at flushes and close: a power loss may lose
    /// everything since the last flush). A process crash loses nothing
    /// under any policy.
    ///
    /// ``create=False`` refuses a directory that holds no store yet
    /// (``InvalidInput``) instead of creating one there. A directory of
    /// other files is never made a store (``InvalidInput``), and one whose
    /// MANIFEST is missing while it holds store data raises ``Corruption``
    /// and is left as it is.
    ///
    /// ``read_only=True`` opens an existing store without changing any
    /// file, so it needs only read access: the log is replayed in memory,
    /// nothing is flushed or written, and every write (single, batch or
    /// transaction commit) raises ``ReadOnly``. Several read-only handles (and
    /// ``stratagraph check``) may have a store open at once, a writer may
    /// not. It never creates a store (``InvalidInput`` where there is none).
    ///
    /// A directory that is already open (here or in another process; for
    /// ``read_only``, open for writing) raises ``StoreLocked``; a damaged
    /// file raises
    /// ``Corruption`` naming it and the offset. ``max_vertex_ids`` is as
    /// for ``in_memory`` and is not stored: a store holding more ids than
    /// it keeps them but takes no new one. ``threads`` and
    /// ``compaction_threads`` are as for ``in_memory``.
    ///
    /// ``compress_levels`` (on by default) keeps the level files' weights
    /// dictionary-coded, one or two bytes an edge instead of eight; off,
    /// they stay ``float64`` values, which ``Snapshot.to_arrow`` can hand
    /// out without a copy. ``pack_levels`` (off by default) packs the
    /// destinations of compacted levels, about two bytes an edge instead
    /// of four, for a graph that must fit a memory or disk budget; reads
    /// decode them, which slows analytics 1.3 to 2 times today. Both apply
    /// to files written from now on.
    ///
    /// ``update_policy`` is how a flush writes the lists of the vertices
    /// it holds writes for (Poly-LSM's delta and pivot entries): "delta"
    /// (the default) writes only what changed, so a read of the vertex
    /// visits every level holding part of its list; "pivot" writes the
    /// whole list again and marks it, so later reads stop there;
    /// "adaptive:SHARE" pivots the vertices whose estimated degree is
    /// below the cost model's threshold for a workload with this share of
    /// look-ups (0 to 1). ``stats()["pivot_marks"]`` counts the marked
    /// lists. A bad value raises ``ValueError``.
    #[staticmethod]
    #[pyo3(signature = (
        path,
        directed = None,
        sync = "always",
        *,
        threads = 0,
        compaction_threads = 0,
        allow_self_loops = true,
        auto_create_vertices = true,
        max_vertex_ids = None,
        create = true,
        read_only = false,
        string_ids = None,
        compress_levels = true,
        pack_levels = false,
        update_policy = "delta"
    ))]
    #[allow(clippy::too_many_arguments)] // Python keyword arguments
    fn open(
        py: Python<'_>,
        path: std::path::PathBuf,
        directed: Option<bool>,
        sync: &str,
        threads: i64,
        compaction_threads: i64,
        allow_self_loops: bool,
        auto_create_vertices: bool,
        max_vertex_ids: Option<i64>,
        create: bool,
        read_only: bool,
        string_ids: Option<bool>,
        compress_levels: bool,
        pack_levels: bool,
        update_policy: &str,
    ) -> PyResult<Self> {
        let sync = conv::sync_policy(sync)?;
        let update_policy = conv::update_policy(update_policy)?;
        let (directed, stored_string_ids) = py
            .detach(|| {
                Ok::<_, stratagraph::Error>((
                    stratagraph::resolve_directed(&path, directed)?,
                    stratagraph::stored_string_ids(&path)?,
                ))
            })
            .map_err(errors::engine)?;
        // An explicit kind the store contradicts is left to `Graph::open`,
        // which refuses it naming both.
        let string_ids = string_ids.or(stored_string_ids).unwrap_or(false);
        let opts = Options {
            directed,
            sync,
            allow_self_loops,
            auto_create_vertices,
            max_vertex_ids: conv::max_vertex_ids(max_vertex_ids)?,
            threads: conv::threads(threads)?,
            compaction_threads: conv::compaction_threads(compaction_threads)?,
            create_if_missing: create && !read_only,
            read_only,
            string_ids,
            compress_levels,
            pack_levels,
            update_policy,
            ..Options::default()
        };
        let graph = py
            .detach(|| Graph::open(&path, opts))
            .map_err(errors::engine)?;
        Ok(PyGraph::new(graph))
    }

    /// Whether edges have a direction.
    #[getter]
    fn directed(&self) -> bool {
        self.directed
    }

    /// Whether the store names its vertices by ``str`` keys (it was created
    /// with ``string_ids=True``; fixed for good then).
    ///
    /// In such a store every vertex argument may be a ``str`` key: a write
    /// that may create the vertex (``add_vertex``, ``add_edge``,
    /// ``add_vertices``, ``add_edges``) gives a new key the next integer
    /// id (0, 1, 2, ... in the order keys are first written; durable;
    /// giving one creates no vertex), and a read, or a write that needs the
    /// vertex (``set_property``, ``remove_vertex`` ...), only looks it up:
    /// a key never written names no vertex, so the call does what it does
    /// for a missing vertex (``NotFound``, ``False`` or the default). An
    /// integer is taken as a key's id; one no key has is refused with
    /// ``InvalidInput`` by writes. Results that hold one vertex (the
    /// ``"id"`` of ``Snapshot.vertex``, the ``"src"`` and ``"dst"`` of edge
    /// dicts, the keys of ``to_dict``) show its key; arrays of vertices
    /// (``vertices()``, ``neighbors()``, ``edges()``, ``find_vertices()``,
    /// analytics labels) stay uint64 arrays of ids, for speed: ``keys(ids)``
    /// translates them. In a store of integer ids a ``str`` vertex raises
    /// ``InvalidInput``.
    #[getter]
    fn string_ids(&self) -> bool {
        self.string_ids
    }

    /// The id of vertex key ``key`` (see ``string_ids``), or ``None`` if no
    /// write named it yet (and always in a store of integer ids). Gives no
    /// id.
    fn key_id(&self, key: &str) -> PyResult<Option<u64>> {
        self.with(|g| Ok(g.key_id(key)))
    }

    /// The key of vertex id ``id`` in a string-keyed store, or ``None`` if
    /// no key has it (always in a store of integer ids).
    fn key_of(&self, id: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let id = conv::vertex(id, "id")?;
        self.with(|g| Ok(g.key_of(id).map(|k| k.to_string())))
    }

    /// The keys of ``ids`` (an array or iterable of vertex ids, such as
    /// ``Snapshot.vertices()`` or ``neighbors()`` return), as a list of
    /// ``str`` in the same order. Raises ``InvalidInput`` in a store of
    /// integer ids, or naming the first id no key has.
    fn keys(&self, ids: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let ids = conv::id_iterable(ids, "ids")?;
        let ids = ids.as_slice()?;
        let keys = self.with(|g| vertices::keys_of(self.dict(g), ids))?;
        Ok(keys.iter().map(|k| k.to_string()).collect())
    }

    /// Whether the store was opened with ``read_only=True``.
    #[getter]
    fn read_only(&self) -> PyResult<bool> {
        self.with(|g| Ok(g.options().read_only))
    }

    /// Whether ``close()`` has been called.
    #[getter]
    fn closed(&self) -> bool {
        !self.open.load(Ordering::Acquire)
    }

    /// Number of vertices at the newest commit.
    #[getter]
    fn num_vertices(&self) -> PyResult<u64> {
        self.with(|g| Ok(g.snapshot().vertex_count()))
    }

    /// Number of edges at the newest commit (an undirected edge counts once).
    #[getter]
    fn num_edges(&self) -> PyResult<u64> {
        self.with(|g| Ok(g.snapshot().edge_count()))
    }

    /// The store's counters now, as a ``dict``: ``timestamp`` (newest
    /// commit), ``vertices``, ``edges``, ``property_edges``,
    /// ``ids_assigned``, ``memory_bytes`` (MemGraph, runs, id dictionary
    /// and kept reads), ``run_bytes``, ``runs`` (L0), ``levels`` (one
    /// ``dict`` per level L1.. with ``parts``, ``entries``, ``bytes``),
    /// ``pivot_marks`` (lists written whole as pivots, see
    /// ``update_policy``), ``flushes`` and ``compactions`` (since opened),
    /// ``open_snapshots``, ``log_segments``, ``log_bytes``,
    /// ``level_bytes_written`` and ``write_amplification`` (bytes written
    /// to storage per byte of edge writes since opened). Walks the vertex
    /// table: O(vertices).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let st = self.with(|g| Ok(py.detach(|| g.stats())))?;
        let d = PyDict::new(py);
        d.set_item("timestamp", st.timestamp)?;
        d.set_item("vertices", st.vertices)?;
        d.set_item("edges", st.edges)?;
        d.set_item("property_edges", st.property_edges)?;
        d.set_item("ids_assigned", st.ids_assigned)?;
        d.set_item("memory_bytes", st.total_bytes())?;
        d.set_item("run_bytes", st.run_bytes)?;
        d.set_item("runs", st.runs)?;
        let levels = st
            .levels
            .iter()
            .map(|l| {
                let level = PyDict::new(py);
                level.set_item("parts", l.parts)?;
                level.set_item("entries", l.entries)?;
                level.set_item("bytes", l.bytes)?;
                Ok(level)
            })
            .collect::<PyResult<Vec<_>>>()?;
        d.set_item("levels", levels)?;
        d.set_item("pivot_marks", st.pivot_marks)?;
        d.set_item("flushes", st.flushes)?;
        d.set_item("compactions", st.compactions)?;
        d.set_item("open_snapshots", st.open_snapshots)?;
        d.set_item("log_segments", st.log_segments)?;
        d.set_item("log_bytes", st.log_bytes)?;
        d.set_item("level_bytes_written", st.level_bytes_written)?;
        d.set_item("write_amplification", st.write_amplification)?;
        Ok(d)
    }

    /// Number of property edges (``add_edge`` with a label) in the latest
    /// state. Reads the store's counters, which walk the vertex table:
    /// O(vertices), not O(1) like ``num_edges``.
    #[getter]
    fn num_property_edges(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(|g| Ok(py.detach(|| g.stats().property_edges)))
    }

    /// Creates vertex ``v`` with ``label`` (``"vertex"`` if not given) and
    /// the keyword arguments as its properties; nothing happens if it
    /// exists. Returns the commit timestamp.
    #[pyo3(signature = (v, label = None, **properties))]
    fn add_vertex(
        &self,
        py: Python<'_>,
        v: &Bound<'_, PyAny>,
        label: Option<&str>,
        properties: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<u64> {
        let v = self.create(&conv::vertex_arg(v, "v")?, "v")?;
        match values::vertex_args(label, properties)? {
            None => self.write(py, |g| g.insert_vertex(v)),
            Some((label, props)) => self.write(py, |g| {
                g.insert_vertex_with(v, &label, &values::borrowed(&props))
            }),
        }
    }

    /// Creates an index of the vertices labelled ``label`` by property
    /// ``key`` (``Snapshot.find_vertices`` then looks values up instead of
    /// scanning); ``False`` if it exists. Raises ``InvalidInput`` if a
    /// vertex holds NaN there.
    fn create_index(&self, py: Python<'_>, label: &str, key: &str) -> PyResult<bool> {
        self.with(|g| {
            py.detach(|| g.create_index(label, key))
                .map_err(errors::engine)
        })
    }

    /// The indexes, as ``(label, key)`` pairs in the order created.
    fn indexes(&self) -> PyResult<Vec<(String, String)>> {
        self.with(|g| Ok(g.indexes()))
    }

    /// Sets property ``key`` of vertex ``v`` to ``value``; returns the
    /// commit timestamp. Raises ``NotFound`` if ``v`` does not exist.
    fn set_property(
        &self,
        py: Python<'_>,
        v: &Bound<'_, PyAny>,
        key: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<u64> {
        let v = conv::vertex_arg(v, "v")?;
        let value = values::to_value(value, &format!("property {key:?}"))?;
        let v = self.existing(&v, "v", stratagraph::Op::SetProperty)?;
        self.write(py, |g| g.set_property(v, key, value))
    }

    /// Removes property ``key`` of vertex ``v`` in a transaction of its
    /// own; returns whether it was set. Raises ``NotFound`` if ``v`` does
    /// not exist.
    fn remove_property(&self, py: Python<'_>, v: &Bound<'_, PyAny>, key: &str) -> PyResult<bool> {
        let v = conv::vertex_arg(v, "v")?;
        let v = self.existing(&v, "v", stratagraph::Op::RemoveProperty)?;
        let (removed, _) = self.in_txn(py, |tx| tx.remove_property(v, key))?;
        Ok(removed)
    }

    /// Creates every vertex of ``vertices`` (an array-like of ids; in a
    /// string-keyed store also a sequence of ``str`` keys) atomically,
    /// leaving existing ones alone; returns the commit timestamp. Every
    /// element is checked before anything is written (or a key given an
    /// id).
    fn add_vertices(&self, py: Python<'_>, vertices: &Bound<'_, PyAny>) -> PyResult<u64> {
        let batch = conv::vertex_batch(vertices, "vertices")?;
        self.with(|g| {
            let ids = vertices::create_batches(self.dict(g), &[(&batch, "vertices")])?;
            let ids: Vec<u64> = ids.into_iter().flat_map(|ids| ids.into_owned()).collect();
            py.detach(|| g.insert_vertices(&ids))
                .map_err(|e| self.error(g, e))
        })
    }

    /// Deletes vertex ``v`` and all its edges; returns the commit timestamp.
    /// Raises ``NotFound`` if ``v`` does not exist.
    fn remove_vertex(&self, py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<u64> {
        let v = self.existing(
            &conv::vertex_arg(v, "v")?,
            "v",
            stratagraph::Op::DeleteVertex,
        )?;
        self.write(py, |g| g.delete_vertex(v))
    }

    /// Deletes every vertex of ``vertices`` and their edges in one atomic
    /// commit; returns its timestamp. Raises ``NotFound`` (and deletes
    /// nothing) if one does not exist; a vertex listed twice is deleted once.
    fn remove_vertices(&self, py: Python<'_>, vertices: &Bound<'_, PyAny>) -> PyResult<u64> {
        let batch = conv::vertex_batch(vertices, "vertices")?;
        self.with(|g| {
            let unknown = |_: usize, v: &VertexArg| {
                NotFound::new_err(format!(
                    "{}: vertex {v} does not exist",
                    stratagraph::Op::DeleteVertex
                ))
            };
            let mut ids = vertices::find_batch(self.dict(g), &batch, "vertices", unknown)?.to_vec();
            ids.sort_unstable();
            ids.dedup();
            // The engine has no vertex-delete batch: one transaction is the
            // atomic equivalent.
            py.detach(|| {
                let mut tx = g.begin();
                for &v in &ids {
                    tx.delete_vertex(v)?;
                }
                tx.commit()
            })
            .map_err(|e| self.error(g, e))
        })
    }

    /// ``add_edge(u, v, weight=1.0)`` inserts the weighted edge ``u -> v``
    /// (or re-weights it if it exists) and returns the commit timestamp.
    ///
    /// ``add_edge(u, v, label, **properties)``, with a ``str`` label,
    /// creates a new property edge ``u -> v`` with that label and the
    /// keyword arguments as its properties (``weight=`` among them is a
    /// property then) in a transaction of its own, and returns the edge's
    /// id (not a timestamp). Any number of property edges may join two
    /// vertices; they are kept apart from the weighted structure the
    /// analytics read.
    ///
    /// Missing endpoints are created unless the store was made with
    /// ``auto_create_vertices=False``. A third argument that is neither a
    /// ``str`` nor a real number (a ``bool`` is not one here), or keyword
    /// arguments other than ``weight`` without a label, raise
    /// ``TypeError``.
    #[pyo3(signature = (u, v, label = None, /, **properties))]
    fn add_edge(
        &self,
        py: Python<'_>,
        u: &Bound<'_, PyAny>,
        v: &Bound<'_, PyAny>,
        label: Option<&Bound<'_, PyAny>>,
        properties: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<u64> {
        let (u, v) = (conv::vertex_arg(u, "u")?, conv::vertex_arg(v, "v")?);
        let (u, v) = match (u, v) {
            (VertexArg::Id(u), VertexArg::Id(v)) if !self.string_ids => (u, v),
            (u, v) => self.with(|g| vertices::create_pair(self.dict(g), (&u, "u"), (&v, "v")))?,
        };
        if label.is_none() && properties.is_none() {
            return self.write(py, |g| g.insert_edge(u, v, 1.0));
        }
        match edges::add_edge_args(label, properties)? {
            EdgeArgs::Weighted(weight) => self.write(py, |g| g.insert_edge(u, v, weight)),
            EdgeArgs::Property(label, props) => {
                let props = values::borrowed(&props);
                let (id, _) = self.in_txn(py, |tx| tx.add_edge(u, v, &label, &props))?;
                Ok(id)
            }
        }
    }

    /// Takes ``add_edge``'s arguments and does nothing: the cost of a bare
    /// method call, the baseline ``bench/python_speed.py`` compares
    /// ``add_edge`` with. Not API.
    #[pyo3(signature = (u, v, label = None, /, **properties))]
    fn _empty_method(
        &self,
        u: &Bound<'_, PyAny>,
        v: &Bound<'_, PyAny>,
        label: Option<&Bound<'_, PyAny>>,
        properties: Option<&Bound<'_, PyDict>>,
    ) -> u64 {
        let _ = (u, v, label, properties);
        0
    }

    /// ``remove_edge(u, v)`` deletes the weighted edge ``u -> v``;
    /// ``remove_edge(edge_id)`` deletes the property edge with that id and
    /// its properties. Returns the commit timestamp; raises ``NotFound`` if
    /// the edge does not exist.
    #[pyo3(signature = (u, v = None))]
    fn remove_edge(
        &self,
        py: Python<'_>,
        u: &Bound<'_, PyAny>,
        v: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        match v {
            Some(v) => {
                let (u, v) = (conv::vertex_arg(u, "u")?, conv::vertex_arg(v, "v")?);
                let found = self.with(|g| {
                    let keys = self.dict(g);
                    Ok((
                        vertices::find(keys, &u, "u")?,
                        vertices::find(keys, &v, "v")?,
                    ))
                })?;
                let (Some(a), Some(b)) = found else {
                    return Err(NotFound::new_err(format!(
                        "{}: edge ({u}, {v}) does not exist",
                        stratagraph::Op::DeleteEdge
                    )));
                };
                self.write(py, |g| g.delete_edge(a, b))
            }
            None => {
                let e = conv::edge(u, "edge_id")?;
                let ((), ts) = self.in_txn(py, |tx| tx.remove_edge(e))?;
                Ok(ts)
            }
        }
    }

    /// Sets property ``key`` of property edge ``edge_id`` to ``value``;
    /// returns the commit timestamp. Raises ``NotFound`` if the edge does
    /// not exist, ``InvalidInput`` for a bad key or value.
    fn set_edge_property(
        &self,
        py: Python<'_>,
        edge_id: &Bound<'_, PyAny>,
        key: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<u64> {
        let e = conv::edge(edge_id, "edge_id")?;
        let value = values::to_value(value, &format!("property {key:?}"))?;
        let ((), ts) = self.in_txn(py, |tx| tx.set_edge_property(e, key, value.clone()))?;
        Ok(ts)
    }

    /// Inserts the edges ``src[i] -> dst[i]`` atomically at one timestamp
    /// and returns it.
    ///
    /// ``src`` and ``dst`` are equal-length array-likes of integer ids
    /// (numpy arrays of any integer dtype are used without a Python loop),
    /// in a string-keyed store also sequences of ``str`` keys (ids may stand
    /// beside them); ``weights`` is ``None`` (all 1.0), one number, or an
    /// array-like of numbers. A later duplicate of an edge in the same batch
    /// wins. On any error (e.g. ``InvalidInput`` for a NaN weight, naming
    /// the batch element, or for a vertex of the wrong kind, naming it as
    /// ``src[i]``) nothing is applied, and no key is given an id.
    #[pyo3(signature = (src, dst, weights = None))]
    fn add_edges(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
        weights: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<u64> {
        let src = conv::vertex_batch(src, "src")?;
        let dst = conv::vertex_batch(dst, "dst")?;
        let n = src.len()?;
        same_length(n, dst.len()?)?;
        let weights = conv::weights(weights, n)?;
        self.with(|g| {
            let ids = vertices::create_batches(self.dict(g), &[(&src, "src"), (&dst, "dst")])?;
            // Copied while the GIL is held: the arrays belong to Python, and
            // no other Python thread may write them while the copy reads
            // them.
            let edges = weights.edges(&ids[0], &ids[1])?;
            py.detach(|| g.insert_edges(&edges))
                .map_err(|e| self.error(g, e))
        })
    }

    /// Deletes the edges ``src[i] -> dst[i]`` atomically at one timestamp
    /// and returns it. Raises ``NotFound`` (naming the batch element, and
    /// deleting nothing) if one does not exist; an edge listed twice is
    /// deleted once.
    fn remove_edges(
        &self,
        py: Python<'_>,
        src: &Bound<'_, PyAny>,
        dst: &Bound<'_, PyAny>,
    ) -> PyResult<u64> {
        let src = conv::vertex_batch(src, "src")?;
        let dst = conv::vertex_batch(dst, "dst")?;
        same_length(src.len()?, dst.len()?)?;
        self.with(|g| {
            let keys = self.dict(g);
            let unknown = |i: usize, _: &VertexArg| {
                let show = |b: &conv::VertexBatch<'_>| match b {
                    conv::VertexBatch::Args(args) => args[i].to_string(),
                    conv::VertexBatch::Ids(ids) => ids
                        .as_slice()
                        .map_or_else(|_| "?".to_owned(), |s| s[i].to_string()),
                };
                NotFound::new_err(format!(
                    "{}: edge ({}, {}) does not exist (batch element {i})",
                    stratagraph::Op::DeleteEdge,
                    show(&src),
                    show(&dst)
                ))
            };
            let s = vertices::find_batch(keys, &src, "src", unknown)?;
            let d = vertices::find_batch(keys, &dst, "dst", unknown)?;
            let pairs: Vec<(u64, u64)> = s.iter().copied().zip(d.iter().copied()).collect();
            py.detach(|| g.delete_edges(&pairs))
                .map_err(|e| self.error(g, e))
        })
    }

    /// Answers one Gremlin Server request frame in this process: ``frame``
    /// is what a TinkerPop driver writes to its socket (the mime-type
    /// header, then a GraphBinary or GraphSON request); returns the
    /// response frames. ``stratagraph.gremlin_source`` sends bytecode
    /// through it. Each request is one transaction; the GIL is released
    /// while it runs.
    fn _gremlin_frame<'py>(
        &self,
        py: Python<'py>,
        frame: Vec<u8>,
    ) -> PyResult<Vec<Bound<'py, pyo3::types::PyBytes>>> {
        let limits = stratagraph_server::server::Limits::default();
        let replies = self.with(|g| {
            Ok(py.detach(|| stratagraph_server::server::answer_frame(g, &frame, &limits)))
        })?;
        Ok(replies
            .iter()
            .map(|b| pyo3::types::PyBytes::new(py, b))
            .collect())
    }

    /// Every write committed after timestamp ``since``, as a
    /// ``pyarrow.Table`` (needs pyarrow; ``changes_stream`` gives the same
    /// to any Arrow consumer): one row per write in commit order, columns
    /// ``ts``, ``op`` (``add_vertex``, ``delete_vertex``, ``put_edge``,
    /// ``delete_edge``, ``set_property``, ``remove_property``,
    /// ``add_edge``, ``remove_edge``, ``set_edge_property``,
    /// ``remove_edge_property``, ``create_index``), ``vertex``, ``src``,
    /// ``dst``, ``edge_id``, ``label``, ``key``, ``value`` (the engine's
    /// encoding of the value), ``weight``. Take ``snapshot().timestamp``
    /// before the call to know where the next call may start. A downstream
    /// copy catches up with ``apply_changes``.
    ///
    /// Raises ``ChangesUnavailable`` when changes after ``since`` are no
    /// longer all kept (an on-disk store keeps 64 MiB of retired log; an
    /// in-memory graph keeps none), naming from where they are.
    #[pyo3(signature = (since = 0))]
    fn changes<'py>(&self, py: Python<'py>, since: u64) -> PyResult<Bound<'py, PyAny>> {
        let stream = self.changes_stream(py, since)?;
        py.import("pyarrow")?.call_method1("table", (stream,))
    }

    /// ``changes(since)`` as a ``stratagraph.ArrowStream``.
    #[pyo3(signature = (since = 0))]
    fn changes_stream(&self, py: Python<'_>, since: u64) -> PyResult<crate::arrow::PyArrowStream> {
        let (schema, batches) = self.with(|g| {
            let c = py
                .detach(|| g.changes(since))
                .map_err(|e| self.error(g, e))?;
            Ok(stratagraph_io::changes::change_table(
                &g.snapshot(),
                &c.changes,
            ))
        })?;
        Ok(crate::arrow::PyArrowStream::new(schema, batches))
    }

    /// Applies a table of changes (what ``changes`` gives, from this or
    /// another store) to this graph, each commit's rows as one
    /// transaction, without the GIL: a copy taken at ``since`` (an export,
    /// ``from_arrow`` of ``to_arrow``) catches up with the store the
    /// changes came from. Every row is checked first (``InvalidInput``
    /// naming the column, the graph unchanged); a commit the graph refuses
    /// stops there, keeping the ones before (``loaded["batches"]``).
    fn apply_changes<'py>(
        &self,
        py: Python<'py>,
        table: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (schema, batches) = crate::arrow::read_stream(&table, "table")?;
        let t = stratagraph_io::tables::Table {
            name: stratagraph_io::tables::table_name("changes"),
            schema,
            batches,
        };
        let loaded = self.with(|g| {
            py.detach(|| stratagraph_io::changes::apply(g, &t))
                .map_err(|e| loaders::error(py, e))
        })?;
        loaders::loaded_dict(py, loaded)
    }

    /// Loads Arrow tables into this graph, without the GIL: ``vertices``
    /// then ``edges``, each anything with ``__arrow_c_stream__`` (a
    /// pyarrow Table, a polars or pandas DataFrame) or ``None``. Returns
    /// ``{"vertices": n, "edges": n, "batches": n}`` (edges of both kinds).
    ///
    /// The columns ``to_arrow`` writes: vertices need ``_id`` (integers,
    /// or strings in a store of string ids) and may have ``_label``; edges
    /// need ``_src`` and ``_dst`` and may have ``_label``, ``_id`` and
    /// ``_weight``. A row with a label is a property edge (with ``_id``,
    /// or a new id where it is null); a row without one is an edge of the
    /// weighted structure (``_weight``, or 1.0). Every other column is a
    /// property; nulls are absent values. A vertex already in the graph
    /// gets the row's properties.
    ///
    /// Both tables are read and checked before anything is written (a
    /// missing column, a null id, a column type with no property type):
    /// ``InvalidInput`` naming the table and column (in ``field``), the
    /// graph unchanged. ``batch`` rows are one transaction; a row the
    /// store refuses (an edge id in use, a missing vertex) keeps the
    /// batches before it, and the error says so (``line`` is the row, from
    /// 1).
    #[pyo3(signature = (vertices = None, edges = None, *, batch = 10_000))]
    fn load_arrow<'py>(
        &self,
        py: Python<'py>,
        vertices: Option<Bound<'py, PyAny>>,
        edges: Option<Bound<'py, PyAny>>,
        batch: i64,
    ) -> PyResult<Bound<'py, PyDict>> {
        use stratagraph_io::tables::{self, table_name, Table};
        let opts = loaders::options(batch)?;
        let read = |obj: Option<Bound<'py, PyAny>>, what: &str| -> PyResult<Option<Table>> {
            match obj {
                Some(o) if !o.is_none() => {
                    let (schema, batches) = crate::arrow::read_stream(&o, what)?;
                    Ok(Some(Table {
                        name: table_name(what),
                        schema,
                        batches,
                    }))
                }
                _ => Ok(None),
            }
        };
        let v = read(vertices, "vertices")?;
        let e = read(edges, "edges")?;
        let loaded = self.with(|g| {
            py.detach(|| tables::load(g, v.as_ref(), e.as_ref(), opts.batch))
                .map_err(|err| loaders::error(py, err))
        })?;
        loaders::loaded_dict(py, loaded)
    }

    /// Loads the directory ``path`` that ``Snapshot.export_parquet`` (or
    /// ``stratagraph export``) wrote into this graph, which must hold no
    /// vertex yet and be of the export's kind (directed or not, string
    /// ids or not; ``stratagraph.read_parquet`` makes a graph of the
    /// right kind), without the GIL. Returns ``{"vertices": n, "edges": n, "batches": n}`` (edges
    /// of both kinds).
    ///
    /// Every file is read and checked first: a file that is not Parquet
    /// or is cut short, a column missing or of the wrong type, an id given
    /// twice, an edge end that names no vertex, a value that does not
    /// decode. Such an export raises ``InvalidInput`` naming the file (and
    /// column, in ``field``) and leaves the graph unchanged.
    #[pyo3(signature = (path, *, batch = 10_000))]
    fn load_parquet<'py>(
        &self,
        py: Python<'py>,
        path: std::path::PathBuf,
        batch: i64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let opts = loaders::options(batch)?;
        let loaded = self.with(|g| {
            py.detach(|| stratagraph_io::graphar::import(g, &path, opts.batch))
                .map_err(|e| loaders::error(py, e))
        })?;
        loaders::loaded_dict(py, loaded)
    }

    /// Loads the property graph in the GraphSON 3.0 file ``path`` (as
    /// TinkerPop's ``GraphSONWriter`` writes it: one vertex per line with
    /// its properties and out-edges) into this graph, without the GIL;
    /// returns ``{"vertices": n, "edges": n, "batches": n}``: the vertices
    /// it created (not those it found), the property edges it created and
    /// the transactions it committed.
    ///
    /// Vertices keep their ids, labels and typed properties (``g:Int32``
    /// stays a 32-bit integer); edges their ids, labels and properties.
    /// The file is read twice, vertices first. Every ``batch`` records are
    /// one transaction. Refused by line and field rather than changed:
    /// string ids, a key with several values (list cardinality) and
    /// meta-properties.
    ///
    /// A failure leaves the batches committed before it loaded, and says
    /// so: a malformed record raises ``InvalidInput`` naming the file, line
    /// and field; a record the store refuses raises the engine's class
    /// (``InvalidInput`` for an edge id in use, for instance) with the file
    /// and line; a file that cannot be read raises ``OSError``. The
    /// exception carries ``file``, ``line`` and ``field`` (``None`` where
    /// they do not apply) and ``loaded`` (the dict above, for what was
    /// committed before it).
    #[pyo3(signature = (path, *, batch = 10_000))]
    fn load_graphson<'py>(
        &self,
        py: Python<'py>,
        path: std::path::PathBuf,
        batch: i64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let opts = loaders::options(batch)?;
        let loaded = self.with(|g| {
            py.detach(|| stratagraph_io::graphson::load(g, &path, opts))
                .map_err(|e| loaders::error(py, e))
        })?;
        loaders::loaded_dict(py, loaded)
    }

    /// Loads a property graph from CSV files with a header row (as
    /// ``neo4j-admin import`` and kuzu take them) into this graph, without
    /// the GIL: every file of ``vertices``, then every file of ``edges``,
    /// in order. Returns ``{"vertices": n, "edges": n, "batches": n}`` as
    /// ``load_graphson`` does.
    ///
    /// ``vertices`` and ``edges`` are each one path, an iterable of paths
    /// and ``(label, path)`` pairs, or a dict ``{label: path}`` (``None``
    /// or empty: no files). A file given with a label gives it to its rows
    /// when it has no label column.
    ///
    /// A vertex file has an ``:ID`` (or ``id``) column and optionally
    /// ``:LABEL`` (or ``label``); an edge file ``:START_ID`` (``src``,
    /// ``from``), ``:END_ID`` (``dst``, ``to``), ``:TYPE`` (``label``,
    /// ``type``) unless given a label, and optionally ``:ID`` (``id``: the
    /// edge's id; a new one when the field is empty). Every other column
    /// is a property, ``name`` or ``name:type`` with a type of ``string``
    /// (the default), ``boolean``, ``byte``, ``short``, ``int`` (32 bits),
    /// ``long``, ``float`` (32 bits), ``double``, ``uuid``, or a list of
    /// one (``int[]``, items separated by ``;``). An empty field sets no
    /// property. Fields are separated by ``,`` (or ``|`` or a tab when the
    /// header has one of those and no comma).
    ///
    /// Every ``batch`` rows are one transaction (a file's next batch is
    /// parsed on a second thread while one commits); errors are as for
    /// ``load_graphson``, with ``field`` naming the column.
    #[pyo3(
        signature = (vertices = None, edges = None, *, batch = 10_000),
        text_signature = "($self, vertices=(), edges=(), *, batch=10000)"
    )]
    fn load_csv<'py>(
        &self,
        py: Python<'py>,
        vertices: Option<&Bound<'py, PyAny>>,
        edges: Option<&Bound<'py, PyAny>>,
        batch: i64,
    ) -> PyResult<Bound<'py, PyDict>> {
        let vertices = loaders::csv_files(vertices, "vertices")?;
        let edges = loaders::csv_files(edges, "edges")?;
        let opts = loaders::options(batch)?;
        let loaded = self.with(|g| {
            py.detach(|| stratagraph_io::csv::load(g, &vertices, &edges, opts))
                .map_err(|e| loaders::error(py, e))
        })?;
        loaders::loaded_dict(py, loaded)
    }

    /// Merges everything committed so far (the in-memory part and every
    /// level) into one level, without the GIL. Worth calling after a large
    /// load or before a long analytics phase: kernels read one level as a
    /// plain CSR, and ``Snapshot.to_arrow(ids="internal")`` hands a
    /// directed graph's lists out without copying them. It rewrites the
    /// whole graph; ``close()`` does it too. ``Closed`` after ``close()``,
    /// ``Io`` if a level file cannot be written.
    fn compact(&self, py: Python<'_>) -> PyResult<()> {
        self.with(|g| py.detach(|| g.compact()).map_err(|e| self.error(g, e)))
    }

    /// Writes a checkpoint of this on-disk store, without the GIL: a store
    /// of its own holding every commit so far (flushed first; level files
    /// hard-linked, so it costs little space until compactions replace
    /// them), which ``Graph.open`` opens at that state. Into directory
    /// ``path`` (new or empty) if given; otherwise into the store's own
    /// ``checkpoints/<timestamp>``, where ``export_parquet(as_of=...)``
    /// finds it. Returns ``{"timestamp", "path"}``. Writers wait while it
    /// runs. ``InvalidInput`` for an in-memory graph, ``ReadOnly`` for a
    /// read-only one, ``StorageError`` if ``path`` is not empty or a file
    /// cannot be written.
    #[pyo3(signature = (path = None))]
    fn checkpoint<'py>(
        &self,
        py: Python<'py>,
        path: Option<std::path::PathBuf>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (ts, at) = self.with(|g| {
            py.detach(|| match &path {
                Some(p) => g.checkpoint(p).map(|ts| (ts, p.clone())),
                None => g.save_checkpoint(),
            })
            .map_err(|e| self.error(g, e))
        })?;
        let d = PyDict::new(py);
        d.set_item("timestamp", ts)?;
        d.set_item("path", at)?;
        Ok(d)
    }

    /// The checkpoints kept in the store's ``checkpoints`` directory, as
    /// ``[(timestamp, path)]``, oldest first (empty for an in-memory graph).
    fn checkpoints(&self) -> PyResult<Vec<(u64, std::path::PathBuf)>> {
        self.with(|g| match g.path() {
            Some(dir) => stratagraph::checkpoints(dir).map_err(|e| self.error(g, e)),
            None => Ok(Vec::new()),
        })
    }

    /// Writes the graph to directory ``path`` as ``Snapshot.export_parquet``
    /// does, as of now, or with ``as_of=ts`` as it was at commit ``ts``:
    /// rebuilt, without the GIL, from the newest checkpoint at or before
    /// ``ts`` (``checkpoint()``) and the change feed after it (the log
    /// archive must still reach back to that checkpoint). The returned
    /// dict's ``timestamp`` is ``ts``. Raises ``ChangesUnavailable`` when
    /// no checkpoint precedes ``ts`` or the feed after it is gone, each
    /// naming what is kept; ``InvalidInput`` for a ``ts`` after the newest
    /// commit or an in-memory graph.
    #[pyo3(signature = (path, *, as_of = None, vertex_chunk = 1 << 18, edge_chunk = 1 << 22))]
    fn export_parquet<'py>(
        &self,
        py: Python<'py>,
        path: std::path::PathBuf,
        as_of: Option<u64>,
        vertex_chunk: i64,
        edge_chunk: i64,
    ) -> PyResult<Bound<'py, PyDict>> {
        use stratagraph_io::as_of::{rebuild, AsOfError};
        let chunks = crate::snapshot::export_chunks(vertex_chunk, edge_chunk)?;
        let done = self.with(|g| {
            let snap = g.snapshot();
            // The newest state needs no rebuild.
            let Some(ts) = as_of.filter(|&ts| ts != snap.timestamp()) else {
                return py
                    .detach(|| stratagraph_io::graphar::export(&snap, &path, chunks))
                    .map_err(crate::snapshot::export_error);
            };
            let r = py.detach(|| rebuild(g, ts)).map_err(|e| match e {
                AsOfError::Engine(e) => self.error(g, e),
                AsOfError::NoCheckpoint { .. } => {
                    errors::ChangesUnavailable::new_err(e.to_string())
                }
                AsOfError::Future { .. } => errors::InvalidInput::new_err(e.to_string()),
                AsOfError::Apply(_) => errors::InternalError::new_err(e.to_string()),
            })?;
            py.detach(|| stratagraph_io::graphar::export_at(&r.graph.snapshot(), &path, chunks, ts))
                .map_err(crate::snapshot::export_error)
        })?;
        crate::snapshot::exported_dict(py, &done)
    }

    /// A consistent, read-only view of everything committed so far.
    fn snapshot(&self) -> PyResult<PySnapshot> {
        self.with(|g| {
            Ok(PySnapshot::new(
                g.snapshot(),
                self.open.clone(),
                self.string_ids,
            ))
        })
    }

    /// Starts a write transaction. Use it as ``with g.transaction() as tx:``
    /// (commits on normal exit, rolls back if the block raises) or call
    /// ``tx.commit()`` / ``tx.rollback()``.
    ///
    /// It reads the snapshot taken at its first read. Its commit raises
    /// ``Conflict`` (and applies nothing) if another transaction committed,
    /// after that snapshot, a change to an element this one writes; with
    /// ``serializable=True``, or to anything it read.
    #[pyo3(signature = (*, serializable = false))]
    fn transaction(&self, serializable: bool) -> PyResult<PyTransaction> {
        let isolation = if serializable {
            stratagraph::Isolation::Serializable
        } else {
            stratagraph::Isolation::Snapshot
        };
        self.with(|g| {
            Ok(PyTransaction::new(
                g.begin_with(isolation),
                self.open.clone(),
                self.dict(g).cloned(),
            ))
        })
    }

    /// Closes the store. Later calls on it, its snapshots and its
    /// transactions raise ``Closed``. Closing twice is allowed.
    fn close(&self, py: Python<'_>) -> PyResult<()> {
        self.open.store(false, Ordering::Release);
        // Waits for calls in flight on other threads, without the GIL they
        // may need to finish; the store is closed (an on-disk one written
        // out) and dropped there too, as that takes a while.
        py.detach(|| match self.store.write().take() {
            Some(g) => g.close(),
            None => Ok(()),
        })
        .map_err(errors::engine)
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close(py)?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        let kind = match (self.directed, self.string_ids) {
            (true, false) => "directed",
            (false, false) => "undirected",
            (true, true) => "directed string-keyed",
            (false, true) => "undirected string-keyed",
        };
        match self.with(|g| Ok((g.snapshot(), g.path().map(|p| p.display().to_string())))) {
            Ok((s, path)) => format!(
                "<stratagraph.Graph {} {kind}, {} vertices, {} edges>",
                path.map_or("in-memory".to_string(), |p| format!("at {p:?}")),
                s.vertex_count(),
                s.edge_count()
            ),
            Err(_) => format!("<stratagraph.Graph {kind}, closed>"),
        }
    }
}
