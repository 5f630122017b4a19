//! The `load` and `algo` commands end to end: the Graphalytics example
//! graphs are loaded into on-disk stores through the binary, every kernel
//! with a reference output runs through it, and its output is compared with
//! the reference by the official rules (the comparison code is the
//! validation runner's, the expected values are the Graphalytics files).

#![allow(clippy::unwrap_used)] // tests fail loudly by design

#[path = "../../stratagraph/tests/support/tmpfs.rs"]
mod tmpfs;

use std::path::{Path, PathBuf};
use std::process::Command;
use stratagraph_algo::graphalytics::{
    compare_epsilon, compare_equivalence, compare_exact, parse_double_output, parse_long_output,
    GraphProperties, EPSILON,
};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_stratagraph"))
}

fn datasets() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets/graphalytics")
}

fn run_ok(cmd: &mut Command) -> String {
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// How `check_graph` loads a Graphalytics graph.
#[derive(Clone, Copy, PartialEq)]
enum Via {
    /// Its `.v` and `.e` files, into the weighted structure.
    EdgeList,
    /// CSV files written from them, as property edges labelled `e` with
    /// the weight as property `weight`; the kernels run on a projection.
    PropertyEdges,
}

fn check_graph(name: &str, via: Via) {
    check_graph_through(name, via, false);
}

/// `check_graph`; with `through_parquet`, the kernels run on a second
/// store loaded (`load --parquet`) from an `export` of the first.
fn check_graph_through(name: &str, via: Via, through_parquet: bool) {
    let folder = datasets().join(name);
    let props = GraphProperties::load(&folder.join(format!("{name}.properties")), name).unwrap();
    let store = tempfile::tempdir().unwrap();
    let csv = tempfile::tempdir().unwrap();
    let mut load = bin();
    load.arg("load").arg(store.path());
    match via {
        Via::EdgeList => {
            load.arg(folder.join(&props.vertex_file))
                .arg(folder.join(&props.edge_file));
        }
        Via::PropertyEdges => {
            let v = csv.path().join("v.csv");
            let e = csv.path().join("e.csv");
            let vs = std::fs::read_to_string(folder.join(&props.vertex_file)).unwrap();
            std::fs::write(&v, format!("id\n{vs}")).unwrap();
            let es = std::fs::read_to_string(folder.join(&props.edge_file)).unwrap();
            let rows: String = es
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| l.split_whitespace().collect::<Vec<_>>().join(",") + "\n")
                .collect();
            std::fs::write(&e, format!("src,dst,weight:double\n{rows}")).unwrap();
            load.arg("--vertices")
                .arg(&v)
                .arg("--edges")
                .arg(format!("e={}", e.display()));
        }
    }
    if !props.directed {
        load.arg("--undirected");
    }
    run_ok(&mut load);
    let copy = tempfile::tempdir().unwrap();
    let store_path = if through_parquet {
        let out = copy.path().join("export");
        let copied = copy.path().join("store");
        run_ok(bin().arg("export").arg(store.path()).arg(&out));
        // No kind flag: the new store takes the export's.
        run_ok(bin().arg("load").arg(&copied).arg("--parquet").arg(&out));
        copied
    } else {
        store.path().to_owned()
    };
    let param = |key: &str| props.param::<String>(key).unwrap();
    let mut checked = 0;
    for (kernel, upper) in [
        ("bfs", "BFS"),
        ("wcc", "WCC"),
        ("cdlp", "CDLP"),
        ("pr", "PR"),
        ("lcc", "LCC"),
        ("sssp", "SSSP"),
    ] {
        let reference = folder.join(format!("{name}-{upper}"));
        if !reference.exists() {
            continue;
        }
        let out_file = store.path().join(format!("{kernel}.out"));
        let mut cmd = bin();
        cmd.args(["algo", kernel])
            .arg(&store_path)
            .arg("--out")
            .arg(&out_file);
        if via == Via::PropertyEdges {
            cmd.args(["--labels", "e"]);
            if kernel == "sssp" {
                cmd.args(["--weight", "weight"]);
            }
        }
        match kernel {
            "bfs" | "sssp" => {
                cmd.args(["--source", &param(&format!("{kernel}.source-vertex"))]);
            }
            "cdlp" => {
                cmd.args(["--iterations", &param("cdlp.max-iterations")]);
            }
            "pr" => {
                cmd.args(["--iterations", &param("pr.num-iterations")]);
                cmd.args(["--damping", &param("pr.damping-factor")]);
            }
            _ => {}
        }
        // No --undirected: the store's kind comes from its MANIFEST.
        run_ok(&mut cmd);
        let want = std::fs::read_to_string(&reference).unwrap();
        let got = std::fs::read_to_string(&out_file).unwrap();
        let result = match kernel {
            "bfs" | "cdlp" | "wcc" => {
                let w = parse_long_output(&want, &reference).unwrap();
                let g = parse_long_output(&got, &out_file).unwrap();
                if kernel == "wcc" {
                    compare_equivalence(&w, &g)
                } else {
                    compare_exact(&w, &g)
                }
            }
            _ => {
                let w = parse_double_output(&want, &reference).unwrap();
                let g = parse_double_output(&got, &out_file).unwrap();
                compare_epsilon(&w, &g, EPSILON)
            }
        };
        assert!(result.is_ok(), "{name} {kernel}: {:?}", result.err());
        checked += 1;
    }
    assert_eq!(checked, 6, "{name}: every kernel had a reference");
}

