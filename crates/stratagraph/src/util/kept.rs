//! Reads a snapshot built that later snapshots may take: per key, the
//! newest one built and the timestamp of the snapshot that built it.
//!
//! A snapshot never changes, so what it copies of the MemGraph (a page,
//! `mem_view`) or merges (a hub's list, `hub_lists`) is exact for any newer
//! snapshot over the same `Layers` as long as no commit wrote to what it
//! covers in between. Whether one did is the caller's to check (write
//! marks, `MemGraph::note_write`); this table only keeps the newest build
//! and hands it to snapshots no older than its builder.

use parking_lot::Mutex;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::Arc;

/// The newest build per key (see the module docs).
pub(crate) struct Kept<K, T: ?Sized> {
    items: Mutex<HashMap<K, (Arc<T>, u64)>>,
}

impl<K, T: ?Sized> Default for Kept<K, T> {
    fn default() -> Self {
        Kept {
            items: Mutex::new(HashMap::new()),
        }
    }
}

impl<K: Hash + Eq, T: ?Sized> Kept<K, T> {
    /// The item kept under `key` and its builder's timestamp, if that
    /// snapshot is no newer than `ts` (an older snapshot may not see what
    /// the builder saw).
    pub(crate) fn built_by(&self, key: &K, ts: u64) -> Option<(Arc<T>, u64)> {
        let items = self.items.lock();
        let (item, built) = items.get(key)?;
        (*built <= ts).then(|| (item.clone(), *built))
    }

    /// Keeps `item`, built by a snapshot at `ts`, unless a newer one is
    /// kept under `key`.
    pub(crate) fn offer(&self, key: K, item: &Arc<T>, ts: u64) {
        let mut items = self.items.lock();
        let kept = items.entry(key).or_insert_with(|| (item.clone(), ts));
        if kept.1 < ts {
            *kept = (item.clone(), ts);
        }
    }

    /// Bytes of the kept items, each measured by `size`.
    pub(crate) fn bytes(&self, size: impl Fn(&T) -> usize) -> usize {
        self.items.lock().values().map(|(item, _)| size(item)).sum()
    }
}
