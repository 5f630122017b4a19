"""Type stubs for the native module ``stratagraph._native`` (Rust, PyO3).

Vertex ids are integers in ``0..2**64``; a store created with
``string_ids=True`` names vertices by ``str`` keys instead (see
``Graph.string_ids``): every vertex argument may be a key there, results
holding one vertex (vertex and edge dicts, ``to_dict``) show keys, and
vertex arrays hold the keys' integer ids, which ``keys()`` translates.
Per-vertex arrays returned by a ``Snapshot`` are aligned with
``Snapshot.vertices()``.
"""

import os
from types import TracebackType
from typing import (
    Any,
    Dict,
    Iterable,
    List,
    Literal,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    Type,
    Union,
    final,
    overload,
)

import numpy as np
import numpy.typing as npt

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
    "UnsupportedFormat",
    "_EdgeListReader",
    "__version__",
]

__version__: str

#: What a property value may be: None, bool, int (64-bit), float, str,
#: bytes, uuid.UUID, an aware datetime.datetime, lists, tuples, sets and
#: dicts of these, or a numpy scalar (np.int8/16/32 and np.float32 keep
#: their width).
PropertyValue = Any

_Id = Union[int, np.integer[Any]]
#: A vertex argument: an integer id, or a ``str`` key (string-keyed stores).
_Vertex = Union[int, np.integer[Any], str]
_Ids = npt.ArrayLike
#: The vertices of a batch: an array-like of integer ids, or (string-keyed
#: stores) a sequence of ``str`` keys, ids allowed beside them.
_Vertices = Union[npt.ArrayLike, Sequence[Union[int, str]]]
#: A vertex as a result shows it: its id, or its key in a string-keyed store.
_Shown = Union[int, str]
_U64 = npt.NDArray[np.uint64]
_I64 = npt.NDArray[np.int64]
_F64 = npt.NDArray[np.float64]
#: A property edge as ``edges_of`` and ``property_edges`` list it:
#: ``{"id": int, "src": int, "dst": int, "label": str}`` (``src`` and
#: ``dst`` are ``str`` keys in a string-keyed store); ``edge()`` adds
#: ``"properties": dict``.
_EdgeDict = Dict[str, Any]
_Direction = Literal["out", "in", "both"]
#: The property edges a kernel runs on instead of the weighted edges: one
#: label, or several (an empty sequence: every label).
_Labels = Union[None, str, Sequence[str]]
_Path = Union[str, "os.PathLike[str]"]
#: What ``load_graphson`` and ``load_csv`` committed:
#: ``{"vertices": int, "edges": int, "batches": int}`` (vertices created,
#: property edges created, transactions committed). A failed load's
#: exception carries the same dict as ``loaded``.
_Loaded = Dict[str, int]
#: ``load_csv``'s files: one path, a sequence of paths and ``(label, path)``
#: pairs, or a dict ``{label: path}``.
_CsvFiles = Union[None, _Path, Sequence[Union[_Path, Tuple[str, _Path]]], Mapping[str, _Path]]

class Error(Exception):
    """Base class of every error stratagraph raises on purpose."""

class NotFound(Error):
    """A vertex or edge the call names does not exist (engine:
    ``VertexNotFound``, ``EdgeNotFound``, ``NoSuchEdge`` for a property
    edge id)."""

class InvalidInput(Error):
    """A refused value: non-finite weight, forbidden self-loop, an edge to a
    vertex deleted in the same transaction, a negative weight for ``sssp``,
    a bad label, property key or value, an edge id already in use, a
    malformed edge-list line, GraphSON record or CSV row, a vertex named by
    the wrong kind of id: a ``str`` key in a store of integer ids, an
    integer no key has in a string-keyed store, a bad key (engine:
    ``InvalidWeight``, ``SelfLoop``, ``VertexDeletedInTransaction``,
    ``InvalidName``, ``InvalidValue``, ``InvalidEdgeValue``, ``EdgeIdTaken``,
    ``WrongIdKind``)."""

class CapacityExceeded(Error):
    """The store ran out of vertex ids: 2**32 - 1 of them, or the graph's
    ``max_vertex_ids`` (engine: ``VertexIdsExhausted``)."""

class ChangesUnavailable(Error):
    """``Graph.changes`` was asked for changes the store no longer keeps,
    or an in-memory graph (which keeps none); the message says from which
    timestamp they are kept (engine: ``ChangesUnavailable``)."""

class SnapshotTooOld(Error):
    """A snapshot has been open for so many commits that a write cannot be
    stamped next to it; close old snapshots and retry (engine:
    ``SnapshotTooOld``)."""

class Conflict(Error):
    """Another transaction committed a change to an element this one wrote
    (or, serializable, read) after this one's snapshot; nothing was applied,
    run the transaction again (engine: ``Conflict``)."""

class Corruption(Error):
    """A stored file fails a structural check or a checksum (engine:
    ``Corrupt``)."""

