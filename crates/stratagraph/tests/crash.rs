//! Durability by force: a child process runs a random workload on an
//! on-disk store and prints every commit the engine acknowledged; the
//! parent kills it with SIGKILL at a random moment, reopens the store and
//! checks that every acknowledged commit is there and that the one commit
//! in flight is there whole or not at all.
//!
//! The child is this same test binary, re-run with `CRASH_CHILD` set (see
//! `child_entry`). Two writer threads work on disjoint vertex ranges (so
//! their commits share log writes and syncs, but each has its own exact
//! model), a reader takes snapshots, and a tiny MemGraph budget makes
//! background flushes and compactions happen throughout.
//!
//! `cargo test --release --test crash -- --cycles N` runs N kill cycles
//! (default 100; `CRASH_CYCLES=N` does the same). The binary has its own
//! `main` (`harness = false` in Cargo.toml) so that it can take that
//! option: libtest refuses options it does not know. It runs its three
//! checks in turn and ends with a summary line in libtest's format, which
//! `scripts/test.sh` counts like the others.

#![allow(clippy::unwrap_used)] // a test panics on what it did not expect

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use stratagraph::{EdgeDirection, Graph, Options, SyncPolicy, UpdatePolicy, Value, DEFAULT_LABEL};

/// The label vertices created by name get, and the property keys set.
const LABEL: &str = "made";
const KEYS: [&str; 2] = ["a", "b"];

const WRITERS: u64 = 2;
/// Vertices per writer: writer `w` uses ids `w * SPAN .. w * SPAN + RANGE`.
const SPAN: u64 = 1000;
const RANGE: u64 = 40;
/// External ids of padding vertices have this bit set (writers' never do).
const PADDING: u64 = 1 << 62;

/// The edges a fresh store's child loads in one batch before its writers
/// start (on even cycles, where that batch is a bulk load): among vertices
/// of their own, which nothing else touches.
fn bulk_edges() -> Vec<(u64, u64, f64)> {
    let v = |i: u64| PADDING | 1 << 40 | i;
    (0..3000u64)
        .map(|i| (v(i % 500), v((i * 7 + 3) % 500), (i % 5) as f64))
        .collect()
}

/// How many of `bulk_edges` the store holds (their pairs, counted once).
fn bulk_edges_held(g: &Graph) -> usize {
    let s = g.snapshot();
    let pairs: BTreeSet<(u64, u64)> = bulk_edges().iter().map(|e| (e.0, e.1)).collect();
    pairs.iter().filter(|&&(a, b)| s.has_edge(a, b)).count()
}

/// The reference: one writer's part of the graph.
#[derive(Clone, Default, PartialEq, Debug)]
struct Model {
    vertices: BTreeSet<u64>,
    edges: BTreeMap<(u64, u64), f64>,
    /// Labels other than the default, given when a vertex was created.
    labels: BTreeMap<u64, String>,
    props: BTreeMap<(u64, String), i64>,
    /// Property edges by id: (source, destination), label `PEDGE` and
    /// property `x` equal to the id.
    pedges: BTreeMap<u64, (u64, u64)>,
}

/// The label of property edges.
const PEDGE: &str = "p";

impl Model {
    fn add_edge(&mut self, s: u64, d: u64, w: f64) {
        self.vertices.insert(s);
        self.vertices.insert(d);
        self.edges.insert((s, d), w);
    }

    fn remove_vertex(&mut self, v: u64) {
        self.vertices.remove(&v);
        self.edges.retain(|&(s, d), _| s != v && d != v);
        self.labels.remove(&v);
        self.props.retain(|(x, _), _| *x != v);
        self.pedges.retain(|_, &mut (s, d)| s != v && d != v);
    }

    /// The id `writer`'s next property edge gets: above every one it has
    /// (so an id freed by a removal may come back, a new life of the id).
    fn next_pedge(&self, writer: u64) -> u64 {
        self.pedges
            .keys()
            .next_back()
            .map_or(writer * 1_000_000, |&id| id + 1)
    }

