//! Discovers Graphalytics graph folders and checks kernel outputs against their references.

use std::fmt;
use std::path::{Path, PathBuf};

use super::compare::{compare_epsilon, compare_equivalence, compare_exact, EPSILON};
use super::error::{read_text, GraphalyticsError};
use super::evlp::GraphSpec;
use super::properties::GraphProperties;
use super::reference::{parse_double_output, parse_long_output};
use crate::{bfs, cdlp, lcc, pagerank, sssp, wcc, CsrGraph, GraphView, BFS_UNREACHABLE};

/// The six Graphalytics kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Algorithm {
    /// Breadth-first search.
    Bfs,
    /// Community detection by label propagation.
    Cdlp,
    /// Local clustering coefficient.
    Lcc,
    /// PageRank.
    Pr,
    /// Single-source shortest paths.
    Sssp,
    /// Weakly connected components.
    Wcc,
}

impl Algorithm {
    /// All kernels, in reporting order.
    pub const ALL: [Algorithm; 6] = [
        Algorithm::Bfs,
        Algorithm::Cdlp,
        Algorithm::Lcc,
        Algorithm::Pr,
        Algorithm::Sssp,
        Algorithm::Wcc,
    ];

    /// The upper-case name used in reference file names (`<graph>-BFS`).
    pub fn suffix(self) -> &'static str {
        match self {
            Algorithm::Bfs => "BFS",
            Algorithm::Cdlp => "CDLP",
            Algorithm::Lcc => "LCC",
            Algorithm::Pr => "PR",
            Algorithm::Sssp => "SSSP",
            Algorithm::Wcc => "WCC",
        }
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.suffix())
    }
}

/// One graph folder: its properties file and the algorithms that have a reference output.
#[derive(Debug, Clone)]
pub struct GraphCase {
    /// Graph name (folder name).
    pub name: String,
    /// The graph's folder.
    pub dir: PathBuf,
    /// Algorithms with a `<name>-<ALG>` reference file, in [`Algorithm::ALL`] order.
    pub algorithms: Vec<Algorithm>,
}

impl GraphCase {
    /// Path of the `.properties` file.
    pub fn properties_path(&self) -> PathBuf {
        self.dir.join(format!("{}.properties", self.name))
    }

    /// Path of the reference output for `alg`.
    pub fn reference_path(&self, alg: Algorithm) -> PathBuf {
        self.dir.join(format!("{}-{}", self.name, alg.suffix()))
    }
}

/// The result of one (graph, algorithm) validation.
#[derive(Debug, Clone, PartialEq)]
pub struct CaseOutcome {
    /// Graph name.
    pub graph: String,
    /// The kernel checked.
    pub algorithm: Algorithm,
    /// Whether the output matched the reference under the official rule.
    pub passed: bool,
    /// Empty on success; otherwise the first problem (mismatching vertex, load error, ...).
    pub detail: String,
}

impl fmt::Display for CaseOutcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.passed {
            write!(f, "PASS {} {}", self.graph, self.algorithm)
        } else {
            write!(f, "FAIL {} {}: {}", self.graph, self.algorithm, self.detail)
        }
    }
}

/// The closing line of a report: `N passed, N failed`.
pub fn summary_line(outcomes: &[CaseOutcome]) -> String {
    let passed = outcomes.iter().filter(|o| o.passed).count();
    format!("{passed} passed, {} failed", outcomes.len() - passed)
}

/// Finds every sub-folder of `dir` that holds `<folder>.properties`, sorted by name.
/// Folders without one (such as `matching/` or `validation-graphs/`) are not graphs.
pub fn discover(dir: &Path) -> Result<Vec<GraphCase>, GraphalyticsError> {
    let entries = std::fs::read_dir(dir).map_err(|e| GraphalyticsError::io(dir, e))?;
    let mut cases = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| GraphalyticsError::io(dir, e))?;
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            continue;
        };
        if !path.join(format!("{name}.properties")).is_file() {
            continue;
        }
        let mut case = GraphCase {
            name,
            dir: path,
            algorithms: Vec::new(),
        };
        case.algorithms = Algorithm::ALL
            .into_iter()
            .filter(|&a| case.reference_path(a).is_file())
            .collect();
        cases.push(case);
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(cases)
}

/// Reads a graph's properties, vertices and edges.
pub fn load_graph(case: &GraphCase) -> Result<(GraphProperties, GraphSpec), GraphalyticsError> {
    let props = GraphProperties::load(&case.properties_path(), &case.name)?;
    let spec = GraphSpec::load(&case.dir, &props)?;
    Ok((props, spec))
}

impl GraphSpec {
    /// Builds the CSR baseline for this graph.
    pub fn to_csr(&self) -> Result<CsrGraph, crate::BuildError> {
        CsrGraph::from_edges(
            &self.edges,
            Some(&self.vertices),
            self.directed,
            self.weighted,
        )
    }
}

/// Validates every graph under `dir` on [`CsrGraph`] with `threads` threads (0 = all cores).
pub fn run_suite(dir: &Path, threads: usize) -> Result<Vec<CaseOutcome>, GraphalyticsError> {
    run_suite_with(dir, threads, GraphSpec::to_csr)
}

