//! The byte layout of a segment file: constants, the fixed header, and the
//! section layout both the writer and the reader derive from the counts.
//!
//! `docs/FORMAT.md` is the prose version of this file; the two must change
//! together. The header is encoded field by field with explicit
//! little-endian conversions (rather than cast from a `repr(C)` struct) so
//! that the byte offsets in the document are visibly the ones in the code.

use crate::error::{Error, Result};

/// First eight bytes of every segment file. The leading non-ASCII byte and
/// the trailing CR LF catch files mangled by 7-bit or text-mode transfers,
/// the same trick PNG uses.
pub(crate) const MAGIC: [u8; 8] = *b"\x89SGCSR\r\n";

/// The format version this build writes, and the newest it reads.
/// Version 2 added dictionary-coded weights (`FLAG_CODED`, the `codes`
/// section and `dict_count`), version 3 packed destinations
/// (`FLAG_PACKED`, the `lists` section), version 4 pivot marks
/// (`FLAG_PIVOTS`, the `pivots` section and `pivot_count`), version 5
/// sparse rows (`FLAG_SPARSE`, the `present` section and
/// `present_count`); an older file reads as a version-5 file without them.
pub(crate) const VERSION: u32 = 5;
/// The oldest format version this build reads.
pub(crate) const OLDEST_VERSION: u32 = 1;

/// Size of the fixed header. Room is left after the fields so that a later
/// version can add fields without moving the first section.
pub(crate) const HEADER_LEN: usize = 256;

/// Every section and the checksum table start at a multiple of this, so a
/// column is aligned for any element type and starts on a cache line.
pub(crate) const ALIGN: u64 = 64;

/// Default checksum block: large enough that the table is tiny (4 bytes per
/// 64 KiB), small enough that `verify` can name the damaged region.
pub(crate) const DEFAULT_BLOCK_SIZE: u32 = 64 * 1024;
/// Smallest block size a file may declare.
pub(crate) const MIN_BLOCK_SIZE: u32 = 64;
/// Largest block size a file may declare.
pub(crate) const MAX_BLOCK_SIZE: u32 = 1 << 30;

/// Timestamp bit marking a tombstone in the `stamps` column.
pub(crate) const TOMB_BIT: u64 = 1 << 63;
/// The commit-timestamp part of a stamp.
pub(crate) const TS_MASK: u64 = TOMB_BIT - 1;

/// Flag: the segment holds in-edges (clear: out-edges).
pub(crate) const FLAG_IN: u32 = 1 << 0;
/// Flag: the `weights` section is present.
pub(crate) const FLAG_WEIGHTED: u32 = 1 << 1;
/// Flag: the timestamp side table is present (`stamp_count > 0`).
pub(crate) const FLAG_STAMPS: u32 = 1 << 2;
/// Flag: some stamp is a tombstone.
pub(crate) const FLAG_TOMBS: u32 = 1 << 3;
/// Flag: some vertex lists one destination more than once (versions).
pub(crate) const FLAG_MULTI: u32 = 1 << 4;
/// Flag (version 2): the weights are dictionary-coded: the `weights`
/// section holds the distinct weights, `codes` one index per entry.
pub(crate) const FLAG_CODED: u32 = 1 << 5;
/// Every flag version 1 defines.
pub(crate) const KNOWN_FLAGS_V1: u32 =
    FLAG_IN | FLAG_WEIGHTED | FLAG_STAMPS | FLAG_TOMBS | FLAG_MULTI;
/// Flag (version 3): the destinations are packed (`pack.rs`): `dsts`
/// holds each vertex's list encoded, `lists` where each starts.
pub(crate) const FLAG_PACKED: u32 = 1 << 6;
/// Every flag version 2 defines.
pub(crate) const KNOWN_FLAGS_V2: u32 = KNOWN_FLAGS_V1 | FLAG_CODED;
/// Every flag version 3 defines.
pub(crate) const KNOWN_FLAGS_V3: u32 = KNOWN_FLAGS_V2 | FLAG_PACKED;
/// Flag (version 4): the `pivots` section lists pivot marks: vertices
/// whose whole list, as of a timestamp, this segment holds (with the
/// sources above it), so a read at or after that timestamp stops here
/// (`crate::pivot`).
pub(crate) const FLAG_PIVOTS: u32 = 1 << 7;
/// Every flag version 4 defines.
pub(crate) const KNOWN_FLAGS_V4: u32 = KNOWN_FLAGS_V3 | FLAG_PIVOTS;
/// Flag (version 5): only the vertices the `present` section lists have a
/// row in `offsets` (and `lists`); every other vertex of the range has no
/// entries. A flush's run holds a few vertices of a range spanning the
/// graph, where one offset a vertex would outweigh its entries.
pub(crate) const FLAG_SPARSE: u32 = 1 << 8;
/// Every flag version 5 defines; any other bit set is refused.
pub(crate) const KNOWN_FLAGS: u32 = KNOWN_FLAGS_V4 | FLAG_SPARSE;

