#!/usr/bin/env python3
"""Reference figures the W1 generator does not write, computed with numpy/scipy.

Usage: python ref_extra.py --scales 14 16 --data /work/data

`gen_graph.py` (shared, not ours to change) writes kS.ref.json without the
triangle count and the PageRank top vertex; WORKLOAD.md lists both only for
K16 and K20. This script computes them for any scale from the same files,
independently of stratagraph's code, and writes kS.ref_extra.json:

  triangles       triangles of the undirected graph kS_u.bin (null with --no-triangles)
  pagerank_top    vertex of maximum PageRank (20 iterations, d = 0.85, dangling
                  rank spread over all vertices as in Graphalytics; lowest id on ties)
  sum_dst_after_ops  sum of destination ids after applying kS.ops.bin

Benchmarks check their results against these (and against WORKLOAD.md's
figures where it has them), never against the code they measure.
"""
import argparse
import json
import os

import numpy as np
import scipy.sparse as sp


def pairs(path):
    a = np.fromfile(path, dtype="<u4")
    return a[0::2].astype(np.int64), a[1::2].astype(np.int64)


def triangles(src, dst, n):
    """Each triangle once: orient every edge from lower to higher (degree, id)
    rank, then count, row block by row block, the wedges u->v->w closed by u->w."""
    deg = np.bincount(src, minlength=n)
    rank = np.lexsort((np.arange(n), deg))  # vertices by (degree, id)
    pos = np.empty(n, dtype=np.int64)
    pos[rank] = np.arange(n)
    keep = pos[src] < pos[dst]
    s, d = src[keep], dst[keep]
    L = sp.csr_matrix((np.ones(len(s), dtype=np.int64), (s, d)), shape=(n, n))
    total = 0
    block = 4096
    for lo in range(0, n, block):
        rows = L[lo:lo + block]
        total += int((rows @ L).multiply(rows).sum())
    return total


def pagerank_top(src, dst, n, d=0.85, iterations=20):
    outdeg = np.bincount(src, minlength=n).astype(np.float64)
    # column-stochastic pull: rank_new[v] = sum over u->v of rank[u]/outdeg[u]
    A = sp.csr_matrix((np.ones(len(src)), (dst, src)), shape=(n, n))
    rank = np.full(n, 1.0 / n)
    dangling = outdeg == 0
    safe = np.where(dangling, 1.0, outdeg)
    for _ in range(iterations):
        spread = d * rank[dangling].sum() / n
        rank = (1 - d) / n + d * (A @ (rank / safe)) + spread
    top = np.flatnonzero(rank == rank.max())
    return int(top.min())


# WORKLOAD.md's figures: scale -> (triangles, PageRank top vertex).
WORKLOAD_TABLE = {16: (15_588_932, 16_657), 20: (424_267_437, 897_293)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scales", type=int, nargs="+", required=True)
    ap.add_argument("--data", default="/work/data")
    ap.add_argument("--recompute", action="store_true",
                    help="compute triangles and PageRank even where WORKLOAD.md lists them (slow at k20)")
    ap.add_argument("--no-triangles", action="store_true",
                    help="leave the triangle count out (null): at scale 24 it takes hours, and the "
                         "capped runs (bench capped) do not count triangles")
    a = ap.parse_args()
    for s in a.scales:
        name = f"k{s}"
        base = os.path.join(a.data, name)
        with open(base + ".ref.json") as f:
            ref = json.load(f)
        n = ref["vertices"]
        src, dst = pairs(base + ".bin")
        ops = np.fromfile(base + ".ops.bin", dtype="<u4").reshape(-1, 3).astype(np.int64)
        ins = ops[:, 0] == 1
        sum_after = int(dst.sum() + ops[ins, 2].sum() - ops[~ins, 2].sum())
        if s in WORKLOAD_TABLE and not a.recompute:
            tri, top = WORKLOAD_TABLE[s]
        else:
            top = pagerank_top(src, dst, n)
            tri = None if a.no_triangles else triangles(*pairs(base + "_u.bin"), n)
        extra = {
            "graph": name,
            "triangles": tri,
            "pagerank_top": top,
            "sum_dst_after_ops": sum_after,
        }
        with open(base + ".ref_extra.json", "w") as f:
            json.dump(extra, f, indent=1)
        print(f"{name}: {extra}", flush=True)


if __name__ == "__main__":
    main()
