//! Merged reads over stacked sources: the MemGraph's edge set above any
//! number of segments, newest first.
//!
//! Sources partition time: every version in a source is newer than every
//! version in the sources below it (a flush writes versions up to its cut,
//! the MemGraph keeps only later ones once cleaned, compaction merges
//! neighbouring ranges). So for a destination, the newest source that holds
//! a version at or before the snapshot decides, and that version is the
//! newest visible one overall: a live version gives the edge, a tombstone
//! hides every older copy. Sources that hold nothing at or before the
//! snapshot for a destination pass it on to the ones below.
//!
//! The common cases cost nothing extra: a vertex found in one source only is
//! scanned by that source's own (plain when possible) loop; only a vertex
//! spread over several sources pays for the merge, which walks each
//! source's decided list once (O(entries x sources), sources being few).

use crate::csr::Segment;
use crate::direction::Direction;
use crate::lsm::layers::Layers;
use crate::mem::EdgeSet;
use crate::version::Decided;

/// `set` (vertex `v`'s MemGraph set in one direction) stacked on the
/// segments of `layers` a read of `v` at `ts` needs (`Layers::segments_at`),
/// as merge sources, newest first.
pub(crate) fn sources<'a>(
    layers: &'a Layers,
    set: &'a EdgeSet,
    v: u32,
    dir: Direction,
    ts: u64,
) -> Vec<Source<'a>> {
    let mut s = Vec::with_capacity(layers.runs.len() + layers.levels.len() + 1);
    s.push(Source::Mem(set));
    s.extend(layers.segments_at(v, dir, ts).map(Source::Seg));
    s
}

/// One layer of adjacency for a vertex.
#[derive(Clone, Copy)]
pub(crate) enum Source<'a> {
    /// A MemGraph edge set (its own vertex is implied).
    Mem(&'a EdgeSet),
    /// A segment; holds the vertex if its range covers it.
    Seg(&'a Segment),
}

impl Source<'_> {
    /// Every decided destination of `v` at `ts`, ascending: weight, or
    /// `None` for a tombstone.
    fn decided_list(&self, v: u32, ts: u64, out: &mut Vec<(u32, Option<f64>)>) {
        out.clear();
        match self {
            Source::Mem(set) => set.for_each_decided(ts, |d, w| out.push((d, w))),
            Source::Seg(seg) => seg.for_each_decided(v, ts, |d, e, tomb| {
                out.push((d, (!tomb).then(|| seg.weight(e))));
            }),
        }
    }

    fn decided(&self, v: u32, dst: u32, ts: u64) -> Decided {
        match self {
            Source::Mem(set) => set.decided(dst, ts),
            Source::Seg(seg) => seg.decided(v, dst, ts),
        }
    }

    /// Whether this source may hold anything for `v`.
    fn holds(&self, v: u32) -> bool {
        match self {
            Source::Mem(set) => !set.is_empty(),
            Source::Seg(seg) => !seg.entry_range(v).is_empty(),
        }
    }
}

