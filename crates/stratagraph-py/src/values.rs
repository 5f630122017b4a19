//! Property values between Python and the engine's typed `Value`.
//!
//! Python natives map one way each: `None`, `bool`, `int` (as Int64),
//! `float` (Float64), `str`, `bytes`, `uuid.UUID`, an aware
//! `datetime.datetime`, `list`/`tuple`, `set`/`frozenset`, `dict`. The
//! engine's narrower types come from numpy scalars (`np.int8`, `np.int16`,
//! `np.int32`, `np.float32`, ...), so a value read from an array keeps its
//! type. Back in Python every integer is an `int` and every float a
//! `float`, as gremlinpython gives them.

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{
    PyBool, PyByteArray, PyBytes, PyDict, PyFloat, PyFrozenSet, PyInt, PyList, PyModule, PySet,
    PyString, PyTuple,
};
use stratagraph::{DateTime, Value, MAX_DEPTH};

fn module<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyModule>>,
    name: &str,
) -> PyResult<&'py Bound<'py, PyModule>> {
    cell.get_or_try_init(py, || py.import(name).map(Bound::unbind))
        .map(|m| m.bind(py))
}

fn datetime_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static M: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    module(py, &M, "datetime")
}

fn uuid_module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static M: PyOnceLock<Py<PyModule>> = PyOnceLock::new();
    module(py, &M, "uuid")
}

/// 1970-01-01T00:00:00Z as an aware `datetime`.
fn epoch(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    let dt = datetime_module(py)?;
    let utc = dt.getattr("timezone")?.getattr("utc")?;
    dt.getattr("datetime")?.call1((1970, 1, 1, 0, 0, 0, 0, utc))
}

/// Whole seconds and microseconds of a `timedelta`.
fn delta_parts(delta: &Bound<'_, PyAny>) -> PyResult<(i64, i64)> {
    let days: i64 = delta.getattr("days")?.extract()?;
    let seconds: i64 = delta.getattr("seconds")?.extract()?;
    let micros: i64 = delta.getattr("microseconds")?.extract()?;
    Ok((days * 86_400 + seconds, micros))
}

/// The engine value of `obj`; `what` names it in errors (a property key).
///
/// # Errors
/// `TypeError` for a type with no property value, `ValueError` for an
/// `int` outside 64 bits, a naive `datetime`, or nesting past the limit.
pub fn to_value(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    to_value_at(obj, what, 0)
}

fn to_value_at(obj: &Bound<'_, PyAny>, what: &str, depth: usize) -> PyResult<Value> {
    let py = obj.py();
    if depth > MAX_DEPTH {
        return Err(PyValueError::new_err(format!(
            "{what}: lists, sets and maps nest more than {MAX_DEPTH} levels deep"
        )));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Bool(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return obj.extract::<i64>().map(Value::Int64).map_err(|_| {
            PyValueError::new_err(format!(
                "{what}: integer {obj} does not fit 64 bits (a property integer is at most Int64)"
            ))
        });
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Value::Float64(obj.extract()?));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Value::Bytes(b.as_bytes().to_vec()));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Value::Bytes(b.to_vec()));
    }
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut items = Vec::new();
        for item in obj.try_iter()? {
            items.push(to_value_at(&item?, what, depth + 1)?);
        }
        return Ok(Value::List(items));
    }
    if obj.is_instance_of::<PySet>() || obj.is_instance_of::<PyFrozenSet>() {
        let mut items = Vec::new();
        for item in obj.try_iter()? {
            items.push(to_value_at(&item?, what, depth + 1)?);
        }
        return Ok(Value::set(items));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut pairs = Vec::with_capacity(d.len());
        for (k, v) in d.iter() {
            pairs.push((
                to_value_at(&k, what, depth + 1)?,
                to_value_at(&v, what, depth + 1)?,
            ));
        }
        // Python dict keys are unique by Python's equality; the engine's
        // (1 and 1.0 differ) keeps them apart too.
        return Value::map(pairs).map_err(|e| PyValueError::new_err(format!("{what}: {e}")));
    }
    if let Some(v) = numpy_scalar_by_type(obj, what)? {
        return Ok(v);
    }
    let dt = datetime_module(py)?;
    if obj.is_instance(&dt.getattr("datetime")?)? {
        let offset = obj.call_method0("utcoffset")?;
        if offset.is_none() {
            return Err(PyValueError::new_err(format!(
                "{what}: a naive datetime has no offset from UTC; give it a tzinfo"
            )));
        }
        let (offset, _) = delta_parts(&offset)?;
        let (seconds, micros) = delta_parts(&obj.sub(epoch(py)?)?)?;
        let nanos = u32::try_from(micros * 1000).unwrap_or(0);
        let offset = i32::try_from(offset).unwrap_or(i32::MAX);
        return DateTime::new(seconds, nanos, offset)
            .map(Value::DateTime)
            .ok_or_else(|| {
                PyValueError::new_err(format!("{what}: offset {offset} s out of range"))
            });
    }
    if obj.is_instance(&uuid_module(py)?.getattr("UUID")?)? {
        let bytes: Vec<u8> = obj.getattr("bytes")?.extract()?;
        let bytes: [u8; 16] = bytes
            .try_into()
            .map_err(|_| PyValueError::new_err(format!("{what}: a UUID of other than 16 bytes")))?;
        return Ok(Value::Uuid(bytes));
    }
    if let Some(v) = numpy_scalar(obj, what)? {
        return Ok(v);
    }
    Err(PyTypeError::new_err(format!(
        "{what}: a property value cannot be a {}",
        obj.get_type().name()?
    )))
}

