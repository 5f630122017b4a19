//! Typed property values as Arrow columns, and back.
//!
//! A property graph types its values per element, not per key: one vertex
//! may hold `age` as an Int32 and another as a String. Arrow types per
//! column. So a column takes the Arrow type that holds every value it
//! carries exactly ([`Kind::of`], joined over the column), and a column
//! whose values share no such type keeps each value in the engine's own
//! encoding (`docs/FORMAT.md` §5) in a binary column marked
//! [`ENCODING_KEY`]`=`[`ENCODED`]. Reading back gives the same typed values
//! either way: an Int32 29 stays an Int32, a set stays a set.

use arrow_array::builder::{
    BinaryBuilder, BooleanBuilder, FixedSizeBinaryBuilder, Float32Builder, Float64Builder,
    Int16Builder, Int32Builder, Int64Builder, Int8Builder, ListBuilder, StringBuilder,
    TimestampNanosecondBuilder,
};
use arrow_array::cast::AsArray;
use arrow_array::types::{
    Date32Type, Date64Type, Float32Type, Float64Type, Int16Type, Int32Type, Int64Type, Int8Type,
    TimestampMicrosecondType, TimestampMillisecondType, TimestampNanosecondType,
    TimestampSecondType, UInt16Type, UInt32Type, UInt64Type, UInt8Type,
};
use arrow_array::{Array, ArrayRef};
use arrow_schema::{DataType, Field, TimeUnit};
use std::collections::HashMap;
use std::sync::Arc;
use stratagraph::{DateTime, Value};

/// Field metadata key saying how a column's values are kept.
pub const ENCODING_KEY: &str = "stratagraph.encoding";
/// [`ENCODING_KEY`]'s value for a binary column of engine-encoded values.
pub const ENCODED: &str = "value";
/// [`ENCODING_KEY`]'s value for a list column that holds sets.
pub const SET: &str = "set";
/// Arrow's canonical extension name for a UUID column
/// (FixedSizeBinary(16)).
const UUID_EXTENSION: &str = "arrow.uuid";
const EXTENSION_KEY: &str = "ARROW:extension:name";

/// A scalar type a column (or a list column's elements) can hold natively.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scalar {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    Float32,
    Float64,
    String,
    Bytes,
    Uuid,
}

/// The Arrow shape of one property column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// No value seen yet (or only empty lists' elements).
    Unknown,
    Scalar(Scalar),
    /// Date-times that share one offset from UTC, as a timestamp in
    /// nanoseconds with that offset as its time zone.
    DateTime {
        offset_seconds: i32,
    },
    /// Lists whose elements are all of one scalar type (`None`: only empty
    /// lists seen so far).
    List(Option<Scalar>),
    /// Sets, as lists marked [`SET`].
    Set(Option<Scalar>),
    /// Engine-encoded values in a binary column.
    Encoded,
}

impl Kind {
    /// The narrowest kind that holds `v` exactly.
    pub fn of(v: &Value) -> Kind {
        if let Some(s) = scalar_of(v) {
            return Kind::Scalar(s);
        }
        match v {
            Value::DateTime(d) if nanos_of(d).is_some() && d.offset_seconds % 60 == 0 => {
                Kind::DateTime {
                    offset_seconds: d.offset_seconds,
                }
            }
            Value::List(items) => elements(items).map_or(Kind::Encoded, Kind::List),
            Value::Set(items) => elements(items).map_or(Kind::Encoded, Kind::Set),
            _ => Kind::Encoded,
        }
    }

    /// The narrowest kind that holds what both `self` and `other` hold.
    pub fn join(self, other: Kind) -> Kind {
        use Kind::*;
        match (self, other) {
            (Unknown, k) | (k, Unknown) => k,
            (a, b) if a == b => a,
            (List(a), List(b)) => join_elements(a, b).map_or(Encoded, List),
            (Set(a), Set(b)) => join_elements(a, b).map_or(Encoded, Set),
            _ => Encoded,
        }
    }

