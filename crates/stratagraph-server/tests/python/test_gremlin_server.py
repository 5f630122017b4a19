"""`stratagraph serve` driven by TinkerPop's own Python driver.

The server runs as a separate process on loopback, on a port it picks,
with TinkerPop's "modern" graph loaded; gremlinpython 3.8.2 (from PyPI)
talks to it as it would to a Gremlin Server. The expected answers are the
modern graph's, as TinkerPop's documentation gives them.
"""

import asyncio
import os
import pathlib
import subprocess

import pytest
from gremlin_python.driver import serializer
from gremlin_python.driver.client import Client
from gremlin_python.driver.driver_remote_connection import DriverRemoteConnection
from gremlin_python.driver.protocol import GremlinServerError
from gremlin_python.process.anonymous_traversal import traversal
from gremlin_python.process.graph_traversal import __
from gremlin_python.process.traversal import P, T
from gremlin_python.structure.graph import Vertex

ROOT = pathlib.Path(__file__).resolve().parents[4]
CLI = pathlib.Path(os.environ.get("STRATAGRAPH_CLI", ROOT / "target" / "release" / "stratagraph"))
MODERN = ROOT.parent / "shared" / "tinkerpop" / "data" / "tinkerpop-modern.json"

SERIALIZERS = {
    "graphbinary": serializer.GraphBinarySerializersV1,
    "graphson": serializer.GraphSONSerializersV3d0,
}


