//! `stratagraph bench algo`: analytics kernels on an engine snapshot beside
//! the same kernels on the static CSR, in one process.
//!
//! Both run the identical kernel code through `GraphView`, so the ratio is
//! the cost of reading the store instead of a CSR. BFS, PageRank, WCC,
//! SSSP and triangle-count results are checked against `kS.ref.json` (BFS
//! reach, WCC component count, SSSP reach and distance sum, PageRank top
//! vertex, triangles) before their time is reported. Triangles are counted
//! on the graph with directions ignored, which has the triangles of
//! `kS_u.bin`. LCC, CDLP and betweenness have no reference figures at
//! this scale (their correctness is checked on the Graphalytics graphs);
//! here the store's result must equal the CSR's, which checks that the
//! store hands the kernel the same graph.
//!
//! The store is measured in up to three states, each paired with a CSR run
//! measured alongside it:
//! - `memgraph` (system `stratagraph`): every edge in the MemGraph;
//! - `tail20` (`stratagraph-tail20`): the first 80% of the edges loaded and
//!   compacted, the last 20% inserted after and still in the MemGraph;
//! - `compacted` (`stratagraph-flushed`): the same store after
//!   `Graph::compact`, one level read as a plain CSR.
//!
//! Each run times a fresh snapshot with nothing written since the last
//! one (the system name alone), the same snapshot again (`-warm`), and,
//! where the MemGraph holds edges, a fresh snapshot after a commit wrote
//! one edge in every page of vertices (`-written`; see `Bench::measure`).
//! `fresh_only` keeps the first of those alone, for kernels that run for
//! minutes (LCC, triangles).
//!
//! Each store row's time is the median of its runs; its ratio to the CSR
//! (rows `{kernel}_vs_csr`, which the summary prints) is the median of the
//! runs' own ratios to the CSR run made just before them, as in `bench
//! levels`: the machine's load drifts between runs, and a ratio of two
//! medians can pair a quiet moment on one side with a busy one on the
//! other.

use crate::rows::{median, Row, Table};
use crate::w1_files::{w1_weight, Reference, W1Files};
use std::path::PathBuf;
use std::time::Instant;
use stratagraph::{Graph, Options};
use stratagraph_algo::{
    betweenness_single_source, bfs, cdlp, lcc, pagerank, sssp, triangle_count, wcc, CsrGraph,
    GraphView, BFS_UNREACHABLE,
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
    /// Kernels to run: bfs, pr, wcc, sssp, lcc, cdlp, tc, bc.
    pub kernels: Vec<String>,
    /// Store states to measure: memgraph, tail20, compacted.
    pub states: Vec<String>,
    /// Time only a fresh snapshot with nothing written since the last one.
    pub fresh_only: bool,
    /// Also write the rows as TSV here.
    pub out: Option<PathBuf>,
}

type Check = Result<String, String>;
type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The kernels `bench algo` knows, in the order it runs them.
pub const KERNELS: [&str; 8] = ["bfs", "pr", "wcc", "sssp", "lcc", "cdlp", "tc", "bc"];
/// The store states `bench algo` knows, in the order it builds them.
pub const STATES: [&str; 3] = ["memgraph", "tail20", "compacted"];

/// The systems measured in a state: the engine on a new snapshot after a
/// commit wrote to every page of vertices ("written"), on a new snapshot
/// with nothing written since the last ("new"), on that snapshot again
/// ("warm"), and the CSR beside them.
struct Names {
    written: &'static str,
    new: &'static str,
    warm: &'static str,
    beside: &'static str,
}

fn names(state: &str) -> Names {
    match state {
        "memgraph" => Names {
            written: "stratagraph-written",
            new: "stratagraph",
            warm: "stratagraph-warm",
            beside: "csr",
        },
        "tail20" => Names {
            written: "stratagraph-tail20-written",
            new: "stratagraph-tail20",
            warm: "stratagraph-tail20-warm",
            beside: "csr-beside-tail20",
        },
        _ => Names {
            written: "stratagraph-flushed-written",
            new: "stratagraph-flushed",
            warm: "stratagraph-flushed-warm",
            beside: "csr-beside-flushed",
        },
    }
}

