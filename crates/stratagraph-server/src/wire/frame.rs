//! The mime-type header before a request in a WebSocket binary frame.
//!
//! A driver sends each request as one binary frame: a length byte, that
//! many bytes of mime type naming the serializer, then the message
//! (`provider-index.asciidoc`, "Gremlin Server"). gremlinpython, for one,
//! sends `application/vnd.graphbinary-v1.0` or
//! `application/vnd.gremlin-v3.0+json`. Responses go back without a
//! header, in the serializer the request named. A text frame carries
//! GraphSON with no header, and an HTTP request names its serializer in
//! the `Content-Type` header; neither needs this module.

use super::DecodeError;

/// The serializers this server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Serializer {
    /// GraphBinary 1.0.
    GraphBinaryV1,
    /// GraphSON 3.0 with embedded types.
    GraphSonV3,
}

impl Serializer {
    /// The mime type drivers send for it.
    pub const fn mime_type(self) -> &'static str {
        match self {
            Serializer::GraphBinaryV1 => "application/vnd.graphbinary-v1.0",
            Serializer::GraphSonV3 => "application/vnd.gremlin-v3.0+json",
        }
    }

    /// The serializer a mime type names. `application/json` is GraphSON 3.0
    /// with types, as Gremlin Server configures it by default; the typeless
    /// `application/vnd.gremlin-v3.0+json;types=false` and GraphBinary's
    /// `-stringd` variant are not supported.
    pub fn from_mime_type(mime: &str) -> Option<Serializer> {
        match mime {
            "application/vnd.graphbinary-v1.0" => Some(Serializer::GraphBinaryV1),
            "application/vnd.gremlin-v3.0+json" | "application/json" => {
                Some(Serializer::GraphSonV3)
            }
            _ => None,
        }
    }
}

/// Splits a client's binary frame into the serializer its header names and
/// the message after it.
///
/// # Errors
/// [`DecodeError::Truncated`] if the frame is shorter than its header says,
/// [`DecodeError::UnsupportedMimeType`] if the header names a serializer
/// this server does not have (or is not UTF-8).
pub fn split_mime_header(frame: &[u8]) -> Result<(Serializer, &[u8]), DecodeError> {
    let (&len, rest) = frame.split_first().ok_or(DecodeError::Truncated {
        what: "mime type length",
        needed: 1,
        offset: 0,
        left: 0,
    })?;
    let len = usize::from(len);
    if rest.len() < len {
        return Err(DecodeError::Truncated {
            what: "mime type",
            needed: len,
            offset: 1,
            left: rest.len(),
        });
    }
    let (mime, message) = rest.split_at(len);
    let mime = String::from_utf8_lossy(mime);
    let serializer =
        Serializer::from_mime_type(&mime).ok_or_else(|| DecodeError::UnsupportedMimeType {
            mime: mime.into_owned(),
        })?;
    Ok((serializer, message))
}

/// The header a client puts before a message for `serializer`.
pub fn mime_header(serializer: Serializer) -> Vec<u8> {
    let mime = serializer.mime_type().as_bytes();
    let mut out = Vec::with_capacity(mime.len() + 1);
    // Both mime types are far shorter than 256 bytes.
    out.push(mime.len() as u8);
    out.extend_from_slice(mime);
    out
}
