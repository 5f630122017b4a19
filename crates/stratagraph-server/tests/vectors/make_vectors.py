#!/usr/bin/env python3
"""Reference vectors for stratagraph-server's wire codecs, made by gremlinpython.

gremlinpython is an implementation of GraphBinary 1.0 and GraphSON 3.0 written
independently of ours, so its bytes are the check on our reading of the spec.

Setup (outside the repository):

    python3 -m venv /tmp/gp-venv && /tmp/gp-venv/bin/pip install gremlinpython==3.8.2

Two modes:

    make_vectors.py generate
        Rewrites graphbinary.txt and graphson.txt beside this script: one vector a
        line, `name<TAB>hex` or `name<TAB>json`, each written by gremlinpython's own
        serializers. The Rust tests (tests/reference_vectors.rs) hold the expected
        `Wire` value of every name, built by hand.

    make_vectors.py check responses.txt
        Reads response messages that OUR encoder wrote (tests/vectors/responses.txt,
        `name<TAB>graphbinary|graphson<TAB>hex-or-json`, kept in step with the encoder
        by the Rust test `responses_match_committed_file`; regenerate it with
        `STRATAGRAPH_WRITE_RESPONSES=1 cargo test --release -p stratagraph-server
        --test reference_vectors`) and decodes each with gremlinpython's
        deserializers, comparing with the Python values in EXPECTED_RESPONSES below.
        Exits non-zero on any mismatch.

Python sets iterate in hash order, so the sets here hold only small ints or a
single element: the vectors then do not depend on PYTHONHASHSEED.
"""

import datetime
import json
import math
import os
import sys
import uuid

from gremlin_python.driver.request import RequestMessage
from gremlin_python.driver.serializer import GraphBinarySerializersV1, GraphSONSerializersV3d0
from gremlin_python.process.graph_traversal import GraphTraversalSource, __
from gremlin_python.process.strategies import ReadOnlyStrategy, SubgraphStrategy
from gremlin_python.process.traversal import (
    Barrier, Bindings, Cardinality, Column, DT, Direction, GType, Merge, Operator, Order, P, Pick, Pop,
    Scope, T, TextP, TraversalStrategies, Traverser)
from gremlin_python.statics import BigDecimal, SingleByte, SingleChar, bigint, long, short, timestamp
from gremlin_python.structure.graph import Edge, Graph, Path, Property, Vertex, VertexProperty
from gremlin_python.structure.io.graphbinaryV1 import GraphBinaryWriter
from gremlin_python.structure.io.graphsonV3d0 import GraphSONWriter

HERE = os.path.dirname(os.path.abspath(__file__))
REQUEST_ID = uuid.UUID("41d2e28a-20a4-4ab0-b379-d810dede3786")

g = GraphTraversalSource(Graph(), TraversalStrategies())


