//! `stratagraph bench gremlin`: gremlin-lang queries on an in-memory store
//! of a property graph, timed the way `bench/peers/tinkergraph`'s
//! `TinkerBench` times them on TinkerGraph, so the two result files can be
//! read side by side (`bench/gremlin/README.md`).
//!
//! The graph: a GraphSON 3.0 file (`--graphson`, TinkerPop's
//! grateful-dead) or a folder of typed-header CSV files (`--csv`, the
//! `k20p` of `bench/props/gen_props.py`: `v-<label>.csv` vertex files,
//! `e-<label>-<src>-<dst>.csv` edge files, loaded in name order, the label
//! from the file name). Then, for each key of `--index`, an index of that
//! key under every vertex label (TinkerGraph's `createIndex(key,
//! Vertex.class)` covers every label; the engine's indexes are per label).
//!
//! Each query (a line `name<TAB>text` of the queries file) is warmed up
//! (run until `--warmup-seconds` have passed, at least once, at most
//! 10,000 times), then run `--runs` times; a run is
//! [`stratagraph_gremlin::execute`] on the text: parse, plan, run on one
//! snapshot, every result collected. Rows: `system dataset query median_s
//! min_s results checksum sample`.
//!
//! The checksum is TinkerBench's: each result rendered as text ([`render`]),
//! the texts sorted by their bytes, joined by `\n`, hashed with 64-bit
//! FNV-1a ([`checksum`]).

use super::rows::{machine_header, median, rss_bytes, significant};
use std::path::{Path, PathBuf};
use std::time::Instant;
use stratagraph::{Graph, Options};
use stratagraph_gremlin::{Bindings, GValue};
use stratagraph_io::{csv::CsvFile, LoadOptions};

/// Arguments of `bench gremlin`.
pub struct GremlinArgs {
    /// The dataset's name in the rows (`grateful`, `k20p`).
    pub dataset: String,
    /// Where the graph is.
    pub source: Source,
    /// The queries file.
    pub queries: PathBuf,
    /// Timed runs per query.
    pub runs: usize,
    /// Warm-up per query, in seconds (at least one run).
    pub warmup_seconds: f64,
    /// Vertex property keys to index under every vertex label.
    pub index: Vec<String>,
    /// Also write the rows as TSV here.
    pub out: Option<PathBuf>,
}

/// What to load.
pub enum Source {
    /// A GraphSON 3.0 file.
    GraphSon(PathBuf),
    /// A folder of `v-*.csv` and `e-*.csv` files.
    Csv(PathBuf),
}

/// Runs at most this many warm-up runs per query.
const WARMUP_CAP: usize = 10_000;

/// Reads `name<TAB>text` lines; `#` lines and blank lines are skipped.
///
/// # Errors
/// The file cannot be read, or a line has no tab.
pub fn read_queries(path: &Path) -> Result<Vec<(String, String)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (name, q) = line.split_once('\t').ok_or_else(|| {
            format!(
                "{}:{}: expected name<TAB>query, got {line:?}",
                path.display(),
                i + 1
            )
        })?;
        out.push((name.trim().to_owned(), q.trim().to_owned()));
    }
    Ok(out)
}

/// The CSV files of a `k20p`-style folder: vertex files, then edge files,
/// each in name order, labelled from their names.
fn csv_files(dir: &Path) -> Result<(Vec<CsvFile>, Vec<CsvFile>), String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    names.sort();
    let (mut vs, mut es) = (Vec::new(), Vec::new());
    for n in names {
        let stem = &n[..n.len() - 4];
        if let Some(label) = stem.strip_prefix("v-") {
            vs.push(CsvFile::labelled(dir.join(&n), label));
        } else if let Some(rest) = stem.strip_prefix("e-") {
            let label = rest.split('-').next().unwrap_or(rest);
            es.push(CsvFile::labelled(dir.join(&n), label));
        }
    }
    Ok((vs, es))
}

