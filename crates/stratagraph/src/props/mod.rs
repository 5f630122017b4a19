//! Vertex labels and properties in memory, versioned by commit timestamp
//! as the MemGraph versions edges: every snapshot reads the label and the
//! property values as of its own timestamp.
//!
//! The store is kept beside the MemGraph's vertex slots rather than in
//! them: a slot is one cache line (`mem::Slot`), which every edge write
//! and scan touches, and properties must not widen it. Entries live in
//! shards by vertex id, each shard's in pages in id order (`paged.rs`), a
//! vertex's first two properties inline (`short_list.rs`), so a find
//! without an index reads the store in the order it lies. A commit writes
//! a vertex's entry while it holds the vertex's lock (so two commits never
//! interleave on one vertex) and the shard's lock only for the write
//! itself.
//!
//! Names (property keys and labels) are interned once per store
//! (`names.rs`), so an entry holds small ids, not strings.

pub(crate) mod edges;
pub(crate) mod file;
pub(crate) mod index;
pub(crate) mod names;
pub(crate) mod paged;
pub(crate) mod short_list;
pub(crate) mod stored;

/// The label of a vertex given none, as TinkerPop names it.
pub const DEFAULT_LABEL: &str = "vertex";

use crate::value::Value;
use crate::version::Timestamp;
use paged::PagedMap;
use parking_lot::RwLock;
use short_list::ShortList;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use stored::Stored;

/// One vertex's label (`None`: the default) and properties by name, as a
/// properties file holds them.
pub(crate) type VertexProps = (u32, Option<Arc<str>>, Vec<(Arc<str>, Stored)>);

/// The versions of one thing (a label, a property's value), newest first.
/// `None` means "not set" as of that version (removed, or the vertex
/// deleted).
///
/// The newest version is kept inline and older ones, which exist only
/// while a snapshot may read them, in a separate list: most things have
/// one version, and a vector of one would cost a heap block each.
#[derive(Debug, Clone)]
struct Versions<T> {
    newest: Version<T>,
    // Boxed so the rare case costs 8 bytes of every `Versions`, not 24.
    #[allow(clippy::box_collection)]
    older: Option<Box<Vec<Version<T>>>>,
}

/// One version: its commit and the value (`None`: not set).
type Version<T> = (Timestamp, Option<T>);

impl<T: Clone> Versions<T> {
    fn new(ts: Timestamp, value: Option<T>) -> Self {
        Versions {
            newest: (ts, value),
            older: None,
        }
    }

    /// The value a snapshot at `ts` sees.
    fn at(&self, ts: Timestamp) -> Option<&T> {
        if self.newest.0 <= ts {
            return self.newest.1.as_ref();
        }
        self.older
            .as_deref()?
            .iter()
            .find(|(t, _)| *t <= ts)
            .and_then(|(_, v)| v.as_ref())
    }

    fn latest(&self) -> Option<&T> {
        self.newest.1.as_ref()
    }

    /// Records `value` at commit `ts`, dropping versions no snapshot can
    /// see: those older than the newest at or below `watermark`.
    fn put(&mut self, ts: Timestamp, value: Option<T>, watermark: Timestamp) {
        if self.newest.0 == ts {
            self.newest.1 = value;
        } else {
            let was = std::mem::replace(&mut self.newest, (ts, value));
            self.older.get_or_insert_default().insert(0, was);
        }
        if self.newest.0 <= watermark {
            self.older = None;
        } else if let Some(older) = &mut self.older {
            if let Some(k) = older.iter().position(|(t, _)| *t <= watermark) {
                older.truncate(k + 1);
            }
        }
    }

    /// Whether nothing is set and no snapshot can see an older value.
    fn is_gone(&self, watermark: Timestamp) -> bool {
        self.older.is_none() && self.newest.1.is_none() && self.newest.0 <= watermark
    }

    /// How many versions are kept.
    #[cfg(test)]
    fn len(&self) -> usize {
        1 + self.older.as_ref().map_or(0, |o| o.len())
    }
}

/// Appends `item` to a list that usually stays short (a vertex's or an
/// edge's properties): grown one place at a time up to four, so two
/// properties take two places, not the four a `Vec` would reserve.
fn push_short<T>(list: &mut Vec<T>, item: T) {
    if list.len() == list.capacity() {
        list.reserve_exact(if list.len() < 4 { 1 } else { list.len() / 2 });
    }
    list.push(item);
}

