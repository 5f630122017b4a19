//! `WriteTxn`: buffered writes, read-your-writes, and the commit protocol.
//!
//! A transaction records its writes in a private overlay and validates each
//! call against what it can see (its snapshot plus its own writes), so a bad
//! call fails on the spot and leaves the transaction as it was. Nothing
//! reaches the shared graph until `commit`:
//!
//! 1. take the writers' gate in shared mode (batches take it exclusively);
//! 2. lock every vertex the commit writes, in ascending id order, so two
//!    commits never deadlock; deleting a vertex also locks its current
//!    neighbours, re-checked once the locks are held;
//! 3. under the conflict window's lock (`conflict.rs`): refuse with
//!    `Conflict` if a commit after this transaction's snapshot wrote what
//!    it writes (or, serializable, what it read); take the commit
//!    timestamp and append the log record together (so the log is in
//!    timestamp order); record what this commit writes;
//! 4. apply the net writes, release the vertex locks, wait until the
//!    record is durable, and publish the timestamp in order (a commit
//!    whose record failed is published unseen: `version::Ticket::fail`).
//!
//! The snapshot is the one the transaction first read; a transaction that
//! never read anything (blind writes) has nothing to conflict with and
//! commits as if it ran at its commit timestamp. The single-call writes of
//! `Graph` (`insert_edge` and the like) check nothing either: each applies
//! at its commit as a last-writer-wins store would.

use crate::conflict::Key;
use crate::direction::Direction;
use crate::edge_rules;
use crate::error::VertexId;
use crate::error::{BatchIndex, Element, Error, Op, Result};
use crate::lsm::layers::Layers;
use crate::mem::{Effect, SlotGuard, Stamping, VertexState};
use crate::props::edges::{Added, EdgeChange, EdgeId, Ends};
use crate::props::stored::Stored;
use crate::props::{Change, DEFAULT_LABEL_ID};
use crate::read::Snapshot;
use crate::store::maintain;
use crate::store::Store;
use crate::value::Value;
use crate::version::Timestamp;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::sync::Arc;

/// What a transaction did to a vertex's existence (the log's vocabulary,
/// since the log records exactly this).
use crate::wal::record::VertexChange as VertexWrite;
use crate::wal::record::{EdgeWrite, PropWrite as LoggedProp, PropWrites};

mod edges;
mod props;

/// What a transaction's commit checks against the commits that happened
/// after its snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Isolation {
    /// Snapshot isolation: the transaction reads one snapshot, and its
    /// commit fails with [`Error::Conflict`] if a commit after that
    /// snapshot wrote an element this one writes (first committer wins).
    /// No update is lost; two transactions that each read what the other
    /// writes may both commit (write skew).
    #[default]
    Snapshot,
    /// Serializable: as `Snapshot`, and the commit also fails if a commit
    /// after the snapshot changed anything this transaction read (a
    /// vertex's existence, an edge, a neighbour list). Checked at commit,
    /// optimistically: reads take no lock.
    Serializable,
}

/// Whether a transaction checks for conflicts at commit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Checks {
    /// A transaction the user began: checked at its isolation level.
    At(Isolation),
    /// One of `Graph`'s single-call writes, or a replayed commit: applied
    /// as of its commit timestamp, checked against nothing.
    None,
}

/// A write transaction. Create with [`crate::Graph::begin`]; finish with
/// [`WriteTxn::commit`]. Dropping it without committing discards its writes.
pub struct WriteTxn {
    pub(super) store: Arc<Store>,
    checks: Checks,
    view: Option<Snapshot>,
    /// Set while this transaction is counted as a reader by the conflict
    /// window (between its first read and its commit).
    reading: Option<Reading>,
    vertices: FxHashMap<u32, VertexWrite>,
    /// Vertices created or deleted by name (not as an edge's endpoint).
    named: Vec<u32>,
    /// Net edge writes; undirected keys are ordered (min, max).
    edges: FxHashMap<(u32, u32), Option<f64>>,
    /// What it read from its snapshot (serializable only).
    reads: Vec<Key>,
    /// Vertices it found had never been named (serializable only): one
    /// created since has an id by the commit.
    unknown: Vec<VertexId>,
    /// Keys it found had no id (serializable only): one given since, to a
    /// vertex created since, changes the answer.
    unknown_keys: Vec<Arc<str>>,
    /// Labels of vertices it creates (interned).
    labels: FxHashMap<u32, u32>,
    /// Net property writes by (vertex, interned key): a value, or removed.
    props: FxHashMap<(u32, u32), PropWrite>,
    /// How many keys were first written so far: the next `PropWrite::order`
    /// (not `props.len()`, which a vertex delete shrinks).
    prop_order: usize,
    /// Property edges it creates, by id.
    new_edges: FxHashMap<EdgeId, edges::NewEdge>,
    /// The ids of `new_edges` and the keys of `edge_props` in the order
    /// they were first written (with ones removed since still in), so a
    /// commit that finds them in id order, as a load's are, need not sort
    /// them (see `edge_changes_to_apply`).
    new_edge_order: Vec<EdgeId>,
    edge_prop_order: Vec<(EdgeId, u32)>,
    /// Property edges of its snapshot it removes, with their ends.
    removed_edges: FxHashMap<EdgeId, Ends>,
    /// Net property writes on property edges by (edge, interned key).
    edge_props: FxHashMap<(EdgeId, u32), PropWrite>,
    /// The ends of the snapshot's property edges it has read, so a commit
    /// can lock them and a vertex delete can find them.
    old_edges: FxHashMap<EdgeId, Ends>,
}

/// A buffered property write: the value (`None`: removed) and when the
/// transaction first wrote the key, so new keys keep the order they were
/// set in.
#[derive(Debug, Clone)]
struct PropWrite {
    order: usize,
    value: Option<Stored>,
}

/// Counts a transaction as a reader of the conflict window until dropped,
/// with the lower bound of its snapshot's timestamp it registered.
struct Reading(Arc<Store>, Timestamp);

impl Drop for Reading {
    fn drop(&mut self) {
        self.0.conflicts.reader_ends(self.1);
    }
}

impl WriteTxn {
    pub(crate) fn new(store: Arc<Store>, isolation: Isolation) -> Self {
        WriteTxn {
            checks: Checks::At(isolation),
            ..WriteTxn::unchecked(store)
        }
    }

    /// A transaction whose commit checks nothing (see [`Checks::None`]).
    pub(crate) fn unchecked(store: Arc<Store>) -> Self {
        WriteTxn {
            store,
            checks: Checks::None,
            view: None,
            reading: None,
            vertices: FxHashMap::default(),
            named: Vec::new(),
            edges: FxHashMap::default(),
            reads: Vec::new(),
            unknown: Vec::new(),
            unknown_keys: Vec::new(),
            labels: FxHashMap::default(),
            props: FxHashMap::default(),
            prop_order: 0,
            new_edges: FxHashMap::default(),
            new_edge_order: Vec::new(),
            edge_prop_order: Vec::new(),
            removed_edges: FxHashMap::default(),
            edge_props: FxHashMap::default(),
            old_edges: FxHashMap::default(),
        }
    }