    /// The writer's part of a store, read back.
    fn read(g: &Graph, writer: u64) -> Model {
        let s = g.snapshot();
        let mut m = Model::default();
        for v in writer * SPAN..writer * SPAN + RANGE {
            if !s.has_vertex(v) {
                continue;
            }
            m.vertices.insert(v);
            let label = s.label(v).unwrap();
            if &*label != DEFAULT_LABEL {
                m.labels.insert(v, label.to_string());
            }
            for (k, x) in s.properties(v).unwrap() {
                let Value::Int64(x) = x else {
                    panic!("property {k} of {v} is {x:?}")
                };
                m.props.insert((v, k.to_string()), x);
            }
            let id = s.internal_id(v).unwrap();
            for (d, w) in s.out_weighted_of(id) {
                m.edges.insert((v, s.external_id(d).unwrap()), w);
            }
            for e in s.edges_of(v, EdgeDirection::Out, None) {
                assert_eq!(&*e.label, PEDGE);
                let x = s.edge_property(e.id, "x");
                assert_eq!(x, Some(Value::Int64(e.id as i64)), "edge {}", e.id);
                m.pedges.insert(e.id, (e.src, e.dst));
            }
        }
        m
    }
}

/// A small deterministic generator (splitmix64), so parent and child make
/// the same choices from the same seed and model.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One operation of the workload.
#[derive(Debug, Clone)]
enum Step {
    /// A transaction: (kind, a, b, weight) with kind 0 insert edge, 1
    /// delete edge, 2 insert vertex (labelled), 3 delete vertex, 4 set
    /// property `KEYS[b]` of `a` to `weight` as an Int64, 5 add property
    /// edge `weight` (an id) from `a` to `b`, 6 remove property edge `a`.
    Txn(Vec<(u8, u64, u64, f64)>),
    InsertEdges(Vec<(u64, u64, f64)>),
    DeleteEdges(Vec<(u64, u64)>),
    DeleteVertex(u64),
}

/// The next step for `writer` given its model, and the model after it.
fn next_step(rng: &mut Rng, writer: u64, m: &Model) -> (Step, Model) {
    let base = writer * SPAN;
    let vertex = |rng: &mut Rng| base + rng.below(RANGE);
    let weight = |rng: &mut Rng| (rng.below(1000) as f64) / 8.0;
    let mut after = m.clone();
    let step = match rng.below(10) {
        0..=4 => {
            let mut ops = Vec::new();
            let mut deleted = BTreeSet::new();
            for _ in 0..1 + rng.below(4) {
                match rng.below(13) {
                    10 | 11 => {
                        let (s, d) = (vertex(rng), vertex(rng));
                        if deleted.contains(&s) || deleted.contains(&d) {
                            continue;
                        }
                        let id = after.next_pedge(writer);
                        after.vertices.insert(s);
                        after.vertices.insert(d);
                        after.pedges.insert(id, (s, d));
                        ops.push((5, s, d, id as f64));
                    }
                    12 => {
                        let Some(&id) = pick(rng, after.pedges.keys()) else {
                            continue;
                        };
                        after.pedges.remove(&id);
                        ops.push((6, id, 0, 0.0));
                    }
                    0..=3 => {
                        let (s, d) = (vertex(rng), vertex(rng));
                        if deleted.contains(&s) || deleted.contains(&d) {
                            continue;
                        }
                        let w = weight(rng);
                        after.add_edge(s, d, w);
                        ops.push((0, s, d, w));
                    }
                    4 | 5 => {
                        let Some(&(s, d)) = pick(rng, after.edges.keys()) else {
                            continue;
                        };
                        after.edges.remove(&(s, d));
                        ops.push((1, s, d, 0.0));
                    }
                    6 => {
                        let v = vertex(rng);
                        if deleted.contains(&v) {
                            continue;
                        }
                        if after.vertices.insert(v) {
                            after.labels.insert(v, LABEL.into());
                        }
                        ops.push((2, v, 0, 0.0));
                    }
                    7 | 8 => {
                        let Some(&v) = pick(rng, after.vertices.iter()) else {
                            continue;
                        };
                        let k = rng.below(KEYS.len() as u64);
                        let x = rng.below(1 << 40);
                        after.props.insert((v, KEYS[k as usize].into()), x as i64);
                        ops.push((4, v, k, x as f64));
                    }
                    _ => {
                        let Some(&v) = pick(rng, after.vertices.iter()) else {
                            continue;
                        };
                        after.remove_vertex(v);
                        deleted.insert(v);
                        ops.push((3, v, 0, 0.0));
                    }
                }
            }
            Step::Txn(ops)
        }
        5..=7 => {
            let edges: Vec<(u64, u64, f64)> = (0..1 + rng.below(30))
                .map(|_| (vertex(rng), vertex(rng), weight(rng)))
                .collect();
            for &(s, d, w) in &edges {
                after.add_edge(s, d, w);
            }
            Step::InsertEdges(edges)
        }
        8 => {
            let mut edges = Vec::new();
            for _ in 0..1 + rng.below(8) {
                if let Some(&(s, d)) = pick(rng, after.edges.keys()) {
                    after.edges.remove(&(s, d));
                    edges.push((s, d));
                }
            }
            Step::DeleteEdges(edges)
        }
        _ => match pick(rng, after.vertices.iter()) {
            Some(&v) => {
                after.remove_vertex(v);
                Step::DeleteVertex(v)
            }
            None => {
                after.add_edge(base, base + 1, 1.0);
                Step::InsertEdges(vec![(base, base + 1, 1.0)])
            }
        },
    };
    (step, after)
}

