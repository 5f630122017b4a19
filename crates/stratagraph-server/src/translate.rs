//! A TinkerPop driver (gremlinpython, the Java driver, ...) sends a
//! traversal as [`Bytecode`]: source instructions (`withStrategies`,
//! `withSideEffect`, ...) then steps, each an operator and its [`Wire`]
//! arguments. [`to_gremlin_lang`] writes it as the text a string request
//! would have held (`g.<sources>.<steps>`), so that bytecode and string
//! requests go through one parser and one executor. [`is_tx`] recognises
//! the bytecode drivers send for `tx().commit()` and `tx().rollback()`,
//! which a server answers itself rather than running.
//!
//! The text is written so that each value keeps its type when
//! stratagraph-gremlin reads it back:
//!
//! | `Wire` | text |
//! |---|---|
//! | `Null`, `Bool` | `null`, `true`, `false` |
//! | `Byte`, `Short`, `Int`, `Long`, `BigInteger` | `1b`, `1s`, `1`, `1L`, `1n` |
//! | `Double` | `1.5d`, `1e300d`, `NaN`, `Infinity`, `-Infinity` |
//! | `Float` | `1.5f`; infinities as `1e39f`/`-1e39f` (which read back as the `Float` infinities); a `Float` NaN as `NaN`, a `Double` (gremlin-lang has no `Float` NaN) |
//! | `BigDecimal` | `1.50m` (scale kept); a scale outside `0..=64` as `15e-100m` |
//! | `String` | `"..."`, with `\"`, `\\`, `\n`, `\r`, `\t`, `\b`, `\f` and other control characters as `\uXXXX` |
//! | `Char` | a one-character string (gremlin-lang has no character literal, and the engine no character type) |
//! | `UUID` | `UUID("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")` |
//! | `Date`, `Timestamp`, `Instant` | `datetime("2016-12-14T16:39:19.349Z")` (UTC; a year before 1 as `-0001-...`, which the executor does not read yet) |
//! | `OffsetDateTime`, `ZonedDateTime` | `datetime("2007-12-03T10:15:30+01:00")` (the offset kept; a zone name is not on the wire); an offset with seconds (`+00:19:32`), which the executor would cut to minutes, as the same instant in UTC |
//! | `List`, `Set`, `Map` | `[a, b]`, `{a, b}`, `[k: v]`, `[:]`; a map key other than a string or finite number is parenthesized (`[(T.id): 1]`) |
//! | `Enum` | qualified: `T.id`, `Direction.OUT`, `Order.desc`, `GType.INT`, ... |
//! | `P`, `TextP` | `P.gt(1)`, `P.within(1, 2)`, `TextP.containing("x")`; `and`/`or` as `p.and(q)`, `not` as `P.not(p)`; a one-value comparison (`eq`, `neq`, `lt`, `lte`, `gt`, `gte`) sent with other than one value is one list (`P.eq([1, 2])`), since drivers spread a list value into the arguments |
//! | `Binding` | its value, inline (the name is dropped: gremlin-lang parameters would need the server to convert values, for no gain) |
//! | `Bytecode` | `__.out().has(...)`, an anonymous traversal; one without steps is `__.identity()`; gremlinpython's `CardinalityValue` (source `CardinalityValueTraversal`) is `Cardinality.list(v)` |
//! | `TraversalStrategy` | in `withStrategies`: its simple class name, bare (`ReadOnlyStrategy`) or `new SubgraphStrategy(vertices: __.has(...))`; `OptionsStrategy` (what `g.with(k, v)` sends) becomes `.with("k", v)` source steps |
//! | `Class`, `String` | in `withoutStrategies`: the simple class name |
//! | `Vertex`, `Edge` | see below |
//!
//! Elements: gremlin-lang has no vertex or edge literal, so an element
//! stands for what the step does with it. In `V()`, `E()` and `hasId()`
//! (and lists and predicates there) it is its id: `g.V(v)` is `g.V(1L)`.
//! In `to()` and `from()` a vertex is `__.V(id)`: `addE('x').to(v)` is
//! `addE("x").to(__.V(1L))`. As the value of a `Direction` key in a map
//! (`mergeE([(Direction.OUT): v])`) it is its id, which is what TinkerPop
//! accepts there. Anywhere else an element is refused
//! ([`TranslateError::Unsupported`]) rather than silently replaced.
//!
//! Refused: lambdas, `ByteBuffer`, `InetAddress`, the `java.time` types
//! other than the date-times above (`LocalDate`, `Duration`, ...), graph
//! structures as arguments (`Path`, `Tree`, `VertexProperty`, ...),
//! `Custom` values, a strategy or class outside `withStrategies` and
//! `withoutStrategies`, a nested traversal with source instructions, and
//! an operator, enum token, predicate, strategy or configuration key that
//! is not a plain name (which could otherwise change the text's meaning).
//! Step names are otherwise not checked here: the parser names an unknown
//! step itself.
//!
//! Translation never panics, and nesting deeper than
//! [`crate::wire::MAX_DEPTH`] levels is an error rather than a deep
//! recursion.

