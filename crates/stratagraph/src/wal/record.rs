//! What one log record says, and its payload bytes (the framing around a
//! payload is `frame.rs`'s business).
//!
//! Operations name vertices by external id, so a record means the same
//! thing whatever internal ids a recovering store hands out; the `Ids`
//! records carry the internal ids themselves, so recovery can rebuild the
//! dictionary exactly and refuse a log that contradicts it.
//!
//! ```text
//! Ids            kind 1 | first u32 | n u32 | n x external u64
//! Txn            kind 2 | ts u64 | nv u32 | nv x (external u64, change u8)
//!                       | ne u32 | ne x (src u64, dst u64, put u8, weight f64)
//! InsertEdges    kind 3 | ts u64 | n u64 | n x (src u64, dst u64, weight f64)
//! DeleteEdges    kind 4 | ts u64 | n u64 | n x (src u64, dst u64)
//! InsertVertices kind 5 | ts u64 | n u64 | n x external u64
//! TxnProps       kind 6 | a Txn's fields | nl u32 | nl x (external u64, label str)
//!                       | np u32 | np x (external u64, key str, put u8, [value])
//! CreateIndex    kind 7 | ts u64 | label str | key str
//! TxnEdges       kind 8 | a TxnProps's fields | nx u32 | nx x edge write
//! Keys           kind 9 | first u64 | n u32 | n x str
//! IdRuns         kind 10 | first u32 | n u32 | r u32 | r x (external u64, len u32)
//! VertexRuns     kind 11 | ts u64 | n u64 | r u32 | r x (external u64, len u32)
//! ```
//!
//! Kinds 10 and 11 are kinds 1 and 5 with the ids as runs of consecutive
//! ids (`ExtIds::Runs`), written when that takes fewer bytes: creating a
//! million vertices numbered in order logs two records of a few dozen
//! bytes instead of two of 8 MB.
//!
//! An edge write (property edges, in the order they apply) is a tag u8 and
//! an edge id u64, then for tag 1 (add) src u64, dst u64, label str; for 2
//! (remove) nothing; for 3 (set a property) key str, value; for 4 (remove
//! a property) key str.
//!
//! `str` is a length u32 and that many bytes of UTF-8; `value` is a length
//! u32 and the value's encoding (`docs/FORMAT.md` §5), present when `put`
//! is 1 (set) and absent when it is 0 (removed). A transaction with no
//! label or property write is logged as kind 2, one with no edge write as
//! kind 6.
//!
//! `change`: 1 created, 2 deleted, 3 deleted then created again. `put`: 1
//! insert or re-weight with `weight`, 0 delete (`weight` is 0 and ignored).

use crate::error::VertexId;
use crate::props::names;
use crate::util::le::Cursor;
use crate::value::Value;

const IDS: u8 = 1;
const TXN: u8 = 2;
const INSERT_EDGES: u8 = 3;
const DELETE_EDGES: u8 = 4;
const INSERT_VERTICES: u8 = 5;
const TXN_PROPS: u8 = 6;
const CREATE_INDEX: u8 = 7;
const TXN_EDGES: u8 = 8;
const KEYS: u8 = 9;
const IDS_RUNS: u8 = 10;
const INSERT_VERTICES_RUNS: u8 = 11;

/// External vertex ids as a record holds them, in order: listed one by
/// one, or as runs of consecutive ids. Runs stay runs in memory, so a
/// record's size in memory follows its bytes, not the count it stands for.
#[derive(Debug, Clone)]
pub(crate) enum ExtIds {
    Listed(Vec<VertexId>),
    /// `(first, len)`: ids `first..first + len`, `len >= 1`.
    Runs(Vec<(VertexId, u32)>),
}

impl ExtIds {
    /// How many ids.
    pub(crate) fn len(&self) -> u64 {
        match self {
            ExtIds::Listed(v) => v.len() as u64,
            ExtIds::Runs(r) => r.iter().map(|&(_, n)| u64::from(n)).sum(),
        }
    }

    /// The ids, in order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = VertexId> + '_ {
        let (listed, runs) = match self {
            ExtIds::Listed(v) => (&v[..], &[][..]),
            ExtIds::Runs(r) => (&[][..], &r[..]),
        };
        listed.iter().copied().chain(
            runs.iter()
                .flat_map(|&(first, n)| (0..u64::from(n)).map(move |i| first + i)),
        )
    }

    /// The ids as a list; a listed record hands over its own.
    pub(crate) fn into_vec(self) -> Vec<VertexId> {
        match self {
            ExtIds::Listed(v) => v,
            ExtIds::Runs(_) => self.iter().collect(),
        }
    }
}

