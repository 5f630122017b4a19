//! The feature files' value notation (`for-committers.asciidoc`,
//! "Gremlin Language Test Cases"), parsed into [`Note`]: a value that may
//! still name graph elements (`v[marko]`, `e[marko-knows->vadas]`), so
//! that parsing needs no graph. `graphs::Lookup` resolves a note into a
//! `GValue` against a store's snapshot, or renders it as gremlin-lang
//! literal text.
//!
//! Every form is anchored: a cell is notation only if the whole cell is
//! `prefix[...]` (plus the allowed suffix); anything else is a plain
//! string, as the doc says ("Any value not using the system notation will
//! be interpreted as a string").

use stratagraph::DateTime;
use stratagraph_gremlin::ast::{DirectionToken, TToken};
use stratagraph_gremlin::GValue;

/// An edge named by its ends' `name` properties and its label
/// (`marko-knows->vadas`).
#[derive(Debug, Clone, PartialEq)]
pub struct EdgeKey {
    /// The `name` of its out-vertex.
    pub out: String,
    /// Its label.
    pub label: String,
    /// The `name` of its in-vertex.
    pub inv: String,
}

/// One parsed notation value.
#[derive(Debug, Clone, PartialEq)]
pub enum Note {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A plain string, or `str[...]`.
    Str(String),
    /// `d[...]` with its type (and `d[NaN]`, `d[Infinity]`,
    /// `d[-Infinity]`): a numeric `GValue`.
    Num(GValue),
    /// `dt[...]`.
    Date(DateTime),
    /// `uuid[...]`.
    Uuid([u8; 16]),
    /// `v[name]`: the vertex.
    Vertex(String),
    /// `v[name].id`: its id.
    VertexId(String),
    /// `v[name].sid`: its id as a string.
    VertexSid(String),
    /// `e[a-label->b]`: the edge.
    Edge(EdgeKey),
    /// `e[...].id`.
    EdgeId(EdgeKey),
    /// `e[...].sid`.
    EdgeSid(EdgeKey),
    /// `vp[owner-key->value]`, or `vp[key->value]` (no owner: compared by
    /// key and value only).
    VertexProperty {
        /// The `name` of the vertex it belongs to, if given.
        owner: Option<String>,
        /// Its key.
        key: String,
        /// Its value (itself notation).
        value: Box<Note>,
    },
    /// `l[...]`.
    List(Vec<Note>),
    /// `s[...]`.
    Set(Vec<Note>),
    /// `m[{...}]`: JSON whose keys and string values are notation.
    Map(Vec<(Note, Note)>),
    /// `p[...]`: a path of objects (no labels).
    Path(Vec<Note>),
    /// `t[id]`, `t[label]`, `t[key]`, `t[value]`.
    T(TToken),
    /// `D[OUT]`, `D[IN]`, `D[BOTH]` (`from`/`to` are `OUT`/`IN`).
    Direction(DirectionToken),
    /// `M[onCreate]`, `M[onMatch]`, `M[outV]`, `M[inV]`: a `Merge` token,
    /// which has no `GValue` form.
    Merge(String),
    /// `c[...]`: a closure, which gremlin-lang cannot run.
    Closure(String),
}

