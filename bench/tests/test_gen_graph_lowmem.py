"""bench/gen_graph_lowmem.py writes the same files as the shared W1
generator (../shared/bench/gen_graph.py), byte for byte: both run at scale
16 into fresh directories and every file is compared (the reference
checksums up to the seconds they took)."""

import pathlib
import subprocess
import sys

BENCH = pathlib.Path(__file__).resolve().parents[1]
SHARED = BENCH.parent.parent / "shared" / "bench" / "gen_graph.py"


def test_the_low_memory_generator_writes_the_shared_generators_files(tmp_path):
    theirs, mine = tmp_path / "shared", tmp_path / "lowmem"
    subprocess.run([sys.executable, str(SHARED), "--scales", "16", "--out", str(theirs)],
                   check=True, capture_output=True, timeout=300)
    done = subprocess.run(
        [sys.executable, str(BENCH / "gen_graph_lowmem.py"), "--scales", "16", "--out", str(mine),
         "--compare", str(theirs)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "every file equals" in done.stdout
    names = sorted(p.name for p in mine.iterdir())
    assert names == sorted(p.name for p in theirs.iterdir()), names
    # The comparison itself can fail: a changed byte is reported.
    ops = mine / "k16.ops.bin"
    b = bytearray(ops.read_bytes())
    b[100] ^= 1
    ops.write_bytes(bytes(b))
    compare = (
        "import sys; sys.path.insert(0, %r); import gen_graph_lowmem as g; g.compare(16, %r, %r)"
        % (str(BENCH), str(mine), str(theirs))
    )
    done = subprocess.run([sys.executable, "-c", compare], capture_output=True, text=True, timeout=60)
    assert done.returncode != 0 and "k16.ops.bin" in done.stderr, done.stderr
