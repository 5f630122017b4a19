#!/usr/bin/env python3
"""Interchange on networkit (pinned by run.sh): Parquet in through
pyarrow and numpy into the library's bulk constructors, and its edges out
to Parquet. Runs in its own venv (networkit, pyarrow, numpy).

Operations, `--runs` times each, median reported, every result checked
against kS.bin's figures first:

  import_parquet           pq.read_table(nodes.parquet) and (edges.parquet)
                           -> numpy -> nk.GraphFromCoo((w, (src, dst)),
                           n, weighted, directed).
  import_parquet_addedges  the same into nk.Graph(n, weighted, directed)
                           with one Graph.addEdges((w, (src, dst))) call.
  export_parquet           networkit has no vectorised edge export: the
                           edges through Graph.iterEdgesWeights() (a
                           Python generator) into a numpy record array,
                           then pyarrow -> one Snappy Parquet file. (Its
                           C++ EdgeListWriter writes weights to 6
                           significant digits: lossy, so not used.)
"""
import os
import sys

import networkit as nk
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iocommon as c  # noqa: E402

EDGE = np.dtype([("u", "<i8"), ("v", "<i8"), ("w", "<f8")])


def edge_arrays(g):
    a = np.fromiter(g.iterEdgesWeights(), dtype=EDGE, count=g.numberOfEdges())
    return a["u"], a["v"], a["w"]


def check_graph(g, ref):
    ref.expect("vertices", g.numberOfNodes(), ref.n)
    ref.expect("edges", g.numberOfEdges(), ref.m)
    return ref.check("graph", c.checksum(*edge_arrays(g))) + f",vertices={ref.n}"


def from_coo(n, s, d, w):
    return nk.GraphFromCoo((w, (s, d)), n=n, weighted=True, directed=True)


def add_edges(n, s, d, w):
    g = nk.Graph(n, weighted=True, directed=True)
    g.addEdges((w, (s, d)))
    return g


def main():
    c.run_array_library(
        "networkit",
        nk.__version__,
        [
            f"networkit through its Python API; {nk.getMaxNumberOfThreads()} OpenMP threads",
            "inputs: {nodes}, {edges}; vertex ids used as networkit node ids (W1's are 0..n-1; not remapped)",
            "checks: vertex and edge counts, sum of src, sum of dst, exact sum of the W1 weight codes",
        ],
        [
            ("import_parquet", from_coo, "nk.GraphFromCoo((w, (src, dst)), n, weighted, directed)"),
            ("import_parquet_addedges", add_edges, "nk.Graph(n, weighted, directed) + one addEdges((w, (src, dst)))"),
        ],
        edge_arrays,
        check_graph,
        'no vectorised edge export: iterEdgesWeights() generator -> numpy',
    )


if __name__ == "__main__":
    main()
