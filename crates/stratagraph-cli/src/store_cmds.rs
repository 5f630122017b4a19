//! `stratagraph load`, `algo`, `check` and `stats`: filling an on-disk store
//! from files, running an analytics kernel on it with Graphalytics output,
//! inspecting it for damage, and describing it.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::{BufWriter, Write};
use std::path::Path;
use stratagraph::{Graph, Options, Value};
use stratagraph_algo::{
    betweenness_single_source, bfs, cdlp, lcc, pagerank, sssp, triangle_count, wcc, GraphView,
    BFS_UNREACHABLE, WCC_HOLE,
};
use stratagraph_io::{Grammar, Reader, Records};

/// Edges per atomic batch while loading: large enough to amortise a batch,
/// small enough that the MemGraph flushes in between.
const BATCH: usize = 1 << 20;
/// Heap bytes an edge of an edge-list batch takes at the batch's peak:
/// parsed (24), its ids (8), grouped by source and by destination for
/// the two directions (about 25 each), and the copies the sort keeps
/// (measured with heaptrack on a k20 load: 1M-edge batches, ~110 MB).
const BATCH_EDGE_BYTES: usize = 110;

/// Below this many directed edges, `stats` says its bytes per edge are
/// mostly fixed costs.
const SMALL_STORE_EDGES: u64 = 100_000;

/// Files at least this large get a progress bar.
const BAR_BYTES: u64 = 64 << 20;

type Res<T = ()> = Result<T, Box<dyn std::error::Error>>;

/// The options to open the store in `dir` with: its kinds from its
/// manifest, or (a new store) `asked` for directed and integer ids.
pub(crate) fn options(dir: &Path, asked: Option<bool>) -> Res<Options> {
    Ok(Options {
        directed: stratagraph::resolve_directed(dir, asked)?,
        string_ids: stratagraph::stored_string_ids(dir)?.unwrap_or(false),
        ..Options::default()
    })
}

/// The property-graph files `load` reads after the edge lists, and
/// whether a new store names vertices by string keys.
pub struct PropertyInputs {
    pub parquet: Option<std::path::PathBuf>,
    pub graphson: Vec<std::path::PathBuf>,
    pub vertices: Vec<stratagraph_io::csv::CsvFile>,
    pub edges: Vec<stratagraph_io::csv::CsvFile>,
    pub batch: usize,
    pub string_ids: bool,
}

/// Loads `inputs` into the store in `dir` (created if missing): `.v` files
/// list vertices, anything else is an edge list in the grammar of
/// `stratagraph_io::edgelist` (Graphalytics `.e` files are such lists);
/// then the property graphs of `props`. Every batch is atomic; the store
/// is closed at the end.
pub fn load(
    dir: &Path,
    inputs: &[std::path::PathBuf],
    props: &PropertyInputs,
    memory: usize,
    directed: Option<bool>,
) -> Res {
    let new_store = stratagraph::stored_string_ids(dir)?.is_none();
    let mut opts = options(dir, directed)?;
    let batch = if memory == 0 {
        BATCH
    } else {
        opts.memgraph_bytes = (memory / 8).max(1 << 20);
        (memory / 8 / BATCH_EDGE_BYTES).clamp(1 << 12, BATCH)
    };
    if let (Some(p), true) = (&props.parquet, new_store) {
        // A new store takes the export's kind; a flag that says otherwise
        // is refused before anything is created.
        let (export_directed, export_keys) = stratagraph_io::graphar::stored_kind(p)?;
        if directed.is_some_and(|d| d != export_directed) || (props.string_ids && !export_keys) {
            return Err(format!(
                "{}: the export is of {} store{}; the flags ask for another kind",
                p.display(),
                if export_directed {
                    "a directed"
                } else {
                    "an undirected"
                },
                if export_keys { " with string ids" } else { "" },
            )
            .into());
        }
        opts.directed = export_directed;
        opts.string_ids = export_keys;
    }
    if props.string_ids && new_store {
        opts.string_ids = true;
    }
    if props.string_ids && !opts.string_ids {
        return Err(format!(
            "{}: --string-ids: the store exists and names vertices by integers",
            dir.display()
        )
        .into());
    }
    let g = Graph::open(dir, opts)?;
    let r = load_parquet(&g, props)
        .and_then(|()| load_edge_lists(&g, inputs, batch))
        .and_then(|()| load_property_graphs(&g, props));
    let closed = g.close();
    r?;
    closed?;
    let s = g.snapshot();
    // Every run file, in L0 and in the levels (`stats().runs` counts L0
    // only, which `close` has just merged into a level).
    println!(
        "{}: {} vertices, {} edges, {} property edges, {} run(s) on disk",
        dir.display(),
        s.vertex_count(),
        s.edge_count(),
        g.stats().property_edges,
        g.runs().len()
    );
    // Closed and durable: freeing millions of property values one by one
    // would only delay the exit (a fifth of a property-graph load).
    drop(s);
    std::mem::forget(g);
    Ok(())
}