/// Parses one notation string.
///
/// # Errors
/// A message naming the form that is malformed (`d[x].i` that is not an
/// Int32, a `t[...]` that is not a `T`, bad JSON in `m[...]`, ...).
pub fn parse(s: &str) -> Result<Note, String> {
    match s {
        "null" => return Ok(Note::Null),
        "true" => return Ok(Note::Bool(true)),
        "false" => return Ok(Note::Bool(false)),
        _ => {}
    }
    // Longer prefixes first: `str[` before `s[`, `dt[` before `d[`,
    // `vp[` before `v[`.
    if let Some(inner) = bracketed(s, "str[") {
        return Ok(Note::Str(inner.to_owned()));
    }
    if let Some(inner) = bracketed(s, "dt[") {
        return parse_date(inner)
            .map(Note::Date)
            .ok_or_else(|| format!("{s}: not an ISO-8601 date-time"));
    }
    if let Some(inner) = bracketed(s, "uuid[") {
        return parse_uuid(inner)
            .map(Note::Uuid)
            .ok_or_else(|| format!("{s}: not a UUID"));
    }
    if let Some(inner) = bracketed(s, "vp[") {
        return parse_vertex_property(inner).map_err(|e| format!("{s}: {e}"));
    }
    if let Some(inner) = bracketed(s, "l[") {
        return Ok(Note::List(items(inner)?));
    }
    if let Some(inner) = bracketed(s, "s[") {
        return Ok(Note::Set(items(inner)?));
    }
    if let Some(inner) = bracketed(s, "p[") {
        return Ok(Note::Path(items(inner)?));
    }
    if let Some(inner) = bracketed(s, "m[") {
        let json: serde_json::Value =
            serde_json::from_str(inner).map_err(|e| format!("{s}: bad JSON: {e}"))?;
        return from_json(&json).map_err(|e| format!("{s}: {e}"));
    }
    if let Some(inner) = bracketed(s, "t[") {
        return match inner {
            "id" => Ok(Note::T(TToken::Id)),
            "label" => Ok(Note::T(TToken::Label)),
            "key" => Ok(Note::T(TToken::Key)),
            "value" => Ok(Note::T(TToken::Value)),
            _ => Err(format!("{s}: not a T token")),
        };
    }
    if let Some(inner) = bracketed(s, "D[") {
        return match inner {
            "OUT" | "from" => Ok(Note::Direction(DirectionToken::Out)),
            "IN" | "to" => Ok(Note::Direction(DirectionToken::In)),
            "BOTH" => Ok(Note::Direction(DirectionToken::Both)),
            _ => Err(format!("{s}: not a Direction")),
        };
    }
    if let Some(inner) = bracketed(s, "M[") {
        return match inner {
            "onCreate" | "onMatch" | "outV" | "inV" => Ok(Note::Merge(inner.to_owned())),
            _ => Err(format!("{s}: not a Merge token")),
        };
    }
    if let Some(inner) = bracketed(s, "c[") {
        return Ok(Note::Closure(inner.to_owned()));
    }
    if let Some(rest) = s.strip_prefix("d[") {
        return parse_number(rest)
            .map(Note::Num)
            .map_err(|e| format!("{s}: {e}"));
    }
    if let Some(rest) = s.strip_prefix("v[") {
        return element(rest, s).map(|(name, suffix)| match suffix {
            Suffix::None => Note::Vertex(name.to_owned()),
            Suffix::Id => Note::VertexId(name.to_owned()),
            Suffix::Sid => Note::VertexSid(name.to_owned()),
        });
    }
    if let Some(rest) = s.strip_prefix("e[") {
        let (inner, suffix) = element(rest, s)?;
        let (out, label, inv) =
            triplet(inner).ok_or_else(|| format!("{s}: not an edge `out-label->in`"))?;
        let key = EdgeKey {
            out: out.to_owned(),
            label: label.to_owned(),
            inv: inv.to_owned(),
        };
        return Ok(match suffix {
            Suffix::None => Note::Edge(key),
            Suffix::Id => Note::EdgeId(key),
            Suffix::Sid => Note::EdgeSid(key),
        });
    }
    Ok(Note::Str(s.to_owned()))
}

/// The text between `prefix` and a final `]`, when `s` is exactly
/// `prefix...]`.
fn bracketed<'a>(s: &'a str, prefix: &str) -> Option<&'a str> {
    s.strip_prefix(prefix)?.strip_suffix(']')
}

/// What follows an element's brackets.
enum Suffix {
    None,
    Id,
    Sid,
}

/// `name].id` (after `v[` or `e[`) into the name and its suffix.
fn element<'a>(rest: &'a str, whole: &str) -> Result<(&'a str, Suffix), String> {
    if let Some(name) = rest.strip_suffix("].id") {
        Ok((name, Suffix::Id))
    } else if let Some(name) = rest.strip_suffix("].sid") {
        Ok((name, Suffix::Sid))
    } else if let Some(name) = rest.strip_suffix(']') {
        Ok((name, Suffix::None))
    } else {
        Err(format!(
            "{whole}: expected `]`, `].id` or `].sid` at the end"
        ))
    }
}

/// Splits `a-b->c` as TinkerPop's `(.+)-(.+)->(.+)` does: the first part
/// as long as possible, then the second.
pub fn triplet(s: &str) -> Option<(&str, &str, &str)> {
    let b = s.as_bytes();
    for i in (1..b.len()).rev() {
        if b[i] != b'-' {
            continue;
        }
        for j in (i + 2..b.len().saturating_sub(2)).rev() {
            if b[j] == b'-' && b[j + 1] == b'>' && j + 2 < b.len() {
                // '-' and '>' are ASCII, so these are char boundaries.
                return Some((&s[..i], &s[i + 1..j], &s[j + 2..]));
            }
        }
    }
    None
}

