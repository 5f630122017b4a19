//! The store as a traversal sees it: a snapshot for a read-only traversal,
//! a transaction (reads of its own writes included) for one that writes.
//!
//! Everything the executor asks of the engine goes through here, so the
//! steps do not care which of the two they run on, and the engine's types
//! (`Value`, `Edge`) become the traversal's ([`GValue`], [`EdgeRef`]) in
//! one place.

use std::cell::RefCell;
use std::sync::Arc;

use stratagraph::{
    Edge, EdgeDirection, EdgeEnd, EdgeId, Graph, Snapshot, Value, VertexId, WriteTxn,
};

use crate::error::{Error, Result};
use crate::value::{EdgeRef, GValue};

/// A snapshot or a transaction.
pub(crate) struct Db {
    access: Access,
    string_ids: bool,
}

enum Access {
    Read(Snapshot),
    Write(Box<RefCell<WriteTxn>>),
}

impl Db {
    /// A read-only view at the newest commit.
    pub(crate) fn read(graph: &Graph) -> Db {
        Db {
            access: Access::Read(graph.snapshot()),
            string_ids: graph.options().string_ids,
        }
    }

    /// A transaction.
    pub(crate) fn write(graph: &Graph) -> Db {
        Db {
            access: Access::Write(Box::new(RefCell::new(graph.begin()))),
            string_ids: graph.options().string_ids,
        }
    }

    /// Commits the transaction, if this is one.
    pub(crate) fn commit(self) -> Result<()> {
        if let Access::Write(txn) = self.access {
            txn.into_inner().commit()?;
        }
        Ok(())
    }

    fn with<R>(
        &self,
        read: impl FnOnce(&Snapshot) -> R,
        write: impl FnOnce(&mut WriteTxn) -> R,
    ) -> R {
        match &self.access {
            Access::Read(s) => read(s),
            Access::Write(t) => write(&mut t.borrow_mut()),
        }
    }

