//! Runs of hops between plain vertices, walked as frontiers.
//!
//! A traverser that carries no path, step label, sack or loop counter is
//! told apart from another only by its vertex. Over a run of `out()`,
//! `in()`, `both()` and filters on the vertex, such traversers are walked as a frontier: each vertex once, with the number of
//! traversers on it, and each hop adds a vertex's number to every vertex
//! its edges lead to (a sparse vector times the adjacency matrix), by
//! internal id, with no traverser built until the run ends. The ordinary
//! executor merges equal traversers too (`run::lazy_merge`), but only in
//! windows and after building a traverser per edge walked; on a graph
//! with hubs that is most of a multi-hop query's time.
//! `repeat(...).times(k)` over such a body is the body k times.
//!
//! Every step of a frontier acts on each traverser alone, so traversers
//! a frontier cannot take (with a path or step
//! labels, a sack, loop counters; or all of them in a traversal that
//! writes, which reads its own writes through a transaction) run the same
//! steps the ordinary way beside it, and the choice shows only in the
//! order of results: a frontier lists vertices in the order it first
//! reached them. A plain `dedup()` right after the run is taken in too:
//! what comes out of a run is vertices, so one set of the vertices
//! already let out serves both kinds of traverser, across windows.

use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};
use stratagraph::Snapshot;

use super::plan::{HasTest, Op, Plan};
use super::run::{self, Stream};
use super::{Ctx, Traverser};
use crate::ast::DirectionToken;
use crate::error::Result;
use crate::value::GValue;

/// A run of steps walked as a frontier.
#[derive(Debug, Clone)]
pub(crate) struct Frontier {
    pub steps: Vec<FStep>,
    /// Whether a `dedup()` follows: each vertex leaves once, with bulk 1.
    pub dedup: bool,
    /// The steps as ordinary ops, for traversers a frontier cannot take.
    pub each: Plan,
    /// The steps and the `dedup()` as ordinary ops, for a stream a
    /// frontier cannot take at all.
    pub fallback: Plan,
}

/// One step of a frontier.
#[derive(Debug, Clone)]
pub(crate) enum FStep {
    /// `out(labels...)`, `in(...)`, `both(...)` to vertices.
    Hop {
        dir: DirectionToken,
        labels: Vec<Arc<str>>,
    },
    /// A `has...` test of the vertex alone.
    Has(HasTest),
}

impl FStep {
    fn op(&self) -> Op {
        match self {
            FStep::Hop { dir, labels } => Op::Adjacent {
                dir: *dir,
                labels: labels.clone(),
                edges: false,
            },
            FStep::Has(t) => Op::Has(t.clone()),
        }
    }
}

/// How many passes of a `repeat(...).times(k)` are unrolled into a
/// frontier at most: a longer loop keeps its own step.
const MAX_UNROLLED: u64 = 64;

/// The frontier steps `op` stands for, if it can be walked as one.
fn steps_of(op: &Op) -> Option<Vec<FStep>> {
    Some(match op {
        Op::Adjacent {
            dir,
            labels,
            edges: false,
        } => vec![FStep::Hop {
            dir: *dir,
            labels: labels.clone(),
        }],
        Op::Has(t) if !matches!(t, HasTest::PropertyTrav { .. }) => vec![FStep::Has(t.clone())],
        Op::Frontier(f) => f.steps.clone(),
        // `repeat(body).times(k)` with `times` after the repeat runs the
        // body max(k, 1) times; nothing in such a body reads the loop
        // counter, so the passes can be written out.
        Op::Repeat(r)
            if r.until.is_none()
                && r.emit.is_none()
                && !r.until_first
                && r.times.is_some_and(|k| k <= MAX_UNROLLED) =>
        {
            let body: Option<Vec<Vec<FStep>>> = r.body.ops.iter().map(steps_of).collect();
            let body: Vec<FStep> = body?.into_iter().flatten().collect();
            let k = r.times.unwrap_or(1).max(1);
            (0..k).flat_map(|_| body.iter().cloned()).collect()
        }
        _ => return None,
    })
}

