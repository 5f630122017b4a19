//! Changes (`Graph::changes`) as an Arrow table, and such a table applied
//! to another store: how a downstream copy (a Spark job, a replica)
//! catches up without re-reading everything.
//!
//! One row per write, in commit order: `ts` (UInt64, the commit), `op`
//! (dictionary-encoded: `add_vertex`, `delete_vertex`, `put_edge`,
//! `delete_edge`, `set_property`, `remove_property`, `add_edge`,
//! `remove_edge`, `set_edge_property`, `remove_edge_property`,
//! `create_index`), `vertex`, `src`, `dst` (ids as the user gave them:
//! Int64, UInt64 above 2^63-1, Utf8 keys in a store of string ids),
//! `edge_id` (UInt64), `label`, `key` (Utf8), `value` (Binary: the value in
//! the engine's encoding, `docs/FORMAT.md` §5, marked as
//! [`crate::columns`]' encoded columns are) and `weight` (Float64); a
//! column a write does not use is null. `add_vertex` says the vertex
//! exists from that commit on (created unless it was there: a transaction
//! names every vertex its writes touch); `delete_vertex` removes the
//! vertex's edges and properties too; `put_edge` creates missing ends.

use crate::columns::{ColumnReader, ENCODED, ENCODING_KEY};
use crate::load::{LoadError, Loaded, RawId};
use crate::tables::{err, Table};
use arrow_array::builder::{
    BinaryBuilder, Float64Builder, Int64Builder, StringBuilder, StringDictionaryBuilder,
    UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Int32Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use stratagraph::{Change, ChangeOp, Graph, Snapshot, Value, VertexId, WriteTxn};

/// The table's columns, in order.
const COLUMNS: [&str; 10] = [
    "ts", "op", "vertex", "src", "dst", "edge_id", "label", "key", "value", "weight",
];

/// Rows per record batch.
const BATCH_ROWS: usize = 1 << 16;

/// How the table names vertices.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ids {
    Int64,
    UInt64,
    Keys,
}

/// `changes` as a table; `snap` names vertices by their keys in a store of
/// string ids (keys are never taken back, so any snapshot of the store
/// does).
pub fn change_table(snap: &Snapshot, changes: &[Change]) -> (SchemaRef, Vec<RecordBatch>) {
    let big = changes
        .iter()
        .flat_map(|c| vertices_of(&c.op))
        .any(|v| v > i64::MAX as u64);
    let ids = match (snap.has_string_ids(), big) {
        (true, _) => Ids::Keys,
        (false, true) => Ids::UInt64,
        (false, false) => Ids::Int64,
    };
    let id_type = match ids {
        Ids::Int64 => DataType::Int64,
        Ids::UInt64 => DataType::UInt64,
        Ids::Keys => DataType::Utf8,
    };
    let dict = DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8));
    let value = Field::new("value", DataType::Binary, true).with_metadata(HashMap::from([(
        ENCODING_KEY.to_owned(),
        ENCODED.to_owned(),
    )]));
    let schema: SchemaRef = Arc::new(Schema::new(vec![
        Field::new("ts", DataType::UInt64, false),
        Field::new("op", dict.clone(), false),
        Field::new("vertex", id_type.clone(), true),
        Field::new("src", id_type.clone(), true),
        Field::new("dst", id_type, true),
        Field::new("edge_id", DataType::UInt64, true),
        Field::new("label", DataType::Utf8, true),
        Field::new("key", DataType::Utf8, true),
        value,
        Field::new("weight", DataType::Float64, true),
    ]));
    let batches = changes
        .chunks(BATCH_ROWS)
        .filter_map(|chunk| RecordBatch::try_new(schema.clone(), columns(snap, ids, chunk)).ok())
        .collect();
    (schema, batches)
}

fn vertices_of(op: &ChangeOp) -> Vec<VertexId> {
    match op {
        ChangeOp::AddVertex { vertex, .. }
        | ChangeOp::DeleteVertex { vertex }
        | ChangeOp::SetProperty { vertex, .. }
        | ChangeOp::RemoveProperty { vertex, .. } => vec![*vertex],
        ChangeOp::PutEdge { src, dst, .. }
        | ChangeOp::DeleteEdge { src, dst }
        | ChangeOp::AddEdge { src, dst, .. } => vec![*src, *dst],
        _ => Vec::new(),
    }
}

