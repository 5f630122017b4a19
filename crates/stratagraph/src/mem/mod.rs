//! MemGraph: the in-memory, multi-versioned write buffer of the engine.
//!
//! One slot per internal vertex id, each with its own small lock, existence
//! history and out/in adjacency (`EdgeSet`). Writers lock the slots they
//! touch (see `txn` for the order); readers lock a slot only long enough to
//! clone the `Arc` of its runs, then scan without holding anything, so a
//! reader never blocks a writer for longer than that clone and a writer never
//! blocks a reader for longer than one small copy.

mod edge_set;
mod life;
mod run;
mod versions;

pub(crate) use edge_set::{EdgeSet, Write};
pub(crate) use life::Life;
pub(crate) use run::Run;
pub(crate) use versions::{offset_of, visible_in_group, Effect, Stamping};

use crate::direction::Direction;
use crate::page::PAGE;
use crate::util::prefetch;
use crate::util::segmented::SegmentedTable;
use parking_lot::{RwLock, RwLockWriteGuard};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Everything the engine keeps about one vertex in memory.
#[derive(Default)]
pub(crate) struct VertexState {
    pub life: Life,
    /// Out-edges (for undirected graphs: all edges).
    pub out: EdgeSet,
    /// In-edges of a directed graph; unused when undirected.
    pub inn: EdgeSet,
}

impl VertexState {
    pub(crate) fn out_mut(&mut self) -> &mut EdgeSet {
        &mut self.out
    }

    pub(crate) fn in_mut(&mut self) -> &mut EdgeSet {
        &mut self.inn
    }

    /// The adjacency of one side (already resolved for undirected graphs,
    /// see `Direction::stored`).
    #[inline]
    pub(crate) fn set(&self, dir: Direction) -> &EdgeSet {
        match dir {
            Direction::Out => &self.out,
            Direction::In => &self.inn,
        }
    }

    /// `set`, to write.
    #[inline]
    pub(crate) fn set_mut(&mut self, dir: Direction) -> &mut EdgeSet {
        match dir {
            Direction::Out => &mut self.out,
            Direction::In => &mut self.inn,
        }
    }

    #[inline]
    fn heap_bytes(&self) -> usize {
        self.life.heap_bytes() + self.out.heap_bytes() + self.inn.heap_bytes()
    }
}

/// One vertex's place in the table: its state under its lock, and its
/// write mark beside it, one cache line together, so a writer pays one
/// miss for both and no slot straddles two lines.
#[derive(Default)]
#[repr(align(64))]
struct Slot {
    state: RwLock<VertexState>,
    /// The newest commit timestamp that wrote an edge of the vertex, in
    /// either direction. Pages a snapshot copied (`mem_view`) are kept for
    /// later snapshots, which take one as it is if nothing was written to
    /// the page since (`MemGraph::written`), and copy again only the
    /// vertices written since otherwise. A writer raises the mark before
    /// its commit is published, so every snapshot sees the raises of
    /// every commit it can see.
    written: AtomicU64,
}

// A vertex costs one line; a bigger state would double it.
const _: () = assert!(std::mem::size_of::<Slot>() == 64);

/// The vertex table.
pub(crate) struct MemGraph {
    slots: SegmentedTable<Slot>,
    /// One bit per vertex: set when a writer locks the vertex, cleared by
    /// the post-flush clean-up once both its sets are empty. A reader that
    /// finds the bit clear knows, without touching the slot or its lock,
    /// that the MemGraph holds no edge of the vertex it could see (a write
    /// sets the bit before its commit is published), so a flushed graph is
    /// scanned straight from its runs.
    dirty: SegmentedTable<AtomicU64>,
    /// Per page of `PAGE` vertex ids: the newest of its vertices' write
    /// marks (`Slot::written`).
    written: SegmentedTable<AtomicU64>,
    /// Heap bytes of every vertex's adjacency and history (what `usage`
    /// walks the table to add up), kept by `SlotGuard` as writers change
    /// them: the flush trigger compares it with the MemGraph's budget.
    bytes: AtomicUsize,
}

/// A vertex locked for writing. When it is released, the change in the
/// vertex's heap bytes goes into the MemGraph's count (`MemGraph::bytes`),
/// whatever the writer did to it.
pub(crate) struct SlotGuard<'a> {
    state: RwLockWriteGuard<'a, VertexState>,
    before: usize,
    bytes: &'a AtomicUsize,
}

impl std::ops::Deref for SlotGuard<'_> {
    type Target = VertexState;
    #[inline]
    fn deref(&self) -> &VertexState {
        &self.state
    }
}

impl std::ops::DerefMut for SlotGuard<'_> {
    #[inline]
    fn deref_mut(&mut self) -> &mut VertexState {
        &mut self.state
    }
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        let after = self.state.heap_bytes();
        if after > self.before {
            self.bytes.fetch_add(after - self.before, Ordering::Relaxed);
        } else if after < self.before {
            self.bytes.fetch_sub(self.before - after, Ordering::Relaxed);
        }
    }
}

/// Memory used by a MemGraph, split by what it is spent on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryUsage {
    /// Vertex slots (fixed cost per allocated id).
    pub slot_bytes: usize,
    /// Adjacency runs, block lists and vertex histories.
    pub adjacency_bytes: usize,
    /// Edge versions stored (live edges, tombstones and old versions, both directions).
    pub entries: usize,
}