use std::fmt::{self, Write as _};

use crate::wire::time;
use crate::wire::{Bytecode, EnumKind, Instruction, OffsetDateTime, Wire, MAX_DEPTH};

/// A remote transaction operation, as drivers send it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxOp {
    /// `g.tx().commit()`: bytecode with the one source instruction
    /// `tx("commit")`.
    Commit,
    /// `g.tx().rollback()`: bytecode with the one source instruction
    /// `tx("rollback")`.
    Rollback,
}

/// Which list of a bytecode an instruction is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Part {
    /// The source instructions (`withStrategies`, `withSack`, ...).
    Source,
    /// The step instructions.
    Step,
}

/// One instruction on the way to a problem, and the argument of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Site {
    /// Source instruction or step.
    pub part: Part,
    /// Its index in its list, from 0.
    pub index: usize,
    /// Its operator as sent.
    pub operator: String,
    /// The argument at fault, from 0; `None` when the instruction itself
    /// is (its operator is not a name, say).
    pub argument: Option<usize>,
}

/// Where in a bytecode a problem is: the instruction of the root bytecode,
/// then that of each nested traversal on the way down, outermost first.
/// Empty for the bytecode as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Location(pub Vec<Site>);

/// Why a bytecode has no gremlin-lang text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranslateError {
    /// A value gremlin-lang (or this engine) has no form for: a lambda, a
    /// `ByteBuffer`, a `LocalDate`, an element where only a value may
    /// stand, ...
    #[error("{at}: {what}")]
    Unsupported {
        /// Where it is.
        at: Location,
        /// What it is and why it is refused.
        what: String,
    },
    /// Bytecode no driver sends: an operator or token that is not a name,
    /// a nested traversal with source instructions, a malformed predicate,
    /// strategy or transaction, an invalid date, or nesting deeper than
    /// [`MAX_DEPTH`].
    #[error("{at}: {what}")]
    Invalid {
        /// Where it is.
        at: Location,
        /// What is wrong.
        what: String,
    },
}

impl TranslateError {
    /// Where the problem is.
    pub fn location(&self) -> &Location {
        match self {
            TranslateError::Unsupported { at, .. } | TranslateError::Invalid { at, .. } => at,
        }
    }

    /// What the problem is, without the location.
    pub fn what(&self) -> &str {
        match self {
            TranslateError::Unsupported { what, .. } | TranslateError::Invalid { what, .. } => what,
        }
    }

    fn located_in(mut self, site: Site) -> TranslateError {
        match &mut self {
            TranslateError::Unsupported { at, .. } | TranslateError::Invalid { at, .. } => {
                at.0.insert(0, site);
            }
        }
        self
    }
}

impl fmt::Display for Site {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let part = match self.part {
            Part::Source => "source instruction",
            Part::Step => "step",
        };
        write!(f, "{part} {} ({:?})", self.index, shorten(&self.operator))?;
        if let Some(a) = self.argument {
            write!(f, ", argument {a}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str("bytecode");
        }
        for (i, site) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" > ")?;
            }
            write!(f, "{site}")?;
        }
        Ok(())
    }
}

