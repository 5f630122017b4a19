//! The read contract every kernel is written against.

/// Read access to one consistent graph, by dense internal vertex ids `0..id_bound()`.
///
/// Kernels size their side arrays by [`id_bound`](GraphView::id_bound) and skip ids for which
/// [`contains`](GraphView::contains) is false, so an implementation is free to leave holes
/// (deleted or never-created ids) instead of renumbering. Implementations must uphold these
/// invariants, which the kernels rely on for correctness:
///
/// * neighbour iterators yield ids in strictly ascending order (no duplicates), so kernels can
///   intersect lists with a linear merge;
/// * neighbour iterators never yield a hole, and holes have no neighbours (a consistent
///   snapshot has no dangling edges);
/// * an undirected graph reports every edge in both directions, so `out_neighbors(v)` and
///   `in_neighbors(v)` are the same sequence;
/// * `out_degree(v)` equals the number of items `out_neighbors(v)` yields (and likewise for
///   `in_degree`), because PageRank divides by it.
pub trait GraphView: Sync {
    /// Iterator over neighbour ids in ascending order.
    type Neighbors<'a>: Iterator<Item = u32>
    where
        Self: 'a;
    /// Iterator over `(neighbour id, edge weight)` pairs in ascending neighbour order.
    type Weighted<'a>: Iterator<Item = (u32, f64)>
    where
        Self: 'a;
    /// Exclusive upper bound of the dense ids; some ids below it may be holes.
    fn id_bound(&self) -> u32;
    /// Whether `v` is a live vertex (false for holes and for ids `>= id_bound()`).
    fn contains(&self, v: u32) -> bool;
    /// Number of ids with `contains() == true`.
    fn vertex_count(&self) -> u64;
    /// Number of edges; an undirected edge counts once.
    fn edge_count(&self) -> u64;
    /// Whether edges are directed.
    fn is_directed(&self) -> bool;
    /// Number of out-neighbours of `v` (0 for holes).
    fn out_degree(&self, v: u32) -> u32;
    /// Number of in-neighbours of `v`; equal to `out_degree` on undirected graphs.
    fn in_degree(&self, v: u32) -> u32;
    /// Out-neighbours of `v`, ascending, no duplicates.
    fn out_neighbors(&self, v: u32) -> Self::Neighbors<'_>;
    /// In-neighbours of `v`, ascending, no duplicates; same as out on undirected graphs.
    fn in_neighbors(&self, v: u32) -> Self::Neighbors<'_>;
    /// Out-edges of `v` with weights, ascending by id; weight 1.0 if the graph is unweighted.
    fn out_weighted(&self, v: u32) -> Self::Weighted<'_>;
    /// Calls `f(w, weight)` for every out-edge `v -> w`, in any order:
    /// `out_weighted` for passes that need none (relaxations). A store
    /// reads a list held in pieces piece by piece instead of merging it.
    fn for_each_out_weighted_unordered(&self, v: u32, mut f: impl FnMut(u32, f64)) {
        self.out_weighted(v).for_each(|(w, x)| f(w, x));
    }
    /// Calls `f(weight)` for every out-edge of `v`, in the order
    /// `for_each_out_weighted_unordered` gives them: for passes over the
    /// weights alone, which a store answers without decoding the
    /// destinations beside them.
    fn for_each_out_weight_unordered(&self, v: u32, mut f: impl FnMut(f64)) {
        self.for_each_out_weighted_unordered(v, |_, x| f(x));
    }
    /// Calls `f(w)` for every out-neighbour `w` of `v`, in any order:
    /// `out_neighbors` for passes that need none (sums and filters). A
    /// store reads a list held in pieces piece by piece instead of merging
    /// it.
    fn for_each_out_unordered(&self, v: u32, f: impl FnMut(u32)) {
        self.out_neighbors(v).for_each(f);
    }
    /// `for_each_out_unordered` for in-neighbours.
    fn for_each_in_unordered(&self, v: u32, f: impl FnMut(u32)) {
        self.in_neighbors(v).for_each(f);
    }
    /// Calls `f` with `v`'s out-neighbours as disjoint pieces, each
    /// ascending (as `scan_out_unordered` hands them), and returns what it
    /// returns: one vertex's list for intersections that can count piece
    /// by piece. A store hands over a list held as a level slice and newer
    /// additions without merging it; the default collects `out_neighbors`.
    fn with_out_pieces<R>(&self, v: u32, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        let list: Vec<u32> = self.out_neighbors(v).collect();
        f(&[&list])
    }
    /// `with_out_pieces` for in-neighbours.
    fn with_in_pieces<R>(&self, v: u32, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        let list: Vec<u32> = self.in_neighbors(v).collect();
        f(&[&list])
    }
    /// The user-facing id of `v` (Graphalytics vertex ids, CDLP labels).
    fn external_id(&self, v: u32) -> u64;
    /// Out-neighbours of `v` as one borrowed slice (the same ids
    /// `out_neighbors` yields), where the implementation holds them that
    /// way; `None` otherwise, which is always correct. Intersections use it
    /// to probe a long list by binary search rather than walk it.
    fn out_neighbor_slice(&self, _v: u32) -> Option<&[u32]> {
        None
    }
    /// Calls `f(v, out-neighbours of v)` for every id `v` in `range`,
    /// ascending (holes with an empty list): a whole-graph pass. A store
    /// answers a run of vertices from its level's columns at once, where
    /// asking vertex by vertex would look each up anew; the default does
    /// just that, into a reused buffer.
    fn scan_out_range(&self, range: std::ops::Range<u32>, f: impl FnMut(u32, &[u32])) {
        scan_each(range, |v| self.out_neighbors(v), f);
    }
    /// `scan_out_range` for in-neighbours: the pass of pull-based kernels.
    fn scan_in_range(&self, range: std::ops::Range<u32>, f: impl FnMut(u32, &[u32])) {
        scan_each(range, |v| self.in_neighbors(v), f);
    }
    /// `scan_out_range` for passes that need no order across a list
    /// (sums, searches, unions): calls `f(v, pieces)` where `v`'s
    /// out-neighbours are the ids of all `pieces` together, no id in two
    /// of them, each piece ascending. A store hands over a vertex's slices
    /// in its levels and its newer additions side by side instead of
    /// merging them first; the default passes the whole list as one piece.
    /// Every call for the same vertex on the same view gives the same
    /// pieces.
    fn scan_out_unordered(&self, range: std::ops::Range<u32>, mut f: impl FnMut(u32, &[&[u32]])) {
        self.scan_out_range(range, |v, list| f(v, &[list]));
    }
    /// `scan_out_unordered` for in-neighbours.
    fn scan_in_unordered(&self, range: std::ops::Range<u32>, mut f: impl FnMut(u32, &[&[u32]])) {
        self.scan_in_range(range, |v, list| f(v, &[list]));
    }
    /// `scan_out_unordered` for a pass that needs only some lists, or
    /// only some of a list: `want(v)` is how many of `v`'s out-neighbours
    /// the pass needs, a hint a view may ignore. For 0, `f` may be skipped
    /// for `v`; for `k`, its pieces may hold only the first `k` or more of
    /// what `scan_out_unordered` gives, in the same sequence. A view that
    /// decodes its lists (a store's packed levels) decodes no more than
    /// asked; the default scans every list whole, so `f` still checks
    /// what it needs.
    fn scan_out_partial(
        &self,
        range: std::ops::Range<u32>,
        _want: impl Fn(u32) -> usize,
        f: impl FnMut(u32, &[&[u32]]),
    ) {
        self.scan_out_unordered(range, f);
    }
    /// `scan_out_partial` for in-neighbours.
    fn scan_in_partial(
        &self,
        range: std::ops::Range<u32>,
        _want: impl Fn(u32) -> usize,
        f: impl FnMut(u32, &[&[u32]]),
    ) {
        self.scan_in_unordered(range, f);
    }
    /// A pass that looks in each list for something and stops there:
    /// calls `found(v, piece)` for every `v` in `range` with `want(v)`,
    /// with `v`'s out-neighbours in disjoint ascending pieces one after
    /// the other (together the ids `scan_out_unordered` gives), until it
    /// returns true or the pieces run out. A view that decodes its lists
    /// decodes a piece at a time, so a search that ends early pays for
    /// little of a long list; the default hands over
    /// `scan_out_partial`'s pieces. `want` may be asked more than once for
    /// a vertex and must answer the same until `found` is called for it.
    fn scan_out_until(
        &self,
        range: std::ops::Range<u32>,
        want: impl Fn(u32) -> bool,
        mut found: impl FnMut(u32, &[u32]) -> bool,
    ) {
        let wanted = |v| if want(v) { usize::MAX } else { 0 };
        self.scan_out_partial(range, wanted, |v, pieces| {
            if want(v) {
                let _ = pieces.iter().any(|p| found(v, p));
            }
        });
    }
    /// `scan_out_until` for in-neighbours: a bottom-up BFS step.
    fn scan_in_until(
        &self,
        range: std::ops::Range<u32>,
        want: impl Fn(u32) -> bool,
        mut found: impl FnMut(u32, &[u32]) -> bool,
    ) {
        let wanted = |v| if want(v) { usize::MAX } else { 0 };
        self.scan_in_partial(range, wanted, |v, pieces| {
            if want(v) {
                let _ = pieces.iter().any(|p| found(v, p));
            }
        });
    }
}

/// The default range scans: each vertex's list collected into one reused
/// buffer.
fn scan_each<I: Iterator<Item = u32>>(
    range: std::ops::Range<u32>,
    list: impl Fn(u32) -> I,
    mut f: impl FnMut(u32, &[u32]),
) {
    let mut buf = Vec::new();
    for v in range {
        buf.clear();
        buf.extend(list(v));
        f(v, &buf);
    }
}
