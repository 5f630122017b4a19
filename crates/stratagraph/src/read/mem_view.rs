//! What one snapshot sees of the MemGraph, copied into flat pages once it
//! is read page by page.
//!
//! With a fifth of the graph still in the MemGraph, nearly every vertex has
//! edges both there and in a level, and reading its list meant taking the
//! vertex's lock and resolving its versions against the snapshot, on every
//! read: a PageRank paid that twenty times per vertex, a BFS once per step.
//! A snapshot never changes, so the first scan of a page of vertices copies
//! the MemGraph's decisions for them (per vertex: the destinations live at
//! the snapshot, then the tombstones, each ascending) into one array, and
//! every later read in the page takes them as slices, with no lock and no
//! version check, to be laid over the level's slice (`read::union`).
//!
//! Whole-graph scans build the pages they cross. A point read uses a page
//! once it exists and builds it after `BUILD_AFTER` point reads in it, so a
//! kernel that reads vertex by vertex (CDLP, betweenness, SSSP) gains too,
//! while a few look-ups in a large graph copy nothing. A page costs 4
//! bytes per decided MemGraph version in it (12 in the out direction,
//! which keeps weights for weighted reads) plus 8 bytes per vertex.
//!
//! Building a page costs far more than reading it (a lock, the vertex's
//! runs and its slices below, each a cache miss, for every vertex), and
//! analytics take a fresh snapshot per run. So a built page is also kept
//! with the `Layers` it was built over (`KeptPages`). A later snapshot of
//! the same `Layers` takes it as it is when no commit has written an edge
//! of the page since (`MemGraph::note_write`) and it covers the same
//! vertices; otherwise it builds its own page but copies from the kept
//! one every vertex no commit wrote since, so it locks and looks below
//! for the written vertices only. What it takes is exactly what it would
//! have copied: the same MemGraph decisions over the same slices below,
//! plain for it as they were for the builder (plain stays plain for newer
//! snapshots). Kept pages live until the `Layers` is replaced (the next
//! flush or compaction) and no snapshot holds them, at most one per page
//! and direction.

use crate::direction::Direction;
use crate::mem::MemGraph;
use crate::page::PAGE;
use crate::util::kept::Kept;
use crate::util::search::gallop_below;
use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};
use std::sync::{Arc, OnceLock};

/// Point reads in a page after which it is built. A build costs about
/// what a few hundred point reads in the page do (k20 with a fifth of the
/// edges in the MemGraph: 150 us a page), but it is kept for later
/// snapshots (`KeptPages`) until the next flush or compaction, so it is
/// paid once for many runs. At 64 reads, the top-down steps of BFS build
/// the pages their frontiers cross: a BFS on a later snapshot took 95 ms
/// instead of 125 ms, and the first after the MemGraph was written took
/// 620 ms instead of 350 ms (at `PAGE / 2` reads).
const BUILD_AFTER: u32 = PAGE / 16;

/// Point reads in a page after which it is built when a page kept from an
/// earlier snapshot is there but was written since: the build then copies
/// the unwritten vertices from it in runs and decides only the written
/// ones, which costs little more than their own point reads.
const PATCH_AFTER: u32 = 16;

/// What a snapshot's slot learnt when it asked `KeptPages` for its page.
const NOT_ASKED: u8 = 0;
const NOTHING_KEPT: u8 = 1;
const STALE_KEPT: u8 = 2;

/// One snapshot's pages, per direction, shared by its clones.
#[derive(Default)]
pub(crate) struct MemView {
    slots: OnceLock<Box<[Slot]>>,
}

#[derive(Default)]
struct Slot {
    page: OnceLock<Arc<MemPage>>,
    /// Point reads in the page while it was not built.
    reads: AtomicU32,
    /// Whether `KeptPages` was asked for this page already, and what it
    /// had (`NOT_ASKED`, ...): point reads ask once, not on every read.
    asked: AtomicU8,
}

/// Pages built over one `Layers`, for later snapshots of it (see the
/// module docs), keyed by `page_key`.
pub(crate) type KeptPages = Kept<u32, MemPage>;

