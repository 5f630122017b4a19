//! The on-disk home: a closed store reopens with exactly what it held, runs
//! written by background flushes and compactions included; options that
//! contradict the store and damaged files are refused with errors naming
//! the file, and a refused open changes nothing.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use stratagraph::{Error, Graph, Options, Snapshot, SyncPolicy, Totals};

/// Everything a snapshot says, in external ids: vertices and weighted edges.
fn contents(s: &Snapshot) -> (BTreeSet<u64>, BTreeMap<(u64, u64), f64>) {
    let ext = |v| s.external_id(v).unwrap();
    let vertices = s.vertices().map(ext).collect();
    let mut edges = BTreeMap::new();
    for v in s.vertices() {
        for (d, w) in s.out_weighted_of(v) {
            let (a, b) = (ext(v), ext(d));
            let key = if s.is_directed() || a <= b {
                (a, b)
            } else {
                (b, a)
            };
            edges.insert(key, w);
        }
    }
    (vertices, edges)
}

/// A deterministic mix of batches, single writes, deletes and vertex deletes.
fn workload(g: &Graph, seed: u64, n: u64) {
    let mut x = seed;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    for _ in 0..n {
        let (a, b) = (next(300) + 1000, next(300) + 1000);
        match next(10) {
            0..=4 => {
                g.insert_edge(a, b, (next(4) + 1) as f64).unwrap();
            }
            5 | 6 => {
                let _ = g.delete_edge(a, b);
            }
            7 => {
                let _ = g.delete_vertex(a);
            }
            _ => {
                let batch: Vec<_> = (0..30).map(|k| (a, 1000 + (b + k) % 300, 1.5)).collect();
                g.insert_edges(&batch).unwrap();
            }
        }
    }
}

fn reopen_matches(opts: Options, budget: usize) {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        memgraph_bytes: budget,
        ..opts
    };
    let want = {
        let g = Graph::open(dir.path(), opts.clone()).unwrap();
        workload(&g, 7, 3000);
        g.insert_vertex(5).unwrap(); // an isolated vertex survives too
        let want = contents(&g.snapshot());
        let counts = (g.snapshot().vertex_count(), g.snapshot().edge_count());
        g.close().unwrap();
        assert_eq!(
            contents(&g.snapshot()),
            want,
            "close changes nothing visible"
        );
        (want, counts)
    };
    let g = Graph::open(dir.path(), opts.clone()).unwrap();
    let s = g.snapshot();
    assert_eq!(contents(&s), want.0);
    assert_eq!((s.vertex_count(), s.edge_count()), want.1);
    // Keep going after the reopen, then drop without close: drop persists.
    workload(&g, 8, 2000);
    let again = contents(&g.snapshot());
    drop(s);
    drop(g);
    let g = Graph::open(dir.path(), opts).unwrap();
    assert_eq!(contents(&g.snapshot()), again);
    // Only the manifest's files are left (with the vertex file), the lock
    // and one log segment
    // (the old ones are redundant once their commits are in level files,
    // and kept only as the archive of changes, `changes-*`, which
    // recovery never reads).
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with("changes"))
        .collect();
    names.sort();
    let runs = g.runs().len();
    let per_run = if g.options().directed { 2 } else { 1 };
    let logs = names.iter().filter(|n| n.starts_with("wal-")).count();
    assert_eq!(logs, 1, "{names:?}");
    assert_eq!(g.stats().log_segments, 1);
    assert_eq!(
        names.len(),
        4 + per_run * runs,
        "MANIFEST, VERTICES, LOCK, one log segment and the live runs' files: {names:?}"
    );
}

#[test]
fn directed_store_reopens_with_everything() {
    reopen_matches(Options::default(), usize::MAX);
}

#[test]
fn undirected_store_reopens_with_everything() {
    reopen_matches(Options::undirected(), usize::MAX);
}

#[test]
fn store_flushing_in_the_background_reopens_with_everything() {
    reopen_matches(Options::default(), 4 << 10);
    reopen_matches(Options::undirected(), 4 << 10);
}