/// Loads an export (`stratagraph export`), which is checked whole before
/// anything is written.
fn load_parquet(g: &Graph, p: &PropertyInputs) -> Res {
    let Some(dir) = &p.parquet else {
        return Ok(());
    };
    let l = stratagraph_io::graphar::import(g, dir, p.batch).map_err(|e| {
        let l = e.loaded();
        if l == stratagraph_io::Loaded::default() {
            format!("{e}\nnothing of the export was loaded")
        } else {
            format!(
                "{e}\n{} vertices and {} edges of the export were committed before it and stay",
                l.vertices, l.edges
            )
        }
    })?;
    println!(
        "{}: {} vertices, {} edges",
        dir.display(),
        l.vertices,
        l.edges
    );
    Ok(())
}

/// Writes the changes after `since` to `out` (`stratagraph changes`).
pub fn changes(dir: &Path, since: u64, out: &Path) -> Res {
    let g = open_read_only(dir, None)?;
    let (until, rows, bytes) = stratagraph_io::changes::write_parquet(&g, since, out)?;
    println!(
        "{}: {rows} changes after timestamp {since} up to {until} ({bytes} bytes); next --since {until}",
        out.display()
    );
    Ok(())
}

/// Writes a checkpoint of the store in `dir`, or lists them
/// (`stratagraph checkpoint`).
pub fn checkpoint(dir: &Path, list: bool) -> Res {
    if list {
        for (ts, path) in stratagraph::checkpoints(dir)? {
            println!("{ts}\t{}", path.display());
        }
        return Ok(());
    }
    existing_store(dir)?;
    let g = Graph::open(dir, options(dir, None)?)?;
    let started = std::time::Instant::now();
    let (ts, path) = g.save_checkpoint()?;
    g.close()?;
    println!(
        "checkpoint at timestamp {ts}: {} ({:.2} s)",
        path.display(),
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Writes a snapshot of the store in `dir` to `out` (`stratagraph export`).
pub fn export(
    dir: &Path,
    out: &Path,
    as_of: Option<u64>,
    chunks: stratagraph_io::graphar::Chunks,
) -> Res {
    let g = open_read_only(dir, None)?;
    let started = std::time::Instant::now();
    let snap = g.snapshot();
    let done = match as_of {
        // The newest state needs no rebuild.
        None => stratagraph_io::graphar::export(&snap, out, chunks)?,
        Some(ts) if ts == snap.timestamp() => stratagraph_io::graphar::export(&snap, out, chunks)?,
        Some(ts) => {
            let r = stratagraph_io::as_of::rebuild(&g, ts)?;
            println!(
                "state at timestamp {ts}: checkpoint {} and {} commits after it replayed",
                r.checkpoint, r.replayed
            );
            stratagraph_io::graphar::export_at(&r.graph.snapshot(), out, chunks, ts)?
        }
    };
    println!(
        "{}: {} vertices, {} property edges, {} weighted edges at timestamp {}: {} files, {} bytes, {:.2} s",
        out.display(),
        done.vertices,
        done.edges,
        done.weighted_edges,
        done.timestamp,
        done.files,
        done.bytes,
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Loads GraphSON and CSV property graphs; a failure says what stayed
/// loaded before it.
fn load_property_graphs(g: &Graph, p: &PropertyInputs) -> Res {
    use stratagraph_io::{LoadError, LoadOptions};
    let opts = LoadOptions { batch: p.batch };
    let told = |e: LoadError| {
        let l = e.loaded();
        format!(
            "{e}\n{} vertices and {} property edges of this load were committed before it and stay ({} batches)",
            l.vertices, l.edges, l.batches
        )
    };
    for f in &p.graphson {
        let l = stratagraph_io::graphson::load(g, f, opts).map_err(told)?;
        println!(
            "{}: {} vertices, {} property edges",
            f.display(),
            l.vertices,
            l.edges
        );
    }
    if !p.vertices.is_empty() || !p.edges.is_empty() {
        let l = stratagraph_io::csv::load(g, &p.vertices, &p.edges, opts).map_err(told)?;
        println!("csv: {} vertices, {} property edges", l.vertices, l.edges);
    }
    Ok(())
}

fn load_edge_lists(g: &Graph, inputs: &[std::path::PathBuf], batch: usize) -> Res {
    for input in inputs {
        let records = Records::for_file(input);
        let grammar = Grammar {
            records,
            ..Grammar::default()
        };
        let mut reader = Reader::open(input, grammar)?;
        let bar = if reader.file_size() >= BAR_BYTES {
            let bar = ProgressBar::new(reader.file_size());
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:40}] {bytes}/{total_bytes} {eta}")?
                    .progress_chars("=> "),
            );
            bar.set_message(input.display().to_string());
            bar
        } else {
            ProgressBar::hidden()
        };
        let mut count = 0u64;
        loop {
            let n = reader.load_batch(g, batch)?;
            bar.set_position(reader.bytes_read());
            if n == 0 {
                break;
            }
            count += n as u64;
        }
        bar.finish_and_clear();
        let what = match records {
            Records::Vertices => "vertices",
            Records::Edges => "edges",
        };
        println!("{}: {count} {what}", input.display());
    }
    Ok(())
}

/// The kernels `algo` runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Kernel {
    /// Breadth-first search depths from --source.
    Bfs,
    /// Weighted shortest-path distances from --source.
    Sssp,
    /// Weakly connected components.
    Wcc,
    /// PageRank (--iterations, --damping).
    Pr,
    /// Local clustering coefficient.
    Lcc,
    /// Community detection by label propagation (--iterations).
    Cdlp,
    /// Global triangle count.
    Tc,
    /// Betweenness centrality from --source.
    Bc,
}

