//! Labels and properties as a snapshot sees them.

use super::Snapshot;
use crate::error::VertexId;
use crate::props::index::Index;
use crate::props::stored::Stored;
use crate::props::DEFAULT_LABEL_ID;
use crate::value::Value;
use std::sync::Arc;

impl Snapshot {
    /// The key of vertex id `v` in a store that names vertices by string
    /// keys (see `Graph::intern_key`); `None` otherwise. Keys are never
    /// taken back, so every snapshot reads the same dictionary.
    pub fn key_of(&self, v: VertexId) -> Option<Arc<str>> {
        self.store.keys.name(v)
    }

    /// The vertex id of `key`, if it was given one.
    pub fn key_id(&self, key: &str) -> Option<VertexId> {
        self.store.keys.lookup(key)
    }

    /// The label of vertex `v` ([`crate::DEFAULT_LABEL`] if it was given none);
    /// `None` if `v` is not a vertex here.
    pub fn label(&self, v: VertexId) -> Option<Arc<str>> {
        let id = self.internal_id(v)?;
        let props = &self.store.props;
        let label = props.label_at(id, self.timestamp());
        Some(props.labels.name(label.unwrap_or(DEFAULT_LABEL_ID)))
    }

    /// The label of internal vertex `v` as its number (named by
    /// [`Snapshot::label_name`]), without naming it: for walks that count
    /// by label. `None` if `v` is not a vertex here.
    pub fn label_number_of(&self, v: u32) -> Option<u32> {
        if !self.contains(v) {
            return None;
        }
        let label = self.store.props.label_at(v, self.timestamp());
        Some(label.unwrap_or(DEFAULT_LABEL_ID))
    }

    /// The number of property key `key` in this store, for
    /// [`Snapshot::property_of`]; `None` if no property ever had it.
    pub fn key_number(&self, key: &str) -> Option<u32> {
        self.store.props.keys.lookup(key)
    }

    /// Property number `key` of internal vertex `v`: for walks that read
    /// one key of many vertices, without a look-up of the key's name or
    /// of the vertex's id each time. `None` if `v` is not a vertex here or
    /// has no such property.
    pub fn property_of(&self, v: u32, key: u32) -> Option<Value> {
        if !self.contains(v) {
            return None;
        }
        self.store
            .props
            .property_at(v, key, self.timestamp())
            .map(|x| x.to_value())
    }

    /// Property `key` of vertex `v`; `None` if `v` is not a vertex here or
    /// has no such property.
    pub fn property(&self, v: VertexId, key: &str) -> Option<Value> {
        self.property_with(v, key, Value::clone)
    }

    /// [`Snapshot::property`] without a copy: `f` is called with the
    /// stored value itself (a reader that converts the value anyway saves
    /// copying a string or a list twice).
    pub fn property_with<R>(
        &self,
        v: VertexId,
        key: &str,
        f: impl FnOnce(&Value) -> R,
    ) -> Option<R> {
        let id = self.internal_id(v)?;
        let props = &self.store.props;
        let key = props.keys.lookup(key)?;
        Some(props.property_at(id, key, self.timestamp())?.with(f))
    }

    /// The vertices labelled `label` whose property `key` equals `value`
    /// (in the store's equality: an Int32 29 is not an Int64 29), ascending
    /// by internal id. Uses the index on (`label`, `key`) if one existed at
    /// this snapshot's timestamp; scans every vertex with properties
    /// otherwise.
    pub fn find_vertices(&self, label: &str, key: &str, value: &Value) -> Vec<VertexId> {
        let props = &self.store.props;
        let (Some(l), Some(k)) = (props.labels.lookup(label), props.keys.lookup(key)) else {
            return Vec::new();
        };
        self.find_ids(l, k, value)
            .into_iter()
            .map(|v| self.store.ids.external(v))
            .collect()
    }

