#!/usr/bin/env python3
"""Query x system tables from gremlin result TSVs (bench/run_gremlin_peers.sh).

    python3 bench/gremlin/summary.py bench/results/gremlin-*.tsv

Per dataset: each query's median seconds on stratagraph and TinkerGraph,
stratagraph's speed-up (TinkerGraph's median over stratagraph's), `<3x`
where it is under the goal of issue 30, and `MISMATCH` where the two
systems' result counts or checksums differ. `_load` is the load time
(its checksum is the vertex and edge counts). Markdown output.
"""
import csv
import sys
from collections import OrderedDict


def rows(paths):
    for p in paths:
        with open(p) as f:
            lines = [l for l in f if not l.startswith("#")]
        yield from csv.DictReader(lines, delimiter="\t")


def main(paths):
    data = OrderedDict()  # dataset -> query -> system -> row
    for r in rows(paths):
        data.setdefault(r["dataset"], OrderedDict()).setdefault(r["query"], {})[r["system"]] = r
    bad = 0
    for ds, queries in data.items():
        print(f"\n{ds} (median seconds; speed-up = tinkergraph / stratagraph)\n")
        print("| query | stratagraph | tinkergraph | speed-up | results | check |")
        print("|---|---|---|---|---|---|")
        for q, by in queries.items():
            s, t = by.get("stratagraph"), by.get("tinkergraph")
            sm = float(s["median_s"]) if s else None
            tm = float(t["median_s"]) if t else None
            ratio = tm / sm if sm and tm else None
            if s and t:
                same = s["checksum"] == t["checksum"] and s["results"] == t["results"]
                check = "same" if same else f"MISMATCH ({s['sample']} vs {t['sample']})"
                bad += not same
            else:
                check = "only one system"
            shown = s or t
            goal = "" if ratio is None or q == "_load" or ratio >= 3 else " <3x"
            print(f"| {q} | {s['median_s'] if s else '-'} | {t['median_s'] if t else '-'} | "
                  f"{f'{ratio:.2f}' if ratio else '-'}{goal} | {shown['sample'] if shown['results'] == '1' else shown['results']} | {check} |")
        timed = [q for q in queries if q != "_load" and len(queries[q]) == 2]
        under = [q for q in timed
                 if float(queries[q]["tinkergraph"]["median_s"]) < 3 * float(queries[q]["stratagraph"]["median_s"])]
        print(f"\n{len(timed) - len(under)} of {len(timed)} queries at least 3x faster than TinkerGraph"
              + (f"; under: {', '.join(under)}" if under else ""))
    if bad:
        print(f"\n{bad} MISMATCH(es)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
