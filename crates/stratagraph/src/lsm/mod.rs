//! The LSM layer: CSR levels below the MemGraph (issue 3).
//!
//! Data flows down, one way:
//! - `maintain` decides when the MemGraph is flushed (its budget), runs the
//!   flush on a background thread, publishes the result and writes the
//!   manifest; then it asks `leveling` for compaction steps until every
//!   level is within its size.
//! - `flush` writes the MemGraph's versions up to a cut as an L0 run
//!   (a CSR segment per direction, `crate::csr`).
//! - `bulk` writes a large batch into a store with no edge straight into
//!   the level its size calls for, past the MemGraph (a bulk load).
//! - `leveling` chooses what a compaction merges: all L0 runs into L1, or
//!   one part of an over-full level into the parts of the next level it
//!   overlaps (LSMGraph's vertex-aware compaction), and plans the vertex
//!   ranges of the parts it writes.
//! - `compact` merges the versions of several segments over one vertex
//!   range, keeping what snapshots at or after the watermark need.
//! - `layers` is the immutable picture readers and writers hold: L0 runs
//!   above levels, with the page index saying which part of each level
//!   holds a vertex; `merge` reads a vertex across the MemGraph and those
//!   sources, newest first; `union` is its fast path for a vertex whose
//!   segments read plain.

pub(crate) mod bulk;
pub(crate) mod compact;
pub(crate) mod flush;
pub(crate) mod layers;
pub(crate) mod leveling;
pub(crate) mod maintain;
pub(crate) mod merge;
pub(crate) mod union;