/// Most distinct weights a dictionary holds: codes are at most 16 bits.
pub(crate) const MAX_DICT: u32 = 1 << 16;
/// Most distinct weights whose codes fit one byte.
pub(crate) const MAX_BYTE_DICT: u32 = 1 << 8;

// Header field offsets (bytes from the start of the file).
pub(crate) const OFF_MAGIC: usize = 0;
pub(crate) const OFF_VERSION: usize = 8;
pub(crate) const OFF_HEADER_LEN: usize = 12;
pub(crate) const OFF_FLAGS: usize = 16;
pub(crate) const OFF_BLOCK_SIZE: usize = 20;
pub(crate) const OFF_LO: usize = 24;
pub(crate) const OFF_HI: usize = 28;
pub(crate) const OFF_ENTRY_COUNT: usize = 32;
pub(crate) const OFF_STAMP_COUNT: usize = 40;
pub(crate) const OFF_MAX_TS: usize = 48;
pub(crate) const OFF_FILE_LEN: usize = 56;
/// Start of the section directory: `(offset: u64, len: u64)` for each of
/// the five version-1 sections in [`Section`] order, then the checksum
/// table's pair. The `codes` section's pair sits after `dict_count`.
pub(crate) const OFF_SECTIONS: usize = 64;
pub(crate) const OFF_TABLE: usize = OFF_SECTIONS + 16 * 5;
pub(crate) const OFF_TABLE_CRC: usize = OFF_TABLE + 16;
/// Version 2: the number of distinct weights in the dictionary (0 unless
/// `FLAG_CODED`).
pub(crate) const OFF_DICT_COUNT: usize = OFF_TABLE_CRC + 4;
/// Version 2: the `codes` section's `(offset, len)`.
pub(crate) const OFF_CODES: usize = OFF_DICT_COUNT + 4;
/// Version 3: the `lists` section's `(offset, len)`.
pub(crate) const OFF_LISTS: usize = OFF_CODES + 16;
/// Version 4: the `pivots` section's `(offset, len)`.
pub(crate) const OFF_PIVOTS: usize = OFF_LISTS + 16;
/// Version 4: the number of pivot marks (0 unless `FLAG_PIVOTS`).
pub(crate) const OFF_PIVOT_COUNT: usize = OFF_PIVOTS + 16;
/// Version 5: the `present` section's `(offset, len)`.
pub(crate) const OFF_PRESENT: usize = OFF_PIVOT_COUNT + 8;
/// Version 5: the number of vertices with a row (0 unless `FLAG_SPARSE`).
pub(crate) const OFF_PRESENT_COUNT: usize = OFF_PRESENT + 16;
/// Reserved bytes (zero) run from here to the header crc; in version 1
/// they start at `OFF_DICT_COUNT`, in version 2 at `OFF_LISTS`, in
/// version 3 at `OFF_PIVOTS`, in version 4 at `OFF_PRESENT`.
pub(crate) const OFF_RESERVED: usize = OFF_PRESENT_COUNT + 8;
pub(crate) const OFF_HEADER_CRC: usize = HEADER_LEN - 4;

/// The data sections, in file order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Offsets = 0,
    Dsts = 1,
    StampIdx = 2,
    Stamps = 3,
    /// Every entry's weight, or (coded) the dictionary of distinct weights.
    Weights = 4,
    /// Version 2, coded weights only: each entry's index into the
    /// dictionary, one byte wide for up to 256 distinct weights, else two.
    Codes = 5,
    /// Version 3, packed destinations only: where each vertex's packed
    /// list starts in `dsts` (one `u32` per vertex and one more).
    Lists = 6,
    /// Version 4: pivot marks, two `u64`s each (vertex, timestamp),
    /// ascending by vertex.
    Pivots = 7,
    /// Version 5, sparse rows only: per 64 vertices of the range, a word
    /// of bits (which of them have a row) and the rows before it, two
    /// `u64`s.
    Present = 8,
}

