//! GraphBinary 1.0 (`graphbinary.asciidoc`): values and messages.
//!
//! A value is written fully qualified: `{type_code}{value_flag}{value}`,
//! big-endian, where the flag `0x01` marks a null with no value bytes. A
//! null whose type is not known is written as type `0xfe` with the null
//! flag. Inside some types the format fixes a part's type, and that part is
//! written bare, as its value bytes alone (a vertex's label is a bare
//! `String`: length then UTF-8).
//!
//! Encoding is canonical where the format leaves a choice: a `BigInteger`
//! in its fewest bytes (as Java's `BigInteger.toByteArray()`), an element
//! without properties with a null properties slot (as TinkerPop's drivers
//! send references).
//!
//! Decoding checks every length against the bytes left before allocating,
//! refuses negative lengths, unknown type codes, out-of-range dates and
//! nesting past [`MAX_DEPTH`], and reports the byte offset of each.

use std::collections::HashMap;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use super::time::{self, LocalDate, LocalDateTime, OffsetDateTime};
use super::{
    Bytecode, DecodeError, Edge, EncodeError, EnumKind, Graph, Instruction, Metrics, Path,
    Property, RequestMessage, ResponseMessage, ResultBody, Status, TraversalMetrics, Tree, Vertex,
    VertexProperty, Wire, MAX_DEPTH,
};

/// The version byte that starts each request and response message.
pub const MESSAGE_VERSION: u8 = 0x81;

/// GraphBinary 1.0 type codes.
pub mod code {
    /// `Int`.
    pub const INT: u8 = 0x01;
    /// `Long`.
    pub const LONG: u8 = 0x02;
    /// `String`.
    pub const STRING: u8 = 0x03;
    /// `Date`.
    pub const DATE: u8 = 0x04;
    /// `Timestamp`.
    pub const TIMESTAMP: u8 = 0x05;
    /// `Class`.
    pub const CLASS: u8 = 0x06;
    /// `Double`.
    pub const DOUBLE: u8 = 0x07;
    /// `Float`.
    pub const FLOAT: u8 = 0x08;
    /// `List`.
    pub const LIST: u8 = 0x09;
    /// `Map`.
    pub const MAP: u8 = 0x0a;
    /// `Set`.
    pub const SET: u8 = 0x0b;
    /// `UUID`.
    pub const UUID: u8 = 0x0c;
    /// `Edge`.
    pub const EDGE: u8 = 0x0d;
    /// `Path`.
    pub const PATH: u8 = 0x0e;
    /// `Property`.
    pub const PROPERTY: u8 = 0x0f;
    /// `TinkerGraph`.
    pub const GRAPH: u8 = 0x10;
    /// `Vertex`.
    pub const VERTEX: u8 = 0x11;
    /// `VertexProperty`.
    pub const VERTEX_PROPERTY: u8 = 0x12;
    /// `Barrier`.
    pub const BARRIER: u8 = 0x13;
    /// `Binding`.
    pub const BINDING: u8 = 0x14;
    /// `Bytecode`.
    pub const BYTECODE: u8 = 0x15;
    /// `Cardinality`.
    pub const CARDINALITY: u8 = 0x16;
    /// `Column`.
    pub const COLUMN: u8 = 0x17;
    /// `Direction`.
    pub const DIRECTION: u8 = 0x18;
    /// `Operator`.
    pub const OPERATOR: u8 = 0x19;
    /// `Order`.
    pub const ORDER: u8 = 0x1a;
    /// `Pick`.
    pub const PICK: u8 = 0x1b;
    /// `Pop`.
    pub const POP: u8 = 0x1c;
    /// `Lambda`.
    pub const LAMBDA: u8 = 0x1d;
    /// `P`.
    pub const P: u8 = 0x1e;
    /// `Scope`.
    pub const SCOPE: u8 = 0x1f;
    /// `T`.
    pub const T: u8 = 0x20;
    /// `Traverser`.
    pub const TRAVERSER: u8 = 0x21;
    /// `BigDecimal`.
    pub const BIG_DECIMAL: u8 = 0x22;
    /// `BigInteger`.
    pub const BIG_INTEGER: u8 = 0x23;
    /// `Byte`.
    pub const BYTE: u8 = 0x24;
    /// `ByteBuffer`.
    pub const BYTE_BUFFER: u8 = 0x25;
    /// `Short`.
    pub const SHORT: u8 = 0x26;
    /// `Boolean`.
    pub const BOOLEAN: u8 = 0x27;
    /// `TextP`.
    pub const TEXT_P: u8 = 0x28;
    /// `TraversalStrategy`.
    pub const TRAVERSAL_STRATEGY: u8 = 0x29;
    /// `BulkSet`.
    pub const BULK_SET: u8 = 0x2a;
    /// `Tree`.
    pub const TREE: u8 = 0x2b;
    /// `Metrics`.
    pub const METRICS: u8 = 0x2c;
    /// `TraversalMetrics`.
    pub const TRAVERSAL_METRICS: u8 = 0x2d;
    /// `Merge`.
    pub const MERGE: u8 = 0x2e;
    /// `DT`.
    pub const DT: u8 = 0x2f;
    /// `GType` (TinkerPop 3.8 drivers; not in the 1.0 spec's list).
    pub const GTYPE: u8 = 0x30;
    /// `Char`.
    pub const CHAR: u8 = 0x80;
    /// `Duration`.
    pub const DURATION: u8 = 0x81;
    /// `InetAddress`.
    pub const INET_ADDRESS: u8 = 0x82;
    /// `Instant`.
    pub const INSTANT: u8 = 0x83;
    /// `LocalDate`.
    pub const LOCAL_DATE: u8 = 0x84;
    /// `LocalDateTime`.
    pub const LOCAL_DATE_TIME: u8 = 0x85;
    /// `LocalTime`.
    pub const LOCAL_TIME: u8 = 0x86;
    /// `MonthDay`.
    pub const MONTH_DAY: u8 = 0x87;
    /// `OffsetDateTime`.
    pub const OFFSET_DATE_TIME: u8 = 0x88;
    /// `OffsetTime`.
    pub const OFFSET_TIME: u8 = 0x89;
    /// `Period`.
    pub const PERIOD: u8 = 0x8a;
    /// `Year`.
    pub const YEAR: u8 = 0x8b;
    /// `YearMonth`.
    pub const YEAR_MONTH: u8 = 0x8c;
    /// `ZonedDateTime`.
    pub const ZONED_DATE_TIME: u8 = 0x8d;
    /// `ZoneOffset`.
    pub const ZONE_OFFSET: u8 = 0x8e;
    /// The unspecified null object: a null of no particular type.
    pub const UNSPECIFIED_NULL: u8 = 0xfe;
    /// `Custom`: a provider's own type.
    pub const CUSTOM: u8 = 0x00;
}

