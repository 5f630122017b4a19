"""stratagraph's half of the Spark hand-off check (bench/spark/run.sh).

Loads one graph into an on-disk stratagraph store (OUT/store), takes one
snapshot (timestamp ts0), exports it with ``Snapshot.export_parquet``
(docs/FORMAT.md section 7) and writes stratagraph's own answers on that
same snapshot beside the export. Then it writes a seeded pseudo-random batch
of changes to the store (``--seed``; see ``weighted_changes`` and
``property_changes``), writes ``Graph.changes(since=ts0)`` (the change feed)
and stratagraph's answers on the state after them:

    OUT/export/                      the Parquet export at ts0 (GraphAr layout)
    OUT/answers/vertices.parquet     id, label, out_degree, in_degree, degree, pagerank, wcc
    OUT/answers/edges.parquet        src, dst and weight (weighted structure)
                                     or edge_id and label (property edges)
    OUT/answers/meta.json            graph, settings, counts, wall times
    OUT/changes.parquet              g.changes(since=ts0), as pyarrow.parquet writes it
    OUT/answers_after/               vertices.parquet, edges.parquet, meta.json as above,
                                     on the newest state (after every change)
    OUT/store/                       the on-disk store

The changes are also applied to a plain Python model of the graph as they
are made; the store's state after them must equal the model's (else exit 1),
so the answers after the changes are not taken on trust either.

Run with the project's venv (``/work/main/.venv/bin/python``). Graphs:

    wiki-Vote, email-Eu-core, p2p-Gnutella04   SNAP edge lists, directed
    facebook_combined                          SNAP edge list, undirected
    grateful-dead                              TinkerPop GraphSON property graph;
                                               kernels on the followedBy projection

The export is written with small chunks (``--vertex-chunk``, ``--edge-chunk``)
so that the reader sees several parts and chunks, as a large graph would.
"""

import argparse
import collections
import json
import os
import sys
import time

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

SHARED = os.environ.get("STRATAGRAPH_SHARED", "/work/shared")

GRAPHS = {
    "wiki-Vote": {"kind": "edgelist", "file": "datasets/real/wiki-Vote.txt.gz", "directed": True},
    "email-Eu-core": {"kind": "edgelist", "file": "datasets/real/email-Eu-core.txt.gz", "directed": True},
    "p2p-Gnutella04": {"kind": "edgelist", "file": "datasets/real/p2p-Gnutella04.txt.gz", "directed": True},
    "facebook_combined": {"kind": "edgelist", "file": "datasets/real/facebook_combined.txt.gz", "directed": False},
    "grateful-dead": {
        "kind": "graphson",
        "file": "tinkerpop/data/grateful-dead.json",
        "directed": True,
        "labels": ["followedBy"],
    },
}


def import_stratagraph():
    # The extension may be mid-rebuild by someone else (an editable install):
    # an ImportError then is transient.
    for attempt in range(4):
        try:
            import stratagraph

            return stratagraph
        except ImportError:
            if attempt == 3:
                raise
            print("export_side: import stratagraph failed; retrying in 30 s", file=sys.stderr)
            time.sleep(30)


