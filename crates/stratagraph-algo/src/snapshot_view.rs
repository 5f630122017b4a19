//! The engine's snapshots as a [`GraphView`], so every kernel runs on live data.
//!
//! A `Snapshot` already speaks dense internal ids with holes for deleted
//! vertices and yields neighbours in ascending id order with no duplicates,
//! which is exactly the trait's contract; this module only forwards. Keeping
//! the impl here (not in the engine) keeps the engine free of analytics code.

use stratagraph::{Graph, Neighbors, Options, Snapshot, WeightedNeighbors};

use crate::graphalytics::GraphSpec;
use crate::view::GraphView;

impl GraphView for Snapshot {
    type Neighbors<'a> = Neighbors<'a>;
    type Weighted<'a> = WeightedNeighbors<'a>;

    fn id_bound(&self) -> u32 {
        Snapshot::id_bound(self)
    }

    fn contains(&self, v: u32) -> bool {
        Snapshot::contains(self, v)
    }

    fn vertex_count(&self) -> u64 {
        Snapshot::vertex_count(self)
    }

    fn edge_count(&self) -> u64 {
        Snapshot::edge_count(self)
    }

    fn is_directed(&self) -> bool {
        Snapshot::is_directed(self)
    }

    fn out_degree(&self, v: u32) -> u32 {
        self.out_degree_of(v) as u32
    }

    fn in_degree(&self, v: u32) -> u32 {
        self.in_degree_of(v) as u32
    }

    fn out_neighbors(&self, v: u32) -> Neighbors<'_> {
        self.out_neighbors_of(v)
    }

    fn in_neighbors(&self, v: u32) -> Neighbors<'_> {
        self.in_neighbors_of(v)
    }

    fn out_weighted(&self, v: u32) -> WeightedNeighbors<'_> {
        self.out_weighted_of(v)
    }

    fn for_each_out_weighted_unordered(&self, v: u32, f: impl FnMut(u32, f64)) {
        self.for_each_out_weighted_unordered_of(v, f);
    }

    fn for_each_out_weight_unordered(&self, v: u32, f: impl FnMut(f64)) {
        self.for_each_out_weight_unordered_of(v, f);
    }

    fn for_each_out_unordered(&self, v: u32, f: impl FnMut(u32)) {
        self.for_each_out_unordered_of(v, f);
    }

    fn for_each_in_unordered(&self, v: u32, f: impl FnMut(u32)) {
        self.for_each_in_unordered_of(v, f);
    }

    fn with_out_pieces<R>(&self, v: u32, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        self.with_out_pieces_of(v, f)
    }

    fn with_in_pieces<R>(&self, v: u32, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        self.with_in_pieces_of(v, f)
    }

    fn external_id(&self, v: u32) -> u64 {
        Snapshot::external_id(self, v).unwrap_or(u64::MAX)
    }

    fn out_neighbor_slice(&self, v: u32) -> Option<&[u32]> {
        self.out_neighbors_of(v).as_slice()
    }

    fn scan_out_range(&self, range: std::ops::Range<u32>, f: impl FnMut(u32, &[u32])) {
        self.scan_out(range, f);
    }

    fn scan_in_range(&self, range: std::ops::Range<u32>, f: impl FnMut(u32, &[u32])) {
        self.scan_in(range, f);
    }

    fn scan_out_unordered(&self, range: std::ops::Range<u32>, f: impl FnMut(u32, &[&[u32]])) {
        Snapshot::scan_out_unordered(self, range, f);
    }

    fn scan_in_unordered(&self, range: std::ops::Range<u32>, f: impl FnMut(u32, &[&[u32]])) {
        Snapshot::scan_in_unordered(self, range, f);
    }

    fn scan_out_partial(
        &self,
        range: std::ops::Range<u32>,
        want: impl Fn(u32) -> usize,
        f: impl FnMut(u32, &[&[u32]]),
    ) {
        Snapshot::scan_out_partial(self, range, want, f);
    }

    fn scan_out_until(
        &self,
        range: std::ops::Range<u32>,
        want: impl Fn(u32) -> bool,
        found: impl FnMut(u32, &[u32]) -> bool,
    ) {
        Snapshot::scan_out_until(self, range, want, found);
    }

    fn scan_in_until(
        &self,
        range: std::ops::Range<u32>,
        want: impl Fn(u32) -> bool,
        found: impl FnMut(u32, &[u32]) -> bool,
    ) {
        Snapshot::scan_in_until(self, range, want, found);
    }

    fn scan_in_partial(
        &self,
        range: std::ops::Range<u32>,
        want: impl Fn(u32) -> usize,
        f: impl FnMut(u32, &[&[u32]]),
    ) {
        Snapshot::scan_in_partial(self, range, want, f);
    }
}

/// Loads a Graphalytics graph into a fresh in-memory store and returns a
/// snapshot of it. Vertices are created first (see [`store_with_vertices`]),
/// so internal ids follow external ids as in [`crate::CsrGraph`].
///
/// # Errors
/// The engine's error for an edge it refuses (a non-finite weight).
pub fn snapshot_of_spec(spec: &GraphSpec) -> stratagraph::Result<Snapshot> {
    let g = store_with_vertices(spec)?;
    g.insert_edges(&spec.edges)?;
    Ok(g.snapshot())
}

/// A fresh in-memory store with the spec's directedness holding its
/// vertices (ascending, so internal ids follow external ids) and no edges.
///
/// # Errors
/// `VertexIdsExhausted` if the spec has more vertices than `u32` ids.
pub fn store_with_vertices(spec: &GraphSpec) -> stratagraph::Result<Graph> {
    let g = Graph::in_memory(Options {
        directed: spec.directed,
        ..Options::default()
    });
    let mut vertices = spec.vertices.clone();
    vertices.sort_unstable();
    g.insert_vertices(&vertices)?;
    Ok(g)
}
