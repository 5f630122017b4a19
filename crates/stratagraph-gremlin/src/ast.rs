//! One representation of a Gremlin query, as the parser produces it and the
//! executor consumes it.
//!
//! Steps are kept generic (a name and its arguments) rather than one enum
//! variant per step: Gremlin has some two hundred step names with
//! overloaded signatures, and the executor resolves an overload by the
//! arguments' kinds (`has("name", "marko")` against `has("name", gt(3))`
//! against `has("name", __.out())`). The parser checks that a name is a
//! step Gremlin knows; the executor's planner checks the arguments and
//! names the step's position when they do not fit.
//!
//! Literals keep their Gremlin type: `1` is an `Int32`, `1l` an `Int64`,
//! `1.0` a `Float64`, `1.0f` a `Float32`, `1n` a big integer, `1.0m` a big
//! decimal (`spec/gremlin-semantics.asciidoc`, numeric types).

use std::fmt;

/// Byte offsets `start..end` of a piece of the query text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Span {
    /// First byte.
    pub start: usize,
    /// One past the last byte.
    pub end: usize,
}

/// A whole query: what one request or one script line holds.
#[derive(Debug, Clone, PartialEq)]
pub enum Query {
    /// `g.V()...` with its source configuration and an optional terminal
    /// method (`toList()`, `next()`, `iterate()`, ...).
    Traversal {
        /// `withSack`, `withSideEffect`, `withStrategies`, ... in order.
        source: Vec<Step>,
        /// The root traversal: its first step is a start step (`V`, `E`,
        /// `addV`, `addE`, `inject`, `mergeV`, `mergeE`, `union`, `call`,
        /// `io`).
        traversal: Traversal,
        /// The terminal method, if the text names one.
        terminal: Option<Terminal>,
    },
    /// `g.tx().begin()`, `g.tx().commit()`, `g.tx().rollback()`.
    Tx {
        /// The source configuration before `tx()`.
        source: Vec<Step>,
        /// What to do.
        op: TxOp,
    },
    /// The empty string: a query that does nothing.
    Empty,
}

/// A terminal method and where it sits in the text.
#[derive(Debug, Clone, PartialEq)]
pub struct Terminal {
    /// `toList`, `next`, `iterate`, `hasNext`, `tryNext`, `toSet`,
    /// `toBulkSet` or `explain`.
    pub name: String,
    /// `next(3)` takes a count; the others nothing.
    pub args: Vec<Expr>,
    /// Where the method is.
    pub span: Span,
}

/// A remote transaction's operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TxOp {
    /// `begin()`.
    Begin,
    /// `commit()`.
    Commit,
    /// `rollback()`.
    Rollback,
}

/// A chain of steps: the root traversal or an anonymous one (`__.out()`,
/// or a bare `out()` as an argument).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Traversal {
    /// The steps in order.
    pub steps: Vec<Step>,
    /// Where the traversal is in the text.
    pub span: Span,
}

/// One step: its name as written (`out`, `hasLabel`, `by`, ...) and its
/// arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// The step's name.
    pub name: String,
    /// The arguments in order.
    pub args: Vec<Expr>,
    /// Where the step is (from its name to its closing parenthesis).
    pub span: Span,
}

