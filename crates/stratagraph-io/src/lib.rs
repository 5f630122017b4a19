//! Graphs between stratagraph and the files other programs read and write.
//!
//! One parser per format, shared by every front end, so `stratagraph load`
//! and `stratagraph.read_edgelist` cannot disagree about what a file means.
//! The whitespace-separated edge list ([`edgelist`]) into the weighted
//! structure; property graphs from GraphSON 3.0 ([`graphson`]) and from
//! CSV files with a header row ([`csv`]), batched into transactions by
//! [`load`]; a snapshot as Parquet files in Apache GraphAr's layout, and
//! such a directory back into a store ([`graphar`]), with typed property
//! values as Arrow columns ([`columns`]); the change feed as tables
//! ([`changes`]) and a store's state at an earlier timestamp rebuilt from
//! a checkpoint and that feed ([`as_of`]).

pub mod as_of;
pub mod changes;
pub mod columns;
pub mod csv;
pub mod edgelist;
pub mod graphar;
pub mod graphson;
pub mod load;
pub mod tables;

pub use edgelist::{EdgeListError, Grammar, Reader, Records, Weights};
pub use load::{LoadError, LoadOptions, Loaded};