    /// The snapshot this transaction reads, taken at its first read.
    fn view(&mut self) -> &Snapshot {
        let store = &self.store;
        if self.view.is_none() && self.checks != Checks::None {
            // Counted before the snapshot opens: a batch that sees no
            // reader has published already, so the snapshot sees it.
            let bound = store
                .conflicts
                .reader_begins(store.clock.visible(), || drop(store.writers.write()));
            self.reading = Some(Reading(store.clone(), bound));
        }
        self.view
            .get_or_insert_with(|| Snapshot::open(store.clone()))
    }

    /// The internal id of `v`, for a read: `None` if no vertex was ever
    /// named `v`, which is itself a read of the snapshot (a serializable
    /// commit fails if a vertex `v` was created after it).
    fn lookup(&mut self, v: VertexId) -> Option<u32> {
        let id = self.store.ids.lookup(v);
        if id.is_none() {
            // The answer "no such vertex" is as of the snapshot.
            self.view();
            if self.checks == Checks::At(Isolation::Serializable) {
                self.unknown.push(v);
            }
        }
        id
    }

    /// Notes a read from the snapshot, which a serializable commit checks.
    fn read(&mut self, key: Key) {
        if self.checks == Checks::At(Isolation::Serializable) {
            self.reads.push(key);
        }
    }

    fn key(&self, s: u32, d: u32) -> (u32, u32) {
        if self.store.opts.directed || s <= d {
            (s, d)
        } else {
            (d, s)
        }
    }

    fn intern(&self, op: Op, v: VertexId) -> Result<u32> {
        self.store.check_vertex_id(v)?;
        self.store.ids.intern(v).ok_or(Error::VertexIdsExhausted {
            op,
            vertex: v,
            limit: self.store.ids.cap(),
        })
    }

    fn vertex_visible(&mut self, id: u32) -> bool {
        match self.vertices.get(&id) {
            Some(VertexWrite::Created | VertexWrite::Recreated) => true,
            Some(VertexWrite::Deleted) => false,
            None => {
                self.read(Key::Vertex(id));
                self.read(Key::Created(id));
                self.view().contains(id)
            }
        }
    }

    /// The internal id of `v` if it exists as this transaction sees it.
    fn visible_vertex(&mut self, op: Op, v: VertexId) -> Result<u32> {
        let not_found = Error::VertexNotFound {
            op,
            vertex: v,
            at: BatchIndex(None),
        };
        let id = self.lookup(v).ok_or(not_found.clone())?;
        if self.vertex_visible(id) {
            Ok(id)
        } else {
            Err(not_found)
        }
    }

    /// Whether this transaction creates `id` (by name or as an edge's
    /// endpoint), so it exists at commit whatever others did.
    fn created_here(&self, id: u32) -> bool {
        matches!(
            self.vertices.get(&id),
            Some(VertexWrite::Created | VertexWrite::Recreated)
        )
    }

    /// Whether this transaction's view of `id`'s old edges was wiped by a
    /// delete inside the transaction.
    fn reset(&self, id: u32) -> bool {
        matches!(
            self.vertices.get(&id),
            Some(VertexWrite::Deleted | VertexWrite::Recreated)
        )
    }

    fn edge_visible(&mut self, s: u32, d: u32) -> Option<f64> {
        let key = self.key(s, d);
        if let Some(w) = self.edges.get(&key) {
            return *w;
        }
        if self.reset(s) || self.reset(d) {
            return None;
        }
        self.read(Key::Edge(key.0, key.1));
        self.read(Key::Vertex(s));
        self.read(Key::Vertex(d));
        self.view().weight_of(s, d)
    }

    /// Creates vertex `v`. Returns `false` (and writes nothing) if it exists.
    ///
    /// # Errors
    /// `VertexIdsExhausted` if `v` is new and all internal ids are in use.
    pub fn insert_vertex(&mut self, v: VertexId) -> Result<bool> {
        let id = self.intern(Op::InsertVertex, v)?;
        if self.vertex_visible(id) {
            return Ok(false);
        }
        let next = match self.vertices.get(&id) {
            Some(VertexWrite::Deleted) => VertexWrite::Recreated,
            _ => VertexWrite::Created,
        };
        self.vertices.insert(id, next);
        self.named.push(id);
        Ok(true)
    }

    /// Deletes vertex `v` and every edge into or out of it.
    ///
    /// # Errors
    /// `VertexNotFound` if `v` does not exist in this transaction's view.
    pub fn delete_vertex(&mut self, v: VertexId) -> Result<()> {
        let id = self.visible_vertex(Op::DeleteVertex, v)?;
        // Even a vertex created in this transaction is recorded as deleted,
        // so a later edge to it is refused as a likely logic error.
        self.vertices.insert(id, VertexWrite::Deleted);
        self.named.push(id);
        self.edges.retain(|&(s, d), _| s != id && d != id);
        self.labels.remove(&id);
        self.props.retain(|&(x, _), _| x != id);
        self.forget_edges_of(id);
        Ok(())
    }

    /// Inserts edge `src -> dst` with `weight`, or re-weights it if it exists.
    /// Missing endpoints are created when `Options::auto_create_vertices` is set.
    ///
    /// # Errors
    /// `InvalidWeight` for NaN or infinite weights, `SelfLoop` if self-loops
    /// are disabled, `VertexDeletedInTransaction` if an endpoint was deleted
    /// earlier in this transaction, `VertexNotFound` for a missing endpoint
    /// without auto-creation, `VertexIdsExhausted` when ids run out.
    pub fn insert_edge(&mut self, src: VertexId, dst: VertexId, weight: f64) -> Result<()> {
        check_edge(&self.store, Op::InsertEdge, src, dst, weight, None)?;
        // Both ids' misses at once (see `util::prefetch`).
        self.store.ids.prefetch(src);
        self.store.ids.prefetch(dst);
        let s = self.intern(Op::InsertEdge, src)?;
        let d = self.intern(Op::InsertEdge, dst)?;
        for (id, ext) in [(s, src), (d, dst)] {
            if self.vertices.get(&id) == Some(&VertexWrite::Deleted) {
                return Err(Error::VertexDeletedInTransaction {
                    op: Op::InsertEdge,
                    src,
                    dst,
                    vertex: ext,
                });
            }
        }
        if !self.store.opts.auto_create_vertices {
            for (id, ext) in [(s, src), (d, dst)] {
                if !self.vertex_visible(id) {
                    return Err(Error::VertexNotFound {
                        op: Op::InsertEdge,
                        vertex: ext,
                        at: BatchIndex(None),
                    });
                }
            }
        }
        // Endpoints exist once the edge does; commit creates them only if
        // absent, so this needs no look-up now.
        for id in [s, d] {
            self.vertices.entry(id).or_insert(VertexWrite::Created);
        }
        let key = self.key(s, d);
        self.edges.insert(key, Some(weight));
        Ok(())
    }

