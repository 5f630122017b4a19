"""Spark's half of the hand-off check (bench/spark/run.sh).

Reads the directory export_side.py wrote (OUT/export: stratagraph's Parquet
export in Apache GraphAr's layout, docs/FORMAT.md section 7; OUT/answers:
stratagraph's own answers on the same snapshot) with Apache Spark in local
mode, rebuilds the graph from the Parquet files alone and checks it:

  vertices   count per vertex type and in all, ids unique, indexes 0..count-1
  edges      count per edge type and in all; every edge end an index of its
             type's vertex table; the edges (ends as ids, joined on the index
             columns, with the properties chunk lined up row by row: edge id
             or weight) equal stratagraph's edge list exactly
  degrees    out, in and total degree of every vertex, exactly
  pagerank   LDBC Graphalytics PageRank computed with Spark DataFrames:
               PR_0(v) = 1/N
               PR_i(v) = (1-d)/N + d * (sum_{u->v} PR_{i-1}(u)/outdeg(u)
                                        + sum_{outdeg(w)=0} PR_{i-1}(w) / N)
             for the same fixed number of iterations; within --tol relative
             per vertex
  wcc        weakly connected components by minimum-label propagation in
             Spark DataFrames; the same partition of the vertices as
             stratagraph's (component ids may differ)
  wcc graphx (with --graphx-jar) the same with Spark GraphX's own
             ConnectedComponents (what GraphFrames runs with algorithm
             "graphx"), called through GraphXWcc.java

With --change-feed, also the change-feed increment: OUT/changes.parquet
(stratagraph's `Graph.changes(since=ts0)` after a batch of writes, ts0 being
the exported snapshot) is read and applied, in commit order, to the
vertices and edges read from the export (see the comment above
apply_change_feed_increment), and the result is checked against
stratagraph's answers on the state after the writes (OUT/answers_after):

  cf feed      rows and ops as stratagraph wrote them, ts after ts0 and in
               order, every structural row complete
  cf vertices  count, ids unique, count per label
  cf edges     count
  cf edge list the edges (with weights, or edge ids and labels) exactly
  cf degrees   out, in and total degree of every vertex, exactly
  cf pagerank, cf wcc   as above, on the graph after the changes (skipped
               with --no-change-feed-kernels)

The graph the kernels see is the one stratagraph's kernels see: without
`labels` the weighted structure (edge types of kind "weighted"); with
`labels` the projection of the property edges of those labels, parallel
edges as one. In an undirected store every edge counts in both directions
(a self-loop once). N counts every vertex of every type.

GraphFrames is not used: its jar (io.graphframes:graphframes-spark4_2.13) is
not obtainable from the Maven Central this machine reaches (see README.md),
and its PageRank (GraphX's) is, as far as we know, not the Graphalytics
definition (dangling rank is not spread each iteration), so PageRank would
likely be our own DataFrame code in any case. GraphX itself
ships inside pyspark, and its connected components are the second WCC check.

Prints one PASS/FAIL line per check and one per graph; exits 1 on any FAIL.
Writes OUT/spark_result.json (checks, figures, wall times).
"""

import argparse
import functools
import json
import os
import sys
import time

from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F
from pyspark.sql.types import LongType


class Checks:
    def __init__(self, graph):
        self.graph = graph
        self.rows = []

    def check(self, name, ok, detail):
        self.rows.append({"check": name, "ok": bool(ok), "detail": detail})
        print(f"{'PASS' if ok else 'FAIL'}  {self.graph:18s} {name:12s} {detail}", flush=True)
        return ok

    @property
    def ok(self):
        return all(r["ok"] for r in self.rows)


class Timer:
    def __init__(self):
        self.seconds = {}

    def step(self, name):
        timer = self

        class _Step:
            def __enter__(self):
                self.t = time.perf_counter()

            def __exit__(self, *exc):
                timer.seconds[name] = round(time.perf_counter() - self.t, 3)
                return False

        return _Step()


def read_chunks(spark, path):
    """Every chunk file under `path` (GraphAr chunks have no extension, so a
    plain glob on *.parquet would find nothing)."""
    return spark.read.option("recursiveFileLookup", "true").parquet(path)


def with_chunk_position(df):
    """Adds (chunk, row) naming each row's place: `part<i>/chunk<j>` from the
    file's path and its row index within the file, so the adjacency chunk and
    the properties chunk of the same part and number line up row by row."""
    return df.select(
        "*",
        F.regexp_extract(F.col("_metadata.file_path"), r"(part[0-9]+/chunk[0-9]+)$", 1).alias("_chunk"),
        F.col("_metadata.row_index").alias("_row"),
    )


