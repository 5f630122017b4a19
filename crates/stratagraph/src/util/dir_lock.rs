//! The lock that keeps a store directory to one writer, or to readers
//! only: `flock` on its `LOCK` file, exclusive for a writer, shared for a
//! read-only open or `check`, released when the file is closed (also by a
//! crash).
//!
//! An `flock` belongs to the open file, not to the process, and a child
//! process holds a copy of every open file from its fork until its exec
//! closes them. So while one thread of a process starts a program
//! (`std::process::Command`), a store another thread of it has just closed
//! still reads as locked for that moment. That is not another holder, and
//! refusing the next open with `StoreLocked` would be wrong: a lock this
//! process took (the kernel's `/proc/locks` names the process that took
//! it) on a directory it no longer has open is waited for, up to
//! `LEFT_IN_CHILD_WAIT`. A store this process still has open, or another
//! process's lock, is refused at once.

use crate::error::{Error, Result};
use crate::util::files::io_error;
use parking_lot::Mutex;
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, Instant};

/// How long a lock this process took but no longer holds is waited for:
/// far longer than a fork takes to reach its exec, even on a loaded
/// machine.
const LEFT_IN_CHILD_WAIT: Duration = Duration::from_secs(2);

/// One lock this process holds: its `LOCK` file (device, inode) and
/// whether it is exclusive.
type Held = ((u64, u64), bool);

/// Every lock this process holds, one entry a `DirLock`.
static HELD: Mutex<Vec<Held>> = Mutex::new(Vec::new());

/// A held lock on a store directory; dropping it releases the lock.
#[derive(Debug)]
pub(crate) struct DirLock {
    // Only held: closed after `drop` below has taken the lock out of
    // `HELD`, so for a moment it is held but not listed, and an open then
    // waits for it rather than refusing.
    _file: File,
    held: Held,
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let mut held = HELD.lock();
        if let Some(i) = held.iter().position(|&h| h == self.held) {
            held.swap_remove(i);
        }
    }
}

/// Locks store directory `dir` exclusively, creating its `LOCK` file if
/// need be: `StoreLocked` if a handle of this or another process has it
/// open.
pub(crate) fn exclusive(dir: &Path) -> Result<DirLock> {
    let path = dir.join("LOCK");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| io_error(&path, "open", &e))?;
    take(dir, &path, file, true)
}

/// Locks store directory `dir` shared, for readers that change nothing:
/// any number of them may hold it at once, a writer may not. Needs only
/// read access to the `LOCK` file; a directory without one (never opened
/// by a writer, or copied without it) is not locked (`None`).
pub(crate) fn shared(dir: &Path) -> Result<Option<DirLock>> {
    if !dir.is_dir() {
        return Err(Error::Io {
            file: dir.display().to_string(),
            op: "open directory",
            kind: std::io::ErrorKind::NotFound,
            message: "no such directory".into(),
        });
    }
    let path = dir.join("LOCK");
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io_error(&path, "open", &e)),
    };
    take(dir, &path, file, false).map(Some)
}

