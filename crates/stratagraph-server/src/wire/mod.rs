//! What travels between a Gremlin driver and a Gremlin Server, as a value
//! model of its own: [`Wire`].
//!
//! The model follows the formats, not the engine: an `Int` and a `Long`
//! stay apart, a vertex is an id, a label and whatever properties the
//! sender attached, an enum token is its name. Mapping to and from the
//! executor's values is the server's job, which can then refuse what it
//! does not run (a lambda, say) by name.
//!
//! Coverage of the formats:
//!
//! - Every GraphBinary 1.0 type code decodes to a real variant and encodes
//!   back, plus `0x30` (`GType`), which TinkerPop 3.8 drivers send though
//!   the 1.0 spec does not list it. `Custom` (`0x00`) is kept as its name
//!   and bytes, since only its provider knows the format.
//! - GraphSON 3.0 expresses every variant except `Custom` (an
//!   [`EncodeError`]). A `ZonedDateTime`'s zone name (`[Europe/Paris]`) is
//!   read past: only the offset is kept, as GraphBinary carries it. A
//!   `gx:InetAddress` that is a host name rather than an address is refused.
//! - `BigInteger` and a `BigDecimal`'s unscaled value hold 128 bits; wider
//!   ones are refused with a [`DecodeError`].

pub mod error;
pub mod frame;
pub mod graphbinary;
pub mod graphson;
pub mod message;
pub mod time;

pub(crate) mod base64;
mod json;
mod wire_eq;

use std::net::IpAddr;

pub use error::{DecodeError, EncodeError};
pub use message::{ArgError, RequestMessage, ResponseMessage, ResultBody, Status};
pub use time::{LocalDate, LocalDateTime, OffsetDateTime};

/// How deeply values may nest, in either format, before decoding (or
/// encoding) stops with an error: deep enough for any real traversal,
/// shallow enough that recursion cannot exhaust a thread's stack.
pub const MAX_DEPTH: usize = 256;

