//! Property values: the typed values vertices and edges will carry, their
//! storage identity and order, and the byte encoding the log and the level
//! files will keep them in (`docs/FORMAT.md` §5).
//!
//! Types are kept apart as TinkerPop and openCypher keep them: an `Int32`
//! 29 is not an `Int64` 29, and a `Float32` is not a `Float64`. The
//! equality and order here are the store's (what an index sorts by, what a
//! set holds once): total, and exact on bits, so `NaN` equals itself and
//! `-0.0` is not `0.0`. Gremlin's comparison rules (numeric promotion,
//! `NaN` incomparable) belong to the query layer, which compares values
//! itself.
//!
//! Decoding reads bytes that may be damaged: it checks every length and
//! tag against the bytes there are, bounds nesting, and returns an error
//! naming the offset instead of panicking or allocating what the bytes
//! merely claim.

use std::cmp::Ordering;

/// The most bytes one encoded value may take. Values are stored inside
/// log records and level blocks; one that does not fit this is refused
/// when it is written.
pub const MAX_VALUE_BYTES: usize = 16 << 20;

/// The deepest nesting of lists, sets and maps a value may have.
pub const MAX_DEPTH: usize = 64;

/// A date-time with an offset from UTC, as ISO-8601's
/// `2007-12-03T10:15:30+01:00` (TinkerPop's `OffsetDateTime`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DateTime {
    /// The instant, in seconds since 1970-01-01T00:00:00Z.
    pub seconds: i64,
    /// Nanoseconds within the second: `0..1_000_000_000`.
    pub nanos: u32,
    /// The offset from UTC in seconds: `-18 h ..= 18 h`.
    pub offset_seconds: i32,
}

/// The largest offset from UTC ISO-8601 allows, in seconds.
const MAX_OFFSET_SECONDS: i32 = 18 * 3600;

impl DateTime {
    /// A date-time, or `None` if `nanos` or `offset_seconds` is out of range.
    pub fn new(seconds: i64, nanos: u32, offset_seconds: i32) -> Option<DateTime> {
        (nanos < 1_000_000_000 && offset_seconds.abs() <= MAX_OFFSET_SECONDS).then_some(DateTime {
            seconds,
            nanos,
            offset_seconds,
        })
    }
}

/// One property value.
#[derive(Debug, Clone)]
pub enum Value {
    /// No value, where a store allows it.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// An 8-bit signed integer (TinkerPop's `Byte`).
    Int8(i8),
    /// A 16-bit signed integer (`Short`).
    Int16(i16),
    /// A 32-bit signed integer (`Int`).
    Int32(i32),
    /// A 64-bit signed integer (`Long`).
    Int64(i64),
    /// A 32-bit float (`Float`).
    Float32(f32),
    /// A 64-bit float (`Double`).
    Float64(f64),
    /// UTF-8 text.
    String(String),
    /// Raw bytes (`Binary`).
    Bytes(Vec<u8>),
    /// A UUID, as its 16 bytes in network order.
    Uuid([u8; 16]),
    /// A date-time with its offset.
    DateTime(DateTime),
    /// An ordered list; may repeat elements.
    List(Vec<Value>),
    /// A set: no element twice. Build with [`Value::set`], which keeps it
    /// in the store's order, so two equal sets are equal element by
    /// element.
    Set(Vec<Value>),
    /// A map from keys to values, in insertion order (as TinkerPop's),
    /// with no key twice. Build with [`Value::map`]. Two maps with the same
    /// entries are equal whatever their order.
    Map(Vec<(Value, Value)>),
}

/// A value that breaks a rule of its type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InvalidValue {
    /// A map names one key twice.
    #[error("map key {key} appears twice")]
    DuplicateKey {
        /// The key, as `Debug` shows it.
        key: String,
    },
    /// The value encodes to more than [`MAX_VALUE_BYTES`].
    #[error("value takes {bytes} bytes encoded; the most is {MAX_VALUE_BYTES}")]
    TooLarge {
        /// Its encoded size.
        bytes: usize,
    },
    /// Lists, sets and maps nest deeper than [`MAX_DEPTH`].
    #[error("value nests more than {MAX_DEPTH} levels deep")]
    TooDeep,
}

