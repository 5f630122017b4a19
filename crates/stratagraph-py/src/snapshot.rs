//! `stratagraph.Snapshot`: look-ups, extraction and analytics on one
//! consistent view of the graph.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use numpy::{IntoPyArray, PyArray1};
use parking_lot::{Mutex, RwLock};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple};
use stratagraph::{Edge, EdgeDirection, Snapshot};

use crate::analytics::{self, Projected, ProjectionSpec};
use crate::conversions::{self as conv, VertexArg};
use crate::edges;
use crate::errors::{self, NotFound};
use crate::index::{self, VertexIndex};
use crate::values;
use crate::vertices;

/// A consistent, read-only view of the graph at one commit.
///
/// It never changes, whatever is written to the graph afterwards. Vertex
/// arrays (``vertices()``, ``edges()``, every analytics result) are numpy
/// arrays in one fixed order: ascending internal id, which is the order in
/// which vertices were first seen by the store. Results of the analytics
/// line up with ``vertices()``; ``to_dict(values)`` pairs them up.
///
/// In a string-keyed store (``Graph.string_ids``) vertex arguments may be
/// ``str`` keys, results holding one vertex (``vertex()``, edge dicts,
/// ``to_dict``) show keys, and vertex arrays hold the keys' ids, which
/// ``keys()`` translates.
///
/// A snapshot keeps the versions it can see alive: close long-lived ones
/// (``close()`` or ``with g.snapshot() as s:``) when done.
#[pyclass(frozen, module = "stratagraph", name = "Snapshot")]
pub struct PySnapshot {
    /// `None` once closed, which releases the engine snapshot at once.
    snap: RwLock<Option<Snapshot>>,
    /// The graph's open flag: a snapshot of a closed graph is closed too.
    store_open: Arc<AtomicBool>,
    /// Built on first need; `Arc` so it can be used after the lock on
    /// `snap` is released (e.g. while calling back into Python).
    index: OnceLock<Arc<VertexIndex>>,
    /// The store names vertices by string keys.
    string_ids: bool,
    /// The last projection of property edges a kernel ran on, kept so
    /// that kernels in a row on the same one build it once.
    projection: Mutex<Option<(ProjectionSpec, Arc<Projected>)>>,
}

/// The projection the kernel arguments `labels`, `weight` and
/// `default_weight` ask for; `None` (the weighted structure) if neither
/// `labels` nor `weight` is given.
fn projection_spec(
    labels: Option<&Bound<'_, PyAny>>,
    weight: Option<&str>,
    default_weight: Option<f64>,
) -> PyResult<Option<ProjectionSpec>> {
    if let Some(w) = default_weight {
        if weight.is_none() {
            return Err(PyValueError::new_err(
                "default_weight: given without weight (the property it stands in for)",
            ));
        }
        if !w.is_finite() {
            return Err(PyValueError::new_err(format!(
                "default_weight: must be a finite number, got {w}"
            )));
        }
    }
    if labels.is_none() && weight.is_none() {
        return Ok(None);
    }
    let labels = match labels {
        Some(l) => conv::labels(l, "labels")?,
        None => Vec::new(),
    };
    Ok(Some(ProjectionSpec {
        labels,
        weight: weight.map(str::to_owned),
        default_weight,
    }))
}

/// `NotFound` for vertex `v` (an id, or a key), as given.
fn vertex_missing(v: &dyn std::fmt::Display) -> PyErr {
    NotFound::new_err(format!("vertex {v} does not exist in this snapshot"))
}

impl PySnapshot {
    pub fn new(snap: Snapshot, store_open: Arc<AtomicBool>, string_ids: bool) -> Self {
        PySnapshot {
            snap: RwLock::new(Some(snap)),
            store_open,
            index: OnceLock::new(),
            string_ids,
            projection: Mutex::new(None),
        }
    }

