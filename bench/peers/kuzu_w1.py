#!/usr/bin/env python3
"""W1 on Kuzu: an embedded on-disk property-graph database (Cypher), with its
built-in algo extension for PageRank and WCC."""
import importlib.metadata
import os
import shutil
import tempfile
import threading
import time
import warnings

import kuzu
import numpy as np

import w1common as c

INSERT = "MATCH (a:V {id: $a}), (b:V {id: $b}) CREATE (a)-[:E {w: $w}]->(b)"
DELETE = "MATCH (a:V {id: $a})-[e:E]->(b:V {id: $b}) DELETE e"
SSSP = "MATCH (a:V {id: $s})-[e:E* WSHORTEST(w)]->(b:V) RETURN count(*), sum(cost(e))"
BFS = "MATCH (a:V {id: $s})-[e:E* SHORTEST 1..30]->(b:V) RETURN count(*)"
# count(*), not count(e): Kuzu 0.11.3 materialises every edge for count(e)
# (8.8 GB resident at k20); count(*) reads the counts.
COUNT = "MATCH ()-[e:E]->() RETURN count(*)"
SEARCH = "UNWIND $p AS x MATCH (a:V {id: x[1]})-[:E]->(b:V {id: x[2]}) RETURN count(*)"
SCAN_SEQ = "MATCH (a:V)-[:E]->(b:V) RETURN sum(b.id)"
SCAN_ONE = "MATCH (a:V {id: $v})-[:E]->(b:V) RETURN sum(b.id)"


def algo(conn, call):
    """The rows of an algo-extension `call` on the projection of V and E."""
    conn.execute("CALL project_graph('G', ['V'], ['E'])")
    try:
        return conn.execute(call).get_all()
    finally:
        conn.execute("CALL drop_projected_graph('G')")


def page_rank_top(conn):
    """The vertex of highest PageRank (lowest id on ties)."""
    r = algo(conn, "CALL page_rank('G', dampingFactor := 0.85, maxIterations := 20, "
                   "tolerance := 0.0) RETURN node.id, rank")
    best = max(x[1] for x in r)
    return min(x[0] for x in r if x[1] == best)


def wcc_count(conn):
    """The number of weakly connected components."""
    return algo(conn, "CALL weakly_connected_components('G') RETURN count(DISTINCT group_id)")[0][0]


def prepared(conn, cache, q):
    """`q` prepared once for `conn` (cached in `cache`), for a query run
    once per edge or vertex. Kuzu 0.11.3's `execute` of a query text parses
    and plans it at every call and keeps about 27 KB each time (measured:
    2,500 single CREATEs took the resident set from 70 to 138 MB, which a
    memory cap turns into a kill); prepared, memory stays flat and single
    CREATEs ran at about 1,480 a second against 820-930 (k14, uncapped,
    one run each)."""
    ps = cache.get(q)
    if ps is None:
        with warnings.catch_warnings():
            # Deprecated in favour of `execute` with parameters: the call
            # that re-plans and keeps memory.
            warnings.simplefilter("ignore", DeprecationWarning)
            ps = cache[q] = conn.prepare(q)
    return ps


