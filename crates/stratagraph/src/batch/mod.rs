//! Batch writes: many edges at one timestamp, applied in parallel by vertex.
//!
//! LSGraph's recipe: sort the batch by source, give each source's run of
//! writes to one thread, and merge it into that vertex's adjacency in one
//! pass. A batch takes the writers' gate exclusively, so it needs no per-edge
//! locks and its validation and application see the same state; each vertex
//! lock is taken once, only to keep readers from seeing a half-merged run.

mod bulk;

use crate::direction::Direction;
use crate::edge_rules;
use crate::error::VertexId;
use crate::error::{BatchIndex, Error, Op, Result};
use crate::lsm::layers::Layers;
use crate::mem::{Bits, Effect, Fresh, Stamping, Write};
use crate::store::maintain;
use crate::store::Store;
use crate::txn::check_edge;
use crate::util::bucket;
use crate::version::Timestamp;
use crate::wal::record;
use rayon::prelude::*;
use std::sync::Arc;

/// One write to one adjacency list: (owner vertex, other endpoint, weight or delete).
type Item = (u32, u32, Option<f64>);

/// Batches of at most this many edges (or vertices) run on the caller's
/// thread. Handing work to the pool costs a wake-up and a wait on each
/// side, tens of microseconds per phase, where applying a handful of
/// writes takes a few; and rayon's sorts run sequentially below 2000
/// items anyway, which an undirected batch of this size stays within.
const SMALL_BATCH: usize = 1000;

/// Vertices an `insert_vertices` batch creates from which those without a
/// slot are set in a layer of bits instead of taking one (`mem::Fresh`):
/// a layer costs a read of the vertices without a slot a look at it until
/// the next clean-up folds it, so small batches do not make one each.
const FRESH_LAYER_FROM: usize = 1 << 14;

/// How a batch's phases run: `grain` is the fewest items a parallel task
/// may take. A small batch sets it to "never split", so every parallel
/// iterator runs inline on the calling thread (rayon only involves its
/// pool when it splits work).
#[derive(Clone, Copy)]
struct Mode {
    grain: usize,
}

impl Mode {
    fn of(len: usize) -> Mode {
        Mode {
            grain: if len <= SMALL_BATCH { usize::MAX } else { 1 },
        }
    }

    fn small(self) -> bool {
        self.grain == usize::MAX
    }

    /// `f` on the store's pool, or right here for a small batch.
    fn run<R: Send>(self, store: &Store, f: impl FnOnce() -> R + Send) -> R {
        if self.small() {
            f()
        } else {
            store.par(f)
        }
    }
}

/// Sort key of an item: owner, then other endpoint, in one integer compare.
fn key(&(owner, other, _): &Item) -> u64 {
    (u64::from(owner) << 32) | u64::from(other)
}

fn ids_exhausted(store: &Store, op: Op, vertex: VertexId) -> Error {
    Error::VertexIdsExhausted {
        op,
        vertex,
        limit: store.ids.cap(),
    }
}

/// Internal ids of the external ids `ext(0..n)`. Known ids are looked up in
/// parallel; new ones are assigned sequentially in batch order, so a batch
/// hands out ids exactly as the same writes one by one would (first sight),
/// whatever the thread count.
fn intern_in_order(
    store: &Store,
    mode: Mode,
    op: Op,
    n: usize,
    ext: impl Fn(usize) -> VertexId + Sync,
) -> Result<Vec<u32>> {
    // u32::MAX is never assigned (see `ids::MAX_IDS`), so it marks "new".
    let mut ids: Vec<u32> = (0..n)
        .into_par_iter()
        .with_min_len(mode.grain)
        .map(|k| store.ids.lookup(ext(k)).unwrap_or(u32::MAX))
        .collect();
    // Most batches name only known vertices: one parallel look settles it.
    if !ids
        .par_iter()
        .with_min_len(mode.grain)
        .any(|&id| id == u32::MAX)
    {
        return Ok(ids);
    }
    for (k, id) in ids.iter_mut().enumerate() {
        if *id == u32::MAX {
            let v = ext(k);
            store.check_vertex_id(v)?;
            *id = store
                .ids
                .intern(v)
                .ok_or_else(|| ids_exhausted(store, op, v))?;
        }
    }
    Ok(ids)
}

/// Whether a counting sort by owner beats a comparison sort: when the batch
/// is not much smaller than the id space its histogram spans (and is not
/// a small batch, which a sequential sort handles best).
fn dense(mode: Mode, items: usize, bound: u32) -> bool {
    !mode.small() && items as u64 * 2 >= u64::from(bound)
}

