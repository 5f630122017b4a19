//! gremlin-lang text from the AST: the canonical form of a query, which
//! [`crate::parse`] reads back to the same AST (spans aside).
//!
//! The form is chosen so that nothing depends on context when it is read
//! back:
//! - numbers carry the suffix their type needs (`1` is an `Int32`, `1L`,
//!   `1b`, `1s`, `1n`, `1.5` a `Float64`, `1.5f`, `1.5m`; `NaN`,
//!   `Infinity`, `-Infinity`);
//! - strings are double-quoted, with `\"`, `\\` and control characters
//!   escaped;
//! - enum tokens are qualified (`T.id`, `Order.desc`, `GType.LIST`), so
//!   that no bare word can be taken for another enum's token or for a
//!   parameter;
//! - nested traversals start with `__.`, and predicates with `P.` or
//!   `TextP.`;
//! - a map key other than a string, a number or a collection is
//!   parenthesized (`[(T.id): 1]`).
//!
//! A few values have no gremlin-lang text and print as the nearest thing:
//! a `Float32` NaN prints as `NaN` (a `Float64`), an infinite `Float32` as
//! `1e39f`/`-1e39f` (which reads back as the same infinity), an anonymous
//! traversal without steps as `__`, and a parameter, map key or
//! configuration key that is not an identifier is printed as it is.

use std::fmt::{self, Display, Formatter, Write as _};

use crate::ast::{
    BarrierToken, Cardinality, ColumnToken, DirectionToken, DtToken, EnumToken, Expr, GTypeToken,
    MergeToken, OperatorToken, OrderToken, PickToken, PopToken, Pred, Query, ScopeToken, Span,
    Step, Strategy, TToken, Terminal, Traversal, TxOp,
};
use crate::parse::names;

impl Display for Query {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Query::Empty => f.write_str("\"\""),
            Query::Traversal {
                source,
                traversal,
                terminal,
            } => {
                f.write_str("g")?;
                for step in source.iter().chain(&traversal.steps) {
                    write!(f, ".{step}")?;
                }
                if let Some(t) = terminal {
                    write!(f, ".{t}")?;
                }
                Ok(())
            }
            Query::Tx { source, op } => {
                f.write_str("g")?;
                for step in source {
                    write!(f, ".{step}")?;
                }
                let op = match op {
                    TxOp::Begin => "begin",
                    TxOp::Commit => "commit",
                    TxOp::Rollback => "rollback",
                };
                write!(f, ".tx().{op}()")
            }
        }
    }
}

/// An anonymous traversal: `__.out().in()`.
impl Display for Traversal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("__")?;
        for step in &self.steps {
            write!(f, ".{step}")?;
        }
        Ok(())
    }
}

impl Display for Step {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        comma_separated(f, &self.args)?;
        f.write_str(")")
    }
}

