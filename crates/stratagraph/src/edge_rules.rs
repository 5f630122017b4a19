//! The rules a write decides an edge's latest state by, across the
//! MemGraph and the levels below it (`lsm::layers::Layers`).
//!
//! Writers decide by the same newest-source-first rule as readers: the
//! MemGraph set when it holds a version of the edge, else the newest run
//! or level part that does. A delete of an edge that lives only below
//! writes a tombstone into the MemGraph (`EdgeSet::bury`) to hide it there;
//! an insert of an edge that lives only below counts as a re-weight, not a
//! new edge. Transactions and batches both write through these rules.

use crate::direction::Direction;
use crate::lsm::layers::Layers;
use crate::mem::{EdgeSet, Effect, Stamping};
use crate::read::merge::{self, Merger};
use crate::version::Decided;

/// The newest possible snapshot: sees every version, so "decided at
/// `LATEST`" is the latest state.
const LATEST: u64 = u64::MAX;

/// The write rules, as methods of the layers a write consults.
pub(crate) trait EdgeRules {
    /// Whether `set` (vertex `v`'s MemGraph set in one direction) holds no
    /// version of `d` while a level holds it live (see `Write::below`).
    fn live_only_below(&self, set: &EdgeSet, v: u32, d: u32, dir: Direction) -> bool;
    /// Weight of `v -> d` in the latest state across the MemGraph and the
    /// levels.
    fn latest(&self, set: &EdgeSet, v: u32, d: u32, dir: Direction) -> Option<f64>;
    /// Inserts or re-weights `v -> d` in `set`; the effect counts the
    /// levels.
    fn put(
        &self,
        set: &mut EdgeSet,
        v: u32,
        d: u32,
        weight: f64,
        dir: Direction,
        st: &Stamping,
    ) -> Effect;
    /// Deletes `v -> d` if it is live in the latest state, wherever it is.
    fn remove(&self, set: &mut EdgeSet, v: u32, d: u32, dir: Direction, st: &Stamping) -> Effect;
    /// Destinations of `v` live in the latest state, ascending.
    fn latest_dsts(&self, set: &EdgeSet, v: u32, dir: Direction) -> Vec<u32>;
}

impl EdgeRules for Layers {
    fn live_only_below(&self, set: &EdgeSet, v: u32, d: u32, dir: Direction) -> bool {
        undecided(self, set, d) && below(self, v, d, dir).is_some()
    }

    fn latest(&self, set: &EdgeSet, v: u32, d: u32, dir: Direction) -> Option<f64> {
        match set.decided(d, LATEST) {
            Decided::Undecided => below(self, v, d, dir),
            state => state.weight(),
        }
    }

    fn put(
        &self,
        set: &mut EdgeSet,
        v: u32,
        d: u32,
        weight: f64,
        dir: Direction,
        st: &Stamping,
    ) -> Effect {
        let below = self.live_only_below(set, v, d, dir);
        match set.put(d, weight, st) {
            Effect::Added if below => Effect::Updated,
            e => e,
        }
    }

    fn remove(&self, set: &mut EdgeSet, v: u32, d: u32, dir: Direction, st: &Stamping) -> Effect {
        if !undecided(self, set, d) {
            set.kill(d, st)
        } else if below(self, v, d, dir).is_some() {
            set.bury(d, st)
        } else {
            Effect::Unchanged
        }
    }

    fn latest_dsts(&self, set: &EdgeSet, v: u32, dir: Direction) -> Vec<u32> {
        if self.is_empty() {
            return set.latest_dsts();
        }
        let mut out = Vec::new();
        Merger::default().visit(&merge::sources(self, set, v, dir), v, LATEST, |d, _| {
            out.push(d)
        });
        out
    }
}

/// Weight of edge `v -> d` in the latest state of the levels alone
/// (ignoring the MemGraph): the newest source holding a version decides.
fn below(layers: &Layers, v: u32, d: u32, dir: Direction) -> Option<f64> {
    layers
        .segments_of(v, dir)
        .map(|seg| seg.decided(v, d, LATEST))
        .find(|d| d.decides())
        .and_then(Decided::weight)
}

/// Whether a write of `v -> d` must look below the MemGraph: there are
/// levels and `set` holds no version of `d`.
#[inline]
fn undecided(layers: &Layers, set: &EdgeSet, d: u32) -> bool {
    !layers.is_empty() && !set.decided(d, LATEST).decides()
}
