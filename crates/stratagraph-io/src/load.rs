//! What the property-graph loaders (`graphson`, `csv`) share: the error
//! that names file, line and field, what was loaded before it, and the
//! batching of parsed records into transactions.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::mpsc::SyncSender;
use stratagraph::{EdgeId, Graph, Value, VertexId, WriteTxn};

/// The most edges one weighted batch of a load takes: under the bulk
/// load's limit of `u32::MAX / 2` edges per batch.
pub(crate) const MAX_BATCH_EDGES: usize = 1 << 30;

/// What a load has committed so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Vertices created (vertices named again, or created by an edge, are
    /// not counted).
    pub vertices: u64,
    /// Edges written: property edges created, and (by the Parquet and
    /// Arrow loads, which carry them) edges of the weighted structure
    /// inserted.
    pub edges: u64,
    /// Transactions committed.
    pub batches: u64,
}

/// Why a load stopped. The batches committed before the failure stay
/// loaded (`loaded` says how much); the record that failed and the rest
/// of its batch are not.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A file could not be opened or read.
    #[error("{file}: {op} failed: {message}")]
    Io {
        /// The file.
        file: PathBuf,
        /// The call that failed.
        op: &'static str,
        /// The operating system's message.
        message: String,
        /// What was committed before.
        loaded: Loaded,
    },
    /// A record does not follow the format.
    #[error("{file}:{line}: {field}: {what}")]
    Malformed {
        /// The file.
        file: PathBuf,
        /// 1-based line of the record.
        line: u64,
        /// Which field of the record (a JSON path or a column name).
        field: String,
        /// What is wrong.
        what: String,
        /// What was committed before.
        loaded: Loaded,
    },
    /// A Parquet file (or an export's metadata) does not hold what it
    /// should: unreadable, cut short, a column missing or of the wrong
    /// type, an id twice, an edge end that names no vertex.
    #[error("{file}: {}{what}", column.as_deref().map(|c| format!("column {c}: ")).unwrap_or_default())]
    Table {
        /// The file.
        file: PathBuf,
        /// The column, where one is at fault.
        column: Option<String>,
        /// What is wrong.
        what: String,
        /// What was committed before.
        loaded: Loaded,
    },
    /// The store refused a record (a bad label or value, an edge id in
    /// use, a closed store, ...).
    #[error("{file}:{line}: {source}")]
    Engine {
        /// The file.
        file: PathBuf,
        /// 1-based line of the record.
        line: u64,
        /// The engine's error (boxed: it is large, and errors are rare).
        source: Box<stratagraph::Error>,
        /// What was committed before.
        loaded: Loaded,
    },
}

impl LoadError {
    /// The same error, saying `l` was committed before it.
    pub(crate) fn with_loaded(mut self, l: Loaded) -> LoadError {
        match &mut self {
            LoadError::Io { loaded, .. }
            | LoadError::Malformed { loaded, .. }
            | LoadError::Table { loaded, .. }
            | LoadError::Engine { loaded, .. } => *loaded = l,
        }
        self
    }

    /// What was committed before the failure.
    pub fn loaded(&self) -> Loaded {
        match self {
            LoadError::Io { loaded, .. }
            | LoadError::Malformed { loaded, .. }
            | LoadError::Table { loaded, .. }
            | LoadError::Engine { loaded, .. } => *loaded,
        }
    }
}

/// How a load batches its records.
#[derive(Debug, Clone, Copy)]
pub struct LoadOptions {
    /// Records per transaction.
    pub batch: usize,
}

impl Default for LoadOptions {
    fn default() -> Self {
        LoadOptions { batch: 10_000 }
    }
}

/// A vertex id as a file gives it: an integer, or a string (a key, in a
/// store that names vertices by string keys).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RawId {
    Int(u64),
    Str(String),
}