impl Kernel {
    fn takes_source(self) -> bool {
        matches!(self, Kernel::Bfs | Kernel::Sssp | Kernel::Bc)
    }

    fn takes_iterations(self) -> bool {
        matches!(self, Kernel::Pr | Kernel::Cdlp)
    }

    fn name(self) -> &'static str {
        match self {
            Kernel::Bfs => "bfs",
            Kernel::Sssp => "sssp",
            Kernel::Wcc => "wcc",
            Kernel::Pr => "pr",
            Kernel::Lcc => "lcc",
            Kernel::Cdlp => "cdlp",
            Kernel::Tc => "tc",
            Kernel::Bc => "bc",
        }
    }

    /// Refuses a parameter given to a kernel that does not take it, rather
    /// than ignoring it: the user meant something by it.
    fn check(self, a: &AlgoArgs<'_>) -> Res {
        let refuse = |flag: &str, takers: &str| -> Res {
            Err(format!("{} takes no {flag}; {takers}", self.name()).into())
        };
        if a.source.is_some() && !self.takes_source() {
            return refuse("--source", "bfs, sssp and bc do");
        }
        if a.iterations.is_some() && !self.takes_iterations() {
            return refuse("--iterations", "pr and cdlp do");
        }
        if a.damping.is_some() && self != Kernel::Pr {
            return refuse("--damping", "pr does");
        }
        if self.takes_source() && a.source.is_none() {
            return Err(format!("{} needs --source ID", self.name()).into());
        }
        Ok(())
    }
}

