//! One request: its op read, its traversal run as one transaction, its
//! results cut into batches, or the error response that says why not.
//!
//! Everything here is synchronous and free of networking, so a request is
//! tested without a socket; the connection runs it on a blocking thread.

use stratagraph::Graph;
use stratagraph_gremlin::{execute_with, Bindings, Error as GremlinError};

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
}

impl Failure {
    fn new(code: u16, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }
}

/// The responses to `req`: batches of results (206 each but the last,
/// which is 200; 204 when there are none), or one error response.
pub(crate) fn answer(graph: &Graph, req: &RequestMessage, limits: &Limits) -> Vec<ResponseMessage> {
    let id = Some(req.request_id);
    match results(graph, req, limits) {
        Ok((items, batch)) => batches(id, items, batch),
        Err(f) => vec![ResponseMessage::error(id, f.code, f.message)],
    }
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
    req: &RequestMessage,
    limits: &Limits,
) -> Result<(Vec<Wire>, usize), Failure> {
    let invalid = |e: crate::wire::ArgError| {
        Failure::new(
            status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
            e.to_string(),
        )
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
    if req.session().map_err(invalid)?.is_some() || req.processor == "session" {
        return Err(Failure::new(
            status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
            "sessions are not supported yet: each request is its own transaction",
        ));
    }
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
                let v = from_wire(v).map_err(|m| {
                    Failure::new(
                        status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
                        format!("binding {k}: {m}"),
                    )
                })?;
                bindings.insert(k.clone(), v);
            }
            let items = run(graph, script, &bindings, limits, false)?;
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
            let items = run(graph, &text, &Bindings::new(), limits, true)?;
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
    graph: &Graph,
    text: &str,
    bindings: &Bindings,
    limits: &Limits,
    traversers: bool,
) -> Result<Vec<Wire>, Failure> {
    let max = limits.max_results;
    let described = execute_with(graph, text, bindings, |results, el| {
        if results.len() > max {
            return Err(results.len());
        }
        Ok(results
            .iter()
            .map(|r| {
                let w = to_wire(r, el);
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
    })
    .map_err(|e| Failure::new(code_of(&e), e.to_string()))?;
    described.map_err(|n| {
        Failure::new(
            status::SERVER_ERROR,
            format!("the traversal gave {n} results, more than the server's limit of {max}; add a limit() or raise --max-results"),
        )
    })
}

/// The status a failed traversal answers with.
fn code_of(e: &GremlinError) -> u16 {
    match e {
        GremlinError::Runtime(m) if m.starts_with("fail()") => status::SERVER_ERROR_FAIL_STEP,
        GremlinError::Engine(_) => status::SERVER_ERROR,
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
        );
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
        let rs = answer(&g, &eval("g.V().has('n', 99)", vec![]), &limits);
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
            let rs = answer(&g, &r, &limits);
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
        let (code, _) = one(eval("g.V()", vec![("session".into(), Wire::from("abc"))]));
        assert_eq!(code, 499);
        let mut r = eval("g.V()", vec![]);
        r.op = "frobnicate".into();
        assert_eq!(one(r).0, 498);
        let mut r = eval("g.V()", vec![]);
        r.args.clear();
        assert_eq!(one(r).0, 499);
        assert_eq!(g.snapshot().vertex_count(), 10);
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
        );
        assert_eq!(
            rs[0].result.data,
            Wire::List(vec![Wire::Int(2), Wire::Int(3)])
        );
    }
}