fn snapshot_of_dir(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            (p.display().to_string(), std::fs::read(&p).unwrap())
        })
        .collect();
    files.sort();
    files
}

fn closed_store(dir: &Path) {
    let g = Graph::open(dir, Options::default()).unwrap();
    workload(&g, 3, 500);
    g.close().unwrap();
}

#[test]
fn contradicting_options_are_refused_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    closed_store(dir.path());
    let before = snapshot_of_dir(dir.path());
    let err = Graph::open(dir.path(), Options::undirected()).unwrap_err();
    assert!(
        matches!(&err, Error::OptionsMismatch { file, .. } if file.ends_with("MANIFEST")),
        "{err}"
    );
    assert!(err.to_string().contains("directed"), "{err}");
    assert_eq!(snapshot_of_dir(dir.path()), before);
}

#[test]
fn a_damaged_manifest_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    closed_store(dir.path());
    let path = dir.path().join("MANIFEST");
    let mut bytes = std::fs::read(&path).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x20;
    std::fs::write(&path, &bytes).unwrap();
    let before = snapshot_of_dir(dir.path());
    let err = Graph::open(dir.path(), Options::default()).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt { file, .. } if file.ends_with("MANIFEST")),
        "{err}"
    );
    assert_eq!(
        snapshot_of_dir(dir.path()),
        before,
        "a refused open changes nothing"
    );
}

#[test]
fn a_damaged_or_missing_run_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    closed_store(dir.path());
    let seg = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "seg"))
        .unwrap();
    let original = std::fs::read(&seg).unwrap();
    // A flipped header byte.
    let mut bytes = original.clone();
    bytes[40] ^= 1;
    std::fs::write(&seg, &bytes).unwrap();
    let err = Graph::open(dir.path(), Options::default()).unwrap_err();
    let name = seg.display().to_string();
    assert!(
        matches!(&err, Error::Corrupt { file, .. } if *file == name),
        "{err}"
    );
    // A truncated file.
    std::fs::write(&seg, &original[..original.len() - 3]).unwrap();
    let err = Graph::open(dir.path(), Options::default()).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt { file, .. } if *file == name),
        "{err}"
    );
    // A missing file.
    std::fs::remove_file(&seg).unwrap();
    let err = Graph::open(dir.path(), Options::default()).unwrap_err();
    assert!(
        matches!(&err, Error::Io { file, .. } if *file == name),
        "{err}"
    );
    // Put back, it opens again.
    std::fs::write(&seg, &original).unwrap();
    Graph::open(dir.path(), Options::default()).unwrap();
}

#[test]
fn a_damaged_short_or_missing_vertex_file_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    closed_store(dir.path());
    let path = dir.path().join("VERTICES");
    let name = path.display().to_string();
    let original = std::fs::read(&path).unwrap();
    let refused = |bytes: Option<&[u8]>| {
        match bytes {
            Some(b) => std::fs::write(&path, b).unwrap(),
            None => std::fs::remove_file(&path).unwrap(),
        }
        let before = snapshot_of_dir(dir.path());
        let err = Graph::open(dir.path(), Options::default()).unwrap_err();
        assert!(
            matches!(&err, Error::Corrupt { file, .. } if *file == name),
            "{err}"
        );
        assert_eq!(
            snapshot_of_dir(dir.path()),
            before,
            "a refused open changes nothing"
        );
        let report = stratagraph::check(dir.path()).unwrap();
        assert!(
            report
                .problems
                .iter()
                .any(|e| e.to_string().contains("VERTICES")),
            "{report:?}"
        );
    };
    // A flipped external id (the chunk's checksum), a cut, no file.
    let mut flipped = original.clone();
    flipped[30] ^= 4;
    refused(Some(&flipped));
    refused(Some(&original[..original.len() - 1]));
    refused(None);
    std::fs::write(&path, &original).unwrap();
    Graph::open(dir.path(), Options::default()).unwrap();
}

