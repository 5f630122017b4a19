"""What every W1 peer driver shares: the files, the reference figures, the
row format and the order and rules of the operations.

A driver only says how its library does each primitive (load, insert,
look up, scan, kernels); `run` measures them the way `stratagraph bench w1`
does (fresh graph per run, median of --runs, every result checked against
the generator's reference figures before its time counts) and prints the
same TSV rows with the same checksums, so result files can be compared
line by line. An operation a library cannot do gets an `n/a` row with the
reason; one that would take longer than --budget seconds is stopped and
gets an `n/a` row saying how far it got and at what rate.
"""
import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
# WORKLOAD.md's figures that kS.ref.json lacks: scale -> (triangles, PageRank top).
WORKLOAD_TABLE = {16: (15_588_932, 16_657), 20: (424_267_437, 897_293)}
BATCH_SIZES = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000]
KERNELS = ["bfs", "pr", "wcc", "sssp"]


class Mismatch(Exception):
    """A result that disagrees with the reference: the run is invalid."""


class OverBudget(Exception):
    def __init__(self, done, total, secs):
        super().__init__(f"{done} of {total} in {secs:.1f}s")
        self.done, self.total, self.secs = done, total, secs

    def reason(self, unit):
        rate = self.done / self.secs if self.secs > 0 else 0.0
        eta = self.total / rate if rate > 0 else float("inf")
        return (f"n/a: stopped at the time budget: {self.done} of {self.total} {unit} in "
                f"{self.secs:.0f}s ({rate:.4g}/s; the whole would take ~{eta:.0f}s)")


def w1_weights(src, dst):
    u = src.astype(np.uint64)
    v = dst.astype(np.uint64)
    h = (u * np.uint64(2654435761)) ^ (v * np.uint64(40503))
    return 1.0 + (h % np.uint64(255)).astype(np.float64) / 255.0


def _pairs(path):
    a = np.fromfile(path, dtype="<u4")
    if a.size % 2:
        sys.exit(f"{path}: truncated")
    return a[0::2].astype(np.int64), a[1::2].astype(np.int64)


def reference(data, scale):
    """kS.ref.json with the figures it lacks (triangles, PageRank's top
    vertex, the sum of destinations after the ops) from WORKLOAD.md's table
    or kS.ref_extra.json."""
    base = os.path.join(data, f"k{scale}")
    with open(base + ".ref.json") as f:
        ref = json.load(f)
    extra = {}
    if os.path.exists(base + ".ref_extra.json"):
        with open(base + ".ref_extra.json") as f:
            extra = json.load(f)
    tri, top = WORKLOAD_TABLE.get(scale, (extra.get("triangles"), extra.get("pagerank_top")))
    ref["triangles"], ref["pagerank_top"] = tri, top
    ref["sum_dst_after_ops"] = extra.get("sum_dst_after_ops")
    return ref


class Work:
    """The W1 files of one scale, read once."""

    def __init__(self, data, scale):
        base = os.path.join(data, f"k{scale}")
        self.graph = f"k{scale}"
        self.ref = reference(data, scale)
        self.n = self.ref["vertices"]
        self.src, self.dst = _pairs(base + ".bin")
        self.m = len(self.src)
        if self.m != self.ref["edges"]:
            raise Mismatch(f"{base}.bin holds {self.m} edges, reference {self.ref['edges']}")
        self.w = w1_weights(self.src, self.dst)
        us, ud = _pairs(base + "_u.bin")
        keep = us < ud
        self.usrc, self.udst = us[keep], ud[keep]
        ops = np.fromfile(base + ".ops.bin", dtype="<u4").reshape(-1, 3).astype(np.int64)
        self.ops = ops
        self.ops_w = w1_weights(ops[:, 1], ops[:, 2])
        self.ssrc, self.sdst = _pairs(base + ".search.bin")
        self.perm = np.fromfile(base + ".perm.bin", dtype="<u4").astype(np.int64)
        self.split = self.m * 4 // 5


