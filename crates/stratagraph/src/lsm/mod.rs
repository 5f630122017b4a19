//! The LSM layer: immutable CSR levels below the MemGraph, and the pure
//! work of building them. Nothing here knows the store that owns them:
//! the store (`crate::store`) decides when to flush and compact, and hands
//! itself in as a [`LevelSink`] where new level files are written.
//!
//! - `flush` writes the MemGraph's versions up to a cut as an L0 run
//!   (a CSR segment per direction, `crate::csr`).
//! - `leveling` chooses what a compaction merges: all L0 runs into L1, or
//!   the parts holding an over-full level's excess into the parts of the
//!   next level they overlap (LSMGraph's vertex-aware compaction), the
//!   most over-full first, and plans the vertex ranges of the parts it
//!   writes.
//! - `compact` merges the versions of several segments over one vertex
//!   range, keeping what snapshots at or after the watermark need.
//! - `layers` is the immutable picture readers and writers hold: L0 runs
//!   above levels, with the page index saying which part of each level
//!   holds a vertex. Reading a vertex across them is the read path's
//!   (`crate::read::merge`).

pub(crate) mod compact;
pub(crate) mod flush;
pub(crate) mod layers;
pub(crate) mod leveling;

use crate::csr::SegmentBytes;
use crate::error::Result;
use crate::options::Options;
use crate::version::Timestamp;
use layers::FlushedRun;
use std::sync::Arc;

/// What building levels needs from the store that will hold them: its
/// options, how old a version may be dropped, a thread pool, and where a
/// finished run goes (a file on disk, or memory).
pub(crate) trait LevelSink: Sync {
    /// The store's options (direction, level sizes).
    fn options(&self) -> &Options;
    /// The oldest timestamp any reader may still ask for: versions
    /// superseded at or before it may go.
    fn watermark(&self) -> Timestamp;
    /// Runs `f`, which uses rayon, on the pool the store builds levels on.
    fn par<R: Send>(&self, f: impl FnOnce() -> R + Send) -> R;
    /// Makes finished segments (out-edges, and in-edges of a directed
    /// graph) a readable run holding versions up to `cut`, under a fresh
    /// run id.
    fn new_run(
        &self,
        out: SegmentBytes,
        inn: Option<SegmentBytes>,
        cut: Timestamp,
    ) -> Result<Arc<FlushedRun>>;
}