def values():
    """(name, python value) pairs written as standalone values by both formats."""
    plus_one = datetime.timezone(datetime.timedelta(hours=1))
    return [
        ("null", None),
        ("bool_true", True),
        ("bool_false", False),
        ("int_0", 0),
        ("int_1", 1),
        ("int_neg1", -1),
        ("int_min", -2 ** 31),
        ("int_max", 2 ** 31 - 1),
        ("long_1", long(1)),
        ("long_min", long(-2 ** 63)),
        ("long_max", long(2 ** 63 - 1)),
        ("short_neg2", short(-2)),
        ("byte_min", SingleByte(-128)),
        ("byte_max", SingleByte(127)),
        ("bigint_0", bigint(0)),
        ("bigint_128", bigint(128)),
        ("bigint_neg129", bigint(-129)),
        ("bigint_2_100", bigint(2 ** 100)),
        ("bigint_neg_2_127", bigint(-2 ** 127)),
        ("double_0_1", 0.1),
        ("double_neg_zero", -0.0),
        ("double_nan", float("nan")),
        ("double_inf", float("inf")),
        ("double_neg_inf", float("-inf")),
        ("double_max", 1.7976931348623157e308),
        ("double_min_subnormal", 5e-324),
        ("bigdecimal_123_45", BigDecimal(2, 12345)),
        ("bigdecimal_neg1", BigDecimal(0, -1)),
        ("bigdecimal_neg_scale", BigDecimal(-3, 7)),
        ("string_empty", ""),
        ("string_abc", "abc"),
        ("string_non_ascii", "h\u00e9llo w\u00f6rld \u2713 \U0001F600"),
        ("string_escapes", "tab\tnl\nquote\"backslash\\ctl\u0001"),
        ("uuid", REQUEST_ID),
        ("date_naive", datetime.datetime(2020, 1, 2, 3, 4, 5, 678000)),
        ("date_before_epoch", datetime.datetime(1969, 12, 31, 23, 59, 59, 999000)),
        ("timestamp", timestamp(1481750076.295)),
        ("offset_date_time", datetime.datetime(2007, 12, 3, 10, 15, 30, 123456, tzinfo=plus_one)),
        ("duration", datetime.timedelta(seconds=3723, microseconds=500)),
        ("duration_days_dropped", datetime.timedelta(days=2, seconds=5)),
        ("char_a", SingleChar("a")),
        ("char_euro", SingleChar("\u20ac")),
        ("char_emoji", SingleChar("\U0001F600")),
        ("bytebuffer", bytes([0, 1, 0x7f])),
        ("list_empty", []),
        ("list_mixed", [1, "a", None, [2, 3]]),
        ("set_ints", {1, 2, 3}),
        ("map_empty", {}),
        ("map_string_keys", {"a": 1, "b": [True, None]}),
        ("map_int_keys", {1: "x", 2: {"nested": long(5)}}),
        ("vertex", Vertex(1, "person")),
        ("edge", Edge(13, Vertex(1, "person"), "develops", Vertex(10, "software"))),
        ("vertex_property", VertexProperty(long(0), "name", "marko", Vertex(1))),
        ("property", Property("since", 2009, None)),
        ("path", Path([{"a"}, set()], [Vertex(1, "person"), "marko"])),
        ("traverser", Traverser("marko", long(3))),
        ("p_gt", P.gt(1)),
        ("p_within", P.within(1, 2, 3)),
        ("p_between", P.between(1, 5)),
        ("p_and", P.gt(1).and_(P.lt(10))),
        ("textp_containing", TextP.containing("ark")),
        ("textp_starting_with", TextP.starting_with("ma")),
        ("t_id", T.id),
        ("t_label", T.label),
        ("direction_out", Direction.OUT),
        ("direction_both", Direction.BOTH),
        ("order_desc", Order.desc),
        ("pop_all", Pop.all_),
        ("scope_local", Scope.local),
        ("cardinality_list", Cardinality.list_),
        ("column_keys", Column.keys),
        ("operator_sum", Operator.sum_),
        ("pick_any", Pick.any_),
        ("barrier_norm_sack", Barrier.norm_sack),
        ("merge_on_create", Merge.on_create),
        ("dt_day", DT.day),
        ("gtype_int", GType.INT),
        ("binding", Bindings.of("x", 1)),
        ("bytecode_has_out_values",
         g.V().has("person", "name", "marko").out("knows").values("name").bytecode),
        ("bytecode_anonymous",
         g.V().where(__.out("knows").count().is_(P.gt(1))).values("name").bytecode),
        ("bytecode_lambda", g.V().map(lambda: "it.get().value('name')").bytecode),
        ("bytecode_binding", g.V(Bindings.of("x", 1)).bytecode),
        ("bytecode_strategy",
         g.with_strategies(SubgraphStrategy(vertices=__.has_label("person"))).V().count().bytecode),
        ("bytecode_without_strategies", g.without_strategies(ReadOnlyStrategy).V().bytecode),
    ]


def requests():
    """(name, RequestMessage) pairs, serialized with the mime header a client puts first."""
    eval_args = {"gremlin": "g.V(x).out('knows')", "bindings": {"x": 1},
                 "aliases": {"g": "gmodern"}, "language": "gremlin-groovy"}
    session_args = {"gremlin": "g.V().count()", "session": "unique-session-identifier",
                    "evaluationTimeout": long(500), "batchSize": 64}
    return [
        ("request_eval", lambda: RequestMessage("", "eval", dict(eval_args))),
        ("request_session_eval", lambda: RequestMessage("session", "eval", dict(session_args))),
        ("request_bytecode", lambda: RequestMessage(
            "traversal", "bytecode",
            {"gremlin": g.V().has("person", "name", "marko").out("knows").values("name").bytecode,
             "aliases": {"g": "g"}})),
        ("request_authentication", lambda: RequestMessage(
            "traversal", "authentication", {"sasl": "AHN0ZXBocGhlbgBwYXNzd29yZA=="})),
    ]


