//! Arrow tables in and out through the Arrow PyCapsule interface
//! (`__arrow_c_stream__`), which pyarrow, polars, pandas (2.2 and later)
//! and DuckDB all speak: batches cross without a copy and without a
//! pyarrow dependency in this crate.

use std::ffi::CStr;

use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::{RecordBatch, RecordBatchIterator, RecordBatchReader};
use arrow_schema::SchemaRef;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

/// The capsule name the Arrow C stream interface fixes.
const STREAM: &CStr = c"arrow_array_stream";

/// A table as an Arrow C stream: pass it to `pyarrow.table(...)`,
/// `polars.DataFrame(...)` or `duckdb.arrow(...)`. Each
/// `__arrow_c_stream__` call hands out the whole table again (the batches
/// are shared, not copied).
#[pyclass(frozen, module = "stratagraph", name = "ArrowStream")]
pub struct PyArrowStream {
    schema: SchemaRef,
    batches: Vec<RecordBatch>,
}

impl PyArrowStream {
    pub fn new(schema: SchemaRef, batches: Vec<RecordBatch>) -> Self {
        PyArrowStream { schema, batches }
    }
}

#[pymethods]
impl PyArrowStream {
    /// The Arrow PyCapsule interface: a capsule holding an
    /// `ArrowArrayStream`. `requested_schema` is accepted and ignored (the
    /// table has one schema; a consumer casts if it wants another).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let _ = requested_schema;
        let reader = RecordBatchIterator::new(
            self.batches.clone().into_iter().map(Ok),
            self.schema.clone(),
        );
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, STREAM)
    }

    /// Rows in the table.
    fn __len__(&self) -> usize {
        self.batches.iter().map(RecordBatch::num_rows).sum()
    }

    fn __repr__(&self) -> String {
        let names: Vec<&str> = self
            .schema
            .fields()
            .iter()
            .map(|f| f.name().as_str())
            .collect();
        format!(
            "<stratagraph.ArrowStream: {} rows, columns {names:?}>",
            self.__len__()
        )
    }
}

/// Reads every batch of `obj`, anything with `__arrow_c_stream__` (a
/// pyarrow Table or RecordBatchReader, a polars or pandas DataFrame, ...).
/// `arg` names the argument in errors.
pub fn read_stream(obj: &Bound<'_, PyAny>, arg: &str) -> PyResult<(SchemaRef, Vec<RecordBatch>)> {
    if !obj.hasattr("__arrow_c_stream__")? {
        return Err(PyTypeError::new_err(format!(
            "{arg}: expected an Arrow table (anything with __arrow_c_stream__: a pyarrow \
             Table, a polars or pandas DataFrame), got {}",
            obj.get_type().name()?
        )));
    }
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{arg}: __arrow_c_stream__ did not return a capsule"
        ))
    })?;
    let ptr = capsule.pointer_checked(Some(STREAM))?;
    let stream = take_stream(ptr.cast::<FFI_ArrowArrayStream>().as_ptr());
    let reader = RecordBatchStreamReader::try_new(stream)
        .map_err(|e| PyTypeError::new_err(format!("{arg}: {e}")))?;
    let schema: SchemaRef = reader.schema();
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| PyTypeError::new_err(format!("{arg}: reading the stream: {e}")))?;
    Ok((schema, batches))
}

/// Moves the stream out of the capsule's memory, leaving a released
/// (empty) one behind, as the C stream interface has a consumer do.
///
/// SAFETY: `ptr` comes from a capsule named `arrow_array_stream`, which
/// the Arrow PyCapsule interface guarantees points to a valid, initialised
/// `ArrowArrayStream` that the consumer may move out of; the capsule's own
/// destructor then sees `release == NULL` and frees nothing twice
/// (`tests/test_arrow.py` round-trips pyarrow, polars-free and empty
/// tables through here).
#[allow(unsafe_code)]
fn take_stream(ptr: *mut FFI_ArrowArrayStream) -> FFI_ArrowArrayStream {
    unsafe { FFI_ArrowArrayStream::from_raw(ptr) }
}
