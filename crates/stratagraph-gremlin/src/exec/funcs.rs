//! The one-object functions of Gremlin 3.7 and 3.8: strings (`toUpper`,
//! `concat`, `split`, ...), lists (`conjoin`, `intersect`, `product`, ...),
//! dates (`dateAdd`, `dateDiff`, `asDate`) and types (`asString`,
//! `asNumber`, `asBool`). Each maps the traverser's object, given its
//! arguments already evaluated; in `local` scope a string function maps
//! each member of a list.

use std::sync::Arc;

use stratagraph::DateTime;

use crate::ast::DtToken;
use crate::error::{Error, Result};
use crate::value::{days_from_civil, equals, GValue};

const FUNCS: &[&str] = &[
    "asString",
    "asNumber",
    "asBool",
    "asDate",
    "concat",
    "conjoin",
    "combine",
    "difference",
    "disjunct",
    "intersect",
    "merge",
    "product",
    "format",
    "length",
    "lTrim",
    "rTrim",
    "trim",
    "replace",
    "reverse",
    "split",
    "substring",
    "toLower",
    "toUpper",
    "dateAdd",
    "dateDiff",
];

/// Whether `name` is one of these functions.
pub(crate) fn is_func(name: &str) -> bool {
    FUNCS.contains(&name)
}

fn err(name: &str, v: &GValue, want: &str) -> Error {
    Error::Runtime(format!(
        "The {name}() step can only take {want} as argument, encountered {}",
        v.type_name()
    ))
}

fn string_of(name: &str, v: &GValue) -> Result<Option<Arc<str>>> {
    match v {
        GValue::String(s) => Ok(Some(s.clone())),
        GValue::Null => Ok(None),
        other => Err(err(name, other, "string")),
    }
}

/// Whether a string function maps each member of a list in `local` scope.
fn per_member(name: &str) -> bool {
    matches!(
        name,
        "length"
            | "lTrim"
            | "rTrim"
            | "trim"
            | "replace"
            | "split"
            | "substring"
            | "toLower"
            | "toUpper"
            | "asString"
    )
}

