#!/usr/bin/env python3
"""W1 on networkit: a dynamic in-memory graph (C++ with OpenMP kernels)."""
import networkit as nk
import numpy as np

import w1common as c


class Networkit(c.Peer):
    name = "networkit"
    version = nk.__version__
    kernel_threads = True
    na = {
        "insert_single_2": "n/a: networkit graphs are not safe for concurrent writers",
        "mixed_rw": "n/a: no snapshots; reading a networkit graph while another thread writes it is unsafe",
    }
    notes = [
        "a batch is one Graph.addEdges call: networkit has no transactions, a call is all-or-nothing only for the calling thread",
        "PageRank with Graphalytics sink handling (DISTRIBUTE_SINKS), at most 20 iterations (tol 1e-12)",
        "TC: TriangleEdgeScore per edge, summed and divided by 3",
    ]

    def set_threads(self, t):
        nk.setNumberOfThreads(t)

    def load(self, w, src, dst, wt):
        g = nk.Graph(w.n, weighted=True, directed=True)
        g.addEdges((np.asarray(wt, dtype=np.float64), (np.asarray(src, dtype=np.uint64),
                                                         np.asarray(dst, dtype=np.uint64))))
        return g

    def load_undirected(self, w, src, dst):
        g = nk.Graph(w.n, weighted=False, directed=False)
        g.addEdges((np.asarray(src, dtype=np.uint64), np.asarray(dst, dtype=np.uint64)))
        return g

    def edge_count(self, g):
        return g.numberOfEdges()

    def insert(self, g, u, v, wt):
        g.addEdge(u, v, wt)

    def delete(self, g, u, v):
        g.removeEdge(u, v)

    def batch(self, g, s, d, wt):
        g.addEdges((wt, (s.astype(np.uint64), d.astype(np.uint64))))

    def search(self, g, s, d, budget):
        has = g.hasEdge
        s, d = s.tolist(), d.tolist()
        return sum(c.stream_results(len(s), lambda i: has(s[i], d[i]), budget))

    def scan_seq(self, g, n, budget):
        return sum(c.stream_results(n, lambda v: sum(g.iterNeighbors(v)), budget))

    def scan_rand(self, g, perm, budget):
        p = perm.tolist()
        return sum(c.stream_results(len(p), lambda i: sum(g.iterNeighbors(p[i])), budget))

    def bfs(self, g, s):
        b = nk.distance.BFS(g, s, storePaths=False)
        b.run()
        d = np.asarray(b.getDistances())
        return int(np.sum(d < 1e300))

    def pr(self, g):
        p = nk.centrality.PageRank(g, damp=0.85, tol=1e-12,
                                   distributeSinks=nk.centrality.SinkHandling.DistributeSinks)
        p.maxIterations = 20
        p.run()
        s = np.asarray(p.scores())
        return int(np.flatnonzero(s == s.max()).min())

    def wcc(self, g):
        cc = nk.components.WeaklyConnectedComponents(g)
        cc.run()
        return cc.numberOfComponents()

    def sssp(self, g, s):
        d = nk.distance.Dijkstra(g, s, storePaths=False)
        d.run()
        dist = np.asarray(d.getDistances())
        fin = dist < 1e300
        return int(fin.sum()), float(dist[fin].sum())

    def tc(self, g, budget):
        g.indexEdges()
        t = nk.sparsification.TriangleEdgeScore(g)
        t.run()
        return int(round(sum(t.scores()))) // 3


if __name__ == "__main__":
    a = c.parse_args("networkit")
    c.run(Networkit(), c.Work(a.data, a.scale), a)
