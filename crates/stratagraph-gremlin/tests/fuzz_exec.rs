//! Random traversals, well-formed or not, never panic the executor: every
//! one either runs or fails with an error. The generator draws steps from
//! Gremlin's vocabulary with arguments of every kind (strings, numbers of
//! each type, nulls, lists, maps, predicates, tokens, nested traversals),
//! so most queries are nonsense a user could still send.
#![allow(clippy::unwrap_used)]

use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use stratagraph::{Graph, Options};
use stratagraph_gremlin::memory::CountingAlloc;
use stratagraph_gremlin::{execute_with, Bindings, Deadline};

/// Counting allocations, so that each case's memory limit holds.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

const STEPS: &[&str] = &[
    "out",
    "in",
    "both",
    "outE",
    "inE",
    "bothE",
    "outV",
    "inV",
    "otherV",
    "bothV",
    "has",
    "hasLabel",
    "hasId",
    "hasNot",
    "hasKey",
    "hasValue",
    "is",
    "where",
    "not",
    "and",
    "or",
    "filter",
    "dedup",
    "simplePath",
    "cyclicPath",
    "limit",
    "range",
    "skip",
    "tail",
    "values",
    "properties",
    "valueMap",
    "elementMap",
    "id",
    "label",
    "key",
    "value",
    "count",
    "fold",
    "unfold",
    "constant",
    "identity",
    "path",
    "select",
    "project",
    "by",
    "math",
    "sum",
    "min",
    "max",
    "mean",
    "order",
    "group",
    "groupCount",
    "map",
    "flatMap",
    "local",
    "loops",
    "union",
    "coalesce",
    "optional",
    "choose",
    "option",
    "as",
    "aggregate",
    "cap",
    "sideEffect",
    "barrier",
    "sack",
    "index",
    "toUpper",
    "concat",
    "split",
    "substring",
    "asString",
    "asNumber",
    "asDate",
    "dateAdd",
    "dateDiff",
    "conjoin",
    "combine",
    "intersect",
    "merge",
    "product",
    "reverse",
    "length",
    "format",
    "tree",
    "sample",
    "element",
    "all",
    "any",
    "none",
    "from",
    "to",
    "with",
    "property",
    "addV",
    "addE",
    "drop",
    "inject",
    "V",
    "E",
    "emit",
    "until",
    "times",
    "repeat",
    "mergeV",
    "mergeE",
    "fail",
];

fn arg() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        "[a-z]{0,6}".prop_map(|s| format!("'{s}'")),
        Just("'name'".to_string()),
        Just("'age'".to_string()),
        Just("'knows'".to_string()),
        Just("'person'".to_string()),
        (-3i64..40).prop_map(|n| n.to_string()),
        (-3i64..40).prop_map(|n| format!("{n}L")),
        Just("1.5".to_string()),
        Just("2.0f".to_string()),
        Just("10n".to_string()),
        Just("null".to_string()),
        Just("true".to_string()),
        Just("NaN".to_string()),
        Just("T.id".to_string()),
        Just("T.label".to_string()),
        Just("desc".to_string()),
        Just("local".to_string()),
        Just("keys".to_string()),
        Just("values".to_string()),
        Just("Pop.all".to_string()),
        Just("Operator.sum".to_string()),
        Just("Operator.addAll".to_string()),
        Just("Pick.none".to_string()),
        Just("Merge.onCreate".to_string()),
        Just("GType.INT".to_string()),
        Just("DT.day".to_string()),
        Just("Cardinality.single".to_string()),
        Just("[1, 'a', null]".to_string()),
        Just("[:]".to_string()),
        Just("['name': 'x', (T.label): 'person']".to_string()),
        Just("{1, 2}".to_string()),
        Just("datetime('2023-08-02T00:00:00Z')".to_string()),
        (-3i64..40).prop_map(|n| format!("P.gt({n})")),
        Just("P.within('marko', 29)".to_string()),
        Just("TextP.containing('a')".to_string()),
        Just("P.between(1, 30)".to_string()),
        Just("P.typeOf(GType.STRING)".to_string()),
    ];
    leaf.prop_recursive(3, 24, 3, |inner| {
        prop::collection::vec(
            (
                prop::sample::select(STEPS),
                prop::collection::vec(inner, 0..3),
            ),
            1..4,
        )
        .prop_map(|steps| {
            let body: Vec<String> = steps
                .into_iter()
                .map(|(s, args)| format!("{s}({})", args.join(", ")))
                .collect();
            format!("__.{}", body.join("."))
        })
    })
}

