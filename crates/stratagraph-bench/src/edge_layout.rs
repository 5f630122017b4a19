//! `stratagraph bench edge-layout`: how to lay out labelled edges so that
//! "read a vertex's out-edges of one label" is fast, chosen by measurement
//! rather than by argument.
//!
//! Every directed edge of `kS.bin` gets a label in `0..L` drawn from the
//! seed, `uniform` or `skewed` (label `i` with probability proportional to
//! `1/(i+1)`, Zipf-like: a few common labels and many rare ones). The same labelled edges are then laid out four ways,
//! all static and immutable, each keeping the edge's id (its index in
//! `kS.bin`, `u64`) beside its destination (`u32`):
//! - `per_label`: one CSR per label, as kuzu keeps one relationship table
//!   per label. A label's edges of a vertex are one slice, found with two
//!   offset reads, but every label pays `V + 1` offsets.
//! - `label_ordered`: one CSR whose per-vertex list is sorted by (label,
//!   dst, edge id), with a `u16` label column. A label's range is found on
//!   that column by counting in short lists, by binary search in long ones
//!   (see `LINEAR_UP_TO`).
//! - `label_dir`: the hybrid of the two. `label_ordered`'s CSR, without
//!   its label column, plus a sparse per-vertex label directory: each
//!   vertex's distinct labels in order with the offset where each label's
//!   run starts. A label's range is found in the directory, at most `L`
//!   entries and usually fewer, rather than in the edge list; a read of
//!   every label ignores it. Measured to see whether one layout can match
//!   `per_label` on one-label reads and `label_ordered` on all-label ones.
//! - `filter`: one CSR in input order with a label column, reading one
//!   label by testing every edge of the vertex: the baseline a layout must
//!   beat, and what the store must not do.
//!
//! Operations, each summing `dst + edge id` over the edges it reads:
//! - `one_label`: the out-edges of one label of each of `QUERIES` seeded
//!   random vertices, the label drawn uniformly per query (the same
//!   vertex and label sequence for every layout);
//! - `all_labels`: every out-edge of the same vertices;
//! - `scan_one_label`: every vertex's edges of label 0, in vertex order;
//! - `scan_all`: every vertex's edges, in vertex order (for `per_label`,
//!   each vertex's lists of every label in turn, since a scan hands a
//!   kernel a vertex's whole adjacency);
//! - `build`: the layout built from the labelled edge columns.
//!
//! The layouts must agree on every operation's sum, and `scan_all`'s must
//! equal `kS.ref.json`'s `sum_dst` plus the sum of all edge ids, before a
//! figure is printed. Each (layout, operation) runs `--runs` times, the
//! layouts alternating inside each run in an order rotated run by run, so
//! a drift in the machine's load falls on every layout alike.

use crate::rows::{machine_header, median, significant};
use crate::w1_files::W1Files;
use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;
use std::time::Instant;

/// Arguments of `bench edge-layout`.
pub struct EdgeLayoutArgs {
    /// Folder holding the generator's `kS.*` files.
    pub data: PathBuf,
    /// Kronecker scale S.
    pub scale: u32,
    /// Label counts to measure, each under both distributions.
    pub labels: Vec<u32>,
    /// Runs per (layout, operation); the median is reported.
    pub runs: usize,
    /// Seed of the edge labels and of the query sequence.
    pub seed: u64,
    /// Also write the rows as TSV here.
    pub out: Option<PathBuf>,
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Point queries per `one_label` and `all_labels` run: enough that a run
/// lasts long beyond timer noise, few enough that all runs stay short.
const QUERIES: usize = 1_000_000;

/// Label columns are `u16`: a schema has far fewer than 65536 edge
/// labels, while `u8`'s 256 would be a limit a user could meet.
const MAX_LABELS: u32 = 1 << 16;

/// The layouts in row order.
const LAYOUTS: [&str; 4] = ["per_label", "label_ordered", "filter", "label_dir"];

/// Salts separating the seeded streams, so that changing how many queries
/// are drawn never changes the labels.
const SALT_LABELS: u64 = 1;
const SALT_VERTICES: u64 = 2;
const SALT_QUERY_LABELS: u64 = 3;

/// How labels are spread over the edges.
#[derive(Clone, Copy, Debug)]
enum Distribution {
    Uniform,
    Skewed,
}

impl Distribution {
    fn name(self) -> &'static str {
        match self {
            Distribution::Uniform => "uniform",
            Distribution::Skewed => "skewed",
        }
    }
}

