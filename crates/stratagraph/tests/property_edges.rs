//! Property edges against a model: random transactions that add edges
//! (parallel ones too) with labels and properties, remove them, set and
//! remove their properties, delete and create vertices, and roll back.
//! After every step a snapshot is kept with a copy of the model; at the
//! end every one, the oldest included, must read exactly its copy, in
//! memory and on disk through flushes, reopens and a replay of the log
//! (a copy of the directory taken while the store is open, as a crash
//! leaves it). Then the rules: bad input refused with nothing changed,
//! conflicts by edge and by edge property, deletes that take edges along.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;
use stratagraph::{
    Edge, EdgeDirection, EdgeId, Element, Error, Graph, Options, Snapshot, SyncPolicy, Value,
    WriteTxn,
};

const VERTICES: u64 = 5;
const LABELS: [&str; 3] = ["knows", "created", "likes"];
const KEYS: [&str; 2] = ["weight", "since"];

#[derive(Debug, Clone, PartialEq)]
struct EdgeModel {
    src: u64,
    dst: u64,
    label: String,
    props: Vec<(String, Value)>,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct Model {
    vertices: std::collections::BTreeSet<u64>,
    edges: BTreeMap<EdgeId, EdgeModel>,
}

impl Model {
    fn set(&mut self, e: EdgeId, key: &str, value: Option<Value>) {
        let props = &mut self.edges.get_mut(&e).unwrap().props;
        match (props.iter().position(|(k, _)| k == key), value) {
            (Some(i), Some(v)) => props[i].1 = v,
            (Some(i), None) => {
                props.remove(i);
            }
            (None, Some(v)) => props.push((key.to_owned(), v)),
            (None, None) => {}
        }
    }
}

#[derive(Debug, Clone)]
enum Op {
    AddVertex(u64),
    DeleteVertex(u64),
    AddEdge(u64, u64, usize, Vec<(usize, Value)>),
    /// Removes the n-th edge of the model (modulo its count).
    RemoveEdge(usize),
    SetProp(usize, usize, Value),
    RemoveProp(usize, usize),
}

fn value() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<i32>().prop_map(Value::Int32),
        any::<i32>().prop_map(|x| Value::Int64(i64::from(x))),
        (-1e3f64..1e3).prop_map(Value::Float64),
        "[a-z]{0,4}".prop_map(Value::String),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    let v = 0..VERTICES;
    prop_oneof![
        1 => v.clone().prop_map(Op::AddVertex),
        1 => v.clone().prop_map(Op::DeleteVertex),
        4 => (
            v.clone(),
            v,
            0..LABELS.len(),
            proptest::collection::vec((0..KEYS.len(), value()), 0..2)
        )
            .prop_map(|(s, d, l, p)| Op::AddEdge(s, d, l, p)),
        1 => any::<usize>().prop_map(Op::RemoveEdge),
        2 => (any::<usize>(), 0..KEYS.len(), value()).prop_map(|(e, k, x)| Op::SetProp(e, k, x)),
        1 => (any::<usize>(), 0..KEYS.len()).prop_map(|(e, k)| Op::RemoveProp(e, k)),
    ]
}

fn nth(model: &Model, n: usize) -> Option<EdgeId> {
    if model.edges.is_empty() {
        return None;
    }
    model.edges.keys().nth(n % model.edges.len()).copied()
}

