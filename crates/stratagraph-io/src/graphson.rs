//! GraphSON 3.0 graphs as TinkerPop's `GraphSONWriter` writes them (and
//! `../shared/tinkerpop/data/*.json` holds them): one vertex per line, a
//! JSON object with its `id`, `label`, `properties` (key to a list of
//! vertex properties, each with its own `id` and `value`) and its
//! out-edges under `outE` (label to a list of edges, each with `id`,
//! `inV` and `properties`). In-edges (`inE`) repeat the out-edges of other
//! lines and are not read.
//!
//! Values keep their GraphSON types (`g:Int32` stays an Int32, apart from
//! a `g:Int64`). String vertex ids need a store that names vertices by
//! string keys (`Options::string_ids`). What the store does not hold yet
//! is refused by line and field rather than changed: a key with more than
//! one value (list cardinality) and meta-properties.
//!
//! The file is read twice: vertices first, then edges, so an edge never
//! creates a vertex that a later line names with its label.

use crate::load::{Batcher, EdgeRecord, LoadError, LoadOptions, Loaded, RawId, VertexRecord};
use serde_json::{Map, Value as Json};
use std::io::BufRead;
use std::path::Path;
use stratagraph::{DateTime, Graph, Value};

/// A field's problem, before the file and line are known.
struct Bad {
    field: String,
    what: String,
}

fn bad(field: impl Into<String>, what: impl Into<String>) -> Bad {
    Bad {
        field: field.into(),
        what: what.into(),
    }
}

/// Loads a GraphSON 3.0 file into `g`, `opts.batch` records per
/// transaction; returns what it loaded.
///
/// # Errors
/// A [`LoadError`] naming the file, line and field of the first record
/// that does not parse or that the store refuses, with what was committed
/// before it.
pub fn load(g: &Graph, path: &Path, opts: LoadOptions) -> Result<Loaded, LoadError> {
    let mut loaded = Loaded::default();
    for pass in [Pass::Vertices, Pass::Edges] {
        // Parsed and built on a second thread while the batch before
        // commits (see `load::pipelined`).
        loaded = crate::load::pipelined(g, path, opts, loaded, |b: &mut Batcher| {
            let mut last = 0;
            for_each_line(path, b.loaded, |line, text| {
                if b.stopped() {
                    return Ok(());
                }
                last = line;
                let (v, edges) = parse_line(text).map_err(|e| LoadError::Malformed {
                    file: path.to_owned(),
                    line,
                    field: e.field,
                    what: e.what,
                    loaded: b.loaded,
                })?;
                match pass {
                    Pass::Vertices => b.vertex(line, &v),
                    Pass::Edges => edges.iter().try_for_each(|e| b.edge(line, e)),
                }
            })?;
            Ok(last)
        })?;
    }
    Ok(loaded)
}

#[derive(Clone, Copy)]
enum Pass {
    Vertices,
    Edges,
}

/// Calls `f` with each non-blank line (1-based number, text).
fn for_each_line(
    path: &Path,
    loaded: Loaded,
    mut f: impl FnMut(u64, &str) -> Result<(), LoadError>,
) -> Result<(), LoadError> {
    let io = |op, e: std::io::Error, loaded| LoadError::Io {
        file: path.to_owned(),
        op,
        message: e.to_string(),
        loaded,
    };
    let file = std::fs::File::open(path).map_err(|e| io("open", e, loaded))?;
    let mut r = std::io::BufReader::with_capacity(1 << 16, file);
    let mut text = String::new();
    let mut line = 0u64;
    loop {
        text.clear();
        line += 1;
        match r.read_line(&mut text) {
            Ok(0) => return Ok(()),
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                return Err(LoadError::Malformed {
                    file: path.to_owned(),
                    line,
                    field: "the line".into(),
                    what: "is not UTF-8".into(),
                    loaded,
                })
            }
            Err(e) => return Err(io("read", e, loaded)),
        }
        if !text.trim().is_empty() {
            f(line, text.trim_end())?;
        }
    }
}

