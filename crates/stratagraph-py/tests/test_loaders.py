"""Graph.load_graphson and Graph.load_csv: property graphs from TinkerPop's
GraphSON 3.0 files and from CSV files with a header row.

Expected contents come from TinkerPop's documentation of its toy graphs
(the "modern" graph's ids, labels, names, ages, languages and edge
weights; the Grateful Dead graph's 808 vertices and 8,049 edges), and for
the CSV files from a model written by hand beside them, never from the code
under test.
"""

import errno
from pathlib import Path

import numpy as np
import pytest

import stratagraph as sg

from conftest import REPO

TINKERPOP = REPO.parent / "shared" / "tinkerpop" / "data"

NOTHING = {"vertices": 0, "edges": 0, "batches": 0}


def tinkerpop(name):
    path = TINKERPOP / name
    if not path.exists():
        pytest.skip(f"{path} not found (tests read the shared data beside the checkout)")
    return path


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# --- GraphSON ---------------------------------------------------------------

MODERN_VERTICES = {
    1: ("person", {"name": "marko", "age": 29}),
    2: ("person", {"name": "vadas", "age": 27}),
    3: ("software", {"name": "lop", "lang": "java"}),
    4: ("person", {"name": "josh", "age": 32}),
    5: ("software", {"name": "ripple", "lang": "java"}),
    6: ("person", {"name": "peter", "age": 35}),
}
MODERN_EDGES = {
    7: (1, 2, "knows", 0.5),
    8: (1, 4, "knows", 1.0),
    9: (1, 3, "created", 0.4),
    10: (4, 5, "created", 1.0),
    11: (4, 3, "created", 0.4),
    12: (6, 3, "created", 0.2),
}


def test_the_modern_graph_loads_as_tinkerpop_documents_it():
    g = sg.Graph.in_memory()
    loaded = g.load_graphson(tinkerpop("tinkerpop-modern.json"))
    # One transaction for the vertex pass, one for the edge pass.
    assert loaded == {"vertices": 6, "edges": 6, "batches": 2}
    s = g.snapshot()
    assert sorted(s.vertices().tolist()) == sorted(MODERN_VERTICES)
    for v, (label, props) in MODERN_VERTICES.items():
        assert s.vertex(v) == {"id": v, "label": label, "properties": props}
    for v, (src, dst, label, weight) in MODERN_EDGES.items():
        assert s.edge(v) == {
            "id": v,
            "src": src,
            "dst": dst,
            "label": label,
            "properties": {"weight": weight},
        }
    assert s.property_edges() == [
        {"id": e, "src": src, "dst": dst, "label": label}
        for e, (src, dst, label, _) in sorted(MODERN_EDGES.items())
    ]
    assert s.num_edges == 0, "property edges, not weighted ones"


def test_the_modern_graph_keeps_its_types_and_adjacency():
    g = sg.Graph.in_memory()
    g.load_graphson(tinkerpop("tinkerpop-modern.json"))
    s = g.snapshot()
    # Ages are g:Int32 in the file and stay 32-bit: find_vertices is typed.
    for v, (label, props) in MODERN_VERTICES.items():
        if label == "person":
            assert s.find_vertices("person", "age", np.int32(props["age"])).tolist() == [v]
            assert s.find_vertices("person", "age", props["age"]).tolist() == []
    assert [e["id"] for e in s.edges_of(1, label="knows", direction="out")] == [7, 8]
    created = s.edges_of(3, label="created", direction="in")
    assert sorted((e["src"], e["id"]) for e in created) == [(1, 9), (4, 11), (6, 12)]
    assert sorted(s.neighbors(4, "created").tolist()) == [3, 5]
    assert s.edges_of(2, direction="out") == []
    # Edge ids from the file are taken; new ones come after them.
    assert g.add_edge(1, 6, "knows") > 12


def test_the_grateful_dead_loads_whole_in_small_batches():
    g = sg.Graph.in_memory()
    loaded = g.load_graphson(tinkerpop("grateful-dead.json"), batch=500)
    # 808 vertices: 2 transactions (500 + 308); 8,049 edges: 17 (16 x 500 + 49).
    assert loaded == {"vertices": 808, "edges": 8049, "batches": 2 + 17}
    s = g.snapshot()
    assert s.num_vertices == 808
    edges = s.property_edges()
    assert len(edges) == 8049
    labels = {}
    for e in edges:
        labels[e["label"]] = labels.get(e["label"], 0) + 1
    assert labels == {"followedBy": 7047, "sungBy": 501, "writtenBy": 501}


