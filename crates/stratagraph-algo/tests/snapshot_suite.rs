//! Every LDBC Graphalytics validation case on the engine's snapshots: freshly
//! loaded, after churn that leaves versions in the adjacency runs, and on an
//! old snapshot read after the store has moved on.
#![allow(clippy::unwrap_used)] // tests may panic on bad fixtures

mod common;

use common::{assert_all_24_pass as assert_all_pass, graphalytics_dir};
use stratagraph::Snapshot;
use stratagraph_algo::graphalytics::{run_suite_with, GraphSpec};
use stratagraph_algo::{snapshot_of_spec, store_with_vertices};

#[test]
fn fresh_snapshots_two_threads() {
    assert_all_pass(&run_suite_with(&graphalytics_dir(), 2, snapshot_of_spec).unwrap());
}

#[test]
fn fresh_snapshots_one_thread() {
    assert_all_pass(&run_suite_with(&graphalytics_dir(), 1, snapshot_of_spec).unwrap());
}

/// Every third edge goes in by its own transaction, then is deleted and
/// inserted again while an older snapshot pins the old versions, so the
/// runs the kernels read hold tombstones and several versions per edge.
#[test]
fn snapshots_over_versioned_runs() {
    let outcomes = run_suite_with(&graphalytics_dir(), 2, |spec: &GraphSpec| {
        let g = store_with_vertices(spec)?;
        let (singles, batch): (Vec<_>, Vec<_>) =
            spec.edges.iter().enumerate().partition(|(i, _)| i % 3 == 0);
        let batch: Vec<_> = batch.into_iter().map(|(_, e)| *e).collect();
        g.insert_edges(&batch)?;
        for (_, &(s, d, w)) in &singles {
            g.insert_edge(s, d, w + 1.0)?;
        }
        let pin = g.snapshot();
        for (_, &(s, d, _)) in &singles {
            g.delete_edge(s, d)?;
        }
        for (_, &(s, d, w)) in &singles {
            g.insert_edge(s, d, w)?;
        }
        let snap = g.snapshot();
        drop(pin);
        Ok::<Snapshot, stratagraph::Error>(snap)
    })
    .unwrap();
    assert_all_pass(&outcomes);
}

/// The snapshot is taken right after loading; then half the edges are
/// deleted and unrelated edges and vertices added. Kernels on the old
/// snapshot must still see exactly the loaded graph.
#[test]
fn old_snapshot_after_the_store_moved_on() {
    let outcomes = run_suite_with(&graphalytics_dir(), 2, |spec: &GraphSpec| {
        let g = store_with_vertices(spec)?;
        g.insert_edges(&spec.edges)?;
        let snap = g.snapshot();
        let halves: Vec<(u64, u64)> = spec.edges.iter().step_by(2).map(|e| (e.0, e.1)).collect();
        g.delete_edges(&halves)?;
        let base = spec.vertices.iter().max().copied().unwrap_or(0) + 1;
        let extra: Vec<(u64, u64, f64)> = spec
            .vertices
            .iter()
            .map(|&v| (v, base + v % 7, 0.5))
            .collect();
        g.insert_edges(&extra)?;
        if let Some(&v) = spec.vertices.first() {
            g.delete_vertex(v)?;
        }
        Ok::<Snapshot, stratagraph::Error>(snap)
    })
    .unwrap();
    assert_all_pass(&outcomes);
}

/// Four fifths of the edges compacted into a level, the last fifth in the
/// MemGraph, and some compacted edges deleted and inserted again (a
/// tombstone and a new version above the level): the state in which a
/// scan hands kernels a level slice and the MemGraph's additions side by
/// side (`scan_*_unordered`) or merges them, on one and two threads.
#[test]
fn compacted_level_with_a_fifth_in_the_memgraph() {
    for threads in [1, 2] {
        let outcomes = run_suite_with(&graphalytics_dir(), threads, |spec: &GraphSpec| {
            let g = store_with_vertices(spec)?;
            let split = spec.edges.len() * 4 / 5;
            g.insert_edges(&spec.edges[..split])?;
            g.compact()?;
            g.insert_edges(&spec.edges[split..])?;
            for &(s, d, w) in spec.edges[..split].iter().step_by(11) {
                g.delete_edge(s, d)?;
                g.insert_edge(s, d, w)?;
            }
            Ok::<Snapshot, stratagraph::Error>(g.snapshot())
        })
        .unwrap();
        assert_all_pass(&outcomes);
    }
}

/// Packed levels (`Options::pack_levels`): every edge compacted into a
/// level whose lists are decoded as kernels read them (a bottom-up BFS
/// step a group at a time, SSSP's weight check from the weights alone),
/// and the same with the last fifth of the edges in the MemGraph above.
#[test]
fn packed_levels_alone_and_under_the_memgraph() {
    for (threads, fifth_above) in [(1, false), (2, false), (1, true), (2, true)] {
        let outcomes = run_suite_with(&graphalytics_dir(), threads, |spec: &GraphSpec| {
            let g = stratagraph::Graph::in_memory(stratagraph::Options {
                directed: spec.directed,
                pack_levels: true,
                ..stratagraph::Options::default()
            });
            let mut vertices = spec.vertices.clone();
            vertices.sort_unstable();
            g.insert_vertices(&vertices)?;
            let split = if fifth_above {
                spec.edges.len() * 4 / 5
            } else {
                spec.edges.len()
            };
            g.insert_edges(&spec.edges[..split])?;
            g.compact()?;
            g.insert_edges(&spec.edges[split..])?;
            Ok::<Snapshot, stratagraph::Error>(g.snapshot())
        })
        .unwrap();
        assert_all_pass(&outcomes);
    }
}
