//! GraphSON 3.0 with embedded types (`graphson.asciidoc`): values and
//! messages.
//!
//! A typed value is `{"@type": "g:Int32", "@value": 1}`; strings, booleans
//! and null are bare JSON. Collections are typed too (`g:List`, `g:Set`,
//! and `g:Map` as a flat list of alternating keys and values, so keys need
//! not be strings). Decoding also accepts untyped JSON where drivers send
//! it: gremlinpython sends a request's `args` (bindings, aliases) as plain
//! JSON, which reads as Java's Jackson reads it: an object is a `Map` with
//! string keys, an array a `List`, an integer an `Int` (or `Long`, or
//! `BigInteger` as it grows), any other number a `Double`.
//!
//! Encoding writes what Java's GraphSON 3.0 writer writes, so every driver
//! reads it: `gx:BigInteger`/`gx:BigDecimal` as JSON numbers (decoding also
//! accepts the strings gremlinpython sends), `NaN` and infinities as
//! strings, `java.time` values as Java's `toString()`. A GraphBinary
//! `Custom` value has no GraphSON form and is an [`EncodeError`].
//!
//! Errors carry the JSON path of the offending value and its `@type`.

use std::fmt::Write;
use std::net::IpAddr;

use super::json::{self, Json};
use super::time;
use super::{
    base64, Bytecode, DecodeError, Edge, EncodeError, EnumKind, Graph, Instruction, Metrics, Path,
    Property, RequestMessage, ResponseMessage, ResultBody, Status, TraversalMetrics, Tree, Vertex,
    VertexProperty, Wire, MAX_DEPTH,
};

const FORMAT: &str = "GraphSON";

// ---- encoding ---------------------------------------------------------------

/// Encodes `value` as GraphSON 3.0 text.
///
/// # Errors
/// [`EncodeError::NotExpressible`] for a `Custom` value; otherwise as
/// [`super::graphbinary::encode`] (ranges, nesting).
pub fn encode(value: &Wire) -> Result<String, EncodeError> {
    let mut w = Writer::default();
    w.value(value)?;
    Ok(w.out)
}

/// Encodes a request message as Java drivers do: a typed `requestId` and
/// `args` as a `g:Map`.
///
/// # Errors
/// As [`encode`], for the arguments.
pub fn encode_request(request: &RequestMessage) -> Result<String, EncodeError> {
    let mut w = Writer::default();
    w.out
        .push_str("{\"requestId\":{\"@type\":\"g:UUID\",\"@value\":");
    w.uuid(&request.request_id);
    w.out.push_str("},\"op\":");
    json::write_string(&mut w.out, &request.op);
    w.out.push_str(",\"processor\":");
    json::write_string(&mut w.out, &request.processor);
    w.out.push_str(",\"args\":");
    w.string_map(&request.args)?;
    w.out.push('}');
    Ok(w.out)
}

/// Encodes a response message as Gremlin Server does: `requestId` a plain
/// string, `code` a plain number, attributes and meta as `g:Map`s.
///
/// # Errors
/// As [`encode`], for the attributes, meta and data.
pub fn encode_response(response: &ResponseMessage) -> Result<String, EncodeError> {
    let mut w = Writer::default();
    w.out.push_str("{\"requestId\":");
    match &response.request_id {
        Some(id) => w.uuid(id),
        None => w.out.push_str("null"),
    }
    w.out.push_str(",\"status\":{\"message\":");
    match &response.status.message {
        Some(m) => json::write_string(&mut w.out, m),
        None => w.out.push_str("null"),
    }
    let _ = write!(w.out, ",\"code\":{},\"attributes\":", response.status.code);
    w.string_map(&response.status.attributes)?;
    w.out.push_str("},\"result\":{\"data\":");
    w.value(&response.result.data)?;
    w.out.push_str(",\"meta\":");
    w.string_map(&response.result.meta)?;
    w.out.push_str("}}");
    Ok(w.out)
}

#[derive(Default)]
struct Writer {
    out: String,
    depth: usize,
}

fn invalid(what: &'static str, reason: String) -> EncodeError {
    EncodeError::InvalidValue { what, reason }
}

/// The text of a `BigDecimal` as Java's `BigDecimal.toString()` writes it:
/// plain (`123.45`, `0.000001`) unless the exponent is large, then
/// scientific (`7E+3`, `1.5E-7`). Both are valid JSON numbers.
fn big_decimal_text(scale: i32, unscaled: i128) -> String {
    let digits = unscaled.unsigned_abs().to_string();
    let sign = if unscaled < 0 { "-" } else { "" };
    let n = digits.len() as i64;
    let scale = i64::from(scale);
    let adjusted = -scale + (n - 1);
    if scale >= 0 && adjusted >= -6 {
        if scale == 0 {
            format!("{sign}{digits}")
        } else if n > scale {
            let (int, frac) = digits.split_at((n - scale) as usize);
            format!("{sign}{int}.{frac}")
        } else {
            let zeros = "0".repeat((scale - n) as usize);
            format!("{sign}0.{zeros}{digits}")
        }
    } else {
        let (first, rest) = digits.split_at(1);
        let point = if rest.is_empty() { "" } else { "." };
        let exp_sign = if adjusted >= 0 { "+" } else { "" };
        format!("{sign}{first}{point}{rest}E{exp_sign}{adjusted}")
    }
}

fn strategy_type_name(class: &str) -> String {
    let simple = class.rsplit('.').next().unwrap_or(class);
    format!("g:{simple}")
}

