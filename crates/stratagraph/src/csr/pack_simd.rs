//! Packed lists (`pack.rs`) decoded eight gaps at a time with AVX2: the
//! decoding that whole passes over a packed level spend most of their time
//! in beyond what a plain CSR costs.
//!
//! A group of eight gaps of `w` bits takes exactly `w` bytes. Its first
//! four gaps lie within the 16 bytes from the group's start and its last
//! four within the 16 from byte `4w / 8`, as long as a gap and its bit
//! offset fit in 32 bits (`w` at most [`MAX_WIDTH`]; the gaps of a graph
//! with fewer than 2^25 vertices always do). So one 128-bit load per half,
//! one byte shuffle (AVX2 shuffles within 128-bit lanes, which is all this
//! needs) puts each gap's four bytes in its 32-bit lane, a shift per lane
//! and a mask cut it out, and three adds make the running sums. A list of
//! up to nine entries, most lists of a graph, is its first value and one
//! such group; the scalar decoder needs about sixty instructions for it.
//!
//! This is the engine's one use of vector intrinsics. Every load is checked
//! against its slice right before it is made and every store writes one
//! `chunks_exact` piece of eight values, so the only thing the `unsafe`
//! blocks rely on is the CPU having AVX2, which is asked first
//! (`is_x86_feature_detected!`, cached by the standard library). Without
//! it, on another architecture, for wider gaps or near the end of a
//! section, the scalar decoder does the work. Tested against the scalar
//! decoder for every width, for lists of every length up to three chunks,
//! and at the end of a section (`pack.rs` tests).

/// The widest gap unpacked here: a gap at bit offset 7 of its first byte
/// must end within that byte's 32-bit window.
pub(crate) const MAX_WIDTH: u32 = 25;

/// Unpacks as many whole groups of `dst` (whose length is a multiple of 8)
/// as `body` holds with 16 bytes to load past each half: gaps of width `w`
/// as running sums from `p`. Returns how many values it wrote, a multiple
/// of 8, possibly 0 (the caller unpacks the rest).
#[inline]
pub(crate) fn unpack(body: &[u8], w: u32, p: u32, dst: &mut [u32]) -> usize {
    #[cfg(target_arch = "x86_64")]
    if w <= MAX_WIDTH && std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was just detected on this CPU.
        #[allow(unsafe_code)]
        return unsafe { x86::unpack(body, w as usize, p, dst) };
    }
    let _ = (body, w, p, dst);
    0
}

