//! Reading a segment: opening (structural checks in O(vertices + stamps)),
//! the full `verify`, and the column and per-vertex read calls.
//!
//! Once `open` succeeds the offsets are known to be monotonic and in range,
//! so the common calls index straight into the columns. Bytes inside the
//! `dsts`, `stamps` and `weights` columns are only checked by `verify`; a
//! damaged value there gives a wrong answer but never a panic, because every
//! access below is a checked `get` with a harmless fallback.

use super::format::{
    block_count, corrupt, Extent, Header, Section, WeightForm, FLAG_MULTI, FLAG_PACKED,
    FLAG_PIVOTS, FLAG_SPARSE, FLAG_STAMPS, FLAG_TOMBS, FLAG_WEIGHTED, HEADER_LEN, MAX_BYTE_DICT,
    PRESENT_SPAN, TOMB_BIT, TS_MASK,
};
use super::pack;
use super::storage::{self, SegmentBytes, Storage};
use super::weights::Weights;
use crate::error::Result;
use crate::version::Decided;
use std::cell::RefCell;
use std::ops::Range;
use std::path::Path;
use std::sync::Arc;

thread_local! {
    /// The list a packed segment's read decodes into, reused by every read
    /// on the thread. Taken out while in use, so a read nested in another
    /// read's callback gets a fresh one instead of a borrow panic.
    static DECODED: RefCell<Vec<u32>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with the thread's decode buffer (see `DECODED`).
#[inline]
fn with_decoded<R>(f: impl FnOnce(&mut Vec<u32>) -> R) -> R {
    let mut buf = DecodeBuf::default();
    f(buf.get())
}

/// The thread's decode buffer (`DECODED`), taken out at its first use and
/// given back when this is dropped: for a reader that holds a decoded
/// list while it walks it in the same loop as lists that need no
/// decoding (`Segment::list_in`). Nothing is taken if nothing is decoded.
#[derive(Default)]
pub(crate) struct DecodeBuf(Option<Vec<u32>>);

impl DecodeBuf {
    #[inline]
    fn get(&mut self) -> &mut Vec<u32> {
        self.0
            .get_or_insert_with(|| DECODED.with(|d| std::mem::take(&mut *d.borrow_mut())))
    }
}

impl Drop for DecodeBuf {
    #[inline]
    fn drop(&mut self) {
        if let Some(buf) = self.0.take() {
            // Past the thread's teardown the buffer is simply freed.
            let _ = DECODED.try_with(|d| *d.borrow_mut() = buf);
        }
    }
}

/// A packed segment's lists (`Segment::packed_lists`): its entry offsets,
/// where each list's bytes start, and those bytes.
#[derive(Clone, Copy)]
pub(crate) struct PackedLists<'s> {
    rows: Rows<'s>,
    offsets: &'s [u32],
    starts: &'s [u32],
    bytes: &'s [u8],
}

impl<'s> PackedLists<'s> {
    /// The entries of `v`'s list (0 outside the segment).
    #[inline]
    pub(crate) fn len(&self, v: u32) -> usize {
        entries_in(self.offsets, self.rows, v).len()
    }

    /// The bytes from the start of `v`'s list to the end of the section
    /// (its slack included); empty outside the segment.
    #[inline]
    fn bytes_from(&self, v: u32) -> &'s [u8] {
        self.rows
            .row(v)
            .and_then(|i| self.starts.get(i))
            .and_then(|&s| self.bytes.get(s as usize..))
            .unwrap_or(&[])
    }

    /// Starts loading the first bytes of `v`'s list (`util::prefetch`):
    /// a pass that decodes only the start of each list (a connected
    /// components round, a bottom-up BFS step) skips the bytes between
    /// them, where the CPU's own read-ahead does not follow, so without
    /// this every list would cost a wait on memory.
    #[inline(always)]
    pub(crate) fn prefetch(&self, v: u32) {
        if let Some(b) = self.bytes_from(v).first() {
            crate::util::prefetch::line(b);
        }
    }

    /// Decodes at least the first `want` entries of `v`'s list (all of
    /// them if it has no more) into `buf` from `at` on; returns where they
    /// end (`pack::decode_at`: `buf` keeps its length, the caller its own
    /// count). Chunks are laid out the same whatever a list's length, so
    /// its first `k` entries decode as a list of `k`.
    #[inline(always)]
    pub(crate) fn decode_at(&self, v: u32, want: usize, buf: &mut Vec<u32>, at: usize) -> usize {
        let Some(i) = self.rows.row(v) else {
            return at;
        };
        let n = match (self.offsets.get(i), self.offsets.get(i + 1)) {
            (Some(&a), Some(&b)) if a < b => (b - a) as usize,
            _ => return at,
        };
        let bytes = self
            .starts
            .get(i)
            .and_then(|&s| self.bytes.get(s as usize..))
            .unwrap_or(&[]);
        pack::decode_at(bytes, n.min(want), buf, at)
    }

    /// Decodes the lists of the vertices `v..end` (one block: at most 64,
    /// from a multiple of 64, as `dirty`'s bits count them) that `want`
    /// asks for (at least `want(u)` entries; 0 skips `u`) and `dirty` does
    /// not mark, one after another into `buf` from 0: `ends[i]` is where
    /// vertex `v + i`'s entries end, each list starting where the one
    /// before it ended. Returns the bits of the vertices `want` skipped.
    ///
    /// Where the block's rows are dense and the CPU has AVX2, the block is
    /// decoded by `pack_simd` with the buffer made long enough once: a
    /// whole pass over a packed level (a PageRank iteration decodes every
    /// list of the graph) spends most of its time beyond a plain CSR's
    /// here. Otherwise list by list.
    #[inline(always)]
    pub(crate) fn decode_block(
        &self,
        v: u32,
        end: u32,
        want: impl Fn(u32) -> usize,
        dirty: u64,
        buf: &mut Vec<u32>,
        ends: &mut [usize; 64],
    ) -> u64 {
        let k = end.saturating_sub(v) as usize;
        if let (Rows::Dense { lo }, true) = (self.rows, k <= 64) {
            // The block's first row and the offsets it starts and ends at.
            let span = v.checked_sub(lo).and_then(|r| {
                let r = r as usize;
                Some((r, *self.offsets.get(r)?, *self.offsets.get(r + k)?))
            });
            if let Some((row, a, b)) = span {
                // Offsets are monotonic once the segment is open, so this
                // is the block's entry count.
                let total = b.saturating_sub(a) as usize;
                if buf.len() < total + pack::GROUP + 1 {
                    buf.resize(total + pack::GROUP + 1, 0);
                }
                let cols = (self.offsets, self.starts, self.bytes);
                if let Some(skip) =
                    super::pack_simd::decode_block(v, row, k, cols, &want, dirty, buf, ends)
                {
                    return skip;
                }
            }
        }
        let mut skip = 0u64;
        let mut at = 0;
        for (u, end) in (v..end).zip(ends.iter_mut()) {
            self.prefetch(u + super::PREFETCH_AHEAD as u32);
            let bit = 1u64 << (u & 63);
            match want(u) {
                0 => skip |= bit,
                n if dirty & bit == 0 => at = self.decode_at(u, n, buf, at),
                _ => {}
            }
            *end = at;
        }
        skip
    }
}