#[test]
fn directed_example_loads_and_every_kernel_matches_graphalytics() {
    check_graph("example-directed", Via::EdgeList);
}

#[test]
fn undirected_example_loads_and_every_kernel_matches_graphalytics() {
    check_graph("example-undirected", Via::EdgeList);
}

/// Kernels on a projection of property edges (`algo --labels --weight`)
/// give Graphalytics' answers too.
#[test]
fn kernels_on_a_projection_of_property_edges_match_graphalytics() {
    check_graph("example-directed", Via::PropertyEdges);
    check_graph("example-undirected", Via::PropertyEdges);
}

/// A store exported to Parquet and loaded back into a new store gives
/// Graphalytics' answers, for the weighted structure and for property
/// edges, directed and undirected.
#[test]
fn kernels_on_a_store_loaded_from_its_parquet_export_match_graphalytics() {
    for via in [Via::EdgeList, Via::PropertyEdges] {
        check_graph_through("example-directed", via, true);
        check_graph_through("example-undirected", via, true);
    }
}

/// `export` refuses a directory with files; `load --parquet` of a damaged
/// export names the file and column and loads nothing.
#[test]
fn a_parquet_export_is_refused_when_damaged_and_never_overwrites() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.txt");
    std::fs::write(&input, "1 2\n2 3 0.5\n3 1\n").unwrap();
    let store = dir.path().join("s");
    run_ok(bin().arg("load").arg(&store).arg(&input));
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    std::fs::write(out.join("keep"), "x").unwrap();
    let r = bin().arg("export").arg(&store).arg(&out).output().unwrap();
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains("not an empty directory"), "{err}");
    std::fs::remove_file(out.join("keep")).unwrap();
    let text = run_ok(bin().arg("export").arg(&store).arg(&out));
    assert!(
        text.contains("3 vertices, 0 property edges, 3 weighted edges"),
        "{text}"
    );
    let chunk = out.join("edge/vertex__weighted_vertex/ordered_by_source/properties/part0/chunk0");
    let bytes = std::fs::read(&chunk).unwrap();
    std::fs::write(&chunk, &bytes[..bytes.len() / 2]).unwrap();
    let copy = dir.path().join("copy");
    let r = bin()
        .arg("load")
        .arg(&copy)
        .arg("--parquet")
        .arg(&out)
        .output()
        .unwrap();
    assert!(!r.status.success());
    let err = String::from_utf8_lossy(&r.stderr);
    assert!(err.contains(&chunk.display().to_string()), "{err}");
    assert!(err.contains("nothing of the export was loaded"), "{err}");
    let v: serde_json::Value =
        serde_json::from_str(&run_ok(bin().arg("stats").arg(&copy).arg("--json"))).unwrap();
    assert_eq!(
        (v["vertices"].as_u64(), v["edges"].as_u64()),
        (Some(0), Some(0))
    );
}

/// `changes` writes the writes after a timestamp as a Parquet file and
/// says where the next call starts.
#[test]
fn changes_are_written_after_a_timestamp_and_say_where_to_go_on() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.txt");
    std::fs::write(&input, "1 2\n2 3 0.5\n").unwrap();
    let store = dir.path().join("s");
    run_ok(bin().arg("load").arg(&store).arg(&input));
    let out = dir.path().join("c.parquet");
    let text = run_ok(
        bin()
            .args(["changes"])
            .arg(&store)
            .args(["--since", "0", "--out"])
            .arg(&out),
    );
    assert!(
        text.contains(": 2 changes after timestamp 0 up to "),
        "{text}"
    );
    assert!(out.exists());
    let until: u64 = text.trim().rsplit(' ').next().unwrap().parse().unwrap();
    std::fs::write(&input, "3 4\n").unwrap();
    run_ok(bin().arg("load").arg(&store).arg(&input));
    let text = run_ok(
        bin()
            .args(["changes"])
            .arg(&store)
            .args(["--since", &until.to_string(), "--out"])
            .arg(&out),
    );
    assert!(text.contains(": 1 changes after timestamp"), "{text}");
}

