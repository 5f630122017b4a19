//! A property value as the property store keeps it: 16 bytes, the
//! fixed-size scalars inline, every other value shared behind an `Arc`.
//!
//! Most properties of a large graph are numbers (a weight, a year, a
//! score). Kept as `Arc<Value>` each cost a heap block of 48 bytes beside
//! the 8-byte pointer; inline they cost nothing beyond the 16 bytes here.
//! Strings, bytes, UUIDs, date-times and collections stay shared, so a
//! reader or a commit passes them on without copying them.

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
    Shared(Arc<Value>),
}

impl Stored {
    /// Keeps an owned `value`: a scalar inline, anything else in a new
    /// `Arc`.
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
            other => Stored::Shared(Arc::new(other)),
        }
    }

    /// Calls `f` with the value, without copying a shared one.
    pub(crate) fn with<R>(&self, f: impl FnOnce(&Value) -> R) -> R {
        f(&self.as_value())
    }

    /// The value, borrowed where it is shared and copied where it is a
    /// scalar (which costs nothing to copy).
    pub(crate) fn as_value(&self) -> Cow<'_, Value> {
        match self {
            Stored::Shared(v) => Cow::Borrowed(v),
            scalar => Cow::Owned(scalar.to_value()),
        }
    }

    /// The value, copied (a scalar costs nothing to copy).
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
            Stored::Shared(v) => (**v).clone(),
        }
    }
}

/// Equal as the values are (`Value`'s equality, whatever the keeping).
impl PartialEq for Stored {
    fn eq(&self, other: &Stored) -> bool {
        self.with(|a| other.with(|b| a == b))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests fail loudly by design
mod tests {
    use super::*;

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
            Value::Bytes(vec![1, 2]),
            Value::Uuid([7; 16]),
            Value::List(vec![Value::Int32(1), Value::String("a".into())]),
        ];
        for v in values {
            let s = Stored::owned(v.clone());
            // Value's own equality (NaN included) decides.
            assert_eq!(s.to_value(), v);
            assert!(s.with(|x| *x == v));
            assert_eq!(*s.as_value(), v);
            assert_eq!(s, Stored::owned(v.clone()));
            let inline = !matches!(
                v,
                Value::String(_) | Value::Bytes(_) | Value::Uuid(_) | Value::List(_)
            );
            assert_eq!(inline, !matches!(s, Stored::Shared(_)), "{v:?}");
        }
        // Typed apart: an Int32 29 is not an Int64 29.
        assert_ne!(
            Stored::owned(Value::Int32(29)),
            Stored::owned(Value::Int64(29))
        );
    }
}
