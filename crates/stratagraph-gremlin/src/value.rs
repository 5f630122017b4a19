//! The values a traversal carries, and Gremlin's four ways of comparing
//! them (`spec/gremlin-semantics.asciidoc`):
//!
//! - *comparability* ([`compare`]): `P.lt/gt/...`; across types, or
//!   against `NaN`, there is no answer (`None`), which predicates read as
//!   false;
//! - *equality* ([`equals`]): `P.eq/neq`, `is`, `within`: numbers by value
//!   across types (`1 == 1.0`);
//! - *orderability* ([`order`]): `order()`: a total order over every value,
//!   types ranked, `NaN` after `+Infinity`;
//! - *equivalence* (`Eq` and `Hash` on [`GValue`]): `dedup()`, `group()`,
//!   sets and map keys: no type promotion (`1` and `1.0` differ), `NaN`
//!   equivalent to itself.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use stratagraph::{DateTime, EdgeId, VertexId};

use crate::ast::{DirectionToken, TToken};

/// A value in a traversal: a property value, a graph element, a path, a
/// collection, or one of Gremlin's enum tokens.
#[derive(Debug, Clone)]
pub enum GValue {
    /// `null`.
    Null,
    /// A boolean.
    Bool(bool),
    /// `Byte`.
    Int8(i8),
    /// `Short`.
    Int16(i16),
    /// `Integer`.
    Int32(i32),
    /// `Long`.
    Int64(i64),
    /// `BigInteger`, up to 128 bits here.
    BigInt(i128),
    /// `Float`.
    Float32(f32),
    /// `Double`.
    Float64(f64),
    /// `BigDecimal`, held as a double: exact decimals are rare in graphs,
    /// and the suite compares them by value.
    BigDecimal(f64),
    /// A string.
    String(Arc<str>),
    /// A UUID's 16 bytes.
    Uuid([u8; 16]),
    /// A date-time with offset.
    Date(DateTime),
    /// Bytes (`Binary`).
    Bytes(Arc<[u8]>),
    /// A list.
    List(Arc<Vec<GValue>>),
    /// A set, in insertion order, no two elements equivalent.
    Set(Arc<Vec<GValue>>),
    /// A map in insertion order, no two keys equivalent.
    Map(Arc<Vec<(GValue, GValue)>>),
    /// A vertex, by the engine's id.
    Vertex(VertexId),
    /// An edge.
    Edge(Arc<EdgeRef>),
    /// A vertex property: owner, key, value.
    VertexProperty(Arc<PropRef>),
    /// An edge property: owner, key, value.
    Property(Arc<PropRef>),
    /// A path.
    Path(Arc<Path>),
    /// `T.id`, `T.label`, ... (keys of `elementMap` and `valueMap(true)`).
    T(TToken),
    /// `Direction.OUT`, `IN` (keys of `elementMap` for an edge's ends).
    Direction(DirectionToken),
}

/// An edge as a traversal holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EdgeRef {
    /// Its id.
    pub id: EdgeId,
    /// Source vertex.
    pub src: VertexId,
    /// Destination vertex.
    pub dst: VertexId,
    /// Label.
    pub label: Arc<str>,
}

/// Whose property a [`GValue::VertexProperty`] or [`GValue::Property`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Owner {
    /// A vertex's.
    Vertex(VertexId),
    /// An edge's.
    Edge(EdgeId),
    /// A detached property (from `properties()` of a map, or an element
    /// since removed).
    None,
}

/// A property: where it belongs, its key and its value.
#[derive(Debug, Clone)]
pub struct PropRef {
    /// Its owner.
    pub owner: Owner,
    /// Its key.
    pub key: Arc<str>,
    /// Its value.
    pub value: GValue,
}

/// A path: the objects a traverser passed, each with the step labels
/// (`as`) it was given there.
#[derive(Debug, Clone, Default)]
pub struct Path {
    /// In order from the start.
    pub entries: Vec<(Vec<Arc<str>>, GValue)>,
}

impl Path {
    /// The objects without labels.
    pub fn objects(&self) -> impl Iterator<Item = &GValue> {
        self.entries.iter().map(|(_, v)| v)
    }
}