#[test]
fn export_as_of_rebuilds_an_earlier_state_from_a_checkpoint_and_the_changes() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.txt");
    let store = dir.path().join("s");
    std::fs::write(&input, "1 2\n").unwrap();
    run_ok(bin().arg("load").arg(&store).arg(&input));
    std::fs::write(&input, "2 3 0.5\n").unwrap();
    run_ok(bin().arg("load").arg(&store).arg(&input));
    // Before any checkpoint: refused, saying why.
    let out = bin()
        .arg("export")
        .arg(&store)
        .arg(dir.path().join("x"))
        .args(["--as-of", "1"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no checkpoint") && err.contains("it has none"),
        "{err}"
    );
    assert!(!dir.path().join("x").exists());

    let text = run_ok(bin().arg("checkpoint").arg(&store));
    let base: u64 = text
        .strip_prefix("checkpoint at timestamp ")
        .and_then(|t| t.split(':').next())
        .unwrap()
        .parse()
        .unwrap();
    std::fs::write(&input, "3 4 2.5\n").unwrap();
    run_ok(bin().arg("load").arg(&store).arg(&input));
    let changes = dir.path().join("c.parquet");
    let text = run_ok(
        bin()
            .arg("changes")
            .arg(&store)
            .args(["--since", &base.to_string(), "--out"])
            .arg(&changes),
    );
    let target: u64 = text.trim().rsplit(' ').next().unwrap().parse().unwrap();
    assert!(target > base);
    std::fs::write(&input, "5 6\n").unwrap();
    run_ok(bin().arg("load").arg(&store).arg(&input));
    let listed = run_ok(bin().arg("checkpoint").arg(&store).arg("--list"));
    assert!(listed.starts_with(&format!("{base}\t")), "{listed}");

    let out = dir.path().join("export");
    let text = run_ok(
        bin()
            .arg("export")
            .arg(&store)
            .arg(&out)
            .args(["--as-of", &target.to_string()]),
    );
    assert!(
        text.contains(&format!("checkpoint {base} and 1 commits")),
        "{text}"
    );
    let meta: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join("stratagraph.json")).unwrap()).unwrap();
    assert_eq!(meta["timestamp"], target);
    // Loaded back: the three edges up to the target, not the one after.
    let back = dir.path().join("back");
    run_ok(bin().arg("load").arg(&back).arg("--parquet").arg(&out));
    let g = stratagraph::Graph::open(&back, stratagraph::Options::default()).unwrap();
    let s = g.snapshot();
    assert_eq!(s.edge_count(), 3);
    assert_eq!(s.weight(2, 3), Some(0.5));
    assert_eq!(s.weight(3, 4), Some(2.5));
    assert!(!s.has_vertex(5));
}

/// `load --memory`: small batches and a small MemGraph (many flushes and
/// compactions) load the same graph as the default; a bad size is refused.
#[test]
fn a_load_within_a_memory_budget_loads_the_same_graph() {
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/datasets/real/wiki-Vote.txt.gz");
    if !input.exists() {
        eprintln!("skipped: {} not found", input.display());
        return;
    }
    let plain = dir.path().join("plain");
    let small = dir.path().join("small");
    run_ok(bin().arg("load").arg(&plain).arg(&input));
    run_ok(
        bin()
            .arg("load")
            .arg(&small)
            .arg(&input)
            .args(["--memory", "2M"]),
    );
    let edges = |p: &Path| {
        let g = stratagraph::Graph::open(p, stratagraph::Options::default()).unwrap();
        let s = g.snapshot();
        let mut all: Vec<(u64, u64)> = s
            .vertices()
            .flat_map(|v| {
                let src = s.external_id(v).unwrap();
                s.out_neighbors_of(v)
                    .map(|d| (src, s.external_id(d).unwrap()))
                    .collect::<Vec<_>>()
            })
            .collect();
        all.sort_unstable();
        (s.vertex_count(), all)
    };
    let (want, got) = (edges(&plain), edges(&small));
    assert_eq!(want.1.len(), 103_689);
    assert_eq!(got, want);
    let out = bin()
        .arg("load")
        .arg(dir.path().join("x"))
        .arg(&input)
        .args(["--memory", "12X"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("expected a byte count"));
}

#[test]
fn a_malformed_line_is_refused_naming_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("bad.txt");
    std::fs::write(&input, "# comment\n1 2\n3 x\n").unwrap();
    let out = bin()
        .arg("load")
        .arg(dir.path().join("store"))
        .arg(&input)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.txt:3"), "{err}");
    assert!(err.contains("\"x\""), "{err}");
}

