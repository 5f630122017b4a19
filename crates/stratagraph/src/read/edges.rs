//! Property edges as a snapshot sees them.

use super::Snapshot;
use crate::direction::Direction;
use crate::error::VertexId;
use crate::props::edges::{Edge, EdgeDirection, EdgeId, Ends};
use crate::value::Value;
use std::sync::Arc;

/// A property edge as seen from one of its ends, without naming its label
/// (for walks that visit many edges): its id, its label's number in this
/// store (named by [`Snapshot::label_name`]; the edges of one label are
/// contiguous in every list) and the vertex at the other end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EdgeEnd {
    /// The edge's id.
    pub id: EdgeId,
    /// Its label's number.
    pub label: u32,
    /// The vertex at the other end.
    pub other: VertexId,
}

impl Snapshot {
    /// What [`Snapshot::edges_of`] lists, as [`EdgeEnd`]s: the same edges
    /// in the same order, without building an [`Edge`] for each.
    pub fn edge_ends_of(
        &self,
        v: VertexId,
        dir: EdgeDirection,
        label: Option<&str>,
    ) -> Vec<EdgeEnd> {
        let (Some(id), Some(label)) = (self.internal_id(v), self.label_filter(label)) else {
            return Vec::new();
        };
        let ids = &self.store.ids;
        self.edge_ids_of(id, dir, label)
            .into_iter()
            .map(|(e, ends)| EdgeEnd {
                id: e,
                label: ends.label,
                other: ids.external(if ends.src == id { ends.dst } else { ends.src }),
            })
            .collect()
    }

    /// `label` as its number, `Some(None)` for every label, `None` for a
    /// label no edge has (so a read of it is empty).
    fn label_filter(&self, label: Option<&str>) -> Option<Option<u32>> {
        match label {
            Some(l) => self.store.props.labels.lookup(l).map(Some),
            None => Some(None),
        }
    }

    /// The number of edge label `name` in this store (as [`EdgeEnd`]s and
    /// the `_of` reads below carry it); `None` if no edge ever had it.
    pub fn label_number(&self, name: &str) -> Option<u32> {
        self.store.props.labels.lookup(name)
    }

    /// How many property edges internal vertex `v` has on side `dir` (a
    /// self-loop counts once for `Both`), of label number `label` or of
    /// every label. Costs a binary search, not a read of the list, unless
    /// edges of `v` changed after this snapshot. For walks by internal id
    /// ([`Snapshot::internal_id`]); 0 if `v` is not a vertex here.
    pub fn edge_count_of(&self, v: u32, dir: EdgeDirection, label: Option<u32>) -> usize {
        if !self.contains(v) {
            return 0;
        }
        let (edges, ts) = (&self.store.props.edges, self.timestamp());
        match dir {
            EdgeDirection::Out => edges.count_of(v, Direction::Out, label, ts),
            EdgeDirection::In => edges.count_of(v, Direction::In, label, ts),
            EdgeDirection::Both => {
                let mut out = Vec::new();
                edges.others_into(v, Direction::Out, label, ts, &mut out);
                let loops = out.iter().filter(|&&o| o == v).count();
                edges.count_of(v, Direction::Out, label, ts)
                    + edges.count_of(v, Direction::In, label, ts)
                    - loops
            }
        }
    }

    /// Appends to `out` the internal id of the vertex at the other end of
    /// each of internal vertex `v`'s property edges on side `dir` (a
    /// self-loop once for `Both`), of label
    /// number `label` or of every label, in no particular order. For walks
    /// that only need where edges lead: no edge ids, no sort, one buffer
    /// reused across vertices. Appends nothing if `v` is not a vertex here.
    pub fn neighbors_into(
        &self,
        v: u32,
        dir: EdgeDirection,
        label: Option<u32>,
        out: &mut Vec<u32>,
    ) {
        if !self.contains(v) {
            return;
        }
        let (edges, ts) = (&self.store.props.edges, self.timestamp());
        if matches!(dir, EdgeDirection::Out | EdgeDirection::Both) {
            edges.others_into(v, Direction::Out, label, ts, out);
        }
        match dir {
            EdgeDirection::In => edges.others_into(v, Direction::In, label, ts, out),
            EdgeDirection::Both => {
                let from = out.len();
                edges.others_into(v, Direction::In, label, ts, out);
                let mut i = from;
                while i < out.len() {
                    if out[i] == v {
                        out.swap_remove(i);
                    } else {
                        i += 1;
                    }
                }
            }
            EdgeDirection::Out => {}
        }
    }