impl GValue {
    /// A string value.
    pub fn str(s: &str) -> GValue {
        GValue::String(Arc::from(s))
    }

    /// A list value.
    pub fn list(items: Vec<GValue>) -> GValue {
        GValue::List(Arc::new(items))
    }

    /// A set of `items`, keeping the first of equivalent ones.
    pub fn set(items: impl IntoIterator<Item = GValue>) -> GValue {
        let mut seen = rustc_hash::FxHashSet::default();
        let mut out = Vec::new();
        for v in items {
            if seen.insert(v.clone()) {
                out.push(v);
            }
        }
        GValue::Set(Arc::new(out))
    }

    /// A map of `pairs`; a later pair replaces an earlier equivalent key's
    /// value in place.
    pub fn map(pairs: impl IntoIterator<Item = (GValue, GValue)>) -> GValue {
        let mut index: rustc_hash::FxHashMap<GValue, usize> = Default::default();
        let mut out: Vec<(GValue, GValue)> = Vec::new();
        for (k, v) in pairs {
            match index.get(&k) {
                Some(&i) => out[i].1 = v,
                None => {
                    index.insert(k.clone(), out.len());
                    out.push((k, v));
                }
            }
        }
        GValue::Map(Arc::new(out))
    }

    /// Whether this is a number of any type.
    pub fn is_number(&self) -> bool {
        matches!(
            self,
            GValue::Int8(_)
                | GValue::Int16(_)
                | GValue::Int32(_)
                | GValue::Int64(_)
                | GValue::BigInt(_)
                | GValue::Float32(_)
                | GValue::Float64(_)
                | GValue::BigDecimal(_)
        )
    }

    /// The name of this value's type, for error messages (Java's class
    /// names, as TinkerPop's messages use them).
    pub fn type_name(&self) -> &'static str {
        match self {
            GValue::Null => "null",
            GValue::Bool(_) => "Boolean",
            GValue::Int8(_) => "Byte",
            GValue::Int16(_) => "Short",
            GValue::Int32(_) => "Integer",
            GValue::Int64(_) => "Long",
            GValue::BigInt(_) => "BigInteger",
            GValue::Float32(_) => "Float",
            GValue::Float64(_) => "Double",
            GValue::BigDecimal(_) => "BigDecimal",
            GValue::String(_) => "String",
            GValue::Uuid(_) => "UUID",
            GValue::Date(_) => "OffsetDateTime",
            GValue::Bytes(_) => "byte[]",
            GValue::List(_) => "List",
            GValue::Set(_) => "Set",
            GValue::Map(_) => "Map",
            GValue::Vertex(_) => "Vertex",
            GValue::Edge(_) => "Edge",
            GValue::VertexProperty(_) => "VertexProperty",
            GValue::Property(_) => "Property",
            GValue::Path(_) => "Path",
            GValue::T(_) => "T",
            GValue::Direction(_) => "Direction",
        }
    }

    /// The rank of this value's type in the total order of
    /// orderability.
    fn type_rank(&self) -> u8 {
        match self {
            GValue::Null => 0,
            GValue::Bool(_) => 1,
            v if v.is_number() => 2,
            GValue::Date(_) => 3,
            GValue::String(_) => 4,
            GValue::Uuid(_) => 5,
            GValue::Vertex(_) => 6,
            GValue::Edge(_) => 7,
            GValue::VertexProperty(_) => 8,
            GValue::Property(_) => 9,
            GValue::Path(_) => 10,
            GValue::Set(_) => 11,
            GValue::List(_) => 12,
            GValue::Map(_) => 13,
            GValue::Bytes(_) => 14,
            GValue::T(_) => 15,
            GValue::Direction(_) => 16,
            _ => 17,
        }
    }
}

/// A number widened for comparison and arithmetic.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Num {
    /// Any integer type.
    Int(i128),
    /// Any floating type.
    Float(f64),
}

