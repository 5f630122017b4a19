//! An append-only table indexed by `u32`, readable without locks.
//!
//! Vertex slots and the internal-to-external id table grow while readers
//! index them concurrently. A `Vec` behind a lock would make every read take
//! the lock and every growth copy the table; instead items live in chunks
//! that are allocated once and never moved, so a reference into the table
//! stays valid for the table's life and a look-up is a few array indexings.
//!
//! Chunk sizes double from 1024 up to `CHUNK` (so a small graph allocates
//! little), then stay at `CHUNK` (so a large one over-allocates at most one
//! chunk, not up to half the table as pure doubling would: at 2^20 vertices
//! doubling allocated twice the slots needed).

use super::huge;
use std::sync::OnceLock;

const FIRST_BITS: u32 = 10;
const CHUNK_BITS: u32 = 16;
/// Items per chunk once the table has grown past `CHUNK` items.
const CHUNK: usize = 1 << CHUNK_BITS;
/// Growing chunks cover `0..CHUNK`: sizes 1024, 1024, 2048, ..., CHUNK / 2.
const GROWING: usize = (CHUNK_BITS - FIRST_BITS + 1) as usize;
/// Fixed chunks are reached through a two-level directory of `MID` chunks per entry.
const MID: usize = 1024;
const TOP: usize = (1usize << (32 - CHUNK_BITS)).div_ceil(MID);

type Chunk<T> = OnceLock<Box<[T]>>;

/// Append-only table of `T` indexed by `u32`; unallocated items read as absent.
pub(crate) struct SegmentedTable<T> {
    growing: [Chunk<T>; GROWING],
    fixed: [OnceLock<Box<[Chunk<T>]>>; TOP],
}

/// Where index `i` lives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Growing chunk `b`, offset.
    Growing(usize, usize),
    /// Fixed chunk number, offset.
    Fixed(usize, usize),
}

#[inline]
fn locate(i: u32) -> Place {
    let i = i as usize;
    if i >= CHUNK {
        return Place::Fixed((i >> CHUNK_BITS) - 1, i & (CHUNK - 1));
    }
    if i < 1 << FIRST_BITS {
        return Place::Growing(0, i);
    }
    let b = i.ilog2() - FIRST_BITS + 1;
    Place::Growing(b as usize, i - (1 << (b + FIRST_BITS - 1)))
}

/// Length of growing chunk `b`.
fn growing_len(b: usize) -> usize {
    if b == 0 {
        1 << FIRST_BITS
    } else {
        1 << (b as u32 + FIRST_BITS - 1)
    }
}

fn filled<T: Default>(len: usize) -> Box<[T]> {
    // Vertex slots are read at random; a full chunk of them fills two huge pages.
    huge::filled(len, T::default)
}

impl<T: Default> Default for SegmentedTable<T> {
    fn default() -> Self {
        SegmentedTable::new()
    }
}

impl<T: Default> SegmentedTable<T> {
    pub(crate) fn new() -> Self {
        SegmentedTable {
            growing: std::array::from_fn(|_| OnceLock::new()),
            fixed: std::array::from_fn(|_| OnceLock::new()),
        }
    }

    fn chunk(&self, place: Place) -> (Option<&Chunk<T>>, usize) {
        match place {
            Place::Growing(b, off) => (Some(&self.growing[b]), off),
            Place::Fixed(c, off) => (self.fixed[c / MID].get().map(|m| &m[c % MID]), off),
        }
    }

    /// The item at `i`, if its chunk has been allocated.
    #[inline]
    pub(crate) fn get(&self, i: u32) -> Option<&T> {
        let (chunk, off) = self.chunk(locate(i));
        chunk?.get().and_then(|c| c.get(off))
    }

    /// The item at `i`, allocating its chunk (default-filled) if needed.
    pub(crate) fn get_or_alloc(&self, i: u32) -> &T {
        match locate(i) {
            Place::Growing(b, off) => &self.growing[b].get_or_init(|| filled(growing_len(b)))[off],
            Place::Fixed(c, off) => {
                let mid = self.fixed[c / MID].get_or_init(|| filled(MID));
                &mid[c % MID].get_or_init(|| filled(CHUNK))[off]
            }
        }
    }

    /// Bytes held by allocated chunks and directories.
    pub(crate) fn allocated_bytes(&self) -> usize {
        let chunk_bytes = |c: &Chunk<T>| c.get().map_or(0, |b| std::mem::size_of_val(&**b));
        let growing: usize = self.growing.iter().map(chunk_bytes).sum();
        let fixed: usize = self
            .fixed
            .iter()
            .filter_map(|m| m.get())
            .map(|m| std::mem::size_of_val(&**m) + m.iter().map(chunk_bytes).sum::<usize>())
            .sum();
        growing + fixed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn chunk_boundaries_map_every_index_once() {
        let mut expected = Place::Growing(0, 0);
        for i in 0..(CHUNK as u32 * 3) {
            let got = locate(i);
            if got != expected {
                let next = match expected {
                    Place::Growing(b, _) if b + 1 < GROWING => Place::Growing(b + 1, 0),
                    Place::Growing(..) => Place::Fixed(0, 0),
                    Place::Fixed(c, _) => Place::Fixed(c + 1, 0),
                };
                assert_eq!(got, next, "index {i}");
            }
            if let Place::Growing(b, off) = got {
                assert!(off < growing_len(b), "index {i}");
            }
            expected = match got {
                Place::Growing(b, off) => Place::Growing(b, off + 1),
                Place::Fixed(c, off) => Place::Fixed(c, off + 1),
            };
        }
        let Place::Fixed(last, off) = locate(u32::MAX) else {
            panic!("u32::MAX is in a fixed chunk");
        };
        assert_eq!((last / MID, off), (TOP - 1, CHUNK - 1));
    }

    #[test]
    fn items_are_stable_and_absent_until_allocated() {
        let t: SegmentedTable<AtomicU64> = SegmentedTable::new();
        for i in [5000u32, 70_000, u32::MAX] {
            assert!(t.get(i).is_none());
            t.get_or_alloc(i).store(u64::from(i), Ordering::Relaxed);
            assert_eq!(
                t.get(i).map(|a| a.load(Ordering::Relaxed)),
                Some(u64::from(i))
            );
        }
        assert!(t.get(0).is_none(), "chunk 0 is separate from 5000's chunk");
        assert!(t.get(200_000).is_none());
    }

    #[test]
    fn over_allocation_is_at_most_one_chunk() {
        let t: SegmentedTable<u64> = SegmentedTable::new();
        let n = (1u32 << 20) + 1;
        t.get_or_alloc(n - 1);
        for i in (0..n).step_by(1000) {
            t.get_or_alloc(i);
        }
        let bytes = t.allocated_bytes();
        assert!(bytes <= (n as usize + CHUNK + MID * 24) * 8, "{bytes}");
    }
}