    /// Deletes edge `src -> dst`.
    ///
    /// # Errors
    /// `EdgeNotFound` if the edge does not exist in this transaction's view.
    pub fn delete_edge(&mut self, src: VertexId, dst: VertexId) -> Result<()> {
        let not_found = Error::EdgeNotFound {
            op: Op::DeleteEdge,
            src,
            dst,
            at: BatchIndex(None),
        };
        let (Some(s), Some(d)) = (self.lookup(src), self.lookup(dst)) else {
            return Err(not_found);
        };
        if self.edge_visible(s, d).is_none() {
            return Err(not_found);
        }
        let key = self.key(s, d);
        self.edges.insert(key, None);
        Ok(())
    }

    /// Whether vertex `v` exists, counting this transaction's writes.
    pub fn has_vertex(&mut self, v: VertexId) -> bool {
        self.lookup(v).is_some_and(|id| self.vertex_visible(id))
    }

    /// A vertex id no vertex has had in this store, for a vertex the
    /// caller is about to add without an id of its own: one past the
    /// largest id the store has seen, counting up. Concurrent callers get
    /// different ids, and no vertex is scanned.
    ///
    /// # Errors
    /// `VertexIdsExhausted` when the counter has reached `u64::MAX`.
    pub fn fresh_vertex_id(&mut self) -> Result<VertexId> {
        loop {
            let v = self
                .store
                .ids
                .fresh_external()
                .ok_or(Error::VertexIdsExhausted {
                    op: Op::InsertVertex,
                    vertex: u64::MAX,
                    limit: self.store.ids.cap(),
                })?;
            // An id interned by another writer between the counter's
            // read and now is skipped.
            if self.lookup(v).is_none() {
                return Ok(v);
            }
        }
    }

    /// Every vertex this transaction sees (its snapshot's, less those it
    /// deleted, plus those it created), ascending by internal id.
    ///
    /// A serializable commit checks each vertex listed; it does not check
    /// for vertices another transaction created after this one's snapshot
    /// (a phantom), which a scan cannot name.
    pub fn vertices(&mut self) -> Vec<VertexId> {
        let mut ids: Vec<u32> = self.view().vertices().collect();
        ids.extend(self.vertices.iter().filter_map(|(&id, w)| {
            matches!(w, VertexWrite::Created | VertexWrite::Recreated).then_some(id)
        }));
        ids.sort_unstable();
        ids.dedup();
        ids.retain(|&id| self.vertex_visible(id));
        ids.into_iter()
            .map(|id| self.store.ids.external(id))
            .collect()
    }

    /// Whether edge `src -> dst` exists, counting this transaction's writes.
    pub fn has_edge(&mut self, src: VertexId, dst: VertexId) -> bool {
        self.weight(src, dst).is_some()
    }

    /// The weight of `src -> dst`, counting this transaction's writes.
    pub fn weight(&mut self, src: VertexId, dst: VertexId) -> Option<f64> {
        let s = self.lookup(src);
        let d = self.lookup(dst);
        let (s, d) = (s?, d?);
        self.edge_visible(s, d)
    }

    /// Out-neighbours of `v` (external ids, ascending by internal id),
    /// counting this transaction's writes. `None` if `v` does not exist.
    pub fn out_neighbors(&mut self, v: VertexId) -> Option<Vec<VertexId>> {
        self.neighbors(v, true)
    }

    /// In-neighbours of `v`, counting this transaction's writes.
    pub fn in_neighbors(&mut self, v: VertexId) -> Option<Vec<VertexId>> {
        self.neighbors(v, false)
    }

    fn neighbors(&mut self, v: VertexId, out: bool) -> Option<Vec<VertexId>> {
        let id = self.lookup(v)?;
        if !self.vertex_visible(id) {
            return None;
        }
        let directed = self.store.opts.directed;
        let mut ids: Vec<u32> = Vec::new();
        if !self.reset(id) {
            let dir = if out || !directed {
                Direction::Out
            } else {
                Direction::In
            };
            self.read(Key::Adjacency(id, dir));
            let view = self.view();
            if out {
                view.for_each_out_of(id, |d| ids.push(d));
            } else {
                view.for_each_in_of(id, |d| ids.push(d));
            }
        }
        // Drop neighbours this transaction wiped or whose edge it deleted.
        ids.retain(|&n| {
            let (s, d) = if out { (id, n) } else { (n, id) };
            !self.reset(n) && self.edges.get(&self.key(s, d)) != Some(&None)
        });
        for (&(s, d), w) in &self.edges {
            if w.is_none() {
                continue;
            }
            let other = if !directed {
                if s == id {
                    Some(d)
                } else if d == id {
                    Some(s)
                } else {
                    None
                }
            } else if out && s == id {
                Some(d)
            } else if !out && d == id {
                Some(s)
            } else {
                None
            };
            ids.extend(other);
        }
        ids.sort_unstable();
        ids.dedup();
        Some(
            ids.into_iter()
                .map(|n| self.store.ids.external(n))
                .collect(),
        )
    }

    /// Number of buffered writes.
    pub fn len(&self) -> usize {
        self.vertices.len()
            + self.edges.len()
            + self.props.len()
            + self.new_edges.len()
            + self.removed_edges.len()
            + self.edge_props.len()
    }