impl GValue {
    /// This number widened, or `None` for a non-number.
    pub(crate) fn num(&self) -> Option<Num> {
        Some(match *self {
            GValue::Int8(v) => Num::Int(v.into()),
            GValue::Int16(v) => Num::Int(v.into()),
            GValue::Int32(v) => Num::Int(v.into()),
            GValue::Int64(v) => Num::Int(v.into()),
            GValue::BigInt(v) => Num::Int(v),
            GValue::Float32(v) => Num::Float(v.into()),
            GValue::Float64(v) | GValue::BigDecimal(v) => Num::Float(v),
            _ => return None,
        })
    }

    /// This number as a double (lossy for big integers).
    pub fn as_f64(&self) -> Option<f64> {
        self.num().map(|n| match n {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        })
    }

    /// This number as an integer if it is one of the integer types.
    pub fn as_i64(&self) -> Option<i64> {
        match self.num()? {
            Num::Int(i) => i64::try_from(i).ok(),
            Num::Float(_) => None,
        }
    }
}

fn cmp_nums(a: Num, b: Num) -> Option<Ordering> {
    match (a, b) {
        (Num::Int(x), Num::Int(y)) => Some(x.cmp(&y)),
        (Num::Int(x), Num::Float(y)) => (x as f64).partial_cmp(&y),
        (Num::Float(x), Num::Int(y)) => x.partial_cmp(&(y as f64)),
        (Num::Float(x), Num::Float(y)) => x.partial_cmp(&y),
    }
}

fn date_key(d: &DateTime) -> (i64, u32) {
    (d.seconds, d.nanos)
}

/// Comparability: the order of `a` and `b` if they can be compared, `None`
/// across types or against `NaN`.
pub fn compare(a: &GValue, b: &GValue) -> Option<Ordering> {
    use GValue::*;
    match (a, b) {
        (Null, Null) => Some(Ordering::Equal),
        (Bool(x), Bool(y)) => Some(x.cmp(y)),
        (String(x), String(y)) => Some(x.cmp(y)),
        (Uuid(x), Uuid(y)) => Some(x.cmp(y)),
        (Date(x), Date(y)) => Some(date_key(x).cmp(&date_key(y))),
        (Bytes(x), Bytes(y)) => Some(x.cmp(y)),
        (Vertex(x), Vertex(y)) => Some(x.cmp(y)),
        (Edge(x), Edge(y)) => Some(x.id.cmp(&y.id)),
        (VertexProperty(x), VertexProperty(y)) | (Property(x), Property(y)) => {
            match x.key.cmp(&y.key) {
                Ordering::Equal => compare(&x.value, &y.value),
                o => Some(o),
            }
        }
        (List(x), List(y)) => compare_seq(x.iter(), y.iter(), compare),
        (Path(x), Path(y)) => compare_seq(x.objects(), y.objects(), compare),
        (Set(x), Set(y)) => {
            let (x, y) = (sorted(x), sorted(y));
            compare_seq(x.iter(), y.iter(), compare)
        }
        (Map(x), Map(y)) => {
            let (x, y) = (sorted_entries(x), sorted_entries(y));
            compare_seq(x.iter(), y.iter(), |p, q| match compare(&p.0, &q.0)? {
                Ordering::Equal => compare(&p.1, &q.1),
                o => Some(o),
            })
        }
        (T(x), T(y)) => (x == y).then_some(Ordering::Equal),
        (Direction(x), Direction(y)) => (x == y).then_some(Ordering::Equal),
        _ => cmp_nums(a.num()?, b.num()?),
    }
}

fn compare_seq<'v, T: 'v>(
    mut a: impl Iterator<Item = &'v T>,
    mut b: impl Iterator<Item = &'v T>,
    f: impl Fn(&T, &T) -> Option<Ordering>,
) -> Option<Ordering> {
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Some(Ordering::Equal),
            (None, Some(_)) => return Some(Ordering::Less),
            (Some(_), None) => return Some(Ordering::Greater),
            (Some(x), Some(y)) => match f(x, y)? {
                Ordering::Equal => {}
                o => return Some(o),
            },
        }
    }
}

fn sorted(items: &[GValue]) -> Vec<GValue> {
    let mut v = items.to_vec();
    v.sort_by(order);
    v
}

