//! Mutation fuzzing of the store's file readers (tests only).
//!
//! Each reader starts from valid images of its format and is handed them
//! damaged the ways disks, copies and bugs damage files: bytes overwritten
//! or bits flipped, the file cut short or grown, a stretch copied from
//! elsewhere, a length or count field set to an extreme. Most inputs are
//! then *resealed* (their checksums recomputed by the test), so that the
//! damage reaches the structural checks behind the checksums instead of
//! stopping at the first one. The reader must answer with a value or a
//! typed error, never panic or allocate without bound.
//!
//! `STRATAGRAPH_FUZZ_CASES` sets the inputs per reader (default 20,000;
//! the closing figures of issue 32 ran 1,000,000), `STRATAGRAPH_FUZZ_SEED`
//! the seed. A failing case prints its reader, seed and number.

/// Inputs per reader.
pub(crate) fn cases() -> u64 {
    std::env::var("STRATAGRAPH_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20_000)
}

fn seed() -> u64 {
    std::env::var("STRATAGRAPH_FUZZ_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_f00d)
}

/// xorshift64*: small, fast, and the same stream on every platform.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Values that break length and count fields.
const EXTREMES: [u64; 8] = [0, 1, 7, 64, 255, u32::MAX as u64, u64::MAX / 2, u64::MAX];

/// One to four damages to `b` (possibly using `other`, another image).
fn mutate(rng: &mut Rng, b: &mut Vec<u8>, other: &[u8]) {
    for _ in 0..1 + rng.below(4) {
        let len = b.len();
        match rng.below(7) {
            0 if len > 0 => {
                let i = rng.below(len);
                b[i] = rng.next() as u8;
            }
            1 if len > 0 => {
                let i = rng.below(len);
                b[i] ^= 1 << rng.below(8);
            }
            2 => b.truncate(rng.below(len + 1)),
            3 => {
                let n = rng.below(64);
                b.extend((0..n).map(|_| rng.next() as u8));
            }
            4 if len > 0 && !other.is_empty() => {
                let (from, to) = (rng.below(other.len()), rng.below(len));
                let n = rng.below(64).min(other.len() - from).min(len - to);
                b[to..to + n].copy_from_slice(&other[from..from + n]);
            }
            5 if len >= 8 => {
                let at = rng.below(len - 7) & !3;
                let v = EXTREMES[rng.below(EXTREMES.len())];
                let width = if rng.below(2) == 0 { 4 } else { 8 };
                let end = (at + width).min(len);
                b[at..end].copy_from_slice(&v.to_le_bytes()[..end - at]);
            }
            _ => {
                // Junk of the same length: the header may survive a reseal.
                if rng.below(16) == 0 {
                    b.iter_mut().for_each(|x| *x = rng.next() as u8);
                }
            }
        }
    }
}

/// Runs `check(input, resealed)` on `cases()` damaged copies of `seeds`;
/// `reseal` recomputes an image's checksums where its structure still lets
/// it find them.
pub(crate) fn run(
    reader: &str,
    seeds: &[Vec<u8>],
    reseal: impl Fn(&mut [u8]),
    mut check: impl FnMut(&[u8], bool),
) {
    assert!(!seeds.is_empty());
    let seed = seed();
    let mut rng = Rng::new(seed ^ reader.len() as u64);
    let mut b = Vec::new();
    for case in 0..cases() {
        let from = &seeds[rng.below(seeds.len())];
        let other = &seeds[rng.below(seeds.len())];
        b.clear();
        b.extend_from_slice(from);
        mutate(&mut rng, &mut b, other);
        let resealed = rng.below(4) != 0;
        if resealed {
            reseal(&mut b);
        }
        let guard = Report { reader, seed, case };
        check(&b, resealed);
        std::mem::forget(guard);
    }
}

/// Names the failing input when a check panics.
struct Report<'a> {
    reader: &'a str,
    seed: u64,
    case: u64,
}

impl Drop for Report<'_> {
    fn drop(&mut self) {
        eprintln!(
            "fuzzing {}: case {} of seed {} failed (STRATAGRAPH_FUZZ_SEED={})",
            self.reader, self.case, self.seed, self.seed
        );
    }
}
