#!/usr/bin/env python3
"""The property benchmark on stratagraph, through its Python package (a
wheel built from the checkout, installed in its own virtual environment).

The store is `Graph.in_memory()`. Reads go through one snapshot per run of
an operation (taken untimed, as a reader of a database holds one); writes
are one commit each: `Graph.add_vertex` and `Graph.set_property` commit by
themselves, and a removal is a transaction of one `remove_property` (the
Graph has no `remove_property` of its own).
"""
import importlib.metadata
import os
import sys

import numpy as np
import stratagraph as sg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import propscommon as c  # noqa: E402


class Stratagraph(c.Driver):
    name = "stratagraph"
    # The wheel's version and the commit run_props_peers.sh built it from.
    version = importlib.metadata.version("stratagraph") + (
        "+" + os.environ["STRATAGRAPH_BUILT_FROM"] if os.environ.get("STRATAGRAPH_BUILT_FROM") else "")
    notes = [
        "store: Graph.in_memory(); load: Graph.load_csv with (label, file) pairs, batch 10,000 rows",
        "reads on a Snapshot taken before each run: properties(v), find_vertices(label, key, value), "
        "neighbors(v, label=...); hop2 = np.unique of the neighbours' neighbours",
        "find_indexed after Graph.create_index(label, 'name') for every vertex label",
        "writes: Graph.add_vertex(v, label, **props), Graph.set_property(v, key, value) "
        "(one commit each); remove: Graph.remove_property(v, key) (one commit each)",
        "int properties are passed as np.int32 so they stay Int32, as loaded",
    ]

    def load(self, meta, folder, budget):
        g = sg.Graph.in_memory()
        g.load_csv(vertices=[(lab, os.path.join(folder, path)) for lab, path, _ in meta["vertex_files"]],
                   edges=[(lab, os.path.join(folder, path)) for lab, _, _, path, _ in meta["edge_files"]])
        return g

    def close(self, g):
        g.close()

    def counts(self, g, meta):
        s = g.snapshot()
        ne = sum(len(s.edge_ids(int(v))) for v in s.vertices())
        s.close()
        return g.num_vertices, ne

    def reader(self, g):
        return g.snapshot()

    def read_properties(self, s, v, label):
        return s.properties(v)

    def find(self, s, label, key, value, vid):
        return s.find_vertices(label, key, value)

    def create_index(self, g, labels, key):
        for lab in labels:
            g.create_index(lab, key)

    def find_indexed(self, s, label, key, value, vid):
        return s.find_vertices(label, key, value)

    def hop1(self, s, v, label, elabel):
        return s.neighbors(v, label=elabel)

    def hop2(self, s, v, label, elabel):
        n1 = s.neighbors(v, label=elabel)
        if len(n1) == 0:
            return n1
        return np.unique(np.concatenate([s.neighbors(u, label=elabel) for u in n1.tolist()]))

    def add_vertex(self, g, v, label, props):
        g.add_vertex(v, label, **props)

    def set_property(self, g, v, label, key, value):
        g.set_property(v, key, value)

    def remove_property(self, g, v, label, key):
        g.remove_property(v, key)


if __name__ == "__main__":
    a = c.parse_args("stratagraph")
    c.run(Stratagraph(), a, typed=np.int32)
