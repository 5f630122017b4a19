//! Where a segment's bytes live: an owned, 8-byte-aligned buffer (the
//! in-memory home, and freshly written segments) or a read-only memory map
//! of a file (the on-disk home). Also the crash-safe file write shared by
//! both ways of producing a file.

use super::access;
use crate::error::Result;
use crate::util::files::{io_error, write_atomically};
use crate::util::huge;
use std::fs::File;
use std::io::Write;
use std::ops::Range;
use std::path::Path;

/// The bytes of one segment, held in `u64` words so that every column (all
/// of which start at 64-byte offsets) can be viewed as `&[u32]`, `&[u64]`
/// or `&[f64]` without copying.
#[derive(Clone)]
pub(crate) struct SegmentBytes {
    words: Box<[u64]>,
    len: usize,
}

impl SegmentBytes {
    /// `len` zero bytes.
    pub(crate) fn zeroed(len: usize) -> Self {
        SegmentBytes {
            words: huge::filled(len.div_ceil(8), || 0),
            len,
        }
    }

    #[cfg(test)] // used by the format tests only
    /// An aligned copy of `bytes` (for buffers that arrive unaligned, such as
    /// a file read into a `Vec<u8>`).
    pub(crate) fn copy_from_slice(bytes: &[u8]) -> Self {
        let mut b = Self::zeroed(bytes.len());
        b.as_bytes_mut().copy_from_slice(bytes);
        b
    }

    #[inline]
    pub(crate) fn as_bytes(&self) -> &[u8] {
        let all: &[u8] = bytemuck::cast_slice(&self.words);
        &all[..self.len]
    }

    pub(crate) fn as_bytes_mut(&mut self) -> &mut [u8] {
        let all: &mut [u8] = bytemuck::cast_slice_mut(&mut self.words);
        &mut all[..self.len]
    }

    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether this finished segment holds no entries (read from its header).
    pub(crate) fn is_empty_segment(&self) -> bool {
        super::format::entry_count_of(self.as_bytes()) == Some(0)
    }

    /// Writes these bytes as the file `path`, crash-safely (see
    /// [`write_atomically`]).
    pub(crate) fn write_file(&self, path: &Path) -> Result<()> {
        write_atomically(path, |f| {
            f.write_all(self.as_bytes()).map_err(|e| (e, "write"))
        })
    }
}

impl std::fmt::Debug for SegmentBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SegmentBytes({} bytes)", self.len)
    }
}

/// A segment's backing store.
///
/// A file is mapped twice, and both mappings share its pages in the page
/// cache. A page fault on a page not in the cache reads the pages around it
/// too (the device's `read_ahead_kb`: 128 KiB by default, 8 MiB on some
/// virtual disks), which is what a scan reading the file in order wants,
/// and what a look-up does not: it pays for the read, and under a memory
/// cap the pages read for nothing evict the pages other reads need (at
/// scale 24 under a cap of a fifth of the store, a look-up ran nine times
/// faster without it). So `scan` is advised normally and `points` is
/// advised `MADV_RANDOM`, which reads only the page faulted in; each read
/// path takes the mapping that fits how it reads.
///
/// A read of one vertex's list, and a look-up of one edge, chooses between
/// them by how it follows the thread's previous read in the same segment
/// (`access`, under `serial`).
pub(crate) enum Storage {
    Owned(SegmentBytes),
    Mapped {
        scan: memmap2::Mmap,
        points: memmap2::Mmap,
        serial: u64,
    },
}

/// A list read at random through `points` that spans more than this many
/// bytes is asked of the kernel in one request first: page by page, each
/// of its pages would be a read of its own.
const LONG_LIST: usize = 16 << 10;