const VALUE: u8 = 0x00;
const NULL: u8 = 0x01;

/// The type code of an enum token.
pub fn enum_code(kind: EnumKind) -> u8 {
    match kind {
        EnumKind::T => code::T,
        EnumKind::Direction => code::DIRECTION,
        EnumKind::Order => code::ORDER,
        EnumKind::Pop => code::POP,
        EnumKind::Scope => code::SCOPE,
        EnumKind::Cardinality => code::CARDINALITY,
        EnumKind::Column => code::COLUMN,
        EnumKind::Operator => code::OPERATOR,
        EnumKind::Pick => code::PICK,
        EnumKind::Barrier => code::BARRIER,
        EnumKind::Merge => code::MERGE,
        EnumKind::DT => code::DT,
        EnumKind::GType => code::GTYPE,
    }
}

fn enum_kind(c: u8) -> Option<EnumKind> {
    EnumKind::ALL.into_iter().find(|k| enum_code(*k) == c)
}

// ---- encoding ---------------------------------------------------------------

/// Encodes `value` fully qualified.
///
/// # Errors
/// [`EncodeError`] for a value out of its type's range (a date part, a
/// duration's nanoseconds, an offset), a length past 2^31-1, or nesting
/// past [`MAX_DEPTH`].
pub fn encode(value: &Wire) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    encode_into(value, &mut out)?;
    Ok(out)
}

/// Appends `value`, fully qualified, to `out`. On error `out` holds a
/// partial value.
///
/// # Errors
/// As [`encode`].
pub fn encode_into(value: &Wire, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    Writer { out, depth: 0 }.fq(value)
}

/// Encodes a request message (without the mime-type header, see
/// [`super::frame::mime_header`]).
///
/// # Errors
/// As [`encode`], for the arguments.
pub fn encode_request(request: &RequestMessage) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    let mut w = Writer {
        out: &mut out,
        depth: 0,
    };
    w.out.push(MESSAGE_VERSION);
    w.out.extend_from_slice(&request.request_id);
    w.string(&request.op)?;
    w.string(&request.processor)?;
    w.string_map(&request.args)?;
    Ok(out)
}

/// Encodes a response message.
///
/// # Errors
/// As [`encode`], for the attributes, meta and data.
pub fn encode_response(response: &ResponseMessage) -> Result<Vec<u8>, EncodeError> {
    let mut out = Vec::new();
    let mut w = Writer {
        out: &mut out,
        depth: 0,
    };
    w.out.push(MESSAGE_VERSION);
    match &response.request_id {
        Some(id) => {
            w.out.push(VALUE);
            w.out.extend_from_slice(id);
        }
        None => w.out.push(NULL),
    }
    w.i32(i32::from(response.status.code));
    match &response.status.message {
        Some(m) => {
            w.out.push(VALUE);
            w.string(m)?;
        }
        None => w.out.push(NULL),
    }
    w.string_map(&response.status.attributes)?;
    w.string_map(&response.result.meta)?;
    w.fq(&response.result.data)?;
    Ok(out)
}

struct Writer<'a> {
    out: &'a mut Vec<u8>,
    depth: usize,
}

fn invalid(what: &'static str, reason: String) -> EncodeError {
    EncodeError::InvalidValue { what, reason }
}

