//! Reading an export directory back into a store, checked whole first.

use crate::columns::{row_properties, RowProperties};
use crate::load::{IdColumn, LoadError, Loaded, MAX_BATCH_EDGES};
use arrow_array::cast::AsArray;
use arrow_array::types::{Float64Type, Int64Type, UInt64Type};
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::{DataType, SchemaRef};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use std::collections::HashSet;
use std::fs::File;
use std::path::{Path, PathBuf};
use stratagraph::{Graph, Value, VertexId, DEFAULT_LABEL};

use super::{
    edge_chunk, file_name, vertex_chunk, Chunks, DST_INDEX, ID, META_FILE, META_FORMAT,
    META_VERSION, SRC_INDEX, VERTEX_INDEX, WEIGHT,
};

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
        // The parquet crate asserts some footer fields rather than
        // checking them (`byte_range` panics on a negative offset), so
        // beyond the checks below a panic while reading a damaged file is
        // caught and reported as damage: the store is unchanged either way.
        std::panic::catch_unwind(|| Table::read_checked(file)).unwrap_or_else(|_| {
            Err(table_err(
                file,
                None,
                "damaged: the Parquet reader failed on it",
            ))
        })
    }

    fn read_checked(file: &Path) -> Result<Table, LoadError> {
        let f = File::open(file).map_err(|e| LoadError::Io {
            file: file.to_owned(),
            op: "open",
            message: e.to_string(),
            loaded: Loaded::default(),
        })?;
        let len = f.metadata().map_or(0, |m| m.len());
        let builder = ParquetRecordBatchReaderBuilder::try_new(f)
            .map_err(|e| table_err(file, None, format!("not a readable Parquet file: {e}")))?;
        // Every column chunk within the file, before anything reads one.
        for (g, group) in builder.metadata().row_groups().iter().enumerate() {
            for c in group.columns() {
                let start = c.dictionary_page_offset().unwrap_or(c.data_page_offset());
                let size = c.compressed_size();
                let inside = start >= 0
                    && size >= 0
                    && (start as u64)
                        .checked_add(size as u64)
                        .is_some_and(|end| end <= len);
                if !inside {
                    return Err(table_err(
                        file,
                        Some(c.column_path().string().as_str()),
                        format!(
                            "not a readable Parquet file: row group {g} places the column at \
                             bytes {start}+{size} of {len}"
                        ),
                    ));
                }
            }
        }
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

    /// Every row's properties: the columns not named in `own` (a value
    /// that does not read names the file, column and row).
    fn properties(&self, own: &[&str]) -> Result<RowProperties, LoadError> {
        row_properties(&self.schema, &self.batches, own)
            .map_err(|(column, what)| table_err(&self.file, Some(&column), what))
    }
}

fn read_ids(t: &Table, string_ids: bool) -> Result<IdColumn, LoadError> {
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
        return Ok(IdColumn::Keys(out));
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
    Ok(IdColumn::Ints(out))
}

/// An edge chunk read and checked: ends as indexes, ids or weights, and
/// properties.
struct EdgeChunk {
    file: PathBuf,
    src: Vec<i64>,
    dst: Vec<i64>,
    ids: Vec<u64>,
    weights: Vec<f64>,
    props: RowProperties,
}

/// Everything an import will write, read and checked before any of it is.
struct Checked {
    meta: Meta,
    ids: Vec<IdColumn>,
    vertex_props: Vec<RowProperties>,
    edges: Vec<Vec<EdgeChunk>>,
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
            true => IdColumn::Keys(Vec::new()),
            false => IdColumn::Ints(Vec::new()),
        };
        let mut props = Vec::new();
        for c in 0..t.chunks {
            let file = vertex_chunk(dir, &t.name, c);
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
                (IdColumn::Ints(all), IdColumn::Ints(more)) => {
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
                (IdColumn::Keys(all), IdColumn::Keys(more)) => {
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
            props.extend(table.properties(&[VERTEX_INDEX, ID])?);
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
                let adj_file = edge_chunk(dir, &e.name, "adj_list", part as u64, c);
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
                let prop_file = edge_chunk(dir, &e.name, "properties", part as u64, c);
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
                    chunk.props = table.properties(&[ID])?;
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
/// edges in transactions of `batch` records, and the weighted structure
/// (every weighted edge type together) as one batch, which a store that
/// holds no edge yet takes as a bulk load straight into a level.
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
            IdColumn::Ints(v) => v.clone(),
            IdColumn::Keys(v) => v
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
    let mut weighted: Vec<(VertexId, VertexId, f64)> = Vec::new();
    let mut first_weighted: Option<&Path> = None;
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
                first_weighted.get_or_insert(&chunk.file);
                weighted.extend((0..chunk.src.len()).map(|i| {
                    let (s, d) = ends(i);
                    (s, d, chunk.weights[i])
                }));
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
    // Within the bulk load's limit per batch (u32 entry indices).
    for part in weighted.chunks(MAX_BATCH_EDGES) {
        let file = first_weighted.unwrap_or(dir);
        g.insert_edges(part)
            .map_err(|err| engine(file, err, loaded))?;
        loaded.edges += part.len() as u64;
        loaded.batches += 1;
    }
    Ok(loaded)
}