/// The grammar `stratagraph.read_edgelist` reads too (one parser,
/// `stratagraph_io`): `%` and trailing `#` comments, tabs and spaces mixed,
/// a fourth column ignored, weighted and unweighted lines mixed with no
/// weight dropped. SSSP distances show the weights the store holds.
#[test]
fn load_reads_the_shared_edge_list_grammar() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("g.txt");
    let text = "% KONECT header\n1 2 # no weight: 1.0\n2\t3 \t0.5\n3 4 2 1190000000\n";
    std::fs::write(&input, text).unwrap();
    let store = dir.path().join("s");
    run_ok(bin().arg("load").arg(&store).arg(&input));
    let out = run_ok(bin().args(["algo", "sssp", "--source", "1"]).arg(&store));
    let mut rows: Vec<(u64, f64)> = out
        .lines()
        .map(|l| {
            let (v, d) = l.split_once(' ').unwrap();
            (v.parse().unwrap(), d.parse().unwrap())
        })
        .collect();
    rows.sort_by_key(|r| r.0);
    assert_eq!(rows, [(1, 0.0), (2, 1.0), (3, 1.5), (4, 3.5)], "{out}");
}

#[test]
fn a_nan_weight_is_refused_naming_file_and_line_and_loads_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("nan.txt");
    std::fs::write(&input, "1 2 1.0\n2 3 NaN\n").unwrap();
    let store = dir.path().join("s");
    let out = bin().arg("load").arg(&store).arg(&input).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("nan.txt:2: the weight \"NaN\" is not a finite number"),
        "{err}"
    );
    assert!(!err.contains("batch element"), "{err}");
    let stats = run_ok(bin().arg("stats").arg(&store).arg("--json"));
    let v: serde_json::Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(
        v["edges"], 0,
        "the batch with the bad line wrote nothing: {stats}"
    );
}

#[test]
fn algo_refuses_a_directory_without_a_store_and_unknown_kernels() {
    let dir = tempfile::tempdir().unwrap();
    let out = bin()
        .args(["algo", "bfs", "--source", "1"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("no stratagraph store"));
    let input = dir.path().join("e.txt");
    std::fs::write(&input, "1 2\n").unwrap();
    run_ok(bin().arg("load").arg(dir.path().join("s")).arg(&input));
    let out = bin()
        .args(["algo", "nope"])
        .arg(dir.path().join("s"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("invalid value 'nope'"));
}

/// The cases: `--damping 5` gave negative ranks and `nan` NaN ranks
/// with exit 0; `--source` on a kernel without one was ignored; a huge
/// `--threads` hung. Each is refused now, naming the parameter, with the
/// bounds Python uses too (`stratagraph_algo::params`).
#[test]
fn algo_refuses_parameters_out_of_range_or_for_another_kernel() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.txt");
    std::fs::write(&input, "1 2\n2 3\n").unwrap();
    let store = dir.path().join("s");
    run_ok(bin().arg("load").arg(&store).arg(&input));
    let refused = |args: &[&str], want: &str| {
        let out = bin().arg("algo").args(args).arg(&store).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{args:?} was accepted");
        assert!(out.stdout.is_empty(), "{args:?} printed results");
        assert!(err.contains(want), "{args:?}: {err}");
    };
    refused(
        &["pr", "--damping", "5"],
        "damping: expected a number in [0, 1], got 5",
    );
    refused(
        &["pr", "--damping", "nan"],
        "damping: expected a number in [0, 1], got NaN",
    );
    refused(&["pr", "--damping", "-0.1"], "got -0.1");
    refused(
        &["wcc", "--source", "1"],
        "wcc takes no --source; bfs, sssp and bc do",
    );
    refused(&["bfs"], "bfs needs --source ID");
    refused(&["lcc", "--iterations", "3"], "lcc takes no --iterations");
    refused(
        &["cdlp", "--damping", "0.5"],
        "cdlp takes no --damping; pr does",
    );
    refused(
        &["pr", "--threads", "65536"],
        "threads: expected an integer in 0..=1024",
    );
    let ranks = run_ok(bin().args(["algo", "pr", "--damping", "1"]).arg(&store));
    assert_eq!(ranks.lines().count(), 3, "{ranks}");
}

#[test]
fn check_reports_a_healthy_store_and_names_damage() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.txt");
    std::fs::write(&input, "1 2\n2 3 0.5\n3 1\n").unwrap();
    let store = dir.path().join("s");
    run_ok(bin().arg("load").arg(&store).arg(&input));
    let out = run_ok(bin().arg("check").arg(&store));
    assert!(out.contains("healthy"), "{out}");
    assert!(out.contains("3 vertex ids"), "{out}");
    // Damage one level file in its data: check names it and fails.
    let run = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with("-out.seg"))
        .unwrap();
    let mut bytes = std::fs::read(&run).unwrap();
    let last = bytes.len() - 9;
    bytes[last] ^= 0x40;
    std::fs::write(&run, &bytes).unwrap();
    let out = bin().arg("check").arg(&store).output().unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    let name = run.file_name().unwrap().to_string_lossy().into_owned();
    assert!(text.contains("DAMAGE") && text.contains(&name), "{text}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("1 problem"));
}

