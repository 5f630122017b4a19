//! `stratagraph bench w1 --quick` end to end on freshly generated scale-14
//! W1 files: it must finish, print every operation for every system, and
//! every system's checksum for an operation must be the same and equal to
//! the generator's reference. And `stratagraph bench capped`'s phases on
//! the same files, in order, each checked against the reference, with the
//! phases out of order refused. This keeps the suites working; it
//! measures nothing (speed comes from the benchmark itself, never from a
//! test).
//!
//! The files come from `shared/bench/gen_graph.py` and `bench/ref_extra.py`,
//! which need numpy and scipy: the test uses `$STRATAGRAPH_PYTHON`, else the
//! checkout's `.venv` (which `scripts/setup.sh` creates with both), else
//! `python3`.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("STRATAGRAPH_PYTHON") {
        return p.into();
    }
    let venv = repo().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?} did not start: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// An unsigned field of the generator's flat JSON.
fn json_u64(text: &str, key: &str) -> u64 {
    let at = text.find(&format!("\"{key}\":")).unwrap() + key.len() + 3;
    text[at..]
        .trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

/// Scale-14 W1 files and their extra references, in a new directory.
fn generate() -> tempfile::TempDir {
    let data = tempfile::tempdir().unwrap();
    let py = python();
    let probe = Command::new(&py)
        .args(["-c", "import numpy, scipy"])
        .output();
    assert!(
        probe.is_ok_and(|o| o.status.success()),
        "{} lacks numpy or scipy; run ./scripts/setup.sh (it creates .venv) or set STRATAGRAPH_PYTHON",
        py.display()
    );
    run_ok(
        Command::new(&py)
            .arg(repo().join("../shared/bench/gen_graph.py"))
            .args(["--scales", "14", "--out"])
            .arg(data.path()),
    );
    run_ok(
        Command::new(&py)
            .arg(repo().join("bench/ref_extra.py"))
            .args(["--scales", "14", "--data"])
            .arg(data.path()),
    );
    data
}

#[test]
fn quick_mode_runs_every_operation_with_agreeing_checksums() {
    let data = generate();
    let out = data.path().join("w1.tsv");
    run_ok(
        Command::new(env!("CARGO_BIN_EXE_stratagraph"))
            .args(["bench", "w1", "--quick", "--data"])
            .arg(data.path())
            .arg("--out")
            .arg(&out),
    );

    let text = std::fs::read_to_string(&out).unwrap();
    for fact in [
        "# cpu:",
        "# cores:",
        "# memory:",
        "# kernel:",
        "# build:",
        "# commit:",
    ] {
        assert!(text.contains(fact), "no {fact} line in the header");
    }
    // (op, threads) -> system -> checksum, for the rows with a figure.
    let mut sums: BTreeMap<(String, String), BTreeMap<String, String>> = BTreeMap::new();
    let mut na = Vec::new();
    for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 8, "malformed row {line:?}");
        if f[5] == "n/a" {
            assert!(
                f[7].starts_with("n/a: "),
                "n/a row without a reason: {line:?}"
            );
            na.push((f[0].to_string(), f[3].to_string()));
            continue;
        }
        assert!(f[5].parse::<f64>().is_ok_and(f64::is_finite), "{line:?}");
        sums.entry((f[3].to_string(), f[4].to_string()))
            .or_default()
            .insert(f[0].to_string(), f[7].to_string());
    }
    for ((op, threads), by_system) in &sums {
        let first = by_system.values().next().unwrap();
        assert!(
            by_system.values().all(|c| c == first),
            "{op} on {threads} threads: checksums disagree: {by_system:?}"
        );
    }
    let ops = [
        "bulk_load",
        "memory_rss",
        "insert_single",
        "insert_single_p999",
        "search_edge",
        "scan_seq",
        "scan_rand",
        "bfs",
        "pr",
        "wcc",
        "sssp",
        "tc",
        "batch_sizes_1000",
        "mixed_rw_insert_ratio",
        "mixed_rw_sssp_ratio",
        "delete_mixed",
    ];
    for op in ops {
        for system in ["stratagraph", "stratagraph-disk"] {
            assert!(
                sums.iter()
                    .any(|((o, _), by)| o == op && by.contains_key(system)),
                "no {op} row for {system}"
            );
        }
    }
    assert!(sums
        .iter()
        .any(|((o, _), by)| o == "disk_bytes" && by.contains_key("stratagraph-disk")));
    assert!(na.contains(&("csr".to_string(), "insert_single".to_string())));

    // The checksums are the generator's figures, not the code's own.
    let reference = std::fs::read_to_string(data.path().join("k14.ref.json")).unwrap();
    let check = |op: &str, want: String| {
        let got = &sums[&(op.to_string(), "1".to_string())];
        assert!(
            got.values().all(|c| *c == want),
            "{op}: {got:?}, want {want}"
        );
        assert_eq!(got.len(), 3, "{op}: {got:?}");
    };
    check(
        "scan_seq",
        format!("sum_dst={}", json_u64(&reference, "sum_dst")),
    );
    check(
        "bfs",
        format!("bfs_reached={}", json_u64(&reference, "bfs_reached")),
    );
    check(
        "wcc",
        format!(
            "wcc_components={}",
            json_u64(&reference, "wcc_components_all_ids")
        ),
    );
    let after = json_u64(&reference, "edges_after_ops");
    let got = &sums[&("delete_mixed".to_string(), "1".to_string())];
    assert!(
        got.values().all(|c| *c == format!("edges_after={after}")),
        "{got:?}"
    );
}

