#!/usr/bin/env python3
"""W1 on python-igraph: a static-layout in-memory graph (C core, indexed edge list)."""
import igraph as ig
import numpy as np

import w1common as c


class Igraph(c.Peer):
    name = "igraph"
    version = ig.__version__
    na = {
        "insert_single_2": "n/a: igraph graphs are not safe for concurrent writers",
        "mixed_rw": "n/a: no snapshots; reading an igraph graph while another thread writes it is unsafe",
    }
    notes = [
        "every add_edges/delete_edges call rebuilds igraph's edge indices (O(|V|+|E|)), so one-edge writes are bounded by --budget",
        "a batch is one Graph.add_edges call (no transactions)",
        "search_edge uses one Graph.get_eids call over all pairs, the library's bulk look-up",
        "PageRank: PRPACK solves to convergence (no iteration count); only the top vertex is compared",
        "TC: local transitivity times each vertex's pair count, rounded per vertex (exact below 2^53), summed, divided by 3",
    ]

    def load(self, w, src, dst, wt):
        g = ig.Graph(n=w.n, edges=np.column_stack([src, dst]), directed=True)
        g.es["weight"] = np.asarray(wt, dtype=np.float64)
        return g

    def load_undirected(self, w, src, dst):
        return ig.Graph(n=w.n, edges=np.column_stack([src, dst]), directed=False)

    def edge_count(self, g):
        return g.ecount()

    def insert(self, g, u, v, wt):
        g.add_edge(u, v, weight=wt)

    def delete(self, g, u, v):
        g.delete_edges([(u, v)])

    def batch(self, g, s, d, wt):
        g.add_edges(np.column_stack([s, d]), attributes={"weight": wt})

    def search(self, g, s, d, budget):
        eids = g.get_eids(np.column_stack([s, d]).tolist(), directed=True, error=False)
        return sum(1 for e in eids if e >= 0)

    def scan_seq(self, g, n, budget):
        nb = g.neighbors
        return sum(c.stream_results(n, lambda v: sum(nb(v, mode="out")), budget))

    def scan_rand(self, g, perm, budget):
        nb = g.neighbors
        p = perm.tolist()
        return sum(c.stream_results(len(p), lambda i: sum(nb(p[i], mode="out")), budget))

    def bfs(self, g, s):
        return len(g.bfs(s, mode="out")[0])

    def pr(self, g):
        r = np.asarray(g.pagerank(damping=0.85, directed=True))
        return int(np.flatnonzero(r == r.max()).min())

    def wcc(self, g):
        return len(g.connected_components(mode="weak"))

    def sssp(self, g, s):
        d = np.asarray(g.distances(source=s, weights="weight", mode="out")[0])
        fin = np.isfinite(d)
        return int(fin.sum()), float(d[fin].sum())

    def tc(self, g, budget):
        t = np.asarray(g.transitivity_local_undirected(mode="zero"))
        d = np.asarray(g.degree(), dtype=np.float64)
        per_vertex = np.rint(t * d * (d - 1) / 2).astype(np.int64)
        return int(per_vertex.sum()) // 3


if __name__ == "__main__":
    a = c.parse_args("igraph")
    c.run(Igraph(), c.Work(a.data, a.scale), a)