/// Applies function `name` to `obj` with `args`; `trav[i]` says whether
/// argument `i` came from a traversal (the errors differ).
pub(crate) fn apply(
    name: &str,
    obj: &GValue,
    args: &[GValue],
    trav: &[bool],
    local: bool,
) -> Result<GValue> {
    if local && per_member(name) {
        if let GValue::List(items) = obj {
            let out = items
                .iter()
                .map(|i| apply(name, i, args, trav, false))
                .collect::<Result<Vec<_>>>()
                .map_err(|e| match name {
                    "trim" | "lTrim" | "rTrim" | "toUpper" | "toLower" | "length" => {
                        Error::Runtime(format!(
                            "The {name}(local) step can only take string or list of strings, {e}"
                        ))
                    }
                    _ => e,
                })?;
            return Ok(GValue::list(out));
        }
    }
    let s = |v: &GValue| string_of(name, v);
    let arg_str = |i: usize| -> Result<Option<Arc<str>>> {
        match args.get(i) {
            Some(GValue::String(s)) => Ok(Some(s.clone())),
            Some(GValue::Null) | None => Ok(None),
            Some(other) => Err(err(name, other, "string")),
        }
    };
    let map_str = |f: &dyn Fn(&str) -> String| -> Result<GValue> {
        Ok(match s(obj)? {
            Some(t) => GValue::str(&f(&t)),
            None => GValue::Null,
        })
    };
    match name {
        "toUpper" => map_str(&|t| t.to_uppercase()),
        "toLower" => map_str(&|t| t.to_lowercase()),
        "trim" => map_str(&|t| t.trim().to_string()),
        "lTrim" => map_str(&|t| t.trim_start().to_string()),
        "rTrim" => map_str(&|t| t.trim_end().to_string()),
        "reverse" => Ok(match obj {
            GValue::String(t) => GValue::str(&t.chars().rev().collect::<String>()),
            GValue::List(items) => GValue::list(items.iter().rev().cloned().collect()),
            GValue::Null => GValue::Null,
            other => other.clone(),
        }),
        "length" => Ok(match s(obj)? {
            Some(t) => GValue::Int32(t.chars().count() as i32),
            None => GValue::Null,
        }),
        "concat" => {
            let mut out = match obj {
                GValue::Null => String::new(),
                GValue::String(t) => t.to_string(),
                other => {
                    return Err(Error::Runtime(format!(
                        "String concat() can only take string as argument, encountered {}",
                        other.type_name()
                    )))
                }
            };
            for a in args {
                if let GValue::String(t) = a {
                    out.push_str(t);
                } else if !matches!(a, GValue::Null) {
                    out.push_str(&a.to_string());
                }
            }
            Ok(GValue::str(&out))
        }
        "replace" => {
            let (Some(from), to) = (arg_str(0)?, arg_str(1)?) else {
                return Ok(obj.clone());
            };
            map_str(&|t| t.replace(&*from, to.as_deref().unwrap_or("")))
        }
        "split" => {
            let Some(t) = s(obj)? else {
                return Ok(GValue::Null);
            };
            let sep = arg_str(0)?;
            let parts: Vec<GValue> = match sep.as_deref() {
                None | Some("") if sep.is_none() => t.split_whitespace().map(GValue::str).collect(),
                Some("") => t.chars().map(|c| GValue::str(&c.to_string())).collect(),
                Some(sep) => t.split(sep).map(GValue::str).collect(),
                None => Vec::new(),
            };
            Ok(GValue::list(parts))
        }
        "substring" => {
            let Some(t) = s(obj)? else {
                return Ok(GValue::Null);
            };
            let chars: Vec<char> = t.chars().collect();
            let n = chars.len() as i64;
            let idx = |v: Option<&GValue>| v.and_then(GValue::as_i64);
            let start = idx(args.first()).unwrap_or(0);
            let start = if start < 0 {
                (n + start).max(0)
            } else {
                start.min(n)
            };
            let end = match idx(args.get(1)) {
                Some(e) if e < 0 => (n + e).max(0),
                Some(e) => e.min(n),
                None => n,
            };
            if end <= start {
                return Ok(GValue::str(""));
            }
            Ok(GValue::str(
                &chars[start as usize..end as usize]
                    .iter()
                    .collect::<String>(),
            ))
        }
        "asString" => Ok(match obj {
            GValue::Null => return Err(Error::Runtime("Can't parse null as String.".into())),
            GValue::String(_) => obj.clone(),
            other => GValue::str(&other.to_string()),
        }),
        "asBool" => Ok(match obj {
            GValue::Bool(_) => obj.clone(),
            GValue::String(t) => match t.to_ascii_lowercase().as_str() {
                "true" => GValue::Bool(true),
                "false" => GValue::Bool(false),
                _ => return Err(Error::Runtime(format!("Can't parse {t} as Boolean."))),
            },
            v if v.is_number() => GValue::Bool(v.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan())),
            GValue::Null => return Err(Error::Runtime("Can't parse null as Boolean.".into())),
            other => {
                return Err(Error::Runtime(format!(
                    "Can't parse {} as Boolean.",
                    other.type_name()
                )))
            }
        }),
        "asDate" => Ok(match obj {
            GValue::Date(_) => obj.clone(),
            GValue::String(t) => GValue::Date(
                parse_date(t).map_err(|_| Error::Runtime(format!("Can't parse {t} as Date.")))?,
            ),
            v if v.is_number() => {
                let ms = v
                    .as_i64()
                    .or_else(|| v.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                    .ok_or_else(|| Error::Runtime(format!("Can't parse {v} as Date.")))?;
                GValue::Date(DateTime {
                    seconds: ms.div_euclid(1000),
                    nanos: (ms.rem_euclid(1000) * 1_000_000) as u32,
                    offset_seconds: 0,
                })
            }
            other => {
                return Err(Error::Runtime(format!(
                    "Can't parse {} as Date.",
                    if matches!(other, GValue::Null) {
                        "null".to_string()
                    } else {
                        other.type_name().to_string()
                    }
                )))
            }
        }),
        "asNumber" => as_number(obj, args.first()),
        "dateAdd" | "dateDiff" => dates(name, obj, args),
        "conjoin" => {
            let items = incoming(name, obj)?;
            let sep = match args.first() {
                Some(GValue::String(s)) => s.to_string(),
                Some(GValue::Null) | None => {
                    return Err(Error::Runtime(format!(
                        "Argument provided for {name} step can't be null"
                    )))
                }
                Some(other) => other.to_string(),
            };
            let parts: Vec<String> = items
                .iter()
                .filter(|v| !matches!(v, GValue::Null))
                .map(|v| v.to_string())
                .collect();
            Ok(GValue::str(&parts.join(&sep)))
        }
        "merge" if matches!(obj, GValue::Map(_)) => {
            let GValue::Map(a) = obj else {
                return Ok(obj.clone());
            };
            match args.first() {
                Some(GValue::Map(b)) => Ok(GValue::map(a.iter().chain(b.iter()).cloned())),
                Some(other) => Err(Error::Runtime(format!(
                    "{name} step expected provided argument to evaluate to a Map, encountered {}",
                    other.type_name()
                ))),
                None => Err(Error::Runtime(format!(
                    "Argument provided for {name} step can't be null"
                ))),
            }
        }
        "combine" | "difference" | "disjunct" | "intersect" | "merge" | "product" => {
            let a = incoming(name, obj)?;
            let b = argument(name, args.first(), trav.first().copied().unwrap_or(false))?;
            lists(name, a, b)
        }
        "format" => Err(Error::Runtime("format() is not supported yet".into())),
        _ => Err(Error::Runtime(format!("{name}() is not supported"))),
    }
}

