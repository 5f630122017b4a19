#!/usr/bin/env python3
"""Interchange on stratagraph (issue 33's speed section): Parquet in
through pyarrow and Arrow, Arrow out of and into a graph, and the GraphAr
Parquet export and its import. Runs in the repo's .venv (stratagraph
installed editable, pyarrow).

Operations, each run `--runs` times on a fresh graph or directory, median
reported, every result checked against kS.bin's figures first:

  import_parquet_arrow    pq.read_table(nodes.parquet) and (edges.parquet),
                          columns renamed to _id / _src, _dst, _weight
                          (no copy), stratagraph.from_arrow(nodes, edges):
                          the user's path from plain Parquet files.
  from_arrow_edges        from_arrow(None, edges) from a Table already in
                          memory (no Parquet read; vertices come from the
                          edge ends).
  to_arrow_edges          pyarrow.table(snapshot.arrow_edges()) of a
                          compacted snapshot: the edge table of to_arrow.
                          The note gives the bytes of Arrow buffers built
                          per edge (sum of buffer sizes of the table's
                          columns, dictionaries included), by column.
  to_arrow                snapshot.to_arrow(): vertex and edge tables.
  to_arrow_edges_internal pyarrow.table(snapshot.arrow_edges(ids="internal"))
                          of an on-disk store after Graph.compact(): ends
                          as internal ids, so a directed graph's _dst and
                          _weight can be the level's own mapped bytes. The
                          note splits the table's buffer bytes per edge
                          into shared (inside a mapping of one of the
                          store's *.seg files, per /proc/self/maps) and
                          copied (everything else), by column; the check
                          maps ends back to user ids through the vertex
                          table's _vid.
  export_parquet          snapshot.export_parquet(dir) (GraphAr layout);
                          bytes on disk in the note; each export is read
                          back with pyarrow and checked.
  import_parquet_graphar  stratagraph.read_parquet(dir) of that export.
"""
import gc
import os
import shutil
import sys
import tempfile
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iocommon as c  # noqa: E402


def import_stratagraph():
    """stratagraph, retried for a while: the engineer may be rebuilding
    the editable install."""
    import time
    for attempt in range(10):
        try:
            import stratagraph
            return stratagraph
        except ImportError:
            if attempt == 9:
                raise
            print("# import stratagraph failed (a rebuild?); retrying in 30 s", flush=True)
            time.sleep(30)


sg = import_stratagraph()


def read_inputs(nodes_path, edges_path):
    nodes = pq.read_table(nodes_path).rename_columns(["_id"])
    edges = pq.read_table(edges_path, columns=["src", "dst", "weight"]).rename_columns(
        ["_src", "_dst", "_weight"])
    return nodes, edges


def graph_sums(g, ref, vertices):
    """Checks g's counts and edge checksums; returns the check text."""
    ref.expect("vertices", g.num_vertices, vertices)
    ref.expect("edges", g.num_edges, ref.m)
    with g.snapshot() as s:
        src, dst, w = s.edges(weights=True)
    return ref.check("graph", c.checksum(src, dst, w)) + f",vertices={vertices}"


def arrow_buffer_bytes(table):
    """Bytes of the Arrow buffers a table holds, per column (each buffer
    once, dictionaries included)."""
    seen, per = set(), {}
    for name, col in zip(table.column_names, table.columns):
        total = 0
        for chunk in col.chunks:
            bufs = list(chunk.buffers())
            if pa.types.is_dictionary(chunk.type):
                bufs += chunk.dictionary.buffers()
            for b in bufs:
                if b is not None and (b.address, b.size) not in seen:
                    seen.add((b.address, b.size))
                    total += b.size
        per[name] = total
    return per


def level_mappings(store):
    """Address ranges of the store's level files mapped into this
    process, from /proc/self/maps."""
    ranges = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5].startswith(store) and parts[5].endswith(".seg"):
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                ranges.append((lo, hi))
    return ranges


