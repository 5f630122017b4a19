//! The flushed layers below the MemGraph, and the write rules that consult
//! them.
//!
//! `Layers` is immutable and shared through an `Arc`: a flush publishes a new
//! one with its run in front, and every snapshot and commit keeps the one it
//! started with. MemGraph versions a run holds are dropped from the MemGraph
//! only once no holder of an older `Layers` remains (see `maintain`), so a
//! reader always finds every version either in the MemGraph or in its runs.
//!
//! Writers decide an edge's latest state by the same newest-source-first rule
//! as readers: the MemGraph set when it holds a version of the edge, else the
//! newest run that does. A delete of an edge that lives only in a run writes
//! a tombstone into the MemGraph (`EdgeSet::bury`) to hide it there.

use crate::csr::Segment;
use crate::lsm::merge::{Merger, Source};
use crate::mem::{EdgeSet, Effect, Stamping};
use crate::version::Timestamp;
use std::sync::Arc;

/// What one flush wrote: every version up to `cut` that snapshots at or
/// after the flush's watermark need, by source and (directed) by target.
pub(crate) struct FlushedRun {
    /// Names the run's files in an on-disk store.
    pub id: u64,
    pub out: Segment,
    /// In-edges of a directed graph.
    pub inn: Option<Segment>,
    pub cut: Timestamp,
}

/// The runs below the MemGraph, newest first.
#[derive(Default)]
pub(crate) struct Layers {
    pub runs: Vec<Arc<FlushedRun>>,
}

/// The newest possible snapshot: sees every version, so "decided at
/// `LATEST`" is the latest state.
const LATEST: u64 = u64::MAX;

impl Layers {
    pub(crate) fn is_empty(&self) -> bool {
        self.runs.is_empty()
    }

    /// Bytes held by the runs' segments.
    pub(crate) fn bytes(&self) -> usize {
        self.runs
            .iter()
            .map(|r| r.out.byte_len() + r.inn.as_ref().map_or(0, Segment::byte_len))
            .map(|b| b as usize)
            .sum()
    }

    /// The segments of one direction, newest first (undirected graphs keep
    /// everything in `out`).
    pub(crate) fn segments(&self, inn: bool) -> impl Iterator<Item = &Segment> {
        self.runs.iter().map(move |r| {
            if inn {
                r.inn.as_ref().unwrap_or(&r.out)
            } else {
                &r.out
            }
        })
    }

    /// `set` (vertex `v`'s MemGraph set in one direction) stacked on the
    /// runs, as merge sources.
    pub(crate) fn sources<'a>(&'a self, set: &'a EdgeSet, inn: bool) -> Vec<Source<'a>> {
        let mut s = Vec::with_capacity(self.runs.len() + 1);
        s.push(Source::Mem(set));
        s.extend(self.segments(inn).map(Source::Seg));
        s
    }

    /// Weight of edge `v -> d` in the latest state of the runs alone
    /// (ignoring the MemGraph): the newest run holding a version decides.
    fn below(&self, v: u32, d: u32, inn: bool) -> Option<f64> {
        self.segments(inn)
            .find_map(|seg| seg.decided(v, d, LATEST))
            .flatten()
    }

    /// Whether a write of `v -> d` must look below the MemGraph: there are
    /// runs and `set` holds no version of `d`.
    #[inline]
    fn undecided(&self, set: &EdgeSet, d: u32) -> bool {
        !self.is_empty() && set.decided(d, LATEST).is_none()
    }

    /// Whether `set` holds no version of `d` while a run holds it live (see
    /// `Write::below`).
    pub(crate) fn live_only_below(&self, set: &EdgeSet, v: u32, d: u32, inn: bool) -> bool {
        self.undecided(set, d) && self.below(v, d, inn).is_some()
    }

    /// Weight of `v -> d` in the latest state across the MemGraph and runs.
    pub(crate) fn latest(&self, set: &EdgeSet, v: u32, d: u32, inn: bool) -> Option<f64> {
        match set.decided(d, LATEST) {
            Some(state) => state,
            None => self.below(v, d, inn),
        }
    }

    /// Inserts or re-weights `v -> d` in `set`; the effect counts the runs.
    pub(crate) fn put(
        &self,
        set: &mut EdgeSet,
        v: u32,
        d: u32,
        weight: f64,
        inn: bool,
        st: &Stamping,
    ) -> Effect {
        let below = self.live_only_below(set, v, d, inn);
        match set.put(d, weight, st) {
            Effect::Added if below => Effect::Updated,
            e => e,
        }
    }

    /// Deletes `v -> d` if it is live in the latest state, wherever it is.
    pub(crate) fn kill(
        &self,
        set: &mut EdgeSet,
        v: u32,
        d: u32,
        inn: bool,
        st: &Stamping,
    ) -> Effect {
        if !self.undecided(set, d) {
            set.kill(d, st)
        } else if self.below(v, d, inn).is_some() {
            set.bury(d, st)
        } else {
            Effect::Unchanged
        }
    }

    /// Destinations of `v` live in the latest state, ascending.
    pub(crate) fn latest_dsts(&self, set: &EdgeSet, v: u32, inn: bool) -> Vec<u32> {
        if self.is_empty() {
            return set.latest_dsts();
        }
        let mut out = Vec::new();
        Merger::default().visit(&self.sources(set, inn), v, LATEST, |d, _| out.push(d));
        out
    }
}
