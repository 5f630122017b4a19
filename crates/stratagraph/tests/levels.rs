//! Levels: L0 runs merged into L1, parts of over-full levels pushed down,
//! vertex-range parts with the page index, on a graph large enough to
//! spread over many pages, checked against a model through snapshots held
//! across the whole history, in memory and on disk.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::BTreeMap;
use stratagraph::{Graph, Options, RunInfo, Snapshot, SyncPolicy};

/// Edges by (source, destination) -> weight, as external ids.
type Model = BTreeMap<(u64, u64), f64>;

/// Vertices the workload touches: enough for a dozen index pages.
const VERTICES: u64 = 12_000;

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

fn options() -> Options {
    Options {
        // ~170 versions per flush and a ratio of 3: L1 holds ~1000
        // entries, L2 ~3000, so the workload fills four or five levels.
        memgraph_bytes: 2048,
        level_ratio: 3,
        threads: 2,
        sync: SyncPolicy::Never,
        ..Options::default()
    }
}

/// A mix of skewed single writes, batches and deletes; returns snapshots
/// taken along the way with the model state each must show.
fn workload(g: &Graph, model: &mut Model, seed: u64, steps: u64) -> Vec<(Snapshot, Model)> {
    let mut rng = Rng(seed);
    let mut held = Vec::new();
    for step in 0..steps {
        // Half the writes go to a hot corner, so some parts receive
        // data in every merge and others in few.
        let vertex = |rng: &mut Rng| {
            if rng.below(2) == 0 {
                rng.below(600)
            } else {
                rng.below(VERTICES)
            }
        };
        match rng.below(10) {
            0..=4 => {
                let (a, b) = (vertex(&mut rng), vertex(&mut rng));
                let w = (rng.below(5) + 1) as f64;
                g.insert_edge(a, b, w).unwrap();
                model.insert((a, b), w);
            }
            5 | 6 => {
                // Delete an edge that exists (found in the model).
                let a = vertex(&mut rng);
                if let Some((&k, _)) = model.range((a, 0)..).next() {
                    g.delete_edge(k.0, k.1).unwrap();
                    model.remove(&k);
                }
            }
            _ => {
                let a = vertex(&mut rng);
                let batch: Vec<(u64, u64, f64)> = (0..40)
                    .map(|_| (a, rng.below(VERTICES), (rng.below(3) + 1) as f64))
                    .collect();
                g.insert_edges(&batch).unwrap();
                for &(s, d, w) in &batch {
                    model.insert((s, d), w);
                }
            }
        }
        if step % 500 == 0 {
            held.push((g.snapshot(), model.clone()));
        }
    }
    held
}

/// Every edge of the snapshot, read vertex by vertex through both the
/// iterator and the whole-graph scan, against the model.
fn check(s: &Snapshot, want: &Model) {
    let mut got = Model::new();
    for v in 0..s.id_bound() {
        let src = s.external_id(v).unwrap();
        for (d, w) in s.out_weighted_of(v) {
            got.insert((src, s.external_id(d).unwrap()), w);
        }
    }
    assert_eq!(got.len(), want.len());
    assert!(
        got == *want,
        "snapshot {} differs from the model",
        s.timestamp()
    );
    check_unordered_weights(s, want);
    let mut scanned = 0usize;
    s.scan_out(0..s.id_bound(), |v, list| {
        let src = s.external_id(v).unwrap();
        for &d in list {
            assert!(want.contains_key(&(src, s.external_id(d).unwrap())));
        }
        scanned += list.len();
    });
    assert_eq!(scanned, want.len());
    // Unordered, in pieces: the same edges, none twice.
    let mut pieces = Model::new();
    s.scan_out_unordered(0..s.id_bound(), |v, parts| {
        let src = s.external_id(v).unwrap();
        for &d in parts.iter().flat_map(|l| l.iter()) {
            let e = (src, s.external_id(d).unwrap());
            assert!(pieces.insert(e, want[&e]).is_none(), "{e:?} twice");
        }
    });
    assert!(pieces == *want, "unordered scan of {}", s.timestamp());
    assert_eq!(s.edge_count() as usize, want.len());
    // In-edges agree with out-edges.
    let mut inn = 0;
    for v in 0..s.id_bound() {
        inn += s.in_neighbors_of(v).count();
    }
    assert_eq!(inn, want.len());
}

