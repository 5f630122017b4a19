//! Flush: a MemGraph's adjacency written out as CSR segments (L0 runs).
//!
//! A flush keeps what snapshots at or after the watermark `W` can see and
//! nothing else: every version newer than `W` keeps its timestamp in the
//! segment's side table, the newest version at or below `W` is kept without
//! one (it is what every possible snapshot sees, unless something newer
//! hides it), and older versions are dropped. Tombstones are kept with their
//! timestamps, because older copies of their edges may sit in lower levels;
//! only compaction into the last level may drop them.
//!
//! The MemGraph keeps taking writes meanwhile: it is read vertex by vertex
//! under each vertex's shared lock, and only versions committed in the
//! flush's span (after the previous run's cut, up to this one's) are
//! written, so commits that land during the flush wait for the next one.
//!
//! A vertex the flush writes as a pivot (`crate::pivot`) also gets a copy
//! of every edge that is live only in the levels below, as of the cut, and
//! a pivot mark at the cut: its run then holds its whole list for every
//! snapshot from the cut on. The copies are versions at the cut (without a
//! stamp when no snapshot before the cut is left), so an older snapshot
//! reads past them as it would past any newer version.

use super::compact::{versions_of, Version};
use super::layers::Layers;
use crate::csr::{Encoding, SegEntry, SegmentWriter};
use crate::direction::Direction;
use crate::error::Result;
use crate::mem::{EdgeSet, MemGraph};

/// Which vertices a flush writes as pivots, and the sources below its run
/// whose latest state completes their lists.
#[derive(Clone, Copy)]
pub(crate) struct Pivots<'a> {
    /// Every run and level below the new run.
    pub below: &'a Layers,
    /// Whether vertex `v`'s list (in the direction flushed) is a pivot.
    pub wants: &'a dyn Fn(u32) -> bool,
    /// Most entries the flush copies from below: a run is built in
    /// memory, so its copies are bounded as the MemGraph is. A vertex
    /// whose copies would pass it stays a delta.
    pub budget: usize,
}

/// The edges of `v` live in the latest state of `layers` alone, ascending
/// by destination, with weights: the newest version of each destination
/// decides, as for any read. `versions` is scratch space.
fn live_below(
    layers: &Layers,
    v: u32,
    dir: Direction,
    versions: &mut Vec<Version>,
    out: &mut Vec<(u32, f64)>,
) {
    versions_of(layers.segments_at(v, dir, u64::MAX), v, versions);
    out.clear();
    let mut last = None;
    for x in versions.iter() {
        if last != Some(x.dst) {
            last = Some(x.dst);
            if !x.tomb {
                out.push((x.dst, x.weight));
            }
        }
    }
}

/// Adds to `entries` (one vertex's, sorted by destination) an unversioned
/// or `ts`-stamped copy of each edge of `below` whose destination they
/// lack.
fn complete(entries: &mut Vec<SegEntry>, below: &[(u32, f64)], ts: u64) {
    if below.is_empty() {
        return;
    }
    let mine = std::mem::take(entries);
    let mut i = 0;
    for &(dst, weight) in below {
        while i < mine.len() && mine[i].dst < dst {
            entries.push(mine[i]);
            i += 1;
        }
        if mine.get(i).is_none_or(|e| e.dst != dst) {
            entries.push(SegEntry {
                dst,
                ts,
                tomb: false,
                weight,
            });
        }
    }
    entries.extend_from_slice(mine.get(i..).unwrap_or(&[]));
}

/// The segment entries of one edge set, as `EdgeSet::for_each_version`
/// reports them.
fn entries_of(set: &EdgeSet, watermark: u64, span: (u64, u64), out: &mut Vec<SegEntry>) {
    out.clear();
    set.for_each_version(watermark, span.0, span.1, |dst, ts, tomb, weight| {
        out.push(SegEntry {
            dst,
            ts,
            tomb,
            weight,
        });
    });
}