/// The key of the page starting at `first` in `r`'s direction.
fn page_key(r: Reader<'_>, first: u32) -> u32 {
    2 * (first / PAGE) + u32::from(r.dir.is_in())
}

/// Whether reader `r` may take `page`, starting at `first` and built by a
/// snapshot at `ts` no newer than `r`'s, as it is: it covers the same
/// vertices, and no commit wrote to the page after that snapshot. (A
/// commit `r` sees raised the page's mark before it was published; one it
/// cannot see may raise it too, which only costs a build.)
fn current(r: Reader<'_>, first: u32, page: &MemPage, ts: u64) -> bool {
    r.mem.page_written(first) <= ts && page.end() == end_of(r, first)
}

/// The end of the page starting at `first` for reader `r`.
fn end_of(r: Reader<'_>, first: u32) -> u32 {
    first.saturating_add(PAGE).min(r.bound)
}

/// The MemGraph's decisions for the vertices of one page at one snapshot.
pub(crate) struct MemPage {
    first: u32,
    /// For vertex `first + i`: its live destinations are
    /// `dsts[starts[2i]..starts[2i+1]]`, its tombstones
    /// `dsts[starts[2i+1]..starts[2i+2]]`.
    starts: Box<[u32]>,
    dsts: Box<[u32]>,
    /// In an out-direction page, the weight of each live destination in
    /// `dsts` (0.0 beside tombstones); empty in an in-direction page, whose
    /// weights live with the sources' out-edges.
    weights: Box<[f64]>,
    /// Bit `i` set: vertex `first + i` has at most `MAX_PIECES` sources
    /// below the MemGraph, all plain for the snapshot, no two of them
    /// holding the same edge, and its live destinations above hold only
    /// edges those slices lack (those they have are dropped at the build,
    /// and no tombstone above hides one of their edges). Its list is then
    /// those slices and its live destinations taken side by side, with no
    /// merge (`MemPage::pieces`).
    pieces: Box<[u64]>,
    /// Bit `i` set: some of those dropped destinations of vertex
    /// `first + i` were live above (a new weight for an edge of a slice),
    /// so the MemGraph does decide something for it.
    updates: Box<[u64]>,
    /// In an out-direction page, those dropped destinations with their
    /// new weights, ascending by vertex and destination: a weighted read
    /// of an updated vertex takes its slice's weights but these
    /// (`MemPage::updated_pieces`). Rewritten edges are few, so they are
    /// kept apart rather than beside every vertex. A vertex with none
    /// here (an in-direction page) is read by the general merge.
    overrides: Box<[Override]>,
}

/// A new weight the MemGraph gives an edge of a vertex's slice below, in
/// an out-direction page: `(i, destination, weight)` for vertex
/// `first + i` (see `MemPage::overrides`).
pub(crate) type Override = (u32, u32, f64);

/// Most slices below the MemGraph a vertex in pieces has (a level part
/// and a few L0 runs).
pub(crate) const MAX_PIECES: usize = 4;

/// A vertex's plain slices below the MemGraph, non-empty ones only.
#[derive(Clone, Copy, Default)]
pub(crate) struct Slices<'b> {
    lists: [&'b [u32]; MAX_PIECES],
    n: usize,
}

