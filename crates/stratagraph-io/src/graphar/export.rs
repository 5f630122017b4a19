//! Writing a snapshot as an export directory (the layout: `super`).

use crate::columns::{KeyKinds, Rows};
use arrow_array::builder::{Float64Builder, Int64Builder, StringBuilder, UInt64Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding};
use parquet::file::properties::WriterProperties;
use parquet::schema::types::ColumnPath;
use serde_json::json;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use stratagraph::{EdgeDirection, Snapshot, VertexId, DEFAULT_LABEL};

use super::{
    edge_chunk, file_name, vertex_chunk, Chunks, DST_INDEX, ID, META_FILE, META_FORMAT,
    META_VERSION, RESERVED, SRC_INDEX, VERTEX_INDEX, WEIGHT, WEIGHTED,
};

/// What an export wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Exported {
    /// The snapshot's timestamp.
    pub timestamp: u64,
    pub vertices: u64,
    /// Property edges.
    pub edges: u64,
    /// Edges of the weighted structure (each undirected edge once).
    pub weighted_edges: u64,
    /// Parquet files written.
    pub files: u64,
    /// Bytes of Parquet written.
    pub bytes: u64,
}

/// Why an export failed. Nothing is left at the destination.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The destination exists and is not an empty directory.
    #[error("{0}: the destination exists and is not an empty directory")]
    NotEmpty(PathBuf),
    /// A property key is one of the names the layout's own columns use.
    #[error(
        "{what} label {label:?} has a property named {key:?}, a column name the export reserves"
    )]
    ReservedKey {
        /// `vertex` or `edge`.
        what: &'static str,
        label: String,
        key: String,
    },
    /// A file could not be written.
    #[error("{file}: {message}")]
    Io { file: PathBuf, message: String },
}

fn io_err(file: &Path, e: impl std::fmt::Display) -> ExportError {
    ExportError::Io {
        file: file.to_owned(),
        message: e.to_string(),
    }
}

/// A JSON string is a YAML double-quoted scalar.
fn yaml_str(s: &str) -> String {
    serde_json::Value::String(s.to_owned()).to_string()
}

/// GraphAr's name for a column's data type (names GraphAr lacks are ours).
fn data_type_name(ty: &DataType, field: &Field) -> String {
    if field
        .metadata()
        .get(crate::columns::ENCODING_KEY)
        .map(String::as_str)
        == Some(crate::columns::ENCODED)
    {
        return "value".into();
    }
    match ty {
        DataType::Boolean => "bool".into(),
        DataType::Int8 => "int8".into(),
        DataType::Int16 => "int16".into(),
        DataType::Int32 => "int32".into(),
        DataType::Int64 => "int64".into(),
        DataType::UInt64 => "uint64".into(),
        DataType::Float32 => "float".into(),
        DataType::Float64 => "double".into(),
        DataType::Utf8 => "string".into(),
        DataType::Binary => "binary".into(),
        DataType::FixedSizeBinary(16) => "uuid".into(),
        DataType::Timestamp(..) => "timestamp".into(),
        DataType::List(f) => format!("list<{}>", data_type_name(f.data_type(), f)),
        other => other.to_string(),
    }
}

/// One vertex label's share of the export.
struct VertexType {
    label: String,
    name: String,
    /// Internal ids, ascending: a vertex's index is its place here.
    members: Vec<u32>,
    kinds: KeyKinds,
}

/// One (source label, edge label or the weighted structure, destination
/// label)'s share of the export.
struct EdgeType {
    src: usize,
    dst: usize,
    /// `None`: the weighted structure.
    label: Option<String>,
    name: String,
    kinds: KeyKinds,
    count: u64,
    /// Chunks written per source part.
    chunks: Vec<u64>,
    rows: EdgeRows,
}

#[derive(Default)]
struct EdgeRows {
    part: u64,
    src: Vec<i64>,
    dst: Vec<i64>,
    ids: Vec<u64>,
    weights: Vec<f64>,
    props: Option<Rows>,
}

/// Writes `snap` under `dir` (created; it must not exist or be empty).
/// Writes into a sibling directory first and renames it into place, so a
/// failed export leaves nothing behind.
pub fn export(snap: &Snapshot, dir: &Path, chunks: Chunks) -> Result<Exported, ExportError> {
    export_at(snap, dir, chunks, snap.timestamp())
}

