//! What a query allocates, for its memory limit ([`crate::Deadline::memory`]).
//!
//! A traversal's memory is spread over traversers, paths, side effects and
//! barrier collections of every step kind; counting each would put
//! bookkeeping in every step. Instead [`CountingAlloc`], installed by a
//! binary as its global allocator, keeps a running total of the bytes the
//! current thread holds (allocated minus freed), and a query compares it
//! with the total when it began at the same points where it reads the
//! clock. A query runs its steps on one thread, so what it builds is
//! counted; engine scans it starts on other threads hold memory
//! proportional to the graph, not to the query, and are not.
//!
//! In a process that does not install [`CountingAlloc`] (a library user's
//! binary), [`counting`] is false and a memory limit is not enforced.

// The one `unsafe` of this crate: `GlobalAlloc` is an unsafe trait. Every
// method forwards to the system allocator with the caller's arguments
// unchanged, so the caller's obligations pass through as they are; the
// counting beside it touches only a thread-local integer (no allocation,
// no panic: `try_with` also works while the thread is being torn down).
#![allow(unsafe_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

thread_local! {
    /// Bytes this thread holds: allocated minus freed (memory freed on
    /// another thread than the one that allocated it skews both; a query
    /// compares differences on its own thread, which such moves rarely
    /// touch).
    static HELD: Cell<isize> = const { Cell::new(0) };
}

#[inline]
fn note(delta: isize) {
    let _ = HELD.try_with(|h| h.set(h.get().wrapping_add(delta)));
}

/// The system allocator, counting the bytes each thread holds. Install it
/// in a binary that runs queries with memory limits:
///
/// ```ignore
/// #[global_allocator]
/// static ALLOC: stratagraph_gremlin::memory::CountingAlloc = stratagraph_gremlin::memory::CountingAlloc;
/// ```
pub struct CountingAlloc;

// SAFETY: each method calls `System`'s with the same arguments, and adds
// only a thread-local counter update, so `System`'s guarantees hold.
unsafe impl GlobalAlloc for CountingAlloc {
    #[inline]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            note(layout.size() as isize);
        }
        p
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            note(layout.size() as isize);
        }
        p
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: the caller passes a block this allocator (that is,
        // `System`) handed out, with its layout.
        unsafe { System.dealloc(ptr, layout) };
        note(-(layout.size() as isize));
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc` for `ptr` and `layout`; `new_size` is the
        // caller's to keep valid.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            note(new_size as isize - layout.size() as isize);
        }
        p
    }
}

/// Bytes the current thread holds by [`CountingAlloc`]'s count (0 forever
/// where it is not installed).
pub fn held() -> isize {
    HELD.try_with(Cell::get).unwrap_or(0)
}

/// Whether this process counts allocations (its global allocator is
/// [`CountingAlloc`]).
pub fn counting() -> bool {
    let before = held();
    let probe = std::hint::black_box(vec![0u8; 256]);
    let during = held();
    drop(probe);
    during != before
}
