"""TinkerPop's feature suite through gremlinpython against `stratagraph
serve`, scenario by scenario equal to the in-process harness.

The in-process harness (`cargo test -p stratagraph-gremlin --test
features`, run first by `scripts/test.sh`) writes each scenario's outcome
to `target/gremlin-features.txt`. Here every scenario is sent again as a
string request through TinkerPop's own Python driver, with each
serializer, and compared typed with its table (`wire_features.py`). The
same scenarios must pass: one that passes in process and fails over the
wire is a serialisation bug, and one that passes only over the wire means
the wire comparison is looser than it should be.
"""

import logging
import os
import pathlib

import pytest

import wire_features

ROOT = pathlib.Path(__file__).resolve().parents[4]
CLI = pathlib.Path(os.environ.get("STRATAGRAPH_CLI", ROOT / "target" / "release" / "stratagraph"))
OUTCOMES = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target")) / "gremlin-features.txt"


@pytest.mark.parametrize("serializer_name", ["graphbinary", "graphson"])
def test_every_scenario_has_the_in_process_outcome(serializer_name):
    if not OUTCOMES.exists():
        pytest.fail(f"{OUTCOMES} is missing: run `cargo test --release -p stratagraph-gremlin --test features` first")
    # gremlinpython logs every error response the suite provokes on purpose.
    logging.getLogger("gremlinpython").setLevel(logging.CRITICAL)
    logging.disable(logging.ERROR)
    try:
        wire = wire_features.run_suite(CLI, serializer_name)
    finally:
        logging.disable(logging.NOTSET)
    local = wire_features.in_process_outcomes(OUTCOMES)
    assert set(wire) == set(local), "the two harnesses read different scenarios"
    differ = [
        f"{key} {local[key][1]}: in process {local[key][0]}, over the wire {wire[key][0]} {wire[key][2][:300]}"
        for key in sorted(wire)
        if wire[key][0] != local[key][0]
    ]
    passed = sum(1 for v in wire.values() if v[0] == "PASS")
    print(f"{serializer_name}: {passed} of {len(wire)} scenarios pass over the wire")
    assert not differ, f"{len(differ)} scenarios differ:\n" + "\n".join(differ[:30])
    assert passed > 1000
