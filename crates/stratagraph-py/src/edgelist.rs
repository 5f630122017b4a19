//! `read_edgelist`'s reader: the edge-list grammar of `stratagraph_io`, the
//! same parser `stratagraph load` uses, driven batch by batch from Python
//! so the Python side can show progress between batches.

use parking_lot::Mutex;
use pyo3::exceptions::{PyOSError, PyTypeError};
use pyo3::prelude::*;
use stratagraph_io::{EdgeListError, Grammar, Reader, Weights};

use crate::errors::{self, InvalidInput};
use crate::graph::PyGraph;

/// An edge-list file being loaded into a graph. Not API: `read_edgelist`
/// is.
#[pyclass(frozen, module = "stratagraph._native", name = "_EdgeListReader")]
pub struct PyEdgeListReader {
    /// Locked only by the one call that reads the next batch.
    reader: Mutex<Reader>,
}

/// Converts a read or load failure into the Python exception of its kind:
/// `OSError` (with errno and file name) when the file cannot be read,
/// `InvalidInput` for a malformed line or a damaged gzip stream, and the
/// engine's class for a refused record or a failed store, with the file
/// and line in front of the engine's message.
fn error(err: EdgeListError) -> PyErr {
    let msg = err.to_string();
    match err {
        EdgeListError::Io { path, source } => match source.raw_os_error() {
            Some(code) => PyOSError::new_err((code, source.to_string(), path.into_os_string())),
            None => PyOSError::new_err(msg),
        },
        EdgeListError::Compressed { .. } | EdgeListError::Malformed { .. } => {
            InvalidInput::new_err(msg)
        }
        EdgeListError::Refused { source, .. } | EdgeListError::Store { source, .. } => {
            errors::engine_with_message(source, msg)
        }
    }
}

#[pymethods]
impl PyEdgeListReader {
    /// Opens ``path``. ``comments`` lists the comment markers;
    /// ``weighted`` is ``None`` (a line's third field is its weight, 1.0
    /// when absent), ``True`` (every line must have one) or ``False``
    /// (weights ignored).
    #[new]
    #[pyo3(signature = (path, comments, weighted))]
    fn new(
        path: std::path::PathBuf,
        comments: Vec<String>,
        weighted: Option<bool>,
    ) -> PyResult<Self> {
        if comments.iter().any(String::is_empty) {
            return Err(PyTypeError::new_err("comments: a marker cannot be empty"));
        }
        let grammar = Grammar {
            comments: comments.into_iter().map(String::into_bytes).collect(),
            weights: match weighted {
                None => Weights::PerLine,
                Some(true) => Weights::Required,
                Some(false) => Weights::Ignore,
            },
            ..Grammar::default()
        };
        let reader = Reader::open(path, grammar).map_err(error)?;
        Ok(PyEdgeListReader {
            reader: Mutex::new(reader),
        })
    }

    /// Size of the file in bytes.
    #[getter]
    fn file_size(&self) -> u64 {
        self.reader.lock().file_size()
    }

    /// Bytes of the file read so far.
    #[getter]
    fn bytes_read(&self) -> u64 {
        self.reader.lock().bytes_read()
    }

    /// Reads up to ``max_edges`` edges and inserts them into ``graph`` as
    /// one batch, without the GIL; returns how many (0 at the end).
    fn load_batch(&self, py: Python<'_>, graph: &PyGraph, max_edges: usize) -> PyResult<usize> {
        graph.with(|g| {
            let mut guard = self.reader.lock();
            // The guard stays on this thread; the reader it lends is Send.
            let reader: &mut Reader = &mut guard;
            py.detach(|| reader.load_batch(g, max_edges)).map_err(error)
        })
    }
}
