//! Packed destination lists: how a compacted level keeps a vertex's
//! sorted destinations in about two bytes each instead of four
//! (`docs/FORMAT.md` §1.5, section `dsts` of a `PACKED` segment).
//!
//! A list of `n` entries is its first destination as a LEB128 varint,
//! then the `n - 1` gaps to the previous entry (non-decreasing lists, so
//! every gap is at least 0) in chunks of [`CHUNK`]: per chunk one byte, the
//! bit width `w` of its largest gap (0 to 32), then the chunk's gaps packed
//! `w` bits each, least significant bit first, padded to a whole byte.
//!
//! Chosen by measurement on the k20 lists (destinations in a random
//! order of ids, as graphs without locality have): a gap bit-packed per
//! chunk takes 2.0 to 2.1 bytes, as a byte-aligned varint 2.1, in
//! Elias-Fano 1.7; packing decodes in a tight loop with one unaligned
//! 8-byte load per entry and no branch per bit, which keeps the scans of
//! analytics kernels near a plain CSR's. A chunk of 128 keeps one large gap
//! from widening a whole long list.
//!
//! Decoding never panics: damaged bytes (a width above 32, a varint running
//! on, a list past the end of its bytes) decode to some list of the right
//! length and report `false`; `verify` turns that into `Corrupt`.

/// Gaps per chunk (one width byte each).
pub(crate) const CHUNK: usize = 128;

/// Zero bytes a writer leaves after the last list, so that a decoder may
/// load 8 bytes at any bit position of a list without a bounds check
/// failing on the section's last byte.
pub(crate) const SLACK: usize = 8;

/// Appends the encoding of `list` (non-decreasing) to `out`.
pub(crate) fn encode(list: &[u32], out: &mut Vec<u8>) {
    let Some((&first, rest)) = list.split_first() else {
        return;
    };
    crate::value::put_varint(out, first as usize);
    let mut prev = first;
    for chunk in rest.chunks(CHUNK) {
        let mut gaps = [0u32; CHUNK];
        let mut max = 0;
        for (g, &d) in gaps.iter_mut().zip(chunk) {
            *g = d.wrapping_sub(prev);
            max |= *g;
            prev = d;
        }
        let w = 32 - max.leading_zeros();
        out.push(w as u8);
        let mut acc: u64 = 0;
        let mut bits = 0;
        for &g in &gaps[..chunk.len()] {
            acc |= u64::from(g) << bits;
            bits += w;
            while bits >= 8 {
                out.push(acc as u8);
                acc >>= 8;
                bits -= 8;
            }
        }
        if bits > 0 {
            out.push(acc as u8);
        }
    }
}

/// Decodes the `n` entries encoded at the start of `bytes` into `out`
/// (cleared first). Returns whether the bytes were well formed and how many
/// of them the list took; damaged bytes still give `n` entries.
#[inline]
pub(crate) fn decode(bytes: &[u8], n: usize, out: &mut Vec<u32>) -> (bool, usize) {
    decode_through(bytes, n, u32::MAX, out)
}

/// `decode`, stopping after the first chunk that reaches past `stop`: the
/// entries up to `stop` and at least one after it (if any), for a look-up
/// that needs no more. Chunks are decoded whole, so a look-up in a long
/// list decodes half of it on average.
///
/// Written for lists of a few entries as much as for long ones (most lists
/// of a graph are short, most entries in long lists): no branch depends
/// on a varint's length or, below [`FIXED_FROM`] gaps, on the chunk's
/// width, and gaps are decoded in whole groups of eight (the extra values
/// past the list land in room reserved for them and are cut off), so no
/// loop ends at a count the branch predictor cannot know.
#[inline]
pub(crate) fn decode_through(
    bytes: &[u8],
    n: usize,
    stop: u32,
    out: &mut Vec<u32>,
) -> (bool, usize) {
    out.clear();
    if n == 0 {
        return (true, 0);
    }
    out.resize(n + GROUP, 0);
    let (ok, used, got) = decode_into(bytes, n, stop, out);
    out.truncate(got);
    (ok, used)
}

