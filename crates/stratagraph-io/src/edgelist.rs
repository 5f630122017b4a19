//! The edge-list text format: one grammar and one parser, for
//! `stratagraph load` and `stratagraph.read_edgelist` alike.
//!
//! # Grammar
//!
//! - The file is plain text or gzip, told apart by its first two bytes (the
//!   gzip magic), never by its name. A gzip file may hold several members.
//! - Lines end with LF or CRLF; the last line may lack one.
//! - A comment starts at a comment marker (`#` or `%` unless the caller
//!   chooses others) anywhere on a line and runs to the line's end. Blank
//!   and comment-only lines are skipped.
//! - Fields are separated by runs of spaces and tabs, in any mix.
//! - An edge line is `source destination [weight [more...]]`. Ids are
//!   decimal integers in `0..=2^64-1`. A weight is a finite decimal number
//!   (`0.5`, `-2`, `1e-3`); a line without one means weight 1.0, so weighted
//!   and unweighted lines may be mixed and no weight is ever dropped.
//!   Fields after the weight are ignored (KONECT files put a timestamp
//!   there).
//! - A vertex line (Graphalytics `.v` files) is `id [more...]`.
//!
//! A line that breaks a rule stops the read with an error naming the file,
//! the line, what was wrong and the line's text. When a batch is loaded
//! into a graph, nothing of a batch with a bad line is written, and an
//! engine refusal of one element (a self-loop the store forbids) names the
//! line it came from, not its position in the batch.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use flate2::bufread::MultiGzDecoder;
use stratagraph::Graph;

/// Why an edge list could not be read or loaded. Every variant names the
/// file, and every variant about content names the line.
#[derive(Debug, thiserror::Error)]
pub enum EdgeListError {
    /// The operating system could not open or read the file.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        source: std::io::Error,
    },
    /// The file is gzip but its stream is damaged or ends before its end
    /// marker (a truncated download, say).
    #[error("{}:{line}: the gzip stream {what}", path.display())]
    Compressed {
        /// The file.
        path: PathBuf,
        /// The line the stream broke in (1-based, of the decompressed text).
        line: u64,
        /// What the decoder found.
        what: String,
    },
    /// A line does not follow the grammar.
    #[error("{}:{line}: {what}: {text:?}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// The rule the line breaks.
        what: String,
        /// The line's text (shortened when long).
        text: String,
    },
    /// The store refused the record on this line (a self-loop the store
    /// forbids, for instance); nothing of its batch was written.
    #[error("{}:{line}: {source}", path.display())]
    Refused {
        /// The file.
        path: PathBuf,
        /// 1-based line number of the refused record.
        line: u64,
        /// The engine's refusal.
        source: stratagraph::Error,
    },
    /// The store failed while loading, not because of one record (a failed
    /// write to its log, say); nothing of the current batch was written.
    #[error("{}: loading stopped: {source}", path.display())]
    Store {
        /// The file being loaded.
        path: PathBuf,
        /// The engine's error.
        source: stratagraph::Error,
    },
}

impl EdgeListError {
    /// The engine's error, when the store refused or failed.
    pub fn engine_error(&self) -> Option<&stratagraph::Error> {
        match self {
            EdgeListError::Refused { source, .. } | EdgeListError::Store { source, .. } => {
                Some(source)
            }
            _ => None,
        }
    }
}

/// What the third column means.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Weights {
    /// A line's third column is its weight; a line without one has weight
    /// 1.0.
    #[default]
    PerLine,
    /// Every edge line must have a weight.
    Required,
    /// The caller asked for an unweighted graph: every edge has weight 1.0
    /// and the third column is ignored.
    Ignore,
}

/// What each line holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Records {
    /// `source destination [weight ...]`.
    #[default]
    Edges,
    /// `id ...` (a Graphalytics `.v` file).
    Vertices,
}

impl Records {
    /// Vertex lines for files named `*.v` (Graphalytics), edges otherwise.
    pub fn for_file(path: &Path) -> Records {
        if path.extension().is_some_and(|e| e == "v") {
            Records::Vertices
        } else {
            Records::Edges
        }
    }
}

