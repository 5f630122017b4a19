//! One request: its op read, its traversal run as one transaction (or in
//! its session's open transaction), its results cut into batches, or the
//! error response that says why not.
//!
//! A session (requests that name one, as drivers send them after
//! `g.tx().begin()`) keeps one transaction open across its requests: each
//! reads the writes of those before it, and nothing is visible to others
//! until `g.tx().commit()`; `g.tx().rollback()`, closing the session, or
//! the connection going away discards it. A request of the session that
//! fails while running rolls the transaction back, and the error says so.
//!
//! Everything here is synchronous and free of networking, so a request is
//! tested without a socket; the connection runs it on its own thread.

use stratagraph::Graph;
use stratagraph_gremlin::ast::{Query, TxOp as GremlinTxOp};
use stratagraph_gremlin::{execute_with, Bindings, Deadline, Error as GremlinError, Transaction};

use super::convert::{from_wire, to_wire};
use super::Limits;
use crate::translate;
use crate::wire::message::status;
use crate::wire::{RequestMessage, ResponseMessage, Wire};

/// Why a request failed: the protocol's status code and a message for the
/// client.
#[derive(Debug)]
pub(crate) struct Failure {
    pub code: u16,
    pub message: String,
    /// What kind of error it was, for the response's `exceptions`
    /// attribute (see [`exception_of`]); `None` for failures of the
    /// request itself rather than of a traversal.
    pub exception: Option<&'static str>,
}

impl Failure {
    fn new(code: u16, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
            exception: None,
        }
    }

    /// A traversal's error: its status, message and kind.
    fn of(e: &GremlinError) -> Failure {
        Failure {
            code: code_of(e),
            message: e.to_string(),
            exception: Some(exception_of(e)),
        }
    }

    /// The one error response this failure is.
    fn response(self, id: Option<[u8; 16]>) -> ResponseMessage {
        let mut r = ResponseMessage::error(id, self.code, self.message);
        if let Some(kind) = self.exception {
            r.status.attributes.push((
                "exceptions".to_owned(),
                Wire::List(vec![Wire::String(kind.to_owned())]),
            ));
        }
        r
    }
}

/// The responses to `req`: batches of results (206 each but the last,
/// which is 200; 204 when there are none), or one error response. `txn`
/// is the open transaction of the request's session, if it has one; what
/// comes back with the responses is the session's transaction after the
/// request (`None`: none open).
pub(crate) fn answer(
    graph: &Graph,
    req: &RequestMessage,
    limits: &Limits,
    txn: Option<Transaction>,
) -> (Vec<ResponseMessage>, Option<Transaction>) {
    let id = Some(req.request_id);
    let in_session = matches!(req.session(), Ok(Some(_)));
    if !in_session {
        if req.processor == "session" {
            let f = Failure::new(
                status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
                "a session request needs a \"session\" argument naming the session",
            );
            return (vec![f.response(id)], txn);
        }
        let mut runner = Runner::Alone(graph);
        return (respond(id, results(graph, &mut runner, req, limits)), txn);
    }
    let done = |r: Result<(), Failure>| match r {
        Ok(()) => vec![ResponseMessage::new(id, status::NO_CONTENT, Wire::Null)],
        Err(f) => vec![f.response(id)],
    };
    match tx_op(req) {
        Some(TxOp::Commit) => {
            let r = match txn {
                Some(t) => t.commit().map_err(|e| Failure::of(&e)),
                None => Ok(()),
            };
            return (done(r), None);
        }
        Some(TxOp::Rollback) => return (done(Ok(())), None),
        Some(TxOp::Begin) => {
            let t = txn.unwrap_or_else(|| Transaction::begin(graph));
            return (done(Ok(())), Some(t));
        }
        None => {}
    }
    if req.op == "close" {
        return (done(Ok(())), None);
    }
    let mut t = txn.unwrap_or_else(|| Transaction::begin(graph));
    let mut out = results(graph, &mut Runner::In(&mut t), req, limits);
    if t.is_rolled_back() {
        if let Err(f) = &mut out {
            f.message
                .push_str(" (the session's transaction was rolled back)");
        }
        return (respond(id, out), None);
    }
    (respond(id, out), Some(t))
}

