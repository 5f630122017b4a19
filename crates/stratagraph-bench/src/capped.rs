//! W1 on one on-disk store, one phase per process, so that each phase can
//! run under a memory cap (`bench/memcap.py`) smaller than the store: the
//! scale-24 runs of issue 32 and LSMGraph's protocol (80% loaded, the last
//! 20% inserted one edge per commit, the delete_mixed stream last).
//!
//! `bench w1` holds the whole workload in memory (24 bytes an edge, twice)
//! to give every system the same slices; at scale 24 that alone is over
//! 12 GB. Here nothing is held per edge: the edge file is read in bounded
//! pieces as it is loaded or inserted, the permutation in pieces as it is
//! scanned, and only the 1M-entry search and op files are read whole. What
//! a phase holds is the engine's own memory and the kernels' per-vertex
//! arrays, which is what a cap should measure.
//!
//! Phases, in the order they build on each other:
//! - `load`: creates the store, every vertex `0..2^S` first (so internal
//!   ids are the files' ids), then the first 80% of `kS.bin` in batches;
//!   closes the store (flush and merge, so the load is durable).
//! - `insert_single`: the remaining 20%, one edge per commit, in file
//!   order; checks the edge count against the reference; closes.
//! - `reads`: opens read-only; search_edge, scan_seq, scan_rand, then BFS,
//!   PageRank, WCC and SSSP, each checked against the references, each
//!   with a row of the bytes it had read from storage (`OP_read_bytes`).
//! - `delete_mixed`: applies `kS.ops.bin`; checks the edge count after it.
//! - `mix`: Aster's mixes (Poly-LSM paper §5) on the store `load` leaves:
//!   a given share of GetNeighbors (a uniformly drawn vertex's out-list,
//!   each on a fresh snapshot) among AddEdges (the next edge of the last
//!   20% of `kS.bin`, one per commit), under one update policy
//!   (`Options::update_policy`). The checksum, a sum over every list read,
//!   must be the same under every policy. The store is changed: run it on
//!   a copy of the loaded store.

use crate::algo::kernel_run;
use crate::rows::{storage_read_bytes, Row, Table};
use crate::w1_files::{stream_u32s, w1_weight, Reference, W1Files};
use crate::w1_reads::{check_identity, scan_rand, scan_seq, search};
use crate::w1_store::dir_bytes;
use std::path::PathBuf;
use std::time::Instant;
use stratagraph::{Graph, Options, SyncPolicy, UpdatePolicy};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// The phases, in the order they run on one store.
pub const PHASES: [&str; 5] = ["load", "insert_single", "reads", "delete_mixed", "mix"];

/// The update policies the `mix` phase takes by name.
pub const POLICIES: [&str; 3] = ["delta", "pivot", "adaptive"];

/// The reads of the `reads` phase, in the order they run.
pub const READS: [&str; 7] = [
    "search_edge",
    "scan_seq",
    "scan_rand",
    "bfs",
    "pr",
    "wcc",
    "sssp",
];

/// Edges per batch of the load when no memory is given (as `stratagraph
/// load`).
const BATCH: usize = 1 << 20;
/// Memory a batch edge takes while it is parsed, sorted and applied (as
/// `stratagraph load` counts it).
const BATCH_EDGE_BYTES: usize = 110;
/// Vertex ids created per `insert_vertices` call.
const VERTEX_BATCH: u64 = 1 << 20;
/// Entries of the permutation read per piece of scan_rand.
const PERM_PIECE: usize = 1 << 16;

