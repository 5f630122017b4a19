//! Tokens into a [`Query`], by recursive descent over the grammar's rules.
//!
//! One method per construct of `spec/Gremlin.g4`: the query forms
//! (`query`, `traversalSource`, `transactionPart`, `rootTraversal`), the
//! chains of steps (`chainedTraversal`, `nestedTraversal`), and the values
//! that may stand as an argument (`genericLiteral` and the enum,
//! predicate, map-key and strategy rules it leans on).
//!
//! Every argument is read as a value, whatever the step; see the parent
//! module for why. Two places of the grammar do depend on the step, and
//! so here too: `withStrategies` and `withoutStrategies` take strategies
//! (a bare word there is a class name, not a parameter), and the
//! arguments of `asNumber` and `typeOf` read `list`, `set` and `null` as
//! types rather than as cardinalities and null.

use super::lexer::{shorten, tokenize, Tok, Token};
use super::names::{self, Hint};
use super::{error_at, SyntaxError, MAX_DEPTH};
use crate::ast::{Cardinality, EnumToken, Expr, GTypeToken, Pred, Query, Span, Step, Strategy};
use crate::ast::{Terminal, Traversal, TxOp};

type Result<T> = std::result::Result<T, SyntaxError>;

/// The parser's state: the tokens, where it is, how deep it is.
pub(super) struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    depth: usize,
    /// The last token ([`Tok::End`] or [`Tok::Error`]), answered for any
    /// look-ahead past the end.
    last: Token,
}

impl<'a> Parser<'a> {
    /// A parser over `src`.
    pub(super) fn new(src: &'a str) -> Self {
        let toks = tokenize(src);
        let end = Span {
            start: src.len(),
            end: src.len(),
        };
        let last = toks.last().cloned().unwrap_or(Token {
            kind: Tok::End,
            span: end,
        });
        Parser {
            src,
            toks,
            pos: 0,
            depth: 0,
            last,
        }
    }

    // ----- Token access -------------------------------------------------

    fn at(&self, n: usize) -> &Token {
        self.toks.get(self.pos + n).unwrap_or(&self.last)
    }

    fn kind(&self, n: usize) -> &Tok {
        &self.at(n).kind
    }