/// The weight of edge `v -> dst` at `ts` across `sources` (newest first),
/// or `None` if it is absent there.
pub(crate) fn weight(sources: &[Source<'_>], v: u32, dst: u32, ts: u64) -> Option<f64> {
    sources
        .iter()
        .map(|s| s.decided(v, dst, ts))
        .find(|d| d.decides())
        .and_then(Decided::weight)
}

/// Scratch space for merged scans, reused from vertex to vertex.
#[derive(Default)]
pub(crate) struct Merger {
    lists: Vec<Vec<(u32, Option<f64>)>>,
}

impl Merger {
    /// Calls `f(dst, weight)` for every edge of `v` visible at `ts` across
    /// `sources` (newest first), ascending by destination.
    pub(crate) fn visit(
        &mut self,
        sources: &[Source<'_>],
        v: u32,
        ts: u64,
        mut f: impl FnMut(u32, f64),
    ) {
        let mut holding = sources.iter().filter(|s| s.holds(v));
        let (Some(first), second) = (holding.next(), holding.next()) else {
            return;
        };
        if second.is_none() {
            return visit_one(first, v, ts, f);
        }
        let held: Vec<&Source<'_>> = sources.iter().filter(|s| s.holds(v)).collect();
        if self.lists.len() < held.len() {
            self.lists.resize_with(held.len(), Vec::new);
        }
        for (s, list) in held.iter().zip(&mut self.lists) {
            s.decided_list(v, ts, list);
        }
        let lists = &self.lists[..held.len()];
        let mut pos = vec![0usize; lists.len()];
        loop {
            // The smallest destination at any head; the newest list holding
            // it decides, and every list holding it moves past it.
            let Some(dst) = lists
                .iter()
                .zip(&pos)
                .filter_map(|(l, &p)| l.get(p).map(|e| e.0))
                .min()
            else {
                return;
            };
            let mut decision = None;
            for (l, p) in lists.iter().zip(pos.iter_mut()) {
                if let Some(&(d, state)) = l.get(*p) {
                    if d == dst {
                        decision.get_or_insert(state);
                        *p += 1;
                    }
                }
            }
            if let Some(Some(w)) = decision {
                f(dst, w);
            }
        }
    }
}

/// A vertex held by one source: that source's own scan.
fn visit_one(source: &Source<'_>, v: u32, ts: u64, mut f: impl FnMut(u32, f64)) {
    match source {
        Source::Mem(set) => set.for_each_decided(ts, |d, w| {
            if let Some(w) = w {
                f(d, w);
            }
        }),
        Source::Seg(seg) => seg.for_each_visible(v, ts, |d, e| f(d, seg.weight(e))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::{SegEntry, SegmentWriter};
    use crate::direction::Direction;
    use crate::mem::Stamping;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    /// One write to vertex 0's adjacency: (destination, weight or delete).
    type Event = (u32, Option<f64>);

    /// The model: the newest event at or before `ts` per destination.
    fn model(history: &[(u64, Event)], ts: u64) -> Vec<(u32, f64)> {
        let mut state: BTreeMap<u32, Option<f64>> = BTreeMap::new();
        for &(t, (d, w)) in history {
            if t <= ts {
                state.insert(d, w);
            }
        }
        state
            .into_iter()
            .filter_map(|(d, w)| w.map(|w| (d, w)))
            .collect()
    }

    /// A segment holding the events of `part` for vertex 0 as a flush at
    /// watermark `wm` would write them: newer than `wm` stamped, the newest
    /// at or below it unstamped if live (stamped if a tombstone), older
    /// ones dropped. Written independently of `flush` on purpose.
    fn segment_of(part: &[(u64, Event)], wm: u64) -> Segment {
        let mut by_dst: BTreeMap<u32, Vec<(u64, Option<f64>)>> = BTreeMap::new();
        for &(t, (d, w)) in part {
            by_dst.entry(d).or_default().push((t, w));
        }
        let mut entries = Vec::new();
        for (d, mut versions) in by_dst {
            versions.reverse(); // newest first
            for (t, w) in versions {
                let tomb = w.is_none();
                let old = t <= wm;
                entries.push(SegEntry {
                    dst: d,
                    ts: if old && !tomb { 0 } else { t },
                    tomb,
                    weight: w.unwrap_or(1.0),
                });
                if old {
                    break;
                }
            }
        }
        let mut w = SegmentWriter::new(0, Direction::Out);
        w.push_vertex(0, &entries).unwrap();
        Segment::from_bytes(w.finish(1).unwrap(), "test").unwrap()
    }

    fn set_of(part: &[(u64, Event)], wm: u64) -> EdgeSet {
        let mut set = EdgeSet::new();
        for &(ts, (d, w)) in part {
            let s = Stamping {
                ts,
                watermark: wm.min(ts - 1),
                window: 1 << 30,
            };
            match w {
                Some(w) => set.put(d, w, &s),
                // The edge may live in an older source: always bury.
                None => set.bury(d, &s),
            };
        }
        set
    }

    fn events() -> impl Strategy<Value = Vec<Event>> {
        proptest::collection::vec((0u32..12, proptest::option::weighted(0.7, 1u32..4)), 1..80)
            .prop_map(|v| v.into_iter().map(|(d, w)| (d, w.map(f64::from))).collect())
    }

    proptest! {
        /// History split at two cuts into two segments and a MemGraph set
        /// on top; every snapshot from the oldest watermark on reads the
        /// model's answer through the merge, and point look-ups agree.
        #[test]
        fn merged_reads_match_the_model(
            evs in events(),
            cut_a in 0usize..80,
            cut_b in 0usize..80,
            lag in 0u64..10,
        ) {
            let history: Vec<(u64, Event)> =
                evs.iter().enumerate().map(|(i, &e)| (i as u64 + 1, e)).collect();
            let n = history.len();
            let (a, b) = (cut_a.min(cut_b).min(n), cut_a.max(cut_b).min(n));
            // Each lower source was flushed at its cut with a watermark up to
            // `lag` commits earlier; snapshots start at the oldest one.
            let wm_a = (a as u64).saturating_sub(lag);
            let wm_b = (b as u64).saturating_sub(lag).max(wm_a);
            let oldest = [&history[..a], &history[a..b]];
            let seg_old = segment_of(oldest[0], wm_a);
            let seg_mid = segment_of(oldest[1], wm_b);
            let set = set_of(&history[b..], wm_b);
            let sources = [Source::Mem(&set), Source::Seg(&seg_mid), Source::Seg(&seg_old)];
            let mut merger = Merger::default();
            for ts in wm_b..=n as u64 + 1 {
                let want = model(&history, ts);
                let mut got = Vec::new();
                merger.visit(&sources, 0, ts, |d, w| got.push((d, w)));
                prop_assert_eq!(&got, &want, "ts {}", ts);
                for d in 0..12 {
                    let w = want.iter().find(|e| e.0 == d).map(|e| e.1);
                    prop_assert_eq!(weight(&sources, 0, d, ts), w, "dst {} ts {}", d, ts);
                }
            }
        }
    }

    #[test]
    fn a_vertex_in_one_source_reads_that_source_alone() {
        let seg = segment_of(&[(1, (3, Some(2.0))), (2, (5, Some(1.0)))], 2);
        let empty = EdgeSet::new();
        let sources = [Source::Mem(&empty), Source::Seg(&seg)];
        let mut got = Vec::new();
        Merger::default().visit(&sources, 0, 9, |d, w| got.push((d, w)));
        assert_eq!(got, vec![(3, 2.0), (5, 1.0)]);
        // A vertex outside the segment's range has nothing anywhere.
        let mut none = 0;
        Merger::default().visit(&sources, 1, 9, |_, _| none += 1);
        assert_eq!(none, 0);
    }
}