/// The versions committed in `span` = (after, up to] of vertices `0..bound`
/// of `mem` in one direction as one segment, for snapshots at or after
/// `watermark`, ready to be laid out (ending at `bound`): the flush streams
/// it into its file (`SegmentWriter::finish_file`). `In` only for directed
/// graphs, compressed as `encoding` allows (`Encoding::flush`); the
/// vertices `pivots` wants are written whole and marked (the cut, `span.1`,
/// must then be a commit timestamp).
pub(crate) fn flush_direction(
    mem: &MemGraph,
    bound: u32,
    dir: Direction,
    watermark: u64,
    span: (u64, u64),
    encoding: Encoding,
    pivots: Option<Pivots<'_>>,
) -> Result<SegmentWriter> {
    let mut writer = SegmentWriter::new(0, dir).encoding(encoding);
    let mut entries = Vec::new();
    let mut below = Vec::new();
    let mut scratch = Vec::new();
    let cut = span.1;
    let copy_ts = if watermark >= cut { 0 } else { cut };
    let mut budget = pivots.map_or(0, |p| p.budget);
    // A vertex holding versions has its dirty bit set: a flush of a few
    // edges skips the others 64 at a time.
    for v in mem.dirty_below(bound) {
        let present = mem.read(v, |s| {
            entries_of(s.set(dir), watermark, span, &mut entries);
        });
        if present.is_none() || entries.is_empty() {
            continue;
        }
        let mut pivot = pivots.filter(|p| (p.wants)(v));
        if let Some(p) = pivot {
            live_below(p.below, v, dir, &mut scratch, &mut below);
            if below.len() <= budget {
                budget -= below.len();
                complete(&mut entries, &below, copy_ts);
            } else {
                pivot = None;
            }
        }
        writer.push_vertex(v, &entries)?;
        if pivot.is_some() {
            writer.mark_pivot(v, cut)?;
        }
    }
    Ok(writer)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::Segment;
    use crate::read::merge::Source;
    use crate::{Graph, Options, Snapshot};

    /// A small deterministic generator (the test must not depend on a
    /// crate's random stream staying the same across versions).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self, n: u64) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (self.0 >> 33) % n
        }
    }

    /// Small enough that runs re-base (and prune) several times per test.
    const WINDOW: u32 = 256;

    /// Drops held snapshots about to pin the watermark past the stamp
    /// window, so writes keep succeeding while older snapshots stay held.
    fn retire_old(held: &mut Vec<Snapshot>, g: &Graph) {
        let now = g.snapshot().timestamp();
        held.retain(|s| now - s.timestamp() < u64::from(WINDOW) / 2);
    }

    /// What the segment says `v`'s neighbours are at `ts`, with weights.
    fn from_segment(seg: &Segment, v: u32, ts: u64) -> Vec<(u32, f64)> {
        let mut out = Vec::new();
        if seg.vertex_range().contains(&v) {
            seg.for_each_visible(v, ts, |d, e| out.push((d, seg.weight(e))));
        }
        out
    }

    fn side(inn: bool) -> Direction {
        if inn {
            Direction::In
        } else {
            Direction::Out
        }
    }

    fn from_snapshot(s: &Snapshot, v: u32, inn: bool) -> Vec<(u32, f64)> {
        if inn {
            // In-lists store no weights of their own; compare ids only.
            s.in_neighbors_of(v).map(|d| (d, 1.0)).collect()
        } else {
            s.out_weighted_of(v).collect()
        }
    }

    /// Random writes with snapshots held open along the way; a flush at the
    /// oldest held snapshot must answer every held snapshot exactly as the
    /// MemGraph does, in both directions.
    fn flush_matches_snapshots(directed: bool, seed: u64) {
        let g = Graph::in_memory(Options {
            directed,
            stamp_window: WINDOW, // re-base often, so stamps cross run bases
            ..Options::default()
        });
        let mut rng = Lcg(seed);
        let mut held: Vec<Snapshot> = Vec::new();
        for step in 0..3000 {
            let (a, b) = (rng.next(60), rng.next(60));
            let w = (rng.next(4) + 1) as f64 / 2.0;
            let _ = match rng.next(20) {
                0..=9 => g.insert_edge(a, b, w).map(drop),
                10..=15 => g.delete_edge(a, b).map(drop),
                16 => g.delete_vertex(a).map(drop),
                17 => {
                    let batch: Vec<_> = (0..20).map(|k| (a, (b + k) % 60, w)).collect();
                    g.insert_edges(&batch).map(drop)
                }
                _ => g.insert_vertex(a).map(drop),
            };
            if step % 37 == 0 {
                held.push(g.snapshot());
            }
            retire_old(&mut held, &g);
        }
        held.push(g.snapshot());
        let store = g.store();
        let watermark = held[0].timestamp();
        let bound = store.ids.bound();
        let directions: &[bool] = if directed { &[false, true] } else { &[false] };
        for &inn in directions {
            let bytes = flush_direction(
                &store.mem,
                bound,
                side(inn),
                watermark,
                (0, u64::MAX),
                Encoding::PLAIN,
                None,
            )
            .and_then(|w| w.finish(bound))
            .unwrap();
            let seg = Segment::from_bytes(bytes, "flush").unwrap();
            seg.verify().unwrap();
            for s in &held {
                for v in 0..bound {
                    // The MemGraph keeps a deleted vertex's edges as
                    // tombstones, so the segment agrees even for vertices
                    // that do not exist at `s`.
                    let want = if s.contains(v) {
                        from_snapshot(s, v, inn)
                    } else {
                        Vec::new()
                    };
                    let mut got = from_segment(&seg, v, s.timestamp());
                    if inn {
                        got.iter_mut().for_each(|e| e.1 = 1.0);
                    }
                    assert_eq!(
                        got,
                        want,
                        "seed {seed} inn {inn} v {v} ts {}",
                        s.timestamp()
                    );
                }
            }
        }
    }

    /// A flush at a past cut followed by the clean-up of the MemGraph: the
    /// cleaned sets stacked on the segment (`merge`) must answer every held
    /// snapshot as the MemGraph did before, across runs with different
    /// bases and versions pruned past the cut.
    fn flush_then_clean_keeps_snapshots(directed: bool, seed: u64) {
        let g = Graph::in_memory(Options {
            directed,
            stamp_window: WINDOW,
            ..Options::default()
        });
        let mut rng = Lcg(seed);
        let mut held: Vec<Snapshot> = Vec::new();
        for step in 0..2000 {
            let (a, b) = (rng.next(40), rng.next(40));
            let _ = match rng.next(10) {
                0..=5 => g.insert_edge(a, b, (rng.next(3) + 1) as f64).map(drop),
                6..=8 => g.delete_edge(a, b).map(drop),
                _ => g.delete_vertex(a).map(drop),
            };
            if step % 37 == 0 {
                held.push(g.snapshot());
            }
            retire_old(&mut held, &g);
        }
        held.push(g.snapshot());
        let store = g.store();
        let bound = store.ids.bound();
        let wm = held[0].timestamp();
        let cut = held[held.len() / 2].timestamp();
        let directions: &[bool] = if directed { &[false, true] } else { &[false] };
        let want: Vec<Vec<Vec<Vec<u32>>>> = directions
            .iter()
            .map(|&inn| {
                held.iter()
                    .map(|s| {
                        (0..bound)
                            .map(|v| from_snapshot(s, v, inn).into_iter().map(|e| e.0).collect())
                            .collect()
                    })
                    .collect()
            })
            .collect();
        let segs: Vec<Segment> = directions
            .iter()
            .map(|&inn| {
                let b = flush_direction(
                    &store.mem,
                    bound,
                    side(inn),
                    wm,
                    (0, cut),
                    Encoding::PLAIN,
                    None,
                )
                .and_then(|w| w.finish(bound))
                .unwrap();
                Segment::from_bytes(b, "cut").unwrap()
            })
            .collect();
        let mut dropped = 0;
        for v in 0..bound {
            let mut st = store.mem.lock(v);
            dropped += usize::from(st.out.drop_upto(cut));
            dropped += usize::from(st.inn.drop_upto(cut));
        }
        assert!(dropped > 0, "the clean-up had nothing to do");
        let mut merger = crate::read::merge::Merger::default();
        for (di, &inn) in directions.iter().enumerate() {
            for (si, s) in held.iter().enumerate() {
                for v in 0..bound {
                    let mut got = Vec::new();
                    store.mem.read(v, |st| {
                        let set = if inn { &st.inn } else { &st.out };
                        let sources = [Source::Mem(set), Source::Seg(&segs[di])];
                        merger.visit(&sources, v, s.timestamp(), |d, _| got.push(d));
                    });
                    // Vertices absent at `s` are filtered by existence.
                    let want_v = if s.contains(v) {
                        &want[di][si][v as usize]
                    } else {
                        &got
                    };
                    assert_eq!(
                        &got,
                        want_v,
                        "seed {seed} inn {inn} v {v} ts {}",
                        s.timestamp()
                    );
                }
            }
        }
    }

    #[test]
    fn flush_and_clean_up_answer_every_live_snapshot() {
        for seed in 21..25 {
            flush_then_clean_keeps_snapshots(true, seed);
            flush_then_clean_keeps_snapshots(false, seed + 100);
        }
    }

    #[test]
    fn flushed_segments_answer_every_live_snapshot_directed() {
        for seed in 1..6 {
            flush_matches_snapshots(true, seed);
        }
    }

    #[test]
    fn flushed_segments_answer_every_live_snapshot_undirected() {
        for seed in 11..16 {
            flush_matches_snapshots(false, seed);
        }
    }

    #[test]
    fn a_quiet_graph_flushes_to_a_plain_csr() {
        let g = Graph::in_memory(Options::default());
        g.insert_edges(&[(1, 2, 1.0), (1, 3, 1.0), (2, 3, 1.0)])
            .unwrap();
        g.delete_edge(1, 3).unwrap();
        g.insert_edge(1, 3, 1.0).unwrap();
        let store = g.store();
        // No snapshot is open: the watermark is the last commit, so every
        // version collapses to one unstamped entry and the tombstone goes.
        let wm = g.snapshot().timestamp();
        let seg = Segment::from_bytes(
            flush_direction(
                &store.mem,
                store.ids.bound(),
                Direction::Out,
                wm,
                (0, u64::MAX),
                Encoding::PLAIN,
                None,
            )
            .and_then(|w| w.finish(store.ids.bound()))
            .unwrap(),
            "quiet",
        )
        .unwrap();
        assert!(!seg.has_stamps());
        assert_eq!(seg.dsts(), &[1, 2, 2]);
        assert!(seg.is_plain_at(0));
    }
}