/// Gaps decoded together; eight gaps of width `w` take exactly `w` bytes.
pub(crate) const GROUP: usize = 8;

/// Chunks of at least this many gaps are decoded by a loop made for their
/// width; shorter ones by one for any width, which costs a little more per
/// gap and saves the mispredicted jump to the right loop.
const FIXED_FROM: usize = 32;

/// Decodes the first `n` entries of the list at the start of `bytes` into
/// `buf` from `at` on, growing `buf` if it has less than `n + GROUP` room
/// there (and never shrinking it, so that a buffer reused for many lists
/// is not cleared for each): returns where the entries end. For a reader
/// that keeps its own count of what `buf` holds.
///
/// A list of at most one group after its first value (most lists of a
/// graph, and the start of a list a pass wants only a little of) is
/// decoded inline, with no branch on its length or width; longer ones by
/// the general loop, out of line.
#[inline(always)]
pub(crate) fn decode_at(bytes: &[u8], n: usize, buf: &mut Vec<u32>, at: usize) -> usize {
    if n == 0 {
        return at;
    }
    if buf.len() < at + n + GROUP {
        buf.resize(at + n + GROUP, 0);
    }
    decode_in_room(bytes, n, buf, at)
}

/// `decode_at` into a buffer the caller has made long enough (`n + GROUP`
/// values from `at`; a shorter one gets fewer values written, never a
/// panic): for a block of lists, whose room is made once.
#[inline(always)]
pub(crate) fn decode_in_room(bytes: &[u8], n: usize, buf: &mut [u32], at: usize) -> usize {
    if n <= GROUP + 1 {
        if let Some(end) = decode_head(bytes, n, buf, at) {
            return end;
        }
    }
    decode_at_any(bytes, n, buf, at)
}

/// `decode_at` for any list, `buf` already long enough.
#[inline(never)]
fn decode_at_any(bytes: &[u8], n: usize, buf: &mut [u32], at: usize) -> usize {
    let dst = buf.get_mut(at..).unwrap_or(&mut []);
    at + decode_into(bytes, n, u32::MAX, dst).2
}

/// Bytes `decode_head` reads: a varint of up to 5, the width byte, and
/// the 8 bytes of a load at any bit of a group of 8 gaps of up to 32 bits.
pub(crate) const HEAD: usize = 5 + 1 + 32 + 8;

/// Decodes a list of 1 to `GROUP + 1` entries into `buf[at..]` (which has
/// room for `GROUP + 1` values there; those past the list are overwritten
/// by whatever comes next): the first value and one whole group of gaps,
/// whatever the list's length. `None` where fewer than [`HEAD`] bytes are
/// left (the last lists of a section), for the general loop.
#[inline(always)]
fn decode_head(bytes: &[u8], n: usize, buf: &mut [u32], at: usize) -> Option<usize> {
    let head: &[u8; HEAD] = bytes.get(..HEAD)?.try_into().ok()?;
    let dst: &mut [u32; GROUP + 1] = buf.get_mut(at..at + GROUP + 1)?.try_into().ok()?;
    // `len` is at most 5 (`first_value`), so the width byte is in `head`.
    let (first, len, _) = first_value(head);
    dst[0] = first;
    // A damaged width decodes as 32 bits: some list, never a panic.
    let w = u32::from(head.get(len).copied().unwrap_or(0)).min(32);
    let body = head.get(len + 1..).unwrap_or(&[]);
    let mask = mask_of(w);
    let mut p = first;
    for (i, x) in dst[1..].iter_mut().enumerate() {
        // At most 7 * 32 bits in: byte 28, whose 8 bytes `body` holds.
        let bit = i * w as usize;
        p = p.wrapping_add(((word(body, bit >> 3) >> (bit & 7)) & mask) as u32);
        *x = p;
    }
    Some(at + n)
}

