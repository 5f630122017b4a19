"""Arrow tables out of a snapshot and into a graph (the Arrow PyCapsule
interface, read and written by pyarrow and DuckDB).

Expected values are the literal data each test writes, the SNAP file read
with ``gzip``, or the GraphSON file read with ``json``; never a table
stratagraph produced and then compared with itself alone.
"""

from __future__ import annotations

import datetime as dt
import gzip
import json
import uuid
from collections import Counter

import duckdb
import pyarrow as pa
import pytest

import stratagraph as sg

from conftest import REPO, real_path

GRATEFUL = REPO.parent / "shared" / "tinkerpop" / "data" / "grateful-dead.json"


def test_a_hand_written_table_loads_with_its_values():
    vertices = pa.table(
        {
            "_id": pa.array([1, 2, 3], pa.int64()),
            "_label": ["person", "person", "software"],
            "name": ["marko", "vadas", "lop"],
            "age": pa.array([29, 27, None], pa.int32()),
        }
    )
    edges = pa.table(
        {
            "_src": pa.array([1, 1, 2], pa.int64()),
            "_dst": pa.array([2, 3, 3], pa.int64()),
            "_label": ["knows", "created", None],
            "_id": pa.array([7, None, None], pa.uint64()),
            "_weight": pa.array([None, None, 0.5], pa.float64()),
            "since": pa.array([2010, None, None], pa.int64()),
        }
    )
    g = sg.Graph.in_memory()
    loaded = g.load_arrow(vertices, edges)
    assert loaded["vertices"] == 3 and loaded["edges"] == 3
    s = g.snapshot()
    assert s.vertex(1) == {"id": 1, "label": "person", "properties": {"name": "marko", "age": 29}}
    assert s.vertex(3) == {"id": 3, "label": "software", "properties": {"name": "lop"}}
    assert s.edge(7) == {"id": 7, "src": 1, "dst": 2, "label": "knows", "properties": {"since": 2010}}
    created = s.edges_of(1, "created")
    assert len(created) == 1 and created[0]["dst"] == 3
    assert s.weight(2, 3) == 0.5
    # Typed: age came in as int32 and goes out as int32; since as int64.
    v, e = s.to_arrow()
    assert v.schema.field("age").type == pa.int32()
    assert e.schema.field("since").type == pa.int64()


def test_values_keep_their_types_out_and_back():
    g = sg.Graph.in_memory()
    when = dt.datetime(2024, 5, 1, 12, 30, tzinfo=dt.timezone(dt.timedelta(hours=2)))
    u = uuid.UUID(int=12345)
    with g.transaction() as tx:
        tx.add_vertex(
            1, label="a", s="x", f=0.25, b=True, raw=b"\x00\xff", u=u, when=when, tags=["p", "q"]
        )
        tx.add_vertex(2, label="a", s="y", mixed=3)
        tx.add_vertex(3, label="b", mixed="three", nested={"k": [1, 2]})
    v, e = g.snapshot().to_arrow()
    types = {f.name: str(f.type) for f in v.schema}
    assert types["s"] == "string" and types["f"] == "double" and types["b"] == "bool"
    assert types["raw"] == "binary" and types["tags"] == "list<item: string>"
    assert types["when"] == "timestamp[ns, tz=+02:00]"
    assert types["mixed"] == "binary"  # int and str under one key: encoded
    rows = {r["_id"]: r for r in v.to_pylist()}
    assert rows[1]["when"] == when and rows[1]["tags"] == ["p", "q"]
    back = sg.Graph.in_memory()
    back.load_arrow(v, e)
    for x in (1, 2, 3):
        assert back.snapshot().vertex(x) == g.snapshot().vertex(x)
    assert back.snapshot().property(3, "nested") == {"k": [1, 2]}


def test_the_grateful_dead_round_trips_and_duckdb_counts_it():
    labels, edge_labels = Counter(), Counter()
    for line in GRATEFUL.read_text().splitlines():
        v = json.loads(line)
        labels[v["label"]] += 1
        for label, es in v.get("outE", {}).items():
            edge_labels[label] += len(es)
    g = sg.Graph.in_memory()
    g.load_graphson(GRATEFUL)
    v, e = g.snapshot().to_arrow()
    assert v.num_rows == sum(labels.values()) and e.num_rows == sum(edge_labels.values())
    got = dict(duckdb.sql("select _label::varchar, count(*) from v group by 1").fetchall())
    assert got == dict(labels)
    got = dict(duckdb.sql("select _label::varchar, count(*) from e group by 1").fetchall())
    assert got == dict(edge_labels)
    back = sg.Graph.in_memory()
    back.load_arrow(v, e)
    a, b = g.snapshot(), back.snapshot()
    assert sorted(a.vertices().tolist()) == sorted(b.vertices().tolist())
    for x in a.vertices().tolist():
        assert a.vertex(x) == b.vertex(x)
    for edge in a.property_edges():
        assert a.edge(edge["id"]) == b.edge(edge["id"])