/// One vertex's label and properties, by interned id.
#[derive(Debug, Default)]
struct Entry {
    label: Option<Versions<u32>>,
    /// By key, in the order first set; two inline (see `short_list.rs`).
    props: ShortList<(u32, Versions<Stored>), 2>,
}

impl Entry {
    /// The label in the latest state (the default label's id if none).
    fn latest_label(&self) -> u32 {
        self.label
            .as_ref()
            .and_then(|l| l.latest().copied())
            .unwrap_or(DEFAULT_LABEL_ID)
    }

    /// The label as of `ts` (the default label's id if none).
    fn label_at(&self, ts: Timestamp) -> u32 {
        self.label
            .as_ref()
            .and_then(|l| l.at(ts).copied())
            .unwrap_or(DEFAULT_LABEL_ID)
    }

    fn prop(&self, key: u32) -> Option<&Versions<Stored>> {
        self.props.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    fn prop_mut(&mut self, key: u32) -> Option<&mut Versions<Stored>> {
        self.props
            .iter_mut()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }
}

/// For each index, the value `entry` (a vertex's latest state) has under
/// it: the indexed key's value if the vertex has the indexed label.
fn indexed_values(entry: Option<&Entry>, indexes: &[Arc<index::Index>]) -> Vec<Option<Value>> {
    indexes
        .iter()
        .map(|i| {
            let e = entry.filter(|e| e.latest_label() == i.label)?;
            e.prop(i.key)?.latest().map(Stored::to_value)
        })
        .collect()
}

/// The vertex id of a shard's key: entries go in under `u32` ids, so the
/// cast is exact.
fn vertex(id: u64) -> u32 {
    id as u32
}

/// How many shards the entries are split over: enough that concurrent
/// commits on different vertices rarely share one.
const SHARDS: usize = 64;

/// Below about this many vertices with properties a scan runs on the
/// caller's thread.
const SEQUENTIAL_SCAN: usize = 50_000;

/// The labels and properties of every vertex of one store.
pub(crate) struct PropStore {
    shards: Box<[RwLock<PagedMap<Entry>>]>,
    pub keys: names::Names,
    pub labels: names::Names,
    /// The newest commit that changed a label or property (0: none), so a
    /// flush writes a properties file only when there is something new.
    changed: AtomicU64,
    /// The property indexes, in the order they were created.
    indexes: RwLock<Vec<Arc<index::Index>>>,
    /// Property edges (ids, labels, properties; parallel edges).
    pub edges: edges::EdgeStore,
}

/// The interned id of [`DEFAULT_LABEL`]: the label of a vertex given none.
pub(crate) const DEFAULT_LABEL_ID: u32 = 0;

impl Default for PropStore {
    fn default() -> Self {
        let labels = names::Names::default();
        let default = labels.intern(DEFAULT_LABEL);
        debug_assert_eq!(default, DEFAULT_LABEL_ID);
        PropStore {
            shards: (0..SHARDS)
                .map(|s| RwLock::new(PagedMap::new(SHARDS as u64, s as u64)))
                .collect(),
            keys: names::Names::default(),
            labels,
            changed: AtomicU64::new(0),
            indexes: RwLock::default(),
            edges: edges::EdgeStore::default(),
        }
    }
}

/// One change a commit makes to a vertex's label or properties.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Change {
    /// Sets the vertex's label (interned id).
    Label(u32),
    /// Sets property `key` to a value, or removes it (`None`).
    Property(u32, Option<Stored>),
    /// Removes the label and every property: the vertex was deleted.
    Clear,
}

impl PropStore {
    fn shard(&self, v: u32) -> &RwLock<PagedMap<Entry>> {
        &self.shards[v as usize % SHARDS]
    }