impl Value {
    /// A set of `items`: duplicates dropped, kept in the store's order.
    pub fn set(mut items: Vec<Value>) -> Value {
        items.sort_by(Value::total_cmp);
        items.dedup_by(|a, b| a.total_cmp(b) == Ordering::Equal);
        Value::Set(items)
    }

    /// A map of `pairs` in the order given; a key given twice is refused.
    pub fn map(pairs: Vec<(Value, Value)>) -> Result<Value, InvalidValue> {
        check_keys(&pairs)?;
        Ok(Value::Map(pairs))
    }

    /// The type's name, as errors and TinkerPop's GraphBinary spell it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Null => "Null",
            Value::Bool(_) => "Boolean",
            Value::Int8(_) => "Byte",
            Value::Int16(_) => "Short",
            Value::Int32(_) => "Int",
            Value::Int64(_) => "Long",
            Value::Float32(_) => "Float",
            Value::Float64(_) => "Double",
            Value::String(_) => "String",
            Value::Bytes(_) => "Binary",
            Value::Uuid(_) => "UUID",
            Value::DateTime(_) => "OffsetDateTime",
            Value::List(_) => "List",
            Value::Set(_) => "Set",
            Value::Map(_) => "Map",
        }
    }

    /// This type's tag in the encoding; also the first key of the order.
    fn tag(&self) -> u8 {
        match self {
            Value::Null => tag::NULL,
            Value::Bool(_) => tag::BOOL,
            Value::Int8(_) => tag::INT8,
            Value::Int16(_) => tag::INT16,
            Value::Int32(_) => tag::INT32,
            Value::Int64(_) => tag::INT64,
            Value::Float32(_) => tag::FLOAT32,
            Value::Float64(_) => tag::FLOAT64,
            Value::String(_) => tag::STRING,
            Value::Bytes(_) => tag::BYTES,
            Value::Uuid(_) => tag::UUID,
            Value::DateTime(_) => tag::DATETIME,
            Value::List(_) => tag::LIST,
            Value::Set(_) => tag::SET,
            Value::Map(_) => tag::MAP,
        }
    }

    /// The store's total order: by type (Gremlin's type priority, each
    /// numeric type apart), then by value. Integers and text compare as
    /// numbers and bytes; floats by IEEE 754's total order (`-NaN < -inf <
    /// ... < -0.0 < 0.0 < ... < NaN`); date-times by instant, then offset;
    /// lists and sets element by element, maps entry by entry in key
    /// order, the shorter first when one is a prefix of the other.
    pub fn total_cmp(&self, other: &Value) -> Ordering {
        use Value as V;
        match (self, other) {
            (V::Null, V::Null) => Ordering::Equal,
            (V::Bool(a), V::Bool(b)) => a.cmp(b),
            (V::Int8(a), V::Int8(b)) => a.cmp(b),
            (V::Int16(a), V::Int16(b)) => a.cmp(b),
            (V::Int32(a), V::Int32(b)) => a.cmp(b),
            (V::Int64(a), V::Int64(b)) => a.cmp(b),
            (V::Float32(a), V::Float32(b)) => a.total_cmp(b),
            (V::Float64(a), V::Float64(b)) => a.total_cmp(b),
            (V::String(a), V::String(b)) => a.cmp(b),
            (V::Bytes(a), V::Bytes(b)) => a.cmp(b),
            (V::Uuid(a), V::Uuid(b)) => a.cmp(b),
            (V::DateTime(a), V::DateTime(b)) => {
                (a.seconds, a.nanos, a.offset_seconds).cmp(&(b.seconds, b.nanos, b.offset_seconds))
            }
            (V::List(a), V::List(b)) => cmp_seq(a.iter(), b.iter()),
            (V::Set(a), V::Set(b)) => cmp_seq(set_view(a).into_iter(), set_view(b).into_iter()),
            (V::Map(a), V::Map(b)) => {
                // As sets of entries (Gremlin's map semantics): insertion
                // order does not make two maps different.
                let (a, b) = (by_key(a), by_key(b));
                for ((ka, va), (kb, vb)) in a.iter().zip(&b) {
                    let c = ka.total_cmp(kb).then_with(|| va.total_cmp(vb));
                    if c != Ordering::Equal {
                        return c;
                    }
                }
                a.len().cmp(&b.len())
            }
            _ => self.tag().cmp(&other.tag()),
        }
    }

    /// Whether this value is a float `NaN` or holds one: such a value has
    /// no place in a sorted index (it equals nothing a query could ask
    /// for), so indexed keys refuse it.
    pub fn contains_nan(&self) -> bool {
        match self {
            Value::Float32(x) => x.is_nan(),
            Value::Float64(x) => x.is_nan(),
            Value::List(items) | Value::Set(items) => items.iter().any(Value::contains_nan),
            Value::Map(pairs) => pairs
                .iter()
                .any(|(k, v)| k.contains_nan() || v.contains_nan()),
            _ => false,
        }
    }
}

