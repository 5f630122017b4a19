//! Damaged files: a log cut at every byte of its last records, bit flips in
//! log records, the manifest and level files. Each case either recovers
//! every commit the damage spares (a torn tail) or is refused with an error
//! naming the file, never a panic, never wrong data, and a refused open
//! leaves every file as it was.
//!
//! Damaged stores are made from "crash images": copies of a store's
//! directory taken while it is open, which is what a crash leaves behind.

#![allow(clippy::unwrap_used)] // a test panics on what it did not expect

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use stratagraph::{Error, Graph, Options, SyncPolicy};

type State = (BTreeSet<u64>, BTreeMap<(u64, u64), f64>);

/// One step of the fixed workload, applied to the store and to the model.
fn step(g: &Graph, m: &mut State, k: u64) {
    let (vs, es) = m;
    match k % 5 {
        0 | 1 => {
            let mut tx = g.begin();
            for j in 0..3 {
                // Few distinct weights, so level files code them.
                let (s, d, w) = (k + j, (k * 7 + j) % 23, ((k * 3 + j) % 4) as f64 + 0.5);
                tx.insert_edge(s, d, w).unwrap();
                vs.extend([s, d]);
                es.insert((s, d), w);
            }
            tx.commit().unwrap();
        }
        2 => {
            let edges: Vec<(u64, u64, f64)> = (0..6)
                .map(|j| (k % 11 + j, k % 13, 0.5 * j as f64))
                .collect();
            g.insert_edges(&edges).unwrap();
            for &(s, d, w) in &edges {
                vs.extend([s, d]);
                es.insert((s, d), w);
            }
        }
        3 => {
            let (&(s, d), _) = es.iter().nth((k as usize * 5) % es.len()).unwrap();
            g.delete_edge(s, d).unwrap();
            es.remove(&(s, d));
        }
        _ => {
            let &v = vs.iter().nth((k as usize * 3) % vs.len()).unwrap();
            g.delete_vertex(v).unwrap();
            vs.remove(&v);
            es.retain(|&(s, d), _| s != v && d != v);
        }
    }
}

fn read(g: &Graph) -> State {
    let s = g.snapshot();
    let mut st = State::default();
    for v in s.vertices() {
        let ext = s.external_id(v).unwrap();
        st.0.insert(ext);
        for (d, w) in s.out_weighted_of(v) {
            st.1.insert((ext, s.external_id(d).unwrap()), w);
        }
    }
    st
}

fn options() -> Options {
    Options {
        sync: SyncPolicy::Always,
        memgraph_bytes: usize::MAX, // keep everything in one log segment
        ..Options::default()
    }
}

/// Copies every file of `from` into `to` (a crash image when `from` is open).
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
    }
}

/// Every file's name and bytes, to show a refused open changed nothing.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect()
}

fn only_log(dir: &Path) -> std::path::PathBuf {
    let logs: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with("wal-"))
        .collect();
    assert_eq!(logs.len(), 1, "{logs:?}");
    logs[0].clone()
}

/// Bytes of a log segment's file header.
const LOG_HEADER: u64 = 24;

/// A crash image after `steps` steps on a store that has flushed once
/// (so recovery has level files and a log on top), with the model after
/// each step and where the log's records ended after each step (the
/// segment is zero-filled beyond that).
struct Image {
    dir: tempfile::TempDir,
    log: std::path::PathBuf,
    models: Vec<State>,
    ends: Vec<u64>,
}