impl Writer<'_> {
    fn enter(&mut self) -> Result<(), EncodeError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(EncodeError::TooDeep { limit: MAX_DEPTH });
        }
        Ok(())
    }

    fn fq(&mut self, value: &Wire) -> Result<(), EncodeError> {
        self.enter()?;
        let r = self.fq_inner(value);
        self.depth -= 1;
        r
    }

    fn header(&mut self, type_code: u8) {
        self.out.push(type_code);
        self.out.push(VALUE);
    }

    fn null(&mut self) {
        self.out.push(code::UNSPECIFIED_NULL);
        self.out.push(NULL);
    }

    fn i32(&mut self, v: i32) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    fn i64(&mut self, v: i64) {
        self.out.extend_from_slice(&v.to_be_bytes());
    }

    fn len(&mut self, what: &'static str, length: usize) -> Result<(), EncodeError> {
        let n = i32::try_from(length).map_err(|_| EncodeError::TooLong { what, length })?;
        self.i32(n);
        Ok(())
    }

    fn string(&mut self, s: &str) -> Result<(), EncodeError> {
        self.len("String", s.len())?;
        self.out.extend_from_slice(s.as_bytes());
        Ok(())
    }

    fn fq_string(&mut self, s: &str) -> Result<(), EncodeError> {
        self.header(code::STRING);
        self.string(s)
    }

    fn byte_buffer(&mut self, b: &[u8]) -> Result<(), EncodeError> {
        self.len("ByteBuffer", b.len())?;
        self.out.extend_from_slice(b);
        Ok(())
    }

    fn big_integer(&mut self, v: i128) {
        let bytes = v.to_be_bytes();
        let mut start = 0;
        while start + 1 < bytes.len() {
            let (b, next) = (bytes[start], bytes[start + 1]);
            if (b == 0x00 && next & 0x80 == 0) || (b == 0xff && next & 0x80 != 0) {
                start += 1;
            } else {
                break;
            }
        }
        let minimal = &bytes[start..];
        self.i32(minimal.len() as i32);
        self.out.extend_from_slice(minimal);
    }

    fn list(&mut self, items: &[Wire]) -> Result<(), EncodeError> {
        self.len("List", items.len())?;
        items.iter().try_for_each(|v| self.fq(v))
    }

    fn map(&mut self, pairs: &[(Wire, Wire)]) -> Result<(), EncodeError> {
        self.len("Map", pairs.len())?;
        for (k, v) in pairs {
            self.fq(k)?;
            self.fq(v)?;
        }
        Ok(())
    }

    fn string_map(&mut self, pairs: &[(String, Wire)]) -> Result<(), EncodeError> {
        self.len("Map", pairs.len())?;
        for (k, v) in pairs {
            self.fq_string(k)?;
            self.fq(v)?;
        }
        Ok(())
    }

    fn local_date(&mut self, d: &LocalDate) -> Result<(), EncodeError> {
        time::check_date(d.year, d.month, d.day).map_err(|r| invalid("LocalDate", r))?;
        self.i32(d.year);
        self.out.push(d.month);
        self.out.push(d.day);
        Ok(())
    }

    fn local_time(&mut self, nanos_of_day: i64) -> Result<(), EncodeError> {
        time::check_nanos_of_day(nanos_of_day).map_err(|r| invalid("LocalTime", r))?;
        self.i64(nanos_of_day);
        Ok(())
    }

    fn local_date_time(&mut self, dt: &LocalDateTime) -> Result<(), EncodeError> {
        self.local_date(&dt.date)?;
        self.local_time(dt.nanos_of_day)
    }

    fn offset(&mut self, seconds: i32) -> Result<(), EncodeError> {
        time::check_offset(seconds).map_err(|r| invalid("ZoneOffset", r))?;
        self.i32(seconds);
        Ok(())
    }

    fn offset_date_time(&mut self, odt: &OffsetDateTime) -> Result<(), EncodeError> {
        self.local_date_time(&odt.date_time)?;
        self.offset(odt.offset_seconds)
    }

    fn seconds_nanos(
        &mut self,
        what: &'static str,
        seconds: i64,
        nanos: i32,
    ) -> Result<(), EncodeError> {
        time::check_nanos(nanos).map_err(|r| invalid(what, r))?;
        self.i64(seconds);
        self.i32(nanos);
        Ok(())
    }

    /// A properties slot: null when there are none, else a `List` of
    /// `item`-typed values.
    fn property_slot<T>(
        &mut self,
        items: &[T],
        item_code: u8,
        null_when_empty: bool,
        mut body: impl FnMut(&mut Self, &T) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        if items.is_empty() && null_when_empty {
            self.null();
            return Ok(());
        }
        self.enter()?;
        self.header(code::LIST);
        self.len("properties", items.len())?;
        for item in items {
            self.enter()?;
            self.header(item_code);
            body(self, item)?;
            self.depth -= 1;
        }
        self.depth -= 1;
        Ok(())
    }

    fn property(&mut self, p: &Property) -> Result<(), EncodeError> {
        self.string(&p.key)?;
        self.fq(&p.value)?;
        self.null();
        Ok(())
    }

    fn vertex_property(
        &mut self,
        vp: &VertexProperty,
        null_when_empty: bool,
    ) -> Result<(), EncodeError> {
        self.fq(&vp.id)?;
        self.string(&vp.label)?;
        self.fq(&vp.value)?;
        self.null();
        self.property_slot(
            &vp.properties,
            code::PROPERTY,
            null_when_empty,
            Self::property,
        )
    }

    fn vertex(&mut self, v: &Vertex) -> Result<(), EncodeError> {
        self.fq(&v.id)?;
        self.string(&v.label)?;
        self.property_slot(&v.properties, code::VERTEX_PROPERTY, true, |w, vp| {
            w.vertex_property(vp, true)
        })
    }

    fn edge(&mut self, e: &Edge) -> Result<(), EncodeError> {
        self.fq(&e.id)?;
        self.string(&e.label)?;
        self.fq(&e.in_v_id)?;
        self.string(&e.in_v_label)?;
        self.fq(&e.out_v_id)?;
        self.string(&e.out_v_label)?;
        self.null();
        self.property_slot(&e.properties, code::PROPERTY, true, Self::property)
    }

    fn graph(&mut self, g: &Graph) -> Result<(), EncodeError> {
        self.len("TinkerGraph vertices", g.vertices.len())?;
        for v in &g.vertices {
            self.fq(&v.id)?;
            self.string(&v.label)?;
            self.len("TinkerGraph vertex properties", v.properties.len())?;
            for vp in &v.properties {
                self.vertex_property(vp, false)?;
            }
        }
        self.len("TinkerGraph edges", g.edges.len())?;
        for e in &g.edges {
            self.fq(&e.id)?;
            self.string(&e.label)?;
            self.fq(&e.in_v_id)?;
            self.null();
            self.fq(&e.out_v_id)?;
            self.null();
            self.null();
            self.property_slot(&e.properties, code::PROPERTY, false, Self::property)?;
        }
        Ok(())
    }

    fn path(&mut self, p: &Path) -> Result<(), EncodeError> {
        self.enter()?;
        self.header(code::LIST);
        self.len("Path labels", p.labels.len())?;
        for labels in &p.labels {
            self.enter()?;
            self.header(code::SET);
            self.len("Path label set", labels.len())?;
            for l in labels {
                self.fq_string(l)?;
            }
            self.depth -= 1;
        }
        self.depth -= 1;
        self.enter()?;
        self.header(code::LIST);
        self.list(&p.objects)?;
        self.depth -= 1;
        Ok(())
    }

    fn tree(&mut self, t: &Tree) -> Result<(), EncodeError> {
        self.enter()?;
        self.len("Tree", t.branches.len())?;
        for (key, sub) in &t.branches {
            self.fq(key)?;
            self.tree(sub)?;
        }
        self.depth -= 1;
        Ok(())
    }

    fn instructions(&mut self, list: &[Instruction]) -> Result<(), EncodeError> {
        self.len("Bytecode instructions", list.len())?;
        for i in list {
            self.string(&i.operator)?;
            self.len("instruction arguments", i.args.len())?;
            i.args.iter().try_for_each(|a| self.fq(a))?;
        }
        Ok(())
    }

    fn metrics(&mut self, m: &Metrics) -> Result<(), EncodeError> {
        self.string(&m.id)?;
        self.string(&m.name)?;
        self.i64(m.duration_nanos);
        self.len("Metrics counts", m.counts.len())?;
        for (k, v) in &m.counts {
            self.fq_string(k)?;
            self.header(code::LONG);
            self.i64(*v);
        }
        self.string_map(&m.annotations)?;
        self.metrics_list(&m.nested)
    }

    fn metrics_list(&mut self, list: &[Metrics]) -> Result<(), EncodeError> {
        self.len("Metrics list", list.len())?;
        for m in list {
            self.enter()?;
            self.header(code::METRICS);
            self.metrics(m)?;
            self.depth -= 1;
        }
        Ok(())
    }

    fn fq_inner(&mut self, value: &Wire) -> Result<(), EncodeError> {
        match value {
            Wire::Null => self.null(),
            Wire::Bool(b) => {
                self.header(code::BOOLEAN);
                self.out.push(u8::from(*b));
            }
            Wire::Byte(v) => {
                self.header(code::BYTE);
                self.out.extend_from_slice(&v.to_be_bytes());
            }
            Wire::Short(v) => {
                self.header(code::SHORT);
                self.out.extend_from_slice(&v.to_be_bytes());
            }
            Wire::Int(v) => {
                self.header(code::INT);
                self.i32(*v);
            }
            Wire::Long(v) => {
                self.header(code::LONG);
                self.i64(*v);
            }
            Wire::BigInteger(v) => {
                self.header(code::BIG_INTEGER);
                self.big_integer(*v);
            }
            Wire::Float(v) => {
                self.header(code::FLOAT);
                self.out.extend_from_slice(&v.to_be_bytes());
            }
            Wire::Double(v) => {
                self.header(code::DOUBLE);
                self.out.extend_from_slice(&v.to_be_bytes());
            }
            Wire::BigDecimal { scale, unscaled } => {
                self.header(code::BIG_DECIMAL);
                self.i32(*scale);
                self.big_integer(*unscaled);
            }
            Wire::String(s) => self.fq_string(s)?,
            Wire::Uuid(u) => {
                self.header(code::UUID);
                self.out.extend_from_slice(u);
            }
            Wire::Date(ms) => {
                self.header(code::DATE);
                self.i64(*ms);
            }
            Wire::Timestamp(ms) => {
                self.header(code::TIMESTAMP);
                self.i64(*ms);
            }
            Wire::OffsetDateTime(odt) => {
                self.header(code::OFFSET_DATE_TIME);
                self.offset_date_time(odt)?;
            }
            Wire::ZonedDateTime(odt) => {
                self.header(code::ZONED_DATE_TIME);
                self.offset_date_time(odt)?;
            }
            Wire::Duration { seconds, nanos } => {
                self.header(code::DURATION);
                self.seconds_nanos("Duration", *seconds, *nanos)?;
            }
            Wire::Instant { seconds, nanos } => {
                self.header(code::INSTANT);
                self.seconds_nanos("Instant", *seconds, *nanos)?;
            }
            Wire::LocalDate(d) => {
                self.header(code::LOCAL_DATE);
                self.local_date(d)?;
            }
            Wire::LocalDateTime(dt) => {
                self.header(code::LOCAL_DATE_TIME);
                self.local_date_time(dt)?;
            }
            Wire::LocalTime(n) => {
                self.header(code::LOCAL_TIME);
                self.local_time(*n)?;
            }
            Wire::MonthDay { month, day } => {
                time::check_month_day(*month, *day).map_err(|r| invalid("MonthDay", r))?;
                self.header(code::MONTH_DAY);
                self.out.push(*month);
                self.out.push(*day);
            }
            Wire::OffsetTime {
                nanos_of_day,
                offset_seconds,
            } => {
                self.header(code::OFFSET_TIME);
                self.local_time(*nanos_of_day)?;
                self.offset(*offset_seconds)?;
            }
            Wire::Period {
                years,
                months,
                days,
            } => {
                self.header(code::PERIOD);
                self.i32(*years);
                self.i32(*months);
                self.i32(*days);
            }
            Wire::Year(y) => {
                self.header(code::YEAR);
                self.i32(*y);
            }
            Wire::YearMonth { year, month } => {
                time::check_month(*month).map_err(|r| invalid("YearMonth", r))?;
                self.header(code::YEAR_MONTH);
                self.i32(*year);
                self.out.push(*month);
            }
            Wire::ZoneOffset(s) => {
                self.header(code::ZONE_OFFSET);
                self.offset(*s)?;
            }
            Wire::Char(c) => {
                self.header(code::CHAR);
                let mut buf = [0u8; 4];
                self.out
                    .extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
            }
            Wire::ByteBuffer(b) => {
                self.header(code::BYTE_BUFFER);
                self.byte_buffer(b)?;
            }
            Wire::InetAddress(ip) => {
                self.header(code::INET_ADDRESS);
                match ip {
                    IpAddr::V4(a) => self.byte_buffer(&a.octets())?,
                    IpAddr::V6(a) => self.byte_buffer(&a.octets())?,
                }
            }
            Wire::List(items) => {
                self.header(code::LIST);
                self.list(items)?;
            }
            Wire::Set(items) => {
                self.header(code::SET);
                self.list(items)?;
            }
            Wire::Map(pairs) => {
                self.header(code::MAP);
                self.map(pairs)?;
            }
            Wire::Vertex(v) => {
                self.header(code::VERTEX);
                self.vertex(v)?;
            }
            Wire::Edge(e) => {
                self.header(code::EDGE);
                self.edge(e)?;
            }
            Wire::VertexProperty(vp) => {
                self.header(code::VERTEX_PROPERTY);
                self.vertex_property(vp, true)?;
            }
            Wire::Property(p) => {
                self.header(code::PROPERTY);
                self.property(p)?;
            }
            Wire::Path(p) => {
                self.header(code::PATH);
                self.path(p)?;
            }
            Wire::Graph(g) => {
                self.header(code::GRAPH);
                self.graph(g)?;
            }
            Wire::BulkSet(items) => {
                self.header(code::BULK_SET);
                self.len("BulkSet", items.len())?;
                for (v, bulk) in items {
                    self.fq(v)?;
                    self.i64(*bulk);
                }
            }
            Wire::Traverser { bulk, value } => {
                self.header(code::TRAVERSER);
                self.i64(*bulk);
                self.fq(value)?;
            }
            Wire::Tree(t) => {
                self.header(code::TREE);
                self.tree(t)?;
            }
            Wire::Enum { kind, name } => {
                self.header(enum_code(*kind));
                self.fq_string(name)?;
            }
            Wire::P { name, values } | Wire::TextP { name, values } => {
                let c = if matches!(value, Wire::P { .. }) {
                    code::P
                } else {
                    code::TEXT_P
                };
                self.header(c);
                self.string(name)?;
                self.list(values)?;
            }
            Wire::Binding { key, value } => {
                self.header(code::BINDING);
                self.string(key)?;
                self.fq(value)?;
            }
            Wire::Lambda {
                language,
                script,
                arguments,
            } => {
                self.header(code::LAMBDA);
                self.string(language)?;
                self.string(script)?;
                self.i32(*arguments);
            }
            Wire::TraversalStrategy { class, config } => {
                self.header(code::TRAVERSAL_STRATEGY);
                self.string(class)?;
                self.map(config)?;
            }
            Wire::Bytecode(b) => {
                self.header(code::BYTECODE);
                self.instructions(&b.steps)?;
                self.instructions(&b.sources)?;
            }
            Wire::Class(c) => {
                self.header(code::CLASS);
                self.string(c)?;
            }
            Wire::Metrics(m) => {
                self.header(code::METRICS);
                self.metrics(m)?;
            }
            Wire::TraversalMetrics(tm) => {
                self.header(code::TRAVERSAL_METRICS);
                self.i64(tm.duration_nanos);
                self.metrics_list(&tm.metrics)?;
            }
            Wire::Custom {
                name,
                type_info,
                blob,
            } => {
                self.out.push(code::CUSTOM);
                self.string(name)?;
                self.byte_buffer(type_info)?;
                self.out.push(VALUE);
                self.byte_buffer(blob)?;
            }
        }
        Ok(())
    }
}