def test_the_crew_graph_is_refused_at_its_first_line():
    g = sg.Graph.in_memory()
    path = tinkerpop("tinkerpop-crew.json")
    with pytest.raises(sg.InvalidInput) as e:
        g.load_graphson(path)
    msg = str(e.value)
    assert msg.startswith(f"{path}:1: properties.location: has 4 values"), msg
    assert "list cardinality" in msg
    assert msg.endswith("; nothing of this load was committed before it"), msg
    assert (e.value.file, e.value.line, e.value.field) == (str(path), 1, "properties.location")
    assert e.value.loaded == NOTHING
    assert g.num_vertices == 0


def test_a_bad_line_keeps_the_batches_before_it(tmp_path):
    path = write(
        tmp_path,
        "g.json",
        '{"id":{"@type":"g:Int64","@value":1},"label":"a"}\n'
        '{"id":{"@type":"g:Int64","@value":2},"label":"a"}\n'
        '{"id":{"@type":"g:Int64","@value":3},"label":"a","properties":'
        '{"x":[{"id":0,"value":{"@type":"g:Int32","@value":"nine"}}]}}\n',
    )
    g = sg.Graph.in_memory()
    with pytest.raises(sg.InvalidInput) as e:
        g.load_graphson(path, batch=1)
    assert str(e.value).startswith(f"{path}:3: properties.x[0].value: g:Int32 value"), e.value
    assert str(e.value).endswith(
        "; committed before it and still loaded: 2 vertices and 0 property edges in 2 batches"
    ), e.value
    assert (e.value.line, e.value.field) == (3, "properties.x[0].value")
    assert e.value.loaded == {"vertices": 2, "edges": 0, "batches": 2}
    s = g.snapshot()
    assert (s.has_vertex(1), s.has_vertex(2), s.has_vertex(3)) == (True, True, False)

    write(tmp_path, "g.json", '{"id": 1,\n')
    with pytest.raises(sg.InvalidInput, match=r"g.json:1: column \d+: not JSON") as e:
        g.load_graphson(path)
    assert e.value.line == 1
    write(tmp_path, "g.json", '{"id":"marko","label":"person"}\n')
    with pytest.raises(sg.InvalidInput, match="string ids") as e:
        g.load_graphson(path)
    assert e.value.field == "id"


def test_an_engine_refusal_names_the_line_and_keeps_its_class():
    g = sg.Graph.in_memory()
    path = tinkerpop("tinkerpop-modern.json")
    g.load_graphson(path)
    # Loading it again: the vertices are found (their pass commits, creating
    # nothing), then the first edge (id 9, on marko's line) is in use.
    with pytest.raises(sg.InvalidInput) as e:
        g.load_graphson(path)
    msg = str(e.value)
    assert msg.startswith(f"{path}:1: "), msg
    assert "9" in msg
    assert msg.endswith(
        "; committed before it and still loaded: 0 vertices and 0 property edges in 1 batch"
    ), msg
    assert (e.value.file, e.value.line, e.value.field) == (str(path), 1, None)
    assert e.value.loaded == {"vertices": 0, "edges": 0, "batches": 1}
    assert len(g.snapshot().property_edges()) == 6


def test_an_unreadable_file_raises_oserror_with_what_was_loaded(tmp_path):
    g = sg.Graph.in_memory()
    missing = tmp_path / "missing.json"
    with pytest.raises(FileNotFoundError) as e:
        g.load_graphson(missing)
    assert (e.value.errno, e.value.filename) == (errno.ENOENT, str(missing))
    assert (e.value.file, e.value.line, e.value.field) == (str(missing), None, None)
    assert e.value.loaded == NOTHING
    # A CSV file missing after another was loaded: the message says so.
    ok = write(tmp_path, "v.csv", "id\n1\n2\n")
    with pytest.raises(FileNotFoundError) as e:
        g.load_csv([ok, tmp_path / "missing.csv"])
    assert e.value.loaded == {"vertices": 2, "edges": 0, "batches": 1}
    assert "still loaded: 2 vertices and 0 property edges in 1 batch" in str(e.value)
    assert g.num_vertices == 2


# --- CSV --------------------------------------------------------------------


class Model:
    """What the CSV files below say, written out by hand."""

    vertices = {
        1: ("person", {"name": "marko", "age": 29, "tags": ["a", "b"], "score": 0.5, "nick": "mk"}),
        2: ("person", {"name": "vadas, jr", "age": 27}),
        3: ("software", {"name": "lop", "lang": "java"}),
        5: ("software", {"name": "ripple", "lang": "java"}),
    }
    # Edges with an id in their file.
    edges = {
        70: (1, 2, "knows", {"weight": 0.5}),
        71: (1, 2, "knows", {"weight": 0.75}),
        72: (2, 1, "knows", {}),
    }
    # Edges given no id, which get new ones: (src, dst, label, properties).
    new_edges = [
        (1, 3, "created", {"weight": 0.4}),
        (2, 5, "likes", {"since": 2019}),
        (2, 5, "likes", {"since": 2021}),
    ]


