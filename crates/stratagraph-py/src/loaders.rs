//! `Graph.load_graphson` and `Graph.load_csv`: the property-graph loaders
//! of `stratagraph_io` (the parsers `stratagraph load --graphson`,
//! `--vertices` and `--edges` use) at the Python boundary. The loads
//! themselves run without the GIL (in `graph.rs`); this file converts the
//! arguments, the result and the errors.
//!
//! A load commits a transaction every `batch` records, so a failure leaves
//! the batches before it loaded. Every error says so: its message ends
//! with what stayed, and the exception carries `file`, `line`, `field` and
//! `loaded` (the counts as the successful call returns them) as attributes.

use std::path::PathBuf;

use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use stratagraph_io::csv::CsvFile;
use stratagraph_io::{LoadError, LoadOptions, Loaded};

use crate::conversions as conv;
use crate::errors::{self, InvalidInput};

/// `LoadOptions` from the `batch` keyword argument.
///
/// # Errors
/// `ValueError` unless `batch` is a positive integer.
pub fn options(batch: i64) -> PyResult<LoadOptions> {
    let batch = conv::count(batch, "batch", i64::MAX as u64)?;
    if batch == 0 {
        return Err(PyValueError::new_err(
            "batch: expected a positive integer (records per transaction), got 0",
        ));
    }
    Ok(LoadOptions {
        batch: usize::try_from(batch).unwrap_or(usize::MAX),
    })
}

/// Whether `obj` is one path rather than a collection of them.
fn is_path(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(obj.is_instance_of::<PyString>() || obj.hasattr("__fspath__")?)
}

fn path(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<PathBuf> {
    if !is_path(obj)? {
        return Err(PyTypeError::new_err(format!(
            "{arg}: expected a path (str or os.PathLike) or a (label, path) pair, got {}",
            conv::type_name(obj)
        )));
    }
    obj.extract()
}

fn labelled(label: &Bound<'_, PyAny>, file: &Bound<'_, PyAny>, arg: &str) -> PyResult<CsvFile> {
    let label = label.cast::<PyString>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{arg}: a labelled file is a (label, path) pair with a str label, got a {} label",
            conv::type_name(label)
        ))
    })?;
    Ok(CsvFile::labelled(path(file, arg)?, &label.to_cow()?))
}

/// The CSV files of `load_csv`'s `vertices` or `edges` argument (`arg`
/// names it): `None`; one path; a dict `{label: path}`; or an iterable of
/// paths and `(label, path)` pairs, loaded in its order.
///
/// # Errors
/// `TypeError` naming the argument (and the item) for anything else.
pub fn csv_files(obj: Option<&Bound<'_, PyAny>>, arg: &str) -> PyResult<Vec<CsvFile>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Vec::new());
    };
    if is_path(obj)? {
        return Ok(vec![CsvFile::new(path(obj, arg)?)]);
    }
    if let Ok(dict) = obj.cast::<PyDict>() {
        return dict
            .iter()
            .map(|(label, file)| labelled(&label, &file, &format!("{arg}[{label:?}]")))
            .collect();
    }
    let items = obj.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "{arg}: expected a path, a sequence of paths and (label, path) pairs, or a dict \
             {{label: path}}, got {}",
            conv::type_name(obj)
        ))
    })?;
    let mut out = Vec::new();
    for (i, item) in items.enumerate() {
        let item = item?;
        let at = format!("{arg}[{i}]");
        match item.cast::<PyTuple>() {
            Ok(pair) if pair.len() == 2 => {
                out.push(labelled(&pair.get_item(0)?, &pair.get_item(1)?, &at)?)
            }
            Ok(pair) => {
                return Err(PyTypeError::new_err(format!(
                    "{at}: expected a (label, path) pair, got a tuple of {}",
                    pair.len()
                )))
            }
            Err(_) => out.push(CsvFile::new(path(&item, &at)?)),
        }
    }
    Ok(out)
}

/// `{"vertices": n, "edges": n, "batches": n}`.
pub fn loaded_dict(py: Python<'_>, loaded: Loaded) -> PyResult<Bound<'_, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("vertices", loaded.vertices)?;
    d.set_item("edges", loaded.edges)?;
    d.set_item("batches", loaded.batches)?;
    Ok(d)
}

fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// What a failed load left in the graph, as its message says it.
fn stayed(l: Loaded) -> String {
    if l.batches == 0 {
        return "nothing of this load was committed before it".to_owned();
    }
    format!(
        "committed before it and still loaded: {} and {} in {}",
        plural(l.vertices, "vertex", "vertices"),
        plural(l.edges, "property edge", "property edges"),
        plural(l.batches, "batch", "batches")
    )
}

/// The operating system's error number in an `std::io::Error` message
/// (`"No such file or directory (os error 2)"`), which `LoadError::Io`
/// keeps only as text.
fn os_error_code(message: &str) -> Option<i32> {
    let (_, code) = message.strip_suffix(')')?.rsplit_once("(os error ")?;
    code.parse().ok()
}

/// Converts a load failure into the Python exception of its kind, with the
/// file, line, field and what stayed loaded in its message and as the
/// attributes `file`, `line`, `field` (`None` where the error has none)
/// and `loaded`:
/// `InvalidInput` for a record that does not follow the format, the
/// engine's class (as `errors::engine` maps it) for a record the store
/// refused, and `OSError` (with errno and file name, as `read_edgelist`
/// raises it) for a file that cannot be opened or read.
/// The store kind a Parquet export needs, `(directed, string_ids)`, from
/// its `stratagraph.json` (for `stratagraph.read_parquet`). Not API.
#[pyfunction]
pub fn _parquet_kind(py: Python<'_>, path: PathBuf) -> PyResult<(bool, bool)> {
    stratagraph_io::graphar::stored_kind(&path).map_err(|e| error(py, e))
}

pub fn error(py: Python<'_>, err: LoadError) -> PyErr {
    let loaded = err.loaded();
    let msg = format!("{err}; {}", stayed(loaded));
    let (exc, file, line, field) = match err {
        LoadError::Io { file, message, .. } => {
            let strerror = if loaded.batches == 0 {
                message.clone()
            } else {
                format!("{message}; {}", stayed(loaded))
            };
            let name = file.clone().into_os_string();
            let exc = match os_error_code(&message) {
                Some(code) => PyOSError::new_err((code, strerror, name)),
                None => PyOSError::new_err(msg),
            };
            (exc, file, None, None)
        }
        LoadError::Malformed {
            file, line, field, ..
        } => (InvalidInput::new_err(msg), file, Some(line), Some(field)),
        LoadError::Table { file, column, .. } => (InvalidInput::new_err(msg), file, None, column),
        LoadError::Engine {
            file, line, source, ..
        } => (
            errors::engine_with_message(*source, msg),
            file,
            Some(line),
            None,
        ),
    };
    let attrs = || -> PyResult<()> {
        let value = exc.value(py);
        value.setattr("file", file.into_os_string())?;
        value.setattr("line", line)?;
        value.setattr("field", field)?;
        value.setattr("loaded", loaded_dict(py, loaded)?)?;
        Ok(())
    };
    match attrs() {
        Ok(()) => exc,
        Err(e) => e,
    }
}