/// Loads `input` into a new undirected store at `store`.
fn load_undirected(store: &Path, input: &Path) {
    run_ok(bin().arg("load").arg(store).arg("--undirected").arg(input));
}

#[test]
fn the_kind_of_an_existing_store_comes_from_its_manifest() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.txt");
    std::fs::write(&input, "1 2\n2 3\n").unwrap();
    let more = dir.path().join("more.txt");
    std::fs::write(&more, "3 4\n").unwrap();
    let store = dir.path().join("s");
    load_undirected(&store, &input);
    // Loading more and running a kernel need no flag: both take the store
    // as undirected (BFS from 4 reaches 1 only over reversed edges).
    run_ok(bin().arg("load").arg(&store).arg(&more));
    let out = run_ok(
        bin()
            .args(["algo", "bfs"])
            .arg(&store)
            .args(["--source", "4"]),
    );
    assert!(out.lines().any(|l| l == "1 3"), "{out}");
    let json = run_ok(bin().arg("stats").arg(&store).arg("--json"));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (v["directed"].as_bool(), v["edges"].as_u64()),
        (Some(false), Some(3))
    );
    // A flag that contradicts the store is refused, naming both kinds, and
    // changes nothing.
    let before: Vec<_> = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    for args in [vec!["load"], vec!["algo", "wcc"]] {
        let mut cmd = bin();
        cmd.args(&args).arg(&store).arg("--directed");
        if args[0] == "load" {
            cmd.arg(&more);
        }
        let out = cmd.output().unwrap();
        assert!(!out.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("MANIFEST")
                && err.contains("the store is undirected, the options ask for directed"),
            "{args:?}: {err}"
        );
    }
    let after: Vec<_> = std::fs::read_dir(&store)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before, after);
    let json = run_ok(bin().arg("stats").arg(&store).arg("--json"));
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["edges"].as_u64(), Some(3));
    // --directed and --undirected together are a usage error.
    let out = bin()
        .arg("load")
        .arg(dir.path().join("t"))
        .args(["--directed", "--undirected"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

#[test]
fn stats_prints_counts_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.txt");
    std::fs::write(&input, "1 2\n2 3 0.5\n3 1\n3 4\n").unwrap();
    let store = dir.path().join("s");
    load_undirected(&store, &input);
    let out = run_ok(bin().arg("stats").arg(&store).arg("--json"));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["vertices"], 4, "{out}");
    assert_eq!(v["edges"], 4, "{out}");
    assert_eq!(v["directed"], false, "{out}");
    assert_eq!(v["runs"].as_array().unwrap().len(), 1, "{out}");
    // The load's close merged its flush into L1: one level of one segment
    // holding both directions of the 4 edges, written once.
    let levels = v["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 1, "{out}");
    assert_eq!(levels[0]["level"], 1, "{out}");
    assert_eq!(levels[0]["segments"], 1, "{out}");
    assert_eq!(levels[0]["entries"], 8, "{out}");
    assert_eq!(v["runs"][0]["level"], 1, "{out}");
    // The session that loaded the store is over; its work is in the
    // lifetime counters, while this session's are zero.
    let life = &v["lifetime"];
    assert!(life["level_bytes_written"].as_u64().unwrap() > 0, "{out}");
    assert!(life["write_amplification"].as_f64().unwrap() > 0.0, "{out}");
    assert!(life["flushes"].as_u64().unwrap() >= 1, "{out}");
    assert_eq!(v["session"]["flushes"], 0, "{out}");
    let text = run_ok(bin().arg("stats").arg(&store));
    assert!(text.contains("edges        4"), "{text}");
    assert!(text.contains("L1         1 segments"), "{text}");
    assert!(text.contains("lifetime     write amplification"), "{text}");
}

#[test]
fn a_store_that_lost_its_manifest_is_neither_healthy_nor_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.txt");
    std::fs::write(&input, "1 2\n2 3\n3 1\n").unwrap();
    let store = dir.path().join("s");
    load_undirected(&store, &input);
    std::fs::remove_file(store.join("MANIFEST")).unwrap();
    let files = || {
        let mut v: Vec<_> = std::fs::read_dir(&store)
            .unwrap()
            .map(|e| {
                let p = e.unwrap().path();
                (p.clone(), std::fs::read(p).unwrap())
            })
            .collect();
        v.sort();
        v
    };
    let before = files();
    let out = bin().arg("check").arg(&store).output().unwrap();
    assert!(!out.status.success(), "check called it healthy");
    assert!(String::from_utf8_lossy(&out.stdout).contains("MANIFEST is missing"));
    let out = bin().arg("load").arg(&store).arg(&input).output().unwrap();
    assert!(!out.status.success(), "load went ahead");
    assert!(String::from_utf8_lossy(&out.stderr).contains("MANIFEST is missing"));
    assert_eq!(files(), before, "the refused commands changed the store");
}

