//! Traversal strategies a query names with `withStrategies(...)`, applied
//! to the compiled plan as TinkerPop applies them to a traversal: by
//! rewriting it, in the root plan and in every plan nested in it
//! (`where`, `by`, `union`, `repeat`, ...).
//!
//! - Decorations change what the traversal sees or writes:
//!   `SubgraphStrategy` puts filters after the steps that produce vertices,
//!   edges and vertex properties; `PartitionStrategy` hides what is outside
//!   the read partitions and writes new elements into the write partition;
//!   `ElementIdStrategy` makes a property the elements' ids.
//! - `ProductiveByStrategy` makes a `by()` that yields nothing yield `null`.
//! - Verifications refuse a traversal (`ReadOnlyStrategy`,
//!   `EdgeLabelVerificationStrategy`, `ReservedKeysVerificationStrategy`,
//!   `VertexProgramRestrictionStrategy`).
//! - Optimisations and what only concerns OLAP or the wire are accepted and
//!   change nothing: the executor's results do not depend on them.
//!
//! `withoutStrategies(X)` removes `X` from those given; a strategy this
//! engine does not know, or cannot honour, is refused rather than ignored.

use std::sync::Arc;

use super::plan::{Arg, By, Choose, ChooseTest, Compiler, Emit, HasTest, Op, OptionKey, Plan};
use super::pred::Predicate;
use crate::ast::{DirectionToken, Expr, GTypeToken, Span, Strategy, TToken};
use crate::error::{Error, Result};
use crate::value::GValue;

/// Strategies whose effect is an optimisation, or which only concern OLAP,
/// remote results or logging: results here are the same with or without
/// them, so they are accepted (with any configuration) and do nothing.
const NO_EFFECT: &[&str] = &[
    "AdjacentToIncidentStrategy",
    "ByModulatorOptimizationStrategy",
    "ComputerFinalizationStrategy",
    "ComputerVerificationStrategy",
    "ConnectiveStrategy",
    "CountStrategy",
    "EarlyLimitStrategy",
    "FilterRankingStrategy",
    "GraphFilterStrategy",
    // Traversers here are never detached or sent elsewhere mid-traversal.
    "HaltedTraverserStrategy",
    "IdentityRemovalStrategy",
    "IncidentToAdjacentStrategy",
    "InlineFilterStrategy",
    // gremlin-lang has no lambdas to restrict.
    "LambdaRestrictionStrategy",
    "LazyBarrierStrategy",
    "MatchAlgorithmStrategy",
    "MatchPredicateStrategy",
    "MessagePassingReductionStrategy",
    "OptionsStrategy",
    "OrderLimitStrategy",
    "PathProcessorStrategy",
    "PathRetractionStrategy",
    "ProfileStrategy",
    // Elements are already returned as references (id and label).
    "ReferenceElementStrategy",
    "RepeatUnrollStrategy",
    // The planner and the executor already refuse what it refuses.
    "StandardVerificationStrategy",
    // Only refuses `VertexProgramStrategy`, checked before anything else.
    "VertexProgramRestrictionStrategy",
];