    /// The key dictionary if the store is string-keyed (`vertices.rs`).
    fn dict<'s>(&self, s: &'s Snapshot) -> Option<&'s Snapshot> {
        self.string_ids.then_some(s)
    }

    /// The id of vertex argument `v` (given as `arg`); `None` for a key
    /// no vertex was ever given.
    #[inline]
    fn id_of(&self, s: &Snapshot, v: &VertexArg, arg: &str) -> PyResult<Option<u64>> {
        vertices::find(self.dict(s), v, arg)
    }

    /// Runs `f` on the engine snapshot, or raises `Closed`. As in
    /// `PyGraph::with`: no Python code may run inside `f`.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&Snapshot) -> PyResult<R>) -> PyResult<R> {
        if !self.store_open.load(Ordering::Acquire) {
            return Err(errors::closed("graph"));
        }
        let guard = self.snap.read_recursive();
        let snap = guard.as_ref().ok_or_else(|| errors::closed("snapshot"))?;
        f(snap)
    }

    /// The vertex index, built without the GIL on first use.
    fn index(&self, py: Python<'_>, snap: &Snapshot) -> Arc<VertexIndex> {
        if let Some(idx) = self.index.get() {
            return idx.clone();
        }
        py.detach(|| {
            self.index
                .get_or_init(|| Arc::new(VertexIndex::build(snap)))
                .clone()
        })
    }

    /// The internal id of vertex argument `v` (given as `arg`), which must
    /// be a vertex here: an analytics source, say.
    fn source(&self, snap: &Snapshot, v: &VertexArg, arg: &str) -> PyResult<u32> {
        self.id_of(snap, v, arg)?
            .and_then(|id| snap.internal_id(id))
            .ok_or_else(|| vertex_missing(v))
    }

    /// Runs a whole-graph computation without the GIL.
    fn compute<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Snapshot, &VertexIndex) -> PyResult<R> + Send,
    ) -> PyResult<R> {
        self.with(|snap| {
            let idx = self.index(py, snap);
            py.detach(|| f(snap, &idx))
        })
    }

    /// The projection `spec` of `snap`'s property edges: the one kept from
    /// the last call if it is the same, else built without the GIL (and
    /// kept).
    fn projected(
        &self,
        py: Python<'_>,
        snap: &Snapshot,
        idx: &VertexIndex,
        spec: &ProjectionSpec,
    ) -> PyResult<Arc<Projected>> {
        if let Some((kept, p)) = &*self.projection.lock() {
            if kept == spec {
                return Ok(p.clone());
            }
        }
        let p = py
            .detach(|| Projected::build(snap, idx, spec))
            .map_err(errors::projection)?;
        let p = Arc::new(p);
        *self.projection.lock() = Some((spec.clone(), p.clone()));
        Ok(p)
    }

    /// Runs a kernel on the weighted structure (`on_snap`) or, if `spec`
    /// asks for one, on a projection of the property edges (`on_proj`),
    /// without the GIL.
    fn run<R: Send>(
        &self,
        py: Python<'_>,
        spec: Option<&ProjectionSpec>,
        on_snap: impl FnOnce(&Snapshot, &VertexIndex) -> PyResult<R> + Send,
        on_proj: impl FnOnce(&Projected, &VertexIndex) -> PyResult<R> + Send,
    ) -> PyResult<R> {
        self.with(|snap| {
            let idx = self.index(py, snap);
            match spec {
                None => py.detach(|| on_snap(snap, &idx)),
                Some(spec) => {
                    let p = self.projected(py, snap, &idx, spec)?;
                    py.detach(|| on_proj(&p, &idx))
                }
            }
        })
    }

    /// Per-vertex degrees as an array, or one vertex's as an int.
    fn degrees<'py>(
        &self,
        py: Python<'py>,
        v: Option<&Bound<'py, PyAny>>,
        f: impl Fn(&Snapshot, u32) -> usize + Sync,
    ) -> PyResult<Bound<'py, PyAny>> {
        match v {
            Some(v) => {
                let v = conv::vertex_arg(v, "v")?;
                let d = self.with(|s| Ok(f(s, self.source(s, &v, "v")?)))?;
                Ok(d.into_pyobject(py)?.into_any())
            }
            None => {
                let all: Vec<i64> = self.compute(py, |s, idx| {
                    Ok(idx.live.iter().map(|&v| f(s, v) as i64).collect())
                })?;
                Ok(all.into_pyarray(py).into_any())
            }
        }
    }

    /// `v`'s property edges on side `dir`, of `label` or of all, and with
    /// `show` their ends as results show them; raises `NotFound` if `v` is
    /// not a vertex here.
    fn property_edges_of(
        &self,
        v: &VertexArg,
        dir: EdgeDirection,
        label: Option<&str>,
        show: bool,
    ) -> PyResult<(Vec<Edge>, Vec<edges::Ends>)> {
        self.with(|s| {
            let Some(id) = self.id_of(s, v, "v")?.filter(|&id| s.has_vertex(id)) else {
                return Err(vertex_missing(v));
            };
            let found = s.edges_of(id, dir, label);
            let ends = if show {
                edges::ends(self.dict(s), &found)
            } else {
                Vec::new()
            };
            Ok((found, ends))
        })
    }

    fn neighbor_ids<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        label: Option<&str>,
        inn: bool,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let v = conv::vertex_arg(v, "v")?;
        if let Some(label) = label {
            let dir = if inn {
                EdgeDirection::In
            } else {
                EdgeDirection::Out
            };
            let (found, _) = self.property_edges_of(&v, dir, Some(label), false)?;
            return Ok(edges::other_ends(&found, !inn).into_pyarray(py));
        }
        let out = self.with(|s| {
            let id = self.source(s, &v, "v")?;
            let mut out = Vec::new();
            let mut push = |d: u32| out.push(s.external_id_unchecked(d));
            if inn {
                s.for_each_in_of(id, &mut push);
            } else {
                s.for_each_out_of(id, &mut push);
            }
            Ok(out)
        })?;
        Ok(out.into_pyarray(py))
    }
}

#[pymethods]
impl PySnapshot {
    /// Number of vertices.
    #[getter]
    fn num_vertices(&self) -> PyResult<u64> {
        self.with(|s| Ok(s.vertex_count()))
    }

    /// Number of edges (an undirected edge counts once).
    #[getter]
    fn num_edges(&self) -> PyResult<u64> {
        self.with(|s| Ok(s.edge_count()))
    }

    /// Number of property edges (``add_edge`` with a label). Counts them:
    /// O(edges), unlike ``num_edges``.
    #[getter]
    fn num_property_edges(&self, py: Python<'_>) -> PyResult<u64> {
        self.with(|s| Ok(py.detach(|| s.edges().len() as u64)))
    }

    /// Whether edges have a direction.
    #[getter]
    fn directed(&self) -> PyResult<bool> {
        self.with(|s| Ok(s.is_directed()))
    }

    /// Whether the store names vertices by ``str`` keys (see
    /// ``Graph.string_ids``).
    #[getter]
    fn string_ids(&self) -> bool {
        self.string_ids
    }

    /// The id of vertex key ``key``, or ``None`` if no write named it (and
    /// always in a store of integer ids).
    fn key_id(&self, key: &str) -> PyResult<Option<u64>> {
        self.with(|s| Ok(s.key_id(key)))
    }

    /// The key of vertex id ``id``, or ``None`` if no key has it (always
    /// in a store of integer ids).
    fn key_of(&self, id: &Bound<'_, PyAny>) -> PyResult<Option<String>> {
        let id = conv::vertex(id, "id")?;
        self.with(|s| Ok(s.key_of(id).map(|k| k.to_string())))
    }

