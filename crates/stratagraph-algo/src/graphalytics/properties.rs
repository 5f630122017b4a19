//! Parser for Graphalytics `<graph>.properties` files (Java properties syntax, one
//! `key = value` per line, `#`/`!` comments).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use super::error::GraphalyticsError;

/// The parts of a `.properties` file the validation runner uses. Parameters are `Option`
/// because a graph only carries those of the algorithms it lists; a missing one becomes an
/// error only when that algorithm is actually run.
#[derive(Debug, Clone)]
pub struct GraphProperties {
    /// Graph name (the `graph.<name>.` key prefix).
    pub name: String,
    /// The file the properties came from, for error messages.
    pub path: PathBuf,
    /// Vertex file name, relative to the properties file's folder.
    pub vertex_file: String,
    /// Edge file name, relative to the properties file's folder.
    pub edge_file: String,
    /// Whether edges are directed.
    pub directed: bool,
    /// Names of the extra edge columns, in file order (e.g. `["weight"]`).
    pub edge_property_names: Vec<String>,
    /// Algorithms the graph declares (lower-case, e.g. `bfs`).
    pub algorithms: Vec<String>,
    /// All `graph.<name>.*` entries with the prefix stripped, for parameters not modelled.
    pub raw: HashMap<String, String>,
}

impl GraphProperties {
    /// Reads and parses a `.properties` file for graph `name`.
    pub fn load(path: &Path, name: &str) -> Result<Self, GraphalyticsError> {
        let text = super::error::read_text(path)?;
        parse_properties(&text, path, name)
    }

    /// A required parameter, e.g. `bfs.source-vertex`, parsed as `T`.
    pub fn param<T: FromStr>(&self, key: &str) -> Result<T, GraphalyticsError> {
        let full = format!("graph.{}.{key}", self.name);
        let value = self
            .raw
            .get(key)
            .ok_or_else(|| GraphalyticsError::MissingProperty {
                path: self.path.clone(),
                key: full.clone(),
            })?;
        value
            .parse()
            .map_err(|_| GraphalyticsError::InvalidProperty {
                path: self.path.clone(),
                key: full,
                value: value.clone(),
            })
    }

    /// Column index (among the edge properties) holding SSSP weights: the column named by
    /// `sssp.weight-property`, else one called `weight`, else none (unweighted).
    pub fn weight_column(&self) -> Option<usize> {
        let wanted = self
            .raw
            .get("sssp.weight-property")
            .map(String::as_str)
            .unwrap_or("weight");
        self.edge_property_names.iter().position(|n| n == wanted)
    }
}

/// Splits a comma-separated list, dropping empty items.
fn list(value: Option<&String>) -> Vec<String> {
    value
        .map(|v| {
            v.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

/// Parses the text of a `.properties` file for graph `name`; `path` is used in errors.
pub fn parse_properties(
    text: &str,
    path: &Path,
    name: &str,
) -> Result<GraphProperties, GraphalyticsError> {
    let prefix = format!("graph.{name}.");
    let mut raw = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('!') {
            continue;
        }
        let Some(split) = line.find(['=', ':']) else {
            return Err(GraphalyticsError::malformed(
                path,
                i + 1,
                format!("expected `key = value`, found `{line}`"),
            ));
        };
        let key = line[..split].trim();
        let value = line[split + 1..].trim();
        if let Some(short) = key.strip_prefix(&prefix) {
            raw.insert(short.to_owned(), value.to_owned());
        }
    }
    let required = |key: &str| {
        raw.get(key)
            .cloned()
            .ok_or_else(|| GraphalyticsError::MissingProperty {
                path: path.to_owned(),
                key: format!("{prefix}{key}"),
            })
    };
    let vertex_file = required("vertex-file")?;
    let edge_file = required("edge-file")?;
    let directed_raw = required("directed")?;
    let directed = match directed_raw.to_ascii_lowercase().as_str() {
        "true" => true,
        "false" => false,
        _ => {
            return Err(GraphalyticsError::InvalidProperty {
                path: path.to_owned(),
                key: format!("{prefix}directed"),
                value: directed_raw,
            })
        }
    };
    let edge_property_names = list(raw.get("edge-properties.names"));
    let algorithms = list(raw.get("algorithms"))
        .into_iter()
        .map(|a| a.to_ascii_lowercase())
        .collect();
    Ok(GraphProperties {
        name: name.to_owned(),
        path: path.to_owned(),
        vertex_file,
        edge_file,
        directed,
        edge_property_names,
        algorithms,
        raw,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;

    const TEXT: &str = "# comment\n\
        graph.g.vertex-file = g.v\n\
        graph.g.edge-file = g.e\n\
        graph.g.directed = true\n\
        graph.g.edge-properties.names = weight\n\
        graph.g.algorithms = bfs, SSSP\n\
        graph.g.bfs.source-vertex = 7\n\
        graph.other.directed = false\n";

    #[test]
    fn parses_known_keys() {
        let p = parse_properties(TEXT, Path::new("g.properties"), "g").unwrap();
        assert!(p.directed);
        assert_eq!(p.vertex_file, "g.v");
        assert_eq!(p.algorithms, vec!["bfs", "sssp"]);
        assert_eq!(p.param::<u64>("bfs.source-vertex").unwrap(), 7);
        assert_eq!(p.weight_column(), Some(0));
        let missing = p.param::<u32>("cdlp.max-iterations").unwrap_err();
        assert!(missing.to_string().contains("graph.g.cdlp.max-iterations"));
    }

    #[test]
    fn reports_bad_line_and_value() {
        let e = parse_properties("graph.g.x = 1\nnonsense\n", Path::new("p"), "g").unwrap_err();
        assert!(matches!(e, GraphalyticsError::Malformed { line: 2, .. }));
        let bad = TEXT.replace("directed = true", "directed = maybe");
        let e = parse_properties(&bad, Path::new("p"), "g").unwrap_err();
        assert!(matches!(e, GraphalyticsError::InvalidProperty { .. }));
        let p = parse_properties(TEXT, Path::new("p"), "g").unwrap();
        let e = p.param::<u32>("vertex-file").unwrap_err();
        assert!(matches!(e, GraphalyticsError::InvalidProperty { .. }));
    }
}
