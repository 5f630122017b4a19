//! Every LDBC Graphalytics validation case, on the CSR baseline and on a view with holes.
#![allow(clippy::unwrap_used)] // tests may panic on bad fixtures

mod common;

use common::{assert_all_24_pass, graphalytics_dir, HoleyView};
use stratagraph_algo::graphalytics::{
    discover, run_suite, run_suite_with, summary_line, Algorithm, CaseOutcome, GraphSpec,
};
use stratagraph_algo::CsrGraph;

/// (graph, algorithms with a reference output), from the dataset README's table.
fn expected_cases() -> Vec<(String, Algorithm)> {
    use Algorithm::*;
    let mut cases = Vec::new();
    for g in ["example-directed", "example-undirected"] {
        for a in Algorithm::ALL {
            cases.push((g.to_owned(), a));
        }
    }
    for (alg, a) in [
        ("bfs", Bfs),
        ("cdlp", Cdlp),
        ("lcc", Lcc),
        ("pr", Pr),
        ("sssp", Sssp),
        ("wcc", Wcc),
    ] {
        for dir in ["directed", "undirected"] {
            cases.push((format!("test-{alg}-{dir}"), a));
        }
    }
    cases.sort();
    cases
}

fn assert_all_pass(outcomes: &[CaseOutcome]) {
    let mut seen: Vec<(String, Algorithm)> = outcomes
        .iter()
        .map(|o| (o.graph.clone(), o.algorithm))
        .collect();
    seen.sort();
    assert_eq!(seen, expected_cases(), "every case must run exactly once");
    assert_all_24_pass(outcomes);
}

#[test]
fn discovers_fourteen_graphs() {
    let cases = discover(&graphalytics_dir()).unwrap();
    assert_eq!(cases.len(), 14);
}

#[test]
fn csr_one_thread() {
    assert_all_pass(&run_suite(&graphalytics_dir(), 1).unwrap());
}

#[test]
fn csr_two_threads() {
    assert_all_pass(&run_suite(&graphalytics_dir(), 2).unwrap());
}

#[test]
fn view_with_holes_two_threads() {
    let outcomes = run_suite_with(&graphalytics_dir(), 2, |spec: &GraphSpec| {
        spec.to_csr().map(HoleyView)
    })
    .unwrap();
    assert_all_pass(&outcomes);
}

#[test]
fn runner_detects_wrong_graphs() {
    // Loading every graph with the opposite directedness must break the directed cases:
    // proves the comparisons are not vacuous.
    let outcomes = run_suite_with(&graphalytics_dir(), 1, |spec: &GraphSpec| {
        CsrGraph::from_edges(
            &spec.edges,
            Some(&spec.vertices),
            !spec.directed,
            spec.weighted,
        )
    })
    .unwrap();
    let failed: Vec<&CaseOutcome> = outcomes.iter().filter(|o| !o.passed).collect();
    assert!(failed.len() >= 6, "{}", summary_line(&outcomes));
    assert!(failed.iter().all(|o| o.detail.contains("vertex")));
    // A builder error fails every case of every graph, with the message.
    let outcomes = run_suite_with(&graphalytics_dir(), 1, |_: &GraphSpec| {
        Err::<CsrGraph, _>("no storage today")
    })
    .unwrap();
    assert_eq!(outcomes.len(), 24);
    assert!(outcomes
        .iter()
        .all(|o| !o.passed && o.detail.contains("no storage today")));
}

#[test]
fn missing_directory_is_an_error() {
    let err = run_suite(&graphalytics_dir().join("no-such-folder"), 1).unwrap_err();
    assert!(err.to_string().contains("no-such-folder"));
}
