//! A transaction's label and property writes and reads: checked on the
//! spot, buffered until commit, read back with the transaction's own
//! writes laid over its snapshot.

use super::{PropWrite, WriteTxn};
use crate::conflict::Key;
use crate::error::{Error, Op, Result, VertexId};
use crate::props::stored::Stored;
use crate::props::{names, DEFAULT_LABEL_ID};
use crate::value::Value;
use std::sync::Arc;

impl WriteTxn {
    /// As [`crate::Graph::intern_key`]: the vertex id of `key` in a store
    /// that names vertices by string keys, given now (outside the
    /// transaction: an id given is kept whether or not it commits).
    ///
    /// # Errors
    /// As `Graph::intern_key`.
    pub fn intern_key(&self, key: &str) -> Result<VertexId> {
        self.store.intern_key(key)
    }

    /// The vertex id of `key`, if it was given one: a read of the
    /// transaction's snapshot when it has none (a serializable commit
    /// fails if a vertex with that key was created since).
    pub fn key_id(&mut self, key: &str) -> Option<VertexId> {
        let id = self.store.keys.lookup(key);
        if id.is_none() && self.store.keys.enabled() {
            self.view();
            if self.checks == super::Checks::At(super::Isolation::Serializable) {
                self.unknown_keys.push(Arc::from(key));
            }
        }
        id
    }

    /// The key of vertex id `v` in a store of string keys.
    pub fn key_of(&self, v: VertexId) -> Option<Arc<str>> {
        self.store.keys.name(v)
    }

    /// Creates vertex `v` with `label` and `properties`. Returns `false`
    /// (and writes nothing) if `v` exists.
    ///
    /// # Errors
    /// `InvalidName` for an empty, over-long or control-character label or
    /// key; `InvalidValue` for a value over the limits; `VertexIdsExhausted`
    /// if all internal ids are in use.
    pub fn insert_vertex_with(
        &mut self,
        v: VertexId,
        label: &str,
        properties: &[(&str, Value)],
    ) -> Result<bool> {
        let label = self.name(Op::InsertVertex, "label", label)?;
        let mut checked = Vec::with_capacity(properties.len());
        for (key, value) in properties {
            checked.push(self.checked(Op::SetProperty, v, key, value)?);
        }
        if !self.insert_vertex(v)? {
            return Ok(false);
        }
        let id = self.store.ids.lookup(v).expect("inserted just now");
        let label = self.store.props.labels.intern(label);
        self.labels.insert(id, label);
        for (key, value) in checked {
            let key = self.store.props.keys.intern(key);
            self.write_property(id, key, Some(value));
        }
        Ok(true)
    }

    /// Sets property `key` of vertex `v` to `value`, replacing any value.
    ///
    /// # Errors
    /// `VertexNotFound` if `v` does not exist in this transaction's view;
    /// `InvalidName` or `InvalidValue` as for
    /// [`WriteTxn::insert_vertex_with`].
    pub fn set_property(&mut self, v: VertexId, key: &str, value: Value) -> Result<()> {
        let (key, value) = self.checked(Op::SetProperty, v, key, &value)?;
        let id = self.visible_vertex(Op::SetProperty, v)?;
        let key = self.store.props.keys.intern(key);
        self.write_property(id, key, Some(value));
        Ok(())
    }

    /// Removes property `key` of vertex `v`; returns whether it was set.
    ///
    /// # Errors
    /// `VertexNotFound` if `v` does not exist in this transaction's view.
    pub fn remove_property(&mut self, v: VertexId, key: &str) -> Result<bool> {
        let id = self.visible_vertex(Op::RemoveProperty, v)?;
        let Some(key) = self.store.props.keys.lookup(key) else {
            return Ok(false);
        };
        let was = self.property_of(id, key).is_some();
        if was {
            self.write_property(id, key, None);
        }
        Ok(was)
    }

    /// Property `key` of vertex `v`, counting this transaction's writes;
    /// `None` if `v` does not exist or has no such property.
    pub fn property(&mut self, v: VertexId, key: &str) -> Option<Value> {
        let id = self.lookup(v)?;
        if !self.vertex_visible(id) {
            return None;
        }
        let key = self.store.props.keys.lookup(key)?;
        self.property_of(id, key).map(|v| v.to_value())
    }

    /// Every property of vertex `v` (key and value, in the order first
    /// set), counting this transaction's writes; `None` if `v` does not
    /// exist.
    pub fn properties(&mut self, v: VertexId) -> Option<Vec<(Arc<str>, Value)>> {
        let id = self.lookup(v)?;
        if !self.vertex_visible(id) {
            return None;
        }
        let found: Vec<(u32, Stored)> = if self.reset(id) {
            Vec::new()
        } else {
            self.read(Key::Properties(id));
            let ts = self.view().timestamp();
            self.store.props.properties_at(id, ts)
        };
        let mine = self
            .props
            .iter()
            .filter(|((x, _), _)| *x == id)
            .map(|(&(_, k), w)| (k, w));
        Some(overlay(found, mine, &self.store.props.keys))
    }

