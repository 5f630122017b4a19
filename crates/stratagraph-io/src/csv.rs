//! Property graphs as CSV files with a header row: vertex files and edge
//! files, as Neo4j's `neo4j-admin import`, kuzu's `COPY FROM` and the
//! LDBC SNB exports write them.
//!
//! The header names the columns. In a vertex file `:ID` (or `id`) is the
//! vertex id and `:LABEL` (or `label`) its label; in an edge file
//! `:START_ID` (or `src`, `from`), `:END_ID` (or `dst`, `to`), `:TYPE` (or
//! `label`, `type`) and optionally `:ID` (or `id`, the edge's own id).
//! Neo4j's id spaces (`:ID(Person)`) are read as plain ids; an edge row
//! with an empty id gets a new one. Every other
//! column is a property, `name` or `name:type` with a type of `string`
//! (the default), `boolean`, `byte`, `short`, `int` (32 bits), `long`,
//! `float` (32 bits), `double`, `uuid`, or one of them followed by `[]`
//! for a list whose items a `;` separates. An empty field sets no
//! property. A file without a label column takes the label given with it
//! (else the default one). Fields are separated by `,`, or by `|` or a tab
//! when the header has one of those and no comma.

use crate::load::{Batcher, EdgeRecord, LoadError, LoadOptions, Loaded, RawId, VertexRecord};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use stratagraph::{Graph, Value};

/// One CSV file to load, with the label its rows take when it has no
/// label column.
#[derive(Debug, Clone)]
pub struct CsvFile {
    /// The file.
    pub path: PathBuf,
    /// The label of rows without one.
    pub label: Option<String>,
}

impl CsvFile {
    /// A file whose rows carry their labels (or take the default one).
    pub fn new(path: impl Into<PathBuf>) -> CsvFile {
        CsvFile {
            path: path.into(),
            label: None,
        }
    }

    /// A file whose rows without a label column take `label`.
    pub fn labelled(path: impl Into<PathBuf>, label: &str) -> CsvFile {
        CsvFile {
            path: path.into(),
            label: Some(label.to_owned()),
        }
    }
}

/// The type of a property column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scalar {
    String,
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    Uuid,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct ColumnType {
    scalar: Scalar,
    list: bool,
}

/// What a column holds.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Column {
    Id,
    Label,
    Src,
    Dst,
    Property(String, ColumnType),
}

/// Loads vertex files, then edge files, into `g`, `opts.batch` rows per
/// transaction; returns what it loaded.
///
/// # Errors
/// A [`LoadError`] naming the file, line and column of the first row
/// that does not parse or that the store refuses, with what was committed
/// before it.
pub fn load(
    g: &Graph,
    vertices: &[CsvFile],
    edges: &[CsvFile],
    opts: LoadOptions,
) -> Result<Loaded, LoadError> {
    let mut loaded = Loaded::default();
    for f in vertices {
        loaded = load_file(g, f, Kind::Vertices, opts, loaded)?;
    }
    for f in edges {
        loaded = load_file(g, f, Kind::Edges, opts, loaded)?;
    }
    Ok(loaded)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Vertices,
    Edges,
}

fn load_file(
    g: &Graph,
    f: &CsvFile,
    kind: Kind,
    opts: LoadOptions,
    loaded: Loaded,
) -> Result<Loaded, LoadError> {
    let path = &f.path;
    let malformed = |line, field: &str, what, loaded| malformed_at(path, line, field, what, loaded);
    let io = |op, e: std::io::Error| LoadError::Io {
        file: path.clone(),
        op,
        message: e.to_string(),
        loaded,
    };
    let first = first_line(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => {
            malformed(1, "the header", "is not UTF-8".into(), loaded)
        }
        _ => io("read", e),
    })?;
    let delimiter = if first.contains(',') {
        b','
    } else if first.contains('|') {
        b'|'
    } else if first.contains('\t') {
        b'\t'
    } else {
        b','
    };
    let file = std::fs::File::open(path).map_err(|e| io("open", e))?;
    let mut r = ::csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .has_headers(true)
        .flexible(false)
        .from_reader(std::io::BufReader::with_capacity(1 << 16, file));
    let header = r
        .headers()
        .map_err(|e| malformed(1, "the header", e.to_string(), loaded))?
        .clone();
    let columns: Vec<Column> = header
        .iter()
        .map(|h| column(h, kind))
        .collect::<Result<_, String>>()
        .map_err(|what| malformed(1, "the header", what, loaded))?;
    let need: &[(Column, &str)] = match kind {
        Kind::Vertices => &[(Column::Id, ":ID")],
        Kind::Edges => &[(Column::Src, ":START_ID"), (Column::Dst, ":END_ID")],
    };
    for (c, name) in need {
        if !columns.contains(c) {
            return Err(malformed(
                1,
                "the header",
                format!("has no {name} column"),
                loaded,
            ));
        }
    }
    if kind == Kind::Edges && f.label.is_none() && !columns.contains(&Column::Label) {
        return Err(malformed(
            1,
            "the header",
            "has no :TYPE column and the file was given no label".into(),
            loaded,
        ));
    }
    let read = |b: &mut Batcher| read_rows(&mut r, &header, &columns, f, kind, b);
    crate::load::pipelined(g, path, opts, loaded, read)
}

