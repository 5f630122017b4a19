//! `stratagraph bench levels`: the multi-level CSR's figures on a
//! W1 graph, each beside its baseline measured in the same process.
//!
//! - `scan_compacted`: the graph loaded in batches with the default MemGraph
//!   budget (so flushes and compactions run), then `Graph::compact`; a
//!   sequential scan of every out-list against the static CSR's, alternating
//!   run by run. `bytes_compacted`: the store's bytes (memory) or its
//!   directory's bytes (disk) against the CSR's heap bytes.
//! - `scan_tail20`: 80% loaded and compacted, the last 20% inserted in
//!   batches afterwards, so they sit in the MemGraph and L0; scanned the
//!   same way. Each run takes a fresh snapshot inside its timing, so the
//!   copy of the MemGraph's part a snapshot makes on its first scan
//!   (`mem_view`) counts; `scan_tail20_warm` scans that snapshot again,
//!   and `scan_tail20_unordered` scans it with `scan_out_unordered` (the
//!   scan kernels that need no order use).
//! - `insert_sustained`: every edge as its own transaction on one thread
//!   with the default budget (flushes and compactions included), against
//!   the same stream into a MemGraph that never flushes; p50/p99/p99.9
//!   commit latency and write amplification.
//!
//! Every scan's destination sum is checked against `kS.ref.json`. Each
//! scan's `*_vs_csr` row is the median of the runs' own ratios to the CSR
//! scan run beside them, the figure the targets are read from.

use super::latency::percentiles;
use super::rows::{median, Row, Table};
use super::w1_files::W1Files;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;
use stratagraph::{Graph, Options, SyncPolicy};
use stratagraph_algo::CsrGraph;

/// Arguments of `bench levels`.
pub struct LevelsArgs {
    /// Folder holding the generator's `kS.*` files.
    pub data: PathBuf,
    /// Kronecker scale S.
    pub scale: u32,
    /// Runs per operation; the median is reported.
    pub runs: usize,
    /// `memory` and/or `disk`.
    pub homes: Vec<String>,
    /// Where on-disk stores are created.
    pub dir: PathBuf,
    /// Skip the single-edge stream (the slowest part).
    pub skip_single: bool,
    /// Also write the rows as TSV here.
    pub out: Option<PathBuf>,
}

type Edges = Vec<(u64, u64, f64)>;
type BoxError = Box<dyn std::error::Error>;

/// Edges per batch when loading: large enough to be fast, small enough
/// that the default budget flushes several times during a load.
const LOAD_BATCH: usize = 1 << 20;

