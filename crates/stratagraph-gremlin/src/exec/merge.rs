//! `mergeV()` and `mergeE()`: find an element by a map, or create it,
//! with `option(Merge.onCreate, ...)` and `option(Merge.onMatch, ...)`
//! (`spec/gremlin-semantics.asciidoc`, "mergeV()" and "mergeE()").
//!
//! For each traverser the step takes its *search map* (the argument, a
//! traversal's first result, or the incoming object for the no-argument
//! form; `null` is the empty map), finds every element whose id, label,
//! ends and properties equal the map's entries, and emits each after
//! `onMatch` has set its properties. When nothing matches it creates one
//! element from the search map joined with `onCreate` (which may add
//! entries but not change one the search map gives).
//!
//! Maps are validated as TinkerPop does, with its messages (clients match
//! on them): literal maps when the traversal is compiled, maps a
//! traversal yields when they are used. What this engine cannot hold — a
//! second value for one key (multi-properties) — is refused with an error
//! that says it is not supported, never silently dropped.

use std::sync::Arc;

use stratagraph::{EdgeDirection, VertexId};

use super::plan::{arg_err, Compiler, Plan};
use super::run::{first, flat, rt, set_prop, values, Stream};
use super::{Ctx, Traverser};
use crate::ast::{Cardinality, DirectionToken, EnumToken, Expr, MergeToken, Step, TToken};
use crate::error::{Error, Result};
use crate::value::{equals, EdgeRef, GValue};

/// The label TinkerPop gives an edge created without one
/// (`Edge.DEFAULT_LABEL`).
const DEFAULT_EDGE_LABEL: &str = "edge";

/// A value in a merge map. Besides plain values, a literal map may hold a
/// `Merge.outV`/`Merge.inV` placeholder (for `mergeE`'s ends, bound by
/// `option(Merge.outV/inV, ...)`) or a value with an explicit cardinality
/// (`Cardinality.single(x)`): neither has a [`GValue`] form, so merge maps
/// are kept in this richer shape.
#[derive(Debug, Clone)]
enum Val {
    Plain(GValue),
    Late(MergeToken),
    Card(Cardinality, GValue),
}

impl Val {
    /// The value a search compares with (a cardinality does not matter
    /// there); `None` for an unresolved placeholder.
    fn value(&self) -> Option<&GValue> {
        match self {
            Val::Plain(v) | Val::Card(_, v) => Some(v),
            Val::Late(_) => None,
        }
    }

    fn show(&self) -> String {
        match self {
            Val::Plain(v) | Val::Card(_, v) => v.to_string(),
            Val::Late(t) => merge_name(*t).to_string(),
        }
    }
}

/// A merge map: keys in insertion order, no two equivalent.
type Entries = Vec<(GValue, Val)>;

/// Where a map (or, for `outV`/`inV`, a vertex) comes from.
#[derive(Debug, Clone)]
enum Src {
    /// The incoming traverser's object (`mergeV()` with no argument).
    Incoming,
    /// A literal map or a parameter holding one (`null`: empty).
    Map(Entries),
    /// A literal that is not a map (only for `option(Merge.outV, id)`).
    Value(GValue),
    /// A traversal of the incoming traverser; its first result.
    Trav(Plan),
}

/// `option(Merge.onCreate/onMatch, map, cardinality?)`.
#[derive(Debug, Clone)]
struct Opt {
    src: Src,
    /// The cardinality the third argument gives every plain value.
    card: Option<Cardinality>,
}

/// A compiled `mergeV`/`mergeE`.
#[derive(Debug, Clone)]
pub(crate) struct Merge {
    edge: bool,
    search: Src,
    on_create: Option<Opt>,
    on_match: Option<Opt>,
    out_v: Option<Src>,
    in_v: Option<Src>,
}

/// Which map is validated: TinkerPop allows `T`/`Direction` keys in the
/// search and `onCreate` maps but only property keys in `onMatch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Search,
    Create,
    Match,
}

impl Merge {
    fn op(&self) -> &'static str {
        if self.edge {
            "mergeE"
        } else {
            "mergeV"
        }
    }
}

