//! Building a segment: vertices arrive in ascending order with their sorted
//! entries; `finish` lays the columns out as a buffer or streams them to a
//! file.
//!
//! Input is checked as it arrives and a refused `push_vertex` leaves the
//! writer as it was, so a bug upstream surfaces as a typed error at the
//! vertex that caused it instead of as a file that `verify` later rejects.

use super::format::{
    self, Header, Section, WeightForm, ALIGN, DEFAULT_BLOCK_SIZE, FLAG_IN, FLAG_MULTI, FLAG_PACKED,
    FLAG_PIVOTS, FLAG_SPARSE, FLAG_STAMPS, FLAG_TOMBS, HEADER_LEN, MAX_BLOCK_SIZE, MAX_BYTE_DICT,
    MAX_DICT, MIN_BLOCK_SIZE, PRESENT_SPAN, TOMB_BIT, TS_MASK,
};
use super::storage::SegmentBytes;
use super::{pack, Encoding, SegEntry};
use crate::direction::Direction;
use crate::error::{Error, Result};
use crate::util::files::write_atomically;
use std::borrow::Cow;
use std::io::{Seek, Write};
use std::path::Path;

/// Accumulates one segment's columns in memory.
#[derive(Debug)]
pub(crate) struct SegmentWriter {
    lo: u32,
    direction: Direction,
    block_size: u32,
    /// Each vertex pushed, as (`v - lo`, its first entry); the vertices
    /// between them are empty. A flush pushes the few vertices it has
    /// versions of into a segment spanning every vertex, so a column of one
    /// offset a vertex would cost 4 bytes a vertex of the graph (67 MB at
    /// 2^24 vertices) where this costs 8 bytes a vertex pushed; the file
    /// gets rows for these vertices only (`FLAG_SPARSE`) when that is
    /// smaller, else one offset a vertex, laid out as it is written
    /// (`Offsets`).
    starts: Vec<[u32; 2]>,
    /// The first vertex not yet pushed or skipped.
    next: u64,
    dsts: Vec<u32>,
    stamp_idx: Vec<u32>,
    stamps: Vec<u64>,
    /// Stays empty until the first weight other than 1.0 arrives, so an
    /// unweighted segment costs nothing for weights while it is built.
    weights: Vec<f64>,
    max_ts: u64,
    tombs: bool,
    multi: bool,
    /// What to compress where that is smaller.
    encoding: Encoding,
    /// Entry capacity; `u32::MAX` except in tests of the limit.
    max_entries: u64,
    /// Pivot marks so far, (vertex, timestamp), ascending by vertex.
    pivots: Vec<[u64; 2]>,
}

fn refuse(vertex: u32, what: impl Into<String>) -> Error {
    Error::InvalidSegmentInput {
        vertex,
        what: what.into(),
    }
}

impl SegmentWriter {
    /// A writer for the segment starting at vertex `lo`.
    pub(crate) fn new(lo: u32, direction: Direction) -> Self {
        SegmentWriter {
            lo,
            direction,
            block_size: DEFAULT_BLOCK_SIZE,
            starts: Vec::new(),
            next: u64::from(lo),
            dsts: Vec::new(),
            stamp_idx: Vec::new(),
            stamps: Vec::new(),
            weights: Vec::new(),
            max_ts: 0,
            tombs: false,
            multi: false,
            encoding: Encoding::PLAIN,
            max_entries: u64::from(u32::MAX),
            pivots: Vec::new(),
        }
    }

    /// What to compress where that makes the file smaller (nothing by
    /// default; see `Encoding`).
    pub(crate) fn encoding(mut self, encoding: Encoding) -> Self {
        self.encoding = encoding;
        self
    }

    #[cfg(test)] // used by the format tests only
    /// Uses checksum blocks of `bytes` bytes (a power of two in
    /// [64, 2^30]; checked by `finish`). Small blocks let tests put many
    /// blocks in a small file.
    pub(crate) fn with_block_size(mut self, bytes: u32) -> Self {
        self.block_size = bytes;
        self
    }

    #[cfg(test)]
    pub(crate) fn with_max_entries(mut self, n: u64) -> Self {
        self.max_entries = n;
        self
    }

    /// The first vertex not yet pushed or skipped.
    fn next_vertex(&self) -> u64 {
        self.next
    }

