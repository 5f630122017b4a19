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

use crate::util::segmented::SegmentedTable;
use parking_lot::{RwLock, RwLockWriteGuard};

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

    fn heap_bytes(&self) -> usize {
        self.life.heap_bytes() + self.out.heap_bytes() + self.inn.heap_bytes()
    }
}

/// The vertex table.
pub(crate) struct MemGraph {
    slots: SegmentedTable<RwLock<VertexState>>,
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
        }
    }

    /// Locks vertex `v` for writing (allocating its slot).
    #[inline]
    pub(crate) fn lock(&self, v: u32) -> RwLockWriteGuard<'_, VertexState> {
        self.slots.get_or_alloc(v).write()
    }

    /// Runs `f` on vertex `v`'s state under its shared lock; `None` if the
    /// slot was never allocated. Readers share the lock, and a recursive read
    /// (`f` reading `v` again) cannot deadlock behind a waiting writer; `f`
    /// should still be short, since writers of `v` wait for it.
    #[inline]
    pub(crate) fn read<R>(&self, v: u32, f: impl FnOnce(&VertexState) -> R) -> Option<R> {
        self.slots.get(v).map(|m| f(&m.read_recursive()))
    }

    /// As `read`, with a never-allocated slot read as an empty vertex (for
    /// reads that must also look below the MemGraph).
    #[inline]
    pub(crate) fn read_or_empty<R>(&self, v: u32, f: impl FnOnce(&VertexState) -> R) -> R {
        static EMPTY: std::sync::OnceLock<VertexState> = std::sync::OnceLock::new();
        match self.slots.get(v) {
            Some(m) => f(&m.read_recursive()),
            None => f(EMPTY.get_or_init(VertexState::default)),
        }
    }

    /// Walks every slot below `bound` (locking each briefly).
    pub(crate) fn usage(&self, bound: u32) -> MemoryUsage {
        let mut u = MemoryUsage {
            slot_bytes: self.slots.allocated_bytes(),
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