/// Compiles `mergeV(...)` or `mergeE(...)`.
pub(crate) fn compile(c: &mut Compiler<'_>, step: &Step) -> Result<Merge> {
    let edge = step.name == "mergeE";
    let search = match step.args.as_slice() {
        [] => Src::Incoming,
        [e] => match source(c, step, e)? {
            Src::Value(v) => {
                return Err(arg_err(
                    step,
                    format!(
                        "{}() expects a Map or a Traversal, found {}",
                        step.name,
                        v.type_name()
                    ),
                ))
            }
            s => s,
        },
        _ => {
            return Err(arg_err(
                step,
                format!("{}() takes at most one argument", step.name),
            ))
        }
    };
    let m = Merge {
        edge,
        search,
        on_create: None,
        on_match: None,
        out_v: None,
        in_v: None,
    };
    if let Src::Map(e) = &m.search {
        validate(e, Role::Search, m.edge).map_err(|msg| arg_err(step, msg))?;
    }
    Ok(m)
}

/// Folds an `option(...)` into the merge before it.
pub(crate) fn option(c: &mut Compiler<'_>, m: &mut Merge, step: &Step) -> Result<()> {
    let usage = "option() of mergeV()/mergeE() takes a Merge token (onCreate, onMatch, outV, inV) and a map or a traversal";
    let (tok, arg, card) = match step.args.as_slice() {
        [Expr::Enum(EnumToken::Merge(t)), a] => (*t, a, None),
        [Expr::Enum(EnumToken::Merge(t)), a, Expr::Enum(EnumToken::Cardinality(k))] => {
            (*t, a, Some(*k))
        }
        _ => return Err(arg_err(step, usage)),
    };
    let src = source(c, step, arg)?;
    match tok {
        MergeToken::OnCreate | MergeToken::OnMatch => {
            let role = if tok == MergeToken::OnCreate {
                Role::Create
            } else {
                Role::Match
            };
            let src = match src {
                Src::Value(v) => {
                    return Err(arg_err(
                        step,
                        format!(
                            "option({}) expects a Map or a Traversal, found {}",
                            merge_name(tok),
                            v.type_name()
                        ),
                    ))
                }
                Src::Trav(_) if card.is_some() => {
                    return Err(arg_err(
                        step,
                        "option() with a Cardinality takes a map, not a traversal",
                    ))
                }
                s => s,
            };
            if let Src::Map(entries) = &src {
                let entries = with_card(entries.clone(), card);
                validate(&entries, role, m.edge).map_err(|msg| arg_err(step, msg))?;
                if let (Role::Create, Src::Map(search)) = (role, &m.search) {
                    static_overrides(search, &entries).map_err(|msg| arg_err(step, msg))?;
                }
            }
            let opt = Some(Opt { src, card });
            if role == Role::Create {
                m.on_create = opt;
            } else {
                m.on_match = opt;
            }
        }
        MergeToken::OutV | MergeToken::InV => {
            if !m.edge {
                return Err(arg_err(
                    step,
                    format!(
                        "option({}) applies to mergeE(), not mergeV()",
                        merge_name(tok)
                    ),
                ));
            }
            if card.is_some() {
                return Err(arg_err(step, usage));
            }
            if let Src::Map(e) = &src {
                validate(e, Role::Search, false).map_err(|msg| arg_err(step, msg))?;
            }
            if tok == MergeToken::OutV {
                m.out_v = Some(src);
            } else {
                m.in_v = Some(src);
            }
        }
    }
    Ok(())
}

/// Runs the merge for each traverser.
pub(crate) fn apply<'a>(ctx: &'a Ctx, m: &'a Merge, input: Stream<'a>) -> Stream<'a> {
    flat(input, move |t| -> Stream<'a> {
        match merge_each(ctx, m, t) {
            Ok(v) => values(v),
            Err(e) => Box::new(std::iter::once(Err(e))),
        }
    })
}

// ---- compiling ----

/// A merge or option argument as written.
fn source(c: &mut Compiler<'_>, step: &Step, e: &Expr) -> Result<Src> {
    Ok(match e {
        Expr::Traversal(t) => Src::Trav(c.traversal(t)?),
        Expr::Null => Src::Map(Vec::new()),
        Expr::Map(pairs) => {
            let mut out = Vec::new();
            for (k, v) in pairs {
                let key = match k {
                    Expr::Enum(EnumToken::Merge(t)) => {
                        return Err(arg_err(
                            step,
                            format!("{} is not a key of a merge map", merge_name(*t)),
                        ))
                    }
                    other => c.value(other)?,
                };
                let val = match v {
                    Expr::Enum(EnumToken::Merge(t)) => Val::Late(*t),
                    Expr::Cardinality(card, inner) => Val::Card(*card, c.value(inner)?),
                    other => Val::Plain(c.value(other)?),
                };
                put(&mut out, key, val);
            }
            Src::Map(out)
        }
        other => match c.value(other)? {
            GValue::Null => Src::Map(Vec::new()),
            GValue::Map(pairs) => Src::Map(plain_entries(&pairs)),
            v => Src::Value(v),
        },
    })
}

