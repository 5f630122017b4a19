//! The manifest of an on-disk store: which run files are live, how far the
//! vertex file goes and which vertices do not exist, and the settings the
//! store was created with.
//!
//! It is rewritten whole after every flush and compaction (a new file
//! renamed over the old one, so a crash leaves one or the other). What
//! grows with the graph is not in it: the external ids are in the
//! append-only vertex file (`vertex_file.rs`), and existence is listed as
//! the ranges of ids that do not exist, so a manifest costs in proportion
//! to runs, log segments and deleted vertices. Layout (little-endian,
//! documented in `docs/FORMAT.md`):
//!
//! ```text
//! magic "SGMANIF\x01" | version u32 | flags u32 (bit 0: directed, bit 1:
//!     vertices named by string keys)
//! last_ts u64 | next_run u64 | vertices u64 | runs u64
//! vertex file bytes u64 | dead ranges u64 | dead ranges x (first u32,
//!     count u32), ascending and apart (version 6; versions 1 to 5 list
//!     vertices x (external id u64, alive u8) here instead)
//! runs x (run id u64, cut u64, has_in u8, level u8)
//!     L0 runs newest first, then level parts by level and vertex range
//!     (version 1, before levels, had no level byte: all runs were L0)
//! totals: 7 x u64 (edge versions written, log bytes, level bytes written,
//!     flushes, compactions, stalls, nanoseconds stalled) since the store
//!     was created (version 3; versions 1 and 2 read as zeros)
//! log: segments u64, then segments x (number u64, length u64): the log
//!     segments holding commits this manifest does not, oldest first,
//!     each sealed with that length, and last the one being appended to
//!     (length 0: still growing) (version 4; before it, nothing recorded)
//! props: files u64 (0 or 1), then (id u64, cut u64): the properties file
//!     holding every label and property as of the cut (version 5)
//! crc32c u32 of everything before it
//! ```

use crate::direction::Direction;
use crate::error::{Error, Result};
use crate::util::files::{io_error, write_atomically};
use crate::util::le::{u32_at, u64_at};
use crate::vertex_file;
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"SGMANIF\x01";
/// The manifest format this build writes (it also reads versions 1 to 5).
pub(crate) const VERSION: u32 = 6;
const FLAG_DIRECTED: u32 = 1;
const FLAG_STRING_IDS: u32 = 2;
const FIXED: usize = 8 + 4 + 4 + 8 * 4;
/// Bytes of the totals block (version 3).
const TOTALS: usize = 7 * 8;
/// The manifest's file name inside a store directory.
pub(crate) const FILE: &str = "MANIFEST";

/// One run's files: `run-<id>-out.seg` and, for directed graphs,
/// `run-<id>-in.seg`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RunFiles {
    pub id: u64,
    pub cut: u64,
    pub has_in: bool,
    /// 0 for an L0 run, `i` for a part of level `Li`.
    pub level: u8,
}

impl RunFiles {
    /// The file of one direction of this run inside `dir`.
    pub(crate) fn path(dir: &Path, id: u64, side: Direction) -> PathBuf {
        dir.join(format!("run-{id:08}-{}.seg", side.name()))
    }
}

/// A log segment a manifest counts on for the commits after its cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LogSegment {
    pub number: u64,
    /// The length it was sealed with; `None` for the segment that was being
    /// appended to (only its header was known to be synced).
    pub sealed_len: Option<u64>,
}

/// Everything a store needs besides its run files to reopen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Manifest {
    pub directed: bool,
    /// Whether the store names vertices by string keys (`keys.rs`).
    pub string_ids: bool,
    /// The newest commit the runs hold; the clock resumes after it.
    pub last_ts: u64,
    /// The id the next run file gets.
    pub next_run: u64,
    /// Every internal id assigned by `last_ts`, and which exist there.
    pub vertices: VertexTable,
    /// Live runs, newest first.
    pub runs: Vec<RunFiles>,
    /// The store's work since it was created, as of this manifest.
    pub totals: Totals,
    /// The log segments the store needs besides its runs (`None`: written
    /// before manifests recorded them).
    pub log: Option<Vec<LogSegment>>,
    /// The properties file (`props/file.rs`): its id and the cut whose
    /// labels and properties it holds; `None` if none was ever set.
    pub props: Option<PropsFile>,
}

