//! The properties file (`props-<id>.dat`, `docs/FORMAT.md` §6): every
//! vertex's label and properties as of one cut, written by a flush so that
//! the log segments before the cut can go, and read back when the store
//! opens.
//!
//! The file is self-contained: it carries its own table of key and label
//! names, so it does not depend on the ids a session happened to intern.
//! Decoding checks every count and length against the bytes there are and
//! refuses damage naming the offset.

use super::stored::Stored;
use super::VertexProps;
use crate::error::{Error, Result};
use crate::util::le::{u32_at, Cursor, Malformed};
use crate::value::Value;
use rustc_hash::FxHashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"SGPROPS\x01";
/// The version this build writes: 2 adds property edges after the
/// vertices. Version 1 files (no edges) are still read.
const VERSION: u32 = 2;
/// Marks a vertex without a label (it has the default one).
const NO_LABEL: u32 = u32::MAX;

/// The file of properties file `id` inside `dir`.
pub(crate) fn path(dir: &Path, id: u64) -> PathBuf {
    dir.join(format!("props-{id:08}.dat"))
}

/// Whether `name` is a properties file's name.
pub(crate) fn is_props_file(name: &str) -> bool {
    name.starts_with("props-") && name.ends_with(".dat")
}

fn put_u32(b: &mut Vec<u8>, x: u32) {
    b.extend_from_slice(&x.to_le_bytes());
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    put_u32(b, s.len() as u32);
    b.extend_from_slice(s.as_bytes());
}

/// Index of `name` in a file's name table, adding it if new.
fn index(table: &mut Vec<Arc<str>>, seen: &mut FxHashMap<Arc<str>, u32>, name: &Arc<str>) -> u32 {
    *seen.entry(name.clone()).or_insert_with(|| {
        table.push(name.clone());
        (table.len() - 1) as u32
    })
}

/// One property edge as a properties file holds it: id, source and
/// destination (internal ids), label, properties in the order first set.
pub(crate) type FileEdge = (u64, u32, u32, Arc<str>, Vec<(Arc<str>, Stored)>);

/// What a properties file holds: the cut, the indexes as (label, key)
/// names in the order created, every vertex's label and properties, and
/// every property edge with the next edge id to hand out.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Contents {
    pub cut: u64,
    pub indexes: Vec<(Arc<str>, Arc<str>)>,
    pub vertices: Vec<VertexProps>,
    pub next_edge: u64,
    pub edges: Vec<FileEdge>,
    /// A string-keyed store's vertex keys, by id (`keys.rs`).
    pub keys: Vec<Arc<str>>,
}

/// Appends `props` (count, then key index and value each) to `body`.
fn put_props(
    body: &mut Vec<u8>,
    props: &[(Arc<str>, Stored)],
    keys: &mut Vec<Arc<str>>,
    key_ids: &mut FxHashMap<Arc<str>, u32>,
) {
    put_u32(body, props.len() as u32);
    for (k, value) in props {
        put_u32(body, index(keys, key_ids, k));
        let at = body.len();
        put_u32(body, 0);
        value
            .with(|v| v.encode(body))
            .expect("stored values were checked when written");
        let len = (body.len() - at - 4) as u32;
        body[at..at + 4].copy_from_slice(&len.to_le_bytes());
    }
}