    /// The vertices labelled `label` whose property `key` equals `value`
    /// (the store's equality), counting this transaction's writes,
    /// ascending by internal id. A serializable commit fails if a commit
    /// after the snapshot changed the answer's candidates (any vertex's
    /// `key` under `label`).
    pub fn find_vertices(&mut self, label: &str, key: &str, value: &Value) -> Vec<VertexId> {
        let store = self.store.clone();
        let props = &store.props;
        if names::check(label).is_some() || names::check(key).is_some() {
            return Vec::new(); // nobody could have written such a name
        }
        // Interned even if no vertex has them yet: the read must be
        // recorded under ids a later writer of them will use.
        let (l, k) = (props.labels.intern(label), props.keys.intern(key));
        self.read(Key::Predicate(l, k));
        let mut found: Vec<u32> = self.view().find_ids(l, k, value);
        // What this transaction wrote decides for the vertices it touched.
        found.retain(|&v| !self.reset(v) && !self.props.contains_key(&(v, k)));
        let mine: Vec<u32> = self
            .props
            .iter()
            .filter(|(&(_, key), w)| {
                key == k && w.value.as_ref().is_some_and(|x| x.with(|x| x == value))
            })
            .map(|(&(v, _), _)| v)
            .collect();
        for v in mine {
            if self.label_id(v) == l && self.vertex_visible(v) {
                found.push(v);
            }
        }
        found.sort_unstable();
        found.dedup();
        found.into_iter().map(|v| store.ids.external(v)).collect()
    }

    /// The label of vertex `v` ([`crate::DEFAULT_LABEL`] if it was given none),
    /// counting this transaction's writes; `None` if `v` does not exist.
    pub fn label(&mut self, v: VertexId) -> Option<Arc<str>> {
        let id = self.lookup(v)?;
        if !self.vertex_visible(id) {
            return None;
        }
        if !self.labels.contains_key(&id) && !self.reset(id) {
            self.read(Key::Properties(id));
        }
        let label = self.label_id(id);
        Some(self.store.props.labels.name(label))
    }

    /// The label of `id` as this transaction sees it (interned; the
    /// default label's id if it has none): its own label if it creates
    /// `id`, none if it created `id` again over a vertex it deleted, else
    /// the snapshot's (none for a vertex an edge creates here).
    fn label_id(&mut self, id: u32) -> u32 {
        match self.labels.get(&id) {
            Some(&l) => l,
            None if self.reset(id) => DEFAULT_LABEL_ID,
            None => {
                let ts = self.view().timestamp();
                self.store
                    .props
                    .label_at(id, ts)
                    .unwrap_or(DEFAULT_LABEL_ID)
            }
        }
    }

    /// Property `key` (interned) of `id` as this transaction sees it.
    fn property_of(&mut self, id: u32, key: u32) -> Option<Stored> {
        if let Some(w) = self.props.get(&(id, key)) {
            return w.value.clone();
        }
        if self.reset(id) {
            return None;
        }
        self.read(Key::Property(id, key));
        let ts = self.view().timestamp();
        self.store.props.property_at(id, key, ts)
    }

    /// Buffers a write of property `key` of `id`, keeping the order in
    /// which the transaction first wrote the key.
    pub(super) fn write_property(&mut self, id: u32, key: u32, value: Option<Stored>) {
        let order = self.prop_order;
        self.props
            .entry((id, key))
            .and_modify(|w| w.value = value.clone())
            .or_insert_with(|| PropWrite { order, value });
        self.prop_order += 1;
    }

    pub(super) fn name<'n>(&self, op: Op, what: &'static str, name: &'n str) -> Result<&'n str> {
        match names::check(name) {
            None => Ok(name),
            Some(reason) => Err(Error::InvalidName {
                op,
                what,
                name: name.to_owned(),
                reason,
            }),
        }
    }

    /// A key and value checked for storing: the name's rules and the
    /// value's (encodable within the limits, no map key twice).
    fn checked<'k>(
        &self,
        op: Op,
        v: VertexId,
        key: &'k str,
        value: &Value,
    ) -> Result<(&'k str, Stored)> {
        let key = self.name(op, "property key", key)?;
        if let Err(problem) = value.check_encodable() {
            return Err(Error::InvalidValue {
                op,
                vertex: v,
                key: key.to_owned(),
                problem,
            });
        }
        Ok((key, Stored::owned(value.clone())))
    }
}

/// One owner's properties as a transaction sees them: `found` (the
/// snapshot's, in the order first set) with the transaction's writes of
/// that owner (`mine`, by interned key) laid over. Keys the snapshot has
/// keep their place with the transaction's value, or go if it removed
/// them; keys new here follow, in the order first written.
pub(super) fn overlay<'w>(
    mut found: Vec<(u32, Stored)>,
    mine: impl Iterator<Item = (u32, &'w PropWrite)>,
    keys: &names::Names,
) -> Vec<(Arc<str>, Value)> {
    let mine: Vec<(u32, &PropWrite)> = mine.collect();
    let written = |k: u32| mine.iter().find(|(x, _)| *x == k).map(|(_, w)| *w);
    found.retain_mut(|(k, v)| match written(*k) {
        Some(w) => match &w.value {
            Some(new) => {
                *v = new.clone();
                true
            }
            None => false,
        },
        None => true,
    });
    let mut new: Vec<(usize, u32, Stored)> = mine
        .iter()
        .filter(|(k, _)| !found.iter().any(|(f, _)| f == k))
        .filter_map(|(k, w)| w.value.clone().map(|v| (w.order, *k, v)))
        .collect();
    new.sort_unstable_by_key(|(order, _, _)| *order);
    found.extend(new.into_iter().map(|(_, k, v)| (k, v)));
    found
        .into_iter()
        .map(|(k, v)| (keys.name(k), v.to_value()))
        .collect()
}
