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

use super::plan::{By, HasTest, Op, Plan};
use super::pred::Predicate;
use super::run::{self, Stream};
use super::{Ctx, Loops, Traverser};
use crate::ast::{DirectionToken, TToken};
use crate::error::Result;
use crate::value::GValue;

/// A run of steps walked as a frontier.
#[derive(Debug, Clone)]
pub(crate) struct Frontier {
    pub steps: Vec<FStep>,
    /// Whether a `dedup()` follows: each vertex leaves once, with bulk 1.
    pub dedup: bool,
    /// What leaves the run.
    pub end: End,
    /// The key of [`End::Values`].
    pub key: Option<Arc<str>>,
    /// The steps as ordinary ops, for traversers a frontier cannot take.
    pub each: Plan,
    /// The steps and the `dedup()` as ordinary ops, for a stream a
    /// frontier cannot take at all.
    pub fallback: Plan,
}

/// What a frontier hands on: its vertices, or, where the step after the
/// run reduces them to a number or a count per label, that alone (no
/// traverser is built for a vertex reached).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum End {
    Emit,
    /// `count()`.
    Count,
    /// `groupCount().by(label)`.
    LabelCount,
    /// `groupCount().by(key)`: counts by the value of property `key`
    /// (vertices without it are left out, as `by()` is not productive).
    KeyCount,
    /// `values(key)` of one key: the values, each with the count of its
    /// vertex as its bulk.
    Values,
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
    let mut key = None;
    let mut end = match rest.peek() {
        Some(Op::Count { local: false }) => End::Count,
        Some(Op::GroupCount {
            side: None,
            by: Some(By::T(TToken::Label)),
        }) => End::LabelCount,
        Some(Op::GroupCount {
            side: None,
            by: Some(By::Key(k)),
        }) => {
            key = Some(k.clone());
            End::KeyCount
        }
        _ => End::Emit,
    };
    let mut count = None;
    if !dedup && end == End::Count {
        if let Some(FStep::Hop { dir, labels }) = steps.last() {
            count = Some(Op::AdjacentCount {
                dir: *dir,
                labels: labels.clone(),
            });
            steps.pop();
            end = End::Emit;
        }
    }
    if end == End::Emit && !dedup {
        if let Some(Op::Values(keys)) = rest.peek() {
            if let [k] = keys.as_slice() {
                key = Some(k.clone());
                end = End::Values;
            }
        }
    }
    let closing = (end != End::Emit).then(|| rest.next()).flatten();
    let mut each = Plan {
        ops: steps.iter().map(FStep::op).collect(),
    };
    // `values()` acts on each traverser alone: the ordinary steps for the
    // traversers a frontier cannot take end with it too.
    if end == End::Values {
        each.ops.extend(closing.clone());
    }
    let mut fallback = Plan {
        ops: steps.iter().map(FStep::op).collect(),
    };
    if dedup {
        fallback.ops.push(Op::Dedup {
            local: false,
            labels: Vec::new(),
            by: None,
        });
    }
    fallback.ops.extend(closing);
    out.push(Op::Frontier(Box::new(Frontier {
        steps,
        dedup,
        end,
        key,
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
    let mut windows = Windows {
        ctx,
        f,
        snap,
        input,
        failed: None,
        seen: FxHashSet::default(),
    };
    if matches!(f.end, End::Count | End::LabelCount | End::KeyCount) {
        // One result from everything.
        let mut pending = true;
        return Box::new(std::iter::from_fn(move || {
            if !std::mem::take(&mut pending) {
                return None;
            }
            Some(windows.reduce().map(|v| Traverser::fresh(ctx, v)))
        }));
    }
    let loops: Rc<Vec<_>> = Rc::default();
    let key = f.key.as_deref().and_then(|k| snap.key_number(k));
    let mut current: std::vec::IntoIter<Result<Traverser>> = Vec::new().into_iter();
    Box::new(std::iter::from_fn(move || loop {
        if let Some(t) = current.next() {
            return Some(t);
        }
        let batch = match windows.next()? {
            Ok(b) => b,
            Err(e) => return Some(Err(e)),
        };
        let mut out: Vec<Result<Traverser>> = Vec::with_capacity(batch.walked.len());
        for (v, bulk) in batch.walked {
            let obj = match f.end {
                End::Values => {
                    let Some(x) = key.and_then(|k| snap.property_of(v, k)) else {
                        continue;
                    };
                    super::db::from_value(&x)
                }
                _ => GValue::Vertex(snap.external_id_unchecked(v)),
            };
            out.push(Ok(plain(obj, bulk, &loops)));
        }
        out.extend(batch.others.into_iter().map(Ok));
        current = out.into_iter();
    }))
}

/// What one window of input made: vertices a frontier walked to
/// (internal ids) with their counts, and the traversers the ordinary steps
/// made of the rest.
struct Batch {
    walked: Vec<(u32, u64)>,
    others: Vec<Traverser>,
}

/// The input of a frontier, a window at a time.
struct Windows<'a> {
    ctx: &'a Ctx,
    f: &'a Frontier,
    snap: &'a Snapshot,
    input: Stream<'a>,
    /// An error the input ended with, reported after the window before it.
    failed: Option<crate::Error>,
    /// For a run that ends in `dedup()`: the vertices let out so far.
    seen: FxHashSet<u64>,
}

impl Windows<'_> {
    fn next(&mut self) -> Option<Result<Batch>> {
        let mut starts = Vec::new();
        let mut others = Vec::new();
        let mut n = 0;
        for r in self.input.by_ref() {
            match r {
                Ok(t) => {
                    match start(self.snap, &t) {
                        Some(s) => starts.push(s),
                        None => others.push(t),
                    }
                    n += 1;
                    if n == WINDOW {
                        break;
                    }
                }
                Err(e) => {
                    self.failed = Some(e);
                    break;
                }
            }
        }
        if n == 0 {
            return self.failed.take().map(Err);
        }
        Some(self.batch(starts, others))
    }

    fn batch(&mut self, starts: Vec<(u32, u64)>, others: Vec<Traverser>) -> Result<Batch> {
        let snap = self.snap;
        let mut walked = frontier(self.ctx, snap, &self.f.steps, starts)?;
        let mut others: Vec<Traverser> = if others.is_empty() {
            Vec::new()
        } else {
            run::run(self.ctx, &self.f.each, run::values(others)).collect::<Result<_>>()?
        };
        if self.f.dedup {
            // Everything a run lets out is a vertex: one set of those let
            // out so far dedups both kinds of traverser.
            walked.retain_mut(|(v, bulk)| {
                *bulk = 1;
                self.seen.insert(snap.external_id_unchecked(*v))
            });
            others.retain_mut(|t| {
                t.bulk = 1;
                match &t.obj {
                    GValue::Vertex(v) => self.seen.insert(*v),
                    _ => true,
                }
            });
        }
        Ok(Batch { walked, others })
    }

    /// Every window reduced to what `count()` or `groupCount().by(label)`
    /// or `.by(key)` makes of it.
    fn reduce(&mut self) -> Result<GValue> {
        let snap = self.snap;
        let mut total: u64 = 0;
        // Label numbers in the order first met, with their counts.
        let mut labels: Vec<(u32, u64)> = Vec::new();
        let mut add = |label: u32, bulk: u64| match labels.iter_mut().find(|(l, _)| *l == label) {
            Some((_, n)) => *n = n.saturating_add(bulk),
            None => labels.push((label, bulk)),
        };
        // Property values in the order first met, with their counts.
        let mut values = Counts::default();
        let key = self.f.key.as_deref();
        let number = key.and_then(|k| snap.key_number(k));
        while let Some(batch) = self.next() {
            let batch = batch?;
            if self.f.end == End::Count {
                let walked = batch.walked.iter().map(|w| w.1);
                let others = batch.others.iter().map(|t| t.bulk);
                total = walked.chain(others).fold(total, u64::saturating_add);
                continue;
            }
            if self.f.end == End::KeyCount {
                for (v, bulk) in batch.walked {
                    if let Some(x) = number.and_then(|k| snap.property_of(v, k)) {
                        values.add(super::db::from_value(&x), bulk);
                    }
                }
                for t in batch.others {
                    if let (GValue::Vertex(v), Some(k)) = (&t.obj, key) {
                        if let Some(x) = self.ctx.db.property(*v, k) {
                            values.add(x, t.bulk);
                        }
                    }
                }
                continue;
            }
            for (v, bulk) in batch.walked {
                if let Some(label) = snap.label_number_of(v) {
                    add(label, bulk);
                }
            }
            // What the ordinary steps make of the rest is vertices too
            // (the run ends on a hop or a filter of vertices).
            for t in batch.others {
                if let GValue::Vertex(v) = t.obj {
                    if let Some(label) = snap.internal_id(v).and_then(|v| snap.label_number_of(v)) {
                        add(label, t.bulk);
                    }
                }
            }
        }
        Ok(match self.f.end {
            End::Count => GValue::Int64(total as i64),
            End::KeyCount => GValue::map(
                values
                    .list
                    .into_iter()
                    .map(|(x, n)| (x, GValue::Int64(n as i64))),
            ),
            _ => GValue::map(labels.into_iter().map(|(l, n)| {
                let name = snap
                    .label_name(l)
                    .unwrap_or_else(|| Arc::from(stratagraph::DEFAULT_LABEL));
                (GValue::String(name), GValue::Int64(n as i64))
            })),
        })
    }
}

/// Values with a count each, in the order first met (as `groupCount()`
/// orders its keys).
#[derive(Default)]
struct Counts {
    at: FxHashMap<GValue, usize>,
    list: Vec<(GValue, u64)>,
}

impl Counts {
    fn add(&mut self, x: GValue, bulk: u64) {
        match self.at.get(&x) {
            Some(&i) => self.list[i].1 = self.list[i].1.saturating_add(bulk),
            None => {
                self.at.insert(x.clone(), self.list.len());
                self.list.push((x, bulk));
            }
        }
    }
}

/// A traverser with nothing but its object and bulk, as a frontier hands
/// them on (`loops`: one empty list shared by all).
fn plain(obj: GValue, bulk: u64, loops: &Loops) -> Traverser {
    Traverser {
        obj,
        bulk,
        path: None,
        fresh: false,
        loops: loops.clone(),
        sack: None,
        seed: false,
    }
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

/// For `hasLabel(...)` of names: the label numbers it keeps (a name no
/// label has keeps nothing), so the test compares numbers rather than
/// names.
fn label_numbers(snap: &Snapshot, test: &HasTest) -> Option<Vec<u32>> {
    let names: Vec<&Arc<str>> = match test {
        HasTest::Label(Predicate::Eq(GValue::String(l))) => vec![l],
        HasTest::Label(Predicate::Within(vs)) => vs
            .iter()
            .map(|v| match v {
                GValue::String(l) => Some(l),
                _ => None,
            })
            .collect::<Option<_>>()?,
        _ => return None,
    };
    Some(names.iter().filter_map(|l| snap.label_number(l)).collect())
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
                    ctx.tick()?;
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
                if let Some(wanted) = label_numbers(snap, test) {
                    cur.retain(|&(v, _)| {
                        snap.label_number_of(v).is_some_and(|l| wanted.contains(&l))
                    });
                    continue;
                }
                let mut kept = Vec::with_capacity(cur.len());
                for (v, bulk) in cur {
                    let t = plain(GValue::Vertex(snap.external_id_unchecked(v)), bulk, &loops);
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