    fn txn(&self, step: &str) -> Result<std::cell::RefMut<'_, WriteTxn>> {
        match &self.access {
            Access::Write(t) => Ok(t.borrow_mut()),
            Access::Read(_) => Err(Error::Runtime(format!(
                "{step} writes, but the traversal was opened read-only"
            ))),
        }
    }

    /// The snapshot a read-only traversal reads (a writing one reads
    /// through its transaction instead).
    pub(crate) fn snapshot(&self) -> Option<&Snapshot> {
        match &self.access {
            Access::Read(s) => Some(s),
            Access::Write(_) => None,
        }
    }

    /// Whether vertices are named by strings here.
    pub(crate) fn string_ids(&self) -> bool {
        self.string_ids
    }

    /// Every vertex, ascending by internal id (creation order).
    pub(crate) fn vertices(&self) -> Vec<VertexId> {
        self.with(
            |s| s.vertices().map(|v| s.external_id_unchecked(v)).collect(),
            |t| t.vertices(),
        )
    }

    /// Every edge, ascending by id.
    pub(crate) fn edges(&self) -> Vec<EdgeRef> {
        self.with(|s| s.edges(), |t| t.edges())
            .into_iter()
            .map(edge_ref)
            .collect()
    }

    pub(crate) fn has_vertex(&self, v: VertexId) -> bool {
        self.with(|s| s.has_vertex(v), |t| t.has_vertex(v))
    }

    pub(crate) fn edge(&self, id: EdgeId) -> Option<EdgeRef> {
        self.with(|s| s.edge(id), |t| t.edge(id)).map(edge_ref)
    }

    pub(crate) fn label(&self, v: VertexId) -> Option<Arc<str>> {
        self.with(|s| s.label(v), |t| t.label(v))
    }

    pub(crate) fn property(&self, v: VertexId, key: &str) -> Option<GValue> {
        match &self.access {
            Access::Read(s) => s.property_with(v, key, from_value),
            Access::Write(t) => t.borrow_mut().property(v, key).map(|x| from_value(&x)),
        }
    }

    pub(crate) fn properties(&self, v: VertexId) -> Vec<(Arc<str>, GValue)> {
        values_of(self.with(|s| s.properties(v), |t| t.properties(v)))
    }

    pub(crate) fn edge_property(&self, e: EdgeId, key: &str) -> Option<GValue> {
        self.with(|s| s.edge_property(e, key), |t| t.edge_property(e, key))
            .map(|v| from_value(&v))
    }

    pub(crate) fn edge_properties(&self, e: EdgeId) -> Vec<(Arc<str>, GValue)> {
        values_of(self.with(|s| s.edge_properties(e), |t| t.edge_properties(e)))
    }

    /// The vertices at the other end of `v`'s edges on `dir`'s side with
    /// one of `labels` (any if empty), in the order of [`Db::edges_of`].
    pub(crate) fn adjacent_vertices(
        &self,
        v: VertexId,
        dir: EdgeDirection,
        labels: &[Arc<str>],
    ) -> Vec<VertexId> {
        match &self.access {
            Access::Read(s) => snapshot_ends(s, v, dir, labels)
                .into_iter()
                .map(|(e, _)| e.other)
                .collect(),
            Access::Write(_) => self
                .edges_of(v, dir, labels)
                .into_iter()
                .map(|e| if e.src == v { e.dst } else { e.src })
                .collect(),
        }
    }

    /// How many edges `v` has on `dir`'s side with one of `labels` (any if
    /// empty), counted as [`Db::edges_of`] lists them.
    pub(crate) fn edge_count(&self, v: VertexId, dir: EdgeDirection, labels: &[Arc<str>]) -> u64 {
        match &self.access {
            Access::Read(s) => {
                let Some(id) = s.internal_id(v) else {
                    return 0;
                };
                let mut n = 0;
                for &side in sides(dir) {
                    if labels.is_empty() {
                        n += s.edge_count_of(id, side, None);
                    }
                    for l in labels {
                        n += s
                            .label_number(l)
                            .map_or(0, |l| s.edge_count_of(id, side, Some(l)));
                    }
                }
                n as u64
            }
            Access::Write(_) => self.edges_of(v, dir, labels).len() as u64,
        }
    }

    /// `v`'s edges on `dir`'s side with one of `labels` (any if empty).
    pub(crate) fn edges_of(
        &self,
        v: VertexId,
        dir: EdgeDirection,
        labels: &[Arc<str>],
    ) -> Vec<EdgeRef> {
        if let Access::Read(s) = &self.access {
            let ends = snapshot_ends(s, v, dir, labels);
            let mut names: Vec<(u32, Arc<str>)> = Vec::new();
            let mut out = Vec::with_capacity(ends.len());
            for (e, starts_here) in ends {
                let label = match names.iter().find(|(l, _)| *l == e.label) {
                    Some((_, n)) => n.clone(),
                    None => {
                        let n = s.label_name(e.label).unwrap_or_else(|| Arc::from(""));
                        names.push((e.label, n.clone()));
                        n
                    }
                };
                let (src, dst) = if starts_here {
                    (v, e.other)
                } else {
                    (e.other, v)
                };
                out.push(EdgeRef {
                    id: e.id,
                    src,
                    dst,
                    label,
                });
            }
            return out;
        }
        let one = |label: Option<&str>| -> Vec<Edge> {
            match dir {
                // A self-loop is both an out- and an in-edge, as TinkerPop
                // counts it.
                EdgeDirection::Both => {
                    let mut out = self.with(
                        |s| s.edges_of(v, EdgeDirection::Out, label),
                        |t| t.edges_of(v, EdgeDirection::Out, label).unwrap_or_default(),
                    );
                    out.extend(self.with(
                        |s| s.edges_of(v, EdgeDirection::In, label),
                        |t| t.edges_of(v, EdgeDirection::In, label).unwrap_or_default(),
                    ));
                    out
                }
                d => self.with(
                    |s| s.edges_of(v, d, label),
                    |t| t.edges_of(v, d, label).unwrap_or_default(),
                ),
            }
        };
        let mut out: Vec<Edge> = if labels.is_empty() {
            one(None)
        } else {
            let mut out = Vec::new();
            for l in labels {
                out.extend(one(Some(l)));
            }
            out
        };
        by_creation_within_labels(&mut out, |e| &*e.label, |e| e.id);
        out.into_iter().map(edge_ref).collect()
    }

    /// Vertices with `label` whose `key` equals `value` (the engine's
    /// index when one exists), or `None` when the value cannot be stored
    /// (then nothing has it).
    pub(crate) fn find(&self, label: &str, key: &str, value: &GValue) -> Option<Vec<VertexId>> {
        let value = to_value(value).ok()?;
        Some(self.with(
            |s| s.find_vertices(label, key, &value),
            |t| t.find_vertices(label, key, &value),
        ))
    }

    /// The id a traversal shows for vertex `v`: its key in a store of
    /// string ids, else the integer as a `Long`.
    pub(crate) fn vertex_id(&self, v: VertexId) -> GValue {
        if self.string_ids {
            if let Some(k) = self.with(|s| s.key_of(v), |t| t.key_of(v)) {
                return GValue::String(k);
            }
        }
        GValue::Int64(v as i64)
    }

    /// The engine's id of the vertex a traversal names by `id`, if it can
    /// name one here (`None`: no such vertex).
    pub(crate) fn vertex_of_id(&self, id: &GValue) -> Option<VertexId> {
        match id {
            GValue::Vertex(v) => Some(*v),
            GValue::String(s) if self.string_ids => {
                self.with(|snap| snap.key_id(s), |t| t.key_id(s))
            }
            // A number names the vertex with that integer id, whatever
            // its Gremlin type; a string of digits does too (as
            // TinkerGraph's default id manager allows).
            GValue::String(s) => s.parse::<u64>().ok(),
            v => match v.as_i64() {
                Some(i) => u64::try_from(i).ok(),
                None => v
                    .as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u64),
            },
        }
    }

    /// The engine's id of the edge a traversal names by `id`.
    pub(crate) fn edge_of_id(&self, id: &GValue) -> Option<EdgeId> {
        match id {
            GValue::Edge(e) => Some(e.id),
            GValue::String(s) => s.parse::<u64>().ok(),
            v => v.as_i64().and_then(|i| u64::try_from(i).ok()),
        }
    }

    // ---- writes ----

    /// Creates a vertex with `label`, with the given id or a fresh one.
    pub(crate) fn add_vertex(&self, id: Option<&GValue>, label: &str) -> Result<VertexId> {
        let mut txn = self.txn("addV")?;
        let v = match id {
            Some(GValue::String(s)) if self.string_ids => txn.intern_key(s)?,
            Some(id) => self.vertex_of_id(id).ok_or_else(|| {
                Error::Runtime(format!("{id} is not a vertex id this store can hold"))
            })?,
            None if self.string_ids => {
                // A generated key is the counter's decimal text, skipping
                // any a user gave a vertex already.
                let key = loop {
                    let key = txn.fresh_vertex_id()?.to_string();
                    if txn.key_id(&key).is_none() {
                        break key;
                    }
                };
                txn.intern_key(&key)?
            }
            None => txn.fresh_vertex_id()?,
        };
        if !txn.insert_vertex_with(v, label, &[])? {
            let shown = id.cloned().unwrap_or(GValue::Int64(v as i64));
            return Err(Error::Runtime(format!(
                "Vertex with id already exists: {shown}"
            )));
        }
        Ok(v)
    }

    pub(crate) fn add_edge(
        &self,
        src: VertexId,
        dst: VertexId,
        label: &str,
        id: Option<&GValue>,
    ) -> Result<EdgeRef> {
        let mut txn = self.txn("addE")?;
        let e = match id {
            Some(id) => {
                let e = self.edge_of_id(id).ok_or_else(|| {
                    Error::Runtime(format!("{id} is not an edge id this store can hold"))
                })?;
                txn.add_edge_with_id(e, src, dst, label, &[])?;
                e
            }
            None => txn.add_edge(src, dst, label, &[])?,
        };
        Ok(EdgeRef {
            id: e,
            src,
            dst,
            label: Arc::from(label),
        })
    }

    pub(crate) fn set_property(&self, v: VertexId, key: &str, value: &GValue) -> Result<()> {
        let value = to_value(value)?;
        self.txn("property")?.set_property(v, key, value)?;
        Ok(())
    }

    pub(crate) fn remove_property(&self, v: VertexId, key: &str) -> Result<()> {
        self.txn("drop")?.remove_property(v, key)?;
        Ok(())
    }

    pub(crate) fn set_edge_property(&self, e: EdgeId, key: &str, value: &GValue) -> Result<()> {
        let value = to_value(value)?;
        self.txn("property")?.set_edge_property(e, key, value)?;
        Ok(())
    }

    pub(crate) fn remove_edge_property(&self, e: EdgeId, key: &str) -> Result<()> {
        self.txn("drop")?.remove_edge_property(e, key)?;
        Ok(())
    }

    pub(crate) fn drop_vertex(&self, v: VertexId) -> Result<()> {
        let mut txn = self.txn("drop")?;
        if txn.has_vertex(v) {
            txn.delete_vertex(v)?;
        }
        Ok(())
    }

    pub(crate) fn drop_edge(&self, e: EdgeId) -> Result<()> {
        let mut txn = self.txn("drop")?;
        if txn.edge(e).is_some() {
            txn.remove_edge(e)?;
        }
        Ok(())
    }
}

