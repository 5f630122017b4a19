//! Between the executor's values ([`GValue`]) and the wire's ([`Wire`]).
//!
//! Results go out as TinkerPop's elements: a vertex is its id, label and
//! (unless the request asks for `materializeProperties: tokens`) its
//! properties, an edge its id, label, the ids and labels of its ends and
//! its properties, all described in the query's own snapshot or
//! transaction ([`Elements`]).
//! Arguments come in (bindings of a script) as values the executor takes;
//! what it has no value for (a lambda, a traversal) is refused by name.

use std::sync::Arc;

use stratagraph::DateTime;
use stratagraph_gremlin::ast::{DirectionToken, TToken};
use stratagraph_gremlin::value::{EdgeRef, Path as GPath};
use stratagraph_gremlin::{Elements, GValue};

use crate::wire::time::{civil_from_days, days_from_civil};
use crate::wire::{
    self, EnumKind, LocalDate, LocalDateTime, OffsetDateTime, Vertex, VertexProperty, Wire,
};

const NANOS_PER_DAY: i64 = 86_400_000_000_000;

/// A result as the wire carries it.
pub(crate) fn to_wire(v: &GValue, el: &Elements<'_>, props: bool) -> Wire {
    match v {
        GValue::Null => Wire::Null,
        GValue::Bool(b) => Wire::Bool(*b),
        GValue::Int8(x) => Wire::Byte(*x),
        GValue::Int16(x) => Wire::Short(*x),
        GValue::Int32(x) => Wire::Int(*x),
        GValue::Int64(x) => Wire::Long(*x),
        GValue::BigInt(x) => Wire::BigInteger(*x),
        GValue::Float32(x) => Wire::Float(*x),
        GValue::Float64(x) => Wire::Double(*x),
        GValue::BigDecimal(x) => big_decimal(*x),
        GValue::String(s) => Wire::String(s.to_string()),
        GValue::Uuid(u) => Wire::Uuid(*u),
        GValue::Date(d) => Wire::OffsetDateTime(offset_date_time(d)),
        GValue::Bytes(b) => Wire::ByteBuffer(b.to_vec()),
        GValue::List(items) => Wire::List(items.iter().map(|x| to_wire(x, el, props)).collect()),
        GValue::Set(items) => Wire::Set(items.iter().map(|x| to_wire(x, el, props)).collect()),
        GValue::Map(m) => Wire::Map(
            m.iter()
                .map(|(k, x)| (to_wire(k, el, props), to_wire(x, el, props)))
                .collect(),
        ),
        GValue::Vertex(v) => Wire::Vertex(Box::new(vertex(*v, el, props))),
        GValue::Edge(e) => Wire::Edge(Box::new(wire::Edge {
            id: Wire::Long(e.id as i64),
            label: e.label.to_string(),
            in_v_id: to_wire(&el.vertex_id(e.dst), el, props),
            in_v_label: el.vertex_label(e.dst).to_string(),
            out_v_id: to_wire(&el.vertex_id(e.src), el, props),
            out_v_label: el.vertex_label(e.src).to_string(),
            properties: if props {
                el.edge_properties(e.id)
                    .into_iter()
                    .map(|(k, x)| wire::Property {
                        key: k.to_string(),
                        value: to_wire(&x, el, false),
                    })
                    .collect()
            } else {
                Vec::new()
            },
        })),
        GValue::VertexProperty(p) => Wire::VertexProperty(Box::new(VertexProperty {
            // The engine keeps one value per key and gives it no id of its
            // own.
            id: Wire::Null,
            label: p.key.to_string(),
            value: to_wire(&p.value, el, props),
            properties: Vec::new(),
        })),
        GValue::Property(p) => Wire::Property(Box::new(wire::Property {
            key: p.key.to_string(),
            value: to_wire(&p.value, el, props),
        })),
        GValue::Path(p) => Wire::Path(Box::new(path(p, el, props))),
        GValue::T(t) => Wire::Enum {
            kind: EnumKind::T,
            name: match t {
                TToken::Id => "id",
                TToken::Label => "label",
                TToken::Key => "key",
                TToken::Value => "value",
            }
            .into(),
        },
        GValue::Direction(d) => Wire::Enum {
            kind: EnumKind::Direction,
            name: match d {
                DirectionToken::Out => "OUT",
                DirectionToken::In => "IN",
                DirectionToken::Both => "BOTH",
            }
            .into(),
        },
    }
}

fn vertex(v: stratagraph::VertexId, el: &Elements<'_>, props: bool) -> Vertex {
    let properties = if props {
        el.vertex_properties(v)
            .into_iter()
            .map(|(k, x)| VertexProperty {
                id: Wire::Null,
                label: k.to_string(),
                value: to_wire(&x, el, false),
                properties: Vec::new(),
            })
            .collect()
    } else {
        Vec::new()
    };
    Vertex {
        id: to_wire(&el.vertex_id(v), el, false),
        label: el.vertex_label(v).to_string(),
        properties,
    }
}

fn path(p: &GPath, el: &Elements<'_>, props: bool) -> wire::Path {
    wire::Path {
        labels: p
            .entries
            .iter()
            .map(|(labels, _)| labels.iter().map(|l| l.to_string()).collect())
            .collect(),
        objects: p
            .entries
            .iter()
            .map(|(_, o)| to_wire(o, el, props))
            .collect(),
    }
}

