//! A map from ids to values for one shard of the property store (edges by
//! edge id, vertices by internal vertex id), laid out for ids handed out
//! in order.
//!
//! A store generates edge ids by counting (`EdgeStore::next_id`), and
//! internal vertex ids are dense from 0; a shard holds every `stride`-th
//! of them, so its ids are dense too. A hash map of 16 million edges
//! spent about 140 bytes on each (a 72-byte bucket at a load between one
//! half and seven eighths); here an id's value sits at its place in a page
//! of `PAGE` slots, a slot costing the value's size and nothing more, and a
//! scan walks the pages in id order, reading memory in the order it lies.
//! Ids a user chose far beyond the others (a GraphSON file's, say) would
//! need pages for the gap, so they go to a hash map instead: an id whose
//! page lies more than `MAX_GAP` pages past the last one.

use rustc_hash::FxHashMap;

/// Slots in a page.
const PAGE: usize = 512;

/// How many pages past the last one an id may open new pages (the pages
/// between cost a pointer each until used); beyond, it goes to the map.
const MAX_GAP: u64 = 1024;

type Page<T> = Box<[Option<T>]>;

/// Values by id for ids `offset`, `offset + stride`, `offset + 2 * stride`
/// and so on (see the module's doc).
pub(crate) struct PagedMap<T> {
    stride: u64,
    offset: u64,
    pages: Vec<Option<Page<T>>>,
    /// Ids whose page is past `pages`. Invariant: no id here falls on a
    /// page below `pages.len()`.
    sparse: FxHashMap<u64, T>,
    /// No id in `sparse` falls on a page below this.
    sparse_low: u64,
    /// How many ids have a value.
    len: usize,
}

impl<T> PagedMap<T> {
    /// A map for the ids `offset + k * stride`.
    pub(crate) fn new(stride: u64, offset: u64) -> Self {
        debug_assert!(stride > 0 && offset < stride);
        PagedMap {
            stride,
            offset,
            pages: Vec::new(),
            sparse: FxHashMap::default(),
            sparse_low: u64::MAX,
            len: 0,
        }
    }

    /// How many ids have a value.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// `id`'s value, set to `make()` first if it has none.
    pub(crate) fn get_or_insert_with(&mut self, id: u64, make: impl FnOnce() -> T) -> &mut T {
        if self.get(id).is_none() {
            self.insert(id, make());
        }
        self.get_mut(id).expect("a value was just inserted")
    }

    /// The page of `id` and its slot there.
    fn place(&self, id: u64) -> (u64, usize) {
        debug_assert_eq!(id % self.stride, self.offset, "id {id} is not this shard's");
        let slot = id / self.stride;
        (slot / PAGE as u64, (slot % PAGE as u64) as usize)
    }

    fn id_at(&self, page: usize, at: usize) -> u64 {
        (page as u64 * PAGE as u64 + at as u64) * self.stride + self.offset
    }

    fn paged(&self, page: u64) -> bool {
        page < self.pages.len() as u64
    }

    pub(crate) fn get(&self, id: u64) -> Option<&T> {
        let (page, at) = self.place(id);
        if self.paged(page) {
            self.pages[page as usize].as_ref()?[at].as_ref()
        } else {
            self.sparse.get(&id)
        }
    }

    /// Starts loading `id`'s slot into the cache (a hint; nothing is read
    /// now), so that a `get` of it a little later does not wait for
    /// memory.
    pub(crate) fn prefetch(&self, id: u64) {
        let (page, at) = self.place(id);
        if let Some(Some(slots)) = self.pages.get(page as usize) {
            crate::util::prefetch::lines(&slots[at]);
        }
    }

    pub(crate) fn get_mut(&mut self, id: u64) -> Option<&mut T> {
        let (page, at) = self.place(id);
        if self.paged(page) {
            self.pages[page as usize].as_mut()?[at].as_mut()
        } else {
            self.sparse.get_mut(&id)
        }
    }

    /// Sets `id`'s value; returns the one it had.
    pub(crate) fn insert(&mut self, id: u64, value: T) -> Option<T> {
        let (page, at) = self.place(id);
        let was = if !self.paged(page) && page >= self.pages.len() as u64 + MAX_GAP {
            self.sparse_low = self.sparse_low.min(page);
            self.sparse.insert(id, value)
        } else {
            if !self.paged(page) {
                self.grow(page as usize + 1);
            }
            self.slots(page as usize)[at].replace(value)
        };
        self.len += usize::from(was.is_none());
        was
    }

    /// The slots of page `page` (below `pages.len()`), opened if need be.
    fn slots(&mut self, page: usize) -> &mut Page<T> {
        self.pages[page].get_or_insert_with(|| (0..PAGE).map(|_| None).collect())
    }

    /// Extends the pages to `len`, moving the ids of `sparse` that now
    /// fall on a page into it.
    fn grow(&mut self, len: usize) {
        self.pages.resize_with(len, || None);
        if self.sparse_low >= len as u64 {
            return;
        }
        let ids: Vec<u64> = self
            .sparse
            .keys()
            .copied()
            .filter(|&id| self.place(id).0 < len as u64)
            .collect();
        for id in ids {
            if let Some(value) = self.sparse.remove(&id) {
                let (page, at) = self.place(id);
                self.slots(page as usize)[at] = Some(value);
            }
        }
        self.sparse_low = self
            .sparse
            .keys()
            .map(|&id| self.place(id).0)
            .min()
            .unwrap_or(u64::MAX);
    }