/// Parts of each level are disjoint and ascending, starting on pages.
fn check_shape(runs: &[RunInfo]) {
    let mut last: BTreeMap<u32, u32> = BTreeMap::new();
    for r in runs.iter().filter(|r| r.level > 0) {
        assert_eq!(r.vertices.start % 1024, 0, "{r:?}");
        let end = last.entry(r.level).or_insert(0);
        assert!(r.vertices.start >= *end, "overlapping parts: {r:?}");
        *end = r.vertices.end;
    }
}

#[test]
fn levels_in_memory_keep_every_snapshot_exact() {
    let g = Graph::in_memory(options());
    let mut model = Model::new();
    let held = workload(&g, &mut model, 7, 6000);
    g.flush().unwrap();
    let runs = g.runs();
    check_shape(&runs);
    let deepest = runs.iter().map(|r| r.level).max().unwrap_or(0);
    let parts_in_a_level =
        runs.iter()
            .filter(|r| r.level > 0)
            .fold(BTreeMap::<u32, usize>::new(), |mut m, r| {
                *m.entry(r.level).or_default() += 1;
                m
            });
    assert!(
        deepest >= 3,
        "the workload should fill three levels: {runs:?}"
    );
    assert!(
        parts_in_a_level.values().any(|&n| n >= 3),
        "some level should be split into parts: {runs:?}"
    );
    assert!(g.stats().compactions > 5);
    for (s, want) in &held {
        check(s, want);
    }
    check(&g.snapshot(), &model);
}

#[test]
fn levels_on_disk_reopen_and_close_into_one_level() {
    let dir = tempfile::tempdir().unwrap();
    let mut model = Model::new();
    {
        let g = Graph::open(dir.path(), options()).unwrap();
        let held = workload(&g, &mut model, 11, 4000);
        for (s, want) in &held {
            check(s, want);
        }
        // Dropped without close: the store is closed by the last handle.
    }
    let g = Graph::open(dir.path(), options()).unwrap();
    check(&g.snapshot(), &model);
    // Closing merged everything into one level of several parts.
    let runs = g.runs();
    check_shape(&runs);
    let levels: std::collections::BTreeSet<u32> = runs.iter().map(|r| r.level).collect();
    assert_eq!(levels.len(), 1, "{runs:?}");
    assert!(!levels.contains(&0));
    assert!(runs.len() >= 2, "{runs:?}");
    // More writes on the reopened store, then a reopen again.
    let held = workload(&g, &mut model, 12, 2000);
    for (s, want) in &held {
        check(s, want);
    }
    drop(held);
    g.close().unwrap();
    drop(g);
    let report = stratagraph::check(dir.path()).unwrap();
    assert!(report.is_healthy(), "{:?}", report.problems);
    assert!(report.level_files >= 4, "{report:?}");
    let g = Graph::open(dir.path(), options()).unwrap();
    check(&g.snapshot(), &model);
    check_shape(&g.runs());
}

/// The W1 delete_mixed shape, which the snapshots held in the tests above
/// never produce: a compacted graph that every snapshot reads plain, then
/// single-edge deletes of compacted edges (MemGraph tombstones over plain
/// slices) and fresh inserts, scanned with no snapshot held in between.
#[test]
fn deletes_over_a_compacted_level_hide_edges_from_scans() {
    // One part, then a level of many parts over 40 pages.
    for (budget, n) in [(64 << 20, 3000), (256 << 10, 40_000)] {
        deletes_over_a_compacted_level(
            Options {
                memgraph_bytes: budget,
                ..Options::default()
            },
            n,
        );
    }
}