class Kuzu(c.Peer):
    name = "kuzu"
    version = importlib.metadata.version("kuzu")
    kernel_threads = True
    na = {
        "insert_single_2": "n/a: Kuzu admits one write transaction at a time",
    }
    notes = [
        "bulk_load is COPY FROM CSV files written before timing (Kuzu's bulk path)",
        "one edge is one auto-committed Cypher CREATE (a statement prepared once); a batch is one COPY E FROM (UNWIND $rows ...) (one transaction; faster than UNWIND ... MATCH ... CREATE)",
        "search_edge is one UNWIND ... MATCH query per 4096 pairs; scan_rand is one query per vertex",
        "BFS is a SHORTEST 1..30 path match; SSSP a WSHORTEST(w) match; PR and WCC the algo extension (PR without sink redistribution)",
        "TC: each undirected edge stored once (low id to high id), triangles matched as a->b->c with a->c",
        "mixed_rw: writer and SSSP reader on two connections of one Database",
    ]

    def __init__(self, scratch):
        self.scratch = scratch
        self.threads = 1
        self.files = {}
        self.tmp = tempfile.mkdtemp(prefix="kuzu-w1-csv-", dir=scratch)

    def __del__(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def prepare(self, w):
        path = os.path.join(self.tmp, "v.csv")
        np.savetxt(path, np.arange(w.n), fmt="%d")
        self.files["v"] = path
        for name, (s, d, wt) in {
            "full": (w.src, w.dst, w.w),
            "head": (w.src[:w.split], w.dst[:w.split], w.w[:w.split]),
        }.items():
            path = os.path.join(self.tmp, f"{name}.csv")
            with open(path, "w") as f:
                f.write("".join(f"{a},{b},{x!r}\n" for a, b, x in zip(s.tolist(), d.tolist(), wt.tolist())))
            self.files[len(s)] = path
        path = os.path.join(self.tmp, "u.csv")
        np.savetxt(path, np.column_stack([w.usrc, w.udst]), fmt="%d", delimiter=",")
        self.files["u"] = path

    def _db(self):
        path = tempfile.mkdtemp(prefix="kuzu-w1-", dir=self.scratch)
        db = kuzu.Database(os.path.join(path, "db"))
        conn = kuzu.Connection(db, num_threads=self.threads)
        conn.execute("CREATE NODE TABLE V(id INT64, PRIMARY KEY(id))")
        conn.execute(f"COPY V FROM '{self.files['v']}' (header=false)")
        return {"db": db, "conn": conn, "path": path, "prepared": {}}

    def load(self, w, src, dst, wt):
        g = self._db()
        g["conn"].execute("CREATE REL TABLE E(FROM V TO V, w DOUBLE)")
        g["conn"].execute(f"COPY E FROM '{self.files[len(src)]}' (header=false)")
        return g

    def load_undirected(self, w, src, dst):
        g = self._db()
        g["conn"].execute("CREATE REL TABLE U(FROM V TO V)")
        g["conn"].execute(f"COPY U FROM '{self.files['u']}' (header=false)")
        return g

    def set_threads(self, t):
        self.threads = t

    def _conn(self, g):
        g["conn"].set_max_threads_for_exec(self.threads)
        return g["conn"]

    def _one(self, g, q, params=None):
        return self._conn(g).execute(q, params or {}).get_next()

    def close(self, g):
        g["conn"].close()
        g["db"].close()
        shutil.rmtree(g["path"], ignore_errors=True)

    def disk_bytes(self, g):
        g["conn"].execute("CHECKPOINT")
        return c.dir_bytes(g["path"])

    def edge_count(self, g):
        return self._one(g, COUNT)[0]

    def insert(self, g, u, v, wt):
        g["conn"].execute(prepared(g["conn"], g["prepared"], INSERT), {"a": u, "b": v, "w": wt})

    def delete(self, g, u, v):
        g["conn"].execute(prepared(g["conn"], g["prepared"], DELETE), {"a": u, "b": v})

    def batch(self, g, s, d, wt):
        rows = [{"s": a, "d": b, "w": x} for a, b, x in zip(s.tolist(), d.tolist(), wt.tolist())]
        g["conn"].execute("COPY E FROM (UNWIND $rows AS r RETURN r.s, r.d, r.w)", {"rows": rows})

    def search(self, g, s, d, budget):
        # In chunks, so a slow look-up path is stopped at the budget.
        pairs = np.column_stack([s, d]).tolist()
        conn = self._conn(g)
        q = SEARCH
        chunk = 4096
        parts = c.stream_results(-(-len(pairs) // chunk),
                                 lambda i: conn.execute(q, {"p": pairs[i * chunk:(i + 1) * chunk]}).get_next()[0],
                                 budget)
        return sum(parts)

    def scan_seq(self, g, n, budget):
        return self._one(g, SCAN_SEQ)[0]

    def scan_rand(self, g, perm, budget):
        conn = self._conn(g)
        p = perm.tolist()
        q = prepared(conn, g["prepared"], SCAN_ONE)
        return sum(c.stream_results(len(p), lambda i: conn.execute(q, {"v": p[i]}).get_next()[0] or 0,
                                    budget))

    def bfs(self, g, s):
        return self._one(g, BFS, {"s": s})[0] + 1

    def pr(self, g):
        return page_rank_top(self._conn(g))

    def wcc(self, g):
        return wcc_count(self._conn(g))

    def sssp(self, g, s):
        n, total = self._one(g, SSSP, {"s": s})
        return n + 1, float(total)

    def tc(self, g, budget):
        return self._one(g, "MATCH (a:V)-[:U]->(b:V)-[:U]->(x:V), (a)-[:U]->(x) RETURN count(*)")[0]

    def mixed_rw(self, w, a, rows, alone_insert, alone_sssp):
        ref = w.ref
        tail_n = w.m - w.split
        s, d, wt = w.src[w.split:].tolist(), w.dst[w.split:].tolist(), w.w[w.split:].tolist()
        rates, sssp_secs, check = [], [], ""
        for _ in range(a.runs):
            self.threads = 1
            g = self.load(w, w.src[:w.split], w.dst[:w.split], w.w[:w.split])
            reader = kuzu.Connection(g["db"], num_threads=1)
            done = threading.Event()
            times, errors = [], []

            def read():
                try:
                    while True:
                        t = time.perf_counter()
                        reader.execute(SSSP, {"s": ref["bfs_source"]}).get_next()
                        times.append(time.perf_counter() - t)
                        if done.is_set():
                            return
                except Exception as e:  # reported below, after the writer stops
                    errors.append(e)
            th = threading.Thread(target=read)
            th.start()
            t = time.perf_counter()
            try:
                c.stream(tail_n, lambda i: self.insert(g, s[i], d[i], wt[i]), a.budget)
            except c.OverBudget as e:
                done.set()
                th.join()
                reader.close()
                self.close(g)
                for op in ["mixed_rw_insert", "mixed_rw_sssp"]:
                    rows.na(op, 2, e.reason("edges"))
                return
            secs = time.perf_counter() - t
            done.set()
            th.join()
            if errors:
                raise errors[0]
            c.expect("edges", self.edge_count(g), w.m)
            check = c.sssp_checksum(ref, *self.sssp(g, ref["bfs_source"]))
            reader.close()
            self.close(g)
            rates.append(tail_n / secs)
            sssp_secs.append(c.median(times))
        check = f"edges={w.m};final_sssp_{check}"
        rate, secs = c.median(rates), c.median(sssp_secs)
        rows.row("mixed_rw_insert", 2, rate, "edges/s", check)
        rows.row("mixed_rw_sssp", 2, secs, "s", check)
        if alone_insert and alone_sssp:
            rows.row("mixed_rw_insert_ratio", 2, rate / alone_insert, "x", check)
            rows.row("mixed_rw_sssp_ratio", 2, secs / alone_sssp, "x", check)


if __name__ == "__main__":
    a = c.parse_args("kuzu")
    c.run(Kuzu(a.scratch), c.Work(a.data, a.scale), a)
