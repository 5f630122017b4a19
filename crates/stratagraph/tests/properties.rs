//! Labels and vertex properties against a model: random transactions of
//! vertex creations with labels and properties, property sets and
//! removals, vertex deletes, edges that create their endpoints, and
//! rollbacks. After every commit a snapshot is kept with a copy of the
//! model; at the end every one of them, the oldest included, must read
//! exactly its copy. Then the rules: typed values kept apart, bad names
//! and values refused with nothing changed, conflicts on properties.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use proptest::prelude::*;
use std::collections::BTreeMap;
use stratagraph::{
    Element, Error, Graph, Isolation, Options, Snapshot, Value, WriteTxn, DEFAULT_LABEL,
};

const VERTICES: u64 = 6;
const KEYS: [&str; 3] = ["name", "age", "tags"];
const LABELS: [&str; 2] = ["person", "software"];

#[derive(Debug, Clone, PartialEq)]
struct VertexModel {
    label: String,
    props: BTreeMap<String, Value>,
}

type Model = BTreeMap<u64, VertexModel>;

#[derive(Debug, Clone)]
enum Op {
    Create(u64, usize, Vec<(usize, Value)>),
    Set(u64, usize, Value),
    Remove(u64, usize),
    Delete(u64),
    Edge(u64, u64),
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i32>().prop_map(Value::Int32),
        any::<i32>().prop_map(|x| Value::Int64(i64::from(x))),
        any::<bool>().prop_map(Value::Bool),
        (-1e6f64..1e6).prop_map(Value::Float64),
        "[a-z]{0,6}".prop_map(Value::String),
        proptest::collection::vec(any::<i8>().prop_map(Value::Int8), 0..3).prop_map(Value::List),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let v = 0..VERTICES;
    prop_oneof![
        (
            v.clone(),
            0..LABELS.len(),
            proptest::collection::vec((0..KEYS.len(), value()), 0..3)
        )
            .prop_map(|(v, l, p)| Op::Create(v, l, p)),
        (v.clone(), 0..KEYS.len(), value()).prop_map(|(v, k, x)| Op::Set(v, k, x)),
        (v.clone(), 0..KEYS.len()).prop_map(|(v, k)| Op::Remove(v, k)),
        v.clone().prop_map(Op::Delete),
        (v.clone(), v).prop_map(|(a, b)| Op::Edge(a, b)),
    ]
}

/// Applies `op` to the transaction and to the model, which must agree on
/// whether it is refused.
fn apply(tx: &mut WriteTxn, model: &mut Model, op: &Op) {
    match op {
        Op::Create(v, l, props) => {
            let props: Vec<(&str, Value)> =
                props.iter().map(|(k, x)| (KEYS[*k], x.clone())).collect();
            let created = tx.insert_vertex_with(*v, LABELS[*l], &props).unwrap();
            assert_eq!(created, !model.contains_key(v));
            if created {
                model.insert(
                    *v,
                    VertexModel {
                        label: LABELS[*l].into(),
                        props: props.into_iter().map(|(k, x)| (k.to_owned(), x)).collect(),
                    },
                );
            }
        }
        Op::Set(v, k, x) => match (tx.set_property(*v, KEYS[*k], x.clone()), model.get_mut(v)) {
            (Ok(()), Some(m)) => {
                m.props.insert(KEYS[*k].into(), x.clone());
            }
            (Err(Error::VertexNotFound { .. }), None) => {}
            (r, m) => panic!("set_property: {r:?} with model {m:?}"),
        },
        Op::Remove(v, k) => match (tx.remove_property(*v, KEYS[*k]), model.get_mut(v)) {
            (Ok(was), Some(m)) => assert_eq!(was, m.props.remove(KEYS[*k]).is_some()),
            (Err(Error::VertexNotFound { .. }), None) => {}
            (r, m) => panic!("remove_property: {r:?} with model {m:?}"),
        },
        Op::Delete(v) => {
            assert_eq!(tx.delete_vertex(*v).is_ok(), model.remove(v).is_some());
        }
        Op::Edge(a, b) => {
            // An endpoint deleted in this transaction is refused; otherwise
            // missing endpoints are created with the default label.
            if tx.insert_edge(*a, *b, 1.0).is_ok() {
                for v in [a, b] {
                    model.entry(*v).or_insert_with(|| VertexModel {
                        label: DEFAULT_LABEL.into(),
                        props: BTreeMap::new(),
                    });
                }
            }
        }
    }
    check_txn(tx, model);
}

