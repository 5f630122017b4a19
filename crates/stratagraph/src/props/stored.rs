//! A property value as the property store keeps it: 16 bytes, the
//! fixed-size scalars and short strings inline, every other value shared
//! behind an `Arc`.
//!
//! Most properties of a large graph are numbers (a weight, a year, a
//! score) or short strings (a name, a code, a type). Kept as `Arc<Value>`
//! each cost a heap block of 48 bytes beside the 8-byte pointer, and a
//! string another block for its text; inline they cost nothing beyond the
//! 16 bytes here, and a scan that compares them reads no memory but the
//! value's own. Longer strings, bytes, UUIDs, date-times and collections
//! stay shared, so a reader or a commit passes them on without copying
//! them; a longer string keeps seven bytes of its hash inline, so a scan
//! for one string reads no other string's text.

use crate::value::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// One stored property value (see the module's doc).
#[derive(Debug, Clone)]
pub(crate) enum Stored {
    Null,
    Bool(bool),
    Int8(i8),
    Int16(i16),
    Int32(i32),
    Int64(i64),
    Float32(f32),
    Float64(f64),
    /// A string of at most [`SHORT`] bytes.
    Short(Short),
    /// A longer string, shared, with seven bytes of its hash beside it:
    /// comparing two stored values (an equality scan's probe with each
    /// vertex's value) rejects a different string without reading either.
    Text {
        hash: [u8; 7],
        text: Arc<Value>,
    },
    Shared(Arc<Value>),
}

/// Seven bytes of a hash of `s` (see [`Stored::Text`]); kept in memory
/// only, so any hash will do.
fn text_hash(s: &str) -> [u8; 7] {
    use std::hash::{Hash, Hasher};
    let mut h = rustc_hash::FxHasher::default();
    s.hash(&mut h);
    let [_, rest @ ..] = h.finish().to_le_bytes();
    rest
}

/// The longest string kept inline: the 15 bytes beside the enum's tag.
const SHORT: usize = 15;

/// A string of at most [`SHORT`] bytes, inline.
///
/// The length needs no byte of its own: a shorter string stores it in
/// the last byte as `0xC0 + len`, a value no UTF-8 string ends with (its
/// last byte is ASCII or a continuation byte, both below `0xC0`), so a
/// last byte below `0xC0` means the string fills all 15. Names such as
/// `company_1048575` fit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Short {
    bytes: [u8; SHORT],
}

/// Marks a string shorter than [`SHORT`] in its last byte (see [`Short`]).
const SHORTER: u8 = 0xC0;

impl Short {
    fn new(s: &str) -> Option<Short> {
        let len = s.len();
        (len <= SHORT).then(|| {
            let mut bytes = [0; SHORT];
            bytes[..len].copy_from_slice(s.as_bytes());
            if len < SHORT {
                bytes[SHORT - 1] = SHORTER + len as u8;
            }
            Short { bytes }
        })
    }

    fn as_bytes(&self) -> &[u8] {
        let last = self.bytes[SHORT - 1];
        let len = if last >= SHORTER {
            usize::from(last - SHORTER)
        } else {
            SHORT
        };
        &self.bytes[..len]
    }

    fn as_str(&self) -> &str {
        // Checking costs little on 15 bytes, and keeps this free of
        // `unsafe`; `new` copied them whole from a `str`.
        std::str::from_utf8(self.as_bytes()).expect("copied whole from a str")
    }
}

impl Stored {
    /// Keeps an owned `value`: a scalar or a short string inline,
    /// anything else in a new `Arc`.
    pub(crate) fn owned(value: Value) -> Stored {
        match value {
            Value::Null => Stored::Null,
            Value::Bool(x) => Stored::Bool(x),
            Value::Int8(x) => Stored::Int8(x),
            Value::Int16(x) => Stored::Int16(x),
            Value::Int32(x) => Stored::Int32(x),
            Value::Int64(x) => Stored::Int64(x),
            Value::Float32(x) => Stored::Float32(x),
            Value::Float64(x) => Stored::Float64(x),
            Value::String(s) => match Short::new(&s) {
                Some(short) => Stored::Short(short),
                None => Stored::Text {
                    hash: text_hash(&s),
                    text: Arc::new(Value::String(s)),
                },
            },
            other => Stored::Shared(Arc::new(other)),
        }
    }

    /// Whether the value equals `value` (`Value`'s equality: typed apart,
    /// NaN equal to itself), without making a `Value` of an inline one:
    /// the test an equality scan makes of every vertex.
    pub(crate) fn equals(&self, value: &Value) -> bool {
        match (self, value) {
            (Stored::Short(s), Value::String(v)) => s.as_bytes() == v.as_bytes(),
            (Stored::Short(_), _) => false,
            (Stored::Text { text, .. }, v) | (Stored::Shared(text), v) => **text == *v,
            (scalar, v) => scalar.to_value() == *v,
        }
    }