/// Which row of a segment's per-row columns (`offsets`, `lists`) holds a
/// vertex's list.
#[derive(Clone, Copy)]
pub(crate) enum Rows<'s> {
    /// Every vertex from `lo` has a row: vertex `lo + i` row `i`.
    Dense { lo: u32 },
    /// Only the vertices the `present` records mark (`FLAG_SPARSE`): per
    /// 64 vertices from `lo`, a word of bits and the rows before it, so a
    /// vertex's row is that count plus the bits set below its own.
    Sparse { lo: u32, present: &'s [[u64; 2]] },
}

impl Rows<'_> {
    /// `v`'s row, if it has one. A dense index names a row for any vertex
    /// from `lo` on: the caller's `get` on the column rules out those past
    /// the end.
    #[inline(always)]
    pub(crate) fn row(&self, v: u32) -> Option<usize> {
        match *self {
            Rows::Dense { lo } => v.checked_sub(lo).map(|i| i as usize),
            Rows::Sparse { lo, present } => {
                let i = u64::from(v.checked_sub(lo)?);
                let &[bits, before] = present.get((i / PRESENT_SPAN) as usize)?;
                let bit = 1u64 << (i % PRESENT_SPAN);
                (bits & bit != 0).then(|| rank(bits, before, bit))
            }
        }
    }

    /// How many of the `rows` rows belong to vertices below `v`.
    #[inline]
    fn rows_below(&self, v: u32, rows: usize) -> usize {
        match *self {
            Rows::Dense { lo } => (v.saturating_sub(lo) as usize).min(rows),
            Rows::Sparse { lo, present } => {
                let i = u64::from(v.saturating_sub(lo));
                match present.get((i / PRESENT_SPAN) as usize) {
                    Some(&[bits, before]) => rank(bits, before, 1 << (i % PRESENT_SPAN)).min(rows),
                    None => rows,
                }
            }
        }
    }
}

/// The rows before the vertex of bit `bit` of a `present` record: the
/// record's count, and its bits set below that one.
#[inline(always)]
fn rank(bits: u64, before: u64, bit: u64) -> usize {
    before as usize + (bits & (bit - 1)).count_ones() as usize
}

/// Entry indices of vertex `v` by a segment's `offsets` and `rows`: empty
/// outside the segment, for a vertex without a row, or where damaged
/// offsets decrease.
#[inline(always)]
fn entries_in(offsets: &[u32], rows: Rows<'_>, v: u32) -> Range<usize> {
    let Some(i) = rows.row(v) else {
        return 0..0;
    };
    match (offsets.get(i), offsets.get(i + 1)) {
        (Some(&a), Some(&b)) if a <= b => a as usize..b as usize,
        _ => 0..0,
    }
}

/// An immutable, checked segment. Clones share the bytes.
#[derive(Clone)]
pub(crate) struct Segment {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    storage: Storage,
    header: Header,
}

impl std::fmt::Debug for Segment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let h = &self.inner.header;
        f.debug_struct("Segment")
            .field("name", &self.inner.name)
            .field("vertices", &(h.lo..h.hi))
            .field("entries", &h.entry_count)
            .field("stamps", &h.stamp_count)
            .field("max_ts", &h.max_ts)
            .finish()
    }
}

/// Decodes a stamp into `(commit timestamp, is tombstone)`.
#[inline]
fn unstamp(s: u64) -> (u64, bool) {
    (s & TS_MASK, s & TOMB_BIT != 0)
}

/// Views `e` of `bytes` as a column of `T`; empty if it does not fit (which
/// `open` rules out, so the fallback only keeps the code panic-free).
#[inline]
fn column<T: bytemuck::Pod>(bytes: &[u8], e: Extent) -> &[T] {
    e.range()
        .and_then(|r| bytes.get(r))
        .and_then(|b| bytemuck::try_cast_slice(b).ok())
        .unwrap_or(&[])
}

impl Segment {
    /// Opens an in-memory image. `name` stands for the file name in errors.
    pub(crate) fn from_bytes(bytes: SegmentBytes, name: impl Into<String>) -> Result<Segment> {
        Self::build(Storage::Owned(bytes), name.into())
    }

    /// Opens the file at `path` by memory-mapping it.
    pub(crate) fn open(path: &Path) -> Result<Segment> {
        let storage = storage::map_file(path)?;
        Self::build(storage, path.display().to_string())
    }

    fn build(storage: Storage, name: String) -> Result<Segment> {
        let header = Header::decode(storage.bytes(), &name)?;
        let seg = Segment {
            inner: Arc::new(Inner {
                name,
                storage,
                header,
            }),
        };
        seg.check_table()?;
        seg.check_present()?;
        seg.check_offsets()?;
        seg.check_lists()?;
        seg.check_stamps()?;
        seg.check_pivots()?;
        Ok(seg)
    }

    /// Pivot marks name vertices of the segment, strictly ascending, each
    /// with a nonzero timestamp. After this `pivot_of` may search them.
    fn check_pivots(&self) -> Result<()> {
        let base = self.header().section(Section::Pivots).offset;
        let range = self.vertex_range();
        let mut prev = None;
        for (i, &[v, ts]) in self.pivots().iter().enumerate() {
            let at = base + 16 * i as u64;
            if !(u64::from(range.start)..u64::from(range.end)).contains(&v) {
                return Err(corrupt(
                    self.name(),
                    at,
                    format!("pivot mark for vertex {v}, outside the segment's {range:?}"),
                ));
            }
            if prev.is_some_and(|p| p >= v) {
                return Err(corrupt(
                    self.name(),
                    at,
                    format!("pivot mark for vertex {v} does not ascend"),
                ));
            }
            if ts == 0 || ts > TS_MASK {
                return Err(corrupt(
                    self.name(),
                    at + 8,
                    format!("pivot mark of vertex {v} has timestamp {ts}"),
                ));
            }
            prev = Some(v);
        }
        Ok(())
    }

    /// The pivot marks, (vertex, timestamp) pairs.
    #[inline]
    fn pivots(&self) -> &[[u64; 2]] {
        self.col(Section::Pivots)
    }

    /// How many pivot marks the segment has.
    pub(crate) fn pivot_count(&self) -> u64 {
        self.header().pivot_count
    }

    /// Whether the segment has pivot marks at all.
    #[inline]
    pub(crate) fn has_pivots(&self) -> bool {
        self.header().flag(FLAG_PIVOTS)
    }

