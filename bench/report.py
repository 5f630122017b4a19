#!/usr/bin/env python3
"""Turns W1 result files into docs/BENCHMARKS.md and charts in docs/bench/.

    python bench/report.py bench/results/k16-*.tsv [--out docs/BENCHMARKS.md] [--charts docs/bench]

Inputs are the TSV files `stratagraph bench w1` and the peer drivers write
(`#` header lines, then rows: system, version, graph, op, threads, value,
unit, checksum). For each graph the report has one table per operation
group with every system's figure, stratagraph's ratio against the static
CSR and against the best peer, and whether the checksums agree; `n/a`
figures are listed with their reasons. Ratios are "times better" for
stratagraph (in memory): above 1 it is ahead, below 1 behind, whichever way
the unit runs (seconds and bytes: lower is better; per second: higher).

A hand-written closing note (bench/w1-closing-note.md: the sitting the
files come from and the causes of the gaps, which no script can know) is
appended if present. Charts need matplotlib; make the
venv with `python3 -m venv /work/data/peer-venvs/report &&
/work/data/peer-venvs/report/bin/pip install matplotlib`.
"""
import argparse
import collections
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import docsections  # noqa: E402

ENGINE = "stratagraph"
ENGINE_SYSTEMS = ["stratagraph", "stratagraph-disk"]
BASELINE = "csr"
PEERS = ["networkit", "igraph", "kuzu", "rocksdict", "networkx"]
LOWER_IS_BETTER = {"s", "us", "bytes/edge"}
HIGHER_IS_BETTER = {"edges/s", "ops/s"}
GROUPS = [
    ("Loading and memory", ["bulk_load", "memory_rss", "memory_accounted", "disk_bytes"]),
    ("Single-edge writes", ["insert_single", "insert_single_p50", "insert_single_p99",
                            "insert_single_p999", "delete_mixed"]),
    ("Look-ups and scans", ["search_edge", "scan_seq", "scan_rand"]),
    ("Analytics", ["bfs", "pr", "wcc", "sssp", "tc"]),
    ("Batch sizes", [f"batch_sizes_{n}" for n in [1, 10, 100, 1000, 10000, 100000, 1000000]]),
    ("Reads during writes (mixed_rw)", ["mixed_rw_insert", "mixed_rw_sssp", "mixed_rw_insert_ratio",
                                       "mixed_rw_sssp_ratio"]),
]


class Result:
    def __init__(self):
        self.rows = {}  # (graph, op, threads, system) -> row dict
        self.headers = {}  # system -> header lines (its first file's)
        self.graph_headers = {}  # (graph, system) -> header lines of all its files, merged
        self.versions = {}

    def read(self, path):
        header = []
        with open(path) as f:
            for line in f:
                line = line.rstrip("\n")
                if not line:
                    continue
                if line.startswith("#"):
                    header.append(line[1:].strip())
                    continue
                cols = line.split("\t")
                if cols[0] == "system":
                    continue
                if len(cols) != 8:
                    sys.exit(f"{path}: malformed row {line!r}")
                system, version, graph, op, threads, value, unit, checksum = cols
                value = float("nan") if value == "n/a" else float(value)
                self.rows[(graph, op, int(threads), system)] = {
                    "value": value, "unit": unit, "checksum": checksum}
                self.versions[system] = version
                self.headers.setdefault(system, header)
                merged = self.graph_headers.setdefault((graph, system), [])
                merged += [h for h in header if h not in merged]

    def graphs(self):
        return sorted({k[0] for k in self.rows}, key=lambda g: int(g[1:]) if g[1:].isdigit() else 0)

    def systems(self, graph):
        present = {k[3] for k in self.rows if k[0] == graph}
        order = ENGINE_SYSTEMS + [BASELINE] + PEERS
        return [s for s in order if s in present] + sorted(present - set(order))

    def keys(self, graph, op):
        return sorted({k[2] for k in self.rows if k[0] == graph and k[1] == op})

    def get(self, graph, op, threads, system):
        return self.rows.get((graph, op, threads, system))


def fmt(v, unit):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    if unit in ("edges/s", "ops/s"):
        for scale, suffix in [(1e9, "G"), (1e6, "M"), (1e3, "k")]:
            if abs(v) >= scale:
                return f"{v / scale:.3g}{suffix}"
        return f"{v:.3g}"
    if unit == "s":
        if v < 1e-3:
            return f"{v * 1e6:.3g} µs"
        if v < 1:
            return f"{v * 1e3:.3g} ms"
        return f"{v:.3g} s"
    return f"{v:.3g}"


