//! Isolation, tested against Hermitage's catalogue of anomalies (Kleppmann,
//! <https://github.com/ept/hermitage>), translated to a graph: the rows
//! `x` (id 1, value 10) and `y` (id 2, value 20) are the edges `1 -> 2` and
//! `3 -> 4` with those weights, an UPDATE reads a weight and writes it, a
//! predicate read is a neighbour list. Each test runs the interleaving as
//! Hermitage lists it, under snapshot isolation and under serializable,
//! in memory and on disk, and asserts what each level promises: no dirty,
//! aborted or intermediate read, no read skew and no lost update under
//! both; no write skew and no anti-dependency cycle under serializable.
//! A threaded stress run then checks the same promises by force. The
//! `property_edges` module runs the anomalies again with the rows as
//! property edges and their values as an edge property.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use stratagraph::{Element, Error, Graph, Isolation, Options, WriteTxn};
use tempfile::TempDir;

const X: (u64, u64) = (1, 2);
const Y: (u64, u64) = (3, 4);

/// A graph holding `x = 10` and `y = 20`, in memory or on disk.
struct Home {
    graph: Graph,
    _dir: Option<TempDir>,
    name: &'static str,
}

fn homes_with(opts: &Options) -> Vec<Home> {
    let dir = tempfile::tempdir().unwrap();
    let on_disk = Graph::open(dir.path().join("g"), opts.clone()).unwrap();
    let mut homes = vec![
        Home {
            graph: Graph::in_memory(opts.clone()),
            _dir: None,
            name: "in memory",
        },
        Home {
            graph: on_disk,
            _dir: Some(dir),
            name: "on disk",
        },
    ];
    for h in &mut homes {
        h.graph
            .insert_edges(&[(X.0, X.1, 10.0), (Y.0, Y.1, 20.0)])
            .unwrap();
    }
    homes
}

fn homes() -> Vec<Home> {
    homes_with(&Options::default())
}

const LEVELS: [Isolation; 2] = [Isolation::Snapshot, Isolation::Serializable];

/// Runs `test` at both levels in both homes, putting `x` and `y` back
/// after each run.
fn each_level(test: impl Fn(&Graph, Isolation, &str)) {
    for h in homes() {
        for level in LEVELS {
            test(&h.graph, level, h.name);
            h.graph
                .insert_edges(&[(X.0, X.1, 10.0), (Y.0, Y.1, 20.0)])
                .unwrap();
        }
    }
}

fn read(tx: &mut WriteTxn, e: (u64, u64)) -> Option<f64> {
    tx.weight(e.0, e.1)
}

/// Hermitage's `update test set value = v where id = ...`: a read, then a
/// write of what it found.
fn update(tx: &mut WriteTxn, e: (u64, u64), v: f64) {
    assert!(read(tx, e).is_some());
    tx.insert_edge(e.0, e.1, v).unwrap();
}

fn committed(g: &Graph, e: (u64, u64)) -> Option<f64> {
    g.snapshot().weight(e.0, e.1)
}

fn assert_conflict(result: stratagraph::Result<u64>, element: Element, what: &str) {
    assert_conflict_on(result, &[element], what);
}

/// A conflict naming one of `elements` (a commit names the first it finds).
fn assert_conflict_on(result: stratagraph::Result<u64>, elements: &[Element], what: &str) {
    match result {
        Err(Error::Conflict {
            element: found,
            snapshot_ts,
            committed_ts,
        }) => {
            assert!(
                elements.contains(&found),
                "{what}: {found} not in {elements:?}"
            );
            assert!(committed_ts > snapshot_ts, "{what}");
        }
        other => panic!("{what}: expected a conflict on {elements:?}, got {other:?}"),
    }
}

/// Snapshot isolation commits what serializable refuses (a conflict on
/// `element`); returns whether it was refused.
fn refused_if_serializable(
    level: Isolation,
    result: stratagraph::Result<u64>,
    element: Element,
    what: &str,
) -> bool {
    match level {
        Isolation::Snapshot => {
            result.unwrap();
            false
        }
        Isolation::Serializable => {
            assert_conflict(result, element, what);
            true
        }
    }
}

