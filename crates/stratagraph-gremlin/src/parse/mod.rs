//! gremlin-lang text into [`crate::ast::Query`].
//!
//! The language is TinkerPop's ANTLR grammar, `spec/Gremlin.g4`; this is a
//! hand-written recursive-descent reading of it over a hand-written lexer:
//! - `lexer`: characters into tokens (numbers typed by suffix and size,
//!   strings unescaped, comments and whitespace dropped);
//! - `names`: the grammar's keywords, step names, predicate names and enum
//!   tokens, as lists and matches;
//! - `parser`: tokens into the query.
//!
//! Where the AST keeps steps generic, so does the parser: it checks that
//! each step name is one the grammar knows and reads every argument as a
//! value, leaving it to the planner to check that the arguments fit the
//! step. The grammar's rules still decide what each word means: a bare
//! keyword in argument position is the enum token it names (`desc`,
//! `local`, `OUT`, `id`), a word followed by `(` is a nested step or a
//! predicate, and any other identifier is a parameter.
//!
//! The parser never panics and never recurses without bound: nesting
//! deeper than [`MAX_DEPTH`] is a syntax error.

mod lexer;
pub(crate) mod names;
mod parser;
#[cfg(test)]
mod tests;

use crate::ast::Query;

/// How deeply values may nest (lists in lists, traversals in arguments,
/// predicates in predicates) before the parser gives up. The parser
/// recurses once per level; 256 levels take about 300 KB of stack in a
/// release build.
pub const MAX_DEPTH: usize = 256;

/// A query that does not follow gremlin-lang's syntax.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("syntax error at line {line}, column {column} (byte {offset}): {message}")]
pub struct SyntaxError {
    /// Byte offset of the offending token.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What was found and what was expected.
    pub message: String,
}

/// Parses one query.
///
/// The text holds one query, optionally ending in `;`. Besides the forms
/// the grammar's `query` rule lists (`g.V()...`, with an optional terminal
/// method; `g.tx().commit()`; a bare source `g.withPath()`; `''`), the
/// empty text and text of only whitespace and comments are
/// [`Query::Empty`]. A trailing `.toString()` is accepted and dropped: the
/// AST has no place for it, and it changes nothing the engine does.
///
/// # Errors
/// [`SyntaxError`] naming the position and what was expected.
pub fn parse(text: &str) -> Result<Query, SyntaxError> {
    parser::Parser::new(text).query()
}

/// A [`SyntaxError`] at byte `offset` of `src`, with its line and column.
pub(crate) fn error_at(src: &str, offset: usize, message: String) -> SyntaxError {
    let mut offset = offset.min(src.len());
    while !src.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = src.get(..offset).unwrap_or("");
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    SyntaxError {
        offset,
        line,
        column,
        message,
    }
}
