//! The log writer: appends records in commit order, makes them durable with
//! group commit, rotates segments at flushes and deletes the ones the level
//! files have made redundant.
//!
//! Committers append their record to a shared buffer while they still hold
//! their vertex locks, so two commits that touch one vertex are logged in
//! timestamp order; then they release the locks and wait for durability.
//! A waiter becomes the leader: it writes everything buffered so far in one
//! `write` and, under `SyncPolicy::Always`, one `fdatasync`, which makes
//! every record in it durable at once. Under `Always` one committer leads
//! at a time (`Wal::syncing`); the others wait until the running sync
//! ends, then return if it covered their record, else one of them leads
//! the next. A leader first waits briefly for records about to arrive, so
//! that with two committers each sync covers a record of each.
//!
//! Waiters poll for the end of the running sync only while no other thread
//! wants their core, and otherwise sleep on a condition variable
//! (`util::polling`). Two committers on an idle machine need the polling:
//! a woken sleeper misses the next sync. A server needs the sleeping: it
//! runs many more threads than cores, and with 8 clients on 2 cores
//! waiters that always poll cost each commit 33 yields and 20 context
//! switches (bench/NOTES.md).
//!
//! A commit takes its timestamp and appends its record under one lock
//! (`append_commit`), so the log holds commits in timestamp order. When a
//! write or sync fails, the commits whose records it held fail, and so
//! does every commit after them: the ones that succeeded are exactly the
//! timestamps before the first failure, which is what readers are then
//! held to (`version::Ticket::fail`). The failed records are cut off the
//! segment, so reopening does not bring back a commit that was told it
//! failed; if even the cut fails, those commits get
//! `Error::CommitUnresolved`.
//!
//! Internal id assignments are appended to the same buffer (under the same
//! lock that hands out the id), so the log lists ids in assignment order and
//! every id precedes the first record that uses it.
//!
//! The segment being appended to is zero-filled ahead of its records, up
//! to a megabyte at a time. A sync after a write that grows a file must also
//! commit the new file size to the file system's journal; a write into
//! space already written needs no such commit, so `fdatasync` costs about
//! two thirds as much (5.1k against 8.2k syncs per second measured on this
//! project's ext4 disk). The zeros are not damage: a segment's records end
//! where only zeros follow (see `frame.rs`), and a segment is cut to its
//! last record when the next one starts. The zeros are written before the
//! records that go into them, so a full disk fails a commit before any of
//! its bytes reach the file.

use super::frame::{self, file_header, FILE_HEADER};
use super::record;
use crate::error::VertexId;
use crate::error::{Error, Result};
use crate::ids::IdJournal;
use crate::options::SyncPolicy;
use crate::util::faults::{hit, FileOp};
use crate::util::files::{io_error, sync_dir};
use crate::util::polling::poll_while_idle;
use crate::version::{Clock, Ticket, Timestamp};
use parking_lot::{Condvar, Mutex};
use std::fs::File;
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

/// The file of log segment `n` in `dir`.
pub(crate) fn segment_path(dir: &Path, n: u64) -> PathBuf {
    dir.join(format!("wal-{n:08}.log"))
}

/// The segment number of a log file name (`None`: not a log segment).
pub(crate) fn segment_number(name: &str) -> Option<u64> {
    let digits = name.strip_prefix("wal-")?.strip_suffix(".log")?;
    (digits.len() == 8 && digits.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits.parse().ok())
        .flatten()
}

/// Log segments in `dir`, oldest first.
pub(crate) fn list_segments(dir: &Path) -> Result<Vec<(u64, PathBuf)>> {
    let entries = std::fs::read_dir(dir).map_err(|e| io_error(dir, "list directory", &e))?;
    let mut found = Vec::new();
    for e in entries {
        let e = e.map_err(|e| io_error(dir, "list directory", &e))?;
        if let Some(n) = segment_number(&e.file_name().to_string_lossy()) {
            found.push((n, e.path()));
        }
    }
    found.sort();
    Ok(found)
}

/// Appended but not yet written.
struct Pending {
    buf: Vec<u8>,
    /// Log position (bytes appended since the log was opened) of `buf`'s end.
    end: u64,
    /// Ids assigned but not yet framed: `ids_first..` go to `ids`.
    ids_first: u32,
    ids: Vec<VertexId>,
    /// Keys given ids but not yet framed: `keys_first..` go to `keys`.
    keys_first: u64,
    keys: Vec<String>,
    /// Newest commit timestamp appended since the last rotation.
    max_ts: u64,
}

