//! Predicates (`P` and `TextP`) and how they test a value: `eq`/`neq`
//! and `within`/`without` by equality, the ordering ones by
//! comparability, where a value that cannot be compared fails the test
//! (`spec/gremlin-semantics.asciidoc`: `P.lt(1)` is false of `"a"`, and so
//! is `P.gte(1)`).

use std::cmp::Ordering;

use crate::ast::GTypeToken;
use crate::value::{compare, equals, GValue};

/// A compiled predicate.
#[derive(Debug, Clone)]
pub(crate) enum Predicate {
    Eq(GValue),
    Neq(GValue),
    Lt(GValue),
    Lte(GValue),
    Gt(GValue),
    Gte(GValue),
    /// `inside(a, b)`: `a < x < b`.
    Inside(GValue, GValue),
    /// `outside(a, b)`: `x < a or x > b`.
    Outside(GValue, GValue),
    /// `between(a, b)`: `a <= x < b`.
    Between(GValue, GValue),
    Within(Vec<GValue>),
    Without(Vec<GValue>),
    Text(TextOp, String, bool),
    Regex(regex::Regex, bool),
    /// `P.typeOf(GType.X)` or `P.typeOf("ClassName")`.
    TypeOf(GTypeToken),
    And(Box<Predicate>, Box<Predicate>),
    Or(Box<Predicate>, Box<Predicate>),
    Not(Box<Predicate>),
}

/// The string tests of `TextP`; the flag beside negates.
#[derive(Debug, Clone, Copy)]
pub(crate) enum TextOp {
    Containing,
    StartingWith,
    EndingWith,
}

/// A predicate by its name and arguments, or what is wrong with them.
pub(crate) fn build(name: &str, mut args: Vec<GValue>) -> Result<Predicate, String> {
    let one = |args: &mut Vec<GValue>| -> Result<GValue, String> {
        if args.len() == 1 {
            Ok(args.remove(0))
        } else {
            Err(format!("{name}() takes one value"))
        }
    };
    let two = |args: &mut Vec<GValue>| -> Result<(GValue, GValue), String> {
        if args.len() == 2 {
            let b = args.remove(1);
            Ok((args.remove(0), b))
        } else {
            Err(format!("{name}() takes two values"))
        }
    };
    let text = |args: &mut Vec<GValue>| -> Result<String, String> {
        match one(args)? {
            GValue::String(s) => Ok(s.to_string()),
            other => Err(format!("{name}() takes a string, not {other}")),
        }
    };
    let members = |args: Vec<GValue>| -> Vec<GValue> {
        // within([a, b]) and within(a, b) mean the same.
        if let [GValue::List(items)] | [GValue::Set(items)] = args.as_slice() {
            return items.to_vec();
        }
        args
    };
    Ok(match name {
        "eq" => Predicate::Eq(one(&mut args)?),
        "neq" => Predicate::Neq(one(&mut args)?),
        "lt" => Predicate::Lt(one(&mut args)?),
        "lte" => Predicate::Lte(one(&mut args)?),
        "gt" => Predicate::Gt(one(&mut args)?),
        "gte" => Predicate::Gte(one(&mut args)?),
        "inside" => {
            let (a, b) = two(&mut args)?;
            Predicate::Inside(a, b)
        }
        "outside" => {
            let (a, b) = two(&mut args)?;
            Predicate::Outside(a, b)
        }
        "between" => {
            let (a, b) = two(&mut args)?;
            Predicate::Between(a, b)
        }
        "within" => Predicate::Within(members(args)),
        "without" => Predicate::Without(members(args)),
        "containing" => Predicate::Text(TextOp::Containing, text(&mut args)?, false),
        "notContaining" => Predicate::Text(TextOp::Containing, text(&mut args)?, true),
        "startingWith" => Predicate::Text(TextOp::StartingWith, text(&mut args)?, false),
        "notStartingWith" => Predicate::Text(TextOp::StartingWith, text(&mut args)?, true),
        "endingWith" => Predicate::Text(TextOp::EndingWith, text(&mut args)?, false),
        "notEndingWith" => Predicate::Text(TextOp::EndingWith, text(&mut args)?, true),
        "regex" | "notRegex" => {
            let pattern = text(&mut args)?;
            let re = regex::Regex::new(&pattern)
                .map_err(|e| format!("{name}(): {pattern:?} is not a regular expression: {e}"))?;
            Predicate::Regex(re, name == "notRegex")
        }
        _ => return Err(format!("the predicate {name}() is not supported")),
    })
}

fn cmp_is(v: &GValue, bound: &GValue, ok: impl Fn(Ordering) -> bool) -> bool {
    compare(v, bound).is_some_and(ok)
}

impl Predicate {
    /// This comparison (`eq` ... `gte`) against `v` instead; any other
    /// predicate as it is.
    pub(crate) fn with_value(&self, v: GValue) -> Predicate {
        match self {
            Predicate::Eq(_) => Predicate::Eq(v),
            Predicate::Neq(_) => Predicate::Neq(v),
            Predicate::Lt(_) => Predicate::Lt(v),
            Predicate::Lte(_) => Predicate::Lte(v),
            Predicate::Gt(_) => Predicate::Gt(v),
            Predicate::Gte(_) => Predicate::Gte(v),
            other => other.clone(),
        }
    }