fn query() -> impl Strategy<Value = String> {
    let start = prop_oneof![
        Just("V()".to_string()),
        Just("V(1)".to_string()),
        Just("E()".to_string()),
        Just("inject(1, 'a', null)".to_string()),
        Just("inject([1, 2], ['k': 'v'])".to_string()),
        Just("addV('person')".to_string()),
    ];
    (
        start,
        prop::collection::vec(
            (
                prop::sample::select(STEPS),
                prop::collection::vec(arg(), 0..3),
            ),
            0..6,
        ),
    )
        .prop_map(|(start, steps)| {
            let mut q = format!("g.{start}");
            for (s, args) in steps {
                // An unbounded repeat on a cyclic graph would not end: a
                // bound keeps each case finite.
                let bound = if s == "repeat" { ".times(2)" } else { "" };
                q.push_str(&format!(".{s}({}){bound}", args.join(", ")));
            }
            q
        })
}

fn modern() -> Graph {
    let g = Graph::in_memory(Options::default());
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/tinkerpop/data/tinkerpop-modern.json");
    stratagraph_io::graphson::load(&g, &path, stratagraph_io::load::LoadOptions::default())
        .unwrap();
    g
}

#[test]
fn random_traversals_run_or_fail_but_never_panic() {
    let cases: u32 = std::env::var("STRATAGRAPH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(3000);
    // Queries write (addV, property, drop); a fresh graph every few
    // thousand keeps each case as cheap as the first.
    let g = std::cell::RefCell::new(modern());
    let done = std::cell::Cell::new(0u32);
    // A fixed seed unless told otherwise, so a run can be repeated (a case
    // that aborts the process leaves nothing to shrink).
    let seed: u64 = std::env::var("STRATAGRAPH_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30);
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &bytes),
    );
    let ran = std::cell::Cell::new(0u32);
    let failed = std::cell::Cell::new(0u32);
    runner
        .run(&query(), |q| {
            // To find a query that aborts the process (which no shrinking
            // survives): each is written to this file before it runs.
            if let Ok(path) = std::env::var("STRATAGRAPH_FUZZ_LOG") {
                std::fs::write(path, &q).unwrap();
            }
            done.set(done.get() + 1);
            if done.get().is_multiple_of(2000) {
                *g.borrow_mut() = modern();
                if done.get().is_multiple_of(100_000) {
                    eprintln!("{} queries", done.get());
                }
            }
            // Each case under the executor's own time and memory limits,
            // as a server runs a client's query: a traversal that would
            // grow without end (a random one can) is stopped with an error
            // before it takes the machine's memory.
            let limit =
                Some(Deadline::after(std::time::Duration::from_secs(2)).with_memory(256 << 20));
            match execute_with(&g.borrow(), &q, &Bindings::new(), limit, |r, _| r) {
                Ok(_) => ran.set(ran.get() + 1),
                Err(e) => {
                    // Every error names something: never an empty message.
                    assert!(!e.to_string().is_empty(), "{q}: empty error");
                    failed.set(failed.get() + 1);
                }
            }
            Ok(())
        })
        .unwrap();
    let (ran, failed) = (ran.get(), failed.get());
    eprintln!("{ran} random queries ran, {failed} failed with an error");
    // The generator must reach the executor, not only its errors.
    assert!(
        ran > cases / 20,
        "only {ran} of {cases} random queries ran ({failed} failed)"
    );
}
