#!/usr/bin/env python3
"""Writes the Gremlin benchmark's query files: the same gremlin-lang text
for stratagraph and TinkerGraph, with start vertices picked from the data
by a seeded draw.

    pick_queries.py [--seed 30] [--out bench/gremlin] grateful k20p

Pure Python (no packages). grateful reads
`shared/tinkerpop/data/grateful-dead.json` (seconds); k20p reads the CSV
files of `/work/data/props/k20p` (written by `bench/props/gen_props.py`;
about two minutes and 3 GB here).

What is picked, and why:

- the start vertex `a`: drawn among vertices of one label (grateful:
  songs; k20p: persons) whose out-degree is modest (grateful 10..30 with
  at least 5 followedBy edges; k20p 8..24) and whose in-degree is at most
  4x that, with every 3-hop path count (all labels, and the one-label
  chains) under a bound (grateful 2 M, k20p 2 M), so the 3-hop
  queries take seconds at most on TinkerGraph;
- the shortest-path target `b`: drawn among the vertices at distance 3
  from `a` over out-edges (distance 4 on grateful would be too many
  paths for simplePath; 3 is the first with real search work) that have
  exactly one shortest path (as a sequence of vertices), so
  `limit(1).path()` has one right answer whatever order an engine expands
  edges in. The search is bounded at that distance
  (`until(hasId(b).or().loops().is(3)).hasId(b)`): stratagraph's repeat()
  finishes every traverser before limit() sees one, and the unbounded
  `until(hasId(b))` enumerates every simple path (it ran out of 24 GB on
  grateful-dead);
- the look-up names: drawn names of vertices of the looked-up label
  (unique in the data; the one followed by a hop has an edge to follow);
- the unindexed values (`score` on k20p, `performances` on grateful):
  drawn values of that property.

Query files: one query per line, `name<TAB>gremlin-lang text`; `#` lines
are comments. Names say what is measured; `_l` means with a label filter.
"""
import argparse
import json
import os
import random
import sys
import time
from array import array
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared"))
GD_JSON = os.path.join(SHARED, "tinkerpop", "data", "grateful-dead.json")
K20P = "/work/data/props/k20p"
PATH_BOUND = 2_000_000


def unwrap(x):
    return x["@value"] if isinstance(x, dict) and "@value" in x else x


class Graph:
    """Out-adjacency (CSR) with an edge label per entry, in-degrees,
    vertex labels and the properties the queries name."""

    def __init__(self, n_ids):
        self.n = n_ids
        self.labels_v = {}
        self.props = defaultdict(dict)  # vertex -> {key: value}
        self.edge_labels = []

    def build(self, src, dst, lab):
        n = self.n
        off = array("q", [0]) * (n + 1)
        indeg = array("l", [0]) * n
        for s in src:
            off[s + 1] += 1
        for d in dst:
            indeg[d] += 1
        for i in range(n):
            off[i + 1] += off[i]
        pos = array("q", off[:n])
        adj = array("l", [0]) * len(src)
        alab = array("b", [0]) * len(src)
        for s, d, l in zip(src, dst, lab):
            p = pos[s]
            adj[p] = d
            alab[p] = l
            pos[s] = p + 1
        self.off, self.adj, self.alab, self.indeg = off, adj, alab, indeg

    def out(self, v, label=None):
        lo, hi = self.off[v], self.off[v + 1]
        if label is None:
            return self.adj[lo:hi]
        li = self.edge_labels.index(label)
        return [self.adj[p] for p in range(lo, hi) if self.alab[p] == li]

    def outdeg(self, v, label=None):
        return len(self.out(v, label))

    def paths(self, v, hops, label=None):
        """Number of walks of `hops` out-edges from v (bulked)."""
        front = {v: 1}
        for _ in range(hops):
            nxt = defaultdict(int)
            for u, c in front.items():
                for w in self.out(u, label):
                    nxt[w] += c
            front = nxt
            if sum(front.values()) > 50 * PATH_BOUND:
                break
        return sum(front.values())

    def unique_targets(self, a, dist):
        """Vertices at BFS distance `dist` from a over out-edges with one
        shortest vertex sequence."""
        depth = {a: 0}
        sigma = {a: 1}
        front = [a]
        for d in range(1, dist + 1):
            nxt = []
            for u in front:
                for w in set(self.out(u)):  # parallel edges: one vertex path
                    if w not in depth:
                        depth[w] = d
                        sigma[w] = 0
                        nxt.append(w)
                    if depth[w] == d:
                        sigma[w] += sigma[u]
            front = nxt
        return sorted(w for w in front if sigma[w] == 1)


