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
//! ```
//!
//! `change`: 1 created, 2 deleted, 3 deleted then created again. `put`: 1
//! insert or re-weight with `weight`, 0 delete (`weight` is 0 and ignored).

use crate::error::VertexId;

const IDS: u8 = 1;
const TXN: u8 = 2;
const INSERT_EDGES: u8 = 3;
const DELETE_EDGES: u8 = 4;
const INSERT_VERTICES: u8 = 5;

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

/// One decoded record.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Record {
    /// Internal ids `first..first + exts.len()` were assigned to `exts`.
    Ids { first: u32, exts: Vec<VertexId> },
    /// A transaction's net writes, committed at `ts`.
    Txn {
        ts: u64,
        vertices: Vec<(VertexId, VertexChange)>,
        edges: Vec<(VertexId, VertexId, Option<f64>)>,
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
    InsertVertices { ts: u64, vertices: Vec<VertexId> },
}

impl Record {
    /// The commit timestamp (`None` for `Ids`, which is not a commit).
    pub(crate) fn ts(&self) -> Option<u64> {
        match self {
            Record::Ids { .. } => None,
            Record::Txn { ts, .. }
            | Record::InsertEdges { ts, .. }
            | Record::DeleteEdges { ts, .. }
            | Record::InsertVertices { ts, .. } => Some(*ts),
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
    b.reserve(9 + 8 * exts.len());
    b.push(IDS);
    put_u32(b, first);
    put_u32(b, exts.len() as u32);
    for &e in exts {
        put_u64(b, e);
    }
}

/// Appends the payload of a `Txn` record.
pub(crate) fn encode_txn(
    b: &mut Vec<u8>,
    ts: u64,
    vertices: impl ExactSizeIterator<Item = (VertexId, VertexChange)>,
    edges: impl ExactSizeIterator<Item = (VertexId, VertexId, Option<f64>)>,
) {
    b.push(TXN);
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

/// Appends the payload of an `InsertVertices` record.
pub(crate) fn encode_insert_vertices(b: &mut Vec<u8>, ts: u64, vertices: &[VertexId]) {
    b.reserve(17 + 8 * vertices.len());
    b.push(INSERT_VERTICES);
    put_u64(b, ts);
    put_u64(b, vertices.len() as u64);
    for &v in vertices {
        put_u64(b, v);
    }
}

/// A payload that does not decode: the offset inside the payload and what
/// was wrong there (the caller adds the file and the record's position).
#[derive(Debug, PartialEq)]
pub(crate) struct BadPayload {
    pub at: usize,
    pub what: String,
}

/// Reads fields off a payload, failing (never panicking) past its end.
struct Reader<'a> {
    b: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn take<const N: usize>(&mut self, what: &str) -> Result<[u8; N], BadPayload> {
        let end = self.at.checked_add(N).filter(|&e| e <= self.b.len());
        let Some(end) = end else {
            return Err(BadPayload {
                at: self.at,
                what: format!("payload ends inside {what}"),
            });
        };
        let mut a = [0u8; N];
        a.copy_from_slice(&self.b[self.at..end]);
        self.at = end;
        Ok(a)
    }

    fn u8(&mut self, what: &str) -> Result<u8, BadPayload> {
        Ok(self.take::<1>(what)?[0])
    }

    fn u32(&mut self, what: &str) -> Result<u32, BadPayload> {
        Ok(u32::from_le_bytes(self.take(what)?))
    }

    fn u64(&mut self, what: &str) -> Result<u64, BadPayload> {
        Ok(u64::from_le_bytes(self.take(what)?))
    }

    fn weight(&mut self) -> Result<f64, BadPayload> {
        let at = self.at;
        let w = f64::from_le_bytes(self.take("a weight")?);
        if w.is_finite() {
            Ok(w)
        } else {
            Err(BadPayload {
                at,
                what: format!("weight {w} is not finite"),
            })
        }
    }

    /// A count of items of `size` bytes each that must fit in what is left
    /// (checked before allocating, so a damaged count cannot exhaust memory).
    fn count(&mut self, n: u64, size: usize, what: &str) -> Result<usize, BadPayload> {
        let left = (self.b.len() - self.at) as u64;
        if n.checked_mul(size as u64).is_none_or(|need| need > left) {
            return Err(BadPayload {
                at: self.at,
                what: format!("{what} count {n} does not fit in the payload"),
            });
        }
        Ok(n as usize)
    }

    fn ts(&mut self) -> Result<u64, BadPayload> {
        let at = self.at;
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
    let mut r = Reader { b: payload, at: 0 };
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
            Record::Ids { first, exts }
        }
        TXN => {
            let ts = r.ts()?;
            let nv = r.u32("the vertex count")?;
            let nv = r.count(u64::from(nv), 9, "vertex")?;
            let mut vertices = Vec::with_capacity(nv);
            for _ in 0..nv {
                let v = r.u64("a vertex")?;
                let at = r.at;
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
                let at = r.at;
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
            Record::Txn {
                ts,
                vertices,
                edges,
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
        INSERT_VERTICES => {
            let ts = r.ts()?;
            let n = r.u64("the vertex count")?;
            let n = r.count(n, 8, "vertex")?;
            let vertices = (0..n)
                .map(|_| r.u64("a vertex"))
                .collect::<Result<_, _>>()?;
            Record::InsertVertices { ts, vertices }
        }
        k => {
            return Err(BadPayload {
                at: 0,
                what: format!("unknown record kind {k}"),
            })
        }
    };
    if r.at != payload.len() {
        return Err(BadPayload {
            at: r.at,
            what: format!("{} bytes left after the record", payload.len() - r.at),
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
            Record::Ids { first, exts } => encode_ids(&mut b, *first, exts),
            Record::Txn {
                ts,
                vertices,
                edges,
            } => encode_txn(&mut b, *ts, vertices.iter().copied(), edges.iter().copied()),
            Record::InsertEdges { ts, edges } => encode_insert_edges(&mut b, *ts, edges),
            Record::DeleteEdges { ts, edges } => encode_delete_edges(&mut b, *ts, edges),
            Record::InsertVertices { ts, vertices } => {
                encode_insert_vertices(&mut b, *ts, vertices)
            }
        }
        b
    }

    fn change() -> impl Strategy<Value = VertexChange> {
        prop_oneof![
            Just(VertexChange::Created),
            Just(VertexChange::Deleted),
            Just(VertexChange::Recreated)
        ]
    }

    fn record() -> impl Strategy<Value = Record> {
        let w = -1e9f64..1e9;
        prop_oneof![
            (0u32..1000, prop::collection::vec(any::<u64>(), 0..8))
                .prop_map(|(first, exts)| Record::Ids { first, exts }),
            (
                1u64..u64::MAX,
                prop::collection::vec((any::<u64>(), change()), 0..6),
                prop::collection::vec(
                    (any::<u64>(), any::<u64>(), prop::option::of(w.clone())),
                    0..6
                )
            )
                .prop_map(|(ts, vertices, edges)| Record::Txn {
                    ts,
                    vertices,
                    edges
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
            (1u64..u64::MAX, prop::collection::vec(any::<u64>(), 0..6))
                .prop_map(|(ts, vertices)| Record::InsertVertices { ts, vertices }),
        ]
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
