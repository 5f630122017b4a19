#!/usr/bin/env python3
"""W1 under a memory cap, stratagraph beside RocksDB and Kuzu, as a section
of docs/BENCHMARKS.md.

    python bench/capped_report.py --scale 24 --cap 545M \\
        --stratagraph bench/results/capped-k24-.../stratagraph-REV \\
        --peers bench/results/capped-k24-.../peers [--out docs/BENCHMARKS.md]

Inputs are what bench/run_capped.sh and bench/run_capped_peers.sh write:
for stratagraph PREFIX-{load,insert_single,reads,reads-uncapped,
delete_mixed}.tsv, for each peer PREFIX-PEER-PHASE.tsv, and for both
PREFIX-memcap.tsv, one line a capped process (wall time, peak, whether the
cap killed it). A figure a process did not write is explained from its
memcap line (killed by the cap, failed) or from the peer's own `n/a` row.
The section (`capped-kS`, bench/docsections.py) holds one table: every
phase for every system under the cap, stratagraph's ratios against each
peer ("times better", as in the W1 report), and its kernels uncapped and
warm on the same store with the capped/uncapped ratio the issue's goal
names.
"""
import argparse
import csv
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docsections  # noqa: E402
import memcap  # noqa: E402
from report import Result, better, fmt, ratio_text  # noqa: E402

PEERS = [("rocksdict", "RocksDB (rocksdict)"), ("kuzu", "Kuzu")]
# (label, op, stratagraph's capped process, a peer's phase file)
ROWS = [
    ("load 80%", "load_80", "load", "load"),
    ("load 80%, with close", "load_80_closed", "load", "load"),
    ("insert_single", "insert_single", "insert_single", "insert_single"),
    ("search_edge", "search_edge", "reads", "reads-search_edge"),
    ("scan_seq", "scan_seq", "reads", "reads-scan_seq"),
    ("scan_rand", "scan_rand", "reads", "reads-scan_rand"),
    ("BFS", "bfs", "reads", "reads-bfs"),
    ("PageRank", "pr", "reads", "reads-pr"),
    ("WCC", "wcc", "reads", "reads-wcc"),
    ("SSSP", "sssp", "reads", "reads-sssp"),
    ("delete_mixed", "delete_mixed", "delete_mixed", "delete_mixed"),
]
KERNELS = [("BFS", "bfs"), ("PageRank", "pr"), ("WCC", "wcc"), ("SSSP", "sssp")]


def memcap_lines(prefix):
    """The memcap lines of a run, by label (the last line of a label wins)."""
    path = f"{prefix}-memcap.tsv"
    if not os.path.exists(path):
        return {}
    with open(path) as f:
        return {r["label"]: r for r in csv.DictReader(f, delimiter="\t")}


def read_rows(paths):
    res = Result()
    for p in paths:
        if os.path.exists(p):
            res.read(p)
    return res


def row_of(res, op):
    """The one row of `op` in `res` (any graph, thread count 1)."""
    hits = [r for (g, o, t, s), r in res.rows.items() if o == op and t == 1]
    return hits[0] if hits else None


def secs(line):
    w = float(line["wall_s"])
    return f"{w:.1f} s" if w < 10 else f"{w:.0f} s"


def why_missing(line):
    """What a memcap line says of a process that wrote no figure."""
    if line is None:
        return "not run"
    if line["killed_by_cap"] == "1":
        return f"killed by the cap at {secs(line)}"
    if line["exit"] != "0":
        return f"failed (exit {line['exit']})"
    return "no figure"


def cell(row, line, notes):
    """A figure, or why there is none; and the value for ratios. Reasons
    too long for a cell go to `notes` (numbered once each)."""
    def note(text):
        if text not in notes:
            notes.append(text)
        return f"[{notes.index(text) + 1}]"

    if row is None:
        return why_missing(line), None
    v, unit, check = row["value"], row["unit"], row["checksum"]
    if v != v:  # n/a, with its reason in the checksum column
        return "n/a " + note(check.removeprefix("n/a: ")), None
    text = fmt(v, unit) + ("" if unit == "s" else f" {unit}")
    if "stopped at the budget" in check:
        text += " " + note(check.split(";edges=")[0])
    if line is not None and line["killed_by_cap"] == "1":
        text += f", then killed by the cap at {secs(line)}"
    return text, (v, unit)