    /// Whether no entry has been pushed.
    pub(crate) fn is_empty(&self) -> bool {
        self.dsts.is_empty()
    }

    #[cfg(test)] // used by the format tests only
    pub(crate) fn entry_count(&self) -> usize {
        self.dsts.len()
    }

    /// Appends vertex `v` with `entries`, sorted by destination ascending
    /// with the versions of one destination adjacent and strictly newest
    /// first. Vertices between the previous one and `v` get empty lists.
    pub(crate) fn push_vertex(&mut self, v: u32, entries: &[SegEntry]) -> Result<()> {
        let next = self.next_vertex();
        if u64::from(v) < next {
            return Err(refuse(
                v,
                if v < self.lo {
                    format!("below the segment start {}", self.lo)
                } else {
                    format!(
                        "not ascending: vertices up to {} were already written",
                        next - 1
                    )
                },
            ));
        }
        if v == u32::MAX {
            return Err(refuse(
                v,
                "u32::MAX cannot be stored: a segment's end is exclusive",
            ));
        }
        if (self.dsts.len() + entries.len()) as u64 > self.max_entries {
            return Err(refuse(
                v,
                format!(
                    "segment would hold {} entries, more than the {} its u32 offsets can address",
                    self.dsts.len() + entries.len(),
                    self.max_entries
                ),
            ));
        }
        check_entries(v, entries)?;

        self.starts.push([v - self.lo, self.dsts.len() as u32]);
        self.next = u64::from(v) + 1;
        for (i, e) in entries.iter().enumerate() {
            let idx = self.dsts.len() as u32;
            self.dsts.push(e.dst);
            if e.ts != 0 {
                self.stamp_idx.push(idx);
                self.stamps.push(e.ts | if e.tomb { TOMB_BIT } else { 0 });
                self.max_ts = self.max_ts.max(e.ts);
                self.tombs |= e.tomb;
            }
            if i > 0 && entries[i - 1].dst == e.dst {
                self.multi = true;
            }
            if e.weight != 1.0 && self.weights.is_empty() {
                self.weights.resize(idx as usize, 1.0);
            }
            if !self.weights.is_empty() || e.weight != 1.0 {
                self.weights.push(e.weight);
            }
        }
        Ok(())
    }

    /// Marks `v`, already pushed, as a pivot as of `ts`: this segment and
    /// the sources above it hold `v`'s whole list for every snapshot at or
    /// after `ts` (`crate::pivot`). Marks go in ascending vertex order, at
    /// most one a vertex.
    pub(crate) fn mark_pivot(&mut self, v: u32, ts: u64) -> Result<()> {
        if u64::from(v) >= self.next_vertex() || v < self.lo {
            return Err(refuse(v, "pivot mark for a vertex not pushed yet"));
        }
        if let Some(&[last, _]) = self.pivots.last() {
            if u64::from(v) <= last {
                return Err(refuse(
                    v,
                    format!("pivot marks not ascending: vertex {last} was marked already"),
                ));
            }
        }
        if ts == 0 || ts > TS_MASK {
            return Err(refuse(v, format!("pivot timestamp {ts} out of range")));
        }
        self.pivots.push([u64::from(v), ts]);
        Ok(())
    }

    /// Checks that the segment can end at `hi`.
    fn check_end(&self, hi: u32) -> Result<()> {
        let next = self.next_vertex();
        if u64::from(hi) < next {
            return Err(refuse(
                hi,
                format!("segment end {hi} is below vertices already written (next is {next})"),
            ));
        }
        let bs = self.block_size;
        if !bs.is_power_of_two() || !(MIN_BLOCK_SIZE..=MAX_BLOCK_SIZE).contains(&bs) {
            return Err(refuse(
                hi,
                format!("checksum block size {bs} is not a power of two in [{MIN_BLOCK_SIZE}, {MAX_BLOCK_SIZE}]"),
            ));
        }
        Ok(())
    }