impl PartialEq for ExtIds {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

/// The runs of consecutive ids in `ids`, if 12 bytes a run take fewer
/// than 8 an id; counted before any is kept, so a list without runs costs
/// no allocation.
fn runs_of(ids: &[VertexId]) -> Option<Vec<(VertexId, u32)>> {
    let continues = |run: (VertexId, u32), next: VertexId| {
        run.1 < u32::MAX && run.0.checked_add(u64::from(run.1)) == Some(next)
    };
    let mut count = 0usize;
    let mut run = (0, 0);
    for &id in ids {
        if run.1 > 0 && continues(run, id) {
            run.1 += 1;
        } else {
            count += 1;
            run = (id, 1);
        }
    }
    if count * 12 >= ids.len() * 8 {
        return None;
    }
    let mut runs = Vec::with_capacity(count);
    for &id in ids {
        match runs.last_mut() {
            Some(last) if continues(*last, id) => last.1 += 1,
            _ => runs.push((id, 1)),
        }
    }
    Some(runs)
}

fn put_runs(b: &mut Vec<u8>, runs: &[(VertexId, u32)]) {
    put_u32(b, runs.len() as u32);
    for &(first, n) in runs {
        put_u64(b, first);
        put_u32(b, n);
    }
}

/// A transaction's net effect on one vertex's existence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VertexChange {
    /// Exists afterwards (created unless already present).
    Created,
    /// Deleted with all its edges.
    Deleted,
    /// Deleted, then created again: old edges gone, vertex present.
    Recreated,
}

/// One logged property write: vertex, key, value (`None`: removed).
pub(crate) type PropWrite = (VertexId, String, Option<Value>);

/// One logged write to property edges.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EdgeWrite {
    /// Edge `id` created from `src` to `dst` with `label`.
    Add {
        id: u64,
        src: VertexId,
        dst: VertexId,
        label: String,
    },
    /// Edge `id` deleted.
    Remove(u64),
    /// Property `key` of edge `id` set, or removed (`None`).
    Property(u64, String, Option<Value>),
}

/// One decoded record.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Record {
    /// Internal ids `first..first + exts.len()` were assigned to `exts`.
    Ids { first: u32, exts: ExtIds },
    /// Vertex ids `first..` were given to these keys (`keys.rs`).
    Keys { first: u64, keys: Vec<String> },
    /// A transaction's net writes, committed at `ts`.
    Txn {
        ts: u64,
        vertices: Vec<(VertexId, VertexChange)>,
        edges: Vec<(VertexId, VertexId, Option<f64>)>,
        /// Labels of vertices it created.
        labels: Vec<(VertexId, String)>,
        /// Property writes: a value, or removed (`None`), in the order made.
        props: Vec<PropWrite>,
        /// Property edge writes, in the order they apply.
        edge_writes: Vec<EdgeWrite>,
    },
    /// `Graph::insert_edges`, exactly as called.
    InsertEdges {
        ts: u64,
        edges: Vec<(VertexId, VertexId, f64)>,
    },
    /// `Graph::delete_edges`, exactly as called.
    DeleteEdges {
        ts: u64,
        edges: Vec<(VertexId, VertexId)>,
    },
    /// `Graph::insert_vertices`, exactly as called.
    InsertVertices { ts: u64, vertices: ExtIds },
    /// `Graph::create_index` on (label, key).
    CreateIndex { ts: u64, label: String, key: String },
}

impl Record {
    /// The commit timestamp (`None` for `Ids`, which is not a commit).
    pub(crate) fn ts(&self) -> Option<u64> {
        match self {
            Record::Ids { .. } | Record::Keys { .. } => None,
            Record::Txn { ts, .. }
            | Record::InsertEdges { ts, .. }
            | Record::DeleteEdges { ts, .. }
            | Record::InsertVertices { ts, .. }
            | Record::CreateIndex { ts, .. } => Some(*ts),
        }
    }
}

fn put_u32(b: &mut Vec<u8>, x: u32) {
    b.extend_from_slice(&x.to_le_bytes());
}

