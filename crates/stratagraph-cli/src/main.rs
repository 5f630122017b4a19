//! The `stratagraph` command-line tool.

mod malloc_policy;
mod serve;
mod store_cmds;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;
use stratagraph::{Graph, Options};

/// The system allocator, counting what each thread holds, so that `serve`
/// can stop a query past its memory limit (`--max-query-memory-mb`)
/// before the process runs out of memory.
#[global_allocator]
static ALLOC: stratagraph_gremlin::memory::CountingAlloc =
    stratagraph_gremlin::memory::CountingAlloc;

#[derive(Parser)]
#[command(name = "stratagraph", version, about = "Embedded dynamic graph store")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Load an edge list into an in-memory store, stream deletes and
    /// re-inserts through single-edge transactions, and print statistics.
    Demo {
        /// SNAP-style edge list (`src dst` per line, `#` comments), optionally gzipped.
        graph: PathBuf,
        /// Treat edges as undirected.
        #[arg(long)]
        undirected: bool,
    },
    /// Runs every LDBC Graphalytics validation case in DIR on snapshots of
    /// in-memory stores; prints one line per case and `N passed, N failed`.
    Graphalytics {
        /// Folder of Graphalytics graphs with reference outputs.
        dir: PathBuf,
        /// Worker threads for the kernels (0 = all cores; at most 1024).
        #[arg(long, default_value_t = 0, value_parser = threads_arg)]
        threads: usize,
    },
    /// Loads vertex (`.v`) and edge files (`src dst [weight]` per line, `#`
    /// comments, SNAP lists and Graphalytics `.e` files alike, optionally
    /// gzipped) into the on-disk store in DIR, creating it if needed. A
    /// malformed line stops the load with an error naming file and line;
    /// the batches before it stay loaded.
    Load {
        /// The store's directory.
        dir: PathBuf,
        /// Edge-list files to load into the weighted structure, in order.
        #[arg(required_unless_present_any = ["graphson", "vertices", "edges", "parquet"])]
        inputs: Vec<PathBuf>,
        /// A directory `stratagraph export` wrote (Parquet in Apache
        /// GraphAr's layout), loaded first, into an empty store; a new
        /// store takes the export's kind (directed or not, string ids or
        /// not). Every file is read and checked before anything is
        /// written, so a damaged export leaves the store unchanged.
        #[arg(long, value_name = "DIR")]
        parquet: Option<PathBuf>,
        /// A GraphSON 3.0 property graph (TinkerPop's one vertex per line),
        /// loaded after the edge lists.
        #[arg(long, value_name = "FILE")]
        graphson: Vec<PathBuf>,
        /// A CSV file of vertices with a header row (`:ID`, `:LABEL`,
        /// `name:type` columns); `LABEL=FILE` gives rows without a label
        /// column that label.
        #[arg(long, value_name = "[LABEL=]FILE", value_parser = csv_file_arg)]
        vertices: Vec<stratagraph_io::csv::CsvFile>,
        /// A CSV file of property edges (`:START_ID`, `:END_ID`, `:TYPE`,
        /// optional `:ID`, `name:type` columns), loaded after every
        /// vertex file; `LABEL=FILE` as for --vertices.
        #[arg(long, value_name = "[LABEL=]FILE", value_parser = csv_file_arg)]
        edges: Vec<stratagraph_io::csv::CsvFile>,
        /// Records per transaction for --graphson, --vertices and --edges.
        #[arg(long, default_value_t = 10_000)]
        batch: usize,
        /// Memory the load may use, e.g. 256M or 2G (suffixes K, M, G; 0:
        /// no limit, the default): sizes the MemGraph (an eighth: a writer
        /// may fill twice that, and the flushed half stays until the
        /// flush is done, before it waits) and the edge-list batches (an
        /// eighth, about 110 bytes an edge while a batch is parsed, sorted
        /// and applied), so the memory these take stays within it whatever
        /// the input's size. The tables kept per vertex id (about 16 bytes:
        /// the id map and the MemGraph's slot index and bits) come on
        /// top, and so does the page cache
        /// of the files read and written, which the kernel reclaims under
        /// a memory cap.
        #[arg(long, value_name = "BYTES", value_parser = size_arg, default_value = "0")]
        memory: usize,
        /// Create the store naming vertices by string keys (ids in the
        /// files are read as keys; integers as their decimal text).
        #[arg(long)]
        string_ids: bool,
        #[command(flatten)]
        kind: KindFlags,
    },
    /// Serves the store in DIR to Gremlin drivers (gremlinpython,
    /// gremlin-javascript, the Java driver) as a Gremlin Server does:
    /// WebSocket at ws://HOST:PORT/gremlin, GraphBinary 1.0 and GraphSON
    /// 3.0, script (gremlin-lang) and bytecode requests, each request one
    /// transaction. Prints `listening on ws://ADDR/gremlin` (wss:// with
    /// TLS) first; stops on
    /// SIGTERM or Ctrl-C and closes the store.
    Serve {
        /// The store's directory (created if missing).
        #[arg(required_unless_present = "in_memory")]
        dir: Option<PathBuf>,
        /// Serve a store without files instead (gone when the server stops).
        #[arg(long)]
        in_memory: bool,
        /// GraphSON 3.0 property graphs to load before serving.
        #[arg(long, value_name = "FILE")]
        graphson: Vec<PathBuf>,
        /// The address to listen on: loopback unless told otherwise.
        #[arg(long, default_value = "127.0.0.1")]
        host: std::net::IpAddr,
        /// The port (0: any free port).
        #[arg(long, default_value_t = 8182)]
        port: u16,
        /// The largest request accepted, in bytes.
        #[arg(long, default_value_t = 10 * 1024 * 1024)]
        max_request_bytes: usize,
        /// The most results one request may return.
        #[arg(long, default_value_t = 10_000_000)]
        max_results: usize,
        /// Connections served at once; more are refused at the handshake.
        #[arg(long, default_value_t = 256)]
        max_connections: usize,
        /// Results per response frame when a request does not say.
        #[arg(long, default_value_t = 64)]
        batch_size: usize,
        /// How long a request may run, in milliseconds, when it does not
        /// say (`evaluationTimeout`); 0: no limit. A request past it fails
        /// with 598 and writes nothing.
        #[arg(long, default_value_t = 30_000)]
        timeout_ms: u64,
        /// The most memory one request's traversal may hold, in MiB; 0:
        /// no limit. A request past it fails (597, `stratagraph.MemoryLimit`)
        /// and writes nothing, instead of the server running out of memory.
        #[arg(long, default_value_t = 2048)]
        max_query_memory_mb: usize,
        /// Require clients to log in (SASL PLAIN, as the drivers'
        /// username/password options send it) as a user of this file
        /// (written by `stratagraph passwd`). PLAIN sends the password
        /// itself: without TLS in front, only on loopback or a trusted
        /// network.
        #[arg(long, value_name = "FILE")]
        credentials: Option<PathBuf>,
        /// Serve wss:// (TLS) with this certificate chain (PEM, the
        /// server's certificate first); needs --tls-key.
        #[arg(long, value_name = "FILE", requires = "tls_key")]
        tls_cert: Option<PathBuf>,
        /// The private key of --tls-cert (PEM: PKCS#8, PKCS#1 or SEC1).
        #[arg(long, value_name = "FILE", requires = "tls_cert")]
        tls_key: Option<PathBuf>,
        /// When a committed write is on the disk: `always` (each commit
        /// returns after its log record is synced; concurrent commits share
        /// a sync), a period such as `20ms` or `1s` (synced in the
        /// background that often: a power loss may lose that much, a
        /// crash of the server loses nothing), or `never` (synced at
        /// segment ends and at shutdown).
        #[arg(long, default_value = "always", value_parser = serve::parse_sync)]
        sync: stratagraph::SyncPolicy,
        /// How a flush writes the lists of the vertices it holds writes
        /// for (Poly-LSM's delta and pivot entries): `delta` (only what
        /// changed), `pivot` (the whole list again, marked so that later
        /// reads stop there) or `adaptive:SHARE` (pivots for vertices below
        /// the cost model's degree threshold, for a workload with this
        /// share of look-ups, 0 to 1).
        #[arg(long, default_value = "delta", value_parser = serve::parse_update_policy)]
        update_policy: stratagraph::UpdatePolicy,
    },
    /// Sets USER's password in a credentials file for `serve
    /// --credentials` (read from the first line of standard input; the
    /// file keeps a salted PBKDF2-HMAC-SHA256 hash, not the password).
    Passwd {
        /// The credentials file (created if missing).
        file: PathBuf,
        /// The user.
        user: String,
    },
    /// Runs one analytics kernel on the store in DIR and writes Graphalytics
    /// output (`vertex value` per line, external ids; `tc` prints one count).
    Algo {
        /// The kernel.
        #[arg(value_enum)]
        kernel: store_cmds::Kernel,
        /// The store's directory.
        dir: PathBuf,
        /// Source vertex (external id) for bfs, sssp and bc (required by
        /// them, refused by the others).
        #[arg(long)]
        source: Option<u64>,
        /// Iterations for pr and cdlp [default: 10] (refused by the others).
        #[arg(long)]
        iterations: Option<u32>,
        /// Damping factor for pr, in [0, 1] [default: 0.85] (refused by the
        /// others).
        #[arg(long, value_parser = damping_arg, allow_negative_numbers = true)]
        damping: Option<f64>,
        /// Worker threads (0 = all cores; at most 1024).
        #[arg(long, default_value_t = 0, value_parser = threads_arg)]
        threads: usize,
        /// Write the output here instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
        /// Run on a projection of the property edges of these labels
        /// (comma-separated) instead of the weighted structure; parallel
        /// edges become one, with the smallest weight.
        #[arg(long, value_delimiter = ',')]
        labels: Vec<String>,
        /// The numeric edge property that weighs a projection (with no
        /// --labels: of every property edge).
        #[arg(long)]
        weight: Option<String>,
        /// The weight of a projected edge without the --weight property
        /// (without it, such an edge is an error).
        #[arg(long, requires = "weight")]
        default_weight: Option<f64>,
        #[command(flatten)]
        kind: KindFlags,
    },
    /// Checks the closed on-disk store in DIR without changing it: the
    /// manifest, every checksum of every level file, every log record.
    /// Prints what it found and every problem (file and offset); exits
    /// non-zero if there is any. A torn last log record is normal after a
    /// crash and is reported, not counted as damage.
    Check {
        /// The store's directory.
        dir: PathBuf,
    },
    /// Writes every change committed to the store in DIR after timestamp
    /// SINCE (vertices, edges, properties added, changed or removed, with
    /// their commit timestamps) as one Parquet file, for a downstream copy
    /// to apply (`docs/FORMAT.md` §3.5, columns in
    /// `stratagraph_io::changes`). Prints the timestamp the changes reach:
    /// the next call's --since. Changes older than the store keeps
    /// (`Options::change_log_bytes`) are refused, naming from where they
    /// are kept.
    Changes {
        /// The store's directory.
        dir: PathBuf,
        /// Changes after this commit timestamp (0: all that are kept).
        #[arg(long)]
        since: u64,
        /// The Parquet file to write.
        #[arg(long)]
        out: PathBuf,
    },
    /// Writes a snapshot of the store in DIR to OUT as Parquet files in
    /// Apache GraphAr's layout (`docs/FORMAT.md` §7): a vertex table per
    /// label, an edge table per (source label, edge label, destination
    /// label), ids as the user gave them, properties as typed columns, and
    /// `stratagraph.json`, which `stratagraph load --parquet` reads back.
    /// Spark, DuckDB, pandas and GraphAr's own readers read the files.
    /// OUT must not exist or be empty; a failed export leaves nothing.
    Export {
        /// The store's directory.
        dir: PathBuf,
        /// The directory to write.
        out: PathBuf,
        /// Export the state at this earlier commit timestamp instead of
        /// the newest: rebuilt from the newest checkpoint at or before it
        /// (`stratagraph checkpoint`) and the change feed after that, so
        /// it needs such a checkpoint and the log archive reaching back to
        /// it (`Options::change_log_bytes`); otherwise an error says which
        /// is missing. The newest commit's timestamp needs neither.
        #[arg(long)]
        as_of: Option<u64>,
        /// Vertices per vertex chunk file (and source vertices per edge
        /// part).
        #[arg(long, default_value_t = 1 << 18)]
        vertex_chunk: u64,
        /// Edges per edge chunk file at most.
        #[arg(long, default_value_t = 1 << 22)]
        edge_chunk: u64,
    },
    /// Writes a checkpoint of the store in DIR into DIR/checkpoints/<timestamp>
    /// (everything committed, flushed first; level files hard-linked, so
    /// it costs little space until compactions replace them): a store of
    /// its own, for a backup, and the base `export --as-of` rebuilds
    /// earlier states from. With --list, lists the checkpoints instead.
    /// Remove one by deleting its directory.
    Checkpoint {
        /// The store's directory.
        dir: PathBuf,
        /// List the checkpoints kept instead of writing one.
        #[arg(long)]
        list: bool,
    },
    /// Salvages the store in DIR whose log is damaged (a lost or shortened
    /// segment, a damaged record: what `check` reports and opening
    /// refuses): keeps every commit logged before the first damage, sets
    /// the damaged segment and the ones after it aside as `<name>.lost`
    /// files, and prints exactly what was lost. The store then opens
    /// normally. Damage to a level file or the MANIFEST is not repaired.
    Repair {
        /// The store's directory.
        dir: PathBuf,
        /// Required: the commits after the damage are given up.
        #[arg(long)]
        accept_loss: bool,
    },
    /// Opens the on-disk store in DIR (replaying its log if it crashed) and
    /// prints its counts: vertices, edges, per-level sizes and segment
    /// counts, runs with their sizes, MemGraph and level bytes, bytes per
    /// edge, log; write amplification, flushes, compactions and writer
    /// stalls over the store's life (as of its last flush, compaction or
    /// close) and of this session.
    Stats {
        /// The store's directory.
        dir: PathBuf,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Prints one vertex of the on-disk store in DIR (opened read-only):
    /// its label, its properties with their types, its degrees, and its
    /// property edges by label.
    Vertex {
        /// The store's directory.
        dir: PathBuf,
        /// The vertex id (its key, in a store of string keys).
        id: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Prints one property edge of the on-disk store in DIR (opened
    /// read-only): its ends, label and properties with their types.
    Edge {
        /// The store's directory.
        dir: PathBuf,
        /// The edge id.
        id: u64,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Benchmarks on the W1 workload files (see shared/WORKLOAD.md).
    #[command(subcommand)]
    Bench(BenchCommand),
}

/// `--threads`, bounded as every front end bounds it.
fn threads_arg(text: &str) -> Result<usize, String> {
    let value: i128 = text
        .parse()
        .map_err(|_| format!("expected an integer, got {text:?}"))?;
    stratagraph_algo::params::threads(value).map_err(|e| e.to_string())
}

/// `--damping`, checked as every front end checks it.
/// `[LABEL=]FILE` for `load --vertices/--edges`.
fn csv_file_arg(s: &str) -> Result<stratagraph_io::csv::CsvFile, String> {
    match s.split_once('=') {
        Some((label, file)) if !label.is_empty() && !file.is_empty() => {
            Ok(stratagraph_io::csv::CsvFile::labelled(file, label))
        }
        Some(_) => Err(format!("{s:?}: expected LABEL=FILE or FILE")),
        None => Ok(stratagraph_io::csv::CsvFile::new(s)),
    }
}

fn damping_arg(text: &str) -> Result<f64, String> {
    let value: f64 = text
        .parse()
        .map_err(|_| format!("expected a number, got {text:?}"))?;
    stratagraph_algo::params::damping(value).map_err(|e| e.to_string())
}

/// Whether a store is directed: read from its MANIFEST when it exists, so
/// these flags only matter when a command creates one (and one that
/// contradicts an existing store is refused, naming both kinds).
#[derive(clap::Args)]
struct KindFlags {
    /// The store is (or is created) directed: the default for a new store.
    #[arg(long, conflicts_with = "undirected")]
    directed: bool,
    /// The store is (or is created) undirected.
    #[arg(long)]
    undirected: bool,
}

impl KindFlags {
    /// What the flags ask for (`None`: whatever the store is).
    fn asked(&self) -> Option<bool> {
        match (self.directed, self.undirected) {
            (true, _) => Some(true),
            (_, true) => Some(false),
            _ => None,
        }
    }
}

#[derive(Subcommand)]
enum BenchCommand {
    /// Engine-core figures: bulk load, batches, single-edge transactions on
    /// 1 and 2 threads, sequential scan and memory, beside a static CSR.
    Core {
        #[command(flatten)]
        w1: W1Opts,
        /// Batch size for batch_insert.
        #[arg(long, default_value_t = 1_000_000)]
        batch: usize,
        /// Run only these groups (comma-separated: batch, single); the load,
        /// memory and scan figures always run.
        #[arg(long, value_delimiter = ',')]
        ops: Vec<String>,
    },
    /// The property micro-benchmark (Lissandrini's, vertex side): load
    /// labelled vertices with two properties, add a vertex with
    /// properties, update and remove a property, read all properties,
    /// find by equality with and without an index; property edges loaded
    /// through transactions and from CSV files.
    Props {
        #[command(flatten)]
        run: RunOpts,
    },
    /// Edge layouts for reading a vertex's edges of one label: one CSR per
    /// label, one CSR sorted by label, and one CSR filtered on every read,
    /// built from kS.bin's edges with seeded labels (uniform and skewed);
    /// point reads and full scans, checksums checked across layouts.
    // Five runs by default, not three: a run lasts seconds, and the
    // point reads are noisy enough to want the wider median.
    #[command(mut_arg("runs", |a| a.default_value("5")))]
    EdgeLayout {
        #[command(flatten)]
        w1: W1Opts,
        /// Label counts (comma-separated), each measured under both
        /// distributions.
        #[arg(long, value_delimiter = ',', default_value = "4,16")]
        labels: Vec<u32>,
        /// Seed of the edge labels and of the query sequence.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Gremlin traversals (gremlin-lang text, one query per line of
    /// --queries) on an in-memory store of a property graph: warm-up, then
    /// --runs timed runs each; rows `system dataset query median_s min_s
    /// results checksum sample`, comparable with TinkerGraph's
    /// (bench/peers/tinkergraph, bench/run_gremlin_peers.sh).
    Gremlin {
        /// The dataset: `grateful` (TinkerPop's grateful-dead GraphSON) or
        /// `k20p` (bench/props CSV files); names the default files.
        #[arg(long)]
        dataset: String,
        /// A GraphSON 3.0 file to load [default for grateful:
        /// ../shared/tinkerpop/data/grateful-dead.json].
        #[arg(long, conflicts_with = "csv")]
        graphson: Option<PathBuf>,
        /// A folder of v-<label>.csv and e-<label>-<src>-<dst>.csv files
        /// [default for k20p: /work/data/props/k20p].
        #[arg(long)]
        csv: Option<PathBuf>,
        /// The queries file [default: bench/gremlin/queries-<dataset>.txt].
        #[arg(long)]
        queries: Option<PathBuf>,
        /// Timed runs per query; the median and minimum are reported.
        #[arg(long, default_value_t = 3)]
        runs: usize,
        /// Seconds of warm-up per query (at least one run).
        #[arg(long, default_value_t = 1.0)]
        warmup_seconds: f64,
        /// Vertex property keys to index, under every vertex label
        /// (comma-separated; empty for none).
        #[arg(long, value_delimiter = ',', default_value = "name")]
        index: Vec<String>,
        /// Also write the rows as TSV to this file.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The write-ahead log's cost: durable single-edge commits per sync
    /// policy on 1 and 2 threads (with commit latency), and recovery time
    /// per GiB of log. RocksDB's side: bench/durability/run.sh.
    Durability {
        #[command(flatten)]
        w1: W1Opts,
        /// Seconds each single-commit run lasts.
        #[arg(long, default_value_t = 3.0)]
        seconds: f64,
        /// Directory in which the stores are created.
        #[arg(long, default_value = "/work/data/bench-durability")]
        dir: PathBuf,
    },
    /// The multi-level CSR: sequential scan and size after a
    /// load and full compaction and with the last 20% of the edges above
    /// it, beside a static CSR; sustained single-edge inserts with flushes
    /// and compactions against a MemGraph that never flushes, with latency
    /// percentiles and write amplification.
    Levels {
        #[command(flatten)]
        w1: W1Opts,
        /// Homes of the store (comma-separated: memory, disk).
        #[arg(long, value_delimiter = ',', default_value = "memory,disk")]
        homes: Vec<String>,
        /// Directory in which on-disk stores are created (default: the
        /// system's temporary directory).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Skip the single-edge insert stream (the slowest part).
        #[arg(long)]
        skip_single: bool,
    },
    /// Analytics kernels on a snapshot beside the same kernels on a static
    /// CSR, results checked against kS.ref.json (BFS, PageRank, WCC, SSSP,
    /// triangles) or against the CSR's (LCC, CDLP, betweenness).
    Algo {
        #[command(flatten)]
        w1: W1Opts,
        /// Thread counts (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "1,2")]
        threads: Vec<usize>,
        /// Kernels (comma-separated: bfs, pr, wcc, sssp, lcc, cdlp, tc, bc).
        #[arg(long, value_delimiter = ',', default_value = "bfs,pr,wcc,sssp")]
        kernels: Vec<String>,
        /// Store states (comma-separated: memgraph = every edge in the
        /// MemGraph, tail20 = 80% compacted and 20% in the MemGraph,
        /// compacted).
        #[arg(long, value_delimiter = ',', default_value = "tail20,compacted")]
        states: Vec<String>,
        /// Time only a new snapshot in each state, not the same snapshot
        /// again nor one after writes: for the long kernels (LCC, TC).
        #[arg(long)]
        fresh_only: bool,
    },
    /// Every W1 operation (shared/WORKLOAD.md) on stratagraph in memory and
    /// on disk beside a static CSR, each result checked against the
    /// reference checksums; TSV rows under a machine header.
    W1 {
        #[command(flatten)]
        w1: W1Opts,
        /// Thread counts (comma-separated).
        #[arg(long, value_delimiter = ',', default_value = "1,2")]
        threads: Vec<usize>,
        /// Homes of the store (comma-separated: memory, disk; and
        /// memory-checked, disk-checked: the same with blind inserts off;
        /// disk-raw: on disk with weights stored as f64s; disk-packed: on
        /// disk with packed destinations in compacted levels).
        #[arg(long, value_delimiter = ',', default_value = "memory,disk")]
        homes: Vec<String>,
        /// Folder for the on-disk stores' directories (default: --data).
        #[arg(long)]
        scratch: Option<PathBuf>,
        /// Scale 14, one run: seconds, to check the suite still works.
        #[arg(long, conflicts_with_all = ["scale", "runs"])]
        quick: bool,
        /// Run only these operation groups (comma-separated: memory,
        /// bulk_load, insert_single, reads, tc, batch_sizes, mixed_rw,
        /// delete_mixed); all by default.
        #[arg(long, value_delimiter = ',')]
        ops: Vec<String>,
    },
    /// W1 on one on-disk store, one phase per run, holding nothing per
    /// edge in memory, so that each phase can run under a memory cap
    /// smaller than the store (bench/memcap.py): load (every vertex, then
    /// 80% of kS.bin in batches), insert_single (the rest, one edge per
    /// commit), reads (search_edge, scans, BFS, PageRank, WCC, SSSP, all
    /// checked against the references), delete_mixed (kS.ops.bin).
    Capped {
        #[command(flatten)]
        w1: W1Opts,
        /// The store's directory (the load phase creates it).
        #[arg(long)]
        store: PathBuf,
        /// The phase: load, insert_single, reads, delete_mixed or mix.
        #[arg(long)]
        phase: String,
        /// Memory for the MemGraph and the load's batches, as `load
        /// --memory` takes it (e.g. 384M; 0: the defaults).
        #[arg(long, value_name = "BYTES", value_parser = size_arg, default_value = "0")]
        memory: usize,
        /// Threads for the reads and kernels.
        #[arg(long, default_value_t = 1, value_parser = threads_arg)]
        threads: usize,
        /// The reads phase runs only these (comma-separated: search_edge,
        /// scan_seq, scan_rand, bfs, pr, wcc, sssp); all by default.
        #[arg(long, value_delimiter = ',')]
        reads: Vec<String>,
        /// Packed levels (`Options::pack_levels`): give it to every phase
        /// that writes, so compactions keep the store's format.
        #[arg(long)]
        packed: bool,
        /// The mix phase: the share of look-ups among its operations.
        #[arg(long, default_value_t = 0.5)]
        lookups: f64,
        /// The mix phase: how many operations.
        #[arg(long, default_value_t = 1_000_000)]
        ops: u64,
        /// The mix phase: the update policy (delta, pivot or adaptive).
        #[arg(long, default_value = "delta")]
        policy: String,
    },
}

/// Where the W1 files are and how to report, shared by the bench commands.
#[derive(clap::Args)]
struct W1Opts {
    /// Folder holding the generator's kS.* files.
    #[arg(long, default_value = "/work/data")]
    data: PathBuf,
    #[command(flatten)]
    run: RunOpts,
}

/// What every benchmark takes: its size, how many runs, where to save.
#[derive(clap::Args)]
struct RunOpts {
    /// Scale S: the W1 graph kS (files kS.bin, kS.ref.json), or for
    /// `props` 2^S vertices.
    #[arg(long, default_value_t = 20)]
    scale: u32,
    /// Runs per operation; the median is reported.
    #[arg(long, default_value_t = 3)]
    runs: usize,
    /// Also write the rows as TSV to this file.
    #[arg(long)]
    out: Option<PathBuf>,
}

fn main() -> ExitCode {
    malloc_policy::return_large_blocks();
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Demo { graph, undirected } => demo(&graph, !undirected),
        Command::Serve {
            dir,
            in_memory,
            graphson,
            host,
            port,
            max_request_bytes,
            max_results,
            max_connections,
            batch_size,
            timeout_ms,
            max_query_memory_mb,
            credentials,
            tls_cert,
            tls_key,
            sync,
            update_policy,
        } => serve::serve(serve::ServeArgs {
            dir,
            in_memory,
            graphson,
            host,
            port,
            limits: stratagraph_server::server::Limits {
                max_request_bytes,
                max_results,
                batch_size,
                max_connections,
                timeout: (timeout_ms > 0).then(|| std::time::Duration::from_millis(timeout_ms)),
                query_memory: (max_query_memory_mb > 0).then_some(max_query_memory_mb << 20),
            },
            credentials,
            tls: tls_cert.zip(tls_key),
            sync,
            update_policy,
        }),
        Command::Passwd { file, user } => serve::passwd(&file, &user),
        Command::Graphalytics { dir, threads } => graphalytics(&dir, threads),
        Command::Load {
            dir,
            inputs,
            graphson,
            vertices,
            edges,
            parquet,
            batch,
            memory,
            string_ids,
            kind,
        } => store_cmds::load(
            &dir,
            &inputs,
            &store_cmds::PropertyInputs {
                parquet,
                graphson,
                vertices,
                edges,
                batch,
                string_ids,
            },
            memory,
            kind.asked(),
        ),
        Command::Algo {
            kernel,
            dir,
            source,
            iterations,
            damping,
            threads,
            out,
            labels,
            weight,
            default_weight,
            kind,
        } => store_cmds::algo(&store_cmds::AlgoArgs {
            kernel,
            dir: &dir,
            directed: kind.asked(),
            source,
            iterations,
            damping,
            threads,
            out: out.as_deref(),
            labels: &labels,
            weight,
            default_weight,
        }),
        Command::Check { dir } => store_cmds::check(&dir),
        Command::Changes { dir, since, out } => store_cmds::changes(&dir, since, &out),
        Command::Export {
            dir,
            out,
            as_of,
            vertex_chunk,
            edge_chunk,
        } => store_cmds::export(
            &dir,
            &out,
            as_of,
            stratagraph_io::graphar::Chunks {
                vertices: vertex_chunk,
                edges: edge_chunk,
            },
        ),
        Command::Checkpoint { dir, list } => store_cmds::checkpoint(&dir, list),
        Command::Repair { dir, accept_loss } => store_cmds::repair(&dir, accept_loss),
        Command::Stats { dir, json } => store_cmds::stats(&dir, json),
        Command::Vertex { dir, id, json } => store_cmds::vertex(&dir, &id, json),
        Command::Edge { dir, id, json } => store_cmds::edge(&dir, id, json),
        Command::Bench(BenchCommand::Algo {
            w1,
            threads,
            kernels,
            states,
            fresh_only,
        }) => stratagraph_bench::algo::run(&stratagraph_bench::algo::AlgoArgs {
            data: w1.data,
            scale: w1.run.scale,
            runs: w1.run.runs,
            threads,
            kernels,
            states,
            fresh_only,
            out: w1.run.out,
        }),
        Command::Bench(BenchCommand::Durability { w1, seconds, dir }) => {
            stratagraph_bench::durability::run(&stratagraph_bench::durability::DurabilityArgs {
                data: w1.data,
                scale: w1.run.scale,
                runs: w1.run.runs,
                seconds,
                dir,
                out: w1.run.out,
            })
        }
        Command::Bench(BenchCommand::W1 {
            w1,
            threads,
            homes,
            scratch,
            quick,
            ops,
        }) => bench_w1(w1, threads, &homes, scratch, quick, ops),
        Command::Bench(BenchCommand::Capped {
            w1,
            store,
            phase,
            memory,
            threads,
            reads,
            packed,
            lookups,
            ops,
            policy,
        }) => stratagraph_bench::capped::run(&stratagraph_bench::capped::CappedArgs {
            data: w1.data,
            scale: w1.run.scale,
            store,
            phase,
            memory,
            threads,
            reads,
            packed,
            out: w1.run.out,
            lookups,
            ops,
            policy,
        }),
        Command::Bench(BenchCommand::Levels {
            w1,
            homes,
            dir,
            skip_single,
        }) => stratagraph_bench::levels::run(&stratagraph_bench::levels::LevelsArgs {
            data: w1.data,
            scale: w1.run.scale,
            runs: w1.run.runs,
            homes,
            dir: dir.unwrap_or_else(|| std::env::temp_dir().join("stratagraph-bench-levels")),
            skip_single,
            out: w1.run.out,
        }),
        Command::Bench(BenchCommand::Gremlin {
            dataset,
            graphson,
            csv,
            queries,
            runs,
            warmup_seconds,
            index,
            out,
        }) => bench_gremlin(
            dataset,
            graphson,
            csv,
            queries,
            runs,
            warmup_seconds,
            index,
            out,
        ),
        Command::Bench(BenchCommand::Props { run }) => {
            stratagraph_bench::props::run(&stratagraph_bench::props::PropsArgs {
                scale: run.scale,
                runs: run.runs,
                out: run.out,
            })
        }
        Command::Bench(BenchCommand::EdgeLayout { w1, labels, seed }) => {
            stratagraph_bench::edge_layout::run(&stratagraph_bench::edge_layout::EdgeLayoutArgs {
                data: w1.data,
                scale: w1.run.scale,
                labels,
                runs: w1.run.runs,
                seed,
                out: w1.run.out,
            })
        }
        Command::Bench(BenchCommand::Core { w1, batch, ops }) => {
            stratagraph_bench::core::run(&stratagraph_bench::core::CoreArgs {
                data: w1.data,
                scale: w1.run.scale,
                runs: w1.run.runs,
                batch,
                out: w1.run.out,
                ops,
            })
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn bench_w1(
    w1: W1Opts,
    threads: Vec<usize>,
    homes: &[String],
    scratch: Option<PathBuf>,
    quick: bool,
    ops: Vec<String>,
) -> Result<(), Box<dyn std::error::Error>> {
    use stratagraph_bench::w1::{run, Home, W1Args};
    let homes = homes
        .iter()
        .map(|h| Home::parse(h))
        .collect::<Result<Vec<_>, _>>()?;
    run(&W1Args {
        data: w1.data,
        scale: if quick { 14 } else { w1.run.scale },
        threads,
        homes,
        runs: if quick { 1 } else { w1.run.runs },
        out: w1.run.out,
        scratch,
        ops,
    })
}

#[allow(clippy::too_many_arguments)]
fn bench_gremlin(
    dataset: String,
    graphson: Option<PathBuf>,
    csv: Option<PathBuf>,
    queries: Option<PathBuf>,
    runs: usize,
    warmup_seconds: f64,
    index: Vec<String>,
    out: Option<PathBuf>,
) -> Result<(), Box<dyn std::error::Error>> {
    use stratagraph_bench::gremlin::{run, GremlinArgs, Source};
    let source = match (graphson, csv) {
        (Some(f), _) => Source::GraphSon(f),
        (_, Some(d)) => Source::Csv(d),
        (None, None) => match dataset.as_str() {
            "grateful" => Source::GraphSon("../shared/tinkerpop/data/grateful-dead.json".into()),
            "k20p" => Source::Csv("/work/data/props/k20p".into()),
            other => {
                return Err(format!("--dataset {other}: give --graphson FILE or --csv DIR").into())
            }
        },
    };
    let queries =
        queries.unwrap_or_else(|| PathBuf::from(format!("bench/gremlin/queries-{dataset}.txt")));
    run(&GremlinArgs {
        dataset,
        source,
        queries,
        runs,
        warmup_seconds,
        index: index.into_iter().filter(|k| !k.is_empty()).collect(),
        out,
    })
}

fn graphalytics(dir: &std::path::Path, threads: usize) -> Result<(), Box<dyn std::error::Error>> {
    use stratagraph_algo::graphalytics::{run_suite_with, summary_line};
    let outcomes = run_suite_with(dir, threads, stratagraph_algo::snapshot_of_spec)?;
    for o in &outcomes {
        println!("{o}");
    }
    println!("{}", summary_line(&outcomes));
    if outcomes.is_empty() || outcomes.iter().any(|o| !o.passed) {
        return Err(format!("graphalytics validation failed in {}", dir.display()).into());
    }
    Ok(())
}

fn demo(path: &std::path::Path, directed: bool) -> Result<(), Box<dyn std::error::Error>> {
    let t = Instant::now();
    let mut reader = stratagraph_io::Reader::open(path, stratagraph_io::Grammar::default())?;
    let (mut edges, mut batch) = (Vec::new(), Vec::new());
    while reader.read_edges(1 << 20, &mut batch)? > 0 {
        edges.extend_from_slice(&batch);
    }
    println!(
        "read {} edge lines from {} in {:.2?}",
        edges.len(),
        path.display(),
        t.elapsed()
    );
    let opts = Options {
        directed,
        ..Options::default()
    };
    let g = Graph::in_memory(opts);
    let t = Instant::now();
    g.insert_edges(&edges)?;
    println!("batch load: {:.2?}", t.elapsed());
    let loaded = g.snapshot();

    // Stream: delete every 10th edge one transaction at a time, then put it back.
    let stream: Vec<(u64, u64)> = edges.iter().step_by(10).map(|&(s, d, _)| (s, d)).collect();
    let t = Instant::now();
    let mut deleted = 0;
    for &(s, d) in &stream {
        if g.delete_edge(s, d).is_ok() {
            deleted += 1;
        }
    }
    let mid = g.snapshot();
    for &(s, d) in &stream {
        g.insert_edge(s, d, 2.0)?;
    }
    let n = 2 * stream.len();
    let secs = t.elapsed().as_secs_f64();
    println!(
        "streamed {n} single-edge transactions in {secs:.2}s ({:.0} commits/s)",
        n as f64 / secs
    );
    let now = g.snapshot();
    for (name, s) in [("after load", &loaded), ("mid-stream", &mid), ("now", &now)] {
        println!(
            "snapshot {name:>10}: ts {:>8}  vertices {:>8}  edges {:>9}",
            s.timestamp(),
            s.vertex_count(),
            s.edge_count()
        );
    }
    assert_eq!(mid.edge_count() + deleted, loaded.edge_count());
    let stats = g.stats();
    println!(
        "memory: {} bytes ({:.1} bytes/edge), {} stored edge versions",
        stats.total_bytes(),
        stats.total_bytes() as f64 / stats.edges.max(1) as f64,
        stats.memory.entries
    );
    let top = now
        .vertices()
        .max_by_key(|&v| (now.out_degree_of(v), std::cmp::Reverse(v)))
        .map(|v| now.external_id_unchecked(v));
    if let Some(v) = top {
        let neigh: Vec<u64> = now
            .out_neighbors(v)
            .into_iter()
            .flatten()
            .take(8)
            .filter_map(|u| now.external_id(u))
            .collect();
        println!(
            "vertex {v} has the largest out-degree ({}); first neighbours: {neigh:?}",
            now.out_degree(v).unwrap_or(0)
        );
    }
    Ok(())
}

/// A byte count with an optional K, M or G suffix (powers of 1024).
fn size_arg(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let (digits, shift) = match t.char_indices().last() {
        Some((i, 'K' | 'k')) => (&t[..i], 10),
        Some((i, 'M' | 'm')) => (&t[..i], 20),
        Some((i, 'G' | 'g')) => (&t[..i], 30),
        _ => (t, 0),
    };
    let n: usize = digits
        .parse()
        .map_err(|_| format!("{s:?}: expected a byte count such as 256M"))?;
    n.checked_mul(1 << shift)
        .ok_or_else(|| format!("{s:?}: too large"))
}