    /// Applies `change` to vertex `v` at commit `ts`. The caller holds
    /// `v`'s vertex lock.
    pub(crate) fn apply(&self, v: u32, change: &Change, ts: Timestamp, watermark: Timestamp) {
        let mut shard = self.shard(v).write();
        let indexes = self.indexes.read();
        let before = (!indexes.is_empty()).then(|| indexed_values(shard.get(v.into()), &indexes));
        // Whether a label or property changed (removing what is not there
        // changes nothing, and a flush need not write a file for it).
        let changed = match change {
            Change::Label(label) => {
                let e = shard.get_or_insert_with(v.into(), Entry::default);
                match &mut e.label {
                    Some(l) => l.put(ts, Some(*label), watermark),
                    None => e.label = Some(Versions::new(ts, Some(*label))),
                }
                true
            }
            Change::Property(key, value) => {
                let e = shard.get_or_insert_with(v.into(), Entry::default);
                match e.prop_mut(*key) {
                    Some(p) => {
                        let was = p.latest().is_some();
                        p.put(ts, value.clone(), watermark);
                        was || value.is_some()
                    }
                    None if value.is_some() => {
                        e.props.push((*key, Versions::new(ts, value.clone())));
                        true
                    }
                    None => false,
                }
            }
            Change::Clear => {
                let Some(e) = shard.get_mut(v.into()) else {
                    return;
                };
                let mut changed = false;
                if let Some(l) = &mut e.label {
                    if l.latest().is_some() {
                        l.put(ts, None, watermark);
                        changed = true;
                    }
                }
                for (_, p) in e.props.iter_mut() {
                    if p.latest().is_some() {
                        p.put(ts, None, watermark);
                        changed = true;
                    }
                }
                changed
            }
        };
        if changed {
            self.changed.fetch_max(ts, Ordering::AcqRel);
        }
        if let Some(before) = before {
            let after = indexed_values(shard.get(v.into()), &indexes);
            for ((index, old), new) in indexes.iter().zip(before).zip(after) {
                if old != new {
                    if let Some(old) = old {
                        index.set(&old, v, false, ts, watermark);
                    }
                    if let Some(new) = new {
                        index.set(&new, v, true, ts, watermark);
                    }
                }
            }
        }
        if let Some(e) = shard.get_mut(v.into()) {
            e.props.retain(|(_, p)| !p.is_gone(watermark));
            if e.label.as_ref().is_some_and(|l| l.is_gone(watermark)) {
                e.label = None;
            }
            if e.label.is_none() && e.props.is_empty() {
                shard.remove(v.into());
            }
        }
    }

    /// Applies a change to property edges at commit `ts`. The caller holds
    /// the vertex locks of the edge's ends.
    pub(crate) fn apply_edge(
        &self,
        change: &edges::EdgeChange,
        ts: Timestamp,
        watermark: Timestamp,
    ) {
        if self.edges.apply(change, ts, watermark) {
            self.changed.fetch_max(ts, Ordering::AcqRel);
        }
    }

    /// Creates property edges with their properties at commit `ts` (see
    /// `EdgeStore::add_all`).
    pub(crate) fn add_edges(&self, adds: Vec<edges::Added>, ts: Timestamp, watermark: Timestamp) {
        if self.edges.add_all(adds, ts, watermark) {
            self.changed.fetch_max(ts, Ordering::AcqRel);
        }
    }

    /// The index on (`label`, `key`) (interned), if there is one.
    pub(crate) fn index(&self, label: u32, key: u32) -> Option<Arc<index::Index>> {
        self.indexes
            .read()
            .iter()
            .find(|i| i.label == label && i.key == key)
            .cloned()
    }

    /// Every index as (label, key) names, in the order created.
    pub(crate) fn index_names(&self) -> Vec<(Arc<str>, Arc<str>)> {
        self.indexes
            .read()
            .iter()
            .map(|i| (self.labels.name(i.label), self.keys.name(i.key)))
            .collect()
    }

    /// Whether a value of `key` on a vertex labelled `label` is indexed.
    pub(crate) fn is_indexed(&self, label: u32, key: u32) -> bool {
        self.indexes
            .read()
            .iter()
            .any(|i| i.label == label && i.key == key)
    }

    /// Creates the index on (`label`, `key`) at `ts` over the latest state,
    /// or says which vertex holds a value it cannot (one with NaN). The
    /// caller keeps every commit out meanwhile (the writers' gate).
    pub(crate) fn create_index(
        &self,
        label: u32,
        key: u32,
        ts: Timestamp,
    ) -> std::result::Result<(), u32> {
        let index = index::Index::new(label, key, ts);
        let mut entries = Vec::new();
        for shard in self.shards.iter() {
            for (v, e) in shard.read().iter() {
                let v = vertex(v);
                if e.latest_label() != label {
                    continue;
                }
                if let Some(value) = e.prop(key).and_then(Versions::latest) {
                    if value.with(Value::contains_nan) {
                        return Err(v);
                    }
                    entries.push((value.to_value(), v));
                }
            }
        }
        index.fill(entries, ts);
        self.indexes.write().push(Arc::new(index));
        self.changed.fetch_max(ts, Ordering::AcqRel);
        Ok(())
    }

