#!/usr/bin/env python3
"""Summary of the interchange TSVs of one scale (run.sh prints it at the
end): Parquet import and export against kuzu's COPY, and stratagraph's
Arrow out and in (edges/s, bytes of Arrow buffers built per edge).

    summary.py OUT/interchange-kS-*.tsv

Standard library only. A ratio is kuzu's seconds / the system's seconds
(above 1: faster than kuzu). Rows that are n/a or missing show as such;
nothing is filled in.
"""
import re
import sys


def read(paths):
    rows, versions = {}, {}
    for p in paths:
        try:
            lines = open(p).read().splitlines()
        except OSError as e:
            print(f"summary: {p}: {e}", file=sys.stderr)
            continue
        for line in lines:
            if line.startswith("# build:"):
                m = re.search(r"python [^,]+, (\S+) (\S+)", line)
                if m:
                    versions[m.group(1)] = m.group(2)
                continue
            if line.startswith("#") or line.startswith("system\t") or not line.strip():
                continue
            f = line.split("\t")
            if len(f) < 8:
                continue
            system, op, scale, edges, secs, rate, runs, note = f[:8]
            try:
                secs_v = float(secs)
            except ValueError:
                secs_v = None
            rows[(system, op)] = {"scale": scale, "edges": edges, "secs": secs_v, "rate": rate,
                                  "runs": runs, "note": note}
    return rows, versions


def fmt_rate(r):
    try:
        v = float(r)
    except ValueError:
        return "n/a"
    return f"{v / 1e6:.2f}M"


def main():
    rows, versions = read(sys.argv[1:])
    if not rows:
        sys.exit("summary: no rows")
    scale = next(iter(rows.values()))["scale"]
    print(f"== interchange summary, W1 k{scale} "
          f"({', '.join(f'{k} {v}' for k, v in sorted(versions.items()))})")

    def line(label, key, base):
        r = rows.get(key)
        if r is None:
            print(f"  {label:<58} {'missing':>10}")
            return
        if r["secs"] is None:
            print(f"  {label:<58} {'n/a':>10}   {r['note'][:100]}")
            return
        ratio = ""
        if base and rows.get(base) and rows[base]["secs"]:
            ratio = f"{rows[base]['secs'] / r['secs']:.2f}x"
        print(f"  {label:<58} {r['secs']:>9.3f}s {fmt_rate(r['rate']):>8} edges/s {ratio:>8}")

    def best(system, ops):
        have = [(rows[(system, op)]["secs"], op) for op in ops
                if (system, op) in rows and rows[(system, op)]["secs"]]
        return (system, min(have)[1]) if have else (system, ops[0])

    kuzu_imp = ("kuzu", "import_parquet")
    print("Parquet import (nodes.parquet + edges.parquet unless said; ratio = kuzu on-disk COPY total / this)")
    print(f"  {'':<58} {'median':>10} {'rate':>8}         {'vs kuzu':>8}")
    line("kuzu COPY V + COPY E, on disk (the baseline)", kuzu_imp, kuzu_imp)
    line("kuzu COPY E alone, on disk", ("kuzu", "import_parquet_rel"), None)
    line("kuzu COPY V + COPY E, :memory:", ("kuzu", "import_parquet_inmem"), kuzu_imp)
    line("stratagraph pq.read_table + from_arrow", ("stratagraph", "import_parquet_arrow"), kuzu_imp)
    line("stratagraph read_parquet (its GraphAr export)", ("stratagraph", "import_parquet_graphar"), kuzu_imp)
    nk = best("networkit", ["import_parquet", "import_parquet_addedges"])
    line(f"networkit {nk[1]}", nk, kuzu_imp)
    ig = best("igraph", ["import_parquet", "import_parquet_zip"])
    line(f"igraph {ig[1]}", ig, kuzu_imp)
    s, k = rows.get(("stratagraph", "import_parquet_arrow")), rows.get(kuzu_imp)
    if s and k and s["secs"] and k["secs"]:
        r = k["secs"] / s["secs"]
        print(f"  goal (issue 33, k20): Parquet import >= 2x kuzu's COPY; here (k{scale}): {r:.2f}x with pq.read_table + from_arrow "
              f"-> {'met' if r >= 2 else 'NOT met'}")
    s = rows.get(("stratagraph", "import_parquet_graphar"))
    if s and k and s["secs"] and k["secs"]:
        r = k["secs"] / s["secs"]
        print(f"  goal, with read_parquet of stratagraph's own export (other input files): {r:.2f}x "
              f"-> {'met' if r >= 2 else 'NOT met'}")

    kuzu_exp = ("kuzu", "export_parquet")
    print("Parquet export (edges; ratio = kuzu COPY TO / this)")
    line("kuzu COPY (MATCH ...) TO parquet (the baseline)", kuzu_exp, kuzu_exp)
    line("stratagraph export_parquet (GraphAr, vertices too)", ("stratagraph", "export_parquet"), kuzu_exp)
    line("networkit iterEdgesWeights -> numpy -> pyarrow", ("networkit", "export_parquet"), kuzu_exp)
    line("igraph get_edgelist -> numpy -> pyarrow", ("igraph", "export_parquet"), kuzu_exp)

    print("Arrow (stratagraph)")
    for op, label in [("to_arrow_edges", "to_arrow_edges (compacted snapshot)"),
                      ("to_arrow", "to_arrow (vertex + edge tables)"),
                      ("to_arrow_edges_internal", "to_arrow_edges, ids=\"internal\" (compacted on-disk store)"),
                      ("from_arrow_edges", "from_arrow_edges (in-memory Table)")]:
        line(label, ("stratagraph", op), None)
    r = rows.get(("stratagraph", "to_arrow_edges"))
    if r:
        m = re.search(r"bytes_per_edge=([0-9.]+) \(Arrow buffers built: ([^)]*)\)", r["note"])
        if m:
            print(f"  bytes of Arrow buffers built per edge: {m.group(1)} ({m.group(2)})")
    r = rows.get(("stratagraph", "to_arrow_edges_internal"))
    if r:
        m = re.search(r"copied_per_edge=([0-9.]+) shared_per_edge=([0-9.]+) \(by column, shared/copied: ([^)]*)\)",
                      r["note"])
        if m:
            dst = re.search(r"_dst ([0-9.]+)/([0-9.]+)", m.group(3))
            met = dst is not None and float(dst.group(2)) == 0.0
            print(f"  ids=\"internal\": copied {m.group(1)} B/edge, shared {m.group(2)} B/edge "
                  f"(shared/copied by column: {m.group(3)}); goal: no copy of the destination "
                  f"column -> {'met' if met else 'NOT met'}")


if __name__ == "__main__":
    main()
