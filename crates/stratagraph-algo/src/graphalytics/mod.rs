//! LDBC Graphalytics validation: file parsers, the official comparison rules, and a runner
//! that checks every kernel against the published reference outputs.
//!
//! The runner is generic over [`GraphView`](crate::GraphView) through a builder closure, so
//! the engine's snapshots are validated by exactly the same cases as [`CsrGraph`](crate::CsrGraph).

mod compare;
mod error;
mod evlp;
mod properties;
mod reference;
mod runner;

pub use compare::{compare_epsilon, compare_equivalence, compare_exact, Mismatch, EPSILON};
pub use error::GraphalyticsError;
pub use evlp::{parse_edges, parse_vertices, GraphSpec};
pub use properties::{parse_properties, GraphProperties};
pub use reference::{parse_double_output, parse_long_output};
pub use runner::{
    discover, load_graph, run_case, run_suite, run_suite_with, summary_line, Algorithm,
    CaseOutcome, GraphCase,
};
