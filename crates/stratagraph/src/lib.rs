//! # stratagraph
//!
//! An embedded dynamic graph store: streams of vertex and edge inserts and
//! deletes go in through snapshot-isolated transactions or atomic batches;
//! readers take consistent snapshots and run look-ups and whole-graph
//! analytics on them while writes continue.
//!
//! Where things live (`docs/ARCHITECTURE.md` draws the module map, the
//! write and read paths step by step, and the lock order):
//! - the handle: [`Graph`] (`graph.rs`); opening a store (`open.rs`);
//! - write path: [`WriteTxn`] (`txn.rs`) and batches (`batch/`) apply to
//!   the MemGraph (`mem/`) by the rules of `edge_rules.rs`, logged by
//!   `wal/`, stamped and published by the clock (`version.rs`);
//! - read path: [`Snapshot`] and its iterators (`read/`);
//! - the state every handle shares, and its flushes and compactions
//!   (`store/`); the levels below the MemGraph (`lsm/`, `csr/`);
//! - ids: external `u64` to dense internal `u32` (`ids.rs`).
//!
//! ```
//! use stratagraph::{Graph, Options};
//! let g = Graph::in_memory(Options::default());
//! g.insert_edges(&[(1, 2, 1.0), (1, 3, 1.0), (2, 3, 1.0)])?;
//! let before = g.snapshot();
//! g.delete_vertex(3)?;
//! let after = g.snapshot();
//! assert_eq!((before.edge_count(), after.edge_count()), (3, 1));
//! let ids: Vec<u64> = before
//!     .out_neighbors(1)
//!     .unwrap()
//!     .map(|v| before.external_id(v).unwrap())
//!     .collect();
//! assert_eq!(ids, vec![2, 3]);
//! # Ok::<(), stratagraph::Error>(())
//! ```
#![deny(missing_docs)]
#![cfg_attr(test, allow(clippy::unwrap_used))]

mod batch;
mod blind;
mod changes;
mod check;
mod conflict;
mod csr;
mod direction;
mod edge_rules;
mod error;
#[cfg(test)]
mod file_fuzz;
mod graph;
mod ids;
mod keys;
mod lsm;
mod manifest;
mod mem;
mod open;
mod options;
mod page;
mod pivot;
mod props;
mod read;
mod schema;
mod store;
mod txn;
mod util;
mod value;
mod version;
mod vertex_file;
mod wal;

pub use changes::{Change, ChangeOp};
pub use check::{check, CheckReport};
pub use csr::Weights;
pub use error::{BatchIndex, Element, Error, Op, Result, VertexId};
pub use graph::{Changes, Graph, LevelStats, RunInfo, Stats};
pub use manifest::Totals;
pub use mem::MemoryUsage;
pub use open::{repair, resolve_directed, stored_kind, stored_string_ids, RepairReport};
pub use options::{Options, SyncPolicy, UpdatePolicy, MAX_THREADS};
pub use props::edges::{Edge, EdgeDirection, EdgeId};
pub use props::names::MAX_NAME_BYTES;
pub use props::DEFAULT_LABEL;
pub use read::{EdgeEnd, Neighbors, SharedColumn, SharedLists, Snapshot, WeightedNeighbors};
pub use store::checkpoint::{checkpoints, copy_checkpoint, CHECKPOINTS_DIR};
pub use txn::{Isolation, WriteTxn};
/// Failing the store's file operations on purpose, for fault tests.
#[cfg(feature = "fault-injection")]
pub use util::faults as fault_injection;
pub use util::huge::on_huge_pages;
pub use value::{DateTime, DecodeError, InvalidValue, Value, MAX_DEPTH, MAX_VALUE_BYTES};
pub use version::Timestamp;
pub use wal::recover::LogLoss;
