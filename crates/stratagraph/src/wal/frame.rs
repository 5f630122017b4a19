//! Log segment files: the file header, the frame around each record, and
//! reading a segment back with the rule that tells a torn tail (a crash
//! while appending: cut off, dropped) from damage (refused).
//!
//! ```text
//! file header  magic "SGWAL\0\0\x01" | version u32 | segment u64 | crc32c u32   (24 bytes)
//! record       length u64 | crc32c(length) u32 | crc32c(payload) u32 | payload
//! ```
//!
//! The length has its own checksum so that a damaged length is seen as
//! damage, not mistaken for a record running past the end of the file
//! (which would silently drop every record after it).
//!
//! The segment being appended to is zero-filled ahead of its records
//! (see `writer.rs`), so its records end where only zero bytes follow;
//! older segments were cut to their last record and synced whole before
//! the next one was created.
//!
//! Only the end of the newest segment can be torn. There, and only there,
//! a record is dropped as torn when its header is incomplete, when its
//! payload runs past the end of the file, or when a check of its header or
//! payload fails and nothing but zero bytes follows it (the crash came
//! while it was being written into the zero-filled space). Anything else
//! that fails a check is reported as `Error::Corrupt` with the file and
//! offset.

use super::record::{self, Record};
use crate::error::{Error, Result};
use crate::util::files::io_error;
use crate::util::le::{array, u32_at, u64_at};
use std::path::Path;

const MAGIC: &[u8; 8] = b"SGWAL\0\0\x01";
/// The log format this build writes; it reads this one and 1. Version 2
/// added the records of ids as runs (`record.rs`, kinds 10 and 11), so an
/// older build refuses a newer log by its version instead of meeting a
/// record kind it does not know.
pub(crate) const VERSION: u32 = 2;
/// Bytes of the file header.
pub(crate) const FILE_HEADER: usize = 24;
/// Bytes of a record's frame header.
pub(crate) const RECORD_HEADER: usize = 16;

/// The header of segment file number `segment`.
pub(crate) fn file_header(segment: u64) -> [u8; FILE_HEADER] {
    let mut h = [0u8; FILE_HEADER];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&VERSION.to_le_bytes());
    h[12..20].copy_from_slice(&segment.to_le_bytes());
    let crc = crc32c::crc32c(&h[..20]);
    h[20..].copy_from_slice(&crc.to_le_bytes());
    h
}

/// Reserves a record header in `buf`; `seal_record` fills it in once the
/// payload has been appended after it. Returns the header's position.
pub(crate) fn open_record(buf: &mut Vec<u8>) -> usize {
    let at = buf.len();
    buf.extend_from_slice(&[0u8; RECORD_HEADER]);
    at
}

/// Fills in the header reserved at `at` for the payload that follows it.
pub(crate) fn seal_record(buf: &mut [u8], at: usize) {
    let len = (buf.len() - at - RECORD_HEADER) as u64;
    let len_bytes = len.to_le_bytes();
    let pcrc = crc32c::crc32c(&buf[at + RECORD_HEADER..]);
    let h = &mut buf[at..at + RECORD_HEADER];
    h[..8].copy_from_slice(&len_bytes);
    h[8..12].copy_from_slice(&crc32c::crc32c(&len_bytes).to_le_bytes());
    h[12..16].copy_from_slice(&pcrc.to_le_bytes());
}

/// A segment read back.
#[derive(Debug)]
pub(crate) struct Scan {
    /// The segment number from the file header.
    pub segment: u64,
    /// Every intact record with the offset of its frame.
    pub records: Vec<(u64, Record)>,
    /// The end of the last intact record: where the next record goes.
    pub valid_end: u64,
    /// Where the torn tail starts and why it counts as torn.
    pub torn: Option<(u64, String)>,
}

/// Reads segment `path`. `newest`: it is the last segment, whose tail may
/// be torn.
pub(crate) fn read_segment(path: &Path, newest: bool) -> Result<Scan> {
    let bytes = std::fs::read(path).map_err(|e| io_error(path, "read", &e))?;
    scan_bytes(&bytes, &path.display().to_string(), newest)
}

