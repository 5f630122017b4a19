//! From the parsed query to a plan the executor runs: each step's
//! overload resolved by its arguments' kinds, modulators (`by`, `times`,
//! `until`, `emit`, `option`, `from`, `to`, `with`) folded into the step
//! they modulate, parameters bound, literals turned into values.
//!
//! Everything the query gets wrong that can be told without running it is
//! refused here, naming the step and its position.

use std::sync::Arc;

use crate::ast::{
    ColumnToken, DirectionToken, EnumToken, Expr, OperatorToken, OrderToken, PopToken, Pred,
    ScopeToken, Step, TToken, Traversal,
};
use crate::error::{Error, Result};
use crate::exec::pred::{self, Predicate};
use crate::exec::Bindings;
use crate::value::GValue;

/// A compiled traversal.
#[derive(Debug, Clone, Default)]
pub(crate) struct Plan {
    pub ops: Vec<Op>,
}

/// How a `by` modulator maps a traverser's object.
#[derive(Debug, Clone)]
pub(crate) enum By {
    /// `by()`: the object itself.
    Identity,
    /// `by('name')`: a property's value.
    Key(Arc<str>),
    /// `by(T.id)`, `by(T.label)`, ...
    T(TToken),
    /// `by(keys)` / `by(values)` of a map entry.
    Column(ColumnToken),
    /// `by(__.out().count())`: the first result.
    Trav(Plan),
}

/// A value given either literally or by a traversal of the current
/// traverser.
#[derive(Debug, Clone)]
pub(crate) enum Arg {
    Value(GValue),
    Trav(Plan),
}

/// One step.
#[derive(Debug, Clone)]
pub(crate) enum Op {
    /// `V(ids...)`: every vertex, or those with the given ids.
    V(Vec<Arg>),
    /// `V().has(label, key, value)` with a value the index can look up:
    /// the vertices the engine finds (through its index when the user
    /// created one), without a scan of the graph.
    VFind {
        label: Arc<str>,
        key: Arc<str>,
        value: GValue,
    },
    /// `V().has(label, key, predicate)` (the label optional) that no index
    /// answers: the engine's scan of the vertices with properties, which
    /// tests the value where it lies instead of building a traverser per
    /// vertex. `fallback` is the same as ordinary ops, for a traversal
    /// that writes (and reads through its transaction).
    VScan {
        label: Option<Arc<str>>,
        key: Arc<str>,
        pred: Predicate,
        fallback: Plan,
    },
    /// `V().hasLabel(label)`: the engine's list of the vertices with that
    /// label, without a traverser per vertex of the graph; `fallback` as
    /// for [`Op::VScan`].
    /// With `count`, `V().hasLabel(label).count()`: how many, with no
    /// traverser made for each.
    VLabel {
        label: Arc<str>,
        count: bool,
        fallback: Plan,
    },
    /// `E(ids...)`.
    E(Vec<Arg>),
    /// `inject(values...)`; the flag says the values follow the incoming
    /// traversers (at the head of a child traversal) rather than precede
    /// them.
    Inject(Vec<GValue>, bool),
    /// `out`, `in`, `both` (to vertices) and `outE`, `inE`, `bothE`.
    Adjacent {
        dir: DirectionToken,
        labels: Vec<Arc<str>>,
        edges: bool,
    },
    /// `out(...).count()` (or `outE`, `in`, `both`, ...): the number of
    /// edges walked, summed over the traversers' bulks without making a
    /// traverser per edge.
    AdjacentCount {
        dir: DirectionToken,
        labels: Vec<Arc<str>>,
    },
    /// A run of hops over plain vertices, walked as a frontier of
    /// (vertex, count) ([`crate::exec::frontier`]).
    Frontier(Box<crate::exec::frontier::Frontier>),
    /// `outV`, `inV`, `bothV`.
    EdgeEnds(DirectionToken),
    /// `otherV`.
    OtherV,
    /// `has(...)`, `hasLabel`, `hasId`, `hasKey`, `hasValue`.
    Has(HasTest),
    /// `hasNot(key)`.
    HasNot(Arc<str>),
    /// `is(pred)`.
    Is(Predicate),
    /// `where(pred)` with `by`s, or `where(traversal)`.
    WherePred {
        start: Option<Arc<str>>,
        pred: Predicate,
        by: Vec<By>,
    },
    /// `filter(t)`, `where(t)`: passes if `t` yields anything.
    Filter(Plan),
    /// In a `where(t)`: `t` starts from the object labelled so (its
    /// leading `as()`).
    WhereStart(Arc<str>),
    /// In a `where(t)`: `t` must end on the object labelled so (its
    /// trailing `as()`).
    WhereEnd(Arc<str>),
    /// `not(t)`.
    Not(Plan),
    /// `and(t...)`.
    And(Vec<Plan>),
    /// `or(t...)`.
    Or(Vec<Plan>),
    /// `dedup(labels...)` with an optional `by`.
    Dedup {
        local: bool,
        labels: Vec<Arc<str>>,
        by: Option<By>,
    },
    /// `simplePath()` / `cyclicPath()`, with `from`/`to`/`by`.
    PathFilter {
        simple: bool,
        from: Option<Arc<str>>,
        to: Option<Arc<str>>,
        by: Vec<By>,
    },
    /// `limit`, `range`, `skip`: keep objects `low..high` (`high` `None`:
    /// to the end).
    Range {
        local: bool,
        low: u64,
        high: Option<u64>,
    },
    /// `tail(n)`.
    Tail { local: bool, n: u64 },
    /// `coin(p)`.
    Coin(f64),
    /// `none()`/`discard()`: drops everything.
    Discard,
    /// `sample(n)`, `sample(local, n)`, weighted by a `by`.
    Sample { local: bool, n: u64, by: Option<By> },
    /// `tree()`, `tree('x')`, with `by`s applied level by level in turn.
    Tree { side: Option<Arc<str>>, by: Vec<By> },
    /// `element()`: a property's owner.
    Element,
    /// `format(template)` with `by`s for its `%{_}` places.
    Format { template: Arc<str>, by: Vec<By> },
    /// `all(p)`, `any(p)`, `none(p)`: keeps lists whose members all
    /// (some, none) pass `p`.
    ListTest {
        all: bool,
        negate: bool,
        pred: Predicate,
    },
    /// `values(keys...)`.
    Values(Vec<Arc<str>>),
    /// `properties(keys...)`.
    Properties(Vec<Arc<str>>),
    /// `valueMap(keys...)`, `valueMap(true, keys...)` with `with` tokens
    /// (a mask: 1 the id, 2 the label) and a `by`.
    ValueMap {
        tokens: u8,
        keys: Vec<Arc<str>>,
        by: Option<By>,
    },
    /// `elementMap(keys...)`.
    ElementMap(Vec<Arc<str>>),
    /// `propertyMap(keys...)`.
    PropertyMap(Vec<Arc<str>>),
    /// `id()`.
    Id,
    /// `label()`.
    Label,
    /// `key()`.
    Key,
    /// `value()`.
    Value,
    /// `count()`, `count(local)`.
    Count { local: bool },
    /// `fold()` / `fold(seed, op)`.
    Fold(Option<(GValue, OperatorToken)>),
    /// `unfold()`.
    Unfold,
    /// `constant(v)`.
    Constant(GValue),
    /// `identity()`.
    Identity,
    /// `path()` with `by`s, `from` and `to`.
    Path {
        by: Vec<By>,
        from: Option<Arc<str>>,
        to: Option<Arc<str>>,
    },
    /// `select(keys...)` with `by`s.
    Select {
        pop: PopToken,
        keys: Vec<Arg>,
        by: Vec<By>,
    },
    /// `select(keys)` / `select(values)` of a map.
    SelectColumn(ColumnToken),
    /// `project(keys...)` with `by`s.
    Project { keys: Vec<Arc<str>>, by: Vec<By> },
    /// `math(expr)` with `by`s.
    Math {
        expr: Arc<crate::exec::math::Expr>,
        by: Vec<By>,
    },
    /// `sum`, `min`, `max`, `mean`: global or local.
    Reduce { kind: Reduce, local: bool },
    /// `order()` with `by`s.
    Order {
        local: bool,
        by: Vec<(By, OrderToken)>,
    },
    /// `group()` with key and value `by`s, or `group('x')`.
    Group {
        side: Option<Arc<str>>,
        key: Option<By>,
        value: Option<By>,
    },
    /// `groupCount()`, `groupCount('x')` with a `by`.
    GroupCount {
        side: Option<Arc<str>>,
        by: Option<By>,
    },
    /// `map(t)`.
    Map(Plan),
    /// `flatMap(t)`.
    FlatMap(Plan),
    /// `local(t)`.
    Local(Plan),
    /// `loops()`, `loops(name)`.
    Loops(Option<Arc<str>>),
    /// `union(t...)`.
    Union(Vec<Plan>),
    /// `coalesce(t...)`.
    Coalesce(Vec<Plan>),
    /// `optional(t)`.
    Optional(Plan),
    /// `choose(test, then, else)` or `choose(t).option(k, t)...`.
    Choose(Box<Choose>),
    /// `repeat(t)` with `times`, `until`, `emit`.
    Repeat(Box<Repeat>),
    /// `as(labels...)`.
    As(Vec<Arc<str>>),
    /// `aggregate('x')`, `aggregate(local, 'x')`, `store('x')`, with a
    /// `by`.
    Aggregate {
        key: Arc<str>,
        local: bool,
        by: Option<By>,
    },
    /// `cap(keys...)`.
    Cap(Vec<Arc<str>>),
    /// `sideEffect(t)`.
    SideEffect(Plan),
    /// `barrier()`.
    Barrier,
    /// `sack()`.
    SackGet,
    /// `sack(op)` with a `by`.
    SackSet { op: OperatorToken, by: Option<By> },
    /// `index()`, as a list of `[item, index]` or (with
    /// `with(WithOptions.indexer, WithOptions.map)`) a map.
    Index { map: bool },
    /// A one-object function of the 3.7/3.8 string, list and date library
    /// (`toUpper`, `concat`, `split`, ...), by name with its arguments.
    Func {
        name: String,
        args: Vec<Arg>,
        local: bool,
    },
    /// `addV(label)`, with the id a following `property(T.id, x)` gives.
    AddV {
        label: Option<Arg>,
        id: Option<GValue>,
    },
    /// `addE(label)` with `from` and `to`, and an id as for `addV`.
    AddE {
        label: Arg,
        id: Option<GValue>,
        from: Option<Arg>,
        to: Option<Arg>,
    },
    /// `property(key, value)`, `property(cardinality, key, value)`, or
    /// `property(map)`.
    Property { key: Arg, value: Arg, list: bool },
    /// `property(map)`.
    SetProperties(GValue),
    /// `drop()`.
    Drop,
    /// `fail()`, `fail(message)`.
    Fail(Option<String>),
    /// `mergeV(...)` / `mergeE(...)` with their `option`s.
    Merge(Box<crate::exec::merge::Merge>),
}