/// Sorts writes by (owner, other) and keeps the last write to each pair.
/// Both sorts are stable, so "last" is the caller's batch order.
fn sort_dedup_last(mode: Mode, items: &mut Vec<Item>, bound: u32) {
    if dense(mode, items.len(), bound) {
        let mut grouped = bucket::group_by_owner(items, bound, |it| it.0);
        grouped
            .par_chunk_by_mut(|a, b| a.0 == b.0)
            .for_each(|g| g.sort_by_key(|it| it.1));
        *items = grouped;
    } else {
        items.par_sort_by_key(key);
    }
    let mut out = 0;
    for i in 0..items.len() {
        if i + 1 < items.len() && key(&items[i + 1]) == key(&items[i]) {
            continue;
        }
        items[out] = items[i];
        out += 1;
    }
    items.truncate(out);
}

/// The adjacency writes of a batch: an undirected edge also writes its
/// mirror; sorted by owner, the last write to each pair kept.
fn adjacency_items(mode: Mode, mut forward: Vec<Item>, directed: bool, bound: u32) -> Vec<Item> {
    if !directed {
        // Each mirror directly follows its edge, so batch order is kept.
        forward = forward
            .par_iter()
            .with_min_len(mode.grain)
            .flat_map_iter(|&(s, d, w)| {
                std::iter::once((s, d, w)).chain((s != d).then_some((d, s, w)))
            })
            .collect();
    }
    sort_dedup_last(mode, &mut forward, bound);
    forward
}

/// How `apply_grouped` treats the levels below the MemGraph.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Below {
    /// Deletes look below (an edge that lives only there is buried); an
    /// insert the MemGraph held no version of is settled at once
    /// (`edge_rules::settle`): `Added` or `Updated`.
    Settle,
    /// Deletes look below; such inserts stay `Fresh`: written blind, or
    /// on a side whose effects count nothing.
    Blind,
    /// Every write is a delete known to be live (the mirror side of deletes
    /// that took effect): buried without a look-up.
    Bury,
}

/// Applies sorted, deduplicated writes grouped by owner in parallel.
/// Returns (effects in item order, vertices created).
fn apply_grouped(
    store: &Store,
    mode: Mode,
    layers: &Layers,
    items: &[Item],
    side: Direction,
    below: Below,
    st: &Stamping,
) -> (Vec<Effect>, i64) {
    let bury = below == Below::Bury;
    let groups: Vec<&[Item]> = items.chunk_by(|a, b| a.0 == b.0).collect();
    // Each task keeps one effects list and one scratch list of writes for
    // all the vertices it applies: a batch of 10,000 edges over a large
    // graph touches about as many vertices, and two allocations a vertex
    // were a fifth of its time.
    // The vertices' index entries and slots are loaded a few groups ahead
    // of their locks, so their misses overlap (see `util::prefetch`).
    let ahead = |i: usize, by: usize| groups.get(i + by).map(|g| g[0].0);
    let results: Vec<(Vec<Effect>, i64)> = groups
        .par_iter()
        .enumerate()
        .with_min_len(mode.grain)
        .fold(
            || (Vec::new(), 0, Vec::new()),
            |(mut effects, mut created, mut writes): (Vec<Effect>, i64, Vec<Write>), (i, group)| {
                if let Some(v) = ahead(i, 16) {
                    store.mem.prefetch_entry(v);
                }
                if let Some(v) = ahead(i, 8) {
                    store.mem.prefetch(v);
                }
                let owner = group[0].0;
                writes.clear();
                writes.extend(group.iter().map(|&(_, dst, weight)| Write {
                    dst,
                    weight,
                    below: bury && weight.is_none(),
                }));
                let start = effects.len();
                let mut state = store.mem.lock(owner);
                store.mem.note_write(&state, owner, st.ts);
                if writes.iter().any(|w| w.weight.is_some()) && !state.life.alive() {
                    state.life.set(st.ts, true, st.watermark);
                    created += 1;
                }
                let set = state.set_mut(side);
                if !layers.is_empty() && !bury {
                    for w in writes.iter_mut().filter(|w| w.weight.is_none()) {
                        w.below = edge_rules::live_only_below(layers, set, owner, w.dst, side);
                    }
                }
                set.apply_sorted(&writes, st, &mut effects);
                drop(state);
                for (e, w) in effects[start..].iter_mut().zip(&writes) {
                    *e = edge_rules::settle(layers, owner, w.dst, side, *e, below != Below::Settle);
                }
                (effects, created, writes)
            },
        )
        .map(|(effects, created, _)| (effects, created))
        .collect();
    let created = results.iter().map(|r| r.1).sum();
    let effects = results
        .into_iter()
        .map(|r| r.0)
        .collect::<Vec<_>>()
        .concat();
    (effects, created)
}