/// The members of an iterable value (a list, a set, a path's objects).
fn members(v: &GValue) -> Option<Vec<GValue>> {
    match v {
        GValue::List(i) | GValue::Set(i) => Some(i.to_vec()),
        GValue::Path(p) => Some(p.objects().cloned().collect()),
        _ => None,
    }
}

/// The incoming object of a list function, in TinkerPop's words when it
/// is not a list.
fn incoming(name: &str, v: &GValue) -> Result<Vec<GValue>> {
    match v {
        GValue::Null => Err(Error::Runtime(format!(
            "Incoming traverser for {name} step can't be null"
        ))),
        other => members(other).ok_or_else(|| {
            Error::Runtime(format!(
                "{name} step can only take an array or an Iterable type for incoming traversers, encountered {}",
                other.type_name()
            ))
        }),
    }
}

/// The argument of a list function: a literal or what a traversal gave.
fn argument(name: &str, v: Option<&GValue>, from_traversal: bool) -> Result<Vec<GValue>> {
    match (v, from_traversal) {
        (None | Some(GValue::Null), true) => Err(Error::Runtime(format!(
            "traversal argument for {name} step must yield an iterable type, not null"
        ))),
        (None | Some(GValue::Null), false) => Err(Error::Runtime(format!(
            "Argument provided for {name} step can't be null"
        ))),
        (Some(other), true) => members(other).ok_or_else(|| {
            Error::Runtime(format!(
                "traversal argument for {name} step must yield an iterable type, encountered {}",
                other.type_name()
            ))
        }),
        (Some(other), false) => members(other).ok_or_else(|| {
            Error::Runtime(format!(
                "{name} step can only take an array or an Iterable as an argument, encountered {}",
                other.type_name()
            ))
        }),
    }
}

fn lists(name: &str, a: Vec<GValue>, b: Vec<GValue>) -> Result<GValue> {
    let has = |xs: &[GValue], v: &GValue| xs.iter().any(|x| equals(x, v));
    Ok(match name {
        "combine" => GValue::list(a.into_iter().chain(b).collect()),
        "merge" => GValue::set(a.into_iter().chain(b)),
        "difference" => GValue::set(
            a.iter()
                .filter(|v| !has(&b, v))
                .cloned()
                .collect::<Vec<_>>(),
        ),
        "intersect" => GValue::set(a.iter().filter(|v| has(&b, v)).cloned().collect::<Vec<_>>()),
        "disjunct" => GValue::set(
            a.iter()
                .filter(|v| !has(&b, v))
                .chain(b.iter().filter(|v| !has(&a, v)))
                .cloned()
                .collect::<Vec<_>>(),
        ),
        _ => {
            let mut out = Vec::new();
            for x in &a {
                for y in &b {
                    out.push(GValue::list(vec![x.clone(), y.clone()]));
                }
            }
            GValue::list(out)
        }
    })
}

