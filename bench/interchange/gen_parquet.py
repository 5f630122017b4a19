#!/usr/bin/env python3
"""Writes the neutral inputs every system imports, from the W1 file
/work/data/kS.bin:

    OUTDIR/nodes.parquet   id int64 (0..n-1, W1's vertex ids; n from kS.ref.json)
    OUTDIR/edges.parquet   src int64, dst int64, weight double (W1's weights)
    OUTDIR/inputs.json     n, m and the checksums of the edges

Edges in kS.bin's order; Snappy compression, pyarrow's default row groups
(at most 1Mi rows each). Files are written under temporary names and
renamed, so a half-written input is never taken for a whole one.

    gen_parquet.py S OUTDIR [--data /work/data]

Run with a python that has numpy and pyarrow (run.sh uses stratagraph's
.venv).
"""
import argparse
import json
import os
import sys

import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iocommon as c  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("scale", type=int)
    ap.add_argument("outdir")
    ap.add_argument("--data", default="/work/data")
    a = ap.parse_args()
    base = os.path.join(a.data, f"k{a.scale}")
    with open(base + ".ref.json") as f:
        n = int(json.load(f)["vertices"])
    src, dst = c.read_pairs(base + ".bin")
    w = c.w1_weights(src, dst)
    os.makedirs(a.outdir, exist_ok=True)

    def write(table, name):
        path = os.path.join(a.outdir, name)
        pq.write_table(table, path + ".tmp", compression="snappy")
        os.replace(path + ".tmp", path)
        return os.path.getsize(path)

    nb = write(pa.table({"id": pa.array(range(n), type=pa.int64())}), "nodes.parquet")
    eb = write(pa.table({"src": pa.array(src, type=pa.int64()), "dst": pa.array(dst, type=pa.int64()),
                         "weight": pa.array(w, type=pa.float64())}), "edges.parquet")
    info = {"source": base + ".bin", "vertices": n, **c.checksum(src, dst, w),
            "nodes_bytes": nb, "edges_bytes": eb, "pyarrow": pa.__version__}
    with open(os.path.join(a.outdir, "inputs.json"), "w") as f:
        json.dump(info, f, indent=1)
    print(f"wrote {a.outdir}/nodes.parquet ({n} rows, {nb} bytes) and edges.parquet "
          f"({len(src)} rows, {eb} bytes)")


if __name__ == "__main__":
    main()
