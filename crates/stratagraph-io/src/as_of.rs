//! A store's state at an earlier timestamp, rebuilt from one of its
//! checkpoints and its change feed: what `stratagraph export --as-of`
//! and `Graph.export_parquet(as_of=...)` write out.
//!
//! The store keeps the newest state only (older versions are dropped
//! once no snapshot reads them). A checkpoint (`Graph::save_checkpoint`,
//! `stratagraph checkpoint`) is a store of its own at its timestamp, kept
//! in the store's `checkpoints/` directory; the change feed
//! (`Graph::changes`) holds every commit after a timestamp for as long as
//! the log archive keeps it (`Options::change_log_bytes`). The state at
//! `ts` is the newest checkpoint at or before `ts`, copied (its level
//! files hard-linked), with the commits after it up to `ts` applied, each
//! as one transaction. So a timestamp can be asked for if a checkpoint
//! precedes it and the log still reaches back to that checkpoint; either
//! failing is a clear error naming what is kept.

use crate::changes::{apply, change_table};
use crate::load::LoadError;
use crate::tables::Table;
use std::path::PathBuf;
use stratagraph::{Graph, Options, SyncPolicy, Timestamp};

/// Why a state could not be rebuilt.
#[derive(Debug, thiserror::Error)]
pub enum AsOfError {
    /// The timestamp is after the newest commit.
    #[error("timestamp {ts} is after the newest commit of the store ({newest})")]
    Future { ts: Timestamp, newest: Timestamp },
    /// No checkpoint of the store is at or before the timestamp.
    #[error(
        "no checkpoint of {store} at or before timestamp {ts} ({}); a state can be rebuilt from \
         a checkpoint at or before it (`stratagraph checkpoint STORE`) and the change feed after it",
        .oldest.map_or("it has none".to_string(), |o| format!("its oldest is at {o}"))
    )]
    NoCheckpoint {
        store: PathBuf,
        ts: Timestamp,
        oldest: Option<Timestamp>,
    },
    /// The store could not give what is needed: an in-memory store, the
    /// changes after the checkpoint no longer kept (`ChangesUnavailable`),
    /// a damaged or unreadable file.
    #[error(transparent)]
    Engine(#[from] stratagraph::Error),
    /// The copy refused a change (a bug, or a damaged feed).
    #[error("replaying the change feed onto the checkpoint: {0}")]
    Apply(#[from] LoadError),
}

/// A store rebuilt to an earlier state, in a directory of its own that is
/// removed when this is dropped.
pub struct Rebuilt {
    /// The rebuilt store; its snapshots hold the state asked for.
    pub graph: Graph,
    /// The timestamp whose state it holds (in the original store's
    /// numbering: the copy's own timestamps differ).
    pub ts: Timestamp,
    /// The checkpoint it started from.
    pub checkpoint: Timestamp,
    /// Commits replayed onto it.
    pub replayed: usize,
    dir: PathBuf,
}

impl Drop for Rebuilt {
    fn drop(&mut self) {
        let _ = self.graph.close();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Rebuilds `g`'s state at timestamp `ts` in a new store beside the
/// checkpoint it starts from (so the copy can hard-link its level files),
/// named `.as-of-*`, which checkpoint listings and `stratagraph check`
/// pass over, and removed when the result is dropped (or, if the process
/// is killed first, by the store's next open for writing).
///
/// # Errors
/// See [`AsOfError`]; nothing of `g` or its checkpoints changes either
/// way.
pub fn rebuild(g: &Graph, ts: Timestamp) -> Result<Rebuilt, AsOfError> {
    let Some(home) = g.path() else {
        return Err(stratagraph::Error::InMemory {
            op: "export as of a timestamp",
        }
        .into());
    };
    let snap = g.snapshot();
    if ts > snap.timestamp() {
        return Err(AsOfError::Future {
            ts,
            newest: snap.timestamp(),
        });
    }
    let kept = stratagraph::checkpoints(home)?;
    let Some((base, base_dir)) = kept.iter().rev().find(|(c, _)| *c <= ts).cloned() else {
        return Err(AsOfError::NoCheckpoint {
            store: home.to_owned(),
            ts,
            oldest: kept.first().map(|c| c.0),
        });
    };
    // Read before copying: a feed that no longer reaches back fails here.
    let changes = if base < ts {
        let mut c = g.changes(base)?.changes;
        c.retain(|c| c.ts <= ts);
        c
    } else {
        Vec::new()
    };
    let scratch = base_dir.parent().unwrap_or(home);
    let dir = scratch.join(format!(".as-of-{ts}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let rebuilt = (|| {
        stratagraph::copy_checkpoint(&base_dir, &dir)?;
        let opts = Options {
            directed: stratagraph::resolve_directed(&dir, None)?,
            string_ids: stratagraph::stored_string_ids(&dir)?.unwrap_or(false),
            sync: SyncPolicy::Never,
            ..Options::default()
        };
        let copy = Graph::open(&dir, opts)?;
        let commits = changes
            .iter()
            .map(|c| c.ts)
            .collect::<std::collections::BTreeSet<_>>();
        if !changes.is_empty() {
            let (schema, batches) = change_table(&snap, &changes);
            let table = Table {
                name: format!("changes of {} after {base}", home.display()),
                schema,
                batches,
            };
            if let Err(e) = apply(&copy, &table) {
                let _ = copy.close();
                return Err(e.into());
            }
        }
        Ok((copy, commits.len()))
    })();
    match rebuilt {
        Ok((graph, replayed)) => Ok(Rebuilt {
            graph,
            ts,
            checkpoint: base,
            replayed,
            dir,
        }),
        Err(e) => {
            let _ = std::fs::remove_dir_all(&dir);
            Err(e)
        }
    }
}