    /// The keys of ``ids`` (an array or iterable of vertex ids: what
    /// ``vertices()``, ``neighbors()``, ``edges()``, ``find_vertices()``
    /// return), as a list of ``str`` in the same order. Raises
    /// ``InvalidInput`` in a store of integer ids, or naming the first id
    /// no key has.
    fn keys(&self, ids: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let ids = conv::id_iterable(ids, "ids")?;
        let ids = ids.as_slice()?;
        let keys = self.with(|s| vertices::keys_of(self.dict(s), ids))?;
        Ok(keys.iter().map(|k| k.to_string()).collect())
    }

    /// The commit timestamp this snapshot reads at (the value the write
    /// methods return).
    #[getter]
    fn timestamp(&self) -> PyResult<u64> {
        self.with(|s| Ok(s.timestamp()))
    }

    /// This snapshot as two ``pyarrow.Table``s, ``(vertices, edges)``
    /// (needs pyarrow; ``arrow_vertices()``/``arrow_edges()`` give the same
    /// tables to any Arrow consumer without it: ``polars.DataFrame(...)``,
    /// ``duckdb.arrow(...)``).
    ///
    /// ``vertices``: ``_id`` (the id as given: int64, or string in a store
    /// of string ids), ``_label`` (dictionary-encoded string), one column
    /// per property key. ``edges``: ``_id`` (the property edge's id; null
    /// for a weighted edge), ``_src``, ``_dst``, ``_label`` (null for the
    /// weighted structure), ``_weight`` (null for property edges), one
    /// column per property key; an undirected graph lists each weighted
    /// edge once. A column whose values all have one type is that Arrow
    /// type (Int32 stays int32); one of mixed types holds each value in
    /// the engine's binary encoding (``docs/FORMAT.md`` §7.2), which
    /// ``Graph.load_arrow`` reads back exactly. Built without the GIL;
    /// ``InvalidInput`` for a property named like one of the tables' own
    /// columns.
    ///
    /// ``ids="internal"`` names vertices by the store's dense internal ids
    /// (uint32): the vertex table gains ``_vid`` before ``_id``, and
    /// ``_src``/``_dst`` are ``_vid``s. Property edges come first, then the
    /// weighted edges in source order, and a column is there only if it
    /// holds something (``_id``, ``_label`` and property columns with
    /// property edges, ``_weight`` with those or a weight other than 1.0).
    /// In a directed graph the lists the snapshot reads straight from a
    /// compacted level (all of them after ``Graph.compact()`` with no write
    /// since) go out without a copy: ``_dst`` and ``_weight`` are the
    /// level's own memory or mapped file, kept alive by the tables, and only
    /// ``_src`` is built (4 bytes an edge). ``Graph.load_arrow`` reads these
    /// tables back through ``_vid``.
    #[pyo3(signature = (ids = "user"))]
    fn to_arrow<'py>(&self, py: Python<'py>, ids: &str) -> PyResult<Bound<'py, PyTuple>> {
        let pa = py.import("pyarrow")?;
        let v = pa.call_method1("table", (self.arrow_vertices(py, ids)?,))?;
        let e = pa.call_method1("table", (self.arrow_edges(py, ids)?,))?;
        PyTuple::new(py, [v, e])
    }

    /// The vertex table of ``to_arrow`` as a ``stratagraph.ArrowStream``
    /// (the Arrow PyCapsule interface), for consumers other than pyarrow.
    #[pyo3(signature = (ids = "user"))]
    fn arrow_vertices(&self, py: Python<'_>, ids: &str) -> PyResult<crate::arrow::PyArrowStream> {
        let ids = vertex_ids(ids)?;
        let (schema, batches) = self.with(|s| {
            py.detach(|| stratagraph_io::tables::vertex_table_with(s, ids))
                .map_err(|e| errors::InvalidInput::new_err(e.to_string()))
        })?;
        Ok(crate::arrow::PyArrowStream::new(schema, batches))
    }

    /// The edge table of ``to_arrow`` as a ``stratagraph.ArrowStream``.
    #[pyo3(signature = (ids = "user"))]
    fn arrow_edges(&self, py: Python<'_>, ids: &str) -> PyResult<crate::arrow::PyArrowStream> {
        let ids = vertex_ids(ids)?;
        let (schema, batches) = self.with(|s| {
            py.detach(|| stratagraph_io::tables::edge_table_with(s, ids))
                .map_err(|e| errors::InvalidInput::new_err(e.to_string()))
        })?;
        Ok(crate::arrow::PyArrowStream::new(schema, batches))
    }

    /// Writes this snapshot to the directory ``path`` as Parquet files in
    /// Apache GraphAr's layout (``docs/FORMAT.md`` §7), without the GIL: a
    /// vertex table per label and an edge table per (source label, edge
    /// label, destination label), ids as the user gave them, properties as
    /// typed columns (a key whose values are of several types keeps each
    /// in the engine's encoding), and ``stratagraph.json``, which
    /// ``Graph.load_parquet`` reads back into the same graph. DuckDB,
    /// Spark, pandas and GraphAr's readers read the files.
    ///
    /// ``path`` must not exist or be an empty directory; a failed export
    /// leaves nothing there. Returns ``{"timestamp", "vertices", "edges",
    /// "weighted_edges", "files", "bytes"}``. Raises ``FileExistsError``
    /// for a directory with files, ``InvalidInput`` for a property named
    /// like one of the layout's own columns (``_id``, ``_weight``,
    /// ``_graphAr...``), ``OSError`` when a file cannot be written.
    #[pyo3(signature = (path, *, vertex_chunk = 1 << 18, edge_chunk = 1 << 22))]
    fn export_parquet<'py>(
        &self,
        py: Python<'py>,
        path: std::path::PathBuf,
        vertex_chunk: i64,
        edge_chunk: i64,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let chunks = export_chunks(vertex_chunk, edge_chunk)?;
        let done = self.with(|s| {
            py.detach(|| stratagraph_io::graphar::export(s, &path, chunks))
                .map_err(export_error)
        })?;
        exported_dict(py, &done)
    }

    /// Whether ``close()`` has been called (or the graph closed).
    #[getter]
    fn closed(&self) -> bool {
        !self.store_open.load(Ordering::Acquire) || self.snap.read_recursive().is_none()
    }

    fn __len__(&self) -> PyResult<usize> {
        self.with(|s| Ok(s.vertex_count() as usize))
    }

    /// ``v in s``: whether ``v`` is a vertex. Anything that is not a valid
    /// id (or, in a string-keyed store, key) is simply not contained (as
    /// with ``"a" in range(3)``).
    fn __contains__(&self, v: &Bound<'_, PyAny>) -> PyResult<bool> {
        match conv::vertex_arg(v, "v") {
            Ok(VertexArg::Key(_)) if !self.string_ids => Ok(false),
            Ok(v) => self.with(|s| Ok(self.id_of(s, &v, "v")?.is_some_and(|id| s.has_vertex(id)))),
            Err(_) => Ok(false),
        }
    }

    /// The label of vertex ``v``. Raises ``NotFound`` if it is not a vertex.
    fn label(&self, v: &Bound<'_, PyAny>) -> PyResult<String> {
        let v = conv::vertex_arg(v, "v")?;
        self.with(|s| {
            self.id_of(s, &v, "v")?
                .and_then(|id| s.label(id))
                .map(|l| l.to_string())
                .ok_or_else(|| vertex_missing(&v))
        })
    }

    /// Property ``key`` of vertex ``v``, or ``default`` if it has none (or
    /// is not a vertex).
    #[pyo3(signature = (v, key, default = None))]
    fn property(
        &self,
        py: Python<'_>,
        v: &Bound<'_, PyAny>,
        key: &str,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let v = conv::vertex_arg(v, "v")?;
        let value =
            self.with(|s| Ok(self.id_of(s, &v, "v")?.and_then(|id| s.property(id, key))))?;
        values::or_default(py, value, default)
    }

    /// Every property of vertex ``v`` as a dict (in the order first set).
    /// Raises ``NotFound`` if it is not a vertex.
    fn properties<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let v = conv::vertex_arg(v, "v")?;
        let props = self.with(|s| {
            self.id_of(s, &v, "v")?
                .and_then(|id| s.properties(id))
                .ok_or_else(|| vertex_missing(&v))
        })?;
        values::dict(py, &props)
    }

    /// The vertices labelled ``label`` whose property ``key`` equals
    /// ``value`` (typed: an ``np.int32(29)`` is not ``29``), as a uint64
    /// array; through an index if one exists (``Graph.create_index``).
    fn find_vertices<'py>(
        &self,
        py: Python<'py>,
        label: &str,
        key: &str,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let value = values::to_value(value, "value")?;
        let found = self.with(|s| Ok(py.detach(|| s.find_vertices(label, key, &value))))?;
        Ok(found.into_pyarray(py))
    }

    /// Vertex ``v`` as a dict: ``{"id": v, "label": ..., "properties":
    /// {...}}`` (in a string-keyed store ``"id"`` is its key). Raises
    /// ``NotFound`` if it is not a vertex.
    fn vertex<'py>(&self, py: Python<'py>, v: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let v = conv::vertex_arg(v, "v")?;
        let (shown, label, props) = self.with(|s| {
            let id = self.id_of(s, &v, "v")?;
            let (Some(id), Some(label)) = (id, id.and_then(|id| s.label(id))) else {
                return Err(vertex_missing(&v));
            };
            let shown = vertices::shown(self.dict(s), id);
            Ok((shown, label, s.properties(id).unwrap_or_default()))
        })?;
        let dict = PyDict::new(py);
        dict.set_item("id", &shown)?;
        dict.set_item("label", &*label)?;
        dict.set_item("properties", values::dict(py, &props)?)?;
        Ok(dict)
    }

    /// Whether ``v`` is a vertex.
    fn has_vertex(&self, v: &Bound<'_, PyAny>) -> PyResult<bool> {
        let v = conv::vertex_arg(v, "v")?;
        self.with(|s| Ok(self.id_of(s, &v, "v")?.is_some_and(|id| s.has_vertex(id))))
    }

    /// Whether edge ``u -> v`` exists (either direction if undirected).
    fn has_edge(&self, u: &Bound<'_, PyAny>, v: &Bound<'_, PyAny>) -> PyResult<bool> {
        let (u, v) = (conv::vertex_arg(u, "u")?, conv::vertex_arg(v, "v")?);
        self.with(|s| {
            Ok(match (self.id_of(s, &u, "u")?, self.id_of(s, &v, "v")?) {
                (Some(a), Some(b)) => s.has_edge(a, b),
                _ => false,
            })
        })
    }

    /// The weight of edge ``u -> v``; raises ``NotFound`` if it does not exist.
    fn weight(&self, u: &Bound<'_, PyAny>, v: &Bound<'_, PyAny>) -> PyResult<f64> {
        let (u, v) = (conv::vertex_arg(u, "u")?, conv::vertex_arg(v, "v")?);
        self.with(|s| {
            let found = match (self.id_of(s, &u, "u")?, self.id_of(s, &v, "v")?) {
                (Some(a), Some(b)) => s.weight(a, b),
                _ => None,
            };
            found.ok_or_else(|| {
                NotFound::new_err(format!("edge ({u}, {v}) does not exist in this snapshot"))
            })
        })
    }

    /// Degree of ``v`` as networkx counts it (in + out on directed graphs;
    /// a self-loop counts twice on undirected ones). Without ``v``: an int64
    /// array of every vertex's degree, aligned with ``vertices()``.
    #[pyo3(signature = (v = None))]
    fn degree<'py>(
        &self,
        py: Python<'py>,
        v: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.degrees(py, v, index::degree_of)
    }

    /// Number of out-neighbours of ``v`` (on undirected graphs: of
    /// neighbours, a self-loop once). Without ``v``: an int64 array aligned
    /// with ``vertices()``.
    #[pyo3(signature = (v = None))]
    fn out_degree<'py>(
        &self,
        py: Python<'py>,
        v: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.degrees(py, v, |s, v| s.out_degree_of(v))
    }

    /// Number of in-neighbours of ``v`` (equal to ``out_degree`` on
    /// undirected graphs). Without ``v``: an int64 array aligned with
    /// ``vertices()``.
    #[pyo3(signature = (v = None))]
    fn in_degree<'py>(
        &self,
        py: Python<'py>,
        v: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        self.degrees(py, v, |s, v| s.in_degree_of(v))
    }

    /// Out-neighbours of ``v`` (all neighbours if undirected) as a uint64
    /// array, in ascending internal-id order (the order of ``vertices()``,
    /// not numeric order): the weighted edges. With ``label``: the
    /// destinations of ``v``'s out-going property edges of that label, once
    /// per edge (parallel edges repeat a neighbour), in ``edges_of`` order;
    /// property edges keep their direction in an undirected graph too.
    /// Raises ``NotFound`` if ``v`` does not exist.
    #[pyo3(signature = (v, label = None))]
    fn neighbors<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        label: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        self.neighbor_ids(py, v, label, false)
    }

    /// In-neighbours of ``v`` as a uint64 array, ordered as ``neighbors``;
    /// with ``label``, the sources of ``v``'s in-coming property edges of
    /// that label, once per edge.
    #[pyo3(signature = (v, label = None))]
    fn in_neighbors<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        label: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        self.neighbor_ids(py, v, label, true)
    }

    /// Property edge ``edge_id`` as a dict: ``{"id", "src", "dst",
    /// "label", "properties"}``. Raises ``NotFound`` if it does not exist
    /// here.
    fn edge<'py>(
        &self,
        py: Python<'py>,
        edge_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let e = conv::edge(edge_id, "edge_id")?;
        let (edge, ends, props) = self.with(|s| {
            let edge = s
                .edge(e)
                .ok_or_else(|| edges::missing(e, " in this snapshot"))?;
            let keys = self.dict(s);
            let ends = (
                vertices::shown(keys, edge.src),
                vertices::shown(keys, edge.dst),
            );
            Ok((edge, ends, s.edge_properties(e).unwrap_or_default()))
        })?;
        edges::dict_with(py, &edge, &ends, &props)
    }

    /// Property ``key`` of property edge ``edge_id``, or ``default`` if it
    /// has none (or the edge does not exist here).
    #[pyo3(signature = (edge_id, key, default = None))]
    fn edge_property(
        &self,
        py: Python<'_>,
        edge_id: &Bound<'_, PyAny>,
        key: &str,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let e = conv::edge(edge_id, "edge_id")?;
        let value = self.with(|s| Ok(s.edge_property(e, key)))?;
        values::or_default(py, value, default)
    }

    /// Every property of property edge ``edge_id`` as a dict (in the order
    /// first set). Raises ``NotFound`` if the edge does not exist here.
    fn edge_properties<'py>(
        &self,
        py: Python<'py>,
        edge_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let e = conv::edge(edge_id, "edge_id")?;
        let props = self.with(|s| {
            s.edge_properties(e)
                .ok_or_else(|| edges::missing(e, " in this snapshot"))
        })?;
        values::dict(py, &props)
    }

    /// The property edges of vertex ``v`` as dicts ``{"id", "src", "dst",
    /// "label"}`` (``src`` and ``dst`` keys in a string-keyed store): those
    /// of ``label`` (every label if ``None``), on side
    /// ``direction`` (``"out"``, ``"in"`` or ``"both"``, where a self-loop
    /// appears once). They come grouped by label (not alphabetically),
    /// within a label ordered by the other end as ``vertices()`` orders
    /// vertices, then by id. Raises ``NotFound`` if ``v`` does not exist,
    /// ``ValueError`` for another direction. (``edges()`` lists the
    /// weighted edges.)
    #[pyo3(signature = (v, label = None, direction = "out"))]
    fn edges_of<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        label: Option<&str>,
        direction: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        let (v, dir) = (conv::vertex_arg(v, "v")?, conv::edge_direction(direction)?);
        let (found, ends) = self.property_edges_of(&v, dir, label, true)?;
        edges::list(py, &found, &ends)
    }

    /// The ids of the property edges ``edges_of`` lists, in its order, as
    /// a uint64 array.
    #[pyo3(signature = (v, label = None, direction = "out"))]
    fn edge_ids<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        label: Option<&str>,
        direction: &str,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let (v, dir) = (conv::vertex_arg(v, "v")?, conv::edge_direction(direction)?);
        let (found, _) = self.property_edges_of(&v, dir, label, false)?;
        Ok(edges::ids(&found).into_pyarray(py))
    }

    /// Every property edge as a dict ``{"id", "src", "dst", "label"}``,
    /// ascending by id.
    fn property_edges<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let (all, ends) = self.with(|s| {
            Ok(py.detach(|| {
                let all = s.edges();
                let ends = edges::ends(self.dict(s), &all);
                (all, ends)
            }))
        })?;
        edges::list(py, &all, &ends)
    }

    /// Every vertex id as a uint64 array, in the order every per-vertex
    /// array of this snapshot uses (in a string-keyed store the keys' ids:
    /// ``keys(vertices())`` are the keys).
    ///
    /// With ``label``: only the vertices labelled ``label`` whose
    /// properties equal the keyword arguments (``vertices("person",
    /// age=29, name="marko")``; typed as ``find_vertices``: an
    /// ``np.int32(29)`` is not ``29``), in the same order (ascending
    /// internal id). The first keyword is looked up as ``find_vertices``
    /// does (through an index if one exists), the others checked on what it
    /// finds; with ``label`` alone every vertex is checked. Keywords without
    /// ``label`` raise ``ValueError``: the store looks vertices up by label.
    #[pyo3(signature = (label = None, **equal))]
    fn vertices<'py>(
        &self,
        py: Python<'py>,
        label: Option<&str>,
        equal: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let equal = values::properties(equal)?;
        let Some(label) = label else {
            if let Some((key, _)) = equal.first() {
                return Err(PyValueError::new_err(format!(
                    "vertices: a property filter ({key}=...) needs a label: \
                     the store looks vertices up by label"
                )));
            }
            let ext = self.compute(py, |_, idx| Ok(idx.ext.clone()))?;
            return Ok(ext.into_pyarray(py));
        };
        let found = self.compute(py, |s, idx| {
            use rayon::prelude::*;
            Ok(match equal.split_first() {
                None => idx
                    .ext
                    .par_iter()
                    .copied()
                    .filter(|&v| s.label(v).is_some_and(|l| &*l == label))
                    .collect(),
                Some(((key, value), rest)) => {
                    let mut found = s.find_vertices(label, key, value);
                    if !rest.is_empty() {
                        found.retain(|&v| {
                            rest.iter()
                                .all(|(k, x)| s.property(v, k).is_some_and(|y| y == *x))
                        });
                    }
                    found
                }
            })
        })?;
        Ok(found.into_pyarray(py))
    }

    /// Every edge as ``(src, dst)`` uint64 arrays, or ``(src, dst, weights)``
    /// with ``weights=True``. Ordered by source as in ``vertices()``, then
    /// by destination likewise; an undirected edge appears once.
    #[pyo3(signature = (weights = false))]
    fn edges<'py>(&self, py: Python<'py>, weights: bool) -> PyResult<Bound<'py, PyTuple>> {
        let (src, dst, w) = self.compute(py, |s, idx| Ok(index::edges(s, idx, weights)))?;
        let (src, dst) = (src.into_pyarray(py), dst.into_pyarray(py));
        if weights {
            PyTuple::new(
                py,
                [
                    src.into_any(),
                    dst.into_any(),
                    w.into_pyarray(py).into_any(),
                ],
            )
        } else {
            PyTuple::new(py, [src.into_any(), dst.into_any()])
        }
    }

    /// Hop distance from ``source`` along out-edges, as an int64 array
    /// aligned with ``vertices()``; -1 (``stratagraph.UNREACHABLE``) where
    /// ``source`` cannot reach. Raises ``NotFound`` for a missing source.
    ///
    /// With ``labels`` (one label, or a list; ``[]`` for every label) the
    /// kernel runs on a projection of the property edges instead of the
    /// weighted edges: those labels' edges, parallel edges as one,
    /// undirected if the graph is (see ``sssp`` for weights).
    #[pyo3(signature = (source, *, labels = None, threads = 0))]
    fn bfs<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
        labels: Option<&Bound<'py, PyAny>>,
        threads: i64,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        let (v, threads) = (conv::vertex_arg(source, "source")?, conv::threads(threads)?);
        let spec = projection_spec(labels, None, None)?;
        let source = self.with(|s| self.source(s, &v, "source"))?;
        let depth = self.run(
            py,
            spec.as_ref(),
            |s, idx| Ok(analytics::bfs(s, idx, source, threads)),
            |p, idx| Ok(analytics::bfs_projected(p, idx.external(source), threads)),
        )?;
        Ok(depth.into_pyarray(py))
    }

    /// Weighted shortest-path distances from ``source`` along out-edges
    /// (delta-stepping), as a float64 array aligned with ``vertices()``;
    /// ``inf`` where unreachable. Raises ``InvalidInput`` if a weight is
    /// negative, ``NotFound`` for a missing source.
    ///
    /// With ``labels`` or ``weight`` it runs on a projection of the property
    /// edges instead of the weighted edges: the edges of ``labels`` (one
    /// label, or a list; ``None`` or ``[]`` for every label), weighted by
    /// their numeric property ``weight`` (1 for each edge if ``None``;
    /// ``default_weight`` for an edge without it, which otherwise raises
    /// ``InvalidInput`` naming the edge, as does a weight that is not a
    /// finite number), parallel edges as one with the smallest weight,
    /// undirected if the graph is. The last projection is kept with the
    /// snapshot, so kernels in a row on the same one build it once.
    #[pyo3(signature = (
        source, *, labels = None, weight = None, default_weight = None, threads = 0
    ))]
    fn sssp<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
        labels: Option<&Bound<'py, PyAny>>,
        weight: Option<&str>,
        default_weight: Option<f64>,
        threads: i64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (v, threads) = (conv::vertex_arg(source, "source")?, conv::threads(threads)?);
        let spec = projection_spec(labels, weight, default_weight)?;
        let source = self.with(|s| self.source(s, &v, "source"))?;
        let dist = self.run(
            py,
            spec.as_ref(),
            |s, idx| analytics::sssp(s, idx, source, threads).map_err(errors::sssp),
            |p, idx| {
                analytics::sssp_projected(p, idx.external(source), threads).map_err(errors::sssp)
            },
        )?;
        Ok(dist.into_pyarray(py))
    }

    /// Weakly connected components (direction ignored), as a uint64 array
    /// aligned with ``vertices()``: each vertex's label is the id of its
    /// component's member that comes first in ``vertices()``.
    ///
    /// With ``labels`` (one label, or a list; ``[]`` for every label) the
    /// kernel runs on a projection of the property edges instead of the
    /// weighted edges: those labels' edges, parallel edges as one,
    /// undirected if the graph is (see ``sssp`` for weights).
    #[pyo3(signature = (*, labels = None, threads = 0))]
    fn wcc<'py>(
        &self,
        py: Python<'py>,
        labels: Option<&Bound<'py, PyAny>>,
        threads: i64,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let threads = conv::threads(threads)?;
        let spec = projection_spec(labels, None, None)?;
        let labels = self.run(
            py,
            spec.as_ref(),
            |s, idx| Ok(analytics::wcc(s, idx, threads)),
            |p, idx| Ok(analytics::wcc_projected(p, idx, threads)),
        )?;
        Ok(labels.into_pyarray(py))
    }

    /// PageRank after exactly ``iterations`` synchronous iterations (no
    /// convergence test, as in LDBC Graphalytics), as a float64 array
    /// aligned with ``vertices()``. Starts from 1/n; the rank of vertices
    /// without out-edges is spread evenly over all vertices, as networkx's
    /// ``pagerank`` does by default (``alpha`` there is ``damping`` here).
    ///
    /// With ``labels`` (one label, or a list; ``[]`` for every label) the
    /// kernel runs on a projection of the property edges instead of the
    /// weighted edges: those labels' edges, parallel edges as one,
    /// undirected if the graph is (see ``sssp`` for weights).
    #[pyo3(signature = (*, damping = 0.85, iterations = 20, labels = None, threads = 0))]
    fn pagerank<'py>(
        &self,
        py: Python<'py>,
        damping: f64,
        iterations: i64,
        labels: Option<&Bound<'py, PyAny>>,
        threads: i64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let damping = conv::damping(damping)?;
        let iterations = conv::count(iterations, "iterations", u64::from(u32::MAX))? as u32;
        let threads = conv::threads(threads)?;
        let spec = projection_spec(labels, None, None)?;
        let rank = self.run(
            py,
            spec.as_ref(),
            |s, idx| Ok(analytics::pagerank(s, idx, damping, iterations, threads)),
            |p, _| {
                Ok(analytics::pagerank_projected(
                    p, damping, iterations, threads,
                ))
            },
        )?;
        Ok(rank.into_pyarray(py))
    }

    /// Local clustering coefficient as LDBC Graphalytics defines it (on
    /// undirected graphs the same as ``networkx.clustering``; self-loops
    /// ignored), as a float64 array aligned with ``vertices()``.
    ///
    /// With ``labels`` (one label, or a list; ``[]`` for every label) the
    /// kernel runs on a projection of the property edges instead of the
    /// weighted edges: those labels' edges, parallel edges as one,
    /// undirected if the graph is (see ``sssp`` for weights).
    #[pyo3(signature = (*, labels = None, threads = 0))]
    fn lcc<'py>(
        &self,
        py: Python<'py>,
        labels: Option<&Bound<'py, PyAny>>,
        threads: i64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let threads = conv::threads(threads)?;
        let spec = projection_spec(labels, None, None)?;
        let c = self.run(
            py,
            spec.as_ref(),
            |s, idx| Ok(analytics::lcc(s, idx, threads)),
            |p, _| Ok(analytics::lcc_projected(p, threads)),
        )?;
        Ok(c.into_pyarray(py))
    }

    /// Community labels after ``iterations`` rounds of synchronous label
    /// propagation (LDBC Graphalytics CDLP: initial labels are vertex ids,
    /// ties go to the smallest label), as a uint64 array aligned with
    /// ``vertices()``.
    ///
    /// With ``labels`` (one label, or a list; ``[]`` for every label) the
    /// kernel runs on a projection of the property edges instead of the
    /// weighted edges: those labels' edges, parallel edges as one,
    /// undirected if the graph is (see ``sssp`` for weights).
    #[pyo3(signature = (*, iterations = 10, labels = None, threads = 0))]
    fn cdlp<'py>(
        &self,
        py: Python<'py>,
        iterations: i64,
        labels: Option<&Bound<'py, PyAny>>,
        threads: i64,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let iterations = conv::count(iterations, "iterations", u64::from(u32::MAX))? as u32;
        let threads = conv::threads(threads)?;
        let spec = projection_spec(labels, None, None)?;
        let labels = self.run(
            py,
            spec.as_ref(),
            |s, idx| Ok(analytics::cdlp(s, idx, iterations, threads)),
            |p, _| Ok(analytics::cdlp_projected(p, iterations, threads)),
        )?;
        Ok(labels.into_pyarray(py))
    }

    /// Number of triangles in the undirected simple graph underneath
    /// (direction ignored, self-loops dropped), as SNAP counts them.
    ///
    /// With ``labels`` (one label, or a list; ``[]`` for every label) the
    /// kernel runs on a projection of the property edges instead of the
    /// weighted edges: those labels' edges, parallel edges as one,
    /// undirected if the graph is (see ``sssp`` for weights).
    #[pyo3(signature = (*, labels = None, threads = 0))]
    fn triangle_count(
        &self,
        py: Python<'_>,
        labels: Option<&Bound<'_, PyAny>>,
        threads: i64,
    ) -> PyResult<u64> {
        let threads = conv::threads(threads)?;
        let spec = projection_spec(labels, None, None)?;
        self.run(
            py,
            spec.as_ref(),
            |s, _| Ok(analytics::triangle_count(s, threads)),
            |p, _| Ok(analytics::triangle_count_projected(p, threads)),
        )
    }

    /// Single-source betweenness dependencies (Brandes): for each vertex
    /// ``v``, the sum over targets ``t`` of the fraction of shortest
    /// ``source -> t`` paths through ``v``. Unweighted, along out-edges, not
    /// normalised; summed over all sources it gives raw betweenness on
    /// directed graphs and twice it on undirected ones. A float64 array
    /// aligned with ``vertices()``.
    ///
    /// With ``labels`` (one label, or a list; ``[]`` for every label) the
    /// kernel runs on a projection of the property edges instead of the
    /// weighted edges: those labels' edges, parallel edges as one,
    /// undirected if the graph is (see ``sssp`` for weights).
    #[pyo3(signature = (source, *, labels = None, threads = 0))]
    fn betweenness<'py>(
        &self,
        py: Python<'py>,
        source: &Bound<'py, PyAny>,
        labels: Option<&Bound<'py, PyAny>>,
        threads: i64,
    ) -> PyResult<Bound<'py, PyArray1<f64>>> {
        let (v, threads) = (conv::vertex_arg(source, "source")?, conv::threads(threads)?);
        let spec = projection_spec(labels, None, None)?;
        let source = self.with(|s| self.source(s, &v, "source"))?;
        let dep = self.run(
            py,
            spec.as_ref(),
            |s, idx| Ok(analytics::betweenness(s, idx, source, threads)),
            |p, idx| {
                Ok(analytics::betweenness_projected(
                    p,
                    idx.external(source),
                    threads,
                ))
            },
        )?;
        Ok(dep.into_pyarray(py))
    }

    /// ``{vertex id: value}`` for a per-vertex array (any sequence of
    /// ``num_vertices`` values aligned with ``vertices()``); numpy values
    /// become Python scalars. In a string-keyed store the dict is keyed by
    /// the vertices' ``str`` keys.
    fn to_dict<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let (idx, keys) = self.with(|s| {
            let idx = self.index(py, s);
            let keys = match self.dict(s) {
                Some(k) => Some(vertices::keys_of(Some(k), &idx.ext)?),
                None => None,
            };
            Ok((idx, keys))
        })?;
        let n = values.len()?;
        if n != idx.ext.len() {
            return Err(PyValueError::new_err(format!(
                "values: expected {} values (one per vertex), got {n}",
                idx.ext.len()
            )));
        }
        let values = if values.hasattr("tolist")? {
            values.call_method0("tolist")?
        } else {
            values.clone()
        };
        let dict = PyDict::new(py);
        match keys {
            Some(keys) => {
                for (key, value) in keys.iter().zip(values.try_iter()?) {
                    dict.set_item(&**key, value?)?;
                }
            }
            None => {
                for (id, value) in idx.ext.iter().zip(values.try_iter()?) {
                    dict.set_item(id, value?)?;
                }
            }
        }
        Ok(dict)
    }

    /// A ``networkx.DiGraph`` (or ``Graph``) with the same vertices, edges
    /// and ``weight`` edge attributes, vertices added in ``vertices()`` order
    /// (nodes are the ``str`` keys in a string-keyed store).
    fn to_networkx<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        py.import("stratagraph._convert")?
            .getattr("snapshot_to_networkx")?
            .call1((slf,))
    }

    /// The weighted adjacency matrix as a ``scipy.sparse.csr_matrix``; row
    /// and column ``i`` are vertex ``vertices()[i]``. Undirected edges fill
    /// both triangles, as networkx's ``to_scipy_sparse_array`` does.
    fn to_scipy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let (indptr, indices, data) = self.compute(py, |s, idx| Ok(index::csr(s, idx)))?;
        let n = indptr.len() - 1;
        let kwargs = PyDict::new(py);
        kwargs.set_item("shape", (n, n))?;
        let parts = (
            data.into_pyarray(py),
            indices.into_pyarray(py),
            indptr.into_pyarray(py),
        );
        py.import("scipy.sparse")?
            .getattr("csr_matrix")?
            .call((parts,), Some(&kwargs))
    }

    /// Releases the snapshot (it stops holding old versions alive); later
    /// calls raise ``Closed``. Closing twice is allowed.
    fn close(&self, py: Python<'_>) {
        py.detach(|| {
            drop(self.snap.write().take());
            drop(self.projection.lock().take());
        });
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) -> bool {
        self.close(py);
        false
    }

    fn __repr__(&self) -> String {
        match self.with(|s| Ok((s.timestamp(), s.vertex_count(), s.edge_count()))) {
            Ok((ts, n, m)) => {
                format!("<stratagraph.Snapshot at {ts}: {n} vertices, {m} edges>")
            }
            Err(_) => "<stratagraph.Snapshot, closed>".to_owned(),
        }
    }
}

