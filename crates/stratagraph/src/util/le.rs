//! Little-endian fields read out of byte buffers, for every file format
//! (segments, manifest, log). Callers check lengths first; these slice.

/// The `u32` at byte `at` of `b`.
#[inline]
pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(array(&b[at..at + 4]))
}

/// The `u64` at byte `at` of `b`.
#[inline]
pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(array(&b[at..at + 8]))
}

/// The first `N` bytes of `b` as an array.
#[inline]
pub(crate) fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[..N]);
    a
}
