//! gremlin-lang text into tokens.
//!
//! The lexer follows the grammar's lexer rules (`spec/Gremlin.g4`, "LEXER
//! RULES"): whitespace and `//` comments between tokens are skipped; a
//! number carries its sign (`-1` is one token, as `Sign?` in
//! `IntegerLiteral` makes it) and its type, decided here from its suffix
//! and size; strings resolve their escapes. Words are not split into
//! keywords and identifiers here: the parser decides what a word means
//! where it stands.
//!
//! The whole text is tokenized before parsing. A lexical error becomes the
//! last token, so that the parser reports it only if it gets that far and
//! an earlier syntax error is reported first.

use super::{error_at, SyntaxError};
use crate::ast::{Expr, Span};

/// What a token is.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    /// An identifier or keyword; its text is the source at the token's span.
    Word,
    /// A numeric literal with its Gremlin type (`Int32`, `Float32`,
    /// `BigDecimal`, ...), including `-Infinity`.
    Num(Expr),
    /// A string literal, escapes resolved.
    Str(String),
    /// `(`.
    LParen,
    /// `)`.
    RParen,
    /// `[`.
    LBrack,
    /// `]`.
    RBrack,
    /// `{`.
    LBrace,
    /// `}`.
    RBrace,
    /// `,`.
    Comma,
    /// `.`.
    Dot,
    /// `:`.
    Colon,
    /// `;`.
    Semi,
    /// The end of the text.
    End,
    /// Text that is no token; tokenizing stopped here.
    Error(SyntaxError),
}

/// A token and where it is.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Token {
    /// What it is.
    pub(super) kind: Tok,
    /// Where it is.
    pub(super) span: Span,
}

/// Splits `src` into tokens. The last token is always [`Tok::End`] or
/// [`Tok::Error`].
pub(super) fn tokenize(src: &str) -> Vec<Token> {
    let mut lx = Lexer { src, pos: 0 };
    let mut out = Vec::new();
    loop {
        if let Err(e) = lx.skip_trivia() {
            out.push(Token {
                kind: Tok::Error(e),
                span: lx.here(),
            });
            return out;
        }
        let start = lx.pos;
        let Some(c) = lx.peek(0) else {
            out.push(Token {
                kind: Tok::End,
                span: lx.here(),
            });
            return out;
        };
        let kind = match lx.token(c) {
            Ok(kind) => kind,
            Err(e) => {
                out.push(Token {
                    kind: Tok::Error(e),
                    span: lx.here(),
                });
                return out;
            }
        };
        out.push(Token {
            kind,
            span: Span { start, end: lx.pos },
        });
    }
}

/// Whether `c` may start an identifier: the grammar's `IdentifierStart`
/// (Java's letters, `$`, `_`), approximated by Unicode's alphabetic class.
pub(crate) fn is_ident_start(c: char) -> bool {
    c == '$' || c == '_' || c.is_alphabetic()
}

/// Whether `c` may continue an identifier (`IdentifierPart`).
pub(crate) fn is_ident_part(c: char) -> bool {
    is_ident_start(c) || c.is_alphanumeric()
}

struct Lexer<'a> {
    src: &'a str,
    pos: usize,
}