/// `export`, recording `timestamp` as the state's instead of the
/// snapshot's own: for a snapshot of a copy rebuilt to the state of
/// another store at that timestamp (`crate::as_of`).
pub fn export_at(
    snap: &Snapshot,
    dir: &Path,
    chunks: Chunks,
    timestamp: u64,
) -> Result<Exported, ExportError> {
    if dir.exists() {
        let empty = std::fs::read_dir(dir)
            .map_err(|e| io_err(dir, e))?
            .next()
            .is_none();
        if !empty {
            return Err(ExportError::NotEmpty(dir.to_owned()));
        }
    }
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "export".into());
    let tmp = dir.with_file_name(format!(".{name}.export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(|e| io_err(&tmp, e))?;
    let result = Exporter::new(snap, &tmp, chunks).and_then(|mut x| {
        x.done.timestamp = timestamp;
        x.run()
    });
    match result {
        Ok(done) => {
            if dir.exists() {
                std::fs::remove_dir(dir).map_err(|e| io_err(dir, e))?;
            }
            std::fs::rename(&tmp, dir).map_err(|e| io_err(dir, e))?;
            Ok(done)
        }
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            Err(e)
        }
    }
}

struct Exporter<'s> {
    snap: &'s Snapshot,
    chunks: Chunks,
    dir: PathBuf,
    vtypes: Vec<VertexType>,
    /// Per internal id: its vertex type and index in it.
    place: Vec<(u32, u32)>,
    etypes: Vec<EdgeType>,
    etype_of: HashMap<(usize, Option<u32>, usize), usize>,
    /// The `_id` column's type: Utf8 keys in a store of string ids, else
    /// Int64, or UInt64 if some id exceeds `i64::MAX`.
    id_type: DataType,
    writer: Writer,
    done: Exported,
}

