//! A snapshot as a directory of Parquet files, and such a directory back
//! into a store.
//!
//! The layout follows Apache GraphAr (`gar/v1`), so GraphAr's readers,
//! Spark, DuckDB and anything else that reads Parquet can take it:
//!
//! ```text
//! DIR/graph.graph.yml                 the graph: its vertex and edge types
//! DIR/<type>.vertex.yml               one per vertex label
//! DIR/<src>_<label>_<dst>.edge.yml    one per (source label, edge label, destination label)
//! DIR/vertex/<type>/properties/chunk<k>
//! DIR/edge/<name>/ordered_by_source/adj_list/part<i>/chunk<j>
//! DIR/edge/<name>/ordered_by_source/properties/part<i>/chunk<j>
//! DIR/stratagraph.json                what GraphAr does not say (below)
//! ```
//!
//! A vertex chunk holds [`Chunks::vertices`] vertices of one label, in rows
//! `_graphArVertexIndex` (the vertex's index within its label), `_id` (the
//! vertex's id as the user gave it: an integer or, in a store of string
//! ids, its key) and one column per property key the label's vertices
//! use. An edge type's adjacency chunks hold `_graphArSrcIndex` and
//! `_graphArDstIndex` (indexes into the end labels' vertices), ordered by
//! source, part `i` holding the edges of source chunk `i`, at most
//! [`Chunks::edges`] per chunk; its property chunks line up with them row by
//! row: `_id` (the edge's id) and the edge's properties for property
//! edges, `_weight` for the weighted structure (which GraphAr has no word
//! for: its edge type is named [`WEIGHTED`]). Columns are typed as
//! [`crate::columns`] says.
//!
//! Where this departs from GraphAr (`docs/FORMAT.md` §7 lists it): no
//! offset chunks; property data types GraphAr does not name (`int8`,
//! `int16`, `binary`, `uuid`, `value` for engine-encoded columns) are
//! written under those names; `stratagraph.json` carries the snapshot's
//! timestamp, the store's kind and each type's label and counts, which an
//! import needs to give back the same graph.

use crate::columns::{ColumnReader, KeyKinds, Rows};
use crate::load::{LoadError, Loaded};
use arrow_array::builder::{Float64Builder, Int64Builder, StringBuilder, UInt64Builder};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use serde_json::json;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use stratagraph::{EdgeDirection, Graph, Snapshot, Value, VertexId, DEFAULT_LABEL};

/// How many rows a chunk file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Chunks {
    /// Vertices per vertex chunk, and source vertices per edge part.
    pub vertices: u64,
    /// Edges per edge chunk at most.
    pub edges: u64,
}

impl Default for Chunks {
    /// GraphAr's defaults: 2^18 vertices, 2^22 edges.
    fn default() -> Self {
        Chunks {
            vertices: 1 << 18,
            edges: 1 << 22,
        }
    }
}
/// The GraphAr edge type of the weighted structure's edges.
pub const WEIGHTED: &str = "_weighted";
/// The metadata file's name.
pub const META_FILE: &str = "stratagraph.json";
/// The metadata file's format name and version.
const META_FORMAT: &str = "stratagraph-graphar";
const META_VERSION: u64 = 1;

const VERTEX_INDEX: &str = "_graphArVertexIndex";
const SRC_INDEX: &str = "_graphArSrcIndex";
const DST_INDEX: &str = "_graphArDstIndex";
const ID: &str = "_id";
const WEIGHT: &str = "_weight";
/// Columns an export writes itself; a property key of the same name is
/// refused rather than silently shadowed.
const RESERVED: [&str; 5] = [VERTEX_INDEX, SRC_INDEX, DST_INDEX, ID, WEIGHT];

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

