//! The Python exception hierarchy and the mapping from engine errors to it.
//!
//! Every engine `Error` variant maps to exactly one class, with the engine's
//! `Display` text as the message, so Python callers can branch on the class
//! and still read the operation, vertex, edge and batch index the engine
//! reports. The classes are few and broad on purpose (as in the DB-API):
//! code catches "not found" or "bad input", not one variant each.

use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::PyErr;
use stratagraph_algo::{ProjectionError, SsspError};

// The exception types are created by PyO3's macro, which expands to an
// `unsafe impl PyTypeInfo`; the unsafety is PyO3's contract, not ours.
#[allow(unsafe_code)]
mod classes {
    use super::PyException;

    pyo3::create_exception!(
        stratagraph,
        Error,
        PyException,
        "Base class of every error stratagraph raises on purpose."
    );
    pyo3::create_exception!(
        stratagraph,
        NotFound,
        Error,
        "A vertex or edge (weighted, or a property edge by id) the call \
         names does not exist."
    );
    pyo3::create_exception!(
        stratagraph,
        InvalidInput,
        Error,
        "The engine refused a value: a non-finite or negative weight, a \
         self-loop the store forbids, an edge to a vertex deleted in the same \
         transaction, a bad label, property key or value, an edge id already \
         in use, a vertex named by the wrong kind of id (a str key in a store \
         of integer ids, or an integer no key has in a string-keyed store), \
         or a malformed edge-list line, GraphSON record or CSV row."
    );
    pyo3::create_exception!(
        stratagraph,
        CapacityExceeded,
        Error,
        "The store ran out of vertex ids: 2**32 - 1 of them, or the graph's \
         max_vertex_ids."
    );
    pyo3::create_exception!(
        stratagraph,
        SnapshotTooOld,
        Error,
        "A snapshot has been held open for so many commits that a write \
         cannot be stamped next to it; close old snapshots and retry."
    );
    pyo3::create_exception!(
        stratagraph,
        Conflict,
        Error,
        "Another transaction committed a change to an element this one wrote \
         (or, serializable, read) after this one's snapshot. Nothing was \
         applied: run the transaction again."
    );
    pyo3::create_exception!(
        stratagraph,
        Corruption,
        Error,
        "A stored file fails a structural check or a checksum."
    );
    pyo3::create_exception!(
        stratagraph,
        UnsupportedFormat,
        Error,
        "A stored file is intact but in a format version this build cannot read."
    );
    pyo3::create_exception!(
        stratagraph,
        StorageError,
        Error,
        "An operating-system call on a store file failed (after a failed log \
         write the store refuses further writes until reopened)."
    );
    pyo3::create_exception!(
        stratagraph,
        StoreLocked,
        Error,
        "The on-disk store is already open (in this process or another); close \
         the other handle first."
    );
    pyo3::create_exception!(
        stratagraph,
        ChangesUnavailable,
        Error,
        "Graph.changes was asked for changes the store no longer keeps (older \
         than its change_log_bytes of retired log reach) or never kept (an \
         in-memory graph); the message says from which timestamp they are kept."
    );
    pyo3::create_exception!(
        stratagraph,
        ReadOnly,
        Error,
        "The graph was opened with read_only=True: every write is refused."
    );
    pyo3::create_exception!(
        stratagraph,
        InternalError,
        Error,
        "The engine detected a bug in itself; please report it."
    );
    pyo3::create_exception!(
        stratagraph,
        Closed,
        Error,
        "The graph, snapshot or transaction has been closed (or committed or \
         rolled back) and cannot be used any more."
    );
}

pub use classes::{
    CapacityExceeded, ChangesUnavailable, Closed, Conflict, Corruption, Error, InternalError,
    InvalidInput, NotFound, ReadOnly, SnapshotTooOld, StorageError, StoreLocked, UnsupportedFormat,
};

/// Converts an engine error into the Python exception of its class.
pub fn engine(err: stratagraph::Error) -> PyErr {
    let msg = err.to_string();
    engine_with_message(err, msg)
}

