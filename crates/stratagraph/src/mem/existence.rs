//! Whether a vertex without a slot exists: one bit a vertex.
//!
//! A vertex's slot holds its existence history (`Life`) while the MemGraph
//! holds anything of it. The slot is given back only once every snapshot
//! that is open or may open sees the same latest state, so a bit says it
//! (`exists`).
//!
//! A bulk load creates the vertices of a whole graph at one timestamp,
//! and snapshots older than it must not see them. Giving each a slot for
//! that would cost 64 bytes a vertex until the next clean-up, so it sets
//! bits in a layer of its own that snapshots at its timestamp or later
//! read (`Fresh`); the clean-up folds the layer into the bits once
//! no snapshot older than it can open.
//!
//! Readers look at the layers before the bits, and a layer is
//! folded in (bits set) before it is dropped, so a reader never misses a
//! vertex between the two.

use crate::util::segmented::SegmentedTable;
use crate::version::Timestamp;
use parking_lot::RwLock;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// One bit per vertex id, in words that are allocated when first set.
#[derive(Default)]
pub(crate) struct Bits {
    words: SegmentedTable<AtomicU64>,
}

impl Bits {
    #[inline]
    pub(crate) fn get(&self, v: u32) -> bool {
        self.words
            .get(v >> 6)
            .is_some_and(|w| w.load(Ordering::Acquire) & (1u64 << (v & 63)) != 0)
    }

    /// Sets or clears `v`'s bit (setting one already set writes nothing).
    #[inline]
    pub(crate) fn set(&self, v: u32, on: bool) {
        let bit = 1u64 << (v & 63);
        if on {
            let w = self.words.get_or_alloc(v >> 6);
            if w.load(Ordering::Acquire) & bit == 0 {
                w.fetch_or(bit, Ordering::AcqRel);
            }
        } else if let Some(w) = self.words.get(v >> 6) {
            w.fetch_and(!bit, Ordering::AcqRel);
        }
    }

    /// The bits of vertices `64 * i ..`.
    #[inline]
    pub(crate) fn word(&self, i: u32) -> u64 {
        self.words.get(i).map_or(0, |w| w.load(Ordering::Acquire))
    }

    pub(crate) fn allocated_bytes(&self) -> usize {
        self.words.allocated_bytes()
    }

    /// The ids below `bound` whose bits are set, ascending, 64 tested at a
    /// time. A bit set while this runs may be missed.
    pub(crate) fn ones_below(&self, bound: u32) -> impl Iterator<Item = u32> + '_ {
        let mut v = 0u32;
        std::iter::from_fn(move || {
            while v < bound {
                let rest = self.word(v >> 6) >> (v & 63);
                if rest == 0 {
                    v = (v | 63).saturating_add(1);
                    continue;
                }
                let at = v + rest.trailing_zeros();
                v = at.saturating_add(1);
                return (at < bound).then_some(at);
            }
            None
        })
    }
}

/// Vertices a bulk load created at `ts`.
pub(crate) struct Fresh {
    pub(crate) ts: Timestamp,
    pub(crate) bits: Bits,
}

/// The existence of vertices without a slot.
#[derive(Default)]
pub(crate) struct Existence {
    /// Bit set: the vertex exists for every snapshot that is open or may
    /// open (unless a layer below says otherwise for older ones).
    exists: Bits,
    /// Bulk loads not yet folded into `exists`, oldest first.
    fresh: RwLock<Vec<Arc<Fresh>>>,
    /// Whether `fresh` may be non-empty: readers skip its lock when not.
    any_fresh: AtomicBool,
}

/// What the bits say of one vertex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Known {
    /// Does not exist (never did, or every snapshot sees its deletion).
    Absent,
    /// Exists for snapshots at this timestamp or later (0: all).
    Since(Timestamp),
}

impl Existence {
    /// What the bits say of `v`.
    #[inline]
    pub(crate) fn of(&self, v: u32) -> Known {
        if self.any_fresh.load(Ordering::Acquire) {
            if let Some(f) = self.fresh.read().iter().find(|f| f.bits.get(v)) {
                return Known::Since(f.ts);
            }
        }
        if self.exists.get(v) {
            Known::Since(0)
        } else {
            Known::Absent
        }
    }

    /// Whether `v` exists for a snapshot at `ts`.
    #[inline]
    pub(crate) fn alive_at(&self, v: u32, ts: Timestamp) -> bool {
        matches!(self.of(v), Known::Since(t) if t <= ts)
    }

    /// The layers not yet folded, for `alive_word_at`.
    pub(crate) fn layers(&self) -> Vec<Arc<Fresh>> {
        if self.any_fresh.load(Ordering::Acquire) {
            self.fresh.read().clone()
        } else {
            Vec::new()
        }
    }

    /// `alive_at` of the 64 vertices `64 * i ..` at once (bit `b` for
    /// vertex `64 * i + b`), given `layers()`.
    #[inline]
    pub(crate) fn alive_word_at(&self, layers: &[Arc<Fresh>], i: u32, ts: Timestamp) -> u64 {
        // As `of`: the first layer that holds a vertex decides for it.
        let (mut seen, mut alive) = (0u64, 0u64);
        for f in layers {
            let w = f.bits.word(i) & !seen;
            if f.ts <= ts {
                alive |= w;
            }
            seen |= w;
        }
        alive | (self.exists.word(i) & !seen)
    }

    /// Settles `v` as existing or not: its slot is being given back, or a
    /// store opens with no snapshot yet. Clears it from any layer.
    pub(crate) fn set_bit(&self, v: u32, alive: bool) {
        self.exists.set(v, alive);
        if self.any_fresh.load(Ordering::Acquire) {
            for f in self.fresh.read().iter() {
                f.bits.set(v, false);
            }
        }
    }

    /// Adds a batch's layer. The caller keeps every writer out and has not
    /// published `fresh.ts` yet (so the watermark is below it).
    pub(crate) fn add(&self, fresh: Fresh) {
        self.fresh.write().push(Arc::new(fresh));
        self.any_fresh.store(true, Ordering::Release);
    }

    /// Folds every layer no snapshot at or after `watermark` needs told
    /// apart into the bits (the clean-up, alone); `bound` is one
    /// past the largest vertex id.
    pub(crate) fn fold_upto(&self, watermark: Timestamp, bound: u32) {
        if !self.any_fresh.load(Ordering::Acquire) {
            return;
        }
        let ready: Vec<Arc<Fresh>> = self
            .fresh
            .read()
            .iter()
            .filter(|f| f.ts <= watermark)
            .cloned()
            .collect();
        for f in &ready {
            for i in 0..bound.div_ceil(64) {
                let w = f.bits.word(i);
                if w != 0 {
                    self.exists
                        .words
                        .get_or_alloc(i)
                        .fetch_or(w, Ordering::AcqRel);
                }
            }
        }
        let mut fresh = self.fresh.write();
        fresh.retain(|f| f.ts > watermark);
        self.any_fresh.store(!fresh.is_empty(), Ordering::Release);
    }

    pub(crate) fn allocated_bytes(&self) -> usize {
        self.exists.allocated_bytes()
            + self
                .fresh
                .read()
                .iter()
                .map(|f| f.bits.allocated_bytes())
                .sum::<usize>()
    }
}