    /// The Arrow field for a column of this kind named `name`.
    pub fn field(self, name: &str) -> Field {
        let (ty, meta): (DataType, Option<(&str, &str)>) = match self {
            Kind::Unknown => (DataType::Null, None),
            Kind::Scalar(s) => (scalar_type(s), uuid_meta(s)),
            Kind::DateTime { offset_seconds } => (
                DataType::Timestamp(TimeUnit::Nanosecond, Some(zone_name(offset_seconds).into())),
                None,
            ),
            Kind::List(e) => (list_type(e), None),
            Kind::Set(e) => (list_type(e), Some((ENCODING_KEY, SET))),
            Kind::Encoded => (DataType::Binary, Some((ENCODING_KEY, ENCODED))),
        };
        let field = Field::new(name, ty, true);
        match meta {
            Some((k, v)) => field.with_metadata(HashMap::from([(k.to_owned(), v.to_owned())])),
            None => field,
        }
    }

    /// A column of this kind holding `values` (`None`: no value in that
    /// row). Every value must be one [`Kind::of`] joins into `self`;
    /// anything else is written as a null (it cannot happen when the kind
    /// was joined over the same values).
    pub fn build<'a>(self, values: impl ExactSizeIterator<Item = Option<&'a Value>>) -> ArrayRef {
        let n = values.len();
        match self {
            Kind::Unknown => Arc::new(arrow_array::NullArray::new(n)),
            Kind::Scalar(s) => build_scalar(s, values),
            Kind::DateTime { offset_seconds } => {
                let mut b = TimestampNanosecondBuilder::with_capacity(n)
                    .with_timezone(zone_name(offset_seconds));
                for v in values {
                    b.append_option(match v {
                        Some(Value::DateTime(d)) => nanos_of(d),
                        _ => None,
                    });
                }
                Arc::new(b.finish())
            }
            Kind::List(e) | Kind::Set(e) => build_list(e.unwrap_or(Scalar::Int64), values),
            Kind::Encoded => {
                let mut b = BinaryBuilder::with_capacity(n, n * 8);
                let mut buf = Vec::new();
                for v in values {
                    buf.clear();
                    match v.map(|v| v.encode(&mut buf)) {
                        Some(Ok(())) => b.append_value(&buf),
                        _ => b.append_null(),
                    }
                }
                Arc::new(b.finish())
            }
        }
    }
}

/// The property keys of a set of elements in first-seen order, each with
/// the kind its values join to: the property columns of a table.
#[derive(Debug, Default)]
pub struct KeyKinds {
    at: HashMap<Arc<str>, usize>,
    keys: Vec<(Arc<str>, Kind)>,
}

impl KeyKinds {
    /// Counts `value` into `key`'s column.
    pub fn add(&mut self, key: &Arc<str>, value: &Value) {
        let i = match self.at.get(&**key) {
            Some(&i) => i,
            None => {
                self.keys.push((key.clone(), Kind::Unknown));
                self.at.insert(key.clone(), self.keys.len() - 1);
                self.keys.len() - 1
            }
        };
        self.keys[i].1 = self.keys[i].1.join(Kind::of(value));
    }

    /// The keys, in first-seen order.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.keys.iter().map(|(k, _)| &**k)
    }

    /// One field per key.
    pub fn fields(&self) -> Vec<Field> {
        self.keys.iter().map(|(k, kind)| kind.field(k)).collect()
    }

    /// Empty columns for `n` rows.
    pub fn rows(&self, n: usize) -> Rows {
        Rows {
            at: self.at.clone(),
            cols: vec![vec![None; n]; self.keys.len()],
        }
    }
}

/// Property values by key and row, gathered before the columns are built.
#[derive(Debug)]
pub struct Rows {
    at: HashMap<Arc<str>, usize>,
    cols: Vec<Vec<Option<Value>>>,
}

impl Rows {
    /// Sets `key`'s value in `row` (a key the kinds do not know is
    /// skipped: it cannot occur when they were gathered from the same
    /// elements).
    pub fn set(&mut self, key: &str, row: usize, value: Value) {
        if let Some(&i) = self.at.get(key) {
            if let Some(slot) = self.cols[i].get_mut(row) {
                *slot = Some(value);
            }
        }
    }

    /// Makes room for `n` rows.
    pub fn grow(&mut self, n: usize) {
        for c in &mut self.cols {
            c.resize(n, None);
        }
    }