class UnsupportedFormat(Error):
    """A stored file is in a format version this build cannot read (engine:
    ``UnsupportedFormat``)."""

class StorageError(Error):
    """An operating-system call on a store file failed (engine: ``Io``)."""

class StoreLocked(Error):
    """The on-disk store is already open, in another process or through
    another ``Graph`` in this one (engine: ``StoreLocked``)."""

class ReadOnly(Error):
    """The graph was opened with ``read_only=True``: every write is refused
    (engine: ``ReadOnly``)."""

class InternalError(Error):
    """The engine detected a bug in itself (engine: ``InvalidSegmentInput``)."""

class Closed(Error):
    """The graph, snapshot or transaction was closed (or the transaction
    committed or rolled back)."""

@final
class Graph:
    """A dynamic graph store. Create one with ``Graph.in_memory()``; use it
    as a context manager or call ``close()``. Write methods return the
    commit timestamp."""

    @staticmethod
    def in_memory(
        directed: bool = True,
        *,
        threads: int = 0,
        compaction_threads: int = 0,
        allow_self_loops: bool = True,
        auto_create_vertices: bool = True,
        max_vertex_ids: Optional[int] = None,
        string_ids: bool = False,
        _stamp_window: Optional[int] = None,
    ) -> Graph:
        """A store held entirely in memory. ``threads`` bounds batch-write
        threads (0 = all cores), ``compaction_threads`` those a compaction
        merges on (0 = all cores; a pool apart from the batches');
        ``allow_self_loops=False`` refuses ``(v, v)``
        edges with ``InvalidInput``; ``auto_create_vertices=False`` makes an
        edge to a missing vertex raise ``NotFound``; ``max_vertex_ids`` caps
        the vertex ids the store takes in (each id ever seen holds one, even
        after its vertex is removed), beyond which writes raise
        ``CapacityExceeded``. ``string_ids=True`` names vertices by ``str``
        keys (see ``string_ids``). ``_stamp_window`` is a testing aid."""
    @staticmethod
    def open(
        path: Union[str, "os.PathLike[str]"],
        directed: Optional[bool] = None,
        sync: str = "always",
        *,
        threads: int = 0,
        compaction_threads: int = 0,
        allow_self_loops: bool = True,
        auto_create_vertices: bool = True,
        max_vertex_ids: Optional[int] = None,
        create: bool = True,
        read_only: bool = False,
        string_ids: Optional[bool] = None,
        compress_levels: bool = True,
        pack_levels: bool = False,
        update_policy: str = "delta",
    ) -> Graph:
        """Opens the on-disk store in directory ``path``, creating it if it
        holds none; ``close()`` writes everything out and releases the
        directory, so it reopens with all its data even while snapshots or
        transactions of this graph are referenced (they raise ``Closed``).
        ``directed`` matters only when the store is created (directed if
        ``None``): an existing store opens as its manifest says, and a value
        that contradicts it raises ``InvalidInput`` naming both kinds.
        ``string_ids`` likewise: ``True`` creates a store of ``str`` keys,
        ``None`` opens an existing store as created (integer ids for a new
        one), a kind the store was not created with raises ``InvalidInput``.
        Every commit goes to a write-ahead log first; reopening
        after a crash replays it. ``sync`` is when a commit counts as
        durable: "always" (log synced before returning; concurrent commits
        share a sync), "interval:MS" (synced every MS milliseconds) or
        "never" (synced at flushes and close); a process crash loses nothing
        under any of them, a power loss only what the policy allows. An open
        directory raises ``StoreLocked``; a damaged file raises
        ``Corruption`` naming it and the offset. ``max_vertex_ids`` is as for
        ``in_memory`` but not stored: a store holding more ids keeps them
        and takes no new one; ``threads`` and ``compaction_threads`` are as
        for ``in_memory``. ``create=False`` refuses a directory holding
        no store (``InvalidInput``) instead of creating one; a directory of
        other files is never made a store (``InvalidInput``), and one whose
        MANIFEST is lost while it holds store data raises ``Corruption``,
        changing nothing. ``read_only=True`` opens an existing store without
        changing any file (read access suffices): the log is replayed in
        memory, and every write raises ``ReadOnly``;
        read-only handles share the store with each other, never with a
        writer (``StoreLocked``). ``compress_levels`` (default on) keeps the
        level files' weights dictionary-coded (one or two bytes an edge, not
        eight); off, they stay ``float64``, which ``Snapshot.to_arrow``
        hands out without a copy. ``pack_levels`` (default off) packs the
        destinations of compacted levels (about two bytes an edge, not
        four; reads decode them, slower for analytics). Both apply to files
        written from now on. ``update_policy`` is how a flush writes the
        lists of vertices it holds writes for: "delta" (default; only what
        changed), "pivot" (the whole list again, marked, so later reads stop
        there) or "adaptive:SHARE" (pivots for vertices below the cost
        model's degree threshold for a workload with this share of
        look-ups, 0 to 1); ``stats()["pivot_marks"]`` counts the marked
        lists; a bad value raises ``ValueError``."""
    @property
    def directed(self) -> bool:
        """Whether edges have a direction."""
    @property
    def string_ids(self) -> bool:
        """Whether the store names vertices by ``str`` keys (created with
        ``string_ids=True``). Then every vertex argument may be a key: writes
        that may create the vertex (``add_vertex``, ``add_edge``,
        ``add_vertices``, ``add_edges``) give a new key the next integer id
        (0, 1, 2, ...; durable; creating no vertex), other calls look it up
        and treat a key never written as a missing vertex; an integer is a
        key's id. Results holding one vertex (``Snapshot.vertex()["id"]``,
        edge dicts' ``src``/``dst``, ``to_dict`` keys) show keys; vertex
        arrays (``vertices()``, ``neighbors()``, ``edges()``,
        ``find_vertices()``, analytics labels) stay uint64 ids for speed:
        ``keys(ids)`` translates them. In a store of integer ids a ``str``
        vertex raises ``InvalidInput``."""
    def key_id(self, key: str) -> Optional[int]:
        """The id of vertex key ``key``; ``None`` if no write named it (or
        the store names vertices by integers). Gives no id."""
    def key_of(self, id: _Id) -> Optional[str]:
        """The key of vertex id ``id``; ``None`` if no key has it."""
    def keys(self, ids: Union[_Ids, Iterable[_Id]]) -> List[str]:
        """The keys of ``ids`` (an array or iterable of vertex ids), in
        order; ``InvalidInput`` in a store of integer ids or naming the
        first id no key has."""
    @property
    def read_only(self) -> bool:
        """Whether the store was opened with ``read_only=True``."""
    @property
    def closed(self) -> bool:
        """Whether ``close()`` has been called."""
    @property
    def num_vertices(self) -> int:
        """Number of vertices at the newest commit."""
    @property
    def num_edges(self) -> int:
        """Number of edges at the newest commit (undirected edges once)."""
    @property
    def num_property_edges(self) -> int:
        """Number of property edges in the latest state; O(vertices) (reads
        the store's counters)."""
    def stats(self) -> Dict[str, Any]:
        """The store's counters now: ``timestamp``, ``vertices``, ``edges``,
        ``property_edges``, ``ids_assigned``, ``memory_bytes``,
        ``run_bytes``, ``runs`` (L0), ``levels`` (per level L1.. a dict of
        ``parts``, ``entries``, ``bytes``), ``pivot_marks``, ``flushes``,
        ``compactions``, ``open_snapshots``, ``log_segments``, ``log_bytes``,
        ``level_bytes_written``, ``write_amplification``; O(vertices)."""
    def add_vertex(self, v: _Vertex, label: Optional[str] = None, **properties: PropertyValue) -> int:
        """Creates ``v`` with ``label`` (``"vertex"`` if not given) and the
        keyword arguments as properties (no-op if it exists)."""
    def create_index(self, label: str, key: str) -> bool:
        """Indexes vertices labelled ``label`` by property ``key``;
        ``False`` if the index exists."""
    def indexes(self) -> List[Tuple[str, str]]:
        """The indexes as ``(label, key)``, in the order created."""
    def set_property(self, v: _Vertex, key: str, value: PropertyValue) -> int:
        """Sets property ``key`` of ``v``; ``NotFound`` if ``v`` is missing."""
    def remove_property(self, v: _Vertex, key: str) -> bool:
        """Removes property ``key`` of ``v`` (one transaction); whether it
        was set. ``NotFound`` if ``v`` is missing."""
    def add_vertices(self, vertices: _Vertices) -> int:
        """Creates every vertex of the array-like (or, string-keyed, the
        sequence of keys) atomically; every element is checked first."""
    def remove_vertex(self, v: _Vertex) -> int:
        """Deletes ``v`` and its edges; ``NotFound`` if missing."""
    def remove_vertices(self, vertices: _Vertices) -> int:
        """Deletes all of them and their edges atomically; ``NotFound`` (and
        nothing deleted) if one is missing."""
    def _empty_method(
        self, u: _Id, v: _Id, label: Union[None, str, float] = None, /, **properties: Any
    ) -> int:
        """Does nothing: the baseline of ``bench/python_speed.py``. Not API."""
    @overload
    def add_edge(self, u: _Vertex, v: _Vertex, weight: float = 1.0, /) -> int: ...
    @overload
    def add_edge(self, u: _Vertex, v: _Vertex, /, *, weight: float) -> int: ...
    @overload
    def add_edge(self, u: _Vertex, v: _Vertex, label: str, /, **properties: PropertyValue) -> int:
        """With a number (or nothing, or ``weight=``): inserts or re-weights
        the weighted edge ``u -> v`` and returns the commit timestamp. With
        a ``str`` label: creates a new property edge ``u -> v`` with the
        keyword arguments as properties and returns its id. Missing
        endpoints are created (unless ``auto_create_vertices=False``).
        Anything else as the third argument (a ``bool`` included), or
        keyword arguments other than ``weight`` without a label, raise
        ``TypeError``."""
    @overload
    def remove_edge(self, edge_id: int, /) -> int: ...
    @overload
    def remove_edge(self, u: _Vertex, v: _Vertex) -> int:
        """Deletes the weighted edge ``u -> v``, or with one argument the
        property edge ``edge_id``; returns the commit timestamp;
        ``NotFound`` if missing."""
    def set_edge_property(self, edge_id: int, key: str, value: PropertyValue) -> int:
        """Sets property ``key`` of property edge ``edge_id``; returns the
        commit timestamp; ``NotFound`` if the edge is missing."""
    def add_edges(
        self, src: _Vertices, dst: _Vertices, weights: Union[None, float, npt.ArrayLike] = None
    ) -> int:
        """Inserts ``src[i] -> dst[i]`` atomically at one timestamp; the GIL
        is released while the engine applies the batch. In a string-keyed
        store ``src`` and ``dst`` may be sequences of keys; every element is
        checked before anything is written or a key given an id."""
    def remove_edges(self, src: _Vertices, dst: _Vertices) -> int:
        """Deletes ``src[i] -> dst[i]`` atomically; ``NotFound`` (and nothing
        deleted) if one is missing."""
    def _gremlin_frame(self, frame: bytes) -> list[bytes]:
        """Answers one Gremlin Server request frame (mime-type header, then
        a GraphBinary or GraphSON request) in this process; the response
        frames. Used by ``stratagraph.gremlin_source``."""
    def changes(self, since: int = 0) -> Any:
        """Every write committed after ``since`` as a ``pyarrow.Table``: one
        row per write in commit order (``ts``, ``op``, ``vertex``, ``src``,
        ``dst``, ``edge_id``, ``label``, ``key``, ``value``, ``weight``).
        ``ChangesUnavailable`` if they are no longer all kept."""
    def changes_stream(self, since: int = 0) -> ArrowStream:
        """``changes(since)`` for any Arrow consumer."""
    def apply_changes(self, table: Any) -> _Loaded:
        """Applies a table of changes (``changes()`` of this or another
        store), each commit as one transaction; checked first."""
    def load_arrow(
        self, vertices: Any = None, edges: Any = None, *, batch: int = 10_000
    ) -> _Loaded:
        """Loads Arrow tables (anything with ``__arrow_c_stream__``) in
        ``to_arrow``'s columns: vertices need ``_id``, edges ``_src`` and
        ``_dst``; a labelled edge is a property edge, an unlabelled one a
        weighted edge. Both tables are checked before anything is written
        (``InvalidInput`` naming the column in ``field``); ``TypeError``
        for something that is not a table."""
    def load_parquet(self, path: _Path, *, batch: int = 10_000) -> _Loaded:
        """Loads a directory ``Snapshot.export_parquet`` (or ``stratagraph
        export``) wrote into this graph, which must hold no vertex yet and
        be of the export's kind, without the GIL. Every file is checked
        before anything is written: a damaged export raises
        ``InvalidInput`` naming the file (and column, in ``field``) and
        leaves the graph unchanged."""
    def load_graphson(self, path: _Path, *, batch: int = 10_000) -> _Loaded:
        """Loads a GraphSON 3.0 file (TinkerPop's ``GraphSONWriter``: one
        vertex per line, with its typed properties and out-edges) into this
        graph without the GIL, ``batch`` records per transaction; ids,
        labels and value types are kept. Returns what it created.

        A failure keeps the batches committed before it and says so in its
        message; the exception has ``file``, ``line`` and ``field`` (``None``
        where they do not apply) and ``loaded``. A malformed record (or a
        string id, list cardinality, meta-properties) raises
        ``InvalidInput`` naming file, line and field; a record the store
        refuses raises the engine's class with file and line; an
        unreadable file ``OSError``. ``ValueError`` unless ``batch >= 1``."""
    def load_csv(
        self, vertices: _CsvFiles = (), edges: _CsvFiles = (), *, batch: int = 10_000
    ) -> _Loaded:
        """Loads CSV files with a header row into this graph without the
        GIL: the ``vertices`` files, then the ``edges`` files, ``batch``
        rows per transaction (a file's rows parsed on a second thread while
        the batch before commits). Returns what it created.

        Headers: ``:ID``/``id``, ``:LABEL``/``label`` (vertex files);
        ``:START_ID``/``src``/``from``, ``:END_ID``/``dst``/``to``,
        ``:TYPE``/``label``/``type``, optional ``:ID``/``id`` (edge files;
        an empty id gets a new one); any other column a property ``name`` or
        ``name:type`` (``string``, ``boolean``, ``byte``, ``short``, ``int``,
        ``long``, ``float``, ``double``, ``uuid``, or ``type[]``, items
        separated by ``;``). A ``(label, path)`` file without a label column
        gives its rows that label. Empty fields set nothing. Errors as
        ``load_graphson``, ``field`` naming the column; ``TypeError`` for an
        argument of another shape."""
    def checkpoint(
        self, path: Union[None, str, "os.PathLike[str]"] = None
    ) -> Dict[str, Any]:
        """Writes a checkpoint (a store of its own at every commit so far;
        level files hard-linked) into ``path``, or into the store's
        ``checkpoints/<timestamp>``; returns ``{"timestamp", "path"}``."""
    def checkpoints(self) -> List[Tuple[int, "os.PathLike[str]"]]:
        """The checkpoints in the store's ``checkpoints`` directory,
        ``[(timestamp, path)]``, oldest first."""
    def export_parquet(
        self,
        path: Union[str, "os.PathLike[str]"],
        *,
        as_of: Optional[int] = None,
        vertex_chunk: int = 1 << 18,
        edge_chunk: int = 1 << 22,
    ) -> Dict[str, int]:
        """``Snapshot.export_parquet`` of the newest state, or with
        ``as_of=ts`` of the state at commit ``ts``, rebuilt from the newest
        checkpoint at or before it and the change feed after it
        (``ChangesUnavailable`` when either is missing)."""
    def compact(self) -> None:
        """Merges everything committed into one level (kernels then read a
        plain CSR, and ``to_arrow(ids="internal")`` shares a directed
        graph's lists without copying); rewrites the whole graph."""
    def snapshot(self) -> Snapshot:
        """A consistent read-only view of everything committed so far."""
    def transaction(self, *, serializable: bool = False) -> Transaction:
        """Starts a write transaction (a context manager). It reads the
        snapshot taken at its first read; its commit raises ``Conflict`` if
        a transaction committed after that snapshot changed an element this
        one writes (``serializable=True``: or one it read)."""
    def close(self) -> None:
        """Closes the store (an on-disk one is written out first); later
        calls on it, its snapshots and its transactions raise ``Closed``."""
    def __enter__(self) -> Graph: ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> Literal[False]: ...

