//! Property edges: edges with their own id, a label and properties, any
//! number of them between two vertices (TinkerPop's and openCypher's
//! edges), versioned by commit timestamp like vertex properties.
//!
//! They are kept apart from the weighted structure the kernels scan (the
//! MemGraph and the CSR levels, one edge per vertex pair): that structure
//! stays as dense as it is, and a projection of property edges to a CSR
//! is built when a kernel wants them.
//!
//! Each vertex's property edges are kept per side in one list ordered by
//! (label, other end, edge id), so the edges of one label are a contiguous
//! range found by binary search rather than a filter over every edge; the
//! choice is measured against one list per label in `bench edge-layout`
//! (`docs/ARCHITECTURE.md`, "Property edges"). An entry carries its birth
//! and death timestamps, so a snapshot reads a list without a look-up per
//! edge.

use super::paged::PagedMap;
use super::stored::Stored;
use super::{push_short, Versions};
use crate::direction::Direction;
use crate::version::Timestamp;
use parking_lot::RwLock;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The id of a property edge, unique in its store.
pub type EdgeId = u64;

/// Which of a vertex's property edges to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeDirection {
    /// The edges it is the source of.
    Out,
    /// The edges it is the destination of.
    In,
    /// Both (a self-loop once).
    Both,
}

/// A property edge as a reader sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// Its id.
    pub id: EdgeId,
    /// Its source vertex.
    pub src: crate::error::VertexId,
    /// Its destination vertex.
    pub dst: crate::error::VertexId,
    /// Its label.
    pub label: Arc<str>,
}

/// Where an edge runs and what it is called: source, destination
/// (internal ids), label (interned).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Ends {
    pub src: u32,
    pub dst: u32,
    pub label: u32,
}

/// A death timestamp meaning "still live".
const LIVE: Timestamp = Timestamp::MAX;

/// One edge in a vertex's list on one side.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Adj {
    pub label: u32,
    /// The vertex at the other end.
    pub other: u32,
    pub id: EdgeId,
    born: Timestamp,
    died: Timestamp,
}

impl Adj {
    fn visible(&self, ts: Timestamp) -> bool {
        self.born <= ts && ts < self.died
    }

    fn order(&self) -> (u32, u32, EdgeId, Timestamp) {
        (self.label, self.other, self.id, self.born)
    }
}

/// One vertex's property edges on one side, ordered by (label, other end,
/// id, birth): a sorted prefix and a short unsorted tail of entries added
/// since, merged in once it outgrows a sixteenth of the prefix. An insert
/// into the middle of a hub's list would move the whole list each time;
/// this way an insert costs O(1) amortised, and a read merges at most the
/// tail.
#[derive(Debug)]
struct SideList {
    entries: Vec<Adj>,
    /// `entries[..sorted]` are in order; the rest were appended since.
    sorted: usize,
    /// The oldest death among the entries (`LIVE`: none has died), so a
    /// prune that can drop nothing costs nothing.
    oldest_death: Timestamp,
    /// The newest birth among the entries: with `oldest_death`, tells
    /// when a snapshot sees every entry, so a count needs no scan.
    newest_birth: Timestamp,
}

impl Default for SideList {
    fn default() -> Self {
        SideList {
            entries: Vec::new(),
            sorted: 0,
            oldest_death: LIVE,
            newest_birth: 0,
        }
    }
}

impl SideList {
    fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn insert(&mut self, a: Adj) {
        self.newest_birth = self.newest_birth.max(a.born);
        self.entries.push(a);
        let tail = self.entries.len() - self.sorted;
        if tail > 16 + self.sorted / 16 {
            // A stable sort finds the sorted prefix as one run and merges
            // the sorted tail into it: O(n + t log t).
            self.entries.sort_by_key(Adj::order);
            self.sorted = self.entries.len();
        }
    }

    /// Marks the live entry of edge `id` (label, other end) dead at `ts`.
    fn kill(&mut self, label: u32, other: u32, id: EdgeId, ts: Timestamp) {
        let key = (label, other, id);
        let sorted = &mut self.entries[..self.sorted];
        let at = sorted.partition_point(|x| (x.label, x.other, x.id) < key);
        let in_sorted = sorted[at..]
            .iter_mut()
            .take_while(|x| (x.label, x.other, x.id) == key)
            .find(|a| a.died == LIVE);
        let found = match in_sorted {
            Some(a) => Some(a),
            None => self.entries[self.sorted..]
                .iter_mut()
                .find(|x| (x.label, x.other, x.id) == key && x.died == LIVE),
        };
        if let Some(a) = found {
            a.died = ts;
            self.oldest_death = self.oldest_death.min(ts);
        }
    }

