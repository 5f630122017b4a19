#!/usr/bin/env python3
"""Writes the property-graph benchmark's data sets as CSV files with typed
headers, plus the queries every driver runs and their reference results.

    gen_props.py [--out /work/data/props] [--seed 29] DATASET ...

DATASET is `gd-xN` (TinkerPop's grateful-dead graph copied N times) or
`k20p` (the W1 k20 graph with labels and properties). Each lands in
OUT/DATASET/:

- `v-LABEL.csv`: the vertices of one label, header `:ID,name:string,...`
  (the format `stratagraph load --vertices` and `Graph.load_csv` read, and
  kuzu's `COPY FROM` reads by position with `header=true`);
- `e-LABEL-SRCLABEL-DSTLABEL.csv`: the edges of one label between two
  vertex labels, header `:START_ID,:END_ID,...` (split by endpoint labels
  because kuzu keeps one node table per label and copies a relationship
  file into one FROM/TO pair);
- `meta.json`: the schema (labels, property names and CSV types, files),
  the counts, the seeded queries (the same for every system) and the
  reference results the drivers check theirs against.

gd-xN: copy c of grateful-dead.json (808 vertices song/artist, 8049 edges
followedBy/sungBy/writtenBy) has vertex ids c*808 + id - 1 and names
suffixed " #c"; its edges stay within the copy except a seeded 5% whose
destination moves to the same vertex of another copy, so the copies are
connected. Property types are the original ones: name and songType
string, performances int (32 bits), followedBy's weight int. GraphSON
has an empty songType on 87 songs; an empty CSV field sets no property,
so those songs have none here, in every system.

k20p: the vertices 0 .. 2^20-1 of /work/data/k20.bin (isolated ones
included) and its 16,087,013 edges, each vertex given one of four labels
(person, company, city, product) and `name:string` (unique) and
`score:int`; each edge one of three labels (knows, likes, follows),
`weight:double` (W1's weight of the pair) and `since:int`. Seeded.

Needs numpy (the driver venvs have it). Deterministic: the same seed and
input give byte-identical files.
"""
import argparse
import csv
import json
import os
import random
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.normpath(os.path.join(HERE, "..", "..", "..", "shared"))
GD_JSON = os.path.join(SHARED, "tinkerpop", "data", "grateful-dead.json")
REWIRE = 0.05

# How many of each query; the drivers may run fewer (--scale-queries).
QUERIES = {
    "add_vertex": 2000,
    "add_property": 2000,
    "update_property": 2000,
    "remove_property": 2000,
    "read_properties": 2000,
    "find_scan": 50,
    "find_indexed": 2000,
    "hop1": 2000,
    "hop2": 200,
}


def write_csv(path, header, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)


def write_lines(path, header, lines):
    """Rows already formatted (no field needs quoting)."""
    with open(path, "w") as f:
        f.write(header + "\n")
        f.write("\n".join(lines))
        if lines:
            f.write("\n")


class Csr:
    """Out-edges of one edge label, for the reference hop results."""

    def __init__(self, n, src, dst):
        order = np.argsort(src, kind="stable")
        self.dst = dst[order]
        self.off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=n), out=self.off[1:])

    def out(self, v):
        return self.dst[self.off[v]:self.off[v + 1]]

    def degree(self):
        return np.diff(self.off)


def hop_reference(csr, sources):
    """Per query: hop1 = out-neighbours once per edge (count, id sum);
    hop2 = the distinct ends of two-edge paths (count, id sum)."""
    h1c = h1s = h2c = h2s = 0
    for s in sources:
        n1 = csr.out(s)
        h1c += len(n1)
        h1s += int(n1.sum())
    for s in sources[:QUERIES["hop2"]]:
        n1 = csr.out(s)
        parts = [csr.out(u) for u in n1.tolist()]
        n2 = np.unique(np.concatenate(parts)) if parts else np.zeros(0, np.int64)
        h2c += len(n2)
        h2s += int(n2.sum())
    return {"hop1": f"count={h1c};sum={h1s}", "hop2": f"count={h2c};sum={h2s}"}


def sample(rng, items, k):
    """k items drawn with replacement (seeded), as a list."""
    return [items[i] for i in rng.integers(0, len(items), size=k).tolist()]


