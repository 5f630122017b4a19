//! One client connection: the WebSocket handshake at `/gremlin`, then
//! requests in the order they arrive, each answered in full before the
//! next is read (drivers open several connections for concurrency). The
//! open transactions of the sessions a connection uses live with it: a
//! session belongs to the connection that began it, and ends (rolled
//! back, unless committed) when that connection does.

use std::collections::HashMap;
use std::sync::Arc;

use futures_util::{SinkExt, StreamExt};
use stratagraph::Graph;
use stratagraph_gremlin::Transaction;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::sync::{watch, OwnedSemaphorePermit};
use tokio_tungstenite::tungstenite::handshake::server::{ErrorResponse, Request, Response};
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{http, Message};

use super::auth::Credentials;
use super::{request, Limits};
use crate::wire::frame::{self, Serializer};
use crate::wire::message::status;
use crate::wire::{graphbinary, graphson, RequestMessage, ResponseMessage};

/// What every connection shares.
pub(crate) struct Shared {
    pub graph: Arc<Graph>,
    pub limits: Limits,
    /// Turns true when the server shuts down: idle connections close.
    pub closing: watch::Receiver<bool>,
    /// Who may log in; `None`: no authentication.
    pub credentials: Option<Arc<Credentials>>,
}

/// What a connection keeps between its requests.
#[derive(Default)]
struct State {
    /// The open transactions of its sessions, by session id.
    sessions: HashMap<String, Transaction>,
    /// The user it logged in as (with authentication on).
    user: Option<String>,
    /// The request held while the client answers the 407 challenge.
    pending: Option<RequestMessage>,
}

/// Serves one connection to its end. `permit` is `None` when the server
/// already has as many connections as it allows: the handshake is then
/// refused with 503.
pub(crate) async fn serve<S: AsyncRead + AsyncWrite + Unpin>(
    stream: S,
    shared: Arc<Shared>,
    permit: Option<OwnedSemaphorePermit>,
) {
    let full = permit.is_none();
    // The handshake callback's types are tungstenite's, large error and all.
    #[allow(clippy::result_large_err)]
    let check = move |req: &Request, resp: Response| -> Result<Response, ErrorResponse> {
        if req.uri().path() != "/gremlin" {
            return Err(refusal(
                http::StatusCode::NOT_FOUND,
                format!(
                    "no endpoint at {}: Gremlin is served at /gremlin",
                    req.uri().path()
                ),
            ));
        }
        if full {
            return Err(refusal(
                http::StatusCode::SERVICE_UNAVAILABLE,
                "the server has as many connections as it allows; try again later".into(),
            ));
        }
        Ok(resp)
    };
    // The read buffer is zeroed up to its size before every read of the
    // socket: tungstenite's 128 KiB default costs a few microseconds per
    // request, where requests are mostly a few hundred bytes. A larger
    // request takes more reads.
    let config = WebSocketConfig::default()
        .read_buffer_size(READ_BUFFER)
        .max_message_size(Some(shared.limits.max_request_bytes))
        .max_frame_size(Some(shared.limits.max_request_bytes));
    let Ok(ws) = tokio_tungstenite::accept_hdr_async_with_config(stream, check, Some(config)).await
    else {
        // Not a WebSocket client, or refused above: nothing more to say.
        return;
    };
    let (mut tx, mut rx) = ws.split();
    let mut closing = shared.closing.clone();
    let mut state = State::default();
    loop {
        if *closing.borrow() {
            break;
        }
        let msg = tokio::select! {
            m = rx.next() => m,
            _ = closing.changed() => break,
        };
        let (bytes, text) = match msg {
            Some(Ok(Message::Binary(b))) => (b.to_vec(), false),
            Some(Ok(Message::Text(t))) => (t.as_bytes().to_vec(), true),
            Some(Ok(Message::Ping(_) | Message::Pong(_) | Message::Frame(_))) => continue,
            Some(Ok(Message::Close(_))) | None => break,
            Some(Err(e)) => {
                // A frame over the limit, or bytes that are not
                // WebSocket: say so if the socket still takes it, then
                // close.
                let reply = ResponseMessage::error(
                    None,
                    status::REQUEST_ERROR_MALFORMED_REQUEST,
                    format!("the connection's frames could not be read: {e}"),
                );
                if let Ok(bytes) = graphbinary::encode_response(&reply) {
                    let _ = tx.send(Message::binary(bytes)).await;
                }
                break;
            }
        };
        let (serializer, replies) = answer(&shared, bytes, text, &mut state);
        for reply in replies {
            let (msg, complete) = match encode(serializer, &reply) {
                Ok(m) => (m, true),
                Err(Some(error)) => (error, false),
                Err(None) => break,
            };
            if tx.send(msg).await.is_err() {
                // The client went away mid-stream; the rest of its answer
                // is dropped, and so is the connection.
                return;
            }
            if !complete {
                break;
            }
        }
    }
    let _ = tx.close().await;
}

fn refusal(code: http::StatusCode, message: String) -> ErrorResponse {
    let mut resp = ErrorResponse::new(Some(message));
    *resp.status_mut() = code;
    resp
}