fn image(steps: u64) -> Image {
    let live = tempfile::tempdir().unwrap();
    let g = Graph::open(live.path(), options()).unwrap();
    let mut m = State::default();
    for k in 0..10 {
        step(&g, &mut m, k);
    }
    g.flush().unwrap();
    let log_path = only_log(live.path());
    // The flush started this segment: a header, then only zeros.
    let fresh = std::fs::read(&log_path).unwrap();
    assert!(fresh.len() as u64 > LOG_HEADER);
    assert!(fresh[LOG_HEADER as usize..].iter().all(|&b| b == 0));
    let base = g.stats().log_bytes;
    let mut models = vec![m.clone()];
    let mut ends = vec![LOG_HEADER];
    for k in 10..10 + steps {
        step(&g, &mut m, k);
        models.push(m.clone());
        // Always: the commit returned after its record was written and
        // synced, and nothing else is appending.
        ends.push(LOG_HEADER + g.stats().log_bytes - base);
    }
    let dir = tempfile::tempdir().unwrap();
    copy_dir(live.path(), dir.path());
    drop(g);
    let log = dir.path().join(log_path.file_name().unwrap());
    Image {
        dir,
        log,
        models,
        ends,
    }
}

#[test]
fn a_crash_image_recovers_every_commit() {
    let img = image(12);
    let g = Graph::open(img.dir.path(), options()).unwrap();
    assert_eq!(read(&g), *img.models.last().unwrap());
}

#[test]
fn the_log_is_zero_filled_after_its_last_record() {
    let img = image(3);
    let full = std::fs::read(&img.log).unwrap();
    let end = *img.ends.last().unwrap() as usize;
    assert!(full.len() > end + 4096, "{} bytes", full.len()); // 64 KiB at first
    assert!(full[end..].iter().all(|&b| b == 0));
    assert!(full[end - 4..end].iter().any(|&b| b != 0));
}

/// A crash while appending leaves the log cut off (the file ends there)
/// or, in space zero-filled before, its bytes zero from some point on.
#[test]
fn a_log_cut_anywhere_in_its_last_records_keeps_exactly_the_whole_ones() {
    let img = image(8);
    let full = std::fs::read(&img.log).unwrap();
    let from = img.ends[img.ends.len() - 5];
    let cuts = (from..=*img.ends.last().unwrap()).flat_map(|c| [(c, false), (c, true)]);
    for (cut, zeroed) in cuts {
        let work = tempfile::tempdir().unwrap();
        copy_dir(img.dir.path(), work.path());
        let mut bytes = full[..cut as usize].to_vec();
        if zeroed {
            bytes.resize(full.len(), 0);
        }
        std::fs::write(work.path().join(img.log.file_name().unwrap()), &bytes).unwrap();
        let report = stratagraph::check(work.path()).unwrap();
        assert!(report.is_healthy(), "cut {cut}: {report:?}");
        // Zeroing the end of a record that ended in zero bytes anyway
        // leaves it whole.
        let intact =
            |e: u64| e <= cut || (zeroed && full[cut as usize..e as usize].iter().all(|&b| b == 0));
        let whole = img.ends.iter().filter(|&&e| intact(e)).count();
        // A cut at a commit's end tears nothing. (Elsewhere it usually
        // tears a record, unless it falls between a commit's id record and
        // the commit itself.)
        if img.ends.contains(&cut) {
            assert!(report.torn_tail.is_none(), "cut {cut}: {report:?}");
        }
        let g = Graph::open(work.path(), options()).unwrap();
        assert_eq!(
            read(&g),
            img.models[whole - 1],
            "cut at byte {cut}, zeroed: {zeroed}"
        );
        // Recovery made the survivors durable: a second crash loses nothing.
        drop(g);
        let g = Graph::open(work.path(), options()).unwrap();
        assert_eq!(
            read(&g),
            img.models[whole - 1],
            "cut {cut}, zeroed: {zeroed}, reopened"
        );
    }
}

