//! `Snapshot`: a consistent, immutable view of the graph at one timestamp.

use super::hub_lists::{kept_list, HubLists, HUB_ENTRIES};
use super::mem_view::{self, MemPage, MemView, Override, Slices, MAX_PIECES};
use super::merge::{self, Merger};
use super::scan::{self, Neighbors, WeightedNeighbors};
use super::union::{merge_disjoint, ListScratch, MergeScratch, MAX_SLICES};
use super::KeptReads;
use crate::csr::{DecodeBuf, Rows, Segment, Weights};
use crate::direction::Direction;
use crate::error::VertexId;
use crate::lsm::layers::Layers;
use crate::mem::EdgeSet;
use crate::page::PAGE;
use crate::store::Store;
use crate::version::Timestamp;
use std::cell::RefCell;
use std::sync::Arc;

/// Everything committed at or before one timestamp, and nothing after it,
/// for as long as the snapshot lives (writers go on meanwhile).
///
/// Vertices are named by external ids (`u64`) in the look-up methods; the
/// iterators yield dense internal ids (`u32`), which index plain arrays and
/// convert back with [`Snapshot::external_id`]. Methods ending in `_of` take
/// internal ids. A snapshot keeps the versions it can see alive, and the
/// copies of the MemGraph's part its reads make (see [`Snapshot::scan_out`];
/// about 4 to 12 bytes per MemGraph edge version read), so drop
/// long-lived ones when done.
pub struct Snapshot {
    pub(super) store: Arc<Store>,
    /// The runs below the MemGraph when the snapshot was taken; holding
    /// them keeps the MemGraph from dropping versions this snapshot would
    /// otherwise miss (see `store::maintain`).
    layers: Arc<Layers>,
    ts: Timestamp,
    /// The clock's count at `ts`, blind inserts counted as new (see
    /// `edge_count`).
    edges: u64,
    vertices: u64,
    bound: u32,
    /// What snapshots over `layers` built for later ones (MemGraph pages,
    /// hubs' merged lists).
    kept: Arc<KeptReads>,
    /// Merged lists of hubs read so far (see `hub_lists`), shared by clones.
    hubs: Arc<HubLists>,
    /// The MemGraph as this snapshot sees it, copied page by page as it is
    /// read (see `mem_view`), shared by clones.
    mem_view: Arc<MemView>,
}

impl Clone for Snapshot {
    fn clone(&self) -> Self {
        self.store.clock.reopen_snapshot(self.ts);
        Snapshot {
            store: self.store.clone(),
            layers: self.layers.clone(),
            kept: self.kept.clone(),
            hubs: self.hubs.clone(),
            mem_view: self.mem_view.clone(),
            ..*self
        }
    }
}

impl Drop for Snapshot {
    fn drop(&mut self) {
        self.store.clock.close_snapshot(self.ts);
    }
}

impl std::fmt::Debug for Snapshot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Snapshot")
            .field("ts", &self.ts)
            .field("vertices", &self.vertices)
            .field("edges_counted", &self.edges)
            .finish()
    }
}

impl Snapshot {
    pub(crate) fn open(store: Arc<Store>) -> Snapshot {
        // The timestamp is read under the layers' read lock: a bulk load
        // (`batch::bulk`) puts its run in place and publishes its timestamp
        // under the write lock, and its entries carry no stamps, so a
        // snapshot must get both or neither. A flush's run published after
        // the lock is let go was flushed at a watermark no newer than p.ts,
        // so it would be exact for p.ts as well.
        let (p, layers) = {
            let current = store.layers.read();
            (store.clock.open_snapshot(), current.clone())
        };
        // Every vertex visible at p.ts got its id before p.ts was published.
        let bound = store.ids.bound();
        Snapshot {
            store,
            kept: layers.reader_cache(),
            layers,
            ts: p.ts,
            edges: p.edges,
            vertices: p.vertices,
            bound,
            hubs: Arc::default(),
            mem_view: Arc::default(),
        }
    }

    /// The side the store keeps lists of direction `dir` on (see
    /// `Direction::stored`): every public read resolves its direction here
    /// once, and everything it calls takes the resolved side.
    #[inline]
    fn side(&self, dir: Direction) -> Direction {
        dir.stored(self.store.opts.directed)
    }

    /// The commit timestamp this snapshot reads at.
    pub fn timestamp(&self) -> Timestamp {
        self.ts
    }

    /// Whether edges have a direction.
    pub fn is_directed(&self) -> bool {
        self.store.opts.directed
    }

    /// Whether the store names vertices by string keys
    /// (`Options::string_ids`): then [`Snapshot::key_of`] gives each
    /// vertex's key.
    pub fn has_string_ids(&self) -> bool {
        self.store.keys.enabled()
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> u64 {
        self.vertices
    }

    /// Number of edges (an undirected edge counts once). The first call
    /// after blind inserts (`Options::blind_inserts`) settles those at or
    /// before this snapshot that no flush has settled yet: a search of the
    /// levels per such insert, in vertex order.
    pub fn edge_count(&self) -> u64 {
        self.store.edges_at(self.edges, self.ts)
    }

    /// Internal ids are `0..id_bound()`; ids of absent vertices are holes.
    pub fn id_bound(&self) -> u32 {
        self.bound
    }

    /// The internal id of vertex `v`, if it exists in this snapshot.
    pub fn internal_id(&self, v: VertexId) -> Option<u32> {
        let id = self.store.ids.lookup(v)?;
        self.contains(id).then_some(id)
    }

    /// The external id of internal id `v`, if that vertex exists here.
    pub fn external_id(&self, v: u32) -> Option<VertexId> {
        self.contains(v).then(|| self.store.ids.external(v))
    }

    /// The external id of internal id `v` without checking existence (for
    /// callers iterating ids they already know exist).
    pub fn external_id_unchecked(&self, v: u32) -> VertexId {
        self.store.ids.external(v)
    }

    /// Whether vertex `v` exists.
    pub fn has_vertex(&self, v: VertexId) -> bool {
        self.internal_id(v).is_some()
    }

    /// Whether internal id `v` is a vertex of this snapshot.
    pub fn contains(&self, v: u32) -> bool {
        v < self.bound && (self.dense() || self.alive(v))
    }

    /// Every id below the bound is a vertex here (the usual case: nothing
    /// deleted, no id handed out since the snapshot), so no vertex's
    /// history needs reading: every vertex here has an id below the bound,
    /// and there are as many vertices as ids.
    #[inline]
    fn dense(&self) -> bool {
        self.vertices == u64::from(self.bound)
    }

    fn alive(&self, v: u32) -> bool {
        self.store.mem.alive_at(v, self.ts)
    }

    /// Internal ids of all vertices, ascending.
    pub fn vertices(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.bound).filter(move |&v| self.contains(v))
    }

    /// Whether the edge `src -> dst` exists (either direction if undirected).
    pub fn has_edge(&self, src: VertexId, dst: VertexId) -> bool {
        let (Some(s), Some(d)) = (self.store.ids.lookup(src), self.store.ids.lookup(dst)) else {
            return false;
        };
        // As `weight_of`, but without reading the weight.
        match self.settled(s, Direction::Out) {
            Some(seg) if d < self.bound => seg.decided_live(s, d, self.ts) == Some(true),
            _ => self.weight_of(s, d).is_some(),
        }
    }

    /// The weight of edge `src -> dst`, if it exists.
    pub fn weight(&self, src: VertexId, dst: VertexId) -> Option<f64> {
        let (s, d) = (self.store.ids.lookup(src)?, self.store.ids.lookup(dst)?);
        self.weight_of(s, d)
    }

