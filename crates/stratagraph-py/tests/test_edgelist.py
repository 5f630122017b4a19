"""read_edgelist: SNAP formats, gzip, weights, malformed lines."""

import gzip

import numpy as np
import pytest

import stratagraph as sg
import stratagraph._edgelist as edgelist

from conftest import load_real


def write(tmp_path, text, name="g.txt", compress=False):
    path = tmp_path / name
    data = text.encode()
    path.write_bytes(gzip.compress(data) if compress else data)
    return path


def test_snap_header_tabs_crlf_and_no_final_newline(tmp_path):
    text = "# Directed graph\r\n# Nodes: 3 Edges: 3\r\n1\t2\r\n2\t3\r\n\r\n3\t1"
    s = sg.read_edgelist(write(tmp_path, text)).snapshot()
    assert (s.num_vertices, s.num_edges) == (3, 3) and s.has_edge(3, 1)


def test_gzip_is_detected_from_the_content(tmp_path):
    path = write(tmp_path, "1 2\n2 3\n", name="edges.bin", compress=True)
    assert sg.read_edgelist(path, directed=False).snapshot().num_edges == 2


def test_weights_detected_forced_and_ignored(tmp_path):
    path = write(tmp_path, "1 2 0.5\n2 3 4\n")
    s = sg.read_edgelist(path).snapshot()
    assert (s.weight(1, 2), s.weight(2, 3)) == (0.5, 4.0)
    assert sg.read_edgelist(path, weighted=False).snapshot().weight(1, 2) == 1.0
    with pytest.raises(sg.InvalidInput, match=r"line 1: expected a weight"):
        sg.read_edgelist(write(tmp_path, "1 2\n", name="u.txt"), weighted=True)


def test_comments_inside_lines_and_custom_marker(tmp_path):
    s = sg.read_edgelist(write(tmp_path, "% header\n1 2 % trailing\n", name="c.txt"), comments="%")
    assert s.snapshot().num_edges == 1
    with pytest.raises(sg.InvalidInput, match="line 1"):
        sg.read_edgelist(write(tmp_path, "# not a comment now\n", name="d.txt"), comments=None)


@pytest.mark.parametrize(
    "text, line, what",
    [
        ("1 2\n3\n", 2, "found one column"),
        ("# c\n1 2\n1 x\n", 3, "vertex ids must be integers"),
        ("1 2\n-1 2\n", 2, "vertex ids must be integers"),
        ("1 2 1.0\n2 3 nan\n", 2, "finite number"),
        ("1 2 1.0\n2 3\n", 2, "expected a weight"),
    ],
)
def test_malformed_lines_name_the_file_and_line(tmp_path, text, line, what):
    path = write(tmp_path, text)
    with pytest.raises(sg.InvalidInput, match=f"g.txt: line {line}: .*{what}"):
        sg.read_edgelist(path)


def test_line_numbers_stay_right_across_chunks(tmp_path, monkeypatch):
    monkeypatch.setattr(edgelist, "CHUNK_BYTES", 7)
    lines = [f"{i} {i + 1}" for i in range(50)] + ["oops"] + ["1 2"]
    path = write(tmp_path, "\n".join(lines))
    with pytest.raises(sg.InvalidInput, match="line 51:"):
        sg.read_edgelist(path)
    ok = write(tmp_path, "\n".join(lines[:50]), name="ok.txt", compress=True)
    assert sg.read_edgelist(ok).snapshot().num_edges == 50


def test_progress_bar_can_be_forced(tmp_path, capsys):
    path = write(tmp_path, "1 2\n" * 100)
    sg.read_edgelist(path, progress=True)
    assert "g.txt" in capsys.readouterr().err


def test_real_graph_loads_like_networkx():
    G, g = load_real("wiki-Vote", True)
    s = g.snapshot()
    assert (s.num_vertices, s.num_edges) == (G.number_of_nodes(), G.number_of_edges())
    src, dst = s.edges()
    assert set(zip(src.tolist(), dst.tolist())) == set(G.edges)


def test_ca_hepph_lists_both_directions_of_each_undirected_edge():
    G, g = load_real("ca-HepPh", False)
    s = g.snapshot()
    assert (s.num_vertices, s.num_edges) == (12_008, 118_521)  # as SNAP counts them
    assert s.num_edges == G.number_of_edges()


def test_argument_types_are_checked(tmp_path):
    path = write(tmp_path, "1 2\n")
    with pytest.raises(TypeError, match="comments"):
        sg.read_edgelist(path, comments=5)
    with pytest.raises(TypeError, match="weighted"):
        sg.read_edgelist(path, weighted="yes")
    with pytest.raises(TypeError, match="progress"):
        sg.read_edgelist(path, progress=1)
    with pytest.raises(FileNotFoundError):
        sg.read_edgelist(tmp_path / "missing.txt")
    assert np.array_equal(sg.read_edgelist(str(path)).snapshot().vertices(), [1, 2])
