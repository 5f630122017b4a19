//! A transaction's property edges: created, removed and given properties
//! on the spot against what the transaction sees, buffered until commit,
//! read back with the transaction's own writes laid over its snapshot.

use super::{PropWrite, WriteTxn};
use crate::conflict::Key;
use crate::direction::Direction;
use crate::error::{Error, Op, Result, VertexId};
use crate::props::edges::{Edge, EdgeDirection, EdgeId, Ends};
use crate::props::stored::Stored;
use crate::value::Value;
use crate::wal::record::VertexChange as VertexWrite;
use std::sync::Arc;

/// A property edge this transaction creates.
#[derive(Debug, Clone, Copy)]
pub(super) struct NewEdge {
    pub ends: Ends,
    /// When it was created among the transaction's writes, so the log and
    /// the apply keep the order.
    pub order: usize,
}

impl WriteTxn {
    /// Creates a property edge `src -> dst` labelled `label` with
    /// `properties`, and returns its new id. Any number of edges may join
    /// the same two vertices, with the same label or not.
    ///
    /// # Errors
    /// `VertexNotFound` for a missing endpoint (unless
    /// `Options::auto_create_vertices` creates it),
    /// `VertexDeletedInTransaction` if this transaction deleted one,
    /// `InvalidName` / `InvalidEdgeValue` for a bad label, key or value,
    /// `VertexIdsExhausted` when ids run out.
    pub fn add_edge(
        &mut self,
        src: VertexId,
        dst: VertexId,
        label: &str,
        properties: &[(&str, Value)],
    ) -> Result<EdgeId> {
        let id = self.store.props.edges.next_id();
        self.add_edge_as(id, src, dst, label, properties)?;
        Ok(id)
    }

    /// `add_edge` with an id the caller chooses (from a file being loaded,
    /// say); later generated ids stay clear of it.
    ///
    /// # Errors
    /// As `add_edge`, and `EdgeIdTaken` if an edge with this id exists.
    pub fn add_edge_with_id(
        &mut self,
        id: EdgeId,
        src: VertexId,
        dst: VertexId,
        label: &str,
        properties: &[(&str, Value)],
    ) -> Result<()> {
        if self.edge_ends(id).is_some() {
            return Err(Error::EdgeIdTaken {
                op: Op::AddEdge,
                edge: id,
            });
        }
        self.add_edge_as(id, src, dst, label, properties)?;
        self.store.props.edges.reserve(id);
        Ok(())
    }

    fn add_edge_as(
        &mut self,
        id: EdgeId,
        src: VertexId,
        dst: VertexId,
        label: &str,
        properties: &[(&str, Value)],
    ) -> Result<()> {
        let label = self.name(Op::AddEdge, "label", label)?;
        let mut checked = Vec::with_capacity(properties.len());
        for (key, value) in properties {
            checked.push(self.checked_edge_value(Op::SetEdgeProperty, id, key, value)?);
        }
        let s = self.intern(Op::AddEdge, src)?;
        let d = self.intern(Op::AddEdge, dst)?;
        for (v, ext) in [(s, src), (d, dst)] {
            if self.vertices.get(&v) == Some(&VertexWrite::Deleted) {
                return Err(Error::VertexDeletedInTransaction {
                    op: Op::AddEdge,
                    src,
                    dst,
                    vertex: ext,
                });
            }
        }
        if !self.store.opts.auto_create_vertices {
            for (v, ext) in [(s, src), (d, dst)] {
                if !self.vertex_visible(v) {
                    return Err(Error::VertexNotFound {
                        op: Op::AddEdge,
                        vertex: ext,
                        at: crate::error::BatchIndex(None),
                    });
                }
            }
        }
        for v in [s, d] {
            self.vertices.entry(v).or_insert(VertexWrite::Created);
        }
        let props = &self.store.props;
        let ends = Ends {
            src: s,
            dst: d,
            label: props.labels.intern(label),
        };
        let order = self.prop_order;
        self.prop_order += 1;
        self.new_edge(id, NewEdge { ends, order });
        for (key, value) in checked {
            let key = self.store.props.keys.intern(key);
            self.write_edge_property(id, key, Some(value));
        }
        Ok(())
    }

    /// Removes property edge `id` with its properties.
    ///
    /// # Errors
    /// `NoSuchEdge` if no edge has this id in this transaction's view.
    pub fn remove_edge(&mut self, id: EdgeId) -> Result<()> {
        let ends = self.edge_ends(id).ok_or(Error::NoSuchEdge {
            op: Op::RemoveEdge,
            edge: id,
        })?;
        if self.new_edges.remove(&id).is_none() {
            self.removed_edges.insert(id, ends);
        }
        self.edge_props.retain(|&(e, _), _| e != id);
        Ok(())
    }

