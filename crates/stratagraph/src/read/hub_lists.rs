//! Merged neighbour lists of high-degree vertices, kept for the life of a
//! snapshot.
//!
//! A vertex whose edges lie both in the MemGraph and below it has no list
//! to hand out: each read merges its slices anew, at a cost proportional to
//! its degree. Kernels that read a neighbour's list once per edge into it
//! (LCC, triangle counting, betweenness) then pay the sum of squared hub
//! degrees: at k20 with 20% of the edges in the MemGraph, LCC runs for
//! over 15 minutes without this cache (the same kernel on a compacted
//! store, where lists are slices, takes seconds). A snapshot
//! never changes, so the first read of a hub's merged list keeps it, and
//! later reads get it as a slice, as from a CSR, which also lets
//! intersections gallop into it.
//!
//! Only lists of at least `HUB_ENTRIES` destinations are kept, so the
//! memory is bounded by the hubs' edges (4 bytes each), taken only by
//! snapshots that read hubs on merged layers. The table is built lazily in
//! pages, so a snapshot that never meets a merged hub allocates nothing.
//!
//! Merged lists are also kept with the `Layers` they were merged over
//! (`KeptHubs`), as MemGraph pages are (`mem_view`): a later snapshot of
//! the same `Layers` takes a hub's list from there if no commit wrote an
//! edge of the hub since it was merged, instead of merging it again.

use crate::direction::Direction;
use crate::mem::MemGraph;
use crate::util::kept::Kept;
use std::sync::{Arc, OnceLock};

/// Lists shorter than this are merged on each read (cheap, and most
/// vertices of a power-law graph).
pub(crate) const HUB_ENTRIES: usize = 1024;

/// Slots per lazily allocated page (two per vertex: out and in).
const PAGE_SLOTS: usize = 64;

type Page = Box<[OnceLock<Arc<[u32]>>]>;

/// One snapshot's kept hub lists, shared by its clones.
#[derive(Default)]
pub(crate) struct HubLists {
    pages: OnceLock<Box<[OnceLock<Page>]>>,
}

impl HubLists {
    /// The cell keeping `v`'s merged list in one direction (`None` only for
    /// `v` at or past `bound`, the snapshot's id bound). The first reader
    /// fills it with `OnceLock::get_or_init`; readers on other threads wait
    /// for that one merge.
    pub(crate) fn cell(&self, v: u32, dir: Direction, bound: u32) -> Option<&OnceLock<Arc<[u32]>>> {
        if v >= bound {
            return None;
        }
        let slot = 2 * v as usize + usize::from(dir.is_in());
        let pages = self.pages.get_or_init(|| {
            let n = (2 * bound as usize).div_ceil(PAGE_SLOTS);
            (0..n).map(|_| OnceLock::new()).collect()
        });
        let page = pages
            .get(slot / PAGE_SLOTS)?
            .get_or_init(|| (0..PAGE_SLOTS).map(|_| OnceLock::new()).collect());
        page.get(slot % PAGE_SLOTS)
    }
}

/// Hub lists merged over one `Layers`, for later snapshots of it, keyed
/// by hub and direction.
pub(crate) type KeptHubs = Kept<(u32, Direction), [u32]>;

/// `v`'s list in one direction kept in `kept`, if a snapshot at `ts` may
/// take it: merged by a snapshot no newer, and no commit wrote an edge of
/// `v` after that one (see `MemGraph::note_write`).
pub(crate) fn kept_list(
    kept: &KeptHubs,
    mem: &MemGraph,
    v: u32,
    dir: Direction,
    ts: u64,
) -> Option<Arc<[u32]>> {
    let (list, merged) = kept.built_by(&(v, dir), ts)?;
    (mem.vertex_written(v) <= merged).then_some(list)
}
