"""What every interchange driver shares: the W1 inputs and their reference
figures, the checks, the timing loop and the TSV rows.

A driver runs one system's operations (import from Parquet, export to
Parquet, Arrow in and out where the system has them) `--runs` times each,
checks every result against figures computed from /work/data/kS.bin
before its time counts (edge count, sum of sources, sum of destinations,
and an exact checksum of the W1 weights), and prints one TSV row per
operation:

    system  op  scale  edges  seconds_median  edges_per_s  runs  note

Needs numpy only (pyarrow where a driver reads or writes Parquet), so it
imports in every system's virtual environment.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
COLUMNS = ["system", "op", "scale", "edges", "seconds_median", "edges_per_s", "runs", "note"]


class Mismatch(Exception):
    """A result that disagrees with the input: the run does not count."""


# W1's weights and its binary edge files, as every W1 peer reads them.
sys.path.insert(0, os.path.join(HERE, "..", "peers"))
from w1common import _pairs as read_pairs  # noqa: E402
from w1common import machine_header as w1_machine_header  # noqa: E402
from w1common import significant  # noqa: E402
from w1common import w1_weights  # noqa: E402


def weight_code_sum(w):
    """An exact checksum of W1 weights: each is 1 + k/255 for an integer
    k in 0..254, so sum(k) is an integer that any reordering keeps and any
    changed, lost or doubled weight changes."""
    w = np.asarray(w, dtype=np.float64)
    k = np.rint((w - 1.0) * 255.0)
    if k.size and (k.min() < 0 or k.max() > 254 or np.abs((w - 1.0) * 255.0 - k).max() > 1e-6):
        raise Mismatch("weights are not W1 weights (1 + k/255)")
    return int(k.astype(np.int64).sum())


def checksum(src, dst, w=None):
    """{edges, sum_src, sum_dst[, wsum]} of edge arrays (any order)."""
    src = np.asarray(src)
    dst = np.asarray(dst)
    out = {"edges": int(len(src)), "sum_src": int(src.astype(np.int64).sum()),
           "sum_dst": int(dst.astype(np.int64).sum())}
    if w is not None:
        out["wsum"] = weight_code_sum(w)
    return out


class Reference:
    """The figures of kS.bin (and kS.ref.json's vertex count) that every
    result is checked against."""

    def __init__(self, data, scale):
        base = os.path.join(data, f"k{scale}")
        with open(base + ".ref.json") as f:
            ref = json.load(f)
        src, dst = read_pairs(base + ".bin")
        if len(src) != ref["edges"]:
            raise Mismatch(f"{base}.bin holds {len(src)} edges, reference {ref['edges']}")
        self.scale = scale
        self.n = int(ref["vertices"])
        self.m = int(len(src))
        self.sums = checksum(src, dst, w1_weights(src, dst))
        # Vertices that are an end of some edge (what a load of the edges
        # alone creates).
        seen = np.zeros(self.n, dtype=bool)
        seen[src] = True
        seen[dst] = True
        self.touched = int(seen.sum())

    def check(self, what, got, want_edges=True):
        """Raises Mismatch unless checksum dict `got` equals the input's
        (the keys it has); returns a short description of what was checked."""
        for k, v in got.items():
            if self.sums[k] != v:
                raise Mismatch(f"{what}: {k} = {v}, input {self.sums[k]}")
        return "checked " + ",".join(got)

    def expect(self, what, got, want):
        if got != want:
            raise Mismatch(f"{what}: got {got}, expected {want}")


def inputs_dir(data, scale, given=None):
    return given or os.path.join(data, "interchange", f"k{scale}")


def input_files(folder):
    nodes, edges = os.path.join(folder, "nodes.parquet"), os.path.join(folder, "edges.parquet")
    for p in (nodes, edges):
        if not os.path.exists(p):
            sys.exit(f"{p} is missing: run bench/interchange/gen_parquet.py first (run.sh does)")
    return nodes, edges


def machine_header(system, version):
    """W1's header (machine, build, commit) and the load average at start:
    these runs share the machine with other work."""
    try:
        load = " ".join(open("/proc/loadavg").read().split()[:3])
    except OSError:
        load = "unknown"
    return w1_machine_header(system, version) + [f"# load average at start: {load}"]




def median(xs):
    return statistics.median(xs)


class Rows:
    """Rows echoed as they come and written to --out at the end."""

    def __init__(self, system, version, ref, notes):
        self.system, self.version, self.ref = system, version, ref
        self.lines = machine_header(system, version) + [
            f"# input: W1 k{ref.scale} ({ref.n} vertices, {ref.m} edges)"] + [
            f"# note: {n}" for n in notes]
        self.lines.append("\t".join(COLUMNS))
        print("\n".join(self.lines), flush=True)
        self.failed = []

    def row(self, op, secs, edges, note):
        med = median(secs)
        line = "\t".join([self.system, op, str(self.ref.scale), str(edges), significant(med),
                          significant(edges / med if med > 0 else float("nan")), str(len(secs)),
                          note.replace("\t", " ")])
        self.lines.append(line)
        print(line, flush=True)

    def na(self, op, reason):
        if not reason.startswith("n/a"):
            reason = "n/a: " + reason
        line = "\t".join([self.system, op, str(self.ref.scale), "-", "n/a", "n/a", "0",
                          reason.replace("\t", " ")])
        self.lines.append(line)
        print(line, flush=True)

    def fail(self, op, e):
        """An operation that raised or whose result did not check: a row
        saying so (no time), and a non-zero exit at the end."""
        self.failed.append(op)
        self.na(op, f"n/a: FAILED: {type(e).__name__}: {e}")

    def save(self, path):
        if path:
            with open(path, "w") as f:
                f.write("\n".join(self.lines) + "\n")
            print(f"rows written to {path}", flush=True)
        if self.failed:
            sys.exit(f"{self.system}: failed: {', '.join(self.failed)}")


def measure(runs, once):
    """Calls once() `runs` times; once returns (seconds, extras) after
    checking its own result (raising Mismatch if wrong). Returns the list
    of seconds and the extras of every run."""
    secs, extras = [], []
    for _ in range(runs):
        s, x = once()
        secs.append(s)
        extras.append(x)
    return secs, extras


def clock():
    return time.perf_counter()


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def parse_args(name):
    ap = argparse.ArgumentParser(description=f"Parquet/Arrow interchange on {name}")
    ap.add_argument("--data", default="/work/data", help="folder of the W1 files kS.bin, kS.ref.json")
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--inputs", default=None,
                    help="folder of nodes.parquet and edges.parquet (default DATA/interchange/kS)")
    ap.add_argument("--scratch", default=None,
                    help="folder for exports and databases (default DATA/interchange/scratch)")
    ap.add_argument("--out", default=None, help="TSV file to write the rows to")
    a = ap.parse_args()
    a.inputs = inputs_dir(a.data, a.scale, a.inputs)
    a.scratch = a.scratch or os.path.join(a.data, "interchange", "scratch")
    os.makedirs(a.scratch, exist_ok=True)
    return a


# ---------------------------------------------------------------------------
# For the in-memory libraries (networkit, igraph): the inputs as numpy
# arrays, and edge arrays out to Parquet.

def read_parquet_arrays(nodes_path, edges_path):
    """pq.read_table of both files -> (n, src, dst, weight) numpy arrays
    (zero-copy where a column is one chunk without nulls). n is the node
    file's row count: these libraries number vertices 0..n-1, which the
    W1 ids are (dense_ids checks it, untimed)."""
    import pyarrow.parquet as pq
    nodes = pq.read_table(nodes_path)
    edges = pq.read_table(edges_path, columns=["src", "dst", "weight"])
    cols = [edges.column(i).to_numpy() for i in range(3)]
    return nodes.num_rows, cols[0], cols[1], cols[2]


def warm(*paths):
    """Reads the input files once, untimed, so every system starts from
    the page cache, and (where pyarrow is there) has pyarrow's Parquet
    reader and thread pool started before the first timed read."""
    for p in paths:
        with open(p, "rb") as f:
            while f.read(1 << 24):
                pass
    try:
        import pyarrow.parquet as pq
    except ImportError:
        return
    for p in paths:
        pq.read_table(p)


def dense_ids(nodes_path):
    """Raises unless nodes.parquet's ids are 0..n-1 in order."""
    import pyarrow.parquet as pq
    ids = pq.read_table(nodes_path).column("id").to_numpy()
    if not np.array_equal(ids, np.arange(len(ids))):
        raise Mismatch(f"{nodes_path}: ids are not 0..n-1; this driver does not remap ids")


def write_edges_parquet(path, src, dst, w):
    """Edge arrays -> a pyarrow Table (src, dst int64, weight double) ->
    one Snappy Parquet file, as gen_parquet.py writes the inputs."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    t = pa.table({"src": pa.array(src, type=pa.int64()), "dst": pa.array(dst, type=pa.int64()),
                  "weight": pa.array(w, type=pa.float64())})
    pq.write_table(t, path, compression="snappy")


def check_parquet_edges(ref, path):
    """Reads an exported edge file back with pyarrow and checks it."""
    import pyarrow.parquet as pq
    t = pq.read_table(path)
    return ref.check("export", checksum(t.column(0).to_numpy(), t.column(1).to_numpy(),
                                        t.column(2).to_numpy()))


def run_array_library(system, version, notes, imports, edge_arrays, check_graph, export_how):
    """The whole run of a library that builds graphs from numpy arrays
    (networkit, igraph): each of `imports` (op, build(n, s, d, w), how)
    reads the Parquet inputs into arrays and builds a graph, timed
    together; then the last graph built is written back to Parquet
    through `edge_arrays(g) -> (src, dst, weight)` and pyarrow."""
    import gc
    import shutil
    import tempfile

    a = parse_args(system)
    ref = Reference(a.data, a.scale)
    nodes, edges = input_files(a.inputs)
    dense_ids(nodes)
    warm(nodes, edges)
    rows = Rows(system, version, ref, [n.format(nodes=nodes, edges=edges) for n in notes])
    m = ref.m
    kept = None
    for op, build, how in imports:
        try:
            def once():
                nonlocal kept
                kept = None
                gc.collect()
                t0 = clock()
                n, s, d, w = read_parquet_arrays(nodes, edges)
                t1 = clock()
                g = build(n, s, d, w)
                t2 = clock()
                check = check_graph(g, ref)
                kept = g
                return t2 - t0, (t1 - t0, t2 - t1, check)
            secs, ex = measure(a.runs, once)
            rows.row(op, secs, m, f"nodes+edges; pq.read_table+to_numpy {median([x[0] for x in ex]):.3f}s + "
                                  f"{how} {median([x[1] for x in ex]):.3f}s (medians); {ex[-1][2]}")
        except Exception as e:
            rows.fail(op, e)

    root = tempfile.mkdtemp(prefix=f"interchange-{system}-", dir=a.scratch)
    try:
        if kept is None:
            raise RuntimeError("no graph to export (the imports failed)")
        g = kept
        out = os.path.join(root, "edges.parquet")

        def once():
            if os.path.exists(out):
                os.remove(out)
            t0 = clock()
            s, d, w = edge_arrays(g)
            t1 = clock()
            write_edges_parquet(out, s, d, w)
            t2 = clock()
            return t2 - t0, (t1 - t0, check_parquet_edges(ref, out), os.path.getsize(out))
        secs, ex = measure(a.runs, once)
        rows.row("export_parquet", secs, m,
                 f"{export_how} {median([x[0] for x in ex]):.3f}s, then pyarrow -> Parquet; "
                 f"{ex[-1][2]} bytes; read back: {ex[-1][1]}")
    except Exception as e:
        rows.fail("export_parquet", e)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    rows.save(a.out)