/// One line: the vertex and its out-edges.
fn parse_line(text: &str) -> Result<(VertexRecord<'static>, Vec<EdgeRecord<'static>>), Bad> {
    let json: Json = serde_json::from_str(text)
        .map_err(|e| bad(format!("column {}", e.column()), format!("not JSON: {e}")))?;
    let obj = json
        .as_object()
        .ok_or_else(|| bad("the line", "is not a JSON object (one vertex per line)"))?;
    let id = vertex_id(obj.get("id"), "id")?;
    let src = id.clone();
    let label = match obj.get("label") {
        None => None,
        Some(Json::String(s)) => Some(s.clone().into()),
        Some(_) => return Err(bad("label", "is not a string")),
    };
    let mut props = Vec::new();
    if let Some(p) = obj.get("properties") {
        let p = p
            .as_object()
            .ok_or_else(|| bad("properties", "is not an object"))?;
        for (key, list) in p {
            let field = format!("properties.{key}");
            let list = list
                .as_array()
                .ok_or_else(|| bad(&field, "is not a list of vertex properties"))?;
            let [one] = list.as_slice() else {
                return Err(bad(
                    &field,
                    format!(
                        "has {} values; this store keeps one value per key (list cardinality is not supported yet)",
                        list.len()
                    ),
                ));
            };
            let one = one
                .as_object()
                .ok_or_else(|| bad(&field, "is not a vertex property object"))?;
            if one
                .get("properties")
                .is_some_and(|m| m.as_object().is_none_or(|m| !m.is_empty()))
            {
                return Err(bad(
                    format!("{field}[0].properties"),
                    "meta-properties are not supported yet",
                ));
            }
            let value = one
                .get("value")
                .ok_or_else(|| bad(format!("{field}[0]"), "has no value"))?;
            props.push((
                key.clone().into(),
                typed(value, &format!("{field}[0].value"))?,
            ));
        }
    }
    let mut edges = Vec::new();
    if let Some(out) = obj.get("outE") {
        let out = out
            .as_object()
            .ok_or_else(|| bad("outE", "is not an object of edge labels"))?;
        for (label, list) in out {
            let list = list
                .as_array()
                .ok_or_else(|| bad(format!("outE.{label}"), "is not a list of edges"))?;
            for (i, e) in list.iter().enumerate() {
                let field = format!("outE.{label}[{i}]");
                edges.push(edge(e, &src, label, &field)?);
            }
        }
    }
    Ok((
        VertexRecord {
            id,
            id_field: "id".into(),
            label,
            props,
        },
        edges,
    ))
}

fn edge(e: &Json, src: &RawId, label: &str, field: &str) -> Result<EdgeRecord<'static>, Bad> {
    let e = e
        .as_object()
        .ok_or_else(|| bad(field, "is not an edge object"))?;
    let id = match e.get("id") {
        None => None,
        Some(x) => Some(integer_id(x, &format!("{field}.id"), "edge")?),
    };
    let dst_field = format!("{field}.inV");
    let dst = vertex_id(e.get("inV"), &dst_field)?;
    let props = match e.get("properties") {
        None => Vec::new(),
        Some(p) => {
            let p = p
                .as_object()
                .ok_or_else(|| bad(format!("{field}.properties"), "is not an object"))?;
            p.iter()
                .map(|(k, v)| {
                    let value = typed(v, &format!("{field}.properties.{k}"))?;
                    Ok((k.clone().into(), value))
                })
                .collect::<Result<_, Bad>>()?
        }
    };
    Ok(EdgeRecord {
        id,
        src: src.clone(),
        dst,
        src_field: "id".into(),
        dst_field: dst_field.into(),
        label: label.to_owned().into(),
        props,
    })
}

fn vertex_id(x: Option<&Json>, field: &str) -> Result<RawId, Bad> {
    let x = x.ok_or_else(|| bad(field, "is missing"))?;
    match typed(x, field)? {
        Value::String(s) => Ok(RawId::Str(s)),
        _ => integer_id(x, field, "vertex").map(RawId::Int),
    }
}

/// An id: a non-negative integer, typed or not.
fn integer_id(x: &Json, field: &str, what: &str) -> Result<u64, Bad> {
    match typed(x, field)? {
        Value::Int8(i) => u64::try_from(i).ok(),
        Value::Int16(i) => u64::try_from(i).ok(),
        Value::Int32(i) => u64::try_from(i).ok(),
        Value::Int64(i) => u64::try_from(i).ok(),
        Value::String(s) => {
            return Err(bad(
                field,
                format!("{what} id {s:?} is a string; {what} ids here are integers"),
            ))
        }
        other => return Err(bad(field, format!("{what} id {other:?} is not an integer"))),
    }
    .ok_or_else(|| bad(field, format!("{what} id is negative")))
}

