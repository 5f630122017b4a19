//! Parsers for reference (and platform) outputs: one `vertexId value` pair per line.
//!
//! Values are parsed as numbers, never compared as text, because the published files mix
//! formats (`1.0`, `1.477629166666667e-01`, `infinity`, `+Infinity`).

use std::path::Path;

use super::error::GraphalyticsError;

/// Splits each non-blank line into exactly two fields and parses them.
fn parse_pairs<T>(
    text: &str,
    path: &Path,
    parse_value: impl Fn(&str) -> Option<T>,
) -> Result<Vec<(u64, T)>, GraphalyticsError> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
        .map(|(n, line)| {
            let bad = |msg: String| GraphalyticsError::malformed(path, n, msg);
            let mut tokens = line.split_whitespace();
            let (Some(id), Some(value), None) = (tokens.next(), tokens.next(), tokens.next())
            else {
                return Err(bad(format!("expected `vertex value`, found `{line}`")));
            };
            let id = id
                .parse::<u64>()
                .map_err(|_| bad(format!("bad vertex id `{id}`")))?;
            let value = parse_value(value).ok_or_else(|| bad(format!("bad value `{value}`")))?;
            Ok((id, value))
        })
        .collect()
}

/// Parses an output with integer values (BFS depths, CDLP and WCC labels), as the BIGINT
/// column Graphalytics loads them into.
pub fn parse_long_output(text: &str, path: &Path) -> Result<Vec<(u64, i64)>, GraphalyticsError> {
    parse_pairs(text, path, |s| s.parse::<i64>().ok())
}

/// Parses an output with floating-point values (PR, LCC, SSSP). Infinity may be spelt
/// `infinity`, `Infinity`, `+Infinity` or `inf`, in any case; large finite values such as
/// `1.79769e+308` stay finite.
pub fn parse_double_output(text: &str, path: &Path) -> Result<Vec<(u64, f64)>, GraphalyticsError> {
    parse_pairs(text, path, |s| s.parse::<f64>().ok())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;

    #[test]
    fn parses_all_spellings() {
        let p = Path::new("r");
        let text =
            "1 0.000000000000000e+00\n2 infinity\n3 Infinity\n4 +Infinity\n5 1.79769e+308\n6 1.0";
        let v = parse_double_output(text, p).unwrap();
        assert_eq!(v[0], (1, 0.0));
        assert!(v[1..4].iter().all(|&(_, x)| x == f64::INFINITY));
        assert!(v[4].1.is_finite());
        assert_eq!(v[5], (6, 1.0));
        let l = parse_long_output("1 9223372036854775807\n2 0\n", p).unwrap();
        assert_eq!(l, vec![(1, i64::MAX), (2, 0)]);
    }

    #[test]
    fn rejects_malformed_lines() {
        let p = Path::new("r");
        let e = parse_long_output("1 2\n3\n", p).unwrap_err();
        assert_eq!(e.to_string(), "r:2: expected `vertex value`, found `3`");
        assert!(parse_long_output("1 2.5\n", p).is_err());
        assert!(parse_double_output("1 abc\n", p).is_err());
        assert!(parse_double_output("x 1\n", p).is_err());
    }
}
