#!/usr/bin/env python3
"""Runs one command inside a memory cgroup of a given size and reports what
it used.

    bench/memcap.py --limit 256M [--label NAME] [--tsv FILE] [--cold PATH]... -- CMD [ARG...]

The cap is cgroup v1's `memory.limit_in_bytes` (and `memory.memsw` where
the kernel has it, so the command cannot spill into swap instead). Page
cache the command causes is charged to it, as LSMGraph's 16 GB cgroup
counts it: a store read through mmap or read(2) must fit its cache in the
cap too.

`--cold PATH` (a file or a directory, repeatable) evicts the files' clean
pages from the page cache before the command starts
(`posix_fadvise(DONTNEED)`), so that a run reads its store from disk, not
from a cache an earlier uncapped run left behind outside any cgroup. Pages
still dirty are written first.

Prints one line (and appends it to --tsv if given):

    label  limit_bytes  exit  killed_by_cap  wall_s  peak_bytes  peak_rss_bytes  failcnt  command

- `peak_bytes`: the cgroup's `memory.max_usage_in_bytes` (anonymous memory
  plus page cache, what the cap limits);
- `peak_rss_bytes`: the command's own peak resident set (`ru_maxrss` of
  the child, its process tree's largest);
- `killed_by_cap`: the kernel's OOM killer acted inside this cgroup
  (`memory.oom_control`'s `oom_kill` count, or SIGKILL while at the cap).

Exits with the command's status (128 + signal if it was killed). The
cgroup is removed afterwards, also when interrupted. Needs root and the
cgroup v1 memory controller at /sys/fs/cgroup/memory.
"""

import argparse
import os
import resource
import signal
import subprocess
import sys
import time

ROOT = "/sys/fs/cgroup/memory"
UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def parse_size(text: str) -> int:
    t = text.strip().upper().removesuffix("IB").removesuffix("B")
    unit = t[-1] if t and t[-1] in UNITS else ""
    number = t[: len(t) - len(unit)]
    try:
        value = float(number) * UNITS[unit]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a size (e.g. 256M, 1.5G, 4096)") from None
    if value < 1 << 20:
        raise argparse.ArgumentTypeError(f"{text!r}: a cap below 1 MiB leaves nothing to run")
    return int(value)


def read(cg: str, name: str) -> str:
    with open(os.path.join(cg, name)) as f:
        return f.read()


def write(cg: str, name: str, value) -> None:
    with open(os.path.join(cg, name), "w") as f:
        f.write(str(value))


def oom_kills(cg: str) -> int:
    for line in read(cg, "memory.oom_control").splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill":
            return int(value)
    return 0


def make_cgroup(label: str, limit: int) -> str:
    if not os.path.isdir(ROOT):
        sys.exit(f"memcap: no cgroup v1 memory controller at {ROOT}")
    cg = os.path.join(ROOT, f"stratagraph-memcap-{os.getpid()}")
    try:
        os.mkdir(cg)
    except PermissionError:
        sys.exit(f"memcap: cannot create {cg}: run as root")
    write(cg, "memory.limit_in_bytes", limit)
    if os.path.exists(os.path.join(cg, "memory.memsw.limit_in_bytes")):
        # Memory plus swap at the same cap: no swapping around it.
        write(cg, "memory.memsw.limit_in_bytes", limit)
    return cg


def remove_cgroup(cg: str) -> None:
    for _ in range(100):
        try:
            os.rmdir(cg)
            return
        except OSError:
            # Tasks still leaving, or cache still charged: drop it and retry.
            try:
                write(cg, "memory.force_empty", 0)
            except OSError:
                pass
            time.sleep(0.05)
    print(f"memcap: could not remove {cg}", file=sys.stderr)


def evict(paths: list[str]) -> int:
    """Drops the page cache of every file under `paths`; returns how many
    files it went through."""
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += [os.path.join(d, f) for d, _, fs in os.walk(p) for f in fs]
        elif os.path.exists(p):
            files.append(p)
        else:
            sys.exit(f"memcap: --cold {p}: no such file or directory")
    for path in files:
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue  # a lock file or socket we cannot open holds no store data
        try:
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return len(files)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", required=True, type=parse_size, help="the cap, e.g. 256M or 2G")
    ap.add_argument("--label", default="", help="a name for the result line")
    ap.add_argument("--tsv", help="append the result line to this file")
    ap.add_argument("--cold", action="append", default=[], metavar="PATH",
                    help="evict this file's or directory's pages from the page cache first")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD [ARG...]")
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        ap.error("no command given (put it after --)")

    evict(a.cold)
    cg = make_cgroup(a.label, a.limit)
    procs = os.path.join(cg, "cgroup.procs")

    def enter():
        # In the child, before exec: join the cgroup, and lead a process
        # group so an interrupt reaches the whole tree.
        with open(procs, "w") as f:
            f.write(str(os.getpid()))
        os.setpgid(0, 0)

    def stop(signum, frame):
        raise KeyboardInterrupt

    # A `timeout` or `kill` ends the command and removes the cgroup as ^C does.
    signal.signal(signal.SIGTERM, stop)
    start = time.monotonic()
    child = None
    try:
        child = subprocess.Popen(cmd, preexec_fn=enter)
        status = child.wait()
    except KeyboardInterrupt:
        if child is not None:
            try:
                os.killpg(child.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass  # the command's group had already ended (a signal reached it too)
            child.wait()
        remove_cgroup(cg)
        return 130
    except FileNotFoundError as e:
        remove_cgroup(cg)
        sys.exit(f"memcap: {e}")
    wall = time.monotonic() - start
    peak = int(read(cg, "memory.max_usage_in_bytes"))
    failcnt = int(read(cg, "memory.failcnt"))
    killed = oom_kills(cg) > 0 or (status == -signal.SIGKILL and peak >= a.limit * 0.95)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    remove_cgroup(cg)
    code = status if status >= 0 else 128 - status
    line = "\t".join(
        str(x)
        for x in (a.label or os.path.basename(cmd[0]), a.limit, code, int(killed), f"{wall:.3f}", peak, rss,
                  failcnt, " ".join(cmd))
    )
    print(line)
    if a.tsv:
        new = not os.path.exists(a.tsv)
        with open(a.tsv, "a") as f:
            if new:
                f.write("label\tlimit_bytes\texit\tkilled_by_cap\twall_s\tpeak_bytes\tpeak_rss_bytes\tfailcnt\tcommand\n")
            f.write(line + "\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
