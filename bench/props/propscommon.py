"""What every property-benchmark driver shares: the data set's files and
queries (from gen_props.py's meta.json), the order of the operations, the
timing, the checksums and the TSV rows.

A driver only says how its system does each primitive (load, read the
properties of a vertex, find by equality, neighbours by edge label, add a
vertex, set and remove a property). `run` times them the same way for
every system: the same seeded queries, `--runs` runs per operation, the
median and the minimum of the runs' wall times for all n calls, and after
the timing a checksum of what the calls returned (or, after writes, of
what reading them back gives), compared with the generator's reference
where there is one. A checksum that differs from the reference is printed
as it is with `MISMATCH` and the reference after it: nothing is hidden.

The operations, in order (reads first, then writes, so the reads see the
graph as loaded):

load             fresh store per run, bulk load of every CSV file
read_properties  all properties of a vertex (one call each)
find_scan        vertices of a label with name == value, no index
create_index     (label, name) indexes where the system has them
find_indexed     the same look-ups with the index
hop1             out-neighbours by one edge label (once per edge)
hop2             the distinct ends of two-edge paths of that label
add_vertex       a new vertex with label and properties, one commit each
add_property     a new int key on an existing vertex, one commit each
update_property  an existing int property set again, one commit each
remove_property  the key add_property added, one commit each

Rows: `system version dataset op n median_s min_s ops_per_s checksum`;
an operation a system cannot do or that passed the time budget gets
`n/a` figures and the reason in the checksum column.
"""
import abc
import argparse
import json
import os
import platform
import statistics
import subprocess
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
HEADER = ["system", "version", "dataset", "op", "n", "median_s", "min_s", "ops_per_s", "checksum"]
INTERNAL = {"id", "_id", "_ID", "label", "_label", "_LABEL"}


class OverBudget(Exception):
    def __init__(self, done, total, secs, unit="calls"):
        super().__init__(f"{done} of {total} {unit} in {secs:.1f}s")
        self.done, self.total, self.secs, self.unit = done, total, secs, unit

    def reason(self):
        rate = self.done / self.secs if self.secs > 0 else 0.0
        return (f"n/a: stopped at the time budget: {self.done} of {self.total} {self.unit} in "
                f"{self.secs:.0f}s ({rate:.4g}/s)")


class Skip(Exception):
    """The system cannot do the operation (or the whole data set); the
    message is the reason."""


def parse_args(name):
    ap = argparse.ArgumentParser(description=f"property-graph benchmark on {name}")
    ap.add_argument("--dataset", required=True, help="a folder written by gen_props.py")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--budget", type=float, default=120.0,
                    help="seconds one run of one operation (or one load) may take")
    ap.add_argument("--scale-queries", type=float, default=1.0,
                    help="run this fraction of each operation's queries (a quick check)")
    ap.add_argument("--commit", default=None, help="the commit the system was built from")
    ap.add_argument("--out", default=None)
    return ap.parse_args()


def machine_header(system, version, commit):
    cpu = mem = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
        with open("/proc/meminfo") as f:
            mem = next(l.split(":", 1)[1].strip() for l in f if l.startswith("MemTotal"))
    except (OSError, StopIteration):
        pass
    if commit is None:
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
        f"# benchmark commit: {commit}",
    ]


def fmt(v):
    if v is None or v != v:
        return "n/a"
    if v == 0:
        return "0"
    import math
    digits = 4 - 1 - math.floor(math.log10(abs(v)))
    return f"{v:.{max(digits, 0)}f}"


class Rows:
    def __init__(self, driver, dataset, notes, commit):
        self.system, self.version, self.dataset = driver.name, driver.version, dataset
        self.lines = machine_header(driver.name, driver.version, commit) + notes
        self.lines.append("\t".join(HEADER))
        print("\n".join(self.lines), flush=True)

    def row(self, op, n, secs, checksum, rate_n=None):
        med = statistics.median(secs) if secs else None
        lo = min(secs) if secs else None
        rate = (rate_n or n) / med if med else None
        line = "\t".join([self.system, self.version, self.dataset, op, str(n), fmt(med), fmt(lo),
                          fmt(rate), checksum.replace("\t", " ")])
        self.lines.append(line)
        print(line, flush=True)

    def na(self, op, n, reason):
        if not reason.startswith("n/a"):
            reason = "n/a: " + reason
        self.row(op, n, [], reason)

    def save(self, path):
        if path:
            with open(path, "w") as f:
                f.write("\n".join(self.lines) + "\n")
            print(f"rows written to {path}", flush=True)


def timed(n, op, budget):
    """[op(i) for i in 0..n] and the seconds it took; OverBudget past
    `budget` seconds (the clock is read every 16 calls)."""
    out = []
    append = out.append
    clock = time.perf_counter
    t = clock()
    for i in range(n):
        append(op(i))
        if not i & 15 and clock() - t > budget:
            raise OverBudget(i + 1, n, clock() - t)
    return out, clock() - t


def check(got, ref):
    if ref is None or got == ref:
        return got
    return f"{got};MISMATCH(reference {ref})"


