//! `Graph::checkpoint`: a copy of an open store as of one commit, which
//! opens as a store of its own with exactly the commits up to its
//! timestamp (checked against the writes each test makes, and, with a
//! writer running meanwhile, against the timestamps its commits got),
//! shares the immutable level files, survives the store compacting them
//! away, and refuses what it cannot do without leaving anything behind.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;
use stratagraph::{Error, Graph, Options, Value};

fn opts() -> Options {
    Options {
        sync: stratagraph::SyncPolicy::Never,
        ..Options::default()
    }
}

fn edges(g: &Graph) -> BTreeSet<(u64, u64)> {
    let s = g.snapshot();
    s.vertices()
        .flat_map(|v| {
            let src = s.external_id(v).unwrap();
            s.out_neighbors_of(v)
                .map(|d| (src, s.external_id(d).unwrap()))
                .collect::<Vec<_>>()
        })
        .collect()
}

#[test]
fn a_checkpoint_opens_with_exactly_the_state_it_was_taken_at() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path().join("store"), opts()).unwrap();
    g.insert_edges(&[(1, 2, 1.0), (2, 3, 0.5)]).unwrap();
    g.flush().unwrap();
    let mut tx = g.begin();
    tx.insert_vertex_with(7, "person", &[("name", Value::String("ann".into()))])
        .unwrap();
    let e = tx
        .add_edge(7, 1, "knows", &[("since", Value::Int32(2020))])
        .unwrap();
    tx.commit().unwrap();
    let t1 = g.insert_edge(3, 1, 2.0).unwrap();
    let ckpt = dir.path().join("ckpt");
    assert_eq!(g.checkpoint(&ckpt).unwrap(), t1);
    // Later writes, and a compaction that deletes the files the
    // checkpoint links.
    g.delete_edge(1, 2).unwrap();
    g.set_property(7, "name", Value::String("bob".into()))
        .unwrap();
    g.insert_edges(&[(9, 10, 1.0)]).unwrap();
    g.compact().unwrap();
    let want_now: BTreeSet<_> = [(2, 3), (3, 1), (9, 10)].into();
    assert_eq!(edges(&g), want_now);
    g.close().unwrap();

    let c = Graph::open(&ckpt, opts()).unwrap();
    let want: BTreeSet<_> = [(1, 2), (2, 3), (3, 1)].into();
    assert_eq!(edges(&c), want);
    let s = c.snapshot();
    assert_eq!(s.weight(3, 1), Some(2.0));
    assert_eq!(s.label(7).as_deref(), Some("person"));
    assert_eq!(
        s.properties(7).unwrap(),
        vec![("name".into(), Value::String("ann".into()))]
    );
    let edge = s.edge(e).unwrap();
    assert_eq!((edge.src, edge.dst, &*edge.label), (7, 1, "knows"));
    assert!(s.timestamp() >= t1);
    drop(s);
    // It is a store like any other: it takes writes and reopens.
    c.insert_edge(4, 5, 1.0).unwrap();
    c.close().unwrap();
    let c = Graph::open(&ckpt, opts()).unwrap();
    assert!(edges(&c).contains(&(4, 5)));
    c.close().unwrap();
    // The store itself is untouched by all that.
    let g = Graph::open(dir.path().join("store"), opts()).unwrap();
    assert_eq!(edges(&g), want_now);
}

#[test]
fn level_files_are_shared_not_copied() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path().join("store"), opts()).unwrap();
    let es: Vec<_> = (0..10_000u64)
        .map(|i| (i, (i * 7 + 1) % 10_000, 1.0))
        .collect();
    g.insert_edges(&es).unwrap();
    g.compact().unwrap();
    let ckpt = dir.path().join("ckpt");
    g.checkpoint(&ckpt).unwrap();
    let mut linked = 0;
    for e in std::fs::read_dir(&ckpt).unwrap() {
        let e = e.unwrap();
        let name = e.file_name().to_string_lossy().into_owned();
        let meta = e.metadata().unwrap();
        if name.starts_with("run-") {
            let orig = std::fs::metadata(dir.path().join("store").join(&name)).unwrap();
            assert_eq!(meta.ino(), orig.ino(), "{name} is a copy");
            linked += 1;
        }
        if name == "MANIFEST" || name.starts_with("wal-") {
            assert_eq!(meta.nlink(), 1, "{name} must be a copy of its own");
        }
    }
    assert!(linked > 0);
    // The store's own check sees nothing amiss with a checkpoint kept
    // inside it, and lists it.
    let (ts, path) = g.save_checkpoint().unwrap();
    assert_eq!(
        stratagraph::checkpoints(dir.path().join("store")).unwrap(),
        vec![(ts, path)]
    );
    g.close().unwrap();
    let report = stratagraph::check(dir.path().join("store")).unwrap();
    assert!(report.problems.is_empty(), "{:?}", report.problems);
    assert!(report.orphans.is_empty(), "{:?}", report.orphans);
}

