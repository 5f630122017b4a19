//! What a query can fail with.

use crate::ast::Span;
use crate::parse::SyntaxError;

/// A Gremlin query's failure. Each names what was wrong and where: the
/// position in the query text for what the planner refuses, the step and
/// the value for what fails while running.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The text is not gremlin-lang.
    #[error(transparent)]
    Syntax(#[from] SyntaxError),
    /// The query names a parameter the request does not bind.
    #[error("the parameter {name} (at {span}) is not bound")]
    Unbound {
        /// The parameter.
        name: String,
        /// Where it is used.
        span: Span,
    },
    /// A step this engine does not run, or not with these arguments.
    #[error("{step} at {span}: {message}")]
    Unsupported {
        /// The step's name.
        step: String,
        /// Where it is.
        span: Span,
        /// What is not supported.
        message: String,
    },
    /// A step's arguments do not fit it.
    #[error("{step} at {span}: {message}")]
    Argument {
        /// The step's name.
        step: String,
        /// Where it is.
        span: Span,
        /// What is wrong.
        message: String,
    },
    /// The traversal failed while running (a value of the wrong type for a
    /// step, a missing property where one is required, `fail()`, ...).
    /// The message follows TinkerPop's wording where it has one, since
    /// clients match on it.
    #[error("{0}")]
    Runtime(String),
    /// The query ran past its time limit and was stopped (nothing it
    /// wrote is kept).
    #[error("the traversal ran past its time limit of {} ms and was stopped", limit.as_millis())]
    Timeout {
        /// The limit it was given.
        limit: std::time::Duration,
    },
    /// The query held more memory than its limit and was stopped
    /// (nothing it wrote is kept).
    #[error("the traversal held more than its memory limit of {} MiB and was stopped", limit >> 20)]
    MemoryLimit {
        /// The limit it was given, in bytes.
        limit: usize,
    },
    /// The engine refused a read or a write (a conflict, a bad name or
    /// value, a vertex that does not exist).
    #[error(transparent)]
    Engine(#[from] stratagraph::Error),
}

/// `Result` with this crate's [`Error`].
pub type Result<T> = std::result::Result<T, Error>;