    /// Drops entries of edges deleted at or before `watermark`.
    fn prune(&mut self, watermark: Timestamp) {
        if self.oldest_death > watermark {
            return;
        }
        let (mut kept, mut kept_sorted) = (0, 0);
        self.oldest_death = LIVE;
        for i in 0..self.entries.len() {
            let a = self.entries[i];
            if a.died > watermark {
                self.entries[kept] = a;
                kept += 1;
                kept_sorted += usize::from(i < self.sorted);
                self.oldest_death = self.oldest_death.min(a.died);
            }
        }
        self.entries.truncate(kept);
        self.sorted = kept_sorted;
    }

    /// Whether a snapshot at `ts` sees every entry.
    fn all_visible(&self, ts: Timestamp) -> bool {
        self.newest_birth <= ts && ts < self.oldest_death
    }

    /// How many entries of `label` (or all) a snapshot at `ts` sees.
    fn count(&self, label: Option<u32>, ts: Timestamp) -> usize {
        let (entries, _) = self.of_label(label);
        if self.all_visible(ts) {
            entries.count()
        } else {
            entries.filter(|a| a.visible(ts)).count()
        }
    }

    /// The entries of `label` (or all), each once; `true` with them if
    /// some came from the unsorted tail (the caller sorts).
    fn of_label(&self, label: Option<u32>) -> (impl Iterator<Item = &Adj>, bool) {
        let sorted = &self.entries[..self.sorted];
        let range = match label {
            Some(label) => {
                let a = sorted.partition_point(|x| x.label < label);
                let b = a + sorted[a..].partition_point(|x| x.label == label);
                &sorted[a..b]
            }
            None => sorted,
        };
        let tail = &self.entries[self.sorted..];
        let in_tail = move |x: &&Adj| label.is_none_or(|l| x.label == l);
        let mixed = tail.iter().any(|x| in_tail(&x));
        (range.iter().chain(tail.iter().filter(in_tail)), mixed)
    }
}

/// One vertex's property edges: out-edges and in-edges.
#[derive(Debug, Default)]
struct Lists {
    out: SideList,
    inn: SideList,
}

impl Lists {
    fn side(&self, dir: Direction) -> &SideList {
        match dir {
            Direction::Out => &self.out,
            Direction::In => &self.inn,
        }
    }

    fn side_mut(&mut self, dir: Direction) -> &mut SideList {
        match dir {
            Direction::Out => &mut self.out,
            Direction::In => &mut self.inn,
        }
    }
}

/// One life of an edge id: its ends, when it was created and deleted, its
/// properties. An id deleted and used again has a newer life in front.
#[derive(Debug)]
struct Life {
    ends: Ends,
    born: Timestamp,
    died: Timestamp,
    props: Vec<(u32, Versions<Stored>)>,
    /// The life before, while a snapshot may still read it.
    older: Option<Box<Life>>,
}

impl Life {
    fn at(&self, ts: Timestamp) -> Option<&Life> {
        let mut life = Some(self);
        while let Some(l) = life {
            if l.born <= ts {
                return (ts < l.died).then_some(l);
            }
            life = l.older.as_deref();
        }
        None
    }

    fn live(&self) -> bool {
        self.died == LIVE
    }

    /// Drops older lives no snapshot at or after `watermark` can see.
    fn prune(&mut self, watermark: Timestamp) {
        if self.born <= watermark {
            self.older = None;
        } else if let Some(o) = &mut self.older {
            o.prune(watermark);
        }
    }
}

/// One change a commit makes to property edges.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum EdgeChange {
    /// Creates edge `id` with these ends.
    Add(EdgeId, Ends),
    /// Deletes edge `id` (and so its properties).
    Remove(EdgeId),
    /// Sets property `key` of edge `id`, or removes it (`None`).
    Property(EdgeId, u32, Option<Stored>),
}

const SHARDS: usize = 64;

/// An edge as a snapshot sees it: id and ends (internal ids, interned
/// label).
pub(crate) type EdgeAt = (EdgeId, Ends);

