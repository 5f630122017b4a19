//! Differential test: random transactions, batches, aborts, vertex deletes
//! and snapshot reads against a trivially correct model built on `BTreeMap`.
//! Every snapshot, including old ones read after many later writes, must
//! match the model state of its timestamp exactly. The same runs with a
//! tiny MemGraph budget and level ratio flush and compact many times per
//! case, in memory and on disk, where the store is also closed and
//! reopened.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use stratagraph::{Error, Graph, Options, Snapshot, SyncPolicy, UpdatePolicy};

const N: u64 = 10;

#[derive(Debug, Clone)]
enum TxOp {
    InsV(u64),
    DelV(u64),
    InsE(u64, u64, f64),
    DelE(u64, u64),
}

#[derive(Debug, Clone)]
enum Step {
    Txn(Vec<TxOp>, bool),
    BatchIns(Vec<(u64, u64, f64)>),
    BatchDel(Vec<(u64, u64)>),
    Snap,
    Check(usize),
    Drop(usize),
    /// Flush the MemGraph into a run below it (on this thread).
    Flush,
}

#[derive(Debug, Clone, Default, PartialEq)]
struct State {
    vertices: BTreeSet<u64>,
    edges: BTreeMap<(u64, u64), f64>,
}

struct Model {
    directed: bool,
    window: u64,
    ts: u64,
    states: Vec<State>, // states[ts]
}

impl Model {
    fn key(&self, s: u64, d: u64) -> (u64, u64) {
        if self.directed || s <= d {
            (s, d)
        } else {
            (d, s)
        }
    }
    fn cur(&self) -> State {
        self.states[self.ts as usize].clone()
    }
    fn del_vertex(&self, st: &mut State, v: u64) {
        st.vertices.remove(&v);
        st.edges.retain(|&(s, d), _| s != v && d != v);
    }
    /// Timestamp a write would get, or the SnapshotTooOld it would hit.
    fn commit(&mut self, st: State, open: &[(u64, Snapshot)]) -> Result<u64, ()> {
        let ts = self.ts + 1;
        let oldest = open.iter().map(|s| s.0).min().unwrap_or(u64::MAX);
        let wm = self.ts.min(oldest);
        self.ts = ts;
        if ts - wm >= self.window {
            self.states.push(self.states[ts as usize - 1].clone());
            return Err(());
        }
        self.states.push(st);
        Ok(ts)
    }
}

fn weight() -> impl Strategy<Value = f64> {
    prop_oneof![Just(1.0), Just(2.5), Just(0.25), Just(f64::NAN)]
}

fn valid_weight() -> impl Strategy<Value = f64> {
    prop_oneof![Just(1.0), Just(2.5), Just(0.25)]
}

fn v() -> impl Strategy<Value = u64> {
    0..N
}

fn tx_op() -> impl Strategy<Value = TxOp> {
    prop_oneof![
        2 => v().prop_map(TxOp::InsV),
        1 => v().prop_map(TxOp::DelV),
        6 => (v(), v(), weight()).prop_map(|(s, d, w)| TxOp::InsE(s, d, w)),
        3 => (v(), v()).prop_map(|(s, d)| TxOp::DelE(s, d)),
    ]
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        6 => (prop::collection::vec(tx_op(), 1..6), prop::bool::weighted(0.85))
            .prop_map(|(ops, c)| Step::Txn(ops, c)),
        2 => prop::collection::vec((v(), v(), weight()), 0..12).prop_map(Step::BatchIns),
        1 => prop::collection::vec((v(), v()), 0..5).prop_map(Step::BatchDel),
        // Past the small-batch size, batches take the parallel path, with
        // many repeated pairs (the last write to each must win). No NaN
        // weights: one among a thousand edges would refuse every batch.
        1 => prop::collection::vec((v(), v(), valid_weight()), 1001..1100).prop_map(Step::BatchIns),
        // Among few vertices, so that every pair may well be present.
        1 => prop::collection::vec((0..3u64, 0..3u64), 1001..1050).prop_map(Step::BatchDel),
        1 => Just(Step::Snap),
        2 => (0usize..8).prop_map(Step::Check),
        1 => (0usize..8).prop_map(Step::Drop),
        1 => Just(Step::Flush),
    ]
}

