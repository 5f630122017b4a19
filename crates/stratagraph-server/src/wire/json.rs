//! A small JSON reader and writer for GraphSON.
//!
//! Numbers are kept as their text: GraphSON's `gx:BigInteger` and
//! `gx:BigDecimal` may be JSON numbers wider than any machine type, and
//! `serde_json` (without its `arbitrary_precision` feature, which would
//! change number handling for every crate in the workspace) would round
//! them through `f64`. Objects keep their keys in order. Nesting is
//! limited so that recursion cannot exhaust the stack, and each error
//! carries the byte offset.

use std::fmt::Write;

use super::DecodeError;

/// A parsed JSON value.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Json {
    Null,
    Bool(bool),
    /// A number's text, checked against JSON's grammar.
    Number(String),
    String(String),
    Array(Vec<Json>),
    /// Members in document order.
    Object(Vec<(String, Json)>),
}

impl Json {
    /// The member named `key` (the first, if repeated).
    pub(crate) fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// A name for the kind of value, for errors.
    pub(crate) fn kind(&self) -> &'static str {
        match self {
            Json::Null => "null",
            Json::Bool(_) => "a boolean",
            Json::Number(_) => "a number",
            Json::String(_) => "a string",
            Json::Array(_) => "an array",
            Json::Object(_) => "an object",
        }
    }
}

/// How deeply JSON arrays and objects may nest. Each GraphSON value takes
/// two or three JSON levels, so this leaves room for [`super::MAX_DEPTH`]
/// GraphSON levels while keeping recursion bounded.
const MAX_JSON_DEPTH: usize = 4 * super::MAX_DEPTH;