def props_checksum(dicts):
    """Number of properties (not null, not the id or label) and the sum of
    the int ones (bools excluded)."""
    cnt = isum = 0
    for d in dicts:
        for k, v in d.items():
            if k in INTERNAL or v is None:
                continue
            cnt += 1
            if isinstance(v, int) and not isinstance(v, bool):
                isum += int(v)
    return f"props={cnt};int_sum={isum}"


def ids_checksum(results, key="found"):
    cnt = total = 0
    for r in results:
        r = [int(x) for x in r]
        cnt += len(r)
        total += sum(r)
    return f"{key}={cnt};sum={total}" if key == "found" else f"count={cnt};sum={total}"


class Driver(abc.ABC):
    """How one system does the primitives. Vertex ids are ints; `label`
    arguments are the vertex's label (systems with a table per label need
    it to find the vertex). Every system implements the abstract methods;
    the others have defaults."""

    name = "?"
    version = "?"
    notes = []

    @abc.abstractmethod
    def load(self, meta, folder, budget):
        ...

    def close(self, g):
        pass

    @abc.abstractmethod
    def counts(self, g, meta):
        """(vertices, edges) as the store reports them."""

    def reader(self, g):
        """What read calls get (a snapshot where the system has them)."""
        return g

    @abc.abstractmethod
    def read_properties(self, r, v, label):
        ...

    @abc.abstractmethod
    def find(self, r, label, key, value, vid):
        ...

    def create_index(self, g, labels, key):
        """Creates the indexes; raises Skip if the system has none."""
        raise Skip("no secondary index")

    @abc.abstractmethod
    def find_indexed(self, r, label, key, value, vid):
        ...

    @abc.abstractmethod
    def hop1(self, r, v, label, elabel):
        ...

    @abc.abstractmethod
    def hop2(self, r, v, label, elabel):
        ...

    @abc.abstractmethod
    def add_vertex(self, g, v, label, props):
        ...

    def new_key(self, g, labels, key):
        """Untimed schema change before a new int key is added (kuzu)."""

    @abc.abstractmethod
    def set_property(self, g, v, label, key, value):
        ...

    @abc.abstractmethod
    def remove_property(self, g, v, label, key):
        ...


def new_props(template, i, typed):
    """The properties of the i-th new vertex; ["int", x] values become
    typed(x) (an Int32 where the system keeps widths)."""
    out = {}
    for k, v in template.items():
        if isinstance(v, list):
            out[k] = typed(v[1] + i % 100)
        else:
            out[k] = v.format(i=i)
    return out


