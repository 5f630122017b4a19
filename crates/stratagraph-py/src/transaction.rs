//! `stratagraph.Transaction`: buffered writes with read-your-writes.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use numpy::{IntoPyArray, PyArray1};
use parking_lot::Mutex;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use stratagraph::{Edge, EdgeDirection, Graph, WriteTxn};

use crate::conversions::{self as conv, VertexArg};
use crate::edges::{self, EdgeArgs};
use crate::errors::{self, Closed, NotFound};
use crate::values;
use crate::vertices;

/// A write transaction: its writes are invisible to everyone else until
/// ``commit()``, and all of them then appear at once, at one timestamp.
///
/// Reads inside it (``has_edge``, ``weight``, ``neighbors`` ...) see the
/// graph as of its first read plus its own writes. ``commit()`` raises
/// ``Conflict`` (applying nothing) if another transaction committed a change
/// to an element this one writes after that first read (with
/// ``serializable=True``: or to anything it read); run it again. A
/// transaction that only writes never conflicts. A call that raises leaves
/// the transaction as it was before the call.
///
/// As a context manager it commits when the block ends normally and rolls
/// back when the block raises (the exception propagates). After
/// ``commit()`` or ``rollback()`` every call raises ``Closed``.
///
/// In a string-keyed store (``Graph.string_ids``) vertex arguments may be
/// ``str`` keys: ``add_vertex``, ``add_edge`` and ``add_edge_with_id`` give
/// a new key its id at once (kept even if the transaction rolls back; an
/// id creates no vertex), the other calls look keys up. A key found to
/// have no vertex is a read like any other: a serializable commit fails if
/// that vertex was created meanwhile.
#[pyclass(frozen, module = "stratagraph", name = "Transaction")]
pub struct PyTransaction {
    /// `None` once committed or rolled back. Held only without the GIL
    /// and never while waiting for it, so it cannot deadlock against it.
    txn: Mutex<Option<WriteTxn>>,
    store_open: Arc<AtomicBool>,
    /// A handle on the store's key dictionary if it is string-keyed (the
    /// transaction reads keys through it: `WriteTxn` only gives ids).
    keys: Option<Graph>,
}

fn finished() -> PyErr {
    Closed::new_err("transaction has already been committed or rolled back")
}

impl PyTransaction {
    pub fn new(txn: WriteTxn, store_open: Arc<AtomicBool>, keys: Option<Graph>) -> Self {
        PyTransaction {
            txn: Mutex::new(Some(txn)),
            store_open,
            keys,
        }
    }

    /// The id of vertex argument `v` (given as `arg`) for a read, or for a
    /// write that needs the vertex: `None` for a key that names no vertex
    /// as this transaction sees the graph.
    fn find(&self, tx: &mut WriteTxn, v: &VertexArg, arg: &str) -> PyResult<Option<u64>> {
        let (VertexArg::Key(key), Some(_)) = (v, &self.keys) else {
            return vertices::find(self.keys.as_ref(), v, arg);
        };
        // A key without an id is a read of the transaction's snapshot,
        // which a serializable commit validates (`WriteTxn::key_id`).
        Ok(tx.key_id(key))
    }

    /// The id of vertex argument `v` for a write that needs the vertex,
    /// `NotFound` (as the engine says it for `op`) for a key that names no
    /// vertex.
    fn existing(
        &self,
        tx: &mut WriteTxn,
        v: &VertexArg,
        arg: &str,
        op: stratagraph::Op,
    ) -> PyResult<u64> {
        self.find(tx, v, arg)?
            .ok_or_else(|| NotFound::new_err(format!("{op}: vertex {v} does not exist")))
    }

    /// The engine's error `e` as its Python exception, naming the keys of
    /// the vertices it names in a string-keyed store.
    fn error(&self, e: stratagraph::Error) -> PyErr {
        vertices::engine_error(self.keys.as_ref(), e)
    }

    fn check_store(&self) -> PyResult<()> {
        if self.store_open.load(Ordering::Acquire) {
            Ok(())
        } else {
            Err(errors::closed("graph"))
        }
    }