/// The transaction operation `bytecode` asks for, if it is one: no steps
/// and the single source instruction `tx` with `"commit"` or
/// `"rollback"`, as gremlinpython's `Bytecode.GraphOp` and the Java
/// driver's `GraphOp` send it.
pub fn is_tx(bytecode: &Bytecode) -> Option<TxOp> {
    if !bytecode.steps.is_empty() {
        return None;
    }
    let [Instruction { operator, args }] = bytecode.sources.as_slice() else {
        return None;
    };
    if operator != "tx" {
        return None;
    }
    match args.as_slice() {
        [Wire::String(s)] if s == "commit" => Some(TxOp::Commit),
        [Wire::String(s)] if s == "rollback" => Some(TxOp::Rollback),
        _ => None,
    }
}

/// The gremlin-lang text of `bytecode`: `g`, each source instruction,
/// then each step, as `.name(arguments)`; a transaction operation (see
/// [`is_tx`]) is `g.tx().commit()` or `g.tx().rollback()`. The module
/// documentation gives the rule for each kind of argument.
///
/// # Errors
/// [`TranslateError`] naming the instruction and argument: a value with
/// no gremlin-lang form (a lambda, say) or bytecode no driver sends.
pub fn to_gremlin_lang(bytecode: &Bytecode) -> Result<String, TranslateError> {
    match is_tx(bytecode) {
        Some(TxOp::Commit) => return Ok("g.tx().commit()".into()),
        Some(TxOp::Rollback) => return Ok("g.tx().rollback()".into()),
        None => {}
    }
    let mut out = String::from("g");
    for (index, ins) in bytecode.sources.iter().enumerate() {
        source(&mut out, ins, 0).map_err(|(argument, fault)| {
            fault.into_error(Site {
                part: Part::Source,
                index,
                operator: ins.operator.clone(),
                argument,
            })
        })?;
    }
    steps(&mut out, &bytecode.steps, 0)?;
    Ok(out)
}

/// What went wrong below an instruction, before it is located.
enum Fault {
    Unsupported(String),
    Invalid(String),
    /// An error inside a nested traversal, located there.
    Nested(TranslateError),
}

impl Fault {
    fn into_error(self, site: Site) -> TranslateError {
        match self {
            Fault::Unsupported(what) => TranslateError::Unsupported {
                at: Location(vec![site]),
                what,
            },
            Fault::Invalid(what) => TranslateError::Invalid {
                at: Location(vec![site]),
                what,
            },
            Fault::Nested(e) => e.located_in(site),
        }
    }
}

/// A fault and the argument it is in (`None`: the instruction itself).
type InsResult = Result<(), (Option<usize>, Fault)>;

/// What an element argument may stand for where it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// Any value; an element is refused.
    Value,
    /// `V()`, `E()`, `hasId()`, a `Direction` entry of a map: an element is
    /// its id.
    Id,
    /// `to()`, `from()`: a vertex is `__.V(id)`.
    VertexRef,
}

/// `.op(args)` for each step.
fn steps(out: &mut String, steps: &[Instruction], depth: usize) -> Result<(), TranslateError> {
    for (index, ins) in steps.iter().enumerate() {
        step(out, ins, depth).map_err(|(argument, fault)| {
            fault.into_error(Site {
                part: Part::Step,
                index,
                operator: ins.operator.clone(),
                argument,
            })
        })?;
    }
    Ok(())
}

fn step(out: &mut String, ins: &Instruction, depth: usize) -> InsResult {
    let op = ins.operator.as_str();
    check_operator(op)?;
    let ctx = match op {
        "V" | "E" | "hasId" => Ctx::Id,
        "to" | "from" => Ctx::VertexRef,
        _ => Ctx::Value,
    };
    call(out, op, &ins.args, ctx, depth)
}