impl<'b> Slices<'b> {
    /// Up to `MAX_PIECES` lists (`None` for more); empty ones are left out.
    pub(crate) fn new(lists: &[&'b [u32]]) -> Option<Slices<'b>> {
        let mut s = Slices::default();
        for &l in lists.iter().filter(|l| !l.is_empty()) {
            *s.lists.get_mut(s.n)? = l;
            s.n += 1;
        }
        Some(s)
    }

    pub(crate) fn lists(&self) -> &[&'b [u32]] {
        self.lists.get(..self.n).unwrap_or(&[])
    }

    /// Sets `held[i]` for every `ds[i]` some slice holds (`ds` ascending).
    fn mark_held(&self, ds: &[u32], held: &mut [bool]) {
        for &list in self.lists() {
            for_each_common(list, ds, |i| {
                held[i] = true;
                true
            });
        }
    }

    /// Whether no two slices hold the same destination.
    fn disjoint(&self) -> bool {
        let l = self.lists();
        (0..l.len()).all(|i| {
            (i + 1..l.len()).all(|j| {
                let mut apart = true;
                for_each_common(l[i], l[j], |_| {
                    apart = false;
                    false
                });
                apart
            })
        })
    }
}

/// For a vertex, its plain slices below the MemGraph, or `None` if one of
/// its sources needs version checks or it has more than `MAX_PIECES`.
pub(crate) type Below<'b> = &'b dyn Fn(u32) -> Option<Slices<'b>>;

/// What a snapshot reads the MemGraph with: the graph, the snapshot's
/// timestamp and id bound, and the direction (already resolved for
/// undirected graphs).
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    pub mem: &'a MemGraph,
    /// Pages kept over the snapshot's `Layers`.
    pub kept: &'a KeptPages,
    pub ts: u64,
    pub bound: u32,
    pub dir: Direction,
}

impl MemView {
    /// `v`'s page, built now if it was not (`None` past the id bound).
    pub(crate) fn page(&self, r: Reader<'_>, below: Below<'_>, v: u32) -> Option<&MemPage> {
        Some(self.slot(r, v)?.built_now(r, below, v))
    }

    /// `v`'s page if it is built already (by this snapshot, or kept from
    /// an earlier one).
    pub(crate) fn built(&self, r: Reader<'_>, v: u32) -> Option<&MemPage> {
        self.slot(r, v)?.built(r, v)
    }

    /// `v`'s page for a point read: the built page, or `None` while fewer
    /// than `BUILD_AFTER` point reads have come to it (`PATCH_AFTER` if a
    /// stale page is kept for it; the caller then reads the MemGraph
    /// itself).
    pub(crate) fn page_for_point_read(
        &self,
        r: Reader<'_>,
        below: Below<'_>,
        v: u32,
    ) -> Option<&MemPage> {
        let slot = self.slot(r, v)?;
        if let Some(page) = slot.built(r, v) {
            return Some(page);
        }
        let wait = if slot.asked.load(Ordering::Relaxed) == STALE_KEPT {
            PATCH_AFTER
        } else {
            BUILD_AFTER
        };
        if slot.reads.fetch_add(1, Ordering::Relaxed) + 1 < wait {
            return None;
        }
        Some(slot.built_now(r, below, v))
    }

    fn slot(&self, r: Reader<'_>, v: u32) -> Option<&Slot> {
        if v >= r.bound {
            return None;
        }
        let slots = self.slots.get_or_init(|| {
            let n = 2 * r.bound.div_ceil(PAGE) as usize;
            (0..n).map(|_| Slot::default()).collect()
        });
        slots.get(2 * (v / PAGE) as usize + usize::from(r.dir.is_in()))
    }
}

impl Slot {
    /// The page holding `v`, built now if it was not (readers on other
    /// threads wait for that one build).
    fn built_now(&self, r: Reader<'_>, below: Below<'_>, v: u32) -> &MemPage {
        self.page.get_or_init(|| {
            let first = v / PAGE * PAGE;
            let base = r.kept.built_by(&page_key(r, first), r.ts);
            if let Some((page, ts)) = &base {
                if current(r, first, page, *ts) {
                    return page.clone();
                }
            }
            let base = base.as_ref().map(|(page, ts)| (&**page, *ts));
            let page = Arc::new(MemPage::build(r, below, first, base));
            r.kept.offer(page_key(r, first), &page, r.ts);
            page
        })
    }

