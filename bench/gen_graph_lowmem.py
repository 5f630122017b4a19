#!/usr/bin/env python3
"""The W1 anchor files of `../shared/bench/gen_graph.py`, byte for byte, in
less memory, for scales this machine's 24 GB cannot generate with it.

Usage: python gen_graph_lowmem.py --scales 24 --out /work/anchors24
       python gen_graph_lowmem.py --scales 16 --out DIR --compare /work/anchors

The shared generator holds every intermediate at once as int64 and float64
arrays; at scale 24 (268M edges) it needs over 45 GB and is killed. This
script draws the same random numbers from the same generators in the same
order (numpy's `Generator.random` yields the same stream whether drawn at
once or in pieces; `permutation`, `choice` and `integers` are called exactly
as there), keeps vertex ids as uint32, frees each array once used, and
replaces the whole-array `np.unique`/`np.isin` calls by a stable sort and a
walk along the order that picks the same elements. Its constants and edge
weights are imported from the shared script, so they cannot drift.

`--compare DIR` checks every file written against the same file in DIR
(written by the shared generator) and fails on any difference; the bench
test does that at scale 16, and it was done at 20 (see bench/NOTES.md).
Peak memory at scale 24 is about 11 GB.
"""
import argparse
import filecmp
import json
import os
import sys
import time

import numpy as np

SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "shared", "bench")
sys.path.insert(0, SHARED)
import gen_graph as shared  # noqa: E402  (the shared generator: constants and weights)

CHUNK = 1 << 24


def kronecker(scale, ef, seed):
    """`shared.kronecker`, with uint32 ids and the draws made in pieces."""
    rng = np.random.default_rng(seed)
    n = 1 << scale
    m = ef * n
    src = np.zeros(m, dtype=np.uint32)
    dst = np.zeros(m, dtype=np.uint32)
    ab = shared.A + shared.B
    c_norm = shared.C / (1.0 - ab)
    a_norm = shared.A / ab
    ii = np.empty(m, dtype=bool)
    for ib in range(scale):
        for lo in range(0, m, CHUNK):
            hi = min(m, lo + CHUNK)
            ii[lo:hi] = rng.random(hi - lo) > ab
        for lo in range(0, m, CHUNK):
            hi = min(m, lo + CHUNK)
            piece = ii[lo:hi]
            jj = rng.random(hi - lo) > np.where(piece, c_norm, a_norm)
            src[lo:hi] |= piece.astype(np.uint32) << np.uint32(ib)
            dst[lo:hi] |= jj.astype(np.uint32) << np.uint32(ib)
    del ii
    p = rng.permutation(n).astype(np.uint32)
    src = p[src]
    dst = p[dst]
    del p
    order = rng.permutation(m)
    src = src[order]
    dst = dst[order]
    del order
    return src, dst


def keys_of(src, dst):
    return (src.astype(np.int64) << 32) | dst.astype(np.int64)


def clean(src, dst):
    """`shared.clean`: self-loops dropped, then every key's first occurrence
    kept in order (what `np.unique(return_index=True)` finds, by a stable
    sort)."""
    keep = src != dst
    src, dst = src[keep], dst[keep]
    del keep
    key = keys_of(src, dst)
    perm = np.argsort(key, kind="stable")
    sorted_keys = key[perm]
    del key
    first = np.empty(len(perm), dtype=bool)
    first[:1] = True
    np.not_equal(sorted_keys[1:], sorted_keys[:-1], out=first[1:])
    del sorted_keys
    first = perm[first]
    del perm
    first.sort()
    return src[first], dst[first]


def write_undirected(path, src, dst):
    """Writes `np.unique` of both directions' keys (sorted, duplicates
    dropped) as pairs, a piece at a time; returns how many."""
    m = len(src)
    ukey = np.empty(2 * m, dtype=np.int64)
    ukey[:m] = keys_of(src, dst)
    ukey[m:] = keys_of(dst, src)
    ukey.sort()
    keep = np.empty(len(ukey), dtype=bool)
    keep[:1] = True
    np.not_equal(ukey[1:], ukey[:-1], out=keep[1:])
    written = 0
    with open(path, "wb") as f:
        for lo in range(0, len(ukey), CHUNK):
            k = ukey[lo : lo + CHUNK][keep[lo : lo + CHUNK]]
            pairs = np.empty((len(k), 2), dtype="<u4")
            pairs[:, 0] = k >> 32
            pairs[:, 1] = k & 0xFFFFFFFF
            pairs.tofile(f)
            written += len(k)
    return written


def fresh_inserts(scale, base_sorted, n_ins):
    """The first `n_ins` edges of the seed-2 graph, self-loops dropped and
    first occurrences kept, that are not in the base graph: the shared
    script's `k2[~np.isin(k2, base_keys)][:n_ins]`, walking the order until
    enough are found instead of deduplicating all of it."""
    s2, d2 = kronecker(scale, 16, 2)
    out = []
    seen = set()
    for lo in range(0, len(s2), 1 << 20):
        s, d = s2[lo : lo + (1 << 20)], d2[lo : lo + (1 << 20)]
        keep = s != d
        k = keys_of(s[keep], d[keep])
        at = np.searchsorted(base_sorted, k).clip(max=len(base_sorted) - 1)
        in_base = base_sorted[at] == k
        for key, based in zip(k.tolist(), in_base.tolist()):
            if key in seen:
                continue
            seen.add(key)
            if not based:
                out.append(key)
                if len(out) == n_ins:
                    return np.array(out, dtype=np.int64)
    sys.exit(f"not enough fresh edges for ops stream at scale {scale}")


