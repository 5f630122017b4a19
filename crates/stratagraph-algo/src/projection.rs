//! Projections of a snapshot's property edges to the graph a kernel runs
//! on: the edges of some labels, weighted by one numeric property, as a
//! static CSR (as Neo4j's Graph Data Science and kuzu project a property
//! graph before running an algorithm).
//!
//! The kernels are defined on simple graphs, so parallel edges between two
//! vertices become one arc with the smallest weight, the one a shortest
//! path can use (the rule of [`CsrGraph::from_edges`]). Every vertex of
//! the snapshot is in the projection, with or without edges, so results
//! cover the same vertices as a kernel on the snapshot itself.

use crate::csr::{BuildError, CsrGraph};
use stratagraph::{Snapshot, Value};

/// Which property edges a projection takes, and their weights.
#[derive(Debug, Clone, Default)]
pub struct Projection<'a> {
    /// Edge labels to take; empty: every label.
    pub labels: &'a [&'a str],
    /// The numeric property that weighs each edge (`None`: unweighted).
    pub weight: Option<&'a str>,
    /// The weight of an edge without that property (`None`: such an edge
    /// is an error).
    pub default_weight: Option<f64>,
    /// Whether the projection keeps edge directions (property edges are
    /// directed) or treats every edge as undirected.
    pub undirected: bool,
}

/// Why a projection could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProjectionError {
    /// An edge has no weight property and no default was given, or one
    /// that is not a finite number.
    #[error("edge {edge} ({src} -> {dst}): {what}")]
    BadWeight {
        /// The edge id.
        edge: u64,
        /// Its source.
        src: u64,
        /// Its destination.
        dst: u64,
        /// What is wrong with its weight.
        what: String,
    },
    /// The CSR could not be built.
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// A numeric property value as a weight.
fn as_weight(v: &Value) -> Option<f64> {
    let w = match *v {
        Value::Int8(x) => f64::from(x),
        Value::Int16(x) => f64::from(x),
        Value::Int32(x) => f64::from(x),
        Value::Int64(x) => x as f64,
        Value::Float32(x) => f64::from(x),
        Value::Float64(x) => x,
        _ => return None,
    };
    w.is_finite().then_some(w)
}

/// The projection `p` of `snap`'s property edges, over every vertex of the
/// snapshot (external ids as the snapshot names them).
///
/// # Errors
/// `BadWeight` naming the first edge whose weight is missing (without a
/// default), not numeric or not finite.
pub fn project(snap: &Snapshot, p: &Projection<'_>) -> Result<CsrGraph, ProjectionError> {
    let mut edges = Vec::new();
    for e in snap.edges() {
        if !p.labels.is_empty() && !p.labels.contains(&&*e.label) {
            continue;
        }
        let w = match p.weight {
            None => 1.0,
            Some(key) => match snap.edge_property(e.id, key) {
                Some(v) => as_weight(&v).ok_or_else(|| ProjectionError::BadWeight {
                    edge: e.id,
                    src: e.src,
                    dst: e.dst,
                    what: format!("weight {key:?} is {v:?}, not a finite number"),
                })?,
                None => p.default_weight.ok_or_else(|| ProjectionError::BadWeight {
                    edge: e.id,
                    src: e.src,
                    dst: e.dst,
                    what: format!("has no property {key:?} and no default weight was given"),
                })?,
            },
        };
        edges.push((e.src, e.dst, w));
    }
    let vertices: Vec<u64> = snap
        .vertices()
        .map(|v| snap.external_id_unchecked(v))
        .collect();
    Ok(CsrGraph::from_edges(
        &edges,
        Some(&vertices),
        !p.undirected,
        p.weight.is_some(),
    )?)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;
    use crate::GraphView;
    use stratagraph::{Graph, Options};

    #[test]
    fn a_projection_takes_its_labels_and_weights() {
        let g = Graph::in_memory(Options::default());
        let mut tx = g.begin();
        tx.add_edge(1, 2, "road", &[("km", Value::Int32(5))])
            .unwrap();
        tx.add_edge(1, 2, "road", &[("km", Value::Float64(3.5))])
            .unwrap();
        tx.add_edge(2, 3, "road", &[("km", Value::Int64(1))])
            .unwrap();
        tx.add_edge(1, 3, "rail", &[("km", Value::Int32(1))])
            .unwrap();
        tx.insert_vertex(4).unwrap();
        tx.commit().unwrap();
        let snap = g.snapshot();
        let roads = project(
            &snap,
            &Projection {
                labels: &["road"],
                weight: Some("km"),
                ..Projection::default()
            },
        )
        .unwrap();
        assert_eq!(roads.vertex_count(), 4, "vertex 4 has no edge but is there");
        assert_eq!(roads.edge_count(), 2, "parallel roads are one arc");
        let one = roads.dense_id(1).unwrap();
        let w: Vec<(u64, f64)> = roads
            .out_weighted(one)
            .map(|(d, w)| (roads.external_ids()[d as usize], w))
            .collect();
        assert_eq!(w, [(2, 3.5)], "the smaller of the parallel weights");
        let all = project(&snap, &Projection::default()).unwrap();
        assert_eq!(all.edge_count(), 3);
        let err = project(
            &snap,
            &Projection {
                weight: Some("speed"),
                ..Projection::default()
            },
        )
        .unwrap_err();
        assert!(err.to_string().contains("no property \"speed\""), "{err}");
    }
}