/// What `stratagraph bench capped` was asked for.
pub struct CappedArgs {
    /// Folder of the generator's `kS.*` files.
    pub data: PathBuf,
    /// Scale S.
    pub scale: u32,
    /// The store's directory (`load` creates it; it must not exist).
    pub store: PathBuf,
    /// One of [`PHASES`].
    pub phase: String,
    /// Memory for the store's MemGraph and the load's batches, as
    /// `stratagraph load --memory` takes it (an eighth each; 0: defaults).
    pub memory: usize,
    /// Threads for the reads and kernels (and the store's batch writes).
    pub threads: usize,
    /// Which of [`READS`] the `reads` phase runs (empty: all).
    pub reads: Vec<String>,
    /// Packed levels (`Options::pack_levels`), for every phase that writes.
    pub packed: bool,
    /// Also write the rows as TSV here.
    pub out: Option<PathBuf>,
    /// The `mix` phase's share of look-ups (0 to 1).
    pub lookups: f64,
    /// The `mix` phase's operations.
    pub ops: u64,
    /// The `mix` phase's update policy, one of [`POLICIES`]; adaptive is
    /// told the mix's share of look-ups.
    pub policy: String,
}

/// Runs one phase, printing its rows.
///
/// # Errors
/// A missing or malformed workload file, a store in the wrong state for
/// the phase, a result that disagrees with a reference, or an engine
/// error.
pub fn run(args: &CappedArgs) -> Res<()> {
    if !PHASES.contains(&args.phase.as_str()) {
        return Err(format!(
            "unknown phase {:?} (one of {})",
            args.phase,
            PHASES.join(", ")
        )
        .into());
    }
    if let Some(bad) = args.reads.iter().find(|r| !READS.contains(&r.as_str())) {
        return Err(format!("unknown read {bad:?} (one of {})", READS.join(", ")).into());
    }
    if !POLICIES.contains(&args.policy.as_str()) {
        return Err(format!(
            "unknown update policy {:?} (one of {})",
            args.policy,
            POLICIES.join(", ")
        )
        .into());
    }
    if !(0.0..=1.0).contains(&args.lookups) {
        return Err(format!("--lookups {} is not a share from 0 to 1", args.lookups).into());
    }
    let files = W1Files::new(&args.data, args.scale);
    let reference = files.reference()?;
    // A sitting that lacks a reference stops before its load, not after an
    // hour of it.
    for (value, what) in references_ahead(args, &reference) {
        Reference::require(value, what)?;
    }
    let mut table = Table::with_notes(vec![
        format!(
            "# workload: W1 {} from {}, phase {} on the store {}",
            files.graph_name(),
            args.data.display(),
            args.phase,
            args.store.display()
        ),
        format!(
            "# memory: {} (MemGraph and load batches an eighth each; the cap, if any, is bench/memcap.py's)",
            if args.memory == 0 {
                "defaults".to_string()
            } else {
                format!("{} bytes", args.memory)
            }
        ),
        format!(
            "# threads: {} for writes and reads; compactions merge on all cores (Options::compaction_threads), as RocksDB's background jobs run beside its writers",
            args.threads.max(1)
        ),
        "# durability: commits logged and written to the OS (SyncPolicy::Never), synced at flushes and close; a phase that writes ends with close (flush and merge), which its time includes where said".into(),
    ]);
    let mut phase = Phase {
        args,
        files: &files,
        reference: &reference,
        table: &mut table,
    };
    match args.phase.as_str() {
        "load" => phase.load()?,
        "insert_single" => phase.insert_single()?,
        "reads" => phase.reads()?,
        "mix" => phase.mix()?,
        _ => phase.delete_mixed()?,
    }
    if let Some(out) = &args.out {
        table.save(out)?;
        println!("rows written to {}", out.display());
    }
    Ok(())
}

/// The references that `args.phase` and the phases after it in the
/// usual order (load, insert_single, reads, delete_mixed; `mix` stands
/// alone) check against and the generator's `kS.ref.json` may lack: the
/// reads' PageRank top vertex (if `args.reads` takes PageRank) and the
/// edge count after the operations.
fn references_ahead(args: &CappedArgs, r: &Reference) -> Vec<(Option<u64>, &'static str)> {
    let order = ["load", "insert_single", "reads", "delete_mixed"];
    let Some(at) = order.iter().position(|p| *p == args.phase) else {
        return Vec::new();
    };
    let ahead = |phase: &str| order.iter().skip(at).any(|p| *p == phase);
    let pagerank = args.reads.is_empty() || args.reads.iter().any(|x| x == "pr");
    let mut needed = Vec::new();
    if ahead("reads") && pagerank {
        needed.push((r.pagerank_top, "PageRank top vertex"));
    }
    if ahead("delete_mixed") {
        needed.push((r.edges_after_ops, "edge count after the ops"));
    }
    needed
}