#[test]
fn capped_phases_run_in_order_and_check_against_the_reference() {
    let data = generate();
    let store = data.path().join("store");
    let phase = |name: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_stratagraph"));
        cmd.args([
            "bench", "capped", "--scale", "14", "--memory", "16M", "--data",
        ])
        .arg(data.path())
        .arg("--store")
        .arg(&store)
        .args(["--phase", name]);
        cmd
    };
    // Out of order: nothing to read yet.
    let early = phase("reads").output().unwrap();
    assert!(!early.status.success());
    assert!(
        String::from_utf8_lossy(&early.stderr).contains("no store"),
        "{}",
        String::from_utf8_lossy(&early.stderr)
    );
    // Without PageRank's reference the load is refused before it starts,
    // unless the reads leave PageRank out.
    let extra = data.path().join("k14.ref_extra.json");
    let aside = data.path().join("aside.json");
    std::fs::rename(&extra, &aside).unwrap();
    let refused = phase("load").output().unwrap();
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("PageRank top vertex"), "{stderr}");
    assert!(!store.exists(), "a refused load wrote {}", store.display());
    let bfs_only = phase("reads").args(["--reads", "bfs"]).output().unwrap();
    assert!(
        String::from_utf8_lossy(&bfs_only.stderr).contains("no store"),
        "{}",
        String::from_utf8_lossy(&bfs_only.stderr)
    );
    std::fs::rename(&aside, &extra).unwrap();
    // op -> checksum, over every phase's rows.
    let mut rows = BTreeMap::new();
    for name in ["load", "insert_single", "reads", "delete_mixed"] {
        let text = run_ok(&mut phase(name));
        for line in text.lines().filter(|l| !l.starts_with('#')).skip(1) {
            let f: Vec<&str> = line.split('\t').collect();
            if f.len() == 8 {
                assert!(f[5].parse::<f64>().is_ok_and(f64::is_finite), "{line:?}");
                rows.insert(f[3].to_string(), f[7].to_string());
            }
        }
        if name == "load" {
            // The load is there once: a second one is refused.
            let again = phase("load").output().unwrap();
            assert!(!again.status.success());
            assert!(String::from_utf8_lossy(&again.stderr).contains("not empty"));
            // And reads need the inserts first.
            let early = phase("reads").output().unwrap();
            assert!(!early.status.success());
            assert!(String::from_utf8_lossy(&early.stderr).contains("insert_single"));
        }
    }
    let reference = std::fs::read_to_string(data.path().join("k14.ref.json")).unwrap();
    let want = |key: &str| json_u64(&reference, key);
    let edges = want("edges");
    for (op, check) in [
        ("load_80", format!("edges={}", edges * 4 / 5)),
        ("insert_single", format!("edges={edges}")),
        ("search_edge", "found=1000000".to_string()),
        ("scan_seq", format!("sum_dst={}", want("sum_dst"))),
        ("scan_rand", format!("sum_dst={}", want("sum_dst"))),
        ("bfs", format!("bfs_reached={}", want("bfs_reached"))),
        (
            "wcc",
            format!("wcc_components={}", want("wcc_components_all_ids")),
        ),
        ("delete_mixed", format!("edges={}", want("edges_after_ops"))),
    ] {
        assert_eq!(rows.get(op), Some(&check), "{op}: {rows:?}");
    }
    assert!(rows["sssp"].starts_with(&format!("reached={};", want("sssp_reached"))));
    assert!(rows["pr"].starts_with("pagerank_top_vertex="), "{rows:?}");
}
