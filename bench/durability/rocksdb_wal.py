"""RocksDB's side of `stratagraph bench durability`: the same W1 edge stream
as single durable writes into RocksDB used as an edge store (key =
big-endian src, dst; value = the W1 weight), through the `rocksdict`
package, and RocksDB's recovery time per GiB of WAL.

Policies mirror stratagraph's: `always` = WriteOptions.sync (fsync per
write; RocksDB groups concurrent writers itself), `interval10ms` = unsynced
writes plus `flush_wal(sync=True)` every 10 ms from a background thread,
`never` = unsynced writes (in the OS page cache: a process crash loses
nothing). Rows are TSV in the same format as the Rust benchmark.

Caveat printed with the rows: each put crosses from Python into RocksDB
(about a microsecond), and whether rocksdict releases the GIL during a put
decides whether 2 threads can overlap at all; the `python_call_overhead`
row measures a put-sized call on a dict for scale.
"""

import argparse
import array
import os
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time

import rocksdict

CHUNK = 256


def weight(u: int, v: int) -> float:
    h = ((u * 2_654_435_761) & (2**64 - 1)) ^ ((v * 40_503) & (2**64 - 1))
    return 1.0 + (h % 255) / 255.0


def load_edges(data: str, scale: int):
    a = array.array("I")
    with open(os.path.join(data, f"k{scale}.bin"), "rb") as f:
        a.frombytes(f.read())
    if sys.byteorder != "little":
        a.byteswap()
    return [(a[i], a[i + 1]) for i in range(0, len(a), 2)]


def key(u: int, v: int) -> bytes:
    return struct.pack(">QQ", u, v)


def value(u: int, v: int) -> bytes:
    return struct.pack("<d", weight(u, v))


def open_db(path: str, big_memtable: bool = False):
    opts = rocksdict.Options(raw_mode=True)
    opts.create_if_missing(True)
    if big_memtable:
        opts.set_write_buffer_size(2 << 30)  # keep everything in the WAL
    return rocksdict.Rdict(path, options=opts)


def run_singles(edges, kv, policy: str, threads: int, seconds: float, workdir: str):
    path = tempfile.mkdtemp(dir=workdir)
    db = open_db(path)
    wo = rocksdict.WriteOptions()
    wo.sync = policy == "always"
    db.set_write_options(wo)
    stop = threading.Event()
    syncer = None
    if policy == "interval10ms":
        def sync_loop():
            while not stop.wait(0.010):
                db.flush_wal(True)
        syncer = threading.Thread(target=sync_loop)
        syncer.start()
    # Keys and values are encoded before the clock starts, so the loop
    # times little besides the calls into RocksDB.
    chunks = [kv[i:i + CHUNK] for i in range(0, len(kv), CHUNK)]
    timed = policy == "always"
    lock = threading.Lock()
    state = {"next": 0}
    deadline = time.perf_counter() + seconds
    latencies = []

    def worker():
        lat = []
        while time.perf_counter() < deadline:
            with lock:
                k = state["next"]
                state["next"] += 1
            if k >= len(chunks):
                break
            if timed:
                for k_, v_ in chunks[k]:
                    t = time.perf_counter()
                    db.put(k_, v_)
                    lat.append(time.perf_counter() - t)
            else:
                for k_, v_ in chunks[k]:
                    db.put(k_, v_)
        with lock:
            latencies.extend(lat)

    t0 = time.perf_counter()
    ws = [threading.Thread(target=worker) for _ in range(threads)]
    for w in ws:
        w.start()
    for w in ws:
        w.join()
    elapsed = time.perf_counter() - t0
    stop.set()
    if syncer:
        syncer.join()
    done = min(state["next"], len(chunks)) * CHUNK
    done = min(done, len(edges))
    distinct = len(set(edges[:done]))
    held = sum(1 for _ in db.keys())
    db.close()
    shutil.rmtree(path, ignore_errors=True)
    if held != distinct:
        raise SystemExit(f"rocksdb {policy}/{threads}: holds {held} keys, {distinct} committed")
    return done / elapsed, sorted(latencies), distinct


