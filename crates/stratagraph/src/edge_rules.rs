//! The rules a write decides an edge's latest state by, across the
//! MemGraph and the levels below it (`lsm::layers::Layers`).
//!
//! Writers decide by the same newest-source-first rule as readers: the
//! MemGraph set when it holds a version of the edge, else the newest run
//! or level part that does. A delete of an edge that lives only below
//! writes a tombstone into the MemGraph (`EdgeSet::bury`) to hide it there;
//! an insert of an edge that lives only below counts as a re-weight, not a
//! new edge. Transactions and batches both write through these rules.
//!
//! An insert into a destination the MemGraph set holds no version of
//! (`Effect::Fresh`) is the one case where telling an insert from a
//! re-weight needs the levels. Written blind (`Options::blind_inserts`), it
//! counts as new for now and is recorded in the blind ledger
//! (`crate::blind`), which settles it later against the levels as they
//! were when it was written; otherwise `settle` looks below at once.

use crate::direction::Direction;
use crate::lsm::layers::Layers;
use crate::mem::{EdgeSet, Effect, Stamping};
use crate::read::merge::{self, Merger};
use crate::version::Decided;

/// The newest possible snapshot: sees every version, so "decided at
/// `LATEST`" is the latest state.
const LATEST: u64 = u64::MAX;

/// Whether `set` (vertex `v`'s MemGraph set in one direction) holds no
/// version of `d` while a level holds it live (see `Write::below`).
pub(crate) fn live_only_below(
    layers: &Layers,
    set: &EdgeSet,
    v: u32,
    d: u32,
    dir: Direction,
) -> bool {
    undecided(layers, set, d) && layers.latest(v, d, dir).is_some()
}

/// Weight of `v -> d` in the latest state across the MemGraph and the
/// levels.
pub(crate) fn latest(
    layers: &Layers,
    set: &EdgeSet,
    v: u32,
    d: u32,
    dir: Direction,
) -> Option<f64> {
    match set.decided(d, LATEST) {
        Decided::Undecided => layers.latest(v, d, dir),
        state => state.weight(),
    }
}

/// What an insert's effect on `v`'s MemGraph set means for the graph:
/// `Fresh` (the set held no version of `d`) is `Added` with no levels,
/// stays `Fresh` when written `blind` (the caller records it in the blind
/// ledger and counts it as new), and otherwise is `Updated` when a level
/// holds the edge live, else `Added`.
pub(crate) fn settle(
    layers: &Layers,
    v: u32,
    d: u32,
    dir: Direction,
    effect: Effect,
    blind: bool,
) -> Effect {
    match effect {
        Effect::Fresh if layers.is_empty() => Effect::Added,
        Effect::Fresh if blind => Effect::Fresh,
        Effect::Fresh if layers.latest(v, d, dir).is_some() => Effect::Updated,
        Effect::Fresh => Effect::Added,
        e => e,
    }
}

/// Whether an insert with this effect made a new edge, as far as the
/// counts know now: `Fresh` counts as new until the blind ledger settles it.
pub(crate) fn counts_as_new(effect: Effect) -> bool {
    matches!(effect, Effect::Added | Effect::Fresh)
}

/// Deletes `v -> d` if it is live in the latest state, wherever it is.
pub(crate) fn remove(
    layers: &Layers,
    set: &mut EdgeSet,
    v: u32,
    d: u32,
    dir: Direction,
    st: &Stamping,
) -> Effect {
    if !undecided(layers, set, d) {
        set.kill(d, st)
    } else if layers.latest(v, d, dir).is_some() {
        set.bury(d, st)
    } else {
        Effect::Unchanged
    }
}

/// Destinations of `v` live in the latest state, ascending.
pub(crate) fn latest_dsts(layers: &Layers, set: &EdgeSet, v: u32, dir: Direction) -> Vec<u32> {
    if layers.is_empty() {
        return set.latest_dsts();
    }
    let mut out = Vec::new();
    Merger::default().visit(
        &merge::sources(layers, set, v, dir, LATEST),
        v,
        LATEST,
        |d, _| out.push(d),
    );
    out
}

/// Whether a write of `v -> d` must look below the MemGraph: there are
/// levels and `set` holds no version of `d`.
#[inline]
fn undecided(layers: &Layers, set: &EdgeSet, d: u32) -> bool {
    !layers.is_empty() && !set.decided(d, LATEST).decides()
}