    /// The columns of the segment ending at `hi` (checked by `check_end`).
    fn view(&self, hi: u32) -> Columns<'_> {
        Columns {
            lo: self.lo,
            direction: self.direction,
            block_size: self.block_size,
            offsets: Offsets::Sparse {
                starts: &self.starts,
                vertices: hi - self.lo,
                total: self.dsts.len() as u32,
            },
            dsts: &self.dsts,
            stamp_idx: &self.stamp_idx,
            stamps: &self.stamps,
            weights: &self.weights,
            max_ts: self.max_ts,
            tombs: self.tombs,
            multi: self.multi,
            encoding: self.encoding,
            pivots: &self.pivots,
        }
    }

    /// Ends the segment at `hi` (exclusive) and returns its bytes; vertices
    /// after the last pushed one are empty.
    pub(crate) fn finish(self, hi: u32) -> Result<SegmentBytes> {
        self.check_end(hi)?;
        self.view(hi).bytes(hi)
    }

    /// As `finish`, but streams the segment into the file `path`
    /// (crash-safely, as `SegmentBytes::write_file`) rather than building
    /// its image in memory first; returns the file's length.
    pub(crate) fn finish_file(self, hi: u32, path: &Path) -> Result<u64> {
        self.check_end(hi)?;
        self.view(hi).write_file(hi, path)
    }
}

/// A segment's offset column: vertex `lo + i` owns entries
/// `offsets[i]..offsets[i + 1]`.
#[derive(Clone, Copy)]
enum Offsets<'a> {
    /// One offset a vertex and one more.
    Dense(&'a [u32]),
    /// The vertices pushed, as (`v - lo`, first entry), ascending; every
    /// other vertex of the `vertices` is empty, and `total` entries follow
    /// the last.
    Sparse {
        starts: &'a [[u32; 2]],
        vertices: u32,
        total: u32,
    },
}

impl Offsets<'_> {
    /// Offsets laid out a chunk at a time, so a sparse column is never
    /// whole in memory.
    const CHUNK: usize = 1 << 14;

    /// Calls `put` with the whole column in order, in chunks.
    fn each_chunk(
        &self,
        mut put: impl FnMut(&[u32]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let (starts, vertices, total) = match *self {
            Offsets::Dense(all) => return put(all),
            Offsets::Sparse {
                starts,
                vertices,
                total,
            } => (starts, vertices, total),
        };
        let mut buf: Vec<u32> = Vec::with_capacity(Self::CHUNK);
        // Vertex `i` starts where the first vertex pushed at or after it
        // does: the ones between are empty.
        let mut from = 0u32;
        for &[at, start] in starts.iter().chain(std::iter::once(&[vertices, total])) {
            let mut n = (at - from) as usize + 1;
            while n > 0 {
                let k = n.min(Self::CHUNK - buf.len());
                buf.resize(buf.len() + k, start);
                n -= k;
                if buf.len() == Self::CHUNK {
                    put(&buf)?;
                    buf.clear();
                }
            }
            from = at + 1;
        }
        if !buf.is_empty() {
            put(&buf)?;
        }
        Ok(())
    }

    /// The rows of a sparse layout (`FLAG_SPARSE`): the vertices pushed
    /// with entries, when the segment holds fewer entries than its range
    /// has vertices and the rows take fewer bytes than one offset a vertex.
    /// Only then are the offsets most of the segment's bytes: a flush's
    /// run, or a level holding a few runs. Where the entries outnumber the
    /// vertices (the deep levels), a vertex's row found through the
    /// `present` section would cost its reads a step (scans about a fifth
    /// more, at k20) to save a minor share of the file. Never for whole
    /// columns, which have a row for every vertex.
    fn sparse(&self) -> Option<SparseRows> {
        let Offsets::Sparse {
            starts,
            vertices,
            total,
        } = *self
        else {
            return None;
        };
        // Vertex `k` of `starts` has entries up to where the next starts.
        let ends = starts.iter().skip(1).map(|s| s[1]).chain([total]);
        let listed = || {
            starts
                .iter()
                .zip(ends.clone())
                .filter(|(s, end)| s[1] < *end)
        };
        let n = u64::from(vertices);
        if u64::from(total) >= n {
            return None;
        }
        let rows = listed().count() as u64;
        if format::present_bytes(n) + 4 * (rows + 1) >= 4 * (n + 1) {
            return None;
        }
        let (vertices_of_rows, mut offsets): (Vec<u32>, Vec<u32>) =
            listed().map(|(s, _)| (s[0], s[1])).unzip();
        offsets.push(total);
        Some(SparseRows {
            vertices: vertices_of_rows,
            offsets,
            span: vertices,
        })
    }

    /// The whole column (borrowed if it is one already).
    fn dense(&self) -> Cow<'_, [u32]> {
        match *self {
            Offsets::Dense(all) => Cow::Borrowed(all),
            Offsets::Sparse { .. } => {
                let mut all = Vec::new();
                let _ = self.each_chunk(|c| {
                    all.extend_from_slice(c);
                    Ok(())
                });
                Cow::Owned(all)
            }
        }
    }
}