/// The items of the reverse direction for the forward writes that took effect,
/// sorted by (owner, other).
fn reverse_items(
    mode: Mode,
    items: &[Item],
    effects: &[Effect],
    wanted: impl Fn(Effect) -> bool + Sync,
    bound: u32,
) -> Vec<Item> {
    let rev: Vec<Item> = items
        .par_iter()
        .zip(effects)
        .with_min_len(mode.grain)
        .filter(|(_, &e)| wanted(e))
        .map(|(&(s, d, w), _)| (d, s, w.map(|_| 1.0)))
        .collect();
    if dense(mode, rev.len(), bound) {
        // The forward items are sorted by (s, d), so grouping (d, s) stably
        // by d leaves each group sorted by s: no second sort needed.
        bucket::group_by_owner(&rev, bound, |it| it.0)
    } else {
        let mut rev = rev;
        // Pairs are unique here, so an unstable sort is exact.
        rev.par_sort_unstable_by_key(key);
        rev
    }
}

/// See [`crate::Graph::insert_edges`]. Returns the batch's timestamp and
/// how many edge versions it wrote to the MemGraph (none for a bulk load),
/// which count towards its budget.
///
/// The parallel phases run on the store's pool (`Store::par`) while the
/// writers' gate is taken on the calling thread between them: a pool worker
/// that blocked on the gate could be the one its holder waits for (rayon
/// workers run queued jobs while they wait), which would deadlock.
pub(crate) fn insert_edges(
    store: &Store,
    edges: &[(VertexId, VertexId, f64)],
) -> Result<(Timestamp, usize)> {
    check_log(store, "insert_edges")?;
    let directed = store.opts.directed;
    let mode = Mode::of(edges.len());
    let weighted = mode.run(store, || check_edges(store, mode, edges))?;
    let intern = || {
        intern_in_order(store, mode, Op::InsertEdge, 2 * edges.len(), |k| {
            let e = &edges[k / 2];
            if k % 2 == 0 {
                e.0
            } else {
                e.1
            }
        })
    };
    if bulk::may_apply(store, edges.len()) {
        let prepare = || {
            if !store.opts.auto_create_vertices {
                store.par(|| check_endpoints_alive(store, mode, edges))?;
            }
            store.par(intern)
        };
        if let Some(done) = bulk::insert_edges(store, edges, weighted, prepare) {
            return done.map(|ts| (ts, 0));
        }
    }
    let items = mode.run(store, || -> Result<Vec<Item>> {
        let ids = intern()?;
        let interned: Vec<Item> = edges
            .par_iter()
            .enumerate()
            .with_min_len(mode.grain)
            .map(|(i, &(_, _, w))| (ids[2 * i], ids[2 * i + 1], Some(w)))
            .collect();
        Ok(adjacency_items(mode, interned, directed, store.ids.bound()))
    })?;
    let _gate = store.writers.write();
    store.check_writable("insert_edges")?;
    if !store.opts.auto_create_vertices {
        mode.run(store, || check_endpoints_alive(store, mode, edges))?;
    }
    let layers = store.layers.read().clone();
    let ticket = store.clock.take();
    let st = store.stamping(ticket.ts())?;
    let below = if store.opts.blind_inserts {
        Below::Blind
    } else {
        Below::Settle
    };
    let (added, created) = mode.run(store, || {
        let (effects, mut created) =
            apply_grouped(store, mode, &layers, &items, Direction::Out, below, &st);
        let counted = |&(s, d, _): &Item| directed || s <= d;
        let added = items
            .iter()
            .zip(&effects)
            .filter(|(it, &e)| edge_rules::counts_as_new(e) && counted(it))
            .count() as i64;
        // Before `ts` is published, so a snapshot that sees it finds them.
        let fresh: Vec<(u32, u32)> = items
            .iter()
            .zip(&effects)
            .filter(|(it, &e)| e == Effect::Fresh && counted(it))
            .map(|(&(s, d, _), _)| (s, d))
            .collect();
        store.blind.record(st.ts, &fresh);
        if store.sketches_degrees() {
            for (&(s, d, _), _) in items
                .iter()
                .zip(&effects)
                .filter(|(it, &e)| edge_rules::counts_as_new(e) && counted(it))
            {
                store.count_new_edge(s, d, st.ts);
            }
        }
        if directed {
            // A blind insert may re-weight an edge whose in-side copy is
            // below: a second copy reads once. The in-side's effects count
            // nothing, so they are never settled against the levels.
            let rev = reverse_items(
                mode,
                &items,
                &effects,
                edge_rules::counts_as_new,
                store.ids.bound(),
            );
            let side = Direction::In;
            created += apply_grouped(store, mode, &layers, &rev, side, Below::Blind, &st).1;
        }
        (added, created)
    });
    let durable = log_batch(store, ticket.ts(), |b, ts| {
        record::encode_insert_edges(b, ts, edges)
    });
    let ts = ticket.settle(durable, added, created)?;
    note_batch(store, mode, ts, &items);
    Ok((ts, 2 * edges.len()))
}