def csr_by_source(src, dst, n):
    """The base graph as a scipy CSR matrix of W1 weights, rows by source."""
    import scipy.sparse as sp

    order = np.argsort(src, kind="stable")
    indptr = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
    indices = dst[order].astype(np.int32)
    data = np.empty(len(src), dtype=np.float64)
    for lo in range(0, len(src), CHUNK):
        o = order[lo : lo + CHUNK]
        data[lo : lo + len(o)] = shared.weights(src[o], dst[o])
    del order
    index_dtype = np.int32 if len(src) < 2**31 else np.int64
    return sp.csr_matrix(
        (data, indices.astype(index_dtype, copy=False), indptr.astype(index_dtype)),
        shape=(n, n),
    )


def gen(scale, out, n_search=1_000_000, n_ops=1_000_000):
    from scipy.sparse import csgraph

    t0 = time.time()
    n = 1 << scale
    name = f"k{scale}"
    path = lambda suffix: os.path.join(out, f"{name}{suffix}")  # noqa: E731
    src, dst = clean(*kronecker(scale, 16, 1))
    m = len(src)
    shared.write_pairs(path(".bin"), src, dst)
    n_ukey = write_undirected(path("_u.bin"), src, dst)
    # delete_mixed stream
    base_sorted = keys_of(src, dst)
    base_sorted.sort()
    n_del = n_ops // 21
    n_ins = n_ops - n_del
    k2 = fresh_inserts(scale, base_sorted, n_ins)
    del base_sorted
    rng3 = np.random.default_rng(3)
    del_idx = rng3.choice(m, size=n_del, replace=False)
    ops = np.zeros((n_ops, 3), dtype="<u4")
    is_del = (np.arange(n_ops) % 21) == 20
    ops[is_del, 0] = 0
    ops[is_del, 1] = src[del_idx]
    ops[is_del, 2] = dst[del_idx]
    ops[~is_del, 0] = 1
    ops[~is_del, 1] = (k2 >> 32).astype(np.uint32)
    ops[~is_del, 2] = (k2 & 0xFFFFFFFF).astype(np.uint32)
    ops.tofile(path(".ops.bin"))
    # search queries, scan_rand permutation
    rng4 = np.random.default_rng(4)
    qi = rng4.integers(0, m, size=n_search)
    shared.write_pairs(path(".search.bin"), src[qi], dst[qi])
    rng5 = np.random.default_rng(5)
    rng5.permutation(n).astype("<u4").tofile(path(".perm.bin"))

    # reference checksums (scipy) on the base graph, as the shared script
    outdeg = np.bincount(src, minlength=n)
    indeg = np.bincount(dst, minlength=n)
    source = int(np.argmax(outdeg))
    sum_dst = int(dst.astype(np.int64).sum())
    G = csr_by_source(src, dst, n)
    del src, dst
    order = csgraph.breadth_first_order(G, source, directed=True, return_predecessors=False)
    ncomp, _ = csgraph.connected_components(G, directed=True, connection="weak")
    dist = csgraph.dijkstra(G, directed=True, indices=source)
    fin = np.isfinite(dist)
    isolated = int(np.sum((outdeg == 0) & (indeg == 0)))
    ref = {
        "graph": name, "vertices": n, "edges": int(m), "undirected_arcs": int(n_ukey),
        "undirected_edges": int(n_ukey // 2),
        "sum_dst": sum_dst,
        "max_outdeg": int(outdeg.max()),
        "bfs_source": source, "bfs_reached": int(len(order)),
        "wcc_components_all_ids": int(ncomp),
        "wcc_components_nonisolated": int(ncomp - isolated),
        "isolated_ids": isolated,
        "sssp_reached": int(fin.sum()), "sssp_dist_sum": round(float(dist[fin].sum()), 3),
        "ops": int(n_ops), "ops_inserts": int(n_ins), "ops_deletes": int(n_del),
        "edges_after_ops": int(m + n_ins - n_del),
        "gen_seconds": round(time.time() - t0, 1),
    }
    with open(path(".ref.json"), "w") as f:
        json.dump(ref, f, indent=1)
    print(f"{name}: vertices={n} edges={m} undirected_arcs={n_ukey} sum_dst={sum_dst} "
          f"bfs_source={source} bfs_reached={ref['bfs_reached']} wcc={ncomp} "
          f"sssp_reached={ref['sssp_reached']} ({ref['gen_seconds']}s)", flush=True)
    return ref


def compare(scale, out, against):
    """Fails unless every file written for `scale` equals the one in `against`
    (the ref.json up to its gen_seconds)."""
    name = f"k{scale}"
    for suffix in [".bin", "_u.bin", ".ops.bin", ".search.bin", ".perm.bin"]:
        mine, theirs = os.path.join(out, name + suffix), os.path.join(against, name + suffix)
        if not filecmp.cmp(mine, theirs, shallow=False):
            sys.exit(f"{mine} differs from {theirs}")
    refs = []
    for d in (out, against):
        with open(os.path.join(d, f"{name}.ref.json")) as f:
            r = json.load(f)
        r.pop("gen_seconds")
        refs.append(r)
    if refs[0] != refs[1]:
        diff = {k: (refs[0].get(k), refs[1].get(k)) for k in refs[0] if refs[0].get(k) != refs[1].get(k)}
        sys.exit(f"{name}.ref.json differs: {diff}")
    print(f"{name}: every file equals {against}'s", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scales", type=int, nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--compare", metavar="DIR", help="check the files against the shared generator's in DIR")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for s in a.scales:
        gen(s, a.out, n_ops=1_000_000 if s >= 20 else 100_000)
        if a.compare:
            compare(s, a.out, a.compare)


if __name__ == "__main__":
    main()
