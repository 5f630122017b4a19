//! Equality of [`Wire`] values as the wire sees them: floats by their bits,
//! so that a decoded `NaN` equals the `NaN` that was encoded and `-0.0`
//! stays distinct from `0.0`. Everything else compares field by field.

use super::Wire;

impl PartialEq for Wire {
    fn eq(&self, other: &Wire) -> bool {
        use Wire as W;
        match (self, other) {
            (W::Float(a), W::Float(b)) => a.to_bits() == b.to_bits(),
            (W::Double(a), W::Double(b)) => a.to_bits() == b.to_bits(),
            (W::Null, W::Null) => true,
            (W::Bool(a), W::Bool(b)) => a == b,
            (W::Byte(a), W::Byte(b)) => a == b,
            (W::Short(a), W::Short(b)) => a == b,
            (W::Int(a), W::Int(b)) => a == b,
            (W::Long(a), W::Long(b)) => a == b,
            (W::BigInteger(a), W::BigInteger(b)) => a == b,
            (
                W::BigDecimal { scale, unscaled },
                W::BigDecimal {
                    scale: s2,
                    unscaled: u2,
                },
            ) => scale == s2 && unscaled == u2,
            (W::String(a), W::String(b)) => a == b,
            (W::Uuid(a), W::Uuid(b)) => a == b,
            (W::Date(a), W::Date(b)) => a == b,
            (W::Timestamp(a), W::Timestamp(b)) => a == b,
            (W::OffsetDateTime(a), W::OffsetDateTime(b)) => a == b,
            (W::ZonedDateTime(a), W::ZonedDateTime(b)) => a == b,
            (
                W::Duration { seconds, nanos },
                W::Duration {
                    seconds: s2,
                    nanos: n2,
                },
            ) => seconds == s2 && nanos == n2,
            (
                W::Instant { seconds, nanos },
                W::Instant {
                    seconds: s2,
                    nanos: n2,
                },
            ) => seconds == s2 && nanos == n2,
            (W::LocalDate(a), W::LocalDate(b)) => a == b,
            (W::LocalDateTime(a), W::LocalDateTime(b)) => a == b,
            (W::LocalTime(a), W::LocalTime(b)) => a == b,
            (W::MonthDay { month, day }, W::MonthDay { month: m2, day: d2 }) => {
                month == m2 && day == d2
            }
            (
                W::OffsetTime {
                    nanos_of_day,
                    offset_seconds,
                },
                W::OffsetTime {
                    nanos_of_day: n2,
                    offset_seconds: o2,
                },
            ) => nanos_of_day == n2 && offset_seconds == o2,
            (
                W::Period {
                    years,
                    months,
                    days,
                },
                W::Period {
                    years: y2,
                    months: m2,
                    days: d2,
                },
            ) => years == y2 && months == m2 && days == d2,
            (W::Year(a), W::Year(b)) => a == b,
            (
                W::YearMonth { year, month },
                W::YearMonth {
                    year: y2,
                    month: m2,
                },
            ) => year == y2 && month == m2,
            (W::ZoneOffset(a), W::ZoneOffset(b)) => a == b,
            (W::Char(a), W::Char(b)) => a == b,
            (W::ByteBuffer(a), W::ByteBuffer(b)) => a == b,
            (W::InetAddress(a), W::InetAddress(b)) => a == b,
            (W::List(a), W::List(b)) => a == b,
            (W::Set(a), W::Set(b)) => a == b,
            (W::Map(a), W::Map(b)) => a == b,
            (W::Vertex(a), W::Vertex(b)) => a == b,
            (W::Edge(a), W::Edge(b)) => a == b,
            (W::VertexProperty(a), W::VertexProperty(b)) => a == b,
            (W::Property(a), W::Property(b)) => a == b,
            (W::Path(a), W::Path(b)) => a == b,
            (W::Graph(a), W::Graph(b)) => a == b,
            (W::BulkSet(a), W::BulkSet(b)) => a == b,
            (
                W::Traverser { bulk, value },
                W::Traverser {
                    bulk: b2,
                    value: v2,
                },
            ) => bulk == b2 && value == v2,
            (W::Tree(a), W::Tree(b)) => a == b,
            (W::Enum { kind, name }, W::Enum { kind: k2, name: n2 }) => kind == k2 && name == n2,
            (
                W::P { name, values },
                W::P {
                    name: n2,
                    values: v2,
                },
            ) => name == n2 && values == v2,
            (
                W::TextP { name, values },
                W::TextP {
                    name: n2,
                    values: v2,
                },
            ) => name == n2 && values == v2,
            (W::Binding { key, value }, W::Binding { key: k2, value: v2 }) => {
                key == k2 && value == v2
            }
            (
                W::Lambda {
                    language,
                    script,
                    arguments,
                },
                W::Lambda {
                    language: l2,
                    script: s2,
                    arguments: a2,
                },
            ) => language == l2 && script == s2 && arguments == a2,
            (
                W::TraversalStrategy { class, config },
                W::TraversalStrategy {
                    class: c2,
                    config: f2,
                },
            ) => class == c2 && config == f2,
            (W::Bytecode(a), W::Bytecode(b)) => a == b,
            (W::Class(a), W::Class(b)) => a == b,
            (W::Metrics(a), W::Metrics(b)) => a == b,
            (W::TraversalMetrics(a), W::TraversalMetrics(b)) => a == b,
            (
                W::Custom {
                    name,
                    type_info,
                    blob,
                },
                W::Custom {
                    name: n2,
                    type_info: t2,
                    blob: b2,
                },
            ) => name == n2 && type_info == t2 && blob == b2,
            _ => false,
        }
    }
}