fn deletes_over_a_compacted_level(opts: Options, n: u64) {
    let g = Graph::in_memory(opts);
    let mut model = Model::new();
    let mut rng = Rng(7);
    let mut batch = Vec::new();
    g.insert_vertices(&(0..2 * n).collect::<Vec<_>>()).unwrap();
    for _ in 0..20_000 {
        let (s, d) = (rng.below(n), rng.below(n));
        batch.push((s, d, 1.0));
        model.insert((s, d), 1.0);
    }
    g.insert_edges(&batch).unwrap();
    g.compact().unwrap();
    let edges: Vec<(u64, u64)> = model.keys().copied().collect();
    for (i, &(s, d)) in edges.iter().enumerate() {
        if i % 7 == 0 {
            g.delete_edge(s, d).unwrap();
            model.remove(&(s, d));
        } else if i % 7 == 1 {
            let e = (s, n + d);
            g.insert_edge(e.0, e.1, 2.0).unwrap();
            model.insert(e, 2.0);
        } else if i % 7 == 2 {
            // A new weight for an edge the level holds: the MemGraph's
            // version overrides the level's in every weighted read.
            g.insert_edge(s, d, 3.0).unwrap();
            model.insert((s, d), 3.0);
        }
    }
    let snap = g.snapshot();
    assert!(g.stats().levels.iter().any(|l| l.parts > 0));
    check_scan(&snap, &model);
    // A write in every page makes the pages `snap` copied stale: a newer
    // snapshot copies their unwritten vertices from them (new weights
    // included) and decides only the written ones again.
    let at_snap = model.clone();
    for first in (0..n).step_by(1024) {
        g.insert_edge(first, n + first, 4.0).unwrap();
        model.insert((first, n + first), 4.0);
    }
    check_scan(&g.snapshot(), &model);
    g.flush().unwrap();
    check_scan(&g.snapshot(), &model);
    check_scan(&snap, &at_snap);
    // One level again, now with weights other than 1.0 in its column.
    drop(snap);
    g.compact().unwrap();
    check_scan(&g.snapshot(), &model);
}

/// Every read path of whole lists against the model, by external ids:
/// point reads before any scan (the MemGraph read under its locks, until
/// enough reads in a page copy it), the scans (which copy every page they
/// cross), point reads after them, unordered scans and weights.
/// Each vertex's weighted out-list read in no set order (pieces one after
/// the other): the model's edges and weights, none twice.
fn check_unordered_weights(s: &Snapshot, want: &Model) {
    check_unordered_points(s, want);
    // Through the iterator, and through the snapshot's own loop (which
    // reads a clean list after a compaction straight from its columns).
    let (mut got, mut direct) = (Model::new(), Model::new());
    for v in 0..s.id_bound() {
        let src = s.external_id(v).unwrap();
        let edge = |d: u32| (src, s.external_id(d).unwrap());
        s.out_weighted_of(v).for_each_unordered(|d, w| {
            assert!(got.insert(edge(d), w).is_none(), "{:?} twice", edge(d));
        });
        s.for_each_out_weighted_unordered_of(v, |d, w| {
            assert!(direct.insert(edge(d), w).is_none(), "{:?} twice", edge(d));
        });
    }
    let at = s.timestamp();
    assert!(got == *want, "unordered weighted reads of {at}");
    assert!(
        direct == *want,
        "for_each_out_weighted_unordered_of at {at}"
    );
}

/// Each vertex's out- and in-list read point by point in no set order
/// (`for_each_*_unordered_of`): the model's edges, none twice.
fn check_unordered_points(s: &Snapshot, want: &Model) {
    let ext = |v: u32| s.external_id(v).unwrap();
    let (mut out, mut inn) = (BTreeMap::new(), BTreeMap::new());
    for v in 0..s.id_bound() {
        s.for_each_out_unordered_of(v, |d| {
            assert!(
                out.insert((ext(v), ext(d)), ()).is_none(),
                "out {v}->{d} twice"
            );
        });
        s.for_each_in_unordered_of(v, |d| {
            assert!(
                inn.insert((ext(d), ext(v)), ()).is_none(),
                "in {d}->{v} twice"
            );
        });
        // In ascending disjoint pieces: the same lists.
        let joined = |pieces: &[&[u32]]| {
            for p in pieces {
                assert!(p.windows(2).all(|w| w[0] < w[1]), "piece of {v} ascending");
            }
            let mut all = pieces.concat();
            all.sort_unstable();
            all
        };
        assert_eq!(
            s.with_out_pieces_of(v, joined),
            s.out_neighbors_of(v).collect::<Vec<_>>(),
            "out-pieces of {v}"
        );
        assert_eq!(
            s.with_in_pieces_of(v, joined),
            s.in_neighbors_of(v).collect::<Vec<_>>(),
            "in-pieces of {v}"
        );
    }
    let keys = |m: &BTreeMap<(u64, u64), ()>| m.keys().copied().collect::<Vec<_>>();
    let want_keys: Vec<(u64, u64)> = want.keys().copied().collect();
    assert_eq!(
        keys(&out),
        want_keys,
        "unordered out-reads of {}",
        s.timestamp()
    );
    if s.is_directed() {
        assert_eq!(
            keys(&inn),
            want_keys,
            "unordered in-reads of {}",
            s.timestamp()
        );
    }
}

