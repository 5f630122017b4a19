//! `stratagraph bench algo`: analytics kernels on an engine snapshot beside
//! the same kernels on the static CSR, in one process (issue 5's figures).
//!
//! Both run the identical kernel code through `GraphView`, so the ratio is
//! the cost of reading the store instead of a CSR. Every result is checked
//! against `kS.ref.json` (BFS reach, WCC component count, SSSP reach and
//! distance sum, PageRank top vertex) before its time is reported.
//!
//! The store is measured twice: with every edge in the MemGraph (system
//! `stratagraph`), then flushed into one run below an empty MemGraph
//! (`stratagraph-flushed`, the compacted state of issue 3).

use crate::rows::{median, Row, Table};
use crate::w1_files::{w1_weight, Reference, W1Files};
use std::path::PathBuf;
use std::time::Instant;
use stratagraph::{Graph, Options};
use stratagraph_algo::{
    bfs, pagerank, sssp, triangle_count, wcc, CsrGraph, GraphView, BFS_UNREACHABLE,
};

/// Arguments of `bench algo`.
pub struct AlgoArgs {
    /// Folder holding the generator's `kS.*` files.
    pub data: PathBuf,
    /// Kronecker scale S.
    pub scale: u32,
    /// Runs per kernel; the median is reported.
    pub runs: usize,
    /// Thread counts to measure.
    pub threads: Vec<usize>,
    /// Also write the rows as TSV here.
    pub out: Option<PathBuf>,
}

type Check = Result<String, String>;

/// Runs the kernels on both systems, printing rows and the ratios.
///
/// # Errors
/// A missing or malformed workload file, a kernel result that disagrees
/// with the reference, or an engine error.
pub fn run(args: &AlgoArgs) -> Result<(), Box<dyn std::error::Error>> {
    let files = W1Files::new(&args.data, args.scale);
    let reference = files.reference()?;
    let pairs = files.edges()?;
    let vertices: Vec<u64> = (0..reference.vertices).collect();
    let weighted: Vec<(u64, u64, f64)> = pairs
        .iter()
        .map(|&(s, d)| {
            let (s, d) = (u64::from(s), u64::from(d));
            (s, d, w1_weight(s, d))
        })
        .collect();
    let csr = CsrGraph::from_edges(&weighted, Some(&vertices), true, true)?;
    let g = Graph::in_memory(Options {
        memgraph_bytes: usize::MAX, // flushed below, on purpose
        ..Options::default()
    });
    g.insert_vertices(&vertices)?;
    g.insert_edges(&weighted)?;
    drop(weighted);
    let mut snap = g.snapshot();
    let source = csr
        .dense_id(reference.bfs_source)
        .ok_or("the BFS source is not a vertex")?;
    if snap.internal_id(reference.bfs_source) != Some(source) {
        return Err("engine and CSR number the vertices differently".into());
    }
    let mut table = Table::new();
    let graph = files.graph_name();
    for system in ["stratagraph", "stratagraph-flushed"] {
        if system == "stratagraph-flushed" {
            drop(snap);
            g.flush()?;
            snap = g.snapshot();
        }
        for &threads in &args.threads {
            for kernel in ["bfs", "pr", "wcc", "sssp"] {
                let mut times = [Vec::new(), Vec::new()];
                let mut checks = [String::new(), String::new()];
                for _ in 0..args.runs.max(1) {
                    let t = Instant::now();
                    checks[0] = kernel_run(&csr, kernel, source, threads, &reference)?;
                    times[0].push(t.elapsed().as_secs_f64());
                    let t = Instant::now();
                    checks[1] = kernel_run(&snap, kernel, source, threads, &reference)?;
                    times[1].push(t.elapsed().as_secs_f64());
                }
                // The CSR runs beside each engine state; each engine row is
                // paired with the CSR row measured alongside it.
                let csr_name = if system == "stratagraph" {
                    "csr"
                } else {
                    "csr-beside-flushed"
                };
                for (i, name) in [csr_name, system].into_iter().enumerate() {
                    table.push(Row {
                        system: name,
                        graph: graph.clone(),
                        op: kernel.to_string(),
                        threads,
                        value: median(&times[i]),
                        unit: "s",
                        checksum: checks[i].clone(),
                    });
                }
            }
        }
    }
    println!();
    println!("kernel time on a snapshot / on the CSR (target <= 1.3 compacted, <= 1.6 with 20% in MemGraph):");
    for &threads in &args.threads {
        for kernel in ["bfs", "pr", "wcc", "sssp"] {
            let get = |s: &str| table.value(s, kernel, threads).unwrap_or(f64::NAN);
            println!(
                "  {kernel:>4} on {threads} thread(s): all in MemGraph {:.2}x, flushed into one run {:.2}x",
                get("stratagraph") / get("csr"),
                get("stratagraph-flushed") / get("csr-beside-flushed")
            );
        }
    }
    if let Some(out) = &args.out {
        table.save(out)?;
        println!("rows written to {}", out.display());
    }
    Ok(())
}

/// Runs one kernel (`bfs`, `pr`, `wcc`, `sssp`, or `tc` on an undirected
/// view) and checks its result; returns the checksum text.
pub(crate) fn kernel_run<G: GraphView>(
    g: &G,
    kernel: &str,
    source: u32,
    threads: usize,
    r: &Reference,
) -> Result<String, Box<dyn std::error::Error>> {
    let check: Check = match kernel {
        "bfs" => {
            let reached = bfs(g, source, threads)
                .iter()
                .filter(|&&d| d != BFS_UNREACHABLE)
                .count() as u64;
            expect("bfs reached", reached, r.bfs_reached)
        }
        "pr" => {
            let ranks = pagerank(g, 0.85, 20, threads);
            let top = (0..ranks.len())
                .max_by(|&a, &b| ranks[a].total_cmp(&ranks[b]).then(b.cmp(&a)))
                .map_or(u64::MAX, |v| g.external_id(v as u32));
            expect(
                "pagerank top vertex",
                top,
                Reference::require(r.pagerank_top, "PageRank top vertex")?,
            )
        }
        "wcc" => {
            let labels = wcc(g, threads);
            let mut roots: Vec<u32> = labels.clone();
            roots.sort_unstable();
            roots.dedup();
            expect("wcc components", roots.len() as u64, r.wcc_components)
        }
        "sssp" => {
            let dist = sssp(g, source, threads)?;
            let reached: Vec<f64> = dist.into_iter().filter(|d| d.is_finite()).collect();
            let sum: f64 = reached.iter().sum();
            if reached.len() as u64 != r.bfs_reached {
                Err(format!(
                    "sssp reached {} vertices, reference {}",
                    reached.len(),
                    r.bfs_reached
                ))
            } else if (sum - r.sssp_dist_sum).abs() > 1e-6 * r.sssp_dist_sum {
                Err(format!(
                    "sssp distance sum {sum}, reference {}",
                    r.sssp_dist_sum
                ))
            } else {
                Ok(format!("reached={};sum={sum:.3}", reached.len()))
            }
        }
        "tc" => expect(
            "triangles",
            triangle_count(g, threads),
            Reference::require(r.triangles, "triangle count")?,
        ),
        other => Err(format!("unknown kernel {other}")),
    };
    Ok(check?)
}

fn expect(what: &str, got: u64, want: u64) -> Check {
    if got == want {
        Ok(format!("{}={got}", what.replace(' ', "_")))
    } else {
        Err(format!("{what}: got {got}, reference {want}"))
    }
}