/// Parses a number as Java's `NumberHelper` does: an integer (decimal or
/// `0x` hex) in the narrowest of Int32, Int64, BigInt; else a double.
fn parse_number(text: &str) -> Option<GValue> {
    let t = text.trim();
    let (neg, digits) = match t.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let int = if let Some(hex) = digits
        .strip_prefix("0x")
        .or_else(|| digits.strip_prefix("0X"))
    {
        i128::from_str_radix(hex, 16).ok()
    } else if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) {
        digits.parse::<i128>().ok()
    } else {
        None
    };
    if let Some(i) = int {
        let i = if neg { -i } else { i };
        return Some(if let Ok(x) = i32::try_from(i) {
            GValue::Int32(x)
        } else if let Ok(x) = i64::try_from(i) {
            GValue::Int64(x)
        } else {
            GValue::BigInt(i)
        });
    }
    if t.bytes()
        .any(|b| b.is_ascii_alphabetic() && !matches!(b, b'e' | b'E'))
    {
        return None;
    }
    t.parse::<f64>().ok().map(GValue::Float64)
}

/// `asNumber()`, `asNumber(GType.X)`.
fn as_number(obj: &GValue, to: Option<&GValue>) -> Result<GValue> {
    let v = match obj {
        GValue::Null => return Ok(GValue::Null),
        v if v.is_number() => v.clone(),
        GValue::String(t) => parse_number(t)
            .ok_or_else(|| Error::Runtime(format!("Can't parse string '{t}' as number.")))?,
        GValue::Date(d) => GValue::Int64(d.seconds * 1000 + i64::from(d.nanos / 1_000_000)),
        other => {
            let java = match other {
                GValue::List(_) => "ArrayList",
                GValue::Set(_) => "LinkedHashSet",
                GValue::Map(_) => "LinkedHashMap",
                o => o.type_name(),
            };
            return Err(Error::Runtime(format!(
                "Can't parse type {java} as number."
            )));
        }
    };
    let Some(GValue::String(to)) = to else {
        return Ok(v);
    };
    let overflow = |target: &str| {
        Error::Runtime(format!(
            "Can't convert number of type {} to {target} due to overflow.",
            v.type_name()
        ))
    };
    let whole = || -> Option<i128> {
        match v.num()? {
            crate::value::Num::Int(i) => Some(i),
            crate::value::Num::Float(f) if f.is_finite() => Some(f.trunc() as i128),
            crate::value::Num::Float(_) => None,
        }
    };
    let f = v.as_f64().unwrap_or(f64::NAN);
    Ok(match to.to_ascii_uppercase().as_str() {
        "BYTE" => GValue::Int8(
            whole()
                .and_then(|i| i8::try_from(i).ok())
                .ok_or_else(|| overflow("Byte"))?,
        ),
        "SHORT" => GValue::Int16(
            whole()
                .and_then(|i| i16::try_from(i).ok())
                .ok_or_else(|| overflow("Short"))?,
        ),
        "INT" => GValue::Int32(
            whole()
                .and_then(|i| i32::try_from(i).ok())
                .ok_or_else(|| overflow("Integer"))?,
        ),
        "LONG" => GValue::Int64(
            whole()
                .and_then(|i| i64::try_from(i).ok())
                .ok_or_else(|| overflow("Long"))?,
        ),
        "BIGINT" => GValue::BigInt(whole().ok_or_else(|| overflow("BigInteger"))?),
        "FLOAT" => {
            if f.is_finite() && (f as f32).is_infinite() {
                return Err(overflow("Float"));
            }
            GValue::Float32(f as f32)
        }
        "DOUBLE" => GValue::Float64(f),
        "BIGDECIMAL" => GValue::BigDecimal(f),
        "NUMBER" => v,
        other => {
            return Err(Error::Runtime(format!(
                "asNumber() requires a numeric type token, got {other}"
            )))
        }
    })
}

fn dates(name: &str, obj: &GValue, args: &[GValue]) -> Result<GValue> {
    let GValue::Date(d) = obj else {
        return Err(err(name, obj, "Date"));
    };
    if name == "dateDiff" {
        // In milliseconds, as Java's `Duration.toMillis()`; `null` is the
        // epoch.
        let millis = |d: &DateTime| d.seconds * 1000 + i64::from(d.nanos / 1_000_000);
        let other = match args.first() {
            Some(GValue::Date(o)) => millis(o),
            Some(GValue::Null) | None => 0,
            Some(v) => return Err(err(name, v, "Date")),
        };
        return Ok(GValue::Int64(millis(d) - other));
    }
    let (unit, n) = match args {
        [GValue::String(u), n] => (u.to_string(), n.as_i64().unwrap_or(0)),
        _ => {
            return Err(Error::Runtime(
                "dateAdd() takes a DT unit and a count".into(),
            ))
        }
    };
    let secs = match unit.as_str() {
        "second" => 1,
        "minute" => 60,
        "hour" => 3600,
        _ => 86_400,
    };
    Ok(GValue::Date(DateTime {
        seconds: d.seconds + n * secs,
        ..*d
    }))
}

