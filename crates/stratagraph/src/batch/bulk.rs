//! Bulk load: a large batch of edge inserts into a store that holds no edge
//! yet is written straight into the level its size calls for (parts of
//! whole index pages, one CSR per direction each), instead of going through
//! the MemGraph.
//!
//! Why: through the MemGraph, every vertex's list is built in a container of
//! its own under its lock, with about twice the bytes of a CSR; the first
//! flush then copies all of it into an L0 run, and compaction copies it
//! again into a level. Straight into the level, the batch is two counting
//! sorts by vertex (one per direction) and a copy of the columns, the
//! loaded graph is read at CSR speed at once, and neither compaction nor
//! `close` rewrites it.
//!
//! Why only into a store with no edge: every edge of the batch is then new,
//! so counting the added edges needs no look-up; and no version anywhere is
//! older than the load, which matters because reads take the MemGraph as
//! newer than every level: a level holding the batch's versions under older
//! MemGraph versions of the same edges would be read wrongly. Vertices may
//! exist already (a load often creates them first).
//!
//! The parts' entries carry no timestamps, though snapshots older than the
//! batch may be open: those hold the layers from before the load, and
//! `store::maintain::install_bulk_level` publishes the level and the batch's
//! timestamp together (see `Snapshot::open`).
//!
//! On disk the batch is not logged: its part files and the manifest naming
//! them (written before the call returns) are what makes it durable, as a
//! flush's are for the commits it holds. Logging it too would write every
//! edge twice more (the record, then the log kept until the next flush).

use crate::csr::{write_columns, Encoding, SegmentBytes};
use crate::direction::Direction;
use crate::error::Result;
use crate::error::VertexId;
use crate::lsm::layers::{FlushedRun, Level};
use crate::lsm::leveling::{self, Geometry};
use crate::lsm::LevelSink;
use crate::mem::{Bits, Fresh};
use crate::page::PAGE;
use crate::store::{maintain, Store};
use crate::util::bucket;
use crate::version::Timestamp;
use rayon::prelude::*;
use std::ops::Range;
use std::sync::Arc;

/// One direction of the load as columns (see `csr::write_columns`).
struct Columns {
    offsets: Vec<u32>,
    dsts: Vec<u32>,
    weights: Vec<f64>,
}

impl Columns {
    fn degree(&self, v: usize) -> u32 {
        self.offsets[v + 1] - self.offsets[v]
    }

    /// The segment of vertices `r` in this direction (the columns are read
    /// in place; only the offsets are rebased), compressed as `encoding`
    /// allows (`Encoding::level`).
    fn segment(&self, r: &Range<u32>, dir: Direction, encoding: Encoding) -> Result<SegmentBytes> {
        let (a, b) = (r.start as usize, r.end as usize);
        let (lo, hi) = (self.offsets[a], self.offsets[b]);
        let offsets: Vec<u32> = self.offsets[a..=b].iter().map(|&o| o - lo).collect();
        let (lo, hi) = (lo as usize, hi as usize);
        let weights = self.weights.get(lo..hi).unwrap_or(&[]);
        write_columns(
            r.start,
            r.end,
            dir,
            &offsets,
            &self.dsts[lo..hi],
            weights,
            encoding,
        )
    }
}

/// Whether a batch of `len` edges may be a bulk load, from what can be
/// read without the writers' gate (checked again under it).
pub(crate) fn may_apply(store: &Store, len: usize) -> bool {
    len >= store.opts.bulk_load_min_edges
        // Entry indices and an undirected run's offsets stay within u32.
        && len < (u32::MAX / 2) as usize
        && !store.recovering()
        && store.clock.edges() == 0
        && store.layers.read().is_empty()
}

/// Inserts `edges` (already validated; `weighted` if any weight is not
/// 1.0) as a bulk load if the store holds no edge version anywhere; `None`
/// (having changed nothing) if it does. `prepare` refuses a batch with a
/// missing endpoint (without auto-creation) and returns each edge's two
/// internal ids in batch order. See `batch::insert_edges` for what a
/// batch means.
pub(crate) fn insert_edges(
    store: &Store,
    edges: &[(VertexId, VertexId, f64)],
    weighted: bool,
    prepare: impl FnOnce() -> Result<Vec<u32>>,
) -> Option<Result<Timestamp>> {
    let _gate = store.writers.write();
    if let Err(e) = store.check_writable("insert_edges") {
        return Some(Err(e));
    }
    let _flushes = maintain::hold_flushes(store);
    if !store.layers.read().is_empty() || !store.par(|| mem_holds_no_edge(store)) {
        return None;
    }
    let done = load(store, edges, weighted, prepare);
    if let Ok(ts) = done {
        // Touching nearly every vertex: kept as touching them all.
        store.conflicts.record_batch(ts, || None);
        // With no older snapshot open, the load's existence layer goes
        // into the bits now rather than at the next flush's clean-up (this
        // holds the flushes, so no clean-up runs meanwhile).
        store
            .mem
            .fold_fresh(store.clock.watermark(), store.ids.bound());
    }
    Some(done)
}

