//! Vertex slots, held only by vertices the MemGraph has something of.
//!
//! A slot (64 bytes: the vertex's lock, existence history, both adjacency
//! sets, its write mark) is what a writer locks. A table of one slot per
//! vertex id cost 64 bytes a vertex whether or not the MemGraph held
//! anything of it: a gigabyte at 2^24 vertices, more than a memory cap a
//! quarter of the store's size leaves. So a vertex id maps to a slot
//! through a dense index of 4 bytes a vertex, and slots come from an arena:
//! a writer's first lock of a vertex takes one, and the post-flush
//! clean-up gives it back once the vertex's sets are empty and every
//! snapshot sees its latest existence (`MemGraph::clean`), which then
//! lives in a bit (`existence.rs`). The arena's size follows the MemGraph's contents,
//! which its byte budget bounds, not the graph's.
//!
//! A slot given back may be handed to another vertex while a reader or
//! writer that looked up the old owner's index is about to lock it. So
//! every lock is checked after it is taken: the index still names the
//! slot (`index[v]` is only set or cleared under the slot's write lock, so
//! while any lock on the slot is held, `index[v] == slot` means it is
//! `v`'s). And a lock that may belong to another vertex is waited for in
//! short steps, re-reading the index in between: a writer holding other
//! vertices' locks must never wait for a slot another writer took for a
//! vertex outside their common lock order.

use super::{Bits, VertexState};
use crate::util::segmented::SegmentedTable;
use parking_lot::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Duration;

/// How long a lock is waited for before the index is read again (see the
/// module docs). A slot's lock is held for one vertex's write, a few
/// microseconds, so this is only reached when the slot changed hands.
const STEP: Duration = Duration::from_micros(500);

/// One vertex's place in the arena: its state under its lock, and its
/// write mark beside it, one cache line together, so a writer pays one
/// miss for both and no slot straddles two lines.
#[derive(Default)]
#[repr(align(64))]
pub(crate) struct Slot {
    pub(super) state: RwLock<VertexState>,
    /// The newest commit timestamp that wrote an edge of the vertex, in
    /// either direction (see `MemGraph::note_write`). A slot taken by a
    /// vertex starts at its page's mark, which is at least every mark the
    /// vertex's earlier slots had.
    pub(super) written: AtomicU64,
}

// A vertex costs one line; a bigger state would double it.
const _: () = assert!(std::mem::size_of::<Slot>() == 64);

/// Bytes one slot in use costs, counted in the MemGraph's bytes.
pub(crate) const SLOT_BYTES: usize = std::mem::size_of::<Slot>();

/// A vertex's slot, write-locked and checked to be the vertex's.
pub(crate) struct Held<'a> {
    pub(super) slot: &'a Slot,
    pub(super) state: RwLockWriteGuard<'a, VertexState>,
    /// The slot's number in the arena.
    number: u32,
}

/// The index and the arena.
pub(crate) struct Slots {
    /// Per vertex id: its slot's number + 1, or 0 for none.
    index: SegmentedTable<AtomicU32>,
    arena: SegmentedTable<Slot>,
    /// Slots never handed out start here.
    next: AtomicU32,
    /// Slots given back, to be handed out again.
    free: Mutex<Vec<u32>>,
    /// One bit per vertex id, set while it holds a slot, so the clean-up
    /// and the vertex table's capture visit the few vertices that hold one
    /// rather than test every index entry (16M at 2^24 vertices, several
    /// times a flush). Set once the index names the slot, cleared before
    /// the index stops naming it: a walk may miss a slot being taken, never
    /// name a vertex that held none unless it is being given back.
    held: Bits,
}

impl Slots {
    pub(crate) fn new() -> Self {
        Slots {
            index: SegmentedTable::new(),
            arena: SegmentedTable::new(),
            next: AtomicU32::new(0),
            free: Mutex::new(Vec::new()),
            held: Bits::default(),
        }
    }

    /// `v`'s index entry, if its chunk exists.
    #[inline]
    fn entry(&self, v: u32) -> Option<(&AtomicU32, u32)> {
        let e = self.index.get(v)?;
        Some((e, e.load(Ordering::Acquire)))
    }

    #[inline]
    fn slot(&self, number: u32) -> &Slot {
        self.arena
            .get(number)
            .expect("an index entry names an allocated slot")
    }

    /// Starts loading `v`'s index entry (see `util::prefetch`).
    #[inline]
    pub(crate) fn prefetch_entry(&self, v: u32) {
        if let Some(e) = self.index.get(v) {
            crate::util::prefetch::line(e);
        }
    }

    /// The slot `v`'s index names now, unchecked: only for prefetching.
    #[inline]
    pub(crate) fn peek(&self, v: u32) -> Option<&Slot> {
        match self.entry(v)? {
            (_, 0) => None,
            (_, s) => self.arena.get(s - 1),
        }
    }