def better(a, b, unit):
    """How many times a is better than b (None if not comparable)."""
    if a is None or b is None or math.isnan(a) or math.isnan(b) or a <= 0 or b <= 0:
        return None
    if unit in HIGHER_IS_BETTER:
        return a / b
    if unit in LOWER_IS_BETTER:
        return b / a
    return None


def best_peer(res, graph, op, threads, unit):
    best = None
    for p in PEERS:
        r = res.get(graph, op, threads, p)
        if not r or math.isnan(r["value"]):
            continue
        if best is None or (better(r["value"], best[1], unit) or 0) > 1:
            best = (p, r["value"])
    return best


def ratio_text(x):
    if x is None:
        return ""
    return f"**{x:.2f}×**" if x >= 1 else f"{x:.2f}×"


def table(res, graph, ops, systems, notes_na, summary):
    out = []
    head = ["op", "threads"] + systems + ["best peer", "vs CSR", "vs best peer", "checksums"]
    out.append("| " + " | ".join(head) + " |")
    out.append("|" + "---|" * len(head))
    for op in ops:
        for threads in res.keys(graph, op):
            cells, unit, sums = [], "", set()
            for s in systems:
                r = res.get(graph, op, threads, s)
                if not r:
                    cells.append("")
                    continue
                unit = unit if unit and unit != "-" else r["unit"]
                if math.isnan(r["value"]):
                    cells.append("n/a")
                    notes_na.append((s, op, threads, r["checksum"]))
                else:
                    cells.append(fmt(r["value"], r["unit"]))
                    sums.add(r["checksum"])
            eng = res.get(graph, op, threads, ENGINE)
            eng_v = eng["value"] if eng else None
            csr = res.get(graph, op, threads, BASELINE)
            vs_csr = better(eng_v, csr["value"], unit) if csr else None
            bp = best_peer(res, graph, op, threads, unit)
            vs_peer = better(eng_v, bp[1], unit) if bp else None
            if vs_peer is not None:
                summary.append((op, threads, bp[0], vs_peer))
            agree = "" if not sums else ("✓" if len(sums) == 1 else "✗ " + " / ".join(sorted(sums)))
            label = f"{op} ({unit})" if unit and unit != "-" else op
            out.append("| " + " | ".join([label, str(threads)] + cells + [
                f"{bp[0]} {fmt(bp[1], unit)}" if bp else "", ratio_text(vs_csr), ratio_text(vs_peer),
                agree]) + " |")
    return out