def answers(s, labels, directed):
    """stratagraph's answers on snapshot `s`: (vertex table, edge table,
    counts, times). Vertex table: id, label, out/in/total degree, pagerank,
    wcc; edge table: (src, dst, weight) of the weighted structure, or
    (edge_id, src, dst, label) of the property edges of `labels`."""
    times = {}
    t = time.perf_counter()
    ids = s.vertices()
    n = len(ids)
    if n and int(ids.max()) > np.iinfo(np.int64).max:
        sys.exit("export_side: a vertex id exceeds 2^63-1; this check handles Int64 ids only")
    if labels is None:
        # The weighted structure, which the kernels use without `labels`.
        out_deg = s.out_degree()
        in_deg = s.in_degree()
        deg = s.degree()
        src, dst, w = s.edges(weights=True)
        edges = pa.table({
            "src": pa.array(src.astype(np.int64)),
            "dst": pa.array(dst.astype(np.int64)),
            "weight": pa.array(w),
        })
        edge_count = len(src)
    else:
        # Property edges of `labels`: degree = edges of those labels at v,
        # once per edge, as neighbors()/in_neighbors() list them.
        wanted = set(labels)
        out_deg = np.array([sum(len(s.neighbors(v, l)) for l in labels) for v in ids.tolist()], dtype=np.int64)
        in_deg = np.array([sum(len(s.in_neighbors(v, l)) for l in labels) for v in ids.tolist()], dtype=np.int64)
        deg = out_deg + in_deg
        pe = [e for e in s.property_edges() if e["label"] in wanted]
        edges = pa.table({
            "edge_id": pa.array([e["id"] for e in pe], pa.int64()),
            "src": pa.array([e["src"] for e in pe], pa.int64()),
            "dst": pa.array([e["dst"] for e in pe], pa.int64()),
            "label": pa.array([e["label"] for e in pe], pa.string()),
        })
        edge_count = len(pe)
    vlabels = [s.label(v) for v in ids.tolist()]
    times["degrees_and_edges"] = time.perf_counter() - t

    t = time.perf_counter()
    pr = s.pagerank(iterations=ARGS.iterations, damping=ARGS.damping, labels=labels)
    times["pagerank"] = time.perf_counter() - t
    t = time.perf_counter()
    wcc = s.wcc(labels=labels)
    times["wcc"] = time.perf_counter() - t

    vertices = pa.table({
        "id": pa.array(ids.astype(np.int64)),
        "label": pa.array(vlabels, pa.string()),
        "out_degree": pa.array(np.asarray(out_deg, dtype=np.int64)),
        "in_degree": pa.array(np.asarray(in_deg, dtype=np.int64)),
        "degree": pa.array(np.asarray(deg, dtype=np.int64)),
        "pagerank": pa.array(np.asarray(pr, dtype=np.float64)),
        "wcc": pa.array(np.asarray(wcc).astype(np.int64)),
    })
    counts = {
        "timestamp": int(s.timestamp),
        "vertex_count": int(n),
        "vertex_count_by_label": dict(sorted(collections.Counter(vlabels).items())),
        "edge_count": int(edge_count),
        "components": int(len(np.unique(wcc))),
    }
    return vertices, edges, counts, times