impl Writer {
    fn enter(&mut self) -> Result<(), EncodeError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(EncodeError::TooDeep { limit: MAX_DEPTH });
        }
        Ok(())
    }

    fn value(&mut self, v: &Wire) -> Result<(), EncodeError> {
        self.enter()?;
        let r = self.value_inner(v);
        self.depth -= 1;
        r
    }

    /// Writes `{"@type":"<type_name>","@value":` ... `}` around `body`.
    fn typed(
        &mut self,
        type_name: &str,
        body: impl FnOnce(&mut Self) -> Result<(), EncodeError>,
    ) -> Result<(), EncodeError> {
        self.out.push_str("{\"@type\":");
        json::write_string(&mut self.out, type_name);
        self.out.push_str(",\"@value\":");
        body(self)?;
        self.out.push('}');
        Ok(())
    }

    fn typed_raw(&mut self, type_name: &str, raw: &str) {
        let _ = write!(self.out, "{{\"@type\":\"{type_name}\",\"@value\":{raw}}}");
    }

    fn typed_str(&mut self, type_name: &str, s: &str) {
        let _ = write!(self.out, "{{\"@type\":\"{type_name}\",\"@value\":");
        json::write_string(&mut self.out, s);
        self.out.push('}');
    }

    fn key(&mut self, first: &mut bool, k: &str) {
        if !std::mem::take(first) {
            self.out.push(',');
        }
        json::write_string(&mut self.out, k);
        self.out.push(':');
    }

    fn uuid(&mut self, u: &[u8; 16]) {
        let mut s = String::with_capacity(36);
        for (i, b) in u.iter().enumerate() {
            if matches!(i, 4 | 6 | 8 | 10) {
                s.push('-');
            }
            let _ = write!(s, "{b:02x}");
        }
        json::write_string(&mut self.out, &s);
    }

    fn float(&mut self, type_name: &str, v: f64, text: impl FnOnce() -> String) {
        if v.is_nan() {
            self.typed_raw(type_name, "\"NaN\"");
        } else if v.is_infinite() {
            let s = if v > 0.0 {
                "\"Infinity\""
            } else {
                "\"-Infinity\""
            };
            self.typed_raw(type_name, s);
        } else {
            self.typed_raw(type_name, &text());
        }
    }

    fn array(&mut self, items: &[Wire]) -> Result<(), EncodeError> {
        self.out.push('[');
        for (i, v) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.value(v)?;
        }
        self.out.push(']');
        Ok(())
    }

    fn map(&mut self, pairs: &[(Wire, Wire)]) -> Result<(), EncodeError> {
        self.typed("g:Map", |w| {
            w.out.push('[');
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    w.out.push(',');
                }
                w.value(k)?;
                w.out.push(',');
                w.value(v)?;
            }
            w.out.push(']');
            Ok(())
        })
    }

    fn string_map(&mut self, pairs: &[(String, Wire)]) -> Result<(), EncodeError> {
        self.typed("g:Map", |w| {
            w.out.push('[');
            for (i, (k, v)) in pairs.iter().enumerate() {
                if i > 0 {
                    w.out.push(',');
                }
                json::write_string(&mut w.out, k);
                w.out.push(',');
                w.value(v)?;
            }
            w.out.push(']');
            Ok(())
        })
    }

    fn text_value(&mut self, type_name: &str, f: impl FnOnce(&mut String)) {
        let mut s = String::new();
        f(&mut s);
        self.typed_str(type_name, &s);
    }

    fn property(&mut self, p: &Property) -> Result<(), EncodeError> {
        self.enter()?;
        self.typed("g:Property", |w| {
            w.out.push_str("{\"key\":");
            json::write_string(&mut w.out, &p.key);
            w.out.push_str(",\"value\":");
            w.value(&p.value)?;
            w.out.push('}');
            Ok(())
        })?;
        self.depth -= 1;
        Ok(())
    }

    fn vertex_property(&mut self, vp: &VertexProperty) -> Result<(), EncodeError> {
        self.enter()?;
        self.typed("g:VertexProperty", |w| {
            w.out.push_str("{\"id\":");
            w.value(&vp.id)?;
            w.out.push_str(",\"value\":");
            w.value(&vp.value)?;
            w.out.push_str(",\"label\":");
            json::write_string(&mut w.out, &vp.label);
            if !vp.properties.is_empty() {
                w.out.push_str(",\"properties\":{");
                let mut first = true;
                for p in &vp.properties {
                    w.key(&mut first, &p.key);
                    w.value(&p.value)?;
                }
                w.out.push('}');
            }
            w.out.push('}');
            Ok(())
        })?;
        self.depth -= 1;
        Ok(())
    }

    fn vertex(&mut self, v: &Vertex) -> Result<(), EncodeError> {
        self.typed("g:Vertex", |w| {
            w.out.push_str("{\"id\":");
            w.value(&v.id)?;
            w.out.push_str(",\"label\":");
            json::write_string(&mut w.out, &v.label);
            if !v.properties.is_empty() {
                // Grouped by label, labels in order of first appearance.
                let mut labels: Vec<&str> = Vec::new();
                for vp in &v.properties {
                    if !labels.contains(&vp.label.as_str()) {
                        labels.push(&vp.label);
                    }
                }
                w.out.push_str(",\"properties\":{");
                let mut first = true;
                for label in labels {
                    w.key(&mut first, label);
                    w.out.push('[');
                    let group = v.properties.iter().filter(|vp| vp.label == label);
                    for (i, vp) in group.enumerate() {
                        if i > 0 {
                            w.out.push(',');
                        }
                        w.vertex_property(vp)?;
                    }
                    w.out.push(']');
                }
                w.out.push('}');
            }
            w.out.push('}');
            Ok(())
        })
    }

    fn edge(&mut self, e: &Edge) -> Result<(), EncodeError> {
        self.typed("g:Edge", |w| {
            w.out.push_str("{\"id\":");
            w.value(&e.id)?;
            w.out.push_str(",\"label\":");
            json::write_string(&mut w.out, &e.label);
            w.out.push_str(",\"inVLabel\":");
            json::write_string(&mut w.out, &e.in_v_label);
            w.out.push_str(",\"outVLabel\":");
            json::write_string(&mut w.out, &e.out_v_label);
            w.out.push_str(",\"inV\":");
            w.value(&e.in_v_id)?;
            w.out.push_str(",\"outV\":");
            w.value(&e.out_v_id)?;
            if !e.properties.is_empty() {
                w.out.push_str(",\"properties\":{");
                let mut first = true;
                for p in &e.properties {
                    w.key(&mut first, &p.key);
                    w.property(p)?;
                }
                w.out.push('}');
            }
            w.out.push('}');
            Ok(())
        })
    }

    fn tree(&mut self, t: &Tree) -> Result<(), EncodeError> {
        self.enter()?;
        self.typed("g:Tree", |w| {
            w.out.push('[');
            for (i, (k, sub)) in t.branches.iter().enumerate() {
                if i > 0 {
                    w.out.push(',');
                }
                w.out.push_str("{\"key\":");
                w.value(k)?;
                w.out.push_str(",\"value\":");
                w.tree(sub)?;
                w.out.push('}');
            }
            w.out.push(']');
            Ok(())
        })?;
        self.depth -= 1;
        Ok(())
    }

    fn instructions(&mut self, list: &[Instruction]) -> Result<(), EncodeError> {
        self.out.push('[');
        for (i, ins) in list.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.out.push('[');
            json::write_string(&mut self.out, &ins.operator);
            for a in &ins.args {
                self.out.push(',');
                self.value(a)?;
            }
            self.out.push(']');
        }
        self.out.push(']');
        Ok(())
    }

    fn predicate(
        &mut self,
        type_name: &str,
        name: &str,
        values: &[Wire],
    ) -> Result<(), EncodeError> {
        self.typed(type_name, |w| {
            w.out.push_str("{\"predicate\":");
            json::write_string(&mut w.out, name);
            w.out.push_str(",\"value\":");
            match (name, values) {
                ("within" | "without", _) => w.typed("g:List", |w| w.array(values))?,
                ("and" | "or", _) => w.array(values)?,
                (_, [single]) => w.value(single)?,
                _ => w.array(values)?,
            }
            w.out.push('}');
            Ok(())
        })
    }

    fn metrics(&mut self, m: &Metrics) -> Result<(), EncodeError> {
        self.enter()?;
        self.typed("g:Metrics", |w| {
            w.typed("g:Map", |w| {
                w.out.push_str("[\"dur\",");
                w.duration_millis(m.duration_nanos);
                w.out.push_str(",\"counts\",");
                let counts: Vec<(String, Wire)> = m
                    .counts
                    .iter()
                    .map(|(k, v)| (k.clone(), Wire::Long(*v)))
                    .collect();
                w.string_map(&counts)?;
                w.out.push_str(",\"name\",");
                json::write_string(&mut w.out, &m.name);
                w.out.push_str(",\"annotations\",");
                w.string_map(&m.annotations)?;
                w.out.push_str(",\"id\",");
                json::write_string(&mut w.out, &m.id);
                if !m.nested.is_empty() {
                    w.out.push_str(",\"metrics\",");
                    w.metrics_list(&m.nested)?;
                }
                w.out.push(']');
                Ok(())
            })
        })?;
        self.depth -= 1;
        Ok(())
    }

    fn metrics_list(&mut self, list: &[Metrics]) -> Result<(), EncodeError> {
        self.typed("g:List", |w| {
            w.out.push('[');
            for (i, m) in list.iter().enumerate() {
                if i > 0 {
                    w.out.push(',');
                }
                w.metrics(m)?;
            }
            w.out.push(']');
            Ok(())
        })
    }

    /// GraphSON sends durations in milliseconds, as a double.
    fn duration_millis(&mut self, nanos: i64) {
        let ms = nanos as f64 / 1e6;
        self.typed_raw("g:Double", &format!("{ms:?}"));
    }

    fn value_inner(&mut self, v: &Wire) -> Result<(), EncodeError> {
        match v {
            Wire::Null => self.out.push_str("null"),
            Wire::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Wire::String(s) => json::write_string(&mut self.out, s),
            Wire::Byte(n) => self.typed_raw("gx:Byte", &n.to_string()),
            Wire::Short(n) => self.typed_raw("gx:Int16", &n.to_string()),
            Wire::Int(n) => self.typed_raw("g:Int32", &n.to_string()),
            Wire::Long(n) => self.typed_raw("g:Int64", &n.to_string()),
            Wire::BigInteger(n) => self.typed_raw("gx:BigInteger", &n.to_string()),
            Wire::Float(f) => self.float("g:Float", f64::from(*f), || format!("{f:?}")),
            Wire::Double(f) => self.float("g:Double", *f, || format!("{f:?}")),
            Wire::BigDecimal { scale, unscaled } => {
                self.typed_raw("gx:BigDecimal", &big_decimal_text(*scale, *unscaled))
            }
            Wire::Uuid(u) => self.typed("g:UUID", |w| {
                w.uuid(u);
                Ok(())
            })?,
            Wire::Date(ms) => self.typed_raw("g:Date", &ms.to_string()),
            Wire::Timestamp(ms) => self.typed_raw("g:Timestamp", &ms.to_string()),
            Wire::OffsetDateTime(odt) => {
                time::check_offset_date_time(odt).map_err(|r| invalid("OffsetDateTime", r))?;
                self.text_value("gx:OffsetDateTime", |s| {
                    time::format_offset_date_time(s, odt)
                });
            }
            Wire::ZonedDateTime(odt) => {
                time::check_offset_date_time(odt).map_err(|r| invalid("ZonedDateTime", r))?;
                self.text_value("gx:ZonedDateTime", |s| {
                    time::format_offset_date_time(s, odt)
                });
            }
            Wire::Duration { seconds, nanos } => {
                let mut s = String::new();
                time::format_duration(&mut s, *seconds, *nanos)
                    .map_err(|r| invalid("Duration", r))?;
                self.typed_str("gx:Duration", &s);
            }
            Wire::Instant { seconds, nanos } => {
                let mut s = String::new();
                time::format_instant(&mut s, *seconds, *nanos)
                    .map_err(|r| invalid("Instant", r))?;
                self.typed_str("gx:Instant", &s);
            }
            Wire::LocalDate(d) => {
                time::check_date(d.year, d.month, d.day).map_err(|r| invalid("LocalDate", r))?;
                self.text_value("gx:LocalDate", |s| time::format_date(s, d));
            }
            Wire::LocalDateTime(dt) => {
                time::check_date_time(dt).map_err(|r| invalid("LocalDateTime", r))?;
                self.text_value("gx:LocalDateTime", |s| time::format_date_time(s, dt));
            }
            Wire::LocalTime(n) => {
                time::check_nanos_of_day(*n).map_err(|r| invalid("LocalTime", r))?;
                self.text_value("gx:LocalTime", |s| time::format_time(s, *n, false));
            }
            Wire::MonthDay { month, day } => {
                time::check_month_day(*month, *day).map_err(|r| invalid("MonthDay", r))?;
                self.typed_str("gx:MonthDay", &format!("--{month:02}-{day:02}"));
            }
            Wire::OffsetTime {
                nanos_of_day,
                offset_seconds,
            } => {
                time::check_nanos_of_day(*nanos_of_day).map_err(|r| invalid("OffsetTime", r))?;
                time::check_offset(*offset_seconds).map_err(|r| invalid("OffsetTime", r))?;
                self.text_value("gx:OffsetTime", |s| {
                    time::format_time(s, *nanos_of_day, false);
                    time::format_offset(s, *offset_seconds);
                });
            }
            Wire::Period {
                years,
                months,
                days,
            } => self.text_value("gx:Period", |s| {
                time::format_period(s, *years, *months, *days)
            }),
            Wire::Year(y) => {
                if i64::from(*y).abs() > 999_999_999 {
                    return Err(invalid("Year", format!("year {y} outside ±999999999")));
                }
                self.typed_str("gx:Year", &y.to_string());
            }
            Wire::YearMonth { year, month } => {
                time::check_date(*year, *month, 1).map_err(|r| invalid("YearMonth", r))?;
                self.text_value("gx:YearMonth", |s| {
                    time::format_year_month(s, *year, *month)
                });
            }
            Wire::ZoneOffset(o) => {
                time::check_offset(*o).map_err(|r| invalid("ZoneOffset", r))?;
                self.text_value("gx:ZoneOffset", |s| time::format_offset(s, *o));
            }
            Wire::Char(c) => self.typed_str("gx:Char", c.encode_utf8(&mut [0u8; 4])),
            Wire::ByteBuffer(b) => self.typed_str("gx:ByteBuffer", &base64::encode(b)),
            Wire::InetAddress(ip) => self.typed_str("gx:InetAddress", &ip.to_string()),
            Wire::List(items) => self.typed("g:List", |w| w.array(items))?,
            Wire::Set(items) => self.typed("g:Set", |w| w.array(items))?,
            Wire::Map(pairs) => self.map(pairs)?,
            Wire::Vertex(vx) => self.vertex(vx)?,
            Wire::Edge(e) => self.edge(e)?,
            Wire::VertexProperty(vp) => self.vertex_property(vp)?,
            Wire::Property(p) => self.property(p)?,
            Wire::Path(p) => self.typed("g:Path", |w| {
                w.out.push_str("{\"labels\":");
                let labels: Vec<Wire> = p
                    .labels
                    .iter()
                    .map(|set| Wire::Set(set.iter().map(|l| Wire::String(l.clone())).collect()))
                    .collect();
                w.typed("g:List", |w| w.array(&labels))?;
                w.out.push_str(",\"objects\":");
                w.typed("g:List", |w| w.array(&p.objects))?;
                w.out.push('}');
                Ok(())
            })?,
            Wire::Graph(g) => self.typed("tinker:graph", |w| {
                w.out.push_str("{\"vertices\":[");
                for (i, vx) in g.vertices.iter().enumerate() {
                    if i > 0 {
                        w.out.push(',');
                    }
                    w.enter()?;
                    w.vertex(vx)?;
                    w.depth -= 1;
                }
                w.out.push_str("],\"edges\":[");
                for (i, e) in g.edges.iter().enumerate() {
                    if i > 0 {
                        w.out.push(',');
                    }
                    w.enter()?;
                    w.edge(e)?;
                    w.depth -= 1;
                }
                w.out.push_str("]}");
                Ok(())
            })?,
            Wire::BulkSet(items) => self.typed("g:BulkSet", |w| {
                w.out.push('[');
                for (i, (v, bulk)) in items.iter().enumerate() {
                    if i > 0 {
                        w.out.push(',');
                    }
                    w.value(v)?;
                    w.out.push(',');
                    w.typed_raw("g:Int64", &bulk.to_string());
                }
                w.out.push(']');
                Ok(())
            })?,
            Wire::Traverser { bulk, value } => self.typed("g:Traverser", |w| {
                w.out.push_str("{\"bulk\":");
                w.typed_raw("g:Int64", &bulk.to_string());
                w.out.push_str(",\"value\":");
                w.value(value)?;
                w.out.push('}');
                Ok(())
            })?,
            Wire::Tree(t) => self.tree(t)?,
            Wire::Enum { kind, name } => self.typed_str(&format!("g:{}", kind.name()), name),
            Wire::P { name, values } => self.predicate("g:P", name, values)?,
            Wire::TextP { name, values } => self.predicate("g:TextP", name, values)?,
            Wire::Binding { key, value } => self.typed("g:Binding", |w| {
                w.out.push_str("{\"key\":");
                json::write_string(&mut w.out, key);
                w.out.push_str(",\"value\":");
                w.value(value)?;
                w.out.push('}');
                Ok(())
            })?,
            Wire::Lambda {
                language,
                script,
                arguments,
            } => self.typed("g:Lambda", |w| {
                w.out.push_str("{\"script\":");
                json::write_string(&mut w.out, script);
                w.out.push_str(",\"language\":");
                json::write_string(&mut w.out, language);
                let _ = write!(w.out, ",\"arguments\":{arguments}}}");
                Ok(())
            })?,
            Wire::TraversalStrategy { class, config } => {
                self.typed(&strategy_type_name(class), |w| {
                    w.out.push_str("{\"fqcn\":");
                    json::write_string(&mut w.out, class);
                    w.out.push_str(",\"conf\":");
                    // A plain object, as Java writes it, when the keys allow
                    // (strings, and no `@type` that would read as a type).
                    if config
                        .iter()
                        .all(|(k, _)| matches!(k, Wire::String(s) if s != "@type"))
                    {
                        w.out.push('{');
                        let mut first = true;
                        for (k, v) in config {
                            w.key(&mut first, k.as_str().unwrap_or_default());
                            w.value(v)?;
                        }
                        w.out.push('}');
                    } else {
                        w.map(config)?;
                    }
                    w.out.push('}');
                    Ok(())
                })?
            }
            Wire::Bytecode(b) => self.typed("g:Bytecode", |w| {
                w.out.push('{');
                let mut first = true;
                if !b.sources.is_empty() {
                    w.key(&mut first, "source");
                    w.instructions(&b.sources)?;
                }
                if !b.steps.is_empty() {
                    w.key(&mut first, "step");
                    w.instructions(&b.steps)?;
                }
                w.out.push('}');
                Ok(())
            })?,
            Wire::Class(c) => self.typed_str("g:Class", c),
            Wire::Metrics(m) => self.metrics(m)?,
            Wire::TraversalMetrics(tm) => self.typed("g:TraversalMetrics", |w| {
                w.typed("g:Map", |w| {
                    w.out.push_str("[\"dur\",");
                    w.duration_millis(tm.duration_nanos);
                    w.out.push_str(",\"metrics\",");
                    w.metrics_list(&tm.metrics)?;
                    w.out.push(']');
                    Ok(())
                })
            })?,
            Wire::Custom { name, .. } => {
                return Err(EncodeError::NotExpressible {
                    format: FORMAT,
                    what: "Custom",
                    reason: format!("{name:?} is a GraphBinary provider type"),
                })
            }
        }
        Ok(())
    }
}