/// The rows of a sparse segment: which vertices have one, and their
/// offsets.
struct SparseRows {
    /// Each row's vertex, as `v - lo`, ascending.
    vertices: Vec<u32>,
    /// One offset a row and one more.
    offsets: Vec<u32>,
    /// The vertices of the segment's range.
    span: u32,
}

impl SparseRows {
    /// Records of the `present` section laid out at a time.
    const CHUNK: usize = 1 << 10;

    /// Calls `put` with the `present` section in order, in chunks: per 64
    /// vertices of the range, the word of bits of those with a row, and
    /// the rows before it.
    fn each_present_chunk(
        &self,
        mut put: impl FnMut(&[[u64; 2]]) -> std::io::Result<()>,
    ) -> std::io::Result<()> {
        let words = u64::from(self.span).div_ceil(PRESENT_SPAN) as usize;
        let mut buf: Vec<[u64; 2]> = Vec::with_capacity(Self::CHUNK.min(words));
        let mut rows = self.vertices.iter().peekable();
        let mut before = 0u64;
        for w in 0..words {
            let end = (w as u64 + 1) * PRESENT_SPAN;
            let mut bits = 0u64;
            while let Some(&&i) = rows.peek() {
                if u64::from(i) >= end {
                    break;
                }
                bits |= 1 << (u64::from(i) % PRESENT_SPAN);
                rows.next();
            }
            buf.push([bits, before]);
            before += u64::from(bits.count_ones());
            if buf.len() == Self::CHUNK {
                put(&buf)?;
                buf.clear();
            }
        }
        if !buf.is_empty() {
            put(&buf)?;
        }
        Ok(())
    }
}

/// A segment's columns, borrowed: what a header describes and `emit` lays
/// out, from a `SegmentWriter` or from columns built elsewhere
/// (`write_columns`).
struct Columns<'a> {
    lo: u32,
    direction: Direction,
    block_size: u32,
    offsets: Offsets<'a>,
    dsts: &'a [u32],
    stamp_idx: &'a [u32],
    stamps: &'a [u64],
    weights: &'a [f64],
    max_ts: u64,
    tombs: bool,
    multi: bool,
    encoding: Encoding,
    /// Pivot marks, (vertex, timestamp).
    pivots: &'a [[u64; 2]],
}

/// A segment file's layout as `Columns::plan` chose it.
struct Plan {
    header: Header,
    stored: Stored,
    packed: Option<(Vec<u8>, Vec<u32>)>,
    sparse: Option<SparseRows>,
}

/// The weights as a file keeps them.
enum Stored {
    /// None (every weight 1.0) or one `f64` per entry.
    AsIs,
    /// The distinct weights and each entry's code, as the file's bytes.
    Coded { dict: Vec<f64>, codes: Vec<u8> },
}

