"""read_edgelist: the edge-list grammar (shared with `stratagraph load`), gzip, weights,
malformed lines."""

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


def test_weights_per_line_forced_and_ignored(tmp_path):
    path = write(tmp_path, "1 2 0.5\n2 3 4\n")
    s = sg.read_edgelist(path).snapshot()
    assert (s.weight(1, 2), s.weight(2, 3)) == (0.5, 4.0)
    assert sg.read_edgelist(path, weighted=False).snapshot().weight(1, 2) == 1.0
    with pytest.raises(sg.InvalidInput, match=r"u.txt:1: expected a weight"):
        sg.read_edgelist(write(tmp_path, "1 2\n", name="u.txt"), weighted=True)


def test_a_weight_after_unweighted_lines_is_kept(tmp_path):
    # The case: an unweighted first line once made every later
    # weight silently 1.0.
    path = write(tmp_path, "1 2\n3 4 0.5\n5 6 2 1190000000\n7 8\n")
    s = sg.read_edgelist(path).snapshot()
    assert [s.weight(a, b) for a, b in [(1, 2), (3, 4), (5, 6), (7, 8)]] == [1.0, 0.5, 2.0, 1.0]


def test_comments_anywhere_tabs_and_spaces_mixed(tmp_path):
    text = "% KONECT header\n# SNAP header\n1 \t2 # trailing\n3\t 4 % also\n"
    s = sg.read_edgelist(write(tmp_path, text, name="c.txt")).snapshot()
    assert (s.num_edges, s.has_edge(1, 2), s.has_edge(3, 4)) == (2, True, True)


def test_custom_comment_markers(tmp_path):
    s = sg.read_edgelist(write(tmp_path, "// header\n1 2 // x\n", name="c.txt"), comments="//")
    assert s.snapshot().num_edges == 1
    path = write(tmp_path, "# not a comment now\n", name="d.txt")
    for none in (None, "", ()):
        with pytest.raises(sg.InvalidInput, match="d.txt:1:"):
            sg.read_edgelist(path, comments=none)


@pytest.mark.parametrize(
    "text, line, what",
    [
        ("1 2\n3\n", 2, "expected a source and a destination id, found one field"),
        ("# c\n1 2\n1 x\n", 3, "the destination id \"x\" is not an integer"),
        ("1 2\n-1 2\n", 2, "the vertex id \"-1\" is not an integer"),
        ("1 2 1.0\n2 3 nan\n", 2, "the weight \"nan\" is not a finite number"),
        ("1 2 1.0\n2 3 -inf\n", 2, "the weight \"-inf\" is not a finite number"),
    ],
)
def test_malformed_lines_name_the_file_and_line(tmp_path, text, line, what):
    path = write(tmp_path, text)
    with pytest.raises(sg.InvalidInput, match=f"g.txt:{line}: {what}"):
        sg.read_edgelist(path)


def test_line_numbers_stay_right_across_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(edgelist, "BATCH_EDGES", 7)
    lines = [f"{i} {i + 1}" for i in range(50)] + ["oops"] + ["1 2"]
    path = write(tmp_path, "\n".join(lines))
    with pytest.raises(sg.InvalidInput, match="g.txt:51:"):
        sg.read_edgelist(path)
    ok = write(tmp_path, "\n".join(lines[:50]), name="ok.txt", compress=True)
    assert sg.read_edgelist(ok).snapshot().num_edges == 50


def test_a_truncated_gzip_file_raises_invalid_input_not_eoferror(tmp_path):
    data = gzip.compress("".join(f"{i} {i * 7 % 1000}\n" for i in range(20_000)).encode())
    path = tmp_path / "cut.txt.gz"
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(sg.InvalidInput, match=r"cut.txt.gz:\d+: the gzip stream ends early"):
        sg.read_edgelist(path)


def test_a_self_loop_the_graph_forbids_names_its_line(tmp_path, monkeypatch):
    path = write(tmp_path, "1 2\n2 3\n3 3\n")

    class NoLoops:
        @staticmethod
        def in_memory(**kw):
            return sg.Graph.in_memory(allow_self_loops=False, **kw)

    monkeypatch.setattr(edgelist, "Graph", NoLoops)
    with pytest.raises(sg.InvalidInput, match=r"g.txt:3: insert_edge: self-loop on vertex 3"):
        sg.read_edgelist(path)


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
    with pytest.raises(TypeError, match="comments"):
        sg.read_edgelist(path, comments=[b"#"])
    with pytest.raises(TypeError, match="weighted"):
        sg.read_edgelist(path, weighted="yes")
    with pytest.raises(TypeError, match="progress"):
        sg.read_edgelist(path, progress=1)
    with pytest.raises(FileNotFoundError):
        sg.read_edgelist(tmp_path / "missing.txt")
    assert np.array_equal(sg.read_edgelist(str(path)).snapshot().vertices(), [1, 2])
