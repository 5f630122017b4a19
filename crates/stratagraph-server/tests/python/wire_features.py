"""TinkerPop's feature suite over the wire, through gremlinpython.

Every scenario of `../shared/tinkerpop/features/**/*.feature` is sent to
`stratagraph serve` as a string request (`Client.submit`) by TinkerPop's
own Python driver, and its results, as the driver decodes them, are
compared with the scenario's table, typed: an Int32 29 is not an Int64 29.

This reader is written apart from the in-process harness
(`crates/stratagraph-gremlin/tests/features/`) so that the two can
disagree: the in-process one sees the executor's values, this one sees
what a client receives. A scenario that passes in one and not in the
other is a serialisation bug (or a limit of the protocol or the driver,
which must then be named).

How it follows the feature files (`for-committers.asciidoc`, "Gremlin
Language Test Cases") and the in-process harness:

- one server per graph (`--in-memory --graphson FILE`); a scenario on the
  empty graph starts from `g.V().drop()`, then its initializer; a
  scenario that writes to a loaded graph gets that graph's server
  restarted after it;
- parameters are sent as bindings, typed as gremlinpython types them
  (`int` an Int32, `statics.long` an Int64, ...); a Float32 (which
  gremlinpython cannot send) or a `Merge` token is written into the text
  as a gremlin-lang literal, as are side effects (`withSideEffect` takes a
  literal);
- `v[name]` and `e[out-label->in]` are looked up through the driver, in the
  graph after the traversal and then before it;
- result types are kept by decoding numbers into the typed classes below,
  which equal only their own type (Python's `set` and `dict` would
  otherwise merge 1, 1.0 and True), and sets into lists.

Protocol limits, named: GraphBinary and GraphSON send a vertex property
without its vertex, so `vp[marko-age->29]` is compared by key and value.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import json
import math
import pathlib
import re
import struct
import subprocess
import uuid
from typing import Any

from gremlin_python import statics
from gremlin_python.driver import serializer
from gremlin_python.driver.client import Client
from gremlin_python.driver.protocol import GremlinServerError
from gremlin_python.process.traversal import Direction, T
from gremlin_python.structure.graph import Edge, Path, Property, Vertex, VertexProperty
from gremlin_python.structure.io import graphbinaryV1 as gb
from gremlin_python.structure.io import graphsonV3d0 as gs
from gremlin_python.structure.io.util import HashableDict

ROOT = pathlib.Path(__file__).resolve().parents[4]
TINKERPOP = ROOT.parent / "shared" / "tinkerpop"
GRAPH_FILES = {
    "modern": "tinkerpop-modern.json",
    "classic": "tinkerpop-classic.json",
    "crew": "tinkerpop-crew.json",
    "sink": "tinkerpop-sink.json",
    "grateful": "grateful-dead.json",
}

# ---------------------------------------------------------------- values


class _Typed:
    """Numbers that keep their wire type: equal only to the same type, and
    hashed with it, so that a set or a map key never merges an Int32 1
    with an Int64 1, a Double 1.0 or True."""

    __slots__ = ()

    def __eq__(self, other):
        return type(self) is type(other) and self._base.__eq__(self, other)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((type(self).__name__, self._base.__hash__(self)))

    def __repr__(self):
        return f"{type(self).__name__}({self._base.__repr__(self)})"


class I8(_Typed, int):
    """A Byte result."""
    _base = int


class I16(_Typed, int):
    """A Short result."""
    _base = int


class I32(_Typed, int):
    """An Int result."""
    _base = int


class I64(_Typed, int):
    """A Long result."""
    _base = int


class BigInt(_Typed, int):
    """A BigInteger result."""
    _base = int


class F32(_Typed, float):
    """A Float result."""
    _base = float


class F64(_Typed, float):
    """A Double result."""
    _base = float


class BigDec(_Typed, float):
    """A BigDecimal result (compared as the in-process harness keeps it,
    a double)."""
    _base = float


class Seq(list):
    """A Set result, kept as a list (a set of lists or maps cannot be a
    Python set)."""


class SetKey(tuple):
    """A Set that is a map's key (gremlinpython would make it a tuple, which
    reads as a list)."""


def _key(k):
    return SetKey(HashableDict.of(x) for x in k) if isinstance(k, Seq) else HashableDict.of(k)


class Pairs(list):
    """An expected map, as a list of (key, value): its keys may be lists."""


def _typed_gb(io, wrap):
    class Reader:
        @classmethod
        def objectify(cls, buff, reader, nullable=True):
            v = io.objectify(buff, reader, nullable)
            return None if v is None else wrap(v)

    return Reader


class _SetGB:
    @classmethod
    def objectify(cls, buff, reader, nullable=True):
        v = gb.ListIO.objectify(buff, reader, nullable)
        return None if v is None else Seq(v)


class _MapGB:
    @classmethod
    def objectify(cls, buff, reader, nullable=True):
        if nullable and buff.read(1)[0] == 0x01:
            return None
        n = gb.ListIO.read_int(buff)
        out = {}
        for _ in range(n):
            k = _key(reader.read_object(buff))
            out[k] = reader.read_object(buff)
        return out


def _bigdec_gb(v):
    return BigDec(float(decimal.Decimal(v.unscaled_value).scaleb(-v.scale)))


GRAPHBINARY_READERS = {
    gb.DataType.byte: _typed_gb(gb.ByteIO, I8),
    gb.DataType.short: _typed_gb(gb.ShortIO, I16),
    gb.DataType.int: _typed_gb(gb.IntIO, I32),
    gb.DataType.long: _typed_gb(gb.LongIO, I64),
    gb.DataType.biginteger: _typed_gb(gb.BigIntIO, BigInt),
    gb.DataType.float: _typed_gb(gb.FloatIO, F32),
    gb.DataType.double: _typed_gb(gb.DoubleIO, F64),
    gb.DataType.bigdecimal: _typed_gb(gb.BigDecimalIO, _bigdec_gb),
    gb.DataType.set: _SetGB,
    gb.DataType.map: _MapGB,
}


def _typed_gs(io, wrap):
    class Reader:
        @classmethod
        def objectify(cls, v, reader):
            return wrap(io.objectify(v, reader))

    return Reader


class _SetGS:
    @classmethod
    def objectify(cls, s, reader):
        return Seq(reader.to_object(x) for x in s)


class _MapGS:
    @classmethod
    def objectify(cls, flat, reader):
        return {_key(reader.to_object(flat[i])): reader.to_object(flat[i + 1])
                for i in range(0, len(flat), 2)}


GRAPHSON_READERS = {
    "gx:Byte": _typed_gs(gs.ByteIO, I8),
    "gx:Int16": _typed_gs(gs.Int16IO, I16),
    "g:Int32": _typed_gs(gs.Int32IO, I32),
    "g:Int64": _typed_gs(gs.Int64IO, I64),
    "gx:BigInteger": _typed_gs(gs.BigIntegerIO, BigInt),
    "g:Float": _typed_gs(gs.FloatIO, F32),
    "g:Double": _typed_gs(gs.DoubleIO, F64),
    "gx:BigDecimal": _typed_gs(gs.BigDecimalIO, _bigdec_gb),
    "g:Set": _SetGS,
    "g:Map": _MapGS,
}


def serializers():
    """The two serializers, each with the typed readers."""
    return {
        "graphbinary": lambda: serializer.GraphBinarySerializersV1(
            reader=gb.GraphBinaryReader(GRAPHBINARY_READERS)
        ),
        "graphson": lambda: serializer.GraphSONMessageSerializer(
            reader=gs.GraphSONReader(GRAPHSON_READERS),
            writer=gs.GraphSONWriter(),
            version=b"application/vnd.gremlin-v3.0+json",
        ),
    }


def norm(v: Any) -> Any:
    """A value as a tagged tree, so that comparison is by type and value:
    `('i32', 29)` is not `('i64', 29)`."""
    if v is None:
        return ("null",)
    if isinstance(v, bool):
        return ("bool", v)
    for cls, tag in ((I8, "i8"), (I16, "i16"), (I32, "i32"),
                     (I64, "i64"), (BigInt, "bigint")):
        if isinstance(v, cls):
            return (tag, int(v))
    if isinstance(v, F32):
        # What a Float reads as, whether the wire carried its 4 bytes
        # (GraphBinary) or its shortest decimal text (GraphSON).
        return ("f32", struct.unpack("<f", struct.pack("<f", float(v)))[0])
    for cls, tag in ((F64, "f64"), (BigDec, "bigdec")):
        if isinstance(v, cls):
            return (tag, float(v))
    if isinstance(v, int):
        return ("int?", int(v))
    if isinstance(v, float):
        return ("float?", float(v))
    if isinstance(v, str):
        return ("str", str(v))
    if isinstance(v, uuid.UUID):
        return ("uuid", v.bytes)
    if isinstance(v, dt.datetime):
        aware = v if v.tzinfo else v.replace(tzinfo=dt.timezone.utc)
        return ("date", aware.astimezone(dt.timezone.utc).isoformat())
    if isinstance(v, Vertex):
        return ("vertex", norm(v.id))
    if isinstance(v, Edge):
        return ("edge", norm(v.id))
    if isinstance(v, VertexProperty):
        owner = norm(v.vertex.id) if isinstance(v.vertex, Vertex) else None
        return ("vp", v.label, norm(v.value), owner)
    if isinstance(v, Property):
        return ("prop", v.key, norm(v.value))
    if isinstance(v, Path):
        return ("path", tuple(norm(o) for o in v.objects))
    if isinstance(v, Pairs):
        return ("map", tuple((norm(k), norm(x)) for k, x in v))
    if isinstance(v, (Seq, SetKey, set, frozenset)):
        return ("set", tuple(norm(x) for x in v))
    if isinstance(v, (list, tuple)):
        return ("list", tuple(norm(x) for x in v))
    if isinstance(v, dict):
        return ("map", tuple((norm(k), norm(x)) for k, x in v.items()))
    if v is T.id or v is T.label or v is T.key or v is T.value:
        return ("t", v.name)
    if isinstance(v, Direction):
        return ("dir", {"from_": "OUT", "to": "IN"}.get(v.name, v.name))
    if isinstance(v, bytes):
        return ("bytes", v)
    return ("other", type(v).__name__, repr(v))


def _same_num(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


def matches(e: Any, a: Any) -> bool:
    """Whether result `a` is what `e` describes (both normalised): paths by
    objects, an owner-less vertex property by key and value, lists in
    order, sets and maps as multisets, NaN equal to itself."""
    if e[0] != a[0]:
        return False
    tag = e[0]
    if tag in ("f32", "f64", "bigdec"):
        return _same_num(e[1], a[1])
    if tag == "vp":
        owner_ok = e[3] is None or a[3] is None or e[3] == a[3]
        return owner_ok and e[1] == a[1] and matches(e[2], a[2])
    if tag == "prop":
        return e[1] == a[1] and matches(e[2], a[2])
    if tag in ("list", "path"):
        return len(e[1]) == len(a[1]) and all(matches(x, y) for x, y in zip(e[1], a[1]))
    if tag == "set":
        return multiset(list(e[1]), list(a[1]), matches)[0] == []
    if tag == "map":
        left, right = multiset(
            list(e[1]), list(a[1]), lambda p, q: matches(p[0], q[0]) and matches(p[1], q[1])
        )
        return left == [] and right == []
    return e == a


def row_matches(e: Any, a: Any) -> bool:
    """`matches`, with a finite Double row taking a Double within 1e-15
    (TinkerPop's `closeTo` for top-level Double rows)."""
    if e[0] == "f64" and a[0] == "f64" and math.isfinite(e[1]):
        return abs(e[1] - a[1]) <= 1e-15
    return matches(e, a)


def multiset(exp: list, act: list, f) -> tuple[list, list]:
    """A perfect matching of rows to results (augmenting paths); returns
    the indices left over on each side."""
    adj = [[j for j in range(len(act)) if f(x, act[j])] for x in exp]
    owner: list = [None] * len(act)

    def augment(i, seen):
        for j in adj[i]:
            if j in seen:
                continue
            seen.add(j)
            if owner[j] is None or augment(owner[j], seen):
                owner[j] = i
                return True
        return False

    left = [i for i in range(len(exp)) if not augment(i, set())]
    return left, [j for j in range(len(act)) if owner[j] is None]


# --------------------------------------------------------------- gherkin


@dataclasses.dataclass
class Step:
    text: str
    line: int
    doc: str | None = None
    table: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class Scenario:
    name: str
    line: int
    tags: list
    steps: list


KEYWORDS = ("Given ", "When ", "Then ", "And ", "But ", "* ")


def _cells(row: str) -> list[str]:
    out, cell, i, body = [], [], 0, row.strip()[1:]
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            n = body[i + 1]
            cell.append({"|": "|", "\\": "\\", "n": "\n"}.get(n, "\\" + n))
            i += 2
            continue
        if c == "|":
            out.append("".join(cell).strip())
            cell = []
        else:
            cell.append(c)
        i += 1
    return out


def parse_feature(text: str) -> list[Scenario]:
    """The scenarios of one feature file (the Gherkin TinkerPop uses: tags,
    scenarios, steps, doc strings, one-column tables)."""
    lines = text.split("\n")
    scenarios: list[Scenario] = []
    feature_tags: list[str] = []
    pending: list[str] = []
    i = 0
    while i < len(lines):
        raw = lines[i]
        t = raw.strip()
        if not t or t.startswith("#"):
            i += 1
            continue
        if t.startswith("@"):
            pending += [x[1:] for x in t.split() if x.startswith("@")]
        elif t.startswith("Feature:"):
            feature_tags, pending = pending, []
        elif t.startswith("Scenario:"):
            scenarios.append(Scenario(t[len("Scenario:"):].strip(), i + 1, feature_tags + pending, []))
            pending = []
        elif t.startswith('"""'):
            indent = len(raw) - len(raw.lstrip())
            body = []
            i += 1
            while lines[i].strip() != '"""':
                line = lines[i]
                cut = 0
                while cut < min(indent, len(line)) and line[cut].isspace():
                    cut += 1
                body.append(line[cut:])
                i += 1
            scenarios[-1].steps[-1].doc = "\n".join(body).replace('\\"\\"\\"', '"""')
        elif t.startswith("|"):
            scenarios[-1].steps[-1].table.append(_cells(t))
        elif t.startswith(KEYWORDS) and scenarios:
            kw = next(k for k in KEYWORDS if t.startswith(k))
            scenarios[-1].steps.append(Step(t[len(kw):].strip(), i + 1))
        # Any other line is the feature's description.
        i += 1
    return scenarios


# -------------------------------------------------------------- notation


@dataclasses.dataclass(frozen=True)
class Named:
    """A notation form that names graph elements: resolved against the
    graph (`kind` one of vertex, vertex_id, vertex_sid, edge, edge_id,
    edge_sid, vp)."""
    kind: str
    key: Any


@dataclasses.dataclass(frozen=True)
class Token:
    """`t[...]`, `D[...]`, `M[...]` or `c[...]`."""
    kind: str
    name: str


@dataclasses.dataclass
class NoteList:
    kind: str  # list, set, path
    items: list


@dataclasses.dataclass
class NoteMap:
    pairs: list


@dataclasses.dataclass
class NoteVP:
    owner: str | None
    key: str
    value: Any


class NotationError(Exception):
    pass


def _bracketed(s: str, prefix: str) -> str | None:
    if s.startswith(prefix) and s.endswith("]"):
        return s[len(prefix):-1]
    return None


def _triplet(s: str):
    """`a-b->c` split as TinkerPop's `(.+)-(.+)->(.+)` does (greedy)."""
    m = re.fullmatch(r"(.+)-(.+)->(.+)", s, re.S)
    return m.groups() if m else None


def _items(inner: str) -> list:
    if inner == "":
        return []
    out, depth, start = [], 0, 0
    for i, c in enumerate(inner):
        if c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(parse_note(inner[start:i]))
            start = i + 1
    out.append(parse_note(inner[start:]))
    return out


def _from_json(j):
    if j is None:
        return None
    if isinstance(j, bool):
        return j
    if isinstance(j, int):
        return I32(j) if -(2**31) <= j < 2**31 else I64(j)
    if isinstance(j, float):
        return F64(j)
    if isinstance(j, str):
        return parse_note(j)
    if isinstance(j, list):
        return NoteList("list", [_from_json(x) for x in j])
    return NoteMap([(parse_note(k), _from_json(v)) for k, v in j.items()])


NUMBER_TYPES = {"b": I8, "s": I16, "i": I32, "l": I64, "n": BigInt, "f": F32, "d": F64, "m": BigDec}
SPECIAL = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _number(rest: str):
    m = re.fullmatch(r"(.*)\]\.([a-z])", rest, re.S)
    if m:
        digits, suffix = m.groups()
    elif rest.endswith("]") and rest[:-1] in SPECIAL:
        digits, suffix = rest[:-1], "d"
    else:
        raise NotationError(f"d[{rest}: a number needs a type suffix")
    ty = NUMBER_TYPES.get(suffix)
    if ty is None:
        raise NotationError(f"unknown number suffix .{suffix}")
    if digits in SPECIAL:
        if ty not in (F32, F64, BigDec):
            raise NotationError(f"{digits} is not a {ty.__name__}")
        return ty(SPECIAL[digits])
    try:
        if ty is F32:
            return F32(struct.unpack("<f", struct.pack("<f", float(digits)))[0])
        if ty in (F64, BigDec):
            return ty(float(digits))
        return ty(int(digits))
    except ValueError:
        raise NotationError(f"{digits!r} is not a {ty.__name__}") from None


def parse_date(s: str) -> dt.datetime:
    m = re.fullmatch(r"(-?\d+)-(\d+)-(\d+)(?:T(\d+):(\d+)(?::(\d+)(?:\.(\d{1,9}))?)?)?(Z|[+-]\d+(?::\d+)?)?", s)
    if not m:
        raise NotationError(f"dt[{s}]: not an ISO-8601 date-time")
    y, mo, d, hh, mm, ss, frac, zone = m.groups()
    tz = dt.timezone.utc
    if zone and zone != "Z":
        sign = -1 if zone[0] == "-" else 1
        oh, _, om = zone[1:].partition(":")
        tz = dt.timezone(sign * dt.timedelta(hours=int(oh), minutes=int(om or 0)))
    micro = int((frac or "0").ljust(9, "0")[:6])
    return dt.datetime(int(y), int(mo), int(d), int(hh or 0), int(mm or 0), int(ss or 0), micro, tz)


def parse_note(s: str):
    """One cell or parameter of the notation, parsed without a graph."""
    if s == "null":
        return None
    if s in ("true", "false"):
        return s == "true"
    if (inner := _bracketed(s, "str[")) is not None:
        return inner
    if (inner := _bracketed(s, "dt[")) is not None:
        return parse_date(inner)
    if (inner := _bracketed(s, "uuid[")) is not None:
        try:
            return uuid.UUID(inner)
        except ValueError:
            raise NotationError(f"{s}: not a UUID") from None
    if (inner := _bracketed(s, "vp[")) is not None:
        t = _triplet(inner)
        if t:
            return NoteVP(t[0], t[1], parse_note(t[2]))
        k, sep, v = inner.partition("->")
        if not sep:
            raise NotationError(f"{s}: not a vertex property")
        return NoteVP(None, k, parse_note(v))
    for prefix, kind in (("l[", "list"), ("s[", "set"), ("p[", "path")):
        if (inner := _bracketed(s, prefix)) is not None:
            return NoteList(kind, _items(inner))
    if (inner := _bracketed(s, "m[")) is not None:
        try:
            return _from_json(json.loads(inner))
        except json.JSONDecodeError as e:
            raise NotationError(f"{s}: bad JSON: {e}") from None
    if (inner := _bracketed(s, "t[")) is not None:
        if inner not in ("id", "label", "key", "value"):
            raise NotationError(f"{s}: not a T token")
        return Token("t", inner)
    if (inner := _bracketed(s, "D[")) is not None:
        d = {"OUT": "OUT", "from": "OUT", "IN": "IN", "to": "IN", "BOTH": "BOTH"}.get(inner)
        if d is None:
            raise NotationError(f"{s}: not a Direction")
        return Token("dir", d)
    if (inner := _bracketed(s, "M[")) is not None:
        return Token("merge", inner)
    if (inner := _bracketed(s, "c[")) is not None:
        return Token("closure", inner)
    if s.startswith("d["):
        return _number(s[2:])
    for prefix, kind in (("v[", "vertex"), ("e[", "edge")):
        if s.startswith(prefix):
            rest = s[2:]
            for suffix, sub in (("].id", "_id"), ("].sid", "_sid"), ("]", "")):
                if rest.endswith(suffix):
                    name = rest[: -len(suffix)]
                    if kind == "edge":
                        t = _triplet(name)
                        if not t:
                            raise NotationError(f"{s}: not an edge out-label->in")
                        name = t
                    return Named(kind + sub, name)
            raise NotationError(f"{s}: expected ], ].id or ].sid at the end")
    return s


def needs_literal(n) -> bool:
    """Whether a parameter must be written into the text: it holds a
    `Merge` token or a Float32, which gremlinpython cannot send."""
    if isinstance(n, Token):
        return n.kind == "merge"
    if isinstance(n, NoteList):
        return any(needs_literal(x) for x in n.items)
    if isinstance(n, NoteMap):
        return any(needs_literal(k) or needs_literal(v) for k, v in n.pairs)
    if isinstance(n, NoteVP):
        return needs_literal(n.value)
    return isinstance(n, F32)


# ------------------------------------------------------------ the graph


class Names:
    """One moment of a graph's vertices by `name` and its edges, read
    through the driver."""

    def __init__(self, client: Client):
        rows = client.submit("g.V().has('name').as('v').values('name').as('n').select('v','n')").all().result()
        self.by_name: dict[str, list] = {}
        self.name_of: dict = {}
        for row in rows:
            m = dict(row)
            self.by_name.setdefault(m["n"], []).append(m["v"])
            self.name_of.setdefault(norm(m["v"].id), set()).add(m["n"])
        for vs in self.by_name.values():
            vs.sort(key=lambda v: v.id)
        self.edges = client.submit("g.E()").all().result()

    def vertex(self, name: str):
        vs = self.by_name.get(name)
        return vs[0] if vs else None

    def edge(self, key):
        out, label, inv = key
        for v in self.by_name.get(out, []):
            for e in self.edges:
                if (e.label == label and norm(e.outV.id) == norm(v.id)
                        and inv in self.name_of.get(norm(e.inV.id), ())):
                    return e
        return None


class Lookup:
    """Resolves notation into the values a client holds, against layers of
    `Names` (the first that knows a name wins)."""

    def __init__(self, *layers: Names):
        self.layers = layers

    def _vertex(self, name):
        for n in self.layers:
            if (v := n.vertex(name)) is not None:
                return v
        raise NotationError(f"no vertex named {name!r} in the graph")

    def _edge(self, key):
        for n in self.layers:
            if (e := n.edge(key)) is not None:
                return e
        raise NotationError(f"no edge {key[0]}-{key[1]}->{key[2]} in the graph")

    def resolve(self, n):
        """The value a client would hold (typed wrappers for numbers)."""
        if isinstance(n, Named):
            el = self._vertex(n.key) if n.kind.startswith("vertex") else self._edge(n.key)
            if n.kind.endswith("_id"):
                return el.id
            if n.kind.endswith("_sid"):
                return str(int(el.id)) if isinstance(el.id, int) else str(el.id)
            return el
        if isinstance(n, NoteVP):
            owner = self._vertex(n.owner) if n.owner is not None else None
            return VertexProperty(None, n.key, self.resolve(n.value), owner)
        if isinstance(n, NoteList):
            items = [self.resolve(x) for x in n.items]
            if n.kind == "set":
                return Seq(items)
            if n.kind == "path":
                return Path([set() for _ in items], items)
            return items
        if isinstance(n, NoteMap):
            return Pairs((self.resolve(k), self.resolve(v)) for k, v in n.pairs)
        if isinstance(n, Token):
            if n.kind == "t":
                return getattr(T, n.name)
            if n.kind == "dir":
                return getattr(Direction, n.name)
            raise NotationError(f"{n.kind} {n.name}: has no value a client can hold")
        return n

    def binding(self, n, graphson: bool):
        """The value to bind, typed as gremlinpython sends types.

        gremlinpython's GraphSON script requests put bindings into the JSON
        as they are (`json.dumps`), untyped; so for GraphSON each binding
        is written by gremlinpython's own GraphSON 3 writer first, as a
        typed value, which is what a GraphSON 3 request carries."""
        v = to_driver(self.resolve(n))
        return gs.GraphSONWriter().to_dict(v) if graphson else v

    def render(self, n) -> str:
        """The gremlin-lang literal of a note."""
        if n is None:
            return "null"
        if isinstance(n, bool):
            return "true" if n else "false"
        if isinstance(n, str):
            return json.dumps(n)
        if isinstance(n, (F32, F64, BigDec)):
            suffix = {F32: "f", F64: "d", BigDec: "m"}[type(n)]
            if math.isnan(n):
                return "NaN"
            if math.isinf(n):
                return "Infinity" if n > 0 else "-Infinity"
            return repr(float(n)) + suffix
        if isinstance(n, (I8, I16, I32, I64, BigInt)):
            return str(int(n)) + {I8: "b", I16: "s", I32: "i", I64: "L", BigInt: "n"}[type(n)]
        if isinstance(n, dt.datetime):
            return f'datetime("{n.isoformat()}")'
        if isinstance(n, uuid.UUID):
            return f'UUID("{n}")'
        if isinstance(n, Named) and n.kind in ("vertex_id", "edge_id"):
            return f"{int(self.resolve(n))}L"
        if isinstance(n, Named) and n.kind in ("vertex_sid", "edge_sid"):
            return json.dumps(self.resolve(n))
        if isinstance(n, NoteList) and n.kind == "list":
            return "[" + ",".join(self.render(x) for x in n.items) + "]"
        if isinstance(n, NoteList) and n.kind == "set":
            return "{" + ",".join(self.render(x) for x in n.items) + "}"
        if isinstance(n, NoteMap):
            if not n.pairs:
                return "[:]"
            parts = []
            for k, v in n.pairs:
                key = json.dumps(k) if isinstance(k, str) else f"({self.render(k)})"
                parts.append(f"{key}:{self.render(v)}")
            return "[" + ",".join(parts) + "]"
        if isinstance(n, Token):
            return {"t": "T.", "dir": "Direction.", "merge": "Merge."}.get(n.kind, "?") + n.name
        raise NotationError(f"{n!r} has no gremlin-lang literal form")


def to_driver(v):
    """A resolved value as gremlinpython's own types, so its serializer
    sends the intended wire type."""
    if isinstance(v, bool) or v is None:
        return v
    if isinstance(v, I8):
        return statics.SingleByte(int(v))
    if isinstance(v, I16):
        return statics.short(int(v))
    if isinstance(v, I32):
        return int(v)
    if isinstance(v, I64):
        return statics.long(int(v))
    if isinstance(v, BigInt):
        return statics.bigint(int(v))
    if isinstance(v, F64):
        return float(v)
    if isinstance(v, BigDec):
        return statics.bigdecimal(float(v))
    if isinstance(v, Seq):
        return set(to_driver(x) for x in v)
    if isinstance(v, Pairs):
        return {to_driver(k): to_driver(x) for k, x in v}
    if isinstance(v, list):
        return [to_driver(x) for x in v]
    return v


# -------------------------------------------------------------- servers


def _die_with_parent():
    """In a server's process before exec: SIGTERM it when the harness
    dies, so that no server outlives a harness that was killed."""
    import ctypes
    import signal

    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Servers:
    """One `stratagraph serve --in-memory` per graph, started on demand."""

    def __init__(self, cli: pathlib.Path, serializer_name: str):
        self.cli = cli
        self.ser = serializers()[serializer_name]
        self.graphson = serializer_name == "graphson"
        self.running: dict[str, tuple] = {}
        self.refused: dict[str, str] = {}

    def client(self, graph: str) -> Client:
        if graph in self.refused:
            raise GraphRefused(self.refused[graph])
        if graph not in self.running:
            args = [str(self.cli), "serve", "--in-memory", "--port", "0", "--timeout-ms", "10000"]
            if graph in GRAPH_FILES:
                args += ["--graphson", str(TINKERPOP / "data" / GRAPH_FILES[graph])]
            proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    preexec_fn=_die_with_parent)
            line = proc.stdout.readline()
            if not line.startswith("listening on "):
                err = proc.stderr.read()
                proc.wait()
                self.refused[graph] = f"the {graph} graph could not be served: {line}{err}".strip()
                raise GraphRefused(self.refused[graph])
            try:
                client = Client(line.split()[-1], "g", message_serializer=self.ser())
            except BaseException:
                # No server outlives the harness, whatever failed.
                proc.kill()
                proc.communicate()
                raise
            self.running[graph] = (proc, client)
        return self.running[graph][1]

    def restart(self, graph: str):
        proc, client = self.running.pop(graph)
        try:
            client.close()
        finally:
            proc.terminate()
            try:
                proc.communicate(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.communicate()

    def close(self):
        for g in list(self.running):
            self.restart(g)


class GraphRefused(Exception):
    pass


# ------------------------------------------------------------- scenarios

WRITES = re.compile(r"\b(addV|addE|property|drop|mergeV|mergeE)\s*\(|\.io\(")
UNIMPLEMENTED = ("not supported", "not implemented", "unsupported")
NOT_RUN = {"stratagraph.SyntaxError", "stratagraph.UnboundParameter", "stratagraph.Unsupported"}


class Fail(Exception):
    pass


def out_of_scope(s: Scenario) -> str | None:
    if any(st.text == "an unsupported test" for st in s.steps):
        return "unsupported test"
    if "GraphComputerOnly" in s.tags:
        return "@GraphComputerOnly"
    return None


def _quoted(s: str) -> str:
    s = s.strip()
    if not (s.startswith('"') and s.endswith('"')):
        raise Fail(f"expected a quoted string, got {s}")
    return s[1:-1].replace('\\"', '"')


def _definition(rest: str):
    name, sep, value = rest.partition(" defined as ")
    if not sep:
        raise Fail("expected `<name> defined as \"<value>\"`")
    return name.strip(), parse_note(_quoted(value))


def substitute(q: str, inline: dict) -> str:
    """Replaces whole identifiers outside string literals."""
    if not inline:
        return q
    out, i = [], 0
    while i < len(q):
        c = q[i]
        if c in "\"'":
            j = i + 1
            while j < len(q) and q[j] != c:
                j += 2 if q[j] == "\\" else 1
            out.append(q[i:j + 1])
            i = j + 1
        elif (c.isalpha() or c in "_$") and (i == 0 or not (q[i - 1].isalnum() or q[i - 1] in "_$.")):
            j = i
            while j < len(q) and (q[j].isalnum() or q[j] in "_$"):
                j += 1
            word = q[i:j]
            out.append(inline.get(word, word))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def io_path(q: str) -> str:
    t = q.lstrip()
    if not t.startswith('g.io("'):
        return q
    rest = t[len('g.io("'):]
    end = rest.find('"')
    if end < 0 or rest.startswith("/"):
        return q
    return 'g.io("' + json.dumps(str(TINKERPOP / rest[:end]))[1:-1] + rest[end:]


def rows_of(v) -> list:
    """A `next()` result as rows: a list's or set's items, a map's entries
    as one-entry maps, a path's objects, else the value."""
    if isinstance(v, dict):
        return [{k: x} for k, x in v.items()]
    if isinstance(v, (list, Seq)):
        return list(v)
    if isinstance(v, Path):
        return list(v.objects)
    return [v]


def tree_value(text: str, lookup: Lookup):
    rows = []
    for line in (x for x in text.split("\n") if x.strip()):
        at = line.find("|--")
        rows.append((at, parse_note(line[at + 3:].rstrip())))
    base = min((r[0] for r in rows), default=0)
    levels = [((at - base) // 3, n) for at, n in rows]

    def level(pos, depth):
        out = []
        while pos < len(levels) and levels[pos][0] >= depth:
            _, note = levels[pos]
            kids, pos = level(pos + 1, depth + 1)
            key = lookup.resolve(note)
            for k, existing in out:
                if matches(norm(k), norm(key)):
                    existing.extend(kids)
                    break
            else:
                out.append((key, Pairs(kids)))
        return Pairs(out), pos

    return level(0, 0)[0]


def run(s: Scenario, servers: Servers) -> None:
    """Runs one scenario; raises `Fail` with the reason when a step does not
    hold."""
    graph, init, params, effects, traversal, mode = "empty", None, [], [], None, "list"
    assertions = []
    for st in s.steps:
        t = st.text
        m = re.fullmatch(r"the (\w+) graph", t)
        if m and (m.group(1) in GRAPH_FILES or m.group(1) == "empty"):
            graph = m.group(1)
        elif t == "the graph initializer of":
            init = st.doc
        elif t.startswith("using the parameter "):
            params.append(_definition(t[len("using the parameter "):]))
        elif t.startswith("using the side effect "):
            effects.append(_definition(t[len("using the side effect "):]))
        elif t == "the traversal of":
            traversal = st.doc
        elif t in ("iterated to list", "iterated next"):
            mode = t.split()[-1]
        else:
            assertions.append(st)
    if traversal is None:
        raise Fail("the scenario has no `the traversal of`")
    try:
        client = servers.client(graph)
    except GraphRefused as e:
        raise Fail(str(e)) from None
    writes = graph != "empty" and WRITES.search(traversal + (init or "")) is not None
    try:
        if graph == "empty":
            client.submit("g.V().drop()").all().result()
        if init:
            try:
                client.submit(init).all().result()
            except GremlinServerError as e:
                raise Fail(f"the graph initializer failed: {e}") from None
        before = Names(client)
        lookup = Lookup(before)
        bindings, inline = {}, {}
        for name, note in params:
            try:
                if needs_literal(note):
                    inline[name] = lookup.render(note)
                else:
                    bindings[name] = lookup.binding(note, servers.graphson)
            except NotationError as e:
                raise Fail(f"parameter {name}: {e}") from None
        query = substitute(io_path(traversal), inline)
        if effects:
            head = query.lstrip()
            assert head.startswith("g."), "side effects need a traversal that starts with g."
            prefix = "".join(f'withSideEffect("{k}",{lookup.render(n)}).' for k, n in effects)
            query = "g." + prefix + head[2:]
        try:
            result, error = client.submit(query, bindings).all().result(), None
        except GremlinServerError as e:
            result, error = None, e
        after = Names(client)
        ran = Ran(client, result, error, mode, Lookup(after, before), bindings, inline)
        for st in assertions:
            try:
                ran.check(st)
            except Fail as f:
                raise Fail(f"line {st.line}: {f}") from None
            except NotationError as e:
                raise Fail(f"line {st.line}: {e}") from None
    finally:
        if writes:
            servers.restart(graph)


@dataclasses.dataclass
class Ran:
    client: Client
    result: list | None
    error: GremlinServerError | None
    mode: str
    lookup: Lookup
    bindings: dict
    inline: dict

    def rows(self) -> list:
        self.raise_error()
        if self.mode == "list":
            return list(self.result)
        if not self.result:
            raise Fail("next(): the traversal returned nothing")
        return rows_of(self.result[0])

    def single(self):
        self.raise_error()
        if self.mode == "next" and self.result:
            return self.result[0]
        if self.mode == "list" and len(self.result) == 1:
            return self.result[0]
        raise Fail(f"expected one result, got {len(self.result)}")

    def raise_error(self):
        if self.error is not None:
            raise Fail(f"error {self.error}")

    def table(self, st) -> list:
        return [norm(self.lookup.resolve(parse_note(row[0]))) for row in st.table[1:]]

    def check(self, st) -> None:
        t = st.text
        if t == "the result should be unordered":
            exp, act = self.table(st), [norm(r) for r in self.rows()]
            left, extra = multiset(exp, act, row_matches)
            if left or extra:
                raise Fail(f"expected {len(exp)} results, got {len(act)}; missing "
                           f"{[exp[i] for i in left][:5]}, unexpected {[act[j] for j in extra][:5]}")
        elif t == "the result should be ordered":
            exp, act = self.table(st), [norm(r) for r in self.rows()]
            if len(exp) != len(act) or not all(row_matches(e, a) for e, a in zip(exp, act)):
                raise Fail(f"expected {exp[:8]}, got {act[:8]}")
        elif t == "the result should be of":
            exp, act = self.table(st), [norm(r) for r in self.rows()]
            stray = [a for a in act if not any(matches(e, a) for e in exp)]
            if stray:
                raise Fail(f"{len(stray)} results are none of the rows: {stray[:5]}")
        elif t == "the result should be empty":
            vs = self.rows() if self.mode == "list" else self.single()
            if self.mode == "next" and not isinstance(vs, (list, Seq)):
                raise Fail(f"expected an empty collection, got {norm(vs)}")
            if len(vs) != 0:
                raise Fail(f"expected no result, got {len(vs)}")
        elif t.startswith("the result should have a count of "):
            n = int(t.rsplit(" ", 1)[1])
            if self.mode == "list":
                got = len(self.rows())
            else:
                v = self.single()
                if isinstance(v, Path):
                    got = len(v.objects)
                elif isinstance(v, (list, Seq, Pairs, dict)):
                    got = len(v)
                else:
                    raise Fail(f"a count of {norm(v)}, which is not a collection")
            if got != n:
                raise Fail(f"expected a count of {n}, got {got}")
        elif t == "the traversal will raise an error" or t.startswith(
                "the traversal will raise an error with message "):
            self.check_error(t)
        elif t.startswith("the graph should return "):
            n, _, q = t[len("the graph should return "):].partition(" for count of ")
            q = substitute(_quoted(q), self.inline)
            try:
                got = len(self.client.submit(q, self.bindings).all().result())
            except GremlinServerError as e:
                raise Fail(f"{q}: {e}") from None
            if got != int(n):
                raise Fail(f"{q}: expected a count of {n}, got {got}")
        elif t == "the result should be a tree with a structure of":
            want = norm(tree_value(st.doc, self.lookup))
            if not matches(want, norm(self.single())):
                raise Fail(f"expected the tree {want}, got {norm(self.single())}")
        elif t == "the result should be a subgraph with the following":
            raise Fail("subgraph results are not compared")
        else:
            raise Fail(f"step not understood: {t}")

    def check_error(self, t: str) -> None:
        if self.error is None:
            raise Fail(f"expected an error, got {len(self.result)} results")
        msg = self.error.status_message or ""
        kinds = set((self.error.status_attributes or {}).get("exceptions") or [])
        text = None
        if t.startswith("the traversal will raise an error with message "):
            how, _, quoted = t[len("the traversal will raise an error with message "):].partition(" text of ")
            text = _quoted(quoted)
        expects_phrase = text is not None and any(p in text.lower() for p in UNIMPLEMENTED)
        not_run = bool(kinds & NOT_RUN) or any(p in msg.lower() for p in UNIMPLEMENTED)
        answered = expects_phrase and not kinds & {"stratagraph.SyntaxError", "stratagraph.UnboundParameter"}
        if not_run and not answered:
            raise Fail(f"expected an error; the server did not run the traversal: {msg}")
        if text is None:
            return
        m, x = msg.lower(), text.lower()
        ok = {"containing": x in m, "starting": m.startswith(x), "ending": m.endswith(x)}.get(how)
        if not ok:
            raise Fail(f"expected an error {how} {text!r}, got: {msg}")


def run_suite(cli: pathlib.Path, serializer_name: str, only: str | None = None) -> dict:
    """Every scenario: {"file:line": (status, name, detail)} with status
    PASS, FAIL or SKIP, keyed as the in-process harness keys them."""
    root = TINKERPOP / "features"
    out = {}
    servers = Servers(cli, serializer_name)
    try:
        for path in sorted(root.rglob("*.feature")):
            rel = path.relative_to(root).as_posix()
            for s in parse_feature(path.read_text()):
                key = f"{rel}:{s.line}"
                if only and only not in key and only not in s.name:
                    continue
                scope = out_of_scope(s)
                if scope:
                    out[key] = ("SKIP", s.name, scope)
                    continue
                try:
                    run(s, servers)
                    out[key] = ("PASS", s.name, "")
                except (Fail, NotationError) as f:
                    out[key] = ("FAIL", s.name, str(f))
                except Exception as e:  # a driver error is a failure to report, not a crash
                    out[key] = ("FAIL", s.name, f"{type(e).__name__}: {e}")
    finally:
        servers.close()
    return out


def in_process_outcomes(path: pathlib.Path) -> dict:
    """The in-process harness's `target/gremlin-features.txt`."""
    out = {}
    for line in path.read_text().splitlines():
        status, key, name, *detail = line.split("\t")
        out[key] = (status, name, detail[0] if detail else "")
    return out