fn sorted_entries(items: &[(GValue, GValue)]) -> Vec<(GValue, GValue)> {
    let mut v = items.to_vec();
    v.sort_by(|p, q| order(&p.0, &q.0).then_with(|| order(&p.1, &q.1)));
    v
}

/// Equality: `P.eq`. Numbers equal by value across types; `NaN` equals
/// nothing; `null` equals only `null`.
pub fn equals(a: &GValue, b: &GValue) -> bool {
    compare(a, b) == Some(Ordering::Equal)
}

/// Orderability: a total order over all values, for `order()`.
pub fn order(a: &GValue, b: &GValue) -> Ordering {
    use GValue::*;
    let (ra, rb) = (a.type_rank(), b.type_rank());
    if ra != rb {
        return ra.cmp(&rb);
    }
    match (a, b) {
        (VertexProperty(x), VertexProperty(y)) | (Property(x), Property(y)) => {
            x.key.cmp(&y.key).then_with(|| order(&x.value, &y.value))
        }
        (List(x), List(y)) => order_seq(x.iter(), y.iter()),
        (Path(x), Path(y)) => order_seq(x.objects(), y.objects()),
        (Set(x), Set(y)) => order_seq(sorted(x).iter(), sorted(y).iter()),
        (Map(x), Map(y)) => {
            let (x, y) = (sorted_entries(x), sorted_entries(y));
            let mut i = x.iter().zip(y.iter());
            i.find_map(|(p, q)| {
                let o = order(&p.0, &q.0).then_with(|| order(&p.1, &q.1));
                (o != Ordering::Equal).then_some(o)
            })
            .unwrap_or_else(|| x.len().cmp(&y.len()))
        }
        (T(x), T(y)) => (*x as u8).cmp(&(*y as u8)),
        (Direction(x), Direction(y)) => (*x as u8).cmp(&(*y as u8)),
        _ => match (a.num(), b.num()) {
            (Some(x), Some(y)) => order_nums(x, y),
            _ => compare(a, b).unwrap_or(Ordering::Equal),
        },
    }
}

fn order_nums(a: Num, b: Num) -> Ordering {
    let nan = |n: Num| matches!(n, Num::Float(f) if f.is_nan());
    match (nan(a), nan(b)) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        (false, false) => cmp_nums(a, b).unwrap_or(Ordering::Equal),
    }
}

fn order_seq<'v>(
    mut a: impl Iterator<Item = &'v GValue>,
    mut b: impl Iterator<Item = &'v GValue>,
) -> Ordering {
    loop {
        match (a.next(), b.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => match order(x, y) {
                Ordering::Equal => {}
                o => return o,
            },
        }
    }
}

/// Equivalence: what `dedup()` and `group()` treat as the same. No type
/// promotion; `NaN` is equivalent to `NaN`; `-0.0` to `0.0`.
impl PartialEq for GValue {
    fn eq(&self, other: &GValue) -> bool {
        use GValue::*;
        let feq = |x: f64, y: f64| (x.is_nan() && y.is_nan()) || x == y;
        match (self, other) {
            (Null, Null) => true,
            (Bool(x), Bool(y)) => x == y,
            (Int8(x), Int8(y)) => x == y,
            (Int16(x), Int16(y)) => x == y,
            (Int32(x), Int32(y)) => x == y,
            (Int64(x), Int64(y)) => x == y,
            (BigInt(x), BigInt(y)) => x == y,
            (Float32(x), Float32(y)) => feq((*x).into(), (*y).into()),
            (Float64(x), Float64(y)) | (BigDecimal(x), BigDecimal(y)) => feq(*x, *y),
            (String(x), String(y)) => x == y,
            (Uuid(x), Uuid(y)) => x == y,
            (Date(x), Date(y)) => date_key(x) == date_key(y),
            (Bytes(x), Bytes(y)) => x == y,
            (List(x), List(y)) => x == y,
            (Set(x), Set(y)) => x.len() == y.len() && x.iter().all(|v| y.contains(v)),
            (Map(x), Map(y)) => {
                x.len() == y.len()
                    && x.iter()
                        .all(|(k, v)| y.iter().any(|(k2, v2)| k == k2 && v == v2))
            }
            (Vertex(x), Vertex(y)) => x == y,
            (Edge(x), Edge(y)) => x.id == y.id,
            (VertexProperty(x), VertexProperty(y)) | (Property(x), Property(y)) => {
                x.owner == y.owner && x.key == y.key && x.value == y.value
            }
            (Path(x), Path(y)) => {
                x.entries.len() == y.entries.len()
                    && x.entries
                        .iter()
                        .zip(&y.entries)
                        .all(|(p, q)| p.0 == q.0 && p.1 == q.1)
            }
            (T(x), T(y)) => x == y,
            (Direction(x), Direction(y)) => x == y,
            _ => false,
        }
    }
}

