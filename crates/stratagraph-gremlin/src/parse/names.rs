//! The words gremlin-lang reserves, and what each means where it appears.
//!
//! The grammar (`spec/Gremlin.g4`) makes every `K_*` lexer rule a keyword:
//! a keyword is never a parameter name, so a bare keyword in argument
//! position is an enum token (`desc`, `local`, `keys`) or a syntax error,
//! and anything else that looks like a word is a parameter. The tables here
//! are lists of names taken from the grammar's rules; the tests compare
//! them against the grammar file so that they cannot drift apart.

use crate::ast::{
    BarrierToken, Cardinality, ColumnToken, DirectionToken, DtToken, EnumToken, Expr, GTypeToken,
    MergeToken, OperatorToken, OrderToken, PickToken, PopToken, ScopeToken, TToken,
};

/// Every keyword of the grammar (its `K_*` lexer rules), sorted by byte
/// order so that [`is_keyword`] can search it.
#[rustfmt::skip]
pub(crate) const KEYWORDS: &[&str] = &[
    "BIGDECIMAL", "BIGINT", "BINARY", "BOOLEAN", "BOTH", "BYTE", "Barrier", "CHAR",
    "Cardinality", "Column", "ConnectedComponent", "DATETIME", "DOUBLE", "DT", "DURATION",
    "DateTime", "Direction", "E", "EDGE", "FLOAT", "GRAPH", "GType", "IN", "INT", "IO",
    "Infinity", "LIST", "LONG", "MAP", "Merge", "N", "NULL", "NUMBER", "NaN", "OUT", "Operator",
    "Order", "P", "PATH", "PROPERTY", "PageRank", "PeerPressure", "Pick", "Pop", "SET", "SHORT",
    "STRING", "Scope", "ShortestPath", "T", "TREE", "TextP", "UUID", "V", "VERTEX", "VPROPERTY",
    "WithOptions", "addAll", "addE", "addV", "aggregate", "all", "and", "any", "as", "asBool",
    "asDate", "asNumber", "asString", "asc", "assign", "barrier", "begin", "between",
    "bigDecimal", "bigInt", "binary", "boolean", "both", "bothE", "bothV", "branch", "by", "byte",
    "call", "cap", "char", "choose", "coalesce", "coin", "combine", "commit", "component",
    "concat", "conjoin", "connectedComponent", "constant", "containing", "count", "cyclicPath",
    "dateAdd", "dateDiff", "datetime", "day", "decr", "dedup", "desc", "difference", "discard",
    "disjunct", "distance", "div", "double", "drop", "duration", "edge", "edges", "element",
    "elementMap", "emit", "endingWith", "eq", "explain", "fail", "false", "filter", "first",
    "flatMap", "float", "fold", "format", "from", "global", "graph", "graphml", "graphson",
    "group", "groupCount", "gryo", "gt", "gte", "has", "hasId", "hasKey", "hasLabel", "hasNext",
    "hasNot", "hasValue", "hour", "id", "identity", "ids", "in", "inE", "inV", "includeEdges",
    "incr", "index", "indexer", "inject", "inside", "int", "intersect", "io", "is", "iterate",
    "key", "keys", "lTrim", "label", "labels", "last", "length", "limit", "list", "local", "long",
    "loops", "lt", "lte", "map", "match", "math", "max", "maxDistance", "mean", "merge", "mergeE",
    "mergeV", "min", "minus", "minute", "mixed", "mult", "negate", "neq", "new", "next", "none",
    "normSack", "not", "notContaining", "notEndingWith", "notRegex", "notStartingWith", "null",
    "number", "onCreate", "onMatch", "option", "optional", "or", "order", "otherV", "out", "outE",
    "outV", "outside", "pageRank", "path", "peerPressure", "product", "profile", "project",
    "properties", "property", "propertyMap", "propertyName", "rTrim", "range", "read", "reader",
    "regex", "repeat", "replace", "reverse", "rollback", "sack", "sample", "second", "select",
    "set", "short", "shortestPath", "shuffle", "sideEffect", "simplePath", "single", "skip",
    "split", "startingWith", "string", "subgraph", "substring", "sum", "sumLong", "tail",
    "target", "timeLimit", "times", "to", "toBulkSet", "toE", "toList", "toLower", "toSet",
    "toString", "toUpper", "toV", "tokens", "tree", "trim", "true", "tryNext", "tx", "typeOf",
    "unfold", "union", "unproductive", "until", "uuid", "value", "valueMap", "values", "vertex",
    "vproperty", "where", "with", "withBulk", "withPath", "withSack", "withSideEffect",
    "withStrategies", "within", "without", "withoutStrategies", "write", "writer",
];