/// A column of vertex ids as the table gives them.
struct IdCol {
    ids: Ids,
    ints: Int64Builder,
    uints: UInt64Builder,
    keys: StringBuilder,
}

impl IdCol {
    fn new(ids: Ids) -> IdCol {
        IdCol {
            ids,
            ints: Int64Builder::new(),
            uints: UInt64Builder::new(),
            keys: StringBuilder::new(),
        }
    }

    fn push(&mut self, snap: &Snapshot, v: Option<VertexId>) {
        match (self.ids, v) {
            (Ids::Int64, v) => self.ints.append_option(v.map(|v| v as i64)),
            (Ids::UInt64, v) => self.uints.append_option(v),
            (Ids::Keys, Some(v)) => match snap.key_of(v) {
                Some(k) => self.keys.append_value(&*k),
                None => self.keys.append_value(v.to_string()),
            },
            (Ids::Keys, None) => self.keys.append_null(),
        }
    }

    fn finish(mut self) -> ArrayRef {
        match self.ids {
            Ids::Int64 => Arc::new(self.ints.finish()),
            Ids::UInt64 => Arc::new(self.uints.finish()),
            Ids::Keys => Arc::new(self.keys.finish()),
        }
    }
}

fn op_name(op: &ChangeOp) -> &'static str {
    match op {
        ChangeOp::AddVertex { .. } => "add_vertex",
        ChangeOp::DeleteVertex { .. } => "delete_vertex",
        ChangeOp::PutEdge { .. } => "put_edge",
        ChangeOp::DeleteEdge { .. } => "delete_edge",
        ChangeOp::SetProperty { .. } => "set_property",
        ChangeOp::RemoveProperty { .. } => "remove_property",
        ChangeOp::AddEdge { .. } => "add_edge",
        ChangeOp::RemoveEdge { .. } => "remove_edge",
        ChangeOp::SetEdgeProperty { .. } => "set_edge_property",
        ChangeOp::RemoveEdgeProperty { .. } => "remove_edge_property",
        ChangeOp::CreateIndex { .. } => "create_index",
        _ => "unknown",
    }
}

fn columns(snap: &Snapshot, ids: Ids, changes: &[Change]) -> Vec<ArrayRef> {
    let mut ts = UInt64Builder::with_capacity(changes.len());
    let mut ops = StringDictionaryBuilder::<Int32Type>::new();
    let (mut vertex, mut src, mut dst) = (IdCol::new(ids), IdCol::new(ids), IdCol::new(ids));
    let mut edge_id = UInt64Builder::new();
    let (mut label, mut key) = (StringBuilder::new(), StringBuilder::new());
    let mut value = BinaryBuilder::new();
    let mut weight = Float64Builder::new();
    let mut buf = Vec::new();
    for c in changes {
        ts.append_value(c.ts);
        ops.append_value(op_name(&c.op));
        let (mut v, mut s, mut d, mut e, mut l, mut k, mut val, mut w) =
            (None, None, None, None, None, None, None, None);
        match &c.op {
            ChangeOp::AddVertex { vertex, label } => {
                v = Some(*vertex);
                l = label.as_deref();
            }
            ChangeOp::DeleteVertex { vertex } => v = Some(*vertex),
            ChangeOp::PutEdge { src, dst, weight } => {
                (s, d, w) = (Some(*src), Some(*dst), Some(*weight));
            }
            ChangeOp::DeleteEdge { src, dst } => (s, d) = (Some(*src), Some(*dst)),
            ChangeOp::SetProperty { vertex, key, value } => {
                (v, k, val) = (Some(*vertex), Some(key.as_str()), Some(value));
            }
            ChangeOp::RemoveProperty { vertex, key } => {
                (v, k) = (Some(*vertex), Some(key.as_str()))
            }
            ChangeOp::AddEdge {
                id,
                src,
                dst,
                label,
            } => (e, s, d, l) = (Some(*id), Some(*src), Some(*dst), Some(label.as_str())),
            ChangeOp::RemoveEdge { id } => e = Some(*id),
            ChangeOp::SetEdgeProperty { id, key, value } => {
                (e, k, val) = (Some(*id), Some(key.as_str()), Some(value));
            }
            ChangeOp::RemoveEdgeProperty { id, key } => (e, k) = (Some(*id), Some(key.as_str())),
            ChangeOp::CreateIndex { label, key } => {
                (l, k) = (Some(label.as_str()), Some(key.as_str()))
            }
            _ => {}
        }
        vertex.push(snap, v);
        src.push(snap, s);
        dst.push(snap, d);
        edge_id.append_option(e);
        label.append_option(l);
        key.append_option(k);
        buf.clear();
        match val.map(|x| x.encode(&mut buf)) {
            Some(Ok(())) => value.append_value(&buf),
            _ => value.append_null(),
        }
        weight.append_option(w);
    }
    vec![
        Arc::new(ts.finish()),
        Arc::new(ops.finish()),
        vertex.finish(),
        src.finish(),
        dst.finish(),
        Arc::new(edge_id.finish()),
        Arc::new(label.finish()),
        Arc::new(key.finish()),
        Arc::new(value.finish()),
        Arc::new(weight.finish()),
    ]
}