    /// The columns, in the order of `kinds`' fields.
    pub fn build(self, kinds: &KeyKinds) -> Vec<ArrayRef> {
        self.cols
            .iter()
            .zip(&kinds.keys)
            .map(|(col, (_, kind))| kind.build(col.iter().map(Option::as_ref)))
            .collect()
    }
}

fn scalar_of(v: &Value) -> Option<Scalar> {
    Some(match v {
        Value::Bool(_) => Scalar::Bool,
        Value::Int8(_) => Scalar::Int8,
        Value::Int16(_) => Scalar::Int16,
        Value::Int32(_) => Scalar::Int32,
        Value::Int64(_) => Scalar::Int64,
        Value::Float32(_) => Scalar::Float32,
        Value::Float64(_) => Scalar::Float64,
        Value::String(_) => Scalar::String,
        Value::Bytes(_) => Scalar::Bytes,
        Value::Uuid(_) => Scalar::Uuid,
        _ => return None,
    })
}

/// The one scalar type of `items` (`Some(None)` if empty); `None` if they
/// are not all one scalar type.
fn elements(items: &[Value]) -> Option<Option<Scalar>> {
    let mut seen = None;
    for v in items {
        let s = scalar_of(v)?;
        match seen {
            None => seen = Some(s),
            Some(t) if t == s => {}
            Some(_) => return None,
        }
    }
    Some(seen)
}

fn join_elements(a: Option<Scalar>, b: Option<Scalar>) -> Option<Option<Scalar>> {
    match (a, b) {
        (None, x) | (x, None) => Some(x),
        (Some(x), Some(y)) => (x == y).then_some(Some(x)),
    }
}

fn scalar_type(s: Scalar) -> DataType {
    match s {
        Scalar::Bool => DataType::Boolean,
        Scalar::Int8 => DataType::Int8,
        Scalar::Int16 => DataType::Int16,
        Scalar::Int32 => DataType::Int32,
        Scalar::Int64 => DataType::Int64,
        Scalar::Float32 => DataType::Float32,
        Scalar::Float64 => DataType::Float64,
        Scalar::String => DataType::Utf8,
        Scalar::Bytes => DataType::Binary,
        Scalar::Uuid => DataType::FixedSizeBinary(16),
    }
}

fn uuid_meta(s: Scalar) -> Option<(&'static str, &'static str)> {
    (s == Scalar::Uuid).then_some((EXTENSION_KEY, UUID_EXTENSION))
}

fn element_field(e: Option<Scalar>) -> Field {
    let s = e.unwrap_or(Scalar::Int64);
    let field = Field::new("item", scalar_type(s), true);
    match uuid_meta(s) {
        Some((k, v)) => field.with_metadata(HashMap::from([(k.to_owned(), v.to_owned())])),
        None => field,
    }
}

fn list_type(e: Option<Scalar>) -> DataType {
    DataType::List(Arc::new(element_field(e)))
}

/// `+HH:MM` for an offset of whole minutes (Arrow's fixed-offset zone).
fn zone_name(offset_seconds: i32) -> String {
    let sign = if offset_seconds < 0 { '-' } else { '+' };
    let m = offset_seconds.unsigned_abs() / 60;
    format!("{sign}{:02}:{:02}", m / 60, m % 60)
}

/// The offset a zone name gives: `+HH:MM`, `-HH:MM`, `+HHMM`, `UTC`, `Z`.
/// A named zone (`Europe/Paris`) has no one offset; `None`.
fn zone_offset(zone: &str) -> Option<i32> {
    if matches!(zone, "UTC" | "Z" | "utc" | "Etc/UTC" | "GMT") {
        return Some(0);
    }
    let (sign, rest) = match zone.as_bytes().first()? {
        b'+' => (1, &zone[1..]),
        b'-' => (-1, &zone[1..]),
        _ => return None,
    };
    let digits: String = rest.chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let h: i32 = digits[..2].parse().ok()?;
    let m: i32 = digits[2..].parse().ok()?;
    Some(sign * (h * 3600 + m * 60))
}

/// Nanoseconds since the epoch, if they fit an `i64` (years 1677-2262).
fn nanos_of(d: &DateTime) -> Option<i64> {
    d.seconds
        .checked_mul(1_000_000_000)?
        .checked_add(i64::from(d.nanos))
}