/// Sets `key` in `entries`, replacing an equivalent key's value in place.
fn put(entries: &mut Entries, key: GValue, val: Val) {
    match entries.iter_mut().find(|(k, _)| *k == key) {
        Some(slot) => slot.1 = val,
        None => entries.push((key, val)),
    }
}

fn plain_entries(pairs: &[(GValue, GValue)]) -> Entries {
    pairs
        .iter()
        .map(|(k, v)| (k.clone(), Val::Plain(v.clone())))
        .collect()
}

/// `entries` with `card` given to each plain value (the third argument of
/// `option(Merge.onCreate, map, Cardinality.set)`).
fn with_card(entries: Entries, card: Option<Cardinality>) -> Entries {
    let Some(card) = card else { return entries };
    entries
        .into_iter()
        .map(|(k, v)| match (&k, v) {
            (GValue::String(_), Val::Plain(x)) => (k, Val::Card(card, x)),
            (_, v) => (k, v),
        })
        .collect()
}

fn merge_name(t: MergeToken) -> &'static str {
    match t {
        MergeToken::OnCreate => "onCreate",
        MergeToken::OnMatch => "onMatch",
        MergeToken::OutV => "outV",
        MergeToken::InV => "inV",
    }
}

/// TinkerPop's checks of a merge map's keys and values
/// (`MergeElementStep.validate`, `ElementHelper.validateProperty`,
/// `ElementHelper.validateLabel`), with its messages.
fn validate(entries: &Entries, role: Role, edge: bool) -> std::result::Result<(), String> {
    let op = if edge { "mergeE" } else { "mergeV" };
    for (k, v) in entries {
        match k {
            GValue::String(key) => {
                if key.is_empty() {
                    return Err("Property key can not be empty".into());
                }
                if key.starts_with('~') {
                    return Err(format!("Property key can not be a hidden key: {key}"));
                }
                if let Val::Late(t) = v {
                    return Err(format!(
                        "Merge.{} may only be the value of Direction.{}",
                        merge_name(*t),
                        if *t == MergeToken::InV { "IN" } else { "OUT" }
                    ));
                }
                continue;
            }
            _ if role == Role::Match => {
                return Err(format!(
                    "option(onMatch) expects keys in Map to be of String - check: {k}"
                ));
            }
            GValue::T(TToken::Id | TToken::Label) => {}
            GValue::Direction(DirectionToken::Out | DirectionToken::In) if edge => {}
            other => {
                let allowed = if edge {
                    "[id, label, IN, OUT]"
                } else {
                    "[id, label]"
                };
                return Err(format!(
                    "{op}() and option(onCreate) args expect keys in Map to be either String or {allowed} - check: {other}"
                ));
            }
        }
        match (k, v) {
            (GValue::T(TToken::Label), Val::Plain(GValue::String(l))) => {
                if l.is_empty() {
                    return Err("Label can not be empty".into());
                }
                if l.starts_with('~') {
                    return Err(format!("Label can not be a hidden key: {l}"));
                }
            }
            (GValue::T(TToken::Label), other) => {
                let found = match other {
                    Val::Plain(x) | Val::Card(_, x) => x.type_name(),
                    Val::Late(_) => "Merge",
                };
                return Err(format!(
                    "{op}() and option(onCreate) args expect T.label value to be of String - found: {found}"
                ));
            }
            (GValue::T(_), Val::Plain(GValue::Null))
            | (GValue::Direction(_), Val::Plain(GValue::Null)) => {
                return Err(format!(
                    "{op}() does not allow null Map values - check: {k}"
                ));
            }
            (GValue::T(_), Val::Plain(_)) => {}
            (GValue::Direction(d), Val::Late(t)) => {
                let want = if *d == DirectionToken::Out {
                    MergeToken::OutV
                } else {
                    MergeToken::InV
                };
                if *t != want {
                    return Err(format!(
                        "Only Merge.{} token may be used for Direction.{k}, found: {}",
                        merge_name(want),
                        merge_name(*t)
                    ));
                }
            }
            (GValue::Direction(_), Val::Plain(_)) => {}
            (_, other) => {
                return Err(format!("{k} cannot take the value {}", other.show()));
            }
        }
    }
    Ok(())
}