/// The bytes of a properties file holding `c`.
pub(crate) fn encode(c: &Contents) -> Vec<u8> {
    let (cut, vertices) = (c.cut, &c.vertices);
    let (mut keys, mut labels) = (Vec::new(), Vec::new());
    let (mut key_ids, mut label_ids) = (FxHashMap::default(), FxHashMap::default());
    let mut body = Vec::new();
    body.extend_from_slice(&(vertices.len() as u64).to_le_bytes());
    for (v, label, props) in vertices {
        put_u32(&mut body, *v);
        let l = label
            .as_ref()
            .map_or(NO_LABEL, |l| index(&mut labels, &mut label_ids, l));
        put_u32(&mut body, l);
        put_props(&mut body, props, &mut keys, &mut key_ids);
    }
    body.extend_from_slice(&c.next_edge.to_le_bytes());
    body.extend_from_slice(&(c.edges.len() as u64).to_le_bytes());
    for (id, src, dst, label, props) in &c.edges {
        body.extend_from_slice(&id.to_le_bytes());
        put_u32(&mut body, *src);
        put_u32(&mut body, *dst);
        put_u32(&mut body, index(&mut labels, &mut label_ids, label));
        put_props(&mut body, props, &mut keys, &mut key_ids);
    }
    body.extend_from_slice(&(c.keys.len() as u64).to_le_bytes());
    for k in &c.keys {
        put_str(&mut body, k);
    }
    let mut defs = Vec::new();
    put_u32(&mut defs, c.indexes.len() as u32);
    for (l, k) in &c.indexes {
        put_u32(&mut defs, index(&mut labels, &mut label_ids, l));
        put_u32(&mut defs, index(&mut keys, &mut key_ids, k));
    }
    let mut b = Vec::with_capacity(body.len() + defs.len() + 64);
    b.extend_from_slice(MAGIC);
    put_u32(&mut b, VERSION);
    b.extend_from_slice(&cut.to_le_bytes());
    for table in [&keys, &labels] {
        put_u32(&mut b, table.len() as u32);
        for name in table {
            put_str(&mut b, name);
        }
    }
    b.extend_from_slice(&defs);
    b.extend_from_slice(&body);
    let crc = crc32c::crc32c(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

/// Reads fields off the file, failing past its end with `Corrupt`.
struct Reader<'a> {
    c: Cursor<'a>,
    file: &'a str,
}

impl<'a> Reader<'a> {
    fn corrupt(&self, at: usize, what: impl Into<String>) -> Error {
        Error::Corrupt {
            file: self.file.to_owned(),
            offset: at as u64,
            what: what.into(),
        }
    }

    /// The cursor's answer, its failure as `Corrupt` naming the file.
    fn checked<T>(&self, r: std::result::Result<T, Malformed>) -> Result<T> {
        r.map_err(|e| self.corrupt(e.at, e.what))
    }

    fn u32(&mut self, what: &str) -> Result<u32> {
        let r = self.c.u32(what);
        self.checked(r)
    }

    fn u64(&mut self, what: &str) -> Result<u64> {
        let r = self.c.u64(what);
        self.checked(r)
    }

    fn count(&mut self, n: u64, size: u64, what: &str) -> Result<usize> {
        let r = self.c.count(n, size, what);
        self.checked(r)
    }

    fn bytes(&mut self, what: &str) -> Result<&'a [u8]> {
        let r = self.c.bytes(what);
        self.checked(r)
    }

    /// A property list: count, then key index and value each.
    fn props(&mut self, keys: &[Arc<str>]) -> Result<Vec<(Arc<str>, Stored)>> {
        let np = self.u32("a property count")?;
        let np = self.count(u64::from(np), 8, "property")?;
        let mut props = Vec::with_capacity(np);
        for _ in 0..np {
            let at = self.c.at;
            let k = self.u32("a key")?;
            let key = keys
                .get(k as usize)
                .cloned()
                .ok_or_else(|| self.corrupt(at, format!("key {k} is not in the name table")))?;
            let at = self.c.at + 4;
            let value = Value::decode(self.bytes("a value")?)
                .map_err(|e| self.corrupt(at + e.offset, format!("property value: {}", e.what)))?;
            props.push((key, Stored::owned(value)));
        }
        Ok(props)
    }

    fn names(&mut self, what: &str) -> Result<Vec<Arc<str>>> {
        let n = self.u32(what)?;
        let n = self.count(u64::from(n), 4, what)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            let at = self.c.at;
            let r = self.c.str(what);
            let name = self.checked(r)?;
            if let Some(why) = super::names::check(name) {
                return Err(self.corrupt(at, format!("{what} {name:?} {why}")));
            }
            out.push(Arc::from(name));
        }
        Ok(out)
    }
}

