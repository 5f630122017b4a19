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
//!
//! With [`VertexIds::Internal`] the tables name vertices by the store's
//! dense internal ids instead (`internal.rs`): the vertex table gains
//! `_vid` (UInt32) before `_id`, and the edge table's `_src` and `_dst`
//! are `_vid`s, so a compacted level's destination and weight columns go
//! out as they lie in memory or in the mapped file, without a copy.
//! [`load`] reads such tables back through the vertex table's `_vid`.

mod internal;

use crate::columns::{row_properties, ColumnReader, KeyKinds, RowProperties};
use crate::load::{Batcher, EdgeRecord, IdColumn, LoadError, LoadOptions, Loaded, VertexRecord};
use arrow_array::builder::{
    Float64Builder, Int64Builder, StringBuilder, StringDictionaryBuilder, UInt64Builder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int32Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch, UInt32Array};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use std::borrow::Cow;
use std::collections::HashMap;
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
const VID: &str = "_vid";

/// Column names a table has for itself; a property of the same name is
/// refused rather than shadowed.
pub const RESERVED: [&str; 6] = [ID, LABEL, SRC, DST, WEIGHT, VID];

/// How the tables name vertices.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VertexIds {
    /// As the user gave them (integers or string keys).
    #[default]
    User,
    /// By the store's dense internal ids (UInt32): `_vid` in the vertex
    /// table, `_src` and `_dst` in the edge table. Edges need no id
    /// translation, and the lists of a compacted directed graph are
    /// handed out without copying their destinations and weights (see
    /// [`edge_table_with`]).
    Internal,
}

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
    /// Internal ids, `VertexIds::Internal`.
    Internal,
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
            IdType::Internal => DataType::UInt32,
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
            IdType::Internal => Arc::new(
                ids.iter()
                    .map(|&v| snap.internal_id(v).unwrap_or(u32::MAX))
                    .collect::<UInt32Array>(),
            ),
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
    vertex_table_with(snap, VertexIds::User)
}

/// `vertex_table`, with `_vid` first when `ids` is `Internal`.
pub fn vertex_table_with(
    snap: &Snapshot,
    ids: VertexIds,
) -> Result<(SchemaRef, Vec<RecordBatch>), ReservedKey> {
    let internal = ids == VertexIds::Internal;
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
    let mut fields = Vec::new();
    if internal {
        fields.push(Field::new(VID, DataType::UInt32, false));
    }
    fields.push(Field::new(ID, ids.data_type(), false));
    fields.push(Field::new(LABEL, label_type(), false));
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
        let mut arrays: Vec<ArrayRef> = Vec::new();
        if internal {
            arrays.push(Arc::new(UInt32Array::from(chunk.to_vec())));
        }
        arrays.push(ids.build(snap, &ext));
        arrays.push(Arc::new(labels.finish()));
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
    edge_table_with(snap, VertexIds::User)
}

