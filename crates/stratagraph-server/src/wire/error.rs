//! Why a payload could not be decoded, or a value not encoded, and where.
//!
//! GraphBinary errors carry the byte offset into the payload; GraphSON
//! errors carry the byte offset (for JSON syntax) or the JSON path to the
//! value (`$.args.bindings[1]`), and the `@type` seen there. A server can
//! put the message in a 498/499 response as it is.

/// A payload that is not a valid GraphBinary 1.0 or GraphSON 3.0 value or
/// message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// The input ends before the value does.
    #[error("truncated: {what} needs {needed} bytes at byte {offset}, {left} left")]
    Truncated {
        /// What was being read.
        what: &'static str,
        /// Bytes it needs.
        needed: usize,
        /// Where it starts.
        offset: usize,
        /// Bytes that were left.
        left: usize,
    },
    /// A GraphBinary type code that no type has.
    #[error("unknown type code 0x{code:02x} at byte {offset}")]
    UnknownTypeCode {
        /// The code.
        code: u8,
        /// Where it is.
        offset: usize,
    },
    /// A length or count prefix below zero.
    #[error("{what} length {length} at byte {offset}")]
    NegativeLength {
        /// What the length was of.
        what: &'static str,
        /// The length read.
        length: i32,
        /// Where the length is.
        offset: usize,
    },
    /// A value flag other than `0x00` (value follows) or `0x01` (null).
    #[error("value flag 0x{flag:02x} for type code 0x{code:02x} at byte {offset}")]
    BadValueFlag {
        /// The flag.
        flag: u8,
        /// The type code before it.
        code: u8,
        /// Where the flag is.
        offset: usize,
    },
    /// A message version byte other than `0x81`.
    #[error("message version 0x{version:02x} at byte {offset}, expected 0x81")]
    BadVersion {
        /// The byte read.
        version: u8,
        /// Where it is.
        offset: usize,
    },
    /// A GraphBinary value of the wrong type where the format fixes one
    /// (a `Path`'s labels that are not a `List`, a map key that is not a
    /// `String` in a message's arguments, ...).
    #[error("{what} at byte {offset}: expected {expected}, found {found}")]
    UnexpectedType {
        /// What was being read.
        what: &'static str,
        /// The type the format requires.
        expected: &'static str,
        /// The type found.
        found: &'static str,
        /// Where the value starts.
        offset: usize,
    },
    /// A value that is well-formed but out of range or otherwise invalid
    /// (a `BigInteger` wider than 128 bits, month 13, bad UTF-8, ...).
    #[error("invalid {what} at byte {offset}: {reason}")]
    InvalidValue {
        /// What was being read.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
        /// Where it starts.
        offset: usize,
    },
    /// Values nested deeper than [`super::MAX_DEPTH`].
    #[error("nesting deeper than {limit} levels at byte {offset}")]
    TooDeep {
        /// The limit.
        limit: usize,
        /// Where the value that went too deep starts.
        offset: usize,
    },
    /// Bytes left over after a complete value or message.
    #[error("{count} bytes left over after the value at byte {offset}")]
    TrailingBytes {
        /// How many.
        count: usize,
        /// Where they start.
        offset: usize,
    },
    /// Input that is not JSON.
    #[error("invalid JSON at byte {offset}: {reason}")]
    Json {
        /// What is wrong.
        reason: String,
        /// Where.
        offset: usize,
    },
    /// JSON that is not the GraphSON 3.0 expected at `path`.
    #[error("{}", graphson_message(path, type_name.as_deref(), reason))]
    GraphSon {
        /// JSON path of the offending value (`$.result.data["@value"][2]`).
        path: String,
        /// The `@type` of the enclosing typed value, if any.
        type_name: Option<String>,
        /// What is wrong.
        reason: String,
    },
    /// A GraphSON `@type` this codec does not know.
    #[error("unknown GraphSON type {type_name:?} at {path}")]
    UnknownGraphSonType {
        /// The `@type`.
        type_name: String,
        /// JSON path of the typed value.
        path: String,
    },
    /// GraphSON values nested deeper than [`super::MAX_DEPTH`].
    #[error("nesting deeper than {limit} levels at {path}")]
    GraphSonTooDeep {
        /// The limit.
        limit: usize,
        /// JSON path where the limit was passed.
        path: String,
    },
    /// A WebSocket binary frame whose mime-type header names a serializer
    /// this server does not have.
    #[error("unsupported mime type {mime:?}")]
    UnsupportedMimeType {
        /// The mime type the client asked for.
        mime: String,
    },
}

fn graphson_message(path: &str, type_name: Option<&str>, reason: &str) -> String {
    match type_name {
        Some(t) => format!("{t} at {path}: {reason}"),
        None => format!("at {path}: {reason}"),
    }
}

/// A value that cannot be written in the chosen format.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum EncodeError {
    /// The format has no way to express this value (a GraphBinary `Custom`
    /// value in GraphSON, ...).
    #[error("{format} cannot express {what}: {reason}")]
    NotExpressible {
        /// `GraphBinary` or `GraphSON`.
        format: &'static str,
        /// The value's type.
        what: &'static str,
        /// Why.
        reason: String,
    },
    /// A value outside the range its type allows (month 13, an offset past
    /// ±18 hours, nanoseconds past a second, ...).
    #[error("invalid {what}: {reason}")]
    InvalidValue {
        /// The value's type.
        what: &'static str,
        /// What is wrong with it.
        reason: String,
    },
    /// A string, byte buffer or collection longer than a 32-bit length
    /// prefix can say.
    #[error("{what} of length {length} exceeds 2^31-1")]
    TooLong {
        /// What was too long.
        what: &'static str,
        /// Its length.
        length: usize,
    },
    /// Values nested deeper than [`super::MAX_DEPTH`].
    #[error("nesting deeper than {limit} levels")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
}