fn parse_vertex_property(inner: &str) -> Result<Note, String> {
    let (owner, key, value) = match triplet(inner) {
        Some((o, k, v)) => (Some(o.to_owned()), k, v),
        None => {
            let (k, v) = inner
                .split_once("->")
                .ok_or("not a vertex property `owner-key->value` or `key->value`")?;
            (None, k, v)
        }
    };
    Ok(Note::VertexProperty {
        owner,
        key: key.to_owned(),
        value: Box::new(parse(value)?),
    })
}

/// The items of `l[...]`, `s[...]` and `p[...]`: split at the commas that
/// are not inside brackets or braces (so an item may itself be `l[a,b]`
/// or `m[{"a":1,"b":2}]`), each item parsed as notation. Spaces are kept,
/// as the doc says ("Spaces are taken literally").
fn items(inner: &str) -> Result<Vec<Note>, String> {
    if inner.is_empty() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in inner.char_indices() {
        match c {
            '[' | '{' => depth += 1,
            ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(parse(&inner[start..i])?);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(parse(&inner[start..])?);
    Ok(out)
}

/// The JSON of `m[...]`: keys and string values are notation; numbers
/// are Int32 if they fit, else Int64, and Double if written with a
/// fraction or exponent (what Jackson gives TinkerPop's harness).
fn from_json(j: &serde_json::Value) -> Result<Note, String> {
    use serde_json::Value as J;
    Ok(match j {
        J::Null => Note::Null,
        J::Bool(b) => Note::Bool(*b),
        J::String(s) => parse(s)?,
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => Note::Num(i32::try_from(i).map_or(GValue::Int64(i), GValue::Int32)),
            (None, Some(f)) => Note::Num(GValue::Float64(f)),
            _ => return Err(format!("number {n} does not fit 64 bits")),
        },
        J::Array(a) => Note::List(a.iter().map(from_json).collect::<Result<_, _>>()?),
        J::Object(o) => Note::Map(
            o.iter()
                .map(|(k, v)| Ok((parse(k)?, from_json(v)?)))
                .collect::<Result<_, String>>()?,
        ),
    })
}

/// `29].i` (after `d[`): a typed number. `NaN`, `Infinity` and
/// `-Infinity` need no suffix (a Double), or take `.f`, `.d` or `.m`.
fn parse_number(rest: &str) -> Result<GValue, String> {
    let (digits, suffix) = match rest.rsplit_once("].") {
        Some((d, s)) if s.len() == 1 => (d, Some(s)),
        _ => (
            rest.strip_suffix(']')
                .ok_or("expected `].x` (x one of b s i l f d m n)")?,
            None,
        ),
    };
    let special = match digits {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    };
    let bad = |ty: &str| format!("{digits:?} is not a {ty}");
    Ok(match (suffix, special) {
        (None | Some("d"), Some(f)) => GValue::Float64(f),
        (Some("f"), Some(f)) => GValue::Float32(f as f32),
        (Some("m"), Some(f)) => GValue::BigDecimal(f),
        (None, None) => return Err("a number needs a type suffix (`.i`, `.l`, `.d`, ...)".into()),
        (Some("b"), None) => GValue::Int8(digits.parse().map_err(|_| bad("Byte"))?),
        (Some("s"), None) => GValue::Int16(digits.parse().map_err(|_| bad("Short"))?),
        (Some("i"), None) => GValue::Int32(digits.parse().map_err(|_| bad("Integer"))?),
        (Some("l"), None) => GValue::Int64(digits.parse().map_err(|_| bad("Long"))?),
        (Some("n"), None) => GValue::BigInt(digits.parse().map_err(|_| bad("BigInteger"))?),
        (Some("f"), None) => GValue::Float32(digits.parse().map_err(|_| bad("Float"))?),
        (Some("d"), None) => GValue::Float64(digits.parse().map_err(|_| bad("Double"))?),
        (Some("m"), None) => GValue::BigDecimal(digits.parse().map_err(|_| bad("BigDecimal"))?),
        (Some(other), _) => return Err(format!("unknown number suffix `.{other}`")),
    })
}

/// An ISO-8601 date-time: `YYYY-MM-DD`, optionally `THH:MM[:SS[.f]]`,
/// optionally `Z` or `±HH:MM` (none is UTC).
pub fn parse_date(s: &str) -> Option<DateTime> {
    let num = |t: &str| -> Option<i64> {
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit()))
            .then(|| t.parse().ok())
            .flatten()
    };
    let (date, time) = match s.split_once('T') {
        Some((d, t)) => (d, Some(t)),
        None => (s, None),
    };
    let (neg_year, date) = match date.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, date),
    };
    let mut parts = date.splitn(3, '-');
    let y = num(parts.next()?)?;
    let m = num(parts.next()?)?;
    let d = num(parts.next()?)?;
    let y = if neg_year { -y } else { y };
    if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
        return None;
    }
    let days = days_from_civil(y, m, d);
    let (mut secs, mut nanos, mut offset) = (0i64, 0u32, 0i32);
    if let Some(t) = time {
        let (clock, zone) = match t.find(['Z', '+', '-']) {
            Some(i) => (&t[..i], &t[i..]),
            None => (t, ""),
        };
        let (hms, frac) = match clock.split_once('.') {
            Some((a, b)) => (a, Some(b)),
            None => (clock, None),
        };
        let mut f = hms.split(':');
        let hh = num(f.next()?)?;
        let mm = num(f.next()?)?;
        let ss = match f.next() {
            Some(x) => num(x)?,
            None => 0,
        };
        if f.next().is_some() || hh > 23 || mm > 59 || ss > 60 {
            return None;
        }
        secs = hh * 3600 + mm * 60 + ss;
        if let Some(frac) = frac {
            if frac.is_empty() || frac.len() > 9 || !frac.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            nanos = format!("{frac:0<9}").parse().ok()?;
        }
        offset = match zone {
            "" | "Z" => 0,
            z => {
                let sign = if z.starts_with('-') { -1 } else { 1 };
                let (oh, om) = z[1..].split_once(':').unwrap_or((&z[1..], "0"));
                let (oh, om) = (num(oh)?, num(om)?);
                sign * i32::try_from(oh * 3600 + om * 60).ok()?
            }
        };
    }
    DateTime::new(days * 86_400 + secs - i64::from(offset), nanos, offset)
}