/// Writes the changes of `g` after `since` as one Parquet file `file` in
/// [`change_table`]'s columns; returns what was written: (the timestamp the
/// changes reach, rows, bytes).
pub fn write_parquet(
    g: &Graph,
    since: u64,
    file: &std::path::Path,
) -> Result<(u64, usize, u64), ChangesError> {
    let c = g.changes(since).map_err(ChangesError::Engine)?;
    let (schema, batches) = change_table(&g.snapshot(), &c.changes);
    let bytes = crate::graphar::write_parquet_batches(file, &schema, &batches)
        .map_err(ChangesError::Write)?;
    Ok((c.until, c.changes.len(), bytes))
}

/// Why changes could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ChangesError {
    /// The store could not give them (`ChangesUnavailable`, a damaged log).
    #[error(transparent)]
    Engine(stratagraph::Error),
    /// The file could not be written.
    #[error(transparent)]
    Write(crate::graphar::ExportError),
}

// ---------------------------------------------------------------------------
// Applying

/// One row read back.
struct Row {
    ts: u64,
    op: String,
    vertex: Option<RawId>,
    src: Option<RawId>,
    dst: Option<RawId>,
    edge_id: Option<u64>,
    label: Option<String>,
    key: Option<String>,
    value: Option<Value>,
    weight: Option<f64>,
}

fn rows(t: &Table) -> Result<Vec<Row>, LoadError> {
    for name in COLUMNS {
        if t.schema.index_of(name).is_err() {
            return Err(err(t, Some(name), "missing column"));
        }
    }
    let mut out = Vec::new();
    for b in &t.batches {
        let col = |name: &str| b.column(t.schema.index_of(name).unwrap_or(0)).clone();
        let field = |name: &str| t.schema.field(t.schema.index_of(name).unwrap_or(0)).clone();
        let readers: Vec<(&str, ArrayRef, Field)> =
            COLUMNS.iter().map(|c| (*c, col(c), field(c))).collect();
        let mut values: HashMap<&str, Vec<Option<Value>>> = HashMap::new();
        for (name, array, field) in &readers {
            let r = ColumnReader::new(array.as_ref(), field).map_err(|e| err(t, Some(name), e))?;
            let mut v = Vec::with_capacity(array.len());
            for i in 0..array.len() {
                let at = out.len() + i;
                v.push(
                    r.value(i)
                        .map_err(|e| err(t, Some(name), format!("row {at}: {e}")))?,
                );
            }
            values.insert(name, v);
        }
        let ts_col = col("ts");
        if ts_col.data_type() != &DataType::UInt64 || ts_col.null_count() > 0 {
            return Err(err(t, Some("ts"), "expected UInt64 timestamps, none null"));
        }
        let ts = ts_col.as_primitive::<UInt64Type>();
        for i in 0..b.num_rows() {
            let at = out.len();
            let take = |name: &str| values.get(name).and_then(|v| v[i].clone());
            let id = |name: &str| -> Result<Option<RawId>, LoadError> {
                match take(name) {
                    None => Ok(None),
                    Some(Value::String(s)) => Ok(Some(RawId::Str(s))),
                    Some(Value::Int64(x)) if x >= 0 => Ok(Some(RawId::Int(x as u64))),
                    Some(other) => Err(err(
                        t,
                        Some(name),
                        format!("row {at}: {other:?} is not a vertex id"),
                    )),
                }
            };
            let string = |name: &str| -> Result<Option<String>, LoadError> {
                match take(name) {
                    None => Ok(None),
                    Some(Value::String(s)) => Ok(Some(s)),
                    Some(other) => Err(err(
                        t,
                        Some(name),
                        format!("row {at}: a {}, expected a string", other.type_name()),
                    )),
                }
            };
            let Some(op) = string("op")? else {
                return Err(err(t, Some("op"), format!("row {at}: no op")));
            };
            let edge_id = match take("edge_id") {
                None => None,
                Some(Value::Int64(x)) if x >= 0 => Some(x as u64),
                Some(other) => {
                    return Err(err(t, Some("edge_id"), format!("row {at}: {other:?}")));
                }
            };
            let weight = match take("weight") {
                None => None,
                Some(Value::Float64(w)) => Some(w),
                Some(other) => {
                    return Err(err(t, Some("weight"), format!("row {at}: {other:?}")));
                }
            };
            out.push(Row {
                ts: ts.value(i),
                op,
                vertex: id("vertex")?,
                src: id("src")?,
                dst: id("dst")?,
                edge_id,
                label: string("label")?,
                key: string("key")?,
                value: take("value"),
                weight,
            });
        }
    }
    Ok(out)
}