/// Runs the benchmark, printing rows and a summary against the targets.
///
/// # Errors
/// A missing or malformed workload file, a scan that disagrees with the
/// reference checksum, or an engine error.
pub fn run(args: &LevelsArgs) -> Result<(), BoxError> {
    let files = W1Files::new(&args.data, args.scale);
    let reference = files.reference()?;
    let pairs = files.edges()?;
    let edges: Edges = pairs
        .iter()
        .map(|&(s, d)| (u64::from(s), u64::from(d), 1.0))
        .collect();
    let vertices: Vec<u64> = (0..reference.vertices).collect();
    let graph = files.graph_name();
    let runs = args.runs.max(1);
    let mut table = Table::new();
    let row = |system: &'static str, op: &str, value: f64, unit: &'static str, check: String| Row {
        system,
        graph: graph.clone(),
        op: op.to_string(),
        threads: 1,
        value,
        unit,
        checksum: check,
    };
    let pairs64: Vec<(u64, u64)> = pairs
        .iter()
        .map(|&(s, d)| (u64::from(s), u64::from(d)))
        .collect();
    let csr = CsrGraph::from_pairs(&pairs64, Some(&vertices), true)?;
    let csr_bytes = csr.heap_bytes() as f64;
    table.push(row("csr", "bytes", csr_bytes, "B", String::new()));
    let expected = reference.sum_dst;
    let split = edges.len() * 4 / 5;

    for home in &args.homes {
        let system = if home == "disk" {
            "stratagraph-disk"
        } else {
            "stratagraph"
        };
        // Full load, compaction, scan and size.
        let (g, dir) = open(home, &args.dir, "full")?;
        g.insert_vertices(&vertices)?;
        for chunk in edges.chunks(LOAD_BATCH) {
            g.insert_edges(chunk)?;
        }
        g.compact()?;
        let times = scan_pair(&g, &csr, expected, runs)?;
        let check = format!("sum_dst={expected}");
        table.push(row("csr", "scan_compacted", times.csr, "s", check.clone()));
        table.push(row(
            system,
            "scan_compacted",
            times.cold,
            "s",
            check.clone(),
        ));
        let bytes = match &dir {
            Some(d) => dir_bytes(d)? as f64,
            None => g.stats().total_bytes() as f64,
        };
        times.ratio_rows(&mut table, &row, system, "scan_compacted", false);
        table.push(row(system, "bytes_compacted", bytes, "B", String::new()));
        eprintln!("# {system} compacted: {:?}", levels_summary(&g));
        g.close()?;
        drop(g);

        // 80% compacted, the last 20% above it.
        let (g, _dir) = open(home, &args.dir, "tail")?;
        g.insert_vertices(&vertices)?;
        for chunk in edges[..split].chunks(LOAD_BATCH) {
            g.insert_edges(chunk)?;
        }
        g.compact()?;
        for chunk in edges[split..].chunks(LOAD_BATCH / 8) {
            g.insert_edges(chunk)?;
        }
        // Background work finishes before the timing, as the CSR has none.
        g.wait_idle();
        let times = scan_pair(&g, &csr, expected, runs)?;
        table.push(row("csr", "scan_tail20", times.csr, "s", check.clone()));
        table.push(row(system, "scan_tail20", times.cold, "s", check.clone()));
        table.push(row(
            system,
            "scan_tail20_warm",
            times.warm,
            "s",
            check.clone(),
        ));
        let unordered = times.unordered;
        table.push(row(system, "scan_tail20_unordered", unordered, "s", check));
        times.ratio_rows(&mut table, &row, system, "scan_tail20", true);
        eprintln!(
            "# {system} with the last 20% on top: {:?}, MemGraph entries {}",
            levels_summary(&g),
            g.stats().memory.entries
        );
        g.close()?;
    }

    if !args.skip_single {
        sustained(&mut table, &row, &vertices, &edges, runs)?;
    }
    summary(&table);
    if let Some(path) = &args.out {
        table.save(path)?;
    }
    Ok(())
}

/// A fresh store at `home`: in memory, or in a new directory under `base`.
fn open(home: &str, base: &Path, name: &str) -> Result<(Graph, Option<PathBuf>), BoxError> {
    if home != "disk" {
        return Ok((Graph::in_memory(Options::default()), None));
    }
    let dir = base.join(format!("levels-{name}"));
    if dir.exists() {
        std::fs::remove_dir_all(&dir)?;
    }
    std::fs::create_dir_all(&dir)?;
    let opts = Options {
        sync: SyncPolicy::Never,
        ..Options::default()
    };
    Ok((Graph::open(&dir, opts)?, Some(dir)))
}

/// Bytes of every file in `dir`.
fn dir_bytes(dir: &Path) -> std::io::Result<u64> {
    let mut total = 0;
    for e in std::fs::read_dir(dir)? {
        total += e?.metadata()?.len();
    }
    Ok(total)
}

/// (level, parts, entries) per level, L0 as level 0.
fn levels_summary(g: &Graph) -> Vec<(u32, usize, u64)> {
    let mut out: Vec<(u32, usize, u64)> = Vec::new();
    for r in g.runs() {
        match out.last_mut() {
            Some(last) if last.0 == r.level => {
                last.1 += 1;
                last.2 += r.entries;
            }
            _ => out.push((r.level, 1, r.entries)),
        }
    }
    out
}