/// `scan_out_until`: every list the search asks for is handed over in
/// pieces that together start the list `scan_out_unordered` gives (`whole`),
/// the whole of it unless the search ended, and none after the piece it
/// ended in; a list it does not ask for is never handed over.
fn check_searches(snap: &Snapshot, whole: &BTreeMap<u32, Vec<u32>>, ctx: &str) {
    let asked = |v: u32| v % 3 != 1;
    // Ends at an id that is 0 mod 3 (so some searches end, some do not).
    let target = |d: u32| d.is_multiple_of(3);
    let mut handed: BTreeMap<u32, (Vec<u32>, bool)> = BTreeMap::new();
    snap.scan_out_until(0..u32::MAX, asked, |v, piece| {
        assert!(asked(v), "{ctx}: search of {v}, which was not asked for");
        let (got, ended) = handed.entry(v).or_default();
        assert!(!*ended, "{ctx}: search of {v} went on after it ended");
        assert!(!piece.is_empty(), "{ctx}: empty piece of {v}");
        got.extend_from_slice(piece);
        *ended = piece.iter().any(|&d| target(d));
        *ended
    });
    for (&v, all) in whole {
        let (got, ended) = handed.get(&v).cloned().unwrap_or_default();
        if !asked(v) || all.is_empty() {
            assert!(got.is_empty(), "{ctx}: search of {v} handed {got:?}");
        } else if all.iter().any(|&d| target(d)) {
            assert!(
                ended && all.starts_with(&got),
                "{ctx}: search of {v}: {got:?} of {all:?}"
            );
        } else {
            assert_eq!(&got, all, "{ctx}: search of {v} that finds nothing");
        }
    }
}