fn hops(steps: &[FStep]) -> usize {
    steps
        .iter()
        .filter(|s| matches!(s, FStep::Hop { .. }))
        .count()
}

/// Replaces each run of ops a frontier can walk, of two hops or more, by
/// one [`Op::Frontier`]. A run followed by a global `count()` leaves its
/// last hop to [`Op::AdjacentCount`], which counts edges without walking
/// them.
pub(crate) fn form(ops: Vec<Op>) -> Vec<Op> {
    let mut out: Vec<Op> = Vec::with_capacity(ops.len());
    let mut run: Vec<Op> = Vec::new();
    let mut ops = ops.into_iter().peekable();
    while let Some(op) = ops.next() {
        if steps_of(&op).is_some() {
            run.push(op);
            let continues = ops.peek().is_some_and(|n| steps_of(n).is_some());
            if continues {
                continue;
            }
            close(&mut out, std::mem::take(&mut run), &mut ops);
        } else {
            out.push(op);
        }
    }
    out
}

/// Ends a run: a frontier if it has hops enough, else its ops as they were.
fn close(out: &mut Vec<Op>, run: Vec<Op>, rest: &mut std::iter::Peekable<std::vec::IntoIter<Op>>) {
    let mut steps: Vec<FStep> = run.iter().filter_map(steps_of).flatten().collect();
    if hops(&steps) < 2 {
        out.extend(run);
        return;
    }
    let dedup = matches!(
        rest.peek(),
        Some(Op::Dedup { local: false, labels, by: None }) if labels.is_empty()
    );
    if dedup {
        rest.next();
    }
    let mut count = None;
    if !dedup && matches!(rest.peek(), Some(Op::Count { local: false })) {
        if let Some(FStep::Hop { dir, labels }) = steps.last() {
            count = Some(Op::AdjacentCount {
                dir: *dir,
                labels: labels.clone(),
            });
            steps.pop();
        }
    }
    let each = Plan {
        ops: steps.iter().map(FStep::op).collect(),
    };
    let mut fallback = each.clone();
    if dedup {
        fallback.ops.push(Op::Dedup {
            local: false,
            labels: Vec::new(),
            by: None,
        });
    }
    out.push(Op::Frontier(Box::new(Frontier {
        steps,
        dedup,
        each,
        fallback,
    })));
    if let Some(c) = count {
        rest.next();
        out.push(c);
    }
}

/// Runs `f` over `input`, a window of traversers at a time.
pub(crate) fn walk<'a>(ctx: &'a Ctx, f: &'a Frontier, input: Stream<'a>) -> Stream<'a> {
    let Some(snap) = ctx.db.snapshot() else {
        return run::run(ctx, &f.fallback, input);
    };
    if ctx.track_paths || ctx.sack.is_some() {
        return run::run(ctx, &f.fallback, input);
    }
    let mut input = input;
    let mut current: Stream<'a> = Box::new(std::iter::empty());
    let mut failed = None;
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    Box::new(std::iter::from_fn(move || loop {
        if let Some(t) = current.next() {
            return Some(t);
        }
        if let Some(e) = failed.take() {
            return Some(Err(e));
        }
        let mut starts = Vec::new();
        let mut others = Vec::new();
        let mut n = 0;
        for r in input.by_ref() {
            match r {
                Ok(t) => {
                    match start(snap, &t) {
                        Some(s) => starts.push(s),
                        None => others.push(t),
                    }
                    n += 1;
                    if n == WINDOW {
                        break;
                    }
                }
                Err(e) => {
                    // Reported after what the traversers before it make.
                    failed = Some(e);
                    break;
                }
            }
        }
        if n == 0 && failed.is_none() {
            return None;
        }
        let found = match frontier(ctx, snap, &f.steps, starts) {
            Ok(found) => found,
            Err(e) => {
                failed = Some(e);
                Vec::new()
            }
        };
        let loops: Rc<Vec<_>> = Rc::default();
        let walked = found.into_iter().map(move |(v, bulk)| {
            Ok(Traverser {
                obj: GValue::Vertex(snap.external_id_unchecked(v)),
                bulk,
                path: None,
                fresh: false,
                loops: loops.clone(),
                sack: None,
                seed: false,
            })
        });
        let both: Stream<'a> = if others.is_empty() {
            Box::new(walked)
        } else {
            Box::new(walked.chain(run::run(ctx, &f.each, run::values(others))))
        };
        current = if f.dedup {
            // Everything a run lets out is a vertex: one set of those let
            // out so far dedups both kinds of traverser.
            let mut kept = Vec::new();
            for r in both {
                match r {
                    Ok(mut t) => {
                        let fresh = match &t.obj {
                            GValue::Vertex(v) => seen.insert(*v),
                            _ => true,
                        };
                        if fresh {
                            t.bulk = 1;
                            kept.push(Ok(t));
                        }
                    }
                    Err(e) => {
                        kept.push(Err(e));
                        break;
                    }
                }
            }
            Box::new(kept.into_iter())
        } else {
            both
        };
    }))
}

