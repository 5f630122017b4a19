#!/usr/bin/env python3
"""W1 on RocksDB (rocksdict) or Kuzu under a memory cap: the peers' side of
`stratagraph bench capped` (issue 32), with the same phases, in the same
order, on one on-disk store, one phase per process, so that each phase can
run inside bench/memcap.py's cgroup.

    capped_w1.py --peer rocksdict|kuzu --data D --scale S --store PATH \\
        --phase prepare|load|insert_single|fill|reads|delete_mixed [--out TSV]

Like `bench capped`, nothing is held per edge: `kS.bin` is read in pieces
as it is loaded or inserted, `kS.perm.bin` in pieces as it is scanned, and
only the 1M-entry search and op files are read whole. What a phase holds is
the library's own memory.

- `prepare` (untimed, run without the cap): Kuzu's bulk path is COPY FROM a
  file, so the vertex ids and the first 80% of the edges are written as CSV
  beside the store (PATH.csv/); RocksDB needs nothing.
- `load`: creates the store with every vertex (Kuzu) and the first 80% of
  the edges (RocksDB: one WriteBatch per piece; Kuzu: COPY FROM the CSV),
  then closes it. `load_80` is the time to the last write, `load_80_closed`
  with the close.
- `insert_single`: the remaining 20%, one edge per write (an auto-committed
  put or CREATE), in file order. A library that would take longer than
  --budget is stopped there and its rate is the rate of the edges it did
  (the row says so).
- `fill` (untimed, run without the cap): writes in bulk (RocksDB:
  WriteBatches; Kuzu: COPY FROM a CSV file) whatever insert_single left
  out, so that the reads see the whole graph. Kuzu's COPY of the rest is
  killed by a cap that its single inserts run under.
- `reads`: search_edge (kS.search.bin, in pieces), scan_seq, scan_rand and,
  for Kuzu, BFS, PageRank and WCC (its algo extension) and SSSP, each
  checked against the references; one past --budget gets an `n/a` row with
  how far it got.
- `delete_mixed`: kS.ops.bin, one write each.

Every edge count is checked against the reference after the phase that
sets it (RocksDB's by iterating the keys, untimed). Rows are W1's TSV.
"""
import argparse
import importlib.metadata
import os
import shutil
import sys
import time

import numpy as np

import w1common as c

PHASES = ["prepare", "load", "insert_single", "fill", "reads", "delete_mixed"]
READS = ["search_edge", "scan_seq", "scan_rand", "bfs", "pr", "wcc", "sssp"]
# Edges read from kS.bin per piece.
PIECE = 1 << 16
# Edges per COPY of Kuzu's load: one COPY of k20's 12.9M edges fails with
# "the buffer pool is full" at a pool of 64 or 128 MiB (uncapped; 192 and
# 324 MB peak RSS), so the load copies the edges in files of this many.
COPY_EDGES = 1 << 20
# Pairs per query of Kuzu's search_edge (as kuzu_w1.py) and per multi-get of RocksDB's.
SEARCH_CHUNK = 4096


def stream_pairs(path, first, count, piece=PIECE):
    """(src, dst) arrays of edges first..first+count of an edge file, at
    most `piece` at a time, read as they are needed."""
    done = 0
    while done < count:
        n = min(piece, count - done)
        a = np.fromfile(path, dtype="<u4", count=2 * n, offset=8 * (first + done))
        if a.size != 2 * n:
            raise c.Mismatch(f"{path}: ends before edge {first + count}")
        yield a[0::2].astype(np.int64), a[1::2].astype(np.int64)
        done += n


def stream_u32s(path, piece=PIECE):
    size = os.path.getsize(path) // 4
    for at in range(0, size, piece):
        yield np.fromfile(path, dtype="<u4", count=min(piece, size - at), offset=4 * at).astype(np.int64)


