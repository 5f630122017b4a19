"""stratagraph: an embedded dynamic graph store with a numpy/networkx front."""

import os
from typing import Any, Dict, Final, Optional, Union

import numpy.typing as npt

from ._native import ArrowStream as ArrowStream
from ._native import CapacityExceeded as CapacityExceeded
from ._native import ChangesUnavailable as ChangesUnavailable
from ._native import Closed as Closed
from ._native import Conflict as Conflict
from ._native import Corruption as Corruption
from ._native import Error as Error
from ._native import Graph as Graph
from ._native import InternalError as InternalError
from ._native import InvalidInput as InvalidInput
from ._native import NotFound as NotFound
from ._native import ReadOnly as ReadOnly
from ._native import Snapshot as Snapshot
from ._native import SnapshotTooOld as SnapshotTooOld
from ._native import StorageError as StorageError
from ._native import StoreLocked as StoreLocked
from ._native import Transaction as Transaction
from ._native import UnsupportedFormat as UnsupportedFormat
from ._native import __version__ as __version__

__all__ = [
    "CapacityExceeded",
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
    "from_networkx",
    "gremlin_source",
    "read_edgelist",
]

UNREACHABLE: Final[int]
"""The BFS depth reported for vertices the source cannot reach (-1)."""

def from_networkx(G: Any, *, weight: str = "weight", threads: int = 0) -> Graph:
    """A new in-memory ``Graph`` copying the networkx graph ``G`` (integer
    nodes; weights from the ``weight`` edge attribute, default 1.0)."""

def gremlin_source(graph: Graph, traversal_source: str = "g") -> Any:
    """A gremlinpython ``GraphTraversalSource`` over ``graph`` in this
    process, without a server (needs the ``gremlinpython`` package)."""

def as_dict(s: Snapshot, values: npt.ArrayLike) -> Dict[Union[int, str], Any]:
    """``{vertex id: value}`` for an array aligned with ``s.vertices()``
    (keyed by ``str`` keys in a string-keyed store)."""

def from_arrow(
    vertices: Any = None,
    edges: Any = None,
    *,
    directed: bool = True,
    string_ids: bool = False,
    batch: int = 10_000,
) -> Graph:
    """A new in-memory ``Graph`` holding Arrow tables in ``to_arrow``'s
    columns (``Graph.load_arrow``)."""

def read_parquet(
    path: Union[str, "os.PathLike[str]"],
    store: Union[None, str, "os.PathLike[str]"] = None,
    *,
    batch: int = 10_000,
) -> Graph:
    """A new ``Graph`` (in memory, or a new store at ``store``) of the
    export's kind, holding the directory ``Snapshot.export_parquet`` wrote."""

def read_edgelist(
    path: Union[str, "os.PathLike[str]"],
    directed: bool = True,
    *,
    comments: Optional[str] = "#",
    weighted: Optional[bool] = None,
    progress: Optional[bool] = None,
    threads: int = 0,
) -> Graph:
    """A new in-memory ``Graph`` from a SNAP-style edge list (plain or gzip),
    loaded in chunks with an optional tqdm progress bar; ``InvalidInput``
    names the line of a malformed line."""
