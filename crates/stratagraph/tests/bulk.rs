//! Bulk loads (a large first batch written straight into a CSR run): the
//! same meaning as the MemGraph path, checked against a model and against
//! that path; all or nothing for readers opening snapshots meanwhile; bad
//! input refused with nothing changed; and on disk, everything back after a
//! reopen.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use stratagraph::{Error, Graph, Options, Snapshot};

/// A small deterministic generator (tests must not depend on a crate's
/// random stream staying the same).
struct Lcg(u64);
impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) % n
    }
}

/// A batch over `n` vertices with repeated pairs (re-weighted, so the last
/// write must win) and self-loops.
fn batch(seed: u64, len: usize, n: u64) -> Vec<(u64, u64, f64)> {
    let mut r = Lcg(seed);
    (0..len)
        .map(|_| {
            // Sparse external ids, so internal ids are a real mapping.
            let (s, d) = (r.below(n) * 7 + 3, r.below(n) * 7 + 3);
            (s, d, (r.below(8) + 1) as f64 / 4.0)
        })
        .collect()
}

/// What a snapshot holds, in external ids: vertices, weighted out-edges of
/// every vertex (both orientations when undirected), in-edges, and counts.
#[derive(Debug, PartialEq)]
struct Contents {
    vertices: BTreeSet<u64>,
    out: BTreeMap<(u64, u64), f64>,
    inn: BTreeSet<(u64, u64)>,
    edges: u64,
}

impl Contents {
    /// In-lists and the edge count from the out-lists (which hold both
    /// orientations of an undirected edge).
    fn derive(&mut self, directed: bool) {
        self.inn = self.out.keys().copied().collect();
        self.edges = if directed {
            self.out.len()
        } else {
            self.out.keys().filter(|(s, d)| s <= d).count()
        } as u64;
    }
}

fn contents(s: &Snapshot) -> Contents {
    let ext = |v| s.external_id(v).unwrap();
    let mut c = Contents {
        vertices: s.vertices().map(ext).collect(),
        out: BTreeMap::new(),
        inn: BTreeSet::new(),
        edges: s.edge_count(),
    };
    assert_eq!(c.vertices.len() as u64, s.vertex_count());
    for v in s.vertices() {
        let out: Vec<_> = s.out_weighted_of(v).collect();
        assert!(
            out.windows(2).all(|w| w[0].0 < w[1].0),
            "sorted, no repeats"
        );
        assert_eq!(out.len(), s.out_degree_of(v));
        for (d, w) in out {
            c.out.insert((ext(v), ext(d)), w);
        }
        let inn: Vec<_> = s.in_neighbors_of(v).collect();
        assert_eq!(inn.len(), s.in_degree_of(v));
        for d in inn {
            c.inn.insert((ext(d), ext(v)));
        }
    }
    c
}

/// What `edges` inserted into an empty store (with `existing` vertices
/// created first) must read as: the model, independent of the engine.
fn model(existing: &[u64], edges: &[(u64, u64, f64)], directed: bool) -> Contents {
    let mut out = BTreeMap::new();
    let mut vertices: BTreeSet<u64> = existing.iter().copied().collect();
    for &(s, d, w) in edges {
        vertices.insert(s);
        vertices.insert(d);
        out.insert((s, d), w);
        if !directed {
            out.insert((d, s), w);
        }
    }
    let mut c = Contents {
        vertices,
        out,
        inn: BTreeSet::new(),
        edges: 0,
    };
    c.derive(directed);
    c
}

/// Whether the store's edges are all in one level, none in L0 runs or the
/// MemGraph: what a bulk load leaves.
fn loaded_in_bulk(g: &Graph) -> bool {
    let stats = g.stats();
    let filled = stats.levels.iter().filter(|l| l.parts > 0).count();
    stats.runs == 0 && filled == 1 && stats.memory.entries == 0
}

/// Whether nothing is below the MemGraph: what a batch through it leaves.
fn nothing_below(g: &Graph) -> bool {
    let stats = g.stats();
    stats.runs == 0 && stats.levels.iter().all(|l| l.parts == 0)
}

fn opts(directed: bool, bulk: bool) -> Options {
    Options {
        directed,
        bulk_load_min_edges: if bulk { 1 } else { usize::MAX },
        threads: 2,
        ..Options::default()
    }
}