/// The Python exception of `err`'s class carrying `msg`, for callers that
/// add context (a file and line) to the engine's message.
pub fn engine_with_message(err: stratagraph::Error, msg: String) -> PyErr {
    use stratagraph::Error as E;
    match err {
        E::VertexNotFound { .. } | E::EdgeNotFound { .. } | E::NoSuchEdge { .. } => {
            NotFound::new_err(msg)
        }
        E::VertexDeletedInTransaction { .. }
        | E::InvalidWeight { .. }
        | E::SelfLoop { .. }
        | E::OptionsMismatch { .. }
        | E::InvalidName { .. }
        | E::InvalidValue { .. }
        | E::InvalidEdgeValue { .. }
        | E::EdgeIdTaken { .. }
        | E::NotIndexable { .. }
        | E::WrongIdKind { .. }
        | E::NotAStore { .. }
        | E::InMemory { .. } => InvalidInput::new_err(msg),
        E::VertexIdsExhausted { .. } => CapacityExceeded::new_err(msg),
        E::SnapshotTooOld { .. } => SnapshotTooOld::new_err(msg),
        E::Conflict { .. } => Conflict::new_err(msg),
        E::Corrupt { .. } => Corruption::new_err(msg),
        E::UnsupportedFormat { .. } => UnsupportedFormat::new_err(msg),
        E::Io { .. } | E::LogFailed { .. } | E::CommitUnresolved { .. } => {
            StorageError::new_err(msg)
        }
        E::StoreLocked { .. } => StoreLocked::new_err(msg),
        E::Closed { .. } => Closed::new_err(msg),
        E::ReadOnly { .. } => ReadOnly::new_err(msg),
        E::ChangesUnavailable { .. } => ChangesUnavailable::new_err(msg),
        E::InvalidSegmentInput { .. } => InternalError::new_err(msg),
        // The engine's enum is non-exhaustive: a variant added later still
        // reaches Python as a stratagraph.Error until it gets its own class.
        _ => Error::new_err(msg),
    }
}

/// SSSP refuses negative weights, which the engine itself accepts.
pub fn sssp(err: SsspError) -> PyErr {
    InvalidInput::new_err(err.to_string())
}

/// A projection of property edges that could not be built: an edge's
/// weight missing or not a finite number (the message names the edge), or
/// more vertices than a projection's u32 ids hold.
pub fn projection(err: ProjectionError) -> PyErr {
    match err {
        ProjectionError::BadWeight { .. } => InvalidInput::new_err(err.to_string()),
        ProjectionError::Build(_) => CapacityExceeded::new_err(err.to_string()),
    }
}

/// The error for a call on a closed object; `what` names the object.
pub fn closed(what: &str) -> PyErr {
    Closed::new_err(format!("{what} is closed"))
}

/// Adds every class to the module, so `stratagraph.NotFound` etc. exist.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    m.add("NotFound", py.get_type::<NotFound>())?;
    m.add("InvalidInput", py.get_type::<InvalidInput>())?;
    m.add("CapacityExceeded", py.get_type::<CapacityExceeded>())?;
    m.add("SnapshotTooOld", py.get_type::<SnapshotTooOld>())?;
    m.add("Conflict", py.get_type::<Conflict>())?;
    m.add("Corruption", py.get_type::<Corruption>())?;
    m.add("UnsupportedFormat", py.get_type::<UnsupportedFormat>())?;
    m.add("StorageError", py.get_type::<StorageError>())?;
    m.add("StoreLocked", py.get_type::<StoreLocked>())?;
    m.add("ReadOnly", py.get_type::<ReadOnly>())?;
    m.add("ChangesUnavailable", py.get_type::<ChangesUnavailable>())?;
    m.add("InternalError", py.get_type::<InternalError>())?;
    m.add("Closed", py.get_type::<Closed>())?;
    Ok(())
}

/// Raises what an engine bug caught by the engine's own checks raises (a
/// segment the writer refuses), so a test can check how such a failure
/// reaches Python: no input can cause one on purpose. Not API.
#[pyfunction]
pub fn _raise_engine_bug() -> PyResult<()> {
    Err(engine(stratagraph::Error::InvalidSegmentInput {
        vertex: 0,
        what: "raised on purpose by _raise_engine_bug".into(),
    }))
}
