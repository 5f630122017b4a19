//! One scenario: its steps read into a [`Plan`] (no graph needed), then
//! run on a fresh store ([`run`]) on a thread of its own with a panic
//! guard ([`run_caught`]). The worker process around it (`worker.rs`)
//! adds the timeout and survives aborts.
//!
//! How the steps are read, following `for-committers.asciidoc` and
//! TinkerPop's reference harness (`gremlin-test`'s `StepDefinition`):
//!
//! - parameters are resolved after the graph initializer and bound as
//!   `Bindings`; one holding a `Merge` token (`M[outV]`), which no
//!   `GValue` carries, is written into the query as a gremlin-lang
//!   literal instead;
//! - side effects become `g.withSideEffect("k", <literal>)` (the grammar
//!   takes only a literal there);
//! - `g.io("data/...")` paths are made absolute under the TinkerPop
//!   directory, as the reference harness does;
//! - `iterated next` takes the first result; tables are then matched
//!   against its elements (a list's or set's items, a map's entries each
//!   as a one-entry map, a path's objects, or the value alone);
//! - an expected error must not be a "not implemented" error.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use stratagraph_gremlin::{execute, Bindings, Error, GValue};

use crate::check;
use crate::gherkin::{unquote, Scenario};
use crate::graphs::{self, GraphName, Lookup, Names};
use crate::notation::{self, Note, TreeNode};

/// How the traversal's results are taken (`When ...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `iterated to list`: every result.
    List,
    /// `iterated next`: the first result.
    Next,
}

/// How an expected error message is compared (case-insensitively, as the
/// reference harness does).
#[derive(Debug, Clone, Copy)]
pub enum Compare {
    /// `containing`.
    Containing,
    /// `starting`.
    Starting,
    /// `ending`.
    Ending,
}

/// One `Then` / `And` assertion.
#[derive(Debug, Clone)]
pub enum Assertion {
    /// `the result should be unordered` + rows.
    Unordered(Vec<Note>),
    /// `the result should be ordered` + rows.
    Ordered(Vec<Note>),
    /// `the result should be of` + rows.
    Of(Vec<Note>),
    /// `the result should be empty`.
    Empty,
    /// `the result should have a count of N`.
    Count(usize),
    /// `the traversal will raise an error`.
    Error,
    /// `... with message <how> text of "<text>"`.
    ErrorMessage(Compare, String),
    /// `the graph should return N for count of "<query>"`.
    GraphCount(usize, String),
    /// `the result should be a tree with a structure of` + ASCII tree.
    Tree(Vec<TreeNode>),
    /// `the result should be a subgraph with the following`.
    Subgraph,
}

/// A scenario's steps, read.
#[derive(Debug, Clone)]
pub struct Plan {
    /// `Given the xxx graph`.
    pub graph: GraphName,
    /// `And the graph initializer of`.
    pub init: Option<String>,
    /// `using the parameter`, in order.
    pub params: Vec<(String, Note)>,
    /// `using the side effect`, in order.
    pub side_effects: Vec<(String, Note)>,
    /// `And the traversal of`.
    pub traversal: String,
    /// `When ...`.
    pub mode: Mode,
    /// The assertions with their lines, in order.
    pub assertions: Vec<(usize, Assertion)>,
}

/// Why a scenario failed, by kind (the report counts them).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cause {
    /// A step the harness does not know, or notation it cannot parse.
    Step,
    /// The graph file could not be loaded.
    GraphLoad,
    /// The graph initializer failed.
    Initializer,
    /// A value in notation names what the graph does not hold, or has no
    /// `GValue` form.
    Notation,
    /// The executor's parser refused the query.
    Syntax,
    /// The executor does not run a step.
    Unsupported,
    /// The executor said a parameter is not bound.
    Unbound,
    /// The executor failed while running.
    Runtime,
    /// A result or error other than expected.
    Wrong,
    /// A `the graph should return N for count of` query.
    GraphCount,
    /// The scenario did not finish in time.
    Timeout,
    /// The scenario panicked, or its worker process died.
    Panic,
}