/// What `algo` computes, with its parameters.
pub struct AlgoArgs<'a> {
    pub kernel: Kernel,
    pub dir: &'a Path,
    /// `--directed`/`--undirected`, if given: must match the store.
    pub directed: Option<bool>,
    pub source: Option<u64>,
    pub iterations: Option<u32>,
    /// Checked by the argument parser (`stratagraph_algo::params`).
    pub damping: Option<f64>,
    pub threads: usize,
    pub out: Option<&'a Path>,
    /// Property edge labels to project to (with `weight`: a projection of
    /// property edges instead of the weighted structure).
    pub labels: &'a [String],
    pub weight: Option<String>,
    pub default_weight: Option<f64>,
}

/// Runs one kernel on the store in `dir` and writes `vertex value` lines in
/// external ids (Graphalytics output: unreachable BFS depths as
/// 9223372036854775807, unreachable SSSP distances as `infinity`); `tc`
/// prints the global triangle count.
pub fn algo(a: &AlgoArgs<'_>) -> Res {
    a.kernel.check(a)?;
    let g = open_read_only(a.dir, a.directed)?;
    let s = g.snapshot();
    if a.labels.is_empty() && a.weight.is_none() {
        let ids = Ids {
            vertices: s.vertices().collect(),
            external: &|v| s.external_id_unchecked(v),
            internal: &|x| s.internal_id(x),
        };
        return run_kernel(a, &s, &ids);
    }
    // Property edges, projected (see `stratagraph_algo::projection`).
    let labels: Vec<&str> = a.labels.iter().map(String::as_str).collect();
    let p = stratagraph_algo::project(
        &s,
        &stratagraph_algo::Projection {
            labels: &labels,
            weight: a.weight.as_deref(),
            default_weight: a.default_weight,
            undirected: !s.is_directed(),
        },
    )?;
    let ids = Ids {
        vertices: (0..p.id_bound()).collect(),
        external: &|v| p.external_ids()[v as usize],
        internal: &|x| p.dense_id(x),
    };
    run_kernel(a, &p, &ids)
}

/// The vertices a kernel's view holds and their external ids.
struct Ids<'a> {
    vertices: Vec<u32>,
    external: &'a dyn Fn(u32) -> u64,
    internal: &'a dyn Fn(u64) -> Option<u32>,
}