def load_graph(spark, export_dir, meta, labels):
    """(vertices, edges, chosen edge types) from the Parquet files:
    vertices(vtype, vidx, id, label); edges(etype, src, dst, edge_id, weight)
    with ends as user ids, rebuilt by joining on the index columns."""
    vparts = []
    for t, vt in enumerate(meta["vertices"]):
        df = read_chunks(spark, os.path.join(export_dir, "vertex", vt["name"], "properties"))
        vparts.append(df.select(
            F.lit(t).alias("vtype"),
            F.col("_graphArVertexIndex").alias("vidx"),
            F.col("_id").alias("id"),
            F.lit(vt["label"]).alias("label"),
        ))
    vertices = vparts[0]
    for p in vparts[1:]:
        vertices = vertices.unionByName(p)
    if not isinstance(vertices.schema["id"].dataType, LongType):
        raise SystemExit(f"spark_side: vertex ids are {vertices.schema['id'].dataType}; this check handles Int64 ids")
    vertices = vertices.cache()

    if labels is None:
        chosen = [(i, et) for i, et in enumerate(meta["edges"]) if et["kind"] == "weighted"]
    else:
        chosen = [(i, et) for i, et in enumerate(meta["edges"])
                  if et["kind"] == "property" and et["label"] in labels]
    eparts = []
    for i, et in chosen:
        base = os.path.join(export_dir, "edge", et["name"], "ordered_by_source")
        adj = with_chunk_position(read_chunks(spark, os.path.join(base, "adj_list")))
        props = with_chunk_position(read_chunks(spark, os.path.join(base, "properties")))
        if et["kind"] == "weighted":
            props = props.select("_chunk", "_row", F.lit(None).cast("long").alias("edge_id"),
                                 F.col("_weight").alias("weight"))
        else:
            props = props.select("_chunk", "_row", F.col("_id").cast("long").alias("edge_id"),
                                 F.lit(None).cast("double").alias("weight"))
        srcv = vertices.where(F.col("vtype") == et["src"]).select(
            F.col("vidx").alias("_graphArSrcIndex"), F.col("id").alias("src"))
        dstv = vertices.where(F.col("vtype") == et["dst"]).select(
            F.col("vidx").alias("_graphArDstIndex"), F.col("id").alias("dst"))
        e = (adj.select("_chunk", "_row", "_graphArSrcIndex", "_graphArDstIndex")
             .join(props, ["_chunk", "_row"], "left")
             .join(srcv, "_graphArSrcIndex", "left")
             .join(dstv, "_graphArDstIndex", "left")
             .select(F.lit(i).alias("etype"), "src", "dst", "edge_id", "weight",
                     F.col("_chunk").alias("chunk"), F.col("_row").alias("row")))
        eparts.append(e)
    if eparts:
        edges = eparts[0]
        for p in eparts[1:]:
            edges = edges.unionByName(p)
    else:
        edges = spark.createDataFrame([], "etype int, src long, dst long, edge_id long, weight double, chunk string, row long")
    return vertices, edges.cache(), chosen


def pagerank(spark, vertex_ids, arcs, n, damping, iterations):
    """Graphalytics PageRank on `arcs(src, dst)` (distinct) over the vertices
    `vertex_ids(id)`; every vertex is in `vertex_ids`."""
    outdeg = arcs.groupBy("src").agg(F.count("*").alias("deg"))
    verts = (vertex_ids.join(outdeg.withColumnRenamed("src", "id"), "id", "left")
             .select("id", F.coalesce("deg", F.lit(0)).alias("deg"))).cache()
    arcs = arcs.cache()
    rank = verts.select("id", "deg", F.lit(1.0 / n).alias("pr")).localCheckpoint()
    for _ in range(iterations):
        dangling = rank.where(F.col("deg") == 0).agg(F.sum("pr")).first()[0] or 0.0
        base = (1.0 - damping) / n + damping * dangling / n
        contrib = rank.where(F.col("deg") > 0).select(
            F.col("id").alias("src"), (F.col("pr") / F.col("deg")).alias("c"))
        incoming = arcs.join(contrib, "src").groupBy("dst").agg(F.sum("c").alias("s"))
        rank = (verts.join(incoming.withColumnRenamed("dst", "id"), "id", "left")
                .select("id", "deg", (F.lit(base) + F.lit(damping) * F.coalesce("s", F.lit(0.0))).alias("pr"))
                .localCheckpoint())
    return rank.select("id", "pr")


