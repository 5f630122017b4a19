//! `stratagraph bench durability`: the write-ahead log's cost and its
//! recovery speed, on the W1 edge stream.
//!
//! Operations (median of `--runs` runs each):
//! - `durable_insert_single`: single-edge transactions on an on-disk store,
//!   one row per sync policy (`always`, `interval10ms`, `never`) and thread
//!   count, each for `--seconds` on a fresh store; with `always` also the
//!   p50/p99/p99.9 commit latency. `insert_single_memory` is the same
//!   stream on an in-memory store (no log) for reference;
//! - `recovery_batches` / `recovery_singles`: opening a crash image (a copy
//!   of an open store's directory, which is what a crash leaves) whose log
//!   holds the whole graph as 1M-edge batches, or holds the single-edge
//!   commits of the `never` run; reported as seconds per GiB of log.
//!
//! Every run checks its result: the store must hold exactly the distinct
//! edges that were committed. RocksDB's figures for the same stream come
//! from `bench/durability/rocksdb_wal.py` (see `bench/durability/run.sh`),
//! which prints rows in the same format.

use super::rows::{median, Row, Table};
use super::w1_files::{w1_weight, W1Files};
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use stratagraph::{Graph, Options, SyncPolicy};

/// Arguments of `bench durability`.
pub struct DurabilityArgs {
    /// Folder holding the generator's `kS.*` files.
    pub data: PathBuf,
    /// Kronecker scale S.
    pub scale: u32,
    /// Runs per operation; the median is reported.
    pub runs: usize,
    /// Seconds each single-commit run lasts.
    pub seconds: f64,
    /// Where the stores are created (a temporary directory inside it).
    pub dir: PathBuf,
    /// Also write the rows as TSV here.
    pub out: Option<PathBuf>,
}

type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

fn policies() -> [(&'static str, Option<SyncPolicy>); 4] {
    [
        ("always", Some(SyncPolicy::Always)),
        (
            "interval10ms",
            Some(SyncPolicy::Interval(Duration::from_millis(10))),
        ),
        ("never", Some(SyncPolicy::Never)),
        ("memory", None),
    ]
}

/// Runs the benchmark.
///
/// # Errors
/// A missing workload file, an engine error, or a store that does not hold
/// what was committed.
pub fn run(args: &DurabilityArgs) -> Res {
    let files = W1Files::new(&args.data, args.scale);
    let graph = files.graph_name();
    let edges: Vec<(u64, u64, f64)> = files
        .edges()?
        .into_iter()
        .map(|(s, d)| {
            let (s, d) = (u64::from(s), u64::from(d));
            (s, d, w1_weight(s, d))
        })
        .collect();
    std::fs::create_dir_all(&args.dir)?;
    let mut table = Table::new();
    let row = |op: String, threads: usize, value: f64, unit: &'static str, checksum: String| Row {
        system: "stratagraph",
        graph: graph.clone(),
        op,
        threads,
        value,
        unit,
        checksum,
    };
    let mut singles_image: Option<(tempfile::TempDir, u64, u64)> = None;
    for (name, policy) in policies() {
        for threads in [1, 2] {
            let mut rates = Vec::new();
            let mut latencies = Vec::new();
            let mut checksum = 0;
            for run in 0..args.runs {
                let work = tempfile::tempdir_in(&args.dir)?;
                let g = match policy {
                    Some(sync) => Graph::open(
                        work.path(),
                        Options {
                            sync,
                            ..Options::default()
                        },
                    )?,
                    None => Graph::in_memory(Options::default()),
                };
                let t = Instant::now();
                let (done, lat) = insert_for(&g, &edges, threads, args.seconds)?;
                let secs = t.elapsed().as_secs_f64();
                let distinct = distinct(&edges[..done]);
                let held = g.snapshot().edge_count();
                if held != distinct {
                    return Err(format!(
                        "{name} on {threads} threads: the store holds {held} edges, \
                         {distinct} distinct ones were committed"
                    )
                    .into());
                }
                checksum = distinct;
                rates.push(done as f64 / secs);
                latencies.extend(lat);
                if name == "never" && threads == 2 && run == 0 {
                    // The crash image for `recovery_singles`.
                    let image = tempfile::tempdir_in(&args.dir)?;
                    copy_dir(work.path(), image.path())?;
                    singles_image = Some((image, log_bytes(work.path())?, distinct));
                }
                drop(g);
            }
            let op = if policy.is_some() {
                format!("durable_insert_single/{name}")
            } else {
                "insert_single_memory".to_string()
            };
            table.push(row(
                op.clone(),
                threads,
                median(&rates),
                "commits/s",
                format!("edges={checksum}"),
            ));
            if name == "always" {
                latencies.sort_unstable();
                for (q, label) in [(0.5, "p50"), (0.99, "p99"), (0.999, "p99.9")] {
                    let at = ((latencies.len() as f64 - 1.0) * q).round() as usize;
                    let us = latencies.get(at).map_or(0.0, |d| d.as_secs_f64() * 1e6);
                    table.push(row(
                        format!("{op}/latency_{label}"),
                        threads,
                        us,
                        "us",
                        String::new(),
                    ));
                }
            }
        }
    }
    recovery_rows(&mut table, &row, &edges, args, singles_image)?;
    print_summary(&table);
    if let Some(out) = &args.out {
        table.save(out)?;
    }
    Ok(())
}