fn object_value<'a>(o: &'a Map<String, Json>, field: &str) -> Result<(&'a str, &'a Json), Bad> {
    let ty = o
        .get("@type")
        .and_then(Json::as_str)
        .ok_or_else(|| bad(field, "an object value needs \"@type\" and \"@value\""))?;
    let v = o
        .get("@value")
        .ok_or_else(|| bad(field, format!("{ty} has no \"@value\"")))?;
    Ok((ty, v))
}

/// A GraphSON 3.0 value with its type.
fn typed(x: &Json, field: &str) -> Result<Value, Bad> {
    Ok(match x {
        Json::Null => Value::Null,
        Json::Bool(b) => Value::Bool(*b),
        Json::String(s) => Value::String(s.clone()),
        Json::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i32::try_from(i).map_or(Value::Int64(i), Value::Int32),
            (None, Some(f)) => Value::Float64(f),
            _ => return Err(bad(field, format!("number {n} does not fit 64 bits"))),
        },
        Json::Array(_) => {
            return Err(bad(
                field,
                "an untyped JSON array; GraphSON 3.0 writes lists as {\"@type\": \"g:List\", ...}",
            ))
        }
        Json::Object(o) => {
            let (ty, v) = object_value(o, field)?;
            let int = |lo: i64, hi: i64| -> Result<i64, Bad> {
                v.as_i64()
                    .filter(|i| (lo..=hi).contains(i))
                    .ok_or_else(|| bad(field, format!("{ty} value {v} is not an integer in range")))
            };
            let float = || -> Result<f64, Bad> {
                match v {
                    Json::Number(n) => n.as_f64(),
                    Json::String(s) => match s.as_str() {
                        "NaN" => Some(f64::NAN),
                        "Infinity" => Some(f64::INFINITY),
                        "-Infinity" => Some(f64::NEG_INFINITY),
                        _ => None,
                    },
                    _ => None,
                }
                .ok_or_else(|| bad(field, format!("{ty} value {v} is not a number")))
            };
            let items = || -> Result<Vec<Value>, Bad> {
                v.as_array()
                    .ok_or_else(|| bad(field, format!("{ty} value is not an array")))?
                    .iter()
                    .enumerate()
                    .map(|(i, x)| typed(x, &format!("{field}[{i}]")))
                    .collect()
            };
            match ty {
                "g:Int32" => Value::Int32(int(i32::MIN.into(), i32::MAX.into())? as i32),
                "g:Int64" => Value::Int64(int(i64::MIN, i64::MAX)?),
                "gx:Int16" => Value::Int16(int(i16::MIN.into(), i16::MAX.into())? as i16),
                "gx:Byte" => Value::Int8(int(i8::MIN.into(), i8::MAX.into())? as i8),
                "g:Float" => Value::Float32(float()? as f32),
                "g:Double" => Value::Float64(float()?),
                "g:List" => Value::List(items()?),
                "g:Set" => Value::set(items()?),
                "g:Map" => {
                    let flat = items()?;
                    if flat.len() % 2 != 0 {
                        return Err(bad(field, "g:Map has an odd number of items"));
                    }
                    let mut pairs = Vec::with_capacity(flat.len() / 2);
                    let mut it = flat.into_iter();
                    while let (Some(k), Some(v)) = (it.next(), it.next()) {
                        pairs.push((k, v));
                    }
                    Value::map(pairs).map_err(|e| bad(field, e.to_string()))?
                }
                "g:UUID" => {
                    let s = v
                        .as_str()
                        .ok_or_else(|| bad(field, "g:UUID value is not a string"))?;
                    Value::Uuid(uuid(s).ok_or_else(|| bad(field, format!("{s:?} is not a UUID")))?)
                }
                "g:Date" | "g:Timestamp" => {
                    let ms = int(i64::MIN, i64::MAX)?;
                    let dt = DateTime::new(
                        ms.div_euclid(1000),
                        (ms.rem_euclid(1000) * 1_000_000) as u32,
                        0,
                    )
                    .ok_or_else(|| bad(field, format!("{ty} {ms} is out of range")))?;
                    Value::DateTime(dt)
                }
                other => {
                    return Err(bad(
                        field,
                        format!("values of type {other} are not supported"),
                    ))
                }
            }
        }
    })
}

