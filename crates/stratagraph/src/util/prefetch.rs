//! Asking the CPU to start loading a line before the code needs it.
//!
//! A single-edge commit at scale 20 is a handful of independent chains of
//! cache misses (each endpoint's vertex slot, the source's list below the
//! MemGraph, each endpoint's MemGraph run), and each miss costs about
//! 200 ns on the benchmark machine. Walked one after another they add up;
//! a prefetch issued as soon as an address is known lets the chains'
//! misses overlap. Unlike an ordinary load, a prefetch never holds up the
//! instructions after it while it waits.

/// Starts loading the cache line holding `x` (a hint; no effect on
/// results).
#[inline(always)]
pub(crate) fn line<T: ?Sized>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: PREFETCHT0 belongs to SSE, which every x86_64 CPU has, so the
    // target feature the intrinsic is marked with is always present. The
    // instruction reads nothing into the program, writes nothing and never
    // faults, whatever the address; here it is even a live reference.
    // Exercised by the test below and by every commit.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// Starts loading every cache line `x` spans (a value larger than a line,
/// or one that may straddle two).
#[inline(always)]
pub(crate) fn lines<T>(x: &T) {
    let start = (x as *const T).cast::<u8>();
    let mut offset = 0;
    while offset < std::mem::size_of::<T>() {
        address(start.wrapping_add(offset));
        offset += 64;
    }
    address(start.wrapping_add(std::mem::size_of::<T>().saturating_sub(1)));
}

/// Starts loading the cache line at `p`, which need not point into a live
/// value (the free slot past a vector's last element, say).
#[inline(always)]
pub(crate) fn address(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: as in `line`: PREFETCHT0 is always available on x86_64, and
    // it never reads into the program or faults, whatever the address, so
    // an address past an allocation is harmless. Exercised by the test
    // below and by every commit that creates property edges.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    #[test]
    fn prefetching_changes_nothing() {
        let v: Vec<u64> = (0..10_000).collect();
        let before = v.clone();
        for x in v.iter().step_by(97).chain(v.last()) {
            super::line(x);
        }
        super::line(&v[..]);
        super::line("text");
        super::lines(&[0u8; 200]);
        super::lines(&before);
        // Past the end of the vector and at no allocation at all.
        super::address(v.as_ptr().wrapping_add(v.capacity()).cast());
        super::address(std::ptr::null());
        super::address(usize::MAX as *const u8);
        assert_eq!(v, before);
    }
}