    /// Sets property `key` of edge `id` to `value`.
    ///
    /// # Errors
    /// `NoSuchEdge` if no edge has this id in this transaction's view;
    /// `InvalidName` or `InvalidEdgeValue` for a bad key or value.
    pub fn set_edge_property(&mut self, id: EdgeId, key: &str, value: Value) -> Result<()> {
        let (key, value) = self.checked_edge_value(Op::SetEdgeProperty, id, key, &value)?;
        if self.edge_ends(id).is_none() {
            return Err(Error::NoSuchEdge {
                op: Op::SetEdgeProperty,
                edge: id,
            });
        }
        let key = self.store.props.keys.intern(key);
        self.write_edge_property(id, key, Some(value));
        Ok(())
    }

    /// Removes property `key` of edge `id`; returns whether it was set.
    ///
    /// # Errors
    /// `NoSuchEdge` if no edge has this id in this transaction's view.
    pub fn remove_edge_property(&mut self, id: EdgeId, key: &str) -> Result<bool> {
        if self.edge_ends(id).is_none() {
            return Err(Error::NoSuchEdge {
                op: Op::RemoveEdgeProperty,
                edge: id,
            });
        }
        let Some(key) = self.store.props.keys.lookup(key) else {
            return Ok(false);
        };
        let was = self.edge_property_of(id, key).is_some();
        if was {
            self.write_edge_property(id, key, None);
        }
        Ok(was)
    }

    /// Property edge `id`, counting this transaction's writes.
    pub fn edge(&mut self, id: EdgeId) -> Option<Edge> {
        let ends = self.edge_ends(id)?;
        Some(self.edge_of(id, ends))
    }

    /// Property `key` of edge `id`, counting this transaction's writes.
    pub fn edge_property(&mut self, id: EdgeId, key: &str) -> Option<Value> {
        self.edge_ends(id)?;
        let key = self.store.props.keys.lookup(key)?;
        self.edge_property_of(id, key).map(|v| v.to_value())
    }

    /// Every property of edge `id` in the order first set (a key removed
    /// and set again may keep its old place), counting this
    /// transaction's writes; `None` if there is no such edge.
    pub fn edge_properties(&mut self, id: EdgeId) -> Option<Vec<(Arc<str>, Value)>> {
        self.edge_ends(id)?;
        let found = if self.new_edges.contains_key(&id) {
            Vec::new()
        } else {
            self.read(Key::PropertyEdge(id));
            let ts = self.view().timestamp();
            self.store.props.edges.properties_at(id, ts)
        };
        let mine = self
            .edge_props
            .iter()
            .filter(|((e, _), _)| *e == id)
            .map(|(&(_, k), w)| (k, w));
        Some(super::props::overlay(found, mine, &self.store.props.keys))
    }

    /// Vertex `v`'s property edges on side `dir`, of `label` or of every
    /// label, counting this transaction's writes, ordered by (label, other
    /// end, id); `None` if `v` does not exist.
    pub fn edges_of(
        &mut self,
        v: VertexId,
        dir: EdgeDirection,
        label: Option<&str>,
    ) -> Option<Vec<Edge>> {
        let id = self.lookup(v)?;
        if !self.vertex_visible(id) {
            return None;
        }
        let label = match label {
            Some(l) => match self.store.props.labels.lookup(l) {
                Some(l) => Some(l),
                // No edge has it in the snapshot; this transaction's own
                // would have interned it.
                None => return Some(Vec::new()),
            },
            None => None,
        };
        let sides: &[Direction] = match dir {
            EdgeDirection::Out => &[Direction::Out],
            EdgeDirection::In => &[Direction::In],
            EdgeDirection::Both => &[Direction::Out, Direction::In],
        };
        let mut found: Vec<(EdgeId, Ends)> = Vec::new();
        if !self.reset(id) {
            for &side in sides {
                self.read(Key::EdgeList(id, side));
                let ts = self.view().timestamp();
                let edges = &self.store.props.edges;
                found.extend(
                    edges
                        .edges_of(id, side, label, ts)
                        .into_iter()
                        .filter(|(_, e)| {
                            side == Direction::Out || dir != EdgeDirection::Both || e.src != id
                        }),
                );
            }
        }
        found.retain(|(e, ends)| {
            !self.removed_edges.contains_key(e) && !self.reset(ends.src) && !self.reset(ends.dst)
        });
        for (&e, n) in &self.new_edges {
            let touches = match dir {
                EdgeDirection::Out => n.ends.src == id,
                EdgeDirection::In => n.ends.dst == id,
                EdgeDirection::Both => n.ends.src == id || n.ends.dst == id,
            };
            if touches && label.is_none_or(|l| l == n.ends.label) {
                found.push((e, n.ends));
            }
        }
        let other = |e: &Ends| if e.src == id { e.dst } else { e.src };
        found.sort_unstable_by_key(|(e, ends)| (ends.label, other(ends), *e));
        Some(
            found
                .into_iter()
                .map(|(e, ends)| self.edge_of(e, ends))
                .collect(),
        )
    }