def same_partition(c, name, comp, sgv, detail):
    """Check that comp(id, comp) and stratagraph's wcc column split the
    vertices the same way: as many (spark, stratagraph) label pairs as labels
    on either side, and every vertex on both sides."""
    j = comp.join(sgv.select("id", F.col("wcc").alias("sg")), "id", "full_outer")
    r = j.agg(
        F.count("*").alias("rows"),
        F.sum(F.when(F.col("comp").isNull() | F.col("sg").isNull(), 1).otherwise(0)).alias("unmatched"),
        F.countDistinct("comp").alias("spark_comps"), F.countDistinct("sg").alias("sg_comps"),
        F.countDistinct("comp", "sg").alias("pairs"),
    ).first()
    largest = comp.groupBy("comp").count().agg(F.max("count")).first()[0]
    same = r["unmatched"] == 0 and r["spark_comps"] == r["sg_comps"] == r["pairs"]
    return c.check(name, same,
                   f"{detail}; components spark {r['spark_comps']} stratagraph {r['sg_comps']}, "
                   f"(spark, stratagraph) label pairs {r['pairs']}, unmatched {r['unmatched']}; largest {largest}")


def graphx_wcc(spark, vertex_ids, arcs):
    """GraphX ConnectedComponents through the GraphXWcc helper (its jar on
    spark.jars)."""
    from pyspark.sql import DataFrame

    jdf = spark.sparkContext._jvm.stratagraph.spark.GraphXWcc.run(vertex_ids._jdf, arcs._jdf, 2**31 - 1)
    return DataFrame(jdf, spark)


def wcc(spark, vertex_ids, arcs):
    """Minimum-id label propagation over `arcs` taken both ways, until no
    label changes. Returns (labels(id, comp), rounds)."""
    both = arcs.union(arcs.select(F.col("dst").alias("src"), F.col("src").alias("dst"))) \
        .where(F.col("src") != F.col("dst")).distinct().cache()
    comp = vertex_ids.select("id", F.col("id").alias("comp")).localCheckpoint()
    rounds = 0
    while True:
        rounds += 1
        msgs = both.join(comp.withColumnRenamed("id", "src"), "src").select(F.col("dst").alias("id"), "comp")
        new = (comp.unionByName(msgs).groupBy("id").agg(F.min("comp").alias("comp"))).localCheckpoint()
        changed = new.join(comp.withColumnRenamed("comp", "old"), "id").where(F.col("comp") != F.col("old")).count()
        comp = new
        if changed == 0:
            return comp, rounds


def degrees_of(vid, edges, undirected_weighted):
    """out, in and total degree of every vertex of `vid(id)` from
    `edges(src, dst)`, as stratagraph counts them: in an undirected weighted
    store every edge counts at both ends, out = in, a self-loop once in out
    and in and twice in the total."""
    if undirected_weighted:
        arcs_all = edges.select("src", "dst").union(
            edges.where(F.col("src") != F.col("dst")).select(F.col("dst").alias("src"), F.col("src").alias("dst")))
        outd = arcs_all.groupBy(F.col("src").alias("id")).agg(F.count("*").alias("o"))
        loops = edges.where(F.col("src") == F.col("dst")).groupBy(F.col("src").alias("id")).agg(F.count("*").alias("l"))
        return (vid.join(outd, "id", "left").join(loops, "id", "left")
                .select("id", F.coalesce("o", F.lit(0)).alias("out_degree"),
                        F.coalesce("o", F.lit(0)).alias("in_degree"),
                        (F.coalesce("o", F.lit(0)) + F.coalesce("l", F.lit(0))).alias("degree")))
    outd = edges.groupBy(F.col("src").alias("id")).agg(F.count("*").alias("o"))
    ind = edges.groupBy(F.col("dst").alias("id")).agg(F.count("*").alias("i"))
    return (vid.join(outd, "id", "left").join(ind, "id", "left")
            .select("id", F.coalesce("o", F.lit(0)).alias("out_degree"),
                    F.coalesce("i", F.lit(0)).alias("in_degree"),
                    (F.coalesce("o", F.lit(0)) + F.coalesce("i", F.lit(0))).alias("degree")))