/// Decodes a properties file read from `file` (named in errors).
pub(crate) fn decode(bytes: &[u8], file: &str) -> Result<Contents> {
    let body = bytes.len().saturating_sub(4);
    let mut r = Reader {
        c: Cursor::new(&bytes[..body], 8, "the file"),
        file,
    };
    if bytes.len() < 8 + 4 + 8 + 4 || &bytes[..8] != MAGIC {
        return Err(r.corrupt(
            0,
            "not a stratagraph properties file (bad magic or too short)",
        ));
    }
    if crc32c::crc32c(&bytes[..body]) != u32_at(bytes, body) {
        return Err(r.corrupt(body, "properties file checksum does not match its content"));
    }
    let version = r.u32("the version")?;
    if version != VERSION && version != 1 {
        return Err(Error::UnsupportedFormat {
            file: file.to_owned(),
            found: version,
            supported: VERSION,
        });
    }
    let cut = r.u64("the cut")?;
    let keys = r.names("a key name")?;
    let labels = r.names("a label name")?;
    let ni = r.u32("the index count")?;
    let ni = r.count(u64::from(ni), 8, "index")?;
    let mut indexes = Vec::with_capacity(ni);
    for _ in 0..ni {
        let at = r.c.at;
        let (l, k) = (r.u32("an index label")?, r.u32("an index key")?);
        match (labels.get(l as usize), keys.get(k as usize)) {
            (Some(l), Some(k)) => indexes.push((l.clone(), k.clone())),
            _ => return Err(r.corrupt(at, "an index names a label or key not in the name tables")),
        }
    }
    let n = r.u64("the vertex count")?;
    let n = r.count(n, 12, "vertex")?;
    let mut out: Vec<VertexProps> = Vec::with_capacity(n);
    for _ in 0..n {
        let at = r.c.at;
        let v = r.u32("a vertex")?;
        if out.last().is_some_and(|(last, _, _)| *last >= v) {
            return Err(r.corrupt(at, "vertices are not in ascending order"));
        }
        let at = r.c.at;
        let label = match r.u32("a label")? {
            NO_LABEL => None,
            l => Some(
                labels
                    .get(l as usize)
                    .cloned()
                    .ok_or_else(|| r.corrupt(at, format!("label {l} is not in the name table")))?,
            ),
        };
        let props = r.props(&keys)?;
        out.push((v, label, props));
    }
    let (mut next_edge, mut edges): (u64, Vec<FileEdge>) = (1, Vec::new());
    let mut vertex_keys = Vec::new();
    if version >= 2 {
        next_edge = r.u64("the next edge id")?;
        let n = r.u64("the edge count")?;
        let n = r.count(n, 24, "edge")?;
        edges.reserve(n);
        for _ in 0..n {
            let at = r.c.at;
            let id = r.u64("an edge id")?;
            if edges.last().is_some_and(|(last, ..)| *last >= id) || id >= next_edge {
                return Err(r.corrupt(
                    at,
                    format!("edge id {id} is not ascending or not below the next id {next_edge}"),
                ));
            }
            let (src, dst) = (r.u32("a source")?, r.u32("a destination")?);
            let at = r.c.at;
            let l = r.u32("an edge label")?;
            let label = labels
                .get(l as usize)
                .cloned()
                .ok_or_else(|| r.corrupt(at, format!("label {l} is not in the name table")))?;
            let props = r.props(&keys)?;
            edges.push((id, src, dst, label, props));
        }
        let n = r.u64("the vertex key count")?;
        let n = r.count(n, 4, "vertex key")?;
        vertex_keys.reserve(n);
        for _ in 0..n {
            let at = r.c.at;
            let s = r.c.str("a vertex key");
            let k = r.checked(s)?;
            if let Some(why) = super::names::check(k) {
                return Err(r.corrupt(at, format!("vertex key {k:?} {why}")));
            }
            vertex_keys.push(Arc::from(k));
        }
    }
    if r.c.left() != 0 {
        return Err(r.corrupt(r.c.at, "bytes follow the last edge"));
    }
    Ok(Contents {
        cut,
        indexes,
        vertices: out,
        next_edge,
        edges,
        keys: vertex_keys,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn sample() -> Contents {
        Contents {
            cut: 17,
            indexes: vec![(Arc::from("person"), Arc::from("name"))],
            vertices: sample_vertices(),
            next_edge: 8,
            edges: vec![
                (2, 1, 4, Arc::from("knows"), vec![]),
                (
                    7,
                    1,
                    4,
                    Arc::from("knows"),
                    vec![(Arc::from("weight"), Stored::owned(Value::Float64(0.5)))],
                ),
            ],
            keys: vec![Arc::from("marko"), Arc::from("vadas")],
        }
    }

    fn sample_vertices() -> Vec<VertexProps> {
        vec![
            (
                1,
                Some(Arc::from("person")),
                vec![
                    (
                        Arc::from("name"),
                        Stored::owned(Value::String("marko".into())),
                    ),
                    (Arc::from("age"), Stored::owned(Value::Int32(29))),
                ],
            ),
            (
                4,
                None,
                vec![(Arc::from("age"), Stored::owned(Value::Int64(3)))],
            ),
            (9, Some(Arc::from("software")), vec![]),
        ]
    }

    #[test]
    fn a_file_reads_back_what_was_written() {
        let b = encode(&sample());
        assert_eq!(decode(&b, "f").unwrap(), sample());
    }

    #[test]
    fn damage_is_refused_by_offset() {
        let mut b = encode(&sample());
        b[30] ^= 1;
        let err = decode(&b, "props-1.dat").unwrap_err();
        assert!(err.to_string().contains("checksum"), "{err}");
        let b = encode(&sample());
        assert!(decode(&b[..b.len() - 1], "f").is_err());
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(
            junk in proptest::collection::vec(any::<u8>(), 0..200),
            cut in any::<prop::sample::Index>(),
            flip in any::<prop::sample::Index>(),
        ) {
            let _ = decode(&junk, "f");
            let b = encode(&sample());
            let _ = decode(&b[..cut.index(b.len() + 1)], "f");
            // With the checksum fixed up, damage reaches the field checks.
            let mut f = b.clone();
            let i = 12 + flip.index(f.len() - 16);
            f[i] ^= 1 << (i % 8);
            let body = f.len() - 4;
            let crc = crc32c::crc32c(&f[..body]);
            f[body..].copy_from_slice(&crc.to_le_bytes());
            let _ = decode(&f, "f");
        }
    }
}
