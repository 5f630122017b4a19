//! The vertex file (`VERTICES`) of an on-disk store: the external id of
//! every internal id, in internal id order.
//!
//! Ids are assigned once and never change, so the file only grows: each
//! manifest write appends the ids assigned since the previous one, syncs,
//! and then names the file's new length in the MANIFEST (`manifest.rs`).
//! A store of a billion vertices therefore writes each id once, not once
//! per flush as a vertex table inside the MANIFEST would. Bytes past the
//! length the MANIFEST names (an append a crash cut short) are never read
//! and are cut off by the next append. Layout (little-endian, documented
//! in `docs/FORMAT.md` §2.1):
//!
//! ```text
//! magic "SGVERTS\x01" | version u32 | crc32c u32 of the 12 bytes before it
//! chunks, each: first id u32 | count u32 (1 to CHUNK_IDS)
//!     | count x external id u64 | crc32c u32 of the chunk before it
//! ```

use crate::error::{Error, Result};
use crate::util::faults::{hit, FileOp};
use crate::util::files::{io_error, sync_dir};
use crate::util::le::{u32_at, u64_at};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The vertex file's name inside a store directory.
pub(crate) const FILE: &str = "VERTICES";
const MAGIC: &[u8; 8] = b"SGVERTS\x01";
/// The vertex file format this build writes and reads.
pub(crate) const VERSION: u32 = 1;
/// Bytes of the file header.
pub(crate) const HEADER: usize = 16;
/// Bytes of a chunk's header (first id, count).
const CHUNK_HEADER: usize = 8;
/// The most ids in one chunk: a reader checks a chunk before it hands out
/// any of its ids, so this bounds the buffer it needs (512 KiB).
const CHUNK_IDS: u32 = 1 << 16;

/// How much of the vertex file a store has written and synced: ids
/// `0..ids` in its first `bytes` bytes (0 and 0: no file yet).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Written {
    pub ids: u32,
    pub bytes: u64,
}

/// Makes the vertex file in `dir` hold ids `0..n`: appends `ext(v)` for
/// every `v` from `written.ids` up, as chunks, then syncs the file. The
/// bytes past `written.bytes` (an append that failed or was cut short by a
/// crash) are cut off first; with nothing written yet the file is started
/// over. Returns what the file then holds, for the MANIFEST to name.
pub(crate) fn append(
    dir: &Path,
    written: Written,
    n: u32,
    ext: impl Fn(u32) -> u64,
) -> Result<Written> {
    if n == 0 || (n <= written.ids && written.bytes > 0) {
        return Ok(written);
    }
    let path = dir.join(FILE);
    let fresh = written.bytes == 0;
    let (from, start) = if fresh {
        (0, 0)
    } else {
        (written.ids, written.bytes)
    };
    let mut f = hit(&path, FileOp::Create)
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
        })
        .map_err(|e| io_error(&path, "open for append", &e))?;
    hit(&path, FileOp::Write)
        .and_then(|()| f.set_len(start))
        .and_then(|()| f.seek(SeekFrom::Start(start)).map(drop))
        .map_err(|e| io_error(&path, "cut to its named length", &e))?;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, &mut f);
    let mut bytes = start;
    let written_ok = (|| -> std::io::Result<()> {
        let mut put = |b: &[u8]| -> std::io::Result<()> {
            bytes += b.len() as u64;
            out.write_all(b)
        };
        if fresh {
            let mut h = [0u8; HEADER];
            h[..8].copy_from_slice(MAGIC);
            h[8..12].copy_from_slice(&VERSION.to_le_bytes());
            let crc = crc32c::crc32c(&h[..12]);
            h[12..].copy_from_slice(&crc.to_le_bytes());
            put(&h)?;
        }
        let mut chunk = Vec::with_capacity(CHUNK_HEADER + CHUNK_IDS as usize * 8 + 4);
        let mut first = from;
        while first < n {
            let count = (n - first).min(CHUNK_IDS);
            chunk.clear();
            chunk.extend_from_slice(&first.to_le_bytes());
            chunk.extend_from_slice(&count.to_le_bytes());
            for v in first..first + count {
                chunk.extend_from_slice(&ext(v).to_le_bytes());
            }
            let crc = crc32c::crc32c(&chunk);
            chunk.extend_from_slice(&crc.to_le_bytes());
            put(&chunk)?;
            first += count;
        }
        Ok(())
    })()
    .and_then(|()| out.flush());
    drop(out);
    written_ok.map_err(|e| io_error(&path, "write", &e))?;
    hit(&path, FileOp::Sync)
        .and_then(|()| f.sync_all())
        .map_err(|e| io_error(&path, "sync", &e))?;
    if fresh {
        sync_dir(dir)?;
    }
    Ok(Written { ids: n, bytes })
}

