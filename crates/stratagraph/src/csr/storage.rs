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
pub(crate) enum Storage {
    Owned(SegmentBytes),
    Mapped(memmap2::Mmap),
}

impl Storage {
    #[inline]
    pub(crate) fn bytes(&self) -> &[u8] {
        match self {
            Storage::Owned(b) => b.as_bytes(),
            Storage::Mapped(m) => m,
        }
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
    let map = map_readonly(&file).map_err(|e| io_error(path, "mmap", &e))?;
    Ok(Storage::Mapped(map))
}