def check_degrees(c, name, deg, sgv):
    j = deg.join(sgv.select("id", *[F.col(k).alias("sg_" + k) for k in ("out_degree", "in_degree", "degree")]),
                 "id", "full_outer")
    r = j.agg(
        F.count("*").alias("rows"),
        F.sum(F.when(F.col("out_degree").isNull() | F.col("sg_out_degree").isNull(), 1).otherwise(0)).alias("unmatched"),
        *[F.sum(F.when(F.col(k) != F.col("sg_" + k), 1).otherwise(0)).alias("bad_" + k)
          for k in ("out_degree", "in_degree", "degree")],
        F.sum("out_degree").alias("sum_out"), F.max("degree").alias("max_deg"),
    ).first()
    bad_deg = (r["bad_out_degree"] or 0) + (r["bad_in_degree"] or 0) + (r["bad_degree"] or 0)
    return c.check(name, r["unmatched"] == 0 and bad_deg == 0,
                   f"{r['rows']} vertices, unmatched {r['unmatched']}, differing out {r['bad_out_degree']} "
                   f"in {r['bad_in_degree']} total {r['bad_degree']}; sum out {r['sum_out']}, max degree {r['max_deg']}")


def check_edge_list(c, name, got, want, labels, kernel_undirected, m):
    """got: (src, dst, weight) or (edge_id, src, dst, label); want: the
    answers' edges.parquet; equal as multisets (undirected: ends unordered)."""
    if labels is None:
        got = got.select("src", "dst", F.col("weight").cast("double"))
        want = want.select("src", "dst", F.col("weight").cast("double"))
        if kernel_undirected:  # written once each, in either orientation
            got = got.select(F.least("src", "dst").alias("src"), F.greatest("src", "dst").alias("dst"), "weight")
            want = want.select(F.least("src", "dst").alias("src"), F.greatest("src", "dst").alias("dst"), "weight")
    else:
        got = got.select("edge_id", "src", "dst", "label")
        want = want.select("edge_id", "src", "dst", "label")
    missing = want.exceptAll(got)
    extra = got.exceptAll(want)
    n_missing, n_extra = missing.count(), extra.count()
    shown = ""
    if n_missing or n_extra:
        shown = ("; e.g. stratagraph only " + ", ".join(str(tuple(r)) for r in missing.limit(2).collect())
                 + " / Spark only " + ", ".join(str(tuple(r)) for r in extra.limit(2).collect()))
    return c.check(name, n_missing == 0 and n_extra == 0,
                   f"{m} edges with ids/weights; in stratagraph only {n_missing}, in Spark only {n_extra}{shown}")


def kernel_arcs(edges, kernel_undirected):
    """The arcs stratagraph's kernels see: distinct (src, dst), both ways in
    an undirected store."""
    arcs = edges.select("src", "dst")
    if kernel_undirected:
        arcs = arcs.union(arcs.select(F.col("dst").alias("src"), F.col("src").alias("dst")))
    return arcs.distinct().cache()


def check_pagerank(c, name, spark, vid, arcs, n, n_arcs, sgv, ans, tol):
    pr = pagerank(spark, vid, arcs, n, ans["damping"], ans["iterations"])
    j = pr.join(sgv.select("id", F.col("pagerank").alias("sg")), "id", "full_outer")
    r = j.agg(
        F.count("*").alias("rows"),
        F.sum(F.when(F.col("pr").isNull() | F.col("sg").isNull(), 1).otherwise(0)).alias("unmatched"),
        F.max(F.abs(F.col("pr") - F.col("sg")) / F.abs(F.col("sg"))).alias("max_rel"),
        F.max(F.abs(F.col("pr") - F.col("sg"))).alias("max_abs"),
        F.sum(F.when(F.abs(F.col("pr") - F.col("sg")) > F.lit(tol) * F.abs(F.col("sg")), 1).otherwise(0)).alias("over"),
        F.sum("pr").alias("sum_spark"), F.sum("sg").alias("sum_sg"),
    ).first()
    top = pr.orderBy(F.desc("pr")).first()
    ok = r["unmatched"] == 0 and r["over"] == 0 and r["max_rel"] is not None

    def num(x, fmt):  # None (no vertex on one side) shown as nan
        return format(float("nan") if x is None else x, fmt)

    return c.check(name, ok,
                   f"{ans['iterations']} iterations d={ans['damping']} on {n_arcs} arcs; max relative diff "
                   f"{num(r['max_rel'], '.3e')} (abs {num(r['max_abs'], '.3e')}), "
                   f"{r['over']} over {tol:g}, unmatched {r['unmatched']}; sums spark "
                   f"{num(r['sum_spark'], '.15f')} stratagraph {num(r['sum_sg'], '.15f')}; "
                   f"top vertex {top['id'] if top else None}")