def run(driver, a, typed=int):
    folder = a.dataset
    with open(os.path.join(folder, "meta.json")) as f:
        meta = json.load(f)
    ds = meta["dataset"]
    q = meta["queries"]
    ref = meta["reference"]
    counts = {k: max(1, int(v * a.scale_queries)) for k, v in q["counts"].items()}
    notes = [
        f"# dataset: {ds} from {folder} ({meta['vertices']} vertices, {meta['edges']} edges, seed {meta['seed']})",
        f"# runs: {a.runs} per operation, median and minimum of the runs' wall time for n calls; "
        f"budget {a.budget:.0f}s per run",
        f"# driver: bench/props/{driver.name}_props.py through the system's Python API",
    ] + [f"# note: {n}" for n in driver.notes]
    rows = Rows(driver, ds, notes, a.commit)
    scaled = a.scale_queries != 1.0

    def reference(op):
        return None if scaled else ref.get(op)

    # load: a fresh store per run; the last one is kept for the rest.
    n_elems = meta["vertices"] + meta["edges"]
    g, secs = None, []
    try:
        for _ in range(a.runs):
            if g is not None:
                driver.close(g)
                g = None
            t = time.perf_counter()
            g = driver.load(meta, folder, a.budget)
            secs.append(time.perf_counter() - t)
    except (Skip, OverBudget) as e:
        reason = e.reason() if isinstance(e, OverBudget) else str(e)
        rows.na("load", n_elems, reason)
        for op in ["read_properties", "find_scan", "create_index", "find_indexed", "hop1", "hop2",
                   "add_vertex", "add_property", "update_property", "remove_property"]:
            rows.na(op, 0, "n/a: not loaded")
        rows.save(a.out)
        return
    nv, ne = driver.counts(g, meta)
    rows.row("load", n_elems, secs,
             check(f"vertices={nv};edges={ne}", f"vertices={meta['vertices']};edges={meta['edges']}"))

    def measure(op, n, call, checksum, before_run=None, after=None, want=None):
        """Times `call(i)` for i < n, --runs times; the checksum is of the
        last run's results (or of `after()`, read back untimed)."""
        secs, results = [], None
        try:
            for r in range(a.runs):
                if before_run:
                    before_run(r)
                results, s = timed(n, lambda i: call(r, i), a.budget)
                secs.append(s)
        except OverBudget as e:
            rows.na(op, n, e.reason())
            return
        except Skip as e:
            rows.na(op, n, str(e))
            return
        except Exception as e:  # a failing call is a row, not the end of the run
            traceback.print_exc()
            rows.na(op, n, f"n/a: failed: {type(e).__name__}: {e}".replace("\n", " ")[:300])
            return
        got = checksum(after() if after else results)
        rows.row(op, n, secs, check(got, want if want is not None else reference(op)))

    rd = driver.reader(g)
    qs = q["read_properties"][:counts["read_properties"]]
    measure("read_properties", len(qs), lambda r, i: driver.read_properties(rd, *qs[i]),
            lambda res: props_checksum(res))

    key = meta["find_key"]
    qs = q["find"][:counts["find_scan"]]
    measure("find_scan", len(qs), lambda r, i: driver.find(rd, qs[i][1], key, qs[i][2], qs[i][0]),
            ids_checksum)

    labels = sorted(meta["vertex_schema"])
    try:
        t = time.perf_counter()
        driver.create_index(g, labels, key)
        rows.row("create_index", len(labels), [time.perf_counter() - t],
                 f"indexes={len(labels)} ({key} of each label)")
    except Skip as e:
        rows.na("create_index", len(labels), str(e))
    rd = driver.reader(g)
    qs = q["find"][:counts["find_indexed"]]
    measure("find_indexed", len(qs),
            lambda r, i: driver.find_indexed(rd, qs[i][1], key, qs[i][2], qs[i][0]), ids_checksum)

    el = q["hop_label"]
    qs = q["hop"][:counts["hop1"]]
    measure("hop1", len(qs), lambda r, i: driver.hop1(rd, qs[i][0], qs[i][1], el),
            lambda res: ids_checksum(res, "count"))
    qs = q["hop"][:counts["hop2"]]
    measure("hop2", len(qs), lambda r, i: driver.hop2(rd, qs[i][0], qs[i][1], el),
            lambda res: ids_checksum(res, "count"))
    if hasattr(rd, "close") and rd is not g:
        rd.close()

    # add_vertex: run r adds ids first + r*n .. first + (r+1)*n - 1.
    n = counts["add_vertex"]
    av = q["add_vertex"]
    first, cyc = av["first_id"], av["labels"]
    tmpl = meta["new_vertex"]
    made = [(first + r * n + i, cyc[i % len(cyc)]) for r in range(a.runs) for i in range(n)]
    made_props = [new_props(tmpl[lab], v, typed) for v, lab in made]
    last = made[(a.runs - 1) * n:]
    want = (f"vertices={meta['vertices'] + a.runs * n};"
            + props_checksum([new_props(tmpl[lab], v, int) for v, lab in last]))

    def read_back(vs):
        def read():
            rd = driver.reader(g)
            out = [driver.read_properties(rd, v, lab) for v, lab in vs]
            if hasattr(rd, "close") and rd is not g:
                rd.close()
            return out
        return read

    def add_v(r, i):
        v, lab = made[r * n + i]
        return driver.add_vertex(g, v, lab, made_props[r * n + i])
    measure("add_vertex", n, add_v,
            lambda res: f"vertices={driver.counts(g, meta)[0]};" + props_checksum(res),
            after=read_back(last), want=want)

    def key_checksum(key_of):
        def checksum(dicts):
            cnt = total = 0
            for i, d in enumerate(dicts):
                x = d.get(key_of(i))
                if x is not None:
                    cnt += 1
                    total += int(x)
            return f"set={cnt};sum={total}"
        return checksum

    # add_property: run r adds key added<r> (int r*n + i) to n distinct vertices.
    pv = q["property"][:counts["add_property"]]
    n = len(pv)
    lastkey = f"added{a.runs - 1}"
    measure("add_property", n,
            lambda r, i: driver.set_property(g, pv[i][0], pv[i][1], f"added{r}", r * n + i),
            key_checksum(lambda i: lastkey), before_run=lambda r: driver.new_key(g, labels, f"added{r}"),
            after=read_back(pv),
            want=f"set={n};sum={sum((a.runs - 1) * n + i for i in range(n))}")

    # update_property: the dataset's int key, set to r*1000 + i % 1000; the
    # last write to a vertex wins.
    up = q["update"]
    uv = up["vertices"][:counts["update_property"]]
    final = {}
    for i, (v, _) in enumerate(uv):
        final[v] = (a.runs - 1) * 1000 + i % 1000
    want = f"set={len(uv)};sum={sum(final[v] for v, _ in uv)}"
    measure("update_property", len(uv),
            lambda r, i: driver.set_property(g, uv[i][0], uv[i][1], up["key"], typed(r * 1000 + i % 1000)),
            key_checksum(lambda i: up["key"]), after=read_back(uv), want=want)

    # remove_property: run r removes added<r> again; none is left after.
    def left(dicts):
        return "left=" + str(sum(1 for d in dicts for k, x in d.items()
                                 if k.startswith("added") and x is not None))
    measure("remove_property", n,
            lambda r, i: driver.remove_property(g, pv[i][0], pv[i][1], f"added{r}"),
            left, after=read_back(pv), want="left=0")
    driver.close(g)
    rows.save(a.out)
