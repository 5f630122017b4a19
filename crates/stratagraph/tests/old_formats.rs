//! A store written by an earlier build opens and reads as it did: the
//! store in `tests/data/v1-store` was written by the build before level
//! files could code their weights (segment format version 1, `stratagraph
//! load` of `tests/data/v1-store-edges.txt`). It must check healthy, read
//! every edge and weight of that file, take new writes, and after a
//! compaction hold only files of the current format, with the same
//! contents.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use stratagraph::{Graph, Options};

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// The edges the old store was loaded from: `src dst weight` per line.
fn loaded_edges() -> BTreeMap<(u64, u64), f64> {
    std::fs::read_to_string(data("v1-store-edges.txt"))
        .unwrap()
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            (
                (f[0].parse().unwrap(), f[1].parse().unwrap()),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

/// Every edge of the graph with its weight, by external ids.
fn edges(g: &Graph) -> BTreeMap<(u64, u64), f64> {
    let s = g.snapshot();
    let mut out = BTreeMap::new();
    for v in s.vertices() {
        let src = s.external_id(v).unwrap();
        for (d, w) in s.out_weighted_of(v) {
            out.insert((src, s.external_id(d).unwrap()), w);
        }
    }
    assert_eq!(s.edge_count(), out.len() as u64);
    out
}

/// Bytes of the level files in `dir`.
fn segment_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "seg"))
        .map(|p| p.metadata().unwrap().len())
        .sum()
}

/// The format version (bytes 8..12) of every level file in `dir`.
fn segment_versions(dir: &Path) -> Vec<u32> {
    let mut v: Vec<u32> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "seg"))
        .map(|p| u32::from_le_bytes(std::fs::read(p).unwrap()[8..12].try_into().unwrap()))
        .collect();
    v.sort();
    v
}

#[test]
fn a_store_of_version_1_level_files_reads_and_compacts_to_the_current_format() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("store");
    std::fs::create_dir(&dir).unwrap();
    for e in std::fs::read_dir(data("v1-store")).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    assert_eq!(segment_versions(&dir), [1, 1]);
    let old_bytes = segment_bytes(&dir);
    let report = stratagraph::check(&dir).unwrap();
    assert!(report.is_healthy(), "{:?}", report.problems);

    let mut want = loaded_edges();
    assert_eq!(want.len(), 1000);
    let g = Graph::open(&dir, Options::default()).unwrap();
    assert_eq!(edges(&g), want);

    g.insert_edge(5000, 5001, 2.5).unwrap();
    g.insert_edge(0, 5000, 0.75).unwrap();
    want.insert((5000, 5001), 2.5);
    want.insert((0, 5000), 0.75);
    g.compact().unwrap();
    assert_eq!(edges(&g), want);
    g.close().unwrap();
    drop(g);

    let versions = segment_versions(&dir);
    // Version 5 is the one this build writes (`docs/FORMAT.md` §1.8).
    assert!(
        !versions.is_empty() && versions.iter().all(|&v| v == 5),
        "{versions:?}"
    );
    // The out-edges' weights (seven distinct) now take a byte each, not
    // eight: about 7 kB less for the thousand edges.
    let new_bytes = segment_bytes(&dir);
    assert!(
        new_bytes + 6000 < old_bytes,
        "{old_bytes} bytes before, {new_bytes} after"
    );
    let report = stratagraph::check(&dir).unwrap();
    assert!(report.is_healthy(), "{:?}", report.problems);
    let g = Graph::open(&dir, Options::default()).unwrap();
    assert_eq!(edges(&g), want);
}
