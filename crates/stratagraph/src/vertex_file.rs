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
//!   or (version 2) a run: first id u32 | RUN | count u32 (1 to RUN_IDS)
//!     | external id u64 of the first | crc32c u32 of the chunk before it
//! ```
//!
//! A run chunk stands for consecutive external ids: a graph whose vertices
//! were created in id order (what a dense load does) keeps 20 bytes for
//! any number of them instead of 8 a vertex.

use crate::error::{Error, Result};
use crate::util::faults::{hit, FileOp};
use crate::util::files::{io_error, sync_dir};
use crate::util::le::{u32_at, u64_at};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

/// The vertex file's name inside a store directory.
pub(crate) const FILE: &str = "VERTICES";
const MAGIC: &[u8; 8] = b"SGVERTS\x01";
/// The vertex file format this build writes; it reads this one and 1
/// (which has no run chunks).
pub(crate) const VERSION: u32 = 2;
/// Bytes of the file header.
pub(crate) const HEADER: usize = 16;
/// Bytes of a chunk's header (first id, count).
const CHUNK_HEADER: usize = 8;
/// The most ids in one chunk: a reader checks a chunk before it hands out
/// any of its ids, so this bounds the buffer it needs (512 KiB).
const CHUNK_IDS: u32 = 1 << 16;
/// The bit of a chunk's count field that makes it a run chunk (version 2).
const RUN: u32 = 1 << 31;
/// The most ids one run chunk stands for.
const RUN_IDS: u32 = RUN - 1;
/// The shortest run written as a run chunk: shorter ones cost no more as
/// listed ids and keep the chunk being filled going.
const RUN_MIN: u32 = 4;

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
                .read(true)
                .write(true)
                .open(&path)
        })
        .map_err(|e| io_error(&path, "open for append", &e))?;
    // A file started by an older build stays in its version: run chunks
    // only go into a file whose header says it may hold them.
    let runs_allowed = fresh || {
        let mut header = [0u8; HEADER];
        f.read_exact(&mut header)
            .map_err(|e| io_error(&path, "read the header of", &e))?;
        u32_at(&header, 8) >= 2
    };
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
        let mut chunks = Chunks {
            runs: runs_allowed,
            listed: Vec::with_capacity(CHUNK_IDS as usize * 8),
            listed_first: from,
            listed_count: 0,
            run: (from, 0, 0),
        };
        for v in from..n {
            chunks.push(v, ext(v), &mut put)?;
        }
        chunks.finish(&mut put)?;
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

/// The chunks an append writes, built one id at a time: consecutive
/// external ids are held back as a candidate run; a run of `RUN_MIN` or
/// more becomes a run chunk (when the file allows them), anything else
/// joins the listed chunk being filled.
struct Chunks {
    runs: bool,
    /// The listed chunk being filled: its ids' bytes, its first id and
    /// its count.
    listed: Vec<u8>,
    listed_first: u32,
    listed_count: u32,
    /// The candidate run: first internal id, first external id, length.
    run: (u32, u64, u32),
}

type Put<'a> = dyn FnMut(&[u8]) -> std::io::Result<()> + 'a;

impl Chunks {
    fn push(&mut self, v: u32, ext: u64, put: &mut Put<'_>) -> std::io::Result<()> {
        let (_, start, len) = self.run;
        let extends = len > 0 && len < RUN_IDS && start.checked_add(u64::from(len)) == Some(ext);
        if extends {
            self.run.2 += 1;
            return Ok(());
        }
        self.end_run(put)?;
        self.run = (v, ext, 1);
        Ok(())
    }

    /// Writes out the candidate run: as a run chunk if it is long enough,
    /// else into the listed chunk.
    fn end_run(&mut self, put: &mut Put<'_>) -> std::io::Result<()> {
        let (first, start, len) = self.run;
        if len == 0 {
            return Ok(());
        }
        self.run.2 = 0;
        if self.runs && len >= RUN_MIN {
            self.end_listed(put)?;
            let mut c = [0u8; CHUNK_HEADER + 8 + 4];
            c[..4].copy_from_slice(&first.to_le_bytes());
            c[4..8].copy_from_slice(&(RUN | len).to_le_bytes());
            c[8..16].copy_from_slice(&start.to_le_bytes());
            let crc = crc32c::crc32c(&c[..16]);
            c[16..].copy_from_slice(&crc.to_le_bytes());
            return put(&c);
        }
        for i in 0..len {
            if self.listed_count == CHUNK_IDS {
                self.end_listed(put)?;
            }
            if self.listed_count == 0 {
                self.listed_first = first + i;
            }
            self.listed
                .extend_from_slice(&(start + u64::from(i)).to_le_bytes());
            self.listed_count += 1;
        }
        Ok(())
    }

    /// Writes out the listed chunk, if it holds any id.
    fn end_listed(&mut self, put: &mut Put<'_>) -> std::io::Result<()> {
        if self.listed_count == 0 {
            return Ok(());
        }
        let mut chunk = Vec::with_capacity(CHUNK_HEADER + self.listed.len() + 4);
        chunk.extend_from_slice(&self.listed_first.to_le_bytes());
        chunk.extend_from_slice(&self.listed_count.to_le_bytes());
        chunk.extend_from_slice(&self.listed);
        let crc = crc32c::crc32c(&chunk);
        chunk.extend_from_slice(&crc.to_le_bytes());
        self.listed.clear();
        self.listed_count = 0;
        put(&chunk)
    }