/// Refuses the batch at its first edge with a bad weight or a refused
/// self-loop; otherwise says whether any weight differs from 1.0 (a bulk
/// load then keeps a weight column). One pass over the batch for both.
fn check_edges(store: &Store, mode: Mode, edges: &[(VertexId, VertexId, f64)]) -> Result<bool> {
    let check = |i: usize| {
        let (s, d, w) = edges[i];
        check_edge(store, Op::InsertEdge, s, d, w, Some(i))
    };
    let (first_bad, weighted) = (0..edges.len())
        .into_par_iter()
        .with_min_len(mode.grain)
        .map(|i| (check(i).err().map(|_| i), edges[i].2 != 1.0))
        .reduce(|| (None, false), |a, b| (a.0.or(b.0), a.1 || b.1));
    match first_bad {
        Some(i) => check(i).map(|()| weighted),
        None => Ok(weighted),
    }
}

/// Without auto-creation: refuses the batch at its first edge with a
/// missing endpoint.
fn check_endpoints_alive(
    store: &Store,
    mode: Mode,
    edges: &[(VertexId, VertexId, f64)],
) -> Result<()> {
    let alive = |v: VertexId| store.ids.lookup(v).is_some_and(|id| store.mem.alive(id));
    match edges
        .par_iter()
        .with_min_len(mode.grain)
        .position_first(|&(s, d, _)| !alive(s) || !alive(d))
    {
        Some(i) => {
            let (s, d, _) = edges[i];
            Err(Error::VertexNotFound {
                op: Op::InsertEdge,
                vertex: if alive(s) { d } else { s },
                at: BatchIndex(Some(i)),
            })
        }
        None => Ok(()),
    }
}

/// Appends a batch's log record and waits until it is durable (a no-op in
/// memory). The caller holds the writers' gate exclusively, so the record
/// follows every earlier commit's in the log.
pub(crate) fn log_batch(
    store: &Store,
    ts: Timestamp,
    encode: impl FnOnce(&mut Vec<u8>, u64),
) -> Result<()> {
    match store.log() {
        Some(log) => log.wait(log.append(ts, |b| encode(b, ts))),
        None => Ok(()),
    }
}

/// Refuses a batch up front once the store is closed or its log has
/// failed (both are checked again under the writers' gate).
pub(crate) fn check_log(store: &Store, op: &'static str) -> Result<()> {
    store.check_writable(op)?;
    store.log().map_or(Ok(()), |log| log.check())
}

/// See [`crate::Graph::delete_edges`] (and `insert_edges` for the gate).
pub(crate) fn delete_edges(store: &Store, edges: &[(VertexId, VertexId)]) -> Result<Timestamp> {
    check_log(store, "delete_edges")?;
    let not_found = |i: usize| Error::EdgeNotFound {
        op: Op::DeleteEdge,
        src: edges[i].0,
        dst: edges[i].1,
        at: BatchIndex(Some(i)),
    };
    let directed = store.opts.directed;
    let mode = Mode::of(edges.len());
    let _gate = store.writers.write();
    store.check_writable("delete_edges")?;
    let layers = store.layers.read().clone();
    let items = mode.run(store, || {
        // Resolve in parallel, then report the *first* missing edge (rayon's
        // `collect::<Result>` would return an arbitrary one).
        let resolved: Vec<Option<Item>> = edges
            .par_iter()
            .with_min_len(mode.grain)
            .map(|&(s, d)| {
                let si = store.ids.lookup(s)?;
                let di = store.ids.lookup(d)?;
                store
                    .mem
                    .read_or_empty(si, |st| {
                        edge_rules::latest(&layers, &st.out, si, di, Direction::Out)
                    })
                    .map(|_| (si, di, None))
            })
            .collect();
        if let Some(i) = resolved.iter().position(Option::is_none) {
            return Err(not_found(i));
        }
        let resolved: Vec<_> = resolved.into_iter().flatten().collect();
        Ok(adjacency_items(mode, resolved, directed, store.ids.bound()))
    })?;
    let ticket = store.clock.take();
    let st = store.stamping(ticket.ts())?;
    let removed = mode.run(store, || {
        let (effects, _) = apply_grouped(
            store,
            mode,
            &layers,
            &items,
            Direction::Out,
            Below::Blind,
            &st,
        );
        let removed = items
            .iter()
            .zip(&effects)
            .filter(|(&(s, d, _), &e)| e == Effect::Removed && (directed || s <= d))
            .count() as i64;
        if directed {
            let removed = |e| e == Effect::Removed;
            let rev = reverse_items(mode, &items, &effects, removed, store.ids.bound());
            apply_grouped(store, mode, &layers, &rev, Direction::In, Below::Bury, &st);
        }
        removed
    });
    let durable = log_batch(store, ticket.ts(), |b, ts| {
        record::encode_delete_edges(b, ts, edges)
    });
    let ts = ticket.settle(durable, -removed, 0)?;
    note_batch(store, mode, ts, &items);
    Ok(ts)
}

