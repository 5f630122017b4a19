//! The graphs scenarios start from, and the independent path from
//! notation to values: [`Lookup`] reads the store through a
//! [`stratagraph::Snapshot`], never through the Gremlin executor under
//! test, so an expected value cannot inherit the executor's mistakes.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use stratagraph::{EdgeDirection, Graph, Options, Snapshot, Value, VertexId};
use stratagraph_gremlin::ast::DirectionToken;
use stratagraph_gremlin::value::{self, EdgeRef, Owner, PropRef};
use stratagraph_gremlin::GValue;

use crate::notation::{EdgeKey, Note};

/// `../shared/tinkerpop`, read in place (never copied into the project).
pub fn tinkerpop_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/tinkerpop");
    dir.canonicalize().unwrap_or(dir)
}

/// The graphs of `Given the xxx graph`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GraphName {
    /// A new store with nothing in it.
    Empty,
    /// `tinkerpop-modern.json`.
    Modern,
    /// `tinkerpop-classic.json`.
    Classic,
    /// `tinkerpop-crew.json` (multi- and meta-properties).
    Crew,
    /// `tinkerpop-sink.json`.
    Sink,
    /// `grateful-dead.json`.
    Grateful,
}

impl GraphName {
    /// The word of `Given the <word> graph`.
    pub fn from_word(w: &str) -> Option<GraphName> {
        Some(match w {
            "empty" => GraphName::Empty,
            "modern" => GraphName::Modern,
            "classic" => GraphName::Classic,
            "crew" => GraphName::Crew,
            "sink" => GraphName::Sink,
            "grateful" => GraphName::Grateful,
            _ => return None,
        })
    }

    /// Its GraphSON file under `data/`, if it has one.
    fn file(self) -> Option<&'static str> {
        match self {
            GraphName::Empty => None,
            GraphName::Modern => Some("tinkerpop-modern.json"),
            GraphName::Classic => Some("tinkerpop-classic.json"),
            GraphName::Crew => Some("tinkerpop-crew.json"),
            GraphName::Sink => Some("tinkerpop-sink.json"),
            GraphName::Grateful => Some("grateful-dead.json"),
        }
    }
}

/// A fresh store holding `name`'s data. Every scenario gets its own, since
/// traversals may write. One batch thread: the graphs are tiny and the
/// machine's cores are shared.
///
/// # Errors
/// The loader's message when it refuses the file (the crew graph needs
/// multi- and meta-properties, which the store does not hold yet).
pub fn build(name: GraphName) -> Result<Graph, String> {
    let g = Graph::in_memory(Options {
        threads: 1,
        ..Options::default()
    });
    if let Some(file) = name.file() {
        let path = tinkerpop_dir().join("data").join(file);
        stratagraph_io::graphson::load(&g, &path, stratagraph_io::load::LoadOptions::default())
            .map_err(|e| format!("loading the {name:?} graph failed: {e}"))?;
    }
    Ok(g)
}

/// One snapshot's vertices by `name` (TinkerPop's rule for `v[x]`).
pub struct Names {
    snap: Snapshot,
    by_name: HashMap<String, Vec<VertexId>>,
}

impl Names {
    /// Reads every vertex's `name` at this moment.
    pub fn of(g: &Graph) -> Names {
        let snap = g.snapshot();
        let mut by_name: HashMap<String, Vec<VertexId>> = HashMap::new();
        let ids: Vec<VertexId> = snap
            .vertices()
            .filter_map(|v| snap.external_id(v))
            .collect();
        for id in ids {
            if let Some(Value::String(n)) = snap.property(id, "name") {
                by_name.entry(n).or_default().push(id);
            }
        }
        for ids in by_name.values_mut() {
            ids.sort_unstable();
        }
        Names { snap, by_name }
    }

    fn vertices(&self, name: &str) -> &[VertexId] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    fn has_name(&self, v: VertexId, name: &str) -> bool {
        matches!(self.snap.property(v, "name"), Some(Value::String(n)) if n == name)
    }

