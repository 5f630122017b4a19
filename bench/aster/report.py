#!/usr/bin/env python3
"""Result TSVs of bench/run_aster.sh to a markdown section (stdout) and SVG
charts (docs/bench/aster-<dataset>-*.svg).

    report.py [--charts-dir docs/bench] [--no-charts] bench/results/aster-*.tsv

Where several files hold the same (system, dataset, phase, op, procs), the
file named last wins. Ratios are "times stratagraph ahead": ops/s of
stratagraph / ops/s of the peer, and latency of the peer / latency of
stratagraph, so > 1 means stratagraph is faster either way.
Standard library only (no matplotlib in the client's environment).
"""
import argparse
import math
import os
import sys
from html import escape

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ORDER = ["stratagraph", "tinkergraph", "janusgraph"]
COLORS = {"stratagraph": "#1f77b4", "tinkergraph": "#ff7f0e", "janusgraph": "#2ca02c"}
LAT_OPS = ["noop", "add_vertex", "add_edge", "delete_edge", "get_neighbors", "update_property",
           "find_by_property"]


def read(paths):
    rows, comments = {}, {}
    for path in paths:
        cols = None
        notes = comments.setdefault(path, [])
        for line in open(path):
            line = line.rstrip("\n")
            if not line:
                continue
            if line.startswith("#"):
                notes.append(line[1:].strip())
                continue
            f = line.split("\t")
            if f[0] == "system":
                cols = f
                continue
            r = dict(zip(cols, f))
            r["file"] = os.path.relpath(path, ROOT)
            rows[(r["system"], r["dataset"], r["phase"], r["op"], int(r["procs"]))] = r
    return rows, comments


def num(x):
    try:
        v = float(x)
        return None if math.isnan(v) else v
    except (TypeError, ValueError):
        return None


def fmt(v, digits=None):
    if v is None:
        return "–"
    if digits is not None:
        return f"{v:.{digits}f}"
    if v >= 100:
        return f"{v:,.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def ratio(a, b):
    return f"{a / b:.2f}×" if a and b else "–"


def systems_of(rows, ds):
    present = {k[0] for k in rows if k[1] == ds}
    return [s for s in ORDER if s in present] + sorted(present - set(ORDER))


def table(head, body):
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in body]
    return "\n".join(out)


def flag(r):
    c = r.get("check", "")
    return "" if c in ("ok", "", "skipped") else " ✗"


