//! Comparing results with a table: typed, as TinkerPop's reference
//! harness (`gremlin-test`'s `StepDefinition`) compares them.
//!
//! - Scalars by `GValue` equivalence, which is type-strict (`d[29].i` is
//!   not `d[29].l`) with `NaN` equivalent to itself.
//! - Paths by their objects only: the notation has no labels
//!   (`IsPathEqualToMatcher`).
//! - `vp[key->value]` without an owner by key and value only; with one
//!   (`vp[marko-age->d[29].i]`) also by owner.
//! - Lists in order; sets and maps regardless of order, their members
//!   compared by these same rules.
//! - A table row that is a finite Double matches a Double result within
//!   1e-15 ([`DOUBLE_TOLERANCE`]): the reference harness's `closeTo` for
//!   top-level Double rows of `ordered` and `unordered`, and nowhere else
//!   (not inside collections, not for `of`, never across types).
//! - `unordered` is a multiset comparison (each row matched to its own
//!   result), `ordered` compares position by position, `of` asks every
//!   result to match some row.

use std::collections::HashMap;

use stratagraph_gremlin::value::{self, Owner};
use stratagraph_gremlin::GValue;

/// The absolute tolerance of a top-level Double row (`closeTo(expected,
/// 0.000000000000001)` in TinkerPop's `StepDefinition.getMatchers`).
pub const DOUBLE_TOLERANCE: f64 = 1e-15;

/// Whether result `act` is what `exp` (a resolved table value) describes.
pub fn matches(exp: &GValue, act: &GValue) -> bool {
    use GValue as G;
    match (exp, act) {
        (G::Path(e), G::Path(a)) => {
            e.entries.len() == a.entries.len()
                && e.objects().zip(a.objects()).all(|(x, y)| matches(x, y))
        }
        (G::VertexProperty(e), G::VertexProperty(a)) | (G::Property(e), G::Property(a)) => {
            (e.owner == Owner::None || e.owner == a.owner)
                && e.key == a.key
                && matches(&e.value, &a.value)
        }
        (G::List(e), G::List(a)) => {
            e.len() == a.len() && e.iter().zip(a.iter()).all(|(x, y)| matches(x, y))
        }
        (G::Set(e), G::Set(a)) => multiset(e, a, matches).is_ok(),
        (G::Map(e), G::Map(a)) => {
            multiset(e, a, |p, q| matches(&p.0, &q.0) && matches(&p.1, &q.1)).is_ok()
        }
        _ => exp == act,
    }
}

/// [`matches`] for a whole table row: a finite Double row also accepts a
/// Double within [`DOUBLE_TOLERANCE`].
pub fn row_matches(exp: &GValue, act: &GValue) -> bool {
    match (exp, act) {
        (GValue::Float64(e), GValue::Float64(a)) if e.is_finite() => {
            (e - a).abs() <= DOUBLE_TOLERANCE
        }
        _ => matches(exp, act),
    }
}

/// Whether `matches(v, x)` is exactly `v == x` (equivalence): no path,
/// no owner-less property anywhere inside, and (for a row) not a finite
/// Double. Such values can be matched by hashing.
fn is_plain(v: &GValue, row: bool) -> bool {
    use GValue as G;
    match v {
        G::Path(_) => false,
        G::Float64(f) => !(row && f.is_finite()),
        G::VertexProperty(p) | G::Property(p) => {
            p.owner != Owner::None && is_plain(&p.value, false)
        }
        G::List(xs) | G::Set(xs) => xs.iter().all(|x| is_plain(x, false)),
        G::Map(xs) => xs
            .iter()
            .all(|(k, x)| is_plain(k, false) && is_plain(x, false)),
        _ => true,
    }
}

/// What a multiset comparison left over: rows no result matched, results
/// no row matched (indices).
pub struct Unmatched {
    /// Rows without a result.
    pub expected: Vec<usize>,
    /// Results without a row.
    pub actual: Vec<usize>,
}

/// Pairs every `exp` with its own `act` (a perfect bipartite matching,
/// Kuhn's augmenting paths), or says what is left over.
fn multiset<E, A>(exp: &[E], act: &[A], f: impl Fn(&E, &A) -> bool) -> Result<(), Unmatched> {
    let all: Vec<usize> = (0..exp.len()).collect();
    let free: Vec<usize> = (0..act.len()).collect();
    let (exp_left, act_left) = kuhn(&all, &free, |e, a| f(&exp[e], &act[a]));
    if exp_left.is_empty() && act_left.is_empty() {
        Ok(())
    } else {
        Err(Unmatched {
            expected: exp_left,
            actual: act_left,
        })
    }
}