/// SplitMix64's finaliser: consecutive inputs give unrelated outputs.
fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Element `i` of the seeded stream `salt`: a pure function of its index,
/// so every stream is reproducible from the seed alone.
fn draw(seed: u64, salt: u64, i: u64) -> u64 {
    mix(mix(seed ^ mix(salt)).wrapping_add((i + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

/// A uniform value in `0..n` from 64 random bits, without modulo bias
/// worth measuring.
fn below(bits: u64, n: u32) -> u32 {
    ((u128::from(bits) * u128::from(n)) >> 64) as u32
}

/// The label of each of `edges` edges, from the seed.
fn draw_labels(edges: usize, labels: u32, dist: Distribution, seed: u64) -> Vec<u16> {
    let bits = |i: usize| draw(seed, SALT_LABELS, i as u64);
    match dist {
        Distribution::Uniform => (0..edges).map(|i| below(bits(i), labels) as u16).collect(),
        Distribution::Skewed => {
            // The cumulative weights 1/(i+1); a uniform draw below their
            // total falls in label i's share with probability w_i / total.
            let cdf: Vec<f64> = (0..labels)
                .scan(0.0, |total, i| {
                    *total += 1.0 / f64::from(i + 1);
                    Some(*total)
                })
                .collect();
            let total = cdf[cdf.len() - 1];
            (0..edges)
                .map(|i| {
                    let unit = (bits(i) >> 11) as f64 / (1u64 << 53) as f64;
                    let x = unit * total;
                    cdf.partition_point(|&c| c <= x).min(cdf.len() - 1) as u16
                })
                .collect()
        }
    }
}

/// Directed edges with labels, as columns; an edge's id is its index.
struct Labelled<'a> {
    /// Vertex ids are `0..vertices`.
    vertices: usize,
    /// Labels are `0..labels`.
    labels: usize,
    src: &'a [u32],
    dst: &'a [u32],
    label: &'a [u16],
}

impl Labelled<'_> {
    fn edges(&self) -> usize {
        self.src.len()
    }

    /// Every edge id, in input order.
    fn identity(&self) -> Vec<u32> {
        (0..self.edges() as u32).collect()
    }
}

/// `order` stably sorted by `key` (each key below `buckets`): one counting
/// pass, so sorting by several keys is one pass per key, least significant
/// first.
fn counting_sort(order: &[u32], buckets: usize, key: impl Fn(usize) -> usize) -> Vec<u32> {
    let mut next = vec![0u32; buckets];
    for &e in order {
        next[key(e as usize)] += 1;
    }
    let mut sum = 0;
    for n in &mut next {
        let count = *n;
        *n = sum;
        sum += count;
    }
    let mut out = vec![0u32; order.len()];
    for &e in order {
        let k = key(e as usize);
        out[next[k] as usize] = e;
        next[k] += 1;
    }
    out
}

/// One CSR: the edges of vertex `v` are `offsets[v]..offsets[v + 1]` of
/// the columns. Offsets are `u32`: one CSR of a scale-20 graph holds 16M
/// edges, far below 4G, and `u64` would double `per_label`'s offset bytes
/// (`L × (V + 1)` of them).
struct Csr {
    offsets: Vec<u32>,
    dst: Vec<u32>,
    id: Vec<u64>,
}

impl Csr {
    /// The edges `order` of `g`, which must be sorted by source.
    fn gather(g: &Labelled, order: &[u32]) -> Csr {
        let mut offsets = vec![0u32; g.vertices + 1];
        for &e in order {
            offsets[g.src[e as usize] as usize + 1] += 1;
        }
        let mut sum = 0;
        for o in &mut offsets {
            sum += *o;
            *o = sum;
        }
        Csr {
            offsets,
            dst: order.iter().map(|&e| g.dst[e as usize]).collect(),
            id: order.iter().map(|&e| u64::from(e)).collect(),
        }
    }

    #[inline]
    fn range(&self, v: usize) -> Range<usize> {
        self.offsets[v] as usize..self.offsets[v + 1] as usize
    }

    /// Hands `f` the edges at `range` of the columns.
    #[inline]
    fn each(&self, range: Range<usize>, f: &mut impl FnMut(u32, u64)) {
        for (&d, &id) in self.dst[range.clone()].iter().zip(&self.id[range]) {
            f(d, id);
        }
    }

    fn bytes(&self) -> usize {
        size_of_val(&self.offsets[..]) + size_of_val(&self.dst[..]) + size_of_val(&self.id[..])
    }
}

/// What the operations need of a layout.
trait Layout: Sized {
    fn build(g: &Labelled) -> Self;
    /// Hands `f` (dst, edge id) of every out-edge of `v` labelled `label`.
    fn one_label(&self, v: usize, label: u16, f: &mut impl FnMut(u32, u64));
    /// Hands `f` (dst, edge id) of every out-edge of `v`.
    fn all_labels(&self, v: usize, f: &mut impl FnMut(u32, u64));
    /// Bytes of its arrays.
    fn bytes(&self) -> usize;
}

/// One CSR per label.
struct PerLabel {
    tables: Vec<Csr>,
}

impl Layout for PerLabel {
    fn build(g: &Labelled) -> Self {
        // Sorted by (label, src, dst, id): each label's edges are then one
        // run of `order`, each vertex's list within it sorted as
        // `label_ordered`'s is, so the two differ in layout alone.
        let by_dst = counting_sort(&g.identity(), g.vertices, |e| g.dst[e] as usize);
        let by_src = counting_sort(&by_dst, g.vertices, |e| g.src[e] as usize);
        drop(by_dst);
        let order = counting_sort(&by_src, g.labels, |e| usize::from(g.label[e]));
        drop(by_src);
        let mut rest = &order[..];
        let tables = (0..g.labels)
            .map(|l| {
                let n = rest.partition_point(|&e| usize::from(g.label[e as usize]) == l);
                let (this, after) = rest.split_at(n);
                rest = after;
                Csr::gather(g, this)
            })
            .collect();
        PerLabel { tables }
    }

    #[inline]
    fn one_label(&self, v: usize, label: u16, f: &mut impl FnMut(u32, u64)) {
        let t = &self.tables[usize::from(label)];
        t.each(t.range(v), f);
    }

    #[inline]
    fn all_labels(&self, v: usize, f: &mut impl FnMut(u32, u64)) {
        for t in &self.tables {
            t.each(t.range(v), f);
        }
    }

    fn bytes(&self) -> usize {
        self.tables.iter().map(Csr::bytes).sum()
    }
}

/// Longest list in which `label_ordered` finds a label's range by counting
/// the smaller labels rather than by `partition_point`. Counting is a
/// branch-free pass over a line or two of the label column; the binary
/// search's dependent probes and loop exits cost more there. Measured on
/// k20 with 4 and 16 labels: one_label took 9% to 23% less time with
/// counting up to 8 than with binary search alone, and thresholds 4, 16,
/// 32 and unbounded were no better than 8.
const LINEAR_UP_TO: usize = 8;

/// The edges of `g` sorted by (src, label, dst, id): the order of
/// `label_ordered`'s and `label_dir`'s CSR.
fn label_order(g: &Labelled) -> Vec<u32> {
    let by_dst = counting_sort(&g.identity(), g.vertices, |e| g.dst[e] as usize);
    let by_label = counting_sort(&by_dst, g.labels, |e| usize::from(g.label[e]));
    drop(by_dst);
    counting_sort(&by_label, g.vertices, |e| g.src[e] as usize)
}

/// One CSR, each vertex's list sorted by (label, dst, edge id).
struct LabelOrdered {
    csr: Csr,
    label: Vec<u16>,
}

impl Layout for LabelOrdered {
    fn build(g: &Labelled) -> Self {
        let order = label_order(g);
        LabelOrdered {
            csr: Csr::gather(g, &order),
            label: order.iter().map(|&e| g.label[e as usize]).collect(),
        }
    }

    #[inline]
    fn one_label(&self, v: usize, label: u16, f: &mut impl FnMut(u32, u64)) {
        let r = self.csr.range(v);
        let labels = &self.label[r.clone()];
        let (lo, hi) = if labels.len() <= LINEAR_UP_TO {
            (
                labels.iter().filter(|&&x| x < label).count(),
                labels.iter().filter(|&&x| x <= label).count(),
            )
        } else {
            let lo = labels.partition_point(|&x| x < label);
            (lo, lo + labels[lo..].partition_point(|&x| x <= label))
        };
        self.csr.each(r.start + lo..r.start + hi, f);
    }

    #[inline]
    fn all_labels(&self, v: usize, f: &mut impl FnMut(u32, u64)) {
        self.csr.each(self.csr.range(v), f);
    }

    fn bytes(&self) -> usize {
        self.csr.bytes() + size_of_val(&self.label[..])
    }
}

/// Longest directory in which `label_dir` finds a label by counting the
/// smaller labels rather than by `partition_point`. A directory holds at
/// most `L` entries, so at the measured label counts (up to 16) every
/// lookup counts; the binary search only keeps a vertex with thousands of
/// labels from costing a scan of them all. Not tuned.
const DIR_LINEAR_UP_TO: usize = 32;

/// `label_ordered`'s CSR without its label column, plus a sparse label
/// directory: vertex `v`'s distinct labels are
/// `dir_label[dir_offsets[v]..dir_offsets[v + 1]]`, in order, and the run
/// of the `i`th starts at CSR offset `dir_start[dir_offsets[v] + i]` and
/// ends where the next begins, the last at `v`'s end offset.
struct LabelDir {
    csr: Csr,
    dir_offsets: Vec<u32>,
    dir_label: Vec<u16>,
    dir_start: Vec<u32>,
}

impl Layout for LabelDir {
    fn build(g: &Labelled) -> Self {
        let order = label_order(g);
        let csr = Csr::gather(g, &order);
        let mut dir_offsets = Vec::with_capacity(g.vertices + 1);
        let mut dir_label = Vec::new();
        let mut dir_start = Vec::new();
        dir_offsets.push(0u32);
        for v in 0..g.vertices {
            let mut previous = None;
            for p in csr.range(v) {
                let l = g.label[order[p] as usize];
                if previous != Some(l) {
                    previous = Some(l);
                    dir_label.push(l);
                    dir_start.push(p as u32);
                }
            }
            dir_offsets.push(dir_label.len() as u32);
        }
        LabelDir {
            csr,
            dir_offsets,
            dir_label,
            dir_start,
        }
    }

    #[inline]
    fn one_label(&self, v: usize, label: u16, f: &mut impl FnMut(u32, u64)) {
        let d = self.dir_offsets[v] as usize..self.dir_offsets[v + 1] as usize;
        let labels = &self.dir_label[d.clone()];
        let i = if labels.len() <= DIR_LINEAR_UP_TO {
            labels.iter().filter(|&&x| x < label).count()
        } else {
            labels.partition_point(|&x| x < label)
        };
        if labels.get(i) != Some(&label) {
            return;
        }
        let start = self.dir_start[d.start + i] as usize;
        let end = if i + 1 < labels.len() {
            self.dir_start[d.start + i + 1]
        } else {
            self.csr.offsets[v + 1]
        };
        self.csr.each(start..end as usize, f);
    }

    #[inline]
    fn all_labels(&self, v: usize, f: &mut impl FnMut(u32, u64)) {
        self.csr.each(self.csr.range(v), f);
    }

    fn bytes(&self) -> usize {
        self.csr.bytes()
            + size_of_val(&self.dir_offsets[..])
            + size_of_val(&self.dir_label[..])
            + size_of_val(&self.dir_start[..])
    }
}

/// One CSR in input order per vertex, filtered on every labelled read.
struct Filter {
    csr: Csr,
    label: Vec<u16>,
}

impl Layout for Filter {
    fn build(g: &Labelled) -> Self {
        let order = counting_sort(&g.identity(), g.vertices, |e| g.src[e] as usize);
        Filter {
            csr: Csr::gather(g, &order),
            label: order.iter().map(|&e| g.label[e as usize]).collect(),
        }
    }

    #[inline]
    fn one_label(&self, v: usize, label: u16, f: &mut impl FnMut(u32, u64)) {
        let r = self.csr.range(v);
        let columns = self.label[r.clone()]
            .iter()
            .zip(&self.csr.dst[r.clone()])
            .zip(&self.csr.id[r]);
        for ((&l, &d), &id) in columns {
            if l == label {
                f(d, id);
            }
        }
    }

    #[inline]
    fn all_labels(&self, v: usize, f: &mut impl FnMut(u32, u64)) {
        self.csr.each(self.csr.range(v), f);
    }

    fn bytes(&self) -> usize {
        self.csr.bytes() + size_of_val(&self.label[..])
    }
}

/// The operations timed on a built layout.
#[derive(Clone, Copy)]
enum Op {
    OneLabel,
    AllLabels,
    ScanOneLabel,
    ScanAll,
}

const OPS: [(Op, &str); 4] = [
    (Op::OneLabel, "one_label"),
    (Op::AllLabels, "all_labels"),
    (Op::ScanOneLabel, "scan_one_label"),
    (Op::ScanAll, "scan_all"),
];

/// What an operation read: the sum of `dst + edge id` over its edges, and
/// how many edges that was.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
struct Read {
    sum: u64,
    edges: u64,
}

/// Runs `op` on `layout`: the point operations over `queries`, the scans
/// over vertices `0..vertices`.
fn perform<L: Layout>(layout: &L, op: Op, queries: &[(u32, u16)], vertices: usize) -> Read {
    let mut read = Read::default();
    let mut add = |d: u32, id: u64| {
        read.sum = read.sum.wrapping_add(u64::from(d)).wrapping_add(id);
        read.edges += 1;
    };
    match op {
        Op::OneLabel => {
            for &(v, l) in queries {
                layout.one_label(v as usize, l, &mut add);
            }
        }
        Op::AllLabels => {
            for &(v, _) in queries {
                layout.all_labels(v as usize, &mut add);
            }
        }
        Op::ScanOneLabel => {
            for v in 0..vertices {
                layout.one_label(v, 0, &mut add);
            }
        }
        Op::ScanAll => {
            for v in 0..vertices {
                layout.all_labels(v, &mut add);
            }
        }
    }
    read
}

/// A built layout of any kind, so one loop can alternate them.
enum Built {
    PerLabel(PerLabel),
    LabelOrdered(LabelOrdered),
    Filter(Filter),
    LabelDir(LabelDir),
}

impl Built {
    /// Builds layout `LAYOUTS[k]`.
    fn new(k: usize, g: &Labelled) -> Built {
        match k {
            0 => Built::PerLabel(PerLabel::build(g)),
            1 => Built::LabelOrdered(LabelOrdered::build(g)),
            2 => Built::Filter(Filter::build(g)),
            _ => Built::LabelDir(LabelDir::build(g)),
        }
    }

    fn perform(&self, op: Op, queries: &[(u32, u16)], vertices: usize) -> Read {
        match self {
            Built::PerLabel(l) => perform(l, op, queries, vertices),
            Built::LabelOrdered(l) => perform(l, op, queries, vertices),
            Built::Filter(l) => perform(l, op, queries, vertices),
            Built::LabelDir(l) => perform(l, op, queries, vertices),
        }
    }

    fn bytes(&self) -> usize {
        match self {
            Built::PerLabel(l) => l.bytes(),
            Built::LabelOrdered(l) => l.bytes(),
            Built::Filter(l) => l.bytes(),
            Built::LabelDir(l) => l.bytes(),
        }
    }
}

/// Prints lines as they come and keeps them for `--out`.
struct Output {
    lines: Vec<String>,
}

impl Output {
    fn line(&mut self, text: String) {
        println!("{text}");
        self.lines.push(text);
    }
}

/// Runs the benchmark, printing TSV rows under a machine header.
///
/// # Errors
/// A missing or malformed workload file, a label count outside
/// `1..=65536`, or layouts that disagree on what an operation read.
pub fn run(args: &EdgeLayoutArgs) -> Res<()> {
    if let Some(&l) = args.labels.iter().find(|&&l| l == 0 || l > MAX_LABELS) {
        return Err(format!("--labels {l}: each count must be in 1..={MAX_LABELS}").into());
    }
    let files = W1Files::new(&args.data, args.scale);
    let reference = files.reference()?;
    let pairs = files.edges()?;
    if pairs.len() as u64 != reference.edges || pairs.len() >= u32::MAX as usize {
        return Err(format!(
            "{} edges: the reference has {}, and ids must fit u32",
            pairs.len(),
            reference.edges
        )
        .into());
    }
    let vertices = reference.vertices as usize;
    if let Some(&(s, d)) = pairs.iter().find(|&&(s, d)| s.max(d) as usize >= vertices) {
        return Err(format!("edge ({s}, {d}) leaves the {vertices} vertices").into());
    }
    let (src, dst): (Vec<u32>, Vec<u32>) = pairs.into_iter().unzip();
    let edges = src.len() as u64;
    // scan_all reads every edge once: the reference destination sum plus
    // every edge id 0..E.
    let scan_all_sum = reference
        .sum_dst
        .wrapping_add(edges * edges.saturating_sub(1) / 2);
    let runs = args.runs.max(1);

    let mut out = Output { lines: Vec::new() };
    for line in machine_header() {
        out.line(line);
    }
    out.line(format!(
        "# data: {} ({vertices} vertices, {edges} directed edges), seed {}, {runs} runs, \
         {QUERIES} point queries (uniform random vertices, label uniform per query)",
        files.graph_name(),
        args.seed
    ));
    out.line(
        "# m_per_s: million queries/s for one_label and all_labels, million edges read/s for \
         scan_one_label and scan_all, million edges placed/s for build; checksum: sum of \
         dst + edge id over the edges read (bytes of the layout's arrays for build)"
            .into(),
    );
    out.line("distribution\tlabels\tlayout\top\tmedian_s\tmin_s\tmax_s\tm_per_s\tchecksum".into());
    for &labels in &args.labels {
        for dist in [Distribution::Uniform, Distribution::Skewed] {
            let label = draw_labels(src.len(), labels, dist, args.seed);
            let g = Labelled {
                vertices,
                labels: labels as usize,
                src: &src,
                dst: &dst,
                label: &label,
            };
            let queries: Vec<(u32, u16)> = (0..QUERIES as u64)
                .map(|i| {
                    let v = below(draw(args.seed, SALT_VERTICES, i), vertices as u32);
                    let l = below(draw(args.seed, SALT_QUERY_LABELS, i), labels) as u16;
                    (v, l)
                })
                .collect();
            let label0: (u64, u64) =
                (0..src.len())
                    .filter(|&e| label[e] == 0)
                    .fold((0, 0), |(s, n), e| {
                        (
                            s.wrapping_add(u64::from(dst[e])).wrapping_add(e as u64),
                            n + 1,
                        )
                    });
            let rows = measure(&g, &queries, runs)?;
            check(&rows, scan_all_sum, edges, label0)?;
            out.line(format!(
                "# {} L={labels}: label 0 holds {:.1}% of the edges; one_label reads {} edges per run, \
                 all_labels {}",
                dist.name(),
                100.0 * label0.1 as f64 / edges as f64,
                rows[0].ops[0].read.edges,
                rows[0].ops[1].read.edges,
            ));
            for (k, name) in LAYOUTS.iter().enumerate() {
                let r = &rows[k];
                out.line(format!(
                    "{}\t{labels}\t{name}\tbuild\t{}\tbytes={};per_edge={:.2}",
                    dist.name(),
                    timing(&r.build, edges as f64),
                    r.bytes,
                    r.bytes as f64 / edges as f64
                ));
            }
            for (o, (op, op_name)) in OPS.iter().enumerate() {
                for (k, name) in LAYOUTS.iter().enumerate() {
                    let m = &rows[k].ops[o];
                    let count = match op {
                        Op::OneLabel | Op::AllLabels => QUERIES as f64,
                        Op::ScanOneLabel | Op::ScanAll => m.read.edges as f64,
                    };
                    out.line(format!(
                        "{}\t{labels}\t{name}\t{op_name}\t{}\t{}",
                        dist.name(),
                        timing(&m.seconds, count),
                        m.read.sum
                    ));
                }
            }
        }
    }
    if let Some(path) = &args.out {
        let mut f = std::io::BufWriter::new(std::fs::File::create(path)?);
        for line in &out.lines {
            writeln!(f, "{line}")?;
        }
        f.flush()?;
    }
    Ok(())
}

/// `median_s min_s max_s m_per_s` of `seconds`, `count` items each run.
fn timing(seconds: &[f64], count: f64) -> String {
    let min = seconds.iter().copied().fold(f64::INFINITY, f64::min);
    let max = seconds.iter().copied().fold(0.0, f64::max);
    let med = median(seconds);
    format!(
        "{}\t{}\t{}\t{}",
        significant(med),
        significant(min),
        significant(max),
        significant(count / med / 1e6)
    )
}

/// One operation's runs on one layout.
struct Measured {
    seconds: Vec<f64>,
    read: Read,
}

/// One layout's figures.
struct LayoutRows {
    build: Vec<f64>,
    bytes: usize,
    ops: Vec<Measured>,
}

/// Builds and runs every layout `runs` times, alternating them within a
/// run in an order rotated by one each run. Every run of an operation
/// must read the same as the first.
fn measure(g: &Labelled, queries: &[(u32, u16)], runs: usize) -> Res<Vec<LayoutRows>> {
    let mut rows: Vec<LayoutRows> = (0..LAYOUTS.len())
        .map(|_| LayoutRows {
            build: Vec::new(),
            bytes: 0,
            ops: Vec::new(),
        })
        .collect();
    let mut built: Vec<Option<Built>> = (0..LAYOUTS.len()).map(|_| None).collect();
    for run in 0..runs {
        for i in 0..LAYOUTS.len() {
            let k = (i + run) % LAYOUTS.len();
            // Freed before the clock starts: only building is timed.
            built[k] = None;
            let t = Instant::now();
            let layout = Built::new(k, g);
            rows[k].build.push(t.elapsed().as_secs_f64());
            rows[k].bytes = layout.bytes();
            built[k] = Some(layout);
        }
    }
    let built: Vec<Built> = built.into_iter().flatten().collect();
    for run in 0..runs {
        for (o, &(op, op_name)) in OPS.iter().enumerate() {
            for i in 0..LAYOUTS.len() {
                let k = (i + run) % LAYOUTS.len();
                let t = Instant::now();
                let read = built[k].perform(op, queries, g.vertices);
                let seconds = t.elapsed().as_secs_f64();
                let ops = &mut rows[k].ops;
                if let Some(m) = ops.get_mut(o) {
                    if m.read != read {
                        return Err(format!(
                            "{} {op_name}: run {run} read {read:?}, run 0 {:?}",
                            LAYOUTS[k], m.read
                        )
                        .into());
                    }
                    m.seconds.push(seconds);
                } else {
                    ops.push(Measured {
                        seconds: vec![seconds],
                        read,
                    });
                }
            }
        }
    }
    Ok(rows)
}

/// Every layout must read the same for each operation, and the scans what
/// the labelled edges say they hold: `scan_all` every edge (`all_sum`,
/// `edges`), `scan_one_label` label 0's (`label0`: sum and count).
fn check(rows: &[LayoutRows], all_sum: u64, edges: u64, label0: (u64, u64)) -> Res<()> {
    for (o, (op, op_name)) in OPS.iter().enumerate() {
        let first = rows[0].ops[o].read;
        for (k, r) in rows.iter().enumerate() {
            if r.ops[o].read != first {
                return Err(format!(
                    "{op_name}: {} read {:?}, {} read {first:?}",
                    LAYOUTS[k], r.ops[o].read, LAYOUTS[0]
                )
                .into());
            }
        }
        let want = match op {
            Op::ScanAll => Some((all_sum, edges)),
            Op::ScanOneLabel => Some(label0),
            Op::OneLabel | Op::AllLabels => None,
        };
        if let Some((sum, edges)) = want {
            if (first.sum, first.edges) != (sum, edges) {
                return Err(format!(
                    "{op_name}: the layouts read {first:?}, the edges hold sum {sum} over {edges}"
                )
                .into());
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads `(dst, id)` pairs through `read`, sorted: the layouts may order
    /// a vertex's edges differently.
    fn collect(read: impl FnOnce(&mut dyn FnMut(u32, u64))) -> Vec<(u32, u64)> {
        let mut got = Vec::new();
        read(&mut |d, id| got.push((d, id)));
        got.sort_unstable();
        got
    }

    fn check_layout<L: Layout>(name: &str, g: &Labelled, model: &[(u32, u32, u16, u64)]) {
        let layout = L::build(g);
        for v in 0..g.vertices {
            for l in 0..g.labels as u16 {
                let mut want: Vec<(u32, u64)> = model
                    .iter()
                    .filter(|e| e.0 as usize == v && e.2 == l)
                    .map(|e| (e.1, e.3))
                    .collect();
                want.sort_unstable();
                let got = collect(|f| layout.one_label(v, l, &mut |d, id| f(d, id)));
                assert_eq!(got, want, "{name}: vertex {v} label {l}");
            }
            let mut want: Vec<(u32, u64)> = model
                .iter()
                .filter(|e| e.0 as usize == v)
                .map(|e| (e.1, e.3))
                .collect();
            want.sort_unstable();
            let got = collect(|f| layout.all_labels(v, &mut |d, id| f(d, id)));
            assert_eq!(got, want, "{name}: vertex {v}, all labels");
        }
        // The timed scans read what the model holds.
        let sum = |label: Option<u16>| {
            let mut read = Read::default();
            for e in model.iter().filter(|e| label.is_none_or(|l| e.2 == l)) {
                read.sum += u64::from(e.1) + e.3;
                read.edges += 1;
            }
            read
        };
        let scan = |op| perform(&layout, op, &[], g.vertices);
        assert_eq!(
            scan(Op::ScanOneLabel),
            sum(Some(0)),
            "{name}: scan_one_label"
        );
        assert_eq!(scan(Op::ScanAll), sum(None), "{name}: scan_all");
    }

    #[test]
    fn layouts_read_what_a_filtered_edge_list_holds() {
        // (src, dst, label); the id is the index. Vertex 3 has no edges,
        // label 3 none; vertex 0 has parallel edges with the same label
        // and destination; vertex 5's list is longer than `LINEAR_UP_TO`, so
        // `label_ordered` searches it, where it counts in the others.
        let mut edges: Vec<(u32, u32, u16)> = vec![
            (0, 1, 2),
            (0, 1, 0),
            (0, 1, 2),
            (1, 0, 1),
            (0, 4, 2),
            (2, 2, 0),
            (4, 0, 1),
            (0, 1, 2),
            (1, 4, 0),
            (4, 5, 2),
        ];
        edges.extend((0..100u32).map(|i| (5, (i * 7) % 6, (i % 3) as u16)));
        let degree = |v| edges.iter().filter(|e| e.0 == v).count();
        assert!(degree(0) <= LINEAR_UP_TO && degree(5) > LINEAR_UP_TO);
        let labels = 4;
        let vertices = 6;
        let src: Vec<u32> = edges.iter().map(|e| e.0).collect();
        let dst: Vec<u32> = edges.iter().map(|e| e.1).collect();
        let label: Vec<u16> = edges.iter().map(|e| e.2).collect();
        let model: Vec<(u32, u32, u16, u64)> = edges
            .iter()
            .enumerate()
            .map(|(i, e)| (e.0, e.1, e.2, i as u64))
            .collect();
        let g = Labelled {
            vertices,
            labels,
            src: &src,
            dst: &dst,
            label: &label,
        };
        check_layout::<PerLabel>("per_label", &g, &model);
        check_layout::<LabelOrdered>("label_ordered", &g, &model);
        check_layout::<Filter>("filter", &g, &model);
        check_layout::<LabelDir>("label_dir", &g, &model);
    }

    #[test]
    fn label_dir_searches_a_long_directory() {
        // Vertex 1 has more distinct labels than `DIR_LINEAR_UP_TO`, so
        // `label_dir` binary-searches its directory; every third label is
        // missing, and its last label's run ends at the vertex's end.
        let labels = 3 * DIR_LINEAR_UP_TO;
        let edges: Vec<(u32, u32, u16)> = (0..labels as u32 * 2)
            .filter(|i| (i / 2) % 3 != 1)
            .map(|i| (1, i % 3, (i / 2) as u16))
            .chain([(0, 1, 5), (2, 0, 0), (2, 1, labels as u16 - 1)])
            .collect();
        let src: Vec<u32> = edges.iter().map(|e| e.0).collect();
        let dst: Vec<u32> = edges.iter().map(|e| e.1).collect();
        let label: Vec<u16> = edges.iter().map(|e| e.2).collect();
        let model: Vec<(u32, u32, u16, u64)> = edges
            .iter()
            .enumerate()
            .map(|(i, e)| (e.0, e.1, e.2, i as u64))
            .collect();
        let g = Labelled {
            vertices: 3,
            labels,
            src: &src,
            dst: &dst,
            label: &label,
        };
        let dir = LabelDir::build(&g);
        assert!(dir.dir_offsets[2] - dir.dir_offsets[1] > DIR_LINEAR_UP_TO as u32);
        check_layout::<PerLabel>("per_label", &g, &model);
        check_layout::<LabelOrdered>("label_ordered", &g, &model);
        check_layout::<Filter>("filter", &g, &model);
        check_layout::<LabelDir>("label_dir", &g, &model);
    }
}