    /// `find_vertices` by interned label and key, as internal ids.
    pub(crate) fn find_ids(&self, label: u32, key: u32, value: &Value) -> Vec<u32> {
        let props = &self.store.props;
        let ts = self.timestamp();
        let found = match self.usable_index(label, key) {
            Some(index) => index.find(value, ts),
            None => {
                // Kept as the store keeps values, the probe compares with
                // each vertex's without making a `Value` of it (and a long
                // string by its hash first).
                let probe = Stored::owned(value.clone());
                self.store
                    .par(|| props.scan_where(Some(label), key, ts, &|x| *x == probe))
            }
        };
        found.into_iter().filter(|&v| self.contains(v)).collect()
    }

    /// The vertices labelled `label` (any label if `None`) whose property
    /// `key` passes `test`, ascending by internal id (the order of
    /// [`Snapshot::vertices`]). No index answers an arbitrary test, so
    /// this scans every vertex that has properties, in parallel on the
    /// store's threads: one pass without a look-up per vertex, for the
    /// range and inequality filters a query language asks for.
    pub fn scan_vertices(
        &self,
        label: Option<&str>,
        key: &str,
        test: &(dyn Fn(&Value) -> bool + Sync),
    ) -> Vec<VertexId> {
        let props = &self.store.props;
        let label = match label {
            Some(l) => match props.labels.lookup(l) {
                Some(l) => Some(l),
                None => return Vec::new(),
            },
            None => None,
        };
        let Some(key) = props.keys.lookup(key) else {
            return Vec::new();
        };
        let ts = self.timestamp();
        self.store
            .par(|| props.scan_where(label, key, ts, &|x| x.with(test)))
            .into_iter()
            .filter(|&v| self.contains(v))
            .map(|v| self.store.ids.external(v))
            .collect()
    }

    /// The vertices labelled `label`, ascending by internal id (the order
    /// of [`Snapshot::vertices`]). A label other than the default one is
    /// found in the label store alone, scanned in parallel, without a
    /// look-up per vertex of the graph; the default label
    /// ([`crate::DEFAULT_LABEL`]) is every vertex given none, tested one
    /// by one.
    pub fn vertices_labelled(&self, label: &str) -> Vec<VertexId> {
        let props = &self.store.props;
        let Some(l) = props.labels.lookup(label) else {
            return Vec::new();
        };
        let ids: Vec<u32> = if l == DEFAULT_LABEL_ID {
            self.vertices()
                .filter(|&v| self.label_number_of(v) == Some(l))
                .collect()
        } else {
            let ts = self.timestamp();
            self.store
                .par(|| props.scan_label(l, ts))
                .into_iter()
                .filter(|&v| self.contains(v))
                .collect()
        };
        ids.into_iter()
            .map(|v| self.store.ids.external(v))
            .collect()
    }

    /// Whether `find_vertices(label, key, ..)` uses an index here.
    pub fn has_index(&self, label: &str, key: &str) -> bool {
        let props = &self.store.props;
        match (props.labels.lookup(label), props.keys.lookup(key)) {
            (Some(l), Some(k)) => self.usable_index(l, k).is_some(),
            _ => false,
        }
    }

    /// The index on (`label`, `key`) if it existed at this snapshot's
    /// timestamp (an older snapshot cannot use it).
    fn usable_index(&self, label: u32, key: u32) -> Option<Arc<Index>> {
        let index = self.store.props.index(label, key)?;
        (index.created <= self.timestamp()).then_some(index)
    }

    /// Every property of vertex `v`, key and value, in the order they were
    /// first set; `None` if `v` is not a vertex here.
    pub fn properties(&self, v: VertexId) -> Option<Vec<(Arc<str>, Value)>> {
        let id = self.internal_id(v)?;
        let props = &self.store.props;
        Some(
            props
                .properties_at(id, self.timestamp())
                .into_iter()
                .map(|(k, v)| (props.keys.name(k), v.to_value()))
                .collect(),
        )
    }
}