/// `read_segment` on bytes already in memory; `file` names them in errors.
pub(crate) fn scan_bytes(bytes: &[u8], file: &str, newest: bool) -> Result<Scan> {
    let corrupt = |offset: usize, what: String| Error::Corrupt {
        file: file.to_string(),
        offset: offset as u64,
        what,
    };
    if bytes.len() < FILE_HEADER {
        let magic_prefix = &bytes[..bytes.len().min(MAGIC.len())];
        if newest && (bytes.iter().all(|&b| b == 0) || MAGIC.starts_with(magic_prefix)) {
            // Created but its header not (fully) written when the process died.
            return Ok(Scan {
                segment: 0,
                records: Vec::new(),
                valid_end: 0,
                torn: Some((0, "the file header is incomplete".into())),
            });
        }
        return Err(corrupt(
            bytes.len(),
            "shorter than a log file header".into(),
        ));
    }
    if &bytes[..8] != MAGIC {
        return Err(corrupt(0, "not a stratagraph log (bad magic)".into()));
    }
    if crc32c::crc32c(&bytes[..20]) != u32_at(bytes, 20) {
        return Err(corrupt(
            20,
            "log file header checksum does not match".into(),
        ));
    }
    let version = u32_at(bytes, 8);
    if !(1..=VERSION).contains(&version) {
        return Err(Error::UnsupportedFormat {
            file: file.to_string(),
            found: version,
            supported: VERSION,
        });
    }
    let segment = u64_at(bytes, 12);
    let mut records = Vec::new();
    let mut at = FILE_HEADER;
    let mut torn = None;
    let zeros = |b: &[u8]| b.iter().all(|&b| b == 0);
    while at < bytes.len() {
        let rest = &bytes[at..];
        let tail = |why: &str| -> Result<Option<(u64, String)>> {
            if newest {
                Ok(Some((at as u64, why.to_string())))
            } else {
                Err(corrupt(
                    at,
                    format!("{why} in a log segment that is not the newest"),
                ))
            }
        };
        if zeros(rest) {
            if !newest {
                return Err(corrupt(
                    at,
                    "zero bytes after the last record in a log segment that is not the \
                     newest"
                        .into(),
                ));
            }
            break;
        }
        if rest.len() < RECORD_HEADER {
            torn = tail("the record header is cut off")?;
            break;
        }
        let len_bytes: [u8; 8] = array(rest);
        if crc32c::crc32c(&len_bytes) != u32_at(rest, 8) {
            if newest && zeros(&rest[RECORD_HEADER..]) {
                torn = tail("the last record's header is incomplete")?;
                break;
            }
            return Err(corrupt(at, "record length checksum does not match".into()));
        }
        let len = u64::from_le_bytes(len_bytes);
        let available = (rest.len() - RECORD_HEADER) as u64;
        if len > available {
            torn = tail("the record runs past the end of the file")?;
            break;
        }
        let end = RECORD_HEADER + len as usize;
        let payload = &rest[RECORD_HEADER..end];
        if crc32c::crc32c(payload) != u32_at(rest, 12) {
            if zeros(&rest[end..]) {
                torn = tail("the last record's checksum does not match")?;
                break;
            }
            return Err(corrupt(at, "record checksum does not match".into()));
        }
        match record::decode(payload) {
            Ok(rec) => records.push((at as u64, rec)),
            Err(bad) => {
                return Err(corrupt(
                    at + RECORD_HEADER + bad.at,
                    format!("record at offset {at}: {}", bad.what),
                ))
            }
        }
        at += end;
    }
    let valid_end = torn.as_ref().map_or(at as u64, |t| t.0);
    Ok(Scan {
        segment,
        records,
        valid_end,
        torn,
    })
}

