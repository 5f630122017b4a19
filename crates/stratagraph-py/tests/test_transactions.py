"""Transactions: commit, rollback, read-your-writes, isolation."""

import numpy as np
import pytest

import stratagraph as sg


def test_context_manager_commits_on_normal_exit():
    g = sg.Graph.in_memory()
    with g.transaction() as tx:
        tx.add_edge(1, 2)
        tx.add_edge(2, 3, weight=0.5)
        assert len(tx) > 0
    assert not tx.active
    s = g.snapshot()
    assert s.num_edges == 2 and s.weight(2, 3) == 0.5


def test_context_manager_rolls_back_and_reraises_on_exception():
    g = sg.Graph.in_memory()
    g.add_edge(1, 2)
    before = g.snapshot()
    with pytest.raises(KeyError, match="boom"):
        with g.transaction() as tx:
            tx.add_edge(2, 3)
            tx.remove_edge(1, 2)
            tx.add_vertex(7)
            raise KeyError("boom")
    after = g.snapshot()
    assert after.timestamp == before.timestamp
    assert after.has_edge(1, 2) and not after.has_edge(2, 3) and 7 not in after
    with pytest.raises(sg.Closed):
        tx.add_edge(4, 5)


def test_engine_error_inside_block_rolls_back_everything():
    g = sg.Graph.in_memory()
    with pytest.raises(sg.NotFound):
        with g.transaction() as tx:
            tx.add_edge(1, 2)
            tx.remove_edge(3, 4)  # does not exist
    assert g.num_edges == 0


def test_explicit_commit_and_rollback():
    g = sg.Graph.in_memory()
    tx = g.transaction()
    tx.add_edge(1, 2)
    tx.rollback()
    assert g.num_edges == 0
    with pytest.raises(sg.Closed, match="already been committed or rolled back"):
        tx.rollback()

    tx = g.transaction()
    tx.add_edge(1, 2)
    ts = tx.commit()
    assert g.snapshot().timestamp == ts and g.num_edges == 1
    with pytest.raises(sg.Closed):
        tx.commit()

    # Finishing explicitly inside a with block leaves nothing for __exit__.
    with g.transaction() as tx:
        tx.add_edge(5, 6)
        tx.rollback()
    assert not g.snapshot().has_edge(5, 6)


def test_read_your_writes_and_isolation():
    g = sg.Graph.in_memory()
    g.add_edges([1, 1], [2, 3])
    tx = g.transaction()
    tx.add_edge(1, 4, weight=2.0)
    tx.remove_edge(1, 2)
    assert tx.has_edge(1, 4) and tx.weight(1, 4) == 2.0
    assert not tx.has_edge(1, 2)
    assert sorted(tx.neighbors(1).tolist()) == [3, 4]
    assert tx.in_neighbors(4).tolist() == [1]
    assert tx.has_vertex(4) and not tx.has_vertex(99)
    # Nobody else sees the writes before commit.
    s = g.snapshot()
    assert s.has_edge(1, 2) and not s.has_edge(1, 4)
    tx.commit()
    assert sorted(g.snapshot().neighbors(1).tolist()) == [3, 4]
    assert s.has_edge(1, 2)  # the old snapshot is unchanged


def test_vertex_writes_in_a_transaction():
    g = sg.Graph.in_memory()
    g.add_edges([1, 2], [2, 3])
    with g.transaction() as tx:
        assert tx.add_vertex(10) is True
        assert tx.add_vertex(10) is False
        tx.remove_vertex(2)
        assert not tx.has_edge(1, 2)
        with pytest.raises(sg.InvalidInput, match="which this transaction deleted"):
            tx.add_edge(2, 5)
        with pytest.raises(sg.NotFound):
            tx.neighbors(2)
        with pytest.raises(sg.NotFound):
            tx.weight(1, 2)
    s = g.snapshot()
    assert sorted(s.vertices().tolist()) == [1, 3, 10] and s.num_edges == 0


def test_failed_call_leaves_the_transaction_usable():
    g = sg.Graph.in_memory()
    with g.transaction() as tx:
        tx.add_edge(1, 2)
        with pytest.raises(sg.InvalidInput):
            tx.add_edge(2, 3, weight=float("inf"))
        tx.add_edge(2, 3)
    assert g.num_edges == 2


def test_empty_transaction_commits_nothing():
    g = sg.Graph.in_memory()
    g.add_edge(1, 2)
    with g.transaction() as tx:
        pass
    assert not tx.active
    assert g.transaction().commit() == g.snapshot().timestamp


def test_batch_and_transaction_writers_interleave():
    g = sg.Graph.in_memory()
    g.add_edges(np.arange(100), np.arange(1, 101))
    with g.transaction() as tx:
        tx.add_edge(1000, 1001)
        g.add_edges(np.arange(200, 300), np.arange(201, 301))  # commits first
    assert g.num_edges == 201


def test_a_lost_update_raises_conflict_and_applies_nothing():
    g = sg.Graph.in_memory()
    g.add_edge(1, 2, weight=10.0)
    t1, t2 = g.transaction(), g.transaction()
    a, b = t1.weight(1, 2), t2.weight(1, 2)
    t1.add_edge(1, 2, weight=a + 1)
    t2.add_edge(1, 2, weight=b + 1)
    t2.add_edge(5, 6)
    t1.commit()
    with pytest.raises(sg.Conflict, match=r"edge 1 -> 2 was changed .* retry"):
        t2.commit()
    assert not t2.active
    assert issubclass(sg.Conflict, sg.Error)
    s = g.snapshot()
    assert s.weight(1, 2) == 11.0 and not s.has_edge(5, 6)


def test_the_retry_loop_a_user_writes_keeps_every_increment():
    import threading

    g = sg.Graph.in_memory()
    g.add_edge(1, 2, weight=0.0)
    conflicts = []

    def work():
        for _ in range(100):
            while True:
                try:
                    with g.transaction() as tx:
                        tx.add_edge(1, 2, weight=tx.weight(1, 2) + 1)
                    break
                except sg.Conflict:
                    conflicts.append(1)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert g.snapshot().weight(1, 2) == 400.0


def test_serializable_refuses_write_skew_that_snapshot_isolation_allows():
    for serializable in (False, True):
        g = sg.Graph.in_memory()
        g.add_edges(np.array([1, 3]), np.array([2, 4]), weights=np.array([1.0, 1.0]))
        t1 = g.transaction(serializable=serializable)
        t2 = g.transaction(serializable=serializable)
        for t in (t1, t2):
            assert t.weight(1, 2) + t.weight(3, 4) == 2.0
        t1.add_edge(1, 2, weight=0.0)
        t2.add_edge(3, 4, weight=0.0)
        t1.commit()
        if serializable:
            with pytest.raises(sg.Conflict):
                t2.commit()
        else:
            t2.commit()
    with pytest.raises(TypeError):
        g.transaction(True)