    /// The edge `out-label->in`: an out-edge labelled `label` of a vertex
    /// named `out` whose other end is named `in`.
    fn edge(&self, k: &EdgeKey) -> Option<EdgeRef> {
        self.vertices(&k.out).iter().find_map(|&v| {
            self.snap
                .edges_of(v, EdgeDirection::Out, Some(&k.label))
                .into_iter()
                .find(|e| self.has_name(e.dst, &k.inv))
                .map(|e| EdgeRef {
                    id: e.id,
                    src: e.src,
                    dst: e.dst,
                    label: e.label,
                })
        })
    }
}

/// Resolves notation against one or more snapshots, the first that knows
/// a name winning (expected values look at the graph after the traversal,
/// then before it, so both elements a traversal created and ones it
/// removed can be named).
pub struct Lookup<'a> {
    layers: Vec<&'a Names>,
}

impl<'a> Lookup<'a> {
    /// Over `layers`, first first.
    pub fn new(layers: Vec<&'a Names>) -> Lookup<'a> {
        Lookup { layers }
    }

    fn vertex(&self, name: &str) -> Result<VertexId, String> {
        self.layers
            .iter()
            .find_map(|n| n.vertices(name).first().copied())
            .ok_or_else(|| format!("no vertex named {name:?} in the graph"))
    }

    fn edge(&self, k: &EdgeKey) -> Result<EdgeRef, String> {
        self.layers
            .iter()
            .find_map(|n| n.edge(k))
            .ok_or_else(|| format!("no edge {}-{}->{} in the graph", k.out, k.label, k.inv))
    }

    /// The value a note stands for.
    ///
    /// # Errors
    /// An element that is not in the graph, or a form with no `GValue`
    /// (`M[...]`, `c[...]`).
    pub fn resolve(&self, n: &Note) -> Result<GValue, String> {
        Ok(match n {
            Note::Null => GValue::Null,
            Note::Bool(b) => GValue::Bool(*b),
            Note::Str(s) => GValue::str(s),
            Note::Num(v) => v.clone(),
            Note::Date(d) => GValue::Date(*d),
            Note::Uuid(u) => GValue::Uuid(*u),
            Note::Vertex(name) => GValue::Vertex(self.vertex(name)?),
            Note::VertexId(name) => GValue::Int64(id_i64(self.vertex(name)?)?),
            Note::VertexSid(name) => GValue::str(&self.vertex(name)?.to_string()),
            Note::Edge(k) => GValue::Edge(Arc::new(self.edge(k)?)),
            Note::EdgeId(k) => GValue::Int64(id_i64(self.edge(k)?.id)?),
            Note::EdgeSid(k) => GValue::str(&self.edge(k)?.id.to_string()),
            Note::VertexProperty { owner, key, value } => {
                let owner = match owner {
                    Some(name) => Owner::Vertex(self.vertex(name)?),
                    None => Owner::None,
                };
                GValue::VertexProperty(Arc::new(PropRef {
                    owner,
                    key: Arc::from(key.as_str()),
                    value: self.resolve(value)?,
                }))
            }
            Note::List(items) => GValue::list(self.resolve_all(items)?),
            Note::Set(items) => GValue::set(self.resolve_all(items)?),
            Note::Map(pairs) => GValue::map(
                pairs
                    .iter()
                    .map(|(k, v)| Ok((self.resolve(k)?, self.resolve(v)?)))
                    .collect::<Result<Vec<_>, String>>()?,
            ),
            Note::Path(items) => GValue::Path(Arc::new(value::Path {
                entries: self
                    .resolve_all(items)?
                    .into_iter()
                    .map(|v| (Vec::new(), v))
                    .collect(),
            })),
            Note::T(t) => GValue::T(*t),
            Note::Direction(d) => GValue::Direction(*d),
            Note::Merge(m) => {
                return Err(format!("M[{m}]: a Merge token has no GValue form"));
            }
            Note::Closure(c) => {
                return Err(format!("c[{c}]: closures cannot run in gremlin-lang"));
            }
        })
    }

    fn resolve_all(&self, items: &[Note]) -> Result<Vec<GValue>, String> {
        items.iter().map(|n| self.resolve(n)).collect()
    }

    /// The gremlin-lang literal text of a note, for values that must be
    /// written into the query (side effects: `withSideEffect` takes only
    /// a literal; parameters holding a `Merge` token, which no `GValue`
    /// can carry).
    ///
    /// # Errors
    /// Elements, paths and closures, which have no literal form.
    pub fn render(&self, n: &Note) -> Result<String, String> {
        Ok(match n {
            Note::Null => "null".into(),
            Note::Bool(b) => b.to_string(),
            Note::Str(s) => quote(s),
            Note::Num(v) => render_number(v)?,
            Note::Date(d) => format!("datetime({})", quote(&value::date_text(d))),
            Note::Uuid(u) => format!("UUID({})", quote(&value::uuid_text(u))),
            Note::VertexId(name) => format!("{}L", self.vertex(name)?),
            Note::VertexSid(name) => quote(&self.vertex(name)?.to_string()),
            Note::EdgeId(k) => format!("{}L", self.edge(k)?.id),
            Note::EdgeSid(k) => quote(&self.edge(k)?.id.to_string()),
            Note::List(items) => format!("[{}]", self.render_all(items)?),
            Note::Set(items) => format!("{{{}}}", self.render_all(items)?),
            Note::Map(pairs) if pairs.is_empty() => "[:]".into(),
            Note::Map(pairs) => {
                let entries = pairs
                    .iter()
                    .map(|(k, v)| {
                        let key = match k {
                            Note::Str(s) => quote(s),
                            other => format!("({})", self.render(other)?),
                        };
                        Ok(format!("{key}:{}", self.render(v)?))
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                format!("[{}]", entries.join(","))
            }
            Note::T(t) => format!("T.{}", value::t_name(*t)),
            Note::Direction(d) => format!(
                "Direction.{}",
                match d {
                    DirectionToken::Out => "OUT",
                    DirectionToken::In => "IN",
                    DirectionToken::Both => "BOTH",
                }
            ),
            Note::Merge(m) => format!("Merge.{m}"),
            Note::Vertex(_) | Note::Edge(_) | Note::VertexProperty { .. } | Note::Path(_) => {
                return Err(format!("{n:?} has no gremlin-lang literal form"));
            }
            Note::Closure(c) => {
                return Err(format!("c[{c}]: closures cannot run in gremlin-lang"));
            }
        })
    }

    fn render_all(&self, items: &[Note]) -> Result<String, String> {
        Ok(items
            .iter()
            .map(|n| self.render(n))
            .collect::<Result<Vec<_>, String>>()?
            .join(","))
    }
}

fn id_i64(id: u64) -> Result<i64, String> {
    i64::try_from(id).map_err(|_| format!("id {id} does not fit a Long"))
}

/// A gremlin-lang string literal.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A number with its gremlin-lang type suffix.
fn render_number(v: &GValue) -> Result<String, String> {
    let float = |f: f64, suffix: char| {
        if f.is_nan() {
            "NaN".to_owned()
        } else if f.is_infinite() {
            if f > 0.0 { "Infinity" } else { "-Infinity" }.to_owned()
        } else {
            format!("{f:?}{suffix}")
        }
    };
    Ok(match v {
        GValue::Int8(i) => format!("{i}b"),
        GValue::Int16(i) => format!("{i}s"),
        GValue::Int32(i) => format!("{i}i"),
        GValue::Int64(i) => format!("{i}L"),
        GValue::BigInt(i) => format!("{i}n"),
        GValue::Float32(f) => float(f64::from(*f), 'f'),
        GValue::Float64(f) => float(*f, 'd'),
        GValue::BigDecimal(f) => float(*f, 'm'),
        other => return Err(format!("{other:?} is not a number")),
    })
}