/// The vertex table a manifest lists: internal ids `0..len`, where their
/// external ids are, and which of them do not exist at its `last_ts`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct VertexTable {
    pub len: u32,
    pub ids: VertexIds,
    /// The ids that do not exist, as (first, count) ranges, ascending,
    /// non-empty and apart. Most stores delete few vertices, so this is
    /// short where a bit or a byte per vertex would not be.
    pub dead: Vec<(u32, u32)>,
}

/// Where a manifest's external ids are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum VertexIds {
    /// In the manifest itself, in internal id order (versions 1 to 5).
    Listed(Vec<u64>),
    /// In the first `bytes` bytes of the vertex file (version 6).
    File { bytes: u64 },
}

impl Default for VertexIds {
    fn default() -> Self {
        VertexIds::File { bytes: 0 }
    }
}

impl VertexTable {
    /// Hands `each(internal, external)` every id in order, from the
    /// manifest or from the vertex file in `dir`; damage there is
    /// `Corrupt`, and an error from `each` stops the read.
    pub(crate) fn each_external(
        &self,
        dir: &Path,
        mut each: impl FnMut(u32, u64) -> Result<()>,
    ) -> Result<()> {
        match &self.ids {
            VertexIds::Listed(ids) => ids
                .iter()
                .enumerate()
                .try_for_each(|(v, &ext)| each(v as u32, ext)),
            VertexIds::File { bytes } => vertex_file::read(dir, *bytes, self.len, each),
        }
    }

    /// The ids that exist, ascending.
    pub(crate) fn alive(&self) -> impl Iterator<Item = u32> + '_ {
        let dead = self
            .dead
            .iter()
            .map(|&(first, count)| (first, first + count));
        dead.chain(std::iter::once((self.len, self.len)))
            .scan(0, |from, (first, end)| {
                let live = *from..first;
                *from = end;
                Some(live)
            })
            .flatten()
    }

    /// The dead ranges of the first `len` ids of existence bits, 64 to a
    /// word (bit `b` of word `i` for id `64 * i + b`), as `dead_of` gives
    /// them, a run of dead ids at a time rather than one id.
    pub(crate) fn dead_of_words(alive: impl Iterator<Item = u64>, len: u32) -> Vec<(u32, u32)> {
        let mut dead: Vec<(u32, u32)> = Vec::new();
        for (i, word) in alive.enumerate() {
            let base = i as u32 * 64;
            if base >= len {
                break;
            }
            let valid = len - base;
            let mut rest = if valid >= 64 {
                !word
            } else {
                !word & ((1u64 << valid) - 1)
            };
            while rest != 0 {
                let start = rest.trailing_zeros();
                let run = (rest >> start).trailing_ones();
                let first = base + start;
                match dead.last_mut() {
                    Some((f, count)) if *f + *count == first => *count += run,
                    _ => dead.push((first, run)),
                }
                rest &= if run == 64 {
                    0
                } else {
                    !(((1u64 << run) - 1) << start)
                };
            }
        }
        dead
    }

    /// The dead ranges of per-id existence flags.
    pub(crate) fn dead_of(alive: impl Iterator<Item = bool>) -> Vec<(u32, u32)> {
        let mut dead: Vec<(u32, u32)> = Vec::new();
        for (v, a) in alive.enumerate() {
            if a {
                continue;
            }
            match dead.last_mut() {
                Some((first, count)) if *first + *count == v as u32 => *count += 1,
                _ => dead.push((v as u32, 1)),
            }
        }
        dead
    }
}

/// The properties file a manifest names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PropsFile {
    pub id: u64,
    pub cut: u64,
}