/// The steps a traversal may chain (the grammar's `traversalMethod_*`
/// rules), sorted by byte order.
#[rustfmt::skip]
pub(crate) const STEPS: &[&str] = &[
    "E", "V", "addE", "addV", "aggregate", "all", "and", "any", "as", "asBool", "asDate",
    "asNumber", "asString", "barrier", "both", "bothE", "bothV", "branch", "by", "call", "cap",
    "choose", "coalesce", "coin", "combine", "concat", "conjoin", "connectedComponent",
    "constant", "count", "cyclicPath", "dateAdd", "dateDiff", "dedup", "difference", "discard",
    "disjunct", "drop", "element", "elementMap", "emit", "fail", "filter", "flatMap", "fold",
    "format", "from", "group", "groupCount", "has", "hasId", "hasKey", "hasLabel", "hasNot",
    "hasValue", "id", "identity", "in", "inE", "inV", "index", "inject", "intersect", "is", "key",
    "lTrim", "label", "length", "limit", "local", "loops", "map", "match", "math", "max", "mean",
    "merge", "mergeE", "mergeV", "min", "none", "not", "option", "optional", "or", "order",
    "otherV", "out", "outE", "outV", "pageRank", "path", "peerPressure", "product", "profile",
    "project", "properties", "property", "propertyMap", "rTrim", "range", "read", "repeat",
    "replace", "reverse", "sack", "sample", "select", "shortestPath", "sideEffect", "simplePath",
    "skip", "split", "subgraph", "substring", "sum", "tail", "timeLimit", "times", "to", "toE",
    "toLower", "toUpper", "toV", "tree", "trim", "unfold", "union", "until", "value", "valueMap",
    "values", "where", "with", "write",
];

/// The steps that may start a root traversal after `g.` (the grammar's
/// `traversalSourceSpawnMethod_*` rules).
pub(crate) const START_STEPS: &[&str] = &[
    "E", "V", "addE", "addV", "call", "inject", "io", "mergeE", "mergeV", "union",
];

/// The methods that configure the traversal source (the grammar's
/// `traversalSourceSelfMethod_*` rules).
pub(crate) const SOURCE_METHODS: &[&str] = &[
    "with",
    "withBulk",
    "withPath",
    "withSack",
    "withSideEffect",
    "withStrategies",
    "withoutStrategies",
];

/// The methods that may end a root traversal (the grammar's
/// `traversalTerminalMethod_*` rules).
pub(crate) const TERMINALS: &[&str] = &[
    "explain",
    "hasNext",
    "iterate",
    "next",
    "toBulkSet",
    "toList",
    "toSet",
    "tryNext",
];

/// The functions of `P` (the grammar's `traversalPredicate_*` rules
/// written `K_P DOT ...`).
#[rustfmt::skip]
pub(crate) const P_PREDICATES: &[&str] = &[
    "between", "eq", "gt", "gte", "inside", "lt", "lte", "neq", "not", "outside", "typeOf",
    "within", "without",
];

/// The functions of `TextP`.
pub(crate) const TEXT_PREDICATES: &[&str] = &[
    "containing",
    "endingWith",
    "notContaining",
    "notEndingWith",
    "notRegex",
    "notStartingWith",
    "regex",
    "startingWith",
];

/// Whether `word` is reserved: a keyword, or one of the two traversal roots
/// (`g`, `__`).
pub(crate) fn is_keyword(word: &str) -> bool {
    word == "g" || word == "__" || KEYWORDS.binary_search(&word).is_ok()
}

