//! Log segments kept after the store stops needing them, so that
//! `Graph::changes` can hand out commits older than the last flush.
//!
//! A segment the manifest no longer counts on (`Wal::retire`) is renamed
//! `changes-<number>-<max ts>.log` in the store's directory instead of
//! being deleted (its newest commit in the name, so pruning needs no
//! read). While the archived segments total more than the store's budget
//! (`Options::change_log_bytes`), the oldest is deleted and `changes.floor`
//! raised to its newest commit: changes after the floor are all on disk,
//! archived or in the live log; changes at or before it may be gone. No
//! floor file means nothing was ever dropped. Recovery never reads the
//! archive (its names are not log segments').

use crate::error::{Error, Result};
use crate::util::faults::{hit, FileOp};
use crate::util::files::io_error;
use std::path::{Path, PathBuf};

/// The floor file's name in a store's directory.
pub(crate) const FLOOR: &str = "changes.floor";

fn archived_name(number: u64, max_ts: u64) -> String {
    format!("changes-{number:08}-{max_ts}.log")
}

/// Whether `name` is a file of the archive (a segment or the floor).
pub(crate) fn is_archive_file(name: &str) -> bool {
    name == FLOOR || parse_name(name).is_some()
}

/// (number, newest commit) of an archived segment's name.
fn parse_name(name: &str) -> Option<(u64, u64)> {
    let rest = name.strip_prefix("changes-")?.strip_suffix(".log")?;
    let (n, ts) = rest.split_once('-')?;
    (n.len() == 8).then_some(())?;
    Some((n.parse().ok()?, ts.parse().ok()?))
}

/// The archived segments, oldest first: (number, newest commit, path).
pub(crate) fn list(store_dir: &Path) -> Result<Vec<(u64, u64, PathBuf)>> {
    let dir = store_dir;
    let entries = std::fs::read_dir(dir).map_err(|e| io_error(dir, "list directory", &e))?;
    let mut out = Vec::new();
    for e in entries {
        let e = e.map_err(|e| io_error(dir, "list directory", &e))?;
        if let Some((n, ts)) = parse_name(&e.file_name().to_string_lossy()) {
            out.push((n, ts, e.path()));
        }
    }
    out.sort();
    Ok(out)
}

/// The newest commit that may be missing from the archive and the live
/// log together (0: none is).
pub(crate) fn floor(store_dir: &Path) -> Result<u64> {
    let file = store_dir.join(FLOOR);
    match std::fs::read_to_string(&file) {
        Ok(text) => text.trim().parse().map_err(|_| Error::Corrupt {
            file: file.display().to_string(),
            offset: 0,
            what: format!("not a timestamp: {:?}", text.trim()),
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(0),
        Err(e) => Err(io_error(&file, "read", &e)),
    }
}

/// Raises the floor to `ts` (never lowers it).
pub(crate) fn raise_floor(store_dir: &Path, ts: u64) -> Result<()> {
    if ts <= floor(store_dir)? {
        return Ok(());
    }
    crate::util::files::write_atomically(&store_dir.join(FLOOR), |f| {
        use std::io::Write;
        f.write_all(ts.to_string().as_bytes())
            .map_err(|e| (e, "write"))
    })
}

/// Keeps retired segment `number` (at `seg`, newest commit `max_ts`) in
/// the archive, then deletes the oldest archived segments while they
/// total more than `budget` bytes (0: the segment is deleted at once),
/// raising the floor past each.
pub(crate) fn keep(
    store_dir: &Path,
    number: u64,
    seg: &Path,
    max_ts: u64,
    budget: u64,
) -> Result<()> {
    if budget == 0 {
        raise_floor(store_dir, max_ts)?;
        return remove(seg);
    }
    let to = store_dir.join(archived_name(number, max_ts));
    hit(&to, FileOp::Rename)
        .and_then(|()| std::fs::rename(seg, &to))
        .map_err(|e| io_error(&to, "rename", &e))?;
    prune(store_dir, budget)
}

/// Deletes the oldest archived segments while they total more than
/// `budget` bytes, raising the floor past each first (a crash between the
/// two leaves a floor that says less is kept than is: safe).
pub(crate) fn prune(store_dir: &Path, budget: u64) -> Result<()> {
    let mut kept = list(store_dir)?;
    let size = |p: &Path| std::fs::metadata(p).map_or(0, |m| m.len());
    let mut total: u64 = kept.iter().map(|(_, _, p)| size(p)).sum();
    kept.reverse();
    while total > budget {
        let Some((_, max_ts, p)) = kept.pop() else {
            break;
        };
        total -= size(&p);
        raise_floor(store_dir, max_ts)?;
        remove(&p)?;
    }
    Ok(())
}

fn remove(p: &Path) -> Result<()> {
    match hit(p, FileOp::Remove).and_then(|()| std::fs::remove_file(p)) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(io_error(p, "remove", &e)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_others_are_not_archived_segments() {
        assert_eq!(parse_name(&archived_name(12, 3456)), Some((12, 3456)));
        assert_eq!(parse_name("wal-00000012.log"), None);
        assert_eq!(parse_name(FLOOR), None);
        assert_eq!(parse_name("changes-12-3.log"), None);
        assert!(is_archive_file(FLOOR) && is_archive_file(&archived_name(1, 2)));
    }

    #[test]
    fn the_oldest_go_first_and_the_floor_follows_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let store = dir.path();
        for (n, ts) in [(1u64, 10u64), (2, 20), (3, 30)] {
            let seg = store.join(format!("seg{n}"));
            std::fs::write(&seg, vec![0u8; 100]).expect("write");
            keep(store, n, &seg, ts, 250).expect("keep");
        }
        // 300 bytes over a 250-byte budget: the oldest went.
        let left: Vec<u64> = list(store).expect("list").iter().map(|x| x.0).collect();
        assert_eq!(left, vec![2, 3]);
        assert_eq!(floor(store).expect("floor"), 10);
        prune(store, 0).expect("prune");
        assert!(list(store).expect("list").is_empty());
        assert_eq!(floor(store).expect("floor"), 30);
        // Budget 0: straight to the floor.
        let seg = store.join("seg4");
        std::fs::write(&seg, b"x").expect("write");
        keep(store, 4, &seg, 40, 0).expect("keep");
        assert!(!seg.exists());
        assert_eq!(floor(store).expect("floor"), 40);
        raise_floor(store, 5).expect("lower is ignored");
        assert_eq!(floor(store).expect("floor"), 40);
    }
}