/// Applies a change table (as [`change_table`] writes it) to `g`: each
/// commit's rows as one transaction, in order, so `g` moves from the state
/// the changes start at (for instance a copy loaded from an export at
/// `since`) to the state at their last commit.
///
/// Every row is read and checked first (columns, types, an op it knows
/// with the fields it needs); a bad table changes nothing. A delete of an
/// edge or vertex already gone (a vertex delete took its edges) is
/// skipped. A commit the store refuses stops the work: the commits
/// before it stay applied (`LoadError::loaded` counts them as batches).
pub fn apply(g: &Graph, t: &Table) -> Result<Loaded, LoadError> {
    let rows = rows(t)?;
    for (i, r) in rows.iter().enumerate() {
        let need = |ok: bool, what: &str| {
            if ok {
                Ok(())
            } else {
                Err(err(t, None, format!("row {i}: {} needs {what}", r.op)))
            }
        };
        match r.op.as_str() {
            "add_vertex" | "delete_vertex" => need(r.vertex.is_some(), "a vertex")?,
            "put_edge" => need(
                r.src.is_some() && r.dst.is_some() && r.weight.is_some(),
                "src, dst and a weight",
            )?,
            "delete_edge" => need(r.src.is_some() && r.dst.is_some(), "src and dst")?,
            "set_property" => need(
                r.vertex.is_some() && r.key.is_some() && r.value.is_some(),
                "a vertex, a key and a value",
            )?,
            "remove_property" => need(r.vertex.is_some() && r.key.is_some(), "a vertex and a key")?,
            "add_edge" => need(
                r.edge_id.is_some() && r.src.is_some() && r.dst.is_some() && r.label.is_some(),
                "an edge id, src, dst and a label",
            )?,
            "remove_edge" => need(r.edge_id.is_some(), "an edge id")?,
            "set_edge_property" => need(
                r.edge_id.is_some() && r.key.is_some() && r.value.is_some(),
                "an edge id, a key and a value",
            )?,
            "remove_edge_property" => need(
                r.edge_id.is_some() && r.key.is_some(),
                "an edge id and a key",
            )?,
            "create_index" => need(r.label.is_some() && r.key.is_some(), "a label and a key")?,
            other => return Err(err(t, Some("op"), format!("row {i}: unknown op {other:?}"))),
        }
    }
    let mut loaded = Loaded::default();
    let file = PathBuf::from(&t.name);
    let engine = |row: usize, e: stratagraph::Error, loaded: Loaded| LoadError::Engine {
        file: file.clone(),
        line: row as u64 + 1,
        source: Box::new(e),
        loaded,
    };
    let mut start = 0;
    while start < rows.len() {
        let ts = rows[start].ts;
        let end = rows[start..]
            .iter()
            .position(|r| r.ts != ts)
            .map_or(rows.len(), |n| start + n);
        apply_commit(g, &rows[start..end]).map_err(|(i, e)| engine(start + i, e, loaded))?;
        loaded.batches += 1;
        start = end;
    }
    Ok(loaded)
}