/// `edge_table` with vertices named as `ids` says.
///
/// With `Internal`, every property edge comes first, then the weighted
/// edges in source order, and columns are there only where they hold
/// something: `_id`, `_label` and property columns only if the snapshot
/// has property edges, `_weight` only if it has those or a weight other
/// than 1.0 (an absent `_weight` means 1.0, as [`load`] reads it). In a
/// directed graph, each run of lists the snapshot reads straight from a
/// segment (`Snapshot::shared_out_lists`: after a full compaction, all of
/// them) goes out as batches whose `_dst` and `_weight` are that
/// segment's columns, shared rather than copied; only `_src` is built,
/// 4 bytes an edge. An undirected graph lists each edge once, so its
/// lists are copied.
pub fn edge_table_with(
    snap: &Snapshot,
    ids: VertexIds,
) -> Result<(SchemaRef, Vec<RecordBatch>), ReservedKey> {
    if ids == VertexIds::Internal {
        return internal::edge_table(snap);
    }
    let (kinds, _) = edge_kinds(snap)?;
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
        rows.property_edges_of(snap, src, ids, &schema, &kinds, &mut batches);
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

/// The property kinds of every property edge's properties, and whether
/// `snap` has any property edge; `ReservedKey` for a key named like one of
/// the table's own columns.
fn edge_kinds(snap: &Snapshot) -> Result<(KeyKinds, bool), ReservedKey> {
    let mut kinds = KeyKinds::default();
    let mut any = false;
    for v in snap.vertices() {
        for e in snap.edge_ends_of(snap.external_id_unchecked(v), EdgeDirection::Out, None) {
            any = true;
            for (k, value) in snap.edge_properties(e.id).unwrap_or_default() {
                kinds.add(&k, &value);
            }
        }
    }
    reserved("edge", &kinds)?;
    Ok((kinds, any))
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

    /// Adds every out-going property edge of `src`, with its properties,
    /// cutting batches as they fill.
    fn property_edges_of(
        &mut self,
        snap: &Snapshot,
        src: VertexId,
        ids: IdType,
        schema: &SchemaRef,
        kinds: &KeyKinds,
        out: &mut Vec<RecordBatch>,
    ) {
        for e in snap.edge_ends_of(src, EdgeDirection::Out, None) {
            let label = snap.label_name(e.label);
            self.push(Some(e.id), src, e.other, label.as_deref(), None);
            for (k, value) in snap.edge_properties(e.id).unwrap_or_default() {
                self.cols.set(&k, self.src.len() - 1, value);
            }
            self.flush_if_full(snap, ids, schema, kinds, out);
        }
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

/// An error in table `t` (and `column`), nothing loaded.
pub(crate) fn err(t: &Table, column: Option<&str>, what: impl Into<String>) -> LoadError {
    LoadError::Table {
        file: PathBuf::from(&t.name),
        column: column.map(str::to_owned),
        what: what.into(),
        loaded: Loaded::default(),
    }
}

/// Every row's id from column `name`: integers (no negative one) or
/// strings, never null.
fn id_column(t: &Table, name: &str) -> Result<IdColumn, LoadError> {
    let Ok(i) = t.schema.index_of(name) else {
        return Err(err(t, Some(name), "missing column"));
    };
    let rows: usize = t.batches.iter().map(RecordBatch::num_rows).sum();
    let mut ints = Vec::new();
    let mut keys = Vec::new();
    let mut at = 0;
    for b in &t.batches {
        let a = b.column(i);
        if a.null_count() > 0 {
            let row = at + first_null(a.as_ref());
            return Err(err(t, Some(name), format!("null in row {row}")));
        }
        match a.data_type() {
            DataType::Int64 | DataType::Int32 | DataType::UInt32 | DataType::UInt64 => {
                ints.reserve(rows);
                for (row, x) in arrow_cast_u64(a.as_ref()).into_iter().enumerate() {
                    let x = x.ok_or_else(|| {
                        err(t, Some(name), format!("row {}: a negative id", at + row))
                    })?;
                    ints.push(x);
                }
            }
            DataType::Utf8 => keys.extend(a.as_string::<i32>().iter().flatten().map(str::to_owned)),
            DataType::LargeUtf8 => {
                keys.extend(a.as_string::<i64>().iter().flatten().map(str::to_owned))
            }
            DataType::Utf8View => {
                keys.extend(a.as_string_view().iter().flatten().map(str::to_owned))
            }
            other => {
                return Err(err(
                    t,
                    Some(name),
                    format!("type {other}, expected integers or strings"),
                ))
            }
        }
        at += a.len();
    }
    match (ints.is_empty(), keys.is_empty()) {
        (_, true) => Ok(IdColumn::Ints(ints)),
        (true, false) => Ok(IdColumn::Keys(keys)),
        (false, false) => Err(err(
            t,
            Some(name),
            "integers in some batches, strings in others",
        )),
    }
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

/// Whether column `i` is null in every row.
fn all_null(t: &Table, i: usize) -> bool {
    t.batches
        .iter()
        .all(|b| b.column(i).null_count() == b.num_rows())
}

/// Every row's value of an optional string column; `None` when the
/// column is absent or null in every row (nothing to read per row).
fn strings(t: &Table, name: &str) -> Result<Option<Vec<Option<String>>>, LoadError> {
    let Ok(i) = t.schema.index_of(name) else {
        return Ok(None);
    };
    if all_null(t, i) {
        return Ok(None);
    }
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
                        format!("row {at}: a {}, expected a string", other.type_name()),
                    ))
                }
            }
        }
    }
    Ok(Some(out))
}

/// Every row's properties from the columns not named in `own` (empty
/// when there is no such column).
fn properties(t: &Table, own: &[&str]) -> Result<RowProperties, LoadError> {
    let any = t
        .schema
        .fields()
        .iter()
        .any(|f| !own.contains(&f.name().as_str()));
    if !any {
        return Ok(Vec::new());
    }
    row_properties(&t.schema, &t.batches, own).map_err(|(column, what)| err(t, Some(&column), what))
}

