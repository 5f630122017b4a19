//! Property tests on random small graphs. They check defining properties of each kernel's
//! output (for LCC and triangles, the definition itself by brute force) and that results do
//! not change with the thread count or when the graph is seen through a view with holes.
#![allow(clippy::unwrap_used)] // tests may panic on bad fixtures

mod common;

use common::{HoleyView, SplitView};
use proptest::prelude::*;
use stratagraph_algo::{
    betweenness_single_source, bfs, cdlp, lcc, pagerank, sssp, triangle_count, wcc, CsrGraph,
    GraphView, BFS_UNREACHABLE,
};

fn graph_strategy() -> impl Strategy<Value = (Vec<(u64, u64, f64)>, bool)> {
    let edge = (
        0u64..30,
        0u64..30,
        prop_oneof![Just(0.0), Just(0.5), Just(1.0), Just(2.5)],
    );
    (prop::collection::vec(edge, 1..120), any::<bool>())
}

fn build(edges: &[(u64, u64, f64)], directed: bool) -> CsrGraph {
    CsrGraph::from_edges(edges, None, directed, true).unwrap()
}

/// Values of the holey view mapped back to the plain graph's ids.
fn unspread<T: Copy>(values: &[T]) -> Vec<T> {
    values.iter().skip(1).step_by(2).copied().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn bfs_depths_are_consistent((edges, directed) in graph_strategy()) {
        let g = build(&edges, directed);
        let depth = bfs(&g, 0, 1);
        prop_assert_eq!(depth[0], 0);
        for v in 0..g.id_bound() {
            let dv = depth[v as usize];
            // No edge skips a level...
            if dv != BFS_UNREACHABLE {
                for w in g.out_neighbors(v) {
                    prop_assert!(depth[w as usize] <= dv + 1);
                }
            }
            // ...and every reached vertex other than the source has a parent one level up.
            if dv != BFS_UNREACHABLE && dv > 0 {
                prop_assert!(g.in_neighbors(v).any(|u| depth[u as usize] == dv - 1));
            }
        }
        prop_assert_eq!(&bfs(&g, 0, 2), &depth);
        prop_assert_eq!(unspread(&bfs(&HoleyView(g), HoleyView::id(0), 2)), depth);
    }

    #[test]
    fn sssp_distances_are_tight((edges, directed) in graph_strategy()) {
        let g = build(&edges, directed);
        let dist = sssp(&g, 0, 1).unwrap();
        prop_assert_eq!(dist[0], 0.0);
        for v in 0..g.id_bound() {
            let dv = dist[v as usize];
            for (w, wt) in g.out_weighted(v) {
                prop_assert!(dist[w as usize] <= dv + wt + 1e-9);
            }
            if v != 0 && dv.is_finite() {
                let tight = (0..g.id_bound()).any(|u| {
                    g.out_weighted(u).any(|(x, wt)| x == v && (dist[u as usize] + wt - dv).abs() < 1e-9)
                });
                prop_assert!(tight, "vertex {} has no tight in-edge", v);
            }
        }
        prop_assert_eq!(&sssp(&g, 0, 2).unwrap(), &dist);
        prop_assert_eq!(unspread(&sssp(&HoleyView(g), HoleyView::id(0), 2).unwrap()), dist);
    }

    #[test]
    fn wcc_labels_are_component_minima((edges, directed) in graph_strategy()) {
        let g = build(&edges, directed);
        let comp = wcc(&g, 2);
        for v in 0..g.id_bound() {
            let c = comp[v as usize];
            prop_assert!(c <= v && comp[c as usize] == c);
            for w in g.out_neighbors(v) {
                prop_assert_eq!(comp[w as usize], c);
            }
        }
        prop_assert_eq!(&wcc(&g, 1), &comp);
        let holey: Vec<u32> = unspread(&wcc(&HoleyView(g), 2)).iter().map(|c| c / 2).collect();
        prop_assert_eq!(holey, comp);
    }

    #[test]
    fn triangles_match_lcc_on_undirected((edges, _) in graph_strategy()) {
        let g = build(&edges, false);
        let t = triangle_count(&g, 2);
        let closed: f64 = lcc(&g, 1).iter().enumerate().map(|(v, c)| {
            let d = g.out_neighbors(v as u32).filter(|&u| u != v as u32).count() as f64;
            c * d * (d - 1.0) / 2.0
        }).sum();
        prop_assert!((closed - 3.0 * t as f64).abs() < 1e-6);
        prop_assert_eq!(triangle_count(&HoleyView(g), 1), t);
    }

    /// LCC and the triangle count against their definitions, computed by
    /// brute force from the edge list itself (a set of arcs, every pair and
    /// triple of vertices tried).
    #[test]
    fn lcc_and_triangles_match_brute_force((edges, directed) in graph_strategy()) {
        use std::collections::BTreeSet;
        let g = build(&edges, directed);
        let mut arcs = BTreeSet::new();
        for &(s, d, _) in edges.iter().filter(|e| e.0 != e.1) {
            arcs.insert((s, d));
            if !directed {
                arcs.insert((d, s));
            }
        }
        let adjacent = |a: u64, b: u64| arcs.contains(&(a, b)) || arcs.contains(&(b, a));
        let ids: Vec<u64> = (0..g.id_bound()).map(|v| g.external_id(v)).collect();
        let l = lcc(&g, 2);
        for (v, &x) in ids.iter().enumerate() {
            let n: Vec<u64> = ids.iter().copied().filter(|&u| u != x && adjacent(x, u)).collect();
            let links = n.iter().flat_map(|&u| n.iter().map(move |&w| (u, w)))
                .filter(|p| arcs.contains(p))
                .count() as f64;
            let k = n.len() as f64;
            let want = if n.len() < 2 { 0.0 } else { links / (k * (k - 1.0)) };
            prop_assert!((l[v] - want).abs() < 1e-12, "lcc of {}: {} want {}", x, l[v], want);
        }
        let mut triangles = 0u64;
        for (i, &a) in ids.iter().enumerate() {
            for (j, &b) in ids.iter().enumerate().skip(i + 1) {
                for &c in &ids[j + 1..] {
                    triangles += u64::from(adjacent(a, b) && adjacent(b, c) && adjacent(a, c));
                }
            }
        }
        prop_assert_eq!(triangle_count(&g, 2), triangles);
    }

    #[test]
    fn thread_and_hole_invariance((edges, directed) in graph_strategy()) {
        let g = build(&edges, directed);
        let pr = pagerank(&g, 0.85, 10, 1);
        prop_assert!((pr.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        let l = lcc(&g, 1);
        let labels = cdlp(&g, 4, 1);
        let bc = betweenness_single_source(&g, 0, 1);
        prop_assert_eq!(&pagerank(&g, 0.85, 10, 2), &pr);
        prop_assert_eq!(&lcc(&g, 2), &l);
        prop_assert_eq!(&cdlp(&g, 4, 2), &labels);
        prop_assert_eq!(&betweenness_single_source(&g, 0, 2), &bc);
        let h = HoleyView(g);
        prop_assert_eq!(unspread(&pagerank(&h, 0.85, 10, 2)), pr);
        prop_assert_eq!(unspread(&lcc(&h, 2)), l);
        prop_assert_eq!(unspread(&cdlp(&h, 4, 2)), labels);
        prop_assert_eq!(unspread(&betweenness_single_source(&h, HoleyView::id(0), 2)), bc);
    }

    /// Lists handed over in two pieces by unordered scans, and point
    /// reads in no set order (backwards), change no kernel's answer
    /// (PageRank and betweenness only by summation order).
    #[test]
    fn split_lists_change_nothing((edges, directed) in graph_strategy()) {
        let g = build(&edges, directed);
        let (depth, comp, pr) = (bfs(&g, 0, 1), wcc(&g, 1), pagerank(&g, 0.85, 10, 1));
        let labels = cdlp(&g, 4, 1);
        let bc = betweenness_single_source(&g, 0, 1);
        let dist = sssp(&g, 0, 1).unwrap();
        let l = lcc(&g, 1);
        let tc = triangle_count(&g, 1);
        let s = SplitView(build(&edges, directed));
        let close = |a: &[f64], b: &[f64]| {
            a.iter().zip(b).all(|(x, y)| (x - y).abs() <= 1e-9 * y.abs().max(1.0))
        };
        for t in [1, 2] {
            prop_assert_eq!(&bfs(&s, 0, t), &depth);
            prop_assert_eq!(&wcc(&s, t), &comp);
            prop_assert_eq!(&cdlp(&s, 4, t), &labels);
            let split_pr = pagerank(&s, 0.85, 10, t);
            prop_assert!(split_pr.iter().zip(&pr).all(|(a, b)| (a - b).abs() < 1e-12));
            prop_assert!(close(&betweenness_single_source(&s, 0, t), &bc));
            prop_assert_eq!(&sssp(&s, 0, t).unwrap(), &dist);
            prop_assert_eq!(&lcc(&s, t), &l);
            prop_assert_eq!(triangle_count(&s, t), tc);
        }
    }
}

/// A graph whose search frontiers reach thousands of vertices (a shuffled tree of depth 12 with
/// cross edges, beside an unreachable dense part that keeps BFS top-down), so that the steps
/// which put large frontiers in vertex order run; checked against textbook BFS and Dijkstra.
#[test]
fn wide_frontiers_match_textbook_searches() {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move |n: u64| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let tree = (1u64 << 13) - 1;
    // A permutation of the tree's ids, so frontiers do not arrive in vertex order.
    let mut ids: Vec<u64> = (0..tree).collect();
    for i in (1..ids.len()).rev() {
        ids.swap(i, next(i as u64 + 1) as usize);
    }
    let weights = [0.5, 1.0, 2.5, 0.0];
    let mut edges = Vec::new();
    for child in 1..tree {
        edges.push((
            ids[((child - 1) / 2) as usize],
            ids[child as usize],
            weights[next(4) as usize],
        ));
    }
    for _ in 0..3 * tree {
        edges.push((
            ids[next(tree) as usize],
            ids[next(tree) as usize],
            weights[next(4) as usize],
        ));
    }
    for _ in 0..300_000 {
        edges.push((tree + next(2000), tree + next(2000), 1.0));
    }
    let g = CsrGraph::from_edges(&edges, None, true, true).unwrap();
    let n = g.id_bound() as usize;
    let source = (0..g.id_bound())
        .find(|&v| g.external_id(v) == ids[0])
        .unwrap();

    let mut depth = vec![BFS_UNREACHABLE; n];
    depth[source as usize] = 0;
    let mut queue = std::collections::VecDeque::from([source]);
    while let Some(u) = queue.pop_front() {
        for w in g.out_neighbors(u) {
            if depth[w as usize] == BFS_UNREACHABLE {
                depth[w as usize] = depth[u as usize] + 1;
                queue.push_back(w);
            }
        }
    }
    let widest = (0..=12)
        .map(|l| depth.iter().filter(|&&d| d == l).count())
        .max()
        .unwrap();
    assert!(
        widest >= 2048,
        "the test needs wide frontiers, widest is {widest}"
    );

    let mut dist = vec![f64::INFINITY; n];
    dist[source as usize] = 0.0;
    let mut heap = std::collections::BinaryHeap::from([(std::cmp::Reverse(0u64), source)]);
    while let Some((std::cmp::Reverse(bits), u)) = heap.pop() {
        if bits != dist[u as usize].to_bits() {
            continue;
        }
        for (w, wt) in g.out_weighted(u) {
            let nd = f64::from_bits(bits) + wt;
            if nd < dist[w as usize] {
                dist[w as usize] = nd;
                heap.push((std::cmp::Reverse(nd.to_bits()), w));
            }
        }
    }
    for threads in [1, 2] {
        assert_eq!(bfs(&g, source, threads), depth);
        let got = sssp(&g, source, threads).unwrap();
        for v in 0..n {
            assert!(
                got[v] == dist[v] || (got[v] - dist[v]).abs() < 1e-9,
                "vertex {v}: {} != {}",
                got[v],
                dist[v]
            );
        }
    }
}