impl Display for Terminal {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        write!(f, "{}(", self.name)?;
        comma_separated(f, &self.args)?;
        f.write_str(")")
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Null => f.write_str("null"),
            Expr::Bool(b) => write!(f, "{b}"),
            Expr::Int8(v) => write!(f, "{v}b"),
            Expr::Int16(v) => write!(f, "{v}s"),
            Expr::Int32(v) => write!(f, "{v}"),
            Expr::Int64(v) => write!(f, "{v}L"),
            Expr::BigInt(v) => write!(f, "{v}n"),
            Expr::Float32(v) => write_f32(f, *v),
            Expr::Float64(v) => write_f64(f, *v),
            Expr::BigDecimal(s) => write!(f, "{s}m"),
            Expr::String(s) => write_string(f, s),
            Expr::DateTime(None) => f.write_str("datetime()"),
            Expr::DateTime(Some(s)) => {
                f.write_str("datetime(")?;
                write_string(f, s)?;
                f.write_str(")")
            }
            Expr::Uuid(None) => f.write_str("UUID()"),
            Expr::Uuid(Some(b)) => {
                f.write_str("UUID(\"")?;
                for (i, byte) in b.iter().enumerate() {
                    if matches!(i, 4 | 6 | 8 | 10) {
                        f.write_char('-')?;
                    }
                    write!(f, "{byte:02x}")?;
                }
                f.write_str("\")")
            }
            Expr::List(items) => {
                f.write_str("[")?;
                comma_separated(f, items)?;
                f.write_str("]")
            }
            Expr::Set(items) => {
                f.write_str("{")?;
                comma_separated(f, items)?;
                f.write_str("}")
            }
            Expr::Map(entries) if entries.is_empty() => f.write_str("[:]"),
            Expr::Map(entries) => {
                f.write_str("[")?;
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(", ")?;
                    }
                    write_map_key(f, k)?;
                    write!(f, ": {v}")?;
                }
                f.write_str("]")
            }
            Expr::Range(a, b) => write!(f, "{a}..{b}"),
            Expr::Enum(t) => write!(f, "{t}"),
            Expr::Cardinality(c, v) => write!(f, "Cardinality.{}({v})", cardinality_name(*c)),
            Expr::Var(name, _) => f.write_str(name),
            Expr::Traversal(t) => write!(f, "{t}"),
            Expr::Pred(p) => write!(f, "{p}"),
            Expr::Strategy(s) => write!(f, "{s}"),
        }
    }
}

impl Display for Pred {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Pred::Call { name, args, .. } => {
                if names::P_PREDICATES.contains(&name.as_str()) {
                    f.write_str("P.")?;
                } else if names::TEXT_PREDICATES.contains(&name.as_str()) {
                    f.write_str("TextP.")?;
                }
                write!(f, "{name}(")?;
                comma_separated(f, args)?;
                f.write_str(")")
            }
            Pred::And(a, b) => write!(f, "{a}.and({b})"),
            Pred::Or(a, b) => write!(f, "{a}.or({b})"),
            Pred::Not(p) => write!(f, "P.not({p})"),
        }
    }
}

/// `ReadOnlyStrategy`, or `new SubgraphStrategy(vertices: ...)` when it
/// has a configuration.
impl Display for Strategy {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.config.is_empty() {
            return f.write_str(&self.name);
        }
        write!(f, "new {}(", self.name)?;
        for (i, (k, v)) in self.config.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{k}: {v}")?;
        }
        f.write_str(")")
    }
}

/// The qualified token: `T.id`, `Direction.OUT`, `GType.INT`.
impl Display for EnumToken {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let (class, token) = match self {
            EnumToken::T(t) => (
                "T",
                match t {
                    TToken::Id => "id",
                    TToken::Label => "label",
                    TToken::Key => "key",
                    TToken::Value => "value",
                },
            ),
            EnumToken::Direction(d) => (
                "Direction",
                match d {
                    DirectionToken::Out => "OUT",
                    DirectionToken::In => "IN",
                    DirectionToken::Both => "BOTH",
                },
            ),
            EnumToken::Order(o) => (
                "Order",
                match o {
                    OrderToken::Asc => "asc",
                    OrderToken::Desc => "desc",
                    OrderToken::Shuffle => "shuffle",
                },
            ),
            EnumToken::Scope(s) => (
                "Scope",
                match s {
                    ScopeToken::Local => "local",
                    ScopeToken::Global => "global",
                },
            ),
            EnumToken::Column(c) => (
                "Column",
                match c {
                    ColumnToken::Keys => "keys",
                    ColumnToken::Values => "values",
                },
            ),
            EnumToken::Pop(p) => (
                "Pop",
                match p {
                    PopToken::First => "first",
                    PopToken::Last => "last",
                    PopToken::All => "all",
                    PopToken::Mixed => "mixed",
                },
            ),
            EnumToken::Operator(o) => ("Operator", operator_name(*o)),
            EnumToken::Cardinality(c) => ("Cardinality", cardinality_name(*c)),
            EnumToken::Pick(p) => (
                "Pick",
                match p {
                    PickToken::Any => "any",
                    PickToken::None => "none",
                    PickToken::Unproductive => "unproductive",
                },
            ),
            EnumToken::Merge(m) => (
                "Merge",
                match m {
                    MergeToken::OnCreate => "onCreate",
                    MergeToken::OnMatch => "onMatch",
                    MergeToken::OutV => "outV",
                    MergeToken::InV => "inV",
                },
            ),
            EnumToken::Barrier(BarrierToken::NormSack) => ("Barrier", "normSack"),
            EnumToken::Dt(d) => (
                "DT",
                match d {
                    DtToken::Second => "second",
                    DtToken::Minute => "minute",
                    DtToken::Hour => "hour",
                    DtToken::Day => "day",
                },
            ),
            EnumToken::GType(g) => ("GType", gtype_name(*g)),
        };
        write!(f, "{class}.{token}")
    }
}

