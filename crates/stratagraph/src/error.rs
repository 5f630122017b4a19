//! The one error type of the engine.
//!
//! Every variant carries the data a caller needs to act on it: the operation
//! that was refused, the vertex or edge it named, and for batches the index of
//! the offending element. An operation that returns an error has changed
//! nothing: transactions keep their earlier writes, batches apply nothing.

/// External (user-facing) vertex id.
pub type VertexId = u64;

/// Which public operation an error refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// `insert_vertex`
    InsertVertex,
    /// `delete_vertex`
    DeleteVertex,
    /// `insert_edge` or one element of `insert_edges`
    InsertEdge,
    /// `delete_edge` or one element of `delete_edges`
    DeleteEdge,
    /// `set_property` (or a property given with a new vertex)
    SetProperty,
    /// `remove_property`
    RemoveProperty,
    /// `create_index`
    CreateIndex,
    /// `add_edge` (a property edge)
    AddEdge,
    /// `remove_edge` (a property edge)
    RemoveEdge,
    /// `set_edge_property` (or a property given with a new edge)
    SetEdgeProperty,
    /// `remove_edge_property`
    RemoveEdgeProperty,
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Op::InsertVertex => "insert_vertex",
            Op::DeleteVertex => "delete_vertex",
            Op::InsertEdge => "insert_edge",
            Op::DeleteEdge => "delete_edge",
            Op::SetProperty => "set_property",
            Op::RemoveProperty => "remove_property",
            Op::CreateIndex => "create_index",
            Op::AddEdge => "add_edge",
            Op::RemoveEdge => "remove_edge",
            Op::SetEdgeProperty => "set_edge_property",
            Op::RemoveEdgeProperty => "remove_edge_property",
        })
    }
}

/// An element of the graph a transaction wrote or read, as a conflict
/// names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Element {
    /// A vertex's existence.
    Vertex(VertexId),
    /// One edge (undirected graphs: either orientation).
    Edge {
        /// Its source.
        src: VertexId,
        /// Its destination.
        dst: VertexId,
    },
    /// A vertex's out-edges as a whole (of an undirected graph: all its
    /// edges), as a neighbour list reads them.
    OutEdges(VertexId),
    /// A vertex's in-edges as a whole.
    InEdges(VertexId),
    /// One property of a vertex.
    Property {
        /// The vertex.
        vertex: VertexId,
        /// The property key.
        key: String,
    },
    /// A vertex's properties as a whole, as reading all of them sees them.
    Properties(VertexId),
    /// A property edge's existence.
    PropertyEdge(crate::EdgeId),
    /// One property of a property edge.
    EdgeProperty {
        /// The edge.
        edge: crate::EdgeId,
        /// The property key.
        key: String,
    },
    /// A vertex's property edges on one side as a whole, as reading them
    /// sees them (`out`: those it is the source of).
    PropertyEdges {
        /// The vertex.
        vertex: VertexId,
        /// Which side.
        out: bool,
    },
    /// The vertices labelled `label` by their property `key`, as a look-up
    /// by value reads them.
    Lookup {
        /// The label.
        label: String,
        /// The property key.
        key: String,
    },
}

impl std::fmt::Display for Element {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Element::Vertex(v) => write!(f, "vertex {v}"),
            Element::Edge { src, dst } => write!(f, "edge {src} -> {dst}"),
            Element::OutEdges(v) => write!(f, "the out-edges of vertex {v}"),
            Element::InEdges(v) => write!(f, "the in-edges of vertex {v}"),
            Element::Property { vertex, key } => write!(f, "property {key:?} of vertex {vertex}"),
            Element::Properties(v) => write!(f, "the properties of vertex {v}"),
            Element::PropertyEdge(e) => write!(f, "edge {e}"),
            Element::EdgeProperty { edge, key } => write!(f, "property {key:?} of edge {edge}"),
            Element::PropertyEdges { vertex, out } => write!(
                f,
                "the {} property edges of vertex {vertex}",
                if *out { "out" } else { "in" }
            ),
            Element::Lookup { label, key } => {
                write!(f, "the {label:?} vertices' property {key:?}")
            }
        }
    }
}

