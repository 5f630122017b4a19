//! The read path: a [`Snapshot`] and everything it reads through.
//!
//! One neighbour list, from the outside in:
//! - `snapshot` holds the snapshot handle and its point look-ups; it finds
//!   where a vertex's list lives (a plain level slice, a copied MemGraph
//!   page, or several sources to merge) and answers from there;
//! - `scan` turns a list into the public iterators ([`Neighbors`],
//!   [`WeightedNeighbors`]) and reads MemGraph version runs;
//! - `mem_view` copies the MemGraph's part of a page once per snapshot (so
//!   later reads take no lock), and `hub_lists` keeps merged lists of
//!   high-degree vertices;
//! - `merge` merges a vertex's versions across the MemGraph and the levels,
//!   newest first; `union` is its fast path when every source reads plain.

pub(crate) mod hub_lists;
pub(crate) mod mem_view;
pub(crate) mod merge;
pub(crate) mod scan;
mod snapshot;
pub(crate) mod union;

pub use scan::{Neighbors, WeightedNeighbors};
pub use snapshot::Snapshot;
