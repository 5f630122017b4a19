//! A Gremlin Server endpoint for stratagraph: what a TinkerPop driver
//! sends and expects back, and the server that answers it.
//!
//! - [`wire::Wire`] is the value model: every type GraphBinary 1.0 and
//!   GraphSON 3.0 carry, as the wire carries it (an `Int` stays an `Int`, a
//!   vertex is an id and a label, enum tokens are their names).
//! - [`wire::graphbinary`] and [`wire::graphson`] encode and decode those
//!   values and the request and response messages in each format.
//! - [`wire::frame`] splits the mime-type header a WebSocket client puts
//!   before each binary request, and says which serializer it asked for.
//!
//! Decoding takes untrusted bytes: it never panics, pre-allocates no more
//! than the input could fill, limits nesting to [`wire::MAX_DEPTH`], and
//! says in each [`wire::DecodeError`] what was wrong and where.
//!
//! - [`server`] is the endpoint itself: WebSocket connections at
//!   `/gremlin`, each request run as one transaction through
//!   `stratagraph-gremlin`, results sent back in batches.
//!
//! ```
//! use stratagraph_server::wire::message::status;
//! use stratagraph_server::wire::{frame, graphbinary, RequestMessage, ResponseMessage, Wire};
//!
//! // What a driver sends: a mime-type header, then the request.
//! let request = RequestMessage {
//!     request_id: [7; 16],
//!     op: "eval".into(),
//!     processor: String::new(),
//!     args: vec![("gremlin".into(), Wire::from("g.V().count()"))],
//! };
//! let mut frame_bytes = frame::mime_header(frame::Serializer::GraphBinaryV1);
//! frame_bytes.extend(graphbinary::encode_request(&request)?);
//!
//! // What a server does with it.
//! let (serializer, body) = frame::split_mime_header(&frame_bytes)?;
//! assert_eq!(serializer, frame::Serializer::GraphBinaryV1);
//! let got = graphbinary::decode_request(body)?;
//! assert_eq!(got.gremlin_script()?, Some("g.V().count()"));
//! let reply = ResponseMessage::new(Some(got.request_id), status::SUCCESS, Wire::List(vec![Wire::Long(6)]));
//! let bytes = graphbinary::encode_response(&reply)?;
//! assert_eq!(graphbinary::decode_response(&bytes)?, reply);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod server;
/// Gremlin bytecode, as drivers send it, into gremlin-lang text for the parser and executor.
pub mod translate;
pub mod wire;