/// A block's lists for `PackedLists::decode_block`, where its rows are
/// dense: the lists of rows `row..row + len` (`offsets` and `starts` are
/// the whole columns), decoded as that function says. `None` where this CPU
/// has no AVX2: the caller decodes them itself.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(crate) fn decode_block(
    v: u32,
    row: usize,
    len: usize,
    cols: (&[u32], &[u32], &[u8]),
    want: impl Fn(u32) -> usize,
    dirty: u64,
    buf: &mut [u32],
    ends: &mut [usize; 64],
) -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: AVX2 was just detected on this CPU.
        #[allow(unsafe_code)]
        return Some(unsafe { x86::decode_block(v, row, len, cols, want, dirty, buf, ends) });
    }
    let _ = (v, row, len, cols, want, dirty, buf, ends);
    None
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use std::arch::x86_64::{
        __m128i, __m256i, _mm256_add_epi32, _mm256_and_si256, _mm256_blend_epi32,
        _mm256_loadu_si256, _mm256_permutevar8x32_epi32, _mm256_set1_epi32, _mm256_set_m128i,
        _mm256_setzero_si256, _mm256_shuffle_epi8, _mm256_slli_si256, _mm256_srlv_epi32,
        _mm256_storeu_si256, _mm_loadu_si128,
    };

    use super::MAX_WIDTH;
    use crate::csr::pack::{decode_in_room, first_value, CHUNK, GROUP, HEAD};

    /// How a group of gaps of one width is cut out: the shuffle giving each
    /// 32-bit lane its gap's four bytes (indices within the lane's own 16
    /// loaded bytes), each lane's shift, and where the second load starts.
    struct Plan {
        shuffle: [u8; 32],
        shift: [u32; 8],
        half: usize,
    }

    const fn plan(w: usize) -> Plan {
        let half = 4 * w / 8;
        let mut shuffle = [0u8; 32];
        let mut shift = [0u32; 8];
        let mut i = 0;
        while i < 8 {
            let bit = if i < 4 { i * w } else { i * w - half * 8 };
            shift[i] = (bit % 8) as u32;
            let mut k = 0;
            while k < 4 {
                shuffle[i * 4 + k] = (bit / 8 + k) as u8;
                k += 1;
            }
            i += 1;
        }
        Plan {
            shuffle,
            shift,
            half,
        }
    }

    const fn plans() -> [Plan; MAX_WIDTH as usize + 1] {
        // Width 0 (a chunk of equal entries) shifts and masks every lane
        // to 0.
        let mut out = [const { plan(0) }; MAX_WIDTH as usize + 1];
        let mut w = 1;
        while w <= MAX_WIDTH as usize {
            out[w] = plan(w);
            w += 1;
        }
        out
    }

    static PLANS: [Plan; MAX_WIDTH as usize + 1] = plans();

    /// Unpacks groups of gaps of width `w` (at most `MAX_WIDTH`) from
    /// `bytes[body..]` into `out`, eight values a piece, as running sums
    /// from `base`'s lanes (all equal), stopping before the first group
    /// whose loads would leave `bytes`. Returns how many pieces it filled
    /// and the last value written, in every lane.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn groups(
        bytes: &[u8],
        body: usize,
        w: usize,
        mut base: __m256i,
        out: &mut [u32],
    ) -> (usize, __m256i) {
        let Some(plan) = PLANS.get(w) else {
            return (0, base);
        };
        // SAFETY: 32 bytes read from a 32-byte array and 8 words from an
        // 8-word array.
        let (shuffle, shift) = unsafe {
            (
                _mm256_loadu_si256(plan.shuffle.as_ptr().cast::<__m256i>()),
                _mm256_loadu_si256(plan.shift.as_ptr().cast::<__m256i>()),
            )
        };
        let mask = _mm256_set1_epi32(((1u64 << w) - 1) as u32 as i32);
        let fourth = _mm256_set1_epi32(3);
        let last = _mm256_set1_epi32(7);
        let mut done = 0;
        for (g, piece) in out.chunks_exact_mut(GROUP).enumerate() {
            let at = body + g * w;
            if at + plan.half + 16 > bytes.len() {
                break;
            }
            // SAFETY: both 16-byte loads end at or before
            // `at + half + 16`, inside `bytes` (checked just above);
            // `piece` is eight consecutive u32s.
            unsafe {
                let lo = _mm_loadu_si128(bytes.as_ptr().add(at).cast::<__m128i>());
                let hi = _mm_loadu_si128(bytes.as_ptr().add(at + plan.half).cast::<__m128i>());
                let shuffled = _mm256_shuffle_epi8(_mm256_set_m128i(hi, lo), shuffle);
                let gaps = _mm256_and_si256(_mm256_srlv_epi32(shuffled, shift), mask);
                // Running sums within each half, then the low half's total
                // carried into the high half, then the previous group's last.
                let mut x = _mm256_add_epi32(gaps, _mm256_slli_si256::<4>(gaps));
                x = _mm256_add_epi32(x, _mm256_slli_si256::<8>(x));
                let carry = _mm256_permutevar8x32_epi32(x, fourth);
                let carry = _mm256_blend_epi32::<0xF0>(_mm256_setzero_si256(), carry);
                x = _mm256_add_epi32(_mm256_add_epi32(x, carry), base);
                _mm256_storeu_si256(piece.as_mut_ptr().cast::<__m256i>(), x);
                base = _mm256_permutevar8x32_epi32(x, last);
            }
            done += 1;
        }
        (done, base)
    }

    /// `super::unpack`, on a CPU with AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) fn unpack(body: &[u8], w: usize, p: u32, dst: &mut [u32]) -> usize {
        groups(body, 0, w, _mm256_set1_epi32(p as i32), dst).0 * GROUP
    }

    /// Decodes the first `n` (at least 1) entries of the list whose bytes
    /// start at `bytes[s]` into `buf[at..]`, returning where they end, or
    /// `None` (having written some of `buf[at..at + n + GROUP]`) where a
    /// chunk is wider than `MAX_WIDTH`, the list runs too near the end of
    /// `bytes` for whole loads, or `buf` is too short.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn list(bytes: &[u8], s: usize, n: usize, buf: &mut [u32], at: usize) -> Option<usize> {
        let head = bytes.get(s..s + HEAD)?;
        // `len` is at most 5, so the width byte is in `head`.
        let (first, len, _) = first_value(head);
        *buf.get_mut(at)? = first;
        let mut base = _mm256_set1_epi32(first as i32);
        let mut done = 1;
        let mut width_at = s + len;
        while done < n {
            let w = usize::from(*bytes.get(width_at)?);
            let chunk = (n - done).min(CHUNK);
            let pieces = chunk.div_ceil(GROUP);
            let out = buf.get_mut(at + done..at + done + pieces * GROUP)?;
            // Only a list's last chunk can end inside a group, so the next
            // chunk starts from the last lane of this one's last group.
            let (filled, last) = groups(bytes, width_at + 1, w, base, out);
            if filled < pieces {
                return None;
            }
            base = last;
            done += chunk;
            width_at += 1 + (chunk * w).div_ceil(8);
        }
        Some(at + n)
    }

    /// `super::decode_block`, on a CPU with AVX2.
    #[allow(clippy::too_many_arguments)]
    #[target_feature(enable = "avx2")]
    pub(super) fn decode_block(
        v: u32,
        row: usize,
        len: usize,
        (offsets, starts, bytes): (&[u32], &[u32], &[u8]),
        want: impl Fn(u32) -> usize,
        dirty: u64,
        buf: &mut [u32],
        ends: &mut [usize; 64],
    ) -> u64 {
        let mut skip = 0u64;
        let mut at = 0;
        let offs = offsets.get(row..row + len + 1).unwrap_or(&[]);
        let rows = offs.windows(2).zip(starts.get(row..).unwrap_or(&[]));
        for (j, ((w, &s), end)) in rows.zip(ends.iter_mut()).enumerate() {
            // The list a few rows on: a pass that decodes only the start of
            // each list skips the bytes between them, where the CPU's own
            // read-ahead does not follow.
            if let Some(b) = starts
                .get(row + j + super::super::PREFETCH_AHEAD)
                .and_then(|&s| bytes.get(s as usize))
            {
                crate::util::prefetch::line(b);
            }
            let u = v + j as u32;
            let bit = 1u64 << (u & 63);
            let n = w[1].saturating_sub(w[0]) as usize;
            match want(u) {
                0 => skip |= bit,
                m if dirty & bit == 0 && n > 0 => {
                    let n = n.min(m);
                    let s = s as usize;
                    at = match list(bytes, s, n, buf, at) {
                        Some(end) => end,
                        None => decode_in_room(bytes.get(s..).unwrap_or(&[]), n, buf, at),
                    };
                }
                _ => {}
            }
            *end = at;
        }
        skip
    }
}
