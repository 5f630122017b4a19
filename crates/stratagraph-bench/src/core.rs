//! `stratagraph bench core`: the engine-core figures on a W1
//! graph, each beside its static-CSR baseline in the same process.
//!
//! Operations (median of `--runs` runs each):
//! - `bulk_load`: all vertices, then every edge of `kS.bin` in one batch,
//!   which a store with no edge writes straight into a CSR level (`lsm::bulk`
//!   in the engine); `bulk_load_memgraph`: the same with that turned off,
//!   so the batch goes through the MemGraph;
//! - `batch_insert`: after loading 80% (in bulk), the rest in batches of
//!   `--batch`;
//! - `insert_single`: after loading 80% (in bulk), the rest one edge per
//!   transaction, on 1 and 2 threads;
//! - `scan_seq`: every out-neighbour of every vertex in id order, summing
//!   destination ids (checked against `kS.ref.json`), on the graph loaded
//!   through the MemGraph (the MemGraph's own scan), again after the
//!   single-edge stream, and as `scan_seq_bulk` on the bulk-loaded graph;
//!   the CSR scan runs alternately;
//! - `memory`: bytes per directed edge as the engine accounts it, and RSS,
//!   for the MemGraph and (`memory_bulk`) for the bulk-loaded run;
//! - `flush`, `memory_after_flush`, `scan_seq_flushed`: the graph loaded
//!   through the MemGraph written into one run below an empty MemGraph,
//!   and scanned there.

use super::rows::{median, rss_bytes, Row, Table};
use super::w1_files::W1Files;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;
use stratagraph::{Graph, Options, Snapshot};
use stratagraph_algo::CsrGraph;

/// Arguments of `bench core`.
pub struct CoreArgs {
    /// Folder holding the generator's `kS.*` files.
    pub data: PathBuf,
    /// Kronecker scale S.
    pub scale: u32,
    /// Runs per operation; the median is reported.
    pub runs: usize,
    /// Batch size of `batch_insert`.
    pub batch: usize,
    /// Also write the rows as TSV here.
    pub out: Option<PathBuf>,
    /// Operation groups to run (`batch`, `single`); empty runs all. The
    /// bulk load, memory and first scan always run.
    pub ops: Vec<String>,
}

impl CoreArgs {
    fn wants(&self, group: &str) -> bool {
        self.ops.is_empty() || self.ops.iter().any(|o| o == group)
    }
}

type Edges = Vec<(u64, u64, f64)>;

