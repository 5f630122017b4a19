//! Python bindings for stratagraph: the native module `stratagraph._native`.
//!
//! The Python package (`python/stratagraph/`) re-exports these classes and
//! adds pure-Python helpers (networkx conversion, edge-list loading). Files
//! follow the Python concepts: `graph.rs` (the store and its writes),
//! `transaction.rs`, `snapshot.rs` (reads, extraction, analytics, with
//! `index.rs` and `analytics.rs` behind it), `errors.rs` (the exception
//! hierarchy), `conversions.rs` (argument checking and numpy arrays),
//! `values.rs` (property values to and from Python natives), `vertices.rs`
//! (vertex arguments meeting their store: ids, or keys in a string-keyed
//! store), `edges.rs`
//! (property edges: `add_edge`'s two meanings, edges as dicts),
//! `loaders.rs` (`Graph.load_graphson` and `Graph.load_csv`: arguments,
//! results and errors) and `speed.rs` (the Rust side of the Python speed benchmark).
//!
//! Every call that can take long releases the GIL; the engine's `Graph` and
//! `Snapshot` are `Send + Sync`, so the classes are `frozen` and need no
//! Python-level locking.

mod analytics;
mod arrow;
mod conversions;
mod edgelist;
mod edges;
mod errors;
mod graph;
mod index;
mod loaders;
mod snapshot;
mod speed;
mod transaction;
mod values;
mod vertices;

use pyo3::prelude::*;

#[pymodule]
#[pyo3(name = "_native")]
fn stratagraph_native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<graph::PyGraph>()?;
    m.add_class::<snapshot::PySnapshot>()?;
    m.add_class::<transaction::PyTransaction>()?;
    m.add_class::<arrow::PyArrowStream>()?;
    errors::register(m)?;
    m.add_class::<edgelist::PyEdgeListReader>()?;
    m.add_function(wrap_pyfunction!(errors::_raise_engine_bug, m)?)?;
    m.add_function(wrap_pyfunction!(loaders::_parquet_kind, m)?)?;
    m.add_function(wrap_pyfunction!(speed::_insert_each, m)?)?;
    m.add_function(wrap_pyfunction!(speed::_kernel_seconds, m)?)?;
    m.add_function(wrap_pyfunction!(speed::_last_kernel_seconds, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
