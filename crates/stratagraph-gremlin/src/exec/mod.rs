//! Running a query over a store.
//!
//! A query compiles to a [`plan::Plan`] (steps with their modulators
//! folded in), then runs as a chain of iterators of traversers, each step
//! pulling from the one before: `limit` stops the chain early, and only
//! the steps that must see everything (`order`, `group`, `count`, `fold`,
//! ...) collect. A traverser carries a bulk (how many identical ones it
//! stands for), the labelled part of its path (or all of it when a step
//! needs paths), its loop counters and its sack.
//!
//! One query is one transaction: a read-only query reads one snapshot; a
//! query that writes runs in a [`stratagraph::WriteTxn`], sees its own
//! writes, and commits at the end (a conflict surfaces as an error and
//! nothing is written).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use rustc_hash::FxHashMap;
use stratagraph::Graph;

use crate::ast::{Expr, Query, Step};
use crate::error::{Error, Result};
use crate::value::{GValue, Path};

mod db;
mod frontier;
pub(crate) mod funcs;
pub(crate) mod math;
pub(crate) mod merge;
mod operator;
mod plan;
pub(crate) mod pred;
mod run;
pub(crate) mod strategy;

/// Values for a query's parameters, by name.
pub type Bindings = HashMap<String, GValue>;

/// Runs `query` on `graph` in one transaction: reads see one snapshot,
/// writes commit when the traversal ends and roll back if it fails.
/// Returns every result in order; a terminal `next()` gives the first,
/// `iterate()` none, `hasNext()` whether there is one.
///
/// # Errors
/// [`crate::Error`]: syntax, an unbound parameter, an unsupported step, a
/// runtime failure, or the engine's refusal (a conflict among them).
pub fn execute(graph: &Graph, query: &str, bindings: &Bindings) -> Result<Vec<GValue>> {
    execute_with(graph, query, bindings, None, |results, _| results)
}

/// Reads of the elements a query's results name, in the query's own
/// snapshot or transaction (its writes included): what a caller needs to
/// describe a result (a vertex's id, label, properties) as it was when
/// the query ran, even if a later commit changes or deletes it.
pub struct Elements<'a> {
    db: Option<&'a db::Db>,
}

impl Elements<'_> {
    /// The id a user names vertex `v` by: its key in a store of string
    /// ids, else the number.
    pub fn vertex_id(&self, v: stratagraph::VertexId) -> GValue {
        match self.db {
            Some(db) => db.vertex_id(v),
            None => GValue::Int64(v as i64),
        }
    }

    /// The label of vertex `v` ([`stratagraph::DEFAULT_LABEL`] if it has
    /// none or is gone).
    pub fn vertex_label(&self, v: stratagraph::VertexId) -> Arc<str> {
        self.db
            .and_then(|db| db.label(v))
            .unwrap_or_else(|| Arc::from(stratagraph::DEFAULT_LABEL))
    }

    /// The properties of vertex `v`, in the order they were first set.
    pub fn vertex_properties(&self, v: stratagraph::VertexId) -> Vec<(Arc<str>, GValue)> {
        self.db.map(|db| db.properties(v)).unwrap_or_default()
    }

    /// The properties of edge `e`, in the order they were first set.
    pub fn edge_properties(&self, e: stratagraph::EdgeId) -> Vec<(Arc<str>, GValue)> {
        self.db.map(|db| db.edge_properties(e)).unwrap_or_default()
    }
}