    /// The page if this snapshot has it, or takes it now from the kept
    /// pages (asked once per snapshot).
    fn built(&self, r: Reader<'_>, v: u32) -> Option<&MemPage> {
        if let Some(page) = self.page.get() {
            return Some(page);
        }
        if self.asked.load(Ordering::Relaxed) != NOT_ASKED {
            return None;
        }
        let first = v / PAGE * PAGE;
        match r.kept.built_by(&page_key(r, first), r.ts) {
            Some((page, ts)) if current(r, first, &page, ts) => {
                Some(self.page.get_or_init(|| page))
            }
            kept => {
                let learnt = if kept.is_some() {
                    STALE_KEPT
                } else {
                    NOTHING_KEPT
                };
                self.asked.store(learnt, Ordering::Relaxed);
                None
            }
        }
    }
}

impl MemPage {
    /// Copies the MemGraph's decisions at `r.ts` for the page starting at
    /// `first` (only vertices whose dirty bit is set are locked), and finds
    /// which of its vertices are in pieces (every vertex is checked: one
    /// the MemGraph holds nothing of may still have several slices below).
    ///
    /// With `base`, a page of the same vertices built at an older
    /// timestamp, the vertices no commit wrote since are copied from there
    /// as they are, a run of them at a time, with no lock and no look-up
    /// below.
    fn build(
        r: Reader<'_>,
        below: Below<'_>,
        first: u32,
        base: Option<(&MemPage, u64)>,
    ) -> MemPage {
        let end = end_of(r, first);
        let n = (end - first) as usize;
        let mut copied = [0u64; PAGE as usize / 64];
        if let Some((b, ts)) = base {
            for (i, v) in (first..end.min(b.end())).enumerate() {
                if r.mem.vertex_written(v) <= ts {
                    copied[i / 64] |= 1 << (i % 64);
                }
            }
        }
        let is_copied = |i: usize| copied[i / 64] & (1 << (i % 64)) != 0;
        // The end of the run of copied vertices starting at `i`.
        let run_end = |i: usize| (i..n).find(|&k| !is_copied(k)).unwrap_or(n);
        let keep_weights = !r.dir.is_in();
        let room = base.map_or(0, |(b, _)| b.dsts.len());
        let mut starts: Vec<u32> = Vec::with_capacity(2 * n + 1);
        let mut dsts = Vec::with_capacity(room);
        let mut weights = Vec::with_capacity(if keep_weights { room } else { 0 });
        let mut kills = Vec::new();
        starts.push(0);
        // First pass, under each vertex's lock: its decided destinations,
        // live ones then tombstones. No check against the levels is made
        // here: a lock orders memory, so a cache miss taken while one is
        // held is waited out alone.
        let mut i = 0;
        while i < n {
            if let Some((b, _)) = base.filter(|_| is_copied(i)) {
                let j = run_end(i);
                let run = (first + i as u32, first + j as u32);
                let weights = keep_weights.then_some(&mut weights);
                b.copy_run(run, &mut starts, &mut dsts, weights);
                i = j;
                continue;
            }
            let v = first + i as u32;
            if r.mem.may_hold(v) {
                r.mem.read(v, |st| {
                    if keep_weights {
                        st.out.for_each_decided(r.ts, |d, state| match state {
                            Some(w) => {
                                dsts.push(d);
                                weights.push(w);
                            }
                            None => kills.push(d),
                        });
                    } else {
                        st.inn.for_each_decided_dst(r.ts, |d, live| {
                            if live {
                                dsts.push(d);
                            } else {
                                kills.push(d);
                            }
                        });
                    }
                });
            }
            starts.push(dsts.len() as u32);
            if keep_weights {
                weights.resize(dsts.len() + kills.len(), 0.0);
            }
            dsts.append(&mut kills);
            starts.push(dsts.len() as u32);
            i += 1;
        }
        // Second pass, with no lock held, so the levels' slices are read
        // with many misses in flight: which vertices are pieces, dropping
        // their live destinations the slices hold (in place, moving the
        // rest forward). Copied vertices keep their lists and bits.
        let mut pieces = vec![0u64; PAGE as usize / 64];
        let mut updates = vec![0u64; PAGE as usize / 64];
        let mut overrides = Vec::new();
        if let Some((b, _)) = base {
            for w in 0..copied.len() {
                pieces[w] = b.pieces.get(w).map_or(0, |&p| p & copied[w]);
                updates[w] = b.updates.get(w).map_or(0, |&u| u & copied[w]);
            }
        }
        let with_weights = weights.len() == dsts.len();
        let mut write = 0;
        let mut read = 0;
        // Per destination of the vertex at hand: whether its slices hold it.
        let mut held = Vec::new();
        let mut i = 0;
        while i < n {
            if is_copied(i) {
                let j = run_end(i);
                let stop = starts[2 * j] as usize;
                if write != read {
                    dsts.copy_within(read..stop, write);
                    if with_weights {
                        weights.copy_within(read..stop, write);
                    }
                    for s in &mut starts[2 * i + 1..=2 * j] {
                        *s -= (read - write) as u32;
                    }
                }
                write += stop - read;
                read = stop;
                if let Some((b, _)) = base {
                    overrides.extend_from_slice(b.overrides_of(i as u32..j as u32));
                }
                i = j;
                continue;
            }
            let v = first + i as u32;
            let (mid, stop) = (starts[2 * i + 1] as usize, starts[2 * i + 2] as usize);
            let bit = 1 << (i % 64);
            held.clear();
            held.resize(stop - read, false);
            if let Some(s) = below(v) {
                s.mark_held(&dsts[read..mid], &mut held[..mid - read]);
                s.mark_held(&dsts[mid..stop], &mut held[mid - read..]);
                if held[mid - read..].iter().all(|&h| !h) && s.disjoint() {
                    pieces[i / 64] |= bit;
                }
            }
            let in_pieces = pieces[i / 64] & bit != 0;
            for k in read..stop {
                let d = dsts[k];
                if k < mid && in_pieces && held[k - read] {
                    updates[i / 64] |= bit;
                    if with_weights {
                        overrides.push((i as u32, d, weights[k]));
                    }
                    continue;
                }
                if k == mid {
                    starts[2 * i + 1] = write as u32;
                }
                dsts[write] = d;
                if with_weights {
                    weights[write] = weights[k];
                }
                write += 1;
            }
            if mid == stop {
                starts[2 * i + 1] = write as u32;
            }
            starts[2 * i + 2] = write as u32;
            read = stop;
            i += 1;
        }
        dsts.truncate(write);
        if with_weights {
            weights.truncate(write);
        }
        MemPage {
            first,
            starts: starts.into(),
            dsts: dsts.into(),
            weights: weights.into(),
            pieces: pieces.into(),
            updates: updates.into(),
            overrides: overrides.into(),
        }
    }

