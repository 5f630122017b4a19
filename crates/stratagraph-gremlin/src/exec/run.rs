//! Each step as an iterator adapter over traversers.

use std::cmp::Ordering;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use stratagraph::EdgeDirection;

use super::operator;
use super::plan::{
    Arg, By, Choose, ChooseTest, Emit, HasTest, Op, OptionKey, Plan, Reduce, Repeat,
};
use super::pred::Predicate;
use super::{Ctx, Traverser};
use crate::ast::{ColumnToken, DirectionToken, OperatorToken, OrderToken, PopToken, TToken};
use crate::error::{Error, Result};
use crate::value::{order, GValue, Owner, PropRef};

/// A stream of traversers, or the error that ended it.
pub(crate) type Stream<'a> = Box<dyn Iterator<Item = Result<Traverser>> + 'a>;

/// The one traverser a root traversal starts from.
pub(crate) fn seed<'a>(ctx: &Ctx) -> Stream<'a> {
    let t = Traverser {
        obj: GValue::Null,
        bulk: 1,
        path: None,
        fresh: false,
        loops: std::rc::Rc::default(),
        sack: ctx.sack.as_ref().map(|s| s.initial.clone()),
        seed: true,
    };
    Box::new(std::iter::once(Ok(t)))
}

/// Runs `plan` over `input`.
pub(crate) fn run<'a>(ctx: &'a Ctx, plan: &'a Plan, input: Stream<'a>) -> Stream<'a> {
    let mut s = input;
    for op in &plan.ops {
        s = apply(ctx, op, s);
        // With a time limit, every traverser a step hands on counts
        // towards the next reading of the clock.
        if ctx.deadline.is_some() {
            s = Box::new(s.map(move |r| {
                ctx.tick()?;
                r
            }));
        }
    }
    s
}

/// Runs `plan` on one traverser, as one: a child traversal sees a single
/// object (its `fold()` folds one), and what it yields stands for as many
/// as the traverser did.
pub(crate) fn sub<'a>(ctx: &'a Ctx, plan: &'a Plan, mut t: Traverser) -> Stream<'a> {
    let bulk = t.bulk;
    t.bulk = 1;
    let out = run(ctx, plan, Box::new(std::iter::once(Ok(t))));
    if bulk == 1 {
        return out;
    }
    Box::new(out.map(move |r| {
        r.map(|mut r| {
            r.bulk = r.bulk.saturating_mul(bulk);
            r
        })
    }))
}

/// The first result of `plan` on `t`.
pub(crate) fn first(ctx: &Ctx, plan: &Plan, t: &Traverser) -> Result<Option<Traverser>> {
    sub(ctx, plan, t.clone()).next().transpose()
}

/// Whether `plan` yields anything on `t`.
pub(crate) fn yields(ctx: &Ctx, plan: &Plan, t: &Traverser) -> Result<bool> {
    if let Some(answer) = tests_only(ctx, &plan.ops, t) {
        return answer;
    }
    Ok(first(ctx, plan, t)?.is_some())
}

/// Whether `ops` let `t` through, answered without building a stream,
/// when every op is a test of `t` or of its loop count (`until(hasId(x)
/// .or().loops().is(3))`, asked of every traverser of every pass);
/// `None` when some op is not.
fn tests_only(ctx: &Ctx, ops: &[Op], t: &Traverser) -> Option<Result<bool>> {
    // The loop count, once `loops()` has replaced the object.
    let mut count: Option<GValue> = None;
    for op in ops {
        let pass = match (op, &count) {
            (Op::Has(test), None) if !matches!(test, HasTest::PropertyTrav { .. }) => {
                has(ctx, test, t)
            }
            (Op::Is(p), Some(n)) => Ok(p.test(n)),
            (Op::Is(p), None) => Ok(p.test(&t.obj)),
            (Op::Loops(name), None) => {
                count = Some(GValue::Int32(loop_count(t, name.as_deref()) as i32));
                Ok(true)
            }
            (Op::Not(p), None) => yields(ctx, p, t).map(|y| !y),
            (Op::And(ps), None) => ps
                .iter()
                .try_fold(true, |all, p| Ok(all && yields(ctx, p, t)?)),
            (Op::Or(ps), None) => ps
                .iter()
                .try_fold(false, |any, p| Ok(any || yields(ctx, p, t)?)),
            _ => return None,
        };
        match pass {
            Ok(true) => {}
            other => return Some(other),
        }
    }
    Some(Ok(true))
}

/// The pass count of the innermost `repeat` (or of the one named so).
fn loop_count(t: &Traverser, name: Option<&str>) -> u32 {
    match name {
        None => t.loops.last().map_or(0, |l| l.1),
        Some(n) => t
            .loops
            .iter()
            .rev()
            .find(|l| l.0.as_deref() == Some(n))
            .map_or(0, |l| l.1),
    }
}

pub(crate) fn filter<'a>(
    input: Stream<'a>,
    f: impl Fn(&Traverser) -> Result<bool> + 'a,
) -> Stream<'a> {
    Box::new(input.filter_map(move |t| match t {
        Ok(t) => match f(&t) {
            Ok(true) => Some(Ok(t)),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        },
        e => Some(e),
    }))
}

pub(crate) fn map<'a>(
    input: Stream<'a>,
    f: impl Fn(Traverser) -> Result<Option<Traverser>> + 'a,
) -> Stream<'a> {
    Box::new(input.filter_map(move |t| t.and_then(&f).transpose()))
}

pub(crate) fn flat<'a>(input: Stream<'a>, f: impl Fn(Traverser) -> Stream<'a> + 'a) -> Stream<'a> {
    Box::new(input.flat_map(move |t| -> Stream<'a> {
        match t {
            Ok(t) => f(t),
            Err(e) => Box::new(std::iter::once(Err(e))),
        }
    }))
}

pub(crate) fn values<'a>(v: Vec<Traverser>) -> Stream<'a> {
    Box::new(v.into_iter().map(Ok))
}

/// Collects the whole input on first pull, then yields what `f` makes of
/// it.
pub(crate) fn barrier<'a>(
    input: Stream<'a>,
    f: impl FnOnce(Vec<Traverser>) -> Result<Vec<Traverser>> + 'a,
) -> Stream<'a> {
    let mut pending = Some((input, f));
    let mut out: std::vec::IntoIter<Result<Traverser>> = Vec::new().into_iter();
    Box::new(std::iter::from_fn(move || {
        if let Some((input, f)) = pending.take() {
            let all: Result<Vec<Traverser>> = input.collect();
            out = match all.and_then(f) {
                Ok(v) => v.into_iter().map(Ok).collect::<Vec<_>>().into_iter(),
                Err(e) => vec![Err(e)].into_iter(),
            };
        }
        out.next()
    }))
}

/// Each traverser moved on to every vertex `find` names, in its order (a
/// start step met in the middle of a traversal runs once per traverser).
fn to_vertices<'a>(
    ctx: &'a Ctx,
    input: Stream<'a>,
    find: impl Fn() -> Vec<stratagraph::VertexId> + 'a,
) -> Stream<'a> {
    flat(input, move |t| -> Stream<'a> {
        values(
            find()
                .into_iter()
                .map(|v| t.to(ctx, GValue::Vertex(v)))
                .collect(),
        )
    })
}

pub(crate) fn rt(msg: impl Into<String>) -> Error {
    Error::Runtime(msg.into())
}

pub(crate) fn dir_of(d: DirectionToken) -> EdgeDirection {
    match d {
        DirectionToken::Out => EdgeDirection::Out,
        DirectionToken::In => EdgeDirection::In,
        DirectionToken::Both => EdgeDirection::Both,
    }
}

/// The value of `arg` for traverser `t`.
pub(crate) fn arg_value(ctx: &Ctx, arg: &Arg, t: &Traverser) -> Result<Option<GValue>> {
    match arg {
        Arg::Value(v) => Ok(Some(v.clone())),
        Arg::Trav(p) => Ok(first(ctx, p, t)?.map(|r| r.obj)),
    }
}

/// Applies a `by` modulator; `None` when it is not productive (a missing
/// property, an empty traversal).
pub(crate) fn by_value(ctx: &Ctx, by: &By, t: &Traverser) -> Result<Option<GValue>> {
    Ok(match by {
        By::Identity => Some(t.obj.clone()),
        By::Key(k) => property_value(ctx, &t.obj, k)?,
        By::T(tok) => Some(token_value(ctx, &t.obj, *tok)?),
        By::Column(c) => column(&t.obj, *c),
        By::Trav(p) => first(ctx, p, t)?.map(|r| r.obj),
    })
}

fn column(obj: &GValue, c: ColumnToken) -> Option<GValue> {
    match obj {
        GValue::Map(m) if m.len() == 1 => Some(match c {
            ColumnToken::Keys => m[0].0.clone(),
            ColumnToken::Values => m[0].1.clone(),
        }),
        GValue::Map(m) => Some(match c {
            ColumnToken::Keys => GValue::set(m.iter().map(|(k, _)| k.clone())),
            ColumnToken::Values => GValue::list(m.iter().map(|(_, v)| v.clone()).collect()),
        }),
        _ => None,
    }
}

fn property_value(ctx: &Ctx, obj: &GValue, key: &str) -> Result<Option<GValue>> {
    Ok(match obj {
        GValue::Vertex(v) => ctx.db.property(*v, key),
        GValue::Edge(e) => ctx.db.edge_property(e.id, key),
        GValue::Map(m) => m
            .iter()
            .find(|(k, _)| matches!(k, GValue::String(s) if &**s == key))
            .map(|(_, v)| v.clone()),
        GValue::VertexProperty(_) | GValue::Property(_) => None,
        other => {
            return Err(rt(format!(
                "The by(\"{key}\") modulator can only be applied to an element or a map, not a {}",
                other.type_name()
            )))
        }
    })
}

fn token_value(ctx: &Ctx, obj: &GValue, tok: TToken) -> Result<GValue> {
    match tok {
        TToken::Id => id_of(ctx, obj),
        TToken::Label => label_of(ctx, obj),
        TToken::Key => match obj {
            GValue::VertexProperty(p) | GValue::Property(p) => Ok(GValue::String(p.key.clone())),
            other => Err(rt(format!(
                "T.key applies to a property, not a {}",
                other.type_name()
            ))),
        },
        TToken::Value => match obj {
            GValue::VertexProperty(p) | GValue::Property(p) => Ok(p.value.clone()),
            other => Err(rt(format!(
                "T.value applies to a property, not a {}",
                other.type_name()
            ))),
        },
    }
}

pub(crate) fn id_of(ctx: &Ctx, obj: &GValue) -> Result<GValue> {
    match obj {
        GValue::Vertex(v) => Ok(ctx.db.vertex_id(*v)),
        GValue::Edge(e) => Ok(GValue::Int64(e.id as i64)),
        other => Err(rt(format!(
            "id() applies to an element, not a {}",
            other.type_name()
        ))),
    }
}

pub(crate) fn label_of(ctx: &Ctx, obj: &GValue) -> Result<GValue> {
    match obj {
        GValue::Vertex(v) => Ok(ctx
            .db
            .label(*v)
            .map_or(GValue::str(stratagraph::DEFAULT_LABEL), GValue::String)),
        GValue::Edge(e) => Ok(GValue::String(e.label.clone())),
        GValue::VertexProperty(p) | GValue::Property(p) => Ok(GValue::String(p.key.clone())),
        other => Err(rt(format!(
            "label() applies to an element, not a {}",
            other.type_name()
        ))),
    }
}