/// The check TinkerPop makes when the traversal is built, for literal
/// maps: `onCreate` may repeat an entry of the search map but not change
/// it. Entries whose comparison needs the graph (a placeholder against a
/// vertex id) are left to the check when the element is created.
fn static_overrides(search: &Entries, create: &Entries) -> std::result::Result<(), String> {
    for (k, v) in create {
        let Some((_, s)) = search.iter().find(|(sk, _)| sk == k) else {
            continue;
        };
        let differ = match (s, v) {
            (Val::Late(a), Val::Late(b)) => a != b,
            (Val::Late(_), _) | (_, Val::Late(_)) => false,
            (a, b) => match (a.value(), b.value()) {
                (Some(GValue::Vertex(_)), _) | (_, Some(GValue::Vertex(_))) => false,
                (Some(x), Some(y)) => !equals(x, y),
                _ => false,
            },
        };
        if differ {
            return Err(override_msg(k, v));
        }
    }
    Ok(())
}

fn override_msg(k: &GValue, v: &Val) -> String {
    format!(
        "option(onCreate) cannot override values from merge() argument: ({k}, {})",
        v.show()
    )
}

// ---- running ----

/// Merges for one traverser: once per unit of its bulk, since a merge
/// writes (the first may create what the second then matches).
fn merge_each(ctx: &Ctx, m: &Merge, t: Traverser) -> Result<Vec<Traverser>> {
    if t.seed && matches!(m.search, Src::Incoming) {
        return Err(rt(format!(
            "{}() with no argument merges the incoming map, so it cannot start a traversal",
            m.op()
        )));
    }
    let times = t.bulk.max(1);
    let mut one = t;
    one.bulk = 1;
    // A start step replaces the seed: sub-traversals see an ordinary
    // traverser.
    one.seed = false;
    let mut out = Vec::new();
    for _ in 0..times {
        out.extend(merge_one(ctx, m, &one)?);
    }
    Ok(out)
}

fn merge_one(ctx: &Ctx, m: &Merge, t: &Traverser) -> Result<Vec<Traverser>> {
    let what = format!("{}()", m.op());
    let mut search = match &m.search {
        Src::Incoming => entries_of(&t.obj, &what)?,
        Src::Map(e) => e.clone(),
        Src::Trav(p) => eval_map(ctx, p, t, &what)?,
        Src::Value(v) => entries_of(v, &what)?,
    };
    if !matches!(m.search, Src::Map(_)) {
        validate(&search, Role::Search, m.edge).map_err(rt)?;
    }
    let found: Vec<GValue> = if m.edge {
        resolve_ends(ctx, m, t, &mut search)?;
        find_edges(ctx, &search)
            .into_iter()
            .map(|e| GValue::Edge(Arc::new(e)))
            .collect()
    } else {
        find_vertices(ctx, &search)?
            .into_iter()
            .map(GValue::Vertex)
            .collect()
    };
    if !found.is_empty() {
        let mut out = Vec::with_capacity(found.len());
        for obj in found {
            let moved = t.to(ctx, obj.clone());
            if let Some(opt) = &m.on_match {
                // The onMatch traversal sees the matched element.
                let updates = option_entries(ctx, m, opt, &moved, Role::Match)?;
                set_all(ctx, &obj, &updates)?;
            }
            out.push(moved);
        }
        return Ok(out);
    }
    let mut combined = search;
    if let Some(opt) = &m.on_create {
        let mut create = option_entries(ctx, m, opt, t, Role::Create)?;
        if m.edge {
            resolve_ends(ctx, m, t, &mut create)?;
        }
        for (k, v) in create {
            match combined.iter().find(|(ck, _)| *ck == k) {
                Some((_, s)) => {
                    if !same(s, &v) {
                        return Err(rt(override_msg(&k, &v)));
                    }
                }
                None => combined.push((k, v)),
            }
        }
    }
    let obj = if m.edge {
        create_edge(ctx, &combined)?
    } else {
        create_vertex(ctx, &combined)?
    };
    Ok(vec![t.to(ctx, obj)])
}

/// Whether an `onCreate` entry repeats the search map's (after both have
/// had their ends resolved to vertices).
fn same(a: &Val, b: &Val) -> bool {
    match (a, b) {
        (Val::Late(x), Val::Late(y)) => x == y,
        (Val::Late(_), _) | (_, Val::Late(_)) => false,
        _ => match (a.value(), b.value()) {
            (Some(x), Some(y)) => equals(x, y),
            _ => false,
        },
    }
}

