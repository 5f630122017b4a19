//! Reading SNAP-style edge lists (`src dst` per line, `#` comments).

use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// A malformed or unreadable edge list, naming the file and line.
#[derive(Debug)]
pub struct EdgeListError {
    path: String,
    line: usize,
    what: String,
}

impl std::fmt::Display for EdgeListError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.line == 0 {
            write!(f, "{}: {}", self.path, self.what)
        } else {
            write!(f, "{}:{}: {}", self.path, self.line, self.what)
        }
    }
}

impl std::error::Error for EdgeListError {}

/// Reads every `src dst` pair; `.gz` files are decompressed.
pub fn read(path: &Path) -> Result<Vec<(u64, u64)>, EdgeListError> {
    let err = |line, what: String| EdgeListError {
        path: path.display().to_string(),
        line,
        what,
    };
    let file = std::fs::File::open(path).map_err(|e| err(0, e.to_string()))?;
    let raw: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
    let mut out = Vec::new();
    for (i, line) in BufReader::new(raw).lines().enumerate() {
        let line = line.map_err(|e| err(i + 1, e.to_string()))?;
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('%') {
            continue;
        }
        let mut parts = t.split_whitespace();
        let mut id = |name: &str| -> Result<u64, EdgeListError> {
            let tok = parts
                .next()
                .ok_or_else(|| err(i + 1, format!("missing {name} vertex id")))?;
            tok.parse().map_err(|_| {
                err(
                    i + 1,
                    format!("{name} vertex id {tok:?} is not an unsigned integer"),
                )
            })
        };
        let s = id("source")?;
        let d = id("destination")?;
        out.push((s, d));
    }
    Ok(out)
}