fn operator_name(o: OperatorToken) -> &'static str {
    match o {
        OperatorToken::Sum => "sum",
        OperatorToken::Minus => "minus",
        OperatorToken::Mult => "mult",
        OperatorToken::Div => "div",
        OperatorToken::Min => "min",
        OperatorToken::Max => "max",
        OperatorToken::Assign => "assign",
        OperatorToken::And => "and",
        OperatorToken::Or => "or",
        OperatorToken::AddAll => "addAll",
        OperatorToken::SumLong => "sumLong",
    }
}

fn cardinality_name(c: Cardinality) -> &'static str {
    match c {
        Cardinality::Single => "single",
        Cardinality::Set => "set",
        Cardinality::List => "list",
    }
}

fn gtype_name(g: GTypeToken) -> &'static str {
    use GTypeToken as G;
    match g {
        G::BigDecimal => "BIGDECIMAL",
        G::BigInt => "BIGINT",
        G::Binary => "BINARY",
        G::Boolean => "BOOLEAN",
        G::Byte => "BYTE",
        G::Char => "CHAR",
        G::DateTime => "DATETIME",
        G::Double => "DOUBLE",
        G::Duration => "DURATION",
        G::Edge => "EDGE",
        G::Float => "FLOAT",
        G::Graph => "GRAPH",
        G::Int => "INT",
        G::List => "LIST",
        G::Long => "LONG",
        G::Map => "MAP",
        G::Null => "NULL",
        G::Number => "NUMBER",
        G::Path => "PATH",
        G::Property => "PROPERTY",
        G::Set => "SET",
        G::Short => "SHORT",
        G::String => "STRING",
        G::Tree => "TREE",
        G::Uuid => "UUID",
        G::Vertex => "VERTEX",
        G::VProperty => "VPROPERTY",
    }
}

fn comma_separated(f: &mut Formatter<'_>, items: &[Expr]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{item}")?;
    }
    Ok(())
}

/// A map key: strings, numbers and collections as themselves, anything
/// else in parentheses (`(T.id)`, `(Direction.OUT)`).
fn write_map_key(f: &mut Formatter<'_>, key: &Expr) -> fmt::Result {
    match key {
        Expr::String(_)
        | Expr::Int8(_)
        | Expr::Int16(_)
        | Expr::Int32(_)
        | Expr::Int64(_)
        | Expr::BigInt(_)
        | Expr::BigDecimal(_)
        | Expr::List(_)
        | Expr::Set(_)
        | Expr::Map(_) => write!(f, "{key}"),
        // `NaN` and `Infinity` before `:` would be bare keys, i.e. strings.
        Expr::Float32(v) if v.is_finite() => write!(f, "{key}"),
        Expr::Float64(v) if v.is_finite() => write!(f, "{key}"),
        _ => write!(f, "({key})"),
    }
}