/// A map value as merge entries (`null`: empty).
fn entries_of(v: &GValue, what: &str) -> Result<Entries> {
    match v {
        GValue::Null => Ok(Vec::new()),
        GValue::Map(pairs) => Ok(plain_entries(pairs)),
        other => Err(rt(format!(
            "{what} expects a Map, found {}: {other}",
            other.type_name()
        ))),
    }
}

/// The first result of a map-valued traversal.
fn eval_map(ctx: &Ctx, plan: &Plan, t: &Traverser, what: &str) -> Result<Entries> {
    match first(ctx, plan, t)? {
        Some(r) => entries_of(&r.obj, what),
        None => Err(rt(format!(
            "The provided traverser does not map to a value: {what}"
        ))),
    }
}

/// An `onCreate`/`onMatch` map for traverser `t`, validated.
fn option_entries(ctx: &Ctx, m: &Merge, opt: &Opt, t: &Traverser, role: Role) -> Result<Entries> {
    let what = format!(
        "option({})",
        if role == Role::Create {
            "onCreate"
        } else {
            "onMatch"
        }
    );
    Ok(match &opt.src {
        // Literal maps were validated when compiled.
        Src::Map(e) => with_card(e.clone(), opt.card),
        Src::Trav(p) => {
            let e = with_card(eval_map(ctx, p, t, &what)?, opt.card);
            validate(&e, role, m.edge).map_err(rt)?;
            e
        }
        Src::Value(v) => entries_of(v, &what)?,
        Src::Incoming => entries_of(&t.obj, &what)?,
    })
}

/// Binds `Merge.outV`/`Merge.inV` placeholders through their options, and
/// turns the ends that name an existing vertex into that vertex (an id
/// that names none stays as it is: nothing matches it, and creating with
/// it fails).
fn resolve_ends(ctx: &Ctx, m: &Merge, t: &Traverser, entries: &mut Entries) -> Result<()> {
    for (k, v) in entries.iter_mut() {
        let GValue::Direction(d) = k else { continue };
        if let Val::Late(tok) = v {
            let tok = *tok;
            let src = if tok == MergeToken::OutV {
                &m.out_v
            } else {
                &m.in_v
            };
            let Some(src) = src else {
                return Err(rt(format!(
                    "option({}) must be specified if it is used for {}",
                    merge_name(tok),
                    crate::value::direction_name(*d)
                )));
            };
            let vx = option_vertex(ctx, src, t, tok)?;
            *v = Val::Plain(GValue::Vertex(vx));
        } else if let Val::Plain(x) = v {
            if let Some(vx) = end_vertex(ctx, x) {
                *x = GValue::Vertex(vx);
            }
        }
    }
    Ok(())
}

/// The vertex `option(Merge.outV/inV, ...)` gives: a vertex, a vertex id,
/// or a map to search vertices with.
fn option_vertex(ctx: &Ctx, src: &Src, t: &Traverser, tok: MergeToken) -> Result<VertexId> {
    let value = match src {
        Src::Map(e) => return search_vertex(ctx, e, tok),
        Src::Value(v) => v.clone(),
        Src::Trav(p) => match first(ctx, p, t)? {
            Some(r) => r.obj,
            None => {
                return Err(rt(format!(
                    "Could not resolve vertex for option({})",
                    merge_name(tok)
                )))
            }
        },
        Src::Incoming => t.obj.clone(),
    };
    match &value {
        GValue::Map(pairs) => {
            let e = plain_entries(pairs);
            validate(&e, Role::Search, false).map_err(rt)?;
            search_vertex(ctx, &e, tok)
        }
        other => end_vertex(ctx, other)
            .ok_or_else(|| rt(format!("Vertex does not exist for mergeE: {other}"))),
    }
}

fn search_vertex(ctx: &Ctx, e: &Entries, tok: MergeToken) -> Result<VertexId> {
    find_vertices(ctx, e)?.into_iter().next().ok_or_else(|| {
        rt(format!(
            "Could not resolve vertex for option({})",
            merge_name(tok)
        ))
    })
}

/// The existing vertex a value names: a vertex, or a vertex's id.
fn end_vertex(ctx: &Ctx, v: &GValue) -> Option<VertexId> {
    if matches!(v, GValue::Null) {
        return None;
    }
    ctx.db.vertex_of_id(v).filter(|x| ctx.db.has_vertex(*x))
}