impl Eq for GValue {}

impl Hash for GValue {
    fn hash<H: Hasher>(&self, h: &mut H) {
        use GValue::*;
        let fbits = |f: f64| {
            if f.is_nan() {
                u64::MAX
            } else if f == 0.0 {
                0
            } else {
                f.to_bits()
            }
        };
        std::mem::discriminant(self).hash(h);
        match self {
            Null => {}
            Bool(x) => x.hash(h),
            Int8(x) => x.hash(h),
            Int16(x) => x.hash(h),
            Int32(x) => x.hash(h),
            Int64(x) => x.hash(h),
            BigInt(x) => x.hash(h),
            Float32(x) => fbits((*x).into()).hash(h),
            Float64(x) | BigDecimal(x) => fbits(*x).hash(h),
            String(x) => x.hash(h),
            Uuid(x) => x.hash(h),
            Date(x) => date_key(x).hash(h),
            Bytes(x) => x.hash(h),
            List(x) => x.hash(h),
            // Order-independent: equivalent sets and maps hash alike.
            Set(x) => x.iter().map(hash_one).fold(0u64, u64::wrapping_add).hash(h),
            Map(x) => x
                .iter()
                .map(|(k, v)| hash_one(k).wrapping_mul(31).wrapping_add(hash_one(v)))
                .fold(0u64, u64::wrapping_add)
                .hash(h),
            Vertex(x) => x.hash(h),
            Edge(x) => x.id.hash(h),
            VertexProperty(x) | Property(x) => {
                x.owner.hash(h);
                x.key.hash(h);
                x.value.hash(h);
            }
            Path(x) => {
                for (labels, v) in &x.entries {
                    labels.hash(h);
                    v.hash(h);
                }
            }
            T(x) => x.hash(h),
            Direction(x) => x.hash(h),
        }
    }
}

fn hash_one(v: &GValue) -> u64 {
    let mut h = rustc_hash::FxHasher::default();
    v.hash(&mut h);
    h.finish()
}

impl fmt::Display for GValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use GValue::*;
        match self {
            Null => write!(f, "null"),
            Bool(x) => write!(f, "{x}"),
            Int8(x) => write!(f, "{x}"),
            Int16(x) => write!(f, "{x}"),
            Int32(x) => write!(f, "{x}"),
            Int64(x) => write!(f, "{x}"),
            BigInt(x) => write!(f, "{x}"),
            Float32(x) => write!(f, "{x:?}"),
            Float64(x) | BigDecimal(x) => write!(f, "{x:?}"),
            String(x) => write!(f, "{x}"),
            Uuid(x) => write!(f, "{}", uuid_text(x)),
            Date(d) => write!(f, "{}", date_text(d)),
            Bytes(x) => write!(f, "{x:?}"),
            List(x) | Set(x) => {
                write!(f, "[")?;
                for (i, v) in x.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "]")
            }
            Map(x) => {
                write!(f, "{{")?;
                for (i, (k, v)) in x.iter().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{k}={v}")?;
                }
                write!(f, "}}")
            }
            Vertex(v) => write!(f, "v[{v}]"),
            Edge(e) => write!(f, "e[{}][{}-{}->{}]", e.id, e.src, e.label, e.dst),
            VertexProperty(p) => write!(f, "vp[{}->{}]", p.key, p.value),
            Property(p) => write!(f, "p[{}->{}]", p.key, p.value),
            Path(p) => {
                write!(f, "path[")?;
                for (i, v) in p.objects().enumerate() {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    write!(f, "{v}")?;
                }
                write!(f, "]")
            }
            T(t) => write!(f, "{}", t_name(*t)),
            Direction(d) => write!(f, "{}", direction_name(*d)),
        }
    }
}