def start(*args):
    """Starts the server; returns the process and its URL."""
    proc = subprocess.Popen(
        [str(CLI), "serve", "--port", "0", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    if not line.startswith("listening on "):
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r} {proc.stderr.read()}")
    return proc, line.split()[-1]


def stop(proc):
    """Stops the server as an operator would (SIGTERM) and checks it
    stopped cleanly."""
    proc.terminate()
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "the store is closed" in err


@pytest.fixture(scope="module")
def url():
    proc, url = start("--in-memory", "--graphson", str(MODERN))
    yield url
    stop(proc)


@pytest.fixture(params=sorted(SERIALIZERS))
def client(url, request):
    c = Client(url, "g", message_serializer=SERIALIZERS[request.param]())
    yield c
    c.close()


@pytest.fixture(params=sorted(SERIALIZERS))
def g(url, request):
    conn = DriverRemoteConnection(url, "g", message_serializer=SERIALIZERS[request.param]())
    yield traversal().with_(conn)
    conn.close()


def test_the_node_driver_reads_writes_and_commits(url):
    # gremlin 3.8.2 from npm, installed by scripts/setup.sh.
    script = ROOT / "crates" / "stratagraph-server" / "tests" / "js" / "gremlin_js_test.js"
    done = subprocess.run(["node", str(script), url], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.split() == ["graphbinary:", "ok", "graphson:", "ok"]


def test_a_script_request_returns_typed_results(client):
    names = client.submit("g.V().has('person','name','marko').out('knows').values('name')").all().result()
    assert sorted(names) == ["josh", "vadas"]
    ages = client.submit("g.V().hasLabel('person').values('age').order()").all().result()
    assert ages == [27, 29, 32, 35]
    assert client.submit("g.V().count()").all().result() == [6]
    assert client.submit("g.E().values('weight').sum()").all().result() == [pytest.approx(3.5)]


def test_bindings_and_a_large_result_stream_in_batches(client):
    got = client.submit("g.inject(xs).unfold()", {"xs": list(range(5000))}).all().result()
    assert got == list(range(5000))
    names = client.submit("g.V().has('name', n).values('age')", {"n": "vadas"}).all().result()
    assert names == [27]


def test_a_request_past_its_time_limit_is_stopped(client):
    long = "g.inject(1).repeat(identity()).times(900000).count()"
    with pytest.raises(GremlinServerError) as e:
        client.submit(long, request_options={"evaluationTimeout": 100}).all().result()
    assert e.value.status_code == 598
    assert "time limit" in str(e.value)
    assert client.submit("g.V().count()").all().result() == [6]


def test_an_empty_result_is_no_content(client):
    assert client.submit("g.V().has('name','nobody')").all().result() == []


def test_an_error_carries_the_engine_message(client):
    with pytest.raises(GremlinServerError) as e:
        client.submit("g.V().fooo()").all().result()
    assert e.value.status_code == 597
    assert "fooo" in str(e.value)
    # The connection serves the next request.
    assert client.submit("g.V().count()").all().result() == [6]


def test_bytecode_traversals(g):
    assert sorted(g.V().has("name", "marko").out().values("name").to_list()) == ["josh", "lop", "vadas"]
    v = g.V().has("person", "name", "marko").next()
    assert isinstance(v, Vertex)
    assert (v.id, v.label) == (1, "person")
    assert g.V().has("age", P.gt(30)).count().next() == 2
    assert g.V(1).out_e("knows").count().next() == 2
    counts = g.V().group_count().by(T.label).next()
    assert counts == {"person": 4, "software": 2}
    path = g.V(1).out("knows").has("name", "josh").path().by("name").next()
    assert list(path.objects) == ["marko", "josh"]
    assert sorted(g.V().repeat(__.out()).times(2).values("name").to_list()) == ["lop", "ripple"]


def test_elements_carry_their_properties_unless_asked_not_to(g):
    v = g.V(1).next()
    assert {p.key: p.value for p in v.properties} == {"name": "marko", "age": 29}
    e = g.V(1).out_e("knows").has("weight", 0.5).next()
    assert {p.key: p.value for p in e.properties} == {"weight": 0.5}
    assert (e.outV.id, e.inV.id, e.label) == (1, 2, "knows")
    v = g.with_("materializeProperties", "tokens").V(1).next()
    assert (v.id, v.label, list(v.properties or [])) == (1, "person", [])


def test_a_write_commits_and_a_failed_write_leaves_nothing(url):
    conn = DriverRemoteConnection(url, "g")
    g = traversal().with_(conn)
    c = Client(url, "g")
    try:
        g.add_v("person").property(T.id, 100).property("name", "zoe").iterate()
        assert g.V(100).values("name").to_list() == ["zoe"]
        with pytest.raises(GremlinServerError):
            c.submit("g.addV('person').property(T.id, 101).fail('stop')").all().result()
        assert g.V(101).count().next() == 0
        g.V(100).drop().iterate()
        assert g.V(100).count().next() == 0
    finally:
        c.close()
        conn.close()


@pytest.mark.parametrize("ser", sorted(SERIALIZERS))
def test_a_remote_transaction_commits_and_one_rolls_back(url, ser):
    conn = DriverRemoteConnection(url, "g", message_serializer=SERIALIZERS[ser]())
    g = traversal().with_(conn)
    try:
        tx = g.tx()
        gtx = tx.begin()
        gtx.add_v("person").property(T.id, 200).property("name", "tx1").iterate()
        gtx.add_v("person").property(T.id, 201).property("name", "tx2").iterate()
        # The transaction reads its own writes; nobody else sees them yet.
        assert gtx.V(200, 201).count().next() == 2
        assert g.V(200, 201).count().next() == 0
        tx.commit()
        assert sorted(g.V(200, 201).values("name").to_list()) == ["tx1", "tx2"]

        tx = g.tx()
        gtx = tx.begin()
        gtx.V(200).drop().iterate()
        assert gtx.V(200).count().next() == 0
        tx.rollback()
        assert g.V(200).count().next() == 1
    finally:
        g.V(200, 201).drop().iterate()
        conn.close()


def test_garbage_and_a_wrong_path_cost_only_themselves(url):
    import aiohttp

    async def probe():
        async with aiohttp.ClientSession() as s:
            with pytest.raises(aiohttp.WSServerHandshakeError) as e:
                await s.ws_connect(url.replace("/gremlin", "/other"))
            assert e.value.status == 404
            async with s.ws_connect(url) as ws:
                await ws.send_bytes(b"\x21application/vnd.graphbinary-v1.0\x81\xff\xff")
                reply = await ws.receive(timeout=10)
                assert reply.type == aiohttp.WSMsgType.BINARY
                await ws.send_bytes(b"\x05junk!")
                reply = await ws.receive(timeout=10)
                assert reply.type == aiohttp.WSMsgType.BINARY

    asyncio.run(probe())
    c = Client(url, "g")
    try:
        assert c.submit("g.V().count()").all().result() == [6]
    finally:
        c.close()


@pytest.mark.parametrize("ser", sorted(SERIALIZERS))
def test_authentication_lets_in_the_right_password_only(tmp_path, ser):
    users = tmp_path / "users"
    for user, password in [("ada", "s3cret"), ("bob", "pw")]:
        subprocess.run([str(CLI), "passwd", str(users), user], input=password + "\n",
                       text=True, check=True, capture_output=True)
    assert "s3cret" not in users.read_text()
    proc, url = start("--in-memory", "--graphson", str(MODERN), "--credentials", str(users))
    make = SERIALIZERS[ser]
    try:
        c = Client(url, "g", username="ada", password="s3cret", message_serializer=make())
        assert c.submit("g.V().count()").all().result() == [6]
        # Logged in once per connection: the next request runs at once.
        assert c.submit("g.V(1).values('name')").all().result() == ["marko"]
        c.close()
        conn = DriverRemoteConnection(url, "g", username="bob", password="pw", message_serializer=make())
        assert traversal().with_(conn).V().count().next() == 6
        conn.close()
        bad = Client(url, "g", username="ada", password="wrong", message_serializer=make())
        with pytest.raises(GremlinServerError) as e:
            bad.submit("g.V().count()").all().result()
        assert e.value.status_code == 401
        bad.close()
        anonymous = Client(url, "g", message_serializer=make())
        with pytest.raises(Exception, match="authentication"):
            anonymous.submit("g.V().count()").all().result()
        anonymous.close()
    finally:
        stop(proc)


def test_an_on_disk_store_keeps_what_was_written_across_a_restart(tmp_path):
    store = tmp_path / "store"
    proc, url = start(str(store))
    try:
        c = Client(url, "g")
        c.submit("g.addV('person').property(T.id, 7).property('name', 'ada')").all().result()
        c.close()
    finally:
        stop(proc)
    proc, url = start(str(store))
    try:
        c = Client(url, "g")
        assert c.submit("g.V(7).values('name')").all().result() == ["ada"]
        c.close()
    finally:
        stop(proc)


def test_elements_a_client_holds_can_be_bound(url):
    # GraphBinary only: gremlinpython's GraphSON script requests put
    # bindings into the JSON untyped, and cannot write a vertex there.
    client = Client(url, "g", message_serializer=SERIALIZERS["graphbinary"]())
    marko = client.submit("g.V().has('name','marko')").all().result()[0]
    assert client.submit("g.V(x).out('knows').count()", {"x": marko}).all().result() == [2]
    edge = client.submit("g.V().has('name','marko').outE('created')").all().result()[0]
    assert client.submit("g.E(e).inV().values('name')", {"e": edge}).all().result() == ["lop"]
    client.close()


def test_an_error_names_its_kind(client):
    with pytest.raises(GremlinServerError) as e:
        client.submit("g.V().fooo()").all().result()
    assert e.value.status_attributes["exceptions"] == ["stratagraph.SyntaxError"]
    with pytest.raises(GremlinServerError) as e:
        client.submit("g.V(x)").all().result()
    assert e.value.status_attributes["exceptions"] == ["stratagraph.UnboundParameter"]


def test_tls_serves_wss_to_the_driver_and_refuses_plain_clients(tmp_path):
    import socket
    import ssl

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key), "-out", str(cert),
         "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
        check=True, capture_output=True,
    )
    proc, url = start("--in-memory", "--graphson", str(MODERN), "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        assert url.startswith("wss://")
        # A plain WebSocket upgrade (no TLS) gets no HTTP answer: the
        # server reads it as a failed handshake and closes the connection.
        host, port = url.split("//")[1].split("/")[0].rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=20) as s:
            s.sendall(b"GET /gremlin HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n\r\n")
            answer = b""
            while chunk := s.recv(4096):
                answer += chunk
            assert not answer.startswith(b"HTTP/"), answer
        # A client that does not trust the certificate fails its handshake.
        with socket.create_connection((host, int(port)), timeout=20) as s:
            with pytest.raises(ssl.SSLCertVerificationError):
                ssl.create_default_context().wrap_socket(s, server_hostname="localhost")
        # After both, the server serves clients that trust it.
        trusting = ssl.create_default_context(cafile=str(cert))
        for name, ser in sorted(SERIALIZERS.items()):
            c = Client(url, "g", message_serializer=ser(), ssl_options=trusting)
            assert c.submit("g.V().has('name','marko').out('knows').count()").all().result() == [2], name
            c.close()
        conn = DriverRemoteConnection(url, "g", ssl_options=trusting)
        g = traversal().with_(conn)
        assert sorted(g.V().has("person", "age", P.gt(30)).values("name").to_list()) == ["josh", "peter"]
        conn.close()
    finally:
        stop(proc)


