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

/// One parsed line.
pub enum Record {
    /// A `.v` line: one vertex id.
    Vertex(u64),
    /// An edge line: source, destination, weight (1.0 when absent).
    Edge(u64, u64, f64),
}

/// Reads every `src dst` pair; `.gz` files are decompressed.
pub fn read(path: &Path) -> Result<Vec<(u64, u64)>, EdgeListError> {
    let mut out = Vec::new();
    for_each_line(path, &indicatif::ProgressBar::hidden(), false, |r| {
        if let Record::Edge(s, d, _) = r {
            out.push((s, d));
        }
        Ok(())
    })
    .map_err(|e| match e.downcast::<EdgeListError>() {
        Ok(e) => *e,
        Err(e) => EdgeListError {
            path: path.display().to_string(),
            line: 0,
            what: e.to_string(),
        },
    })?;
    Ok(out)
}

/// Calls `f` with every record of `path`: vertex ids when `vertices`, else
/// `src dst [weight]` edges. Blank lines and `#`/`%` comments are skipped;
/// `.gz` files are decompressed; `bar` advances by the bytes read. The
/// first malformed line stops the read with an error naming file and line;
/// an error from `f` stops it too.
pub fn for_each_line(
    path: &Path,
    bar: &indicatif::ProgressBar,
    vertices: bool,
    mut f: impl FnMut(Record) -> Result<(), Box<dyn std::error::Error>>,
) -> Result<(), Box<dyn std::error::Error>> {
    let err = |line, what: String| EdgeListError {
        path: path.display().to_string(),
        line,
        what,
    };
    let file = std::fs::File::open(path).map_err(|e| err(0, e.to_string()))?;
    let file = bar.wrap_read(file);
    let raw: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
        Box::new(flate2::read::GzDecoder::new(file))
    } else {
        Box::new(file)
    };
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
        if vertices {
            let v = id("the")?;
            f(Record::Vertex(v))?;
            continue;
        }
        let s = id("source")?;
        let d = id("destination")?;
        let w = match parts.next() {
            None => 1.0,
            Some(tok) => tok
                .parse::<f64>()
                .map_err(|_| err(i + 1, format!("weight {tok:?} is not a number")))?,
        };
        if parts.next().is_some() {
            return Err(err(i + 1, "more than three fields (src dst [weight])".into()).into());
        }
        f(Record::Edge(s, d, w))?;
    }
    Ok(())
}
