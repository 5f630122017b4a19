//! The property micro-benchmark, after Lissandrini et al.'s graph-database
//! micro-benchmark (the one Aster's evaluation uses), vertex side: load
//! labelled vertices with two properties, add a vertex with properties,
//! update and remove one property, read all properties of a vertex, and
//! find vertices by an equality without and with an index. Then the edge
//! side's memory: property edges as the W1-derived `k20p` data set of
//! `bench/props` has them (one of three labels, a Float64 `weight` and an
//! Int32 `since`), loaded and measured in resident bytes per edge; and
//! both, written as CSV files, loaded through the CSV loader.
//!
//! The data: `2^scale` vertices (as many as W1's graph of that scale),
//! vertex `v` labelled `person` or `software` (one in four), with `name`
//! (`"v<id>"`, a string) and `age` (`v % 100`, an Int32). Every look-up is
//! checked: the indexed answers must equal the scanned ones.

use super::rows::{median, rss_bytes, Row, Table};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;
use stratagraph::{Graph, Options, Value};

/// Arguments of `bench props`.
pub struct PropsArgs {
    /// `2^scale` vertices.
    pub scale: u32,
    /// Runs per operation; the median is reported.
    pub runs: usize,
    /// Also write the rows as TSV here.
    pub out: Option<PathBuf>,
}

/// Vertices per loading transaction.
const LOAD_TXN: u64 = 10_000;
/// Operations timed per single-operation figure.
const SINGLES: u64 = 100_000;
/// Look-ups timed by a scan (each reads every vertex).
const SCANS: u64 = 5;

fn label(v: u64) -> &'static str {
    if v % 4 == 3 {
        "software"
    } else {
        "person"
    }
}

fn props(v: u64) -> [(&'static str, Value); 2] {
    [
        ("name", Value::String(format!("v{v}"))),
        ("age", Value::Int32((v % 100) as i32)),
    ]
}

/// A deterministic sequence of vertex ids below `n`.
fn picks(n: u64, count: u64, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..count)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        })
        .collect()
}

fn loaded(n: u64) -> stratagraph::Result<Graph> {
    let g = Graph::in_memory(Options::default());
    let mut v = 0;
    while v < n {
        let mut tx = g.begin();
        for u in v..(v + LOAD_TXN).min(n) {
            tx.insert_vertex_with(u, label(u), &props(u))?;
        }
        tx.commit()?;
        v += LOAD_TXN;
    }
    Ok(g)
}

/// Property edges per vertex in the memory figure (W1's graphs have 16).
const EDGES_PER_VERTEX: u64 = 16;

const EDGE_LABELS: [&str; 3] = ["knows", "likes", "follows"];

/// Adds `EDGES_PER_VERTEX * n` property edges between seeded vertices
/// below `n`, `LOAD_TXN` per transaction; returns how many.
fn load_edges(g: &Graph, n: u64) -> stratagraph::Result<u64> {
    let m = EDGES_PER_VERTEX * n;
    let ends = picks(n, 2 * m, 31);
    let mut i = 0;
    while i < m {
        let mut tx = g.begin();
        for e in i..(i + LOAD_TXN).min(m) {
            let (src, dst) = (ends[2 * e as usize], ends[2 * e as usize + 1]);
            let props = [
                ("weight", Value::Float64((e % 1000) as f64 / 1000.0)),
                ("since", Value::Int32(2000 + (e % 25) as i32)),
            ];
            tx.add_edge(src, dst, EDGE_LABELS[(e % 3) as usize], &props)?;
        }
        tx.commit()?;
        i += LOAD_TXN;
    }
    Ok(m)
}