/// Rust's `Debug` form of a finite float is the shortest text that reads
/// back to the same value and always has a `.` or an exponent.
fn write_f64(f: &mut Formatter<'_>, v: f64) -> fmt::Result {
    if v.is_nan() {
        f.write_str("NaN")
    } else if v.is_infinite() {
        f.write_str(if v > 0.0 { "Infinity" } else { "-Infinity" })
    } else {
        write!(f, "{v:?}")
    }
}

fn write_f32(f: &mut Formatter<'_>, v: f32) -> fmt::Result {
    if v.is_nan() {
        f.write_str("NaN")
    } else if v.is_infinite() {
        f.write_str(if v > 0.0 { "1e39f" } else { "-1e39f" })
    } else {
        write!(f, "{v:?}f")
    }
}

/// A double-quoted string literal.
fn write_string(f: &mut Formatter<'_>, s: &str) -> fmt::Result {
    f.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => f.write_str("\\\"")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\r' => f.write_str("\\r")?,
            '\t' => f.write_str("\\t")?,
            '\u{8}' => f.write_str("\\b")?,
            '\u{c}' => f.write_str("\\f")?,
            c if c.is_control() && u32::from(c) <= 0xFFFF => write!(f, "\\u{:04x}", u32::from(c))?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('"')
}

/// `q` with every span set to `0..0`, for comparing queries by what they
/// say rather than where they were written.
pub fn without_spans(q: &Query) -> Query {
    match q {
        Query::Empty => Query::Empty,
        Query::Traversal {
            source,
            traversal,
            terminal,
        } => Query::Traversal {
            source: source.iter().map(step_without_spans).collect(),
            traversal: traversal_without_spans(traversal),
            terminal: terminal.as_ref().map(|t| Terminal {
                name: t.name.clone(),
                args: t.args.iter().map(expr_without_spans).collect(),
                span: Span::default(),
            }),
        },
        Query::Tx { source, op } => Query::Tx {
            source: source.iter().map(step_without_spans).collect(),
            op: *op,
        },
    }
}

/// Whether `a` and `b` are the same query, spans aside. Floats compare by
/// their bits' meaning as text, so `NaN` equals `NaN` and `-0.0` differs
/// from `0.0` (unlike `==` on the AST).
pub fn same_ignoring_spans(a: &Query, b: &Query) -> bool {
    format!("{:?}", without_spans(a)) == format!("{:?}", without_spans(b))
}

fn traversal_without_spans(t: &Traversal) -> Traversal {
    Traversal {
        steps: t.steps.iter().map(step_without_spans).collect(),
        span: Span::default(),
    }
}

fn step_without_spans(s: &Step) -> Step {
    Step {
        name: s.name.clone(),
        args: s.args.iter().map(expr_without_spans).collect(),
        span: Span::default(),
    }
}

fn expr_without_spans(e: &Expr) -> Expr {
    match e {
        Expr::List(items) => Expr::List(items.iter().map(expr_without_spans).collect()),
        Expr::Set(items) => Expr::Set(items.iter().map(expr_without_spans).collect()),
        Expr::Map(entries) => Expr::Map(
            entries
                .iter()
                .map(|(k, v)| (expr_without_spans(k), expr_without_spans(v)))
                .collect(),
        ),
        Expr::Cardinality(c, v) => Expr::Cardinality(*c, Box::new(expr_without_spans(v))),
        Expr::Var(name, _) => Expr::Var(name.clone(), Span::default()),
        Expr::Traversal(t) => Expr::Traversal(traversal_without_spans(t)),
        Expr::Pred(p) => Expr::Pred(pred_without_spans(p)),
        Expr::Strategy(s) => Expr::Strategy(Strategy {
            name: s.name.clone(),
            config: s
                .config
                .iter()
                .map(|(k, v)| (k.clone(), expr_without_spans(v)))
                .collect(),
            span: Span::default(),
        }),
        other => other.clone(),
    }
}