def write_answers(answers_dir, vertices, edges, meta):
    os.makedirs(answers_dir, exist_ok=True)
    pq.write_table(vertices, os.path.join(answers_dir, "vertices.parquet"))
    pq.write_table(edges, os.path.join(answers_dir, "edges.parquet"))
    with open(os.path.join(answers_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)


# -- the changes ----------------------------------------------------------------
#
# Each write goes to the store and to a Python model of the graph (the same
# engine semantics, written out plainly); afterwards the store must equal the
# model. The writes are chosen so that commit order matters: edges deleted
# and re-inserted later, vertices deleted and brought back by a later edge
# (their old edges staying gone), an edge re-weighted twice, an edge put and
# its vertex deleted in one transaction.


class WeightedModel:
    """Vertices and the weighted structure: {(src, dst): weight}, the pair
    unordered (min, max) in an undirected store."""

    def __init__(self, s, directed):
        self.directed = directed
        self.vertices = set(int(v) for v in s.vertices().tolist())
        src, dst, w = s.edges(weights=True)
        self.edges = {}
        self.at = collections.defaultdict(set)  # vertex -> keys of its edges
        for u, v, x in zip(src.tolist(), dst.tolist(), w.tolist()):
            self.put(u, v, x)

    def key(self, u, v):
        return (u, v) if self.directed or u <= v else (v, u)

    def put(self, u, v, w):
        k = self.key(u, v)
        self.vertices.update((u, v))
        self.edges[k] = float(w)
        self.at[u].add(k)
        self.at[v].add(k)

    def delete_edge(self, u, v):
        k = self.key(u, v)
        del self.edges[k]
        self.at[u].discard(k)
        self.at[v].discard(k)

    def add_vertex(self, v):
        self.vertices.add(v)

    def delete_vertex(self, v):
        for k in list(self.at.pop(v, ())):
            self.edges.pop(k, None)
            for x in k:
                self.at[x].discard(k)
        self.vertices.discard(v)

    def has(self, u, v):
        return self.key(u, v) in self.edges

    def degree(self, v):
        return len(self.at.get(v, ()))

    def same_as(self, s):
        src, dst, w = s.edges(weights=True)
        got = {self.key(u, v): x for u, v, x in zip(src.tolist(), dst.tolist(), w.tolist())}
        verts = set(int(v) for v in s.vertices().tolist())
        problems = []
        if verts != self.vertices:
            problems.append(f"vertices: store only {sorted(verts - self.vertices)[:5]}, "
                            f"model only {sorted(self.vertices - verts)[:5]}")
        if got != self.edges:
            only_s = sorted(set(got.items()) - set(self.edges.items()))[:5]
            only_m = sorted(set(self.edges.items()) - set(got.items()))[:5]
            problems.append(f"edges: store only {only_s}, model only {only_m}")
        return problems


def weighted_changes(g, s0, directed, rng):
    """A batch of writes to the weighted structure; returns the model of the
    state after them and a description of what was written."""
    m = WeightedModel(s0, directed)
    V = np.array(sorted(m.vertices), dtype=np.int64)
    base = sorted(m.edges)  # the edges at ts0
    nxt = int(V.max()) + 1
    did = collections.Counter()

    def pick_edges(k, pool):
        idx = rng.choice(len(pool), size=min(k, len(pool)), replace=False)
        return [pool[i] for i in sorted(idx)]

    def orient(pairs):
        # In an undirected store, name every other pair the other way round.
        if directed:
            return pairs
        return [(b, a) if i % 2 else (a, b) for i, (a, b) in enumerate(pairs)]

    def batch_put(pairs, what):
        w = rng.uniform(0.5, 5.0, len(pairs))
        g.add_edges([a for a, _ in pairs], [b for _, b in pairs], weights=w)
        for (a, b), x in zip(pairs, w.tolist()):
            m.put(a, b, x)
        did[what] += len(pairs)

    def batch_delete(pairs, what):
        g.remove_edges([a for a, _ in pairs], [b for _, b in pairs])
        for a, b in pairs:
            m.delete_edge(a, b)
        did[what] += len(pairs)

    # 1. new edges between existing vertices (no self-loops, not present yet)
    new = set()
    while len(new) < 300:
        a, b = (int(x) for x in rng.choice(V, 2, replace=False))
        if not m.has(a, b) and m.key(a, b) not in new:
            new.add(m.key(a, b))
    new = sorted(new)
    batch_put(new, "edges inserted between existing vertices")
    # 2. eight brand-new vertices, five edges each to or from existing ones,
    #    and a path through them
    fresh = list(range(nxt, nxt + 8))
    nxt += 8
    pairs = []
    for i, v in enumerate(fresh):
        for u in rng.choice(V, 5, replace=False).tolist():
            pairs.append((v, int(u)) if (i + len(pairs)) % 2 else (int(u), v))
    pairs += list(zip(fresh[:-1], fresh[1:]))
    batch_put(pairs, "edges inserted to brand-new vertices")
    # 3. re-weight 100 edges of ts0 (undirected: half named the other way)
    rew = pick_edges(100, base)
    batch_put(orient(rew), "edges of ts0 re-weighted")
    # 4. delete 200 other edges of ts0
    rest = sorted(set(base) - set(rew))
    gone = pick_edges(200, rest)
    batch_delete(orient(gone), "edges of ts0 deleted")
    # 5. delete vertices, one commit each: the one of highest degree, three
    #    at random, one brand-new one
    top = max(sorted(m.vertices), key=m.degree)
    deleted = [top] + [int(x) for x in rng.choice([v for v in V.tolist() if v != top], 3, replace=False)] + [fresh[0]]
    for v in deleted:
        did["edges removed with their vertex"] += m.degree(v)
        g.remove_vertex(v)
        m.delete_vertex(v)
        did["vertices deleted"] += 1
    # 6. later commits bring some back: an edge to a deleted vertex (the
    #    vertex returns with that one edge, its old edges stay gone); a
    #    deleted vertex re-added bare; 20 deleted edges re-inserted
    live = sorted(m.vertices)
    back = deleted[1]
    u = int(live[int(rng.integers(len(live)))])
    w = float(rng.uniform(0.5, 5.0))
    g.add_edge(u, back, w)
    m.put(u, back, w)
    did["deleted vertices brought back by an edge"] += 1
    g.add_vertex(deleted[2])
    m.add_vertex(deleted[2])
    did["deleted vertices re-added bare"] += 1
    again = [e for e in pick_edges(20, gone) if not set(e) & set(deleted)]
    batch_put(again, "deleted edges re-inserted")
    # 7. delete 20 of the edges inserted in step 1 (still there)
    batch_delete(orient([e for e in pick_edges(20, new) if m.has(*e)]), "inserted edges deleted again")
    # 8. one transaction: an edge re-weighted twice (the second weight
    #    wins), an edge deleted and put back with a new weight, a self-loop,
    #    a bare new vertex, and an edge put to a vertex the same transaction
    #    then deletes
    live_edges = sorted(m.edges)
    e1, e2 = pick_edges(2, live_edges)
    loop_v = int(live[int(rng.integers(len(live)))])
    cands = [v for v in live if v not in (loop_v, *e1, *e2) and m.degree(v) > 0]
    doomed = int(cands[int(rng.integers(len(cands)))])
    w1, w2, w3, w4, w5 = (float(x) for x in rng.uniform(0.5, 5.0, 5))
    with g.transaction() as tx:
        tx.add_edge(e1[0], e1[1], w1)
        tx.add_edge(*(e1 if directed else e1[::-1]), w2)
        tx.remove_edge(e2[0], e2[1])
        tx.add_edge(e2[0], e2[1], w3)
        tx.add_edge(loop_v, loop_v, w4)
        tx.add_vertex(nxt)
        tx.add_edge(loop_v, doomed, w5)
        tx.remove_vertex(doomed)
    m.put(e1[0], e1[1], w1)
    m.put(e1[0], e1[1], w2)
    m.delete_edge(e2[0], e2[1])
    m.put(e2[0], e2[1], w3)
    m.put(loop_v, loop_v, w4)
    m.add_vertex(nxt)
    m.put(loop_v, doomed, w5)
    m.delete_vertex(doomed)
    nxt += 1
    did["mixed transactions"] += 1
    # 9. a self-loop of ts0 deleted, if the graph has any
    loops = [e for e in base if e[0] == e[1] and m.has(*e)]
    if loops:
        batch_delete([loops[int(rng.integers(len(loops)))]], "self-loops of ts0 deleted")
    return m, dict(did)


class PropertyModel:
    """Vertices with their labels and every property edge {id: (src, dst,
    label)}."""

    def __init__(self, s):
        self.vertices = {int(v): s.label(v) for v in s.vertices().tolist()}
        self.edges = {e["id"]: (e["src"], e["dst"], e["label"]) for e in s.property_edges()}

    def add_vertex(self, v, label="vertex"):
        self.vertices.setdefault(v, label)

    def add_edge(self, eid, u, v, label):
        self.add_vertex(u)
        self.add_vertex(v)
        self.edges[eid] = (u, v, label)

    def delete_vertex(self, v):
        for eid, (a, b, _) in list(self.edges.items()):
            if v in (a, b):
                del self.edges[eid]
        del self.vertices[v]

    def same_as(self, s):
        verts = {int(v): s.label(v) for v in s.vertices().tolist()}
        got = {e["id"]: (e["src"], e["dst"], e["label"]) for e in s.property_edges()}
        problems = []
        if verts != self.vertices:
            problems.append(f"vertices: store only {sorted(set(verts.items()) - set(self.vertices.items()))[:5]}, "
                            f"model only {sorted(set(self.vertices.items()) - set(verts.items()))[:5]}")
        if got != self.edges:
            problems.append(f"property edges: store only {sorted(set(got.items()) - set(self.edges.items()))[:5]}, "
                            f"model only {sorted(set(self.edges.items()) - set(got.items()))[:5]}")
        return problems


def property_changes(g, s0, label, rng):
    """A batch of writes to the property edges of `label` (and vertices);
    returns the model of the state after them and what was written."""
    m = PropertyModel(s0)
    did = collections.Counter()
    ends = sorted({x for a, b, l in m.edges.values() if l == label for x in (a, b)})
    base = sorted(eid for eid, (_, _, l) in m.edges.items() if l == label)
    nxt = max(m.vertices) + 1
    vlabel = collections.Counter(m.vertices[v] for v in ends).most_common(1)[0][0]

    def some(k, pool):
        return [pool[i] for i in sorted(rng.choice(len(pool), size=min(k, len(pool)), replace=False))]

    def rnd(pool):
        return int(pool[int(rng.integers(len(pool)))])

    # 1. 30 new edges between vertices that have edges of `label` (parallel
    #    edges allowed), one transaction
    new = []
    with g.transaction() as tx:
        for _ in range(30):
            a, b = rnd(ends), rnd(ends)
            w = int(rng.integers(1, 100))
            eid = tx.add_edge(a, b, label, weight=w)
            new.append((eid, a, b))
    for eid, a, b in new:
        m.add_edge(eid, a, b, label)
    did[f"{label} edges inserted"] += len(new)
    # 2. three brand-new vertices of the usual label, each with two edges out
    #    and one in
    fresh = list(range(nxt, nxt + 3))
    nxt += 3
    with g.transaction() as tx:
        made = []
        for i, v in enumerate(fresh):
            tx.add_vertex(v, vlabel, name=f"new {vlabel} {i}")
            for a, b in ((v, rnd(ends)), (v, rnd(ends)), (rnd(ends), v)):
                made.append((tx.add_edge(a, b, label, weight=1), a, b))
    for v in fresh:
        m.add_vertex(v, vlabel)
    for eid, a, b in made:
        m.add_edge(eid, a, b, label)
    did[f"{label} edges inserted to brand-new vertices"] += len(made)
    # 3. 40 edges of ts0 deleted: 20 in one transaction, 20 one commit each
    gone = some(40, base)
    with g.transaction() as tx:
        for eid in gone[:20]:
            tx.remove_edge(eid)
    for eid in gone[20:]:
        g.remove_edge(eid)
    for eid in gone:
        del m.edges[eid]
    did[f"{label} edges of ts0 deleted"] += len(gone)
    # 4. vertices deleted, one commit each: the one with most edges of
    #    `label`, two at random, one vertex of another label, one new one
    deg = collections.Counter(x for a, b, l in m.edges.values() if l == label for x in (a, b))
    top = max(sorted(deg), key=lambda v: deg[v])
    others = sorted(v for v, l in m.vertices.items() if l != vlabel)
    deleted = [top] + [int(x) for x in rng.choice([v for v in ends if v != top], 2, replace=False)]
    deleted += ([rnd(others)] if others else []) + [fresh[0]]
    for v in deleted:
        did[f"{label} edges removed with their vertex"] += sum(
            1 for a, b, l in m.edges.values() if l == label and v in (a, b))
        g.remove_vertex(v)
        m.delete_vertex(v)
        did["vertices deleted"] += 1
    # 5. brought back by later commits: one by an edge alone (it returns
    #    with the default label "vertex"), one re-added with its label and
    #    given an edge; their old edges stay gone
    live = sorted(v for v in m.vertices if v in set(ends))
    a = rnd(live)
    eid = g.add_edge(deleted[1], a, label, weight=2)
    m.add_edge(eid, deleted[1], a, label)
    b = rnd(live)
    with g.transaction() as tx:
        tx.add_vertex(deleted[2], vlabel, name="back")
        eid = tx.add_edge(b, deleted[2], label)
    m.add_vertex(deleted[2], vlabel)
    m.add_edge(eid, b, deleted[2], label)
    did["deleted vertices brought back"] += 2
    # 6. five of the new edges deleted again; a property set on an edge and
    #    on a vertex (no change to the structure)
    still = [e for e in new if e[0] in m.edges]
    for eid, _, _ in some(5, still):
        g.remove_edge(eid)
        del m.edges[eid]
        did[f"inserted {label} edges deleted again"] += 1
    g.set_edge_property([e for e in new if e[0] in m.edges][-1][0], "weight", 99)
    g.set_property(rnd(live), "note", "changed")
    # 7. one transaction: an edge put to a vertex, then the vertex deleted
    live = sorted(v for v in m.vertices if v in set(ends))
    u, doomed = (int(x) for x in rng.choice(live, 2, replace=False))
    with g.transaction() as tx:
        tx.add_edge(u, doomed, label)
        tx.remove_vertex(doomed)
    m.delete_vertex(doomed)
    did["mixed transactions"] += 1
    return m, dict(did)


def main():
    global ARGS
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph", required=True, choices=sorted(GRAPHS))
    ap.add_argument("--out", required=True, help="new or empty directory")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--damping", type=float, default=0.85)
    ap.add_argument("--vertex-chunk", type=int, default=2048)
    ap.add_argument("--edge-chunk", type=int, default=16384)
    ap.add_argument("--seed", type=int, default=33, help="seed of the batch of changes after the export")
    a = ARGS = ap.parse_args()

    sg = import_stratagraph()
    spec = GRAPHS[a.graph]
    path = os.path.join(SHARED, spec["file"])
    labels = spec.get("labels")
    directed = bool(spec["directed"])
    times = {}

    # An on-disk store (an in-memory one keeps no changes). Edge lists are
    # read into memory by read_edgelist and copied over in one batch.
    store = os.path.join(a.out, "store")
    t = time.perf_counter()
    g = sg.Graph.open(store, directed=directed, sync="never")
    if spec["kind"] == "edgelist":
        mem = sg.read_edgelist(path, directed=directed)
        ms = mem.snapshot()
        src, dst, w = ms.edges(weights=True)
        g.add_vertices(ms.vertices())
        g.add_edges(src, dst, weights=w)
        ms.close()
        mem.close()
    else:
        g.load_graphson(path)
    times["load"] = time.perf_counter() - t

    s = g.snapshot()
    ts0 = s.timestamp
    export_dir = os.path.join(a.out, "export")

    t = time.perf_counter()
    exported = s.export_parquet(export_dir, vertex_chunk=a.vertex_chunk, edge_chunk=a.edge_chunk)
    times["export"] = time.perf_counter() - t

    vertices, edges, counts, more = answers(s, labels, directed)
    times.update(more)
    meta = {
        "graph": a.graph,
        "source": path,
        "directed": directed,
        "labels": labels,
        "iterations": a.iterations,
        "damping": a.damping,
        "vertex_chunk": a.vertex_chunk,
        "edge_chunk": a.edge_chunk,
        **counts,
        "export": {k: int(v) for k, v in exported.items()},
        "stratagraph_version": sg.__version__,
        "seconds": {k: round(v, 4) for k, v in times.items()},
    }
    write_answers(os.path.join(a.out, "answers"), vertices, edges, meta)

    # -- the changes, the feed, the answers after them ------------------------
    t = time.perf_counter()
    rng = np.random.default_rng([a.seed, sum(a.graph.encode())])
    if labels is None:
        model, did = weighted_changes(g, s, directed, rng)
    else:
        model, did = property_changes(g, s, labels[0], rng)
    s.close()
    times_after = {"changes": time.perf_counter() - t}
    t = time.perf_counter()
    feed = g.changes(since=ts0)
    pq.write_table(feed, os.path.join(a.out, "changes.parquet"))
    times_after["feed"] = time.perf_counter() - t
    s1 = g.snapshot()
    problems = model.same_as(s1)
    if problems:
        sys.exit(f"export_side {a.graph}: the store after the changes is not what the writes should give: "
                 + "; ".join(problems))
    vertices1, edges1, counts1, more = answers(s1, labels, directed)
    times_after.update(more)
    ops = collections.Counter(feed.column("op").to_pylist())
    ts = feed.column("ts").to_numpy()
    meta1 = {
        "graph": a.graph,
        "directed": directed,
        "labels": labels,
        "iterations": a.iterations,
        "damping": a.damping,
        "seed": a.seed,
        "ts0": int(ts0),
        **counts1,
        "changes": {
            "rows": feed.num_rows,
            "commits": int(len(np.unique(ts))),
            "ts_min": int(ts.min()) if len(ts) else None,
            "ts_max": int(ts.max()) if len(ts) else None,
            "ops": dict(sorted(ops.items())),
            "written": did,
        },
        "seconds": {k: round(v, 4) for k, v in times_after.items()},
    }
    write_answers(os.path.join(a.out, "answers_after"), vertices1, edges1, meta1)
    s1.close()
    g.close()

    print(
        f"export_side {a.graph}: at ts0 {counts['vertex_count']} vertices, {counts['edge_count']} edges, "
        f"{counts['components']} components, {exported['files']} files / {exported['bytes']} bytes; "
        + ", ".join(f"{k} {v:.3f}s" for k, v in times.items())
    )
    print(
        f"export_side {a.graph}: change feed {feed.num_rows} rows in {meta1['changes']['commits']} commits ("
        + ", ".join(f"{k} {v}" for k, v in sorted(ops.items())) + f"); after: {counts1['vertex_count']} vertices, "
        f"{counts1['edge_count']} edges, {counts1['components']} components; "
        + ", ".join(f"{k} {v:.3f}s" for k, v in times_after.items())
    )


ARGS = None

if __name__ == "__main__":
    main()
