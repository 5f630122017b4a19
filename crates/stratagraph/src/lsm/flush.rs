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
//! The MemGraph is read vertex by vertex under each vertex's shared lock, so
//! a flush of a MemGraph that still takes writes sees each vertex at some
//! moment; the engine flushes only frozen MemGraphs, which nobody writes.

use crate::csr::{Direction, SegEntry, SegmentBytes, SegmentWriter};
use crate::error::Result;
use crate::mem::{EdgeSet, MemGraph};

/// The segment entries of one edge set, as `EdgeSet::for_each_version`
/// reports them.
fn entries_of(set: &EdgeSet, watermark: u64, out: &mut Vec<SegEntry>) {
    out.clear();
    set.for_each_version(watermark, |dst, ts, tomb, weight| {
        out.push(SegEntry {
            dst,
            ts,
            tomb,
            weight,
        });
    });
}

/// Writes vertices `0..bound` of `mem` in one direction as one segment.
/// `inn` selects in-edges (directed graphs only).
pub(crate) fn flush_direction(
    mem: &MemGraph,
    bound: u32,
    inn: bool,
    watermark: u64,
) -> Result<SegmentBytes> {
    let direction = if inn { Direction::In } else { Direction::Out };
    let mut writer = SegmentWriter::new(0, direction);
    let mut entries = Vec::new();
    for v in 0..bound {
        let present = mem.read(v, |s| {
            entries_of(if inn { &s.inn } else { &s.out }, watermark, &mut entries);
        });
        if present.is_some() && !entries.is_empty() {
            writer.push_vertex(v, &entries)?;
        }
    }
    writer.finish(bound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::csr::Segment;
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

    /// What the segment says `v`'s neighbours are at `ts`, with weights.
    fn from_segment(seg: &Segment, v: u32, ts: u64) -> Vec<(u32, f64)> {
        let mut out = Vec::new();
        if seg.vertex_range().contains(&v) {
            seg.for_each_visible(v, ts, |d, e| out.push((d, seg.weight(e))));
        }
        out
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
            stamp_window: 64, // re-base often, so stamps cross run bases
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
            if step % 97 == 0 {
                held.push(g.snapshot());
            }
            // Drop some old snapshots so the watermark moves and prunes.
            if step % 500 == 499 {
                held.drain(..held.len() / 2);
            }
        }
        held.push(g.snapshot());
        let shared = g.shared();
        let watermark = held[0].timestamp();
        let bound = shared.ids.bound();
        let directions: &[bool] = if directed { &[false, true] } else { &[false] };
        for &inn in directions {
            let bytes = flush_direction(&shared.mem, bound, inn, watermark).unwrap();
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
        let shared = g.shared();
        // No snapshot is open: the watermark is the last commit, so every
        // version collapses to one unstamped entry and the tombstone goes.
        let wm = g.snapshot().timestamp();
        let seg = Segment::from_bytes(
            flush_direction(&shared.mem, shared.ids.bound(), false, wm).unwrap(),
            "quiet",
        )
        .unwrap();
        assert!(!seg.has_stamps());
        assert_eq!(seg.dsts(), &[1, 2, 2]);
        assert!(seg.is_plain_at(0));
    }
}