struct Phase<'a> {
    args: &'a CappedArgs,
    files: &'a W1Files,
    reference: &'a Reference,
    table: &'a mut Table,
}

impl Phase<'_> {
    fn options(&self) -> Options {
        let mut opts = Options {
            threads: self.args.threads.max(1),
            sync: SyncPolicy::Never,
            pack_levels: self.args.packed,
            create_if_missing: self.args.phase == "load",
            update_policy: match self.args.policy.as_str() {
                "pivot" => UpdatePolicy::Pivot,
                "adaptive" => UpdatePolicy::Adaptive {
                    lookup_share: self.args.lookups,
                },
                _ => UpdatePolicy::Delta,
            },
            ..Options::default()
        };
        if self.args.memory > 0 {
            opts.memgraph_bytes = (self.args.memory / 8).max(1 << 20);
        }
        opts
    }

    fn open(&self) -> Res<Graph> {
        if !self.args.store.join("MANIFEST").exists() {
            return Err(format!(
                "{}: no store there; run the load phase first",
                self.args.store.display()
            )
            .into());
        }
        Ok(Graph::open(&self.args.store, self.options())?)
    }

    fn push(&mut self, op: &str, value: f64, unit: &'static str, checksum: String) {
        self.table.push(Row {
            system: "stratagraph-disk",
            graph: self.files.graph_name(),
            op: op.to_string(),
            threads: self.args.threads.max(1),
            value,
            unit,
            checksum,
        });
    }

    /// A row `OP_stall`: the seconds writers of a writing phase waited on
    /// flushes, and beside it what the flushes and compactions did (before
    /// the phase's close), to tell where a write-heavy phase's time went.
    fn push_maintenance(&mut self, op: &str, g: &Graph) {
        let s = g.stats();
        self.push(
            &format!("{op}_stall"),
            s.stall_seconds,
            "s",
            format!(
                "stalls={} flushes={} compactions={} level_bytes_written={} write_amplification={:.1}",
                s.stalls, s.flushes, s.compactions, s.level_bytes_written, s.write_amplification
            ),
        );
    }

    /// Where insert_single starts: 80% of the edges are loaded before it.
    fn split(&self) -> u64 {
        self.reference.edges * 4 / 5
    }

    fn expect_edges(&self, g: &Graph, want: u64, after: &str) -> Res<String> {
        let got = g.snapshot().edge_count();
        if got != want {
            return Err(
                format!("after {after} the store holds {got} edges, reference {want}").into(),
            );
        }
        Ok(format!("edges={got}"))
    }

    /// Refuses to start `phase` unless the store holds the `want` edges
    /// the phase named by `after` leaves.
    fn expect_start(have: u64, want: u64, phase: &str, after: &str) -> Res<()> {
        if have == want {
            return Ok(());
        }
        Err(format!(
            "the store holds {have} edges; {phase} starts from the {want} that {after} leaves (run it first)"
        )
        .into())
    }

    fn load(&mut self) -> Res<()> {
        let store = &self.args.store;
        if store.exists() && std::fs::read_dir(store)?.next().is_some() {
            return Err(format!("{}: not empty; load creates a new store", store.display()).into());
        }
        let batch = if self.args.memory == 0 {
            BATCH
        } else {
            (self.args.memory / 8 / BATCH_EDGE_BYTES).clamp(1 << 12, BATCH)
        };
        let start = Instant::now();
        let g = Graph::open(store, self.options())?;
        let n = self.reference.vertices;
        let mut ids = Vec::with_capacity(VERTEX_BATCH as usize);
        for first in (0..n).step_by(VERTEX_BATCH as usize) {
            ids.clear();
            ids.extend(first..(first + VERTEX_BATCH).min(n));
            g.insert_vertices(&ids)?;
        }
        let mut edges = Vec::with_capacity(batch);
        stream_edges(self.files, 0, self.split(), batch, |piece| {
            edges.clear();
            edges.extend(piece.iter().map(|&(s, d)| weighted(s, d)));
            g.insert_edges(&edges)?;
            Ok(())
        })?;
        let loaded = start.elapsed().as_secs_f64();
        let check = self.expect_edges(&g, self.split(), "load")?;
        self.push_maintenance("load_80", &g);
        g.close()?;
        let total = start.elapsed().as_secs_f64();
        self.push("load_80", loaded, "s", check.clone());
        self.push("load_80_closed", total, "s", check);
        self.push(
            "disk_bytes",
            dir_bytes(store) as f64,
            "bytes",
            String::new(),
        );
        Ok(())
    }

    fn insert_single(&mut self) -> Res<()> {
        let g = self.open()?;
        Self::expect_start(
            g.snapshot().edge_count(),
            self.split(),
            "insert_single",
            "load",
        )?;
        let start = Instant::now();
        let tail = self.reference.edges - self.split();
        stream_edges(self.files, self.split(), tail, BATCH, |piece| {
            for &(s, d) in piece {
                let (s, d, w) = weighted(s, d);
                g.insert_edge(s, d, w)?;
            }
            Ok(())
        })?;
        let rate = tail as f64 / start.elapsed().as_secs_f64();
        let check = self.expect_edges(&g, self.reference.edges, "insert_single")?;
        self.push_maintenance("insert_single", &g);
        g.close()?;
        let total = start.elapsed().as_secs_f64();
        self.push("insert_single", rate, "edges/s", check.clone());
        self.push("insert_single_closed", total, "s", check);
        self.push(
            "disk_bytes",
            dir_bytes(&self.args.store) as f64,
            "bytes",
            String::new(),
        );
        Ok(())
    }

    fn reads(&mut self) -> Res<()> {
        let opts = Options {
            read_only: true,
            ..self.options()
        };
        let g = Graph::open(&self.args.store, opts)?;
        let snap = g.snapshot();
        let r = self.reference;
        Self::expect_start(snap.edge_count(), r.edges, "reads", "insert_single")?;
        check_identity(&snap)?;
        let threads = self.args.threads.max(1);
        let wants =
            |read: &str| self.args.reads.is_empty() || self.args.reads.iter().any(|x| x == read);
        let source = snap
            .internal_id(r.bfs_source)
            .ok_or("the BFS source is not a vertex of the store")?;
        for read in READS.iter().filter(|r| wants(r)) {
            let read_before = storage_read_bytes();
            let start = Instant::now();
            let (value, unit, check) = match *read {
                "search_edge" => {
                    let pairs = self.files.searches()?;
                    let found = search(&snap, &pairs, threads);
                    if found != pairs.len() as u64 {
                        return Err(
                            format!("search_edge found {found} of {} edges", pairs.len()).into(),
                        );
                    }
                    let rate = pairs.len() as f64 / start.elapsed().as_secs_f64();
                    (rate, "ops/s", format!("found={found}"))
                }
                "scan_seq" => {
                    let sum = scan_seq(&snap, r.vertices as u32, threads);
                    expect_sum(sum, r.sum_dst)?;
                    (start.elapsed().as_secs_f64(), "s", format!("sum_dst={sum}"))
                }
                "scan_rand" => {
                    let mut sum = 0u64;
                    stream_u32s(&self.files.perm_path(), 0, None, PERM_PIECE, |piece| {
                        sum += scan_rand(&snap, piece, threads);
                        Ok(())
                    })?;
                    expect_sum(sum, r.sum_dst)?;
                    (start.elapsed().as_secs_f64(), "s", format!("sum_dst={sum}"))
                }
                kernel => {
                    let check = kernel_run(&snap, kernel, source, threads, r)?;
                    (start.elapsed().as_secs_f64(), "s", check)
                }
            };
            self.push(read, value, unit, check);
            // What the read cost the disk: under a cap, the part of the
            // store it had to fetch again.
            if let (Some(a), Some(b)) = (read_before, storage_read_bytes()) {
                let op = format!("{read}_read_bytes");
                self.push(&op, b.saturating_sub(a) as f64, "bytes", String::new());
            }
        }
        Ok(())
    }

    fn delete_mixed(&mut self) -> Res<()> {
        let g = self.open()?;
        let want = Reference::require(self.reference.edges_after_ops, "edge count after the ops")?;
        let ops = self.files.ops()?;
        Self::expect_start(
            g.snapshot().edge_count(),
            self.reference.edges,
            "delete_mixed",
            "insert_single",
        )?;
        let start = Instant::now();
        for &(insert, s, d) in &ops {
            let (s, d, w) = weighted(s, d);
            if insert {
                g.insert_edge(s, d, w)?;
            } else {
                g.delete_edge(s, d)?;
            }
        }
        let rate = ops.len() as f64 / start.elapsed().as_secs_f64();
        let check = self.expect_edges(&g, want, "delete_mixed")?;
        self.push_maintenance("delete_mixed", &g);
        g.close()?;
        self.push("delete_mixed", rate, "ops/s", check);
        Ok(())
    }
}