// ---- decoding ---------------------------------------------------------------

/// Decodes one fully qualified value that fills `bytes`.
///
/// # Errors
/// [`DecodeError`] saying what is wrong and at which byte: truncation, an
/// unknown type code, a negative length, a bad value flag, an invalid value,
/// nesting past [`MAX_DEPTH`], or bytes left over.
pub fn decode(bytes: &[u8]) -> Result<Wire, DecodeError> {
    let mut r = Reader::new(bytes);
    let v = r.fq()?;
    r.finish()?;
    Ok(v)
}

/// Decodes one fully qualified value from the start of `bytes`, returning it
/// and the number of bytes it took.
///
/// # Errors
/// As [`decode`], except that bytes after the value are left alone.
pub fn decode_prefix(bytes: &[u8]) -> Result<(Wire, usize), DecodeError> {
    let mut r = Reader::new(bytes);
    let v = r.fq()?;
    Ok((v, r.pos))
}

/// Decodes a request message (after its mime-type header, see
/// [`super::frame::split_mime_header`]).
///
/// # Errors
/// As [`decode`]; also [`DecodeError::BadVersion`], and
/// [`DecodeError::UnexpectedType`] for an argument name that is not a
/// `String`.
pub fn decode_request(bytes: &[u8]) -> Result<RequestMessage, DecodeError> {
    let mut r = Reader::new(bytes);
    r.version()?;
    let request_id = r.uuid()?;
    let op = r.string("op")?;
    let processor = r.string("processor")?;
    let args = r.string_map("request arguments")?;
    r.finish()?;
    Ok(RequestMessage {
        request_id,
        op,
        processor,
        args,
    })
}