/// What a store has done since it was created, kept in its manifest so
/// that write amplification and the compaction and stall counters cover
/// the store's whole life, not one session (`Stats::lifetime`). Work after
/// the last manifest (written at every flush, compaction and close) is
/// counted once a later one is written: a killed process loses at most
/// that part of the counts, never data.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Edge versions callers wrote (two per edge write: both directions).
    pub versions: u64,
    /// Bytes appended to the write-ahead log.
    pub log_bytes: u64,
    /// Bytes of level files written by flushes and compactions.
    pub level_bytes_written: u64,
    /// Flushes that wrote a run.
    pub flushes: u64,
    /// Compactions (runs merged into one).
    pub compactions: u64,
    /// Writers that waited for a background flush.
    pub stalls: u64,
    /// Nanoseconds those writers waited, in all.
    pub stall_nanos: u64,
}

impl Totals {
    /// Bytes written to files (log and levels) per byte of edge data
    /// callers wrote (24 bytes an edge: source, destination, weight); 0.0
    /// before any write.
    pub fn write_amplification(&self) -> f64 {
        let user_bytes = self.versions as f64 / 2.0 * 24.0;
        if user_bytes > 0.0 {
            (self.level_bytes_written + self.log_bytes) as f64 / user_bytes
        } else {
            0.0
        }
    }

    /// `stall_nanos` in seconds.
    pub fn stall_seconds(&self) -> f64 {
        self.stall_nanos as f64 * 1e-9
    }

    /// Both counts added, field by field (saturating: counters, not money).
    pub(crate) fn plus(&self, o: &Totals) -> Totals {
        Totals {
            versions: self.versions.saturating_add(o.versions),
            log_bytes: self.log_bytes.saturating_add(o.log_bytes),
            level_bytes_written: self
                .level_bytes_written
                .saturating_add(o.level_bytes_written),
            flushes: self.flushes.saturating_add(o.flushes),
            compactions: self.compactions.saturating_add(o.compactions),
            stalls: self.stalls.saturating_add(o.stalls),
            stall_nanos: self.stall_nanos.saturating_add(o.stall_nanos),
        }
    }

    fn words(&self) -> [u64; 7] {
        [
            self.versions,
            self.log_bytes,
            self.level_bytes_written,
            self.flushes,
            self.compactions,
            self.stalls,
            self.stall_nanos,
        ]
    }
}

impl Manifest {
    /// The level files this manifest names, inside `dir`: every other run
    /// file there is an orphan.
    pub(crate) fn run_paths(&self, dir: &Path) -> std::collections::HashSet<PathBuf> {
        self.runs
            .iter()
            .flat_map(|r| {
                let inn = r.has_in.then(|| RunFiles::path(dir, r.id, Direction::In));
                std::iter::once(RunFiles::path(dir, r.id, Direction::Out)).chain(inn)
            })
            .collect()
    }