/// The engine type a numpy scalar type maps to.
#[derive(Debug, Clone, Copy)]
enum NumpyKind {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    UInt64,
    Float32,
}

/// numpy's scalar types with an engine type, looked up once, so a value
/// is matched by the identity of its type: the general path below makes
/// half a dozen attribute look-ups, about 6 µs a value, which was most of
/// the time of a single `set_property` given an `np.int32`. (`np.float64`
/// is a Python `float` and never gets here.)
fn numpy_types(py: Python<'_>) -> PyResult<&[(Py<PyAny>, NumpyKind)]> {
    static TYPES: PyOnceLock<Vec<(Py<PyAny>, NumpyKind)>> = PyOnceLock::new();
    TYPES
        .get_or_try_init(py, || {
            let np = crate::conversions::numpy(py)?;
            [
                ("bool_", NumpyKind::Bool),
                ("int8", NumpyKind::Int8),
                ("int16", NumpyKind::Int16),
                ("uint8", NumpyKind::Int16),
                ("int32", NumpyKind::Int32),
                ("uint16", NumpyKind::Int32),
                ("int64", NumpyKind::Int64),
                ("uint32", NumpyKind::Int64),
                ("uint64", NumpyKind::UInt64),
                ("float32", NumpyKind::Float32),
            ]
            .into_iter()
            .map(|(name, kind)| Ok((np.getattr(name)?.unbind(), kind)))
            .collect()
        })
        .map(Vec::as_slice)
}