/// Runs the benchmark, printing rows and a summary against the core targets.
///
/// # Errors
/// A missing or malformed workload file, a result that disagrees with the
/// reference checksums, or an engine error.
pub fn run(args: &CoreArgs) -> Result<(), Box<dyn std::error::Error>> {
    let files = W1Files::new(&args.data, args.scale);
    let reference = files.reference()?;
    let pairs = files.edges()?;
    if pairs.len() as u64 != reference.edges {
        return Err(format!(
            "{} holds {} edges but its reference says {}",
            files.graph_name(),
            pairs.len(),
            reference.edges
        )
        .into());
    }
    let edges: Edges = pairs
        .iter()
        .map(|&(s, d)| (u64::from(s), u64::from(d), 1.0))
        .collect();
    let vertices: Vec<u64> = (0..reference.vertices).collect();
    let split = edges.len() * 4 / 5;
    let graph = files.graph_name();
    let cores = rayon::current_num_threads();
    let runs = args.runs.max(1);
    let mut table = Table::new();
    let row = |system, op: &str, threads, value, unit, checksum: String| Row {
        system,
        graph: graph.clone(),
        op: op.to_string(),
        threads,
        value,
        unit,
        checksum,
    };

    // Baseline build and the engine's two loads, alternating.
    let (mut csr_secs, mut load_secs, mut bulk_secs) = (Vec::new(), Vec::new(), Vec::new());
    let mut csr = None;
    let mut loaded = None;
    let mut bulk_loaded = None;
    let mut rss_delta = 0;
    for _ in 0..runs {
        drop(bulk_loaded.take());
        let t = Instant::now();
        bulk_loaded = Some(load(&vertices, &edges, true)?);
        bulk_secs.push(t.elapsed().as_secs_f64());

        drop(csr.take());
        let t = Instant::now();
        let pairs64: Vec<(u64, u64)> = pairs
            .iter()
            .map(|&(s, d)| (u64::from(s), u64::from(d)))
            .collect();
        csr = Some(CsrGraph::from_pairs(&pairs64, Some(&vertices), true)?);
        csr_secs.push(t.elapsed().as_secs_f64());

        // RSS grows only on the first load; later ones reuse freed memory.
        let first = loaded.is_none();
        drop(loaded.take());
        let rss_before = rss_bytes();
        let t = Instant::now();
        let g = load(&vertices, &edges, false)?;
        load_secs.push(t.elapsed().as_secs_f64());
        if first {
            rss_delta = rss_bytes().saturating_sub(rss_before);
        }
        loaded = Some(g);
    }
    let (Some(csr), Some(g), Some(bulk)) = (csr, loaded, bulk_loaded) else {
        unreachable!("runs >= 1");
    };
    let n_edges = edges.len() as f64;
    let count = format!("edges={}", edges.len());
    table.push(row(
        "csr",
        "build",
        cores,
        median(&csr_secs),
        "s",
        count.clone(),
    ));
    for (op, secs) in [
        ("bulk_load", &bulk_secs),
        ("bulk_load_memgraph", &load_secs),
    ] {
        table.push(row(
            "stratagraph",
            op,
            cores,
            median(secs),
            "s",
            count.clone(),
        ));
        table.push(row(
            "stratagraph",
            &format!("{op}_rate"),
            cores,
            n_edges / median(secs),
            "edges/s",
            count.clone(),
        ));
    }

    let stats = g.stats();
    if stats.edges != reference.edges {
        return Err(format!("loaded {} edges, expected {}", stats.edges, reference.edges).into());
    }
    println!(
        "# memory: slots {} B, tables {} B, adjacency {} B, {} entries, id map {} B",
        stats.memory.slot_bytes,
        stats.memory.table_bytes,
        stats.memory.adjacency_bytes,
        stats.memory.entries,
        stats.id_bytes
    );
    let memory_row = |op, stats: &stratagraph::Stats| {
        row(
            "stratagraph",
            op,
            cores,
            stats.total_bytes() as f64 / n_edges,
            "bytes/edge",
            format!("bytes={}", stats.total_bytes()),
        )
    };
    table.push(memory_row("memory_accounted", &stats));
    table.push(row(
        "stratagraph",
        "memory_rss_first_load",
        cores,
        rss_delta as f64 / n_edges,
        "bytes/edge",
        format!("bytes={rss_delta}"),
    ));
    table.push(row(
        "csr",
        "memory_accounted",
        1,
        csr.heap_bytes() as f64 / n_edges,
        "bytes/edge",
        String::new(),
    ));

    scan_rows(
        &mut table,
        &row,
        "scan_seq",
        &g.snapshot(),
        &csr,
        reference.sum_dst,
        runs,
    )?;
    let bulk_stats = bulk.stats();
    let filled = bulk_stats.levels.iter().filter(|l| l.parts > 0).count();
    if bulk_stats.edges != reference.edges || bulk_stats.runs != 0 || filled != 1 {
        return Err(format!(
            "the bulk load holds {} edges in {} runs and {filled} levels, expected {} in one level",
            bulk_stats.edges, bulk_stats.runs, reference.edges
        )
        .into());
    }
    table.push(memory_row("memory_bulk", &bulk_stats));
    scan_rows(
        &mut table,
        &row,
        "scan_seq_bulk",
        &bulk.snapshot(),
        &csr,
        reference.sum_dst,
        runs,
    )?;
    drop(bulk);

    // The same graph flushed into one run below an empty MemGraph: where
    // the LSM levels keep most of a graph.
    let t = Instant::now();
    g.flush()?;
    table.push(row(
        "stratagraph",
        "flush",
        1,
        t.elapsed().as_secs_f64(),
        "s",
        String::new(),
    ));
    table.push(memory_row("memory_after_flush", &g.stats()));
    scan_rows(
        &mut table,
        &row,
        "scan_seq_flushed",
        &g.snapshot(),
        &csr,
        reference.sum_dst,
        runs,
    )?;
    drop(g);

    // Batches after an 80% load.
    let mut batch_secs = Vec::new();
    for _ in 0..runs * usize::from(args.wants("batch")) {
        let g = load(&vertices, &edges[..split], true)?;
        let t = Instant::now();
        for chunk in edges[split..].chunks(args.batch.max(1)) {
            g.insert_edges(chunk)?;
        }
        batch_secs.push(t.elapsed().as_secs_f64());
    }
    let tail = (edges.len() - split) as f64;
    if args.wants("batch") {
        table.push(row(
            "stratagraph",
            &format!("batch_insert_{}", args.batch),
            cores,
            tail / median(&batch_secs),
            "edges/s",
            format!("edges={}", edges.len() - split),
        ));
    }

    // Single-edge transactions after an 80% load, on 1 and 2 threads.
    let mut after_singles = None;
    let thread_counts: &[usize] = if args.wants("single") { &[1, 2] } else { &[] };
    for &threads in thread_counts {
        let mut secs = Vec::new();
        for _ in 0..runs {
            let g = load(&vertices, &edges[..split], true)?;
            let t = Instant::now();
            crate::stream::apply(&edges[split..], threads, false, |&(s, d, w)| {
                g.insert_edge(s, d, w).map(drop)
            })?;
            secs.push(t.elapsed().as_secs_f64());
            after_singles = Some(g);
        }
        table.push(row(
            "stratagraph",
            "insert_single",
            threads,
            tail / median(&secs),
            "edges/s",
            format!("edges={}", edges.len() - split),
        ));
    }
    if let Some(g) = after_singles {
        let stats = g.stats();
        table.push(memory_row("memory_after_singles", &stats));
        scan_rows(
            &mut table,
            &row,
            "scan_seq_after_singles",
            &g.snapshot(),
            &csr,
            reference.sum_dst,
            runs,
        )?;
    }

    summary(&table);
    if let Some(out) = &args.out {
        table.save(out)?;
        println!("rows written to {}", out.display());
    }
    Ok(())
}

