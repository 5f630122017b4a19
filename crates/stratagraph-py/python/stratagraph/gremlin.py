"""Gremlin traversals with TinkerPop's own Python API over a graph in this
process, without a server.

``gremlin_source(graph)`` returns a gremlinpython ``GraphTraversalSource``
whose traversals are sent, as the bytecode a ``DriverRemoteConnection``
would send to a Gremlin Server, to ``graph`` in the same process: the
same translation, executor and result types as ``stratagraph serve``,
without a socket. Each traversal is one transaction. Needs the
``gremlinpython`` package (``pip install gremlinpython``)::

    import stratagraph as sg
    g = sg.gremlin_source(graph)
    g.V().has("person", "name", "marko").out("knows").values("name").to_list()
"""

import uuid

try:
    from gremlin_python.driver import serializer as _serializer
    from gremlin_python.driver.protocol import GremlinServerError
    from gremlin_python.driver.remote_connection import RemoteConnection, RemoteTraversal
    from gremlin_python.driver.request import RequestMessage
    from gremlin_python.process.anonymous_traversal import traversal
except ImportError as e:  # pragma: no cover - exercised without gremlinpython
    raise ImportError(
        "stratagraph.gremlin needs gremlinpython: pip install gremlinpython"
    ) from e

__all__ = ["EmbeddedConnection", "gremlin_source"]


class EmbeddedConnection(RemoteConnection):
    """A gremlinpython remote connection to a ``stratagraph.Graph`` in this
    process: bytecode goes in as a GraphBinary request frame, traversers
    come back as gremlinpython's own objects, and a failure raises
    ``GremlinServerError`` with the status a server would send."""

    def __init__(self, graph, traversal_source="g"):
        super().__init__("embedded:", traversal_source)
        self._graph = graph
        self._serializer = _serializer.GraphBinarySerializersV1()

    def submit(self, bytecode):
        request = RequestMessage(
            processor="traversal",
            op="bytecode",
            args={"gremlin": bytecode, "aliases": {"g": self.traversal_source}},
        )
        frame = self._serializer.serialize_message(str(uuid.uuid4()), request)
        results = []
        for reply in self._graph._gremlin_frame(bytes(frame)):
            message = self._serializer.deserialize_message(reply)
            status = message["status"]
            if status["code"] in (200, 206):
                results.extend(message["result"]["data"])
            elif status["code"] != 204:
                raise GremlinServerError(status)
        return RemoteTraversal(iter(results))

    def submit_async(self, bytecode):
        from concurrent.futures import Future

        future = Future()
        try:
            future.set_result(self.submit(bytecode))
        except Exception as e:  # noqa: BLE001 - handed to the caller's future
            future.set_exception(e)
        return future

    def close(self):
        """Nothing to close: the graph stays open."""


def gremlin_source(graph, traversal_source="g"):
    """A gremlinpython ``GraphTraversalSource`` over ``graph`` in this
    process (see the module's documentation)."""
    return traversal().with_(EmbeddedConnection(graph, traversal_source))
