//! Segment tests: round trips against a reference model, damage detection
//! (every truncation, every bit flip), writer input checks, the fast path.
#![allow(clippy::unwrap_used)]

use super::format::{self, HEADER_LEN, MAGIC, TS_MASK};
use super::*;
use crate::direction::Direction;
use crate::error::Error;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Every compression on.
const ALL: Encoding = Encoding {
    code_weights: true,
    pack_dsts: true,
    sparse_rows: true,
};

/// What a test asks to store: per vertex, its entries in writer order.
#[derive(Debug, Clone)]
struct Spec {
    lo: u32,
    hi: u32,
    dir: Direction,
    block_size: u32,
    /// What the writer may compress.
    enc: Encoding,
    vertices: BTreeMap<u32, Vec<SegEntry>>,
    /// Pivot marks: vertex, timestamp.
    pivots: BTreeMap<u32, u64>,
}

impl Spec {
    fn build(&self) -> SegmentBytes {
        self.writer().finish(self.hi).unwrap()
    }

    /// The writer with everything pushed, not yet finished.
    fn writer(&self) -> SegmentWriter {
        let mut w = SegmentWriter::new(self.lo, self.dir)
            .with_block_size(self.block_size)
            .encoding(self.enc);
        for (&v, es) in &self.vertices {
            w.push_vertex(v, es).unwrap();
        }
        for (&v, &ts) in &self.pivots {
            w.mark_pivot(v, ts).unwrap();
        }
        w
    }

    fn entries(&self, v: u32) -> &[SegEntry] {
        self.vertices.get(&v).map_or(&[], |e| e.as_slice())
    }

    /// The reference answer: per destination, the first (newest) version
    /// with timestamp <= ts; absent if none or a tombstone.
    fn visible(&self, v: u32, ts: u64) -> Vec<(u32, f64)> {
        let mut groups: BTreeMap<u32, Vec<SegEntry>> = BTreeMap::new();
        for e in self.entries(v) {
            groups.entry(e.dst).or_default().push(*e);
        }
        groups
            .into_iter()
            .filter_map(|(dst, vs)| {
                let e = vs.into_iter().find(|e| e.ts <= ts)?;
                (!e.tomb).then_some((dst, e.weight))
            })
            .collect()
    }

    /// Whether the newest version of `v -> dst` with timestamp <= ts is
    /// live; `None` without one.
    fn decided_live(&self, v: u32, dst: u32, ts: u64) -> Option<bool> {
        self.entries(v)
            .iter()
            .find(|e| e.dst == dst && e.ts <= ts)
            .map(|e| !e.tomb)
    }

    fn all(&self) -> impl Iterator<Item = &SegEntry> {
        self.vertices.values().flatten()
    }
}

fn weight_of(k: u8) -> f64 {
    [1.0, 0.5, 2.0, -3.25][k as usize % 4]
}

/// Versions of one destination, newest first.
fn arb_group(versioned: bool, weighted: bool) -> impl Strategy<Value = Vec<(u64, bool, f64)>> {
    (
        prop::collection::btree_set(1u64..60, 0..3),
        any::<bool>(),
        prop::collection::vec(any::<bool>(), 3),
        prop::collection::vec(any::<u8>(), 4),
    )
        .prop_map(move |(tss, zero_tail, tombs, ws)| {
            let mut out: Vec<(u64, bool, f64)> = Vec::new();
            if versioned {
                for (i, ts) in tss.into_iter().rev().enumerate() {
                    out.push((ts, tombs[i], 0.0));
                }
            }
            if out.is_empty() || zero_tail {
                out.push((0, false, 0.0));
            }
            for (i, o) in out.iter_mut().enumerate() {
                o.2 = if weighted { weight_of(ws[i]) } else { 1.0 };
            }
            out
        })
}

fn arb_spec() -> impl Strategy<Value = Spec> {
    (
        any::<bool>(),
        any::<bool>(),
        0u32..5,
        0u32..4,
        any::<bool>(),
        0usize..3,
        any::<bool>(),
        any::<bool>(),
        any::<u16>(),
        any::<bool>(),
    )
        .prop_flat_map(
            |(versioned, weighted, lo, extra, inn, bs, code, pack, marks, sparse)| {
                let vertex =
                    prop::collection::btree_map(0u32..40, arb_group(versioned, weighted), 0..8);
                prop::collection::btree_map(lo..lo + 12, vertex, 0..8).prop_map(move |vs| {
                    let top = vs.keys().next_back().map_or(lo, |&v| v + 1);
                    let vertices = vs
                        .into_iter()
                        .map(|(v, groups)| {
                            let es = groups
                                .into_iter()
                                .flat_map(|(dst, g)| {
                                    g.into_iter().map(move |(ts, tomb, weight)| SegEntry {
                                        dst,
                                        ts,
                                        tomb,
                                        weight,
                                    })
                                })
                                .collect();
                            (v, es)
                        })
                        .collect();
                    Spec {
                        lo,
                        hi: top + extra,
                        dir: if inn { Direction::In } else { Direction::Out },
                        block_size: [64, 256, 65536][bs],
                        enc: Encoding {
                            code_weights: code,
                            pack_dsts: pack,
                            sparse_rows: sparse,
                        },
                        // Any vertex up to the last listed may be marked,
                        // listed itself or not.
                        pivots: (lo..top)
                            .filter(|v| (marks >> ((v - lo) % 16)) & 1 == 1)
                            .map(|v| (v, 1 + u64::from(v) * 7 % 60))
                            .collect(),
                        vertices,
                    }
                })
            },
        )
}

const SNAPSHOTS: [u64; 9] = [0, 1, 7, 20, 35, 59, 60, 1000, TS_MASK];