# -- the change feed ------------------------------------------------------------
#
# export_side.py writes `Graph.changes(since=ts0)` to OUT/changes.parquet: one
# row per write, in commit order (ts), the rows of one commit in the order
# they are to be applied. Applied here to the DataFrames read from the export
# at ts0, by the last event per element instead of row by row:
#
#   seq         the position of a row in the feed: commits by ts, within a
#               commit the rows' order in the file (_metadata.row_index); the
#               state read from the export is seq 0.
#   edges       weighted structure: per (src, dst) pair, unordered in an
#               undirected store, the last put_edge or delete_edge (the
#               export's edge being a put at seq 0); the edge is there if
#               that was a put, with that put's weight, and no end vertex
#               was deleted (delete_vertex) after it. Property edges (with
#               `labels`): the same per edge id, add_edge and remove_edge,
#               the ends and the label taken from the add_edge.
#   vertices    per vertex, its events in seq order: the export (seq 0),
#               add_vertex, being an end of put_edge or add_edge (both
#               create a missing vertex) and delete_vertex; it is there if
#               the last one is not a delete. Its label is that of the event
#               that last created it (an event with no vertex before it):
#               the export's label, add_vertex's label, or "vertex" (the
#               default, which an add_vertex with a null label and a vertex
#               created by an edge get); an add_vertex of a vertex already
#               there changes nothing.
#
# So a later commit overrides an earlier one, a delete_vertex takes every
# edge at the vertex as of that commit, and an edge put by a later commit
# comes back (with its vertex). Other ops (properties, indexes) do not
# change the structure and are only counted.

STRUCTURAL_OPS = {"add_vertex", "delete_vertex", "put_edge", "delete_edge", "add_edge", "remove_edge"}
OTHER_OPS = {"set_property", "remove_property", "set_edge_property", "remove_edge_property", "create_index"}


def read_feed(spark, path):
    """The feed with typed columns and `seq`. ts and edge_id are UInt64 in
    the file, which Spark reads as decimal(20,0)."""
    raw = spark.read.parquet(path)
    f = raw.select(
        F.col("ts").cast("long").alias("ts"),
        F.col("op").cast("string").alias("op"),
        F.col("vertex").cast("long").alias("vertex"),
        F.col("src").cast("long").alias("src"),
        F.col("dst").cast("long").alias("dst"),
        F.col("edge_id").cast("long").alias("edge_id"),
        F.col("label").cast("string").alias("label"),
        F.col("weight").cast("double").alias("weight"),
        F.col("_metadata.file_path").alias("file"),
        F.col("_metadata.row_index").alias("row"),
    )
    # One window over the whole feed (one partition): the feed is small next
    # to the graph; a long feed would be ordered by a range-partitioned sort.
    return f.withColumn("seq", F.row_number().over(Window.orderBy("ts", "file", "row")).cast("long")).cache()


def check_feed(c, feed, ts0, want):
    """The feed as read: rows and ops as export_side wrote them, every ts
    after ts0 and in file order, every structural row with the columns it
    needs."""
    by_op = {r["op"]: r["n"] for r in feed.groupBy("op").agg(F.count("*").alias("n")).collect()}
    need = {
        "add_vertex": ["vertex"], "delete_vertex": ["vertex"],
        "put_edge": ["src", "dst", "weight"], "delete_edge": ["src", "dst"],
        "add_edge": ["edge_id", "src", "dst", "label"], "remove_edge": ["edge_id"],
    }
    incomplete = F.lit(0)
    for op, cols in need.items():
        lacks = functools.reduce(lambda x, y: x | y, [F.col(x).isNull() for x in cols])
        incomplete = incomplete + F.when((F.col("op") == op) & lacks, 1).otherwise(0)
    back = F.lag("ts").over(Window.orderBy("file", "row"))
    r = (feed.withColumn("back", F.when(F.col("ts") < back, 1).otherwise(0))
         .agg(F.count("*").alias("rows"), F.countDistinct("ts").alias("commits"),
              F.min("ts").alias("lo"), F.max("ts").alias("hi"),
              F.sum("back").alias("back"), F.sum(incomplete).alias("incomplete"))).first()
    unknown = sorted(set(by_op) - STRUCTURAL_OPS - OTHER_OPS)
    ok = (r["rows"] == want["rows"] and by_op == want["ops"] and not unknown and r["back"] == 0
          and r["incomplete"] == 0 and (r["rows"] == 0 or r["lo"] > ts0))
    return c.check("cf feed", ok,
                   f"{r['rows']} rows (stratagraph {want['rows']}), {r['commits']} commits, ts {r['lo']}..{r['hi']} "
                   f"after ts0 {ts0}; " + ", ".join(f"{k} {v}" for k, v in sorted(by_op.items()))
                   + ("" if by_op == want["ops"] else f" (stratagraph wrote {want['ops']})")
                   + (f"; unknown ops {unknown}" if unknown else "")
                   + (f"; {r['back']} rows with a ts below the row before" if r["back"] else "")
                   + (f"; {r['incomplete']} rows missing a column their op needs" if r["incomplete"] else ""))