/// `.op(a, b, ...)`.
fn call(out: &mut String, op: &str, args: &[Wire], ctx: Ctx, depth: usize) -> InsResult {
    out.push('.');
    out.push_str(op);
    out.push('(');
    for (i, a) in args.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        value(out, a, ctx, depth).map_err(|f| (Some(i), f))?;
    }
    out.push(')');
    Ok(())
}

fn check_operator(op: &str) -> Result<(), (Option<usize>, Fault)> {
    if is_name(op) {
        Ok(())
    } else {
        Err((
            None,
            Fault::Invalid(format!(
                "the operator {:?} is not a method name",
                shorten(op)
            )),
        ))
    }
}

fn source(out: &mut String, ins: &Instruction, depth: usize) -> InsResult {
    let op = ins.operator.as_str();
    check_operator(op)?;
    match op {
        "withStrategies" => with_strategies(out, &ins.args, depth),
        "withoutStrategies" => without_strategies(out, &ins.args),
        "tx" => Err((
            None,
            Fault::Invalid(
                "a transaction is the source instruction tx(\"commit\") or tx(\"rollback\") \
                 alone, with no other instructions"
                    .into(),
            ),
        )),
        _ => call(out, op, &ins.args, Ctx::Value, depth),
    }
}

/// `.withStrategies(A, new B(k: v))`, then `.with("k", v)` for each entry
/// of an `OptionsStrategy`.
fn with_strategies(out: &mut String, args: &[Wire], depth: usize) -> InsResult {
    let mut strategies = String::new();
    let mut options = String::new();
    for (i, a) in args.iter().enumerate() {
        let at = |f: Fault| (Some(i), f);
        let Wire::TraversalStrategy { class, config } = a else {
            return Err(at(Fault::Invalid(format!(
                "withStrategies takes strategies, not a {}",
                a.type_name()
            ))));
        };
        let name = simple_name(class).map_err(at)?;
        if name == "OptionsStrategy" {
            for (k, v) in config {
                let Wire::String(key) = k else {
                    return Err(at(Fault::Invalid(format!(
                        "an OptionsStrategy key is a string, not a {}",
                        k.type_name()
                    ))));
                };
                options.push_str(".with(");
                string(&mut options, key);
                options.push_str(", ");
                value(&mut options, v, Ctx::Value, depth).map_err(at)?;
                options.push(')');
            }
            continue;
        }
        if !strategies.is_empty() {
            strategies.push_str(", ");
        }
        strategy(&mut strategies, name, config, depth).map_err(at)?;
    }
    if !strategies.is_empty() {
        out.push_str(".withStrategies(");
        out.push_str(&strategies);
        out.push(')');
    }
    out.push_str(&options);
    Ok(())
}

/// `Name` or `new Name(key: value, ...)`.
fn strategy(
    out: &mut String,
    name: &str,
    config: &[(Wire, Wire)],
    depth: usize,
) -> Result<(), Fault> {
    if config.is_empty() {
        out.push_str(name);
        return Ok(());
    }
    out.push_str("new ");
    out.push_str(name);
    out.push('(');
    for (i, (k, v)) in config.iter().enumerate() {
        let key = match k {
            Wire::String(key) if is_name(key) => key,
            Wire::String(key) => {
                return Err(Fault::Unsupported(format!(
                    "the configuration key {:?} of {name} is not a name, which gremlin-lang needs there",
                    shorten(key)
                )))
            }
            other => {
                return Err(Fault::Invalid(format!(
                    "a configuration key of {name} is a string, not a {}",
                    other.type_name()
                )))
            }
        };
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(key);
        out.push_str(": ");
        value(out, v, Ctx::Value, depth)?;
    }
    out.push(')');
    Ok(())
}

/// `.withoutStrategies(A, B)` from classes (or their names as strings).
fn without_strategies(out: &mut String, args: &[Wire]) -> InsResult {
    out.push_str(".withoutStrategies(");
    for (i, a) in args.iter().enumerate() {
        let name = match a {
            Wire::Class(c) | Wire::String(c) => simple_name(c).map_err(|f| (Some(i), f))?,
            other => {
                return Err((
                    Some(i),
                    Fault::Invalid(format!(
                        "withoutStrategies takes strategy classes, not a {}",
                        other.type_name()
                    )),
                ))
            }
        };
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(name);
    }
    out.push(')');
    Ok(())
}