/// Where in a batch call the offending element sits (`None` for single calls).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BatchIndex(pub Option<usize>);

impl std::fmt::Display for BatchIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0 {
            Some(i) => write!(f, " (batch element {i})"),
            None => Ok(()),
        }
    }
}

/// Everything the engine can refuse.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
#[non_exhaustive]
pub enum Error {
    /// The vertex does not exist in the view the operation reads (for a
    /// transaction: its snapshot plus its own writes).
    #[error("{op}: vertex {vertex} does not exist{at}")]
    VertexNotFound {
        /// The refused operation.
        op: Op,
        /// The missing vertex.
        vertex: VertexId,
        /// Position in a batch call.
        at: BatchIndex,
    },
    /// The edge does not exist (delete of a missing edge).
    #[error("{op}: edge ({src}, {dst}) does not exist{at}")]
    EdgeNotFound {
        /// The refused operation.
        op: Op,
        /// Source vertex.
        src: VertexId,
        /// Destination vertex.
        dst: VertexId,
        /// Position in a batch call.
        at: BatchIndex,
    },
    /// An edge names a vertex that this same transaction deleted. Deleting a
    /// vertex and then wiring an edge to it is almost always a logic error in
    /// the caller, so it is refused rather than silently re-creating the vertex.
    #[error("{op}: edge ({src}, {dst}) touches vertex {vertex}, which this transaction deleted")]
    VertexDeletedInTransaction {
        /// The refused operation.
        op: Op,
        /// Source vertex.
        src: VertexId,
        /// Destination vertex.
        dst: VertexId,
        /// The deleted endpoint.
        vertex: VertexId,
    },
    /// A property key or label that is empty, too long or holds a control
    /// character.
    #[error("{op}: {what} {name:?} {reason}")]
    InvalidName {
        /// The refused operation.
        op: Op,
        /// `property key` or `label`.
        what: &'static str,
        /// The name as given.
        name: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A property value that breaks a rule of its type (a map key twice)
    /// or the limits of `Value` (size, nesting).
    #[error("{op}: property {key:?} of vertex {vertex}: {problem}")]
    InvalidValue {
        /// The refused operation.
        op: Op,
        /// The vertex.
        vertex: VertexId,
        /// The property key.
        key: String,
        /// What is wrong with the value.
        problem: crate::value::InvalidValue,
    },
    /// A property value of an edge that breaks a rule of its type or the
    /// limits of `Value`.
    #[error("{op}: property {key:?} of edge {edge}: {problem}")]
    InvalidEdgeValue {
        /// The refused operation.
        op: Op,
        /// The edge (for a new edge: the id it would have had).
        edge: crate::EdgeId,
        /// The property key.
        key: String,
        /// What is wrong with the value.
        problem: crate::value::InvalidValue,
    },
    /// No property edge has this id in the view the operation reads.
    #[error("{op}: edge {edge} does not exist")]
    NoSuchEdge {
        /// The refused operation.
        op: Op,
        /// The edge id.
        edge: crate::EdgeId,
    },
    /// A new property edge was given the id of an edge that exists.
    #[error("{op}: edge id {edge} is already in use")]
    EdgeIdTaken {
        /// The refused operation.
        op: Op,
        /// The edge id.
        edge: crate::EdgeId,
    },
    /// A NaN (or a value holding one) where an index would have to hold
    /// it: NaN equals nothing a look-up could ask for.
    #[error("property {key:?} of vertex {vertex} holds NaN, which the index on ({label:?}, {key:?}) cannot hold")]
    NotIndexable {
        /// The vertex.
        vertex: VertexId,
        /// The indexed label.
        label: String,
        /// The indexed key.
        key: String,
    },
    /// A vertex named by the wrong kind of id for its store: a string key
    /// in a store of integer ids, or (in a store that names vertices by
    /// string keys) an integer that no key was given.
    #[error("vertex {vertex}: {what}")]
    WrongIdKind {
        /// The vertex as given.
        vertex: String,
        /// What the store takes instead.
        what: String,
    },
    /// A weight that is NaN or infinite.
    #[error("{op}: edge ({src}, {dst}) has weight {weight}, which is not finite{at}")]
    InvalidWeight {
        /// The refused operation.
        op: Op,
        /// Source vertex.
        src: VertexId,
        /// Destination vertex.
        dst: VertexId,
        /// The weight given.
        weight: f64,
        /// Position in a batch call.
        at: BatchIndex,
    },
    /// A self-loop while `Options::allow_self_loops` is false.
    #[error("{op}: self-loop on vertex {vertex} refused (Options::allow_self_loops is false){at}")]
    SelfLoop {
        /// The refused operation.
        op: Op,
        /// The vertex.
        vertex: VertexId,
        /// Position in a batch call.
        at: BatchIndex,
    },
    /// The store has handed out every internal vertex id it may: `u32::MAX`
    /// of them, or `Options::max_vertex_ids`.
    #[error("{op}: vertex {vertex} cannot be given an internal id: all {limit} ids are in use")]
    VertexIdsExhausted {
        /// The refused operation.
        op: Op,
        /// The new vertex.
        vertex: VertexId,
        /// The number of internal ids available.
        limit: u64,
    },
    /// A snapshot has been held open so long (in commits) that the in-memory
    /// timestamp encoding cannot keep versions for it next to new ones. Drop
    /// old snapshots; the commit can be retried.
    #[error("commit {commit_ts} refused: snapshot {snapshot_ts} is more than {window} commits old; drop it and retry")]
    SnapshotTooOld {
        /// The oldest live snapshot.
        snapshot_ts: u64,
        /// The timestamp the commit would have had.
        commit_ts: u64,
        /// How many commits a snapshot may lag.
        window: u64,
    },
    /// Another transaction committed a change to an element this one wrote
    /// (or, when serializable, read) after this one's snapshot: committing
    /// both would lose one's update (or let each act on what the other
    /// changed). Nothing was applied; run the transaction again.
    #[error("conflict: {element} was changed by the commit at timestamp {committed_ts}, after this transaction's snapshot at {snapshot_ts}; nothing was applied, retry the transaction")]
    Conflict {
        /// The element both touched (the first found).
        element: Element,
        /// The timestamp this transaction read at.
        snapshot_ts: u64,
        /// The commit that changed it first.
        committed_ts: u64,
    },
    /// A stored file (or an in-memory image of one) fails a structural check
    /// or a checksum. The offset lets an operator look at the damage with a
    /// hex dump, and tells apart a torn tail from a bad block in the middle.
    #[error("file {file}: corrupt at byte offset {offset}: {what}")]
    Corrupt {
        /// Path of the file, or the name given to an in-memory buffer.
        file: String,
        /// Byte offset of the first byte found wrong (for a truncated file:
        /// its length).
        offset: u64,
        /// What was expected there.
        what: String,
    },
    /// A stored file is intact but written in a format version this build
    /// cannot read (written by a newer stratagraph, or not a stratagraph
    /// file at all). Kept apart from `Corrupt` so that a downgrade is not
    /// mistaken for damage.
    #[error("file {file}: format version {found} is not supported (this build reads versions up to {supported})")]
    UnsupportedFormat {
        /// Path of the file, or the name given to an in-memory buffer.
        file: String,
        /// The version recorded in the file.
        found: u32,
        /// The newest version this build reads (and writes); it reads
        /// the older versions of the format too.
        supported: u32,
    },
    /// `Graph::open` was given options that contradict the stored graph
    /// (a directed store opened as undirected, or the reverse). Refused
    /// before anything is read or changed, since reading one as the other
    /// would give wrong answers silently.
    #[error("file {file}: {what}")]
    OptionsMismatch {
        /// The manifest that records the stored settings.
        file: String,
        /// Which setting disagrees, with both values.
        what: String,
    },
    /// An operating-system call on a file failed. The `std::io::Error`
    /// itself is not kept so that `Error` stays `Clone` and `PartialEq`; its
    /// kind and text are.
    #[error("file {file}: {op} failed: {message}")]
    Io {
        /// The path the call was made on.
        file: String,
        /// The call that failed (`"open"`, `"write"`, `"sync"`, ...).
        op: &'static str,
        /// The kind of the underlying I/O error, for callers that branch on it.
        kind: std::io::ErrorKind,
        /// The underlying error's text.
        message: String,
    },
    /// The store directory is already open, by this process or another: two
    /// writers would corrupt each other's log and level files.
    #[error("store {dir} is already open (its LOCK file is held); close the other handle or process first")]
    StoreLocked {
        /// The store directory.
        dir: String,
    },
    /// A write or sync of the write-ahead log failed (a full disk, an I/O
    /// error). The commits it held failed and are not visible; the store
    /// refuses writes from then on, until it is reopened, which recovers
    /// every commit that succeeded and none that failed. Reads keep
    /// working, and `close` succeeds.
    #[error("the store refuses writes because its log failed earlier: {cause}")]
    LogFailed {
        /// The first log error, as text.
        cause: String,
    },
    /// A commit failed because its log record could not be made durable,
    /// and cutting the record back off the log failed as well (the device
    /// refuses every write): unlike every other commit error, the commit
    /// may then be recovered when the store is reopened. The store refuses
    /// writes from then on, as with `LogFailed`.
    #[error("the commit failed, but its log record could not be removed, so reopening the store may recover it: {cause}")]
    CommitUnresolved {
        /// The log errors, as text.
        cause: String,
    },
    /// The directory given as a store holds files that are not a store's:
    /// a store is never started over them.
    #[error("{dir} is not a stratagraph store: {what}")]
    NotAStore {
        /// The directory.
        dir: String,
        /// What was found there.
        what: String,
    },
    /// `Graph::changes` was asked for changes the store no longer keeps
    /// (older than its archive of changes reaches, `Options::change_log_bytes`)
    /// or never kept (an in-memory store has no log).
    #[error("changes since timestamp {since} are not available: {why}")]
    ChangesUnavailable {
        /// The timestamp asked for.
        since: u64,
        /// Why, and from which timestamp on changes are kept.
        why: String,
    },
    /// What was asked needs files, and the store is in memory
    /// (`Graph::checkpoint`).
    #[error("{op} needs an on-disk store; this one is in memory")]
    InMemory {
        /// What was refused.
        op: &'static str,
    },
    /// The store was opened read-only (`Options::read_only`): it takes no
    /// writes or maintenance, and changes no file.
    #[error("{op} refused: the store {store} was opened read-only")]
    ReadOnly {
        /// What was refused (`commit`, `insert_edges`, `flush`, ...).
        op: &'static str,
        /// The store directory.
        store: String,
    },
    /// The store was closed (`Graph::close`, or its last `Graph` handle was
    /// dropped): it takes no more writes or maintenance. Snapshots taken
    /// before keep reading what they saw.
    #[error("{op} refused: the store{} is closed", .store.as_deref().map(|d| format!(" {d}")).unwrap_or_default())]
    Closed {
        /// What was refused (`commit`, `insert_edges`, `flush`, ...).
        op: &'static str,
        /// The store directory (`None` for an in-memory store).
        store: Option<String>,
    },
    /// The engine asked the CSR segment writer to store input that breaks the
    /// segment's invariants (unsorted, out of range, a NaN weight, ...). This
    /// is a bug in the engine, not in user input, and is reported rather than
    /// written so that a bad file never reaches disk.
    #[error("segment writer refused vertex {vertex}: {what}")]
    InvalidSegmentInput {
        /// The internal vertex id being written.
        vertex: u32,
        /// Which invariant was broken, and at which entry.
        what: String,
    },
}

impl Error {
    /// The position of the offending element when a batch call was refused
    /// because of one element (`None` for single calls and for errors not
    /// about one element), so a loader can name the input line it came from.
    pub fn batch_index(&self) -> Option<usize> {
        match self {
            Error::VertexNotFound { at, .. }
            | Error::EdgeNotFound { at, .. }
            | Error::InvalidWeight { at, .. }
            | Error::SelfLoop { at, .. } => at.0,
            _ => None,
        }
    }
}

/// Result alias for the engine.
pub type Result<T, E = Error> = std::result::Result<T, E>;
