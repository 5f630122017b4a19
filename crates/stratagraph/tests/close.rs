//! Closing a store: `Graph::close` (or dropping the last handle) releases
//! the directory at once, whatever snapshots and transactions still live;
//! they never flush, compact or write files afterwards.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::BTreeMap;
use std::path::Path;
use stratagraph::{Error, Graph, Options};

/// Every file in `dir` with its bytes.
fn files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap())
        })
        .collect()
}

/// Edges `(i, i + 1)` for `i` in `range`, one commit each.
fn commit_chain(g: &Graph, range: std::ops::Range<u64>) {
    for i in range {
        g.insert_edge(i, i + 1, i as f64).unwrap();
    }
}

fn assert_chain(g: &Graph, n: u64) {
    let s = g.snapshot();
    assert_eq!(s.edge_count(), n);
    for i in 0..n {
        assert_eq!(s.weight(i, i + 1), Some(i as f64), "edge {i}");
    }
}

#[test]
fn close_with_a_live_snapshot_and_transaction_releases_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path(), Options::default()).unwrap();
    commit_chain(&g, 0..50);
    let snap = g.snapshot();
    let mut tx = g.begin();
    tx.insert_edge(100, 101, 1.0).unwrap();
    g.close().unwrap();

    // The directory is free while both are alive, and holds every commit.
    let reopened = Graph::open(dir.path(), Options::default()).unwrap();
    assert_chain(&reopened, 50);

    // The old handle, its snapshot and its transaction: reads go on from
    // what they hold; every write is refused, naming the store.
    assert_eq!(snap.edge_count(), 50);
    assert_eq!(snap.weight(7, 8), Some(7.0));
    assert_eq!(g.snapshot().edge_count(), 50);
    let refused = tx.commit().unwrap_err();
    assert!(
        matches!(&refused, Error::Closed { op: "commit", store: Some(d) } if d.contains(&*dir.path().to_string_lossy())),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("is closed"), "{refused}");
    for err in [
        g.insert_edge(1, 2, 1.0).unwrap_err(),
        g.insert_edges(&[(1, 2, 1.0)]).unwrap_err(),
        g.delete_edges(&[(0, 1)]).unwrap_err(),
        g.insert_vertices(&[9]).unwrap_err(),
        g.flush().unwrap_err(),
        g.compact().unwrap_err(),
    ] {
        assert!(matches!(err, Error::Closed { .. }), "{err:?}");
    }
    g.close().unwrap(); // closing again does nothing
    drop((snap, g));

    // Nothing the closed handle refused reached the reopened store.
    assert_chain(&reopened, 50);
    commit_chain(&reopened, 50..60);
    drop(reopened);
    let again = Graph::open(dir.path(), Options::default()).unwrap();
    assert_chain(&again, 60);
}

#[test]
fn dropping_the_last_snapshot_after_the_graph_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path(), Options::default()).unwrap();
    commit_chain(&g, 0..200);
    // Half flushed into a run, half in the MemGraph: a store whose close
    // has work to do.
    g.flush().unwrap();
    commit_chain(&g, 200..400);
    let snap = g.snapshot();
    let (to_reader, from_main) = std::sync::mpsc::channel::<()>();
    let reader = std::thread::spawn(move || {
        from_main.recv().unwrap();
        assert_eq!(snap.edge_count(), 400);
        drop(snap); // the last holder of the store
    });
    drop(g); // the last handle: closes here, on this thread

    // Closed and released although the snapshot lives: another handle
    // opens the directory while the old store's last holder goes away.
    let reopened = Graph::open(dir.path(), Options::default()).unwrap();
    let before = files(dir.path());
    to_reader.send(()).unwrap();
    reader.join().unwrap();
    assert_eq!(
        files(dir.path()),
        before,
        "dropping the last snapshot changed the store's files"
    );
    assert_chain(&reopened, 400);
}

#[test]
fn an_in_memory_store_refuses_writes_once_closed() {
    let g = Graph::in_memory(Options::default());
    commit_chain(&g, 0..10);
    let other = g.clone();
    let snap = g.snapshot();
    g.close().unwrap();
    let err = other.insert_edge(1, 2, 1.0).unwrap_err();
    assert!(matches!(err, Error::Closed { store: None, .. }), "{err:?}");
    assert_eq!(snap.edge_count(), 10);
    assert_eq!(other.snapshot().edge_count(), 10);
}

#[test]
fn a_commit_racing_close_is_either_applied_and_durable_or_refused() {
    // Writers on other threads commit while the store closes: every commit
    // that returned Ok is in the reopened store, none that was refused is.
    for round in 0..5u64 {
        let dir = tempfile::tempdir().unwrap();
        let g = Graph::open(dir.path(), Options::default()).unwrap();
        let writers: Vec<_> = (0..2u64)
            .map(|t| {
                let g = g.clone();
                std::thread::spawn(move || {
                    let mut done = Vec::new();
                    for i in 0..2000u64 {
                        let (s, d) = (t * 1_000_000 + i, t * 1_000_000 + i + 1);
                        match g.insert_edge(s, d, 1.0) {
                            Ok(_) => done.push((s, d)),
                            Err(Error::Closed { .. }) => return (done, Some((s, d))),
                            Err(e) => panic!("{e}"),
                        }
                    }
                    (done, None)
                })
            })
            .collect();
        std::thread::sleep(std::time::Duration::from_millis(2 + round));
        g.close().unwrap();
        let results: Vec<_> = writers.into_iter().map(|w| w.join().unwrap()).collect();
        drop(g);
        let reopened = Graph::open(dir.path(), Options::default()).unwrap();
        let s = reopened.snapshot();
        let mut acknowledged = 0;
        for (done, refused) in &results {
            for &(a, b) in done {
                assert!(s.has_edge(a, b), "acknowledged edge ({a}, {b}) lost");
            }
            acknowledged += done.len() as u64;
            if let Some((a, b)) = refused {
                assert!(!s.has_edge(*a, *b), "refused edge ({a}, {b}) applied");
            }
        }
        assert_eq!(s.edge_count(), acknowledged);
    }
}
