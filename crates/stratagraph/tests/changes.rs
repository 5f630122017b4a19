//! `Graph::changes`: every write after a timestamp, read back from the
//! log and its archive, through flushes and reopening; and a clear error
//! where they are no longer kept. Expected changes are the writes each
//! test makes, listed by hand.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use stratagraph::{ChangeOp, Error, Graph, Options, Value};

fn opts() -> Options {
    Options {
        sync: stratagraph::SyncPolicy::Never,
        ..Options::default()
    }
}

fn ops(g: &Graph, since: u64) -> Vec<(u64, ChangeOp)> {
    g.changes(since)
        .unwrap()
        .changes
        .into_iter()
        .map(|c| (c.ts, c.op))
        .collect()
}

#[test]
fn every_kind_of_write_comes_back_in_commit_order_through_flushes_and_reopening() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path(), opts()).unwrap();
    let t1 = g.insert_edge(1, 2, 0.5).unwrap();
    let mut tx = g.begin();
    tx.insert_vertex_with(7, "person", &[("name", Value::String("ann".into()))])
        .unwrap();
    let e = tx
        .add_edge(7, 1, "knows", &[("since", Value::Int32(2020))])
        .unwrap();
    let t2 = tx.commit().unwrap();
    g.flush().unwrap();
    let t3 = g.insert_edges(&[(2, 3, 1.0), (3, 1, 2.0)]).unwrap();
    let t4 = g.delete_edge(1, 2).unwrap();
    let mut tx = g.begin();
    tx.remove_property(7, "name").unwrap();
    tx.remove_edge(e).unwrap();
    let t5 = tx.commit().unwrap();
    g.flush().unwrap();
    let t6 = g.delete_vertex(3).unwrap();
    assert!(g.create_index("person", "name").unwrap());
    let s = |x: &str| x.to_string();
    let expected = vec![
        (
            t1,
            ChangeOp::PutEdge {
                src: 1,
                dst: 2,
                weight: 0.5,
            },
        ),
        (
            t2,
            ChangeOp::AddVertex {
                vertex: 7,
                label: Some(s("person")),
            },
        ),
        (
            t2,
            ChangeOp::SetProperty {
                vertex: 7,
                key: s("name"),
                value: Value::String(s("ann")),
            },
        ),
        (
            t2,
            ChangeOp::AddEdge {
                id: e,
                src: 7,
                dst: 1,
                label: s("knows"),
            },
        ),
        (
            t2,
            ChangeOp::SetEdgeProperty {
                id: e,
                key: s("since"),
                value: Value::Int32(2020),
            },
        ),
        (
            t3,
            ChangeOp::PutEdge {
                src: 2,
                dst: 3,
                weight: 1.0,
            },
        ),
        (
            t3,
            ChangeOp::PutEdge {
                src: 3,
                dst: 1,
                weight: 2.0,
            },
        ),
        (t4, ChangeOp::DeleteEdge { src: 1, dst: 2 }),
        (
            t5,
            ChangeOp::RemoveProperty {
                vertex: 7,
                key: s("name"),
            },
        ),
        (t5, ChangeOp::RemoveEdge { id: e }),
        (t6, ChangeOp::DeleteVertex { vertex: 3 }),
    ];
    let got = ops(&g, 0);
    // Vertices created implicitly by single-edge commits come as AddVertex
    // writes of those commits; compare the rest.
    let explicit: Vec<_> = got
        .iter()
        .filter(|(_, op)| !matches!(op, ChangeOp::AddVertex { label: None, .. }))
        .cloned()
        .collect();
    let without_index: Vec<_> = explicit
        .iter()
        .filter(|(_, op)| !matches!(op, ChangeOp::CreateIndex { .. }))
        .cloned()
        .collect();
    assert_eq!(without_index, expected);
    assert!(explicit
        .iter()
        .any(|(_, op)| matches!(op, ChangeOp::CreateIndex { .. })));
    // Since a timestamp: only what came after it.
    let later = ops(&g, t4);
    assert_eq!(later.first().map(|c| c.0), Some(t5));
    assert!(later.iter().all(|(ts, _)| *ts > t4));
    // The flushes moved segments into the archive; all of it survives a reopen.
    let archived = std::fs::read_dir(dir.path())
        .unwrap()
        .filter(|e| {
            let e = e.as_ref().unwrap();
            e.file_name().to_string_lossy().starts_with("changes-")
        })
        .count();
    assert!(archived >= 1);
    g.close().unwrap();
    drop(g);
    let report = stratagraph::check(dir.path()).unwrap();
    assert!(report.orphans.is_empty(), "{:?}", report.orphans);
    let g = Graph::open(dir.path(), opts()).unwrap();
    assert_eq!(ops(&g, 0), got);
    let c = g.changes(0).unwrap();
    assert!(c.until >= t6);
    assert_eq!(g.changes(c.until).unwrap().changes, vec![]);
}