/// A `BigDecimal` held as a double, as its shortest decimal form; one
/// too wide for 128 bits of digits (or not finite) goes as a `Double`.
fn big_decimal(x: f64) -> Wire {
    if !x.is_finite() {
        return Wire::Double(x);
    }
    let text = format!("{x}");
    let (whole, frac) = text.split_once('.').unwrap_or((&text, ""));
    let digits = format!("{whole}{frac}");
    match (digits.parse::<i128>(), i32::try_from(frac.len())) {
        (Ok(unscaled), Ok(scale)) => Wire::BigDecimal { scale, unscaled },
        _ => Wire::Double(x),
    }
}

fn offset_date_time(d: &DateTime) -> OffsetDateTime {
    let local = d.seconds + i64::from(d.offset_seconds);
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    OffsetDateTime {
        date_time: LocalDateTime {
            date: LocalDate {
                year: year as i32,
                month,
                day,
            },
            nanos_of_day: secs * 1_000_000_000 + i64::from(d.nanos),
        },
        offset_seconds: d.offset_seconds,
    }
}

fn date_time(odt: &OffsetDateTime) -> Option<DateTime> {
    let dt = &odt.date_time;
    let days = days_from_civil(i64::from(dt.date.year), dt.date.month, dt.date.day);
    let nanos_of_day = dt.nanos_of_day.rem_euclid(NANOS_PER_DAY);
    let local = days * 86_400 + nanos_of_day / 1_000_000_000;
    DateTime::new(
        local - i64::from(odt.offset_seconds),
        (nanos_of_day % 1_000_000_000) as u32,
        odt.offset_seconds,
    )
}

/// An element id sent as a non-negative integer of any width.
fn integer_id(w: &Wire) -> Option<u64> {
    match *w {
        Wire::Long(i) => u64::try_from(i).ok(),
        Wire::Int(i) => u64::try_from(i).ok(),
        Wire::Short(i) => u64::try_from(i).ok(),
        _ => None,
    }
}

/// An argument (a binding's value) as the executor takes it, or what is
/// wrong with it. A vertex or an edge a client sends back is named by its
/// id: an integer id is the engine's own, a string id is looked up by
/// `key_id` (in a store of string ids).
pub(crate) fn from_wire(
    w: &Wire,
    key_id: &dyn Fn(&str) -> Option<stratagraph::VertexId>,
) -> Result<GValue, String> {
    let vertex = |id: &Wire| -> Result<stratagraph::VertexId, String> {
        match id {
            Wire::String(s) => key_id(s).or_else(|| s.parse().ok()),
            other => integer_id(other),
        }
        .ok_or_else(|| format!("no vertex has the id {id:?}"))
    };
    let recurse = |x: &Wire| from_wire(x, key_id);
    Ok(match w {
        Wire::Null => GValue::Null,
        Wire::Bool(b) => GValue::Bool(*b),
        Wire::Byte(x) => GValue::Int8(*x),
        Wire::Short(x) => GValue::Int16(*x),
        Wire::Int(x) => GValue::Int32(*x),
        Wire::Long(x) => GValue::Int64(*x),
        Wire::BigInteger(x) => GValue::BigInt(*x),
        Wire::Float(x) => GValue::Float32(*x),
        Wire::Double(x) => GValue::Float64(*x),
        Wire::BigDecimal { scale, unscaled } => {
            GValue::BigDecimal(*unscaled as f64 / 10f64.powi(*scale))
        }
        Wire::String(s) => GValue::str(s),
        Wire::Char(c) => GValue::String(Arc::from(c.to_string())),
        Wire::Uuid(u) => GValue::Uuid(*u),
        Wire::Date(ms) | Wire::Timestamp(ms) => {
            let d = DateTime::new(
                ms.div_euclid(1000),
                (ms.rem_euclid(1000) * 1_000_000) as u32,
                0,
            )
            .ok_or_else(|| format!("date {ms} ms is out of range"))?;
            GValue::Date(d)
        }
        Wire::OffsetDateTime(odt) | Wire::ZonedDateTime(odt) => GValue::Date(
            date_time(odt).ok_or_else(|| format!("date-time {odt:?} is out of range"))?,
        ),
        Wire::ByteBuffer(b) => GValue::Bytes(Arc::from(b.as_slice())),
        Wire::List(items) => GValue::list(items.iter().map(recurse).collect::<Result<_, _>>()?),
        Wire::Set(items) => GValue::set(items.iter().map(recurse).collect::<Result<Vec<_>, _>>()?),
        Wire::Map(m) => GValue::map(
            m.iter()
                .map(|(k, v)| Ok((recurse(k)?, recurse(v)?)))
                .collect::<Result<Vec<_>, String>>()?,
        ),
        Wire::Enum {
            kind: EnumKind::T,
            name,
        } => GValue::T(match name.as_str() {
            "id" => TToken::Id,
            "label" => TToken::Label,
            "key" => TToken::Key,
            "value" => TToken::Value,
            other => return Err(format!("T.{other} is not a T token")),
        }),
        Wire::Enum {
            kind: EnumKind::Direction,
            name,
        } => GValue::Direction(match name.as_str() {
            "OUT" | "from" => DirectionToken::Out,
            "IN" | "to" => DirectionToken::In,
            "BOTH" => DirectionToken::Both,
            other => return Err(format!("Direction.{other} is not a direction")),
        }),
        Wire::Vertex(v) => GValue::Vertex(vertex(&v.id)?),
        Wire::Edge(e) => {
            let id = integer_id(&e.id).ok_or_else(|| format!("no edge has the id {:?}", e.id))?;
            GValue::Edge(Arc::new(EdgeRef {
                id,
                src: vertex(&e.out_v_id)?,
                dst: vertex(&e.in_v_id)?,
                label: Arc::from(e.label.as_str()),
            }))
        }
        other => {
            return Err(format!(
                "a {} cannot be bound to a parameter here",
                other.type_name()
            ))
        }
    })
}