/// Maximum matching between `exp` and `act` (indices) under `f`; returns
/// the unmatched of each side.
fn kuhn(
    exp: &[usize],
    act: &[usize],
    f: impl Fn(usize, usize) -> bool,
) -> (Vec<usize>, Vec<usize>) {
    let adj: Vec<Vec<usize>> = exp
        .iter()
        .map(|&e| (0..act.len()).filter(|&j| f(e, act[j])).collect())
        .collect();
    let mut owner: Vec<Option<usize>> = vec![None; act.len()];
    let mut left = Vec::new();
    for (i, &e) in exp.iter().enumerate() {
        let mut seen = vec![false; act.len()];
        if !augment(i, &adj, &mut owner, &mut seen) {
            left.push(e);
        }
    }
    let act_left = (0..act.len())
        .filter(|&j| owner[j].is_none())
        .map(|j| act[j])
        .collect();
    (left, act_left)
}

fn augment(i: usize, adj: &[Vec<usize>], owner: &mut [Option<usize>], seen: &mut [bool]) -> bool {
    for &j in &adj[i] {
        if seen[j] {
            continue;
        }
        seen[j] = true;
        let free = match owner[j] {
            None => true,
            Some(k) => augment(k, adj, owner, seen),
        };
        if free {
            owner[j] = Some(i);
            return true;
        }
    }
    false
}

/// Rows against results as a multiset, rows matched with [`row_matches`].
/// Plain rows are matched by hashing first (equal results are
/// interchangeable, so taking any of them loses nothing); the rest by
/// [`kuhn`] over what is left.
pub fn unordered(exp: &[GValue], act: &[GValue]) -> Result<(), Unmatched> {
    let mut buckets: HashMap<&GValue, Vec<usize>> = HashMap::new();
    for (j, a) in act.iter().enumerate().rev() {
        buckets.entry(a).or_default().push(j);
    }
    let mut taken = vec![false; act.len()];
    let mut exp_left = Vec::new();
    let mut hard = Vec::new();
    for (i, e) in exp.iter().enumerate() {
        if !is_plain(e, true) {
            hard.push(i);
            continue;
        }
        match buckets.get_mut(e).and_then(Vec::pop) {
            Some(j) => taken[j] = true,
            None => exp_left.push(i),
        }
    }
    let free: Vec<usize> = (0..act.len()).filter(|&j| !taken[j]).collect();
    let (hard_left, act_left) = kuhn(&hard, &free, |e, a| row_matches(&exp[e], &act[a]));
    exp_left.extend(hard_left);
    exp_left.sort_unstable();
    if exp_left.is_empty() && act_left.is_empty() {
        Ok(())
    } else {
        Err(Unmatched {
            expected: exp_left,
            actual: act_left,
        })
    }
}

/// "the result should be unordered".
pub fn check_unordered(exp: &[GValue], act: &[GValue]) -> Result<(), String> {
    unordered(exp, act).map_err(|u| {
        let mut msg = format!("expected {} results, got {}", exp.len(), act.len());
        if !u.expected.is_empty() {
            msg.push_str(&format!(
                "\n  missing: {}",
                list(u.expected.iter().map(|&i| &exp[i]))
            ));
        }
        if !u.actual.is_empty() {
            msg.push_str(&format!(
                "\n  unexpected: {}",
                list(u.actual.iter().map(|&j| &act[j]))
            ));
        }
        msg
    })
}

/// "the result should be ordered".
pub fn check_ordered(exp: &[GValue], act: &[GValue]) -> Result<(), String> {
    if exp.len() != act.len() {
        return Err(format!(
            "expected {} results, got {}\n  expected: {}\n  got: {}",
            exp.len(),
            act.len(),
            list(exp.iter()),
            list(act.iter())
        ));
    }
    match exp.iter().zip(act).position(|(e, a)| !row_matches(e, a)) {
        None => Ok(()),
        Some(i) => Err(format!(
            "result {i} is {}, expected {}\n  expected: {}\n  got: {}",
            show(&act[i]),
            show(&exp[i]),
            list(exp.iter()),
            list(act.iter())
        )),
    }
}

/// "the result should be of": every result is one of the rows (TinkerPop's
/// `everyItem(in(expected))`; no tolerance there).
pub fn check_of(exp: &[GValue], act: &[GValue]) -> Result<(), String> {
    let plain: std::collections::HashSet<&GValue> =
        exp.iter().filter(|e| is_plain(e, false)).collect();
    let hard: Vec<&GValue> = exp.iter().filter(|e| !is_plain(e, false)).collect();
    let stray: Vec<&GValue> = act
        .iter()
        .filter(|a| !plain.contains(a) && !hard.iter().any(|e| matches(e, a)))
        .collect();
    if stray.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "{} of {} results are none of the {} rows: {}",
            stray.len(),
            act.len(),
            exp.len(),
            list(stray.into_iter())
        ))
    }
}

/// Up to 12 values, shown.
fn list<'v>(vs: impl Iterator<Item = &'v GValue>) -> String {
    let vs: Vec<&GValue> = vs.collect();
    let mut s: Vec<String> = vs.iter().take(12).map(|v| show(v)).collect();
    if vs.len() > 12 {
        s.push(format!("... ({} more)", vs.len() - 12));
    }
    format!("[{}]", s.join(", "))
}