    /// Runs `f` on the open transaction without the GIL: a transaction's
    /// first read may wait for commits in flight (a batch among them) to
    /// finish, which other Python threads should not wait for too.
    fn with<R: Send>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&mut WriteTxn) -> PyResult<R> + Send,
    ) -> PyResult<R> {
        self.check_store()?;
        py.detach(|| {
            let mut guard = self.txn.lock();
            f(guard.as_mut().ok_or_else(finished)?)
        })
    }

    /// Takes the transaction out, so committing runs without the lock.
    fn take(&self) -> PyResult<WriteTxn> {
        self.check_store()?;
        self.txn.lock().take().ok_or_else(finished)
    }

    fn neighbor_ids<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        label: Option<&str>,
        out: bool,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let arg = conv::vertex_arg(v, "v")?;
        let ids = self.with(py, |tx| {
            let Some(v) = self.find(tx, &arg, "v")? else {
                return Err(vertex_missing(&arg));
            };
            let ids = match label {
                None if out => tx.out_neighbors(v),
                None => tx.in_neighbors(v),
                Some(label) => {
                    let dir = if out {
                        EdgeDirection::Out
                    } else {
                        EdgeDirection::In
                    };
                    tx.edges_of(v, dir, Some(label))
                        .map(|found| edges::other_ends(&found, out))
                }
            };
            ids.ok_or_else(|| vertex_missing(&arg))
        })?;
        Ok(ids.into_pyarray(py))
    }

    /// `v`'s property edges on side `direction`, of `label` or of all.
    fn edges_of_vertex(
        &self,
        py: Python<'_>,
        v: &Bound<'_, PyAny>,
        label: Option<&str>,
        direction: &str,
    ) -> PyResult<Vec<Edge>> {
        let arg = conv::vertex_arg(v, "v")?;
        let dir = conv::edge_direction(direction)?;
        self.with(py, |tx| {
            self.find(tx, &arg, "v")?
                .and_then(|v| tx.edges_of(v, dir, label))
                .ok_or_else(|| vertex_missing(&arg))
        })
    }

    /// The ends of `edges` as results show them.
    fn ends(&self, edges: &[Edge]) -> Vec<edges::Ends> {
        edges::ends(self.keys.as_ref(), edges)
    }
}

/// `NotFound` for vertex `v` (an id, or a key), as given.
fn vertex_missing(v: &dyn std::fmt::Display) -> PyErr {
    NotFound::new_err(format!("vertex {v} does not exist"))
}

#[pymethods]
impl PyTransaction {
    /// Whether the transaction can still be used (not yet committed or
    /// rolled back, and its graph not closed).
    #[getter]
    fn active(&self) -> bool {
        self.store_open.load(Ordering::Acquire) && self.txn.lock().is_some()
    }

    /// Number of buffered writes.
    fn __len__(&self, py: Python<'_>) -> PyResult<usize> {
        self.with(py, |tx| Ok(tx.len()))
    }

