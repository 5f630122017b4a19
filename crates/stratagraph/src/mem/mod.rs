//! MemGraph: the in-memory, multi-versioned write buffer of the engine.
//!
//! A slot per vertex the MemGraph holds something of (`slots.rs`), each
//! with its own small lock, existence history and out/in adjacency
//! (`EdgeSet`); the existence of the other vertices is a bit
//! (`existence.rs`). Writers lock the slots they touch (see `txn` for the
//! order); readers lock a slot only long enough to clone the `Arc` of its
//! runs, then scan without holding anything, so a reader never blocks a
//! writer for longer than that clone and a writer never blocks a reader for
//! longer than one small copy.

mod edge_set;
mod existence;
mod life;
mod run;
mod slots;
mod versions;

pub(crate) use edge_set::{EdgeSet, Write};
pub(crate) use existence::{Bits, Fresh};
pub(crate) use life::Life;
pub(crate) use run::Run;
pub(crate) use versions::{offset_of, visible_in_group, Effect, Stamping};

use crate::direction::Direction;
use crate::page::PAGE;
use crate::util::prefetch;
use crate::util::segmented::SegmentedTable;
use existence::{Existence, Known};
use slots::{Held, Slots, SLOT_BYTES};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

/// Everything the engine keeps about one vertex in memory.
#[derive(Default)]
pub(crate) struct VertexState {
    pub life: Life,
    /// Out-edges (for undirected graphs: all edges).
    pub out: EdgeSet,
    /// In-edges of a directed graph; unused when undirected.
    pub inn: EdgeSet,
}

impl VertexState {
    pub(crate) fn out_mut(&mut self) -> &mut EdgeSet {
        &mut self.out
    }

    pub(crate) fn in_mut(&mut self) -> &mut EdgeSet {
        &mut self.inn
    }

    /// The adjacency of one side (already resolved for undirected graphs,
    /// see `Direction::stored`).
    #[inline]
    pub(crate) fn set(&self, dir: Direction) -> &EdgeSet {
        match dir {
            Direction::Out => &self.out,
            Direction::In => &self.inn,
        }
    }

    /// `set`, to write.
    #[inline]
    pub(crate) fn set_mut(&mut self, dir: Direction) -> &mut EdgeSet {
        match dir {
            Direction::Out => &mut self.out,
            Direction::In => &mut self.inn,
        }
    }

    #[inline]
    fn heap_bytes(&self) -> usize {
        self.life.heap_bytes() + self.out.heap_bytes() + self.inn.heap_bytes()
    }
}

/// The vertex table.
pub(crate) struct MemGraph {
    /// Each vertex's slot, while it holds one (`slots.rs`).
    slots: Slots,
    /// Whether a vertex without a slot exists (`existence.rs`).
    existence: Existence,
    /// One bit per vertex: set when a writer locks the vertex, cleared by
    /// the post-flush clean-up once both its sets are empty. A reader that
    /// finds the bit clear knows, without touching the slot or its lock,
    /// that the MemGraph holds no edge of the vertex it could see (a write
    /// sets the bit before its commit is published), so a flushed graph is
    /// scanned straight from its runs.
    dirty: Bits,
    /// Per page of `PAGE` vertex ids: the newest of its vertices' write
    /// marks (`Slot::written`), so also the mark of a vertex without a slot.
    written: SegmentedTable<AtomicU64>,
    /// Heap bytes of every vertex's adjacency and history and the slots in
    /// use (what `usage` walks the table to add up), kept by `SlotGuard`
    /// as writers change them: the flush trigger compares it with the
    /// MemGraph's budget.
    bytes: AtomicUsize,
}

/// A vertex locked for writing. When it is released, the change in the
/// vertex's heap bytes goes into the MemGraph's count (`MemGraph::bytes`),
/// whatever the writer did to it.
pub(crate) struct SlotGuard<'a> {
    held: Held<'a>,
    before: isize,
    bytes: &'a AtomicUsize,
}

