//! Immutable CSR segments: the unit a flushed or compacted LSM level is
//! made of.
//!
//! A segment holds the adjacency lists of a contiguous range of internal
//! vertex ids `[lo, hi)` in one direction, as a plain CSR (`offsets`,
//! `dsts`) plus two optional columns: a timestamp side table for the few
//! entries some live snapshot still needs to see versioned, and weights when
//! any weight differs from 1.0. A reader whose snapshot is newer than every
//! stamp scans `dsts` as a bare slice (DESIGN.md principle 1), and a segment
//! is never modified after it is written, so readers share it through an
//! `Arc` without locks (principle 3). A segment may keep its weights coded
//! and (a compacted level, `Options::pack_levels`) its lists packed; a
//! packed list is decoded for each read (`Segment::with_list`), never a
//! slice.
//!
//! - `format`: byte layout and header (documented in `docs/FORMAT.md`);
//! - `writer`: `SegmentWriter` (and `write_columns` for whole columns),
//!   validated input, buffer or crash-safe file;
//! - `reader`: `Segment`, open-time checks, `verify`, read calls;
//! - `storage`: owned aligned buffer vs. memory map, atomic file write;
//! - `access`: which of a file's two mappings a thread reads one vertex's
//!   list through (read-ahead for reads in vertex order, none at random);
//! - `weights`: the weight column as readers see it, as stored or
//!   dictionary-coded, and the coding the writer does;
//! - `pack`: the packed list codec; `pack_simd`: its AVX2 decoding.

// Columns are cast straight from the file bytes, which are little-endian.
#[cfg(target_endian = "big")]
compile_error!("stratagraph segment files are little-endian and read by casting; big-endian targets are not supported");

mod access;
mod format;
mod pack;
mod pack_simd;
mod reader;
mod storage;
mod weights;
mod writer;

#[cfg(test)]
mod tests;

/// Lists ahead of the one being decoded whose first bytes a pass over a
/// packed level asks the CPU to start loading (`PackedLists::prefetch`).
const PREFETCH_AHEAD: usize = 16;

pub(crate) use format::Section;
pub(crate) use reader::{DecodeBuf, Rows, Segment};
pub(crate) use storage::SegmentBytes;
pub use weights::Weights;
pub(crate) use writer::{write_columns, SegmentWriter};

/// How a writer may compress a segment's columns; each applies only where
/// it makes the file smaller (`Options::compress_levels`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Encoding {
    /// Weights as a dictionary and a code per entry (`weights.rs`).
    pub code_weights: bool,
    /// Destinations packed per vertex (`pack.rs`): for the levels a
    /// compaction or a bulk load writes, not for a flush's run, which is
    /// read and merged again soon.
    pub pack_dsts: bool,
    /// Rows only for the vertices with entries (`FLAG_SPARSE`) where a
    /// row a vertex would be larger: a flush's run, or a small level,
    /// holding a few vertices of a range spanning the graph.
    pub sparse_rows: bool,
}

impl Encoding {
    /// Everything plain, as version 1 of the format had it.
    pub(crate) const PLAIN: Encoding = Encoding {
        code_weights: false,
        pack_dsts: false,
        sparse_rows: false,
    };

    /// What a flush writes: weights coded if `opts.compress_levels`,
    /// sparse rows where smaller.
    pub(crate) fn flush(opts: &crate::options::Options) -> Encoding {
        Encoding {
            code_weights: opts.compress_levels,
            pack_dsts: false,
            sparse_rows: true,
        }
    }

    /// What a compaction or bulk load writes: weights coded if
    /// `opts.compress_levels`, destinations packed if `opts.pack_levels`,
    /// sparse rows where smaller.
    pub(crate) fn level(opts: &crate::options::Options) -> Encoding {
        Encoding {
            code_weights: opts.compress_levels,
            pack_dsts: opts.pack_levels,
            sparse_rows: true,
        }
    }
}

/// One entry handed to the writer: an edge version.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SegEntry {
    pub dst: u32,
    /// Commit timestamp, or 0 when the version is older than every live
    /// snapshot (then it is stored without a stamp).
    pub ts: u64,
    /// The version deletes the edge; needs a timestamp.
    pub tomb: bool,
    pub weight: f64,
}

impl SegEntry {
    /// An unversioned edge of weight 1.0: what most of a compacted level is.
    pub(crate) fn plain(dst: u32) -> Self {
        SegEntry {
            dst,
            ts: 0,
            tomb: false,
            weight: 1.0,
        }
    }
}