fn pick<'a, T: 'a>(rng: &mut Rng, it: impl ExactSizeIterator<Item = &'a T>) -> Option<&'a T> {
    let n = it.len() as u64;
    if n == 0 {
        return None;
    }
    let k = rng.below(n) as usize;
    it.into_iter().nth(k)
}

fn apply(g: &Graph, step: &Step) -> stratagraph::Result<()> {
    match step {
        Step::Txn(ops) => {
            let mut tx = g.begin();
            for &(kind, a, b, w) in ops {
                match kind {
                    0 => tx.insert_edge(a, b, w)?,
                    1 => tx.delete_edge(a, b)?,
                    2 => {
                        tx.insert_vertex_with(a, LABEL, &[])?;
                    }
                    3 => tx.delete_vertex(a)?,
                    4 => tx.set_property(a, KEYS[b as usize], Value::Int64(w as i64))?,
                    5 => {
                        let id = w as u64;
                        tx.add_edge_with_id(id, a, b, PEDGE, &[("x", Value::Int64(id as i64))])?
                    }
                    _ => tx.remove_edge(a)?,
                }
            }
            tx.commit().map(drop)
        }
        Step::InsertEdges(e) => g.insert_edges(e).map(drop),
        Step::DeleteEdges(e) if e.is_empty() => Ok(()),
        Step::DeleteEdges(e) => g.delete_edges(e).map(drop),
        Step::DeleteVertex(v) => g.delete_vertex(*v).map(drop),
    }
}

fn options(cycle: u64) -> Options {
    Options {
        memgraph_bytes: 2048,
        sync: if cycle % 4 == 3 {
            SyncPolicy::Never
        } else {
            SyncPolicy::Always
        },
        threads: 2,
        // Every other cycle, a fresh store's first batch is a bulk load.
        bulk_load_min_edges: if cycle.is_multiple_of(2) {
            1
        } else {
            usize::MAX
        },
        // Two cycles in four pack the levels they write, so a store mixes
        // packed and plain levels across crashes.
        pack_levels: cycle % 4 < 2,
        // Every other cycle, flushes write low-degree vertices as pivots
        // (marked whole lists), and a reopen reads them back.
        update_policy: if cycle % 2 == 1 {
            UpdatePolicy::Adaptive { lookup_share: 0.9 }
        } else {
            UpdatePolicy::Delta
        },
        ..Options::default()
    }
}

/// A check this binary runs: its name, and the check given the cycle count.
type Check = (&'static str, fn(u64));

/// The checks this binary runs, by name.
const CHECKS: [Check; 3] = [
    (
        "killed_writers_lose_no_acknowledged_commit",
        killed_writers_lose_no_acknowledged_commit,
    ),
    ("a_second_open_is_refused_while_the_store_is_open", |_| {
        a_second_open_is_refused_while_the_store_is_open()
    }),
    (
        "another_process_cannot_open_the_store_until_it_dies",
        |_| another_process_cannot_open_the_store_until_it_dies(),
    ),
];

fn main() {
    if let Ok(dir) = std::env::var("CRASH_CHILD") {
        return child_entry(&dir);
    }
    let mut cycles: u64 = std::env::var("CRASH_CYCLES")
        .ok()
        .and_then(|c| c.parse().ok())
        .unwrap_or(100);
    // Other arguments (a name filter, libtest's options as `cargo test`
    // passes them) are ignored except `--cycles N`, and `--list`, which
    // cargo's test listing uses.
    let mut filter = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--cycles" => {
                let n = args.next().and_then(|n| n.parse().ok());
                let Some(n) = n else {
                    eprintln!("--cycles needs a whole number");
                    std::process::exit(2);
                };
                cycles = n;
            }
            "--list" => {
                for (name, _) in CHECKS {
                    println!("{name}: test");
                }
                return;
            }
            _ if !a.starts_with('-') => filter = Some(a),
            _ => {}
        }
    }
    let chosen: Vec<_> = CHECKS
        .iter()
        .filter(|(name, _)| filter.as_ref().is_none_or(|f| name.contains(f.as_str())))
        .collect();
    println!("\nrunning {} tests", chosen.len());
    let mut failed = Vec::new();
    for &&(name, check) in &chosen {
        match std::panic::catch_unwind(|| check(cycles)) {
            Ok(()) => println!("test {name} ... ok"),
            Err(_) => {
                println!("test {name} ... FAILED");
                failed.push(name);
            }
        }
    }
    let passed = chosen.len() - failed.len();
    println!(
        "\ntest result: {}. {passed} passed; {} failed; 0 ignored; 0 measured; 0 filtered out\n",
        if failed.is_empty() { "ok" } else { "FAILED" },
        failed.len()
    );
    if !failed.is_empty() {
        std::process::exit(101);
    }
}

