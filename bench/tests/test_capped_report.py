"""bench/capped_report.py: the capped W1 table from result files written by
hand here, with a phase the cap killed, a peer's `n/a`, a read stopped at
its budget, and a load the cap stopped and the runner did again uncapped;
the section replaces only its own markers in the report."""

import pathlib
import subprocess
import sys

REPORT = pathlib.Path(__file__).resolve().parents[1] / "capped_report.py"
HEAD = "system\tversion\tgraph\top\tthreads\tvalue\tunit\tchecksum\n"
MEMCAP_HEAD = "label\tlimit_bytes\texit\tkilled_by_cap\twall_s\tpeak_bytes\tpeak_rss_bytes\tfailcnt\tcommand\n"


def rows(path, system, *lines):
    text = "# a header line\n" + HEAD
    for op, value, unit, check in lines:
        text += f"{system}\t1\tk9\t{op}\t1\t{value}\t{unit}\t{check}\n"
    path.write_text(text)


def memcap(path, *lines):
    text = MEMCAP_HEAD
    for label, exit_code, killed, wall in lines:
        text += f"{label}\t1000\t{exit_code}\t{killed}\t{wall}\t1048576\t1\t0\tcmd\n"
    path.write_text(text)


def test_the_table_says_what_ran_what_was_killed_and_the_ratios(tmp_path):
    sg = tmp_path / "sg"
    rows(pathlib.Path(f"{sg}-load.tsv"), "stratagraph-disk",
         ("load_80", "10", "s", "edges=1"), ("load_80_closed", "12", "s", "edges=1"))
    rows(pathlib.Path(f"{sg}-insert_single.tsv"), "stratagraph-disk",
         ("insert_single", "300000", "edges/s", "edges=2"), ("disk_bytes", "4000000000", "bytes", ""))
    rows(pathlib.Path(f"{sg}-reads-uncapped.tsv"), "stratagraph-disk",
         ("bfs", "0.5", "s", "bfs_reached=3"), ("pr", "2", "s", "top=1"))
    # The capped reads were killed: no reads file, a memcap line.
    rows(pathlib.Path(f"{sg}-delete_mixed.tsv"), "stratagraph-disk",
         ("delete_mixed", "50000", "ops/s", "edges=3"))
    memcap(pathlib.Path(f"{sg}-memcap.tsv"), ("load", 0, 0, 13.0), ("insert_single", 0, 0, 20.0),
           ("reads", 137, 1, 4.2), ("delete_mixed", 0, 0, 9.0))
    peers = tmp_path / "peers"
    rows(pathlib.Path(f"{peers}-rocksdict-load.tsv"), "rocksdict-disk",
         ("load_80", "20", "s", "edges=1"), ("load_80_closed", "24", "s", "edges=1"))
    rows(pathlib.Path(f"{peers}-rocksdict-insert_single.tsv"), "rocksdict-disk",
         ("insert_single", "100000", "edges/s", "edges=2"))
    rows(pathlib.Path(f"{peers}-rocksdict-reads-bfs.tsv"), "rocksdict-disk",
         ("bfs", "n/a", "-", "n/a: no kernels here"))
    rows(pathlib.Path(f"{peers}-rocksdict-delete_mixed.tsv"), "rocksdict-disk",
         ("delete_mixed", "200000", "ops/s", "edges=3"))
    rows(pathlib.Path(f"{peers}-kuzu-load-uncapped.tsv"), "kuzu-disk",
         ("load_80", "30", "s", "edges=1"))
    rows(pathlib.Path(f"{peers}-kuzu-insert_single.tsv"), "kuzu-disk",
         ("insert_single", "150", "edges/s", "stopped at the budget: 15 of 99 in 0.1s;edges=1"))
    memcap(pathlib.Path(f"{peers}-memcap.tsv"), ("rocksdict-load", 0, 0, 20.5),
           ("rocksdict-insert_single", 0, 0, 30), ("rocksdict-reads-bfs", 0, 0, 1),
           ("rocksdict-delete_mixed", 0, 0, 5), ("kuzu-load", 137, 1, 2.5),
           ("kuzu-insert_single", 137, 1, 301))
    out = tmp_path / "BENCH.md"
    out.write_text("# W1\n\nkept text\n")
    subprocess.run([sys.executable, str(REPORT), "--scale", "9", "--cap", "1G", "--stratagraph", str(sg),
                    "--peers", str(peers), "--out", str(out)], check=True, capture_output=True)
    text = out.read_text()
    assert text.startswith("# W1\n\nkept text\n")
    table = {}
    for line in text.splitlines():
        if line.startswith("| "):  # the main table's rows come first
            table.setdefault(line.split(" | ")[0].lstrip("| "), line.split(" | "))
    # stratagraph 10 s against RocksDB's 20 s: 2x better; Kuzu's load was
    # killed, then ran uncapped, and gets no ratio.
    assert table["load 80%"][1:] == ["10 s", "20 s", "killed by the cap at 2.5 s; 30 s uncapped", "**2.00×**",
                                     " |"]
    assert table["insert_single"][1] == "300k edges/s"
    assert table["insert_single"][4] == "**3.00×**"
    assert table["insert_single"][3] == "150 edges/s [1], then killed by the cap at 301 s"
    assert table["insert_single"][5] == "**2000.00×** |"
    assert table["delete_mixed"][4] == "0.25×"
    assert table["BFS"][1] == "killed by the cap at 4.2 s"
    assert table["BFS"][2] == "n/a [2]"
    assert "[1] stopped at the budget: 15 of 99 in 0.1s." in text
    assert "[2] no kernels here." in text
    assert "the cap is 27% of it" in text  # 1 GiB of a 4 GB store
    # Kernels: capped killed, uncapped 0.5 s, no ratio.
    assert "| BFS | killed by the cap at 4.2 s | 500 ms |  |" in text
    # Run again: the section is replaced, not added twice.
    subprocess.run([sys.executable, str(REPORT), "--scale", "9", "--cap", "1G", "--stratagraph", str(sg),
                    "--peers", str(peers), "--out", str(out)], check=True, capture_output=True)
    assert out.read_text() == text