/// Reads `r`'s rows into `b` (which commits or hands on each full batch);
/// returns the last row's line.
fn read_rows<R: std::io::Read>(
    r: &mut ::csv::Reader<R>,
    header: &::csv::StringRecord,
    columns: &[Column],
    f: &CsvFile,
    kind: Kind,
    b: &mut Batcher,
) -> Result<u64, LoadError> {
    let path = &f.path;
    let malformed = |line, field: &str, what, loaded| malformed_at(path, line, field, what, loaded);
    let mut row = ::csv::StringRecord::new();
    let mut line = 1;
    while !b.stopped() {
        match r.read_record(&mut row) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                let at = e.position().map_or(line + 1, |p| p.line());
                return Err(malformed(at, "the row", e.to_string(), b.loaded));
            }
        }
        line = row.position().map_or(line + 1, |p| p.line());
        let (mut id, mut vertex_id) = (None, None);
        let (mut src, mut dst) = (None, None);
        let mut label: Option<Cow<str>> = f.label.as_deref().map(Cow::Borrowed);
        let (mut id_field, mut src_field, mut dst_field) = ("", "", "");
        let mut props = Vec::new();
        // An integer id as a number (a store of integer ids takes it as
        // is); anything else as a string, for a store of string keys.
        let vertex = |field: &str| match id_of(field) {
            Some(i) => RawId::Int(i),
            None => RawId::Str(field.to_owned()),
        };
        for (i, (field, col)) in row.iter().zip(columns).enumerate() {
            let name = header.get(i).unwrap_or("");
            let int = |what: &str| {
                id_of(field).ok_or_else(|| {
                    malformed(
                        line,
                        name,
                        format!("{what} {field:?} is not a non-negative integer"),
                        b.loaded,
                    )
                })
            };
            match col {
                // An edge without an id in its row gets a new one.
                Column::Id if field.is_empty() && kind == Kind::Edges => {}
                Column::Id if kind == Kind::Edges => id = Some(int("edge id")?),
                Column::Id => (vertex_id, id_field) = (Some(vertex(field)), name),
                Column::Src => (src, src_field) = (Some(vertex(field)), name),
                Column::Dst => (dst, dst_field) = (Some(vertex(field)), name),
                Column::Label if !field.is_empty() => label = Some(field.to_owned().into()),
                Column::Label => {}
                Column::Property(key, ty) => {
                    if field.is_empty() {
                        continue;
                    }
                    let v =
                        value(field, *ty).map_err(|what| malformed(line, name, what, b.loaded))?;
                    props.push((Cow::Borrowed(key.as_str()), v));
                }
            }
        }
        match kind {
            Kind::Vertices => b.vertex(
                line,
                &VertexRecord {
                    id: vertex_id.expect("the header has an id column"),
                    id_field: id_field.into(),
                    label,
                    props,
                },
            )?,
            Kind::Edges => {
                let label = label.ok_or_else(|| {
                    malformed(
                        line,
                        ":TYPE",
                        "is empty and the file was given no label".into(),
                        b.loaded,
                    )
                })?;
                b.edge(
                    line,
                    &EdgeRecord {
                        id,
                        src: src.expect("the header has a source column"),
                        dst: dst.expect("the header has a destination column"),
                        src_field: src_field.into(),
                        dst_field: dst_field.into(),
                        label,
                        props,
                    },
                )?
            }
        }
    }
    Ok(line)
}

/// The error for a record of `file` that does not follow the format.
fn malformed_at(file: &Path, line: u64, field: &str, what: String, loaded: Loaded) -> LoadError {
    LoadError::Malformed {
        file: file.to_owned(),
        line,
        field: field.to_owned(),
        what,
        loaded,
    }
}

fn first_line(path: &Path) -> std::io::Result<String> {
    use std::io::BufRead;
    let mut s = String::new();
    std::io::BufReader::new(std::fs::File::open(path)?).read_line(&mut s)?;
    Ok(s)
}

fn id_of(field: &str) -> Option<u64> {
    field.trim().parse().ok()
}

