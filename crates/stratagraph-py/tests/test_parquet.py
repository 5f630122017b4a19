"""Parquet exports (Apache GraphAr's layout) read by other engines, and read
back.

Expected figures come from the source files, read here with Python's own
``json`` and ``gzip`` modules: the Grateful Dead's labels, property types
and degrees from TinkerPop's GraphSON file; a SNAP graph's edges from its
edge list. DuckDB and pyarrow read the export; stratagraph's own reads
are not the reference.
"""

from __future__ import annotations

import gzip
import json
from collections import Counter
from pathlib import Path

import duckdb
import pyarrow.parquet as pq
import pytest

import stratagraph as sg

from conftest import REPO, real_path

GRATEFUL = REPO.parent / "shared" / "tinkerpop" / "data" / "grateful-dead.json"


def graphson_facts():
    """Per label vertex counts, per label edge counts, the GraphSON type of
    each (label, key), and each song's followedBy out-degree by name."""
    vertices, edges, types, follows = Counter(), Counter(), {}, {}
    for line in GRATEFUL.read_text().splitlines():
        v = json.loads(line)
        label = v["label"]
        vertices[label] += 1
        name = None
        for key, props in v.get("properties", {}).items():
            value = props[0]["value"]
            typ = value["@type"] if isinstance(value, dict) else "g:String"
            types.setdefault((label, key), set()).add(typ)
            if key == "name":
                name = value if isinstance(value, str) else value["@value"]
        out = v.get("outE", {})
        for elabel, es in out.items():
            edges[elabel] += len(es)
        if label == "song":
            follows[name] = len(out.get("followedBy", []))
    return vertices, edges, types, follows


@pytest.fixture(scope="module")
def grateful_export(tmp_path_factory):
    g = sg.Graph.in_memory()
    g.load_graphson(GRATEFUL)
    out = tmp_path_factory.mktemp("gd") / "export"
    done = g.snapshot().export_parquet(out)
    return g, out, done


def test_duckdb_reads_the_same_counts_as_the_graphson_file(grateful_export):
    _, out, done = grateful_export
    vertices, edges, _, _ = graphson_facts()
    assert done["vertices"] == sum(vertices.values()) == 808
    assert done["edges"] == sum(edges.values()) == 8049
    db = duckdb.connect()
    for label, n in vertices.items():
        got = db.sql(
            f"select count(*) from read_parquet('{out}/vertex/{label}/properties/chunk*')"
        ).fetchall()[0][0]
        assert got == n, label
    for label, n in edges.items():
        got = db.sql(
            f"select count(*) from read_parquet("
            f"'{out}/edge/*_{label}_*/ordered_by_source/adj_list/part*/chunk*')"
        ).fetchall()[0][0]
        assert got == n, label


def test_duckdb_computes_degrees_by_joining_edges_to_vertices(grateful_export):
    _, out, _ = grateful_export
    _, _, _, follows = graphson_facts()
    db = duckdb.connect()
    rows = db.sql(
        f"""
        select v.name, count(e._graphArSrcIndex)
        from read_parquet('{out}/vertex/song/properties/chunk*') v
        left join read_parquet(
            '{out}/edge/song_followedBy_song/ordered_by_source/adj_list/part*/chunk*') e
          on e._graphArSrcIndex = v._graphArVertexIndex
        group by v.name
        """
    ).fetchall()
    assert dict(rows) == follows


def test_columns_keep_the_types_the_graphson_file_gives(grateful_export):
    _, out, _ = grateful_export
    _, _, types, _ = graphson_facts()
    arrow_of = {"g:Int32": "int32", "g:String": "string", "g:Int64": "int64"}
    for (label, key), typ in types.items():
        assert len(typ) == 1, (label, key)
        schema = pq.read_schema(out / "vertex" / label / "properties" / "chunk0")
        assert str(schema.field(key).type) == arrow_of[typ.pop()], (label, key)
    ids = pq.read_table(out / "vertex" / "song" / "properties" / "chunk0")["_id"]
    assert str(ids.type) == "int64"


def test_an_export_reads_back_as_the_same_graph(grateful_export, tmp_path):
    g, out, _ = grateful_export
    for store in (None, tmp_path / "store"):
        back = sg.read_parquet(out, store)
        a, b = g.snapshot(), back.snapshot()
        assert sorted(a.vertices().tolist()) == sorted(b.vertices().tolist())
        for v in a.vertices().tolist()[:100]:
            assert a.vertex(v) == b.vertex(v)
        key = lambda e: (e["id"], e["src"], e["dst"], e["label"])  # noqa: E731
        assert sorted(map(key, a.property_edges())) == sorted(map(key, b.property_edges()))
        for e in a.property_edges()[:200]:
            assert a.edge(e["id"]) == b.edge(e["id"])
        back.close()


def test_a_snap_graph_comes_back_with_the_edges_of_its_file(tmp_path):
    path = real_path("email-Eu-core")
    with gzip.open(path, "rt") as f:
        expected = {
            tuple(map(int, line.split()[:2]))
            for line in f
            if line.strip() and not line.startswith("#")
        }
    g = sg.read_edgelist(path)
    out = tmp_path / "x"
    done = g.snapshot().export_parquet(out, vertex_chunk=100, edge_chunk=1000)
    assert done["weighted_edges"] == len(expected)
    db = duckdb.connect()
    ids = f"read_parquet('{out}/vertex/vertex/properties/chunk*')"
    adj = f"read_parquet('{out}/edge/*/ordered_by_source/adj_list/part*/chunk*', filename=false)"
    rows = db.sql(
        f"""
        select s._id, d._id from {adj} e
        join {ids} s on s._graphArVertexIndex = e._graphArSrcIndex
        join {ids} d on d._graphArVertexIndex = e._graphArDstIndex
        """
    ).fetchall()
    assert set(rows) == expected and len(rows) == len(expected)
    src, dst = sg.read_parquet(out).snapshot().edges()
    assert set(zip(src.tolist(), dst.tolist())) == expected


def test_a_damaged_export_is_refused_by_file_and_column_and_loads_nothing(
    grateful_export, tmp_path
):
    import shutil

    _, out, _ = grateful_export
    bad = tmp_path / "bad"
    shutil.copytree(out, bad)
    chunk = bad / "vertex" / "song" / "properties" / "chunk0"
    table = pq.read_table(chunk).drop_columns(["_id"])
    pq.write_table(table, chunk)
    g = sg.Graph.in_memory()
    with pytest.raises(sg.InvalidInput) as e:
        g.load_parquet(bad)
    assert e.value.file == str(chunk)
    assert e.value.field == "_id"
    assert "missing column" in str(e.value)
    assert len(g.snapshot()) == 0


def test_an_export_refuses_a_directory_with_files(grateful_export, tmp_path):
    g, _, _ = grateful_export
    (tmp_path / "keep").write_text("x")
    with pytest.raises(FileExistsError):
        g.snapshot().export_parquet(tmp_path)
    with pytest.raises(ValueError, match="vertex_chunk"):
        g.snapshot().export_parquet(tmp_path / "new", vertex_chunk=0)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep"]