/// Whether `word` names a step a traversal may chain.
pub(crate) fn is_step(word: &str) -> bool {
    STEPS.binary_search(&word).is_ok()
}

/// Whether `word` names a predicate function, bare (`gt`) or under `P` or
/// `TextP`.
pub(crate) fn is_predicate(word: &str) -> bool {
    P_PREDICATES.contains(&word) || TEXT_PREDICATES.contains(&word)
}

/// The enums a bare word may belong to where more than one would do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hint {
    /// An argument that may be any value: `list` and `set` are
    /// cardinalities, `null` is null (the grammar's `genericLiteral` lists
    /// `nullLiteral` and `traversalCardinality` before `traversalGType`).
    Value,
    /// An argument of `asNumber` or `typeOf`: `list`, `set` and `null` name
    /// types (the grammar's `traversalGType`).
    GType,
}

/// What a bare keyword means in argument position (`desc`, `local`,
/// `OUT`, `id`), if it is an enum token.
pub(crate) fn bare_token(word: &str, hint: Hint) -> Option<EnumToken> {
    if hint == Hint::GType {
        if let Some(t) = gtype(word) {
            return Some(EnumToken::GType(t));
        }
    }
    let t = match word {
        "id" | "label" | "key" | "value" => EnumToken::T(t_token(word)?),
        "IN" | "OUT" | "BOTH" | "from" | "to" => EnumToken::Direction(direction(word)?),
        "asc" | "desc" | "shuffle" | "incr" | "decr" => EnumToken::Order(order(word)?),
        "local" | "global" => EnumToken::Scope(scope(word)?),
        "keys" | "values" => EnumToken::Column(column(word)?),
        "first" | "last" | "all" | "mixed" => EnumToken::Pop(pop(word)?),
        "single" | "set" | "list" => EnumToken::Cardinality(cardinality(word)?),
        "any" | "none" | "unproductive" => EnumToken::Pick(pick(word)?),
        "onCreate" | "onMatch" | "outV" | "inV" => EnumToken::Merge(merge(word)?),
        "normSack" => EnumToken::Barrier(BarrierToken::NormSack),
        "second" | "minute" | "hour" | "day" => EnumToken::Dt(dt(word)?),
        // `null` is the null literal unless the hint says types.
        "null" => return None,
        _ => {
            if let Some(t) = operator(word) {
                EnumToken::Operator(t)
            } else {
                EnumToken::GType(gtype(word)?)
            }
        }
    };
    Some(t)
}

/// The enum classes whose tokens may be written `Class.token`.
pub(crate) fn is_enum_class(word: &str) -> bool {
    matches!(
        word,
        "T" | "Direction"
            | "Order"
            | "Scope"
            | "Column"
            | "Pop"
            | "Operator"
            | "Cardinality"
            | "Pick"
            | "Merge"
            | "Barrier"
            | "DT"
            | "GType"
    )
}

/// `Class.token` (`Order.desc`, `Direction.from`), if `token` belongs to
/// `class`.
pub(crate) fn qualified_token(class: &str, token: &str) -> Option<EnumToken> {
    Some(match class {
        "T" => EnumToken::T(t_token(token)?),
        "Direction" => EnumToken::Direction(direction(token)?),
        "Order" => match token {
            // `incr` and `decr` are keywords but not tokens of `Order` in
            // the grammar; only the bare deprecated forms are accepted.
            "asc" | "desc" | "shuffle" => EnumToken::Order(order(token)?),
            _ => return None,
        },
        "Scope" => EnumToken::Scope(scope(token)?),
        "Column" => EnumToken::Column(column(token)?),
        "Pop" => EnumToken::Pop(pop(token)?),
        "Operator" => EnumToken::Operator(operator(token)?),
        "Cardinality" => EnumToken::Cardinality(cardinality(token)?),
        "Pick" => EnumToken::Pick(pick(token)?),
        "Merge" => EnumToken::Merge(merge(token)?),
        "Barrier" => match token {
            "normSack" => EnumToken::Barrier(BarrierToken::NormSack),
            _ => return None,
        },
        "DT" => EnumToken::Dt(dt(token)?),
        "GType" => EnumToken::GType(gtype(token)?),
        _ => return None,
    })
}