/// The name of a `DT` unit (`dateAdd` receives it as a string).
pub(crate) fn dt_name(t: DtToken) -> &'static str {
    match t {
        DtToken::Second => "second",
        DtToken::Minute => "minute",
        DtToken::Hour => "hour",
        DtToken::Day => "day",
    }
}

/// Parses an ISO-8601 date-time (`2023-08-02T00:00:00Z`, with an offset,
/// or a bare date meaning midnight UTC).
pub(crate) fn parse_date(text: &str) -> Result<DateTime> {
    let bad = || Error::Runtime(format!("{text:?} is not an ISO-8601 date-time"));
    let b = text.trim();
    let num = |s: &str| s.parse::<i64>().map_err(|_| bad());
    let (date, rest) = match b.find('T') {
        Some(i) => (&b[..i], &b[i + 1..]),
        None => (b, ""),
    };
    let mut parts = date.splitn(3, '-');
    let (y, m, d) = (
        num(parts.next().ok_or_else(bad)?)?,
        num(parts.next().ok_or_else(bad)?)?,
        num(parts.next().ok_or_else(bad)?)?,
    );
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return Err(bad());
    }
    let (time, offset) = match rest.find(['Z', '+', '-']) {
        Some(i) => (&rest[..i], &rest[i..]),
        None => (rest, ""),
    };
    let mut secs = 0i64;
    let mut nanos = 0u32;
    if !time.is_empty() {
        let mut t = time.split(':');
        let hh = num(t.next().ok_or_else(bad)?)?;
        let mm = num(t.next().unwrap_or("0"))?;
        let ss = t.next().unwrap_or("0");
        let (whole, frac) = match ss.find('.') {
            Some(i) => (&ss[..i], &ss[i + 1..]),
            None => (ss, ""),
        };
        secs = hh * 3600 + mm * 60 + num(whole)?;
        if !frac.is_empty() {
            let digits: String = frac.chars().chain(std::iter::repeat('0')).take(9).collect();
            nanos = digits.parse().map_err(|_| bad())?;
        }
    }
    let offset_seconds: i32 = match offset {
        "" | "Z" => 0,
        o => {
            let sign = if o.starts_with('-') { -1 } else { 1 };
            let mut hm = o[1..].split(':');
            let h = num(hm.next().ok_or_else(bad)?)?;
            let m = num(hm.next().unwrap_or("0"))?;
            sign * (h * 3600 + m * 60) as i32
        }
    };
    let local = days_from_civil(y, m as u32, d as u32) * 86_400 + secs;
    DateTime::new(local - i64::from(offset_seconds), nanos, offset_seconds).ok_or_else(bad)
}

/// The current time, UTC.
pub(crate) fn now() -> DateTime {
    let d = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    DateTime {
        seconds: d.as_secs() as i64,
        nanos: d.subsec_nanos(),
        offset_seconds: 0,
    }
}

/// A random (version 4) UUID.
pub(crate) fn random_uuid() -> [u8; 16] {
    use std::hash::{BuildHasher, Hasher};
    let mut out = [0u8; 16];
    for half in 0..2 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u64(now().nanos as u64 ^ half);
        out[half as usize * 8..half as usize * 8 + 8].copy_from_slice(&h.finish().to_le_bytes());
    }
    out[6] = (out[6] & 0x0f) | 0x40;
    out[8] = (out[8] & 0x3f) | 0x80;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::date_text;

    #[test]
    fn dates_parse_and_print_back() {
        for t in [
            "2023-08-02T00:00Z",
            "2023-08-02T10:15:30+01:00",
            "1969-12-31T23:59:59.500Z",
        ] {
            assert_eq!(date_text(&parse_date(t).unwrap()), t);
        }
        assert!(parse_date("2023-13-01").is_err());
    }
}
