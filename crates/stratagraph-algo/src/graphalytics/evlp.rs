//! Parsers for the EVLP vertex (`.v`) and edge (`.e`) files.

use std::collections::HashSet;
use std::path::Path;

use super::error::{read_text, GraphalyticsError};
use super::properties::GraphProperties;

/// A graph as read from Graphalytics files, before any storage layout is chosen. This is
/// what builder closures of [`run_suite_with`](super::run_suite_with) receive, so any
/// [`GraphView`](crate::GraphView) implementation can be validated on the same data.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphSpec {
    /// Graph name.
    pub name: String,
    /// Vertex ids, as listed in the `.v` file (includes isolated vertices).
    pub vertices: Vec<u64>,
    /// Edges `(src, dst, weight)` as listed; undirected edges appear once. The weight is 1.0
    /// when the graph is unweighted.
    pub edges: Vec<(u64, u64, f64)>,
    /// Whether edges are directed.
    pub directed: bool,
    /// Whether the weights came from the file.
    pub weighted: bool,
}

impl GraphSpec {
    /// Reads the `.v` and `.e` files named in `props`, relative to `dir`.
    pub fn load(dir: &Path, props: &GraphProperties) -> Result<Self, GraphalyticsError> {
        let vpath = dir.join(&props.vertex_file);
        let epath = dir.join(&props.edge_file);
        let vertices = parse_vertices(&read_text(&vpath)?, &vpath)?;
        let weight_column = props.weight_column();
        let columns = 2 + props.edge_property_names.len();
        let edges = parse_edges(&read_text(&epath)?, &epath, columns, weight_column)?;
        let known: HashSet<u64> = vertices.iter().copied().collect();
        if let Some(line) = edges
            .iter()
            .position(|&(s, d, _)| !known.contains(&s) || !known.contains(&d))
        {
            let (s, d, _) = edges[line];
            return Err(GraphalyticsError::malformed(
                &epath,
                line + 1,
                format!("edge {s} {d} has an endpoint missing from the vertex file"),
            ));
        }
        Ok(GraphSpec {
            name: props.name.clone(),
            vertices,
            edges,
            directed: props.directed,
            weighted: weight_column.is_some(),
        })
    }
}

fn parse_id(token: &str, path: &Path, line: usize) -> Result<u64, GraphalyticsError> {
    token
        .parse()
        .map_err(|_| GraphalyticsError::malformed(path, line, format!("bad vertex id `{token}`")))
}

/// Non-blank lines with their 1-based numbers. Blank lines (e.g. a trailing newline) carry
/// no data, so they are skipped rather than rejected.
fn data_lines(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty())
}

/// Parses a `.v` file: one unsigned vertex id per line.
pub fn parse_vertices(text: &str, path: &Path) -> Result<Vec<u64>, GraphalyticsError> {
    data_lines(text)
        .map(|(n, line)| {
            let mut tokens = line.split_whitespace();
            let id = parse_id(tokens.next().unwrap_or(""), path, n)?;
            if tokens.next().is_some() {
                return Err(GraphalyticsError::malformed(
                    path,
                    n,
                    "expected a single vertex id".to_owned(),
                ));
            }
            Ok(id)
        })
        .collect()
}

/// Parses a `.e` file whose lines have exactly `columns` fields (`src dst` plus edge
/// properties). The weight is taken from property column `weight_column` (0 = first
/// property) and must be a non-negative number; without a weight column it is 1.0.
pub fn parse_edges(
    text: &str,
    path: &Path,
    columns: usize,
    weight_column: Option<usize>,
) -> Result<Vec<(u64, u64, f64)>, GraphalyticsError> {
    data_lines(text)
        .map(|(n, line)| {
            let tokens: Vec<&str> = line.split_whitespace().collect();
            if tokens.len() != columns {
                return Err(GraphalyticsError::malformed(
                    path,
                    n,
                    format!("expected {columns} fields, found {}", tokens.len()),
                ));
            }
            let src = parse_id(tokens[0], path, n)?;
            let dst = parse_id(tokens[1], path, n)?;
            let weight = match weight_column.and_then(|c| tokens.get(2 + c)) {
                None => 1.0,
                Some(tok) => match tok.parse::<f64>() {
                    Ok(w) if w >= 0.0 => w,
                    _ => {
                        return Err(GraphalyticsError::malformed(
                            path,
                            n,
                            format!("bad weight `{tok}` (must be a number >= 0)"),
                        ))
                    }
                },
            };
            Ok((src, dst, weight))
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;

    #[test]
    fn parses_vertices_and_weighted_edges() {
        let p = Path::new("x");
        assert_eq!(parse_vertices("1\n3\n\n", p).unwrap(), vec![1, 3]);
        let e = parse_edges("1 3 0.5\n3 1 2\n", p, 3, Some(0)).unwrap();
        assert_eq!(e, vec![(1, 3, 0.5), (3, 1, 2.0)]);
        let e = parse_edges("1 3\n", p, 2, None).unwrap();
        assert_eq!(e, vec![(1, 3, 1.0)]);
    }

    #[test]
    fn errors_name_file_and_line() {
        let p = Path::new("g.e");
        let e = parse_edges("1 2\n1 x\n", p, 2, None).unwrap_err();
        assert_eq!(e.to_string(), "g.e:2: bad vertex id `x`");
        let e = parse_edges("1 2 0.5\n1 3\n", p, 3, Some(0)).unwrap_err();
        assert_eq!(e.to_string(), "g.e:2: expected 3 fields, found 2");
        let e = parse_edges("1 2 -1\n", p, 3, Some(0)).unwrap_err();
        assert!(matches!(e, GraphalyticsError::Malformed { line: 1, .. }));
        let e = parse_vertices("1\n-4\n", Path::new("g.v")).unwrap_err();
        assert_eq!(e.to_string(), "g.v:2: bad vertex id `-4`");
        assert!(parse_vertices("1 2\n", p).is_err());
    }
}
