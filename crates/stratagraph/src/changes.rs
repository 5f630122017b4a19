//! What changed in a store after a commit timestamp: `Graph::changes`.
//!
//! Read from the log, which holds every commit's net writes: the live
//! segments and the ones kept in the archive of changes (`wal/archive.rs`)
//! after a flush retired them. Changes after the archive's floor are all
//! there; older ones may be gone, and asking for them is
//! `Error::ChangesUnavailable` rather than a silently short list. An
//! in-memory store keeps no log.
//!
//! Each commit becomes one [`Change`] per write, in the order that
//! replays it: vertex existence (a vertex deleted and created again is a
//! delete then an add), weighted edges, vertex properties, then property
//! edges and their properties in the order made. Applying a commit's
//! changes in that order with the public write API gives the committed
//! state (`stratagraph_io::changes::apply` does).

use crate::error::{Error, Result, VertexId};
use crate::props::edges::EdgeId;
use crate::store::Store;
use crate::value::Value;
use crate::version::Timestamp;
use crate::wal::archive;
use crate::wal::frame;
use crate::wal::record::{EdgeWrite, Record, VertexChange};
use crate::wal::{list_segments, Wal};
use std::io::Read;
use std::path::{Path, PathBuf};

/// One write of one commit.
#[derive(Debug, Clone, PartialEq)]
pub struct Change {
    /// The commit's timestamp.
    pub ts: Timestamp,
    /// What it wrote.
    pub op: ChangeOp,
}

/// A write, as the public API would make it. Vertices are named by their
/// ids (in a store of string ids, `Snapshot::key_of` gives the key).
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ChangeOp {
    /// A vertex exists from this commit on: created, unless it already
    /// was (a transaction names every vertex its writes touch; applying
    /// this to a vertex already there changes nothing).
    AddVertex {
        /// The vertex.
        vertex: VertexId,
        /// Its label (`None`: created without one).
        label: Option<String>,
    },
    /// A vertex was deleted, with every edge at it (weighted and property
    /// edges) and its properties.
    DeleteVertex {
        /// The vertex.
        vertex: VertexId,
    },
    /// An edge of the weighted structure was inserted or re-weighted
    /// (creating missing ends, as the write did).
    PutEdge {
        /// Its source.
        src: VertexId,
        /// Its destination.
        dst: VertexId,
        /// Its weight.
        weight: f64,
    },
    /// An edge of the weighted structure was deleted.
    DeleteEdge {
        /// Its source.
        src: VertexId,
        /// Its destination.
        dst: VertexId,
    },
    /// A vertex property was set.
    SetProperty {
        /// The vertex.
        vertex: VertexId,
        /// The property's key.
        key: String,
        /// Its new value.
        value: Value,
    },
    /// A vertex property was removed.
    RemoveProperty {
        /// The vertex.
        vertex: VertexId,
        /// The property's key.
        key: String,
    },
    /// A property edge was created.
    AddEdge {
        /// Its id.
        id: EdgeId,
        /// Its source.
        src: VertexId,
        /// Its destination.
        dst: VertexId,
        /// Its label.
        label: String,
    },
    /// A property edge was removed.
    RemoveEdge {
        /// Its id.
        id: EdgeId,
    },
    /// A property of a property edge was set.
    SetEdgeProperty {
        /// The edge's id.
        id: EdgeId,
        /// The property's key.
        key: String,
        /// Its new value.
        value: Value,
    },
    /// A property of a property edge was removed.
    RemoveEdgeProperty {
        /// The edge's id.
        id: EdgeId,
        /// The property's key.
        key: String,
    },
    /// An index on (label, key) was created.
    CreateIndex {
        /// The vertex label.
        label: String,
        /// The property key.
        key: String,
    },
}

/// The changes after `since` up to and including `until` (a published
/// timestamp), in commit order.
pub(crate) fn read(store: &Store, since: Timestamp, until: Timestamp) -> Result<Vec<Change>> {
    let unavailable = |why: String| Error::ChangesUnavailable { since, why };
    let Some(dir) = store.home.as_deref() else {
        return Err(unavailable(
            "an in-memory store keeps no log of its commits".into(),
        ));
    };
    let floor = archive::floor(dir)?;
    if since < floor {
        return Err(unavailable(format!(
            "the log of commits up to {floor} is no longer kept (Options::change_log_bytes \
             bounds what a store keeps); ask for changes since {floor} or later"
        )));
    }
    let files = match store.log() {
        Some(wal) => open_still(wal, dir)?,
        None => open_files(dir)?,
    };
    let mut out: Vec<(Timestamp, usize, Change)> = Vec::new();
    for (path, newest, mut file) in files {
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)
            .map_err(|e| crate::util::files::io_error(&path, "read", &e))?;
        let scan = frame::scan_bytes(&bytes, &path.display().to_string(), newest)?;
        for (_, record) in scan.records {
            match record.ts() {
                Some(ts) if ts > since && ts <= until => {}
                _ => continue,
            }
            for op in ops(record) {
                let order = out.len();
                out.push((op.ts, order, op));
            }
        }
    }
    // Segments hold commits nearly in order; a commit's own writes keep
    // theirs.
    out.sort_by_key(|(ts, order, _)| (*ts, *order));
    Ok(out.into_iter().map(|(_, _, c)| c).collect())
}