def last_event(df, keys):
    """The row with the largest seq per `keys`."""
    w = Window.partitionBy(*keys).orderBy(F.desc("seq"))
    return df.withColumn("_k", F.row_number().over(w)).where(F.col("_k") == 1).drop("_k")


def without_deleted_ends(edges, feed):
    """Drops the edges (with their put's seq) one of whose ends a
    delete_vertex after that seq removed."""
    dels = feed.where(F.col("op") == "delete_vertex").groupBy("vertex").agg(F.max("seq").alias("del_seq"))
    return (edges
            .join(dels.select(F.col("vertex").alias("src"), F.col("del_seq").alias("_ds")), "src", "left")
            .join(dels.select(F.col("vertex").alias("dst"), F.col("del_seq").alias("_dd")), "dst", "left")
            .where((F.coalesce("_ds", F.lit(-1)) < F.col("seq")) & (F.coalesce("_dd", F.lit(-1)) < F.col("seq")))
            .drop("_ds", "_dd"))


def apply_change_feed_increment(feed, vertices, edges, labels, undirected, label_of_etype=None):
    """The state after the feed, from the export's state: (vertices(id,
    label), edges) with edges (src, dst, weight) of the weighted structure,
    or (edge_id, src, dst, label) of the property edges of `labels`. See the
    comment above for the rules."""
    # -- vertices
    base_v = vertices.select("id", "label", F.lit(0).cast("long").alias("seq"), F.lit(True).alias("live"))
    adds = feed.where(F.col("op") == "add_vertex").select(
        F.col("vertex").alias("id"), F.coalesce("label", F.lit("vertex")).alias("label"), "seq", F.lit(True).alias("live"))
    dels = feed.where(F.col("op") == "delete_vertex").select(
        F.col("vertex").alias("id"), F.lit(None).cast("string").alias("label"), "seq", F.lit(False).alias("live"))
    ends = feed.where(F.col("op").isin("put_edge", "add_edge")).select(
        F.explode(F.array("src", "dst")).alias("id"), F.lit("vertex").alias("label"), "seq", F.lit(True).alias("live")
    ).distinct()  # a self-loop names its vertex twice in one row
    ev = base_v.unionByName(adds).unionByName(dels).unionByName(ends)
    ev = ev.withColumn("created", F.col("live") & ~F.coalesce(
        F.lag("live").over(Window.partitionBy("id").orderBy("seq")), F.lit(False)))
    alive = last_event(ev, ["id"]).where(F.col("live")).select("id")
    label = last_event(ev.where(F.col("created")), ["id"]).select("id", "label")
    v_after = alive.join(label, "id", "left")

    # -- edges
    if labels is None:
        def pair(df):
            if undirected:
                return df.select(F.least("src", "dst").alias("src"), F.greatest("src", "dst").alias("dst"),
                                 *[x for x in df.columns if x not in ("src", "dst")])
            return df
        base_e = pair(edges.select("src", "dst", "weight", F.lit(0).cast("long").alias("seq"), F.lit(True).alias("live")))
        ev_e = pair(feed.where(F.col("op").isin("put_edge", "delete_edge")).select(
            "src", "dst", "weight", "seq", (F.col("op") == "put_edge").alias("live")))
        last = last_event(base_e.unionByName(ev_e), ["src", "dst"]).where(F.col("live"))
        e_after = without_deleted_ends(last, feed).select("src", "dst", "weight")
    else:
        base_e = edges.select("edge_id", "src", "dst", label_of_etype.alias("label"),
                              F.lit(0).cast("long").alias("seq"), F.lit(True).alias("live"))
        ev_e = feed.where(((F.col("op") == "add_edge") & F.col("label").isin(*labels)) | (F.col("op") == "remove_edge")
                          ).select("edge_id", "src", "dst", "label", "seq", (F.col("op") == "add_edge").alias("live"))
        last = last_event(base_e.unionByName(ev_e), ["edge_id"]).where(F.col("live"))
        e_after = without_deleted_ends(last, feed).select("edge_id", "src", "dst", "label")
    return v_after.cache(), e_after.cache()