fn edge(e: (u64, u64)) -> Element {
    Element::Edge { src: e.0, dst: e.1 }
}

#[test]
fn g0_write_cycles_leave_no_mixed_state() {
    each_level(|g, level, name| {
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        update(&mut t1, X, 11.0);
        update(&mut t2, X, 12.0);
        update(&mut t1, Y, 21.0);
        t1.commit().unwrap();
        update(&mut t2, Y, 22.0);
        assert_conflict_on(t2.commit(), &[edge(X), edge(Y)], name);
        assert_eq!((committed(g, X), committed(g, Y)), (Some(11.0), Some(21.0)));
        // Put the rows back for the next level.
    });
}

#[test]
fn g1a_an_aborted_write_is_never_read() {
    each_level(|g, level, name| {
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        update(&mut t1, X, 101.0);
        assert_eq!(read(&mut t2, X), Some(10.0));
        drop(t1); // rollback
        assert_eq!(read(&mut t2, X), Some(10.0));
        t2.commit().unwrap();
        assert_eq!(committed(g, X), Some(10.0), "{}", name);
    });
}

#[test]
fn g1b_an_intermediate_write_is_never_read() {
    each_level(|g, level, name| {
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        update(&mut t1, X, 101.0);
        assert_eq!(read(&mut t2, X), Some(10.0));
        update(&mut t1, X, 11.0);
        t1.commit().unwrap();
        assert_eq!(read(&mut t2, X), Some(10.0), "{}", name);
        t2.commit().unwrap();
        g.insert_edge(X.0, X.1, 10.0).unwrap();
    });
}

#[test]
fn g1c_no_circular_information_flow() {
    each_level(|g, level, name| {
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        update(&mut t1, X, 11.0);
        update(&mut t2, Y, 22.0);
        assert_eq!(read(&mut t1, Y), Some(20.0));
        assert_eq!(read(&mut t2, X), Some(10.0));
        t1.commit().unwrap();
        let second = t2.commit();
        // Each read the other's row before it changed: allowed under
        // snapshot isolation; serializable, t2 read x, which t1 changed.
        refused_if_serializable(level, second, edge(X), name);
    });
}

#[test]
fn otv_a_transaction_is_seen_whole_or_not_at_all() {
    each_level(|g, level, name| {
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        let mut t3 = g.begin_with(level);
        update(&mut t1, X, 11.0);
        update(&mut t1, Y, 19.0);
        update(&mut t2, X, 12.0);
        t1.commit().unwrap();
        assert_eq!(read(&mut t3, X), Some(11.0));
        update(&mut t2, Y, 18.0);
        assert_conflict_on(t2.commit(), &[edge(X), edge(Y)], name);
        // t3 sees all of t1 and none of t2.
        assert_eq!(read(&mut t3, Y), Some(19.0));
        t3.commit().unwrap();
    });
}

#[test]
fn pmp_a_predicate_read_keeps_its_answer() {
    each_level(|g, level, name| {
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        let before = t1.out_neighbors(1).unwrap();
        t2.insert_edge(1, 30, 30.0).unwrap();
        t2.commit().unwrap();
        assert_eq!(t1.out_neighbors(1).unwrap(), before, "{}", name);
        t1.commit().unwrap();
        g.delete_edge(1, 30).unwrap();
    });
}

#[test]
fn pmp_write_an_update_over_a_predicate_meets_a_concurrent_delete() {
    each_level(|g, level, name| {
        g.insert_edge(1, 5, 20.0).unwrap();
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        // t1: update every out-edge of 1 to weight + 10.
        for n in t1.out_neighbors(1).unwrap() {
            let w = t1.weight(1, n).unwrap();
            t1.insert_edge(1, n, w + 10.0).unwrap();
        }
        // t2: delete the out-edges of 1 of weight 20.
        for n in t2.out_neighbors(1).unwrap() {
            if t2.weight(1, n) == Some(20.0) {
                t2.delete_edge(1, n).unwrap();
            }
        }
        t1.commit().unwrap();
        assert_conflict(t2.commit(), edge((1, 5)), name);
        assert_eq!(committed(g, (1, 5)), Some(30.0));
        g.delete_edge(1, 5).unwrap();
        g.insert_edge(X.0, X.1, 10.0).unwrap();
    });
}