/// Vertex ids as a table or Parquet file gives them, one per row:
/// integers, or strings (keys).
pub(crate) enum IdColumn {
    Ints(Vec<u64>),
    Keys(Vec<String>),
}

impl IdColumn {
    /// Row `row`'s id.
    pub(crate) fn raw(&self, row: usize) -> RawId {
        match self {
            IdColumn::Ints(v) => RawId::Int(v[row]),
            IdColumn::Keys(v) => RawId::Str(v[row].clone()),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            IdColumn::Ints(v) => v.len(),
            IdColumn::Keys(v) => v.len(),
        }
    }
}

/// A vertex as a file gives it. Names are borrowed where the file's
/// parser can lend them (a CSV file's header), so a row costs no copy of
/// them.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct VertexRecord<'a> {
    pub id: RawId,
    /// Where the id came from, for errors.
    pub id_field: Cow<'a, str>,
    pub label: Option<Cow<'a, str>>,
    pub props: Vec<(Cow<'a, str>, Value)>,
}

/// A property edge as a file gives it (names borrowed as in
/// `VertexRecord`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EdgeRecord<'a> {
    pub id: Option<EdgeId>,
    pub src: RawId,
    pub dst: RawId,
    /// Where the ends came from, for errors.
    pub src_field: Cow<'a, str>,
    pub dst_field: Cow<'a, str>,
    pub label: Cow<'a, str>,
    pub props: Vec<(Cow<'a, str>, Value)>,
}

/// Feeds records into transactions of `opts.batch` records each.
pub(crate) struct Batcher<'g> {
    g: &'g Graph,
    file: PathBuf,
    batch: usize,
    tx: Option<WriteTxn>,
    pending: usize,
    /// Counted into `loaded` when the batch commits.
    pending_loaded: Loaded,
    /// Edge ids the open batch names, with their lines (handed-on batches
    /// only: a clash with the batch before shows at commit).
    pending_ids: Vec<(EdgeId, u64)>,
    /// Where full batches go: `None` commits them here.
    hand: Option<SyncSender<Built>>,
    /// The committing thread has stopped taking batches.
    stopped: bool,
    pub loaded: Loaded,
}

/// A batch built on one thread for another to commit (see `pipelined`).
pub(crate) struct Built {
    tx: WriteTxn,
    counts: Loaded,
    /// The batch's last line.
    line: u64,
    ids: Vec<(EdgeId, u64)>,
}

impl<'g> Batcher<'g> {
    pub(crate) fn new(g: &'g Graph, file: &Path, opts: LoadOptions, loaded: Loaded) -> Self {
        Batcher {
            g,
            file: file.to_owned(),
            batch: opts.batch.max(1),
            tx: None,
            pending: 0,
            pending_loaded: Loaded::default(),
            pending_ids: Vec::new(),
            hand: None,
            stopped: false,
            loaded,
        }
    }

    /// Whether the thread committing handed-on batches has stopped (it met
    /// an error it reports itself): reading on is wasted.
    pub(crate) fn stopped(&self) -> bool {
        self.stopped
    }

    pub(crate) fn set_file(&mut self, file: &Path) {
        self.file = file.to_owned();
    }

    fn engine(&self, line: u64, source: stratagraph::Error) -> LoadError {
        LoadError::Engine {
            file: self.file.clone(),
            line,
            source: Box::new(source),
            loaded: self.loaded,
        }
    }

    /// The store's vertex id for `raw`: itself in a store of integer ids;
    /// in a store of string keys, the id of the key (an integer is read as
    /// its decimal text, so a file of integer ids loads into either kind).
    fn vertex_id(&self, line: u64, field: &str, raw: &RawId) -> Result<VertexId, LoadError> {
        match (raw, self.g.options().string_ids) {
            (RawId::Int(i), false) => Ok(*i),
            (RawId::Int(i), true) => self.key(line, &i.to_string()),
            (RawId::Str(s), true) => self.key(line, s),
            (RawId::Str(s), false) => Err(LoadError::Malformed {
                file: self.file.clone(),
                line,
                field: field.to_owned(),
                what: if s.trim().parse::<i128>().is_ok() {
                    format!("vertex id {s:?} is not a non-negative integer below 2^64")
                } else {
                    format!(
                        "vertex id {s:?} is a string; load into a store created with string ids \
                         (Options::string_ids, stratagraph load --string-ids)"
                    )
                },
                loaded: self.loaded,
            }),
        }
    }