/// Row `row`'s properties, taken out of `props` (empty if it has none).
fn take(props: &mut RowProperties, row: usize) -> Vec<(Cow<'static, str>, Value)> {
    let props = props.get_mut(row).map(std::mem::take).unwrap_or_default();
    props.into_iter().map(|(k, v)| (Cow::Owned(k), v)).collect()
}

/// The optional `_id` column of an edge table: per row an id or null
/// (`None`: absent or all null).
fn edge_ids(t: &Table) -> Result<Option<Vec<Option<u64>>>, LoadError> {
    let Ok(i) = t.schema.index_of(ID) else {
        return Ok(None);
    };
    if all_null(t, i) {
        return Ok(None);
    }
    let mut ids = Vec::new();
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
        for (row, x) in arrow_cast_u64(a.as_ref()).into_iter().enumerate() {
            let at = ids.len();
            if a.is_null(row) {
                ids.push(None);
            } else {
                let x = x.ok_or_else(|| err(t, Some(ID), format!("row {at}: a negative id")))?;
                ids.push(Some(x));
            }
        }
    }
    Ok(Some(ids))
}

/// The optional `_weight` column: per row the weight, 1.0 where null or
/// absent.
fn weights(t: &Table, rows: usize) -> Result<Vec<f64>, LoadError> {
    let Ok(i) = t.schema.index_of(WEIGHT) else {
        return Ok(vec![1.0; rows]);
    };
    let mut out = Vec::with_capacity(rows);
    for b in &t.batches {
        let a = b.column(i);
        if a.data_type() != &DataType::Float64 {
            return Err(err(
                t,
                Some(WEIGHT),
                format!("type {}, expected Float64", a.data_type()),
            ));
        }
        let p = a.as_primitive::<Float64Type>();
        out.extend((0..p.len()).map(|r| if p.is_null(r) { 1.0 } else { p.value(r) }));
    }
    Ok(out)
}

/// The vertex table's `_vid` column as row numbers by `_vid`, if it has
/// one: what edge ends name in tables of internal ids.
fn vid_rows(t: &Table) -> Result<Option<HashMap<u64, usize>>, LoadError> {
    if t.schema.index_of(VID).is_err() {
        return Ok(None);
    }
    let IdColumn::Ints(vids) = id_column(t, VID)? else {
        return Err(err(t, Some(VID), "strings, expected integers"));
    };
    let mut rows = HashMap::with_capacity(vids.len());
    for (row, &vid) in vids.iter().enumerate() {
        if let Some(first) = rows.insert(vid, row) {
            return Err(err(
                t,
                Some(VID),
                format!("row {row}: _vid {vid} is also in row {first}"),
            ));
        }
    }
    Ok(Some(rows))
}

/// Edge ends given as `_vid`s turned into the ids of the vertex rows
/// they name.
fn ends_by_vid(
    t: &Table,
    name: &str,
    ends: IdColumn,
    rows: &HashMap<u64, usize>,
    ids: &IdColumn,
) -> Result<IdColumn, LoadError> {
    let IdColumn::Ints(vids) = ends else {
        return Err(err(
            t,
            Some(name),
            "strings, but the vertex table names vertices by _vid",
        ));
    };
    let mut at = Vec::with_capacity(vids.len());
    for (row, vid) in vids.iter().enumerate() {
        match rows.get(vid) {
            Some(&r) => at.push(r),
            None => {
                return Err(err(
                    t,
                    Some(name),
                    format!("row {row}: {vid} is no _vid of the vertex table"),
                ))
            }
        }
    }
    Ok(match ids {
        IdColumn::Ints(v) => IdColumn::Ints(at.iter().map(|&r| v[r]).collect()),
        IdColumn::Keys(v) => IdColumn::Keys(at.iter().map(|&r| v[r].clone()).collect()),
    })
}

