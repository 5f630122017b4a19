"""``stratagraph.gremlin_source``: gremlinpython's own traversal API over a
graph in this process. Expected answers are TinkerPop's modern graph's."""

import pytest
from gremlin_python.driver.protocol import GremlinServerError
from gremlin_python.process.graph_traversal import __
from gremlin_python.process.traversal import P, T
from gremlin_python.structure.graph import Vertex

import stratagraph as sg

from conftest import REPO

MODERN = REPO.parent / "shared" / "tinkerpop" / "data" / "tinkerpop-modern.json"


@pytest.fixture
def graph():
    if not MODERN.exists():
        pytest.skip(f"{MODERN} not found (tests read the shared data beside the checkout)")
    with sg.Graph.in_memory() as g:
        g.load_graphson(MODERN)
        yield g


def test_reads_come_back_as_gremlinpython_objects(graph):
    g = sg.gremlin_source(graph)
    assert sorted(g.V().has("person", "name", "marko").out("knows").values("name").to_list()) == [
        "josh",
        "vadas",
    ]
    v = g.V().has("name", "marko").next()
    assert isinstance(v, Vertex) and (v.id, v.label) == (1, "person")
    assert {p.key: p.value for p in v.properties} == {"name": "marko", "age": 29}
    assert g.V().has("age", P.gt(30)).count().next() == 2
    assert g.V().group_count().by(T.label).next() == {"person": 4, "software": 2}
    assert sorted(g.V().repeat(__.out()).times(2).values("name").to_list()) == ["lop", "ripple"]
    assert g.V(1).out_e("knows").values("weight").sum_().next() == pytest.approx(1.5)


def test_writes_commit_per_traversal_and_a_failure_writes_nothing(graph):
    g = sg.gremlin_source(graph)
    g.add_v("person").property(T.id, 10).property("name", "zoe").iterate()
    assert graph.num_vertices == 7
    with pytest.raises(GremlinServerError) as e:
        g.add_v("person").property(T.id, 11).fail("stop").iterate()
    assert e.value.status_code == 595
    assert graph.num_vertices == 7
    with pytest.raises(GremlinServerError) as e:
        g.V().match(__.as_("a").out().as_("b")).to_list()
    assert "match" in str(e.value)


def test_a_closed_graph_is_refused(graph):
    g = sg.gremlin_source(graph)
    graph.close()
    with pytest.raises(sg.Closed):
        g.V().count().next()