/// The `ids=` argument of the Arrow methods.
fn vertex_ids(ids: &str) -> PyResult<stratagraph_io::tables::VertexIds> {
    match ids {
        "user" => Ok(stratagraph_io::tables::VertexIds::User),
        "internal" => Ok(stratagraph_io::tables::VertexIds::Internal),
        other => Err(errors::InvalidInput::new_err(format!(
            "ids={other:?}: expected \"user\" or \"internal\""
        ))),
    }
}

/// The chunk sizes of an export, each a positive number of rows.
pub(crate) fn export_chunks(
    vertex_chunk: i64,
    edge_chunk: i64,
) -> PyResult<stratagraph_io::graphar::Chunks> {
    let positive = |n: i64, arg: &str| match conv::count(n, arg, u32::MAX.into())? {
        0 => Err(PyValueError::new_err(format!(
            "{arg}: expected a positive number of rows per file, got 0"
        ))),
        n => Ok(n),
    };
    Ok(stratagraph_io::graphar::Chunks {
        vertices: positive(vertex_chunk, "vertex_chunk")?,
        edges: positive(edge_chunk, "edge_chunk")?,
    })
}

/// An export's error as its Python exception.
pub(crate) fn export_error(e: stratagraph_io::graphar::ExportError) -> PyErr {
    use stratagraph_io::graphar::ExportError;
    match e {
        ExportError::NotEmpty(_) => pyo3::exceptions::PyFileExistsError::new_err(e.to_string()),
        ExportError::ReservedKey { .. } => errors::InvalidInput::new_err(e.to_string()),
        ExportError::Io { .. } => pyo3::exceptions::PyOSError::new_err(e.to_string()),
    }
}

/// What `export_parquet` returns.
pub(crate) fn exported_dict<'py>(
    py: Python<'py>,
    done: &stratagraph_io::graphar::Exported,
) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
    let d = pyo3::types::PyDict::new(py);
    d.set_item("timestamp", done.timestamp)?;
    d.set_item("vertices", done.vertices)?;
    d.set_item("edges", done.edges)?;
    d.set_item("weighted_edges", done.weighted_edges)?;
    d.set_item("files", done.files)?;
    d.set_item("bytes", done.bytes)?;
    Ok(d)
}
