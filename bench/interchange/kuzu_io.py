#!/usr/bin/env python3
"""Interchange on kuzu (0.11.3, pinned by run.sh): Parquet import with
COPY ... FROM and export with COPY (query) TO. Runs in its own venv
(kuzu, pyarrow, numpy).

Schema: NODE TABLE V(id INT64, PRIMARY KEY(id)), REL TABLE E(FROM V TO V,
weight DOUBLE). Operations, `--runs` times each, median reported, every
result checked against kS.bin's figures first:

  import_parquet_inmem    CREATE both tables, COPY V, COPY E into
                          Database(":memory:") (closer to stratagraph's
                          in-memory graph); run first.
  import_parquet          a fresh on-disk database directory per run:
                          CREATE both tables, COPY V FROM nodes.parquet,
                          COPY E FROM edges.parquet (the total; the rel
                          COPY alone is import_parquet_rel).
  import_parquet_rel      the COPY E FROM edges.parquet of those runs.
  export_parquet          COPY (MATCH (a:V)-[e:E]->(b:V) RETURN a.id,
                          b.id, e.weight) TO 'edges.parquet' from the
                          on-disk database of the last import; the file
                          is read back with pyarrow and checked.
"""
import gc
import importlib.metadata
import os
import shutil
import sys
import tempfile

import kuzu
import numpy as np
import pyarrow.parquet as pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import iocommon as c  # noqa: E402

VERSION = importlib.metadata.version("kuzu")


def one(conn, q):
    return conn.execute(q).get_next()


def load(path, nodes, edges):
    """A new database at path (":memory:" for in memory) holding the
    inputs; returns (db, conn, seconds of the whole load, of the rel COPY)."""
    db = kuzu.Database(path)
    conn = kuzu.Connection(db)
    t0 = c.clock()
    conn.execute("CREATE NODE TABLE V(id INT64, PRIMARY KEY(id))")
    conn.execute("CREATE REL TABLE E(FROM V TO V, weight DOUBLE)")
    conn.execute(f"COPY V FROM '{nodes}'")
    t1 = c.clock()
    conn.execute(f"COPY E FROM '{edges}'")
    t2 = c.clock()
    return db, conn, t2 - t0, t2 - t1


def check_db(conn, ref):
    ref.expect("vertices", one(conn, "MATCH (v:V) RETURN count(v)")[0], ref.n)
    ref.expect("edges", one(conn, "MATCH ()-[e:E]->() RETURN count(e)")[0], ref.m)
    t = conn.execute("MATCH (a:V)-[e:E]->(b:V) RETURN a.id, b.id, e.weight").get_as_arrow()
    cols = [t.column(i).to_numpy() for i in range(3)]
    return ref.check("database", c.checksum(*cols)) + f",vertices={ref.n}"


def close(db, conn):
    conn.close()
    db.close()


def main():
    a = c.parse_args("kuzu")
    ref = c.Reference(a.data, a.scale)
    nodes, edges = c.input_files(a.inputs)
    c.warm(nodes, edges)
    rows = c.Rows("kuzu", VERSION, ref, [
        "kuzu through its Python API; one Connection, default threads (all cores)",
        "schema: NODE TABLE V(id INT64, PRIMARY KEY(id)), REL TABLE E(FROM V TO V, weight DOUBLE)",
        f"inputs: {nodes}, {edges}",
        "checks: vertex and edge counts, sum of src, sum of dst, exact sum of the W1 weight codes",
    ])
    m = ref.m
    root = tempfile.mkdtemp(prefix="interchange-kuzu-", dir=a.scratch)
    kept = None
    try:
        try:
            def once():
                db, conn, total, rel = load(":memory:", nodes, edges)
                check = check_db(conn, ref)
                close(db, conn)
                del db, conn
                gc.collect()
                return total, (rel, check)
            secs, ex = c.measure(a.runs, once)
            rows.row("import_parquet_inmem", secs, m,
                     f'Database(":memory:"); CREATE + COPY V + COPY E (COPY E '
                     f"{c.median([x[0] for x in ex]):.3f}s median); {ex[-1][1]}")
        except Exception as e:
            rows.fail("import_parquet_inmem", e)

        try:
            def once():
                nonlocal kept
                if kept:
                    close(*kept[:2])
                    shutil.rmtree(kept[2], ignore_errors=True)
                    kept = None
                    gc.collect()
                    os.sync()  # the last run's writes, out before this run's clock starts
                folder = tempfile.mkdtemp(dir=root)
                db, conn, total, rel = load(os.path.join(folder, "db"), nodes, edges)
                check = check_db(conn, ref)
                kept = (db, conn, folder)
                return total, (rel, check, c.dir_bytes(folder))
            secs, ex = c.measure(a.runs, once)
            rel = [x[0] for x in ex]
            rows.row("import_parquet", secs, m,
                     f"on disk, fresh directory per run; CREATE tables + COPY V + COPY E "
                     f"(COPY E {c.median(rel):.3f}s median); {ex[-1][2]} bytes on disk after; {ex[-1][1]}")
            rows.row("import_parquet_rel", rel, m,
                     f"COPY E FROM edges.parquet alone (after COPY V), on disk; {ex[-1][1]}")
        except Exception as e:
            rows.fail("import_parquet", e)
            rows.fail("import_parquet_rel", e)

        try:
            if kept is None:
                raise RuntimeError("no database to export (import_parquet failed)")
            conn = kept[1]
            out = os.path.join(root, "export.parquet")

            def once():
                if os.path.exists(out):
                    os.remove(out)
                t0 = c.clock()
                conn.execute("COPY (MATCH (a:V)-[e:E]->(b:V) RETURN a.id AS src, b.id AS dst, "
                             f"e.weight AS weight) TO '{out}'")
                t1 = c.clock()
                t = pq.read_table(out)
                check = ref.check("export", c.checksum(t.column(0).to_numpy(), t.column(1).to_numpy(),
                                                       t.column(2).to_numpy()))
                return t1 - t0, (check, os.path.getsize(out), str(t.schema).replace("\n", ", "))
            secs, ex = c.measure(a.runs, once)
            check, size, schema = ex[-1]
            rows.row("export_parquet", secs, m,
                     f"COPY (MATCH ... RETURN a.id, b.id, e.weight) TO parquet from the on-disk database; "
                     f"{size} bytes ({size / m:.2f} B/edge; {schema}); read back with pyarrow: {check}")
        except Exception as e:
            rows.fail("export_parquet", e)
    finally:
        if kept:
            close(*kept[:2])
        shutil.rmtree(root, ignore_errors=True)
    rows.save(a.out)


if __name__ == "__main__":
    main()