/// The bytes of segment `number` holding one record per timestamp in
/// `ts`, each inserting vertex `[ts]`, and each record's end offset: a
/// fixture for the log's tests.
#[cfg(test)]
pub(crate) fn test_segment(number: u64, ts: std::ops::Range<u64>) -> (Vec<u8>, Vec<usize>) {
    let mut b = file_header(number).to_vec();
    let mut ends = Vec::new();
    for k in ts {
        let at = open_record(&mut b);
        record::encode_insert_vertices(&mut b, k, &[k]);
        seal_record(&mut b, at);
        ends.push(b.len());
    }
    (b, ends)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Segment 3 with records inserting vertices `[k]` at ts k for k in
    /// 1..=n, and each record's end offset.
    fn segment(n: u64) -> (Vec<u8>, Vec<usize>) {
        test_segment(3, 1..n + 1)
    }

    fn ts_of(scan: &Scan) -> Vec<u64> {
        scan.records.iter().filter_map(|(_, r)| r.ts()).collect()
    }

    #[test]
    fn reads_back_what_was_framed() {
        let (b, ends) = segment(4);
        let scan = scan_bytes(&b, "w", false).unwrap();
        assert_eq!(scan.segment, 3);
        assert_eq!(ts_of(&scan), vec![1, 2, 3, 4]);
        assert_eq!(scan.valid_end as usize, *ends.last().unwrap());
        assert!(scan.torn.is_none());
    }

    #[test]
    fn every_cut_of_the_newest_segment_keeps_exactly_the_whole_records() {
        let (b, ends) = segment(4);
        for len in FILE_HEADER..=b.len() {
            let scan = scan_bytes(&b[..len], "w", true).unwrap();
            let whole = ends.iter().filter(|&&e| e <= len).count() as u64;
            assert_eq!(ts_of(&scan), (1..=whole).collect::<Vec<_>>(), "cut {len}");
            assert_eq!(
                scan.torn.is_some(),
                !ends.contains(&len) && len > FILE_HEADER
            );
        }
        for len in 0..FILE_HEADER {
            let scan = scan_bytes(&b[..len], "w", true).unwrap();
            assert!(scan.records.is_empty());
        }
    }

    #[test]
    fn a_cut_in_an_older_segment_is_damage() {
        let (b, ends) = segment(2);
        let err = scan_bytes(&b[..ends[1] - 1], "w", false).unwrap_err();
        assert!(
            matches!(err, Error::Corrupt { offset, .. } if offset == ends[0] as u64),
            "{err}"
        );
    }

    #[test]
    fn zero_fill_after_the_last_record_ends_the_newest_segment() {
        let (mut b, ends) = segment(2);
        b.extend_from_slice(&[0u8; 100]);
        let scan = scan_bytes(&b, "w", true).unwrap();
        assert_eq!(ts_of(&scan), vec![1, 2]);
        assert_eq!(scan.valid_end as usize, ends[1]);
        assert!(scan.torn.is_none());
        let err = scan_bytes(&b, "w", false).unwrap_err();
        assert!(
            matches!(err, Error::Corrupt { offset, .. } if offset == ends[1] as u64),
            "{err}"
        );
    }

    /// A record cut off anywhere while it was written into zero-filled
    /// space: the whole records before it survive, it is dropped as torn.
    #[test]
    fn every_cut_into_zero_fill_keeps_exactly_the_whole_records() {
        let (b, ends) = segment(4);
        for len in FILE_HEADER..=b.len() {
            let mut f = b[..len].to_vec();
            f.resize(b.len() + 64, 0);
            let scan = scan_bytes(&f, "w", true).unwrap();
            // A record whose cut-off bytes were zeros anyway is whole.
            let intact = |e: usize| e <= len || b[len..e].iter().all(|&x| x == 0);
            let whole: Vec<usize> = ends.iter().copied().filter(|&e| intact(e)).collect();
            let expected: Vec<u64> = (1..=whole.len() as u64).collect();
            assert_eq!(ts_of(&scan), expected, "cut {len}");
            let last_end = whole.last().copied().unwrap_or(FILE_HEADER);
            assert_eq!(scan.valid_end as usize, last_end, "cut {len}");
            let torn = last_end < len && b[last_end..len].iter().any(|&x| x != 0);
            assert_eq!(scan.torn.is_some(), torn, "cut {len}");
        }
    }

    /// In zero-filled space a flipped bit after the last record is found as
    /// damage unless it lies in where the next header goes (then it reads
    /// as a torn header); a flip inside a record followed by zeros drops it.
    #[test]
    fn a_bit_flip_in_zero_fill_is_found_or_reads_as_a_torn_header() {
        let (mut b, ends) = segment(2);
        b.resize(ends[1] + 64, 0);
        for i in ends[1]..b.len() {
            let mut f = b.clone();
            f[i] ^= 0x10;
            match scan_bytes(&f, "w", true) {
                Ok(scan) => {
                    assert!(i < ends[1] + RECORD_HEADER, "byte {i}");
                    assert_eq!(ts_of(&scan), vec![1, 2], "byte {i}");
                    assert!(scan.torn.is_some());
                }
                Err(Error::Corrupt { offset, .. }) => {
                    assert!(i >= ends[1] + RECORD_HEADER, "byte {i}");
                    assert_eq!(offset as usize, ends[1]);
                }
                Err(e) => panic!("byte {i}: {e}"),
            }
        }
    }

    /// Every bit flip either is found (an error naming an offset inside the
    /// damaged record or header) or, in the newest segment's last record,
    /// drops exactly that record. No flip yields a wrong record.
    #[test]
    fn every_bit_flip_is_found_or_drops_only_the_last_record() {
        let (b, ends) = segment(3);
        for i in 0..b.len() {
            for bit in 0..8 {
                let mut f = b.clone();
                f[i] ^= 1 << bit;
                match scan_bytes(&f, "w", true) {
                    Ok(scan) => {
                        assert!(i >= ends[1], "byte {i} bit {bit}: accepted");
                        assert_eq!(ts_of(&scan), vec![1, 2], "byte {i} bit {bit}");
                    }
                    Err(Error::Corrupt { offset, .. }) => {
                        let rec_start = if i < FILE_HEADER {
                            0
                        } else {
                            std::iter::once(FILE_HEADER)
                                .chain(ends.iter().copied())
                                .filter(|&e| e <= i)
                                .max()
                                .unwrap()
                        };
                        assert!(
                            offset as usize >= rec_start && offset as usize <= i.max(20),
                            "byte {i} bit {bit}: offset {offset}"
                        );
                    }
                    Err(Error::UnsupportedFormat { .. }) => assert!((8..12).contains(&i)),
                    Err(e) => panic!("byte {i} bit {bit}: {e}"),
                }
            }
        }
    }
}
