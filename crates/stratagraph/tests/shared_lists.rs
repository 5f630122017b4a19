//! `Snapshot::shared_out_lists`: the out-lists a snapshot hands out as a
//! segment's own columns. Every list it shares must be exactly the
//! vertex's out-list with its weights, as a model of the writes made (a
//! map of edges) says; after a full compaction it shares every list; a
//! write after that takes only the vertices it touched out of the runs,
//! for the snapshots that see it; and shared columns stay readable after
//! the segment is compacted away and the store closed. These stores keep
//! their weights as `f64`s (`Options::compress_levels` off) so that both
//! columns can be shared; a level of packed destinations shares none.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::BTreeMap;
use stratagraph::{Graph, Options, SharedLists, Snapshot};

type Model = BTreeMap<(u64, u64), f64>;

fn opts(directed: bool) -> Options {
    Options {
        directed,
        sync: stratagraph::SyncPolicy::Never,
        compress_levels: false,
        ..Options::default()
    }
}

/// A directed store in memory holding `edges` in one packed level, and the
/// model of them (a repeated edge keeps its last weight).
fn packed_store(edges: &[(u64, u64, f64)]) -> (Graph, Model) {
    let g = Graph::in_memory(Options {
        pack_levels: true,
        ..opts(true)
    });
    g.insert_edges(edges).unwrap();
    g.compact().unwrap();
    (g, edges.iter().map(|&(s, d, w)| ((s, d), w)).collect())
}

#[test]
fn a_packed_level_shares_no_list_and_reads_the_same() {
    let edges: Vec<(u64, u64, f64)> = (0..5000u64)
        .map(|i| {
            (
                i % 300,
                (i * 7919) % 1000,
                if i % 3 == 0 { 2.5 } else { 1.0 },
            )
        })
        .collect();
    let (g, model) = packed_store(&edges);
    let snap = g.snapshot();
    assert!(snap.shared_out_lists().is_empty());
    let mut got = Model::new();
    for v in snap.vertices() {
        let s = snap.external_id(v).unwrap();
        for (d, w) in snap.out_weighted_of(v) {
            got.insert((s, snap.external_id(d).unwrap()), w);
        }
    }
    assert_eq!(got, model);
}

/// A packed level's list is decoded into a per-thread buffer and walked
/// while the callback runs; a callback that reads other packed lists (as a
/// kernel reading its neighbours' lists would) gets lists of its own and
/// leaves the one being walked whole.
#[test]
fn packed_lists_read_inside_a_packed_lists_callback_stay_whole() {
    let edges = edges(6000, 400, 11);
    let (g, model) = packed_store(&edges);
    let snap = g.snapshot();
    let ext = |v: u32| snap.external_id(v).unwrap();
    let out_of = |s: u64| -> Vec<(u64, f64)> {
        model
            .range((s, 0)..=(s, u64::MAX))
            .map(|(&(_, d), &w)| (d, w))
            .collect()
    };
    let mut checked = 0;
    for v in snap.vertices() {
        let mut outer = Vec::new();
        snap.for_each_out_weighted_unordered_of(v, |d, w| {
            outer.push((ext(d), w));
            let mut inner = Vec::new();
            snap.for_each_out_weighted_unordered_of(d, |e, x| inner.push((ext(e), x)));
            inner.sort_by_key(|p| p.0);
            assert_eq!(inner, out_of(ext(d)), "weighted list of {} inside", ext(d));
            let mut plain = Vec::new();
            snap.for_each_out_unordered_of(d, |e| plain.push(ext(e)));
            plain.sort_unstable();
            let want: Vec<u64> = out_of(ext(d)).iter().map(|p| p.0).collect();
            assert_eq!(plain, want, "list of {} inside", ext(d));
            checked += 1;
        });
        outer.sort_by_key(|p| p.0);
        assert_eq!(outer, out_of(ext(v)), "weighted list of {} around", ext(v));
        let mut outer = Vec::new();
        snap.for_each_out_unordered_of(v, |d| {
            outer.push(ext(d));
            snap.for_each_out_unordered_of(d, |_| {});
        });
        outer.sort_unstable();
        let want: Vec<u64> = out_of(ext(v)).iter().map(|p| p.0).collect();
        assert_eq!(outer, want, "list of {} around", ext(v));
    }
    assert_eq!(checked, model.len());
}