/// Writes the vertices of `loaded` and the edges of `load_edges` as CSV
/// files with typed headers (the format `stratagraph load --vertices
/// --edges` and Python's `Graph.load_csv` read) into `dir`.
fn write_csv(dir: &std::path::Path, n: u64) -> std::io::Result<(PathBuf, PathBuf)> {
    use std::io::Write;
    let (vpath, epath) = (dir.join("vertices.csv"), dir.join("edges.csv"));
    let mut w = std::io::BufWriter::new(std::fs::File::create(&vpath)?);
    writeln!(w, ":ID,:LABEL,name:string,age:int")?;
    for v in 0..n {
        writeln!(w, "{v},{},v{v},{}", label(v), v % 100)?;
    }
    w.flush()?;
    let mut w = std::io::BufWriter::new(std::fs::File::create(&epath)?);
    writeln!(w, ":START_ID,:END_ID,:TYPE,weight:double,since:int")?;
    let m = EDGES_PER_VERTEX * n;
    let ends = picks(n, 2 * m, 31);
    for e in 0..m {
        let (src, dst) = (ends[2 * e as usize], ends[2 * e as usize + 1]);
        let (weight, since) = ((e % 1000) as f64 / 1000.0, 2000 + e % 25);
        let label = EDGE_LABELS[(e % 3) as usize];
        writeln!(w, "{src},{dst},{label},{weight},{since}")?;
    }
    w.flush()?;
    Ok((vpath, epath))
}

fn per_second(count: u64, seconds: &[f64]) -> f64 {
    count as f64 / median(seconds)
}