/// The properties of an element, in the store's order, keeping `keys`
/// (all if empty).
pub(crate) fn props_of(ctx: &Ctx, obj: &GValue, keys: &[Arc<str>]) -> Vec<(Arc<str>, GValue)> {
    // One key (`values('name')`, the common case) is one look-up.
    if let [key] = keys {
        let v = match obj {
            GValue::Vertex(v) => ctx.db.property(*v, key),
            GValue::Edge(e) => ctx.db.edge_property(e.id, key),
            _ => None,
        };
        return v.map(|v| (key.clone(), v)).into_iter().collect();
    }
    let all = match obj {
        GValue::Vertex(v) => ctx.db.properties(*v),
        GValue::Edge(e) => ctx.db.edge_properties(e.id),
        _ => Vec::new(),
    };
    if keys.is_empty() {
        return all;
    }
    let mut out = Vec::new();
    for k in keys {
        if let Some(p) = all.iter().find(|(key, _)| key == k) {
            out.push(p.clone());
        }
    }
    out
}

fn prop_obj(obj: &GValue, key: Arc<str>, value: GValue) -> GValue {
    match obj {
        GValue::Vertex(v) => GValue::VertexProperty(Arc::new(PropRef {
            owner: Owner::Vertex(*v),
            key,
            value,
        })),
        GValue::Edge(e) => GValue::Property(Arc::new(PropRef {
            owner: Owner::Edge(e.id),
            key,
            value,
        })),
        _ => GValue::Property(Arc::new(PropRef {
            owner: Owner::None,
            key,
            value,
        })),
    }
}

/// Replaces elements in a predicate on ids by their ids.
fn ids_in(ctx: &Ctx, p: &Predicate) -> Predicate {
    let id = |v: &GValue| match v {
        GValue::Vertex(_) | GValue::Edge(_) => id_of(ctx, v).unwrap_or(GValue::Null),
        // An integer id may be named by its digits, as TinkerGraph's id
        // manager allows.
        GValue::String(s) if !ctx.db.string_ids() => {
            s.parse::<i64>().map_or(v.clone(), GValue::Int64)
        }
        other => other.clone(),
    };
    match p {
        Predicate::Eq(v) => Predicate::Eq(id(v)),
        Predicate::Neq(v) => Predicate::Neq(id(v)),
        Predicate::Within(vs) => Predicate::Within(vs.iter().map(id).collect()),
        Predicate::Without(vs) => Predicate::Without(vs.iter().map(id).collect()),
        Predicate::And(a, b) => Predicate::And(Box::new(ids_in(ctx, a)), Box::new(ids_in(ctx, b))),
        Predicate::Or(a, b) => Predicate::Or(Box::new(ids_in(ctx, a)), Box::new(ids_in(ctx, b))),
        Predicate::Not(a) => Predicate::Not(Box::new(ids_in(ctx, a))),
        other => other.clone(),
    }
}

/// Ids named by `V(...)`/`E(...)` arguments (lists flattened).
fn id_args(ctx: &Ctx, args: &[Arg], t: &Traverser) -> Result<Vec<GValue>> {
    let mut out = Vec::new();
    for a in args {
        match arg_value(ctx, a, t)? {
            Some(GValue::List(items)) | Some(GValue::Set(items)) => {
                out.extend(items.iter().cloned())
            }
            Some(v) => out.push(v),
            None => {}
        }
    }
    Ok(out)
}

pub(crate) fn has(ctx: &Ctx, test: &HasTest, t: &Traverser) -> Result<bool> {
    let obj = &t.obj;
    Ok(match test {
        HasTest::Exists(k) => match obj {
            GValue::Vertex(v) => ctx.db.property(*v, k).is_some(),
            GValue::Edge(e) => ctx.db.edge_property(e.id, k).is_some(),
            _ => false,
        },
        HasTest::Property { label, key, pred } => {
            if let Some(l) = label {
                if !matches!(obj, GValue::Vertex(_) | GValue::Edge(_))
                    || !l.test(&label_of(ctx, obj)?)
                {
                    return Ok(false);
                }
            }
            let v = match obj {
                GValue::Vertex(v) => ctx.db.property(*v, key),
                GValue::Edge(e) => ctx.db.edge_property(e.id, key),
                _ => None,
            };
            v.is_some_and(|v| pred.test(&v))
        }
        HasTest::PropertyTrav { key, trav } => {
            let v = match obj {
                GValue::Vertex(v) => ctx.db.property(*v, key),
                GValue::Edge(e) => ctx.db.edge_property(e.id, key),
                _ => None,
            };
            match v {
                Some(v) => yields(ctx, trav, &t.to(ctx, v))?,
                None => false,
            }
        }
        HasTest::Label(p) => match obj {
            GValue::Vertex(_)
            | GValue::Edge(_)
            | GValue::VertexProperty(_)
            | GValue::Property(_) => p.test(&label_of(ctx, obj)?),
            _ => false,
        },
        HasTest::Id(p) => match obj {
            GValue::Vertex(_) | GValue::Edge(_) => p.test(&id_of(ctx, obj)?),
            _ => false,
        },
        HasTest::Key(p) => match obj {
            GValue::VertexProperty(x) | GValue::Property(x) => {
                p.test(&GValue::String(x.key.clone()))
            }
            _ => false,
        },
        HasTest::Value(p) => match obj {
            GValue::VertexProperty(x) | GValue::Property(x) => p.test(&x.value),
            _ => false,
        },
    })
}

fn local_items(obj: &GValue) -> Option<Vec<GValue>> {
    match obj {
        GValue::List(i) | GValue::Set(i) => Some(i.to_vec()),
        GValue::Map(m) => Some(
            m.iter()
                .map(|(k, v)| GValue::map([(k.clone(), v.clone())]))
                .collect(),
        ),
        GValue::Path(p) => Some(p.objects().cloned().collect()),
        _ => None,
    }
}

/// Rebuilds a collection of the same kind as `like` from `items`.
fn same_kind(like: &GValue, items: Vec<GValue>) -> GValue {
    match like {
        GValue::Set(_) => GValue::set(items),
        GValue::Map(_) => GValue::map(items.into_iter().flat_map(|e| match e {
            GValue::Map(m) => m.to_vec(),
            _ => Vec::new(),
        })),
        _ => GValue::list(items),
    }
}

/// The objects a traverser stands for, `bulk` times each.
fn expand(ts: &[Traverser]) -> Vec<GValue> {
    let mut out = Vec::new();
    for t in ts {
        for _ in 0..t.bulk {
            out.push(t.obj.clone());
        }
    }
    out
}

fn reduce(kind: Reduce, items: impl Iterator<Item = (GValue, u64)>) -> Result<Option<GValue>> {
    let mut acc: Option<GValue> = None;
    let mut count: u64 = 0;
    let mut saw_null = false;
    for (v, bulk) in items {
        if matches!(v, GValue::Null) {
            saw_null = true;
            continue;
        }
        match kind {
            Reduce::Sum | Reduce::Mean => {
                if !v.is_number() {
                    return Err(rt(format!(
                        "The {} step can only take a number as argument, encountered {}",
                        if kind == Reduce::Sum {
                            "sum()"
                        } else {
                            "mean()"
                        },
                        v.type_name()
                    )));
                }
                let v = operator::times_bulk(&v, bulk)?;
                acc = Some(match acc {
                    None => v,
                    Some(a) => operator::arith('+', &a, &v)?,
                });
                count += bulk;
            }
            Reduce::Min | Reduce::Max => {
                if !v.is_number()
                    && !matches!(v, GValue::String(_) | GValue::Date(_) | GValue::Bool(_))
                {
                    return Err(rt(format!(
                        "The {} step can only take a comparable value, encountered {}",
                        if kind == Reduce::Min {
                            "min()"
                        } else {
                            "max()"
                        },
                        v.type_name()
                    )));
                }
                acc = Some(match acc {
                    None => v,
                    Some(a) => {
                        let o = order(&v, &a);
                        let take = if kind == Reduce::Min {
                            o == Ordering::Less
                        } else {
                            o == Ordering::Greater
                        };
                        let (keep, other) = if take { (v, a) } else { (a, v) };
                        // Between numbers the result takes the wider type
                        // of the two, as TinkerPop's NumberHelper does.
                        if keep.is_number() && other.is_number() {
                            widen_like(&keep, &other)
                        } else {
                            keep
                        }
                    }
                });
            }
        }
    }
    Ok(match (kind, acc) {
        (Reduce::Mean, Some(a)) => Some(GValue::Float64(
            a.as_f64().unwrap_or(f64::NAN) / count as f64,
        )),
        // Only nulls: the answer is null (nothing at all: no answer).
        (_, None) if saw_null => Some(GValue::Null),
        (_, a) => a,
    })
}

/// `v` in the wider numeric type of `v` and `other`.
fn widen_like(v: &GValue, other: &GValue) -> GValue {
    let zero = match other {
        GValue::Int8(_) => GValue::Int8(0),
        GValue::Int16(_) => GValue::Int16(0),
        GValue::Int32(_) => GValue::Int32(0),
        GValue::Int64(_) => GValue::Int64(0),
        GValue::BigInt(_) => GValue::BigInt(0),
        GValue::Float32(_) => GValue::Float32(0.0),
        GValue::Float64(_) => GValue::Float64(0.0),
        GValue::BigDecimal(_) => GValue::BigDecimal(0.0),
        _ => return v.clone(),
    };
    if v.as_f64().is_some_and(f64::is_nan) {
        return v.clone();
    }
    operator::arith('+', v, &zero).unwrap_or_else(|_| v.clone())
}

fn sort_by_keys(ctx: &Ctx, ts: Vec<Traverser>, by: &[(By, OrderToken)]) -> Result<Vec<Traverser>> {
    let by: Vec<(By, OrderToken)> = if by.is_empty() {
        vec![(By::Identity, OrderToken::Asc)]
    } else {
        by.to_vec()
    };
    if by.iter().any(|(_, o)| *o == OrderToken::Shuffle) {
        let mut ts = ts;
        shuffle(&mut ts);
        return Ok(ts);
    }
    let mut keyed = Vec::with_capacity(ts.len());
    for t in ts {
        let mut keys = Vec::with_capacity(by.len());
        let mut productive = true;
        for (b, _) in &by {
            match by_value(ctx, b, &t)? {
                Some(k) => keys.push(k),
                None => {
                    productive = false;
                    break;
                }
            }
        }
        if productive {
            keyed.push((keys, t));
        }
    }
    keyed.sort_by(|(a, _), (b, _)| {
        for (i, (_, o)) in by.iter().enumerate() {
            let c = order(&a[i], &b[i]);
            let c = if *o == OrderToken::Desc {
                c.reverse()
            } else {
                c
            };
            if c != Ordering::Equal {
                return c;
            }
        }
        Ordering::Equal
    });
    Ok(keyed.into_iter().map(|(_, t)| t).collect())
}

fn shuffle<T>(v: &mut [T]) {
    use std::hash::{BuildHasher, Hasher};
    let mut state = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
        | 1;
    for i in (1..v.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        v.swap(i, (state % (i as u64 + 1)) as usize);
    }
}

