//! Reading a store's log back after a restart.
//!
//! Recovery happens in two steps so that a damaged log changes nothing:
//! `read` checks every segment and rebuilds the id dictionary in memory,
//! and only then `replay` re-applies, in timestamp order, each commit newer
//! than the manifest's `last_ts` through the same code that applied it the
//! first time (a transaction's net writes, or the batch call as made). The
//! store was in the same state before each of them then, so each has the
//! same effect now.
//!
//! Timestamp order is the order that matters: commits that touch a common
//! vertex were appended in timestamp order (see `writer.rs`), and commits
//! that do not commute with nothing, so any interleaving of them is
//! equivalent.

use super::frame;
use super::record::Record;
use crate::error::{Error, Result};
use crate::graph::Shared;
use crate::ids::IdMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What the log holds beyond the manifest.
pub(crate) struct LogContents {
    /// Every segment read: path, newest commit, one past its newest id.
    pub segments: Vec<(PathBuf, u64, u32)>,
    /// The number the next segment gets.
    pub next_segment: u64,
    /// Commits newer than the manifest, with where they were read.
    pub commits: Vec<Logged>,
    /// Where a torn tail was cut off (file, offset, why), if anywhere.
    pub torn: Option<(String, u64, String)>,
    /// Records read (ids and commits, replayed or not).
    pub records: usize,
}

/// One commit record and its position, for error messages.
pub(crate) struct Logged {
    pub ts: u64,
    pub record: Record,
    pub file: String,
    pub offset: u64,
}

/// Reads every log segment in `dir`, adding the ids they assign to `ids`
/// (which holds the manifest's), and collects the commits after `last_ts`.
pub(crate) fn read(dir: &Path, ids: &IdMap, last_ts: u64) -> Result<LogContents> {
    let found = super::list_segments(dir)?;
    let mut out = LogContents {
        segments: Vec::with_capacity(found.len()),
        next_segment: found.last().map_or(1, |(n, _)| n + 1),
        commits: Vec::new(),
        torn: None,
        records: 0,
    };
    for (i, (n, path)) in found.iter().enumerate() {
        let file = path.display().to_string();
        let scan = frame::read_segment(path, i + 1 == found.len())?;
        if scan.segment != *n && scan.valid_end > 0 {
            return Err(Error::Corrupt {
                file,
                offset: 12,
                what: format!("the header says segment {}, the name {n}", scan.segment),
            });
        }
        let (mut max_ts, mut id_end) = (0, 0);
        for (offset, record) in scan.records {
            out.records += 1;
            if let Record::Ids { first, exts } = &record {
                learn_ids(ids, *first, exts, &file, offset)?;
                id_end = first + exts.len() as u32;
                continue;
            }
            let ts = record.ts().unwrap_or(0);
            max_ts = u64::max(max_ts, ts);
            if ts > last_ts {
                out.commits.push(Logged {
                    ts,
                    record,
                    file: file.clone(),
                    offset,
                });
            }
        }
        if let Some((offset, why)) = scan.torn {
            out.torn = Some((file, offset, why));
        }
        out.segments.push((path.clone(), max_ts, id_end));
    }
    out.commits.sort_by_key(|c| c.ts);
    for w in out.commits.windows(2) {
        let ts = w[1].ts;
        if w[0].ts == ts {
            return Err(Error::Corrupt {
                file: w[1].file.clone(),
                offset: w[1].offset,
                what: format!(
                    "commit {ts} is logged twice (also in {} at offset {})",
                    w[0].file, w[0].offset
                ),
            });
        }
    }
    Ok(out)
}

/// Checks a logged id assignment against the dictionary and adds it.
fn learn_ids(ids: &IdMap, first: u32, exts: &[u64], file: &str, offset: u64) -> Result<()> {
    for (k, &ext) in exts.iter().enumerate() {
        let id = first + k as u32;
        let known = ids.bound();
        let ok = if id < known {
            ids.external(id) == ext
        } else {
            id == known && ids.lookup(ext).is_none() && ids.intern(ext) == Some(id)
        };
        if !ok {
            return Err(Error::Corrupt {
                file: file.to_string(),
                offset,
                what: format!(
                    "assigns internal id {id} to vertex {ext}, which contradicts the \
                     {known} ids known before it"
                ),
            });
        }
    }
    Ok(())
}

/// Re-applies the logged commits to a freshly opened store (no other
/// handle exists yet and the log is not attached, so nothing is re-logged).
pub(crate) fn replay(shared: &Arc<Shared>, commits: Vec<Logged>) -> Result<()> {
    for c in commits {
        let ts = c.ts;
        shared.clock.resume_at(ts - 1);
        let applied = match c.record {
            Record::Txn {
                vertices, edges, ..
            } => crate::txn::replay(shared, &vertices, &edges),
            Record::InsertEdges { edges, .. } => crate::batch::insert_edges(shared, &edges),
            Record::DeleteEdges { edges, .. } => crate::batch::delete_edges(shared, &edges),
            Record::InsertVertices { vertices, .. } => {
                crate::batch::insert_vertices(shared, &vertices)
            }
            Record::Ids { .. } => continue,
        };
        match applied {
            Ok(got) if got == ts => {}
            Ok(got) => {
                return Err(Error::Corrupt {
                    file: c.file,
                    offset: c.offset,
                    what: format!("commit {ts} was re-applied as commit {got}"),
                })
            }
            Err(e) => {
                return Err(Error::Corrupt {
                    file: c.file,
                    offset: c.offset,
                    what: format!("commit {ts} does not apply to the recovered store: {e}"),
                })
            }
        }
    }
    Ok(())
}
