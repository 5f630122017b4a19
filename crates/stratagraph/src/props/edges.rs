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

impl Ends {
    /// Edge `id`'s entries in its ends' lists, born at `ts`: the source's
    /// out-side and the destination's in-side.
    fn sides(self, id: EdgeId, ts: Timestamp) -> [(u32, Direction, Adj); 2] {
        let adj = |other| Adj {
            label: self.label,
            other,
            id,
            born: ts,
            died: LIVE,
        };
        [
            (self.src, Direction::Out, adj(self.dst)),
            (self.dst, Direction::In, adj(self.src)),
        ]
    }
}

/// A property edge a commit creates, with the properties it is given
/// (interned keys, in the order they were set).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Added {
    pub id: EdgeId,
    pub ends: Ends,
    pub props: Vec<(u32, Stored)>,
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

    /// Starts loading the place the next `insert` writes.
    fn prefetch_tail(&self) {
        let next = self.entries.as_ptr().wrapping_add(self.entries.len());
        crate::util::prefetch::address(next.cast());
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

    /// Gives `id` a new life with `ends` and `props` born at `ts`, in
    /// front of a dead one it may have had; returns false (and changes
    /// nothing) if `id` is live, which a commit has checked it is not.
    fn create(
        &mut self,
        id: EdgeId,
        ends: Ends,
        props: Vec<(u32, Versions<Stored>)>,
        ts: Timestamp,
        watermark: Timestamp,
    ) -> bool {
        let mut life = Life {
            ends,
            born: ts,
            died: LIVE,
            props,
            older: None,
        };
        match self.lives.remove(id) {
            Some(old) if old.live() => {
                // The commit checked the id was free; keep the edge there
                // is rather than lose it.
                debug_assert!(false, "edge {id} added twice");
                self.lives.insert(id, old);
                return false;
            }
            Some(old) => {
                life.older = Some(Box::new(old));
                life.prune(watermark);
            }
            None => {}
        }
        self.lives.insert(id, life);
        true
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
                let add = Added {
                    id: *id,
                    ends: *ends,
                    props: Vec::new(),
                };
                self.add_all(vec![add], ts, watermark)
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

    /// Creates the edges of `adds` at commit `ts` with their properties:
    /// what `apply` does for an `Add` and a `Property` per key, but with
    /// each shard's lock taken once, and each vertex's list loaded a few
    /// entries ahead of its use. A load's commit writes the lists of
    /// thousands of vertices spread over the graph, a cache miss each:
    /// taken one after another they were most of its time. Returns
    /// whether anything changed. The caller holds the ends' vertex locks.
    pub(crate) fn add_all(&self, adds: Vec<Added>, ts: Timestamp, watermark: Timestamp) -> bool {
        if adds.is_empty() {
            return false;
        }
        let mut created = Vec::with_capacity(2 * adds.len());
        let (adds, runs) = by_shard(adds, |a| a.id);
        let mut adds = adds.into_iter();
        for (s, start, end) in runs {
            let mut shard = self.edges[s].write();
            shard.bury(watermark);
            for a in adds.by_ref().take(end - start) {
                self.reserve(a.id);
                let mut props: Vec<(u32, Versions<Stored>)> = Vec::with_capacity(a.props.len());
                for (k, v) in a.props {
                    // A key given twice keeps its last value.
                    match props.iter_mut().find(|(key, _)| *key == k) {
                        Some((_, p)) => *p = Versions::new(ts, Some(v)),
                        None => props.push((k, Versions::new(ts, Some(v)))),
                    }
                }
                if shard.create(a.id, a.ends, props, ts, watermark) {
                    created.extend(a.ends.sides(a.id, ts));
                }
            }
        }
        let changed = !created.is_empty();
        self.live
            .fetch_add(created.len() as u64 / 2, Ordering::Relaxed);
        /// How many entries ahead a list is fetched; its tail is fetched
        /// half as far ahead, once the list itself has arrived.
        const AHEAD: usize = 8;
        let (created, runs) = by_shard(created, |&(v, _, _)| v.into());
        for (s, start, end) in runs {
            let run = &created[start..end];
            let mut lists = self.lists[s].write();
            for i in 0..run.len() {
                if let Some(&(v, _, _)) = run.get(i + AHEAD) {
                    lists.prefetch(v.into());
                }
                if let Some(&(v, dir, _)) = run.get(i + AHEAD / 2) {
                    if let Some(l) = lists.get(v.into()) {
                        l.side(dir).prefetch_tail();
                    }
                }
                let (v, dir, adj) = run[i];
                let list = lists
                    .get_or_insert_with(v.into(), Lists::default)
                    .side_mut(dir);
                list.prune(watermark);
                list.insert(adj);
            }
        }
        changed
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

/// `items` reordered so that those of one shard (of `id(item)`) are
/// together, with each shard's run: (shard, start, end). Many items are
/// counted, then dealt into one bucket per shard (no comparisons); a few
/// are sorted in place (no allocation).
fn by_shard<T>(mut items: Vec<T>, id: impl Fn(&T) -> u64) -> (Vec<T>, Vec<(usize, usize, usize)>) {
    let shard = |x: &T| (id(x) % SHARDS as u64) as usize;
    let mut runs: Vec<(usize, usize, usize)> = Vec::new();
    if items.len() <= 2 * SHARDS {
        items.sort_unstable_by_key(shard);
        for (i, x) in items.iter().enumerate() {
            let s = shard(x);
            match runs.last_mut() {
                Some(run) if run.0 == s => run.2 = i + 1,
                _ => runs.push((s, i, i + 1)),
            }
        }
        return (items, runs);
    }
    let mut counts = [0usize; SHARDS];
    for x in &items {
        counts[shard(x)] += 1;
    }
    let mut groups: Vec<Vec<T>> = counts.iter().map(|&c| Vec::with_capacity(c)).collect();
    let n = items.len();
    for item in items {
        groups[shard(&item)].push(item);
    }
    let mut out = Vec::with_capacity(n);
    for (s, g) in groups.into_iter().enumerate() {
        if !g.is_empty() {
            runs.push((s, out.len(), out.len() + g.len()));
            out.extend(g);
        }
    }
    (out, runs)
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

    fn int(i: i64) -> Stored {
        Stored::owned(crate::value::Value::Int64(i))
    }

    proptest! {
        /// Creating edges together (`add_all`: by shard, lists fetched
        /// ahead) leaves what creating them one change at a time does: the
        /// same lives, lists and properties at every timestamp, a key
        /// given twice keeping its last value. Up to 600 edges, so both of
        /// `by_shard`'s ways are taken.
        #[test]
        fn edges_added_together_read_as_added_one_by_one(
            edges in proptest::collection::vec((0u32..300, 0u32..300, 0u32..3, 0u8..4), 1..600),
            reuse_dead in any::<bool>(),
        ) {
            let (together, apart) = (EdgeStore::default(), EdgeStore::default());
            if reuse_dead {
                // Ids 1 and 2 had a life before: the new one goes in front.
                for s in [&together, &apart] {
                    s.apply(&EdgeChange::Add(1, ends(7, 8, 0)), 1, 0);
                    s.apply(&EdgeChange::Add(2, ends(8, 7, 1)), 1, 0);
                    s.apply(&EdgeChange::Remove(1), 2, 0);
                    s.apply(&EdgeChange::Remove(2), 2, 0);
                }
            }
            let ts = 3;
            let adds: Vec<Added> = edges
                .iter()
                .enumerate()
                .map(|(i, &(src, dst, label, nprops))| Added {
                    id: i as u64 + 1,
                    ends: ends(src, dst, label),
                    props: (0..nprops)
                        .map(|k| (u32::from(k % 2), int(i as i64 * 10 + i64::from(k))))
                        .collect(),
                })
                .collect();
            for a in &adds {
                apart.apply(&EdgeChange::Add(a.id, a.ends), ts, 0);
                for (k, v) in &a.props {
                    apart.apply(&EdgeChange::Property(a.id, *k, Some(v.clone())), ts, 0);
                }
            }
            prop_assert!(together.add_all(adds.clone(), ts, 0));
            prop_assert_eq!(together.count(), apart.count());
            prop_assert_eq!(together.peek_next(), apart.peek_next());
            for at in [1, 2, ts] {
                prop_assert_eq!(together.state_at(at), apart.state_at(at));
                for v in 0..300 {
                    for dir in [Direction::Out, Direction::In] {
                        for label in [None, Some(0), Some(2)] {
                            prop_assert_eq!(
                                together.edges_of(v, dir, label, at),
                                apart.edges_of(v, dir, label, at)
                            );
                        }
                    }
                }
            }
            for a in &adds {
                for k in 0..2 {
                    prop_assert_eq!(
                        together.property_at(a.id, k, ts),
                        apart.property_at(a.id, k, ts)
                    );
                }
            }
        }

        /// `by_shard` keeps every item once, puts each run's items in its
        /// shard, and lists the runs' shards once each.
        #[test]
        fn by_shard_groups_every_item_once(ids in proptest::collection::vec(any::<u64>(), 0..400)) {
            let (out, runs) = by_shard(ids.clone(), |&x| x);
            let mut sorted_in = ids.clone();
            sorted_in.sort_unstable();
            let mut sorted_out = out.clone();
            sorted_out.sort_unstable();
            prop_assert_eq!(sorted_in, sorted_out);
            let mut seen = std::collections::HashSet::new();
            let mut next = 0;
            for (shard, start, end) in runs {
                prop_assert!(seen.insert(shard));
                prop_assert_eq!(start, next);
                prop_assert!(end > start);
                for &x in &out[start..end] {
                    prop_assert_eq!((x % SHARDS as u64) as usize, shard);
                }
                next = end;
            }
            prop_assert_eq!(next, out.len());
        }
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