/// The edges whose ids fall in one shard.
struct Shard {
    lives: PagedMap<Life>,
    /// Deleted edges by death timestamp, oldest first: each goes once no
    /// snapshot can see it, at a later write to the shard.
    graves: VecDeque<(Timestamp, EdgeId)>,
}

impl Shard {
    /// Shard `s`: the ids `s`, `s + SHARDS`, ...
    fn new(s: usize) -> Shard {
        Shard {
            lives: PagedMap::new(SHARDS as u64, s as u64),
            graves: VecDeque::new(),
        }
    }

    fn bury(&mut self, watermark: Timestamp) {
        while let Some(&(died, id)) = self.graves.front() {
            if died > watermark {
                break;
            }
            self.graves.pop_front();
            if self.lives.get(id).is_some_and(|l| l.died == died) {
                self.lives.remove(id);
            }
        }
    }
}

/// An edge with its properties (interned keys) as of one timestamp.
pub(crate) type EdgeState = (EdgeId, Ends, Vec<(u32, Stored)>);

/// Every property edge of one store.
pub(crate) struct EdgeStore {
    /// Edge lives by id.
    edges: Box<[RwLock<Shard>]>,
    /// Per-vertex lists by vertex (internal ids are dense: pages).
    lists: Box<[RwLock<PagedMap<Lists>>]>,
    /// The next id `next_id` hands out: above every id used so far.
    next: AtomicU64,
    /// Live edges in the latest state.
    live: AtomicU64,
}

impl Default for EdgeStore {
    fn default() -> Self {
        EdgeStore {
            edges: (0..SHARDS).map(|s| RwLock::new(Shard::new(s))).collect(),
            lists: (0..SHARDS)
                .map(|s| RwLock::new(PagedMap::new(SHARDS as u64, s as u64)))
                .collect(),
            next: AtomicU64::new(1),
            live: AtomicU64::new(0),
        }
    }
}

impl EdgeStore {
    fn shard(&self, id: EdgeId) -> &RwLock<Shard> {
        &self.edges[(id % SHARDS as u64) as usize]
    }

    fn list_shard(&self, v: u32) -> &RwLock<PagedMap<Lists>> {
        &self.lists[v as usize % SHARDS]
    }

    /// A fresh edge id.
    pub(crate) fn next_id(&self) -> EdgeId {
        self.next.fetch_add(1, Ordering::Relaxed)
    }

    /// Makes sure `next_id` never hands out `id` (an id the user chose, or
    /// one read back from the log or a file).
    pub(crate) fn reserve(&self, id: EdgeId) {
        self.next.fetch_max(id.saturating_add(1), Ordering::Relaxed);
    }

    /// The id `next_id` would hand out now, for the properties file.
    pub(crate) fn peek_next(&self) -> EdgeId {
        self.next.load(Ordering::Relaxed)
    }

    /// Live property edges in the latest state.
    pub(crate) fn count(&self) -> u64 {
        self.live.load(Ordering::Relaxed)
    }