class Rocks:
    """RocksDB's defaults through rocksdict, as bench/peers/rocksdict_w1.py."""

    name = "rocksdict"
    kernels = False
    notes = [
        "RocksDB through rocksdict (raw bytes mode), defaults but the memory below: WAL on, no fsync per write; close flushes the memtable",
        "load: one WriteBatch per 65,536 edges; insert_single and delete_mixed: one put or delete each",
        "search_edge: multi-gets of 4,096 pairs; scan_rand seeks each vertex's key prefix",
        "edge counts for the checks are counted by iterating the keys (untimed)",
        "BFS, PageRank, WCC, SSSP: n/a (an edge-keyed key-value store has no graph kernels)",
    ]

    def __init__(self, a):
        import rocksdict
        import rocksdict_w1

        self.rd, self.w1 = rocksdict, rocksdict_w1
        self.version = importlib.metadata.version("rocksdict")
        self.path = a.store
        self.memory = a.memory
        self.db = None
        if a.memory:
            self.notes = self.notes + [f"memory {a.memory} bytes: write buffers 2 x {max(a.memory // 16, 1 << 20)}, "
                                       f"block cache {max(a.memory // 8, 1 << 20)}"]

    def open(self, create=False):
        opts = self.rd.Options(raw_mode=True)
        opts.create_if_missing(create)
        if self.memory:
            # As `bench capped --memory` sizes stratagraph's MemGraph: an
            # eighth for the write buffers, an eighth for the block cache.
            # RocksDB's defaults (two 64 MiB memtables) alone pass a 128 MiB
            # cap: the load was killed there in 4 s.
            opts.set_write_buffer_size(max(self.memory // 16, 1 << 20))
            opts.set_max_write_buffer_number(2)
            table = self.rd.BlockBasedOptions()
            table.set_block_cache(self.rd.Cache(max(self.memory // 8, 1 << 20)))
            opts.set_block_based_table_factory(table)
        self.db = self.rd.Rdict(self.path, options=opts)

    def load(self, a, ref, split):
        self.open(create=True)
        for s, d in stream_pairs(edges_path(a), 0, split):
            self.batch(s, d)

    def batch(self, s, d):
        wb = self.rd.WriteBatch(raw_mode=True)
        for k, v in zip(self.w1.keys_of(s, d), self.w1.values_of(c.w1_weights(s, d))):
            wb.put(k, v)
        self.db.write(wb)

    def rest(self, a, first, count):
        """Writes edges first..first+count of kS.bin in batches."""
        for s, d in stream_pairs(edges_path(a), first, count):
            self.batch(s, d)

    def close(self):
        self.db.flush()
        self.db.close()
        self.db = None

    def insert(self, u, v, w):
        self.db.put(self.w1.key(u, v), np.float64(w).tobytes())

    def delete(self, u, v):
        self.db.delete(self.w1.key(u, v))

    def edge_count(self):
        return sum(1 for _ in self.db.keys())

    def search(self, s, d, limit):
        found = 0
        for i in range(0, len(s), SEARCH_CHUNK):
            got = self.db.get(self.w1.keys_of(s[i:i + SEARCH_CHUNK], d[i:i + SEARCH_CHUNK]))
            found += sum(1 for x in got if x is not None)
            limit.check(i + SEARCH_CHUNK - 1)
        return found

    def scan_seq(self):
        return sum(int.from_bytes(k[4:8], "big") for k in self.db.keys())

    def scan_rand(self, a, limit):
        it = self.db.iter()
        total, i = 0, 0
        for piece in stream_u32s(perm_path(a)):
            for v in piece.tolist():
                total += self.w1.list_sum(it, v)
                limit.check(i)
                i += 1
        return total


class Kuzu:
    """Kuzu's bulk path, Cypher writes and algo extension, as
    bench/peers/kuzu_w1.py, with the buffer pool given."""

    name = "kuzu"
    kernels = True

    def __init__(self, a):
        import kuzu
        import kuzu_w1

        self.kuzu, self.w1 = kuzu, kuzu_w1
        self.version = importlib.metadata.version("kuzu")
        # Kuzu keeps a database in one file (and its write-ahead log beside
        # it), so the store's directory holds it.
        self.path = os.path.join(a.store, "db")
        self.csv = a.store.rstrip("/") + ".csv"
        self.pool = a.buffer_pool
        self.threads = a.threads
        self.db = self.conn = None
        self.notes = [
            f"buffer pool {self.pool} bytes" if self.pool else "buffer pool: Kuzu's default",
            "load: COPY V and COPY E FROM CSV files written by the untimed prepare phase; close checkpoints",
            "insert_single and delete_mixed: one auto-committed Cypher CREATE or DELETE each",
            "search_edge: one UNWIND ... MATCH query per 4,096 pairs; scan_rand: one query per vertex",
            "BFS: a SHORTEST 1..30 path match; SSSP: a WSHORTEST(w) match; PageRank and WCC: the algo extension",
        ]

    def open(self, create=False):
        if not create and not os.path.exists(self.path):
            sys.exit(f"{self.path}: no store there; run the load phase first")
        kw = {"buffer_pool_size": self.pool} if self.pool else {}
        self.db = self.kuzu.Database(self.path, **kw)
        self.conn = self.kuzu.Connection(self.db, num_threads=self.threads)
        self.prepared = {}

    def prepare(self, a, ref, split):
        os.makedirs(self.csv, exist_ok=True)
        with open(os.path.join(self.csv, "v.csv"), "w") as f:
            for at in range(0, ref["vertices"], PIECE):
                ids = range(at, min(at + PIECE, ref["vertices"]))
                f.write("".join(f"{v}\n" for v in ids))
        for i, first in enumerate(range(0, split, COPY_EDGES)):
            write_csv(os.path.join(self.csv, f"head-{i:04}.csv"), a, first, min(COPY_EDGES, split - first))

    def load(self, a, ref, split):
        heads = [f"head-{i:04}.csv" for i in range(-(-split // COPY_EDGES))]
        for name in ["v.csv"] + heads:
            if not os.path.exists(os.path.join(self.csv, name)):
                sys.exit(f"{self.csv}/{name} is missing: run the prepare phase first")
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        self.open(create=True)
        self.conn.execute("CREATE NODE TABLE V(id INT64, PRIMARY KEY(id))")
        self.conn.execute(f"COPY V FROM '{self.csv}/v.csv' (header=false)")
        self.conn.execute("CREATE REL TABLE E(FROM V TO V, w DOUBLE)")
        for name in heads:
            self.conn.execute(f"COPY E FROM '{self.csv}/{name}' (header=false)")

    def rest(self, a, first, count):
        """Writes edges first..first+count of kS.bin by COPY FROM a CSV
        file: Kuzu 0.11.3 keeps about 2 KB a row in memory after each
        `COPY E FROM (UNWIND $rows ...)` of 4,096 rows (measured, uncapped:
        53 to 161 MB over ten), which a cap turns into a kill."""
        os.makedirs(self.csv, exist_ok=True)
        path = os.path.join(self.csv, "rest.csv")
        # In files of COPY_EDGES, as the load: one COPY of 2.8M edges
        # filled a 128 MiB buffer pool.
        for at in range(first, first + count, COPY_EDGES):
            write_csv(path, a, at, min(COPY_EDGES, first + count - at))
            self.conn.execute(f"COPY E FROM '{path}' (header=false)")
            os.remove(path)

    def close(self):
        self.conn.execute("CHECKPOINT")
        self.prepared = {}
        self.conn.close()
        self.db.close()
        self.db = self.conn = None

    def execute(self, q, params):
        """Runs `q` prepared once (`kuzu_w1.prepared`: unprepared, Kuzu
        keeps memory for every call, which a cap turns into a kill)."""
        return self.conn.execute(self.w1.prepared(self.conn, self.prepared, q), params)

    def one(self, q, params=None):
        return self.execute(q, params or {}).get_next()

    def insert(self, u, v, w):
        self.execute(self.w1.INSERT, {"a": u, "b": v, "w": w})

    def delete(self, u, v):
        self.execute(self.w1.DELETE, {"a": u, "b": v})

    def edge_count(self):
        return self.one(self.w1.COUNT)[0]

    def search(self, s, d, limit):
        found = 0
        for i in range(0, len(s), SEARCH_CHUNK):
            pairs = np.column_stack([s[i:i + SEARCH_CHUNK], d[i:i + SEARCH_CHUNK]]).tolist()
            # Not prepared: a prepared statement types the list as
            # strings. 245 calls at k20 keep only a few MB.
            found += self.conn.execute(self.w1.SEARCH, {"p": pairs}).get_next()[0]
            limit.check(i + SEARCH_CHUNK - 1)
        return found

    def scan_seq(self):
        return self.one(self.w1.SCAN_SEQ)[0]

    def scan_rand(self, a, limit):
        total, i = 0, 0
        for piece in stream_u32s(perm_path(a)):
            for v in piece.tolist():
                total += self.one(self.w1.SCAN_ONE, {"v": v})[0] or 0
                limit.check(i)
                i += 1
        return total

    def bfs(self, s):
        return self.one(self.w1.BFS, {"s": s})[0] + 1

    def pr(self):
        return self.w1.page_rank_top(self.conn)

    def wcc(self):
        return self.w1.wcc_count(self.conn)

    def sssp(self, s):
        n, total = self.one(self.w1.SSSP, {"s": s})
        return n + 1, float(total)


def write_csv(path, a, first, count):
    """Edges first..first+count of kS.bin as `src,dst,weight` lines."""
    with open(path, "w") as f:
        for s, d in stream_pairs(edges_path(a), first, count):
            w = c.w1_weights(s, d)
            f.write("".join(f"{x},{y},{z!r}\n" for x, y, z in zip(s.tolist(), d.tolist(), w.tolist())))


def edges_path(a):
    return os.path.join(a.data, f"k{a.scale}.bin")


def perm_path(a):
    return os.path.join(a.data, f"k{a.scale}.perm.bin")


def run(a):
    ref = c.reference(a.data, a.scale)
    split = ref["edges"] * 4 // 5
    peer = {"rocksdict": Rocks, "kuzu": Kuzu}[a.peer](a)
    rows = c.Rows(f"{peer.name}-disk", peer.version, f"k{a.scale}", [
        f"# workload: W1 k{a.scale} from {a.data}, phase {a.phase} on the store {a.store}",
        "# the cap, if any, is bench/memcap.py's",
    ] + [f"# {n}" for n in peer.notes])

    def expect_edges(want, after):
        got = peer.edge_count()
        if got != want:
            raise c.Mismatch(f"after {after} the store holds {got} edges, reference {want}")
        return f"edges={got}"

    if a.phase == "prepare":
        if hasattr(peer, "csv"):
            peer.prepare(a, ref, split)
        return rows
    if a.phase == "load":
        if os.path.exists(a.store) and os.listdir(a.store):
            sys.exit(f"{a.store}: not empty; load creates a new store")
        shutil.rmtree(a.store, ignore_errors=True)
        start = time.perf_counter()
        peer.load(a, ref, split)
        loaded = time.perf_counter() - start
        check = expect_edges(split, "load")
        counted = time.perf_counter() - start - loaded
        peer.close()
        closed = time.perf_counter() - start - counted
        rows.row("load_80", 1, loaded, "s", check)
        rows.row("load_80_closed", 1, closed, "s", check)
        rows.row("disk_bytes", 1, c.dir_bytes(a.store), "bytes", "")
        return rows
    peer.open()
    if a.phase == "insert_single":
        expect_edges(split, "load")
        tail = ref["edges"] - split
        done, start, note = 0, time.perf_counter(), ""
        limit = c._Budget(tail, a.budget)
        try:
            for s, d in stream_pairs(edges_path(a), split, tail):
                for u, v, w in zip(s.tolist(), d.tolist(), c.w1_weights(s, d).tolist()):
                    peer.insert(u, v, w)
                    done += 1
                    limit.check(done - 1)
        except c.OverBudget:
            pass
        secs = time.perf_counter() - start
        rate = done / secs
        if done < tail:
            note = (f"stopped at the budget: {done} of {tail} single inserts in {secs:.0f}s, the rate is "
                    f"theirs; the fill phase writes the other {tail - done} (untimed, uncapped);")
        check = note + expect_edges(split + done, "insert_single")
        rows.row("insert_single", 1, rate, "edges/s", check)
        # Saved before the close too: Kuzu's checkpoint at close can be
        # what the cap kills.
        rows.save(a.out)
        t = time.perf_counter()
        peer.close()
        if done == tail:
            rows.row("insert_single_closed", 1, secs + time.perf_counter() - t, "s", check)
        rows.row("disk_bytes", 1, c.dir_bytes(a.store), "bytes", "")
        return rows
    if a.phase == "fill":
        # Edges go in file order, so the count says where insert_single stopped.
        have = peer.edge_count()
        if not split <= have <= ref["edges"]:
            sys.exit(f"the store holds {have} edges; fill completes one that insert_single left between "
                     f"{split} and {ref['edges']}")
        if have < ref["edges"]:
            peer.rest(a, have, ref["edges"] - have)
        check = expect_edges(ref["edges"], "fill")
        peer.close()
        rows.row("fill", 1, ref["edges"] - have, "edges", check)
        return rows
    if a.phase == "reads":
        expect_edges(ref["edges"], "insert_single")
        source = ref["bfs_source"]
        for read in [r for r in READS if not a.reads or r in a.reads]:
            if read in c.KERNELS and not peer.kernels:
                rows.na(read, a.threads, peer.w1.NO_KERNELS)
                continue
            start = time.perf_counter()
            try:
                if read == "search_edge":
                    pairs = np.fromfile(os.path.join(a.data, f"k{a.scale}.search.bin"), dtype="<u4")
                    s, d = pairs[0::2].astype(np.int64), pairs[1::2].astype(np.int64)
                    found = peer.search(s, d, c._Budget(len(s), a.budget))
                    check = c.expect("found", found, len(s))
                    value, unit = len(s) / (time.perf_counter() - start), "ops/s"
                else:
                    if read == "scan_seq":
                        check = c.expect("sum_dst", peer.scan_seq(), ref["sum_dst"])
                    elif read == "scan_rand":
                        check = c.expect("sum_dst", peer.scan_rand(a, c._Budget(ref["vertices"], a.budget)),
                                         ref["sum_dst"])
                    elif read == "bfs":
                        check = c.expect("bfs_reached", peer.bfs(source), ref["bfs_reached"])
                    elif read == "pr":
                        check = c.expect("pagerank_top_vertex", peer.pr(), ref["pagerank_top"])
                    elif read == "wcc":
                        check = c.expect("wcc_components", peer.wcc(), ref["wcc_components_all_ids"])
                    else:
                        check = c.sssp_checksum(ref, *peer.sssp(source))
                    value, unit = time.perf_counter() - start, "s"
            except c.OverBudget as e:
                rows.na(read, a.threads, e.reason("vertices" if read == "scan_rand" else "pairs"))
                continue
            rows.row(read, a.threads, value, unit, check)
        return rows
    # delete_mixed
    expect_edges(ref["edges"], "insert_single")
    ops_path = os.path.join(a.data, f"k{a.scale}.ops.bin")
    count = os.path.getsize(ops_path) // 12
    start = time.perf_counter()
    limit = c._Budget(count, a.budget)
    i = 0
    try:
        # In pieces: 1M ops as Python lists take over 100 MB, which killed
        # RocksDB's phase under a 128 MiB cap.
        for piece in stream_u32s(ops_path, piece=3 * PIECE):
            ops = piece.reshape(-1, 3)
            w = c.w1_weights(ops[:, 1], ops[:, 2]).tolist()
            for (kind, u, v), x in zip(ops.tolist(), w):
                if kind:
                    peer.insert(u, v, x)
                else:
                    peer.delete(u, v)
                limit.check(i)
                i += 1
    except c.OverBudget as e:
        rows.na("delete_mixed", 1, e.reason("ops"))
        return rows
    rate = count / (time.perf_counter() - start)
    check = expect_edges(ref["edges_after_ops"], "delete_mixed")
    peer.close()
    rows.row("delete_mixed", 1, rate, "ops/s", check)
    return rows


def main():
    ap = argparse.ArgumentParser(description="W1 on RocksDB or Kuzu, one phase per process, for runs under a memory cap")
    ap.add_argument("--peer", required=True, choices=["rocksdict", "kuzu"])
    ap.add_argument("--data", default="/work/data")
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--store", required=True, help="the store's directory (the load phase creates it)")
    ap.add_argument("--phase", required=True, choices=PHASES)
    ap.add_argument("--reads", default="", help=f"the reads phase runs only these (comma-separated: {', '.join(READS)})")
    ap.add_argument("--threads", type=int, default=1, help="Kuzu's threads for queries and kernels")
    ap.add_argument("--buffer-pool", type=int, default=0, help="Kuzu's buffer pool in bytes (0: its default)")
    ap.add_argument("--memory", type=int, default=0,
                    help="RocksDB's memory in bytes, as `bench capped --memory`: an eighth for the write "
                         "buffers (two), an eighth for the block cache (0: RocksDB's defaults)")
    ap.add_argument("--budget", type=float, default=600.0,
                    help="seconds one operation may take before it is stopped")
    ap.add_argument("--out", default=None)
    a = ap.parse_args()
    a.reads = [r for r in a.reads.split(",") if r]
    bad = [r for r in a.reads if r not in READS]
    if bad:
        ap.error(f"unknown read {bad[0]!r} (one of {', '.join(READS)})")
    rows = run(a)
    rows.save(a.out)


if __name__ == "__main__":
    main()
