//! The fuzzers of the log, MANIFEST and vertex file readers (tests only; see
//! `util::fuzz` for how inputs are damaged). Their seeds are the files of
//! a real store after every kind of write, so this module sits above the
//! handle it writes them through; the segment reader's fuzzer lives with
//! the segment tests (`csr::tests`), whose writer makes its seeds.

use crate::error::Error;
use crate::graph::Graph;
use crate::manifest::Manifest;
use crate::options::{Options, SyncPolicy};
use crate::util::fuzz;
use crate::value::Value;
use crate::vertex_file;
use crate::wal::frame::{scan_bytes, FILE_HEADER, RECORD_HEADER};

/// The log reader: damaged copies of the log and change-archive segments,
/// read both as the newest segment (whose torn tail is normal) and as an
/// older one, give a scan or `Corrupt` (`UnsupportedFormat` for a version
/// field hit), never a panic.
#[test]
fn fuzz_the_log_reader() {
    let seeds = busy_store_files();
    let mut read = 0u64;
    fuzz::run("log", &seeds.logs, reseal_log, |b, _| {
        for newest in [false, true] {
            match scan_bytes(b, "fuzz", newest) {
                Ok(scan) => {
                    assert!(scan.valid_end <= b.len() as u64);
                    read += u64::from(!scan.records.is_empty());
                }
                Err(e) => reported_as_damage(&e),
            }
        }
    });
    let cases = fuzz::cases();
    eprintln!("log fuzzing: {cases} inputs, read twice, {read} scans with records");
    assert!(
        read * 20 >= cases,
        "only {read} scans of {cases} inputs read a record"
    );
}

/// Fails unless `e` is how a reader reports a damaged file: `Corrupt`, or
/// `UnsupportedFormat` when the damage hit a version field.
fn reported_as_damage(e: &Error) {
    assert!(
        matches!(e, Error::Corrupt { .. } | Error::UnsupportedFormat { .. }),
        "damage reported as {e:?}"
    );
}

/// Recomputes a log segment's header checksum and both checksums of every
/// record frame, as far as the lengths lead inside the file.
fn reseal_log(b: &mut [u8]) {
    if b.len() < FILE_HEADER {
        return;
    }
    let crc = crc32c::crc32c(&b[..20]);
    b[20..24].copy_from_slice(&crc.to_le_bytes());
    let mut at = FILE_HEADER;
    while at + RECORD_HEADER <= b.len() {
        let len = crate::util::le::u64_at(b, at);
        let start = at + RECORD_HEADER;
        let Some(end) = usize::try_from(len)
            .ok()
            .and_then(|l| start.checked_add(l))
            .filter(|&e| e <= b.len())
        else {
            break;
        };
        let lcrc = crc32c::crc32c(&b[at..at + 8]);
        b[at + 8..at + 12].copy_from_slice(&lcrc.to_le_bytes());
        let pcrc = crc32c::crc32c(&b[start..end]);
        b[at + 12..at + 16].copy_from_slice(&pcrc.to_le_bytes());
        at = end;
    }
}

/// The manifest reader: damaged copies of a busy store's MANIFEST decode
/// or give `Corrupt` (`UnsupportedFormat` for a version field hit), never
/// a panic or an allocation the file's size does not justify.
#[test]
fn fuzz_the_manifest_reader() {
    let busy = busy_store_files().manifest;
    let reseal = |b: &mut [u8]| {
        if let Some(n) = b.len().checked_sub(4) {
            let crc = crc32c::crc32c(&b[..n]);
            b[n..].copy_from_slice(&crc.to_le_bytes());
        }
    };
    let mut decoded = 0u64;
    fuzz::run("manifest", &[busy], reseal, |b, _| {
        match Manifest::decode(b, "fuzz") {
            Ok(_) => decoded += 1,
            Err(e) => reported_as_damage(&e),
        }
    });
    let cases = fuzz::cases();
    eprintln!("manifest fuzzing: {cases} inputs, {decoded} decoded");
    assert!(
        decoded * 100 >= cases,
        "only {decoded} of {cases} inputs decoded"
    );
}

