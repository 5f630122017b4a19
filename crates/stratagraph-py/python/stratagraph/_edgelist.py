"""Loading SNAP-style edge lists (plain or gzip) into a new graph."""

from __future__ import annotations

import gzip
import io
import os
from typing import Any, Optional, Union

from ._native import Graph, _parse_edgelist_chunk

#: Files at least this large show a progress bar when ``progress=None``.
PROGRESS_BYTES = 64 << 20
#: Decompressed bytes parsed (and inserted as one batch) at a time.
CHUNK_BYTES = 16 << 20


def read_edgelist(
    path: Union[str, "os.PathLike[str]"],
    directed: bool = True,
    *,
    comments: Optional[str] = "#",
    weighted: Optional[bool] = None,
    progress: Optional[bool] = None,
    threads: int = 0,
) -> Graph:
    """A new in-memory ``Graph`` holding the edges listed in ``path``.

    The file (gzip-compressed or not, detected from its first bytes) has one
    edge per line: ``source target [weight]``, separated by any whitespace,
    LF or CRLF line ends. Text from ``comments`` to the end of a line is
    ignored (``None`` or ``""``: no comments); blank lines are skipped.
    ``weighted=None`` decides from the first edge line (three or more
    columns: weighted); ``False`` ignores a third column; ``True`` requires
    it. Columns beyond the ones used are ignored. An undirected file may list
    both directions of an edge: they are the same edge.

    The file is read and inserted in chunks of about 16 MiB (each chunk is
    one atomic batch), so memory stays bounded. ``progress=None`` shows a
    tqdm progress bar (on stderr) for files of 64 MiB or more; ``True`` or
    ``False`` force it on or off.

    Raises ``InvalidInput`` naming the file and line number for a malformed
    line (a missing column, an id that is not an integer in ``0..2**64``, a
    weight that is not a finite number), and ``OSError`` if the file cannot
    be read.
    """
    if comments is not None and not isinstance(comments, str):
        raise TypeError(f"comments: expected a str or None, got {type(comments).__name__}")
    if weighted is not None and not isinstance(weighted, bool):
        raise TypeError(f"weighted: expected a bool or None, got {type(weighted).__name__}")
    if progress is not None and not isinstance(progress, bool):
        raise TypeError(f"progress: expected a bool or None, got {type(progress).__name__}")
    path = os.fspath(path)
    marker = comments.encode() if comments else None
    size = os.path.getsize(path)
    show = progress if progress is not None else size >= PROGRESS_BYTES
    g = Graph.in_memory(directed=directed, threads=threads)
    with open(path, "rb") as raw:
        compressed = raw.read(2) == b"\x1f\x8b"
        raw.seek(0)
        stream: io.BufferedIOBase = gzip.GzipFile(fileobj=raw) if compressed else raw
        bar = _progress_bar(show, size, os.path.basename(path))
        line = 1
        tail = b""
        try:
            while True:
                block = stream.read(CHUNK_BYTES)
                if not block:
                    break
                data = tail + block
                cut = data.rfind(b"\n") + 1
                chunk, tail = data[:cut], data[cut:]
                if chunk:
                    weighted = _load(g, chunk, line, marker, weighted, path)
                    line += chunk.count(b"\n")
                if bar is not None:
                    bar.update(raw.tell() - bar.n)
            if tail:
                _load(g, tail, line, marker, weighted, path)
        finally:
            if bar is not None:
                bar.close()
    return g


def _load(
    g: Graph,
    chunk: bytes,
    line: int,
    comments: Optional[bytes],
    weighted: Optional[bool],
    path: str,
) -> Optional[bool]:
    """Parses and inserts one chunk; returns what ``weighted`` now is."""
    src, dst, weights = _parse_edgelist_chunk(chunk, line, comments, weighted, path)
    if len(src):
        g.add_edges(src, dst, weights)
        if weighted is None:
            weighted = weights is not None
    return weighted


def _progress_bar(show: bool, size: int, name: str) -> Optional[Any]:
    if not show:
        return None
    from tqdm.auto import tqdm  # type: ignore[import-untyped]

    return tqdm(total=size, unit="B", unit_scale=True, unit_divisor=1024, desc=name)
