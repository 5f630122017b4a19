"""bench/memcap.py: a command under the cap runs; one over it is killed by
the cap and reported so; the cgroup is gone afterwards."""

import os
import pathlib
import subprocess
import sys
import time

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


def cached_bytes(path):
    done = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", str(path)],
                          capture_output=True, text=True)
    return int(done.stdout.strip()) if done.returncode == 0 and done.stdout.strip() else None


def test_cold_evicts_the_files_first(tmp_path):
    store = tmp_path / "store"
    store.mkdir()
    data = store / "level.seg"
    data.write_bytes(os.urandom(8 << 20))
    data.read_bytes()
    before = cached_bytes(data)
    if before is None or before < 4 << 20:
        pytest.skip("fincore cannot see this file's page cache here (tmpfs, or no fincore)")
    probe = f"import subprocess; print(subprocess.run(['fincore', '--bytes', '--noheadings', '--output', 'RES', " \
            f"{str(data)!r}], capture_output=True, text=True).stdout.strip())"
    done = subprocess.run(
        [sys.executable, str(MEMCAP), "--limit", "128M", "--cold", str(store), "--", sys.executable, "-c", probe],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.splitlines()[0]) < 1 << 20, done.stdout  # cold when the command started
    missing = subprocess.run([sys.executable, str(MEMCAP), "--limit", "128M", "--cold", str(tmp_path / "nope"),
                              "--", "true"], capture_output=True, text=True)
    assert missing.returncode != 0 and "no such file or directory" in missing.stderr


def test_sigterm_stops_the_command_and_removes_the_cgroup():
    before = {d for d in os.listdir(ROOT) if d.startswith("stratagraph-memcap-")}
    p = subprocess.Popen([sys.executable, str(MEMCAP), "--limit", "64M", "--", "sleep", "67.25"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 10
    while {d for d in os.listdir(ROOT) if d.startswith("stratagraph-memcap-")} == before:
        assert time.monotonic() < deadline, "the cgroup never appeared"
        time.sleep(0.05)
    time.sleep(0.2)
    p.terminate()
    assert p.wait(timeout=10) == 130
    assert {d for d in os.listdir(ROOT) if d.startswith("stratagraph-memcap-")} == before
    sleeping = subprocess.run(["pgrep", "-f", "^sleep 67.25$"], capture_output=True, text=True)
    assert sleeping.stdout.strip() == "", "the command outlived memcap"


def test_sigterm_to_both_memcap_and_the_command_leaves_nothing():
    # `pkill -f` on the command's name matches memcap's own command line too.
    before = {d for d in os.listdir(ROOT) if d.startswith("stratagraph-memcap-")}
    p = subprocess.Popen([sys.executable, str(MEMCAP), "--limit", "64M", "--", "sleep", "68.75"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 10
    while subprocess.run(["pgrep", "-f", "^sleep 68.75$"], capture_output=True).returncode != 0:
        assert time.monotonic() < deadline, "the command never started"
        time.sleep(0.05)
    subprocess.run(["pkill", "-f", "sleep 68.75"])
    _, err = p.communicate(timeout=10)
    assert "Traceback" not in err, err
    assert {d for d in os.listdir(ROOT) if d.startswith("stratagraph-memcap-")} == before