def csv_files(tmp_path):
    # Labelled by the call: no label column.
    person = write(
        tmp_path,
        "person.csv",
        "id,name,age:int,tags:string[],score:double\n"
        "1,marko,29,a;b,0.5\n"
        '2,"vadas, jr",27,,\n',
    )
    # Its own label column, and '|' between fields.
    software = write(
        tmp_path, "software.csv", ":ID|name|:LABEL|lang\n3|lop|software|java\n5|ripple|software|java\n"
    )
    # Vertex 1 named again: a property added, no vertex created.
    again = write(tmp_path, "again.csv", "id,nick\n1,mk\n")
    # Parallel edges with their ids, and one without.
    knows = write(
        tmp_path,
        "knows.csv",
        ":START_ID,:END_ID,:TYPE,weight:double,:ID\n"
        "1,2,knows,0.5,70\n"
        "1,2,knows,0.75,71\n"
        "2,1,knows,,72\n"
        "1,3,created,0.4,\n",
    )
    # Labelled by the call, no id column.
    likes = write(tmp_path, "likes.csv", "src,dst,since:long\n2,5,2019\n2,5,2021\n")
    return person, software, again, knows, likes


def check_against_the_model(s):
    assert sorted(s.vertices().tolist()) == sorted(Model.vertices)
    for v, (label, props) in Model.vertices.items():
        assert s.vertex(v) == {"id": v, "label": label, "properties": props}
    for e, (src, dst, label, props) in Model.edges.items():
        assert s.edge(e) == {"id": e, "src": src, "dst": dst, "label": label, "properties": props}
    rest = [e for e in s.property_edges() if e["id"] not in Model.edges]
    got = sorted(
        (e["src"], e["dst"], e["label"], sorted(s.edge_properties(e["id"]).items())) for e in rest
    )
    want = sorted((src, dst, label, sorted(p.items())) for src, dst, label, p in Model.new_edges)
    assert got == want
    assert len({e["id"] for e in s.property_edges()}) == len(Model.edges) + len(Model.new_edges)
    # Typed columns: age:int is 32 bits, since:long 64.
    assert s.find_vertices("person", "age", np.int32(29)).tolist() == [1]
    assert s.find_vertices("person", "age", 29).tolist() == []
    assert [e["id"] for e in s.edges_of(1, label="knows", direction="out")] == [70, 71]
    assert [e["id"] for e in s.edges_of(1, label="knows", direction="in")] == [72]
    assert len(s.edges_of(5, label="likes", direction="in")) == 2


def test_csv_files_load_as_the_model_says(tmp_path):
    person, software, again, knows, likes = csv_files(tmp_path)
    g = sg.Graph.in_memory()
    loaded = g.load_csv(
        vertices=[("person", person), str(software), again],
        edges=[knows, ("likes", likes)],
    )
    # One transaction per file at the default batch size.
    assert loaded == {"vertices": 4, "edges": 6, "batches": 5}
    check_against_the_model(g.snapshot())


def test_csv_files_given_as_a_dict_or_one_path(tmp_path):
    person, software, again, knows, likes = csv_files(tmp_path)
    g = sg.Graph.in_memory()
    assert g.load_csv(vertices={"person": person}) == {"vertices": 2, "edges": 0, "batches": 1}
    assert g.load_csv(vertices=software)["vertices"] == 2
    assert g.load_csv(again)["vertices"] == 0, "positional: vertices"
    assert g.load_csv(edges=knows)["edges"] == 4
    assert g.load_csv(edges={"likes": likes}, batch=1) == {"vertices": 0, "edges": 2, "batches": 2}
    check_against_the_model(g.snapshot())
    assert g.load_csv() == NOTHING
    assert g.load_csv(vertices=(), edges=[]) == NOTHING


def test_a_bad_row_after_a_committed_batch_names_its_line_and_column(tmp_path):
    v = write(tmp_path, "v.csv", "id,age:int\n1,29\n2,old\n3,31\n")
    g = sg.Graph.in_memory()
    with pytest.raises(sg.InvalidInput) as e:
        g.load_csv(vertices=[v], batch=1)
    assert str(e.value) == (
        f'{v}:3: age:int: "old" is not an int (32 bits); '
        "committed before it and still loaded: 1 vertex and 0 property edges in 1 batch"
    )
    assert (e.value.file, e.value.line, e.value.field) == (str(v), 3, "age:int")
    assert e.value.loaded == {"vertices": 1, "edges": 0, "batches": 1}
    s = g.snapshot()
    assert (s.has_vertex(1), s.has_vertex(2), s.has_vertex(3)) == (True, False, False)