def shared_and_copied(table, maps):
    """Per column, (bytes of buffers inside `maps`, bytes of the others),
    each buffer once."""
    seen, per = set(), {}
    for name, col in zip(table.column_names, table.columns):
        shared = copied = 0
        for chunk in col.chunks:
            for b in chunk.buffers():
                if b is None or (b.address, b.size) in seen:
                    continue
                seen.add((b.address, b.size))
                if any(lo <= b.address and b.address + b.size <= hi for lo, hi in maps):
                    shared += b.size
                else:
                    copied += b.size
        per[name] = (shared, copied)
    return per


def internal_sums(vt, et, ref):
    """Checks an edge table of internal ids against the input, mapping
    its ends to user ids through the vertex table's _vid."""
    vid = vt.column("_vid").to_numpy()
    ids = np.zeros(len(vid), dtype=np.int64)
    ids[vid] = vt.column("_id").to_numpy()
    ref.expect("rows", et.num_rows, ref.m)
    src = ids[et.column("_src").to_numpy()]
    dst = ids[et.column("_dst").to_numpy()]
    w = (et.column("_weight").to_numpy() if "_weight" in et.column_names
         else np.ones(et.num_rows))
    return ref.check("arrow edges (internal ids)", c.checksum(src, dst, w))


def table_sums(t, ref):
    """Checks an edge table from to_arrow: rows, ends, weights, and that
    every row is a weighted edge (null _label)."""
    ref.expect("rows", t.num_rows, ref.m)
    ref.expect("null _label", t.column("_label").null_count, ref.m)
    return ref.check("arrow edges", c.checksum(t.column("_src").to_numpy(), t.column("_dst").to_numpy(),
                                               t.column("_weight").to_numpy()))


def graphar_sums(folder, ref):
    """Reads an export with pyarrow alone (stratagraph.json for the file
    names, vertex chunks for the ids, adjacency and property chunks) and
    checks it against the input."""
    with open(os.path.join(folder, "stratagraph.json")) as f:
        meta = json.load(f)
    ids = []
    for vt in meta["vertices"]:
        parts = [pq.read_table(os.path.join(folder, "vertex", vt["name"], "properties", f"chunk{k}"))
                 for k in range(vt["chunks"])]
        t = pa.concat_tables(parts)
        idx = t.column("_graphArVertexIndex").to_numpy()
        if not np.array_equal(idx, np.arange(len(idx))):
            raise c.Mismatch(f"{vt['name']}: vertex indexes out of sequence")
        ids.append(t.column("_id").to_numpy())
    nvert = sum(len(x) for x in ids)
    ref.expect("exported vertices", nvert, ref.n)
    src, dst, w = [], [], []
    for et in meta["edges"]:
        if et["kind"] != "weighted":
            raise c.Mismatch(f"unexpected property edge type {et['name']}")
        base = os.path.join(folder, "edge", et["name"], "ordered_by_source")
        for i, nchunks in enumerate(et["chunks"]):
            for j in range(nchunks):
                adj = pq.read_table(os.path.join(base, "adj_list", f"part{i}", f"chunk{j}"))
                prop = pq.read_table(os.path.join(base, "properties", f"part{i}", f"chunk{j}"))
                if adj.num_rows != prop.num_rows:
                    raise c.Mismatch(f"{et['name']} part{i}/chunk{j}: rows differ")
                src.append(ids[et["src"]][adj.column("_graphArSrcIndex").to_numpy()])
                dst.append(ids[et["dst"]][adj.column("_graphArDstIndex").to_numpy()])
                w.append(prop.column("_weight").to_numpy())
    return ref.check("export", c.checksum(np.concatenate(src), np.concatenate(dst), np.concatenate(w)))