fn check_snapshot(snap: &Snapshot, want: &State, directed: bool) {
    let ctx = format!("snapshot at ts {}", snap.timestamp());
    assert_eq!(
        snap.vertex_count(),
        want.vertices.len() as u64,
        "{ctx}: vertex count"
    );
    assert_eq!(
        snap.edge_count(),
        want.edges.len() as u64,
        "{ctx}: edge count"
    );
    let has = |s: u64, d: u64| -> Option<f64> {
        let k = if directed || s <= d { (s, d) } else { (d, s) };
        want.edges.get(&k).copied()
    };
    // The sequential scan lists every id's out-neighbours in id order.
    let mut scanned = Vec::new();
    snap.scan_out(0..u32::MAX, |v, list| {
        let ext = snap.external_id_unchecked(v);
        scanned.extend(list.iter().map(|&d| (ext, snap.external_id_unchecked(d))));
        assert!(
            list.windows(2).all(|w| w[0] < w[1]),
            "{ctx}: scan of {ext} sorted"
        );
    });
    scanned.sort_unstable();
    let mut want_scan: Vec<(u64, u64)> = (0..N)
        .flat_map(|a| (0..N).map(move |b| (a, b)))
        .filter(|&(a, b)| has(a, b).is_some())
        .collect();
    want_scan.sort_unstable();
    assert_eq!(scanned, want_scan, "{ctx}: sequential scan");
    // Unordered, a list may come in disjoint ascending pieces.
    let mut pieces = Vec::new();
    snap.scan_out_unordered(0..u32::MAX, |v, parts| {
        let ext = snap.external_id_unchecked(v);
        for l in parts {
            assert!(
                l.windows(2).all(|w| w[0] < w[1]),
                "{ctx}: piece of {ext} sorted"
            );
            pieces.extend(l.iter().map(|&d| (ext, snap.external_id_unchecked(d))));
        }
    });
    pieces.sort_unstable();
    assert_eq!(pieces, want_scan, "{ctx}: unordered scan");
    // A partial scan hands over the start of each list it does not skip
    // (in the sequence the unordered scan gives it), at least as much of
    // it as was asked for, and skips no list that was asked for.
    let mut whole: BTreeMap<u32, Vec<u32>> = BTreeMap::new();
    snap.scan_out_unordered(0..u32::MAX, |v, parts| {
        whole.insert(v, parts.concat());
    });
    let asked = |v: u32| match v % 4 {
        0 => 0,
        1 => 1,
        2 => 2,
        _ => usize::MAX,
    };
    let mut handed = BTreeSet::new();
    snap.scan_out_partial(0..u32::MAX, asked, |v, parts| {
        let got = parts.concat();
        let all = whole.get(&v).cloned().unwrap_or_default();
        assert!(
            all.starts_with(&got),
            "{ctx}: partial list of {v}: {got:?} of {all:?}"
        );
        assert!(
            got.len() >= asked(v).min(all.len()),
            "{ctx}: partial list of {v} short"
        );
        handed.insert(v);
    });
    for &v in whole.keys() {
        assert!(
            asked(v) == 0 || handed.contains(&v),
            "{ctx}: partial scan skipped {v}"
        );
    }
    check_searches(snap, &whole, &ctx);
    for a in 0..N {
        assert_eq!(
            snap.has_vertex(a),
            want.vertices.contains(&a),
            "{ctx}: vertex {a}"
        );
        for b in 0..N {
            assert_eq!(snap.weight(a, b), has(a, b), "{ctx}: edge ({a},{b})");
        }
        if !want.vertices.contains(&a) {
            assert!(snap.out_neighbors(a).is_none());
            continue;
        }
        let out_ids: Vec<u32> = snap.out_neighbors(a).unwrap().collect();
        assert!(out_ids.windows(2).all(|w| w[0] < w[1]), "{ctx}: sorted");
        let out: BTreeSet<u64> = out_ids
            .iter()
            .map(|&i| snap.external_id(i).unwrap())
            .collect();
        let want_out: BTreeSet<u64> = (0..N).filter(|&b| has(a, b).is_some()).collect();
        assert_eq!(out, want_out, "{ctx}: out({a})");
        let inn: BTreeSet<u64> = snap
            .in_neighbors(a)
            .unwrap()
            .map(|i| snap.external_id(i).unwrap())
            .collect();
        let want_in: BTreeSet<u64> = (0..N).filter(|&b| has(b, a).is_some()).collect();
        assert_eq!(inn, want_in, "{ctx}: in({a})");
        // In no set order: the same ids, each once.
        let id = snap.internal_id(a).unwrap();
        for (inn, want) in [(false, &want_out), (true, &want_in)] {
            let mut got = Vec::new();
            let push = |d: u32| got.push(snap.external_id(d).unwrap());
            if inn {
                snap.for_each_in_unordered_of(id, push);
            } else {
                snap.for_each_out_unordered_of(id, push);
            }
            got.sort_unstable();
            let want: Vec<u64> = want.iter().copied().collect();
            assert_eq!(got, want, "{ctx}: unordered (in: {inn}) of {a}");
        }
        // The weights alone, in the order of the weighted read.
        let mut weights = Vec::new();
        snap.for_each_out_weight_unordered_of(id, |w| weights.push(w.to_bits()));
        let mut pairs = Vec::new();
        snap.for_each_out_weighted_unordered_of(id, |_, w| pairs.push(w.to_bits()));
        assert_eq!(weights, pairs, "{ctx}: weights of {a}");
        let mut want_w: Vec<u64> = (0..N).filter_map(|b| has(a, b)).map(f64::to_bits).collect();
        want_w.sort_unstable();
        weights.sort_unstable();
        assert_eq!(
            weights, want_w,
            "{ctx}: weights of {a}, as the model has them"
        );
        assert_eq!(snap.out_degree(a), Some(want_out.len()));
        assert_eq!(snap.in_degree(a), Some(want_in.len()));
        let weighted: Vec<(u64, f64)> = snap
            .out_weighted_of(id)
            .map(|(i, w)| (snap.external_id(i).unwrap(), w))
            .collect();
        let want_w: Vec<(u64, f64)> = weighted
            .iter()
            .map(|&(b, _)| (b, has(a, b).unwrap()))
            .collect();
        assert_eq!(weighted, want_w, "{ctx}: out weights of {a}");
        let mut unordered = Vec::new();
        snap.for_each_out_weighted_unordered_of(id, |i, w| {
            unordered.push((snap.external_id(i).unwrap(), w));
        });
        unordered.sort_by_key(|&(b, _)| b);
        let mut want_sorted = want_w.clone();
        want_sorted.sort_by_key(|&(b, _)| b);
        assert_eq!(
            unordered, want_sorted,
            "{ctx}: unordered out weights of {a}"
        );
        for (b, w) in snap
            .in_weighted_of(id)
            .map(|(i, w)| (snap.external_id(i).unwrap(), w))
        {
            assert_eq!(Some(w), has(b, a), "{ctx}: in weight ({b},{a})");
        }
    }
    let mut sum_out = 0;
    let mut sum_in = 0;
    for v in snap.vertices() {
        sum_out += snap.out_degree_of(v);
        sum_in += snap.in_degree_of(v);
    }
    assert_eq!(sum_out, sum_in);
}