/// The choices a caller may make within the grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grammar {
    /// Each marker starts a comment wherever it appears; empty: no
    /// comments.
    pub comments: Vec<Vec<u8>>,
    /// What the third column of an edge line means.
    pub weights: Weights,
    /// Edges or vertices.
    pub records: Records,
}

impl Default for Grammar {
    fn default() -> Self {
        Grammar {
            comments: vec![b"#".to_vec(), b"%".to_vec()],
            weights: Weights::PerLine,
            records: Records::Edges,
        }
    }
}

/// Counts the bytes read from the file, for progress bars, while a
/// decompressor or parser owns the reader.
struct Counted<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

/// Bytes of input buffered between the file and the parser.
const BUFFER: usize = 256 << 10;

/// An edge list being read, batch by batch.
pub struct Reader {
    path: PathBuf,
    input: Box<dyn BufRead + Send>,
    compressed: bool,
    grammar: Grammar,
    /// Lines read so far.
    line: u64,
    file_read: Arc<AtomicU64>,
    file_size: u64,
    text: Vec<u8>,
    edges: Vec<(u64, u64, f64)>,
    vertices: Vec<u64>,
    /// The line of each record in `edges` or `vertices`.
    lines: Vec<u64>,
}

impl Reader {
    /// Opens `path` (plain or gzip) to be read with `grammar`.
    pub fn open(path: impl AsRef<Path>, grammar: Grammar) -> Result<Reader, EdgeListError> {
        let path = path.as_ref().to_path_buf();
        let io = |source| EdgeListError::Io {
            path: path.clone(),
            source,
        };
        let file = std::fs::File::open(&path).map_err(io)?;
        let file_size = file.metadata().map_err(io)?.len();
        let file_read = Arc::new(AtomicU64::new(0));
        let mut raw = BufReader::with_capacity(
            BUFFER,
            Counted {
                inner: file,
                read: file_read.clone(),
            },
        );
        let compressed = raw.fill_buf().map_err(io)?.starts_with(&[0x1f, 0x8b]);
        let input: Box<dyn BufRead + Send> = if compressed {
            Box::new(BufReader::with_capacity(BUFFER, MultiGzDecoder::new(raw)))
        } else {
            Box::new(raw)
        };
        Ok(Reader {
            path,
            input,
            compressed,
            grammar,
            line: 0,
            file_read,
            file_size,
            text: Vec::new(),
            edges: Vec::new(),
            vertices: Vec::new(),
            lines: Vec::new(),
        })
    }

    /// The file being read.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Size of the file in bytes (compressed, for gzip).
    pub fn file_size(&self) -> u64 {
        self.file_size
    }

    /// Bytes of the file read so far (compressed, for gzip): with
    /// [`file_size`](Self::file_size), the progress of the read.
    pub fn bytes_read(&self) -> u64 {
        self.file_read.load(Ordering::Relaxed)
    }

    /// Lines read so far.
    pub fn lines_read(&self) -> u64 {
        self.line
    }

    /// Reads up to `max` edges into `out` (cleared first); returns how many
    /// (0 at the end of the file). Vertex records are read as
    /// `(id, id, 1.0)`: use [`load_batch`](Self::load_batch) for `.v` files.
    pub fn read_edges(
        &mut self,
        max: usize,
        out: &mut Vec<(u64, u64, f64)>,
    ) -> Result<usize, EdgeListError> {
        self.read_batch(max)?;
        out.clear();
        match self.grammar.records {
            Records::Edges => out.extend_from_slice(&self.edges),
            Records::Vertices => out.extend(self.vertices.iter().map(|&v| (v, v, 1.0))),
        }
        Ok(out.len())
    }