#[test]
fn p4_no_lost_update() {
    each_level(|g, level, name| {
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        let a = read(&mut t1, X).unwrap();
        let b = read(&mut t2, X).unwrap();
        t1.insert_edge(X.0, X.1, a + 1.0).unwrap();
        t2.insert_edge(X.0, X.1, b + 1.0).unwrap();
        t1.commit().unwrap();
        assert_conflict(t2.commit(), edge(X), name);
        assert_eq!(committed(g, X), Some(11.0));
        g.insert_edge(X.0, X.1, 10.0).unwrap();
    });
}

#[test]
fn g_single_no_read_skew() {
    each_level(|g, level, name| {
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        assert_eq!(read(&mut t1, X), Some(10.0));
        update(&mut t2, X, 12.0);
        update(&mut t2, Y, 18.0);
        t2.commit().unwrap();
        assert_eq!(read(&mut t1, Y), Some(20.0), "{}", name);
        t1.commit().unwrap();
        // The write variant: t1 deletes the row it sees with value 20,
        // which t2 changed after t1's snapshot.
        g.insert_edges(&[(X.0, X.1, 10.0), (Y.0, Y.1, 20.0)])
            .unwrap();
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        assert_eq!(read(&mut t1, X), Some(10.0));
        update(&mut t2, X, 12.0);
        update(&mut t2, Y, 18.0);
        t2.commit().unwrap();
        assert_eq!(read(&mut t1, Y), Some(20.0));
        t1.delete_edge(Y.0, Y.1).unwrap();
        assert_conflict(t1.commit(), edge(Y), name);
        assert_eq!(committed(g, Y), Some(18.0));
    });
}

#[test]
fn g2_item_write_skew_is_refused_only_when_serializable() {
    each_level(|g, level, name| {
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        for t in [&mut t1, &mut t2] {
            assert_eq!((read(t, X), read(t, Y)), (Some(10.0), Some(20.0)));
        }
        t1.insert_edge(X.0, X.1, 11.0).unwrap();
        t2.insert_edge(Y.0, Y.1, 21.0).unwrap();
        t1.commit().unwrap();
        let second = t2.commit();
        let y = refused_if_serializable(level, second, edge(X), name);
        assert_eq!(committed(g, Y), Some(if y { 20.0 } else { 21.0 }));
    });
}

#[test]
fn g2_anti_dependency_cycles_over_a_predicate_only_when_serializable() {
    each_level(|g, level, name| {
        let mut t1 = g.begin_with(level);
        let mut t2 = g.begin_with(level);
        // Each counts 1's out-edges of weight 30 (none) and adds one.
        for t in [&mut t1, &mut t2] {
            let n = t.out_neighbors(1).unwrap();
            assert!(n.iter().all(|&d| t.weight(1, d) != Some(30.0)));
        }
        t1.insert_edge(1, 7, 30.0).unwrap();
        t2.insert_edge(1, 8, 30.0).unwrap();
        t1.commit().unwrap();
        let second = t2.commit();
        refused_if_serializable(level, second, Element::OutEdges(1), name);
        g.delete_edges(&[(1, 7)]).unwrap();
        if level == Isolation::Snapshot {
            g.delete_edge(1, 8).unwrap();
        }
    });
}