    /// Calls `f` with the value, without copying a shared one.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&Value) -> R) -> R {
        f(&self.as_value())
    }

    /// The value, borrowed where it is shared and copied where it is
    /// inline (a scalar costs nothing to copy, a short string one small
    /// allocation).
    pub(crate) fn as_value(&self) -> Cow<'_, Value> {
        match self {
            Stored::Text { text: v, .. } | Stored::Shared(v) => Cow::Borrowed(v),
            scalar => Cow::Owned(scalar.to_value()),
        }
    }

    /// The value, copied.
    pub(crate) fn to_value(&self) -> Value {
        match self {
            Stored::Null => Value::Null,
            Stored::Bool(x) => Value::Bool(*x),
            Stored::Int8(x) => Value::Int8(*x),
            Stored::Int16(x) => Value::Int16(*x),
            Stored::Int32(x) => Value::Int32(*x),
            Stored::Int64(x) => Value::Int64(*x),
            Stored::Float32(x) => Value::Float32(*x),
            Stored::Float64(x) => Value::Float64(*x),
            Stored::Short(s) => Value::String(s.as_str().to_owned()),
            Stored::Text { text: v, .. } | Stored::Shared(v) => (**v).clone(),
        }
    }
}

/// Equal as the values are (`Value`'s equality, whatever the keeping).
impl PartialEq for Stored {
    fn eq(&self, other: &Stored) -> bool {
        match (self, other) {
            (Stored::Short(a), Stored::Short(b)) => a.as_bytes() == b.as_bytes(),
            (Stored::Text { hash: a, text: x }, Stored::Text { hash: b, text: y }) => {
                a == b && (Arc::ptr_eq(x, y) || x == y)
            }
            // A string is kept short exactly when it fits, so a short one
            // and a long one differ.
            (Stored::Short(_), Stored::Text { .. }) | (Stored::Text { .. }, Stored::Short(_)) => {
                false
            }
            _ => other.with(|b| self.equals(b)),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any string comes back as it went in, inline or shared, and is
        /// equal to itself only.
        #[test]
        fn any_string_comes_back(a in "\\PC{0,18}", b in "\\PC{0,18}") {
            let (sa, sb) = (Stored::owned(Value::String(a.clone())), Stored::owned(Value::String(b.clone())));
            proptest::prop_assert_eq!(sa.to_value(), Value::String(a.clone()));
            proptest::prop_assert_eq!(matches!(sa, Stored::Short(_)), a.len() <= 15);
            proptest::prop_assert_eq!(sa.equals(&Value::String(b.clone())), a == b);
            proptest::prop_assert_eq!(sa == sb, a == b);
        }
    }

    #[test]
    fn a_stored_value_is_sixteen_bytes_and_an_absent_one_no_more() {
        assert_eq!(std::mem::size_of::<Stored>(), 16);
        assert_eq!(std::mem::size_of::<Option<Stored>>(), 16);
    }

    #[test]
    fn every_kind_of_value_comes_back_as_it_went_in() {
        let values = [
            Value::Null,
            Value::Bool(true),
            Value::Int8(-3),
            Value::Int16(300),
            Value::Int32(29),
            Value::Int64(29),
            Value::Float32(0.5),
            Value::Float64(-0.25),
            Value::Float64(f64::NAN),
            Value::String("marko".into()),
            Value::String(String::new()),
            Value::String("fourteen bytes".into()),
            Value::String("fifteen bytes!!".into()),
            Value::String("sixteen bytes!!!".into()),
            Value::String("héllo wörld ü".into()),
            // 15 bytes ending in a continuation byte, and 14.
            Value::String("abcdefghijklmé".into()),
            Value::String("abcdefghijklé".into()),
            Value::String("\0\0\0".into()),
            Value::Bytes(vec![1, 2]),
            Value::Uuid([7; 16]),
            Value::List(vec![Value::Int32(1), Value::String("a".into())]),
        ];
        for v in &values {
            let s = Stored::owned(v.clone());
            // Value's own equality (NaN included) decides.
            assert_eq!(s.to_value(), *v);
            assert!(s.with(|x| x == v));
            assert_eq!(*s.as_value(), *v);
            assert_eq!(s, Stored::owned(v.clone()));
            assert!(s.equals(v));
            let inline = match v {
                Value::String(x) => x.len() <= 15,
                Value::Bytes(_) | Value::Uuid(_) | Value::List(_) => false,
                _ => true,
            };
            let shared = matches!(s, Stored::Shared(_) | Stored::Text { .. });
            assert_eq!(inline, !shared, "{v:?}");
        }
        // Every pair of different values is told apart, inline or not.
        for (i, a) in values.iter().enumerate() {
            for (j, b) in values.iter().enumerate() {
                let (sa, sb) = (Stored::owned(a.clone()), Stored::owned(b.clone()));
                assert_eq!(sa.equals(b), a == b, "{a:?} {b:?}");
                assert_eq!(sa == sb, i == j, "{a:?} {b:?}");
            }
        }
        // A short string is not equal to a longer one it begins.
        let short = Stored::owned(Value::String("marko".into()));
        assert!(!short.equals(&Value::String("marko rodriguez".into())));
        assert!(!short.equals(&Value::String("mark".into())));
        // Typed apart: an Int32 29 is not an Int64 29.
        assert_ne!(
            Stored::owned(Value::Int32(29)),
            Stored::owned(Value::Int64(29))
        );
    }
}
