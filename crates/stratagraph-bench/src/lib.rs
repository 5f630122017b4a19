//! Workloads and baselines for measuring stratagraph.
//!
//! Every figure comes from the W1 workload files (`shared/WORKLOAD.md`),
//! measured beside a baseline in the same process and reported as TSV rows
//! with the checksums that prove each system did the same work. The
//! `stratagraph bench ...` commands are thin wrappers over this crate.

#![deny(missing_docs)]
pub mod algo;
pub mod capped;
pub mod core;
pub mod durability;
pub mod edge_layout;
pub mod gremlin;
pub mod latency;
pub mod levels;
pub mod props;
mod rows;
mod stream;
pub mod w1;
mod w1_files;
mod w1_reads;
mod w1_store;
