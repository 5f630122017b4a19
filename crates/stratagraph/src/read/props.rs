//! Labels and properties as a snapshot sees them.

use super::Snapshot;
use crate::error::VertexId;
use crate::props::DEFAULT_LABEL;
use crate::value::Value;
use std::sync::Arc;

impl Snapshot {
    /// The label of vertex `v` ([`DEFAULT_LABEL`] if it was given none);
    /// `None` if `v` is not a vertex here.
    pub fn label(&self, v: VertexId) -> Option<Arc<str>> {
        let id = self.internal_id(v)?;
        let props = &self.store.props;
        Some(
            props
                .label_at(id, self.timestamp())
                .map_or_else(|| Arc::from(DEFAULT_LABEL), |l| props.labels.name(l)),
        )
    }

    /// Property `key` of vertex `v`; `None` if `v` is not a vertex here or
    /// has no such property.
    pub fn property(&self, v: VertexId, key: &str) -> Option<Value> {
        let id = self.internal_id(v)?;
        let props = &self.store.props;
        let key = props.keys.lookup(key)?;
        props
            .property_at(id, key, self.timestamp())
            .map(|v| (*v).clone())
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
                .map(|(k, v)| (props.keys.name(k), (*v).clone()))
                .collect(),
        )
    }
}
