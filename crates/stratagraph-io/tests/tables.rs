//! A snapshot as Arrow tables (`tables::vertex_table`, `edge_table`) and
//! such tables into a store (`tables::load`): the round trip gives the
//! same graph, as the engine's read API shows it before and after.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

mod common;

use common::*;
use proptest::prelude::*;
use std::path::Path;
use stratagraph::{Graph, Options};
use stratagraph_io::graphson;
use stratagraph_io::tables::{self, Table};
use stratagraph_io::LoadOptions;

fn round_trip(g: &Graph) -> Graph {
    let snap = g.snapshot();
    let (schema, batches) = tables::vertex_table(&snap).unwrap();
    let vertices = Table {
        name: "vertices".into(),
        schema,
        batches,
    };
    let (schema, batches) = tables::edge_table(&snap).unwrap();
    let edges = Table {
        name: "edges".into(),
        schema,
        batches,
    };
    let back = Graph::in_memory(g.options().clone());
    tables::load(&back, Some(&vertices), Some(&edges), 3).unwrap();
    back
}

#[test]
fn every_value_type_label_and_edge_comes_back_the_same() {
    for (directed, string_ids) in [(true, false), (false, false), (true, true), (false, true)] {
        let g = every_kind_of_thing(Options {
            directed,
            string_ids,
            ..Options::default()
        });
        assert_eq!(dump(&round_trip(&g)), dump(&g), "{directed} {string_ids}");
    }
}

#[test]
fn the_grateful_dead_comes_back_the_same() {
    let g = Graph::in_memory(Options::default());
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/tinkerpop/data/grateful-dead.json");
    graphson::load(&g, &file, LoadOptions::default()).unwrap();
    let expected = dump(&g);
    assert_eq!((expected.vertices.len(), expected.edges.len()), (808, 8049));
    assert_eq!(dump(&round_trip(&g)), expected);
}

#[test]
fn a_property_named_like_a_table_column_is_refused() {
    let g = Graph::in_memory(Options::default());
    let mut tx = g.begin();
    tx.insert_vertex_with(1, "p", &[("_label", s("x"))])
        .unwrap();
    tx.commit().unwrap();
    let err = tables::vertex_table(&g.snapshot()).unwrap_err();
    assert!(err.to_string().contains("\"_label\""), "{err}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_graphs_come_back_the_same(
        ops in proptest::collection::vec(op(), 0..60),
        directed in any::<bool>(),
    ) {
        let g = Graph::in_memory(Options { directed, ..Options::default() });
        apply(&g, ops);
        prop_assert_eq!(dump(&round_trip(&g)), dump(&g));
    }
}