/// An argument: a literal, a nested traversal, a predicate, a token of one
/// of Gremlin's enums, a parameter, or a strategy.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// `null`.
    Null,
    /// `true`, `false`.
    Bool(bool),
    /// `1b`.
    Int8(i8),
    /// `1s`.
    Int16(i16),
    /// `1`, `1i`: a plain integer literal that fits 32 bits.
    Int32(i32),
    /// `1l`, or a plain integer literal too large for 32 bits.
    Int64(i64),
    /// `1n`, or a plain integer literal too large for 64 bits. Gremlin's
    /// big integers are unbounded; 128 bits is what this engine keeps, and
    /// a literal beyond that is a syntax error naming it.
    BigInt(i128),
    /// `1.0f`.
    Float32(f32),
    /// `1.0`, `1.0d`, `1e3`, `NaN`, `Infinity`, `-Infinity`.
    Float64(f64),
    /// `1.0m`: the decimal text as written, without the suffix (an exact
    /// decimal is not a float; the executor decides how to hold it).
    BigDecimal(String),
    /// `'text'` or `"text"`, escapes resolved.
    String(String),
    /// `datetime('2023-08-02T00:00:00Z')`: the text as written, checked by
    /// the executor; `datetime()` is the time of execution (`None`).
    DateTime(Option<String>),
    /// `UUID('...')`: the 16 bytes; `UUID()` a random one, drawn by the
    /// executor (`None`).
    Uuid(Option<[u8; 16]>),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `{a, b}`.
    Set(Vec<Expr>),
    /// `[k: v, ...]` or `[:]`. A bare key (`[name: 'marko']`) is a string.
    Map(Vec<(Expr, Expr)>),
    /// `1..5`: a range of integers (gremlin-lang's range literal).
    Range(i64, i64),
    /// A token of one of Gremlin's enums, bare (`desc`, `OUT`) or qualified
    /// (`Order.desc`, `Direction.OUT`).
    Enum(EnumToken),
    /// `Cardinality.list('x')`, `single(3)`: a value with its cardinality
    /// (in `mergeV`'s maps).
    Cardinality(Cardinality, Box<Expr>),
    /// A parameter: a name the request binds (`vid1`, `xx2`).
    Var(String, Span),
    /// A nested traversal, anonymous (`__.out()` or `out()`).
    Traversal(Traversal),
    /// A predicate: `P.gt(3)`, `TextP.startingWith('m')`, `within(...)`.
    Pred(Pred),
    /// `new SubgraphStrategy(vertices: __.hasLabel('person'))`, or a bare
    /// strategy class name (`ReadOnlyStrategy`), in `withStrategies` and
    /// `withoutStrategies`.
    Strategy(Strategy),
}

/// One of Gremlin's enums: which enum, and which token of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EnumToken {
    /// `T.id`, `T.label`, `T.key`, `T.value`.
    T(TToken),
    /// `Direction.OUT`, `IN`, `BOTH` (`from`/`to` are `OUT`/`IN`).
    Direction(DirectionToken),
    /// `Order.asc`, `desc`, `shuffle`.
    Order(OrderToken),
    /// `Scope.local`, `global`.
    Scope(ScopeToken),
    /// `Column.keys`, `values`.
    Column(ColumnToken),
    /// `Pop.first`, `last`, `all`, `mixed`.
    Pop(PopToken),
    /// `Operator.sum`, `minus`, `mult`, `div`, `min`, `max`, `assign`,
    /// `and`, `or`, `addAll`, `sumLong`.
    Operator(OperatorToken),
    /// `Cardinality.single`, `set`, `list` without a value.
    Cardinality(Cardinality),
    /// `Pick.any`, `none`, `unproductive`.
    Pick(PickToken),
    /// `Merge.onCreate`, `onMatch`, `outV`, `inV`.
    Merge(MergeToken),
    /// `Barrier.normSack`.
    Barrier(BarrierToken),
    /// `DT.second`, `minute`, `hour`, `day`.
    Dt(DtToken),
    /// `GType.INT`, ... (`asNumber`, `typeOf`): the name as written.
    GType(GTypeToken),
}

/// The tokens of `T`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TToken {
    /// `T.id`.
    Id,
    /// `T.label`.
    Label,
    /// `T.key`.
    Key,
    /// `T.value`.
    Value,
}

/// The tokens of `Direction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DirectionToken {
    /// `OUT` (also `from`).
    Out,
    /// `IN` (also `to`).
    In,
    /// `BOTH`.
    Both,
}

/// The tokens of `Order`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderToken {
    /// `asc` (also the deprecated `incr`).
    Asc,
    /// `desc` (also `decr`).
    Desc,
    /// `shuffle`.
    Shuffle,
}

/// The tokens of `Scope`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ScopeToken {
    /// `local`.
    Local,
    /// `global`.
    Global,
}

/// The tokens of `Column`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ColumnToken {
    /// `keys`.
    Keys,
    /// `values`.
    Values,
}