/// [`execute`], with limits (`deadline`: past its time or memory limit
/// the query fails with [`Error::Timeout`] or [`Error::MemoryLimit`] and
/// writes nothing) and with
/// `describe` given the results and the reads of the elements they name in
/// the query's snapshot or transaction, before a writing query commits (a
/// failed commit then returns its error and discards what `describe`
/// made). A server turns results into a wire format here.
///
/// # Errors
/// As [`execute`], and [`Error::Timeout`] or [`Error::MemoryLimit`].
pub fn execute_with<R>(
    graph: &Graph,
    query: &str,
    bindings: &Bindings,
    deadline: Option<Deadline>,
    describe: impl FnOnce(Vec<GValue>, &Elements<'_>) -> R,
) -> Result<R> {
    let mut db = None;
    let open = |writes: bool| {
        if writes {
            db::Db::write(graph)
        } else {
            db::Db::read(graph)
        }
    };
    let described = run_query(query, bindings, &mut db, open, deadline, describe)?;
    if let Some(db) = db {
        db.commit()?;
    }
    Ok(described)
}

/// A transaction kept open across queries (a remote session's
/// `g.tx()`): each query reads the transaction's writes so far, nothing is
/// visible to others until [`Transaction::commit`], and dropping it rolls
/// everything back.
pub struct Transaction {
    graph: Graph,
    /// `None` once a failed query has rolled it back.
    db: Option<db::Db>,
}

impl Transaction {
    /// Begins a transaction on `graph`.
    pub fn begin(graph: &Graph) -> Transaction {
        Transaction {
            graph: graph.clone(),
            db: Some(db::Db::write(graph)),
        }
    }

    /// Runs `query` inside the transaction, as [`execute_with`] does
    /// outside one. A query refused before it runs (syntax, an unbound
    /// parameter, an unsupported step) leaves the transaction as it was;
    /// one that fails while running rolls the whole transaction back (the
    /// engine keeps no savepoint to undo one query's writes alone), and
    /// every later call then fails too, until the caller begins anew.
    ///
    /// # Errors
    /// As [`execute`]; and [`Error::Runtime`] once rolled back.
    pub fn execute_with<R>(
        &mut self,
        query: &str,
        bindings: &Bindings,
        deadline: Option<Deadline>,
        describe: impl FnOnce(Vec<GValue>, &Elements<'_>) -> R,
    ) -> Result<R> {
        if self.db.is_none() {
            return Err(Error::Runtime(
                "the transaction was rolled back by an earlier failure; begin a new one".into(),
            ));
        }
        let graph = self.graph.clone();
        run_query(
            query,
            bindings,
            &mut self.db,
            |_| db::Db::write(&graph),
            deadline,
            describe,
        )
    }

    /// Whether a failed query has rolled it back.
    pub fn is_rolled_back(&self) -> bool {
        self.db.is_none()
    }

    /// Commits everything the transaction's queries wrote.
    ///
    /// # Errors
    /// The engine's refusal (a conflict among them); or [`Error::Runtime`]
    /// if a failed query rolled it back.
    pub fn commit(self) -> Result<()> {
        match self.db {
            Some(db) => db.commit(),
            None => Err(Error::Runtime(
                "the transaction was rolled back by an earlier failure; nothing was committed"
                    .into(),
            )),
        }
    }
}

/// Parses, plans and runs `query` on the store `db` holds (opening it with
/// `open`, told whether the query writes, if it holds none) and describes
/// the results. `db` is left holding the store for the caller to commit
/// or keep; a failure while running leaves it empty (rolled back).
fn run_query<R>(
    query: &str,
    bindings: &Bindings,
    db: &mut Option<db::Db>,
    open: impl FnOnce(bool) -> db::Db,
    deadline: Option<Deadline>,
    describe: impl FnOnce(Vec<GValue>, &Elements<'_>) -> R,
) -> Result<R> {
    let query = parsed(query)?;
    let query = &*query;
    let (source, traversal, terminal) = match &query {
        Query::Empty => return Ok(describe(Vec::new(), &Elements { db: db.as_ref() })),
        Query::Tx { source, .. } => {
            let what = source.first().map_or("tx()", |s| s.name.as_str());
            return Err(Error::Runtime(format!(
                "{what}: remote transactions need a session; each query here is its own transaction"
            )));
        }
        Query::Traversal {
            source,
            traversal,
            terminal,
        } => (source, traversal, terminal),
    };
    let mut compiler = plan::Compiler {
        bindings,
        needs_paths: false,
        writes: false,
        depth: 0,
        fuse: !source.iter().any(|s| s.name == "withStrategies"),
    };
    let mut plan = compiler.traversal(traversal)?;
    let mut options = SourceOptions::default();
    for step in source {
        options.apply(step, &compiler)?;
    }
    strategy::apply(
        &mut plan,
        &options.strategies,
        &options.without,
        &mut compiler,
    )?;
    let ctx = Ctx {
        db: match db.take() {
            Some(d) => d,
            None => open(compiler.writes),
        },
        side: RefCell::new(options.side_effects),
        reducers: options.reducers,
        sack: options.sack,
        track_paths: compiler.needs_paths,
        deadline,
        ticks: std::cell::Cell::new(0),
        held_at_start: crate::memory::held(),
    };
    let mut out = Vec::new();
    let limit = match terminal.as_ref().map(|t| (t.name.as_str(), t)) {
        Some(("next", t)) => match t.args.first() {
            Some(e) => Some(compiler.value(e)?.as_i64().unwrap_or(1).max(0) as usize),
            None => Some(1),
        },
        Some(("hasNext" | "tryNext", _)) => Some(1),
        _ => None,
    };
    {
        let results = run::run(&ctx, &plan, run::seed(&ctx));
        'all: for t in results {
            let t = t?;
            for _ in 0..t.bulk {
                if limit.is_some_and(|n| out.len() >= n) {
                    break 'all;
                }
                out.push(t.obj.clone());
            }
        }
    }
    let out = match terminal.as_ref().map(|t| t.name.as_str()) {
        Some("iterate") => Vec::new(),
        Some("hasNext") => vec![GValue::Bool(!out.is_empty())],
        _ => out,
    };
    let Ctx { db: d, .. } = ctx;
    let described = describe(out, &Elements { db: Some(&d) });
    *db = Some(d);
    Ok(described)
}

/// How many parsed queries a thread keeps.
const PARSED_KEPT: usize = 256;

/// The longest text kept parsed: a server takes scripts of megabytes, and
/// 256 of those per thread would be memory spent on what rarely repeats.
const PARSED_MAX_TEXT: usize = 4096;

thread_local! {
    /// Queries parsed on this thread, by their text: an application (or a
    /// server's clients) sends the same few texts again and again, and the
    /// tree is a pure function of the text. Emptied when full.
    static PARSED: RefCell<HashMap<String, Rc<Query>>> = RefCell::new(HashMap::new());
}

/// `text` parsed, from this thread's cache when it was parsed before.
fn parsed(text: &str) -> Result<Rc<Query>> {
    if let Some(q) = PARSED.with(|p| p.borrow().get(text).cloned()) {
        return Ok(q);
    }
    let q = Rc::new(crate::parse(text)?);
    if text.len() > PARSED_MAX_TEXT {
        return Ok(q);
    }
    PARSED.with(|p| {
        let mut p = p.borrow_mut();
        if p.len() >= PARSED_KEPT {
            p.clear();
        }
        p.insert(text.to_string(), q.clone());
    });
    Ok(q)
}

/// What the traversal source's `with...` methods set.
#[derive(Default)]
struct SourceOptions {
    side_effects: FxHashMap<Arc<str>, GValue>,
    reducers: FxHashMap<Arc<str>, crate::ast::OperatorToken>,
    sack: Option<Sack>,
    /// `withStrategies(...)` in order.
    strategies: Vec<crate::ast::Strategy>,
    /// The class names `withoutStrategies(...)` names.
    without: Vec<String>,
}

/// `withSack(initial, split?, merge?)`.
#[derive(Clone)]
pub(crate) struct Sack {
    pub initial: GValue,
}

impl SourceOptions {
    fn apply(&mut self, step: &Step, c: &plan::Compiler<'_>) -> Result<()> {
        let err = |m: &str| Error::Unsupported {
            step: step.name.clone(),
            span: step.span,
            message: m.to_string(),
        };
        match step.name.as_str() {
            "withSideEffect" => match step.args.as_slice() {
                [k, v, rest @ ..] => {
                    let key = match c.value(k)? {
                        GValue::String(s) => s,
                        other => {
                            return Err(err(&format!(
                                "a side-effect key must be a string, not {other}"
                            )))
                        }
                    };
                    match rest {
                        [] => {}
                        [Expr::Enum(crate::ast::EnumToken::Operator(op))] => {
                            self.reducers.insert(key.clone(), *op);
                        }
                        _ => {
                            return Err(err(
                                "withSideEffect() takes a key, a value and an Operator",
                            ))
                        }
                    }
                    self.side_effects.insert(key, c.value(v)?);
                }
                _ => return Err(err("withSideEffect() takes a key and a value")),
            },
            "withSack" => match step.args.first() {
                Some(Expr::Traversal(_)) | None => {
                    return Err(err("withSack() takes an initial value"));
                }
                Some(v) => {
                    self.sack = Some(Sack {
                        initial: c.value(v)?,
                    })
                }
            },
            "withStrategies" => {
                for a in &step.args {
                    let Expr::Strategy(s) = a else {
                        return Err(err("withStrategies() takes strategies"));
                    };
                    self.strategies.push(s.clone());
                }
            }
            "withoutStrategies" => {
                for a in &step.args {
                    match a {
                        Expr::Strategy(s) => self.without.push(s.name.clone()),
                        _ => return Err(err("withoutStrategies() takes strategy classes")),
                    }
                }
            }
            // These configure what has no effect here.
            "withBulk" | "withPath" | "with" => {}
            _ => return Err(err("not a traversal source method")),
        }
        Ok(())
    }
}

/// What every step of one query shares.
pub(crate) struct Ctx {
    pub db: db::Db,
    /// Side effects by key (`aggregate`, `group('x')`, `withSideEffect`).
    pub side: RefCell<FxHashMap<Arc<str>, GValue>>,
    /// The operator that folds values into a side effect, where
    /// `withSideEffect(key, initial, op)` gave one (else values collect in
    /// a list).
    pub reducers: FxHashMap<Arc<str>, crate::ast::OperatorToken>,
    pub sack: Option<Sack>,
    /// Whether traversers keep every object they pass (for `path()` and
    /// the like) or only the labelled ones.
    pub track_paths: bool,
    /// When the query must have ended, if it has a time limit.
    pub deadline: Option<Deadline>,
    /// Steps taken since the clock was last read.
    pub ticks: std::cell::Cell<u32>,
    /// The bytes this thread held when the query began
    /// (`memory::held`), against which its memory limit is measured.
    pub held_at_start: isize,
}

/// A query's limits: when it must have ended, and how much memory it may
/// hold. Past either it fails ([`Error::Timeout`], [`Error::MemoryLimit`])
/// and writes nothing.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    /// The instant after which the query fails (`None`: no time limit).
    pub at: Option<std::time::Instant>,
    /// How long it was given.
    pub limit: std::time::Duration,
    /// The most bytes the query's thread may hold beyond what it held when
    /// the query began (`None`: no limit). Enforced only where the
    /// process's global allocator is [`crate::memory::CountingAlloc`].
    pub memory: Option<usize>,
}

impl Deadline {
    /// A time limit of `limit` from now.
    pub fn after(limit: std::time::Duration) -> Deadline {
        Deadline {
            at: Some(std::time::Instant::now() + limit),
            limit,
            memory: None,
        }
    }

    /// No limit yet (add one with [`Deadline::with_memory`]).
    pub fn unlimited() -> Deadline {
        Deadline {
            at: None,
            limit: std::time::Duration::ZERO,
            memory: None,
        }
    }

    /// These limits, and at most `bytes` of memory.
    pub fn with_memory(self, bytes: usize) -> Deadline {
        Deadline {
            memory: Some(bytes),
            ..self
        }
    }
}

/// How many steps run between two readings of the clock.
const TICKS_PER_CHECK: u32 = 1024;

impl Ctx {
    /// Fails the query once its time limit has passed or it holds more
    /// memory than its limit; looks only every [`TICKS_PER_CHECK`] calls,
    /// so the check costs a counter.
    pub(crate) fn tick(&self) -> Result<()> {
        let Some(d) = &self.deadline else {
            return Ok(());
        };
        let n = self.ticks.get().wrapping_add(1);
        self.ticks.set(n);
        if !n.is_multiple_of(TICKS_PER_CHECK) {
            return Ok(());
        }
        if d.at.is_some_and(|at| std::time::Instant::now() > at) {
            return Err(Error::Timeout { limit: d.limit });
        }
        if let Some(limit) = d.memory {
            let held = crate::memory::held().wrapping_sub(self.held_at_start);
            if held > 0 && held as usize > limit {
                return Err(Error::MemoryLimit { limit });
            }
        }
        Ok(())
    }
}

/// One node of a traverser's path, shared by the traversers that went
/// through it.
#[derive(Debug)]
pub(crate) struct PathNode {
    pub labels: Vec<Arc<str>>,
    pub obj: GValue,
    pub prev: Option<Rc<PathNode>>,
}

/// The loop counters of the `repeat`s a traverser is inside, innermost
/// last: each one's name (if given) and passes made.
pub(crate) type Loops = Rc<Vec<(Option<Arc<str>>, u32)>>;

/// A traverser: an object, how many identical traversers it stands for,
/// its path, loop counters and sack.
#[derive(Debug, Clone)]
pub(crate) struct Traverser {
    pub obj: GValue,
    pub bulk: u64,
    pub path: Option<Rc<PathNode>>,
    /// Whether the newest path node holds `obj` (so `as()` labels it
    /// rather than adding a node).
    pub fresh: bool,
    /// Loop counters of the `repeat`s it is inside, innermost last.
    /// Shared: most steps pass it on unchanged, and a repeat's pass
    /// copies it only where it changes a count.
    pub loops: Loops,
    pub sack: Option<GValue>,
    /// The traverser a root traversal starts from: start steps (`V()`,
    /// `inject()`, `addV()`) replace it rather than act on it.
    pub seed: bool,
}

impl Traverser {
    /// This traverser moved on to `obj`.
    pub(crate) fn to(&self, ctx: &Ctx, obj: GValue) -> Traverser {
        let (path, fresh) = if ctx.track_paths {
            (
                Some(Rc::new(PathNode {
                    labels: Vec::new(),
                    obj: obj.clone(),
                    prev: self.path.clone(),
                })),
                true,
            )
        } else {
            (self.path.clone(), false)
        };
        Traverser {
            obj,
            bulk: self.bulk,
            path,
            fresh,
            loops: self.loops.clone(),
            sack: self.sack.clone(),
            seed: false,
        }
    }

    /// A new traverser for `obj` with no history (after a reducing step).
    pub(crate) fn fresh(ctx: &Ctx, obj: GValue) -> Traverser {
        let t = Traverser {
            obj: GValue::Null,
            bulk: 1,
            path: None,
            fresh: false,
            loops: Rc::default(),
            sack: ctx.sack.as_ref().map(|s| s.initial.clone()),
            seed: false,
        };
        t.to(ctx, obj)
    }

    /// This traverser with `labels` on its current object.
    pub(crate) fn labelled(mut self, labels: &[Arc<str>]) -> Traverser {
        if self.fresh {
            if let Some(node) = &self.path {
                let mut all = node.labels.clone();
                for l in labels {
                    if !all.contains(l) {
                        all.push(l.clone());
                    }
                }
                self.path = Some(Rc::new(PathNode {
                    labels: all,
                    obj: node.obj.clone(),
                    prev: node.prev.clone(),
                }));
                return self;
            }
        }
        self.path = Some(Rc::new(PathNode {
            labels: labels.to_vec(),
            obj: self.obj.clone(),
            prev: self.path.take(),
        }));
        self.fresh = true;
        self
    }

    /// The path as a value.
    pub(crate) fn path_value(&self) -> Path {
        let mut entries = Vec::new();
        let mut node = self.path.as_deref();
        while let Some(n) = node {
            entries.push((n.labels.clone(), n.obj.clone()));
            node = n.prev.as_deref();
        }
        entries.reverse();
        Path { entries }
    }

    /// The objects labelled `label`, oldest first.
    pub(crate) fn labelled_objects(&self, label: &str) -> Vec<GValue> {
        let mut found = Vec::new();
        let mut node = self.path.as_deref();
        while let Some(n) = node {
            if n.labels.iter().any(|l| &**l == label) {
                found.push(n.obj.clone());
            }
            node = n.prev.as_deref();
        }
        found.reverse();
        found
    }
}