pub(crate) const SECTION_COUNT: usize = 9;

impl Section {
    pub(crate) const ALL: [Section; SECTION_COUNT] = [
        Section::Offsets,
        Section::Dsts,
        Section::StampIdx,
        Section::Stamps,
        Section::Weights,
        Section::Codes,
        Section::Lists,
        Section::Pivots,
        Section::Present,
    ];

    pub(crate) fn name(self) -> &'static str {
        match self {
            Section::Offsets => "offsets",
            Section::Dsts => "dsts",
            Section::StampIdx => "stamp_idx",
            Section::Stamps => "stamps",
            Section::Weights => "weights",
            Section::Codes => "codes",
            Section::Lists => "lists",
            Section::Pivots => "pivots",
            Section::Present => "present",
        }
    }

    /// Where this section's `(offset, len)` pair sits in the header.
    pub(crate) fn header_offset(self) -> usize {
        match self {
            Section::Codes => OFF_CODES,
            Section::Lists => OFF_LISTS,
            Section::Pivots => OFF_PIVOTS,
            Section::Present => OFF_PRESENT,
            s => OFF_SECTIONS + 16 * s as usize,
        }
    }
}

/// How a segment keeps its weights.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WeightForm {
    /// Every weight is 1.0; nothing is stored.
    None,
    /// One `f64` per entry.
    Raw,
    /// `dict` distinct weights (`1..=MAX_DICT`) and one code per entry.
    Coded { dict: u32 },
}

impl WeightForm {
    /// Bytes of one code: 1 for up to 256 distinct weights, else 2.
    pub(crate) fn code_width(dict: u32) -> u64 {
        if dict <= MAX_BYTE_DICT {
            1
        } else {
            2
        }
    }

    /// The flag bits this form sets.
    pub(crate) fn flags(self) -> u32 {
        match self {
            WeightForm::None => 0,
            WeightForm::Raw => FLAG_WEIGHTED,
            WeightForm::Coded { .. } => FLAG_WEIGHTED | FLAG_CODED,
        }
    }

    /// The header's `dict_count` for this form.
    pub(crate) fn dict_count(self) -> u32 {
        match self {
            WeightForm::Coded { dict } => dict,
            _ => 0,
        }
    }
}

/// A byte range of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Extent {
    pub offset: u64,
    pub len: u64,
}

impl Extent {
    pub(crate) fn end(self) -> u64 {
        self.offset.saturating_add(self.len)
    }

    /// As a `usize` range, if it fits the address space.
    #[inline]
    pub(crate) fn range(self) -> Option<std::ops::Range<usize>> {
        let start = usize::try_from(self.offset).ok()?;
        let end = usize::try_from(self.offset.checked_add(self.len)?).ok()?;
        Some(start..end)
    }
}

/// Everything the header records (a version-1 header as version 2 reads
/// it: no codes, `dict_count` 0).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Header {
    pub flags: u32,
    pub block_size: u32,
    pub lo: u32,
    pub hi: u32,
    pub entry_count: u64,
    pub stamp_count: u64,
    pub max_ts: u64,
    pub file_len: u64,
    pub sections: [Extent; SECTION_COUNT],
    pub table: Extent,
    pub table_crc: u32,
    /// Distinct weights in the dictionary; 0 unless `FLAG_CODED`.
    pub dict_count: u32,
    /// Pivot marks in the `pivots` section; 0 unless `FLAG_PIVOTS`.
    pub pivot_count: u64,
    /// Vertices with a row; 0 unless `FLAG_SPARSE`.
    pub present_count: u64,
}

pub(crate) fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// Number of checksum blocks covering `data_len` bytes.
pub(crate) fn block_count(data_len: u64, block_size: u32) -> u64 {
    data_len.div_ceil(u64::from(block_size.max(1)))
}