impl Storage {
    /// The bytes, for reading in file order (whole columns, scans).
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Storage::Owned(b) => b.as_bytes(),
            Storage::Mapped { scan, .. } => scan,
        }
    }

    /// The bytes to read vertex `v`'s offsets through, noting the read
    /// (`access::note`): the read-ahead mapping when it follows the
    /// thread's previous list read in this segment closely, else `points`.
    #[inline]
    pub(crate) fn vertex_bytes(&self, v: u32) -> &[u8] {
        self.for_list(|serial| access::note(serial, v), 0..0)
    }

    /// The bytes to read `span` (byte offsets) of the list whose offsets
    /// `vertex_bytes` gave last on this thread: the same mapping. A long
    /// list read at random is requested whole first (`LONG_LIST`).
    #[inline]
    pub(crate) fn entry_bytes(&self, span: Range<usize>) -> &[u8] {
        self.for_list(access::last_was_near, span)
    }

    /// The read-ahead mapping if `near` says so of this file's serial,
    /// else `points` (see `at_random`); owned bytes as they are.
    #[inline]
    fn for_list(&self, near: impl FnOnce(u64) -> bool, span: Range<usize>) -> &[u8] {
        match self {
            Storage::Owned(b) => b.as_bytes(),
            Storage::Mapped {
                scan,
                points,
                serial,
            } => {
                if near(*serial) {
                    scan
                } else {
                    at_random(points, span)
                }
            }
        }
    }

    /// Asks the kernel to start reading `span` (byte offsets, clamped to
    /// the file) into the page cache, in requests as large as it likes,
    /// and returns at once; nothing for owned bytes.
    pub(crate) fn will_need(&self, span: Range<usize>) {
        if let Storage::Mapped { points, .. } = self {
            let end = span.end.min(points.len());
            if span.start < end {
                // A hint: a kernel that refuses it faults page by page.
                let _ =
                    points.advise_range(memmap2::Advice::WillNeed, span.start, end - span.start);
            }
        }
    }

    /// The same bytes, through the mapping without read-ahead: for a few
    /// reads at known places that must not fault in the pages around them.
    pub(crate) fn point_bytes(&self) -> &[u8] {
        match self {
            Storage::Owned(b) => b.as_bytes(),
            Storage::Mapped { points, .. } => points,
        }
    }

    #[cfg(test)] // used by the format tests only
    /// Whether the bytes are a file mapping (rather than owned memory).
    pub(crate) fn is_mapped(&self) -> bool {
        matches!(self, Storage::Mapped { .. })
    }
}

/// `points`, for reading `span` of a list at random: a long one is asked
/// of the kernel whole first. Out of line, so that the read paths that
/// take `entry_bytes` stay small enough to keep their per-edge callbacks
/// inlined (with this inline, SSSP on a mapped store took a quarter more
/// time).
#[inline(never)]
fn at_random(points: &memmap2::Mmap, span: Range<usize>) -> &[u8] {
    if span.len() > LONG_LIST && span.end <= points.len() {
        // A hint: a kernel that refuses it faults page by page.
        let _ = points.advise_range(memmap2::Advice::WillNeed, span.start, span.len());
    }
    points
}

/// Maps `file` read-only.
///
/// One of the crate's three `unsafe` calls (with `util::huge::advise` and
/// `util::prefetch::line`). `Mmap::map` is unsafe because the
/// mapped bytes are shared with the file: if another process truncated the
/// file the process would get `SIGBUS`, and if it rewrote bytes the slices
/// handed out would change under the borrow checker's feet. Segment files
/// are never modified in place: the engine writes a new file under a
/// temporary name and renames it into place, and deletes a file only when no
/// snapshot holds it. Outside tampering is out of contract; even then every
/// reader uses checked indexing, so changed bytes give wrong answers, not
/// out-of-bounds accesses.
#[allow(unsafe_code)]
fn map_readonly(file: &File) -> std::io::Result<memmap2::Mmap> {
    // SAFETY: see above: segment files are immutable once published.
    unsafe { memmap2::Mmap::map(file) }
}