/// The classes of string and number constants that `with(...)` takes
/// (`WithOptions.tokens`, `IO.reader`, `ShortestPath.edges`, ...).
pub(crate) fn is_constant_class(word: &str) -> bool {
    matches!(
        word,
        "WithOptions" | "IO" | "ShortestPath" | "PageRank" | "PeerPressure" | "ConnectedComponent"
    )
}

/// The value of `Class.name` for the classes of [`is_constant_class`]:
/// gremlin-lang resolves them to the strings and integers TinkerPop
/// defines (`WithOptions.tokens` is `"~tinkerpop.valueMap.tokens"`,
/// `WithOptions.labels` is `2`), so they are plain literals here.
pub(crate) fn constant(class: &str, name: &str) -> Option<Expr> {
    let s = |v: &str| Some(Expr::String(v.to_string()));
    match (class, name) {
        ("WithOptions", "tokens") => s("~tinkerpop.valueMap.tokens"),
        ("WithOptions", "indexer") => s("~tinkerpop.index.indexer"),
        ("WithOptions", "none") => Some(Expr::Int32(0)),
        ("WithOptions", "ids") => Some(Expr::Int32(1)),
        ("WithOptions", "labels") => Some(Expr::Int32(2)),
        ("WithOptions", "keys") => Some(Expr::Int32(4)),
        ("WithOptions", "values") => Some(Expr::Int32(8)),
        ("WithOptions", "all") => Some(Expr::Int32(15)),
        ("WithOptions", "list") => Some(Expr::Int32(0)),
        ("WithOptions", "map") => Some(Expr::Int32(1)),
        ("IO", "reader") => s("~tinkerpop.io.reader"),
        ("IO", "writer") => s("~tinkerpop.io.writer"),
        ("IO", "gryo") => s("gryo"),
        ("IO", "graphson") => s("graphson"),
        ("IO", "graphml") => s("graphml"),
        ("ShortestPath", "target") => s("~tinkerpop.shortestPath.target"),
        ("ShortestPath", "edges") => s("~tinkerpop.shortestPath.edges"),
        ("ShortestPath", "distance") => s("~tinkerpop.shortestPath.distance"),
        ("ShortestPath", "maxDistance") => s("~tinkerpop.shortestPath.maxDistance"),
        ("ShortestPath", "includeEdges") => s("~tinkerpop.shortestPath.includeEdges"),
        ("PageRank", "edges") => s("~tinkerpop.pageRank.edges"),
        ("PageRank", "times") => s("~tinkerpop.pageRank.times"),
        ("PageRank", "propertyName") => s("~tinkerpop.pageRank.propertyName"),
        ("PeerPressure", "edges") => s("~tinkerpop.peerPressure.edges"),
        ("PeerPressure", "times") => s("~tinkerpop.peerPressure.times"),
        ("PeerPressure", "propertyName") => s("~tinkerpop.peerPressure.propertyName"),
        ("ConnectedComponent", "component") => {
            s("gremlin.connectedComponentVertexProgram.component")
        }
        ("ConnectedComponent", "edges") => s("~tinkerpop.connectedComponent.edges"),
        ("ConnectedComponent", "propertyName") => s("~tinkerpop.connectedComponent.propertyName"),
        _ => None,
    }
}

fn t_token(w: &str) -> Option<TToken> {
    Some(match w {
        "id" => TToken::Id,
        "label" => TToken::Label,
        "key" => TToken::Key,
        "value" => TToken::Value,
        _ => return None,
    })
}

fn direction(w: &str) -> Option<DirectionToken> {
    Some(match w {
        "OUT" | "from" => DirectionToken::Out,
        "IN" | "to" => DirectionToken::In,
        "BOTH" => DirectionToken::Both,
        _ => return None,
    })
}

fn order(w: &str) -> Option<OrderToken> {
    Some(match w {
        "asc" | "incr" => OrderToken::Asc,
        "desc" | "decr" => OrderToken::Desc,
        "shuffle" => OrderToken::Shuffle,
        _ => return None,
    })
}