    /// The name of label number `label` (from an [`EdgeEnd`]); `None` for
    /// a number no label has.
    pub fn label_name(&self, label: u32) -> Option<Arc<str>> {
        self.store.props.labels.try_name(label)
    }

    /// Property edge `id`, if it exists here.
    pub fn edge(&self, id: EdgeId) -> Option<Edge> {
        let ends = self.store.props.edges.at(id, self.timestamp())?;
        Some(self.edge_of(id, ends))
    }

    /// Vertex `v`'s property edges on side `dir`, of `label` or of every
    /// label, ordered by (label, other end, id). Reading one label reads
    /// only that label's range of the vertex's list. Empty if `v` is not a
    /// vertex here.
    pub fn edges_of(&self, v: VertexId, dir: EdgeDirection, label: Option<&str>) -> Vec<Edge> {
        let (Some(id), Some(label)) = (self.internal_id(v), self.label_filter(label)) else {
            return Vec::new();
        };
        self.edge_ids_of(id, dir, label)
            .into_iter()
            .map(|(e, ends)| self.edge_of(e, ends))
            .collect()
    }

    /// `edges_of` by internal id and interned label.
    pub(crate) fn edge_ids_of(
        &self,
        v: u32,
        dir: EdgeDirection,
        label: Option<u32>,
    ) -> Vec<(EdgeId, Ends)> {
        let (edges, ts) = (&self.store.props.edges, self.timestamp());
        match dir {
            EdgeDirection::Out => edges.edges_of(v, Direction::Out, label, ts),
            EdgeDirection::In => edges.edges_of(v, Direction::In, label, ts),
            EdgeDirection::Both => {
                let mut out = edges.edges_of(v, Direction::Out, label, ts);
                out.extend(
                    edges
                        .edges_of(v, Direction::In, label, ts)
                        .into_iter()
                        .filter(|(_, e)| e.src != v),
                );
                let other = |e: &Ends| if e.src == v { e.dst } else { e.src };
                out.sort_unstable_by_key(|(id, e)| (e.label, other(e), *id));
                out
            }
        }
    }

    /// Every property edge here, ascending by id.
    pub fn edges(&self) -> Vec<Edge> {
        self.store
            .props
            .edges
            .all_at(self.timestamp())
            .into_iter()
            .map(|(e, ends)| self.edge_of(e, ends))
            .collect()
    }

    /// Property `key` of edge `id`; `None` if there is no such edge here or
    /// it has no such property.
    pub fn edge_property(&self, id: EdgeId, key: &str) -> Option<Value> {
        let props = &self.store.props;
        let key = props.keys.lookup(key)?;
        props
            .edges
            .property_at(id, key, self.timestamp())
            .map(|v| v.to_value())
    }

    /// Every property of edge `id` in the order first set (a key removed
    /// and set again may keep its old place); `None` if there
    /// is no such edge here.
    pub fn edge_properties(&self, id: EdgeId) -> Option<Vec<(Arc<str>, Value)>> {
        let props = &self.store.props;
        let ts = self.timestamp();
        props.edges.at(id, ts)?;
        Some(
            props
                .edges
                .properties_at(id, ts)
                .into_iter()
                .map(|(k, v)| (props.keys.name(k), v.to_value()))
                .collect(),
        )
    }

    fn edge_of(&self, id: EdgeId, ends: Ends) -> Edge {
        self.store.edge(id, ends)
    }
}
