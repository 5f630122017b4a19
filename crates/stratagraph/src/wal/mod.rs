//! The write-ahead log: every commit and batch of an on-disk store is
//! appended here, and made durable, before it becomes visible; reopening
//! after a crash replays what the level files do not hold yet. It knows
//! records and files, nothing of the engine above it.
//!
//! - `record.rs`: what a record says and its payload bytes;
//! - `frame.rs`: segment files, record frames, torn-tail rules;
//! - `writer.rs`: group commit, segment rotation and deletion;
//! - `recover.rs`: reading the log back (its records, in order) after a
//!   restart; the opener (`crate::open`) re-applies them;
//! - `archive.rs`: segments kept after the store stops needing them, for
//!   `Graph::changes`, within a byte budget.
//!
//! The format is specified in `docs/FORMAT.md` §3.

pub(crate) mod archive;
pub(crate) mod frame;
pub(crate) mod record;
pub(crate) mod recover;
mod writer;

pub(crate) use writer::{list_segments, segment_number, segment_path, Wal};