/// A value as GraphBinary 1.0 or GraphSON 3.0 carries it.
///
/// Equality is the wire's: floats compare by their bits (so a `NaN`
/// decodes equal to the `NaN` encoded, and `0.0` differs from `-0.0`), and
/// maps and sets compare in order.
#[derive(Debug, Clone)]
pub enum Wire {
    /// `null`, of any type.
    Null,
    /// `Boolean`.
    Bool(bool),
    /// `Byte`: 8-bit signed.
    Byte(i8),
    /// `Short`: 16-bit signed.
    Short(i16),
    /// `Int`: 32-bit signed.
    Int(i32),
    /// `Long`: 64-bit signed.
    Long(i64),
    /// `BigInteger`, up to 128 bits; wider ones are refused when decoded.
    BigInteger(i128),
    /// `Float`: IEEE 754 single precision.
    Float(f32),
    /// `Double`: IEEE 754 double precision.
    Double(f64),
    /// `BigDecimal`: `unscaled × 10^-scale`.
    BigDecimal {
        /// Digits after the decimal point (negative: zeros before it).
        scale: i32,
        /// The unscaled value, up to 128 bits.
        unscaled: i128,
    },
    /// `String`.
    String(String),
    /// `UUID`, its 16 bytes in order.
    Uuid([u8; 16]),
    /// `Date`: milliseconds since the Unix epoch.
    Date(i64),
    /// `Timestamp`: milliseconds since the Unix epoch.
    Timestamp(i64),
    /// `OffsetDateTime`: a local date-time and its offset from UTC.
    OffsetDateTime(OffsetDateTime),
    /// `ZonedDateTime`: as GraphBinary carries it, a local date-time and an
    /// offset; a GraphSON zone name (`[Europe/Paris]`) is not kept.
    ZonedDateTime(OffsetDateTime),
    /// `Duration`: seconds and nanoseconds, `0 <= nanos < 1e9`.
    Duration {
        /// Whole seconds (negative for a negative duration).
        seconds: i64,
        /// Nanoseconds added to `seconds`, `0..1_000_000_000`.
        nanos: i32,
    },
    /// `Instant`: seconds and nanoseconds since the Unix epoch.
    Instant {
        /// Whole seconds since the epoch.
        seconds: i64,
        /// Nanoseconds added to `seconds`, `0..1_000_000_000`.
        nanos: i32,
    },
    /// `LocalDate`.
    LocalDate(LocalDate),
    /// `LocalDateTime`.
    LocalDateTime(LocalDateTime),
    /// `LocalTime`: nanoseconds since midnight.
    LocalTime(i64),
    /// `MonthDay`.
    MonthDay {
        /// `1..=12`.
        month: u8,
        /// `1..=31`, valid for the month (February 29 allowed).
        day: u8,
    },
    /// `OffsetTime`: a time of day and its offset from UTC.
    OffsetTime {
        /// Nanoseconds since midnight.
        nanos_of_day: i64,
        /// Offset from UTC in seconds.
        offset_seconds: i32,
    },
    /// `Period`: years, months and days, each signed.
    Period {
        /// Years.
        years: i32,
        /// Months.
        months: i32,
        /// Days.
        days: i32,
    },
    /// `Year`.
    Year(i32),
    /// `YearMonth`.
    YearMonth {
        /// The year.
        year: i32,
        /// `1..=12`.
        month: u8,
    },
    /// `ZoneOffset`: seconds from UTC, within ±18 hours.
    ZoneOffset(i32),
    /// `Char`: one Unicode scalar value.
    Char(char),
    /// `ByteBuffer`: raw bytes.
    ByteBuffer(Vec<u8>),
    /// `InetAddress`.
    InetAddress(IpAddr),
    /// `List`.
    List(Vec<Wire>),
    /// `Set`, in the order sent; duplicates are not removed here.
    Set(Vec<Wire>),
    /// `Map`, its pairs in the order sent.
    Map(Vec<(Wire, Wire)>),
    /// `Vertex`.
    Vertex(Box<Vertex>),
    /// `Edge`.
    Edge(Box<Edge>),
    /// `VertexProperty`.
    VertexProperty(Box<VertexProperty>),
    /// `Property` (of an edge, or a meta-property).
    Property(Box<Property>),
    /// `Path`.
    Path(Box<Path>),
    /// `TinkerGraph`: a whole graph (what `subgraph()` returns).
    Graph(Box<Graph>),
    /// `BulkSet`: each value with how many times it occurs.
    BulkSet(Vec<(Wire, i64)>),
    /// `Traverser`: a value and its bulk.
    Traverser {
        /// How many traversers this one stands for.
        bulk: i64,
        /// The value it carries.
        value: Box<Wire>,
    },
    /// `Tree`.
    Tree(Tree),
    /// One of Gremlin's enum tokens (`T.id`, `Direction.OUT`, ...), by name.
    Enum {
        /// Which enum.
        kind: EnumKind,
        /// The token's name as sent (`id`, `OUT`, `normSack`, ...).
        name: String,
    },
    /// `P`: a predicate by name with its arguments (`gt` and `[1]`,
    /// `within` and its values, `and` and two `P`s).
    P {
        /// The predicate's name.
        name: String,
        /// Its arguments.
        values: Vec<Wire>,
    },
    /// `TextP`: a text predicate by name with its arguments.
    TextP {
        /// The predicate's name (`containing`, `startingWith`, ...).
        name: String,
        /// Its arguments.
        values: Vec<Wire>,
    },
    /// `Binding`: a named parameter in bytecode.
    Binding {
        /// The parameter's name.
        key: String,
        /// Its value.
        value: Box<Wire>,
    },
    /// `Lambda`: decoded so that it can be refused by name.
    Lambda {
        /// The language the script is in (`gremlin-groovy`, ...).
        language: String,
        /// The script.
        script: String,
        /// How many arguments it takes; `-1` when unknown.
        arguments: i32,
    },
    /// `TraversalStrategy`: a strategy class and its configuration.
    TraversalStrategy {
        /// The strategy's fully qualified Java class name.
        class: String,
        /// Its configuration, in the order sent.
        config: Vec<(Wire, Wire)>,
    },
    /// `Bytecode`: a traversal as instructions.
    Bytecode(Box<Bytecode>),
    /// `Class`: a fully qualified Java class name.
    Class(String),
    /// `Metrics`: one step's profile.
    Metrics(Box<Metrics>),
    /// `TraversalMetrics`: a traversal's profile.
    TraversalMetrics(Box<TraversalMetrics>),
    /// A GraphBinary `Custom` type: a provider's own, kept as its name and
    /// bytes because only that provider knows its format.
    Custom {
        /// The implementation-specific name of the type.
        name: String,
        /// The `{custom_type_info}` bytes.
        type_info: Vec<u8>,
        /// The value's bytes.
        blob: Vec<u8>,
    },
}

