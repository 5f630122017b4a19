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
//! version check, to be laid over the level's slice (`lsm::union`).
//!
//! Whole-graph scans build the pages they cross. A point read uses a page
//! once it exists and builds it after `BUILD_AFTER` point reads in it, so a
//! kernel that reads vertex by vertex (CDLP, betweenness, SSSP) gains too,
//! while a few look-ups in a large graph copy nothing. A page costs 4
//! bytes per decided MemGraph version in it (12 in the out direction,
//! which keeps weights for weighted reads) plus 8 bytes per vertex, held
//! until the snapshot and its clones are dropped.

use crate::lsm::layers::PAGE;
use crate::mem::MemGraph;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// Point reads in a page after which it is built. A build copies what
/// at most `PAGE` point reads would, so building after half as many
/// reads costs a kernel at most 1.5 times its reads in the worst case
/// (every vertex read once) and saves every read after it.
const BUILD_AFTER: u32 = PAGE / 2;

/// One snapshot's pages, per direction, shared by its clones.
#[derive(Default)]
pub(crate) struct MemView {
    slots: OnceLock<Box<[Slot]>>,
}

#[derive(Default)]
struct Slot {
    page: OnceLock<MemPage>,
    /// Point reads in the page while it was not built.
    reads: AtomicU32,
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
}

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

    /// Whether any slice holds `d`.
    fn hold(&self, d: u32) -> bool {
        self.lists().iter().any(|l| holds(l, d))
    }

    /// Whether no two slices hold the same destination.
    fn disjoint(&self) -> bool {
        let l = self.lists();
        (0..l.len()).all(|i| {
            (i + 1..l.len()).all(|j| {
                let (small, big) = if l[i].len() <= l[j].len() {
                    (l[i], l[j])
                } else {
                    (l[j], l[i])
                };
                small.iter().all(|&d| !holds(big, d))
            })
        })
    }
}

/// For a vertex, its plain slices below the MemGraph, or `None` if one of
/// its sources needs version checks or it has more than `MAX_PIECES`.
pub(crate) type Below<'b> = &'b dyn Fn(u32) -> Option<Slices<'b>>;

/// What a snapshot reads the MemGraph with: the graph, the snapshot's
/// timestamp and id bound, and the direction (`inn` already resolved for
/// undirected graphs).
#[derive(Clone, Copy)]
pub(crate) struct Reader<'a> {
    pub mem: &'a MemGraph,
    pub ts: u64,
    pub bound: u32,
    pub inn: bool,
}

impl MemView {
    /// `v`'s page, built now if it was not (`None` past the id bound).
    pub(crate) fn page(&self, r: Reader<'_>, below: Below<'_>, v: u32) -> Option<&MemPage> {
        Some(self.slot(r, v)?.built_now(r, below, v))
    }

    /// `v`'s page if it is built already.
    pub(crate) fn built(&self, r: Reader<'_>, v: u32) -> Option<&MemPage> {
        self.slot(r, v)?.page.get()
    }

    /// `v`'s page for a point read: the built page, or `None` while fewer
    /// than `BUILD_AFTER` point reads have come to it (the caller then reads
    /// the MemGraph itself).
    pub(crate) fn page_for_point_read(
        &self,
        r: Reader<'_>,
        below: Below<'_>,
        v: u32,
    ) -> Option<&MemPage> {
        let slot = self.slot(r, v)?;
        if let Some(page) = slot.page.get() {
            return Some(page);
        }
        if slot.reads.fetch_add(1, Ordering::Relaxed) + 1 < BUILD_AFTER {
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
        slots.get(2 * (v / PAGE) as usize + usize::from(r.inn))
    }
}

impl Slot {
    /// The page holding `v`, built now if it was not (readers on other
    /// threads wait for that one build).
    fn built_now(&self, r: Reader<'_>, below: Below<'_>, v: u32) -> &MemPage {
        self.page
            .get_or_init(|| MemPage::build(r, below, v / PAGE * PAGE))
    }
}

impl MemPage {
    /// Copies the MemGraph's decisions at `r.ts` for the page starting at
    /// `first` (only vertices whose dirty bit is set are locked), and finds
    /// which of its vertices are in pieces (every vertex is checked: one
    /// the MemGraph holds nothing of may still have several slices below).
    fn build(r: Reader<'_>, below: Below<'_>, first: u32) -> MemPage {
        let end = first.saturating_add(PAGE).min(r.bound);
        // First pass, under each vertex's lock: its decided destinations,
        // live ones then tombstones. No check against the levels is made
        // here: a lock orders memory, so a cache miss taken while one is
        // held is waited out alone.
        let mut starts: Vec<u32> = Vec::with_capacity(2 * (end - first) as usize + 1);
        let mut dsts = Vec::new();
        let mut weights = Vec::new();
        let mut kills = Vec::new();
        let keep_weights = !r.inn;
        starts.push(0);
        for v in first..end {
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
        }
        // Second pass, with no lock held, so the levels' slices are read
        // with many misses in flight: which vertices are pieces, dropping
        // their live destinations the slice holds (in place, moving the
        // rest forward).
        let mut pieces = vec![0u64; PAGE as usize / 64];
        let mut updates = vec![0u64; PAGE as usize / 64];
        let with_weights = weights.len() == dsts.len();
        let mut write = 0;
        let mut read = 0;
        for (i, v) in (first..end).enumerate() {
            let (mid, stop) = (starts[2 * i + 1] as usize, starts[2 * i + 2] as usize);
            let slice =
                below(v).filter(|s| dsts[mid..stop].iter().all(|&d| !s.hold(d)) && s.disjoint());
            if slice.is_some() {
                pieces[i / 64] |= 1 << (i % 64);
            }
            for k in read..stop {
                let d = dsts[k];
                if k < mid && slice.is_some_and(|s| s.hold(d)) {
                    updates[i / 64] |= 1 << (i % 64);
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
        }
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
        let adds = self.pieces(v)?;
        let i = v.wrapping_sub(self.first) as usize;
        if self.updates.get(i / 64)? & (1 << (i % 64)) != 0 {
            return None;
        }
        let start = *self.starts.get(2 * i)? as usize;
        let weights = self.weights.get(start..start + adds.len())?;
        Some((adds, weights))
    }

    /// Whether the MemGraph decides nothing for `v` at the snapshot (not
    /// even a new weight for an edge below).
    #[inline]
    pub(crate) fn is_empty_for(&self, v: u32) -> bool {
        let (adds, kills) = self.lists(v);
        let i = v.wrapping_sub(self.first) as usize;
        let updated = self
            .updates
            .get(i / 64)
            .is_some_and(|w| w & (1 << (i % 64)) != 0);
        adds.is_empty() && kills.is_empty() && !updated
    }
}

/// Whether ascending `list` holds `d`.
fn holds(list: &[u32], d: u32) -> bool {
    list.binary_search(&d).is_ok()
}