fn load(source: &Source) -> Result<Graph, Box<dyn std::error::Error>> {
    let g = Graph::in_memory(Options::default());
    let opts = LoadOptions::default();
    match source {
        Source::GraphSon(path) => {
            stratagraph_io::graphson::load(&g, path, opts)?;
        }
        Source::Csv(dir) => {
            let (vs, es) = csv_files(dir)?;
            stratagraph_io::csv::load(&g, &vs, &es, opts)?;
        }
    }
    Ok(g)
}

/// The text of one result, as TinkerBench renders it: vertex `v<id>`, edge
/// `e[<src>-<label>-><dst>]` (edge ids differ between loaders, so they are
/// left out), integers in decimal, floating point with six decimals,
/// strings as they are, lists, sets and paths `[a,b]` in order, maps
/// `{k=v,...}` with entries sorted by their text.
pub fn render(v: &GValue) -> String {
    let float = |x: f64| {
        if x.is_nan() {
            "NaN".to_owned()
        } else if x.is_infinite() {
            if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
        } else {
            format!("{x:.6}")
        }
    };
    let seq = |items: &mut dyn Iterator<Item = &GValue>| {
        let parts: Vec<String> = items.map(render).collect();
        format!("[{}]", parts.join(","))
    };
    match v {
        GValue::Null => "null".to_owned(),
        GValue::Bool(b) => b.to_string(),
        GValue::Int8(x) => x.to_string(),
        GValue::Int16(x) => x.to_string(),
        GValue::Int32(x) => x.to_string(),
        GValue::Int64(x) => x.to_string(),
        GValue::BigInt(x) => x.to_string(),
        GValue::Float32(x) => float(f64::from(*x)),
        GValue::Float64(x) | GValue::BigDecimal(x) => float(*x),
        GValue::String(s) => s.to_string(),
        GValue::Vertex(id) => format!("v{id}"),
        GValue::Edge(e) => format!("e[{}-{}->{}]", e.src, e.label, e.dst),
        GValue::VertexProperty(p) => format!("vp[{}->{}]", p.key, render(&p.value)),
        GValue::Property(p) => format!("p[{}->{}]", p.key, render(&p.value)),
        GValue::Path(p) => seq(&mut p.objects()),
        GValue::List(items) | GValue::Set(items) => seq(&mut items.iter()),
        GValue::Map(entries) => {
            let mut parts: Vec<String> = entries
                .iter()
                .map(|(k, v)| format!("{}={}", render(k), render(v)))
                .collect();
            parts.sort();
            format!("{{{}}}", parts.join(","))
        }
        GValue::T(t) => format!("T.{}", stratagraph_gremlin::value::t_name(*t)),
        other => other.to_string(),
    }
}

/// 64-bit FNV-1a of the rendered results sorted by their bytes and joined
/// by `\n`, as 16 hex digits.
pub fn checksum(rendered: &[String]) -> String {
    let mut sorted: Vec<&String> = rendered.iter().collect();
    sorted.sort();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut eat = |b: u8| h = (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
    for (i, s) in sorted.iter().enumerate() {
        if i > 0 {
            eat(b'\n');
        }
        s.bytes().for_each(&mut eat);
    }
    format!("{h:016x}")
}

/// The first rendered result in sorted order, cut to 60 characters, kept
/// to one TSV field (`-` for none).
fn sample(rendered: &[String]) -> String {
    let Some(s) = rendered.iter().min() else {
        return "-".to_owned();
    };
    let s = s.replace(['\t', '\n'], " ");
    match s.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &s[..i]),
        None => s,
    }
}

fn row(
    dataset: &str,
    query: &str,
    times: &[f64],
    results: usize,
    sum: &str,
    sample: &str,
) -> String {
    let min = times.iter().copied().fold(f64::INFINITY, f64::min);
    format!(
        "stratagraph\t{dataset}\t{query}\t{}\t{}\t{results}\t{sum}\t{sample}",
        significant(median(times)),
        significant(min)
    )
}