def svg_bars(path, title, groups, series, values, ylabel, log=False):
    """Grouped bar chart: values[(group, series)] -> number or None."""
    W, H, L, R, T, B = 820, 360, 70, 150, 40, 60
    pw, ph = W - L - R, H - T - B
    vals = [v for v in values.values() if v]
    if not vals:
        return False
    if log:
        lo = 10 ** math.floor(math.log10(min(vals)))
        hi = 10 ** math.ceil(math.log10(max(vals)))
        if hi <= lo:
            hi = lo * 10
        y = lambda v: T + ph - ph * (math.log10(v) - math.log10(lo)) / (math.log10(hi) - math.log10(lo))  # noqa
        ticks = [lo * 10 ** i for i in range(int(round(math.log10(hi / lo))) + 1)]
    else:
        top = max(vals) * 1.1
        mag = 10 ** math.floor(math.log10(top))
        step = next(s * mag for s in (0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5) if top / (s * mag) <= 6)
        hi = step * math.ceil(top / step)
        y = lambda v: T + ph - ph * v / hi  # noqa
        ticks = [step * i for i in range(int(round(hi / step)) + 1)]
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="22" text-anchor="middle" font-size="14">{escape(title)}</text>',
           f'<text x="16" y="{T + ph / 2}" transform="rotate(-90 16 {T + ph / 2})" text-anchor="middle">{escape(ylabel)}</text>']
    for t in ticks:
        yy = y(t)
        out.append(f'<line x1="{L}" x2="{L + pw}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#ddd"/>')
        label = f"{t:,.0f}" if t >= 1 or t == 0 else f"{t:g}"
        out.append(f'<text x="{L - 6}" y="{yy + 4:.1f}" text-anchor="end">{escape(label)}</text>')
    gw = pw / len(groups)
    bw = gw * 0.8 / len(series)
    base = T + ph
    for gi, gname in enumerate(groups):
        x0 = L + gi * gw + gw * 0.1
        for si, s in enumerate(series):
            v = values.get((gname, s))
            if not v:
                continue
            yy = y(v)
            out.append(f'<rect x="{x0 + si * bw:.1f}" y="{yy:.1f}" width="{bw - 1:.1f}" height="{base - yy:.1f}" '
                       f'fill="{COLORS.get(s, "#888")}"><title>{escape(s)} {escape(gname)}: {fmt(v)}</title></rect>')
        cx = L + gi * gw + gw / 2
        words = gname.split("_")
        lines = [" ".join(words[:1]), " ".join(words[1:])] if len(words) > 1 else [gname]
        for li, text in enumerate(lines):
            out.append(f'<text x="{cx:.1f}" y="{base + 16 + 14 * li}" text-anchor="middle">{escape(text)}</text>')
    out.append(f'<line x1="{L}" x2="{L + pw}" y1="{base}" y2="{base}" stroke="black"/>')
    for si, s in enumerate(series):
        yy = T + 10 + si * 18
        out.append(f'<rect x="{L + pw + 15}" y="{yy - 10}" width="12" height="12" fill="{COLORS.get(s, "#888")}"/>')
        out.append(f'<text x="{L + pw + 32}" y="{yy}">{escape(s)}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return True


FIXED_OPS = "ops fixed in advance"  # in the note of a mix row of a fixed-operation run (older runs: fixed time)


def mix_design(rows, ds, phase):
    """'ops' if every mix row of (ds, phase) comes from a fixed-operation run,
    'time' if every one from an older fixed-time run, 'both' if the files mix
    them, None without mix rows."""
    kinds = {FIXED_OPS in r.get("note", "") for k, r in rows.items()
             if k[1] == ds and k[2] == phase and ":" not in k[3]}
    return None if not kinds else "both" if len(kinds) == 2 else "ops" if kinds == {True} else "time"


MIX_WHY = {
    "ops": "Each mix is a fixed number of operations (the `n` of its rows), drawn before the run from seeds that "
           "depend only on the mix and the worker, so every system receives the same operations and each store "
           "grows by the same edges: later look-ups read the same lists on every system. Throughput is the "
           "operations / the wall time from the common start to the last worker's end (after a read-only "
           "warm-up).",
    "time": "These mixes ran for a fixed time (older files): each AddEdge adds an edge, so a faster system added "
            "more edges and its later look-ups (and later mixes, on the same store) read longer lists; the "
            "comparison is tilted against the faster system. Current runs use a fixed number of operations.",
    "both": "The files hold both fixed-operation mixes (the same operations, so the same graph growth, on every "
            "system) and older fixed-time mixes (where a faster system grew its store more): compare rows of the "
            "same kind only (the note of each mix row says which).",
}


CLIENTS = {
    "": {"name": "Python client", "one": "client process", "many": "processes", "col": "procs", "p": "p"},
    "-java": {"name": "Java client", "one": "client thread", "many": "threads", "col": "threads", "p": "t"},
}


def client_sections(rows, ds, syss, peers, sfx, a):
    """Mixes, latency and ceiling of one client: phases mix, latency, ceiling
    (Python, aster.py) or mix-java, latency-java, ceiling-java (AsterJava)."""
    md = []
    cl = CLIENTS[sfx]
    get = lambda s, ph, op, p: rows.get((s, ds, ph + sfx, op, p))  # noqa: E731
    if not any(k[1] == ds and k[2] in (ph + sfx for ph in ("mix", "latency", "ceiling")) for k in rows):
        return md
    if any(k[1] == ds and k[2].endswith("-java") for k in rows):  # both clients: a heading each
        if sfx:
            md += [f"#### {cl['name']}: gremlin-driver 3.8.1", "",
                   "The same operations and checks, sent by TinkerPop's Java driver (GraphBinary 1.0, bytecode) "
                   "from Java threads (no GIL), each thread its own WebSocket connection, on the store the Python "
                   "client loaded and then used (bench/aster/README.md). `threads` is the number of client "
                   "threads.", ""]
        else:
            md += [f"#### {cl['name']}: gremlinpython", ""]
    # Mixes
    procs = sorted({k[4] for k in rows if k[1] == ds and k[2] == "mix" + sfx})
    mixes = sorted({k[3] for k in rows if k[1] == ds and k[2] == "mix" + sfx and ":" not in k[3]},
                   key=lambda m: int(m[3:]))
    body, chart = [], {}
    for p in procs:
        for m in mixes:
            vals = {s: get(s, "mix", m, p) for s in syss}
            line = [f"{m[3:]}%", p]
            for s in syss:
                r = vals[s]
                v = num(r["ops_per_s"]) if r else None
                chart[(f"{m[3:]}% {cl['p']}={p}", s)] = v
                line.append(fmt(v) + (flag(r) if r else ""))
            sv = num(vals["stratagraph"]["ops_per_s"]) if vals.get("stratagraph") else None
            for peer in peers:
                pv = num(vals[peer]["ops_per_s"]) if vals.get(peer) else None
                line.append(ratio(sv, pv))
            body.append(line)
    if body:
        md += ["Mixes of GetNeighbors (look-ups) and AddEdge, throughput in ops/s summed over the client "
               f"{cl['many']}. " + MIX_WHY[mix_design(rows, ds, "mix" + sfx)], "",
               table(["look-ups", cl["col"]] + syss + [f"× vs {p}" for p in peers], body), ""]
        if not a.no_charts and svg_bars(os.path.join(a.charts_dir, f"aster-{ds}-mixes{sfx}.svg"),
                                        f"{ds}: AddEdge/GetNeighbors mixes, {cl['name']} (ops/s, more is better)",
                                        [g for g in dict.fromkeys(k[0] for k in chart)], syss, chart, "ops/s"):
            md += [f"![{ds} mixes, {cl['name']}](bench/aster-{ds}-mixes{sfx}.svg)", ""]
        body = []
        for p in procs:
            for m in mixes:
                for kind in ("get_neighbors", "add_edge"):
                    line = [f"{m[3:]}%", p, kind]
                    for s in syss:
                        r = get(s, "mix", f"{m}:{kind}", p)
                        line.append(f"{fmt(num(r['p50_ms']))} / {fmt(num(r['p99_ms']))}" if r else "–")
                    body.append(line)
        md += ["Latency within the mixes, p50 / p99 ms:", "",
               table(["look-ups", cl["col"], "op"] + syss, body), ""]
    # Latency
    body, chart = [], {}
    for op in LAT_OPS:
        vals = {s: get(s, "latency", op, 1) for s in syss}
        if not any(vals.values()):
            continue
        line = [op, next((r["n_ops"] for r in vals.values() if r), "")]
        for s in syss:
            r = vals[s]
            line.append(f"{fmt(num(r['p50_ms']))} / {fmt(num(r['p99_ms']))} / {fmt(num(r['mean_ms']))}"
                        + flag(r) if r else "–")
            chart[(op, s)] = num(r["p50_ms"]) if r else None
        for peer in peers:
            sv = num(vals["stratagraph"]["p50_ms"]) if vals.get("stratagraph") else None
            pv = num(vals[peer]["p50_ms"]) if vals.get(peer) else None
            line.append(ratio(pv, sv))
        body.append(line)
    if body:
        md += [f"Latency of single operations, one {cl['one']}, p50 / p99 / mean ms (ratios on p50):", "",
               table(["op", "n"] + syss + [f"× vs {p}" for p in peers], body), ""]
        if not a.no_charts and svg_bars(os.path.join(a.charts_dir, f"aster-{ds}-latency{sfx}.svg"),
                                        f"{ds}: latency p50, {cl['name']} (ms, log scale, less is better)",
                                        [op for op in LAT_OPS if any(chart.get((op, s)) for s in syss)],
                                        syss, chart, "ms", log=True):
            md += [f"![{ds} latency, {cl['name']}](bench/aster-{ds}-latency{sfx}.svg)", ""]
    # Ceiling
    body = []
    for p in sorted({k[4] for k in rows if k[1] == ds and k[2] == "ceiling" + sfx}):
        body.append([p] + [fmt(num(get(s, "ceiling", "noop", p)["ops_per_s"])) if get(s, "ceiling", "noop", p)
                           else "–" for s in syss])
    if body:
        md += [f"The client's ceiling: `g.inject(1)` no-ops per second from P {cl['many']} (no mix can beat it):", "",
               table([cl["col"]] + syss, body), ""]
    return md


def clients_compared(rows, ds, syss):
    """Python client beside Java client, where both ran: ops/s of the mixes
    and the ceiling, p50 of the single operations."""
    md = []
    get = lambda s, ph, op, p: rows.get((s, ds, ph, op, p))  # noqa: E731
    if not any(k[1] == ds and k[2].endswith("-java") for k in rows):
        return md
    body = []
    keys = sorted({(k[2], k[3], k[4]) for k in rows if k[1] == ds and k[2] in ("mix", "ceiling")
                   and ":" not in k[3]}, key=lambda x: (x[0] != "mix", x[2], x[1]))
    for ph, op, p in keys:
        line = [op if ph == "mix" else "no-op ceiling", p]
        seen = False
        for s in syss:
            py, jv = get(s, ph, op, p), get(s, ph + "-java", op, p)
            pv, jvv = (num(py["ops_per_s"]) if py else None), (num(jv["ops_per_s"]) if jv else None)
            seen = seen or bool(pv and jvv)
            line.append(f"{fmt(pv)} / {fmt(jvv)} ({ratio(jvv, pv)})")
        if seen:
            body.append(line)
    if body:
        md += ["#### Python client vs Java client", "",
               "Throughput in ops/s, Python client / Java client (× = Java ÷ Python), with P client processes or "
               "threads. The Java client ran second, on a store the Python mixes had grown"
               + {"ops": " (by the same edges on every system: fixed operations)",
                  "time": " (by more edges on a faster system: fixed-time mixes)"}.get(mix_design(rows, ds, "mix"), "")
               + ":", "",
               table(["run", "P"] + syss, body), ""]
    body = []
    for op in LAT_OPS:
        line, seen = [op], False
        for s in syss:
            py, jv = get(s, "latency", op, 1), get(s, "latency-java", op, 1)
            pv, jvv = (num(py["p50_ms"]) if py else None), (num(jv["p50_ms"]) if jv else None)
            seen = seen or bool(pv and jvv)
            line.append(f"{fmt(pv)} / {fmt(jvv)} ({ratio(pv, jvv)})")
        if seen:
            body.append(line)
    if body:
        md += ["Latency p50 ms, Python client / Java client (× = Python ÷ Java: how much of the Python figure is "
               "the Python client):", "", table(["op"] + syss, body), ""]
    return md


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--charts-dir", default=os.path.join(ROOT, "docs", "bench"))
    ap.add_argument("--no-charts", action="store_true")
    ap.add_argument("--into", help="also write the section into this markdown file (docs/BENCHMARKS.md), "
                    "replacing the one an earlier run wrote there (bench/docsections.py)")
    a = ap.parse_args()
    rows, comments = read(a.files)
    if not a.no_charts:
        os.makedirs(a.charts_dir, exist_ok=True)
    datasets = sorted({k[1] for k in rows}, key=lambda d: ({"grateful": 0}.get(d, 1), d))
    md = ["## Gremlin over the wire: the Aster (Poly-LSM) experiment", "",
          "The same Python client (gremlinpython, bytecode requests) against each server, one system at a time "
          "(bench/aster/README.md). Ratios: how many times stratagraph is ahead "
          "(its ops/s ÷ the peer's; the peer's latency ÷ stratagraph's). ✗ marks a failed check.", ""]
    for path in a.files:
        md.append(f"- `{os.path.relpath(path, ROOT)}`")
        for c in comments[path]:
            if c.startswith(("machine:", "client:", "system ", "dataset ")):
                md.append(f"  - {c}")
    md.append("")
    for ds in datasets:
        syss = systems_of(rows, ds)
        peers = [s for s in syss if s != "stratagraph"]
        get = lambda s, ph, op, p: rows.get((s, ds, ph, op, p))  # noqa: E731
        md += [f"### {ds}", ""]
        # Load
        body, load_rates = [], {}
        for s in syss:
            for op in ("add_vertex", "add_edge"):
                for k in sorted(k for k in rows if k[:4] == (s, ds, "load", op)):
                    r = rows[k]
                    load_rates[(s, op)] = num(r["ops_per_s"])
                    body.append([s, op, k[4], r["n_ops"], fmt(num(r["seconds"])) + " s",
                                 fmt(num(r["ops_per_s"])) + flag(r), fmt(num(r["p50_ms"])), fmt(num(r["p99_ms"])),
                                 r.get("retries", "0")])
        if body:
            md += ["Load, one request per vertex then per edge:", "",
                   table(["system", "op", "procs", "n", "time", "ops/s", "p50 ms", "p99 ms", "retries"], body), ""]
            est = []
            for s in syss:
                v, e = load_rates.get((s, "add_vertex")), load_rates.get((s, "add_edge"))
                if v and e:
                    est.append(f"{s} {(65536 / v + 955344 / e) / 60:.0f} min")
            if est:
                md += ["At these rates a full k16 load (65,536 vertices, 955,344 edges) takes: " + ", ".join(est) + ".", ""]
        for sfx in CLIENTS:
            md += client_sections(rows, ds, syss, peers, sfx, a)
        md += clients_compared(rows, ds, syss)
        # Checks
        bad = [r for k, r in rows.items() if k[1] == ds and r.get("check", "ok") not in ("ok", "", "skipped")]
        if bad:
            md += ["Failed checks:", ""] + [f"- {r['system']} {r['phase']} {r['op']} procs {r['procs']}: "
                                            f"{r['check']} ({r['note']})" for r in bad] + [""]
        else:
            md += ["Every check passed (counts after load and after each write run, adjacency lists of samples "
                   "against the file, answers of every latency sample).", ""]
    print("\n".join(md))
    if a.into:
        sys.path.insert(0, os.path.join(ROOT, "bench"))
        import docsections
        text = open(a.into).read() if os.path.exists(a.into) else ""
        with open(a.into, "w") as f:
            f.write(docsections.replace(text, "gremlin-server", "bench/aster/report.py", "\n".join(md)))
        print(f"wrote the gremlin-server section of {a.into}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