/// Decodes a response message.
///
/// # Errors
/// As [`decode_request`]; also [`DecodeError::InvalidValue`] for a status
/// code outside `0..=65535`.
pub fn decode_response(bytes: &[u8]) -> Result<ResponseMessage, DecodeError> {
    let mut r = Reader::new(bytes);
    r.version()?;
    let request_id = if r.nullable_flag(code::UUID)? {
        None
    } else {
        Some(r.uuid()?)
    };
    let at = r.pos;
    let raw = r.i32("status code")?;
    let code = u16::try_from(raw).map_err(|_| DecodeError::InvalidValue {
        what: "status code",
        reason: format!("{raw} is not a status code"),
        offset: at,
    })?;
    let message = if r.nullable_flag(code::STRING)? {
        None
    } else {
        Some(r.string("status message")?)
    };
    let attributes = r.string_map("status attributes")?;
    let meta = r.string_map("result meta")?;
    let data = r.fq()?;
    r.finish()?;
    Ok(ResponseMessage {
        request_id,
        status: Status {
            code,
            message,
            attributes,
        },
        result: ResultBody { meta, data },
    })
}

struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    depth: usize,
}

fn unexpected(
    what: &'static str,
    expected: &'static str,
    found: &Wire,
    offset: usize,
) -> DecodeError {
    DecodeError::UnexpectedType {
        what,
        expected,
        found: found.type_name(),
        offset,
    }
}

/// Wraps a range check's reason as an error at `at`.
fn invalid_at(what: &'static str, at: usize) -> impl FnOnce(String) -> DecodeError {
    move |reason| DecodeError::InvalidValue {
        what,
        reason,
        offset: at,
    }
}