/// A fresh in-memory graph holding all `vertices` (so internal ids equal
/// the file's ids) and `edges`, with no automatic flush: the edges go into
/// a level in `bulk`, else into the MemGraph (the MemGraph's own figures).
fn load(vertices: &[u64], edges: &[(u64, u64, f64)], bulk: bool) -> stratagraph::Result<Graph> {
    let g = Graph::in_memory(Options {
        memgraph_bytes: usize::MAX,
        // Any size goes in bulk, so small test graphs take the same path.
        bulk_load_min_edges: if bulk { 1 } else { usize::MAX },
        ..Options::default()
    });
    g.insert_vertices(vertices)?;
    g.insert_edges(edges)?;
    Ok(g)
}

#[allow(clippy::too_many_arguments)]
fn scan_rows(
    table: &mut Table,
    row: &impl Fn(&'static str, &str, usize, f64, &'static str, String) -> Row,
    op: &str,
    snap: &Snapshot,
    csr: &CsrGraph,
    expected: u64,
    runs: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    // Internal ids equal the file's ids because `load` created the vertices
    // in id order first; check it so the checksum means what it says.
    if let Some(v) = snap
        .vertices()
        .find(|&v| snap.external_id(v) != Some(u64::from(v)))
    {
        return Err(format!("internal id {v} does not match its external id").into());
    }
    let n = snap.id_bound();
    let (mut engine, mut iter, mut base) = (Vec::new(), Vec::new(), Vec::new());
    let (mut sums, mut iter_sums, mut base_sums) = (0, 0, 0);
    let (mut bulk, mut bulk_sums) = (Vec::new(), 0);
    for _ in 0..runs {
        let t = Instant::now();
        let mut sum = 0u64;
        for v in 0..n {
            snap.for_each_out_of(v, |d| sum += u64::from(d));
        }
        engine.push(t.elapsed().as_secs_f64());
        sums = black_box(sum);

        let t = Instant::now();
        let mut sum = 0u64;
        for v in 0..n {
            sum += snap.out_neighbors_of(v).map(u64::from).sum::<u64>();
        }
        iter.push(t.elapsed().as_secs_f64());
        iter_sums = black_box(sum);

        let t = Instant::now();
        let mut sum = 0u64;
        snap.scan_out(0..n, |_, list| {
            sum += list.iter().map(|&d| u64::from(d)).sum::<u64>();
        });
        bulk.push(t.elapsed().as_secs_f64());
        bulk_sums = black_box(sum);

        let t = Instant::now();
        let mut sum = 0u64;
        for v in 0..n {
            sum += csr.out_slice(v).iter().map(|&d| u64::from(d)).sum::<u64>();
        }
        base.push(t.elapsed().as_secs_f64());
        base_sums = black_box(sum);
    }
    for (what, s) in [
        ("engine", sums),
        ("iterator", iter_sums),
        ("sequential", bulk_sums),
        ("csr", base_sums),
    ] {
        if s != expected {
            return Err(format!("{op}: {what} scan summed {s}, reference says {expected}").into());
        }
    }
    let check = format!("sum_dst={expected}");
    table.push(row("csr", op, 1, median(&base), "s", check.clone()));
    table.push(row(
        "stratagraph",
        op,
        1,
        median(&engine),
        "s",
        check.clone(),
    ));
    table.push(row(
        "stratagraph",
        &format!("{op}_iter"),
        1,
        median(&iter),
        "s",
        check.clone(),
    ));
    table.push(row(
        "stratagraph",
        &format!("{op}_sequential"),
        1,
        median(&bulk),
        "s",
        check,
    ));
    Ok(())
}