/// Runs in the child process: works until killed, printing `ack W N` after
/// writer W's N-th step returned.
fn child_entry(dir: &str) {
    let seed: u64 = std::env::var("CRASH_SEED").unwrap().parse().unwrap();
    let cycle: u64 = std::env::var("CRASH_CYCLE").unwrap().parse().unwrap();
    let g = Graph::open(dir, options(cycle)).unwrap();
    println!("open");
    if g.snapshot().edge_count() == 0 {
        g.insert_edges(&bulk_edges()).unwrap();
        println!("bulk");
    }
    std::thread::scope(|s| {
        for w in 0..WRITERS {
            let g = g.clone();
            s.spawn(move || {
                let mut m = Model::read(&g, w);
                let mut rng = Rng(seed ^ (w + 1).wrapping_mul(0xA24B_AED4_963E_E407));
                let mut padding = Rng(seed ^ w ^ 0x9ADD);
                for n in 0.. {
                    pad(&g, &mut padding);
                    let (step, after) = next_step(&mut rng, w, &m);
                    if let Err(e) = apply(&g, &step) {
                        println!("fail {w} {n} {step:?}: {e}");
                        std::process::exit(3);
                    }
                    m = after;
                    println!("ack {w} {n}");
                }
            });
        }
        let g = g.clone();
        s.spawn(move || loop {
            let snap = g.snapshot();
            assert!(snap.edge_count() <= (WRITERS * RANGE * RANGE));
            std::thread::yield_now();
        });
    });
}