fn select_one(t: &Traverser, ctx: &Ctx, pop: PopToken, key: &GValue) -> Option<GValue> {
    if let GValue::Map(m) = &t.obj {
        if let Some((_, v)) = m.iter().find(|(k, _)| k == key) {
            return Some(v.clone());
        }
    }
    let GValue::String(label) = key else {
        return None;
    };
    let found = t.labelled_objects(label);
    if !found.is_empty() {
        return Some(match pop {
            PopToken::First => found[0].clone(),
            PopToken::Last => found[found.len() - 1].clone(),
            PopToken::All => GValue::list(found),
            PopToken::Mixed => {
                if found.len() == 1 {
                    found[0].clone()
                } else {
                    GValue::list(found)
                }
            }
        });
    }
    let side = ctx.side.borrow();
    side.get(&**label).cloned().map(|v| match pop {
        PopToken::All => GValue::list(vec![v]),
        _ => v,
    })
}

/// `group()`'s map from traversers.
fn group_map(
    ctx: &Ctx,
    ts: Vec<Traverser>,
    key: Option<&By>,
    value: Option<&By>,
) -> Result<GValue> {
    let mut index: FxHashMap<GValue, usize> = FxHashMap::default();
    let mut groups: Vec<(GValue, Vec<Traverser>)> = Vec::new();
    for t in ts {
        let Some(k) = by_value(ctx, key.unwrap_or(&By::Identity), &t)? else {
            continue;
        };
        match index.get(&k) {
            Some(&i) => groups[i].1.push(t),
            None => {
                index.insert(k.clone(), groups.len());
                groups.push((k, vec![t]));
            }
        }
    }
    let mut out = Vec::with_capacity(groups.len());
    for (k, members) in groups {
        let v = match value {
            None | Some(By::Identity) => GValue::list(expand(&members)),
            Some(By::Trav(p)) => match run(ctx, p, values(members)).next().transpose()? {
                Some(r) => r.obj,
                None => continue,
            },
            Some(b) => {
                let mut vals = Vec::new();
                for m in &members {
                    if let Some(v) = by_value(ctx, b, m)? {
                        for _ in 0..m.bulk {
                            vals.push(v.clone());
                        }
                    }
                }
                GValue::list(vals)
            }
        };
        out.push((k, v));
    }
    Ok(GValue::map(out))
}

fn group_count_map(ctx: &Ctx, ts: &[Traverser], by: Option<&By>) -> Result<GValue> {
    let mut index: FxHashMap<GValue, usize> = FxHashMap::default();
    let mut counts: Vec<(GValue, i64)> = Vec::new();
    for t in ts {
        let Some(k) = by_value(ctx, by.unwrap_or(&By::Identity), t)? else {
            continue;
        };
        match index.get(&k) {
            Some(&i) => counts[i].1 += t.bulk as i64,
            None => {
                index.insert(k.clone(), counts.len());
                counts.push((k, t.bulk as i64));
            }
        }
    }
    Ok(GValue::map(
        counts.into_iter().map(|(k, c)| (k, GValue::Int64(c))),
    ))
}

fn element_map(ctx: &Ctx, obj: &GValue, keys: &[Arc<str>]) -> Result<GValue> {
    let mut out = vec![
        (GValue::T(TToken::Id), id_of(ctx, obj)?),
        (GValue::T(TToken::Label), label_of(ctx, obj)?),
    ];
    if let GValue::Edge(e) = obj {
        let end = |v: u64| -> Result<GValue> {
            let v = GValue::Vertex(v);
            Ok(GValue::map([
                (GValue::T(TToken::Id), id_of(ctx, &v)?),
                (GValue::T(TToken::Label), label_of(ctx, &v)?),
            ]))
        };
        out.push((GValue::Direction(DirectionToken::In), end(e.dst)?));
        out.push((GValue::Direction(DirectionToken::Out), end(e.src)?));
    }
    for (k, v) in props_of(ctx, obj, keys) {
        out.push((GValue::String(k), v));
    }
    Ok(GValue::map(out))
}

fn repeat<'a>(ctx: &'a Ctx, r: &'a Repeat, input: Stream<'a>) -> Stream<'a> {
    // Breadth first, one pass at a time over a window of starts, so
    // traversers at the same depth stay together (and merge), and what a
    // pass lets out reaches the next steps before the following pass
    // runs: `repeat(...).until(...).limit(1)` stops at the first depth
    // that answers.
    //
    // Where paths are kept no two traversers merge, and a body that acts
    // on each traverser alone gives the same results run over part of a
    // pass: then a pass runs in chunks, and what a chunk lets out goes on
    // before the next chunk, so `repeat(...).until(...).limit(1).path()`
    // (a shortest path) stops inside the pass that finds it.
    let chunk = if ctx.track_paths && r.body.ops.iter().all(per_traverser) {
        PATH_CHUNK
    } else {
        usize::MAX
    };
    let mut state = RepeatRun {
        ctx,
        r,
        input,
        input_done: false,
        frontier: std::collections::VecDeque::new(),
        next: Vec::new(),
        out: std::collections::VecDeque::new(),
        passes: 0,
        chunk,
    };
    Box::new(std::iter::from_fn(move || state.next()))
}

/// How many traversers of a pass run at once where a pass runs in chunks.
const PATH_CHUNK: usize = 64;

/// Whether `op` acts on each traverser alone, with no state across
/// traversers (no barrier, no count, no dedup, no side effect), so a
/// stream split in parts gives the same results part by part.
fn per_traverser(op: &Op) -> bool {
    let plans = |ps: &[Plan]| ps.iter().all(|p| p.ops.iter().all(per_traverser));
    match op {
        Op::Adjacent { .. }
        | Op::Frontier(_)
        | Op::EdgeEnds(_)
        | Op::OtherV
        | Op::Has(HasTest::Exists(_) | HasTest::Property { .. })
        | Op::Has(HasTest::Label(_) | HasTest::Id(_) | HasTest::Key(_) | HasTest::Value(_))
        | Op::HasNot(_)
        | Op::Is(_)
        | Op::PathFilter { .. }
        | Op::Values(_)
        | Op::Id
        | Op::Label
        | Op::Constant(_)
        | Op::Identity
        | Op::As(_) => true,
        Op::Filter(p) | Op::Not(p) => plans(std::slice::from_ref(p)),
        Op::And(ps) | Op::Or(ps) => plans(ps),
        _ => false,
    }
}

/// The state of one `repeat` between pulls.
struct RepeatRun<'a> {
    ctx: &'a Ctx,
    r: &'a Repeat,
    input: Stream<'a>,
    input_done: bool,
    /// What the pass under way has still to run.
    frontier: std::collections::VecDeque<Traverser>,
    /// What the pass under way made that loops again.
    next: Vec<Traverser>,
    out: std::collections::VecDeque<Traverser>,
    /// Passes finished over the current starts.
    passes: u32,
    /// How many traversers of the frontier run at once.
    chunk: usize,
}

impl RepeatRun<'_> {
    fn next(&mut self) -> Option<Result<Traverser>> {
        loop {
            if let Some(t) = self.out.pop_front() {
                return Some(Ok(t));
            }
            if self.frontier.is_empty() && !self.next.is_empty() {
                self.frontier = std::mem::take(&mut self.next).into();
                self.passes += 1;
            }
            if self.frontier.is_empty() {
                if self.input_done {
                    return None;
                }
                let mut starts = Vec::new();
                for t in self.input.by_ref() {
                    match t {
                        Ok(mut t) => {
                            std::rc::Rc::make_mut(&mut t.loops).push((self.r.name.clone(), 0));
                            starts.push(t);
                            if starts.len() == LAZY_WINDOW {
                                break;
                            }
                        }
                        Err(e) => {
                            self.input_done = true;
                            return Some(Err(e));
                        }
                    }
                }
                if starts.is_empty() {
                    self.input_done = true;
                    return None;
                }
                self.frontier = starts.into();
                self.passes = 0;
            }
            if let Err(e) = self.pass() {
                self.frontier.clear();
                self.next.clear();
                self.input_done = true;
                return Some(Err(e));
            }
        }
    }

    fn exit(mut t: Traverser) -> Traverser {
        std::rc::Rc::make_mut(&mut t.loops).pop();
        t
    }

    fn emits(&self, t: &Traverser) -> Result<bool> {
        Ok(match &self.r.emit {
            None => false,
            Some(Emit::Always) => true,
            Some(Emit::If(p)) => yields(self.ctx, p, t)?,
        })
    }

    fn done(&self, t: &Traverser) -> Result<bool> {
        let n = t.loops.last().map_or(0, |l| l.1) as u64;
        if self.r.times.is_some_and(|k| n >= k) {
            return Ok(true);
        }
        match &self.r.until {
            Some(p) => yields(self.ctx, p, t),
            None => Ok(false),
        }
    }

    /// Runs the body once over the frontier, or over its next chunk.
    fn pass(&mut self) -> Result<()> {
        let (ctx, r) = (self.ctx, self.r);
        if self.passes >= 1_000_000 {
            return Err(rt("repeat() ran a million passes without ending"));
        }
        let mut next = Vec::new();
        let n = self.chunk.min(self.frontier.len());
        let chunk: Vec<Traverser> = self.frontier.drain(..n).collect();
        for t in chunk {
            let first_pass = t.loops.last().is_some_and(|l| l.1 == 0);
            if first_pass || r.until_first {
                if r.until_first && self.done(&t)? {
                    self.out.push_back(Self::exit(t));
                    continue;
                }
                if first_pass && r.emit_first && self.emits(&t)? {
                    self.out.push_back(Self::exit(t.clone()));
                }
            }
            next.push(t);
        }
        if next.is_empty() {
            return Ok(());
        }
        let stepped = run(ctx, &r.body, values(next)).collect::<Result<Vec<_>>>()?;
        // Traversers with whole paths merge only when they are copies of
        // one path, which is rare and costs a hash per traverser to find.
        let stepped = if ctx.track_paths {
            stepped
        } else {
            merge_bulk(stepped)
        };
        let passes = self.passes + 1;
        for mut t in stepped {
            // Every traverser of one pass has made the same number of
            // passes; a reducing step in the body (`group()`) starts new
            // traversers, which get the count back here.
            let loops = std::rc::Rc::make_mut(&mut t.loops);
            match loops.last_mut() {
                Some(l) => l.1 += 1,
                None => loops.push((r.name.clone(), passes)),
            }
            // A loop that wraps its object once per pass (`repeat(fold())`)
            // would nest values until the stack gave out; it stops with an
            // error instead.
            let (depth, size) = measure(&t.obj, &mut FxHashMap::default());
            if depth > MAX_NESTING || size > MAX_UNFOLDED {
                return Err(rt(format!(
                    "repeat(): after {passes} passes one of its values nests {depth} deep and holds {size} values unfolded (at most {MAX_NESTING} and {MAX_UNFOLDED})"
                )));
            }
            if !r.until_first && self.done(&t)? {
                self.out.push_back(Self::exit(t));
                continue;
            }
            if r.until_first
                && r.times
                    .is_some_and(|k| t.loops.last().map_or(0, |l| l.1) as u64 >= k)
            {
                self.out.push_back(Self::exit(t));
                continue;
            }
            if self.emits(&t)? {
                self.out.push_back(Self::exit(t.clone()));
            }
            self.next.push(t);
        }
        Ok(())
    }
}