impl Pending {
    /// Frames the pending keys and id assignments, each as one record.
    fn frame_ids(&mut self) {
        self.frame_keys();
        if self.ids.is_empty() {
            return;
        }
        let at = frame::open_record(&mut self.buf);
        record::encode_ids(&mut self.buf, self.ids_first, &self.ids);
        frame::seal_record(&mut self.buf, at);
        self.end += (self.buf.len() - at) as u64;
        self.ids_first += self.ids.len() as u32;
        self.ids.clear();
    }

    /// Frames the pending keys as one record.
    fn frame_keys(&mut self) {
        if self.keys.is_empty() {
            return;
        }
        let at = frame::open_record(&mut self.buf);
        record::encode_keys(&mut self.buf, self.keys_first, &self.keys);
        frame::seal_record(&mut self.buf, at);
        self.end += (self.buf.len() - at) as u64;
        self.keys_first += self.keys.len() as u64;
        self.keys.clear();
    }
}

/// A segment that is no longer appended to.
#[derive(Debug, Clone)]
pub(crate) struct Sealed {
    pub number: u64,
    pub path: PathBuf,
    /// Its newest commit (0: none).
    pub max_ts: u64,
    /// One past the newest internal id it assigns.
    pub id_end: u32,
    /// Its length, records only (it was cut to them and synced).
    pub len: u64,
}

/// The segment being appended to.
struct Current {
    /// Positioned at `len`; `None` once the log is closed.
    file: Option<File>,
    path: PathBuf,
    number: u64,
    /// Bytes in use: the file header and whole records.
    len: u64,
    /// The file's length: `len` and the zeros written ahead of it.
    filled: u64,
    /// Bytes known synced (a prefix of `len`).
    synced_len: u64,
    max_ts: u64,
    sealed: Vec<Sealed>,
}

/// Zeros a new segment starts with: small, so that opening a store (which
/// starts a segment) stays cheap.
const FILL_FIRST: u64 = 64 << 10;
/// The most zeros written ahead at a time. In between, a segment fills
/// ahead as many bytes as its records take, so a busy log pays for one
/// file-size commit per megabyte of records and an idle one writes little.
const FILL_MAX: u64 = 1 << 20;

/// How far ahead of `len` to fill once the zeros run low.
fn fill_ahead(len: u64) -> u64 {
    len.clamp(FILL_FIRST, FILL_MAX)
}

impl Current {
    /// The open segment file (an error once the log is closed; writers are
    /// refused before they get here, so this is only a safeguard).
    fn file(&mut self) -> std::io::Result<&mut File> {
        self.file
            .as_mut()
            .ok_or_else(|| std::io::Error::other("the log is closed"))
    }

    /// Writes `buf` at the end of the records. The zeros it goes into (and
    /// some ahead, when they run low) are written first: a full disk then
    /// fails before any byte of `buf` is in the file.
    fn append(&mut self, buf: &[u8]) -> std::io::Result<()> {
        let need = self.len + buf.len() as u64;
        let ahead = fill_ahead(need);
        if self.filled < need || self.filled - need < ahead / 4 {
            let (len, filled) = (self.len, self.filled);
            hit(&self.path, FileOp::Write)?;
            fill_zeros(self.file()?, len, filled.max(len), need + ahead)?;
            self.filled = need + ahead;
        }
        hit(&self.path, FileOp::Write)?;
        self.file()?.write_all(buf)?;
        self.len = need;
        Ok(())
    }

    /// After a failed write or sync: cuts the file back to `keep` bytes
    /// (the records commits were told are durable) and syncs it, so the
    /// failed records are not read back when the store is reopened.
    fn cut_back(&mut self, keep: u64) -> std::io::Result<()> {
        hit(&self.path, FileOp::Write)?;
        self.file()?.set_len(keep)?;
        hit(&self.path, FileOp::Sync)?;
        self.file()?.sync_all()?;
        self.filled = keep;
        Ok(())
    }