/// The tokens of `Pop`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PopToken {
    /// `first`.
    First,
    /// `last`.
    Last,
    /// `all`.
    All,
    /// `mixed`.
    Mixed,
}

/// The tokens of `Operator`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OperatorToken {
    /// `sum`.
    Sum,
    /// `minus`.
    Minus,
    /// `mult`.
    Mult,
    /// `div`.
    Div,
    /// `min`.
    Min,
    /// `max`.
    Max,
    /// `assign`.
    Assign,
    /// `and`.
    And,
    /// `or`.
    Or,
    /// `addAll`.
    AddAll,
    /// `sumLong`.
    SumLong,
}

/// A property's cardinality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Cardinality {
    /// `single`.
    Single,
    /// `set`.
    Set,
    /// `list`.
    List,
}

/// The tokens of `Pick`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PickToken {
    /// `any`.
    Any,
    /// `none`.
    None,
    /// `unproductive`.
    Unproductive,
}

/// The tokens of `Merge`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MergeToken {
    /// `onCreate`.
    OnCreate,
    /// `onMatch`.
    OnMatch,
    /// `outV`.
    OutV,
    /// `inV`.
    InV,
}

/// The tokens of `Barrier`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BarrierToken {
    /// `normSack`.
    NormSack,
}

/// The tokens of `DT` (units of `dateAdd` and `dateDiff`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DtToken {
    /// `second`.
    Second,
    /// `minute`.
    Minute,
    /// `hour`.
    Hour,
    /// `day`.
    Day,
}

/// The tokens of `GType` (`asNumber(GType.INT)`, `typeOf(...)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GTypeToken {
    /// `BIGDECIMAL`.
    BigDecimal,
    /// `BIGINT`.
    BigInt,
    /// `BINARY`.
    Binary,
    /// `BOOLEAN`.
    Boolean,
    /// `BYTE`.
    Byte,
    /// `CHAR`.
    Char,
    /// `DATETIME`.
    DateTime,
    /// `DOUBLE`.
    Double,
    /// `DURATION`.
    Duration,
    /// `EDGE`.
    Edge,
    /// `FLOAT`.
    Float,
    /// `GRAPH`.
    Graph,
    /// `INT`.
    Int,
    /// `LIST`.
    List,
    /// `LONG`.
    Long,
    /// `MAP`.
    Map,
    /// `NULL`.
    Null,
    /// `NUMBER`.
    Number,
    /// `PATH`.
    Path,
    /// `PROPERTY`.
    Property,
    /// `SET`.
    Set,
    /// `SHORT`.
    Short,
    /// `STRING`.
    String,
    /// `TREE`.
    Tree,
    /// `UUID`.
    Uuid,
    /// `VERTEX`.
    Vertex,
    /// `VPROPERTY`.
    VProperty,
}

/// A predicate.
#[derive(Debug, Clone, PartialEq)]
pub enum Pred {
    /// `P.eq(x)`, `gt`, `within(a, b)`, `between(a, b)`,
    /// `TextP.containing('x')`, `regex`, ...: the function's name as
    /// written and its arguments.
    Call {
        /// `eq`, `neq`, `lt`, `lte`, `gt`, `gte`, `inside`, `outside`,
        /// `between`, `within`, `without`, `containing`, `notContaining`,
        /// `startingWith`, `notStartingWith`, `endingWith`,
        /// `notEndingWith`, `regex`, `notRegex`, `typeOf`.
        name: String,
        /// Its arguments.
        args: Vec<Expr>,
        /// Where it is.
        span: Span,
    },
    /// `p.and(q)`.
    And(Box<Pred>, Box<Pred>),
    /// `p.or(q)`.
    Or(Box<Pred>, Box<Pred>),
    /// `P.not(p)` or `p.negate()`.
    Not(Box<Pred>),
}

/// A traversal strategy and its configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Strategy {
    /// The class name as written (`SubgraphStrategy`).
    pub name: String,
    /// `key: value` pairs in order.
    pub config: Vec<(String, Expr)>,
    /// Where it is.
    pub span: Span,
}

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}