/// Decodes into `dst` (room for `n + GROUP` values): whether the bytes were
/// well formed, how many bytes the list took, how many entries were decoded
/// (`n`, or fewer if a chunk passed `stop`).
#[inline]
fn decode_into(bytes: &[u8], n: usize, stop: u32, dst: &mut [u32]) -> (bool, usize, usize) {
    let (first, mut p, mut ok) = first_value(bytes);
    if let Some(x) = dst.first_mut() {
        *x = first;
    }
    let mut prev = first;
    let mut at = 1;
    while at < n {
        let len = (n - at).min(CHUNK);
        let w = match bytes.get(p) {
            Some(&w) if w <= 32 => u32::from(w),
            _ => {
                ok = false;
                0
            }
        };
        p += 1;
        let body = bytes.get(p..).unwrap_or(&[]);
        let need = chunk_bytes(len, w);
        ok &= body.len() >= need;
        let padded = len.div_ceil(GROUP) * GROUP;
        let room = dst.get_mut(at..at + padded).unwrap_or(&mut []);
        if w == 0 {
            room.fill(prev);
        } else if body.len() >= padded / GROUP * w as usize + 8 && room.len() == padded {
            // Every load of every group lies inside `body`: the usual
            // case, with the section's slack after the last list.
            if len >= FIXED_FROM {
                unpack_width(body, w, prev, room);
            } else {
                unpack_any(body, w, prev, room);
            }
        } else {
            unpack_short(body, w, prev, room.get_mut(..len).unwrap_or(&mut []));
        }
        prev = dst.get(at + len - 1).copied().unwrap_or(prev);
        p += need;
        at += len;
        if prev > stop {
            break;
        }
    }
    (ok, p, at.min(n))
}

/// The first destination, a LEB128 varint of at most 5 bytes (the last
/// holding the top 4 bits only): its value, its length, and whether it was
/// well formed. With 8 bytes to load, found without a branch on its length.
#[inline]
pub(crate) fn first_value(bytes: &[u8]) -> (u32, usize, bool) {
    let Some(w) = bytes.get(..8).and_then(|b| <[u8; 8]>::try_from(b).ok()) else {
        return first_value_short(bytes);
    };
    let w = u64::from_le_bytes(w);
    // The first byte without its continuation bit ends the varint.
    let ends = !w & 0x8080_8080_8080_8080;
    let len = (ends.trailing_zeros() / 8 + 1) as usize;
    if len > 5 {
        return (0, 5, false);
    }
    let x = w & ((1u64 << (len * 8)) - 1);
    let v = (x & 0x7f)
        | (x >> 1) & (0x7f << 7)
        | (x >> 2) & (0x7f << 14)
        | (x >> 3) & (0x7f << 21)
        | (x >> 4) & (0x7f << 28);
    (v as u32, len, v >> 32 == 0)
}

/// `first_value` byte by byte, for a varint near the end of its bytes.
fn first_value_short(bytes: &[u8]) -> (u32, usize, bool) {
    let mut v: u32 = 0;
    let mut ok = true;
    for (i, &b) in bytes.iter().take(5).enumerate() {
        v |= u32::from(b & 0x7f).wrapping_shl(7 * i as u32);
        if i == 4 && b & 0x70 != 0 {
            ok = false;
        }
        if b & 0x80 == 0 {
            return (v, i + 1, ok);
        }
    }
    (v, bytes.len().min(5), false)
}

/// Bytes of `n` gaps packed `w` bits each.
fn chunk_bytes(n: usize, w: u32) -> usize {
    (n * w as usize).div_ceil(8)
}

/// The mask of a gap of `w` bits (1 to 32).
#[inline(always)]
fn mask_of(w: u32) -> u64 {
    (1u64 << w) - 1
}

