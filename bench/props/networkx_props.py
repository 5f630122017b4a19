#!/usr/bin/env python3
"""The property benchmark on networkx: a MultiDiGraph whose node and edge
attribute dicts hold the label and the properties, built from the CSV
files with the csv module (typed as the headers say; an empty field sets
nothing, as in the other systems).

networkx has no index: find_scan and find_indexed are both a scan of every
node's attribute dict. The load stops (and every row says so) once it has
taken --budget seconds or the process holds more than
$PROPS_NX_MAX_RSS_GB GiB (default 8), so that k20p's 16 M edges cannot
take the machine's memory from others.
"""
import csv
import importlib.metadata
import os
import sys
import time

import networkx as nx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import propscommon as c  # noqa: E402

MAX_RSS = float(os.environ.get("PROPS_NX_MAX_RSS_GB", "8")) * 2**30
CONVERT = {"string": str, "int": int, "long": int, "short": int, "byte": int,
           "double": float, "float": float, "boolean": lambda s: s.lower() == "true"}


def rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def columns(header):
    """(name, converter) of each property column (`name:type`)."""
    out = []
    for h in header:
        name, _, ty = h.rpartition(":") if ":" in h else (h, "", "string")
        out.append((name, CONVERT[ty or "string"]))
    return out


class NetworkX(c.Driver):
    name = "networkx"
    version = importlib.metadata.version("networkx")
    notes = [
        "store: nx.MultiDiGraph; node attrs {label, properties}, edge attrs {label, properties}; "
        "load: csv.reader over every file, add_nodes_from / add_edges_from in chunks of 100,000",
        "reads: G.nodes[v] (the attribute dict itself, not a copy); find_scan and find_indexed: "
        "a scan of G.nodes(data=True) (networkx has no index)",
        "hop1/hop2: G.succ[v] filtered by the edge attribute label; hop2 a Python set",
        "writes: G.add_node(v, label=..., **props); G.nodes[v][key] = x; del G.nodes[v][key]",
        f"load stopped past --budget seconds or {MAX_RSS / 2**30:.0f} GiB RSS",
    ]

    def load(self, meta, folder, budget):
        G = nx.MultiDiGraph()
        t = time.perf_counter()
        done = 0
        total = meta["vertices"] + meta["edges"]

        def guard():
            secs = time.perf_counter() - t
            if secs > budget:
                raise c.OverBudget(done, total, secs, "vertices and edges loaded")
            if rss() > MAX_RSS:
                raise c.Skip(f"n/a: load stopped at {MAX_RSS / 2**30:.0f} GiB RSS after {done} of "
                             f"{total} vertices and edges in {secs:.0f}s")
        for lab, path, _ in meta["vertex_files"]:
            with open(os.path.join(folder, path), newline="") as f:
                r = csv.reader(f)
                cols = columns(next(r)[1:])
                chunk = []
                for row in r:
                    d = {"label": lab}
                    for (k, conv), x in zip(cols, row[1:]):
                        if x:
                            d[k] = conv(x)
                    chunk.append((int(row[0]), d))
                    if len(chunk) == 100_000:
                        G.add_nodes_from(chunk)
                        done += len(chunk)
                        chunk = []
                        guard()
                G.add_nodes_from(chunk)
                done += len(chunk)
        for lab, _, _, path, _ in meta["edge_files"]:
            with open(os.path.join(folder, path), newline="") as f:
                r = csv.reader(f)
                cols = columns(next(r)[2:])
                chunk = []
                for row in r:
                    d = {"label": lab}
                    for (k, conv), x in zip(cols, row[2:]):
                        if x:
                            d[k] = conv(x)
                    chunk.append((int(row[0]), int(row[1]), d))
                    if len(chunk) == 100_000:
                        G.add_edges_from(chunk)
                        done += len(chunk)
                        chunk = []
                        guard()
                G.add_edges_from(chunk)
                done += len(chunk)
        return G

    def counts(self, G, meta):
        return G.number_of_nodes(), G.number_of_edges()

    def read_properties(self, G, v, label):
        return G.nodes[v]

    def find(self, G, label, key, value, vid):
        return [n for n, d in G.nodes(data=True) if d.get(key) == value and d["label"] == label]

    def create_index(self, G, labels, key):
        raise c.Skip("n/a: networkx has no index; find_indexed is the same scan")

    find_indexed = find

    def hop1(self, G, v, label, elabel):
        return [n for n, kd in G.succ[v].items() for d in kd.values() if d["label"] == elabel]

    def hop2(self, G, v, label, elabel):
        succ = G.succ
        out = set()
        for n, kd in succ[v].items():
            for d in kd.values():
                if d["label"] == elabel:
                    out.update(m for m, kd2 in succ[n].items() for d2 in kd2.values()
                               if d2["label"] == elabel)
        return out

    def add_vertex(self, G, v, label, props):
        G.add_node(v, label=label, **props)

    def set_property(self, G, v, label, key, value):
        G.nodes[v][key] = value

    def remove_property(self, G, v, label, key):
        del G.nodes[v][key]


if __name__ == "__main__":
    c.run(NetworkX(), c.parse_args("networkx"))