/// Validates every graph under `dir` on whatever [`GraphView`] `build` makes from the parsed
/// files. Graphs that fail to load or build produce failed cases rather than an error, so
/// one broken folder does not hide the results of the others; only an unreadable `dir` is
/// an error.
pub fn run_suite_with<G, E, F>(
    dir: &Path,
    threads: usize,
    mut build: F,
) -> Result<Vec<CaseOutcome>, GraphalyticsError>
where
    G: GraphView,
    E: fmt::Display,
    F: FnMut(&GraphSpec) -> Result<G, E>,
{
    let mut outcomes = Vec::new();
    for case in discover(dir)? {
        let fail_all = |outcomes: &mut Vec<CaseOutcome>, detail: String| {
            outcomes.extend(case.algorithms.iter().map(|&algorithm| CaseOutcome {
                graph: case.name.clone(),
                algorithm,
                passed: false,
                detail: detail.clone(),
            }));
        };
        let (props, spec) = match load_graph(&case) {
            Ok(loaded) => loaded,
            Err(e) => {
                fail_all(&mut outcomes, e.to_string());
                continue;
            }
        };
        let graph = match build(&spec) {
            Ok(g) => g,
            Err(e) => {
                fail_all(&mut outcomes, format!("building the graph failed: {e}"));
                continue;
            }
        };
        for &alg in &case.algorithms {
            outcomes.push(run_case(&graph, &props, &case, alg, threads));
        }
    }
    Ok(outcomes)
}

/// Runs one kernel on `g` with the parameters from `props` and compares the result with the
/// reference file of `case`.
pub fn run_case<G: GraphView>(
    g: &G,
    props: &GraphProperties,
    case: &GraphCase,
    algorithm: Algorithm,
    threads: usize,
) -> CaseOutcome {
    let result = check(
        g,
        props,
        &case.reference_path(algorithm),
        algorithm,
        threads,
    );
    CaseOutcome {
        graph: case.name.clone(),
        algorithm,
        passed: result.is_ok(),
        detail: result.err().unwrap_or_default(),
    }
}

/// Live dense ids in ascending order.
fn live<G: GraphView>(g: &G) -> impl Iterator<Item = u32> + '_ {
    (0..g.id_bound()).filter(move |&v| g.contains(v))
}

/// Dense id of a Graphalytics vertex id; a linear scan is fine for one lookup per case and
/// needs nothing beyond the `GraphView` contract.
fn dense_source<G: GraphView>(g: &G, props: &GraphProperties, key: &str) -> Result<u32, String> {
    let ext: u64 = props.param(key).map_err(|e| e.to_string())?;
    live(g)
        .find(|&v| g.external_id(v) == ext)
        .ok_or_else(|| format!("source vertex {ext} is not in the graph"))
}

fn long_output<G: GraphView>(
    g: &G,
    values: &[u64],
    convert: impl Fn(u64) -> Option<i64>,
) -> Result<Vec<(u64, i64)>, String> {
    live(g)
        .map(|v| {
            let x = values[v as usize];
            convert(x)
                .map(|x| (g.external_id(v), x))
                .ok_or_else(|| format!("value {x} of vertex {} exceeds i64", g.external_id(v)))
        })
        .collect()
}

fn double_output<G: GraphView>(g: &G, values: &[f64]) -> Vec<(u64, f64)> {
    live(g)
        .map(|v| (g.external_id(v), values[v as usize]))
        .collect()
}

fn check<G: GraphView>(
    g: &G,
    props: &GraphProperties,
    reference: &Path,
    algorithm: Algorithm,
    threads: usize,
) -> Result<(), String> {
    let text = read_text(reference).map_err(|e| e.to_string())?;
    let longs = || parse_long_output(&text, reference).map_err(|e| e.to_string());
    let doubles = || parse_double_output(&text, reference).map_err(|e| e.to_string());
    let param_u32 = |key: &str| props.param::<u32>(key).map_err(|e| e.to_string());
    let mismatch = |m: super::Mismatch| m.to_string();
    match algorithm {
        Algorithm::Bfs => {
            let source = dense_source(g, props, "bfs.source-vertex")?;
            let depth = bfs(g, source, threads);
            // Graphalytics writes unreachable as i64::MAX.
            let actual = long_output(g, &depth, |d| {
                if d == BFS_UNREACHABLE {
                    Some(i64::MAX)
                } else {
                    i64::try_from(d).ok()
                }
            })?;
            compare_exact(&longs()?, &actual).map_err(mismatch)
        }
        Algorithm::Cdlp => {
            let labels = cdlp(g, param_u32("cdlp.max-iterations")?, threads);
            let actual = long_output(g, &labels, |l| i64::try_from(l).ok())?;
            compare_exact(&longs()?, &actual).map_err(mismatch)
        }
        Algorithm::Lcc => {
            compare_epsilon(&doubles()?, &double_output(g, &lcc(g, threads)), EPSILON)
                .map_err(mismatch)
        }
        Algorithm::Pr => {
            let damping: f64 = props
                .param("pr.damping-factor")
                .map_err(|e| e.to_string())?;
            let ranks = pagerank(g, damping, param_u32("pr.num-iterations")?, threads);
            compare_epsilon(&doubles()?, &double_output(g, &ranks), EPSILON).map_err(mismatch)
        }
        Algorithm::Sssp => {
            let source = dense_source(g, props, "sssp.source-vertex")?;
            let dist = sssp(g, source, threads).map_err(|e| e.to_string())?;
            compare_epsilon(&doubles()?, &double_output(g, &dist), EPSILON).map_err(mismatch)
        }
        Algorithm::Wcc => {
            let comp = wcc(g, threads);
            let actual: Vec<(u64, i64)> = live(g)
                .map(|v| (g.external_id(v), i64::from(comp[v as usize])))
                .collect();
            compare_equivalence(&longs()?, &actual).map_err(mismatch)
        }
    }
}