def generate():
    gb_writer = GraphBinaryWriter()
    gs_writer = GraphSONWriter()
    gb_lines, gs_lines = [], []
    for name, value in values():
        # Some values one of gremlinpython's writers cannot write (GraphSON has no
        # Path writer, for one): those are left out of that file, and said so.
        try:
            out = bytearray()
            gb_writer.to_dict(value, out)
            gb_lines.append("%s\t%s" % (name, bytes(out).hex()))
        except Exception as err:
            print("graphbinary: gremlinpython cannot write %s: %s" % (name, err))
        try:
            gs_lines.append("%s\t%s" % (name, gs_writer.write_object(value)))
        except Exception as err:
            print("graphson: gremlinpython cannot write %s: %s" % (name, err))
    for name, make in requests():
        gb = GraphBinarySerializersV1().serialize_message(str(REQUEST_ID), make())
        gb_lines.append("%s\t%s" % (name, bytes(gb).hex()))
        gs = GraphSONSerializersV3d0().serialize_message(str(REQUEST_ID), make())
        # The GraphSON frame is the mime header then UTF-8 JSON: keep it as hex too,
        # so the Rust test sees the exact frame a client sends.
        gs_lines.append("%s\t%s" % (name, bytes(gs).hex()))
    header = "# written by make_vectors.py generate (gremlinpython 3.8.2); do not edit\n"
    with open(os.path.join(HERE, "graphbinary.txt"), "w", encoding="utf-8") as f:
        f.write(header + "\n".join(gb_lines) + "\n")
    with open(os.path.join(HERE, "graphson.txt"), "w", encoding="utf-8") as f:
        f.write(header + "\n".join(gs_lines) + "\n")
    print("wrote %d GraphBinary and %d GraphSON vectors" % (len(gb_lines), len(gs_lines)))


def canon(v):
    """A comparable form of what gremlinpython decoded: types named, floats by bits."""
    if v is None or isinstance(v, bool):
        return (type(v).__name__, v)
    if isinstance(v, str):
        # Its GraphBinary reader returns a Char as `str`, GraphSON as `SingleChar`.
        return ("str", str(v))
    if isinstance(v, float):
        return ("float", "nan" if math.isnan(v) else v.hex())
    if isinstance(v, SingleByte):
        return ("SingleByte", int(v))
    if isinstance(v, int):
        # gremlinpython's readers return Long as `int` (GraphBinary) or `long`
        # (GraphSON), BigInteger as `int` or `long`: compare the number.
        return ("int", int(v))
    if isinstance(v, (bytes, bytearray)):
        return ("bytes", bytes(v).hex())
    if isinstance(v, BigDecimal):
        return ("BigDecimal", v.scale, v.unscaled_value)
    if isinstance(v, uuid.UUID):
        return ("uuid", str(v))
    if isinstance(v, datetime.datetime):
        return ("datetime", v.isoformat())
    if isinstance(v, datetime.timedelta):
        return ("timedelta", v.days, v.seconds, v.microseconds)
    if isinstance(v, list):
        return ("list", [canon(x) for x in v])
    if isinstance(v, (set, frozenset)):
        return ("set", sorted((canon(x) for x in v), key=repr))
    if isinstance(v, tuple):
        return ("tuple", [canon(x) for x in v])
    if isinstance(v, dict):
        return ("dict", sorted(((canon(k), canon(x)) for k, x in v.items()), key=repr))
    if isinstance(v, Edge):
        return ("Edge", canon(v.id), v.label, canon(v.outV.id), v.outV.label, canon(v.inV.id),
                v.inV.label, canon(v.properties))
    if isinstance(v, VertexProperty):
        return ("VertexProperty", canon(v.id), v.label, canon(v.value), canon(v.properties))
    if isinstance(v, Vertex):
        return ("Vertex", canon(v.id), v.label, canon(v.properties))
    if isinstance(v, Property):
        return ("Property", v.key, canon(v.value))
    if isinstance(v, Path):
        return ("Path", canon(v.labels), canon(v.objects))
    if isinstance(v, Traverser):
        return ("Traverser", int(v.bulk), canon(v.object))
    if hasattr(v, "name") and hasattr(type(v), "__members__"):
        return ("enum", type(v).__name__, v.name)
    return ("repr", repr(v))