    fn finish(mut self, put: &mut Put<'_>) -> std::io::Result<()> {
        self.end_run(put)?;
        self.end_listed(put)
    }
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
    if !(1..=VERSION).contains(&version) {
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
        let run = version >= 2 && count & RUN != 0;
        let count = if run { count & !RUN } else { count };
        let most = if run { RUN_IDS } else { CHUNK_IDS };
        if count == 0 || count > most {
            return Err(corrupt(
                at + 4,
                format!("a chunk holds {count} ids (1 to {most})"),
            ));
        }
        let body = if run { 8 + 4 } else { u64::from(count) * 8 + 4 };
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
        if run {
            let start = u64_at(&chunk, CHUNK_HEADER);
            if start.checked_add(u64::from(count) - 1).is_none() {
                return Err(corrupt(
                    at + CHUNK_HEADER as u64,
                    format!("a run of {count} ids from {start} passes the largest id"),
                ));
            }
            for i in 0..count {
                each(first + i, start + u64::from(i))?;
            }
        } else {
            for i in 0..count {
                each(first + i, u64_at(&chunk, CHUNK_HEADER + 8 * i as usize))?;
            }
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

    /// Ids in runs and out of them, with every kind of boundary: runs
    /// shorter than a run chunk, a run across the listed chunks' size, a
    /// run that ends at the largest id, one id between two runs.
    fn mixed(v: u32) -> u64 {
        match v {
            0..=2 => 100 + u64::from(v),
            3..=9 => ids(v),
            10..=70_009 => 5_000 + u64::from(v),
            70_010 => 1,
            70_011..=70_020 => u64::MAX - 70_020 + u64::from(v),
            _ => ids(v),
        }
    }

    #[test]
    fn consecutive_ids_take_run_chunks() {
        let dir = tempfile::tempdir().unwrap();
        let dense = append(dir.path(), Written::default(), 1_000_000, u64::from).unwrap();
        assert_eq!(dense.bytes, (HEADER + CHUNK_HEADER + 8 + 4) as u64);
        assert_eq!(
            all(dir.path(), dense).unwrap(),
            (0..1_000_000).collect::<Vec<u64>>()
        );
        let dir = tempfile::tempdir().unwrap();
        let n = 70_100;
        let w = append(dir.path(), Written::default(), 70_015, mixed).unwrap();
        // Appending continues the run that the last append ended inside.
        let w = append(dir.path(), w, n, mixed).unwrap();
        let want: Vec<u64> = (0..n).map(mixed).collect();
        assert_eq!(all(dir.path(), w).unwrap(), want);
        // Listed: 3 + 7, 1 and 79 ids; runs: 70,000, then 4 and 6 (the
        // second append starts inside that run).
        let listed = (3 + 7 + 1 + 79) * 8;
        let chunks = 3 + 3;
        assert!(
            w.bytes <= (HEADER + listed + chunks * (CHUNK_HEADER + 8 + 4)) as u64,
            "{} bytes",
            w.bytes
        );
    }

    #[test]
    fn a_version_1_file_is_appended_to_without_runs() {
        let dir = tempfile::tempdir().unwrap();
        let w = append(dir.path(), Written::default(), 3, ids).unwrap();
        let path = dir.path().join(FILE);
        let mut b = std::fs::read(&path).unwrap();
        b[8..12].copy_from_slice(&1u32.to_le_bytes());
        let crc = crc32c::crc32c(&b[..12]);
        b[12..16].copy_from_slice(&crc.to_le_bytes());
        std::fs::write(&path, &b).unwrap();
        let w = append(dir.path(), w, 1_000, |v| {
            if v < 3 {
                ids(v)
            } else {
                u64::from(v)
            }
        })
        .unwrap();
        assert_eq!(w.bytes, (HEADER + CHUNK_HEADER * 2 + 1_000 * 8 + 8) as u64);
        let got = all(dir.path(), w).unwrap();
        assert_eq!(got[3..], (3..1_000).collect::<Vec<u64>>());
    }

    #[test]
    fn a_damaged_run_chunk_is_corrupt() {
        let dir = tempfile::tempdir().unwrap();
        let w = append(dir.path(), Written::default(), 200, mixed).unwrap();
        let good = std::fs::read(dir.path().join(FILE)).unwrap();
        for i in 0..good.len() {
            for bit in [0x01, 0x80] {
                let mut b = good.clone();
                b[i] ^= bit;
                let e = decode(&b[..], w.bytes, w.ids, "v", |_, _| Ok(())).unwrap_err();
                assert!(
                    matches!(e, Error::Corrupt { .. } | Error::UnsupportedFormat { .. }),
                    "byte {i}: {e}"
                );
            }
        }
        // A run resealed to pass the largest id is refused by its bound.
        let mut b = good.clone();
        let at = HEADER + CHUNK_HEADER + 10 * 8 + 4;
        assert_eq!(u32_at(&b, at + 4) & RUN, RUN);
        b[at + 8..at + 16].copy_from_slice(&(u64::MAX - 2).to_le_bytes());
        let crc = crc32c::crc32c(&b[at..at + 16]);
        b[at + 16..at + 20].copy_from_slice(&crc.to_le_bytes());
        let e = decode(&b[..], w.bytes, w.ids, "v", |_, _| Ok(())).unwrap_err();
        assert!(e.to_string().contains("largest id"), "{e}");
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