    /// Cuts the file to its records and syncs it with its length: done
    /// before the next segment starts, because only the newest segment may
    /// end in zeros.
    fn seal(&mut self) -> std::io::Result<()> {
        let len = self.len;
        hit(&self.path, FileOp::Write)?;
        self.file()?.set_len(len)?;
        self.filled = len;
        hit(&self.path, FileOp::Sync)?;
        self.file()?.sync_all()?;
        self.synced_len = len;
        Ok(())
    }
}

/// Writes zeros over `from..to` of `file`, whose records end at `end`
/// (`end <= from`), and puts its position back at `end`.
fn fill_zeros(file: &mut File, end: u64, from: u64, to: u64) -> std::io::Result<()> {
    static ZEROS: [u8; 64 << 10] = [0; 64 << 10];
    file.seek(SeekFrom::Start(from))?;
    let mut at = from;
    while at < to {
        let n = (to - at).min(ZEROS.len() as u64) as usize;
        file.write_all(&ZEROS[..n])?;
        at += n as u64;
    }
    file.seek(SeekFrom::Start(end))?;
    Ok(())
}

/// The write-ahead log of one on-disk store.
pub(crate) struct Wal {
    dir: PathBuf,
    policy: SyncPolicy,
    /// Bytes of retired segments the archive of changes keeps.
    change_log_bytes: u64,
    pending: Mutex<Pending>,
    current: Mutex<Current>,
    /// Log position written to the file (and so safe from a process crash).
    written: AtomicU64,
    /// Log position synced (safe from a power loss).
    synced: AtomicU64,
    /// Set by the first failed write or sync: the log may then miss records
    /// that commits were told are durable, so the store refuses writes.
    failed: Mutex<Option<Error>>,
    has_failed: AtomicBool,
    /// Log position up to which records of failed commits may still be in
    /// the file, because cutting them off failed too (0: none).
    unresolved: AtomicU64,
    /// Commits between `enter` and their `append`: a leader about to sync
    /// waits briefly for them, so one sync covers them too (see `wait`).
    inflight: AtomicUsize,
    /// Log position appended so far (`Pending::end`, readable without the
    /// lock).
    appended: AtomicU64,
    /// Commits are arriving from more than one thread (see `wait`): set
    /// by a sync that found records appended while it ran, cleared by a
    /// leader that waited for another record in vain.
    crowded: AtomicBool,
    /// Under `Always`: whether a committer is leading a sync. Read
    /// without a lock by polling waiters; set and cleared only under
    /// `leading`, and `led` is notified when it clears, so a waiter that
    /// found it set under the lock cannot miss the end of that sync.
    syncing: AtomicBool,
    leading: Mutex<()>,
    led: Condvar,
}

/// Leadership of one sync: clearing the flag and waking the waiters when
/// dropped, also if the leader unwinds.
struct Leading<'w>(&'w Wal);

impl Drop for Leading<'_> {
    fn drop(&mut self) {
        let _leading = self.0.leading.lock();
        self.0.syncing.store(false, Ordering::Release);
        self.0.led.notify_all();
    }
}

/// A commit that will append a record soon (see `Wal::enter`).
pub(crate) struct InFlight<'w>(&'w Wal);

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        self.0.inflight.fetch_sub(1, Ordering::AcqRel);
    }
}

/// How long a leader waits for in-flight commits before syncing without
/// them: a small fraction of one sync (about 200 us on the disks we
/// measured), so a lone committer loses little.
const GATHER: Duration = Duration::from_micros(60);

/// How long a committer polls for a running sync before it sleeps: a few
/// syncs' worth, so it sleeps only when the disk is slow.
const POLL: Duration = Duration::from_micros(500);

