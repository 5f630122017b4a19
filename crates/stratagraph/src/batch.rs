//! Batch writes: many edges at one timestamp, applied in parallel by vertex.
//!
//! LSGraph's recipe: sort the batch by source, give each source's run of
//! writes to one thread, and merge it into that vertex's adjacency in one
//! pass. A batch takes the writers' gate exclusively, so it needs no per-edge
//! locks and its validation and application see the same state; each vertex
//! lock is taken once, only to keep readers from seeing a half-merged run.

use crate::error::{BatchIndex, Error, Op, Result};
use crate::graph::Shared;
use crate::mem::{Effect, Stamping, Write};
use crate::txn::check_edge;
use crate::version::Timestamp;
use crate::VertexId;
use rayon::prelude::*;

/// One write to one adjacency list: (owner vertex, other endpoint, weight or delete).
type Item = (u32, u32, Option<f64>);

/// An `Item` with its position in the caller's batch (for last-wins dedup).
type Indexed = (u32, u32, Option<f64>, usize);

fn ids_exhausted(op: Op, vertex: VertexId) -> Error {
    Error::VertexIdsExhausted {
        op,
        vertex,
        limit: crate::ids::MAX_IDS,
    }
}

/// Sorts writes by (owner, other) and keeps the last write to each pair.
fn sort_dedup_last(items: &mut Vec<Indexed>) {
    items.par_sort_unstable_by_key(|&(a, b, _, i)| (a, b, i));
    let mut out = 0;
    for i in 0..items.len() {
        if i + 1 < items.len() && items[i + 1].0 == items[i].0 && items[i + 1].1 == items[i].1 {
            continue;
        }
        items[out] = items[i];
        out += 1;
    }
    items.truncate(out);
}

/// The adjacency writes of a batch: an undirected edge also writes its
/// mirror; sorted by owner, the last write to each pair kept.
fn adjacency_items(mut forward: Vec<Indexed>, directed: bool) -> Vec<Item> {
    if !directed {
        let mirrored: Vec<_> = forward
            .par_iter()
            .filter(|&&(s, d, _, _)| s != d)
            .map(|&(s, d, w, i)| (d, s, w, i))
            .collect();
        forward.extend(mirrored);
    }
    sort_dedup_last(&mut forward);
    forward.into_iter().map(|(s, d, w, _)| (s, d, w)).collect()
}

/// Applies sorted, deduplicated writes grouped by owner in parallel.
/// Returns (effects in item order, vertices created).
fn apply_grouped(
    shared: &Shared,
    items: &[Item],
    incoming: bool,
    st: &Stamping,
) -> (Vec<Effect>, i64) {
    let groups: Vec<&[Item]> = items.chunk_by(|a, b| a.0 == b.0).collect();
    let results: Vec<(Vec<Effect>, i64)> = groups
        .par_iter()
        .map(|group| {
            let owner = group[0].0;
            let writes: Vec<Write> = group
                .iter()
                .map(|&(_, dst, weight)| Write { dst, weight })
                .collect();
            let mut effects = Vec::with_capacity(writes.len());
            let mut state = shared.mem.lock(owner);
            let mut created = 0;
            if writes.iter().any(|w| w.weight.is_some()) && !state.life.alive() {
                state.life.set(st.ts, true, st.watermark);
                created = 1;
            }
            let set = if incoming {
                state.in_mut()
            } else {
                state.out_mut()
            };
            set.apply_sorted(&writes, st, &mut effects);
            (effects, created)
        })
        .collect();
    let created = results.iter().map(|r| r.1).sum();
    let effects = results.into_iter().flat_map(|r| r.0).collect();
    (effects, created)
}

/// The items of the reverse direction for the forward writes that took effect.
fn reverse_items(items: &[Item], effects: &[Effect], wanted: Effect) -> Vec<Item> {
    let mut rev: Vec<Item> = items
        .iter()
        .zip(effects)
        .filter(|(_, &e)| e == wanted)
        .map(|(&(s, d, w), _)| (d, s, w.map(|_| 1.0)))
        .collect();
    rev.par_sort_unstable_by_key(|&(a, b, _)| (a, b));
    rev
}