/// A deterministic pseudo-random graph: `n` edges among `v` vertices,
/// every third weight not 1.0.
fn edges(n: usize, v: u64, seed: u64) -> Vec<(u64, u64, f64)> {
    let mut x = seed;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|i| {
            let (s, d) = (next() % v, next() % v);
            let w = if i % 3 == 0 {
                (i % 17) as f64 + 0.5
            } else {
                1.0
            };
            (s, d, w)
        })
        .filter(|(s, d, _)| s != d)
        .collect()
}

fn apply(model: &mut Model, es: &[(u64, u64, f64)], directed: bool) {
    for &(s, d, w) in es {
        model.insert((s, d), w);
        if !directed {
            model.insert((d, s), w);
        }
    }
}

/// Checks every shared list against the model (external ids) and returns
/// the internal ids the runs cover.
fn check_runs(snap: &Snapshot, runs: &[SharedLists], model: &Model) -> Vec<u32> {
    let mut covered = Vec::new();
    let mut last_end = 0;
    for run in runs {
        let vs = run.vertices();
        assert!(vs.start >= last_end, "runs ascend and do not overlap");
        last_end = vs.end;
        let offs = run.offsets();
        assert_eq!(offs.len(), vs.len() + 1);
        assert_eq!(run.dsts().len(), run.entries().len());
        let base = run.entries().start;
        assert_eq!(offs[0] as usize, base);
        // The byte columns say the same as the typed views.
        let dst_bytes = run.dsts_column();
        let from_bytes: Vec<u32> = dst_bytes
            .as_ref()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect();
        assert_eq!(from_bytes, run.dsts());
        if let Some(w) = run.weights_column() {
            let ws: Vec<f64> = w
                .as_ref()
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap()))
                .collect();
            assert_eq!(Some(ws), run.weights().map(|w| w.to_vec()));
        }
        for (i, v) in vs.clone().enumerate() {
            let (a, b) = (offs[i] as usize - base, offs[i + 1] as usize - base);
            let got: Vec<(u64, f64)> = (a..b)
                .map(|e| {
                    let d = snap.external_id(run.dsts()[e]).unwrap();
                    let w = run.weights().map_or(1.0, |w| w.get(e).unwrap());
                    (d, w)
                })
                .collect();
            let want: Vec<(u64, f64)> = match snap.external_id(v) {
                Some(src) => {
                    let mut l: Vec<(u64, f64, u32)> = model
                        .range((src, 0)..=(src, u64::MAX))
                        .map(|(&(_, d), &w)| (d, w, snap.internal_id(d).unwrap()))
                        .collect();
                    // Lists are in internal id order.
                    l.sort_by_key(|x| x.2);
                    l.into_iter().map(|(d, w, _)| (d, w)).collect()
                }
                None => Vec::new(),
            };
            assert_eq!(got, want, "out-list of internal vertex {v}");
            covered.push(v);
        }
    }
    covered
}

/// The internal ids of the vertices with out-edges at `snap`.
fn with_out_edges(snap: &Snapshot) -> Vec<u32> {
    snap.vertices()
        .filter(|&v| snap.out_degree_of(v) > 0)
        .collect()
}

#[test]
fn after_a_full_compaction_every_list_is_shared_and_exact() {
    for directed in [true, false] {
        let g = Graph::in_memory(opts(directed));
        let mut model = Model::new();
        for (i, chunk) in edges(20_000, 3_000, 7).chunks(4_000).enumerate() {
            g.insert_edges(chunk).unwrap();
            apply(&mut model, chunk, directed);
            if i % 2 == 0 {
                g.flush().unwrap();
            }
        }
        g.compact().unwrap();
        let snap = g.snapshot();
        let runs = snap.shared_out_lists();
        let covered = check_runs(&snap, &runs, &model);
        let with_edges = with_out_edges(&snap);
        for v in with_edges {
            assert!(covered.binary_search(&v).is_ok(), "vertex {v} not shared");
        }
        let shared: usize = runs.iter().map(|r| r.dsts().len()).sum();
        assert_eq!(shared, model.len(), "directed={directed}");
    }
}

