//! Request and response messages, the same in both formats: a request
//! names an operation (`eval`, `bytecode`, `authentication`) for a
//! processor with its arguments; each response carries a status and a
//! batch of results.

use super::{Bytecode, Wire};

/// A request from a driver (`provider-index.asciidoc`, "Gremlin Server").
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMessage {
    /// The request's UUID, which every response to it repeats.
    pub request_id: [u8; 16],
    /// The operation: `eval`, `bytecode`, `authentication`, `close`.
    pub op: String,
    /// The processor: `""` (standard), `session` or `traversal`.
    pub processor: String,
    /// The arguments, in the order sent.
    pub args: Vec<(String, Wire)>,
}

/// An argument of the wrong type.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("argument {key:?} must be {expected}, found {found}")]
pub struct ArgError {
    /// The argument's name.
    pub key: &'static str,
    /// What it must be.
    pub expected: &'static str,
    /// The type sent.
    pub found: &'static str,
}

impl RequestMessage {
    /// Argument names the standard processors read.
    pub const GREMLIN: &'static str = "gremlin";
    /// `bindings`: a map of script variables.
    pub const BINDINGS: &'static str = "bindings";
    /// `aliases`: a map renaming graphs and traversal sources.
    pub const ALIASES: &'static str = "aliases";
    /// `session`: the session's id.
    pub const SESSION: &'static str = "session";
    /// `evaluationTimeout`: milliseconds.
    pub const EVALUATION_TIMEOUT: &'static str = "evaluationTimeout";
    /// `batchSize`: results per response.
    pub const BATCH_SIZE: &'static str = "batchSize";
    /// `language`: the script's language.
    pub const LANGUAGE: &'static str = "language";

    /// The argument named `key`, if sent (the last, if sent twice). A
    /// `null` counts as not sent: the Node driver sends `bindings: null`
    /// for a script without bindings.
    pub fn arg(&self, key: &str) -> Option<&Wire> {
        self.args
            .iter()
            .rev()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v)
            .filter(|v| !matches!(v, Wire::Null))
    }

    /// `gremlin` as it was sent: a script (`eval`) or bytecode (`bytecode`).
    pub fn gremlin(&self) -> Option<&Wire> {
        self.arg(Self::GREMLIN)
    }

    /// `gremlin` as a script.
    ///
    /// # Errors
    /// [`ArgError`] if it is sent but not a string.
    pub fn gremlin_script(&self) -> Result<Option<&str>, ArgError> {
        self.str_arg(Self::GREMLIN)
    }

    /// `gremlin` as bytecode.
    ///
    /// # Errors
    /// [`ArgError`] if it is sent but not bytecode.
    pub fn gremlin_bytecode(&self) -> Result<Option<&Bytecode>, ArgError> {
        match self.gremlin() {
            None => Ok(None),
            Some(Wire::Bytecode(b)) => Ok(Some(b)),
            Some(other) => Err(ArgError {
                key: Self::GREMLIN,
                expected: "Bytecode",
                found: other.type_name(),
            }),
        }
    }

    /// `bindings`, the script's variables.
    ///
    /// # Errors
    /// [`ArgError`] if it is sent but not a map.
    pub fn bindings(&self) -> Result<Option<&[(Wire, Wire)]>, ArgError> {
        self.map_arg(Self::BINDINGS)
    }

    /// `aliases`, alias to the name of a graph or traversal source.
    ///
    /// # Errors
    /// [`ArgError`] if it is sent but not a map.
    pub fn aliases(&self) -> Result<Option<&[(Wire, Wire)]>, ArgError> {
        self.map_arg(Self::ALIASES)
    }

    /// `session`, the session id.
    ///
    /// # Errors
    /// [`ArgError`] if it is sent but not a string.
    pub fn session(&self) -> Result<Option<&str>, ArgError> {
        self.str_arg(Self::SESSION)
    }

    /// `language`, e.g. `gremlin-groovy` or `gremlin-lang`.
    ///
    /// # Errors
    /// [`ArgError`] if it is sent but not a string.
    pub fn language(&self) -> Result<Option<&str>, ArgError> {
        self.str_arg(Self::LANGUAGE)
    }

    /// `evaluationTimeout` in milliseconds: drivers send an `Int` or a
    /// `Long` (untyped GraphSON numbers decode as `Int` when they fit).
    ///
    /// # Errors
    /// [`ArgError`] if it is sent but not an integer.
    pub fn evaluation_timeout(&self) -> Result<Option<i64>, ArgError> {
        self.int_arg(Self::EVALUATION_TIMEOUT)
    }

    /// `batchSize`, results per response.
    ///
    /// # Errors
    /// [`ArgError`] if it is sent but not an integer.
    pub fn batch_size(&self) -> Result<Option<i64>, ArgError> {
        self.int_arg(Self::BATCH_SIZE)
    }

    fn str_arg(&self, key: &'static str) -> Result<Option<&str>, ArgError> {
        match self.arg(key) {
            None => Ok(None),
            Some(Wire::String(s)) => Ok(Some(s)),
            Some(other) => Err(ArgError {
                key,
                expected: "a String",
                found: other.type_name(),
            }),
        }
    }

    fn map_arg(&self, key: &'static str) -> Result<Option<&[(Wire, Wire)]>, ArgError> {
        match self.arg(key) {
            None => Ok(None),
            Some(Wire::Map(pairs)) => Ok(Some(pairs)),
            Some(other) => Err(ArgError {
                key,
                expected: "a Map",
                found: other.type_name(),
            }),
        }
    }

    fn int_arg(&self, key: &'static str) -> Result<Option<i64>, ArgError> {
        match self.arg(key) {
            None => Ok(None),
            Some(v) => v.as_i64().map(Some).ok_or(ArgError {
                key,
                expected: "an integer",
                found: v.type_name(),
            }),
        }
    }
}

