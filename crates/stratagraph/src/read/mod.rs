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
//!   newest first; `union` is its fast path when every source reads plain;
//! - `shared` hands a compacted level's columns out without copying them.

mod edges;
pub(crate) mod hub_lists;
pub(crate) mod mem_view;
pub(crate) mod merge;
mod props;
pub(crate) mod scan;
mod shared;
mod snapshot;
pub(crate) mod union;

pub use edges::EdgeEnd;
pub use scan::{Neighbors, WeightedNeighbors};
pub use shared::{SharedColumn, SharedLists};
pub use snapshot::Snapshot;

use crate::lsm::layers::Layers;

/// What snapshots over one `Layers` built and keep for later snapshots of
/// the same layers: MemGraph pages (`mem_view`) and hubs' merged lists
/// (`hub_lists`). Kept in the layers' reader cache
/// (`Layers::reader_cache`), so it goes with them at the next flush or
/// compaction.
#[derive(Default)]
pub(crate) struct KeptReads {
    pub pages: mem_view::KeptPages,
    pub hubs: hub_lists::KeptHubs,
}

/// Bytes of what snapshots over `layers` keep for later ones.
pub(crate) fn kept_bytes(layers: &Layers) -> usize {
    layers.reader_cache_if_made::<KeptReads>().map_or(0, |k| {
        k.pages.bytes(mem_view::MemPage::bytes) + k.hubs.bytes(std::mem::size_of_val)
    })
}