impl std::ops::Deref for SlotGuard<'_> {
    type Target = VertexState;
    #[inline]
    fn deref(&self) -> &VertexState {
        self.held.state()
    }
}

impl std::ops::DerefMut for SlotGuard<'_> {
    #[inline]
    fn deref_mut(&mut self) -> &mut VertexState {
        self.held.state_mut()
    }
}

impl Drop for SlotGuard<'_> {
    fn drop(&mut self) {
        let after = self.held.state().heap_bytes() as isize;
        if after > self.before {
            self.bytes
                .fetch_add((after - self.before) as usize, Ordering::Relaxed);
        } else if after < self.before {
            self.bytes
                .fetch_sub((self.before - after) as usize, Ordering::Relaxed);
        }
    }
}

/// Memory used by a MemGraph, split by what it is spent on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryUsage {
    /// Slots held by vertices the MemGraph holds something of, 64 bytes
    /// each.
    pub slot_bytes: usize,
    /// The tables kept per vertex id whether or not the MemGraph holds
    /// anything of it (the slot index, existence and dirty bits, write
    /// marks), and the slots allocated but free.
    pub table_bytes: usize,
    /// Adjacency runs, block lists and vertex histories.
    pub adjacency_bytes: usize,
    /// Edge versions stored (live edges, tombstones and old versions, both directions).
    pub entries: usize,
}

impl MemGraph {
    pub(crate) fn new() -> Self {
        MemGraph {
            slots: Slots::new(),
            existence: Existence::default(),
            dirty: Bits::default(),
            written: SegmentedTable::new(),
            bytes: AtomicUsize::new(0),
        }
    }

