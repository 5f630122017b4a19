//! Vertex arguments meeting their store: integer ids, or `str` keys in a
//! store created with `string_ids=True`.
//!
//! Such a store gives each key a dense integer id the first time it sees
//! it (`Graph::intern_key`) and takes only those ids below its public API.
//! Here a [`VertexArg`] becomes one: a write that may create the vertex
//! gives a new key its id ([`create`]); a read, or a write that needs the
//! vertex to exist, only looks the key up ([`find`]), and a key never seen
//! names no vertex. Integers stay accepted there as key ids. A key in a
//! store of integer ids is refused with the engine's `WrongIdKind`
//! (`InvalidInput`), naming the argument.
//!
//! Results that hold one vertex (a vertex or edge dict) show its key
//! ([`Shown`]); arrays of vertices stay arrays of ids, which `keys()`
//! translates ([`keys_of`]).
//!
//! Everywhere below, `keys` is the store's dictionary when the store is
//! string-keyed and `None` when it names vertices by integers.

use std::borrow::Cow;
use std::sync::Arc;

use pyo3::prelude::*;
use stratagraph::{Element, Error, Graph, Snapshot};

use crate::conversions::{VertexArg, VertexBatch};
use crate::errors;

/// A store's key dictionary, as a graph or a snapshot reads it (keys are
/// never taken back, so both read the same one).
pub trait KeyDict {
    /// The id of `key`, if it was given one.
    fn key_id(&self, key: &str) -> Option<u64>;
    /// The key of id `v`, if it has one.
    fn key_of(&self, v: u64) -> Option<Arc<str>>;
}

impl KeyDict for Graph {
    fn key_id(&self, key: &str) -> Option<u64> {
        Graph::key_id(self, key)
    }
    fn key_of(&self, v: u64) -> Option<Arc<str>> {
        Graph::key_of(self, v)
    }
}

impl KeyDict for Snapshot {
    fn key_id(&self, key: &str) -> Option<u64> {
        Snapshot::key_id(self, key)
    }
    fn key_of(&self, v: u64) -> Option<Arc<str>> {
        Snapshot::key_of(self, v)
    }
}

/// `e` as the Python exception of its class, its message led by the
/// argument it is about.
fn refused(arg: &str, e: Error) -> PyErr {
    let msg = format!("{arg}: {e}");
    errors::engine_with_message(e, msg)
}

/// The refusal of `str` key `key`, given as `arg`, in a store of integer
/// ids.
pub fn key_in_integer_store(arg: &str, key: &str) -> PyErr {
    refused(
        arg,
        Error::WrongIdKind {
            vertex: format!("{key:?}"),
            what: "this store names vertices by integers (a store created with \
                   string_ids=True names them by str keys)"
                .into(),
        },
    )
}

/// The refusal of id `v`, given as `arg`, in a string-keyed store where no
/// key has that id (the engine's own refusal, before anything is written).
fn id_without_key(arg: &str, v: u64) -> PyErr {
    refused(
        arg,
        Error::WrongIdKind {
            vertex: v.to_string(),
            what: "this store names vertices by str keys, and no key has this id (a key \
                   gets its id when a write first names it)"
                .into(),
        },
    )
}

/// Why the engine would refuse `key` as a vertex key, if it would: the
/// rules of its names (`props::names::check`), checked here so that a
/// batch can be refused before any of its keys is given an id. The engine
/// checks again when it gives one.
fn bad_key(key: &str) -> Option<String> {
    if key.is_empty() {
        Some("is empty".into())
    } else if key.len() > stratagraph::MAX_NAME_BYTES {
        Some(format!(
            "is {} bytes long; the most is {}",
            key.len(),
            stratagraph::MAX_NAME_BYTES
        ))
    } else if let Some((at, c)) = key.char_indices().find(|(_, c)| c.is_control()) {
        Some(format!("holds the control character {c:?} at byte {at}"))
    } else {
        None
    }
}

/// Vertex argument `v` (given as `arg`) for a read, or for a write that
/// needs the vertex to exist: its id, or `None` for a key that was never
/// given one (so names no vertex). Gives no key an id.
///
/// # Errors
/// `InvalidInput` for a key in a store of integer ids.
#[inline]
pub fn find<D: KeyDict>(keys: Option<&D>, v: &VertexArg, arg: &str) -> PyResult<Option<u64>> {
    match (v, keys) {
        (VertexArg::Id(id), _) => Ok(Some(*id)),
        (VertexArg::Key(k), Some(keys)) => Ok(keys.key_id(k)),
        (VertexArg::Key(k), None) => Err(key_in_integer_store(arg, k)),
    }
}

