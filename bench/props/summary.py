#!/usr/bin/env python3
"""Tables of the property benchmark's TSV rows: per data set, operation by
system, ops/s (load: seconds), the ratio of stratagraph's speed to the
fastest peer's (> 1: stratagraph ahead), and every operation whose
checksums differ between systems.

    python3 bench/props/summary.py bench/results/props-*.tsv
"""
import re
import sys

ORDER = ["stratagraph", "kuzu", "ladybug", "networkx"]
OPS = ["load", "read_properties", "find_scan", "create_index", "find_indexed", "hop1", "hop2",
       "add_vertex", "add_property", "update_property", "remove_property"]


def read(paths):
    rows = {}
    for p in paths:
        with open(p) as f:
            for line in f:
                if line.startswith("#") or line.startswith("system\t"):
                    continue
                x = line.rstrip("\n").split("\t")
                if len(x) < 9:
                    continue
                system, version, ds, op, n, med, lo, rate, check = x[:9]
                rows.setdefault(ds, {})[(op, system)] = dict(version=version, n=n, med=med, rate=rate,
                                                           check=check)
    return rows


def speed(r, op):
    """Higher is faster: ops/s, or 1/seconds for load and create_index; a
    stopped run's partial rate."""
    if r is None:
        return None
    if r["med"] != "n/a":
        return 1 / float(r["med"]) if op in ("load", "create_index") else float(r["rate"])
    m = re.search(r"\(([\d.e+-]+)/s\)", r["check"])
    return float(m.group(1)) if m and op not in ("load", "create_index") else None


def cell(r, op):
    if r is None:
        return "-"
    if r["med"] == "n/a":
        s = speed(r, op)
        return f"stopped ({s:.4g}/s)" if s else "n/a"
    return f"{float(r['med']):.3g} s" if op in ("load", "create_index") else f"{float(r['rate']):.4g}"


def main(paths):
    for ds, rows in read(paths).items():
        systems = [s for s in ORDER if any(k[1] == s for k in rows)]
        versions = {s: next(r["version"] for k, r in rows.items() if k[1] == s) for s in systems}
        print(f"\n### {ds}\n")
        print("| op | " + " | ".join(f"{s} {versions[s]}" for s in systems) + " | stratagraph / best peer |")
        print("|---" * (len(systems) + 2) + "|")
        disagree = []
        for op in OPS:
            got = {s: rows.get((op, s)) for s in systems}
            if not any(got.values()):
                continue
            peers = [speed(got[s], op) for s in systems if s != "stratagraph"]
            peers = [p for p in peers if p]
            mine = speed(got.get("stratagraph"), op)
            ratio = f"{mine / max(peers):.2f}" if mine and peers else "-"
            print(f"| {op} | " + " | ".join(cell(got[s], op) for s in systems) + f" | {ratio} |")
            sums = {s: r["check"].split(";MISMATCH")[0] for s, r in got.items()
                    if r and not r["check"].startswith("n/a") and op != "create_index"}
            if len(set(sums.values())) > 1:
                disagree.append((op, sums))
            for s, r in got.items():
                if r and "MISMATCH" in r["check"]:
                    disagree.append((op, {s: r["check"]}))
        print("\nchecksums: " + ("all agree" if not disagree else "DISAGREE"))
        for op, sums in disagree:
            for s, x in sums.items():
                print(f"  {op} {s}: {x}")


if __name__ == "__main__":
    main(sys.argv[1:])