    /// Creates vertex ``v``, with ``label`` (``"vertex"`` if not given)
    /// and the keyword arguments as its properties; returns ``False`` (and
    /// writes nothing) if it already exists.
    #[pyo3(signature = (v, label = None, **properties))]
    fn add_vertex(
        &self,
        py: Python<'_>,
        v: &Bound<'_, PyAny>,
        label: Option<&str>,
        properties: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<bool> {
        let v = conv::vertex_arg(v, "v")?;
        let args = values::vertex_args(label, properties)?;
        self.with(py, |tx| {
            let v = vertices::create(self.keys.as_ref(), &v, "v")?;
            match &args {
                None => tx.insert_vertex(v),
                Some((label, props)) => tx.insert_vertex_with(v, label, &values::borrowed(props)),
            }
            .map_err(|e| self.error(e))
        })
    }

    /// Sets property ``key`` of vertex ``v`` to ``value`` (see the
    /// package docs for the value types). Raises ``NotFound`` if ``v``
    /// does not exist, ``InvalidInput`` for a bad key or value.
    fn set_property(
        &self,
        py: Python<'_>,
        v: &Bound<'_, PyAny>,
        key: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let v = conv::vertex_arg(v, "v")?;
        let value = values::to_value(value, &format!("property {key:?}"))?;
        self.with(py, |tx| {
            let v = self.existing(tx, &v, "v", stratagraph::Op::SetProperty)?;
            tx.set_property(v, key, value).map_err(|e| self.error(e))
        })
    }

    /// Removes property ``key`` of vertex ``v``; returns whether it was set.
    fn remove_property(&self, py: Python<'_>, v: &Bound<'_, PyAny>, key: &str) -> PyResult<bool> {
        let v = conv::vertex_arg(v, "v")?;
        self.with(py, |tx| {
            let v = self.existing(tx, &v, "v", stratagraph::Op::RemoveProperty)?;
            tx.remove_property(v, key).map_err(|e| self.error(e))
        })
    }

    /// Property ``key`` of vertex ``v`` counting this transaction's writes,
    /// or ``default`` if ``v`` has none (or does not exist).
    #[pyo3(signature = (v, key, default = None))]
    fn property(
        &self,
        py: Python<'_>,
        v: &Bound<'_, PyAny>,
        key: &str,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let v = conv::vertex_arg(v, "v")?;
        let value = self.with(py, |tx| {
            Ok(self.find(tx, &v, "v")?.and_then(|v| tx.property(v, key)))
        })?;
        values::or_default(py, value, default)
    }

    /// Every property of vertex ``v`` as a dict, counting this
    /// transaction's writes. Raises ``NotFound`` if ``v`` does not exist.
    fn properties<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let v = conv::vertex_arg(v, "v")?;
        let props = self.with(py, |tx| {
            self.find(tx, &v, "v")?
                .and_then(|id| tx.properties(id))
                .ok_or_else(|| vertex_missing(&v))
        })?;
        values::dict(py, &props)
    }

