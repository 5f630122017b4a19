//! Parsing one chunk of a SNAP-style edge list for `read_edgelist`.
//!
//! The Python side reads the file (gzip or not) in chunks that end on a line
//! boundary and shows progress; this parses a chunk without the GIL into
//! numpy arrays, and knows the line numbers, so a malformed line is reported
//! as `InvalidInput` naming the file and line, which numpy's text readers do
//! not do for chunked, commented input.

use numpy::IntoPyArray;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::errors::InvalidInput;

struct Parsed {
    src: Vec<u64>,
    dst: Vec<u64>,
    weights: Vec<f64>,
    weighted: Option<bool>,
}

fn show(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line);
    let text = text.trim();
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.to_owned(),
    }
}

fn number<T: std::str::FromStr>(token: &[u8]) -> Option<T> {
    std::str::from_utf8(token).ok()?.parse().ok()
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Parses `buf`, whose first line is line `first_line` of the file.
fn parse(
    buf: &[u8],
    first_line: u64,
    comments: Option<&[u8]>,
    mut weighted: Option<bool>,
) -> Result<Parsed, String> {
    let mut out = Parsed {
        src: Vec::new(),
        dst: Vec::new(),
        weights: Vec::new(),
        weighted,
    };
    for (lineno, raw) in (first_line..).zip(buf.split(|&b| b == b'\n')) {
        let mut line = raw;
        if let Some(at) = comments.and_then(|c| find(line, c)) {
            line = &line[..at];
        }
        let mut tokens = line
            .split(|b| b.is_ascii_whitespace())
            .filter(|t| !t.is_empty());
        let Some(first) = tokens.next() else {
            continue;
        };
        let bad = |what: &str| format!("line {lineno}: {what}: {:?}", show(raw));
        let Some(second) = tokens.next() else {
            return Err(bad("expected a source and a target id, found one column"));
        };
        let (Some(s), Some(d)) = (number::<u64>(first), number::<u64>(second)) else {
            return Err(bad("vertex ids must be integers in 0..2**64"));
        };
        let third = tokens.next();
        let has_weight = *weighted.get_or_insert(third.is_some());
        if has_weight {
            let Some(token) = third else {
                return Err(bad("expected a weight in the third column"));
            };
            match number::<f64>(token) {
                Some(w) if w.is_finite() => out.weights.push(w),
                _ => return Err(bad("the weight must be a finite number")),
            }
        }
        out.src.push(s);
        out.dst.push(d);
    }
    out.weighted = weighted;
    Ok(out)
}

/// Parses one chunk of an edge list (whole lines) into ``(src, dst,
/// weights)`` numpy arrays; ``weights`` is ``None`` for unweighted input.
///
/// ``weighted=None`` decides from the first data line (three or more
/// columns: weighted); columns beyond the ones used are ignored. Raises
/// ``InvalidInput`` naming ``source`` and the line for a malformed line.
#[pyfunction]
#[pyo3(name = "_parse_edgelist_chunk")]
#[pyo3(signature = (data, first_line, comments, weighted, source))]
pub fn parse_edgelist_chunk<'py>(
    py: Python<'py>,
    data: &Bound<'py, PyBytes>,
    first_line: u64,
    comments: Option<&[u8]>,
    weighted: Option<bool>,
    source: &str,
) -> PyResult<Bound<'py, PyTuple>> {
    let buf = data.as_bytes();
    let parsed = py
        .detach(|| parse(buf, first_line, comments, weighted))
        .map_err(|e| InvalidInput::new_err(format!("{source}: {e}")))?;
    let weights = match parsed.weighted {
        Some(true) => parsed.weights.into_pyarray(py).into_any(),
        _ => py.None().into_bound(py),
    };
    PyTuple::new(
        py,
        [
            parsed.src.into_pyarray(py).into_any(),
            parsed.dst.into_pyarray(py).into_any(),
            weights,
        ],
    )
}
