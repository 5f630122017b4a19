//! The LSM layer: CSR levels below the MemGraph (issue 3).
//!
//! Built so far, not yet wired into `Graph`:
//! - `flush` turns MemGraph adjacency into immutable CSR segments
//!   (`crate::csr`) carrying exactly the versions that live and future
//!   snapshots can need, checked against held snapshots by its tests;
//! - `merge` reads a vertex across a MemGraph set stacked on segments,
//!   checked against a model of the full history.
//!
//! The plan the next pieces follow, in order:
//! 1. *Freeze.* Vertex existence and the commit locks stay in a vertex table
//!    that is never flushed; adjacency moves into `MemGraph` objects held by
//!    `Arc` in an immutable `Version { active, frozen, l0, levels, index }`.
//!    Freezing (under the writers' gate, O(1)) publishes a new `Version`
//!    whose fresh `active` takes all later commits; a background thread
//!    flushes the frozen one and publishes the `Version` with its L0 run.
//!    Every source is then newer than every source below it, which is what
//!    makes the merge below simple.
//! 2. *Merged reads.* A snapshot holds its `Version`. For vertex `v` and a
//!    destination, the newest source holding a version visible at the
//!    snapshot decides (a tombstone there means absent). When only one
//!    source holds `v` and it is plain at the snapshot, the scan is a bare
//!    slice; the multi-level index says which sources hold `v`.
//! 3. *Writers* find an edge's latest state (for counts and delete checks)
//!    by the same newest-source-first rule under the vertex lock.
//! 4. *Compaction* into levels of one CSR each, split in segments by vertex
//!    range, merging one segment with the overlapping ones below and
//!    dropping tombstones only in the last level.
//! 5. *Two homes*: segments as owned buffers or files, with a manifest.

pub(crate) mod compact;
pub(crate) mod flush;
pub(crate) mod layers;
pub(crate) mod maintain;
pub(crate) mod merge;