/// The 8 bytes at `at` of `b` (zero if they are not all there).
#[inline(always)]
fn word(b: &[u8], at: usize) -> u64 {
    b.get(at..at + 8)
        .and_then(|s| s.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

/// Unpacks `dst.len()` (a multiple of [`GROUP`]) gaps of width `w` (1 to
/// 32) from `body`, which holds every group and 8 bytes more, as running
/// sums from `p`.
#[inline]
fn unpack_any(body: &[u8], w: u32, p: u32, dst: &mut [u32]) {
    unpack_loading(body, w, p, dst, word);
}

/// The loop of `unpack_any` and `unpack_short`, with the 8-byte load that
/// tells them apart.
#[inline(always)]
fn unpack_loading(
    body: &[u8],
    w: u32,
    mut p: u32,
    dst: &mut [u32],
    load: impl Fn(&[u8], usize) -> u64,
) {
    let mask = mask_of(w);
    let mut bit = 0usize;
    for x in dst.iter_mut() {
        p = p.wrapping_add(((load(body, bit >> 3) >> (bit & 7)) & mask) as u32);
        *x = p;
        bit += w as usize;
    }
}

/// `unpack_any` with one copy of the loop per width, so that every shift
/// and mask is a constant and, in each group of eight gaps (which ends on
/// a byte boundary), every load's offset too.
#[inline]
fn unpack_width(body: &[u8], w: u32, p: u32, dst: &mut [u32]) {
    // Eight gaps at a time where the CPU can (`pack_simd`), the groups it
    // leaves (near the end of `body`, or all of them) below.
    let done = super::pack_simd::unpack(body, w, p, dst);
    let p = done
        .checked_sub(1)
        .and_then(|i| dst.get(i))
        .copied()
        .unwrap_or(p);
    let body = body.get(done / GROUP * w as usize..).unwrap_or(&[]);
    let Some(dst) = dst.get_mut(done..).filter(|d| !d.is_empty()) else {
        return;
    };
    macro_rules! widths {
        ($($n:literal)*) => {
            match w {
                $($n => unpack_fixed::<$n>(body, p, dst),)*
                _ => unpack_any(body, w, p, dst),
            }
        };
    }
    widths!(1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32)
}

/// `unpack_any` for gaps of `W` bits.
#[inline(always)]
fn unpack_fixed<const W: usize>(body: &[u8], mut p: u32, dst: &mut [u32]) {
    let mask = mask_of(W as u32);
    for (g, group) in dst.chunks_exact_mut(GROUP).enumerate() {
        // The group's W bytes and the 8 its last load may reach.
        let bytes = body.get(g * W..g * W + W + 8).unwrap_or(&[]);
        for (i, x) in group.iter_mut().enumerate() {
            let bit = i * W;
            p = p.wrapping_add(((word(bytes, bit >> 3) >> (bit & 7)) & mask) as u32);
            *x = p;
        }
    }
}

/// Unpacks exactly `dst.len()` gaps near the end of `body`, bytes past its
/// end reading as zero (damaged or cut bytes).
fn unpack_short(body: &[u8], w: u32, p: u32, dst: &mut [u32]) {
    unpack_loading(body, w, p, dst, load_short);
}

/// The 8 bytes at `at`, those past the end of `body` read as zero.
#[inline]
fn load_short(body: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    for (i, x) in b.iter_mut().enumerate() {
        *x = body.get(at + i).copied().unwrap_or(0);
    }
    u64::from_le_bytes(b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(list: &[u32]) {
        let mut b = Vec::new();
        encode(list, &mut b);
        let used = b.len();
        b.extend([0u8; SLACK]);
        let mut out = Vec::new();
        assert_eq!(decode(&b, list.len(), &mut out), (true, used));
        assert_eq!(out, list);
        // Without the slack the decoder reads the same.
        assert_eq!(decode(&b[..used], list.len(), &mut out), (true, used));
        assert_eq!(out, list);
    }

    proptest! {
        #[test]
        fn lists_round_trip(mut list in prop::collection::vec(any::<u32>(), 0..600), small in any::<bool>()) {
            if small {
                list.iter_mut().for_each(|x| *x %= 5000);
            }
            list.sort_unstable();
            round_trip(&list);
        }

        /// Damaged or cut bytes decode to a list of the asked length
        /// without panicking.
        #[test]
        fn damaged_bytes_never_panic(
            list in prop::collection::vec(any::<u32>(), 1..300),
            at in any::<prop::sample::Index>(),
            value in any::<u8>(),
            cut in any::<prop::sample::Index>(),
            extra in 0usize..5,
        ) {
            let mut list = list;
            list.sort_unstable();
            let mut b = Vec::new();
            encode(&list, &mut b);
            let i = at.index(b.len());
            b[i] = value;
            b.truncate(cut.index(b.len() + 1));
            let mut out = Vec::new();
            let _ = decode(&b, list.len() + extra, &mut out);
            prop_assert_eq!(out.len(), list.len() + extra);
            // The inline path for short lists, and the general one.
            for n in [1, 2, 9, list.len() + extra] {
                prop_assert_eq!(decode_at(&b, n, &mut out, 3), 3 + n);
            }
        }
    }

    #[test]
    fn a_look_up_decodes_through_the_chunk_past_its_value() {
        let list: Vec<u32> = (0..1000).map(|i| i * 3).collect();
        let mut b = Vec::new();
        encode(&list, &mut b);
        let mut out = Vec::new();
        decode_through(&b, list.len(), 5, &mut out);
        assert_eq!(out, list[..129]); // the first value and one chunk
        decode_through(&b, list.len(), 400, &mut out);
        assert_eq!(out, list[..257]);
        decode_through(&b, list.len(), u32::MAX, &mut out);
        assert_eq!(out, list);
    }

    proptest! {
        /// Lists decoded one after another into a reused buffer, each cut
        /// to its first `k` entries or not, read as their starts.
        #[test]
        fn prefixes_decode_into_a_shared_buffer(
            lists in prop::collection::vec((prop::collection::vec(any::<u32>(), 0..400), 0usize..300, 0u32..4), 1..8),
        ) {
            let mut bytes = Vec::new();
            let mut starts = Vec::new();
            let mut sorted = Vec::new();
            for (mut l, _, spread) in lists.iter().cloned() {
                // Gaps of every width: ids below 2^8, 2^16, 2^24, or any.
                l.iter_mut().for_each(|x| *x >>= 8 * (3 - spread));
                l.sort_unstable();
                starts.push(bytes.len());
                encode(&l, &mut bytes);
                sorted.push(l);
            }
            bytes.extend([0u8; SLACK]);
            let mut buf = vec![7u32; 3];
            let mut at = 0;
            for ((l, &(_, k, _)), &s) in sorted.iter().zip(&lists).zip(&starts) {
                let n = l.len().min(k);
                let end = decode_at(&bytes[s..], n, &mut buf, at);
                prop_assert_eq!(&buf[at..end], &l[..n]);
                at = end;
            }
        }
    }

    #[test]
    fn edge_cases_round_trip() {
        round_trip(&[]);
        round_trip(&[0]);
        round_trip(&[u32::MAX]);
        round_trip(&[0, u32::MAX]);
        round_trip(&[7, 7, 7, 9]); // versions repeat a destination
        round_trip(&(0..1000).collect::<Vec<u32>>());
        round_trip(&(0..300).map(|i| i * 1_000_000).collect::<Vec<u32>>());
    }

    /// The layout the format document gives: varint first, then per chunk a
    /// width byte and the gaps packed least significant bit first.
    #[test]
    fn bytes_are_as_documented() {
        let mut b = Vec::new();
        encode(&[300, 301, 305, 305], &mut b);
        // 300 = 0b10_0101100: 0xac 0x02; gaps 1, 4, 0 need 3 bits:
        // 001 100 000 -> bits 0..9 = 0b0_0010_0001 -> 0x21 0x00.
        assert_eq!(b, [0xac, 0x02, 3, 0x21, 0x00]);
        let mut out = Vec::new();
        assert_eq!(decode(&b, 4, &mut out), (true, 5));
        assert_eq!(out, [300, 301, 305, 305]);
    }

    /// A list of `n` entries from `first` whose gaps all take exactly `w`
    /// bits (0 to 32): the largest gap of each chunk is `2^w - 1`, the rest
    /// drawn below it.
    fn list_of_width(first: u32, n: usize, w: u32, seed: u64) -> Vec<u32> {
        let mut x = seed | 1;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let top = if w == 0 { 0 } else { u32::MAX >> (32 - w) };
        let mut list = vec![first];
        for i in 1..n {
            let gap = if (i - 1) % CHUNK == 0 {
                top
            } else {
                (next() as u32) & top
            };
            let prev = *list.last().unwrap_or(&0);
            list.push(prev.wrapping_add(gap));
        }
        list
    }

    /// The lists decoded by the vector paths (`pack_simd`: whole groups in
    /// long chunks, and a block of lists at a time) equal the lists
    /// encoded, for every width (those above `MAX_WIDTH` and lists too near
    /// the section's end fall back to the scalar loop), lengths through
    /// three chunks, lists asked whole and cut to a first group, and empty
    /// rows, skipped rows and rows marked dirty between them. Runs the
    /// vector paths where the CPU has AVX2 (this machine's does), the
    /// scalar ones elsewhere.
    #[test]
    fn vector_decoding_reads_every_width_and_length() {
        use super::super::pack_simd;
        let lens = [
            0usize, 1, 2, 8, 9, 10, 17, 31, 32, 33, 128, 129, 130, 200, 257, 300, 385,
        ];
        for w in 0..=32u32 {
            // One section of lists of this width, each first value large
            // enough for a varint of every length.
            let lists: Vec<Vec<u32>> = lens
                .iter()
                .enumerate()
                .map(|(i, &n)| {
                    let first = [0u32, 200, 40_000, 3_000_000, 400_000_000][i % 5];
                    let mut l = list_of_width(first, n, w, u64::from(w) * 1000 + i as u64);
                    // Where the sums of such gaps pass `u32::MAX` the list
                    // is not sorted: its values sorted (gaps of many widths,
                    // wide ones among them). Sorting changes no other list.
                    l.sort_unstable();
                    l
                })
                .collect();
            let mut bytes = Vec::new();
            let mut starts = Vec::new();
            let mut offsets = vec![0u32];
            for l in &lists {
                starts.push(bytes.len() as u32);
                encode(l, &mut bytes);
                offsets.push(offsets.last().unwrap_or(&0) + l.len() as u32);
            }
            bytes.extend([0u8; SLACK]);
            // Whole groups from `unpack`, through the general decoder.
            for l in &lists {
                let mut b = Vec::new();
                encode(l, &mut b);
                b.extend([0u8; SLACK]);
                let mut out = Vec::new();
                decode(&b, l.len(), &mut out);
                assert_eq!(&out, l, "width {w}, {} entries", l.len());
            }
            // A block: every list, then their first groups, with row 3
            // skipped and row 5 dirty.
            for cut in [usize::MAX, GROUP] {
                let want = |u: u32| if u == 3 { 0 } else { cut };
                let total = *offsets.last().unwrap_or(&0) as usize;
                let mut buf = vec![0u32; total + GROUP + 1];
                let mut ends = [0usize; 64];
                let cols = (&offsets[..], &starts[..], &bytes[..]);
                let dirty = 1u64 << 5;
                let Some(skip) = pack_simd::decode_block(
                    0,
                    0,
                    lists.len(),
                    cols,
                    want,
                    dirty,
                    &mut buf,
                    &mut ends,
                ) else {
                    assert!(!std::arch::is_x86_feature_detected!("avx2"));
                    continue;
                };
                assert_eq!(skip, 1 << 3);
                let mut start = 0;
                for (i, l) in lists.iter().enumerate() {
                    let expect = match i {
                        3 | 5 => &l[..0],
                        _ => &l[..l.len().min(cut)],
                    };
                    assert_eq!(
                        &buf[start..ends[i]],
                        expect,
                        "width {w}, row {i}, cut {cut}"
                    );
                    start = ends[i];
                }
            }
        }
    }

    #[test]
    fn a_width_above_32_or_a_runaway_varint_is_damage() {
        let mut out = Vec::new();
        assert!(!decode(&[5, 33, 0xff, 0xff], 3, &mut out).0);
        assert_eq!(out.len(), 3);
        assert!(!decode(&[0xff; 9], 2, &mut out).0);
        assert!(!decode(&[], 1, &mut out).0);
    }
}