/// One edge of `edges` per page of `PAGE_VERTICES` source ids, with its
/// own weight: written again before a "written" run, it changes no
/// kernel's result but makes every page of copied MemGraph reads stale.
fn one_edge_per_page(edges: &[(u64, u64, f64)]) -> Vec<(u64, u64, f64)> {
    let mut picked = std::collections::BTreeMap::new();
    for &e in edges {
        picked.entry(e.0 / PAGE_VERTICES).or_insert(e);
    }
    picked.into_values().collect()
}

/// Vertex ids per page of the engine's copied MemGraph reads (the index
/// page size, `stratagraph`'s `PAGE`; ids here are dense from 0).
const PAGE_VERTICES: u64 = 1024;

/// Runs the kernels on both systems, printing rows and the ratios.
///
/// # Errors
/// An unknown kernel or state, a missing or malformed workload file, a
/// kernel result that disagrees with the reference (or with the CSR), or
/// an engine error.
pub fn run(args: &AlgoArgs) -> Res<()> {
    for k in &args.kernels {
        if !KERNELS.contains(&k.as_str()) {
            return Err(format!("unknown kernel {k} (known: {})", KERNELS.join(",")).into());
        }
    }
    for st in &args.states {
        if !STATES.contains(&st.as_str()) {
            return Err(format!("unknown state {st} (known: {})", STATES.join(",")).into());
        }
    }
    let kernels: Vec<&str> = KERNELS
        .into_iter()
        .filter(|k| args.kernels.iter().any(|a| a == k))
        .collect();
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
    drop(pairs);
    let csr = CsrGraph::from_edges(&weighted, Some(&vertices), true, true)?;
    let source = csr
        .dense_id(reference.bfs_source)
        .ok_or("the BFS source is not a vertex")?;
    let rewrites = one_edge_per_page(&weighted);
    let bench = Bench {
        csr: &csr,
        source,
        reference: &reference,
        kernels: &kernels,
        args,
        rewrites: &rewrites,
    };
    let mut table = Table::new();
    let graph = files.graph_name();
    let wants = |st: &str| args.states.iter().any(|s| s == st);
    // Every edge in the MemGraph.
    if wants("memgraph") {
        let g = fresh_store(&vertices)?;
        g.insert_edges(&weighted)?;
        bench.measure(&g, "memgraph", &graph, &mut table)?;
    }
    if wants("tail20") || wants("compacted") {
        let g = fresh_store(&vertices)?;
        let split = weighted.len() * 4 / 5;
        g.insert_edges(&weighted[..split])?;
        g.compact()?;
        g.insert_edges(&weighted[split..])?;
        if wants("tail20") {
            let tail = g.stats().memory.entries;
            println!(
                "tail20: {tail} edge versions in the MemGraph ({:.1}% of {})",
                100.0 * tail as f64 / (2 * weighted.len()) as f64,
                2 * weighted.len()
            );
            bench.measure(&g, "tail20", &graph, &mut table)?;
        }
        if wants("compacted") {
            g.compact()?;
            bench.measure(&g, "compacted", &graph, &mut table)?;
        }
    }
    println!();
    println!(
        "kernel time on a snapshot / on the CSR run beside it, median of the runs' ratios (target <= 1.3 compacted, \
         <= 1.6 with 20% in MemGraph):"
    );
    for &threads in &args.threads {
        for &kernel in &kernels {
            let mut line = format!("  {kernel:>4} on {threads} thread(s):");
            for st in STATES.iter().filter(|s| wants(s)) {
                let n = names(st);
                let vs_csr = format!("{kernel}_vs_csr");
                let ratio = |s: &str| table.value(s, &vs_csr, threads).unwrap_or(f64::NAN);
                line += &format!(" {st} {:.2}x", ratio(n.new));
                let more: Vec<String> = [("after writes", n.written), ("warm", n.warm)]
                    .into_iter()
                    .filter(|&(_, system)| table.value(system, kernel, threads).is_some())
                    .map(|(what, system)| format!("{what} {:.2}x", ratio(system)))
                    .collect();
                if !more.is_empty() {
                    line += &format!(" ({})", more.join(", "));
                }
            }
            println!("{line}");
        }
    }
    if let Some(out) = &args.out {
        table.save(out)?;
        println!("rows written to {}", out.display());
    }
    Ok(())
}