#[test]
fn the_vertex_file_grows_by_appends_and_a_torn_append_is_cut_off() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("VERTICES");
    let g = Graph::open(dir.path(), Options::default()).unwrap();
    g.insert_edges(
        &(0..20_000u64)
            .map(|i| (i * 3, i * 3 + 1, 1.0))
            .collect::<Vec<_>>(),
    )
    .unwrap();
    g.delete_vertex(9).unwrap();
    g.close().unwrap();
    let first = std::fs::read(&path).unwrap();
    // 40,000 vertices, a few bytes of manifest each would show.
    let manifest = std::fs::metadata(dir.path().join("MANIFEST"))
        .unwrap()
        .len();
    assert!(manifest < 1024, "the MANIFEST takes {manifest} bytes");
    assert!(first.len() >= 40_000 * 8, "{}", first.len());
    // An append a crash cut short before its manifest: bytes past the end
    // the manifest names.
    let mut torn = first.clone();
    torn.extend_from_slice(&[0xAB; 21]);
    std::fs::write(&path, &torn).unwrap();
    let g = Graph::open(dir.path(), Options::default()).unwrap();
    g.insert_edge(1_000_000, 1_000_001, 2.0).unwrap();
    let want = contents(&g.snapshot());
    g.close().unwrap();
    let again = std::fs::read(&path).unwrap();
    // The old ids stay as they were, the tail is gone, the new ids follow.
    assert_eq!(again[..first.len()], first[..]);
    assert_ne!(again[first.len()..first.len() + 21], [0xAB; 21]);
    assert!(stratagraph::check(dir.path()).unwrap().is_healthy());
    let g = Graph::open(dir.path(), Options::default()).unwrap();
    let s = g.snapshot();
    assert_eq!(contents(&s), want);
    assert!(!s.has_vertex(9));
    assert!(s.has_vertex(1_000_001));
}

/// Vertices created in id order cost a few bytes in the log and the vertex
/// file, not 8 a vertex in each (ids as runs: `docs/FORMAT.md` §2.1, §3.2),
/// and come back whole from the log after a crash and from the vertex file
/// after a close; scattered ids among them too.
#[test]
fn vertices_created_in_id_order_are_kept_as_runs() {
    let dir = tempfile::tempdir().unwrap();
    let n = 300_000u64;
    let g = Graph::open(dir.path(), Options::default()).unwrap();
    g.insert_vertices(&(0..n).collect::<Vec<_>>()).unwrap();
    g.insert_vertices(&[9_000_000, 4, 8_000_000, 8_000_001])
        .unwrap();
    g.insert_edges(&[(1, 2, 1.0), (n - 1, 9_000_000, 2.0), (77_777_777, 3, 0.5)])
        .unwrap();
    let want = contents(&g.snapshot());
    let log_bytes: u64 = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".log"))
        .map(|e| e.metadata().unwrap().len())
        .sum();
    // A segment starts with 64 KiB of zeros to write into; the records
    // themselves would take 4.8 MB as lists.
    assert!(log_bytes < 128 << 10, "the log takes {log_bytes} bytes");
    // As a crash leaves it: the copy recovers everything from the log.
    let crashed = tempfile::tempdir().unwrap();
    copy_dir_without(dir.path(), crashed.path(), "LOCK");
    g.close().unwrap();
    let vertex_file = std::fs::metadata(dir.path().join("VERTICES"))
        .unwrap()
        .len();
    assert!(
        vertex_file < 1024,
        "the vertex file takes {vertex_file} bytes"
    );
    for d in [crashed.path(), dir.path()] {
        let g = Graph::open(d, Options::default()).unwrap();
        let s = g.snapshot();
        assert_eq!(contents(&s), want);
        assert_eq!(s.vertex_count(), n + 4);
        g.close().unwrap();
        assert!(stratagraph::check(d).unwrap().is_healthy());
    }
}