def expected_responses():
    """What gremlinpython must decode from each response our encoder wrote."""
    rid = str(REQUEST_ID)
    plus_one = datetime.timezone(datetime.timedelta(hours=1))
    vertex = Vertex(1, "person", [VertexProperty(long(0), "name", "marko", None)])
    edge = Edge(7, Vertex(1, "person"), "knows", Vertex(2, "person"), [Property("weight", 0.5, None)])

    def ok(data, code=200, meta=None, attributes=None, message=""):
        return {"requestId": rid, "status": {"code": code, "message": message,
                                             "attributes": attributes or {}},
                "result": {"meta": meta or {}, "data": data}}

    scalars = [1, long(-2), short(3), SingleByte(-4), bigint(2 ** 70), 0.375, float("nan"), -1.5e300,
               BigDecimal(2, 12345), "h\u00e9llo \U0001F600", REQUEST_ID,
               datetime.datetime(2020, 1, 2, 3, 4, 5, 678000),
               datetime.datetime(2007, 12, 3, 10, 15, 30, 123456, tzinfo=plus_one),
               datetime.timedelta(seconds=3723, microseconds=500), SingleChar("\u20ac"),
               bytes([0, 1, 0x7f]), True, None]
    # gremlinpython reads gx:ByteBuffer as the text's UTF-8 bytes, not base64.
    graphson_scalars = [s for s in scalars if not isinstance(s, bytes)]
    common = {
        "vertices": ok([vertex, Vertex(2, "person")]),
        "edge": ok([edge]),
        "path": ok([Path([{"a"}, set()], [Vertex(1, "person"), "marko"])]),
        "traversers": ok([Traverser("marko", long(2)), Traverser(vertex, long(1))]),
        "bulkset": ok([["a", "a", "b"]]),
        "map_with_vertex_key": ok([{Vertex(1, "person"): long(4)}]),
        "enums": ok([T.id, T.label, Direction.OUT]),
        "set": ok([{1, 2}]),
        "partial": ok(["x"], code=206),
        "no_content": ok(None, code=204),
        "error": {"requestId": rid, "status": {"code": 597, "message": "No such property: x",
                                               "attributes": {"exceptions": ["groovy.lang.MissingPropertyException"],
                                                              "stackTrace": "..."}},
                  "result": {"meta": {}, "data": None}},
        "auth_challenge": ok(None, code=407),
        "null_request_id": {"requestId": None, "status": {"code": 498, "message": "malformed",
                                                          "attributes": {}},
                            "result": {"meta": {}, "data": None}},
        "meta_and_attributes": ok([1], meta={"aggregateTo": "list"}, attributes={"host": "/127.0.0.1"}),
    }
    # gremlinpython's GraphBinary reader turns a null request id into str(None).
    null_id_graphbinary = dict(common["null_request_id"], requestId="None")
    return {
        "graphbinary": dict(common, scalars=ok(scalars), null_request_id=null_id_graphbinary),
        "graphson": dict(common, scalars=ok(graphson_scalars)),
    }


def check(path):
    expected = expected_responses()
    failures, seen = 0, 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            name, fmt, payload = line.split("\t", 2)
            seen += 1
            if fmt == "graphbinary":
                got = GraphBinarySerializersV1().deserialize_message(bytes.fromhex(payload))
            else:
                got = GraphSONSerializersV3d0().deserialize_message(payload)
            want = expected[fmt].get(name)
            if want is None:
                print("FAIL %s/%s: no expectation in make_vectors.py" % (fmt, name))
                failures += 1
            elif canon(got) != canon(want):
                print("FAIL %s/%s:\n  got  %r\n  want %r" % (fmt, name, canon(got), canon(want)))
                failures += 1
            else:
                print("ok   %s/%s" % (fmt, name))
    missing = sum(len(v) for v in expected.values()) - seen
    if missing:
        print("%d expected responses were not in %s" % (missing, path))
        failures += 1
    print("%d passed, %d failed" % (seen - failures if seen >= failures else 0, failures))
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "generate":
        generate()
    elif len(sys.argv) == 3 and sys.argv[1] == "check":
        check(sys.argv[2])
    else:
        print(__doc__)
        sys.exit(2)