impl<'s> Exporter<'s> {
    fn new(snap: &'s Snapshot, dir: &Path, chunks: Chunks) -> Result<Exporter<'s>, ExportError> {
        if chunks.vertices == 0 || chunks.edges == 0 {
            return Err(io_err(dir, "chunk sizes must be positive"));
        }
        let bound = snap.id_bound() as usize;
        let mut place = vec![(u32::MAX, 0u32); bound];
        let mut by_label: BTreeMap<u32, usize> = BTreeMap::new();
        let mut vtypes: Vec<VertexType> = Vec::new();
        let mut used = HashSet::new();
        for v in snap.vertices() {
            let Some(l) = snap.label_number_of(v) else {
                continue;
            };
            let t = *by_label.entry(l).or_insert_with(|| {
                let label = snap
                    .label_name(l)
                    .map_or(DEFAULT_LABEL.into(), |s| s.to_string());
                vtypes.push(VertexType {
                    name: unique(&mut used, file_name(&label)),
                    label,
                    members: Vec::new(),
                    kinds: KeyKinds::default(),
                });
                vtypes.len() - 1
            });
            let members = &mut vtypes[t].members;
            place[v as usize] = (t as u32, members.len() as u32);
            members.push(v);
        }
        let id_type = if snap.has_string_ids() {
            DataType::Utf8
        } else if snap
            .vertices()
            .all(|v| snap.external_id_unchecked(v) <= i64::MAX as u64)
        {
            DataType::Int64
        } else {
            DataType::UInt64
        };
        let mut x = Exporter {
            snap,
            chunks,
            dir: dir.to_owned(),
            vtypes,
            place,
            etypes: Vec::new(),
            etype_of: HashMap::new(),
            id_type,
            writer: Writer::new(),
            done: Exported {
                timestamp: snap.timestamp(),
                ..Exported::default()
            },
        };
        x.vertex_kinds()?;
        x.edge_types()?;
        Ok(x)
    }

    fn external(&self, v: u32) -> VertexId {
        self.snap.external_id_unchecked(v)
    }

    /// Each vertex label's property keys and the kind of each column.
    fn vertex_kinds(&mut self) -> Result<(), ExportError> {
        for t in &mut self.vtypes {
            for &v in &t.members {
                let props = self
                    .snap
                    .properties(self.snap.external_id_unchecked(v))
                    .unwrap_or_default();
                for (k, value) in props {
                    t.kinds.add(&k, &value);
                }
            }
            if let Some(k) = t.kinds.keys().find(|k| RESERVED.contains(k)) {
                return Err(ExportError::ReservedKey {
                    what: "vertex",
                    label: t.label.clone(),
                    key: k.to_string(),
                });
            }
        }
        Ok(())
    }

    /// Internal vertex `v`'s outgoing property edges (none read when it
    /// has none: a count is a binary search, the list a look-up by id).
    fn property_edges_of(&self, v: u32) -> Vec<stratagraph::EdgeEnd> {
        if self.snap.edge_count_of(v, EdgeDirection::Out, None) == 0 {
            return Vec::new();
        }
        self.snap
            .edge_ends_of(self.external(v), EdgeDirection::Out, None)
    }

    fn etype(&mut self, src: u32, label: Option<u32>, dst: u32) -> usize {
        let (s, d) = (
            self.place[src as usize].0 as usize,
            self.place[dst as usize].0 as usize,
        );
        if let Some(&t) = self.etype_of.get(&(s, label, d)) {
            return t;
        }
        let label_name = label.map(|l| {
            self.snap
                .label_name(l)
                .map_or(String::new(), |n| n.to_string())
        });
        let edge_name = label_name.clone().unwrap_or_else(|| WEIGHTED.into());
        let used: HashSet<String> = self.etypes.iter().map(|t| t.name.clone()).collect();
        let mut used = used;
        let name = unique(
            &mut used,
            format!(
                "{}_{}_{}",
                self.vtypes[s].name,
                file_name(&edge_name),
                self.vtypes[d].name
            ),
        );
        self.etypes.push(EdgeType {
            src: s,
            dst: d,
            label: label_name,
            name,
            kinds: KeyKinds::default(),
            count: 0,
            chunks: Vec::new(),
            rows: EdgeRows::default(),
        });
        self.etype_of.insert((s, label, d), self.etypes.len() - 1);
        self.etypes.len() - 1
    }

    /// Every edge type, and the property kinds of each.
    fn edge_types(&mut self) -> Result<(), ExportError> {
        let snap = self.snap;
        for v in snap.vertices() {
            for e in self.property_edges_of(v) {
                let Some(o) = snap.internal_id(e.other) else {
                    continue;
                };
                let t = self.etype(v, Some(e.label), o);
                for (k, value) in snap.edge_properties(e.id).unwrap_or_default() {
                    self.etypes[t].kinds.add(&k, &value);
                }
            }
        }
        for t in &self.etypes {
            if let Some(k) = t.kinds.keys().find(|k| RESERVED.contains(k)) {
                return Err(ExportError::ReservedKey {
                    what: "edge",
                    label: t.label.clone().unwrap_or_default(),
                    key: k.to_string(),
                });
            }
        }
        Ok(())
    }

    fn run(&mut self) -> Result<Exported, ExportError> {
        for t in 0..self.vtypes.len() {
            self.write_vertices(t)?;
        }
        self.write_edges()?;
        let (files, bytes) = self.writer.finish()?;
        self.done.files = files;
        self.done.bytes = bytes;
        self.write_meta()?;
        Ok(self.done)
    }

    fn write_vertices(&mut self, t: usize) -> Result<(), ExportError> {
        let snap = self.snap;
        let id_type = self.id_type.clone();
        let vt = &self.vtypes[t];
        let mut fields = vec![
            Field::new(VERTEX_INDEX, DataType::Int64, false),
            Field::new(ID, id_type.clone(), false),
        ];
        fields.extend(vt.kinds.fields());
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        let base = vertex_chunk(&self.dir, &vt.name, 0);
        let mut batches = Vec::new();
        for (c, chunk) in vt.members.chunks(self.chunks.vertices as usize).enumerate() {
            let start = c as u64 * self.chunks.vertices;
            let n = chunk.len();
            let mut cols = vt.kinds.rows(n);
            for (row, &v) in chunk.iter().enumerate() {
                for (k, value) in snap.properties(self.external(v)).unwrap_or_default() {
                    cols.set(&k, row, value);
                }
            }
            let index: Vec<i64> = (0..n as i64).map(|i| start as i64 + i).collect();
            let ids = self.id_column(chunk, &id_type);
            let mut arrays: Vec<ArrayRef> =
                vec![Arc::new(arrow_array::Int64Array::from(index)), ids];
            arrays.extend(cols.build(&vt.kinds));
            let batch =
                RecordBatch::try_new(schema.clone(), arrays).map_err(|e| io_err(&base, e))?;
            let file = vertex_chunk(&self.dir, &vt.name, c as u64);
            batches.push((file, batch));
        }
        self.done.vertices += vt.members.len() as u64;
        for (file, batch) in batches {
            self.writer.write(file, batch)?;
        }
        let yml = vertex_yml(&self.vtypes[t], &schema, self.chunks.vertices);
        let path = self.dir.join(format!("{}.vertex.yml", self.vtypes[t].name));
        std::fs::write(&path, yml).map_err(|e| io_err(&path, e))
    }

    fn id_column(&self, chunk: &[u32], ty: &DataType) -> ArrayRef {
        let snap = self.snap;
        match ty {
            DataType::Utf8 => {
                let mut b = StringBuilder::with_capacity(chunk.len(), chunk.len() * 8);
                for &v in chunk {
                    let id = self.external(v);
                    match snap.key_of(id) {
                        Some(k) => b.append_value(&*k),
                        None => b.append_value(id.to_string()),
                    }
                }
                Arc::new(b.finish())
            }
            DataType::Int64 => {
                let mut b = Int64Builder::with_capacity(chunk.len());
                for &v in chunk {
                    b.append_value(self.external(v) as i64);
                }
                Arc::new(b.finish())
            }
            _ => {
                let mut b = UInt64Builder::with_capacity(chunk.len());
                for &v in chunk {
                    b.append_value(self.external(v));
                }
                Arc::new(b.finish())
            }
        }
    }
}

/// Parquet files written on a thread of their own, so that encoding and
/// compressing one chunk overlaps gathering the next from the snapshot
/// (at k20 the two take about as long). At most two chunks wait.
struct Writer {
    send: Option<std::sync::mpsc::SyncSender<(PathBuf, RecordBatch)>>,
    thread: Option<std::thread::JoinHandle<Result<(u64, u64), ExportError>>>,
}

impl Writer {
    fn new() -> Writer {
        let (send, recv) = std::sync::mpsc::sync_channel::<(PathBuf, RecordBatch)>(2);
        let thread = std::thread::spawn(move || {
            let (mut files, mut bytes) = (0, 0);
            // Returning on the first error drops `recv`: the next `write`
            // fails and collects the error from here.
            for (file, batch) in recv {
                bytes += write_parquet(&file, &batch)?;
                files += 1;
            }
            Ok((files, bytes))
        });
        Writer {
            send: Some(send),
            thread: Some(thread),
        }
    }