/// Checks, changing nothing, that `v` (given as `arg`) can name a vertex a
/// write may create: in a string-keyed store a valid key or an id a key
/// has; in a store of integer ids an integer.
///
/// # Errors
/// `InvalidInput` (the engine's `WrongIdKind`) otherwise.
#[inline]
pub fn check_new<D: KeyDict>(keys: Option<&D>, v: &VertexArg, arg: &str) -> PyResult<()> {
    match (v, keys) {
        (VertexArg::Id(_), None) => Ok(()),
        (VertexArg::Id(id), Some(keys)) => match keys.key_of(*id) {
            Some(_) => Ok(()),
            None => Err(id_without_key(arg, *id)),
        },
        (VertexArg::Key(k), None) => Err(key_in_integer_store(arg, k)),
        (VertexArg::Key(k), Some(keys)) => {
            match keys.key_id(k).map_or_else(|| bad_key(k), |_| None) {
                None => Ok(()),
                Some(why) => Err(refused(
                    arg,
                    Error::WrongIdKind {
                        vertex: format!("{k:?}"),
                        what: format!("a vertex key {why}"),
                    },
                )),
            }
        }
    }
}

/// The id of `v`, which [`check_new`] accepted, giving a new key its id.
fn interned(keys: Option<&Graph>, v: &VertexArg, arg: &str) -> PyResult<u64> {
    match (v, keys) {
        (VertexArg::Id(id), _) => Ok(*id),
        (VertexArg::Key(k), Some(g)) => g.intern_key(k).map_err(|e| refused(arg, e)),
        (VertexArg::Key(k), None) => Err(key_in_integer_store(arg, k)),
    }
}

/// Vertex argument `v` (given as `arg`) for a write that may create the
/// vertex: its id, a new key given one now (which creates no vertex).
///
/// # Errors
/// As [`check_new`].
#[inline]
pub fn create(keys: Option<&Graph>, v: &VertexArg, arg: &str) -> PyResult<u64> {
    if let (VertexArg::Id(id), None) = (v, keys) {
        return Ok(*id);
    }
    check_new(keys, v, arg)?;
    interned(keys, v, arg)
}

/// The two ends of an edge a write may create, as [`create`] does; both
/// are checked before either key is given an id.
///
/// # Errors
/// As [`check_new`].
#[inline]
pub fn create_pair(
    keys: Option<&Graph>,
    (u, u_arg): (&VertexArg, &str),
    (v, v_arg): (&VertexArg, &str),
) -> PyResult<(u64, u64)> {
    if let (VertexArg::Id(u), VertexArg::Id(v), None) = (u, v, keys) {
        return Ok((*u, *v));
    }
    check_new(keys, u, u_arg)?;
    check_new(keys, v, v_arg)?;
    Ok((interned(keys, u, u_arg)?, interned(keys, v, v_arg)?))
}

/// The ids of batches (`src` and `dst` of equal length, say) a write may
/// create vertices of: every element of every batch is checked first, so
/// a refused one leaves the key dictionary as it was; then new keys get
/// their ids in the order an edge list is read (`src[0]`, `dst[0]`,
/// `src[1]`, ...).
///
/// # Errors
/// As [`check_new`], naming the element (`src[3]`).
pub fn create_batches<'a>(
    keys: Option<&Graph>,
    batches: &[(&'a VertexBatch<'_>, &str)],
) -> PyResult<Vec<Cow<'a, [u64]>>> {
    for &(batch, arg) in batches {
        match batch {
            VertexBatch::Ids(ids) => {
                if let Some(keys) = keys {
                    check_key_ids(keys, ids.as_slice()?, arg)?;
                }
            }
            VertexBatch::Args(args) => {
                for (i, v) in args.iter().enumerate() {
                    if keys.is_some() || matches!(v, VertexArg::Key(_)) {
                        check_new(keys, v, &format!("{arg}[{i}]"))?;
                    }
                }
            }
        }
    }
    let mut out: Vec<Cow<'a, [u64]>> = Vec::with_capacity(batches.len());
    for &(batch, _) in batches {
        out.push(match batch {
            VertexBatch::Ids(ids) => Cow::Borrowed(ids.as_slice()?),
            VertexBatch::Args(args) => Cow::Owned(vec![0; args.len()]),
        });
    }
    let mut longest = 0;
    for (batch, _) in batches {
        longest = longest.max(batch.len()?);
    }
    for i in 0..longest {
        for (&(batch, arg), ids) in batches.iter().zip(out.iter_mut()) {
            if let (VertexBatch::Args(args), Cow::Owned(ids)) = (batch, ids) {
                if let Some(v) = args.get(i) {
                    ids[i] = match v {
                        VertexArg::Id(id) => *id,
                        VertexArg::Key(_) => interned(keys, v, &format!("{arg}[{i}]"))?,
                    };
                }
            }
        }
    }
    Ok(out)
}

/// Checks that a key has each of `ids`: key ids are dense, so the largest
/// is the one to ask about, and the first one without a key is looked for
/// only when it fails.
fn check_key_ids(keys: &Graph, ids: &[u64], arg: &str) -> PyResult<()> {
    let Some(&most) = ids.iter().max() else {
        return Ok(());
    };
    if keys.key_of(most).is_some() {
        return Ok(());
    }
    let (i, &id) = ids
        .iter()
        .enumerate()
        .find(|&(_, &id)| keys.key_of(id).is_none())
        .unwrap_or((0, &most));
    Err(id_without_key(&format!("{arg}[{i}]"), id))
}