fn scope(w: &str) -> Option<ScopeToken> {
    Some(match w {
        "local" => ScopeToken::Local,
        "global" => ScopeToken::Global,
        _ => return None,
    })
}

fn column(w: &str) -> Option<ColumnToken> {
    Some(match w {
        "keys" => ColumnToken::Keys,
        "values" => ColumnToken::Values,
        _ => return None,
    })
}

fn pop(w: &str) -> Option<PopToken> {
    Some(match w {
        "first" => PopToken::First,
        "last" => PopToken::Last,
        "all" => PopToken::All,
        "mixed" => PopToken::Mixed,
        _ => return None,
    })
}

fn operator(w: &str) -> Option<OperatorToken> {
    Some(match w {
        "sum" => OperatorToken::Sum,
        "minus" => OperatorToken::Minus,
        "mult" => OperatorToken::Mult,
        "div" => OperatorToken::Div,
        "min" => OperatorToken::Min,
        "max" => OperatorToken::Max,
        "assign" => OperatorToken::Assign,
        "and" => OperatorToken::And,
        "or" => OperatorToken::Or,
        "addAll" => OperatorToken::AddAll,
        "sumLong" => OperatorToken::SumLong,
        _ => return None,
    })
}

/// `single`, `set`, `list`.
pub(crate) fn cardinality(w: &str) -> Option<Cardinality> {
    Some(match w {
        "single" => Cardinality::Single,
        "set" => Cardinality::Set,
        "list" => Cardinality::List,
        _ => return None,
    })
}

fn pick(w: &str) -> Option<PickToken> {
    Some(match w {
        "any" => PickToken::Any,
        "none" => PickToken::None,
        "unproductive" => PickToken::Unproductive,
        _ => return None,
    })
}

fn merge(w: &str) -> Option<MergeToken> {
    Some(match w {
        "onCreate" => MergeToken::OnCreate,
        "onMatch" => MergeToken::OnMatch,
        "outV" => MergeToken::OutV,
        "inV" => MergeToken::InV,
        _ => return None,
    })
}

fn dt(w: &str) -> Option<DtToken> {
    Some(match w {
        "second" => DtToken::Second,
        "minute" => DtToken::Minute,
        "hour" => DtToken::Hour,
        "day" => DtToken::Day,
        _ => return None,
    })
}

/// A `GType` token in either of the grammar's spellings (`INT`, `int`;
/// `BIGDECIMAL`, `bigDecimal`; `UUID`, `uuid`).
fn gtype(w: &str) -> Option<GTypeToken> {
    use GTypeToken as G;
    Some(match w {
        "BIGDECIMAL" | "bigDecimal" => G::BigDecimal,
        "BIGINT" | "bigInt" => G::BigInt,
        "BINARY" | "binary" => G::Binary,
        "BOOLEAN" | "boolean" => G::Boolean,
        "BYTE" | "byte" => G::Byte,
        "CHAR" | "char" => G::Char,
        "DATETIME" | "datetime" => G::DateTime,
        "DOUBLE" | "double" => G::Double,
        "DURATION" | "duration" => G::Duration,
        "EDGE" | "edge" => G::Edge,
        "FLOAT" | "float" => G::Float,
        "GRAPH" | "graph" => G::Graph,
        "INT" | "int" => G::Int,
        "LIST" | "list" => G::List,
        "LONG" | "long" => G::Long,
        "MAP" | "map" => G::Map,
        "NULL" | "null" => G::Null,
        "NUMBER" | "number" => G::Number,
        "PATH" | "path" => G::Path,
        "PROPERTY" | "property" => G::Property,
        "SET" | "set" => G::Set,
        "SHORT" | "short" => G::Short,
        "STRING" | "string" => G::String,
        "TREE" | "tree" => G::Tree,
        "UUID" | "uuid" => G::Uuid,
        "VERTEX" | "vertex" => G::Vertex,
        "VPROPERTY" | "vproperty" => G::VProperty,
        _ => return None,
    })
}