/// The class name without its package: `SubgraphStrategy` of
/// `org.apache.tinkerpop...decoration.SubgraphStrategy`.
fn simple_name(class: &str) -> Result<&str, Fault> {
    let name = class.rsplit('.').next().unwrap_or(class);
    if is_name(name) {
        Ok(name)
    } else {
        Err(Fault::Invalid(format!(
            "{:?} is not a class name",
            shorten(class)
        )))
    }
}

/// One argument.
fn value(out: &mut String, w: &Wire, ctx: Ctx, depth: usize) -> Result<(), Fault> {
    let depth = depth + 1;
    if depth > MAX_DEPTH {
        return Err(Fault::Invalid(format!(
            "the bytecode nests deeper than {MAX_DEPTH} levels"
        )));
    }
    // Inside a collection or predicate, an element still stands for its id
    // where it did; `to()`/`from()` take a vertex only as themselves.
    let inner = if ctx == Ctx::Id { Ctx::Id } else { Ctx::Value };
    match w {
        Wire::Null => out.push_str("null"),
        Wire::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Wire::Byte(v) => {
            let _ = write!(out, "{v}b");
        }
        Wire::Short(v) => {
            let _ = write!(out, "{v}s");
        }
        Wire::Int(v) => {
            let _ = write!(out, "{v}");
        }
        Wire::Long(v) => {
            let _ = write!(out, "{v}L");
        }
        Wire::BigInteger(v) => {
            let _ = write!(out, "{v}n");
        }
        Wire::Float(v) => float32(out, *v),
        Wire::Double(v) => float64(out, *v),
        Wire::BigDecimal { scale, unscaled } => big_decimal(out, *scale, *unscaled),
        Wire::String(s) => string(out, s),
        Wire::Char(c) => string(out, c.encode_utf8(&mut [0; 4])),
        Wire::Uuid(b) => uuid(out, b),
        Wire::Date(ms) | Wire::Timestamp(ms) => {
            let nanos = (ms.rem_euclid(1000) * 1_000_000) as i32;
            instant(out, ms.div_euclid(1000), nanos)?;
        }
        Wire::Instant { seconds, nanos } => instant(out, *seconds, *nanos)?,
        Wire::OffsetDateTime(odt) | Wire::ZonedDateTime(odt) => {
            time::check_offset_date_time(odt)
                .map_err(|e| Fault::Invalid(format!("invalid {}: {e}", w.type_name())))?;
            if odt.offset_seconds % 60 == 0 {
                let mut text = String::new();
                time::format_offset_date_time(&mut text, odt);
                datetime(out, &text);
            } else {
                // The executor reads an offset's hours and minutes only:
                // write the same instant in UTC rather than another one.
                let (seconds, nanos) = epoch_of(odt);
                instant(out, seconds, nanos)?;
            }
        }
        Wire::List(items) => {
            out.push('[');
            items_of(out, items, inner, depth)?;
            out.push(']');
        }
        Wire::Set(items) => {
            out.push('{');
            items_of(out, items, inner, depth)?;
            out.push('}');
        }
        Wire::Map(pairs) => map(out, pairs, depth)?,
        Wire::Vertex(v) => match ctx {
            Ctx::Id => value(out, &v.id, Ctx::Value, depth)?,
            Ctx::VertexRef => {
                out.push_str("__.V(");
                value(out, &v.id, Ctx::Value, depth)?;
                out.push(')');
            }
            Ctx::Value => return Err(element_refused("a Vertex")),
        },
        Wire::Edge(e) => match ctx {
            Ctx::Id => value(out, &e.id, Ctx::Value, depth)?,
            Ctx::VertexRef | Ctx::Value => return Err(element_refused("an Edge")),
        },
        Wire::Enum { kind, name } => enum_token(out, *kind, name)?,
        Wire::P { name, values } => predicate(out, "P", name, values, inner, depth)?,
        Wire::TextP { name, values } => predicate(out, "TextP", name, values, inner, depth)?,
        Wire::Binding { value: v, .. } => value(out, v, ctx, depth)?,
        Wire::Lambda {
            language, script, ..
        } => {
            return Err(Fault::Unsupported(format!(
                "lambdas are not supported: gremlin-lang has none (a {} lambda {:?})",
                shorten(language),
                shorten(script)
            )))
        }
        Wire::Bytecode(bc) => nested(out, bc, depth)?,
        Wire::TraversalStrategy { class, .. } => {
            return Err(Fault::Unsupported(format!(
                "a strategy ({}) may only be an argument of withStrategies",
                shorten(class)
            )))
        }
        Wire::Class(c) => {
            return Err(Fault::Unsupported(format!(
                "a class ({}) may only be an argument of withoutStrategies",
                shorten(c)
            )))
        }
        Wire::ByteBuffer(_)
        | Wire::InetAddress(_)
        | Wire::Duration { .. }
        | Wire::LocalDate(_)
        | Wire::LocalDateTime(_)
        | Wire::LocalTime(_)
        | Wire::MonthDay { .. }
        | Wire::OffsetTime { .. }
        | Wire::Period { .. }
        | Wire::Year(_)
        | Wire::YearMonth { .. }
        | Wire::ZoneOffset(_) => {
            return Err(Fault::Unsupported(format!(
                "gremlin-lang has no literal for a {}",
                w.type_name()
            )))
        }
        Wire::VertexProperty(_)
        | Wire::Property(_)
        | Wire::Path(_)
        | Wire::Graph(_)
        | Wire::BulkSet(_)
        | Wire::Traverser { .. }
        | Wire::Tree(_)
        | Wire::Metrics(_)
        | Wire::TraversalMetrics(_)
        | Wire::Custom { .. } => {
            return Err(Fault::Unsupported(format!(
                "a {} is not a traversal argument gremlin-lang can write",
                w.type_name()
            )))
        }
    }
    Ok(())
}

