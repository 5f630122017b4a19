//! `check`: inspects a closed on-disk store without changing it, and lists
//! everything wrong with it (the engine's `open` stops at the first
//! problem; an operator wants all of them).

use crate::direction::Direction;
use crate::error::{Error, Result};
use crate::ids::IdMap;
use crate::lsm::layers::FlushedRun;
use crate::manifest::{Manifest, RunFiles, VertexIds};
use crate::open::{
    arrange_layers, holds_no_store_data, intern_vertices, open_level_file, read_props,
};
use crate::props::file as props_file;
use crate::store::maintain;
use crate::util::files::io_error;
use crate::wal;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

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
    /// Level files: those the manifest names, every block's checksum
    /// checked; without a readable manifest, the run files found on disk,
    /// unchecked (see `levels_verified`).
    pub level_files: usize,
    /// Their bytes.
    pub level_bytes: u64,
    /// Whether the level files were checked against a manifest and their
    /// checksums; false when no manifest could be read.
    pub levels_verified: bool,
    /// Vertices with a label or a property in the properties file, and
    /// the properties it holds (every value decoded and checked).
    pub property_vertices: u64,
    /// See `property_vertices`.
    pub properties: u64,
    /// Property edges in the properties file, and the properties they
    /// hold (every value decoded and checked).
    pub property_edges: u64,
    /// See `property_edges`.
    pub edge_properties: u64,
    /// Log segment files read.
    pub log_segments: usize,
    /// Log records read: all of them when `log_verified`; else the intact
    /// records found before the first damage, or (without a readable
    /// manifest) the intact records of every segment.
    pub log_records: usize,
    /// Whether every log record was read and checked against the manifest
    /// (false when the log is damaged or no manifest could be read).
    pub log_verified: bool,
    /// Logged commits newer than the level files: what opening replays.
    pub commits_to_replay: usize,
    /// A torn last record (`file`, `offset`, why): normal after a crash,
    /// dropped by the next open.
    pub torn_tail: Option<(String, u64, String)>,
    /// Files the store does not need, with why each is there: level files
    /// and log segments the manifest does not count on (which the next
    /// open removes), segments `repair` set aside (`.lost`, kept until the
    /// user removes them), and files that are not a store's (left alone).
    /// Not damage.
    pub orphans: Vec<(String, String)>,
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
    let _lock = crate::util::dir_lock::shared(dir)?;
    let mut report = CheckReport {
        has_manifest: false,
        vertices: 0,
        durable_ts: 0,
        level_files: 0,
        level_bytes: 0,
        levels_verified: false,
        property_vertices: 0,
        properties: 0,
        property_edges: 0,
        edge_properties: 0,
        log_segments: 0,
        log_records: 0,
        log_verified: false,
        commits_to_replay: 0,
        torn_tail: None,
        orphans: Vec::new(),
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
    let Some(m) = &manifest else {
        count_unverified(dir, &mut report)?;
        return Ok(report);
    };
    report.has_manifest = true;
    report.vertices = u64::from(m.vertices.len);
    report.durable_ts = m.last_ts;
    report.levels_verified = true;
    {
        let mut opened = Vec::new();
        for r in &m.runs {
            let mut open = |side: Direction| match open_level_file(
                &RunFiles::path(dir, r.id, side),
                m.vertices.len as usize,
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
    let mut file_keys: Vec<std::sync::Arc<str>> = Vec::new();
    match read_props(dir, m) {
        Ok(Some(contents)) => {
            file_keys = contents.keys.clone();
            let vertices = &contents.vertices;
            report.property_vertices = vertices.len() as u64;
            report.properties = vertices.iter().map(|(_, _, p)| p.len() as u64).sum();
            report.property_edges = contents.edges.len() as u64;
            report.edge_properties = contents.edges.iter().map(|e| e.4.len() as u64).sum();
        }
        Ok(None) => {}
        Err(e) => report.problems.push(e),
    }
    // The log is checked against the ids the manifest lists (those read
    // before any damage). Reading the log adds its own ids to the map, so
    // the salvage read below takes a fresh one; the first read's is the
    // one built here, with its damage reported once.
    let listed = IdMap::new();
    if let Err(e) = intern_vertices(dir, m, &listed) {
        report.problems.push(e);
    }
    let mut listed = Some(listed);
    let mut ids = || {
        listed.take().unwrap_or_else(|| {
            let ids = IdMap::new();
            let _ = intern_vertices(dir, m, &ids);
            ids
        })
    };
    let keys = || {
        let keys = crate::keys::Keys::new(m.string_ids);
        // A file whose keys contradict each other was reported above.
        let _ = keys.learn(0, &file_keys);
        keys
    };
    let expected = m.log.as_deref();
    let mut garbage = Vec::new();
    match wal::recover::read(dir, &ids(), &keys(), m.last_ts, expected, false) {
        Ok(log) => {
            report.log_segments = log.segments.len();
            report.log_records = log.records;
            report.log_verified = true;
            report.commits_to_replay = log.commits.len();
            report.torn_tail = log.torn;
            garbage = log.garbage;
        }
        Err(e) => {
            report.log_segments = wal::list_segments(dir).map_or(0, |s| s.len());
            report.problems.push(e);
            // Read again as `repair` would, to count what is intact.
            if let Ok(log) = wal::recover::read(dir, &ids(), &keys(), m.last_ts, expected, true) {
                report.log_records = log.records;
                garbage = log.garbage;
            }
        }
    }
    let mut keep = m.run_paths(dir);
    keep.extend(m.props.map(|p| props_file::path(dir, p.id)));
    let vertex_file_named = matches!(m.vertices.ids, VertexIds::File { bytes } if bytes > 0);
    list_orphans(dir, &keep, vertex_file_named, &garbage, &mut report)?;
    Ok(report)
}

/// Without a readable manifest nothing can be checked against it: counts
/// the run files on disk and the intact records of every log segment, so
/// the report does not say "0" where there is data.
fn count_unverified(dir: &Path, report: &mut CheckReport) -> Result<()> {
    for (name, path) in entries(dir)? {
        if name.starts_with("run-") && name.ends_with(".seg") {
            report.level_files += 1;
            report.level_bytes += std::fs::metadata(&path).map_or(0, |m| m.len());
        }
    }
    let segments = wal::list_segments(dir)?;
    report.log_segments = segments.len();
    for (_, path) in segments {
        // Read as a newest segment: the count stops at damage instead of
        // failing.
        if let Ok(scan) = wal::frame::read_segment(&path, true) {
            report.log_records += scan.records.len();
        }
    }
    Ok(())
}

/// Lists in `report.orphans` every file of `dir` the store does not need:
/// run files not in `keep`, a vertex file the manifest does not name (a
/// store's first one, whose manifest was never written), the log segments
/// in `garbage`, `.lost` files and foreign files.
fn list_orphans(
    dir: &Path,
    keep: &HashSet<PathBuf>,
    vertex_file_named: bool,
    garbage: &[PathBuf],
    report: &mut CheckReport,
) -> Result<()> {
    for (name, path) in entries(dir)? {
        let why = if name == crate::manifest::FILE
            || name == "LOCK"
            || crate::wal::archive::is_archive_file(&name)
            || name == crate::store::checkpoint::CHECKPOINTS_DIR
        {
            continue;
        } else if name == crate::vertex_file::FILE {
            if vertex_file_named {
                continue;
            }
            "not named by the MANIFEST (a vertex file from a manifest write that did not \
             finish); the next manifest write replaces it"
        } else if maintain::is_run_or_temporary(&name) {
            if keep.contains(&path) {
                continue;
            }
            "not named by the MANIFEST (left by a flush, compaction or MANIFEST write \
             that did not finish); the next open removes it"
        } else if wal::segment_number(&name).is_some() {
            if !garbage.contains(&path) {
                continue;
            }
            "a log segment older than those the MANIFEST counts on; the next open removes it"
        } else if name.ends_with(".lost") {
            "set aside by `stratagraph repair`: nothing reads it; remove it once it is \
             not needed"
        } else {
            "not a stratagraph file; the store leaves it alone"
        };
        report.orphans.push((name, why.to_string()));
    }
    Ok(())
}

/// The entries of `dir` (name, path), sorted by name.
fn entries(dir: &Path) -> Result<Vec<(String, PathBuf)>> {
    let list = std::fs::read_dir(dir).map_err(|e| io_error(dir, "list directory", &e))?;
    let mut out = Vec::new();
    for e in list {
        let e = e.map_err(|e| io_error(dir, "list directory", &e))?;
        out.push((e.file_name().to_string_lossy().into_owned(), e.path()));
    }
    out.sort();
    Ok(out)
}
