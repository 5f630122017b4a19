//! Reading graphs from files that other programs write into a stratagraph
//! [`Graph`](stratagraph::Graph).
//!
//! One parser per format, shared by every front end, so `stratagraph load`
//! and `stratagraph.read_edgelist` cannot disagree about what a file means.
//! Today: the whitespace-separated edge list ([`edgelist`]).

pub mod edgelist;

pub use edgelist::{EdgeListError, Grammar, Reader, Records, Weights};