/// The reads a transaction and a snapshot both offer.
trait Reads {
    fn label_of(&mut self, v: u64) -> Option<String>;
    fn properties_of(&mut self, v: u64) -> Option<Vec<(String, Value)>>;
    fn property_of(&mut self, v: u64, key: &str) -> Option<Value>;
    fn find(&mut self, label: &str, key: &str, value: &Value) -> Vec<u64>;
}

impl Reads for WriteTxn {
    fn label_of(&mut self, v: u64) -> Option<String> {
        self.label(v).map(|l| l.to_string())
    }
    fn properties_of(&mut self, v: u64) -> Option<Vec<(String, Value)>> {
        self.properties(v)
            .map(|p| p.into_iter().map(|(k, x)| (k.to_string(), x)).collect())
    }
    fn property_of(&mut self, v: u64, key: &str) -> Option<Value> {
        self.property(v, key)
    }
    fn find(&mut self, label: &str, key: &str, value: &Value) -> Vec<u64> {
        self.find_vertices(label, key, value)
    }
}

impl Reads for &Snapshot {
    fn label_of(&mut self, v: u64) -> Option<String> {
        self.label(v).map(|l| l.to_string())
    }
    fn properties_of(&mut self, v: u64) -> Option<Vec<(String, Value)>> {
        self.properties(v)
            .map(|p| p.into_iter().map(|(k, x)| (k.to_string(), x)).collect())
    }
    fn property_of(&mut self, v: u64, key: &str) -> Option<Value> {
        self.property(v, key)
    }
    fn find(&mut self, label: &str, key: &str, value: &Value) -> Vec<u64> {
        self.find_vertices(label, key, value)
    }
}

/// Every label, property and look-up `r` reads equals the model's.
fn check(r: &mut impl Reads, model: &Model, when: &str) {
    for label in LABELS.iter().chain([&DEFAULT_LABEL]) {
        for key in KEYS {
            for value in values_of(std::iter::once(model)) {
                let mut found = r.find(label, key, &value);
                found.sort_unstable();
                let want = model_find(model, label, key, &value);
                assert_eq!(found, want, "({label}, {key}) = {value:?} {when}");
            }
        }
    }
    for v in 0..VERTICES {
        let m = model.get(&v);
        assert_eq!(
            r.label_of(v).as_deref(),
            m.map(|m| m.label.as_str()),
            "label of {v} {when}"
        );
        let props = r
            .properties_of(v)
            .map(|p| p.into_iter().collect::<BTreeMap<_, _>>());
        assert_eq!(
            props.as_ref(),
            m.map(|m| &m.props),
            "properties of {v} {when}"
        );
        for k in KEYS {
            assert_eq!(r.property_of(v, k).as_ref(), m.and_then(|m| m.props.get(k)));
        }
    }
}

fn check_txn(tx: &mut WriteTxn, model: &Model) {
    check(tx, model, "in the transaction");
}

fn check_snapshot(s: &Snapshot, model: &Model) {
    check(&mut &*s, model, &format!("at {}", s.timestamp()));
}