fn run_kernel<V: GraphView>(a: &AlgoArgs<'_>, view: &V, ids: &Ids<'_>) -> Res {
    let source = || -> Res<u32> {
        let ext = a
            .source
            .ok_or_else(|| format!("{} needs --source ID", a.kernel.name()))?;
        (ids.internal)(ext).ok_or_else(|| format!("source vertex {ext} is not in the store").into())
    };
    let mut out: Box<dyn Write> = match a.out {
        Some(p) => Box::new(BufWriter::new(
            std::fs::File::create(p).map_err(|e| format!("{}: {e}", p.display()))?,
        )),
        None => Box::new(BufWriter::new(std::io::stdout().lock())),
    };
    let t = a.threads;
    let iterations = a.iterations.unwrap_or(10);
    let write = |out: &mut dyn Write, value: &dyn Fn(u32) -> String| -> Res {
        for &v in &ids.vertices {
            writeln!(out, "{} {}", (ids.external)(v), value(v))?;
        }
        Ok(())
    };
    match a.kernel {
        Kernel::Bfs => {
            let d = bfs(view, source()?, t);
            write(&mut out, &|v| match d[v as usize] {
                BFS_UNREACHABLE => i64::MAX.to_string(),
                x => x.to_string(),
            })?;
        }
        Kernel::Sssp => {
            let d = sssp(view, source()?, t)?;
            write(&mut out, &|v| float(d[v as usize]))?;
        }
        Kernel::Wcc => {
            let c = wcc(view, t);
            write(&mut out, &|v| match c[v as usize] {
                WCC_HOLE => String::from("-1"),
                root => (ids.external)(root).to_string(),
            })?;
        }
        Kernel::Pr => {
            let r = pagerank(view, a.damping.unwrap_or(0.85), iterations, t);
            write(&mut out, &|v| float(r[v as usize]))?;
        }
        Kernel::Lcc => {
            let c = lcc(view, t);
            write(&mut out, &|v| float(c[v as usize]))?;
        }
        Kernel::Cdlp => {
            let l = cdlp(view, iterations, t);
            write(&mut out, &|v| l[v as usize].to_string())?;
        }
        Kernel::Bc => {
            let b = betweenness_single_source(view, source()?, t);
            write(&mut out, &|v| float(b[v as usize]))?;
        }
        Kernel::Tc => {
            writeln!(out, "{}", triangle_count(view, t))?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Graphalytics spelling of a floating-point result.
fn float(x: f64) -> String {
    if x.is_infinite() {
        String::from("infinity")
    } else {
        format!("{x:.15e}")
    }
}

/// Prints what `stratagraph::check` found in `dir`; fails if the store is
/// damaged.
pub fn check(dir: &Path) -> Res {
    let r = stratagraph::check(dir)?;
    println!("store      {}", dir.display());
    let not_a_store = r
        .problems
        .iter()
        .find(|p| matches!(p, stratagraph::Error::NotAStore { .. }));
    if let Some(p) = not_a_store {
        println!("NOT STORE  {p}");
        return Err(format!("{} is not a stratagraph store", dir.display()).into());
    }
    if r.has_manifest {
        println!(
            "manifest   ok: {} vertex ids, level files hold commits up to {}",
            r.vertices, r.durable_ts
        );
    } else if r.is_healthy() {
        println!("manifest   none (a first open died before writing it: no data, nothing lost)");
    } else {
        println!("manifest   missing or unreadable (see DAMAGE below)");
    }
    if r.levels_verified {
        println!(
            "levels     {} files, {} bytes, every block checksum verified",
            r.level_files, r.level_bytes
        );
    } else {
        println!(
            "levels     {} run files on disk, {} bytes, not verified (no readable MANIFEST names them)",
            r.level_files, r.level_bytes
        );
    }
    if r.levels_verified && r.property_vertices > 0 {
        println!(
            "properties {} properties of {} labelled or propertied vertices, every value checked",
            r.properties, r.property_vertices
        );
    }
    if r.levels_verified && r.property_edges > 0 {
        println!(
            "edges      {} property edges with {} properties, every value checked",
            r.property_edges, r.edge_properties
        );
    }
    if r.log_verified {
        println!(
            "log        {} segments, {} records, {} commits to replay on open",
            r.log_segments, r.log_records, r.commits_to_replay
        );
    } else if r.has_manifest {
        println!(
            "log        {} segments, {} intact records before the damage, not all read",
            r.log_segments, r.log_records
        );
    } else {
        println!(
            "log        {} segments, {} intact records, not checked (no readable MANIFEST)",
            r.log_segments, r.log_records
        );
    }
    if let Some((file, offset, why)) = &r.torn_tail {
        println!("torn tail  {file} at byte {offset}: {why} (dropped by the next open; normal after a crash)");
    }
    for (file, why) in &r.orphans {
        println!("orphan     {file}: {why}");
    }
    for p in &r.problems {
        println!("DAMAGE     {p}");
    }
    if r.is_healthy() {
        println!("healthy");
        Ok(())
    } else {
        Err(format!("{} problem(s) in {}", r.problems.len(), dir.display()).into())
    }
}

/// Salvages a store with a damaged log (see the `repair` command's help).
pub fn repair(dir: &Path, accept_loss: bool) -> Res {
    if !accept_loss {
        return Err("repair gives up the commits logged after the damage; \
                    run `stratagraph check` to see it, then pass --accept-loss"
            .into());
    }
    existing_store(dir)?;
    let r = stratagraph::repair(dir, options(dir, None)?)?;
    println!("store      {}", dir.display());
    match &r.loss {
        None => println!("log        no damage: nothing lost"),
        Some(loss) => {
            println!("damage     {}", loss.damage);
            println!(
                "kept       every commit up to {} ({} replayed from the log)",
                loss.kept_through_ts, r.commits_recovered
            );
            for f in &loss.set_aside {
                println!("set aside  {f} (kept as {f}.lost)");
            }
            match loss.dropped_ts {
                Some((a, b)) => println!(
                    "lost       the rest of the damaged segment, and {} commit(s) after it \
                     (timestamps {a} to {b})",
                    loss.dropped_commits
                ),
                None => println!("lost       the rest of the damaged segment"),
            }
        }
    }
    println!("repaired: the store opens normally");
    Ok(())
}

/// Refuses a directory that holds no store, before opening would create
/// one.
fn existing_store(dir: &Path) -> Res {
    if !dir.join("MANIFEST").exists() {
        return Err(format!("{} holds no stratagraph store (no MANIFEST)", dir.display()).into());
    }
    Ok(())
}

/// Opens an existing store read-only (`Options::read_only`): it needs read
/// access only, changes no file, and may be open in other readers at the
/// same time, not in a writer. Its kind is the manifest's; `asked`, if
/// given, must match it.
fn open_read_only(dir: &Path, asked: Option<bool>) -> Res<Graph> {
    existing_store(dir)?;
    let opts = Options {
        read_only: true,
        ..options(dir, asked)?
    };
    Ok(Graph::open(dir, opts)?)
}

/// Prints the store's counts (see the `stats` command's help).
pub fn stats(dir: &Path, json: bool) -> Res {
    let g = open_read_only(dir, None)?;
    let s = g.stats();
    let runs = g.runs();
    let memgraph = s.memory.slot_bytes + s.memory.table_bytes + s.memory.adjacency_bytes;
    let directed_edges = if g.options().directed {
        s.edges
    } else {
        2 * s.edges
    };
    let per_edge = |bytes: usize| {
        if directed_edges > 0 {
            bytes as f64 / directed_edges as f64
        } else {
            0.0
        }
    };
    let in_memory = s.total_bytes() - s.run_bytes;
    let value = serde_json::json!({
        "store": dir.display().to_string(),
        "directed": g.options().directed,
        "timestamp": s.timestamp,
        "vertices": s.vertices,
        "edges": s.edges,
        "ids_assigned": s.ids_assigned,
        "memgraph_bytes": memgraph,
        "id_bytes": s.id_bytes,
        "level_bytes": s.run_bytes,
        "kept_read_bytes": s.kept_read_bytes,
        "bytes_per_directed_edge": per_edge(s.total_bytes()),
        "level_bytes_per_directed_edge": per_edge(s.run_bytes),
        "memory_bytes_per_directed_edge": per_edge(in_memory),
        "l0_runs": s.runs,
        "levels": s.levels.iter().enumerate().map(|(i, l)| serde_json::json!({
            "level": i + 1, "segments": l.parts, "entries": l.entries, "bytes": l.bytes,
        })).collect::<Vec<_>>(),
        "runs": runs.iter().map(|r| serde_json::json!({
            "id": r.id, "level": r.level, "vertices": [r.vertices.start, r.vertices.end],
            "cut": r.cut, "bytes": r.bytes, "entries": r.entries,
        })).collect::<Vec<_>>(),
        "lifetime": {
            "log_bytes": s.lifetime.log_bytes,
            "level_bytes_written": s.lifetime.level_bytes_written,
            "write_amplification": s.lifetime.write_amplification(),
            "flushes": s.lifetime.flushes,
            "compactions": s.lifetime.compactions,
            "stalls": s.lifetime.stalls,
            "stall_seconds": s.lifetime.stall_seconds(),
        },
        "log_segments": s.log_segments,
        "session": {
            "log_bytes": s.log_bytes,
            "level_bytes_written": s.level_bytes_written,
            "write_amplification": s.write_amplification,
            "flushes": s.flushes,
            "compactions": s.compactions,
            "stalls": s.stalls,
            "stall_seconds": s.stall_seconds,
        },
    });
    if json {
        println!("{}", serde_json::to_string_pretty(&value)?);
    } else {
        println!(
            "store        {} ({})",
            dir.display(),
            if g.options().directed {
                "directed"
            } else {
                "undirected"
            }
        );
        println!("vertices     {}", s.vertices);
        println!("edges        {}", s.edges);
        println!("memgraph     {memgraph} bytes");
        println!("levels       {} bytes in {} runs", s.run_bytes, runs.len());
        println!("  L0         {} runs", s.runs);
        for (i, l) in s.levels.iter().enumerate() {
            println!(
                "  L{:<9} {} segments, {} entries, {} bytes",
                i + 1,
                l.parts,
                l.entries,
                l.bytes
            );
        }
        for r in &runs {
            println!(
                "  run {:<8} L{} vertices {}..{}, {} bytes, {} entries, commits up to {}",
                r.id, r.level, r.vertices.start, r.vertices.end, r.bytes, r.entries, r.cut
            );
        }
        // Per stored direction of an edge (an undirected edge is stored
        // twice); fixed costs (page-sized tables, file headers) dominate
        // small stores, so the figure only means something for large ones.
        println!(
            "per edge     {:.2} bytes of level files + {:.2} bytes of memory (MemGraph, ids, \
             kept reads), per directed edge{}",
            per_edge(s.run_bytes),
            per_edge(in_memory),
            if directed_edges < SMALL_STORE_EDGES {
                "; fixed costs dominate a store this small"
            } else {
                ""
            }
        );
        println!("log          {} segments", s.log_segments);
        let life = &s.lifetime;
        println!(
            "lifetime     write amplification {:.2}, {} flushes, {} compactions, {} stalls ({:.3} s)",
            life.write_amplification(),
            life.flushes,
            life.compactions,
            life.stalls,
            life.stall_seconds()
        );
    }
    g.close()?;
    Ok(())
}

/// A property value as JSON: JSON's own types where they say the same
/// (null, booleans, strings, finite numbers as written), and otherwise
/// `{"type": ..., "value": ...}` naming the engine's type, so an Int32 and
/// an Int64 stay apart and nothing (NaN, bytes, UUIDs, date-times) is lost.
fn value_json(v: &Value) -> serde_json::Value {
    use serde_json::json;
    let typed = |value: serde_json::Value| json!({ "type": v.type_name(), "value": value });
    match v {
        Value::Null => serde_json::Value::Null,
        Value::Bool(b) => json!(b),
        Value::String(s) => json!(s),
        Value::Int64(x) => json!(x),
        Value::Int8(x) => typed(json!(x)),
        Value::Int16(x) => typed(json!(x)),
        Value::Int32(x) => typed(json!(x)),
        Value::Float64(x) if x.is_finite() => json!(x),
        Value::Float32(x) if x.is_finite() => typed(json!(x)),
        Value::Float32(x) => typed(json!(x.to_string())),
        Value::Float64(x) => typed(json!(x.to_string())),
        Value::Bytes(b) => typed(json!(b
            .iter()
            .map(|x| format!("{x:02x}"))
            .collect::<String>())),
        Value::Uuid(u) => typed(json!(uuid_text(u))),
        Value::DateTime(d) => typed(json!({
            "seconds": d.seconds, "nanos": d.nanos, "offset_seconds": d.offset_seconds
        })),
        Value::List(items) => json!(items.iter().map(value_json).collect::<Vec<_>>()),
        Value::Set(items) => typed(json!(items.iter().map(value_json).collect::<Vec<_>>())),
        Value::Map(pairs) => typed(json!(pairs
            .iter()
            .map(|(k, x)| json!([value_json(k), value_json(x)]))
            .collect::<Vec<_>>())),
    }
}

/// A UUID in its usual 8-4-4-4-12 hex form.
fn uuid_text(u: &[u8; 16]) -> String {
    let hex: String = u.iter().map(|b| format!("{b:02x}")).collect();
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// Prints vertex `id` of the store in `dir`: its label, its properties
/// with their types, and its degrees (read-only).
pub fn vertex(dir: &Path, given: &str, json: bool) -> Res {
    let g = open_read_only(dir, None)?;
    let s = g.snapshot();
    let missing = || format!("vertex {given} does not exist in {}", dir.display());
    let id = if g.options().string_ids {
        g.key_id(given).ok_or_else(missing)?
    } else {
        given
            .parse::<u64>()
            .map_err(|_| format!("vertex {given:?}: this store names vertices by integers"))?
    };
    let Some(label) = s.label(id) else {
        return Err(missing().into());
    };
    // A vertex as the user names it: its key in a store of string keys.
    let name = |v: u64| match g.key_of(v) {
        Some(k) => serde_json::Value::from(&*k),
        None => serde_json::Value::from(v),
    };
    let props = s.properties(id).unwrap_or_default();
    let (out, inn) = (s.out_degree(id).unwrap_or(0), s.in_degree(id).unwrap_or(0));
    // Property edges by label: (label, out, in), labels in the store's order.
    let mut by_label: Vec<(String, u64, u64)> = Vec::new();
    for (dir, e) in [
        stratagraph::EdgeDirection::Out,
        stratagraph::EdgeDirection::In,
    ]
    .into_iter()
    .flat_map(|d| s.edges_of(id, d, None).into_iter().map(move |e| (d, e)))
    {
        let i = match by_label.iter().position(|(l, ..)| *l == *e.label) {
            Some(i) => i,
            None => {
                by_label.push((e.label.to_string(), 0, 0));
                by_label.len() - 1
            }
        };
        match dir {
            stratagraph::EdgeDirection::Out => by_label[i].1 += 1,
            _ => by_label[i].2 += 1,
        }
    }
    if json {
        let value = serde_json::json!({
            "id": name(id),
            "label": &*label,
            "properties": properties_json(&props),
            "out_degree": out,
            "in_degree": inn,
            "property_edges": by_label
                .iter()
                .map(|(l, o, i)| serde_json::json!({"label": l, "out": o, "in": i}))
                .collect::<Vec<_>>(),
        });
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    println!("vertex     {}", name(id));
    println!("label      {label}");
    println!("degree     {out} out, {inn} in");
    print_properties(&props);
    for (l, o, i) in &by_label {
        println!("edges      {l}: {o} out, {i} in");
    }
    Ok(())
}

/// Prints one property edge of the on-disk store in DIR (opened read-only):
/// its ends, label and properties.
pub fn edge(dir: &Path, id: u64, json: bool) -> Res {
    let g = open_read_only(dir, None)?;
    let s = g.snapshot();
    let Some(e) = s.edge(id) else {
        return Err(format!("edge {id} does not exist in {}", dir.display()).into());
    };
    let props = s.edge_properties(id).unwrap_or_default();
    let name = |v: u64| match g.key_of(v) {
        Some(k) => serde_json::Value::from(&*k),
        None => serde_json::Value::from(v),
    };
    if json {
        let value = serde_json::json!({
            "id": id,
            "src": name(e.src),
            "dst": name(e.dst),
            "label": &*e.label,
            "properties": properties_json(&props),
        });
        println!("{}", serde_json::to_string_pretty(&value)?);
        return Ok(());
    }
    println!("edge       {id}");
    println!("ends       {} -> {}", name(e.src), name(e.dst));
    println!("label      {}", e.label);
    print_properties(&props);
    Ok(())
}

fn properties_json(
    props: &[(std::sync::Arc<str>, stratagraph::Value)],
) -> serde_json::Map<String, serde_json::Value> {
    props
        .iter()
        .map(|(k, v)| (k.to_string(), value_json(v)))
        .collect()
}

fn print_properties(props: &[(std::sync::Arc<str>, stratagraph::Value)]) {
    for (k, v) in props {
        // The type is printed first, so the JSON needs no type of its own.
        let json = value_json(v);
        let shown = match &json {
            serde_json::Value::Object(o) if o.contains_key("type") => &o["value"],
            other => other,
        };
        println!("  {k}: {} {shown}", v.type_name());
    }
}