/// A name as a file name: ASCII letters, digits, `-` and `_` as they are,
/// every other byte as `%XX` (so no name can climb out of the directory
/// or collide with another by case of spelling).
fn file_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || b == b'-' || b == b'_' {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
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
    let result = Exporter::new(snap, &tmp, chunks).and_then(|mut x| x.run());
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
        let mut x = Exporter {
            snap,
            chunks,
            dir: dir.to_owned(),
            vtypes,
            place,
            etypes: Vec::new(),
            etype_of: HashMap::new(),
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
            for e in snap.edge_ends_of(self.external(v), EdgeDirection::Out, None) {
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
        self.write_meta()?;
        Ok(self.done)
    }

    fn string_ids(&self) -> bool {
        self.snap.has_string_ids()
    }

    /// Whether every vertex id fits an Int64 column (else UInt64).
    fn ids_fit_i64(&self) -> bool {
        self.vtypes
            .iter()
            .flat_map(|t| &t.members)
            .all(|&v| self.external(v) <= i64::MAX as u64)
    }

    fn write_vertices(&mut self, t: usize) -> Result<(), ExportError> {
        let snap = self.snap;
        let strings = self.string_ids();
        let id_type = if strings {
            DataType::Utf8
        } else if self.ids_fit_i64() {
            DataType::Int64
        } else {
            DataType::UInt64
        };
        let vt = &self.vtypes[t];
        let mut fields = vec![
            Field::new(VERTEX_INDEX, DataType::Int64, false),
            Field::new(ID, id_type.clone(), false),
        ];
        fields.extend(vt.kinds.fields());
        let schema: SchemaRef = Arc::new(Schema::new(fields));
        let base = self.dir.join("vertex").join(&vt.name).join("properties");
        let mut bytes = Vec::new();
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
            bytes.push(write_parquet(&base.join(format!("chunk{c}")), &batch)?);
        }
        self.done.vertices += vt.members.len() as u64;
        for b in bytes {
            self.wrote(b);
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

/// Writes `batch` as the Parquet file `file`; returns its size in bytes.
fn write_parquet(file: &Path, batch: &RecordBatch) -> Result<u64, ExportError> {
    if let Some(parent) = file.parent() {
        std::fs::create_dir_all(parent).map_err(|e| io_err(parent, e))?;
    }
    let f = File::create(file).map_err(|e| io_err(file, e))?;
    let props = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .build();
    let mut w =
        ArrowWriter::try_new(f, batch.schema(), Some(props)).map_err(|e| io_err(file, e))?;
    w.write(batch).map_err(|e| io_err(file, e))?;
    w.close().map_err(|e| io_err(file, e))?;
    Ok(std::fs::metadata(file).map_err(|e| io_err(file, e))?.len())
}

impl Exporter<'_> {
    fn wrote(&mut self, bytes: u64) {
        self.done.files += 1;
        self.done.bytes += bytes;
    }

    /// Streams every edge into its type's rows, writing a chunk whenever a
    /// type's source part changes or its chunk is full: memory stays at
    /// one chunk per type.
    fn write_edges(&mut self) -> Result<(), ExportError> {
        let snap = self.snap;
        let directed = snap.is_directed();
        for v in snap.vertices() {
            let (_, vi) = self.place[v as usize];
            for e in snap.edge_ends_of(self.external(v), EdgeDirection::Out, None) {
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
            let mut weighted = Vec::new();
            for (o, w) in snap.out_weighted_of(v) {
                if directed || o >= v {
                    weighted.push((o, w));
                }
            }
            for (o, w) in weighted {
                let t = self.etype(v, None, o);
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
        let base = self
            .dir
            .join("edge")
            .join(&et.name)
            .join("ordered_by_source");
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
        .map_err(|e| io_err(&base, e))?;
        let (schema, props) = self.edge_property_batch(t, rows.ids, rows.weights, rows.props);
        let props = RecordBatch::try_new(schema, props).map_err(|e| io_err(&base, e))?;
        let leaf = format!("part{part}/chunk{chunk}");
        let b = write_parquet(&base.join("adj_list").join(&leaf), &adj)?;
        self.wrote(b);
        let b = write_parquet(&base.join("properties").join(&leaf), &props)?;
        self.wrote(b);
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
        let strings = self.string_ids();
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
            "timestamp": snap.timestamp(),
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

// ---------------------------------------------------------------------------
// Import

/// What the metadata file says of one vertex type.
struct VertexMeta {
    label: String,
    name: String,
    count: u64,
    chunks: u64,
}

struct EdgeMeta {
    weighted: bool,
    label: Option<String>,
    name: String,
    src: usize,
    dst: usize,
    count: u64,
    chunks: Vec<u64>,
}

struct Meta {
    chunks: Chunks,
    directed: bool,
    string_ids: bool,
    vertices: Vec<VertexMeta>,
    edges: Vec<EdgeMeta>,
}

fn table_err(file: &Path, column: Option<&str>, what: impl Into<String>) -> LoadError {
    LoadError::Table {
        file: file.to_owned(),
        column: column.map(str::to_owned),
        what: what.into(),
        loaded: Loaded::default(),
    }
}

fn read_meta(dir: &Path) -> Result<Meta, LoadError> {
    let path = dir.join(META_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| LoadError::Io {
        file: path.clone(),
        op: "read",
        message: if e.kind() == std::io::ErrorKind::NotFound {
            format!(
                "{e}: not a stratagraph export (GraphAr archives from other writers, without \
                 {META_FILE}, are not read yet)"
            )
        } else {
            e.to_string()
        },
        loaded: Loaded::default(),
    })?;
    let bad = |field: &str, what: &str| table_err(&path, Some(field), what);
    let j: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| bad("(file)", &format!("not JSON: {e}")))?;
    if j["format"] != META_FORMAT {
        return Err(bad("format", &format!("expected {META_FORMAT:?}")));
    }
    if j["version"].as_u64() != Some(META_VERSION) {
        return Err(bad(
            "version",
            &format!(
                "version {} is not one this build reads ({META_VERSION})",
                j["version"]
            ),
        ));
    }
    let flag = |k: &str| {
        j[k].as_bool()
            .ok_or_else(|| bad(k, "expected true or false"))
    };
    let size = |k: &str| match j[k].as_u64() {
        Some(n) if n > 0 => Ok(n),
        _ => Err(bad(k, "expected a positive count")),
    };
    let chunks = Chunks {
        vertices: size("vertex_chunk_size")?,
        edges: size("edge_chunk_size")?,
    };
    let list = |k: &str| j[k].as_array().ok_or_else(|| bad(k, "expected a list"));
    let mut vertices = Vec::new();
    for (i, v) in list("vertices")?.iter().enumerate() {
        let at = |f: &str| format!("vertices[{i}].{f}");
        let s = |f: &str| {
            v[f].as_str()
                .map(str::to_owned)
                .ok_or_else(|| bad(&at(f), "expected a string"))
        };
        let n = |f: &str| v[f].as_u64().ok_or_else(|| bad(&at(f), "expected a count"));
        let name = s("name")?;
        if name != file_name(&name) {
            return Err(bad(&at("name"), "not a name the export writes"));
        }
        vertices.push(VertexMeta {
            label: s("label")?,
            name,
            count: n("count")?,
            chunks: n("chunks")?,
        });
    }
    let mut edges = Vec::new();
    for (i, e) in list("edges")?.iter().enumerate() {
        let at = |f: &str| format!("edges[{i}].{f}");
        let n = |f: &str| e[f].as_u64().ok_or_else(|| bad(&at(f), "expected a count"));
        let weighted = match e["kind"].as_str() {
            Some("weighted") => true,
            Some("property") => false,
            _ => return Err(bad(&at("kind"), "expected \"weighted\" or \"property\"")),
        };
        let label = match (&e["label"], weighted) {
            (serde_json::Value::Null, true) => None,
            (serde_json::Value::String(s), false) => Some(s.clone()),
            _ => {
                return Err(bad(
                    &at("label"),
                    "a property edge type's label is a string, a weighted one's null",
                ))
            }
        };
        let name = e["name"].as_str().unwrap_or_default().to_owned();
        if name.is_empty() || name != file_name(&name) {
            return Err(bad(&at("name"), "not a name the export writes"));
        }
        let end = |f: &str| -> Result<usize, LoadError> {
            let x = n(f)? as usize;
            if x < vertices.len() {
                Ok(x)
            } else {
                Err(bad(&at(f), "no such vertex type"))
            }
        };
        let chunks = e["chunks"]
            .as_array()
            .ok_or_else(|| bad(&at("chunks"), "expected a list"))?
            .iter()
            .map(|c| {
                c.as_u64()
                    .ok_or_else(|| bad(&at("chunks"), "expected counts"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        edges.push(EdgeMeta {
            weighted,
            label,
            name,
            src: end("src")?,
            dst: end("dst")?,
            count: n("count")?,
            chunks,
        });
    }
    Ok(Meta {
        chunks,
        directed: flag("directed")?,
        string_ids: flag("string_ids")?,
        vertices,
        edges,
    })
}

/// One Parquet file read whole, with its columns found by name.
struct Table {
    file: PathBuf,
    batches: Vec<RecordBatch>,
    schema: SchemaRef,
}

impl Table {
    fn read(file: &Path) -> Result<Table, LoadError> {
        let f = File::open(file).map_err(|e| LoadError::Io {
            file: file.to_owned(),
            op: "open",
            message: e.to_string(),
            loaded: Loaded::default(),
        })?;
        let builder = ParquetRecordBatchReaderBuilder::try_new(f)
            .map_err(|e| table_err(file, None, format!("not a readable Parquet file: {e}")))?;
        let schema = builder.schema().clone();
        let reader = builder
            .with_batch_size(1 << 16)
            .build()
            .map_err(|e| table_err(file, None, e.to_string()))?;
        let batches = reader
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| table_err(file, None, format!("damaged: {e}")))?;
        Ok(Table {
            file: file.to_owned(),
            batches,
            schema,
        })
    }

    fn rows(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    /// Column `name`, which must have one of `types`.
    fn column(&self, name: &str, types: &[DataType]) -> Result<Vec<ArrayRef>, LoadError> {
        let Ok(i) = self.schema.index_of(name) else {
            return Err(table_err(&self.file, Some(name), "missing column"));
        };
        let ty = self.schema.field(i).data_type();
        if !types.contains(ty) {
            let want: Vec<String> = types.iter().map(ToString::to_string).collect();
            return Err(table_err(
                &self.file,
                Some(name),
                format!("type {ty}, expected {}", want.join(" or ")),
            ));
        }
        Ok(self.batches.iter().map(|b| b.column(i).clone()).collect())
    }

    fn i64s(&self, name: &str) -> Result<Vec<i64>, LoadError> {
        let mut out = Vec::with_capacity(self.rows());
        for a in self.column(name, &[DataType::Int64])? {
            if a.null_count() > 0 {
                return Err(table_err(
                    &self.file,
                    Some(name),
                    "null in a column that has none",
                ));
            }
            out.extend_from_slice(a.as_primitive::<Int64Type>().values());
        }
        Ok(out)
    }

    /// The property columns: every column not in `own`.
    fn property_columns(&self, own: &[&str]) -> Vec<usize> {
        (0..self.schema.fields().len())
            .filter(|&i| !own.contains(&self.schema.field(i).name().as_str()))
            .collect()
    }

    /// Every row's properties from columns `cols` (validated: a value that
    /// does not read names its file, column and row).
    fn properties(&self, cols: &[usize]) -> Result<Vec<Vec<(String, Value)>>, LoadError> {
        let mut rows: Vec<Vec<(String, Value)>> = vec![Vec::new(); self.rows()];
        for &c in cols {
            let field = self.schema.field(c);
            let mut at = 0;
            for b in &self.batches {
                let array = b.column(c);
                let r = ColumnReader::new(array.as_ref(), field)
                    .map_err(|e| table_err(&self.file, Some(field.name()), e))?;
                for i in 0..array.len() {
                    let v = r.value(i).map_err(|e| {
                        table_err(
                            &self.file,
                            Some(field.name()),
                            format!("{e} (file row {})", at + i),
                        )
                    })?;
                    if let Some(v) = v {
                        rows[at + i].push((field.name().clone(), v));
                    }
                }
                at += array.len();
            }
        }
        Ok(rows)
    }
}

/// Vertex ids as a file gives them.
enum Ids {
    Ints(Vec<u64>),
    Keys(Vec<String>),
}

impl Ids {
    fn len(&self) -> usize {
        match self {
            Ids::Ints(v) => v.len(),
            Ids::Keys(v) => v.len(),
        }
    }
}

fn read_ids(t: &Table, string_ids: bool) -> Result<Ids, LoadError> {
    if string_ids {
        let mut out = Vec::with_capacity(t.rows());
        for a in t.column(ID, &[DataType::Utf8])? {
            let s = a.as_string::<i32>();
            for i in 0..s.len() {
                if s.is_null(i) {
                    return Err(table_err(
                        &t.file,
                        Some(ID),
                        format!("null id in row {}", out.len()),
                    ));
                }
                out.push(s.value(i).to_owned());
            }
        }
        return Ok(Ids::Keys(out));
    }
    let mut out = Vec::with_capacity(t.rows());
    for a in t.column(ID, &[DataType::Int64, DataType::UInt64])? {
        if a.null_count() > 0 {
            return Err(table_err(&t.file, Some(ID), "null id"));
        }
        match a.data_type() {
            DataType::Int64 => {
                for &x in a.as_primitive::<Int64Type>().values() {
                    let id = u64::try_from(x).map_err(|_| {
                        table_err(&t.file, Some(ID), format!("negative vertex id {x}"))
                    })?;
                    out.push(id);
                }
            }
            _ => out.extend_from_slice(a.as_primitive::<UInt64Type>().values()),
        }
    }
    Ok(Ids::Ints(out))
}

/// An edge chunk read and checked: ends as indexes, ids or weights, and
/// properties.
struct EdgeChunk {
    file: PathBuf,
    src: Vec<i64>,
    dst: Vec<i64>,
    ids: Vec<u64>,
    weights: Vec<f64>,
    props: Vec<Vec<(String, Value)>>,
}

/// Everything an import will write, read and checked before any of it is.
struct Checked {
    meta: Meta,
    ids: Vec<Ids>,
    vertex_props: Vec<Vec<Vec<(String, Value)>>>,
    edges: Vec<Vec<EdgeChunk>>,
}

fn chunk_path(dir: &Path, e: &EdgeMeta, what: &str, part: usize, chunk: u64) -> PathBuf {
    dir.join("edge")
        .join(&e.name)
        .join("ordered_by_source")
        .join(what)
        .join(format!("part{part}"))
        .join(format!("chunk{chunk}"))
}

/// Reads and checks the whole export at `dir`: every file the metadata
/// names, every column's type, counts, unique vertex and edge ids, edge
/// ends within their vertex types, every value decodable.
fn check(dir: &Path) -> Result<Checked, LoadError> {
    let meta = read_meta(dir)?;
    let meta_file = dir.join(META_FILE);
    let mut ids = Vec::new();
    let mut vertex_props = Vec::new();
    let mut seen_ints = HashSet::new();
    let mut seen_keys = HashSet::new();
    for t in &meta.vertices {
        let mut type_ids = match meta.string_ids {
            true => Ids::Keys(Vec::new()),
            false => Ids::Ints(Vec::new()),
        };
        let mut props = Vec::new();
        for c in 0..t.chunks {
            let file = dir
                .join("vertex")
                .join(&t.name)
                .join("properties")
                .join(format!("chunk{c}"));
            let table = Table::read(&file)?;
            let index = table.i64s(VERTEX_INDEX)?;
            let start = (c * meta.chunks.vertices) as i64;
            if let Some(bad) = index
                .iter()
                .enumerate()
                .find(|&(i, &x)| x != start + i as i64)
            {
                return Err(table_err(
                    &file,
                    Some(VERTEX_INDEX),
                    format!(
                        "row {} holds {}, expected {}",
                        bad.0,
                        bad.1,
                        start + bad.0 as i64
                    ),
                ));
            }
            let chunk_ids = read_ids(&table, meta.string_ids)?;
            match (&mut type_ids, chunk_ids) {
                (Ids::Ints(all), Ids::Ints(more)) => {
                    for (row, &id) in more.iter().enumerate() {
                        if !seen_ints.insert(id) {
                            return Err(table_err(
                                &file,
                                Some(ID),
                                format!("vertex id {id} twice (row {row})"),
                            ));
                        }
                    }
                    all.extend(more);
                }
                (Ids::Keys(all), Ids::Keys(more)) => {
                    for (row, id) in more.iter().enumerate() {
                        if !seen_keys.insert(id.clone()) {
                            return Err(table_err(
                                &file,
                                Some(ID),
                                format!("vertex id {id:?} twice (row {row})"),
                            ));
                        }
                    }
                    all.extend(more);
                }
                _ => unreachable!("read_ids gives the kind asked for"),
            }
            let cols = table.property_columns(&[VERTEX_INDEX, ID]);
            props.extend(table.properties(&cols)?);
        }
        if type_ids.len() as u64 != t.count {
            return Err(table_err(
                &meta_file,
                Some("vertices"),
                format!(
                    "type {:?} has {} vertices in its files, {} in the metadata",
                    t.label,
                    type_ids.len(),
                    t.count
                ),
            ));
        }
        ids.push(type_ids);
        vertex_props.push(props);
    }
    let mut edges = Vec::new();
    for e in &meta.edges {
        let mut chunks = Vec::new();
        let mut seen_edge_ids = HashSet::new();
        let mut count = 0u64;
        for (part, &n) in e.chunks.iter().enumerate() {
            for c in 0..n {
                let adj_file = chunk_path(dir, e, "adj_list", part, c);
                let adj = Table::read(&adj_file)?;
                let src = adj.i64s(SRC_INDEX)?;
                let dst = adj.i64s(DST_INDEX)?;
                for (col, ends, t) in [(SRC_INDEX, &src, e.src), (DST_INDEX, &dst, e.dst)] {
                    let bound = ids[t].len() as i64;
                    if let Some((row, x)) =
                        ends.iter().enumerate().find(|(_, &x)| x < 0 || x >= bound)
                    {
                        return Err(table_err(
                            &adj_file,
                            Some(col),
                            format!("row {row}: index {x} is not a vertex of type {:?} ({bound} vertices)", meta.vertices[t].label),
                        ));
                    }
                }
                let prop_file = chunk_path(dir, e, "properties", part, c);
                let table = Table::read(&prop_file)?;
                if table.rows() != adj.rows() {
                    return Err(table_err(
                        &prop_file,
                        None,
                        format!(
                            "{} rows, its adjacency chunk {} has {}",
                            table.rows(),
                            adj_file.display(),
                            adj.rows()
                        ),
                    ));
                }
                let mut chunk = EdgeChunk {
                    file: prop_file.clone(),
                    src,
                    dst,
                    ids: Vec::new(),
                    weights: Vec::new(),
                    props: Vec::new(),
                };
                if e.weighted {
                    for a in table.column(WEIGHT, &[DataType::Float64])? {
                        if a.null_count() > 0 {
                            return Err(table_err(&prop_file, Some(WEIGHT), "null weight"));
                        }
                        chunk
                            .weights
                            .extend_from_slice(a.as_primitive::<Float64Type>().values());
                    }
                } else {
                    for a in table.column(ID, &[DataType::UInt64])? {
                        if a.null_count() > 0 {
                            return Err(table_err(&prop_file, Some(ID), "null edge id"));
                        }
                        for &id in a.as_primitive::<UInt64Type>().values() {
                            if !seen_edge_ids.insert(id) {
                                return Err(table_err(
                                    &prop_file,
                                    Some(ID),
                                    format!("edge id {id} twice"),
                                ));
                            }
                            chunk.ids.push(id);
                        }
                    }
                    chunk.props = table.properties(&table.property_columns(&[ID]))?;
                }
                count += chunk.src.len() as u64;
                chunks.push(chunk);
            }
        }
        if count != e.count {
            return Err(table_err(
                &meta_file,
                Some("edges"),
                format!(
                    "edge type {:?} has {count} edges in its files, {} in the metadata",
                    e.name, e.count
                ),
            ));
        }
        edges.push(chunks);
    }
    Ok(Checked {
        meta,
        ids,
        vertex_props,
        edges,
    })
}

/// The store kind an export at `dir` needs: (directed, string ids).
pub fn stored_kind(dir: &Path) -> Result<(bool, bool), LoadError> {
    let m = read_meta(dir)?;
    Ok((m.directed, m.string_ids))
}

/// Loads the export at `dir` into `g`, which must hold no vertex yet and
/// be of the export's kind (directed or not, string ids or not).
///
/// Reads and checks everything first (every file, type, id and end; a
/// bad one is an error naming its file and column), so an export that
/// fails leaves the store unchanged. Then writes vertices and property
/// edges in transactions of `batch` records and the weighted structure
/// in batches of one chunk each (the first a bulk load, as the store holds
/// no edge yet).
pub fn import(g: &Graph, dir: &Path, batch: usize) -> Result<Loaded, LoadError> {
    let checked = check(dir)?;
    let meta_file = dir.join(META_FILE);
    let opts = g.options();
    if opts.directed != checked.meta.directed || opts.string_ids != checked.meta.string_ids {
        return Err(table_err(
            &meta_file,
            Some("directed"),
            format!(
                "the export is of a {} store{}; this store is {}{}",
                if checked.meta.directed {
                    "directed"
                } else {
                    "undirected"
                },
                if checked.meta.string_ids {
                    " with string ids"
                } else {
                    ""
                },
                if opts.directed {
                    "directed"
                } else {
                    "undirected"
                },
                if opts.string_ids {
                    " with string ids"
                } else {
                    ""
                },
            ),
        ));
    }
    if g.snapshot().vertex_count() > 0 {
        return Err(table_err(
            &meta_file,
            None,
            "the store already holds vertices; an export loads into an empty store",
        ));
    }
    let mut loaded = Loaded::default();
    let engine = |file: &Path, e: stratagraph::Error, loaded: Loaded| LoadError::Engine {
        file: file.to_owned(),
        line: 0,
        source: Box::new(e),
        loaded,
    };
    // Vertex ids in the store, per type, by index.
    let mut store_ids: Vec<Vec<VertexId>> = Vec::new();
    for (t, vm) in checked.meta.vertices.iter().enumerate() {
        let ids: Vec<VertexId> = match &checked.ids[t] {
            Ids::Ints(v) => v.clone(),
            Ids::Keys(v) => v
                .iter()
                .map(|k| g.intern_key(k))
                .collect::<Result<_, _>>()
                .map_err(|e| engine(&meta_file, e, loaded))?,
        };
        let props = &checked.vertex_props[t];
        let plain = vm.label == DEFAULT_LABEL && props.iter().all(Vec::is_empty);
        for (c, chunk) in ids.chunks(batch.max(1)).enumerate() {
            let file = dir.join("vertex").join(&vm.name);
            if plain {
                g.insert_vertices(chunk)
                    .map_err(|e| engine(&file, e, loaded))?;
            } else {
                let mut tx = g.begin();
                for (i, &id) in chunk.iter().enumerate() {
                    let p: Vec<(&str, Value)> = props[c * batch.max(1) + i]
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.clone()))
                        .collect();
                    tx.insert_vertex_with(id, &vm.label, &p)
                        .map_err(|e| engine(&file, e, loaded))?;
                }
                tx.commit().map_err(|e| engine(&file, e, loaded))?;
            }
            loaded.vertices += chunk.len() as u64;
            loaded.batches += 1;
        }
        store_ids.push(ids);
    }
    for (e, chunks) in checked.meta.edges.iter().zip(&checked.edges) {
        let (src_ids, dst_ids) = (&store_ids[e.src], &store_ids[e.dst]);
        for chunk in chunks {
            let ends = |i: usize| {
                (
                    src_ids[chunk.src[i] as usize],
                    dst_ids[chunk.dst[i] as usize],
                )
            };
            if e.weighted {
                let edges: Vec<(VertexId, VertexId, f64)> = (0..chunk.src.len())
                    .map(|i| {
                        let (s, d) = ends(i);
                        (s, d, chunk.weights[i])
                    })
                    .collect();
                g.insert_edges(&edges)
                    .map_err(|err| engine(&chunk.file, err, loaded))?;
                loaded.edges += edges.len() as u64;
                loaded.batches += 1;
                continue;
            }
            let label = e.label.as_deref().unwrap_or_default();
            for rows in (0..chunk.src.len())
                .collect::<Vec<_>>()
                .chunks(batch.max(1))
            {
                let mut tx = g.begin();
                for &i in rows {
                    let (s, d) = ends(i);
                    let p: Vec<(&str, Value)> = chunk.props[i]
                        .iter()
                        .map(|(k, v)| (k.as_str(), v.clone()))
                        .collect();
                    tx.add_edge_with_id(chunk.ids[i], s, d, label, &p)
                        .map_err(|err| engine(&chunk.file, err, loaded))?;
                }
                tx.commit()
                    .map_err(|err| engine(&chunk.file, err, loaded))?;
                loaded.edges += rows.len() as u64;
                loaded.batches += 1;
            }
        }
    }
    Ok(loaded)
}
