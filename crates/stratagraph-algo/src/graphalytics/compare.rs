//! The three Graphalytics comparison rules (exact, epsilon, equivalence), including the
//! row-count and vertex-set checks that precede every value comparison.
//!
//! Mismatches report the smallest failing vertex id, so a report is stable and points at a
//! concrete place to start debugging.

use std::collections::HashMap;
use std::fmt;

/// Relative tolerance of the epsilon rule (`EpsilonValidationRule`).
pub const EPSILON: f64 = 1e-4;

/// Why an output does not match its reference.
#[derive(Debug, Clone, PartialEq)]
pub enum Mismatch {
    /// Different number of rows.
    RowCount {
        /// Rows in the reference.
        expected: usize,
        /// Rows in the output.
        actual: usize,
    },
    /// A vertex appears more than once in the output.
    DuplicateVertex(u64),
    /// A reference vertex is absent from the output.
    MissingVertex(u64),
    /// The output has a vertex the reference lacks.
    UnexpectedVertex(u64),
    /// A value differs beyond what the rule allows.
    Value {
        /// The vertex.
        vertex: u64,
        /// Reference value, formatted.
        expected: String,
        /// Output value, formatted.
        actual: String,
    },
    /// Two vertices share a label in one labelling but not in the other.
    NotEquivalent {
        /// The vertex where the bijection breaks.
        vertex: u64,
        /// Explanation naming the conflicting labels.
        detail: String,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mismatch::RowCount { expected, actual } => {
                write!(f, "expected {expected} rows, got {actual}")
            }
            Mismatch::DuplicateVertex(v) => write!(f, "vertex {v} appears more than once"),
            Mismatch::MissingVertex(v) => write!(f, "vertex {v} missing from output"),
            Mismatch::UnexpectedVertex(v) => write!(f, "vertex {v} not in reference"),
            Mismatch::Value {
                vertex,
                expected,
                actual,
            } => write!(f, "vertex {vertex}: expected {expected}, got {actual}"),
            Mismatch::NotEquivalent { vertex, detail } => write!(f, "vertex {vertex}: {detail}"),
        }
    }
}

/// Runs the row-count and vertex-set checks and pairs every reference row with its output
/// value, in ascending vertex order.
fn align<T: Copy>(
    expected: &[(u64, T)],
    actual: &[(u64, T)],
) -> Result<Vec<(u64, T, T)>, Mismatch> {
    if expected.len() != actual.len() {
        return Err(Mismatch::RowCount {
            expected: expected.len(),
            actual: actual.len(),
        });
    }
    let mut by_id: HashMap<u64, T> = HashMap::with_capacity(actual.len());
    let mut dup: Option<u64> = None;
    for &(v, x) in actual {
        if by_id.insert(v, x).is_some() {
            dup = Some(dup.map_or(v, |d| d.min(v)));
        }
    }
    if let Some(v) = dup {
        return Err(Mismatch::DuplicateVertex(v));
    }
    let mut pairs: Vec<(u64, T, T)> = Vec::with_capacity(expected.len());
    let mut missing: Option<u64> = None;
    for &(v, e) in expected {
        match by_id.remove(&v) {
            Some(a) => pairs.push((v, e, a)),
            None => missing = Some(missing.map_or(v, |m| m.min(v))),
        }
    }
    if let Some(v) = missing {
        return Err(Mismatch::MissingVertex(v));
    }
    if let Some(&v) = by_id.keys().min() {
        return Err(Mismatch::UnexpectedVertex(v));
    }
    pairs.sort_unstable_by_key(|p| p.0);
    Ok(pairs)
}

/// Exact rule (`MatchLongValidationRule`): every value must be equal. Used for BFS and CDLP.
pub fn compare_exact(expected: &[(u64, i64)], actual: &[(u64, i64)]) -> Result<(), Mismatch> {
    match align(expected, actual)?
        .into_iter()
        .find(|(_, e, a)| e != a)
    {
        None => Ok(()),
        Some((vertex, e, a)) => Err(Mismatch::Value {
            vertex,
            expected: e.to_string(),
            actual: a.to_string(),
        }),
    }
}

