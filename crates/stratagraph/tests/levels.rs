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
    let mut scanned = 0usize;
    s.scan_out(0..s.id_bound(), |v, list| {
        let src = s.external_id(v).unwrap();
        for &d in list {
            assert!(want.contains_key(&(src, s.external_id(d).unwrap())));
        }
        scanned += list.len();
    });
    assert_eq!(scanned, want.len());
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
        }
    }
    let snap = g.snapshot();
    assert!(g.stats().levels.iter().any(|l| l.parts > 0));
    check_scan(&snap, &model);
    g.flush().unwrap();
    check_scan(&g.snapshot(), &model);
    check_scan(&snap, &model);
    // One level again, now with weights other than 1.0 in its column.
    drop(snap);
    g.compact().unwrap();
    check_scan(&g.snapshot(), &model);
}

/// `scan_out` and `for_each_out_of` against the model, by external ids.
fn check_scan(snap: &Snapshot, model: &Model) {
    let mut want: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(s, d) in model.keys() {
        want.entry(s).or_default().push(d);
    }
    let ext = |v: u32| snap.external_id(v).unwrap();
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
    let want_in: BTreeMap<u64, Vec<u64>> = if snap.is_directed() {
        let mut w: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        for &(s, d) in model.keys() {
            w.entry(d).or_default().push(s);
        }
        w.values_mut().for_each(|l| l.sort_unstable());
        w
    } else {
        want
    };
    let mut got_in: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    snap.scan_in(0..snap.id_bound(), |v, list| {
        if !list.is_empty() {
            got_in.insert(ext(v), list.iter().map(|&d| ext(d)).collect());
        }
    });
    got_in.values_mut().for_each(|l| l.sort_unstable());
    assert_eq!(got_in, want_in, "scan_in");
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