#[test]
fn a_read_of_a_vertex_never_named_is_validated_too() {
    for h in homes() {
        let g = &h.graph;
        let mut t1 = g.begin_with(Isolation::Serializable);
        let mut t2 = g.begin_with(Isolation::Serializable);
        // t1: "if 300 has no edge to 2, raise x"; t2: "if x is 10, link 300 to 2".
        assert_eq!(t1.weight(300, 2), None);
        assert!(!t1.has_vertex(300));
        t1.insert_edge(X.0, X.1, 11.0).unwrap();
        assert_eq!(read(&mut t2, X), Some(10.0));
        t2.insert_edge(300, 2, 1.0).unwrap();
        t2.commit().unwrap();
        assert_conflict(t1.commit(), Element::Vertex(300), h.name);
        // Under snapshot isolation the same pair commits (write skew).
        g.delete_vertex(300).unwrap();
        let mut t1 = g.begin();
        let mut t2 = g.begin();
        assert!(!t1.has_vertex(301));
        t1.insert_edge(X.0, X.1, 11.0).unwrap();
        assert_eq!(read(&mut t2, X), Some(10.0));
        t2.insert_edge(301, 2, 1.0).unwrap();
        t2.commit().unwrap();
        t1.commit().unwrap();
    }
}

#[test]
fn a_vertex_delete_meets_a_concurrent_edge_either_way() {
    for h in homes() {
        let g = &h.graph;
        // The delete commits first: the edge's endpoint is gone.
        let mut t1 = g.begin();
        let mut t2 = g.begin();
        assert!(t1.has_vertex(1));
        t1.delete_vertex(1).unwrap();
        assert_eq!(read(&mut t2, X), Some(10.0));
        t2.insert_edge(1, 9, 1.0).unwrap();
        t1.commit().unwrap();
        assert_conflict(t2.commit(), Element::Vertex(1), h.name);
        assert!(!g.snapshot().has_edge(1, 9));
        // The edge commits first: the delete would remove an edge it
        // never saw.
        g.insert_edge(X.0, X.1, 10.0).unwrap();
        let mut t1 = g.begin();
        let mut t2 = g.begin();
        assert!(t1.has_vertex(1));
        t1.delete_vertex(1).unwrap();
        assert_eq!(read(&mut t2, X), Some(10.0));
        t2.insert_edge(1, 9, 1.0).unwrap();
        t2.commit().unwrap();
        assert_conflict(t1.commit(), Element::OutEdges(1), h.name);
        assert!(g.snapshot().has_edge(1, 9));
    }
}

#[test]
fn edges_at_a_new_vertex_do_not_conflict_and_blind_writes_never_do() {
    for h in homes() {
        let g = &h.graph;
        let mut t1 = g.begin();
        let mut t2 = g.begin();
        assert_eq!(read(&mut t1, X), Some(10.0));
        assert_eq!(read(&mut t2, X), Some(10.0));
        // Both create vertex 50 by naming it in an edge.
        t1.insert_edge(50, 51, 1.0).unwrap();
        t2.insert_edge(50, 52, 1.0).unwrap();
        t1.commit().unwrap();
        t2.commit().unwrap();
        let s = g.snapshot();
        assert!(s.has_edge(50, 51) && s.has_edge(50, 52), "{}", h.name);
        // Writes without a read commit as of their commit timestamp.
        let mut t1 = g.begin();
        let mut t2 = g.begin();
        t1.insert_edge(X.0, X.1, 1.0).unwrap();
        t2.insert_edge(X.0, X.1, 2.0).unwrap();
        t1.commit().unwrap();
        t2.commit().unwrap();
        assert_eq!(committed(g, X), Some(2.0));
    }
}

#[test]
fn an_undirected_edge_conflicts_in_either_orientation() {
    let opts = Options {
        directed: false,
        ..Options::default()
    };
    for h in homes_with(&opts) {
        let g = &h.graph;
        let mut t1 = g.begin();
        let mut t2 = g.begin();
        let a = t1.weight(1, 2).unwrap();
        let b = t2.weight(2, 1).unwrap();
        t1.insert_edge(1, 2, a + 1.0).unwrap();
        t2.insert_edge(2, 1, b + 1.0).unwrap();
        t1.commit().unwrap();
        assert_conflict(t2.commit(), edge((1, 2)), h.name);
        assert_eq!(committed(g, (2, 1)), Some(11.0));
    }
}