    /// Queues `batch` to be written as `file`.
    fn write(&mut self, file: PathBuf, batch: RecordBatch) -> Result<(), ExportError> {
        let sent = self.send.as_ref().map(|s| s.send((file, batch)));
        match sent {
            Some(Ok(())) => Ok(()),
            // The thread stopped: its error says why.
            _ => self.finish().map(drop),
        }
    }

    /// Waits for every queued file; (files, bytes) written.
    fn finish(&mut self) -> Result<(u64, u64), ExportError> {
        self.send = None;
        match self.thread.take().map(std::thread::JoinHandle::join) {
            Some(Ok(r)) => r,
            Some(Err(_)) => Err(ExportError::Io {
                file: PathBuf::new(),
                message: "the Parquet writer thread panicked".into(),
            }),
            None => Err(ExportError::Io {
                file: PathBuf::new(),
                message: "the Parquet writer has stopped".into(),
            }),
        }
    }
}

impl Drop for Writer {
    /// An export that failed part way still waits for its writer, so no
    /// file is written after the export's directory is removed.
    fn drop(&mut self) {
        self.send = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Writes `batch` as the Parquet file `file`; returns its size in bytes.
fn write_parquet(file: &Path, batch: &RecordBatch) -> Result<u64, ExportError> {
    write_parquet_batches(file, &batch.schema(), std::slice::from_ref(batch))
}

/// Writes `batches` (of `schema`) as one Parquet file `file`; returns its
/// size in bytes.
pub(crate) fn write_parquet_batches(
    file: &Path,
    schema: &SchemaRef,
    batches: &[RecordBatch],
) -> Result<u64, ExportError> {
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
    }
    let f = File::create(file).map_err(|e| io_err(file, e))?;
    // Index and id columns hold (almost) all distinct values, so a
    // dictionary only costs time before Parquet gives it up; the ascending
    // ones (a vertex's index, an edge's source) shrink to almost nothing
    // as deltas.
    let mut props = WriterProperties::builder().set_compression(Compression::SNAPPY);
    for col in [VERTEX_INDEX, SRC_INDEX, DST_INDEX, ID] {
        props = props.set_column_dictionary_enabled(ColumnPath::from(col), false);
    }
    for col in [VERTEX_INDEX, SRC_INDEX] {
        props = props.set_column_encoding(ColumnPath::from(col), Encoding::DELTA_BINARY_PACKED);
    }
    let props = props.build();
    let mut w =
        ArrowWriter::try_new(f, schema.clone(), Some(props)).map_err(|e| io_err(file, e))?;
    for batch in batches {
        w.write(batch).map_err(|e| io_err(file, e))?;
    }
    w.close().map_err(|e| io_err(file, e))?;
    Ok(std::fs::metadata(file).map_err(|e| io_err(file, e))?.len())
}

impl Exporter<'_> {
    /// Streams every edge into its type's rows, writing a chunk whenever a
    /// type's source part changes or its chunk is full: memory stays at
    /// one chunk per type.
    fn write_edges(&mut self) -> Result<(), ExportError> {
        let snap = self.snap;
        let directed = snap.is_directed();
        for v in snap.vertices() {
            let (_, vi) = self.place[v as usize];
            for e in self.property_edges_of(v) {
                let Some(o) = snap.internal_id(e.other) else {
                    continue;
                };
                let t = self.etype_of[&(
                    self.place[v as usize].0 as usize,
                    Some(e.label),
                    self.place[o as usize].0 as usize,
                )];
                self.start_row(t, vi)?;
                let et = &mut self.etypes[t];
                let rows = &mut et.rows;
                rows.src.push(i64::from(vi));
                rows.dst.push(i64::from(self.place[o as usize].1));
                rows.ids.push(e.id);
                let at = rows.src.len();
                let cols = rows.props.get_or_insert_with(|| et.kinds.rows(0));
                cols.grow(at);
                for (k, value) in snap.edge_properties(e.id).unwrap_or_default() {
                    cols.set(&k, at - 1, value);
                }
                self.end_row(t)?;
            }
            // One vertex's edges mostly lead to one label: the edge type
            // of the last destination label is kept at hand.
            let mut last: Option<(u32, usize)> = None;
            for (o, w) in snap.out_weighted_of(v) {
                if !directed && o < v {
                    continue;
                }
                let dst_type = self.place[o as usize].0;
                let t = match last {
                    Some((d, t)) if d == dst_type => t,
                    _ => {
                        let t = self.etype(v, None, o);
                        last = Some((dst_type, t));
                        t
                    }
                };
                self.start_row(t, vi)?;
                let rows = &mut self.etypes[t].rows;
                rows.src.push(i64::from(vi));
                rows.dst.push(i64::from(self.place[o as usize].1));
                rows.weights.push(w);
                self.end_row(t)?;
            }
        }
        for t in 0..self.etypes.len() {
            self.flush_rows(t)?;
            self.write_edge_yml(t)?;
        }
        Ok(())
    }