/// Applies `op` to the transaction and the model, which must agree on
/// whether it is refused.
/// `deleted`: the vertices the transaction deleted and did not create
/// again, to which it may not wire edges.
fn apply(tx: &mut WriteTxn, model: &mut Model, deleted: &mut Vec<u64>, op: &Op) {
    match op {
        Op::AddVertex(v) => {
            assert_eq!(tx.insert_vertex(*v).unwrap(), model.vertices.insert(*v));
            deleted.retain(|x| x != v);
        }
        Op::DeleteVertex(v) => match tx.delete_vertex(*v) {
            Ok(()) => {
                deleted.push(*v);
                assert!(model.vertices.remove(v));
                model.edges.retain(|_, e| e.src != *v && e.dst != *v);
            }
            Err(Error::VertexNotFound { .. }) => assert!(!model.vertices.contains(v)),
            Err(e) => panic!("{e}"),
        },
        Op::AddEdge(s, d, l, props) => {
            let props: Vec<(&str, Value)> =
                props.iter().map(|(k, x)| (KEYS[*k], x.clone())).collect();
            let added = tx.add_edge(*s, *d, LABELS[*l], &props);
            if deleted.contains(s) || deleted.contains(d) {
                assert!(
                    matches!(added, Err(Error::VertexDeletedInTransaction { .. })),
                    "{added:?}"
                );
                return;
            }
            let id = added.unwrap();
            assert!(!model.edges.contains_key(&id), "id {id} handed out twice");
            // Endpoints are created (the default options create them).
            model.vertices.insert(*s);
            model.vertices.insert(*d);
            let mut m = EdgeModel {
                src: *s,
                dst: *d,
                label: LABELS[*l].into(),
                props: Vec::new(),
            };
            for (k, x) in props {
                match m.props.iter().position(|(key, _)| key == k) {
                    Some(i) => m.props[i].1 = x,
                    None => m.props.push((k.to_owned(), x)),
                }
            }
            model.edges.insert(id, m);
        }
        Op::RemoveEdge(n) => {
            if let Some(e) = nth(model, *n) {
                tx.remove_edge(e).unwrap();
                model.edges.remove(&e);
                assert!(matches!(
                    tx.remove_edge(e),
                    Err(Error::NoSuchEdge { edge, .. }) if edge == e
                ));
            }
        }
        Op::SetProp(n, k, x) => {
            if let Some(e) = nth(model, *n) {
                tx.set_edge_property(e, KEYS[*k], x.clone()).unwrap();
                model.set(e, KEYS[*k], Some(x.clone()));
            }
        }
        Op::RemoveProp(n, k) => {
            if let Some(e) = nth(model, *n) {
                let had = model.edges[&e].props.iter().any(|(key, _)| key == KEYS[*k]);
                assert_eq!(tx.remove_edge_property(e, KEYS[*k]).unwrap(), had);
                model.set(e, KEYS[*k], None);
            }
        }
    }
}

/// What a reader answers, for one interface over snapshots and
/// transactions.
trait Reads {
    fn edge(&mut self, id: EdgeId) -> Option<Edge>;
    fn props(&mut self, id: EdgeId) -> Option<Vec<(String, Value)>>;
    fn of(&mut self, v: u64, dir: EdgeDirection, label: Option<&str>) -> Vec<Edge>;
    fn all(&mut self) -> Vec<Edge>;
}

