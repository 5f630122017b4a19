//! Shared test helpers: dataset paths, a SNAP edge-list loader, and a view with holes.
#![allow(dead_code)]

use std::io::Read;
use std::path::PathBuf;

use stratagraph_algo::csr::WeightedIter;
use stratagraph_algo::{CsrGraph, GraphView};

/// The shared Graphalytics validation data (never copied into the repo).
pub fn graphalytics_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/datasets/graphalytics"
    ))
}

/// The shared SNAP graphs.
pub fn real_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../../shared/datasets/real"
    ))
}

/// Reads a gzipped SNAP edge list: `#` comments, any whitespace, CRLF allowed.
pub fn load_snap(file: &str) -> Vec<(u64, u64)> {
    let raw = std::fs::read(real_dir().join(file)).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&raw[..])
        .read_to_string(&mut text)
        .unwrap();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut t = l.split_whitespace().map(|x| x.parse::<u64>().unwrap());
            (t.next().unwrap(), t.next().unwrap())
        })
        .collect()
}

/// Wraps a [`CsrGraph`] so that its vertex `v` appears as dense id `2v + 1`: id 0 and every
/// even id are holes. Kernels must give the same answers as on the plain graph, which
/// checks that they skip holes and never assume contiguous ids.
pub struct HoleyView(pub CsrGraph);

fn spread(v: u32) -> u32 {
    2 * v + 1
}

fn spread_weighted((v, w): (u32, f64)) -> (u32, f64) {
    (2 * v + 1, w)
}

impl HoleyView {
    /// Dense id in this view of the inner graph's vertex `v`.
    pub fn id(v: u32) -> u32 {
        spread(v)
    }

    fn inner(&self, v: u32) -> Option<u32> {
        (v % 2 == 1 && v / 2 < self.0.id_bound()).then_some(v / 2)
    }
}

type Spread<'a> = std::iter::Map<std::iter::Copied<std::slice::Iter<'a, u32>>, fn(u32) -> u32>;

impl GraphView for HoleyView {
    type Neighbors<'a> = Spread<'a>;
    type Weighted<'a> = std::iter::Map<WeightedIter<'a>, fn((u32, f64)) -> (u32, f64)>;

    fn id_bound(&self) -> u32 {
        2 * self.0.id_bound() + 1
    }
    fn contains(&self, v: u32) -> bool {
        self.inner(v).is_some()
    }
    fn vertex_count(&self) -> u64 {
        self.0.vertex_count()
    }
    fn edge_count(&self) -> u64 {
        self.0.edge_count()
    }
    fn is_directed(&self) -> bool {
        self.0.is_directed()
    }
    fn out_degree(&self, v: u32) -> u32 {
        self.inner(v).map_or(0, |v| self.0.out_degree(v))
    }
    fn in_degree(&self, v: u32) -> u32 {
        self.inner(v).map_or(0, |v| self.0.in_degree(v))
    }
    fn out_neighbors(&self, v: u32) -> Spread<'_> {
        let s = self.inner(v).map_or(&[][..], |v| self.0.out_slice(v));
        s.iter().copied().map(spread as fn(u32) -> u32)
    }
    fn in_neighbors(&self, v: u32) -> Spread<'_> {
        let s = self.inner(v).map_or(&[][..], |v| self.0.in_slice(v));
        s.iter().copied().map(spread as fn(u32) -> u32)
    }
    fn out_weighted(&self, v: u32) -> Self::Weighted<'_> {
        // Holes have no edges; an out-of-range id gives the inner graph's empty iterator.
        let inner = self.inner(v).unwrap_or(u32::MAX);
        self.0
            .out_weighted(inner)
            .map(spread_weighted as fn((u32, f64)) -> (u32, f64))
    }
    fn external_id(&self, v: u32) -> u64 {
        self.inner(v).map_or(u64::MAX, |v| self.0.external_id(v))
    }
}

/// Wraps a [`CsrGraph`] so that its unordered scans hand each list over in
/// three interleaved pieces (the entries at positions 0, 3, 6...; then 1,
/// 4, 7...; then the rest), as a store does with slices in several layers
/// and the MemGraph's additions. Kernels that use `scan_*_unordered` must
/// give the same answers as on the plain graph.
pub struct SplitView(pub CsrGraph);