/// The core targets (load, batch and single-edge rates, scans and memory
/// against the static CSR), as ratios read off the table.
fn summary(t: &Table) {
    let get = |s: &str, op: &str, th| t.value(s, op, th).unwrap_or(f64::NAN);
    println!();
    println!("targets (engine core):");
    println!(
        "  single-edge txns, 1 thread: {:.2}M edges/s (target >= 1M)",
        get("stratagraph", "insert_single", 1) / 1e6
    );
    println!(
        "  single-edge txns, 2 threads: {:.2}M edges/s",
        get("stratagraph", "insert_single", 2) / 1e6
    );
    let cores = rayon::current_num_threads();
    println!(
        "  bulk load: {:.2}M edges/s (target >= 10M; through the MemGraph {:.2}M)",
        get("stratagraph", "bulk_load_rate", cores) / 1e6,
        get("stratagraph", "bulk_load_memgraph_rate", cores) / 1e6
    );
    for op in ["scan_seq", "scan_seq_after_singles", "scan_seq_bulk"] {
        println!(
            "  {op}: {:.2}x the CSR scan (iterator {:.2}x, scan_out {:.2}x; target <= 3x)",
            get("stratagraph", op, 1) / get("csr", op, 1),
            get("stratagraph", &format!("{op}_iter"), 1) / get("csr", op, 1),
            get("stratagraph", &format!("{op}_sequential"), 1) / get("csr", op, 1)
        );
    }
    println!(
        "  memory: {:.1} bytes/edge accounted in the MemGraph (target <= 24); {:.1} bulk-loaded",
        get("stratagraph", "memory_accounted", cores),
        get("stratagraph", "memory_bulk", cores)
    );
    println!("flushed into one run:");
    let csr_flushed = get("csr", "scan_seq_flushed", 1);
    println!(
        "  scan_seq_flushed: scan_out {:.2}x the CSR scan (for_each {:.2}x, iterator {:.2}x; target <= 1.2x)",
        get("stratagraph", "scan_seq_flushed_sequential", 1) / csr_flushed,
        get("stratagraph", "scan_seq_flushed", 1) / csr_flushed,
        get("stratagraph", "scan_seq_flushed_iter", 1) / csr_flushed
    );
    println!(
        "  memory after flush: {:.1} bytes/edge (CSR {:.1}; target <= 1.5x)",
        get("stratagraph", "memory_after_flush", cores),
        get("csr", "memory_accounted", 1)
    );
}
