#!/usr/bin/env python3
"""The client of the Aster (Poly-LSM) Gremlin experiment: the same code for
every system, over the wire, through gremlinpython's bytecode API.

    aster.py load     --url URL --system S --dataset D --ids FILE --out TSV [--procs P] [--max-edges N]
    aster.py latency  --url URL --system S --ids FILE --out TSV [--samples 2000] [--find-samples 50] [--procs 1,8]
    aster.py mixes    --url URL --system S --ids FILE --out TSV [--procs 1,8] [--mix-ops 20000] [--lookups 10,50,90]

`load` creates the dataset's vertices and edges one request each, checks the
counts and a sample of adjacency lists, and writes FILE: the map from the
dataset's vertex numbers to the server's ids, which the later phases (and
their worker processes) read. Every phase appends rows to TSV (bench/aster/README.md
lists the columns); every result is checked, and a failed check is a row
whose `check` column starts with FAIL and a non-zero exit.
"""
import argparse
import json
import multiprocessing as mp
import os
import platform
import random
import sys
import time
from array import array

COLUMNS = ["system", "dataset", "phase", "op", "procs", "n_ops", "seconds", "ops_per_s",
           "p50_ms", "p99_ms", "mean_ms", "retries", "errors", "load_avg", "check", "note"]
MAX_TRIES = 20  # a request the server refuses (code 500: a write conflict) is sent again, at most this often
DATA = os.environ.get("ASTER_DATA", "/work/data")
GRATEFUL = os.environ.get(
    "ASTER_GRATEFUL",
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared/tinkerpop/data/grateful-dead.json"))
LONG_TIMEOUT_MS = 3_600_000  # counts and scans on the slow peers: an hour per request at most


# ---------------------------------------------------------------- datasets

class Dataset:
    """Vertices are numbered 0..n-1 in the order they are created; `vid` (the
    property stored on each vertex) is the dataset's own vertex number.
    Edges are a flat u32 array [src0, dst0, src1, dst1, ...] of positions."""

    def __init__(self, name, vids, edges, source):
        self.name, self.vids, self.edges, self.source = name, vids, edges, source

    @property
    def n(self):
        return len(self.vids)

    @property
    def m(self):
        return len(self.edges) // 2


def load_dataset(name, max_edges=None, touched_only=False):
    if name == "grateful":
        order, edges_by_orig = [], []
        for line in open(GRATEFUL):
            v = json.loads(line)
            vid = v["id"]["@value"] if isinstance(v["id"], dict) else v["id"]
            order.append(vid)
            for _label, es in sorted(v.get("outE", {}).items()):
                for e in es:
                    dst = e["inV"]["@value"] if isinstance(e["inV"], dict) else e["inV"]
                    edges_by_orig.append((vid, dst))
        pos = {vid: i for i, vid in enumerate(order)}
        edges = array("I")
        for s, d in edges_by_orig[:max_edges]:
            edges.append(pos[s])
            edges.append(pos[d])
        vids = list(range(len(order)))
        source = GRATEFUL
    elif name.startswith("k") and name[1:].isdigit():
        scale = int(name[1:])
        source = os.path.join(DATA, f"{name}.bin")
        edges = array("I")
        with open(source, "rb") as f:
            size = os.fstat(f.fileno()).st_size // 8
            count = size if max_edges is None else min(size, max_edges)
            edges.fromfile(f, 2 * count)
        if sys.byteorder != "little":
            edges.byteswap()
        vids = list(range(1 << scale))
    else:
        raise SystemExit(f"unknown dataset {name}")
    if touched_only:
        used = sorted(set(edges))
        pos = {v: i for i, v in enumerate(used)}
        edges = array("I", (pos[x] for x in edges))
        vids = [vids[v] for v in used]
    return Dataset(name, vids, edges, source)


def adjacency_of(ds, sample):
    """Out-neighbour positions (a multiset, sorted) of the vertices in `sample`."""
    want = set(sample)
    adj = {v: [] for v in want}
    e = ds.edges
    for i in range(0, len(e), 2):
        s = e[i]
        if s in want:
            adj[s].append(e[i + 1])
    return adj


def save_ids(path, system, ds, ids, max_edges, touched_only):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump({"system": system, "dataset": ds.name, "max_edges": max_edges,
                   "touched_only": touched_only, "n": ds.n, "m": ds.m, "ids": ids}, f)
    os.replace(tmp, path)


def read_ids(path, with_dataset=True):
    with open(path) as f:
        meta = json.load(f)
    if not with_dataset:
        return meta, None, meta["ids"]
    ds = load_dataset(meta["dataset"], meta["max_edges"], meta["touched_only"])
    assert ds.n == meta["n"] and ds.m == meta["m"], "ids file does not match the dataset"
    return meta, ds, meta["ids"]


# ---------------------------------------------------------------- client

def connect(url, serializer):
    from gremlin_python.driver.driver_remote_connection import DriverRemoteConnection
    from gremlin_python.driver import serializer as ser
    from gremlin_python.process.anonymous_traversal import traversal
    s = ser.GraphSONSerializersV3d0() if serializer == "graphson" else ser.GraphBinarySerializersV1()
    conn = DriverRemoteConnection(url, "g", message_serializer=s, pool_size=1)
    return conn, traversal().with_remote(conn)


def sid(x):
    """A server id as the request carries it: integers as Int64 (TinkerGraph's
    and JanusGraph's ids are longs; gremlinpython sends small ints as Int32)."""
    from gremlin_python.statics import long
    return long(x) if isinstance(x, int) else x


# The operations: one function each, so every system runs the same request.

def op_noop(g):
    return g.inject(1).next()


def op_add_vertex(g, vid):
    return g.addV("v").property("vid", vid).id_().next()


def op_add_edge(g, a, b):
    # count(), not id(): JanusGraph's edge ids (RelationIdentifier) do not decode
    # in gremlinpython; not iterate(): JanusGraph 1.1 refuses the discard() it appends.
    from gremlin_python.process.graph_traversal import __
    return g.V(sid(a)).addE("e").to(__.V(sid(b))).count().next()


def op_delete_edge(g, a, b):
    """Deletes one edge a->b (which must exist); returns how many it deleted."""
    from gremlin_python.process.graph_traversal import __
    return (g.V(sid(a)).outE("e").where(__.inV().hasId(sid(b))).limit(1)
            .sideEffect(__.drop()).count().next())


def op_get_neighbors(g, a):
    return g.V(sid(a)).out("e").id_().to_list()


def op_update_property(g, a, x):
    return g.V(sid(a)).property("score", x).count().next()


def op_find_by_property(g, vid):
    return g.V().has("v", "vid", vid).id_().to_list()


def attempt(fn, g, *args):
    """fn(g, *args), sent again while the server answers 500 (stratagraph's
    write conflicts say "nothing was applied, retry the transaction";
    JanusGraph's lock and commit failures are 500 too). Returns (result,
    retries); raises after MAX_TRIES. The time of an operation includes its
    retries, as a client sees it."""
    from gremlin_python.driver.protocol import GremlinServerError
    for tries in range(MAX_TRIES):
        try:
            return fn(g, *args), tries
        except GremlinServerError as e:
            if e.status_code != 500 or tries == MAX_TRIES - 1:
                raise


def quiet_driver_log():
    import logging
    logging.getLogger("gremlinpython").setLevel(logging.CRITICAL)


def count_v(g):
    return g.with_("evaluationTimeout", LONG_TIMEOUT_MS).V().count().next()


def count_e(g):
    return g.with_("evaluationTimeout", LONG_TIMEOUT_MS).E().count().next()


# ---------------------------------------------------------------- measuring

def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def pct(sorted_ns, q):
    """Nearest-rank percentile of sorted nanoseconds, in ms."""
    if not sorted_ns:
        return float("nan")
    k = max(0, min(len(sorted_ns) - 1, -(-len(sorted_ns) * q // 100) - 1))
    return sorted_ns[int(k)] / 1e6


def stats(lat_ns):
    s = sorted(lat_ns)
    mean = (sum(s) / len(s) / 1e6) if s else float("nan")
    return pct(s, 50), pct(s, 99), mean


class Out:
    def __init__(self, path, system, dataset):
        self.path, self.system, self.dataset = path, system, dataset
        self.failed = False
        has_header = has_machine = False
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    has_header = has_header or line.startswith("system\t")
                    has_machine = has_machine or line.startswith("# machine:")
        with open(path, "a") as f:
            if not has_machine:
                f.write(f"# machine: {machine()}\n")
                f.write(f"# client: {client_version()}\n")
            if not has_header:
                f.write("\t".join(COLUMNS) + "\n")

    def row(self, phase, op, procs, n_ops, seconds, lat_ns=None, retries=0, errors=0, load_avg=None,
            check="", note=""):
        p50 = p99 = mean = float("nan")
        if lat_ns:
            p50, p99, mean = stats(lat_ns)
        ops_s = n_ops / seconds if seconds else float("nan")
        if check.startswith("FAIL"):
            self.failed = True
        vals = [self.system, self.dataset, phase, op, procs, n_ops, f"{seconds:.3f}", f"{ops_s:.1f}",
                f"{p50:.3f}", f"{p99:.3f}", f"{mean:.3f}", retries, errors,
                f"{load_avg if load_avg is not None else loadavg():.2f}", check, note]
        line = "\t".join(str(v) for v in vals)
        with open(self.path, "a") as f:
            f.write(line + "\n")
        print(f"{self.system:12} {phase:8} {op:24} p={procs:<2} n={n_ops:<8} {ops_s:10.1f} ops/s"
              f"  p50 {p50:8.3f} ms  p99 {p99:8.3f} ms  {check}", file=sys.stderr, flush=True)


def machine():
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem = next(l for l in open("/proc/meminfo") if l.startswith("MemTotal")).split()[1]
        mem = f"{int(mem) / 1024 / 1024:.0f} GiB"
    except Exception:
        mem = "?"
    return f"{platform.node()} {platform.system()} {platform.release()}; {cpu}; {os.cpu_count()} cores; {mem}"


def client_version():
    try:
        from importlib.metadata import version
        gp = version("gremlinpython")
    except Exception:
        gp = "?"
    return f"gremlinpython {gp}, Python {platform.python_version()}, bytecode requests, one connection per process"


# ---------------------------------------------------------------- worker processes

def _worker_main(fn, k, args, ready, go, results):
    quiet_driver_log()
    try:
        state = fn("setup", k, args, None)
        ready.put(k)
        go.wait()
        results.put((k, fn("run", k, args, state)))
    except BaseException as e:  # reported to the parent, which fails the phase
        ready.put(k)
        results.put((k, {"exception": f"{type(e).__name__}: {e}"}))


def run_workers(procs, fn, args):
    """Runs fn in `procs` spawned processes (not threads: the GIL would cap the
    client); each connects first, then all start together. Returns the
    wall seconds from the start to the last worker's end and their results."""
    ctx = mp.get_context("spawn")
    ready, results, go = ctx.Queue(), ctx.Queue(), ctx.Event()
    ps = [ctx.Process(target=_worker_main, args=(fn, k, args, ready, go, results)) for k in range(procs)]
    import queue

    def get(q):
        # Waits for q, but not for a worker that died without a word.
        while True:
            try:
                return q.get(timeout=5)
            except queue.Empty:
                if not any(p.is_alive() for p in ps):
                    try:
                        return q.get(timeout=1)
                    except queue.Empty:
                        raise RuntimeError("client worker processes died: "
                                           + ", ".join(str(p.exitcode) for p in ps)) from None

    for p in ps:
        p.start()
    for _ in range(procs):
        get(ready)
    t0 = time.monotonic()
    go.set()
    out = {}
    for _ in range(procs):
        k, r = get(results)
        out[k] = r
    for p in ps:
        p.join()
    errs = [r["exception"] for r in out.values() if "exception" in r]
    if errs:
        raise RuntimeError("worker failed: " + errs[0])
    end = max(r["end"] for r in out.values())
    return end - t0, [out[k] for k in range(procs)]


def w_load_edges(stage, k, a, st):
    if stage == "setup":
        meta, ds, ids = read_ids(a["ids_file"])
        conn, g = connect(a["url"], a["serializer"])
        return conn, g, ds, ids
    conn, g, ds, ids = st
    e, procs = ds.edges, a["procs"]
    lat, bad, retries = array("q"), 0, 0
    pc = time.perf_counter_ns
    for i in range(2 * (a["start"] + k), len(e), 2 * procs):
        t = pc()
        r, tries = attempt(op_add_edge, g, ids[e[i]], ids[e[i + 1]])
        lat.append(pc() - t)
        retries += tries
        if r != 1:
            bad += 1
    end = time.monotonic()
    conn.close()
    return {"end": end, "lat": lat, "bad": bad, "retries": retries}


def mix_counts(total, procs):
    """Operations of each of `procs` workers in a mix of `total`: total // procs
    each, the remainder one more to the first workers."""
    return [total // procs + (1 if k < total % procs else 0) for k in range(procs)]


def mix_plan(seed, lookup_pct, k, n_ops, n):
    """Worker k's operations in a mix, fixed before it runs: exactly
    n_ops * lookup_pct // 100 GetNeighbors, the rest AddEdge, in an order
    shuffled by the worker's own generator, vertices (positions) uniform over
    the n loaded ones. The generator's seed depends only on (seed, look-up
    share, worker index), so every system receives the same operations, and
    the parent knows before the run which edges the mix adds.
    Returns (kinds, xs, ys): kinds[i] 1 for a look-up of xs[i], 0 for an
    edge xs[i] -> ys[i] (ys[i] 0 for look-ups)."""
    rnd = random.Random((seed + lookup_pct) * 1000 + k)
    lookups = n_ops * lookup_pct // 100
    kinds = [1] * lookups + [0] * (n_ops - lookups)
    rnd.shuffle(kinds)
    xs, ys = array("I"), array("I")
    for kind in kinds:
        xs.append(rnd.randrange(n))
        ys.append(0 if kind else rnd.randrange(n))
    return array("B", kinds), xs, ys


def w_mix(stage, k, a, st):
    """AddEdge / GetNeighbors: this worker's fixed share of the mix's
    operations (mix_plan). Setup connects and warms up with no-ops and
    get_neighbors only (nothing written: every system's graph stays the
    same) for the warm-up seconds; the measured part starts when every
    worker is ready."""
    if stage == "setup":
        meta, _ds, ids = read_ids(a["ids_file"], with_dataset=False)
        conn, g = connect(a["url"], a["serializer"])
        plan = mix_plan(a["seed"], a["lookup_pct"], k, a["counts"][k], len(ids))
        wr = random.Random(a["seed"] * 1000 + 500 + k)  # the warm-up's vertices: read only
        t_warm = time.monotonic() + a["warmup"]
        while time.monotonic() < t_warm:
            op_noop(g)
            op_get_neighbors(g, ids[wr.randrange(len(ids))])
        return conn, g, ids, plan
    conn, g, ids, (kinds, xs, ys) = st
    lat = {"get_neighbors": array("q"), "add_edge": array("q")}
    errors = bad = retries = 0
    first_error = ""
    pc = time.perf_counter_ns
    for i in range(len(kinds)):
        lookup = kinds[i] == 1
        t = pc()
        try:
            if lookup:
                _r, tries = attempt(op_get_neighbors, g, ids[xs[i]])
            else:
                r, tries = attempt(op_add_edge, g, ids[xs[i]], ids[ys[i]])
                if r != 1:
                    bad += 1
            retries += tries
        except Exception as ex:
            errors += 1
            first_error = first_error or f"{type(ex).__name__}: {ex}"[:200]
            continue
        lat["get_neighbors" if lookup else "add_edge"].append(pc() - t)
    end = time.monotonic()
    conn.close()
    return {"end": end, "lat": lat, "errors": errors, "bad": bad, "retries": retries,
            "first_error": first_error}


def w_noop(stage, k, a, st):
    if stage == "setup":
        return connect(a["url"], a["serializer"])
    conn, g = st
    pc = time.perf_counter_ns
    t_warm = pc() + int(a["warmup"] * 1e9)
    t_end = t_warm + int(a["seconds"] * 1e9)
    lat = array("q")
    start = None
    while True:
        t = pc()
        if t >= t_end:
            break
        op_noop(g)
        if t >= t_warm:
            start = start or t
            lat.append(pc() - t)
    stop = pc()
    conn.close()
    return {"end": time.monotonic(), "lat": lat, "seconds": (stop - start) / 1e9 if start else 0.0}


# ---------------------------------------------------------------- phases

def check_adjacency(g, ds, ids, sample, extra=None):
    """How many of the sample's adjacency lists differ from the file's (plus
    `extra`, a flat array of added edges as positions), and the first that does."""
    adj = adjacency_of(ds, sample)
    if extra:
        for i in range(0, len(extra), 2):
            if extra[i] in adj:
                adj[extra[i]].append(extra[i + 1])
    wrong, first = 0, ""
    for v in sample:
        want = sorted(ids[u] for u in adj[v])
        got = sorted(op_get_neighbors(g, ids[v]))
        if got != want:
            wrong += 1
            if not first:
                missing = len([x for x in want if x not in set(got)])
                first = f"; first: vertex #{v} (id {ids[v]}) has {len(got)} out-neighbours, want {len(want)}, {missing} missing"
    return wrong, first


def adjacency_sample(ds, rnd, size):
    """`size` uniform vertices plus the one of highest out-degree."""
    deg = array("I", bytes(4 * ds.n))
    e = ds.edges
    for i in range(0, len(e), 2):
        deg[e[i]] += 1
    top = max(range(ds.n), key=deg.__getitem__)
    return sorted(set(rnd.sample(range(ds.n), min(size, ds.n))) | {top})


def cmd_load(a):
    ds = load_dataset(a.dataset, a.max_edges, a.touched_only)
    out = Out(a.out, a.system, a.dataset)
    note = f"{ds.n} vertices, {ds.m} edges" + (f" (first {a.max_edges} edges)" if a.max_edges else "")
    conn, g = connect(a.url, a.serializer)
    v0, e0 = count_v(g), count_e(g)
    if v0 or e0:
        raise SystemExit(f"the store is not empty: {v0} vertices, {e0} edges")
    # Vertices from this process alone, one request each: concurrent addV
    # requests conflict on stratagraph (each picks one past the largest id),
    # and JanusGraph creates label and property-key types on first use: two
    # transactions creating `v` or `e` at once leave two labels of that name
    # (out('e') then misses the edges of one). For the same reason the first
    # edge is added before the edge workers start.
    la = loadavg()
    ids = []
    lat, retries = array("q"), 0
    t = time.monotonic()
    for vid in ds.vids:
        x, tries = timed(lat, attempt, op_add_vertex, g, vid)
        ids.append(x)
        retries += tries
    secs = time.monotonic() - t
    save_ids(a.ids, a.system, ds, ids, a.max_edges, a.touched_only)
    v1 = count_v(g)
    chk = "ok" if v1 == ds.n and len(set(ids)) == ds.n else f"FAIL V={v1} want {ds.n}, {len(set(ids))} distinct ids"
    out.row("load", "add_vertex", 1, ds.n, secs, lat, retries=retries, load_avg=la, check=chk, note=note)
    la = loadavg()
    lat, bad, retries = array("q"), 0, 0
    t = time.monotonic()
    if ds.m:
        r, retries = timed(lat, attempt, op_add_edge, g, ids[ds.edges[0]], ids[ds.edges[1]])
        bad += r != 1
    first = time.monotonic() - t
    secs, res = run_workers(a.procs, w_load_edges, {"url": a.url, "serializer": a.serializer,
                                                     "ids_file": a.ids, "procs": a.procs, "start": 1})
    secs += first
    for r in res:
        lat.extend(r["lat"])
        bad += r["bad"]
        retries += r["retries"]
    e1 = count_e(g)
    chk = "ok" if e1 == ds.m and bad == 0 else f"FAIL E={e1} want {ds.m}, {bad} answers not 1"
    out.row("load", "add_edge", a.procs, ds.m, secs, lat, retries=retries, load_avg=la, check=chk, note=note)
    # The answers, not only the counts: adjacency lists of a sample against the file.
    sample = adjacency_sample(ds, random.Random(a.seed), a.check_sample)
    t = time.monotonic()
    wrong, first = check_adjacency(g, ds, ids, sample)
    chk = "ok" if wrong == 0 else f"FAIL {wrong} of {len(sample)} adjacency lists differ"
    out.row("check", "adjacency", 1, len(sample), time.monotonic() - t, check=chk,
            note="sorted out-neighbour ids of uniform vertices + the top out-degree one vs the file" + first)
    conn.close()
    return 1 if out.failed else 0


def timed(lat, fn, *args):
    t = time.perf_counter_ns()
    r = fn(*args)
    lat.append(time.perf_counter_ns() - t)
    return r


def cmd_latency(a):
    meta, ds, ids = read_ids(a.ids)
    out = Out(a.out, a.system, meta["dataset"])
    conn, g = connect(a.url, a.serializer)
    rnd = random.Random(a.seed)
    n, S = ds.n, a.samples
    e_start = count_e(g)
    pristine = e_start == ds.m
    for _ in range(min(200, S)):  # warm-up: connection, server caches, JIT on the JVM peers
        op_noop(g)
        op_get_neighbors(g, ids[rnd.randrange(n)])

    def one(op, fn, argsets, ok, note=""):
        la, lat, bad, errors, retries = loadavg(), array("q"), 0, 0, 0
        first_bad = ""
        t = time.monotonic()
        for args in argsets:
            try:
                r, tries = timed(lat, attempt, fn, g, *args)
                retries += tries
                if not ok(args, r):
                    bad += 1
                    first_bad = first_bad or f"; first wrong: {op}{args} -> {str(r)[:300]}"
            except Exception as ex:
                errors += 1
                if errors == 1:
                    print(f"{op}: {type(ex).__name__}: {ex}", file=sys.stderr)
        secs = time.monotonic() - t
        chk = "ok" if bad == 0 and errors == 0 else f"FAIL {bad} wrong answers, {errors} errors"
        out.row("latency", op, 1, len(lat), secs, lat, retries=retries, errors=errors, load_avg=la,
                check=chk, note=note + first_bad)

    one("noop", op_noop, [()] * S, lambda _a, r: r == 1, "g.inject(1).next(): the client's floor")
    base = max(ds.vids) + 1
    new_ids = []
    one("add_vertex", lambda g, v: new_ids.append(op_add_vertex(g, v)) or new_ids[-1],
        [(base + i,) for i in range(S)], lambda _a, r: r is not None, "vid beyond the dataset's")
    pairs = [(ids[rnd.randrange(n)], ids[rnd.randrange(n)]) for _ in range(S)]
    one("add_edge", op_add_edge, pairs, lambda _a, r: r == 1, "uniform random ends")
    e_mid = count_e(g)
    one("delete_edge", op_delete_edge, pairs, lambda _a, r: r == 1,
        "deletes the edges add_edge made, same order: V(a).outE('e').where(inV().hasId(b)).limit(1).sideEffect(drop()).count()")
    e_end = count_e(g)
    chk = "ok" if (e_mid, e_end) == (e_start + S, e_start) else \
        f"FAIL E {e_start} -> {e_mid} -> {e_end}, want +{S} then back"
    out.row("check", "edge_count", 1, 0, 0.0, check=chk, note=f"E={e_start} +{S} add_edge -{S} delete_edge")
    verts = [rnd.randrange(n) for _ in range(S)]
    if pristine:
        adj = adjacency_of(ds, verts)
        want = {ids[v]: sorted(ids[u] for u in adj[v]) for v in verts}
        okf, note = (lambda args, r: sorted(r) == want[args[0]]), "uniform vertex; answers checked against the file"
    else:
        okf, note = (lambda _a, r: isinstance(r, list)), f"uniform vertex; not checked (E={e_start}, not the file's {ds.m})"
    one("get_neighbors", op_get_neighbors, [(ids[v],) for v in verts], okf, note)
    one("update_property", op_update_property, [(ids[rnd.randrange(n)], float(i)) for i in range(S)],
        lambda _a, r: r == 1, "V(a).property('score', x).count()")
    fv = [rnd.randrange(n) for _ in range(a.find_samples)]
    want_find = {ds.vids[v]: [ids[v]] for v in fv}
    one("find_by_property", op_find_by_property, [(ds.vids[v],) for v in fv],
        lambda args, r: r == want_find[args[0]], "V().has('v','vid',n).id(), no index")
    conn.close()
    # The ceiling of the mixes: no-ops from P processes.
    for p in a.procs:
        la = loadavg()
        _secs, res = run_workers(p, w_noop, {"url": a.url, "serializer": a.serializer,
                                             "seconds": a.ceiling_seconds, "warmup": a.warmup_seconds})
        lat = array("q")
        for r in res:
            lat.extend(r["lat"])
        secs = sum(r["seconds"] for r in res) / len(res)
        out.row("ceiling", "noop", p, len(lat), secs, lat, load_avg=la, check="ok",
                note="g.inject(1).next() from every process: the most the client gets")
    return 1 if out.failed else 0


def cmd_mixes(a):
    meta, ds, ids = read_ids(a.ids)
    out = Out(a.out, a.system, meta["dataset"])
    conn, g = connect(a.url, a.serializer)
    pristine = count_e(g) == ds.m
    all_added = array("I")
    n = len(ids)
    for p in a.procs:
        counts = mix_counts(a.mix_ops, p)
        for share in a.lookups:
            # What the mix will add, known before it runs: every system gets
            # the same operations, so every store grows by the same edges.
            added = array("I")
            for k in range(p):
                kinds, xs, ys = mix_plan(a.seed, share, k, counts[k], n)
                for i in range(len(kinds)):
                    if not kinds[i]:
                        added.append(xs[i])
                        added.append(ys[i])
            want_adds = len(added) // 2
            e0 = count_e(g)
            la = loadavg()
            secs, res = run_workers(p, w_mix, {"url": a.url, "serializer": a.serializer, "ids_file": a.ids,
                                               "lookup_pct": share, "counts": counts,
                                               "warmup": a.warmup_seconds, "seed": a.seed})
            e1 = count_e(g)
            all_added.extend(added)
            errors = sum(r["errors"] for r in res)
            bad = sum(r["bad"] for r in res)
            retries = sum(r["retries"] for r in res)
            first_error = next((r["first_error"] for r in res if r["first_error"]), "")
            op = f"mix{share}"
            allk = array("q")
            for kind in ("get_neighbors", "add_edge"):
                for r in res:
                    allk.extend(r["lat"][kind])
            done = len(allk)
            chk = "ok" if e1 - e0 == want_adds and errors == 0 and bad == 0 and done == a.mix_ops else \
                (f"FAIL E grew {e1 - e0}, want {want_adds} (the mix's add_edge ops); {done} of {a.mix_ops} ops"
                 f" done, {bad} add_edge answers not 1, {errors} errors")
            for kind in ("get_neighbors", "add_edge"):
                lat = array("q")
                for r in res:
                    lat.extend(r["lat"][kind])
                out.row("mix", f"{op}:{kind}", p, len(lat), secs, lat, load_avg=la, check=chk,
                        note=f"{share}% look-ups; ops/s of this kind alone")
            out.row("mix", op, p, done, secs, allk, retries=retries, errors=errors, load_avg=la, check=chk,
                    note=f"{share}% look-ups; {a.mix_ops} ops fixed in advance ({want_adds} add_edge), "
                    f"{a.warmup_seconds} s read-only warm-up, E {e0} -> {e1}"
                    + (f"; first error: {first_error}" if first_error else ""))
    # The answers after the mixes: adjacency lists of a sample (the vertices
    # the mixes wrote to most, uniform ones, the top one) against the file
    # plus every edge the mixes added.
    if pristine:
        rnd = random.Random(a.seed)
        touched = {}
        for i in range(0, len(all_added), 2):
            touched[all_added[i]] = touched.get(all_added[i], 0) + 1
        busiest = sorted(touched, key=touched.get, reverse=True)[:a.check_sample // 2]
        sample = sorted(set(adjacency_sample(ds, rnd, a.check_sample // 2)) | set(busiest))
        t = time.monotonic()
        wrong, first = check_adjacency(g, ds, ids, sample, all_added)
        chk = "ok" if wrong == 0 else f"FAIL {wrong} of {len(sample)} adjacency lists differ"
        out.row("check", "adjacency_after_mixes", 1, len(sample), time.monotonic() - t, check=chk,
                note=f"file + the {len(all_added) // 2} edges the mixes added" + first)
    else:
        out.row("check", "adjacency_after_mixes", 1, 0, 0.0, check="skipped",
                note=f"E={ds.m} expected at the start of the mixes")
    conn.close()
    return 1 if out.failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)

    def common(p):
        p.add_argument("--url", required=True)
        p.add_argument("--system", required=True)
        p.add_argument("--ids", required=True, help="the vertex id map (written by load)")
        p.add_argument("--out", required=True, help="TSV to append rows to")
        p.add_argument("--serializer", choices=["graphbinary", "graphson"], default="graphbinary")
        p.add_argument("--seed", type=int, default=1)
        p.add_argument("--warmup-seconds", type=float, default=2.0)

    ints = lambda s: [int(x) for x in s.split(",") if x]  # noqa: E731
    p = sub.add_parser("load")
    common(p)
    p.add_argument("--dataset", required=True, help="grateful, k16, k20, ...")
    p.add_argument("--procs", type=int, default=1, help="client processes for the edges (vertices: always 1)")
    p.add_argument("--max-edges", type=int, default=None, help="load only the first N edges of the file")
    p.add_argument("--touched-only", action="store_true",
                   help="create only the vertices the loaded edges touch (default: every vertex of the dataset)")
    p.add_argument("--check-sample", type=int, default=200)
    p = sub.add_parser("latency")
    common(p)
    p.add_argument("--samples", type=int, default=2000)
    p.add_argument("--find-samples", type=int, default=50)
    p.add_argument("--procs", type=ints, default=[1, 8], help="process counts for the no-op ceiling")
    p.add_argument("--ceiling-seconds", type=float, default=10.0)
    p = sub.add_parser("mixes")
    common(p)
    p.add_argument("--procs", type=ints, default=[1, 8])
    p.add_argument("--mix-ops", type=int, default=20000,
                   help="operations of one mix, split over its processes (the same on every system)")
    p.add_argument("--lookups", type=ints, default=[10, 50, 90], help="look-up shares, percent")
    p.add_argument("--check-sample", type=int, default=200)
    a = ap.parse_args()
    quiet_driver_log()
    return {"load": cmd_load, "latency": cmd_latency, "mixes": cmd_mixes}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main())
