"""Shared fixtures: the real SNAP graphs, loaded once per session."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Tuple

import networkx as nx
import pytest

import stratagraph as sg

# tests/ -> stratagraph-py/ -> crates/ -> the repository; shared/ is its sibling.
REPO = Path(__file__).resolve().parents[3]
REAL = REPO.parent / "shared" / "datasets" / "real"

#: (file stem, directed) of the real graphs small enough for networkx in a
#: few seconds; soc-Slashdot0902 (950k edges) is left to the Rust tests.
REAL_GRAPHS = [
    ("email-Eu-core", True),
    ("p2p-Gnutella04", True),
    ("wiki-Vote", True),
    ("facebook_combined", False),
    ("ca-HepPh", False),
]


def real_path(stem: str) -> Path:
    path = REAL / f"{stem}.txt.gz"
    if not path.exists():
        pytest.skip(f"{path} not found (tests read the shared datasets beside the checkout)")
    return path


@lru_cache(maxsize=None)
def load_real(stem: str, directed: bool) -> Tuple[nx.Graph, sg.Graph]:
    """The graph as networkx reads it, and as stratagraph reads it."""
    path = real_path(stem)
    G = nx.read_edgelist(
        path, create_using=nx.DiGraph if directed else nx.Graph, nodetype=int, comments="#"
    )
    return G, sg.read_edgelist(path, directed=directed)


@pytest.fixture(params=REAL_GRAPHS, ids=[stem for stem, _ in REAL_GRAPHS])
def real(request: pytest.FixtureRequest) -> Tuple[nx.Graph, sg.Snapshot]:
    G, g = load_real(*request.param)
    return G, g.snapshot()