/// Up to how many traversers a merge compares pairwise.
const SMALL_MERGE: usize = 16;

/// How many traversers a lazy barrier gathers before it merges them.
const LAZY_WINDOW: usize = 1024;

/// After a step that fans out (`out()`, `in()`, ...), merges traversers
/// that cannot be told apart within windows of [`LAZY_WINDOW`], as
/// TinkerPop's lazy barriers do: `out().out().out()` then walks each
/// vertex reached once per window, not once per path to it. Where paths
/// are kept every traverser is distinct, so the stream passes as it is.
fn lazy_merge<'a>(ctx: &'a Ctx, input: Stream<'a>) -> Stream<'a> {
    if ctx.track_paths {
        return input;
    }
    let mut input = input;
    let mut ready: std::vec::IntoIter<Traverser> = Vec::new().into_iter();
    let mut failed: Option<Error> = None;
    Box::new(std::iter::from_fn(move || loop {
        if let Some(t) = ready.next() {
            return Some(Ok(t));
        }
        if let Some(e) = failed.take() {
            return Some(Err(e));
        }
        let mut window = Vec::with_capacity(LAZY_WINDOW);
        for r in input.by_ref() {
            match r {
                Ok(t) => {
                    window.push(t);
                    if window.len() == LAZY_WINDOW {
                        break;
                    }
                }
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        if window.is_empty() && failed.is_none() {
            return None;
        }
        ready = merge_bulk(window).into_iter();
    }))
}

/// Merges traversers that cannot be told apart (same object, same path
/// node, loops and sack) into one with their bulks summed: what keeps
/// `repeat(out()).times(k)` from multiplying traversers by the paths.
fn merge_bulk(ts: Vec<Traverser>) -> Vec<Traverser> {
    if ts.len() < 2 {
        return ts;
    }
    if ts.len() <= SMALL_MERGE {
        // A few traversers (one vertex's neighbours) compare pairwise
        // faster than two hash maps are built.
        let mut out: Vec<Traverser> = Vec::with_capacity(ts.len());
        for t in ts {
            let same = |o: &Traverser| {
                o.obj == t.obj
                    && o.fresh == t.fresh
                    && match (&o.path, &t.path) {
                        (None, None) => true,
                        (Some(a), Some(b)) => std::rc::Rc::ptr_eq(a, b),
                        _ => false,
                    }
                    && o.loops == t.loops
                    && o.sack == t.sack
            };
            match out.iter_mut().find(|o| same(o)) {
                Some(o) => o.bulk = o.bulk.saturating_add(t.bulk),
                None => out.push(t),
            }
        }
        return out;
    }
    // The loop counters enter the key as a fingerprint; equal keys are
    // then checked in full. Vertices with no history to tell apart (the
    // common case, between hops) go by their id alone.
    type Key = (GValue, usize, u64, Option<GValue>);
    let mut index: FxHashMap<Key, usize> = FxHashMap::default();
    let mut plain: FxHashMap<(u64, u64), usize> = FxHashMap::default();
    let mut out: Vec<Traverser> = Vec::with_capacity(ts.len());
    let loops_print = |t: &Traverser| {
        t.loops.iter().fold(0u64, |h, l| {
            h.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(l.1)
        })
    };
    for t in ts {
        if let (GValue::Vertex(v), None, None) = (&t.obj, &t.path, &t.sack) {
            match plain.entry((*v, loops_print(&t))) {
                std::collections::hash_map::Entry::Occupied(e) => {
                    let i = *e.get();
                    if out[i].fresh == t.fresh && out[i].loops == t.loops {
                        out[i].bulk = out[i].bulk.saturating_add(t.bulk);
                        continue;
                    }
                    out.push(t);
                }
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(out.len());
                    out.push(t);
                }
            }
            continue;
        }
        let key: Key = (
            t.obj.clone(),
            t.path
                .as_ref()
                .map_or(0, |p| std::rc::Rc::as_ptr(p) as usize),
            loops_print(&t),
            t.sack.clone(),
        );
        match index.get(&key) {
            Some(&i) if out[i].fresh == t.fresh && out[i].loops == t.loops => {
                // Counts past u64 stay at its maximum rather than wrap.
                out[i].bulk = out[i].bulk.saturating_add(t.bulk);
            }
            _ => {
                index.insert(key, out.len());
                out.push(t);
            }
        }
    }
    out
}

/// `choose`: each traverser goes to the branch its test picks; every
/// branch then runs once over all the traversers sent to it, as
/// TinkerPop's branch children do (so a `limit` or a `count` in a branch
/// counts across traversers).
fn choose<'a>(ctx: &'a Ctx, c: &'a Choose, input: Stream<'a>) -> Stream<'a> {
    let flatten = move |ts: Vec<Traverser>| -> Result<Vec<Traverser>> {
        // Branch index per traverser; `None` passes it through unchanged,
        // `Some(usize::MAX)` drops it.
        let mut routed: Vec<Vec<Traverser>> = Vec::new();
        let mut through = Vec::new();
        let plans: Vec<&'a Plan> = match c {
            Choose::IfThen {
                then, otherwise, ..
            } => std::iter::once(then).chain(otherwise.iter()).collect(),
            Choose::Options { options, .. } => options.iter().map(|(_, p)| p).collect(),
        };
        routed.resize_with(plans.len(), Vec::new);
        for t in ts {
            match c {
                Choose::IfThen {
                    test, otherwise, ..
                } => {
                    let pass = match test {
                        ChooseTest::Trav(p) => yields(ctx, p, &t)?,
                        ChooseTest::Pred(p) => p.test(&t.obj),
                    };
                    if pass {
                        routed[0].push(t);
                    } else if otherwise.is_some() {
                        routed[1].push(t);
                    } else {
                        through.push(t);
                    }
                }
                Choose::Options { by, options, pass } => {
                    let key = first(ctx, by, &t)?.map(|r| r.obj);
                    // In branch() every option whose key matches takes the
                    // traverser (one key may name several branches); in
                    // choose() the first.
                    let mut chosen = Vec::new();
                    for (i, (k, _)) in options.iter().enumerate() {
                        let hit = match (k, &key) {
                            (OptionKey::Value(v), Some(key)) => crate::value::equals(v, key),
                            (OptionKey::Pred(p), Some(key)) => p.test(key),
                            (OptionKey::Trav(p), Some(key)) => {
                                yields(ctx, p, &t.to(ctx, key.clone()))?
                            }
                            (OptionKey::Unproductive, None) => true,
                            _ => false,
                        };
                        if hit {
                            chosen.push(i);
                            if *pass {
                                break;
                            }
                        }
                    }
                    if chosen.is_empty() && key.is_some() {
                        chosen.extend(
                            options
                                .iter()
                                .position(|(k, _)| matches!(k, OptionKey::None)),
                        );
                    }
                    let any = options
                        .iter()
                        .position(|(k, _)| matches!(k, OptionKey::Any));
                    if let Some(a) = any {
                        routed[a].push(t.clone());
                    }
                    if chosen.is_empty() {
                        // No option and no `none`: choose() passes the
                        // traverser on, branch() drops it.
                        if any.is_none() && *pass {
                            through.push(t);
                        }
                    } else {
                        for &i in &chosen[1..] {
                            routed[i].push(t.clone());
                        }
                        routed[chosen[0]].push(t);
                    }
                }
            }
        }
        let mut out = Vec::new();
        for (plan, ts) in plans.into_iter().zip(routed) {
            if !ts.is_empty() {
                for r in run(ctx, plan, values(ts)) {
                    out.push(r?);
                }
            }
        }
        out.extend(through);
        Ok(out)
    };
    barrier(input, flatten)
}

pub(crate) fn vertex_of(ctx: &Ctx, v: &GValue, step: &str) -> Result<u64> {
    match v {
        GValue::Vertex(v) => Ok(*v),
        other => ctx
            .db
            .vertex_of_id(other)
            .filter(|v| ctx.db.has_vertex(*v))
            .ok_or_else(|| rt(format!("{step}: {other} is not a vertex"))),
    }
}

/// The end of an edge `addE` names by `from`/`to`: a vertex, an id, a
/// traversal, or a step label.
fn edge_end(ctx: &Ctx, arg: &Option<Arg>, t: &Traverser, which: &str) -> Result<u64> {
    match arg {
        None => end_vertex(ctx, &t.obj, which),
        Some(Arg::Value(key @ GValue::String(label))) => {
            match select_one(t, ctx, PopToken::Last, key) {
                Some(v) => end_vertex(ctx, &v, which),
                None => Err(rt(format!(
                    "addE(): {which}({label}) names no step label or side effect"
                ))),
            }
        }
        Some(a) => match arg_value(ctx, a, t)? {
            Some(v) => end_vertex(ctx, &v, which),
            None => Err(rt(format!(
                "The provided traverser does not map to a value: {which}() of addE()"
            ))),
        },
    }
}

fn end_vertex(ctx: &Ctx, v: &GValue, which: &str) -> Result<u64> {
    vertex_of(ctx, v, "addE").map_err(|_| {
        rt(format!(
            "The value given to addE({which}) must resolve to a Vertex or the ID of a Vertex present in the graph, not {v}"
        ))
    })
}