/// The serializer a frame asked for and the responses to it.
fn answer(
    shared: &Arc<Shared>,
    bytes: Vec<u8>,
    text: bool,
    state: &mut State,
) -> (Serializer, Vec<ResponseMessage>) {
    let (serializer, req) = decode(&bytes, text);
    let req = match req {
        Ok(r) => r,
        Err(reply) => return (serializer, vec![*reply]),
    };
    let req = match login(shared, state, req) {
        Ok(r) => r,
        Err(reply) => return (serializer, vec![*reply]),
    };
    let sessions = &mut state.sessions;
    let session = req.session().ok().flatten().map(str::to_string);
    let txn = session.as_ref().and_then(|s| sessions.remove(s));
    if session.is_some() && txn.is_none() && sessions.len() >= MAX_SESSIONS {
        let reply = ResponseMessage::error(
            Some(req.request_id),
            status::REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS,
            format!("this connection already has {MAX_SESSIONS} sessions with open transactions; commit or roll some back first"),
        );
        return (serializer, vec![reply]);
    }
    // The request runs on the connection's own thread (see `server`'s
    // module doc). A panic in the engine fails this request, not the
    // connection or the server.
    let id = req.request_id;
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        request::answer(&shared.graph, &req, &shared.limits, txn)
    }));
    match ran {
        Ok((replies, txn)) => {
            if let (Some(s), Some(t)) = (session, txn) {
                sessions.insert(s, t);
            }
            (serializer, replies)
        }
        Err(_) => {
            let reply = ResponseMessage::error(
                Some(id),
                status::SERVER_ERROR,
                "the server failed while running the request (an internal error; the request and its session's transaction were not applied)",
            );
            (serializer, vec![reply])
        }
    }
}

/// The serializer a frame asked for, and its request or the error reply
/// that says why it cannot be read. A text frame is GraphSON, with or
/// without the mime header.
pub(crate) fn decode(
    bytes: &[u8],
    text: bool,
) -> (Serializer, Result<RequestMessage, Box<ResponseMessage>>) {
    let malformed = |message: String| {
        Box::new(ResponseMessage::error(
            None,
            status::REQUEST_ERROR_MALFORMED_REQUEST,
            message,
        ))
    };
    let (serializer, req) = if text {
        let body = match frame::split_mime_header(bytes) {
            Ok((Serializer::GraphSonV3, body)) => body,
            _ => bytes,
        };
        (Serializer::GraphSonV3, graphson::decode_request(body))
    } else {
        match frame::split_mime_header(bytes) {
            Ok((s @ Serializer::GraphBinaryV1, body)) => (s, graphbinary::decode_request(body)),
            Ok((s @ Serializer::GraphSonV3, body)) => (s, graphson::decode_request(body)),
            Err(e) => {
                let m = format!("the request's mime type header could not be read: {e}");
                return (Serializer::GraphBinaryV1, Err(malformed(m)));
            }
        }
    };
    let req = req.map_err(|e| malformed(format!("the request could not be decoded: {e}")));
    (serializer, req)
}

/// With authentication on, the request to run once the connection has
/// logged in: the first request is held and answered with 407 (the SASL
/// challenge); the client's `authentication` request then logs in (and the
/// held request runs) or is refused with 401. `Err` is the reply to send
/// instead of running anything.
fn login(
    shared: &Shared,
    state: &mut State,
    req: RequestMessage,
) -> Result<RequestMessage, Box<ResponseMessage>> {
    let Some(credentials) = &shared.credentials else {
        return Ok(req);
    };
    if state.user.is_some() {
        return Ok(req);
    }
    let id = Some(req.request_id);
    if req.op != "authentication" {
        state.pending = Some(req);
        return Err(Box::new(ResponseMessage::new(
            id,
            status::AUTHENTICATE,
            crate::wire::Wire::Null,
        )));
    }
    let user = match req.arg("sasl") {
        Some(crate::wire::Wire::String(s)) => crate::wire::base64::decode(s)
            .ok()
            .and_then(|bytes| credentials.check_plain(&bytes)),
        Some(crate::wire::Wire::ByteBuffer(b)) => credentials.check_plain(b),
        _ => None,
    };
    let Some(user) = user else {
        state.pending = None;
        return Err(Box::new(ResponseMessage::error(
            id,
            status::UNAUTHORIZED,
            "Username and/or password are incorrect",
        )));
    };
    state.user = Some(user);
    match state.pending.take() {
        Some(held) => Ok(held),
        None => Err(Box::new(ResponseMessage::new(
            id,
            status::NO_CONTENT,
            crate::wire::Wire::Null,
        ))),
    }
}

/// The socket reads of a connection, at most (see `serve`).
const READ_BUFFER: usize = 8 * 1024;

/// How many sessions with an open transaction one connection may keep.
const MAX_SESSIONS: usize = 64;

/// `reply` as a frame in `serializer`'s format; if it cannot be encoded,
/// an error response that can (which ends the answer).
fn encode(serializer: Serializer, reply: &ResponseMessage) -> Result<Message, Option<Message>> {
    let frame = |bytes: Vec<u8>| match serializer {
        Serializer::GraphBinaryV1 => Message::binary(bytes),
        // GraphSON is UTF-8 text as encoded.
        Serializer::GraphSonV3 => match String::from_utf8(bytes) {
            Ok(s) => Message::text(s),
            Err(e) => Message::binary(e.into_bytes()),
        },
    };
    encode_bytes(serializer, reply)
        .map(frame)
        .map_err(|e| e.map(frame))
}

/// `reply` encoded in `serializer`'s format; if it cannot be, an error
/// response that can (which ends the answer).
pub(crate) fn encode_bytes(
    serializer: Serializer,
    reply: &ResponseMessage,
) -> Result<Vec<u8>, Option<Vec<u8>>> {
    let encode = |r: &ResponseMessage| match serializer {
        Serializer::GraphBinaryV1 => graphbinary::encode_response(r),
        Serializer::GraphSonV3 => graphson::encode_response(r).map(String::into_bytes),
    };
    encode(reply).map_err(|e| {
        let fallback = ResponseMessage::error(
            reply.request_id,
            status::SERVER_ERROR_SERIALIZATION,
            format!("a result could not be serialized: {e}"),
        );
        encode(&fallback).ok()
    })
}