impl Columns<'_> {
    /// How the weights go into the file: coded when asked and smaller
    /// than one `f64` per entry.
    fn stored_weights(&self) -> (WeightForm, Stored) {
        let n = self.weights.len();
        if n == 0 {
            return (WeightForm::None, Stored::AsIs);
        }
        let raw = (WeightForm::Raw, Stored::AsIs);
        if !self.encoding.code_weights {
            return raw;
        }
        let Some((dict, codes)) = super::weights::code(self.weights, MAX_DICT as usize) else {
            return raw;
        };
        let d = dict.len() as u32;
        let width = WeightForm::code_width(d) as usize;
        if 8 * dict.len() + width * n >= 8 * n {
            return raw;
        }
        let bytes = if d <= MAX_BYTE_DICT {
            codes.iter().map(|&c| c as u8).collect()
        } else {
            bytemuck::cast_slice(&codes).to_vec()
        };
        (
            WeightForm::Coded { dict: d },
            Stored::Coded { dict, codes: bytes },
        )
    }

    /// The destinations packed, with where each vertex's list starts and
    /// the slack after the last (`pack.rs`), when asked and smaller than
    /// four bytes an entry.
    fn packed_dsts(&self, sparse: Option<&SparseRows>) -> Option<(Vec<u8>, Vec<u32>)> {
        if !self.encoding.pack_dsts || self.dsts.is_empty() {
            return None;
        }
        let offsets = match sparse {
            Some(rows) => Cow::Borrowed(&rows.offsets[..]),
            None => self.offsets.dense(),
        };
        let mut bytes = Vec::with_capacity(self.dsts.len() * 5 / 2);
        let mut lists = Vec::with_capacity(offsets.len());
        for w in offsets.windows(2) {
            lists.push(u32::try_from(bytes.len()).ok()?);
            pack::encode(self.dsts.get(w[0] as usize..w[1] as usize)?, &mut bytes);
        }
        lists.push(u32::try_from(bytes.len()).ok()?);
        bytes.extend([0u8; pack::SLACK]);
        (bytes.len() + 4 * lists.len() < 4 * self.dsts.len()).then_some((bytes, lists))
    }

    /// The rows of a sparse layout, when asked and smaller (see
    /// `Offsets::sparse`).
    fn sparse_rows(&self) -> Option<SparseRows> {
        self.encoding
            .sparse_rows
            .then(|| self.offsets.sparse())
            .flatten()
    }

    /// The header of the segment ending at `hi`, every field but the
    /// table crc. The block size has been checked. `packed`: the byte
    /// length of packed destinations; `present`: the rows of a sparse
    /// layout.
    fn header(
        &self,
        hi: u32,
        weights: WeightForm,
        packed: Option<u64>,
        present: Option<u64>,
    ) -> Header {
        let pivot_count = self.pivots.len() as u64;
        let (sections, table, file_len) = format::layout(
            format::Counts {
                vertices: u64::from(hi - self.lo),
                entries: self.dsts.len() as u64,
                stamps: self.stamps.len() as u64,
                weights,
                packed,
                pivots: pivot_count,
                present,
            },
            self.block_size,
        );
        let mut flags = weights.flags();
        if packed.is_some() {
            flags |= FLAG_PACKED;
        }
        for (on, f) in [
            (self.direction == Direction::In, FLAG_IN),
            (!self.stamps.is_empty(), FLAG_STAMPS),
            (self.tombs, FLAG_TOMBS),
            (self.multi, FLAG_MULTI),
            (pivot_count > 0, FLAG_PIVOTS),
            (present.is_some(), FLAG_SPARSE),
        ] {
            if on {
                flags |= f;
            }
        }
        Header {
            flags,
            block_size: self.block_size,
            lo: self.lo,
            hi,
            entry_count: self.dsts.len() as u64,
            stamp_count: self.stamps.len() as u64,
            max_ts: self.max_ts,
            file_len,
            sections,
            table,
            table_crc: 0,
            dict_count: weights.dict_count(),
            pivot_count,
            present_count: present.unwrap_or(0),
        }
    }

    /// Streams the data sections and checksum table after the header, as
    /// `plan` lays them out; returns the table's crc.
    fn emit<W: Write>(&self, plan: &Plan, out: W) -> std::io::Result<u32> {
        let (h, stored) = (&plan.header, &plan.stored);
        let (packed, sparse) = (plan.packed.as_ref(), plan.sparse.as_ref());
        let mut w = BlockWriter::new(out, h.block_size);
        let (weights, codes): (&[u8], &[u8]) = match stored {
            Stored::AsIs => (bytemuck::cast_slice(self.weights), &[]),
            Stored::Coded { dict, codes } => (bytemuck::cast_slice(dict), codes),
        };
        let (dsts, lists): (&[u8], &[u8]) = match packed {
            Some((bytes, lists)) => (bytes, bytemuck::cast_slice(lists)),
            None => (bytemuck::cast_slice(self.dsts), &[]),
        };
        let cols: [&[u8]; format::SECTION_COUNT] = [
            &[], // laid out below, a chunk at a time
            dsts,
            bytemuck::cast_slice(self.stamp_idx),
            bytemuck::cast_slice(self.stamps),
            weights,
            codes,
            lists,
            bytemuck::cast_slice(self.pivots),
            &[], // laid out below, a chunk at a time
        ];
        for s in Section::ALL {
            let e = h.section(s);
            w.pad_to(e.offset)?;
            match (s, sparse) {
                (Section::Offsets, Some(rows)) => w.put(bytemuck::cast_slice(&rows.offsets))?,
                (Section::Offsets, None) => self
                    .offsets
                    .each_chunk(|c| w.put(bytemuck::cast_slice(c)))?,
                (Section::Present, Some(rows)) => {
                    rows.each_present_chunk(|c| w.put(bytemuck::cast_slice(c)))?
                }
                _ => w.put(cols[s as usize])?,
            }
        }
        w.pad_to(h.table.offset)?;
        let crcs = w.finish_blocks();
        let table: &[u8] = bytemuck::cast_slice(&crcs);
        w.out.write_all(table)?;
        w.out.flush()?;
        Ok(crc32c::crc32c(table))
    }

    /// What the file of the segment ending at `hi` will hold, each choice
    /// of the writer's made: the weights as stored, the rows, the packed
    /// destinations, and the header they give (all but its table crc).
    fn plan(&self, hi: u32) -> Plan {
        let (form, stored) = self.stored_weights();
        let sparse = self.sparse_rows();
        let packed = self.packed_dsts(sparse.as_ref());
        let header = self.header(
            hi,
            form,
            packed.as_ref().map(|p| p.0.len() as u64),
            sparse.as_ref().map(|r| r.vertices.len() as u64),
        );
        Plan {
            header,
            stored,
            packed,
            sparse,
        }
    }

    /// The whole image of the segment ending at `hi` (offsets already
    /// cover every vertex up to `hi`; the block size has been checked).
    fn bytes(&self, hi: u32) -> Result<SegmentBytes> {
        let mut plan = self.plan(hi);
        let mut buf = SegmentBytes::zeroed(plan.header.file_len as usize);
        let body = &mut buf.as_bytes_mut()[HEADER_LEN..];
        plan.header.table_crc = self
            .emit(&plan, std::io::Cursor::new(body))
            .map_err(|e| refuse(hi, format!("internal layout error: {e}")))?;
        buf.as_bytes_mut()[..HEADER_LEN].copy_from_slice(&plan.header.encode());
        Ok(buf)
    }

    /// `bytes`, streamed into the file `path` instead; returns its length.
    fn write_file(&self, hi: u32, path: &Path) -> Result<u64> {
        let mut plan = self.plan(hi);
        write_atomically(path, |f| {
            // The header goes last: its table crc is known once the body
            // is written.
            f.write_all(&[0u8; HEADER_LEN]).map_err(|e| (e, "write"))?;
            let mut body = std::io::BufWriter::with_capacity(1 << 20, &mut *f);
            plan.header.table_crc = self.emit(&plan, &mut body).map_err(|e| (e, "write"))?;
            drop(body);
            // `bytes` leaves the image's tail as zeros: the same here.
            f.set_len(plan.header.file_len).map_err(|e| (e, "write"))?;
            f.rewind().map_err(|e| (e, "seek"))?;
            f.write_all(&plan.header.encode()).map_err(|e| (e, "write"))
        })?;
        Ok(plan.header.file_len)
    }
}