/// A crash image whose newest log segment was then emptied: `check` names
/// the segment and fails, `repair` wants `--accept-loss`, then keeps what
/// the level files hold, says what was lost, and leaves a healthy store.
#[test]
fn repair_salvages_a_store_whose_log_segment_was_emptied() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let image = dir.path().join("image");
    let g = stratagraph::Graph::open(
        &live,
        stratagraph::Options {
            memgraph_bytes: usize::MAX,
            ..stratagraph::Options::default()
        },
    )
    .unwrap();
    g.insert_edges(&[(1, 2, 1.0), (2, 3, 1.0)]).unwrap();
    g.flush().unwrap();
    for k in 0..50 {
        g.insert_edge(10 + k, 11 + k, 1.0).unwrap();
    }
    std::fs::create_dir_all(&image).unwrap();
    for e in std::fs::read_dir(&live).unwrap() {
        let e = e.unwrap();
        std::fs::copy(e.path(), image.join(e.file_name())).unwrap();
    }
    drop(g);
    let log = std::fs::read_dir(&image)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".log"))
        .max()
        .unwrap();
    std::fs::write(&log, b"").unwrap();
    let name = log.file_name().unwrap().to_string_lossy().into_owned();
    let out = bin().arg("check").arg(&image).output().unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("DAMAGE") && text.contains(&name), "{text}");
    let out = bin().arg("repair").arg(&image).output().unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("--accept-loss"));
    let text = run_ok(bin().arg("repair").arg(&image).arg("--accept-loss"));
    assert!(text.contains("damage") && text.contains(&name), "{text}");
    assert!(text.contains("set aside"), "{text}");
    assert!(image.join(format!("{name}.lost")).exists());
    run_ok(bin().arg("check").arg(&image));
    let stats = run_ok(bin().arg("stats").arg(&image).arg("--json"));
    assert!(stats.contains("\"edges\": 2"), "{stats}");
}

/// The case: `stats`, `check` and `algo` failed with `LOCK:
/// Permission denied` on a store the user cannot write. They open it
/// read-only now. The store sits on a read-only mount (needs root), or in
/// a directory without write permission (binds users other than root).
#[test]
fn stats_check_and_algo_read_a_store_the_user_cannot_write() {
    let Some(place) = tmpfs::Unwritable::new() else {
        return;
    };
    let input = place.path().join("e.txt");
    std::fs::write(&input, "1 2\n2 3\n3 1\n").unwrap();
    let store = place.path().join("s");
    run_ok(bin().arg("load").arg(&store).arg(&input));
    place.seal(&store);
    let stats = run_ok(bin().arg("stats").arg(&store).arg("--json"));
    let v: serde_json::Value = serde_json::from_str(&stats).unwrap();
    assert_eq!(
        (v["vertices"].as_u64(), v["edges"].as_u64()),
        (Some(3), Some(3))
    );
    assert!(run_ok(bin().arg("check").arg(&store)).contains("healthy"));
    let wcc = run_ok(bin().args(["algo", "wcc"]).arg(&store));
    assert_eq!(wcc.lines().count(), 3, "{wcc}");
    let out = bin().arg("load").arg(&store).arg(&input).output().unwrap();
    assert!(!out.status.success(), "a load cannot work here");
}

/// Copies every file of `from` into a new directory `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, to.join(path.file_name().unwrap())).unwrap();
    }
}