type Opened = Vec<(PathBuf, bool, std::fs::File)>;

/// Opens every log file while the log holds its segments still, so a
/// retirement cannot move one between listing and opening (an open file
/// stays readable when moved or deleted).
fn open_still(wal: &Wal, dir: &Path) -> Result<Opened> {
    wal.with_segments_still(|| open_files(dir))
}

/// The archived segments, then the live ones (the last of which may have
/// a torn tail), oldest first, each opened.
fn open_files(dir: &Path) -> Result<Opened> {
    let live = list_segments(dir)?;
    let newest = live.last().map(|(n, _)| *n);
    let mut files = Vec::new();
    for (n, _, path) in archive::list(dir)? {
        if live.iter().all(|(m, _)| *m != n) {
            files.push((path, false));
        }
    }
    files.extend(live.into_iter().map(|(n, p)| (p, Some(n) == newest)));
    files
        .into_iter()
        .map(|(path, newest)| {
            let f = std::fs::File::open(&path)
                .map_err(|e| crate::util::files::io_error(&path, "open", &e))?;
            Ok((path, newest, f))
        })
        .collect()
}

/// A record's writes as changes.
fn ops(record: Record) -> Vec<Change> {
    let mut out = Vec::new();
    let Some(ts) = record.ts() else {
        return out;
    };
    let mut push = |op: ChangeOp| out.push(Change { ts, op });
    match record {
        Record::Txn {
            vertices,
            edges,
            labels,
            props,
            edge_writes,
            ..
        } => {
            let label_of =
                |v: VertexId| labels.iter().find(|(x, _)| *x == v).map(|(_, l)| l.clone());
            for (v, change) in vertices {
                if matches!(change, VertexChange::Deleted | VertexChange::Recreated) {
                    push(ChangeOp::DeleteVertex { vertex: v });
                }
                if matches!(change, VertexChange::Created | VertexChange::Recreated) {
                    push(ChangeOp::AddVertex {
                        vertex: v,
                        label: label_of(v),
                    });
                }
            }
            for (src, dst, w) in edges {
                push(match w {
                    Some(weight) => ChangeOp::PutEdge { src, dst, weight },
                    None => ChangeOp::DeleteEdge { src, dst },
                });
            }
            for (vertex, key, value) in props {
                push(match value {
                    Some(value) => ChangeOp::SetProperty { vertex, key, value },
                    None => ChangeOp::RemoveProperty { vertex, key },
                });
            }
            for w in edge_writes {
                push(match w {
                    EdgeWrite::Add {
                        id,
                        src,
                        dst,
                        label,
                    } => ChangeOp::AddEdge {
                        id,
                        src,
                        dst,
                        label,
                    },
                    EdgeWrite::Remove(id) => ChangeOp::RemoveEdge { id },
                    EdgeWrite::Property(id, key, Some(value)) => {
                        ChangeOp::SetEdgeProperty { id, key, value }
                    }
                    EdgeWrite::Property(id, key, None) => ChangeOp::RemoveEdgeProperty { id, key },
                });
            }
        }
        Record::InsertEdges { edges, .. } => {
            for (src, dst, weight) in edges {
                push(ChangeOp::PutEdge { src, dst, weight });
            }
        }
        Record::DeleteEdges { edges, .. } => {
            for (src, dst) in edges {
                push(ChangeOp::DeleteEdge { src, dst });
            }
        }
        Record::InsertVertices { vertices, .. } => {
            for vertex in vertices.iter() {
                push(ChangeOp::AddVertex {
                    vertex,
                    label: None,
                });
            }
        }
        Record::CreateIndex { label, key, .. } => push(ChangeOp::CreateIndex { label, key }),
        Record::Ids { .. } | Record::Keys { .. } => {}
    }
    out
}