    /// Before a row of source index `vi` joins type `t`: a new source part
    /// writes out the rows of the last.
    fn start_row(&mut self, t: usize, vi: u32) -> Result<(), ExportError> {
        let part = u64::from(vi) / self.chunks.vertices;
        if part != self.etypes[t].rows.part {
            self.flush_rows(t)?;
            self.etypes[t].rows.part = part;
        }
        Ok(())
    }

    fn end_row(&mut self, t: usize) -> Result<(), ExportError> {
        if self.etypes[t].rows.src.len() as u64 >= self.chunks.edges {
            self.flush_rows(t)?;
        }
        Ok(())
    }

    fn flush_rows(&mut self, t: usize) -> Result<(), ExportError> {
        let et = &mut self.etypes[t];
        let n = et.rows.src.len();
        if n == 0 {
            return Ok(());
        }
        let part = et.rows.part as usize;
        if et.chunks.len() <= part {
            et.chunks.resize(part + 1, 0);
        }
        let chunk = et.chunks[part];
        et.chunks[part] += 1;
        et.count += n as u64;
        let rows = std::mem::take(&mut et.rows);
        et.rows.part = rows.part;
        let adj_file = edge_chunk(&self.dir, &et.name, "adj_list", part as u64, chunk);
        let prop_file = edge_chunk(&self.dir, &et.name, "properties", part as u64, chunk);
        let adj_schema = Arc::new(Schema::new(vec![
            Field::new(SRC_INDEX, DataType::Int64, false),
            Field::new(DST_INDEX, DataType::Int64, false),
        ]));
        let adj = RecordBatch::try_new(
            adj_schema,
            vec![
                Arc::new(arrow_array::Int64Array::from(rows.src)),
                Arc::new(arrow_array::Int64Array::from(rows.dst)),
            ],
        )
        .map_err(|e| io_err(&adj_file, e))?;
        let (schema, props) = self.edge_property_batch(t, rows.ids, rows.weights, rows.props);
        let props = RecordBatch::try_new(schema, props).map_err(|e| io_err(&prop_file, e))?;
        self.writer.write(adj_file, adj)?;
        self.writer.write(prop_file, props)?;
        if self.etypes[t].label.is_some() {
            self.done.edges += n as u64;
        } else {
            self.done.weighted_edges += n as u64;
        }
        Ok(())
    }