    fn key(&self, line: u64, key: &str) -> Result<VertexId, LoadError> {
        self.g.intern_key(key).map_err(|e| self.engine(line, e))
    }

    fn tx(&mut self) -> &mut WriteTxn {
        // A batch built while the one before commits cannot see it, so a
        // snapshot-isolated one would conflict with it; batches handed on
        // apply as of their commit instead (see `pipelined`).
        let handed = self.hand.is_some();
        self.tx.get_or_insert_with(|| {
            if handed {
                self.g.begin_unchecked()
            } else {
                self.g.begin()
            }
        })
    }

    pub(crate) fn vertex(&mut self, line: u64, v: &VertexRecord) -> Result<(), LoadError> {
        let id = self.vertex_id(line, &v.id_field, &v.id)?;
        let props: Vec<(&str, Value)> = v
            .props
            .iter()
            .map(|(k, x)| (k.as_ref(), x.clone()))
            .collect();
        let label = v.label.as_deref().unwrap_or(stratagraph::DEFAULT_LABEL);
        let created = if v.label.is_none() && props.is_empty() {
            self.tx().insert_vertex(id)
        } else {
            self.tx().insert_vertex_with(id, label, &props)
        };
        match created {
            Ok(true) => self.pending_loaded.vertices += 1,
            Ok(false) => {
                // Named twice: the properties of the later record apply.
                for (k, x) in props {
                    let r = self.tx().set_property(id, k, x);
                    r.map_err(|e| self.engine(line, e))?;
                }
            }
            Err(e) => return Err(self.engine(line, e)),
        }
        self.count(line)
    }

    pub(crate) fn edge(&mut self, line: u64, e: &EdgeRecord) -> Result<(), LoadError> {
        let src = self.vertex_id(line, &e.src_field, &e.src)?;
        let dst = self.vertex_id(line, &e.dst_field, &e.dst)?;
        let props: Vec<(&str, Value)> = e
            .props
            .iter()
            .map(|(k, x)| (k.as_ref(), x.clone()))
            .collect();
        let r = match e.id {
            Some(id) => self.tx().add_edge_with_id(id, src, dst, &e.label, &props),
            None => self.tx().add_edge(src, dst, &e.label, &props).map(drop),
        };
        r.map_err(|err| self.engine(line, err))?;
        if let (Some(id), Some(_)) = (e.id, &self.hand) {
            self.pending_ids.push((id, line));
        }
        self.pending_loaded.edges += 1;
        self.count(line)
    }

    fn count(&mut self, line: u64) -> Result<(), LoadError> {
        self.pending += 1;
        if self.pending >= self.batch {
            self.commit(line)?;
        }
        Ok(())
    }

    /// The store's vertex id for `raw` (see `vertex_id`), for loaders that
    /// batch vertices or edges themselves.
    pub(crate) fn resolve(
        &self,
        line: u64,
        field: &str,
        raw: &RawId,
    ) -> Result<VertexId, LoadError> {
        self.vertex_id(line, field, raw)
    }

    /// Inserts `vertices` (no label, no property) as one atomic batch,
    /// counting those it created.
    pub(crate) fn plain_vertices(&mut self, vertices: &[VertexId]) -> Result<(), LoadError> {
        if vertices.is_empty() {
            return Ok(());
        }
        let before = self.g.snapshot().vertex_count();
        self.g
            .insert_vertices(vertices)
            .map_err(|e| self.engine(0, e))?;
        self.loaded.vertices += self.g.snapshot().vertex_count().saturating_sub(before);
        self.loaded.batches += 1;
        Ok(())
    }