    /// Runs `f` on `v`'s slot under its shared lock, or gives `None` if
    /// `v` holds no slot. Recursive: `f` may read `v` again.
    #[inline]
    pub(crate) fn read<R>(&self, v: u32, f: impl FnOnce(&Slot, &VertexState) -> R) -> Option<R> {
        loop {
            let (e, s) = self.entry(v)?;
            if s == 0 {
                return None;
            }
            let slot = self.slot(s - 1);
            let Some(guard) = Self::read_step(slot) else {
                continue;
            };
            if e.load(Ordering::Acquire) == s {
                return Some(f(slot, &guard));
            }
        }
    }

    fn read_step(slot: &Slot) -> Option<RwLockReadGuard<'_, VertexState>> {
        slot.state
            .try_read_recursive()
            .or_else(|| slot.state.try_read_recursive_for(STEP))
    }

    fn write_step(slot: &Slot) -> Option<RwLockWriteGuard<'_, VertexState>> {
        slot.state
            .try_write()
            .or_else(|| slot.state.try_write_for(STEP))
    }

    /// Slot `s - 1`, which index entry `e` named, write-locked if `e`
    /// still names it once locked; `None`: look again.
    fn write_named<'a>(&'a self, e: &AtomicU32, s: u32) -> Option<Held<'a>> {
        let slot = self.slot(s - 1);
        let state = Self::write_step(slot)?;
        (e.load(Ordering::Acquire) == s).then_some(Held {
            slot,
            state,
            number: s - 1,
        })
    }

    /// `v`'s slot, write-locked, or `None` if `v` holds none.
    pub(crate) fn write(&self, v: u32) -> Option<Held<'_>> {
        loop {
            let (e, s) = self.entry(v)?;
            if s == 0 {
                return None;
            }
            if let Some(held) = self.write_named(e, s) {
                return Some(held);
            }
        }
    }

    /// `v`'s slot, write-locked, taking one from the arena if `v` holds
    /// none; `fresh` sets up a slot taken (under its lock, before any
    /// other thread can find it) and the flag says whether one was.
    pub(crate) fn write_or_take(
        &self,
        v: u32,
        fresh: impl Fn(&Slot, &mut VertexState),
    ) -> (Held<'_>, bool) {
        let e = self.index.get_or_alloc(v);
        loop {
            let s = e.load(Ordering::Acquire);
            if s != 0 {
                if let Some(held) = self.write_named(e, s) {
                    return (held, false);
                }
                continue;
            }
            let number = self.take();
            let slot = self.slot(number);
            // A free slot's lock is held at most by a reader or writer
            // that looked it up through its last owner's index, for one step.
            let mut state = slot.state.write();
            fresh(slot, &mut state);
            match e.compare_exchange(0, number + 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => {
                    self.held.set(v, true);
                    return (
                        Held {
                            slot,
                            state,
                            number,
                        },
                        true,
                    );
                }
                Err(_) => {
                    // Another writer gave `v` a slot first.
                    *state = VertexState::default();
                    drop(state);
                    self.free.lock().push(number);
                }
            }
        }
    }

    fn take(&self) -> u32 {
        if let Some(n) = self.free.lock().pop() {
            return n;
        }
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        self.arena.get_or_alloc(n);
        n
    }

    /// Takes `v`'s slot away from it (the caller has checked that the
    /// slot holds nothing the bits do not): its state is emptied, its index
    /// entry cleared, and the slot goes back to the arena.
    pub(crate) fn give_back(&self, v: u32, mut held: Held<'_>) {
        *held.state = VertexState::default();
        held.slot.written.store(0, Ordering::Relaxed);
        if let Some(e) = self.index.get(v) {
            // First, while no writer can take `v` a new slot: a bit
            // cleared after the entry would clear that slot's.
            self.held.set(v, false);
            // Under the write lock: readers that find the slot after this
            // see the entry changed and look again.
            e.store(0, Ordering::Release);
        }
        let number = held.number;
        drop(held);
        self.free.lock().push(number);
    }

    /// The vertices below `bound` that hold a slot, ascending (see `held`).
    pub(crate) fn holders_below(&self, bound: u32) -> impl Iterator<Item = u32> + '_ {
        self.held.ones_below(bound)
    }

    /// The held bits of vertices `64 * i ..` (see `held`).
    #[inline]
    pub(crate) fn held_word(&self, i: u32) -> u64 {
        self.held.word(i)
    }

    /// Slots held by vertices now (or being taken).
    pub(crate) fn in_use(&self) -> usize {
        let free = self.free.lock();
        self.next.load(Ordering::Relaxed) as usize - free.len()
    }

    /// Bytes held by the index and the arena.
    pub(crate) fn allocated_bytes(&self) -> usize {
        self.index.allocated_bytes() + self.arena.allocated_bytes() + self.held.allocated_bytes()
    }
}

impl Held<'_> {
    /// The vertex's state.
    pub(crate) fn state(&self) -> &VertexState {
        &self.state
    }

    /// The vertex's state, to write.
    pub(crate) fn state_mut(&mut self) -> &mut VertexState {
        &mut self.state
    }
}