impl Lexer<'_> {
    fn rest(&self) -> &str {
        self.src.get(self.pos..).unwrap_or("")
    }

    fn peek(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek(0)?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn here(&self) -> Span {
        Span {
            start: self.pos,
            end: self.pos,
        }
    }

    fn error(&self, offset: usize, message: String) -> SyntaxError {
        error_at(self.src, offset, message)
    }

    /// Skips whitespace (`WS`) and line comments (`LINE_COMMENT`).
    fn skip_trivia(&mut self) -> Result<(), SyntaxError> {
        loop {
            match self.peek(0) {
                Some(' ' | '\t' | '\r' | '\n' | '\u{c}') => {
                    self.bump();
                }
                Some('/') if self.peek(1) == Some('/') => {
                    while !matches!(self.peek(0), None | Some('\r' | '\n')) {
                        self.bump();
                    }
                }
                _ => return Ok(()),
            }
        }
    }

    /// The token that starts with `c` at the current position.
    fn token(&mut self, c: char) -> Result<Tok, SyntaxError> {
        let start = self.pos;
        let punct = match c {
            '(' => Some(Tok::LParen),
            ')' => Some(Tok::RParen),
            '[' => Some(Tok::LBrack),
            ']' => Some(Tok::RBrack),
            '{' => Some(Tok::LBrace),
            '}' => Some(Tok::RBrace),
            ',' => Some(Tok::Comma),
            '.' => Some(Tok::Dot),
            ':' => Some(Tok::Colon),
            ';' => Some(Tok::Semi),
            _ => None,
        };
        if let Some(t) = punct {
            self.bump();
            return Ok(t);
        }
        match c {
            '"' | '\'' => self.string(c).map(Tok::Str),
            '0'..='9' => self.number(start, false).map(Tok::Num),
            '-' | '+' => {
                self.bump();
                if self.peek(0).is_some_and(|d| d.is_ascii_digit()) {
                    self.number(start, c == '-').map(Tok::Num)
                } else if self.rest().starts_with("Infinity") {
                    // `SignedInfLiteral`.
                    self.pos += "Infinity".len();
                    let inf = if c == '-' {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    };
                    Ok(Tok::Num(Expr::Float64(inf)))
                } else {
                    Err(self.error(
                        start,
                        format!(
                            "unexpected '{c}': a sign must be followed by a number or Infinity"
                        ),
                    ))
                }
            }
            c if is_ident_start(c) => {
                while self.peek(0).is_some_and(is_ident_part) {
                    self.bump();
                }
                Ok(Tok::Word)
            }
            c => Err(self.error(start, format!("unexpected character {c:?}"))),
        }
    }

    /// Consumes `[0-9_]*` (or hex digits) and returns them.
    fn digits(&mut self, hex: bool) -> &str {
        let from = self.pos;
        while self
            .peek(0)
            .is_some_and(|d| d == '_' || d.is_ascii_digit() || (hex && d.is_ascii_hexdigit()))
        {
            self.bump();
        }
        self.src.get(from..self.pos).unwrap_or("")
    }

    /// A numeric literal starting at `start` (at its sign, if any); the
    /// current position is at its first digit.
    fn number(&mut self, start: usize, negative: bool) -> Result<Expr, SyntaxError> {
        if self.peek(0) == Some('0') && matches!(self.peek(1), Some('x' | 'X')) {
            return self.hex_number(start, negative);
        }
        let int_part = self.digits(false).to_string();
        let mut is_float = false;
        if self.peek(0) == Some('.') && self.peek(1).is_some_and(|d| d.is_ascii_digit()) {
            self.bump();
            let frac = self.digits(false).to_string();
            self.check_underscores(start, &frac)?;
            is_float = true;
            self.exponent(start)?;
        } else if matches!(self.peek(0), Some('e' | 'E')) && self.exponent_follows() {
            is_float = true;
            self.exponent(start)?;
        }
        self.check_underscores(start, &int_part)?;
        let suffix = self.peek(0).filter(|c| {
            if is_float {
                "fFdDmM".contains(*c)
            } else {
                "fFdDmMbBsSnNiIlL".contains(*c)
            }
        });
        if suffix.is_some() {
            self.bump();
        }
        self.no_trailing_word(start)?;
        let text = self.src.get(start..self.pos).unwrap_or("");
        let suffix = suffix.map(|c| c.to_ascii_lowercase());
        if is_float || matches!(suffix, Some('f' | 'd' | 'm')) {
            return self.float_value(start, text, suffix);
        }
        let digits: String = int_part.chars().filter(|&c| c != '_').collect();
        let (radix, digits) = if digits.len() > 1 && digits.starts_with('0') {
            // `OctalNumeral`: a leading zero.
            if let Some(bad) = digits.chars().find(|c| !('0'..='7').contains(c)) {
                return Err(self.error(
                    start,
                    format!("invalid octal literal '{text}': '{bad}' is not an octal digit (a leading 0 means octal)"),
                ));
            }
            (8, &digits[1..])
        } else {
            (10, digits.as_str())
        };
        let magnitude = u128::from_str_radix(digits, radix).ok();
        self.int_value(start, text, magnitude, negative, suffix)
    }

    /// `0x...` with an optional integer suffix. As in TinkerPop's own
    /// reading of the token, a trailing `b`/`B` is the byte suffix rather
    /// than a hex digit (`0x1b` is the byte 1); write `0x1bi` for 27.
    fn hex_number(&mut self, start: usize, negative: bool) -> Result<Expr, SyntaxError> {
        self.bump();
        self.bump();
        let mut digits = self.digits(true).to_string();
        let mut suffix = self.peek(0).filter(|c| "sSnNiIlL".contains(*c));
        if suffix.is_some() {
            self.bump();
        } else if digits.ends_with(['b', 'B']) {
            digits.pop();
            suffix = Some('b');
        }
        self.no_trailing_word(start)?;
        let text = self.src.get(start..self.pos).unwrap_or("");
        if digits.is_empty() {
            return Err(self.error(start, format!("hex literal '{text}' has no digits")));
        }
        self.check_underscores(start, &digits)?;
        let clean: String = digits.chars().filter(|&c| c != '_').collect();
        let magnitude = u128::from_str_radix(&clean, 16).ok();
        let suffix = suffix.map(|c| c.to_ascii_lowercase());
        self.int_value(start, text, magnitude, negative, suffix)
    }

    /// Whether an `e`/`E` at the current position starts an exponent
    /// (`e5`, `e-5`, `E+5`).
    fn exponent_follows(&self) -> bool {
        match self.peek(1) {
            Some(d) if d.is_ascii_digit() => true,
            Some('+' | '-') => self.peek(2).is_some_and(|d| d.is_ascii_digit()),
            _ => false,
        }
    }

    /// An optional `ExponentPart`.
    fn exponent(&mut self, start: usize) -> Result<(), SyntaxError> {
        if matches!(self.peek(0), Some('e' | 'E')) && self.exponent_follows() {
            self.bump();
            if matches!(self.peek(0), Some('+' | '-')) {
                self.bump();
            }
            let digits = self.digits(false).to_string();
            self.check_underscores(start, &digits)?;
        }
        Ok(())
    }

    /// `Digits` may hold underscores only between digits.
    fn check_underscores(&self, start: usize, digits: &str) -> Result<(), SyntaxError> {
        if digits.starts_with('_') || digits.ends_with('_') {
            let text = self.src.get(start..self.pos).unwrap_or("");
            return Err(self.error(
                start,
                format!("malformed number '{text}': '_' may only stand between digits"),
            ));
        }
        Ok(())
    }

    /// A number must not run into a word (`12abc`).
    fn no_trailing_word(&self, start: usize) -> Result<(), SyntaxError> {
        match self.peek(0) {
            Some(c) if is_ident_part(c) => {
                let text = self.src.get(start..self.pos).unwrap_or("");
                Err(self.error(
                    self.pos,
                    format!("unexpected {c:?} right after the number '{text}'"),
                ))
            }
            _ => Ok(()),
        }
    }

    /// An integer literal's value in the type its suffix, or its size,
    /// gives it (`spec/gremlin-semantics.asciidoc`, types; the grammar's
    /// `IntegerTypeSuffix`).
    fn int_value(
        &self,
        start: usize,
        text: &str,
        magnitude: Option<u128>,
        negative: bool,
        suffix: Option<char>,
    ) -> Result<Expr, SyntaxError> {
        let value = magnitude.and_then(|m| {
            if negative {
                0i128.checked_sub_unsigned(m)
            } else {
                i128::try_from(m).ok()
            }
        });
        let shown = shorten(text);
        let Some(v) = value else {
            return Err(self.error(
                start,
                format!("integer literal '{shown}' does not fit 128 bits, the widest big integer this engine keeps"),
            ));
        };
        let out_of_range = |ty: &str| {
            self.error(
                start,
                format!("integer literal '{shown}' is out of range for {ty}"),
            )
        };
        Ok(match suffix {
            Some('b') => Expr::Int8(i8::try_from(v).map_err(|_| out_of_range("a byte (b)"))?),
            Some('s') => Expr::Int16(i16::try_from(v).map_err(|_| out_of_range("a short (s)"))?),
            Some('i') => Expr::Int32(i32::try_from(v).map_err(|_| out_of_range("an int (i)"))?),
            Some('l') => Expr::Int64(i64::try_from(v).map_err(|_| out_of_range("a long (l)"))?),
            Some('n') => Expr::BigInt(v),
            _ => {
                if let Ok(i) = i32::try_from(v) {
                    Expr::Int32(i)
                } else if let Ok(l) = i64::try_from(v) {
                    Expr::Int64(l)
                } else {
                    Expr::BigInt(v)
                }
            }
        })
    }

    /// A floating-point literal: `f` is `Float32`, `m` a `BigDecimal`, and
    /// `d` or no suffix a `Float64` (TinkerPop reads an unsuffixed decimal
    /// as a `Double`; the feature files rely on it, e.g.
    /// `g.inject(5.0).asNumber()` is `d[5].d` in `AsNumber.feature`).
    fn float_value(
        &self,
        start: usize,
        text: &str,
        suffix: Option<char>,
    ) -> Result<Expr, SyntaxError> {
        let without_suffix = match suffix {
            Some(_) => text.get(..text.len().saturating_sub(1)).unwrap_or(text),
            None => text,
        };
        let body: String = without_suffix.chars().filter(|&c| c != '_').collect();
        let bad = || self.error(start, format!("malformed number '{}'", shorten(text)));
        Ok(match suffix {
            Some('f') => Expr::Float32(body.parse::<f32>().map_err(|_| bad())?),
            Some('m') => Expr::BigDecimal(body.strip_prefix('+').unwrap_or(&body).to_string()),
            _ => Expr::Float64(body.parse::<f64>().map_err(|_| bad())?),
        })
    }

    /// A string literal quoted by `quote`, escapes resolved as TinkerPop
    /// resolves them (Java's escapes: `\b \t \n \f \r \" \' \\`, octal
    /// `\0`..`\377`, `\uXXXX`; a backslash before a line break drops the
    /// backslash and keeps the break).
    fn string(&mut self, quote: char) -> Result<String, SyntaxError> {
        let start = self.pos;
        self.bump();
        let mut out = String::new();
        loop {
            let at = self.pos;
            let Some(c) = self.bump() else {
                return Err(self.error(start, "unterminated string: no closing quote".into()));
            };
            if c == quote {
                return Ok(out);
            }
            if c != '\\' {
                out.push(c);
                continue;
            }
            let Some(e) = self.bump() else {
                return Err(self.error(start, "unterminated string: no closing quote".into()));
            };
            match e {
                'b' => out.push('\u{8}'),
                't' => out.push('\t'),
                'n' => out.push('\n'),
                'f' => out.push('\u{c}'),
                'r' => out.push('\r'),
                // `JoinLineEscape`: a backslash before a line break.
                '\n' => out.push('\n'),
                '\r' if self.peek(0) == Some('\n') => {
                    self.bump();
                    out.push_str("\r\n");
                }
                '"' | '\'' | '\\' => out.push(e),
                '0'..='7' => out.push(self.octal_escape(e)),
                'u' => out.push(self.unicode_escape(at)?),
                _ => {
                    return Err(self.error(at, format!("invalid escape '\\{e}' in a string")));
                }
            }
        }
    }

    /// `OctalEscape`: up to three octal digits, the first at most 3 when
    /// there are three.
    fn octal_escape(&mut self, first: char) -> char {
        let mut value = first.to_digit(8).unwrap_or(0);
        let max_digits = if first <= '3' { 3 } else { 2 };
        for _ in 1..max_digits {
            match self.peek(0).and_then(|c| c.to_digit(8)) {
                Some(d) => {
                    self.bump();
                    value = value * 8 + d;
                }
                None => break,
            }
        }
        char::from_u32(value).unwrap_or('\u{fffd}')
    }

    /// The four hex digits after `\u` (and any repeated `u`), joining a
    /// surrogate pair written as two escapes.
    fn unicode_escape(&mut self, at: usize) -> Result<char, SyntaxError> {
        let high = self.hex4(at)?;
        if !(0xD800..0xE000).contains(&high) {
            return char::from_u32(high).ok_or_else(|| self.error(at, "invalid \\u escape".into()));
        }
        let lone = format!("\\u{high:04X} is half of a surrogate pair with no other half");
        if high >= 0xDC00 || !self.rest().starts_with("\\u") {
            return Err(self.error(at, lone));
        }
        let second = self.pos;
        self.bump();
        self.bump();
        let low = self.hex4(second)?;
        if !(0xDC00..0xE000).contains(&low) {
            return Err(self.error(at, lone));
        }
        let c = 0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00);
        char::from_u32(c).ok_or_else(|| self.error(at, lone))
    }

    fn hex4(&mut self, at: usize) -> Result<u32, SyntaxError> {
        while self.peek(0) == Some('u') {
            self.bump();
        }
        let mut v = 0;
        for _ in 0..4 {
            match self.peek(0).and_then(|c| c.to_digit(16)) {
                Some(d) => {
                    self.bump();
                    v = v * 16 + d;
                }
                None => {
                    return Err(self.error(at, "a \\u escape needs four hex digits".into()));
                }
            }
        }
        Ok(v)
    }
}

/// `text`, cut to a length fit for a message.
pub(super) fn shorten(text: &str) -> String {
    const MAX: usize = 40;
    if text.chars().count() <= MAX {
        text.to_string()
    } else {
        let head: String = text.chars().take(MAX).collect();
        format!("{head}...")
    }
}