/// A vertex: its id, label and the vertex properties sent with it (none
/// when the server sends references only).
#[derive(Debug, Clone, PartialEq)]
pub struct Vertex {
    /// Its id.
    pub id: Wire,
    /// Its label.
    pub label: String,
    /// Its vertex properties, grouped by label when sent as GraphSON.
    pub properties: Vec<VertexProperty>,
}

/// An edge, with both ends' ids and labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    /// Its id.
    pub id: Wire,
    /// Its label.
    pub label: String,
    /// The id of the vertex it points to.
    pub in_v_id: Wire,
    /// That vertex's label.
    pub in_v_label: String,
    /// The id of the vertex it comes from.
    pub out_v_id: Wire,
    /// That vertex's label.
    pub out_v_label: String,
    /// Its properties.
    pub properties: Vec<Property>,
}

/// A vertex property: id, label (its key), value and meta-properties.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexProperty {
    /// Its id.
    pub id: Wire,
    /// Its label, which is its key.
    pub label: String,
    /// Its value.
    pub value: Wire,
    /// Its meta-properties.
    pub properties: Vec<Property>,
}

/// A property: a key and a value.
#[derive(Debug, Clone, PartialEq)]
pub struct Property {
    /// Its key.
    pub key: String,
    /// Its value.
    pub value: Wire,
}

/// A path: the objects a traverser passed, each with its step labels.
#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    /// For each object, the set of labels it was given (`as(...)`).
    pub labels: Vec<Vec<String>>,
    /// The objects, from the start.
    pub objects: Vec<Wire>,
}

/// A whole graph: vertices with their properties, and edges.
#[derive(Debug, Clone, PartialEq)]
pub struct Graph {
    /// Its vertices.
    pub vertices: Vec<Vertex>,
    /// Its edges. GraphBinary does not carry an edge's end labels: decoding
    /// fills them in from [`Graph::vertices`] (empty for an end not there).
    pub edges: Vec<Edge>,
}

/// A tree: each key with the subtree under it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tree {
    /// The branches, in the order sent.
    pub branches: Vec<(Wire, Tree)>,
}

/// A traversal as instructions: source instructions (`withStrategies`,
/// `withSideEffect`, ...) then steps.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Bytecode {
    /// The step instructions, in order.
    pub steps: Vec<Instruction>,
    /// The source instructions, in order.
    pub sources: Vec<Instruction>,
}

/// One instruction: an operator (a step or source method) and its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// The method's name (`V`, `has`, `withStrategies`, ...).
    pub operator: String,
    /// Its arguments.
    pub args: Vec<Wire>,
}