class Scratch:
    """Temporary folders under --scratch, removed at exit."""

    def __init__(self, root):
        self.root = tempfile.mkdtemp(prefix="interchange-stratagraph-", dir=root)

    def new(self, name):
        path = os.path.join(self.root, name)
        shutil.rmtree(path, ignore_errors=True)
        return path

    def close(self):
        shutil.rmtree(self.root, ignore_errors=True)


def compacted(nodes, edges, scratch):
    """A graph of the input whose snapshot reads compacted levels, and how
    it was made. Graph.compact() where the Python API has it; otherwise an
    on-disk store loaded and closed (close() compacts it) and opened again
    read-only."""
    if hasattr(sg.Graph, "compact"):
        g = sg.from_arrow(nodes, edges)
        g.compact()
        return g, "in-memory graph after Graph.compact()"
    path = scratch.new("store")
    g = sg.Graph.open(path, sync="never")
    g.load_arrow(nodes, edges)
    g.close()
    g = sg.Graph.open(path, read_only=True)
    return g, ("this build's Python API has no Graph.compact: an on-disk store (sync=never) "
               "loaded, closed (close compacts) and opened read_only")


def main():
    a = c.parse_args("stratagraph")
    ref = c.Reference(a.data, a.scale)
    nodes_path, edges_path = c.input_files(a.inputs)
    c.warm(nodes_path, edges_path)
    rows = c.Rows("stratagraph", sg.__version__, ref, [
        "stratagraph through its Python API in one process; threads=0 (all cores) for loads",
        f"inputs: {nodes_path}, {edges_path}",
        "checks: vertex and edge counts, sum of src, sum of dst, exact sum of the W1 weight codes",
    ])
    scratch = Scratch(a.scratch)
    n, m = ref.n, ref.m
    try:
        # import_parquet_arrow: Parquet files -> pyarrow -> from_arrow.
        try:
            def once():
                t0 = c.clock()
                nodes, edges = read_inputs(nodes_path, edges_path)
                t1 = c.clock()
                g = sg.from_arrow(nodes, edges)
                t2 = c.clock()
                check = graph_sums(g, ref, n)
                g.close()
                del g, nodes, edges
                gc.collect()
                return t2 - t0, (t1 - t0, t2 - t1, check)
            secs, ex = c.measure(a.runs, once)
            rd, fa = c.median([x[0] for x in ex]), c.median([x[1] for x in ex])
            rows.row("import_parquet_arrow", secs, m,
                     f"nodes+edges; pq.read_table {rd:.3f}s + from_arrow {fa:.3f}s (medians); {ex[-1][2]}")
        except Exception as e:
            rows.fail("import_parquet_arrow", e)

        nodes, edges = read_inputs(nodes_path, edges_path)
        edges = edges.combine_chunks()

        # from_arrow_edges: an in-memory Table, edges only.
        try:
            def once():
                t0 = c.clock()
                g = sg.from_arrow(None, edges)
                t1 = c.clock()
                check = graph_sums(g, ref, ref.touched)
                g.close()
                del g
                gc.collect()
                return t1 - t0, check
            secs, ex = c.measure(a.runs, once)
            rows.row("from_arrow_edges", secs, m,
                     f"edge table in memory ({edges.num_rows} rows, {edges.column(0).num_chunks} chunk); "
                     f"vertices from the edge ends; {ex[-1]}")
        except Exception as e:
            rows.fail("from_arrow_edges", e)

        # Reads of a compacted snapshot.
        try:
            g, how = compacted(nodes, edges, scratch)
            snap = g.snapshot()
        except Exception as e:
            for op in ["to_arrow_edges", "to_arrow", "export_parquet", "import_parquet_graphar"]:
                rows.fail(op, e)
            raise SystemExit(rows.save(a.out))

        try:
            def once():
                t0 = c.clock()
                t = pa.table(snap.arrow_edges())
                t1 = c.clock()
                check = table_sums(t, ref)
                per = arrow_buffer_bytes(t)
                del t
                return t1 - t0, (check, per)
            secs, ex = c.measure(a.runs, once)
            check, per = ex[-1]
            total = sum(per.values())
            cols = ", ".join(f"{k} {v / m:.3f}" for k, v in per.items())
            rows.row("to_arrow_edges", secs, m,
                     f"bytes_per_edge={total / m:.3f} (Arrow buffers built: {cols}); {how}; {check}")
        except Exception as e:
            rows.fail("to_arrow_edges", e)

        try:
            def once():
                t0 = c.clock()
                vt, et = snap.to_arrow()
                t1 = c.clock()
                ref.expect("vertex rows", vt.num_rows, n)
                check = table_sums(et, ref)
                del vt, et
                return t1 - t0, check
            secs, ex = c.measure(a.runs, once)
            rows.row("to_arrow", secs, m, f"vertex and edge tables; {ex[-1]}")
        except Exception as e:
            rows.fail("to_arrow", e)

        try:
            path = scratch.new("store-internal")
            g2 = sg.Graph.open(path, directed=True, sync="never")
            g2.load_arrow(nodes, edges)
            g2.compact()
            snap2 = g2.snapshot()
            vt = snap2.to_arrow(ids="internal")[0]

            def once():
                t0 = c.clock()
                t = pa.table(snap2.arrow_edges(ids="internal"))
                t1 = c.clock()
                check = internal_sums(vt, t, ref)
                per = shared_and_copied(t, level_mappings(path))
                del t
                return t1 - t0, (check, per)
            secs, ex = c.measure(a.runs, once)
            check, per = ex[-1]
            shared = sum(s for s, _ in per.values())
            copied = sum(x for _, x in per.values())
            cols = ", ".join(f"{k} {s / m:.3f}/{x / m:.3f}" for k, (s, x) in per.items())
            rows.row("to_arrow_edges_internal", secs, m,
                     f"copied_per_edge={copied / m:.3f} shared_per_edge={shared / m:.3f} "
                     f"(by column, shared/copied: {cols}); on-disk store (sync=never) after "
                     f"Graph.compact(); {check}")
            snap2.close()
            g2.close()
            del snap2, g2, vt
            gc.collect()
        except Exception as e:
            rows.fail("to_arrow_edges_internal", e)

        export = None
        try:
            def once():
                path = scratch.new("export")
                t0 = c.clock()
                done = snap.export_parquet(path)
                t1 = c.clock()
                ref.expect("weighted_edges", done["weighted_edges"], m)
                ref.expect("vertices", done["vertices"], n)
                check = graphar_sums(path, ref)
                return t1 - t0, (check, c.dir_bytes(path), done["files"])
            secs, ex = c.measure(a.runs, once)
            check, size, files = ex[-1]
            export = os.path.join(scratch.root, "export")  # the last run's, for the import
            rows.row("export_parquet", secs, m,
                     f"GraphAr layout, {files} Parquet files, {size} bytes on disk "
                     f"({size / m:.2f} B/edge); read back with pyarrow: {check}")
        except Exception as e:
            rows.fail("export_parquet", e)
        snap.close()
        g.close()
        del snap, g
        gc.collect()

        # import_parquet_graphar: read_parquet of that export.
        try:
            if export is None:
                raise RuntimeError("no export to import (export_parquet failed)")
            size = c.dir_bytes(export)

            def once():
                t0 = c.clock()
                g2 = sg.read_parquet(export)
                t1 = c.clock()
                check = graph_sums(g2, ref, n)
                g2.close()
                del g2
                gc.collect()
                return t1 - t0, check
            secs, ex = c.measure(a.runs, once)
            rows.row("import_parquet_graphar", secs, m,
                     f"stratagraph.read_parquet of its own GraphAr export ({size} bytes); {ex[-1]}")
        except Exception as e:
            rows.fail("import_parquet_graphar", e)
    finally:
        scratch.close()
    rows.save(a.out)


if __name__ == "__main__":
    main()