    /// The timestamp from which this segment (with the sources above it)
    /// holds `v`'s whole list, if it is marked a pivot for `v`
    /// (`crate::pivot`): a read at or after it looks no further down.
    #[inline]
    pub(crate) fn pivot_of(&self, v: u32) -> Option<u64> {
        if !self.has_pivots() {
            return None;
        }
        let marks = self.pivots();
        let i = marks.partition_point(|m| m[0] < u64::from(v));
        marks.get(i).filter(|m| m[0] == u64::from(v)).map(|m| m[1])
    }

    /// Every pivot mark, ascending by vertex (compaction carries them).
    pub(crate) fn pivot_marks(&self) -> impl Iterator<Item = (u32, u64)> + '_ {
        self.pivots().iter().map(|&[v, ts]| (v as u32, ts))
    }

    /// A packed segment's list starts: from 0, never decreasing, the last
    /// where the slack begins. After this every vertex's bytes lie inside
    /// the `dsts` section.
    fn check_lists(&self) -> Result<()> {
        if !self.is_packed() {
            return Ok(());
        }
        let end = self.header().section(Section::Dsts).len - pack::SLACK as u64;
        self.check_starts(
            Section::Lists,
            "list start",
            false,
            end,
            &format!("the end of the packed lists, {end}"),
        )
    }

    /// A column of per-row starts (`offsets`, `lists`, named `what`):
    /// first 0, never decreasing (increasing if `strict`), last `end`
    /// (named `end_name`). Damage is reported at the value's offset in the
    /// file, a decrease with the vertex whose row it starts.
    fn check_starts(
        &self,
        s: Section,
        what: &str,
        strict: bool,
        end: u64,
        end_name: &str,
    ) -> Result<()> {
        let base = self.header().section(s).offset;
        let starts: &[u32] = self.col(s);
        let at = |i: usize| base + 4 * i as u64;
        if starts.first() != Some(&0) {
            return Err(corrupt(
                self.name(),
                at(0),
                format!("first {what} is not 0"),
            ));
        }
        let wrong = |w: &[u32]| w[0] > w[1] || (strict && w[0] == w[1]);
        if let Some(i) = starts.windows(2).position(wrong) {
            let vertex = self
                .row_vertices()
                .nth(i + 1)
                .map_or_else(|| "past the last".to_string(), |v| v.to_string());
            return Err(corrupt(
                self.name(),
                at(i + 1),
                format!(
                    "{what} {} of vertex {vertex} {} {}",
                    starts[i + 1],
                    if starts[i + 1] < starts[i] {
                        "decreases from"
                    } else {
                        "does not increase from"
                    },
                    starts[i]
                ),
            ));
        }
        let last = starts.last().copied().unwrap_or(0);
        if u64::from(last) != end {
            return Err(corrupt(
                self.name(),
                at(starts.len().saturating_sub(1)),
                format!("last {what} {last} is not {end_name}"),
            ));
        }
        Ok(())
    }

    #[inline]
    fn bytes(&self) -> &[u8] {
        self.inner.storage.bytes()
    }

    #[inline]
    fn header(&self) -> &Header {
        &self.inner.header
    }

    /// The bytes for what is read right after `entry_range` noted a read
    /// (the rest of a look-up, an entry's weight): the same mapping, with
    /// no list asked for whole (a few places of one list are read).
    #[inline]
    fn look_up_bytes(&self) -> &[u8] {
        self.inner.storage.entry_bytes(0..0)
    }

    #[inline]
    fn col<T: bytemuck::Pod>(&self, s: Section) -> &[T] {
        self.col_in(self.bytes(), s)
    }

    /// Section `s` of `bytes` (`bytes()` or `look_up_bytes()`) as a column.
    #[inline]
    fn col_in<'a, T: bytemuck::Pod>(&'a self, bytes: &'a [u8], s: Section) -> &'a [T] {
        column(bytes, self.header().section(s))
    }

    /// The checksum table's own crc (cheap: 4 bytes per block).
    fn check_table(&self) -> Result<()> {
        let t = self.header().table;
        let table = t.range().and_then(|r| self.bytes().get(r)).unwrap_or(&[]);
        if crc32c::crc32c(table) != self.header().table_crc {
            return Err(corrupt(
                self.name(),
                t.offset,
                "checksum table does not match its crc",
            ));
        }
        Ok(())
    }

    /// Offsets start at 0, never decrease and end at the entry count: after
    /// this, every vertex's entry range lies inside the entry columns. In
    /// a sparse segment they increase: a vertex has a row only if it has
    /// entries.
    fn check_offsets(&self) -> Result<()> {
        let n = self.header().entry_count;
        self.check_starts(
            Section::Offsets,
            "offset",
            self.is_sparse(),
            n,
            &format!("the entry count {n}"),
        )
    }

    /// A sparse segment's `present` records: each counts the rows before
    /// it, no bit marks a vertex past the range, and the rows add up to
    /// the header's count. After this a vertex's row lies inside the
    /// per-row columns.
    fn check_present(&self) -> Result<()> {
        let Rows::Sparse { present, .. } = self.rows() else {
            return Ok(());
        };
        let base = self.header().section(Section::Present).offset;
        let span = u64::from(self.header().hi - self.lo());
        let mut rows = 0u64;
        for (w, &[bits, before]) in present.iter().enumerate() {
            let at = base + 16 * w as u64;
            if before != rows {
                return Err(corrupt(
                    self.name(),
                    at + 8,
                    format!("present record {w} counts {before} rows before it, not {rows}"),
                ));
            }
            let first = w as u64 * PRESENT_SPAN;
            let inside = (span - first).min(PRESENT_SPAN);
            if inside < PRESENT_SPAN && bits >> inside != 0 {
                return Err(corrupt(
                    self.name(),
                    at,
                    format!(
                        "present record {w} marks a vertex past the end of the range, {}",
                        self.header().hi
                    ),
                ));
            }
            rows += u64::from(bits.count_ones());
        }
        if rows != self.header().present_count {
            return Err(corrupt(
                self.name(),
                super::format::OFF_PRESENT_COUNT as u64,
                format!(
                    "{} vertices with a row, but the present records mark {rows}",
                    self.header().present_count
                ),
            ));
        }
        Ok(())
    }

    /// Whether only some vertices have rows (`FLAG_SPARSE`).
    #[inline]
    pub(crate) fn is_sparse(&self) -> bool {
        self.header().flag(FLAG_SPARSE)
    }

    /// Which row holds each vertex's list.
    #[inline]
    pub(crate) fn rows(&self) -> Rows<'_> {
        self.rows_in(self.bytes())
    }

    /// `rows` read from `bytes` (`bytes()` or `look_up_bytes()`).
    #[inline(always)]
    fn rows_in<'a>(&'a self, bytes: &'a [u8]) -> Rows<'a> {
        if self.is_sparse() {
            Rows::Sparse {
                lo: self.lo(),
                present: self.col_in(bytes, Section::Present),
            }
        } else {
            Rows::Dense { lo: self.lo() }
        }
    }

    /// The vertex of each row, ascending: every vertex of the range, or
    /// in a sparse segment those the `present` records mark.
    pub(crate) fn row_vertices(&self) -> impl Iterator<Item = u32> + '_ {
        let lo = self.lo();
        let (dense, present) = match self.rows() {
            Rows::Dense { .. } => (self.vertex_range(), &[][..]),
            Rows::Sparse { present, .. } => (lo..lo, present),
        };
        let sparse = present.iter().enumerate().flat_map(move |(w, &[bits, _])| {
            let first = lo as u64 + w as u64 * PRESENT_SPAN;
            let mut rest = bits;
            std::iter::from_fn(move || {
                let b = (rest != 0).then(|| rest.trailing_zeros())?;
                rest &= rest - 1;
                Some((first + u64::from(b)) as u32)
            })
        });
        dense.chain(sparse)
    }

    /// `stamp_idx` strictly increasing and in range; stamps carry a nonzero
    /// timestamp; the header's `max_ts` and tombstone flag match them.
    fn check_stamps(&self) -> Result<()> {
        let h = self.header();
        let idx = self.stamp_index();
        let ibase = h.section(Section::StampIdx).offset;
        let sbase = h.section(Section::Stamps).offset;
        if let Some(i) = idx.windows(2).position(|w| w[0] >= w[1]) {
            return Err(corrupt(
                self.name(),
                ibase + 4 * (i as u64 + 1),
                format!(
                    "stamp_idx {} does not increase after {}",
                    idx[i + 1],
                    idx[i]
                ),
            ));
        }
        if let Some(&last) = idx.last() {
            if u64::from(last) >= h.entry_count {
                return Err(corrupt(
                    self.name(),
                    ibase + 4 * (idx.len() as u64 - 1),
                    format!("stamp_idx {last} is past the entry count {}", h.entry_count),
                ));
            }
        }
        let mut max = 0;
        let mut tombs = false;
        for (i, &s) in self.stamps().iter().enumerate() {
            let (ts, tomb) = unstamp(s);
            if ts == 0 {
                return Err(corrupt(
                    self.name(),
                    sbase + 8 * i as u64,
                    "stamp with timestamp 0",
                ));
            }
            max = max.max(ts);
            tombs |= tomb;
        }
        if max != h.max_ts {
            return Err(corrupt(
                self.name(),
                super::format::OFF_MAX_TS as u64,
                format!("max_ts {} but the newest stamp is {max}", h.max_ts),
            ));
        }
        if tombs != h.flag(FLAG_TOMBS) {
            return Err(corrupt(
                self.name(),
                super::format::OFF_FLAGS as u64,
                "tombstone flag disagrees with the stamps",
            ));
        }
        Ok(())
    }

    /// Full check: every block checksum, then the invariants `open` does not
    /// look at (sorted destinations, version order, finite weights, the
    /// multi-version and weighted flags). Reads the whole file.
    pub(crate) fn verify(&self) -> Result<()> {
        let h = self.header();
        let bytes = self.bytes();
        let data_end = h.table.offset;
        let bs = u64::from(h.block_size);
        let table: &[u32] = column(bytes, h.table);
        let blocks = block_count(data_end - HEADER_LEN as u64, h.block_size);
        for b in 0..blocks {
            let start = HEADER_LEN as u64 + b * bs;
            let end = (start + bs).min(data_end);
            let data = Extent {
                offset: start,
                len: end - start,
            }
            .range()
            .and_then(|r| bytes.get(r))
            .unwrap_or(&[]);
            let want = table.get(b as usize).copied();
            if want != Some(crc32c::crc32c(data)) {
                return Err(corrupt(
                    self.name(),
                    start,
                    format!("checksum mismatch in block {b} (bytes {start}..{end})"),
                ));
            }
        }
        self.verify_order()?;
        self.verify_weights()
    }

    fn verify_order(&self) -> Result<()> {
        let dbase = self.header().section(Section::Dsts).offset;
        let offs = self.offsets();
        let mut multi = false;
        let mut list = Vec::new();
        for (k, (w, v)) in offs.windows(2).zip(self.row_vertices()).enumerate() {
            let (a, b) = (w[0] as usize, w[1] as usize);
            // Where a wrong entry is: its own four bytes, or the start of
            // its packed list.
            let start = self.lists().get(k).copied().unwrap_or(0);
            if self.is_packed() {
                let (ok, used) = self.decode_list(v, &mut list);
                let end = self.lists().get(k + 1).copied().unwrap_or(start);
                let stored = end.saturating_sub(start) as usize;
                if !ok || used != stored {
                    return Err(corrupt(
                        self.name(),
                        dbase + u64::from(start),
                        format!(
                            "vertex {v}: packed list of {} entries is damaged ({used} bytes decode, {stored} stored)",
                            b - a
                        ),
                    ));
                }
            } else {
                list.clear();
                list.extend_from_slice(self.dsts().get(a..b).unwrap_or(&[]));
            }
            let place = |e: usize| match self.is_packed() {
                true => dbase + u64::from(start),
                false => dbase + 4 * e as u64,
            };
            let dsts = &list;
            for i in 1..dsts.len() {
                let e = a + i;
                let (p, d) = (dsts[i - 1], dsts[i]);
                let bad = |what: String| Err(corrupt(self.name(), place(e), what));
                if p > d {
                    return bad(format!("vertex {v}: destination {d} after {p}"));
                }
                if p == d {
                    multi = true;
                    let (pt, _) = self.stamp_of(e - 1);
                    let (t, _) = self.stamp_of(e);
                    if pt <= t {
                        return bad(format!(
                            "vertex {v}: versions of destination {d} not newest first"
                        ));
                    }
                }
            }
        }
        if multi != self.header().flag(FLAG_MULTI) {
            return Err(corrupt(
                self.name(),
                super::format::OFF_FLAGS as u64,
                "multi-version flag disagrees with the destinations",
            ));
        }
        Ok(())
    }

    /// Weights (or the dictionary) finite; a dictionary strictly
    /// ascending and every code inside it; some weight not 1.0.
    fn verify_weights(&self) -> Result<()> {
        let Some(w) = self.weights() else {
            return Ok(());
        };
        let base = self.header().section(Section::Weights).offset;
        let stored: &[f64] = self.col(Section::Weights);
        if let Some(i) = stored.iter().position(|x| !x.is_finite()) {
            return Err(corrupt(
                self.name(),
                base + 8 * i as u64,
                format!("weight {} is not finite", stored[i]),
            ));
        }
        if let WeightForm::Coded { dict } = self.header().weight_form() {
            if let Some(i) = stored
                .windows(2)
                .position(|p| p[0].total_cmp(&p[1]).is_ge())
            {
                return Err(corrupt(
                    self.name(),
                    base + 8 * (i as u64 + 1),
                    format!(
                        "weight dictionary is not strictly ascending: {} after {}",
                        stored[i + 1],
                        stored[i]
                    ),
                ));
            }
            let cbase = self.header().section(Section::Codes).offset;
            let width = WeightForm::code_width(dict);
            let bad = match w {
                Weights::Byte { codes, .. } => codes.iter().position(|&c| u32::from(c) >= dict),
                Weights::Wide { codes, .. } => codes.iter().position(|&c| u32::from(c) >= dict),
                Weights::Raw(_) => None,
            };
            if let Some(i) = bad {
                return Err(corrupt(
                    self.name(),
                    cbase + width * i as u64,
                    format!("weight code of entry {i} is outside the {dict}-weight dictionary"),
                ));
            }
        }
        if w.iter().all(|x| x == 1.0) {
            return Err(corrupt(
                self.name(),
                super::format::OFF_FLAGS as u64,
                "weights section present but every weight is 1.0",
            ));
        }
        Ok(())
    }

    // ---- metadata ----

    /// The file path, or the name given to the in-memory image.
    pub(crate) fn name(&self) -> &str {
        &self.inner.name
    }

    #[cfg(test)] // used by the format tests only
    pub(crate) fn direction(&self) -> crate::direction::Direction {
        if self.header().flag(super::format::FLAG_IN) {
            crate::direction::Direction::In
        } else {
            crate::direction::Direction::Out
        }
    }

    fn lo(&self) -> u32 {
        self.header().lo
    }

    /// The vertices this segment covers, `[lo, hi)`.
    pub(crate) fn vertex_range(&self) -> Range<u32> {
        self.header().lo..self.header().hi
    }

    pub(crate) fn entry_count(&self) -> usize {
        self.header().entry_count as usize
    }

    #[cfg(test)] // used by the format tests only
    pub(crate) fn stamp_count(&self) -> usize {
        self.header().stamp_count as usize
    }

    #[cfg(test)] // used by the format tests only
    /// The newest timestamp in the side table (0 if there is none).
    pub(crate) fn max_ts(&self) -> u64 {
        self.header().max_ts
    }

    pub(crate) fn has_stamps(&self) -> bool {
        self.header().flag(FLAG_STAMPS)
    }

    #[cfg(test)] // used by the format tests only
    pub(crate) fn has_tombstones(&self) -> bool {
        self.header().flag(FLAG_TOMBS)
    }

    #[inline]
    pub(crate) fn is_weighted(&self) -> bool {
        self.header().flag(FLAG_WEIGHTED)
    }

    /// Size of the file or image in bytes.
    pub(crate) fn byte_len(&self) -> u64 {
        self.header().file_len
    }

    #[cfg(test)] // used by the format tests only
    /// Whether the bytes are a file mapping (rather than owned memory).
    pub(crate) fn is_mapped(&self) -> bool {
        self.inner.storage.is_mapped()
    }

    // ---- whole columns ----

    /// One entry offset a row and one more: the vertex of row `i`
    /// (`rows`; vertex `lo + i` unless the segment is sparse) owns entries
    /// `offsets[i]..offsets[i + 1]`.
    #[inline]
    pub(crate) fn offsets(&self) -> &[u32] {
        self.col(Section::Offsets)
    }

    /// All destinations, every version included, as `u32`s; empty for a
    /// packed segment, whose lists are read with `with_list`.
    #[inline]
    pub(crate) fn dsts(&self) -> &[u32] {
        if self.is_packed() {
            return &[];
        }
        self.col(Section::Dsts)
    }

    /// Whether the destinations are packed (`pack.rs`): then no list is a
    /// slice of the file, and `dsts`, `entries_of` are empty.
    #[inline]
    pub(crate) fn is_packed(&self) -> bool {
        self.header().flag(FLAG_PACKED)
    }

    /// A packed segment's list starts in `dsts`' bytes (empty otherwise).
    #[inline]
    fn lists(&self) -> &[u32] {
        self.col(Section::Lists)
    }

    /// Decodes `v`'s list of a packed segment into `out`: whether its
    /// bytes were well formed, and how many of them it took. The decoder
    /// may read into the slack after the list, never past the section.
    #[inline]
    pub(crate) fn decode_list(&self, v: u32, out: &mut Vec<u32>) -> (bool, usize) {
        let lists = self.packed_lists();
        pack::decode(lists.bytes_from(v), lists.len(v), out)
    }

    /// The columns a packed segment's lists are read from, found once for
    /// a pass over many of them.
    #[inline]
    pub(crate) fn packed_lists(&self) -> PackedLists<'_> {
        self.packed_lists_in(self.bytes())
    }

    /// `packed_lists` read from `bytes` (`bytes()` or `look_up_bytes()`).
    #[inline]
    fn packed_lists_in<'a>(&'a self, bytes: &'a [u8]) -> PackedLists<'a> {
        PackedLists {
            rows: self.rows_in(bytes),
            offsets: self.col_in(bytes, Section::Offsets),
            starts: self.col_in(bytes, Section::Lists),
            bytes: self.section_in(bytes, Section::Dsts),
        }
    }

    /// Calls `f` with `v`'s destinations, raw (all versions and
    /// tombstones): a slice of the file, or of a list decoded for the
    /// call when the segment is packed.
    #[inline]
    pub(crate) fn with_list<R>(&self, v: u32, f: impl FnOnce(&[u32]) -> R) -> R {
        f(self.list_in(v, &mut DecodeBuf::default()))
    }

    /// `v`'s destinations as `with_list` gives them, decoded into `buf`
    /// when the segment is packed: for a reader whose callback must be
    /// called from one loop over this list and others (see
    /// `Snapshot::visit_unordered`), which a closure given to `with_list`
    /// would make a second.
    #[inline]
    pub(crate) fn list_in<'a>(&'a self, v: u32, buf: &'a mut DecodeBuf) -> &'a [u32] {
        if !self.is_packed() {
            return self.entries_of(v);
        }
        let buf = buf.get();
        let lists = self.packed_lists_in(self.inner.storage.vertex_bytes(v));
        let end = lists.decode_at(v, usize::MAX, buf, 0);
        buf.get(..end).unwrap_or(&[])
    }

    /// `with_list` with the list's weights beside it (`weights_in` of its
    /// entries): where the list lies is found, and the read noted
    /// (`access`), once for both, which a relaxation that reads many
    /// single lists (SSSP's) feels.
    #[inline]
    pub(crate) fn with_weighted_list<R>(
        &self,
        v: u32,
        f: impl FnOnce(&[u32], Weights<'_>) -> R,
    ) -> R {
        let mut buf = DecodeBuf::default();
        let (dsts, weights) = self.weighted_list_in(v, &mut buf);
        f(dsts, weights)
    }

    /// `with_weighted_list`'s list and weights, decoded into `buf` when
    /// the segment is packed (as `list_in`).
    #[inline]
    pub(crate) fn weighted_list_in<'a>(
        &'a self,
        v: u32,
        buf: &'a mut DecodeBuf,
    ) -> (&'a [u32], Weights<'a>) {
        if !self.is_packed() {
            return self.weighted_entries(self.entry_range(v));
        }
        let bytes = self.inner.storage.vertex_bytes(v);
        let lists = self.packed_lists_in(bytes);
        let range = entries_in(lists.offsets, lists.rows, v);
        let weights = self
            .weights_in_bytes(bytes)
            .and_then(|w| w.slice(range))
            .unwrap_or(Weights::Raw(&[]));
        let buf = buf.get();
        let end = lists.decode_at(v, usize::MAX, buf, 0);
        (buf.get(..end).unwrap_or(&[]), weights)
    }

    /// Whether `other` is this very segment (a clone shares its bytes).
    pub(crate) fn same(&self, other: &Segment) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// The bytes of one section, as the file holds them (empty when the
    /// section is absent): what `read::shared` hands out without copying.
    pub(crate) fn section_bytes(&self, s: Section) -> &[u8] {
        self.section_in(self.bytes(), s)
    }

    /// `section_bytes` of `bytes` (`bytes()` or `look_up_bytes()`).
    #[inline]
    fn section_in<'a>(&'a self, bytes: &'a [u8], s: Section) -> &'a [u8] {
        let e = self.header().section(s);
        e.range().and_then(|r| bytes.get(r)).unwrap_or(&[])
    }

    /// Entry indices that carry a stamp, ascending.
    pub(crate) fn stamp_index(&self) -> &[u32] {
        self.col(Section::StampIdx)
    }

    /// The stamps of `stamp_index()`, same order (bit 63 = tombstone).
    pub(crate) fn stamps(&self) -> &[u64] {
        self.col(Section::Stamps)
    }

    /// `(timestamp, tombstone)` of the `k`-th stamped entry, the one
    /// `stamp_index()[k]` names; `(0, false)` past the end.
    pub(crate) fn nth_stamp(&self, k: usize) -> (u64, bool) {
        unstamp(self.stamps().get(k).copied().unwrap_or(0))
    }

    /// One weight per entry, or `None` when every weight is 1.0.
    #[inline]
    pub(crate) fn weights(&self) -> Option<Weights<'_>> {
        self.weights_in_bytes(self.bytes())
    }

    /// `weights` read from `bytes` (`bytes()` or `look_up_bytes()`).
    #[inline]
    fn weights_in_bytes<'a>(&'a self, bytes: &'a [u8]) -> Option<Weights<'a>> {
        match self.header().weight_form() {
            WeightForm::None => None,
            WeightForm::Raw => Some(Weights::Raw(self.col_in(bytes, Section::Weights))),
            WeightForm::Coded { dict } if dict <= MAX_BYTE_DICT => Some(Weights::Byte {
                dict: self.col_in(bytes, Section::Weights),
                codes: self.col_in(bytes, Section::Codes),
            }),
            WeightForm::Coded { .. } => Some(Weights::Wide {
                dict: self.col_in(bytes, Section::Weights),
                codes: self.col_in(bytes, Section::Codes),
            }),
        }
    }

    /// The weights of entries `range`, one vertex's list read after its
    /// `entry_range`: empty (each 1.0) when the segment has none or
    /// `range` is out of bounds.
    #[inline]
    pub(crate) fn weights_in(&self, range: Range<usize>) -> Weights<'_> {
        self.list_weights(range).unwrap_or(Weights::Raw(&[]))
    }

    /// `weights_in`, with `None` when the segment holds no weights (every
    /// weight is 1.0), and `Some` of an empty column when `range` is out
    /// of bounds.
    #[inline]
    pub(crate) fn list_weights(&self, range: Range<usize>) -> Option<Weights<'_>> {
        self.weights_in_bytes(self.inner.storage.entry_bytes(0..0))
            .map(|w| w.slice(range).unwrap_or(Weights::Raw(&[])))
    }

    #[cfg(test)] // used by the format tests only
    /// Where section `s` lies in the file.
    pub(crate) fn header_section(&self, s: Section) -> Extent {
        self.header().section(s)
    }

    /// Whether the weights are dictionary-coded.
    pub(crate) fn weights_coded(&self) -> bool {
        matches!(self.header().weight_form(), WeightForm::Coded { .. })
    }

    // ---- per entry / per vertex ----

    /// Entry indices of vertex `v` (empty outside the segment). Its
    /// offsets are read through the mapping that suits how this thread's
    /// list reads in the segment go (`access`); the calls that then read
    /// the list (`list_dsts`, `weights_in`, `weight`) take the same one.
    #[inline]
    pub(crate) fn entry_range(&self, v: u32) -> Range<usize> {
        let bytes = self.inner.storage.vertex_bytes(v);
        entries_in(self.col_in(bytes, Section::Offsets), self.rows_in(bytes), v)
    }

    /// The index of the first entry of `v` or of the first vertex after it
    /// with a row: the entries below `v`, nondecreasing in `v` on an intact
    /// file. One present record and one offset.
    pub(crate) fn entries_below(&self, v: u32) -> usize {
        let offsets = self.offsets();
        let row = self.rows().rows_below(v, offsets.len().saturating_sub(1));
        offsets.get(row).map_or(0, |&o| o as usize)
    }

    /// Starts loading where `v`'s entries begin (see `util::prefetch`).
    #[inline]
    pub(crate) fn prefetch_range(&self, v: u32) {
        if let Some(o) = self.rows().row(v).and_then(|i| self.offsets().get(i)) {
            crate::util::prefetch::line(o);
        }
    }

    /// `v`'s destinations, raw: all versions and tombstones included, as a
    /// slice of the file; empty for a packed segment (see `with_list`).
    #[inline]
    pub(crate) fn entries_of(&self, v: u32) -> &[u32] {
        self.list_dsts(self.entry_range(v))
    }

    /// Destinations `r` with their weights (`list_dsts`, `weights_in`).
    #[inline]
    pub(crate) fn weighted_entries(&self, r: Range<usize>) -> (&[u32], Weights<'_>) {
        (self.list_dsts(r.clone()), self.weights_in(r))
    }

    /// Destinations `r`, one vertex's list read after its `entry_range`
    /// (see there), as a slice of the file; empty for a packed segment or
    /// out of bounds.
    #[inline]
    pub(crate) fn list_dsts(&self, r: Range<usize>) -> &[u32] {
        if self.is_packed() {
            return &[];
        }
        let base = self.header().section(Section::Dsts).offset as usize;
        let span = base.saturating_add(4 * r.start)..base.saturating_add(4 * r.end);
        let d: &[u32] = self.col_in(self.inner.storage.entry_bytes(span), Section::Dsts);
        d.get(r).unwrap_or(&[])
    }

    /// `(timestamp, tombstone)` of entry `e`; `(0, false)` if it has no stamp.
    pub(crate) fn stamp_of(&self, e: usize) -> (u64, bool) {
        self.stamp_in(self.bytes(), e)
    }

    /// `stamp_of` read from `bytes` (`bytes()` or `look_up_bytes()`).
    fn stamp_in(&self, bytes: &[u8], e: usize) -> (u64, bool) {
        if !self.has_stamps() {
            return (0, false);
        }
        let idx: &[u32] = self.col_in(bytes, Section::StampIdx);
        let Ok(e32) = u32::try_from(e) else {
            return (0, false);
        };
        match idx.binary_search(&e32) {
            Ok(k) => {
                let stamps: &[u64] = self.col_in(bytes, Section::Stamps);
                unstamp(stamps.get(k).copied().unwrap_or(0))
            }
            Err(_) => (0, false),
        }
    }

    /// Weight of entry `e` (1.0 in an unweighted segment or out of range).
    #[inline]
    pub(crate) fn weight(&self, e: usize) -> f64 {
        self.weight_in(self.look_up_bytes(), e)
    }

    /// `weight` read from `bytes` (`bytes()` or `look_up_bytes()`).
    #[inline]
    fn weight_in(&self, bytes: &[u8], e: usize) -> f64 {
        match self.weights_in_bytes(bytes) {
            Some(w) => w.get(e).unwrap_or(1.0),
            None => 1.0,
        }
    }

    /// Whether a snapshot at `ts` sees every entry of every vertex as is:
    /// no stamps at all, or all stamps at or before `ts` with no tombstone
    /// and no second version to hide. Then `offsets()` and `dsts()` are a
    /// plain CSR for that snapshot.
    #[inline]
    pub(crate) fn is_plain_at(&self, ts: u64) -> bool {
        self.plain_from().is_some_and(|from| ts >= from)
    }

    /// The first timestamp at which `is_plain_at` holds (`None`: never),
    /// for callers that decide it once for many snapshots.
    #[inline]
    pub(crate) fn plain_from(&self) -> Option<u64> {
        let h = self.header();
        if !h.flag(FLAG_STAMPS) {
            Some(0)
        } else if h.flags & (FLAG_TOMBS | FLAG_MULTI) == 0 {
            Some(h.max_ts)
        } else {
            None
        }
    }

    /// First position in the side table at or after entry `start`, and
    /// whether any stamp falls in `start..end`.
    #[inline]
    fn stamps_within(&self, r: &Range<usize>) -> (usize, bool) {
        let idx = self.stamp_index();
        let k = idx.partition_point(|&i| (i as usize) < r.start);
        (k, idx.get(k).is_some_and(|&i| (i as usize) < r.end))
    }

    /// Whether scanning `v` at `ts` is a plain slice loop with no per-entry
    /// check: the segment is plain at `ts`, or `v` has no stamped entry (and
    /// so no versions or tombstones).
    pub(crate) fn scan_is_plain(&self, v: u32, ts: u64) -> bool {
        self.is_plain_at(ts) || !self.stamps_within(&self.entry_range(v)).1
    }

    /// `plain_from` for readers that take lists as slices of the file:
    /// never for a packed segment.
    #[inline]
    pub(crate) fn bare_from(&self) -> Option<u64> {
        self.plain_from().filter(|_| !self.is_packed())
    }

    /// `is_plain_at` for readers that take lists as slices of the file
    /// (`offsets()` and `dsts()` a bare CSR at `ts`): never for a packed
    /// segment.
    #[inline]
    pub(crate) fn is_bare_at(&self, ts: u64) -> bool {
        !self.is_packed() && self.is_plain_at(ts)
    }

    /// `scan_is_plain` for readers that take `v`'s list as a slice of the
    /// file (`entries_of`): never for a packed segment.
    #[inline]
    pub(crate) fn scan_is_bare(&self, v: u32, ts: u64) -> bool {
        !self.is_packed() && self.scan_is_plain(v, ts)
    }

    /// Calls `f(dst, entry index)` for every destination of `v` a snapshot
    /// at `ts` sees, ascending: per destination the newest version with
    /// timestamp `<= ts`, skipped if it is a tombstone.
    #[inline]
    pub(crate) fn for_each_visible(&self, v: u32, ts: u64, mut f: impl FnMut(u32, usize)) {
        self.for_each_decided(v, ts, |dst, e, tomb| {
            if !tomb {
                f(dst, e);
            }
        });
    }

    /// Calls `f(dst, entry index, tombstone)` for every destination of `v`
    /// that has a version with timestamp `<= ts`, ascending, reporting that
    /// newest such version. Tombstones are reported too: when segments are
    /// stacked, a tombstone here decides the edge is absent, whatever older
    /// segments hold.
    #[inline]
    pub(crate) fn for_each_decided(&self, v: u32, ts: u64, f: impl FnMut(u32, usize, bool)) {
        self.with_list(v, |d| self.decided_in(v, d, ts, f));
    }

    /// `for_each_decided` over `d`, `v`'s raw list.
    #[inline]
    fn decided_in(&self, v: u32, d: &[u32], ts: u64, mut f: impl FnMut(u32, usize, bool)) {
        let r = self.entry_range(v);
        if d.len() != r.len() {
            return;
        }
        if self.is_plain_at(ts) {
            for (k, &dst) in d.iter().enumerate() {
                f(dst, r.start + k, false);
            }
            return;
        }
        let (first, any) = self.stamps_within(&r);
        if !any {
            for (k, &dst) in d.iter().enumerate() {
                f(dst, r.start + k, false);
            }
            return;
        }
        self.resolve_versions(r.start, d, first, ts, f);
    }

    /// The versioned scan: walks the entries and the side table together.
    fn resolve_versions(
        &self,
        start: usize,
        d: &[u32],
        mut s: usize,
        ts: u64,
        mut f: impl FnMut(u32, usize, bool),
    ) {
        let idx = self.stamp_index();
        let stamps = self.stamps();
        let mut k = 0;
        while k < d.len() {
            let dst = d[k];
            let mut seen: Option<(usize, bool)> = None;
            while k < d.len() && d[k] == dst {
                let e = start + k;
                while idx.get(s).is_some_and(|&i| (i as usize) < e) {
                    s += 1;
                }
                let (ets, tomb) = match idx.get(s) {
                    Some(&i) if i as usize == e => unstamp(stamps.get(s).copied().unwrap_or(0)),
                    _ => (0, false),
                };
                if seen.is_none() && ets <= ts {
                    seen = Some((e, tomb));
                }
                k += 1;
            }
            if let Some((e, tomb)) = seen {
                f(dst, e, tomb);
            }
        }
    }

    #[cfg(test)] // used by the format tests only
    /// Weight of edge `v -> dst` as a snapshot at `ts` sees it, or `None`
    /// if absent there. Binary search on `v`'s destinations.
    pub(crate) fn visible_weight(&self, v: u32, dst: u32, ts: u64) -> Option<f64> {
        self.decided(v, dst, ts).weight()
    }

    /// What this segment says about edge `v -> dst` at `ts`.
    pub(crate) fn decided(&self, v: u32, dst: u32, ts: u64) -> Decided {
        match self.deciding(v, dst, ts) {
            None => Decided::Undecided,
            Some((_, true)) => Decided::Deleted,
            Some((e, false)) => Decided::Live(self.weight_in(self.look_up_bytes(), e)),
        }
    }

    /// `decided` without the weight (which would cost one more memory
    /// access per look-up): `Some(live)` if this segment decides.
    pub(crate) fn decided_live(&self, v: u32, dst: u32, ts: u64) -> Option<bool> {
        self.deciding(v, dst, ts).map(|(_, tomb)| !tomb)
    }

    /// Asks the kernel to start reading every byte a look-up of an edge of
    /// `vertices` reads here (rows, offsets, list starts, destinations,
    /// stamps), in large requests, and returns at once: for a pass of
    /// look-ups in vertex order (settling blind inserts). Faulted in one
    /// by one, the pages would each be a read of their own; through the
    /// read-ahead mapping each fault reads a window around it that on some
    /// disks is 8 MiB, and under a memory cap the windows of the segments
    /// such a pass reads side by side evict each other before they are
    /// read (`store/settle.rs`). Only the column ends are read here,
    /// through the mapping without read-ahead.
    pub(crate) fn will_need(&self, vertices: Range<u32>) {
        let storage = &self.inner.storage;
        let bytes = storage.point_bytes();
        let offsets: &[u32] = self.col_in(bytes, Section::Offsets);
        let n = offsets.len().saturating_sub(1);
        let rows = self.rows_in(bytes);
        let (r0, r1) = (
            rows.rows_below(vertices.start, n),
            rows.rows_below(vertices.end, n),
        );
        if r0 >= r1 {
            return;
        }
        let (e0, e1) = (
            offsets.get(r0).map_or(0, |&e| e as usize),
            offsets.get(r1).map_or(0, |&e| e as usize),
        );
        let ask = |s: Section, from: usize, to: usize| {
            let at = self.header().section(s).offset as usize;
            storage.will_need(at.saturating_add(from)..at.saturating_add(to));
        };
        ask(Section::Offsets, 4 * r0, 4 * (r1 + 1));
        if self.is_sparse() {
            let lo = self.vertex_range().start;
            let span = |v: u32| (v.saturating_sub(lo) as usize / 64) * 16;
            ask(
                Section::Present,
                span(vertices.start),
                span(vertices.end) + 16,
            );
        }
        if self.is_packed() {
            ask(Section::Lists, 4 * r0, 4 * (r1 + 1));
            let starts: &[u32] = self.col_in(bytes, Section::Lists);
            let at = |r: usize| starts.get(r).map_or(0, |&x| x as usize);
            ask(Section::Dsts, at(r0), at(r1) + pack::SLACK);
        } else {
            ask(Section::Dsts, 4 * e0, 4 * e1);
        }
        if self.has_stamps() {
            let idx: &[u32] = self.col_in(bytes, Section::StampIdx);
            let below = |e: usize| idx.partition_point(|&i| (i as usize) < e);
            let (k0, k1) = (below(e0), below(e1));
            ask(Section::StampIdx, 4 * k0, 4 * k1);
            ask(Section::Stamps, 8 * k0, 8 * k1);
        }
    }

    /// `decided_live` for each of `dsts` (ascending) at once: calls
    /// `f(k, live)` for each `dsts[k]` this segment decides. A packed list
    /// is decoded once, up to the last of them. Asked one at a time, each
    /// look-up decodes half the list on average, and the look-ups a
    /// settling pass makes in vertex order come most often to the longest
    /// lists (an edge's source is a hub in proportion to its degree): at
    /// k24, 3,800 entries a look-up on average.
    pub(crate) fn decided_live_each(
        &self,
        v: u32,
        dsts: &[u32],
        ts: u64,
        mut f: impl FnMut(usize, bool),
    ) {
        let Some(&last) = dsts.last() else {
            return;
        };
        let r = self.entry_range(v);
        if r.is_empty() {
            return;
        }
        let bytes = self.look_up_bytes();
        let mut each = |d: &[u32]| {
            for (k, &dst) in dsts.iter().enumerate() {
                if let Some((_, tomb)) = self.deciding_in(bytes, r.clone(), d, dst, ts) {
                    f(k, !tomb);
                }
            }
        };
        if !self.is_packed() {
            let d: &[u32] = self.col_in(bytes, Section::Dsts);
            return each(d.get(r.clone()).unwrap_or(&[]));
        }
        with_decoded(|buf| {
            let lists = self.packed_lists_in(bytes);
            pack::decode_through(lists.bytes_from(v), r.len(), last, buf);
            each(buf);
        })
    }

    /// The entry of the version of `v -> dst` a snapshot at `ts` sees, and
    /// whether it is a tombstone. Its reads go through the mapping
    /// `entry_range` picks, as a list read's do: a look-up at random reads
    /// only its own pages, and look-ups in vertex order (a flush settling
    /// the blind inserts since the last one, tens of thousands sorted by
    /// vertex, which touch most pages of a level) get read-ahead instead of
    /// a page fault for every page.
    #[inline]
    fn deciding(&self, v: u32, dst: u32, ts: u64) -> Option<(usize, bool)> {
        let r = self.entry_range(v);
        let bytes = self.look_up_bytes();
        if !self.is_packed() {
            let d: &[u32] = self.col_in(bytes, Section::Dsts);
            return self.deciding_in(bytes, r.clone(), d.get(r).unwrap_or(&[]), dst, ts);
        }
        // Only the chunks up to the first entry past `dst` are decoded.
        with_decoded(|buf| {
            let lists = self.packed_lists_in(bytes);
            pack::decode_through(lists.bytes_from(v), r.len(), dst, buf);
            self.deciding_in(bytes, r, buf, dst, ts)
        })
    }

    /// `deciding` over `d`, the start of the raw list of entries `r`
    /// holding every entry up to `dst` and one more unless the list ends
    /// first; stamps are read from `bytes`.
    #[inline]
    fn deciding_in(
        &self,
        bytes: &[u8],
        r: Range<usize>,
        d: &[u32],
        dst: u32,
        ts: u64,
    ) -> Option<(usize, bool)> {
        if d.len() > r.len() {
            return None;
        }
        let mut k = crate::util::search::count_below(d, dst);
        while d.get(k) == Some(&dst) {
            let e = r.start + k;
            let (ets, tomb) = self.stamp_in(bytes, e);
            if ets <= ts {
                return Some((e, tomb));
            }
            k += 1;
        }
        None
    }

    /// Number of destinations of `v` a snapshot at `ts` sees.
    pub(crate) fn degree(&self, v: u32, ts: u64) -> usize {
        if self.scan_is_plain(v, ts) {
            return self.entry_range(v).len();
        }
        let mut n = 0;
        self.for_each_visible(v, ts, |_, _| n += 1);
        n
    }
}