fn pred_without_spans(p: &Pred) -> Pred {
    match p {
        Pred::Call { name, args, .. } => Pred::Call {
            name: name.clone(),
            args: args.iter().map(expr_without_spans).collect(),
            span: Span::default(),
        },
        Pred::And(a, b) => Pred::And(
            Box::new(pred_without_spans(a)),
            Box::new(pred_without_spans(b)),
        ),
        Pred::Or(a, b) => Pred::Or(
            Box::new(pred_without_spans(a)),
            Box::new(pred_without_spans(b)),
        ),
        Pred::Not(a) => Pred::Not(Box::new(pred_without_spans(a))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn round_trip(text: &str) -> String {
        let q = parse(text).unwrap();
        let printed = q.to_string();
        let again = parse(&printed).unwrap_or_else(|e| panic!("{printed}: {e}"));
        assert!(same_ignoring_spans(&q, &again), "{text}\n{printed}");
        printed
    }

    #[test]
    fn prints_canonical_text() {
        assert_eq!(round_trip("g.V()"), "g.V()");
        assert_eq!(
            round_trip("g.V(1l, 2b, 3s, 4, 5n).toList()"),
            "g.V(1L, 2b, 3s, 4, 5n).toList()"
        );
        assert_eq!(
            round_trip("g.inject(1.0, 2f, 1.50m, 1d)"),
            "g.inject(1.0, 2.0f, 1.50m, 1.0)"
        );
        assert_eq!(
            round_trip("g.inject(NaN, -Infinity, Infinity)"),
            "g.inject(NaN, -Infinity, Infinity)"
        );
        assert_eq!(
            round_trip("g.V().order().by('age', desc)"),
            "g.V().order().by(\"age\", Order.desc)"
        );
        assert_eq!(
            round_trip("g.V().has('a', gt(1).and(lt(3)))"),
            "g.V().has(\"a\", P.gt(1).and(P.lt(3)))"
        );
        assert_eq!(
            round_trip("g.V().where(not(out()))"),
            "g.V().where(__.not(__.out()))"
        );
        assert_eq!(
            round_trip("g.inject([(T.id): 1, name: 'x', 2: [:]])"),
            "g.inject([(T.id): 1, \"name\": \"x\", 2: [:]])"
        );
        assert_eq!(
            round_trip("g.inject('a\\'b\"c\\n\\u0001')"),
            "g.inject(\"a'b\\\"c\\n\\u0001\")"
        );
        assert_eq!(round_trip("g.tx().commit()"), "g.tx().commit()");
        assert_eq!(round_trip("''"), "\"\"");
        assert_eq!(
            round_trip("g.withStrategies(new SubgraphStrategy(vertices: __.hasLabel('p')), ReadOnlyStrategy).withoutStrategies(CountStrategy).V()"),
            "g.withStrategies(new SubgraphStrategy(vertices: __.hasLabel(\"p\")), ReadOnlyStrategy).withoutStrategies(CountStrategy).V()"
        );
        assert_eq!(
            round_trip("g.inject(UUID('6100808B-62f9-42b7-957e-ed66c30f40d1'), datetime('2023-08-02T00:00:00Z'), datetime())"),
            "g.inject(UUID(\"6100808b-62f9-42b7-957e-ed66c30f40d1\"), datetime(\"2023-08-02T00:00:00Z\"), datetime())"
        );
        assert_eq!(
            round_trip("g.V().property(list, 'a', 1).property(single('x'))"),
            "g.V().property(Cardinality.list, \"a\", 1).property(Cardinality.single(\"x\"))"
        );
    }

    #[test]
    fn float32_infinity_reads_back() {
        let q = parse("g.inject(1e39f, -1e39f)").unwrap();
        assert_eq!(q.to_string(), "g.inject(1e39f, -1e39f)");
        round_trip("g.inject(1e39f, 3.4028235e38f, 1.0E-45f)");
    }
}