/// The aggregations of `sum`, `min`, `max`, `mean`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reduce {
    Sum,
    Min,
    Max,
    Mean,
}

/// What a `has` tests.
#[derive(Debug, Clone)]
pub(crate) enum HasTest {
    /// `has(key)`: the property exists.
    Exists(Arc<str>),
    /// `has(key, pred)`, `has(label, key, pred)`.
    Property {
        label: Option<Predicate>,
        key: Arc<str>,
        pred: Predicate,
    },
    /// `has(key, traversal)`: the traversal of the property's value yields.
    PropertyTrav { key: Arc<str>, trav: Plan },
    /// `hasLabel(...)`, `has(T.label, pred)`.
    Label(Predicate),
    /// `hasId(...)`, `has(T.id, pred)`.
    Id(Predicate),
    /// `hasKey(...)`, `has(T.key, ...)` on a property.
    Key(Predicate),
    /// `hasValue(...)`, `has(T.value, ...)` on a property.
    Value(Predicate),
}

/// `choose`.
#[derive(Debug, Clone)]
pub(crate) enum Choose {
    /// `choose(pred or traversal, then, else)`.
    IfThen {
        test: ChooseTest,
        then: Plan,
        otherwise: Option<Plan>,
    },
    /// `choose(traversal).option(key, t)...`, or `branch(...)` (`pass`
    /// false: a traverser no option takes is dropped, not passed on).
    Options {
        by: Plan,
        options: Vec<(OptionKey, Plan)>,
        pass: bool,
    },
}

/// A `choose` test.
#[derive(Debug, Clone)]
pub(crate) enum ChooseTest {
    Trav(Plan),
    Pred(Predicate),
}

/// An `option` key.
#[derive(Debug, Clone)]
pub(crate) enum OptionKey {
    Value(GValue),
    Pred(Predicate),
    Trav(Plan),
    Any,
    None,
    Unproductive,
}

/// `repeat` and its modulators.
#[derive(Debug, Clone)]
pub(crate) struct Repeat {
    pub name: Option<Arc<str>>,
    pub body: Plan,
    pub times: Option<u64>,
    pub until: Option<Plan>,
    /// `until` written before `repeat`: tested before each pass.
    pub until_first: bool,
    pub emit: Option<Emit>,
    pub emit_first: bool,
}

/// `emit()` or `emit(t)`.
#[derive(Debug, Clone)]
pub(crate) enum Emit {
    Always,
    If(Plan),
}

/// Turns expressions into plans with the request's bindings.
pub(crate) struct Compiler<'b> {
    pub bindings: &'b Bindings,
    /// Whether any step needs whole paths (`path`, `simplePath`, ...);
    /// without them only labelled objects are kept.
    pub needs_paths: bool,
    /// Whether any step writes.
    pub writes: bool,
    /// How deep in nested traversals the compiler is (0 at the root).
    pub depth: usize,
    /// Whether a hop and the `count()` after it may fuse; not when a
    /// strategy will rewrite the hops.
    pub fuse: bool,
}

pub(crate) fn arg_err(step: &Step, message: impl Into<String>) -> Error {
    Error::Argument {
        step: step.name.clone(),
        span: step.span,
        message: message.into(),
    }
}

pub(crate) fn unsupported(step: &Step, message: impl Into<String>) -> Error {
    Error::Unsupported {
        step: step.name.clone(),
        span: step.span,
        message: message.into(),
    }
}