/// The vertex file reader: damaged copies of a busy store's vertex file
/// (read as far as the copy goes, for the ids the store had) give every id
/// or `Corrupt` (`UnsupportedFormat` for a version field hit), never a
/// panic or an allocation the input does not justify.
#[test]
fn fuzz_the_vertex_file_reader() {
    let Seeds {
        vertices,
        vertex_ids: n,
        ..
    } = busy_store_files();
    assert!(n > 100, "the seed holds {n} ids");
    let reseal = |b: &mut [u8]| {
        if b.len() < vertex_file::HEADER {
            return;
        }
        let crc = crc32c::crc32c(&b[..12]);
        b[12..16].copy_from_slice(&crc.to_le_bytes());
        let mut at = vertex_file::HEADER;
        while at + 12 <= b.len() {
            let count = crate::util::le::u32_at(b, at + 4);
            // A run chunk (top bit of the count) holds one id.
            let held = if count >> 31 == 1 { 1 } else { count as usize };
            let Some(end) = held
                .checked_mul(8)
                .and_then(|l| (at + 8).checked_add(l))
                .filter(|&e| e + 4 <= b.len())
            else {
                break;
            };
            let crc = crc32c::crc32c(&b[at..end]);
            b[end..end + 4].copy_from_slice(&crc.to_le_bytes());
            at = end + 4;
        }
    };
    let mut decoded = 0u64;
    fuzz::run("vertex file", &[vertices], reseal, |b, _| {
        let mut seen = 0u32;
        match vertex_file::decode(b, b.len() as u64, n, "fuzz", |v, _| {
            assert_eq!(v, seen);
            seen += 1;
            Ok(())
        }) {
            Ok(()) => {
                assert_eq!(seen, n);
                decoded += 1;
            }
            Err(e) => reported_as_damage(&e),
        }
    });
    let cases = fuzz::cases();
    eprintln!("vertex file fuzzing: {cases} inputs, {decoded} decoded");
    assert!(
        decoded * 100 >= cases,
        "only {decoded} of {cases} inputs decoded"
    );
}

/// The fuzzers' seeds: files of a store after a mix of every kind of write
/// (edges, batches, deletes, labels, typed properties, property edges, an
/// index, flushes).
struct Seeds {
    /// The log segments, as a crash would leave them.
    logs: Vec<Vec<u8>>,
    /// The MANIFEST at that moment.
    manifest: Vec<u8>,
    /// The vertex file after one more flush (two appends).
    vertices: Vec<u8>,
    /// The ids the manifest then lists.
    vertex_ids: u32,
}

/// See `Seeds`.
fn busy_store_files() -> Seeds {
    let dir = tempfile::tempdir().expect("temporary directory");
    let opts = Options {
        sync: SyncPolicy::Never,
        ..Options::default()
    };
    let g = Graph::open(dir.path(), opts).expect("a fresh store");
    g.insert_edges(&[(1, 2, 1.0), (2, 3, 0.5), (3, 1, 2.5)])
        .expect("edges");
    g.insert_edge(4, 5, 1.0).expect("edge");
    g.delete_edge(2, 3).expect("delete");
    g.create_index("person", "name").expect("index");
    let mut tx = g.begin();
    tx.insert_vertex_with(
        10,
        "person",
        &[
            ("name", Value::String("marko".into())),
            ("age", Value::Int32(29)),
            (
                "tags",
                Value::List(vec![Value::Int64(1), Value::Bool(true)]),
            ),
            ("blob", Value::Bytes(vec![0, 255, 7])),
        ],
    )
    .expect("vertex");
    tx.insert_vertex_with(11, "software", &[("lang", Value::String("java".into()))])
        .expect("vertex");
    let e = tx
        .add_edge(10, 11, "created", &[("weight", Value::Float64(0.4))])
        .expect("property edge");
    tx.set_edge_property(e, "since", Value::Int16(2009))
        .expect("edge property");
    tx.commit().expect("commit");
    g.flush().expect("flush");
    let mut tx = g.begin();
    tx.set_property(10, "age", Value::Int64(30)).expect("set");
    tx.insert_edge(11, 1, 3.0).expect("edge");
    tx.commit().expect("commit");
    g.delete_vertex(4).expect("delete vertex");
    // Consecutive ids: run chunks in the vertex file, runs in the log.
    g.insert_vertices(&(1000..1500).collect::<Vec<u64>>())
        .expect("vertices");
    g.insert_edges(
        &(0..200u64)
            .map(|i| (i, (i * 7) % 200, 1.5))
            .collect::<Vec<_>>(),
    )
    .expect("batch");
    // Read the files as the process would leave them at a crash.
    let read = |pred: &dyn Fn(&str) -> bool| -> Vec<Vec<u8>> {
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .expect("store directory")
            .map(|e| e.expect("entry").path())
            .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(pred))
            .collect();
        names.sort();
        names
            .iter()
            .map(|p| std::fs::read(p).expect("read"))
            .collect()
    };
    let logs = read(&|n| n.ends_with(".log"));
    let manifest = read(&|n| n == "MANIFEST").pop().expect("a MANIFEST");
    g.flush().expect("flush");
    let vertices = read(&|n| n == vertex_file::FILE)
        .pop()
        .expect("a vertex file");
    let n = Manifest::read(dir.path())
        .expect("the manifest")
        .expect("a manifest")
        .vertices
        .len;
    drop(g);
    Seeds {
        logs,
        manifest,
        vertices,
        vertex_ids: n,
    }
}