/// (year, month, day) to days since 1970-01-01 (Howard Hinnant's
/// `days_from_civil`).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The 16 bytes of an 8-4-4-4-12 UUID.
fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let lens: Vec<usize> = s.split('-').map(str::len).collect();
    if lens != [8, 4, 4, 4, 12] {
        return None;
    }
    let hex: String = s.split('-').collect();
    let mut out = [0u8; 16];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// One node of an expected tree and its children.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeNode {
    /// The node's object.
    pub value: Note,
    /// Its children in the order written.
    pub children: Vec<TreeNode>,
}

/// The ASCII tree of "the result should be a tree with a structure of":
/// one `|--value` per line, each level indented 3 more spaces.
///
/// # Errors
/// A line without `|--`, an indentation that is not a multiple of 3 or
/// that skips a level, or a value that is not notation.
pub fn parse_tree(text: &str) -> Result<Vec<TreeNode>, String> {
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let at = line
            .find("|--")
            .ok_or_else(|| format!("tree line {line:?} has no `|--`"))?;
        if !line[..at].chars().all(|c| c == ' ') {
            return Err(format!("tree line {line:?}: only spaces may precede `|--`"));
        }
        rows.push((at, parse(line[at + 3..].trim_end())?));
    }
    let base = rows.iter().map(|r| r.0).min().unwrap_or(0);
    let mut levels = Vec::with_capacity(rows.len());
    for (at, note) in rows {
        let off = at - base;
        if off % 3 != 0 {
            return Err(format!("tree indentation {off} is not a multiple of 3"));
        }
        levels.push((off / 3, note));
    }
    let mut pos = 0;
    let nodes = tree_level(&levels, &mut pos, 0)?;
    if pos != levels.len() {
        return Err("tree: a line is indented deeper than its parent allows".into());
    }
    Ok(nodes)
}

fn tree_level(
    rows: &[(usize, Note)],
    pos: &mut usize,
    depth: usize,
) -> Result<Vec<TreeNode>, String> {
    let mut out = Vec::new();
    while let Some((d, note)) = rows.get(*pos) {
        if *d < depth {
            break;
        }
        if *d > depth {
            return Err("tree: a line is indented more than one level below its parent".into());
        }
        *pos += 1;
        let children = tree_level(rows, pos, depth + 1)?;
        out.push(TreeNode {
            value: note.clone(),
            children,
        });
    }
    Ok(out)
}