/// `id`, `label`, `key`, `value`.
pub fn t_name(t: TToken) -> &'static str {
    match t {
        TToken::Id => "id",
        TToken::Label => "label",
        TToken::Key => "key",
        TToken::Value => "value",
    }
}

/// `OUT`, `IN`, `BOTH`.
pub fn direction_name(d: DirectionToken) -> &'static str {
    match d {
        DirectionToken::Out => "OUT",
        DirectionToken::In => "IN",
        DirectionToken::Both => "BOTH",
    }
}

/// The canonical 36-character form of a UUID.
pub fn uuid_text(b: &[u8; 16]) -> String {
    let mut s = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{byte:02x}"));
    }
    s
}

/// ISO-8601 text of a date-time, as Java's `OffsetDateTime.toString()`.
pub fn date_text(d: &DateTime) -> String {
    let local = d.seconds + i64::from(d.offset_seconds);
    let days = local.div_euclid(86_400);
    let secs = local.rem_euclid(86_400);
    let (y, m, day) = civil_from_days(days);
    let (hh, mm, ss) = (secs / 3600, secs / 60 % 60, secs % 60);
    let mut s = format!("{y:04}-{m:02}-{day:02}T{hh:02}:{mm:02}");
    if ss != 0 || d.nanos != 0 {
        s.push_str(&format!(":{ss:02}"));
    }
    if d.nanos != 0 {
        let mut frac = format!("{:09}", d.nanos);
        while frac.ends_with("000") {
            frac.truncate(frac.len() - 3);
        }
        s.push('.');
        s.push_str(&frac);
    }
    if d.offset_seconds == 0 {
        s.push('Z');
    } else {
        let o = d.offset_seconds.abs();
        let sign = if d.offset_seconds < 0 { '-' } else { '+' };
        s.push_str(&format!("{sign}{:02}:{:02}", o / 3600, o / 60 % 60));
    }
    s
}

/// Days since 1970-01-01 to (year, month, day), after Howard Hinnant's
/// `civil_from_days`.
pub(crate) fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// (year, month, day) to days since 1970-01-01.
pub(crate) fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_compare_across_types_but_are_not_equivalent() {
        assert!(equals(&GValue::Int32(1), &GValue::Float64(1.0)));
        assert_ne!(GValue::Int32(1), GValue::Float64(1.0));
        assert!(!equals(
            &GValue::Float64(f64::NAN),
            &GValue::Float64(f64::NAN)
        ));
        assert_eq!(GValue::Float64(f64::NAN), GValue::Float64(f64::NAN));
        assert_eq!(compare(&GValue::Int32(1), &GValue::str("a")), None);
        assert!(equals(&GValue::Null, &GValue::Null));
    }

    #[test]
    fn order_ranks_types_and_puts_nan_last_among_numbers() {
        let mut v = [
            GValue::str("a"),
            GValue::Float64(f64::NAN),
            GValue::Float64(f64::INFINITY),
            GValue::Null,
            GValue::Int32(3),
            GValue::Bool(true),
        ];
        v.sort_by(order);
        let text: Vec<String> = v.iter().map(|x| x.to_string()).collect();
        assert_eq!(text, ["null", "true", "3", "inf", "NaN", "a"]);
    }

    #[test]
    fn sets_and_maps_compare_regardless_of_order() {
        let a = GValue::set([GValue::Int32(1), GValue::Int32(2)]);
        let b = GValue::set([GValue::Int32(2), GValue::Int32(1)]);
        assert_eq!(a, b);
        assert!(equals(&a, &b));
        let c = GValue::set([GValue::Float64(1.0), GValue::Float64(2.0)]);
        assert!(equals(&a, &c));
        assert_ne!(a, c);
    }

    #[test]
    fn civil_dates_round_trip() {
        for days in [-800_000, -1, 0, 1, 10_957, 19_000, 2_932_896] {
            let (y, m, d) = civil_from_days(days);
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(19_571), (2023, 8, 2));
    }
}
