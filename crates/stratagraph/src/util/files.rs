//! Writing files so that a crash leaves either the old state or the new
//! one, and I/O errors that name the file: shared by every file format.

use super::faults::{hit, FileOp};
use crate::error::{Error, Result};
use std::fs::File;
use std::path::{Path, PathBuf};

/// An `Error::Io` naming `path` and the call that failed.
pub(crate) fn io_error(path: &Path, op: &'static str, e: &std::io::Error) -> Error {
    Error::Io {
        file: path.display().to_string(),
        op,
        kind: e.kind(),
        message: e.to_string(),
    }
}

fn tmp_path(path: &Path) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(".tmp");
    PathBuf::from(s)
}

/// Creates `path` with the content `fill` writes, so that after a crash at
/// any point `path` either does not exist or is complete: the bytes go to
/// `path.tmp`, which is synced, renamed over `path`, and the directory is
/// synced so the rename itself is durable. `fill` reports which operation
/// failed along with the error.
pub(crate) fn write_atomically(
    path: &Path,
    fill: impl FnOnce(&mut File) -> std::result::Result<(), (std::io::Error, &'static str)>,
) -> Result<()> {
    let tmp = tmp_path(path);
    let result = (|| {
        let mut f = hit(&tmp, FileOp::Create)
            .and_then(|()| File::create(&tmp))
            .map_err(|e| io_error(&tmp, "create", &e))?;
        hit(&tmp, FileOp::Write).map_err(|e| io_error(&tmp, "write", &e))?;
        fill(&mut f).map_err(|(e, op)| io_error(&tmp, op, &e))?;
        hit(&tmp, FileOp::Sync)
            .and_then(|()| f.sync_all())
            .map_err(|e| io_error(&tmp, "sync", &e))?;
        drop(f);
        hit(path, FileOp::Rename)
            .and_then(|()| std::fs::rename(&tmp, path))
            .map_err(|e| io_error(path, "rename", &e))?;
        sync_parent(path)
    })();
    if result.is_err() {
        // Best effort: a leftover temporary file is harmless (it is never
        // opened as a segment) but wastes space.
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(unix)]
fn sync_parent(path: &Path) -> Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    sync_dir(dir)
}

/// Syncs directory `dir`, making the creation, rename or removal of its
/// entries durable.
#[cfg(unix)]
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    let d = File::open(dir).map_err(|e| io_error(dir, "open directory", &e))?;
    hit(dir, FileOp::Sync)
        .and_then(|()| d.sync_all())
        .map_err(|e| io_error(dir, "sync directory", &e))
}

/// Directories cannot be opened for syncing on every platform; where they
/// cannot, the rename is as durable as the platform makes it.
#[cfg(not(unix))]
fn sync_parent(_path: &Path) -> Result<()> {
    Ok(())
}

/// See the Unix version; elsewhere directory entries are as durable as the
/// platform makes them.
#[cfg(not(unix))]
pub(crate) fn sync_dir(_dir: &Path) -> Result<()> {
    Ok(())
}