/// Whether no vertex holds an edge version in the MemGraph. Clears the
/// dirty bit of every vertex it finds empty (a load often creates all
/// vertices first, which sets them), so reads of the loaded graph go
/// straight to the load. The caller holds the writers' gate exclusively.
fn mem_holds_no_edge(store: &Store) -> bool {
    let mem = &store.mem;
    (0..store.ids.bound()).into_par_iter().all(|v| {
        if !mem.may_hold(v) {
            return true;
        }
        let Some(st) = mem.lock_existing(v) else {
            return true;
        };
        let empty = st.out.is_empty() && st.inn.is_empty();
        if empty {
            mem.mark_clean(v);
        }
        empty
    })
}

/// The bulk load itself, under the gate (see `insert_edges`).
fn load(
    store: &Store,
    edges: &[(VertexId, VertexId, f64)],
    weighted: bool,
    prepare: impl FnOnce() -> Result<Vec<u32>>,
) -> Result<Timestamp> {
    let directed = store.opts.directed;
    let ids = prepare()?;
    let bound = store.ids.bound();
    let (out, inn) = store.par(|| build(&ids, edges, weighted, directed, bound));
    drop(ids);
    let added = if directed {
        out.dsts.len()
    } else {
        // Each edge is in both endpoints' lists; a self-loop in one.
        store.par(|| {
            (0..bound as usize)
                .into_par_iter()
                .map(|v| {
                    let r = out.offsets[v] as usize..out.offsets[v + 1] as usize;
                    out.dsts[r].iter().filter(|&&d| d as usize >= v).count()
                })
                .sum()
        })
    } as i64;
    let entries = (out.dsts.len() + inn.as_ref().map_or(0, |c| c.dsts.len())) as u64;
    // The parts are written (on disk: their files) before anything else
    // changes, so a failure here leaves the store as it was but for the ids
    // (and an empty commit, the ticket's).
    let ticket = store.clock.take();
    let st = store.stamping(ticket.ts())?;
    let geo = Geometry::of(&store.opts);
    let ranges = plan_parts(&out, inn.as_ref(), bound, geo.part());
    let parts = store.par(|| {
        ranges
            .par_iter()
            .map(|r| -> Result<Arc<FlushedRun>> {
                let code = Encoding::level(&store.opts);
                let out = out.segment(r, Direction::Out, code)?;
                let inn = inn
                    .as_ref()
                    .map(|c| c.segment(r, Direction::In, code))
                    .transpose()?;
                store.new_run(out, inn, ticket.ts())
            })
            .collect::<Result<Vec<_>>>()
    })?;
    // The level its size calls for, so no compaction rewrites it soon
    // (nor `close`, which wants one level).
    let mut levels = vec![Level::default(); geo.level_for(entries) + 1];
    if let Some(last) = levels.last_mut() {
        *last = leveling::level_of(parts)?;
    }
    // Existence of every endpoint at the batch's timestamp, so no snapshot
    // sees a vertex before it sees the edges that created it. A vertex
    // without a slot gets none: a layer of bits says it (`mem::Fresh`).
    let fresh = Fresh {
        ts: st.ts,
        bits: Bits::default(),
    };
    let created: i64 = store.par(|| {
        (0..bound)
            .into_par_iter()
            .filter(|&v| {
                let v = v as usize;
                out.degree(v) > 0 || inn.as_ref().is_some_and(|c| c.degree(v) > 0)
            })
            .map(|v| i64::from(store.mem.create(v, &st, Some(&fresh))))
            .sum()
    });
    store.mem.add_fresh(fresh);
    drop((out, inn));
    maintain::install_bulk_level(store, levels, ticket, (added, created), entries)
}