/// Parses one JSON document that fills `input` (surrounding whitespace
/// allowed).
pub(crate) fn parse(input: &[u8]) -> Result<Json, DecodeError> {
    if let Err(e) = std::str::from_utf8(input) {
        return Err(DecodeError::Json {
            reason: "not UTF-8".to_owned(),
            offset: e.valid_up_to(),
        });
    }
    let mut p = Parser {
        s: input,
        pos: 0,
        depth: 0,
    };
    p.ws();
    let v = p.value()?;
    p.ws();
    if p.pos != p.s.len() {
        return Err(p.err("text after the JSON value"));
    }
    Ok(v)
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn err(&self, reason: &str) -> DecodeError {
        DecodeError::Json {
            reason: reason.to_owned(),
            offset: self.pos,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn literal(&mut self, word: &[u8], v: Json) -> Result<Json, DecodeError> {
        if self.s.get(self.pos..self.pos + word.len()) == Some(word) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.err("unexpected character"))
        }
    }

    fn value(&mut self) -> Result<Json, DecodeError> {
        match self.peek() {
            None => Err(self.err("unexpected end of input")),
            Some(b'n') => self.literal(b"null", Json::Null),
            Some(b't') => self.literal(b"true", Json::Bool(true)),
            Some(b'f') => self.literal(b"false", Json::Bool(false)),
            Some(b'"') => Ok(Json::String(self.string()?)),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(b'[') => {
                self.enter()?;
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.peek() == Some(b']') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        items.push(self.value()?);
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b']') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.err("expected ',' or ']'")),
                        }
                    }
                }
                self.depth -= 1;
                Ok(Json::Array(items))
            }
            Some(b'{') => {
                self.enter()?;
                self.pos += 1;
                let mut members = Vec::new();
                self.ws();
                if self.peek() == Some(b'}') {
                    self.pos += 1;
                } else {
                    loop {
                        self.ws();
                        if self.peek() != Some(b'"') {
                            return Err(self.err("expected a member name"));
                        }
                        let key = self.string()?;
                        self.ws();
                        if self.peek() != Some(b':') {
                            return Err(self.err("expected ':'"));
                        }
                        self.pos += 1;
                        self.ws();
                        let v = self.value()?;
                        members.push((key, v));
                        self.ws();
                        match self.peek() {
                            Some(b',') => self.pos += 1,
                            Some(b'}') => {
                                self.pos += 1;
                                break;
                            }
                            _ => return Err(self.err("expected ',' or '}'")),
                        }
                    }
                }
                self.depth -= 1;
                Ok(Json::Object(members))
            }
            Some(_) => Err(self.err("unexpected character")),
        }
    }

    fn enter(&mut self) -> Result<(), DecodeError> {
        self.depth += 1;
        if self.depth > MAX_JSON_DEPTH {
            return Err(self.err(&format!("nesting deeper than {MAX_JSON_DEPTH} levels")));
        }
        Ok(())
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Json, DecodeError> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.err("expected a digit")),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.err("expected a digit after '.'"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.err("expected a digit in the exponent"));
            }
        }
        let text = self.s.get(start..self.pos).unwrap_or_default();
        Ok(Json::Number(String::from_utf8_lossy(text).into_owned()))
    }

    fn hex4(&mut self) -> Result<u32, DecodeError> {
        let mut v = 0;
        for _ in 0..4 {
            let d = self
                .peek()
                .and_then(|c| char::from(c).to_digit(16))
                .ok_or_else(|| self.err("expected four hex digits"))?;
            v = v * 16 + d;
            self.pos += 1;
        }
        Ok(v)
    }

    fn string(&mut self) -> Result<String, DecodeError> {
        self.pos += 1; // the opening quote
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = self.peek().ok_or_else(|| self.err("unterminated string"))?;
            match c {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\\' => {
                    self.pos += 1;
                    let e = self.peek().ok_or_else(|| self.err("unterminated string"))?;
                    self.pos += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => {
                            self.pos -= 1;
                            return Err(self.err("invalid escape"));
                        }
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                0x00..=0x1f => return Err(self.err("control character in string")),
                _ => {
                    out.push(c);
                    self.pos += 1;
                }
            }
        }
        // The input was checked to be UTF-8 and escapes add whole
        // characters, so this cannot fail; map the error anyway.
        String::from_utf8(out).map_err(|_| self.err("not UTF-8"))
    }

    fn unicode_escape(&mut self) -> Result<char, DecodeError> {
        let at = self.pos;
        let hi = self.hex4()?;
        let code = if (0xd800..0xdc00).contains(&hi) {
            if self.s.get(self.pos..self.pos + 2) != Some(b"\\u") {
                return Err(DecodeError::Json {
                    reason: "unpaired surrogate escape".to_owned(),
                    offset: at,
                });
            }
            self.pos += 2;
            let lo = self.hex4()?;
            if !(0xdc00..0xe000).contains(&lo) {
                return Err(DecodeError::Json {
                    reason: "unpaired surrogate escape".to_owned(),
                    offset: at,
                });
            }
            0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00)
        } else {
            hi
        };
        char::from_u32(code).ok_or(DecodeError::Json {
            reason: "unpaired surrogate escape".to_owned(),
            offset: at,
        })
    }
}

/// Appends `s` as a JSON string literal.
pub(crate) fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if u32::from(c) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn big_numbers_keep_their_digits() {
        let v = parse(b" [123456789987654321123456789987654321, -0.5e-3] ").ok();
        assert_eq!(
            v,
            Some(Json::Array(vec![
                Json::Number("123456789987654321123456789987654321".into()),
                Json::Number("-0.5e-3".into()),
            ]))
        );
    }

    #[test]
    fn errors_say_where() {
        assert!(matches!(
            parse(b"[1, 2,]"),
            Err(DecodeError::Json { offset: 6, .. })
        ));
        assert!(matches!(
            parse(b"{\"a\" 1}"),
            Err(DecodeError::Json { offset: 5, .. })
        ));
        assert!(matches!(
            parse(b"01"),
            Err(DecodeError::Json { offset: 1, .. })
        ));
        assert!(parse(b"\"\\ud800\"").is_err());
        let deep = "[".repeat(5000);
        assert!(matches!(
            parse(deep.as_bytes()),
            Err(DecodeError::Json { .. })
        ));
    }

    #[test]
    fn strings_round_trip_through_escapes() {
        let s = "tab\tnl\nquote\"backslash\\ctl\u{1} \u{e9} \u{1F600}";
        let mut out = String::new();
        write_string(&mut out, s);
        assert_eq!(parse(out.as_bytes()).ok(), Some(Json::String(s.to_owned())));
        assert_eq!(
            parse(b"\"\\ud83d\\ude00\"").ok(),
            Some(Json::String("\u{1F600}".to_owned()))
        );
    }
}