impl Cause {
    /// A short name for the report.
    pub fn label(self) -> &'static str {
        match self {
            Cause::Step => "step or notation not understood",
            Cause::GraphLoad => "graph not loadable",
            Cause::Initializer => "graph initializer failed",
            Cause::Notation => "expected value not resolvable",
            Cause::Syntax => "syntax error",
            Cause::Unsupported => "unsupported step",
            Cause::Unbound => "unbound parameter",
            Cause::Runtime => "execution error",
            Cause::Wrong => "wrong result or error",
            Cause::GraphCount => "graph count query",
            Cause::Timeout => "timeout",
            Cause::Panic => "panic or crash",
        }
    }

    /// Every cause, for reading one back from its `Debug` name.
    const ALL: [Cause; 12] = [
        Cause::Step,
        Cause::GraphLoad,
        Cause::Initializer,
        Cause::Notation,
        Cause::Syntax,
        Cause::Unsupported,
        Cause::Unbound,
        Cause::Runtime,
        Cause::Wrong,
        Cause::GraphCount,
        Cause::Timeout,
        Cause::Panic,
    ];

    /// The cause whose `Debug` name is `name`.
    pub fn from_name(name: &str) -> Option<Cause> {
        Cause::ALL.into_iter().find(|c| format!("{c:?}") == name)
    }
}

/// A failed scenario: the kind and the details.
#[derive(Debug, Clone)]
pub struct Failure {
    /// What kind of failure.
    pub cause: Cause,
    /// What happened (expected vs got, or the error).
    pub reason: String,
}

fn fail<T>(cause: Cause, reason: impl Into<String>) -> Result<T, Failure> {
    Err(Failure {
        cause,
        reason: reason.into(),
    })
}

/// Why a scenario is out of scope, if it is: only `@GraphComputerOnly`
/// and `Given an unsupported test` (the README's rule).
pub fn out_of_scope(s: &Scenario) -> Option<&'static str> {
    if s.steps.iter().any(|st| st.text == "an unsupported test") {
        Some("unsupported test")
    } else if s.tags.iter().any(|t| t == "GraphComputerOnly") {
        Some("@GraphComputerOnly")
    } else {
        None
    }
}