    /// Every property edge this transaction sees, ascending by id.
    ///
    /// As with [`WriteTxn::vertices`], a serializable commit checks the
    /// edges listed, not edges others created after the snapshot.
    pub fn edges(&mut self) -> Vec<Edge> {
        let ts = self.view().timestamp();
        let mut found: Vec<(EdgeId, Ends)> = self.store.props.edges.all_at(ts);
        for &(e, _) in &found {
            self.read(Key::PropertyEdge(e));
        }
        found.retain(|(e, ends)| {
            !self.removed_edges.contains_key(e) && !self.reset(ends.src) && !self.reset(ends.dst)
        });
        found.extend(self.new_edges.iter().map(|(&e, n)| (e, n.ends)));
        found.sort_unstable_by_key(|&(e, _)| e);
        found
            .into_iter()
            .map(|(e, ends)| self.edge_of(e, ends))
            .collect()
    }

    /// The ends of edge `id` as this transaction sees it.
    pub(super) fn edge_ends(&mut self, id: EdgeId) -> Option<Ends> {
        if let Some(n) = self.new_edges.get(&id) {
            return Some(n.ends);
        }
        if self.removed_edges.contains_key(&id) {
            return None;
        }
        self.read(Key::PropertyEdge(id));
        let ts = self.view().timestamp();
        let ends = self.store.props.edges.at(id, ts)?;
        if self.reset(ends.src) || self.reset(ends.dst) {
            return None;
        }
        self.old_edges.insert(id, ends);
        Some(ends)
    }

    fn edge_of(&self, id: EdgeId, ends: Ends) -> Edge {
        self.store.edge(id, ends)
    }

    /// Property `key` (interned) of edge `id` as this transaction sees it.
    fn edge_property_of(&mut self, id: EdgeId, key: u32) -> Option<Stored> {
        if let Some(w) = self.edge_props.get(&(id, key)) {
            return w.value.clone();
        }
        if self.new_edges.contains_key(&id) {
            return None;
        }
        self.read(Key::EdgeProperty(id, key));
        let ts = self.view().timestamp();
        self.store.props.edges.property_at(id, key, ts)
    }

    /// Buffers a new edge.
    pub(super) fn new_edge(&mut self, id: EdgeId, edge: NewEdge) {
        self.new_edges.insert(id, edge);
        self.new_edge_order.push(id);
    }

    /// Buffers a write of property `key` of edge `id`.
    pub(super) fn write_edge_property(&mut self, id: EdgeId, key: u32, value: Option<Stored>) {
        let order = self.prop_order;
        match self.edge_props.entry((id, key)) {
            std::collections::hash_map::Entry::Occupied(mut w) => w.get_mut().value = value,
            std::collections::hash_map::Entry::Vacant(w) => {
                w.insert(PropWrite { order, value });
                self.edge_prop_order.push((id, key));
            }
        }
        self.prop_order += 1;
    }

    /// Drops what this transaction wrote to property edges touching `v`,
    /// which it deletes (the commit deletes the edges the snapshot has).
    pub(super) fn forget_edges_of(&mut self, v: u32) {
        let gone: Vec<EdgeId> = self
            .new_edges
            .iter()
            .filter(|(_, n)| n.ends.src == v || n.ends.dst == v)
            .map(|(&e, _)| e)
            .chain(
                self.old_edges
                    .iter()
                    .filter(|(_, e)| e.src == v || e.dst == v)
                    .map(|(&e, _)| e),
            )
            .collect();
        for e in gone {
            self.new_edges.remove(&e);
            self.edge_props.retain(|&(x, _), _| x != e);
        }
    }

    fn checked_edge_value<'k>(
        &self,
        op: Op,
        edge: EdgeId,
        key: &'k str,
        value: &Value,
    ) -> Result<(&'k str, Stored)> {
        let key = self.name(op, "property key", key)?;
        if let Err(problem) = value.check_encodable() {
            return Err(Error::InvalidEdgeValue {
                op,
                edge,
                key: key.to_owned(),
                problem,
            });
        }
        Ok((key, Stored::owned(value.clone())))
    }
}