/// Flips bits over the whole log and the start of its zero fill. A flip
/// where the next record's header would go reads as a torn header (every
/// commit survives); one further into the zeros is damage.
#[test]
fn a_bit_flip_in_the_log_is_refused_unless_it_tears_the_last_record() {
    let img = image(6);
    let full = std::fs::read(&img.log).unwrap();
    let last_start = img.ends[img.ends.len() - 2] as usize;
    let end = *img.ends.last().unwrap() as usize;
    let name = img.log.file_name().unwrap().to_string_lossy().into_owned();
    let work = tempfile::tempdir().unwrap();
    for i in (0..end + 64).step_by(3) {
        let bit = i % 8;
        copy_dir(img.dir.path(), work.path());
        let mut damaged = full.clone();
        damaged[i] ^= 1 << bit;
        let log = work.path().join(&name);
        std::fs::write(&log, &damaged).unwrap();
        let before = contents(work.path());
        match Graph::open(work.path(), options()) {
            Ok(g) => {
                assert!(
                    i >= last_start,
                    "byte {i}: a damaged middle record was accepted"
                );
                assert!(
                    i < end + 16,
                    "byte {i}: a flip in the zero fill was accepted"
                );
                let survivors = if i < end { 2 } else { 1 };
                assert_eq!(
                    read(&g),
                    img.models[img.models.len() - survivors],
                    "byte {i}"
                );
            }
            Err(Error::Corrupt { file, offset, .. }) => {
                assert!(file.ends_with(&name), "byte {i}: {file}");
                assert!(offset <= i.max(20) as u64, "byte {i}: offset {offset}");
                assert_eq!(
                    contents(work.path()),
                    before,
                    "byte {i}: a refused open wrote"
                );
                let report = stratagraph::check(work.path()).unwrap();
                assert!(!report.is_healthy(), "byte {i}: check missed it");
            }
            Err(Error::UnsupportedFormat { .. }) => assert!((8..12).contains(&i)),
            Err(e) => panic!("byte {i}: {e}"),
        }
        std::fs::remove_dir_all(work.path()).unwrap();
    }
}

#[test]
fn damaged_manifest_and_level_files_are_refused_and_left_alone() {
    let live = tempfile::tempdir().unwrap();
    {
        let g = Graph::open(live.path(), options()).unwrap();
        let mut m = State::default();
        for k in 0..40 {
            step(&g, &mut m, k);
        }
        g.close().unwrap();
    }
    let files: Vec<String> = contents(live.path())
        .into_keys()
        .filter(|n| n == "MANIFEST" || n.starts_with("run-"))
        .collect();
    assert!(files.len() >= 3, "{files:?}"); // manifest + out and in runs
                                            // The damage covers coded weights too (`docs/FORMAT.md` §1.4: flag
                                            // bit 5 at byte 16 of a segment).
    let coded = files.iter().filter(|n| n.ends_with("-out.seg")).any(|n| {
        let b = std::fs::read(live.path().join(n)).unwrap();
        b[16] & (1 << 5) != 0
    });
    assert!(coded, "no level file codes its weights: {files:?}");
    let work = tempfile::tempdir().unwrap();
    for name in &files {
        let bytes = std::fs::read(live.path().join(name)).unwrap();
        // Every header byte, then a spread over the rest.
        let picks = (0..bytes.len().min(300)).chain((300..bytes.len()).step_by(41));
        for i in picks {
            copy_dir(live.path(), work.path());
            let mut damaged = bytes.clone();
            damaged[i] ^= 1 << (i % 8);
            std::fs::write(work.path().join(name), &damaged).unwrap();
            let before = contents(work.path());
            match Graph::open(work.path(), options()) {
                Err(Error::Corrupt { file, .. } | Error::UnsupportedFormat { file, .. }) => {
                    assert!(file.ends_with(name.as_str()), "{name} byte {i}: {file}");
                }
                Err(e) => panic!("{name} byte {i}: {e}"),
                Ok(_) => panic!("{name} byte {i}: damage accepted"),
            }
            assert_eq!(contents(work.path()), before, "{name} byte {i}: changed");
            assert!(!stratagraph::check(work.path()).unwrap().is_healthy());
            std::fs::remove_dir_all(work.path()).unwrap();
        }
    }
}

