//! Property edges at the Python boundary: what the arguments of
//! `add_edge(u, v, label_or_weight, /, **properties)` ask for, and edges
//! as Python dicts.
//!
//! `add_edge` serves both kinds of edge: a number (or nothing, or
//! `weight=`) as the third argument means the weighted edge `u -> v` (one
//! per pair, the structure the analytics scan), a `str` means a new
//! property edge with that label and the keyword arguments as properties.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyString};
use stratagraph::{Edge, Value};

use crate::conversions as conv;
use crate::values::{self, Properties};
use crate::vertices::{self, KeyDict, Shown};

/// What an `add_edge` call asks for.
pub enum EdgeArgs {
    /// The weighted edge with this weight.
    Weighted(f64),
    /// A new property edge with this label and these properties.
    Property(String, Properties),
}

/// The meaning of `add_edge`'s third argument and keyword arguments.
///
/// # Errors
/// `TypeError` for a third argument that is neither a `str` nor a real
/// number (a `bool` is not one here), keyword arguments other than
/// `weight` without a label, or a weight given twice; as
/// [`values::properties`] for a property value.
pub fn add_edge_args(
    third: Option<&Bound<'_, PyAny>>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<EdgeArgs> {
    let third = third.filter(|x| !x.is_none());
    if let Some(label) = third.and_then(|x| x.cast::<PyString>().ok()) {
        let label = label.to_cow()?.into_owned();
        return Ok(EdgeArgs::Property(label, values::properties(kwargs)?));
    }
    let mut weight = match third {
        Some(x) => Some(conv::weight(x, "weight").map_err(|e| {
            if e.is_instance_of::<PyTypeError>(x.py()) {
                PyTypeError::new_err(format!(
                    "add_edge: the third argument is a label (str, for a property edge) or a \
                     weight (a real number, for the weighted edge), not a {}",
                    conv::type_name(x)
                ))
            } else {
                e
            }
        })?),
        None => None,
    };
    for (key, value) in kwargs.into_iter().flat_map(|d| d.iter()) {
        let key: String = key.extract()?;
        if key != "weight" {
            return Err(PyTypeError::new_err(format!(
                "add_edge: keyword argument {key:?} without a label: only property edges have \
                 properties; give the label (a str) as the third argument"
            )));
        }
        if weight.is_some() {
            return Err(PyTypeError::new_err(
                "add_edge: the weight is given twice (as the third argument and as weight=)",
            ));
        }
        weight = Some(conv::weight(&value, "weight")?);
    }
    Ok(EdgeArgs::Weighted(weight.unwrap_or(1.0)))
}

/// The two ends of an edge as a result shows them.
pub type Ends = (Shown, Shown);

/// The ends of `edges` as a result shows them (keys in a string-keyed
/// store), read while the store is at hand.
pub fn ends<D: KeyDict>(keys: Option<&D>, edges: &[Edge]) -> Vec<Ends> {
    edges
        .iter()
        .map(|e| (vertices::shown(keys, e.src), vertices::shown(keys, e.dst)))
        .collect()
}

/// Edge `e` as ``{"id", "src", "dst", "label"}``, its ends shown as
/// `ends` says.
pub fn dict<'py>(py: Python<'py>, e: &Edge, ends: &Ends) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    dict.set_item("id", e.id)?;
    dict.set_item("src", &ends.0)?;
    dict.set_item("dst", &ends.1)?;
    dict.set_item("label", &*e.label)?;
    Ok(dict)
}

/// Edge `e` as ``{"id", "src", "dst", "label", "properties"}``.
pub fn dict_with<'py, K: AsRef<str>>(
    py: Python<'py>,
    e: &Edge,
    ends: &Ends,
    props: &[(K, Value)],
) -> PyResult<Bound<'py, PyDict>> {
    let dict = dict(py, e, ends)?;
    dict.set_item("properties", values::dict(py, props)?)?;
    Ok(dict)
}

/// A list of edge dicts, in the order given; `ends` as [`ends`] made them.
pub fn list<'py>(py: Python<'py>, edges: &[Edge], ends: &[Ends]) -> PyResult<Bound<'py, PyList>> {
    let items = edges
        .iter()
        .zip(ends)
        .map(|(e, ends)| dict(py, e, ends))
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// The other ends of `v`'s edges read on side `out` (out-edges: their
/// destinations; in-edges: their sources), once per edge.
pub fn other_ends(edges: &[Edge], out: bool) -> Vec<u64> {
    edges
        .iter()
        .map(|e| if out { e.dst } else { e.src })
        .collect()
}

/// The ids of `edges`, in the order given.
pub fn ids(edges: &[Edge]) -> Vec<u64> {
    edges.iter().map(|e| e.id).collect()
}

/// The error for a property edge that does not exist in the view read.
pub fn missing(e: u64, where_: &str) -> PyErr {
    crate::errors::NotFound::new_err(format!("edge {e} does not exist{where_}"))
}
