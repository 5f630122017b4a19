//! Reading a store's log back after a restart: `read` checks every
//! segment against what the manifest recorded of the log, rebuilds the id
//! dictionary in memory and hands back the commits newer than the
//! manifest, in timestamp order; `cut_newest` then drops a torn tail.
//! Re-applying the commits is the opener's work (`crate::open`): the log
//! knows records, not the engine.
//!
//! A torn last record is what a crash leaves, and is dropped without a
//! word. Anything else missing is damage: a segment the manifest lists or
//! a gap in the numbering, a sealed segment shorter or longer than the
//! manifest recorded, a header the manifest knew was synced, a record that
//! fails its checks. Opening refuses damage (`Error::Corrupt` naming the
//! segment); salvage (`stratagraph repair --accept-loss`) keeps every
//! commit before the first damage and sets the rest aside, reporting it.

use super::frame;
use super::record::{ExtIds, Record};
use super::writer::{segment_path, Sealed};
use crate::error::{Error, Result};
use crate::ids::IdMap;
use crate::manifest::LogSegment;
use crate::util::faults::{hit, FileOp};
use std::path::{Path, PathBuf};

/// What the log holds beyond the manifest.
pub(crate) struct LogContents {
    /// Every segment read (and kept): the opened log starts after them.
    pub segments: Vec<Sealed>,
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
    /// Segments older than every one the manifest lists: `retire` would
    /// have removed them (a crash came first), so they hold nothing needed.
    pub garbage: Vec<PathBuf>,
    /// Salvage only: what was lost (`None`: nothing).
    pub loss: Option<LogLoss>,
}

/// What salvage could not keep of a damaged log.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct LogLoss {
    /// The first damage, naming the segment and where (the `Corrupt` error
    /// opening reports).
    pub damage: String,
    /// Segment files from the damaged one on, which are set aside (kept
    /// beside the store as `<name>.lost`).
    pub set_aside: Vec<String>,
    /// Commits read after the damage and dropped, with their timestamps
    /// (oldest, newest): later commits may depend on what was lost.
    pub dropped_commits: usize,
    /// The oldest and newest timestamp among them.
    pub dropped_ts: Option<(u64, u64)>,
    /// The newest timestamp kept (the store resumes after it).
    pub kept_through_ts: u64,
}

/// One commit record and its position, for error messages.
pub(crate) struct Logged {
    pub ts: u64,
    pub record: Record,
    pub file: String,
    pub offset: u64,
}

/// The first damage found in the log: the segment it is in and the error
/// that describes it (naming the file and offset).
struct Damage {
    segment: u64,
    error: Error,
}