/// One commit's rows in one transaction (an index creation on its own).
fn apply_commit(g: &Graph, rows: &[Row]) -> Result<(), (usize, stratagraph::Error)> {
    let mut tx = g.begin();
    let keyed = g.options().string_ids;
    for (i, r) in rows.iter().enumerate() {
        let fail = |e| (i, e);
        let id = |tx: &mut WriteTxn,
                  raw: &Option<RawId>|
         -> Result<VertexId, (usize, stratagraph::Error)> {
            match raw {
                Some(RawId::Int(x)) if !keyed => Ok(*x),
                Some(RawId::Int(x)) => tx.intern_key(&x.to_string()).map_err(|e| (i, e)),
                Some(RawId::Str(s)) if keyed => tx.intern_key(s).map_err(|e| (i, e)),
                Some(RawId::Str(s)) => Err((
                    i,
                    stratagraph::Error::WrongIdKind {
                        vertex: s.clone(),
                        what: "this store names vertices by integers".into(),
                    },
                )),
                None => Ok(0),
            }
        };
        let key = r.key.as_deref().unwrap_or_default();
        match r.op.as_str() {
            "add_vertex" => {
                let v = id(&mut tx, &r.vertex)?;
                match &r.label {
                    Some(l) => tx.insert_vertex_with(v, l, &[]).map(drop),
                    None => tx.insert_vertex(v).map(drop),
                }
                .map_err(fail)?;
            }
            "delete_vertex" => {
                let v = id(&mut tx, &r.vertex)?;
                if tx.has_vertex(v) {
                    tx.delete_vertex(v).map_err(fail)?;
                }
            }
            "put_edge" => {
                let (s, d) = (id(&mut tx, &r.src)?, id(&mut tx, &r.dst)?);
                tx.insert_edge(s, d, r.weight.unwrap_or(1.0))
                    .map_err(fail)?;
            }
            "delete_edge" => {
                let (s, d) = (id(&mut tx, &r.src)?, id(&mut tx, &r.dst)?);
                if tx.has_edge(s, d) {
                    tx.delete_edge(s, d).map_err(fail)?;
                }
            }
            "set_property" => {
                let v = id(&mut tx, &r.vertex)?;
                let value = r.value.clone().unwrap_or(Value::Null);
                tx.set_property(v, key, value).map_err(fail)?;
            }
            "remove_property" => {
                let v = id(&mut tx, &r.vertex)?;
                if tx.has_vertex(v) {
                    tx.remove_property(v, key).map_err(fail)?;
                }
            }
            "add_edge" => {
                let (s, d) = (id(&mut tx, &r.src)?, id(&mut tx, &r.dst)?);
                let e = r.edge_id.unwrap_or_default();
                let label = r.label.as_deref().unwrap_or_default();
                tx.add_edge_with_id(e, s, d, label, &[]).map_err(fail)?;
            }
            "remove_edge" => {
                let e = r.edge_id.unwrap_or_default();
                if tx.edge(e).is_some() {
                    tx.remove_edge(e).map_err(fail)?;
                }
            }
            "set_edge_property" => {
                let e = r.edge_id.unwrap_or_default();
                let value = r.value.clone().unwrap_or(Value::Null);
                tx.set_edge_property(e, key, value).map_err(fail)?;
            }
            "remove_edge_property" => {
                let e = r.edge_id.unwrap_or_default();
                if tx.edge(e).is_some() {
                    tx.remove_edge_property(e, key).map_err(fail)?;
                }
            }
            "create_index" => {
                let label = r.label.as_deref().unwrap_or_default();
                g.create_index(label, key).map_err(fail)?;
            }
            _ => {}
        }
    }
    tx.commit()
        .map(drop)
        .map_err(|e| (rows.len().saturating_sub(1), e))
}