fn by_key(pairs: &[(Value, Value)]) -> Vec<&(Value, Value)> {
    let mut sorted: Vec<&(Value, Value)> = pairs.iter().collect();
    sorted.sort_by(|x, y| x.0.total_cmp(&y.0));
    sorted
}

fn cmp_seq<'a>(
    mut a: impl Iterator<Item = &'a Value>,
    mut b: impl Iterator<Item = &'a Value>,
) -> Ordering {
    loop {
        match (a.next(), b.next()) {
            (Some(x), Some(y)) => match x.total_cmp(y) {
                Ordering::Equal => {}
                c => return c,
            },
            (x, y) => return x.is_some().cmp(&y.is_some()),
        }
    }
}

/// A set's elements in the store's order, each once. [`Value::set`] keeps
/// them so already; a `Value::Set` built by hand may not be, and still
/// compares and encodes as the set it names.
fn set_view(items: &[Value]) -> Vec<&Value> {
    let mut view: Vec<&Value> = items.iter().collect();
    if items
        .windows(2)
        .any(|w| w[0].total_cmp(&w[1]) != Ordering::Less)
    {
        view.sort_by(|a, b| a.total_cmp(b));
        view.dedup_by(|a, b| a.total_cmp(b) == Ordering::Equal);
    }
    view
}

/// Equal in the store's order: same type, same value, floats by bits'
/// total order.
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        self.total_cmp(other) == Ordering::Equal
    }
}

impl Eq for Value {}

impl PartialOrd for Value {
    fn partial_cmp(&self, other: &Value) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Value {
    fn cmp(&self, other: &Value) -> Ordering {
        self.total_cmp(other)
    }
}

/// The one-byte type tags of the encoding, in the order types sort:
/// Gremlin's orderability priority (null, boolean, numbers, date, string,
/// UUID, set, list, map), with bytes, which Gremlin does not order, last.
mod tag {
    pub const NULL: u8 = 0x00;
    pub const BOOL: u8 = 0x01;
    pub const INT8: u8 = 0x02;
    pub const INT16: u8 = 0x03;
    pub const INT32: u8 = 0x04;
    pub const INT64: u8 = 0x05;
    pub const FLOAT32: u8 = 0x06;
    pub const FLOAT64: u8 = 0x07;
    pub const DATETIME: u8 = 0x08;
    pub const STRING: u8 = 0x09;
    pub const UUID: u8 = 0x0a;
    pub const SET: u8 = 0x0b;
    pub const LIST: u8 = 0x0c;
    pub const MAP: u8 = 0x0d;
    pub const BYTES: u8 = 0x0e;
}

impl Value {
    /// Appends this value's encoding to `out` (`docs/FORMAT.md` §5): a tag
    /// byte, then the payload (little-endian fixed-width numbers; a LEB128
    /// length before text, bytes and the elements of lists, sets and
    /// maps). Equal values encode to equal bytes, except maps, which keep
    /// their insertion order. Refuses a value that nests deeper than [`MAX_DEPTH`] or
    /// encodes to more than [`MAX_VALUE_BYTES`], leaving `out` as it was.
    pub fn encode(&self, out: &mut Vec<u8>) -> Result<(), InvalidValue> {
        encode(self, out)
    }

    /// Whether [`Value::encode`] would take this value: a fixed-size one
    /// always is, so only text, bytes and collections are encoded (into a
    /// scratch buffer) to find out.
    pub(crate) fn check_encodable(&self) -> Result<(), InvalidValue> {
        match self {
            Value::String(_) | Value::Bytes(_) | Value::List(_) | Value::Set(_) | Value::Map(_) => {
                self.encode(&mut Vec::new())
            }
            _ => Ok(()),
        }
    }