/// Status codes a Gremlin Server sends (`provider-index.asciidoc`).
pub mod status {
    /// The request completed; no more responses follow.
    pub const SUCCESS: u16 = 200;
    /// The request completed with no results; no more responses follow.
    pub const NO_CONTENT: u16 = 204;
    /// A batch of results; more responses follow.
    pub const PARTIAL_CONTENT: u16 = 206;
    /// The client may not access what it asked for.
    pub const UNAUTHORIZED: u16 = 401;
    /// Authenticated, but the request is refused.
    pub const FORBIDDEN: u16 = 403;
    /// The client must authenticate (a SASL challenge).
    pub const AUTHENTICATE: u16 = 407;
    /// The request contained an object that could not be deserialized.
    pub const REQUEST_ERROR_SERIALIZATION: u16 = 497;
    /// The request could not be parsed, or its `op` is unknown.
    pub const REQUEST_ERROR_MALFORMED_REQUEST: u16 = 498;
    /// The request parsed but its arguments are wrong or incomplete.
    pub const REQUEST_ERROR_INVALID_REQUEST_ARGUMENTS: u16 = 499;
    /// A general server error.
    pub const SERVER_ERROR: u16 = 500;
    /// The traversal's `fail()` step was reached.
    pub const SERVER_ERROR_FAIL_STEP: u16 = 595;
    /// A temporary error: the same request may succeed if retried.
    pub const SERVER_ERROR_TEMPORARY: u16 = 596;
    /// The script or traversal failed while evaluating.
    pub const SERVER_ERROR_EVALUATION: u16 = 597;
    /// A timeout was exceeded.
    pub const SERVER_ERROR_TIMEOUT: u16 = 598;
    /// A result could not be serialized.
    pub const SERVER_ERROR_SERIALIZATION: u16 = 599;
}

/// A response's status.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    /// One of [`status`]'s codes.
    pub code: u16,
    /// A human-readable message, usually for errors.
    pub message: Option<String>,
    /// Protocol-level attributes (`exceptions`, `stackTrace`, `host`, ...).
    pub attributes: Vec<(String, Wire)>,
}

/// A response's results.
#[derive(Debug, Clone, PartialEq)]
pub struct ResultBody {
    /// Metadata about the results (`aggregateTo`, ...).
    pub meta: Vec<(String, Wire)>,
    /// The results: a `List` of values for a batch, `Null` when there are
    /// none.
    pub data: Wire,
}

/// A response from the server to one request; a request gets one or more.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseMessage {
    /// The request it answers; `None` when the request could not be read
    /// far enough to know.
    pub request_id: Option<[u8; 16]>,
    /// The status.
    pub status: Status,
    /// The results.
    pub result: ResultBody,
}

impl ResponseMessage {
    /// A response with `code`, an empty message and no attributes or meta.
    pub fn new(request_id: Option<[u8; 16]>, code: u16, data: Wire) -> ResponseMessage {
        ResponseMessage {
            request_id,
            status: Status {
                code,
                message: Some(String::new()),
                attributes: Vec::new(),
            },
            result: ResultBody {
                meta: Vec::new(),
                data,
            },
        }
    }

    /// An error response: `code` and `message`, no data.
    pub fn error(
        request_id: Option<[u8; 16]>,
        code: u16,
        message: impl Into<String>,
    ) -> ResponseMessage {
        let mut r = ResponseMessage::new(request_id, code, Wire::Null);
        r.status.message = Some(message.into());
        r
    }
}