/// The issue's case: with a damaged MANIFEST, `check` printed "levels 0
/// files ... every block checksum verified" and "log 0 records" over a
/// store of 2 level files and 100 logged commits. It counts what is on
/// disk now and says it could not verify it.
#[test]
fn check_counts_files_and_records_it_cannot_verify() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let g = stratagraph::Graph::open(&live, stratagraph::Options::default()).unwrap();
    let edges: Vec<(u64, u64, f64)> = (0..100).map(|i| (i, i + 2, 1.0)).collect();
    g.insert_edges(&edges).unwrap();
    g.flush().unwrap(); // one run: an out file and an in file
    for i in 0..100u64 {
        g.insert_edge(i, i + 1, 1.0).unwrap(); // no new ids: one record each
    }
    g.wait_idle();
    let store = dir.path().join("crashed");
    copy_dir(&live, &store);
    drop(g);
    let manifest = store.join("MANIFEST");
    let mut bytes = std::fs::read(&manifest).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0xff;
    std::fs::write(&manifest, &bytes).unwrap();
    let out = bin().arg("check").arg(&store).output().unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("levels     2 run files on disk") && text.contains("not verified"),
        "{text}"
    );
    assert!(!text.contains("every block checksum verified"), "{text}");
    assert!(text.contains("100 intact records, not checked"), "{text}");
    assert!(
        text.contains("DAMAGE") && text.contains("MANIFEST"),
        "{text}"
    );
    assert!(!text.contains("healthy"), "{text}");
}

/// `check` lists the files the store does not need, with why, and they do
/// not make it unhealthy; `load` counts the run files `stats` lists.
#[test]
fn check_lists_orphans_and_load_counts_the_runs_stats_shows() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("e.txt");
    std::fs::write(&input, "1 2\n2 3\n3 1\n").unwrap();
    let store = dir.path().join("s");
    let loaded = run_ok(bin().arg("load").arg(&store).arg(&input));
    let stats = run_ok(bin().arg("stats").arg(&store).arg("--json"));
    let v: serde_json::Value = serde_json::from_str(&stats).unwrap();
    let runs = v["runs"].as_array().unwrap().len();
    assert!(runs > 0, "{stats}");
    assert!(
        loaded.contains(&format!("{runs} run(s) on disk")),
        "load said {loaded:?}, stats lists {runs} runs"
    );
    let out = run_ok(bin().arg("check").arg(&store));
    assert!(!out.contains("orphan"), "{out}");
    std::fs::write(store.join("run-99999999-out.seg"), b"left by a crash").unwrap();
    std::fs::write(
        store.join("wal-00000000000000000007.log.lost"),
        b"set aside",
    )
    .unwrap();
    std::fs::write(store.join("notes.txt"), b"mine").unwrap();
    let out = run_ok(bin().arg("check").arg(&store));
    for (file, why) in [
        ("run-99999999-out.seg", "not named by the MANIFEST"),
        (
            "wal-00000000000000000007.log.lost",
            "set aside by `stratagraph repair`",
        ),
        ("notes.txt", "not a stratagraph file"),
    ] {
        assert!(out.contains(&format!("orphan     {file}: {why}")), "{out}");
    }
    assert!(out.trim_end().ends_with("healthy"), "{out}");
    // A directory is healthy only if it is a store.
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = bin().arg("check").arg(&empty).output().unwrap();
    assert!(!out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("NOT STORE") && !text.contains("healthy"),
        "{text}"
    );
}

#[test]
fn vertex_prints_label_typed_properties_and_degrees() {
    use stratagraph::{Graph, Options, Value};
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let g = Graph::open(&store, Options::default()).unwrap();
    g.insert_vertex_with(
        1,
        "person",
        &[
            ("name", Value::String("marko".into())),
            ("age", Value::Int32(29)),
            ("born", Value::Int64(1987)),
            ("tags", Value::set(vec![Value::String("a".into())])),
            ("score", Value::Float64(f64::NAN)),
        ],
    )
    .unwrap();
    g.insert_edge(1, 2, 1.0).unwrap();
    g.close().unwrap();
    let out = run_ok(bin().arg("vertex").arg(&store).arg("1").arg("--json"));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["label"], "person", "{out}");
    assert_eq!(v["out_degree"], 1, "{out}");
    let p = &v["properties"];
    assert_eq!(p["name"], "marko", "{out}");
    assert_eq!(
        p["age"],
        serde_json::json!({"type": "Int", "value": 29}),
        "{out}"
    );
    assert_eq!(p["born"], 1987, "{out}");
    assert_eq!(p["tags"]["type"], "Set", "{out}");
    assert_eq!(p["score"]["value"], "NaN", "{out}");
    let text = run_ok(bin().arg("vertex").arg(&store).arg("2"));
    assert!(text.contains("label      vertex"), "{text}");
    assert!(text.contains("degree     0 out, 1 in"), "{text}");
    let text = run_ok(bin().arg("vertex").arg(&store).arg("1"));
    assert!(text.contains("  age: Int 29\n"), "{text}");
    assert!(text.contains("  name: String \"marko\"\n"), "{text}");
    let missing = bin().arg("vertex").arg(&store).arg("9").output().unwrap();
    assert!(!missing.status.success());
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("vertex 9 does not exist"), "{err}");
    let check = run_ok(bin().arg("check").arg(&store));
    assert!(check.contains("properties 5 properties of 1"), "{check}");
}

