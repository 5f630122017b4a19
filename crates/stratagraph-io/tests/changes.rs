//! A change table (`changes::change_table` of `Graph::changes`) applied
//! to a copy of the store taken at `since` gives the store as it is now:
//! checked on random graphs and random writes, with a flush in between
//! so the changes come from the archive and the live log both.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod common;

use common::*;
use proptest::prelude::*;
use stratagraph::{Graph, Options, SyncPolicy};
use stratagraph_io::changes::{apply as apply_changes, change_table};
use stratagraph_io::tables::{self, Table};

/// An in-memory copy of `g` as it is now, through the Arrow tables.
fn copy(g: &Graph) -> Graph {
    let snap = g.snapshot();
    let (schema, batches) = tables::vertex_table(&snap).unwrap();
    let v = Table {
        name: "v".into(),
        schema,
        batches,
    };
    let (schema, batches) = tables::edge_table(&snap).unwrap();
    let e = Table {
        name: "e".into(),
        schema,
        batches,
    };
    let back = Graph::in_memory(Options {
        directed: g.options().directed,
        ..Options::default()
    });
    tables::load(&back, Some(&v), Some(&e), 100).unwrap();
    back
}

fn table(g: &Graph, since: u64) -> Table {
    let c = g.changes(since).unwrap();
    let (schema, batches) = change_table(&g.snapshot(), &c.changes);
    Table {
        name: "changes".into(),
        schema,
        batches,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn changes_applied_to_an_old_copy_give_the_graph_now(
        first in proptest::collection::vec(op(), 0..40),
        second in proptest::collection::vec(op(), 0..60),
        flush_at in any::<prop::sample::Index>(),
        directed in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let g = Graph::open(dir.path(), Options { directed, sync: SyncPolicy::Never, ..Options::default() }).unwrap();
        apply(&g, first);
        let old = copy(&g);
        prop_assert_eq!(dump(&old), dump(&g));
        let since = g.snapshot().timestamp();
        let cut = if second.is_empty() { 0 } else { flush_at.index(second.len()) };
        let mut second = second;
        let tail = second.split_off(cut);
        apply(&g, second);
        g.flush().unwrap();
        apply(&g, tail);
        apply_changes(&old, &table(&g, since)).unwrap();
        prop_assert_eq!(dump(&old), dump(&g));
    }
}

#[test]
fn a_change_table_missing_a_column_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let g = Graph::open(
        dir.path(),
        Options {
            sync: SyncPolicy::Never,
            ..Options::default()
        },
    )
    .unwrap();
    g.insert_edge(1, 2, 1.0).unwrap();
    let t = table(&g, 0);
    let i = t.schema.index_of("weight").unwrap();
    let mut fields: Vec<_> = t
        .schema
        .fields()
        .iter()
        .map(|f| f.as_ref().clone())
        .collect();
    fields.remove(i);
    let schema = std::sync::Arc::new(arrow_schema::Schema::new(fields));
    let batches = t
        .batches
        .iter()
        .map(|b| {
            let mut cols = b.columns().to_vec();
            cols.remove(i);
            arrow_array::RecordBatch::try_new(schema.clone(), cols).unwrap()
        })
        .collect();
    let bad = Table {
        name: "changes".into(),
        schema,
        batches,
    };
    let other = Graph::in_memory(Options::default());
    let err = apply_changes(&other, &bad).unwrap_err();
    assert!(
        err.to_string().contains("column weight: missing column"),
        "{err}"
    );
    assert_eq!(other.snapshot().vertex_count(), 0);
}