/// Steps that modulate the step before them rather than standing alone.
const MODULATORS: &[&str] = &[
    "by", "times", "until", "emit", "option", "from", "to", "with", "read", "write",
];

impl Compiler<'_> {
    /// A value from a literal expression (parameters bound).
    pub(crate) fn value(&self, e: &Expr) -> Result<GValue> {
        Ok(match e {
            Expr::Null => GValue::Null,
            Expr::Bool(b) => GValue::Bool(*b),
            Expr::Int8(x) => GValue::Int8(*x),
            Expr::Int16(x) => GValue::Int16(*x),
            Expr::Int32(x) => GValue::Int32(*x),
            Expr::Int64(x) => GValue::Int64(*x),
            Expr::BigInt(x) => GValue::BigInt(*x),
            Expr::Float32(x) => GValue::Float32(*x),
            Expr::Float64(x) => GValue::Float64(*x),
            Expr::BigDecimal(s) => GValue::BigDecimal(
                s.parse()
                    .map_err(|_| Error::Runtime(format!("{s} is not a decimal number")))?,
            ),
            Expr::String(s) => GValue::str(s),
            Expr::DateTime(Some(s)) => GValue::Date(crate::exec::funcs::parse_date(s)?),
            Expr::DateTime(None) => GValue::Date(crate::exec::funcs::now()),
            Expr::Uuid(Some(b)) => GValue::Uuid(*b),
            Expr::Uuid(None) => GValue::Uuid(crate::exec::funcs::random_uuid()),
            Expr::List(items) => {
                GValue::list(items.iter().map(|i| self.value(i)).collect::<Result<_>>()?)
            }
            Expr::Set(items) => GValue::set(
                items
                    .iter()
                    .map(|i| self.value(i))
                    .collect::<Result<Vec<_>>>()?,
            ),
            Expr::Map(pairs) => GValue::map(
                pairs
                    .iter()
                    .map(|(k, v)| Ok((self.value(k)?, self.value(v)?)))
                    .collect::<Result<Vec<_>>>()?,
            ),
            Expr::Range(a, b) => GValue::list((*a..*b).map(GValue::Int64).collect()),
            Expr::Enum(EnumToken::T(t)) => GValue::T(*t),
            Expr::Enum(EnumToken::Direction(d)) => GValue::Direction(*d),
            Expr::Enum(EnumToken::Dt(d)) => GValue::str(crate::exec::funcs::dt_name(*d)),
            Expr::Enum(EnumToken::GType(g)) => GValue::str(&format!("{g:?}")),
            Expr::Var(name, span) => self.bindings.get(name).cloned().ok_or(Error::Unbound {
                name: name.clone(),
                span: *span,
            })?,
            Expr::Enum(t) => {
                return Err(Error::Runtime(format!("{t:?} is not a value here")));
            }
            Expr::Cardinality(_, v) => self.value(v)?,
            Expr::Traversal(t) => {
                return Err(Error::Runtime(format!(
                    "a traversal (at {}) is not a value here",
                    t.span
                )));
            }
            Expr::Pred(_) => return Err(Error::Runtime("a predicate is not a value here".into())),
            Expr::Strategy(s) => {
                return Err(Error::Runtime(format!("{} is not a value here", s.name)));
            }
        })
    }

    pub(crate) fn arg(&mut self, e: &Expr) -> Result<Arg> {
        match e {
            Expr::Traversal(t) => Ok(Arg::Trav(self.traversal(t)?)),
            other => Ok(Arg::Value(self.value(other)?)),
        }
    }

    pub(crate) fn string(&self, step: &Step, e: &Expr) -> Result<Arc<str>> {
        match self.value(e)? {
            GValue::String(s) => Ok(s),
            other => Err(arg_err(step, format!("expected a string, found {other}"))),
        }
    }

    pub(crate) fn strings(&self, step: &Step, args: &[Expr]) -> Result<Vec<Arc<str>>> {
        let mut out = Vec::new();
        for a in args {
            match self.value(a)? {
                GValue::String(s) => out.push(s),
                GValue::List(items) | GValue::Set(items) => {
                    for i in items.iter() {
                        match i {
                            GValue::String(s) => out.push(s.clone()),
                            other => {
                                return Err(arg_err(
                                    step,
                                    format!("expected a string, found {other}"),
                                ))
                            }
                        }
                    }
                }
                GValue::Null => {}
                other => return Err(arg_err(step, format!("expected a string, found {other}"))),
            }
        }
        Ok(out)
    }

    pub(crate) fn int(&self, step: &Step, e: &Expr) -> Result<i64> {
        let v = self.value(e)?;
        v.as_i64()
            .ok_or_else(|| arg_err(step, format!("expected an integer, found {v}")))
    }

    fn pred_of(&mut self, e: &Expr) -> Result<Option<Predicate>> {
        match e {
            Expr::Pred(p) => Ok(Some(self.pred(p)?)),
            Expr::Var(..) => match self.value(e)? {
                GValue::Map(_) | GValue::List(_) => Ok(None),
                _ => Ok(None),
            },
            _ => Ok(None),
        }
    }

    /// A predicate, or equality with a value.
    pub(crate) fn pred_or_eq(&mut self, e: &Expr) -> Result<Predicate> {
        match self.pred_of(e)? {
            Some(p) => Ok(p),
            None => Ok(Predicate::Eq(self.value(e)?)),
        }
    }

    /// `within` of several values, or equality with one: hasLabel('a','b').
    fn within_or_pred(&mut self, args: &[Expr]) -> Result<Predicate> {
        if args.len() == 1 {
            if let Some(p) = self.pred_of(&args[0])? {
                return Ok(p);
            }
            // A parameter holding a list means each of its members.
            if let GValue::List(items) = self.value(&args[0])? {
                return Ok(Predicate::Within(items.to_vec()));
            }
        }
        let mut vals = Vec::new();
        for a in args {
            vals.push(self.value(a)?);
        }
        Ok(if vals.len() == 1 {
            Predicate::Eq(vals.remove(0))
        } else {
            Predicate::Within(vals)
        })
    }

    pub(crate) fn pred(&mut self, p: &Pred) -> Result<Predicate> {
        match p {
            Pred::And(a, b) => Ok(Predicate::And(
                Box::new(self.pred(a)?),
                Box::new(self.pred(b)?),
            )),
            Pred::Or(a, b) => Ok(Predicate::Or(
                Box::new(self.pred(a)?),
                Box::new(self.pred(b)?),
            )),
            Pred::Not(a) => Ok(Predicate::Not(Box::new(self.pred(a)?))),
            Pred::Call { name, args, span } if name == "typeOf" => {
                let bad = |m: String| Error::Argument {
                    step: name.clone(),
                    span: *span,
                    message: m,
                };
                match args.as_slice() {
                    [Expr::Enum(EnumToken::GType(g))] => Ok(Predicate::TypeOf(*g)),
                    [e] => match self.value(e)? {
                        GValue::String(s) => pred::type_named(&s)
                            .map(Predicate::TypeOf)
                            .ok_or_else(|| bad(format!("{s} is not a registered type name"))),
                        other => Err(bad(format!(
                            "typeOf() takes a GType or a type name, not {other}"
                        ))),
                    },
                    _ => Err(bad("typeOf() takes one type".into())),
                }
            }
            Pred::Call { name, args, span } => {
                let mut vals = Vec::new();
                for a in args {
                    match a {
                        Expr::Pred(inner) if name == "not" => {
                            return Ok(Predicate::Not(Box::new(self.pred(inner)?)));
                        }
                        _ => vals.push(self.value(a)?),
                    }
                }
                pred::build(name, vals).map_err(|m| Error::Argument {
                    step: name.clone(),
                    span: *span,
                    message: m,
                })
            }
        }
    }

    pub(crate) fn by(&mut self, step: &Step) -> Result<(By, Option<OrderToken>)> {
        let by = |c: &mut Self, e: &Expr| -> Result<By> {
            Ok(match e {
                Expr::Traversal(t) => By::Trav(c.traversal(t)?),
                Expr::Enum(EnumToken::T(t)) => By::T(*t),
                Expr::Enum(EnumToken::Column(col)) => By::Column(*col),
                other => match c.value(other)? {
                    GValue::String(s) => By::Key(s),
                    GValue::T(t) => By::T(t),
                    v => return Err(arg_err(step, format!("by() cannot take {v}"))),
                },
            })
        };
        let order = |e: &Expr| match e {
            Expr::Enum(EnumToken::Order(o)) => Some(*o),
            _ => None,
        };
        match step.args.as_slice() {
            [] => Ok((By::Identity, None)),
            [a] => match order(a) {
                Some(o) => Ok((By::Identity, Some(o))),
                None => Ok((by(self, a)?, None)),
            },
            [a, b] => match order(b) {
                Some(o) => Ok((by(self, a)?, Some(o))),
                None => Err(unsupported(step, "a comparator other than an Order token")),
            },
            _ => Err(arg_err(step, "by() takes at most two arguments")),
        }
    }

    /// Compiles an anonymous or root traversal.
    pub(crate) fn traversal(&mut self, t: &Traversal) -> Result<Plan> {
        self.depth += 1;
        let r = self.traversal_inner(t);
        self.depth -= 1;
        let mut plan = r?;
        if self.depth > 0 {
            if let Some(Op::Inject(_, after)) = plan.ops.first_mut() {
                *after = true;
            }
        }
        Ok(plan)
    }

    fn traversal_inner(&mut self, t: &Traversal) -> Result<Plan> {
        let mut ops: Vec<Op> = Vec::new();
        // Modulators written before the step they modulate (`until`/`emit`
        // /`times` before `repeat`).
        let mut pending: Vec<&Step> = Vec::new();
        for step in &t.steps {
            let name = step.name.as_str();
            if MODULATORS.contains(&name) {
                let before_repeat = matches!(name, "until" | "emit" | "times")
                    && !matches!(ops.last(), Some(Op::Repeat(_)));
                if before_repeat {
                    pending.push(step);
                } else {
                    self.modulate(&mut ops, step)?;
                }
                continue;
            }
            let op = self.step(step)?;
            // `addV().property(T.id, 1)`: the id is part of the creation.
            if let Op::Property {
                key: Arg::Value(GValue::T(TToken::Id)),
                value: Arg::Value(v),
                ..
            } = &op
            {
                // Past other `property()` steps back to the element they
                // build.
                let at = ops
                    .iter()
                    .rposition(|o| !matches!(o, Op::Property { .. } | Op::SetProperties(_)));
                if let Some(Op::AddV { id, .. } | Op::AddE { id, .. }) = at.map(|i| &mut ops[i]) {
                    if id.is_none() {
                        *id = Some(v.clone());
                        continue;
                    }
                }
            }
            // `addV().property(T.label, 'person')` names the label.
            if let Op::Property {
                key: Arg::Value(GValue::T(TToken::Label)),
                value,
                ..
            } = &op
            {
                if let Some(Op::AddV { label, .. }) = ops.last_mut() {
                    *label = Some(value.clone());
                    continue;
                }
            }
            ops.push(op);
            if let Some(Op::Repeat(r)) = ops.last_mut() {
                for p in pending.drain(..) {
                    match p.name.as_str() {
                        "until" => {
                            r.until_first = true;
                            r.until = Some(self.until_arg(p)?);
                        }
                        "emit" => {
                            r.emit_first = true;
                            r.emit = Some(self.emit_arg(p)?);
                        }
                        _ => {
                            r.until_first = true;
                            r.times = Some(self.times_arg(p)?);
                        }
                    }
                }
            } else if let Some(p) = pending.first() {
                return Err(no_repeat(p));
            }
        }
        if let Some(p) = pending.first() {
            return Err(no_repeat(p));
        }
        let mut ops = connectives(ops);
        lookups(&mut ops);
        if self.fuse {
            fuse_counts(&mut ops);
            ops = crate::exec::frontier::form(ops);
        }
        Ok(Plan { ops })
    }

    fn until_arg(&mut self, step: &Step) -> Result<Plan> {
        match step.args.as_slice() {
            [Expr::Traversal(t)] => self.traversal(t),
            [e @ Expr::Pred(_)] => {
                let p = self.pred_or_eq(e)?;
                Ok(Plan {
                    ops: vec![Op::Is(p)],
                })
            }
            _ => Err(arg_err(step, "until() takes a traversal or a predicate")),
        }
    }

    fn emit_arg(&mut self, step: &Step) -> Result<Emit> {
        match step.args.as_slice() {
            [] => Ok(Emit::Always),
            [Expr::Traversal(t)] => Ok(Emit::If(self.traversal(t)?)),
            [e @ Expr::Pred(_)] => {
                let p = self.pred_or_eq(e)?;
                Ok(Emit::If(Plan {
                    ops: vec![Op::Is(p)],
                }))
            }
            _ => Err(arg_err(
                step,
                "emit() takes nothing, a traversal or a predicate",
            )),
        }
    }

    fn times_arg(&mut self, step: &Step) -> Result<u64> {
        match step.args.as_slice() {
            [e] => Ok(self.int(step, e)?.max(0) as u64),
            _ => Err(arg_err(step, "times() takes a count")),
        }
    }

    fn modulate(&mut self, ops: &mut [Op], step: &Step) -> Result<()> {
        // `addE(...).property(...).from(...)`: from/to reach back over the
        // properties to the edge they build.
        let mut n = ops.len();
        if matches!(step.name.as_str(), "from" | "to") {
            while n > 1 && matches!(ops[n - 1], Op::Property { .. } | Op::SetProperties(_)) {
                n -= 1;
            }
            if !matches!(ops.get(n.wrapping_sub(1)), Some(Op::AddE { .. })) {
                n = ops.len();
            }
        }
        let Some(last) = ops[..n].last_mut() else {
            return Err(arg_err(step, format!("{}() must follow a step", step.name)));
        };
        let name = step.name.as_str();
        match (name, last) {
            ("by", op) => {
                let (by, order) = self.by(step)?;
                match op {
                    Op::Order { by: list, .. } => list.push((by, order.unwrap_or(OrderToken::Asc))),
                    _ if order.is_some() => {
                        return Err(arg_err(step, "an Order in by() needs order()"))
                    }
                    Op::Path { by: list, .. }
                    | Op::Select { by: list, .. }
                    | Op::Project { by: list, .. }
                    | Op::Math { by: list, .. }
                    | Op::WherePred { by: list, .. }
                    | Op::PathFilter { by: list, .. }
                    | Op::Tree { by: list, .. }
                    | Op::Format { by: list, .. } => list.push(by),
                    Op::Dedup { by: slot, .. }
                    | Op::GroupCount { by: slot, .. }
                    | Op::ValueMap { by: slot, .. }
                    | Op::SackSet { by: slot, .. }
                    | Op::Aggregate { by: slot, .. }
                    | Op::Sample { by: slot, .. } => {
                        if slot.is_some() {
                            return Err(arg_err(
                                step,
                                format!("{} step can only have one by modulator", op_class(op)),
                            ));
                        }
                        *slot = Some(by);
                    }
                    Op::Group { key, value, .. } => {
                        if key.is_none() {
                            *key = Some(by);
                        } else if value.is_none() {
                            *value = Some(by);
                        } else {
                            return Err(arg_err(step, "group() takes two by() at most"));
                        }
                    }
                    Op::Choose(c) => match c.as_mut() {
                        Choose::Options { by: b, .. } => {
                            if let By::Trav(p) = by {
                                *b = p;
                            }
                        }
                        _ => return Err(unsupported(step, "by() on this choose()")),
                    },
                    _ => {
                        return Err(unsupported(
                            step,
                            "by() does not modulate the step before it",
                        ))
                    }
                }
            }
            ("times", Op::Repeat(r)) => r.times = Some(self.times_arg(step)?),
            ("until", Op::Repeat(r)) => r.until = Some(self.until_arg(step)?),
            ("emit", Op::Repeat(r)) => r.emit = Some(self.emit_arg(step)?),
            ("option", Op::Merge(m)) => crate::exec::merge::option(self, m, step)?,
            ("option", Op::Choose(c)) => {
                let Choose::Options { options, .. } = c.as_mut() else {
                    return Err(arg_err(step, "option() needs choose(traversal)"));
                };
                let [k, Expr::Traversal(t)] = step.args.as_slice() else {
                    return Err(arg_err(step, "option() takes a key and a traversal"));
                };
                let key = match k {
                    Expr::Enum(EnumToken::Pick(crate::ast::PickToken::Any)) => OptionKey::Any,
                    Expr::Enum(EnumToken::Pick(crate::ast::PickToken::None)) => OptionKey::None,
                    Expr::Enum(EnumToken::Pick(crate::ast::PickToken::Unproductive)) => {
                        OptionKey::Unproductive
                    }
                    Expr::Pred(p) => OptionKey::Pred(self.pred(p)?),
                    Expr::Traversal(t) => OptionKey::Trav(self.traversal(t)?),
                    other => OptionKey::Value(self.value(other)?),
                };
                let plan = self.traversal(t)?;
                options.push((key, plan));
            }
            ("from" | "to", Op::AddE { from, to, .. }) => {
                let [e] = step.args.as_slice() else {
                    return Err(arg_err(step, format!("{name}() takes one argument")));
                };
                let a = self.arg(e)?;
                if name == "from" {
                    *from = Some(a);
                } else {
                    *to = Some(a);
                }
            }
            ("from" | "to", Op::PathFilter { from, to, .. } | Op::Path { from, to, .. }) => {
                let [e] = step.args.as_slice() else {
                    return Err(arg_err(step, format!("{name}() takes one label")));
                };
                let l = self.string(step, e)?;
                if name == "from" {
                    *from = Some(l);
                } else {
                    *to = Some(l);
                }
            }
            ("with", Op::ValueMap { tokens, .. }) => {
                // `with(WithOptions.tokens[, mask])`: 1 asks for the id, 2
                // for the label; no mask means both.
                *tokens = match step.args.get(1) {
                    Some(e) => self.int(step, e)? as u8,
                    None => 3,
                };
            }
            ("with", Op::Index { map }) => {
                *map = matches!(
                    step.args.get(1).map(|e| self.value(e)),
                    Some(Ok(GValue::Int32(1)))
                );
            }
            // Other steps take no options here; a provider's option they
            // do not know changes nothing (as TinkerPop's steps ignore
            // keys they do not read).
            ("with", _) => {}
            (_, _) => {
                return Err(unsupported(
                    step,
                    format!("{name}() does not modulate the step before it"),
                ))
            }
        }
        Ok(())
    }

    fn scope_first<'a>(&self, args: &'a [Expr]) -> (bool, &'a [Expr]) {
        match args.first() {
            Some(Expr::Enum(EnumToken::Scope(s))) => (*s == ScopeToken::Local, &args[1..]),
            _ => (false, args),
        }
    }

    pub(crate) fn plans(&mut self, args: &[Expr], step: &Step) -> Result<Vec<Plan>> {
        args.iter()
            .map(|a| match a {
                Expr::Traversal(t) => self.traversal(t),
                _ => Err(arg_err(step, "expected traversals")),
            })
            .collect()
    }

    pub(crate) fn one_plan(&mut self, step: &Step) -> Result<Plan> {
        match step.args.as_slice() {
            [Expr::Traversal(t)] => self.traversal(t),
            _ => Err(arg_err(
                step,
                format!("{}() takes one traversal", step.name),
            )),
        }
    }

    fn step(&mut self, step: &Step) -> Result<Op> {
        let args = step.args.as_slice();
        let name = step.name.as_str();
        Ok(match name {
            "V" => Op::V(args.iter().map(|a| self.arg(a)).collect::<Result<_>>()?),
            "E" => Op::E(args.iter().map(|a| self.arg(a)).collect::<Result<_>>()?),
            "inject" => Op::Inject(
                args.iter().map(|a| self.value(a)).collect::<Result<_>>()?,
                false,
            ),
            "out" | "in" | "both" | "outE" | "inE" | "bothE" => {
                let dir = match name {
                    "out" | "outE" => DirectionToken::Out,
                    "in" | "inE" => DirectionToken::In,
                    _ => DirectionToken::Both,
                };
                Op::Adjacent {
                    dir,
                    labels: self.strings(step, args)?,
                    edges: name.ends_with('E'),
                }
            }
            "outV" => Op::EdgeEnds(DirectionToken::Out),
            "inV" => Op::EdgeEnds(DirectionToken::In),
            "bothV" => Op::EdgeEnds(DirectionToken::Both),
            "otherV" => {
                // The end it did not come from is read off the path.
                self.needs_paths = true;
                Op::OtherV
            }
            "has" => self.has(step)?,
            "hasLabel" => Op::Has(HasTest::Label(self.within_or_pred(args)?)),
            "hasId" => Op::Has(HasTest::Id(self.within_or_pred(args)?)),
            "hasKey" => Op::Has(HasTest::Key(self.within_or_pred(args)?)),
            "hasValue" => Op::Has(HasTest::Value(self.within_or_pred(args)?)),
            "hasNot" => match args {
                [k] => Op::HasNot(self.string(step, k)?),
                _ => return Err(arg_err(step, "hasNot() takes a key")),
            },
            "is" => match args {
                [e] => Op::Is(self.pred_or_eq(e)?),
                _ => return Err(arg_err(step, "is() takes a value or a predicate")),
            },
            "where" => match args {
                [Expr::Traversal(t)] => Op::Filter(where_plan(self.traversal(t)?)),
                [e @ Expr::Pred(_)] => Op::WherePred {
                    start: None,
                    pred: self.pred_or_eq(e)?,
                    by: Vec::new(),
                },
                [s, e @ Expr::Pred(_)] => Op::WherePred {
                    start: Some(self.string(step, s)?),
                    pred: self.pred_or_eq(e)?,
                    by: Vec::new(),
                },
                _ => return Err(arg_err(step, "where() takes a traversal or a predicate")),
            },
            "filter" => Op::Filter(self.one_plan(step)?),
            "not" => Op::Not(self.one_plan(step)?),
            "and" => Op::And(self.plans(args, step)?),
            "or" => Op::Or(self.plans(args, step)?),
            "dedup" => {
                let (local, rest) = self.scope_first(args);
                Op::Dedup {
                    local,
                    labels: self.strings(step, rest)?,
                    by: None,
                }
            }
            "simplePath" | "cyclicPath" => {
                self.needs_paths = true;
                Op::PathFilter {
                    simple: name == "simplePath",
                    from: None,
                    to: None,
                    by: Vec::new(),
                }
            }
            "limit" | "range" | "skip" | "tail" => {
                let (local, rest) = self.scope_first(args);
                let nums: Vec<i64> = rest
                    .iter()
                    .map(|a| self.int(step, a))
                    .collect::<Result<_>>()?;
                match (name, nums.as_slice()) {
                    ("limit", [n]) => Op::Range {
                        local,
                        low: 0,
                        high: Some((*n).max(0) as u64),
                    },
                    ("skip", [n]) => Op::Range {
                        local,
                        low: (*n).max(0) as u64,
                        high: None,
                    },
                    ("range", [lo, hi]) if *hi >= 0 && hi < lo => {
                        return Err(arg_err(step, format!("Not a legal range: [{lo}, {hi}]")))
                    }
                    ("range", [lo, hi]) => Op::Range {
                        local,
                        low: (*lo).max(0) as u64,
                        high: (*hi >= 0).then_some(*hi as u64),
                    },
                    ("tail", []) => Op::Tail { local, n: 1 },
                    ("tail", [n]) => Op::Tail {
                        local,
                        n: (*n).max(0) as u64,
                    },
                    _ => return Err(arg_err(step, format!("wrong arguments for {name}()"))),
                }
            }
            "coin" => match args {
                [e] => Op::Coin(
                    self.value(e)?
                        .as_f64()
                        .ok_or_else(|| arg_err(step, "coin() takes a probability"))?,
                ),
                _ => return Err(arg_err(step, "coin() takes a probability")),
            },
            "none" | "discard" if args.is_empty() => Op::Discard,
            "all" | "any" | "none" => match args {
                [Expr::Pred(p)] => Op::ListTest {
                    all: name != "any",
                    negate: name == "none",
                    pred: self.pred(p)?,
                },
                _ => return Err(arg_err(step, format!("{name}() takes a predicate"))),
            },
            "values" => Op::Values(self.strings(step, args)?),
            "properties" => Op::Properties(self.strings(step, args)?),
            "valueMap" => {
                let (tokens, rest) = match args.first() {
                    Some(Expr::Bool(b)) => (if *b { 3 } else { 0 }, &args[1..]),
                    _ => (0, args),
                };
                Op::ValueMap {
                    tokens,
                    keys: self.strings(step, rest)?,
                    by: None,
                }
            }
            "elementMap" => Op::ElementMap(self.strings(step, args)?),
            "propertyMap" => Op::PropertyMap(self.strings(step, args)?),
            "id" => Op::Id,
            "label" => Op::Label,
            "key" => Op::Key,
            "value" => Op::Value,
            "count" => Op::Count {
                local: self.scope_first(args).0,
            },
            "fold" => match args {
                [] => Op::Fold(None),
                [seed, Expr::Enum(EnumToken::Operator(op))] => {
                    Op::Fold(Some((self.value(seed)?, *op)))
                }
                _ => {
                    return Err(arg_err(
                        step,
                        "fold() takes nothing or a seed and an Operator",
                    ))
                }
            },
            "unfold" => Op::Unfold,
            "constant" => match args {
                [e] => Op::Constant(self.value(e)?),
                _ => return Err(arg_err(step, "constant() takes one value")),
            },
            "identity" => Op::Identity,
            "sample" => {
                let (local, rest) = self.scope_first(args);
                match rest {
                    [n] => Op::Sample {
                        local,
                        n: self.int(step, n)?.max(0) as u64,
                        by: None,
                    },
                    _ => return Err(arg_err(step, "sample() takes a count")),
                }
            }
            "tree" => {
                self.needs_paths = true;
                Op::Tree {
                    side: match args {
                        [k] => Some(self.string(step, k)?),
                        _ => None,
                    },
                    by: Vec::new(),
                }
            }
            "element" => Op::Element,
            "format" => match args {
                [e] => Op::Format {
                    template: self.string(step, e)?,
                    by: Vec::new(),
                },
                _ => return Err(arg_err(step, "format() takes a template")),
            },
            "path" => {
                self.needs_paths = true;
                Op::Path {
                    by: Vec::new(),
                    from: None,
                    to: None,
                }
            }
            "select" => self.select(step)?,
            "project" => Op::Project {
                keys: self.strings(step, args)?,
                by: Vec::new(),
            },
            "math" => match args {
                [e] => {
                    let text = self.string(step, e)?;
                    let expr = crate::exec::math::parse(&text).map_err(|m| arg_err(step, m))?;
                    Op::Math {
                        expr: Arc::new(expr),
                        by: Vec::new(),
                    }
                }
                _ => return Err(arg_err(step, "math() takes an expression")),
            },
            "sum" | "min" | "max" | "mean" => Op::Reduce {
                kind: match name {
                    "sum" => Reduce::Sum,
                    "min" => Reduce::Min,
                    "max" => Reduce::Max,
                    _ => Reduce::Mean,
                },
                local: self.scope_first(args).0,
            },
            "order" => Op::Order {
                local: self.scope_first(args).0,
                by: Vec::new(),
            },
            "group" => Op::Group {
                side: match args {
                    [k] => Some(self.string(step, k)?),
                    _ => None,
                },
                key: None,
                value: None,
            },
            "groupCount" => Op::GroupCount {
                side: match args {
                    [k] => Some(self.string(step, k)?),
                    _ => None,
                },
                by: None,
            },
            "map" => Op::Map(self.one_plan(step)?),
            "flatMap" => Op::FlatMap(self.one_plan(step)?),
            "local" => Op::Local(self.one_plan(step)?),
            "loops" => Op::Loops(match args {
                [n] => Some(self.string(step, n)?),
                _ => None,
            }),
            "union" => Op::Union(self.plans(args, step)?),
            "coalesce" => Op::Coalesce(self.plans(args, step)?),
            "optional" => Op::Optional(self.one_plan(step)?),
            "choose" => self.choose(step)?,
            "branch" => match args {
                [Expr::Traversal(_) | Expr::Enum(EnumToken::T(_))] => self.choose(step)?,
                _ => return Err(arg_err(step, "branch() takes a traversal")),
            },
            "repeat" => {
                let (label, body) = match args {
                    [Expr::Traversal(t)] => (None, self.traversal(t)?),
                    [l, Expr::Traversal(t)] => (Some(self.string(step, l)?), self.traversal(t)?),
                    _ => return Err(arg_err(step, "repeat() takes a traversal")),
                };
                Op::Repeat(Box::new(Repeat {
                    name: label,
                    body,
                    times: None,
                    until: None,
                    until_first: false,
                    emit: None,
                    emit_first: false,
                }))
            }
            "as" => Op::As(self.strings(step, args)?),
            "aggregate" | "store" => {
                let (local, rest) = self.scope_first(args);
                match rest {
                    [k] => Op::Aggregate {
                        key: self.string(step, k)?,
                        local: local || name == "store",
                        by: None,
                    },
                    _ => return Err(arg_err(step, "aggregate() takes a side-effect key")),
                }
            }
            "cap" => Op::Cap(self.strings(step, args)?),
            "sideEffect" => Op::SideEffect(self.one_plan(step)?),
            "barrier" => Op::Barrier,
            "sack" => match args {
                [] => Op::SackGet,
                [Expr::Enum(EnumToken::Operator(op))] => Op::SackSet { op: *op, by: None },
                _ => return Err(arg_err(step, "sack() takes nothing or an Operator")),
            },
            "index" => Op::Index { map: false },
            "addV" => {
                self.writes = true;
                Op::AddV {
                    label: match args {
                        [] => None,
                        [e] => Some(self.arg(e)?),
                        _ => return Err(arg_err(step, "addV() takes a label")),
                    },
                    id: None,
                }
            }
            "addE" => {
                self.writes = true;
                match args {
                    [e] => Op::AddE {
                        label: self.arg(e)?,
                        id: None,
                        from: None,
                        to: None,
                    },
                    _ => return Err(arg_err(step, "addE() takes a label")),
                }
            }
            "property" => {
                self.writes = true;
                let (list, rest) = match args.first() {
                    Some(Expr::Enum(EnumToken::Cardinality(c))) => {
                        (*c != crate::ast::Cardinality::Single, &args[1..])
                    }
                    _ => (false, args),
                };
                match rest {
                    [m] if !matches!(m, Expr::Traversal(_)) => Op::SetProperties(self.value(m)?),
                    [k, v] => Op::Property {
                        key: self.arg(k)?,
                        value: self.arg(v)?,
                        list,
                    },
                    [_, _, ..] => {
                        return Err(unsupported(step, "meta-properties are not supported"))
                    }
                    _ => return Err(arg_err(step, "property() takes a key and a value")),
                }
            }
            "drop" => {
                self.writes = true;
                Op::Drop
            }
            "mergeV" | "mergeE" => {
                self.writes = true;
                Op::Merge(Box::new(crate::exec::merge::compile(self, step)?))
            }
            "fail" => Op::Fail(match args {
                [] => None,
                [m] => Some(self.string(step, m)?.to_string()),
                _ => return Err(arg_err(step, "fail() takes a message")),
            }),
            _ if crate::exec::funcs::is_func(name) => {
                let (local, rest) = self.scope_first(args);
                Op::Func {
                    name: name.to_string(),
                    args: rest.iter().map(|a| self.arg(a)).collect::<Result<_>>()?,
                    local,
                }
            }
            _ => return Err(unsupported(step, "this step is not supported yet")),
        })
    }

    fn has(&mut self, step: &Step) -> Result<Op> {
        let args = step.args.as_slice();
        let key_of = |c: &Self, e: &Expr| -> Result<KeyOrT> {
            Ok(match e {
                Expr::Enum(EnumToken::T(t)) => KeyOrT::T(*t),
                other => match c.value(other)? {
                    GValue::String(s) => KeyOrT::Key(s),
                    GValue::T(t) => KeyOrT::T(t),
                    v => {
                        return Err(arg_err(
                            step,
                            format!("a property key must be a string, not {v}"),
                        ))
                    }
                },
            })
        };
        // A null key names no property: nothing has it.
        if matches!(args.first(), Some(Expr::Null)) && args.len() <= 2 {
            return Ok(Op::Discard);
        }
        Ok(Op::Has(match args {
            [k] => match key_of(self, k)? {
                KeyOrT::Key(k) => HasTest::Exists(k),
                KeyOrT::T(_) => return Err(arg_err(step, "has(T) needs a value")),
            },
            [k, v] => {
                let key = key_of(self, k)?;
                if let Expr::Traversal(t) = v {
                    let trav = self.traversal(t)?;
                    match key {
                        KeyOrT::Key(key) => HasTest::PropertyTrav { key, trav },
                        KeyOrT::T(_) => return Err(unsupported(step, "has(T, traversal)")),
                    }
                } else {
                    let pred = self.pred_or_eq(v)?;
                    match key {
                        KeyOrT::Key(key) => HasTest::Property {
                            label: None,
                            key,
                            pred,
                        },
                        KeyOrT::T(TToken::Label) => HasTest::Label(pred),
                        KeyOrT::T(TToken::Id) => HasTest::Id(pred),
                        KeyOrT::T(TToken::Key) => HasTest::Key(pred),
                        KeyOrT::T(TToken::Value) => HasTest::Value(pred),
                    }
                }
            }
            [l, k, v] => {
                let label = self.pred_or_eq(l)?;
                let key = match key_of(self, k)? {
                    KeyOrT::Key(k) => k,
                    KeyOrT::T(_) => return Err(unsupported(step, "has(label, T, value)")),
                };
                HasTest::Property {
                    label: Some(label),
                    key,
                    pred: self.pred_or_eq(v)?,
                }
            }
            _ => return Err(arg_err(step, "has() takes one to three arguments")),
        }))
    }

    fn select(&mut self, step: &Step) -> Result<Op> {
        let args = step.args.as_slice();
        if let [Expr::Enum(EnumToken::Column(c))] = args {
            return Ok(Op::SelectColumn(*c));
        }
        let (pop, rest) = match args.first() {
            Some(Expr::Enum(EnumToken::Pop(p))) => (*p, &args[1..]),
            _ => (PopToken::Last, args),
        };
        if rest.is_empty() {
            return Err(arg_err(step, "select() needs a key"));
        }
        let keys = rest.iter().map(|a| self.arg(a)).collect::<Result<_>>()?;
        Ok(Op::Select {
            pop,
            keys,
            by: Vec::new(),
        })
    }

    fn choose(&mut self, step: &Step) -> Result<Op> {
        let args = step.args.as_slice();
        let test = |c: &mut Self, e: &Expr| -> Result<ChooseTest> {
            Ok(match e {
                Expr::Traversal(t) => ChooseTest::Trav(c.traversal(t)?),
                other => ChooseTest::Pred(c.pred_or_eq(other)?),
            })
        };
        Ok(Op::Choose(Box::new(match args {
            [Expr::Traversal(t)] => Choose::Options {
                by: self.traversal(t)?,
                options: Vec::new(),
                pass: step.name == "choose",
            },
            [Expr::Enum(EnumToken::T(tok))] => Choose::Options {
                pass: step.name == "choose",
                by: Plan {
                    ops: vec![match tok {
                        TToken::Id => Op::Id,
                        TToken::Label => Op::Label,
                        TToken::Key => Op::Key,
                        TToken::Value => Op::Value,
                    }],
                },
                options: Vec::new(),
            },
            [t, Expr::Traversal(a)] => Choose::IfThen {
                test: test(self, t)?,
                then: self.traversal(a)?,
                otherwise: None,
            },
            [t, Expr::Traversal(a), Expr::Traversal(b)] => Choose::IfThen {
                test: test(self, t)?,
                then: self.traversal(a)?,
                otherwise: Some(self.traversal(b)?),
            },
            _ => {
                return Err(arg_err(
                    step,
                    "choose() takes a test and one or two traversals",
                ))
            }
        })))
    }
}