/// Epsilon rule (`EpsilonValidationRule`): `|r − s| ≤ ε·|r|`; both infinite passes, exactly
/// one infinite fails. Used for PR, LCC and SSSP with [`EPSILON`].
///
/// The comparison is `≤`, so a reference of exactly 0 demands exactly 0. A NaN on either
/// side fails.
pub fn compare_epsilon(
    expected: &[(u64, f64)],
    actual: &[(u64, f64)],
    epsilon: f64,
) -> Result<(), Mismatch> {
    let ok = |r: f64, s: f64| {
        if r.is_infinite() || s.is_infinite() {
            r == s
        } else {
            (r - s).abs() <= epsilon * r.abs()
        }
    };
    match align(expected, actual)?
        .into_iter()
        .find(|&(_, r, s)| !ok(r, s))
    {
        None => Ok(()),
        Some((vertex, r, s)) => Err(Mismatch::Value {
            vertex,
            expected: format!("{r:e}"),
            actual: format!("{s:e}"),
        }),
    }
}

/// Equivalence rule (`EquivalenceValidationRule`): the map from reference labels to output
/// labels must be a bijection, i.e. both labellings induce the same partition. Used for WCC.
pub fn compare_equivalence(expected: &[(u64, i64)], actual: &[(u64, i64)]) -> Result<(), Mismatch> {
    let mut forward: HashMap<i64, (i64, u64)> = HashMap::new();
    let mut backward: HashMap<i64, (i64, u64)> = HashMap::new();
    for (vertex, e, a) in align(expected, actual)? {
        let &mut (mapped, first) = forward.entry(e).or_insert((a, vertex));
        if mapped != a {
            return Err(Mismatch::NotEquivalent {
                vertex,
                detail: format!(
                    "shares reference label {e} with vertex {first}, but output labels differ ({a} vs {mapped})"
                ),
            });
        }
        let &mut (mapped, first) = backward.entry(a).or_insert((e, vertex));
        if mapped != e {
            return Err(Mismatch::NotEquivalent {
                vertex,
                detail: format!(
                    "shares output label {a} with vertex {first}, but reference labels differ ({e} vs {mapped})"
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;

    #[test]
    fn set_checks() {
        assert_eq!(
            compare_exact(&[(1, 0)], &[(1, 0), (2, 0)]),
            Err(Mismatch::RowCount {
                expected: 1,
                actual: 2
            })
        );
        assert_eq!(
            compare_exact(&[(1, 0), (2, 0)], &[(1, 0), (1, 0)]),
            Err(Mismatch::DuplicateVertex(1))
        );
        assert_eq!(
            compare_exact(&[(1, 0), (2, 0)], &[(1, 0), (3, 0)]),
            Err(Mismatch::MissingVertex(2))
        );
    }

    #[test]
    fn epsilon_edges() {
        assert!(compare_epsilon(&[(1, 0.0)], &[(1, 0.0)], EPSILON).is_ok());
        assert!(compare_epsilon(&[(1, 0.0)], &[(1, 1e-300)], EPSILON).is_err());
        assert!(compare_epsilon(&[(1, 1.0)], &[(1, 1.0001)], EPSILON).is_ok());
        assert!(compare_epsilon(&[(1, 1.0)], &[(1, 1.00011)], EPSILON).is_err());
        let inf = f64::INFINITY;
        assert!(compare_epsilon(&[(1, inf)], &[(1, inf)], EPSILON).is_ok());
        assert!(compare_epsilon(&[(1, inf)], &[(1, f64::MAX)], EPSILON).is_err());
        assert!(compare_epsilon(&[(1, 1.0)], &[(1, inf)], EPSILON).is_err());
    }

    #[test]
    fn equivalence_both_directions() {
        let e = [(1, 5), (2, 5), (3, 7)];
        assert!(compare_equivalence(&e, &[(1, 0), (2, 0), (3, 1)]).is_ok());
        // Split a reference class.
        assert!(compare_equivalence(&e, &[(1, 0), (2, 1), (3, 1)]).is_err());
        // Merge two reference classes.
        assert!(compare_equivalence(&e, &[(1, 0), (2, 0), (3, 0)]).is_err());
    }
}