impl Wal {
    /// Starts a log in `dir` with a fresh segment `first`, after older
    /// segments `older` that recovery read. `next_id` is the first internal
    /// id not yet assigned.
    pub(crate) fn create(
        dir: &Path,
        policy: SyncPolicy,
        first: u64,
        older: Vec<Sealed>,
        next_id: u32,
        change_log_bytes: u64,
    ) -> Result<Arc<Wal>> {
        let (file, path, filled) = new_segment(dir, first)?;
        let wal = Arc::new(Wal {
            dir: dir.to_path_buf(),
            policy,
            change_log_bytes,
            pending: Mutex::new(Pending {
                buf: Vec::new(),
                end: 0,
                ids_first: next_id,
                keys_first: 0,
                keys: Vec::new(),
                ids: Vec::new(),
                max_ts: 0,
            }),
            current: Mutex::new(Current {
                file: Some(file),
                path,
                number: first,
                len: FILE_HEADER as u64,
                filled,
                synced_len: FILE_HEADER as u64,
                max_ts: 0,
                sealed: older,
            }),
            written: AtomicU64::new(0),
            synced: AtomicU64::new(0),
            failed: Mutex::new(None),
            has_failed: AtomicBool::new(false),
            unresolved: AtomicU64::new(0),
            inflight: AtomicUsize::new(0),
            appended: AtomicU64::new(0),
            crowded: AtomicBool::new(false),
            syncing: AtomicBool::new(false),
            leading: Mutex::new(()),
            led: Condvar::new(),
        });
        if let SyncPolicy::Interval(every) = policy {
            spawn_syncer(Arc::downgrade(&wal), every);
        }
        Ok(wal)
    }

    /// Refuses work once a write or sync has failed (`LogFailed`), or the
    /// log was closed (`Closed`).
    pub(crate) fn check(&self) -> Result<()> {
        if self.has_failed.load(Ordering::Acquire) {
            return match &*self.failed.lock() {
                Some(e @ Error::Closed { .. }) => Err(e.clone()),
                Some(e) => Err(Error::LogFailed {
                    cause: e.to_string(),
                }),
                None => Ok(()),
            };
        }
        Ok(())
    }

