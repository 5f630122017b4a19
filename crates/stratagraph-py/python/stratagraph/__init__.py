"""stratagraph: an embedded dynamic graph store with a numpy/networkx front.

Streams of vertex and edge inserts and deletes go in through snapshot-isolated
transactions or atomic batches; readers take consistent snapshots and run
look-ups and analytics on them (as numpy arrays) while writes go on.

    >>> import numpy as np, stratagraph as sg
    >>> g = sg.Graph.in_memory(directed=True)
    >>> g.add_edges(np.array([1, 2]), np.array([2, 3]))  # doctest: +SKIP
    >>> s = g.snapshot()
    >>> s.bfs(1)  # aligned with s.vertices()  # doctest: +SKIP

Errors: every exception raised on purpose derives from ``stratagraph.Error``;
see its subclasses (``NotFound``, ``InvalidInput``, ...). Bad argument types
and values raise ``TypeError``/``ValueError`` naming the argument.
"""

from ._native import _parquet_kind
from ._native import (
    ArrowStream,
    CapacityExceeded,
    ChangesUnavailable,
    Closed,
    Conflict,
    Corruption,
    Error,
    Graph,
    InternalError,
    InvalidInput,
    NotFound,
    ReadOnly,
    Snapshot,
    SnapshotTooOld,
    StorageError,
    StoreLocked,
    Transaction,
    UnsupportedFormat,
    __version__,
)
from ._convert import as_dict, from_networkx
from ._edgelist import read_edgelist

#: The BFS depth reported for vertices the source cannot reach.
UNREACHABLE = -1


def gremlin_source(graph, traversal_source="g"):
    """A gremlinpython ``GraphTraversalSource`` over ``graph`` in this
    process, without a server (``stratagraph.gremlin``; needs the
    ``gremlinpython`` package)."""
    from .gremlin import gremlin_source as source

    return source(graph, traversal_source)

def from_arrow(vertices=None, edges=None, *, directed=True, string_ids=False, batch=10_000):
    """A new in-memory ``Graph`` holding Arrow tables (a pyarrow Table, a
    polars or pandas DataFrame: anything with ``__arrow_c_stream__``) in
    the columns ``Snapshot.to_arrow`` gives; see ``Graph.load_arrow``.
    ``string_ids=True`` for tables whose ids are strings."""
    g = Graph.in_memory(directed=directed, string_ids=string_ids)
    g.load_arrow(vertices, edges, batch=batch)
    return g


def read_parquet(path, store=None, *, batch=10_000):
    """A new ``Graph`` holding the directory ``path`` that
    ``Snapshot.export_parquet`` (or ``stratagraph export``) wrote: in memory,
    or a new store at ``store`` (which must not hold a store yet). The graph
    takes the export's kind (directed or not, string ids or not), as its
    ``stratagraph.json`` says. Raises what ``Graph.load_parquet`` raises;
    the graph is closed again if loading fails."""
    directed, string_ids = _parquet_kind(path)
    if store is None:
        g = Graph.in_memory(directed=directed, string_ids=string_ids)
    else:
        g = Graph.open(store, directed=directed, string_ids=string_ids, create=True)
    try:
        g.load_parquet(path, batch=batch)
    except BaseException:
        g.close()
        raise
    return g


__all__ = [
    "ArrowStream",
    "CapacityExceeded",
    "ChangesUnavailable",
    "Closed",
    "Conflict",
    "Corruption",
    "Error",
    "Graph",
    "InternalError",
    "InvalidInput",
    "NotFound",
    "ReadOnly",
    "Snapshot",
    "SnapshotTooOld",
    "StorageError",
    "StoreLocked",
    "Transaction",
    "UNREACHABLE",
    "UnsupportedFormat",
    "__version__",
    "as_dict",
    "from_arrow",
    "from_networkx",
    "gremlin_source",
    "read_edgelist",
    "read_parquet",
]
