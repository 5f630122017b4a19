#!/usr/bin/env python3
"""Random 4 KiB reads a second from one file at queue depths 1, 4, 16 and 64,
bypassing the page cache (O_DIRECT), four seconds each:

    python3 bench/iops_probe.py FILE

What a look-up that misses the page cache costs on the machine, for reading
the capped runs' figures (bench/NOTES.md). FILE should be larger than the
disk's own cache; a W1 edge file or store file will do.
"""

import mmap
import os
import random
import sys
import threading
import time


def worker(path: str, size: int, seed: int, seconds: float, out: list) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 4096)  # page-aligned, as O_DIRECT needs
    r = random.Random(seed)
    count = 0
    end = time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            os.preadv(fd, [buf], r.randrange(size // 4096) * 4096)
            count += 1
    finally:
        os.close(fd)
    out.append(count)


def main() -> int:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    path = sys.argv[1]
    size = os.path.getsize(path)
    if size < 1 << 20:
        sys.exit(f"iops_probe: {path} is {size} bytes; give a file of at least 1 MiB")
    seconds = 4.0
    for depth in (1, 4, 16, 64):
        out: list = []
        threads = [threading.Thread(target=worker, args=(path, size, depth * 100 + i, seconds, out))
                   for i in range(depth)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        print(f"queue depth {depth}: {sum(out) / seconds:.0f} reads/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