/// Reads a scenario's steps.
///
/// # Errors
/// A step the harness does not know, or notation it cannot parse.
pub fn plan(s: &Scenario) -> Result<Plan, Failure> {
    let mut graph = None;
    let mut init = None;
    let mut params = Vec::new();
    let mut side_effects = Vec::new();
    let mut traversal = None;
    let mut mode = None;
    let mut assertions = Vec::new();
    for st in &s.steps {
        let t = st.text.as_str();
        let at = |what: &str| format!("line {}: {what}", st.line);
        let doc = || match &st.doc {
            Some(d) => Ok(d.clone()),
            None => fail(Cause::Step, at("the step needs a doc string")),
        };
        let rows = || -> Result<Vec<Note>, Failure> {
            st.table
                .iter()
                .skip(1)
                .map(|r| match r.as_slice() {
                    [cell] => notation::parse(cell).map_err(|e| Failure {
                        cause: Cause::Step,
                        reason: at(&e),
                    }),
                    _ => fail(Cause::Step, at("a result table has one column")),
                })
                .collect()
        };
        if let Some(word) = t
            .strip_prefix("the ")
            .and_then(|r| r.strip_suffix(" graph"))
        {
            if let Some(g) = GraphName::from_word(word) {
                graph = Some(g);
                continue;
            }
        }
        if t == "the graph initializer of" {
            init = Some(doc()?);
        } else if let Some(rest) = t.strip_prefix("using the parameter ") {
            params.push(definition(rest).map_err(|e| Failure {
                cause: Cause::Step,
                reason: at(&e),
            })?);
        } else if let Some(rest) = t.strip_prefix("using the side effect ") {
            side_effects.push(definition(rest).map_err(|e| Failure {
                cause: Cause::Step,
                reason: at(&e),
            })?);
        } else if t == "the traversal of" {
            traversal = Some(doc()?);
        } else if t == "iterated to list" {
            mode = Some(Mode::List);
        } else if t == "iterated next" {
            mode = Some(Mode::Next);
        } else if t == "the result should be unordered" {
            assertions.push((st.line, Assertion::Unordered(rows()?)));
        } else if t == "the result should be ordered" {
            assertions.push((st.line, Assertion::Ordered(rows()?)));
        } else if t == "the result should be of" {
            assertions.push((st.line, Assertion::Of(rows()?)));
        } else if t == "the result should be empty" {
            assertions.push((st.line, Assertion::Empty));
        } else if let Some(n) = t.strip_prefix("the result should have a count of ") {
            let n = n.parse().map_err(|_| Failure {
                cause: Cause::Step,
                reason: at("a count must be a number"),
            })?;
            assertions.push((st.line, Assertion::Count(n)));
        } else if t == "the traversal will raise an error" {
            assertions.push((st.line, Assertion::Error));
        } else if let Some(rest) = t.strip_prefix("the traversal will raise an error with message ")
        {
            let (how, text) = rest.split_once(" text of ").ok_or_else(|| Failure {
                cause: Cause::Step,
                reason: at("expected `<comparison> text of \"...\"`"),
            })?;
            let how = match how {
                "containing" => Compare::Containing,
                "starting" => Compare::Starting,
                "ending" => Compare::Ending,
                other => return fail(Cause::Step, at(&format!("unknown comparison {other:?}"))),
            };
            assertions.push((
                st.line,
                Assertion::ErrorMessage(
                    how,
                    quoted(text).map_err(|e| Failure {
                        cause: Cause::Step,
                        reason: at(&e),
                    })?,
                ),
            ));
        } else if let Some(rest) = t.strip_prefix("the graph should return ") {
            let (n, q) = rest.split_once(" for count of ").ok_or_else(|| Failure {
                cause: Cause::Step,
                reason: at("expected `N for count of \"...\"`"),
            })?;
            let n = n.parse().map_err(|_| Failure {
                cause: Cause::Step,
                reason: at("a count must be a number"),
            })?;
            let q = quoted(q).map_err(|e| Failure {
                cause: Cause::Step,
                reason: at(&e),
            })?;
            assertions.push((st.line, Assertion::GraphCount(n, q)));
        } else if t == "the result should be a tree with a structure of" {
            let tree = notation::parse_tree(&doc()?).map_err(|e| Failure {
                cause: Cause::Step,
                reason: at(&e),
            })?;
            assertions.push((st.line, Assertion::Tree(tree)));
        } else if t == "the result should be a subgraph with the following" {
            assertions.push((st.line, Assertion::Subgraph));
        } else {
            return fail(
                Cause::Step,
                at(&format!("step not understood: {} {t}", st.keyword)),
            );
        }
    }
    let traversal = match traversal {
        Some(t) => t,
        None => return fail(Cause::Step, "the scenario has no `the traversal of`"),
    };
    if assertions.is_empty() {
        return fail(Cause::Step, "the scenario asserts nothing");
    }
    Ok(Plan {
        graph: graph.unwrap_or(GraphName::Empty),
        init,
        params,
        side_effects,
        traversal,
        mode: mode.unwrap_or(Mode::List),
        assertions,
    })
}

/// `xx1 defined as "d[1].i"` into the name and the parsed value.
fn definition(rest: &str) -> Result<(String, Note), String> {
    let (name, value) = rest
        .split_once(" defined as ")
        .ok_or("expected `<name> defined as \"<value>\"`")?;
    let value = notation::parse(&quoted(value)?)?;
    Ok((name.trim().to_owned(), value))
}

/// The text inside `"..."`, its `\"` unescaped.
fn quoted(s: &str) -> Result<String, String> {
    s.trim()
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .map(unquote)
        .ok_or_else(|| format!("expected a quoted string, got {s}"))
}

/// Whether a note holds a `Merge` token (bound by writing it into the
/// query, since no `GValue` carries one).
fn has_merge(n: &Note) -> bool {
    match n {
        Note::Merge(_) => true,
        Note::List(xs) | Note::Set(xs) | Note::Path(xs) => xs.iter().any(has_merge),
        Note::Map(xs) => xs.iter().any(|(k, v)| has_merge(k) || has_merge(v)),
        Note::VertexProperty { value, .. } => has_merge(value),
        _ => false,
    }
}

/// Phrases by which an error says the engine lacks a feature, whatever
/// its variant (an executor may report an unimplemented predicate or
/// function as a runtime or argument error).
const UNIMPLEMENTED: [&str; 3] = ["not supported", "not implemented", "unsupported"];