/// Values the engine's exact-match look-up compares as Gremlin does
/// (numbers are equal across types in Gremlin, not in an index).
fn indexable(v: &GValue) -> bool {
    matches!(
        v,
        GValue::String(_) | GValue::Bool(_) | GValue::Uuid(_) | GValue::Date(_)
    )
}

/// The vertices whose id, label and properties equal the map's entries.
fn find_vertices(ctx: &Ctx, search: &Entries) -> Result<Vec<VertexId>> {
    let mut id = None;
    let mut label: Option<&str> = None;
    let mut props: Vec<(&str, &GValue)> = Vec::new();
    for (k, v) in search {
        let Some(x) = v.value() else { continue };
        match k {
            GValue::T(TToken::Id) => id = Some(x),
            GValue::T(TToken::Label) => match x {
                GValue::String(s) => label = Some(s),
                other => {
                    return Err(rt(format!(
                        "mergeV() and option(onCreate) args expect T.label value to be of String - found: {}",
                        other.type_name()
                    )))
                }
            },
            GValue::String(key) => props.push((key, x)),
            _ => {}
        }
    }
    let candidates: Vec<VertexId> = if let Some(id) = id {
        end_vertex(ctx, id).into_iter().collect()
    } else if let (Some(l), Some((key, value))) = (label, props.iter().find(|(_, v)| indexable(v)))
    {
        ctx.db.find(l, key, value).unwrap_or_default()
    } else {
        ctx.db.vertices()
    };
    Ok(candidates
        .into_iter()
        .filter(|v| {
            if let Some(l) = label {
                let have = ctx.db.label(*v);
                if have.as_deref().unwrap_or(stratagraph::DEFAULT_LABEL) != l {
                    return false;
                }
            }
            props.iter().all(|(key, want)| {
                ctx.db
                    .property(*v, key)
                    .is_some_and(|have| equals(&have, want))
            })
        })
        .collect())
}

/// The edges whose id, label, ends and properties equal the map's
/// entries, read from the out-vertex's (or in-vertex's) edges when the map
/// names one.
fn find_edges(ctx: &Ctx, search: &Entries) -> Vec<EdgeRef> {
    let mut id = None;
    let mut label: Option<Arc<str>> = None;
    let mut ends: [Option<&GValue>; 2] = [None, None];
    let mut props: Vec<(&str, &GValue)> = Vec::new();
    for (k, v) in search {
        let Some(x) = v.value() else { continue };
        match k {
            GValue::T(TToken::Id) => id = Some(x),
            GValue::T(TToken::Label) => {
                if let GValue::String(s) = x {
                    label = Some(s.clone());
                }
            }
            GValue::Direction(DirectionToken::Out) => ends[0] = Some(x),
            GValue::Direction(DirectionToken::In) => ends[1] = Some(x),
            GValue::String(key) => props.push((key, x)),
            _ => {}
        }
    }
    let mut vs: [Option<VertexId>; 2] = [None, None];
    for (slot, end) in vs.iter_mut().zip(ends) {
        if let Some(x) = end {
            match end_vertex(ctx, x) {
                Some(v) => *slot = Some(v),
                // No such vertex: no edge has it as an end.
                None => return Vec::new(),
            }
        }
    }
    let labels: Vec<Arc<str>> = label.iter().cloned().collect();
    let candidates: Vec<EdgeRef> = if let Some(id) = id {
        ctx.db
            .edge_of_id(id)
            .and_then(|e| ctx.db.edge(e))
            .into_iter()
            .collect()
    } else if let Some(out) = vs[0] {
        ctx.db.edges_of(out, EdgeDirection::Out, &labels)
    } else if let Some(inv) = vs[1] {
        ctx.db.edges_of(inv, EdgeDirection::In, &labels)
    } else {
        ctx.db.edges()
    };
    candidates
        .into_iter()
        .filter(|e| {
            label.as_ref().is_none_or(|l| *l == e.label)
                && vs[0].is_none_or(|v| v == e.src)
                && vs[1].is_none_or(|v| v == e.dst)
                && props.iter().all(|(key, want)| {
                    ctx.db
                        .edge_property(e.id, key)
                        .is_some_and(|have| equals(&have, want))
                })
        })
        .collect()
}

