//! Gremlin's `Operator`s (`sum`, `mult`, `min`, `addAll`, ...) as `sack`,
//! `fold(seed, op)` and `sum()` use them, with TinkerPop's numeric
//! promotion: the wider of the two types, any float makes a float, and an
//! integer overflow widens the result (Int32 to Int64 to BigInteger)
//! rather than wrapping.

use std::cmp::Ordering;

use crate::ast::OperatorToken;
use crate::error::{Error, Result};
use crate::value::{order, GValue};

/// The numeric classes in widening order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    I8,
    I16,
    I32,
    I64,
    Big,
    F32,
    F64,
    Dec,
}

fn class(v: &GValue) -> Option<Class> {
    Some(match v {
        GValue::Int8(_) => Class::I8,
        GValue::Int16(_) => Class::I16,
        GValue::Int32(_) => Class::I32,
        GValue::Int64(_) => Class::I64,
        GValue::BigInt(_) => Class::Big,
        GValue::Float32(_) => Class::F32,
        GValue::Float64(_) => Class::F64,
        GValue::BigDecimal(_) => Class::Dec,
        _ => return None,
    })
}

/// The common class of two numbers: a float if either is; as wide as the
/// wider (an Int64 with a Float32 is a Float64).
fn common(a: Class, b: Class) -> Class {
    let float = a >= Class::F32 || b >= Class::F32;
    if !float {
        return a.max(b);
    }
    let bits = |c: Class| match c {
        Class::I8 | Class::I16 | Class::I32 | Class::F32 => 32,
        Class::I64 | Class::F64 => 64,
        _ => 128,
    };
    match bits(a).max(bits(b)) {
        32 => Class::F32,
        64 => Class::F64,
        _ => Class::Dec,
    }
}

/// An integer result in `class`, widened while it does not fit.
fn int_in(class: Class, v: i128) -> GValue {
    let mut c = class;
    loop {
        match c {
            Class::I8 => {
                if let Ok(x) = i8::try_from(v) {
                    return GValue::Int8(x);
                }
                c = Class::I16;
            }
            Class::I16 => {
                if let Ok(x) = i16::try_from(v) {
                    return GValue::Int16(x);
                }
                c = Class::I32;
            }
            Class::I32 => {
                if let Ok(x) = i32::try_from(v) {
                    return GValue::Int32(x);
                }
                c = Class::I64;
            }
            Class::I64 => {
                if let Ok(x) = i64::try_from(v) {
                    return GValue::Int64(x);
                }
                return GValue::BigInt(v);
            }
            _ => return GValue::BigInt(v),
        }
    }
}

fn float_in(class: Class, v: f64) -> GValue {
    match class {
        Class::F32 => GValue::Float32(v as f32),
        Class::Dec => GValue::BigDecimal(v),
        _ => GValue::Float64(v),
    }
}

/// `a op b` for two numbers.
pub(crate) fn arith(op: char, a: &GValue, b: &GValue) -> Result<GValue> {
    let (Some(ca), Some(cb)) = (class(a), class(b)) else {
        let bad = if class(a).is_none() { a } else { b };
        return Err(Error::Runtime(format!(
            "{} cannot be used in arithmetic; a number is required",
            bad.type_name()
        )));
    };
    let c = common(ca, cb);
    if c >= Class::F32 {
        let (x, y) = (
            a.as_f64().unwrap_or(f64::NAN),
            b.as_f64().unwrap_or(f64::NAN),
        );
        return Ok(float_in(
            c,
            match op {
                '+' => x + y,
                '-' => x - y,
                '*' => x * y,
                _ => x / y,
            },
        ));
    }
    let int = |v: &GValue| match v.num() {
        Some(crate::value::Num::Int(i)) => i,
        _ => 0,
    };
    let (x, y) = (int(a), int(b));
    let r = match op {
        '+' => x.checked_add(y),
        '-' => x.checked_sub(y),
        '*' => x.checked_mul(y),
        _ => {
            if y == 0 {
                return Err(Error::Runtime("Division by zero".into()));
            }
            x.checked_div(y)
        }
    };
    r.map(|v| int_in(c, v))
        .ok_or_else(|| Error::Runtime("integer overflow beyond 128 bits".into()))
}

