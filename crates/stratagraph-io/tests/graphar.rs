//! Parquet exports (Apache GraphAr's layout) and their import.
//!
//! The expected graph is never the exporter's own output: a round trip is
//! compared with the store it came from through the engine's read API (a
//! dump of every vertex, label, typed property and edge); the real graphs'
//! edges with the SNAP files read here by hand; and each damaged export
//! must fail naming the file and column that is wrong, leaving the store
//! empty.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{Field, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use stratagraph::{DateTime, EdgeId, Graph, Options, Value};
use stratagraph_io::graphar::{self, Chunks};
use stratagraph_io::{graphson, LoadError, LoadOptions};

/// Properties by key, each value as its encoded bytes (so an Int32 29 and
/// an Int64 29 differ).
type Props = BTreeMap<String, Vec<u8>>;

/// Every vertex (id, label, properties), property edge (source,
/// destination, label, properties) and weighted edge of a store.
#[derive(Debug, PartialEq, Eq)]
struct Dump {
    vertices: BTreeMap<String, (String, Props)>,
    edges: BTreeMap<EdgeId, (String, String, String, Props)>,
    weighted: BTreeSet<(String, String, u64)>,
}

fn encoded(props: Vec<(Arc<str>, Value)>) -> Props {
    props
        .into_iter()
        .map(|(k, v)| {
            let mut b = Vec::new();
            v.encode(&mut b).unwrap();
            (k.to_string(), b)
        })
        .collect()
}

fn dump(g: &Graph) -> Dump {
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

fn round_trip(g: &Graph, chunks: Chunks) -> (Graph, graphar::Exported) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("export");
    let done = graphar::export(&g.snapshot(), &out, chunks).unwrap();
    let back = Graph::in_memory(g.options().clone());
    graphar::import(&back, &out, 7).unwrap();
    (back, done)
}

fn s(x: &str) -> Value {
    Value::String(x.into())
}

fn dt(seconds: i64, nanos: u32, offset: i32) -> Value {
    Value::DateTime(DateTime::new(seconds, nanos, offset).unwrap())
}

/// A graph with every value type, a key of two types under one label,
/// parallel edges, the weighted structure, and a deleted vertex (so
/// internal ids have a gap).
fn every_kind_of_thing(opts: Options) -> Graph {
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

#[test]
fn every_value_type_label_and_edge_comes_back_the_same() {
    for (directed, string_ids) in [(true, false), (false, false), (true, true), (false, true)] {
        let opts = Options {
            directed,
            string_ids,
            ..Options::default()
        };
        let g = every_kind_of_thing(opts);
        let expected = dump(&g);
        assert_eq!(expected.vertices.len(), 6);
        assert_eq!(expected.edges.len(), 5);
        // Small chunks: several vertex chunks, edge parts and chunks.
        for chunks in [
            Chunks::default(),
            Chunks {
                vertices: 1,
                edges: 1,
            },
            Chunks {
                vertices: 2,
                edges: 2,
            },
        ] {
            let (back, done) = round_trip(&g, chunks);
            assert_eq!(dump(&back), expected, "{directed} {string_ids} {chunks:?}");
            assert_eq!((done.vertices, done.edges), (6, 5));
            let weighted = if directed { 5 } else { 4 };
            assert_eq!(done.weighted_edges, weighted, "each undirected edge once");
        }
    }
}

#[test]
fn the_grateful_dead_comes_back_the_same() {
    let g = Graph::in_memory(Options::default());
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/tinkerpop/data/grateful-dead.json");
    graphson::load(&g, &file, LoadOptions::default()).unwrap();
    let expected = dump(&g);
    assert_eq!((expected.vertices.len(), expected.edges.len()), (808, 8049));
    let (back, _) = round_trip(&g, Chunks::default());
    assert_eq!(dump(&back), expected);
}

/// A SNAP edge list read here by hand: the expected edges.
fn snap_edges(file: &str) -> BTreeSet<(u64, u64)> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/datasets/real")
        .join(file);
    let mut text = String::new();
    flate2::read::GzDecoder::new(std::fs::File::open(path).unwrap())
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut t = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            (t.next().unwrap(), t.next().unwrap())
        })
        .collect()
}