    /// Decodes the one value `bytes` hold, all of them; any other bytes
    /// (damaged, cut, not canonical) are refused naming the offset.
    pub fn decode(bytes: &[u8]) -> Result<Value, DecodeError> {
        decode(bytes)
    }
}

fn encode(value: &Value, out: &mut Vec<u8>) -> Result<(), InvalidValue> {
    let start = out.len();
    let written = encode_at(value, out, 0, start);
    let bytes = out.len() - start;
    let result = match written {
        Ok(()) if bytes > MAX_VALUE_BYTES => Err(InvalidValue::TooLarge { bytes }),
        other => other,
    };
    if result.is_err() {
        out.truncate(start);
    }
    result
}

/// Appends `value` to `out`, which held `start` bytes before the value
/// being encoded began (the limit is on the value's bytes, not the
/// buffer's: a log record or file holds many values).
fn encode_at(
    value: &Value,
    out: &mut Vec<u8>,
    depth: usize,
    start: usize,
) -> Result<(), InvalidValue> {
    out.push(value.tag());
    match value {
        Value::Null => {}
        Value::Bool(b) => out.push(u8::from(*b)),
        Value::Int8(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Int16(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Int32(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Int64(x) => out.extend_from_slice(&x.to_le_bytes()),
        Value::Float32(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
        Value::Float64(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
        Value::String(s) => put_bytes(out, s.as_bytes()),
        Value::Bytes(b) => put_bytes(out, b),
        Value::Uuid(u) => out.extend_from_slice(u),
        Value::DateTime(d) => {
            out.extend_from_slice(&d.seconds.to_le_bytes());
            out.extend_from_slice(&d.nanos.to_le_bytes());
            out.extend_from_slice(&d.offset_seconds.to_le_bytes());
        }
        Value::List(_) | Value::Set(_) | Value::Map(_) if depth >= MAX_DEPTH => {
            return Err(InvalidValue::TooDeep);
        }
        Value::List(items) => encode_items(out, items.iter(), depth, start)?,
        Value::Set(items) => encode_items(out, set_view(items).into_iter(), depth, start)?,
        Value::Map(pairs) => {
            check_keys(pairs)?;
            put_varint(out, pairs.len());
            for (k, v) in pairs {
                encode_at(k, out, depth + 1, start)?;
                encode_at(v, out, depth + 1, start)?;
            }
        }
    }
    if out.len() - start > MAX_VALUE_BYTES.saturating_mul(2) {
        // Far past the limit: stop growing; `encode` reports the size.
        return Err(InvalidValue::TooLarge {
            bytes: out.len() - start,
        });
    }
    Ok(())
}

/// A list's or set's elements: their count, then each.
fn encode_items<'a>(
    out: &mut Vec<u8>,
    items: impl ExactSizeIterator<Item = &'a Value>,
    depth: usize,
    start: usize,
) -> Result<(), InvalidValue> {
    put_varint(out, items.len());
    for item in items {
        encode_at(item, out, depth + 1, start)?;
    }
    Ok(())
}

/// Refuses a map that names one key twice.
fn check_keys(pairs: &[(Value, Value)]) -> Result<(), InvalidValue> {
    match by_key(pairs).windows(2).find(|w| w[0].0 == w[1].0) {
        Some(w) => Err(InvalidValue::DuplicateKey {
            key: format!("{:?}", w[0].0),
        }),
        None => Ok(()),
    }
}

/// Appends `n` as an unsigned LEB128 varint (7 bits a byte, low bits
/// first, the high bit set on every byte but the last): the value format's
/// lengths, and a packed list's first destination (`csr::pack`).
pub(crate) fn put_varint(out: &mut Vec<u8>, mut n: usize) {
    loop {
        let byte = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_varint(out, bytes.len());
    out.extend_from_slice(bytes);
}

/// Why bytes do not decode as a value: what was wrong and at which offset
/// of the bytes given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("bad value at byte {offset}: {what}")]
pub struct DecodeError {
    /// Offset of the first byte that could not be read as a value.
    pub offset: usize,
    /// What was wrong there.
    pub what: String,
}

fn decode(bytes: &[u8]) -> Result<Value, DecodeError> {
    let mut r = Reader { bytes, at: 0 };
    let value = r.value(0)?;
    if r.at != bytes.len() {
        return Err(r.error(format!("{} bytes follow the value", bytes.len() - r.at)));
    }
    Ok(value)
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn error(&self, what: String) -> DecodeError {
        DecodeError {
            offset: self.at,
            what,
        }
    }

    fn take<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let end = self.at.checked_add(N).filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(self.error(format!("needs {N} more bytes, the value ends first")));
        };
        let mut out = [0u8; N];
        out.copy_from_slice(&self.bytes[self.at..end]);
        self.at = end;
        Ok(out)
    }

    /// A LEB128 length, which must not claim more items than there are
    /// bytes left (each item takes at least one byte), so a damaged
    /// length cannot make the reader allocate what the bytes do not hold.
    fn len(&mut self) -> Result<usize, DecodeError> {
        let start = self.at;
        let mut n: u64 = 0;
        for shift in (0..64).step_by(7) {
            let [byte] = self.take::<1>()?;
            if shift == 63 && byte > 1 {
                break; // bits beyond the 64th
            }
            n |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 {
                    self.at = start;
                    return Err(self.error("a length with needless zero bytes".into()));
                }
                let left = (self.bytes.len() - self.at) as u64;
                if n > left {
                    self.at = start;
                    return Err(
                        self.error(format!("a length of {n} where only {left} bytes are left"))
                    );
                }
                return Ok(n as usize);
            }
        }
        self.at = start;
        Err(self.error("a length longer than 64 bits".into()))
    }

    fn slice(&mut self) -> Result<&[u8], DecodeError> {
        let n = self.len()?;
        let out = &self.bytes[self.at..self.at + n];
        self.at += n;
        Ok(out)
    }

    fn value(&mut self, depth: usize) -> Result<Value, DecodeError> {
        let tag_at = self.at;
        let [tag] = self.take::<1>()?;
        Ok(match tag {
            tag::NULL => Value::Null,
            tag::BOOL => match self.take::<1>()? {
                [0] => Value::Bool(false),
                [1] => Value::Bool(true),
                [b] => return Err(self.error(format!("boolean byte {b} is neither 0 nor 1"))),
            },
            tag::INT8 => Value::Int8(i8::from_le_bytes(self.take()?)),
            tag::INT16 => Value::Int16(i16::from_le_bytes(self.take()?)),
            tag::INT32 => Value::Int32(i32::from_le_bytes(self.take()?)),
            tag::INT64 => Value::Int64(i64::from_le_bytes(self.take()?)),
            tag::FLOAT32 => Value::Float32(f32::from_bits(u32::from_le_bytes(self.take()?))),
            tag::FLOAT64 => Value::Float64(f64::from_bits(u64::from_le_bytes(self.take()?))),
            tag::STRING => {
                let start = self.at;
                let bytes = self.slice()?;
                match std::str::from_utf8(bytes) {
                    Ok(s) => Value::String(s.to_owned()),
                    Err(e) => {
                        return Err(DecodeError {
                            offset: start,
                            what: format!("text is not UTF-8 ({e})"),
                        })
                    }
                }
            }
            tag::BYTES => Value::Bytes(self.slice()?.to_vec()),
            tag::UUID => Value::Uuid(self.take()?),
            tag::DATETIME => {
                let seconds = i64::from_le_bytes(self.take()?);
                let nanos = u32::from_le_bytes(self.take()?);
                let offset = i32::from_le_bytes(self.take()?);
                match DateTime::new(seconds, nanos, offset) {
                    Some(d) => Value::DateTime(d),
                    None => {
                        return Err(self.error(format!(
                            "date-time with {nanos} ns or offset {offset} s out of range"
                        )))
                    }
                }
            }
            tag::LIST | tag::SET | tag::MAP => {
                if depth >= MAX_DEPTH {
                    self.at = tag_at;
                    return Err(self.error(format!("nested more than {MAX_DEPTH} levels deep")));
                }
                let n = self.len()?;
                if tag == tag::MAP {
                    let mut pairs = Vec::with_capacity(n);
                    for _ in 0..n {
                        let k = self.value(depth + 1)?;
                        let v = self.value(depth + 1)?;
                        pairs.push((k, v));
                    }
                    Value::map(pairs).map_err(|e| DecodeError {
                        offset: tag_at,
                        what: e.to_string(),
                    })?
                } else {
                    let mut items = Vec::with_capacity(n);
                    for _ in 0..n {
                        items.push(self.value(depth + 1)?);
                    }
                    if tag == tag::LIST {
                        Value::List(items)
                    } else {
                        // Written in order with no duplicate: anything else
                        // is damage, not a set to repair.
                        if items.windows(2).any(|w| w[0] >= w[1]) {
                            self.at = tag_at;
                            return Err(self.error("set elements out of order or repeated".into()));
                        }
                        Value::Set(items)
                    }
                }
            }
            other => {
                self.at = tag_at;
                return Err(self.error(format!("unknown type tag {other:#04x}")));
            }
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn round_trip(v: &Value) -> Value {
        let mut buf = Vec::new();
        v.encode(&mut buf).unwrap();
        Value::decode(&buf).unwrap()
    }

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i8>().prop_map(Value::Int8),
            any::<i16>().prop_map(Value::Int16),
            any::<i32>().prop_map(Value::Int32),
            any::<i64>().prop_map(Value::Int64),
            any::<u32>().prop_map(|b| Value::Float32(f32::from_bits(b))),
            any::<u64>().prop_map(|b| Value::Float64(f64::from_bits(b))),
            ".{0,12}".prop_map(Value::String),
            proptest::collection::vec(any::<u8>(), 0..12).prop_map(Value::Bytes),
            any::<[u8; 16]>().prop_map(Value::Uuid),
            (any::<i64>(), 0..1_000_000_000u32, -64_800..=64_800i32)
                .prop_map(|(s, n, o)| Value::DateTime(DateTime::new(s, n, o).unwrap())),
        ]
    }

    fn value() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(4, 48, 6, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::List),
                proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::set),
                proptest::collection::btree_map(inner.clone(), inner, 0..5)
                    .prop_map(|m| Value::map(m.into_iter().collect()).unwrap()),
            ]
        })
    }

    proptest! {
        #[test]
        fn every_value_decodes_to_itself(v in value()) {
            let back = round_trip(&v);
            prop_assert_eq!(&back, &v);
            prop_assert_eq!(back.type_name(), v.type_name());
        }

        #[test]
        fn arbitrary_bytes_decode_or_fail_but_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            if let Ok(v) = decode(&bytes) {
                // What decodes is a value, which encodes back to the same bytes.
                let mut again = Vec::new();
                encode(&v, &mut again).unwrap();
                prop_assert_eq!(again, bytes);
            }
        }

        #[test]
        fn every_cut_or_flipped_encoding_is_refused_or_another_value(v in value(), cut in any::<prop::sample::Index>(), flip in any::<prop::sample::Index>()) {
            let mut buf = Vec::new();
            encode(&v, &mut buf).unwrap();
            let n = cut.index(buf.len());
            prop_assert!(decode(&buf[..n]).is_err(), "a strict prefix is never a whole value");
            let at = flip.index(buf.len());
            buf[at] ^= 0x5a;
            let _ = decode(&buf); // must return, not panic
        }

        #[test]
        fn the_order_is_total_and_agrees_with_equality(a in value(), b in value(), c in value()) {
            prop_assert_eq!(a.total_cmp(&b), b.total_cmp(&a).reverse());
            if a <= b && b <= c {
                prop_assert!(a <= c);
            }
            prop_assert_eq!(a == b, a.total_cmp(&b) == Ordering::Equal);
        }
    }

    #[test]
    fn types_are_kept_apart() {
        assert_ne!(Value::Int32(29), Value::Int64(29));
        assert_ne!(Value::Float32(1.0), Value::Float64(1.0));
        assert_eq!(round_trip(&Value::Int32(29)).type_name(), "Int");
        assert_eq!(round_trip(&Value::Int64(29)).type_name(), "Long");
        // Storage identity is exact: NaN is itself, -0.0 is not 0.0.
        assert_eq!(Value::Float64(f64::NAN), Value::Float64(f64::NAN));
        assert_ne!(Value::Float64(-0.0), Value::Float64(0.0));
        assert!(Value::List(vec![Value::Float32(f32::NAN)]).contains_nan());
        assert!(!Value::Float64(1.0).contains_nan());
    }

    #[test]
    fn sets_drop_duplicates_and_maps_refuse_them() {
        let s = Value::set(vec![Value::Int32(2), Value::Int32(1), Value::Int32(2)]);
        assert_eq!(s, Value::Set(vec![Value::Int32(1), Value::Int32(2)]));
        let one = Value::String("a".into());
        let e = Value::map(vec![(one.clone(), Value::Null), (one, Value::Bool(true))]);
        assert!(matches!(e, Err(InvalidValue::DuplicateKey { .. })));
        // A map keeps its insertion order.
        let m = Value::map(vec![
            (Value::Int8(2), Value::Null),
            (Value::Int8(1), Value::Null),
        ])
        .unwrap();
        assert_eq!(round_trip(&m), m);
        let Value::Map(pairs) = round_trip(&m) else {
            panic!()
        };
        assert_eq!(pairs[0].0, Value::Int8(2));
        let reversed = Value::map(pairs.into_iter().rev().collect()).unwrap();
        assert_eq!(reversed, m, "maps are equal as sets of entries");
    }

    #[test]
    fn values_built_by_hand_still_keep_their_types_rules() {
        // A set written out of order or with a repeat is the set it names.
        let by_hand = Value::Set(vec![Value::Int64(3), Value::Int64(1), Value::Int64(3)]);
        let canonical = Value::set(vec![Value::Int64(1), Value::Int64(3)]);
        assert_eq!(by_hand, canonical);
        assert_eq!(round_trip(&by_hand), canonical);
        let mut a = Vec::new();
        let mut b = Vec::new();
        by_hand.encode(&mut a).unwrap();
        canonical.encode(&mut b).unwrap();
        assert_eq!(a, b, "equal sets encode to equal bytes");
        // A map with a key twice is refused, and `out` is left as it was.
        let twice = Value::Map(vec![
            (Value::Bool(true), Value::Null),
            (Value::Bool(true), Value::Null),
        ]);
        let mut out = vec![7u8];
        assert!(matches!(
            twice.encode(&mut out),
            Err(InvalidValue::DuplicateKey { .. })
        ));
        assert_eq!(out, [7]);
    }

    #[test]
    fn limits_are_enforced_on_both_sides() {
        let mut deep = Value::Null;
        for _ in 0..=MAX_DEPTH {
            deep = Value::List(vec![deep]);
        }
        let mut out = vec![7u8];
        assert_eq!(encode(&deep, &mut out), Err(InvalidValue::TooDeep));
        assert_eq!(out, [7], "a refused value leaves the buffer as it was");
        // The same nesting, hand-made: the decoder refuses it too.
        let mut bytes = [tag::LIST, 1].repeat(MAX_DEPTH + 1);
        bytes.push(tag::NULL);
        let e = decode(&bytes).unwrap_err();
        assert!(e.what.contains("nested"), "{e}");

        // The limit is on the value, whatever the buffer already holds (a
        // file or log record of many values).
        let mut full = vec![0u8; 3 * MAX_VALUE_BYTES];
        Value::Int32(1).encode(&mut full).unwrap();
        Value::List(vec![Value::Int8(1)]).encode(&mut full).unwrap();
        let big = Value::Bytes(vec![0; MAX_VALUE_BYTES]);
        assert!(matches!(
            encode(&big, &mut Vec::new()),
            Err(InvalidValue::TooLarge { .. })
        ));
        // A length claiming more than the bytes hold is refused before any
        // allocation.
        let e = decode(&[tag::BYTES, 0xff, 0xff, 0xff, 0xff, 0x0f]).unwrap_err();
        assert!(e.what.contains("only 0 bytes are left"), "{e}");
        assert_eq!(e.offset, 1);
    }

    #[test]
    fn damage_is_named_by_offset() {
        assert_eq!(decode(&[0x3f]).unwrap_err().offset, 0);
        assert!(decode(&[0x3f])
            .unwrap_err()
            .what
            .contains("unknown type tag 0x3f"));
        let e = decode(&[tag::BOOL, 2]).unwrap_err();
        assert!(e.what.contains("neither 0 nor 1"), "{e}");
        let e = decode(&[tag::STRING, 2, 0xc3, 0x28]).unwrap_err();
        assert!(e.what.contains("not UTF-8") && e.offset == 1, "{e}");
        let e = decode(&[tag::SET, 2, tag::INT8, 5, tag::INT8, 5]).unwrap_err();
        assert!(e.what.contains("out of order or repeated"), "{e}");
        let e = decode(&[tag::NULL, tag::NULL]).unwrap_err();
        assert!(e.what.contains("1 bytes follow"), "{e}");
    }
}