/// Creates padding vertices (outside every writer's range) while the store
/// is young, so the writers' vertices, which get internal ids on first
/// sight, spread over several index pages and the levels split into parts
/// by vertex range.
fn pad(g: &Graph, rng: &mut Rng) {
    if g.snapshot().id_bound() > 20_000 {
        return;
    }
    let batch: Vec<u64> = (0..100).map(|_| PADDING | rng.next()).collect();
    if let Err(e) = g.insert_vertices(&batch) {
        println!("fail padding: {e}");
        std::process::exit(3);
    }
}

/// Starts a child on `dir`; returns it and its stdout lines.
fn spawn_child(dir: &Path, seed: u64, cycle: u64) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .env("CRASH_CHILD", dir)
        .env("CRASH_SEED", seed.to_string())
        .env("CRASH_CYCLE", cycle.to_string())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap()
}

fn killed_writers_lose_no_acknowledged_commit(cycles: u64) {
    let mut rng = Rng(0x5EED);
    let mut tmp = tempfile::tempdir().unwrap();
    let mut models: Vec<Model> = vec![Model::default(); WRITERS as usize];
    let (mut replayed_partial, mut acked_total) = (0, 0);
    let (mut level_files, mut log_segments) = (0u64, 0u64);
    // The most parts one level had after a reopen, and the deepest level.
    let (mut most_parts, mut deepest) = (0usize, 0u32);
    let mut bulks_checked = 0;
    // The store holds the first batch (which it must then keep).
    let mut bulk_held = false;
    for cycle in 0..cycles {
        if cycle % 10 == 0 {
            // A fresh store now and then keeps stores small and tests the
            // first open too.
            tmp = tempfile::tempdir().unwrap();
            models = vec![Model::default(); WRITERS as usize];
            bulk_held = false;
        }
        let dir = tmp.path();
        let seed = rng.next();
        let kill_after = 1 + rng.below(120);
        let mut child = spawn_child(dir, seed, cycle);
        let out = BufReader::new(child.stdout.take().unwrap());
        let mut acked = vec![0u64; WRITERS as usize];
        let mut bulk_acked = false;
        let mut seen = 0;
        let mut lines = out.lines();
        for line in lines.by_ref() {
            let line = line.unwrap();
            assert!(!line.starts_with("fail"), "cycle {cycle}: child: {line}");
            bulk_acked |= line == "bulk";
            if let Some(rest) = line.strip_prefix("ack ") {
                let mut it = rest.split(' ').map(|x| x.parse::<u64>().unwrap());
                let (w, n) = (it.next().unwrap(), it.next().unwrap());
                acked[w as usize] = n + 1;
                seen += 1;
                if seen >= kill_after {
                    break;
                }
            }
        }
        child.kill().unwrap(); // SIGKILL
                               // Acks printed between our last read and the kill count too.
        for line in lines {
            let Ok(line) = line else { break };
            if let Some(rest) = line.strip_prefix("ack ") {
                let mut it = rest.split(' ').map(|x| x.parse::<u64>().unwrap());
                let (w, n) = (it.next().unwrap(), it.next().unwrap());
                acked[w as usize] = n + 1;
            }
        }
        let status = child.wait().unwrap();
        assert!(
            !status.success(),
            "cycle {cycle}: the child must have been killed"
        );
        acked_total += acked.iter().sum::<u64>();
        // What the killed process left: level files (background flushes ran)
        // and several log segments (flushes rotated the log).
        for e in std::fs::read_dir(dir).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            level_files += u64::from(name.starts_with("run-"));
            log_segments += u64::from(name.starts_with("wal-"));
        }

        let report = stratagraph::check(dir).unwrap();
        assert!(report.is_healthy(), "cycle {cycle}: {report:?}");
        let g = Graph::open(dir, options(cycle)).unwrap();
        // The first batch is whole or absent, and there once acknowledged
        // (a bulk load on even cycles: durable by its run and manifest).
        let want = bulk_edges()
            .iter()
            .map(|e| (e.0, e.1))
            .collect::<BTreeSet<_>>()
            .len();
        let held = bulk_edges_held(&g);
        let must_hold = bulk_acked || bulk_held;
        assert!(
            held == want || (!must_hold && held == 0),
            "cycle {cycle}: {held} of the first batch's {want} edges (acknowledged: {must_hold})"
        );
        bulk_held = held == want;
        bulks_checked += usize::from(bulk_acked);
        let runs = g.runs();
        for level in 1..=runs.iter().map(|r| r.level).max().unwrap_or(0) {
            let parts = runs.iter().filter(|r| r.level == level).count();
            most_parts = most_parts.max(parts);
            deepest = deepest.max(level);
        }
        for w in 0..WRITERS {
            let wi = w as usize;
            let mut step_rng = Rng(seed ^ (w + 1).wrapping_mul(0xA24B_AED4_963E_E407));
            let mut m = models[wi].clone();
            for _ in 0..acked[wi] {
                m = next_step(&mut step_rng, w, &m).1;
            }
            let in_flight = next_step(&mut step_rng, w, &m).1;
            let got = Model::read(&g, w);
            if got == in_flight && got != m {
                replayed_partial += 1;
                models[wi] = in_flight;
            } else {
                assert_eq!(
                    got, m,
                    "cycle {cycle} writer {w}: {} acknowledged steps (seed {seed})",
                    acked[wi]
                );
                models[wi] = m;
            }
        }
        g.close().unwrap();
    }
    eprintln!(
        "{cycles} crash cycles, {acked_total} acknowledged steps checked, \
         {replayed_partial} unacknowledged steps recovered whole; the killed \
         processes left {level_files} level files and {log_segments} log segments; \
         reopened stores had up to {most_parts} parts in a level and {deepest} levels; \
         {bulks_checked} acknowledged first batches were there after the kill"
    );
    assert!(bulks_checked > 0, "some first batches must be acknowledged");
    assert!(
        most_parts >= 2,
        "levels must split into parts by vertex range"
    );
    assert!(
        level_files > cycles,
        "background flushes must run before the kills"
    );
    assert!(log_segments > cycles, "flushes must rotate the log");
}