/// Runs the benchmark, printing rows as they come.
///
/// # Errors
/// An engine error, or look-ups that disagree between index and scan.
pub fn run(args: &PropsArgs) -> Result<(), Box<dyn std::error::Error>> {
    let n = 1u64 << args.scale;
    let graph = format!("props{}", args.scale);
    let mut table = Table::with_notes(vec![format!(
        "# data: {n} vertices, label person/software, name (String) and age (Int32)"
    )]);
    let row = |op: &str, value: f64, unit: &'static str, checksum: String| Row {
        system: "stratagraph",
        graph: graph.clone(),
        op: op.to_owned(),
        threads: 1,
        value,
        unit,
        checksum,
    };
    let runs = args.runs.max(1);
    // Memory first, while the process has freed nothing it could reuse:
    // resident bytes the vertices, then the property edges, added.
    let before = rss_bytes();
    let g = loaded(n)?;
    let with_vertices = rss_bytes();
    let t = Instant::now();
    let m = load_edges(&g, n)?;
    let edge_load = t.elapsed().as_secs_f64();
    let with_edges = rss_bytes();
    let s = g.snapshot();
    let sample = picks(n, 1000, 5);
    let degree_sum: usize = sample
        .iter()
        .map(|&v| s.edges_of(v, stratagraph::EdgeDirection::Out, None).len())
        .sum();
    drop((s, g));
    table.push(row(
        "vertex_memory",
        with_vertices.saturating_sub(before) as f64 / n as f64,
        "bytes/vertex",
        format!("n={n}"),
    ));
    table.push(row(
        "edge_load",
        m as f64 / edge_load,
        "edges/s",
        format!("m={m}"),
    ));
    table.push(row(
        "edge_memory",
        with_edges.saturating_sub(with_vertices) as f64 / m as f64,
        "bytes/edge",
        format!("m={m};out_of_1000={degree_sum}"),
    ));
    // The same vertices and edges through the CSV loader, as a user
    // loads a file (parsing included), `LOAD_TXN` rows per transaction.
    let dir = tempfile::tempdir()?;
    let (vpath, epath) = write_csv(dir.path(), n)?;
    let mut csv_load = Vec::new();
    for _ in 0..runs {
        let g = Graph::in_memory(Options::default());
        let t = Instant::now();
        let loaded = stratagraph_io::csv::load(
            &g,
            &[stratagraph_io::csv::CsvFile::new(&vpath)],
            &[stratagraph_io::csv::CsvFile::new(&epath)],
            stratagraph_io::LoadOptions {
                batch: LOAD_TXN as usize,
            },
        )?;
        csv_load.push(t.elapsed().as_secs_f64());
        if (loaded.vertices, loaded.edges) != (n, m) {
            return Err(format!(
                "csv_load: loaded {} vertices and {} edges, expected {n} and {m}",
                loaded.vertices, loaded.edges
            )
            .into());
        }
    }
    table.push(row(
        "csv_load",
        per_second(n + m, &csv_load),
        "rows/s",
        format!("n={n};m={m}"),
    ));
    drop(dir);
    let mut load = Vec::new();
    for _ in 0..runs {
        let t = Instant::now();
        black_box(loaded(n)?);
        load.push(t.elapsed().as_secs_f64());
    }
    table.push(row(
        "load",
        per_second(n, &load),
        "vertices/s",
        format!("n={n}"),
    ));
    let g = loaded(n)?;
    let mut times = [const { Vec::new() }; 5];
    for run in 0..runs {
        let seed = 7 + run as u64;
        // Add a vertex with a label and two properties, one commit each.
        let t = Instant::now();
        for i in 0..SINGLES {
            let v = n + run as u64 * SINGLES + i;
            g.insert_vertex_with(v, label(v), &props(v))?;
        }
        times[0].push(t.elapsed().as_secs_f64());
        // Update one property of an existing vertex, one commit each.
        let targets = picks(n, SINGLES, seed);
        let t = Instant::now();
        for &v in &targets {
            g.set_property(v, "age", Value::Int32(((v + 1) % 100) as i32))?;
        }
        times[1].push(t.elapsed().as_secs_f64());
        // Remove one property, then put it back (timed apart).
        let t = Instant::now();
        for &v in &targets {
            let mut tx = g.begin();
            tx.remove_property(v, "name")?;
            tx.commit()?;
        }
        times[2].push(t.elapsed().as_secs_f64());
        for &v in &targets {
            g.set_property(v, "name", Value::String(format!("v{v}")))?;
        }
        // Read every property of a vertex.
        let s = g.snapshot();
        let reads = picks(n, 10 * SINGLES, seed + 1);
        let t = Instant::now();
        let mut total = 0usize;
        for &v in &reads {
            total += s.properties(v).map_or(0, |p| p.len());
        }
        times[3].push(t.elapsed().as_secs_f64());
        if total != 2 * reads.len() {
            return Err(format!("read {total} properties of {} vertices", reads.len()).into());
        }
        // Find by an equality, scanning.
        let t = Instant::now();
        for i in 0..SCANS {
            black_box(s.find_vertices("person", "age", &Value::Int32(i as i32)));
        }
        times[4].push(t.elapsed().as_secs_f64());
    }
    table.push(row(
        "add_vertex_with_props",
        per_second(SINGLES, &times[0]),
        "ops/s",
        String::new(),
    ));
    table.push(row(
        "update_property",
        per_second(SINGLES, &times[1]),
        "ops/s",
        String::new(),
    ));
    table.push(row(
        "remove_property",
        per_second(SINGLES, &times[2]),
        "ops/s",
        String::new(),
    ));
    table.push(row(
        "read_all_properties",
        per_second(10 * SINGLES, &times[3]),
        "ops/s",
        String::new(),
    ));
    table.push(row(
        "find_scan",
        per_second(SCANS, &times[4]),
        "ops/s",
        String::new(),
    ));
    let before_index = g.snapshot();
    let t = Instant::now();
    g.create_index("person", "age")?;
    g.create_index("person", "name")?;
    table.push(row(
        "create_two_indexes",
        t.elapsed().as_secs_f64(),
        "s",
        String::new(),
    ));
    let s = g.snapshot();
    let probes = picks(n, SINGLES, 99);
    let mut indexed = Vec::new();
    let mut found = 0usize;
    for _ in 0..runs {
        found = 0;
        let t = Instant::now();
        for &v in &probes {
            found += s
                .find_vertices("person", "name", &Value::String(format!("v{v}")))
                .len();
        }
        indexed.push(t.elapsed().as_secs_f64());
    }
    let expected = probes.iter().filter(|&&v| label(v) == "person").count();
    if found != expected {
        return Err(format!("indexed look-ups found {found}, expected {expected}").into());
    }
    table.push(row(
        "find_indexed",
        per_second(SINGLES, &indexed),
        "ops/s",
        format!("found={found}"),
    ));
    // The index and a scan agree on a value many vertices share: the
    // snapshot taken before the index existed answers by scanning.
    let by_index = s.find_vertices("person", "age", &Value::Int32(42));
    let by_scan = before_index.find_vertices("person", "age", &Value::Int32(42));
    if by_index.is_empty() || by_index != by_scan || before_index.has_index("person", "age") {
        return Err(format!(
            "age 42: {} by the index, {} by a scan",
            by_index.len(),
            by_scan.len()
        )
        .into());
    }
    if let Some(out) = &args.out {
        table.save(out)?;
    }
    Ok(())
}