/// One step's profile from `profile()`.
#[derive(Debug, Clone, PartialEq)]
pub struct Metrics {
    /// The step's id.
    pub id: String,
    /// The step's name.
    pub name: String,
    /// Time spent, in nanoseconds (GraphSON sends milliseconds as a double).
    pub duration_nanos: i64,
    /// Counts by name (`traverserCount`, `elementCount`).
    pub counts: Vec<(String, i64)>,
    /// Annotations by name (`percentDur`, ...).
    pub annotations: Vec<(String, Wire)>,
    /// The profiles of nested steps.
    pub nested: Vec<Metrics>,
}

/// A whole traversal's profile from `profile()`.
#[derive(Debug, Clone, PartialEq)]
pub struct TraversalMetrics {
    /// Total time, in nanoseconds (GraphSON sends milliseconds as a double).
    pub duration_nanos: i64,
    /// Each step's profile.
    pub metrics: Vec<Metrics>,
}

/// Which of Gremlin's enums a [`Wire::Enum`] token belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EnumKind {
    /// `T`: `id`, `label`, `key`, `value`.
    T,
    /// `Direction`: `OUT`, `IN`, `BOTH`.
    Direction,
    /// `Order`: `asc`, `desc`, `shuffle`.
    Order,
    /// `Pop`: `first`, `last`, `all`, `mixed`.
    Pop,
    /// `Scope`: `global`, `local`.
    Scope,
    /// `Cardinality`: `single`, `list`, `set`.
    Cardinality,
    /// `Column`: `keys`, `values`.
    Column,
    /// `Operator`: `sum`, `minus`, `addAll`, ...
    Operator,
    /// `Pick`: `any`, `none`, `unproductive`.
    Pick,
    /// `Barrier`: `normSack`.
    Barrier,
    /// `Merge`: `onCreate`, `onMatch`, `outV`, `inV`.
    Merge,
    /// `DT`: `second`, `minute`, `hour`, `day`.
    DT,
    /// `GType` (`INT`, `STRING`, ...): GraphBinary code `0x30`, which
    /// TinkerPop 3.8 drivers send though the 1.0 spec does not list it.
    GType,
}

impl EnumKind {
    /// Every kind, for tests and lookups.
    pub const ALL: [EnumKind; 13] = [
        EnumKind::T,
        EnumKind::Direction,
        EnumKind::Order,
        EnumKind::Pop,
        EnumKind::Scope,
        EnumKind::Cardinality,
        EnumKind::Column,
        EnumKind::Operator,
        EnumKind::Pick,
        EnumKind::Barrier,
        EnumKind::Merge,
        EnumKind::DT,
        EnumKind::GType,
    ];

    /// The enum's name as the formats spell it (`T`, `Direction`, `DT`):
    /// GraphSON's type is `g:` followed by it.
    pub const fn name(self) -> &'static str {
        match self {
            EnumKind::T => "T",
            EnumKind::Direction => "Direction",
            EnumKind::Order => "Order",
            EnumKind::Pop => "Pop",
            EnumKind::Scope => "Scope",
            EnumKind::Cardinality => "Cardinality",
            EnumKind::Column => "Column",
            EnumKind::Operator => "Operator",
            EnumKind::Pick => "Pick",
            EnumKind::Barrier => "Barrier",
            EnumKind::Merge => "Merge",
            EnumKind::DT => "DT",
            EnumKind::GType => "GType",
        }
    }

    /// The kind whose [`EnumKind::name`] is `name`.
    pub fn from_name(name: &str) -> Option<EnumKind> {
        EnumKind::ALL.into_iter().find(|k| k.name() == name)
    }
}

impl Wire {
    /// A string value.
    pub fn string(s: impl Into<String>) -> Wire {
        Wire::String(s.into())
    }

    /// An enum token.
    pub fn token(kind: EnumKind, name: impl Into<String>) -> Wire {
        Wire::Enum {
            kind,
            name: name.into(),
        }
    }

