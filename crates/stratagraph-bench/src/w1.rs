//! `stratagraph bench w1`: every operation of workload W1
//! (`shared/WORKLOAD.md`) on stratagraph in memory and on disk, beside the
//! static CSR baseline, in one process and one run.
//!
//! Each operation is measured `runs` times from a fresh store and the
//! median is reported; every run's result is checked against the
//! generator's reference figures (`kS.ref.json`, `kS.ref_extra.json` or
//! WORKLOAD.md) before its time counts, and a disagreement ends the run
//! with an error. An operation the CSR cannot do gets an `n/a` row whose
//! checksum column gives the reason, so a missing figure is never silent.
//!
//! Order (as in WORKLOAD.md, delete_mixed last): memory, bulk_load,
//! insert_single, then on the graph that leaves (identical to `kS.bin`)
//! search_edge, scan_seq, scan_rand and the kernels, then TC on `kS_u.bin`,
//! batch_sizes, mixed_rw and delete_mixed.

use crate::algo::kernel_run;
use crate::latency::percentiles;
use crate::rows::{median, rss_bytes, Row, Table};
use crate::stream;
use crate::w1_files::{w1_weight, Reference, W1Files};
use crate::w1_reads::{check_identity, scan_rand, scan_seq, search, W1Reads};
pub use crate::w1_store::Home;

mod reads;
mod writes;
use crate::w1_store::Store;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;
use stratagraph::Snapshot;
use stratagraph_algo::{sssp, CsrGraph, GraphView};

/// Arguments of `bench w1`.
pub struct W1Args {
    /// Folder holding the generator's `kS.*` files.
    pub data: PathBuf,
    /// Kronecker scale S.
    pub scale: u32,
    /// Thread counts to measure.
    pub threads: Vec<usize>,
    /// Homes of the stratagraph store to measure.
    pub homes: Vec<Home>,
    /// Runs per operation; the median is reported.
    pub runs: usize,
    /// Also write the rows as TSV here.
    pub out: Option<PathBuf>,
    /// Where on-disk stores are created (default: `data`, so they live on
    /// the same file system as the workload, not in a RAM-backed /tmp).
    pub scratch: Option<PathBuf>,
    /// Operation groups to run (see [`GROUPS`]); empty runs all. At scale
    /// 20 a full run takes long (TC and batches of one edge dominate), so
    /// it can be split over several result files.
    pub ops: Vec<String>,
}

/// The operation groups `--ops` selects, in the order they run.
pub const GROUPS: [&str; 8] = [
    "memory",
    "bulk_load",
    "insert_single",
    "reads",
    "tc",
    "batch_sizes",
    "mixed_rw",
    "delete_mixed",
];

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const CSR: &str = "csr";
const CSR_NA: &str = "n/a: a static CSR cannot change; every update is a rebuild";
/// WORKLOAD.md's batch_sizes.
const BATCH_SIZES: [usize; 7] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];
const KERNELS: [&str; 4] = ["bfs", "pr", "wcc", "sssp"];

/// The workload, read once; every system gets the same slices of it.
struct Work {
    graph: String,
    reference: Reference,
    vertices: Vec<u64>,
    /// `kS.bin` in file order, with the W1 SSSP weights.
    edges: Vec<(u64, u64, f64)>,
    /// `kS_u.bin`, each undirected edge once (`u < v`).
    undirected: Vec<(u64, u64, f64)>,
    ops: Vec<(bool, u32, u32)>,
    searches: Vec<(u32, u32)>,
    perm: Vec<u32>,
}

impl Work {
    fn read(files: &W1Files) -> Res<Work> {
        let reference = files.reference()?;
        let graph = files.graph_name();
        let weighted = |(s, d): (u32, u32)| {
            let (s, d) = (u64::from(s), u64::from(d));
            (s, d, w1_weight(s, d))
        };
        let edges: Vec<_> = files.edges()?.into_iter().map(weighted).collect();
        if edges.len() as u64 != reference.edges {
            return Err(format!(
                "{graph}.bin holds {} edges but its reference says {}",
                edges.len(),
                reference.edges
            )
            .into());
        }
        let undirected = files
            .undirected_edges()?
            .into_iter()
            .filter(|&(s, d)| s < d)
            .map(weighted)
            .collect();
        let perm = files.permutation()?;
        if perm.len() as u64 != reference.vertices {
            return Err(format!(
                "{graph}.perm.bin lists {} ids for {} vertices",
                perm.len(),
                reference.vertices
            )
            .into());
        }
        Ok(Work {
            vertices: (0..reference.vertices).collect(),
            edges,
            undirected,
            ops: files.ops()?,
            searches: files.searches()?,
            perm,
            graph,
            reference,
        })
    }

