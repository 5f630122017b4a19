//! A store's state at an earlier timestamp, rebuilt from a checkpoint and
//! the change feed (`as_of::rebuild`), must be the state the store had
//! then: each expected state is the store's own dump taken right after
//! the commits up to that timestamp, before anything later was written.
//! And what cannot be rebuilt is a clear error.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod common;

use common::*;
use proptest::prelude::*;
use stratagraph::{Graph, Options, SyncPolicy};
use stratagraph_io::as_of::{rebuild, AsOfError};

fn opts(directed: bool) -> Options {
    Options {
        directed,
        sync: SyncPolicy::Never,
        ..Options::default()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    #[test]
    fn the_state_at_any_timestamp_after_a_checkpoint_comes_back(
        chunks in proptest::collection::vec(proptest::collection::vec(op(), 0..25), 2..6),
        directed in any::<bool>(),
        flush_at in 0usize..6,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let g = Graph::open(dir.path().join("store"), opts(directed)).unwrap();
        let mut chunks = chunks.into_iter();
        apply(&g, chunks.next().unwrap());
        let (base, _) = g.save_checkpoint().unwrap();
        let mut states = vec![(base, dump(&g))];
        for (i, ops) in chunks.enumerate() {
            apply(&g, ops);
            if i == flush_at {
                g.flush().unwrap();
            }
            states.push((g.snapshot().timestamp(), dump(&g)));
        }
        for (ts, want) in &states {
            let r = rebuild(&g, *ts).unwrap();
            prop_assert_eq!(r.checkpoint, base);
            prop_assert_eq!(&dump(&r.graph), want, "state at {}", ts);
        }
        // Nothing is left behind beside the checkpoint.
        let left: Vec<_> = std::fs::read_dir(dir.path().join("store/checkpoints"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        prop_assert_eq!(left, vec![format!("{base:020}")]);
    }
}

#[test]
fn the_newest_checkpoint_before_the_timestamp_is_the_base() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(dir.path().join("store"), opts(true)).unwrap();
    g.insert_edge(1, 2, 1.0).unwrap();
    let (c1, _) = g.save_checkpoint().unwrap();
    let t2 = g.insert_edge(2, 3, 1.0).unwrap();
    g.insert_edge(3, 4, 1.0).unwrap();
    let (c2, _) = g.save_checkpoint().unwrap();
    let t3 = g.delete_edge(1, 2).unwrap();
    let r = rebuild(&g, t2).unwrap();
    assert_eq!((r.checkpoint, r.replayed), (c1, 1));
    let s = r.graph.snapshot();
    assert!(s.has_edge(1, 2) && s.has_edge(2, 3) && !s.has_edge(3, 4));
    drop(s);
    let r = rebuild(&g, t3).unwrap();
    assert_eq!((r.checkpoint, r.replayed), (c2, 1));
    let s = r.graph.snapshot();
    assert!(!s.has_edge(1, 2) && s.has_edge(3, 4));
    // The checkpoints themselves are untouched by the rebuilds.
    let c = Graph::open(
        dir.path()
            .join("store/checkpoints")
            .join(format!("{c1:020}")),
        opts(true),
    )
    .unwrap();
    assert!(c.snapshot().has_edge(1, 2) && !c.snapshot().has_edge(2, 3));
}

#[test]
fn what_cannot_be_rebuilt_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(
        dir.path().join("store"),
        Options {
            change_log_bytes: 0,
            ..opts(true)
        },
    )
    .unwrap();
    let t1 = g.insert_edge(1, 2, 1.0).unwrap();
    // No checkpoint yet.
    let err = rebuild(&g, t1).err().unwrap();
    assert!(
        matches!(err, AsOfError::NoCheckpoint { oldest: None, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("it has none"), "{err}");
    let (c, _) = g.save_checkpoint().unwrap();
    // Before the oldest checkpoint.
    let err = rebuild(&g, c - 1).err().unwrap();
    assert!(
        err.to_string().contains(&format!("its oldest is at {c}")),
        "{err}"
    );
    // In the future.
    let err = rebuild(&g, c + 100).err().unwrap();
    assert!(matches!(err, AsOfError::Future { .. }), "{err}");
    // After the checkpoint, with a log archive that keeps nothing: the
    // commits after the checkpoint are gone once a flush retires them.
    let t2 = g.insert_edge(2, 3, 1.0).unwrap();
    g.flush().unwrap();
    g.insert_edge(3, 4, 1.0).unwrap();
    g.flush().unwrap();
    let err = rebuild(&g, t2).err().unwrap();
    assert!(
        matches!(
            err,
            AsOfError::Engine(stratagraph::Error::ChangesUnavailable { .. })
        ),
        "{err}"
    );
    // At the checkpoint itself no change is needed.
    let r = rebuild(&g, c).unwrap();
    assert!(r.graph.snapshot().has_edge(1, 2) && !r.graph.snapshot().has_edge(2, 3));
    // An in-memory store has no checkpoints.
    let m = Graph::in_memory(opts(true));
    let err = rebuild(&m, 0).err().unwrap();
    assert!(err.to_string().contains("in memory"), "{err}");
}

#[test]
fn a_store_of_string_ids_with_property_edges_comes_back_at_each_timestamp() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(
        dir.path().join("store"),
        Options {
            string_ids: true,
            ..opts(true)
        },
    )
    .unwrap();
    let id = |k: &str| g.intern_key(k).unwrap();
    let mut tx = g.begin();
    tx.insert_vertex_with(
        id("marko"),
        "person",
        &[("age", stratagraph::Value::Int32(29))],
    )
    .unwrap();
    tx.insert_vertex_with(id("lop"), "software", &[]).unwrap();
    tx.commit().unwrap();
    let (base, _) = g.save_checkpoint().unwrap();
    let mut states = vec![(base, dump(&g))];
    let mut tx = g.begin();
    let e = tx
        .add_edge(
            id("marko"),
            id("lop"),
            "created",
            &[("weight", stratagraph::Value::Float64(0.4))],
        )
        .unwrap();
    tx.commit().unwrap();
    states.push((g.snapshot().timestamp(), dump(&g)));
    g.set_property(id("marko"), "age", stratagraph::Value::Int32(30))
        .unwrap();
    g.insert_edge(id("vadas"), id("marko"), 0.5).unwrap();
    states.push((g.snapshot().timestamp(), dump(&g)));
    let mut tx = g.begin();
    tx.remove_edge(e).unwrap();
    tx.delete_vertex(id("lop")).unwrap();
    tx.commit().unwrap();
    states.push((g.snapshot().timestamp(), dump(&g)));
    for (ts, want) in &states {
        let r = rebuild(&g, *ts).unwrap();
        assert_eq!(&dump(&r.graph), want, "state at {ts}");
    }
}