#[test]
fn with_a_writer_running_a_checkpoint_holds_exactly_the_commits_up_to_its_timestamp() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path().join("store"), opts()).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let done = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let writer = {
        let (g, stop, done) = (g.clone(), stop.clone(), done.clone());
        std::thread::spawn(move || {
            let mut stamps = Vec::new();
            let mut i = 0u64;
            while !stop.load(std::sync::atomic::Ordering::Acquire) {
                stamps.push((i, g.insert_edge(i, i + 1_000_000, 1.0).unwrap()));
                done.store(i + 1, std::sync::atomic::Ordering::Release);
                i += 1;
            }
            stamps
        })
    };
    let mut taken = Vec::new();
    let mut after = 0;
    for k in 0..4u64 {
        // Each checkpoint at least 100 commits in, and after a commit that
        // started once the one before had returned: with `done` at `after`
        // then, commit `after + 1` began later, and has returned once
        // `done` reaches `after + 2` (a loaded machine may otherwise run
        // two checkpoints with no commit between them).
        let want = (100 * (k + 1)).max(after + 2);
        while done.load(std::sync::atomic::Ordering::Acquire) < want {
            std::thread::yield_now();
        }
        let path = dir.path().join(format!("ckpt{k}"));
        taken.push((g.checkpoint(&path).unwrap(), path));
        after = done.load(std::sync::atomic::Ordering::Acquire);
    }
    stop.store(true, std::sync::atomic::Ordering::Release);
    let stamps = writer.join().unwrap();
    let mut sizes = BTreeSet::new();
    for (ts, path) in taken {
        let want: BTreeSet<_> = stamps
            .iter()
            .filter(|&&(_, t)| t <= ts)
            .map(|&(i, _)| (i, i + 1_000_000))
            .collect();
        let c = Graph::open(&path, opts()).unwrap();
        assert_eq!(edges(&c), want, "checkpoint at {ts}");
        assert!(!want.is_empty() && want.len() < stamps.len());
        sizes.insert(want.len());
    }
    assert_eq!(sizes.len(), 4, "four different states");
}

#[test]
fn what_a_checkpoint_cannot_do_is_refused_and_leaves_nothing() {
    let g = Graph::in_memory(opts());
    let dir = tempfile::tempdir().unwrap();
    let err = g.checkpoint(dir.path().join("x")).unwrap_err();
    assert!(matches!(err, Error::InMemory { .. }), "{err}");
    assert!(!dir.path().join("x").exists());

    let g = Graph::open(dir.path().join("store"), opts()).unwrap();
    g.insert_edge(1, 2, 1.0).unwrap();
    let full = dir.path().join("full");
    std::fs::create_dir(&full).unwrap();
    std::fs::write(full.join("keep.txt"), b"mine").unwrap();
    let err = g.checkpoint(&full).unwrap_err();
    assert!(err.to_string().contains("not empty"), "{err}");
    let left: Vec<_> = std::fs::read_dir(&full).unwrap().collect();
    assert_eq!(left.len(), 1);
    // A file where the directory should go: refused, nothing left beside it.
    let file = dir.path().join("afile");
    std::fs::write(&file, b"x").unwrap();
    let err = g.checkpoint(&file).unwrap_err();
    assert!(err.to_string().contains("a file is in the way"), "{err}");
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    assert!(!dir.path().join("afile.checkpoint-tmp").exists());
    // An empty directory is fine.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    g.checkpoint(&empty).unwrap();
    g.close().unwrap();
    let err = g.checkpoint(dir.path().join("late")).unwrap_err();
    assert!(matches!(err, Error::Closed { .. }), "{err}");
    assert!(Graph::open(&empty, opts())
        .unwrap()
        .snapshot()
        .has_edge(1, 2));
}

/// A checkpoint or an as-of rebuild killed midway leaves its scratch
/// directory in the store's `checkpoints/`: the next open for writing
/// removes it, a read-only open changes nothing, and kept checkpoints stay
/// as they were.
#[test]
fn an_open_removes_what_a_killed_checkpoint_left() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("store");
    let g = Graph::open(&home, opts()).unwrap();
    g.insert_edges(&[(1, 2, 1.0), (2, 3, 1.0)]).unwrap();
    let (ts, kept) = g.save_checkpoint().unwrap();
    g.close().unwrap();
    let root = home.join(stratagraph::CHECKPOINTS_DIR);
    // `save_checkpoint`'s directory, the scratch `checkpoint` assembles
    // it in, and a store `stratagraph_io::as_of::rebuild` makes.
    let left = ["new-4242-17", "new-4242-17.checkpoint-tmp", ".as-of-3-4242"];
    for name in left {
        std::fs::create_dir_all(root.join(name)).unwrap();
        std::fs::write(root.join(name).join("MANIFEST"), b"half written").unwrap();
    }
    let read_only = Options {
        read_only: true,
        ..opts()
    };
    Graph::open(&home, read_only).unwrap().close().unwrap();
    for name in left {
        assert!(root.join(name).exists(), "a read-only open removed {name}");
    }

    let g = Graph::open(&home, opts()).unwrap();
    for name in left {
        assert!(!root.join(name).exists(), "{name} is still there");
    }
    assert_eq!(
        stratagraph::checkpoints(&home).unwrap(),
        vec![(ts, kept.clone())]
    );
    assert_eq!(edges(&g), [(1, 2), (2, 3)].into());
    g.close().unwrap();
    let c = Graph::open(&kept, opts()).unwrap();
    assert_eq!(edges(&c), [(1, 2), (2, 3)].into());
    c.close().unwrap();
}