/// `obj` as the engine type of its numpy scalar type, if its type is one
/// of `numpy_types` (a platform's other aliases, such as `np.longlong`
/// where it differs from `np.int64`, take the general path).
fn numpy_scalar_by_type(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<Value>> {
    let ty = obj.get_type();
    let Some(kind) = numpy_types(obj.py())?
        .iter()
        .find(|(t, _)| ty.is(t))
        .map(|(_, k)| *k)
    else {
        return Ok(None);
    };
    // numpy's integers convert through `__index__`, its floats through
    // `__float__`; the type bounds the value, so the casts are exact.
    let int = || obj.extract::<i64>();
    Ok(Some(match kind {
        NumpyKind::Bool => Value::Bool(obj.is_truthy()?),
        NumpyKind::Int8 => Value::Int8(int()? as i8),
        NumpyKind::Int16 => Value::Int16(int()? as i16),
        NumpyKind::Int32 => Value::Int32(int()? as i32),
        NumpyKind::Int64 => Value::Int64(int()?),
        NumpyKind::UInt64 => Value::Int64(
            int()
                .map_err(|_| PyValueError::new_err(format!("{what}: {obj} does not fit Int64")))?,
        ),
        NumpyKind::Float32 => Value::Float32(obj.extract::<f64>()? as f32),
    }))
}

/// A numpy scalar as the engine type of its dtype.
fn numpy_scalar(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Option<Value>> {
    let np = crate::conversions::numpy(obj.py())?;
    if !obj.is_instance(&np.getattr("generic")?)? {
        return Ok(None);
    }
    let dtype: String = obj.getattr("dtype")?.getattr("name")?.extract()?;
    let int = |obj: &Bound<'_, PyAny>| obj.call_method0("item")?.extract::<i64>();
    Ok(Some(match dtype.as_str() {
        "bool" => Value::Bool(obj.call_method0("item")?.extract()?),
        "int8" => Value::Int8(obj.call_method0("item")?.extract()?),
        "int16" | "uint8" => Value::Int16(obj.call_method0("item")?.extract()?),
        "int32" | "uint16" => Value::Int32(obj.call_method0("item")?.extract()?),
        "int64" | "uint32" => Value::Int64(int(obj)?),
        "uint64" => Value::Int64(
            int(obj)
                .map_err(|_| PyValueError::new_err(format!("{what}: {obj} does not fit Int64")))?,
        ),
        "float32" => Value::Float32(obj.call_method0("item")?.extract::<f64>()? as f32),
        "float64" => Value::Float64(obj.call_method0("item")?.extract()?),
        other => {
            return Err(PyTypeError::new_err(format!(
                "{what}: a property value cannot be a numpy {other}"
            )))
        }
    }))
}

/// Property pairs as Python gave them, converted.
pub type Properties = Vec<(String, Value)>;

/// The property pairs of a `**properties` dict, converted.
///
/// # Errors
/// As [`to_value`], naming the key.
pub fn properties(props: Option<&Bound<'_, PyDict>>) -> PyResult<Properties> {
    let Some(props) = props else {
        return Ok(Vec::new());
    };
    let mut out = Vec::with_capacity(props.len());
    for (k, v) in props.iter() {
        let key: String = k.extract()?;
        let value = to_value(&v, &format!("property {key:?}"))?;
        out.push((key, value));
    }
    Ok(out)
}

/// What `add_vertex(v, label=None, **properties)` asks for beyond a bare
/// vertex: the label (the default if not given) and the properties, or
/// `None` if neither was given.
///
/// # Errors
/// As [`properties`].
pub fn vertex_args(
    label: Option<&str>,
    properties: Option<&Bound<'_, PyDict>>,
) -> PyResult<Option<(String, Properties)>> {
    let props = self::properties(properties)?;
    if label.is_none() && props.is_empty() {
        return Ok(None);
    }
    let label = label.unwrap_or(stratagraph::DEFAULT_LABEL).to_owned();
    Ok(Some((label, props)))
}

/// The pairs as the engine takes them.
pub fn borrowed(props: &[(String, Value)]) -> Vec<(&str, Value)> {
    props.iter().map(|(k, x)| (k.as_str(), x.clone())).collect()
}

/// `value` in Python, or `default` (None if not given) without one.
pub fn or_default(
    py: Python<'_>,
    value: Option<Value>,
    default: Option<Py<PyAny>>,
) -> PyResult<Py<PyAny>> {
    match value {
        Some(value) => from_value(py, &value),
        None => Ok(default.unwrap_or_else(|| py.None())),
    }
}

/// A dict of property pairs as the engine returns them.
pub fn dict<'py, K: AsRef<str>>(
    py: Python<'py>,
    props: &[(K, Value)],
) -> PyResult<Bound<'py, PyDict>> {
    let dict = PyDict::new(py);
    for (k, v) in props {
        dict.set_item(k.as_ref(), from_value(py, v)?)?;
    }
    Ok(dict)
}

/// The Python value of `value`.
pub fn from_value(py: Python<'_>, value: &Value) -> PyResult<Py<PyAny>> {
    Ok(match value {
        Value::Null => py.None(),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Int8(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::Int16(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::Int32(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::Int64(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::Float32(x) => f64::from(*x).into_pyobject(py)?.into_any().unbind(),
        Value::Float64(x) => x.into_pyobject(py)?.into_any().unbind(),
        Value::String(s) => PyString::new(py, s).into_any().unbind(),
        Value::Bytes(b) => PyBytes::new(py, b).into_any().unbind(),
        Value::Uuid(u) => {
            let kwargs = PyDict::new(py);
            kwargs.set_item("bytes", PyBytes::new(py, u))?;
            uuid_module(py)?
                .getattr("UUID")?
                .call((), Some(&kwargs))?
                .unbind()
        }
        Value::DateTime(d) => {
            let dt = datetime_module(py)?;
            let delta = dt.getattr("timedelta")?;
            let kwargs = PyDict::new(py);
            kwargs.set_item("seconds", d.seconds)?;
            kwargs.set_item("microseconds", d.nanos / 1000)?;
            let instant = epoch(py)?.add(delta.call((), Some(&kwargs))?)?;
            let offset = delta.call1((0, d.offset_seconds))?;
            let tz = dt.getattr("timezone")?.call1((offset,))?;
            instant.call_method1("astimezone", (tz,))?.unbind()
        }
        Value::List(items) => {
            let items: Vec<Py<PyAny>> = items
                .iter()
                .map(|v| from_value(py, v))
                .collect::<PyResult<_>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::Set(items) => {
            let set = PySet::empty(py)?;
            for v in items {
                set.add(from_value(py, v)?)?;
            }
            set.into_any().unbind()
        }
        Value::Map(pairs) => {
            let dict = PyDict::new(py);
            for (k, v) in pairs {
                dict.set_item(from_value(py, k)?, from_value(py, v)?)?;
            }
            dict.into_any().unbind()
        }
    })
}