/// Applies `strategies` (less those `without` names) to `plan`.
///
/// Decorations run in the order given, then `ProductiveByStrategy`, then
/// the verifications, as TinkerPop orders its strategy categories.
pub(crate) fn apply(
    plan: &mut Plan,
    strategies: &[Strategy],
    without: &[String],
    c: &mut Compiler<'_>,
) -> Result<()> {
    let active: Vec<&Strategy> = strategies
        .iter()
        .filter(|s| !without.contains(&s.name))
        .collect();
    let named = |n: &str| active.iter().any(|s| s.name == n);
    if named("VertexProgramRestrictionStrategy") && named("VertexProgramStrategy") {
        return Err(Error::Runtime(
            "The TraversalSource does not allow the use of a GraphComputer traversal".into(),
        ));
    }
    let mut productive = false;
    let mut verify: Vec<&Strategy> = Vec::new();
    for s in &active {
        match s.name.as_str() {
            "SubgraphStrategy" => {
                let sub = Subgraph::new(s, c)?;
                subgraph(plan, &sub)?;
            }
            "PartitionStrategy" => {
                let p = Partition::new(s, c)?;
                partition(plan, &p)?;
            }
            "ElementIdStrategy" => {
                let key = element_id_key(s, c)?;
                element_id(plan, &key)?;
            }
            "ProductiveByStrategy" => {
                known_keys(s, &[])?;
                productive = true;
            }
            "ReadOnlyStrategy"
            | "EdgeLabelVerificationStrategy"
            | "ReservedKeysVerificationStrategy" => verify.push(s),
            n if NO_EFFECT.contains(&n) => {}
            other => {
                return Err(Error::Unsupported {
                    step: "withStrategies".into(),
                    span: s.span,
                    message: format!("the strategy {other} is not supported"),
                })
            }
        }
    }
    if productive {
        productive_by(plan)?;
    }
    for s in verify {
        match s.name.as_str() {
            "ReadOnlyStrategy" => {
                if c.writes {
                    return Err(Error::Runtime(
                        "The provided traversal has a mutating step and thus is not read only"
                            .into(),
                    ));
                }
            }
            "EdgeLabelVerificationStrategy" => {
                known_keys(s, &["throwException", "logWarning"])?;
                if flag(s, c, "throwException", false)? {
                    if let Some(step) = unlabelled_vertex_step(plan) {
                        return Err(Error::Runtime(format!(
                            "The provided traversal contains a vertex step without any specified edge label: {step}"
                        )));
                    }
                }
            }
            _ => reserved_keys(plan, s, c)?,
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------
// Configuration.

/// A strategy's configuration value for `key`.
fn config<'s>(s: &'s Strategy, key: &str) -> Option<&'s Expr> {
    s.config.iter().find(|(k, _)| k == key).map(|(_, e)| e)
}

fn config_err(s: &Strategy, message: impl Into<String>) -> Error {
    Error::Argument {
        step: s.name.clone(),
        span: s.span,
        message: message.into(),
    }
}

/// Refuses configuration keys the strategy does not have: a misspelt key
/// silently ignored would change what the traversal sees.
fn known_keys(s: &Strategy, keys: &[&str]) -> Result<()> {
    match s.config.iter().find(|(k, _)| !keys.contains(&k.as_str())) {
        Some((k, _)) => Err(config_err(
            s,
            format!("{} has no configuration key {k}", s.name),
        )),
        None => Ok(()),
    }
}

fn flag(s: &Strategy, c: &Compiler<'_>, key: &str, default: bool) -> Result<bool> {
    match config(s, key) {
        None => Ok(default),
        Some(e) => match c.value(e)? {
            GValue::Bool(b) => Ok(b),
            other => Err(config_err(
                s,
                format!("{key} must be a boolean, not {other}"),
            )),
        },
    }
}

fn string(s: &Strategy, c: &Compiler<'_>, key: &str) -> Result<Option<Arc<str>>> {
    match config(s, key) {
        None => Ok(None),
        Some(e) => match c.value(e)? {
            GValue::String(v) => Ok(Some(v)),
            GValue::Null => Ok(None),
            other => Err(config_err(
                s,
                format!("{key} must be a string, not {other}"),
            )),
        },
    }
}

/// A list (or set, or one value) of strings.
fn strings(s: &Strategy, c: &Compiler<'_>, key: &str) -> Result<Option<Vec<GValue>>> {
    let Some(e) = config(s, key) else {
        return Ok(None);
    };
    let items = match c.value(e)? {
        GValue::List(items) | GValue::Set(items) => items.to_vec(),
        GValue::Null => Vec::new(),
        one => vec![one],
    };
    for i in &items {
        if !matches!(i, GValue::String(_)) {
            return Err(config_err(s, format!("{key} must hold strings, not {i}")));
        }
    }
    Ok(Some(items))
}

fn traversal(s: &Strategy, c: &mut Compiler<'_>, key: &str) -> Result<Option<Plan>> {
    match config(s, key) {
        None => Ok(None),
        Some(Expr::Traversal(t)) => Ok(Some(c.traversal(t)?)),
        Some(_) => Err(config_err(s, format!("{key} must be a traversal"))),
    }
}

// ---------------------------------------------------------------------
// Walking plans.

/// Where a `by` modulator sits, for the strategies that treat them apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Any step's `by`.
    Plain,
    /// `group()`'s key `by`.
    GroupKey,
    /// `group()`'s value `by`.
    GroupValue,
    /// `valueMap()`'s `by`, applied to each list of values.
    PropertyMap,
}