    /// The text of the `n`th token ahead if it is a word.
    fn word(&self, n: usize) -> Option<&'a str> {
        let t = self.at(n);
        match t.kind {
            Tok::Word => self.src.get(t.span.start..t.span.end),
            _ => None,
        }
    }

    /// Moves past the current token and returns its span. The last token
    /// is never passed.
    fn bump(&mut self) -> Span {
        let span = self.at(0).span;
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        span
    }

    fn expect(&mut self, kind: Tok, expected: &str) -> Result<Span> {
        self.expect_with(kind, || expected.to_string())
    }

    /// [`Self::expect`] with a message built only when it is needed.
    fn expect_with(&mut self, kind: Tok, expected: impl FnOnce() -> String) -> Result<Span> {
        if *self.kind(0) == kind {
            Ok(self.bump())
        } else {
            Err(self.fail(&expected()))
        }
    }

    // ----- Errors -------------------------------------------------------

    #[cold]
    #[inline(never)]
    fn error(&self, offset: usize, message: String) -> SyntaxError {
        error_at(self.src, offset, message)
    }

    /// "expected `expected`, found ..." at the current token; a lexical
    /// error there is reported as itself.
    #[cold]
    #[inline(never)]
    fn fail(&self, expected: &str) -> SyntaxError {
        let t = self.at(0);
        if let Tok::Error(e) = &t.kind {
            return e.clone();
        }
        let found = match t.kind {
            Tok::End => "end of input".to_string(),
            _ => format!(
                "'{}'",
                shorten(self.src.get(t.span.start..t.span.end).unwrap_or(""))
            ),
        };
        self.error(t.span.start, format!("expected {expected}, found {found}"))
    }

    /// Why `name`, at the current token, is not a step here.
    #[cold]
    #[inline(never)]
    fn step_name_error(&self, name: &str) -> SyntaxError {
        let msg = if names::TERMINALS.contains(&name) {
            format!("'{name}' is a terminal method: it can only end the root traversal")
        } else if names::SOURCE_METHODS.contains(&name) {
            format!(
                "'{name}' configures the traversal source: it belongs right after 'g', before the start step"
            )
        } else if names::START_STEPS.contains(&name) {
            format!("'{name}' can only start a traversal, as g.{name}(...)")
        } else if name == "toString" {
            "toString() can only end the whole query".to_string()
        } else if name == "tx" {
            "tx() can only follow the traversal source, as g.tx().commit()".to_string()
        } else {
            format!("unknown step '{name}'")
        };
        self.error(self.at(0).span.start, msg)
    }

    // ----- Queries ------------------------------------------------------

    /// The grammar's `query`, followed by an optional `;` and the end.
    pub(super) fn query(mut self) -> Result<Query> {
        let query = match self.kind(0) {
            Tok::End => Query::Empty,
            // `emptyQuery`: `''` or `""`.
            Tok::Str(s) if s.is_empty() => {
                self.bump();
                Query::Empty
            }
            _ => self.g_query()?,
        };
        while *self.kind(0) == Tok::Dot && self.word(1) == Some("toString") {
            self.bump();
            self.bump();
            self.expect(Tok::LParen, "'(' after toString")?;
            self.expect(Tok::RParen, "')' after toString(")?;
        }
        if *self.kind(0) == Tok::Semi {
            self.bump();
        }
        if *self.kind(0) != Tok::End {
            return Err(self.fail("the end of the query"));
        }
        Ok(query)
    }

    /// `g`, its source methods, then a transaction, a root traversal and
    /// its terminal method, or nothing.
    fn g_query(&mut self) -> Result<Query> {
        if self.word(0) != Some("g") {
            return Err(self.fail("a query starting with 'g'"));
        }
        let mut source_end = self.bump().end;
        let mut source = Vec::new();
        while *self.kind(0) == Tok::Dot {
            let Some(name) = self.word(1) else {
                self.bump();
                return Err(self.fail("a source method or a start step after 'g.'"));
            };
            if names::SOURCE_METHODS.contains(&name) {
                self.bump();
                let step = self.source_step()?;
                source_end = step.span.end;
                source.push(step);
            } else if name == "tx" {
                self.bump();
                let op = self.tx()?;
                return Ok(Query::Tx { source, op });
            } else if names::START_STEPS.contains(&name) {
                self.bump();
                let first = self.step_call(name)?;
                let start = first.span.start;
                let traversal = self.finish_chain(start, first, true)?;
                let terminal = self.terminal()?;
                return Ok(Query::Traversal {
                    source,
                    traversal,
                    terminal,
                });
            } else if name == "toString" {
                break;
            } else {
                self.bump();
                let msg = if names::is_step(name) || names::TERMINALS.contains(&name) {
                    format!(
                        "'{name}' cannot start a traversal: after 'g.' come V(), E(), addV(), addE(), \
                         inject(), mergeV(), mergeE(), union(), call() or io()"
                    )
                } else {
                    format!("unknown source method or start step '{name}'")
                };
                return Err(self.error(self.at(0).span.start, msg));
            }
        }
        // A bare traversal source (`g`, `g.withPath()`): a traversal with
        // no steps.
        let traversal = Traversal {
            steps: Vec::new(),
            span: Span {
                start: source_end,
                end: source_end,
            },
        };
        Ok(Query::Traversal {
            source,
            traversal,
            terminal: None,
        })
    }

    /// `traversalSourceSelfMethod`: `withSack(...)`, `withStrategies(...)`.
    fn source_step(&mut self) -> Result<Step> {
        let name = self.word(0).unwrap_or("");
        let start = self.bump().start;
        let (args, end) = match name {
            "withStrategies" => self.args(name, |p| p.strategy(true))?,
            "withoutStrategies" => self.args(name, |p| p.strategy(false))?,
            _ => self.args(name, |p| p.expr(Hint::Value))?,
        };
        Ok(Step {
            name: name.to_string(),
            args,
            span: Span { start, end },
        })
    }

    /// `transactionPart`, after `g.` and the source methods.
    fn tx(&mut self) -> Result<TxOp> {
        self.bump();
        self.expect(Tok::LParen, "'(' after tx")?;
        self.expect(Tok::RParen, "')' after tx(")?;
        self.expect(
            Tok::Dot,
            "'.begin()', '.commit()' or '.rollback()' after tx()",
        )?;
        let op = match self.word(0) {
            Some("begin") => TxOp::Begin,
            Some("commit") => TxOp::Commit,
            Some("rollback") => TxOp::Rollback,
            _ => return Err(self.fail("begin, commit or rollback after 'tx().'")),
        };
        self.bump();
        self.expect(Tok::LParen, "'(' after the transaction operation")?;
        self.expect(
            Tok::RParen,
            "')': the transaction operations take no arguments",
        )?;
        Ok(op)
    }

    /// `traversalTerminalMethod`, if the root traversal ends in one.
    #[inline(never)]
    fn terminal(&mut self) -> Result<Option<Terminal>> {
        if *self.kind(0) != Tok::Dot {
            return Ok(None);
        }
        let Some(name) = self.word(1).filter(|n| names::TERMINALS.contains(n)) else {
            return Ok(None);
        };
        self.bump();
        let start = self.bump().start;
        let (args, end) = self.args(name, |p| p.expr(Hint::Value))?;
        let fits = match name {
            "next" => args.len() <= 1 && args.iter().all(|a| int_of(a).is_some()),
            _ => args.is_empty(),
        };
        if !fits {
            let msg = match name {
                "next" => "next takes nothing or one integer, as next(3)".to_string(),
                _ => format!("{name} takes no arguments"),
            };
            return Err(self.error(start, msg));
        }
        Ok(Some(Terminal {
            name: name.to_string(),
            args,
            span: Span { start, end },
        }))
    }

    // ----- Traversals ---------------------------------------------------

    /// A step by the name at the current token, checked against the steps
    /// a traversal may chain.
    fn step(&mut self) -> Result<Step> {
        let Some(name) = self.word(0) else {
            return Err(self.fail("a step name"));
        };
        if !names::is_step(name) {
            return Err(self.step_name_error(name));
        }
        self.step_call(name)
    }

    /// The step `name` (the current token) and its arguments.
    fn step_call(&mut self, name: &'a str) -> Result<Step> {
        let start = self.bump().start;
        let hint = if name == "asNumber" {
            Hint::GType
        } else {
            Hint::Value
        };
        let (args, end) = self.args(name, |p| p.expr(hint))?;
        Ok(Step {
            name: name.to_string(),
            args,
            span: Span { start, end },
        })
    }

    /// The rest of a chain after its first step: `.step(...)` while a dot
    /// follows. A root chain stops before a terminal method or
    /// `toString()`.
    fn finish_chain(&mut self, start: usize, first: Step, root: bool) -> Result<Traversal> {
        let mut steps = vec![first];
        while *self.kind(0) == Tok::Dot {
            if root {
                if let Some(n) = self.word(1) {
                    if names::TERMINALS.contains(&n) || n == "toString" {
                        break;
                    }
                }
            }
            self.bump();
            steps.push(self.step()?);
        }
        let end = steps.last().map_or(start, |s| s.span.end);
        Ok(Traversal {
            steps,
            span: Span { start, end },
        })
    }

    /// `nestedTraversal`: `__.out()...` or `out()...`.
    fn anonymous(&mut self) -> Result<Traversal> {
        let start = self.at(0).span.start;
        if self.word(0) == Some("__") {
            self.bump();
            self.expect(Tok::Dot, "'.' after '__'")?;
        }
        let first = self.step()?;
        self.finish_chain(start, first, false)
    }

    /// A parenthesized, comma-separated list of `item`s: the arguments of
    /// `owner`. Returns them and the end of the closing parenthesis.
    fn args<F>(&mut self, owner: &str, mut item: F) -> Result<(Vec<Expr>, usize)>
    where
        F: FnMut(&mut Self) -> Result<Expr>,
    {
        self.expect_with(Tok::LParen, || format!("'(' after {owner}"))?;
        let mut args = Vec::new();
        if *self.kind(0) == Tok::RParen {
            return Ok((args, self.bump().end));
        }
        loop {
            args.push(item(self)?);
            match self.kind(0) {
                Tok::Comma => {
                    self.bump();
                }
                Tok::RParen => return Ok((args, self.bump().end)),
                _ => return Err(self.fail(&format!("',' or ')' after the arguments of {owner}"))),
            }
        }
    }

    // ----- Values -------------------------------------------------------

    /// One argument (`genericArgument` and the rules an argument may
    /// take), at most [`MAX_DEPTH`] deep.
    fn expr(&mut self, hint: Hint) -> Result<Expr> {
        self.depth += 1;
        let result = if self.depth > MAX_DEPTH {
            Err(self.error(
                self.at(0).span.start,
                format!("the query nests deeper than {MAX_DEPTH} levels"),
            ))
        } else {
            self.expr_here(hint)
        };
        self.depth -= 1;
        result
    }

    fn expr_here(&mut self, hint: Hint) -> Result<Expr> {
        let start = self.at(0).span.start;
        match self.kind(0) {
            Tok::Num(n) => {
                let n = n.clone();
                self.bump();
                if self.range_follows() {
                    return self.range(n, start);
                }
                Ok(n)
            }
            Tok::Str(s) => {
                let s = s.clone();
                self.bump();
                if self.range_follows() {
                    return Err(self.error(
                        start,
                        "string ranges ('a'..'e') are not supported: only integer ranges are"
                            .into(),
                    ));
                }
                Ok(Expr::String(s))
            }
            Tok::LBrack => self.list_or_map(),
            Tok::LBrace => self.set(),
            Tok::Word => self.word_expr(hint),
            _ => Err(self.fail("a value")),
        }
    }

    fn range_follows(&self) -> bool {
        *self.kind(0) == Tok::Dot && *self.kind(1) == Tok::Dot
    }

    /// `genericRangeLiteral` over integers, after its first bound.
    #[inline(never)]
    fn range(&mut self, first: Expr, start: usize) -> Result<Expr> {
        self.bump();
        self.bump();
        let second = match self.kind(0) {
            Tok::Num(n) => n.clone(),
            _ => return Err(self.fail("an integer after '..'")),
        };
        let second_at = self.bump().start;
        let bound = |e: &Expr, at: usize| {
            int_of(e).ok_or_else(|| {
                self.error(
                    at,
                    "the bounds of a range must be integers that fit 64 bits".into(),
                )
            })
        };
        Ok(Expr::Range(
            bound(&first, start)?,
            bound(&second, second_at)?,
        ))
    }

    /// A value that starts with a word: a keyword literal, a nested
    /// traversal, a predicate, an enum token, a date, a UUID, a
    /// cardinality value, or a parameter.
    fn word_expr(&mut self, hint: Hint) -> Result<Expr> {
        let Some(w) = self.word(0) else {
            return Err(self.fail("a value"));
        };
        let span = self.at(0).span;
        let literal = match w {
            "true" => Some(Expr::Bool(true)),
            "false" => Some(Expr::Bool(false)),
            "null" if hint == Hint::GType => Some(Expr::Enum(EnumToken::GType(GTypeToken::Null))),
            "null" => Some(Expr::Null),
            "NaN" => Some(Expr::Float64(f64::NAN)),
            "Infinity" => Some(Expr::Float64(f64::INFINITY)),
            _ => None,
        };
        if let Some(e) = literal {
            self.bump();
            return Ok(e);
        }
        match w {
            "__" => return self.anonymous().map(Expr::Traversal),
            "g" => {
                return Err(self.error(
                    span.start,
                    "a traversal from 'g' cannot be an argument; use an anonymous one, as __.V()"
                        .into(),
                ))
            }
            "new" => {
                return Err(self.error(
                    span.start,
                    "a strategy ('new ...') can only be an argument of withStrategies".into(),
                ))
            }
            _ => {}
        }
        if *self.kind(1) == Tok::LParen {
            return match w {
                "datetime" | "DateTime" => self.datetime(),
                "UUID" => self.uuid(),
                _ if names::is_predicate(w) => self.pred_call(span.start, w, false),
                _ => {
                    if let Some(c) = names::cardinality(w) {
                        self.cardinality_value(w, c)
                    } else if names::is_step(w) {
                        self.anonymous().map(Expr::Traversal)
                    } else {
                        Err(self.step_name_error(w))
                    }
                }
            };
        }
        if *self.kind(1) == Tok::Dot {
            if w == "P" || w == "TextP" {
                return self.qualified_predicate(w);
            }
            if names::is_enum_class(w) {
                return self.qualified_token(w);
            }
            if names::is_constant_class(w) {
                return self.constant(w);
            }
        }
        if let Some(t) = names::bare_token(w, hint) {
            self.bump();
            return Ok(Expr::Enum(t));
        }
        if names::is_step(w) {
            self.bump();
            return Err(self.fail(&format!("'(' after the step name {w}")));
        }
        if names::is_keyword(w) {
            return Err(self.error(
                span.start,
                format!("'{w}' is a keyword of gremlin-lang, not a value; quote it to use it as a string"),
            ));
        }
        self.bump();
        Ok(Expr::Var(w.to_string(), span))
    }

    /// `Class.token` for the enum classes (`Order.desc`), or
    /// `Cardinality.list(value)`.
    fn qualified_token(&mut self, class: &str) -> Result<Expr> {
        self.bump();
        self.bump();
        let Some(token) = self.word(0) else {
            return Err(self.fail(&format!("a token of {class} after '{class}.'")));
        };
        if class == "Cardinality" && *self.kind(1) == Tok::LParen {
            if let Some(c) = names::cardinality(token) {
                return self.cardinality_value(token, c);
            }
        }
        let Some(t) = names::qualified_token(class, token) else {
            return Err(self.error(
                self.at(0).span.start,
                format!("'{token}' is not a token of {class}"),
            ));
        };
        self.bump();
        Ok(Expr::Enum(t))
    }

    /// `WithOptions.tokens`, `IO.reader`, ...: resolved to their values.
    #[inline(never)]
    fn constant(&mut self, class: &str) -> Result<Expr> {
        self.bump();
        self.bump();
        let Some(name) = self.word(0) else {
            return Err(self.fail(&format!("a constant of {class} after '{class}.'")));
        };
        let Some(e) = names::constant(class, name) else {
            return Err(self.error(
                self.at(0).span.start,
                format!("'{name}' is not a constant of {class}"),
            ));
        };
        self.bump();
        Ok(e)
    }

    /// `single(value)`, `Cardinality.list(value)`, with the current token
    /// at the cardinality's name.
    fn cardinality_value(&mut self, name: &str, c: Cardinality) -> Result<Expr> {
        let at = self.bump().start;
        let (mut args, _) = self.args(name, |p| p.expr(Hint::Value))?;
        match (args.pop(), args.is_empty()) {
            (Some(v), true) => Ok(Expr::Cardinality(c, Box::new(v))),
            _ => Err(self.error(at, format!("{name}(...) takes one value"))),
        }
    }

    /// `datetime('...')`, `datetime()` (also spelled `DateTime`).
    #[inline(never)]
    fn datetime(&mut self) -> Result<Expr> {
        self.bump();
        self.expect(Tok::LParen, "'(' after datetime")?;
        let text = match self.kind(0) {
            Tok::RParen => None,
            Tok::Str(s) => {
                let s = s.clone();
                self.bump();
                Some(s)
            }
            _ => return Err(self.fail("a date string or ')' in datetime(...)")),
        };
        self.expect(Tok::RParen, "')' after the date string")?;
        Ok(Expr::DateTime(text))
    }

    /// `UUID('...')` (the 8-4-4-4-12 hex form), `UUID()`.
    #[inline(never)]
    fn uuid(&mut self) -> Result<Expr> {
        self.bump();
        self.expect(Tok::LParen, "'(' after UUID")?;
        let bytes = match self.kind(0) {
            Tok::RParen => None,
            Tok::Str(s) => {
                let parsed = parse_uuid(s);
                let at = self.at(0).span.start;
                let Some(b) = parsed else {
                    return Err(self.error(
                        at,
                        format!(
                            "malformed UUID '{}': expected 32 hex digits grouped 8-4-4-4-12",
                            shorten(s)
                        ),
                    ));
                };
                self.bump();
                Some(b)
            }
            _ => return Err(self.fail("a UUID string or ')' in UUID(...)")),
        };
        self.expect(Tok::RParen, "')' after the UUID string")?;
        Ok(Expr::Uuid(bytes))
    }

    // ----- Predicates ---------------------------------------------------

    /// `P.name(...)` or `TextP.name(...)`.
    fn qualified_predicate(&mut self, class: &str) -> Result<Expr> {
        let start = self.bump().start;
        self.bump();
        let Some(name) = self.word(0) else {
            return Err(self.fail(&format!("a predicate after '{class}.'")));
        };
        let known = if class == "P" {
            names::P_PREDICATES
        } else {
            names::TEXT_PREDICATES
        };
        if !known.contains(&name) {
            return Err(self.error(
                self.at(0).span.start,
                format!("'{name}' is not a predicate of {class}"),
            ));
        }
        if *self.kind(1) != Tok::LParen {
            self.bump();
            return Err(self.fail(&format!("'(' after {class}.{name}")));
        }
        self.pred_call(start, name, true)
    }

    /// A predicate function and its arguments, with the current token at
    /// its name, then any `.and(...)`, `.or(...)`, `.negate()`.
    ///
    /// A bare `not(...)` around something other than one predicate is the
    /// step `not` (`where(not(out()))`), not `P.not`.
    fn pred_call(&mut self, start: usize, name: &'a str, qualified: bool) -> Result<Expr> {
        let name_at = self.bump().start;
        let hint = if name == "typeOf" {
            Hint::GType
        } else {
            Hint::Value
        };
        let (args, end) = self.args(name, |p| p.expr(hint))?;
        let span = Span { start, end };
        let pred = if name == "not" {
            match <[Expr; 1]>::try_from(args) {
                Ok([Expr::Pred(p)]) => Pred::Not(Box::new(p)),
                Ok([other]) if !qualified => return self.not_step(start, vec![other], span),
                Err(args) if !qualified => return self.not_step(start, args, span),
                _ => return Err(self.error(name_at, "P.not takes one predicate".into())),
            }
        } else {
            Pred::Call {
                name: name.to_string(),
                args,
                span,
            }
        };
        self.pred_tail(pred).map(Expr::Pred)
    }

    /// The step `not` read as a predicate's name had been, and the chain
    /// that follows it.
    fn not_step(&mut self, start: usize, args: Vec<Expr>, span: Span) -> Result<Expr> {
        let first = Step {
            name: "not".to_string(),
            args,
            span,
        };
        self.finish_chain(start, first, false).map(Expr::Traversal)
    }

    /// `.and(p)`, `.or(p)`, `.negate()` after a predicate, left to right.
    fn pred_tail(&mut self, mut pred: Pred) -> Result<Pred> {
        // Each link nests the predicate one level deeper.
        let mut links = 0;
        while *self.kind(0) == Tok::Dot {
            let op = match self.word(1) {
                Some(op @ ("and" | "or" | "negate")) => op,
                _ => break,
            };
            links += 1;
            if self.depth + links > MAX_DEPTH {
                return Err(self.error(
                    self.at(1).span.start,
                    format!("the query nests deeper than {MAX_DEPTH} levels"),
                ));
            }
            self.bump();
            self.bump();
            self.expect_with(Tok::LParen, || format!("'(' after {op}"))?;
            if op == "negate" {
                self.expect(Tok::RParen, "')': negate takes no arguments")?;
                pred = Pred::Not(Box::new(pred));
                continue;
            }
            let at = self.at(0).span.start;
            let other = match self.expr(Hint::Value)? {
                Expr::Pred(p) => p,
                _ => {
                    return Err(
                        self.error(at, format!("{op}(...) after a predicate takes a predicate"))
                    )
                }
            };
            self.expect_with(Tok::RParen, || {
                format!("')' after the predicate in {op}(...)")
            })?;
            pred = if op == "and" {
                Pred::And(Box::new(pred), Box::new(other))
            } else {
                Pred::Or(Box::new(pred), Box::new(other))
            };
        }
        Ok(pred)
    }

    // ----- Collections --------------------------------------------------

    /// `[a, b]` (`genericCollectionLiteral`) or `[k: v]`, `[:]`
    /// (`genericMapLiteral`): the first entry tells which.
    fn list_or_map(&mut self) -> Result<Expr> {
        self.bump();
        match self.kind(0) {
            Tok::RBrack => {
                self.bump();
                return Ok(Expr::List(Vec::new()));
            }
            Tok::Colon => {
                self.bump();
                self.expect(Tok::RBrack, "']' after '[:'")?;
                return Ok(Expr::Map(Vec::new()));
            }
            _ => {}
        }
        let (first, is_key) = self.key_or_item()?;
        if is_key || *self.kind(0) == Tok::Colon {
            let mut entries = Vec::new();
            let mut key = first;
            loop {
                self.expect(Tok::Colon, "':' after a map key")?;
                let value = self.expr(Hint::Value)?;
                entries.push((key, value));
                match self.kind(0) {
                    Tok::Comma => {
                        self.bump();
                        key = self.key_or_item()?.0;
                    }
                    Tok::RBrack => {
                        self.bump();
                        return Ok(Expr::Map(entries));
                    }
                    _ => return Err(self.fail("',' or ']' after a map entry")),
                }
            }
        }
        let mut items = vec![first];
        loop {
            match self.kind(0) {
                Tok::Comma => {
                    self.bump();
                    items.push(self.expr(Hint::Value)?);
                }
                Tok::RBrack => {
                    self.bump();
                    return Ok(Expr::List(items));
                }
                _ => return Err(self.fail("',' or ']' after a list item")),
            }
        }
    }

    /// A list item or a map key (`mapKey`); true if it can only be a key:
    /// a bare word before `:` (`[name: 1]`, `[id: 1]`, a string key, as the
    /// grammar's `nakedKey` and `keyword`) or a parenthesized key
    /// (`[(T.id): 1]`).
    fn key_or_item(&mut self) -> Result<(Expr, bool)> {
        if let Some(w) = self.word(0) {
            if w != "__" && *self.kind(1) == Tok::Colon {
                self.bump();
                return Ok((Expr::String(w.to_string()), true));
            }
        }
        if *self.kind(0) == Tok::LParen {
            self.bump();
            let key = self.expr(Hint::Value)?;
            self.expect(Tok::RParen, "')' after a parenthesized map key")?;
            return Ok((key, true));
        }
        Ok((self.expr(Hint::Value)?, false))
    }

    /// `{a, b}` (`genericSetLiteral`).
    fn set(&mut self) -> Result<Expr> {
        self.bump();
        let mut items = Vec::new();
        if *self.kind(0) == Tok::RBrace {
            self.bump();
            return Ok(Expr::Set(items));
        }
        loop {
            items.push(self.expr(Hint::Value)?);
            match self.kind(0) {
                Tok::Comma => {
                    self.bump();
                }
                Tok::RBrace => {
                    self.bump();
                    return Ok(Expr::Set(items));
                }
                _ => return Err(self.fail("',' or '}' after a set item")),
            }
        }
    }

    // ----- Strategies ---------------------------------------------------

    /// `traversalStrategy` (`new SubgraphStrategy(vertices: ...)`,
    /// `ReadOnlyStrategy`) when `configurable`, else `classType` (a bare
    /// class name, for `withoutStrategies`).
    fn strategy(&mut self, configurable: bool) -> Result<Expr> {
        let start = self.at(0).span.start;
        if configurable && self.word(0) == Some("new") {
            self.bump();
        }
        let name = match self.word(0) {
            Some(w) if !names::is_keyword(w) => w,
            _ => return Err(self.fail("a strategy class name")),
        };
        let mut end = self.bump().end;
        let mut config = Vec::new();
        if configurable && *self.kind(0) == Tok::LParen {
            self.bump();
            if *self.kind(0) == Tok::RParen {
                end = self.bump().end;
            } else {
                loop {
                    // `configuration`: a keyword or a naked key.
                    let key = match self.word(0) {
                        Some(k) if k != "__" => k,
                        _ => return Err(self.fail(&format!("a configuration key of {name}"))),
                    };
                    self.bump();
                    self.expect_with(Tok::Colon, || {
                        format!("':' after the configuration key {key}")
                    })?;
                    let value = self.expr(Hint::Value)?;
                    config.push((key.to_string(), value));
                    match self.kind(0) {
                        Tok::Comma => {
                            self.bump();
                        }
                        Tok::RParen => {
                            end = self.bump().end;
                            break;
                        }
                        _ => {
                            return Err(
                                self.fail(&format!("',' or ')' in the configuration of {name}"))
                            )
                        }
                    }
                }
            }
        }
        Ok(Expr::Strategy(Strategy {
            name: name.to_string(),
            config,
            span: Span { start, end },
        }))
    }
}

/// An integer literal's value, if it fits 64 bits.
fn int_of(e: &Expr) -> Option<i64> {
    match e {
        Expr::Int8(v) => Some(i64::from(*v)),
        Expr::Int16(v) => Some(i64::from(*v)),
        Expr::Int32(v) => Some(i64::from(*v)),
        Expr::Int64(v) => Some(*v),
        Expr::BigInt(v) => i64::try_from(*v).ok(),
        _ => None,
    }
}

/// The 16 bytes of a UUID written `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
fn parse_uuid(s: &str) -> Option<[u8; 16]> {
    let b = s.as_bytes();
    if b.len() != 36 {
        return None;
    }
    let mut out = [0u8; 16];
    let mut nibble = 0usize;
    for (i, &c) in b.iter().enumerate() {
        if matches!(i, 8 | 13 | 18 | 23) {
            if c != b'-' {
                return None;
            }
            continue;
        }
        let d = char::from(c).to_digit(16)?;
        let slot = out.get_mut(nibble / 2)?;
        *slot = (*slot << 4) | u8::try_from(d).ok()?;
        nibble += 1;
    }
    (nibble == 32).then_some(out)
}