fn put_u64(b: &mut Vec<u8>, x: u64) {
    b.extend_from_slice(&x.to_le_bytes());
}

/// Appends the payload of an `Ids` record.
pub(crate) fn encode_ids(b: &mut Vec<u8>, first: u32, exts: &[VertexId]) {
    put_ids(b, (IDS, IDS_RUNS), exts, |b| {
        put_u32(b, first);
        put_u32(b, exts.len() as u32);
    });
}

/// Appends a record whose ids end it: the listed kind, or the runs kind
/// when runs are smaller (`runs_of`), then the fields `head` writes, then
/// the ids as that kind holds them.
fn put_ids(
    b: &mut Vec<u8>,
    (listed, as_runs): (u8, u8),
    ids: &[VertexId],
    head: impl FnOnce(&mut Vec<u8>),
) {
    let runs = runs_of(ids);
    b.push(if runs.is_some() { as_runs } else { listed });
    head(b);
    match runs {
        Some(runs) => put_runs(b, &runs),
        None => {
            b.reserve(8 * ids.len());
            for &id in ids {
                put_u64(b, id);
            }
        }
    }
}

fn put_str(b: &mut Vec<u8>, s: &str) {
    put_u32(b, s.len() as u32);
    b.extend_from_slice(s.as_bytes());
}

/// Appends the payload of a `Keys` record.
pub(crate) fn encode_keys(b: &mut Vec<u8>, first: u64, keys: &[String]) {
    b.push(KEYS);
    put_u64(b, first);
    put_u32(b, keys.len() as u32);
    for k in keys {
        put_str(b, k);
    }
}

/// A transaction's label, property and property edge writes, for its
/// record.
pub(crate) struct PropWrites<'e, L, P> {
    pub labels: L,
    pub props: P,
    pub edges: &'e [EdgeWrite],
}

fn put_value(b: &mut Vec<u8>, value: &Value) {
    let at = b.len();
    put_u32(b, 0);
    value
        .encode(b)
        .expect("values are checked when they are written");
    let len = (b.len() - at - 4) as u32;
    b[at..at + 4].copy_from_slice(&len.to_le_bytes());
}

/// Appends the payload of a `Txn` record (kind 6 if it writes labels or
/// properties). Values were checked when written, so they encode.
pub(crate) fn encode_txn<'a>(
    b: &mut Vec<u8>,
    ts: u64,
    vertices: impl ExactSizeIterator<Item = (VertexId, VertexChange)>,
    edges: impl ExactSizeIterator<Item = (VertexId, VertexId, Option<f64>)>,
    writes: PropWrites<
        '_,
        impl ExactSizeIterator<Item = (VertexId, &'a str)>,
        impl ExactSizeIterator<Item = (VertexId, &'a str, Option<&'a Value>)>,
    >,
) {
    let with_edges = !writes.edges.is_empty();
    let with_props = with_edges || writes.labels.len() + writes.props.len() > 0;
    b.push(if with_edges {
        TXN_EDGES
    } else if with_props {
        TXN_PROPS
    } else {
        TXN
    });
    put_u64(b, ts);
    put_u32(b, vertices.len() as u32);
    for (v, change) in vertices {
        put_u64(b, v);
        b.push(match change {
            VertexChange::Created => 1,
            VertexChange::Deleted => 2,
            VertexChange::Recreated => 3,
        });
    }
    put_u32(b, edges.len() as u32);
    for (s, d, w) in edges {
        put_u64(b, s);
        put_u64(b, d);
        b.push(u8::from(w.is_some()));
        b.extend_from_slice(&w.unwrap_or(0.0).to_le_bytes());
    }
    if !with_props {
        return;
    }
    put_u32(b, writes.labels.len() as u32);
    for (v, label) in writes.labels {
        put_u64(b, v);
        put_str(b, label);
    }
    put_u32(b, writes.props.len() as u32);
    for (v, key, value) in writes.props {
        put_u64(b, v);
        put_str(b, key);
        b.push(u8::from(value.is_some()));
        if let Some(value) = value {
            put_value(b, value);
        }
    }
    if !with_edges {
        return;
    }
    put_u32(b, writes.edges.len() as u32);
    for w in writes.edges {
        match w {
            EdgeWrite::Add {
                id,
                src,
                dst,
                label,
            } => {
                b.push(1);
                put_u64(b, *id);
                put_u64(b, *src);
                put_u64(b, *dst);
                put_str(b, label);
            }
            EdgeWrite::Remove(id) => {
                b.push(2);
                put_u64(b, *id);
            }
            EdgeWrite::Property(id, key, value) => {
                b.push(if value.is_some() { 3 } else { 4 });
                put_u64(b, *id);
                put_str(b, key);
                if let Some(value) = value {
                    put_value(b, value);
                }
            }
        }
    }
}