    /// Inserts `edges` into the weighted structure in as few atomic
    /// batches as the engine takes (so a store with no edge yet takes them
    /// as one bulk load); `line` is the first one's, for errors.
    pub(crate) fn weighted(
        &mut self,
        edges: &[(VertexId, VertexId, f64)],
        line: u64,
    ) -> Result<(), LoadError> {
        for chunk in edges.chunks(MAX_BATCH_EDGES) {
            self.g
                .insert_edges(chunk)
                .map_err(|e| self.engine(line, e))?;
            self.loaded.edges += chunk.len() as u64;
            self.loaded.batches += 1;
        }
        Ok(())
    }

    /// Commits the open batch, if any (or hands it on).
    pub(crate) fn commit(&mut self, line: u64) -> Result<(), LoadError> {
        match (self.tx.take(), &self.hand) {
            (Some(tx), Some(hand)) => {
                let built = Built {
                    tx,
                    counts: self.pending_loaded,
                    line,
                    ids: std::mem::take(&mut self.pending_ids),
                };
                self.stopped = hand.send(built).is_err();
            }
            (Some(tx), None) => {
                tx.commit().map_err(|e| self.engine(line, e))?;
                self.loaded.vertices += self.pending_loaded.vertices;
                self.loaded.edges += self.pending_loaded.edges;
                self.loaded.batches += 1;
            }
            (None, _) => {}
        }
        self.pending = 0;
        self.pending_loaded = Loaded::default();
        Ok(())
    }
}

/// Loads a file's rows on two threads: `read` parses them and builds each
/// batch's transaction on one, while this one commits the batch before it
/// (the commit is most of a batch's cost, the parse and the build the
/// rest). Batches commit in file order, one at most waiting, and each is
/// still atomic; a row that fails stops the load as on one thread, with
/// every batch before its own committed and nothing of its own.
///
/// The batches are unchecked transactions (`Graph::begin_unchecked`):
/// one built before the previous one commits cannot see it, so a clash
/// between the two (an edge id named twice) shows at the later one's
/// commit, and is reported at the line that names the id.
pub(crate) fn pipelined<F>(
    g: &Graph,
    file: &Path,
    opts: LoadOptions,
    loaded: Loaded,
    read: F,
) -> Result<Loaded, LoadError>
where
    F: FnOnce(&mut Batcher) -> Result<u64, LoadError> + Send,
{
    let (hand, batches) = std::sync::mpsc::sync_channel::<Built>(1);
    std::thread::scope(|s| {
        let reader = s.spawn(move || {
            let mut b = Batcher::new(g, file, opts, loaded);
            b.hand = Some(hand);
            let line = read(&mut b)?;
            b.commit(line)
        });
        let mut loaded = loaded;
        let mut failed = None;
        for built in batches.iter() {
            match built.tx.commit() {
                Ok(_) => {
                    loaded.vertices += built.counts.vertices;
                    loaded.edges += built.counts.edges;
                    loaded.batches += 1;
                }
                Err(e) => {
                    let line = match e {
                        stratagraph::Error::EdgeIdTaken { edge, .. } => built
                            .ids
                            .iter()
                            .find(|(id, _)| *id == edge)
                            .map_or(built.line, |&(_, line)| line),
                        _ => built.line,
                    };
                    failed = Some(LoadError::Engine {
                        file: file.to_owned(),
                        line,
                        source: Box::new(e),
                        loaded,
                    });
                    break;
                }
            }
        }
        // Unblocks the reader if it waits to hand on a batch.
        drop(batches);
        let read = reader
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        match (failed, read) {
            (Some(e), _) => Err(e),
            (None, Err(e)) => Err(e.with_loaded(loaded)),
            (None, Ok(())) => Ok(loaded),
        }
    })
}