def test_a_snap_graph_gives_the_edges_of_its_file():
    path = real_path("facebook_combined")
    with gzip.open(path, "rt") as f:
        pairs = [tuple(map(int, ln.split()[:2])) for ln in f if ln.strip() and ln[0] != "#"]
    g = sg.read_edgelist(path, directed=False)
    _, e = g.snapshot().to_arrow()
    got = {frozenset(p) for p in zip(e["_src"].to_pylist(), e["_dst"].to_pylist())}
    assert got == {frozenset(p) for p in pairs}
    assert e.num_rows == len(pairs), "an undirected edge once"
    assert e["_label"].null_count == e.num_rows and e["_id"].null_count == e.num_rows
    # The stream object itself goes to DuckDB without pyarrow's help.
    stream = g.snapshot().arrow_edges()
    assert len(stream) == len(pairs)
    assert duckdb.sql("select count(*) from stream").fetchall()[0][0] == len(pairs)


def _level_mappings(store):
    """Address ranges of the store's level files (``*.seg``) mapped into
    this process, from the kernel's own list."""
    ranges = []
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and parts[5].startswith(str(store)) and parts[5].endswith(".seg"):
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                ranges.append((lo, hi))
    return ranges


@pytest.mark.parametrize("compress,pack", [(False, False), (True, False), (True, True)])
def test_a_compacted_directed_graph_hands_arrow_its_level_without_a_copy(tmp_path, compress, pack):
    path = real_path("wiki-Vote")
    with gzip.open(path, "rt") as f:
        pairs = {tuple(map(int, ln.split()[:2])) for ln in f if ln.strip() and ln[0] != "#"}
    store = tmp_path / "store"
    g = sg.Graph.open(
        store, directed=True, sync="never", compress_levels=compress, pack_levels=pack
    )
    src, dst = zip(*sorted(pairs))
    g.add_edges(list(src), list(dst), [0.5 if (s + d) % 2 else 1.0 for s, d in zip(src, dst)])
    g.compact()
    v, e = g.snapshot().to_arrow(ids="internal")
    assert v.column_names[:3] == ["_vid", "_id", "_label"]
    assert e.column_names == ["_src", "_dst", "_weight"]
    assert e.schema.field("_src").type == pa.uint32()
    id_of = dict(zip(v["_vid"].to_pylist(), v["_id"].to_pylist()))
    got = {
        (id_of[s], id_of[d]): w
        for s, d, w in zip(e["_src"].to_pylist(), e["_dst"].to_pylist(), e["_weight"].to_pylist())
    }
    assert e.num_rows == len(pairs)
    assert got == {(s, d): 0.5 if (s + d) % 2 else 1.0 for s, d in pairs}
    # Destinations are the level file's mapped bytes, and so are weights
    # the level keeps as float64s; coded weights (two values here) and
    # packed destinations are decoded into columns of their own.
    maps = _level_mappings(store)
    assert maps, "the store maps its level files"
    for column in ("_dst", "_weight"):
        for chunk in e[column].chunks:
            buf = chunk.buffers()[1]
            start = buf.address + chunk.offset * (4 if column == "_dst" else 8)
            mapped = any(lo <= start < hi for lo, hi in maps)
            plain = not pack and (column == "_dst" or not compress)
            assert mapped == plain, f"{column}: mapped {mapped}"
    # Built columns are not: _src is.
    src_addr = e["_src"].chunks[0].buffers()[1].address
    assert not any(lo <= src_addr < hi for lo, hi in maps)
    # Tables of internal ids load back through _vid into the same graph.
    back = sg.Graph.in_memory(directed=True)
    back.load_arrow(v, e)
    s = back.snapshot()
    assert s.num_edges == len(pairs)
    assert all(s.weight(a, b) == w for (a, b), w in list(got.items())[:2000])
    # The tables outlive the store.
    g.close()
    assert pa.compute.sum(e["_dst"]).as_py() == sum(e["_dst"].to_pylist())


def test_unweighted_internal_tables_have_no_weight_column_and_bad_ids_are_refused():
    g = sg.Graph.in_memory(directed=True)
    g.add_edges([10, 20, 30], [20, 30, 10])
    v, e = g.snapshot().to_arrow(ids="internal")
    assert e.column_names == ["_src", "_dst"]
    assert sorted(zip(e["_src"].to_pylist(), e["_dst"].to_pylist())) == sorted(
        (v["_vid"].to_pylist()[v["_id"].to_pylist().index(a)], v["_vid"].to_pylist()[v["_id"].to_pylist().index(b)])
        for a, b in [(10, 20), (20, 30), (30, 10)]
    )
    with pytest.raises(sg.InvalidInput, match="ids=.*expected"):
        g.snapshot().to_arrow(ids="external")


