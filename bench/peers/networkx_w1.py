#!/usr/bin/env python3
"""W1 on networkx: the pure-Python reference (dict-of-dicts), at scale 16 and below."""
import networkx as nx
import numpy as np

import w1common as c


class Networkx(c.Peer):
    name = "networkx"
    version = nx.__version__
    na = {
        "insert_single_2": "n/a: networkx graphs are not safe for concurrent writers (and the GIL serialises them)",
        "mixed_rw": "n/a: no snapshots; reading a networkx graph while another thread writes it is unsafe",
    }
    notes = [
        "a batch is one add_weighted_edges_from call (no transactions)",
        "PageRank: nx.pagerank to its default tolerance (it refuses a fixed 20 iterations without converging); only the top vertex is compared",
    ]

    def load(self, w, src, dst, wt):
        g = nx.DiGraph()
        g.add_nodes_from(range(w.n))
        g.add_weighted_edges_from(zip(np.asarray(src).tolist(), np.asarray(dst).tolist(),
                                      np.asarray(wt).tolist()))
        return g

    def load_undirected(self, w, src, dst):
        g = nx.Graph()
        g.add_nodes_from(range(w.n))
        g.add_edges_from(zip(src.tolist(), dst.tolist()))
        return g

    def edge_count(self, g):
        return g.number_of_edges()

    def insert(self, g, u, v, wt):
        g.add_edge(u, v, weight=wt)

    def delete(self, g, u, v):
        g.remove_edge(u, v)

    def batch(self, g, s, d, wt):
        g.add_weighted_edges_from(zip(s.tolist(), d.tolist(), wt.tolist()))

    def search(self, g, s, d, budget):
        has = g.has_edge
        s, d = s.tolist(), d.tolist()
        return sum(c.stream_results(len(s), lambda i: has(s[i], d[i]), budget))

    def scan_seq(self, g, n, budget):
        succ = g._succ
        return sum(c.stream_results(n, lambda v: sum(succ[v]), budget))

    def scan_rand(self, g, perm, budget):
        succ = g._succ
        p = perm.tolist()
        return sum(c.stream_results(len(p), lambda i: sum(succ[p[i]]), budget))

    def bfs(self, g, s):
        return len(nx.single_source_shortest_path_length(g, s))

    def pr(self, g):
        r = nx.pagerank(g, alpha=0.85)
        best = max(r.values())
        return min(v for v, x in r.items() if x == best)

    def wcc(self, g):
        return nx.number_weakly_connected_components(g)

    def sssp(self, g, s):
        d = nx.single_source_dijkstra_path_length(g, s)
        return len(d), float(np.sum(np.fromiter(d.values(), dtype=np.float64)))

    def tc(self, g, budget):
        return sum(nx.triangles(g).values()) // 3


if __name__ == "__main__":
    a = c.parse_args("networkx", scales=[14, 16])
    c.run(Networkx(), c.Work(a.data, a.scale), a)