    /// Whether `v` passes.
    pub(crate) fn test(&self, v: &GValue) -> bool {
        match self {
            Predicate::Eq(x) => equals(v, x),
            Predicate::Neq(x) => !equals(v, x),
            Predicate::Lt(x) => cmp_is(v, x, |o| o == Ordering::Less),
            Predicate::Lte(x) => cmp_is(v, x, |o| o != Ordering::Greater),
            Predicate::Gt(x) => cmp_is(v, x, |o| o == Ordering::Greater),
            Predicate::Gte(x) => cmp_is(v, x, |o| o != Ordering::Less),
            Predicate::Inside(a, b) => {
                cmp_is(v, a, |o| o == Ordering::Greater) && cmp_is(v, b, |o| o == Ordering::Less)
            }
            Predicate::Outside(a, b) => {
                cmp_is(v, a, |o| o == Ordering::Less) || cmp_is(v, b, |o| o == Ordering::Greater)
            }
            Predicate::Between(a, b) => {
                cmp_is(v, a, |o| o != Ordering::Less) && cmp_is(v, b, |o| o == Ordering::Less)
            }
            Predicate::Within(xs) => xs.iter().any(|x| equals(v, x)),
            Predicate::Without(xs) => !xs.iter().any(|x| equals(v, x)),
            Predicate::Text(op, s, negate) => match v {
                GValue::String(t) => {
                    let hit = match op {
                        TextOp::Containing => t.contains(s.as_str()),
                        TextOp::StartingWith => t.starts_with(s.as_str()),
                        TextOp::EndingWith => t.ends_with(s.as_str()),
                    };
                    hit != *negate
                }
                _ => false,
            },
            Predicate::Regex(re, negate) => match v {
                // Java's `Matcher.find()`: a match anywhere in the text.
                GValue::String(t) => re.is_match(t) != *negate,
                _ => false,
            },
            Predicate::TypeOf(t) => is_type(v, *t),
            Predicate::And(a, b) => a.test(v) && b.test(v),
            Predicate::Or(a, b) => a.test(v) || b.test(v),
            Predicate::Not(a) => !a.test(v),
        }
    }
}

/// The type a `typeOf("Name")` names, by the simple class names TinkerPop
/// registers for its types.
pub(crate) fn type_named(name: &str) -> Option<GTypeToken> {
    use GTypeToken as G;
    Some(match name {
        "BigDecimal" => G::BigDecimal,
        "BigInteger" => G::BigInt,
        "Binary" | "ByteBuffer" => G::Binary,
        "Boolean" => G::Boolean,
        "Byte" => G::Byte,
        "Character" => G::Char,
        "OffsetDateTime" | "Date" | "DateTime" => G::DateTime,
        "Double" => G::Double,
        "Duration" => G::Duration,
        "Edge" => G::Edge,
        "Float" => G::Float,
        "Graph" => G::Graph,
        "Integer" => G::Int,
        "List" => G::List,
        "Long" => G::Long,
        "Map" => G::Map,
        "Number" => G::Number,
        "Path" => G::Path,
        "Property" => G::Property,
        "Set" => G::Set,
        "Short" => G::Short,
        "String" => G::String,
        "Tree" => G::Tree,
        "UUID" => G::Uuid,
        "Vertex" => G::Vertex,
        "VertexProperty" => G::VProperty,
        _ => return None,
    })
}

/// Whether `v` is of type `t` or one of its subtypes.
fn is_type(v: &GValue, t: GTypeToken) -> bool {
    use GTypeToken as G;
    match t {
        G::Number => v.is_number(),
        G::BigDecimal => matches!(v, GValue::BigDecimal(_)),
        G::BigInt => matches!(v, GValue::BigInt(_)),
        G::Binary => matches!(v, GValue::Bytes(_)),
        G::Boolean => matches!(v, GValue::Bool(_)),
        G::Byte => matches!(v, GValue::Int8(_)),
        G::Short => matches!(v, GValue::Int16(_)),
        G::Int => matches!(v, GValue::Int32(_)),
        G::Long => matches!(v, GValue::Int64(_)),
        G::Float => matches!(v, GValue::Float32(_)),
        G::Double => matches!(v, GValue::Float64(_)),
        G::DateTime => matches!(v, GValue::Date(_)),
        G::String => matches!(v, GValue::String(_)),
        G::Uuid => matches!(v, GValue::Uuid(_)),
        G::List => matches!(v, GValue::List(_)),
        G::Set => matches!(v, GValue::Set(_)),
        G::Map => matches!(v, GValue::Map(_)),
        G::Vertex => matches!(v, GValue::Vertex(_)),
        G::Edge => matches!(v, GValue::Edge(_)),
        G::VProperty => matches!(v, GValue::VertexProperty(_)),
        G::Property => matches!(v, GValue::Property(_)),
        G::Path => matches!(v, GValue::Path(_)),
        G::Null => matches!(v, GValue::Null),
        G::Char | G::Duration | G::Graph | G::Tree => false,
    }
}
