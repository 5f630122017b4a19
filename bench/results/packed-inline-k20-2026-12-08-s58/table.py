"""Each op's ratio to the static CSR in the same `bench w1` run, per run and
the median: python3 table.py DIR (the w1/new-*.tsv files)."""
import glob
import statistics
import sys

d = sys.argv[1] if len(sys.argv) > 1 else "."
rows = []
for f in sorted(glob.glob(d + "/w1/new-*.tsv")):
    r = {}
    for line in open(f):
        p = line.rstrip("\n").split("\t")
        if line.startswith(("#", "system")) or len(p) < 7:
            continue
        try:
            r[(p[0], p[3])] = float(p[5])
        except ValueError:
            pass
    rows.append(r)
ops = ["search_edge", "scan_seq", "scan_rand", "bfs", "pr", "wcc", "sssp"]
for s in ["stratagraph-disk", "stratagraph-disk-packed"]:
    print(f"{s} / csr (search_edge: csr rate / store rate)")
    for op in ops:
        rs = []
        for r in rows:
            c, k = r[("csr", op)], r[(s, op)]
            rs.append(c / k if op == "search_edge" else k / c)
        print(f"  {op:12} {' '.join(f'{x:.2f}' for x in rs)} | median {statistics.median(rs):.2f}")
