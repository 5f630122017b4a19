//! Kernels on real SNAP graphs against the figures published in
//! `shared/datasets/real/README.md` (triangles, WCC, BFS reach; all computed independently
//! and matching SNAP), plus identities that tie the other kernels to those figures.
#![allow(clippy::unwrap_used)] // tests may panic on bad fixtures

mod common;

use std::collections::HashMap;

use common::load_snap;
use stratagraph_algo::{
    betweenness_single_source, bfs, lcc, pagerank, sssp, triangle_count, wcc, CsrGraph, GraphView,
    BFS_UNREACHABLE,
};

/// Published figures for one file.
struct Figures {
    file: &'static str,
    directed: bool,
    vertices: u64,
    /// SNAP's edge count: arcs for directed graphs, unordered pairs (loops included) otherwise.
    edges: u64,
    triangles: u64,
    components: usize,
    largest_component: usize,
    bfs_source: u64,
    source_degree: usize,
    bfs_reached: usize,
    bfs_max_depth: u64,
}

const FACEBOOK: Figures = Figures {
    file: "facebook_combined.txt.gz",
    directed: false,
    vertices: 4_039,
    edges: 88_234,
    triangles: 1_612_010,
    components: 1,
    largest_component: 4_039,
    bfs_source: 107,
    source_degree: 1_045,
    bfs_reached: 4_039,
    bfs_max_depth: 5,
};

const EMAIL: Figures = Figures {
    file: "email-Eu-core.txt.gz",
    directed: true,
    vertices: 1_005,
    edges: 25_571,
    triangles: 105_461,
    components: 20,
    largest_component: 986,
    bfs_source: 160,
    source_degree: 333,
    bfs_reached: 965,
    bfs_max_depth: 4,
};

const GNUTELLA: Figures = Figures {
    file: "p2p-Gnutella04.txt.gz",
    directed: true,
    vertices: 10_876,
    edges: 39_994,
    triangles: 934,
    components: 1,
    largest_component: 10_876,
    bfs_source: 3109,
    source_degree: 100,
    bfs_reached: 10_813,
    bfs_max_depth: 19,
};

const WIKI_VOTE: Figures = Figures {
    file: "wiki-Vote.txt.gz",
    directed: true,
    vertices: 7_115,
    edges: 103_689,
    triangles: 608_389,
    components: 24,
    largest_component: 7_066,
    bfs_source: 2565,
    source_degree: 893,
    bfs_reached: 2_316,
    bfs_max_depth: 4,
};

const CA_HEPPH: Figures = Figures {
    file: "ca-HepPh.txt.gz",
    directed: false,
    vertices: 12_008,
    edges: 118_521,
    triangles: 3_358_499,
    components: 278,
    largest_component: 11_204,
    bfs_source: 71788,
    source_degree: 491,
    bfs_reached: 11_204,
    bfs_max_depth: 8,
};

const SLASHDOT: Figures = Figures {
    file: "soc-Slashdot0902.txt.gz",
    directed: true,
    vertices: 82_168,
    edges: 948_464,
    triangles: 602_592,
    components: 1,
    largest_component: 82_168,
    bfs_source: 2494,
    source_degree: 2_510,
    bfs_reached: 82_168,
    bfs_max_depth: 8,
};

fn check(f: &Figures) -> CsrGraph {
    let g = CsrGraph::from_pairs(&load_snap(f.file), None, f.directed).unwrap();
    assert_eq!(g.vertex_count(), f.vertices, "{}", f.file);
    assert_eq!(g.edge_count(), f.edges, "{}", f.file);
    let source = g.dense_id(f.bfs_source).unwrap();
    let degree = g.out_slice(source).iter().filter(|&&u| u != source).count();
    assert_eq!(degree, f.source_degree, "{}", f.file);

    for threads in [1, 2] {
        assert_eq!(triangle_count(&g, threads), f.triangles, "{} TC", f.file);

        let comp = wcc(&g, threads);
        let mut sizes: HashMap<u32, usize> = HashMap::new();
        for c in comp {
            *sizes.entry(c).or_default() += 1;
        }
        assert_eq!(sizes.len(), f.components, "{} #WCC", f.file);
        assert_eq!(sizes.values().max().copied(), Some(f.largest_component));

        let depth = bfs(&g, source, threads);
        let reached: Vec<u64> = depth
            .iter()
            .copied()
            .filter(|&d| d != BFS_UNREACHABLE)
            .collect();
        assert_eq!(reached.len(), f.bfs_reached, "{} BFS reach", f.file);
        assert_eq!(reached.iter().max().copied(), Some(f.bfs_max_depth));
    }
    g
}

#[test]
fn facebook_matches_snap() {
    let g = check(&FACEBOOK);
    // Undirected LCC relates to triangles: Σ_v LCC(v)·d(d−1)/2 = 3·T.
    let closed: f64 = lcc(&g, 2)
        .iter()
        .enumerate()
        .map(|(v, c)| {
            let d = f64::from(g.out_degree(v as u32));
            c * d * (d - 1.0) / 2.0
        })
        .sum();
    assert!(
        (closed - 3.0 * FACEBOOK.triangles as f64).abs() < 1e-3,
        "{closed}"
    );
}

#[test]
fn email_matches_snap() {
    check(&EMAIL);
}

#[test]
fn gnutella_matches_snap() {
    let g = check(&GNUTELLA);
    // With unit weights shortest paths are hop counts.
    let source = g.dense_id(GNUTELLA.bfs_source).unwrap();
    let depth = bfs(&g, source, 2);
    let dist = sssp(&g, source, 2).unwrap();
    for (d, s) in depth.iter().zip(&dist) {
        if *d == BFS_UNREACHABLE {
            assert_eq!(*s, f64::INFINITY);
        } else {
            assert_eq!(*s, *d as f64);
        }
    }
    // Brandes: the dependencies on s sum to Σ_t (dist(s,t) − 1) over reachable t ≠ s,
    // because each shortest path to t has dist − 1 interior vertices.
    let bc: f64 = betweenness_single_source(&g, source, 2).iter().sum();
    let interior: u64 = depth
        .iter()
        .filter(|&&d| d != BFS_UNREACHABLE && d > 0)
        .map(|d| d - 1)
        .sum();
    assert!(
        (bc - interior as f64).abs() < 1e-6 * interior as f64,
        "{bc} vs {interior}"
    );
}

#[test]
fn wiki_vote_matches_snap() {
    let g = check(&WIKI_VOTE);
    // The dangling rule keeps PageRank a probability distribution (wiki-Vote has sinks).
    let total: f64 = pagerank(&g, 0.85, 20, 2).iter().sum();
    assert!((total - 1.0).abs() < 1e-9, "{total}");
}

#[test]
fn ca_hepph_matches_snap() {
    // Both directions listed plus self-loops: the undirected build must dedupe.
    check(&CA_HEPPH);
}

#[test]
fn slashdot_matches_snap() {
    check(&SLASHDOT);
}