/// Whether `text` uses one of the [`UNIMPLEMENTED`] phrases.
fn says_unimplemented(text: &str) -> bool {
    let t = text.to_lowercase();
    UNIMPLEMENTED.iter().any(|p| t.contains(p))
}

/// The kind of failure an executor error is when a result was expected;
/// and, for an expected error, whether it only says "not implemented"
/// (a syntax error, an unsupported step, an unbound parameter, or any
/// error whose message says it is not supported), which does not count
/// as raising the error the scenario names (the README's rule).
fn error_cause(e: &Error) -> (Cause, bool) {
    match e {
        Error::Syntax(_) => (Cause::Syntax, true),
        Error::Unsupported { .. } => (Cause::Unsupported, true),
        Error::Unbound { .. } => (Cause::Unbound, true),
        _ if says_unimplemented(&e.to_string()) => (Cause::Unsupported, true),
        _ => (Cause::Runtime, false),
    }
}

/// Replaces whole identifiers outside string literals (for parameters
/// written into the query).
fn substitute(q: &str, with: &HashMap<String, String>) -> String {
    if with.is_empty() {
        return q.to_owned();
    }
    let chars: Vec<char> = q.chars().collect();
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(q.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '"' || c == '\'' {
            out.push(c);
            i += 1;
            while i < chars.len() {
                out.push(chars[i]);
                if chars[i] == '\\' && i + 1 < chars.len() {
                    out.push(chars[i + 1]);
                    i += 2;
                    continue;
                }
                i += 1;
                if chars[i - 1] == c {
                    break;
                }
            }
        } else if ident(c)
            && !c.is_ascii_digit()
            && (i == 0 || (!ident(chars[i - 1]) && chars[i - 1] != '.'))
        {
            let start = i;
            while i < chars.len() && ident(chars[i]) {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            match with.get(&word) {
                Some(text) => out.push_str(text),
                None => out.push_str(&word),
            }
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// `g.io("data/x.json")`: the path made absolute under the TinkerPop
/// directory, as the reference harness's `tryUpdateDataFilePath` does.
fn io_path(q: &str) -> String {
    let t = q.trim_start();
    let Some(rest) = t.strip_prefix("g.io(\"") else {
        return q.to_owned();
    };
    let Some(end) = rest.find('"') else {
        return q.to_owned();
    };
    let rel = &rest[..end];
    if rel.starts_with('/') {
        return q.to_owned();
    }
    let abs = graphs::tinkerpop_dir().join(rel);
    let abs = abs
        .to_string_lossy()
        .replace('\\', "\\\\")
        .replace('"', "\\\"");
    format!("g.io(\"{abs}{}", &rest[end..])
}

/// `g.` + `withSideEffect("k", <literal>).` for each side effect.
fn with_side_effects(q: &str, effects: &[(String, String)]) -> Result<String, Failure> {
    if effects.is_empty() {
        return Ok(q.to_owned());
    }
    let t = q.trim_start();
    let rest = t
        .strip_prefix('g')
        .map(str::trim_start)
        .and_then(|r| r.strip_prefix('.'))
        .ok_or_else(|| Failure {
            cause: Cause::Step,
            reason: "side effects need a traversal that starts with `g.`".into(),
        })?;
    let mut out = String::from("g.");
    for (k, lit) in effects {
        out.push_str(&format!("withSideEffect(\"{k}\",{lit})."));
    }
    out.push_str(rest);
    Ok(out)
}

/// The rows a `next()` result is compared as (the reference harness's
/// `IteratorUtils.asList`): a list's or set's elements, a map's entries
/// each as a one-entry map, a path's objects, else the value alone.
fn rows_of(v: &GValue) -> Vec<GValue> {
    match v {
        GValue::List(xs) | GValue::Set(xs) => xs.to_vec(),
        GValue::Map(xs) => xs
            .iter()
            .map(|(k, x)| GValue::map([(k.clone(), x.clone())]))
            .collect(),
        GValue::Path(p) => p.objects().cloned().collect(),
        other => vec![other.clone()],
    }
}

/// An expected tree as the value a `tree()` result is: a map from each
/// node to the map of its children (TinkerPop's `Tree` is a
/// `Map<Object, Tree>`); equal sibling nodes merge.
fn tree_value(nodes: &[TreeNode], l: &Lookup<'_>) -> Result<GValue, String> {
    let mut merged: Vec<(GValue, Vec<TreeNode>)> = Vec::new();
    for n in nodes {
        let k = l.resolve(&n.value)?;
        match merged.iter_mut().find(|(m, _)| *m == k) {
            Some((_, kids)) => kids.extend(n.children.iter().cloned()),
            None => merged.push((k, n.children.clone())),
        }
    }
    Ok(GValue::map(
        merged
            .into_iter()
            .map(|(k, kids)| Ok((k, tree_value(&kids, l)?)))
            .collect::<Result<Vec<_>, String>>()?,
    ))
}

/// Runs a planned scenario on a fresh store.
///
/// # Errors
/// The first step that does not hold.
pub fn run(p: &Plan) -> Result<(), Failure> {
    let g = graphs::build(p.graph).or_else(|e| fail(Cause::GraphLoad, e))?;
    if let Some(init) = &p.init {
        if let Err(e) = execute(&g, init, &Bindings::new()) {
            return fail(
                Cause::Initializer,
                format!("the graph initializer failed: {e}"),
            );
        }
    }
    let before = Names::of(&g);
    let mut bindings = Bindings::new();
    let mut inline = HashMap::new();
    {
        let l = Lookup::new(vec![&before]);
        for (name, note) in &p.params {
            if has_merge(note) {
                let text = l
                    .render(note)
                    .or_else(|e| fail(Cause::Notation, format!("parameter {name}: {e}")))?;
                inline.insert(name.clone(), text);
            } else {
                let v = l
                    .resolve(note)
                    .or_else(|e| fail(Cause::Notation, format!("parameter {name}: {e}")))?;
                bindings.insert(name.clone(), v);
            }
        }
    }
    let effects = {
        let l = Lookup::new(vec![&before]);
        p.side_effects
            .iter()
            .map(|(k, n)| {
                Ok((
                    k.clone(),
                    l.render(n)
                        .or_else(|e| fail(Cause::Notation, format!("side effect {k}: {e}")))?,
                ))
            })
            .collect::<Result<Vec<_>, Failure>>()?
    };
    let query = with_side_effects(&substitute(&io_path(&p.traversal), &inline), &effects)?;
    let result = execute(&g, &query, &bindings);
    let after = Names::of(&g);
    let ran = Ran {
        result,
        mode: p.mode,
        lookup: Lookup::new(vec![&after, &before]),
        graph: &g,
        bindings: &bindings,
        inline: &inline,
    };
    for (line, a) in &p.assertions {
        ran.check(a).map_err(|f| Failure {
            cause: f.cause,
            reason: format!("line {line}: {}", f.reason),
        })?;
    }
    Ok(())
}

/// A traversal that has run, and what its assertions need.
struct Ran<'a> {
    /// Its results, or its error.
    result: Result<Vec<GValue>, Error>,
    /// How they were taken.
    mode: Mode,
    /// Resolves expected values: the graph after the traversal, then
    /// before it.
    lookup: Lookup<'a>,
    /// The store (for `the graph should return N for count of`).
    graph: &'a stratagraph::Graph,
    /// The parameters, which count queries may use too.
    bindings: &'a Bindings,
    /// The parameters written into the query text.
    inline: &'a HashMap<String, String>,
}

impl Ran<'_> {
    /// The results to compare with rows, or why there are none.
    fn rows(&self) -> Result<Vec<GValue>, Failure> {
        match &self.result {
            Ok(vs) => match self.mode {
                Mode::List => Ok(vs.clone()),
                Mode::Next => match vs.first() {
                    Some(v) => Ok(rows_of(v)),
                    None => fail(Cause::Wrong, "next(): the traversal returned nothing"),
                },
            },
            Err(e) => fail(error_cause(e).0, e.to_string()),
        }
    }

    /// The one value `next()` gives (or the only one of a list).
    fn single(&self) -> Result<GValue, Failure> {
        match &self.result {
            Ok(vs) => match (self.mode, vs.as_slice()) {
                (Mode::Next, [v, ..]) | (Mode::List, [v]) => Ok(v.clone()),
                (Mode::Next, []) => fail(Cause::Wrong, "next(): the traversal returned nothing"),
                (Mode::List, _) => fail(
                    Cause::Wrong,
                    format!("expected one result, got {}", vs.len()),
                ),
            },
            Err(e) => fail(error_cause(e).0, e.to_string()),
        }
    }

    /// Table rows resolved to values.
    fn expected(&self, rows: &[Note]) -> Result<Vec<GValue>, Failure> {
        rows.iter()
            .map(|n| self.lookup.resolve(n).or_else(|e| fail(Cause::Notation, e)))
            .collect()
    }

    /// One assertion.
    fn check(&self, a: &Assertion) -> Result<(), Failure> {
        let wrong = |r: String| Failure {
            cause: Cause::Wrong,
            reason: r,
        };
        match a {
            Assertion::Unordered(rows) => {
                check::check_unordered(&self.expected(rows)?, &self.rows()?).map_err(wrong)
            }
            Assertion::Ordered(rows) => {
                check::check_ordered(&self.expected(rows)?, &self.rows()?).map_err(wrong)
            }
            Assertion::Of(rows) => {
                check::check_of(&self.expected(rows)?, &self.rows()?).map_err(wrong)
            }
            Assertion::Empty => {
                let vs = match self.mode {
                    Mode::List => self.rows()?,
                    // `next()` must give an empty collection.
                    Mode::Next => match self.single()? {
                        GValue::List(xs) | GValue::Set(xs) => xs.to_vec(),
                        other => {
                            return Err(wrong(format!(
                                "expected an empty collection, got {}",
                                check::show(&other)
                            )))
                        }
                    },
                };
                match vs.len() {
                    0 => Ok(()),
                    n => Err(wrong(format!(
                        "expected no result, got {n}: {}",
                        preview(&vs)
                    ))),
                }
            }
            Assertion::Count(n) => {
                let len = match self.mode {
                    Mode::List => self.rows()?.len(),
                    Mode::Next => match self.single()? {
                        GValue::List(xs) | GValue::Set(xs) => xs.len(),
                        GValue::Map(xs) => xs.len(),
                        GValue::Path(p) => p.entries.len(),
                        other => {
                            return Err(wrong(format!(
                                "a count of {}, which is not a collection",
                                check::show(&other)
                            )))
                        }
                    },
                };
                if len == *n {
                    Ok(())
                } else {
                    Err(wrong(format!("expected a count of {n}, got {len}")))
                }
            }
            Assertion::Error | Assertion::ErrorMessage(..) => self.check_error(a),
            Assertion::GraphCount(n, q) => {
                match execute(self.graph, &substitute(q, self.inline), self.bindings) {
                    Ok(vs) if vs.len() == *n => Ok(()),
                    Ok(vs) => fail(
                        Cause::GraphCount,
                        format!("{q}: expected a count of {n}, got {}", vs.len()),
                    ),
                    Err(e) => fail(Cause::GraphCount, format!("{q}: {e}")),
                }
            }
            Assertion::Tree(nodes) => {
                let want = tree_value(nodes, &self.lookup).or_else(|e| fail(Cause::Notation, e))?;
                let v = self.single()?;
                if check::matches(&want, &v) {
                    Ok(())
                } else {
                    Err(wrong(format!(
                        "expected the tree {}, got {}",
                        check::show(&want),
                        check::show(&v)
                    )))
                }
            }
            Assertion::Subgraph => fail(Cause::Wrong, "subgraph results have no GValue form"),
        }
    }

    /// `the traversal will raise an error [with message ...]`: an error
    /// that is not "not implemented", its message compared
    /// case-insensitively.
    fn check_error(&self, a: &Assertion) -> Result<(), Failure> {
        let e = match &self.result {
            Ok(vs) => {
                return fail(
                    Cause::Wrong,
                    format!(
                        "expected an error, got {} results: {}",
                        vs.len(),
                        preview(vs)
                    ),
                )
            }
            Err(e) => e,
        };
        let (cause, not_implemented) = error_cause(e);
        let msg = e.to_string();
        // A scenario that itself expects "... not supported" is answered
        // by its message; the phrase then names the reason.
        let expects_phrase = matches!(a, Assertion::ErrorMessage(_, t) if says_unimplemented(t));
        let answered = expects_phrase && !matches!(e, Error::Syntax(_) | Error::Unbound { .. });
        if not_implemented && !answered {
            return fail(
                cause,
                format!("expected an error; the executor did not run the traversal: {msg}"),
            );
        }
        let Assertion::ErrorMessage(how, text) = a else {
            return Ok(());
        };
        let (m, t) = (msg.to_lowercase(), text.to_lowercase());
        let ok = match how {
            Compare::Containing => m.contains(&t),
            Compare::Starting => m.starts_with(&t),
            Compare::Ending => m.ends_with(&t),
        };
        if ok {
            Ok(())
        } else {
            fail(
                Cause::Wrong,
                format!("expected an error {how:?} {text:?}, got: {msg}"),
            )
        }
    }
}

fn preview(vs: &[GValue]) -> String {
    let mut s: Vec<String> = vs.iter().take(8).map(check::show).collect();
    if vs.len() > 8 {
        s.push(format!("... ({} more)", vs.len() - 8));
    }
    format!("[{}]", s.join(", "))
}

/// How a scenario ended.
#[derive(Debug, Clone)]
pub enum Verdict {
    /// Every assertion held.
    Pass,
    /// One did not, or the scenario could not run.
    Fail(Failure),
}

thread_local! {
    /// The message of a panic on this thread, left by the hook.
    static PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// The name of the threads scenarios run on.
const THREAD: &str = "gremlin-scenario";

/// Installs a panic hook that keeps a scenario thread's panic message
/// (with its location) for the report instead of printing it; other
/// threads' panics print as usual.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some(THREAD) {
            PANIC.with(|p| *p.borrow_mut() = Some(info.to_string()));
        } else {
            default(info);
        }
    }));
}

