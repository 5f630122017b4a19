//! Argument checking and array conversion at the Python boundary.
//!
//! Vertex ids are unsigned 64-bit integers. Python callers pass ints, numpy
//! scalars, lists or arrays of any integer dtype; these helpers accept all of
//! them, refuse what would silently change a value (negative ids, floats,
//! bools), and name the offending argument in the `TypeError`/`ValueError`,
//! because PyO3's own messages for integer overflow are `OverflowError`s that
//! do not say which id was wrong. A vertex argument may also be a `str` key
//! ([`VertexArg`], [`vertex_batch`]); what a key means depends on the store
//! (`vertices.rs`).

use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1, PyUntypedArrayMethods};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyModule, PyString, PyTuple};

/// The `numpy` module, imported once per interpreter.
pub fn numpy(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static NUMPY: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    NUMPY
        .get_or_try_init(py, || py.import("numpy").map(Bound::unbind))
        .map(|m| m.bind(py))
}

/// Python's name for the type of `obj`, for error messages.
pub(crate) fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".to_owned())
}

/// One vertex id. `arg` names the parameter in error messages.
///
/// # Errors
/// `TypeError` for anything that is not an integer (bools included: `True`
/// as a vertex id is almost always a bug), `ValueError` for an integer
/// outside `0..2**64`.
pub fn vertex(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<u64> {
    id(obj, arg, "vertex")
}

/// A vertex argument as Python gave it: an integer id, or a `str` key,
/// which only a store created with `string_ids=True` takes (`vertices.rs`
/// resolves it against the store).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VertexArg {
    /// An integer id (a key's id in a string-keyed store).
    Id(u64),
    /// A string key.
    Key(String),
}

/// As messages show a vertex: `7`, or `"marko"`.
impl std::fmt::Display for VertexArg {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            VertexArg::Id(v) => write!(f, "{v}"),
            VertexArg::Key(k) => write!(f, "{k:?}"),
        }
    }
}

/// One vertex argument: a `str` key, or an integer id as [`vertex`] takes
/// it.
///
/// # Errors
/// As [`vertex`] for anything that is neither.
#[inline]
pub fn vertex_arg(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<VertexArg> {
    // A flag test, cheaper than the integer conversion it goes before.
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(VertexArg::Key(s.to_cow()?.into_owned()));
    }
    vertex(obj, arg).map(VertexArg::Id)
}