#[test]
fn every_real_graph_comes_back_with_its_edges() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/real");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".txt.gz"))
        .collect();
    files.sort();
    assert_eq!(files.len(), 6, "{files:?}");
    for file in files {
        let expected = snap_edges(&file);
        let g = Graph::in_memory(Options::default());
        let edges: Vec<(u64, u64, f64)> = expected.iter().map(|&(a, b)| (a, b, 1.0)).collect();
        g.insert_edges(&edges).unwrap();
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("x");
        let done = graphar::export(&g.snapshot(), &out, Chunks::default()).unwrap();
        assert_eq!(done.weighted_edges, expected.len() as u64, "{file}");
        let back = Graph::in_memory(Options::default());
        graphar::import(&back, &out, 10_000).unwrap();
        let snap = back.snapshot();
        let mut got = BTreeSet::new();
        for v in snap.vertices() {
            let a = snap.external_id(v).unwrap();
            for (o, w) in snap.out_weighted_of(v) {
                assert_eq!(w, 1.0);
                got.insert((a, snap.external_id(o).unwrap()));
            }
        }
        assert_eq!(got, expected, "{file}");
        let ends: BTreeSet<u64> = expected.iter().flat_map(|&(a, b)| [a, b]).collect();
        assert_eq!(snap.vertex_count(), ends.len() as u64, "{file}");
    }
}

// ---------------------------------------------------------------------------
// Damaged exports

fn exported() -> (tempfile::TempDir, PathBuf) {
    let g = every_kind_of_thing(Options::default());
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("x");
    graphar::export(&g.snapshot(), &out, Chunks::default()).unwrap();
    (tmp, out)
}

fn read_batch(file: &Path) -> RecordBatch {
    let f = std::fs::File::open(file).unwrap();
    let r = ParquetRecordBatchReaderBuilder::try_new(f)
        .unwrap()
        .build()
        .unwrap();
    let batches: Vec<RecordBatch> = r.map(Result::unwrap).collect();
    assert_eq!(batches.len(), 1);
    batches.into_iter().next().unwrap()
}

fn write_batch(file: &Path, batch: &RecordBatch) {
    let f = std::fs::File::create(file).unwrap();
    let mut w = ArrowWriter::try_new(f, batch.schema(), None).unwrap();
    w.write(batch).unwrap();
    w.close().unwrap();
}

/// `batch` with column `name` replaced by `array` (or dropped if `None`).
fn with_column(batch: &RecordBatch, name: &str, array: Option<ArrayRef>) -> RecordBatch {
    let mut fields = Vec::new();
    let mut columns = Vec::new();
    for (f, c) in batch.schema().fields().iter().zip(batch.columns()) {
        if f.name() != name {
            fields.push(f.as_ref().clone());
            columns.push(c.clone());
        } else if let Some(a) = &array {
            fields.push(Field::new(name, a.data_type().clone(), true));
            columns.push(a.clone());
        }
    }
    RecordBatch::try_new(Arc::new(Schema::new(fields)), columns).unwrap()
}

/// Imports the damaged export: it must fail naming `file` and `column`,
/// and leave the store empty.
fn refused(out: &Path, file: &Path, column: Option<&str>, says: &str) {
    let g = Graph::in_memory(Options::default());
    let err = graphar::import(&g, out, 10).unwrap_err();
    match &err {
        LoadError::Table {
            file: f, column: c, ..
        } => {
            assert_eq!(f, file, "{err}");
            assert_eq!(c.as_deref(), column, "{err}");
        }
        other => panic!("expected a table error, got {other}"),
    }
    let text = err.to_string();
    assert!(text.contains(says), "{text}");
    assert!(text.contains(&file.display().to_string()), "{text}");
    let snap = g.snapshot();
    assert_eq!((snap.vertex_count(), snap.edge_count()), (0, 0));
    assert!(snap.edges().is_empty());
}