/// Runs `ops` in one transaction, checking each against the model, and
/// commits it (the model follows) or rolls it back.
fn run_txn(g: &Graph, model: &mut Model, ops: &[Op], commit: bool) {
    let mut tx = g.begin();
    let mut next = model.clone();
    for op in ops {
        apply(&mut tx, &mut next, op);
    }
    if commit {
        tx.commit().unwrap();
        *model = next;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn every_snapshot_reads_the_model_of_its_time(
        txns in proptest::collection::vec(
            (proptest::collection::vec(op(), 1..5), any::<bool>()), 1..12),
    ) {
        let g = Graph::in_memory(Options::default());
        let mut model = Model::new();
        let mut kept = Vec::new();
        for (ops, commit) in &txns {
            run_txn(&g, &mut model, ops, *commit);
            let s = g.snapshot();
            check_snapshot(&s, &model);
            kept.push((s, model.clone()));
        }
        for (s, m) in &kept {
            check_snapshot(s, m);
        }
    }
}

#[test]
fn typed_values_are_kept_apart_and_read_back_as_given() {
    let g = Graph::in_memory(Options::default());
    let list = Value::List(vec![Value::Int32(1), Value::String("a".into())]);
    g.insert_vertex_with(
        1,
        "person",
        &[("age", Value::Int32(29)), ("tags", list.clone())],
    )
    .unwrap();
    let s = g.snapshot();
    assert_eq!(s.property(1, "age"), Some(Value::Int32(29)));
    assert_ne!(s.property(1, "age"), Some(Value::Int64(29)));
    assert_eq!(s.property(1, "tags"), Some(list));
    assert_eq!(s.label(1).as_deref(), Some("person"));
    assert_eq!(s.property(1, "nope"), None);
    assert_eq!(s.property(2, "age"), None);
    // A vertex an edge creates has the default label and no properties.
    g.insert_edge(1, 2, 1.0).unwrap();
    let s = g.snapshot();
    assert_eq!(s.label(2).as_deref(), Some(DEFAULT_LABEL));
    assert_eq!(s.properties(2), Some(vec![]));
    // Deleting a vertex takes its properties; creating it again starts
    // empty, while older snapshots keep what they saw.
    let old = g.snapshot();
    g.delete_vertex(1).unwrap();
    g.insert_vertex(1).unwrap();
    let s = g.snapshot();
    assert_eq!(s.properties(1), Some(vec![]));
    assert_eq!(s.label(1).as_deref(), Some(DEFAULT_LABEL));
    assert_eq!(old.property(1, "age"), Some(Value::Int32(29)));
}

#[test]
fn bad_names_and_values_are_refused_and_change_nothing() {
    let g = Graph::in_memory(Options::default());
    g.insert_vertex(1).unwrap();
    let before = g.snapshot().timestamp();
    let mut tx = g.begin();
    tx.set_property(1, "ok", Value::Bool(true)).unwrap();
    for (key, what) in [("", "is empty"), ("a\tb", "control character")] {
        match tx.set_property(1, key, Value::Null) {
            Err(Error::InvalidName { name, reason, .. }) => {
                assert_eq!(name, key);
                assert!(reason.contains(what), "{reason}");
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(matches!(
        tx.insert_vertex_with(2, "", &[]),
        Err(Error::InvalidName { what: "label", .. })
    ));
    let twice = Value::Map(vec![
        (Value::Int8(1), Value::Null),
        (Value::Int8(1), Value::Null),
    ]);
    let err = tx.set_property(1, "m", twice).unwrap_err();
    assert!(
        err.to_string()
            .contains("property \"m\" of vertex 1: map key"),
        "{err}"
    );
    let big = Value::Bytes(vec![0; stratagraph::MAX_VALUE_BYTES + 1]);
    assert!(matches!(
        tx.set_property(1, "big", big),
        Err(Error::InvalidValue { .. })
    ));
    assert!(matches!(
        tx.set_property(9, "x", Value::Null),
        Err(Error::VertexNotFound { vertex: 9, .. })
    ));
    // The refused calls left the transaction as it was.
    assert_eq!(
        tx.properties(1).unwrap(),
        vec![("ok".into(), Value::Bool(true))]
    );
    assert!(!tx.has_vertex(2));
    drop(tx);
    assert_eq!(g.snapshot().timestamp(), before);
}

#[test]
fn a_property_of_a_vertex_deleted_meanwhile_is_refused() {
    let g = Graph::in_memory(Options::default());
    g.insert_vertex(1).unwrap();
    let mut tx = g.begin();
    tx.set_property(1, "k", Value::Int64(1)).unwrap();
    g.delete_vertex(1).unwrap();
    let err = tx.commit().unwrap_err();
    assert!(
        matches!(
            err,
            Error::Conflict {
                element: Element::Vertex(1),
                ..
            }
        ),
        "{err:?}"
    );
    // A single-call write checks existence at its commit.
    assert!(matches!(
        g.set_property(1, "k", Value::Int64(1)),
        Err(Error::VertexNotFound { vertex: 1, .. })
    ));
    assert_eq!(g.snapshot().property(1, "k"), None);
}

#[test]
fn properties_conflict_by_key() {
    let g = Graph::in_memory(Options::default());
    g.insert_vertex_with(1, "person", &[("age", Value::Int32(29))])
        .unwrap();
    // Two read-modify-writes of one key: the second is refused.
    let mut t1 = g.begin();
    let mut t2 = g.begin();
    let Some(Value::Int32(a)) = t1.property(1, "age") else {
        panic!()
    };
    let Some(Value::Int32(b)) = t2.property(1, "age") else {
        panic!()
    };
    t1.set_property(1, "age", Value::Int32(a + 1)).unwrap();
    t2.set_property(1, "age", Value::Int32(b + 1)).unwrap();
    t1.commit().unwrap();
    match t2.commit() {
        Err(Error::Conflict {
            element: Element::Property { vertex: 1, key },
            ..
        }) => assert_eq!(key, "age"),
        other => panic!("{other:?}"),
    }
    // Different keys of one vertex commit side by side.
    let mut t1 = g.begin();
    let mut t2 = g.begin();
    assert!(t1.property(1, "age").is_some() && t2.property(1, "age").is_some());
    t1.set_property(1, "name", Value::String("marko".into()))
        .unwrap();
    t2.set_property(1, "city", Value::String("santa fe".into()))
        .unwrap();
    t1.commit().unwrap();
    t2.commit().unwrap();
    assert_eq!(g.snapshot().properties(1).unwrap().len(), 3);
    // Serializable: reading every property conflicts with a new one.
    let mut t1 = g.begin_with(Isolation::Serializable);
    let mut t2 = g.begin_with(Isolation::Serializable);
    assert_eq!(t1.properties(1).unwrap().len(), 3);
    t1.set_property(1, "count", Value::Int64(3)).unwrap();
    assert!(t2.has_vertex(1));
    t2.set_property(1, "extra", Value::Null).unwrap();
    t2.commit().unwrap();
    assert!(matches!(
        t1.commit(),
        Err(Error::Conflict {
            element: Element::Properties(1),
            ..
        })
    ));
}

fn props_files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("props-"))
        .collect();
    names.sort();
    names
}

#[test]
fn labels_and_properties_survive_flushes_reopens_and_log_replay() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let opts = Options::default();
    let g = Graph::open(&path, opts.clone()).unwrap();
    g.insert_vertex_with(1, "person", &[("name", Value::String("marko".into()))])
        .unwrap();
    g.insert_vertex_with(2, "person", &[("age", Value::Int32(27))])
        .unwrap();
    g.insert_edge(1, 2, 0.5).unwrap();
    g.flush().unwrap();
    assert_eq!(
        props_files(&path).len(),
        1,
        "the flush wrote a properties file"
    );
    // After the flush: in the log only.
    g.set_property(1, "age", Value::Int32(29)).unwrap();
    g.delete_vertex(2).unwrap();
    g.insert_vertex(2).unwrap();
    let mut tx = g.begin();
    assert!(tx.remove_property(1, "name").unwrap());
    tx.set_property(1, "city", Value::String("santa fe".into()))
        .unwrap();
    tx.commit().unwrap();
    let expect = |g: &Graph| {
        let s = g.snapshot();
        assert_eq!(s.label(1).as_deref(), Some("person"));
        assert_eq!(
            s.properties(1).unwrap(),
            vec![
                ("age".into(), Value::Int32(29)),
                ("city".into(), Value::String("santa fe".into()))
            ]
        );
        assert_eq!(s.label(2).as_deref(), Some(DEFAULT_LABEL));
        assert_eq!(s.properties(2), Some(vec![]));
        assert!(!s.has_edge(1, 2));
    };
    expect(&g);
    g.close().unwrap();
    assert_eq!(props_files(&path).len(), 1, "the old file went");
    let g = Graph::open(&path, opts.clone()).unwrap();
    expect(&g);
    // A read-only open reads the file without writing anything.
    g.set_property(2, "k", Value::Bool(true)).unwrap();
    drop(g.snapshot());
    g.close().unwrap();
    let ro = Graph::open(
        &path,
        Options {
            read_only: true,
            ..opts.clone()
        },
    )
    .unwrap();
    let s = ro.snapshot();
    assert_eq!(s.properties(2), Some(vec![("k".into(), Value::Bool(true))]));
    assert_eq!(s.property(1, "age"), Some(Value::Int32(29)));
    drop((s, ro));
    let report = stratagraph::check(&path).unwrap();
    assert!(report.is_healthy(), "{:?}", report.problems);
    assert_eq!((report.property_vertices, report.properties), (2, 3));
}

#[test]
fn a_damaged_or_missing_properties_file_is_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let g = Graph::open(&path, Options::default()).unwrap();
    g.insert_vertex_with(1, "person", &[("name", Value::String("marko".into()))])
        .unwrap();
    g.close().unwrap();
    let file = path.join(&props_files(&path)[0]);
    let good = std::fs::read(&file).unwrap();
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 0x10;
    std::fs::write(&file, &bad).unwrap();
    let err = Graph::open(&path, Options::default()).unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
    assert!(err.to_string().contains("props-"), "{err}");
    let report = stratagraph::check(&path).unwrap();
    assert!(!report.is_healthy());
    std::fs::remove_file(&file).unwrap();
    let err = Graph::open(&path, Options::default()).unwrap_err();
    assert!(err.to_string().contains("is missing"), "{err}");
    // Put back, it opens; an orphan properties file is listed and removed.
    std::fs::write(&file, &good).unwrap();
    std::fs::write(path.join("props-99999999.dat"), b"junk").unwrap();
    let report = stratagraph::check(&path).unwrap();
    assert!(report.is_healthy(), "{:?}", report.problems);
    assert!(report
        .orphans
        .iter()
        .any(|(n, _)| n == "props-99999999.dat"));
    let g = Graph::open(&path, Options::default()).unwrap();
    assert_eq!(
        g.snapshot().property(1, "name"),
        Some(Value::String("marko".into()))
    );
    assert!(!path.join("props-99999999.dat").exists());
}