fn element_refused(what: &str) -> Fault {
    Fault::Unsupported(format!(
        "{what} has no gremlin-lang literal; it is accepted only where it stands for its id \
         (V(), E(), hasId(), a Direction entry of a map) or, for a vertex, for __.V(id) \
         (to(), from())"
    ))
}

fn items_of(out: &mut String, items: &[Wire], ctx: Ctx, depth: usize) -> Result<(), Fault> {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        value(out, item, ctx, depth)?;
    }
    Ok(())
}

/// `[k: v, ...]`, `[:]`. A `Direction` entry's element is its id.
fn map(out: &mut String, pairs: &[(Wire, Wire)], depth: usize) -> Result<(), Fault> {
    if pairs.is_empty() {
        out.push_str("[:]");
        return Ok(());
    }
    out.push('[');
    for (i, (k, v)) in pairs.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        // A string or finite number before `:` reads as itself; anything
        // else (a word such as `true` or `NaN` would read as a string key)
        // goes in parentheses.
        let bare = match k {
            Wire::String(_)
            | Wire::Byte(_)
            | Wire::Short(_)
            | Wire::Int(_)
            | Wire::Long(_)
            | Wire::BigInteger(_)
            | Wire::BigDecimal { .. } => true,
            Wire::Float(x) => x.is_finite(),
            Wire::Double(x) => x.is_finite(),
            _ => false,
        };
        if !bare {
            out.push('(');
        }
        value(out, k, Ctx::Value, depth)?;
        if !bare {
            out.push(')');
        }
        out.push_str(": ");
        let ctx = match k {
            Wire::Enum {
                kind: EnumKind::Direction,
                ..
            } => Ctx::Id,
            _ => Ctx::Value,
        };
        value(out, v, ctx, depth)?;
    }
    out.push(']');
    Ok(())
}