/// Applies one step to a stream.
pub(crate) fn apply<'a>(ctx: &'a Ctx, op: &'a Op, input: Stream<'a>) -> Stream<'a> {
    match op {
        Op::V(args) | Op::E(args) => {
            let vertices = matches!(op, Op::V(_));
            flat(input, move |t| -> Stream<'a> {
                let make = || -> Result<Vec<Traverser>> {
                    let ids = id_args(ctx, args, &t)?;
                    let objs: Vec<GValue> = if vertices {
                        if args.is_empty() {
                            ctx.db.vertices().into_iter().map(GValue::Vertex).collect()
                        } else {
                            ids.iter()
                                .filter_map(|id| ctx.db.vertex_of_id(id))
                                .filter(|v| ctx.db.has_vertex(*v))
                                .map(GValue::Vertex)
                                .collect()
                        }
                    } else if args.is_empty() {
                        ctx.db
                            .edges()
                            .into_iter()
                            .map(|e| GValue::Edge(Arc::new(e)))
                            .collect()
                    } else {
                        ids.iter()
                            .filter_map(|id| ctx.db.edge_of_id(id))
                            .filter_map(|e| ctx.db.edge(e))
                            .map(|e| GValue::Edge(Arc::new(e)))
                            .collect()
                    };
                    Ok(objs.into_iter().map(|o| t.to(ctx, o)).collect())
                };
                match make() {
                    Ok(v) => values(v),
                    Err(e) => Box::new(std::iter::once(Err(e))),
                }
            })
        }
        Op::VFind { label, key, value } => to_vertices(ctx, input, move || {
            ctx.db.find(label, key, value).unwrap_or_default()
        }),
        Op::VScan {
            label,
            key,
            pred,
            fallback,
        } => {
            let Some(snap) = ctx.db.snapshot() else {
                return run(ctx, fallback, input);
            };
            to_vertices(ctx, input, move || {
                let test = |x: &stratagraph::Value| pred.test(&super::db::from_value(x));
                snap.scan_vertices(label.as_deref(), key, &test)
            })
        }
        Op::VLabel {
            label,
            count,
            fallback,
        } => {
            let Some(snap) = ctx.db.snapshot() else {
                return run(ctx, fallback, input);
            };
            if *count {
                return barrier(input, move |ts| {
                    let each = snap.vertices_labelled(label).len() as u64;
                    let n = ts
                        .iter()
                        .fold(0u64, |n, t| n.saturating_add(t.bulk.saturating_mul(each)));
                    Ok(vec![Traverser::fresh(ctx, GValue::Int64(n as i64))])
                });
            }
            to_vertices(ctx, input, move || snap.vertices_labelled(label))
        }
        Op::Inject(vals, after) => {
            let mut input = input.peekable();
            let seeded = matches!(input.peek(), Some(Ok(t)) if t.seed);
            if seeded {
                let seed = match input.next() {
                    Some(Ok(t)) => t,
                    _ => Traverser::fresh(ctx, GValue::Null),
                };
                let out: Vec<Result<Traverser>> =
                    vals.iter().map(|v| Ok(seed.to(ctx, v.clone()))).collect();
                return Box::new(out.into_iter().chain(input));
            }
            let injected = vals
                .iter()
                .map(move |v| Ok(Traverser::fresh(ctx, v.clone())));
            if *after {
                Box::new(input.chain(injected))
            } else {
                Box::new(injected.chain(input))
            }
        }
        Op::Adjacent { dir, labels, edges } => lazy_merge(
            ctx,
            flat(input, move |t| -> Stream<'a> {
                let GValue::Vertex(v) = &t.obj else {
                    return Box::new(std::iter::once(Err(rt(format!(
                        "{}() applies to a vertex, not a {}",
                        match dir {
                            DirectionToken::Out => "out",
                            DirectionToken::In => "in",
                            DirectionToken::Both => "both",
                        },
                        t.obj.type_name()
                    )))));
                };
                if !*edges {
                    let out: Vec<Traverser> = ctx
                        .db
                        .adjacent_vertices(*v, dir_of(*dir), labels)
                        .into_iter()
                        .map(|w| t.to(ctx, GValue::Vertex(w)))
                        .collect();
                    return values(out);
                }
                let es = ctx.db.edges_of(*v, dir_of(*dir), labels);
                let v = *v;
                let out: Vec<Traverser> = es
                    .into_iter()
                    .map(|e| {
                        if *edges {
                            t.to(ctx, GValue::Edge(Arc::new(e)))
                        } else {
                            let other = match dir {
                                DirectionToken::Out => e.dst,
                                DirectionToken::In => e.src,
                                DirectionToken::Both if e.src == v => e.dst,
                                DirectionToken::Both => e.src,
                            };
                            t.to(ctx, GValue::Vertex(other))
                        }
                    })
                    .collect();
                values(out)
            }),
        ),
        Op::Frontier(f) => super::frontier::walk(ctx, f, input),
        Op::EdgeEnds(d) => flat(input, move |t| -> Stream<'a> {
            let GValue::Edge(e) = &t.obj else {
                return Box::new(std::iter::once(Err(rt(format!(
                    "outV()/inV()/bothV() apply to an edge, not a {}",
                    t.obj.type_name()
                )))));
            };
            let ends = match d {
                DirectionToken::Out => vec![e.src],
                DirectionToken::In => vec![e.dst],
                DirectionToken::Both => vec![e.src, e.dst],
            };
            values(
                ends.into_iter()
                    .map(|v| t.to(ctx, GValue::Vertex(v)))
                    .collect(),
            )
        }),
        Op::OtherV => map(input, move |t| {
            let GValue::Edge(e) = &t.obj else {
                return Err(rt(format!(
                    "otherV() applies to an edge, not a {}",
                    t.obj.type_name()
                )));
            };
            // The end the traverser did not come from: the previous object
            // on its path.
            let prev = t
                .path
                .as_ref()
                .and_then(|n| n.prev.as_ref())
                .map(|n| n.obj.clone());
            let other = match prev {
                Some(GValue::Vertex(v)) if v == e.src => e.dst,
                Some(GValue::Vertex(v)) if v == e.dst => e.src,
                _ => e.dst,
            };
            Ok(Some(t.to(ctx, GValue::Vertex(other))))
        }),
        Op::Has(test) => {
            let test = match test {
                HasTest::Id(p) => HasTest::Id(ids_in(ctx, p)),
                other => other.clone(),
            };
            filter(input, move |t| has(ctx, &test, t))
        }
        Op::HasNot(k) => filter(input, move |t| {
            Ok(!has(ctx, &HasTest::Exists(k.clone()), t)?)
        }),
        Op::Is(p) => filter(input, move |t| Ok(p.test(&t.obj))),
        Op::WherePred { start, pred, by } => filter(input, move |t| {
            let lhs_obj = match start {
                Some(s) => match select_one(t, ctx, PopToken::Last, &GValue::String(s.clone())) {
                    Some(v) => v,
                    None => return Ok(false),
                },
                None => t.obj.clone(),
            };
            let by_at = |i: usize| by.get(if by.is_empty() { 0 } else { i % by.len() });
            let apply_by = |v: GValue, i: usize| -> Result<Option<GValue>> {
                match by_at(i) {
                    None => Ok(Some(v)),
                    Some(b) => by_value(ctx, b, &t.to(ctx, v)),
                }
            };
            let Some(lhs) = apply_by(lhs_obj, 0)? else {
                return Ok(false);
            };
            // The predicate's values name step labels; the `by`s after the
            // first apply to them in turn.
            let next_by = std::cell::Cell::new(1usize);
            let resolve = |v: &GValue| -> Result<Option<GValue>> {
                match v {
                    GValue::String(_) => match select_one(t, ctx, PopToken::Last, v) {
                        Some(x) => {
                            let i = next_by.get();
                            next_by.set(i + 1);
                            apply_by(x, i)
                        }
                        None => Ok(None),
                    },
                    other => Ok(Some(other.clone())),
                }
            };
            let p = map_pred(pred, &resolve)?;
            Ok(p.is_some_and(|p| p.test(&lhs)))
        }),
        Op::Filter(p) => filter(input, move |t| yields(ctx, p, t)),
        Op::Not(p) => filter(input, move |t| Ok(!yields(ctx, p, t)?)),
        Op::And(ps) => filter(input, move |t| {
            for p in ps {
                if !yields(ctx, p, t)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }),
        Op::Or(ps) => filter(input, move |t| {
            for p in ps {
                if yields(ctx, p, t)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }),
        Op::Dedup { local: true, .. } => map(input, move |t| {
            let obj = match &t.obj {
                GValue::List(i) | GValue::Set(i) => GValue::set(i.iter().cloned()),
                other => other.clone(),
            };
            Ok(Some(t.to(ctx, obj)))
        }),
        Op::Dedup { labels, by, .. } => {
            let seen = std::cell::RefCell::new(rustc_hash::FxHashSet::<GValue>::default());
            map(input, move |mut t| {
                let key = if labels.is_empty() {
                    match by {
                        Some(b) => match by_value(ctx, b, &t)? {
                            Some(k) => k,
                            None => return Ok(None),
                        },
                        None => t.obj.clone(),
                    }
                } else {
                    let mut parts = Vec::new();
                    for l in labels {
                        let v = select_one(&t, ctx, PopToken::Last, &GValue::String(l.clone()))
                            .unwrap_or(GValue::Null);
                        let v = match by {
                            Some(b) => by_value(ctx, b, &t.to(ctx, v))?.unwrap_or(GValue::Null),
                            None => v,
                        };
                        parts.push(v);
                    }
                    GValue::list(parts)
                };
                if seen.borrow_mut().insert(key) {
                    t.bulk = 1;
                    Ok(Some(t))
                } else {
                    Ok(None)
                }
            })
        }
        // The common case, read off the path's nodes without copying it.
        Op::PathFilter {
            simple,
            from: None,
            to: None,
            by,
        } if by.is_empty() => filter(input, move |t| {
            let mut objs: Vec<&GValue> = Vec::new();
            let mut node = t.path.as_deref();
            while let Some(n) = node {
                objs.push(&n.obj);
                node = n.prev.as_deref();
            }
            let unique = if objs.len() <= 16 {
                (1..objs.len()).all(|i| !objs[..i].contains(&objs[i]))
            } else {
                let mut seen = rustc_hash::FxHashSet::default();
                objs.iter().all(|o| seen.insert(*o))
            };
            Ok(unique == *simple)
        }),
        Op::PathFilter {
            simple,
            from,
            to,
            by,
        } => filter(input, move |t| {
            let path = t.path_value();
            let mut objs: Vec<(Vec<Arc<str>>, GValue)> = path.entries;
            if let Some(f) = from {
                if let Some(i) = objs.iter().position(|(l, _)| l.contains(f)) {
                    objs.drain(..i);
                }
            }
            if let Some(to) = to {
                if let Some(i) = objs.iter().position(|(l, _)| l.contains(to)) {
                    objs.truncate(i + 1);
                }
            }
            let mut seen = rustc_hash::FxHashSet::default();
            let mut unique = true;
            for (i, (_, o)) in objs.into_iter().enumerate() {
                let key = match by.get(if by.is_empty() { 0 } else { i % by.len() }) {
                    Some(b) => by_value(ctx, b, &t.to(ctx, o))?.unwrap_or(GValue::Null),
                    None => o,
                };
                if !seen.insert(key) {
                    unique = false;
                    break;
                }
            }
            Ok(unique == *simple)
        }),
        Op::Range {
            local: false,
            low,
            high,
        } => {
            let (low, high) = (*low, *high);
            let mut pos: u64 = 0;
            let mut input = input;
            Box::new(std::iter::from_fn(move || loop {
                if high.is_some_and(|h| pos >= h) {
                    return None;
                }
                let mut t = match input.next()? {
                    Ok(t) => t,
                    Err(e) => return Some(Err(e)),
                };
                let start = pos;
                let end = pos + t.bulk;
                pos = end;
                let lo = start.max(low);
                let hi = high.map_or(end, |h| end.min(h));
                if hi > lo {
                    t.bulk = hi - lo;
                    return Some(Ok(t));
                }
            }))
        }
        Op::Range {
            local: true,
            low,
            high,
        } => map(input, move |t| {
            let Some(items) = local_items(&t.obj) else {
                return Ok(Some(t));
            };
            let lo = (*low as usize).min(items.len());
            let hi = high
                .map_or(items.len(), |h| (h as usize).min(items.len()))
                .max(lo);
            let kept: Vec<GValue> = items[lo..hi].to_vec();
            let obj = same_kind(&t.obj, kept);
            Ok(Some(t.to(ctx, obj)))
        }),
        Op::Tail { local: false, n } => {
            let n = *n;
            barrier(input, move |ts| {
                let total: u64 = ts.iter().map(|t| t.bulk).sum();
                let mut skip = total.saturating_sub(n);
                let mut out = Vec::new();
                for mut t in ts {
                    if skip >= t.bulk {
                        skip -= t.bulk;
                        continue;
                    }
                    t.bulk -= skip;
                    skip = 0;
                    out.push(t);
                }
                Ok(out)
            })
        }
        Op::Tail { local: true, n } => map(input, move |t| {
            let Some(items) = local_items(&t.obj) else {
                return Ok(Some(t));
            };
            let lo = items.len().saturating_sub(*n as usize);
            let kept = items[lo..].to_vec();
            let obj = same_kind(&t.obj, kept);
            Ok(Some(t.to(ctx, obj)))
        }),
        Op::Coin(p) => {
            let p = *p;
            filter(input, move |_| {
                let mut b = [0u8; 8];
                b.copy_from_slice(&super::funcs::random_uuid()[..8]);
                Ok((u64::from_le_bytes(b) as f64 / u64::MAX as f64) < p)
            })
        }
        Op::Discard => Box::new(input.filter(|t| t.is_err())),
        Op::ListTest { all, negate, pred } => filter(input, move |t| {
            let items = match &t.obj {
                GValue::List(i) | GValue::Set(i) => i.to_vec(),
                GValue::Path(p) => p.objects().cloned().collect(),
                _ => return Ok(false),
            };
            Ok(match (*all, *negate) {
                (true, false) => items.iter().all(|v| pred.test(v)),
                (true, true) => !items.iter().any(|v| pred.test(v)),
                _ => items.iter().any(|v| pred.test(v)),
            })
        }),
        Op::Values(keys) => flat(input, move |t| -> Stream<'a> {
            match &t.obj {
                GValue::Map(m) => {
                    let out: Vec<Traverser> = m
                        .iter()
                        .filter(|(k, _)| match k {
                            GValue::String(s) => keys.is_empty() || keys.contains(s),
                            _ => keys.is_empty(),
                        })
                        .map(|(_, v)| t.to(ctx, v.clone()))
                        .collect();
                    values(out)
                }
                GValue::Vertex(_) | GValue::Edge(_) => values(
                    props_of(ctx, &t.obj, keys)
                        .into_iter()
                        .map(|(_, v)| t.to(ctx, v))
                        .collect(),
                ),
                GValue::VertexProperty(_) | GValue::Property(_) => Box::new(std::iter::empty()),
                other => Box::new(std::iter::once(Err(rt(format!(
                    "values() applies to an element, not a {}",
                    other.type_name()
                ))))),
            }
        }),
        Op::Properties(keys) => flat(input, move |t| -> Stream<'a> {
            let out: Vec<Traverser> = props_of(ctx, &t.obj, keys)
                .into_iter()
                .map(|(k, v)| t.to(ctx, prop_obj(&t.obj, k, v)))
                .collect();
            values(out)
        }),
        Op::ValueMap { tokens, keys, by } => map(input, move |t| {
            let vertex = matches!(t.obj, GValue::Vertex(_));
            let mut out = Vec::new();
            if tokens & 1 != 0 {
                out.push((GValue::T(TToken::Id), id_of(ctx, &t.obj)?));
            }
            if tokens & 2 != 0 {
                out.push((GValue::T(TToken::Label), label_of(ctx, &t.obj)?));
            }
            for (k, v) in props_of(ctx, &t.obj, keys) {
                let v = if vertex { GValue::list(vec![v]) } else { v };
                let v = match by {
                    Some(b) => match by_value(ctx, b, &t.to(ctx, v.clone()))? {
                        Some(x) => x,
                        None => continue,
                    },
                    None => v,
                };
                out.push((GValue::String(k), v));
            }
            Ok(Some(t.to(ctx, GValue::map(out))))
        }),
        Op::ElementMap(keys) => map(input, move |t| {
            let m = element_map(ctx, &t.obj, keys)?;
            Ok(Some(t.to(ctx, m)))
        }),
        Op::PropertyMap(keys) => map(input, move |t| {
            let vertex = matches!(t.obj, GValue::Vertex(_));
            let out: Vec<(GValue, GValue)> = props_of(ctx, &t.obj, keys)
                .into_iter()
                .map(|(k, v)| {
                    let p = prop_obj(&t.obj, k.clone(), v);
                    (
                        GValue::String(k),
                        if vertex { GValue::list(vec![p]) } else { p },
                    )
                })
                .collect();
            Ok(Some(t.to(ctx, GValue::map(out))))
        }),
        Op::Id => map(input, move |t| {
            let v = id_of(ctx, &t.obj)?;
            Ok(Some(t.to(ctx, v)))
        }),
        Op::Label => map(input, move |t| {
            let v = label_of(ctx, &t.obj)?;
            Ok(Some(t.to(ctx, v)))
        }),
        Op::Key => map(input, move |t| {
            let v = token_value(ctx, &t.obj, TToken::Key)?;
            Ok(Some(t.to(ctx, v)))
        }),
        Op::Value => map(input, move |t| {
            let v = token_value(ctx, &t.obj, TToken::Value)?;
            Ok(Some(t.to(ctx, v)))
        }),
        Op::AdjacentCount { dir, labels } => barrier(input, move |ts| {
            let mut n: u64 = 0;
            for t in &ts {
                let GValue::Vertex(v) = &t.obj else {
                    return Err(rt(format!(
                        "{}() applies to a vertex, not a {}",
                        match dir {
                            DirectionToken::Out => "out",
                            DirectionToken::In => "in",
                            DirectionToken::Both => "both",
                        },
                        t.obj.type_name()
                    )));
                };
                let d = ctx.db.edge_count(*v, dir_of(*dir), labels);
                n = n.saturating_add(t.bulk.saturating_mul(d));
            }
            Ok(vec![Traverser::fresh(ctx, GValue::Int64(n as i64))])
        }),
        Op::Count { local: false } => barrier(input, move |ts| {
            let n: u64 = ts.iter().map(|t| t.bulk).sum();
            Ok(vec![Traverser::fresh(ctx, GValue::Int64(n as i64))])
        }),
        Op::Count { local: true } => map(input, move |t| {
            let n = match &t.obj {
                GValue::List(i) | GValue::Set(i) => i.len(),
                GValue::Map(m) => m.len(),
                GValue::Path(p) => p.entries.len(),
                _ => 1,
            };
            Ok(Some(t.to(ctx, GValue::Int64(n as i64))))
        }),
        Op::Fold(None) => barrier(input, move |ts| {
            Ok(vec![Traverser::fresh(ctx, GValue::list(expand(&ts)))])
        }),
        Op::Fold(Some((seed, op))) => barrier(input, move |ts| {
            let mut acc = seed.clone();
            for v in expand(&ts) {
                acc = operator::apply(*op, &acc, &v)?;
            }
            Ok(vec![Traverser::fresh(ctx, acc)])
        }),
        Op::Unfold => flat(input, move |t| -> Stream<'a> {
            match local_items(&t.obj) {
                Some(items) => values(items.into_iter().map(|v| t.to(ctx, v)).collect()),
                None => Box::new(std::iter::once(Ok(t))),
            }
        }),
        Op::Constant(v) => map(input, move |t| Ok(Some(t.to(ctx, v.clone())))),
        Op::Identity => input,
        Op::Path { by, from, to } => map(input, move |t| {
            let mut p = t.path_value();
            if let Some(f) = from {
                if let Some(i) = p.entries.iter().position(|(l, _)| l.contains(f)) {
                    p.entries.drain(..i);
                }
            }
            if let Some(to) = to {
                if let Some(i) = p.entries.iter().position(|(l, _)| l.contains(to)) {
                    p.entries.truncate(i + 1);
                }
            }
            if !by.is_empty() {
                for (i, (_, o)) in p.entries.iter_mut().enumerate() {
                    let b = &by[i % by.len()];
                    match by_value(ctx, b, &t.to(ctx, o.clone()))? {
                        Some(v) => *o = v,
                        None => return Ok(None),
                    }
                }
            }
            Ok(Some(t.to(ctx, GValue::Path(Arc::new(p)))))
        }),
        Op::Select { pop, keys, by } => map(input, move |t| {
            let mut names = Vec::with_capacity(keys.len());
            for k in keys {
                match arg_value(ctx, k, &t)? {
                    Some(v) => names.push(v),
                    None => return Ok(None),
                }
            }
            let mut found = Vec::with_capacity(names.len());
            for (i, k) in names.iter().enumerate() {
                let Some(v) = select_one(&t, ctx, *pop, k) else {
                    return Ok(None);
                };
                let v = match by.get(if by.is_empty() { 0 } else { i % by.len() }) {
                    Some(b) => match by_value(ctx, b, &t.to(ctx, v))? {
                        Some(x) => x,
                        None => return Ok(None),
                    },
                    None => v,
                };
                found.push((k.clone(), v));
            }
            let obj = if found.len() == 1 {
                found.remove(0).1
            } else {
                GValue::map(found)
            };
            Ok(Some(t.to(ctx, obj)))
        }),
        Op::SelectColumn(c) => map(input, move |t| match column(&t.obj, *c) {
            Some(v) => Ok(Some(t.to(ctx, v))),
            None => Err(rt(format!(
                "select({}) applies to a map, not a {}",
                if *c == ColumnToken::Keys {
                    "keys"
                } else {
                    "values"
                },
                t.obj.type_name()
            ))),
        }),
        Op::Project { keys, by } => map(input, move |t| {
            let mut out = Vec::new();
            for (i, k) in keys.iter().enumerate() {
                let b = by.get(i).unwrap_or(&By::Identity);
                if let Some(v) = by_value(ctx, b, &t)? {
                    out.push((GValue::String(k.clone()), v));
                }
            }
            Ok(Some(t.to(ctx, GValue::map(out))))
        }),
        Op::Math { expr, by } => map(input, move |t| {
            let vars = expr.variables();
            let mut vals: FxHashMap<String, f64> = FxHashMap::default();
            for (i, name) in vars.iter().enumerate() {
                let raw = if name == "_" {
                    t.obj.clone()
                } else {
                    match select_one(&t, ctx, PopToken::Last, &GValue::str(name)) {
                        Some(v) => v,
                        None => {
                            return Err(rt(format!(
                                "math(): the variable {name} names no step label or map key"
                            )))
                        }
                    }
                };
                let v = match by.get(if by.is_empty() { 0 } else { i % by.len() }) {
                    Some(b) => match by_value(ctx, b, &t.to(ctx, raw))? {
                        Some(v) => v,
                        None => return Ok(None),
                    },
                    None => raw,
                };
                let f = v.as_f64().ok_or_else(|| {
                    rt(format!(
                        "math(): {name} is a {}, not a number",
                        v.type_name()
                    ))
                })?;
                vals.insert(name.clone(), f);
            }
            let r = expr.eval(&|n| vals.get(n).copied().unwrap_or(f64::NAN));
            Ok(Some(t.to(ctx, GValue::Float64(r))))
        }),
        Op::Reduce { kind, local: false } => barrier(input, move |ts| {
            let r = reduce(*kind, ts.iter().map(|t| (t.obj.clone(), t.bulk)))?;
            Ok(r.into_iter().map(|v| Traverser::fresh(ctx, v)).collect())
        }),
        Op::Reduce { kind, local: true } => map(input, move |t| {
            let items = match &t.obj {
                GValue::List(i) | GValue::Set(i) => i.to_vec(),
                other => vec![other.clone()],
            };
            let r = reduce(*kind, items.into_iter().map(|v| (v, 1)))?;
            Ok(r.map(|r| t.to(ctx, r)))
        }),
        Op::Order { local: false, by } => barrier(input, move |ts| sort_by_keys(ctx, ts, by)),
        Op::Order { local: true, by } => map(input, move |t| {
            let Some(items) = local_items(&t.obj) else {
                return Ok(Some(t));
            };
            let ts: Vec<Traverser> = items.into_iter().map(|v| t.to(ctx, v)).collect();
            let sorted = sort_by_keys(ctx, ts, by)?;
            let obj = same_kind(&t.obj, sorted.into_iter().map(|x| x.obj).collect());
            Ok(Some(t.to(ctx, obj)))
        }),
        Op::Group {
            side: None,
            key,
            value,
        } => barrier(input, move |ts| {
            let m = group_map(ctx, ts, key.as_ref(), value.as_ref())?;
            Ok(vec![Traverser::fresh(ctx, m)])
        }),
        Op::Group {
            side: Some(name),
            key,
            value,
        } => barrier(input, move |ts| {
            let m = group_map(ctx, ts.clone(), key.as_ref(), value.as_ref())?;
            ctx.side.borrow_mut().insert(name.clone(), m);
            Ok(ts)
        }),
        Op::GroupCount { side: None, by } => barrier(input, move |ts| {
            let m = group_count_map(ctx, &ts, by.as_ref())?;
            Ok(vec![Traverser::fresh(ctx, m)])
        }),
        Op::GroupCount {
            side: Some(name),
            by,
        } => barrier(input, move |ts| {
            let m = group_count_map(ctx, &ts, by.as_ref())?;
            let mut side = ctx.side.borrow_mut();
            // A side effect met again (in a repeat) adds to its counts.
            let merged = match (side.get(&**name), m) {
                (Some(GValue::Map(old)), GValue::Map(new)) => {
                    let mut all: Vec<(GValue, GValue)> = old.to_vec();
                    for (k, c) in new.iter() {
                        match all.iter_mut().find(|(k2, _)| k2 == k) {
                            Some((_, n)) => *n = operator::arith('+', n, c)?,
                            None => all.push((k.clone(), c.clone())),
                        }
                    }
                    GValue::map(all)
                }
                (_, m) => m,
            };
            side.insert(name.clone(), merged);
            drop(side);
            Ok(ts)
        }),
        Op::Map(p) => map(input, move |t| match first(ctx, p, &t)? {
            Some(r) => Ok(Some(t.to(ctx, r.obj))),
            None => Ok(None),
        }),
        Op::FlatMap(p) => flat(input, move |t| -> Stream<'a> {
            let t2 = t.clone();
            Box::new(sub(ctx, p, t).map(move |r| {
                r.map(|r| {
                    let mut n = t2.to(ctx, r.obj);
                    n.bulk = r.bulk;
                    n
                })
            }))
        }),
        Op::Local(p) => flat(input, move |t| sub(ctx, p, t)),
        Op::Loops(name) => map(input, move |t| {
            let n = loop_count(&t, name.as_deref());
            Ok(Some(t.to(ctx, GValue::Int32(n as i32))))
        }),
        // Every branch runs once over all the traversers, as TinkerPop's
        // branch children do (`union(count(), ...)` counts them all).
        Op::Union(ps) => barrier(input, move |ts| {
            let mut out = Vec::new();
            for p in ps {
                for r in run(ctx, p, values(ts.clone())) {
                    out.push(r?);
                }
            }
            Ok(out)
        }),
        Op::WhereStart(label) => map(input, move |mut t| {
            match select_one(&t, ctx, PopToken::Last, &GValue::String(label.clone())) {
                Some(v) => {
                    t.obj = v;
                    t.fresh = false;
                    Ok(Some(t))
                }
                None => Ok(None),
            }
        }),
        Op::WhereEnd(label) => filter(input, move |t| {
            Ok(
                select_one(t, ctx, PopToken::Last, &GValue::String(label.clone()))
                    .is_some_and(|v| crate::value::equals(&v, &t.obj)),
            )
        }),
        Op::Coalesce(ps) => flat(input, move |t| -> Stream<'a> {
            for p in ps {
                let mut s = sub(ctx, p, t.clone()).peekable();
                if s.peek().is_some() {
                    return Box::new(s);
                }
            }
            Box::new(std::iter::empty())
        }),
        Op::Optional(p) => flat(input, move |t| -> Stream<'a> {
            let mut s = sub(ctx, p, t.clone()).peekable();
            if s.peek().is_some() {
                Box::new(s)
            } else {
                Box::new(std::iter::once(Ok(t)))
            }
        }),
        Op::Choose(c) => choose(ctx, c, input),
        Op::Repeat(r) => repeat(ctx, r, input),
        Op::As(labels) => map(input, move |t| Ok(Some(t.labelled(labels)))),
        Op::Aggregate { key, local, by } => {
            // What `Operator.assign` has replaced the initial value with
            // so far in this query.
            let assigned: std::cell::RefCell<Option<GValue>> = std::cell::RefCell::new(None);
            let add = move |t: &Traverser| -> Result<()> {
                let v = match by {
                    Some(b) => match by_value(ctx, b, t)? {
                        Some(v) => v,
                        None => return Ok(()),
                    },
                    None => t.obj.clone(),
                };
                let reducer = ctx.reducers.get(key).copied();
                let mut side = ctx.side.borrow_mut();
                let entry = side
                    .entry(key.clone())
                    .or_insert_with(|| GValue::list(Vec::new()));
                match reducer {
                    // Collection operators take what is aggregated as a
                    // collection of it.
                    Some(op @ (OperatorToken::AddAll | OperatorToken::Assign)) => {
                        let mut items = Vec::new();
                        for _ in 0..t.bulk {
                            items.push(v.clone());
                        }
                        let add = GValue::list(items);
                        *entry = match (op, &*entry) {
                            (OperatorToken::Assign, GValue::List(_)) if !t.seed => {
                                let mut all = Vec::new();
                                if let Some(GValue::List(prev)) = assigned.borrow().as_ref() {
                                    all.extend(prev.iter().cloned());
                                }
                                all.extend(match &add {
                                    GValue::List(i) => i.to_vec(),
                                    _ => Vec::new(),
                                });
                                let all = GValue::list(all);
                                *assigned.borrow_mut() = Some(all.clone());
                                all
                            }
                            _ => operator::apply(op, entry, &add)?,
                        };
                    }
                    Some(op) => {
                        for _ in 0..t.bulk {
                            *entry = operator::apply(op, entry, &v)?;
                        }
                    }
                    None => {
                        let set = matches!(entry, GValue::Set(_));
                        let mut items = match &*entry {
                            GValue::List(i) | GValue::Set(i) => i.to_vec(),
                            other => vec![other.clone()],
                        };
                        for _ in 0..t.bulk {
                            items.push(v.clone());
                        }
                        // A side effect that starts as a set stays one.
                        *entry = if set {
                            GValue::set(items)
                        } else {
                            GValue::list(items)
                        };
                    }
                }
                Ok(())
            };
            if *local {
                map(input, move |t| {
                    add(&t)?;
                    Ok(Some(t))
                })
            } else {
                barrier(input, move |ts| {
                    ctx.side
                        .borrow_mut()
                        .entry(key.clone())
                        .or_insert_with(|| GValue::list(Vec::new()));
                    for t in &ts {
                        add(t)?;
                    }
                    Ok(ts)
                })
            }
        }
        Op::Cap(keys) => barrier(input, move |_| {
            let side = ctx.side.borrow();
            let get = |k: &Arc<str>| side.get(k).cloned().unwrap_or(GValue::list(Vec::new()));
            let obj = if keys.len() == 1 {
                get(&keys[0])
            } else {
                GValue::map(keys.iter().map(|k| (GValue::String(k.clone()), get(k))))
            };
            Ok(vec![Traverser::fresh(ctx, obj)])
        }),
        Op::SideEffect(p) => map(input, move |t| {
            for r in sub(ctx, p, t.clone()) {
                r?;
            }
            Ok(Some(t))
        }),
        Op::Barrier => barrier(input, move |ts| Ok(merge_bulk(ts))),
        Op::Sample {
            local: false,
            n,
            by,
        } => barrier(input, move |ts| {
            let mut weighted = Vec::with_capacity(ts.len());
            for t in ts {
                let w = match by {
                    Some(b) => by_value(ctx, b, &t)?
                        .and_then(|v| v.as_f64())
                        .unwrap_or(0.0),
                    None => 1.0,
                };
                for _ in 0..t.bulk {
                    let mut one = t.clone();
                    one.bulk = 1;
                    weighted.push((w, one));
                }
            }
            Ok(sample(weighted, *n))
        }),
        Op::Sample { local: true, n, .. } => map(input, move |t| {
            let Some(items) = local_items(&t.obj) else {
                return Ok(Some(t));
            };
            let picked = sample(items.iter().map(|v| (1.0, v.clone())).collect(), *n);
            let obj = same_kind(&t.obj, picked);
            Ok(Some(t.to(ctx, obj)))
        }),
        Op::Tree { side, by } => barrier(input, move |ts| {
            let mut root = TreeNode::default();
            for t in &ts {
                let mut node = &mut root;
                for (i, obj) in t.path_value().objects().enumerate() {
                    let key = match by.get(if by.is_empty() { 0 } else { i % by.len() }) {
                        Some(b) => match by_value(ctx, b, &t.to(ctx, obj.clone()))? {
                            Some(k) => k,
                            None => break,
                        },
                        None => obj.clone(),
                    };
                    node = node.child(key);
                }
            }
            let tree = root.value();
            match side {
                Some(k) => {
                    ctx.side.borrow_mut().insert(k.clone(), tree);
                    Ok(ts)
                }
                None => Ok(vec![Traverser::fresh(ctx, tree)]),
            }
        }),
        Op::Element => map(input, move |t| {
            let owner = match &t.obj {
                GValue::VertexProperty(p) | GValue::Property(p) => match p.owner {
                    Owner::Vertex(v) => GValue::Vertex(v),
                    Owner::Edge(e) => match ctx.db.edge(e) {
                        Some(e) => GValue::Edge(Arc::new(e)),
                        None => return Ok(None),
                    },
                    Owner::None => return Ok(None),
                },
                other => {
                    return Err(rt(format!(
                        "element() applies to a property, not a {}",
                        other.type_name()
                    )))
                }
            };
            Ok(Some(t.to(ctx, owner)))
        }),
        Op::Format { template, by } => map(input, move |t| {
            let mut out = String::new();
            let mut rest: &str = template;
            let mut next_by = 0usize;
            while let Some(i) = rest.find("%{") {
                out.push_str(&rest[..i]);
                let after = &rest[i + 2..];
                let Some(j) = after.find('}') else {
                    out.push_str(&rest[i..]);
                    rest = "";
                    break;
                };
                let name = &after[..j];
                let value = if name == "_" {
                    if by.is_empty() {
                        Some(t.obj.clone())
                    } else {
                        let b = &by[next_by % by.len()];
                        next_by += 1;
                        by_value(ctx, b, &t)?
                    }
                } else {
                    let own = match &t.obj {
                        GValue::Vertex(_) | GValue::Edge(_) | GValue::Map(_) => {
                            property_value(ctx, &t.obj, name)?
                        }
                        _ => None,
                    };
                    own.or_else(|| select_one(&t, ctx, PopToken::Last, &GValue::str(name)))
                };
                match value {
                    Some(v) => out.push_str(&v.to_string()),
                    None => return Ok(None),
                }
                rest = &after[j + 1..];
            }
            out.push_str(rest);
            Ok(Some(t.to(ctx, GValue::str(&out))))
        }),
        Op::SackGet => map(input, move |t| {
            let v = t.sack.clone().unwrap_or(GValue::Null);
            Ok(Some(t.to(ctx, v)))
        }),
        Op::SackSet { op, by } => map(input, move |mut t| {
            let v = match by {
                Some(b) => match by_value(ctx, b, &t)? {
                    Some(v) => v,
                    None => return Ok(None),
                },
                None => t.obj.clone(),
            };
            let acc = t.sack.clone().unwrap_or(GValue::Null);
            t.sack = Some(
                if matches!(acc, GValue::Null) && *op != OperatorToken::Assign {
                    v
                } else {
                    operator::apply(*op, &acc, &v)?
                },
            );
            Ok(Some(t))
        }),
        Op::Index { map: as_map } => map(input, move |t| {
            let items = match &t.obj {
                GValue::List(i) | GValue::Set(i) => i.to_vec(),
                other => vec![other.clone()],
            };
            let obj = if *as_map {
                GValue::map(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| (GValue::Int32(i as i32), v)),
                )
            } else {
                GValue::list(
                    items
                        .into_iter()
                        .enumerate()
                        .map(|(i, v)| GValue::list(vec![v, GValue::Int32(i as i32)]))
                        .collect(),
                )
            };
            Ok(Some(t.to(ctx, obj)))
        }),
        Op::Func {
            name, args, local, ..
        } => map(input, move |t| {
            let mut vals = Vec::with_capacity(args.len());
            let mut trav = Vec::with_capacity(args.len());
            for a in args {
                vals.push(arg_value(ctx, a, &t)?.unwrap_or(GValue::Null));
                trav.push(matches!(a, Arg::Trav(_)));
            }
            let v = super::funcs::apply(name, &t.obj, &vals, &trav, *local)?;
            Ok(Some(t.to(ctx, v)))
        }),
        Op::AddV { label, id } => map(input, move |t| {
            let label = match label {
                None => stratagraph::DEFAULT_LABEL.to_string(),
                Some(a) => match arg_value(ctx, a, &t)? {
                    Some(GValue::String(s)) => s.to_string(),
                    Some(other) => {
                        return Err(rt(format!("addV(): a label must be a string, not {other}")))
                    }
                    None => {
                        return Err(rt("The provided traverser does not map to a value: addV()"))
                    }
                },
            };
            let v = ctx.db.add_vertex(id.as_ref(), &label)?;
            Ok(Some(t.to(ctx, GValue::Vertex(v))))
        }),
        Op::AddE {
            label,
            id,
            from,
            to,
        } => map(input, move |t| {
            let label = match arg_value(ctx, label, &t)? {
                Some(GValue::String(s)) => s,
                Some(other) => {
                    return Err(rt(format!("addE(): a label must be a string, not {other}")))
                }
                None => return Err(rt("The provided traverser does not map to a value: addE()")),
            };
            let src = edge_end(ctx, from, &t, "from")?;
            let dst = edge_end(ctx, to, &t, "to")?;
            let e = ctx.db.add_edge(src, dst, &label, id.as_ref())?;
            Ok(Some(t.to(ctx, GValue::Edge(Arc::new(e)))))
        }),
        Op::Property { key, value, list } => map(input, move |t| {
            let key = match arg_value(ctx, key, &t)? {
                Some(GValue::String(s)) => s,
                Some(GValue::T(tok)) => {
                    return Err(rt(format!(
                        "property(T.{}) can only be set as the element is created",
                        crate::value::t_name(tok)
                    )))
                }
                Some(other) => {
                    return Err(rt(format!(
                        "property(): a key must be a string, not {other}"
                    )))
                }
                None => return Ok(Some(t)),
            };
            let value = arg_value(ctx, value, &t)?.unwrap_or(GValue::Null);
            if *list {
                if let GValue::Vertex(v) = &t.obj {
                    if ctx.db.property(*v, &key).is_some() {
                        return Err(rt(format!(
                            "property(list, {key}, ...): a second value for one key (multi-properties) is not supported"
                        )));
                    }
                }
            }
            set_prop(ctx, &t.obj, &key, &value)?;
            Ok(Some(t))
        }),
        Op::SetProperties(m) => map(input, move |t| {
            if let GValue::Map(pairs) = m {
                for (k, v) in pairs.iter() {
                    match k {
                        GValue::String(k) => set_prop(ctx, &t.obj, k, v)?,
                        other => {
                            return Err(rt(format!(
                                "property(): a key must be a string, not {other}"
                            )))
                        }
                    }
                }
            } else {
                return Err(rt("property() takes a key and a value, or a map"));
            }
            Ok(Some(t))
        }),
        Op::Drop => map(input, move |t| {
            match &t.obj {
                GValue::Vertex(v) => ctx.db.drop_vertex(*v)?,
                GValue::Edge(e) => ctx.db.drop_edge(e.id)?,
                GValue::VertexProperty(p) => {
                    if let Owner::Vertex(v) = p.owner {
                        ctx.db.remove_property(v, &p.key)?;
                    }
                }
                GValue::Property(p) => {
                    if let Owner::Edge(e) = p.owner {
                        ctx.db.remove_edge_property(e, &p.key)?;
                    }
                }
                _ => {}
            }
            Ok(None)
        }),
        Op::Merge(m) => super::merge::apply(ctx, m, input),
        Op::Fail(msg) => map(input, move |_| {
            Err(rt(format!(
                "fail() step triggered{}",
                msg.as_ref().map(|m| format!(": {m}")).unwrap_or_default()
            )))
        }),
    }
}