    /// Heap bytes of the vertices' adjacency and histories and of the
    /// slots in use (the index and the bits not included), as of the last
    /// released write lock.
    #[inline]
    pub(crate) fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Relaxed)
    }

    /// `taken`: the slot was just taken, so its bytes are counted in when
    /// the guard goes (one update of the count, not two).
    fn guard<'a>(&'a self, held: Held<'a>, taken: bool) -> SlotGuard<'a> {
        let heap = held.state().heap_bytes();
        SlotGuard {
            // Signed: a slot just taken counts from minus its own size.
            before: heap as isize - if taken { SLOT_BYTES as isize } else { 0 },
            held,
            bytes: &self.bytes,
        }
    }

    /// Starts loading `v`'s index entry, which `prefetch` reads (see
    /// `util::prefetch`): a caller about to lock several vertices asks for
    /// all their entries first, so their misses overlap.
    #[inline]
    pub(crate) fn prefetch_entry(&self, v: u32) {
        self.slots.prefetch_entry(v);
    }

    /// Starts loading `v`'s slot (see `util::prefetch`); reads its index
    /// entry to find it.
    #[inline]
    pub(crate) fn prefetch(&self, v: u32) {
        if let Some(slot) = self.slots.peek(v) {
            prefetch::line(slot);
        }
    }

    /// Locks vertex `v` for writing (giving it a slot if it holds none).
    #[inline]
    pub(crate) fn lock(&self, v: u32) -> SlotGuard<'_> {
        let (held, taken) = self.slots.write_or_take(v, |slot, state| {
            state.life = match self.existence.of(v) {
                Known::Absent => Life::default(),
                Known::Since(ts) => Life::since(ts, true),
            };
            // At least every mark the vertex's earlier slots had.
            slot.written.store(self.page_written(v), Ordering::Relaxed);
        });
        self.dirty.set(v, true);
        self.guard(held, taken)
    }

    /// Records that the commit at `ts` writes edges of `v` (see
    /// `Slot::written`). The caller holds `v`'s lock and has not published `ts`.
    #[inline]
    pub(crate) fn note_write(&self, guard: &SlotGuard<'_>, v: u32, ts: u64) {
        // `fetch_max`, not a store: a batch takes its timestamp before it
        // locks, so a commit with a newer one may have written `v` first.
        guard.held.slot.written.fetch_max(ts, Ordering::Relaxed);
        let page = self.written.get_or_alloc(v / PAGE);
        if page.load(Ordering::Relaxed) < ts {
            page.fetch_max(ts, Ordering::Relaxed);
        }
    }

    /// The newest timestamp that wrote an edge in the page of `v` (0 if
    /// none did).
    #[inline]
    pub(crate) fn page_written(&self, v: u32) -> u64 {
        self.written
            .get(v / PAGE)
            .map_or(0, |w| w.load(Ordering::Relaxed))
    }

    /// The newest timestamp that wrote an edge of `v` (0 if none did), or
    /// a newer one: a vertex without a slot answers with its page's mark.
    #[inline]
    pub(crate) fn vertex_written(&self, v: u32) -> u64 {
        self.slots
            .read(v, |slot, _| slot.written.load(Ordering::Relaxed))
            .unwrap_or_else(|| self.page_written(v))
    }

    /// Locks `v` for the check a bulk load makes, which only looks (so it
    /// leaves the dirty bit alone; see `mark_clean`); `None` if `v` holds
    /// no slot.
    pub(crate) fn lock_existing(&self, v: u32) -> Option<SlotGuard<'_>> {
        self.slots.write(v).map(|h| self.guard(h, false))
    }

    /// The post-flush clean-up of `v`: drops its versions up to `cut` (if a
    /// flush's cut is ready), clears its dirty bit once both its sets are
    /// empty, and then, once every snapshot at or after `watermark` sees its
    /// latest existence,
    /// gives its slot back. The caller is the clean-up, alone.
    pub(crate) fn clean(&self, v: u32, cut: Option<u64>, watermark: u64) {
        let Some(mut held) = self.slots.write(v) else {
            return;
        };
        let before = held.state().heap_bytes();
        let st = held.state_mut();
        if let Some(cut) = cut {
            st.out.drop_upto(cut);
            st.inn.drop_upto(cut);
        }
        let empty = st.out.is_empty() && st.inn.is_empty();
        let state = if empty {
            st.life.one_state(watermark)
        } else {
            None
        };
        let after = st.heap_bytes();
        if empty {
            self.mark_clean(v);
        }
        match state {
            Some(alive) => {
                self.existence.set_bit(v, alive);
                self.slots.give_back(v, held);
                self.bytes.fetch_sub(before + SLOT_BYTES, Ordering::Relaxed);
            }
            None => {
                drop(held);
                if after < before {
                    self.bytes.fetch_sub(before - after, Ordering::Relaxed);
                }
            }
        }
    }

    /// Folds bulk loads' existence layers no snapshot at or after
    /// `watermark` tells apart into the bits (the clean-up, alone).
    pub(crate) fn fold_fresh(&self, watermark: u64, bound: u32) {
        self.existence.fold_upto(watermark, bound);
    }

    /// Settles `v`'s existence straight into its bit, for an open with no
    /// snapshot yet and no slot given out.
    pub(crate) fn exists_on_open(&self, v: u32, alive: bool) {
        self.existence.set_bit(v, alive);
    }

    /// Makes `v` exist for snapshots at `st.ts` or later; false if it
    /// already exists. With `fresh` (a batch's layer at `st.ts`), a vertex
    /// without a slot is set there and takes none; otherwise it is locked
    /// (taking a slot), and its dirty bit is left clear if it holds no
    /// edge. The caller keeps every other writer out.
    pub(crate) fn create(&self, v: u32, st: &Stamping, fresh: Option<&Fresh>) -> bool {
        if let Some(f) = fresh.filter(|_| self.slots.peek(v).is_none()) {
            // No writer can give `v` a slot meanwhile; a clean-up only
            // gives slots back.
            if self.alive(v) {
                return false;
            }
            f.bits.set(v, true);
            return true;
        }
        let mut state = self.lock(v);
        let empty = state.out.is_empty() && state.inn.is_empty();
        let created = !state.life.alive();
        if created {
            state.life.set(st.ts, true, st.watermark);
        }
        if empty {
            self.mark_clean(v);
        }
        created
    }

    /// Adds the vertices a batch created at `fresh.ts` without slots
    /// (`create`). The caller still keeps every other writer out and has
    /// not published `fresh.ts`, so no clean-up folds the layer yet.
    pub(crate) fn add_fresh(&self, fresh: Fresh) {
        if fresh.bits.allocated_bytes() > 0 {
            self.existence.add(fresh);
        }
    }

    /// Whether `v` exists in the latest state.
    #[inline]
    pub(crate) fn alive(&self, v: u32) -> bool {
        self.alive_at(v, u64::MAX)
    }

    /// Whether a snapshot at `ts` sees `v`.
    #[inline]
    pub(crate) fn alive_at(&self, v: u32, ts: u64) -> bool {
        self.slots
            .read(v, |_, s| s.life.alive_at(ts))
            .unwrap_or_else(|| self.existence.alive_at(v, ts))
    }

    /// Clears `v`'s dirty bit; the caller holds `v`'s lock and has seen
    /// both of its sets empty.
    pub(crate) fn mark_clean(&self, v: u32) {
        self.dirty.set(v, false);
    }

    /// The dirty bits of vertices `64 * block ..`, for scans that test 64
    /// vertices at a time.
    #[inline]
    pub(crate) fn dirty_bits(&self, block: u32) -> u64 {
        self.dirty.word(block)
    }

    /// The vertices below `bound` whose dirty bits are set, ascending: every
    /// vertex the MemGraph holds an edge version of, and maybe a few more.
    /// A bit set while this runs may be missed, so callers look only for
    /// versions published before they started.
    pub(crate) fn dirty_below(&self, bound: u32) -> impl Iterator<Item = u32> + '_ {
        self.dirty.ones_below(bound)
    }

    /// The vertices below `bound` that hold a slot, ascending: the only
    /// ones the clean-up has anything to do for. A slot taken while this
    /// runs may be missed.
    pub(crate) fn holders_below(&self, bound: u32) -> impl Iterator<Item = u32> + '_ {
        self.slots.holders_below(bound)
    }

    /// `alive_at(v, ts)` of every vertex below `bound`, 64 to a word (bit
    /// `b` of word `i` for vertex `64 * i + b`; bits from `bound` on clear),
    /// in order, read as the iterator is. Only the vertices holding a slot
    /// are looked at one by one; the others are read a word of bits at a
    /// time. The caller holds the flush lock, so no clean-up gives a slot
    /// back or folds a layer meanwhile, and keeps the watermark at or
    /// below `ts`.
    pub(crate) fn alive_words_at(&self, ts: u64, bound: u32) -> impl Iterator<Item = u64> + '_ {
        let layers = self.existence.layers();
        (0..bound.div_ceil(64)).map(move |i| {
            // The held bits first: a slot taken after this read starts
            // from the bits read next, which a write newer than `ts`
            // leaves alone.
            let held = self.slots.held_word(i);
            let mut word = self.existence.alive_word_at(&layers, i, ts) & !held;
            let mut rest = held;
            while rest != 0 {
                let b = rest.trailing_zeros();
                rest &= rest - 1;
                if self.alive_at(i * 64 + b, ts) {
                    word |= 1 << b;
                }
            }
            let past = bound - i * 64;
            if past < 64 {
                word &= (1u64 << past) - 1;
            }
            word
        })
    }

    /// Whether the MemGraph may hold edges of `v` (see `dirty`).
    #[inline]
    pub(crate) fn may_hold(&self, v: u32) -> bool {
        self.dirty.get(v)
    }

    /// Runs `f` on vertex `v`'s state under its shared lock; `None` if `v`
    /// holds no slot (its existence is then `alive_at`'s, and it has no
    /// edge here). Readers share the lock, and a recursive read (`f`
    /// reading `v` again) cannot deadlock behind a waiting writer; `f`
    /// should still be short, since writers of `v` wait for it.
    #[inline]
    pub(crate) fn read<R>(&self, v: u32, f: impl FnOnce(&VertexState) -> R) -> Option<R> {
        self.slots.read(v, |_, s| f(s))
    }

    /// As `read`, with a vertex without a slot read as an empty vertex (for
    /// reads of edges that must also look below the MemGraph).
    #[inline]
    pub(crate) fn read_or_empty<R>(&self, v: u32, f: impl FnOnce(&VertexState) -> R) -> R {
        static EMPTY: std::sync::OnceLock<VertexState> = std::sync::OnceLock::new();
        let mut f = Some(f);
        match self
            .slots
            .read(v, |_, s| (f.take().expect("called once"))(s))
        {
            Some(r) => r,
            None => (f.take().expect("not called"))(EMPTY.get_or_init(VertexState::default)),
        }
    }

    /// Walks every slot below `bound` (locking each briefly).
    pub(crate) fn usage(&self, bound: u32) -> MemoryUsage {
        let mut u = MemoryUsage {
            slot_bytes: self.slots.in_use() * SLOT_BYTES,
            table_bytes: (self.slots.allocated_bytes() - self.slots.in_use() * SLOT_BYTES)
                + self.existence.allocated_bytes()
                + self.dirty.allocated_bytes()
                + self.written.allocated_bytes(),
            ..MemoryUsage::default()
        };
        for v in 0..bound {
            self.read(v, |s| {
                u.adjacency_bytes += s.heap_bytes();
                u.entries += s.out.entries() + s.inn.entries();
            });
        }
        u
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;

    fn at(ts: u64) -> Stamping {
        Stamping {
            ts,
            watermark: 0,
            window: 1 << 30,
        }
    }

    #[test]
    fn a_slot_goes_back_once_empty_and_one_state_and_is_taken_again() {
        let m = MemGraph::new();
        {
            let mut g = m.lock(5);
            g.life.set(3, true, 0);
            g.out.put(7, 1.0, &at(3));
            m.note_write(&g, 5, 3);
        }
        assert_eq!(m.usage(10).slot_bytes, SLOT_BYTES);
        assert!(m.bytes() >= SLOT_BYTES);
        m.clean(5, None, 10);
        assert!(m.read(5, |_| ()).is_some(), "an edge is left: kept");
        m.clean(5, Some(3), 2);
        assert!(
            m.read(5, |_| ()).is_some(),
            "a snapshot at 2 sees it absent: kept"
        );
        assert!(!m.alive_at(5, 2) && m.alive_at(5, 3));
        m.clean(5, None, 3);
        assert!(m.read(5, |_| ()).is_none(), "given back");
        assert_eq!((m.usage(10).slot_bytes, m.bytes()), (0, 0));
        assert!(m.alive(5) && m.alive_at(5, 3) && !m.may_hold(5));
        assert_eq!(m.vertex_written(5), 3, "the page's mark answers");
        // The slot goes to the next vertex that needs one; 5 reads as it was.
        m.lock(9).life.set(4, true, 0);
        assert!(m.alive(5) && m.alive(9) && !m.alive(8));
        assert!(m.read(5, |_| ()).is_none());
        let g = m.lock(5);
        assert!(g.life.alive() && g.out.is_empty());
        drop(g);
        assert!(
            m.vertex_written(5) >= 3,
            "a new slot starts at the page's mark"
        );
        // A deletion ends as a cleared bit.
        m.lock(9).life.set(6, false, 5);
        m.clean(9, None, 6);
        assert!(m.read(9, |_| ()).is_none() && !m.alive(9));
    }

    #[test]
    fn a_bulk_layer_hides_its_vertices_from_older_snapshots_until_folded() {
        let m = MemGraph::new();
        m.exists_on_open(1, true);
        m.lock(2).life.set(4, false, 0);
        let fresh = Fresh {
            ts: 8,
            bits: Bits::default(),
        };
        for v in [3, 4, 70_000] {
            fresh.bits.set(v, true);
        }
        m.add_fresh(fresh);
        assert!(m.alive_at(1, 0) && !m.alive_at(3, 7) && m.alive_at(3, 8));
        assert!(m.alive_at(70_000, 9) && !m.alive_at(70_001, 9));
        // A slot taken after the load starts from the layer's timestamp.
        m.lock(4).life.set(9, false, 8);
        assert!(!m.alive_at(4, 7) && m.alive_at(4, 8) && !m.alive_at(4, 9));
        m.fold_fresh(7, 80_000);
        assert!(!m.alive_at(3, 7), "not folded below its timestamp");
        m.fold_fresh(9, 80_000);
        assert!(m.alive_at(3, 0) && m.alive_at(70_000, 0));
        m.clean(4, None, 9);
        assert!(
            m.read(4, |_| ()).is_none() && !m.alive(4),
            "its deletion wins"
        );
        assert!(!m.alive(2) && m.alive(1));
    }

    /// Writers lock ascending sets of vertices and readers read them while
    /// a clean-up gives slots back as fast as it can, so slots change hands
    /// under every lookup. Each vertex's set only ever holds destinations
    /// that name it: a lock or read that landed on another vertex's slot
    /// shows up as a foreign destination. A deadlock (a writer waiting for
    /// a slot that changed hands) stops the test at its deadline.
    #[test]
    fn slots_changing_hands_never_mix_vertices_or_deadlock() {
        const N: u32 = 48;
        let m = Arc::new(MemGraph::new());
        for v in 0..N {
            m.exists_on_open(v, true);
        }
        let stop = Arc::new(AtomicBool::new(false));
        let mark = |v: u32, k: u32| v * 1000 + k % 1000;
        let mut threads = Vec::new();
        for t in 0..3u64 {
            let (m, stop) = (Arc::clone(&m), Arc::clone(&stop));
            threads.push(std::thread::spawn(move || {
                let mut x = t.wrapping_mul(0x9E37_79B9) | 1;
                let mut rounds = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    let mut vs = [
                        (x % 48) as u32,
                        ((x >> 8) % 48) as u32,
                        ((x >> 16) % 48) as u32,
                    ];
                    vs.sort_unstable();
                    let mut held = Vec::new();
                    let mut last = None;
                    for &v in &vs {
                        if last != Some(v) {
                            held.push((v, m.lock(v)));
                            last = Some(v);
                        }
                    }
                    for (v, g) in &mut held {
                        assert!(g.life.alive(), "vertex {v} lost its existence");
                        for r in g.out.runs() {
                            for &d in r.dsts() {
                                assert_eq!(d / 1000, *v, "vertex {v} holds another's edge");
                            }
                        }
                        if x % 3 == 0 {
                            g.out.drop_upto(u64::MAX);
                        } else {
                            g.out.put(mark(*v, (x >> 24) as u32), 1.0, &at(1));
                        }
                    }
                    rounds += 1;
                }
                rounds
            }));
        }
        for _ in 0..2 {
            let (m, stop) = (Arc::clone(&m), Arc::clone(&stop));
            threads.push(std::thread::spawn(move || {
                let mut reads = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    for v in 0..N {
                        assert!(m.alive(v), "vertex {v} read as absent");
                        m.read(v, |s| {
                            for r in s.out.runs() {
                                for &d in r.dsts() {
                                    assert_eq!(d / 1000, v, "read {v}: another's edge");
                                }
                            }
                        });
                        reads += 1;
                    }
                }
                reads
            }));
        }
        {
            let (m, stop) = (Arc::clone(&m), Arc::clone(&stop));
            threads.push(std::thread::spawn(move || {
                let mut passes = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    for v in 0..N {
                        m.clean(v, Some(u64::MAX), u64::MAX);
                    }
                    passes += 1;
                }
                passes
            }));
        }
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(1500));
            stop.store(true, Ordering::Relaxed);
            let counts: Vec<Option<u64>> = threads.into_iter().map(|t| t.join().ok()).collect();
            done_tx.send(counts).unwrap();
        });
        let counts = done_rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("threads finished (no deadlock, no panic)");
        assert!(
            counts.iter().all(|&c| c.is_some_and(|c| c > 0)),
            "every thread ran, none failed: {counts:?}"
        );
        for v in 0..N {
            m.clean(v, Some(u64::MAX), u64::MAX);
            assert!(m.alive(v));
        }
        assert_eq!(m.usage(N).slot_bytes, 0);
        assert_eq!(m.bytes(), 0, "the byte count came back to nothing");
    }

    /// The word-at-a-time existence read (`alive_words_at`) and the walk
    /// over slot holders (`holders_below`) against a model: each vertex's
    /// history as a list, after random creations and deletions through
    /// slots, bulk layers, clean-ups that give slots back and folds, read
    /// at every timestamp the watermark still allows.
    #[test]
    fn existence_by_words_and_slot_holders_agree_with_a_model() {
        const N: u32 = 300;
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let m = MemGraph::new();
        let mut model: Vec<Vec<(u64, bool)>> = vec![Vec::new(); N as usize];
        let alive_in = |h: &[(u64, bool)], ts: u64| {
            h.iter()
                .rev()
                .find(|&&(t, _)| t <= ts)
                .is_some_and(|&(_, a)| a)
        };
        let (mut ts, mut watermark) = (1u64, 0u64);
        let mut checked_holders = 0;
        for round in 0..300 {
            ts += 1;
            match next(6) {
                0 => {
                    // A bulk layer creating absent vertices without slots.
                    let fresh = Fresh {
                        ts,
                        bits: Bits::default(),
                    };
                    let st = Stamping {
                        ts,
                        watermark,
                        window: 1 << 30,
                    };
                    for _ in 0..next(40) {
                        let v = next(N as u64) as u32;
                        if !alive_in(&model[v as usize], u64::MAX) && m.create(v, &st, Some(&fresh))
                        {
                            model[v as usize].push((ts, true));
                        }
                    }
                    m.add_fresh(fresh);
                }
                1 => m.fold_fresh(watermark, N),
                2 => {
                    for v in 0..N {
                        if next(3) == 0 {
                            m.clean(v, None, watermark);
                        }
                    }
                }
                _ => {
                    for _ in 0..next(20) {
                        let v = next(N as u64) as u32;
                        let alive = !alive_in(&model[v as usize], u64::MAX);
                        m.lock(v).life.set(ts, alive, watermark);
                        model[v as usize].push((ts, alive));
                    }
                }
            }
            if next(4) == 0 {
                watermark += next(ts - watermark + 1);
            }
            for at in watermark..=ts + 1 {
                let words: Vec<u64> = m.alive_words_at(at, N).collect();
                assert_eq!(words.len() as u32, N.div_ceil(64));
                for v in 0..N {
                    let got = words[(v / 64) as usize] >> (v % 64) & 1 == 1;
                    assert_eq!(
                        got,
                        alive_in(&model[v as usize], at),
                        "round {round}: vertex {v} at {at} (watermark {watermark})"
                    );
                }
                assert_eq!(
                    words.last().unwrap() >> (N % 64),
                    0,
                    "no bit past the bound"
                );
            }
            let holders: Vec<u32> = m.holders_below(N).collect();
            let want: Vec<u32> = (0..N).filter(|&v| m.read(v, |_| ()).is_some()).collect();
            assert_eq!(holders, want, "round {round}");
            checked_holders += holders.len();
        }
        assert!(checked_holders > 1000, "slots were held: {checked_holders}");
    }
}