fn person_chunk(out: &Path) -> PathBuf {
    out.join("vertex/person/properties/chunk0")
}

fn knows_adj(out: &Path) -> PathBuf {
    out.join("edge/person_knows_person/ordered_by_source/adj_list/part0/chunk0")
}

#[test]
fn a_missing_column_is_refused_by_file_and_column() {
    let (_tmp, out) = exported();
    let file = person_chunk(&out);
    let b = read_batch(&file);
    write_batch(&file, &with_column(&b, "_id", None));
    refused(&out, &file, Some("_id"), "missing column");
}

#[test]
fn a_column_of_the_wrong_type_is_refused_by_file_and_column() {
    let (_tmp, out) = exported();
    let file = knows_adj(&out);
    let b = read_batch(&file);
    let n = b.num_rows();
    let narrow: ArrayRef = Arc::new(Int32Array::from(vec![0; n]));
    write_batch(&file, &with_column(&b, "_graphArSrcIndex", Some(narrow)));
    refused(&out, &file, Some("_graphArSrcIndex"), "type Int32");
}

#[test]
fn a_vertex_id_given_twice_is_refused() {
    let (_tmp, out) = exported();
    let file = person_chunk(&out);
    let b = read_batch(&file);
    let twice: ArrayRef = Arc::new(Int64Array::from(vec![0i64; b.num_rows()]));
    write_batch(&file, &with_column(&b, "_id", Some(twice)));
    refused(&out, &file, Some("_id"), "vertex id 0 twice");
}

#[test]
fn an_edge_end_that_names_no_vertex_is_refused() {
    let (_tmp, out) = exported();
    let file = knows_adj(&out);
    let b = read_batch(&file);
    let far: ArrayRef = Arc::new(Int64Array::from(vec![99i64; b.num_rows()]));
    write_batch(&file, &with_column(&b, "_graphArDstIndex", Some(far)));
    refused(
        &out,
        &file,
        Some("_graphArDstIndex"),
        "index 99 is not a vertex",
    );
}

#[test]
fn a_truncated_or_missing_file_is_refused() {
    let (_tmp, out) = exported();
    let file = person_chunk(&out);
    let bytes = std::fs::read(&file).unwrap();
    for cut in [bytes.len() / 2, bytes.len() - 1, 0] {
        std::fs::write(&file, &bytes[..cut]).unwrap();
        refused(&out, &file, None, "not a readable Parquet file");
    }
    std::fs::remove_file(&file).unwrap();
    let g = Graph::in_memory(Options::default());
    let err = graphar::import(&g, &out, 10).unwrap_err();
    assert!(matches!(err, LoadError::Io { .. }), "{err}");
    assert!(err.to_string().contains("chunk0"), "{err}");
    assert_eq!(g.snapshot().vertex_count(), 0);
}

#[test]
fn a_damaged_encoded_value_is_refused_by_column() {
    let (_tmp, out) = exported();
    // `nested` holds a list of mixed elements: an engine-encoded column.
    let file = out.join("vertex/software/properties/chunk0");
    let b = read_batch(&file);
    let i = b.schema().index_of("nested").unwrap();
    let field = b.schema().field(i).clone();
    let damaged: ArrayRef = Arc::new(arrow_array::BinaryArray::from(vec![
        Some(&[0xfeu8][..]);
        b.num_rows()
    ]));
    let mut fields: Vec<Field> = b
        .schema()
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields[i] = field;
    let mut cols = b.columns().to_vec();
    cols[i] = damaged;
    let batch = RecordBatch::try_new(Arc::new(Schema::new(fields)), cols).unwrap();
    write_batch(&file, &batch);
    refused(&out, &file, Some("nested"), "encoded value");
}

