//! Broken Graphalytics folders must produce failed cases that name the file and line, never
//! a panic, and must not hide the results of healthy graphs.
#![allow(clippy::unwrap_used)] // tests may panic on bad fixtures

use std::fs;
use std::path::{Path, PathBuf};

use stratagraph_algo::graphalytics::{run_suite, summary_line};

/// A scratch directory removed on drop, so failed assertions do not leave litter behind.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn write_graph(root: &Path, name: &str, vertices: &str, edges: &str, bfs: &str) {
    let dir = root.join(name);
    fs::create_dir_all(&dir).unwrap();
    let props = format!(
        "graph.{name}.vertex-file = {name}.v\n\
         graph.{name}.edge-file = {name}.e\n\
         graph.{name}.directed = true\n\
         graph.{name}.bfs.source-vertex = 1\n"
    );
    fs::write(dir.join(format!("{name}.properties")), props).unwrap();
    fs::write(dir.join(format!("{name}.v")), vertices).unwrap();
    fs::write(dir.join(format!("{name}.e")), edges).unwrap();
    fs::write(dir.join(format!("{name}-BFS")), bfs).unwrap();
}

#[test]
fn broken_files_fail_their_cases_only() {
    let root =
        std::env::temp_dir().join(format!("stratagraph-algo-malformed-{}", std::process::id()));
    let _cleanup = Scratch(root.clone());
    write_graph(
        &root,
        "good",
        "1\n2\n3\n",
        "1 2\n",
        "1 0\n2 1\n3 9223372036854775807\n",
    );
    write_graph(&root, "bad-edge", "1\n2\n", "1 2\n2 oops\n", "1 0\n2 1\n");
    write_graph(&root, "bad-ref", "1\n2\n", "1 2\n", "1 0\n2\n");
    write_graph(&root, "wrong-ref", "1\n2\n", "1 2\n", "1 0\n2 2\n");
    write_graph(&root, "dangling-edge", "1\n", "1 2\n", "1 0\n");

    let outcomes = run_suite(&root, 1).unwrap();
    let detail = |g: &str| {
        let o = outcomes.iter().find(|o| o.graph == g).unwrap();
        (o.passed, o.detail.clone())
    };
    assert_eq!(detail("good"), (true, String::new()));
    let (passed, msg) = detail("bad-edge");
    assert!(
        !passed && msg.ends_with("bad-edge.e:2: bad vertex id `oops`"),
        "{msg}"
    );
    let (passed, msg) = detail("bad-ref");
    assert!(!passed && msg.contains("bad-ref-BFS:2:"), "{msg}");
    let (passed, msg) = detail("wrong-ref");
    assert!(!passed && msg == "vertex 2: expected 2, got 1", "{msg}");
    let (passed, msg) = detail("dangling-edge");
    assert!(!passed && msg.contains("dangling-edge.e:1:"), "{msg}");
    assert_eq!(summary_line(&outcomes), "1 passed, 4 failed");
}