    /// Whether nothing has been written.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Applies every write atomically and returns the commit timestamp. An
    /// empty transaction commits nothing and returns the newest timestamp.
    ///
    /// # Errors
    /// `Conflict` if a commit after this transaction's snapshot wrote an
    /// element it writes (or, serializable, one it read): run the
    /// transaction again. `VertexNotFound` if auto-creation is off and an
    /// endpoint was deleted by a concurrent commit; `SnapshotTooOld` if a
    /// snapshot has been open for more than `Options::stamp_window`
    /// commits. Whatever the error, nothing is applied.
    pub fn commit(mut self) -> Result<Timestamp> {
        // The read view only served validation; commit re-checks under
        // locks. Closing it first keeps it from holding back the
        // watermark; the window keeps what the check needs until
        // `self.reading` goes.
        let snapshot_ts = match self.checks {
            Checks::At(_) => self.view.as_ref().map(Snapshot::timestamp),
            Checks::None => None,
        };
        self.view = None;
        let store = self.store.clone();
        if self.is_empty() {
            return Ok(store.clock.visible());
        }
        store.check_writable("commit")?;
        let log = store.log();
        if let Some(log) = log {
            log.check()?;
        }
        let _gate = store.writers.read();
        store.check_writable("commit")?;
        // Any `Layers` will do: the MemGraph keeps every version a run holds
        // until all holders of older ones (this commit too) are gone.
        let layers = store.layers.read().clone();
        let (lockset, mut guards) = self.lock_all(&store, &layers);
        let mut locked = Locked {
            ids: &lockset,
            guards: &mut guards,
        };
        if !store.opts.auto_create_vertices {
            self.check_endpoints_alive(&mut locked)?;
        }
        self.check_property_edges(&mut locked)?;
        // Recorded only while some transaction reads (`conflict.rs`).
        let mut window = (snapshot_ts.is_some() || store.conflicts.watched())
            .then(|| (self.written_keys(&mut locked), store.conflicts.lock()));
        let inflight = log.map(|log| log.enter());
        if let (Some(snapshot_ts), Some((_, window))) = (snapshot_ts, &window) {
            if let Some((key, committed_ts)) = window.find(snapshot_ts, self.checked_keys()) {
                return Err(Error::Conflict {
                    element: self.element(key),
                    snapshot_ts,
                    committed_ts,
                });
            }
        }
        // After the conflict check: a transaction that saw the vertex
        // learns it lost a race rather than that the vertex is missing.
        self.check_owners_alive(&mut locked)?;
        self.check_indexable()?;
        // The timestamp and the log record are taken together, so the log
        // is in timestamp order (see `wal::writer`).
        let (ticket, prepared) = match log {
            Some(log) => log.append_commit(
                &store.clock,
                |ts| store.stamping(ts),
                |b, ts| self.encode(b, ts),
            ),
            None => {
                let ticket = store.clock.take();
                let st = store.stamping(ticket.ts()).map(|st| (st, 0));
                (ticket, st)
            }
        };
        let (st, pos) = prepared?;
        let ts = ticket.ts();
        if let Some((writes, mut window)) = window.take() {
            store
                .conflicts
                .record(&mut window, ts, store.clock.visible(), writes);
        }
        self.reading = None;
        // Before `ts` is published: kept read pages of these vertices are
        // stale from it on (see `mem_view`).
        for (&v, guard) in locked.ids.iter().zip(locked.guards.iter()) {
            store.mem.note_write(guard, v, ts);
        }
        let (d_edges, d_vertices, blind) = self.apply(&mut locked, &layers, &st);
        // Before `ts` is published, so a snapshot that sees it finds them.
        store.blind.record(ts, &blind);
        drop(inflight);
        drop(guards);
        // Durable before it is published; a commit whose record failed is
        // published unseen, and the store refuses writes from now on
        // (`Wal::check`).
        let durable = log.map_or(Ok(()), |log| log.wait(pos));
        let ts = ticket.settle(durable, d_edges, d_vertices)?;
        drop(layers);
        maintain::note_writes(&store, 2 * self.edges.len());
        Ok(ts)
    }

    /// Refuses property edge writes the latest state no longer allows: a
    /// new edge's endpoint deleted meanwhile (without auto-creation), an
    /// id taken meanwhile, a property of an edge removed meanwhile.
    fn check_property_edges(&self, locked: &mut Locked<'_, '_>) -> Result<()> {
        let edges = &self.store.props.edges;
        let auto = self.store.opts.auto_create_vertices;
        for (&id, n) in &self.new_edges {
            // An id is free if no edge has it, or this commit removes the
            // edge that has it (by id, or with a vertex it deletes).
            let taken = edges.latest(id).is_some_and(|e| {
                !self.removed_edges.contains_key(&id) && !self.reset(e.src) && !self.reset(e.dst)
            });
            if taken {
                return Err(Error::EdgeIdTaken {
                    op: Op::AddEdge,
                    edge: id,
                });
            }
            for v in [n.ends.src, n.ends.dst] {
                if !auto && !self.created_here(v) && !locked.get(v).life.alive() {
                    return Err(Error::VertexNotFound {
                        op: Op::AddEdge,
                        vertex: self.store.ids.external(v),
                        at: BatchIndex(None),
                    });
                }
            }
        }
        for (&(id, _), w) in &self.edge_props {
            if !self.new_edges.contains_key(&id) && edges.latest(id).is_none() {
                let op = if w.value.is_some() {
                    Op::SetEdgeProperty
                } else {
                    Op::RemoveEdgeProperty
                };
                return Err(Error::NoSuchEdge { op, edge: id });
            }
        }
        Ok(())
    }