/// Where a run's store lives: the same engine and checks on both homes.
#[derive(Clone, Copy, Debug)]
enum Home {
    Memory,
    /// A store in a temporary directory, closed and reopened at the end of
    /// the run, when it must hold the newest state.
    Disk,
}

/// A store in memory, or on disk in `dir`.
fn store(dir: Option<&std::path::Path>, opts: Options) -> Graph {
    match dir {
        None => Graph::in_memory(opts),
        Some(dir) => Graph::open(dir, opts).unwrap(),
    }
}

/// `run_in` in memory.
fn run(steps: Vec<Step>, opts: Options) {
    run_in(Home::Memory, steps, opts);
}

fn run_in(home: Home, steps: Vec<Step>, opts: Options) {
    let directed = opts.directed;
    let auto_create = opts.auto_create_vertices;
    let dir = matches!(home, Home::Disk).then(|| tempfile::tempdir().unwrap());
    let g = store(dir.as_ref().map(|d| d.path()), opts.clone());
    let mut m = Model {
        directed,
        window: u64::from(opts.stamp_window),
        ts: 0,
        states: vec![State::default()],
    };
    let mut open: Vec<(u64, Snapshot)> = Vec::new();
    for step in steps {
        // The newest state must match after every step, so a divergence is
        // reported where it happens.
        check_snapshot(&g.snapshot(), &m.states[m.ts as usize], directed);
        match step {
            Step::Txn(ops, commit) => {
                let mut tx = g.begin();
                let mut st = m.cur();
                let mut deleted_here = BTreeSet::new();
                for op in ops {
                    match op {
                        TxOp::InsV(v) => {
                            let created = tx.insert_vertex(v).unwrap();
                            assert_eq!(created, st.vertices.insert(v));
                            deleted_here.remove(&v);
                        }
                        TxOp::DelV(v) => {
                            let r = tx.delete_vertex(v);
                            if st.vertices.contains(&v) {
                                r.unwrap();
                                m.del_vertex(&mut st, v);
                                deleted_here.insert(v);
                            } else {
                                assert!(matches!(r, Err(Error::VertexNotFound { .. })), "{r:?}");
                            }
                        }
                        TxOp::InsE(s, d, w) => {
                            let r = tx.insert_edge(s, d, w);
                            if !w.is_finite() {
                                assert!(matches!(r, Err(Error::InvalidWeight { .. })), "{r:?}");
                            } else if deleted_here.contains(&s) || deleted_here.contains(&d) {
                                assert!(
                                    matches!(r, Err(Error::VertexDeletedInTransaction { .. })),
                                    "{r:?}"
                                );
                            } else if !(auto_create
                                || st.vertices.contains(&s) && st.vertices.contains(&d))
                            {
                                let missing = if st.vertices.contains(&s) { d } else { s };
                                assert!(
                                    matches!(r, Err(Error::VertexNotFound { vertex, .. }) if vertex == missing),
                                    "{r:?}"
                                );
                            } else {
                                r.unwrap();
                                st.vertices.insert(s);
                                st.vertices.insert(d);
                                st.edges.insert(m.key(s, d), w);
                            }
                        }
                        TxOp::DelE(s, d) => {
                            let r = tx.delete_edge(s, d);
                            if st.edges.remove(&m.key(s, d)).is_some() {
                                r.unwrap();
                            } else {
                                assert!(matches!(r, Err(Error::EdgeNotFound { .. })), "{r:?}");
                            }
                        }
                    }
                    // Read-your-writes.
                    for a in 0..N {
                        assert_eq!(tx.has_vertex(a), st.vertices.contains(&a));
                        let got = tx
                            .out_neighbors(a)
                            .map(|v| v.into_iter().collect::<BTreeSet<_>>());
                        let want = st.vertices.contains(&a).then(|| {
                            (0..N)
                                .filter(|&b| st.edges.contains_key(&m.key(a, b)))
                                .collect::<BTreeSet<_>>()
                        });
                        assert_eq!(got, want, "txn out({a})");
                    }
                }
                if commit {
                    let empty = tx.is_empty();
                    let r = tx.commit();
                    if empty {
                        assert_eq!(r, Ok(m.ts));
                    } else {
                        match m.commit(st, &open) {
                            Ok(ts) => assert_eq!(r, Ok(ts)),
                            Err(()) => {
                                assert!(matches!(r, Err(Error::SnapshotTooOld { .. })), "{r:?}")
                            }
                        }
                    }
                }
            }
            Step::BatchIns(edges) => {
                let r = g.insert_edges(&edges);
                if let Some(i) = edges.iter().position(|e| !e.2.is_finite()) {
                    assert!(
                        matches!(r, Err(Error::InvalidWeight { at, .. }) if at.0 == Some(i)),
                        "{r:?}"
                    );
                    continue;
                }
                let mut st = m.cur();
                let absent = |v: &u64| !st.vertices.contains(v);
                if let Some(i) = edges
                    .iter()
                    .position(|(s, d, _)| !auto_create && (absent(s) || absent(d)))
                {
                    let (s, d, _) = edges[i];
                    let missing = if absent(&s) { s } else { d };
                    assert!(
                        matches!(r, Err(Error::VertexNotFound { vertex, at, .. }) if vertex == missing && at.0 == Some(i)),
                        "{r:?}"
                    );
                    continue;
                }
                for &(s, d, w) in &edges {
                    st.vertices.insert(s);
                    st.vertices.insert(d);
                    st.edges.insert(m.key(s, d), w);
                }
                match m.commit(st, &open) {
                    Ok(ts) => assert_eq!(r, Ok(ts)),
                    Err(()) => assert!(matches!(r, Err(Error::SnapshotTooOld { .. })), "{r:?}"),
                }
            }
            Step::BatchDel(edges) => {
                let r = g.delete_edges(&edges);
                let st0 = m.cur();
                if let Some(i) = edges
                    .iter()
                    .position(|&(s, d)| !st0.edges.contains_key(&m.key(s, d)))
                {
                    assert!(
                        matches!(r, Err(Error::EdgeNotFound { at, .. }) if at.0 == Some(i)),
                        "{r:?}"
                    );
                    continue;
                }
                let mut st = st0;
                for &(s, d) in &edges {
                    st.edges.remove(&m.key(s, d));
                }
                match m.commit(st, &open) {
                    Ok(ts) => assert_eq!(r, Ok(ts)),
                    Err(()) => assert!(matches!(r, Err(Error::SnapshotTooOld { .. })), "{r:?}"),
                }
            }
            Step::Flush => {
                g.flush().unwrap();
                let stats = g.stats();
                // A compaction may drop every version once no edge is live
                // and no snapshot needs the old ones.
                assert!(
                    !g.runs().is_empty() || m.cur().edges.is_empty(),
                    "a flush of live edges left no run: {stats:?} cur={:?}",
                    m.cur()
                );
                // With no older snapshot open, the clean-up ran: nothing
                // waits to leave the MemGraph.
                if open.is_empty() {
                    assert_eq!(stats.pending_cleanups, 0);
                }
            }
            Step::Snap => {
                let s = g.snapshot();
                assert_eq!(s.timestamp(), m.ts);
                check_snapshot(&s, &m.states[m.ts as usize], directed);
                open.push((m.ts, s));
            }
            Step::Check(k) => {
                if let Some((ts, s)) = open.get(k) {
                    check_snapshot(s, &m.states[*ts as usize], directed);
                }
            }
            Step::Drop(k) => {
                if k < open.len() {
                    open.remove(k);
                }
            }
        }
    }
    for (ts, s) in &open {
        check_snapshot(s, &m.states[*ts as usize], directed);
    }
    check_snapshot(&g.snapshot(), &m.states[m.ts as usize], directed);
    if let Some(dir) = dir {
        // A clean close, with snapshots still held until just before it,
        // then a reopen: every vertex and edge of the newest state.
        drop(open);
        g.close().unwrap();
        drop(g);
        let g = Graph::open(dir.path(), opts).unwrap();
        check_snapshot(&g.snapshot(), &m.states[m.ts as usize], directed);
    }
}

