//! A snapshot as Arrow tables (`tables::vertex_table`, `edge_table`) and
//! such tables into a store (`tables::load`): the round trip gives the
//! same graph, as the engine's read API shows it before and after.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod common;

use common::*;
use proptest::prelude::*;
use std::path::Path;
use stratagraph::{Graph, Options};
use stratagraph_io::graphson;
use stratagraph_io::tables::{self, Table, VertexIds};
use stratagraph_io::LoadOptions;

fn round_trip(g: &Graph) -> Graph {
    let back = round_trip_with(g, VertexIds::User);
    assert_eq!(
        dump(&round_trip_with(g, VertexIds::Internal)),
        dump(&back),
        "internal ids"
    );
    back
}

fn round_trip_with(g: &Graph, ids: VertexIds) -> Graph {
    let snap = g.snapshot();
    let (schema, batches) = tables::vertex_table_with(&snap, ids).unwrap();
    let vertices = Table {
        name: "vertices".into(),
        schema,
        batches,
    };
    let (schema, batches) = tables::edge_table_with(&snap, ids).unwrap();
    let edges = Table {
        name: "edges".into(),
        schema,
        batches,
    };
    let back = Graph::in_memory(g.options().clone());
    tables::load(&back, Some(&vertices), Some(&edges), 3).unwrap();
    back
}

