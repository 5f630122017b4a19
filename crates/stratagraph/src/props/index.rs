//! Property indexes: vertices by (label, key, value), versioned like the
//! properties they index, so a snapshot at any timestamp after the index
//! was created finds exactly the vertices it sees.
//!
//! An index is kept in step by `PropStore::apply`: every change to a
//! vertex's label or to the indexed key of a vertex with the indexed label
//! moves its entry at the commit's timestamp. Entries are ordered by the
//! store's value order (`Value`'s `Ord`), so an equality look-up is a
//! range read, never a scan of the graph.

use super::Versions;
use crate::value::Value;
use crate::version::Timestamp;
use parking_lot::RwLock;
use std::collections::BTreeMap;

/// One index: the vertices of one label by the value of one key.
pub(crate) struct Index {
    /// Interned label (the default label has an id too).
    pub label: u32,
    /// Interned key.
    pub key: u32,
    /// The commit that created it: snapshots older than this cannot use it.
    pub created: Timestamp,
    entries: RwLock<BTreeMap<(Value, u32), Versions<()>>>,
}

impl Index {
    pub(crate) fn new(label: u32, key: u32, created: Timestamp) -> Self {
        Index {
            label,
            key,
            created,
            entries: RwLock::default(),
        }
    }

    /// Vertex `v` has `value` from `ts` on (`present`), or no longer has it.
    pub(crate) fn set(
        &self,
        value: &Value,
        v: u32,
        present: bool,
        ts: Timestamp,
        watermark: Timestamp,
    ) {
        let mut entries = self.entries.write();
        let k = (value.clone(), v);
        let now = present.then_some(());
        match entries.get_mut(&k) {
            Some(versions) => {
                versions.put(ts, now, watermark);
                if versions.is_gone(watermark) {
                    entries.remove(&k);
                }
            }
            None if present => {
                entries.insert(k, Versions::new(ts, now));
            }
            None => {}
        }
    }

    /// Fills an index nobody reads yet with `entries` (value, vertex), all
    /// present from `ts` on: one sort and a bulk build instead of an
    /// insertion each.
    pub(crate) fn fill(&self, mut entries: Vec<(Value, u32)>, ts: Timestamp) {
        entries.sort_unstable();
        entries.dedup();
        *self.entries.write() = entries
            .into_iter()
            .map(|k| (k, Versions::new(ts, Some(()))))
            .collect();
    }

    /// The vertices that have `value` as of `ts`, ascending.
    pub(crate) fn find(&self, value: &Value, ts: Timestamp) -> Vec<u32> {
        let entries = self.entries.read();
        entries
            .range((value.clone(), 0)..=(value.clone(), u32::MAX))
            .filter(|(_, versions)| versions.at(ts).is_some())
            .map(|((_, v), _)| *v)
            .collect()
    }

    /// Entries held (live or kept for old snapshots), for tests.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.read().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_finds_what_was_there_at_its_time() {
        let i = Index::new(0, 0, 1);
        let a = Value::String("marko".into());
        let b = Value::String("vadas".into());
        i.set(&a, 7, true, 2, 0);
        i.set(&a, 3, true, 3, 0);
        i.set(&a, 7, false, 5, 0);
        i.set(&b, 7, true, 5, 0);
        assert_eq!(i.find(&a, 1), Vec::<u32>::new());
        assert_eq!(i.find(&a, 2), vec![7]);
        assert_eq!(i.find(&a, 4), vec![3, 7]);
        assert_eq!(i.find(&a, 5), vec![3]);
        assert_eq!(i.find(&b, 5), vec![7]);
        // Types are kept apart: an Int64 is not found as an Int32.
        i.set(&Value::Int32(29), 1, true, 6, 0);
        assert!(i.find(&Value::Int64(29), 6).is_empty());
        // What no snapshot can see goes.
        i.set(&a, 3, false, 9, 9);
        assert_eq!(i.len(), 3);
    }
}