// ---- decoding ---------------------------------------------------------------

/// Decodes one GraphSON 3.0 value.
///
/// # Errors
/// [`DecodeError::Json`] for input that is not JSON (with the byte
/// offset); [`DecodeError::GraphSon`], [`DecodeError::UnknownGraphSonType`]
/// or [`DecodeError::GraphSonTooDeep`] for JSON that is not GraphSON 3.0
/// (with the JSON path).
pub fn decode(input: &[u8]) -> Result<Wire, DecodeError> {
    let doc = json::parse(input)?;
    Reader::default().value(&doc)
}

/// Decodes a request message. `requestId` may be a plain string or a
/// `g:UUID`, `processor` may be left out (standard), and `args` may be a
/// `g:Map` or a plain JSON object (as gremlinpython sends it).
///
/// # Errors
/// As [`decode`]; also for a missing `requestId` or `op`, or an argument
/// name that is not a string.
pub fn decode_request(input: &[u8]) -> Result<RequestMessage, DecodeError> {
    let doc = json::parse(input)?;
    let mut r = Reader::default();
    r.expect_object(&doc)?;
    let id = r.field(&doc, "requestId")?;
    let request_id = r.at_key("requestId", |r| r.request_uuid(id))?;
    let op = r.string_field(&doc, "op")?.to_owned();
    let processor = match doc.get("processor") {
        None | Some(Json::Null) => String::new(),
        Some(_) => r.string_field(&doc, "processor")?.to_owned(),
    };
    let args = match doc.get("args") {
        None | Some(Json::Null) => Vec::new(),
        Some(a) => r.at_key("args", |r| r.string_map(a))?,
    };
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
/// As [`decode`]; also for a missing `status`, `code` or `result`, or a
/// status code outside `0..=65535`.
pub fn decode_response(input: &[u8]) -> Result<ResponseMessage, DecodeError> {
    let doc = json::parse(input)?;
    let mut r = Reader::default();
    r.expect_object(&doc)?;
    let request_id = match doc.get("requestId") {
        None | Some(Json::Null) => None,
        Some(id) => Some(r.at_key("requestId", |r| r.request_uuid(id))?),
    };
    let status = r.field(&doc, "status")?;
    let status = r.at_key("status", |r| {
        r.expect_object(status)?;
        let code = r.field(status, "code")?;
        let code = r.at_key("code", |r| {
            let w = r.value(code)?;
            w.as_i64()
                .and_then(|c| u16::try_from(c).ok())
                .ok_or_else(|| {
                    r.err(format!(
                        "status code must be 0..=65535, found {}",
                        w.type_name()
                    ))
                })
        })?;
        let message = match status.get("message") {
            None | Some(Json::Null) => None,
            Some(_) => Some(r.string_field(status, "message")?.to_owned()),
        };
        let attributes = match status.get("attributes") {
            None | Some(Json::Null) => Vec::new(),
            Some(a) => r.at_key("attributes", |r| r.string_map(a))?,
        };
        Ok(Status {
            code,
            message,
            attributes,
        })
    })?;
    let result = r.field(&doc, "result")?;
    let result = r.at_key("result", |r| {
        r.expect_object(result)?;
        let data = match result.get("data") {
            None => Wire::Null,
            Some(d) => r.at_key("data", |r| r.value(d))?,
        };
        let meta = match result.get("meta") {
            None | Some(Json::Null) => Vec::new(),
            Some(m) => r.at_key("meta", |r| r.string_map(m))?,
        };
        Ok(ResultBody { meta, data })
    })?;
    Ok(ResponseMessage {
        request_id,
        status,
        result,
    })
}

#[derive(Clone, Copy)]
enum Seg<'a> {
    Key(&'a str),
    Index(usize),
}

#[derive(Default)]
struct Reader<'a> {
    path: Vec<Seg<'a>>,
    type_name: Option<&'a str>,
    depth: usize,
}