enum KeyOrT {
    Key(Arc<str>),
    T(TToken),
}

/// Fuses a hop followed by a global `count()`: the count needs only how
/// many edges each traverser would walk, not the traversers themselves
/// (paths, labels and sacks end at the count).
fn fuse_counts(ops: &mut Vec<Op>) {
    let mut i = 0;
    while i + 1 < ops.len() {
        if let (Op::Adjacent { dir, labels, .. }, Op::Count { local: false }) =
            (&ops[i], &ops[i + 1])
        {
            let fused = Op::AdjacentCount {
                dir: *dir,
                labels: labels.clone(),
            };
            ops.splice(i..i + 2, [fused]);
        }
        i += 1;
    }
}

/// Turns `V().has(label, key, value)` and `V().hasLabel(label).has(key,
/// value)` into a look-up, for values whose equality the engine's is
/// (strings, booleans, UUIDs, dates: Gremlin compares numbers across
/// types, which an exact-match index does not).
fn lookups(ops: &mut Vec<Op>) {
    let indexable = |v: &GValue| {
        matches!(
            v,
            GValue::String(_) | GValue::Bool(_) | GValue::Uuid(_) | GValue::Date(_)
        )
    };
    let [Op::V(ids), rest @ ..] = ops.as_slice() else {
        return;
    };
    if !ids.is_empty() {
        return;
    }
    // `V() [hasLabel(l)] has([l,] key, pred)`: how many ops that is, the
    // label, the key and the predicate.
    let filter = match rest {
        [Op::Has(HasTest::Property {
            label: Some(Predicate::Eq(GValue::String(l))),
            key,
            pred,
        }), ..] => Some((2, Some(l.clone()), key.clone(), pred.clone())),
        [Op::Has(HasTest::Label(Predicate::Eq(GValue::String(l)))), Op::Has(HasTest::Property {
            label: None,
            key,
            pred,
        }), ..] => Some((3, Some(l.clone()), key.clone(), pred.clone())),
        [Op::Has(HasTest::Property {
            label: None,
            key,
            pred,
        }), ..] => Some((2, None, key.clone(), pred.clone())),
        _ => None,
    };
    if let Some((n, label, key, pred)) = filter {
        let fallback = Plan {
            ops: ops.drain(0..n).collect(),
        };
        let op = match (label, pred) {
            (Some(label), Predicate::Eq(value)) if indexable(&value) => {
                Op::VFind { label, key, value }
            }
            (label, pred) => Op::VScan {
                label,
                key,
                pred,
                fallback,
            },
        };
        ops.insert(0, op);
        return;
    }
    if let [Op::Has(HasTest::Label(Predicate::Eq(GValue::String(l)))), after @ ..] = rest {
        let label = l.clone();
        let count = matches!(after.first(), Some(Op::Count { local: false }));
        let fallback = Plan {
            ops: ops.drain(0..if count { 3 } else { 2 }).collect(),
        };
        ops.insert(
            0,
            Op::VLabel {
                label,
                count,
                fallback,
            },
        );
    }
}

