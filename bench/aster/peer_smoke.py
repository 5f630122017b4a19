#!/usr/bin/env python3
"""Smoke test of the client benchmark's seven operations against one Gremlin
server (stratagraph serve, or a peer started by bench/aster/peer.sh), through
gremlinpython's bytecode API:

    peer_smoke.py ws://127.0.0.1:PORT/gremlin [--reps 200] [--forms]

For each operation: runs it --reps times with GraphBinary 1.0 (the
gremlinpython default), prints the first result and the median latency; then
runs each once more with GraphSON 3.0. --forms also tries the candidate
forms of "delete one edge a->b" once each and says which ones work and really
delete. Informal numbers: a smoke test, not the benchmark.

Needs gremlinpython (3.8.2 was used: /tmp/gp-venv/bin/python). Writes
vertices labelled 'v' with a 'vid' unique to this run (so a persistent store
may be reused) and edges labelled 'e'. Exit status 1 if any operation failed.
"""
import argparse
import statistics
import sys
import time

from gremlin_python.driver import serializer
from gremlin_python.driver.driver_remote_connection import DriverRemoteConnection
from gremlin_python.process.anonymous_traversal import traversal
from gremlin_python.process.graph_traversal import __

# The seven operations, as the benchmark's common client code will issue them
# (each works on stratagraph, Gremlin Server 3.8.1/TinkerGraph and JanusGraph
# 1.1.0 with gremlinpython 3.8.2). Each returns a value; none uses .iterate(),
# which gremlinpython 3.8 ends with a discard() step that TinkerPop 3.7
# servers (JanusGraph 1.1) reject.
def op_noop(g):
    return g.inject(1).next()

def op_add_vertex(g, n):
    return g.addV('v').property('vid', n).id_().next()

def op_add_edge(g, a, b):
    return g.V(a).addE('e').to(__.V(b)).count().next()

def op_neighbours(g, a):
    return g.V(a).out('e').id_().to_list()

def op_update(g, a):
    return g.V(a).property('score', 1.5).count().next()

def op_find(g, n):
    return g.V().has('v', 'vid', n).id_().to_list()

def op_delete_edge(g, a, b):
    return g.V(a).outE('e').where(__.inV().hasId(b)).limit(1) \
        .sideEffect(__.drop()).count().next()

# Other forms of "delete edge a->b", tried with --forms.
DELETE_FORMS = {
    'sideEffect(drop()).count().next()': op_delete_edge,
    'drop().to_list()': lambda g, a, b: g.V(a).outE('e').where(__.inV().hasId(b))
        .limit(1).drop().to_list(),
    'drop().iterate()': lambda g, a, b: g.V(a).outE('e').where(__.inV().hasId(b))
        .limit(1).drop().iterate() and None,
    'outE().where(otherV().hasId(b)).drop().to_list()':
        lambda g, a, b: g.V(a).outE('e').where(__.otherV().hasId(b)).limit(1).drop().to_list(),
    'sideEffect(outE().where(inV().hasId(b)).limit(1).drop()).count().next()':
        lambda g, a, b: g.V(a).sideEffect(__.outE('e').where(__.inV().hasId(b)).limit(1).drop())
        .count().next(),
}

failures = []


def timed(name, reps, fn):
    """Runs fn(i) for i in range(reps); prints the first result and the
    median latency; returns the results (None entries where it failed)."""
    results, lat = [], []
    first_err, errors = None, 0
    for i in range(reps):
        t = time.perf_counter()
        try:
            r = fn(i)
        except Exception as e:  # noqa: BLE001 - report and go on
            r = None
            errors += 1
            first_err = first_err or e
        lat.append(time.perf_counter() - t)
        results.append(r)
    med = statistics.median(lat) * 1e3
    line = f"  {name:<14} median {med:8.3f} ms  first result {results[0]!r}"
    if first_err:
        failures.append(f"{name}: {first_err!r}")
        line += f"  FAILED {errors}/{reps}: {str(first_err)[:300]}"
    print(line, flush=True)
    return results