def queries(rng, ids, labels, names, hop_label, hop_csr, hop_pool, add_label_cycle,
            next_id, update_pool, update_key, update_type):
    """The seeded queries. `ids` are every vertex id, `labels[id]` and
    `names[id]` their label and name; hop sources are drawn from
    `hop_pool` (vertices with at least one out-edge of `hop_label`)."""
    q = {}
    pick = rng.integers(0, len(ids), size=QUERIES["read_properties"]).tolist()
    q["read_properties"] = [[ids[i], labels[ids[i]]] for i in pick]
    pick = rng.integers(0, len(ids), size=QUERIES["find_indexed"]).tolist()
    q["find"] = [[ids[i], labels[ids[i]], names[ids[i]]] for i in pick]
    q["hop_label"] = hop_label
    src = sample(rng, hop_pool, QUERIES["hop1"])
    q["hop"] = [[v, labels[v]] for v in src]
    q["add_vertex"] = {"first_id": next_id, "labels": add_label_cycle}
    pick = rng.integers(0, len(ids), size=QUERIES["add_property"]).tolist()
    # Distinct vertices: adding the same new key twice would be an update.
    seen, props = set(), []
    for i in pick:
        if ids[i] not in seen:
            seen.add(ids[i])
            props.append([ids[i], labels[ids[i]]])
    q["property"] = props
    pick = rng.integers(0, len(update_pool), size=QUERIES["update_property"]).tolist()
    q["update"] = {"key": update_key, "type": update_type,
                   "vertices": [[update_pool[i], labels[update_pool[i]]] for i in pick]}
    q["counts"] = dict(QUERIES)
    ref = {}
    ref["read_properties"] = None  # depends on the properties: filled by the caller
    fsum = sum(v for v, _, _ in q["find"])
    ref["find_indexed"] = f"found={len(q['find'])};sum={fsum}"
    head = q["find"][:QUERIES["find_scan"]]
    ref["find_scan"] = f"found={len(head)};sum={sum(v for v, _, _ in head)}"
    ref.update(hop_reference(hop_csr, src))
    return q, ref


def gen_gd(copies, out, seed):
    rng_py = random.Random(seed)
    recs = [json.loads(line) for line in open(GD_JSON)]
    stride = max(r["id"]["@value"] for r in recs)
    labels0, props0, edges0 = {}, {}, []
    for r in recs:
        vid = r["id"]["@value"]
        labels0[vid] = r["label"]
        p = {}
        for key, vals in r.get("properties", {}).items():
            val = vals[0]["value"]
            p[key] = val["@value"] if isinstance(val, dict) else val
        props0[vid] = p
        for elabel, es in r.get("outE", {}).items():
            for e in es:
                w = e.get("properties", {}).get("weight")
                edges0.append((vid, e["inV"]["@value"], elabel,
                               None if w is None else w["@value"]))
    schema_v = {
        "song": [["name", "string"], ["songType", "string"], ["performances", "int"]],
        "artist": [["name", "string"]],
    }
    schema_e = {"followedBy": [["weight", "int"]], "sungBy": [], "writtenBy": []}
    vid = lambda c, v: c * stride + v - 1  # noqa: E731
    labels, names = {}, {}
    rows = {lab: [] for lab in schema_v}
    for c in range(copies):
        for v in sorted(labels0):
            lab = labels0[v]
            i = vid(c, v)
            p = props0[v]
            name = f"{p['name']} #{c}"
            labels[i], names[i] = lab, name
            row = [i] + [name if k == "name" else p.get(k, "") for k, _ in schema_v[lab]]
            rows[lab].append(row)
    erows = {}
    rewired = 0
    for c in range(copies):
        for s, d, elabel, w in edges0:
            dc = c
            if copies > 1 and rng_py.random() < REWIRE:
                dc = rng_py.randrange(copies - 1)
                dc += dc >= c
                rewired += 1
            key = (elabel, labels0[s], labels0[d])
            erows.setdefault(key, []).append([vid(c, s), vid(dc, d)] + ([] if w is None else [w]))
    os.makedirs(out, exist_ok=True)
    files_v, files_e = [], []
    for lab, rs in rows.items():
        path = f"v-{lab}.csv"
        write_csv(os.path.join(out, path), [":ID"] + [f"{k}:{t}" for k, t in schema_v[lab]], rs)
        files_v.append([lab, path, len(rs)])
    for (elabel, sl, dl), rs in sorted(erows.items()):
        path = f"e-{elabel}-{sl}-{dl}.csv"
        write_csv(os.path.join(out, path),
                  [":START_ID", ":END_ID"] + [f"{k}:{t}" for k, t in schema_e[elabel]], rs)
        files_e.append([elabel, sl, dl, path, len(rs)])
    n = copies * len(labels0)
    ids = sorted(labels)
    hop_label = "followedBy"
    hs = np.array([r[0] for r in erows.get((hop_label, "song", "song"), [])], dtype=np.int64)
    hd = np.array([r[1] for r in erows.get((hop_label, "song", "song"), [])], dtype=np.int64)
    csr = Csr(copies * stride, hs, hd)
    pool = np.flatnonzero(csr.degree() > 0).tolist()
    rng = np.random.default_rng(seed)
    songs = [i for i in ids if labels[i] == "song"]
    q, ref = queries(rng, ids, labels, names, hop_label, csr, pool, ["song", "artist"],
                     copies * stride, songs, "performances", "int")
    perf = {r[0]: r[3] for r in rows["song"]}
    stype = {r[0]: r[2] for r in rows["song"]}
    cnt = isum = 0
    for v, lab in q["read_properties"]:
        cnt += 1 if lab == "artist" else 2 + (stype[v] != "")
        isum += perf.get(v, 0)
    ref["read_properties"] = f"props={cnt};int_sum={isum}"
    return {
        "dataset": f"gd-x{copies}", "seed": seed, "vertices": n,
        "edges": sum(len(r) for r in erows.values()), "rewired": rewired,
        "vertex_schema": schema_v, "edge_schema": schema_e,
        "vertex_files": files_v, "edge_files": files_e,
        "find_key": "name", "new_vertex": {
            "song": {"name": "new song {i}", "songType": "original", "performances": ["int", 7]},
            "artist": {"name": "new artist {i}"}},
        "queries": q, "reference": ref,
    }


