//! A real small file system for tests that need one the process cannot
//! fake: a full disk, a read-only mount. Mounting needs root; where it
//! cannot be done the tests say so and fall back or skip. Shared by the
//! engine's tests and the command line's (`#[path]`).

#![allow(dead_code)] // each test file uses part of it
#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::Path;
use std::process::Command;

/// A tmpfs mounted on a temporary directory, unmounted when dropped.
pub struct Tmpfs {
    dir: tempfile::TempDir,
}

impl Tmpfs {
    /// Mounts a tmpfs of `size` (`mount`'s spelling: `1m`, `16m`), or
    /// `None` where mounting is not allowed.
    pub fn mount(size: &str) -> Option<Tmpfs> {
        let dir = tempfile::tempdir().unwrap();
        let mounted = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(dir.path())
            .status()
            .is_ok_and(|s| s.success());
        mounted.then_some(Tmpfs { dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Makes the mount read-only: every write, create or lock for writing
    /// under it fails with `EROFS`, for root too.
    pub fn remount_read_only(&self) {
        let ok = Command::new("mount")
            .args(["-o", "remount,ro"])
            .arg(self.path())
            .status()
            .unwrap();
        assert!(ok.success(), "remount read-only failed");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(self.dir.path()).status();
    }
}

/// Whether the process runs as root, for whom file modes do not stop
/// writes (`/proc/self` belongs to the process's effective user).
pub fn is_root() -> bool {
    std::os::unix::fs::MetadataExt::uid(&std::fs::metadata("/proc/self").unwrap()) == 0
}

/// A place whose store directories a test can make unwritable for this
/// process: a tmpfs remounted read-only (as root), or file modes (for other
/// users, whom modes bind).
pub enum Unwritable {
    Mount(Tmpfs),
    Modes(tempfile::TempDir),
}

impl Unwritable {
    /// `None` (after saying so) where neither works: root without mounts.
    pub fn new() -> Option<Unwritable> {
        if let Some(mnt) = Tmpfs::mount("16m") {
            return Some(Unwritable::Mount(mnt));
        }
        if is_root() {
            eprintln!("skipped: root ignores file modes, and no read-only mount could be made");
            return None;
        }
        Some(Unwritable::Modes(tempfile::tempdir().unwrap()))
    }

    pub fn path(&self) -> &Path {
        match self {
            Unwritable::Mount(m) => m.path(),
            Unwritable::Modes(d) => d.path(),
        }
    }

    /// Makes directory `dir` (inside `path()`) and its files unwritable.
    pub fn seal(&self, dir: &Path) {
        match self {
            Unwritable::Mount(m) => m.remount_read_only(),
            Unwritable::Modes(_) => set_modes(dir, 0o555),
        }
    }
}

impl Drop for Unwritable {
    fn drop(&mut self) {
        if let Unwritable::Modes(d) = self {
            // Writable again, so the temporary directory can be removed.
            for entry in std::fs::read_dir(d.path()).into_iter().flatten().flatten() {
                if entry.path().is_dir() {
                    set_modes(&entry.path(), 0o755);
                }
            }
        }
    }
}

/// Gives directory `dir` mode `mode` and its files the same without
/// execute bits.
fn set_modes(dir: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    let set = |path: &Path, mode| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    set(dir, mode | 0o100); // listable and enterable by its owner first
    for entry in std::fs::read_dir(dir).unwrap() {
        set(&entry.unwrap().path(), mode & 0o666);
    }
    set(dir, mode);
}
