//! `check`: inspects a closed on-disk store without changing it, and lists
//! everything wrong with it (the engine's `open` stops at the first
//! problem; an operator wants all of them).

use crate::direction::Direction;
use crate::error::{Error, Result};
use crate::ids::IdMap;
use crate::lsm::layers::FlushedRun;
use crate::manifest::{Manifest, RunFiles};
use crate::open::{arrange_layers, holds_no_store_data, lock_dir_if_present, open_level_file};
use crate::wal;
use std::path::Path;

/// What `check` found in a store directory.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct CheckReport {
    /// Whether a manifest exists. Every store writes one when it is first
    /// opened, so a directory without one is no healthy store: `problems`
    /// says whether it holds a store's data (a lost MANIFEST), foreign
    /// files, or nothing.
    pub has_manifest: bool,
    /// Vertex ids the manifest lists.
    pub vertices: u64,
    /// The newest commit the level files hold.
    pub durable_ts: u64,
    /// Level files checked (every block's checksum).
    pub level_files: usize,
    /// Their bytes.
    pub level_bytes: u64,
    /// Log segment files read.
    pub log_segments: usize,
    /// Log records read.
    pub log_records: usize,
    /// Logged commits newer than the level files: what opening replays.
    pub commits_to_replay: usize,
    /// A torn last record (`file`, `offset`, why): normal after a crash,
    /// dropped by the next open.
    pub torn_tail: Option<(String, u64, String)>,
    /// Damage: each error names the file and offset. Empty means healthy.
    pub problems: Vec<Error>,
}

impl CheckReport {
    /// Whether the store opens without losing anything it acknowledged.
    pub fn is_healthy(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Checks the store in `dir`: the manifest, every checksum of every level
/// file it names, and every log record. Nothing is written.
///
/// # Errors
/// `StoreLocked` if the store is open (its files are changing), `Io` if
/// the directory cannot be read. Damage is not an error here: it is listed
/// in [`CheckReport::problems`].
pub fn check(dir: impl AsRef<Path>) -> Result<CheckReport> {
    let dir = dir.as_ref();
    let _lock = lock_dir_if_present(dir)?;
    let mut report = CheckReport {
        has_manifest: false,
        vertices: 0,
        durable_ts: 0,
        level_files: 0,
        level_bytes: 0,
        log_segments: 0,
        log_records: 0,
        commits_to_replay: 0,
        torn_tail: None,
        problems: Vec::new(),
    };
    let manifest = match Manifest::read(dir) {
        Ok(Some(m)) => Some(m),
        Ok(None) => {
            // No MANIFEST: a store that lost it (damage), files that are
            // not a store's, or nothing (no store). Only the lock file and
            // empty log segments a first open left before it died are a
            // store with nothing to lose, which the next open starts.
            let started =
                dir.join("LOCK").exists() || wal::list_segments(dir).is_ok_and(|s| !s.is_empty());
            match holds_no_store_data(dir) {
                Err(e) => report.problems.push(e),
                Ok(()) if !started => report.problems.push(Error::NotAStore {
                    dir: dir.display().to_string(),
                    what: "it holds no MANIFEST".into(),
                }),
                Ok(()) => {}
            }
            None
        }
        Err(e) => {
            report.problems.push(e);
            None
        }
    };
    let ids = IdMap::new();
    if let Some(m) = &manifest {
        report.has_manifest = true;
        report.vertices = m.vertices.len() as u64;
        report.durable_ts = m.last_ts;
        for &(ext, _) in &m.vertices {
            ids.intern(ext);
        }
        let mut opened = Vec::new();
        for r in &m.runs {
            let mut open = |side: Direction| match open_level_file(
                &RunFiles::path(dir, r.id, side),
                m.vertices.len(),
            ) {
                Ok(seg) => {
                    report.level_files += 1;
                    report.level_bytes += seg.byte_len();
                    Some(seg)
                }
                Err(e) => {
                    report.problems.push(e);
                    None
                }
            };
            let out = open(Direction::Out);
            let inn = r.has_in.then(|| open(Direction::In));
            let inn = match inn {
                None => Some(None),
                Some(Some(seg)) => Some(Some(seg)),
                Some(None) => None, // unreadable
            };
            if let (Some(out), Some(inn)) = (out, inn) {
                opened.push(FlushedRun {
                    id: r.id,
                    out,
                    inn,
                    cut: r.cut,
                });
            }
        }
        // With every file readable, their vertex ranges must also form the
        // levels the manifest says they do.
        if opened.len() == m.runs.len() {
            let path = dir.join(crate::manifest::FILE).display().to_string();
            if let Err(e) = arrange_layers(m, opened, &path) {
                report.problems.push(e);
            }
        }
    }
    let last_ts = manifest.as_ref().map_or(0, |m| m.last_ts);
    let expected = manifest.as_ref().and_then(|m| m.log.as_deref());
    match wal::recover::read(dir, &ids, last_ts, expected, false) {
        Ok(log) => {
            report.log_segments = log.segments.len();
            report.log_records = log.records;
            report.commits_to_replay = log.commits.len();
            report.torn_tail = log.torn;
        }
        Err(e) => {
            report.log_segments = wal::list_segments(dir).map_or(0, |s| s.len());
            report.problems.push(e);
        }
    }
    Ok(report)
}