    fn edge_schema(&self, t: usize) -> SchemaRef {
        let et = &self.etypes[t];
        let mut fields = Vec::new();
        if et.label.is_some() {
            fields.push(Field::new(ID, DataType::UInt64, false));
            fields.extend(et.kinds.fields());
        } else {
            fields.push(Field::new(WEIGHT, DataType::Float64, false));
        }
        Arc::new(Schema::new(fields))
    }

    fn edge_property_batch(
        &self,
        t: usize,
        ids: Vec<u64>,
        weights: Vec<f64>,
        props: Option<Rows>,
    ) -> (SchemaRef, Vec<ArrayRef>) {
        let et = &self.etypes[t];
        let schema = self.edge_schema(t);
        let mut arrays: Vec<ArrayRef> = Vec::new();
        if et.label.is_some() {
            let n = ids.len();
            arrays.push(Arc::new(arrow_array::UInt64Array::from(ids)));
            let mut cols = props.unwrap_or_else(|| et.kinds.rows(n));
            cols.grow(n);
            arrays.extend(cols.build(&et.kinds));
        } else {
            let mut b = Float64Builder::with_capacity(weights.len());
            b.append_slice(&weights);
            arrays.push(Arc::new(b.finish()));
        }
        (schema, arrays)
    }

    fn write_edge_yml(&self, t: usize) -> Result<(), ExportError> {
        let et = &self.etypes[t];
        let schema = self.edge_schema(t);
        let mut y = String::new();
        y.push_str(&format!(
            "src_type: {}\n",
            yaml_str(&self.vtypes[et.src].label)
        ));
        y.push_str(&format!(
            "edge_type: {}\n",
            yaml_str(et.label.as_deref().unwrap_or(WEIGHTED))
        ));
        y.push_str(&format!(
            "dst_type: {}\n",
            yaml_str(&self.vtypes[et.dst].label)
        ));
        let c = self.chunks;
        y.push_str(&format!("chunk_size: {}\n", c.edges));
        y.push_str(&format!("src_chunk_size: {}\n", c.vertices));
        y.push_str(&format!("dst_chunk_size: {}\n", c.vertices));
        y.push_str(&format!("directed: {}\n", self.snap.is_directed()));
        y.push_str(&format!(
            "prefix: {}\n",
            yaml_str(&format!("edge/{}/", et.name))
        ));
        y.push_str("adj_lists:\n  - ordered: true\n    aligned_by: src\n    file_type: parquet\n");
        y.push_str(&property_groups_yml(&schema, &[]));
        y.push_str("version: gar/v1\n");
        let path = self.dir.join(format!("{}.edge.yml", et.name));
        std::fs::write(&path, y).map_err(|e| io_err(&path, e))
    }