/// One property-edge id, checked as vertex ids are.
///
/// # Errors
/// As [`vertex`].
pub fn edge(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<u64> {
    id(obj, arg, "edge")
}

#[inline]
fn id(obj: &Bound<'_, PyAny>, arg: &str, what: &str) -> PyResult<u64> {
    if let Ok(v) = obj.extract::<u64>() {
        if !obj.is_instance_of::<PyBool>() {
            return Ok(v);
        }
    }
    id_error(obj, arg, what)
}

#[cold]
fn id_error<T>(obj: &Bound<'_, PyAny>, arg: &str, what: &str) -> PyResult<T> {
    let integral = obj.is_instance_of::<PyInt>() || obj.hasattr("__index__").unwrap_or(false);
    if integral && !obj.is_instance_of::<PyBool>() {
        Err(PyValueError::new_err(format!(
            "{arg}: {what} id {obj} is out of range (ids are integers in 0..2**64)"
        )))
    } else {
        Err(PyTypeError::new_err(format!(
            "{arg}: expected an integer {what} id, got {}",
            type_name(obj)
        )))
    }
}

/// An edge weight given alone (not in a batch): a real number, which a
/// `bool` is not here (`add_edge(u, v, True)` is almost always a bug).
///
/// # Errors
/// `TypeError` naming `arg` for anything else.
pub fn weight(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<f64> {
    if obj.is_instance_of::<PyFloat>()
        || (obj.is_instance_of::<PyInt>() && !obj.is_instance_of::<PyBool>())
    {
        return obj.extract();
    }
    let numpy_bool = || -> PyResult<bool> { obj.is_instance(&numpy(obj.py())?.getattr("bool_")?) };
    if obj.is_instance_of::<PyBool>() || obj.is_instance_of::<PyString>() || numpy_bool()? {
        return Err(weight_error(obj, arg));
    }
    obj.extract().map_err(|_| weight_error(obj, arg))
}

#[cold]
fn weight_error(obj: &Bound<'_, PyAny>, arg: &str) -> PyErr {
    PyTypeError::new_err(format!(
        "{arg}: expected a weight (a real number), got {}",
        type_name(obj)
    ))
}

/// Which of a vertex's property edges to read, from its Python spelling.
///
/// # Errors
/// `ValueError` for anything but `"out"`, `"in"` and `"both"`.
pub fn edge_direction(value: &str) -> PyResult<stratagraph::EdgeDirection> {
    use stratagraph::EdgeDirection;
    match value {
        "out" => Ok(EdgeDirection::Out),
        "in" => Ok(EdgeDirection::In),
        "both" => Ok(EdgeDirection::Both),
        _ => Err(PyValueError::new_err(format!(
            "direction: expected \"out\", \"in\" or \"both\", got {value:?}"
        ))),
    }
}

/// A non-negative count (threads, iterations) that fits `limit`.
///
/// # Errors
/// `ValueError` naming `arg` if `value` is negative or above `limit`.
pub fn count(value: i64, arg: &str, limit: u64) -> PyResult<u64> {
    match u64::try_from(value) {
        Ok(v) if v <= limit => Ok(v),
        _ => Err(PyValueError::new_err(format!(
            "{arg}: expected an integer in 0..={limit}, got {value}"
        ))),
    }
}

/// `Options::max_vertex_ids` from its Python spelling (`None`: no cap
/// below the engine's own).
pub fn max_vertex_ids(value: Option<i64>) -> PyResult<u64> {
    let most = stratagraph::Options::default().max_vertex_ids;
    value.map_or(Ok(most), |v| count(v, "max_vertex_ids", most))
}

/// A thread count (0 = all cores), bounded as every front end bounds it.
pub fn threads(value: i64) -> PyResult<usize> {
    stratagraph_algo::params::threads(i128::from(value)).map_err(value_error)
}

/// `threads`' bounds for ``compaction_threads``, named so in the error.
pub fn compaction_threads(value: i64) -> PyResult<usize> {
    stratagraph_algo::params::threads(i128::from(value)).map_err(|e| {
        value_error(stratagraph_algo::InvalidParameter {
            name: "compaction_threads",
            ..e
        })
    })
}

/// PageRank's damping factor, checked as every front end checks it.
pub fn damping(value: f64) -> PyResult<f64> {
    stratagraph_algo::params::damping(value).map_err(value_error)
}

fn value_error(e: stratagraph_algo::InvalidParameter) -> PyErr {
    PyValueError::new_err(e.to_string())
}

/// Edge labels: one ``str``, or an iterable of them.
///
/// # Errors
/// `TypeError` naming `arg` for anything else.
pub fn labels(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<Vec<String>> {
    if let Ok(one) = obj.extract::<String>() {
        return Ok(vec![one]);
    }
    let not_labels = || {
        pyo3::exceptions::PyTypeError::new_err(format!(
            "{arg}: expected a str or an iterable of str, got {}",
            obj.get_type()
                .name()
                .map_or_else(|_| "?".to_owned(), |n| n.to_string())
        ))
    };
    let items = obj.try_iter().map_err(|_| not_labels())?;
    let mut out = Vec::new();
    for item in items {
        out.push(item?.extract::<String>().map_err(|_| not_labels())?);
    }
    Ok(out)
}

/// `update_policy=` of `Graph.open`: "delta", "pivot" or "adaptive:SHARE"
/// with SHARE the expected share of look-ups, a number from 0 to 1.
pub fn update_policy(value: &str) -> PyResult<stratagraph::UpdatePolicy> {
    stratagraph::UpdatePolicy::parse(value).ok_or_else(|| {
        pyo3::exceptions::PyValueError::new_err(format!(
            "update_policy: expected \"delta\", \"pivot\" or \"adaptive:SHARE\" (SHARE the \
             share of look-ups among reads and writes, from 0 to 1), got {value:?}"
        ))
    })
}

/// The log's sync policy from its Python spelling: `"always"`, `"never"`
/// or `"interval:MS"` (milliseconds, 1 or more).
pub fn sync_policy(value: &str) -> PyResult<stratagraph::SyncPolicy> {
    use stratagraph::SyncPolicy;
    let bad = || {
        pyo3::exceptions::PyValueError::new_err(format!(
            "sync: expected \"always\", \"never\" or \"interval:MS\" (MS a positive \
             number of milliseconds), got {value:?}"
        ))
    };
    match value {
        "always" => Ok(SyncPolicy::Always),
        "never" => Ok(SyncPolicy::Never),
        _ => {
            let ms: u64 = value
                .strip_prefix("interval:")
                .and_then(|ms| ms.parse().ok())
                .filter(|&ms| ms > 0)
                .ok_or_else(bad)?;
            Ok(SyncPolicy::Interval(std::time::Duration::from_millis(ms)))
        }
    }
}

/// `np.asarray(obj)` with a `TypeError` naming `arg` if numpy cannot make
/// an array of it or `obj` is a scalar, and a `ValueError` if it has more
/// than one dimension.
fn as_1d<'py>(obj: &Bound<'py, PyAny>, arg: &str) -> PyResult<Bound<'py, PyAny>> {
    let py = obj.py();
    let arr = numpy(py)?.call_method1("asarray", (obj,)).map_err(|e| {
        PyTypeError::new_err(format!(
            "{arg}: expected an array of vertex ids, got {} ({e})",
            type_name(obj)
        ))
    })?;
    let ndim: usize = arr.getattr("ndim")?.extract()?;
    if ndim == 0 {
        return Err(PyTypeError::new_err(format!(
            "{arg}: expected an array-like of vertex ids, got {}",
            type_name(obj)
        )));
    }
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "{arg}: expected a 1-D array, got {ndim} dimensions"
        )));
    }
    Ok(arr)
}