    /// Announces a commit that holds its locks and will append a record in
    /// a moment; dropping the guard (after `append`, or on abort) ends it.
    pub(crate) fn enter(&self) -> InFlight<'_> {
        self.inflight.fetch_add(1, Ordering::AcqRel);
        InFlight(self)
    }

    /// Whether a write or sync failed (the log refuses writes for good).
    pub(crate) fn has_failed(&self) -> bool {
        self.has_failed.load(Ordering::Acquire)
            && !matches!(&*self.failed.lock(), Some(Error::Closed { .. }))
    }

    /// Appends a commit record written by `encode` (a payload encoder from
    /// `record`) for commit `ts`; returns the log position to wait for.
    /// The caller keeps every other commit from taking a timestamp until
    /// this returns (a batch holds the writers' gate exclusively);
    /// transactions use `append_commit`.
    pub(crate) fn append(&self, ts: u64, encode: impl FnOnce(&mut Vec<u8>)) -> u64 {
        let mut p = self.pending.lock();
        self.append_locked(&mut p, ts, encode)
    }

    /// Takes the next commit timestamp from `clock` and, if `prepare`
    /// accepts it, appends the record `encode` writes for it, both under
    /// the log's lock: records are then in timestamp order, so the commits
    /// a failed write takes down are the newest ones (see the module
    /// notes). Returns the ticket (always: it must be published) and
    /// `prepare`'s value with the log position to wait for.
    pub(crate) fn append_commit<'c, T>(
        &self,
        clock: &'c Clock,
        prepare: impl FnOnce(Timestamp) -> Result<T>,
        encode: impl FnOnce(&mut Vec<u8>, Timestamp),
    ) -> (Ticket<'c>, Result<(T, u64)>) {
        let mut p = self.pending.lock();
        let ticket = clock.take();
        let ts = ticket.ts();
        let prepared = prepare(ts).map(|t| (t, self.append_locked(&mut p, ts, |b| encode(b, ts))));
        // The caller publishes the ticket once this lock is let go:
        // publishing waits for earlier commits, which may need it.
        drop(p);
        (ticket, prepared)
    }

    fn append_locked(&self, p: &mut Pending, ts: u64, encode: impl FnOnce(&mut Vec<u8>)) -> u64 {
        p.frame_ids();
        let start = p.buf.len();
        let at = frame::open_record(&mut p.buf);
        encode(&mut p.buf);
        frame::seal_record(&mut p.buf, at);
        p.end += (p.buf.len() - start) as u64;
        p.max_ts = p.max_ts.max(ts);
        self.appended.store(p.end, Ordering::Release);
        p.end
    }

    /// Returns once the log up to `pos` is durable as the sync policy
    /// defines it: synced for `Always`, handed to the operating system for
    /// `Interval` and `Never`. After an error the record at `pos` is not
    /// recovered by a reopen, unless the error is `CommitUnresolved`.
    pub(crate) fn wait(&self, pos: u64) -> Result<()> {
        self.wait_inner(pos).map_err(|e| {
            if pos <= self.unresolved.load(Ordering::Acquire) {
                Error::CommitUnresolved {
                    cause: e.to_string(),
                }
            } else {
                e
            }
        })
    }

    fn wait_inner(&self, pos: u64) -> Result<()> {
        let done = || match self.policy {
            SyncPolicy::Always => self.synced.load(Ordering::Acquire) >= pos,
            _ => self.written.load(Ordering::Acquire) >= pos,
        };
        if done() {
            return Ok(());
        }
        if self.policy != SyncPolicy::Always {
            let mut cur = self.current.lock();
            if done() {
                return Ok(());
            }
            self.check()?;
            return self.write_pending(&mut cur);
        }
        // A sync is running, maybe with this record. Poll for its end
        // while that costs no other thread its core (`util::polling`):
        // woken from a sleep, this thread's next commit would miss the next
        // leader's gathering (below).
        poll_while_idle(POLL, || !self.syncing.load(Ordering::Acquire));
        let mut leading = self.leading.lock();
        loop {
            if done() {
                return Ok(());
            }
            if !self.syncing.load(Ordering::Acquire) {
                break;
            }
            // A sync is running, maybe with this record: sleep until it
            // ends, then look again.
            self.led.wait(&mut leading);
        }
        self.syncing.store(true, Ordering::Release);
        drop(leading);
        let _leading = Leading(self);
        let mut cur = self.current.lock();
        if done() {
            return Ok(());
        }
        self.check()?;
        // Group commit: with two committers, each one's record arrives
        // while the other's sync runs, so a leader that synced at once
        // would sync one record per call, the two taking turns. So a
        // leader waits a few microseconds for commits already applying
        // and, while commits come from several threads, for one record
        // after its own (the thread that just returned from the last
        // sync is about to commit again): one sync then covers both.
        let until = Instant::now() + GATHER;
        let expect_more = self.crowded.load(Ordering::Acquire);
        loop {
            let applying = self.inflight.load(Ordering::Acquire) > 0;
            let awaited = expect_more && self.appended.load(Ordering::Acquire) <= pos;
            if !applying && !awaited {
                break;
            }
            if Instant::now() >= until {
                if awaited {
                    self.crowded.store(false, Ordering::Release);
                }
                break;
            }
            // Yield rather than spin: the records awaited come from
            // threads that may need this core.
            std::thread::yield_now();
        }
        self.write_pending(&mut cur)?;
        self.sync(&mut cur)
    }

    /// Writes everything pending to the current segment (caller holds it).
    fn write_pending(&self, cur: &mut Current) -> Result<()> {
        let (buf, end, max_ts) = {
            let mut p = self.pending.lock();
            p.frame_ids();
            let max_ts = std::mem::take(&mut p.max_ts);
            (std::mem::take(&mut p.buf), p.end, max_ts)
        };
        cur.max_ts = cur.max_ts.max(max_ts);
        if !buf.is_empty() {
            if let Err(e) = cur.append(&buf) {
                let err = io_error(&cur.path, "write", &e);
                let keep = self.acknowledged_len(cur);
                return Err(self.fail_and_cut(cur, err, keep, end));
            }
        }
        self.written.store(end, Ordering::Release);
        Ok(())
    }

    fn sync(&self, cur: &mut Current) -> Result<()> {
        let pos = self.written.load(Ordering::Acquire);
        if self.synced.load(Ordering::Acquire) >= pos {
            return Ok(());
        }
        let synced = hit(&cur.path, FileOp::Sync).and_then(|()| cur.file()?.sync_data());
        if let Err(e) = synced {
            let err = io_error(&cur.path, "sync", &e);
            let keep = self.acknowledged_len(cur);
            return Err(self.fail_and_cut(cur, err, keep, pos));
        }
        cur.synced_len = cur.len;
        self.synced.store(pos, Ordering::Release);
        if self.appended.load(Ordering::Acquire) > pos {
            self.crowded.store(true, Ordering::Release);
        }
        Ok(())
    }

    /// The length of the current segment that commits were told is
    /// durable: synced under `Always`, written under the other policies.
    fn acknowledged_len(&self, cur: &Current) -> u64 {
        match self.policy {
            SyncPolicy::Always => cur.synced_len,
            _ => cur.len,
        }
    }

    /// A write or sync of the records up to log position `end` failed with
    /// `err`: makes the log refuse every later write, then cuts the segment
    /// back to `keep` bytes so the failed records are not recovered. If the
    /// cut fails too, commits up to `end` are unresolved (see `wait`).
    fn fail_and_cut(&self, cur: &mut Current, err: Error, keep: u64, end: u64) -> Error {
        let err = self.fail(err);
        if let Err(e) = cur.cut_back(keep) {
            self.unresolved.fetch_max(end, Ordering::AcqRel);
            return Error::LogFailed {
                cause: format!(
                    "{err}; cutting {} back to {keep} bytes failed too ({e})",
                    cur.path.display()
                ),
            };
        }
        err
    }

    /// Makes the log refuse every later write with `e` and returns it: after
    /// a failed write of its own, or of a write made durable outside the
    /// log (a bulk load's manifest).
    pub(crate) fn fail(&self, e: Error) -> Error {
        self.failed.lock().get_or_insert(e.clone());
        self.has_failed.store(true, Ordering::Release);
        e
    }

    /// Writes and syncs everything appended so far (for `Interval`'s timer
    /// and for closing).
    pub(crate) fn sync_all(&self) -> Result<()> {
        let mut cur = self.current.lock();
        self.check()?;
        self.write_pending(&mut cur)?;
        self.sync(&mut cur)
    }

    /// Writes and syncs everything appended, then closes the segment file:
    /// the store is closing and its directory may be opened again at once,
    /// so no handle of this log may stay open. Every later write or sync
    /// is refused.
    /// A log that failed earlier closes without error: its failure was
    /// reported to the commits it took down, and what it holds is what
    /// they were told.
    pub(crate) fn close(&self) -> Result<()> {
        let mut cur = self.current.lock();
        let synced = match self.check() {
            Err(Error::LogFailed { .. }) => Ok(()),
            checked => checked
                .and_then(|()| self.write_pending(&mut cur))
                .and_then(|()| self.sync(&mut cur)),
        };
        self.fail(Error::Closed {
            op: "log write",
            store: Some(self.dir.display().to_string()),
        });
        cur.file = None;
        synced
    }

    /// Closes the current segment (written and synced) and starts the next:
    /// called by a flush after choosing its cut, so every commit up to the
    /// cut is in a sealed segment.
    pub(crate) fn rotate(&self) -> Result<()> {
        let mut cur = self.current.lock();
        self.check()?;
        self.write_pending(&mut cur)?;
        if let Err(e) = cur.seal() {
            let err = io_error(&cur.path, "cut and sync", &e);
            let keep = self.acknowledged_len(&cur);
            let end = self.written.load(Ordering::Acquire);
            return Err(self.fail_and_cut(&mut cur, err, keep, end));
        }
        self.synced
            .store(self.written.load(Ordering::Acquire), Ordering::Release);
        let id_end = self.pending.lock().ids_first;
        let (file, path, filled) =
            new_segment(&self.dir, cur.number + 1).map_err(|e| self.fail(e))?;
        let old_path = std::mem::replace(&mut cur.path, path);
        let len = std::mem::replace(&mut cur.len, FILE_HEADER as u64);
        cur.file = Some(file);
        cur.filled = filled;
        cur.synced_len = FILE_HEADER as u64;
        cur.number += 1;
        let max_ts = std::mem::take(&mut cur.max_ts);
        let number = cur.number - 1;
        cur.sealed.push(Sealed {
            number,
            path: old_path,
            max_ts,
            id_end,
            len,
        });
        Ok(())
    }

    /// The segments a manifest holding commits up to `durable_ts` and ids
    /// below `id_bound` still needs, oldest first: number and length of
    /// every sealed one from the first that holds a newer commit or id on,
    /// then the current one (length `None`: still growing; its header is
    /// synced). Whatever the order of commits in the segments, the list is
    /// a run of consecutive numbers, as a reopen checks (`wal::recover`),
    /// and `retire` deletes exactly the segments before it.
    pub(crate) fn live_segments(&self, durable_ts: u64, id_bound: u32) -> Vec<(u64, Option<u64>)> {
        let cur = self.current.lock();
        let first = cur
            .sealed
            .iter()
            .find(|s| s.max_ts > durable_ts || s.id_end > id_bound)
            .map_or(cur.number, |s| s.number);
        cur.sealed
            .iter()
            .filter(|s| s.number >= first)
            .map(|s| (s.number, Some(s.len)))
            .chain(std::iter::once((cur.number, None)))
            .collect()
    }

    /// Hands the sealed segments numbered below `first_needed` (the first
    /// segment a manifest just written lists, see `live_segments`) to the
    /// archive of changes, which keeps them within its budget or deletes
    /// them (`archive.rs`).
    pub(crate) fn retire(&self, first_needed: u64) -> Result<()> {
        let mut cur = self.current.lock();
        let mut kept = Vec::new();
        let mut sealed = std::mem::take(&mut cur.sealed).into_iter();
        for s in sealed.by_ref() {
            if s.number >= first_needed {
                kept.push(s);
                continue;
            }
            let moved = super::archive::keep(
                &self.dir,
                s.number,
                &s.path,
                s.max_ts,
                self.change_log_bytes,
            );
            if let Err(e) = moved {
                kept.push(s);
                kept.extend(sealed);
                cur.sealed = kept;
                return Err(e);
            }
        }
        cur.sealed = kept;
        Ok(())
    }

    /// Runs `f` with the log's segment files held still: no segment is
    /// retired (moved or deleted) or sealed while it runs. For readers of
    /// changes, which open every file they need inside `f`.
    pub(crate) fn with_segments_still<R>(&self, f: impl FnOnce() -> R) -> R {
        let _still = self.current.lock();
        f()
    }

    /// Log segment files currently on disk (sealed and current).
    pub(crate) fn segments(&self) -> usize {
        self.current.lock().sealed.len() + 1
    }

    /// Bytes appended since the store was opened.
    pub(crate) fn appended(&self) -> u64 {
        self.pending.lock().end
    }
}