/// Appends the payload of an `InsertEdges` record.
pub(crate) fn encode_insert_edges(b: &mut Vec<u8>, ts: u64, edges: &[(VertexId, VertexId, f64)]) {
    b.reserve(17 + 24 * edges.len());
    b.push(INSERT_EDGES);
    put_u64(b, ts);
    put_u64(b, edges.len() as u64);
    for &(s, d, w) in edges {
        put_u64(b, s);
        put_u64(b, d);
        b.extend_from_slice(&w.to_le_bytes());
    }
}

/// Appends the payload of a `DeleteEdges` record.
pub(crate) fn encode_delete_edges(b: &mut Vec<u8>, ts: u64, edges: &[(VertexId, VertexId)]) {
    b.reserve(17 + 16 * edges.len());
    b.push(DELETE_EDGES);
    put_u64(b, ts);
    put_u64(b, edges.len() as u64);
    for &(s, d) in edges {
        put_u64(b, s);
        put_u64(b, d);
    }
}

/// Appends the payload of a `CreateIndex` record.
pub(crate) fn encode_create_index(b: &mut Vec<u8>, ts: u64, label: &str, key: &str) {
    b.push(CREATE_INDEX);
    put_u64(b, ts);
    put_str(b, label);
    put_str(b, key);
}

/// Appends the payload of an `InsertVertices` record.
pub(crate) fn encode_insert_vertices(b: &mut Vec<u8>, ts: u64, vertices: &[VertexId]) {
    put_ids(b, (INSERT_VERTICES, INSERT_VERTICES_RUNS), vertices, |b| {
        put_u64(b, ts);
        put_u64(b, vertices.len() as u64);
    });
}

/// A payload that does not decode: the offset inside the payload and what
/// was wrong there (the caller adds the file and the record's position).
pub(crate) use crate::util::le::Malformed as BadPayload;

/// Reads fields off a payload, failing (never panicking) past its end.
struct Reader<'a> {
    c: Cursor<'a>,
}

impl Reader<'_> {
    fn u8(&mut self, what: &str) -> Result<u8, BadPayload> {
        self.c.u8(what)
    }

    fn u32(&mut self, what: &str) -> Result<u32, BadPayload> {
        self.c.u32(what)
    }

    fn u64(&mut self, what: &str) -> Result<u64, BadPayload> {
        self.c.u64(what)
    }

    /// See `Cursor::count`.
    fn count(&mut self, n: u64, size: usize, what: &str) -> Result<usize, BadPayload> {
        self.c.count(n, size as u64, what)
    }

    fn weight(&mut self) -> Result<f64, BadPayload> {
        let at = self.c.at;
        let w = f64::from_bits(self.c.u64("a weight")?);
        if w.is_finite() {
            Ok(w)
        } else {
            Err(BadPayload {
                at,
                what: format!("weight {w} is not finite"),
            })
        }
    }

    /// A key or label: UTF-8 and a valid name.
    fn name(&mut self, what: &str) -> Result<String, BadPayload> {
        let at = self.c.at;
        let name = self.c.str(what)?;
        if let Some(why) = names::check(name) {
            return Err(BadPayload {
                at,
                what: format!("{what} {why}"),
            });
        }
        Ok(name.to_owned())
    }

    fn value(&mut self) -> Result<Value, BadPayload> {
        let at = self.c.at + 4;
        let bytes = self.c.bytes("a value")?;
        Value::decode(bytes).map_err(|e| BadPayload {
            at: at + e.offset,
            what: format!("property value: {}", e.what),
        })
    }

    /// A run count and that many runs of consecutive ids, which must
    /// stand for exactly `n` ids.
    fn runs(&mut self, n: u64) -> Result<ExtIds, BadPayload> {
        let count = self.u32("the run count")?;
        let count = self.count(u64::from(count), 12, "run")?;
        let mut runs = Vec::with_capacity(count);
        let mut total = 0u64;
        for _ in 0..count {
            let at = self.c.at;
            let first = self.u64("a run's first id")?;
            let len = self.u32("a run's length")?;
            if len == 0 || first.checked_add(u64::from(len) - 1).is_none() {
                return Err(BadPayload {
                    at,
                    what: format!("a run of {len} ids from {first}"),
                });
            }
            total += u64::from(len);
            runs.push((first, len));
        }
        if total != n {
            return Err(BadPayload {
                at: self.c.at,
                what: format!("runs of {total} ids where the record counts {n}"),
            });
        }
        Ok(ExtIds::Runs(runs))
    }

    fn ts(&mut self) -> Result<u64, BadPayload> {
        let at = self.c.at;
        let ts = self.u64("a timestamp")?;
        if ts == 0 {
            return Err(BadPayload {
                at,
                what: "commit timestamp 0".into(),
            });
        }
        Ok(ts)
    }
}