/// Loads the graph, runs every query, prints (and with `out` writes) the
/// rows.
///
/// # Errors
/// A load error, or a query the executor refuses (named with its error).
pub fn run(args: &GremlinArgs) -> Result<(), Box<dyn std::error::Error>> {
    let queries = read_queries(&args.queries)?;
    let rss0 = rss_bytes();
    let t = Instant::now();
    let g = load(&args.source)?;
    let load_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    g.compact()?;
    let compact_s = t.elapsed().as_secs_f64();
    let none = Bindings::new();
    let labels = stratagraph_gremlin::execute(&g, "g.V().label().dedup()", &none)?;
    let t = Instant::now();
    for key in &args.index {
        for l in &labels {
            if let GValue::String(l) = l {
                g.create_index(l, key)?;
            }
        }
    }
    let index_s = t.elapsed().as_secs_f64();
    let snap = g.snapshot();
    let nv = snap.vertex_count();
    let ne = g.stats().property_edges;
    drop(snap);
    let rss = rss_bytes().saturating_sub(rss0);

    let mut lines = vec![format!(
        "# system: stratagraph {} (in memory, Options::default()), stratagraph_gremlin::execute",
        env!("CARGO_PKG_VERSION")
    )];
    lines.extend(machine_header());
    lines.push(format!(
        "# stratagraph: index on vertex keys: {} (under every vertex label, {index_s:.2} s)",
        if args.index.is_empty() {
            "none".to_owned()
        } else {
            args.index.join(",")
        }
    ));
    lines.push(format!(
        "# loaded: {nv} vertices, {ne} edges in {load_s:.1} s (+ compact {compact_s:.1} s); RSS growth {} MiB",
        rss >> 20
    ));
    lines.push(format!(
        "# runs: {} after {:.1} s of warm-up per query",
        args.runs, args.warmup_seconds
    ));
    lines.push("system\tdataset\tquery\tmedian_s\tmin_s\tresults\tchecksum\tsample".to_owned());
    for l in &lines {
        println!("{l}");
    }
    let load_row = row(
        &args.dataset,
        "_load",
        &[load_s],
        (nv + ne) as usize,
        &format!("V={nv};E={ne}"),
        "-",
    );
    println!("{load_row}");
    lines.push(load_row);

    for (name, text) in &queries {
        let exec = || {
            stratagraph_gremlin::execute(&g, text, &none)
                .map_err(|e| format!("query {name} ({text}): {e}"))
        };
        let start = Instant::now();
        let mut result = exec()?;
        for _ in 1..WARMUP_CAP {
            if start.elapsed().as_secs_f64() >= args.warmup_seconds {
                break;
            }
            result = exec()?;
        }
        let mut times = Vec::with_capacity(args.runs);
        for _ in 0..args.runs.max(1) {
            let t = Instant::now();
            result = exec()?;
            times.push(t.elapsed().as_secs_f64());
        }
        let rendered: Vec<String> = result.iter().map(render).collect();
        let line = row(
            &args.dataset,
            name,
            &times,
            result.len(),
            &checksum(&rendered),
            &sample(&rendered),
        );
        println!("{line}");
        lines.push(line);
    }
    if let Some(out) = &args.out {
        std::fs::write(out, lines.join("\n") + "\n")?;
    }
    // Freeing millions of property values one by one would only delay the
    // exit.
    std::mem::forget(g);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn checksum_is_fnv1a_of_sorted_lines() {
        // FNV-1a 64 of the empty string is the offset basis.
        assert_eq!(checksum(&[]), "cbf29ce484222325");
        // Order-insensitive.
        let a = ["v2".to_owned(), "v10".to_owned()];
        let b = ["v10".to_owned(), "v2".to_owned()];
        assert_eq!(checksum(&a), checksum(&b));
        // "a" alone: FNV-1a 64 of b"a".
        assert_eq!(checksum(&["a".to_owned()]), "af63dc4c8601ec8c");
    }

    #[test]
    fn renders_as_tinkerbench_does() {
        let m = GValue::Map(Arc::new(vec![
            (GValue::str("song"), GValue::Int64(588)),
            (GValue::str("artist"), GValue::Int64(26)),
        ]));
        assert_eq!(render(&m), "{artist=26,song=588}");
        assert_eq!(render(&GValue::Float64(1.5)), "1.500000");
        assert_eq!(
            render(&GValue::list(vec![GValue::Vertex(3), GValue::Int32(-1)])),
            "[v3,-1]"
        );
    }
}