#[test]
fn an_export_loads_only_into_an_empty_store_of_its_kind() {
    let (_tmp, out) = exported();
    let undirected = Graph::in_memory(Options {
        directed: false,
        ..Options::default()
    });
    let err = graphar::import(&undirected, &out, 10).unwrap_err();
    assert!(err.to_string().contains("directed"), "{err}");
    let busy = Graph::in_memory(Options::default());
    busy.insert_vertex(5).unwrap();
    let err = graphar::import(&busy, &out, 10).unwrap_err();
    assert!(err.to_string().contains("already holds vertices"), "{err}");
    assert_eq!(busy.snapshot().vertex_count(), 1);
}

#[test]
fn an_export_never_overwrites_a_directory_with_files() {
    let g = every_kind_of_thing(Options::default());
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("keep"), b"x").unwrap();
    let err = graphar::export(&g.snapshot(), tmp.path(), Chunks::default()).unwrap_err();
    assert!(matches!(err, graphar::ExportError::NotEmpty(_)), "{err}");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 1);
}

#[test]
fn a_property_named_like_a_layout_column_is_refused() {
    let g = Graph::in_memory(Options::default());
    let mut tx = g.begin();
    tx.insert_vertex_with(1, "person", &[("_id", Value::Int32(1))])
        .unwrap();
    tx.commit().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("x");
    let err = graphar::export(&g.snapshot(), &out, Chunks::default()).unwrap_err();
    assert!(err.to_string().contains("\"_id\""), "{err}");
    assert!(!out.exists());
}

// ---------------------------------------------------------------------------
// Random graphs

#[derive(Debug, Clone)]
enum Op {
    Vertex(u8, u8, Vec<(u8, u8)>),
    Edge(u8, u8, u8, Vec<(u8, u8)>),
    Weighted(u8, u8, i8),
    DeleteVertex(u8),
}

/// A small random value: the type and the value both vary per key.
fn value(kind: u8, x: u8) -> Value {
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

fn props(raw: &[(u8, u8)]) -> Vec<(String, Value)> {
    let mut seen = BTreeMap::new();
    for &(k, x) in raw {
        seen.insert(format!("k{}", k % 4), value(k / 4, x));
    }
    seen.into_iter().collect()
}

fn op() -> impl Strategy<Value = Op> {
    let p = proptest::collection::vec((any::<u8>(), any::<u8>()), 0..4);
    prop_oneof![
        (0u8..24, 0u8..3, p.clone()).prop_map(|(v, l, p)| Op::Vertex(v, l, p)),
        (0u8..24, 0u8..24, 0u8..2, p).prop_map(|(a, b, l, p)| Op::Edge(a, b, l, p)),
        (0u8..24, 0u8..24, any::<i8>()).prop_map(|(a, b, w)| Op::Weighted(a, b, w)),
        (0u8..24).prop_map(Op::DeleteVertex),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_graphs_come_back_the_same(
        ops in proptest::collection::vec(op(), 0..60),
        directed in any::<bool>(),
        vertices in 1u64..5,
        edges in 1u64..5,
    ) {
        let g = Graph::in_memory(Options { directed, ..Options::default() });
        for op in ops {
            let mut tx = g.begin();
            let ok = match op {
                Op::Vertex(v, l, p) => {
                    let p = props(&p);
                    let p: Vec<(&str, Value)> = p.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
                    tx.insert_vertex_with(u64::from(v), ["a", "b", "vertex"][usize::from(l)], &p).is_ok()
                }
                Op::Edge(a, b, l, p) => {
                    let p = props(&p);
                    let p: Vec<(&str, Value)> = p.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
                    let (a, b) = (u64::from(a), u64::from(b));
                    tx.has_vertex(a) && tx.has_vertex(b)
                        && tx.add_edge(a, b, ["x", "y"][usize::from(l)], &p).is_ok()
                }
                Op::Weighted(a, b, w) => {
                    tx.insert_edge(u64::from(a), u64::from(b), f64::from(w)).is_ok()
                }
                Op::DeleteVertex(v) => tx.delete_vertex(u64::from(v)).is_ok(),
            };
            if ok {
                tx.commit().unwrap();
            }
        }
        let expected = dump(&g);
        let (back, _) = round_trip(&g, Chunks { vertices, edges });
        prop_assert_eq!(dump(&back), expected);
    }
}