/// Reads the log segments in `dir`, adding the ids they assign to `ids`
/// (which holds the manifest's), and collects the commits after `last_ts`.
/// `expected` is what the manifest recorded of the log (`None`: a manifest
/// from before it recorded it, or none). With `salvage`, damage ends the
/// log instead of failing (see `LogContents::loss`).
pub(crate) fn read(
    dir: &Path,
    ids: &IdMap,
    keys: &crate::keys::Keys,
    last_ts: u64,
    expected: Option<&[LogSegment]>,
    salvage: bool,
) -> Result<LogContents> {
    let mut found = super::list_segments(dir)?;
    let mut garbage = Vec::new();
    if let Some(first) = expected.and_then(|e| e.first()) {
        garbage = found
            .iter()
            .filter(|(n, _)| *n < first.number)
            .map(|(_, p)| p.clone())
            .collect();
        found.retain(|(n, _)| *n >= first.number);
    }
    let mut out = LogContents {
        segments: Vec::with_capacity(found.len()),
        next_segment: found.last().map_or(1, |(n, _)| n + 1),
        commits: Vec::new(),
        torn: None,
        newest: None,
        records: 0,
        garbage,
        loss: None,
    };
    if let Some(e) = expected.and_then(|e| e.last()) {
        out.next_segment = out.next_segment.max(e.number + 1);
    }
    let mut damage = missing_segment(dir, &found, expected);
    let mut read_to = found.len();
    for (i, (n, path)) in found.iter().enumerate() {
        if damage.as_ref().is_some_and(|d| d.segment <= *n) {
            read_to = i;
            break;
        }
        let file = path.display().to_string();
        let listed = expected.and_then(|e| e.iter().find(|s| s.number == *n));
        let newest = i + 1 == found.len();
        let (scan, problem) = scan_segment(path, *n, newest, listed)?;
        let (mut max_ts, mut id_end) = (0, 0);
        let mut stop = problem;
        for (offset, record) in scan.records {
            out.records += 1;
            if let Record::Ids { first, exts } = &record {
                if let Err(e) = learn_ids(ids, *first, exts, &file, offset) {
                    stop = Some(Damage {
                        segment: *n,
                        error: e,
                    });
                    break;
                }
                // `decode` kept `first + len` inside the id space.
                id_end = first + exts.len() as u32;
                continue;
            }
            if let Record::Keys { first, keys: new } = &record {
                if let Err(what) = keys.learn(*first, new) {
                    stop = Some(Damage {
                        segment: *n,
                        error: Error::Corrupt {
                            file: file.clone(),
                            offset,
                            what,
                        },
                    });
                    break;
                }
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
            out.torn = Some((file.clone(), offset, why));
        }
        if stop.is_some() {
            damage = stop;
            read_to = i;
            break;
        }
        out.newest = Some((path.clone(), scan.valid_end));
        if newest && scan.valid_end < frame::FILE_HEADER as u64 {
            // Created by a rotation a crash cut short, before its header
            // was whole: `cut_newest` removes it, so the log must not
            // count it among the segments it later retires.
            continue;
        }
        out.segments.push(Sealed {
            number: *n,
            path: path.clone(),
            max_ts,
            id_end,
            len: scan.valid_end,
        });
    }
    out.commits.sort_by_key(|c| c.ts);
    if let Some(w) = out.commits.windows(2).find(|w| w[0].ts == w[1].ts) {
        return Err(Error::Corrupt {
            file: w[1].file.clone(),
            offset: w[1].offset,
            what: format!(
                "commit {} is logged twice (also in {} at offset {})",
                w[1].ts, w[0].file, w[0].offset
            ),
        });
    }
    let Some(damage) = damage else {
        return Ok(out);
    };
    if !salvage {
        return Err(damage.error);
    }
    // Everything from the damaged segment on is set aside; the commits read
    // from it before the damage are kept (they precede it in the log).
    let set_aside = &found[read_to..];
    let kept_through_ts = out.commits.last().map_or(last_ts, |c| c.ts);
    let mut dropped = Vec::new();
    for (i, (n, path)) in set_aside.iter().enumerate() {
        if *n == damage.segment {
            continue;
        }
        let newest = read_to + i + 1 == found.len();
        if let Ok(scan) = frame::read_segment(path, newest) {
            dropped.extend(scan.records.iter().filter_map(|(_, r)| r.ts()));
        }
    }
    dropped.sort_unstable();
    out.loss = Some(LogLoss {
        damage: damage.error.to_string(),
        set_aside: set_aside
            .iter()
            .map(|(_, p)| p.display().to_string())
            .collect(),
        dropped_commits: dropped.len(),
        dropped_ts: dropped.first().zip(dropped.last()).map(|(a, b)| (*a, *b)),
        kept_through_ts,
    });
    Ok(out)
}

/// The first segment missing from `found` (ascending): one the manifest
/// lists, or a gap in the numbering from the first segment needed on.
fn missing_segment(
    dir: &Path,
    found: &[(u64, PathBuf)],
    expected: Option<&[LogSegment]>,
) -> Option<Damage> {
    let present = |n: u64| found.binary_search_by_key(&n, |(k, _)| *k).is_ok();
    let listed = expected.unwrap_or(&[]);
    let first = listed
        .first()
        .map(|s| s.number)
        .or(found.first().map(|(n, _)| *n))?;
    let last = found
        .last()
        .map(|(n, _)| *n)
        .max(listed.last().map(|s| s.number))?;
    let gone = (first..=last).find(|&n| !present(n))?;
    let path = segment_path(dir, gone);
    let what = match listed.iter().find(|s| s.number == gone) {
        Some(s) => format!(
            "the log segment is missing, but the MANIFEST lists it as holding commits \
             it does not ({})",
            match s.sealed_len {
                Some(len) => format!("sealed at {len} bytes"),
                None => "the segment being appended to".into(),
            }
        ),
        None => format!(
            "the log segment is missing from the run of segments {first} to {last}: \
             the commits it held are lost"
        ),
    };
    Some(Damage {
        segment: gone,
        error: Error::Corrupt {
            file: path.display().to_string(),
            offset: 0,
            what,
        },
    })
}

/// Reads segment `n` and checks it against what the manifest recorded
/// (`listed`). Damage in the segment is returned with the whole records
/// before it (for salvage) rather than as an error.
fn scan_segment(
    path: &Path,
    n: u64,
    newest: bool,
    listed: Option<&LogSegment>,
) -> Result<(frame::Scan, Option<Damage>)> {
    let file = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| crate::util::files::io_error(path, "read", &e))?;
    let damage = |offset: u64, what: String| Damage {
        segment: n,
        error: Error::Corrupt {
            file: file.clone(),
            offset,
            what,
        },
    };
    // A segment the manifest saw sealed has exactly that length; one it saw
    // being appended to had its header synced.
    let recorded = match listed {
        Some(LogSegment {
            sealed_len: Some(len),
            ..
        }) if bytes.len() as u64 != *len => Some(damage(
            (bytes.len() as u64).min(*len),
            format!(
                "the log segment holds {} bytes, but the MANIFEST recorded it sealed at \
                 {len}: it was {}",
                bytes.len(),
                if (bytes.len() as u64) < *len {
                    "cut short"
                } else {
                    "written after it was sealed"
                }
            ),
        )),
        Some(LogSegment {
            sealed_len: None, ..
        }) if bytes.len() < frame::FILE_HEADER => Some(damage(
            0,
            format!(
                "the log segment holds {} bytes, less than its header, which was synced \
                 before the MANIFEST listed it",
                bytes.len()
            ),
        )),
        _ => None,
    };
    let scan = match frame::scan_bytes(&bytes, &file, newest) {
        Ok(scan) => scan,
        Err(Error::Corrupt { offset, what, .. }) => {
            // The whole records before the damage: a prefix read as if it
            // ended the log.
            let cut = (offset as usize).min(bytes.len());
            let prefix = frame::scan_bytes(&bytes[..cut], &file, true);
            let scan = prefix.unwrap_or_else(|_| scan_empty(n));
            return Ok((scan, Some(recorded.unwrap_or(damage(offset, what)))));
        }
        Err(e) => return Err(e),
    };
    if scan.segment != n && scan.valid_end > 0 {
        return Ok((
            scan_empty(n),
            Some(damage(
                12,
                format!("the header says segment {}, the name {n}", scan.segment),
            )),
        ));
    }
    Ok((scan, recorded))
}

