//! `Options::max_vertex_ids`: every write path that would take a new
//! internal id past the cap is refused with `VertexIdsExhausted` naming the
//! vertex and the cap, and changes nothing; ids already held (deleted
//! vertices' too) stay usable; the cap is not stored, and a reopened store
//! keeps every id it holds whatever the cap.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use stratagraph::{Error, Graph, Options, Snapshot};

fn capped(max_vertex_ids: u64) -> Options {
    Options {
        max_vertex_ids,
        ..Options::default()
    }
}

/// Asserts `r` is the cap's refusal for external id `vertex`.
fn refused<T: std::fmt::Debug>(r: stratagraph::Result<T>, vertex: u64, limit: u64) {
    match r {
        Err(Error::VertexIdsExhausted {
            vertex: v,
            limit: l,
            ..
        }) if v == vertex && l == limit => {}
        other => {
            panic!("expected the cap to refuse vertex {vertex} (limit {limit}), got {other:?}")
        }
    }
}

/// Vertices and edges (external ids) a snapshot holds.
fn contents(s: &Snapshot) -> (Vec<u64>, Vec<(u64, u64)>) {
    let ext = |v| s.external_id(v).unwrap();
    let vertices: Vec<u64> = s.vertices().map(ext).collect();
    let mut edges = Vec::new();
    for v in s.vertices() {
        for (d, _) in s.out_weighted_of(v) {
            edges.push((ext(v), ext(d)));
        }
    }
    edges.sort_unstable();
    (vertices, edges)
}

#[test]
fn every_write_path_refuses_a_new_id_past_the_cap_and_changes_nothing() {
    let g = Graph::in_memory(capped(3));
    g.insert_edge(10, 11, 1.0).unwrap();
    g.insert_vertex(12).unwrap();
    let before = contents(&g.snapshot());

    refused(g.insert_vertex(13), 13, 3);
    refused(g.insert_edge(10, 13, 1.0), 13, 3);
    refused(g.insert_edges(&[(10, 12, 1.0), (12, 14, 1.0)]), 14, 3);
    refused(g.insert_vertices(&[12, 15]), 15, 3);
    let mut tx = g.begin();
    tx.insert_edge(11, 12, 1.0).unwrap();
    refused(tx.insert_edge(12, 16, 1.0), 16, 3);
    drop(tx);
    assert_eq!(contents(&g.snapshot()), before);

    // Ids already held stay usable, a deleted vertex's too.
    g.delete_vertex(10).unwrap();
    g.insert_edges(&[(12, 10, 2.0), (11, 12, 1.0)]).unwrap();
    let s = g.snapshot();
    assert_eq!(s.vertex_count(), 3);
    assert_eq!(contents(&s).1, vec![(11, 12), (12, 10)]);
}

#[test]
fn a_bulk_load_past_the_cap_is_refused_whole() {
    let g = Graph::in_memory(Options {
        bulk_load_min_edges: 1,
        ..capped(100)
    });
    // Ids go in first-sight order, two per edge: edge 50's source would
    // take id 100.
    let too_many: Vec<(u64, u64, f64)> = (0..60).map(|i| (i, 1000 + i, 1.0)).collect();
    refused(g.insert_edges(&too_many), 50, 100);
    assert_eq!(g.snapshot().edge_count(), 0);
    assert_eq!(g.snapshot().vertex_count(), 0);
    // The refused batch's first ids were taken: a store never hands an id
    // back. Loads naming them still go through.
    g.insert_edges(&too_many[..50]).unwrap();
    assert_eq!(g.snapshot().edge_count(), 50);
}

#[test]
fn the_cap_is_not_stored_and_a_smaller_one_keeps_existing_ids() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path(), capped(5)).unwrap();
    g.insert_vertices(&[1, 2, 3, 4, 5]).unwrap();
    refused(g.insert_vertex(6), 6, 5);
    g.close().unwrap();
    drop(g);

    // Reopened under a smaller cap: all five stay, none is added.
    let g = Graph::open(dir.path(), capped(2)).unwrap();
    assert_eq!(g.snapshot().vertex_count(), 5);
    g.insert_edge(1, 5, 1.0).unwrap();
    refused(g.insert_vertex(6), 6, 5);
    // Dropped without close: the next open replays the log.
    drop(g);

    let g = Graph::open(dir.path(), Options::default()).unwrap();
    assert!(g.snapshot().has_edge(1, 5));
    g.insert_vertex(6).unwrap();
    assert_eq!(g.snapshot().vertex_count(), 6);
    g.close().unwrap();
}
