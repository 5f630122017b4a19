//! What the export and table tests share: a dump of a whole store through
//! the engine's read API (the expected side of every round trip), a graph
//! with every value type, and random graphs.

#![allow(clippy::unwrap_used, dead_code)] // tests fail loudly by design

use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use stratagraph::{DateTime, EdgeId, Graph, Options, Value};

/// Properties by key, each value as its encoded bytes (so an Int32 29 and
/// an Int64 29 differ).
pub type Props = BTreeMap<String, Vec<u8>>;

/// Every vertex (id, label, properties), property edge (source,
/// destination, label, properties) and weighted edge of a store.
#[derive(Debug, PartialEq, Eq)]
pub struct Dump {
    pub vertices: BTreeMap<String, (String, Props)>,
    pub edges: BTreeMap<EdgeId, (String, String, String, Props)>,
    pub weighted: BTreeSet<(String, String, u64)>,
}

pub fn encoded(props: Vec<(Arc<str>, Value)>) -> Props {
    props
        .into_iter()
        .map(|(k, v)| {
            let mut b = Vec::new();
            v.encode(&mut b).unwrap();
            (k.to_string(), b)
        })
        .collect()
}

pub fn dump(g: &Graph) -> Dump {
    let snap = g.snapshot();
    let name = |v: u64| snap.key_of(v).map_or(v.to_string(), |k| k.to_string());
    let mut d = Dump {
        vertices: BTreeMap::new(),
        edges: BTreeMap::new(),
        weighted: BTreeSet::new(),
    };
    for v in snap.vertices() {
        let id = snap.external_id(v).unwrap();
        let label = snap.label(id).unwrap().to_string();
        d.vertices
            .insert(name(id), (label, encoded(snap.properties(id).unwrap())));
        for (o, w) in snap.out_weighted_of(v) {
            let o = snap.external_id(o).unwrap();
            d.weighted.insert((name(id), name(o), w.to_bits()));
        }
    }
    for e in snap.edges() {
        let props = encoded(snap.edge_properties(e.id).unwrap());
        d.edges
            .insert(e.id, (name(e.src), name(e.dst), e.label.to_string(), props));
    }
    d
}

pub fn s(x: &str) -> Value {
    Value::String(x.into())
}

pub fn dt(seconds: i64, nanos: u32, offset: i32) -> Value {
    Value::DateTime(DateTime::new(seconds, nanos, offset).unwrap())
}

/// A graph with every value type, a key of two types under one label,
/// parallel edges, the weighted structure, and a deleted vertex (so
/// internal ids have a gap).
pub fn every_kind_of_thing(opts: Options) -> Graph {
    let g = Graph::in_memory(opts);
    let id = |tx: &mut stratagraph::WriteTxn, i: u64| {
        if tx.key_of(0).is_some() || g.options().string_ids {
            tx.intern_key(&format!("v{i}")).unwrap()
        } else {
            i * 10
        }
    };
    let mut tx = g.begin();
    let map = Value::map(vec![(s("k"), Value::Int8(1)), (Value::Int32(2), s("two"))]).unwrap();
    let vertices: Vec<(&str, Vec<(&str, Value)>)> = vec![
        (
            "person",
            vec![("name", s("marko")), ("age", Value::Int32(29))],
        ),
        (
            "person",
            vec![("name", s("vadas")), ("age", Value::Int64(27))],
        ),
        (
            "person",
            vec![
                ("flag", Value::Bool(true)),
                ("small", Value::Int8(-3)),
                ("short", Value::Int16(300)),
                ("f", Value::Float32(0.25)),
                ("d", Value::Float64(-1.5e300)),
                ("raw", Value::Bytes(vec![0, 1, 255])),
                ("u", Value::Uuid([9; 16])),
                ("when", dt(1_700_000_000, 123, 3600)),
            ],
        ),
        (
            "software",
            vec![
                ("tags", Value::List(vec![s("a"), s("a"), s("b")])),
                ("set", Value::set(vec![Value::Int64(3), Value::Int64(1)])),
                ("map", map),
                ("when", dt(-5, 999_999_999, -9000)),
                (
                    "nested",
                    Value::List(vec![Value::List(vec![]), Value::Int32(1)]),
                ),
            ],
        ),
        ("software", vec![("when", dt(0, 0, 61))]),
        ("vertex", vec![]),
        ("gone", vec![("x", Value::Int32(1))]),
    ];
    let mut ids = Vec::new();
    for (i, (label, props)) in vertices.iter().enumerate() {
        let v = id(&mut tx, i as u64);
        assert!(tx.insert_vertex_with(v, label, props).unwrap());
        ids.push(v);
    }
    tx.commit().unwrap();
    let mut tx = g.begin();
    let since = |y: i32| vec![("since", Value::Int32(y))];
    tx.add_edge(ids[0], ids[1], "knows", &since(2010)).unwrap();
    tx.add_edge(ids[0], ids[1], "knows", &since(2011)).unwrap();
    tx.add_edge(ids[0], ids[1], "knows", &[]).unwrap();
    tx.add_edge(
        ids[0],
        ids[3],
        "created",
        &[("weight", Value::Float64(0.4))],
    )
    .unwrap();
    tx.add_edge_with_id(1 << 40, ids[2], ids[2], "self", &[("w", s("loop"))])
        .unwrap();
    tx.add_edge(ids[6], ids[0], "knows", &[]).unwrap();
    tx.commit().unwrap();
    for (a, b, w) in [
        (0, 1, 0.5),
        (1, 0, 2.0),
        (3, 4, 1.0),
        (2, 2, 7.0),
        (5, 0, -1.0),
    ] {
        g.insert_edge(ids[a], ids[b], w).unwrap();
    }
    g.delete_vertex(ids[6]).unwrap();
    g
}