    /// The ends of every property edge this commit writes (created,
    /// removed, or given a property).
    fn touched_edge_ends(&self) -> impl Iterator<Item = Ends> + '_ {
        let new = self.new_edges.values().map(|n| n.ends);
        let removed = self.removed_edges.values().copied();
        let props = self.edge_props.keys().filter_map(|(e, _)| {
            self.new_edges
                .get(e)
                .map(|n| n.ends)
                .or_else(|| self.old_edges.get(e).copied())
        });
        new.chain(removed).chain(props)
    }

    /// The side of `v`'s edges an edge's destination lists it on.
    fn mirror(&self) -> Direction {
        if self.store.opts.directed {
            Direction::In
        } else {
            Direction::Out
        }
    }

    /// Every element this commit changes, for later transactions' checks.
    /// Computed under the vertex locks, before the timestamp is taken.
    fn written_keys(&self, locked: &mut Locked<'_, '_>) -> Vec<Key> {
        let mirror = self.mirror();
        let mut keys = Vec::with_capacity(3 * self.edges.len() + self.named.len());
        for (&(s, d), w) in &self.edges {
            keys.push(Key::Edge(s, d));
            keys.push(Key::Adjacency(s, Direction::Out));
            keys.push(Key::Adjacency(d, mirror));
            if w.is_some() {
                for v in [s, d] {
                    if self.vertices.get(&v) == Some(&VertexWrite::Created)
                        && !locked.get(v).life.alive()
                    {
                        keys.push(Key::Created(v));
                    }
                }
            }
        }
        let props = &self.store.props;
        for &(v, k) in self.props.keys() {
            keys.push(Key::Property(v, k));
            keys.push(Key::Properties(v));
            keys.push(Key::Predicate(self.label_at_commit(v), k));
        }
        let mut deletes = false;
        for &v in &self.named {
            keys.push(Key::Vertex(v));
            if self.vertices[&v] != VertexWrite::Created {
                deletes = true;
                // A delete takes every property out of the look-ups.
                let label = props.latest_label(v).unwrap_or(DEFAULT_LABEL_ID);
                for k in props.latest_keys(v) {
                    keys.push(Key::Predicate(label, k));
                }
            }
        }
        let edges = &self.store.props.edges;
        let edge_keys = |keys: &mut Vec<Key>, id: EdgeId, e: Ends| {
            keys.push(Key::PropertyEdge(id));
            keys.push(Key::EdgeList(e.src, Direction::Out));
            keys.push(Key::EdgeList(e.dst, Direction::In));
            for k in edges.latest_keys(id) {
                keys.push(Key::EdgeProperty(id, k));
            }
        };
        for (&id, n) in &self.new_edges {
            edge_keys(&mut keys, id, n.ends);
        }
        for (&id, &e) in &self.removed_edges {
            edge_keys(&mut keys, id, e);
        }
        for &(id, k) in self.edge_props.keys() {
            keys.push(Key::EdgeProperty(id, k));
        }
        for &v in &self.named {
            if self.vertices[&v] != VertexWrite::Created {
                // A delete takes every property edge of the vertex with it.
                for (id, e) in edges.latest_of(v) {
                    edge_keys(&mut keys, id, e);
                }
            }
        }
        if deletes {
            // A delete changes the edge lists of the vertex and of every
            // neighbour, all of which it holds locked.
            for &v in locked.ids {
                keys.push(Key::Adjacency(v, Direction::Out));
                keys.push(Key::Adjacency(v, mirror));
            }
        }
        keys
    }

    /// What a commit must find unchanged since the snapshot: the elements
    /// it writes (an edge's endpoints too, which a named vertex write
    /// changes, and a deleted vertex's edge lists), and under
    /// serializable isolation everything it read.
    fn checked_keys(&self) -> impl Iterator<Item = Key> + '_ {
        let mirror = self.mirror();
        let edges = self
            .edges
            .keys()
            .flat_map(|&(s, d)| [Key::Edge(s, d), Key::Vertex(s), Key::Vertex(d)]);
        let named = self.named.iter().flat_map(move |&v| {
            let deleted = self.vertices[&v] != VertexWrite::Created;
            let mut keys = vec![Key::Vertex(v), Key::Created(v)];
            if deleted {
                keys.push(Key::Adjacency(v, Direction::Out));
                keys.push(Key::Adjacency(v, mirror));
                keys.push(Key::EdgeList(v, Direction::Out));
                keys.push(Key::EdgeList(v, Direction::In));
            }
            keys
        });
        // Removing an edge also overwrites every property it has, so a
        // property written meanwhile is a conflict, not a lost update.
        let store = &self.store;
        let edge_ids = self
            .new_edges
            .iter()
            .flat_map(|(&id, n)| {
                [
                    Key::PropertyEdge(id),
                    Key::Vertex(n.ends.src),
                    Key::Vertex(n.ends.dst),
                ]
            })
            .chain(self.removed_edges.keys().flat_map(move |&id| {
                let props = store.props.edges.latest_keys(id);
                std::iter::once(Key::PropertyEdge(id))
                    .chain(props.into_iter().map(move |k| Key::EdgeProperty(id, k)))
            }));
        let edge_props = self
            .edge_props
            .keys()
            .flat_map(|&(id, k)| [Key::EdgeProperty(id, k), Key::PropertyEdge(id)]);
        let props = self
            .props
            .keys()
            .flat_map(|&(v, k)| [Key::Property(v, k), Key::Vertex(v)]);
        let keys = &self.store.keys;
        let unknown = self
            .unknown
            .iter()
            .copied()
            .chain(self.unknown_keys.iter().filter_map(|k| keys.lookup(k)))
            .filter_map(|v| self.store.ids.lookup(v))
            .flat_map(|id| [Key::Vertex(id), Key::Created(id)]);
        edges
            .chain(named)
            .chain(props)
            .chain(edge_ids)
            .chain(edge_props)
            .chain(self.reads.iter().copied())
            .chain(unknown)
    }

    /// A conflict key as the user names the element (external ids).
    fn element(&self, key: Key) -> Element {
        let ext = |v: u32| self.store.ids.external(v);
        match key {
            Key::Vertex(v) | Key::Created(v) => Element::Vertex(ext(v)),
            Key::Edge(s, d) => Element::Edge {
                src: ext(s),
                dst: ext(d),
            },
            Key::Adjacency(v, Direction::Out) => Element::OutEdges(ext(v)),
            Key::Adjacency(v, Direction::In) => Element::InEdges(ext(v)),
            Key::Property(v, k) => Element::Property {
                vertex: ext(v),
                key: self.store.props.keys.name(k).to_string(),
            },
            Key::Properties(v) => Element::Properties(ext(v)),
            Key::PropertyEdge(e) => Element::PropertyEdge(e),
            Key::EdgeProperty(e, k) => Element::EdgeProperty {
                edge: e,
                key: self.store.props.keys.name(k).to_string(),
            },
            Key::EdgeList(v, dir) => Element::PropertyEdges {
                vertex: ext(v),
                out: dir == Direction::Out,
            },
            Key::Predicate(l, k) => Element::Lookup {
                label: self.store.props.labels.name(l).to_string(),
                key: self.store.props.keys.name(k).to_string(),
            },
        }
    }

    /// The log record of this transaction's net writes (external ids).
    fn encode(&self, b: &mut Vec<u8>, ts: Timestamp) {
        let ext = |v: u32| self.store.ids.external(v);
        let names = &self.store.props;
        let labels: Vec<(VertexId, Arc<str>)> = self
            .labels
            .iter()
            .map(|(&v, &l)| (ext(v), names.labels.name(l)))
            .collect();
        let props: Vec<(VertexId, Arc<str>, Option<Cow<Value>>)> = self
            .ordered_props()
            .into_iter()
            .map(|(&(v, k), w)| {
                (
                    ext(v),
                    names.keys.name(k),
                    w.value.as_ref().map(Stored::as_value),
                )
            })
            .collect();
        crate::wal::record::encode_txn(
            b,
            ts,
            self.vertices.iter().map(|(&v, &w)| (ext(v), w)),
            self.edges.iter().map(|(&(s, d), &w)| (ext(s), ext(d), w)),
            PropWrites {
                labels: labels.iter().map(|(v, l)| (*v, &**l)),
                props: props.iter().map(|(v, k, x)| (*v, &**k, x.as_deref())),
                edges: &self.edge_writes(),
            },
        );
    }

    /// This transaction's property edge writes in the order they apply:
    /// removals, then new edges, then properties (each in the order made).
    fn ordered_edge_changes(&self) -> Vec<EdgeChange> {
        let mut out: Vec<EdgeChange> = Vec::new();
        out.extend(self.removed_ids().into_iter().map(EdgeChange::Remove));
        out.extend(
            self.new_edges_in_order()
                .into_iter()
                .map(|(id, ends)| EdgeChange::Add(id, ends)),
        );
        out.extend(
            self.edge_writes_in_order()
                .into_iter()
                .map(|(id, k, w)| EdgeChange::Property(id, k, w.value.clone())),
        );
        out
    }

    /// `ordered_edge_changes` as `apply` applies them: the removals, the
    /// new edges with their properties, and the property writes on edges
    /// that were there before. Equal in effect: a new edge's properties
    /// touch no other edge, so applying them with it reorders nothing
    /// that shows.
    fn edge_changes_to_apply(&self) -> (Vec<EdgeId>, Vec<Added>, Vec<EdgeChange>) {
        let mut added: Vec<Added> = self
            .new_edges_by_id()
            .into_iter()
            .map(|(id, ends)| Added {
                id,
                ends,
                props: Vec::new(),
            })
            .collect();
        let writes = self.edge_writes_by_id();
        let mut set = Vec::new();
        let mut at = 0;
        for (id, k, w) in writes {
            while added.get(at).is_some_and(|a| a.id < id) {
                at += 1;
            }
            match added.get_mut(at) {
                // A key set and removed again on a new edge leaves nothing.
                Some(a) if a.id == id => a.props.extend(w.value.clone().map(|v| (k, v))),
                _ => set.push((w.order, EdgeChange::Property(id, k, w.value.clone()))),
            }
        }
        set.sort_unstable_by_key(|(order, _)| *order);
        (
            self.removed_ids(),
            added,
            set.into_iter().map(|(_, c)| c).collect(),
        )
    }

    /// The new property edges with their ends, in the order created.
    /// With nothing removed since, `new_edge_order` is exactly the map's
    /// keys in that order (every creation pushes its id once), so no sort.
    fn new_edges_in_order(&self) -> Vec<(EdgeId, Ends)> {
        if self.new_edge_order.len() == self.new_edges.len() {
            return self
                .new_edge_order
                .iter()
                .map(|id| (*id, self.new_edges[id].ends))
                .collect();
        }
        let mut new: Vec<(usize, EdgeId, Ends)> = self
            .new_edges
            .iter()
            .map(|(&id, n)| (n.order, id, n.ends))
            .collect();
        new.sort_unstable_by_key(|&(order, _, _)| order);
        new.into_iter().map(|(_, id, ends)| (id, ends)).collect()
    }

    /// The new property edges with their ends, in id order: the order
    /// created when that ascends (a load's generated ids), else sorted by
    /// value, not through references into the map (a sort that follows a
    /// pointer per comparison misses the cache on each).
    fn new_edges_by_id(&self) -> Vec<(EdgeId, Ends)> {
        let mut new = self.new_edges_in_order();
        if !new.is_sorted_by_key(|&(id, _)| id) {
            new.sort_unstable_by_key(|&(id, _)| id);
        }
        new
    }

    /// The property writes on edges in the order first written (as
    /// `new_edges_in_order`: `edge_prop_order` is the map's keys when
    /// nothing was removed since).
    fn edge_writes_in_order(&self) -> Vec<(EdgeId, u32, &PropWrite)> {
        if self.edge_prop_order.len() == self.edge_props.len() {
            return self
                .edge_prop_order
                .iter()
                .map(|&(id, k)| (id, k, &self.edge_props[&(id, k)]))
                .collect();
        }
        let mut writes: Vec<(usize, EdgeId, u32, &PropWrite)> = self
            .edge_props
            .iter()
            .map(|(&(id, k), w)| (w.order, id, k, w))
            .collect();
        writes.sort_unstable_by_key(|&(order, _, _, _)| order);
        writes.into_iter().map(|(_, id, k, w)| (id, k, w)).collect()
    }

    /// The property writes on edges by (edge id, first written).
    fn edge_writes_by_id(&self) -> Vec<(EdgeId, u32, &PropWrite)> {
        let mut writes = self.edge_writes_in_order();
        if !writes.is_sorted_by_key(|&(id, _, _)| id) {
            // Stable: within an edge, the order first written stays.
            writes.sort_by_key(|&(id, _, _)| id);
        }
        writes
    }

    /// The property edges of its snapshot this transaction removes, in
    /// id order (the order the log and the apply take them in).
    fn removed_ids(&self) -> Vec<EdgeId> {
        let mut removed: Vec<EdgeId> = self.removed_edges.keys().copied().collect();
        removed.sort_unstable();
        removed
    }

    /// `ordered_edge_changes` as the log names them (external ids, names).
    fn edge_writes(&self) -> Vec<EdgeWrite> {
        let ext = |v: u32| self.store.ids.external(v);
        let names = &self.store.props;
        self.ordered_edge_changes()
            .into_iter()
            .map(|c| match c {
                EdgeChange::Remove(id) => EdgeWrite::Remove(id),
                EdgeChange::Add(id, e) => EdgeWrite::Add {
                    id,
                    src: ext(e.src),
                    dst: ext(e.dst),
                    label: names.labels.name(e.label).to_string(),
                },
                EdgeChange::Property(id, k, v) => {
                    EdgeWrite::Property(id, names.keys.name(k).to_string(), v.map(|v| v.to_value()))
                }
            })
            .collect()
    }

    /// The property writes in the order the transaction first made them.
    fn ordered_props(&self) -> Vec<(&(u32, u32), &PropWrite)> {
        let mut writes: Vec<_> = self.props.iter().collect();
        writes.sort_unstable_by_key(|(_, w)| w.order);
        writes
    }

    /// Locks every vertex the commit writes, in ascending order.
    fn lock_all<'s>(&self, store: &'s Store, layers: &Layers) -> (Vec<u32>, Vec<SlotGuard<'s>>) {
        let mut ids: Vec<u32> = self.vertices.keys().copied().collect();
        for &(s, d) in self.edges.keys() {
            ids.push(s);
            ids.push(d);
        }
        ids.extend(self.props.keys().map(|&(v, _)| v));
        // A new edge's ends are among `vertices` already (its creation
        // names them), so a load's batch sorts half as many ids.
        ids.extend(
            self.touched_edge_ends()
                .flat_map(|e| [e.src, e.dst])
                .filter(|v| !self.vertices.contains_key(v)),
        );
        let deleted: Vec<u32> = self
            .vertices
            .iter()
            .filter(|(_, w)| **w != VertexWrite::Created)
            .map(|(&v, _)| v)
            .collect();
        // The slots' and lists' misses overlap instead of queueing behind
        // each lock in turn; the index entries that lead to the slots
        // first. A commit of a few vertices, or of vertices close together
        // (new ones, say), asks for them all at once; a large one spread
        // over the graph (a load's edges) asks a few vertices ahead of the
        // one it locks, as the CPU follows only so many misses at a time.
        ids.sort_unstable();
        ids.dedup();
        let spread = match (ids.first(), ids.last()) {
            (Some(&lo), Some(&hi)) => (hi - lo) as usize > 4 * ids.len(),
            _ => false,
        };
        let ahead = ids.len() > LOCK_AHEAD && spread;
        if !ahead {
            for &v in &ids {
                store.mem.prefetch_entry(v);
            }
        }
        // Only deletes, and inserts when blind writes are off, look their
        // edge up in the levels (`edge_rules`); under a memory cap the
        // prefetch's own look-up of a list's row is a page read.
        let blind = store.opts.blind_inserts;
        for (&(s, _), w) in &self.edges {
            if w.is_none() || !blind {
                layers.prefetch_lists(s, Direction::Out);
            }
        }
        if !ahead {
            for &v in &ids {
                store.mem.prefetch(v);
            }
        }
        loop {
            let mut guards: Vec<_> = Vec::with_capacity(ids.len());
            for (i, &v) in ids.iter().enumerate() {
                if ahead {
                    if let Some(&next) = ids.get(i + LOCK_AHEAD) {
                        store.mem.prefetch_entry(next);
                    }
                    if let Some(&next) = ids.get(i + LOCK_AHEAD / 2) {
                        store.mem.prefetch(next);
                    }
                }
                guards.push(store.mem.lock(v));
            }
            let mut missing = Vec::new();
            for &v in &deleted {
                let i = ids.binary_search(&v).unwrap_or(0);
                let st = &guards[i];
                let dirs: &[Direction] = if store.opts.directed {
                    &[Direction::Out, Direction::In]
                } else {
                    &[Direction::Out]
                };
                for &dir in dirs {
                    missing.extend(
                        edge_rules::latest_dsts(layers, st.set(dir), v, dir)
                            .into_iter()
                            .filter(|n| ids.binary_search(n).is_err()),
                    );
                }
                missing.extend(
                    store
                        .props
                        .edges
                        .latest_of(v)
                        .into_iter()
                        .flat_map(|(_, e)| [e.src, e.dst])
                        .filter(|n| ids.binary_search(n).is_err()),
                );
            }
            if missing.is_empty() {
                self.prefetch_sets(store, &ids, &guards);
                return (ids, guards);
            }
            guards.clear();
            ids.extend(missing);
            ids.sort_unstable();
            ids.dedup();
        }
    }

    /// Starts loading the MemGraph runs `apply` will write first: each
    /// edge's source list and its mirror at the destination, so their
    /// misses overlap the look-up below the MemGraph.
    fn prefetch_sets(&self, store: &Store, ids: &[u32], guards: &[SlotGuard<'_>]) {
        let state = |v: u32| ids.binary_search(&v).ok().map(|i| &guards[i]);
        for &(s, d) in self.edges.keys() {
            if let Some(st) = state(s) {
                st.out.prefetch();
            }
            if let Some(st) = state(d) {
                if store.opts.directed {
                    st.inn.prefetch();
                } else {
                    st.out.prefetch();
                }
            }
        }
    }

    fn check_endpoints_alive(&self, locked: &mut Locked<'_, '_>) -> Result<()> {
        for &(s, d) in self
            .edges
            .iter()
            .filter(|(_, w)| w.is_some())
            .map(|(k, _)| k)
        {
            for v in [s, d] {
                if !self.created_here(v) && !locked.get(v).life.alive() {
                    return Err(Error::VertexNotFound {
                        op: Op::InsertEdge,
                        vertex: self.store.ids.external(v),
                        at: BatchIndex(None),
                    });
                }
            }
        }
        Ok(())
    }

    /// Refuses a property write to a vertex a concurrent commit deleted
    /// (one this transaction did not create itself).
    fn check_owners_alive(&self, locked: &mut Locked<'_, '_>) -> Result<()> {
        for (&(v, _), PropWrite { value, .. }) in &self.props {
            if !self.created_here(v) && !locked.get(v).life.alive() {
                let op = if value.is_some() {
                    Op::SetProperty
                } else {
                    Op::RemoveProperty
                };
                return Err(Error::VertexNotFound {
                    op,
                    vertex: self.store.ids.external(v),
                    at: BatchIndex(None),
                });
            }
        }
        Ok(())
    }

    /// The label `v` has once this transaction commits (interned; the
    /// default label's id if none). The caller holds `v`'s lock.
    fn label_at_commit(&self, v: u32) -> u32 {
        match self.labels.get(&v) {
            Some(&l) => l,
            None if self.reset(v) => DEFAULT_LABEL_ID,
            None => self.store.props.latest_label(v).unwrap_or(DEFAULT_LABEL_ID),
        }
    }

    /// Refuses a NaN where an index would have to hold it. Indexes are
    /// created under the writers' gate, which a commit holds, so the set
    /// of indexes cannot change between this check and the apply.
    fn check_indexable(&self) -> Result<()> {
        let props = &self.store.props;
        for (&(v, key), w) in &self.props {
            if !w
                .value
                .as_ref()
                .is_some_and(|x| x.with(Value::contains_nan))
            {
                continue;
            }
            let label = self.label_at_commit(v);
            if props.is_indexed(label, key) {
                return Err(Error::NotIndexable {
                    vertex: self.store.ids.external(v),
                    label: props.labels.name(label).to_string(),
                    key: props.keys.name(key).to_string(),
                });
            }
        }
        Ok(())
    }

    /// Applies the net writes under the locks; returns the change in edge and
    /// vertex counts, and the inserts written blind (`blind.rs`), which it
    /// counts as new.
    fn apply(
        &self,
        locked: &mut Locked<'_, '_>,
        layers: &Layers,
        st: &Stamping,
    ) -> (i64, i64, Vec<(u32, u32)>) {
        let directed = self.store.opts.directed;
        let blind_inserts = self.store.opts.blind_inserts;
        let store = &*self.store;
        // A blind insert counts as new here even if it re-weights an edge
        // below; the sketch is an estimate either way.
        let sketch = store.sketches_degrees();
        let mut blind = Vec::new();
        let props = &self.store.props;
        let (mut d_edges, mut d_vertices) = (0i64, 0i64);
        for (&v, &w) in &self.vertices {
            if w != VertexWrite::Created && locked.get(v).life.alive() {
                d_edges -= remove_all_edges(locked, layers, v, directed, st);
                for (id, _) in props.edges.latest_of(v) {
                    props.apply_edge(&EdgeChange::Remove(id), st.ts, st.watermark);
                }
                locked.get(v).life.set(st.ts, false, st.watermark);
                props.apply(v, &Change::Clear, st.ts, st.watermark);
                d_vertices -= 1;
            }
        }
        for (&v, &w) in &self.vertices {
            if w != VertexWrite::Deleted && !locked.get(v).life.alive() {
                locked.get(v).life.set(st.ts, true, st.watermark);
                if let Some(&label) = self.labels.get(&v) {
                    props.apply(v, &Change::Label(label), st.ts, st.watermark);
                }
                d_vertices += 1;
            }
        }
        for (&(v, key), w) in self.ordered_props() {
            props.apply(
                v,
                &Change::Property(key, w.value.clone()),
                st.ts,
                st.watermark,
            );
        }
        if !(self.new_edges.is_empty()
            && self.removed_edges.is_empty()
            && self.edge_props.is_empty())
        {
            let (removed, added, set) = self.edge_changes_to_apply();
            for id in removed {
                props.apply_edge(&EdgeChange::Remove(id), st.ts, st.watermark);
            }
            props.add_edges(added, st.ts, st.watermark);
            for change in &set {
                props.apply_edge(change, st.ts, st.watermark);
            }
        }
        for (&(s, d), &w) in &self.edges {
            match w {
                Some(weight) => {
                    for v in [s, d] {
                        let life = &mut locked.get(v).life;
                        if !life.alive() {
                            life.set(st.ts, true, st.watermark);
                            d_vertices += 1;
                        }
                    }
                    let put = locked.get(s).out_mut().put(d, weight, st);
                    let effect =
                        edge_rules::settle(layers, s, d, Direction::Out, put, blind_inserts);
                    let new = edge_rules::counts_as_new(effect);
                    if effect == Effect::Fresh {
                        blind.push((s, d));
                    }
                    if new && sketch {
                        store.count_new_edge(s, d, st.ts);
                    }
                    if directed {
                        // A blind insert may re-weight an edge whose
                        // in-side copy is below: a second copy reads once.
                        if new {
                            locked.get(d).in_mut().put(s, 1.0, st);
                        }
                    } else if s != d {
                        locked.get(d).out_mut().put(s, weight, st);
                    }
                    d_edges += i64::from(new);
                }
                None => {
                    let effect = edge_rules::remove(
                        layers,
                        locked.get(s).out_mut(),
                        s,
                        d,
                        Direction::Out,
                        st,
                    );
                    if effect == Effect::Removed {
                        // The mirror is live too, maybe only below: bury.
                        if directed {
                            locked.get(d).in_mut().bury(s, st);
                        } else if s != d {
                            locked.get(d).out_mut().bury(s, st);
                        }
                        d_edges -= 1;
                    }
                }
            }
        }
        (d_edges, d_vertices, blind)
    }
}