def check_change_feed(c, tm, spark, a, vertices, edges, labels, directed, label_of_etype, tol):
    """Reads OUT/changes.parquet, applies it to the export's DataFrames and
    checks the result against OUT/answers_after."""
    after_dir = os.path.join(a.dir, "answers_after")
    with open(os.path.join(after_dir, "meta.json")) as f:
        ans = json.load(f)
    kernel_undirected = not directed
    with tm.step("cf_read_apply"):
        feed = read_feed(spark, os.path.join(a.dir, "changes.parquet"))
        check_feed(c, feed, ans["ts0"], ans["changes"])
        v1, e1 = apply_change_feed_increment(feed, vertices.select("id", "label"), edges, labels,
                                             labels is None and not directed, label_of_etype)
        n = v1.count()
        m = e1.count()
    with tm.step("cf_checks"):
        by_label = {r["label"]: r["n"] for r in v1.groupBy("label").agg(F.count("*").alias("n")).collect()}
        distinct_ids = v1.select("id").distinct().count()
        c.check("cf vertices", n == ans["vertex_count"] and distinct_ids == n and by_label == ans["vertex_count_by_label"],
                f"spark {n} (ids distinct {distinct_ids}), stratagraph {ans['vertex_count']}; by label spark "
                + ", ".join(f"{k} {v}" for k, v in sorted(by_label.items(), key=lambda kv: str(kv[0])))
                + ("" if by_label == ans["vertex_count_by_label"] else f", stratagraph {ans['vertex_count_by_label']}"))
        c.check("cf edges", m == ans["edge_count"], f"spark {m}, stratagraph {ans['edge_count']}")
        check_edge_list(c, "cf edge list", e1, spark.read.parquet(os.path.join(after_dir, "edges.parquet")),
                        labels, kernel_undirected, m)
        vid = v1.select("id").cache()
        sgv = spark.read.parquet(os.path.join(after_dir, "vertices.parquet")).cache()
        check_degrees(c, "cf degrees", degrees_of(vid, e1, labels is None and not directed), sgv)
    if a.change_feed_kernels:
        arcs = kernel_arcs(e1, kernel_undirected)
        n_arcs = arcs.count()
        with tm.step("cf_pagerank"):
            check_pagerank(c, "cf pagerank", spark, vid, arcs, n, n_arcs, sgv, ans, tol)
        with tm.step("cf_wcc"):
            comp, rounds = wcc(spark, vid, arcs)
            same_partition(c, "cf wcc", comp, sgv, f"DataFrame min-label propagation, {rounds} rounds")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dir", required=True, help="the directory export_side.py wrote")
    ap.add_argument("--tol", type=float, default=1e-9, help="PageRank: largest relative difference per vertex")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--graphx-jar", help="GraphXWcc.java's jar: also check WCC with GraphX's ConnectedComponents")
    ap.add_argument("--change-feed", action="store_true",
                    help="also apply DIR/changes.parquet to the export's DataFrames and check the result "
                         "against DIR/answers_after (see the comment above apply_change_feed_increment)")
    ap.add_argument("--no-change-feed-kernels", dest="change_feed_kernels", action="store_false",
                    help="with --change-feed: skip PageRank and WCC after the changes")
    a = ap.parse_args()

    export_dir = os.path.join(a.dir, "export")
    answers_dir = os.path.join(a.dir, "answers")
    with open(os.path.join(export_dir, "stratagraph.json")) as f:
        meta = json.load(f)
    with open(os.path.join(answers_dir, "meta.json")) as f:
        ans = json.load(f)
    graph = ans["graph"]
    labels = ans["labels"]
    directed = meta["directed"]
    kernel_undirected = not directed
    c = Checks(graph)
    tm = Timer()

    with tm.step("spark_start"):
        builder = SparkSession.builder
        if a.graphx_jar:
            builder = builder.config("spark.jars", os.path.abspath(a.graphx_jar))
        spark = (builder.master(a.master).appName(f"stratagraph-handoff-{graph}")
                 .config("spark.ui.enabled", "false")
                 .config("spark.ui.showConsoleProgress", "false")
                 .config("spark.sql.shuffle.partitions", "4")
                 .config("spark.default.parallelism", "2")
                 .config("spark.driver.memory", "2g")
                 .config("spark.sql.session.timeZone", "UTC")
                 .getOrCreate())
        spark.sparkContext.setLogLevel("ERROR")
        spark_version = spark.version

    try:
        with tm.step("read"):
            vertices, edges, chosen = load_graph(spark, export_dir, meta, labels)
            n = vertices.count()
            m = edges.count()
        label_of = {i: et["label"] for i, et in chosen}
        label_of_etype = (F.create_map(*[x for i, l in label_of.items() for x in (F.lit(i), F.lit(l))])[F.col("etype")]
                          if labels is not None else None)

        # -- vertices -------------------------------------------------------
        with tm.step("counts"):
            per_type = {r["vtype"]: (r["n"], r["lo"], r["hi"], r["nd"]) for r in vertices.groupBy("vtype").agg(
                F.count("*").alias("n"), F.min("vidx").alias("lo"), F.max("vidx").alias("hi"),
                F.countDistinct("vidx").alias("nd")).collect()}
            bad = []
            for t, vt in enumerate(meta["vertices"]):
                cnt, lo, hi, nd = per_type.get(t, (0, None, None, 0))
                want = ans["vertex_count_by_label"].get(vt["label"], 0)
                if not (cnt == vt["count"] == want and nd == cnt and (cnt == 0 or (lo == 0 and hi == cnt - 1))):
                    bad.append(f"{vt['label']}: spark {cnt} (indexes {lo}..{hi}, {nd} distinct), "
                               f"stratagraph.json {vt['count']}, stratagraph {want}")
            distinct_ids = vertices.select("id").distinct().count()
            c.check("vertices", not bad and n == ans["vertex_count"] and distinct_ids == n,
                    f"spark {n} (ids distinct {distinct_ids}), stratagraph {ans['vertex_count']}; "
                    + ", ".join(f"{vt['label']} {per_type.get(t, (0,))[0]}" for t, vt in enumerate(meta["vertices"]))
                    + ("; " + "; ".join(bad) if bad else ""))

            per_etype = {r["etype"]: (r["n"], r["dangling"]) for r in edges.groupBy("etype").agg(
                F.count("*").alias("n"),
                F.sum(F.when(F.col("src").isNull() | F.col("dst").isNull(), 1).otherwise(0)).alias("dangling")).collect()}
            ebad = []
            for i, et in chosen:
                cnt, dang = per_etype.get(i, (0, 0))
                if cnt != et["count"] or dang:
                    ebad.append(f"{et['name']}: spark {cnt}, stratagraph.json {et['count']}, ends without a vertex {dang}")
            c.check("edges", not ebad and m == ans["edge_count"],
                    f"spark {m}, stratagraph {ans['edge_count']} over "
                    + ", ".join(et["name"] for _, et in chosen)
                    + ("; " + "; ".join(ebad) if ebad else ""))

        with tm.step("edge_list"):
            got = edges if labels is None else edges.select("edge_id", "src", "dst", label_of_etype.alias("label"))
            check_edge_list(c, "edge list", got, spark.read.parquet(os.path.join(answers_dir, "edges.parquet")),
                            labels, kernel_undirected, m)

        # -- degrees --------------------------------------------------------
        with tm.step("degrees"):
            vid = vertices.select("id")
            sgv = spark.read.parquet(os.path.join(answers_dir, "vertices.parquet")).cache()
            check_degrees(c, "degrees", degrees_of(vid, edges, labels is None and not directed), sgv)

        # -- the graph the kernels see --------------------------------------
        arcs = kernel_arcs(edges, kernel_undirected)
        n_arcs = arcs.count()

        with tm.step("pagerank"):
            check_pagerank(c, "pagerank", spark, vid, arcs, n, n_arcs, sgv, ans, a.tol)

        with tm.step("wcc"):
            comp, rounds = wcc(spark, vid, arcs)
            same_partition(c, "wcc", comp, sgv, f"DataFrame min-label propagation, {rounds} rounds")

        if a.graphx_jar:
            with tm.step("wcc_graphx"):
                same_partition(c, "wcc graphx", graphx_wcc(spark, vid, arcs), sgv,
                               "GraphX ConnectedComponents")

        # -- the change feed ------------------------------------------------
        if a.change_feed:
            check_change_feed(c, tm, spark, a, vertices, edges, labels, directed, label_of_etype, a.tol)
    finally:
        with tm.step("spark_stop"):
            spark.stop()

    total = round(sum(tm.seconds.values()), 3)
    print(f"{'PASS' if c.ok else 'FAIL'}  {graph:18s} GRAPH        {sum(r['ok'] for r in c.rows)}/{len(c.rows)} checks; "
          + ", ".join(f"{k} {v:.1f}s" for k, v in tm.seconds.items()) + f"; spark total {total:.1f}s", flush=True)
    with open(os.path.join(a.dir, "spark_result.json"), "w") as f:
        json.dump({"graph": graph, "ok": c.ok, "checks": c.rows, "seconds": tm.seconds,
                   "spark_version": spark_version, "master": a.master}, f, indent=2)
    sys.exit(0 if c.ok else 1)


if __name__ == "__main__":
    main()