    /// The string, if this is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Wire::String(s) => Some(s),
            _ => None,
        }
    }

    /// The value as an `i64`, if it is an integer type that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Wire::Byte(v) => Some(i64::from(v)),
            Wire::Short(v) => Some(i64::from(v)),
            Wire::Int(v) => Some(i64::from(v)),
            Wire::Long(v) => Some(v),
            Wire::BigInteger(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }

    /// The pairs, if this is a map.
    pub fn as_map(&self) -> Option<&[(Wire, Wire)]> {
        match self {
            Wire::Map(pairs) => Some(pairs),
            _ => None,
        }
    }

    /// The name of this value's type as the formats name it, for errors.
    pub fn type_name(&self) -> &'static str {
        match self {
            Wire::Null => "null",
            Wire::Bool(_) => "Boolean",
            Wire::Byte(_) => "Byte",
            Wire::Short(_) => "Short",
            Wire::Int(_) => "Int",
            Wire::Long(_) => "Long",
            Wire::BigInteger(_) => "BigInteger",
            Wire::Float(_) => "Float",
            Wire::Double(_) => "Double",
            Wire::BigDecimal { .. } => "BigDecimal",
            Wire::String(_) => "String",
            Wire::Uuid(_) => "UUID",
            Wire::Date(_) => "Date",
            Wire::Timestamp(_) => "Timestamp",
            Wire::OffsetDateTime(_) => "OffsetDateTime",
            Wire::ZonedDateTime(_) => "ZonedDateTime",
            Wire::Duration { .. } => "Duration",
            Wire::Instant { .. } => "Instant",
            Wire::LocalDate(_) => "LocalDate",
            Wire::LocalDateTime(_) => "LocalDateTime",
            Wire::LocalTime(_) => "LocalTime",
            Wire::MonthDay { .. } => "MonthDay",
            Wire::OffsetTime { .. } => "OffsetTime",
            Wire::Period { .. } => "Period",
            Wire::Year(_) => "Year",
            Wire::YearMonth { .. } => "YearMonth",
            Wire::ZoneOffset(_) => "ZoneOffset",
            Wire::Char(_) => "Char",
            Wire::ByteBuffer(_) => "ByteBuffer",
            Wire::InetAddress(_) => "InetAddress",
            Wire::List(_) => "List",
            Wire::Set(_) => "Set",
            Wire::Map(_) => "Map",
            Wire::Vertex(_) => "Vertex",
            Wire::Edge(_) => "Edge",
            Wire::VertexProperty(_) => "VertexProperty",
            Wire::Property(_) => "Property",
            Wire::Path(_) => "Path",
            Wire::Graph(_) => "TinkerGraph",
            Wire::BulkSet(_) => "BulkSet",
            Wire::Traverser { .. } => "Traverser",
            Wire::Tree(_) => "Tree",
            Wire::Enum { kind, .. } => kind.name(),
            Wire::P { .. } => "P",
            Wire::TextP { .. } => "TextP",
            Wire::Binding { .. } => "Binding",
            Wire::Lambda { .. } => "Lambda",
            Wire::TraversalStrategy { .. } => "TraversalStrategy",
            Wire::Bytecode(_) => "Bytecode",
            Wire::Class(_) => "Class",
            Wire::Metrics(_) => "Metrics",
            Wire::TraversalMetrics(_) => "TraversalMetrics",
            Wire::Custom { .. } => "Custom",
        }
    }
}

impl From<&str> for Wire {
    fn from(s: &str) -> Wire {
        Wire::String(s.to_owned())
    }
}

impl From<String> for Wire {
    fn from(s: String) -> Wire {
        Wire::String(s)
    }
}

impl From<i32> for Wire {
    fn from(v: i32) -> Wire {
        Wire::Int(v)
    }
}

impl From<i64> for Wire {
    fn from(v: i64) -> Wire {
        Wire::Long(v)
    }
}

impl From<bool> for Wire {
    fn from(v: bool) -> Wire {
        Wire::Bool(v)
    }
}

impl From<f64> for Wire {
    fn from(v: f64) -> Wire {
        Wire::Double(v)
    }
}
