//! A segment's weights as readers see them: one `f64` per entry, kept in
//! the file either as is or dictionary-coded (`docs/FORMAT.md` §1.5).
//!
//! Coding is what makes a weighted level small: real weights repeat (a
//! generator's 255 values, a rating scale, a few edge costs), so an entry
//! costs one or two bytes of code instead of eight, and the dictionary is a
//! few kilobytes a reader keeps in its first-level cache.

use std::ops::Range;

/// The weights of a run of entries, indexed by position in the run.
/// Cheap to copy: it borrows the segment's columns.
#[derive(Clone, Copy, Debug)]
pub enum Weights<'a> {
    /// One `f64` per entry, as stored.
    Raw(&'a [f64]),
    /// The distinct weights, and per entry a one-byte index into them.
    Byte {
        /// The distinct weights.
        dict: &'a [f64],
        /// One index into `dict` per entry.
        codes: &'a [u8],
    },
    /// The distinct weights, and per entry a two-byte index into them.
    Wide {
        /// The distinct weights.
        dict: &'a [f64],
        /// One index into `dict` per entry.
        codes: &'a [u16],
    },
}

impl<'a> Weights<'a> {
    /// Number of entries.
    pub fn len(&self) -> usize {
        match self {
            Weights::Raw(w) => w.len(),
            Weights::Byte { codes, .. } => codes.len(),
            Weights::Wide { codes, .. } => codes.len(),
        }
    }

    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The weight of entry `i`; `None` past the end. A code outside the
    /// dictionary (damage only `verify` looks for) reads as 1.0: a wrong
    /// answer, never a panic.
    #[inline]
    pub fn get(&self, i: usize) -> Option<f64> {
        match self {
            Weights::Raw(w) => w.get(i).copied(),
            Weights::Byte { dict, codes } => codes
                .get(i)
                .map(|&c| dict.get(usize::from(c)).copied().unwrap_or(1.0)),
            Weights::Wide { dict, codes } => codes
                .get(i)
                .map(|&c| dict.get(usize::from(c)).copied().unwrap_or(1.0)),
        }
    }

    /// The weights of entries `r`; `None` if `r` is out of range.
    #[inline]
    pub fn slice(&self, r: Range<usize>) -> Option<Weights<'a>> {
        Some(match *self {
            Weights::Raw(w) => Weights::Raw(w.get(r)?),
            Weights::Byte { dict, codes } => Weights::Byte {
                dict,
                codes: codes.get(r)?,
            },
            Weights::Wide { dict, codes } => Weights::Wide {
                dict,
                codes: codes.get(r)?,
            },
        })
    }

    /// The weights as one `f64` slice, when they are stored so (not coded).
    pub fn as_raw(&self) -> Option<&'a [f64]> {
        match *self {
            Weights::Raw(w) => Some(w),
            _ => None,
        }
    }

    /// Every weight in order.
    pub fn iter(&self) -> impl Iterator<Item = f64> + 'a {
        let w = *self;
        (0..w.len()).map(move |i| w.get(i).unwrap_or(1.0))
    }

    /// Calls `f` with every weight in order: one loop per form, where
    /// `iter` tests the form at each weight.
    #[inline]
    pub fn for_each(&self, mut f: impl FnMut(f64)) {
        match *self {
            Weights::Raw(w) => w.iter().for_each(|&x| f(x)),
            Weights::Byte { dict, codes } => codes
                .iter()
                .for_each(|&c| f(dict.get(usize::from(c)).copied().unwrap_or(1.0))),
            Weights::Wide { dict, codes } => codes
                .iter()
                .for_each(|&c| f(dict.get(usize::from(c)).copied().unwrap_or(1.0))),
        }
    }

    /// Every weight in order, decoded into a vector.
    pub fn to_vec(&self) -> Vec<f64> {
        self.iter().collect()
    }
}

/// Codes finite `weights` against a dictionary of their distinct values
/// (distinct bit patterns, ascending in `f64::total_cmp` order), if there
/// are at most `max` (at most 65536) of them: `(dictionary, codes)`, the
/// codes as `u16` (the writer narrows them to bytes when the dictionary
/// allows). Two passes over the weights through a small open-addressing
/// table: a segment of a million entries codes in a few milliseconds,
/// where a general-purpose map would take tens.
pub(crate) fn code(weights: &[f64], max: usize) -> Option<(Vec<f64>, Vec<u16>)> {
    let mut table = Table::new();
    let mut last = None;
    for &w in weights {
        let bits = w.to_bits();
        if last != Some(bits) {
            table.insert(bits);
            if table.len > max {
                return None;
            }
            last = Some(bits);
        }
    }
    let mut dict: Vec<f64> = table.keys().map(f64::from_bits).collect();
    dict.sort_by(f64::total_cmp);
    for (i, w) in dict.iter().enumerate() {
        table.set(w.to_bits(), i as u16);
    }
    let codes = weights.iter().map(|w| table.get(w.to_bits())).collect();
    Some((dict, codes))
}

/// Open addressing on the bit patterns of finite weights; `EMPTY` (a NaN
/// pattern) marks a free slot. Kept at most half full.
struct Table {
    keys: Vec<u64>,
    values: Vec<u16>,
    len: usize,
}

const EMPTY: u64 = u64::MAX;

impl Table {
    fn new() -> Self {
        Table {
            keys: vec![EMPTY; 64],
            values: vec![0; 64],
            len: 0,
        }
    }

    #[inline]
    fn slot(&self, bits: u64) -> usize {
        let mask = self.keys.len() - 1;
        let mut i = (bits.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as usize & mask;
        while self.keys[i] != EMPTY && self.keys[i] != bits {
            i = (i + 1) & mask;
        }
        i
    }

    fn insert(&mut self, bits: u64) {
        let i = self.slot(bits);
        if self.keys[i] == EMPTY {
            self.keys[i] = bits;
            self.len += 1;
            if 2 * self.len > self.keys.len() {
                self.grow();
            }
        }
    }

    fn grow(&mut self) {
        let size = 2 * self.keys.len();
        let old = std::mem::replace(&mut self.keys, vec![EMPTY; size]);
        self.values = vec![0; self.keys.len()];
        for k in old.into_iter().filter(|&k| k != EMPTY) {
            let i = self.slot(k);
            self.keys[i] = k;
        }
    }

    fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        self.keys.iter().copied().filter(|&k| k != EMPTY)
    }

    fn set(&mut self, bits: u64, value: u16) {
        let i = self.slot(bits);
        self.values[i] = value;
    }

    #[inline]
    fn get(&self, bits: u64) -> u16 {
        self.values[self.slot(bits)]
    }
}