impl<'a> Reader<'a> {
    fn new(buf: &'a [u8]) -> Reader<'a> {
        Reader {
            buf,
            pos: 0,
            depth: 0,
        }
    }

    fn left(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Room to reserve for `count` items of at least `min_size` bytes each:
    /// never more than the input left could hold.
    fn capacity(&self, count: usize, min_size: usize) -> usize {
        count.min(self.left() / min_size)
    }

    fn finish(&self) -> Result<(), DecodeError> {
        if self.left() == 0 {
            Ok(())
        } else {
            Err(DecodeError::TrailingBytes {
                count: self.left(),
                offset: self.pos,
            })
        }
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], DecodeError> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.buf.len());
        match end.and_then(|e| self.buf.get(self.pos..e)) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(DecodeError::Truncated {
                what,
                needed: n,
                offset: self.pos,
                left: self.left(),
            }),
        }
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], DecodeError> {
        let s = self.take(N, what)?;
        let mut a = [0u8; N];
        a.copy_from_slice(s);
        Ok(a)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        Ok(self.array::<1>(what)?[0])
    }

    fn i32(&mut self, what: &'static str) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.array(what)?))
    }

    fn i64(&mut self, what: &'static str) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.array(what)?))
    }

    fn len(&mut self, what: &'static str) -> Result<usize, DecodeError> {
        let at = self.pos;
        let n = self.i32(what)?;
        usize::try_from(n).map_err(|_| DecodeError::NegativeLength {
            what,
            length: n,
            offset: at,
        })
    }

    fn string(&mut self, what: &'static str) -> Result<String, DecodeError> {
        let n = self.len(what)?;
        let at = self.pos;
        let bytes = self.take(n, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|e| DecodeError::InvalidValue {
            what,
            reason: format!("not UTF-8 after {} bytes", e.utf8_error().valid_up_to()),
            offset: at,
        })
    }

    fn byte_buffer(&mut self, what: &'static str) -> Result<Vec<u8>, DecodeError> {
        let n = self.len(what)?;
        Ok(self.take(n, what)?.to_vec())
    }

    fn uuid(&mut self) -> Result<[u8; 16], DecodeError> {
        self.array("UUID")
    }

    fn version(&mut self) -> Result<(), DecodeError> {
        let at = self.pos;
        let v = self.u8("message version")?;
        if v != MESSAGE_VERSION {
            return Err(DecodeError::BadVersion {
                version: v,
                offset: at,
            });
        }
        Ok(())
    }

    /// A bare nullable value's flag: `true` for null.
    fn nullable_flag(&mut self, type_code: u8) -> Result<bool, DecodeError> {
        let at = self.pos;
        match self.u8("value flag")? {
            VALUE => Ok(false),
            NULL => Ok(true),
            flag => Err(DecodeError::BadValueFlag {
                flag,
                code: type_code,
                offset: at,
            }),
        }
    }

    fn enter(&mut self, at: usize) -> Result<(), DecodeError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(DecodeError::TooDeep {
                limit: MAX_DEPTH,
                offset: at,
            });
        }
        Ok(())
    }

    fn fq(&mut self) -> Result<Wire, DecodeError> {
        let at = self.pos;
        self.enter(at)?;
        let r = self.fq_inner(at);
        self.depth -= 1;
        r
    }

    fn fq_inner(&mut self, at: usize) -> Result<Wire, DecodeError> {
        let type_code = self.u8("type code")?;
        match type_code {
            code::UNSPECIFIED_NULL => {
                if self.nullable_flag(type_code)? {
                    Ok(Wire::Null)
                } else {
                    Err(DecodeError::BadValueFlag {
                        flag: VALUE,
                        code: type_code,
                        offset: self.pos - 1,
                    })
                }
            }
            code::CUSTOM => {
                let name = self.string("Custom type name")?;
                let type_info = self.byte_buffer("Custom type info")?;
                if self.nullable_flag(type_code)? {
                    return Ok(Wire::Null);
                }
                let blob = self.byte_buffer("Custom value")?;
                Ok(Wire::Custom {
                    name,
                    type_info,
                    blob,
                })
            }
            0x01..=0x30 | 0x80..=0x8e => {
                if self.nullable_flag(type_code)? {
                    Ok(Wire::Null)
                } else {
                    self.value(type_code, at)
                }
            }
            _ => Err(DecodeError::UnknownTypeCode {
                code: type_code,
                offset: at,
            }),
        }
    }

    fn big_integer(&mut self, what: &'static str) -> Result<i128, DecodeError> {
        let n = self.len(what)?;
        let at = self.pos;
        let mut bytes = self.take(n, what)?;
        // Leading bytes that only repeat the sign carry no value.
        while bytes.len() > 16 {
            match bytes {
                [0x00, next, ..] if next & 0x80 == 0 => bytes = &bytes[1..],
                [0xff, next, ..] if next & 0x80 != 0 => bytes = &bytes[1..],
                _ => break,
            }
        }
        if bytes.len() > 16 {
            return Err(DecodeError::InvalidValue {
                what,
                reason: format!("{n} bytes of two's complement exceed 128 bits"),
                offset: at,
            });
        }
        let negative = bytes.first().is_some_and(|b| b & 0x80 != 0);
        let mut full = if negative { [0xff; 16] } else { [0; 16] };
        full[16 - bytes.len()..].copy_from_slice(bytes);
        Ok(i128::from_be_bytes(full))
    }

    fn char(&mut self, at: usize) -> Result<char, DecodeError> {
        let first = self.u8("Char")?;
        let n = match first {
            0x00..=0x7f => 1,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 0,
        };
        let mut buf = [first, 0, 0, 0];
        if n > 1 {
            let rest = self.take(n - 1, "Char")?;
            buf[1..n].copy_from_slice(rest);
        }
        let c = std::str::from_utf8(buf.get(..n).unwrap_or_default())
            .ok()
            .and_then(|s| s.chars().next())
            .filter(|_| n > 0);
        c.ok_or_else(|| DecodeError::InvalidValue {
            what: "Char",
            reason: "not one UTF-8 character".to_owned(),
            offset: at + 2,
        })
    }

    fn local_date(&mut self) -> Result<LocalDate, DecodeError> {
        let at = self.pos;
        let year = self.i32("LocalDate year")?;
        let month = self.u8("LocalDate month")?;
        let day = self.u8("LocalDate day")?;
        time::check_date(year, month, day).map_err(invalid_at("LocalDate", at))?;
        Ok(LocalDate { year, month, day })
    }

    fn local_time(&mut self) -> Result<i64, DecodeError> {
        let at = self.pos;
        let n = self.i64("LocalTime")?;
        time::check_nanos_of_day(n).map_err(invalid_at("LocalTime", at))?;
        Ok(n)
    }

    fn local_date_time(&mut self) -> Result<LocalDateTime, DecodeError> {
        Ok(LocalDateTime {
            date: self.local_date()?,
            nanos_of_day: self.local_time()?,
        })
    }

    fn offset(&mut self) -> Result<i32, DecodeError> {
        let at = self.pos;
        let s = self.i32("ZoneOffset")?;
        time::check_offset(s).map_err(invalid_at("ZoneOffset", at))?;
        Ok(s)
    }

    fn offset_date_time(&mut self) -> Result<OffsetDateTime, DecodeError> {
        Ok(OffsetDateTime {
            date_time: self.local_date_time()?,
            offset_seconds: self.offset()?,
        })
    }

    fn seconds_nanos(&mut self, what: &'static str) -> Result<(i64, i32), DecodeError> {
        let seconds = self.i64(what)?;
        let at = self.pos;
        let nanos = self.i32(what)?;
        time::check_nanos(nanos).map_err(invalid_at(what, at))?;
        Ok((seconds, nanos))
    }

    fn month(&mut self, what: &'static str) -> Result<u8, DecodeError> {
        let at = self.pos;
        let m = self.u8(what)?;
        time::check_month(m).map_err(invalid_at(what, at))?;
        Ok(m)
    }

    fn list_items(&mut self, what: &'static str) -> Result<Vec<Wire>, DecodeError> {
        let n = self.len(what)?;
        let mut items = Vec::with_capacity(self.capacity(n, 2));
        for _ in 0..n {
            items.push(self.fq()?);
        }
        Ok(items)
    }

    fn map_pairs(&mut self, what: &'static str) -> Result<Vec<(Wire, Wire)>, DecodeError> {
        let n = self.len(what)?;
        let mut pairs = Vec::with_capacity(self.capacity(n, 4));
        for _ in 0..n {
            let k = self.fq()?;
            let v = self.fq()?;
            pairs.push((k, v));
        }
        Ok(pairs)
    }

    /// A bare map whose keys must be strings (message arguments, status
    /// attributes, result meta, metrics annotations).
    fn string_map(&mut self, what: &'static str) -> Result<Vec<(String, Wire)>, DecodeError> {
        let n = self.len(what)?;
        let mut pairs = Vec::with_capacity(self.capacity(n, 4));
        for _ in 0..n {
            let at = self.pos;
            let k = match self.fq()? {
                Wire::String(s) => s,
                other => return Err(unexpected(what, "String keys", &other, at)),
            };
            let v = self.fq()?;
            pairs.push((k, v));
        }
        Ok(pairs)
    }

    /// A fully qualified string: an enum token's name.
    fn fq_string(&mut self, what: &'static str) -> Result<String, DecodeError> {
        let at = self.pos;
        match self.fq()? {
            Wire::String(s) => Ok(s),
            other => Err(unexpected(what, "String", &other, at)),
        }
    }

    /// A properties slot: null or a `List` whose items `pick` accepts.
    fn property_slot<T>(
        &mut self,
        what: &'static str,
        expected: &'static str,
        pick: impl Fn(Wire) -> Result<T, Wire>,
    ) -> Result<Vec<T>, DecodeError> {
        let at = self.pos;
        match self.fq()? {
            Wire::Null => Ok(Vec::new()),
            Wire::List(items) => items
                .into_iter()
                .map(|w| pick(w).map_err(|other| unexpected(what, expected, &other, at)))
                .collect(),
            other => Err(unexpected(what, expected, &other, at)),
        }
    }

    fn properties(&mut self, what: &'static str) -> Result<Vec<Property>, DecodeError> {
        self.property_slot(what, "List of Property", |w| match w {
            Wire::Property(p) => Ok(*p),
            other => Err(other),
        })
    }

    fn vertex_property(&mut self) -> Result<VertexProperty, DecodeError> {
        let id = self.fq()?;
        let label = self.string("VertexProperty label")?;
        let value = self.fq()?;
        let _parent = self.fq()?;
        let properties = self.properties("VertexProperty properties")?;
        Ok(VertexProperty {
            id,
            label,
            value,
            properties,
        })
    }

    fn graph(&mut self) -> Result<Graph, DecodeError> {
        let nv = self.len("TinkerGraph vertex count")?;
        let mut vertices = Vec::with_capacity(self.capacity(nv, 10));
        for _ in 0..nv {
            let id = self.fq()?;
            let label = self.string("TinkerGraph vertex label")?;
            let np = self.len("TinkerGraph vertex property count")?;
            let mut properties = Vec::with_capacity(self.capacity(np, 12));
            for _ in 0..np {
                properties.push(self.vertex_property()?);
            }
            vertices.push(Vertex {
                id,
                label,
                properties,
            });
        }
        // Edges carry no end labels here: look them up by vertex id, keyed
        // by the id's canonical encoding since `Wire` is not hashable.
        let mut label_of: HashMap<Vec<u8>, usize> = HashMap::with_capacity(vertices.len());
        for (i, v) in vertices.iter().enumerate() {
            if let Ok(key) = encode(&v.id) {
                label_of.entry(key).or_insert(i);
            }
        }
        // The spec has the label slots always null: whatever a sender put
        // there is read past, so that a graph decodes the same however it
        // was encoded.
        let end_label = |id: &Wire| -> String {
            encode(id)
                .ok()
                .and_then(|k| label_of.get(&k))
                .and_then(|&i| vertices.get(i))
                .map(|v| v.label.clone())
                .unwrap_or_default()
        };
        let ne = self.len("TinkerGraph edge count")?;
        let mut edges = Vec::with_capacity(self.capacity(ne, 16));
        for _ in 0..ne {
            let id = self.fq()?;
            let label = self.string("TinkerGraph edge label")?;
            let in_v_id = self.fq()?;
            let _in_label = self.fq()?;
            let out_v_id = self.fq()?;
            let _out_label = self.fq()?;
            let _parent = self.fq()?;
            let properties = self.properties("TinkerGraph edge properties")?;
            let in_v_label = end_label(&in_v_id);
            let out_v_label = end_label(&out_v_id);
            edges.push(Edge {
                id,
                label,
                in_v_id,
                in_v_label,
                out_v_id,
                out_v_label,
                properties,
            });
        }
        Ok(Graph { vertices, edges })
    }

    fn path(&mut self) -> Result<Path, DecodeError> {
        let at = self.pos;
        let labels = match self.fq()? {
            Wire::List(sets) => sets
                .into_iter()
                .map(|set| match set {
                    Wire::Set(items) | Wire::List(items) => items
                        .into_iter()
                        .map(|l| match l {
                            Wire::String(s) => Ok(s),
                            other => Err(unexpected("Path label", "String", &other, at)),
                        })
                        .collect(),
                    other => Err(unexpected("Path labels", "Set of String", &other, at)),
                })
                .collect::<Result<Vec<_>, _>>()?,
            other => return Err(unexpected("Path labels", "List", &other, at)),
        };
        let at = self.pos;
        let objects = match self.fq()? {
            Wire::List(items) => items,
            other => return Err(unexpected("Path objects", "List", &other, at)),
        };
        Ok(Path { labels, objects })
    }

    fn tree(&mut self) -> Result<Tree, DecodeError> {
        let at = self.pos;
        self.enter(at)?;
        let n = self.len("Tree")?;
        let mut branches = Vec::with_capacity(self.capacity(n, 6));
        for _ in 0..n {
            let key = self.fq()?;
            let sub = self.tree()?;
            branches.push((key, sub));
        }
        self.depth -= 1;
        Ok(Tree { branches })
    }

    fn instructions(&mut self, what: &'static str) -> Result<Vec<Instruction>, DecodeError> {
        let n = self.len(what)?;
        let mut list = Vec::with_capacity(self.capacity(n, 8));
        for _ in 0..n {
            let operator = self.string("instruction name")?;
            let args = self.list_items("instruction arguments")?;
            list.push(Instruction { operator, args });
        }
        Ok(list)
    }

    fn metrics(&mut self) -> Result<Metrics, DecodeError> {
        let id = self.string("Metrics id")?;
        let name = self.string("Metrics name")?;
        let duration_nanos = self.i64("Metrics duration")?;
        let n = self.len("Metrics counts")?;
        let mut counts = Vec::with_capacity(self.capacity(n, 4));
        for _ in 0..n {
            let key = self.fq_string("Metrics count name")?;
            let at = self.pos;
            let v = self.fq()?;
            let count = v
                .as_i64()
                .ok_or_else(|| unexpected("Metrics count", "Long", &v, at))?;
            counts.push((key, count));
        }
        let annotations = self.string_map("Metrics annotations")?;
        let nested = self.metrics_list("nested Metrics")?;
        Ok(Metrics {
            id,
            name,
            duration_nanos,
            counts,
            annotations,
            nested,
        })
    }

    fn metrics_list(&mut self, what: &'static str) -> Result<Vec<Metrics>, DecodeError> {
        let n = self.len(what)?;
        let mut list = Vec::with_capacity(self.capacity(n, 2));
        for _ in 0..n {
            let at = self.pos;
            match self.fq()? {
                Wire::Metrics(m) => list.push(*m),
                other => return Err(unexpected(what, "Metrics", &other, at)),
            }
        }
        Ok(list)
    }

    /// The value of a type whose code and non-null flag were just read.
    fn value(&mut self, type_code: u8, at: usize) -> Result<Wire, DecodeError> {
        if let Some(kind) = enum_kind(type_code) {
            let name = self.fq_string("enum token")?;
            return Ok(Wire::Enum { kind, name });
        }
        Ok(match type_code {
            code::INT => Wire::Int(self.i32("Int")?),
            code::LONG => Wire::Long(self.i64("Long")?),
            code::STRING => Wire::String(self.string("String")?),
            code::DATE => Wire::Date(self.i64("Date")?),
            code::TIMESTAMP => Wire::Timestamp(self.i64("Timestamp")?),
            code::CLASS => Wire::Class(self.string("Class")?),
            code::DOUBLE => Wire::Double(f64::from_be_bytes(self.array("Double")?)),
            code::FLOAT => Wire::Float(f32::from_be_bytes(self.array("Float")?)),
            code::LIST => Wire::List(self.list_items("List")?),
            code::MAP => Wire::Map(self.map_pairs("Map")?),
            code::SET => Wire::Set(self.list_items("Set")?),
            code::UUID => Wire::Uuid(self.uuid()?),
            code::EDGE => {
                let id = self.fq()?;
                let label = self.string("Edge label")?;
                let in_v_id = self.fq()?;
                let in_v_label = self.string("Edge inVLabel")?;
                let out_v_id = self.fq()?;
                let out_v_label = self.string("Edge outVLabel")?;
                let _parent = self.fq()?;
                let properties = self.properties("Edge properties")?;
                Wire::Edge(Box::new(Edge {
                    id,
                    label,
                    in_v_id,
                    in_v_label,
                    out_v_id,
                    out_v_label,
                    properties,
                }))
            }
            code::PATH => Wire::Path(Box::new(self.path()?)),
            code::PROPERTY => {
                let key = self.string("Property key")?;
                let value = self.fq()?;
                let _parent = self.fq()?;
                Wire::Property(Box::new(Property { key, value }))
            }
            code::GRAPH => Wire::Graph(Box::new(self.graph()?)),
            code::VERTEX => {
                let id = self.fq()?;
                let label = self.string("Vertex label")?;
                let properties = self.property_slot(
                    "Vertex properties",
                    "List of VertexProperty",
                    |w| match w {
                        Wire::VertexProperty(vp) => Ok(*vp),
                        other => Err(other),
                    },
                )?;
                Wire::Vertex(Box::new(Vertex {
                    id,
                    label,
                    properties,
                }))
            }
            code::VERTEX_PROPERTY => Wire::VertexProperty(Box::new(self.vertex_property()?)),
            code::BINDING => {
                let key = self.string("Binding key")?;
                let value = Box::new(self.fq()?);
                Wire::Binding { key, value }
            }
            code::BYTECODE => {
                let steps = self.instructions("Bytecode steps")?;
                let sources = self.instructions("Bytecode sources")?;
                Wire::Bytecode(Box::new(Bytecode { steps, sources }))
            }
            code::LAMBDA => Wire::Lambda {
                language: self.string("Lambda language")?,
                script: self.string("Lambda script")?,
                arguments: self.i32("Lambda arguments")?,
            },
            code::P => Wire::P {
                name: self.string("P name")?,
                values: self.list_items("P values")?,
            },
            code::TEXT_P => Wire::TextP {
                name: self.string("TextP name")?,
                values: self.list_items("TextP values")?,
            },
            code::TRAVERSER => {
                let bulk = self.i64("Traverser bulk")?;
                let value = Box::new(self.fq()?);
                Wire::Traverser { bulk, value }
            }
            code::BIG_DECIMAL => {
                let scale = self.i32("BigDecimal scale")?;
                let unscaled = self.big_integer("BigDecimal unscaled value")?;
                Wire::BigDecimal { scale, unscaled }
            }
            code::BIG_INTEGER => Wire::BigInteger(self.big_integer("BigInteger")?),
            code::BYTE => Wire::Byte(i8::from_be_bytes(self.array("Byte")?)),
            code::BYTE_BUFFER => Wire::ByteBuffer(self.byte_buffer("ByteBuffer")?),
            code::SHORT => Wire::Short(i16::from_be_bytes(self.array("Short")?)),
            code::BOOLEAN => {
                let b = self.u8("Boolean")?;
                if b > 1 {
                    return Err(DecodeError::InvalidValue {
                        what: "Boolean",
                        reason: format!("byte 0x{b:02x} is neither 0 nor 1"),
                        offset: self.pos - 1,
                    });
                }
                Wire::Bool(b == 1)
            }
            code::TRAVERSAL_STRATEGY => Wire::TraversalStrategy {
                class: self.string("TraversalStrategy class")?,
                config: self.map_pairs("TraversalStrategy configuration")?,
            },
            code::BULK_SET => {
                let n = self.len("BulkSet")?;
                let mut items = Vec::with_capacity(self.capacity(n, 10));
                for _ in 0..n {
                    let v = self.fq()?;
                    let bulk = self.i64("BulkSet bulk")?;
                    items.push((v, bulk));
                }
                Wire::BulkSet(items)
            }
            code::TREE => Wire::Tree(self.tree()?),
            code::METRICS => Wire::Metrics(Box::new(self.metrics()?)),
            code::TRAVERSAL_METRICS => {
                let duration_nanos = self.i64("TraversalMetrics duration")?;
                let metrics = self.metrics_list("TraversalMetrics metrics")?;
                Wire::TraversalMetrics(Box::new(TraversalMetrics {
                    duration_nanos,
                    metrics,
                }))
            }
            code::CHAR => Wire::Char(self.char(at)?),
            code::DURATION => {
                let (seconds, nanos) = self.seconds_nanos("Duration")?;
                Wire::Duration { seconds, nanos }
            }
            code::INET_ADDRESS => {
                let start = self.pos;
                let bytes = self.byte_buffer("InetAddress")?;
                match bytes.len() {
                    4 => {
                        let mut a = [0u8; 4];
                        a.copy_from_slice(&bytes);
                        Wire::InetAddress(IpAddr::V4(Ipv4Addr::from(a)))
                    }
                    16 => {
                        let mut a = [0u8; 16];
                        a.copy_from_slice(&bytes);
                        Wire::InetAddress(IpAddr::V6(Ipv6Addr::from(a)))
                    }
                    n => {
                        return Err(DecodeError::InvalidValue {
                            what: "InetAddress",
                            reason: format!("{n} bytes, expected 4 or 16"),
                            offset: start,
                        })
                    }
                }
            }
            code::INSTANT => {
                let (seconds, nanos) = self.seconds_nanos("Instant")?;
                Wire::Instant { seconds, nanos }
            }
            code::LOCAL_DATE => Wire::LocalDate(self.local_date()?),
            code::LOCAL_DATE_TIME => Wire::LocalDateTime(self.local_date_time()?),
            code::LOCAL_TIME => Wire::LocalTime(self.local_time()?),
            code::MONTH_DAY => {
                let start = self.pos;
                let month = self.u8("MonthDay month")?;
                let day = self.u8("MonthDay day")?;
                time::check_month_day(month, day).map_err(invalid_at("MonthDay", start))?;
                Wire::MonthDay { month, day }
            }
            code::OFFSET_DATE_TIME => Wire::OffsetDateTime(self.offset_date_time()?),
            code::OFFSET_TIME => Wire::OffsetTime {
                nanos_of_day: self.local_time()?,
                offset_seconds: self.offset()?,
            },
            code::PERIOD => Wire::Period {
                years: self.i32("Period years")?,
                months: self.i32("Period months")?,
                days: self.i32("Period days")?,
            },
            code::YEAR => Wire::Year(self.i32("Year")?),
            code::YEAR_MONTH => Wire::YearMonth {
                year: self.i32("YearMonth year")?,
                month: self.month("YearMonth month")?,
            },
            code::ZONED_DATE_TIME => Wire::ZonedDateTime(self.offset_date_time()?),
            code::ZONE_OFFSET => Wire::ZoneOffset(self.offset()?),
            _ => {
                return Err(DecodeError::UnknownTypeCode {
                    code: type_code,
                    offset: at,
                })
            }
        })
    }
}