/// The sides a hop in `dir` reads: `both()` reads each, so a self-loop
/// counts twice, as TinkerPop counts it.
pub(crate) fn sides(dir: EdgeDirection) -> &'static [EdgeDirection] {
    match dir {
        EdgeDirection::Out => &[EdgeDirection::Out],
        EdgeDirection::In => &[EdgeDirection::In],
        EdgeDirection::Both => &[EdgeDirection::Out, EdgeDirection::In],
    }
}

/// `v`'s edges as [`Db::edges_of`] lists them, read from a snapshot
/// without building an edge for each; the flag says `v` is the source.
fn snapshot_ends(
    s: &Snapshot,
    v: VertexId,
    dir: EdgeDirection,
    labels: &[Arc<str>],
) -> Vec<(EdgeEnd, bool)> {
    let side = |d: EdgeDirection, label: Option<&str>| {
        let out = d == EdgeDirection::Out;
        s.edge_ends_of(v, d, label)
            .into_iter()
            .map(move |e| (e, out))
    };
    let one = |label: Option<&str>| -> Vec<(EdgeEnd, bool)> {
        match dir {
            // A self-loop is both an out- and an in-edge, as TinkerPop
            // counts it.
            EdgeDirection::Both => side(EdgeDirection::Out, label)
                .chain(side(EdgeDirection::In, label))
                .collect(),
            d => side(d, label).collect(),
        }
    };
    let mut out = if labels.is_empty() {
        one(None)
    } else {
        let mut out = Vec::new();
        for l in labels {
            out.extend(one(Some(l)));
        }
        out
    };
    by_creation_within_labels(&mut out, |e| &e.0.label, |e| e.0.id);
    out
}