@final
class Transaction:
    """Buffered writes with read-your-writes; committed atomically. As a
    context manager: commit on normal exit, rollback on an exception."""

    @property
    def active(self) -> bool:
        """Whether the transaction can still be used."""
    def __len__(self) -> int:
        """Number of buffered writes."""
    def add_vertex(self, v: _Vertex, label: Optional[str] = None, **properties: PropertyValue) -> bool:
        """Creates ``v`` with ``label`` and properties; ``False`` (nothing
        written) if it already existed."""
    def set_property(self, v: _Vertex, key: str, value: PropertyValue) -> None:
        """Sets property ``key`` of ``v``; ``NotFound`` if ``v`` is missing."""
    def remove_property(self, v: _Vertex, key: str) -> bool:
        """Removes property ``key`` of ``v``; whether it was set."""
    def property(self, v: _Vertex, key: str, default: Any = None) -> Any:
        """Property ``key`` of ``v``, or ``default``."""
    def properties(self, v: _Vertex) -> Dict[str, Any]:
        """Every property of ``v``; ``NotFound`` if ``v`` is missing."""
    def label(self, v: _Vertex) -> str:
        """The label of ``v``; ``NotFound`` if ``v`` is missing."""
    def find_vertices(self, label: str, key: str, value: PropertyValue) -> npt.NDArray[np.uint64]:
        """Vertices labelled ``label`` whose ``key`` equals ``value``,
        counting this transaction's writes."""
    def remove_vertex(self, v: _Vertex) -> None:
        """Deletes ``v`` and its edges; ``NotFound`` if missing."""
    @overload
    def add_edge(self, u: _Vertex, v: _Vertex, weight: float = 1.0, /) -> None: ...
    @overload
    def add_edge(self, u: _Vertex, v: _Vertex, /, *, weight: float) -> None: ...
    @overload
    def add_edge(self, u: _Vertex, v: _Vertex, label: str, /, **properties: PropertyValue) -> int:
        """With a number (or nothing, or ``weight=``): inserts or re-weights
        the weighted edge ``u -> v``. With a ``str`` label: creates a new
        property edge ``u -> v`` with the keyword arguments as properties
        and returns its id. Anything else as the third argument (a ``bool``
        included), or keyword arguments other than ``weight`` without a
        label, raise ``TypeError``."""
    def add_edge_with_id(
        self, edge_id: int, u: _Vertex, v: _Vertex, label: str, /, **properties: PropertyValue
    ) -> None:
        """Creates property edge ``edge_id`` (``u -> v``, ``label``,
        properties); ``InvalidInput`` if the id is in use."""
    @overload
    def remove_edge(self, edge_id: int, /) -> None: ...
    @overload
    def remove_edge(self, u: _Vertex, v: _Vertex) -> None:
        """Deletes the weighted edge ``u -> v``, or with one argument the
        property edge ``edge_id``; ``NotFound`` if missing."""
    def set_edge_property(self, edge_id: int, key: str, value: PropertyValue) -> None:
        """Sets property ``key`` of property edge ``edge_id``; ``NotFound``
        if the edge is missing."""
    def remove_edge_property(self, edge_id: int, key: str) -> bool:
        """Removes property ``key`` of property edge ``edge_id``; whether it
        was set. ``NotFound`` if the edge is missing."""
    def edge_property(self, edge_id: int, key: str, default: Any = None) -> Any:
        """Property ``key`` of property edge ``edge_id``, or ``default``."""
    def edge_properties(self, edge_id: int) -> Dict[str, Any]:
        """Every property of property edge ``edge_id``; ``NotFound`` if the
        edge is missing."""
    def edge(self, edge_id: int) -> _EdgeDict:
        """``{"id", "src", "dst", "label", "properties"}``; ``NotFound`` if
        missing."""
    def edges_of(
        self, v: _Vertex, label: Optional[str] = None, direction: _Direction = "out"
    ) -> List[_EdgeDict]:
        """``v``'s property edges (of ``label``, or all) on side
        ``direction`` (a self-loop once in "both"), grouped by label, then
        by other end (``vertices()`` order), then id; ``NotFound`` if ``v`` is missing, ``ValueError`` for another
        direction."""
    def edge_ids(
        self, v: _Vertex, label: Optional[str] = None, direction: _Direction = "out"
    ) -> _U64:
        """The ids of ``edges_of(v, label, direction)``, in its order."""
    def has_vertex(self, v: _Vertex) -> bool:
        """Whether ``v`` exists, counting this transaction's writes."""
    def has_edge(self, u: _Vertex, v: _Vertex) -> bool:
        """Whether ``u -> v`` exists, counting this transaction's writes."""
    def weight(self, u: _Vertex, v: _Vertex) -> float:
        """Weight of ``u -> v``; ``NotFound`` if missing."""
    def neighbors(self, v: _Vertex, label: Optional[str] = None) -> _U64:
        """Out-neighbours of ``v`` (ascending internal id); with ``label``,
        the destinations of its out-going property edges of that label,
        once per edge, in ``edges_of`` order."""
    def in_neighbors(self, v: _Vertex, label: Optional[str] = None) -> _U64:
        """In-neighbours of ``v`` (ascending internal id); with ``label``,
        the sources of its in-coming property edges of that label, once per
        edge."""
    def commit(self) -> int:
        """Applies every write atomically; returns the commit timestamp."""
    def rollback(self) -> None:
        """Discards every write."""
    def __enter__(self) -> Transaction: ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException] = None,
        tb: Optional[TracebackType] = None,
    ) -> Literal[False]: ...