    /// Reads up to `max` records and inserts them into `g` as one atomic
    /// batch; returns how many (0 at the end of the file). A malformed line
    /// or a refused record writes nothing of the batch.
    pub fn load_batch(&mut self, g: &Graph, max: usize) -> Result<usize, EdgeListError> {
        let n = self.read_batch(max)?;
        if n == 0 {
            return Ok(0);
        }
        let written = match self.grammar.records {
            Records::Edges => g.insert_edges(&self.edges).map(drop),
            Records::Vertices => g.insert_vertices(&self.vertices).map(drop),
        };
        written.map_err(|source| {
            let path = self.path.clone();
            match source.batch_index().and_then(|i| self.lines.get(i)) {
                Some(&line) => EdgeListError::Refused { path, line, source },
                None => EdgeListError::Store { path, source },
            }
        })?;
        Ok(n)
    }

    /// Parses up to `max` records into `self.edges` or `self.vertices`.
    fn read_batch(&mut self, max: usize) -> Result<usize, EdgeListError> {
        self.edges.clear();
        self.vertices.clear();
        self.lines.clear();
        while self.lines.len() < max.max(1) {
            self.text.clear();
            let got = self.input.read_until(b'\n', &mut self.text);
            let got = got.map_err(|e| self.read_error(e))?;
            if got == 0 {
                break;
            }
            self.line += 1;
            self.parse_line()?;
        }
        Ok(self.lines.len())
    }

    fn read_error(&self, e: std::io::Error) -> EdgeListError {
        use std::io::ErrorKind as K;
        let decoder = matches!(
            e.kind(),
            K::UnexpectedEof | K::InvalidData | K::InvalidInput
        );
        if self.compressed && decoder {
            let what = if e.kind() == K::UnexpectedEof {
                "ends early (the file is truncated)".to_owned()
            } else {
                format!("is damaged ({e})")
            };
            EdgeListError::Compressed {
                path: self.path.clone(),
                line: self.line + 1,
                what,
            }
        } else {
            EdgeListError::Io {
                path: self.path.clone(),
                source: e,
            }
        }
    }

    /// Parses `self.text`, line `self.line`, adding its record if it has one.
    fn parse_line(&mut self) -> Result<(), EdgeListError> {
        let mut body = self.text.as_slice();
        for marker in &self.grammar.comments {
            if let Some(at) = find(body, marker) {
                body = &body[..at];
            }
        }
        let mut fields = body
            .split(|&b| b == b' ' || b == b'\t' || b == b'\r' || b == b'\n')
            .filter(|f| !f.is_empty());
        let Some(first) = fields.next() else {
            return Ok(());
        };
        let first = self.id(first, "the vertex id")?;
        if self.grammar.records == Records::Vertices {
            self.vertices.push(first);
            self.lines.push(self.line);
            return Ok(());
        }
        let Some(second) = fields.next() else {
            return Err(self.malformed("expected a source and a destination id, found one field"));
        };
        let second = self.id(second, "the destination id")?;
        let weight = match (self.grammar.weights, fields.next()) {
            (Weights::Ignore, _) | (Weights::PerLine, None) => 1.0,
            (Weights::Required, None) => {
                return Err(self.malformed("expected a weight in the third field"))
            }
            (_, Some(field)) => self.weight(field)?,
        };
        self.edges.push((first, second, weight));
        self.lines.push(self.line);
        Ok(())
    }

    fn id(&self, field: &[u8], what: &str) -> Result<u64, EdgeListError> {
        parse_id(field).ok_or_else(|| {
            self.malformed(&format!(
                "{what} {:?} is not an integer in 0..=18446744073709551615",
                shorten(field)
            ))
        })
    }

    fn weight(&self, field: &[u8]) -> Result<f64, EdgeListError> {
        let w = std::str::from_utf8(field)
            .ok()
            .and_then(|t| t.parse::<f64>().ok());
        match w {
            Some(w) if w.is_finite() => Ok(w),
            _ => Err(self.malformed(&format!(
                "the weight {:?} is not a finite number",
                shorten(field)
            ))),
        }
    }

    fn malformed(&self, what: &str) -> EdgeListError {
        EdgeListError::Malformed {
            path: self.path.clone(),
            line: self.line,
            what: what.to_owned(),
            text: shorten(self.text.trim_ascii()),
        }
    }
}

