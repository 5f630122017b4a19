"""stratagraph's half of the Spark hand-off check (bench/spark/run.sh).

Loads one graph into stratagraph, takes one snapshot, exports it with
``Snapshot.export_parquet`` (docs/FORMAT.md section 7) and writes
stratagraph's own answers on that same snapshot beside the export:

    OUT/export/                      the Parquet export (GraphAr layout)
    OUT/answers/vertices.parquet     id, out_degree, in_degree, degree, pagerank, wcc
    OUT/answers/edges.parquet        src, dst and weight (weighted structure)
                                     or edge_id and label (property edges)
    OUT/answers/meta.json            graph, settings, counts, wall times

Run with the project's venv (``/work/main/.venv/bin/python``). Graphs:

    wiki-Vote, email-Eu-core, p2p-Gnutella04   SNAP edge lists, directed
    facebook_combined                          SNAP edge list, undirected
    grateful-dead                              TinkerPop GraphSON property graph;
                                               kernels on the followedBy projection

The export is written with small chunks (``--vertex-chunk``, ``--edge-chunk``)
so that the reader sees several parts and chunks, as a large graph would.
"""

import argparse
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


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--graph", required=True, choices=sorted(GRAPHS))
    ap.add_argument("--out", required=True, help="new or empty directory")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--damping", type=float, default=0.85)
    ap.add_argument("--vertex-chunk", type=int, default=2048)
    ap.add_argument("--edge-chunk", type=int, default=16384)
    a = ap.parse_args()

    sg = import_stratagraph()
    spec = GRAPHS[a.graph]
    path = os.path.join(SHARED, spec["file"])
    labels = spec.get("labels")
    times = {}

    t = time.perf_counter()
    if spec["kind"] == "edgelist":
        g = sg.read_edgelist(path, directed=spec["directed"])
    else:
        g = sg.Graph.in_memory()
        g.load_graphson(path)
    times["load"] = time.perf_counter() - t

    s = g.snapshot()
    export_dir = os.path.join(a.out, "export")
    answers_dir = os.path.join(a.out, "answers")
    os.makedirs(answers_dir, exist_ok=True)

    t = time.perf_counter()
    exported = s.export_parquet(export_dir, vertex_chunk=a.vertex_chunk, edge_chunk=a.edge_chunk)
    times["export"] = time.perf_counter() - t

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
    times["degrees_and_edges"] = time.perf_counter() - t

    t = time.perf_counter()
    pr = s.pagerank(iterations=a.iterations, damping=a.damping, labels=labels)
    times["pagerank"] = time.perf_counter() - t
    t = time.perf_counter()
    wcc = s.wcc(labels=labels)
    times["wcc"] = time.perf_counter() - t

    pq.write_table(pa.table({
        "id": pa.array(ids.astype(np.int64)),
        "out_degree": pa.array(np.asarray(out_deg, dtype=np.int64)),
        "in_degree": pa.array(np.asarray(in_deg, dtype=np.int64)),
        "degree": pa.array(np.asarray(deg, dtype=np.int64)),
        "pagerank": pa.array(np.asarray(pr, dtype=np.float64)),
        "wcc": pa.array(np.asarray(wcc).astype(np.int64)),
    }), os.path.join(answers_dir, "vertices.parquet"))
    pq.write_table(edges, os.path.join(answers_dir, "edges.parquet"))

    by_label = {}
    for v in ids.tolist():
        lab = s.label(v)
        by_label[lab] = by_label.get(lab, 0) + 1
    meta = {
        "graph": a.graph,
        "source": path,
        "directed": bool(spec["directed"]),
        "labels": labels,
        "iterations": a.iterations,
        "damping": a.damping,
        "vertex_chunk": a.vertex_chunk,
        "edge_chunk": a.edge_chunk,
        "vertex_count": int(n),
        "vertex_count_by_label": by_label,
        "edge_count": int(edge_count),
        "components": int(len(np.unique(wcc))),
        "export": {k: int(v) for k, v in exported.items()},
        "stratagraph_version": sg.__version__,
        "seconds": {k: round(v, 4) for k, v in times.items()},
    }
    with open(os.path.join(answers_dir, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
    print(
        f"export_side {a.graph}: {n} vertices, {edge_count} edges, {meta['components']} components, "
        f"{exported['files']} files / {exported['bytes']} bytes; "
        + ", ".join(f"{k} {v:.3f}s" for k, v in times.items())
    )


if __name__ == "__main__":
    main()
