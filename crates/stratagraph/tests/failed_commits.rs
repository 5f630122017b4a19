//! Commits whose log write fails: a full disk or an I/O error, injected
//! into the store's file operations (`stratagraph::fault_injection`). A
//! commit that returns an error is neither visible nor recovered; every
//! commit that returned success is both; the store then refuses writes
//! until it is reopened, `close` succeeds, and nothing panics.
//!
//! The last test is a random workload against a model while file
//! operations fail after a random countdown, in the manner of redb's
//! fault-injection fuzzing.

#![allow(clippy::unwrap_used)] // a test panics on what it did not expect

#[path = "support/tmpfs.rs"]
mod tmpfs;

use std::collections::BTreeMap;
use std::path::Path;
use stratagraph::fault_injection::{self as faults, FaultPlan, FileOp};
use stratagraph::{Error, Graph, Options, SyncPolicy};

type Edges = BTreeMap<(u64, u64), f64>;

fn edges(g: &Graph) -> Edges {
    let s = g.snapshot();
    let mut out = Edges::new();
    for v in s.vertices() {
        let ext = s.external_id(v).unwrap();
        for (d, w) in s.out_weighted_of(v) {
            out.insert((ext, s.external_id(d).unwrap()), w);
        }
    }
    out
}

fn options(sync: SyncPolicy) -> Options {
    Options {
        sync,
        memgraph_bytes: usize::MAX,
        ..Options::default()
    }
}

fn once(ops: &[FileOp], errno: i32) -> FaultPlan {
    FaultPlan {
        after: 0,
        errno,
        persistent: false,
        ops: ops.to_vec(),
    }
}

/// Run files in `dir` the MANIFEST does not name would be orphans; the
/// check lists none, and every file is the store's.
fn assert_no_orphans(dir: &Path) {
    let report = stratagraph::check(dir).unwrap();
    assert!(report.is_healthy(), "{report:?}");
    for e in std::fs::read_dir(dir).unwrap() {
        let name = e.unwrap().file_name().to_string_lossy().into_owned();
        assert!(!name.ends_with(".tmp"), "{name} left behind");
    }
}

/// Opens the store in `dir` again after this process closed it. The test
/// that mounts a tmpfs runs `mount` and `umount` on another thread, and a
/// child between its fork and its exec holds a copy of the closed store's
/// `LOCK` file, and its lock with it: the open waits for that itself
/// (`util/dir_lock.rs`), so no retry here.
fn reopen(dir: &std::path::Path, opts: Options) -> Graph {
    Graph::open(dir, opts).unwrap()
}

/// The case: the disk is full when the record is written (or
/// synced). The edge is not in the next snapshot, a retry is refused
/// until the store is reopened, `close` succeeds, and after the reopen
/// the edge is absent and a retry applies it once.
#[test]
fn a_commit_whose_log_write_or_sync_fails_is_neither_visible_nor_recovered() {
    let cases = [
        (SyncPolicy::Always, FileOp::Write, libc::ENOSPC),
        (SyncPolicy::Always, FileOp::Sync, libc::EIO),
        (SyncPolicy::Never, FileOp::Write, libc::ENOSPC),
    ];
    for (sync, op, errno) in cases {
        let dir = tempfile::tempdir().unwrap();
        let g = Graph::open(dir.path(), options(sync)).unwrap();
        g.insert_edge(1, 2, 1.0).unwrap();
        g.insert_edges(&[(2, 3, 2.0), (3, 4, 3.0)]).unwrap();
        let before = edges(&g);
        faults::arm(dir.path(), once(&[op], errno));
        let err = g.insert_edge(7, 8, 5.0).unwrap_err();
        assert!(matches!(err, Error::Io { .. }), "{sync:?} {op:?}: {err}");
        assert_eq!(faults::disarm(dir.path()), 1);
        assert_eq!(
            edges(&g),
            before,
            "{sync:?} {op:?}: the failed edge is seen"
        );
        assert_eq!(g.snapshot().edge_count(), 3);
        // Refused until reopened, batches too, though the disk is fine now.
        assert!(matches!(
            g.insert_edge(7, 8, 5.0),
            Err(Error::LogFailed { .. })
        ));
        assert!(matches!(
            g.insert_edges(&[(9, 10, 1.0)]),
            Err(Error::LogFailed { .. })
        ));
        g.close().unwrap();
        assert_no_orphans(dir.path());
        let g = reopen(dir.path(), options(sync));
        assert_eq!(edges(&g), before, "{sync:?} {op:?}: recovered");
        assert!(!g.snapshot().has_vertex(7));
        g.insert_edge(7, 8, 5.0).unwrap();
        assert_eq!(g.snapshot().edge_count(), 4);
        g.close().unwrap();
    }
}