/// Takes the lock on `file` (`dir`'s `LOCK` file at `path`), exclusive
/// or shared, waiting while it is held only by a copy of an open file of
/// this process (see the module's doc).
fn take(dir: &Path, path: &Path, file: File, exclusive: bool) -> Result<DirLock> {
    let meta = file.metadata().map_err(|e| io_error(path, "stat", &e))?;
    let key = (meta.dev(), meta.ino());
    let locked = || Error::StoreLocked {
        dir: dir.display().to_string(),
    };
    let start = Instant::now();
    // Whether `/proc/locks` last showed no lock of this process on the
    // file. The copy in a child goes when the child reaches its exec, which
    // may be between a failed try and that reading: so the try after such a
    // reading decides, and only its failure means another holder.
    let mut none_of_ours = false;
    loop {
        // Checked and listed under one lock, so that this process's own
        // handles are told apart from copies left in its children.
        let mut held = HELD.lock();
        if held.iter().any(|&(k, x)| k == key && (x || exclusive)) {
            return Err(locked());
        }
        let tried = if exclusive {
            file.try_lock()
        } else {
            file.try_lock_shared()
        };
        match tried {
            Ok(()) => {
                held.push((key, exclusive));
                return Ok(DirLock {
                    _file: file,
                    held: (key, exclusive),
                });
            }
            Err(std::fs::TryLockError::WouldBlock) => {}
            Err(std::fs::TryLockError::Error(e)) => return Err(io_error(path, "lock", &e)),
        }
        let listed = held.iter().any(|&(k, _)| k == key);
        drop(held);
        if listed || none_of_ours || start.elapsed() >= LEFT_IN_CHILD_WAIT {
            return Err(locked());
        }
        none_of_ours = !locked_by_this_process(key);
        if !none_of_ours {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// Whether the kernel lists an `flock` on the file `key` (device, inode)
/// taken by this process. `false` where it cannot tell (no `/proc/locks`).
///
/// The kernel hands `/proc/locks` out in pieces, and a line can be missed
/// while other locks come and go between them (seen with tests taking
/// locks in parallel), so "no" takes `READINGS` readings.
fn locked_by_this_process(key: (u64, u64)) -> bool {
    const READINGS: usize = 3;
    (0..READINGS).any(|_| {
        std::fs::read_to_string("/proc/locks")
            .is_ok_and(|locks| lists_flock_by(&locks, std::process::id(), key))
    })
}

/// Whether `locks` (the text of `/proc/locks`) lists an `flock` taken by
/// process `pid` on the file `(device, inode)`. A line reads
/// `1: FLOCK  ADVISORY  WRITE 4242 fd:01:1234 0 EOF`, the device as
/// hexadecimal major and minor numbers; waiters' lines (`1: -> FLOCK ...`)
/// hold nothing and are passed over.
fn lists_flock_by(locks: &str, pid: u32, (dev, ino): (u64, u64)) -> bool {
    // Linux's dev_t: the minor number's low 8 bits, then the major's low
    // 12, then the minor's rest, then the major's rest.
    let major = ((dev >> 8) & 0xfff) | ((dev >> 32) & !0xfff);
    let minor = (dev & 0xff) | ((dev >> 12) & !0xff);
    let file = format!("{major:02x}:{minor:02x}:{ino}");
    let pid = pid.to_string();
    locks.lines().any(|line| {
        let mut words = line.split_whitespace().skip(1);
        words.next() == Some("FLOCK")
            && words.nth(2) == Some(pid.as_str())
            && words.next() == Some(file.as_str())
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic
mod tests {
    use super::*;

    #[test]
    fn proc_locks_lines_are_read_by_pid_device_and_inode() {
        // Device 253:1 (0xfd, 1), inode 1234.
        let dev = (0xfd << 8) | 1;
        let locks = "1: POSIX  ADVISORY  WRITE 4242 fd:01:1234 0 EOF\n\
                     2: FLOCK  ADVISORY  WRITE 4243 fd:01:1234 0 EOF\n\
                     3: FLOCK  ADVISORY  READ 4244 fd:01:99 0 EOF\n\
                     3: -> FLOCK  ADVISORY  WRITE 4245 fd:01:1234 0 EOF\n";
        assert!(lists_flock_by(locks, 4243, (dev, 1234)));
        assert!(!lists_flock_by(locks, 4242, (dev, 1234)), "a POSIX lock");
        assert!(!lists_flock_by(locks, 4244, (dev, 1234)), "another file");
        assert!(
            !lists_flock_by(locks, 4245, (dev, 1234)),
            "a waiter holds nothing"
        );
        assert!(
            !lists_flock_by(locks, 4243, ((0xfe << 8) | 1, 1234)),
            "another device"
        );
        // A device past the classic 8-bit numbers: major 259, minor 300.
        let big = ((259 & 0xfff) << 8) | (300 & 0xff) | ((300 & !0xff) << 12);
        let line = "7: FLOCK  ADVISORY  WRITE 9 103:12c:5 0 EOF";
        assert!(lists_flock_by(line, 9, (big, 5)));
    }

    #[test]
    fn this_process_s_own_lock_is_seen_in_proc_locks() {
        if !Path::new("/proc/locks").exists() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let file = File::create(dir.path().join("LOCK")).unwrap();
        let meta = file.metadata().unwrap();
        let key = (meta.dev(), meta.ino());
        assert!(!locked_by_this_process(key));
        file.try_lock().unwrap();
        assert!(locked_by_this_process(key));
        file.unlock().unwrap();
        assert!(!locked_by_this_process(key));
    }

    #[test]
    fn a_lock_this_process_left_unlisted_is_waited_for() {
        let dir = tempfile::tempdir().unwrap();
        let first = exclusive(dir.path()).unwrap();
        assert!(matches!(
            exclusive(dir.path()),
            Err(Error::StoreLocked { .. })
        ));
        assert!(matches!(shared(dir.path()), Err(Error::StoreLocked { .. })));
        // What a child between fork and exec holds: the lock, through a
        // copy of the open file, after this process let go of its handle.
        let copy = first._file.try_clone().unwrap();
        drop(first);
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(copy);
        });
        let second = exclusive(dir.path()).unwrap();
        release.join().unwrap();
        drop(second);
        let readers = (shared(dir.path()).unwrap(), shared(dir.path()).unwrap());
        assert!(readers.0.is_some() && readers.1.is_some(), "readers share");
        assert!(matches!(
            exclusive(dir.path()),
            Err(Error::StoreLocked { .. })
        ));
    }
    /// By force: while another thread starts programs, a store closed and
    /// reopened at once is never refused, whichever moment each child
    /// reaches its exec.
    #[test]
    fn reopening_while_another_thread_starts_programs_is_never_refused() {
        let dir = tempfile::tempdir().unwrap();
        let started = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let starter = {
            let started = started.clone();
            std::thread::spawn(move || {
                for _ in 0..300 {
                    let _ = std::process::Command::new("true").status();
                    started.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            })
        };
        let mut refused = 0;
        let mut i = 0;
        while started.load(std::sync::atomic::Ordering::Relaxed) < 300 {
            i += 1;
            let lock = if i % 2 == 0 {
                exclusive(dir.path()).map(Some)
            } else {
                shared(dir.path())
            };
            match lock {
                Ok(lock) => drop(lock),
                Err(Error::StoreLocked { .. }) => refused += 1,
                Err(e) => panic!("{e}"),
            }
        }
        starter.join().unwrap();
        assert_eq!(refused, 0, "opens refused for a child's copy of the lock");
    }
}