    /// Where insert_single, batch_sizes and mixed_rw start: 80% loaded.
    fn split(&self) -> usize {
        self.edges.len() * 4 / 5
    }

    fn edge_check(&self) -> String {
        format!("edges={}", self.reference.edges)
    }

    fn csr(&self) -> Res<CsrGraph> {
        let csr = CsrGraph::from_edges(&self.edges, Some(&self.vertices), true, true)?;
        // Dense ids are external ids only if every id 0..n is a vertex.
        if csr.external_ids().len() as u64 != self.reference.vertices {
            return Err("the CSR does not number vertices by their file ids".into());
        }
        Ok(csr)
    }
}

/// Runs the whole workload, printing rows as they come.
///
/// # Errors
/// A missing or malformed workload file, a result that disagrees with a
/// reference figure, or an engine error.
pub fn run(args: &W1Args) -> Res<()> {
    if let Some(bad) = args.ops.iter().find(|o| !GROUPS.contains(&o.as_str())) {
        return Err(format!(
            "unknown operation group {bad:?} (one of {})",
            GROUPS.join(", ")
        )
        .into());
    }
    let wants = |group: &str| args.ops.is_empty() || args.ops.iter().any(|o| o == group);
    let files = W1Files::new(&args.data, args.scale);
    let work = Work::read(&files)?;
    let scratch = args.scratch.clone().unwrap_or_else(|| args.data.clone());
    let threads: Vec<usize> = args.threads.iter().map(|&t| t.max(1)).collect();
    let notes = vec![
        format!(
            "# workload: W1 {} from {} ({} vertices, {} edges)",
            work.graph,
            args.data.display(),
            work.reference.vertices,
            work.reference.edges
        ),
        format!("# runs: {} per operation, median reported", args.runs.max(1)),
        format!(
            "# operation groups: {}",
            if args.ops.is_empty() {
                "all".to_string()
            } else {
                args.ops.join(",")
            }
        ),
        "# stores: Options::default() (64 MiB MemGraph, background flushes); disk stores in a fresh directory under the scratch folder".into(),
        format!("# scratch: {}", scratch.display()),
        "# settled: before each timed phase the store is compact()ed (flushed and merged, the work close() does), which waits for background work".into(),
        "# durability: disk stores log every commit (SyncPolicy::Never: written to the OS, synced at flushes and close; synced commits: bench durability); disk bulk_load includes compact()".into(),
        "# latency: insert_single_pNN are nearest-rank percentiles of every commit's wall time (all samples kept), in microseconds".into(),
    ];
    let mut b = Bench {
        work: &work,
        scratch,
        runs: args.runs.max(1),
        threads,
        homes: args.homes.clone(),
        table: Table::with_notes(notes),
    };
    if wants("memory") {
        b.memory()?;
    }
    if wants("bulk_load") {
        b.bulk_load()?;
    }
    let after_inserts = if wants("insert_single") {
        b.insert_single()?
    } else {
        Vec::new()
    };
    if wants("reads") {
        b.reads(after_inserts)?;
    }
    if wants("tc") {
        b.triangles()?;
    }
    if wants("batch_sizes") {
        b.batch_sizes()?;
    }
    if wants("mixed_rw") {
        b.mixed_rw()?;
    }
    if wants("delete_mixed") {
        b.delete_mixed()?;
    }
    if let Some(out) = &args.out {
        b.table.save(out)?;
        println!("rows written to {}", out.display());
    }
    Ok(())
}

struct Bench<'a> {
    work: &'a Work,
    scratch: PathBuf,
    runs: usize,
    threads: Vec<usize>,
    homes: Vec<Home>,
    table: Table,
}

