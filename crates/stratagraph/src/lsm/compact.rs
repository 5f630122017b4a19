//! Compaction's merge: the versions of several segments over one vertex
//! range merged into one segment (which ones, and where the result goes, is
//! `leveling`'s business).
//!
//! Runs partition time (each holds the versions of its flush's span), so for
//! one vertex and destination, listing the runs' versions newest run first
//! lists them newest first overall. The merged run keeps what snapshots at
//! or after the watermark `W` can need, as a flush does: versions newer than
//! `W` with their timestamps, the newest at or below `W` without one. When
//! the merge reaches the bottom (nothing older below it) a tombstone at or
//! below `W` has nothing left to hide and goes too, so a quiet graph compacts
//! to a plain CSR that readers scan as bare slices.

use crate::csr::{Encoding, SegEntry, Segment, SegmentBytes, SegmentWriter};
use crate::direction::Direction;
use crate::error::Result;
use std::ops::Range;

/// One version read back from a segment, with where it came from.
pub(super) struct Version {
    pub dst: u32,
    /// Index of its segment in the newest-first list.
    seg: usize,
    /// Entry index inside that segment (newest first within a destination).
    entry: usize,
    ts: u64,
    pub tomb: bool,
    pub weight: f64,
}

/// Every version of `v` in `segs` (newest first), into `out` (cleared
/// first), sorted by destination and, within one, newest first: sources
/// are listed newest first and versions are newest first in each.
pub(super) fn versions_of<'s>(
    segs: impl IntoIterator<Item = &'s Segment>,
    v: u32,
    out: &mut Vec<Version>,
) {
    out.clear();
    let mut sources = 0;
    for (seg, s) in segs.into_iter().enumerate() {
        let range = s.entry_range(v);
        if range.is_empty() {
            continue;
        }
        sources += 1;
        // The stamped entries are a sorted index: find this list's first
        // once and walk along, rather than search it for every entry.
        let stamped = s.stamp_index();
        let mut k = stamped.partition_point(|&i| (i as usize) < range.start);
        s.with_weighted_list(v, |dsts, weights| {
            for (i, &dst) in dsts.iter().enumerate() {
                let entry = range.start + i;
                let (ts, tomb) = match stamped.get(k) {
                    Some(&at) if at as usize == entry => {
                        k += 1;
                        s.nth_stamp(k - 1)
                    }
                    _ => (0, false),
                };
                out.push(Version {
                    dst,
                    seg,
                    entry,
                    ts,
                    tomb,
                    weight: weights.get(i).unwrap_or(1.0),
                });
            }
        });
    }
    // Each source's list is sorted by destination, newest first within
    // one, and sources come newest first: a stable sort by destination
    // alone merges them into (destination, source, entry) order, and one
    // source needs none.
    if sources > 1 {
        out.sort_by_key(|x| x.dst);
    }
    debug_assert!(out
        .windows(2)
        .all(|w| (w[0].dst, w[0].seg, w[0].entry) < (w[1].dst, w[1].seg, w[1].entry)));
}

/// Merges `segs` (one direction) over vertices `range` into one segment
/// covering that range. For any one vertex, the segments holding it must be
/// listed newest first (several parts of one level may be listed: only one
/// of them holds a given vertex). `bottom`: nothing older lies below them.
/// The merged segment is compressed as `encoding` allows (`Encoding::level`).
///
/// A vertex marked a pivot in any input stays one in the merge, as of the
/// earliest of its marks: the merge holds everything the marked input and
/// the inputs above it held, so a read at or after that time still needs
/// nothing below it. At the bottom there is nothing below and marks go.
pub(crate) fn compact_direction(
    segs: &[&Segment],
    range: Range<u32>,
    dir: Direction,
    watermark: u64,
    bottom: bool,
    encoding: Encoding,
) -> Result<SegmentBytes> {
    let mut writer = SegmentWriter::new(range.start, dir).encoding(encoding);
    let mut marks: Vec<_> = segs
        .iter()
        .filter(|s| !bottom && s.has_pivots())
        .map(|s| s.pivot_marks().peekable())
        .collect();
    let mut versions: Vec<Version> = Vec::new();
    let mut entries: Vec<SegEntry> = Vec::new();
    let end = range.end;
    for v in range {
        versions_of(segs.iter().copied(), v, &mut versions);
        if versions.is_empty() {
            continue;
        }
        entries.clear();
        keep_needed(&versions, watermark, bottom, &mut entries);
        if !entries.is_empty() {
            writer.push_vertex(v, &entries)?;
            let mut pivot: Option<u64> = None;
            for m in &mut marks {
                while m.next_if(|&(u, _)| u < v).is_some() {}
                if let Some((_, ts)) = m.next_if(|&(u, _)| u == v) {
                    pivot = Some(pivot.map_or(ts, |p| p.min(ts)));
                }
            }
            if let Some(ts) = pivot {
                writer.mark_pivot(v, ts)?;
            }
        }
    }
    writer.finish(end)
}