/// The segment of vertices `lo..hi` from whole columns built elsewhere (a
/// bulk load builds them in parallel, where `push_vertex` would copy them
/// entry by entry on one thread), read in place: `offsets` has one entry
/// per vertex and a last one (from 0 to `dsts.len()`), destinations are
/// strictly ascending within each vertex with one unstamped version per
/// edge, and `weights` is either empty (all 1.0) or one finite weight per
/// entry. Checked as `push_vertex` checks its input, in parallel; a
/// refusal names the first vertex at fault.
pub(crate) fn write_columns(
    lo: u32,
    hi: u32,
    direction: Direction,
    offsets: &[u32],
    dsts: &[u32],
    weights: &[f64],
    encoding: Encoding,
) -> Result<SegmentBytes> {
    use rayon::prelude::*;
    if hi < lo || hi == u32::MAX || offsets.len() != (hi - lo) as usize + 1 {
        return Err(refuse(
            lo,
            format!(
                "{} offsets for vertices {lo}..{hi} (one per vertex and one more)",
                offsets.len()
            ),
        ));
    }
    if offsets.first() != Some(&0) || offsets.last().map(|&e| e as usize) != Some(dsts.len()) {
        return Err(refuse(
            lo,
            format!(
                "offsets must run from 0 to the {} destinations given",
                dsts.len()
            ),
        ));
    }
    if !weights.is_empty() && weights.len() != dsts.len() {
        return Err(refuse(
            lo,
            format!("{} weights for {} entries", weights.len(), dsts.len()),
        ));
    }
    let bad = (0..offsets.len() - 1).into_par_iter().find_first(|&i| {
        let (a, b) = (offsets[i] as usize, offsets[i + 1] as usize);
        b < a
            || b > dsts.len()
            || dsts[a..b].windows(2).any(|w| w[0] >= w[1])
            || weights
                .get(a..b)
                .is_some_and(|w| w.iter().any(|x| !x.is_finite()))
    });
    if let Some(i) = bad {
        return Err(refuse(
            lo + i as u32,
            "offsets decrease, destinations are not strictly ascending, or a weight is not finite",
        ));
    }
    let cols = Columns {
        lo,
        direction,
        block_size: DEFAULT_BLOCK_SIZE,
        offsets: Offsets::Dense(offsets),
        dsts,
        stamp_idx: &[],
        stamps: &[],
        weights,
        max_ts: 0,
        tombs: false,
        multi: false,
        encoding,
        pivots: &[],
    };
    cols.bytes(hi)
}

