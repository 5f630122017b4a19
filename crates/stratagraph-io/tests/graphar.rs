//! Parquet exports (Apache GraphAr's layout) and their import.
//!
//! The expected graph is never the exporter's own output: a round trip is
//! compared with the store it came from through the engine's read API (a
//! dump of every vertex, label, typed property and edge); the real graphs'
//! edges with the SNAP files read here by hand; and each damaged export
//! must fail naming the file and column that is wrong, leaving the store
//! empty.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod common;

use common::*;

use arrow_array::{ArrayRef, Int32Array, Int64Array, RecordBatch};
use arrow_schema::{Field, Schema};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use proptest::prelude::*;
use std::collections::BTreeSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use stratagraph::{Graph, Options, Value};
use stratagraph_io::graphar::{self, Chunks};
use stratagraph_io::{graphson, LoadError, LoadOptions};

fn round_trip(g: &Graph, chunks: Chunks) -> (Graph, graphar::Exported) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("export");
    let done = graphar::export(&g.snapshot(), &out, chunks).unwrap();
    let back = Graph::in_memory(g.options().clone());
    graphar::import(&back, &out, 7).unwrap();
    (back, done)
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
        apply(&g, ops);
        let expected = dump(&g);
        let (back, _) = round_trip(&g, Chunks { vertices, edges });
        prop_assert_eq!(dump(&back), expected);
    }
}

// ---------------------------------------------------------------------------
// Damaged bytes: whatever a chunk file holds, an import returns (an error,
// or the graph if the damage missed everything it reads); it never panics.

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn damaged_chunk_bytes_never_panic(
        which in 0usize..4,
        flips in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in proptest::option::of(any::<prop::sample::Index>()),
    ) {
        let (_tmp, out) = exported();
        let files = [
            person_chunk(&out),
            knows_adj(&out),
            out.join("vertex/software/properties/chunk0"),
            out.join("edge/person_knows_person/ordered_by_source/properties/part0/chunk0"),
        ];
        let file = &files[which];
        let mut bytes = std::fs::read(file).unwrap();
        for (at, x) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x | 1;
        }
        if let Some(c) = cut {
            bytes.truncate(c.index(bytes.len()));
        }
        std::fs::write(file, &bytes).unwrap();
        let g = Graph::in_memory(Options::default());
        if graphar::import(&g, &out, 10).is_err() {
            prop_assert_eq!(g.snapshot().vertex_count(), 0);
        }
    }
}