/// An in-memory store holding `vertices` whose MemGraph never flushes by
/// itself: the bench decides what sits where.
fn fresh_store(vertices: &[u64]) -> Res<Graph> {
    let g = Graph::in_memory(Options {
        memgraph_bytes: usize::MAX,
        ..Options::default()
    });
    g.insert_vertices(vertices)?;
    Ok(g)
}

/// What every state's measurement shares.
struct Bench<'a> {
    csr: &'a CsrGraph,
    source: u32,
    reference: &'a Reference,
    kernels: &'a [&'a str],
    args: &'a AlgoArgs,
    /// Written again before each "written" run (see `one_edge_per_page`).
    rewrites: &'a [(u64, u64, f64)],
}

impl Bench<'_> {
    /// Runs every kernel on `g` and on the CSR, per run in this order:
    /// - "written": a batch first writes one edge per page of vertices
    ///   again, unchanged, then a fresh snapshot runs the kernel, so every
    ///   MemGraph page it reads is stale and copied again, written
    ///   vertices decided anew (what a run pays while writes go on);
    /// - "new": a fresh snapshot with nothing written since the last one,
    ///   which takes the pages the earlier one copied;
    /// - "warm": the kernel again on that same snapshot.
    ///
    /// Each fresh snapshot is taken inside its timing.
    fn measure(&self, g: &Graph, state: &str, graph: &str, table: &mut Table) -> Res<()> {
        if g.snapshot().internal_id(self.reference.bfs_source) != Some(self.source) {
            return Err("engine and CSR number the vertices differently".into());
        }
        let n = names(state);
        // A compacted store stays compacted: it has no MemGraph pages to
        // make stale.
        let rewrite = state != "compacted" && !self.args.fresh_only;
        let systems = [n.beside, n.written, n.new, n.warm];
        if self.args.fresh_only {
            // What the "written" runs would have left: every page of the
            // MemGraph's part copied once, so that "new" means the same
            // with or without them.
            let snap = g.snapshot();
            snap.scan_out_unordered(0..snap.id_bound(), |_, _| {});
            snap.scan_in_unordered(0..snap.id_bound(), |_, _| {});
        }
        for &threads in &self.args.threads {
            for &kernel in self.kernels {
                let mut times = [const { Vec::new() }; 4];
                let mut checks = [const { String::new() }; 4];
                for _ in 0..self.args.runs.max(1) {
                    let t = Instant::now();
                    let on_csr = self.kernel(self.csr, kernel, threads)?;
                    times[0].push(t.elapsed().as_secs_f64());
                    checks[0] = on_csr.check()?;
                    if rewrite {
                        g.insert_edges(self.rewrites)?;
                        let t = Instant::now();
                        let snap = g.snapshot();
                        let written = self.kernel(&snap, kernel, threads)?;
                        times[1].push(t.elapsed().as_secs_f64());
                        checks[1] = written.agrees_with(&on_csr)?;
                    }
                    let t = Instant::now();
                    let snap = g.snapshot();
                    let on_store = self.kernel(&snap, kernel, threads)?;
                    times[2].push(t.elapsed().as_secs_f64());
                    checks[2] = on_store.agrees_with(&on_csr)?;
                    if !self.args.fresh_only {
                        let t = Instant::now();
                        let again = self.kernel(&snap, kernel, threads)?;
                        times[3].push(t.elapsed().as_secs_f64());
                        checks[3] = again.agrees_with(&on_csr)?;
                    }
                }
                for (i, name) in systems.into_iter().enumerate() {
                    if times[i].is_empty() {
                        continue;
                    }
                    table.push(Row {
                        system: name,
                        graph: graph.to_string(),
                        op: kernel.to_string(),
                        threads,
                        value: median(&times[i]),
                        unit: "s",
                        checksum: checks[i].clone(),
                    });
                    if i > 0 {
                        let ratios: Vec<f64> =
                            times[i].iter().zip(&times[0]).map(|(s, c)| s / c).collect();
                        table.push(Row {
                            system: name,
                            graph: graph.to_string(),
                            op: format!("{kernel}_vs_csr"),
                            threads,
                            value: median(&ratios),
                            unit: "x",
                            checksum: String::new(),
                        });
                    }
                }
            }
        }
        Ok(())
    }

    /// Runs `kernel` on `g`: checked against the reference where it has
    /// figures, otherwise keeping the output for comparison.
    fn kernel<G: GraphView>(&self, g: &G, kernel: &str, threads: usize) -> Res<Outcome> {
        Ok(match kernel {
            "lcc" => Outcome::Values("lcc", lcc(g, threads)),
            "cdlp" => Outcome::Labels(cdlp(g, 10, threads)),
            "bc" => Outcome::Values("bc", betweenness_single_source(g, self.source, threads)),
            _ => Outcome::Checked(kernel_run(g, kernel, self.source, threads, self.reference)),
        })
    }
}