    /// Applies `change` at commit `ts`; returns whether anything changed.
    /// The caller holds the vertex locks of the edge's ends, so two
    /// commits never interleave on one edge.
    pub(crate) fn apply(&self, change: &EdgeChange, ts: Timestamp, watermark: Timestamp) -> bool {
        match change {
            EdgeChange::Add(id, ends) => {
                self.reserve(*id);
                {
                    let mut guard = self.shard(*id).write();
                    guard.bury(watermark);
                    let shard = &mut guard.lives;
                    let fresh = Life {
                        ends: *ends,
                        born: ts,
                        died: LIVE,
                        props: Vec::new(),
                        older: None,
                    };
                    match shard.remove(*id) {
                        Some(old) if old.live() => {
                            // The commit checked the id was free; keep the
                            // edge there is rather than lose it.
                            debug_assert!(false, "edge {id} added twice");
                            shard.insert(*id, old);
                            return false;
                        }
                        Some(old) => {
                            let mut life = fresh;
                            life.older = Some(Box::new(old));
                            life.prune(watermark);
                            shard.insert(*id, life);
                        }
                        None => {
                            shard.insert(*id, fresh);
                        }
                    }
                }
                for (v, dir, other) in [
                    (ends.src, Direction::Out, ends.dst),
                    (ends.dst, Direction::In, ends.src),
                ] {
                    let mut lists = self.list_shard(v).write();
                    let list = lists
                        .get_or_insert_with(v.into(), Lists::default)
                        .side_mut(dir);
                    list.prune(watermark);
                    list.insert(Adj {
                        label: ends.label,
                        other,
                        id: *id,
                        born: ts,
                        died: LIVE,
                    });
                }
                self.live.fetch_add(1, Ordering::Relaxed);
                true
            }
            EdgeChange::Remove(id) => {
                let ends = {
                    let mut shard = self.shard(*id).write();
                    shard.bury(watermark);
                    let Some(life) = shard.lives.get_mut(*id).filter(|l| l.live()) else {
                        return false;
                    };
                    life.died = ts;
                    let ends = life.ends;
                    shard.graves.push_back((ts, *id));
                    ends
                };
                for (v, dir, other) in [
                    (ends.src, Direction::Out, ends.dst),
                    (ends.dst, Direction::In, ends.src),
                ] {
                    let mut lists = self.list_shard(v).write();
                    if let Some(l) = lists.get_mut(v.into()) {
                        let list = l.side_mut(dir);
                        list.kill(ends.label, other, *id, ts);
                        list.prune(watermark);
                        if l.out.is_empty() && l.inn.is_empty() {
                            lists.remove(v.into());
                        }
                    }
                }
                self.live.fetch_sub(1, Ordering::Relaxed);
                true
            }
            EdgeChange::Property(id, key, value) => {
                let mut shard = self.shard(*id).write();
                shard.bury(watermark);
                let Some(life) = shard.lives.get_mut(*id).filter(|l| l.live()) else {
                    return false;
                };
                match life.props.iter_mut().find(|(k, _)| k == key) {
                    Some((_, p)) => {
                        let was = p.latest().is_some();
                        p.put(ts, value.clone(), watermark);
                        let changed = was || value.is_some();
                        life.props.retain(|(_, p)| !p.is_gone(watermark));
                        changed
                    }
                    None if value.is_some() => {
                        push_short(&mut life.props, (*key, Versions::new(ts, value.clone())));
                        true
                    }
                    None => false,
                }
            }
        }
    }

    /// The ends of edge `id` in the latest state, if it is live.
    pub(crate) fn latest(&self, id: EdgeId) -> Option<Ends> {
        let shard = self.shard(id).read();
        shard.lives.get(id).filter(|l| l.live()).map(|l| l.ends)
    }

    /// The ends of edge `id` as of `ts`.
    pub(crate) fn at(&self, id: EdgeId, ts: Timestamp) -> Option<Ends> {
        let shard = self.shard(id).read();
        shard.lives.get(id)?.at(ts).map(|l| l.ends)
    }

    /// `v`'s edges on side `dir` as of `ts`, of one label (interned) or of
    /// all, ordered by (label, other end, id).
    pub(crate) fn edges_of(
        &self,
        v: u32,
        dir: Direction,
        label: Option<u32>,
        ts: Timestamp,
    ) -> Vec<EdgeAt> {
        let lists = self.list_shard(v).read();
        let Some(l) = lists.get(v.into()) else {
            return Vec::new();
        };
        let (entries, mixed) = l.side(dir).of_label(label);
        let mut out: Vec<(EdgeId, Ends)> = entries
            .filter(|a| a.visible(ts))
            .map(|a| {
                let (src, dst) = match dir {
                    Direction::Out => (v, a.other),
                    Direction::In => (a.other, v),
                };
                (
                    a.id,
                    Ends {
                        src,
                        dst,
                        label: a.label,
                    },
                )
            })
            .collect();
        if mixed {
            let other = |e: &Ends| match dir {
                Direction::Out => e.dst,
                Direction::In => e.src,
            };
            out.sort_unstable_by_key(|(id, e)| (e.label, other(e), *id));
        }
        out
    }

    /// How many edges `v` has on side `dir` as of `ts`, of one label or of
    /// all: without a scan when the snapshot sees the whole list.
    pub(crate) fn count_of(
        &self,
        v: u32,
        dir: Direction,
        label: Option<u32>,
        ts: Timestamp,
    ) -> usize {
        let lists = self.list_shard(v).read();
        lists
            .get(v.into())
            .map_or(0, |l| l.side(dir).count(label, ts))
    }