fn dtype_of(arr: &Bound<'_, PyAny>) -> PyResult<(String, String)> {
    let dtype = arr.getattr("dtype")?;
    Ok((
        dtype.getattr("kind")?.extract()?,
        dtype.getattr("name")?.extract()?,
    ))
}

/// A contiguous `uint64` view of `obj` (any buffer, sequence or array of
/// integers), made without a Python-level loop except for object arrays.
///
/// # Errors
/// `TypeError` for non-integer element types, `ValueError` for negative
/// ids (naming the first one's index) or more than one dimension.
pub fn ids<'py>(obj: &Bound<'py, PyAny>, arg: &str) -> PyResult<PyReadonlyArray1<'py, u64>> {
    if let Ok(a) = obj.cast::<PyArray1<u64>>() {
        if a.is_contiguous() {
            return Ok(a.try_readonly()?);
        }
    }
    ids_of(as_1d(obj, arg)?, arg)
}

/// [`ids`] of `arr`, a 1-D array numpy made.
fn ids_of<'py>(arr: Bound<'py, PyAny>, arg: &str) -> PyResult<PyReadonlyArray1<'py, u64>> {
    let py = arr.py();
    let np = numpy(py)?;
    let size: usize = arr.getattr("size")?.extract()?;
    let (kind, name) = dtype_of(&arr)?;
    let arr = match kind.as_str() {
        _ if size == 0 => arr,
        "u" => arr,
        "i" => {
            let min: i64 = arr.call_method0("min")?.extract()?;
            if min < 0 {
                let at: usize = arr.call_method0("argmin")?.extract()?;
                return Err(PyValueError::new_err(format!(
                    "{arg}: vertex ids must be >= 0, but element {at} is {min}"
                )));
            }
            arr
        }
        "O" => {
            // Python ints beyond int64 (or mixed objects): check one by one,
            // which also names the first bad element.
            let mut out = Vec::with_capacity(size);
            for (i, item) in arr.try_iter()?.enumerate() {
                out.push(vertex(&item?, &format!("{arg}[{i}]"))?);
            }
            return Ok(PyArray1::from_vec(py, out).readonly());
        }
        _ => {
            return Err(PyTypeError::new_err(format!(
                "{arg}: expected integer vertex ids, got an array of {name}"
            )))
        }
    };
    let contiguous = np.call_method1("ascontiguousarray", (arr, np.getattr("uint64")?))?;
    Ok(contiguous.cast_into::<PyArray1<u64>>()?.try_readonly()?)
}

/// [`ids`] of `obj`, or of any other iterable of ids (a generator, say),
/// read into a list first.
///
/// # Errors
/// As [`ids`].
pub fn id_iterable<'py>(
    obj: &Bound<'py, PyAny>,
    arg: &str,
) -> PyResult<PyReadonlyArray1<'py, u64>> {
    if obj.hasattr("__next__")? {
        let items = obj.try_iter()?.collect::<PyResult<Vec<_>>>()?;
        return ids(PyList::new(obj.py(), items)?.as_any(), arg);
    }
    ids(obj, arg)
}

/// The vertices of a batch call as Python gave them.
pub enum VertexBatch<'py> {
    /// Integer ids only, as one array (the fast path: no Python loop).
    Ids(PyReadonlyArray1<'py, u64>),
    /// Element by element, `str` keys among them.
    Args(Vec<VertexArg>),
}

impl VertexBatch<'_> {
    /// Number of vertices.
    pub fn len(&self) -> PyResult<usize> {
        Ok(match self {
            VertexBatch::Ids(a) => a.as_slice()?.len(),
            VertexBatch::Args(a) => a.len(),
        })
    }
}