type R<T> = Result<T, DecodeError>;

fn is_identifier(k: &str) -> bool {
    !k.is_empty() && k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_')
}

impl<'a> Reader<'a> {
    fn path_string(&self) -> String {
        let mut s = String::from("$");
        for seg in &self.path {
            match seg {
                Seg::Key(k) if is_identifier(k) => {
                    let _ = write!(s, ".{k}");
                }
                Seg::Key(k) => {
                    let _ = write!(s, "[{k:?}]");
                }
                Seg::Index(i) => {
                    let _ = write!(s, "[{i}]");
                }
            }
        }
        s
    }

    fn err(&self, reason: impl Into<String>) -> DecodeError {
        DecodeError::GraphSon {
            path: self.path_string(),
            type_name: self.type_name.map(str::to_owned),
            reason: reason.into(),
        }
    }

    fn at<T>(&mut self, seg: Seg<'a>, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        self.path.push(seg);
        let r = f(self);
        self.path.pop();
        r
    }

    fn at_key<T>(&mut self, key: &'a str, f: impl FnOnce(&mut Self) -> R<T>) -> R<T> {
        self.at(Seg::Key(key), f)
    }

    fn expect_object(&self, j: &Json) -> R<()> {
        match j {
            Json::Object(_) => Ok(()),
            other => Err(self.err(format!("expected an object, found {}", other.kind()))),
        }
    }