pub(crate) fn set_prop(ctx: &Ctx, obj: &GValue, key: &str, value: &GValue) -> Result<()> {
    match obj {
        GValue::Vertex(v) => {
            if matches!(value, GValue::Null) {
                ctx.db.remove_property(*v, key)
            } else {
                ctx.db.set_property(*v, key, value)
            }
        }
        GValue::Edge(e) => {
            if matches!(value, GValue::Null) {
                ctx.db.remove_edge_property(e.id, key)
            } else {
                ctx.db.set_edge_property(e.id, key, value)
            }
        }
        other => Err(rt(format!(
            "property() applies to an element, not a {}",
            other.type_name()
        ))),
    }
}

/// `pred` with each value mapped by `f`; `None` if some value cannot be.
fn map_pred(
    p: &Predicate,
    f: &dyn Fn(&GValue) -> Result<Option<GValue>>,
) -> Result<Option<Predicate>> {
    Ok(Some(match p {
        Predicate::Eq(v)
        | Predicate::Neq(v)
        | Predicate::Lt(v)
        | Predicate::Lte(v)
        | Predicate::Gt(v)
        | Predicate::Gte(v) => match f(v)? {
            Some(x) => p.with_value(x),
            None => return Ok(None),
        },
        Predicate::Within(vs) | Predicate::Without(vs) => {
            let mut out = Vec::new();
            for v in vs {
                match f(v)? {
                    // A label bound to a collection (`aggregate`, a
                    // side effect) means its members.
                    Some(GValue::List(items)) | Some(GValue::Set(items))
                        if matches!(v, GValue::String(_)) =>
                    {
                        out.extend(items.iter().cloned())
                    }
                    Some(x) => out.push(x),
                    None => {}
                }
            }
            if matches!(p, Predicate::Within(_)) {
                Predicate::Within(out)
            } else {
                Predicate::Without(out)
            }
        }
        Predicate::And(a, b) => match (map_pred(a, f)?, map_pred(b, f)?) {
            (Some(a), Some(b)) => Predicate::And(Box::new(a), Box::new(b)),
            _ => return Ok(None),
        },
        Predicate::Or(a, b) => match (map_pred(a, f)?, map_pred(b, f)?) {
            (Some(a), Some(b)) => Predicate::Or(Box::new(a), Box::new(b)),
            (Some(a), None) | (None, Some(a)) => a,
            _ => return Ok(None),
        },
        Predicate::Not(a) => match map_pred(a, f)? {
            Some(a) => Predicate::Not(Box::new(a)),
            None => return Ok(None),
        },
        other => other.clone(),
    }))
}