def test_tls_files_that_do_not_serve_are_named(tmp_path):
    bad = tmp_path / "cert.pem"
    bad.write_text("not a certificate\n")
    done = subprocess.run(
        [str(CLI), "serve", "--in-memory", "--port", "0", "--tls-cert", str(bad), "--tls-key", str(bad)],
        capture_output=True, text=True, timeout=30,
    )
    assert done.returncode != 0
    assert "cert.pem" in done.stderr and "no certificate" in done.stderr, done.stderr


def test_concurrent_clients_adding_vertices_never_conflict():
    from concurrent.futures import ThreadPoolExecutor

    proc, url = start("--in-memory")
    try:
        def add(n):
            c = Client(url, "g")
            try:
                return [c.submit("g.addV('v').id()").all().result()[0] for _ in range(n)]
            finally:
                c.close()

        with ThreadPoolExecutor(4) as pool:
            ids = [i for part in pool.map(add, [150] * 4) for i in part]
        assert len(set(ids)) == 600
        c = Client(url, "g")
        assert c.submit("g.V().count()").all().result() == [600]
        c.close()
    finally:
        stop(proc)


def test_a_query_past_the_memory_limit_fails_alone():
    proc, url = start("--in-memory", "--graphson", str(MODERN), "--max-query-memory-mb", "64")
    try:
        c = Client(url, "g")
        with pytest.raises(GremlinServerError) as e:
            c.submit("g.V().repeat(both()).times(13).path().fold()").all().result()
        assert e.value.status_code == 597
        assert e.value.status_attributes["exceptions"] == ["stratagraph.MemoryLimit"]
        assert "memory limit of 64 MiB" in str(e.value)
        assert c.submit("g.V().repeat(both()).times(8).path().count()").all().result() == [5910]
        c.close()
    finally:
        stop(proc)
