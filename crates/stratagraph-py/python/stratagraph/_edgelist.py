"""Loading edge lists (plain or gzip) into a new graph."""

from __future__ import annotations

import os
from typing import Any, Optional, Sequence, Union

from ._native import Graph, _EdgeListReader

#: Files at least this large show a progress bar when ``progress=None``.
PROGRESS_BYTES = 64 << 20
#: Edges parsed and inserted as one atomic batch.
BATCH_EDGES = 1 << 20

#: The comment markers of the grammar unless the caller picks others.
DEFAULT_COMMENTS = ("#", "%")


def read_edgelist(
    path: Union[str, "os.PathLike[str]"],
    directed: bool = True,
    *,
    comments: Union[str, Sequence[str], None] = DEFAULT_COMMENTS,
    weighted: Optional[bool] = None,
    progress: Optional[bool] = None,
    threads: int = 0,
) -> Graph:
    """A new in-memory ``Graph`` holding the edges listed in ``path``.

    The file follows the edge-list grammar that ``stratagraph load`` reads
    too (the README states it in full): plain text or gzip (told from the
    first bytes, not the name); one edge per line, ``source destination
    [weight [more...]]``, fields separated by spaces and tabs in any mix,
    LF or CRLF line ends; ids are integers in ``0..2**64``; fields after the
    weight are ignored. A comment runs from a marker to the end of its line:
    ``comments`` gives the markers (``#`` and ``%`` by default; one string
    or a sequence; ``None`` or ``()``: no comments).

    ``weighted=None`` takes each line's third field as its weight and gives
    a line without one weight 1.0, so no weight is ever dropped; ``True``
    requires a weight on every line; ``False`` ignores the third field. An
    undirected file may list both directions of an edge: they are the same
    edge.

    The file is read and inserted in batches of about a million edges (each
    batch atomic), so memory stays bounded. ``progress=None`` shows a tqdm
    progress bar (on stderr) for files of 64 MiB or more; ``True`` or
    ``False`` force it on or off.

    Raises ``InvalidInput`` naming the file and line for a malformed line (a
    missing field, an id that is not an integer in ``0..2**64``, a weight
    that is not a finite number) or a damaged or truncated gzip stream; the
    engine's class (``InvalidInput`` for a self-loop the graph forbids)
    with the file and line for a record the graph refuses; ``OSError`` if
    the file cannot be read.
    """
    if isinstance(comments, str):
        markers = [comments] if comments else []
    elif comments is None:
        markers = []
    elif isinstance(comments, (list, tuple)) and all(isinstance(c, str) for c in comments):
        markers = [c for c in comments if c]
    else:
        raise TypeError(
            f"comments: expected a str, a sequence of str or None, got {type(comments).__name__}"
        )
    if weighted is not None and not isinstance(weighted, bool):
        raise TypeError(f"weighted: expected a bool or None, got {type(weighted).__name__}")
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress: expected a bool or None, got {type(progress).__name__}")
    reader = _EdgeListReader(os.fspath(path), markers, weighted)
    g = Graph.in_memory(directed=directed, threads=threads)
    show = progress if progress is not None else reader.file_size >= PROGRESS_BYTES
    bar = _progress_bar(show, reader.file_size, os.path.basename(os.fspath(path)))
    try:
        while reader.load_batch(g, BATCH_EDGES):
            if bar is not None:
                bar.update(reader.bytes_read - bar.n)
        if bar is not None:
            bar.update(reader.bytes_read - bar.n)
    finally:
        if bar is not None:
            bar.close()
    return g


def _progress_bar(show: bool, size: int, name: str) -> Optional[Any]:
    if not show:
        return None
    from tqdm.auto import tqdm  # type: ignore[import-untyped]

    return tqdm(total=size, unit="B", unit_scale=True, unit_divisor=1024, desc=name)