fn respond(id: Option<[u8; 16]>, out: Result<(Vec<Wire>, usize), Failure>) -> Vec<ResponseMessage> {
    match out {
        Ok((items, batch)) => batches(id, items, batch),
        Err(f) => vec![f.response(id)],
    }
}

/// What a session request asks of its transaction.
enum TxOp {
    Begin,
    Commit,
    Rollback,
}

/// `g.tx().commit()` and its kin, as bytecode or as a script.
fn tx_op(req: &RequestMessage) -> Option<TxOp> {
    match req.op.as_str() {
        "bytecode" => match translate::is_tx(req.gremlin_bytecode().ok()??)? {
            translate::TxOp::Commit => Some(TxOp::Commit),
            translate::TxOp::Rollback => Some(TxOp::Rollback),
        },
        "eval" => match stratagraph_gremlin::parse(req.gremlin_script().ok()??).ok()? {
            Query::Tx { op, .. } => Some(match op {
                GremlinTxOp::Begin => TxOp::Begin,
                GremlinTxOp::Commit => TxOp::Commit,
                GremlinTxOp::Rollback => TxOp::Rollback,
            }),
            _ => None,
        },
        _ => None,
    }
}

/// Where a request's traversal runs: in a transaction of its own, or in
/// its session's.
enum Runner<'a> {
    Alone(&'a Graph),
    In(&'a mut Transaction),
}

/// `items` in responses of `batch` items each.
pub(crate) fn batches(
    id: Option<[u8; 16]>,
    items: Vec<Wire>,
    batch: usize,
) -> Vec<ResponseMessage> {
    if items.is_empty() {
        return vec![ResponseMessage::new(id, status::NO_CONTENT, Wire::Null)];
    }
    let batch = batch.max(1);
    let n = items.len().div_ceil(batch);
    let mut out = Vec::with_capacity(n);
    let mut items = items.into_iter();
    for i in 0..n {
        let part: Vec<Wire> = items.by_ref().take(batch).collect();
        let code = if i + 1 == n {
            status::SUCCESS
        } else {
            status::PARTIAL_CONTENT
        };
        out.push(ResponseMessage::new(id, code, Wire::List(part)));
    }
    out
}

/// The request's results as wire values, and the batch size to send them
/// in.
fn results(
    graph: &Graph,
    runner: &mut Runner<'_>,
    req: &RequestMessage,
    limits: &Limits,
) -> Result<(Vec<Wire>, usize), Failure> {
    let invalid = |e: crate::wire::ArgError| {
        Failure::new(
            status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
            e.to_string(),
        )
    };
    // Elements carry their properties unless the request asks for
    // references only, as a Gremlin Server 3.7+ does.
    let props = match req.arg("materializeProperties") {
        None => true,
        Some(Wire::String(s)) if s == "all" => true,
        Some(Wire::String(s)) if s == "tokens" => false,
        Some(other) => {
            return Err(Failure::new(
                status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
                format!("materializeProperties must be \"all\" or \"tokens\", not {other:?}"),
            ))
        }
    };
    // The request's own limit (`evaluationTimeout`, ms; 0: none), else
    // the server's.
    let deadline = match req.evaluation_timeout().map_err(invalid)? {
        Some(0) => None,
        Some(ms) if ms > 0 => Some(std::time::Duration::from_millis(ms as u64)),
        Some(ms) => {
            return Err(Failure::new(
                status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
                format!("evaluationTimeout must not be negative, not {ms}"),
            ))
        }
        None => limits.timeout,
    };
    let deadline = match (deadline, limits.query_memory) {
        (None, None) => None,
        (time, memory) => {
            let d = time.map_or_else(Deadline::unlimited, Deadline::after);
            Some(memory.map_or(d, |bytes| d.with_memory(bytes)))
        }
    };
    let batch = match req.batch_size().map_err(invalid)? {
        Some(n) if n > 0 => usize::try_from(n).unwrap_or(limits.batch_size),
        Some(n) => {
            return Err(Failure::new(
                status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
                format!("batchSize must be positive, not {n}"),
            ))
        }
        None => limits.batch_size,
    };
    match req.op.as_str() {
        "eval" => {
            if let Some(lang) = req.language().map_err(invalid)? {
                if lang != "gremlin-lang" && lang != "gremlin-groovy" {
                    return Err(Failure::new(
                        status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
                        format!("language {lang} is not supported; scripts are gremlin-lang"),
                    ));
                }
            }
            let Some(script) = req.gremlin_script().map_err(invalid)? else {
                return Err(Failure::new(
                    status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
                    "an eval request needs a \"gremlin\" argument with the script",
                ));
            };
            let mut bindings = Bindings::new();
            for (k, v) in req.bindings().map_err(invalid)?.unwrap_or_default() {
                let Wire::String(k) = k else {
                    return Err(Failure::new(
                        status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
                        format!("a binding's name must be a String, not a {}", k.type_name()),
                    ));
                };
                let v = from_wire(v, &|key| graph.key_id(key)).map_err(|m| {
                    Failure::new(
                        status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
                        format!("binding {k}: {m}"),
                    )
                })?;
                bindings.insert(k.clone(), v);
            }
            let items = run(runner, script, &bindings, limits, deadline, false, props)?;
            Ok((items, batch))
        }
        "bytecode" => {
            let Some(bytecode) = req.gremlin_bytecode().map_err(invalid)? else {
                return Err(Failure::new(
                    status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
                    "a bytecode request needs a \"gremlin\" argument with the bytecode",
                ));
            };
            let text = translate::to_gremlin_lang(bytecode)
                .map_err(|e| Failure::new(status::SERVER_ERROR_EVALUATION, e.to_string()))?;
            let items = run(
                runner,
                &text,
                &Bindings::new(),
                limits,
                deadline,
                true,
                props,
            )?;
            Ok((items, batch))
        }
        "authentication" => Err(Failure::new(
            status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
            "authentication is not enabled on this server",
        )),
        other => Err(Failure::new(
            status::REQUEST_ERROR_MALFORMED_REQUEST,
            format!("op {other:?} is not one this server runs (eval, bytecode)"),
        )),
    }
}

/// Runs `text`; results as wire values, each in a traverser (bulk 1) for
/// a bytecode request, as drivers' remote traversals expect.
fn run(
    runner: &mut Runner<'_>,
    text: &str,
    bindings: &Bindings,
    limits: &Limits,
    deadline: Option<Deadline>,
    traversers: bool,
    props: bool,
) -> Result<Vec<Wire>, Failure> {
    let max = limits.max_results;
    let describe = |results: Vec<stratagraph_gremlin::GValue>,
                    el: &stratagraph_gremlin::Elements<'_>| {
        if results.len() > max {
            return Err(results.len());
        }
        Ok(results
            .iter()
            .map(|r| {
                let w = to_wire(r, el, props);
                if traversers {
                    Wire::Traverser {
                        bulk: 1,
                        value: Box::new(w),
                    }
                } else {
                    w
                }
            })
            .collect::<Vec<Wire>>())
    };
    let described = match runner {
        Runner::Alone(graph) => execute_with(graph, text, bindings, deadline, describe),
        Runner::In(t) => t.execute_with(text, bindings, deadline, describe),
    }
    .map_err(|e| Failure::of(&e))?;
    described.map_err(|n| {
        Failure::new(
            status::SERVER_ERROR,
            format!("the traversal gave {n} results, more than the server's limit of {max}; add a limit() or raise --max-results"),
        )
    })
}