/// Medians of one scan pair's runs, in seconds.
struct ScanTimes {
    /// A fresh snapshot taken and scanned in order.
    cold: f64,
    /// The same snapshot scanned in order again.
    warm: f64,
    /// The same snapshot scanned with `scan_out_unordered`.
    unordered: f64,
    /// The static CSR's scan.
    csr: f64,
    /// Median over the runs of each run's cold, warm and unordered time
    /// divided by its CSR time.
    ratios: [f64; 3],
}

impl ScanTimes {
    /// Rows `{prefix}_vs_csr`, `{prefix}_warm_vs_csr` and
    /// `{prefix}_unordered_vs_csr` (the last two only with `all`).
    fn ratio_rows(
        &self,
        table: &mut Table,
        row: &impl Fn(&'static str, &str, f64, &'static str, String) -> Row,
        system: &'static str,
        prefix: &str,
        all: bool,
    ) {
        let names = ["_vs_csr", "_warm_vs_csr", "_unordered_vs_csr"];
        for (name, r) in names.iter().zip(self.ratios).take(if all { 3 } else { 1 }) {
            table.push(row(
                system,
                &format!("{prefix}{name}"),
                r,
                "x",
                String::new(),
            ));
        }
    }
}

/// The engine's scans of `g` beside the CSR's, alternating run by run,
/// every sum checked.
fn scan_pair(g: &Graph, csr: &CsrGraph, expected: u64, runs: usize) -> Result<ScanTimes, BoxError> {
    let mut times: [Vec<f64>; 4] = Default::default();
    let check = |what: &str, sum: u64| -> Result<(), BoxError> {
        if black_box(sum) != expected {
            return Err(format!("{what} summed {sum}, reference says {expected}").into());
        }
        Ok(())
    };
    let sum_of = |l: &[u32]| l.iter().map(|&d| u64::from(d)).sum::<u64>();
    for _ in 0..runs {
        let t = Instant::now();
        let snap = g.snapshot();
        let n = snap.id_bound();
        let mut sum = 0u64;
        snap.scan_out(0..n, |_, list| sum += sum_of(list));
        times[0].push(t.elapsed().as_secs_f64());
        check("engine scan", sum)?;
        let t = Instant::now();
        let mut sum = 0u64;
        snap.scan_out(0..n, |_, list| sum += sum_of(list));
        times[1].push(t.elapsed().as_secs_f64());
        check("engine scan, again", sum)?;
        let t = Instant::now();
        let mut sum = 0u64;
        snap.scan_out_unordered(0..n, |_, pieces| {
            sum += pieces.iter().map(|l| sum_of(l)).sum::<u64>();
        });
        times[2].push(t.elapsed().as_secs_f64());
        check("engine unordered scan", sum)?;
        let t = Instant::now();
        let mut sum = 0u64;
        for v in 0..n {
            sum += sum_of(csr.out_slice(v));
        }
        times[3].push(t.elapsed().as_secs_f64());
        check("CSR scan", sum)?;
    }
    // Each run's own ratio to the CSR scan of the same run, whose median
    // drifts in the machine's load cancel out of (the medians of the
    // times alone came from different moments).
    let ratio = |k: usize| {
        let r: Vec<f64> = times[k].iter().zip(&times[3]).map(|(e, c)| e / c).collect();
        median(&r)
    };
    Ok(ScanTimes {
        cold: median(&times[0]),
        warm: median(&times[1]),
        unordered: median(&times[2]),
        csr: median(&times[3]),
        ratios: [ratio(0), ratio(1), ratio(2)],
    })
}