def load_grateful():
    vs, es = [], []
    with open(GD_JSON) as f:
        for line in f:
            v = json.loads(line)
            vid = unwrap(v["id"])
            props = {k: unwrap(vals[0]["value"]) for k, vals in v.get("properties", {}).items()}
            vs.append((vid, v["label"], props))
            for lab, edges in v.get("outE", {}).items():
                for e in edges:
                    es.append((vid, unwrap(e["inV"]), lab))
    g = Graph(max(v for v, _, _ in vs) + 1)
    for vid, lab, props in vs:
        g.labels_v[vid] = lab
        g.props[vid] = props
    g.edge_labels = sorted({lab for _, _, lab in es})
    li = {l: i for i, l in enumerate(g.edge_labels)}
    g.build(array("l", (s for s, _, _ in es)), array("l", (d for _, d, _ in es)),
            array("b", (li[l] for _, _, l in es)))
    return g


def load_k20p(folder):
    meta = json.load(open(os.path.join(folder, "meta.json")))
    g = Graph(meta["vertices"])
    t = time.time()
    for lab, path, _ in meta["vertex_files"]:
        with open(os.path.join(folder, path)) as f:
            next(f)
            for line in f:
                vid, name, score = line.rstrip("\n").split(",")
                vid = int(vid)
                g.labels_v[vid] = lab
                g.props[vid] = {"name": name, "score": int(score)}
    g.edge_labels = sorted(meta["edge_schema"])
    src, dst, lab = array("l"), array("l"), array("b")
    for elab, _, _, path, _ in meta["edge_files"]:
        li = g.edge_labels.index(elab)
        with open(os.path.join(folder, path)) as f:
            next(f)
            for line in f:
                s, d, _ = line.split(",", 2)
                src.append(int(s))
                dst.append(int(d))
                lab.append(li)
    print(f"k20p: read {len(src)} edges in {time.time() - t:.0f} s", file=sys.stderr)
    g.build(src, dst, lab)
    print(f"k20p: adjacency in {time.time() - t:.0f} s", file=sys.stderr)
    return g


def pick_start(g, rng, vlabel, deg_range, chain_label, min_chain):
    cands = sorted(v for v, l in g.labels_v.items() if l == vlabel
                   and deg_range[0] <= g.outdeg(v) <= deg_range[1]
                   and g.indeg[v] <= 4 * g.outdeg(v)
                   and g.outdeg(v, chain_label) >= min_chain)
    rng.shuffle(cands)
    for a in cands:
        if g.paths(a, 3) > PATH_BOUND or g.paths(a, 3, chain_label) > PATH_BOUND:
            continue
        if g.paths(a, 2) < 50:
            continue
        targets = g.unique_targets(a, 3)
        if targets:
            return a, rng.choice(targets)
    raise SystemExit(f"no start vertex for {vlabel}")


def grateful(rng):
    g = load_grateful()
    a, b = pick_start(g, rng, "song", (10, 30), "followedBy", 5)
    songs = sorted(v for v, l in g.labels_v.items() if l == "song")
    names = defaultdict(int)
    for v in g.props.values():
        names[v["name"]] += 1
    song = rng.choice([v for v in songs if names[g.props[v]["name"]] == 1])
    artists = sorted(v for v, l in g.labels_v.items() if l == "artist")
    artist = rng.choice([v for v in artists if names[g.props[v]["name"]] == 1])
    perf = rng.choice([g.props[v]["performances"] for v in songs if g.props[v].get("performances")])
    info = (f"a={a} ({g.props[a]['name']}, out {g.outdeg(a)}, followedBy {g.outdeg(a, 'followedBy')}, "
            f"in {g.indeg[a]}; 3-hop paths {g.paths(a, 3)}), b={b} ({g.props[b]['name']}, distance 3, "
            f"one shortest path)")
    q = lambda s: s.replace("'", "\\'")
    return info, [
        ("lookup_name", f"g.V().has('song','name','{q(g.props[song]['name'])}')"),
        ("lookup_name_values", f"g.V().has('artist','name','{q(g.props[artist]['name'])}').in('sungBy','writtenBy').values('name')"),
        ("scan_int", f"g.V().has('song','performances',{perf}).count()"),
        ("scan_label", "g.V().hasLabel('artist').count()"),
        ("hop1", f"g.V({a}).out().count()"),
        ("hop1_l", f"g.V({a}).out('followedBy').count()"),
        ("hop2", f"g.V({a}).out().out().count()"),
        ("hop2_l", f"g.V({a}).out('followedBy').out('followedBy').count()"),
        ("hop3", f"g.V({a}).out().out().out().count()"),
        ("hop3_l", f"g.V({a}).out('followedBy').out('followedBy').out('followedBy').count()"),
        ("hop2_dedup", f"g.V({a}).out().out().dedup().count()"),
        ("hop3_dedup", f"g.V({a}).out().out().out().dedup().count()"),
        ("both2", f"g.V({a}).both().both().count()"),
        ("repeat3", f"g.V({a}).repeat(out()).times(3).count()"),
        ("repeat4_l", f"g.V({a}).repeat(out('followedBy')).times(4).count()"),
        ("groupcount_label", f"g.V({a}).out().out().groupCount().by(label)"),
        ("groupcount_prop", f"g.V({a}).out('followedBy').out('followedBy').groupCount().by('songType')"),
        ("has_values", f"g.V({a}).out('followedBy').has('performances',gt(100)).values('name')"),
        ("edge_prop", f"g.V({a}).outE('followedBy').has('weight',gt(1)).inV().dedup().count()"),
        ("shortest_path", f"g.V({a}).repeat(out().simplePath()).until(hasId({b}).or().loops().is(3)).hasId({b}).limit(1).path()"),
    ]