/// Checks the parser on a handful of forms (the start-up self-check: a
/// wrong parser would turn every result into a false verdict).
pub fn self_check() -> Result<(), String> {
    let s = |x: &str| Note::Str(x.to_owned());
    let key = EdgeKey {
        out: "marko".into(),
        label: "knows".into(),
        inv: "vadas".into(),
    };
    let cases: Vec<(&str, Note)> = vec![
        ("d[29].i", Note::Num(GValue::Int32(29))),
        ("d[29].l", Note::Num(GValue::Int64(29))),
        ("d[-3].b", Note::Num(GValue::Int8(-3))),
        ("d[7].s", Note::Num(GValue::Int16(7))),
        ("d[0.5].f", Note::Num(GValue::Float32(0.5))),
        ("d[0.5].d", Note::Num(GValue::Float64(0.5))),
        ("d[1].m", Note::Num(GValue::BigDecimal(1.0))),
        (
            "d[123456789012345678901].n",
            Note::Num(GValue::BigInt(123_456_789_012_345_678_901)),
        ),
        (
            "d[-Infinity]",
            Note::Num(GValue::Float64(f64::NEG_INFINITY)),
        ),
        ("d[NaN]", Note::Num(GValue::Float64(f64::NAN))),
        ("marko", s("marko")),
        ("str[ x ]", s(" x ")),
        ("str[v[1]]", s("v[1]")),
        ("null", Note::Null),
        ("true", Note::Bool(true)),
        ("v[marko]", Note::Vertex("marko".into())),
        ("v[IM A MAN].id", Note::VertexId("IM A MAN".into())),
        ("v[lop].sid", Note::VertexSid("lop".into())),
        ("e[marko-knows->vadas]", Note::Edge(key.clone())),
        ("e[marko-knows->vadas].id", Note::EdgeId(key.clone())),
        (
            "vp[marko-age->d[29].i]",
            Note::VertexProperty {
                owner: Some("marko".into()),
                key: "age".into(),
                value: Box::new(Note::Num(GValue::Int32(29))),
            },
        ),
        (
            "vp[name->marko]",
            Note::VertexProperty {
                owner: None,
                key: "name".into(),
                value: Box::new(s("marko")),
            },
        ),
        ("l[]", Note::List(vec![])),
        (
            "l[a,d[1].i,null]",
            Note::List(vec![s("a"), Note::Num(GValue::Int32(1)), Note::Null]),
        ),
        (
            "l[l[a,b],c]",
            Note::List(vec![Note::List(vec![s("a"), s("b")]), s("c")]),
        ),
        ("s[]", Note::Set(vec![])),
        (
            "p[v[marko],e[marko-knows->vadas]]",
            Note::Path(vec![Note::Vertex("marko".into()), Note::Edge(key)]),
        ),
        ("t[label]", Note::T(TToken::Label)),
        ("D[from]", Note::Direction(DirectionToken::Out)),
        ("M[outV]", Note::Merge("outV".into())),
        (
            r#"m[{"t[id]":"v[marko].id","a":1,"b":1.5,"c":"l[x,y]"}]"#,
            Note::Map(vec![
                (s("a"), Note::Num(GValue::Int32(1))),
                (s("b"), Note::Num(GValue::Float64(1.5))),
                (s("c"), Note::List(vec![s("x"), s("y")])),
                (Note::T(TToken::Id), Note::VertexId("marko".into())),
            ]),
        ),
    ];
    for (text, want) in cases {
        let got = parse(text).map_err(|e| format!("notation self-check: {text}: {e}"))?;
        if !note_eq(&got, &want) {
            return Err(format!(
                "notation self-check: {text} gave {got:?}, expected {want:?}"
            ));
        }
    }
    for bad in [
        "d[29]",
        "d[x].i",
        "d[3000000000].i",
        "t[nope]",
        "m[{bad]",
        "e[nope].id",
    ] {
        if parse(bad).is_ok() {
            return Err(format!("notation self-check: {bad} should be refused"));
        }
    }
    let d = parse_date("2023-08-02T00:00:00-07:00").ok_or("notation self-check: date refused")?;
    if (d.seconds, d.offset_seconds) != (1_690_959_600, -25_200) {
        return Err(format!(
            "notation self-check: dt[2023-08-02T00:00:00-07:00] gave {d:?}"
        ));
    }
    let tree = parse_tree("|--a\n   |--b\n      |--c\n   |--d\n|--e")?;
    let shape: Vec<(usize, usize)> = tree
        .iter()
        .map(|n| {
            (
                n.children.len(),
                n.children.first().map_or(0, |c| c.children.len()),
            )
        })
        .collect();
    if shape != [(2, 1), (0, 0)] {
        return Err(format!("notation self-check: tree parsed as {tree:?}"));
    }
    Ok(())
}

/// Note equality for the self-check: maps compared without order (JSON
/// objects come back sorted), numbers by `GValue` equivalence.
fn note_eq(a: &Note, b: &Note) -> bool {
    match (a, b) {
        (Note::Map(x), Note::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.iter().any(|(k2, v2)| note_eq(k, k2) && note_eq(v, v2)))
        }
        (Note::List(x), Note::List(y))
        | (Note::Set(x), Note::Set(y))
        | (Note::Path(x), Note::Path(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| note_eq(p, q))
        }
        _ => a == b,
    }
}