    fn field(&self, obj: &'a Json, key: &str) -> R<&'a Json> {
        obj.get(key)
            .ok_or_else(|| self.err(format!("missing {key:?}")))
    }

    fn str_of(&self, j: &'a Json) -> R<&'a str> {
        match j {
            Json::String(s) => Ok(s),
            other => Err(self.err(format!("expected a string, found {}", other.kind()))),
        }
    }

    fn string_field(&mut self, obj: &'a Json, key: &'a str) -> R<&'a str> {
        let j = self.field(obj, key)?;
        self.at_key(key, |r| r.str_of(j))
    }

    fn array_of(&self, j: &'a Json) -> R<&'a [Json]> {
        match j {
            Json::Array(items) => Ok(items),
            other => Err(self.err(format!("expected an array, found {}", other.kind()))),
        }
    }

    /// A decoded value at `key` of `obj`.
    fn value_field(&mut self, obj: &'a Json, key: &'a str) -> R<Wire> {
        let j = self.field(obj, key)?;
        self.at_key(key, |r| r.value(j))
    }

    fn request_uuid(&mut self, j: &'a Json) -> R<[u8; 16]> {
        match self.value(j)? {
            Wire::Uuid(u) => Ok(u),
            Wire::String(s) => self.parse_uuid(&s),
            other => Err(self.err(format!("expected a UUID, found {}", other.type_name()))),
        }
    }

    fn parse_uuid(&self, s: &str) -> R<[u8; 16]> {
        let bad = || self.err(format!("{s:?} is not a UUID"));
        let b = s.as_bytes();
        if b.len() != 36 || [8, 13, 18, 23].iter().any(|&i| b.get(i) != Some(&b'-')) {
            return Err(bad());
        }
        let hex: Vec<u8> = b.iter().copied().filter(|&c| c != b'-').collect();
        let mut out = [0u8; 16];
        for (i, pair) in hex.chunks(2).enumerate() {
            let text = std::str::from_utf8(pair).map_err(|_| bad())?;
            let byte = u8::from_str_radix(text, 16).map_err(|_| bad())?;
            *out.get_mut(i).ok_or_else(bad)? = byte;
        }
        if hex.len() != 32 || hex.iter().any(|c| !c.is_ascii_hexdigit()) {
            return Err(bad());
        }
        Ok(out)
    }

    /// A map with string keys: a `g:Map` or a plain object.
    fn string_map(&mut self, j: &'a Json) -> R<Vec<(String, Wire)>> {
        match self.value(j)? {
            Wire::Map(pairs) => pairs
                .into_iter()
                .map(|(k, v)| match k {
                    Wire::String(s) => Ok((s, v)),
                    other => {
                        Err(self.err(format!("keys must be strings, found {}", other.type_name())))
                    }
                })
                .collect(),
            Wire::Null => Ok(Vec::new()),
            other => Err(self.err(format!("expected a map, found {}", other.type_name()))),
        }
    }

    fn value(&mut self, j: &'a Json) -> R<Wire> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(DecodeError::GraphSonTooDeep {
                limit: MAX_DEPTH,
                path: self.path_string(),
            });
        }
        let r = self.value_inner(j);
        self.depth -= 1;
        r
    }

    fn value_inner(&mut self, j: &'a Json) -> R<Wire> {
        match j {
            Json::Null => Ok(Wire::Null),
            Json::Bool(b) => Ok(Wire::Bool(*b)),
            Json::String(s) => Ok(Wire::String(s.clone())),
            Json::Number(text) => self.untyped_number(text),
            Json::Array(items) => Ok(Wire::List(self.items(items)?)),
            Json::Object(members) => {
                if let Some(t) = j.get("@type") {
                    let t = self.at_key("@type", |r| r.str_of(t))?;
                    let outer = self.type_name.replace(t);
                    let r = match j.get("@value") {
                        // A typed value without `@value` is a typed null.
                        None => Ok(Wire::Null),
                        Some(v) => self.at_key("@value", |r| r.typed(t, v)),
                    };
                    self.type_name = outer;
                    r
                } else {
                    let mut pairs = Vec::with_capacity(members.len());
                    for (k, v) in members {
                        let v = self.at_key(k, |r| r.value(v))?;
                        pairs.push((Wire::String(k.clone()), v));
                    }
                    Ok(Wire::Map(pairs))
                }
            }
        }
    }

    fn items(&mut self, items: &'a [Json]) -> R<Vec<Wire>> {
        let mut out = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            out.push(self.at(Seg::Index(i), |r| r.value(item))?);
        }
        Ok(out)
    }

    fn untyped_number(&self, text: &str) -> R<Wire> {
        if text.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) {
            return self.parse_f64(text).map(Wire::Double);
        }
        if let Ok(n) = text.parse::<i32>() {
            Ok(Wire::Int(n))
        } else if let Ok(n) = text.parse::<i64>() {
            Ok(Wire::Long(n))
        } else {
            text.parse::<i128>()
                .map(Wire::BigInteger)
                .map_err(|_| self.err(format!("integer {text} exceeds 128 bits")))
        }
    }

    fn parse_f64(&self, text: &str) -> R<f64> {
        text.parse::<f64>()
            .map_err(|_| self.err(format!("{text:?} is not a number")))
    }

    /// The text of an integer: a JSON number without fraction or exponent,
    /// or (with `string_ok`) a string of digits, as gremlinpython sends
    /// `gx:BigInteger`.
    fn integer_text(&self, v: &'a Json, string_ok: bool) -> R<&'a str> {
        let text = match v {
            Json::Number(t) => t.as_str(),
            Json::String(s) if string_ok => s.as_str(),
            other => return Err(self.err(format!("expected an integer, found {}", other.kind()))),
        };
        let digits = text.strip_prefix('-').unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return Err(self.err(format!("{text:?} is not an integer")));
        }
        Ok(text)
    }

    fn integer<T: std::str::FromStr>(&self, v: &'a Json, what: &str) -> R<T> {
        let text = self.integer_text(v, false)?;
        text.parse::<T>()
            .map_err(|_| self.err(format!("{text} is out of range for {what}")))
    }

    fn float_special(s: &str) -> Option<f64> {
        match s {
            "NaN" => Some(f64::NAN),
            "Infinity" => Some(f64::INFINITY),
            "-Infinity" => Some(f64::NEG_INFINITY),
            _ => None,
        }
    }

    fn double(&self, v: &'a Json) -> R<f64> {
        match v {
            Json::Number(t) => self.parse_f64(t),
            Json::String(s) => {
                Self::float_special(s).ok_or_else(|| self.err(format!("{s:?} is not a double")))
            }
            other => Err(self.err(format!("expected a number, found {}", other.kind()))),
        }
    }

    fn float(&self, v: &'a Json) -> R<f32> {
        match v {
            Json::Number(t) => t
                .parse::<f32>()
                .map_err(|_| self.err(format!("{t:?} is not a float"))),
            Json::String(s) => Self::float_special(s)
                .map(|f| f as f32)
                .ok_or_else(|| self.err(format!("{s:?} is not a float"))),
            other => Err(self.err(format!("expected a number, found {}", other.kind()))),
        }
    }

    fn big_integer(&self, v: &'a Json) -> R<i128> {
        let text = self.integer_text(v, true)?;
        text.parse::<i128>()
            .map_err(|_| self.err(format!("BigInteger {text} exceeds 128 bits")))
    }

    /// A decimal's text (`123.45`, `-1`, `7E+3`) as scale and unscaled
    /// value, as Java's `new BigDecimal(String)`.
    fn big_decimal(&self, v: &'a Json) -> R<(i32, i128)> {
        let text = match v {
            Json::Number(t) => t.as_str(),
            Json::String(s) => s.as_str(),
            other => return Err(self.err(format!("expected a number, found {}", other.kind()))),
        };
        let bad = |why: &str| self.err(format!("{text:?} is not a BigDecimal: {why}"));
        let (mantissa, exponent) = match text.find(['e', 'E']) {
            Some(i) => (&text[..i], &text[i + 1..]),
            None => (text, "0"),
        };
        let exponent: i64 = exponent
            .strip_prefix('+')
            .unwrap_or(exponent)
            .parse()
            .map_err(|_| bad("bad exponent"))?;
        let (negative, mantissa) = match mantissa.strip_prefix('-') {
            Some(m) => (true, m),
            None => (false, mantissa.strip_prefix('+').unwrap_or(mantissa)),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        let digits = format!("{int}{frac}");
        if digits.is_empty() || !digits.bytes().all(|c| c.is_ascii_digit()) {
            return Err(bad("expected digits"));
        }
        let trimmed = digits.trim_start_matches('0');
        let magnitude: i128 = if trimmed.is_empty() {
            0
        } else {
            trimmed.parse().map_err(|_| bad("more than 128 bits"))?
        };
        let scale =
            i32::try_from(frac.len() as i64 - exponent).map_err(|_| bad("scale out of range"))?;
        Ok((scale, if negative { -magnitude } else { magnitude }))
    }

    fn text<T>(&self, v: &'a Json, parse: impl FnOnce(&str) -> Result<T, String>) -> R<T> {
        let s = self.str_of(v)?;
        parse(s).map_err(|reason| self.err(format!("{s:?}: {reason}")))
    }

    fn typed(&mut self, t: &'a str, v: &'a Json) -> R<Wire> {
        if let Some(kind) = t.strip_prefix("g:").and_then(EnumKind::from_name) {
            let name = self.str_of(v)?.to_owned();
            return Ok(Wire::Enum { kind, name });
        }
        Ok(match t {
            "g:Int32" => Wire::Int(self.integer(v, "Int32")?),
            "g:Int64" => Wire::Long(self.integer(v, "Int64")?),
            "gx:Int16" => Wire::Short(self.integer(v, "Int16")?),
            "gx:Byte" => Wire::Byte(self.integer(v, "Byte")?),
            "gx:BigInteger" => Wire::BigInteger(self.big_integer(v)?),
            "g:Float" => Wire::Float(self.float(v)?),
            "g:Double" => Wire::Double(self.double(v)?),
            "gx:BigDecimal" => {
                let (scale, unscaled) = self.big_decimal(v)?;
                Wire::BigDecimal { scale, unscaled }
            }
            "g:UUID" => {
                let s = self.str_of(v)?;
                Wire::Uuid(self.parse_uuid(s)?)
            }
            "g:Date" => Wire::Date(self.integer(v, "Date")?),
            "g:Timestamp" => Wire::Timestamp(self.integer(v, "Timestamp")?),
            "g:Class" => Wire::Class(self.str_of(v)?.to_owned()),
            "g:List" => Wire::List(self.items(self.array_of(v)?)?),
            "g:Set" => Wire::Set(self.items(self.array_of(v)?)?),
            "g:Map" => Wire::Map(self.flat_pairs(v)?),
            "g:Vertex" => Wire::Vertex(Box::new(self.vertex(v)?)),
            "g:Edge" => Wire::Edge(Box::new(self.edge(v)?)),
            "g:VertexProperty" => Wire::VertexProperty(Box::new(self.vertex_property(v)?)),
            "g:Property" => {
                self.expect_object(v)?;
                let key = self.string_field(v, "key")?.to_owned();
                let value = self.value_field(v, "value")?;
                Wire::Property(Box::new(Property { key, value }))
            }
            "g:Path" => Wire::Path(Box::new(self.path(v)?)),
            "tinker:graph" => Wire::Graph(Box::new(self.graph(v)?)),
            "g:Traverser" => {
                self.expect_object(v)?;
                let bulk = self.value_field(v, "bulk")?;
                let bulk = bulk.as_i64().ok_or_else(|| {
                    self.err(format!(
                        "bulk must be an integer, found {}",
                        bulk.type_name()
                    ))
                })?;
                let value = Box::new(self.value_field(v, "value")?);
                Wire::Traverser { bulk, value }
            }
            "g:BulkSet" => {
                let pairs = self.flat_pairs(v)?;
                let mut items = Vec::with_capacity(pairs.len());
                for (value, bulk) in pairs {
                    let n = bulk.as_i64().ok_or_else(|| {
                        self.err(format!(
                            "bulk must be an integer, found {}",
                            bulk.type_name()
                        ))
                    })?;
                    items.push((value, n));
                }
                Wire::BulkSet(items)
            }
            "g:Tree" => Wire::Tree(self.tree(v)?),
            "g:P" => {
                let (name, values) = self.predicate(v)?;
                Wire::P { name, values }
            }
            "g:TextP" => {
                let (name, values) = self.predicate(v)?;
                Wire::TextP { name, values }
            }
            "g:Binding" => {
                self.expect_object(v)?;
                let key = self.string_field(v, "key")?.to_owned();
                let value = Box::new(self.value_field(v, "value")?);
                Wire::Binding { key, value }
            }
            "g:Lambda" => {
                self.expect_object(v)?;
                let script = self.string_field(v, "script")?.to_owned();
                let language = match v.get("language") {
                    None => "gremlin-groovy".to_owned(),
                    Some(_) => self.string_field(v, "language")?.to_owned(),
                };
                let arguments = match v.get("arguments") {
                    None => -1,
                    Some(a) => self.at_key("arguments", |r| r.integer(a, "arguments"))?,
                };
                Wire::Lambda {
                    language,
                    script,
                    arguments,
                }
            }
            "g:Bytecode" => {
                self.expect_object(v)?;
                let steps = self.instructions(v, "step")?;
                let sources = self.instructions(v, "source")?;
                Wire::Bytecode(Box::new(Bytecode { steps, sources }))
            }
            "g:Metrics" => Wire::Metrics(Box::new(self.metrics(v)?)),
            "g:TraversalMetrics" => {
                let fields = self.string_map(v)?;
                let duration_nanos = self.millis_field(&fields, "dur")?;
                let metrics = self.metrics_field(&fields)?;
                Wire::TraversalMetrics(Box::new(TraversalMetrics {
                    duration_nanos,
                    metrics,
                }))
            }
            "gx:Char" => {
                let s = self.str_of(v)?;
                let mut chars = s.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => Wire::Char(c),
                    _ => return Err(self.err(format!("{s:?} is not one character"))),
                }
            }
            "gx:ByteBuffer" => {
                let s = self.str_of(v)?;
                let bytes = base64::decode(s)
                    .map_err(|at| self.err(format!("not base64 at character {at}")))?;
                Wire::ByteBuffer(bytes)
            }
            "gx:InetAddress" => {
                let ip = self.text(v, |s| {
                    s.parse::<IpAddr>()
                        .map_err(|_| "not an IP address (host names are not resolved)".to_owned())
                })?;
                Wire::InetAddress(ip)
            }
            "gx:Duration" => {
                let (seconds, nanos) = self.text(v, time::parse_duration)?;
                Wire::Duration { seconds, nanos }
            }
            "gx:Instant" => {
                let (seconds, nanos) = self.text(v, time::parse_instant)?;
                Wire::Instant { seconds, nanos }
            }
            "gx:LocalDate" => Wire::LocalDate(self.text(v, time::parse_date)?),
            "gx:LocalDateTime" => Wire::LocalDateTime(self.text(v, time::parse_date_time)?),
            "gx:LocalTime" => Wire::LocalTime(self.text(v, time::parse_time)?),
            "gx:MonthDay" => {
                let (month, day) = self.text(v, time::parse_month_day)?;
                Wire::MonthDay { month, day }
            }
            "gx:OffsetDateTime" => {
                Wire::OffsetDateTime(self.text(v, |s| time::parse_offset_date_time(s, false))?)
            }
            "gx:OffsetTime" => {
                let (nanos_of_day, offset_seconds) = self.text(v, time::parse_offset_time)?;
                Wire::OffsetTime {
                    nanos_of_day,
                    offset_seconds,
                }
            }
            "gx:Period" => {
                let (years, months, days) = self.text(v, time::parse_period)?;
                Wire::Period {
                    years,
                    months,
                    days,
                }
            }
            "gx:Year" => match v {
                Json::Number(_) => Wire::Year(self.integer(v, "Year")?),
                _ => Wire::Year(self.text(v, time::parse_year_text)?),
            },
            "gx:YearMonth" => {
                let (year, month) = self.text(v, time::parse_year_month)?;
                Wire::YearMonth { year, month }
            }
            "gx:ZonedDateTime" => {
                Wire::ZonedDateTime(self.text(v, |s| time::parse_offset_date_time(s, true))?)
            }
            "gx:ZoneOffset" => Wire::ZoneOffset(self.text(v, time::parse_offset)?),
            _ => {
                // A traversal strategy is typed by its simple class name
                // (`g:SubgraphStrategy`) and carries its class in `fqcn`.
                if t.starts_with("g:") && v.get("fqcn").is_some() {
                    return self.strategy(v);
                }
                let mut path = self.path.clone();
                path.pop();
                let saved = std::mem::replace(&mut self.path, path);
                let e = DecodeError::UnknownGraphSonType {
                    type_name: t.to_owned(),
                    path: self.path_string(),
                };
                self.path = saved;
                return Err(e);
            }
        })
    }

    /// A flat array of alternating keys and values (`g:Map`, `g:BulkSet`).
    fn flat_pairs(&mut self, v: &'a Json) -> R<Vec<(Wire, Wire)>> {
        let items = self.array_of(v)?;
        if items.len() % 2 != 0 {
            return Err(self.err(format!("{} items, expected key-value pairs", items.len())));
        }
        let mut pairs = Vec::with_capacity(items.len() / 2);
        for (i, pair) in items.chunks_exact(2).enumerate() {
            if let [k, val] = pair {
                let k = self.at(Seg::Index(2 * i), |r| r.value(k))?;
                let val = self.at(Seg::Index(2 * i + 1), |r| r.value(val))?;
                pairs.push((k, val));
            }
        }
        Ok(pairs)
    }

    fn vertex_property(&mut self, v: &'a Json) -> R<VertexProperty> {
        self.expect_object(v)?;
        let id = self.value_field(v, "id")?;
        let label = self.string_field(v, "label")?.to_owned();
        let value = self.value_field(v, "value")?;
        let mut properties = Vec::new();
        if let Some(props) = v.get("properties") {
            self.at_key("properties", |r| {
                match props {
                    Json::Object(members) => {
                        for (k, pv) in members {
                            let value = r.at_key(k, |r| r.value(pv))?;
                            properties.push(Property {
                                key: k.clone(),
                                value,
                            });
                        }
                    }
                    Json::Null => {}
                    other => {
                        return Err(r.err(format!("expected an object, found {}", other.kind())))
                    }
                }
                Ok(())
            })?;
        }
        Ok(VertexProperty {
            id,
            label,
            value,
            properties,
        })
    }

    fn label_or(&mut self, obj: &'a Json, key: &'a str, default: &str) -> R<String> {
        match obj.get(key) {
            None | Some(Json::Null) => Ok(default.to_owned()),
            Some(_) => Ok(self.string_field(obj, key)?.to_owned()),
        }
    }

    fn vertex(&mut self, v: &'a Json) -> R<Vertex> {
        self.expect_object(v)?;
        let id = self.value_field(v, "id")?;
        let label = self.label_or(v, "label", "vertex")?;
        let mut properties = Vec::new();
        if let Some(props) = v.get("properties") {
            self.at_key("properties", |r| {
                let members = match props {
                    Json::Object(m) => m,
                    Json::Null => return Ok(()),
                    other => {
                        return Err(r.err(format!("expected an object, found {}", other.kind())))
                    }
                };
                for (k, group) in members {
                    r.at_key(k, |r| {
                        for (i, item) in r.array_of(group)?.iter().enumerate() {
                            match r.at(Seg::Index(i), |r| r.value(item))? {
                                Wire::VertexProperty(vp) => properties.push(*vp),
                                other => {
                                    return Err(r.err(format!(
                                        "expected a g:VertexProperty, found {}",
                                        other.type_name()
                                    )))
                                }
                            }
                        }
                        Ok(())
                    })?;
                }
                Ok(())
            })?;
        }
        Ok(Vertex {
            id,
            label,
            properties,
        })
    }

    fn edge(&mut self, v: &'a Json) -> R<Edge> {
        self.expect_object(v)?;
        let id = self.value_field(v, "id")?;
        let label = self.label_or(v, "label", "edge")?;
        let in_v_id = self.value_field(v, "inV")?;
        let in_v_label = self.label_or(v, "inVLabel", "vertex")?;
        let out_v_id = self.value_field(v, "outV")?;
        let out_v_label = self.label_or(v, "outVLabel", "vertex")?;
        let mut properties = Vec::new();
        if let Some(props) = v.get("properties") {
            self.at_key("properties", |r| {
                let members = match props {
                    Json::Object(m) => m,
                    Json::Null => return Ok(()),
                    other => {
                        return Err(r.err(format!("expected an object, found {}", other.kind())))
                    }
                };
                for (k, pv) in members {
                    match r.at_key(k, |r| r.value(pv))? {
                        Wire::Property(p) => properties.push(*p),
                        // A bare value under its key, as untyped writers send.
                        value => properties.push(Property {
                            key: k.clone(),
                            value,
                        }),
                    }
                }
                Ok(())
            })?;
        }
        Ok(Edge {
            id,
            label,
            in_v_id,
            in_v_label,
            out_v_id,
            out_v_label,
            properties,
        })
    }

    fn path(&mut self, v: &'a Json) -> R<Path> {
        self.expect_object(v)?;
        let labels = match self.value_field(v, "labels")? {
            Wire::List(sets) => {
                let mut out = Vec::with_capacity(sets.len());
                for set in sets {
                    let items = match set {
                        Wire::Set(items) | Wire::List(items) => items,
                        other => {
                            return Err(self.err(format!(
                                "labels must be sets of strings, found {}",
                                other.type_name()
                            )))
                        }
                    };
                    let mut labels = Vec::with_capacity(items.len());
                    for l in items {
                        match l {
                            Wire::String(s) => labels.push(s),
                            other => {
                                return Err(self.err(format!(
                                    "a label must be a string, found {}",
                                    other.type_name()
                                )))
                            }
                        }
                    }
                    out.push(labels);
                }
                out
            }
            other => {
                return Err(self.err(format!(
                    "labels must be a list, found {}",
                    other.type_name()
                )))
            }
        };
        let objects = match self.value_field(v, "objects")? {
            Wire::List(items) => items,
            other => {
                return Err(self.err(format!(
                    "objects must be a list, found {}",
                    other.type_name()
                )))
            }
        };
        Ok(Path { labels, objects })
    }

    fn graph(&mut self, v: &'a Json) -> R<Graph> {
        self.expect_object(v)?;
        let mut vertices = Vec::new();
        let mut edges = Vec::new();
        if let Some(vs) = v.get("vertices") {
            self.at_key("vertices", |r| {
                for (i, item) in r.array_of(vs)?.iter().enumerate() {
                    match r.at(Seg::Index(i), |r| r.value(item))? {
                        Wire::Vertex(vx) => vertices.push(*vx),
                        other => {
                            return Err(
                                r.err(format!("expected a g:Vertex, found {}", other.type_name()))
                            )
                        }
                    }
                }
                Ok(())
            })?;
        }
        if let Some(es) = v.get("edges") {
            self.at_key("edges", |r| {
                for (i, item) in r.array_of(es)?.iter().enumerate() {
                    match r.at(Seg::Index(i), |r| r.value(item))? {
                        Wire::Edge(e) => edges.push(*e),
                        other => {
                            return Err(
                                r.err(format!("expected a g:Edge, found {}", other.type_name()))
                            )
                        }
                    }
                }
                Ok(())
            })?;
        }
        Ok(Graph { vertices, edges })
    }

    fn tree(&mut self, v: &'a Json) -> R<Tree> {
        let items = self.array_of(v)?;
        let mut branches = Vec::with_capacity(items.len());
        for (i, item) in items.iter().enumerate() {
            let branch = self.at(Seg::Index(i), |r| {
                r.expect_object(item)?;
                let key = r.value_field(item, "key")?;
                let sub = match r.value_field(item, "value")? {
                    Wire::Tree(t) => t,
                    Wire::Null => Tree::default(),
                    other => {
                        return Err(r.err(format!("expected a g:Tree, found {}", other.type_name())))
                    }
                };
                Ok((key, sub))
            })?;
            branches.push(branch);
        }
        Ok(Tree { branches })
    }

    /// `{"predicate": name, "value": ...}`: a plain array holds the
    /// arguments (`and`, `or`, `between`); for `within` and `without` a
    /// `g:List` holds them; otherwise the value is the one argument.
    fn predicate(&mut self, v: &'a Json) -> R<(String, Vec<Wire>)> {
        self.expect_object(v)?;
        let name = self.string_field(v, "predicate")?.to_owned();
        let value = self.field(v, "value")?;
        let values = self.at_key("value", |r| match value {
            Json::Array(items) => r.items(items),
            _ => match r.value(value)? {
                Wire::List(items) if name == "within" || name == "without" => Ok(items),
                single => Ok(vec![single]),
            },
        })?;
        Ok((name, values))
    }

    fn instructions(&mut self, v: &'a Json, key: &'a str) -> R<Vec<Instruction>> {
        let Some(list) = v.get(key) else {
            return Ok(Vec::new());
        };
        self.at_key(key, |r| {
            let list = r.array_of(list)?;
            let mut out = Vec::with_capacity(list.len());
            for (i, ins) in list.iter().enumerate() {
                let ins = r.at(Seg::Index(i), |r| {
                    let parts = r.array_of(ins)?;
                    let (op, args) = parts
                        .split_first()
                        .ok_or_else(|| r.err("an instruction needs an operator"))?;
                    let operator = r.at(Seg::Index(0), |r| r.str_of(op))?.to_owned();
                    let mut decoded = Vec::with_capacity(args.len());
                    for (j, a) in args.iter().enumerate() {
                        decoded.push(r.at(Seg::Index(j + 1), |r| r.value(a))?);
                    }
                    Ok(Instruction {
                        operator,
                        args: decoded,
                    })
                })?;
                out.push(ins);
            }
            Ok(out)
        })
    }

    fn strategy(&mut self, v: &'a Json) -> R<Wire> {
        let class = self.string_field(v, "fqcn")?.to_owned();
        let config = match v.get("conf") {
            None | Some(Json::Null) => Vec::new(),
            Some(c) => match self.at_key("conf", |r| r.value(c))? {
                Wire::Map(pairs) => pairs,
                other => {
                    return Err(self.err(format!("conf must be a map, found {}", other.type_name())))
                }
            },
        };
        Ok(Wire::TraversalStrategy { class, config })
    }

    fn lookup<'m>(fields: &'m [(String, Wire)], key: &str) -> Option<&'m Wire> {
        fields.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// A duration sent as milliseconds (a double), as nanoseconds.
    fn millis_field(&self, fields: &[(String, Wire)], key: &str) -> R<i64> {
        let ms = match Self::lookup(fields, key) {
            Some(Wire::Double(d)) => *d,
            Some(Wire::Float(f)) => f64::from(*f),
            Some(w) => match w.as_i64() {
                Some(n) => n as f64,
                None => {
                    return Err(
                        self.err(format!("{key:?} must be a number, found {}", w.type_name()))
                    )
                }
            },
            None => return Err(self.err(format!("missing {key:?}"))),
        };
        let nanos = (ms * 1e6).round();
        if !nanos.is_finite() || nanos.abs() >= 9.2e18 {
            return Err(self.err(format!("{key:?} of {ms} ms is out of range")));
        }
        Ok(nanos as i64)
    }

    fn metrics_field(&self, fields: &[(String, Wire)]) -> R<Vec<Metrics>> {
        match Self::lookup(fields, "metrics") {
            None | Some(Wire::Null) => Ok(Vec::new()),
            Some(Wire::List(items)) => items
                .iter()
                .map(|m| match m {
                    Wire::Metrics(m) => Ok((**m).clone()),
                    other => {
                        Err(self.err(format!("expected g:Metrics, found {}", other.type_name())))
                    }
                })
                .collect(),
            Some(other) => Err(self.err(format!(
                "metrics must be a list, found {}",
                other.type_name()
            ))),
        }
    }

    fn metrics(&mut self, v: &'a Json) -> R<Metrics> {
        let fields = self.string_map(v)?;
        let text = |key: &str| -> R<String> {
            match Self::lookup(&fields, key) {
                Some(Wire::String(s)) => Ok(s.clone()),
                Some(other) => Err(self.err(format!(
                    "{key:?} must be a string, found {}",
                    other.type_name()
                ))),
                None => Err(self.err(format!("missing {key:?}"))),
            }
        };
        let id = text("id")?;
        let name = text("name")?;
        let duration_nanos = self.millis_field(&fields, "dur")?;
        let mut counts = Vec::new();
        match Self::lookup(&fields, "counts") {
            None | Some(Wire::Null) => {}
            Some(Wire::Map(pairs)) => {
                for (k, c) in pairs {
                    match (k, c.as_i64()) {
                        (Wire::String(k), Some(n)) => counts.push((k.clone(), n)),
                        _ => return Err(self.err("counts must map strings to integers")),
                    }
                }
            }
            Some(other) => {
                return Err(self.err(format!("counts must be a map, found {}", other.type_name())))
            }
        }
        let annotations = match Self::lookup(&fields, "annotations") {
            None | Some(Wire::Null) => Vec::new(),
            Some(Wire::Map(pairs)) => pairs
                .iter()
                .map(|(k, a)| match k {
                    Wire::String(k) => Ok((k.clone(), a.clone())),
                    _ => Err(self.err("annotation names must be strings")),
                })
                .collect::<R<Vec<_>>>()?,
            Some(other) => {
                return Err(self.err(format!(
                    "annotations must be a map, found {}",
                    other.type_name()
                )))
            }
        };
        let nested = self.metrics_field(&fields)?;
        Ok(Metrics {
            id,
            name,
            duration_nanos,
            counts,
            annotations,
            nested,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_decimals_are_written_as_java_writes_them() {
        assert_eq!(big_decimal_text(2, 12345), "123.45");
        assert_eq!(big_decimal_text(0, -1), "-1");
        assert_eq!(big_decimal_text(-3, 7), "7E+3");
        assert_eq!(big_decimal_text(6, 1), "0.000001");
        assert_eq!(big_decimal_text(7, 1), "1E-7");
        assert_eq!(big_decimal_text(8, -15), "-1.5E-7");
        assert_eq!(big_decimal_text(3, 0), "0.000");
    }

    #[test]
    fn errors_name_the_path_and_type() {
        let e = decode(br#"{"@type":"g:List","@value":[1,{"@type":"g:Int32","@value":"x"}]}"#);
        assert_eq!(
            e.map_err(|e| e.to_string()),
            Err(
                "g:Int32 at $[\"@value\"][1][\"@value\"]: expected an integer, found a string"
                    .to_owned()
            )
        );
        let e = decode(br#"{"@type":"g:Nope","@value":1}"#);
        assert!(matches!(e, Err(DecodeError::UnknownGraphSonType { .. })));
    }
}