impl Reads for &Snapshot {
    fn edge(&mut self, id: EdgeId) -> Option<Edge> {
        Snapshot::edge(self, id)
    }
    fn props(&mut self, id: EdgeId) -> Option<Vec<(String, Value)>> {
        self.edge_properties(id)
            .map(|p| p.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
    fn of(&mut self, v: u64, dir: EdgeDirection, label: Option<&str>) -> Vec<Edge> {
        self.edges_of(v, dir, label)
    }
    fn all(&mut self) -> Vec<Edge> {
        // The light listing walks name the same edges in the same order.
        for v in 0..VERTICES {
            for dir in [EdgeDirection::Out, EdgeDirection::In, EdgeDirection::Both] {
                for label in LABELS.iter().map(Some).chain([None]) {
                    let full: Vec<(EdgeId, u64, Option<std::sync::Arc<str>>)> = self
                        .edges_of(v, dir, label.copied())
                        .into_iter()
                        .map(|e| (e.id, if e.src == v { e.dst } else { e.src }, Some(e.label)))
                        .collect();
                    let light: Vec<(EdgeId, u64, Option<std::sync::Arc<str>>)> = self
                        .edge_ends_of(v, dir, label.copied())
                        .into_iter()
                        .map(|e| (e.id, e.other, self.label_name(e.label)))
                        .collect();
                    assert_eq!(light, full, "edge_ends_of({v}, {dir:?}, {label:?})");
                    // The walks by internal id: the same far ends, as a
                    // multiset, and their number.
                    let Some(id) = self.internal_id(v) else {
                        assert!(full.is_empty());
                        continue;
                    };
                    let number = match label {
                        Some(l) => match self.label_number(l) {
                            Some(n) => Some(n),
                            None => {
                                assert!(full.is_empty());
                                continue;
                            }
                        },
                        None => None,
                    };
                    let mut far: Vec<u64> = full.iter().map(|e| e.1).collect();
                    far.sort_unstable();
                    let mut buf = vec![u32::MAX];
                    self.neighbors_into(id, dir, number, &mut buf);
                    assert_eq!(buf[0], u32::MAX, "neighbors_into appends");
                    let mut walked: Vec<u64> = buf[1..]
                        .iter()
                        .map(|&o| self.external_id(o).expect("a far end is a vertex"))
                        .collect();
                    walked.sort_unstable();
                    assert_eq!(walked, far, "neighbors_into({v}, {dir:?}, {label:?})");
                    assert_eq!(
                        self.edge_count_of(id, dir, number),
                        full.len(),
                        "edge_count_of({v}, {dir:?}, {label:?})"
                    );
                }
            }
        }
        assert_eq!(self.label_name(u32::MAX), None);
        self.edges()
    }
}

impl Reads for WriteTxn {
    fn edge(&mut self, id: EdgeId) -> Option<Edge> {
        WriteTxn::edge(self, id)
    }
    fn props(&mut self, id: EdgeId) -> Option<Vec<(String, Value)>> {
        self.edge_properties(id)
            .map(|p| p.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
    }
    fn of(&mut self, v: u64, dir: EdgeDirection, label: Option<&str>) -> Vec<Edge> {
        self.edges_of(v, dir, label).unwrap_or_default()
    }
    fn all(&mut self) -> Vec<Edge> {
        self.edges()
    }
}

fn as_edge(id: EdgeId, m: &EdgeModel) -> Edge {
    Edge {
        id,
        src: m.src,
        dst: m.dst,
        label: m.label.as_str().into(),
    }
}

/// The model's edges of `v` on side `dir`, of `label` or of all.
fn model_of(model: &Model, v: u64, dir: EdgeDirection, label: Option<&str>) -> Vec<Edge> {
    model
        .edges
        .iter()
        .filter(|(_, e)| match dir {
            EdgeDirection::Out => e.src == v,
            EdgeDirection::In => e.dst == v,
            EdgeDirection::Both => e.src == v || e.dst == v,
        })
        .filter(|(_, e)| label.is_none_or(|l| e.label == l))
        .map(|(&id, e)| as_edge(id, e))
        .collect()
}

/// Readers give a vertex's edges grouped by label (labels in the store's
/// own order) and, within a label and other end, by id.
fn assert_grouped(got: &[Edge], v: u64, what: &str) {
    let mut seen: Vec<&str> = Vec::new();
    for w in got.windows(2) {
        let other = |e: &Edge| if e.src == v { e.dst } else { e.src };
        if w[0].label == w[1].label && other(&w[0]) == other(&w[1]) {
            assert!(w[0].id < w[1].id, "{what}: {got:?}");
        }
    }
    for e in got {
        if seen.last() != Some(&&*e.label) {
            assert!(
                !seen.contains(&&*e.label),
                "{what}: labels not grouped: {got:?}"
            );
            seen.push(&e.label);
        }
    }
}

fn check(r: &mut impl Reads, model: &Model, when: &str) {
    for (&id, e) in &model.edges {
        assert_eq!(r.edge(id), Some(as_edge(id, e)), "edge {id} {when}");
        // Keys come in the order first set, but one removed and set again
        // may keep its old place: compared as a set.
        let mut got = r.props(id);
        if let Some(p) = &mut got {
            p.sort_by(|a, b| a.0.cmp(&b.0));
        }
        let mut want = e.props.clone();
        want.sort_by(|a, b| a.0.cmp(&b.0));
        assert_eq!(got, Some(want), "edge {id} {when}");
    }
    for id in 0..40 {
        if !model.edges.contains_key(&id) {
            assert_eq!(r.edge(id), None, "edge {id} is gone {when}");
        }
    }
    let every: Vec<Edge> = model.edges.iter().map(|(&id, e)| as_edge(id, e)).collect();
    assert_eq!(r.all(), every, "every edge, ascending by id, {when}");
    for v in 0..VERTICES {
        for dir in [EdgeDirection::Out, EdgeDirection::In, EdgeDirection::Both] {
            for label in LABELS.iter().map(Some).chain([None]) {
                let mut got = r.of(v, dir, label.copied());
                let what = format!("{v} {dir:?} {label:?} {when}");
                assert_grouped(&got, v, &what);
                got.sort_by_key(|e| e.id);
                assert_eq!(got, model_of(model, v, dir, label.copied()), "{what}");
            }
        }
    }
}

fn run_txn(g: &Graph, model: &mut Model, ops: &[Op], commit: bool) {
    let mut tx = g.begin();
    let mut mine = model.clone();
    let mut deleted = Vec::new();
    for op in ops {
        apply(&mut tx, &mut mine, &mut deleted, op);
    }
    check(&mut tx, &mine, "inside the transaction");
    // The transaction lists no vertex it deleted and every end of an edge
    // it sees.
    let listed = tx.vertices();
    for v in &deleted {
        if !tx.has_vertex(*v) {
            assert!(!listed.contains(v), "deleted vertex {v} listed");
        }
    }
    for e in mine.edges.values() {
        assert!(
            listed.contains(&e.src) && listed.contains(&e.dst),
            "ends of {e:?} listed"
        );
    }
    assert!(
        listed.windows(2).all(|w| w[0] != w[1]),
        "no vertex listed twice"
    );
    if commit {
        tx.commit().unwrap();
        *model = mine;
        // A fresh transaction lists what a snapshot does.
        let s = g.snapshot();
        let want: Vec<u64> = s.vertices().map(|v| s.external_id_unchecked(v)).collect();
        assert_eq!(g.begin().vertices(), want);
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    #[test]
    fn every_snapshot_reads_its_model_in_memory(
        steps in proptest::collection::vec(
            (proptest::collection::vec(op(), 1..6), any::<bool>()),
            1..10,
        ),
    ) {
        let g = Graph::in_memory(Options::default());
        let mut model = Model::default();
        let mut kept = Vec::new();
        for (ops, commit) in &steps {
            run_txn(&g, &mut model, ops, *commit);
            let s = g.snapshot();
            check(&mut &s, &model, "just committed");
            kept.push((s, model.clone()));
        }
        for (i, (s, m)) in kept.iter().enumerate() {
            check(&mut &*s, m, &format!("kept snapshot {i}"));
        }
        prop_assert_eq!(g.stats().property_edges, model.edges.len() as u64);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 30, ..ProptestConfig::default() })]

    /// Flushes write the properties file, closes and reopens read it back,
    /// and a copy taken while open (the log not yet checkpointed) replays
    /// the log; every one reads the model.
    #[test]
    fn an_on_disk_store_reads_the_model_across_flushes_reopens_and_replay(
        steps in proptest::collection::vec(
            (proptest::collection::vec(op(), 1..6), any::<bool>(), 0..4u8),
            1..8,
        ),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("g");
        let opts = Options { sync: SyncPolicy::Always, ..Options::default() };
        let mut g = Graph::open(&path, opts.clone()).unwrap();
        let mut model = Model::default();
        let mut kept = Vec::new();
        for (ops, commit, then) in &steps {
            run_txn(&g, &mut model, ops, *commit);
            match then {
                0 => g.flush().unwrap(),
                1 => {
                    g.close().unwrap();
                    g = Graph::open(&path, opts.clone()).unwrap();
                }
                2 => {
                    let copy = dir.path().join(format!("crash-{}", kept.len()));
                    copy_dir(&path, &copy);
                    let c = Graph::open(&copy, opts.clone()).unwrap();
                    check(&mut &c.snapshot(), &model, "after replaying the log");
                    c.close().unwrap();
                    let report = stratagraph::check(&copy).unwrap();
                    prop_assert!(report.is_healthy(), "{:?}", report.problems);
                    prop_assert_eq!(report.property_edges, model.edges.len() as u64);
                }
                _ => {}
            }
            let s = g.snapshot();
            check(&mut &s, &model, "on disk");
            kept.push((s, model.clone()));
        }
        for (i, (s, m)) in kept.iter().enumerate() {
            check(&mut &*s, m, &format!("kept snapshot {i}"));
        }
        // Ids handed out after a reopen stay clear of every id used.
        let mut tx = g.begin();
        let fresh = tx.add_edge(0, 1, "knows", &[]).unwrap();
        prop_assert!(!model.edges.contains_key(&fresh));
        drop(tx);
        g.close().unwrap();
        let report = stratagraph::check(&path).unwrap();
        prop_assert!(report.is_healthy(), "{:?}", report.problems);
    }
}

#[test]
fn parallel_edges_keep_their_own_ids_and_properties() {
    let g = Graph::in_memory(Options::default());
    let mut tx = g.begin();
    let a = tx
        .add_edge(1, 2, "knows", &[("since", Value::Int32(2010))])
        .unwrap();
    let b = tx
        .add_edge(1, 2, "knows", &[("since", Value::Int32(2012))])
        .unwrap();
    let c = tx.add_edge(1, 2, "created", &[]).unwrap();
    tx.commit().unwrap();
    assert!(a != b && b != c && a != c);
    let s = g.snapshot();
    let knows: Vec<EdgeId> = s
        .edges_of(1, EdgeDirection::Out, Some("knows"))
        .iter()
        .map(|e| e.id)
        .collect();
    assert_eq!(knows, [a, b]);
    assert_eq!(s.edges_of(2, EdgeDirection::In, None).len(), 3);
    assert_eq!(s.edge_property(b, "since"), Some(Value::Int32(2012)));
    assert!(s.edges_of(1, EdgeDirection::Out, Some("nobody")).is_empty());
    // The weighted structure is apart: no (1, 2) edge there.
    assert!(!s.has_edge(1, 2));
    assert_eq!(g.stats().edges, 0);
    assert_eq!(g.stats().property_edges, 3);
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let g = Graph::in_memory(Options {
        auto_create_vertices: false,
        ..Options::default()
    });
    g.insert_vertex(1).unwrap();
    let mut tx = g.begin();
    assert!(matches!(
        tx.add_edge(1, 9, "knows", &[]),
        Err(Error::VertexNotFound {
            vertex: 9,
            op: stratagraph::Op::AddEdge,
            ..
        })
    ));
    assert!(matches!(
        tx.add_edge(1, 1, "", &[]),
        Err(Error::InvalidName { .. })
    ));
    let nested = (0..200).fold(Value::Int8(0), |v, _| Value::List(vec![v]));
    assert!(matches!(
        tx.add_edge(1, 1, "knows", &[("deep", nested)]),
        Err(Error::InvalidEdgeValue { .. })
    ));
    assert!(matches!(
        tx.set_edge_property(77, "k", Value::Bool(true)),
        Err(Error::NoSuchEdge { edge: 77, .. })
    ));
    assert!(matches!(tx.remove_edge(77), Err(Error::NoSuchEdge { .. })));
    assert!(tx.is_empty(), "nothing was buffered");
    let e = tx.add_edge(1, 1, "self", &[]).unwrap();
    assert!(matches!(
        tx.add_edge_with_id(e, 1, 1, "self", &[]),
        Err(Error::EdgeIdTaken { .. })
    ));
    tx.commit().unwrap();
    let mut tx = g.begin();
    assert!(matches!(
        tx.add_edge_with_id(e, 1, 1, "x", &[]),
        Err(Error::EdgeIdTaken { .. })
    ));
    tx.add_edge_with_id(1000, 1, 1, "x", &[]).unwrap();
    tx.commit().unwrap();
    let mut tx = g.begin();
    assert!(tx.add_edge(1, 1, "x", &[]).unwrap() > 1000);
    // A self-loop is one edge on either side, once in `Both`.
    let s = g.snapshot();
    assert_eq!(s.edges_of(1, EdgeDirection::Both, Some("self")).len(), 1);
    assert_eq!(s.edges_of(1, EdgeDirection::In, Some("self")).len(), 1);
}

#[test]
fn a_vertex_delete_takes_its_edges_and_their_properties() {
    let g = Graph::in_memory(Options::default());
    let mut tx = g.begin();
    let a = tx
        .add_edge(1, 2, "knows", &[("w", Value::Float64(0.5))])
        .unwrap();
    let b = tx.add_edge(3, 1, "knows", &[]).unwrap();
    let c = tx.add_edge(2, 3, "knows", &[]).unwrap();
    tx.commit().unwrap();
    let before = g.snapshot();
    g.delete_vertex(1).unwrap();
    let s = g.snapshot();
    assert_eq!(s.edge(a), None);
    assert_eq!(s.edge(b), None);
    assert_eq!(s.edge_properties(a), None);
    assert!(s.edge(c).is_some());
    assert!(s.edges_of(2, EdgeDirection::In, None).is_empty());
    assert_eq!(s.edges_of(3, EdgeDirection::Both, None).len(), 1);
    // The snapshot before still reads them.
    assert_eq!(before.edge_property(a, "w"), Some(Value::Float64(0.5)));
    assert_eq!(before.edges_of(1, EdgeDirection::Both, None).len(), 2);
    // Inside a transaction: a delete drops what it wrote to those edges.
    let mut tx = g.begin();
    tx.set_edge_property(c, "w", Value::Int8(1)).unwrap();
    tx.delete_vertex(3).unwrap();
    assert_eq!(tx.edge(c), None);
    assert!(tx.edges_of(2, EdgeDirection::Out, None).unwrap().is_empty());
    tx.commit().unwrap();
    assert_eq!(g.snapshot().edge(c), None);
    assert_eq!(g.stats().property_edges, 0);
}

#[test]
fn edge_writes_conflict_by_edge_and_by_property() {
    let g = Graph::in_memory(Options::default());
    let mut tx = g.begin();
    let e = tx.add_edge(1, 2, "knows", &[]).unwrap();
    tx.commit().unwrap();

    // Lost update on one property.
    let mut t1 = g.begin();
    let mut t2 = g.begin();
    t1.edge_property(e, "w");
    t2.edge_property(e, "w");
    t1.set_edge_property(e, "w", Value::Int64(1)).unwrap();
    t2.set_edge_property(e, "w", Value::Int64(2)).unwrap();
    t1.commit().unwrap();
    match t2.commit() {
        Err(Error::Conflict {
            element: Element::EdgeProperty { edge, key },
            ..
        }) => assert_eq!((edge, key.as_str()), (e, "w")),
        other => panic!("{other:?}"),
    }
    assert_eq!(g.snapshot().edge_property(e, "w"), Some(Value::Int64(1)));

    // Different properties of one edge do not conflict.
    let mut t1 = g.begin();
    let mut t2 = g.begin();
    t1.set_edge_property(e, "a", Value::Int64(1)).unwrap();
    t2.set_edge_property(e, "b", Value::Int64(2)).unwrap();
    t1.commit().unwrap();
    t2.commit().unwrap();

    // Removing an edge another transaction changed meanwhile.
    let mut t1 = g.begin();
    let mut t2 = g.begin();
    t1.set_edge_property(e, "a", Value::Int64(5)).unwrap();
    t2.remove_edge(e).unwrap();
    t1.commit().unwrap();
    assert!(matches!(t2.commit(), Err(Error::Conflict { .. })));

    // Two transactions adding edges at one vertex do not conflict.
    let mut t1 = g.begin();
    let mut t2 = g.begin();
    t1.edges_of(1, EdgeDirection::Out, None);
    t2.edges_of(1, EdgeDirection::Out, None);
    t1.add_edge(1, 3, "knows", &[]).unwrap();
    t2.add_edge(1, 3, "knows", &[]).unwrap();
    t1.commit().unwrap();
    t2.commit().unwrap();
    assert_eq!(
        g.snapshot()
            .edges_of(1, EdgeDirection::Out, Some("knows"))
            .len(),
        3
    );

    // A vertex deleted while another transaction wires an edge to it.
    let mut t1 = g.begin();
    let mut t2 = g.begin();
    assert!(t2.has_vertex(3));
    t2.add_edge(2, 3, "knows", &[]).unwrap();
    t1.delete_vertex(3).unwrap();
    t1.commit().unwrap();
    match t2.commit() {
        Err(Error::Conflict { .. }) | Err(Error::VertexNotFound { .. }) => {}
        other => panic!("{other:?}"),
    }
    let s = g.snapshot();
    assert!(s.edges_of(2, EdgeDirection::Out, None).is_empty());

    // Serializable: a read edge list changed by another commit.
    let mut t1 = g.begin_with(stratagraph::Isolation::Serializable);
    let n = t1.edges_of(1, EdgeDirection::Out, None).unwrap().len();
    let mut t3 = g.begin();
    t3.add_edge(1, 2, "knows", &[]).unwrap();
    t3.commit().unwrap();
    t1.set_property(2, "n", Value::Int64(n as i64)).unwrap();
    match t1.commit() {
        Err(Error::Conflict {
            element:
                Element::PropertyEdges {
                    vertex: 1,
                    out: true,
                },
            ..
        }) => {}
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_version_one_store_without_edges_still_opens() {
    // A store written before property edges has a version 1 properties
    // file; opening reads it as a store with none.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let g = Graph::open(&path, Options::default()).unwrap();
    g.insert_vertex_with(1, "person", &[("name", Value::String("m".into()))])
        .unwrap();
    g.close().unwrap();
    let file = std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("props-")
        })
        .unwrap();
    let mut b = std::fs::read(&file).unwrap();
    // Version 2 ends with the next edge id, an edge count and a key count
    // (both zero here) before the checksum; version 1 has none of them.
    let body = b.len() - 4;
    assert_eq!(&b[body - 16..body], &[0u8; 16]);
    b.truncate(body - 24);
    b[8..12].copy_from_slice(&1u32.to_le_bytes());
    let crc = crc32c::crc32c(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    std::fs::write(&file, &b).unwrap();
    let g = Graph::open(&path, Options::default()).unwrap();
    let s = g.snapshot();
    assert_eq!(s.property(1, "name"), Some(Value::String("m".into())));
    assert!(s.edges().is_empty());
    // And writing edges now works, with ids from 1.
    let mut tx = g.begin();
    assert_eq!(tx.add_edge(1, 1, "x", &[]).unwrap(), 1);
}

#[test]
fn an_id_freed_inside_a_transaction_can_be_used_again_in_it() {
    let g = Graph::in_memory(Options::default());
    let mut tx = g.begin();
    tx.add_edge_with_id(5, 1, 2, "x", &[]).unwrap();
    tx.add_edge_with_id(6, 3, 4, "x", &[]).unwrap();
    tx.commit().unwrap();
    let mut tx = g.begin();
    // Freed by deleting an endpoint, and by removing the edge.
    tx.delete_vertex(1).unwrap();
    tx.add_edge_with_id(5, 2, 3, "y", &[]).unwrap();
    tx.remove_edge(6).unwrap();
    tx.add_edge_with_id(6, 4, 3, "y", &[]).unwrap();
    tx.commit().unwrap();
    let s = g.snapshot();
    let ends = |id| s.edge(id).map(|e| (e.src, e.dst, e.label.to_string()));
    assert_eq!(ends(5), Some((2, 3, "y".into())));
    assert_eq!(ends(6), Some((4, 3, "y".into())));
    assert_eq!(g.stats().property_edges, 2);
}
