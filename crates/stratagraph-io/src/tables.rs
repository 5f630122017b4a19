//! A snapshot as two Arrow tables (its vertices and its edges), and such
//! tables into a store: what `Snapshot.to_arrow` and `Graph.load_arrow`
//! hand to pandas, polars, DuckDB and pyarrow through the Arrow C data
//! interface.
//!
//! The **vertex table** has `_id` (the user's id: Int64, UInt64 if one
//! exceeds 2^63−1, Utf8 in a store of string ids), `_label`
//! (dictionary-encoded Utf8) and one column per property key any vertex
//! has. The **edge table** has `_id` (UInt64, the property edge's id;
//! null for an edge of the weighted structure), `_src` and `_dst` (ids as
//! in the vertex table), `_label` (null for the weighted structure),
//! `_weight` (Float64; null for property edges) and one column per
//! property key any property edge has. An undirected store lists each
//! weighted edge once. Property columns are typed as [`crate::columns`]
//! says, so values keep their types through a round trip.

use crate::columns::{row_properties, ColumnReader, KeyKinds, RowProperties};
use crate::load::{Batcher, EdgeRecord, LoadError, LoadOptions, Loaded, RawId, VertexRecord};
use arrow_array::builder::{
    Float64Builder, Int64Builder, StringBuilder, StringDictionaryBuilder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::path::PathBuf;
use std::sync::Arc;
use stratagraph::{EdgeDirection, Graph, Snapshot, Value, VertexId};

/// Rows per record batch the tables are cut into.
pub const BATCH_ROWS: usize = 1 << 16;

const ID: &str = "_id";
const LABEL: &str = "_label";
const SRC: &str = "_src";
const DST: &str = "_dst";
const WEIGHT: &str = "_weight";

/// Column names a table has for itself; a property of the same name is
/// refused rather than shadowed.
pub const RESERVED: [&str; 5] = [ID, LABEL, SRC, DST, WEIGHT];

/// Why a snapshot cannot be written as tables.
#[derive(Debug, thiserror::Error)]
#[error("{what} property {key:?} has the name of one of the table's own columns ({RESERVED:?})")]
pub struct ReservedKey {
    /// `vertex` or `edge`.
    pub what: &'static str,
    pub key: String,
}

/// How the tables give vertex ids.
#[derive(Clone, Copy, PartialEq, Eq)]
enum IdType {
    Int64,
    UInt64,
    Keys,
}

impl IdType {
    fn of(snap: &Snapshot) -> IdType {
        if snap.has_string_ids() {
            IdType::Keys
        } else if snap
            .vertices()
            .all(|v| snap.external_id_unchecked(v) <= i64::MAX as u64)
        {
            IdType::Int64
        } else {
            IdType::UInt64
        }
    }

    fn data_type(self) -> DataType {
        match self {
            IdType::Int64 => DataType::Int64,
            IdType::UInt64 => DataType::UInt64,
            IdType::Keys => DataType::Utf8,
        }
    }

    fn build(self, snap: &Snapshot, ids: &[VertexId]) -> ArrayRef {
        match self {
            IdType::Int64 => {
                let mut b = Int64Builder::with_capacity(ids.len());
                ids.iter().for_each(|&v| b.append_value(v as i64));
                Arc::new(b.finish())
            }
            IdType::UInt64 => {
                let mut b = UInt64Builder::with_capacity(ids.len());
                b.append_slice(ids);
                Arc::new(b.finish())
            }
            IdType::Keys => {
                let mut b = StringBuilder::with_capacity(ids.len(), ids.len() * 8);
                for &v in ids {
                    match snap.key_of(v) {
                        Some(k) => b.append_value(&*k),
                        None => b.append_value(v.to_string()),
                    }
                }
                Arc::new(b.finish())
            }
        }
    }
}

fn label_type() -> DataType {
    DataType::Dictionary(Box::new(DataType::Int32), Box::new(DataType::Utf8))
}

fn reserved(what: &'static str, kinds: &KeyKinds) -> Result<(), ReservedKey> {
    match kinds.keys().find(|k| RESERVED.contains(k)) {
        Some(k) => Err(ReservedKey {
            what,
            key: k.to_owned(),
        }),
        None => Ok(()),
    }
}

/// The vertex table of `snap`, in batches of [`BATCH_ROWS`] rows, in the
/// order of `snap.vertices()`.
pub fn vertex_table(snap: &Snapshot) -> Result<(SchemaRef, Vec<RecordBatch>), ReservedKey> {
    let mut kinds = KeyKinds::default();
    for v in snap.vertices() {
        for (k, value) in snap
            .properties(snap.external_id_unchecked(v))
            .unwrap_or_default()
        {
            kinds.add(&k, &value);
        }
    }
    reserved("vertex", &kinds)?;
    let ids = IdType::of(snap);
    let mut fields = vec![
        Field::new(ID, ids.data_type(), false),
        Field::new(LABEL, label_type(), false),
    ];
    fields.extend(kinds.fields());
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let all: Vec<u32> = snap.vertices().collect();
    let mut batches = Vec::new();
    for chunk in all.chunks(BATCH_ROWS) {
        let ext: Vec<VertexId> = chunk
            .iter()
            .map(|&v| snap.external_id_unchecked(v))
            .collect();
        let mut labels = StringDictionaryBuilder::<Int32Type>::new();
        let mut cols = kinds.rows(chunk.len());
        for (row, &v) in ext.iter().enumerate() {
            labels.append_value(
                snap.label(v)
                    .as_deref()
                    .unwrap_or(stratagraph::DEFAULT_LABEL),
            );
            for (k, value) in snap.properties(v).unwrap_or_default() {
                cols.set(&k, row, value);
            }
        }
        let mut arrays: Vec<ArrayRef> = vec![ids.build(snap, &ext), Arc::new(labels.finish())];
        arrays.extend(cols.build(&kinds));
        batches.push(
            RecordBatch::try_new(schema.clone(), arrays).map_err(|e| ReservedKey {
                what: "vertex",
                key: e.to_string(),
            })?,
        );
    }
    Ok((schema, batches))
}

/// The edge table of `snap`: each vertex's property edges (out side, in
/// its `edges_of` order), then its weighted edges, vertex by vertex.
pub fn edge_table(snap: &Snapshot) -> Result<(SchemaRef, Vec<RecordBatch>), ReservedKey> {
    let mut kinds = KeyKinds::default();
    for v in snap.vertices() {
        for e in snap.edge_ends_of(snap.external_id_unchecked(v), EdgeDirection::Out, None) {
            for (k, value) in snap.edge_properties(e.id).unwrap_or_default() {
                kinds.add(&k, &value);
            }
        }
    }
    reserved("edge", &kinds)?;
    let ids = IdType::of(snap);
    let mut fields = vec![
        Field::new(ID, DataType::UInt64, true),
        Field::new(SRC, ids.data_type(), false),
        Field::new(DST, ids.data_type(), false),
        Field::new(LABEL, label_type(), true),
        Field::new(WEIGHT, DataType::Float64, true),
    ];
    fields.extend(kinds.fields());
    let schema: SchemaRef = Arc::new(Schema::new(fields));
    let directed = snap.is_directed();
    let mut rows = EdgeRows::new(&kinds);
    let mut batches = Vec::new();
    for v in snap.vertices() {
        let src = snap.external_id_unchecked(v);
        for e in snap.edge_ends_of(src, EdgeDirection::Out, None) {
            let label = snap.label_name(e.label);
            rows.push(Some(e.id), src, e.other, label.as_deref(), None);
            for (k, value) in snap.edge_properties(e.id).unwrap_or_default() {
                rows.cols.set(&k, rows.src.len() - 1, value);
            }
            rows.flush_if_full(snap, ids, &schema, &kinds, &mut batches);
        }
        for (o, w) in snap.out_weighted_of(v) {
            if directed || o >= v {
                rows.push(None, src, snap.external_id_unchecked(o), None, Some(w));
                rows.flush_if_full(snap, ids, &schema, &kinds, &mut batches);
            }
        }
    }
    rows.flush(snap, ids, &schema, &kinds, &mut batches);
    Ok((schema, batches))
}

struct EdgeRows {
    ids: UInt64Builder,
    src: Vec<VertexId>,
    dst: Vec<VertexId>,
    labels: StringDictionaryBuilder<Int32Type>,
    weights: Float64Builder,
    cols: crate::columns::Rows,
}

impl EdgeRows {
    fn new(kinds: &KeyKinds) -> EdgeRows {
        EdgeRows {
            ids: UInt64Builder::new(),
            src: Vec::new(),
            dst: Vec::new(),
            labels: StringDictionaryBuilder::new(),
            weights: Float64Builder::new(),
            cols: kinds.rows(0),
        }
    }

    fn push(
        &mut self,
        id: Option<u64>,
        src: VertexId,
        dst: VertexId,
        label: Option<&str>,
        w: Option<f64>,
    ) {
        self.ids.append_option(id);
        self.src.push(src);
        self.dst.push(dst);
        self.labels.append_option(label);
        self.weights.append_option(w);
        self.cols.grow(self.src.len());
    }

    fn flush_if_full(
        &mut self,
        snap: &Snapshot,
        ids: IdType,
        schema: &SchemaRef,
        kinds: &KeyKinds,
        out: &mut Vec<RecordBatch>,
    ) {
        if self.src.len() >= BATCH_ROWS {
            self.flush(snap, ids, schema, kinds, out);
        }
    }

    fn flush(
        &mut self,
        snap: &Snapshot,
        ids: IdType,
        schema: &SchemaRef,
        kinds: &KeyKinds,
        out: &mut Vec<RecordBatch>,
    ) {
        if self.src.is_empty() && !out.is_empty() {
            return;
        }
        let mut arrays: Vec<ArrayRef> = vec![
            Arc::new(self.ids.finish()),
            ids.build(snap, &self.src),
            ids.build(snap, &self.dst),
            Arc::new(self.labels.finish()),
            Arc::new(self.weights.finish()),
        ];
        let cols = std::mem::replace(&mut self.cols, kinds.rows(0));
        arrays.extend(cols.build(kinds));
        self.src.clear();
        self.dst.clear();
        // The schema was built from the same kinds: the batch matches it.
        if let Ok(b) = RecordBatch::try_new(schema.clone(), arrays) {
            out.push(b);
        }
    }
}

// ---------------------------------------------------------------------------
// Tables into a store

/// A table handed in: its schema, its batches, and what to call it in
/// errors.
pub struct Table {
    pub name: String,
    pub schema: SchemaRef,
    pub batches: Vec<RecordBatch>,
}

fn err(t: &Table, column: Option<&str>, what: impl Into<String>) -> LoadError {
    LoadError::Table {
        file: PathBuf::from(&t.name),
        column: column.map(str::to_owned),
        what: what.into(),
        loaded: Loaded::default(),
    }
}

/// Reads every row's `RawId` from column `name` (integers or strings).
fn raw_ids(t: &Table, name: &str) -> Result<Vec<RawId>, LoadError> {
    let Ok(i) = t.schema.index_of(name) else {
        return Err(err(t, Some(name), "missing column"));
    };
    let mut out = Vec::new();
    for b in &t.batches {
        let a = b.column(i);
        if a.null_count() > 0 {
            return Err(err(
                t,
                Some(name),
                format!("null in row {}", out.len() + first_null(a.as_ref())),
            ));
        }
        match a.data_type() {
            DataType::Int64 | DataType::Int32 | DataType::UInt32 | DataType::UInt64 => {
                let cast = arrow_cast_u64(a.as_ref());
                for (row, x) in cast.into_iter().enumerate() {
                    out.push(RawId::Int(x.ok_or_else(|| {
                        err(
                            t,
                            Some(name),
                            format!("row {}: a negative id", out.len() + row),
                        )
                    })?));
                }
            }
            DataType::Utf8 => out.extend(
                a.as_string::<i32>()
                    .iter()
                    .map(|s| RawId::Str(s.unwrap_or_default().to_owned())),
            ),
            DataType::LargeUtf8 => out.extend(
                a.as_string::<i64>()
                    .iter()
                    .map(|s| RawId::Str(s.unwrap_or_default().to_owned())),
            ),
            DataType::Utf8View => out.extend(
                a.as_string_view()
                    .iter()
                    .map(|s| RawId::Str(s.unwrap_or_default().to_owned())),
            ),
            other => {
                return Err(err(
                    t,
                    Some(name),
                    format!("type {other}, expected integers or strings"),
                ))
            }
        }
    }
    Ok(out)
}

fn first_null(a: &dyn Array) -> usize {
    (0..a.len()).find(|&i| a.is_null(i)).unwrap_or(0)
}

/// Integer ids as `u64`, `None` for a negative one.
fn arrow_cast_u64(a: &dyn Array) -> Vec<Option<u64>> {
    match a.data_type() {
        DataType::Int64 => a
            .as_primitive::<Int64Type>()
            .values()
            .iter()
            .map(|&x| u64::try_from(x).ok())
            .collect(),
        DataType::Int32 => a
            .as_primitive::<Int32Type>()
            .values()
            .iter()
            .map(|&x| u64::try_from(x).ok())
            .collect(),
        DataType::UInt32 => a
            .as_primitive::<arrow_array::types::UInt32Type>()
            .values()
            .iter()
            .map(|&x| Some(u64::from(x)))
            .collect(),
        _ => a
            .as_primitive::<UInt64Type>()
            .values()
            .iter()
            .map(|&x| Some(x))
            .collect(),
    }
}

/// Every row's value of an optional string column (`None` when absent or
/// null).
fn strings(t: &Table, name: &str) -> Result<Option<Vec<Option<String>>>, LoadError> {
    let Ok(i) = t.schema.index_of(name) else {
        return Ok(None);
    };
    let field = t.schema.field(i);
    let mut out = Vec::new();
    for b in &t.batches {
        let a = b.column(i);
        let r = ColumnReader::new(a.as_ref(), field).map_err(|e| err(t, Some(name), e))?;
        for row in 0..a.len() {
            let at = out.len();
            match r
                .value(row)
                .map_err(|e| err(t, Some(name), format!("row {at}: {e}")))?
            {
                None => out.push(None),
                Some(Value::String(s)) => out.push(Some(s)),
                Some(other) => {
                    return Err(err(
                        t,
                        Some(name),
                        format!(
                            "row {}: a {}, expected a string",
                            out.len(),
                            other.type_name()
                        ),
                    ))
                }
            }
        }
    }
    Ok(Some(out))
}

/// Every row's properties from the columns not named in `own`.
fn properties(t: &Table, own: &[&str]) -> Result<RowProperties, LoadError> {
    row_properties(&t.schema, &t.batches, own).map_err(|(column, what)| err(t, Some(&column), what))
}

/// Loads `vertices` then `edges` into `g` (either may be absent).
///
/// Every table is read and checked first (required columns present and of
/// a usable type, no null id or end, every value readable), so a bad
/// table changes nothing. Then vertices go in as the loaders do: a new
/// vertex with its label and properties, a vertex already there gets the
/// row's properties set. Edges with a `_label` are property edges (with
/// the row's `_id`, or a new id where it is null or absent); edges with
/// a null or absent `_label` go into the weighted structure (`_weight`,
/// or 1.0), in atomic batches. `batch` rows per transaction; a failure
/// the store reports (an edge id in use, a missing end) keeps the
/// batches before it and says how many (`LoadError::loaded`).
pub fn load(
    g: &Graph,
    vertices: Option<&Table>,
    edges: Option<&Table>,
    batch: usize,
) -> Result<Loaded, LoadError> {
    struct Checked {
        ids: Vec<RawId>,
        labels: Option<Vec<Option<String>>>,
        props: RowProperties,
    }
    let vs = match vertices {
        Some(t) => Some(Checked {
            ids: raw_ids(t, ID)?,
            labels: strings(t, LABEL)?,
            props: properties(t, &[ID, LABEL])?,
        }),
        None => None,
    };
    struct CheckedEdges {
        src: Vec<RawId>,
        dst: Vec<RawId>,
        ids: Vec<Option<u64>>,
        labels: Option<Vec<Option<String>>>,
        weights: Vec<Option<f64>>,
        props: RowProperties,
    }
    let es = match edges {
        Some(t) => {
            let src = raw_ids(t, SRC)?;
            let dst = raw_ids(t, DST)?;
            let n = src.len();
            let mut ids = vec![None; n];
            if let Ok(i) = t.schema.index_of(ID) {
                let mut at = 0;
                for b in &t.batches {
                    let a = b.column(i);
                    if !matches!(
                        a.data_type(),
                        DataType::UInt64 | DataType::Int64 | DataType::Int32 | DataType::UInt32
                    ) {
                        return Err(err(
                            t,
                            Some(ID),
                            format!("type {}, expected integers", a.data_type()),
                        ));
                    }
                    let vals = arrow_cast_u64(a.as_ref());
                    for (row, x) in vals.into_iter().enumerate() {
                        if !a.is_null(row) {
                            ids[at + row] = Some(x.ok_or_else(|| {
                                err(t, Some(ID), format!("row {}: a negative id", at + row))
                            })?);
                        }
                    }
                    at += a.len();
                }
            }
            let mut weights = vec![None; n];
            if let Ok(i) = t.schema.index_of(WEIGHT) {
                let mut at = 0;
                for b in &t.batches {
                    let a = b.column(i);
                    let a = match a.data_type() {
                        DataType::Float64 => a.clone(),
                        other => {
                            return Err(err(
                                t,
                                Some(WEIGHT),
                                format!("type {other}, expected Float64"),
                            ))
                        }
                    };
                    let p = a.as_primitive::<Float64Type>();
                    for row in 0..p.len() {
                        if !p.is_null(row) {
                            weights[at + row] = Some(p.value(row));
                        }
                    }
                    at += p.len();
                }
            }
            Some(CheckedEdges {
                src,
                dst,
                ids,
                labels: strings(t, LABEL)?,
                weights,
                props: properties(t, &[ID, SRC, DST, LABEL, WEIGHT])?,
            })
        }
        None => None,
    };
    let name = |t: Option<&Table>| PathBuf::from(t.map_or("", |t| t.name.as_str()));
    let opts = LoadOptions {
        batch: batch.max(1),
    };
    let mut b = Batcher::new(g, &name(vertices), opts, Loaded::default());
    if let Some(vs) = vs {
        for (row, (id, props)) in vs.ids.into_iter().zip(vs.props).enumerate() {
            let record = VertexRecord {
                id,
                id_field: ID.into(),
                label: vs.labels.as_ref().and_then(|l| l[row].clone()),
                props,
            };
            b.vertex(row as u64 + 1, &record)?;
        }
        b.commit(0)?;
    }
    if let Some(es) = es {
        b.set_file(&name(edges));
        let mut weighted: Vec<(u64, RawId, RawId, f64)> = Vec::new();
        let rows = es.src.into_iter().zip(es.dst).zip(es.props);
        for (row, ((src, dst), props)) in rows.enumerate() {
            let line = row as u64 + 1;
            match es.labels.as_ref().and_then(|l| l[row].clone()) {
                Some(label) => {
                    let record = EdgeRecord {
                        id: es.ids[row],
                        src,
                        dst,
                        src_field: SRC.into(),
                        dst_field: DST.into(),
                        label,
                        props,
                    };
                    b.edge(line, &record)?;
                }
                None => weighted.push((line, src, dst, es.weights[row].unwrap_or(1.0))),
            }
        }
        b.commit(0)?;
        b.weighted(&weighted)?;
    }
    Ok(b.loaded)
}

/// What to call a table in errors when it has no file.
pub fn table_name(what: &str) -> String {
    format!("<{what} table>")
}