/// Reads ids `0..n` from the first `bytes` bytes of the vertex file in
/// `dir` (what a MANIFEST names), handing each to `each(internal,
/// external)` in order once its chunk is checked. Damage, a file shorter
/// than `bytes` or a missing file is `Corrupt`; what `each` returns stops
/// the read.
pub(crate) fn read(
    dir: &Path,
    bytes: u64,
    n: u32,
    each: impl FnMut(u32, u64) -> Result<()>,
) -> Result<()> {
    let path = dir.join(FILE);
    let name = path.display().to_string();
    if bytes == 0 {
        return decode(std::io::empty(), 0, n, &name, each);
    }
    let f = match std::fs::File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Error::Corrupt {
                file: name,
                offset: 0,
                what: "the vertex file the MANIFEST names is missing".into(),
            })
        }
        Err(e) => return Err(io_error(&path, "open", &e)),
    };
    let reader = std::io::BufReader::with_capacity(1 << 16, f.take(bytes));
    decode(reader, bytes, n, &name, each)
}

/// `read` over any reader holding the file's first `bytes` bytes (`file`
/// names it in errors): the decoder the fuzzer drives.
pub(crate) fn decode(
    mut from: impl Read,
    bytes: u64,
    n: u32,
    file: &str,
    mut each: impl FnMut(u32, u64) -> Result<()>,
) -> Result<()> {
    let corrupt = |offset: u64, what: String| Error::Corrupt {
        file: file.to_string(),
        offset,
        what,
    };
    if bytes == 0 {
        return if n == 0 {
            Ok(())
        } else {
            Err(corrupt(
                0,
                format!("the MANIFEST lists {n} vertices but names no vertex file"),
            ))
        };
    }
    let mut at = 0u64;
    let mut fill = |buf: &mut [u8], at: u64| -> Result<()> {
        from.read_exact(buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                corrupt(
                    at,
                    format!("shorter than the {bytes} bytes the MANIFEST names"),
                )
            } else {
                corrupt(at, format!("unreadable: {e}"))
            }
        })
    };
    if bytes < HEADER as u64 {
        return Err(corrupt(bytes, "shorter than a vertex file header".into()));
    }
    let mut header = [0u8; HEADER];
    fill(&mut header, 0)?;
    if &header[..8] != MAGIC {
        return Err(corrupt(
            0,
            "not a stratagraph vertex file (bad magic)".into(),
        ));
    }
    if crc32c::crc32c(&header[..12]) != u32_at(&header, 12) {
        return Err(corrupt(
            12,
            "header checksum does not match its content".into(),
        ));
    }
    let version = u32_at(&header, 8);
    if version != VERSION {
        return Err(Error::UnsupportedFormat {
            file: file.to_string(),
            found: version,
            supported: VERSION,
        });
    }
    at += HEADER as u64;
    let mut next = 0u32;
    let mut chunk = Vec::new();
    while at < bytes {
        let left = bytes - at;
        if left < (CHUNK_HEADER + 4) as u64 {
            return Err(corrupt(at, "a chunk is cut short".into()));
        }
        let mut head = [0u8; CHUNK_HEADER];
        fill(&mut head, at)?;
        let (first, count) = (u32_at(&head, 0), u32_at(&head, 4));
        if first != next {
            return Err(corrupt(
                at,
                format!("a chunk starts at id {first}, expected {next}"),
            ));
        }
        if count == 0 || count > CHUNK_IDS {
            return Err(corrupt(
                at + 4,
                format!("a chunk holds {count} ids (1 to {CHUNK_IDS})"),
            ));
        }
        let body = u64::from(count) * 8 + 4;
        if body > left - CHUNK_HEADER as u64 {
            return Err(corrupt(
                at,
                "a chunk runs past the length the MANIFEST names".into(),
            ));
        }
        chunk.clear();
        chunk.extend_from_slice(&head);
        chunk.resize(CHUNK_HEADER + body as usize, 0);
        fill(&mut chunk[CHUNK_HEADER..], at + CHUNK_HEADER as u64)?;
        let crc_at = chunk.len() - 4;
        if crc32c::crc32c(&chunk[..crc_at]) != u32_at(&chunk, crc_at) {
            return Err(corrupt(
                at,
                "chunk checksum does not match its content".into(),
            ));
        }
        if u64::from(first) + u64::from(count) > u64::from(n) {
            return Err(corrupt(
                at,
                format!("holds ids past the {n} vertices the MANIFEST lists"),
            ));
        }
        for i in 0..count {
            each(first + i, u64_at(&chunk, CHUNK_HEADER + 8 * i as usize))?;
        }
        next = first + count;
        at += CHUNK_HEADER as u64 + body;
    }
    if next != n {
        return Err(corrupt(
            at,
            format!("holds {next} ids, the MANIFEST lists {n} vertices"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(v: u32) -> u64 {
        u64::from(v).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }

    fn all(dir: &Path, w: Written) -> Result<Vec<u64>> {
        let mut out = Vec::new();
        read(dir, w.bytes, w.ids, |v, ext| {
            assert_eq!(v as usize, out.len());
            out.push(ext);
            Ok(())
        })?;
        Ok(out)
    }

    #[test]
    fn appends_and_reads_back_across_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let w0 = Written::default();
        assert_eq!(append(dir.path(), w0, 0, ids).unwrap(), w0);
        assert!(!dir.path().join(FILE).exists());
        let w1 = append(dir.path(), w0, 3, ids).unwrap();
        assert_eq!(w1.ids, 3);
        assert_eq!(w1.bytes, (HEADER + CHUNK_HEADER + 3 * 8 + 4) as u64);
        let n = CHUNK_IDS * 2 + 5;
        let w2 = append(dir.path(), w1, n, ids).unwrap();
        // Nothing new: nothing written.
        assert_eq!(append(dir.path(), w2, n, ids).unwrap(), w2);
        let want: Vec<u64> = (0..n).map(ids).collect();
        assert_eq!(all(dir.path(), w2).unwrap(), want);
        // An older manifest's view reads its prefix only.
        assert_eq!(all(dir.path(), w1).unwrap(), want[..3]);
    }

    #[test]
    fn a_tail_past_the_named_length_is_ignored_then_cut_off() {
        let dir = tempfile::tempdir().unwrap();
        let w1 = append(dir.path(), Written::default(), 10, ids).unwrap();
        // An append the manifest never named (a crash before it was written).
        let lost = append(dir.path(), w1, 20, |_| 7).unwrap();
        assert_eq!(all(dir.path(), w1).unwrap().len(), 10);
        let w2 = append(dir.path(), w1, 15, ids).unwrap();
        assert!(w2.bytes < lost.bytes);
        let len = std::fs::metadata(dir.path().join(FILE)).unwrap().len();
        assert_eq!(len, w2.bytes);
        let want: Vec<u64> = (0..15).map(ids).collect();
        assert_eq!(all(dir.path(), w2).unwrap(), want);
    }

    #[test]
    fn starting_over_replaces_an_unnamed_file() {
        let dir = tempfile::tempdir().unwrap();
        append(dir.path(), Written::default(), 50, |_| 1).unwrap();
        let w = append(dir.path(), Written::default(), 4, ids).unwrap();
        assert_eq!(
            all(dir.path(), w).unwrap(),
            (0..4).map(ids).collect::<Vec<_>>()
        );
    }

    #[test]
    fn damage_a_short_file_or_a_missing_one_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let w = append(dir.path(), Written::default(), 100, ids).unwrap();
        let path = dir.path().join(FILE);
        let good = std::fs::read(&path).unwrap();
        let corrupt = |e: Error| matches!(e, Error::Corrupt { .. });
        // More ids listed than held, or fewer.
        assert!(corrupt(
            all(dir.path(), Written { ids: 101, ..w }).unwrap_err()
        ));
        assert!(corrupt(
            all(dir.path(), Written { ids: 99, ..w }).unwrap_err()
        ));
        // A length past the file's end, or inside a chunk.
        let long = Written {
            bytes: w.bytes + 12,
            ..w
        };
        assert!(corrupt(all(dir.path(), long).unwrap_err()));
        let short = Written {
            bytes: w.bytes - 1,
            ..w
        };
        assert!(corrupt(all(dir.path(), short).unwrap_err()));
        for i in 0..good.len() {
            let mut b = good.clone();
            b[i] ^= 0x10;
            let e = decode(&b[..], w.bytes, w.ids, "v", |_, _| Ok(())).unwrap_err();
            assert!(
                matches!(e, Error::Corrupt { .. } | Error::UnsupportedFormat { .. }),
                "byte {i}: {e}"
            );
        }
        std::fs::remove_file(&path).unwrap();
        let e = all(dir.path(), w).unwrap_err();
        assert!(e.to_string().contains("missing"), "{e}");
        // No file named, no ids listed: nothing to read.
        assert_eq!(
            all(dir.path(), Written::default()).unwrap(),
            Vec::<u64>::new()
        );
    }
}