/// A `tree()` under construction: children in first-seen order.
#[derive(Default)]
struct TreeNode {
    children: Vec<(GValue, TreeNode)>,
    index: FxHashMap<GValue, usize>,
}

impl TreeNode {
    fn child(&mut self, key: GValue) -> &mut TreeNode {
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                self.index.insert(key.clone(), self.children.len());
                self.children.push((key, TreeNode::default()));
                self.children.len() - 1
            }
        };
        &mut self.children[i].1
    }

    /// The tree as nested maps: each node to the map of its children.
    fn value(self) -> GValue {
        GValue::map(self.children.into_iter().map(|(k, n)| (k, n.value())))
    }
}

/// `n` of `items` drawn without replacement, each with probability in
/// proportion to its weight (items of no weight are never drawn).
fn sample<T>(mut items: Vec<(f64, T)>, n: u64) -> Vec<T> {
    use std::hash::{BuildHasher, Hasher};
    let mut state = std::collections::hash_map::RandomState::new()
        .build_hasher()
        .finish()
        | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    items.retain(|(w, _)| *w > 0.0 && w.is_finite());
    let mut out = Vec::new();
    while (out.len() as u64) < n && !items.is_empty() {
        let total: f64 = items.iter().map(|(w, _)| w).sum();
        let mut pick = next() * total;
        let mut chosen = items.len() - 1;
        for (i, (w, _)) in items.iter().enumerate() {
            if pick < *w {
                chosen = i;
                break;
            }
            pick -= w;
        }
        out.push(items.remove(chosen).1);
    }
    out
}