/// Inserts `edges` one transaction each on `threads` threads (interleaved
/// chunks) until `seconds` pass or the edges run out. Returns how many
/// leading edges were committed (every edge before that index is) and
/// each commit's latency.
fn insert_for(
    g: &Graph,
    edges: &[(u64, u64, f64)],
    threads: usize,
    seconds: f64,
) -> stratagraph::Result<(usize, Vec<Duration>)> {
    const CHUNK: usize = 256;
    let deadline = Instant::now() + Duration::from_secs_f64(seconds);
    let chunks: Vec<&[(u64, u64, f64)]> = edges.chunks(CHUNK).collect();
    // Chunks are claimed in order, so the committed edges form a prefix
    // once every claimed chunk is finished.
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<stratagraph::Result<Vec<Duration>>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut lat = Vec::new();
                    loop {
                        if Instant::now() >= deadline {
                            return Ok(lat);
                        }
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(chunk) = chunks.get(k) else {
                            return Ok(lat);
                        };
                        for &(s, d, w) in *chunk {
                            let t = Instant::now();
                            g.insert_edge(s, d, w)?;
                            lat.push(t.elapsed());
                        }
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    let mut all = Vec::new();
    for r in results {
        all.extend(r?);
    }
    let claimed = next
        .load(std::sync::atomic::Ordering::Relaxed)
        .min(chunks.len());
    let done = (claimed * CHUNK).min(edges.len());
    Ok((done, all))
}

fn distinct(edges: &[(u64, u64, f64)]) -> u64 {
    edges
        .iter()
        .map(|&(s, d, _)| (s, d))
        .collect::<HashSet<_>>()
        .len() as u64
}

fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    for e in std::fs::read_dir(from)? {
        let e = e?;
        std::fs::copy(e.path(), to.join(e.file_name()))?;
    }
    Ok(())
}

/// Bytes of log in `dir`, not counting the zeros the newest segment is
/// filled with ahead of its records (a record ending in zero bytes is
/// undercounted by those few bytes).
fn log_bytes(dir: &Path) -> std::io::Result<u64> {
    let mut n = 0;
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        if e.file_name().to_string_lossy().starts_with("wal-") {
            let bytes = std::fs::read(e.path())?;
            n += bytes
                .iter()
                .rposition(|&b| b != 0)
                .map_or(0, |i| i as u64 + 1);
        }
    }
    Ok(n)
}

/// Times opening crash images: the whole graph logged as batches, and the
/// single commits of the `never` run.
fn recovery_rows(
    table: &mut Table,
    row: &impl Fn(String, usize, f64, &'static str, String) -> Row,
    edges: &[(u64, u64, f64)],
    args: &DurabilityArgs,
    singles: Option<(tempfile::TempDir, u64, u64)>,
) -> Res {
    let live = tempfile::tempdir_in(&args.dir)?;
    let image = tempfile::tempdir_in(&args.dir)?;
    {
        let g = Graph::open(
            live.path(),
            Options {
                sync: SyncPolicy::Never,
                memgraph_bytes: usize::MAX, // everything stays in the log
                ..Options::default()
            },
        )?;
        for batch in edges.chunks(1 << 20) {
            g.insert_edges(batch)?;
        }
        copy_dir(live.path(), image.path())?;
    }
    let image_bytes = log_bytes(image.path())?;
    let batches = (image, image_bytes, distinct(edges));
    for (op, img) in [
        ("recovery_batches", Some(batches)),
        ("recovery_singles", singles),
    ] {
        let Some((dir, bytes, expected)) = img else {
            continue;
        };
        let mut secs = Vec::new();
        for _ in 0..args.runs {
            let work = tempfile::tempdir_in(&args.dir)?;
            copy_dir(dir.path(), work.path())?;
            let t = Instant::now();
            let g = Graph::open(work.path(), Options::default())?;
            secs.push(t.elapsed().as_secs_f64());
            let held = g.snapshot().edge_count();
            if held != expected {
                return Err(format!("{op}: recovered {held} edges, expected {expected}").into());
            }
        }
        let gib = bytes as f64 / f64::from(1u32 << 30);
        let s = median(&secs);
        table.push(row(
            format!("{op}/log_bytes"),
            1,
            bytes as f64,
            "bytes",
            String::new(),
        ));
        table.push(row(
            op.to_string(),
            1,
            s / gib,
            "s/GiB",
            format!("edges={expected}"),
        ));
    }
    Ok(())
}

/// Ratios that say what the log costs: group commit's gain, and the policies
/// against each other.
fn print_summary(t: &Table) {
    let get = |name: &str, threads| {
        t.value(
            "stratagraph",
            &format!("durable_insert_single/{name}"),
            threads,
        )
    };
    if let (Some(a1), Some(a2)) = (get("always", 1), get("always", 2)) {
        println!(
            "# group commit: always on 2 threads / 1 thread = {:.2}x",
            a2 / a1
        );
    }
    if let (Some(a1), Some(i1), Some(n1)) =
        (get("always", 1), get("interval10ms", 1), get("never", 1))
    {
        println!(
            "# 1 thread: interval10ms / always = {:.1}x, never / always = {:.1}x",
            i1 / a1,
            n1 / a1
        );
    }
    if let (Some(n1), Some(m1)) = (
        get("never", 1),
        t.value("stratagraph", "insert_single_memory", 1),
    ) {
        println!("# 1 thread: never / in-memory (log cost) = {:.2}x", n1 / m1);
    }
}