/// Commits a logged transaction again during recovery (see `wal::recover`).
pub(crate) fn replay(
    store: &Arc<Store>,
    vertices: &[(VertexId, VertexWrite)],
    edges: &[(VertexId, VertexId, Option<f64>)],
    labels: &[(VertexId, String)],
    props: &[LoggedProp],
    edge_writes: &[EdgeWrite],
) -> Result<Timestamp> {
    let unknown = |v: VertexId| Error::VertexNotFound {
        op: Op::InsertVertex,
        vertex: v,
        at: BatchIndex(None),
    };
    let id = |v: VertexId| store.ids.lookup(v).ok_or_else(|| unknown(v));
    let mut tx = WriteTxn::unchecked(store.clone());
    for &(v, w) in vertices {
        tx.vertices.insert(id(v)?, w);
    }
    for &(s, d, w) in edges {
        tx.edges.insert((id(s)?, id(d)?), w);
    }
    for (v, label) in labels {
        let label = store.props.labels.intern(label);
        tx.labels.insert(id(*v)?, label);
    }
    for (v, key, value) in props {
        let key = store.props.keys.intern(key);
        tx.write_property(id(*v)?, key, value.clone().map(Stored::owned));
    }
    let edges = &store.props.edges;
    for w in edge_writes {
        match w {
            EdgeWrite::Add {
                id: e,
                src,
                dst,
                label,
            } => {
                let ends = Ends {
                    src: id(*src)?,
                    dst: id(*dst)?,
                    label: store.props.labels.intern(label),
                };
                let order = tx.prop_order;
                tx.prop_order += 1;
                tx.new_edge(*e, edges::NewEdge { ends, order });
            }
            EdgeWrite::Remove(e) => {
                if let Some(ends) = edges.latest(*e) {
                    tx.removed_edges.insert(*e, ends);
                }
            }
            EdgeWrite::Property(e, key, value) => {
                if let Some(ends) = edges.latest(*e) {
                    tx.old_edges.insert(*e, ends);
                }
                let key = store.props.keys.intern(key);
                tx.write_edge_property(*e, key, value.clone().map(Stored::owned));
            }
        }
    }
    tx.commit()
}