/// `load --graphson` and `--vertices/--edges` build a property graph that
/// `vertex`, `edge` and `check` then show; TinkerPop's documentation of
/// the modern graph gives the expected contents. A bad file is refused
/// naming file, line and field, with what stayed loaded.
#[test]
fn load_reads_property_graphs_and_edge_prints_one() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let modern = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/tinkerpop/data/tinkerpop-modern.json");
    let out = run_ok(bin().arg("load").arg(&store).arg("--graphson").arg(&modern));
    assert!(out.contains("6 vertices, 6 property edges"), "{out}");
    let text = run_ok(bin().arg("edge").arg(&store).arg("8"));
    assert!(text.contains("ends       1 -> 4"), "{text}");
    assert!(text.contains("label      knows"), "{text}");
    assert!(text.contains("  weight: Double 1"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&run_ok(
        bin().arg("edge").arg(&store).arg("9").arg("--json"),
    ))
    .unwrap();
    assert_eq!(v["label"], "created");
    assert_eq!((v["src"].as_u64(), v["dst"].as_u64()), (Some(1), Some(3)));
    let text = run_ok(bin().arg("vertex").arg(&store).arg("1"));
    assert!(text.contains("edges      created: 1 out, 0 in"), "{text}");
    assert!(text.contains("edges      knows: 2 out, 0 in"), "{text}");
    let check = run_ok(bin().arg("check").arg(&store));
    assert!(
        check.contains("edges      6 property edges with 6 properties"),
        "{check}"
    );
    let missing = bin().arg("edge").arg(&store).arg("99").output().unwrap();
    assert!(!missing.status.success());

    // CSV, with a bad row after a good batch.
    let v = dir.path().join("v.csv");
    std::fs::write(&v, "id,name\n100,a\n101,b\n").unwrap();
    let e = dir.path().join("e.csv");
    std::fs::write(&e, "src,dst,since:int\n100,101,2010\n101,100,soon\n").unwrap();
    let bad = bin()
        .arg("load")
        .arg(&store)
        .arg("--vertices")
        .arg(format!("thing={}", v.display()))
        .arg("--edges")
        .arg(format!("likes={}", e.display()))
        .arg("--batch")
        .arg("1")
        .output()
        .unwrap();
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("e.csv:3: since:int"), "{err}");
    assert!(
        err.contains("2 vertices and 1 property edges of this load were committed"),
        "{err}"
    );
    let text = run_ok(bin().arg("vertex").arg(&store).arg("100"));
    assert!(text.contains("label      thing"), "{text}");
    assert!(text.contains("edges      likes: 1 out, 0 in"), "{text}");
}

/// `load --string-ids` makes a store of string keys; `vertex` and `edge`
/// then take and print keys.
#[test]
fn a_store_of_string_keys_is_loaded_and_read_by_key() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("s");
    let modern = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/tinkerpop/data/tinkerpop-modern.json");
    run_ok(
        bin()
            .arg("load")
            .arg(&store)
            .arg("--string-ids")
            .arg("--graphson")
            .arg(&modern),
    );
    let text = run_ok(bin().arg("vertex").arg(&store).arg("4"));
    assert!(text.contains("vertex     \"4\""), "{text}");
    assert!(text.contains("label      person"), "{text}");
    let v: serde_json::Value = serde_json::from_str(&run_ok(
        bin().arg("edge").arg(&store).arg("10").arg("--json"),
    ))
    .unwrap();
    assert_eq!(
        (&v["src"], &v["dst"]),
        (&serde_json::json!("4"), &serde_json::json!("5"))
    );
    let missing = bin()
        .arg("vertex")
        .arg(&store)
        .arg("marko")
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(run_ok(bin().arg("check").arg(&store)).contains("6 property edges"));
}
