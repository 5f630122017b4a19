//! Stores that name vertices by string keys (`Options::string_ids`): keys
//! get dense ids in first-seen order, every other call takes those ids,
//! and the dictionary survives flushes (the properties file), reopens and
//! a replay of the log (a copy of the directory taken while open, as a
//! crash leaves it). Wrong kinds of ids are refused, naming the vertex.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;
use stratagraph::{EdgeDirection, Error, Graph, Options, SyncPolicy, Value};

fn string_opts() -> Options {
    Options {
        string_ids: true,
        sync: SyncPolicy::Always,
        ..Options::default()
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        if e.file_name() != "LOCK" {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn keys_name_vertices_and_every_call_takes_their_ids() {
    let g = Graph::in_memory(string_opts());
    let marko = g.intern_key("marko").unwrap();
    let vadas = g.intern_key("vadas").unwrap();
    assert_eq!((marko, vadas), (0, 1), "dense, in first-seen order");
    assert_eq!(g.intern_key("marko").unwrap(), marko);
    assert_eq!(g.key_id("vadas"), Some(vadas));
    assert_eq!(g.key_id("josh"), None);
    // A key alone creates no vertex.
    assert!(!g.snapshot().has_vertex(marko));
    let mut tx = g.begin();
    tx.insert_vertex_with(marko, "person", &[("age", Value::Int32(29))])
        .unwrap();
    let e = tx.add_edge(marko, vadas, "knows", &[]).unwrap();
    tx.commit().unwrap();
    let s = g.snapshot();
    assert_eq!(s.key_of(marko).as_deref(), Some("marko"));
    assert_eq!(s.key_id("marko"), Some(marko));
    assert_eq!(s.property(marko, "age"), Some(Value::Int32(29)));
    let edge = s.edge(e).unwrap();
    assert_eq!(
        (s.key_of(edge.src).as_deref(), s.key_of(edge.dst).as_deref()),
        (Some("marko"), Some("vadas"))
    );
    // Weighted edges and batches take key ids too.
    g.insert_edge(vadas, marko, 2.0).unwrap();
    g.insert_edges(&[(marko, vadas, 1.0)]).unwrap();
    assert_eq!(g.snapshot().weight(vadas, marko), Some(2.0));
}

#[test]
fn wrong_kinds_of_ids_are_refused_and_change_nothing() {
    let g = Graph::in_memory(string_opts());
    let a = g.intern_key("a").unwrap();
    let before = g.snapshot().timestamp();
    for r in [
        g.insert_vertex(7).map(drop),
        g.insert_edge(a, 7, 1.0).map(drop),
        g.insert_edges(&[(a, a, 1.0), (7, a, 1.0)]).map(drop),
        g.begin().add_edge(a, 99, "x", &[]).map(drop),
    ] {
        match r {
            Err(Error::WrongIdKind { vertex, what }) => {
                assert!(vertex == "7" || vertex == "99", "{vertex}");
                assert!(what.contains("string keys"), "{what}");
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(g.snapshot().timestamp(), before, "nothing committed");
    for bad in ["", "a\nb", &"k".repeat(2000)] {
        assert!(matches!(g.intern_key(bad), Err(Error::WrongIdKind { .. })));
    }
    let ints = Graph::in_memory(Options::default());
    match ints.intern_key("marko") {
        Err(Error::WrongIdKind { vertex, what }) => {
            assert_eq!(vertex, "\"marko\"");
            assert!(what.contains("integers"), "{what}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(ints.key_of(0), None);
}

#[test]
fn the_kind_is_fixed_when_the_store_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let g = Graph::open(&path, string_opts()).unwrap();
    g.close().unwrap();
    match Graph::open(&path, Options::default()) {
        Err(Error::OptionsMismatch { what, .. }) => {
            assert!(what.contains("string keys"), "{what}")
        }
        other => panic!("{:?}", other.map(|_| ())),
    }
    let g = Graph::open(&path, string_opts()).unwrap();
    g.close().unwrap();
}

#[derive(Debug, Clone)]
enum Op {
    Vertex(usize),
    Edge(usize, usize),
    Flush,
    Reopen,
    CrashCopy,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..12usize).prop_map(Op::Vertex),
        4 => (0..12usize, 0..12usize).prop_map(|(a, b)| Op::Edge(a, b)),
        1 => Just(Op::Flush),
        1 => Just(Op::Reopen),
        1 => Just(Op::CrashCopy),
    ]
}

fn key(i: usize) -> String {
    format!("v-{i}-{}", "é".repeat(i % 3))
}

/// Every key the model gave, with its id, and every vertex and edge by
/// key, read back through a store.
fn check(g: &Graph, keys: &BTreeMap<String, u64>, vertices: &[String], edges: &[(String, String)]) {
    let s = g.snapshot();
    for (k, &id) in keys {
        assert_eq!(s.key_id(k), Some(id), "{k}");
        assert_eq!(s.key_of(id).as_deref(), Some(k.as_str()));
    }
    for v in vertices {
        assert!(s.has_vertex(keys[v]), "{v}");
    }
    for (a, b) in edges {
        let found = s
            .edges_of(keys[a], EdgeDirection::Out, Some("e"))
            .iter()
            .any(|e| s.key_of(e.dst).as_deref() == Some(b.as_str()));
        assert!(found, "{a} -> {b}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Keys given at random moments keep their ids through flushes,
    /// reopens and log replays.
    #[test]
    fn the_dictionary_survives_flushes_reopens_and_replay(ops in proptest::collection::vec(op(), 1..30)) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        let mut g = Graph::open(&path, string_opts()).unwrap();
        let mut keys: BTreeMap<String, u64> = BTreeMap::new();
        let (mut vertices, mut edges) = (Vec::new(), Vec::new());
        let give = |g: &Graph, keys: &mut BTreeMap<String, u64>, i: usize| {
            let k = key(i);
            let id = g.intern_key(&k).unwrap();
            let expect = keys.get(&k).copied().unwrap_or(keys.len() as u64);
            assert_eq!(id, expect, "ids are dense and stable");
            keys.insert(k.clone(), id);
            (k, id)
        };
        for (n, op) in ops.iter().enumerate() {
            match op {
                Op::Vertex(i) => {
                    let (k, id) = give(&g, &mut keys, *i);
                    g.insert_vertex(id).unwrap();
                    vertices.push(k);
                }
                Op::Edge(a, b) => {
                    let (ka, ia) = give(&g, &mut keys, *a);
                    let (kb, ib) = give(&g, &mut keys, *b);
                    let mut tx = g.begin();
                    tx.add_edge(ia, ib, "e", &[]).unwrap();
                    tx.commit().unwrap();
                    vertices.push(ka.clone());
                    vertices.push(kb.clone());
                    edges.push((ka, kb));
                }
                Op::Flush => g.flush().unwrap(),
                Op::Reopen => {
                    g.close().unwrap();
                    g = Graph::open(&path, string_opts()).unwrap();
                }
                Op::CrashCopy => {
                    let copy = dir.path().join(format!("crash-{n}"));
                    copy_dir(&path, &copy);
                    let c = Graph::open(&copy, string_opts()).unwrap();
                    check(&c, &keys, &vertices, &edges);
                    c.close().unwrap();
                    let report = stratagraph::check(&copy).unwrap();
                    prop_assert!(report.is_healthy(), "{:?}", report.problems);
                }
            }
            check(&g, &keys, &vertices, &edges);
        }
        g.close().unwrap();
        let g = Graph::open(&path, string_opts()).unwrap();
        check(&g, &keys, &vertices, &edges);
        // The next key gets the next id.
        prop_assert_eq!(g.intern_key("fresh").unwrap(), keys.len() as u64);
        g.close().unwrap();
        let report = stratagraph::check(&path).unwrap();
        prop_assert!(report.is_healthy(), "{:?}", report.problems);
    }
}

#[test]
fn a_key_found_missing_is_a_read_a_serializable_commit_validates() {
    for level in [
        stratagraph::Isolation::Snapshot,
        stratagraph::Isolation::Serializable,
    ] {
        let g = Graph::in_memory(string_opts());
        let a = g.intern_key("a").unwrap();
        g.insert_vertex(a).unwrap();
        let mut t1 = g.begin_with(level);
        assert_eq!(t1.key_id("zed"), None);
        assert_eq!(t1.key_of(a).as_deref(), Some("a"));
        // Meanwhile "zed" is given an id and its vertex created.
        let z = g.intern_key("zed").unwrap();
        g.insert_vertex(z).unwrap();
        t1.set_property(a, "saw_zed", Value::Bool(false)).unwrap();
        let r = t1.commit();
        match level {
            stratagraph::Isolation::Snapshot => {
                r.unwrap();
            }
            _ => assert!(matches!(r, Err(Error::Conflict { .. })), "{r:?}"),
        }
    }
}