/// Applies `op` to an accumulated value and a new one.
pub(crate) fn apply(op: OperatorToken, acc: &GValue, v: &GValue) -> Result<GValue> {
    Ok(match op {
        OperatorToken::Sum => arith('+', acc, v)?,
        OperatorToken::SumLong => GValue::Int64(
            acc.as_i64()
                .unwrap_or(0)
                .wrapping_add(v.as_i64().unwrap_or(0)),
        ),
        OperatorToken::Minus => arith('-', acc, v)?,
        OperatorToken::Mult => arith('*', acc, v)?,
        OperatorToken::Div => arith('/', acc, v)?,
        OperatorToken::Min => {
            if order(v, acc) == Ordering::Less {
                v.clone()
            } else {
                acc.clone()
            }
        }
        OperatorToken::Max => {
            if order(v, acc) == Ordering::Greater {
                v.clone()
            } else {
                acc.clone()
            }
        }
        OperatorToken::Assign => v.clone(),
        OperatorToken::And => match (acc, v) {
            (GValue::Bool(a), GValue::Bool(b)) => GValue::Bool(*a && *b),
            _ => return Err(Error::Runtime("Operator.and needs booleans".into())),
        },
        OperatorToken::Or => match (acc, v) {
            (GValue::Bool(a), GValue::Bool(b)) => GValue::Bool(*a || *b),
            _ => return Err(Error::Runtime("Operator.or needs booleans".into())),
        },
        OperatorToken::AddAll => match (acc, v) {
            (GValue::List(a), GValue::List(b) | GValue::Set(b)) => {
                GValue::list(a.iter().chain(b.iter()).cloned().collect())
            }
            (GValue::Set(a), GValue::List(b) | GValue::Set(b)) => {
                GValue::set(a.iter().chain(b.iter()).cloned())
            }
            (GValue::Map(a), GValue::Map(b)) => GValue::map(a.iter().chain(b.iter()).cloned()),
            _ => return Err(Error::Runtime("Operator.addAll needs collections".into())),
        },
    })
}

/// `v * bulk` for `sum()` over a traverser standing for `bulk` objects.
pub(crate) fn times_bulk(v: &GValue, bulk: u64) -> Result<GValue> {
    if bulk == 1 {
        return Ok(v.clone());
    }
    arith('*', v, &GValue::Int64(bulk as i64)).map(|r| match (v, r) {
        // The bulk is a count, not a value: it does not widen the type.
        (GValue::Int32(_), GValue::Int64(x)) => {
            i32::try_from(x).map_or(GValue::Int64(x), GValue::Int32)
        }
        (GValue::Float32(_), GValue::Float64(x)) => GValue::Float32(x as f32),
        (_, r) => r,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn promotion_follows_the_wider_type_and_widens_on_overflow() {
        assert!(matches!(
            arith('+', &GValue::Int32(1), &GValue::Int32(2)).unwrap(),
            GValue::Int32(3)
        ));
        assert!(matches!(
            arith('+', &GValue::Int32(i32::MAX), &GValue::Int32(1)).unwrap(),
            GValue::Int64(2_147_483_648)
        ));
        assert!(matches!(
            arith('+', &GValue::Int32(1), &GValue::Float32(2.0)).unwrap(),
            GValue::Float32(_)
        ));
        assert!(matches!(
            arith('+', &GValue::Int64(1), &GValue::Float32(2.0)).unwrap(),
            GValue::Float64(_)
        ));
        assert!(matches!(
            arith('/', &GValue::Int32(7), &GValue::Int32(2)).unwrap(),
            GValue::Int32(3)
        ));
        assert!(arith('/', &GValue::Int32(7), &GValue::Int32(0)).is_err());
    }
}