/// The vertices of a batch: what [`ids`] takes, or a sequence holding `str`
/// keys (a list, tuple or numpy array of `str`; ints may stand beside them,
/// and are read as given, not as numpy would turn them into strings).
///
/// # Errors
/// As [`ids`]; for an element that is neither an integer nor a `str`, as
/// [`vertex`] naming it (`src[3]`).
pub fn vertex_batch<'py>(obj: &Bound<'py, PyAny>, arg: &str) -> PyResult<VertexBatch<'py>> {
    if let Ok(a) = obj.cast::<PyArray1<u64>>() {
        if a.is_contiguous() {
            return Ok(VertexBatch::Ids(a.try_readonly()?));
        }
    }
    let arr = as_1d(obj, arg)?;
    let (kind, _) = dtype_of(&arr)?;
    let items = match kind.as_str() {
        // numpy makes `[1, "a"]` an array of strings: read such a sequence
        // itself, so its ints stay ints.
        "U" if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() => obj.clone(),
        "U" | "O" => arr,
        _ => return ids_of(arr, arg).map(VertexBatch::Ids),
    };
    let mut out = Vec::with_capacity(items.len().unwrap_or(0));
    for (i, item) in items.try_iter()?.enumerate() {
        let item = item?;
        let one = if let Ok(s) = item.cast::<PyString>() {
            VertexArg::Key(s.to_cow()?.into_owned())
        } else {
            match item.extract::<u64>() {
                Ok(v) if !item.is_instance_of::<PyBool>() => VertexArg::Id(v),
                // The element's name is made only for the message.
                _ => vertex_arg(&item, &format!("{arg}[{i}]"))?,
            }
        };
        out.push(one);
    }
    Ok(VertexBatch::Args(out))
}

/// Edge weights for a batch: one value for every edge, or one array.
pub enum Weights<'py> {
    /// The same weight for every edge.
    Scalar(f64),
    /// One weight per edge.
    Array(PyReadonlyArray1<'py, f64>),
}

impl Weights<'_> {
    /// Zips ids and weights into the engine's batch form; the caller has
    /// checked that every length is the same.
    pub fn edges(&self, src: &[u64], dst: &[u64]) -> PyResult<Vec<(u64, u64, f64)>> {
        let pairs = src.iter().zip(dst);
        Ok(match self {
            Weights::Scalar(w) => pairs.map(|(&s, &d)| (s, d, *w)).collect(),
            Weights::Array(a) => pairs
                .zip(a.as_slice()?)
                .map(|((&s, &d), &w)| (s, d, w))
                .collect(),
        })
    }
}

/// `weights` for a batch of `n` edges: `None` (all 1.0), a number, or a
/// 1-D array-like of `n` numbers.
///
/// # Errors
/// `TypeError` for non-numeric values, `ValueError` for a length other
/// than `n`. Non-finite weights are left to the engine, which reports the
/// offending batch element.
pub fn weights<'py>(obj: Option<&Bound<'py, PyAny>>, n: usize) -> PyResult<Weights<'py>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else {
        return Ok(Weights::Scalar(1.0));
    };
    let not_numbers =
        |what: &str| PyTypeError::new_err(format!("weights: expected numbers, got {what}"));
    if obj.is_instance_of::<PyBool>() {
        return Err(not_numbers("bool"));
    }
    if obj.is_instance_of::<PyFloat>() || obj.is_instance_of::<PyInt>() {
        return Ok(Weights::Scalar(obj.extract()?));
    }
    let py = obj.py();
    let np = numpy(py)?;
    let arr = np.call_method1("asarray", (obj,)).map_err(|e| {
        PyTypeError::new_err(format!(
            "weights: expected a number or an array of numbers, got {} ({e})",
            type_name(obj)
        ))
    })?;
    let ndim: usize = arr.getattr("ndim")?.extract()?;
    let size: usize = arr.getattr("size")?.extract()?;
    let (kind, name) = dtype_of(&arr)?;
    if (size > 0 || ndim == 0) && !matches!(kind.as_str(), "f" | "i" | "u") {
        return Err(not_numbers(&format!("an array of {name}")));
    }
    // A numpy scalar (0-d) applies to every edge, like a Python number. A
    // one-element array does not: it must match the batch length.
    if ndim == 0 {
        return Ok(Weights::Scalar(arr.call_method0("item")?.extract()?));
    }
    if ndim != 1 {
        return Err(PyValueError::new_err(format!(
            "weights: expected a 1-D array, got {ndim} dimensions"
        )));
    }
    if size != n {
        return Err(PyValueError::new_err(format!(
            "weights: expected {n} weights (one per edge), got {size}"
        )));
    }
    let contiguous = np.call_method1("ascontiguousarray", (arr, np.getattr("float64")?))?;
    Ok(Weights::Array(
        contiguous.cast_into::<PyArray1<f64>>()?.try_readonly()?,
    ))
}

/// `ValueError` unless `src` and `dst` have the same length.
pub fn same_length(src: usize, dst: usize) -> PyResult<()> {
    if src == dst {
        Ok(())
    } else {
        Err(PyValueError::new_err(format!(
            "src and dst must have the same length, got {src} and {dst}"
        )))
    }
}