#[test]
fn a_log_segment_cut_before_its_header_was_whole_is_dropped_on_open() {
    // A process killed as it rotated the log leaves a segment file
    // shorter than its header; opening drops it and carries on.
    let dir = tempfile::tempdir().unwrap();
    closed_store(dir.path());
    let want = {
        let g = Graph::open(dir.path(), Options::default()).unwrap();
        let c = contents(&g.snapshot());
        g.close().unwrap();
        c
    };
    let mut logs: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("wal-"))
        .collect();
    logs.sort();
    let newest = logs.last().unwrap();
    let number: u64 = newest["wal-".len()..newest.len() - ".log".len()]
        .parse()
        .unwrap();
    // After a close the newest segment holds its header and zero fill, no
    // record; a rotation seals it (cut to its records) before it creates
    // the next one.
    let newest = dir.path().join(newest);
    let bytes = std::fs::read(&newest).unwrap();
    const HEADER: usize = 24;
    assert!(bytes[HEADER..].iter().all(|&b| b == 0));
    std::fs::write(&newest, &bytes[..HEADER]).unwrap();
    let torn = dir.path().join(format!("wal-{:08}.log", number + 1));
    std::fs::write(&torn, &bytes[..10]).unwrap();
    let g = Graph::open(dir.path(), Options::default()).unwrap();
    assert_eq!(contents(&g.snapshot()), want);
    g.insert_edge(5, 6, 1.0).unwrap();
    g.flush().unwrap();
    g.close().unwrap();
    assert!(!torn.exists());
    let g = Graph::open(dir.path(), Options::default()).unwrap();
    assert_eq!(g.snapshot().edge_count(), want.1.len() as u64 + 1);
}

#[test]
fn stats_account_for_what_was_written() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path(), Options::default()).unwrap();
    let edges: Vec<(u64, u64, f64)> = (0..1000).map(|i| (i, (i * 7) % 1000, 1.0)).collect();
    g.insert_edges(&edges).unwrap();
    let before = g.stats();
    assert_eq!(before.level_bytes_written, 0);
    assert!(before.log_bytes >= 24 * 1000, "{before:?}");
    g.flush().unwrap();
    let s = g.stats();
    let runs = g.runs();
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].entries, 2 * 1000, "out- and in-entries");
    assert_eq!(s.level_bytes_written, runs[0].bytes);
    assert_eq!(s.run_bytes as u64, runs[0].bytes);
    let user = 24.0 * 1000.0;
    let want = (s.level_bytes_written + s.log_bytes) as f64 / user;
    assert!((s.write_amplification - want).abs() < 1e-9, "{s:?}");
    assert!(s.write_amplification > 1.0);
}

/// `Stats::lifetime` adds every session's work: a reopened store starts
/// from what its manifest kept at the last close, which holds all of the
/// previous session's (edge versions exactly: only callers' writes make
/// them), and this session's counts add to it.
#[test]
fn lifetime_counters_add_up_across_sessions() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        memgraph_bytes: 4096,
        level_ratio: 2,
        sync: SyncPolicy::Never,
        ..Options::default()
    };
    let mut last = Totals::default();
    for session in 0..3u64 {
        let g = Graph::open(dir.path(), opts.clone()).unwrap();
        let start = g.stats().lifetime;
        assert_eq!(start.versions, last.versions, "session {session}");
        for (at_open, seen) in [
            (start.log_bytes, last.log_bytes),
            (start.level_bytes_written, last.level_bytes_written),
            (start.flushes, last.flushes),
            (start.compactions, last.compactions),
        ] {
            assert!(
                at_open >= seen,
                "session {session}: {start:?} after {last:?}"
            );
        }
        for i in 0..2000u64 {
            g.insert_edge(session * 1000 + i % 300, i, 1.0).unwrap();
        }
        g.flush().unwrap();
        let s = g.stats();
        assert!(s.flushes > 0 && s.compactions > 0, "{s:?}");
        let life = s.lifetime;
        // Two versions (both directions) per edge write.
        assert_eq!(life.versions, start.versions + 4000);
        assert_eq!(life.flushes, start.flushes + s.flushes);
        assert_eq!(life.compactions, start.compactions + s.compactions);
        assert_eq!(
            life.level_bytes_written,
            start.level_bytes_written + s.level_bytes_written
        );
        assert_eq!(life.log_bytes, start.log_bytes + s.log_bytes);
        assert!(life.write_amplification() > 0.0);
        last = life;
        g.close().unwrap();
    }
    assert!(last.flushes >= 3 && last.compactions >= 3, "{last:?}");
}