/// How deep lists, sets, maps and paths may nest in a value a `repeat`
/// builds.
const MAX_NESTING: usize = 256;

/// How many values, counted unfolded (a part shared twice counts twice),
/// one object a `repeat` builds may hold.
const MAX_UNFOLDED: u64 = 10_000_000;

/// The nesting depth of `v` and its size unfolded, both saturating; shared
/// parts are measured once, so this costs what `v` holds in memory even
/// when unfolded it would be far larger (`repeat(group())` doubles it each
/// pass).
fn measure(v: &GValue, memo: &mut FxHashMap<usize, (usize, u64)>) -> (usize, u64) {
    let (ptr, children): (usize, Vec<&GValue>) = match v {
        GValue::List(i) | GValue::Set(i) => (Arc::as_ptr(i) as usize, i.iter().collect()),
        GValue::Map(m) => (
            Arc::as_ptr(m) as usize,
            m.iter().flat_map(|(k, x)| [k, x]).collect(),
        ),
        GValue::Path(p) => (Arc::as_ptr(p) as usize, p.objects().collect()),
        GValue::VertexProperty(p) | GValue::Property(p) => {
            let (d, n) = measure(&p.value, memo);
            return (d, n.saturating_add(1));
        }
        _ => return (0, 1),
    };
    if let Some(&m) = memo.get(&ptr) {
        return m;
    }
    let mut depth = 0;
    let mut size: u64 = 1;
    for c in children {
        let (d, n) = measure(c, memo);
        depth = depth.max(d);
        size = size.saturating_add(n);
        if depth >= MAX_NESTING {
            break;
        }
    }
    let m = (depth + 1, size);
    memo.insert(ptr, m);
    m
}
