//! A query's memory limit, with the counting allocator installed as this
//! test binary's global allocator (as the CLI installs it).

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::Path;

use stratagraph::{Graph, Options};
use stratagraph_gremlin::memory::{counting, CountingAlloc};
use stratagraph_gremlin::{execute_with, Bindings, Deadline, Error, GValue};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

fn modern() -> Graph {
    let g = Graph::in_memory(Options::default());
    let file = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../shared/tinkerpop/data/tinkerpop-modern.json");
    stratagraph_io::graphson::load(&g, &file, stratagraph_io::load::LoadOptions::default())
        .unwrap();
    g
}

fn run(g: &Graph, q: &str, d: Deadline) -> Result<Vec<GValue>, Error> {
    execute_with(g, q, &Bindings::new(), Some(d), |vs, _| vs)
}

#[test]
fn a_query_past_its_memory_limit_fails_and_writes_nothing() {
    assert!(counting());
    let g = modern();
    let limit = Deadline::unlimited().with_memory(32 << 20);
    // 5,910 paths of 9 elements: well under the limit.
    assert_eq!(
        run(&g, "g.V().repeat(both()).times(8).path().count()", limit).unwrap(),
        vec![GValue::Int64(5910)]
    );
    // About 1.4 million paths of 14: far over it. It stops, and a vertex
    // it added before is not kept.
    let e = run(
        &g,
        "g.addV('temp').as('t').V().repeat(both()).times(13).path().fold()",
        limit,
    )
    .unwrap_err();
    assert!(
        matches!(e, Error::MemoryLimit { limit: l } if l == 32 << 20),
        "{e}"
    );
    assert!(e.to_string().contains("memory limit of 32 MiB"), "{e}");
    assert_eq!(
        run(&g, "g.V().count()", Deadline::unlimited()).unwrap(),
        vec![GValue::Int64(6)]
    );
    // With no memory limit the same traversal runs (a time limit alone
    // does not count memory).
    let n = run(
        &g,
        "g.V().repeat(both()).times(11).path().count()",
        Deadline::after(std::time::Duration::from_secs(60)),
    )
    .unwrap();
    assert!(matches!(n[..], [GValue::Int64(c)] if c == 83_160), "{n:?}");
}