@final
class ArrowStream:
    """A table as an Arrow C stream (``__arrow_c_stream__``): pass it to
    ``pyarrow.table``, ``polars.DataFrame`` or DuckDB."""
    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any: ...
    def __len__(self) -> int: ...

class Snapshot:
    """A consistent read-only view at one commit. Per-vertex arrays are
    aligned with ``vertices()`` (ascending internal id, i.e. first-seen
    order)."""

    @property
    def num_vertices(self) -> int:
        """Number of vertices."""
    @property
    def num_edges(self) -> int:
        """Number of edges (undirected edges once)."""
    @property
    def num_property_edges(self) -> int:
        """Number of property edges; O(edges) (counts them)."""
    @property
    def directed(self) -> bool:
        """Whether edges have a direction."""
    @property
    def string_ids(self) -> bool:
        """Whether the store names vertices by ``str`` keys (see
        ``Graph.string_ids``)."""
    def key_id(self, key: str) -> Optional[int]:
        """The id of vertex key ``key``; ``None`` if no write named it."""
    def key_of(self, id: _Id) -> Optional[str]:
        """The key of vertex id ``id``; ``None`` if no key has it."""
    def keys(self, ids: Union[_Ids, Iterable[_Id]]) -> List[str]:
        """The keys of ``ids`` (e.g. ``vertices()``, ``neighbors(v)``), in
        order; ``InvalidInput`` in a store of integer ids or naming the
        first id no key has."""
    @property
    def timestamp(self) -> int:
        """The commit timestamp this snapshot reads at."""
    @property
    def closed(self) -> bool:
        """Whether the snapshot (or its graph) is closed."""
    def __len__(self) -> int:
        """Number of vertices."""
    def __contains__(self, v: object, /) -> bool:
        """Whether ``v`` is a vertex (``False`` for non-ids)."""
    def label(self, v: _Vertex) -> str:
        """The label of ``v``; ``NotFound`` if it is not a vertex."""
    def property(self, v: _Vertex, key: str, default: Any = None) -> Any:
        """Property ``key`` of ``v``, or ``default``."""
    def properties(self, v: _Vertex) -> Dict[str, Any]:
        """Every property of ``v`` (in the order set); ``NotFound`` if it
        is not a vertex."""
    def find_vertices(self, label: str, key: str, value: PropertyValue) -> npt.NDArray[np.uint64]:
        """Vertices labelled ``label`` whose ``key`` equals ``value``
        (through an index if one exists)."""
    def vertex(self, v: _Vertex) -> Dict[str, Any]:
        """``{"id": v, "label": ..., "properties": {...}}`` (``"id"`` the
        key in a string-keyed store)."""
    def has_vertex(self, v: _Vertex) -> bool:
        """Whether ``v`` is a vertex."""
    def has_edge(self, u: _Vertex, v: _Vertex) -> bool:
        """Whether ``u -> v`` exists (either direction if undirected)."""
    def weight(self, u: _Vertex, v: _Vertex) -> float:
        """Weight of ``u -> v``; ``NotFound`` if missing."""
    @overload
    def degree(self, v: None = None) -> _I64: ...
    @overload
    def degree(self, v: _Vertex) -> int:
        """networkx-style degree (in + out; undirected self-loops twice);
        without ``v`` an array aligned with ``vertices()``."""
    @overload
    def out_degree(self, v: None = None) -> _I64: ...
    @overload
    def out_degree(self, v: _Vertex) -> int:
        """Out-degree; without ``v`` an array aligned with ``vertices()``."""
    @overload
    def in_degree(self, v: None = None) -> _I64: ...
    @overload
    def in_degree(self, v: _Vertex) -> int:
        """In-degree; without ``v`` an array aligned with ``vertices()``."""
    def neighbors(self, v: _Vertex, label: Optional[str] = None) -> _U64:
        """Out-neighbours (all neighbours if undirected), ascending internal
        id; with ``label``, the destinations of ``v``'s out-going property
        edges of that label, once per edge, in ``edges_of`` order (property
        edges keep their direction in undirected graphs too)."""
    def in_neighbors(self, v: _Vertex, label: Optional[str] = None) -> _U64:
        """In-neighbours, ascending internal id; with ``label``, the sources
        of ``v``'s in-coming property edges of that label, once per edge."""
    def edge(self, edge_id: int) -> _EdgeDict:
        """Property edge ``edge_id`` as ``{"id", "src", "dst", "label",
        "properties"}``; ``NotFound`` if missing."""
    def edge_property(self, edge_id: int, key: str, default: Any = None) -> Any:
        """Property ``key`` of property edge ``edge_id``, or ``default``."""
    def edge_properties(self, edge_id: int) -> Dict[str, Any]:
        """Every property of property edge ``edge_id`` (in the order set);
        ``NotFound`` if the edge is missing."""
    def edges_of(
        self, v: _Vertex, label: Optional[str] = None, direction: _Direction = "out"
    ) -> List[_EdgeDict]:
        """``v``'s property edges (of ``label``, or all) on side
        ``direction`` (a self-loop once in "both"), grouped by label, then
        by other end (``vertices()`` order), then id; ``NotFound`` if ``v`` is missing, ``ValueError`` for another
        direction. (``edges()`` lists the weighted edges.)"""
    def edge_ids(
        self, v: _Vertex, label: Optional[str] = None, direction: _Direction = "out"
    ) -> _U64:
        """The ids of ``edges_of(v, label, direction)``, in its order."""
    def property_edges(self) -> List[_EdgeDict]:
        """Every property edge (without properties), ascending by id."""
    def vertices(self, label: Optional[str] = None, **equal: PropertyValue) -> _U64:
        """Every vertex id, in the order all per-vertex arrays use; with
        ``label``, those of that label whose properties equal the keyword
        arguments (typed, as ``find_vertices``), in the same order.
        Keywords without ``label`` raise ``ValueError``."""
    @overload
    def edges(self, weights: Literal[False] = False) -> Tuple[_U64, _U64]: ...
    @overload
    def edges(self, weights: Literal[True]) -> Tuple[_U64, _U64, _F64]:
        """Every edge as ``(src, dst[, weights])`` arrays; undirected edges once."""
    # Every kernel takes ``labels``: run it on a projection of the property
    # edges of those labels (parallel edges as one, undirected if the graph
    # is) instead of the weighted edges; results keep their shape.
    def bfs(self, source: _Vertex, *, labels: _Labels = None, threads: int = 0) -> _I64:
        """Hop distances from ``source``; -1 where unreachable."""
    def sssp(
        self,
        source: _Vertex,
        *,
        labels: _Labels = None,
        weight: Optional[str] = None,
        default_weight: Optional[float] = None,
        threads: int = 0,
    ) -> _F64:
        """Weighted distances from ``source``; ``inf`` where unreachable;
        ``InvalidInput`` for negative weights. With ``labels`` or ``weight``
        on a projection of property edges weighted by property ``weight``
        (1 if ``None``; ``default_weight`` where missing, else
        ``InvalidInput`` naming the edge), parallel edges' smallest."""
    def wcc(self, *, labels: _Labels = None, threads: int = 0) -> _U64:
        """Weakly connected component labels (id of the component's first
        member in ``vertices()`` order)."""
    def pagerank(
        self,
        *,
        damping: float = 0.85,
        iterations: int = 20,
        labels: _Labels = None,
        threads: int = 0,
    ) -> _F64:
        """PageRank after exactly ``iterations`` iterations; dangling rank is
        spread evenly (as networkx's default)."""
    def lcc(self, *, labels: _Labels = None, threads: int = 0) -> _F64:
        """Local clustering coefficients (Graphalytics definition)."""
    def cdlp(self, *, iterations: int = 10, labels: _Labels = None, threads: int = 0) -> _U64:
        """Label-propagation communities (Graphalytics CDLP)."""
    def triangle_count(self, *, labels: _Labels = None, threads: int = 0) -> int:
        """Triangles of the undirected simple graph underneath."""
    def betweenness(
        self, source: _Vertex, *, labels: _Labels = None, threads: int = 0
    ) -> _F64:
        """Single-source Brandes dependencies (unnormalised)."""
    def to_dict(self, values: npt.ArrayLike) -> Dict[_Shown, Any]:
        """``{vertex id: value}`` for an array aligned with ``vertices()``
        (keyed by ``str`` keys in a string-keyed store)."""
    def to_arrow(self, ids: Literal["user", "internal"] = "user") -> Tuple[Any, Any]:
        """``(vertices, edges)`` as ``pyarrow.Table``s (needs pyarrow).
        vertices: ``_id``, ``_label``, one column per property key; edges:
        ``_id`` (null for weighted edges), ``_src``, ``_dst``, ``_label``
        (null for weighted edges), ``_weight`` (null for property edges),
        one column per property key. Values keep their types; a key of
        mixed types is a binary column of encoded values, which
        ``Graph.load_arrow`` reads back exactly.

        ``ids="internal"``: vertices gain ``_vid`` (uint32, the store's
        dense id) and ``_src``/``_dst`` are ``_vid``s; columns appear only
        if they hold something (no ``_weight`` when every weight is 1.0);
        a compacted directed graph's ``_dst`` and ``_weight`` are the
        level's own memory, not a copy."""
    def arrow_vertices(self, ids: Literal["user", "internal"] = "user") -> ArrowStream:
        """The vertex table of ``to_arrow`` for any Arrow consumer."""
    def arrow_edges(self, ids: Literal["user", "internal"] = "user") -> ArrowStream:
        """The edge table of ``to_arrow`` for any Arrow consumer."""
    def export_parquet(
        self, path: _Path, *, vertex_chunk: int = 1 << 18, edge_chunk: int = 1 << 22
    ) -> Dict[str, int]:
        """Writes this snapshot to the directory ``path`` (new or empty) as
        Parquet files in Apache GraphAr's layout, without the GIL: a vertex
        table per label, an edge table per (source label, edge label,
        destination label), ids as given, typed property columns, and
        ``stratagraph.json``. Returns ``{"timestamp", "vertices", "edges",
        "weighted_edges", "files", "bytes"}``. ``FileExistsError`` for a
        directory with files; ``InvalidInput`` for a property named like a
        layout column; a failed export leaves nothing."""
    def to_networkx(self) -> Any:
        """A ``networkx.DiGraph``/``Graph`` copy with ``weight`` attributes."""
    def to_scipy(self) -> Any:
        """The weighted adjacency matrix as ``scipy.sparse.csr_matrix``,
        rows/columns in ``vertices()`` order."""
    def close(self) -> None:
        """Releases the snapshot; later calls raise ``Closed``."""
    def __enter__(self) -> Snapshot: ...
    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> Literal[False]: ...

class _EdgeListReader:
    """An edge-list file being loaded into a graph (used by
    ``read_edgelist``). Not API."""

    def __init__(self, path: str, comments: List[str], weighted: Optional[bool]) -> None: ...
    @property
    def file_size(self) -> int: ...
    @property
    def bytes_read(self) -> int: ...
    def load_batch(self, graph: Graph, max_edges: int) -> int: ...

def _insert_each(graph: Graph, src: npt.ArrayLike, dst: npt.ArrayLike) -> float:
    """Seconds a Rust loop takes to commit each edge alone (used by
    ``bench/python_speed.py``). Not API."""

def _kernel_seconds(
    snapshot: Snapshot, kernel: str, source: int = 0, threads: int = 0
) -> float:
    """Seconds one kernel takes when called from Rust (used by
    ``bench/python_speed.py``). Not API."""

def _last_kernel_seconds() -> float:
    """Seconds the kernel inside the most recent Snapshot analytics call
    took, without the call's own conversions (used by
    ``bench/python_speed.py``). Not API."""

def _raise_engine_bug() -> None:
    """Raises ``InternalError`` as an engine bug the engine catches itself
    would (used by the tests; no input can cause one). Not API."""