fn build_scalar<'a>(
    s: Scalar,
    values: impl ExactSizeIterator<Item = Option<&'a Value>>,
) -> ArrayRef {
    let n = values.len();
    macro_rules! prim {
        ($builder:ty, $variant:ident) => {{
            let mut b = <$builder>::with_capacity(n);
            for v in values {
                b.append_option(match v {
                    Some(Value::$variant(x)) => Some(*x),
                    _ => None,
                });
            }
            Arc::new(b.finish()) as ArrayRef
        }};
    }
    match s {
        Scalar::Bool => prim!(BooleanBuilder, Bool),
        Scalar::Int8 => prim!(Int8Builder, Int8),
        Scalar::Int16 => prim!(Int16Builder, Int16),
        Scalar::Int32 => prim!(Int32Builder, Int32),
        Scalar::Int64 => prim!(Int64Builder, Int64),
        Scalar::Float32 => prim!(Float32Builder, Float32),
        Scalar::Float64 => prim!(Float64Builder, Float64),
        Scalar::String => {
            let mut b = StringBuilder::with_capacity(n, n * 8);
            for v in values {
                match v {
                    Some(Value::String(x)) => b.append_value(x),
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        Scalar::Bytes => {
            let mut b = BinaryBuilder::with_capacity(n, n * 8);
            for v in values {
                match v {
                    Some(Value::Bytes(x)) => b.append_value(x),
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
        Scalar::Uuid => {
            let mut b = FixedSizeBinaryBuilder::with_capacity(n, 16);
            for v in values {
                match v {
                    // A 16-byte value into a 16-byte column cannot fail.
                    Some(Value::Uuid(x)) => b.append_value(x).unwrap_or_else(|_| b.append_null()),
                    _ => b.append_null(),
                }
            }
            Arc::new(b.finish())
        }
    }
}

fn build_list<'a>(e: Scalar, values: impl ExactSizeIterator<Item = Option<&'a Value>>) -> ArrayRef {
    macro_rules! list {
        ($builder:expr, |$b:ident, $item:ident| $append:expr) => {{
            let mut lb = ListBuilder::new($builder).with_field(Arc::new(element_field(Some(e))));
            for v in values {
                match v {
                    Some(Value::List(items) | Value::Set(items)) => {
                        for $item in items {
                            let $b = lb.values();
                            $append;
                        }
                        lb.append(true);
                    }
                    _ => lb.append(false),
                }
            }
            Arc::new(lb.finish()) as ArrayRef
        }};
    }
    macro_rules! prim {
        ($builder:ty, $variant:ident) => {
            list!(<$builder>::new(), |b, item| b.append_option(match item {
                Value::$variant(x) => Some(*x),
                _ => None,
            }))
        };
    }
    match e {
        Scalar::Bool => prim!(BooleanBuilder, Bool),
        Scalar::Int8 => prim!(Int8Builder, Int8),
        Scalar::Int16 => prim!(Int16Builder, Int16),
        Scalar::Int32 => prim!(Int32Builder, Int32),
        Scalar::Int64 => prim!(Int64Builder, Int64),
        Scalar::Float32 => prim!(Float32Builder, Float32),
        Scalar::Float64 => prim!(Float64Builder, Float64),
        Scalar::String => list!(StringBuilder::new(), |b, item| match item {
            Value::String(x) => b.append_value(x),
            _ => b.append_null(),
        }),
        Scalar::Bytes => list!(BinaryBuilder::new(), |b, item| match item {
            Value::Bytes(x) => b.append_value(x),
            _ => b.append_null(),
        }),
        Scalar::Uuid => list!(FixedSizeBinaryBuilder::new(16), |b, item| match item {
            Value::Uuid(x) => b.append_value(x).unwrap_or_else(|_| b.append_null()),
            _ => b.append_null(),
        }),
    }
}

/// Per row of a table, its properties: (key, value) for each non-null
/// cell, in column order.
pub type RowProperties = Vec<Vec<(String, Value)>>;

/// Every row's properties from the columns of `batches` not named in
/// `own`: per row, (key, value) for each non-null cell, in column order.
/// `Err((column, what))` for a column of a type no property has or a
/// value that does not read (naming the row).
pub fn row_properties(
    schema: &arrow_schema::Schema,
    batches: &[arrow_array::RecordBatch],
    own: &[&str],
) -> Result<RowProperties, (String, String)> {
    let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
    let mut out: RowProperties = vec![Vec::new(); rows];
    for (c, field) in schema.fields().iter().enumerate() {
        if own.contains(&field.name().as_str()) {
            continue;
        }
        let mut at = 0;
        for b in batches {
            let a = b.column(c);
            let r = ColumnReader::new(a.as_ref(), field).map_err(|e| (field.name().clone(), e))?;
            for row in 0..a.len() {
                let v = r
                    .value(row)
                    .map_err(|e| (field.name().clone(), format!("row {}: {e}", at + row)))?;
                if let Some(v) = v {
                    out[at + row].push((field.name().clone(), v));
                }
            }
            at += a.len();
        }
    }
    Ok(out)
}

/// Reads the typed values of a column back, one per row (`None`: null).
///
/// Takes what [`Kind::build`] writes, and the Arrow types other writers
/// commonly use for the same things: unsigned integers (widened to the
/// next signed type; a UInt64 above `i64::MAX` is refused), large and view
/// strings and binaries, dictionary-encoded columns, timestamps of any unit (a named zone is read as
/// UTC), dates (midnight UTC), large lists, maps. Anything else is refused
/// with what the type is.
pub struct ColumnReader<'a> {
    array: &'a dyn Array,
    read: Read<'a>,
}

enum Read<'a> {
    Null,
    /// A dictionary-encoded column: each row's key into the values.
    Dictionary(Vec<usize>, Box<ColumnReader<'a>>),
    Encoded,
    Set(Box<ColumnReader<'a>>),
    List(Box<ColumnReader<'a>>),
    Map(Box<ColumnReader<'a>>, Box<ColumnReader<'a>>),
    Plain,
    Timestamp {
        unit: TimeUnit,
        offset: i32,
    },
    Uuid,
}

impl<'a> ColumnReader<'a> {
    /// A reader of `array`, whose field is `field`; `Err` names what type
    /// cannot be read.
    pub fn new(array: &'a dyn Array, field: &Field) -> Result<ColumnReader<'a>, String> {
        let encoding = field.metadata().get(ENCODING_KEY).map(String::as_str);
        let read = match (array.data_type(), encoding) {
            (DataType::Null, _) => Read::Null,
            (DataType::Dictionary(_, value_type), _) => {
                let d = array.as_any_dictionary();
                let values: &'a dyn Array = d.values().as_ref();
                let value_field = Field::new(field.name(), (**value_type).clone(), true)
                    .with_metadata(field.metadata().clone());
                // With no values every row is null (`normalized_keys`
                // would panic): no key is ever read.
                let keys = if values.is_empty() {
                    vec![0; array.len()]
                } else {
                    d.normalized_keys()
                };
                Read::Dictionary(keys, Box::new(ColumnReader::new(values, &value_field)?))
            }
            (DataType::Binary | DataType::LargeBinary | DataType::BinaryView, Some(ENCODED)) => {
                Read::Encoded
            }
            (DataType::List(f) | DataType::LargeList(f), enc) => {
                let values: &'a dyn Array = match array.data_type() {
                    DataType::List(_) => array.as_list::<i32>().values().as_ref(),
                    _ => array.as_list::<i64>().values().as_ref(),
                };
                let inner = Box::new(ColumnReader::new(values, f)?);
                if enc == Some(SET) {
                    Read::Set(inner)
                } else {
                    Read::List(inner)
                }
            }
            (DataType::Map(entries, _), _) => {
                let DataType::Struct(kv) = entries.data_type() else {
                    return Err(format!("unreadable map entries {}", entries.data_type()));
                };
                let m = array.as_map();
                let keys = ColumnReader::new(m.keys().as_ref(), &kv[0])?;
                let values = ColumnReader::new(m.values().as_ref(), &kv[1])?;
                Read::Map(Box::new(keys), Box::new(values))
            }
            (DataType::Timestamp(unit, zone), _) => Read::Timestamp {
                unit: *unit,
                offset: zone.as_deref().and_then(zone_offset).unwrap_or(0),
            },
            (DataType::FixedSizeBinary(16), _)
                if field.metadata().get(EXTENSION_KEY).map(String::as_str)
                    == Some(UUID_EXTENSION) =>
            {
                Read::Uuid
            }
            (
                DataType::Boolean
                | DataType::Int8
                | DataType::Int16
                | DataType::Int32
                | DataType::Int64
                | DataType::UInt8
                | DataType::UInt16
                | DataType::UInt32
                | DataType::UInt64
                | DataType::Float32
                | DataType::Float64
                | DataType::Utf8
                | DataType::LargeUtf8
                | DataType::Utf8View
                | DataType::Binary
                | DataType::LargeBinary
                | DataType::BinaryView
                | DataType::FixedSizeBinary(_)
                | DataType::Date32
                | DataType::Date64,
                _,
            ) => Read::Plain,
            (other, _) => return Err(format!("column type {other} has no property type")),
        };
        Ok(ColumnReader { array, read })
    }

    /// The value in row `i`; `Err` (saying what, not where: the caller
    /// knows the row) for an encoded value that does not decode or a
    /// number out of range.
    pub fn value(&self, i: usize) -> Result<Option<Value>, String> {
        let a = self.array;
        if a.is_null(i) {
            return Ok(None);
        }
        let v = match &self.read {
            Read::Null => return Ok(None),
            Read::Dictionary(keys, values) if !values.array.is_empty() => {
                return values.value(keys[i]);
            }
            Read::Dictionary(..) => return Ok(None),
            Read::Encoded => {
                let bytes = binary_at(a, i);
                Value::decode(bytes).map_err(|e| format!("encoded value: {e}"))?
            }
            Read::List(inner) | Read::Set(inner) => {
                let (start, end) = list_range(a, i);
                let mut items = Vec::with_capacity(end - start);
                for j in start..end {
                    items.push(inner.value(j)?.unwrap_or(Value::Null));
                }
                if matches!(self.read, Read::Set(_)) {
                    Value::set(items)
                } else {
                    Value::List(items)
                }
            }
            Read::Map(keys, values) => {
                let offsets = a.as_map().value_offsets();
                let (start, end) = (offsets[i] as usize, offsets[i + 1] as usize);
                let mut pairs = Vec::with_capacity(end - start);
                for j in start..end {
                    let k = keys.value(j)?.unwrap_or(Value::Null);
                    let v = values.value(j)?.unwrap_or(Value::Null);
                    pairs.push((k, v));
                }
                Value::map(pairs).map_err(|e| e.to_string())?
            }
            Read::Timestamp { unit, offset } => {
                let (per_second, raw) = match unit {
                    TimeUnit::Second => (1, a.as_primitive::<TimestampSecondType>().value(i)),
                    TimeUnit::Millisecond => {
                        (1_000, a.as_primitive::<TimestampMillisecondType>().value(i))
                    }
                    TimeUnit::Microsecond => (
                        1_000_000,
                        a.as_primitive::<TimestampMicrosecondType>().value(i),
                    ),
                    TimeUnit::Nanosecond => (
                        1_000_000_000,
                        a.as_primitive::<TimestampNanosecondType>().value(i),
                    ),
                };
                date_time(raw, per_second, *offset)
                    .ok_or_else(|| format!("timestamp {raw} out of range"))?
            }
            Read::Uuid => {
                let b = a.as_fixed_size_binary().value(i);
                let mut u = [0u8; 16];
                u.copy_from_slice(b);
                Value::Uuid(u)
            }
            Read::Plain => plain(a, i)?,
        };
        Ok(Some(v))
    }
}

fn list_range(a: &dyn Array, i: usize) -> (usize, usize) {
    match a.data_type() {
        DataType::List(_) => {
            let o = a.as_list::<i32>().value_offsets();
            (o[i] as usize, o[i + 1] as usize)
        }
        _ => {
            let o = a.as_list::<i64>().value_offsets();
            (o[i] as usize, o[i + 1] as usize)
        }
    }
}

fn binary_at(a: &dyn Array, i: usize) -> &[u8] {
    match a.data_type() {
        DataType::Binary => a.as_binary::<i32>().value(i),
        DataType::LargeBinary => a.as_binary::<i64>().value(i),
        DataType::BinaryView => a.as_binary_view().value(i),
        _ => a.as_fixed_size_binary().value(i),
    }
}

fn date_time(raw: i64, per_second: i64, offset: i32) -> Option<Value> {
    let seconds = raw.div_euclid(per_second);
    let sub = raw.rem_euclid(per_second);
    let nanos = u32::try_from(sub * (1_000_000_000 / per_second)).ok()?;
    DateTime::new(seconds, nanos, offset).map(Value::DateTime)
}

fn plain(a: &dyn Array, i: usize) -> Result<Value, String> {
    Ok(match a.data_type() {
        DataType::Boolean => Value::Bool(a.as_boolean().value(i)),
        DataType::Int8 => Value::Int8(a.as_primitive::<Int8Type>().value(i)),
        DataType::Int16 => Value::Int16(a.as_primitive::<Int16Type>().value(i)),
        DataType::Int32 => Value::Int32(a.as_primitive::<Int32Type>().value(i)),
        DataType::Int64 => Value::Int64(a.as_primitive::<Int64Type>().value(i)),
        DataType::UInt8 => Value::Int16(a.as_primitive::<UInt8Type>().value(i).into()),
        DataType::UInt16 => Value::Int32(a.as_primitive::<UInt16Type>().value(i).into()),
        DataType::UInt32 => Value::Int64(a.as_primitive::<UInt32Type>().value(i).into()),
        DataType::UInt64 => {
            let x = a.as_primitive::<UInt64Type>().value(i);
            Value::Int64(i64::try_from(x).map_err(|_| format!("UInt64 {x} exceeds Int64"))?)
        }
        DataType::Float32 => Value::Float32(a.as_primitive::<Float32Type>().value(i)),
        DataType::Float64 => Value::Float64(a.as_primitive::<Float64Type>().value(i)),
        DataType::Utf8 => Value::String(a.as_string::<i32>().value(i).to_owned()),
        DataType::LargeUtf8 => Value::String(a.as_string::<i64>().value(i).to_owned()),
        DataType::Utf8View => Value::String(a.as_string_view().value(i).to_owned()),
        DataType::Binary | DataType::LargeBinary | DataType::BinaryView => {
            Value::Bytes(binary_at(a, i).to_vec())
        }
        DataType::FixedSizeBinary(_) => Value::Bytes(a.as_fixed_size_binary().value(i).to_vec()),
        DataType::Date32 => {
            let days = i64::from(a.as_primitive::<Date32Type>().value(i));
            date_time(days * 86_400, 1, 0).ok_or_else(|| "date out of range".to_owned())?
        }
        DataType::Date64 => {
            let ms = a.as_primitive::<Date64Type>().value(i);
            date_time(ms, 1_000, 0).ok_or_else(|| "date out of range".to_owned())?
        }
        other => return Err(format!("column type {other} has no property type")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(values: &[Option<Value>]) -> (Kind, Vec<Option<Value>>) {
        let kind = values
            .iter()
            .flatten()
            .fold(Kind::Unknown, |k, v| k.join(Kind::of(v)));
        let field = kind.field("p");
        let array = kind.build(values.iter().map(Option::as_ref));
        assert_eq!(array.data_type(), field.data_type());
        let r = ColumnReader::new(array.as_ref(), &field).expect("readable");
        let back = (0..array.len())
            .map(|i| r.value(i).expect("value"))
            .collect();
        (kind, back)
    }

    fn dt(seconds: i64, nanos: u32, offset: i32) -> Value {
        Value::DateTime(DateTime::new(seconds, nanos, offset).expect("valid"))
    }

    #[test]
    fn one_type_per_column_is_native_and_reads_back_the_same_type() {
        let cases: Vec<(Vec<Option<Value>>, DataType)> = vec![
            (
                vec![Some(Value::Int32(29)), None, Some(Value::Int32(-1))],
                DataType::Int32,
            ),
            (
                vec![Some(Value::Int8(3)), Some(Value::Int8(-3))],
                DataType::Int8,
            ),
            (vec![Some(Value::Int16(300))], DataType::Int16),
            (vec![None, Some(Value::Int64(1 << 40))], DataType::Int64),
            (vec![Some(Value::Float32(0.5))], DataType::Float32),
            (vec![Some(Value::Float64(f64::NAN))], DataType::Float64),
            (
                vec![Some(Value::Bool(true)), Some(Value::Bool(false))],
                DataType::Boolean,
            ),
            (vec![Some(Value::String("ripple".into()))], DataType::Utf8),
            (vec![Some(Value::Bytes(vec![0, 255]))], DataType::Binary),
            (
                vec![Some(Value::Uuid([7; 16]))],
                DataType::FixedSizeBinary(16),
            ),
        ];
        for (values, ty) in cases {
            let (kind, back) = round_trip(&values);
            assert_eq!(kind.field("p").data_type(), &ty);
            // NaN is not equal to itself: compare by the store's order.
            for (a, b) in values.iter().zip(&back) {
                match (a, b) {
                    (Some(a), Some(b)) => assert_eq!(a.total_cmp(b), std::cmp::Ordering::Equal),
                    (a, b) => assert_eq!(a, b),
                }
            }
        }
    }

    #[test]
    fn date_times_of_one_offset_are_a_zoned_timestamp() {
        let values = vec![
            Some(dt(1_000, 5, 3600)),
            Some(dt(-1, 999_999_999, 3600)),
            None,
        ];
        let (kind, back) = round_trip(&values);
        assert_eq!(
            kind,
            Kind::DateTime {
                offset_seconds: 3600
            }
        );
        assert_eq!(back, values);
    }

    #[test]
    fn lists_and_sets_of_one_scalar_are_list_columns() {
        let values = vec![
            Some(Value::List(vec![Value::Int32(1), Value::Int32(1)])),
            Some(Value::List(vec![])),
            None,
        ];
        let (kind, back) = round_trip(&values);
        assert_eq!(kind, Kind::List(Some(Scalar::Int32)));
        assert_eq!(back, values);
        let sets = vec![Some(Value::set(vec![Value::String("a".into())]))];
        let (kind, back) = round_trip(&sets);
        assert_eq!(kind, Kind::Set(Some(Scalar::String)));
        assert_eq!(back, sets);
    }

    #[test]
    fn mixed_types_keep_each_value_exactly_in_an_encoded_column() {
        let map = Value::map(vec![(Value::String("k".into()), Value::Int8(1))]).expect("map");
        let values = vec![
            Some(Value::Int32(29)),
            Some(Value::Int64(29)),
            Some(map),
            Some(Value::Null),
            Some(Value::List(vec![
                Value::Int32(1),
                Value::String("x".into()),
            ])),
            Some(dt(0, 0, 61)),
            Some(dt(0, 0, 60)),
            None,
        ];
        let (kind, back) = round_trip(&values);
        assert_eq!(kind, Kind::Encoded);
        assert_eq!(back, values);
    }

    #[test]
    fn a_damaged_encoded_value_is_an_error() {
        let field = Kind::Encoded.field("p");
        let array: ArrayRef = Arc::new(arrow_array::BinaryArray::from(vec![&[0xffu8, 1][..]]));
        let r = ColumnReader::new(array.as_ref(), &field).expect("readable");
        let e = r.value(0).expect_err("damaged");
        assert!(e.contains("encoded value"), "{e}");
    }

    #[test]
    fn dictionary_columns_read_as_their_values() {
        let mut b = arrow_array::builder::StringDictionaryBuilder::<Int32Type>::new();
        b.append_value("song");
        b.append_null();
        b.append_value("artist");
        b.append_value("song");
        let array: ArrayRef = Arc::new(b.finish());
        let field = Field::new("l", array.data_type().clone(), true);
        let r = ColumnReader::new(array.as_ref(), &field).expect("readable");
        let got: Vec<Option<Value>> = (0..4).map(|i| r.value(i).expect("value")).collect();
        let s = |x: &str| Some(Value::String(x.into()));
        assert_eq!(got, vec![s("song"), None, s("artist"), s("song")]);
        // A column of nulls only has no values at all.
        let mut b = arrow_array::builder::StringDictionaryBuilder::<Int32Type>::new();
        b.append_null();
        let array: ArrayRef = Arc::new(b.finish());
        let r = ColumnReader::new(array.as_ref(), &field).expect("readable");
        assert_eq!(r.value(0), Ok(None));
    }

    #[test]
    fn zone_names_round_trip() {
        for off in [0, 3600, -5 * 3600 - 30 * 60, 18 * 3600] {
            assert_eq!(zone_offset(&zone_name(off)), Some(off));
        }
        assert_eq!(zone_offset("Europe/Paris"), None);
    }
}