/// A MemGraph budget so small that nearly every commit starts a
/// background flush, and the smallest level ratio, so that L0 runs are
/// merged into L1 and L1 pushed down into deeper levels many times in one
/// case (issue 3: every test case flushes and compacts many times). The
/// disk home syncs at flushes and close only: durability has its own tests.
/// Compactions pack their levels' destinations (`Options::pack_levels`),
/// so reads decode them while flushes add plain runs above.
fn compacting(opts: Options) -> Options {
    Options {
        memgraph_bytes: 64,
        level_ratio: 2,
        sync: SyncPolicy::Never,
        pack_levels: true,
        ..opts
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, .. ProptestConfig::default() })]

    #[test]
    fn directed_store_matches_model(steps in prop::collection::vec(step(), 1..60)) {
        run(steps, Options::default());
    }

    #[test]
    fn undirected_store_matches_model(steps in prop::collection::vec(step(), 1..60)) {
        run(steps, Options::undirected());
    }

    #[test]
    fn store_without_auto_creation_matches_model(steps in prop::collection::vec(step(), 1..60)) {
        run(steps, Options { auto_create_vertices: false, ..Options::default() });
    }

    /// Explicit flushes plus a MemGraph budget so small that nearly every
    /// commit also starts a background flush: reads must merge the
    /// MemGraph with any number of runs, old snapshots included, while runs
    /// are published and the MemGraph is cleaned under them.
    #[test]
    fn flushing_store_matches_model(steps in prop::collection::vec(step(), 1..60)) {
        run(steps.clone(), Options { memgraph_bytes: 64, ..Options::default() });
        run(steps, Options { memgraph_bytes: 64, ..Options::undirected() });
    }

    #[test]
    fn flushing_store_with_tiny_stamp_window_matches_model(steps in prop::collection::vec(step(), 1..80)) {
        run(steps, Options { memgraph_bytes: 256, stamp_window: 6, ..Options::default() });
    }

    /// A first batch into an empty store is a bulk load (a run written
    /// straight from the batch) when `bulk_load_min_edges` allows: with a
    /// snapshot open from before it, and everything after it (flushes and
    /// compactions included) reading through that run.
    #[test]
    fn bulk_loaded_store_matches_model(
        first in prop::collection::vec((v(), v(), weight()), 1..40),
        steps in prop::collection::vec(step(), 1..50),
    ) {
        let mut all = vec![Step::Txn(vec![TxOp::InsV(1)], true), Step::Snap, Step::BatchIns(first)];
        all.extend(steps);
        let bulk = |o: Options| Options { bulk_load_min_edges: 1, ..o };
        run(all.clone(), bulk(Options::default()));
        run(all.clone(), bulk(Options::undirected()));
        run(all.clone(), bulk(Options { auto_create_vertices: false, ..Options::default() }));
        run(all.clone(), bulk(Options { memgraph_bytes: 64, ..Options::default() }));
        // A packed bulk load, read back and compacted with writes over it.
        run(all, bulk(Options { memgraph_bytes: 64, pack_levels: true, ..Options::default() }));
    }

    #[test]
    fn tiny_stamp_window_rebases_and_refuses_too_old_snapshots(steps in prop::collection::vec(step(), 1..80)) {
        run(steps, Options { stamp_window: 6, ..Options::default() });
    }

    #[test]
    fn compacting_store_matches_model_in_memory(steps in prop::collection::vec(step(), 1..80)) {
        run_in(Home::Memory, steps.clone(), compacting(Options::default()));
        run_in(Home::Memory, steps, compacting(Options::undirected()));
    }

    /// Flushes write vertices as pivots (whole lists, marked so that reads
    /// stop at them) always or by degree, over levels that compactions
    /// keep merging: reads that stop at a pivot must miss nothing below it.
    #[test]
    fn pivoting_store_matches_model(steps in prop::collection::vec(step(), 1..80)) {
        for policy in [
            UpdatePolicy::Pivot,
            UpdatePolicy::Adaptive { lookup_share: 0.9 },
            UpdatePolicy::Adaptive { lookup_share: 0.5 },
        ] {
            let pivoting = |o: Options| compacting(Options { update_policy: policy, ..o });
            run_in(Home::Memory, steps.clone(), pivoting(Options::default()));
            run_in(Home::Memory, steps.clone(), pivoting(Options::undirected()));
        }
        // Flushes without compactions: pivots pile up in L0 runs.
        run(steps, Options { memgraph_bytes: 64, update_policy: UpdatePolicy::Pivot, ..Options::default() });
    }

    /// Every other case runs with blind inserts (the default): this one
    /// searches the levels at each insert instead, and both must give the
    /// same counts and reads.
    #[test]
    fn checked_inserts_store_matches_model(steps in prop::collection::vec(step(), 1..80)) {
        let checked = |o: Options| compacting(Options { blind_inserts: false, ..o });
        run_in(Home::Memory, steps.clone(), checked(Options::default()));
        run_in(Home::Memory, steps, checked(Options::undirected()));
    }
}