/// What a header cell names.
fn column(h: &str, kind: Kind) -> Result<Column, String> {
    let h = h.trim();
    // `:ID(Person)`, `:START_ID(Person)`: Neo4j's id spaces.
    let base = h.split('(').next().unwrap_or(h);
    let lower = base.to_ascii_lowercase();
    let special = match (kind, lower.as_str()) {
        (_, ":id") | (_, "id") => Some(Column::Id),
        (Kind::Vertices, ":label") | (Kind::Vertices, "label") => Some(Column::Label),
        (Kind::Edges, ":type") | (Kind::Edges, "label") | (Kind::Edges, "type") => {
            Some(Column::Label)
        }
        (Kind::Edges, ":start_id") | (Kind::Edges, "src") | (Kind::Edges, "from") => {
            Some(Column::Src)
        }
        (Kind::Edges, ":end_id") | (Kind::Edges, "dst") | (Kind::Edges, "to") => Some(Column::Dst),
        _ => None,
    };
    if let Some(c) = special {
        return Ok(c);
    }
    let (name, ty) = match h.rsplit_once(':') {
        Some((name, ty)) => (name, ty),
        None => (h, "string"),
    };
    if name.is_empty() {
        return Err(format!("column {h:?} has no name"));
    }
    let (ty, list) = match ty.strip_suffix("[]") {
        Some(t) => (t, true),
        None => (ty, false),
    };
    let scalar = match ty.to_ascii_lowercase().as_str() {
        "string" => Scalar::String,
        "boolean" | "bool" => Scalar::Bool,
        "byte" => Scalar::Int8,
        "short" => Scalar::Int16,
        "int" => Scalar::Int32,
        "long" => Scalar::Int64,
        "float" => Scalar::Float32,
        "double" => Scalar::Float64,
        "uuid" => Scalar::Uuid,
        other => {
            return Err(format!(
                "column {h:?}: type {other:?} is not one of string, boolean, byte, short, int, long, float, double, uuid (or a list of one: int[])"
            ))
        }
    };
    Ok(Column::Property(
        name.to_owned(),
        ColumnType { scalar, list },
    ))
}

fn value(field: &str, ty: ColumnType) -> Result<Value, String> {
    if ty.list {
        let items = field
            .split(';')
            .map(|x| scalar(x, ty.scalar))
            .collect::<Result<_, _>>()?;
        return Ok(Value::List(items));
    }
    scalar(field, ty.scalar)
}

fn scalar(field: &str, ty: Scalar) -> Result<Value, String> {
    let t = field.trim();
    let bad = |what: &str| format!("{field:?} is not {what}");
    Ok(match ty {
        Scalar::String => Value::String(field.to_owned()),
        Scalar::Bool => match t.to_ascii_lowercase().as_str() {
            "true" => Value::Bool(true),
            "false" => Value::Bool(false),
            _ => return Err(bad("a boolean (true or false)")),
        },
        Scalar::Int8 => Value::Int8(t.parse().map_err(|_| bad("a byte"))?),
        Scalar::Int16 => Value::Int16(t.parse().map_err(|_| bad("a short"))?),
        Scalar::Int32 => Value::Int32(t.parse().map_err(|_| bad("an int (32 bits)"))?),
        Scalar::Int64 => Value::Int64(t.parse().map_err(|_| bad("a long"))?),
        Scalar::Float32 => Value::Float32(t.parse().map_err(|_| bad("a float"))?),
        Scalar::Float64 => Value::Float64(t.parse().map_err(|_| bad("a double"))?),
        Scalar::Uuid => Value::Uuid(crate::graphson::uuid(t).ok_or_else(|| bad("a UUID"))?),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;

    #[test]
    fn headers_name_ids_labels_and_typed_properties() {
        assert_eq!(column(":ID(Person)", Kind::Vertices), Ok(Column::Id));
        assert_eq!(column("label", Kind::Vertices), Ok(Column::Label));
        assert_eq!(column(":TYPE", Kind::Edges), Ok(Column::Label));
        assert_eq!(column("src", Kind::Edges), Ok(Column::Src));
        assert_eq!(
            column("age:int", Kind::Vertices),
            Ok(Column::Property(
                "age".into(),
                ColumnType {
                    scalar: Scalar::Int32,
                    list: false
                }
            ))
        );
        assert!(column("age:integer", Kind::Vertices).is_err());
        assert_eq!(
            value(
                "1;2",
                ColumnType {
                    scalar: Scalar::Int64,
                    list: true
                }
            ),
            Ok(Value::List(vec![Value::Int64(1), Value::Int64(2)]))
        );
        assert!(value(
            "x",
            ColumnType {
                scalar: Scalar::Float64,
                list: false
            }
        )
        .is_err());
    }
}