/// See [`crate::Graph::insert_edges`].
pub(crate) fn insert_edges(
    shared: &Shared,
    edges: &[(VertexId, VertexId, f64)],
) -> Result<Timestamp> {
    if let Some(e) = edges
        .par_iter()
        .enumerate()
        .find_map_first(|(i, &(s, d, w))| {
            check_edge(shared, Op::InsertEdge, s, d, w, Some(i)).err()
        })
    {
        return Err(e);
    }
    let interned: Vec<Result<Indexed>> = edges
        .par_iter()
        .enumerate()
        .map(|(i, &(s, d, w))| {
            let si = shared
                .ids
                .intern(s)
                .ok_or_else(|| ids_exhausted(Op::InsertEdge, s))?;
            let di = shared
                .ids
                .intern(d)
                .ok_or_else(|| ids_exhausted(Op::InsertEdge, d))?;
            Ok((si, di, Some(w), i))
        })
        .collect();
    let interned: Vec<_> = interned.into_iter().collect::<Result<_>>()?;
    let directed = shared.opts.directed;
    let items = adjacency_items(interned, directed);
    let _gate = shared.writers.write();
    if !shared.opts.auto_create_vertices {
        let alive = |v: VertexId| {
            shared
                .ids
                .lookup(v)
                .and_then(|id| shared.mem.read(id, |st| st.life.alive()))
                == Some(true)
        };
        if let Some(i) = edges
            .par_iter()
            .position_first(|&(s, d, _)| !alive(s) || !alive(d))
        {
            let (s, d, _) = edges[i];
            return Err(Error::VertexNotFound {
                op: Op::InsertEdge,
                vertex: if alive(s) { d } else { s },
                at: BatchIndex(Some(i)),
            });
        }
    }
    let ticket = shared.clock.take();
    let st = shared.stamping(ticket.ts())?;
    let (effects, mut created) = apply_grouped(shared, &items, false, &st);
    let added = items
        .iter()
        .zip(&effects)
        .filter(|(&(s, d, _), &e)| e == Effect::Added && (directed || s <= d))
        .count() as i64;
    if directed {
        let rev = reverse_items(&items, &effects, Effect::Added);
        created += apply_grouped(shared, &rev, true, &st).1;
    }
    Ok(ticket.publish(added, created))
}

/// See [`crate::Graph::delete_edges`].
pub(crate) fn delete_edges(shared: &Shared, edges: &[(VertexId, VertexId)]) -> Result<Timestamp> {
    let not_found = |i: usize| Error::EdgeNotFound {
        op: Op::DeleteEdge,
        src: edges[i].0,
        dst: edges[i].1,
        at: BatchIndex(Some(i)),
    };
    let _gate = shared.writers.write();
    // Resolve in parallel, then report the *first* missing edge (rayon's
    // `collect::<Result>` would return an arbitrary one).
    let resolved: Vec<Option<Indexed>> = edges
        .par_iter()
        .enumerate()
        .map(|(i, &(s, d))| {
            let si = shared.ids.lookup(s)?;
            let di = shared.ids.lookup(d)?;
            shared
                .mem
                .read(si, |st| st.out.as_ref().and_then(|o| o.latest(di)))
                .flatten()
                .map(|_| (si, di, None, i))
        })
        .collect();
    if let Some(i) = resolved.iter().position(Option::is_none) {
        return Err(not_found(i));
    }
    let resolved: Vec<_> = resolved.into_iter().flatten().collect();
    let directed = shared.opts.directed;
    let items = adjacency_items(resolved, directed);
    let ticket = shared.clock.take();
    let st = shared.stamping(ticket.ts())?;
    let (effects, _) = apply_grouped(shared, &items, false, &st);
    let removed = items
        .iter()
        .zip(&effects)
        .filter(|(&(s, d, _), &e)| e == Effect::Removed && (directed || s <= d))
        .count() as i64;
    if directed {
        let rev = reverse_items(&items, &effects, Effect::Removed);
        apply_grouped(shared, &rev, true, &st);
    }
    Ok(ticket.publish(-removed, 0))
}

/// See [`crate::Graph::insert_vertices`].
pub(crate) fn insert_vertices(shared: &Shared, vertices: &[VertexId]) -> Result<Timestamp> {
    let ids: Vec<Result<u32>> = vertices
        .par_iter()
        .map(|&v| {
            shared
                .ids
                .intern(v)
                .ok_or_else(|| ids_exhausted(Op::InsertVertex, v))
        })
        .collect();
    let mut ids: Vec<u32> = ids.into_iter().collect::<Result<_>>()?;
    ids.par_sort_unstable();
    ids.dedup();
    let _gate = shared.writers.write();
    let ticket = shared.clock.take();
    let st = shared.stamping(ticket.ts())?;
    let created: i64 = ids
        .par_iter()
        .map(|&v| {
            let mut state = shared.mem.lock(v);
            if state.life.alive() {
                0
            } else {
                state.life.set(st.ts, true, st.watermark);
                1
            }
        })
        .sum();
    Ok(ticket.publish(0, created))
}