def gen_k20p(data, out, seed):
    sys.path.insert(0, os.path.join(HERE, "..", "peers"))
    import w1common  # the W1 reader and weights the peer drivers use

    src, dst = w1common._pairs(os.path.join(data, "k20.bin"))
    with open(os.path.join(data, "k20.ref.json")) as f:
        nref = json.load(f)
    n, m = nref["vertices"], len(src)
    if m != nref["edges"]:
        sys.exit(f"k20.bin holds {m} edges, reference {nref['edges']}")
    vlabels = ["person", "company", "city", "product"]
    elabels = ["knows", "likes", "follows"]
    rng = np.random.default_rng(seed)
    vl = rng.integers(0, len(vlabels), size=n)
    score = rng.integers(0, 1000, size=n)
    el = rng.integers(0, len(elabels), size=m)
    since = rng.integers(0, 10000, size=m)
    weight = w1common.w1_weights(src, dst)
    schema_v = {lab: [["name", "string"], ["score", "int"]] for lab in vlabels}
    schema_e = {lab: [["weight", "double"], ["since", "int"]] for lab in elabels}
    os.makedirs(out, exist_ok=True)
    files_v, files_e = [], []
    for li, lab in enumerate(vlabels):
        ids = np.flatnonzero(vl == li)
        lines = [f"{i},{lab}_{i},{s}" for i, s in zip(ids.tolist(), score[ids].tolist())]
        path = f"v-{lab}.csv"
        write_lines(os.path.join(out, path), ":ID,name:string,score:int", lines)
        files_v.append([lab, path, len(lines)])
    group = (el * len(vlabels) + vl[src]) * len(vlabels) + vl[dst]
    order = np.argsort(group, kind="stable")
    bounds = np.searchsorted(group[order], np.arange(len(elabels) * len(vlabels) ** 2 + 1))
    for g in range(len(elabels) * len(vlabels) ** 2):
        sel = order[bounds[g]:bounds[g + 1]]
        e, rest = divmod(g, len(vlabels) ** 2)
        sl, dl = divmod(rest, len(vlabels))
        lines = [f"{a},{b},{w!r},{t}" for a, b, w, t in
                 zip(src[sel].tolist(), dst[sel].tolist(), weight[sel].tolist(), since[sel].tolist())]
        path = f"e-{elabels[e]}-{vlabels[sl]}-{vlabels[dl]}.csv"
        write_lines(os.path.join(out, path), ":START_ID,:END_ID,weight:double,since:int", lines)
        files_e.append([elabels[e], vlabels[sl], vlabels[dl], path, len(lines)])
    labels = {i: vlabels[x] for i, x in enumerate(vl.tolist())}
    names = {i: f"{labels[i]}_{i}" for i in range(n)}
    ids = list(range(n))
    hop_label = "knows"
    keep = el == elabels.index(hop_label)
    csr = Csr(n, src[keep], dst[keep])
    pool = np.flatnonzero(csr.degree() > 0).tolist()
    q, ref = queries(rng, ids, labels, names, hop_label, csr, pool, vlabels, n, ids, "score", "int")
    isum = sum(int(score[v]) for v, _ in q["read_properties"])
    ref["read_properties"] = f"props={2 * len(q['read_properties'])};int_sum={isum}"
    return {
        "dataset": "k20p", "seed": seed, "vertices": n, "edges": m,
        "vertex_schema": schema_v, "edge_schema": schema_e,
        "vertex_files": files_v, "edge_files": files_e,
        "find_key": "name", "new_vertex": {
            lab: {"name": "new " + lab + " {i}", "score": ["int", 7]} for lab in vlabels},
        "queries": q, "reference": ref,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("datasets", nargs="+")
    ap.add_argument("--out", default="/work/data/props")
    ap.add_argument("--data", default=os.environ.get("STRATAGRAPH_W1_DATA", "/work/data"),
                    help="folder of the W1 files (k20.bin)")
    ap.add_argument("--seed", type=int, default=29)
    a = ap.parse_args()
    for ds in a.datasets:
        t = time.perf_counter()
        out = os.path.join(a.out, ds)
        if ds.startswith("gd-x"):
            meta = gen_gd(int(ds[4:]), out, a.seed)
        elif ds == "k20p":
            meta = gen_k20p(a.data, out, a.seed)
        else:
            sys.exit(f"gen_props.py: unknown dataset {ds} (gd-xN or k20p)")
        with open(os.path.join(out, "meta.json"), "w") as f:
            json.dump(meta, f, indent=1)
        print(f"{ds}: {meta['vertices']} vertices, {meta['edges']} edges in {out} "
              f"({time.perf_counter() - t:.1f}s)", flush=True)


if __name__ == "__main__":
    main()