/// What `find_vertices` must answer, from the model.
fn model_find(model: &Model, label: &str, key: &str, value: &Value) -> Vec<u64> {
    model
        .iter()
        .filter(|(_, m)| m.label == label && m.props.get(key) == Some(value))
        .map(|(&v, _)| v)
        .collect()
}

/// The values `models` hold, and one none does.
fn values_of<'a>(models: impl Iterator<Item = &'a Model>) -> Vec<Value> {
    let mut values: Vec<Value> = models
        .flat_map(|m| m.values().flat_map(|v| v.props.values().cloned()))
        .collect();
    values.push(Value::String("nobody".into()));
    values.sort();
    values.dedup();
    values
}

/// Every (label, key, value) look-up of `s` for `values` equals the
/// model's.
fn check_finds(s: &Snapshot, model: &Model, values: &[Value]) {
    for label in LABELS.iter().chain([&DEFAULT_LABEL]) {
        let mut found = s.vertices_labelled(label);
        found.sort_unstable();
        let expect: Vec<u64> = model
            .iter()
            .filter(|(_, m)| m.label == *label)
            .map(|(&v, _)| v)
            .collect();
        assert_eq!(found, expect, "vertices labelled {label}");
        for key in KEYS {
            for value in values {
                let mut found = s.find_vertices(label, key, value);
                found.sort_unstable();
                assert_eq!(
                    found,
                    model_find(model, label, key, value),
                    "({label}, {key}) = {value:?} at {} (indexed: {})",
                    s.timestamp(),
                    s.has_index(label, key)
                );
                // A scan with a test, under the label and under any: the
                // values at or below this one.
                for l in [Some(*label), None] {
                    let mut found = s.scan_vertices(l, key, &|x| x <= value);
                    found.sort_unstable();
                    let expect: Vec<u64> = model
                        .iter()
                        .filter(|(_, m)| l.is_none_or(|l| m.label == l))
                        .filter(|(_, m)| m.props.get(key).is_some_and(|x| x <= value))
                        .map(|(&v, _)| v)
                        .collect();
                    assert_eq!(found, expect, "scan ({l:?}, {key}) <= {value:?}");
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// Indexes created at random moments answer exactly what a scan (and
    /// the model) does, at every snapshot kept, older than the index too.
    #[test]
    fn indexed_and_scanned_look_ups_agree_with_the_model(
        steps in proptest::collection::vec(
            (
                proptest::collection::vec(op(), 1..5),
                any::<bool>(),
                proptest::option::of((0..LABELS.len() + 1, 0..KEYS.len())),
            ),
            1..10,
        ),
    ) {
        let g = Graph::in_memory(Options::default());
        let mut model = Model::new();
        let mut kept = Vec::new();
        for (ops, commit, index) in &steps {
            if let Some((l, k)) = index {
                let label = LABELS.get(*l).copied().unwrap_or(DEFAULT_LABEL);
                // No value here is NaN, so creating never fails.
                g.create_index(label, KEYS[*k]).unwrap();
                prop_assert!(g.snapshot().has_index(label, KEYS[*k]));
            }
            run_txn(&g, &mut model, ops, *commit);
            let s = g.snapshot();
            check_finds(&s, &model, &values_of(std::iter::once(&model)));
            kept.push((s, model.clone()));
        }
        // Every value ever held, so an entry an index failed to remove
        // shows up where the value is gone.
        let values = values_of(kept.iter().map(|(_, m)| m));
        for (s, m) in &kept {
            check_finds(s, m, &values);
        }
    }
}

#[test]
fn nan_is_refused_where_an_index_would_hold_it() {
    let g = Graph::in_memory(Options::default());
    g.insert_vertex_with(1, "person", &[("score", Value::Float64(f64::NAN))])
        .unwrap();
    match g.create_index("person", "score") {
        Err(Error::NotIndexable { vertex: 1, .. }) => {}
        other => panic!("{other:?}"),
    }
    assert!(g.indexes().is_empty(), "nothing was created");
    assert!(g.create_index("person", "").is_err());
    g.set_property(1, "score", Value::Float64(0.5)).unwrap();
    assert!(g.create_index("person", "score").unwrap());
    assert!(
        !g.create_index("person", "score").unwrap(),
        "exists already"
    );
    let before = g.snapshot().timestamp();
    let nan = Value::List(vec![Value::Float32(f32::NAN)]);
    let err = g.set_property(1, "score", nan.clone()).unwrap_err();
    assert!(err.to_string().contains("holds NaN"), "{err}");
    assert_eq!(g.snapshot().timestamp(), before, "nothing committed");
    // Elsewhere NaN is a value like any other.
    g.set_property(1, "other", nan.clone()).unwrap();
    g.insert_vertex_with(2, "software", &[("score", nan)])
        .unwrap();
    assert_eq!(
        g.snapshot()
            .find_vertices("person", "score", &Value::Float64(0.5)),
        vec![1]
    );
}

#[test]
fn indexes_survive_reopening_and_old_snapshots_scan() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let g = Graph::open(&path, Options::default()).unwrap();
    let marko = Value::String("marko".into());
    g.insert_vertex_with(1, "person", &[("name", marko.clone())])
        .unwrap();
    let old = g.snapshot();
    g.create_index("person", "name").unwrap();
    g.insert_vertex_with(2, "person", &[("name", marko.clone())])
        .unwrap();
    assert!(!old.has_index("person", "name"), "made after this snapshot");
    assert_eq!(old.find_vertices("person", "name", &marko), vec![1]);
    assert_eq!(
        g.snapshot().find_vertices("person", "name", &marko),
        vec![1, 2]
    );
    drop(old);
    g.close().unwrap();
    let g = Graph::open(&path, Options::default()).unwrap();
    assert_eq!(g.indexes(), vec![("person".into(), "name".into())]);
    let s = g.snapshot();
    assert!(s.has_index("person", "name"));
    assert_eq!(s.find_vertices("person", "name", &marko), vec![1, 2]);
    g.delete_vertex(1).unwrap();
    assert_eq!(
        g.snapshot().find_vertices("person", "name", &marko),
        vec![2]
    );
    assert_eq!(s.find_vertices("person", "name", &marko), vec![1, 2]);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    /// On disk, through flushes (the properties file), reopens (the file
    /// read back, the log replayed) and index creation, the store reads the
    /// model; snapshots taken before a close keep reading theirs.
    #[test]
    fn an_on_disk_store_reads_the_model_across_flushes_and_reopens(
        steps in proptest::collection::vec(
            (
                proptest::collection::vec(op(), 1..5),
                any::<bool>(),
                0..4u8,
                proptest::option::of((0..LABELS.len() + 1, 0..KEYS.len())),
            ),
            1..10,
        ),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        let mut g = Graph::open(&path, Options::default()).unwrap();
        let mut model = Model::new();
        let mut kept = Vec::new();
        for (ops, commit, then, index) in &steps {
            if let Some((l, k)) = index {
                let label = LABELS.get(*l).copied().unwrap_or(DEFAULT_LABEL);
                g.create_index(label, KEYS[*k]).unwrap();
            }
            run_txn(&g, &mut model, ops, *commit);
            match then {
                0 => g.flush().unwrap(),
                1 => {
                    g.close().unwrap();
                    g = Graph::open(&path, Options::default()).unwrap();
                }
                _ => {}
            }
            let s = g.snapshot();
            check_snapshot(&s, &model);
            check_finds(&s, &model, &values_of(std::iter::once(&model)));
            kept.push((s, model.clone()));
        }
        let values = values_of(kept.iter().map(|(_, m)| m));
        for (s, m) in &kept {
            check_snapshot(s, m);
            check_finds(s, m, &values);
        }
        g.close().unwrap();
        let report = stratagraph::check(&path).unwrap();
        prop_assert!(report.is_healthy(), "{:?}", report.problems);
    }
}

#[test]
fn a_look_up_is_a_predicate_read_when_serializable() {
    let g = Graph::in_memory(Options::default());
    let marko = Value::String("marko".into());
    g.insert_vertex_with(1, "person", &[("name", marko.clone())])
        .unwrap();
    for (level, indexed) in [
        (Isolation::Serializable, false),
        (Isolation::Serializable, true),
        (Isolation::Snapshot, true),
    ] {
        if indexed {
            g.create_index("person", "name").unwrap();
        }
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        assert_eq!(t1.find_vertices("person", "name", &marko), vec![1]);
        // Another marko appears; t1 acts on the answer it had.
        assert!(t2.has_vertex(1));
        t2.insert_edge(50, 51, 1.0).unwrap();
        t2.set_property(1, "seen", Value::Bool(true)).unwrap();
        let mut t3 = g.begin_with(level);
        assert!(!t3.has_vertex(60));
        t3.insert_vertex_with(60, "person", &[("name", marko.clone())])
            .unwrap();
        assert_eq!(t3.find_vertices("person", "name", &marko), vec![1, 60]);
        t3.commit().unwrap();
        t1.set_property(1, "count", Value::Int64(1)).unwrap();
        let r = t1.commit();
        match level {
            Isolation::Serializable => assert!(
                matches!(
                    &r,
                    Err(Error::Conflict { element: Element::Lookup { label, key }, .. })
                        if label == "person" && key == "name"
                ),
                "{r:?}"
            ),
            Isolation::Snapshot => {
                r.unwrap();
            }
        }
        // A write to another key does not disturb the look-up.
        t2.commit().unwrap();
        g.delete_vertex(60).unwrap();
    }
    // A look-up of names nobody used yet is recorded too.
    let mut t1 = g.begin_with(Isolation::Serializable);
    assert!(t1
        .find_vertices("robot", "serial", &Value::Int64(7))
        .is_empty());
    t1.insert_vertex(70).unwrap();
    g.insert_vertex_with(71, "robot", &[("serial", Value::Int64(7))])
        .unwrap();
    assert!(matches!(t1.commit(), Err(Error::Conflict { .. })));
}

#[test]
fn keys_keep_the_order_they_were_set_in_even_after_a_delete_in_the_transaction() {
    let g = Graph::in_memory(Options::default());
    for v in [1, 2] {
        g.insert_vertex(v).unwrap();
    }
    let keys = ["x", "y", "z", "w"];
    let mut tx = g.begin();
    tx.set_property(1, "a", Value::Null).unwrap();
    tx.set_property(1, "b", Value::Null).unwrap();
    tx.set_property(2, keys[0], Value::Null).unwrap();
    tx.delete_vertex(1).unwrap();
    for k in &keys[1..] {
        tx.set_property(2, k, Value::Null).unwrap();
    }
    let order = |p: Vec<(std::sync::Arc<str>, Value)>| -> Vec<String> {
        p.into_iter().map(|(k, _)| k.to_string()).collect()
    };
    assert_eq!(order(tx.properties(2).unwrap()), keys);
    tx.commit().unwrap();
    assert_eq!(order(g.snapshot().properties(2).unwrap()), keys);
}