/// Opens `path` and maps it.
pub(crate) fn map_file(path: &Path) -> Result<Storage> {
    let file = File::open(path).map_err(|e| io_error(path, "open", &e))?;
    let len = file
        .metadata()
        .map_err(|e| io_error(path, "stat", &e))?
        .len();
    if len == 0 {
        // Mapping zero bytes is an error on some systems; an empty buffer
        // reports the truncation the same way as any other short file.
        return Ok(Storage::Owned(SegmentBytes::zeroed(0)));
    }
    let scan = map_readonly(&file).map_err(|e| io_error(path, "mmap", &e))?;
    let points = map_readonly(&file).map_err(|e| io_error(path, "mmap", &e))?;
    // Advice is a hint: a kernel that refuses it reads around, as before.
    let _ = points.advise(memmap2::Advice::Random);
    Ok(Storage::Mapped {
        scan,
        points,
        serial: access::next_serial(),
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;
    use crate::csr::{write_columns, Encoding, Segment};
    use crate::direction::Direction;

    /// One mapping of a file as the kernel lists it in `/proc/self/smaps`.
    struct Mapping {
        /// Its `VmFlags`.
        flags: String,
        /// Resident pages mapped into it (`Rss`), in KiB.
        rss_kb: u64,
    }

    impl Mapping {
        /// Advised `MADV_RANDOM` ("rr"): a fault reads no pages around it.
        fn random(&self) -> bool {
            self.flags.split_whitespace().any(|x| x == "rr")
        }
    }

    /// Every mapping of `path`, read-ahead ones first.
    fn mappings_of(path: &Path) -> Vec<Mapping> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let name = path.display().to_string();
        let mut found: Vec<Mapping> = Vec::new();
        let mut ours = false;
        for line in smaps.lines() {
            if let Some(flags) = line.strip_prefix("VmFlags:") {
                if ours {
                    if let Some(m) = found.last_mut() {
                        m.flags = flags.trim().to_string();
                    }
                }
            } else if let Some(rss) = line.strip_prefix("Rss:") {
                if ours {
                    if let Some(m) = found.last_mut() {
                        m.rss_kb = rss.trim().trim_end_matches("kB").trim().parse().unwrap();
                    }
                }
            } else {
                // A mapping's first line: "start-end perms offset dev inode [path]".
                let first = line.split_whitespace().next().unwrap_or("");
                if first.contains('-') && first.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
                    ours = line.ends_with(&name);
                    if ours {
                        found.push(Mapping {
                            flags: String::new(),
                            rss_kb: 0,
                        });
                    }
                }
            }
        }
        found.sort_by_key(Mapping::random);
        found
    }

    #[test]
    fn a_file_is_mapped_for_scans_and_for_look_ups() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seg");
        std::fs::write(&path, vec![7u8; 3 * 4096]).unwrap();
        let storage = map_file(&path).unwrap();
        assert_eq!(storage.bytes(), storage.point_bytes());
        assert_eq!(storage.bytes().len(), 3 * 4096);
        if cfg!(target_os = "linux") {
            let maps = mappings_of(&path);
            let flags: Vec<&str> = maps.iter().map(|m| m.flags.as_str()).collect();
            assert_eq!(maps.len(), 2, "{flags:?}");
            assert!(!maps[0].random() && maps[1].random(), "{flags:?}");
        }
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(map_file(&empty).unwrap().point_bytes().is_empty());
    }

    /// A mapped segment of 65,536 lists of 128 entries each (32 MiB of
    /// lists: a file system may map large folios, up to 2 MiB, at a fault,
    /// so the file must be much larger than one); vertex `v`'s list is
    /// `v * 128 + k` for `k` in `0..128`, modulo 65,536. Returns the
    /// directory (kept alive), the file and the segment.
    fn lists_file() -> (tempfile::TempDir, std::path::PathBuf, Segment) {
        let (n, degree) = (LISTS, DEGREE);
        let offsets: Vec<u32> = (0..=n).map(|v| v * degree).collect();
        let dsts: Vec<u32> = (0..n * degree).map(|e| e % n).collect();
        let bytes =
            write_columns(0, n, Direction::Out, &offsets, &dsts, &[], Encoding::PLAIN).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seg");
        bytes.write_file(&path).unwrap();
        let seg = Segment::open(&path).unwrap();
        (dir, path, seg)
    }

    const LISTS: u32 = 65_536;
    const DEGREE: u32 = 128;
    /// KiB of destinations in `lists_file`.
    const DSTS_KB: u64 = LISTS as u64 * DEGREE as u64 * 4 / 1024;
    /// Jumps of more than `access::NEAR` vertices from one to the next.
    const JUMPS: [u32; 6] = [39_000, 100, 65_000, 24_000, 12_000, 51_500];

    /// Each mapping's resident KiB (`scan`, then `points`).
    fn rss_of(path: &Path) -> (u64, u64) {
        let maps = mappings_of(path);
        assert_eq!(maps.len(), 2);
        (maps[0].rss_kb, maps[1].rss_kb)
    }

    /// Runs `at_random`, then `in_order`, reads of `path`'s segment, and
    /// checks by each mapping's resident pages (its `Rss`) which mapping
    /// faulted them in: the one without read-ahead for reads at random,
    /// the one with it for reads in vertex order. `what` names the reads.
    fn check_mappings(path: &Path, what: &str, at_random: impl FnOnce(), in_order: impl FnOnce()) {
        let (scan0, points0) = rss_of(path);
        assert!(scan0 < DSTS_KB / 2, "opening read the lists ({scan0} KiB)");
        at_random();
        let (scan1, points1) = rss_of(path);
        assert_eq!(
            scan1, scan0,
            "{what} at random went through the read-ahead mapping"
        );
        assert!(points1 > points0, "{what} at random faulted nothing in");
        in_order();
        let (scan2, points2) = rss_of(path);
        assert!(
            scan2 >= scan1 + DSTS_KB / 2,
            "{what} in order did not go through the read-ahead mapping ({scan1} -> {scan2} KiB)"
        );
        assert!(
            points2 < points1 + DSTS_KB / 8,
            "{what} in order went through the mapping without read-ahead ({points1} -> {points2} KiB)"
        );
    }

    /// Lists read at random come through the mapping without read-ahead,
    /// lists read in vertex order through the one with it.
    #[test]
    fn lists_read_at_random_skip_read_ahead_and_lists_in_order_use_it() {
        if !cfg!(target_os = "linux") {
            return;
        }
        let (_dir, path, seg) = lists_file();
        let list = |v: u32| -> Vec<u32> { (0..DEGREE).map(|k| (v * DEGREE + k) % LISTS).collect() };
        check_mappings(
            &path,
            "list reads",
            || {
                for &v in &JUMPS {
                    assert_eq!(seg.entries_of(v), list(v).as_slice());
                }
            },
            || {
                for v in 0..LISTS {
                    assert_eq!(seg.entries_of(v), list(v).as_slice());
                }
            },
        );
    }

    /// Look-ups of single edges choose as list reads do: at random through
    /// the mapping without read-ahead, in vertex order (a flush settling
    /// its blind inserts, sorted) through the one with it.
    #[test]
    fn look_ups_at_random_skip_read_ahead_and_look_ups_in_order_use_it() {
        if !cfg!(target_os = "linux") {
            return;
        }
        let (_dir, path, seg) = lists_file();
        // Vertex v's last destination, and one it does not have (its lists
        // are 128 consecutive ids, so the id before the first is missing).
        let last = |v: u32| (v * DEGREE + DEGREE - 1) % LISTS;
        let missing = |v: u32| (v * DEGREE + LISTS - 1) % LISTS;
        check_mappings(
            &path,
            "look-ups",
            || {
                for &v in &JUMPS {
                    assert!(seg.decided(v, last(v), u64::MAX).decides());
                    assert!(!seg.decided(v, missing(v), u64::MAX).decides());
                }
            },
            || {
                for v in 0..LISTS {
                    assert!(seg.decided(v, last(v), u64::MAX).decides());
                }
            },
        );
    }
}