/// Sets the property entries of `entries` on `obj` (the `T` and
/// `Direction` entries are the element's identity, set when it is
/// created).
fn set_all(ctx: &Ctx, obj: &GValue, entries: &Entries) -> Result<()> {
    for (k, v) in entries {
        let GValue::String(key) = k else { continue };
        match v {
            Val::Plain(x) | Val::Card(Cardinality::Single, x) => set_prop(ctx, obj, key, x)?,
            Val::Card(card, x) => {
                let GValue::Vertex(vx) = obj else {
                    return Err(rt(format!(
                        "Cardinality.{} is for vertex properties; an edge property ({key}) has one value",
                        card_name(*card)
                    )));
                };
                match ctx.db.property(*vx, key) {
                    None => set_prop(ctx, obj, key, x)?,
                    // A set already holding the value is unchanged.
                    Some(have) if *card == Cardinality::Set && equals(&have, x) => {}
                    Some(_) => {
                        return Err(rt(format!(
                            "Cardinality.{}({x}) for {key}: a second value for one key (multi-properties) is not supported",
                            card_name(*card)
                        )))
                    }
                }
            }
            Val::Late(t) => {
                return Err(rt(format!(
                    "Merge.{} is not a property value ({key})",
                    merge_name(*t)
                )))
            }
        }
    }
    Ok(())
}

fn card_name(c: Cardinality) -> &'static str {
    match c {
        Cardinality::Single => "single",
        Cardinality::Set => "set",
        Cardinality::List => "list",
    }
}

fn get<'e>(entries: &'e Entries, key: &GValue) -> Option<&'e Val> {
    entries.iter().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn label_in(entries: &Entries, default: &str) -> Result<String> {
    match get(entries, &GValue::T(TToken::Label)) {
        None => Ok(default.to_string()),
        Some(Val::Plain(GValue::String(s))) => Ok(s.to_string()),
        Some(other) => Err(rt(format!(
            "T.label must be a String, found {}",
            other.show()
        ))),
    }
}

fn id_in(entries: &Entries) -> Option<GValue> {
    match get(entries, &GValue::T(TToken::Id)) {
        Some(Val::Plain(GValue::Null)) | None => None,
        Some(v) => v.value().cloned(),
    }
}

fn create_vertex(ctx: &Ctx, entries: &Entries) -> Result<GValue> {
    let label = label_in(entries, stratagraph::DEFAULT_LABEL)?;
    let v = ctx.db.add_vertex(id_in(entries).as_ref(), &label)?;
    let obj = GValue::Vertex(v);
    // A null value on a new vertex is no property.
    let props: Entries = entries
        .iter()
        .filter(|(_, v)| !matches!(v.value(), Some(GValue::Null)))
        .cloned()
        .collect();
    set_all(ctx, &obj, &props)?;
    Ok(obj)
}

fn create_edge(ctx: &Ctx, entries: &Entries) -> Result<GValue> {
    let end = |d: DirectionToken, name: &str| -> Result<VertexId> {
        let v = get(entries, &GValue::Direction(d))
            .and_then(Val::value)
            .filter(|v| !matches!(v, GValue::Null))
            .ok_or_else(|| {
                rt(format!(
                    "{name} Vertex not specified in onCreate - edge cannot be created"
                ))
            })?;
        end_vertex(ctx, v).ok_or_else(|| {
            Error::Runtime(format!("Vertex id could not be resolved from mergeE: {v}"))
        })
    };
    let src = end(DirectionToken::Out, "Out")?;
    let dst = end(DirectionToken::In, "In")?;
    let label = label_in(entries, DEFAULT_EDGE_LABEL)?;
    let e = ctx.db.add_edge(src, dst, &label, id_in(entries).as_ref())?;
    let obj = GValue::Edge(Arc::new(e));
    let props: Entries = entries
        .iter()
        .filter(|(_, v)| !matches!(v.value(), Some(GValue::Null)))
        .cloned()
        .collect();
    set_all(ctx, &obj, &props)?;
    Ok(obj)
}

#[cfg(test)]
mod tests {
    use stratagraph::{Graph, Options};

    use crate::{execute, Bindings, GValue};

    fn run(g: &Graph, q: &str) -> crate::Result<Vec<GValue>> {
        execute(g, q, &Bindings::new())
    }

    fn count(g: &Graph, q: &str) -> i64 {
        let r = run(g, q).unwrap();
        r[0].as_i64().unwrap()
    }