    /// The weight of edge `s -> d` by internal ids, if it exists.
    pub fn weight_of(&self, s: u32, d: u32) -> Option<f64> {
        if s >= self.bound || d >= self.bound {
            return None;
        }
        let ts = self.ts;
        if self.layers.is_empty() {
            return self.store.mem.read(s, |st| st.out.visible(d, ts)).flatten();
        }
        // No lock taken and no list of sources built where one segment
        // answers alone.
        if let Some(seg) = self.settled(s, Direction::Out) {
            return seg.decided(s, d, ts).weight();
        }
        self.store.mem.read_or_empty(s, |st| {
            merge::weight(
                &merge::sources(&self.layers, &st.out, s, Direction::Out, ts),
                s,
                d,
                ts,
            )
        })
    }

    /// The segment that alone answers for `v` in one direction, in the
    /// state after a compaction: one source below the MemGraph can hold
    /// `v` and the MemGraph holds nothing of it (see `place` for why no
    /// lock needs to be held afterwards).
    #[inline]
    fn settled(&self, v: u32, dir: Direction) -> Option<&Segment> {
        if v >= self.bound || self.store.mem.may_hold(v) {
            return None;
        }
        self.layers.sole(v).map(|run| run.seg(dir))
    }

    /// Where `v`'s edges in one direction are, for a snapshot with runs
    /// below the MemGraph. Kernels ask once per vertex, so the state after a
    /// compaction (one run, plain for this snapshot, dirty bit clear) is
    /// tested first with as little work as possible.
    ///
    /// Only a vertex the MemGraph holds nothing of can be read from a
    /// segment alone, and that needs no lock held afterwards: anything a
    /// writer adds later is newer than this snapshot, and the clean-up only
    /// drops versions that runs this snapshot holds already have.
    #[inline]
    fn place(&self, v: u32, dir: Direction) -> Place<'_> {
        if v >= self.bound {
            return Place::Empty;
        }
        let mem = &self.store.mem;
        if !mem.may_hold(v) {
            if let Some(seg) = self.layers.plain_sole(v, dir, self.ts) {
                return Place::Plain(seg);
            }
        }
        // The dirty bit spares the slot's lock (and cache line) for every
        // vertex no write touched since the last clean-up, and a built page
        // answers without it.
        let mem_empty = !mem.may_hold(v)
            || match self.mem_view.built(self.mem_reader(dir), v) {
                Some(page) => page.is_empty_for(v),
                None => mem.read(v, |st| st.set(dir).is_empty()).unwrap_or(true),
            };
        if !mem_empty {
            return Place::Merge;
        }
        let mut holders = self
            .layers
            .segments_at(v, dir, self.ts)
            .filter(|s| !s.entry_range(v).is_empty());
        match (holders.next(), holders.next()) {
            (None, _) => Place::Empty,
            (Some(seg), None) if seg.scan_is_bare(v, self.ts) => Place::Plain(seg),
            (Some(seg), None) => Place::Versioned(seg),
            _ => Place::Merge,
        }
    }

    /// `v`'s edges in one direction merged across the MemGraph and the runs
    /// below it, with weights: the read path once anything was flushed.
    fn merged(&self, v: u32, dir: Direction) -> Vec<(u32, f64)> {
        let mut out = Vec::new();
        if v >= self.bound {
            return out;
        }
        let ts = self.ts;
        self.store.mem.read_or_empty(v, |st| {
            let set = st.set(dir);
            MERGER.with(|m| {
                m.borrow_mut().visit(
                    &merge::sources(&self.layers, set, v, dir, ts),
                    v,
                    ts,
                    |d, w| out.push((d, w)),
                );
            });
        });
        out
    }

    /// Destinations of `v` in one direction merged across the MemGraph and
    /// the sources below it, appended to `out`.
    fn merged_dsts(&self, v: u32, dir: Direction, out: &mut Vec<u32>) {
        SCRATCH.with(|sc| {
            self.with_merged_dsts(v, dir, &mut sc.borrow_mut(), None, |list| {
                out.extend_from_slice(list);
            });
        });
    }

    /// Calls `f` with `v`'s destinations in one direction merged across the
    /// MemGraph and the sources below it: the scan path for a vertex the
    /// MemGraph or several segments hold. When every segment holding `v`
    /// reads plain for it (the state after compaction), their slices are
    /// united and the MemGraph's decided list laid over them
    /// (`read::union`), and a vertex found in one slice alone is handed over
    /// in place; otherwise the general merge runs. `page` is `v`'s MemGraph
    /// page when the caller (a scan) holds it.
    fn with_merged_dsts(
        &self,
        v: u32,
        dir: Direction,
        sc: &mut ListScratch,
        page: Option<&MemPage>,
        f: impl FnOnce(&[u32]),
    ) {
        if v >= self.bound {
            return f(&[]);
        }
        let ts = self.ts;
        let (lists, n, plain) = self.plain_slices(v, dir);
        if !plain {
            sc.list.clear();
            let out = &mut sc.list;
            self.store.mem.read_or_empty(v, |st| {
                let set = st.set(dir);
                MERGER.with(|m| {
                    m.borrow_mut().visit(
                        &merge::sources(&self.layers, set, v, dir, ts),
                        v,
                        ts,
                        |d, _| out.push(d),
                    );
                });
            });
            return f(&sc.list);
        }
        let lists = lists.get(..n).unwrap_or(&[]);
        if let Some(list) = self.kept_hub(v, dir, lists, sc, page) {
            return f(list);
        }
        self.unite_plain(v, dir, lists, sc, page, f);
    }

    /// The slices of the segments holding `v` in one direction (resolved), how many, and whether all
    /// of them read plain for this snapshot (if not, the slices are
    /// incomplete and must not be used).
    fn plain_slices(&self, v: u32, dir: Direction) -> ([&[u32]; MAX_SLICES], usize, bool) {
        let mut lists: [&[u32]; MAX_SLICES] = [&[]; MAX_SLICES];
        let mut n = 0;
        for seg in self.layers.segments_of(v, dir) {
            if seg.entry_range(v).is_empty() {
                continue;
            }
            if n == MAX_SLICES || !seg.scan_is_bare(v, self.ts) {
                return (lists, n, false);
            }
            lists[n] = seg.entries_of(v);
            n += 1;
        }
        (lists, n, true)
    }

    /// Calls `f` with the union of plain `lists` and the MemGraph's decided
    /// list of `v`: the merge behind `with_merged_dsts` once every segment
    /// holding `v` reads plain.
    fn unite_plain<R>(
        &self,
        v: u32,
        dir: Direction,
        lists: &[&[u32]],
        sc: &mut ListScratch,
        page: Option<&MemPage>,
        f: impl FnOnce(&[u32]) -> R,
    ) -> R {
        let mem = &self.store.mem;
        // The dirty bit spares the slot's lock for every vertex no write
        // touched since the last clean-up.
        if !mem.may_hold(v) {
            return sc.lists.resolve(lists, &[], &[], f);
        }
        let page = page.or_else(|| self.point_page(v, dir));
        if let Some(page) = page {
            let (adds, kills) = page.lists(v);
            return sc.lists.resolve(lists, adds, kills, f);
        }
        // No page yet: the decided list is copied under the lock and
        // merged after it is released.
        let ListScratch {
            lists: unions,
            adds,
            kills,
            ..
        } = sc;
        adds.clear();
        kills.clear();
        let ts = self.ts;
        mem.read(v, |st| {
            let set = st.set(dir);
            set.for_each_decided_dst(ts, |d, live| {
                if live {
                    adds.push(d);
                } else {
                    kills.push(d);
                }
            });
        });
        unions.resolve(lists, adds, kills, f)
    }

    /// `v`'s plain slices below the MemGraph in one direction (`dir`
    /// already resolved); `None` if a segment holding it needs version
    /// checks or more than `MAX_PIECES` hold it.
    fn plain_below(&self, v: u32, dir: Direction) -> Option<Slices<'_>> {
        // After a compaction one plain segment answers for everything.
        if let Some(seg) = self.layers.plain_sole(v, dir, self.ts) {
            return Slices::new(&[seg.entries_of(v)]);
        }
        let (lists, n, plain) = self.plain_slices(v, dir);
        if !plain {
            return None;
        }
        Slices::new(lists.get(..n).unwrap_or(&[]))
    }

    /// `v`'s MemGraph page in one direction (resolved) for a point
    /// read: built already, or built now after enough point reads.
    fn point_page(&self, v: u32, dir: Direction) -> Option<&MemPage> {
        let below = |u| self.plain_below(u, dir);
        self.mem_view
            .page_for_point_read(self.mem_reader(dir), &below, v)
    }

    /// `v`'s out-edges with weights as one plain segment's entries and
    /// additions that segment lacks, merged as they are read, when its
    /// MemGraph page has them so and no addition is a new weight for an
    /// edge of the segment (see `mem_view`); `None` otherwise.
    fn weighted_pieces_of(&self, v: u32) -> Option<WeightedNeighbors<'_>> {
        let (adds, weights) = self.point_page(v, Direction::Out)?.weighted_pieces(v)?;
        let mut held = self
            .layers
            .segments_of(v, Direction::Out)
            .map(|s| (s, s.entry_range(v)))
            .filter(|(_, r)| !r.is_empty());
        let (seg, range) = held.next()?;
        if held.next().is_some() {
            return None;
        }
        Some(WeightedNeighbors::from_two(seg, range, adds, weights))
    }

    /// `v`'s list in one direction (resolved) as at most two
    /// disjoint ascending pieces (slices below the MemGraph and its
    /// additions, as its page has them; see `mem_view`), which point reads
    /// merge as they go, with no lock, copy or allocation; `None` if it
    /// must be merged first.
    fn piece_lists(&self, v: u32, dir: Direction) -> Option<(&[u32], &[u32])> {
        let adds = self.point_page(v, dir)?.pieces(v)?;
        let slices = self.plain_below(v, dir)?;
        let mut pieces = slices
            .lists()
            .iter()
            .copied()
            .chain([adds])
            .filter(|l| !l.is_empty());
        let (a, b) = (pieces.next().unwrap_or(&[]), pieces.next().unwrap_or(&[]));
        if pieces.next().is_some() {
            return None;
        }
        Some((a, b))
    }

    /// How this snapshot reads the MemGraph in one direction (resolved).
    fn mem_reader(&self, dir: Direction) -> mem_view::Reader<'_> {
        mem_view::Reader {
            mem: &self.store.mem,
            kept: &self.kept.pages,
            ts: self.ts,
            bound: self.bound,
            dir,
        }
    }

    /// `v`'s merged list kept for this snapshot if `v` is a hub (its plain
    /// `lists` hold at least `HUB_ENTRIES` destinations), merging it on the
    /// first call; `None` for other vertices.
    fn kept_hub(
        &self,
        v: u32,
        dir: Direction,
        lists: &[&[u32]],
        sc: &mut ListScratch,
        page: Option<&MemPage>,
    ) -> Option<&[u32]> {
        if lists.iter().map(|l| l.len()).sum::<usize>() < HUB_ENTRIES {
            return None;
        }
        let cell = self.hubs.cell(v, dir, self.bound)?;
        Some(cell.get_or_init(|| {
            let kept = &self.kept.hubs;
            kept_list(kept, &self.store.mem, v, dir, self.ts).unwrap_or_else(|| {
                let list =
                    self.unite_plain(v, dir, lists, sc, page, |l: &[u32]| Arc::<[u32]>::from(l));
                kept.offer((v, dir), &list, self.ts);
                list
            })
        }))
    }

    /// `kept_hub` for a vertex whose slices are not at hand yet.
    fn hub_slice(&self, v: u32, dir: Direction) -> Option<&[u32]> {
        let (lists, n, plain) = self.plain_slices(v, dir);
        if !plain {
            return None;
        }
        let lists = lists.get(..n).unwrap_or(&[]);
        SCRATCH.with(|sc| self.kept_hub(v, dir, lists, &mut sc.borrow_mut(), None))
    }

    /// Out-degree of `v` (`None` if `v` does not exist).
    pub fn out_degree(&self, v: VertexId) -> Option<usize> {
        self.internal_id(v).map(|id| self.out_degree_of(id))
    }

    /// In-degree of `v` (`None` if `v` does not exist). Equals the out-degree
    /// in an undirected graph.
    pub fn in_degree(&self, v: VertexId) -> Option<usize> {
        self.internal_id(v).map(|id| self.in_degree_of(id))
    }

    /// Out-neighbours of `v` as internal ids, ascending.
    pub fn out_neighbors(&self, v: VertexId) -> Option<Neighbors<'_>> {
        self.internal_id(v).map(|id| self.out_neighbors_of(id))
    }

    /// In-neighbours of `v` as internal ids, ascending.
    pub fn in_neighbors(&self, v: VertexId) -> Option<Neighbors<'_>> {
        self.internal_id(v).map(|id| self.in_neighbors_of(id))
    }

    /// A clone of `v`'s MemGraph set on side `dir` (resolved), if it holds
    /// anything: for iterators that outlive the vertex's lock.
    fn set_of(&self, v: u32, dir: Direction) -> Option<EdgeSet> {
        // An empty set is not cloned: its run is shared by every empty slot.
        self.with_set(v, dir, |s| (!s.is_empty()).then(|| s.clone()))
            .flatten()
    }

    /// Runs `f` on `v`'s set on side `dir` under the vertex's shared lock,
    /// without cloning it: the cheap path for reads that finish before
    /// returning (one lock/unlock pair, no reference-count traffic).
    #[inline]
    fn with_set<R>(&self, v: u32, dir: Direction, f: impl FnOnce(&EdgeSet) -> R) -> Option<R> {
        if v >= self.bound {
            return None;
        }
        self.store.mem.read(v, |s| f(s.set(dir)))
    }

    /// Out-degree of internal id `v` (0 for absent vertices).
    pub fn out_degree_of(&self, v: u32) -> usize {
        self.degree(v, Direction::Out)
    }

    /// In-degree of internal id `v` (0 for absent vertices).
    pub fn in_degree_of(&self, v: u32) -> usize {
        self.degree(v, self.side(Direction::In))
    }

    fn degree(&self, v: u32, dir: Direction) -> usize {
        let ts = self.ts;
        if self.layers.is_empty() {
            return self.with_set(v, dir, |s| scan::degree(s, ts)).unwrap_or(0);
        }
        // The usual lists first, as the unordered reads find them: a BFS
        // asks every frontier vertex's degree as well as its list.
        if let Some((list, adds)) = self.sole_pieces(v, dir) {
            return list.len() + adds.len();
        }
        match self.place(v, dir) {
            Place::Empty => 0,
            Place::Plain(seg) => seg.entry_range(v).len(),
            Place::Versioned(seg) => seg.degree(v, ts),
            // Disjoint pieces add up; others are counted in the thread's
            // scratch lists: no list is allocated.
            Place::Merge => match self.piece_lists(v, dir) {
                Some((a, b)) => a.len() + b.len(),
                None => SCRATCH.with(|sc| {
                    let mut n = 0;
                    self.with_merged_dsts(v, dir, &mut sc.borrow_mut(), None, |list| {
                        n = list.len();
                    });
                    n
                }),
            },
        }
    }

    /// Out-neighbours of internal id `v`, ascending.
    pub fn out_neighbors_of(&self, v: u32) -> Neighbors<'_> {
        self.neighbors_on(v, Direction::Out)
    }

    /// In-neighbours of internal id `v`, ascending.
    pub fn in_neighbors_of(&self, v: u32) -> Neighbors<'_> {
        self.neighbors_on(v, self.side(Direction::In))
    }

    /// `v`'s neighbours on side `dir` (resolved), ascending.
    fn neighbors_on(&self, v: u32, dir: Direction) -> Neighbors<'_> {
        if !self.layers.is_empty() {
            return self.layered_neighbors(v, dir);
        }
        Neighbors::new(self.set_of(v, dir), self.ts)
    }

    fn layered_neighbors(&self, v: u32, dir: Direction) -> Neighbors<'_> {
        match self.place(v, dir) {
            Place::Empty => Neighbors::from_list(Vec::new()),
            Place::Plain(seg) => Neighbors::from_segment(seg, seg.entry_range(v)),
            Place::Versioned(_) | Place::Merge => {
                if let Some(list) = self.hub_slice(v, dir) {
                    return Neighbors::from_slice(list);
                }
                if let Some((a, b)) = self.piece_lists(v, dir) {
                    return Neighbors::from_two(a, b);
                }
                let mut list = Vec::new();
                self.merged_dsts(v, dir, &mut list);
                Neighbors::from_dsts(list)
            }
        }
    }

    /// Out-neighbours of internal id `v` with edge weights.
    #[inline]
    pub fn out_weighted_of(&self, v: u32) -> WeightedNeighbors<'_> {
        match self.sole_out(v) {
            Some(SoleOut::Clean(seg, range)) => WeightedNeighbors::from_segment(seg, range),
            Some(SoleOut::Split(seg, range, adds, weights)) => {
                WeightedNeighbors::from_two(seg, range, adds, weights)
            }
            Some(SoleOut::Updated(..)) | None => self.out_weighted_other(v),
        }
    }

    /// Calls `f(dst, weight)` for every out-edge of internal id `v`, in no
    /// set order (as [`WeightedNeighbors::for_each_unordered`]). The usual
    /// lists are read straight from their columns, as from a CSR, with
    /// nothing built per vertex (see `sole_out`): shortest paths call this
    /// once per settled vertex.
    ///
    /// `f` is called from one loop only (see `visit_unordered`): a missing
    /// weight column reads as no weights, each 1.0, in the same loop.
    #[inline]
    pub fn for_each_out_weighted_unordered_of(&self, v: u32, mut f: impl FnMut(u32, f64)) {
        // `f` is called from one loop only, so that the compiler inlines
        // it there: called as a function per edge, a relaxation's loads
        // of its neighbours' distances stop overlapping. A packed level's
        // list is decoded first and walked in that same loop.
        let mut decoded = DecodeBuf::default();
        let (dsts, weights, adds) = match self.sole_out(v) {
            Some(SoleOut::Clean(seg, range)) => {
                let (dsts, weights) = seg.weighted_entries(range);
                (dsts, weights, (&[][..], &[][..]))
            }
            Some(SoleOut::Split(seg, range, adds, add_weights)) => {
                let (dsts, weights) = seg.weighted_entries(range);
                (dsts, weights, (adds, add_weights))
            }
            Some(SoleOut::Updated(seg, range, adds, over)) => {
                return each_weighted_updated(seg, range, adds, over, &mut f);
            }
            // A packed level's list, decoded: as hot as a plain one.
            None => match self.packed_settled(v, Direction::Out) {
                Some(seg) => {
                    let (dsts, weights) = seg.weighted_list_in(v, &mut decoded);
                    (dsts, weights, (&[][..], &[][..]))
                }
                None => return self.each_out_weighted_other(v, &mut f),
            },
        };
        // A count the compiler cannot see through, so it keeps one loop
        // (unrolled over both pieces, `f` had two call sites again).
        let pieces = [(dsts, weights), (adds.0, Weights::Raw(adds.1))];
        let n = if adds.0.is_empty() { 1 } else { 2 };
        for &(dsts, weights) in pieces.get(..n).unwrap_or(&[]) {
            scan::each_weighted(dsts, weights, &mut f);
        }
    }

    /// Calls `f(weight)` for every out-edge of `v`, in the order
    /// `for_each_out_weighted_unordered_of` gives them: for a pass over
    /// weights alone (a shortest-path kernel's check that none is
    /// negative). A packed level's weights are read without decoding the
    /// destinations beside them.
    pub fn for_each_out_weight_unordered_of(&self, v: u32, mut f: impl FnMut(f64)) {
        if let Some(seg) = self.packed_settled(v, Direction::Out) {
            // A settled packed list holds one entry per edge, each with
            // its weight (1.0 where the level keeps none).
            let range = seg.entry_range(v);
            return match seg.list_weights(range.clone()) {
                Some(weights) => weights.for_each(f),
                None => range.for_each(|_| f(1.0)),
            };
        }
        self.for_each_out_weighted_unordered_of(v, |_, w| f(w));
    }

    /// `for_each_out_weighted_unordered_of` for a list neither a plain nor
    /// a packed level holds alone, behind one instance for every callback.
    #[inline(never)]
    fn each_out_weighted_other(&self, v: u32, f: &mut dyn FnMut(u32, f64)) {
        self.out_weighted_other(v).for_each_unordered(f);
    }

    /// The packed segment whose decoded list of `v` in one direction
    /// (resolved) is `v`'s list at this snapshot: the only source below the
    /// MemGraph, which holds nothing of `v`, with no versions to resolve.
    #[inline]
    fn packed_settled(&self, v: u32, dir: Direction) -> Option<&Segment> {
        if v >= self.bound || self.store.mem.may_hold(v) {
            return None;
        }
        self.layers.packed_sole(v, dir, self.ts)
    }

    /// Where `v`'s out-list lies when one plain segment below holds all of
    /// it that the MemGraph does not: the list after a compaction, or with
    /// the newest edges above it, that segment's entries and the additions
    /// of `v`'s page beside them (and any new weights the page gives the
    /// segment's edges), found with one page look-up (made only for a
    /// vertex the MemGraph may hold). `None` for any other list.
    #[inline]
    fn sole_out(&self, v: u32) -> Option<SoleOut<'_>> {
        let seg = self.layers.plain_sole(v, Direction::Out, self.ts)?;
        if v >= self.bound {
            return None;
        }
        let range = seg.entry_range(v);
        if !self.store.mem.may_hold(v) {
            return Some(SoleOut::Clean(seg, range));
        }
        let page = self.point_page(v, Direction::Out)?;
        if let Some((adds, weights)) = page.weighted_pieces(v) {
            return Some(SoleOut::Split(seg, range, adds, weights));
        }
        let (adds, weights, over) = page.updated_pieces(v)?;
        Some(SoleOut::Updated(seg, range, (adds, weights), over))
    }

    /// Whether `v`'s weighted out-list at this snapshot is exactly its
    /// slice of `seg`, the plain segment below the MemGraph that alone
    /// holds it (the MemGraph adds, removes and re-weights nothing of it
    /// as this snapshot sees it). Builds `v`'s MemGraph page if the
    /// MemGraph may hold `v`: for `read::shared`, which asks once per
    /// vertex of a whole level.
    pub(super) fn out_list_is_column(&self, v: u32, seg: &Segment) -> bool {
        let Some(sole) = self.layers.plain_sole(v, Direction::Out, self.ts) else {
            return false;
        };
        if v >= self.bound || !sole.same(seg) {
            return false;
        }
        if !self.store.mem.may_hold(v) {
            return true;
        }
        let below = |u| self.plain_below(u, Direction::Out);
        let page = self
            .mem_view
            .page(self.mem_reader(Direction::Out), &below, v);
        page.and_then(|p| p.weighted_pieces(v))
            .is_some_and(|(adds, _)| adds.is_empty())
    }

    /// The layers below the MemGraph this snapshot reads.
    pub(super) fn layers(&self) -> &Layers {
        &self.layers
    }

    /// `out_weighted_of` for every list `sole_out` does not place.
    #[inline(never)]
    fn out_weighted_other(&self, v: u32) -> WeightedNeighbors<'_> {
        if !self.layers.is_empty() {
            return match self.place(v, Direction::Out) {
                Place::Plain(seg) => WeightedNeighbors::from_segment(seg, seg.entry_range(v)),
                Place::Merge if let Some(two) = self.weighted_pieces_of(v) => two,
                _ => WeightedNeighbors::from_list(self.merged(v, Direction::Out), None),
            };
        }
        WeightedNeighbors::new(self.set_of(v, Direction::Out), self.ts, None)
    }

    /// In-neighbours of internal id `v` with edge weights. In a directed graph
    /// a weight is stored once, with the out-edge, so each is looked up there.
    pub fn in_weighted_of(&self, v: u32) -> WeightedNeighbors<'_> {
        if !self.store.opts.directed {
            return self.out_weighted_of(v);
        }
        let me = self.clone();
        let lookup = Box::new(move |src: u32| me.weight_of(src, v).unwrap_or(1.0));
        if !self.layers.is_empty() {
            return WeightedNeighbors::from_list(self.merged(v, Direction::In), Some(lookup));
        }
        WeightedNeighbors::new(self.set_of(v, Direction::In), self.ts, Some(lookup))
    }

    /// Calls `f` with every out-neighbour of internal id `v`, ascending: the
    /// fastest way to scan (no iterator state, plain runs read as slices).
    /// `f` runs with no lock held, so it may read this snapshot freely.
    pub fn for_each_out_of(&self, v: u32, f: impl FnMut(u32)) {
        self.visit(v, Direction::Out, f);
    }

    /// Calls `f` with every in-neighbour of internal id `v`, ascending.
    pub fn for_each_in_of(&self, v: u32, f: impl FnMut(u32)) {
        self.visit(v, self.side(Direction::In), f);
    }

    /// Calls `f` with every out-neighbour of internal id `v` in no set
    /// order, for passes that need none (sums, filters, relaxations): a
    /// list held as a plain slice below the MemGraph and additions it lacks
    /// comes piece by piece, not merged. Each id comes once.
    #[inline]
    pub fn for_each_out_unordered_of(&self, v: u32, f: impl FnMut(u32)) {
        self.visit_unordered(v, Direction::Out, f);
    }

    /// `for_each_out_unordered_of` for in-neighbours.
    #[inline]
    pub fn for_each_in_unordered_of(&self, v: u32, f: impl FnMut(u32)) {
        self.visit_unordered(v, self.side(Direction::In), f);
    }

    /// Calls `f` with `v`'s out-neighbours as disjoint ascending pieces
    /// (its plain slice below the MemGraph and the additions that slice
    /// lacks, or the whole list as one piece) and returns its result: one
    /// vertex's list for intersections that count piece by piece, with no
    /// merge. `f` runs with no lock held.
    pub fn with_out_pieces_of<R>(&self, v: u32, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        self.with_pieces(v, Direction::Out, f)
    }

    /// `with_out_pieces_of` for in-neighbours (the same as out-neighbours
    /// in an undirected graph).
    pub fn with_in_pieces_of<R>(&self, v: u32, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        self.with_pieces(v, self.side(Direction::In), f)
    }

    /// The read behind `with_*_pieces_of`.
    fn with_pieces<R>(&self, v: u32, dir: Direction, f: impl FnOnce(&[&[u32]]) -> R) -> R {
        if let Some((list, adds)) = self.sole_pieces(v, dir) {
            return if adds.is_empty() {
                f(&[list])
            } else {
                f(&[list, adds])
            };
        }
        // Found once: a slice as it is, anything else collected into a
        // list from the per-thread pool (see `visit`).
        let neighbors = self.neighbors_on(v, dir);
        if let Some(list) = neighbors.as_slice() {
            return f(&[list]);
        }
        let mut list = LISTS.with(|p| p.borrow_mut().pop()).unwrap_or_default();
        list.clear();
        list.extend(neighbors);
        let r = f(&[&list]);
        LISTS.with(|p| p.borrow_mut().push(list));
        r
    }

    /// Calls `f(v, out-neighbours of v)` for every internal id `v` in
    /// `range` (up to `id_bound()`), ascending, each list ascending: the
    /// sequential scan, for whole-graph passes. Absent vertices have no
    /// edges, so they come with empty lists.
    ///
    /// Where a single source holds a vertex's page (one L0 run and nothing
    /// else, or one level after a full compaction) and is plain for this
    /// snapshot, a vertex the MemGraph holds nothing for (64 checked per
    /// word of dirty bits) is handed over as a slice of that segment's
    /// destination column, as from a plain CSR; other vertices are resolved
    /// and copied first. `f` runs with no lock held.
    ///
    /// The first scan of a page of vertices copies what the snapshot sees
    /// of the MemGraph there into flat arrays the snapshot keeps, so later
    /// reads of those vertices, by any path, take no lock: a snapshot's
    /// first whole-graph pass costs more than its later ones. The store
    /// keeps those copies too, until its next flush or compaction, and a
    /// later snapshot takes a page from there if no commit has written an
    /// edge of its vertices since, and otherwise copies again only the
    /// vertices written since (`Stats::kept_read_bytes`): repeated
    /// analytics pay the whole copy once, and then what writes change.
    pub fn scan_out(&self, range: std::ops::Range<u32>, mut f: impl FnMut(u32, &[u32])) {
        self.scan(range, Direction::Out, false, all, |v, pieces| {
            f(v, pieces.first().unwrap_or(&&[][..]))
        });
    }

    /// `scan_out` for in-neighbours (the same as `scan_out` on an
    /// undirected graph): the pass pull-based kernels such as PageRank make.
    pub fn scan_in(&self, range: std::ops::Range<u32>, mut f: impl FnMut(u32, &[u32])) {
        self.scan(range, self.side(Direction::In), false, all, |v, pieces| {
            f(v, pieces.first().unwrap_or(&&[][..]))
        });
    }

    /// `scan_out` for passes that need no order across a list: calls
    /// `f(v, pieces)` where `v`'s out-neighbours are the ids of all
    /// `pieces` together, no id in two of them, each piece ascending. A
    /// vertex with edges in several layers comes as its plain slices in
    /// the levels and L0 runs and the MemGraph's additions, read in place
    /// with no merge, where the snapshot knows them to be disjoint (see
    /// `mem_view`); others come merged, as one piece.
    pub fn scan_out_unordered(&self, range: std::ops::Range<u32>, f: impl FnMut(u32, &[&[u32]])) {
        self.scan(range, Direction::Out, true, all, f);
    }

    /// `scan_out_unordered` for a pass that needs only some lists, or only
    /// some of a list: `want(v)` is how many of `v`'s out-neighbours the
    /// pass needs, a hint. For 0, `f` may be skipped for `v`; for `k`, its
    /// pieces may hold only the first `k` or more of what
    /// `scan_out_unordered` gives for `v`, in the same sequence. A packed
    /// level's lists are decoded only as far as wanted (a bottom-up BFS
    /// step skips visited vertices, a connected-components pass that
    /// links each vertex to its first neighbour decodes one group of each
    /// list); elsewhere lists are slices of the columns and handed over
    /// whole, at no cost, so `f` still checks what it needs.
    pub fn scan_out_partial(
        &self,
        range: std::ops::Range<u32>,
        want: impl Fn(u32) -> usize,
        f: impl FnMut(u32, &[&[u32]]),
    ) {
        self.scan(range, Direction::Out, true, want, f);
    }

    /// `scan_out_partial` for in-neighbours.
    pub fn scan_in_partial(
        &self,
        range: std::ops::Range<u32>,
        want: impl Fn(u32) -> usize,
        f: impl FnMut(u32, &[&[u32]]),
    ) {
        self.scan(range, self.side(Direction::In), true, want, f);
    }

    /// A pass that looks in each list for something and stops there:
    /// calls `found(v, piece)` for every vertex `v` of `range` that
    /// `want(v)` selects, with `v`'s out-neighbours in disjoint ascending
    /// pieces one after the other (together what `scan_out_unordered`
    /// gives), until it returns true or the pieces run out. A packed
    /// level's list is decoded a first group at a time, so a search that
    /// ends early (a bottom-up BFS step finding a parent among a vertex's
    /// first neighbours) does not pay for decoding the rest; elsewhere
    /// lists are slices, handed over whole. `want` may be asked more than
    /// once for a vertex and must answer the same until `found` is called.
    pub fn scan_out_until(
        &self,
        range: std::ops::Range<u32>,
        want: impl Fn(u32) -> bool,
        found: impl FnMut(u32, &[u32]) -> bool,
    ) {
        self.scan_until(range, Direction::Out, want, found);
    }

    /// `scan_out_until` for in-neighbours.
    pub fn scan_in_until(
        &self,
        range: std::ops::Range<u32>,
        want: impl Fn(u32) -> bool,
        found: impl FnMut(u32, &[u32]) -> bool,
    ) {
        self.scan_until(range, self.side(Direction::In), want, found);
    }

    fn scan_until(
        &self,
        range: std::ops::Range<u32>,
        dir: Direction,
        want: impl Fn(u32) -> bool,
        mut found: impl FnMut(u32, &[u32]) -> bool,
    ) {
        let end = range.end.min(self.bound);
        let mem = &self.store.mem;
        let mut v = range.start;
        // Each block's first groups, and one long list's rest.
        let mut heads: Vec<u32> = Vec::new();
        let mut rest: Vec<u32> = Vec::new();
        let mut ends = [0usize; 64];
        // What `scan` is asked for where lists are not decoded here.
        let wanted = |u| if want(u) { usize::MAX } else { 0 };
        // A list handed over by `scan`, piece by piece.
        fn whole(u: u32, pieces: &[&[u32]], found: &mut impl FnMut(u32, &[u32]) -> bool) {
            for p in pieces.iter().filter(|p| !p.is_empty()) {
                if found(u, p) {
                    return;
                }
            }
        }
        while v < end {
            let page_end = ((v / PAGE + 1).saturating_mul(PAGE)).min(end);
            // As in `scan`: a packed level alone below the MemGraph is the
            // one case where a list costs more than a slice.
            let packed = match self.plain_page_segments(v, dir) {
                Some(_) => None,
                None => self.layers.packed_sole(v, dir, self.ts),
            };
            let Some(seg) = packed else {
                self.scan(v..page_end, dir, true, wanted, |u, pieces| {
                    if want(u) {
                        whole(u, pieces, &mut found);
                    }
                });
                v = page_end;
                continue;
            };
            let lists = seg.packed_lists();
            while v < page_end {
                let block_end = ((v | 63) + 1).min(page_end);
                let dirty = mem.dirty_bits(v >> 6);
                let clean = |u: u32| dirty & (1u64 << (u & 63)) == 0;
                let first = |u| if want(u) { FIRST_GROUP } else { 0 };
                lists.decode_block(v, block_end, first, dirty, &mut heads, &mut ends);
                let mut start = 0;
                for (u, &end) in (v..block_end).zip(ends.iter()) {
                    if !clean(u) {
                        if want(u) {
                            self.scan(u..u + 1, dir, true, wanted, |u, pieces| {
                                whole(u, pieces, &mut found);
                            });
                        }
                    } else if start < end
                        && !found(u, heads.get(start..end).unwrap_or(&[]))
                        && lists.len(u) > end - start
                    {
                        let n = lists.decode_at(u, usize::MAX, &mut rest, 0);
                        found(u, rest.get(end - start..n).unwrap_or(&[]));
                    }
                    start = end;
                }
                v = block_end;
            }
        }
    }

    /// `scan_out_unordered` for in-neighbours.
    pub fn scan_in_unordered(&self, range: std::ops::Range<u32>, f: impl FnMut(u32, &[&[u32]])) {
        self.scan(range, self.side(Direction::In), true, all, f);
    }

    fn scan(
        &self,
        range: std::ops::Range<u32>,
        dir: Direction,
        unordered: bool,
        want: impl Fn(u32) -> usize,
        mut f: impl FnMut(u32, &[&[u32]]),
    ) {
        let end = range.end.min(self.bound);
        let mut sc = ListScratch::default();
        let layered = !self.layers.is_empty();
        let reader = self.mem_reader(dir);
        let below = |u| self.plain_below(u, dir);
        let mem = &self.store.mem;
        // An ordered scan's merge of a vertex's disjoint pieces.
        let mut merged = MergeScratch::default();
        let mut slow = |v: u32, f: &mut ListSink<'_>| {
            if !layered {
                sc.list.clear();
                self.visit(v, dir, |d| sc.list.push(d));
                return f(v, &[&sc.list]);
            }
            // The scan builds the pages it crosses (see `mem_view`): for
            // the MemGraph's part, or for the pieces an unordered scan
            // takes even where the MemGraph holds nothing.
            let page = if unordered || mem.may_hold(v) {
                self.mem_view.page(reader, &below, v)
            } else {
                None
            };
            let adds = page.filter(|_| unordered).and_then(|p| p.pieces(v));
            if let Some((adds, slices)) = adds.zip(self.plain_below(v, dir)) {
                let mut pieces: [&[u32]; MAX_PIECES + 1] = [&[]; MAX_PIECES + 1];
                let mut n = 0;
                for l in slices.lists().iter().chain([&adds]) {
                    if let Some(p) = pieces.get_mut(n) {
                        *p = l;
                        n += 1;
                    }
                }
                return f(v, pieces.get(..n).unwrap_or(&[]));
            }
            self.with_merged_dsts(v, dir, &mut sc, page, |list| f(v, &[list]));
        };
        // Page by page (level parts start on index pages, so the segments
        // holding a page's vertices are the same for all of them): where
        // every such segment is plain for this snapshot, lists are read
        // straight from their columns. A vertex in one segment that the
        // MemGraph holds nothing for (64 checked per word of dirty bits)
        // is handed over as a slice, as from a plain CSR; a vertex its
        // MemGraph page has in disjoint pieces is handed over as its
        // slices and the page's additions (unordered) or as their merge,
        // which needs no check for an id in two pieces (ordered); other
        // vertices take the general merge.
        let mut v = range.start;
        // A block of a packed level's lists, decoded (see below).
        let mut decoded: Vec<u32> = Vec::new();
        let mut ends = [0usize; 64];
        while v < end {
            let page_end = ((v / PAGE + 1).saturating_mul(PAGE)).min(end);
            let Some((segs, count)) = self.plain_page_segments(v, dir) else {
                // A packed level alone below the MemGraph: a list the
                // MemGraph holds nothing of is decoded and handed over as
                // one piece.
                let Some(seg) = self.layers.packed_sole(v, dir, self.ts) else {
                    (v..page_end).for_each(|u| slow(u, &mut f));
                    v = page_end;
                    continue;
                };
                // The lists of a block of vertices are decoded together
                // into one buffer before any is handed over, so that the
                // kernel's loop over them runs as over a CSR's column (its
                // loads from one list overlap the next's) instead of
                // waiting on each list's decoding.
                let lists = seg.packed_lists();
                while v < page_end {
                    let block_end = ((v | 63) + 1).min(page_end);
                    let dirty = mem.dirty_bits(v >> 6);
                    let skip =
                        lists.decode_block(v, block_end, &want, dirty, &mut decoded, &mut ends);
                    let mut start = 0;
                    for (u, &end) in (v..block_end).zip(ends.iter()) {
                        let bit = 1u64 << (u & 63);
                        if skip & bit == 0 && dirty & bit == 0 {
                            f(u, &[decoded.get(start..end).unwrap_or(&[])]);
                        } else if skip & bit == 0 {
                            slow(u, &mut f);
                        }
                        start = end;
                    }
                    v = block_end;
                }
                continue;
            };
            // Each segment's columns, found once per page.
            let cols = segs.map(|s| (s.offsets(), s.dsts(), s.rows()));
            let cols = cols.get(..count).unwrap_or(&[]);
            // The MemGraph page, looked up at the first vertex needing it.
            let mut looked_up = None;
            // Reused across vertices; only `..n` is ever read.
            let mut lists: [&[u32]; MAX_PIECES + 1] = [&[]; MAX_PIECES + 1];
            while v < page_end {
                let dirty = mem.dirty_bits(v >> 6);
                let block_end = ((v | 63) + 1).min(page_end);
                // The usual states with the newest part of the graph above
                // the levels, scanned unordered, each in a loop about as
                // short as a CSR's (or two side by side). First, one level
                // part with the MemGraph's additions beside it.
                if let ([c0], true) = (cols, unordered) {
                    for u in v..block_end {
                        let a = column_list(*c0, u);
                        if dirty & (1u64 << (u & 63)) == 0 {
                            f(u, &[a]);
                            continue;
                        }
                        let page =
                            *looked_up.get_or_insert_with(|| self.mem_view.page(reader, &below, u));
                        match page.and_then(|p| p.pieces(u)) {
                            Some([]) => f(u, &[a]),
                            Some(adds) => f(u, &[a, adds]),
                            None => slow(u, &mut f),
                        }
                    }
                    v = block_end;
                    continue;
                }
                // Then a level part under an L0 run: a vertex the MemGraph
                // holds nothing for needs its page only if both slices
                // have edges.
                if let ([c0, c1], true) = (cols, unordered) {
                    for u in v..block_end {
                        let (a, b) = (column_list(*c0, u), column_list(*c1, u));
                        let clean = dirty & (1u64 << (u & 63)) == 0;
                        if clean && (a.is_empty() || b.is_empty()) {
                            f(u, &[if a.is_empty() { b } else { a }]);
                            continue;
                        }
                        let page =
                            *looked_up.get_or_insert_with(|| self.mem_view.page(reader, &below, u));
                        // The MemGraph adds nothing to a clean vertex, so
                        // only whether its slices are disjoint is needed.
                        if clean && page.is_some_and(|p| p.in_pieces(u)) {
                            f(u, &[a, b]);
                            continue;
                        }
                        match page.and_then(|p| p.pieces(u)) {
                            Some([]) => f(u, &[a, b]),
                            Some(adds) => f(u, &[a, b, adds]),
                            None => slow(u, &mut f),
                        }
                    }
                    v = block_end;
                    continue;
                }
                for u in v..block_end {
                    let clean = dirty & (1u64 << (u & 63)) == 0;
                    // The state after a compaction, kept as short as a
                    // CSR's loop.
                    if let ([one], true) = (cols, clean) {
                        f(u, &[column_list(*one, u)]);
                        continue;
                    }
                    let mut n = 0;
                    for c in cols {
                        let list = column_list(*c, u);
                        if !list.is_empty() {
                            lists[n] = list;
                            n += 1;
                        }
                    }
                    if clean && n <= 1 {
                        f(u, lists.get(..n).unwrap_or(&[]));
                        continue;
                    }
                    let page =
                        *looked_up.get_or_insert_with(|| self.mem_view.page(reader, &below, u));
                    match page.and_then(|p| p.pieces(u)) {
                        Some(adds) => {
                            if !adds.is_empty() {
                                lists[n] = adds;
                                n += 1;
                            }
                            let pieces = lists.get(..n).unwrap_or(&[]);
                            if unordered {
                                f(u, pieces);
                            } else {
                                // Disjoint pieces: merged with no check
                                // for a destination in two of them.
                                f(u, &[merge_disjoint(pieces, &mut merged)]);
                            }
                        }
                        None => slow(u, &mut f),
                    }
                }
                v = block_end;
            }
        }
    }

    /// The segments holding the vertices of the index page that starts at
    /// or holds `v` (L0 runs and one part per level), in one direction,
    /// and how many, if every one is plain for this snapshot and there are
    /// at most `MAX_PIECES`; `None` otherwise.
    fn plain_page_segments(
        &self,
        v: u32,
        dir: Direction,
    ) -> Option<([&Segment; MAX_PIECES], usize)> {
        let mut segs = [None; MAX_PIECES];
        let mut n = 0;
        for seg in self.layers.segments_of(v, dir) {
            if !seg.is_bare_at(self.ts) {
                return None;
            }
            *segs.get_mut(n)? = Some(seg);
            n += 1;
        }
        let first = segs[0]?;
        Some((segs.map(|s| s.unwrap_or(first)), n))
    }

    /// Calls `f` on `v`'s list in ascending order if it is in disjoint
    /// pieces (`piece_lists`); returns whether it was.
    fn visit_pieces(&self, v: u32, dir: Direction, f: &mut impl FnMut(u32)) -> bool {
        let Some((a, b)) = self.piece_lists(v, dir) else {
            return false;
        };
        Neighbors::from_two(a, b).for_each(f);
        true
    }

    /// `v`'s list in one direction (resolved) as its slice in the
    /// one plain segment below the MemGraph that holds it and the additions
    /// its MemGraph page says that slice lacks (empty where the MemGraph
    /// holds nothing of `v`): the pieces `piece_lists` finds, with the
    /// common case after a compaction first. `None` if the list must be
    /// read otherwise.
    #[inline]
    fn sole_pieces(&self, v: u32, dir: Direction) -> Option<(&[u32], &[u32])> {
        if v >= self.bound {
            return None;
        }
        let seg = self.layers.plain_sole(v, dir, self.ts)?;
        let list = seg.entries_of(v);
        if !self.store.mem.may_hold(v) {
            return Some((list, &[]));
        }
        let adds = self.point_page(v, dir)?.pieces(v)?;
        Some((list, adds))
    }

    /// The read behind `for_each_*_unordered_of`: `sole_pieces` one after
    /// the other; any other list through `visit`.
    ///
    /// `f` is called from one loop only, and the rarer lists go through
    /// `visit_dyn`: with `f` at several call sites the compiler kept it out
    /// of line, a call per edge that a CSR's loop does not pay (betweenness
    /// on a compacted store spent a fifth of its time more than the CSR's).
    #[inline]
    fn visit_unordered(&self, v: u32, dir: Direction, mut f: impl FnMut(u32)) {
        let mut decoded = DecodeBuf::default();
        let (list, adds) = match self.sole_pieces(v, dir) {
            Some(pieces) => pieces,
            // A packed level's list, decoded: as hot as a plain one, and
            // walked in the same loop (see the weighted form).
            None => match self.packed_settled(v, dir) {
                Some(seg) => (seg.list_in(v, &mut decoded), &[][..]),
                None => return self.visit_dyn(v, dir, &mut f),
            },
        };
        // As in `for_each_out_weighted_unordered_of`: a count the compiler
        // cannot see through keeps it from unrolling `f` into two loops.
        let pieces = [list, adds];
        let n = if adds.is_empty() { 1 } else { 2 };
        for piece in pieces.get(..n).unwrap_or(&[]) {
            for &d in *piece {
                f(d);
            }
        }
    }

    /// `visit` behind one instance for every callback, for paths that are
    /// not the hot one of their caller (see `visit_unordered`).
    #[inline(never)]
    fn visit_dyn(&self, v: u32, dir: Direction, f: &mut dyn FnMut(u32)) {
        self.visit(v, dir, f);
    }

    /// The scan behind `for_each_*`. The callback must not run under the
    /// vertex lock: it may read other vertices, and a writer holding one of
    /// those while waiting for this one would deadlock with it. So a small
    /// set (most vertices of a power-law graph) is copied to the stack under
    /// the shared lock, one lock round trip and no reference-count traffic;
    /// a larger one is cloned (an `Arc` increment, amortised over its edges).
    #[inline]
    fn visit(&self, v: u32, dir: Direction, mut f: impl FnMut(u32)) {
        if !self.layers.is_empty() {
            if let Some(seg) = self.packed_settled(v, dir) {
                return seg.with_list(v, |l| l.iter().for_each(|&d| f(d)));
            }
            match self.place(v, dir) {
                Place::Empty => {}
                // Immutable: scanned in place, no lock, no copy.
                Place::Plain(seg) | Place::Versioned(seg) => {
                    seg.for_each_visible(v, self.ts, |d, _| f(d));
                }
                // Merged into a list first, so `f` runs with no lock or
                // scratch borrowed (it may read this snapshot again). The
                // list comes from a per-thread pool (a nested call takes
                // another), so a kernel visiting many merged vertices does
                // not allocate for each.
                // Disjoint pieces are merged as they go.
                Place::Merge if self.visit_pieces(v, dir, &mut f) => {}
                Place::Merge => {
                    let mut list = LISTS.with(|p| p.borrow_mut().pop()).unwrap_or_default();
                    list.clear();
                    self.merged_dsts(v, dir, &mut list);
                    list.iter().for_each(|&d| f(d));
                    LISTS.with(|p| p.borrow_mut().push(list));
                }
            }
            return;
        }
        const COPY: usize = 64;
        let ts = self.ts;
        let mut buf = [0u32; COPY];
        let got = self.with_set(v, dir, |s| {
            if s.entries() > COPY {
                return Err(s.clone());
            }
            let mut n = 0;
            scan::visit(s, ts, |d| {
                buf[n] = d;
                n += 1;
            });
            Ok(n)
        });
        match got {
            Some(Ok(n)) => buf[..n].iter().for_each(|&d| f(d)),
            Some(Err(set)) => scan::visit(&set, ts, f),
            None => {}
        }
    }
}