fn check_scan(snap: &Snapshot, model: &Model) {
    check_unordered_weights(snap, model);
    let mut want: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(s, d) in model.keys() {
        want.entry(s).or_default().push(d);
    }
    let ext = |v: u32| snap.external_id(v).unwrap();
    let mut in_degrees: BTreeMap<u64, usize> = BTreeMap::new();
    for &(s, d) in model.keys() {
        *in_degrees
            .entry(if snap.is_directed() { d } else { s })
            .or_default() += 1;
    }
    let got_degrees: BTreeMap<u64, usize> = (0..snap.id_bound())
        .map(|v| (ext(v), snap.in_degree_of(v)))
        .filter(|e| e.1 > 0)
        .collect();
    assert_eq!(got_degrees, in_degrees, "in_degree_of");
    let mut got: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    snap.scan_out(0..snap.id_bound(), |v, list| {
        if !list.is_empty() {
            got.insert(ext(v), list.iter().map(|&d| ext(d)).collect());
        }
    });
    for list in got.values_mut() {
        list.sort_unstable();
    }
    assert_eq!(got, want, "scan_out");
    let mut each: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for v in 0..snap.id_bound() {
        snap.for_each_out_of(v, |d| each.entry(ext(v)).or_default().push(ext(d)));
    }
    for list in each.values_mut() {
        list.sort_unstable();
    }
    assert_eq!(each, want, "for_each_out_of");
    // The iterator, stepped with `next` and folded, in ascending order.
    for v in 0..snap.id_bound() {
        let stepped: Vec<u32> = snap.out_neighbors_of(v).by_ref().collect();
        let mut folded = Vec::new();
        snap.out_neighbors_of(v).for_each(|d| folded.push(d));
        assert!(stepped.windows(2).all(|w| w[0] < w[1]), "ascending");
        assert_eq!(folded, stepped, "out_neighbors_of folded");
        let ids: Vec<u64> = stepped.iter().map(|&d| ext(d)).collect();
        let mut sorted = ids.clone();
        sorted.sort_unstable();
        let empty = Vec::new();
        assert_eq!(
            &sorted,
            want.get(&ext(v)).unwrap_or(&empty),
            "out_neighbors_of"
        );
    }
    let want_in: BTreeMap<u64, Vec<u64>> = if snap.is_directed() {
        let mut w: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for &(s, d) in model.keys() {
            w.entry(d).or_default().push(s);
        }
        w.values_mut().for_each(|l| l.sort_unstable());
        w
    } else {
        want.clone()
    };
    let mut got_in: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    snap.scan_in(0..snap.id_bound(), |v, list| {
        if !list.is_empty() {
            got_in.insert(ext(v), list.iter().map(|&d| ext(d)).collect());
        }
    });
    got_in.values_mut().for_each(|l| l.sort_unstable());
    assert_eq!(got_in, want_in, "scan_in");
    // Unordered: disjoint pieces, each ascending, together the list.
    for (inn, want) in [(false, &want), (true, &want_in)] {
        let mut got: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        let f = |v: u32, pieces: &[&[u32]]| {
            for l in pieces {
                assert!(l.windows(2).all(|w| w[0] < w[1]), "piece ascending");
                if !l.is_empty() {
                    got.entry(ext(v))
                        .or_default()
                        .extend(l.iter().map(|&d| ext(d)));
                }
            }
        };
        if inn {
            snap.scan_in_unordered(0..snap.id_bound(), f);
        } else {
            snap.scan_out_unordered(0..snap.id_bound(), f);
        }
        got.values_mut().for_each(|l| l.sort_unstable());
        assert_eq!(&got, want, "unordered scan, in: {inn}");
    }
    // Weighted lists through `fold` (a column loop over plain runs) and
    // through `next`, against the model's weights.
    let mut folded: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    let mut stepped: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    for v in 0..snap.id_bound() {
        snap.out_weighted_of(v).for_each(|(d, w)| {
            folded.insert((ext(v), ext(d)), w);
        });
        for (d, w) in snap.out_weighted_of(v) {
            stepped.insert((ext(v), ext(d)), w);
        }
    }
    let weights: BTreeMap<(u64, u64), f64> = model.iter().map(|(&k, &w)| (k, w)).collect();
    assert_eq!(folded, weights, "out_weighted_of, folded");
    assert_eq!(stepped, weights, "out_weighted_of, stepped");
}