def section(a):
    sg_lines = memcap_lines(a.stratagraph)
    sg = {name: read_rows([f"{a.stratagraph}-{name}.tsv"])
          for name in ["load", "insert_single", "reads", "reads-uncapped", "delete_mixed"]}
    peer_lines = memcap_lines(a.peers)
    peers = [(p, title) for p, title in PEERS if any(k.startswith(p + "-") for k in peer_lines)]
    head = ["| k%s, %s cap, cold | stratagraph" % (a.scale, a.cap)]
    head += [f" | {title}" for _, title in peers]
    head += [f" | vs {title}" for _, title in peers]
    out = ["".join(head) + " |", "|---" * (2 + 2 * len(peers)) + "|"]
    notes = []
    for label, op, sg_phase, peer_phase in ROWS:
        text, mine = cell(row_of(sg[sg_phase], op), sg_lines.get(sg_phase), notes)
        cells, ratios = [text], []
        for p, _ in peers:
            line = peer_lines.get(f"{p}-{peer_phase}")
            res = read_rows([f"{a.peers}-{p}-{peer_phase}.tsv"])
            row = row_of(res, op)
            if row is None and peer_phase == "load":
                # A load the cap stopped is loaded again without it.
                uncapped = row_of(read_rows([f"{a.peers}-{p}-load-uncapped.tsv"]), op)
                if uncapped is not None:
                    t, _ = cell(uncapped, None, notes)
                    cells.append(f"{why_missing(line)}; {t} uncapped")
                    ratios.append("")
                    continue
            t, theirs = cell(row, line, notes)
            cells.append(t)
            r = better(mine[0], theirs[0], mine[1]) if mine and theirs and mine[1] == theirs[1] else None
            ratios.append(ratio_text(r))
        out.append(f"| {label} | " + " | ".join(cells + ratios) + " |")
    out += [""] + [f"[{i + 1}] {n}" + ("" if n.endswith(".") else ".") for i, n in enumerate(notes)]
    disk = row_of(sg["insert_single"], "disk_bytes")
    if disk:
        out.append("")
        out.append(f"stratagraph's store after insert_single: {disk['value'] / 1e9:.2f} GB, so the "
                   f"cap is {memcap.parse_size(a.cap) / disk['value']:.0%} of it.")
    out += ["", "Kernels capped against uncapped on the same store (the uncapped reads ran twice; "
            "the second, warm, is kept):", "",
            "| kernel | capped, cold | uncapped, warm | capped / uncapped |", "|---|---|---|---|"]
    for label, op in KERNELS:
        capped = row_of(sg["reads"], op)
        warm = row_of(sg["reads-uncapped"], op)
        ok = capped and warm and capped["value"] == capped["value"] and warm["value"] > 0
        ratio = f"{capped['value'] / warm['value']:.2f}x" if ok else ""
        shown = [cell(capped, sg_lines.get("reads"), notes)[0], cell(warm, None, notes)[0]]
        out.append(f"| {label} | {shown[0]} | {shown[1]} | {ratio} |")
    peaks = [f"{k} {float(v['peak_bytes']) / 2**20:.0f} MiB" for k, v in sg_lines.items()]
    out += ["", "Peak of stratagraph's cgroup, a phase each (the page cache counts): " + ", ".join(peaks) + "."]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scale", required=True)
    ap.add_argument("--cap", required=True, help="the cap the runs had, as given to memcap.py (545M)")
    ap.add_argument("--stratagraph", required=True, help="run_capped.sh's --out")
    ap.add_argument("--peers", required=True, help="run_capped_peers.sh's --out")
    ap.add_argument("--intro", default="", help="a paragraph above the table: the sitting, the commands")
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    a = ap.parse_args()
    body = f"## W1 at k{a.scale} under a memory cap of {a.cap}\n\n"
    if a.intro:
        body += a.intro.strip() + "\n\n"
    body += section(a) + "\n"
    text = open(a.out).read() if os.path.exists(a.out) else ""
    with open(a.out, "w") as f:
        f.write(docsections.replace(text, f"capped-k{a.scale}", "bench/capped_report.py", body))
    print(f"wrote section capped-k{a.scale} of {a.out}")


if __name__ == "__main__":
    main()
