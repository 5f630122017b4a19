//! The Rust side of the Python speed comparisons (`bench/python_speed.py`):
//! the same engine work as a Python call, timed inside Rust, so
//! one process measures both sides of each ratio on the same data. The
//! names start with an underscore: they are measuring aids, not API.

use std::time::Instant;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::conversions as conv;
use crate::errors;
use crate::graph::PyGraph;
use crate::snapshot::PySnapshot;

/// Inserts ``src[i] -> dst[i]`` one single-edge commit at a time, in a
/// Rust loop without the GIL, as ``add_edge`` would from a Python loop;
/// returns the seconds the loop took.
#[pyfunction]
pub fn _insert_each(
    py: Python<'_>,
    graph: &PyGraph,
    src: &Bound<'_, PyAny>,
    dst: &Bound<'_, PyAny>,
) -> PyResult<f64> {
    let (src, dst) = (conv::ids(src, "src")?, conv::ids(dst, "dst")?);
    let pairs: Vec<(u64, u64)> = src
        .as_slice()?
        .iter()
        .copied()
        .zip(dst.as_slice()?.iter().copied())
        .collect();
    graph.with(|g| {
        py.detach(|| {
            let start = Instant::now();
            for &(u, v) in &pairs {
                g.insert_edge(u, v, 1.0)?;
            }
            Ok(start.elapsed().as_secs_f64())
        })
        .map_err(errors::engine)
    })
}

/// Runs one kernel on the snapshot straight from Rust (no vertex index, no
/// result conversion) with the parameters the Python methods default to,
/// and returns its seconds. ``kernel`` is a ``Snapshot`` method name:
/// bfs, sssp, wcc, pagerank, lcc, cdlp, triangle_count, betweenness.
#[pyfunction]
#[pyo3(signature = (snapshot, kernel, source = 0, threads = 0))]
pub fn _kernel_seconds(
    py: Python<'_>,
    snapshot: &PySnapshot,
    kernel: &str,
    source: u64,
    threads: i64,
) -> PyResult<f64> {
    let threads = conv::threads(threads)?;
    snapshot.with(|s| {
        let found = s.internal_id(source);
        py.detach(|| {
            let source = || {
                found.ok_or_else(|| PyValueError::new_err(format!("source: no vertex {source}")))
            };
            let start = Instant::now();
            match kernel {
                "bfs" => drop(stratagraph_algo::bfs(s, source()?, threads)),
                "sssp" => drop(
                    stratagraph_algo::sssp(s, source()?, threads)
                        .map_err(|e| PyValueError::new_err(e.to_string()))?,
                ),
                "wcc" => drop(stratagraph_algo::wcc(s, threads)),
                "pagerank" => drop(stratagraph_algo::pagerank(s, 0.85, 20, threads)),
                "lcc" => drop(stratagraph_algo::lcc(s, threads)),
                "cdlp" => drop(stratagraph_algo::cdlp(s, 10, threads)),
                "triangle_count" => drop(stratagraph_algo::triangle_count(s, threads)),
                "betweenness" => drop(stratagraph_algo::betweenness_single_source(
                    s,
                    source()?,
                    threads,
                )),
                other => {
                    return Err(PyValueError::new_err(format!(
                        "kernel: expected a Snapshot analytics method name, got {other:?}"
                    )))
                }
            }
            Ok(start.elapsed().as_secs_f64())
        })
    })
}

/// Seconds the kernel inside the most recent ``Snapshot`` analytics call
/// took (in any thread), so a caller can tell the kernel's time from what
/// the method adds around it in the same call.
#[pyfunction]
pub fn _last_kernel_seconds() -> f64 {
    crate::analytics::last_kernel_seconds()
}
