#!/usr/bin/env python3
"""Interchange on python-igraph (pinned by run.sh): Parquet in through
pyarrow and numpy into the Graph constructor, and its edges out to
Parquet. Runs in its own venv (igraph, pyarrow, numpy).

Operations, `--runs` times each, median reported, every result checked
against kS.bin's figures first:

  import_parquet      pq.read_table(nodes.parquet) and (edges.parquet) ->
                      numpy -> ig.Graph(n, edges=ndarray (m x 2),
                      directed) and g.es["weight"] = weights.
  import_parquet_zip  the same with edges=zip(src.tolist(), dst.tolist()):
                      igraph converts an iterator of pairs faster than an
                      (m x 2) ndarray, which it walks element by element.
  export_parquet      igraph has no numpy edge export: Graph.get_edgelist()
                      (a list of tuples, built in C) and g.es["weight"] (a
                      list) into numpy, then pyarrow -> one Snappy Parquet
                      file.
"""
import itertools
import os
import sys

import igraph as ig
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iocommon as c  # noqa: E402


def edge_arrays(g):
    m = g.ecount()
    flat = np.fromiter(itertools.chain.from_iterable(g.get_edgelist()), dtype=np.int64, count=2 * m)
    w = np.asarray(g.es["weight"], dtype=np.float64)
    return flat[0::2], flat[1::2], w


def check_graph(g, ref):
    ref.expect("vertices", g.vcount(), ref.n)
    ref.expect("edges", g.ecount(), ref.m)
    return ref.check("graph", c.checksum(*edge_arrays(g))) + f",vertices={ref.n}"


def from_ndarray(n, s, d, w):
    g = ig.Graph(n=n, edges=np.column_stack([s, d]), directed=True)
    g.es["weight"] = w
    return g


def from_zip(n, s, d, w):
    g = ig.Graph(n=n, edges=zip(s.tolist(), d.tolist()), directed=True)
    g.es["weight"] = w
    return g


def main():
    c.run_array_library(
        "igraph",
        ig.__version__,
        [
            "python-igraph through its Python API (single-threaded)",
            "inputs: {nodes}, {edges}; vertex ids used as igraph vertex indexes (W1's are 0..n-1; not remapped)",
            "checks: vertex and edge counts, sum of src, sum of dst, exact sum of the W1 weight codes",
        ],
        [
            ("import_parquet", from_ndarray, 'ig.Graph(n, edges=ndarray, directed) + es["weight"]'),
            ("import_parquet_zip", from_zip, 'ig.Graph(n, edges=zip(src.tolist(), dst.tolist())) + es["weight"]'),
        ],
        edge_arrays,
        check_graph,
        'no numpy edge export: get_edgelist() + es["weight"] -> numpy',
    )


if __name__ == "__main__":
    main()