/// Single-edge transactions over the whole graph on one thread, with the
/// default budget and with a MemGraph that never flushes, alternating.
fn sustained(
    table: &mut Table,
    row: &impl Fn(&'static str, &str, f64, &'static str, String) -> Row,
    vertices: &[u64],
    edges: &Edges,
    runs: usize,
) -> Result<(), BoxError> {
    let (mut with, mut without) = (Vec::new(), Vec::new());
    let mut lat = Vec::with_capacity(edges.len());
    let (mut wa, mut stalls) = (0.0, 0);
    let mut pcts = Vec::new();
    for _ in 0..runs {
        for flushing in [true, false] {
            let g = Graph::in_memory(Options {
                memgraph_bytes: if flushing {
                    Options::default().memgraph_bytes
                } else {
                    usize::MAX
                },
                ..Options::default()
            });
            g.insert_vertices(vertices)?;
            lat.clear();
            let t = Instant::now();
            for &(s, d, w) in edges {
                let t0 = Instant::now();
                g.insert_edge(s, d, w)?;
                lat.push(u64::try_from(t0.elapsed().as_nanos()).unwrap_or(u64::MAX));
            }
            let secs = t.elapsed().as_secs_f64();
            let rate = edges.len() as f64 / secs;
            if flushing {
                with.push(rate);
                let st = g.stats();
                wa = st.write_amplification;
                stalls = st.stalls;
                let p = percentiles(&mut lat);
                pcts.push([p.p50, p.p99, p.p999]);
            } else {
                without.push(rate);
            }
        }
    }
    // Each percentile's median over the runs, one row each.
    for (k, op) in [
        "insert_sustained_p50",
        "insert_sustained_p99",
        "insert_sustained_p999",
    ]
    .into_iter()
    .enumerate()
    {
        let per_run: Vec<f64> = pcts.iter().map(|p| p[k]).collect();
        table.push(row(
            "stratagraph",
            op,
            median(&per_run),
            "ns",
            String::new(),
        ));
    }
    let count = format!("edges={}", edges.len());
    table.push(row(
        "stratagraph",
        "insert_sustained",
        median(&with),
        "edges/s",
        count.clone(),
    ));
    table.push(row(
        "stratagraph",
        "insert_memgraph_only",
        median(&without),
        "edges/s",
        count,
    ));
    table.push(row(
        "stratagraph",
        "write_amplification",
        wa,
        "x",
        String::new(),
    ));
    table.push(row(
        "stratagraph",
        "stalls",
        stalls as f64,
        "count",
        String::new(),
    ));
    Ok(())
}

/// The levels' targets (scan and size against the static CSR), as ratios
/// read off the table.
fn summary(t: &Table) {
    let get = |s: &str, op: &str| t.value(s, op, 1).unwrap_or(f64::NAN);
    println!();
    println!("targets (multi-level CSR):");
    for system in ["stratagraph", "stratagraph-disk"] {
        if get(system, "scan_compacted").is_nan() {
            continue;
        }
        println!(
            "  {system}: compacted scan {:.2}x CSR (target <= 1.2), bytes {:.2}x CSR (target <= 1.5), \
             scan with 20% on top {:.2}x on a fresh snapshot, {:.2}x again, {:.2}x unordered \
             (target <= 1.6)",
            get(system, "scan_compacted_vs_csr"),
            get(system, "bytes_compacted") / get("csr", "bytes"),
            get(system, "scan_tail20_vs_csr"),
            get(system, "scan_tail20_warm_vs_csr"),
            get(system, "scan_tail20_unordered_vs_csr"),
        );
    }
    let with = get("stratagraph", "insert_sustained");
    if !with.is_nan() {
        println!(
            "  sustained single inserts {:.0}/s = {:.0}% of MemGraph-only {:.0}/s (target >= 70%); \
             write amplification {:.2}",
            with,
            100.0 * with / get("stratagraph", "insert_memgraph_only"),
            get("stratagraph", "insert_memgraph_only"),
            get("stratagraph", "write_amplification"),
        );
    }
}
