//! # stratagraph
//!
//! An embedded dynamic graph store: streams of vertex and edge inserts and
//! deletes go in through snapshot-isolated transactions or atomic batches;
//! readers take consistent snapshots and run look-ups and whole-graph
//! analytics on them while writes continue.
//!
//! Where things live (see `DESIGN.md` in the shared folder for the why):
//! - write path: [`WriteTxn`] (`txn.rs`) and batches (`batch.rs`) apply to
//!   the MemGraph (`mem/`), stamped and published by the clock (`version.rs`);
//! - read path: [`Snapshot`] (`snapshot.rs`), its iterators (`scan.rs`)
//!   and the merged hub lists it keeps (`hub_lists.rs`);
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
mod check;
// Parts of the segment API (loading into memory, streaming writes) wait
// for levels.
#[allow(dead_code)]
mod csr;
mod edge_rules;
mod error;
mod graph;
mod ids;
mod lsm;
mod manifest;
mod mem;
mod open;
mod options;
mod page;
mod read;
mod store;
mod txn;
mod util;
mod version;
mod wal;

pub use check::{check, CheckReport};
pub use error::{BatchIndex, Error, Op, Result, VertexId};
pub use graph::{Graph, LevelStats, RunInfo, Stats};
pub use manifest::Totals;
pub use mem::MemoryUsage;
pub use open::{resolve_directed, stored_kind};
pub use options::{Options, SyncPolicy};
pub use read::{Neighbors, Snapshot, WeightedNeighbors};
pub use txn::WriteTxn;
pub use util::huge::on_huge_pages;
pub use version::Timestamp;
