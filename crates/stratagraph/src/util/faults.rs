//! Injected file-operation failures, for tests of what the store does when
//! the disk fills up or fails (built with the `fault-injection` feature;
//! without it `hit` is an empty inline function).
//!
//! A test arms a directory with a plan: the first `after` matching file
//! operations under it succeed, then they fail with the plan's error, once
//! or from then on. Every file the store writes goes through a `hit` first:
//! creating a file, writing to it (also zero-filling and cutting it),
//! syncing it or a directory, renaming and removing. Reads are never
//! failed: the faults model a disk that refuses writes.

/// A kind of file operation `hit` is called for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileOp {
    /// Creating a file.
    Create,
    /// Writing bytes, zero-filling or changing a file's length.
    Write,
    /// `fsync`/`fdatasync` of a file or directory.
    Sync,
    /// Renaming a file over another.
    Rename,
    /// Removing a file.
    Remove,
}

/// Fails `op` on `path` if a plan armed for a directory above it says so.
#[cfg(not(feature = "fault-injection"))]
#[inline(always)]
pub(crate) fn hit(_path: &std::path::Path, _op: FileOp) -> std::io::Result<()> {
    Ok(())
}

#[cfg(feature = "fault-injection")]
pub(crate) use armed::hit;
#[cfg(feature = "fault-injection")]
pub use armed::{arm, disarm, FaultPlan};

#[cfg(feature = "fault-injection")]
mod armed {
    use super::FileOp;
    use parking_lot::Mutex;
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicBool, Ordering};

    /// When and how the file operations under one directory fail.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct FaultPlan {
        /// Matching operations that succeed before the first failure.
        pub after: u64,
        /// The `errno` they fail with (`libc::ENOSPC`, `libc::EIO`, ...).
        pub errno: i32,
        /// Whether every later operation fails too (a dead device) or only
        /// the one (a full disk that is cleared at once).
        pub persistent: bool,
        /// The operations that count and fail (empty: all).
        pub ops: Vec<FileOp>,
    }

    struct Armed {
        dir: PathBuf,
        plan: FaultPlan,
        seen: u64,
        fired: u64,
    }

    static ANY: AtomicBool = AtomicBool::new(false);
    static PLANS: Mutex<Vec<Armed>> = Mutex::new(Vec::new());

    /// Arms `dir` (replacing an earlier plan for it).
    pub fn arm(dir: &Path, plan: FaultPlan) {
        let mut plans = PLANS.lock();
        plans.retain(|a| a.dir != dir);
        plans.push(Armed {
            dir: dir.to_path_buf(),
            plan,
            seen: 0,
            fired: 0,
        });
        ANY.store(true, Ordering::Release);
    }

    /// Disarms `dir`; returns how many operations failed under it.
    pub fn disarm(dir: &Path) -> u64 {
        let mut plans = PLANS.lock();
        let fired = plans.iter().find(|a| a.dir == dir).map_or(0, |a| a.fired);
        plans.retain(|a| a.dir != dir);
        ANY.store(!plans.is_empty(), Ordering::Release);
        fired
    }

    pub(crate) fn hit(path: &Path, op: FileOp) -> std::io::Result<()> {
        if !ANY.load(Ordering::Acquire) {
            return Ok(());
        }
        let mut plans = PLANS.lock();
        let Some(a) = plans.iter_mut().find(|a| path.starts_with(&a.dir)) else {
            return Ok(());
        };
        if !a.plan.ops.is_empty() && !a.plan.ops.contains(&op) {
            return Ok(());
        }
        a.seen += 1;
        let fail = if a.plan.persistent {
            a.seen > a.plan.after
        } else {
            a.seen == a.plan.after + 1
        };
        if fail {
            a.fired += 1;
            return Err(std::io::Error::from_raw_os_error(a.plan.errno));
        }
        Ok(())
    }
}

#[cfg(all(test, feature = "fault-injection"))]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_plan_fails_the_operations_after_its_countdown_under_its_directory() {
        let dir = Path::new("/faults-test/a");
        arm(
            dir,
            FaultPlan {
                after: 2,
                errno: libc::ENOSPC,
                persistent: false,
                ops: vec![FileOp::Write],
            },
        );
        let f = dir.join("f");
        assert!(hit(&f, FileOp::Sync).is_ok()); // not counted
        assert!(hit(&f, FileOp::Write).is_ok());
        assert!(hit(Path::new("/faults-test/b/f"), FileOp::Write).is_ok());
        assert!(hit(&f, FileOp::Write).is_ok());
        let e = hit(&f, FileOp::Write).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOSPC));
        assert!(hit(&f, FileOp::Write).is_ok()); // once only
        assert_eq!(disarm(dir), 1);
        assert!(hit(&f, FileOp::Write).is_ok());
    }
}