#[test]
fn a_bulk_load_reads_as_the_model_and_as_the_memgraph_path() {
    for (seed, directed) in [(1, true), (2, false), (3, true), (4, false)] {
        // Some vertices exist first, some only as endpoints; many repeats.
        let existing: Vec<u64> = (0..300).map(|i| i * 7 + 3).collect();
        let edges = batch(seed, 20_000, 3000);
        let want = model(&existing, &edges, directed);
        let mut got = Vec::new();
        for bulk in [true, false] {
            let g = Graph::in_memory(opts(directed, bulk));
            g.insert_vertices(&existing).unwrap();
            g.insert_edges(&edges).unwrap();
            // The path taken: one level and an empty MemGraph, or nothing
            // below the MemGraph.
            if bulk {
                assert!(loaded_in_bulk(&g), "seed {seed}");
            } else {
                assert!(nothing_below(&g), "seed {seed}");
            }
            let c = contents(&g.snapshot());
            assert_eq!(c, want, "seed {seed} directed {directed} bulk {bulk}");
            got.push(c);
        }
    }
}

#[test]
fn writes_after_a_bulk_load_read_through_it_across_flushes() {
    for directed in [true, false] {
        let g = Graph::in_memory(Options {
            memgraph_bytes: 4096,
            ..opts(directed, true)
        });
        let first = batch(7, 8000, 5000);
        g.insert_edges(&first).unwrap();
        assert!(loaded_in_bulk(&g));
        // With so small a budget the load is a deep level of many parts.
        let stats = g.stats();
        assert!(stats.levels.len() > 1, "{:?}", stats.levels);
        assert!(stats.levels.iter().map(|l| l.parts).sum::<usize>() >= 4);
        let mut want = model(&[], &first, directed);
        let before = g.snapshot();
        let frozen = contents(&before);
        assert_eq!(frozen, want);
        // Re-weights, deletes of loaded edges and new edges, one by one
        // and in batches, with background flushes and compactions.
        let mut r = Lcg(8);
        let keys: Vec<(u64, u64)> = want.out.keys().copied().collect();
        for i in 0..3000 {
            let (s, d) = keys[r.below(keys.len() as u64) as usize];
            let key_rev = (d, s);
            match i % 4 {
                0 => {
                    if want.out.remove(&(s, d)).is_some() {
                        g.delete_edge(s, d).unwrap();
                        if !directed {
                            want.out.remove(&key_rev);
                        }
                    }
                }
                1 => {
                    g.insert_edge(s, d, 9.0).unwrap();
                    want.out.insert((s, d), 9.0);
                    if !directed {
                        want.out.insert(key_rev, 9.0);
                    }
                }
                _ => {
                    let e = (r.below(400) * 7 + 3, r.below(400) * 7 + 3, 0.5);
                    g.insert_edges(&[e]).unwrap();
                    want.vertices.extend([e.0, e.1]);
                    want.out.insert((e.0, e.1), 0.5);
                    if !directed {
                        want.out.insert((e.1, e.0), 0.5);
                    }
                }
            }
        }
        g.flush().unwrap();
        want.derive(directed);
        assert!(g.stats().flushes > 0);
        assert_eq!(contents(&g.snapshot()), want, "directed {directed}");
        // The snapshot from right after the load still reads it.
        assert_eq!(contents(&before), frozen, "directed {directed}");
    }
}

#[test]
fn a_snapshot_opened_before_a_bulk_load_sees_none_of_it() {
    let g = Graph::in_memory(opts(true, true));
    g.insert_vertices(&[3, 10]).unwrap();
    let before = g.snapshot();
    let edges = batch(9, 2000, 50);
    g.insert_edges(&edges).unwrap();
    assert!(loaded_in_bulk(&g));
    assert_eq!(contents(&before), model(&[3, 10], &[], true));
    assert_eq!(contents(&g.snapshot()), model(&[3, 10], &edges, true));
}

/// Readers open snapshots in a loop while bulk loads run: each snapshot
/// holds all of a load or none of it, and its counts agree with its lists.
/// Many small loads, so that a reader often opens a snapshot just as a
/// load is put in place.
#[test]
fn readers_see_all_or_none_of_a_bulk_load() {
    for directed in [true, false] {
        for round in 0..300 {
            let g = Graph::in_memory(opts(directed, true));
            let edges = batch(100 + round, 300, 50);
            let want = model(&[], &edges, directed);
            let (none, all) = (AtomicUsize::new(0), AtomicUsize::new(0));
            let done = AtomicBool::new(false);
            std::thread::scope(|sc| {
                let readers: Vec<_> = (0..2)
                    .map(|_| {
                        sc.spawn(|| {
                            while !done.load(Ordering::Acquire) {
                                let s = g.snapshot();
                                let degrees: usize = s.vertices().map(|v| s.out_degree_of(v)).sum();
                                if s.edge_count() == 0 {
                                    assert_eq!(degrees, 0, "round {round}");
                                    assert_eq!(s.vertex_count(), 0, "round {round}");
                                    none.fetch_add(1, Ordering::AcqRel);
                                } else {
                                    assert_eq!(contents(&s), want, "round {round}");
                                    all.fetch_add(1, Ordering::AcqRel);
                                }
                            }
                        })
                    })
                    .collect();
                // Both readers are at it before the load and after it (or
                // one has failed, which the join reports).
                let wait_for = |count: &AtomicUsize, n: usize| {
                    while count.load(Ordering::Acquire) < n
                        && !readers.iter().any(|r| r.is_finished())
                    {
                        std::thread::yield_now();
                    }
                };
                wait_for(&none, 20);
                g.insert_edges(&edges).unwrap();
                wait_for(&all, 2);
                done.store(true, Ordering::Release);
            });
        }
    }
}