/// Vertex ranges of the parts of the loaded level: runs of whole index
/// pages holding about `part` entries (both directions), covering
/// `0..bound`.
fn plan_parts(out: &Columns, inn: Option<&Columns>, bound: u32, part: u64) -> Vec<Range<u32>> {
    let entries =
        |c: &Columns, a: u32, b: u32| u64::from(c.offsets[b as usize] - c.offsets[a as usize]);
    let mut plan = Vec::new();
    let (mut first, mut acc) = (0u32, 0u64);
    let mut page = 0u32;
    while page < bound {
        let end = page.saturating_add(PAGE).min(bound);
        acc += entries(out, page, end) + inn.map_or(0, |c| entries(c, page, end));
        if acc >= part || end == bound {
            plan.push(first..end);
            (first, acc) = (end, 0);
        }
        page = end;
    }
    plan
}

/// The load's columns: out-lists (all lists, undirected) with the last
/// write to each edge kept, and in-lists of a directed graph. `ids` holds
/// each edge's two internal ids in batch order.
fn build(
    ids: &[u32],
    edges: &[(VertexId, VertexId, f64)],
    weighted: bool,
    directed: bool,
    bound: u32,
) -> (Columns, Option<Columns>) {
    // Adjacency item k: edge k (directed), or for undirected graphs items
    // 2i and 2i + 1 are edge i and its mirror (a self-loop's mirror repeats
    // it, and goes with the repeats).
    let n = if directed { edges.len() } else { ids.len() };
    let owner = |k: usize| if directed { ids[2 * k] } else { ids[k] };
    let other = |k: usize| if directed { ids[2 * k + 1] } else { ids[k ^ 1] };
    let out = if weighted {
        // Other endpoint above, batch index below: sorting the packed
        // values puts the writes to one edge in batch order.
        let edge = |k: usize| if directed { k } else { k / 2 } as u64;
        let (mut packed, starts) =
            bucket::group_indexed(n, bound, owner, |k| u64::from(other(k)) << 32 | edge(k));
        sort_lists(&mut packed, &starts);
        let offsets = keep_last(&mut packed, &starts, |p| p >> 32);
        Columns {
            offsets,
            dsts: packed.par_iter().map(|&p| (p >> 32) as u32).collect(),
            weights: packed
                .par_iter()
                .map(|&p| edges[(p & u64::from(u32::MAX)) as usize].2)
                .collect(),
        }
    } else {
        let (mut dsts, starts) = bucket::group_indexed(n, bound, owner, other);
        sort_lists(&mut dsts, &starts);
        let offsets = keep_last(&mut dsts, &starts, |&d| d);
        Columns {
            offsets,
            dsts,
            weights: Vec::new(),
        }
    };
    let inn = directed.then(|| {
        let (srcs, starts) = bucket::transpose(&out.offsets, &out.dsts, bound);
        Columns {
            offsets: to_offsets(&starts),
            dsts: srcs,
            weights: Vec::new(),
        }
    });
    (out, inn)
}

/// Sorts each list `values[starts[v]..starts[v + 1]]`.
fn sort_lists<T: Ord + Send>(values: &mut [T], starts: &[usize]) {
    let mut lists = Vec::with_capacity(starts.len().saturating_sub(1));
    let mut rest = values;
    for w in starts.windows(2) {
        let (here, tail) = rest.split_at_mut(w[1] - w[0]);
        if here.len() > 1 {
            lists.push(here);
        }
        rest = tail;
    }
    lists.into_par_iter().for_each(|l| l.sort_unstable());
}

fn to_offsets(starts: &[usize]) -> Vec<u32> {
    starts.par_iter().map(|&s| s as u32).collect()
}

/// Keeps the last of each run of values with the same `key` in each sorted
/// list of `values` (cut at `starts`) and returns the offsets of what is
/// left. Without repeats (the common case) that is one parallel pass.
fn keep_last<T: Copy + Send + Sync, K: PartialEq>(
    values: &mut Vec<T>,
    starts: &[usize],
    key: impl Fn(&T) -> K + Sync,
) -> Vec<u32> {
    let repeat_in = |v: usize| {
        values[starts[v]..starts[v + 1]]
            .windows(2)
            .any(|w| key(&w[0]) == key(&w[1]))
    };
    let lists = starts.len().saturating_sub(1);
    if !(0..lists).into_par_iter().any(repeat_in) {
        return to_offsets(starts);
    }
    let mut offsets = Vec::with_capacity(starts.len());
    offsets.push(0u32);
    let mut kept = 0;
    for w in starts.windows(2) {
        for i in w[0]..w[1] {
            if i + 1 < w[1] && key(&values[i]) == key(&values[i + 1]) {
                continue;
            }
            values[kept] = values[i];
            kept += 1;
        }
        offsets.push(kept as u32);
    }
    values.truncate(kept);
    offsets
}
