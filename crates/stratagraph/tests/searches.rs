//! `Snapshot::scan_out_until` / `scan_in_until`, the scans that stop
//! inside a list once a search has found what it looks for, on packed
//! levels (decoded a group at a time), with newer edges in the MemGraph
//! above some vertices, checked against a model of the edges written.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::collections::{BTreeMap, BTreeSet};
use stratagraph::{Graph, Options, Snapshot};

/// Out-lists (or in-lists) by external id, from the model.
fn lists(model: &BTreeSet<(u64, u64)>, inn: bool) -> BTreeMap<u64, Vec<u64>> {
    let mut m: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    for &(s, d) in model {
        let (a, b) = if inn { (d, s) } else { (s, d) };
        m.entry(a).or_default().push(b);
    }
    m
}

/// Searches every list for each target in turn and checks what was handed
/// over against the model's lists.
fn check(snap: &Snapshot, model: &BTreeSet<(u64, u64)>, inn: bool, clean: &BTreeSet<u64>) {
    let want = lists(model, inn);
    let ext = |i: u32| snap.external_id(i).unwrap();
    for target in [0u64, 3, 500, 999, u64::MAX] {
        let asked = |v: u32| v % 5 != 2;
        let mut handed: BTreeMap<u64, (Vec<Vec<u64>>, bool)> = BTreeMap::new();
        let found = |v: u32, piece: &[u32]| {
            assert!(asked(v), "vertex {} was not asked for", ext(v));
            let (pieces, ended) = handed.entry(ext(v)).or_default();
            assert!(!*ended, "search of {} went on after it ended", ext(v));
            pieces.push(piece.iter().map(|&d| ext(d)).collect());
            *ended = piece.iter().any(|&d| ext(d) == target);
            *ended
        };
        if inn {
            snap.scan_in_until(0..u32::MAX, asked, found);
        } else {
            snap.scan_out_until(0..u32::MAX, asked, found);
        }
        for v in 0..1000u64 {
            let id = snap.internal_id(v).unwrap();
            let all = want.get(&v).cloned().unwrap_or_default();
            let (pieces, ended) = handed.remove(&v).unwrap_or_default();
            let got: Vec<u64> = pieces.concat();
            let ctx = format!("target {target}, inn {inn}, vertex {v}");
            if !asked(id) || all.is_empty() {
                assert!(got.is_empty(), "{ctx}: handed {got:?}");
                continue;
            }
            let mut sorted = got.clone();
            sorted.sort_unstable();
            sorted.dedup();
            assert_eq!(sorted.len(), got.len(), "{ctx}: an id twice in {got:?}");
            assert!(
                sorted.iter().all(|d| all.binary_search(d).is_ok()),
                "{ctx}: {got:?} not in {all:?}"
            );
            if all.contains(&target) {
                assert!(ended, "{ctx}: the search did not end");
                assert!(
                    pieces.last().unwrap().contains(&target),
                    "{ctx}: {pieces:?}"
                );
                // A packed list comes in order, so the search stops with
                // the group the target is in: a target first in a long
                // list leaves most of it undecoded.
                if clean.contains(&v) {
                    assert!(all.starts_with(&got), "{ctx}: {got:?} of {all:?}");
                    if all[0] == target && all.len() > 64 {
                        assert!(
                            got.len() < all.len(),
                            "{ctx}: the whole list was handed over"
                        );
                    }
                }
            } else {
                assert!(!ended, "{ctx}: ended without the target");
                assert_eq!(
                    sorted, all,
                    "{ctx}: a search that finds nothing sees every id"
                );
            }
        }
        assert!(
            handed.is_empty(),
            "handed lists of unknown vertices {handed:?}"
        );
    }
}

#[test]
fn searches_stop_where_they_find_and_see_everything_otherwise() {
    // Vertex s has a degree set by s % 7 (0 to 400), destinations spread
    // over 1000 ids; some lists start with 0, 3 or 500.
    let mut model = BTreeSet::new();
    for s in 0..1000u64 {
        let degree = [0u64, 1, 5, 9, 17, 130, 400][(s % 7) as usize];
        for k in 0..degree {
            model.insert((s, (s * 31 + k * 7919) % 1000));
        }
    }
    for s in (0..1000u64).step_by(11) {
        model.insert((s, 0));
    }
    let g = Graph::in_memory(Options {
        pack_levels: true,
        ..Options::default()
    });
    g.insert_vertices(&(0..1000u64).collect::<Vec<_>>())
        .unwrap();
    let edges: Vec<(u64, u64, f64)> = model.iter().map(|&(s, d)| (s, d, 1.0)).collect();
    g.insert_edges(&edges).unwrap();
    g.compact().unwrap();
    let all: BTreeSet<u64> = (0..1000).collect();
    let snap = g.snapshot();
    for inn in [false, true] {
        check(&snap, &model, inn, &all);
    }
    // Newer edges above the level for some vertices: theirs come as the
    // level's list and the MemGraph's additions.
    let mut newer = Vec::new();
    for s in (0..1000u64).step_by(13) {
        for d in [3u64, 500, 777] {
            if model.insert((s, d)) {
                newer.push((s, d, 2.0));
            }
        }
    }
    g.insert_edges(&newer).unwrap();
    let touched: BTreeSet<u64> = newer.iter().flat_map(|&(s, d, _)| [s, d]).collect();
    let clean: BTreeSet<u64> = all.difference(&touched).copied().collect();
    let snap = g.snapshot();
    for inn in [false, true] {
        check(&snap, &model, inn, &clean);
    }
}
