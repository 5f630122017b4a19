//! The core benchmark runs end to end on a tiny W1-format graph and refuses
//! damaged or inconsistent workload files.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use stratagraph_bench::core::{run, CoreArgs};

/// Writes `k3.bin` and `k3.ref.json` for `edges` over vertices 0..8.
fn write_files(dir: &Path, edges: &[(u32, u32)], claimed_edges: usize) {
    let bytes: Vec<u8> = edges
        .iter()
        .flat_map(|&(s, d)| [s.to_le_bytes(), d.to_le_bytes()])
        .flatten()
        .collect();
    std::fs::write(dir.join("k3.bin"), bytes).unwrap();
    let sum_dst: u64 = edges.iter().map(|&(_, d)| u64::from(d)).sum();
    std::fs::write(
        dir.join("k3.ref.json"),
        // The analytics fields are not read by the core benchmark.
        format!(
            r#"{{"vertices": 8, "edges": {claimed_edges}, "sum_dst": {sum_dst},
                "bfs_source": 0, "bfs_reached": 0, "wcc_components_all_ids": 0,
                "sssp_dist_sum": 0.0}}"#
        ),
    )
    .unwrap();
}

fn args(dir: &Path) -> CoreArgs {
    CoreArgs {
        data: dir.to_path_buf(),
        scale: 3,
        runs: 1,
        batch: 2,
        out: Some(dir.join("rows.tsv")),
        ops: Vec::new(),
    }
}

fn edges() -> Vec<(u32, u32)> {
    vec![
        (0, 1),
        (1, 2),
        (2, 0),
        (3, 7),
        (7, 3),
        (5, 6),
        (6, 1),
        (0, 7),
        (4, 2),
        (2, 5),
    ]
}

#[test]
fn runs_on_a_tiny_graph_and_writes_rows() {
    let dir = tempdir("smoke");
    write_files(&dir, &edges(), edges().len());
    run(&args(&dir)).unwrap();
    let rows = std::fs::read_to_string(dir.join("rows.tsv")).unwrap();
    assert!(rows.starts_with("# cpu:"), "{rows}");
    for op in [
        "bulk_load",
        "bulk_load_memgraph",
        "insert_single",
        "scan_seq",
        "scan_seq_bulk",
        "memory_bulk",
        "batch_insert_2",
    ] {
        assert!(rows.contains(&format!("\t{op}\t")), "no {op} row in {rows}");
    }
}

#[test]
fn a_reference_that_disagrees_with_the_graph_is_an_error() {
    let dir = tempdir("mismatch");
    write_files(&dir, &edges(), edges().len() + 1);
    let err = run(&args(&dir)).unwrap_err().to_string();
    assert!(err.contains("reference says 11"), "{err}");
}

#[test]
fn a_truncated_edge_file_is_an_error_naming_it() {
    let dir = tempdir("truncated");
    write_files(&dir, &edges(), edges().len());
    let path = dir.join("k3.bin");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes.pop();
    std::fs::write(&path, bytes).unwrap();
    let err = run(&args(&dir)).unwrap_err().to_string();
    assert!(err.contains("k3.bin") && err.contains("truncated"), "{err}");
}

fn tempdir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("stratagraph-bench-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
