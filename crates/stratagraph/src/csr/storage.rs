//! Where a segment's bytes live: an owned, 8-byte-aligned buffer (the
//! in-memory home, and freshly written segments) or a read-only memory map
//! of a file (the on-disk home). Also the crash-safe file write shared by
//! both ways of producing a file.

use crate::error::Result;
use crate::util::files::{io_error, write_atomically};
use crate::util::huge;
use std::fs::File;
use std::io::Write;
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
pub(crate) enum Storage {
    Owned(SegmentBytes),
    Mapped {
        scan: memmap2::Mmap,
        points: memmap2::Mmap,
    },
}

impl Storage {
    /// The bytes, for reading in file order (whole columns, scans).
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Storage::Owned(b) => b.as_bytes(),
            Storage::Mapped { scan, .. } => scan,
        }
    }

    /// The same bytes, for reading a few places at random (look-ups).
    #[inline]
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
    Ok(Storage::Mapped { scan, points })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // tests may panic on bad fixtures
mod tests {
    use super::*;

    /// The kernel's flags (`VmFlags` in `/proc/self/smaps`) of every
    /// mapping of `path`.
    fn vm_flags_of(path: &Path) -> Vec<String> {
        let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap();
        let name = path.display().to_string();
        let mut found = Vec::new();
        let mut ours = false;
        for line in smaps.lines() {
            if let Some(flags) = line.strip_prefix("VmFlags:") {
                if ours {
                    found.push(flags.trim().to_string());
                }
            } else {
                // A mapping's first line: "start-end perms offset dev inode [path]".
                let first = line.split_whitespace().next().unwrap_or("");
                if first.contains('-') && first.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
                    ours = line.ends_with(&name);
                }
            }
        }
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
            // "rr": advised MADV_RANDOM, so a fault reads no pages around it.
            let mut flags = vm_flags_of(&path);
            flags.sort_by_key(|f| f.split_whitespace().any(|x| x == "rr"));
            assert_eq!(flags.len(), 2, "{flags:?}");
            assert!(!flags[0].split_whitespace().any(|x| x == "rr"), "{flags:?}");
            assert!(flags[1].split_whitespace().any(|x| x == "rr"), "{flags:?}");
        }
        let empty = dir.path().join("empty");
        std::fs::write(&empty, b"").unwrap();
        assert!(map_file(&empty).unwrap().point_bytes().is_empty());
    }
}