def recovery(edges, workdir: str):
    """A child writes every edge unsynced into a large memtable (so all of
    it is only in the WAL), reports, and is SIGKILLed; opening the
    directory again replays the WAL."""
    path = tempfile.mkdtemp(dir=workdir)
    child = subprocess.Popen(
        [sys.executable, __file__, "--child-recovery", path, "--data", ARGS.data,
         "--scale", str(ARGS.scale)],
        stdout=subprocess.PIPE, text=True)
    for line in child.stdout:
        if line.strip() == "written":
            break
    child.send_signal(signal.SIGKILL)
    child.wait()
    wal = sum(os.path.getsize(os.path.join(path, f)) for f in os.listdir(path) if f.endswith(".log"))
    secs = []
    for _ in range(ARGS.runs):
        work = tempfile.mkdtemp(dir=workdir)
        shutil.rmtree(work)
        shutil.copytree(path, work)
        t = time.perf_counter()
        db = open_db(work, big_memtable=True)
        secs.append(time.perf_counter() - t)
        held = sum(1 for _ in db.keys())
        db.close()
        shutil.rmtree(work, ignore_errors=True)
        if held != len(set(edges)):
            raise SystemExit(f"rocksdb recovery: {held} keys, expected {len(set(edges))}")
    shutil.rmtree(path, ignore_errors=True)
    return wal, statistics.median(secs)


def child_recovery(path: str, edges):
    db = open_db(path, big_memtable=True)
    wo = rocksdict.WriteOptions()
    wo.sync = False
    for i in range(0, len(edges), 1 << 20):
        batch = rocksdict.WriteBatch(raw_mode=True)
        for u, v in edges[i:i + (1 << 20)]:
            batch.put(key(u, v), value(u, v))
        db.write(batch, wo)
    print("written", flush=True)
    time.sleep(600)


def row(graph, op, threads, val, unit, checksum=""):
    print(f"rocksdb\t{ROCKS_VERSION}\t{graph}\t{op}\t{threads}\t{val:.4g}\t{unit}\t{checksum}", flush=True)


def main():
    edges = load_edges(ARGS.data, ARGS.scale)
    if ARGS.child_recovery:
        child_recovery(ARGS.child_recovery, edges)
        return
    graph = f"k{ARGS.scale}"
    os.makedirs(ARGS.dir, exist_ok=True)
    kv = [(key(u, v), value(u, v)) for u, v in edges]
    d = {}
    t = time.perf_counter()
    n = 200_000
    for i in range(n):
        d[key(i, i)] = value(i, i)
    row(graph, "python_call_overhead", 1, (time.perf_counter() - t) / n * 1e6, "us")
    for policy in ("always", "interval10ms", "never"):
        for threads in (1, 2):
            rates, lats, distinct = [], [], 0
            for _ in range(ARGS.runs):
                rate, lat, distinct = run_singles(edges, kv, policy, threads, ARGS.seconds, ARGS.dir)
                rates.append(rate)
                lats.extend(lat)
            op = f"durable_insert_single/{policy}"
            row(graph, op, threads, statistics.median(rates), "commits/s", f"edges={distinct}")
            if policy == "always":
                lats.sort()
                for q, label in ((0.5, "p50"), (0.99, "p99"), (0.999, "p99.9")):
                    at = round((len(lats) - 1) * q)
                    row(graph, f"{op}/latency_{label}", threads, lats[at] * 1e6, "us")
    wal, secs = recovery(edges, ARGS.dir)
    row(graph, "recovery_batches/log_bytes", 1, wal, "bytes")
    row(graph, "recovery_batches", 1, secs / (wal / 2**30), "s/GiB", f"edges={len(set(edges))}")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--data", default="/work/data")
    p.add_argument("--scale", type=int, default=20)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seconds", type=float, default=3.0)
    p.add_argument("--dir", default="/work/data/bench-durability")
    p.add_argument("--child-recovery", default=None)
    ARGS = p.parse_args()
    ROCKS_VERSION = getattr(rocksdict, "__version__", "rocksdict")
    main()