#[derive(Debug, Clone)]
pub enum Op {
    Vertex(u8, u8, Vec<(u8, u8)>),
    Edge(u8, u8, u8, Vec<(u8, u8)>),
    Weighted(u8, u8, i8),
    DeleteVertex(u8),
}

/// A small random value: the type and the value both vary per key.
pub fn value(kind: u8, x: u8) -> Value {
    match kind % 8 {
        0 => Value::Int32(i32::from(x)),
        1 => Value::Int64(i64::from(x)),
        2 => Value::String(format!("s{x}")),
        3 => Value::Float64(f64::from(x) / 4.0),
        4 => Value::Bool(x.is_multiple_of(2)),
        5 => Value::List(vec![Value::Int16(i16::from(x)); usize::from(x % 3)]),
        6 => dt(
            i64::from(x) * 1000,
            u32::from(x),
            (i32::from(x % 3) - 1) * 3600,
        ),
        _ => Value::Int8(x as i8),
    }
}

pub fn props(raw: &[(u8, u8)]) -> Vec<(String, Value)> {
    let mut seen = BTreeMap::new();
    for &(k, x) in raw {
        seen.insert(format!("k{}", k % 4), value(k / 4, x));
    }
    seen.into_iter().collect()
}

pub fn op() -> impl Strategy<Value = Op> {
    let p = proptest::collection::vec((any::<u8>(), any::<u8>()), 0..4);
    prop_oneof![
        (0u8..24, 0u8..3, p.clone()).prop_map(|(v, l, p)| Op::Vertex(v, l, p)),
        (0u8..24, 0u8..24, 0u8..2, p).prop_map(|(a, b, l, p)| Op::Edge(a, b, l, p)),
        (0u8..24, 0u8..24, any::<i8>()).prop_map(|(a, b, w)| Op::Weighted(a, b, w)),
        (0u8..24).prop_map(Op::DeleteVertex),
    ]
}

/// Applies random operations to `g`, each in its own transaction; one the
/// store refuses (a missing vertex, say) is rolled back.
pub fn apply(g: &Graph, ops: Vec<Op>) {
    for op in ops {
        let mut tx = g.begin();
        let ok = match op {
            Op::Vertex(v, l, p) => {
                let p = props(&p);
                let p: Vec<(&str, Value)> =
                    p.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
                tx.insert_vertex_with(u64::from(v), ["a", "b", "vertex"][usize::from(l)], &p)
                    .is_ok()
            }
            Op::Edge(a, b, l, p) => {
                let p = props(&p);
                let p: Vec<(&str, Value)> =
                    p.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
                let (a, b) = (u64::from(a), u64::from(b));
                tx.has_vertex(a)
                    && tx.has_vertex(b)
                    && tx.add_edge(a, b, ["x", "y"][usize::from(l)], &p).is_ok()
            }
            Op::Weighted(a, b, w) => tx
                .insert_edge(u64::from(a), u64::from(b), f64::from(w))
                .is_ok(),
            Op::DeleteVertex(v) => tx.delete_vertex(u64::from(v)).is_ok(),
        };
        if ok {
            tx.commit().unwrap();
        }
    }
}