proptest! {
    // Each case creates, closes and reopens a store directory.
    #![proptest_config(ProptestConfig { cases: 100, .. ProptestConfig::default() })]

    #[test]
    fn compacting_store_matches_model_on_disk(steps in prop::collection::vec(step(), 1..80)) {
        run_in(Home::Disk, steps.clone(), compacting(Options::default()));
        run_in(Home::Disk, steps.clone(), compacting(Options::undirected()));
        // Pivot marks written to level files, read back after reopening.
        let adaptive = UpdatePolicy::Adaptive { lookup_share: 0.9 };
        run_in(Home::Disk, steps, compacting(Options { update_policy: adaptive, ..Options::default() }));
    }

    #[test]
    fn compacting_store_without_auto_creation_matches_model_on_disk(
        steps in prop::collection::vec(step(), 1..80),
    ) {
        let opts = Options { auto_create_vertices: false, ..Options::default() };
        run_in(Home::Disk, steps, compacting(opts));
    }
}

/// Degree transitions across the block threshold, checked against the model
/// through old snapshots.
#[test]
fn high_degree_vertex_grows_and_shrinks_with_exact_snapshots() {
    let g = Graph::in_memory(Options::default());
    let mut snaps = Vec::new();
    let mut want = BTreeSet::new();
    for round in 0..6u64 {
        let batch: Vec<(u64, u64, f64)> = (0..300)
            .map(|i| (0, 1 + (i * 37 + round * 11) % 2000, 1.0))
            .collect();
        g.insert_edges(&batch).unwrap();
        want.extend(batch.iter().map(|e| e.1));
        for i in 0..150u64 {
            let d = 1 + (i * 53 + round) % 2000;
            if want.remove(&d) {
                g.delete_edge(0, d).unwrap();
            }
        }
        snaps.push((g.snapshot(), want.clone()));
    }
    let all: Vec<u64> = want.iter().copied().collect();
    for d in all {
        g.delete_edge(0, d).unwrap();
    }
    snaps.push((g.snapshot(), BTreeSet::new()));
    for (s, w) in &snaps {
        let got: BTreeSet<u64> = s
            .out_neighbors(0)
            .unwrap()
            .map(|i| s.external_id(i).unwrap())
            .collect();
        assert_eq!(&got, w);
        assert_eq!(s.out_degree(0), Some(w.len()));
    }
}

/// The compacting options really build levels below L1 on the model's ten
/// vertices: with fewer, the tests above would exercise flushes only.
#[test]
fn compacting_options_fill_levels_below_l1() {
    for home in [Home::Memory, Home::Disk] {
        let dir = tempfile::tempdir().unwrap();
        let on_disk = matches!(home, Home::Disk).then(|| dir.path());
        let g = store(on_disk, compacting(Options::default()));
        for i in 0..400u64 {
            let (s, d) = (i % N, (i * 7 + i / N) % N);
            if i % 5 == 4 {
                let _ = g.delete_edge(s, d);
            } else {
                g.insert_edge(s, d, 1.0).unwrap();
            }
        }
        g.flush().unwrap();
        let deepest = g.runs().iter().map(|r| r.level).max().unwrap_or(0);
        let compactions = g.stats().compactions;
        assert!(deepest >= 3, "{home:?}: deepest level {deepest}");
        assert!(compactions >= 10, "{home:?}: {compactions} compactions");
    }
}