#[test]
fn a_batch_conflicts_with_the_transactions_that_read_before_it() {
    for h in homes() {
        let g = &h.graph;
        let mut t1 = g.begin();
        let mut t2 = g.begin();
        let w = read(&mut t1, X).unwrap();
        assert_eq!(read(&mut t2, Y), Some(20.0));
        g.insert_edges(&[(X.0, X.1, 50.0), (100, 101, 1.0)])
            .unwrap();
        t1.insert_edge(X.0, X.1, w + 1.0).unwrap();
        assert_conflict(t1.commit(), edge(X), h.name);
        // The batch touched neither 3 nor 4.
        t2.insert_edge(Y.0, Y.1, 21.0).unwrap();
        t2.commit().unwrap();
        assert_eq!((committed(g, X), committed(g, Y)), (Some(50.0), Some(21.0)));
        // Deletes and vertex batches count too.
        let mut t3 = g.begin();
        assert_eq!(read(&mut t3, X), Some(50.0));
        g.delete_edges(&[X]).unwrap();
        t3.insert_edge(X.0, X.1, 1.0).unwrap();
        assert_conflict(t3.commit(), edge(X), h.name);
        let mut t4 = g.begin();
        assert!(!t4.has_vertex(200));
        g.insert_vertices(&[200]).unwrap();
        t4.insert_vertex(200).unwrap();
        assert_conflict(t4.commit(), Element::Vertex(200), h.name);
    }
}

#[test]
fn a_refused_commit_changes_nothing_and_the_retry_commits() {
    for h in homes() {
        let g = &h.graph;
        let mut t1 = g.begin();
        let mut t2 = g.begin();
        let a = read(&mut t1, X).unwrap();
        let b = read(&mut t2, X).unwrap();
        t1.insert_edge(X.0, X.1, a + 1.0).unwrap();
        t2.insert_edge(X.0, X.1, b + 1.0).unwrap();
        t2.insert_edge(60, 61, 1.0).unwrap();
        t2.insert_vertex(62).unwrap();
        t1.commit().unwrap();
        let before = g.snapshot();
        let err = t2.commit().unwrap_err();
        assert!(
            err.to_string()
                .contains("edge 1 -> 2 was changed by the commit"),
            "{err}"
        );
        let after = g.snapshot();
        assert_eq!(before.timestamp(), after.timestamp(), "nothing committed");
        assert!(!after.has_edge(60, 61) && !after.has_vertex(62));
        // The retry reads the new value and commits.
        let mut t2 = g.begin();
        let b = read(&mut t2, X).unwrap();
        t2.insert_edge(X.0, X.1, b + 1.0).unwrap();
        t2.commit().unwrap();
        assert_eq!(committed(g, X), Some(12.0), "{}", h.name);
    }
    // And after a reopen the refused commit is not recovered.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("g");
    let g = Graph::open(&path, Options::default()).unwrap();
    g.insert_edge(1, 2, 10.0).unwrap();
    let mut t1 = g.begin();
    let mut t2 = g.begin();
    let a = read(&mut t1, X).unwrap();
    let b = read(&mut t2, X).unwrap();
    t1.insert_edge(1, 2, a + 1.0).unwrap();
    t2.insert_edge(1, 2, b + 5.0).unwrap();
    t2.insert_edge(70, 71, 1.0).unwrap();
    t1.commit().unwrap();
    assert!(t2.commit().is_err());
    g.close().unwrap();
    let g = Graph::open(&path, Options::default()).unwrap();
    let s = g.snapshot();
    assert_eq!(s.weight(1, 2), Some(11.0));
    assert!(!s.has_edge(70, 71));
}