#[test]
fn a_write_after_compaction_unshares_only_what_it_touched_for_snapshots_that_see_it() {
    let g = Graph::in_memory(opts(true));
    let mut model = Model::new();
    let es = edges(30_000, 5_000, 11);
    g.insert_edges(&es).unwrap();
    apply(&mut model, &es, true);
    g.compact().unwrap();
    let before = g.snapshot();
    let old_model = model.clone();

    // An insert, a re-weight and a delete, at three different sources.
    let (s1, d1) = (es[10].0, es[10].1);
    let (s2, d2) = (es[20].0, es[20].1);
    g.insert_edge(4_999, 4_998, 3.0).unwrap();
    model.insert((4_999, 4_998), 3.0);
    g.insert_edge(s1, d1, 42.0).unwrap();
    model.insert((s1, d1), 42.0);
    g.delete_edge(s2, d2).unwrap();
    model.remove(&(s2, d2));

    let after = g.snapshot();
    let covered = check_runs(&after, &after.shared_out_lists(), &model);
    for src in [4_999, s1, s2] {
        let v = after.internal_id(src).unwrap();
        assert!(
            covered.binary_search(&v).is_err(),
            "written vertex {src} shared"
        );
    }
    // Everything else still is.
    let untouched = after
        .vertices()
        .filter(|&v| after.out_degree_of(v) > 0)
        .filter(|&v| ![4_999, s1, s2].contains(&after.external_id(v).unwrap()))
        .filter(|v| covered.binary_search(v).is_err())
        .count();
    assert_eq!(untouched, 0);

    // The snapshot from before the writes still reads the segment as it
    // stands, so it shares every list, as the old model says.
    let covered = check_runs(&before, &before.shared_out_lists(), &old_model);
    let shared_before = covered.len();
    assert!(
        shared_before
            >= before
                .vertices()
                .filter(|&v| before.out_degree_of(v) > 0)
                .count()
    );
}

#[test]
fn nothing_is_shared_where_no_single_source_holds_the_lists() {
    let g = Graph::in_memory(opts(true));
    // Only the MemGraph.
    g.insert_edges(&edges(1_000, 200, 3)).unwrap();
    assert!(g.snapshot().shared_out_lists().is_empty());
    // Two L0 runs.
    g.flush().unwrap();
    g.insert_edges(&edges(1_000, 200, 5)).unwrap();
    g.flush().unwrap();
    assert!(g.snapshot().shared_out_lists().is_empty());
}

#[test]
fn shared_columns_outlive_the_segment_file_and_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path(), opts(true)).unwrap();
    let es = edges(10_000, 2_000, 13);
    g.insert_edges(&es).unwrap();
    g.compact().unwrap();
    let snap = g.snapshot();
    let runs = snap.shared_out_lists();
    assert!(!runs.is_empty());
    let cols: Vec<_> = runs.iter().map(|r| r.dsts_column()).collect();
    let want: Vec<Vec<u32>> = runs.iter().map(|r| r.dsts().to_vec()).collect();
    drop(runs);
    drop(snap);
    // A compaction after more writes replaces the level (its file is
    // deleted once no snapshot holds it); then the store closes.
    g.insert_edges(&edges(5_000, 2_000, 17)).unwrap();
    g.compact().unwrap();
    g.close().unwrap();
    drop(g);
    for (c, w) in cols.iter().zip(&want) {
        let got: Vec<u32> = c
            .as_ref()
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes(b.try_into().unwrap()))
            .collect();
        assert_eq!(&got, w);
    }
}

/// A flush's run that is the only source below the MemGraph gives rows
/// only to the vertices with out-edges (a sparse segment, as 40 sources
/// of 1,000 edges among 11,000 vertices make it): their lists are shared,
/// each exact, and the vertices between, without a row, end the runs.
#[test]
fn a_sparse_run_shares_the_lists_of_the_vertices_it_holds() {
    let g = Graph::in_memory(opts(true));
    let es: Vec<(u64, u64, f64)> = (0..1_000u64)
        .map(|i| ((i % 40) * 97, 5_000 + i, if i % 3 == 0 { 2.5 } else { 1.0 }))
        .collect();
    let mut model = Model::new();
    g.insert_edges(&es).unwrap();
    let lone: Vec<u64> = (20_000..30_000).collect();
    g.insert_vertices(&lone).unwrap();
    apply(&mut model, &es, true);
    g.flush().unwrap();
    let snap = g.snapshot();
    let runs = snap.shared_out_lists();
    let covered = check_runs(&snap, &runs, &model);
    let with_edges = with_out_edges(&snap);
    assert_eq!(with_edges.len(), 40);
    assert_eq!(covered, with_edges);
    let shared: usize = runs.iter().map(|r| r.dsts().len()).sum();
    assert_eq!(shared, model.len());
}
