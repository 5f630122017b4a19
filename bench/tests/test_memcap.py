"""bench/memcap.py: a command under the cap runs; one over it is killed by
the cap and reported so; the cgroup is gone afterwards."""

import os
import pathlib
import subprocess
import sys

import pytest

MEMCAP = pathlib.Path(__file__).resolve().parents[1] / "memcap.py"
ROOT = "/sys/fs/cgroup/memory"

pytestmark = pytest.mark.skipif(
    not (os.path.isdir(ROOT) and os.access(ROOT, os.W_OK)),
    reason="needs root and the cgroup v1 memory controller",
)


def run(limit, megabytes, tsv):
    code = f"x = bytearray({megabytes} << 20); x[::4096] = b'1' * len(x[::4096])"
    done = subprocess.run(
        [sys.executable, str(MEMCAP), "--limit", limit, "--label", f"alloc{megabytes}", "--tsv", str(tsv), "--",
         sys.executable, "-c", code],
        capture_output=True, text=True, timeout=120,
    )
    fields = done.stdout.strip().splitlines()[-1].split("\t")
    return done.returncode, fields


def test_under_and_over_the_cap(tmp_path):
    tsv = tmp_path / "caps.tsv"
    before = {d for d in os.listdir(ROOT) if d.startswith("stratagraph-memcap-")}
    code, f = run("128M", 32, tsv)
    assert code == 0 and f[2] == "0" and f[3] == "0", f
    assert 32 << 20 <= int(f[5]) <= 128 << 20, f  # the cgroup's peak
    code, f = run("64M", 256, tsv)
    assert code == 137 and f[3] == "1", f
    lines = tsv.read_text().splitlines()
    assert lines[0].startswith("label\tlimit_bytes") and len(lines) == 3
    after = {d for d in os.listdir(ROOT) if d.startswith("stratagraph-memcap-")}
    assert after == before


def test_a_bad_size_is_refused():
    done = subprocess.run([sys.executable, str(MEMCAP), "--limit", "lots", "--", "true"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "'lots' is not a size" in done.stderr