impl Bench<'_> {
    fn push(
        &mut self,
        system: &'static str,
        op: &str,
        threads: usize,
        value: f64,
        unit: &'static str,
        checksum: String,
    ) {
        self.table.push(Row {
            system,
            graph: self.work.graph.clone(),
            op: op.to_string(),
            threads,
            value,
            unit,
            checksum,
        });
    }

    /// An operation `system` cannot do, with the reason.
    fn na(&mut self, system: &'static str, op: &str, threads: usize, reason: &str) {
        self.push(system, op, threads, f64::NAN, "-", reason.to_string());
    }

    fn fresh(&self, home: Home, threads: usize) -> Res<Store> {
        Store::fresh(home, true, threads, &self.scratch)
    }

    /// Fails unless the store holds `want` edges.
    fn expect_edges(&self, store: &Store, want: u64, after: &str) -> Res<()> {
        let got = store.graph.snapshot().edge_count();
        if got != want {
            return Err(format!("after {after}: {got} edges, reference {want}").into());
        }
        Ok(())
    }

    /// RSS growth, accounted bytes and file bytes per edge after a bulk
    /// load. All systems stay alive until every one is measured, so none
    /// reuses memory another freed and each RSS delta is its own.
    fn memory(&mut self) -> Res<()> {
        let w = self.work;
        let n = w.reference.edges as f64;
        // Memory does not depend on the thread count; rows say 1 so they
        // line up with the peers' rows.
        let cores = 1;
        let before = rss_bytes();
        let csr = w.csr()?;
        let csr_rss = rss_bytes().saturating_sub(before);
        self.push(
            CSR,
            "memory_rss",
            cores,
            csr_rss as f64 / n,
            "bytes/edge",
            w.edge_check(),
        );
        let csr_bytes = csr.heap_bytes() as f64;
        self.push(
            CSR,
            "memory_accounted",
            cores,
            csr_bytes / n,
            "bytes/edge",
            w.edge_check(),
        );
        self.na(CSR, "disk_bytes", cores, "n/a: held in memory only");
        let mut stores = Vec::new();
        for home in self.homes.clone() {
            let before = rss_bytes();
            let s = self.fresh(home, 0)?;
            s.load(&w.vertices, &w.edges)?;
            s.settle()?;
            let rss = rss_bytes().saturating_sub(before);
            self.expect_edges(&s, w.reference.edges, "bulk load")?;
            let sys = home.system();
            self.push(
                sys,
                "memory_rss",
                cores,
                rss as f64 / n,
                "bytes/edge",
                w.edge_check(),
            );
            let accounted = s.graph.stats().total_bytes() as f64;
            self.push(
                sys,
                "memory_accounted",
                cores,
                accounted / n,
                "bytes/edge",
                w.edge_check(),
            );
            match s.disk_bytes() {
                Some(bytes) => {
                    self.push(
                        sys,
                        "disk_bytes",
                        cores,
                        bytes as f64 / n,
                        "bytes/edge",
                        w.edge_check(),
                    );
                }
                None => self.na(sys, "disk_bytes", cores, "n/a: in-memory store"),
            }
            stores.push(s);
        }
        drop((csr, stores));
        Ok(())
    }

    fn bulk_load(&mut self) -> Res<()> {
        let w = self.work;
        for t in self.threads.clone() {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build()?;
            let mut secs = Vec::new();
            for _ in 0..self.runs {
                let start = Instant::now();
                let csr = pool.install(|| w.csr().map_err(|e| e.to_string()))?;
                secs.push(start.elapsed().as_secs_f64());
                if csr.edge_count() != w.reference.edges {
                    return Err(format!("CSR holds {} edges", csr.edge_count()).into());
                }
            }
            self.push(CSR, "bulk_load", t, median(&secs), "s", w.edge_check());
            for home in self.homes.clone() {
                let mut secs = Vec::new();
                for _ in 0..self.runs {
                    let s = self.fresh(home, t)?;
                    let start = Instant::now();
                    s.load(&w.vertices, &w.edges)?;
                    if home.on_disk() {
                        s.settle()?;
                    }
                    secs.push(start.elapsed().as_secs_f64());
                    self.expect_edges(&s, w.reference.edges, "bulk_load")?;
                }
                self.push(
                    home.system(),
                    "bulk_load",
                    t,
                    median(&secs),
                    "s",
                    w.edge_check(),
                );
            }
        }
        Ok(())
    }
}