    /// Removes `id`; returns the value it had.
    pub(crate) fn remove(&mut self, id: u64) -> Option<T> {
        let (page, at) = self.place(id);
        let was = if self.paged(page) {
            self.pages[page as usize].as_mut()?[at].take()
        } else {
            self.sparse.remove(&id)
        };
        self.len -= usize::from(was.is_some());
        was
    }

    /// Every id and its value: the paged ids ascending, then the others in
    /// no particular order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, &T)> {
        self.pages
            .iter()
            .enumerate()
            .flat_map(move |(p, slots)| {
                slots.iter().flat_map(move |slots| {
                    slots
                        .iter()
                        .enumerate()
                        .filter_map(move |(at, v)| v.as_ref().map(|v| (self.id_at(p, at), v)))
                })
            })
            .chain(self.sparse.iter().map(|(&id, v)| (id, v)))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u64, u32),
        Remove(u64),
        /// `get_or_insert_with`.
        Upsert(u64, u32),
    }

    /// Ids of every kind: dense from the start, a little past the pages,
    /// far past them (the map), and at the top of the range.
    fn id() -> impl Strategy<Value = u64> {
        prop_oneof![
            0..5_000u64,
            0..3_000_000u64,
            // Pages 1,000 to 1,100: first in the map, then paged once
            // lower ids open pages close enough.
            32_000_000..36_000_000u64,
            (1u64 << 40)..(1u64 << 40) + 5_000,
            (u64::MAX - 5_000)..=u64::MAX,
        ]
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (id(), any::<u32>()).prop_map(|(i, v)| Op::Insert(i, v)),
            1 => id().prop_map(Op::Remove),
            1 => (id(), any::<u32>()).prop_map(|(i, v)| Op::Upsert(i, v)),
        ]
    }

    proptest! {
        /// Reads as a `BTreeMap` of the shard's ids does, through inserts
        /// and removals that move ids from the map to new pages.
        #[test]
        fn reads_like_an_ordered_map(offset in 0u64..64, ops in prop::collection::vec(op(), 1..400)) {
            let stride = 64;
            let mut m = PagedMap::new(stride, offset);
            let mut model = BTreeMap::new();
            let ours = |i: u64| i - i % stride + offset;
            for op in ops {
                match op {
                    Op::Insert(i, v) => {
                        let i = ours(i.min(u64::MAX - stride));
                        prop_assert_eq!(m.insert(i, v), model.insert(i, v));
                    }
                    Op::Remove(i) => {
                        let i = ours(i.min(u64::MAX - stride));
                        prop_assert_eq!(m.remove(i), model.remove(&i));
                    }
                    Op::Upsert(i, v) => {
                        let i = ours(i.min(u64::MAX - stride));
                        prop_assert_eq!(*m.get_or_insert_with(i, || v), *model.entry(i).or_insert(v));
                    }
                }
                prop_assert_eq!(m.len(), model.len());
            }
            for (&i, &v) in &model {
                prop_assert_eq!(m.get(i), Some(&v));
                *m.get_mut(i).unwrap() = v.wrapping_add(1);
                prop_assert_eq!(m.get(i), Some(&v.wrapping_add(1)));
            }
            let probe = ours(77_777);
            let want = model.get(&probe).map(|v| v.wrapping_add(1));
            prop_assert_eq!(m.get(probe).copied(), want);
            let mut all: Vec<(u64, u32)> = m.iter().map(|(i, &v)| (i, v.wrapping_sub(1))).collect();
            all.sort_unstable();
            prop_assert_eq!(all, model.into_iter().collect::<Vec<_>>());
        }
    }

    #[test]
    fn counted_ids_go_to_pages_and_far_ones_to_the_map() {
        let mut m = PagedMap::new(64, 3);
        for k in 0..10_000u64 {
            m.insert(k * 64 + 3, k);
        }
        assert!(m.sparse.is_empty());
        let far = (1u64 << 40) * 64 + 3;
        m.insert(far, 7);
        assert_eq!(m.sparse.len(), 1);
        assert_eq!(m.get(far), Some(&7));
        assert_eq!(m.iter().count(), 10_001);
        // Past the gap, then reached by pages opened below it: moved.
        let later = (m.pages.len() as u64 + MAX_GAP + 5) * PAGE as u64 * 64 + 3;
        m.insert(later, 8);
        assert_eq!(m.sparse.len(), 2);
        let bridge = (m.pages.len() as u64 + MAX_GAP - 1) * PAGE as u64 * 64 + 3;
        m.insert(bridge, 9);
        m.insert(bridge + 10 * PAGE as u64 * 64, 10);
        assert_eq!(m.sparse.len(), 1, "only the far id is left in the map");
        assert_eq!((m.get(later), m.get(far)), (Some(&8), Some(&7)));
        assert_eq!(m.iter().count(), 10_004);
    }
}