def test_string_ids_come_out_as_strings():
    g = sg.Graph.in_memory(string_ids=True)
    with g.transaction() as tx:
        tx.add_vertex("alice", label="p")
        tx.add_vertex("bob", label="p")
        tx.add_edge("alice", "bob", "knows")
    v, e = g.snapshot().to_arrow()
    assert sorted(v["_id"].to_pylist()) == ["alice", "bob"]
    assert e.to_pylist()[0]["_src"] == "alice"
    back = sg.Graph.in_memory(string_ids=True)
    back.load_arrow(v, e)
    assert [x["dst"] for x in back.snapshot().edges_of("alice")] == ["bob"]


@pytest.mark.parametrize(
    "vertices, edges, field, says",
    [
        (pa.table({"name": ["x"]}), None, "_id", "missing column"),
        (pa.table({"_id": pa.array([1, None], pa.int64())}), None, "_id", "null in row 1"),
        (pa.table({"_id": [1.5]}), None, "_id", "expected integers or strings"),
        (pa.table({"_id": [1], "when": pa.array([1], pa.time32("s"))}), None, "when", "no property type"),
        (None, pa.table({"_src": [1], "_dst": [2], "_weight": ["heavy"]}), "_weight", "expected Float64"),
        (None, pa.table({"_src": [1]}), "_dst", "missing column"),
    ],
)
def test_a_bad_table_is_refused_by_column_and_changes_nothing(vertices, edges, field, says):
    g = sg.Graph.in_memory()
    with g.transaction() as tx:
        tx.add_vertex(1)
        tx.add_vertex(2)
    with pytest.raises(sg.InvalidInput) as e:
        g.load_arrow(vertices, edges)
    assert e.value.field == field
    assert says in str(e.value)
    assert "table" in str(e.value.file)
    s = g.snapshot()
    assert len(s) == 2 and s.edges()[0].size == 0


def test_from_arrow_makes_a_graph_of_the_tables():
    vertices = pa.table({"_id": ["a", "b"], "_label": ["p", "p"]})
    edges = pa.table({"_src": ["a"], "_dst": ["b"], "_label": ["knows"]})
    g = sg.from_arrow(vertices, edges, string_ids=True)
    assert g.snapshot().vertex("a") == {"id": "a", "label": "p", "properties": {}}
    assert [x["dst"] for x in g.snapshot().edges_of("a")] == ["b"]


def test_what_is_not_a_table_is_a_type_error():
    g = sg.Graph.in_memory()
    with pytest.raises(TypeError, match="vertices: expected an Arrow table"):
        g.load_arrow([1, 2, 3])


def test_a_row_the_store_refuses_names_its_row_and_keeps_earlier_batches():
    g = sg.Graph.in_memory()
    vertices = pa.table({"_id": pa.array([1, 2], pa.int64())})
    edges = pa.table(
        {
            "_src": pa.array([1, 1, 1], pa.int64()),
            "_dst": pa.array([2, 2, 2], pa.int64()),
            "_label": ["k", "k", "k"],
            "_id": pa.array([5, 6, 5], pa.uint64()),
        }
    )
    with pytest.raises(sg.Error) as e:
        g.load_arrow(vertices, edges, batch=2)
    assert e.value.line == 3
    assert e.value.loaded["edges"] == 2
    assert sorted(x["id"] for x in g.snapshot().property_edges()) == [5, 6]


def _same_graph(a, b):
    sa, sb = a.snapshot(), b.snapshot()
    assert sorted(sa.vertices().tolist()) == sorted(sb.vertices().tolist())
    for v in sa.vertices().tolist():
        assert sa.vertex(v) == sb.vertex(v)
    for e in sa.property_edges():
        assert sa.edge(e["id"]) == sb.edge(e["id"])


def test_pandas_and_polars_frames_go_out_and_back_with_their_types():
    import pandas as pd
    import polars as pl

    g = sg.Graph.in_memory()
    g.load_graphson(GRATEFUL)
    v, e = g.snapshot().to_arrow()
    # pandas keeps Arrow's types (Int32 with nulls stays Int32) with
    # ArrowDtype columns; its NumPy default would widen them to float64.
    pv, pe = v.to_pandas(types_mapper=pd.ArrowDtype), e.to_pandas(types_mapper=pd.ArrowDtype)
    assert str(pv["performances"].dtype) == "int32[pyarrow]"
    _same_graph(g, sg.from_arrow(pv, pe))
    # polars takes the stream objects themselves, no pyarrow in between.
    lv = pl.DataFrame(g.snapshot().arrow_vertices())
    le = pl.DataFrame(g.snapshot().arrow_edges())
    assert lv.schema["performances"] == pl.Int32 and lv.height == 808
    assert le.height == 8049
    _same_graph(g, sg.from_arrow(lv, le))