/// An anonymous traversal, or gremlinpython's `CardinalityValue`.
fn nested(out: &mut String, bc: &Bytecode, depth: usize) -> Result<(), Fault> {
    if !bc.sources.is_empty() {
        return cardinality_value(out, bc, depth);
    }
    out.push_str("__");
    if bc.steps.is_empty() {
        out.push_str(".identity()");
        return Ok(());
    }
    steps(out, &bc.steps, depth).map_err(Fault::Nested)
}

/// `Cardinality.list(value)` from the bytecode gremlinpython sends for
/// `CardinalityValue.list_(value)`: no steps and the one source
/// instruction `CardinalityValueTraversal(Cardinality.list, value)`.
fn cardinality_value(out: &mut String, bc: &Bytecode, depth: usize) -> Result<(), Fault> {
    let invalid = || {
        let ops: Vec<&str> = bc.sources.iter().map(|s| s.operator.as_str()).collect();
        Fault::Invalid(format!(
            "a nested traversal has source instructions ({}): only anonymous traversals (__) \
             and cardinality values may be arguments",
            shorten(&ops.join(", "))
        ))
    };
    let [Instruction { operator, args }] = bc.sources.as_slice() else {
        return Err(invalid());
    };
    if operator != "CardinalityValueTraversal" || !bc.steps.is_empty() {
        return Err(invalid());
    }
    let [Wire::Enum {
        kind: EnumKind::Cardinality,
        name,
    }, v] = args.as_slice()
    else {
        return Err(Fault::Invalid(
            "a cardinality value is CardinalityValueTraversal(Cardinality, value)".into(),
        ));
    };
    enum_token(out, EnumKind::Cardinality, name)?;
    out.push('(');
    value(out, v, Ctx::Value, depth)?;
    out.push(')');
    Ok(())
}

/// `Kind.name`.
fn enum_token(out: &mut String, kind: EnumKind, name: &str) -> Result<(), Fault> {
    if !is_name(name) {
        return Err(Fault::Invalid(format!(
            "{:?} is not a token of {}",
            shorten(name),
            kind.name()
        )));
    }
    out.push_str(kind.name());
    out.push('.');
    out.push_str(name);
    Ok(())
}

fn is_pred(w: &Wire) -> bool {
    match w {
        Wire::P { .. } | Wire::TextP { .. } => true,
        Wire::Binding { value, .. } => is_pred(value),
        _ => false,
    }
}

/// `P.name(args)`, `p.and(q)`, `P.not(p)`.
fn predicate(
    out: &mut String,
    class: &str,
    name: &str,
    values: &[Wire],
    ctx: Ctx,
    depth: usize,
) -> Result<(), Fault> {
    match name {
        "and" | "or" => {
            if values.len() < 2 || !values.iter().all(is_pred) {
                return Err(Fault::Invalid(format!(
                    "{class}.{name} joins two or more predicates"
                )));
            }
            for (i, v) in values.iter().enumerate() {
                if i > 0 {
                    let _ = write!(out, ".{name}(");
                }
                value(out, v, ctx, depth)?;
                if i > 0 {
                    out.push(')');
                }
            }
        }
        "not" => {
            let [p] = values else {
                return Err(Fault::Invalid(format!("{class}.not takes one predicate")));
            };
            if !is_pred(p) {
                return Err(Fault::Invalid(format!("{class}.not takes a predicate")));
            }
            out.push_str("P.not(");
            value(out, p, ctx, depth)?;
            out.push(')');
        }
        _ => {
            if !is_name(name) {
                return Err(Fault::Invalid(format!(
                    "{:?} is not a predicate of {class}",
                    shorten(name)
                )));
            }
            let _ = write!(out, "{class}.{name}(");
            let one_value = matches!(name, "eq" | "neq" | "lt" | "lte" | "gt" | "gte");
            if one_value && values.len() != 1 {
                // The driver spread a list value into the arguments.
                out.push('[');
                items_of(out, values, ctx, depth)?;
                out.push(']');
            } else {
                items_of(out, values, ctx, depth)?;
            }
            out.push(')');
        }
    }
    Ok(())
}

