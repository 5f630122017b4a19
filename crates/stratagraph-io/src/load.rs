//! What the property-graph loaders (`graphson`, `csv`) share: the error
//! that names file, line and field, what was loaded before it, and the
//! batching of parsed records into transactions.

use rustc_hash::FxHashSet;
use std::borrow::Cow;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::mpsc::SyncSender;
use std::sync::{Arc, Condvar, Mutex};
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
    /// Records per transaction (at most: a batch ends early at a vertex
    /// named again that a batch not yet committed named).
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
    hand: Option<Handing>,
    /// The committing thread has stopped taking batches.
    stopped: bool,
    /// The line of the last record taken.
    last_line: u64,
    pub loaded: Loaded,
}

/// What a batcher that hands its batches on to another thread to commit
/// keeps (see `pipelined`).
struct Handing {
    to: SyncSender<Built>,
    progress: Arc<Progress>,
    /// Batches handed on so far.
    handed: u64,
    /// How many batches had committed when the open batch began: its
    /// transaction sees those and no later one.
    sees: u64,
    /// The vertices each handed batch names that the open batch may not
    /// see committed, by the batch's number (1-based, as `handed` counts).
    named: VecDeque<(u64, FxHashSet<VertexId>)>,
    /// The vertices the open batch names.
    naming: FxHashSet<VertexId>,
}

/// How many handed batches have committed, and whether the committing
/// thread has stopped, with a condition variable to wait on either.
#[derive(Default)]
pub(crate) struct Progress {
    state: Mutex<(u64, bool)>,
    changed: Condvar,
}

impl Progress {
    fn committed(&self) -> u64 {
        self.lock().0
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, (u64, bool)> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn set(&self, f: impl FnOnce(&mut (u64, bool))) {
        f(&mut self.lock());
        self.changed.notify_all();
    }

    /// Waits until `n` batches have committed; `false` if the committing
    /// thread stopped first.
    fn wait_for(&self, n: u64) -> bool {
        let mut st = self.lock();
        while st.0 < n && !st.1 {
            st = self
                .changed
                .wait(st)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        st.0 >= n
    }
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
            last_line: 0,
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
        if self.tx.is_none() {
            self.tx = Some(match &mut self.hand {
                Some(h) => {
                    // Read before the transaction's first read opens its
                    // view, so the view sees at least this many batches.
                    h.sees = h.progress.committed();
                    self.g.begin_unchecked()
                }
                None => self.g.begin(),
            });
        }
        self.tx.as_mut().expect("just begun")
    }

    /// Before a handed-on batch names vertex `id`: if a batch its view may
    /// not see names `id` too, hands on the open batch as it is and waits
    /// for every handed batch to commit, so the next transaction sees
    /// `id` as the batches before left it (a vertex named again takes the
    /// later record's properties, as on one thread). Otherwise notes `id`.
    fn name_vertex(&mut self, id: VertexId) -> Result<(), LoadError> {
        let Some(h) = &mut self.hand else {
            return Ok(());
        };
        let sees = if self.tx.is_some() {
            h.sees
        } else {
            h.progress.committed()
        };
        h.named.retain(|(n, _)| *n > sees);
        if !h.named.iter().any(|(_, ids)| ids.contains(&id)) {
            h.naming.insert(id);
            return Ok(());
        }
        self.commit(self.last_line)?;
        if let Some(h) = &mut self.hand {
            if h.progress.wait_for(h.handed) {
                h.named.clear();
                h.naming.insert(id);
            } else {
                self.stopped = true;
            }
        }
        Ok(())
    }

    pub(crate) fn vertex(&mut self, line: u64, v: &VertexRecord) -> Result<(), LoadError> {
        let id = self.vertex_id(line, &v.id_field, &v.id)?;
        self.name_vertex(id)?;
        if self.stopped {
            return Ok(());
        }
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
        self.last_line = line;
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
        match (self.tx.take(), &mut self.hand) {
            (Some(tx), Some(h)) => {
                let built = Built {
                    tx,
                    counts: self.pending_loaded,
                    line,
                    ids: std::mem::take(&mut self.pending_ids),
                };
                self.stopped = h.to.send(built).is_err();
                h.handed += 1;
                let named = std::mem::take(&mut h.naming);
                if !named.is_empty() {
                    h.named.push_back((h.handed, named));
                }
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
/// The batches are unchecked transactions (`Graph::begin_unchecked`): one
/// built before the previous one commits cannot see it. So a vertex named
/// again by a batch that may not see the earlier record ends the batch
/// there and waits for the commits before going on (`Batcher::name_vertex`),
/// and an edge id named twice shows at the later batch's commit, which is
/// reported at the line that names it.
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
    let (to, batches) = std::sync::mpsc::sync_channel::<Built>(1);
    let progress = Arc::new(Progress::default());
    std::thread::scope(|s| {
        let committed = progress.clone();
        let reader = s.spawn(move || {
            let mut b = Batcher::new(g, file, opts, loaded);
            b.hand = Some(Handing {
                to,
                progress: committed,
                handed: 0,
                sees: 0,
                named: VecDeque::new(),
                naming: FxHashSet::default(),
            });
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
                    progress.set(|p| p.0 += 1);
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
        // Unblocks the reader if it waits to hand on a batch, or for one
        // to commit.
        progress.set(|p| p.1 = true);
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
