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
        "# settled: before each timed phase the store is close()d (flushed and merged), the public way to wait for background work".into(),
        "# durability: the engine has no write-ahead log yet; disk commits are not synced, disk bulk_load includes close()".into(),
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
                    if home == Home::Disk {
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

    /// 80% bulk-loaded, the rest one edge per transaction, with each
    /// commit's latency. Returns, per home, the store the last run left
    /// (settled), which holds exactly `kS.bin`: the reads run on it.
    fn insert_single(&mut self) -> Res<Vec<(Home, Store)>> {
        let w = self.work;
        let (head, tail) = w.edges.split_at(w.split());
        let mut after = Vec::new();
        for home in self.homes.clone() {
            let mut last = None;
            for t in self.threads.clone() {
                let (mut rates, mut p50, mut p99, mut p999) =
                    (Vec::new(), Vec::new(), Vec::new(), Vec::new());
                for _ in 0..self.runs {
                    let s = self.fresh(home, t)?;
                    s.load(&w.vertices, head)?;
                    s.settle()?;
                    let start = Instant::now();
                    let mut lat = stream::apply(tail, t, true, |&(a, b, wt)| {
                        s.graph.insert_edge(a, b, wt).map(drop)
                    })?;
                    rates.push(tail.len() as f64 / start.elapsed().as_secs_f64());
                    self.expect_edges(&s, w.reference.edges, "insert_single")?;
                    let p = percentiles(&mut lat);
                    p50.push(p.p50 / 1e3);
                    p99.push(p.p99 / 1e3);
                    p999.push(p.p999 / 1e3);
                    last = Some(s);
                }
                let sys = home.system();
                self.push(
                    sys,
                    "insert_single",
                    t,
                    median(&rates),
                    "edges/s",
                    w.edge_check(),
                );
                for (op, v) in [
                    ("insert_single_p50", &p50),
                    ("insert_single_p99", &p99),
                    ("insert_single_p999", &p999),
                ] {
                    self.push(sys, op, t, median(v), "us", w.edge_check());
                }
            }
            if let Some(s) = last {
                s.settle()?;
                after.push((home, s));
            }
        }
        for t in self.threads.clone() {
            self.na(CSR, "insert_single", t, CSR_NA);
        }
        Ok(after)
    }

    /// search_edge, scan_seq, scan_rand and the four kernels on the graph
    /// insert_single left (or, when it did not run, a bulk-loaded one),
    /// each run alternating the CSR and the stores.
    fn reads(&mut self, mut stores: Vec<(Home, Store)>) -> Res<()> {
        let w = self.work;
        let r = &w.reference;
        if stores.is_empty() {
            for home in self.homes.clone() {
                let s = self.fresh(home, 0)?;
                s.load(&w.vertices, &w.edges)?;
                s.settle()?;
                stores.push((home, s));
            }
        }
        let csr = w.csr()?;
        let snaps: Vec<(&'static str, Snapshot)> = stores
            .iter()
            .map(|(h, s)| (h.system(), s.graph.snapshot()))
            .collect();
        for (sys, snap) in &snaps {
            check_identity(snap).map_err(|e| format!("{sys}: {e}"))?;
            if snap.edge_count() != r.edges {
                return Err(format!("{sys}: {} edges before the reads", snap.edge_count()).into());
            }
        }
        let mut systems: Vec<(&'static str, &dyn W1Reads)> = vec![(CSR, &csr)];
        systems.extend(snaps.iter().map(|(sys, s)| (*sys, s as &dyn W1Reads)));
        let n = r.vertices as u32;
        for t in self.threads.clone() {
            let found = w.searches.len() as u64;
            let lookups = Some(w.searches.len());
            self.timed_reads(&systems, "search_edge", t, lookups, found, "found", |g| {
                search(g, &w.searches, t)
            })?;
            self.timed_reads(&systems, "scan_seq", t, None, r.sum_dst, "sum_dst", |g| {
                scan_seq(g, n, t)
            })?;
            self.timed_reads(&systems, "scan_rand", t, None, r.sum_dst, "sum_dst", |g| {
                scan_rand(g, &w.perm, t)
            })?;
        }
        let source = csr
            .dense_id(r.bfs_source)
            .ok_or("the BFS source is not a vertex")?;
        for t in self.threads.clone() {
            for kernel in KERNELS {
                let mut secs = vec![Vec::new(); snaps.len() + 1];
                let mut checks = vec![String::new(); snaps.len() + 1];
                for _ in 0..self.runs {
                    let start = Instant::now();
                    checks[0] = kernel_run(&csr, kernel, source, t, r)?;
                    secs[0].push(start.elapsed().as_secs_f64());
                    for (i, (_, snap)) in snaps.iter().enumerate() {
                        let start = Instant::now();
                        checks[i + 1] = kernel_run(snap, kernel, source, t, r)?;
                        secs[i + 1].push(start.elapsed().as_secs_f64());
                    }
                }
                let names = std::iter::once(CSR).chain(snaps.iter().map(|s| s.0));
                for (i, sys) in names.enumerate() {
                    self.push(sys, kernel, t, median(&secs[i]), "s", checks[i].clone());
                }
            }
        }
        Ok(())
    }

    /// Times `op` on every system, checking its result each run. With
    /// `rate_of = Some(items)` the row is items per second, else seconds.
    #[allow(clippy::too_many_arguments)]
    fn timed_reads(
        &mut self,
        systems: &[(&'static str, &dyn W1Reads)],
        op: &str,
        threads: usize,
        rate_of: Option<usize>,
        expected: u64,
        what: &str,
        f: impl Fn(&dyn W1Reads) -> u64,
    ) -> Res<()> {
        let mut secs = vec![Vec::new(); systems.len()];
        for _ in 0..self.runs {
            for (i, &(sys, g)) in systems.iter().enumerate() {
                let start = Instant::now();
                let got = std::hint::black_box(f(g));
                secs[i].push(start.elapsed().as_secs_f64());
                if got != expected {
                    return Err(format!("{sys} {op}: {what} {got}, reference {expected}").into());
                }
            }
        }
        for (i, &(sys, _)) in systems.iter().enumerate() {
            let (value, unit) = match rate_of {
                Some(items) => (items as f64 / median(&secs[i]), "ops/s"),
                None => (median(&secs[i]), "s"),
            };
            self.push(sys, op, threads, value, unit, format!("{what}={expected}"));
        }
        Ok(())
    }

    /// TC on `kS_u.bin`, loaded into an undirected store per home.
    fn triangles(&mut self) -> Res<()> {
        let w = self.work;
        let r = &w.reference;
        let csr = CsrGraph::from_edges(&w.undirected, Some(&w.vertices), false, false)?;
        let mut stores = Vec::new();
        for home in self.homes.clone() {
            let s = Store::fresh(home, false, 0, &self.scratch)?;
            s.load(&w.vertices, &w.undirected)?;
            s.settle()?;
            stores.push((home.system(), s));
        }
        let snaps: Vec<(&'static str, Snapshot)> = stores
            .iter()
            .map(|(sys, s)| (*sys, s.graph.snapshot()))
            .collect();
        for t in self.threads.clone() {
            let mut secs = vec![Vec::new(); snaps.len() + 1];
            let mut checks = vec![String::new(); snaps.len() + 1];
            for _ in 0..self.runs {
                let start = Instant::now();
                checks[0] = kernel_run(&csr, "tc", 0, t, r)?;
                secs[0].push(start.elapsed().as_secs_f64());
                for (i, (_, snap)) in snaps.iter().enumerate() {
                    let start = Instant::now();
                    checks[i + 1] = kernel_run(snap, "tc", 0, t, r)?;
                    secs[i + 1].push(start.elapsed().as_secs_f64());
                }
            }
            let names = std::iter::once(CSR).chain(snaps.iter().map(|s| s.0));
            for (i, sys) in names.enumerate() {
                self.push(sys, "tc", t, median(&secs[i]), "s", checks[i].clone());
            }
        }
        Ok(())
    }

    /// 80% bulk-loaded, the rest in atomic batches of each W1 size.
    fn batch_sizes(&mut self) -> Res<()> {
        let w = self.work;
        let (head, tail) = w.edges.split_at(w.split());
        for t in self.threads.clone() {
            for size in BATCH_SIZES {
                let op = format!("batch_sizes_{size}");
                for home in self.homes.clone() {
                    let mut rates = Vec::new();
                    for _ in 0..self.runs {
                        let s = self.fresh(home, t)?;
                        s.load(&w.vertices, head)?;
                        s.settle()?;
                        let start = Instant::now();
                        for chunk in tail.chunks(size) {
                            s.graph.insert_edges(chunk)?;
                        }
                        rates.push(tail.len() as f64 / start.elapsed().as_secs_f64());
                        self.expect_edges(&s, w.reference.edges, &op)?;
                    }
                    let check = format!(
                        "edges={};batches={}",
                        w.reference.edges,
                        tail.len().div_ceil(size)
                    );
                    self.push(home.system(), &op, t, median(&rates), "edges/s", check);
                }
                self.na(CSR, &op, t, CSR_NA);
            }
        }
        Ok(())
    }

    /// One thread inserts the last 20% one edge per transaction while
    /// another runs SSSP on fresh snapshots; both as ratios to the same
    /// operation alone (insert_single and sssp on 1 thread, measured above).
    fn mixed_rw(&mut self) -> Res<()> {
        let w = self.work;
        let r = &w.reference;
        let (head, tail) = w.edges.split_at(w.split());
        for home in self.homes.clone() {
            let (mut rates, mut sssp_secs, mut rounds) = (Vec::new(), Vec::new(), 0usize);
            let mut final_check = String::new();
            for _ in 0..self.runs {
                let s = self.fresh(home, 1)?;
                s.load(&w.vertices, head)?;
                s.settle()?;
                let source = s
                    .graph
                    .snapshot()
                    .internal_id(r.bfs_source)
                    .ok_or("the BFS source is not a vertex")?;
                let done = AtomicBool::new(false);
                let (insert_secs, times) = std::thread::scope(|scope| -> Res<_> {
                    let reader = scope.spawn(|| -> Result<Vec<f64>, String> {
                        let mut times = Vec::new();
                        loop {
                            let snap = s.graph.snapshot();
                            let start = Instant::now();
                            let dist = sssp(&snap, source, 1).map_err(|e| e.to_string())?;
                            times.push(start.elapsed().as_secs_f64());
                            std::hint::black_box(dist);
                            if done.load(Ordering::Acquire) {
                                return Ok(times);
                            }
                        }
                    });
                    let start = Instant::now();
                    let written = stream::apply(tail, 1, false, |&(a, b, wt)| {
                        s.graph.insert_edge(a, b, wt).map(drop)
                    });
                    let secs = start.elapsed().as_secs_f64();
                    done.store(true, Ordering::Release);
                    let times = reader
                        .join()
                        .unwrap_or_else(|p| std::panic::resume_unwind(p))?;
                    written?;
                    Ok((secs, times))
                })?;
                self.expect_edges(&s, r.edges, "mixed_rw")?;
                final_check = kernel_run(&s.graph.snapshot(), "sssp", source, 1, r)?;
                rates.push(tail.len() as f64 / insert_secs);
                sssp_secs.push(median(&times));
                rounds += times.len();
            }
            let sys = home.system();
            let check = format!("edges={};final_sssp_{final_check}", r.edges);
            let rate = median(&rates);
            let secs = median(&sssp_secs);
            self.push(sys, "mixed_rw_insert", 2, rate, "edges/s", check.clone());
            self.push(sys, "mixed_rw_sssp", 2, secs, "s", check.clone());
            let alone_rate = self.table.value(sys, "insert_single", 1);
            let alone_sssp = self.table.value(sys, "sssp", 1);
            match (alone_rate, alone_sssp) {
                (Some(ins), Some(ss)) => {
                    self.push(
                        sys,
                        "mixed_rw_insert_ratio",
                        2,
                        rate / ins,
                        "x",
                        check.clone(),
                    );
                    self.push(sys, "mixed_rw_sssp_ratio", 2, secs / ss, "x", check);
                }
                _ => {
                    let why =
                        "n/a: the ratio needs insert_single and sssp on 1 thread in the same run";
                    self.na(sys, "mixed_rw_insert_ratio", 2, why);
                    self.na(sys, "mixed_rw_sssp_ratio", 2, why);
                }
            }
            println!("# {sys} mixed_rw: {rounds} SSSP runs during the inserts");
        }
        for op in ["mixed_rw_insert", "mixed_rw_sssp"] {
            self.na(CSR, op, 2, CSR_NA);
        }
        Ok(())
    }

    /// The delete_mixed stream, one operation per transaction, on the full
    /// graph; the edge count (and sum of ids) after it are checked.
    fn delete_mixed(&mut self) -> Res<()> {
        let w = self.work;
        let r = &w.reference;
        let want = Reference::require(r.edges_after_ops, "edge count after delete_mixed")?;
        for t in self.threads.clone() {
            for home in self.homes.clone() {
                let mut rates = Vec::new();
                for _ in 0..self.runs {
                    let s = self.fresh(home, t)?;
                    s.load(&w.vertices, &w.edges)?;
                    s.settle()?;
                    let start = Instant::now();
                    stream::apply(&w.ops, t, false, |&(insert, a, b)| {
                        let (a, b) = (u64::from(a), u64::from(b));
                        if insert {
                            s.graph.insert_edge(a, b, w1_weight(a, b)).map(drop)
                        } else {
                            s.graph.delete_edge(a, b).map(drop)
                        }
                    })?;
                    rates.push(w.ops.len() as f64 / start.elapsed().as_secs_f64());
                    self.expect_edges(&s, want, "delete_mixed")?;
                    if let Some(sum) = r.sum_dst_after_ops {
                        let got = scan_seq(&s.graph.snapshot(), r.vertices as u32, 1);
                        if got != sum {
                            return Err(format!(
                                "after delete_mixed: sum of destination ids {got}, reference {sum}"
                            )
                            .into());
                        }
                    }
                }
                let check = format!("edges_after={want}");
                self.push(
                    home.system(),
                    "delete_mixed",
                    t,
                    median(&rates),
                    "ops/s",
                    check,
                );
            }
            self.na(CSR, "delete_mixed", t, CSR_NA);
        }
        Ok(())
    }
}