def charts(res, graph, outdir):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(outdir, exist_ok=True)
    systems = res.systems(graph)
    made = []
    # One colour per system across every chart.
    palette = plt.get_cmap("tab10").colors
    order = ENGINE_SYSTEMS + [BASELINE] + PEERS
    colour = {s: palette[order.index(s) % 10] if s in order else None for s in systems}

    def bars(name, title, ops, ylabel, threads=1, labels=None):
        present = [op for op in ops if any(res.get(graph, op, threads, s) for s in systems)]
        if not present:
            return
        fig, ax = plt.subplots(figsize=(max(6, 1.3 * len(present) + 3), 4.2))
        shown = [s for s in systems if any(
            (r := res.get(graph, op, threads, s)) and not math.isnan(r["value"]) for op in present)]
        width = 0.8 / max(len(shown), 1)
        for i, s in enumerate(shown):
            vals = []
            for op in present:
                r = res.get(graph, op, threads, s)
                vals.append(r["value"] if r and not math.isnan(r["value"]) else 0)
            ax.bar([j + i * width for j in range(len(present))], vals, width, label=s, color=colour[s])
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(present))])
        ax.set_xticklabels(labels or present, rotation=20, ha="right")
        ax.set_yscale("log")
        ax.set_ylabel(ylabel)
        ax.set_title(f"{title} — W1 {graph}, {threads} thread(s)")
        ax.legend(fontsize=8, ncol=2)
        ax.grid(axis="y", alpha=0.3)
        fig.tight_layout()
        path = os.path.join(outdir, f"{graph}-{name}.png")
        fig.savefig(path, dpi=110)
        plt.close(fig)
        made.append(path)

    bars("throughput", "Throughput (higher is better)",
         ["insert_single", "delete_mixed", "search_edge", "mixed_rw_insert"]
         + [f"batch_sizes_{n}" for n in [1, 100, 10000, 1000000]], "operations or edges per second")
    bars("insert-latency", "insert_single latency (lower is better)",
         ["insert_single_p50", "insert_single_p99", "insert_single_p999"], "microseconds",
         labels=["p50", "p99", "p99.9"])
    bars("read-time", "Scans and analytics (lower is better)",
         ["scan_seq", "scan_rand", "bfs", "pr", "wcc", "sssp", "tc"], "seconds")
    return made


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--out", default="docs/BENCHMARKS.md")
    ap.add_argument("--charts", default="docs/bench")
    ap.add_argument("--notes", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                    "w1-closing-note.md"))
    ap.add_argument("--no-charts", action="store_true")
    a = ap.parse_args()
    res = Result()
    for f in a.files:
        res.read(f)
    doc = ["# Benchmarks: workload W1", "",
           "Generated by `bench/report.py` from the result files of `stratagraph bench w1` and the",
           "peer drivers (`bench/README.md` has the one command that makes them). Every figure is a median",
           "of runs; every row carries the checksum that proves the system did the work, checked against the",
           "generator's reference figures. **vs CSR** and **vs best peer** are how many times better",
           "stratagraph (in memory) is: above 1 (bold) it is ahead, below 1 behind (seconds, µs and bytes:",
           "lower is better; per second: higher is better). stratagraph and the CSR are measured in Rust;",
           "peers through their Python APIs, so their per-call operations (single-edge writes, look-ups,",
           "per-vertex scans) include the interpreter's cost, as they would for a Python user, while their",
           "whole-graph calls (bulk loads, kernels) mostly run in native code.", ""]
    doc += ["## Machine and build", "",
            "Each scale's section starts with the header of the stratagraph result files it was",
            "made from (a run split into several files lists each file's lines once).", ""]
    peer_builds = [f"- {s}: {res.versions[s]} ({next((h for h in res.headers[s] if h.startswith('build:')), '')})"
                   for s in PEERS if s in res.headers]
    if peer_builds:
        doc += ["Peers (each in its own virtual environment, same machine, same files):", ""] + peer_builds + [""]
    chart_dir_rel = os.path.relpath(a.charts, os.path.dirname(os.path.abspath(a.out)))
    for graph in res.graphs():
        systems = res.systems(graph)
        doc += [f"## {graph}", ""]
        header = res.graph_headers.get((graph, ENGINE)) or next(
            (h for (g, _), h in res.graph_headers.items() if g == graph), [])
        doc += ["```"] + header + ["```", ""]
        notes_na, summary = [], []
        for title, ops in GROUPS:
            present = [op for op in ops if res.keys(graph, op)]
            if not present:
                continue
            doc += [f"### {title}", ""] + table(res, graph, present, systems, notes_na, summary) + [""]
        if not a.no_charts:
            try:
                made = charts(res, graph, a.charts)
                doc += ["### Charts", ""] + [f"![{os.path.basename(p)}]({chart_dir_rel}/{os.path.basename(p)})"
                                             for p in made] + [""]
            except ImportError:
                doc += ["(charts skipped: matplotlib is not installed in this Python)", ""]
        if summary:
            ahead = sorted([s for s in summary if s[3] >= 1], key=lambda s: -s[3])
            behind = sorted([s for s in summary if s[3] < 1], key=lambda s: s[3])
            doc += ["### Where stratagraph (in memory) stands against the best peer", ""]
            doc += ["Ahead: " + (", ".join(f"{op} ({t} thr) {x:.2f}× vs {p}" for op, t, p, x in ahead) or "nowhere"), ""]
            doc += ["Behind: " + (", ".join(f"{op} ({t} thr) {1 / x:.2f}× behind {p}" for op, t, p, x in behind)
                                  or "nowhere"), ""]
        if notes_na:
            doc += ["### Not available (n/a), with the reason", ""]
            seen = set()
            for s, op, t, why in notes_na:
                key = (s, why)
                if key in seen:
                    continue
                seen.add(key)
                ops = sorted({o if t2 == 1 else f"{o} ({t2} thr)"
                              for s2, o, t2, w in notes_na if s2 == s and w == why})
                doc.append(f"- **{s}** — {', '.join(ops)}: {why.removeprefix('n/a: ')}")
            doc.append("")
    if os.path.exists(a.notes):
        with open(a.notes) as f:
            doc += ["## Closing note", "", f.read().strip(), ""]
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    # Sections other reports wrote into the same file stay (bench/docsections.py).
    kept = ""
    if os.path.exists(a.out):
        with open(a.out) as f:
            kept = docsections.others(f.read())
    with open(a.out, "w") as f:
        f.write("\n".join(doc))
        if kept:
            f.write("\n" + kept)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