impl Phase<'_> {
    fn mix(&mut self) -> Res<()> {
        let g = self.open()?;
        Self::expect_start(g.snapshot().edge_count(), self.split(), "mix", "load")?;
        let ops = self.args.ops;
        let tail = self.reference.edges - self.split();
        if ops > tail {
            return Err(format!(
                "--ops {ops}: the mix may need as many inserts, and the file has {tail} after the load"
            )
            .into());
        }
        let mut inserts = Vec::with_capacity(ops as usize);
        stream_edges(self.files, self.split(), ops, BATCH, |piece| {
            inserts.extend_from_slice(piece);
            Ok(())
        })?;
        let n = self.reference.vertices;
        // A fixed stream, the same for every policy.
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng
        };
        let (mut added, mut reads, mut sum) = (0usize, 0u64, 0u64);
        let start = Instant::now();
        for _ in 0..ops {
            let draw = (next() >> 11) as f64 / (1u64 << 53) as f64;
            if draw < self.args.lookups {
                let v = next() % n;
                let snap = g.snapshot();
                if let Some(list) = snap.out_neighbors(v) {
                    for d in list {
                        sum = sum.wrapping_mul(31).wrapping_add(u64::from(d) + 1);
                    }
                }
                reads += 1;
            } else {
                let (s, d, w) = weighted(inserts[added].0, inserts[added].1);
                g.insert_edge(s, d, w)?;
                added += 1;
            }
        }
        let rate = ops as f64 / start.elapsed().as_secs_f64();
        let stats = g.stats();
        drop(g);
        self.push(
            &format!("mix_{}_{}", self.args.policy, self.args.lookups),
            rate,
            "ops/s",
            format!(
                "reads={reads} inserts={added} sum={sum} runs={} levels={} pivots={} flushes={} compactions={} stall_s={:.2} written={}",
                stats.runs,
                stats.levels.len(),
                stats.pivot_marks,
                stats.flushes,
                stats.compactions,
                stats.stall_seconds,
                stats.level_bytes_written
            ),
        );
        Ok(())
    }
}

fn weighted(s: u32, d: u32) -> (u64, u64, f64) {
    let (s, d) = (u64::from(s), u64::from(d));
    (s, d, w1_weight(s, d))
}

fn expect_sum(got: u64, want: u64) -> Res<()> {
    if got == want {
        Ok(())
    } else {
        Err(format!("sum of destination ids {got}, reference {want}").into())
    }
}

/// Hands `f` the edges `first..first + count` of `kS.bin` in pieces of at
/// most `piece` edges, read from the file as they are needed.
fn stream_edges(
    files: &W1Files,
    first: u64,
    count: u64,
    piece: usize,
    mut f: impl FnMut(&[(u32, u32)]) -> Res<()>,
) -> Res<()> {
    let mut edges = Vec::with_capacity(piece);
    stream_u32s(
        &files.edges_path(),
        2 * first,
        Some(2 * count),
        2 * piece,
        |words| {
            edges.clear();
            edges.extend(words.chunks_exact(2).map(|p| (p[0], p[1])));
            f(&edges)
        },
    )
}