/// A scan of segment `n` that found no record.
fn scan_empty(n: u64) -> frame::Scan {
    frame::Scan {
        segment: n,
        records: Vec::new(),
        valid_end: 0,
        torn: None,
    }
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
        hit(path, FileOp::Write)
            .and_then(|()| file.set_len(*end))
            .map_err(|e| fail("cut", &e))?;
        hit(path, FileOp::Sync)
            .and_then(|()| file.sync_all())
            .map_err(|e| fail("sync", &e))?;
    }
    Ok(())
}

/// Checks a logged id assignment against the dictionary and adds it.
fn learn_ids(ids: &IdMap, first: u32, exts: &ExtIds, file: &str, offset: u64) -> Result<()> {
    for (k, ext) in exts.iter().enumerate() {
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
        let log = read(
            dir.path(),
            &IdMap::new(),
            &crate::keys::Keys::new(false),
            0,
            None,
            false,
        )
        .unwrap();
        assert!(log.torn.is_some());
        assert_eq!(log.commits.len(), 5);
        cut_newest(&log).unwrap();
        assert_eq!(len_of(dir.path(), 2), Some(end));
        assert_eq!(len_of(dir.path(), 1), Some(older));
        // Now an older segment, it reads as whole.
        write_segment(dir.path(), 3, 6..6, &[0u8; 64]);
        let log = read(
            dir.path(),
            &IdMap::new(),
            &crate::keys::Keys::new(false),
            0,
            None,
            false,
        )
        .unwrap();
        assert_eq!(log.commits.len(), 5);
        assert!(log.torn.is_none());
    }

    #[test]
    fn a_newest_segment_without_a_whole_header_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        write_segment(dir.path(), 1, 1..3, &[]);
        let path = super::super::writer::segment_path(dir.path(), 2);
        std::fs::write(&path, &file_header(2)[..FILE_HEADER - 3]).unwrap();
        let log = read(
            dir.path(),
            &IdMap::new(),
            &crate::keys::Keys::new(false),
            0,
            None,
            false,
        )
        .unwrap();
        // Not a segment the store goes on with (it would retire, that is
        // move, a file that is gone).
        let numbers: Vec<u64> = log.segments.iter().map(|s| s.number).collect();
        assert_eq!(numbers, [1]);
        assert_eq!(log.next_segment, 3);
        cut_newest(&log).unwrap();
        assert_eq!(len_of(dir.path(), 2), None);
        assert!(len_of(dir.path(), 1).is_some());
    }
}