    /// Appends to `out` the other end of each of `v`'s edges on side `dir`
    /// as of `ts` (of one label or of all), in no particular order: a walk
    /// that only needs where the edges go reuses one buffer and skips the
    /// sort and the edge ids.
    pub(crate) fn others_into(
        &self,
        v: u32,
        dir: Direction,
        label: Option<u32>,
        ts: Timestamp,
        out: &mut Vec<u32>,
    ) {
        let lists = self.list_shard(v).read();
        let Some(l) = lists.get(v.into()) else {
            return;
        };
        let side = l.side(dir);
        let (entries, _) = side.of_label(label);
        if side.all_visible(ts) {
            out.extend(entries.map(|a| a.other));
        } else {
            out.extend(entries.filter(|a| a.visible(ts)).map(|a| a.other));
        }
    }

    /// The ids of `v`'s live edges on either side in the latest state, with
    /// their ends (a self-loop once). The caller holds `v`'s lock.
    pub(crate) fn latest_of(&self, v: u32) -> Vec<EdgeAt> {
        let mut out = self.edges_of(v, Direction::Out, None, LIVE - 1);
        out.extend(
            self.edges_of(v, Direction::In, None, LIVE - 1)
                .into_iter()
                .filter(|(_, e)| e.src != v),
        );
        out
    }

    /// Property `key` of edge `id` as of `ts`.
    pub(crate) fn property_at(&self, id: EdgeId, key: u32, ts: Timestamp) -> Option<Stored> {
        let shard = self.shard(id).read();
        let life = shard.lives.get(id)?.at(ts)?;
        let (_, p) = life.props.iter().find(|(k, _)| *k == key)?;
        p.at(ts).cloned()
    }

    /// Every property of edge `id` as of `ts`, in the order first set.
    pub(crate) fn properties_at(&self, id: EdgeId, ts: Timestamp) -> Vec<(u32, Stored)> {
        let shard = self.shard(id).read();
        let Some(life) = shard.lives.get(id).and_then(|l| l.at(ts)) else {
            return Vec::new();
        };
        life.props
            .iter()
            .filter_map(|(k, p)| p.at(ts).map(|x| (*k, x.clone())))
            .collect()
    }

    /// The keys edge `id` has a value for in the latest state.
    pub(crate) fn latest_keys(&self, id: EdgeId) -> Vec<u32> {
        let shard = self.shard(id).read();
        shard
            .lives
            .get(id)
            .filter(|l| l.live())
            .map_or_else(Vec::new, |l| {
                l.props
                    .iter()
                    .filter(|(_, p)| p.latest().is_some())
                    .map(|(k, _)| *k)
                    .collect()
            })
    }

    /// Every edge as of `ts` with its properties, ascending by id.
    pub(crate) fn state_at(&self, ts: Timestamp) -> Vec<EdgeState> {
        let mut out = Vec::new();
        for shard in self.edges.iter() {
            for (id, life) in shard.read().lives.iter() {
                if let Some(l) = life.at(ts) {
                    let props = l
                        .props
                        .iter()
                        .filter_map(|(k, p)| p.at(ts).map(|x| (*k, x.clone())))
                        .collect();
                    out.push((id, l.ends, props));
                }
            }
        }
        out.sort_unstable_by_key(|(id, _, _)| *id);
        out
    }

    /// Every edge id and its ends as of `ts`, ascending by id.
    pub(crate) fn all_at(&self, ts: Timestamp) -> Vec<EdgeAt> {
        let mut out = Vec::new();
        for shard in self.edges.iter() {
            for (id, life) in shard.read().lives.iter() {
                if let Some(l) = life.at(ts) {
                    out.push((id, l.ends));
                }
            }
        }
        out.sort_unstable_by_key(|(id, _)| *id);
        out
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A side list reads, for every label and timestamp, exactly what
        /// a plain list of (label, other, id, born, died) does, through
        /// inserts (enough to merge the tail many times), kills and
        /// prunes.
        #[test]
        fn a_side_list_reads_like_a_plain_list(
            ops in proptest::collection::vec((0u8..4, 0u32..3, 0u32..50), 1..400),
        ) {
            let mut list = SideList::default();
            let mut model: Vec<Adj> = Vec::new();
            let mut ts = 1;
            for (i, &(op, label, other)) in ops.iter().enumerate() {
                ts += 1;
                match op {
                    0 | 1 => {
                        let a = Adj { label, other, id: i as u64, born: ts, died: LIVE };
                        list.insert(a);
                        model.push(a);
                    }
                    2 => {
                        if let Some(a) = model.iter_mut().find(|a| a.other == other && a.died == LIVE) {
                            list.kill(a.label, a.other, a.id, ts);
                            a.died = ts;
                        }
                    }
                    _ => {
                        let w = ts - u64::from(other % 5);
                        list.prune(w);
                        model.retain(|a| a.died > w);
                    }
                }
                model.sort_by_key(Adj::order);
                for at in [ts, ts.saturating_sub(3)] {
                    for l in [None, Some(0), Some(1), Some(2)] {
                        let (got, mixed) = list.of_label(l);
                        let mut got: Vec<Adj> = got.copied().filter(|a| a.visible(at)).collect();
                        if mixed {
                            got.sort_by_key(Adj::order);
                        }
                        let want: Vec<Adj> = model
                            .iter()
                            .copied()
                            .filter(|a| l.is_none_or(|l| a.label == l) && a.visible(at))
                            .collect();
                        prop_assert_eq!(got, want);
                    }
                }
            }
        }
    }