#[test]
fn every_value_type_label_and_edge_comes_back_the_same() {
    for (directed, string_ids) in [(true, false), (false, false), (true, true), (false, true)] {
        let g = every_kind_of_thing(Options {
            directed,
            string_ids,
            ..Options::default()
        });
        assert_eq!(dump(&round_trip(&g)), dump(&g), "{directed} {string_ids}");
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
    assert_eq!(dump(&round_trip(&g)), expected);
}

#[test]
fn a_property_named_like_a_table_column_is_refused() {
    let g = Graph::in_memory(Options::default());
    let mut tx = g.begin();
    tx.insert_vertex_with(1, "p", &[("_label", s("x"))])
        .unwrap();
    tx.commit().unwrap();
    let err = tables::vertex_table(&g.snapshot()).unwrap_err();
    assert!(err.to_string().contains("\"_label\""), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_graphs_come_back_the_same(
        ops in proptest::collection::vec(op(), 0..60),
        directed in any::<bool>(),
    ) {
        let g = Graph::in_memory(Options { directed, ..Options::default() });
        apply(&g, ops);
        prop_assert_eq!(dump(&round_trip(&g)), dump(&g));
    }
}

// ---------------------------------------------------------------------------
// Internal ids: a compacted level's columns go out without a copy.

/// Pseudo-random weighted edges among `n` vertices with ids far from
/// their internal ids (so a table naming vertices wrongly cannot pass).
fn scattered_edges(count: usize, n: u64, weighted: bool) -> Vec<(u64, u64, f64)> {
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let mut model = std::collections::BTreeMap::new();
    for i in 0..count {
        let (s, d) = (next() % n * 7 + 1_000, next() % n * 7 + 1_000);
        if s != d {
            let w = if weighted && i % 2 == 0 {
                (i % 9) as f64 + 0.25
            } else {
                1.0
            };
            model.insert((s, d), w);
        }
    }
    model.into_iter().map(|((s, d), w)| (s, d, w)).collect()
}

/// The edge table's rows as (source `_id`, destination `_id`, weight),
/// through the vertex table's `_vid` to `_id` map, sorted.
fn rows_by_user_id(
    vertices: &[arrow_array::RecordBatch],
    edges: &[arrow_array::RecordBatch],
) -> Vec<(u64, u64, f64)> {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, Int64Type, UInt32Type};
    let mut id_of = std::collections::HashMap::new();
    for b in vertices {
        let vid = b
            .column_by_name("_vid")
            .unwrap()
            .as_primitive::<UInt32Type>();
        let id = b.column_by_name("_id").unwrap().as_primitive::<Int64Type>();
        for i in 0..b.num_rows() {
            id_of.insert(vid.value(i), id.value(i) as u64);
        }
    }
    let mut rows = Vec::new();
    for b in edges {
        let src = b
            .column_by_name("_src")
            .unwrap()
            .as_primitive::<UInt32Type>();
        let dst = b
            .column_by_name("_dst")
            .unwrap()
            .as_primitive::<UInt32Type>();
        let w = b
            .column_by_name("_weight")
            .map(|c| c.as_primitive::<Float64Type>().clone());
        for i in 0..b.num_rows() {
            rows.push((
                id_of[&src.value(i)],
                id_of[&dst.value(i)],
                w.as_ref().map_or(1.0, |w| w.value(i)),
            ));
        }
    }
    rows.sort_by(|a, b| a.partial_cmp(b).unwrap());
    rows
}

#[test]
fn a_compacted_directed_graph_hands_out_its_destinations_and_weights_without_a_copy() {
    let dir = tempfile::tempdir().unwrap();
    // (on disk, weighted, weights coded, destinations packed): coded
    // weights are decoded into a column of their own and destinations
    // shared; a packed level shares nothing.
    for (on_disk, weighted, compress, pack) in [
        (false, true, false, false),
        (true, true, false, false),
        (true, false, true, false),
        (true, true, true, false),
        (true, true, true, true),
    ] {
        let opts = Options {
            directed: true,
            compress_levels: compress,
            pack_levels: pack,
            ..Options::default()
        };
        let g = if on_disk {
            let path = dir.path().join(format!("{weighted}-{compress}-{pack}"));
            Graph::open(&path, opts).unwrap()
        } else {
            Graph::in_memory(opts)
        };
        let edges = scattered_edges(200_000, 20_000, weighted);
        for chunk in edges.chunks(50_000) {
            g.insert_edges(chunk).unwrap();
            g.flush().unwrap();
        }
        g.compact().unwrap();
        let snap = g.snapshot();
        let (vschema, vertices) = tables::vertex_table_with(&snap, VertexIds::Internal).unwrap();
        assert_eq!(vschema.field(0).name(), "_vid");
        let (schema, batches) = tables::edge_table_with(&snap, VertexIds::Internal).unwrap();
        let names: Vec<&str> = schema.fields().iter().map(|f| f.name().as_str()).collect();
        let want: &[&str] = if weighted {
            &["_src", "_dst", "_weight"]
        } else {
            &["_src", "_dst"]
        };
        assert_eq!(
            names, want,
            "no property edge: no _id, _label; weights iff some is not 1.0"
        );
        assert_eq!(rows_by_user_id(&vertices, &batches), edges);

        // Every batch's destinations (and weights) lie inside a shared
        // run's columns: the same memory, not a copy of it. A packed
        // level shares nothing.
        let runs = snap.shared_out_lists();
        if pack {
            assert!(runs.is_empty());
            continue;
        }
        let inside =
            |p: *const u8,
             len: usize,
             col: &dyn Fn(&stratagraph::SharedLists) -> Option<(usize, usize)>| {
                runs.iter().any(|r| {
                    col(r).is_some_and(|(start, bytes)| {
                        let (p, start) = (p as usize, start);
                        p >= start && p + len <= start + bytes
                    })
                })
            };
        let mut shared_rows = 0;
        for b in &batches {
            let n = b.num_rows();
            let p = values_ptr(b.column_by_name("_dst").unwrap());
            assert!(
                inside(p, n * 4, &|r| Some((
                    r.dsts().as_ptr() as usize,
                    r.dsts().len() * 4
                ))),
                "a batch's _dst is a copy"
            );
            if weighted {
                let p = values_ptr(b.column_by_name("_weight").unwrap());
                let shared = inside(p, n * 8, &|r| {
                    r.weights()
                        .and_then(|w| w.as_raw())
                        .map(|w| (w.as_ptr() as usize, w.len() * 8))
                });
                assert_eq!(
                    shared, !compress,
                    "a batch's _weight is shared iff stored as f64s"
                );
            }
            shared_rows += n;
        }
        assert_eq!(shared_rows, edges.len());

        // The tables stay valid after the store moves on and closes.
        g.insert_edges(&[(1, 2, 1.0)]).unwrap();
        g.compact().unwrap();
        g.close().unwrap();
        drop(snap);
        drop(g);
        assert_eq!(rows_by_user_id(&vertices, &batches), edges);
    }
}

/// Where a column's values start (its offset applied).
fn values_ptr(c: &arrow_array::ArrayRef) -> *const u8 {
    use arrow_array::cast::AsArray;
    use arrow_array::types::{Float64Type, UInt32Type};
    match c.data_type() {
        arrow_schema::DataType::UInt32 => c.as_primitive::<UInt32Type>().values().as_ptr().cast(),
        _ => c.as_primitive::<Float64Type>().values().as_ptr().cast(),
    }
}

#[test]
fn writes_after_compaction_are_copied_and_the_rest_still_shared() {
    let g = Graph::in_memory(Options {
        directed: true,
        ..Options::default()
    });
    let mut edges = scattered_edges(100_000, 10_000, true);
    g.insert_edges(&edges).unwrap();
    g.compact().unwrap();
    // A re-weight, a delete and a new edge from a new vertex.
    let (s, d, _) = edges[500];
    g.insert_edge(s, d, 99.0).unwrap();
    edges[500].2 = 99.0;
    let (s, d, _) = edges.remove(40_000);
    g.delete_edge(s, d).unwrap();
    g.insert_edge(5, 6, 2.0).unwrap();
    edges.push((5, 6, 2.0));
    edges.sort_by(|a, b| a.partial_cmp(b).unwrap());
    let snap = g.snapshot();
    let (_, vertices) = tables::vertex_table_with(&snap, VertexIds::Internal).unwrap();
    let (_, batches) = tables::edge_table_with(&snap, VertexIds::Internal).unwrap();
    assert_eq!(rows_by_user_id(&vertices, &batches), edges);
    let shared: usize = snap.shared_out_lists().iter().map(|r| r.dsts().len()).sum();
    assert!(
        shared + 1_000 > edges.len(),
        "only the written lists are copied"
    );
}

#[test]
fn internal_tables_with_bad_vids_are_refused_and_change_nothing() {
    let g = Graph::in_memory(Options::default());
    g.insert_edges(&[(10, 20, 1.0), (20, 30, 0.5)]).unwrap();
    let snap = g.snapshot();
    let (vs, vb) = tables::vertex_table_with(&snap, VertexIds::Internal).unwrap();
    let (es, eb) = tables::edge_table_with(&snap, VertexIds::Internal).unwrap();
    let table = |name: &str, schema, batches| Table {
        name: name.into(),
        schema,
        batches,
    };
    // A repeated _vid.
    let doubled: Vec<_> = vb.iter().chain(vb.iter()).cloned().collect();
    let back = Graph::in_memory(Options::default());
    let err = tables::load(
        &back,
        Some(&table("vertices", vs.clone(), doubled)),
        Some(&table("edges", es.clone(), eb.clone())),
        10,
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("_vid") && msg.contains("also in row"), "{msg}");
    assert_eq!(back.snapshot().vertex_count(), 0);
    // An edge naming a _vid the vertex table lacks.
    let first = vb[0].slice(0, 2);
    let err = tables::load(
        &back,
        Some(&table("vertices", vs, vec![first])),
        Some(&table("edges", es, eb)),
        10,
    )
    .unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("no _vid of the vertex table") && msg.contains("edges"),
        "{msg}"
    );
    assert_eq!(back.snapshot().vertex_count(), 0);
}