#[cfg(test)]
mod manifest_checks {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::wal::frame::test_segment;

    fn write(dir: &Path, number: u64, ts: std::ops::Range<u64>) -> u64 {
        let (b, _) = test_segment(number, ts);
        std::fs::write(segment_path(dir, number), &b).unwrap();
        b.len() as u64
    }

    fn sealed(number: u64, len: u64) -> LogSegment {
        LogSegment {
            number,
            sealed_len: Some(len),
        }
    }

    fn open_one(number: u64) -> LogSegment {
        LogSegment {
            number,
            sealed_len: None,
        }
    }

    fn corrupt_file(r: Result<LogContents>) -> String {
        match r {
            Err(Error::Corrupt { file, .. }) => file,
            Err(e) => panic!("{e}"),
            Ok(_) => panic!("accepted"),
        }
    }

    #[test]
    fn a_listed_segment_that_is_missing_or_cut_short_is_damage() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let len3 = write(d, 3, 1..4);
        write(d, 4, 4..6);
        let listed = [sealed(3, len3), open_one(4)];
        let ok = read(
            d,
            &IdMap::new(),
            &crate::keys::Keys::new(false),
            0,
            Some(&listed),
            false,
        )
        .unwrap();
        assert_eq!(ok.commits.len(), 5);
        // Sealed segment 3 cut at a record boundary.
        let (b, ends) = test_segment(3, 1..4);
        std::fs::write(segment_path(d, 3), &b[..ends[1]]).unwrap();
        let file = corrupt_file(read(
            d,
            &IdMap::new(),
            &crate::keys::Keys::new(false),
            0,
            Some(&listed),
            false,
        ));
        assert!(file.ends_with("wal-00000003.log"), "{file}");
        // Salvage keeps its two whole records and sets 3 and 4 aside.
        let got = read(
            d,
            &IdMap::new(),
            &crate::keys::Keys::new(false),
            0,
            Some(&listed),
            true,
        )
        .unwrap();
        assert_eq!(got.commits.iter().map(|c| c.ts).collect::<Vec<_>>(), [1, 2]);
        let loss = got.loss.unwrap();
        assert_eq!(loss.set_aside.len(), 2);
        assert_eq!((loss.dropped_commits, loss.dropped_ts), (2, Some((4, 5))));
        assert_eq!(loss.kept_through_ts, 2);
        // The newest, listed as being appended to, removed.
        write(d, 3, 1..4);
        std::fs::remove_file(segment_path(d, 4)).unwrap();
        let file = corrupt_file(read(
            d,
            &IdMap::new(),
            &crate::keys::Keys::new(false),
            0,
            Some(&listed),
            false,
        ));
        assert!(file.ends_with("wal-00000004.log"), "{file}");
    }

    #[test]
    fn a_gap_in_the_numbering_is_damage_and_older_segments_are_garbage() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        write(d, 1, 1..2); // older than the manifest's first: garbage
        write(d, 5, 2..4);
        write(d, 7, 4..5);
        let listed = [open_one(5)];
        let file = corrupt_file(read(
            d,
            &IdMap::new(),
            &crate::keys::Keys::new(false),
            0,
            Some(&listed),
            false,
        ));
        assert!(file.ends_with("wal-00000006.log"), "{file}");
        std::fs::remove_file(segment_path(d, 7)).unwrap();
        let got = read(
            d,
            &IdMap::new(),
            &crate::keys::Keys::new(false),
            0,
            Some(&listed),
            false,
        )
        .unwrap();
        assert_eq!(got.garbage, vec![segment_path(d, 1)]);
        assert_eq!(got.commits.iter().map(|c| c.ts).collect::<Vec<_>>(), [2, 3]);
    }
}