/// The versions (sorted by destination, newest first) that snapshots at or
/// after `watermark` need.
fn keep_needed(versions: &[Version], watermark: u64, bottom: bool, out: &mut Vec<SegEntry>) {
    let mut i = 0;
    while i < versions.len() {
        let dst = versions[i].dst;
        let mut last_ts = None;
        while i < versions.len() && versions[i].dst == dst {
            let x = &versions[i];
            i += 1;
            // The same version can sit in two runs (a MemGraph version
            // whose exact time was pruned away is flushed again by a later
            // run); keep it once.
            if last_ts == Some(x.ts) {
                continue;
            }
            if x.ts > watermark {
                last_ts = Some(x.ts);
                out.push(SegEntry {
                    dst,
                    ts: x.ts,
                    tomb: x.tomb,
                    weight: x.weight,
                });
                continue;
            }
            // Newest at or below the watermark: what every snapshot sees
            // unless something newer hides it; older versions are dead.
            if !x.tomb {
                out.push(SegEntry {
                    weight: x.weight,
                    ..SegEntry::plain(dst)
                });
            } else if !bottom {
                out.push(SegEntry {
                    dst,
                    ts: x.ts,
                    tomb: true,
                    weight: x.weight,
                });
            }
            while i < versions.len() && versions[i].dst == dst {
                i += 1;
            }
            break;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A segment over vertices 0..8 where each listed vertex has the given
    /// destinations (unversioned), with pivot marks.
    fn seg(lists: &[(u32, &[u32])], marks: &[(u32, u64)]) -> Segment {
        let mut w = SegmentWriter::new(0, Direction::Out);
        for &(v, dsts) in lists {
            let entries: Vec<SegEntry> = dsts.iter().map(|&d| SegEntry::plain(d)).collect();
            w.push_vertex(v, &entries).unwrap();
        }
        for &(v, ts) in marks {
            w.mark_pivot(v, ts).unwrap();
        }
        Segment::from_bytes(w.finish(8).unwrap(), "test").unwrap()
    }

    /// A segment over vertices 0..64 from a seed: lists of stamped,
    /// tombstoned, re-weighted and plain versions, several per destination
    /// (newest first), written as `encoding`.
    fn versioned_seg(seed: u64, encoding: Encoding) -> Segment {
        let mut rng = crate::util::fuzz::Rng::new(seed);
        let mut next = move |n: u64| rng.below(n as usize) as u64;
        let mut w = SegmentWriter::new(0, Direction::Out).encoding(encoding);
        for v in 0..64u32 {
            if next(3) == 0 {
                continue;
            }
            let mut entries = Vec::new();
            let mut dst = next(4) as u32;
            for _ in 0..next(12) {
                // Newest first: stamps fall along one destination's run,
                // and an unstamped (old) version can only come last.
                let mut ts = 1000 + next(100);
                for _ in 0..=next(3) {
                    let plain = next(4) == 0;
                    entries.push(SegEntry {
                        dst,
                        ts: if plain { 0 } else { ts },
                        tomb: !plain && next(3) == 0,
                        weight: [1.0, 0.5, 2.0, 7.25][next(4) as usize],
                    });
                    if plain {
                        break;
                    }
                    ts -= 1 + next(5);
                }
                dst += 1 + next(6) as u32;
            }
            w.push_vertex(v, &entries).unwrap();
        }
        Segment::from_bytes(w.finish(64).unwrap(), "versioned").unwrap()
    }

    #[test]
    fn versions_come_merged_by_destination_newest_first_with_their_stamps_and_weights() {
        let encodings = [
            Encoding::PLAIN,
            Encoding {
                code_weights: true,
                pack_dsts: true,
                sparse_rows: true,
            },
        ];
        for seed in 0..20u64 {
            let segs: Vec<Segment> = (0..1 + seed % 4)
                .map(|i| versioned_seg(seed * 7 + i, encodings[((seed + i) % 2) as usize]))
                .collect();
            let mut got = Vec::new();
            for v in 0..64u32 {
                versions_of(&segs, v, &mut got);
                // The reference: every entry of every source looked up on
                // its own, sorted by (destination, source, entry).
                let mut want = Vec::new();
                for (seg, s) in segs.iter().enumerate() {
                    let range = s.entry_range(v);
                    s.with_list(v, |dsts| {
                        for (k, &dst) in dsts.iter().enumerate() {
                            let entry = range.start + k;
                            let (ts, tomb) = s.stamp_of(entry);
                            want.push((dst, seg, entry, ts, tomb, s.weight(entry)));
                        }
                    });
                }
                want.sort_by_key(|x| (x.0, x.1, x.2));
                let got: Vec<_> = got
                    .iter()
                    .map(|x| (x.dst, x.seg, x.entry, x.ts, x.tomb, x.weight))
                    .collect();
                assert_eq!(got, want, "seed {seed}, vertex {v}");
            }
        }
    }

    #[test]
    fn a_merge_keeps_each_vertexs_earliest_pivot_mark_above_the_bottom() {
        let newer = seg(&[(1, &[2]), (3, &[4]), (5, &[6])], &[(1, 9), (3, 7)]);
        let older = seg(&[(1, &[3]), (3, &[5]), (6, &[0])], &[(3, 4), (6, 2)]);
        let merged = |bottom| {
            let bytes = compact_direction(
                &[&newer, &older],
                0..8,
                Direction::Out,
                0,
                bottom,
                Encoding::PLAIN,
            )
            .unwrap();
            Segment::from_bytes(bytes, "merged").unwrap()
        };
        let above = merged(false);
        assert_eq!(
            above.pivot_marks().collect::<Vec<_>>(),
            vec![(1, 9), (3, 4), (6, 2)]
        );
        // At the bottom nothing lies below a list: marks would stop nothing.
        assert!(!merged(true).has_pivots());
    }
}