fn no_repeat(step: &Step) -> Error {
    arg_err(
        step,
        format!(
            "The repeat()-traversal was not defined: {}() must modulate a repeat()",
            step.name
        ),
    )
}

/// A `where(t)` traversal: a leading `as(x)` starts it from the object
/// labelled `x`, a trailing `as(y)` requires it to end on the object
/// labelled `y`; the same inside its `and`, `or` and `not`.
fn where_plan(mut p: Plan) -> Plan {
    let single = |op: &Op| match op {
        Op::As(labels) if labels.len() == 1 => Some(labels[0].clone()),
        _ => None,
    };
    if let Some(l) = p.ops.first().and_then(single) {
        p.ops[0] = Op::WhereStart(l);
    }
    if p.ops.len() > 1 {
        if let Some(l) = p.ops.last().and_then(single) {
            let n = p.ops.len() - 1;
            p.ops[n] = Op::WhereEnd(l);
        }
    }
    for op in &mut p.ops {
        match op {
            Op::And(ps) | Op::Or(ps) => {
                for q in ps.iter_mut() {
                    *q = where_plan(std::mem::take(q));
                }
            }
            Op::Not(q) => *q = where_plan(std::mem::take(q)),
            _ => {}
        }
    }
    p
}

/// Infix `and()` and `or()` (`a.and().b.or().c`): the steps before and
/// after each become the operands, `and` binding tighter than `or`; a
/// start step (`V()`) stays outside.
fn connectives(ops: Vec<Op>) -> Vec<Op> {
    let marker = |op: &Op| matches!(op, Op::And(v) | Op::Or(v) if v.is_empty());
    if !ops.iter().any(marker) {
        return ops;
    }
    let mut ops = ops.into_iter();
    let mut head = Vec::new();
    let mut rest: Vec<Op> = Vec::new();
    for (i, op) in ops.by_ref().enumerate() {
        if i == 0
            && matches!(
                op,
                Op::V(_) | Op::E(_) | Op::Inject(..) | Op::AddV { .. } | Op::AddE { .. }
            )
        {
            head.push(op);
        } else {
            rest.push(op);
        }
    }
    let mut ors: Vec<Vec<Plan>> = vec![Vec::new()];
    let mut cur: Vec<Op> = Vec::new();
    for op in rest {
        match op {
            Op::Or(v) if v.is_empty() => {
                if let Some(g) = ors.last_mut() {
                    g.push(Plan {
                        ops: std::mem::take(&mut cur),
                    });
                }
                ors.push(Vec::new());
            }
            Op::And(v) if v.is_empty() => {
                if let Some(g) = ors.last_mut() {
                    g.push(Plan {
                        ops: std::mem::take(&mut cur),
                    });
                }
            }
            other => cur.push(other),
        }
    }
    if let Some(g) = ors.last_mut() {
        g.push(Plan { ops: cur });
    }
    let mut terms: Vec<Plan> = ors
        .into_iter()
        .map(|mut ands| {
            if ands.len() == 1 {
                ands.remove(0)
            } else {
                Plan {
                    ops: vec![Op::And(ands)],
                }
            }
        })
        .collect();
    if terms.len() == 1 {
        head.extend(terms.remove(0).ops);
    } else {
        head.push(Op::Or(terms));
    }
    head
}

/// The name TinkerPop's messages give a step.
fn op_class(op: &Op) -> &'static str {
    match op {
        Op::Dedup { .. } => "Dedup",
        Op::GroupCount { .. } => "GroupCount",
        Op::ValueMap { .. } => "ValueMap",
        Op::SackSet { .. } => "Sack",
        Op::Aggregate { .. } => "Aggregate",
        Op::Sample { .. } => "Sample",
        _ => "This",
    }
}