/// How many vertices ahead of the one it locks a large commit spread over
/// the graph starts loading a vertex's index entry (its slot half as far
/// ahead); a commit of at most this many vertices loads them all first.
const LOCK_AHEAD: usize = 16;

/// The vertex states a commit holds locked, by internal id.
struct Locked<'a, 's> {
    ids: &'a [u32],
    guards: &'a mut [SlotGuard<'s>],
}

impl Locked<'_, '_> {
    fn get(&mut self, v: u32) -> &mut VertexState {
        let i = self
            .ids
            .binary_search(&v)
            .expect("commit writes only vertices it locked");
        &mut self.guards[i]
    }
}

/// Deletes every edge of `v` (both directions); returns how many edges went.
/// Edges may live only in runs below the MemGraph, so every delete buries.
fn remove_all_edges(
    locked: &mut Locked<'_, '_>,
    layers: &Layers,
    v: u32,
    directed: bool,
    st: &Stamping,
) -> i64 {
    let mut removed = 0;
    let outs = edge_rules::latest_dsts(layers, &locked.get(v).out, v, Direction::Out);
    for d in outs {
        locked.get(v).out_mut().bury(d, st);
        if directed {
            locked.get(d).in_mut().bury(v, st);
        } else if d != v {
            locked.get(d).out_mut().bury(v, st);
        }
        removed += 1;
    }
    if directed {
        let ins = edge_rules::latest_dsts(layers, &locked.get(v).inn, v, Direction::In);
        for s in ins {
            locked.get(v).in_mut().bury(s, st);
            if s != v {
                locked.get(s).out_mut().bury(v, st);
                removed += 1;
            }
        }
    }
    removed
}

/// Checks one edge write's arguments (shared by transactions and batches).
pub(crate) fn check_edge(
    store: &Store,
    op: Op,
    src: VertexId,
    dst: VertexId,
    weight: f64,
    at: Option<usize>,
) -> Result<()> {
    if !weight.is_finite() {
        return Err(Error::InvalidWeight {
            op,
            src,
            dst,
            weight,
            at: BatchIndex(at),
        });
    }
    if src == dst && !store.opts.allow_self_loops {
        return Err(Error::SelfLoop {
            op,
            vertex: src,
            at: BatchIndex(at),
        });
    }
    Ok(())
}