def run(g, reps, tag, label):
    print(f"{label}: {reps} repetitions each", flush=True)
    base = tag * 100000
    timed('no-op', reps, lambda i: op_noop(g))
    ids = timed('add vertex', reps, lambda i: op_add_vertex(g, base + i))
    if any(v is None for v in ids):
        print("  (no vertex ids: stopping this run)")
        return
    pairs = [(ids[i], ids[(i + 1) % reps]) for i in range(reps)]
    timed('add edge', reps, lambda i: op_add_edge(g, *pairs[i]))
    nb = timed('neighbours', reps, lambda i: op_neighbours(g, pairs[i][0]))
    wrong = [i for i in range(reps) if nb[i] != [pairs[i][1]]]
    if wrong:
        failures.append(f"neighbours wrong for {len(wrong)} vertices, e.g. {nb[wrong[0]]!r}")
        print(f"  !! neighbours wrong for {len(wrong)}/{reps}")
    timed('update prop', reps, lambda i: op_update(g, ids[i]))
    scores = g.V(ids[0]).values('score').to_list()
    print(f"  {'':<14} V(ids[0]).values('score') after its update (single cardinality: one value) = {scores!r}")
    found = timed('find by prop', reps, lambda i: op_find(g, base + i))
    wrong = [i for i in range(reps) if found[i] != [ids[i]]]
    if wrong:
        failures.append(f"find wrong for {len(wrong)} values, e.g. {found[wrong[0]]!r}")
        print(f"  !! find wrong for {len(wrong)}/{reps}")
    timed('delete edge', reps, lambda i: op_delete_edge(g, *pairs[i]))
    left = sum(g.V(a).out('e').count().next() for a, _ in pairs)
    print(f"  {'':<14} out-neighbours left over the {reps} sources: {left} (expected 0)")
    if left:
        failures.append(f"delete edge left {left} edges")


def once_each(g, tag, label):
    """Each operation once (another serializer)."""
    print(f"{label}: each operation once", flush=True)
    base = tag * 100000 + 90000
    steps = []
    try:
        steps.append(('no-op', op_noop(g)))
        a = op_add_vertex(g, base)
        b = op_add_vertex(g, base + 1)
        steps.append(('add vertex', (a, b)))
        steps.append(('add edge', op_add_edge(g, a, b)))
        steps.append(('neighbours', op_neighbours(g, a)))
        steps.append(('update prop', op_update(g, a)))
        steps.append(('find by prop', op_find(g, base + 1)))
        steps.append(('delete edge', op_delete_edge(g, a, b)))
        steps.append(('neighbours', op_neighbours(g, a)))
    except Exception as e:  # noqa: BLE001
        failures.append(f"{label} after {steps[-1][0] if steps else 'start'}: {e!r}")
        steps.append(('FAILED', str(e)[:300]))
    for name, r in steps:
        print(f"  {name:<14} {r!r}")


def try_forms(g, tag):
    print("delete-edge forms (each once on a fresh edge a->b, plus a second a->c edge):")
    base = tag * 100000 + 95000
    for k, (name, fn) in enumerate(DELETE_FORMS.items()):
        try:
            a = op_add_vertex(g, base + 3 * k)
            b = op_add_vertex(g, base + 3 * k + 1)
            c = op_add_vertex(g, base + 3 * k + 2)
            op_add_edge(g, a, b)
            op_add_edge(g, a, c)
            r = fn(g, a, b)
            left = sorted(op_neighbours(g, a))
            verdict = 'deletes exactly a->b' if left == [c] else f'WRONG: neighbours now {left}'
            print(f"  {name:<70} -> {r!r}; {verdict}")
        except Exception as e:  # noqa: BLE001
            print(f"  {name:<70} -> ERROR {str(e)[:200]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('url')
    ap.add_argument('--reps', type=int, default=200)
    ap.add_argument('--forms', action='store_true', help='also try the delete-edge forms')
    args = ap.parse_args()
    # vid = tag * 100000 + i must stay an Int32: gremlinpython's GraphBinary
    # writer sends a Python int as Int32 and fails beyond 2**31-1 (wrap it
    # in gremlin_python.statics.long for an Int64).
    tag = int(time.time()) % 21000

    conn = DriverRemoteConnection(args.url, 'g')
    try:
        g = traversal().with_remote(conn)
        run(g, args.reps, tag, f"{args.url} GraphBinary 1.0")
        if args.forms:
            try_forms(g, tag)
    finally:
        conn.close()

    conn = DriverRemoteConnection(args.url, 'g',
                                  message_serializer=serializer.GraphSONSerializersV3d0())
    try:
        once_each(traversal().with_remote(conn), tag, f"{args.url} GraphSON 3.0")
    finally:
        conn.close()

    if failures:
        print("FAILURES:\n  " + "\n  ".join(failures))
        sys.exit(1)
    print("all operations OK")


if __name__ == '__main__':
    main()