/// `v`'s list in a segment's columns `(offsets, destinations, rows)`. `open` checked the offsets; `get` keeps a damaged file from
/// panicking all the same.
#[inline]
fn column_list<'s>((offs, dsts, rows): (&'s [u32], &'s [u32], Rows<'s>), v: u32) -> &'s [u32] {
    let Some(i) = rows.row(v) else {
        return &[];
    };
    match (offs.get(i), offs.get(i + 1)) {
        (Some(&a), Some(&b)) => dsts.get(a as usize..b as usize).unwrap_or(&[]),
        _ => &[],
    }
}

/// What a scan calls per vertex: `f(v, pieces)`, `v`'s list in pieces.
type ListSink<'f> = dyn FnMut(u32, &[&[u32]]) + 'f;

/// A vertex's out-list in one plain segment below the MemGraph (see
/// `Snapshot::sole_out`): the segment and `v`'s entry range in it, and the
/// additions its MemGraph page holds with their weights.
enum SoleOut<'s> {
    Clean(&'s Segment, std::ops::Range<usize>),
    Split(&'s Segment, std::ops::Range<usize>, &'s [u32], &'s [f64]),
    /// `Split` where the MemGraph also gives new weights to some edges of
    /// the segment (`MemPage::updated_pieces`).
    Updated(
        &'s Segment,
        std::ops::Range<usize>,
        (&'s [u32], &'s [f64]),
        &'s [Override],
    ),
}

/// `Snapshot::for_each_out_weighted_unordered_of` for `SoleOut::Updated`:
/// the segment's entries with the new weights laid over theirs (one
/// pointer walked along beside the entries, both ascending), then the
/// additions. Out of line with one instance for every callback, as the
/// rare path of its caller.
#[inline(never)]
fn each_weighted_updated(
    seg: &Segment,
    range: std::ops::Range<usize>,
    (adds, add_weights): (&[u32], &[f64]),
    over: &[Override],
    f: &mut dyn FnMut(u32, f64),
) {
    let (dsts, weights) = seg.weighted_entries(range);
    let mut over = over.iter().peekable();
    for (k, &d) in dsts.iter().enumerate() {
        let mut w = weights.get(k).unwrap_or(1.0);
        while let Some(&&(_, od, ow)) = over.peek() {
            if od > d {
                break;
            }
            over.next();
            if od == d {
                w = ow;
            }
        }
        f(d, w);
    }
    scan::each_weighted(adds, Weights::Raw(add_weights), f);
}

/// Where a vertex's edges in one direction are (see `Snapshot::place`).
enum Place<'s> {
    /// Nowhere: the vertex has none in this direction.
    Empty,
    /// In one segment, as a plain slice for this snapshot.
    Plain(&'s Segment),
    /// In one segment, with versions to resolve.
    Versioned(&'s Segment),
    /// In the MemGraph, maybe also in runs: merge them.
    Merge,
}

thread_local! {
    /// Scratch lists for merged reads, reused across calls on one thread.
    static MERGER: RefCell<Merger> = RefCell::new(Merger::default());
    /// Buffers for `Snapshot::merged_dsts`.
    static SCRATCH: RefCell<ListScratch> = RefCell::new(ListScratch::default());
    /// Lists `Snapshot::visit` lends out while its callback runs.
    static LISTS: RefCell<Vec<Vec<u32>>> = const { RefCell::new(Vec::new()) };
}

/// The `want` of a scan that needs every list whole.
/// How many entries of a packed list `scan_until` decodes first: one
/// group of the decoder's, which most searches of a bottom-up BFS step end
/// in.
const FIRST_GROUP: usize = 8;

fn all(_: u32) -> usize {
    usize::MAX
}
