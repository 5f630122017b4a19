//! A checkpoint: a copy of an open on-disk store, as of one commit, in a
//! directory of its own that opens as a store. Level and properties files
//! are immutable, so they are hard-linked where the file system allows
//! (copied where it does not); the MANIFEST, the vertex file and the log
//! segments it names are copied, since the store rewrites or appends to
//! them later.
//!
//! Writers wait while it runs: it takes the writers' gate, so every commit
//! before it is published and none after it has started, flushes
//! everything into a run (the manifest then names all the state), and
//! reads the manifest and links the files under the manifest lock, so no
//! flush or compaction replaces or deletes one meanwhile.

use super::maintain;
use super::Store;
use crate::error::{Error, Result};
use crate::manifest::{self, Manifest, VertexIds};
use crate::props::file as props_file;
use crate::util::files::{io_error, sync_dir};
use crate::version::Timestamp;
use crate::vertex_file;
use crate::wal;
use std::path::{Path, PathBuf};

/// The directory inside a store where `Graph::save_checkpoint` keeps
/// checkpoints, one subdirectory per checkpoint named by its timestamp
/// (20 digits).
pub const CHECKPOINTS_DIR: &str = "checkpoints";

/// The checkpoints kept in store directory `dir` (`CHECKPOINTS_DIR`), as
/// (timestamp, directory), oldest first; empty if there are none.
/// Entries whose names are not timestamps (a checkpoint being written)
/// are left out.
///
/// # Errors
/// `Io` if the directory exists but cannot be listed.
pub fn checkpoints(dir: impl AsRef<Path>) -> Result<Vec<(Timestamp, PathBuf)>> {
    let dir = dir.as_ref();
    let root = dir.join(CHECKPOINTS_DIR);
    let list = match std::fs::read_dir(&root) {
        Ok(list) => list,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io_error(&root, "list directory", &e)),
    };
    let mut out = Vec::new();
    for e in list {
        let e = e.map_err(|e| io_error(&root, "list directory", &e))?;
        let name = e.file_name().to_string_lossy().into_owned();
        if name.len() == 20 && name.bytes().all(|b| b.is_ascii_digit()) {
            if let Ok(ts) = name.parse() {
                out.push((ts, e.path()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Removes what a checkpoint or an as-of rebuild (`stratagraph_io`'s
/// `.as-of-*` stores) that was killed midway left in store `home`'s
/// checkpoints directory: every entry named `new-*` or `.as-of-*`. Kept
/// checkpoints are named by their timestamp alone, so they never match.
/// Only an open for writing calls this: it holds the store's lock
/// exclusively, so no other process can be writing one of them. Best
/// effort: what cannot be removed only wastes space.
pub(crate) fn remove_leftovers(home: &Path) {
    let root = home.join(CHECKPOINTS_DIR);
    let Ok(list) = std::fs::read_dir(&root) else {
        return;
    };
    for e in list.flatten() {
        let name = e.file_name();
        let name = name.to_string_lossy();
        if name.starts_with("new-") || name.starts_with(".as-of-") {
            let path = e.path();
            let _ = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
        }
    }
}

/// Writes a checkpoint into `CHECKPOINTS_DIR/<timestamp>` of the store.
pub(crate) fn save(store: &Store) -> Result<(Timestamp, PathBuf)> {
    let Some(home) = store.home.as_deref() else {
        return Err(Error::InMemory { op: "checkpoint" });
    };
    let root = home.join(CHECKPOINTS_DIR);
    std::fs::create_dir_all(&root).map_err(|e| io_error(&root, "create directory", &e))?;
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let new = root.join(format!("new-{}-{nanos}", std::process::id()));
    let ts = write(store, &new)?;
    let named = root.join(format!("{ts:020}"));
    let placed = match std::fs::rename(&new, &named) {
        Ok(()) => Ok(()),
        // One at this timestamp already: the same state, so it is kept.
        Err(_) if named.is_dir() => std::fs::remove_dir_all(&new),
        Err(e) => Err(e),
    };
    placed.map_err(|e| io_error(&named, "rename into place", &e))?;
    sync_dir(&root)?;
    Ok((ts, named))
}

/// Writes a checkpoint of `store` into `dest` (created; it must not exist
/// or be an empty directory) and returns the timestamp it holds everything
/// up to. Files go into a sibling directory first, renamed into place when
/// complete, so a failed checkpoint leaves nothing at `dest`.
pub(crate) fn write(store: &Store, dest: &Path) -> Result<Timestamp> {
    let Some(home) = store.home.as_deref() else {
        return Err(Error::InMemory { op: "checkpoint" });
    };
    store.check_writable("checkpoint")?;
    if dest.exists() && !dest.is_dir() {
        let e = std::io::Error::new(std::io::ErrorKind::AlreadyExists, "a file is in the way");
        return Err(io_error(dest, "write a checkpoint into", &e));
    }
    if let Ok(mut entries) = std::fs::read_dir(dest) {
        if entries.next().is_some() {
            let e = std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "the directory is not empty",
            );
            return Err(io_error(dest, "write a checkpoint into", &e));
        }
    }
    let tmp = sibling(dest);
    let _ = std::fs::remove_dir_all(&tmp);
    let result = (|| {
        let _gate = store.writers.write();
        store.check_writable("checkpoint")?;
        maintain::flush(store)?;
        if let Some(log) = store.log() {
            log.sync_all()?;
        }
        let _m = store.lsm.manifest.lock();
        let ts = store.clock.visible();
        let Some(m) = Manifest::read(home)? else {
            return Err(Error::NotAStore {
                dir: home.display().to_string(),
                what: "no MANIFEST to checkpoint".into(),
            });
        };
        std::fs::create_dir_all(&tmp).map_err(|e| io_error(&tmp, "create directory", &e))?;
        let mut immutable: Vec<PathBuf> = m.run_paths(home).into_iter().collect();
        immutable.extend(m.props.map(|p| props_file::path(home, p.id)));
        for path in &immutable {
            link_or_copy(path, &tmp)?;
        }
        let mut copied = vec![home.join(manifest::FILE)];
        if matches!(m.vertices.ids, VertexIds::File { bytes } if bytes > 0) {
            // Appended to, not rewritten: the copy holds at least what
            // the copied manifest names (appends wait for the manifest
            // lock held here).
            copied.push(home.join(vertex_file::FILE));
        }
        copied.extend(
            m.log
                .iter()
                .flatten()
                .map(|s| wal::segment_path(home, s.number)),
        );
        for path in &copied {
            copy(path, &tmp)?;
        }
        sync_dir(&tmp)?;
        Ok(ts)
    })();
    let ts = match result {
        Ok(ts) => ts,
        Err(e) => {
            let _ = std::fs::remove_dir_all(&tmp);
            return Err(e);
        }
    };
    let placed = (|| {
        if dest.exists() {
            std::fs::remove_dir(dest).map_err(|e| io_error(dest, "replace empty directory", &e))?;
        }
        std::fs::rename(&tmp, dest).map_err(|e| io_error(dest, "rename into place", &e))?;
        match dest.parent().filter(|p| !p.as_os_str().is_empty()) {
            Some(parent) => sync_dir(parent),
            None => Ok(()),
        }
    })();
    if placed.is_err() {
        let _ = std::fs::remove_dir_all(&tmp);
    }
    placed.map(|()| ts)
}

/// Copies the checkpoint (or any closed store directory) `from` into the
/// new directory `to`, as `checkpoint` does: level and properties files
/// hard-linked where possible, since they never change, every other file
/// copied; the `LOCK` file and subdirectories are left out. A copy to
/// open and write to while `from` stays as it is.
///
/// # Errors
/// `Io` if a directory cannot be listed or created or a file copied.
pub fn copy_checkpoint(from: impl AsRef<Path>, to: impl AsRef<Path>) -> Result<()> {
    let (from, to) = (from.as_ref(), to.as_ref());
    std::fs::create_dir_all(to).map_err(|e| io_error(to, "create directory", &e))?;
    let list = std::fs::read_dir(from).map_err(|e| io_error(from, "list directory", &e))?;
    for entry in list {
        let path = entry
            .map_err(|e| io_error(from, "list directory", &e))?
            .path();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        if name == "LOCK" || !path.is_file() {
            continue;
        }
        let level_file = name.starts_with("run-") && name.ends_with(".seg");
        if level_file || props_file::is_props_file(&name) {
            link_or_copy(&path, to)?;
        } else {
            copy(&path, to)?;
        }
    }
    sync_dir(to)
}

/// Where a checkpoint into `dest` is assembled.
fn sibling(dest: &Path) -> PathBuf {
    let mut s = dest.as_os_str().to_owned();
    s.push(".checkpoint-tmp");
    PathBuf::from(s)
}

fn target(path: &Path, dir: &Path) -> PathBuf {
    dir.join(path.file_name().unwrap_or_default())
}

/// Hard-links the immutable file `path` into `dir`, or copies it where a
/// link cannot be made (another file system).
fn link_or_copy(path: &Path, dir: &Path) -> Result<()> {
    if std::fs::hard_link(path, target(path, dir)).is_ok() {
        return Ok(());
    }
    copy(path, dir)
}

/// Copies `path` into `dir` and syncs the copy.
fn copy(path: &Path, dir: &Path) -> Result<()> {
    let to = target(path, dir);
    std::fs::copy(path, &to).map_err(|e| io_error(path, "copy", &e))?;
    std::fs::File::open(&to)
        .and_then(|f| f.sync_all())
        .map_err(|e| io_error(&to, "sync", &e))
}