/// Hubs (lists of thousands of edges) over a compacted level with writes in
/// the MemGraph: a snapshot keeps each hub's merged list after the first
/// read (`hub_lists`), so every later read, from any thread and by any
/// path, must still see exactly the snapshot's edges, and two snapshots
/// taken between writes each their own.
#[test]
fn kept_hub_lists_stay_exact_per_snapshot() {
    let g = Graph::in_memory(Options::default());
    let mut model = Model::new();
    let hubs = [0u64, 1];
    g.insert_vertices(&(0..6000).collect::<Vec<_>>()).unwrap();
    let mut batch = Vec::new();
    for d in 10..4000 {
        // Hub 0 gets 3990 out-edges, hub 1 3990 in-edges, and each about
        // as many the other way.
        batch.push((0, d, 1.0));
        batch.push((d + 1000, 1, 1.0));
        batch.push((1, d + 5, 1.0));
        batch.push((d + 1001, 0, 1.0));
    }
    for &(s, d, w) in &batch {
        model.insert((s, d), w);
    }
    g.insert_edges(&batch).unwrap();
    g.compact().unwrap();
    let mut held = Vec::new();
    for round in 0..3u64 {
        // Deletes and inserts in the MemGraph, on both hubs.
        for k in 0..600u64 {
            let d = 10 + (k * 7 + round * 13) % 5990;
            if k % 3 == 0 {
                if model.remove(&(0, d)).is_some() {
                    g.delete_edge(0, d).unwrap();
                }
                if model.remove(&(d, 1)).is_some() {
                    g.delete_edge(d, 1).unwrap();
                }
            } else {
                g.insert_edge(0, d, 2.0).unwrap();
                g.insert_edge(d, 1, 2.0).unwrap();
                model.insert((0, d), 2.0);
                model.insert((d, 1), 2.0);
            }
        }
        held.push((g.snapshot(), model.clone()));
    }
    for (snap, want) in &held {
        for _ in 0..2 {
            // Several threads at once, so the first merge races with reads.
            std::thread::scope(|s| {
                for _ in 0..4 {
                    s.spawn(|| check_hubs(snap, want, &hubs));
                }
            });
        }
        check_scan(snap, want);
    }
}

/// Every read path of the hubs' lists against the model.
fn check_hubs(snap: &Snapshot, model: &Model, hubs: &[u64]) {
    let ext = |v: u32| snap.external_id(v).unwrap();
    for &h in hubs {
        let v = snap.internal_id(h).unwrap();
        let mut out: Vec<u64> = model.keys().filter(|e| e.0 == h).map(|e| e.1).collect();
        let mut inn: Vec<u64> = model.keys().filter(|e| e.1 == h).map(|e| e.0).collect();
        out.sort_unstable();
        inn.sort_unstable();
        let sorted = |it: &mut dyn Iterator<Item = u32>| {
            let mut l: Vec<u64> = it.map(ext).collect();
            l.sort_unstable();
            l
        };
        assert_eq!(sorted(&mut snap.out_neighbors_of(v)), out, "out of {h}");
        assert_eq!(sorted(&mut snap.in_neighbors_of(v)), inn, "in of {h}");
        assert_eq!(snap.out_degree_of(v), out.len(), "out-degree of {h}");
        assert_eq!(snap.in_degree_of(v), inn.len(), "in-degree of {h}");
        let ids: Vec<u32> = snap.out_neighbors_of(v).collect();
        assert!(ids.windows(2).all(|w| w[0] < w[1]), "ascending");
        let mut each = Vec::new();
        snap.for_each_out_of(v, |d| each.push(d));
        assert_eq!(each, ids, "for_each_out_of {h}");
        let mut scanned = Vec::new();
        snap.scan_out(v..v + 1, |_, l| scanned.extend_from_slice(l));
        assert_eq!(scanned, ids, "scan_out {h}");
    }
}
