//! External (`u64`) to dense internal (`u32`) vertex ids.
//!
//! Internal ids make vertex look-up an array index and let analytics use
//! plain arrays (DESIGN principle 4). An id is assigned the first time the
//! engine sees an external id and never changes or gets reused, even if the
//! vertex is deleted and created again; whether a vertex *exists* at a given
//! timestamp is versioned separately, in the vertex's slot.
//!
//! Most graphs name vertices by small integers, so external ids below
//! `DIRECT_LIMIT` are mapped through pages of a direct array (one atomic load
//! per look-up, no hashing, no lock); larger ids go through a sharded hash map.
//! A graph whose vertices arrive as 0, 1, 2, ... (loaded vertices first, by
//! dense integer ids) maps each id to itself: such a prefix of ids is kept
//! as its length alone, so it costs no table at all (12 bytes a vertex
//! otherwise, which is most of what a store keeps per vertex).

use crate::util::segmented::SegmentedTable;
use parking_lot::RwLock;
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// External ids below this are mapped by direct pages.
const DIRECT_LIMIT: u64 = 1 << 28;
const PAGE_BITS: u32 = 12;
const PAGE: usize = 1 << PAGE_BITS;
const SHARDS: usize = 64;

/// Internal ids available: `u32::MAX` itself is kept as a sentinel.
pub(crate) const MAX_IDS: u64 = u32::MAX as u64;

type Page = Box<[AtomicU32; PAGE]>;

/// Where new id assignments are recorded durably (the write-ahead log of an
/// on-disk store). `assign` calls `take` to hand out the id while holding
/// whatever keeps its records in assignment order.
pub(crate) trait IdJournal: Send + Sync {
    fn assign(&self, ext: u64, take: &mut dyn FnMut() -> Option<u32>) -> Option<u32>;
}

/// The id dictionary of one store.
pub(crate) struct IdMap {
    /// `direct[ext >> PAGE_BITS][ext & (PAGE-1)]` holds internal id + 1 (0 = unmapped).
    direct: Box<[OnceLock<Page>]>,
    /// Ids at or above `DIRECT_LIMIT`, and the locks that serialise assignment.
    shards: Box<[RwLock<FxHashMap<u64, u32>>]>,
    external: SegmentedTable<AtomicU64>,
    /// Ids below this are their own external ids, and have no entry in
    /// `direct` or `external`. It grows while every id assigned is its own
    /// external id, and stays once one is not.
    identity: AtomicU64,
    next: AtomicU64,
    /// No id at or above this is handed out (`Options::max_vertex_ids`).
    cap: AtomicU64,
    /// Set once an on-disk store's log is running.
    journal: OnceLock<Arc<dyn IdJournal>>,
    /// One past the largest external id interned or handed out by
    /// [`IdMap::fresh_external`]: where generated vertex ids start, so a
    /// writer that wants a new vertex needs no scan of the vertices and
    /// concurrent writers never pick the same id.
    fresh: AtomicU64,
}