/// Compares every column and every read call with the spec.
fn check(seg: &Segment, spec: &Spec) {
    seg.verify().unwrap();
    // Reading ahead is a hint: any range, inside the segment or not,
    // changes none of the answers below.
    for r in [
        0..0,
        spec.lo..spec.hi,
        spec.lo + 1..spec.lo,
        spec.hi..u32::MAX,
        0..u32::MAX,
    ] {
        seg.will_need(r);
    }
    assert_eq!(seg.vertex_range(), spec.lo..spec.hi);
    assert_eq!(seg.direction(), spec.dir);
    assert_eq!(seg.has_pivots(), !spec.pivots.is_empty());
    for v in spec.lo.saturating_sub(2)..spec.hi + 2 {
        assert_eq!(
            seg.pivot_of(v),
            spec.pivots.get(&v).copied(),
            "pivot of {v}"
        );
    }
    assert_eq!(
        seg.pivot_marks().collect::<Vec<_>>(),
        spec.pivots
            .iter()
            .map(|(&v, &t)| (v, t))
            .collect::<Vec<_>>()
    );

    // A row a vertex, or (sparse) a row a vertex with entries, when asked,
    // the entries are fewer than the vertices and the rows are smaller:
    // 16 bytes per 64 vertices and 4 a row, against 4 a vertex.
    let n = u64::from(spec.hi - spec.lo);
    let listed: Vec<u32> = (spec.lo..spec.hi)
        .filter(|&v| !spec.entries(v).is_empty())
        .collect();
    let few = (spec.all().count() as u64) < n;
    let smaller = 16 * n.div_ceil(64) + 4 * (listed.len() as u64 + 1) < 4 * (n + 1);
    assert_eq!(seg.is_sparse(), spec.enc.sparse_rows && few && smaller);
    let row_vertices: Vec<u32> = if seg.is_sparse() {
        listed
    } else {
        (spec.lo..spec.hi).collect()
    };
    assert_eq!(seg.row_vertices().collect::<Vec<_>>(), row_vertices);
    let mut offsets = vec![0u32];
    let mut dsts = Vec::new();
    let mut stamp_idx = Vec::new();
    let mut stamps = Vec::new();
    let mut weights = Vec::new();
    for &v in &row_vertices {
        for e in spec.entries(v) {
            if e.ts != 0 {
                stamp_idx.push(dsts.len() as u32);
                stamps.push(e.ts | if e.tomb { 1 << 63 } else { 0 });
            }
            dsts.push(e.dst);
            weights.push(e.weight);
        }
        offsets.push(dsts.len() as u32);
    }
    let weighted = weights.iter().any(|&w| w != 1.0);
    assert_eq!(seg.offsets(), &offsets[..]);
    // Packed or not, every list reads back; only a plain segment hands
    // out its column.
    let mut listed = Vec::new();
    for v in spec.lo..spec.hi {
        seg.with_list(v, |l| listed.extend_from_slice(l));
    }
    assert_eq!(listed, dsts);
    assert!(spec.enc.pack_dsts || !seg.is_packed());
    if seg.is_packed() {
        assert!(seg.dsts().is_empty());
    } else {
        assert_eq!(seg.dsts(), &dsts[..]);
    }
    assert_eq!(seg.stamp_index(), &stamp_idx[..]);
    assert_eq!(seg.stamps(), &stamps[..]);
    assert_eq!(seg.entry_count(), dsts.len());
    assert_eq!(seg.stamp_count(), stamps.len());
    assert_eq!(seg.has_stamps(), !stamps.is_empty());
    assert_eq!(seg.has_tombstones(), spec.all().any(|e| e.tomb));
    assert_eq!(seg.max_ts(), spec.all().map(|e| e.ts).max().unwrap_or(0));
    assert_eq!(seg.is_weighted(), weighted);
    assert_eq!(
        seg.weights().map(|w| w.to_vec()),
        weighted.then(|| weights.clone())
    );
    // A segment codes its weights when asked to and that is smaller.
    let distinct: std::collections::BTreeSet<u64> = weights.iter().map(|w| w.to_bits()).collect();
    let width = if distinct.len() <= 256 { 1 } else { 2 };
    let smaller =
        distinct.len() <= 65536 && 8 * distinct.len() + width * weights.len() < 8 * weights.len();
    assert_eq!(
        seg.weights_coded(),
        weighted && spec.enc.code_weights && smaller
    );
    assert_eq!(
        seg.weights().and_then(|w| w.as_raw()).is_some(),
        weighted && !seg.weights_coded()
    );
    for (i, &w) in weights.iter().enumerate() {
        assert_eq!(seg.weight(i), w);
    }

    // The entries below any vertex, counted from the spec.
    for v in spec.lo.saturating_sub(1)..spec.hi + 2 {
        let below: usize = (spec.lo..v.min(spec.hi))
            .map(|u| spec.entries(u).len())
            .sum();
        assert_eq!(seg.entries_below(v), below, "entries below vertex {v}");
    }

    for v in spec.lo.saturating_sub(1)..spec.hi + 2 {
        let raw: Vec<u32> = spec.entries(v).iter().map(|e| e.dst).collect();
        seg.with_list(v, |l| assert_eq!(l, &raw[..], "with_list({v})"));
        if !seg.is_packed() {
            assert_eq!(seg.entries_of(v), &raw[..], "entries_of({v})");
        }
        for ts in SNAPSHOTS {
            let want = spec.visible(v, ts);
            let mut got = Vec::new();
            seg.for_each_visible(v, ts, |d, e| got.push((d, seg.weight(e))));
            assert_eq!(got, want, "vertex {v} at ts {ts}");
            assert_eq!(seg.degree(v, ts), want.len());
            if seg.scan_is_plain(v, ts) {
                let all: Vec<(u32, f64)> =
                    spec.entries(v).iter().map(|e| (e.dst, e.weight)).collect();
                assert_eq!(all, want, "plain scan of {v} at {ts} would be wrong");
            }
            let model: BTreeMap<u32, f64> = want.into_iter().collect();
            for dst in 0..42 {
                assert_eq!(
                    seg.visible_weight(v, dst, ts),
                    model.get(&dst).copied(),
                    "edge {v}->{dst} at {ts}"
                );
            }
            // Many destinations asked at once (ascending, some twice, or a
            // few ending before the list does) answer as the spec says.
            let every: Vec<u32> = (0..42)
                .flat_map(|d| [d, d].into_iter().take(1 + (d % 3 == 0) as usize))
                .collect();
            let few: Vec<u32> = (0..42).filter(|d| d % 7 == 2).take(3).collect();
            for asked in [every, few, Vec::new()] {
                let mut got = vec![None; asked.len()];
                seg.decided_live_each(v, &asked, ts, |k, live| {
                    assert!(got[k].is_none(), "{v}->{} reported twice", asked[k]);
                    got[k] = Some(live);
                });
                let want: Vec<Option<bool>> =
                    asked.iter().map(|&d| spec.decided_live(v, d, ts)).collect();
                assert_eq!(got, want, "vertex {v} at ts {ts}, asked {asked:?}");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn round_trip_memory_and_file(spec in arb_spec()) {
        let dir = tempfile::tempdir().unwrap();
        let bytes = spec.build();

        let mem = Segment::from_bytes(bytes.clone(), "mem").unwrap();
        prop_assert!(!mem.is_mapped());
        check(&mem, &spec);

        let p1 = dir.path().join("a.seg");
        bytes.write_file(&p1).unwrap();
        let mapped = Segment::open(&p1).unwrap();
        prop_assert!(mapped.is_mapped());
        check(&mapped, &spec);

        prop_assert_eq!(std::fs::read(&p1).unwrap(), bytes.as_bytes().to_vec());

        // Streamed into a file by the writer (as a flush writes its run):
        // the same bytes as the image.
        let p2 = dir.path().join("b.seg");
        let len = spec.writer().finish_file(spec.hi, &p2).unwrap();
        prop_assert_eq!(len, bytes.len() as u64);
        prop_assert_eq!(std::fs::read(&p2).unwrap(), bytes.as_bytes().to_vec());

        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        prop_assert_eq!(names.len(), 2);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// The bounded fuzzer of the segment reader: several bytes of a valid
    /// segment overwritten at random, the result cut at random, or plain
    /// junk. Opening either fails with an error or yields a segment whose
    /// every read entry point works without panicking; when `verify` passes
    /// on a damaged segment the damage must have been a no-op.
    #[test]
    fn damaged_segments_never_panic(
        spec in arb_spec(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
        cut in any::<prop::sample::Index>(),
        junk in prop::collection::vec(any::<u8>(), 0..600),
    ) {
        let good = spec.build();
        let mut bytes = good.as_bytes().to_vec();
        for (at, value) in &edits {
            let i = at.index(bytes.len());
            bytes[i] = *value;
        }
        let len = if cut.index(4) == 0 { cut.index(bytes.len() + 1) } else { bytes.len() };
        for candidate in [&bytes[..len], &junk[..]] {
            if let Ok(seg) = Segment::from_bytes(SegmentBytes::copy_from_slice(candidate), "fuzz") {
                exercise(&seg);
                if seg.verify().is_ok() {
                    prop_assert_eq!(candidate, good.as_bytes());
                }
            }
        }
    }
}

/// A small segment with every optional part: stamps, tombstones, versions,
/// weights, empty vertices, several checksum blocks.
fn sample() -> Spec {
    let e = |dst, ts, tomb, weight| SegEntry {
        dst,
        ts,
        tomb,
        weight,
    };
    let mut vertices = BTreeMap::new();
    vertices.insert(
        3,
        vec![e(1, 0, false, 1.0), e(4, 9, true, 1.0), e(4, 0, false, 2.5)],
    );
    vertices.insert(5, vec![e(0, 12, false, 0.5), e(7, 0, false, 1.0)]);
    vertices.insert(6, (0..20).map(SegEntry::plain).collect());
    Spec {
        lo: 2,
        hi: 9,
        dir: Direction::Out,
        block_size: 64,
        enc: Encoding {
            code_weights: true,
            pack_dsts: false,
            sparse_rows: false,
        },
        vertices,
        pivots: BTreeMap::new(),
    }
}

/// Calls every read entry point over and beyond the range; must not panic.
fn exercise(seg: &Segment) {
    let _ = (
        seg.offsets(),
        seg.dsts(),
        seg.stamp_index(),
        seg.stamps(),
        seg.weights(),
    );
    let _ = (
        seg.max_ts(),
        seg.entry_count(),
        seg.is_weighted(),
        seg.has_stamps(),
    );
    for e in 0..seg.entry_count() + 2 {
        let _ = (seg.weight(e), seg.stamp_of(e));
    }
    let r = seg.vertex_range();
    for v in r.start.saturating_sub(1)..r.end.saturating_add(2).min(64) {
        let _ = seg.entries_of(v);
        for ts in [0, 5, 9, 12, 100, u64::MAX] {
            let _ = seg.scan_is_plain(v, ts);
            let _ = seg.degree(v, ts);
            seg.for_each_visible(v, ts, |d, e| {
                let _ = (d, seg.weight(e));
            });
            for dst in 0..25 {
                let _ = seg.visible_weight(v, dst, ts);
            }
        }
    }
}

fn assert_corrupt_at(err: &Error, file: &str, max_offset: u64) {
    match err {
        Error::Corrupt {
            file: f, offset, ..
        } => {
            assert_eq!(f, file);
            assert!(
                *offset <= max_offset,
                "offset {offset} beyond {max_offset}: {err}"
            );
        }
        other => panic!("expected Corrupt, got {other:?}"),
    }
}

#[test]
fn sample_round_trips() {
    let spec = sample();
    let seg = Segment::from_bytes(spec.build(), "sample").unwrap();
    check(&seg, &spec);
    assert!(seg.byte_len() > 3 * 64, "sample should span several blocks");
}

#[test]
fn every_truncation_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let full = sample().build();
    let path = dir.path().join("t.seg");
    let name = path.display().to_string();
    for len in 0..full.len() {
        let cut = &full.as_bytes()[..len];
        std::fs::write(&path, cut).unwrap();
        let err = Segment::open(&path).unwrap_err();
        assert_corrupt_at(&err, &name, len as u64);
        assert!(err.to_string().contains(&name), "{err}");
        let err = Segment::from_bytes(SegmentBytes::copy_from_slice(cut), "cut").unwrap_err();
        assert_corrupt_at(&err, "cut", len as u64);
    }
    // One byte too many is refused as well.
    let mut long = full.as_bytes().to_vec();
    long.push(0);
    let err = Segment::from_bytes(SegmentBytes::copy_from_slice(&long), "long").unwrap_err();
    assert_corrupt_at(&err, "long", long.len() as u64);
}

#[test]
fn every_bit_flip_is_detected_in_memory() {
    let full = sample().build();
    let mut opened_but_bad = 0;
    for byte in 0..full.len() {
        for bit in 0..8 {
            let mut b = full.clone();
            b.as_bytes_mut()[byte] ^= 1 << bit;
            match Segment::from_bytes(b, "flip") {
                Err(e) => assert!(e.to_string().contains("flip"), "{e}"),
                Ok(seg) => {
                    opened_but_bad += 1;
                    let err = seg.verify().unwrap_err();
                    assert!(matches!(err, Error::Corrupt { .. }), "{err}");
                    exercise(&seg);
                }
            }
        }
    }
    // Most of the file is column data, which only `verify` reads.
    assert!(opened_but_bad > 0);
}

#[test]
fn every_byte_damage_is_detected_in_files() {
    let dir = tempfile::tempdir().unwrap();
    let full = sample().build();
    let path = dir.path().join("f.seg");
    for byte in 0..full.len() {
        for pattern in [0xFFu8, 0x80] {
            let mut b = full.as_bytes().to_vec();
            b[byte] ^= pattern;
            std::fs::write(&path, &b).unwrap();
            match Segment::open(&path) {
                Err(_) => {}
                Ok(seg) => {
                    assert!(
                        seg.verify().is_err(),
                        "byte {byte} ^ {pattern:#x} not detected"
                    );
                    exercise(&seg);
                }
            }
        }
    }
}

#[test]
fn header_damage_names_the_field() {
    let full = sample().build();
    let mut b = full.clone();
    b.as_bytes_mut()[format::OFF_LO] ^= 1;
    let err = Segment::from_bytes(b, "h").unwrap_err();
    assert_eq!(
        err,
        Error::Corrupt {
            file: "h".into(),
            offset: format::OFF_HEADER_CRC as u64,
            what: "header checksum mismatch".into()
        }
    );

    let mut b = full.clone();
    b.as_bytes_mut()[0] = b'X';
    assert_corrupt_at(&Segment::from_bytes(b, "m").unwrap_err(), "m", 0);

    let mut b = full.clone();
    b.as_bytes_mut()[format::OFF_VERSION] = 6;
    assert_eq!(
        Segment::from_bytes(b, "v").unwrap_err(),
        Error::UnsupportedFormat {
            file: "v".into(),
            found: 6,
            supported: 5
        }
    );
    let mut b = full.clone();
    b.as_bytes_mut()[format::OFF_VERSION] = 0;
    assert!(matches!(
        Segment::from_bytes(b, "v0").unwrap_err(),
        Error::UnsupportedFormat { found: 0, .. }
    ));
}

#[test]
fn data_damage_is_found_by_verify_at_its_block() {
    let spec = sample();
    let full = spec.build();
    let seg = Segment::from_bytes(full.clone(), "ok").unwrap();
    let last_dst = seg.dsts().len() - 1;
    // The last destination of vertex 6, deep inside the dsts column.
    let dsts_at = full
        .as_bytes()
        .windows(4)
        .position(|w| w == 19u32.to_le_bytes())
        .unwrap();
    assert_eq!(seg.dsts()[last_dst], 19);
    let mut b = full.clone();
    b.as_bytes_mut()[dsts_at] = 3; // now unsorted, and the block crc is off
    let seg = Segment::from_bytes(b, "d").unwrap();
    match seg.verify().unwrap_err() {
        Error::Corrupt { file, offset, what } => {
            assert_eq!(file, "d");
            assert_eq!(offset % 64, 0);
            assert!(
                offset <= dsts_at as u64 && dsts_at as u64 - offset < 64,
                "{offset} vs {dsts_at}"
            );
            assert!(what.contains("checksum"), "{what}");
        }
        e => panic!("{e:?}"),
    }
    exercise(&seg);
}

#[test]
fn writer_refuses_bad_input() {
    let e = |dst, ts, tomb, weight| SegEntry {
        dst,
        ts,
        tomb,
        weight,
    };
    let refused = |r: crate::error::Result<()>, vertex: u32, needle: &str| match r {
        Err(Error::InvalidSegmentInput { vertex: v, what }) => {
            assert_eq!(v, vertex);
            assert!(what.contains(needle), "{what:?} lacks {needle:?}");
        }
        other => panic!("expected InvalidSegmentInput, got {other:?}"),
    };
    let mut w = SegmentWriter::new(10, Direction::Out);
    refused(w.push_vertex(9, &[]), 9, "below the segment start");
    refused(
        w.push_vertex(10, &[SegEntry::plain(5), SegEntry::plain(4)]),
        10,
        "not sorted",
    );
    refused(
        w.push_vertex(10, &[e(1, 0, false, f64::NAN)]),
        10,
        "not finite",
    );
    refused(
        w.push_vertex(10, &[e(1, 0, false, f64::INFINITY)]),
        10,
        "not finite",
    );
    refused(
        w.push_vertex(10, &[e(1, 0, true, 1.0)]),
        10,
        "tombstone without a timestamp",
    );
    refused(
        w.push_vertex(10, &[e(1, 1 << 63, false, 1.0)]),
        10,
        "63 bits",
    );
    refused(
        w.push_vertex(10, &[e(1, 3, false, 1.0), e(1, 5, false, 1.0)]),
        10,
        "newest first",
    );
    refused(
        w.push_vertex(10, &[SegEntry::plain(1), SegEntry::plain(1)]),
        10,
        "newest first",
    );
    refused(w.push_vertex(u32::MAX, &[]), u32::MAX, "exclusive");
    // Refusals left the writer untouched.
    assert_eq!(w.entry_count(), 0);
    w.push_vertex(12, &[SegEntry::plain(1)]).unwrap();
    refused(w.push_vertex(12, &[]), 12, "not ascending");
    refused(w.push_vertex(11, &[]), 11, "not ascending");
    assert!(matches!(
        SegmentWriter::new(10, Direction::Out).finish(9),
        Err(Error::InvalidSegmentInput { .. })
    ));
    let mut w2 = SegmentWriter::new(0, Direction::Out);
    w2.push_vertex(4, &[]).unwrap();
    assert!(matches!(
        w2.finish(4),
        Err(Error::InvalidSegmentInput { .. })
    ));
    let w3 = SegmentWriter::new(0, Direction::Out).with_block_size(100);
    assert!(matches!(
        w3.finish(1),
        Err(Error::InvalidSegmentInput { .. })
    ));

    let seg = Segment::from_bytes(w.finish(14).unwrap(), "ok").unwrap();
    assert_eq!(seg.vertex_range(), 10..14);
    assert_eq!(seg.entries_of(12), &[1]);
}

#[test]
fn writer_refuses_more_entries_than_offsets_address() {
    let mut w = SegmentWriter::new(0, Direction::Out).with_max_entries(3);
    w.push_vertex(0, &[SegEntry::plain(1), SegEntry::plain(2)])
        .unwrap();
    match w.push_vertex(1, &[SegEntry::plain(1), SegEntry::plain(2)]) {
        Err(Error::InvalidSegmentInput { vertex: 1, what }) => {
            assert!(what.contains("entries"), "{what}")
        }
        other => panic!("{other:?}"),
    }
    w.push_vertex(1, &[SegEntry::plain(1)]).unwrap();
    assert_eq!(
        Segment::from_bytes(w.finish(2).unwrap(), "cap")
            .unwrap()
            .entry_count(),
        3
    );
}

#[test]
fn fast_path_is_taken_when_expected() {
    // No stamps at all: plain at every timestamp.
    let mut w = SegmentWriter::new(0, Direction::Out);
    w.push_vertex(0, &[SegEntry::plain(1), SegEntry::plain(2)])
        .unwrap();
    let seg = Segment::from_bytes(w.finish(2).unwrap(), "plain").unwrap();
    assert!(!seg.has_stamps());
    assert!(seg.is_plain_at(0) && seg.scan_is_plain(0, 0) && seg.scan_is_plain(1, 0));

    // Stamps but no tombstone or second version: plain from max_ts on; a
    // vertex with no stamped entry is plain at any timestamp.
    let mut w = SegmentWriter::new(0, Direction::Out);
    let newer = SegEntry {
        ts: 30,
        ..SegEntry::plain(2)
    };
    w.push_vertex(0, &[SegEntry::plain(1), newer]).unwrap();
    w.push_vertex(1, &[SegEntry::plain(5)]).unwrap();
    let seg = Segment::from_bytes(w.finish(2).unwrap(), "stamped").unwrap();
    assert_eq!(seg.max_ts(), 30);
    assert!(!seg.is_plain_at(29) && seg.is_plain_at(30) && seg.is_plain_at(u64::MAX));
    assert!(!seg.scan_is_plain(0, 29) && seg.scan_is_plain(0, 30));
    assert!(seg.scan_is_plain(1, 0));
    assert_eq!(seg.degree(0, 29), 1);
    assert_eq!(seg.degree(0, 30), 2);

    // A tombstone keeps the per-entry check even after max_ts.
    let mut w = SegmentWriter::new(0, Direction::Out);
    let tomb = SegEntry {
        ts: 30,
        tomb: true,
        ..SegEntry::plain(2)
    };
    w.push_vertex(0, &[SegEntry::plain(1), tomb, SegEntry::plain(2)])
        .unwrap();
    let seg = Segment::from_bytes(w.finish(1).unwrap(), "tomb").unwrap();
    assert!(!seg.is_plain_at(u64::MAX) && !seg.scan_is_plain(0, 100));
    assert_eq!(seg.degree(0, 29), 2);
    assert_eq!(seg.degree(0, 30), 1);
    assert_eq!(seg.visible_weight(0, 2, 29), Some(1.0));
    assert_eq!(seg.visible_weight(0, 2, 30), None);
}

#[test]
fn empty_segment_round_trips() {
    let spec = Spec {
        lo: 7,
        hi: 7,
        dir: Direction::In,
        block_size: 64,
        enc: ALL,
        vertices: BTreeMap::new(),
        pivots: BTreeMap::new(),
    };
    let seg = Segment::from_bytes(spec.build(), "empty").unwrap();
    check(&seg, &spec);
    assert_eq!(seg.offsets(), &[0]);
}

/// The bytes of a fixed segment are pinned, so a change to the layout
/// cannot slip in without a format version bump and a FORMAT.md edit.
#[test]
fn format_is_stable() {
    let b = sample().build();
    let bytes = b.as_bytes();
    assert_eq!(&bytes[..8], &MAGIC);
    assert_eq!(&bytes[8..12], &5u32.to_le_bytes());
    assert_eq!(&bytes[12..16], &(HEADER_LEN as u32).to_le_bytes());
    // flags: weighted | stamps | tombs | multi | coded
    assert_eq!(&bytes[16..20], &0b111110u32.to_le_bytes());
    assert_eq!(&bytes[24..28], &2u32.to_le_bytes());
    assert_eq!(&bytes[28..32], &9u32.to_le_bytes());
    assert_eq!(&bytes[32..40], &25u64.to_le_bytes());
    assert_eq!(&bytes[40..48], &2u64.to_le_bytes());
    assert_eq!(&bytes[48..56], &12u64.to_le_bytes());
    assert_eq!(&bytes[56..64], &(bytes.len() as u64).to_le_bytes());
    // (offset, len) of offsets (8 of 4 bytes), dsts (25), stamp_idx (2),
    // stamps (2 of 8 bytes), the dictionary (0.5, 1.0, 2.5), the table
    // (448 data bytes in 64-byte blocks: 7 crcs), codes (25 of 1 byte),
    // then the empty lists section (the destinations are not packed), the
    // empty pivots section and the empty present section (a row a vertex).
    let dir: [(usize, u64, u64); 10] = [
        (64, 256, 32),
        (80, 320, 100),
        (96, 448, 8),
        (112, 512, 16),
        (128, 576, 24),
        (144, 704, 28),
        (168, 640, 25),
        (184, 704, 0),
        (200, 704, 0),
        (224, 704, 0),
    ];
    for (at, o, l) in dir {
        assert_eq!(&bytes[at..at + 8], &o.to_le_bytes(), "pair at {at}: offset");
        assert_eq!(
            &bytes[at + 8..at + 16],
            &l.to_le_bytes(),
            "pair at {at}: len"
        );
    }
    assert_eq!(&bytes[164..168], &3u32.to_le_bytes(), "dict_count");
    assert_eq!(&bytes[216..224], &0u64.to_le_bytes(), "pivot_count");
    assert_eq!(&bytes[240..248], &0u64.to_le_bytes(), "present_count");
    let dict: Vec<u8> = [0.5f64, 1.0, 2.5]
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    assert_eq!(&bytes[576..600], &dict[..]);
    // Vertex 3: 1.0, 1.0, 2.5; vertex 5: 0.5, 1.0; vertex 6: twenty 1.0s.
    let mut codes = vec![1u8, 1, 2, 0, 1];
    codes.extend([1u8; 20]);
    assert_eq!(&bytes[640..665], &codes[..]);
    assert_eq!(bytes.len(), 732);
    // Recorded from this layout, so that a change to any data byte fails
    // (the header's trailing crc makes its own share of the file's crc a
    // constant: the fields above pin the header).
    assert_eq!(format!("{:#010x}", crc32c::crc32c(bytes)), "0xb2c683a2");
}

#[test]
fn segments_are_shareable_across_threads() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<Segment>();
    let seg = Segment::from_bytes(sample().build(), "shared").unwrap();
    let other = seg.clone();
    let n = std::thread::spawn(move || other.degree(6, 0))
        .join()
        .unwrap();
    assert_eq!(n, seg.degree(6, 0));
}

proptest! {
    /// Whole columns give the same bytes as the same lists pushed vertex by
    /// vertex.
    #[test]
    fn columns_write_what_pushed_vertices_write(
        lists in proptest::collection::vec(
            proptest::collection::btree_map(0u32..500, 0u8..4, 0..12), 0..60),
        lo in 0u32..3,
        weighted in any::<bool>(),
        code in any::<bool>(),
        pack in any::<bool>(),
    ) {
        let hi = lo + lists.len() as u32 + 2;
        // Whole columns have a row a vertex: so must the pushed ones here.
        let enc = Encoding { code_weights: code, pack_dsts: pack, sparse_rows: false };
        let mut pushed = SegmentWriter::new(lo, Direction::In).encoding(enc);
        let (mut offsets, mut dsts, mut weights) = (vec![0u32], Vec::new(), Vec::new());
        for (i, l) in lists.iter().enumerate() {
            let entries: Vec<SegEntry> = l
                .iter()
                .map(|(&d, &k)| SegEntry {
                    weight: if weighted { weight_of(k) } else { 1.0 },
                    ..SegEntry::plain(d)
                })
                .collect();
            // A vertex without entries is left out as often as pushed:
            // the writer lays out the offsets of the ones between.
            if !entries.is_empty() || i % 2 == 0 {
                pushed.push_vertex(lo + i as u32, &entries).unwrap();
            }
            dsts.extend(entries.iter().map(|e| e.dst));
            weights.extend(entries.iter().map(|e| e.weight));
            offsets.push(dsts.len() as u32);
        }
        if weights.iter().all(|&w| w == 1.0) {
            weights.clear();
        }
        offsets.resize((hi - lo) as usize + 1, dsts.len() as u32);
        let b = write_columns(lo, hi, Direction::In, &offsets, &dsts, &weights, enc).unwrap();
        let a = pushed.finish(hi).unwrap();
        prop_assert_eq!(a.as_bytes(), b.as_bytes());
    }
}

/// A segment spanning many vertices with a few pushed, as a flush's run:
/// its offset column, laid out a chunk at a time from the vertices pushed,
/// equals one offset per vertex counted here, in memory and streamed to a
/// file, across the chunks' edges.
#[test]
fn a_sparse_segment_lays_out_one_offset_per_vertex() {
    let dir = tempfile::tempdir().unwrap();
    let (lo, hi) = (3u32, 100_003u32);
    let pushed = [3u32, 4, 16_386, 16_387, 16_388, 32_770, 50_000, 100_002];
    let mut w = SegmentWriter::new(lo, Direction::Out);
    let mut per_vertex = vec![0u32; (hi - lo) as usize];
    for (k, &v) in pushed.iter().enumerate() {
        let entries: Vec<SegEntry> = (0..k as u32).map(|d| SegEntry::plain(d * 3)).collect();
        per_vertex[(v - lo) as usize] = entries.len() as u32;
        w.push_vertex(v, &entries).unwrap();
    }
    let mut want = vec![0u32];
    for n in per_vertex {
        want.push(want.last().unwrap() + n);
    }
    let path = dir.path().join("s.seg");
    let mut again = SegmentWriter::new(lo, Direction::Out);
    for (k, &v) in pushed.iter().enumerate() {
        let entries: Vec<SegEntry> = (0..k as u32).map(|d| SegEntry::plain(d * 3)).collect();
        again.push_vertex(v, &entries).unwrap();
    }
    again.finish_file(hi, &path).unwrap();
    let image = Segment::from_bytes(w.finish(hi).unwrap(), "sparse").unwrap();
    let file = Segment::open(&path).unwrap();
    for seg in [&image, &file] {
        seg.verify().unwrap();
        assert_eq!(seg.offsets(), &want[..]);
        assert_eq!(seg.vertex_range(), lo..hi);
        assert_eq!(
            seg.entry_range(50_000),
            want[49_997] as usize..want[49_998] as usize
        );
        assert!(seg.entry_range(50_001).is_empty());
    }
}

#[test]
fn columns_that_break_the_format_are_refused_at_their_vertex() {
    let refused = |r: crate::error::Result<SegmentBytes>, vertex: u32| match r {
        Err(Error::InvalidSegmentInput { vertex: v, .. }) => assert_eq!(v, vertex),
        Err(other) => panic!("expected InvalidSegmentInput, got {other:?}"),
        Ok(_) => panic!("expected InvalidSegmentInput, got a segment"),
    };
    let cols = |o: &[u32], d: &[u32], w: &[f64]| {
        write_columns(5, 5 + o.len() as u32 - 1, Direction::Out, o, d, w, ALL)
    };
    cols(&[0, 2, 3], &[1, 4, 2], &[]).unwrap();
    refused(cols(&[0, 2, 3], &[4, 1, 2], &[]), 5); // not ascending
    refused(cols(&[0, 1, 3], &[1, 2, 2], &[]), 6); // repeat in vertex 6
    refused(cols(&[0, 2, 3], &[1, 4, 2], &[1.0, 1.0, f64::NAN]), 6);
    refused(cols(&[0, 2, 3], &[1, 4, 2], &[1.0]), 5); // weights' length
    refused(cols(&[1, 2, 3], &[1, 4, 2], &[]), 5); // offsets not from 0
    refused(cols(&[0, 2, 4], &[1, 4, 2], &[]), 5); // not to the end
    refused(cols(&[0, 3, 2, 3], &[1, 4, 5], &[]), 6); // decreasing
                                                      // Offsets that do not cover the range.
    refused(
        write_columns(5, 9, Direction::Out, &[0, 2, 3], &[1, 4, 2], &[], ALL),
        5,
    );
}

/// Recomputes every checksum of a segment image after a test edited its
/// data, so that the damage left is the edit alone.
fn reseal(bytes: &mut [u8]) {
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let block = u32::from_le_bytes(bytes[format::OFF_BLOCK_SIZE..][..4].try_into().unwrap());
    let table = u64_at(bytes, format::OFF_TABLE) as usize;
    let crcs: Vec<u8> = bytes[HEADER_LEN..table]
        .chunks(block as usize)
        .flat_map(|c| crc32c::crc32c(c).to_le_bytes())
        .collect();
    bytes[table..].copy_from_slice(&crcs);
    let tcrc = crc32c::crc32c(&crcs);
    bytes[format::OFF_TABLE_CRC..][..4].copy_from_slice(&tcrc.to_le_bytes());
    let hcrc = crc32c::crc32c(&bytes[..format::OFF_HEADER_CRC]);
    bytes[format::OFF_HEADER_CRC..][..4].copy_from_slice(&hcrc.to_le_bytes());
}

/// One vertex with `n` edges whose weights take `distinct` values.
fn many_weights(n: u32, distinct: u32, code: bool) -> (Spec, Vec<f64>) {
    let weights: Vec<f64> = (0..n)
        .map(|i| 0.25 * f64::from(i % distinct) - 7.0)
        .collect();
    let entries = (0..n)
        .map(|i| SegEntry {
            weight: weights[i as usize],
            ..SegEntry::plain(i)
        })
        .collect();
    let spec = Spec {
        lo: 0,
        hi: 1,
        dir: Direction::Out,
        block_size: 65536,
        enc: Encoding {
            code_weights: code,
            pack_dsts: false,
            sparse_rows: false,
        },
        vertices: BTreeMap::from([(0, entries)]),
        pivots: BTreeMap::new(),
    };
    (spec, weights)
}

#[test]
fn weights_are_coded_in_one_or_two_bytes_or_kept_as_they_are() {
    // (entries, distinct weights, coding asked, coded, bytes per code)
    for (n, distinct, code, coded, width) in [
        (5000, 200, true, true, 1),
        (5000, 256, true, true, 1),
        (5000, 257, true, true, 2),
        (5000, 200, false, false, 0),
        // Coding would not be smaller: 8 bytes of dictionary per entry.
        (300, 300, true, false, 0),
        (300_000, 65_536, true, true, 2),
        // More distinct weights than two-byte codes reach.
        (300_000, 65_537, true, false, 0),
    ] {
        let (spec, weights) = many_weights(n, distinct, code);
        let seg = Segment::from_bytes(spec.build(), "w").unwrap();
        check(&seg, &spec);
        assert_eq!(
            seg.weights_coded(),
            coded,
            "{n} entries, {distinct} weights"
        );
        let codes = seg.section_bytes(format::Section::Codes).len();
        assert_eq!(codes, width * n as usize, "{n} entries, {distinct} weights");
        let w = seg.weights().unwrap();
        assert_eq!(w.len(), n as usize);
        assert_eq!(w.to_vec(), weights);
        let part = w.slice(10..20).unwrap();
        assert_eq!(part.to_vec(), weights[10..20].to_vec());
        assert!(w.slice(0..n as usize + 1).is_none());
    }
}

#[test]
fn the_dictionary_keeps_signed_zeros_apart_and_sorted() {
    let ws = [0.0, -0.0, 3.0, -2.0, 0.0, 3.0, -0.0];
    let (dict, codes) = super::weights::code(&ws, 16).unwrap();
    assert_eq!(
        dict.iter().map(|w| w.to_bits()).collect::<Vec<_>>(),
        [-2.0f64, -0.0, 0.0, 3.0].map(f64::to_bits)
    );
    assert_eq!(codes, [2, 1, 3, 0, 2, 3, 1]);
    assert!(super::weights::code(&ws, 3).is_none());
    assert_eq!(super::weights::code(&[], 3), Some((vec![], vec![])));
}

#[test]
fn verify_finds_a_code_outside_the_dictionary_and_an_unsorted_dictionary() {
    let (spec, _) = many_weights(1000, 10, true);
    let good = spec.build();
    let seg = Segment::from_bytes(good.clone(), "ok").unwrap();
    let codes_at = format::OFF_CODES;
    let at = |b: &[u8]| u64::from_le_bytes(b[codes_at..codes_at + 8].try_into().unwrap());
    let codes = at(good.as_bytes()) as usize;
    let dict = u64::from_le_bytes(
        good.as_bytes()[format::Section::Weights.header_offset()..][..8]
            .try_into()
            .unwrap(),
    ) as usize;
    drop(seg);

    let mut b = good.clone();
    b.as_bytes_mut()[codes + 7] = 10; // the dictionary holds codes 0..10
    reseal(b.as_bytes_mut());
    let seg = Segment::from_bytes(b, "code").unwrap();
    exercise(&seg);
    assert_eq!(seg.weight(7), 1.0, "a bad code reads as 1.0, never panics");
    match seg.verify().unwrap_err() {
        Error::Corrupt { offset, what, .. } => {
            assert_eq!(offset, (codes + 7) as u64);
            assert!(what.contains("entry 7"), "{what}");
        }
        e => panic!("{e:?}"),
    }

    let mut b = good.clone();
    let second: [u8; 8] = b.as_bytes()[dict + 8..dict + 16].try_into().unwrap();
    b.as_bytes_mut()[dict..dict + 8].copy_from_slice(&second); // a repeat
    reseal(b.as_bytes_mut());
    let seg = Segment::from_bytes(b, "dict").unwrap();
    match seg.verify().unwrap_err() {
        Error::Corrupt { offset, what, .. } => {
            assert_eq!(offset, (dict + 8) as u64);
            assert!(what.contains("ascending"), "{what}");
        }
        e => panic!("{e:?}"),
    }

    // The header's dictionary size must agree with the flags.
    let mut b = good.clone();
    b.as_bytes_mut()[format::OFF_DICT_COUNT..][..4].copy_from_slice(&0u32.to_le_bytes());
    reseal(b.as_bytes_mut());
    assert_corrupt_at(
        &Segment::from_bytes(b, "n").unwrap_err(),
        "n",
        format::OFF_DICT_COUNT as u64,
    );
}

/// The version-1 example of `docs/FORMAT.md` §1.10, byte for byte as the
/// document lists it: a build that writes version 2 still reads it.
#[test]
fn a_version_1_segment_still_opens() {
    let mut b = version_1_example();
    let seg = Segment::from_bytes(SegmentBytes::copy_from_slice(&b), "v1").unwrap();
    seg.verify().unwrap();
    assert_eq!(seg.entries_of(0), &[7]);
    assert_eq!(seg.weight(0), 1.0);
    assert!(seg.weights().is_none() && !seg.weights_coded());
    // Version 1 has no codes: its reserved bytes must stay zero.
    b[format::OFF_DICT_COUNT] = 1;
    reseal(&mut b);
    assert_corrupt_at(
        &Segment::from_bytes(SegmentBytes::copy_from_slice(&b), "r").unwrap_err(),
        "r",
        format::OFF_DICT_COUNT as u64,
    );
}

/// The bytes of the version-1 example (`docs/FORMAT.md` §1.10).
fn version_1_example() -> Vec<u8> {
    let mut b = vec![0u8; 388];
    let put =
        |b: &mut [u8], at: usize, bytes: &[u8]| b[at..at + bytes.len()].copy_from_slice(bytes);
    put(&mut b, 0, &MAGIC);
    put(&mut b, 8, &1u32.to_le_bytes());
    put(&mut b, 12, &256u32.to_le_bytes());
    put(&mut b, 20, &65536u32.to_le_bytes());
    put(&mut b, 28, &1u32.to_le_bytes());
    put(&mut b, 32, &1u64.to_le_bytes());
    put(&mut b, 56, &388u64.to_le_bytes());
    for (at, off, len) in [
        (64, 256u64, 8u64),
        (80, 320, 4),
        (96, 384, 0),
        (112, 384, 0),
        (128, 384, 0),
        (144, 384, 4),
    ] {
        put(&mut b, at, &off.to_le_bytes());
        put(&mut b, at + 8, &len.to_le_bytes());
    }
    put(&mut b, 0xa0, &[0xa1, 0x19, 0x7e, 0xc6]);
    put(&mut b, 0xfc, &[0x90, 0x81, 0x59, 0x65]);
    put(&mut b, 0x104, &1u32.to_le_bytes());
    put(&mut b, 0x140, &7u32.to_le_bytes());
    put(&mut b, 0x180, &[0x1b, 0x8a, 0xf4, 0x35]);
    b
}

/// The segment reader under `util::fuzz`: damaged images of segments of
/// every kind (stamped, coded in one and two bytes, raw weights, plain,
/// empty, version 1) open to a typed error or to a segment whose every
/// read works; one that still passes `verify` without being resealed must
/// be undamaged.
#[test]
fn fuzz_the_segment_reader() {
    let raw = Spec {
        enc: Encoding::PLAIN,
        ..sample()
    };
    let packed = Spec {
        enc: ALL,
        ..sample()
    };
    let plain = Spec {
        lo: 0,
        hi: 40,
        dir: Direction::In,
        block_size: 256,
        enc: ALL,
        vertices: (0..40u32)
            .map(|v| (v, (0..v % 7).map(|d| SegEntry::plain(d * 3)).collect()))
            .collect(),
        pivots: (0..40u32)
            .step_by(3)
            .map(|v| (v, 5 + u64::from(v)))
            .collect(),
    };
    let mut seeds: Vec<Vec<u8>> = [
        sample(),
        raw,
        packed,
        plain,
        sparse_sample(false),
        sparse_sample(true),
        many_weights(400, 20, true).0,
        many_weights(1200, 300, true).0,
    ]
    .iter()
    .map(|s| s.build().as_bytes().to_vec())
    .collect();
    seeds.push(version_1_example());
    let (mut opened, mut verified) = (0u64, 0u64);
    crate::util::fuzz::run("segment", &seeds, reseal_if_whole, |b, resealed| {
        match Segment::from_bytes(SegmentBytes::copy_from_slice(b), "fuzz") {
            Ok(seg) => {
                opened += 1;
                exercise(&seg);
                if seg.verify().is_ok() {
                    verified += 1;
                    if !resealed {
                        assert!(seeds.iter().any(|s| s == b), "damage passed verify");
                    }
                }
            }
            Err(Error::Corrupt { .. } | Error::UnsupportedFormat { .. }) => {}
            Err(other) => panic!("damage reported as {other:?}"),
        }
    });
    // The damage must reach past the header checks often enough to test
    // the reads behind them.
    let cases = crate::util::fuzz::cases();
    eprintln!("segment fuzzing: {cases} inputs, {opened} opened, {verified} verified");
    assert!(
        opened * 20 >= cases,
        "only {opened} of {cases} inputs opened"
    );
}

/// `reseal` for images whose header still places the checksum table
/// inside them.
fn reseal_if_whole(b: &mut [u8]) {
    if b.len() < HEADER_LEN {
        return;
    }
    let table = u64::from_le_bytes(b[format::OFF_TABLE..][..8].try_into().unwrap());
    let block = u32::from_le_bytes(b[format::OFF_BLOCK_SIZE..][..4].try_into().unwrap());
    let fits = usize::try_from(table)
        .ok()
        .filter(|&t| t >= HEADER_LEN && t <= b.len());
    if let (Some(t), true) = (fits, block.is_power_of_two() && block >= 64) {
        let blocks = (t - HEADER_LEN).div_ceil(block as usize);
        if t + 4 * blocks == b.len() {
            reseal(b);
        }
    }
}

/// A segment of many vertices with lists of every length, from one entry
/// to several chunks, packed and not.
fn many_lists(pack: bool) -> Spec {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut next = move |n: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % n
    };
    let vertices = (0..300u32)
        .filter(|v| v % 7 != 3)
        .map(|v| {
            let len = [1, 2, 5, 127, 128, 129, 300][v as usize % 7];
            let mut l: Vec<u32> = (0..len).map(|_| next(1 << 20) as u32).collect();
            l.sort_unstable();
            l.dedup();
            (v, l.into_iter().map(SegEntry::plain).collect())
        })
        .collect();
    Spec {
        lo: 0,
        hi: 305,
        dir: Direction::Out,
        block_size: 65536,
        enc: Encoding {
            code_weights: true,
            pack_dsts: pack,
            sparse_rows: false,
        },
        vertices,
        pivots: BTreeMap::new(),
    }
}

#[test]
fn packed_lists_read_as_the_plain_ones_in_about_half_the_bytes() {
    let plain = Segment::from_bytes(many_lists(false).build(), "plain").unwrap();
    let spec = many_lists(true);
    let packed = Segment::from_bytes(spec.build(), "packed").unwrap();
    assert!(packed.is_packed() && !plain.is_packed());
    check(&packed, &spec);
    // Gaps of about 2^20 / len: 10 to 20 bits where a plain entry takes 32.
    let (a, b) = (
        packed.section_bytes(format::Section::Dsts).len(),
        plain.section_bytes(format::Section::Dsts).len(),
    );
    assert!(2 * a < b + b / 4, "packed {a} bytes against {b}");
    // Nothing reads a packed list as a slice of the file.
    assert!(!packed.is_bare_at(u64::MAX) && !packed.scan_is_bare(0, u64::MAX));
    assert!(packed.is_plain_at(u64::MAX), "versions are another matter");
    assert_eq!(packed.bare_from(), None);
    assert_eq!(plain.bare_from(), Some(0));
}

#[test]
fn damage_to_a_packed_list_is_found_by_verify_at_its_list() {
    let good = many_lists(true).build();
    let seg = Segment::from_bytes(good.clone(), "ok").unwrap();
    let dsts = seg.header_section(format::Section::Dsts).offset as usize;
    let lists = seg.header_section(format::Section::Lists).offset as usize;
    // Vertex 4 (five entries): its list's width byte, set to 40.
    let start = u32::from_le_bytes(good.as_bytes()[lists + 16..lists + 20].try_into().unwrap());
    let mut b = good.clone();
    let at = dsts + start as usize;
    let varint = good.as_bytes()[at..]
        .iter()
        .position(|&x| x & 0x80 == 0)
        .unwrap()
        + 1;
    b.as_bytes_mut()[at + varint] = 40;
    reseal(b.as_bytes_mut());
    let seg = Segment::from_bytes(b, "width").unwrap();
    exercise(&seg);
    match seg.verify().unwrap_err() {
        Error::Corrupt { offset, what, .. } => {
            assert_eq!(offset, at as u64);
            assert!(what.contains("vertex 4"), "{what}");
        }
        e => panic!("{e:?}"),
    }
    // List starts that decrease are refused at open.
    let mut b = good.clone();
    b.as_bytes_mut()[lists + 8..lists + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    reseal(b.as_bytes_mut());
    assert_corrupt_at(
        &Segment::from_bytes(b, "starts").unwrap_err(),
        "starts",
        (lists + 12) as u64,
    );
}

/// A version-2 file (coded weights, no packed lists) is a version-3 file
/// without the `lists` pair: rewriting a version-3 image so gives what the
/// previous build wrote, and it opens and reads the same.
#[test]
fn a_version_2_segment_still_opens() {
    let spec = sample();
    let (mut b, seg) = as_version(&spec, 2, format::OFF_LISTS);
    check(&seg, &spec);
    assert!(seg.weights_coded());
    // In version 2 the lists pair is reserved and must stay zero.
    b[format::OFF_LISTS] = 1;
    reseal(&mut b);
    assert_corrupt_at(
        &Segment::from_bytes(SegmentBytes::copy_from_slice(&b), "r").unwrap_err(),
        "r",
        format::OFF_LISTS as u64,
    );
}

#[test]
fn a_version_3_segment_still_opens() {
    let spec = Spec {
        enc: ALL,
        ..sample()
    };
    let (b, seg) = as_version(&spec, 3, format::OFF_PIVOTS);
    check(&seg, &spec);
    assert!(!seg.has_pivots());
    // In version 3 the pivots pair and count are reserved and stay zero,
    // and the pivot flag is unknown.
    refuses_what_its_version_lacks(
        &b,
        &[format::OFF_PIVOTS, format::OFF_PIVOT_COUNT],
        format::FLAG_PIVOTS,
    );
}

/// `spec`'s image rewritten as format `version`, whose header holds
/// nothing from byte `from` up to the reserved bytes, and the segment it
/// opens as.
fn as_version(spec: &Spec, version: u32, from: usize) -> (Vec<u8>, Segment) {
    let mut b = spec.build().as_bytes().to_vec();
    b[format::OFF_VERSION..][..4].copy_from_slice(&version.to_le_bytes());
    b[from..format::OFF_RESERVED].fill(0);
    reseal(&mut b);
    let name = format!("v{version}");
    let seg = Segment::from_bytes(SegmentBytes::copy_from_slice(&b), &name).unwrap();
    (b, seg)
}

/// An older version's image `b` with any of the header bytes `reserved`
/// set, or flag `flag` (unknown to that version), is refused at that
/// byte.
fn refuses_what_its_version_lacks(b: &[u8], reserved: &[usize], flag: u32) {
    let refused_at = |d: &mut Vec<u8>, at: usize| {
        reseal(d);
        assert_corrupt_at(
            &Segment::from_bytes(SegmentBytes::copy_from_slice(d), "r").unwrap_err(),
            "r",
            at as u64,
        );
    };
    for &at in reserved {
        let mut d = b.to_vec();
        d[at] = 1;
        refused_at(&mut d, at);
    }
    let mut d = b.to_vec();
    let flags = u32::from_le_bytes(d[format::OFF_FLAGS..][..4].try_into().unwrap()) | flag;
    d[format::OFF_FLAGS..][..4].copy_from_slice(&flags.to_le_bytes());
    refused_at(&mut d, format::OFF_FLAGS);
}

/// `sample()` with vertices 3 and 6 marked pivots (and 4, which has no
/// entries: a mark needs none).
fn with_pivots() -> Spec {
    Spec {
        pivots: BTreeMap::from([(3, 9), (4, 2), (6, 12)]),
        ..sample()
    }
}

#[test]
fn pivot_marks_round_trip_and_are_found_by_vertex() {
    let spec = with_pivots();
    let seg = Segment::from_bytes(spec.build(), "p").unwrap();
    check(&seg, &spec);
    assert_eq!(seg.pivot_of(3), Some(9));
    assert_eq!(seg.pivot_of(5), None);
    let packed = Spec {
        enc: ALL,
        ..with_pivots()
    };
    check(&Segment::from_bytes(packed.build(), "pp").unwrap(), &packed);
}

#[test]
fn the_writer_refuses_bad_pivot_marks() {
    let spec = sample();
    let writer = || {
        let mut w = SegmentWriter::new(spec.lo, spec.dir);
        for (&v, es) in &spec.vertices {
            w.push_vertex(v, es).unwrap();
        }
        w
    };
    let refused = |v: u32, r: Result<(), Error>| {
        assert!(
            matches!(r, Err(Error::InvalidSegmentInput { vertex, .. }) if vertex == v),
            "{r:?}"
        );
    };
    // Not pushed yet (the last pushed is 6), below the start, timestamp 0
    // or past the stamp range, and not ascending.
    refused(7, writer().mark_pivot(7, 3));
    refused(1, writer().mark_pivot(1, 3));
    refused(5, writer().mark_pivot(5, 0));
    refused(5, writer().mark_pivot(5, TS_MASK + 1));
    let mut w = writer();
    w.mark_pivot(5, 3).unwrap();
    refused(5, w.mark_pivot(5, 4));
    refused(3, w.mark_pivot(3, 4));
    // Refusals leave the writer as it was.
    w.mark_pivot(6, 4).unwrap();
    let seg = Segment::from_bytes(w.finish(spec.hi).unwrap(), "w").unwrap();
    assert_eq!(seg.pivot_marks().collect::<Vec<_>>(), vec![(5, 3), (6, 4)]);
}

#[test]
fn damaged_pivot_marks_are_refused_at_open_naming_their_offset() {
    let good = with_pivots().build().as_bytes().to_vec();
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let base = u64_at(&good, format::OFF_PIVOTS) as usize;
    assert_eq!(u64_at(&good, format::OFF_PIVOTS + 8), 48);
    let put = |b: &mut Vec<u8>, at: usize, x: u64| b[at..at + 8].copy_from_slice(&x.to_le_bytes());
    // (byte, new value): a vertex outside 2..9, marks out of order, a
    // repeated vertex, timestamps 0 and past the stamp range.
    for (at, value) in [
        (base, 9u64),
        (base, 1),
        (base + 16, 3),
        (base + 16, 2),
        (base + 8, 0),
        (base + 24, TS_MASK + 1),
    ] {
        let mut b = good.clone();
        put(&mut b, at, value);
        reseal(&mut b);
        let err = Segment::from_bytes(SegmentBytes::copy_from_slice(&b), "d").unwrap_err();
        assert_corrupt_at(&err, "d", at as u64);
        match err {
            Error::Corrupt { offset, .. } => assert!(offset >= (at - at % 16) as u64),
            other => panic!("{other:?}"),
        }
    }
    // A count that disagrees with the section, or a flag without marks.
    let mut b = good.clone();
    put(&mut b, format::OFF_PIVOT_COUNT, 2);
    reseal(&mut b);
    assert!(Segment::from_bytes(SegmentBytes::copy_from_slice(&b), "c").is_err());
    let mut b = sample().build().as_bytes().to_vec();
    b[format::OFF_FLAGS] |= 1 << 7;
    reseal(&mut b);
    assert_corrupt_at(
        &Segment::from_bytes(SegmentBytes::copy_from_slice(&b), "f").unwrap_err(),
        "f",
        format::OFF_FLAGS as u64,
    );
}

/// A version-4 file (pivot marks, a row a vertex) is a version-5 file
/// without the `present` pair and count: rewriting a version-5 image so
/// gives what the previous build wrote, and it opens and reads the same.
#[test]
fn a_version_4_segment_still_opens() {
    let spec = Spec {
        enc: ALL,
        ..with_pivots()
    };
    let (b, seg) = as_version(&spec, 4, format::OFF_PRESENT);
    check(&seg, &spec);
    assert!(seg.has_pivots() && !seg.is_sparse());
    // In version 4 the present pair and count are reserved and stay zero,
    // and the sparse flag is unknown.
    refuses_what_its_version_lacks(
        &b,
        &[format::OFF_PRESENT, format::OFF_PRESENT_COUNT],
        format::FLAG_SPARSE,
    );
}

/// A few vertices of a range of 300, as a flush's run holds them, with
/// stamps, weights, a vertex pushed without entries, pivot marks, and
/// vertices at both ends of words of the `present` section.
fn sparse_sample(pack: bool) -> Spec {
    let e = |dst, ts, tomb, weight| SegEntry {
        dst,
        ts,
        tomb,
        weight,
    };
    let vertices = BTreeMap::from([
        (
            5,
            vec![e(1, 0, false, 1.0), e(4, 9, true, 1.0), e(4, 0, false, 2.5)],
        ),
        (63, vec![]),
        (64, (0..140).map(|d| SegEntry::plain(d * 2)).collect()),
        (127, vec![e(0, 12, false, 0.5)]),
        (200, vec![e(7, 0, false, 1.0), e(8, 0, false, 1.0)]),
        (299, vec![e(3, 0, false, 1.0)]),
    ]);
    Spec {
        lo: 0,
        hi: 300,
        dir: Direction::Out,
        block_size: 64,
        enc: Encoding {
            code_weights: true,
            pack_dsts: pack,
            sparse_rows: true,
        },
        vertices,
        pivots: BTreeMap::from([(63, 4), (200, 7)]),
    }
}

/// A flush's run over a range much larger than what it holds keeps rows
/// for its vertices with entries only: its row index is a few bytes a
/// vertex held plus a bit a vertex of the range, its file a fraction of
/// the dense one, and every list reads as in the dense one, packed or not,
/// from an image or streamed into a file.
#[test]
fn a_sparse_segment_keeps_rows_for_its_vertices_only() {
    let dir = tempfile::tempdir().unwrap();
    for pack in [false, true] {
        let spec = sparse_sample(pack);
        let seg = Segment::from_bytes(spec.build(), "sparse").unwrap();
        check(&seg, &spec);
        assert!(seg.is_sparse());
        assert_eq!(seg.is_packed(), pack);
        assert_eq!(seg.offsets().len(), 6, "five vertices with entries");
        // The records of the example in FORMAT.md §1.5.2.
        let records: [[u64; 2]; 5] = [
            [1 << 5, 0],
            [1 | 1 << 63, 1],
            [0, 3],
            [1 << 8, 3],
            [1 << 43, 4],
        ];
        assert_eq!(
            seg.section_bytes(format::Section::Present),
            bytemuck::cast_slice::<[u64; 2], u8>(&records)
        );
        assert_eq!(
            seg.header_section(format::Section::Present).len,
            16 * 5,
            "a record per 64 vertices"
        );
        let path = dir.path().join(format!("s{pack}.seg"));
        spec.writer().finish_file(spec.hi, &path).unwrap();
        check(&Segment::open(&path).unwrap(), &spec);
    }
    // The same lists over 2^20 vertices: a row a vertex takes 4 MiB, the
    // sparse rows 256 KiB (with a checksum per 64 bytes in both).
    let wide = |sparse_rows| {
        let spec = Spec {
            hi: 1 << 20,
            enc: Encoding {
                sparse_rows,
                ..sparse_sample(false).enc
            },
            ..sparse_sample(false)
        };
        let seg = Segment::from_bytes(spec.build(), "wide").unwrap();
        seg.verify().unwrap();
        seg
    };
    let (sparse, dense) = (wide(true), wide(false));
    assert!(sparse.is_sparse() && !dense.is_sparse());
    assert!(dense.byte_len() > 4 << 20);
    assert!(
        sparse.byte_len() * 10 < dense.byte_len(),
        "{} bytes against {}",
        sparse.byte_len(),
        dense.byte_len()
    );
    for v in (0..1 << 20).step_by(7).chain(0..400) {
        assert_eq!(sparse.entries_of(v), dense.entries_of(v), "vertex {v}");
        assert_eq!(sparse.degree(v, 10), dense.degree(v, 10), "vertex {v}");
    }
}

/// Damage to a sparse segment's row index is refused at open, naming the
/// byte: a record's count of the rows before it, a bit past the range, a
/// header count that disagrees, a vertex given a row without entries, and
/// the sparse flag taken away (then the sections no longer fit).
#[test]
fn damaged_sparse_rows_are_refused_at_open_naming_their_offset() {
    let good = sparse_sample(false).build().as_bytes().to_vec();
    let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
    let present = u64_at(&good, format::OFF_PRESENT) as usize;
    let offsets = u64_at(&good, format::OFF_SECTIONS) as usize;
    let refused_at = |b: &mut Vec<u8>, at: usize| {
        reseal(b);
        assert_corrupt_at(
            &Segment::from_bytes(SegmentBytes::copy_from_slice(b), "d").unwrap_err(),
            "d",
            at as u64,
        );
    };
    // Record 2 (vertices 128..192) counts the rows before it: 3.
    assert_eq!(u64_at(&good, present + 32 + 8), 3);
    let mut b = good.clone();
    b[present + 32 + 8] = 4;
    refused_at(&mut b, present + 32 + 8);
    // The last record covers 256..300: bit 44 would be vertex 300.
    let mut b = good.clone();
    b[present + 64 + 5] |= 1 << 4;
    refused_at(&mut b, present + 64);
    // A count that disagrees with the records.
    let mut b = good.clone();
    b[format::OFF_PRESENT_COUNT] = 4;
    refused_at(&mut b, format::OFF_PRESENT_COUNT);
    // Row 1 (vertex 64) given no entries: its offset equals row 0's end.
    let mut b = good.clone();
    let first_end = u32::from_le_bytes(b[offsets + 4..offsets + 8].try_into().unwrap());
    b[offsets + 8..offsets + 12].copy_from_slice(&first_end.to_le_bytes());
    refused_at(&mut b, offsets + 8);
    // Without the flag the offsets are too short for a row a vertex.
    let mut b = good.clone();
    b[format::OFF_FLAGS + 1] &= !1;
    let err = Segment::from_bytes(
        SegmentBytes::copy_from_slice(&{
            reseal(&mut b);
            b
        }),
        "f",
    )
    .unwrap_err();
    assert!(matches!(err, Error::Corrupt { .. }), "{err:?}");
}