    fn graph() -> Graph {
        let g = Graph::in_memory(Options::default());
        run(
            &g,
            "g.addV('person').property('name','marko').property('age',29).as('a').\
             addV('person').property('name','vadas').property('age',27).as('b').\
             addE('knows').from('a').to('b')",
        )
        .unwrap();
        g
    }

    #[test]
    fn creates_when_nothing_matches() {
        let g = graph();
        let r = run(&g, "g.mergeV([(T.label):'person', name:'stephen'])").unwrap();
        assert_eq!(r.len(), 1);
        assert!(matches!(r[0], GValue::Vertex(_)));
        assert_eq!(count(&g, "g.V().has('person','name','stephen').count()"), 1);
        assert_eq!(count(&g, "g.V().count()"), 3);
    }

    #[test]
    fn matches_without_creating() {
        let g = graph();
        let r = run(&g, "g.mergeV([(T.label):'person', name:'marko'])").unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(count(&g, "g.V().count()"), 2);
        // The empty map matches every vertex, once per incoming traverser.
        assert_eq!(run(&g, "g.V().mergeV([:])").unwrap().len(), 4);
    }

    #[test]
    fn on_create_and_on_match() {
        let g = graph();
        run(
            &g,
            "g.mergeV([name:'josh']).option(Merge.onCreate, [(T.label):'person', age:32]).\
             option(Merge.onMatch, [age:33])",
        )
        .unwrap();
        assert_eq!(
            count(
                &g,
                "g.V().has('person','name','josh').has('age',32).count()"
            ),
            1
        );
        run(
            &g,
            "g.mergeV([name:'josh']).option(Merge.onCreate, [(T.label):'person', age:32]).\
             option(Merge.onMatch, [age:33])",
        )
        .unwrap();
        assert_eq!(
            count(
                &g,
                "g.V().has('person','name','josh').has('age',33).count()"
            ),
            1
        );
        assert_eq!(count(&g, "g.V().count()"), 3);
    }

    #[test]
    fn merges_edges() {
        let g = graph();
        // Matches the existing edge and updates it.
        let r = run(
            &g,
            "g.V().has('name','marko').as('a').V().has('name','vadas').as('b').\
             mergeE([(T.label):'knows', (OUT):Merge.outV, (IN):Merge.inV]).\
             option(Merge.outV, select('a')).option(Merge.inV, select('b')).\
             option(Merge.onMatch, [weight:0.5])",
        )
        .unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(count(&g, "g.E().has('weight',0.5).count()"), 1);
        // Creates a self-loop.
        run(
            &g,
            "g.V().has('name','vadas').as('v').\
             mergeE([(T.label):'self', (OUT):Merge.outV, (IN):Merge.inV]).\
             option(Merge.outV, select('v')).option(Merge.inV, select('v'))",
        )
        .unwrap();
        assert_eq!(
            count(&g, "g.V().has('name','vadas').out('self').count()"),
            1
        );
        assert_eq!(count(&g, "g.E().count()"), 2);
    }

    #[test]
    fn merges_the_incoming_map() {
        let g = graph();
        let r = run(
            &g,
            "g.inject([(T.label):'person', name:'marko'], [(T.label):'person', name:'josh']).mergeV()",
        )
        .unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(count(&g, "g.V().count()"), 3);
        // With no map to merge, it cannot start a traversal.
        assert!(run(&g, "g.mergeV()").is_err());
    }

    #[test]
    fn errors() {
        let g = graph();
        let e = run(
            &g,
            "g.mergeV([(T.label):'a']).option(Merge.onCreate, [(T.label):'b'])",
        )
        .unwrap_err()
        .to_string();
        assert!(
            e.contains("option(onCreate) cannot override values from merge() argument"),
            "{e}"
        );
        let e = run(&g, "g.mergeE([(T.label):'likes'])")
            .unwrap_err()
            .to_string();
        assert!(e.contains("Out Vertex not specified"), "{e}");
        let e = run(&g, "g.mergeV([:]).option(Merge.onMatch, ['~id':1])")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("Property key can not be a hidden key: ~id"),
            "{e}"
        );
        // A second value for one key is refused, not dropped.
        let e = run(
            &g,
            "g.mergeV([name:'marko']).option(Merge.onMatch, [age:Cardinality.list(30)])",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("not supported"), "{e}");
        // Nothing was written by the failed queries.
        assert_eq!(count(&g, "g.V().count()"), 2);
        assert_eq!(count(&g, "g.V().has('age',30).count()"), 0);
    }
}