#[test]
fn a_refused_bulk_load_changes_nothing() {
    let mut edges = batch(11, 5000, 100);
    edges[3000].2 = f64::NAN;
    let g = Graph::in_memory(opts(true, true));
    let r = g.insert_edges(&edges);
    assert!(
        matches!(r, Err(Error::InvalidWeight { ref at, .. }) if at.0 == Some(3000)),
        "{r:?}"
    );
    let s = g.snapshot();
    assert_eq!((s.vertex_count(), s.edge_count(), s.id_bound()), (0, 0, 0));
    assert!(nothing_below(&g));

    let g = Graph::in_memory(Options {
        auto_create_vertices: false,
        ..opts(true, true)
    });
    let edges = batch(12, 5000, 100);
    let present: BTreeSet<u64> = edges.iter().flat_map(|e| [e.0, e.1]).collect();
    let mut present: Vec<u64> = present.into_iter().collect();
    let missing = present.pop().unwrap();
    g.insert_vertices(&present).unwrap();
    let first = edges
        .iter()
        .position(|e| e.0 == missing || e.1 == missing)
        .unwrap();
    let r = g.insert_edges(&edges);
    assert!(
        matches!(r, Err(Error::VertexNotFound { vertex, ref at, .. }) if vertex == missing && at.0 == Some(first)),
        "{r:?}"
    );
    assert_eq!(g.snapshot().edge_count(), 0);
    assert!(nothing_below(&g));
    // With the vertex there, the same batch loads in bulk.
    g.insert_vertex(missing).unwrap();
    g.insert_edges(&edges).unwrap();
    assert!(loaded_in_bulk(&g));
    assert_eq!(contents(&g.snapshot()), model(&present, &edges, true));
}

#[test]
fn a_store_that_ever_held_an_edge_takes_the_memgraph_path() {
    let g = Graph::in_memory(opts(true, true));
    g.insert_edge(1, 2, 1.0).unwrap();
    g.delete_edge(1, 2).unwrap();
    // No edge, but a tombstone in the MemGraph: a run under it would be
    // hidden by it, so the batch must go through the MemGraph.
    assert_eq!(g.snapshot().edge_count(), 0);
    let edges = vec![(1, 2, 3.0), (2, 1, 4.0)];
    g.insert_edges(&edges).unwrap();
    assert!(nothing_below(&g));
    assert_eq!(contents(&g.snapshot()), model(&[], &edges, true));
}

#[test]
fn a_bulk_loaded_store_on_disk_reopens_with_everything() {
    for directed in [true, false] {
        let dir = tempfile::tempdir().unwrap();
        let o = || Options {
            sync: stratagraph::SyncPolicy::Never,
            ..opts(directed, true)
        };
        let edges = batch(13, 20_000, 2000);
        let want = {
            let g = Graph::open(dir.path(), o()).unwrap();
            g.insert_vertices(&[1, 2]).unwrap();
            let logged = g.stats().log_bytes;
            g.insert_edges(&edges).unwrap();
            assert!(loaded_in_bulk(&g));
            let stats = g.stats();
            // Durable by its run and the manifest, not by a log record (at
            // least 16 bytes an edge); the new ids are logged.
            assert!(
                stats.log_bytes - logged < 8 * edges.len() as u64,
                "{} log bytes for {} edges",
                stats.log_bytes - logged,
                edges.len()
            );
            // Compacting (what closing does) rewrites nothing: the load is
            // already one level.
            g.compact().unwrap();
            assert_eq!(g.stats().level_bytes_written, stats.level_bytes_written);
            assert!(loaded_in_bulk(&g));
            g.insert_edge(1, 2, 5.0).unwrap();
            let c = contents(&g.snapshot());
            g.close().unwrap();
            c
        };
        let mut m = model(&[1, 2], &edges, directed);
        m.out.insert((1, 2), 5.0);
        if !directed {
            m.out.insert((2, 1), 5.0);
        }
        m.derive(directed);
        assert_eq!(want, m);
        let g = Graph::open(dir.path(), o()).unwrap();
        assert_eq!(contents(&g.snapshot()), want, "directed {directed}");
        drop(g);
        let report = stratagraph::check(dir.path()).unwrap();
        assert!(report.is_healthy(), "{report:?}");
    }
}