    /// The bytes of the manifest. A store always writes the current
    /// version, with its ids in the vertex file; a table whose ids are
    /// listed (read from an older manifest) is written as version 5, the
    /// last that lists them, which only tests do.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let table = &self.vertices;
        let n_vertices = table.len as usize;
        let version = match table.ids {
            VertexIds::File { .. } => VERSION,
            VertexIds::Listed(_) => 5,
        };
        let mut b = Vec::with_capacity(
            FIXED + 16 + table.dead.len() * 8 + self.runs.len() * 18 + TOTALS + 4,
        );
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&version.to_le_bytes());
        let flags = if self.directed { FLAG_DIRECTED } else { 0 }
            | if self.string_ids { FLAG_STRING_IDS } else { 0 };
        b.extend_from_slice(&flags.to_le_bytes());
        for n in [
            self.last_ts,
            self.next_run,
            n_vertices as u64,
            self.runs.len() as u64,
        ] {
            b.extend_from_slice(&n.to_le_bytes());
        }
        match &table.ids {
            VertexIds::File { bytes } => {
                b.extend_from_slice(&bytes.to_le_bytes());
                b.extend_from_slice(&(table.dead.len() as u64).to_le_bytes());
                for &(first, count) in &table.dead {
                    b.extend_from_slice(&first.to_le_bytes());
                    b.extend_from_slice(&count.to_le_bytes());
                }
            }
            VertexIds::Listed(ids) => {
                let mut alive = vec![true; n_vertices];
                for &(first, count) in &table.dead {
                    alive[first as usize..(first + count) as usize].fill(false);
                }
                for (ext, alive) in ids.iter().zip(alive) {
                    b.extend_from_slice(&ext.to_le_bytes());
                    b.push(u8::from(alive));
                }
            }
        }
        for r in &self.runs {
            b.extend_from_slice(&r.id.to_le_bytes());
            b.extend_from_slice(&r.cut.to_le_bytes());
            b.push(u8::from(r.has_in));
            b.push(r.level);
        }
        for n in self.totals.words() {
            b.extend_from_slice(&n.to_le_bytes());
        }
        let log = self.log.as_deref().unwrap_or(&[]);
        b.extend_from_slice(&(log.len() as u64).to_le_bytes());
        for s in log {
            b.extend_from_slice(&s.number.to_le_bytes());
            b.extend_from_slice(&s.sealed_len.unwrap_or(0).to_le_bytes());
        }
        b.extend_from_slice(&u64::from(self.props.is_some()).to_le_bytes());
        if let Some(p) = self.props {
            b.extend_from_slice(&p.id.to_le_bytes());
            b.extend_from_slice(&p.cut.to_le_bytes());
        }
        let crc = crc32c::crc32c(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decodes a manifest read from `file` (named in errors).
    pub(crate) fn decode(bytes: &[u8], file: &str) -> Result<Manifest> {
        let corrupt = |offset: usize, what: &str| Error::Corrupt {
            file: file.to_string(),
            offset: offset as u64,
            what: what.to_string(),
        };
        if bytes.len() < FIXED + 4 {
            return Err(corrupt(bytes.len(), "shorter than a manifest header"));
        }
        if &bytes[..8] != MAGIC {
            return Err(corrupt(0, "not a stratagraph manifest (bad magic)"));
        }
        let body = bytes.len() - 4;
        let stored = u32_at(bytes, body);
        if crc32c::crc32c(&bytes[..body]) != stored {
            return Err(corrupt(
                body,
                "manifest checksum does not match its content",
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
        let flags = u32_at(bytes, 12);
        let word = |i: usize| u64_at(bytes, 16 + 8 * i);
        let (last_ts, next_run, n_vertices, n_runs) = (word(0), word(1), word(2), word(3));
        if n_vertices > u64::from(u32::MAX) {
            return Err(corrupt(32, "more vertices than internal ids can name"));
        }
        let run_len = if version == 1 { 17 } else { 18 };
        let totals_len = if version >= 3 { TOTALS } else { 0 };
        let vertex_block = if version >= 6 {
            if FIXED + 16 > body {
                return Err(corrupt(body, "shorter than its vertex block"));
            }
            16 + 8 * u128::from(u64_at(bytes, FIXED + 8))
        } else {
            u128::from(n_vertices) * 9
        };
        let need = vertex_block + (n_runs as u128) * run_len + (FIXED + totals_len) as u128;
        // Version 4 ends in the log block: its count, then 16 bytes each.
        let n_log = if version >= 4 && need + 8 <= body as u128 {
            u64_at(bytes, need as usize)
        } else {
            0
        };
        let need = if version >= 4 {
            need + 8 + (n_log as u128) * 16
        } else {
            need
        };
        // Version 5 ends in the properties block: 0 or 1, then (id, cut).
        let n_props = if version >= 5 && need + 8 <= body as u128 {
            u64_at(bytes, need as usize)
        } else {
            0
        };
        if n_props > 1 {
            return Err(corrupt(need as usize, "more than one properties file"));
        }
        let need = if version >= 5 {
            need + 8 + (n_props as u128) * 16
        } else {
            need
        };
        if need != body as u128 {
            return Err(corrupt(
                16 + 16,
                "vertex and run counts do not match the manifest's length",
            ));
        }
        let mut at = FIXED;
        let len = n_vertices as u32;
        let vertices = if version >= 6 {
            let (file_bytes, n_dead) = (u64_at(bytes, at), u64_at(bytes, at + 8));
            if (len == 0) != (file_bytes == 0)
                || (file_bytes != 0 && file_bytes < vertex_file::HEADER as u64)
            {
                return Err(corrupt(
                    at,
                    "the vertex file's length does not fit the number of vertices",
                ));
            }
            at += 16;
            let mut dead: Vec<(u32, u32)> = Vec::with_capacity(n_dead as usize);
            for _ in 0..n_dead {
                let (first, count) = (u32_at(bytes, at), u32_at(bytes, at + 4));
                let after_last = dead.last().map(|&(f, c)| u64::from(f) + u64::from(c));
                if count == 0
                    || after_last.is_some_and(|end| u64::from(first) <= end)
                    || u64::from(first) + u64::from(count) > n_vertices
                {
                    return Err(corrupt(
                        at,
                        "dead vertex ranges are empty, out of order, touching or past the vertices",
                    ));
                }
                dead.push((first, count));
                at += 8;
            }
            VertexTable {
                len,
                ids: VertexIds::File { bytes: file_bytes },
                dead,
            }
        } else {
            let mut ids = Vec::with_capacity(n_vertices as usize);
            let mut alive = Vec::with_capacity(n_vertices as usize);
            for _ in 0..n_vertices {
                ids.push(u64_at(bytes, at));
                alive.push(match bytes[at + 8] {
                    0 => false,
                    1 => true,
                    _ => return Err(corrupt(at + 8, "vertex flag is neither 0 nor 1")),
                });
                at += 9;
            }
            VertexTable {
                len,
                ids: VertexIds::Listed(ids),
                dead: VertexTable::dead_of(alive.into_iter()),
            }
        };
        let mut runs = Vec::with_capacity(n_runs as usize);
        for _ in 0..n_runs {
            let id = u64_at(bytes, at);
            let cut = u64_at(bytes, at + 8);
            let has_in = match bytes[at + 16] {
                0 => false,
                1 => true,
                _ => return Err(corrupt(at + 16, "run flag is neither 0 nor 1")),
            };
            if id >= next_run || cut > last_ts {
                return Err(corrupt(at, "run id or cut beyond the manifest's counters"));
            }
            let level = if version == 1 { 0 } else { bytes[at + 17] };
            if runs.last().is_some_and(|r: &RunFiles| r.level > level) {
                return Err(corrupt(at + 17, "runs are not listed level by level"));
            }
            runs.push(RunFiles {
                id,
                cut,
                has_in,
                level,
            });
            at += run_len as usize;
        }
        let mut totals = Totals::default();
        if version >= 3 {
            let w = |i: usize| u64_at(bytes, at + 8 * i);
            totals = Totals {
                versions: w(0),
                log_bytes: w(1),
                level_bytes_written: w(2),
                flushes: w(3),
                compactions: w(4),
                stalls: w(5),
                stall_nanos: w(6),
            };
            at += TOTALS;
        }
        let log = (version >= 4)
            .then(|| -> Result<Vec<LogSegment>> {
                at += 8;
                let mut log = Vec::with_capacity(n_log as usize);
                for k in 0..n_log {
                    let number = u64_at(bytes, at);
                    let len = u64_at(bytes, at + 8);
                    if log.last().is_some_and(|p: &LogSegment| p.number >= number) {
                        return Err(corrupt(at, "log segments are not in ascending order"));
                    }
                    let last = k + 1 == n_log;
                    if (len == 0) != last {
                        return Err(corrupt(
                            at + 8,
                            "only the last log segment listed may be open (length 0)",
                        ));
                    }
                    log.push(LogSegment {
                        number,
                        sealed_len: (len > 0).then_some(len),
                    });
                    at += 16;
                }
                Ok(log)
            })
            .transpose()?;
        let mut props = None;
        if version >= 5 {
            at += 8;
            if n_props == 1 {
                let (id, cut) = (u64_at(bytes, at), u64_at(bytes, at + 8));
                if id >= next_run || cut > last_ts {
                    return Err(corrupt(
                        at,
                        "properties file id or cut beyond the manifest's counters",
                    ));
                }
                props = Some(PropsFile { id, cut });
            }
        }
        Ok(Manifest {
            directed: flags & FLAG_DIRECTED != 0,
            string_ids: flags & FLAG_STRING_IDS != 0,
            last_ts,
            next_run,
            vertices,
            runs,
            totals,
            log,
            props,
        })
    }

    /// Writes the manifest into `dir`, replacing the old one atomically.
    pub(crate) fn write(&self, dir: &Path) -> Result<()> {
        let bytes = self.encode();
        write_atomically(&dir.join(FILE), |f| {
            f.write_all(&bytes).map_err(|e| (e, "write"))
        })
    }

    /// Reads the manifest of `dir`; `None` if the directory has none.
    pub(crate) fn read(dir: &Path) -> Result<Option<Manifest>> {
        let path = dir.join(FILE);
        match std::fs::read(&path) {
            Ok(bytes) => Manifest::decode(&bytes, &path.display().to_string()).map(Some),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(io_error(&path, "read", &e)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            directed: true,
            string_ids: false,
            last_ts: 42,
            next_run: 7,
            vertices: VertexTable {
                len: 3,
                ids: VertexIds::File { bytes: 64 },
                dead: vec![(1, 1)],
            },
            runs: vec![
                RunFiles {
                    id: 6,
                    cut: 42,
                    has_in: true,
                    level: 0,
                },
                RunFiles {
                    id: 2,
                    cut: 20,
                    has_in: true,
                    level: 1,
                },
                RunFiles {
                    id: 3,
                    cut: 30,
                    has_in: true,
                    level: 1,
                },
            ],
            totals: Totals {
                versions: 1000,
                log_bytes: 40_000,
                level_bytes_written: 70_000,
                flushes: 5,
                compactions: 2,
                stalls: 1,
                stall_nanos: 123_456,
            },
            log: Some(vec![
                LogSegment {
                    number: 4,
                    sealed_len: Some(4096),
                },
                LogSegment {
                    number: 5,
                    sealed_len: None,
                },
            ]),
            props: Some(PropsFile { id: 5, cut: 40 }),
        }
    }

    /// `sample` with its external ids listed, as versions 1 to 5 keep them.
    fn sample_listed() -> Manifest {
        let mut m = sample();
        m.vertices.ids = VertexIds::Listed(vec![10, u64::MAX, 3]);
        m
    }

    /// `sample` as the version 2 format had it: no totals block, no log.
    fn version_2_bytes() -> Vec<u8> {
        let mut b = sample_listed().encode();
        let body = b.len() - 4 - TOTALS - 8 - 2 * 16 - 8 - 16;
        b.truncate(body);
        b[8..12].copy_from_slice(&2u32.to_le_bytes());
        let crc = crc32c::crc32c(&b);
        b.extend_from_slice(&crc.to_le_bytes());
        b
    }

    #[test]
    fn reads_a_version_2_manifest_with_zero_totals() {
        let m = Manifest::decode(&version_2_bytes(), "m").unwrap();
        assert_eq!(m.totals, Totals::default());
        assert_eq!(
            m,
            Manifest {
                totals: Totals::default(),
                log: None,
                props: None,
                ..sample_listed()
            }
        );
    }

    #[test]
    fn reads_a_version_5_manifest_with_its_listed_ids() {
        let b = sample_listed().encode();
        assert_eq!(u32_at(&b, 8), 5);
        let m = Manifest::decode(&b, "m").unwrap();
        assert_eq!(m, sample_listed());
        let mut seen = Vec::new();
        m.vertices
            .each_external(Path::new("."), |v, ext| {
                seen.push((v, ext));
                Ok(())
            })
            .unwrap();
        assert_eq!(seen, [(0, 10), (1, u64::MAX), (2, 3)]);
        assert_eq!(m.vertices.alive().collect::<Vec<_>>(), [0, 2]);
    }

    /// Dead ranges from words of bits agree with the ones from flags, on
    /// random words of every density, across word edges and lengths that
    /// end mid-word.
    #[test]
    fn dead_ranges_of_words_equal_those_of_flags() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..400 {
            let words: Vec<u64> = (0..1 + round % 7)
                .map(|_| match next() % 5 {
                    0 => 0,
                    1 => u64::MAX,
                    2 => next() & next(),
                    3 => next() | next(),
                    _ => next(),
                })
                .collect();
            let len = (words.len() as u32 * 64).saturating_sub((next() % 70) as u32);
            let flags = (0..len).map(|v| words[(v / 64) as usize] >> (v % 64) & 1 == 1);
            assert_eq!(
                VertexTable::dead_of_words(words.iter().copied(), len),
                VertexTable::dead_of(flags),
                "round {round} len {len} words {words:x?}"
            );
        }
    }

    #[test]
    fn dead_ranges_round_trip_and_bad_ones_are_refused() {
        let flags = [false, false, true, false, true, true, false, false];
        let dead = VertexTable::dead_of(flags.iter().copied());
        assert_eq!(dead, [(0, 2), (3, 1), (6, 2)]);
        let table = VertexTable {
            len: 8,
            ids: VertexIds::File { bytes: 100 },
            dead,
        };
        assert_eq!(table.alive().collect::<Vec<_>>(), [2, 4, 5]);
        let m = Manifest {
            vertices: table.clone(),
            ..sample()
        };
        assert_eq!(Manifest::decode(&m.encode(), "m").unwrap(), m);
        // Overlapping, touching, empty, or past the vertices: refused even
        // with a good checksum.
        for bad in [
            vec![(0, 3), (2, 1)],
            vec![(0, 2), (2, 1)],
            vec![(0, 0)],
            vec![(6, 3)],
        ] {
            let m = Manifest {
                vertices: VertexTable {
                    dead: bad.clone(),
                    ..table.clone()
                },
                ..sample()
            };
            let err = Manifest::decode(&m.encode(), "m").unwrap_err();
            assert!(
                err.to_string().contains("dead vertex ranges"),
                "{bad:?}: {err}"
            );
        }
        // Vertices without a vertex file, or a file without vertices.
        for (len, bytes) in [(8, 0), (0, 100), (8, 5)] {
            let m = Manifest {
                vertices: VertexTable {
                    len,
                    ids: VertexIds::File { bytes },
                    dead: Vec::new(),
                },
                ..sample()
            };
            let err = Manifest::decode(&m.encode(), "m").unwrap_err();
            assert!(
                err.to_string().contains("vertex file"),
                "{len} {bytes}: {err}"
            );
        }
    }

    #[test]
    fn write_amplification_counts_log_and_levels_per_edge_byte() {
        // 1000 versions = 500 edges = 12000 bytes; 110000 bytes written.
        let wa = sample().totals.write_amplification();
        assert!((wa - 110_000.0 / 12_000.0).abs() < 1e-12, "{wa}");
        assert_eq!(Totals::default().write_amplification(), 0.0);
    }

    #[test]
    fn round_trips_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), None);
        let m = sample();
        m.write(dir.path()).unwrap();
        assert_eq!(Manifest::read(dir.path()).unwrap(), Some(m));
    }

    #[test]
    fn every_truncation_and_bit_flip_is_refused_without_panicking() {
        for bytes in [sample().encode(), sample_listed().encode()] {
            refuses_every_truncation_and_bit_flip(&bytes);
        }
    }

    fn refuses_every_truncation_and_bit_flip(bytes: &[u8]) {
        for len in 0..bytes.len() {
            let err = Manifest::decode(&bytes[..len], "m").unwrap_err();
            assert!(matches!(err, Error::Corrupt { .. }), "len {len}: {err}");
        }
        for i in 0..bytes.len() {
            for bit in 0..8 {
                let mut b = bytes.to_vec();
                b[i] ^= 1 << bit;
                let err = Manifest::decode(&b, "m").unwrap_err();
                assert!(
                    matches!(err, Error::Corrupt { .. } | Error::UnsupportedFormat { .. }),
                    "byte {i} bit {bit}: {err}"
                );
            }
        }
    }
}