    fn ends(src: u32, dst: u32, label: u32) -> Ends {
        Ends { src, dst, label }
    }

    #[test]
    fn a_slot_of_an_edge_s_life_costs_the_life_alone() {
        // What a `PagedMap` slot costs: no tag beside the life.
        assert_eq!(
            std::mem::size_of::<Option<Life>>(),
            std::mem::size_of::<Life>()
        );
        assert!(std::mem::size_of::<Life>() <= 64);
    }

    #[test]
    fn lists_are_by_label_and_versioned() {
        let s = EdgeStore::default();
        s.apply(&EdgeChange::Add(10, ends(1, 2, 5)), 2, 0);
        s.apply(&EdgeChange::Add(11, ends(1, 2, 5)), 3, 0); // parallel
        s.apply(&EdgeChange::Add(12, ends(1, 3, 4)), 3, 0);
        s.apply(&EdgeChange::Remove(10), 4, 0);
        let ids = |v: Vec<EdgeAt>| v.into_iter().map(|(id, _)| id).collect::<Vec<_>>();
        assert_eq!(ids(s.edges_of(1, Direction::Out, None, 3)), [12, 10, 11]);
        assert_eq!(ids(s.edges_of(1, Direction::Out, Some(5), 3)), [10, 11]);
        assert_eq!(ids(s.edges_of(1, Direction::Out, Some(5), 4)), [11]);
        assert_eq!(
            ids(s.edges_of(1, Direction::Out, Some(6), 4)),
            [] as [u64; 0]
        );
        assert_eq!(ids(s.edges_of(2, Direction::In, None, 2)), [10]);
        assert_eq!(s.at(10, 3), Some(ends(1, 2, 5)));
        assert_eq!(s.at(10, 4), None);
        assert_eq!(s.count(), 2);
        assert!(s.next_id() > 12);
    }

    #[test]
    fn an_id_used_again_keeps_its_old_life_for_old_snapshots() {
        let s = EdgeStore::default();
        let v = |x| Some(Stored::Int64(x));
        s.apply(&EdgeChange::Add(1, ends(1, 2, 0)), 2, 0);
        s.apply(&EdgeChange::Property(1, 0, v(7)), 2, 0);
        s.apply(&EdgeChange::Remove(1), 3, 0);
        s.apply(&EdgeChange::Add(1, ends(3, 4, 0)), 4, 0);
        assert_eq!(s.at(1, 2), Some(ends(1, 2, 0)));
        assert_eq!(s.property_at(1, 0, 2), Some(Stored::Int64(7)));
        assert_eq!(s.at(1, 3), None);
        assert_eq!(s.at(1, 4), Some(ends(3, 4, 0)));
        assert_eq!(s.property_at(1, 0, 4), None);
        // Once no snapshot can see the old life, it goes.
        s.apply(&EdgeChange::Remove(1), 6, 0);
        s.apply(&EdgeChange::Add(1, ends(5, 6, 0)), 7, 6);
        assert!(s.shard(1).read().lives.get(1).unwrap().older.is_none());
        // A deleted edge goes once no snapshot can see it, with the next
        // write to its shard.
        s.apply(&EdgeChange::Remove(1), 8, 0);
        s.apply(&EdgeChange::Add(65, ends(5, 6, 0)), 9, 8);
        assert!(s.shard(1).read().lives.get(1).is_none());
    }
}