impl crate::keys::KeyJournal for Wal {
    fn note_key(&self, id: u64, key: &str) {
        let mut p = self.pending.lock();
        if p.keys.is_empty() {
            p.keys_first = id;
        }
        debug_assert_eq!(id, p.keys_first + p.keys.len() as u64);
        p.keys.push(key.to_owned());
    }
}

impl IdJournal for Wal {
    fn assign(&self, ext: VertexId, take: &mut dyn FnMut() -> Option<u32>) -> Option<u32> {
        let mut p = self.pending.lock();
        let id = take()?;
        debug_assert_eq!(id as usize, p.ids_first as usize + p.ids.len());
        p.ids.push(ext);
        Some(id)
    }
}

/// Creates segment file `n` with its header and the first zeros after it,
/// synced with its directory entry so that a later crash finds it whole.
/// Returns the file (positioned after the header), its path and length.
fn new_segment(dir: &Path, n: u64) -> Result<(File, PathBuf, u64)> {
    let path = segment_path(dir, n);
    let mut file = hit(&path, FileOp::Create)
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .create_new(true)
                .write(true)
                .open(&path)
        })
        .map_err(|e| io_error(&path, "create", &e))?;
    let header = FILE_HEADER as u64;
    hit(&path, FileOp::Write)
        .and_then(|()| file.write_all(&file_header(n)))
        .and_then(|()| fill_zeros(&mut file, header, header, header + FILL_FIRST))
        .map_err(|e| io_error(&path, "write", &e))?;
    hit(&path, FileOp::Sync)
        .and_then(|()| file.sync_all())
        .map_err(|e| io_error(&path, "sync", &e))?;
    sync_dir(dir)?;
    Ok((file, path, header + FILL_FIRST))
}

/// `SyncPolicy::Interval`: syncs the log every `every` while the store
/// lives (holding only a weak reference, so it never keeps a store open).
fn spawn_syncer(wal: Weak<Wal>, every: Duration) {
    let _ = std::thread::Builder::new()
        .name("stratagraph-wal-sync".into())
        .spawn(move || loop {
            std::thread::sleep(every);
            // A closed or failed log refuses every later sync: stop.
            let Some(wal) = wal
                .upgrade()
                .filter(|w| !w.has_failed.load(Ordering::Acquire))
            else {
                return;
            };
            // A failure is recorded in `failed` and reported to writers.
            let _ = wal.sync_all();
        });
}