    /// The overrides of the vertices `first + i` for `i` in `range`.
    fn overrides_of(&self, range: std::ops::Range<u32>) -> &[Override] {
        let at = |i: u32| self.overrides.partition_point(|o| o.0 < i);
        self.overrides
            .get(at(range.start)..at(range.end))
            .unwrap_or(&[])
    }

    /// Appends the lists of vertices `from..to` (in this page) to a page
    /// being built: their destinations to `dsts`, their bounds (shifted to
    /// where they land) to `starts`, and the weights beside them to
    /// `weights` if it is given.
    fn copy_run(
        &self,
        (from, to): (u32, u32),
        starts: &mut Vec<u32>,
        dsts: &mut Vec<u32>,
        weights: Option<&mut Vec<f64>>,
    ) {
        let (a, z) = (
            2 * (from - self.first) as usize,
            2 * (to - self.first) as usize,
        );
        let (s0, s1) = (self.starts[a] as usize, self.starts[z] as usize);
        let landed = dsts.len() as u32;
        dsts.extend_from_slice(&self.dsts[s0..s1]);
        starts.extend(
            self.starts[a + 1..=z]
                .iter()
                .map(|&x| x - s0 as u32 + landed),
        );
        if let Some(weights) = weights {
            weights.extend_from_slice(&self.weights[s0..s1]);
        }
    }

    /// One past the last vertex the page covers.
    fn end(&self) -> u32 {
        self.first + (self.starts.len() as u32 - 1) / 2
    }

