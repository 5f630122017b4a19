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

/// Bytes of `n` gaps packed `w` bits each.
fn chunk_bytes(n: usize, w: u32) -> usize {
    (n * w as usize).div_ceil(8)
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
    out.reserve(n);
    let mut ok = true;
    let mut p = 0;
    // The first destination: 7 bits a byte, at most 5 bytes, the last of
    // them holding the top 4 bits only.
    let mut first: u32 = 0;
    let mut shift = 0;
    loop {
        let Some(&b) = bytes.get(p) else {
            ok = false;
            break;
        };
        p += 1;
        first |= u32::from(b & 0x7f) << shift;
        if shift == 28 && b & 0x70 != 0 {
            ok = false;
        }
        if b & 0x80 == 0 {
            break;
        }
        shift += 7;
        if shift > 28 {
            ok = false;
            break;
        }
    }
    out.push(first);
    let mut prev = first;
    let mut left = n - 1;
    while left > 0 {
        let len = left.min(CHUNK);
        let w = match bytes.get(p) {
            Some(&w) if w <= 32 => u32::from(w),
            _ => {
                ok = false;
                0
            }
        };
        p += 1;
        let body = bytes.get(p..).unwrap_or(&[]);
        if body.len() < chunk_bytes(len, w) {
            ok = false;
        }
        unpack(body, len, w, &mut prev, out);
        p += chunk_bytes(len, w);
        left -= len;
        if prev > stop {
            break;
        }
    }
    (ok, p)
}

/// Unpacks `len` gaps of `w` bits from `body`, adding each to `prev` and
/// appending the sums to `out`. Missing bytes read as zero.
#[inline]
fn unpack(body: &[u8], len: usize, w: u32, prev: &mut u32, out: &mut Vec<u32>) {
    if w == 0 {
        out.extend(std::iter::repeat_n(*prev, len));
        return;
    }
    let mask = if w == 32 {
        u64::from(u32::MAX)
    } else {
        (1u64 << w) - 1
    };
    let start = out.len();
    out.resize(start + len, 0);
    let dst = out.get_mut(start..).unwrap_or(&mut []);
    let mut p = *prev;
    let mut bit = 0usize;
    if body.len() >= chunk_bytes(len, w) + 8 {
        // Every 8-byte load lies inside `body`: the usual case, with the
        // section's slack after the last list.
        for x in dst.iter_mut() {
            let at = bit >> 3;
            let word = body
                .get(at..at + 8)
                .map_or(0, |b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])));
            p = p.wrapping_add(((word >> (bit & 7)) & mask) as u32);
            *x = p;
            bit += w as usize;
        }
    } else {
        for x in dst.iter_mut() {
            let word = load_short(body, bit >> 3);
            p = p.wrapping_add(((word >> (bit & 7)) & mask) as u32);
            *x = p;
            bit += w as usize;
        }
    }
    *prev = p;
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

    #[test]
    fn a_width_above_32_or_a_runaway_varint_is_damage() {
        let mut out = Vec::new();
        assert!(!decode(&[5, 33, 0xff, 0xff], 3, &mut out).0);
        assert_eq!(out.len(), 3);
        assert!(!decode(&[0xff; 9], 2, &mut out).0);
        assert!(!decode(&[], 1, &mut out).0);
    }
}
