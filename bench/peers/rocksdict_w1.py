#!/usr/bin/env python3
"""W1 on RocksDB through rocksdict: an edge-keyed LSM store, the baseline of
the LSMGraph paper. Key = (src, dst) as 8 big-endian bytes, so keys sort by
source then destination and a vertex's out-edges are one key range; value =
the weight as 8 bytes."""
import importlib.metadata
import shutil
import tempfile

import numpy as np
import rocksdict as rd

import w1common as c

NO_KERNELS = "n/a: an edge-keyed key-value store has no graph kernels (LSMGraph's RocksDB baseline stores edges only)"


def keys_of(src, dst):
    k = ((np.asarray(src, dtype=np.uint64) << np.uint64(32)) | np.asarray(dst, dtype=np.uint64))
    buf = k.astype(">u8").tobytes()
    return [buf[i:i + 8] for i in range(0, len(buf), 8)]


def values_of(wt):
    buf = np.asarray(wt, dtype="<f8").tobytes()
    return [buf[i:i + 8] for i in range(0, len(buf), 8)]


def key(u, v):
    return ((u << 32) | v).to_bytes(8, "big")


def list_sum(it, v):
    """The sum of vertex v's destinations: its keys, one range found by a
    seek of iterator `it` to v's 4-byte prefix."""
    prefix = v.to_bytes(4, "big")
    it.seek(prefix)
    s = 0
    while it.valid():
        k = it.key()
        if k[:4] != prefix:
            break
        s += int.from_bytes(k[4:8], "big")
        it.next()
    return s


class Rocks(c.Peer):
    name = "rocksdict"
    version = importlib.metadata.version("rocksdict")
    na = {
        "insert_single_2": "n/a: not measured: one Python process drives RocksDB, so a second writer thread would measure the GIL, not RocksDB",
        "kernels": NO_KERNELS,
        "tc": NO_KERNELS,
        "mixed_rw": "n/a: needs SSSP, which an edge-keyed key-value store does not have",
    }
    notes = [
        "RocksDB defaults through rocksdict (raw bytes mode): WAL on, no fsync per write",
        "bulk_load is one WriteBatch; a batch is one WriteBatch; one edge is one put (atomic)",
        "search_edge is one multi-get over all pairs; scan_rand seeks each vertex's key prefix",
        "edge counts for the checks are counted by iterating the keys (untimed)",
    ]

    def __init__(self, scratch):
        self.scratch = scratch

    def _open(self):
        path = tempfile.mkdtemp(prefix="rocksdict-w1-", dir=self.scratch)
        opts = rd.Options(raw_mode=True)
        opts.create_if_missing(True)
        return rd.Rdict(path, options=opts), path

    def load(self, w, src, dst, wt):
        db, path = self._open()
        wb = rd.WriteBatch(raw_mode=True)
        for k, v in zip(keys_of(src, dst), values_of(wt)):
            wb.put(k, v)
        db.write(wb)
        return (db, path)

    def close(self, g):
        db, path = g
        db.close()
        shutil.rmtree(path, ignore_errors=True)

    def disk_bytes(self, g):
        db, path = g
        db.flush()
        db.compact_range(None, None)
        return c.dir_bytes(path)

    def edge_count(self, g):
        return sum(1 for _ in g[0].keys())

    def insert(self, g, u, v, wt):
        g[0].put(key(u, v), np.float64(wt).tobytes())

    def delete(self, g, u, v):
        g[0].delete(key(u, v))

    def batch(self, g, s, d, wt):
        wb = rd.WriteBatch(raw_mode=True)
        for k, v in zip(keys_of(s, d), values_of(wt)):
            wb.put(k, v)
        g[0].write(wb)

    def search(self, g, s, d, budget):
        got = g[0].get(keys_of(s, d))
        return sum(1 for x in got if x is not None)

    def scan_seq(self, g, n, budget):
        total = 0
        for k in g[0].keys():
            total += int.from_bytes(k[4:8], "big")
        return total

    def scan_rand(self, g, perm, budget):
        it = g[0].iter()
        p = perm.tolist()
        return sum(c.stream_results(len(p), lambda i: list_sum(it, p[i]), budget))


if __name__ == "__main__":
    a = c.parse_args("rocksdict")
    c.run(Rocks(a.scratch), c.Work(a.data, a.scale), a)