/// The counts a header gives, from which every section's length follows.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Counts {
    pub vertices: u64,
    pub entries: u64,
    pub stamps: u64,
    pub weights: WeightForm,
    /// The byte length of a packed `dsts` section (slack included),
    /// `None` when the destinations are plain `u32`s.
    pub packed: Option<u64>,
    pub pivots: u64,
    /// With sparse rows, how many vertices have one; `None` when every
    /// vertex does.
    pub present: Option<u64>,
}

/// Vertices one record of the `present` section covers.
pub(crate) const PRESENT_SPAN: u64 = 64;

/// Bytes of the `present` section for a range of `vertices`: a record of
/// 16 bytes per 64 of them.
pub(crate) fn present_bytes(vertices: u64) -> u64 {
    16 * vertices.div_ceil(PRESENT_SPAN)
}

/// The byte length each section must have.
pub(crate) fn expected_bytes(section: Section, c: Counts) -> u64 {
    let Counts {
        vertices,
        entries,
        stamps,
        weights,
        packed,
        pivots,
        present,
    } = c;
    let rows = present.unwrap_or(vertices);
    match (section, weights) {
        (Section::Pivots, _) => 16 * pivots,
        (Section::Present, _) if present.is_some() => present_bytes(vertices),
        (Section::Present, _) => 0,
        (Section::Offsets, _) => 4 * (rows + 1),
        (Section::Dsts, _) => packed.unwrap_or(4 * entries),
        (Section::Lists, _) if packed.is_some() => 4 * (rows + 1),
        (Section::Lists, _) => 0,
        (Section::StampIdx, _) => 4 * stamps,
        (Section::Stamps, _) => 8 * stamps,
        (Section::Weights, WeightForm::Raw) => 8 * entries,
        (Section::Weights, WeightForm::Coded { dict }) => 8 * u64::from(dict),
        (Section::Codes, WeightForm::Coded { dict }) => entries * WeightForm::code_width(dict),
        (Section::Weights | Section::Codes, _) => 0,
    }
}

/// The canonical layout a writer produces for the given counts: sections in
/// order, each at the next aligned offset, then the checksum table.
/// Returns `(sections, table, file_len)`.
pub(crate) fn layout(counts: Counts, block_size: u32) -> ([Extent; SECTION_COUNT], Extent, u64) {
    let mut sections = [Extent::default(); SECTION_COUNT];
    let mut pos = HEADER_LEN as u64;
    for s in Section::ALL {
        let offset = align_up(pos, ALIGN);
        let len = expected_bytes(s, counts);
        sections[s as usize] = Extent { offset, len };
        pos = offset + len;
    }
    let table_offset = align_up(pos, ALIGN);
    let blocks = block_count(table_offset - HEADER_LEN as u64, block_size);
    let table = Extent {
        offset: table_offset,
        len: 4 * blocks,
    };
    (sections, table, table.end())
}