    /// Whether some live destination of `v` was dropped at the build as a
    /// new weight for an edge of its slices (see `updates`).
    #[inline]
    fn updated(&self, v: u32) -> bool {
        let i = v.wrapping_sub(self.first) as usize;
        self.updates
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Bytes of the page's arrays.
    pub(crate) fn bytes(&self) -> usize {
        std::mem::size_of_val(&*self.starts)
            + std::mem::size_of_val(&*self.dsts)
            + std::mem::size_of_val(&*self.weights)
            + std::mem::size_of_val(&*self.pieces)
            + std::mem::size_of_val(&*self.updates)
            + std::mem::size_of_val(&*self.overrides)
    }

    /// `v`'s live destinations and tombstones at the snapshot, each
    /// ascending (both empty for a vertex outside the page). For a vertex
    /// with pieces, the live destinations its slices hold are left out:
    /// laid over those slices, the list is the same.
    #[inline]
    pub(crate) fn lists(&self, v: u32) -> (&[u32], &[u32]) {
        let i = 2 * v.wrapping_sub(self.first) as usize;
        match self.starts.get(i..i + 3) {
            Some(&[a, b, c]) => (
                self.dsts.get(a as usize..b as usize).unwrap_or(&[]),
                self.dsts.get(b as usize..c as usize).unwrap_or(&[]),
            ),
            _ => (&[], &[]),
        }
    }

    /// `v`'s live destinations at the snapshot that its plain slices
    /// below lack, if its whole list is those slices and these side by
    /// side (see `pieces`); `None` if its list must be merged.
    #[inline]
    pub(crate) fn pieces(&self, v: u32) -> Option<&[u32]> {
        self.in_pieces(v).then(|| self.lists(v).0)
    }

    /// Whether `v`'s list is its plain slices below and its additions side
    /// by side (`pieces` without the additions).
    #[inline]
    pub(crate) fn in_pieces(&self, v: u32) -> bool {
        let i = v.wrapping_sub(self.first) as usize;
        self.pieces
            .get(i / 64)
            .is_some_and(|word| word & (1 << (i % 64)) != 0)
    }

    /// `pieces` with the additions' weights, in an out-direction page, for
    /// a vertex whose additions hold no new weight for an edge of its slice
    /// (so the slice's own weights are current).
    #[inline]
    pub(crate) fn weighted_pieces(&self, v: u32) -> Option<(&[u32], &[f64])> {
        self.pieces_with_weights(v).filter(|_| !self.updated(v))
    }

    /// `pieces` with the additions' weights, in an out-direction page.
    #[inline]
    fn pieces_with_weights(&self, v: u32) -> Option<(&[u32], &[f64])> {
        let adds = self.pieces(v)?;
        let i = v.wrapping_sub(self.first) as usize;
        let start = *self.starts.get(2 * i)? as usize;
        let weights = self.weights.get(start..start + adds.len())?;
        Some((adds, weights))
    }

    /// `weighted_pieces` for a vertex whose additions do hold new weights
    /// for edges of its slice: the additions with their weights, and the
    /// new weights as `(_, destination, weight)`, ascending, which replace
    /// the slice's for those destinations. `None` for a vertex not in
    /// pieces, not updated, or in an in-direction page.
    #[inline]
    pub(crate) fn updated_pieces(&self, v: u32) -> Option<(&[u32], &[f64], &[Override])> {
        if !self.updated(v) {
            return None;
        }
        let (adds, weights) = self.pieces_with_weights(v)?;
        let i = v.wrapping_sub(self.first);
        let over = self.overrides_of(i..i + 1);
        (!over.is_empty()).then_some((adds, weights, over))
    }

    /// Whether the MemGraph decides nothing for `v` at the snapshot (not
    /// even a new weight for an edge below).
    #[inline]
    pub(crate) fn is_empty_for(&self, v: u32) -> bool {
        let (adds, kills) = self.lists(v);
        adds.is_empty() && kills.is_empty() && !self.updated(v)
    }
}

/// Calls `f(i)` for every `ds[i]` that `list` holds (both ascending)
/// until `f` returns false. Galloping through `list` costs about one
/// comparison per element when the two are alike in length (a hub with
/// many additions: a sequential walk, not a cache miss per look-up) and
/// a binary search per element of `ds` when `list` is much longer.
fn for_each_common(mut list: &[u32], ds: &[u32], mut f: impl FnMut(usize) -> bool) {
    for (i, &d) in ds.iter().enumerate() {
        list = list.get(gallop_below(list, 0, d)..).unwrap_or(&[]);
        match list.first() {
            None => return,
            Some(&x) if x == d && !f(i) => return,
            _ => {}
        }
    }
}