/// `f(v, pieces)` with `list` dealt into three pieces.
fn split(v: u32, list: &[u32], f: &mut impl FnMut(u32, &[&[u32]])) {
    let piece = |k: usize| -> Vec<u32> { list.iter().skip(k).step_by(3).copied().collect() };
    let (a, b, c) = (piece(0), piece(1), piece(2));
    f(v, &[&a, &b, &c]);
}

/// `f(pieces)` with `list` dealt into three pieces, and its result.
fn with_split<R>(list: &[u32], f: impl FnOnce(&[&[u32]]) -> R) -> R {
    let mut f = Some(f);
    let mut r = None;
    split(0, list, &mut |_, pieces| {
        r = f.take().map(|f| f(pieces));
    });
    r.expect("split calls back once")
}

impl GraphView for SplitView {
    type Neighbors<'a> = <CsrGraph as GraphView>::Neighbors<'a>;
    type Weighted<'a> = <CsrGraph as GraphView>::Weighted<'a>;

    fn id_bound(&self) -> u32 {
        self.0.id_bound()
    }
    fn contains(&self, v: u32) -> bool {
        self.0.contains(v)
    }
    fn vertex_count(&self) -> u64 {
        self.0.vertex_count()
    }
    fn edge_count(&self) -> u64 {
        self.0.edge_count()
    }
    fn is_directed(&self) -> bool {
        self.0.is_directed()
    }
    fn out_degree(&self, v: u32) -> u32 {
        self.0.out_degree(v)
    }
    fn in_degree(&self, v: u32) -> u32 {
        self.0.in_degree(v)
    }
    fn out_neighbors(&self, v: u32) -> Self::Neighbors<'_> {
        self.0.out_neighbors(v)
    }
    fn in_neighbors(&self, v: u32) -> Self::Neighbors<'_> {
        self.0.in_neighbors(v)
    }
    fn out_weighted(&self, v: u32) -> Self::Weighted<'_> {
        self.0.out_weighted(v)
    }
    fn external_id(&self, v: u32) -> u64 {
        self.0.external_id(v)
    }
    /// Point reads in no set order come backwards, so a kernel that
    /// relied on ascending order would go wrong.
    fn for_each_out_unordered(&self, v: u32, f: impl FnMut(u32)) {
        let list: Vec<u32> = self.0.out_neighbors(v).collect();
        list.into_iter().rev().for_each(f);
    }
    fn for_each_in_unordered(&self, v: u32, f: impl FnMut(u32)) {
        let list: Vec<u32> = self.0.in_neighbors(v).collect();
        list.into_iter().rev().for_each(f);
    }
    fn for_each_out_weighted_unordered(&self, v: u32, mut f: impl FnMut(u32, f64)) {
        let list: Vec<(u32, f64)> = self.0.out_weighted(v).collect();
        list.into_iter().rev().for_each(|(w, x)| f(w, x));
    }
    fn with_out_pieces<R>(&self, v: u32, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        with_split(self.0.out_slice(v), f)
    }
    fn with_in_pieces<R>(&self, v: u32, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        with_split(self.0.in_slice(v), f)
    }
    fn scan_out_unordered(&self, range: std::ops::Range<u32>, mut f: impl FnMut(u32, &[&[u32]])) {
        self.0.scan_out_range(range, |v, l| split(v, l, &mut f));
    }
    fn scan_in_unordered(&self, range: std::ops::Range<u32>, mut f: impl FnMut(u32, &[&[u32]])) {
        self.0.scan_in_range(range, |v, l| split(v, l, &mut f));
    }
}

/// Prints every outcome and asserts none failed and the suite ran 24 cases.
#[allow(dead_code)] // not every test binary uses every helper
pub fn assert_all_24_pass(outcomes: &[stratagraph_algo::graphalytics::CaseOutcome]) {
    use stratagraph_algo::graphalytics::summary_line;
    for o in outcomes {
        println!("{o}");
    }
    println!("{}", summary_line(outcomes));
    let failed: Vec<String> = outcomes
        .iter()
        .filter(|o| !o.passed)
        .map(ToString::to_string)
        .collect();
    assert!(failed.is_empty(), "failed cases:\n{}", failed.join("\n"));
    assert_eq!(summary_line(outcomes), "24 passed, 0 failed");
}