    /// The vertices labelled ``label`` whose property ``key`` equals
    /// ``value``, counting this transaction's writes, as a uint64 array.
    /// With ``serializable=True`` the commit fails if the answer's
    /// candidates changed meanwhile.
    fn find_vertices<'py>(
        &self,
        py: Python<'py>,
        label: &str,
        key: &str,
        value: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        let value = values::to_value(value, "value")?;
        let found = self.with(py, |tx| Ok(tx.find_vertices(label, key, &value)))?;
        Ok(found.into_pyarray(py))
    }

    /// The label of vertex ``v``. Raises ``NotFound`` if it does not exist.
    fn label(&self, py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<String> {
        let v = conv::vertex_arg(v, "v")?;
        self.with(py, |tx| {
            self.find(tx, &v, "v")?
                .and_then(|id| tx.label(id))
                .map(|l| l.to_string())
                .ok_or_else(|| vertex_missing(&v))
        })
    }

    /// Deletes vertex ``v`` and all its edges. Raises ``NotFound`` if it
    /// does not exist (as this transaction sees the graph).
    fn remove_vertex(&self, py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = conv::vertex_arg(v, "v")?;
        self.with(py, |tx| {
            let v = self.existing(tx, &v, "v", stratagraph::Op::DeleteVertex)?;
            tx.delete_vertex(v).map_err(|e| self.error(e))
        })
    }

    /// ``add_edge(u, v, weight=1.0)`` inserts (or re-weights) the weighted
    /// edge ``u -> v`` and returns ``None``. Raises ``InvalidInput`` for a
    /// non-finite weight, a refused self-loop, or an endpoint this
    /// transaction deleted.
    ///
    /// ``add_edge(u, v, label, **properties)``, with a ``str`` label,
    /// creates a new property edge ``u -> v`` with that label and the
    /// keyword arguments as its properties (``weight=`` among them is a
    /// property then), and returns its id. Any number of property edges
    /// may join two vertices; they are kept apart from the weighted
    /// structure. Raises ``InvalidInput`` for a bad label, key or value or
    /// an endpoint this transaction deleted.
    ///
    /// A third argument that is neither a ``str`` nor a real number (a
    /// ``bool`` is not one here), or keyword arguments other than
    /// ``weight`` without a label, raise ``TypeError``.
    #[pyo3(signature = (u, v, label = None, /, **properties))]
    fn add_edge(
        &self,
        py: Python<'_>,
        u: &Bound<'_, PyAny>,
        v: &Bound<'_, PyAny>,
        label: Option<&Bound<'_, PyAny>>,
        properties: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Option<u64>> {
        let (u, v) = (conv::vertex_arg(u, "u")?, conv::vertex_arg(v, "v")?);
        let keys = self.keys.as_ref();
        match edges::add_edge_args(label, properties)? {
            EdgeArgs::Weighted(weight) => {
                self.with(py, |tx| {
                    let (u, v) = vertices::create_pair(keys, (&u, "u"), (&v, "v"))?;
                    tx.insert_edge(u, v, weight).map_err(|e| self.error(e))
                })?;
                Ok(None)
            }
            EdgeArgs::Property(label, props) => self
                .with(py, |tx| {
                    let (u, v) = vertices::create_pair(keys, (&u, "u"), (&v, "v"))?;
                    tx.add_edge(u, v, &label, &values::borrowed(&props))
                        .map_err(|e| self.error(e))
                })
                .map(Some),
        }
    }

    /// Creates property edge ``edge_id``: ``u -> v`` labelled ``label``
    /// with the keyword arguments as its properties, as ``add_edge`` does
    /// but with an id the caller chooses (ids ``add_edge`` hands out later
    /// stay clear of it). Raises ``InvalidInput`` if an edge has that id.
    #[pyo3(signature = (edge_id, u, v, label, /, **properties))]
    fn add_edge_with_id(
        &self,
        py: Python<'_>,
        edge_id: &Bound<'_, PyAny>,
        u: &Bound<'_, PyAny>,
        v: &Bound<'_, PyAny>,
        label: &str,
        properties: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<()> {
        let e = conv::edge(edge_id, "edge_id")?;
        let (u, v) = (conv::vertex_arg(u, "u")?, conv::vertex_arg(v, "v")?);
        let props = values::properties(properties)?;
        self.with(py, |tx| {
            let (u, v) = vertices::create_pair(self.keys.as_ref(), (&u, "u"), (&v, "v"))?;
            tx.add_edge_with_id(e, u, v, label, &values::borrowed(&props))
                .map_err(|e| self.error(e))
        })
    }

    /// ``remove_edge(u, v)`` deletes the weighted edge ``u -> v``;
    /// ``remove_edge(edge_id)`` deletes the property edge with that id and
    /// its properties. Raises ``NotFound`` if it does not exist.
    #[pyo3(signature = (u, v = None))]
    fn remove_edge(
        &self,
        py: Python<'_>,
        u: &Bound<'_, PyAny>,
        v: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        match v {
            Some(v) => {
                let (u, v) = (conv::vertex_arg(u, "u")?, conv::vertex_arg(v, "v")?);
                self.with(py, |tx| {
                    let (Some(a), Some(b)) = (self.find(tx, &u, "u")?, self.find(tx, &v, "v")?)
                    else {
                        return Err(NotFound::new_err(format!(
                            "{}: edge ({u}, {v}) does not exist",
                            stratagraph::Op::DeleteEdge
                        )));
                    };
                    tx.delete_edge(a, b).map_err(|e| self.error(e))
                })
            }
            None => {
                let e = conv::edge(u, "edge_id")?;
                self.with(py, |tx| tx.remove_edge(e).map_err(errors::engine))
            }
        }
    }

    /// Sets property ``key`` of property edge ``edge_id`` to ``value``.
    /// Raises ``NotFound`` if the edge does not exist, ``InvalidInput`` for
    /// a bad key or value.
    fn set_edge_property(
        &self,
        py: Python<'_>,
        edge_id: &Bound<'_, PyAny>,
        key: &str,
        value: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let e = conv::edge(edge_id, "edge_id")?;
        let value = values::to_value(value, &format!("property {key:?}"))?;
        self.with(py, |tx| {
            tx.set_edge_property(e, key, value).map_err(errors::engine)
        })
    }

    /// Removes property ``key`` of property edge ``edge_id``; returns
    /// whether it was set. Raises ``NotFound`` if the edge does not exist.
    fn remove_edge_property(
        &self,
        py: Python<'_>,
        edge_id: &Bound<'_, PyAny>,
        key: &str,
    ) -> PyResult<bool> {
        let e = conv::edge(edge_id, "edge_id")?;
        self.with(py, |tx| {
            tx.remove_edge_property(e, key).map_err(errors::engine)
        })
    }

    /// Property ``key`` of property edge ``edge_id`` counting this
    /// transaction's writes, or ``default`` if it has none (or the edge
    /// does not exist).
    #[pyo3(signature = (edge_id, key, default = None))]
    fn edge_property(
        &self,
        py: Python<'_>,
        edge_id: &Bound<'_, PyAny>,
        key: &str,
        default: Option<Py<PyAny>>,
    ) -> PyResult<Py<PyAny>> {
        let e = conv::edge(edge_id, "edge_id")?;
        let value = self.with(py, |tx| Ok(tx.edge_property(e, key)))?;
        values::or_default(py, value, default)
    }

    /// Every property of property edge ``edge_id`` as a dict (in the order
    /// first set), counting this transaction's writes. Raises ``NotFound``
    /// if the edge does not exist.
    fn edge_properties<'py>(
        &self,
        py: Python<'py>,
        edge_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let e = conv::edge(edge_id, "edge_id")?;
        let props = self.with(py, |tx| {
            tx.edge_properties(e).ok_or_else(|| edges::missing(e, ""))
        })?;
        values::dict(py, &props)
    }

    /// Property edge ``edge_id`` as a dict, counting this transaction's
    /// writes: ``{"id", "src", "dst", "label", "properties"}``. Raises
    /// ``NotFound`` if it does not exist.
    fn edge<'py>(
        &self,
        py: Python<'py>,
        edge_id: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let e = conv::edge(edge_id, "edge_id")?;
        let (edge, props) = self.with(py, |tx| {
            let edge = tx.edge(e).ok_or_else(|| edges::missing(e, ""))?;
            Ok((edge, tx.edge_properties(e).unwrap_or_default()))
        })?;
        let ends = self.ends(std::slice::from_ref(&edge));
        edges::dict_with(py, &edge, &ends[0], &props)
    }

    /// The property edges of vertex ``v`` counting this transaction's
    /// writes, as dicts ``{"id", "src", "dst", "label"}``: those of
    /// ``label`` (every label if ``None``), on side ``direction``
    /// (``"out"``, ``"in"`` or ``"both"``, where a self-loop appears once),
    /// grouped by label (not alphabetically), within a label ordered by
    /// the other end as ``Snapshot.vertices()`` orders vertices, then by
    /// id. Raises ``NotFound`` if ``v`` does not exist, ``ValueError`` for
    /// another direction.
    #[pyo3(signature = (v, label = None, direction = "out"))]
    fn edges_of<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        label: Option<&str>,
        direction: &str,
    ) -> PyResult<Bound<'py, PyList>> {
        let found = self.edges_of_vertex(py, v, label, direction)?;
        edges::list(py, &found, &self.ends(&found))
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
        let found = self.edges_of_vertex(py, v, label, direction)?;
        Ok(edges::ids(&found).into_pyarray(py))
    }

    /// Whether ``v`` exists, counting this transaction's writes.
    fn has_vertex(&self, py: Python<'_>, v: &Bound<'_, PyAny>) -> PyResult<bool> {
        let v = conv::vertex_arg(v, "v")?;
        self.with(py, |tx| {
            Ok(self.find(tx, &v, "v")?.is_some_and(|v| tx.has_vertex(v)))
        })
    }

    /// Whether edge ``u -> v`` exists, counting this transaction's writes.
    fn has_edge(
        &self,
        py: Python<'_>,
        u: &Bound<'_, PyAny>,
        v: &Bound<'_, PyAny>,
    ) -> PyResult<bool> {
        let (u, v) = (conv::vertex_arg(u, "u")?, conv::vertex_arg(v, "v")?);
        self.with(py, |tx| {
            Ok(match (self.find(tx, &u, "u")?, self.find(tx, &v, "v")?) {
                (Some(a), Some(b)) => tx.has_edge(a, b),
                _ => false,
            })
        })
    }

    /// The weight of ``u -> v`` counting this transaction's writes; raises
    /// ``NotFound`` if the edge does not exist.
    fn weight(&self, py: Python<'_>, u: &Bound<'_, PyAny>, v: &Bound<'_, PyAny>) -> PyResult<f64> {
        let (u, v) = (conv::vertex_arg(u, "u")?, conv::vertex_arg(v, "v")?);
        self.with(py, |tx| {
            let found = match (self.find(tx, &u, "u")?, self.find(tx, &v, "v")?) {
                (Some(a), Some(b)) => tx.weight(a, b),
                _ => None,
            };
            found.ok_or_else(|| NotFound::new_err(format!("edge ({u}, {v}) does not exist")))
        })
    }

    /// Out-neighbours of ``v`` counting this transaction's writes, as a
    /// uint64 array in ascending internal-id order (the weighted edges).
    /// With ``label``: the destinations of ``v``'s out-going property edges
    /// of that label, once per edge (parallel edges repeat a neighbour),
    /// in ``edges_of`` order. Raises ``NotFound`` if ``v`` does not exist.
    #[pyo3(signature = (v, label = None))]
    fn neighbors<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        label: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        self.neighbor_ids(py, v, label, true)
    }

    /// In-neighbours of ``v`` counting this transaction's writes; with
    /// ``label``, the sources of ``v``'s in-coming property edges of that
    /// label, once per edge, as ``neighbors`` does.
    #[pyo3(signature = (v, label = None))]
    fn in_neighbors<'py>(
        &self,
        py: Python<'py>,
        v: &Bound<'py, PyAny>,
        label: Option<&str>,
    ) -> PyResult<Bound<'py, PyArray1<u64>>> {
        self.neighbor_ids(py, v, label, false)
    }

    /// Applies every write atomically and returns the commit timestamp (an
    /// empty transaction returns the newest timestamp). On error nothing is
    /// applied, and the transaction is finished either way.
    fn commit(&self, py: Python<'_>) -> PyResult<u64> {
        let tx = self.take()?;
        // Commit waits for concurrent batch writes, which run without the
        // GIL; holding it here would stall every other Python thread.
        py.detach(|| tx.commit()).map_err(|e| self.error(e))
    }

    /// Discards every write. Rolling back a finished transaction raises
    /// ``Closed``.
    fn rollback(&self) -> PyResult<()> {
        drop(self.take()?);
        Ok(())
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    /// Commits if the block ended normally, rolls back if it raised; the
    /// exception (if any) propagates. Does nothing if the block already
    /// committed or rolled back.
    #[pyo3(signature = (exc_type, _exc = None, _tb = None))]
    fn __exit__(
        &self,
        py: Python<'_>,
        exc_type: &Bound<'_, PyAny>,
        _exc: Option<&Bound<'_, PyAny>>,
        _tb: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<bool> {
        let tx = self.txn.lock().take();
        if let Some(tx) = tx {
            if exc_type.is_none() {
                self.check_store()?;
                py.detach(|| tx.commit()).map_err(|e| self.error(e))?;
            }
        }
        Ok(false)
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        match self.with(py, |tx| Ok(tx.len())) {
            Ok(n) => format!("<stratagraph.Transaction, {n} buffered writes>"),
            Err(_) => "<stratagraph.Transaction, finished>".to_owned(),
        }
    }
}