/// Runs a plan on a thread of its own (a large stack, as a deep
/// traversal may need) and turns a panic into [`Cause::Panic`] with its
/// message and location. Timeouts and crashes are the worker process's
/// concern (`worker.rs`).
pub fn run_caught(p: Plan) -> Verdict {
    let spawned = std::thread::Builder::new()
        .name(THREAD.into())
        .stack_size(64 << 20)
        .spawn(move || {
            let r = catch_unwind(AssertUnwindSafe(|| run(&p)));
            match r {
                Ok(Ok(())) => Verdict::Pass,
                Ok(Err(f)) => Verdict::Fail(f),
                Err(payload) => {
                    let msg = PANIC.with(|m| m.borrow_mut().take()).unwrap_or_else(|| {
                        payload
                            .downcast_ref::<&str>()
                            .map(|s| (*s).to_owned())
                            .or_else(|| payload.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "a panic without a message".into())
                    });
                    Verdict::Fail(Failure {
                        cause: Cause::Panic,
                        reason: msg,
                    })
                }
            }
        });
    match spawned.map(|h| h.join()) {
        Ok(Ok(v)) => v,
        Ok(Err(_)) => Verdict::Fail(Failure {
            cause: Cause::Panic,
            reason: "the scenario's thread ended without a verdict".into(),
        }),
        Err(e) => Verdict::Fail(Failure {
            cause: Cause::Step,
            reason: format!("could not start the scenario's thread: {e}"),
        }),
    }
}

/// Checks the query rewriting (the start-up self-check).
pub fn self_check() -> Result<(), String> {
    let with: HashMap<String, String> =
        [("xx1".to_owned(), "[(Direction.OUT):Merge.outV]".to_owned())].into();
    let q = substitute(r#"g.mergeE(xx1).property("xx1", xx10).xx1()"#, &with);
    if q != r#"g.mergeE([(Direction.OUT):Merge.outV]).property("xx1", xx10).xx1()"# {
        return Err(format!("substitute self-check gave {q}"));
    }
    let effects = [("m".to_owned(), "[:]".to_owned())];
    let q = with_side_effects("g.V()", &effects).map_err(|f| f.reason)?;
    if q != r#"g.withSideEffect("m",[:]).V()"# {
        return Err(format!("side-effect self-check gave {q}"));
    }
    let q = io_path(r#"g.io("data/x.json").read()"#);
    let want = format!(
        "g.io(\"{}\").read()",
        graphs::tinkerpop_dir().join("data/x.json").display()
    );
    if q != want {
        return Err(format!("io path self-check gave {q}"));
    }
    Ok(())
}