/// Checks one vertex's entries against the segment invariants.
fn check_entries(v: u32, entries: &[SegEntry]) -> Result<()> {
    for (i, e) in entries.iter().enumerate() {
        if !e.weight.is_finite() {
            return Err(refuse(
                v,
                format!(
                    "entry {i} (dst {}): weight {} is not finite",
                    e.dst, e.weight
                ),
            ));
        }
        if e.ts & !TS_MASK != 0 {
            return Err(refuse(
                v,
                format!(
                    "entry {i} (dst {}): timestamp {} needs more than 63 bits",
                    e.dst, e.ts
                ),
            ));
        }
        if e.tomb && e.ts == 0 {
            return Err(refuse(
                v,
                format!("entry {i} (dst {}): tombstone without a timestamp", e.dst),
            ));
        }
        if let Some(p) = i.checked_sub(1).map(|p| &entries[p]) {
            if p.dst > e.dst {
                return Err(refuse(
                    v,
                    format!(
                        "entry {i}: destination {} after {}: not sorted ascending",
                        e.dst, p.dst
                    ),
                ));
            }
            if p.dst == e.dst && p.ts <= e.ts {
                return Err(refuse(
                    v,
                    format!(
                        "entry {i}: versions of destination {} not strictly newest first (ts {} after {})",
                        e.dst, e.ts, p.ts
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// A writer that knows its file position (starting at the header's end)
/// and checksums everything through it in fixed blocks.
struct BlockWriter<W: Write> {
    out: W,
    pos: u64,
    block_size: usize,
    in_block: usize,
    crc: u32,
    crcs: Vec<u32>,
}

impl<W: Write> BlockWriter<W> {
    fn new(out: W, block_size: u32) -> Self {
        BlockWriter {
            out,
            pos: HEADER_LEN as u64,
            block_size: block_size as usize,
            in_block: 0,
            crc: 0,
            crcs: Vec::new(),
        }
    }

    fn put(&mut self, mut b: &[u8]) -> std::io::Result<()> {
        self.out.write_all(b)?;
        self.pos += b.len() as u64;
        while !b.is_empty() {
            let n = (self.block_size - self.in_block).min(b.len());
            self.crc = crc32c::crc32c_append(self.crc, &b[..n]);
            self.in_block += n;
            b = &b[n..];
            if self.in_block == self.block_size {
                self.crcs.push(self.crc);
                self.crc = 0;
                self.in_block = 0;
            }
        }
        Ok(())
    }

    /// Zero padding up to `pos`.
    fn pad_to(&mut self, pos: u64) -> std::io::Result<()> {
        const ZEROS: [u8; ALIGN as usize] = [0; ALIGN as usize];
        while self.pos < pos {
            let n = (pos - self.pos).min(ALIGN) as usize;
            self.put(&ZEROS[..n])?;
        }
        Ok(())
    }

    fn finish_blocks(&mut self) -> Vec<u32> {
        if self.in_block > 0 {
            self.crcs.push(self.crc);
            self.in_block = 0;
        }
        std::mem::take(&mut self.crcs)
    }
}