/// A kernel's result in a form that can be checked.
enum Outcome {
    /// Checked against the reference already: the checksum or the error.
    Checked(Result<String, Box<dyn std::error::Error>>),
    /// Per-vertex values (LCC, betweenness), compared within 1e-9.
    Values(&'static str, Vec<f64>),
    /// CDLP labels, compared exactly.
    Labels(Vec<u64>),
}

impl Outcome {
    /// The checksum of a result on the CSR.
    fn check(&self) -> Res<String> {
        match self {
            Outcome::Checked(r) => match r {
                Ok(c) => Ok(c.clone()),
                Err(e) => Err(e.to_string().into()),
            },
            Outcome::Values(name, v) => Ok(format!("{name}_sum={:.6}", v.iter().sum::<f64>())),
            Outcome::Labels(l) => {
                let mut distinct = l.clone();
                distinct.sort_unstable();
                distinct.dedup();
                Ok(format!("cdlp_labels={}", distinct.len()))
            }
        }
    }

    /// The checksum of a result on the store, which must agree with the
    /// CSR's result `csr` where there is no reference.
    fn agrees_with(&self, csr: &Outcome) -> Res<String> {
        match (self, csr) {
            (Outcome::Values(name, v), Outcome::Values(_, w)) => {
                if v.len() != w.len() {
                    return Err(
                        format!("{name}: {} values, the CSR has {}", v.len(), w.len()).into(),
                    );
                }
                for (i, (a, b)) in v.iter().zip(w).enumerate() {
                    if (a - b).abs() > 1e-9 * b.abs().max(1.0) {
                        return Err(format!("{name} of dense id {i}: {a}, the CSR has {b}").into());
                    }
                }
            }
            (Outcome::Labels(l), Outcome::Labels(m)) => {
                if let Some(i) = (0..l.len().max(m.len())).find(|&i| l.get(i) != m.get(i)) {
                    return Err(format!(
                        "cdlp label of dense id {i}: {:?}, the CSR has {:?}",
                        l.get(i),
                        m.get(i)
                    )
                    .into());
                }
            }
            _ => {}
        }
        self.check()
    }
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