/// How many traversers a frontier takes at once: as many as the lazy
/// barriers of the ordinary executor gather, so `limit()` after a frontier
/// waits for no more than they would.
const WINDOW: usize = 1024;

/// `t` as an internal id and a bulk, if a frontier can take it: a vertex
/// with nothing else to tell it apart.
fn start(snap: &Snapshot, t: &Traverser) -> Option<(u32, u64)> {
    let GValue::Vertex(v) = &t.obj else {
        return None;
    };
    if t.path.is_some() || t.sack.is_some() || !t.loops.is_empty() || t.seed {
        return None;
    }
    Some((snap.internal_id(*v)?, t.bulk))
}

/// Vertices (internal ids) with the number of traversers on each, in the
/// order first reached.
#[derive(Default)]
struct Acc {
    at: FxHashMap<u32, usize>,
    list: Vec<(u32, u64)>,
}

impl Acc {
    fn add(&mut self, v: u32, bulk: u64) {
        match self.at.entry(v) {
            std::collections::hash_map::Entry::Occupied(e) => {
                let slot = &mut self.list[*e.get()].1;
                // Counts past u64 stay at its maximum rather than wrap.
                *slot = slot.saturating_add(bulk);
            }
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(self.list.len());
                self.list.push((v, bulk));
            }
        }
    }
}

fn frontier(
    ctx: &Ctx,
    snap: &Snapshot,
    steps: &[FStep],
    starts: Vec<(u32, u64)>,
) -> Result<Vec<(u32, u64)>> {
    let mut cur = starts;
    let mut buf: Vec<u32> = Vec::new();
    let loops: Rc<Vec<_>> = Rc::default();
    for step in steps {
        match step {
            FStep::Hop { dir, labels } => {
                // A label no edge has leads nowhere.
                let numbers: Vec<Option<u32>> = if labels.is_empty() {
                    vec![None]
                } else {
                    labels
                        .iter()
                        .filter_map(|l| snap.label_number(l))
                        .map(Some)
                        .collect()
                };
                let sides = super::db::sides(run::dir_of(*dir));
                let mut next = Acc::default();
                next.at.reserve(cur.len());
                for &(v, bulk) in &cur {
                    buf.clear();
                    for &side in sides {
                        for &l in &numbers {
                            snap.neighbors_into(v, side, l, &mut buf);
                        }
                    }
                    for &w in &buf {
                        next.add(w, bulk);
                    }
                }
                cur = next.list;
            }
            FStep::Has(test) => {
                let mut kept = Vec::with_capacity(cur.len());
                for (v, bulk) in cur {
                    let t = Traverser {
                        obj: GValue::Vertex(snap.external_id_unchecked(v)),
                        bulk,
                        path: None,
                        fresh: false,
                        loops: loops.clone(),
                        sack: None,
                        seed: false,
                    };
                    if run::has(ctx, test, &t)? {
                        kept.push((v, bulk));
                    }
                }
                cur = kept;
            }
        }
        if cur.is_empty() {
            break;
        }
    }
    Ok(cur)
}