def k20p(rng, folder):
    g = load_k20p(folder)
    a, b = pick_start(g, rng, "person", (8, 24), "knows", 3)
    persons = sorted(v for v, l in g.labels_v.items() if l == "person")
    p1 = rng.choice(persons)
    p2 = rng.choice([v for v in persons if g.outdeg(v, "knows") >= 1])
    score = g.props[rng.choice(persons)]["score"]
    info = (f"a={a} ({g.props[a]['name']}, out {g.outdeg(a)}, knows {g.outdeg(a, 'knows')}, in {g.indeg[a]}; "
            f"3-hop paths {g.paths(a, 3)}), b={b} (distance 3, one shortest path)")
    return info, [
        ("lookup_name", f"g.V().has('person','name','{g.props[p1]['name']}')"),
        ("lookup_name_hop1", f"g.V().has('person','name','{g.props[p2]['name']}').out('knows').values('name')"),
        ("scan_int", f"g.V().has('person','score',{score}).count()"),
        ("hop1", f"g.V({a}).out().count()"),
        ("hop1_l", f"g.V({a}).out('knows').count()"),
        ("hop2", f"g.V({a}).out().out().count()"),
        ("hop2_l", f"g.V({a}).out('knows').out('knows').count()"),
        ("hop3", f"g.V({a}).out().out().out().count()"),
        ("hop3_l", f"g.V({a}).out('knows').out('knows').out('knows').count()"),
        ("hop2_vl", f"g.V({a}).out().out().hasLabel('person').count()"),
        ("hop2_dedup", f"g.V({a}).out().out().dedup().count()"),
        ("hop3_dedup", f"g.V({a}).out().out().out().dedup().count()"),
        ("both2", f"g.V({a}).both().both().count()"),
        ("repeat3", f"g.V({a}).repeat(out()).times(3).count()"),
        ("repeat4_l", f"g.V({a}).repeat(out('knows')).times(4).count()"),
        ("groupcount_label", f"g.V({a}).out().out().groupCount().by(label)"),
        ("groupcount_prop", f"g.V({a}).out('likes').groupCount().by('score')"),
        ("sum_scores", f"g.V({a}).out('knows').out('knows').values('score').sum()"),
        ("edge_prop", f"g.V({a}).outE('likes').has('since',gt(5000)).inV().dedup().count()"),
        ("shortest_path", f"g.V({a}).repeat(out().simplePath()).until(hasId({b}).or().loops().is(3)).hasId({b}).limit(1).path()"),
    ]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=30)
    ap.add_argument("--out", default=HERE)
    ap.add_argument("--k20p", default=K20P)
    ap.add_argument("datasets", nargs="+", choices=["grateful", "k20p"])
    a = ap.parse_args()
    for ds in a.datasets:
        rng = random.Random(f"{a.seed}-{ds}")
        info, queries = grateful(rng) if ds == "grateful" else k20p(rng, a.k20p)
        path = os.path.join(a.out, f"queries-{ds}.txt")
        with open(path, "w") as f:
            f.write(f"# {ds}: written by pick_queries.py --seed {a.seed}\n# {info}\n")
            for name, text in queries:
                f.write(f"{name}\t{text}\n")
        print(f"{path}: {len(queries)} queries; {info}")


if __name__ == "__main__":
    main()