def machine_header(system, version):
    cpu = "unknown"
    mem = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
        with open("/proc/meminfo") as f:
            mem = next(l.split(":", 1)[1].strip() for l in f if l.startswith("MemTotal"))
    except (OSError, StopIteration):
        pass
    try:
        commit = subprocess.run(["git", "-C", HERE, "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    return [
        f"# cpu: {cpu}",
        f"# cores: {os.cpu_count()}",
        f"# memory: {mem}",
        f"# kernel: {platform.release()}",
        f"# build: python {platform.python_version()}, {system} {version}",
        f"# commit: {commit}",
    ]


def significant(v):
    if v != v:
        return "n/a"
    if v == 0 or v in (float("inf"), float("-inf")):
        return str(v)
    import math
    digits = 4 - 1 - math.floor(math.log10(abs(v)))
    return f"{v:.{max(digits, 0)}f}"


class Rows:
    """Rows echoed as they come and written to --out at the end."""

    def __init__(self, system, version, graph, notes):
        self.system, self.version, self.graph = system, version, graph
        self.lines = machine_header(system, version) + notes
        self.lines.append("system\tversion\tgraph\top\tthreads\tvalue\tunit\tchecksum")
        print("\n".join(self.lines), flush=True)
        self.values = {}

    def row(self, op, threads, value, unit, checksum):
        line = "\t".join([self.system, self.version, self.graph, op, str(threads),
                          significant(value), unit, checksum])
        self.lines.append(line)
        self.values[(op, threads)] = value
        print(line, flush=True)

    def na(self, op, threads, reason):
        if not reason.startswith("n/a: "):
            reason = "n/a: " + reason
        self.row(op, threads, float("nan"), "-", reason.replace("\t", " "))

    def save(self, path):
        if path:
            with open(path, "w") as f:
                f.write("\n".join(self.lines) + "\n")
            print(f"rows written to {path}", flush=True)


def rss_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def dir_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                pass
    return total


def percentiles_us(samples_ns):
    s = np.sort(np.asarray(samples_ns, dtype=np.int64))
    out = []
    for q in (0.50, 0.99, 0.999):
        rank = min(max(int(np.ceil(q * len(s))), 1), len(s))
        out.append(s[rank - 1] / 1e3)
    return out


def expect(what, got, want):
    if got != want:
        raise Mismatch(f"{what}: got {got}, reference {want}")
    return f"{what}={got}"


def sssp_checksum(ref, reached, total):
    if reached != ref["sssp_reached"] or abs(total - ref["sssp_dist_sum"]) > 1e-6 * ref["sssp_dist_sum"]:
        raise Mismatch(f"sssp reached {reached} sum {total}, reference "
                       f"{ref['sssp_reached']} {ref['sssp_dist_sum']}")
    return f"reached={reached};sum={total:.3f}"


class _Budget:
    """Decides when a loop looks at the clock. Checking after every call
    would add a clock read to fast calls; checking every 64 calls let a
    library whose single call takes a second (igraph's add_edges at scale
    20) run a minute past its budget. So the gap between checks is sized
    from the rate seen so far to about 20 ms of work."""

    def __init__(self, count, budget):
        self.count, self.budget = count, budget
        self.start = time.perf_counter()
        self.next = 0

    def check(self, i):
        if i < self.next:
            return
        spent = time.perf_counter() - self.start
        if spent > self.budget:
            raise OverBudget(i + 1, self.count, spent)
        per_call = spent / (i + 1)
        self.next = i + (4096 if per_call <= 0 else max(1, min(4096, int(0.02 / per_call))))


def stream(count, op, budget, timed=False):
    """Calls op(i) for i in 0..count; returns per-call ns if timed. Stops
    with OverBudget once `budget` seconds have passed."""
    samples = []
    clock = time.perf_counter_ns
    limit = _Budget(count, budget)
    for i in range(count):
        if timed:
            t = clock()
            op(i)
            samples.append(clock() - t)
        else:
            op(i)
        limit.check(i)
    return samples


def stream_results(count, op, budget):
    """[op(i) for i in 0..count], stopped with OverBudget past `budget`
    seconds."""
    out = []
    limit = _Budget(count, budget)
    for i in range(count):
        out.append(op(i))
        limit.check(i)
    return out


def parse_args(name, scales=None):
    ap = argparse.ArgumentParser(description=f"W1 workload on {name}")
    ap.add_argument("--data", default="/work/data")
    ap.add_argument("--scale", type=int, default=16)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--threads", default="1,2", help="thread counts for the kernels, where the library has threads")
    ap.add_argument("--budget", type=float, default=60.0,
                    help="seconds one operation may take before it is stopped and reported n/a")
    ap.add_argument("--scratch", default=None, help="folder for on-disk stores (default: --data)")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    if scales and a.scale not in scales:
        sys.exit(f"{name} runs at scale {' or '.join(map(str, scales))} only (it is a reference, not a contender)")
    a.threads = [int(t) for t in a.threads.split(",") if t]
    a.scratch = a.scratch or a.data
    return a


class Peer:
    """How one library does W1's primitives. `na` maps an operation (or
    group: insert_single_2, batch_sizes, mixed_rw, kernels) it cannot do to
    the reason; `threads` are the thread counts its kernels can use."""

    name = "peer"
    version = "?"
    na = {}
    kernel_threads = False

    def set_threads(self, t):
        pass

    def prepare(self, w):
        """Untimed set-up from the workload (input files a bulk loader reads)."""

    def load(self, w, src, dst, wt):
        """Every driver must load the graph (abstract)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement load")

    def close(self, g):
        pass

    def disk_bytes(self, g):
        return None

    def edge_count(self, g):
        """Every driver must count its edges (abstract)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement edge_count")

    def load_undirected(self, w, src, dst):
        """Drivers with graph kernels load the undirected graph for TC; `run`
        calls this only when TC is not marked n/a (abstract)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement load_undirected")


def median(xs):
    return statistics.median(xs)


def run(peer, w, a):
    """Runs W1 on `peer` in WORKLOAD.md's order (delete_mixed last)."""
    notes = [
        f"# workload: W1 {w.graph} from {a.data} ({w.n} vertices, {w.m} edges)",
        f"# runs: {a.runs} per operation, median reported; budget {a.budget:.0f}s per operation",
        f"# peer: {peer.name} {peer.version} through its Python API, driver bench/peers/",
    ] + [f"# note: {n}" for n in getattr(peer, "notes", [])]
    rows = Rows(peer.name, peer.version, w.graph, notes)
    peer.prepare(w)
    ref = w.ref
    edges_check = f"edges={w.m}"
    head = slice(0, w.split)
    tail_n = w.m - w.split

    def na(op, threads=1, key=None):
        reason = peer.na.get(key or op)
        if reason:
            rows.na(op, threads, reason)
            return True
        return False

    # Memory: RSS growth over a bulk load, and the files of an on-disk store.
    before = rss_bytes()
    g = peer.load(w, w.src, w.dst, w.w)
    rows.row("memory_rss", 1, (rss_bytes() - before) / w.m, "bytes/edge", edges_check)
    disk = peer.disk_bytes(g)
    if disk is None:
        rows.na("disk_bytes", 1, "n/a: held in memory only")
    else:
        rows.row("disk_bytes", 1, disk / w.m, "bytes/edge", edges_check)
    peer.close(g)

    secs = []
    for _ in range(a.runs):
        t = time.perf_counter()
        g = peer.load(w, w.src, w.dst, w.w)
        secs.append(time.perf_counter() - t)
        expect("edges", peer.edge_count(g), w.m)
        peer.close(g)
    rows.row("bulk_load", 1, median(secs), "s", edges_check)

    # insert_single on one writer; the graph it leaves is the read graph.
    full = None
    if not na("insert_single"):
        rates, p = [], []
        try:
            for _ in range(a.runs):
                if full is not None:
                    peer.close(full)
                g = peer.load(w, w.src[head], w.dst[head], w.w[head])
                s, d, wt = w.src[w.split:].tolist(), w.dst[w.split:].tolist(), w.w[w.split:].tolist()
                t = time.perf_counter()
                lat = stream(tail_n, lambda i: peer.insert(g, s[i], d[i], wt[i]), a.budget, timed=True)
                rates.append(tail_n / (time.perf_counter() - t))
                expect("edges", peer.edge_count(g), w.m)
                p.append(percentiles_us(lat))
                full = g
            rows.row("insert_single", 1, median(rates), "edges/s", edges_check)
            for i, op in enumerate(["insert_single_p50", "insert_single_p99", "insert_single_p999"]):
                rows.row(op, 1, median([x[i] for x in p]), "us", edges_check)
        except OverBudget as e:
            rows.na("insert_single", 1, e.reason("edges"))
            peer.close(g)
            full = None
    if 2 in a.threads:
        rows.na("insert_single", 2, peer.na.get("insert_single_2", "n/a: no concurrent writers"))
    if full is None:
        full = peer.load(w, w.src, w.dst, w.w)

    # Reads on the graph of kS.bin.
    def timed_read(op, fn, expected, what, rate_of=None, threads=1):
        if na(op, threads):
            return
        secs = []
        try:
            for _ in range(a.runs):
                t = time.perf_counter()
                got = fn()
                secs.append(time.perf_counter() - t)
                expect(f"{op} {what}", got, expected)
        except OverBudget as e:
            rows.na(op, threads, e.reason("items"))
            return
        value, unit = (rate_of / median(secs), "ops/s") if rate_of else (median(secs), "s")
        rows.row(op, threads, value, unit, f"{what}={expected}")

    ssrc, sdst = w.ssrc, w.sdst
    timed_read("search_edge", lambda: peer.search(full, ssrc, sdst, a.budget), len(ssrc), "found",
               rate_of=len(ssrc))
    timed_read("scan_seq", lambda: peer.scan_seq(full, w.n, a.budget), ref["sum_dst"], "sum_dst")
    timed_read("scan_rand", lambda: peer.scan_rand(full, w.perm, a.budget), ref["sum_dst"], "sum_dst")

    source = ref["bfs_source"]
    thread_counts = a.threads if peer.kernel_threads else [1]
    for t in thread_counts:
        peer.set_threads(t)
        for k in KERNELS:
            if na(k, t) or na(k, t, key="kernels"):
                continue
            secs, check = [], ""
            try:
                for _ in range(a.runs):
                    start = time.perf_counter()
                    if k == "bfs":
                        check = expect("bfs_reached", peer.bfs(full, source), ref["bfs_reached"])
                    elif k == "pr":
                        check = expect("pagerank_top_vertex", peer.pr(full), ref["pagerank_top"])
                    elif k == "wcc":
                        check = expect("wcc_components", peer.wcc(full), ref["wcc_components_all_ids"])
                    else:
                        check = sssp_checksum(ref, *peer.sssp(full, source))
                    secs.append(time.perf_counter() - start)
            except OverBudget as e:
                rows.na(k, t, e.reason("steps"))
                continue
            rows.row(k, t, median(secs), "s", check)
    alone_sssp = rows.values.get(("sssp", 1))
    peer.close(full)

    # TC on kS_u.bin.
    if not (na("tc") or na("tc", key="kernels")):
        gu = peer.load_undirected(w, w.usrc, w.udst)
        for t in thread_counts:
            peer.set_threads(t)
            secs, check = [], ""
            try:
                for _ in range(a.runs):
                    start = time.perf_counter()
                    check = expect("triangles", peer.tc(gu, a.budget), ref["triangles"])
                    secs.append(time.perf_counter() - start)
                rows.row("tc", t, median(secs), "s", check)
            except OverBudget as e:
                rows.na("tc", t, e.reason("steps"))
        peer.close(gu)
    peer.set_threads(1)

    # batch_sizes after an 80% load.
    for size in BATCH_SIZES:
        op = f"batch_sizes_{size}"
        if na(op) or na(op, key="batch_sizes"):
            continue
        rates = []
        batches = -(-tail_n // size)
        try:
            for _ in range(a.runs):
                g = peer.load(w, w.src[head], w.dst[head], w.w[head])
                s, d, wt = w.src[w.split:], w.dst[w.split:], w.w[w.split:]
                t = time.perf_counter()
                stream(batches, lambda i: peer.batch(g, s[i * size:(i + 1) * size],
                                                     d[i * size:(i + 1) * size],
                                                     wt[i * size:(i + 1) * size]), a.budget)
                rates.append(tail_n / (time.perf_counter() - t))
                expect("edges", peer.edge_count(g), w.m)
                peer.close(g)
            rows.row(op, 1, median(rates), "edges/s", f"edges={w.m};batches={batches}")
        except OverBudget as e:
            rows.na(op, 1, e.reason("batches"))
            peer.close(g)

    # mixed_rw: one writer, one SSSP reader on fresh snapshots.
    if "mixed_rw" not in peer.na:
        peer.mixed_rw(w, a, rows, rows.values.get(("insert_single", 1)), alone_sssp)
    else:
        for op in ["mixed_rw_insert", "mixed_rw_sssp"]:
            rows.na(op, 2, peer.na["mixed_rw"])

    # delete_mixed, last.
    if not na("delete_mixed"):
        rates = []
        ops = w.ops
        kinds, os_, od, ow = ops[:, 0].tolist(), ops[:, 1].tolist(), ops[:, 2].tolist(), w.ops_w.tolist()
        try:
            for _ in range(a.runs):
                g = peer.load(w, w.src, w.dst, w.w)

                def apply(i):
                    if kinds[i]:
                        peer.insert(g, os_[i], od[i], ow[i])
                    else:
                        peer.delete(g, os_[i], od[i])
                t = time.perf_counter()
                stream(len(kinds), apply, a.budget)
                rates.append(len(kinds) / (time.perf_counter() - t))
                expect("edges after delete_mixed", peer.edge_count(g), ref["edges_after_ops"])
                peer.close(g)
            rows.row("delete_mixed", 1, median(rates), "ops/s", f"edges_after={ref['edges_after_ops']}")
        except OverBudget as e:
            rows.na("delete_mixed", 1, e.reason("ops"))
            peer.close(g)
    rows.save(a.out)