fn shard_of(ext: u64) -> usize {
    // Fibonacci hashing: spreads consecutive ids over shards.
    (ext.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize % SHARDS
}

impl IdMap {
    pub(crate) fn new() -> Self {
        IdMap {
            direct: (0..(DIRECT_LIMIT as usize >> PAGE_BITS))
                .map(|_| OnceLock::new())
                .collect(),
            shards: (0..SHARDS)
                .map(|_| RwLock::new(FxHashMap::default()))
                .collect(),
            external: SegmentedTable::new(),
            identity: AtomicU64::new(0),
            next: AtomicU64::new(0),
            cap: AtomicU64::new(MAX_IDS),
            journal: OnceLock::new(),
            fresh: AtomicU64::new(0),
        }
    }

    /// An external id never interned and never handed out before (`None`
    /// once `u64::MAX` is reached). Ids a caller interns later push the
    /// counter past them.
    pub(crate) fn fresh_external(&self) -> Option<u64> {
        self.fresh
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| n.checked_add(1))
            .ok()
    }

    /// Hands out no id at or above `max` from now on, but keeps every id
    /// already assigned (a store may be reopened with a smaller cap).
    pub(crate) fn limit(&self, max: u64) {
        let next = self.next.load(Ordering::Acquire);
        self.cap.store(max.clamp(next, MAX_IDS), Ordering::Release);
    }

    /// How many ids this map may hand out in all.
    pub(crate) fn cap(&self) -> u64 {
        self.cap.load(Ordering::Acquire)
    }

    /// Records every id assigned from now on in `journal`.
    pub(crate) fn attach_journal(&self, journal: Arc<dyn IdJournal>) {
        let _ = self.journal.set(journal);
    }

    /// Starts loading where `ext`'s internal id is kept, for a look-up
    /// that follows shortly (see `util::prefetch`).
    #[inline]
    pub(crate) fn prefetch(&self, ext: u64) {
        if ext >= self.identity.load(Ordering::Relaxed) && ext < DIRECT_LIMIT {
            if let Some(page) = self.direct[(ext >> PAGE_BITS) as usize].get() {
                crate::util::prefetch::line(&page[ext as usize & (PAGE - 1)]);
            }
        }
    }

    /// The internal id of `ext`, if one was ever assigned.
    #[inline]
    pub(crate) fn lookup(&self, ext: u64) -> Option<u32> {
        if ext < self.identity.load(Ordering::Acquire) {
            return Some(ext as u32);
        }
        if ext < DIRECT_LIMIT {
            let page = self.direct[(ext >> PAGE_BITS) as usize].get()?;
            let v = page[ext as usize & (PAGE - 1)].load(Ordering::Acquire);
            v.checked_sub(1)
        } else {
            self.shards[shard_of(ext)].read().get(&ext).copied()
        }
    }

    /// The internal id of `ext`, assigning the next free one on first sight.
    /// Returns `None` only when all ids up to the cap are used up.
    pub(crate) fn intern(&self, ext: u64) -> Option<u32> {
        if let Some(id) = self.lookup(ext) {
            return Some(id);
        }
        let mut shard = self.shards[shard_of(ext)].write();
        if let Some(id) = self.lookup_locked(ext, &shard) {
            return Some(id);
        }
        // Never past the cap, even for a moment: `bound` is read without
        // the shard locks, and ids below it must be assigned ones.
        let cap = self.cap();
        let mut take = || {
            self.next
                .fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| {
                    (n < cap).then_some(n + 1)
                })
                .ok()
                .map(|id| id as u32)
        };
        let id = match self.journal.get() {
            Some(j) => j.assign(ext, &mut take)?,
            None => take()?,
        };
        self.fresh
            .fetch_max(ext.saturating_add(1), Ordering::AcqRel);
        // Its own external id, next after the identity prefix: published by
        // growing the prefix. An id taken while an earlier one is still
        // being published fails the exchange and goes into the tables, and
        // the prefix never grows past it.
        let own = u64::from(id) == ext;
        if own
            && self
                .identity
                .compare_exchange(ext, ext + 1, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
        {
            return Some(id);
        }
        self.external.get_or_alloc(id).store(ext, Ordering::Release);
        if ext < DIRECT_LIMIT {
            let page = self.direct[(ext >> PAGE_BITS) as usize]
                .get_or_init(|| Box::new(std::array::from_fn(|_| AtomicU32::new(0))));
            page[ext as usize & (PAGE - 1)].store(id + 1, Ordering::Release);
        } else {
            shard.insert(ext, id);
        }
        Some(id)
    }

    fn lookup_locked(&self, ext: u64, shard: &FxHashMap<u64, u32>) -> Option<u32> {
        if ext < DIRECT_LIMIT || ext < self.identity.load(Ordering::Acquire) {
            self.lookup(ext)
        } else {
            shard.get(&ext).copied()
        }
    }

    /// The external id of internal id `id` (which must have been assigned).
    #[inline]
    pub(crate) fn external(&self, id: u32) -> u64 {
        if u64::from(id) < self.identity.load(Ordering::Acquire) {
            return u64::from(id);
        }
        self.external
            .get(id)
            .map_or(u64::MAX, |a| a.load(Ordering::Acquire))
    }

    /// The external id of internal id `id`, which has been handed out but
    /// whose assignment may still be in progress on another thread: `bound`
    /// counts an id before its external id is recorded (nanoseconds later),
    /// and an unrecorded entry reads as external id 0, so this waits until
    /// the id maps back to itself. For walks over every id up to `bound`
    /// while writers may be interning (a flush's vertex table).
    pub(crate) fn external_settled(&self, id: u32) -> u64 {
        loop {
            let ext = self.external(id);
            if self.lookup(ext) == Some(id) {
                return ext;
            }
            std::thread::yield_now();
        }
    }

    /// One past the largest internal id assigned so far.
    pub(crate) fn bound(&self) -> u32 {
        self.next.load(Ordering::Acquire) as u32
    }

    /// Approximate bytes used by the dictionary.
    pub(crate) fn memory_bytes(&self) -> usize {
        let pages = self.direct.iter().filter(|p| p.get().is_some()).count();
        let map: usize = self
            .shards
            .iter()
            .map(|s| s.read().capacity() * (std::mem::size_of::<(u64, u32)>() + 1))
            .sum();
        std::mem::size_of_val(&*self.direct)
            + pages * PAGE * 4
            + map
            + self.external.allocated_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_stable_and_reversible() {
        let m = IdMap::new();
        let exts = [
            5u64,
            1 << 40,
            0,
            5,
            DIRECT_LIMIT,
            DIRECT_LIMIT - 1,
            u64::MAX,
        ];
        let ids: Vec<u32> = exts.iter().map(|&e| m.intern(e).unwrap()).collect();
        assert_eq!(ids, vec![0, 1, 2, 0, 3, 4, 5]);
        for (&e, &i) in exts.iter().zip(&ids) {
            assert_eq!(m.lookup(e), Some(i));
            assert_eq!(m.external(i), e);
        }
        assert_eq!(m.lookup(6), None);
        assert_eq!(m.bound(), 6);
    }

    #[test]
    fn ids_in_order_from_zero_take_no_table_until_one_is_not_its_own() {
        let m = IdMap::new();
        for e in 0..10_000u64 {
            assert_eq!(m.intern(e), Some(e as u32));
        }
        assert_eq!(m.external.allocated_bytes(), 0);
        assert!(m.direct.iter().all(|p| p.get().is_none()));
        // Out of order: 10,005 takes id 10,000, and the prefix stops there.
        assert_eq!(m.intern(10_005), Some(10_000));
        assert_eq!(m.intern(10_001), Some(10_001));
        assert_eq!(m.intern(10_000), Some(10_002));
        for (e, i) in [
            (0, 0),
            (9_999, 9_999),
            (10_005, 10_000),
            (10_001, 10_001),
            (10_000, 10_002),
        ] {
            assert_eq!(m.lookup(e), Some(i), "{e}");
            assert_eq!(m.external(i), e, "{i}");
        }
        assert_eq!(m.lookup(10_002), None);
        assert_eq!(m.bound(), 10_003);
        assert!(m.external.allocated_bytes() > 0);
    }

    #[test]
    fn concurrent_interning_in_order_keeps_every_id_reversible() {
        // Threads racing for the next ids of 0, 1, 2, ...: some take the
        // prefix, the rest the tables; every id maps back either way.
        for _ in 0..20 {
            let m = IdMap::new();
            std::thread::scope(|s| {
                for t in 0..4u64 {
                    let m = &m;
                    s.spawn(move || {
                        for e in 0..2_000u64 {
                            m.intern(if t % 2 == 0 { e } else { 1_999 - e }).unwrap();
                        }
                    });
                }
            });
            assert_eq!(m.bound(), 2_000);
            let mut seen = vec![false; 2_000];
            for e in 0..2_000u64 {
                let i = m.lookup(e).unwrap();
                assert_eq!(m.external(i), e);
                assert_eq!(m.external_settled(i), e);
                assert!(!std::mem::replace(&mut seen[i as usize], true));
            }
        }
    }

    #[test]
    fn concurrent_interning_gives_one_id_per_external_id() {
        let m = IdMap::new();
        let per_thread: Vec<Vec<u32>> = std::thread::scope(|s| {
            let hs: Vec<_> = (0..4)
                .map(|_| {
                    s.spawn(|| {
                        (0..5000u64)
                            .map(|e| m.intern(e * 7919 % 10007 + (e % 3) * (1 << 30)).unwrap())
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            hs.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for w in per_thread.windows(2) {
            assert_eq!(w[0], w[1]);
        }
        let mut all = per_thread[0].clone();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len() as u32, m.bound());
    }
}