/// The kind of a traversal's error, sent as the error response's
/// `exceptions` attribute (where Gremlin Server names its Java exception
/// classes), so a client can tell a query the server cannot read or run
/// from one that failed on the data without parsing the message.
fn exception_of(e: &GremlinError) -> &'static str {
    match e {
        GremlinError::Syntax(_) => "stratagraph.SyntaxError",
        GremlinError::Unbound { .. } => "stratagraph.UnboundParameter",
        GremlinError::Unsupported { .. } => "stratagraph.Unsupported",
        GremlinError::Argument { .. } => "stratagraph.ArgumentError",
        GremlinError::Runtime(m) if m.starts_with("fail()") => "stratagraph.FailStep",
        GremlinError::Runtime(_) => "stratagraph.RuntimeError",
        GremlinError::Timeout { .. } => "stratagraph.Timeout",
        GremlinError::MemoryLimit { .. } => "stratagraph.MemoryLimit",
        GremlinError::Engine(stratagraph::Error::Conflict { .. }) => "stratagraph.Conflict",
        GremlinError::Engine(_) => "stratagraph.EngineError",
    }
}

/// The status a failed traversal answers with.
fn code_of(e: &GremlinError) -> u16 {
    match e {
        GremlinError::Runtime(m) if m.starts_with("fail()") => status::SERVER_ERROR_FAIL_STEP,
        GremlinError::Engine(_) => status::SERVER_ERROR,
        GremlinError::Timeout { .. } => status::SERVER_ERROR_TIMEOUT,
        _ => status::SERVER_ERROR_EVALUATION,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use stratagraph::{Options, Value};

    fn graph() -> Graph {
        let g = Graph::in_memory(Options::default());
        let mut tx = g.begin();
        for i in 0..10u64 {
            tx.insert_vertex_with(i, "person", &[("n", Value::Int32(i as i32))])
                .unwrap();
        }
        tx.commit().unwrap();
        g
    }

    fn eval(script: &str, extra: Vec<(String, Wire)>) -> RequestMessage {
        let mut args = vec![("gremlin".to_string(), Wire::from(script))];
        args.extend(extra);
        RequestMessage {
            request_id: [1; 16],
            op: "eval".into(),
            processor: String::new(),
            args,
        }
    }

    fn codes(rs: &[ResponseMessage]) -> Vec<u16> {
        rs.iter().map(|r| r.status.code).collect()
    }

    #[test]
    fn results_come_in_batches_and_none_is_no_content() {
        let g = graph();
        let limits = Limits::default();
        let rs = answer(
            &g,
            &eval(
                "g.V().values('n')",
                vec![("batchSize".into(), Wire::Int(4))],
            ),
            &limits,
            None,
        )
        .0;
        assert_eq!(codes(&rs), vec![206, 206, 200]);
        let all: Vec<Wire> = rs
            .iter()
            .flat_map(|r| match &r.result.data {
                Wire::List(items) => items.clone(),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(all, (0..10).map(Wire::Int).collect::<Vec<_>>());
        assert!(rs.iter().all(|r| r.request_id == Some([1; 16])));
        let rs = answer(&g, &eval("g.V().has('n', 99)", vec![]), &limits, None).0;
        assert_eq!(codes(&rs), vec![204]);
    }

    #[test]
    fn bad_requests_get_the_protocol_s_codes_and_change_nothing() {
        let g = graph();
        let limits = Limits {
            max_results: 5,
            ..Limits::default()
        };
        let one = |r: RequestMessage| {
            let rs = answer(&g, &r, &limits, None).0;
            assert_eq!(rs.len(), 1);
            (
                rs[0].status.code,
                rs[0].status.message.clone().unwrap_or_default(),
            )
        };
        let (code, msg) = one(eval("g.V().nope()", vec![]));
        assert_eq!(code, 597);
        assert!(msg.contains("nope"), "{msg}");
        let (code, msg) = one(eval("g.V()", vec![]));
        assert_eq!(code, 500);
        assert!(msg.contains("limit of 5"), "{msg}");
        let (code, _) = one(eval("g.addV('x').fail('no')", vec![]));
        assert_eq!(code, 595);
        let (code, _) = one(eval("g.V()", vec![("batchSize".into(), Wire::Int(0))]));
        assert_eq!(code, 499);
        let (code, msg) = one(eval(
            "g.V(x)",
            vec![(
                "bindings".into(),
                Wire::Map(vec![(Wire::Int(1), Wire::Int(2))]),
            )],
        ));
        assert_eq!(code, 499, "{msg}");
        let mut r = eval("g.V()", vec![]);
        r.processor = "session".into();
        assert_eq!(one(r).0, 499);
        let mut r = eval("g.V()", vec![]);
        r.op = "frobnicate".into();
        assert_eq!(one(r).0, 498);
        let mut r = eval("g.V()", vec![]);
        r.args.clear();
        assert_eq!(one(r).0, 499);
        assert_eq!(g.snapshot().vertex_count(), 10);
    }

    #[test]
    fn a_null_argument_counts_as_not_sent() {
        // The Node driver sends `bindings: null` for a script without any.
        let g = graph();
        let r = eval(
            "g.V().count()",
            vec![
                ("bindings".into(), Wire::Null),
                ("batchSize".into(), Wire::Null),
            ],
        );
        let rs = answer(&g, &r, &Limits::default(), None).0;
        assert_eq!(rs[0].result.data, Wire::List(vec![Wire::Long(10)]));
    }

    #[test]
    fn bindings_are_typed_values() {
        let g = graph();
        let rs = answer(
            &g,
            &eval(
                "g.V().has('n', within(xs)).values('n')",
                vec![(
                    "bindings".into(),
                    Wire::Map(vec![(
                        Wire::from("xs"),
                        Wire::List(vec![Wire::Int(2), Wire::Int(3)]),
                    )]),
                )],
            ),
            &Limits::default(),
            None,
        )
        .0;
        assert_eq!(
            rs[0].result.data,
            Wire::List(vec![Wire::Int(2), Wire::Int(3)])
        );
    }

    fn in_session(script: &str) -> RequestMessage {
        let mut r = eval(script, vec![("session".into(), Wire::from("s1"))]);
        r.processor = "session".into();
        r
    }

    fn count(g: &Graph) -> Wire {
        let rs = answer(g, &eval("g.V().count()", vec![]), &Limits::default(), None).0;
        rs[0].result.data.clone()
    }

    #[test]
    fn a_session_keeps_one_transaction_until_commit_or_rollback() {
        let g = graph();
        let limits = Limits::default();
        let ten = Wire::List(vec![Wire::Long(10)]);
        // Writes in the session are its own until it commits.
        let (_, t) = answer(
            &g,
            &in_session("g.addV('x').property(T.id, 100)"),
            &limits,
            None,
        );
        assert!(t.is_some());
        let (rs, t) = answer(&g, &in_session("g.V().count()"), &limits, t);
        assert_eq!(rs[0].result.data, Wire::List(vec![Wire::Long(11)]));
        assert_eq!(count(&g), ten);
        let (rs, t) = answer(&g, &in_session("g.tx().commit()"), &limits, t);
        assert_eq!(codes(&rs), vec![204]);
        assert!(t.is_none());
        assert_eq!(count(&g), Wire::List(vec![Wire::Long(11)]));
        // A rollback discards them; so does a failure while running.
        let (_, t) = answer(
            &g,
            &in_session("g.addV('x').property(T.id, 101)"),
            &limits,
            None,
        );
        let (_, t) = answer(&g, &in_session("g.tx().rollback()"), &limits, t);
        assert!(t.is_none());
        let (_, t) = answer(
            &g,
            &in_session("g.addV('x').property(T.id, 102)"),
            &limits,
            None,
        );
        let (rs, t) = answer(&g, &in_session("g.V(102).fail('stop')"), &limits, t);
        assert!(t.is_none());
        let msg = rs[0].status.message.clone().unwrap_or_default();
        assert!(msg.contains("rolled back"), "{msg}");
        // A query refused before it runs leaves the transaction alone.
        let (_, t) = answer(
            &g,
            &in_session("g.addV('x').property(T.id, 103)"),
            &limits,
            None,
        );
        let (rs, t) = answer(&g, &in_session("g.V().nope()"), &limits, t);
        assert_eq!(rs[0].status.code, 597);
        assert_eq!(
            rs[0].status.attributes,
            vec![(
                "exceptions".to_owned(),
                Wire::List(vec![Wire::String("stratagraph.SyntaxError".into())])
            )]
        );
        let (_, t) = answer(&g, &in_session("g.tx().commit()"), &limits, t);
        assert!(t.is_none());
        assert_eq!(count(&g), Wire::List(vec![Wire::Long(12)]));
        let mut close = in_session("");
        close.op = "close".into();
        close.args.retain(|(k, _)| k != "gremlin");
        let (_, t) = answer(
            &g,
            &in_session("g.addV('x').property(T.id, 104)"),
            &limits,
            None,
        );
        let (rs, t) = answer(&g, &close, &limits, t);
        assert_eq!(codes(&rs), vec![204]);
        assert!(t.is_none());
        assert_eq!(count(&g), Wire::List(vec![Wire::Long(12)]));
    }
}