/// Calls `f` on each `by` modulator of `op`.
fn each_by(op: &mut Op, f: &mut dyn FnMut(&mut By, Slot) -> Result<()>) -> Result<()> {
    match op {
        Op::WherePred { by, .. }
        | Op::PathFilter { by, .. }
        | Op::Path { by, .. }
        | Op::Select { by, .. }
        | Op::Project { by, .. }
        | Op::Math { by, .. } => {
            for b in by {
                f(b, Slot::Plain)?;
            }
        }
        Op::Order { by, .. } => {
            for (b, _) in by {
                f(b, Slot::Plain)?;
            }
        }
        Op::Dedup { by: Some(b), .. }
        | Op::GroupCount { by: Some(b), .. }
        | Op::Aggregate { by: Some(b), .. }
        | Op::SackSet { by: Some(b), .. } => f(b, Slot::Plain)?,
        Op::ValueMap { by: Some(b), .. } => f(b, Slot::PropertyMap)?,
        Op::Group { key, value, .. } => {
            if let Some(b) = key {
                f(b, Slot::GroupKey)?;
            }
            if let Some(b) = value {
                f(b, Slot::GroupValue)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn each_arg(a: &mut Arg, f: &mut dyn FnMut(&mut Plan) -> Result<()>) -> Result<()> {
    match a {
        Arg::Trav(p) => f(p),
        Arg::Value(_) => Ok(()),
    }
}

/// Calls `f` on each plan nested in `op`: its sub-traversals, its `by`
/// traversals and its arguments given by traversals. (The maps of
/// `mergeV`/`mergeE` are out of reach: `Merge` keeps them private.)
fn each_plan(op: &mut Op, f: &mut dyn FnMut(&mut Plan) -> Result<()>) -> Result<()> {
    each_by(op, &mut |b, _| match b {
        By::Trav(p) => f(p),
        _ => Ok(()),
    })?;
    match op {
        Op::V(args) | Op::E(args) | Op::Select { keys: args, .. } | Op::Func { args, .. } => {
            for a in args {
                each_arg(a, f)?;
            }
        }
        Op::Has(HasTest::PropertyTrav { trav, .. }) => f(trav)?,
        Op::Filter(p)
        | Op::Not(p)
        | Op::Map(p)
        | Op::FlatMap(p)
        | Op::Local(p)
        | Op::Optional(p)
        | Op::SideEffect(p) => f(p)?,
        Op::And(ps) | Op::Or(ps) | Op::Union(ps) | Op::Coalesce(ps) => {
            for p in ps {
                f(p)?;
            }
        }
        Op::Choose(ch) => match ch.as_mut() {
            Choose::IfThen {
                test,
                then,
                otherwise,
            } => {
                if let ChooseTest::Trav(p) = test {
                    f(p)?;
                }
                f(then)?;
                if let Some(p) = otherwise {
                    f(p)?;
                }
            }
            Choose::Options { by, options, .. } => {
                f(by)?;
                for (k, p) in options {
                    if let OptionKey::Trav(kp) = k {
                        f(kp)?;
                    }
                    f(p)?;
                }
            }
        },
        Op::Repeat(r) => {
            f(&mut r.body)?;
            if let Some(p) = &mut r.until {
                f(p)?;
            }
            if let Some(Emit::If(p)) = &mut r.emit {
                f(p)?;
            }
        }
        Op::AddV { label: Some(a), .. } => each_arg(a, f)?,
        Op::AddE {
            label, from, to, ..
        } => {
            each_arg(label, f)?;
            if let Some(a) = from {
                each_arg(a, f)?;
            }
            if let Some(a) = to {
                each_arg(a, f)?;
            }
        }
        Op::Property { key, value, .. } => {
            each_arg(key, f)?;
            each_arg(value, f)?;
        }
        _ => {}
    }
    Ok(())
}

/// `has(key, pred)`.
fn has_prop(key: &Arc<str>, pred: Predicate) -> Op {
    Op::Has(HasTest::Property {
        label: None,
        key: key.clone(),
        pred,
    })
}

/// `is(typeOf(t))`, or its negation.
fn is_type(t: GTypeToken, yes: bool) -> Op {
    let p = Predicate::TypeOf(t);
    Op::Is(if yes { p } else { Predicate::Not(Box::new(p)) })
}

/// Whether a setting is at its default (`valueMap()`'s tokens: none).
fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

fn plan(ops: Vec<Op>) -> Plan {
    Plan { ops }
}

fn opposite(d: DirectionToken) -> DirectionToken {
    match d {
        DirectionToken::Out => DirectionToken::In,
        DirectionToken::In => DirectionToken::Out,
        DirectionToken::Both => DirectionToken::Both,
    }
}

// ---------------------------------------------------------------------
// SubgraphStrategy.

/// `SubgraphStrategy(vertices:, edges:, vertexProperties:,
/// checkAdjacentVertices:)`, its criteria compiled. The criteria are not
/// themselves rewritten: they see the whole graph.
struct Subgraph {
    vertices: Option<Plan>,
    /// The edge criterion with, when vertices are filtered and adjacent
    /// vertices checked, the test that both ends pass `vertices`.
    edges: Option<Plan>,
    props: Option<Plan>,
    span: Span,
}

impl Subgraph {
    fn new(s: &Strategy, c: &mut Compiler<'_>) -> Result<Subgraph> {
        known_keys(
            s,
            &[
                "vertices",
                "edges",
                "vertexProperties",
                "checkAdjacentVertices",
            ],
        )?;
        let vertices = traversal(s, c, "vertices")?;
        let user_edges = traversal(s, c, "edges")?;
        let props = traversal(s, c, "vertexProperties")?;
        let check = flag(s, c, "checkAdjacentVertices", true)?;
        if vertices.is_none() && user_edges.is_none() && props.is_none() {
            return Err(config_err(
                s,
                "A subgraph must be filtered by a vertex, edge, or vertex property criterion",
            ));
        }
        let edges = match (&vertices, check) {
            (Some(v), true) => {
                // Both ends of an edge must be in the subgraph. The user's
                // criterion is a filter of its own: it may map the edge
                // (`label().is(...)`), and the ends are the edge's.
                let ends = Op::And(vec![
                    plan(vec![
                        Op::EdgeEnds(DirectionToken::In),
                        Op::Filter(v.clone()),
                    ]),
                    plan(vec![
                        Op::EdgeEnds(DirectionToken::Out),
                        Op::Filter(v.clone()),
                    ]),
                ]);
                let mut ops = Vec::new();
                if let Some(e) = user_edges {
                    ops.push(Op::Filter(e));
                }
                ops.push(ends);
                Some(plan(ops))
            }
            _ => user_edges,
        };
        Ok(Subgraph {
            vertices,
            edges,
            props,
            span: s.span,
        })
    }

    fn unsupported(&self, message: &str) -> Error {
        Error::Unsupported {
            step: "SubgraphStrategy".into(),
            span: self.span,
            message: message.into(),
        }
    }
}

/// `out(labels)`/`in`/`both` through the edges that pass the edge
/// criterion to the vertices that pass the vertex criterion, as one
/// `flatMap` so that paths hold the vertices only, as `out()` gives them
/// (TinkerPop's `outE().filter().inV().filter()` would add the edges).
fn walk(dir: DirectionToken, labels: &[Arc<str>], edges: &Plan, vertices: Option<&Plan>) -> Plan {
    let leg = |d: DirectionToken, labels: Vec<Arc<str>>| {
        plan(vec![
            Op::Adjacent {
                dir: d,
                labels,
                edges: true,
            },
            Op::Filter(edges.clone()),
            Op::EdgeEnds(opposite(d)),
        ])
    };
    let mut ops = match dir {
        DirectionToken::Both => {
            // The order of `both()`: per label, the out-edges then the
            // in-edges (a self-loop is both, and comes twice).
            let legs = if labels.is_empty() {
                vec![
                    leg(DirectionToken::Out, Vec::new()),
                    leg(DirectionToken::In, Vec::new()),
                ]
            } else {
                labels
                    .iter()
                    .flat_map(|l| {
                        [
                            leg(DirectionToken::Out, vec![l.clone()]),
                            leg(DirectionToken::In, vec![l.clone()]),
                        ]
                    })
                    .collect()
            };
            vec![Op::Union(legs)]
        }
        d => leg(d, labels.to_vec()).ops,
    };
    if let Some(v) = vertices {
        ops.push(Op::Filter(v.clone()));
    }
    plan(ops)
}

/// The values of `keys` whose vertex properties pass `props`, for a
/// vertex; `values(keys)` unchanged for anything else (an edge, a map, a
/// vertex property's meta-properties).
fn visible_values(keys: &[Arc<str>], props: &Plan) -> Op {
    Op::Union(vec![
        plan(vec![
            is_type(GTypeToken::Vertex, true),
            Op::Properties(keys.to_vec()),
            Op::Filter(props.clone()),
            Op::Value,
        ]),
        plan(vec![
            is_type(GTypeToken::Vertex, false),
            Op::Values(keys.to_vec()),
        ]),
    ])
}

/// Passes the properties that are not vertex properties, and the vertex
/// properties that pass `props`.
fn visible_property(props: &Plan) -> Op {
    Op::Or(vec![
        plan(vec![is_type(GTypeToken::VProperty, false)]),
        props.clone(),
    ])
}

/// `valueMap(keys)` (`values`) or `propertyMap(keys)` of a vertex built
/// from its visible vertex properties: `properties(keys).filter(props)
/// .group().by(key).by(value().fold())`, the `by` of `valueMap` applied
/// to each list. Anything else gets `original`.
fn visible_map(
    sub: &Subgraph,
    props: &Plan,
    keys: &[Arc<str>],
    values: bool,
    by: Option<&By>,
    original: Op,
) -> Result<Op> {
    let mut per_key = if values {
        vec![Op::Value, Op::Fold(None)]
    } else {
        vec![Op::Fold(None)]
    };
    match by {
        None | Some(By::Identity) => {}
        Some(By::Trav(p)) => per_key.push(Op::Map(p.clone())),
        Some(_) => {
            return Err(sub
                .unsupported("valueMap().by() with other than a traversal, with vertexProperties"))
        }
    }
    let vertex = plan(vec![
        is_type(GTypeToken::Vertex, true),
        Op::Properties(keys.to_vec()),
        Op::Filter(props.clone()),
        Op::Group {
            side: None,
            key: Some(By::T(TToken::Key)),
            value: Some(By::Trav(plan(per_key))),
        },
    ]);
    let other = plan(vec![is_type(GTypeToken::Vertex, false), original]);
    Ok(Op::Map(plan(vec![Op::Union(vec![vertex, other])])))
}

/// Holds a filter back until the `property()` steps right after an
/// `addV`/`addE` have run: TinkerPop folds those into the creation, so the
/// criterion sees the element with them.
fn flush(out: &mut Vec<Op>, pending: &mut Option<Op>) {
    if let Some(f) = pending.take() {
        out.push(f);
    }
}

fn subgraph(p: &mut Plan, sub: &Subgraph) -> Result<()> {
    for op in &mut p.ops {
        each_plan(op, &mut |q| subgraph(q, sub))?;
        if let Some(props) = &sub.props {
            each_by(op, &mut |b, slot| {
                if let (By::Key(k), true) = (&*b, slot != Slot::PropertyMap) {
                    *b = By::Trav(plan(vec![visible_values(std::slice::from_ref(k), props)]));
                }
                Ok(())
            })?;
        }
    }
    let vfilter = sub.vertices.as_ref().map(|v| Op::Filter(v.clone()));
    let efilter = sub.edges.as_ref().map(|e| Op::Filter(e.clone()));
    let mut out = Vec::with_capacity(p.ops.len());
    let mut pending: Option<Op> = None;
    for op in std::mem::take(&mut p.ops) {
        if !matches!(op, Op::Property { .. } | Op::SetProperties(_)) {
            flush(&mut out, &mut pending);
        }
        match op {
            Op::V(_) | Op::VFind { .. } | Op::EdgeEnds(_) | Op::OtherV => {
                out.push(op);
                out.extend(vfilter.clone());
            }
            Op::E(_) | Op::Adjacent { edges: true, .. } => {
                out.push(op);
                out.extend(efilter.clone());
            }
            Op::AddV { .. } => {
                out.push(op);
                pending = vfilter.clone();
            }
            Op::AddE { .. } => {
                out.push(op);
                pending = efilter.clone();
            }
            Op::Adjacent {
                dir,
                labels,
                edges: false,
            } => match &sub.edges {
                Some(e) => out.push(Op::FlatMap(walk(dir, &labels, e, sub.vertices.as_ref()))),
                None => {
                    out.push(Op::Adjacent {
                        dir,
                        labels,
                        edges: false,
                    });
                    out.extend(vfilter.clone());
                }
            },
            other => {
                let pair = (other, sub.props.as_ref());
                match pair {
                    (Op::Properties(keys), Some(props)) => {
                        out.push(Op::Properties(keys));
                        out.push(visible_property(props));
                    }
                    (Op::Values(keys), Some(props)) => {
                        out.push(Op::FlatMap(plan(vec![visible_values(&keys, props)])));
                    }
                    (
                        Op::ValueMap {
                            ref tokens,
                            ref keys,
                            ref by,
                            ..
                        },
                        Some(props),
                    ) => {
                        if !is_default(tokens) {
                            return Err(sub.unsupported(
                                "valueMap() with ids and labels, with vertexProperties",
                            ));
                        }
                        let (keys, by) = (keys.clone(), by.clone());
                        out.push(visible_map(sub, props, &keys, true, by.as_ref(), pair.0)?);
                    }
                    (Op::PropertyMap(keys), Some(props)) => {
                        let original = Op::PropertyMap(keys.clone());
                        out.push(visible_map(sub, props, &keys, false, None, original)?);
                    }
                    (other, _) => out.push(other),
                }
            }
        }
    }
    flush(&mut out, &mut pending);
    p.ops = out;
    Ok(())
}

// ---------------------------------------------------------------------
// PartitionStrategy.

/// `PartitionStrategy(partitionKey:, writePartition:, readPartitions:,
/// includeMetaProperties:)`.
struct Partition {
    key: Arc<str>,
    write: Option<GValue>,
    read: Vec<GValue>,
    span: Span,
}

impl Partition {
    fn new(s: &Strategy, c: &Compiler<'_>) -> Result<Partition> {
        known_keys(
            s,
            &[
                "partitionKey",
                "writePartition",
                "readPartitions",
                "includeMetaProperties",
            ],
        )?;
        let key = match string(s, c, "partitionKey")? {
            Some(k) if !k.is_empty() => k,
            _ => return Err(config_err(s, "The partitionKey cannot be null or empty")),
        };
        if flag(s, c, "includeMetaProperties", false)? {
            return Err(Error::Runtime(
                "PartitionStrategy is configured to include meta-properties but the Graph does not support them"
                    .into(),
            ));
        }
        Ok(Partition {
            key,
            write: string(s, c, "writePartition")?.map(GValue::String),
            read: strings(s, c, "readPartitions")?.unwrap_or_default(),
            span: s.span,
        })
    }
}

/// After each step that reads vertices or edges, `has(key,
/// within(readPartitions))` (TinkerPop tests the vertices `out()` reaches,
/// not the edges it walks); after `addV`/`addE`, `property(key,
/// writePartition)`.
fn partition(p: &mut Plan, part: &Partition) -> Result<()> {
    for op in &mut p.ops {
        each_plan(op, &mut |q| partition(q, part))?;
    }
    let visible = has_prop(&part.key, Predicate::Within(part.read.clone()));
    let mut out = Vec::with_capacity(p.ops.len());
    for op in std::mem::take(&mut p.ops) {
        match op {
            Op::V(_)
            | Op::E(_)
            | Op::VFind { .. }
            | Op::Adjacent { .. }
            | Op::EdgeEnds(_)
            | Op::OtherV => {
                out.push(op);
                out.push(visible.clone());
            }
            Op::AddV { .. } | Op::AddE { .. } => {
                out.push(op);
                if let Some(w) = &part.write {
                    out.push(Op::Property {
                        key: Arg::Value(GValue::String(part.key.clone())),
                        value: Arg::Value(w.clone()),
                        list: false,
                    });
                }
            }
            Op::Merge(_) => {
                return Err(Error::Unsupported {
                    step: "PartitionStrategy".into(),
                    span: part.span,
                    message: "mergeV()/mergeE() within a partition are not supported yet".into(),
                })
            }
            other => out.push(other),
        }
    }
    p.ops = out;
    Ok(())
}

// ---------------------------------------------------------------------
// ElementIdStrategy.

fn element_id_key(s: &Strategy, c: &Compiler<'_>) -> Result<Arc<str>> {
    if config(s, "idMaker").is_some() {
        return Err(Error::Unsupported {
            step: s.name.clone(),
            span: s.span,
            message: "an idMaker (a lambda) is not supported".into(),
        });
    }
    known_keys(s, &["idPropertyKey"])?;
    Ok(string(s, c, "idPropertyKey")?.unwrap_or_else(|| Arc::from("__id")))
}

/// The ids `V(...)`/`E(...)` name, when all are plain values (not
/// elements, not traversals).
fn plain_ids(args: &[Arg]) -> Option<Vec<GValue>> {
    let mut ids = Vec::new();
    for a in args {
        match a {
            Arg::Value(GValue::List(items) | GValue::Set(items)) => {
                ids.extend(items.iter().cloned())
            }
            Arg::Value(GValue::Vertex(_) | GValue::Edge(_)) | Arg::Trav(_) => return None,
            Arg::Value(v) => ids.push(v.clone()),
        }
    }
    if ids
        .iter()
        .any(|v| matches!(v, GValue::Vertex(_) | GValue::Edge(_)))
    {
        return None;
    }
    Some(ids)
}

/// The property `key` stands for the id: `V(ids)` and `hasId` look it up,
/// `id()` reads it, and `addV`/`addE` set it (to the id given with
/// `property(T.id, x)`, else to the engine's id of the new element, where
/// TinkerPop makes a random UUID).
fn element_id(p: &mut Plan, key: &Arc<str>) -> Result<()> {
    for op in &mut p.ops {
        each_plan(op, &mut |q| element_id(q, key))?;
    }
    let mut out = Vec::with_capacity(p.ops.len());
    for op in std::mem::take(&mut p.ops) {
        match op {
            Op::Has(HasTest::Id(pred)) => out.push(has_prop(key, pred)),
            Op::V(ref args) | Op::E(ref args) if !args.is_empty() && plain_ids(args).is_some() => {
                let ids = plain_ids(args).unwrap_or_default();
                out.push(if matches!(op, Op::V(_)) {
                    Op::V(Vec::new())
                } else {
                    Op::E(Vec::new())
                });
                out.push(has_prop(key, Predicate::Within(ids)));
            }
            Op::Id => out.push(Op::Values(vec![key.clone()])),
            Op::AddV { label, id } => {
                out.push(Op::AddV { label, id: None });
                out.push(set_id(key, id));
            }
            Op::AddE {
                label,
                id,
                from,
                to,
            } => {
                out.push(Op::AddE {
                    label,
                    id: None,
                    from,
                    to,
                });
                out.push(set_id(key, id));
            }
            other => out.push(other),
        }
    }
    p.ops = out;
    Ok(())
}

fn set_id(key: &Arc<str>, id: Option<GValue>) -> Op {
    Op::Property {
        key: Arg::Value(GValue::String(key.clone())),
        value: match id {
            Some(v) => Arg::Value(v),
            None => Arg::Trav(plan(vec![Op::Id])),
        },
        list: false,
    }
}

// ---------------------------------------------------------------------
// ProductiveByStrategy.

/// Whether `p` yields something whatever it starts from: it ends in a
/// step that reduces everything to one value.
fn always_yields(p: &Plan) -> bool {
    matches!(
        p.ops.last(),
        Some(Op::Count { local: false } | Op::Fold(_) | Op::Constant(_) | Op::Identity)
    )
}

/// `coalesce(t, constant(null))`.
fn or_null(p: Plan) -> By {
    By::Trav(plan(vec![Op::Coalesce(vec![
        p,
        plan(vec![Op::Constant(GValue::Null)]),
    ])]))
}

/// Every `by('key')` and `by(traversal)` yields `null` where it would
/// yield nothing (and so filter the traverser out). As in TinkerPop,
/// `group()` only has its key `by('key')` made productive, and
/// `valueMap()`'s `by` is left alone.
fn productive_by(p: &mut Plan) -> Result<()> {
    for op in &mut p.ops {
        each_plan(op, &mut productive_by)?;
        each_by(op, &mut |b, slot| {
            let inner = match (slot, &*b) {
                (Slot::Plain | Slot::GroupKey, By::Key(k)) => {
                    plan(vec![Op::Values(vec![k.clone()])])
                }
                (Slot::Plain, By::Trav(t)) if !always_yields(t) => t.clone(),
                _ => return Ok(()),
            };
            *b = or_null(inner);
            Ok(())
        })?;
    }
    Ok(())
}

// ---------------------------------------------------------------------
// Verifications.

/// The first `out()`/`in()`/`both()`/`outE()`/... with no edge label, as
/// TinkerPop prints the step.
fn unlabelled_vertex_step(p: &mut Plan) -> Option<String> {
    let mut found: Option<String> = None;
    let _ = walk_ops(p, &mut |op| {
        if let Op::Adjacent { dir, labels, edges } = op {
            if labels.is_empty() && found.is_none() {
                let d = match dir {
                    DirectionToken::Out => "OUT",
                    DirectionToken::In => "IN",
                    DirectionToken::Both => "BOTH",
                };
                found = Some(format!(
                    "VertexStep({d},{})",
                    if *edges { "edge" } else { "vertex" }
                ));
            }
        }
        Ok(())
    });
    found
}

/// Calls `f` on every op of `p` and of the plans nested in it.
fn walk_ops(p: &mut Plan, f: &mut dyn FnMut(&Op) -> Result<()>) -> Result<()> {
    for op in &mut p.ops {
        f(op)?;
        each_plan(op, &mut |q| walk_ops(q, f))?;
    }
    Ok(())
}

/// `ReservedKeysVerificationStrategy(keys:, throwException:, logWarning:)`:
/// refuses a traversal that sets a property whose key is reserved (`id`
/// and `label` unless `keys` says otherwise), when `throwException`.
fn reserved_keys(p: &mut Plan, s: &Strategy, c: &Compiler<'_>) -> Result<()> {
    known_keys(s, &["keys", "throwException", "logWarning"])?;
    if !flag(s, c, "throwException", false)? {
        return Ok(());
    }
    let reserved =
        strings(s, c, "keys")?.unwrap_or_else(|| vec![GValue::str("id"), GValue::str("label")]);
    check_reserved(p, &reserved, true)
}

fn check_reserved(p: &mut Plan, reserved: &[GValue], root: bool) -> Result<()> {
    // The step that sets the property: TinkerPop folds `property()` right
    // after `addV`/`addE` into it, and names that one.
    let mut setter = "AddPropertyStep";
    for (i, op) in p.ops.iter_mut().enumerate() {
        each_plan(op, &mut |q| check_reserved(q, reserved, false))?;
        let keys: Vec<GValue> = match op {
            Op::AddV { .. } => {
                setter = if root && i == 0 {
                    "AddVertexStartStep"
                } else {
                    "AddVertexStep"
                };
                continue;
            }
            Op::AddE { .. } => {
                setter = "AddEdgeStep";
                continue;
            }
            Op::Property {
                key: Arg::Value(k), ..
            } => vec![k.clone()],
            Op::SetProperties(GValue::Map(m)) => m.iter().map(|(k, _)| k.clone()).collect(),
            Op::Property { .. } | Op::SetProperties(_) => Vec::new(),
            _ => {
                setter = "AddPropertyStep";
                continue;
            }
        };
        if let Some(k) = keys.iter().find(|k| reserved.contains(k)) {
            let k = match k {
                GValue::String(s) => s.to_string(),
                other => other.to_string(),
            };
            return Err(Error::Runtime(format!(
                "The provided traversal contains a {setter} that is setting a property key to a reserved word: {k}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use stratagraph::{Graph, Options};

    use crate::{execute, Bindings, GValue};

    fn run(g: &Graph, q: &str) -> crate::Result<Vec<GValue>> {
        execute(g, q, &Bindings::new())
    }

    fn strings(g: &Graph, q: &str) -> Vec<String> {
        let mut out: Vec<String> = run(g, q)
            .unwrap()
            .into_iter()
            .map(|v| match v {
                GValue::String(s) => s.to_string(),
                other => other.to_string(),
            })
            .collect();
        out.sort();
        out
    }

    fn count(g: &Graph, q: &str) -> i64 {
        run(g, q).unwrap()[0].as_i64().unwrap()
    }

    /// a -knows(w=1)-> b, a -knows(w=0.5)-> c, b -likes-> c, c -knows-> c
    /// (a self-loop), d alone; the `keep` property says what a subgraph
    /// keeps.
    fn graph() -> Graph {
        let g = Graph::in_memory(Options::default());
        run(
            &g,
            "g.addV('p').property('name','a').property('keep',true).as('a').\
             addV('p').property('name','b').property('keep',true).as('b').\
             addV('p').property('name','c').property('keep',false).as('c').\
             addV('p').property('name','d').property('keep',true).as('d').\
             addE('knows').from('a').to('b').property('w',1.0).\
             addE('knows').from('a').to('c').property('w',0.5).\
             addE('likes').from('b').to('c').property('w',1.0).\
             addE('knows').from('c').to('c').property('w',1.0)",
        )
        .unwrap();
        g
    }

    const KEEP: &str = "g.withStrategies(new SubgraphStrategy(vertices: __.has('keep', true)))";

    #[test]
    fn subgraph_vertices_hide_vertices_and_their_edges() {
        let g = graph();
        assert_eq!(
            strings(&g, &format!("{KEEP}.V().values('name')")),
            ["a", "b", "d"]
        );
        // Only a->b has both ends kept.
        assert_eq!(count(&g, &format!("{KEEP}.E().count()")), 1);
        assert_eq!(
            strings(&g, &format!("{KEEP}.V().out().values('name')")),
            ["b"]
        );
        assert_eq!(
            strings(&g, &format!("{KEEP}.V().both().values('name')")),
            ["a", "b"]
        );
        assert_eq!(count(&g, &format!("{KEEP}.V().bothE().count()")), 2);
        // Inside nested traversals too.
        assert_eq!(
            strings(&g, &format!("{KEEP}.V().where(__.out()).values('name')")),
            ["a"]
        );
        assert_eq!(
            strings(
                &g,
                &format!("{KEEP}.V().local(__.in().fold()).count(local)")
            ),
            ["0", "0", "1"]
        );
    }

    #[test]
    fn subgraph_edges_filter_what_out_walks() {
        let g = graph();
        let s = "g.withStrategies(new SubgraphStrategy(edges: __.has('w', 1.0)))";
        assert_eq!(count(&g, &format!("{s}.E().count()")), 3);
        // a -knows-> c (w 0.5) is hidden; the self-loop is walked once out,
        // and twice by both().
        assert_eq!(
            strings(&g, &format!("{s}.V().out().values('name')")),
            ["b", "c", "c"]
        );
        assert_eq!(
            strings(
                &g,
                &format!("{s}.V().has('name','c').both().values('name')")
            ),
            ["b", "c", "c"]
        );
        assert_eq!(
            strings(
                &g,
                &format!("{s}.V().has('name','a').out('knows','likes').values('name')")
            ),
            ["b"]
        );
        // Paths hold the vertices out() reaches, not the edges walked.
        let paths = run(&g, &format!("{s}.V().has('name','a').out().path()")).unwrap();
        assert_eq!(paths.len(), 1);
        match &paths[0] {
            GValue::Path(p) => assert_eq!(p.entries.len(), 2),
            other => panic!("not a path: {other}"),
        }
    }

    #[test]
    fn subgraph_check_adjacent_vertices_off() {
        let g = graph();
        let s = "g.withStrategies(new SubgraphStrategy(checkAdjacentVertices: false, \
                 vertices: __.has('keep', true), edges: __.hasLabel('knows')))";
        // Three knows edges, whatever their ends.
        assert_eq!(count(&g, &format!("{s}.E().count()")), 3);
        // a knows b and c; c is filtered as a vertex.
        assert_eq!(strings(&g, &format!("{s}.V().out().values('name')")), ["b"]);
        assert_eq!(count(&g, &format!("{s}.V().outE().count()")), 2);
    }

    #[test]
    fn subgraph_vertex_properties() {
        let g = graph();
        let s = "g.withStrategies(new SubgraphStrategy(vertexProperties: __.hasKey('name')))";
        assert_eq!(
            strings(&g, &format!("{s}.V().has('name','a').values()")),
            ["a"]
        );
        assert_eq!(
            strings(&g, &format!("{s}.V().has('name','a').properties().key()")),
            ["name"]
        );
        assert_eq!(count(&g, &format!("{s}.V().values('keep').count()")), 0);
        // Edge properties are not vertex properties.
        assert_eq!(count(&g, &format!("{s}.E().values('w').count()")), 4);
        // by('key') reads through it too: no vertex shows a 'keep'.
        assert_eq!(
            count(&g, &format!("{s}.V().group().by('keep').count(local)")),
            0
        );
        let m = run(&g, &format!("{s}.V().has('name','a').valueMap()")).unwrap();
        assert_eq!(m.len(), 1);
        match &m[0] {
            GValue::Map(m) => {
                assert_eq!(m.len(), 1);
                assert_eq!(m[0].0, GValue::str("name"));
                assert_eq!(m[0].1, GValue::list(vec![GValue::str("a")]));
            }
            other => panic!("not a map: {other}"),
        }
    }

    #[test]
    fn subgraph_needs_a_criterion() {
        let g = graph();
        assert!(run(&g, "g.withStrategies(new SubgraphStrategy()).V()").is_err());
        assert!(run(
            &g,
            "g.withStrategies(new SubgraphStrategy(vertex: __.has('keep', true))).V()"
        )
        .is_err());
    }

    fn partitioned() -> Graph {
        let g = Graph::in_memory(Options::default());
        run(
            &g,
            "g.addV('p').property('_p','a').property('name','alice').as('a').\
             addV('p').property('_p','b').property('name','bob').as('b').\
             addE('knows').from('a').to('b').property('_p','a').\
             addE('knows').from('b').to('a').property('_p','b')",
        )
        .unwrap();
        g
    }

    fn part(read: &str) -> String {
        format!(
            "g.withStrategies(new PartitionStrategy(partitionKey: '_p', writePartition: 'a', readPartitions: {read}))"
        )
    }

    #[test]
    fn partition_reads() {
        let g = partitioned();
        assert_eq!(
            strings(&g, &format!("{}.V().values('name')", part("['a']"))),
            ["alice"]
        );
        assert_eq!(
            strings(&g, &format!("{}.V().values('name')", part("['a','b']"))),
            ["alice", "bob"]
        );
        assert_eq!(count(&g, &format!("{}.V().count()", part("['c']"))), 0);
        assert_eq!(count(&g, &format!("{}.E().count()", part("['b']"))), 1);
        // alice's out-edge is in 'a', but bob is not.
        assert_eq!(
            count(&g, &format!("{}.V().out().count()", part("['a']"))),
            0
        );
        assert_eq!(
            count(&g, &format!("{}.V().bothE().count()", part("['a']"))),
            1
        );
        assert_eq!(
            count(
                &g,
                &format!("{}.V().where(__.both()).count()", part("['a','b']"))
            ),
            2
        );
    }

    #[test]
    fn partition_writes() {
        let g = Graph::in_memory(Options::default());
        let r = run(
            &g,
            &format!(
                "{}.addV('p').property('name','x').addE('self')",
                part("['a']")
            ),
        )
        .unwrap();
        assert_eq!(r.len(), 1);
        assert_eq!(count(&g, "g.V().has('_p','a').count()"), 1);
        assert_eq!(count(&g, "g.E().has('_p','a').count()"), 1);
        // Writing into 'a' while reading 'b' only: the new vertex is not seen.
        assert_eq!(
            count(&g, &format!("{}.addV('p').V().count()", part("['b']"))),
            0
        );
        assert_eq!(count(&g, "g.V().count()"), 2);
    }

    #[test]
    fn partition_refuses_meta_properties() {
        let g = partitioned();
        let q = "g.withStrategies(new PartitionStrategy(partitionKey: '_p', readPartitions: ['a'], includeMetaProperties: true)).V()";
        assert!(run(&g, q).is_err());
        assert!(run(
            &g,
            "g.withStrategies(new PartitionStrategy(readPartitions: ['a'])).V()"
        )
        .is_err());
    }

    #[test]
    fn without_strategies_removes() {
        let g = partitioned();
        let q = format!(
            "{}.withoutStrategies(PartitionStrategy).V().count()",
            part("['c']")
        );
        assert_eq!(count(&g, &q), 2);
        assert!(run(&g, "g.withStrategies(ReadOnlyStrategy).addV('x')").is_err());
        assert_eq!(
            run(
                &g,
                "g.withStrategies(ReadOnlyStrategy).withoutStrategies(ReadOnlyStrategy).addV('x')"
            )
            .unwrap()
            .len(),
            1
        );
    }

    #[test]
    fn productive_by_yields_null() {
        let g = graph();
        run(&g, "g.addV('q')").unwrap();
        let s = "g.withStrategies(ProductiveByStrategy)";
        // The vertex without a name groups under null.
        let r = run(&g, &format!("{s}.V().group().by('name').by(count())")).unwrap();
        match &r[0] {
            GValue::Map(m) => {
                assert_eq!(m.len(), 5);
                assert!(m.iter().any(|(k, _)| *k == GValue::Null));
            }
            other => panic!("not a map: {other}"),
        }
        // project() leaves an unproductive key out.
        assert_eq!(
            count(
                &g,
                &format!("{s}.V().project('n').by('name').unfold().count()")
            ),
            5
        );
        assert_eq!(
            count(&g, "g.V().project('n').by('name').unfold().count()"),
            4
        );
        assert_eq!(
            count(
                &g,
                &format!("{s}.V().project('o').by(__.out('likes')).unfold().count()")
            ),
            5
        );
        // aggregate() keeps a null for each vertex without the key.
        let r = run(&g, &format!("{s}.V().aggregate('x').by('foo').cap('x')")).unwrap();
        assert_eq!(r, [GValue::list(vec![GValue::Null; 5])]);
        // group()'s value by() is left as it is.
        let r = run(
            &g,
            &format!("{s}.V().hasLabel('q').group().by(label).by('name')"),
        )
        .unwrap();
        assert_eq!(
            r,
            [GValue::map([(GValue::str("q"), GValue::list(Vec::new()))])]
        );
    }

    #[test]
    fn element_id() {
        let g = Graph::in_memory(Options::default());
        let s = "g.withStrategies(new ElementIdStrategy(idPropertyKey: 'key'))";
        run(
            &g,
            &format!("{s}.addV('p').property(T.id, 'k1').property('name','x')"),
        )
        .unwrap();
        run(&g, &format!("{s}.addV('p').property('name','y')")).unwrap();
        assert_eq!(strings(&g, &format!("{s}.V('k1').values('name')")), ["x"]);
        assert_eq!(
            strings(&g, &format!("{s}.V().hasId('k1').values('name')")),
            ["x"]
        );
        assert_eq!(
            strings(&g, &format!("{s}.V().has('name','x').id()")),
            ["k1"]
        );
        // Without an id given, the new element gets one.
        assert_eq!(count(&g, "g.V().has('key').count()"), 2);
    }

    #[test]
    fn verifications() {
        let g = graph();
        let e = run(
            &g,
            "g.withStrategies(EdgeLabelVerificationStrategy(throwException: true)).V().where(__.out())",
        )
        .unwrap_err();
        assert!(e.to_string().contains("without any specified edge label"));
        assert_eq!(
            count(
                &g,
                "g.withStrategies(EdgeLabelVerificationStrategy(throwException: true)).V().out('knows').count()"
            ),
            3
        );
        let e = run(
            &g,
            "g.withStrategies(ReservedKeysVerificationStrategy(throwException: true)).addV('p').property('id', 1)",
        )
        .unwrap_err();
        assert!(e.to_string().contains("reserved word: id"));
        assert!(run(
            &g,
            "g.withStrategies(VertexProgramRestrictionStrategy, VertexProgramStrategy).V()"
        )
        .is_err());
        assert!(run(&g, "g.withStrategies(NoSuchStrategy).V()").is_err());
        assert_eq!(
            count(
                &g,
                "g.withStrategies(CountStrategy, LazyBarrierStrategy).V().count()"
            ),
            4
        );
    }
}
