//! How one thread's reads of single vertices' lists reach a mapped file:
//! through the mapping the kernel reads ahead of, or through the one it
//! does not (`storage::Storage::Mapped`).
//!
//! A read that follows the thread's previous list read in the same segment
//! closely (a scan done one vertex at a time, a frontier in vertex order)
//! gains from read-ahead: the next lists are already in the page cache
//! when it comes to them. A read at random does not: on a cold store each
//! one would fault in the device's whole read-ahead window (8 MiB on this
//! project's test machines), and under a memory cap those pages evict the
//! ones the next reads need (W1's `scan_rand` at scale 24 read 842 GB from
//! the disk in nine minutes that way). So each thread remembers, per
//! segment, the last vertex whose list it read and whether that read was
//! near the one before; the offsets and entries of a list come through the
//! read-ahead mapping only when it is.
//!
//! Whole-column passes (`Segment::dsts`, `offsets`, `weights`) are scans
//! and always use the read-ahead mapping; they do not go through here.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// How far forward (in vertex ids) a list read may be from the thread's
/// previous one in the same segment and still count as following it:
/// 8 KiB of offsets, and at W1's average degree about 128 KiB of
/// destinations, well inside any read-ahead window.
pub(crate) const NEAR: u32 = 2048;

/// Slots per thread; a segment takes slot `serial % SLOTS`. A vertex's
/// read visits at most a few L0 runs and levels per direction, so
/// consecutive serials rarely share a slot; when two do, reads count as
/// random, which costs a sequential pass its read-ahead, never a wrong
/// answer.
const SLOTS: usize = 16;

#[derive(Clone, Copy)]
struct Slot {
    /// The segment's serial (0: unused).
    serial: u64,
    vertex: u32,
    near: bool,
}

const EMPTY: Slot = Slot {
    serial: 0,
    vertex: 0,
    near: false,
};

thread_local! {
    static RECENT: [Cell<Slot>; SLOTS] = const { [const { Cell::new(EMPTY) }; SLOTS] };
}

/// Serials for mapped segments, from 1.
static SERIALS: AtomicU64 = AtomicU64::new(1);

/// A serial no other segment of this process has.
pub(crate) fn next_serial() -> u64 {
    SERIALS.fetch_add(1, Ordering::Relaxed)
}

/// Whether `v` follows `prev`, the vertex of the previous list read in the
/// same segment: the same vertex keeps the previous answer (its offsets and
/// then its entries are read in turn), a vertex at most `NEAR` ahead follows.
#[inline]
fn follows(prev: Slot, v: u32) -> bool {
    match v.wrapping_sub(prev.vertex) {
        0 => prev.near,
        d => d <= NEAR,
    }
}

/// Notes a read of vertex `v`'s list in segment `serial` by this thread,
/// and returns whether it follows the thread's previous list read there
/// closely (then read-ahead serves it).
#[inline]
pub(crate) fn note(serial: u64, v: u32) -> bool {
    RECENT.with(|slots| {
        let slot = &slots[serial as usize % SLOTS];
        let prev = slot.get();
        let near = prev.serial == serial && follows(prev, v);
        slot.set(Slot {
            serial,
            vertex: v,
            near,
        });
        near
    })
}

/// Whether the last list read this thread noted in segment `serial` was
/// near the one before it: how the entries of the list whose offsets it
/// just read are to be read. A segment with no read noted counts as random.
#[inline]
pub(crate) fn last_was_near(serial: u64) -> bool {
    RECENT.with(|slots| {
        let slot = slots[serial as usize % SLOTS].get();
        slot.serial == serial && slot.near
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic
mod tests {
    use super::*;

    #[test]
    fn reads_in_vertex_order_follow_and_jumps_do_not() {
        let s = next_serial();
        assert!(!note(s, 100), "a segment's first read counts as random");
        assert!(note(s, 101));
        assert!(note(s, 101 + NEAR));
        assert!(last_was_near(s));
        assert!(!note(s, 101 + 2 * NEAR + 1), "a jump past NEAR");
        assert!(!last_was_near(s));
        assert!(!note(s, 5), "a step back");
        assert!(!note(s, 5), "the same vertex keeps its answer");
        assert!(note(s, 6));
        assert!(note(s, 6), "the same vertex keeps its answer");
    }

    #[test]
    fn segments_are_told_apart() {
        let (a, b) = (next_serial(), next_serial());
        assert!(!note(a, 10));
        assert!(!note(b, 11), "another segment's read does not count");
        assert!(note(a, 11));
        assert!(note(b, 12));
        // A serial sharing `a`'s slot takes it over.
        let c = a + SLOTS as u64;
        assert!(!note(c, 12));
        assert!(!last_was_near(a));
        assert!(!note(a, 13), "its slot was taken: counts as random");
    }

    #[test]
    fn threads_keep_their_own() {
        let s = next_serial();
        assert!(!note(s, 1));
        assert!(note(s, 2));
        std::thread::spawn(move || {
            assert!(!last_was_near(s));
            assert!(!note(s, 3));
        })
        .join()
        .unwrap();
        assert!(note(s, 3));
    }
}