    fn write_meta(&mut self) -> Result<(), ExportError> {
        let snap = self.snap;
        let strings = self.snap.has_string_ids();
        let vertices: Vec<_> = self
            .vtypes
            .iter()
            .map(|t| {
                json!({
                    "label": t.label,
                    "name": t.name,
                    "count": t.members.len(),
                    "chunks": (t.members.len() as u64).div_ceil(self.chunks.vertices),
                })
            })
            .collect();
        let edges: Vec<_> = self
            .etypes
            .iter()
            .map(|t| {
                json!({
                    "kind": if t.label.is_some() { "property" } else { "weighted" },
                    "label": t.label,
                    "name": t.name,
                    "src": t.src,
                    "dst": t.dst,
                    "count": t.count,
                    "chunks": t.chunks,
                })
            })
            .collect();
        let meta = json!({
            "format": META_FORMAT,
            "version": META_VERSION,
            "timestamp": self.done.timestamp,
            "directed": snap.is_directed(),
            "string_ids": strings,
            "vertex_chunk_size": self.chunks.vertices,
            "edge_chunk_size": self.chunks.edges,
            "vertices": vertices,
            "edges": edges,
        });
        let path = self.dir.join(META_FILE);
        let text = serde_json::to_string_pretty(&meta).map_err(|e| io_err(&path, e))?;
        std::fs::write(&path, text + "\n").map_err(|e| io_err(&path, e))?;
        let mut g = String::from("name: graph\nprefix: ./\nvertices:\n");
        for t in &self.vtypes {
            g.push_str(&format!(
                "  - {}\n",
                yaml_str(&format!("{}.vertex.yml", t.name))
            ));
        }
        g.push_str("edges:\n");
        for t in &self.etypes {
            g.push_str(&format!(
                "  - {}\n",
                yaml_str(&format!("{}.edge.yml", t.name))
            ));
        }
        g.push_str("version: gar/v1\n");
        let path = self.dir.join("graph.graph.yml");
        std::fs::write(&path, g).map_err(|e| io_err(&path, e))
    }
}

fn unique(used: &mut HashSet<String>, name: String) -> String {
    let mut candidate = name.clone();
    let mut n = 2;
    while !used.insert(candidate.clone()) {
        candidate = format!("{name}_{n}");
        n += 1;
    }
    candidate
}

fn property_groups_yml(schema: &Schema, primary: &[&str]) -> String {
    let mut y = String::from(
        "property_groups:\n  - prefix: properties/\n    file_type: parquet\n    properties:\n",
    );
    for f in schema.fields() {
        y.push_str(&format!("      - name: {}\n", yaml_str(f.name())));
        y.push_str(&format!(
            "        data_type: {}\n",
            yaml_str(&data_type_name(f.data_type(), f))
        ));
        y.push_str(&format!(
            "        is_primary: {}\n",
            primary.contains(&f.name().as_str())
        ));
        y.push_str(&format!("        is_nullable: {}\n", f.is_nullable()));
    }
    y
}

fn vertex_yml(t: &VertexType, schema: &Schema, chunk: u64) -> String {
    let mut y = String::new();
    y.push_str(&format!("type: {}\n", yaml_str(&t.label)));
    y.push_str(&format!("chunk_size: {chunk}\n"));
    y.push_str(&format!(
        "prefix: {}\n",
        yaml_str(&format!("vertex/{}/", t.name))
    ));
    // The index column is implicit in GraphAr; list only what follows it.
    let fields: Vec<Field> = schema
        .fields()
        .iter()
        .filter(|f| f.name() != VERTEX_INDEX)
        .map(|f| f.as_ref().clone())
        .collect();
    y.push_str(&property_groups_yml(&Schema::new(fields), &[ID]));
    y.push_str("version: gar/v1\n");
    y
}