/// Threads add to one counter edge, retrying on conflicts: with every
/// update kept, the counter ends at the number of increments.
#[test]
fn concurrent_increments_lose_nothing() {
    const THREADS: u64 = 4;
    const EACH: u64 = 300;
    for h in homes() {
        let g = Arc::new(h.graph.clone());
        let conflicts = Arc::new(AtomicU64::new(0));
        let workers: Vec<_> = (0..THREADS)
            .map(|_| {
                let g = g.clone();
                let conflicts = conflicts.clone();
                std::thread::spawn(move || {
                    for _ in 0..EACH {
                        loop {
                            let mut tx = g.begin();
                            let w = tx.weight(X.0, X.1).unwrap();
                            tx.insert_edge(X.0, X.1, w + 1.0).unwrap();
                            match tx.commit() {
                                Ok(_) => break,
                                Err(Error::Conflict { .. }) => {
                                    conflicts.fetch_add(1, Ordering::Relaxed);
                                }
                                Err(e) => panic!("{e}"),
                            }
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let expected = 10.0 + (THREADS * EACH) as f64;
        assert_eq!(committed(&g, X), Some(expected), "{}", h.name);
        eprintln!(
            "{}: {} conflicts retried",
            h.name,
            conflicts.load(Ordering::Relaxed)
        );
    }
}

/// Write skew under load: each transaction reads both `x` and `y` and
/// takes one unit from one of them if their sum allows it. Serializable
/// transactions never take the sum below zero.
#[test]
fn concurrent_withdrawals_never_overdraw_when_serializable() {
    const THREADS: u64 = 4;
    const EACH: u64 = 200;
    for h in homes() {
        let g = Arc::new(h.graph.clone());
        g.insert_edges(&[(X.0, X.1, 50.0), (Y.0, Y.1, 50.0)])
            .unwrap();
        let workers: Vec<_> = (0..THREADS)
            .map(|t| {
                let g = g.clone();
                std::thread::spawn(move || {
                    for i in 0..EACH {
                        let take = if (t + i) % 2 == 0 { X } else { Y };
                        loop {
                            let mut tx = g.begin_with(Isolation::Serializable);
                            let x = tx.weight(X.0, X.1).unwrap();
                            let y = tx.weight(Y.0, Y.1).unwrap();
                            if x + y < 1.0 {
                                break;
                            }
                            let w = tx.weight(take.0, take.1).unwrap();
                            tx.insert_edge(take.0, take.1, w - 1.0).unwrap();
                            match tx.commit() {
                                Ok(_) => break,
                                Err(Error::Conflict { .. }) => {}
                                Err(e) => panic!("{e}"),
                            }
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
        let s = g.snapshot();
        let (x, y) = (s.weight(X.0, X.1).unwrap(), s.weight(Y.0, Y.1).unwrap());
        assert_eq!(x + y, 0.0, "{}: every unit taken, none twice", h.name);
    }
}

/// Single-call writes (which check nothing and, while no transaction
/// reads, record nothing) race transactions that read and write the same
/// edge. Every transaction that commits must have read the value the
/// commit just before it wrote: none may miss a single-call write that
/// was in flight when its snapshot opened.
#[test]
fn transactions_see_every_single_call_write_they_race() {
    const TXN_THREADS: u64 = 2;
    const EACH: u64 = 300;
    for h in homes() {
        let g = Arc::new(h.graph.clone());
        let start = g.insert_edge(X.0, X.1, 0.0).unwrap();
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let writer = {
            let g = g.clone();
            let done = done.clone();
            std::thread::spawn(move || {
                let mut log = Vec::new();
                let mut k = 1u64;
                while !done.load(Ordering::Relaxed) {
                    let v = (k * 1_000_000_000) as f64;
                    log.push((g.insert_edge(X.0, X.1, v).unwrap(), v, None));
                    k += 1;
                }
                log
            })
        };
        let txns: Vec<_> = (0..TXN_THREADS)
            .map(|_| {
                let g = g.clone();
                std::thread::spawn(move || {
                    let mut log = Vec::new();
                    // The writer may win every race for a while (on two
                    // busy cores it did for 300 tries): a thread tries on
                    // until it has committed, so that the check below has
                    // commits to check.
                    let mut tries = 0;
                    while tries < EACH || (log.is_empty() && tries < 100 * EACH) {
                        tries += 1;
                        let mut tx = g.begin();
                        let w = tx.weight(X.0, X.1).unwrap();
                        tx.insert_edge(X.0, X.1, w + 1.0).unwrap();
                        match tx.commit() {
                            Ok(ts) => log.push((ts, w + 1.0, Some(w))),
                            Err(Error::Conflict { .. }) => {}
                            Err(e) => panic!("{e}"),
                        }
                    }
                    log
                })
            })
            .collect();
        let mut log: Vec<(u64, f64, Option<f64>)> = Vec::new();
        for t in txns {
            log.extend(t.join().unwrap());
        }
        done.store(true, Ordering::Relaxed);
        log.extend(writer.join().unwrap());
        log.sort_by_key(|e| e.0);
        let mut before = (start, 0.0);
        let mut committed_txns = 0;
        for (ts, value, read) in log {
            if let Some(read) = read {
                assert_eq!(
                    read, before.1,
                    "{}: the transaction committed at {ts} read {read}, but the commit at {} wrote {}",
                    h.name, before.0, before.1
                );
                committed_txns += 1;
            }
            before = (ts, value);
        }
        assert!(
            committed_txns > 0,
            "{}: no transaction ever committed",
            h.name
        );
        assert_eq!(committed(&g, X), Some(before.1));
    }
}

/// The rows as property edges: `x` and `y` are two property edges (ids
/// chosen) with an Int64 property `value` of 10 and 20; the same anomalies.
mod property_edges {
    use super::*;
    use stratagraph::{EdgeDirection, Value};

    const PX: u64 = 100;
    const PY: u64 = 200;

    fn setup(g: &Graph) {
        let mut tx = g.begin();
        for (id, v) in [(PX, 10), (PY, 20)] {
            if tx.edge(id).is_some() {
                tx.set_edge_property(id, "value", Value::Int64(v)).unwrap();
            } else {
                tx.add_edge_with_id(id, id, id + 1, "row", &[("value", Value::Int64(v))])
                    .unwrap();
            }
        }
        tx.commit().unwrap();
    }

    fn value(tx: &mut WriteTxn, id: u64) -> Option<i64> {
        match tx.edge_property(id, "value") {
            Some(Value::Int64(v)) => Some(v),
            None => None,
            other => panic!("{other:?}"),
        }
    }

    fn committed(g: &Graph, id: u64) -> Option<Value> {
        g.snapshot().edge_property(id, "value")
    }

    fn prop(id: u64) -> Element {
        Element::EdgeProperty {
            edge: id,
            key: "value".into(),
        }
    }

    fn each(test: impl Fn(&Graph, Isolation, &str)) {
        for h in homes() {
            for level in LEVELS {
                setup(&h.graph);
                test(&h.graph, level, h.name);
            }
        }
    }

    #[test]
    fn p4_no_lost_update_of_an_edge_property() {
        each(|g, level, name| {
            let mut t1 = g.begin_with(level);
            let mut t2 = g.begin_with(level);
            let a = value(&mut t1, PX).unwrap();
            let b = value(&mut t2, PX).unwrap();
            t1.set_edge_property(PX, "value", Value::Int64(a + 1))
                .unwrap();
            t2.set_edge_property(PX, "value", Value::Int64(b + 1))
                .unwrap();
            t1.commit().unwrap();
            assert_conflict(t2.commit(), prop(PX), name);
            assert_eq!(committed(g, PX), Some(Value::Int64(11)));
        });
    }

    #[test]
    fn g1a_g1b_no_aborted_or_intermediate_edge_is_read() {
        each(|g, level, name| {
            let mut t1 = g.begin_with(level);
            let mut t2 = g.begin_with(level);
            t1.set_edge_property(PX, "value", Value::Int64(101))
                .unwrap();
            let e = t1.add_edge(1, 2, "row", &[]).unwrap();
            t1.set_edge_property(PX, "value", Value::Int64(11)).unwrap();
            assert_eq!(value(&mut t2, PX), Some(10), "{name}");
            assert_eq!(t2.edge(e), None, "{name}");
            drop(t1); // rolled back
            assert_eq!(value(&mut t2, PX), Some(10), "{name}");
            t2.commit().unwrap();
            assert_eq!(g.snapshot().edge(e), None);
        });
    }

    #[test]
    fn g_single_no_read_skew_over_edge_properties() {
        each(|g, level, name| {
            let mut t1 = g.begin_with(level);
            let mut t2 = g.begin_with(level);
            assert_eq!(value(&mut t1, PX), Some(10));
            value(&mut t2, PX);
            value(&mut t2, PY);
            t2.set_edge_property(PX, "value", Value::Int64(12)).unwrap();
            t2.set_edge_property(PY, "value", Value::Int64(18)).unwrap();
            t2.commit().unwrap();
            assert_eq!(value(&mut t1, PY), Some(20), "{name}");
            // The write variant: removing the edge it saw, which t2 changed.
            t1.remove_edge(PY).unwrap();
            assert_conflict_on(t1.commit(), &[prop(PY), Element::PropertyEdge(PY)], name);
            assert_eq!(committed(g, PY), Some(Value::Int64(18)));
        });
    }

    #[test]
    fn g2_item_write_skew_over_edge_properties_only_when_serializable() {
        each(|g, level, name| {
            let mut t1 = g.begin_with(level);
            let mut t2 = g.begin_with(level);
            for t in [&mut t1, &mut t2] {
                assert_eq!((value(t, PX), value(t, PY)), (Some(10), Some(20)));
            }
            t1.set_edge_property(PX, "value", Value::Int64(11)).unwrap();
            t2.set_edge_property(PY, "value", Value::Int64(21)).unwrap();
            t1.commit().unwrap();
            let second = t2.commit();
            let refused = refused_if_serializable(level, second, prop(PX), name);
            let y = if refused { 20 } else { 21 };
            assert_eq!(committed(g, PY), Some(Value::Int64(y)));
        });
    }

    #[test]
    fn g2_over_an_edge_list_only_when_serializable() {
        each(|g, level, name| {
            let mut t1 = g.begin_with(level);
            let mut t2 = g.begin_with(level);
            // Each sees vertex PX has no "extra" edge out, and adds one.
            for t in [&mut t1, &mut t2] {
                let out = t.edges_of(PX, EdgeDirection::Out, Some("extra"));
                assert!(out.unwrap_or_default().is_empty(), "{name}");
            }
            let a = t1.add_edge(PX, 7, "extra", &[]).unwrap();
            t2.add_edge(PX, 8, "extra", &[]).unwrap();
            t1.commit().unwrap();
            let second = t2.commit();
            let out = Element::PropertyEdges {
                vertex: PX,
                out: true,
            };
            refused_if_serializable(level, second, out, name);
            // Back to one "extra"-free vertex for the next level.
            let mut tx = g.begin();
            for e in tx.edges_of(PX, EdgeDirection::Out, Some("extra")).unwrap() {
                tx.remove_edge(e.id).unwrap();
            }
            tx.commit().unwrap();
            assert_eq!(g.snapshot().edge(a), None);
        });
    }
}

/// `Graph::begin_unchecked` promises no isolation: a transaction begun
/// with it that read a value another commit then changed still commits,
/// and its write is the last one. The same interleaving under snapshot
/// isolation is a lost update and fails with `Conflict`, which shows the
/// check is what differs.
#[test]
fn an_unchecked_transaction_applies_as_of_its_commit() {
    for checked in [false, true] {
        let g = Graph::in_memory(Options::default());
        let mut setup = g.begin();
        setup
            .insert_vertex_with(1, "account", &[("balance", stratagraph::Value::Int64(10))])
            .unwrap();
        setup.commit().unwrap();
        let mut late = if checked {
            g.begin()
        } else {
            g.begin_unchecked()
        };
        assert_eq!(
            late.property(1, "balance"),
            Some(stratagraph::Value::Int64(10))
        );
        let mut early = g.begin();
        early
            .set_property(1, "balance", stratagraph::Value::Int64(11))
            .unwrap();
        early.commit().unwrap();
        late.set_property(1, "balance", stratagraph::Value::Int64(12))
            .unwrap();
        let committed = late.commit();
        let balance = g.snapshot().property(1, "balance");
        if checked {
            assert!(
                matches!(committed, Err(Error::Conflict { .. })),
                "{committed:?}"
            );
            assert_eq!(balance, Some(stratagraph::Value::Int64(11)));
        } else {
            committed.unwrap();
            assert_eq!(balance, Some(stratagraph::Value::Int64(12)));
        }
    }
}