fn a_second_open_is_refused_while_the_store_is_open() {
    let tmp = tempfile::tempdir().unwrap();
    let g = Graph::open(tmp.path(), Options::default()).unwrap();
    let err = Graph::open(tmp.path(), Options::default()).unwrap_err();
    assert!(
        matches!(&err, stratagraph::Error::StoreLocked { dir } if dir.contains(&*tmp.path().to_string_lossy())),
        "{err}"
    );
    assert!(matches!(
        stratagraph::check(tmp.path()),
        Err(stratagraph::Error::StoreLocked { .. })
    ));
    drop(g);
    Graph::open(tmp.path(), Options::default()).unwrap();
}

fn another_process_cannot_open_the_store_until_it_dies() {
    let tmp = tempfile::tempdir().unwrap();
    let mut child = spawn_child(tmp.path(), 1, 0);
    let mut out = BufReader::new(child.stdout.take().unwrap()).lines();
    // Wait until the child has the store open.
    while let Some(Ok(line)) = out.next() {
        if line.ends_with("open") {
            break;
        }
    }
    let err = Graph::open(tmp.path(), options(0)).unwrap_err();
    assert!(
        matches!(err, stratagraph::Error::StoreLocked { .. }),
        "{err}"
    );
    child.kill().unwrap();
    child.wait().unwrap();
    // The lock dies with the process.
    Graph::open(tmp.path(), options(0)).unwrap();
}