/// The 16 bytes of a UUID in its 8-4-4-4-12 hex form.
pub(crate) fn uuid(s: &str) -> Option<[u8; 16]> {
    let groups: Vec<&str> = s.split('-').collect();
    if groups.iter().map(|g| g.len()).collect::<Vec<_>>() != [8, 4, 4, 4, 12] {
        return None;
    }
    let hex: String = groups.concat();
    let mut out = [0u8; 16];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;

    #[test]
    fn values_keep_their_types() {
        let t = |s: &str| typed(&serde_json::from_str(s).unwrap(), "f").map_err(|e| e.what);
        assert_eq!(
            t(r#"{"@type":"g:Int32","@value":29}"#),
            Ok(Value::Int32(29))
        );
        assert_eq!(
            t(r#"{"@type":"g:Int64","@value":29}"#),
            Ok(Value::Int64(29))
        );
        assert_eq!(
            t(r#"{"@type":"g:Float","@value":0.5}"#),
            Ok(Value::Float32(0.5))
        );
        assert_eq!(t(r#""marko""#), Ok(Value::String("marko".into())));
        assert_eq!(
            t(r#"{"@type":"g:List","@value":[{"@type":"g:Int32","@value":1},"a"]}"#),
            Ok(Value::List(vec![
                Value::Int32(1),
                Value::String("a".into())
            ]))
        );
        assert_eq!(
            t(r#"{"@type":"g:UUID","@value":"41d2e28a-20a4-4ab0-b379-d810dede3786"}"#),
            Ok(Value::Uuid([
                0x41, 0xd2, 0xe2, 0x8a, 0x20, 0xa4, 0x4a, 0xb0, 0xb3, 0x79, 0xd8, 0x10, 0xde, 0xde,
                0x37, 0x86
            ]))
        );
        assert!(t(r#"{"@type":"g:Int32","@value":3000000000}"#).is_err());
        assert!(t(r#"{"@type":"g:Map","@value":["a"]}"#).is_err());
        assert!(t(r#"{"@type":"g:Class","@value":"x"}"#).is_err());
        assert!(t(r#"{"@value":1}"#).is_err());
        assert!(t("[1]").is_err());
    }

    const MODERN_LINE: &str = r#"{"id":{"@type":"g:Int32","@value":1},"label":"person","outE":{"knows":[{"id":{"@type":"g:Int32","@value":7},"inV":{"@type":"g:Int32","@value":2},"properties":{"weight":{"@type":"g:Double","@value":0.5}}}]},"properties":{"name":[{"id":{"@type":"g:Int64","@value":0},"value":"marko"}],"age":[{"id":{"@type":"g:Int64","@value":1},"value":{"@type":"g:Int32","@value":29}}]}}"#;

    #[test]
    fn a_line_parses_to_its_vertex_and_out_edges() {
        let (v, e) = parse_line(MODERN_LINE).map_err(|b| b.what).unwrap();
        assert_eq!(
            (&v.id, v.label.as_deref()),
            (&RawId::Int(1), Some("person"))
        );
        assert_eq!(v.props.len(), 2);
        assert_eq!(
            (e[0].id, &e[0].src, &e[0].dst),
            (Some(7), &RawId::Int(1), &RawId::Int(2))
        );
    }

    proptest::proptest! {
        /// The bounded fuzzer of the line parser: arbitrary text, and a
        /// real line cut or with one byte changed, give a record or an
        /// error, never a panic.
        #[test]
        fn damaged_lines_never_panic(
            junk in ".{0,80}",
            cut in 0..MODERN_LINE.len(),
            at in 0..MODERN_LINE.len(),
            byte in 0x20u8..0x7f,
        ) {
            let _ = parse_line(&junk);
            let _ = parse_line(&MODERN_LINE[..cut]);
            let mut b = MODERN_LINE.as_bytes().to_vec();
            b[at] = byte;
            let _ = parse_line(&String::from_utf8_lossy(&b));
        }
    }
}