def test_a_bad_edge_row_counts_the_vertex_files_before_it(tmp_path):
    v = write(tmp_path, "v.csv", "id\n1\n2\n3\n")
    e_file = write(tmp_path, "e.csv", "src,dst,w:double\n1,2,0.5\n2,3,heavy\n")
    g = sg.Graph.in_memory()
    with pytest.raises(sg.InvalidInput) as e:
        g.load_csv([v], [("link", e_file)], batch=2)
    assert (e.value.file, e.value.line, e.value.field) == (str(e_file), 3, "w:double")
    # v.csv: 2 + 1 vertices in 2 transactions; e.csv: the first edge was not
    # yet committed (batch=2), so it is not loaded.
    assert e.value.loaded == {"vertices": 3, "edges": 0, "batches": 2}
    assert g.snapshot().property_edges() == []


def test_bad_headers_and_rows(tmp_path):
    g = sg.Graph.in_memory()
    v = write(tmp_path, "v.csv", "name,age:int\nx,1\n")
    with pytest.raises(sg.InvalidInput, match=r"v.csv:1: the header: has no :ID column") as e:
        g.load_csv(v)
    assert (e.value.line, e.value.field) == (1, "the header")
    write(tmp_path, "v.csv", "id,age:integer\n1,2\n")
    with pytest.raises(sg.InvalidInput, match='type "integer" is not one of'):
        g.load_csv(v)
    write(tmp_path, "v.csv", "id,age:int\n1,2,3\n")
    with pytest.raises(sg.InvalidInput) as e:
        g.load_csv(v)
    assert (e.value.line, e.value.field) == (2, "the row")
    write(tmp_path, "v.csv", "id\n-4\n")
    # Since the loaders learned string keys (bc17a52), an id that is not a
    # non-negative integer is read as a key, which this store refuses.
    with pytest.raises(sg.InvalidInput, match=r'not a non-negative integer|vertex id "-4" is a string') as e:
        g.load_csv(v)
    assert e.value.field == "id"
    edges = write(tmp_path, "e.csv", "src,dst\n1,2\n")
    with pytest.raises(sg.InvalidInput, match="no :TYPE column and the file was given no label"):
        g.load_csv(edges=edges)
    assert g.num_vertices == 0


def test_an_edge_to_a_missing_vertex_raises_not_found_with_its_line(tmp_path):
    v = write(tmp_path, "v.csv", "id\n1\n2\n")
    e_file = write(tmp_path, "e.csv", ":START_ID,:END_ID,:TYPE\n1,2,knows\n2,9,knows\n")
    g = sg.Graph.in_memory(auto_create_vertices=False)
    with pytest.raises(sg.NotFound) as e:
        g.load_csv(v, e_file, batch=1)
    assert str(e.value).startswith(f"{e_file}:3: "), e.value
    assert "9" in str(e.value)
    assert (e.value.file, e.value.line, e.value.field) == (str(e_file), 3, None)
    assert e.value.loaded == {"vertices": 2, "edges": 1, "batches": 3}
    assert len(g.snapshot().property_edges()) == 1


# --- Arguments ----------------------------------------------------------------


def test_argument_types_and_values_are_checked(tmp_path):
    v = write(tmp_path, "v.csv", "id\n1\n")
    g = sg.Graph.in_memory()
    for bad in (0, -1):
        with pytest.raises(ValueError, match="batch"):
            g.load_csv(v, batch=bad)
        with pytest.raises(ValueError, match="batch"):
            g.load_graphson(v, batch=bad)
    with pytest.raises(TypeError, match="vertices: expected a path"):
        g.load_csv(vertices=5)
    with pytest.raises(TypeError, match=r"edges\[1\]: expected a path"):
        g.load_csv(edges=[v, 3])
    with pytest.raises(TypeError, match=r"vertices\[0\]: expected a \(label, path\) pair"):
        g.load_csv(vertices=[("person",)])
    with pytest.raises(TypeError, match=r"vertices\[0\]: .* str label, got a PosixPath label"):
        g.load_csv(vertices=[(Path(v), "person")])
    with pytest.raises(TypeError, match=r"vertices\[1\]: .* str label"):
        g.load_csv(vertices={"person": v, 1: v})
    with pytest.raises(TypeError):
        g.load_graphson(5)
    with pytest.raises(TypeError):
        g.load_graphson(v, 10)  # batch is keyword-only
    assert g.num_vertices == 0, "arguments are checked before anything loads"
    g.close()
    with pytest.raises(sg.Closed):
        g.load_csv(v)
    with pytest.raises(sg.Closed):
        g.load_graphson(v)