/// Orders each run of one label by edge id, i.e. creation order, as
/// TinkerGraph lists a vertex's edges (the engine keeps them by label and
/// far end, which serves look-ups, not this).
fn by_creation_within_labels<T, L: PartialEq + ?Sized>(
    edges: &mut [T],
    label: impl Fn(&T) -> &L,
    id: impl Fn(&T) -> EdgeId,
) {
    let mut start = 0;
    while start < edges.len() {
        let mut end = start + 1;
        while end < edges.len() && label(&edges[end]) == label(&edges[start]) {
            end += 1;
        }
        let run = &mut edges[start..end];
        if !run.is_sorted_by_key(&id) {
            run.sort_by_key(&id);
        }
        start = end;
    }
}

fn edge_ref(e: Edge) -> EdgeRef {
    EdgeRef {
        id: e.id,
        src: e.src,
        dst: e.dst,
        label: e.label,
    }
}

/// An element's stored properties as traversal values (none if there is
/// no such element).
fn values_of(props: Option<Vec<(Arc<str>, Value)>>) -> Vec<(Arc<str>, GValue)> {
    props
        .unwrap_or_default()
        .into_iter()
        .map(|(k, v)| (k, from_value(&v)))
        .collect()
}

/// A stored value as a traversal value.
pub(crate) fn from_value(v: &Value) -> GValue {
    match v {
        Value::Null => GValue::Null,
        Value::Bool(b) => GValue::Bool(*b),
        Value::Int8(x) => GValue::Int8(*x),
        Value::Int16(x) => GValue::Int16(*x),
        Value::Int32(x) => GValue::Int32(*x),
        Value::Int64(x) => GValue::Int64(*x),
        Value::Float32(x) => GValue::Float32(*x),
        Value::Float64(x) => GValue::Float64(*x),
        Value::String(s) => GValue::str(s),
        Value::Bytes(b) => GValue::Bytes(Arc::from(b.as_slice())),
        Value::Uuid(u) => GValue::Uuid(*u),
        Value::DateTime(d) => GValue::Date(*d),
        Value::List(items) => GValue::list(items.iter().map(from_value).collect()),
        Value::Set(items) => GValue::set(items.iter().map(from_value)),
        Value::Map(pairs) => GValue::map(pairs.iter().map(|(k, v)| (from_value(k), from_value(v)))),
    }
}

/// A traversal value as a stored one; elements, paths and big numbers
/// cannot be stored.
pub(crate) fn to_value(v: &GValue) -> Result<Value> {
    Ok(match v {
        GValue::Null => Value::Null,
        GValue::Bool(b) => Value::Bool(*b),
        GValue::Int8(x) => Value::Int8(*x),
        GValue::Int16(x) => Value::Int16(*x),
        GValue::Int32(x) => Value::Int32(*x),
        GValue::Int64(x) => Value::Int64(*x),
        GValue::Float32(x) => Value::Float32(*x),
        GValue::Float64(x) => Value::Float64(*x),
        GValue::String(s) => Value::String(s.to_string()),
        GValue::Bytes(b) => Value::Bytes(b.to_vec()),
        GValue::Uuid(u) => Value::Uuid(*u),
        GValue::Date(d) => Value::DateTime(*d),
        GValue::List(items) => Value::List(items.iter().map(to_value).collect::<Result<_>>()?),
        GValue::Set(items) => Value::set(items.iter().map(to_value).collect::<Result<_>>()?),
        GValue::Map(pairs) => Value::map(
            pairs
                .iter()
                .map(|(k, v)| Ok((to_value(k)?, to_value(v)?)))
                .collect::<Result<_>>()?,
        )
        .map_err(|e| Error::Runtime(e.to_string()))?,
        other => {
            return Err(Error::Runtime(format!(
                "a {} cannot be stored as a property value",
                other.type_name()
            )))
        }
    })
}