/// The ids of a batch for a read or a delete: a key never given an id
/// raises what `unknown` makes of its index and itself (a batch delete
/// refuses the whole batch when one element is missing). Gives no key an
/// id.
///
/// # Errors
/// `InvalidInput` for a key in a store of integer ids; `unknown(i, key)`
/// for element `i`, a key that names no vertex.
pub fn find_batch<'a, D: KeyDict>(
    keys: Option<&D>,
    batch: &'a VertexBatch<'_>,
    arg: &str,
    unknown: impl Fn(usize, &VertexArg) -> PyErr,
) -> PyResult<Cow<'a, [u64]>> {
    match batch {
        VertexBatch::Ids(ids) => Ok(Cow::Borrowed(ids.as_slice()?)),
        VertexBatch::Args(args) => args
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                VertexArg::Id(id) => Ok(*id),
                VertexArg::Key(_) => {
                    find(keys, v, &format!("{arg}[{i}]"))?.ok_or_else(|| unknown(i, v))
                }
            })
            .collect::<PyResult<Vec<u64>>>()
            .map(Cow::Owned),
    }
}

/// A vertex as a result shows it: its id, or in a string-keyed store its
/// key.
#[derive(Debug, Clone)]
pub enum Shown {
    /// An integer id.
    Id(u64),
    /// A key.
    Key(Arc<str>),
}

/// How a result shows vertex id `v`.
#[inline]
pub fn shown<D: KeyDict>(keys: Option<&D>, v: u64) -> Shown {
    match keys.and_then(|k| k.key_of(v)) {
        Some(key) => Shown::Key(key),
        None => Shown::Id(v),
    }
}

impl<'py> IntoPyObject<'py> for &Shown {
    type Target = PyAny;
    type Output = Bound<'py, PyAny>;
    type Error = PyErr;

    fn into_pyobject(self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(match self {
            Shown::Id(v) => v.into_pyobject(py)?.into_any(),
            Shown::Key(k) => pyo3::types::PyString::new(py, k).into_any(),
        })
    }
}

/// The keys of `ids`, in order.
///
/// # Errors
/// `InvalidInput` in a store of integer ids, or naming the first id no key
/// has (`ids[3]`).
pub fn keys_of<D: KeyDict>(keys: Option<&D>, ids: &[u64]) -> PyResult<Vec<Arc<str>>> {
    let Some(keys) = keys else {
        return Err(errors::InvalidInput::new_err(
            "keys: this store names vertices by integers, which have no keys (a store \
             created with string_ids=True names them by str keys)",
        ));
    };
    ids.iter()
        .enumerate()
        .map(|(i, &id)| {
            keys.key_of(id)
                .ok_or_else(|| id_without_key(&format!("ids[{i}]"), id))
        })
        .collect()
}

/// The engine's error `e` as its Python exception; in a string-keyed store
/// its message adds the keys of the vertex ids it names, which the caller
/// may know only by key.
pub fn engine_error<D: KeyDict>(keys: Option<&D>, e: Error) -> PyErr {
    let Some(keys) = keys else {
        return errors::engine(e);
    };
    let mut ids: Vec<u64> = Vec::new();
    for v in named_vertices(&e) {
        if !ids.contains(&v) {
            ids.push(v);
        }
    }
    let named: Vec<String> = ids
        .iter()
        .filter_map(|&v| keys.key_of(v).map(|k| format!("vertex {v} is {k:?}")))
        .collect();
    let msg = if named.is_empty() {
        e.to_string()
    } else {
        format!("{e} ({})", named.join(", "))
    };
    errors::engine_with_message(e, msg)
}

/// The vertex ids an engine error names, in the order its message does.
fn named_vertices(e: &Error) -> Vec<u64> {
    match e {
        Error::VertexNotFound { vertex, .. }
        | Error::InvalidValue { vertex, .. }
        | Error::SelfLoop { vertex, .. }
        | Error::VertexIdsExhausted { vertex, .. } => vec![*vertex],
        Error::EdgeNotFound { src, dst, .. } | Error::InvalidWeight { src, dst, .. } => {
            vec![*src, *dst]
        }
        Error::VertexDeletedInTransaction {
            src, dst, vertex, ..
        } => vec![*src, *dst, *vertex],
        Error::Conflict { element, .. } => match element {
            Element::Vertex(v)
            | Element::OutEdges(v)
            | Element::InEdges(v)
            | Element::Properties(v)
            | Element::Property { vertex: v, .. }
            | Element::PropertyEdges { vertex: v, .. } => vec![*v],
            Element::Edge { src, dst } => vec![*src, *dst],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}