/// See [`crate::Graph::insert_vertices`] (and `insert_edges` for the gate).
pub(crate) fn insert_vertices(store: &Store, vertices: &[VertexId]) -> Result<Timestamp> {
    check_log(store, "insert_vertices")?;
    let mode = Mode::of(vertices.len());
    let ids = mode.run(store, || -> Result<Vec<u32>> {
        let mut ids = intern_in_order(store, mode, Op::InsertVertex, vertices.len(), |k| {
            vertices[k]
        })?;
        ids.par_sort_unstable();
        ids.dedup();
        Ok(ids)
    })?;
    let _gate = store.writers.write();
    store.check_writable("insert_vertices")?;
    let ticket = store.clock.take();
    let st = store.stamping(ticket.ts())?;
    // Many vertices at once take no slots: a layer of bits at the batch's
    // timestamp says they exist (`mem::Fresh`), as for a bulk load.
    let fresh = (ids.len() >= FRESH_LAYER_FROM).then(|| Fresh {
        ts: st.ts,
        bits: Bits::default(),
    });
    let created: i64 = mode.run(store, || {
        ids.par_iter()
            .with_min_len(mode.grain)
            .map(|&v| i64::from(store.mem.create(v, &st, fresh.as_ref())))
            .sum()
    });
    let fresh_layer = fresh.is_some();
    if let Some(fresh) = fresh {
        store.mem.add_fresh(fresh);
    }
    let durable = log_batch(store, ticket.ts(), |b, ts| {
        record::encode_insert_vertices(b, ts, vertices)
    });
    let ts = ticket.settle(durable, 0, created)?;
    store.conflicts.record_batch(ts, || Some(Arc::from(ids)));
    if fresh_layer {
        maintain::fold_existence(store);
    }
    Ok(ts)
}

/// Tells transactions that read an older snapshot which vertices the batch
/// at `ts` wrote, if any such transaction may be open (`conflict.rs`).
/// Called after publication, still under the writers' gate.
fn note_batch(store: &Store, mode: Mode, ts: Timestamp, items: &[Item]) {
    store.conflicts.record_batch(ts, || {
        let mut touched: Vec<u32> = items.iter().flat_map(|&(s, d, _)| [s, d]).collect();
        mode.run(store, || touched.par_sort_unstable());
        touched.dedup();
        Some(Arc::from(touched))
    });
}

#[cfg(test)]
mod tests {
    use crate::{Graph, Options};

    #[test]
    fn batches_assign_internal_ids_in_first_sight_order() {
        let opts = Options {
            threads: 4,
            ..Options::default()
        };
        let g = Graph::in_memory(opts);
        let vertices: Vec<u64> = (0..50_000).map(|i| i * 7 % 50_000 + 1000).collect();
        g.insert_vertices(&vertices).unwrap();
        let edges: Vec<(u64, u64, f64)> = (0..50_000u64)
            .map(|i| (i * 3 % 50_000 + 1000, i + 1_000_000, 1.0))
            .collect();
        g.insert_edges(&edges).unwrap();
        let s = g.snapshot();
        for (i, &v) in vertices.iter().enumerate() {
            assert_eq!(s.internal_id(v), Some(i as u32));
        }
        // Sources are all known; destinations are new, in edge order.
        for (i, &(_, d, _)) in edges.iter().enumerate() {
            assert_eq!(s.internal_id(d), Some((50_000 + i) as u32));
        }
    }
}