/// Decodes one payload; the whole payload must be used.
pub(crate) fn decode(payload: &[u8]) -> Result<Record, BadPayload> {
    let mut r = Reader {
        c: Cursor::new(payload, 0, "the payload"),
    };
    let rec = match r.u8("the record kind")? {
        IDS => {
            let first = r.u32("the first id")?;
            let n = r.u32("the id count")?;
            let n = r.count(u64::from(n), 8, "id")?;
            if u64::from(first) + n as u64 > crate::ids::MAX_IDS {
                return Err(BadPayload {
                    at: 1,
                    what: format!("ids {first}+{n} exceed the id space"),
                });
            }
            let exts = (0..n).map(|_| r.u64("an id")).collect::<Result<_, _>>()?;
            Record::Ids {
                first,
                exts: ExtIds::Listed(exts),
            }
        }
        IDS_RUNS => {
            let first = r.u32("the first id")?;
            let n = r.u32("the id count")?;
            if u64::from(first) + u64::from(n) > crate::ids::MAX_IDS {
                return Err(BadPayload {
                    at: 1,
                    what: format!("ids {first}+{n} exceed the id space"),
                });
            }
            let exts = r.runs(u64::from(n))?;
            Record::Ids { first, exts }
        }
        kind @ (TXN | TXN_PROPS | TXN_EDGES) => {
            let ts = r.ts()?;
            let nv = r.u32("the vertex count")?;
            let nv = r.count(u64::from(nv), 9, "vertex")?;
            let mut vertices = Vec::with_capacity(nv);
            for _ in 0..nv {
                let v = r.u64("a vertex")?;
                let at = r.c.at;
                let change = match r.u8("a vertex change")? {
                    1 => VertexChange::Created,
                    2 => VertexChange::Deleted,
                    3 => VertexChange::Recreated,
                    c => {
                        return Err(BadPayload {
                            at,
                            what: format!("vertex change {c} is not 1, 2 or 3"),
                        })
                    }
                };
                vertices.push((v, change));
            }
            let ne = r.u32("the edge count")?;
            let ne = r.count(u64::from(ne), 25, "edge")?;
            let mut edges = Vec::with_capacity(ne);
            for _ in 0..ne {
                let s = r.u64("a source")?;
                let d = r.u64("a destination")?;
                let at = r.c.at;
                let put = r.u8("an edge kind")?;
                let w = r.weight()?;
                let w = match put {
                    1 => Some(w),
                    0 => None,
                    k => {
                        return Err(BadPayload {
                            at,
                            what: format!("edge kind {k} is not 0 or 1"),
                        })
                    }
                };
                edges.push((s, d, w));
            }
            let (mut labels, mut props) = (Vec::new(), Vec::new());
            if kind != TXN {
                let nl = r.u32("the label count")?;
                let nl = r.count(u64::from(nl), 12, "label")?;
                for _ in 0..nl {
                    labels.push((r.u64("a vertex")?, r.name("a label")?));
                }
                let np = r.u32("the property count")?;
                let np = r.count(u64::from(np), 13, "property")?;
                for _ in 0..np {
                    let v = r.u64("a vertex")?;
                    let key = r.name("a property key")?;
                    let at = r.c.at;
                    let value = match r.u8("a property write kind")? {
                        1 => Some(r.value()?),
                        0 => None,
                        k => {
                            return Err(BadPayload {
                                at,
                                what: format!("property write kind {k} is not 0 or 1"),
                            })
                        }
                    };
                    props.push((v, key, value));
                }
            }
            let mut edge_writes = Vec::new();
            if kind == TXN_EDGES {
                let nx = r.u32("the edge write count")?;
                let nx = r.count(u64::from(nx), 9, "edge write")?;
                for _ in 0..nx {
                    let at = r.c.at;
                    let tag = r.u8("an edge write kind")?;
                    let id = r.u64("an edge id")?;
                    edge_writes.push(match tag {
                        1 => EdgeWrite::Add {
                            id,
                            src: r.u64("a source")?,
                            dst: r.u64("a destination")?,
                            label: r.name("an edge label")?,
                        },
                        2 => EdgeWrite::Remove(id),
                        3 => EdgeWrite::Property(id, r.name("a property key")?, Some(r.value()?)),
                        4 => EdgeWrite::Property(id, r.name("a property key")?, None),
                        k => {
                            return Err(BadPayload {
                                at,
                                what: format!("edge write kind {k} is not 1, 2, 3 or 4"),
                            })
                        }
                    });
                }
            }
            Record::Txn {
                ts,
                vertices,
                edges,
                labels,
                props,
                edge_writes,
            }
        }
        INSERT_EDGES => {
            let ts = r.ts()?;
            let n = r.u64("the edge count")?;
            let n = r.count(n, 24, "edge")?;
            let mut edges = Vec::with_capacity(n);
            for _ in 0..n {
                edges.push((r.u64("a source")?, r.u64("a destination")?, r.weight()?));
            }
            Record::InsertEdges { ts, edges }
        }
        DELETE_EDGES => {
            let ts = r.ts()?;
            let n = r.u64("the edge count")?;
            let n = r.count(n, 16, "edge")?;
            let mut edges = Vec::with_capacity(n);
            for _ in 0..n {
                edges.push((r.u64("a source")?, r.u64("a destination")?));
            }
            Record::DeleteEdges { ts, edges }
        }
        KEYS => {
            let first = r.u64("the first key id")?;
            let n = r.u32("the key count")?;
            let n = r.count(u64::from(n), 4, "key")?;
            let keys = (0..n)
                .map(|_| r.name("a vertex key"))
                .collect::<Result<_, _>>()?;
            Record::Keys { first, keys }
        }
        CREATE_INDEX => Record::CreateIndex {
            ts: r.ts()?,
            label: r.name("a label")?,
            key: r.name("a property key")?,
        },
        INSERT_VERTICES => {
            let ts = r.ts()?;
            let n = r.u64("the vertex count")?;
            let n = r.count(n, 8, "vertex")?;
            let vertices = (0..n)
                .map(|_| r.u64("a vertex"))
                .collect::<Result<_, _>>()?;
            Record::InsertVertices {
                ts,
                vertices: ExtIds::Listed(vertices),
            }
        }
        INSERT_VERTICES_RUNS => {
            let ts = r.ts()?;
            let n = r.u64("the vertex count")?;
            if n > crate::ids::MAX_IDS {
                // Replay lists the batch's ids: a count no store can hold
                // is damage, not a batch.
                return Err(BadPayload {
                    at: 9,
                    what: format!("a batch of {n} vertices exceeds the id space"),
                });
            }
            let vertices = r.runs(n)?;
            Record::InsertVertices { ts, vertices }
        }
        k => {
            return Err(BadPayload {
                at: 0,
                what: format!("unknown record kind {k}"),
            })
        }
    };
    if r.c.at != payload.len() {
        return Err(BadPayload {
            at: r.c.at,
            what: format!("{} bytes left after the record", payload.len() - r.c.at),
        });
    }
    Ok(rec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn encode(rec: &Record) -> Vec<u8> {
        let mut b = Vec::new();
        match rec {
            Record::Ids { first, exts } => {
                encode_ids(&mut b, *first, &exts.iter().collect::<Vec<_>>())
            }
            Record::Keys { first, keys } => encode_keys(&mut b, *first, keys),
            Record::Txn {
                ts,
                vertices,
                edges,
                labels,
                props,
                edge_writes,
            } => encode_txn(
                &mut b,
                *ts,
                vertices.iter().copied(),
                edges.iter().copied(),
                PropWrites {
                    labels: labels.iter().map(|(v, l)| (*v, l.as_str())),
                    props: props.iter().map(|(v, k, x)| (*v, k.as_str(), x.as_ref())),
                    edges: edge_writes,
                },
            ),
            Record::InsertEdges { ts, edges } => encode_insert_edges(&mut b, *ts, edges),
            Record::DeleteEdges { ts, edges } => encode_delete_edges(&mut b, *ts, edges),
            Record::InsertVertices { ts, vertices } => {
                encode_insert_vertices(&mut b, *ts, &vertices.iter().collect::<Vec<_>>())
            }
            Record::CreateIndex { ts, label, key } => encode_create_index(&mut b, *ts, label, key),
        }
        b
    }

    /// Ids with runs in them (and without): consecutive stretches of
    /// random lengths from random starts, some near the largest id.
    fn ext_ids() -> impl Strategy<Value = ExtIds> {
        prop::collection::vec(
            (
                prop_oneof![any::<u64>(), Just(u64::MAX - 3), 0u64..10],
                1u64..40,
            ),
            0..6,
        )
        .prop_map(|parts| {
            let ids = parts
                .into_iter()
                .flat_map(|(s, n)| (0..n).map_while(move |i| s.checked_add(i)))
                .collect();
            ExtIds::Listed(ids)
        })
    }

    fn change() -> impl Strategy<Value = VertexChange> {
        prop_oneof![
            Just(VertexChange::Created),
            Just(VertexChange::Deleted),
            Just(VertexChange::Recreated)
        ]
    }

    fn edge_write() -> impl Strategy<Value = EdgeWrite> {
        prop_oneof![
            (any::<u64>(), any::<u64>(), any::<u64>(), "[a-z]{1,5}").prop_map(
                |(id, src, dst, label)| EdgeWrite::Add {
                    id,
                    src,
                    dst,
                    label
                }
            ),
            any::<u64>().prop_map(EdgeWrite::Remove),
            (
                any::<u64>(),
                "[a-z]{1,5}",
                prop::option::of(any::<i64>().prop_map(Value::Int64))
            )
                .prop_map(|(id, k, v)| EdgeWrite::Property(id, k, v)),
        ]
    }

    fn record() -> impl Strategy<Value = Record> {
        let w = -1e9f64..1e9;
        prop_oneof![
            (0u32..1000, ext_ids()).prop_map(|(first, exts)| Record::Ids { first, exts }),
            (any::<u64>(), prop::collection::vec("[a-z]{1,6}", 0..4))
                .prop_map(|(first, keys)| Record::Keys { first, keys }),
            (
                1u64..u64::MAX,
                prop::collection::vec((any::<u64>(), change()), 0..6),
                prop::collection::vec(
                    (any::<u64>(), any::<u64>(), prop::option::of(w.clone())),
                    0..6
                ),
                prop::collection::vec((any::<u64>(), "[a-z]{1,5}"), 0..3),
                prop::collection::vec(
                    (
                        any::<u64>(),
                        "[a-z]{1,5}",
                        prop::option::of(prop_oneof![
                            any::<i32>().prop_map(Value::Int32),
                            ".{0,8}".prop_map(Value::String),
                            any::<f64>().prop_map(Value::Float64),
                        ])
                    ),
                    0..3
                ),
                prop::collection::vec(edge_write(), 0..4),
            )
                .prop_map(|(ts, vertices, edges, labels, props, edge_writes)| {
                    Record::Txn {
                        ts,
                        vertices,
                        edges,
                        labels,
                        props,
                        edge_writes,
                    }
                }),
            (
                1u64..u64::MAX,
                prop::collection::vec((any::<u64>(), any::<u64>(), w), 0..6)
            )
                .prop_map(|(ts, edges)| Record::InsertEdges { ts, edges }),
            (
                1u64..u64::MAX,
                prop::collection::vec((any::<u64>(), any::<u64>()), 0..6)
            )
                .prop_map(|(ts, edges)| Record::DeleteEdges { ts, edges }),
            (1u64..u64::MAX, ext_ids())
                .prop_map(|(ts, vertices)| Record::InsertVertices { ts, vertices }),
            (1u64..u64::MAX, "[a-z]{1,5}", "[a-z]{1,5}")
                .prop_map(|(ts, label, key)| Record::CreateIndex { ts, label, key }),
        ]
    }

    #[test]
    fn consecutive_ids_are_logged_as_runs() {
        let dense: Vec<u64> = (0..1_000_000).collect();
        let mut b = Vec::new();
        encode_insert_vertices(&mut b, 7, &dense);
        assert_eq!((b[0], b.len()), (INSERT_VERTICES_RUNS, 1 + 8 + 8 + 4 + 12));
        let rec = decode(&b).unwrap();
        let Record::InsertVertices { ts: 7, vertices } = &rec else {
            panic!("{rec:?}")
        };
        assert!(matches!(vertices, ExtIds::Runs(r) if r.len() == 1));
        assert_eq!(vertices.iter().collect::<Vec<_>>(), dense);
        let mut b = Vec::new();
        encode_ids(&mut b, 5, &[9, 10, 11, 12, 40, 41, 42, 43, 44]);
        assert_eq!((b[0], b.len()), (IDS_RUNS, 1 + 4 + 4 + 4 + 2 * 12));
        // Scattered ids stay listed: runs would not be smaller.
        let mut b = Vec::new();
        encode_ids(&mut b, 0, &[3, 1, 2, 9]);
        assert_eq!((b[0], b.len()), (IDS, 1 + 4 + 4 + 4 * 8));
        // A run stops at the largest id: 0 does not follow it.
        let wrap = [u64::MAX - 1, u64::MAX, 0, 1];
        let mut b = Vec::new();
        encode_insert_vertices(&mut b, 1, &wrap);
        let Ok(Record::InsertVertices { vertices, .. }) = decode(&b) else {
            panic!("{b:?}")
        };
        assert!(matches!(&vertices, ExtIds::Runs(r) if r.len() == 2));
        assert_eq!(vertices.iter().collect::<Vec<_>>(), wrap);
    }

    #[test]
    fn bad_runs_are_refused() {
        let runs = |n: u64, runs: &[(u64, u32)]| {
            let mut b = vec![INSERT_VERTICES_RUNS];
            put_u64(&mut b, 3);
            put_u64(&mut b, n);
            put_runs(&mut b, runs);
            decode(&b).map(drop).map_err(|e| e.what)
        };
        assert_eq!(runs(5, &[(1, 2), (10, 3)]), Ok(()));
        assert!(runs(6, &[(1, 2), (10, 3)])
            .unwrap_err()
            .contains("runs of 5 ids"));
        assert!(runs(2, &[(1, 2), (10, 0)])
            .unwrap_err()
            .contains("run of 0"));
        assert!(runs(3, &[(u64::MAX - 1, 3)])
            .unwrap_err()
            .contains("run of 3"));
        assert_eq!(runs(2, &[(u64::MAX - 1, 2)]), Ok(()));
        // A run count the payload cannot hold allocates nothing.
        let mut b = vec![INSERT_VERTICES_RUNS];
        put_u64(&mut b, 3);
        put_u64(&mut b, 1);
        put_u32(&mut b, u32::MAX);
        assert!(decode(&b).is_err());
        // Ids past the id space.
        let mut b = vec![IDS_RUNS];
        put_u32(&mut b, u32::MAX - 1);
        put_u32(&mut b, 4);
        put_runs(&mut b, &[(0, 4)]);
        assert!(decode(&b).unwrap_err().what.contains("id space"));
    }

    proptest! {
        #[test]
        fn every_record_round_trips(rec in record()) {
            prop_assert_eq!(decode(&encode(&rec)), Ok(rec));
        }

        /// The bounded fuzzer of the decoder: damaged payloads (cut, bit
        /// flipped, or arbitrary bytes) decode to an error or to some
        /// record, never a panic or a huge allocation.
        #[test]
        fn damaged_payloads_never_panic(
            rec in record(),
            cut in any::<prop::sample::Index>(),
            flip in any::<prop::sample::Index>(),
            junk in prop::collection::vec(any::<u8>(), 0..64),
        ) {
            let b = encode(&rec);
            let _ = decode(&b[..cut.index(b.len() + 1)]);
            let mut f = b.clone();
            let i = flip.index(f.len());
            f[i] ^= 1 << (i % 8);
            let _ = decode(&f);
            let _ = decode(&junk);
        }
    }

    #[test]
    fn a_huge_count_is_refused_before_allocating() {
        let mut b = vec![INSERT_EDGES];
        b.extend_from_slice(&5u64.to_le_bytes());
        b.extend_from_slice(&u64::MAX.to_le_bytes());
        let err = decode(&b).unwrap_err();
        assert_eq!(err.at, 17, "{err:?}");
        assert!(err.what.contains("does not fit"), "{err:?}");
    }
}