/// Loads `vertices` then `edges` into `g` (either may be absent).
///
/// Every table is read and checked first (required columns present and of
/// a usable type, no null id or end, every value readable), so a bad
/// table changes nothing. Then vertices go in as the loaders do: a new
/// vertex with its label and properties, a vertex already there gets the
/// row's properties set; rows with neither a label nor a property go in
/// as one batch. Edges with a `_label` are property edges (with the row's
/// `_id`, or a new id where it is null or absent); edges with a null or
/// absent `_label` go into the weighted structure (`_weight`, or 1.0) as
/// one batch (a bulk load into a store with no edge yet). `batch` rows
/// per transaction; a failure the store reports (an edge id in use, a
/// missing end) keeps the batches before it and says how many
/// (`LoadError::loaded`).
///
/// When the vertex table has `_vid` (tables of internal ids,
/// [`VertexIds::Internal`]), edge ends are `_vid`s and name the vertex
/// rows that carry them; vertices keep their `_id`s.
pub fn load(
    g: &Graph,
    vertices: Option<&Table>,
    edges: Option<&Table>,
    batch: usize,
) -> Result<Loaded, LoadError> {
    struct Checked {
        ids: IdColumn,
        labels: Option<Vec<Option<String>>>,
        props: RowProperties,
    }
    let vs = match vertices {
        Some(t) => Some(Checked {
            ids: id_column(t, ID)?,
            labels: strings(t, LABEL)?,
            props: properties(t, &[VID, ID, LABEL])?,
        }),
        None => None,
    };
    let vids = match vertices {
        Some(t) => vid_rows(t)?,
        None => None,
    };
    struct CheckedEdges {
        src: IdColumn,
        dst: IdColumn,
        ids: Option<Vec<Option<u64>>>,
        labels: Option<Vec<Option<String>>>,
        weights: Vec<f64>,
        props: RowProperties,
    }
    let es = match edges {
        Some(t) => {
            let mut src = id_column(t, SRC)?;
            let mut dst = id_column(t, DST)?;
            if let (Some(rows), Some(vs)) = (&vids, &vs) {
                src = ends_by_vid(t, SRC, src, rows, &vs.ids)?;
                dst = ends_by_vid(t, DST, dst, rows, &vs.ids)?;
            }
            Some(CheckedEdges {
                ids: edge_ids(t)?,
                labels: strings(t, LABEL)?,
                weights: weights(t, src.len())?,
                props: properties(t, &[ID, SRC, DST, LABEL, WEIGHT])?,
                src,
                dst,
            })
        }
        None => None,
    };
    let name = |t: Option<&Table>| PathBuf::from(t.map_or("", |t| t.name.as_str()));
    let opts = LoadOptions {
        batch: batch.max(1),
    };
    let mut b = Batcher::new(g, &name(vertices), opts, Loaded::default());
    if let Some(mut vs) = vs {
        let mut plain = Vec::new();
        for row in 0..vs.ids.len() {
            let line = row as u64 + 1;
            let label = vs.labels.as_ref().and_then(|l| l[row].clone());
            let props = take(&mut vs.props, row);
            let labelled = label
                .as_deref()
                .is_some_and(|l| l != stratagraph::DEFAULT_LABEL);
            if props.is_empty() && !labelled {
                plain.push(b.resolve(line, ID, &vs.ids.raw(row))?);
                continue;
            }
            let record = VertexRecord {
                id: vs.ids.raw(row),
                id_field: ID.into(),
                label: label.map(Cow::Owned),
                props,
            };
            b.vertex(line, &record)?;
        }
        b.commit(0)?;
        b.plain_vertices(&plain)?;
    }
    if let Some(mut es) = es {
        b.set_file(&name(edges));
        let mut weighted: Vec<(VertexId, VertexId, f64)> = Vec::new();
        let mut first_weighted = None;
        for row in 0..es.src.len() {
            let line = row as u64 + 1;
            match es.labels.as_ref().and_then(|l| l[row].clone()) {
                Some(label) => {
                    let record = EdgeRecord {
                        id: es.ids.as_ref().and_then(|ids| ids[row]),
                        src: es.src.raw(row),
                        dst: es.dst.raw(row),
                        src_field: SRC.into(),
                        dst_field: DST.into(),
                        label: label.into(),
                        props: take(&mut es.props, row),
                    };
                    b.edge(line, &record)?;
                }
                None => {
                    first_weighted.get_or_insert(line);
                    let s = b.resolve(line, SRC, &es.src.raw(row))?;
                    let d = b.resolve(line, DST, &es.dst.raw(row))?;
                    weighted.push((s, d, es.weights[row]));
                }
            }
        }
        b.commit(0)?;
        b.weighted(&weighted, first_weighted.unwrap_or(0))?;
    }
    Ok(b.loaded)
}

/// What to call a table in errors when it has no file.
pub fn table_name(what: &str) -> String {
    format!("<{what} table>")
}