/// Every file of `from` copied into a new directory `to`, but `skip`.
fn copy_dir_without(from: &Path, to: &Path, skip: &str) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let name = e.file_name();
        if name != skip && name != "LOCK" {
            std::fs::copy(e.path(), to.join(&name)).unwrap();
        }
    }
}

#[test]
fn a_store_without_its_manifest_is_refused_and_nothing_is_deleted() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    closed_store(&store);
    let lost = dir.path().join("lost");
    copy_dir_without(&store, &lost, "MANIFEST");
    let before = snapshot_of_dir(&lost);
    assert!(before.iter().any(|(p, _)| p.contains("run-")), "{before:?}");
    let err = Graph::open(&lost, Options::default()).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt { file, what, .. } if file.ends_with("MANIFEST") && what.contains("run-")),
        "{err:?}"
    );
    assert_eq!(
        snapshot_of_dir(&lost),
        before,
        "a refused open changed files"
    );
    let report = stratagraph::check(&lost).unwrap();
    assert!(!report.is_healthy(), "{report:?}");
    assert!(
        matches!(report.problems[0], Error::Corrupt { .. }),
        "{report:?}"
    );
    // The original, with its MANIFEST, still opens with everything.
    let g = Graph::open(&store, Options::default()).unwrap();
    assert!(g.snapshot().edge_count() > 0);
}

#[test]
fn a_log_with_commits_but_no_manifest_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store");
    let g = Graph::open(&store, Options::default()).unwrap();
    g.insert_edge(1, 2, 1.0).unwrap(); // synced to the log, not flushed
    let lost = dir.path().join("lost");
    copy_dir_without(&store, &lost, "MANIFEST");
    drop(g);
    let before = snapshot_of_dir(&lost);
    let err = Graph::open(&lost, Options::default()).unwrap_err();
    assert!(
        matches!(&err, Error::Corrupt { what, .. } if what.contains("wal-")),
        "{err:?}"
    );
    assert_eq!(snapshot_of_dir(&lost), before);
}

#[test]
fn a_directory_of_other_files_is_not_a_store_and_stays_untouched() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("notes.txt"), b"mine").unwrap();
    let before = snapshot_of_dir(dir.path());
    let err = Graph::open(dir.path(), Options::default()).unwrap_err();
    assert!(
        matches!(&err, Error::NotAStore { what, .. } if what.contains("notes.txt")),
        "{err:?}"
    );
    assert!(
        err.to_string().contains("is not a stratagraph store"),
        "{err}"
    );
    assert_eq!(
        snapshot_of_dir(dir.path()),
        before,
        "no LOCK or log was made"
    );
    let report = stratagraph::check(dir.path()).unwrap();
    assert!(!report.is_healthy(), "{report:?}");
    // An empty directory holds no store either.
    let empty = tempfile::tempdir().unwrap();
    assert!(!stratagraph::check(empty.path()).unwrap().is_healthy());
}

#[test]
fn without_create_if_missing_nothing_is_created() {
    let dir = tempfile::tempdir().unwrap();
    let opts = Options {
        create_if_missing: false,
        ..Options::default()
    };
    let absent = dir.path().join("absent");
    let err = Graph::open(&absent, opts.clone()).unwrap_err();
    assert!(matches!(err, Error::NotAStore { .. }), "{err:?}");
    assert!(!absent.exists(), "the directory was created");
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    assert!(matches!(
        Graph::open(&empty, opts.clone()).unwrap_err(),
        Error::NotAStore { .. }
    ));
    assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0);
    // An existing store opens as usual.
    closed_store(&empty);
    Graph::open(&empty, opts).unwrap();
}
