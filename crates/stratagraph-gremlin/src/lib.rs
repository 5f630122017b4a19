//! Gremlin over stratagraph.
//!
//! - `ast`: one representation of a query (steps, arguments, predicates,
//!   enum tokens, literals with their Gremlin types);
//! - `parse`: gremlin-lang text into that representation, with errors that
//!   name the position and what was expected;
//! - `value`: the values a traversal carries and Gremlin's comparisons;
//! - `exec`: running a query over a store, in one transaction;
//! - `memory`: the counting allocator behind a query's memory limit.
//!
//! ```
//! use stratagraph::{Graph, Options};
//! use stratagraph_gremlin::{execute, Bindings, GValue};
//! let g = Graph::in_memory(Options::default());
//! execute(&g, "g.addV('person').property(T.id, 1).property('name', 'marko').as('m').
//!              addV('person').property(T.id, 2).property('name', 'vadas').
//!              addE('knows').from('m')", &Bindings::new())?;
//! let names = execute(&g, "g.V().has('person', 'name', 'marko').out('knows').values('name')", &Bindings::new())?;
//! assert_eq!(names, vec![GValue::str("vadas")]);
//! # Ok::<(), stratagraph_gremlin::Error>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

pub mod ast;
mod error;
pub mod exec;
pub mod memory;
pub mod parse;
pub mod print;
pub mod value;

pub use error::{Error, Result};
pub use exec::{execute, execute_with, Bindings, Deadline, Elements, Transaction};
pub use parse::{parse, SyntaxError};
pub use value::GValue;