/// A value in the feature notation, types shown (`d[29].i`), so a
/// failure says what differed.
pub fn show(v: &GValue) -> String {
    use GValue as G;
    let join = |xs: &[GValue]| xs.iter().map(show).collect::<Vec<_>>().join(",");
    match v {
        G::Null => "null".into(),
        G::Bool(b) => b.to_string(),
        G::Int8(i) => format!("d[{i}].b"),
        G::Int16(i) => format!("d[{i}].s"),
        G::Int32(i) => format!("d[{i}].i"),
        G::Int64(i) => format!("d[{i}].l"),
        G::BigInt(i) => format!("d[{i}].n"),
        G::Float32(f) => format!("d[{f:?}].f"),
        G::Float64(f) => format!("d[{f:?}].d"),
        G::BigDecimal(f) => format!("d[{f:?}].m"),
        G::String(s) => format!("{s:?}"),
        G::Uuid(u) => format!("uuid[{}]", value::uuid_text(u)),
        G::Date(d) => format!("dt[{}]", value::date_text(d)),
        G::Bytes(b) => format!("bytes{b:?}"),
        G::List(xs) => format!("l[{}]", join(xs)),
        G::Set(xs) => format!("s[{}]", join(xs)),
        G::Map(xs) => format!(
            "m[{{{}}}]",
            xs.iter()
                .map(|(k, x)| format!("{}:{}", show(k), show(x)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        G::Vertex(id) => format!("v[#{id}]"),
        G::Edge(e) => format!("e[#{}:{}-{}->{}]", e.id, e.src, e.label, e.dst),
        G::VertexProperty(p) => format!("vp[{}{}->{}]", owner(p.owner), p.key, show(&p.value)),
        G::Property(p) => format!("prop[{}{}->{}]", owner(p.owner), p.key, show(&p.value)),
        G::Path(p) => format!(
            "p[{}]",
            p.entries
                .iter()
                .map(|(labels, x)| if labels.is_empty() {
                    show(x)
                } else {
                    format!("{}@{}", show(x), labels.join("|"))
                })
                .collect::<Vec<_>>()
                .join(",")
        ),
        G::T(t) => format!("t[{}]", value::t_name(*t)),
        G::Direction(d) => format!("D[{}]", value::direction_name(*d)),
    }
}

fn owner(o: Owner) -> String {
    match o {
        Owner::Vertex(v) => format!("#{v}-"),
        Owner::Edge(e) => format!("e#{e}-"),
        Owner::None => String::new(),
    }
}

/// Checks the comparisons on a few values (the start-up self-check).
pub fn self_check() -> Result<(), String> {
    use std::sync::Arc;
    use stratagraph_gremlin::value::{Path, PropRef};
    let i = GValue::Int32;
    let path = |labels: Vec<Arc<str>>| {
        GValue::Path(Arc::new(Path {
            entries: vec![(labels, i(1)), (Vec::new(), GValue::str("a"))],
        }))
    };
    let vp = |owner| {
        GValue::VertexProperty(Arc::new(PropRef {
            owner,
            key: Arc::from("name"),
            value: GValue::str("marko"),
        }))
    };
    let checks = [
        ("Int32 vs Int64", !matches(&i(29), &GValue::Int64(29))),
        (
            "path labels ignored",
            matches(&path(vec![]), &path(vec![Arc::from("x")])),
        ),
        (
            "owner-less vp",
            matches(&vp(Owner::None), &vp(Owner::Vertex(1))),
        ),
        (
            "owned vp",
            !matches(&vp(Owner::Vertex(2)), &vp(Owner::Vertex(1))),
        ),
        (
            "row tolerance",
            row_matches(&GValue::Float64(0.3), &GValue::Float64(0.1 + 0.2)),
        ),
        (
            "no tolerance inside",
            !matches(
                &GValue::list(vec![GValue::Float64(0.3)]),
                &GValue::list(vec![GValue::Float64(0.1 + 0.2)]),
            ),
        ),
        (
            "no tolerance across types",
            !row_matches(&GValue::Float64(1.0), &GValue::Float32(1.0)),
        ),
        (
            "unordered",
            unordered(&[i(1), i(2), i(2)], &[i(2), i(1), i(2)]).is_ok(),
        ),
        (
            "unordered counts",
            unordered(&[i(1), i(2), i(2)], &[i(2), i(1), i(1)]).is_err(),
        ),
        (
            "maps without order",
            matches(
                &GValue::map([(GValue::str("a"), i(1)), (GValue::str("b"), i(2))]),
                &GValue::map([(GValue::str("b"), i(2)), (GValue::str("a"), i(1))]),
            ),
        ),
        (
            "of",
            check_of(&[i(1), i(2)], &[i(2), i(2)]).is_ok() && check_of(&[i(1)], &[i(3)]).is_err(),
        ),
    ];
    match checks.iter().find(|c| !c.1) {
        None => Ok(()),
        Some((name, _)) => Err(format!("comparison self-check failed: {name}")),
    }
}