/// Rust's `Debug` form of a finite float is the shortest text that reads
/// back to the same value, with a `.` or an exponent; `d` keeps it a
/// `Double` whatever a reader's default for a bare decimal.
fn float64(out: &mut String, v: f64) {
    if v.is_nan() {
        out.push_str("NaN");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "Infinity" } else { "-Infinity" });
    } else {
        let _ = write!(out, "{v:?}d");
    }
}

/// As [`float64`], with `f`. An infinite `Float` is written as a literal
/// too large for a `Float`, which reads back as its infinity; a `Float` NaN
/// has no literal and is written `NaN` (a `Double`).
fn float32(out: &mut String, v: f32) {
    if v.is_nan() {
        out.push_str("NaN");
    } else if v.is_infinite() {
        out.push_str(if v > 0.0 { "1e39f" } else { "-1e39f" });
    } else {
        let _ = write!(out, "{v:?}f");
    }
}

/// `unscaled × 10^-scale` as `1.50m`; with a scale outside `0..=64` as
/// `15e-100m`, so that the text stays as short as the value.
fn big_decimal(out: &mut String, scale: i32, unscaled: i128) {
    let sign = if unscaled < 0 { "-" } else { "" };
    let digits = unscaled.unsigned_abs().to_string();
    match usize::try_from(scale) {
        Ok(0) => {
            let _ = write!(out, "{sign}{digits}m");
        }
        Ok(s) if s <= 64 => {
            let padded = if digits.len() <= s {
                format!("{}{digits}", "0".repeat(s + 1 - digits.len()))
            } else {
                digits
            };
            let (int, frac) = padded.split_at(padded.len() - s);
            let _ = write!(out, "{sign}{int}.{frac}m");
        }
        _ => {
            let _ = write!(out, "{sign}{digits}e{}m", -i64::from(scale));
        }
    }
}

/// A double-quoted string literal, escaped as the parser unescapes.
fn string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            c if c.is_control() => {
                // Control characters are all in the Basic Multilingual Plane.
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// `UUID("xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx")`.
fn uuid(out: &mut String, b: &[u8; 16]) {
    out.push_str("UUID(\"");
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            out.push('-');
        }
        let _ = write!(out, "{byte:02x}");
    }
    out.push_str("\")");
}

/// `datetime("...Z")` for a point in time given as seconds and
/// nanoseconds since the epoch.
fn instant(out: &mut String, seconds: i64, nanos: i32) -> Result<(), Fault> {
    let mut text = String::new();
    time::format_instant(&mut text, seconds, nanos)
        .map_err(|e| Fault::Invalid(format!("invalid date-time: {e}")))?;
    datetime(out, &text);
    Ok(())
}

/// Seconds and nanoseconds since the epoch of a (checked) offset
/// date-time.
fn epoch_of(odt: &OffsetDateTime) -> (i64, i32) {
    let d = odt.date_time.date;
    // Days from 1970-01-01 to the date (proleptic Gregorian).
    let y = i64::from(d.year) - i64::from(d.month <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(d.month);
    let mp = if m > 2 { m - 3 } else { m + 9 };
    let doy = (153 * mp + 2) / 5 + i64::from(d.day) - 1;
    let days = era * 146_097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719_468;
    let nanos_of_day = odt.date_time.nanos_of_day;
    let seconds =
        days * 86_400 + nanos_of_day.div_euclid(1_000_000_000) - i64::from(odt.offset_seconds);
    (seconds, nanos_of_day.rem_euclid(1_000_000_000) as i32)
}

fn datetime(out: &mut String, iso: &str) {
    out.push_str("datetime(");
    string(out, iso);
    out.push(')');
}

/// Whether `s` is a plain ASCII identifier (`[A-Za-z_$][A-Za-z0-9_$]*`):
/// what may stand unquoted in the text without changing its meaning.
fn is_name(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// `s`, cut to a length fit for a message.
fn shorten(s: &str) -> String {
    const MAX: usize = 60;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}...")
    }
}