    /// The vertices with label `label` (any, if `None`) whose `key` has a
    /// value that passes `test` as of `ts`, ascending, found without an
    /// index: a scan of every vertex that has properties. The label, one
    /// small version list, is tested before the property.
    pub(crate) fn scan_where(
        &self,
        label: Option<u32>,
        key: u32,
        ts: Timestamp,
        test: &(dyn Fn(&Stored) -> bool + Sync),
    ) -> Vec<u32> {
        self.scan(&|e: &Entry| {
            label.is_none_or(|l| e.label_at(ts) == l)
                && e.prop(key).and_then(|p| p.at(ts)).is_some_and(test)
        })
    }

    /// The vertices with label `label` as of `ts`, ascending: a scan of
    /// the label store alone. Complete for every label but the default
    /// one, which a vertex has without an entry here.
    pub(crate) fn scan_label(&self, label: u32, ts: Timestamp) -> Vec<u32> {
        self.scan(&|e: &Entry| e.label_at(ts) == label)
    }

    /// The vertices whose entry `keep` keeps, ascending; shards are
    /// scanned in parallel (on the caller's rayon pool) unless the store
    /// is small enough that handing work to threads costs more than the
    /// scan (judged by one shard's size: entries spread evenly).
    fn scan(&self, keep: &(dyn Fn(&Entry) -> bool + Sync)) -> Vec<u32> {
        use rayon::prelude::*;
        let one = |shard: &RwLock<PagedMap<Entry>>| {
            let shard = shard.read();
            shard
                .iter()
                .filter(|(_, e)| keep(e))
                .map(|(v, _)| vertex(v))
                .collect::<Vec<u32>>()
        };
        let small = self.shards[0].read().len() * SHARDS < SEQUENTIAL_SCAN;
        let mut out: Vec<u32> = if small {
            self.shards.iter().flat_map(one).collect()
        } else {
            self.shards.par_iter().flat_map_iter(one).collect()
        };
        out.sort_unstable();
        out
    }

    /// The keys `v` has a value for in the latest state. The caller holds
    /// `v`'s lock.
    pub(crate) fn latest_keys(&self, v: u32) -> Vec<u32> {
        let shard = self.shard(v).read();
        shard.get(v.into()).map_or_else(Vec::new, |e| {
            e.props
                .iter()
                .filter(|(_, p)| p.latest().is_some())
                .map(|(k, _)| *k)
                .collect()
        })
    }

    /// `v`'s label in the latest state, if it has one. The caller holds
    /// `v`'s lock.
    pub(crate) fn latest_label(&self, v: u32) -> Option<u32> {
        let shard = self.shard(v).read();
        shard.get(v.into())?.label.as_ref()?.latest().copied()
    }

    /// `v`'s label as of `ts` (interned id), if it has one.
    pub(crate) fn label_at(&self, v: u32, ts: Timestamp) -> Option<u32> {
        let shard = self.shard(v).read();
        shard.get(v.into())?.label.as_ref()?.at(ts).copied()
    }

    /// `v`'s property `key` as of `ts`.
    pub(crate) fn property_at(&self, v: u32, key: u32, ts: Timestamp) -> Option<Stored> {
        let shard = self.shard(v).read();
        shard.get(v.into())?.prop(key)?.at(ts).cloned()
    }

    /// Every property `v` has as of `ts`, in the order they were first set.
    pub(crate) fn properties_at(&self, v: u32, ts: Timestamp) -> Vec<(u32, Stored)> {
        let shard = self.shard(v).read();
        let Some(e) = shard.get(v.into()) else {
            return Vec::new();
        };
        e.props
            .iter()
            .filter_map(|(k, p)| p.at(ts).map(|v| (*k, v.clone())))
            .collect()
    }

    /// Whether a commit after `ts` changed a label or a property.
    pub(crate) fn changed_after(&self, ts: Timestamp) -> bool {
        self.changed.load(Ordering::Acquire) > ts
    }

    /// Every vertex's label and properties as of `ts`, ascending by
    /// vertex, for a properties file. The caller keeps the watermark at or
    /// below `ts`, so the versions there are still kept.
    pub(crate) fn state_at(&self, ts: Timestamp) -> Vec<VertexProps> {
        let mut out = Vec::new();
        for shard in self.shards.iter() {
            for (v, e) in shard.read().iter() {
                let v = vertex(v);
                let label = e
                    .label
                    .as_ref()
                    .and_then(|l| l.at(ts))
                    .map(|&l| self.labels.name(l));
                let props: Vec<(Arc<str>, Stored)> = e
                    .props
                    .iter()
                    .filter_map(|(k, p)| p.at(ts).map(|x| (self.keys.name(*k), x.clone())))
                    .collect();
                if label.is_some() || !props.is_empty() {
                    out.push((v, label, props));
                }
            }
        }
        out.sort_unstable_by_key(|(v, _, _)| *v);
        out
    }

