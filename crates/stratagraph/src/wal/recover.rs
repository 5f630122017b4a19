//! Reading a store's log back after a restart: `read` checks every
//! segment, rebuilds the id dictionary in memory and hands back the
//! commits newer than the manifest, in timestamp order; `cut_newest` then
//! drops a torn tail. Re-applying the commits is the opener's work
//! (`crate::open`): the log knows records, not the engine.

use super::frame;
use super::record::Record;
use crate::error::{Error, Result};
use crate::ids::IdMap;
use std::path::{Path, PathBuf};

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
    /// The newest segment and the end of its last whole record.
    pub newest: Option<(PathBuf, u64)>,
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
        newest: None,
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
        out.newest = Some((path.clone(), scan.valid_end));
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

/// Cuts the newest segment read by `read` after its last whole record
/// (dropping a torn record and the zeros written ahead), or removes it if
/// not even its header is whole. Called once recovery has succeeded and
/// before the next segment starts, because only the newest segment may end
/// in zeros or a torn record.
pub(crate) fn cut_newest(log: &LogContents) -> Result<()> {
    let Some((path, end)) = &log.newest else {
        return Ok(());
    };
    let fail = |op, e: &std::io::Error| crate::util::files::io_error(path, op, e);
    if *end < frame::FILE_HEADER as u64 {
        return match std::fs::remove_file(path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
            Err(e) => Err(fail("remove", &e)),
        };
    }
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| fail("open", &e))?;
    let len = file.metadata().map_err(|e| fail("stat", &e))?.len();
    if len != *end {
        file.set_len(*end).map_err(|e| fail("cut", &e))?;
        file.sync_all().map_err(|e| fail("sync", &e))?;
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::wal::frame::{file_header, test_segment, FILE_HEADER};

    /// Writes segment `number` with vertex-insert records at timestamps
    /// `ts`, followed by `tail`; returns the end of its records.
    fn write_segment(dir: &Path, number: u64, ts: std::ops::Range<u64>, tail: &[u8]) -> u64 {
        let (mut b, _) = test_segment(number, ts);
        let end = b.len() as u64;
        b.extend_from_slice(tail);
        std::fs::write(super::super::writer::segment_path(dir, number), b).unwrap();
        end
    }

    fn len_of(dir: &Path, number: u64) -> Option<u64> {
        std::fs::metadata(super::super::writer::segment_path(dir, number))
            .ok()
            .map(|m| m.len())
    }

    #[test]
    fn the_newest_segment_is_cut_to_its_last_whole_record() {
        let dir = tempfile::tempdir().unwrap();
        let older = write_segment(dir.path(), 1, 1..3, &[]);
        // Zero fill, then a record torn while written into it.
        let mut tail = vec![0u8; 4096];
        tail[..5].copy_from_slice(&[7, 0, 0, 0, 0]);
        let end = write_segment(dir.path(), 2, 3..6, &tail);
        let log = read(dir.path(), &IdMap::new(), 0).unwrap();
        assert!(log.torn.is_some());
        assert_eq!(log.commits.len(), 5);
        cut_newest(&log).unwrap();
        assert_eq!(len_of(dir.path(), 2), Some(end));
        assert_eq!(len_of(dir.path(), 1), Some(older));
        // Now an older segment, it reads as whole.
        write_segment(dir.path(), 3, 6..6, &[0u8; 64]);
        let log = read(dir.path(), &IdMap::new(), 0).unwrap();
        assert_eq!(log.commits.len(), 5);
        assert!(log.torn.is_none());
    }

    #[test]
    fn a_newest_segment_without_a_whole_header_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        write_segment(dir.path(), 1, 1..3, &[]);
        let path = super::super::writer::segment_path(dir.path(), 2);
        std::fs::write(&path, &file_header(2)[..FILE_HEADER - 3]).unwrap();
        let log = read(dir.path(), &IdMap::new(), 0).unwrap();
        cut_newest(&log).unwrap();
        assert_eq!(len_of(dir.path(), 2), None);
        assert!(len_of(dir.path(), 1).is_some());
    }
}