#[test]
fn a_missing_level_file_is_refused_by_name() {
    let live = tempfile::tempdir().unwrap();
    {
        let g = Graph::open(live.path(), options()).unwrap();
        g.insert_edges(&[(1, 2, 1.0), (2, 3, 1.0)]).unwrap();
        g.close().unwrap();
    }
    let run = contents(live.path())
        .into_keys()
        .find(|n| n.starts_with("run-"))
        .unwrap();
    std::fs::remove_file(live.path().join(&run)).unwrap();
    match Graph::open(live.path(), options()) {
        Err(Error::Io { file, kind, .. }) => {
            assert!(file.ends_with(&run), "{file}");
            assert_eq!(kind, std::io::ErrorKind::NotFound);
        }
        other => panic!("{other:?}"),
    }
}

/// The newest log segment removed, or cut to nothing, after a crash: the
/// MANIFEST lists it (the one being appended to), so opening refuses it by
/// name instead of starting without its commits, and `check` says so.
#[test]
fn a_lost_or_emptied_newest_segment_is_refused_by_name() {
    let img = image(50);
    let name = img.log.file_name().unwrap().to_string_lossy().into_owned();
    for lose in ["remove", "truncate"] {
        let work = tempfile::tempdir().unwrap();
        copy_dir(img.dir.path(), work.path());
        let log = work.path().join(&name);
        match lose {
            "remove" => std::fs::remove_file(&log).unwrap(),
            _ => std::fs::write(&log, b"").unwrap(),
        }
        let before = contents(work.path());
        match Graph::open(work.path(), options()) {
            Err(Error::Corrupt { file, what, .. }) => {
                assert!(file.ends_with(&name), "{lose}: {file}: {what}");
            }
            Err(e) => panic!("{lose}: {e}"),
            Ok(_) => panic!("{lose}: a lost segment was accepted"),
        }
        assert_eq!(
            contents(work.path()),
            before,
            "{lose}: a refused open wrote"
        );
        let report = stratagraph::check(work.path()).unwrap();
        assert!(!report.is_healthy(), "{lose}: {report:?}");
        assert!(
            report.problems[0].to_string().contains(&name),
            "{lose}: {:?}",
            report.problems
        );
    }
}

/// `repair` keeps every commit before the damage, sets the damaged segment
/// aside, says what was lost, and leaves a store that opens normally.
#[test]
fn repair_keeps_the_commits_before_the_damage_and_reports_the_rest() {
    let img = image(30);
    let name = img.log.file_name().unwrap().to_string_lossy().into_owned();
    let full = std::fs::read(&img.log).unwrap();
    // A flipped byte inside record 10's payload, with 20 records after it:
    // damage, not a torn tail.
    let k = 10;
    let at = img.ends[k - 1] as usize + 20;
    let work = tempfile::tempdir().unwrap();
    copy_dir(img.dir.path(), work.path());
    let mut damaged = full.clone();
    damaged[at] ^= 0x10;
    std::fs::write(work.path().join(&name), &damaged).unwrap();
    assert!(matches!(
        Graph::open(work.path(), options()),
        Err(Error::Corrupt { .. })
    ));
    let report = stratagraph::repair(work.path(), options()).unwrap();
    let loss = report.loss.expect("a loss is reported");
    assert!(loss.damage.contains(&name), "{}", loss.damage);
    assert_eq!(loss.set_aside.len(), 1);
    assert!(loss.set_aside[0].ends_with(&name));
    assert_eq!(report.commits_recovered, k - 1);
    // The damaged segment is kept beside the store, byte for byte.
    let lost = std::fs::read(work.path().join(format!("{name}.lost"))).unwrap();
    assert_eq!(lost, damaged);
    assert!(!work.path().join(&name).exists());
    // What is left opens without repair, twice, and holds the commits
    // before the damaged record.
    for _ in 0..2 {
        let g = Graph::open(work.path(), options()).unwrap();
        assert_eq!(read(&g), img.models[k - 1]);
        g.close().unwrap();
    }
    assert!(stratagraph::check(work.path()).unwrap().is_healthy());
    // A healthy store is left as it is.
    let again = stratagraph::repair(work.path(), options()).unwrap();
    assert_eq!(again.loss, None);
}