    /// Every property edge as of `ts` with names for labels and keys,
    /// ascending by id, for a properties file.
    pub(crate) fn edge_state_at(&self, ts: Timestamp) -> Vec<file::FileEdge> {
        self.edges
            .state_at(ts)
            .into_iter()
            .map(|(id, e, props)| {
                let props = props
                    .into_iter()
                    .map(|(k, v)| (self.keys.name(k), v))
                    .collect();
                (id, e.src, e.dst, self.labels.name(e.label), props)
            })
            .collect()
    }

    /// Loads a properties file into an empty store being opened: every
    /// label and property as of its cut, and its indexes built over them.
    /// An index that would have to hold NaN is refused, naming its label
    /// and key.
    pub(crate) fn load(
        &self,
        contents: file::Contents,
    ) -> std::result::Result<(), (Arc<str>, Arc<str>)> {
        let ts = contents.cut;
        for (v, label, props) in contents.vertices {
            if let Some(label) = label {
                self.apply(v, &Change::Label(self.labels.intern(&label)), ts, 0);
            }
            for (k, value) in props {
                self.apply(
                    v,
                    &Change::Property(self.keys.intern(&k), Some(value)),
                    ts,
                    0,
                );
            }
        }
        self.edges.reserve(contents.next_edge.saturating_sub(1));
        // In pieces: each vertex's lists are loaded ahead of their use
        // within a piece, and the pieces bound what is held twice.
        let mut edges = contents.edges.into_iter().peekable();
        while edges.peek().is_some() {
            let adds = edges
                .by_ref()
                .take(1 << 16)
                .map(|(id, src, dst, label, props)| edges::Added {
                    id,
                    ends: edges::Ends {
                        src,
                        dst,
                        label: self.labels.intern(&label),
                    },
                    props: props
                        .into_iter()
                        .map(|(k, value)| (self.keys.intern(&k), value))
                        .collect(),
                })
                .collect();
            self.add_edges(adds, ts, 0);
        }
        for (label, key) in contents.indexes {
            let (l, k) = (self.labels.intern(&label), self.keys.intern(&key));
            if self.create_index(l, k, ts).is_err() {
                return Err((label, key));
            }
        }
        Ok(())
    }

    /// Whether any vertex has a label or a property (in any version).
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.shards.iter().all(|s| s.read().len() == 0)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;

    fn int(x: i64) -> Option<Stored> {
        Some(Stored::Int64(x))
    }

    #[test]
    fn every_snapshot_reads_its_own_version() {
        let p = PropStore::default();
        p.apply(7, &Change::Label(1), 2, 0);
        p.apply(7, &Change::Property(3, int(10)), 2, 0);
        p.apply(7, &Change::Property(3, int(11)), 5, 0);
        p.apply(7, &Change::Property(4, int(1)), 6, 0);
        p.apply(7, &Change::Clear, 8, 0);
        assert_eq!(p.label_at(7, 1), None);
        assert_eq!(p.label_at(7, 2), Some(1));
        assert_eq!(
            p.property_at(7, 3, 4).map(|x| x.to_value()),
            Some(Value::Int64(10))
        );
        assert_eq!(
            p.property_at(7, 3, 5).map(|x| x.to_value()),
            Some(Value::Int64(11))
        );
        assert_eq!(p.properties_at(7, 6).len(), 2);
        assert_eq!(p.properties_at(7, 8), vec![]);
        assert_eq!(p.label_at(7, 8), None);
    }

    #[test]
    fn versions_no_snapshot_can_see_are_dropped() {
        let p = PropStore::default();
        p.apply(1, &Change::Property(0, int(1)), 1, 0);
        p.apply(1, &Change::Property(0, int(2)), 2, 0);
        p.apply(1, &Change::Property(0, int(3)), 3, 2);
        {
            let shard = p.shard(1).read();
            assert_eq!(
                shard.get(1).unwrap().props.iter().next().unwrap().1.len(),
                2,
                "3, and 2 for snapshots at 2"
            );
        }
        p.apply(1, &Change::Property(0, None), 4, 4);
        assert!(p.is_empty(), "a removed value no snapshot can see is gone");
    }
}
