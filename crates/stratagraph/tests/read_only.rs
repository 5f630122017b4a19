//! Read-only opening (`Options::read_only`): a store is read, its log
//! replayed in memory, without changing one byte of any file and without
//! write access; it shares its lock with other readers and `check`, never
//! with a writer; writes are refused with `ReadOnly`.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

#[path = "support/tmpfs.rs"]
mod tmpfs;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use stratagraph::{Error, Graph, Options, SyncPolicy};

/// Every file under `dir` with its bytes: a store is unchanged if this is.
fn files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        out.insert(path.clone(), std::fs::read(&path).unwrap());
    }
    out
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
}

fn read_only() -> Options {
    Options {
        read_only: true,
        ..Options::default()
    }
}

/// The weighted edges a store holds, in external ids.
fn edges(g: &Graph) -> BTreeMap<(u64, u64), f64> {
    let s = g.snapshot();
    let mut out = BTreeMap::new();
    for v in s.vertices() {
        for (d, w) in s.out_weighted_of(v) {
            out.insert((s.external_id(v).unwrap(), s.external_id(d).unwrap()), w);
        }
    }
    out
}

/// A store as a crash leaves it: level files from flushes, and commits
/// after the last flush only in the log. Built by copying the directory of
/// a store that is still open (and idle); returns what it holds, by the
/// test's own model.
fn crashed_store(dir: &Path) -> BTreeMap<(u64, u64), f64> {
    let live = tempfile::tempdir().unwrap();
    let g = Graph::open(
        live.path(),
        Options {
            sync: SyncPolicy::Always,
            memgraph_bytes: 64 << 10,
            ..Options::default()
        },
    )
    .unwrap();
    let mut model = BTreeMap::new();
    let batch: Vec<(u64, u64, f64)> = (0..3000u64).map(|i| (i, (i * 7 + 1) % 3001, 1.0)).collect();
    g.insert_edges(&batch).unwrap();
    for &(s, d, w) in &batch {
        model.insert((s, d), w);
    }
    g.flush().unwrap();
    for i in 0..200u64 {
        g.insert_edge(i, i + 5000, 0.5).unwrap();
        model.insert((i, i + 5000), 0.5);
    }
    // Re-weights of flushed edges, written blind: the replay records them
    // again, and only the count's settling tells them from new edges.
    for i in (0..3000u64).step_by(7) {
        let d = (i * 7 + 1) % 3001;
        g.insert_edge(i, d, 3.0).unwrap();
        model.insert((i, d), 3.0);
    }
    g.delete_edge(0, 1).unwrap();
    model.remove(&(0, 1));
    g.wait_idle();
    copy_dir(live.path(), dir);
    drop(g);
    model
}

#[test]
fn a_read_only_open_replays_the_log_in_memory_and_changes_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let model = crashed_store(dir.path());
    let before = files(dir.path());
    let g = Graph::open(dir.path(), read_only()).unwrap();
    assert!(g.options().read_only);
    assert_eq!(edges(&g), model, "every commit, the logged ones included");
    assert_eq!(g.snapshot().edge_count(), model.len() as u64);
    g.close().unwrap();
    assert_eq!(
        files(dir.path()),
        before,
        "no file was written, cut or removed"
    );
    // A writer then finds the store as the crash left it, and recovers it.
    let w = Graph::open(dir.path(), Options::default()).unwrap();
    assert_eq!(edges(&w), model);
    assert_eq!(w.snapshot().edge_count(), model.len() as u64);
}

#[test]
fn writes_and_maintenance_are_refused_with_read_only() {
    let dir = tempfile::tempdir().unwrap();
    let model = crashed_store(dir.path());
    let before = files(dir.path());
    let g = Graph::open(dir.path(), read_only()).unwrap();
    let refused = |r: stratagraph::Result<()>, op: &str| match r {
        Err(Error::ReadOnly { op: got, store }) => {
            assert_eq!(got, op);
            assert_eq!(store, dir.path().display().to_string());
        }
        other => panic!("{op}: expected ReadOnly, got {other:?}"),
    };
    refused(g.insert_edge(1, 2, 1.0).map(drop), "commit");
    refused(g.delete_edge(1, 8).map(drop), "commit");
    refused(g.insert_vertex(99_999).map(drop), "commit");
    refused(g.insert_edges(&[(1, 2, 1.0)]).map(drop), "insert_edges");
    refused(g.delete_edges(&[(1, 8)]).map(drop), "delete_edges");
    refused(g.insert_vertices(&[99_999]).map(drop), "insert_vertices");
    let mut tx = g.begin();
    tx.insert_edge(5, 6, 1.0).unwrap();
    refused(tx.commit().map(drop), "commit");
    refused(g.flush(), "flush");
    refused(g.compact(), "compact");
    assert_eq!(edges(&g), model, "nothing was applied");
    drop(g);
    assert_eq!(files(dir.path()), before);
}

#[test]
fn readers_share_the_lock_and_a_writer_is_excluded_both_ways() {
    let dir = tempfile::tempdir().unwrap();
    crashed_store(dir.path());
    let a = Graph::open(dir.path(), read_only()).unwrap();
    let b = Graph::open(dir.path(), read_only()).unwrap();
    assert!(stratagraph::check(dir.path()).unwrap().is_healthy());
    assert!(matches!(
        Graph::open(dir.path(), Options::default()),
        Err(Error::StoreLocked { .. })
    ));
    drop((a, b));
    let w = Graph::open(dir.path(), Options::default()).unwrap();
    assert!(matches!(
        Graph::open(dir.path(), read_only()),
        Err(Error::StoreLocked { .. })
    ));
    drop(w);
    Graph::open(dir.path(), read_only()).unwrap();
}

#[test]
fn a_read_only_open_never_creates_a_store() {
    let dir = tempfile::tempdir().unwrap();
    let absent = dir.path().join("absent");
    assert!(matches!(
        Graph::open(&absent, read_only()),
        Err(Error::NotAStore { .. })
    ));
    assert!(!absent.exists());
    assert!(matches!(
        Graph::open(dir.path(), read_only()),
        Err(Error::NotAStore { .. })
    ));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

/// No write access at all: a read-only mount (needs root; elsewhere the
/// files and directory are made unwritable, which binds users other than
/// root). A read-only open works; an ordinary open fails with an error,
/// not a panic, and changes nothing.
#[test]
fn a_store_on_a_read_only_file_system_opens_read_only() {
    let Some(place) = tmpfs::Unwritable::new() else {
        return;
    };
    let dir = place.path().join("store");
    let model = crashed_store(&dir);
    place.seal(&dir);
    let before = files(&dir);
    let g = Graph::open(&dir, read_only()).unwrap();
    assert_eq!(edges(&g), model);
    assert!(stratagraph::check(&dir).unwrap().is_healthy());
    g.close().unwrap();
    match Graph::open(&dir, Options::default()) {
        Err(Error::Io { .. }) => {}
        other => panic!("expected an I/O error opening for writing, got {other:?}"),
    }
    assert_eq!(files(&dir), before);
}