fn put_u32(buf: &mut [u8; HEADER_LEN], at: usize, v: u32) {
    buf[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn put_u64(buf: &mut [u8; HEADER_LEN], at: usize, v: u64) {
    buf[at..at + 8].copy_from_slice(&v.to_le_bytes());
}

fn get_u32(buf: &[u8; HEADER_LEN], at: usize) -> u32 {
    crate::util::le::u32_at(buf, at)
}

fn get_u64(buf: &[u8; HEADER_LEN], at: usize) -> u64 {
    crate::util::le::u64_at(buf, at)
}

/// The entry count recorded in a header, without checking anything else
/// (for a writer's own freshly finished output).
pub(crate) fn entry_count_of(bytes: &[u8]) -> Option<u64> {
    let b = bytes.get(OFF_ENTRY_COUNT..OFF_ENTRY_COUNT + 8)?;
    Some(u64::from_le_bytes(b.try_into().ok()?))
}

pub(crate) fn corrupt(file: &str, offset: u64, what: impl Into<String>) -> Error {
    Error::Corrupt {
        file: file.to_string(),
        offset,
        what: what.into(),
    }
}

impl Header {
    /// The header bytes, its own crc included.
    pub(crate) fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[OFF_MAGIC..OFF_MAGIC + 8].copy_from_slice(&MAGIC);
        put_u32(&mut b, OFF_VERSION, VERSION);
        put_u32(&mut b, OFF_HEADER_LEN, HEADER_LEN as u32);
        put_u32(&mut b, OFF_FLAGS, self.flags);
        put_u32(&mut b, OFF_BLOCK_SIZE, self.block_size);
        put_u32(&mut b, OFF_LO, self.lo);
        put_u32(&mut b, OFF_HI, self.hi);
        put_u64(&mut b, OFF_ENTRY_COUNT, self.entry_count);
        put_u64(&mut b, OFF_STAMP_COUNT, self.stamp_count);
        put_u64(&mut b, OFF_MAX_TS, self.max_ts);
        put_u64(&mut b, OFF_FILE_LEN, self.file_len);
        for s in Section::ALL {
            let e = self.sections[s as usize];
            put_u64(&mut b, s.header_offset(), e.offset);
            put_u64(&mut b, s.header_offset() + 8, e.len);
        }
        put_u64(&mut b, OFF_TABLE, self.table.offset);
        put_u64(&mut b, OFF_TABLE + 8, self.table.len);
        put_u32(&mut b, OFF_TABLE_CRC, self.table_crc);
        put_u32(&mut b, OFF_DICT_COUNT, self.dict_count);
        put_u64(&mut b, OFF_PIVOT_COUNT, self.pivot_count);
        put_u64(&mut b, OFF_PRESENT_COUNT, self.present_count);
        let crc = crc32c::crc32c(&b[..OFF_HEADER_CRC]);
        put_u32(&mut b, OFF_HEADER_CRC, crc);
        b
    }

    /// Parses and checks the header found at the start of `bytes`, a file of
    /// `bytes.len()` bytes named `file`. Checks everything that can be
    /// checked without reading the sections: identity, integrity, that every
    /// field is in range and consistent with the others, and that the
    /// sections and table lie inside the file in order and aligned.
    pub(crate) fn decode(bytes: &[u8], file: &str) -> Result<Header> {
        let actual = bytes.len() as u64;
        if let Some(m) = bytes.get(..8) {
            if m != MAGIC {
                return Err(corrupt(file, 0, "bad magic: not a stratagraph CSR segment"));
            }
        }
        let Some(head) = bytes.get(..HEADER_LEN) else {
            return Err(corrupt(
                file,
                actual,
                format!("truncated: the file ends before the end of the {HEADER_LEN}-byte header"),
            ));
        };
        let mut b = [0u8; HEADER_LEN];
        b.copy_from_slice(head);
        // The version is looked at before the crc: a newer writer may lay out
        // its header differently, and its files should read as "too new"
        // rather than "damaged".
        let version = get_u32(&b, OFF_VERSION);
        if !(OLDEST_VERSION..=VERSION).contains(&version) {
            return Err(Error::UnsupportedFormat {
                file: file.to_string(),
                found: version,
                supported: VERSION,
            });
        }
        let stored_crc = get_u32(&b, OFF_HEADER_CRC);
        if crc32c::crc32c(&b[..OFF_HEADER_CRC]) != stored_crc {
            return Err(corrupt(
                file,
                OFF_HEADER_CRC as u64,
                "header checksum mismatch",
            ));
        }
        let (reserved, known) = match version {
            1 => (OFF_DICT_COUNT, KNOWN_FLAGS_V1),
            2 => (OFF_LISTS, KNOWN_FLAGS_V2),
            3 => (OFF_PIVOTS, KNOWN_FLAGS_V3),
            4 => (OFF_PRESENT, KNOWN_FLAGS_V4),
            _ => (OFF_RESERVED, KNOWN_FLAGS),
        };
        if let Some(i) = b[reserved..OFF_HEADER_CRC].iter().position(|&x| x != 0) {
            return Err(corrupt(
                file,
                (reserved + i) as u64,
                "reserved header byte is not zero",
            ));
        }
        let header_len = get_u32(&b, OFF_HEADER_LEN);
        if header_len as usize != HEADER_LEN {
            return Err(corrupt(
                file,
                OFF_HEADER_LEN as u64,
                format!("header length {header_len}, version {version} requires {HEADER_LEN}"),
            ));
        }
        let mut sections = [Extent::default(); SECTION_COUNT];
        for s in Section::ALL {
            sections[s as usize] = Extent {
                offset: get_u64(&b, s.header_offset()),
                len: get_u64(&b, s.header_offset() + 8),
            };
        }
        // Sections an older version lacks: empty, where they would start,
        // which the order and alignment rules below accept.
        for (since, s, before) in [
            (2, Section::Codes, Section::Weights),
            (3, Section::Lists, Section::Codes),
            (4, Section::Pivots, Section::Lists),
            (5, Section::Present, Section::Pivots),
        ] {
            if version < since {
                let prev = sections[before as usize];
                sections[s as usize] = Extent {
                    offset: align_up(prev.end(), ALIGN),
                    len: 0,
                };
            }
        }
        let h = Header {
            flags: get_u32(&b, OFF_FLAGS),
            block_size: get_u32(&b, OFF_BLOCK_SIZE),
            lo: get_u32(&b, OFF_LO),
            hi: get_u32(&b, OFF_HI),
            entry_count: get_u64(&b, OFF_ENTRY_COUNT),
            stamp_count: get_u64(&b, OFF_STAMP_COUNT),
            max_ts: get_u64(&b, OFF_MAX_TS),
            file_len: get_u64(&b, OFF_FILE_LEN),
            sections,
            table: Extent {
                offset: get_u64(&b, OFF_TABLE),
                len: get_u64(&b, OFF_TABLE + 8),
            },
            table_crc: get_u32(&b, OFF_TABLE_CRC),
            dict_count: get_u32(&b, OFF_DICT_COUNT),
            pivot_count: if version < 4 {
                0
            } else {
                get_u64(&b, OFF_PIVOT_COUNT)
            },
            present_count: if version < 5 {
                0
            } else {
                get_u64(&b, OFF_PRESENT_COUNT)
            },
        };
        h.check(file, actual, known)?;
        Ok(h)
    }

    /// Field-level consistency, including the file length.
    fn check(&self, file: &str, actual: u64, known_flags: u32) -> Result<()> {
        let bad = |at: usize, what: String| Err(corrupt(file, at as u64, what));
        if self.file_len != actual {
            // A short file is the common case (torn copy): name its end.
            let offset = actual.min(self.file_len);
            return Err(corrupt(
                file,
                offset,
                format!(
                    "file is {actual} bytes but its header records {} bytes{}",
                    self.file_len,
                    if actual < self.file_len {
                        " (truncated)"
                    } else {
                        ""
                    }
                ),
            ));
        }
        if self.flags & !known_flags != 0 {
            return bad(
                OFF_FLAGS,
                format!("unknown flag bits {:#x}", self.flags & !known_flags),
            );
        }
        if !self.block_size.is_power_of_two()
            || !(MIN_BLOCK_SIZE..=MAX_BLOCK_SIZE).contains(&self.block_size)
        {
            return bad(
                OFF_BLOCK_SIZE,
                format!("checksum block size {} is not a power of two in [{MIN_BLOCK_SIZE}, {MAX_BLOCK_SIZE}]", self.block_size),
            );
        }
        if self.hi < self.lo {
            return bad(
                OFF_HI,
                format!("vertex range end {} below its start {}", self.hi, self.lo),
            );
        }
        if self.entry_count > u64::from(u32::MAX) {
            return bad(
                OFF_ENTRY_COUNT,
                format!(
                    "entry count {} does not fit the u32 offsets",
                    self.entry_count
                ),
            );
        }
        if self.stamp_count > self.entry_count {
            return bad(
                OFF_STAMP_COUNT,
                format!(
                    "stamp count {} exceeds entry count {}",
                    self.stamp_count, self.entry_count
                ),
            );
        }
        let has_stamps = self.flags & FLAG_STAMPS != 0;
        if has_stamps != (self.stamp_count > 0) {
            return bad(
                OFF_FLAGS,
                "stamp flag disagrees with the stamp count".into(),
            );
        }
        if !has_stamps && self.flags & (FLAG_TOMBS | FLAG_MULTI) != 0 {
            return bad(
                OFF_FLAGS,
                "tombstone or multi-version flag without stamps".into(),
            );
        }
        if !has_stamps && self.max_ts != 0 {
            return bad(OFF_MAX_TS, format!("max_ts {} without stamps", self.max_ts));
        }
        let weights = self.weight_form();
        if self.flag(FLAG_CODED) && !self.flag(FLAG_WEIGHTED) {
            return bad(OFF_FLAGS, "coded flag without the weighted flag".into());
        }
        match weights {
            WeightForm::Coded { dict } if !(1..=MAX_DICT).contains(&dict) => {
                return bad(
                    OFF_DICT_COUNT,
                    format!("dictionary of {dict} weights is not 1 to {MAX_DICT}"),
                );
            }
            WeightForm::None | WeightForm::Raw if self.dict_count != 0 => {
                return bad(
                    OFF_DICT_COUNT,
                    format!(
                        "dictionary of {} weights without the coded flag",
                        self.dict_count
                    ),
                );
            }
            _ => {}
        }
        let vertices = u64::from(self.hi - self.lo);
        if self.flag(FLAG_PIVOTS) != (self.pivot_count > 0) {
            return bad(
                OFF_FLAGS,
                "pivot flag disagrees with the pivot count".into(),
            );
        }
        if self.pivot_count > vertices {
            return bad(
                OFF_PIVOT_COUNT,
                format!(
                    "{} pivot marks for {vertices} vertices (at most one each)",
                    self.pivot_count
                ),
            );
        }
        let sparse = self.flag(FLAG_SPARSE);
        if sparse && self.present_count > vertices {
            return bad(
                OFF_PRESENT_COUNT,
                format!(
                    "{} vertices with a row in a range of {vertices}",
                    self.present_count
                ),
            );
        }
        if !sparse && self.present_count != 0 {
            return bad(
                OFF_PRESENT_COUNT,
                format!(
                    "{} vertices with a row without the sparse flag",
                    self.present_count
                ),
            );
        }
        let packed = self
            .flag(FLAG_PACKED)
            .then(|| self.section(Section::Dsts).len);
        if packed.is_some_and(|len| len < crate::csr::pack::SLACK as u64) {
            return bad(
                Section::Dsts.header_offset() + 8,
                format!(
                    "packed destinations section is shorter than its {}-byte slack",
                    crate::csr::pack::SLACK
                ),
            );
        }
        let mut prev_end = HEADER_LEN as u64;
        for s in Section::ALL {
            let e = self.sections[s as usize];
            let at = s.header_offset();
            let want = expected_bytes(
                s,
                Counts {
                    vertices,
                    entries: self.entry_count,
                    stamps: self.stamp_count,
                    weights,
                    packed,
                    pivots: self.pivot_count,
                    present: sparse.then_some(self.present_count),
                },
            );
            if e.len != want {
                return bad(
                    at + 8,
                    format!("{} section is {} bytes, expected {want}", s.name(), e.len),
                );
            }
            if !e.offset.is_multiple_of(ALIGN) || e.offset < prev_end {
                return bad(
                    at,
                    format!(
                        "{} section offset {} is not {ALIGN}-aligned at or after {prev_end}",
                        s.name(),
                        e.offset
                    ),
                );
            }
            prev_end = e.offset.checked_add(e.len).ok_or_else(|| {
                corrupt(file, at as u64, format!("{} section overflows", s.name()))
            })?;
        }
        let t = self.table;
        if !t.offset.is_multiple_of(ALIGN) || t.offset < prev_end {
            return bad(
                OFF_TABLE,
                format!(
                    "checksum table offset {} is not {ALIGN}-aligned at or after {prev_end}",
                    t.offset
                ),
            );
        }
        let blocks = block_count(t.offset - HEADER_LEN as u64, self.block_size);
        if t.len != 4 * blocks {
            return bad(
                OFF_TABLE + 8,
                format!(
                    "checksum table is {} bytes, {blocks} blocks need {}",
                    t.len,
                    4 * blocks
                ),
            );
        }
        if t.offset.checked_add(t.len) != Some(self.file_len) {
            return bad(
                OFF_FILE_LEN,
                format!(
                    "file length {} is not the end of the checksum table",
                    self.file_len
                ),
            );
        }
        Ok(())
    }

    #[inline]
    pub(crate) fn section(&self, s: Section) -> Extent {
        self.sections[s as usize]
    }

    #[inline]
    pub(crate) fn flag(&self, f: u32) -> bool {
        self.flags & f != 0
    }

    /// How the weights are kept, from the flags and `dict_count`.
    pub(crate) fn weight_form(&self) -> WeightForm {
        if !self.flag(FLAG_WEIGHTED) {
            WeightForm::None
        } else if self.flag(FLAG_CODED) {
            WeightForm::Coded {
                dict: self.dict_count,
            }
        } else {
            WeightForm::Raw
        }
    }
}