/// A decimal integer of digits only (no sign), or `None` if it is not one
/// or does not fit in a `u64`.
fn parse_id(field: &[u8]) -> Option<u64> {
    if field.is_empty() {
        return None;
    }
    field.iter().try_fold(0u64, |n, &b| {
        let digit = b.checked_sub(b'0').filter(|d| *d <= 9)?;
        n.checked_mul(10)?.checked_add(u64::from(digit))
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    match needle {
        [] => None,
        // The usual case (`#`, `%`): a byte scan, several times faster
        // than comparing windows.
        &[byte] => haystack.iter().position(|&b| b == byte),
        _ => haystack.windows(needle.len()).position(|w| w == needle),
    }
}

/// `text` for an error message: lossy UTF-8, at most 60 characters.
fn shorten(text: &[u8]) -> String {
    let text = String::from_utf8_lossy(text);
    match text.char_indices().nth(60) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text.into_owned(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use std::io::Write;

    fn file(dir: &tempfile::TempDir, name: &str, bytes: &[u8]) -> PathBuf {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path
    }

    fn gzip(text: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        enc.write_all(text).unwrap();
        enc.finish().unwrap()
    }

    fn edges(path: &Path, grammar: Grammar) -> Result<Vec<(u64, u64, f64)>, EdgeListError> {
        let mut r = Reader::open(path, grammar)?;
        let (mut all, mut batch) = (Vec::new(), Vec::new());
        while r.read_edges(2, &mut batch)? > 0 {
            all.extend_from_slice(&batch);
        }
        Ok(all)
    }

    fn err(path: &Path, grammar: Grammar) -> String {
        edges(path, grammar).unwrap_err().to_string()
    }

    #[test]
    fn comments_separators_line_ends_and_extra_columns() {
        let dir = tempfile::tempdir().unwrap();
        let text = b"% KONECT header\n# SNAP header\r\n1\t2 \t 0.5 1190000000\r\n\n  3 4 # trailing\n5 6%x\n7 8";
        let path = file(&dir, "g.txt", text);
        let got = edges(&path, Grammar::default()).unwrap();
        assert_eq!(
            got,
            [(1, 2, 0.5), (3, 4, 1.0), (5, 6, 1.0), (7, 8, 1.0)],
            "the timestamp column is ignored, comments end lines anywhere"
        );
    }

    #[test]
    fn weighted_and_unweighted_lines_mix_and_no_weight_is_dropped() {
        let dir = tempfile::tempdir().unwrap();
        let path = file(&dir, "g.txt", b"1 2\n3 4 0.5\n5 6 -2e-1\n");
        let got = edges(&path, Grammar::default()).unwrap();
        assert_eq!(got, [(1, 2, 1.0), (3, 4, 0.5), (5, 6, -0.2)]);
        let ignore = Grammar {
            weights: Weights::Ignore,
            ..Grammar::default()
        };
        assert_eq!(
            edges(&path, ignore).unwrap(),
            [(1, 2, 1.0), (3, 4, 1.0), (5, 6, 1.0)]
        );
        let required = Grammar {
            weights: Weights::Required,
            ..Grammar::default()
        };
        assert_eq!(
            err(&path, required),
            format!(
                "{}:1: expected a weight in the third field: \"1 2\"",
                path.display()
            )
        );
    }

    #[test]
    fn bad_values_name_the_file_and_line() {
        let dir = tempfile::tempdir().unwrap();
        let cases: &[(&[u8], &str)] = &[
            (
                b"1 2\n3 4 nan\n",
                "2: the weight \"nan\" is not a finite number",
            ),
            (
                b"1 2\n3 4 inf\n",
                "2: the weight \"inf\" is not a finite number",
            ),
            (b"1 2 x\n", "1: the weight \"x\" is not a finite number"),
            (b"# c\n\n1\n", "3: expected a source and a destination id"),
            (b"-1 2\n", "1: the vertex id \"-1\" is not an integer"),
            (b"1 +2\n", "1: the destination id \"+2\" is not an integer"),
            (
                b"18446744073709551616 1\n",
                "1: the vertex id \"18446744073709551616\" is not an integer",
            ),
            (b"1,2\n", "1: the vertex id \"1,2\" is not an integer"),
        ];
        for (text, want) in cases {
            let path = file(&dir, "bad.txt", text);
            let got = err(&path, Grammar::default());
            let want = format!("{}:{want}", path.display());
            assert!(
                got.starts_with(&want),
                "{got:?} does not start with {want:?}"
            );
        }
        let path = file(&dir, "max.txt", b"18446744073709551615 0\n");
        assert_eq!(
            edges(&path, Grammar::default()).unwrap(),
            [(u64::MAX, 0, 1.0)]
        );
    }

    #[test]
    fn gzip_is_told_by_its_content_and_may_hold_several_members() {
        let dir = tempfile::tempdir().unwrap();
        let mut bytes = gzip(b"1 2\n3 4 0.5\n");
        bytes.extend(gzip(b"5 6\n"));
        let path = file(&dir, "edges.bin", &bytes);
        assert_eq!(
            edges(&path, Grammar::default()).unwrap(),
            [(1, 2, 1.0), (3, 4, 0.5), (5, 6, 1.0)]
        );
        let plain = file(&dir, "plain.gz", b"7 8\n");
        assert_eq!(edges(&plain, Grammar::default()).unwrap(), [(7, 8, 1.0)]);
    }

    #[test]
    fn a_truncated_or_damaged_gzip_file_is_an_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let text: Vec<u8> = (0..20_000u64)
            .flat_map(|i| format!("{i} {}\n", i * 7 % 1000).into_bytes())
            .collect();
        let whole = gzip(&text);
        let cut = file(&dir, "cut.gz", &whole[..whole.len() / 2]);
        let e = edges(&cut, Grammar::default()).unwrap_err();
        assert!(
            matches!(e, EdgeListError::Compressed { .. }),
            "{e:?} is not a gzip error"
        );
        assert!(e.to_string().contains("ends early"), "{e}");
        assert!(e.to_string().starts_with(&cut.display().to_string()), "{e}");

        let mut damaged = whole.clone();
        for b in &mut damaged[20..60] {
            *b ^= 0x5a;
        }
        let damaged = file(&dir, "damaged.gz", &damaged);
        let e = edges(&damaged, Grammar::default()).unwrap_err();
        assert!(matches!(e, EdgeListError::Compressed { .. }), "{e:?}");
    }

    #[test]
    fn vertex_files_and_a_missing_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = file(&dir, "g.v", b"# ids\n4\n9 extra\n");
        assert_eq!(Records::for_file(&path), Records::Vertices);
        let grammar = Grammar {
            records: Records::Vertices,
            ..Grammar::default()
        };
        let g = Graph::in_memory(stratagraph::Options::default());
        let mut r = Reader::open(&path, grammar).unwrap();
        assert_eq!(r.load_batch(&g, 10).unwrap(), 2);
        assert_eq!(r.load_batch(&g, 10).unwrap(), 0);
        assert_eq!(g.snapshot().vertex_count(), 2);
        let missing = Reader::open(dir.path().join("none.txt"), Grammar::default());
        assert!(matches!(missing, Err(EdgeListError::Io { .. })));
    }

    #[test]
    fn a_refused_record_names_its_line_and_writes_nothing_of_its_batch() {
        let dir = tempfile::tempdir().unwrap();
        let path = file(&dir, "g.txt", b"1 2\n# c\n2 3\n3 3\n4 5\n");
        let g = Graph::in_memory(stratagraph::Options {
            allow_self_loops: false,
            ..stratagraph::Options::default()
        });
        let mut r = Reader::open(&path, Grammar::default()).unwrap();
        assert_eq!(r.load_batch(&g, 2).unwrap(), 2);
        let e = r.load_batch(&g, 2).unwrap_err();
        assert!(matches!(e, EdgeListError::Refused { line: 4, .. }), "{e:?}");
        assert!(e
            .to_string()
            .starts_with(&format!("{}:4: ", path.display())));
        assert_eq!(
            g.snapshot().edge_count(),
            2,
            "the refused batch wrote nothing"
        );
    }
}