#[test]
fn changes_no_longer_kept_are_an_error_naming_where_they_start() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(
        dir.path(),
        Options {
            change_log_bytes: 0,
            ..opts()
        },
    )
    .unwrap();
    g.insert_edge(1, 2, 1.0).unwrap();
    let t = g.insert_edge(2, 3, 1.0).unwrap();
    g.flush().unwrap();
    let after = g.insert_edge(3, 4, 1.0).unwrap();
    match g.changes(0) {
        Err(Error::ChangesUnavailable { since: 0, why }) => {
            assert!(why.contains(&t.to_string()), "{why}");
        }
        other => panic!("expected ChangesUnavailable, got {other:?}"),
    }
    let got = ops(&g, t);
    assert!(got.iter().all(|(ts, _)| *ts == after), "{got:?}");
    assert!(got.iter().any(|(_, op)| *op
        == ChangeOp::PutEdge {
            src: 3,
            dst: 4,
            weight: 1.0
        }));
}

#[test]
fn the_archive_keeps_its_budget_and_the_oldest_go_first() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(
        dir.path(),
        Options {
            change_log_bytes: 1,
            ..opts()
        },
    )
    .unwrap();
    let mut stamps = Vec::new();
    for i in 0..4u64 {
        stamps.push(g.insert_edge(i, i + 1, 1.0).unwrap());
        g.flush().unwrap();
    }
    // A one-byte budget keeps at most the newest archived segment.
    let kept: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("changes-"))
        .collect();
    assert!(kept.len() <= 1, "{kept:?}");
    assert!(matches!(
        g.changes(0),
        Err(Error::ChangesUnavailable { .. })
    ));
    // From the newest flush on, everything is there.
    let last = *stamps.last().unwrap();
    assert_eq!(g.changes(last).unwrap().changes, vec![]);
}

#[test]
fn an_in_memory_store_keeps_no_changes() {
    let g = Graph::in_memory(Options::default());
    g.insert_edge(1, 2, 1.0).unwrap();
    match g.changes(0) {
        Err(Error::ChangesUnavailable { why, .. }) => assert!(why.contains("in-memory"), "{why}"),
        other => panic!("expected ChangesUnavailable, got {other:?}"),
    }
}

#[test]
fn a_read_only_open_reads_the_changes_too() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path(), opts()).unwrap();
    let t = g.insert_edge(5, 6, 2.5).unwrap();
    g.flush().unwrap();
    g.insert_edge(6, 7, 1.0).unwrap();
    let all = ops(&g, 0);
    g.close().unwrap();
    drop(g);
    let ro = Graph::open(
        dir.path(),
        Options {
            read_only: true,
            ..opts()
        },
    )
    .unwrap();
    assert_eq!(ops(&ro, 0), all);
    assert!(all.contains(&(
        t,
        ChangeOp::PutEdge {
            src: 5,
            dst: 6,
            weight: 2.5
        }
    )));
}