impl MemGraph {
    pub(crate) fn new() -> Self {
        MemGraph {
            slots: SegmentedTable::new(),
            dirty: SegmentedTable::new(),
            written: SegmentedTable::new(),
            bytes: AtomicUsize::new(0),
        }
    }

    /// Heap bytes of the vertices' adjacency and histories (the slot
    /// tables not included), as of the last released write lock.
    #[inline]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    fn guard<'a>(&'a self, state: RwLockWriteGuard<'a, VertexState>) -> SlotGuard<'a> {
        SlotGuard {
            before: state.heap_bytes(),
            state,
            bytes: &self.bytes,
        }
    }

    /// Starts loading `v`'s slot (see `util::prefetch`).
    #[inline]
    pub(crate) fn prefetch(&self, v: u32) {
        if let Some(slot) = self.slots.get(v) {
            prefetch::line(slot);
        }
    }

    /// Locks vertex `v` for writing (allocating its slot).
    #[inline]
    pub(crate) fn lock(&self, v: u32) -> SlotGuard<'_> {
        let guard = self.slots.get_or_alloc(v).state.write();
        let (word, bit) = (self.dirty.get_or_alloc(v >> 6), 1u64 << (v & 63));
        if word.load(Ordering::Relaxed) & bit == 0 {
            word.fetch_or(bit, Ordering::Relaxed);
        }
        self.guard(guard)
    }

    /// Records that the commit at `ts` writes edges of `v` (see
    /// `Slot::written`). The caller holds `v`'s lock and has not published `ts`.
    #[inline]
    pub(crate) fn note_write(&self, v: u32, ts: u64) {
        // `fetch_max`, not a store: a batch takes its timestamp before it
        // locks, so a commit with a newer one may have written `v` first.
        self.slots
            .get_or_alloc(v)
            .written
            .fetch_max(ts, Ordering::Relaxed);
        let page = self.written.get_or_alloc(v / PAGE);
        if page.load(Ordering::Relaxed) < ts {
            page.fetch_max(ts, Ordering::Relaxed);
        }
    }

    /// The newest timestamp that wrote an edge in the page of `v` (0 if
    /// none did).
    #[inline]
    pub(crate) fn page_written(&self, v: u32) -> u64 {
        self.written
            .get(v / PAGE)
            .map_or(0, |w| w.load(Ordering::Relaxed))
    }

    /// The newest timestamp that wrote an edge of `v` (0 if none did).
    #[inline]
    pub(crate) fn vertex_written(&self, v: u32) -> u64 {
        self.slots
            .get(v)
            .map_or(0, |s| s.written.load(Ordering::Relaxed))
    }

    /// Locks `v` for the post-flush clean-up, which only removes versions
    /// (so it leaves the dirty bit alone; see `mark_clean`).
    pub(crate) fn lock_for_clean_up(&self, v: u32) -> Option<SlotGuard<'_>> {
        self.slots.get(v).map(|m| self.guard(m.state.write()))
    }

    /// Clears `v`'s dirty bit; the caller holds `v`'s lock and has seen
    /// both of its sets empty.
    pub(crate) fn mark_clean(&self, v: u32) {
        if let Some(word) = self.dirty.get(v >> 6) {
            word.fetch_and(!(1u64 << (v & 63)), Ordering::Relaxed);
        }
    }

    /// The dirty bits of vertices `64 * block ..`, for scans that test 64
    /// vertices at a time.
    #[inline]
    pub(crate) fn dirty_bits(&self, block: u32) -> u64 {
        self.dirty
            .get(block)
            .map_or(0, |w| w.load(Ordering::Relaxed))
    }

    /// Whether the MemGraph may hold edges of `v` (see `dirty`).
    #[inline]
    pub(crate) fn may_hold(&self, v: u32) -> bool {
        self.dirty
            .get(v >> 6)
            .is_some_and(|w| w.load(Ordering::Relaxed) & (1u64 << (v & 63)) != 0)
    }

    /// Runs `f` on vertex `v`'s state under its shared lock; `None` if the
    /// slot was never allocated. Readers share the lock, and a recursive read
    /// (`f` reading `v` again) cannot deadlock behind a waiting writer; `f`
    /// should still be short, since writers of `v` wait for it.
    #[inline]
    pub(crate) fn read<R>(&self, v: u32, f: impl FnOnce(&VertexState) -> R) -> Option<R> {
        self.slots.get(v).map(|m| f(&m.state.read_recursive()))
    }

    /// As `read`, with a never-allocated slot read as an empty vertex (for
    /// reads that must also look below the MemGraph).
    #[inline]
    pub(crate) fn read_or_empty<R>(&self, v: u32, f: impl FnOnce(&VertexState) -> R) -> R {
        static EMPTY: std::sync::OnceLock<VertexState> = std::sync::OnceLock::new();
        match self.slots.get(v) {
            Some(m) => f(&m.state.read_recursive()),
            None => f(EMPTY.get_or_init(VertexState::default)),
        }
    }

    /// Walks every slot below `bound` (locking each briefly).
    pub(crate) fn usage(&self, bound: u32) -> MemoryUsage {
        let mut u = MemoryUsage {
            slot_bytes: self.slots.allocated_bytes()
                + self.dirty.allocated_bytes()
                + self.written.allocated_bytes(),
            ..MemoryUsage::default()
        };
        for v in 0..bound {
            self.read(v, |s| {
                u.adjacency_bytes += s.heap_bytes();
                u.entries += s.out.entries() + s.inn.entries();
            });
        }
        u
    }
}