/// The device refuses everything from the failed sync on, so the failed
/// record cannot be cut off the log: the commit says its fate is
/// unresolved, and the store reopens with or without it, nothing else.
#[test]
fn a_record_that_cannot_be_cut_back_is_reported_unresolved() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path(), options(SyncPolicy::Always)).unwrap();
    g.insert_edge(1, 2, 1.0).unwrap();
    let before = edges(&g);
    faults::arm(
        dir.path(),
        FaultPlan {
            after: 0,
            errno: libc::EIO,
            persistent: true,
            ops: vec![FileOp::Sync],
        },
    );
    let err = g.insert_edge(7, 8, 5.0).unwrap_err();
    assert!(matches!(err, Error::CommitUnresolved { .. }), "{err}");
    assert_eq!(edges(&g), before);
    g.close().unwrap();
    faults::disarm(dir.path());
    let g = Graph::open(dir.path(), options(SyncPolicy::Always)).unwrap();
    let mut with = before.clone();
    with.insert((7, 8), 5.0);
    let got = edges(&g);
    assert!(got == before || got == with, "{got:?}");
}

/// A tiny pseudo-random generator, so a failing seed can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Random transactions, batches and deletions against a model while the
/// file operations under the store fail after a random countdown (ENOSPC
/// or EIO, once or for good, on writes, syncs, renames, creations or all).
/// Small MemGraph budgets make flushes and compactions run (and fail) in
/// the background too. Every commit that returned success is in the
/// snapshot and after the reopen; every one that failed is in neither.
#[test]
fn random_workloads_with_failing_file_operations_lose_nothing_acknowledged() {
    let op_sets: [&[FileOp]; 5] = [
        &[FileOp::Write],
        &[FileOp::Sync],
        &[FileOp::Rename],
        &[FileOp::Create],
        &[],
    ];
    let rounds: u64 = std::env::var("SG_FAULT_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(60);
    let (mut failed_rounds, mut fired_rounds) = (0, 0);
    for seed in 1..=rounds {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let sync = [SyncPolicy::Always, SyncPolicy::Never][rng.below(2) as usize];
        let opts = Options {
            sync,
            memgraph_bytes: 1 << (12 + rng.below(6)),
            ..Options::default()
        };
        let plan = FaultPlan {
            after: rng.below(60),
            errno: [libc::ENOSPC, libc::EIO][rng.below(2) as usize],
            persistent: rng.below(2) == 0,
            ops: op_sets[rng.below(op_sets.len() as u64) as usize].to_vec(),
        };
        let ctx = format!("seed {seed}: {sync:?} {plan:?}");
        let dir = tempfile::tempdir().unwrap();
        let g = Graph::open(dir.path(), opts.clone()).unwrap();
        faults::arm(dir.path(), plan);
        let mut model = Edges::new();
        let mut unresolved: Option<Edges> = None;
        let mut failed = false;
        for _ in 0..150 {
            let mut next = model.clone();
            let result = match rng.below(4) {
                0 | 1 => {
                    let mut tx = g.begin();
                    for _ in 0..3 {
                        let (s, d) = (rng.below(40), rng.below(40));
                        let w = rng.below(100) as f64;
                        tx.insert_edge(s, d, w).unwrap();
                        next.insert((s, d), w);
                    }
                    tx.commit().map(|_| ())
                }
                2 => {
                    let batch: Vec<(u64, u64, f64)> = (0..8)
                        .map(|_| (rng.below(40), rng.below(40), rng.below(9) as f64))
                        .collect();
                    for &(s, d, w) in &batch {
                        next.insert((s, d), w);
                    }
                    g.insert_edges(&batch).map(|_| ())
                }
                _ => match model
                    .keys()
                    .nth(rng.below(model.len().max(1) as u64) as usize)
                {
                    Some(&(s, d)) => {
                        next.remove(&(s, d));
                        g.delete_edge(s, d).map(|_| ())
                    }
                    None => continue, // nothing to delete: no commit
                },
            };
            match result {
                Ok(()) => {
                    assert!(
                        unresolved.is_none(),
                        "{ctx}: a commit after an unresolved one"
                    );
                    model = next;
                }
                Err(Error::CommitUnresolved { .. }) => {
                    unresolved = Some(next);
                    failed = true;
                }
                Err(Error::Io { .. } | Error::LogFailed { .. }) => failed = true,
                Err(e) => panic!("{ctx}: {e}"),
            }
            assert_eq!(edges(&g), model, "{ctx}: the snapshot");
        }
        // A flush that failed in the background may fail again at close
        // while the faults stay armed; the log keeps what it did not write.
        let closed = g.close();
        fired_rounds += u64::from(faults::disarm(dir.path()) > 0);
        failed_rounds += u64::from(failed);
        if let Err(e) = &closed {
            assert!(matches!(e, Error::Io { .. }), "{ctx}: close: {e}");
        }
        let g = reopen(dir.path(), opts);
        let got = edges(&g);
        assert!(
            got == model || unresolved.as_ref() == Some(&got),
            "{ctx}: after reopen\n got {got:?}\nwant {model:?}"
        );
        g.close().unwrap();
        assert_no_orphans(dir.path());
    }
    // The countdowns are short enough that most rounds see faults, and
    // many see a commit fail (others fail a background flush only).
    assert!(
        fired_rounds * 2 > rounds,
        "{fired_rounds} of {rounds} rounds"
    );
    assert!(
        failed_rounds * 4 > rounds,
        "{failed_rounds} of {rounds} rounds"
    );
    eprintln!("{fired_rounds} rounds with faults, {failed_rounds} with failed commits");
}

/// A real full disk: a 1 MiB tmpfs (mounting needs root; elsewhere the
/// test says so and checks nothing). Commits run until the disk is full;
/// the ones that failed are not in the snapshot, the store refuses writes,
/// `close` succeeds, and once a ballast file is removed to free space the
/// reopened store holds exactly the acknowledged commits.
#[test]
fn a_full_tmpfs_keeps_exactly_the_acknowledged_commits() {
    let Some(mnt) = tmpfs::Tmpfs::mount("1m") else {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    };
    let ballast = mnt.path().join("ballast");
    std::fs::write(&ballast, vec![1u8; 256 << 10]).unwrap();
    let dir = mnt.path().join("store");
    let opts = Options {
        sync: SyncPolicy::Always,
        memgraph_bytes: 32 << 10,
        ..Options::default()
    };
    let g = Graph::open(&dir, opts.clone()).unwrap();
    let mut model = Edges::new();
    let mut rng = Rng(7);
    let mut failures = 0;
    for _ in 0..20_000 {
        let mut tx = g.begin();
        let mut next = model.clone();
        for _ in 0..4 {
            let (s, d, w) = (rng.below(5000), rng.below(5000), rng.below(100) as f64);
            tx.insert_edge(s, d, w).unwrap();
            next.insert((s, d), w);
        }
        match tx.commit() {
            Ok(_) => model = next,
            Err(Error::Io { .. } | Error::LogFailed { .. }) => {
                failures += 1;
                if failures == 3 {
                    break;
                }
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(failures > 0, "the disk never filled");
    assert_eq!(edges(&g), model);
    g.close().unwrap();
    std::fs::remove_file(&ballast).unwrap();
    // Reopening makes the logged commits durable in level files, and may
    // need more room than the ballast gave back: then it fails cleanly and
    // the store opens on a disk with room.
    let elsewhere = tempfile::tempdir().unwrap();
    let g = match Graph::open(&dir, opts.clone()) {
        Ok(g) => g,
        Err(Error::Io {
            kind: std::io::ErrorKind::StorageFull,
            ..
        }) => {
            for e in std::fs::read_dir(&dir).unwrap() {
                let e = e.unwrap();
                std::fs::copy(e.path(), elsewhere.path().join(e.file_name())).unwrap();
            }
            Graph::open(elsewhere.path(), opts).unwrap()
        }
        Err(e) => panic!("{e}"),
    };
    assert_eq!(edges(&g), model);
    // Closing merges the levels, which may not fit either: a clean error.
    match g.close() {
        Ok(()) => {}
        Err(Error::Io {
            kind: std::io::ErrorKind::StorageFull,
            ..
        }) => {}
        Err(e) => panic!("{e}"),
    }
}
