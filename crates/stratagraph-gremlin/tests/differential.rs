//! Traversals on random property graphs agree with the same question
//! answered by plain Rust over a snapshot: a second path to each answer
//! that shares nothing with the executor but the engine's read API.
#![allow(clippy::unwrap_used)]

use std::collections::{BTreeMap, HashMap};

use proptest::prelude::*;
use stratagraph::{EdgeDirection, Graph, Options, Snapshot, Value};
use stratagraph_gremlin::{execute, Bindings, GValue};

const LABELS: [&str; 3] = ["person", "software", "place"];
const EDGE_LABELS: [&str; 2] = ["knows", "uses"];

#[derive(Debug, Clone)]
struct Spec {
    vertices: Vec<(usize, i32, String)>,
    edges: Vec<(usize, usize, usize, i32)>,
}

fn spec() -> impl Strategy<Value = Spec> {
    (1usize..24).prop_flat_map(|n| {
        (
            prop::collection::vec((0usize..3, 0i32..50, "[a-d]{1,2}"), n),
            prop::collection::vec((0..n, 0..n, 0usize..2, 0i32..10), 0..(n * 3)),
        )
            .prop_map(|(vertices, edges)| Spec { vertices, edges })
    })
}

fn build(spec: &Spec) -> Graph {
    let g = Graph::in_memory(Options::default());
    let mut tx = g.begin();
    for (i, (label, age, name)) in spec.vertices.iter().enumerate() {
        tx.insert_vertex_with(
            i as u64,
            LABELS[*label],
            &[
                ("age", Value::Int32(*age)),
                ("name", Value::String(name.clone())),
            ],
        )
        .unwrap();
    }
    for (s, d, l, w) in &spec.edges {
        tx.add_edge(
            *s as u64,
            *d as u64,
            EDGE_LABELS[*l],
            &[("w", Value::Int32(*w))],
        )
        .unwrap();
    }
    tx.commit().unwrap();
    g
}

fn run(g: &Graph, q: &str) -> Vec<GValue> {
    execute(g, q, &Bindings::new()).unwrap_or_else(|e| panic!("{q}: {e}"))
}

fn ids(vals: &[GValue]) -> Vec<u64> {
    let mut out: Vec<u64> = vals
        .iter()
        .map(|v| match v {
            GValue::Vertex(v) => *v,
            other => panic!("not a vertex: {other}"),
        })
        .collect();
    out.sort_unstable();
    out
}

fn out_of(s: &Snapshot, v: u64, label: Option<&str>) -> Vec<u64> {
    s.edges_of(v, EdgeDirection::Out, label)
        .into_iter()
        .map(|e| e.dst)
        .collect()
}

fn age(s: &Snapshot, v: u64) -> i32 {
    match s.property(v, "age") {
        Some(Value::Int32(a)) => a,
        other => panic!("age of {v}: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn hops_counts_and_filters_agree_with_plain_rust(spec in spec(), pick in 0usize..3, bound in 0i32..50) {
        let g = build(&spec);
        let s = g.snapshot();
        let all: Vec<u64> = (0..spec.vertices.len() as u64).collect();
        let label = LABELS[pick];

        // Two hops along "knows" from every vertex with `label`.
        let mut expect: Vec<u64> = all
            .iter()
            .filter(|&&v| s.label(v).as_deref() == Some(label))
            .flat_map(|&v| out_of(&s, v, Some("knows")))
            .flat_map(|v| out_of(&s, v, Some("knows")))
            .collect();
        expect.sort_unstable();
        // How many have the label, counted alone and per start of a V()
        // in the middle of a traversal.
        let labelled = all.iter().filter(|&&v| s.label(v).as_deref() == Some(label)).count() as i64;
        prop_assert_eq!(run(&g, &format!("g.V().hasLabel('{label}').count()")), vec![GValue::Int64(labelled)]);
        prop_assert_eq!(
            run(&g, &format!("g.inject(1, 2, 2).V().hasLabel('{label}').count()")),
            vec![GValue::Int64(3 * labelled)]
        );
        prop_assert_eq!(run(&g, &format!("g.V().hasLabel('{label}').id().count()")), vec![GValue::Int64(labelled)]);
        let got = run(&g, &format!("g.V().hasLabel('{label}').out('knows').out('knows')"));
        prop_assert_eq!(ids(&got), expect.clone());

        // The same count by hops and a count (which need not make a
        // traverser per edge).
        let got = run(&g, &format!("g.V().hasLabel('{label}').out('knows').out('knows').count()"));
        prop_assert_eq!(got, vec![GValue::Int64(expect.len() as i64)]);
        let both: i64 = all
            .iter()
            .map(|&v| (s.edges_of(v, EdgeDirection::Out, None).len() + s.edges_of(v, EdgeDirection::In, None).len()) as i64)
            .sum();
        prop_assert_eq!(run(&g, "g.V().both().count()"), vec![GValue::Int64(both)]);
        prop_assert_eq!(run(&g, "g.V().bothE().count()"), vec![GValue::Int64(both)]);

        // The same count through repeat().times().
        let got = run(&g, &format!("g.V().hasLabel('{label}').repeat(out('knows')).times(2).count()"));
        prop_assert_eq!(got, vec![GValue::Int64(expect.len() as i64)]);

        // A predicate on a property, then a dedup of the neighbours.
        let mut expect: Vec<u64> = all
            .iter()
            .filter(|&&v| age(&s, v) >= bound)
            .flat_map(|&v| out_of(&s, v, None))
            .collect();
        expect.sort_unstable();
        expect.dedup();
        let got = run(&g, &format!("g.V().has('age', gte({bound})).out().dedup()"));
        prop_assert_eq!(ids(&got), expect);

        // groupCount of the labels reached over one hop.
        let mut expect: BTreeMap<String, i64> = BTreeMap::new();
        for &v in &all {
            for w in out_of(&s, v, None) {
                *expect.entry(s.label(w).unwrap().to_string()).or_default() += 1;
            }
        }
        let got = run(&g, "g.V().out().groupCount().by(label)");
        let mut got_map: BTreeMap<String, i64> = BTreeMap::new();
        if let [GValue::Map(m)] = got.as_slice() {
            for (k, v) in m.iter() {
                match (k, v) {
                    (GValue::String(k), GValue::Int64(c)) => {
                        got_map.insert(k.to_string(), *c);
                    }
                    other => panic!("unexpected entry {other:?}"),
                }
            }
        } else {
            panic!("groupCount gave {got:?}");
        }
        prop_assert_eq!(got_map, expect);

        // Sum of an edge property over in-edges of one label, and the
        // sum of ages ordered and limited.
        let expect: i64 = all
            .iter()
            .flat_map(|&v| s.edges_of(v, EdgeDirection::In, Some("uses")))
            .map(|e| match s.edge_property(e.id, "w") {
                Some(Value::Int32(w)) => i64::from(w),
                other => panic!("w: {other:?}"),
            })
            .sum();
        let got = run(&g, "g.V().inE('uses').values('w').sum()");
        if expect == 0 && got.is_empty() {
            // sum() of no values yields nothing.
        } else {
            prop_assert_eq!(got.len(), 1);
            prop_assert_eq!(got[0].as_i64(), Some(expect));
        }
        let mut ages: Vec<i32> = all.iter().map(|&v| age(&s, v)).collect();
        ages.sort_unstable_by(|a, b| b.cmp(a));
        ages.truncate(3);
        let got = run(&g, "g.V().values('age').order().by(desc).limit(3)");
        let expect: Vec<GValue> = ages.into_iter().map(GValue::Int32).collect();
        prop_assert_eq!(got, expect);

        // Names of neighbours per vertex, through project and select.
        let got = run(&g, "g.V().project('v','n').by(id).by(out().count())");
        let mut counts: HashMap<i64, i64> = HashMap::new();
        for r in &got {
            let GValue::Map(m) = r else { panic!("{r}") };
            let (GValue::Int64(v), GValue::Int64(n)) = (&m[0].1, &m[1].1) else { panic!("{r}") };
            counts.insert(*v, *n);
        }
        for &v in &all {
            prop_assert_eq!(counts.get(&(v as i64)).copied(), Some(out_of(&s, v, None).len() as i64));
        }
    }

    #[test]
    fn writes_through_gremlin_match_the_engine(spec in spec(), extra in 1usize..5) {
        let g = build(&spec);
        let before = g.snapshot().edges().len();
        for i in 0..extra {
            run(&g, &format!("g.V({}).as('a').V(0).addE('knows').to('a').property('w', {i})", i % spec.vertices.len()));
        }
        let s = g.snapshot();
        prop_assert_eq!(s.edges().len(), before + extra);
        let got = run(&g, "g.E().count()");
        prop_assert_eq!(got, vec![GValue::Int64((before + extra) as i64)]);
        run(&g, "g.V(0).outE('knows').drop()");
        let s = g.snapshot();
        prop_assert!(s.edges_of(0, EdgeDirection::Out, Some("knows")).is_empty());
        prop_assert_eq!(run(&g, "g.V(0).out('knows').count()"), vec![GValue::Int64(0)]);
    }
}

/// Where walks stand: each vertex with the number of paths that end on it.
type Ends = BTreeMap<u64, u128>;

/// One hop from `from`, as Gremlin walks it: `both` reads each side, so
/// a self-loop leads back twice; several labels read each.
fn hop(s: &Snapshot, from: &Ends, dir: &str, labels: &[&str]) -> Ends {
    let sides: &[EdgeDirection] = match dir {
        "out" => &[EdgeDirection::Out],
        "in" => &[EdgeDirection::In],
        _ => &[EdgeDirection::Out, EdgeDirection::In],
    };
    let labels: Vec<Option<&str>> = if labels.is_empty() {
        vec![None]
    } else {
        labels.iter().map(|l| Some(*l)).collect()
    };
    let mut out = Ends::new();
    for (&v, &n) in from {
        for &side in sides {
            for &l in &labels {
                for e in s.edges_of(v, side, l) {
                    let w = if side == EdgeDirection::Out {
                        e.dst
                    } else {
                        e.src
                    };
                    *out.entry(w).or_default() += n;
                }
            }
        }
    }
    out
}

/// Every path's end, listed (ascending).
fn listed(ends: &Ends) -> Vec<u64> {
    ends.iter()
        .flat_map(|(&v, &n)| std::iter::repeat_n(v, n as usize))
        .collect()
}

/// A `groupCount()` result as label -> count.
fn label_counts(got: &[GValue]) -> BTreeMap<String, i64> {
    let [GValue::Map(m)] = got else {
        panic!("groupCount gave {got:?}")
    };
    m.iter()
        .map(|(k, v)| match (k, v) {
            (GValue::String(k), GValue::Int64(c)) => (k.to_string(), *c),
            other => panic!("unexpected entry {other:?}"),
        })
        .collect()
}

fn total(ends: &Ends) -> u128 {
    ends.values().sum()
}

fn starts(n: u64) -> Ends {
    (0..n).map(|v| (v, 1)).collect()
}

/// One hop of a random walk query: its Gremlin text and its plain-Rust
/// meaning.
#[derive(Debug, Clone)]
enum Step {
    Hop(&'static str, Vec<&'static str>),
    HasLabel(&'static str),
    /// `hasLabel(a, b)`.
    HasLabels(&'static str, &'static str),
    AgeBelow(i32),
}

fn step() -> impl Strategy<Value = Step> {
    let labels = prop::collection::vec(prop::sample::select(EDGE_LABELS.to_vec()), 0..3);
    prop_oneof![
        4 => (prop::sample::select(vec!["out", "in", "both"]), labels)
            .prop_map(|(d, l)| Step::Hop(d, l)),
        1 => prop::sample::select(LABELS.to_vec()).prop_map(Step::HasLabel),
        1 => (prop::sample::select(LABELS.to_vec()), prop::sample::select(LABELS.to_vec()))
            .prop_map(|(a, b)| Step::HasLabels(a, b)),
        1 => (0i32..50).prop_map(Step::AgeBelow),
    ]
}

fn text(steps: &[Step]) -> String {
    steps
        .iter()
        .map(|s| match s {
            Step::Hop(d, l) => {
                let l: Vec<String> = l.iter().map(|l| format!("'{l}'")).collect();
                format!(".{d}({})", l.join(","))
            }
            Step::HasLabel(l) => format!(".hasLabel('{l}')"),
            Step::HasLabels(a, b) => format!(".hasLabel('{a}', '{b}')"),
            Step::AgeBelow(a) => format!(".has('age', lt({a}))"),
        })
        .collect()
}

fn walk(s: &Snapshot, mut cur: Ends, steps: &[Step]) -> Ends {
    for st in steps {
        cur = match st {
            Step::Hop(d, l) => hop(s, &cur, d, l),
            Step::HasLabel(l) => cur
                .into_iter()
                .filter(|&(v, _)| s.label(v).as_deref() == Some(*l))
                .collect(),
            Step::HasLabels(a, b) => cur
                .into_iter()
                .filter(|&(v, _)| matches!(s.label(v).as_deref(), Some(l) if l == *a || l == *b))
                .collect(),
            Step::AgeBelow(a) => cur.into_iter().filter(|&(v, _)| age(s, v) < *a).collect(),
        };
    }
    cur
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Runs of hops and vertex filters, as the executor walks them in
    /// bulk (a frontier of vertices and counts), give every path's end:
    /// the same multiset as walking each path, through `count()`, a
    /// `repeat().times()` of the same body, and beside traversers that
    /// keep step labels (which take the ordinary path).
    #[test]
    fn multi_hop_walks_agree_with_plain_rust(
        spec in spec(),
        steps in prop::collection::vec(step(), 2..6),
        times in 1u64..4,
    ) {
        let g = build(&spec);
        let s = g.snapshot();
        let all = starts(spec.vertices.len() as u64);
        let q = text(&steps);
        // Paths are listed only where they are few; counted always.
        const LISTED: u128 = 20_000;

        let expect = walk(&s, all.clone(), &steps);
        prop_assert_eq!(
            run(&g, &format!("g.V(){q}.count()")),
            vec![GValue::Int64(total(&expect) as i64)],
            "g.V(){}.count()", q
        );
        if total(&expect) <= LISTED {
            prop_assert_eq!(ids(&run(&g, &format!("g.V(){q}"))), listed(&expect), "g.V(){}", q);
        }
        let by_label = |ends: &Ends| -> BTreeMap<String, i64> {
            let mut m = BTreeMap::new();
            for (&v, &n) in ends {
                *m.entry(s.label(v).unwrap().to_string()).or_default() += n as i64;
            }
            m
        };
        if total(&expect) <= i64::MAX as u128 {
            prop_assert_eq!(
                label_counts(&run(&g, &format!("g.V(){q}.groupCount().by(label)"))),
                by_label(&expect)
            );
        }
        // One property of every path's end, summed.
        let ages: i64 = expect.iter().map(|(&v, &n)| i64::from(age(&s, v)) * n as i64).sum();
        if total(&expect) <= i64::MAX as u128 / 64 {
            let got = run(&g, &format!("g.V(){q}.values('age').sum()"));
            if total(&expect) == 0 {
                prop_assert!(got.is_empty(), "{:?}", got);
            } else {
                prop_assert_eq!(got.len(), 1);
                prop_assert_eq!(got[0].as_i64(), Some(ages), "g.V(){}.values('age').sum()", q);
            }
        }
        if total(&expect) <= LISTED {
            let mut got: Vec<i64> = run(&g, &format!("g.V(){q}.values('age')"))
                .iter()
                .map(|x| x.as_i64().unwrap())
                .collect();
            got.sort_unstable();
            let mut want: Vec<i64> = listed(&expect).iter().map(|&v| i64::from(age(&s, v))).collect();
            want.sort_unstable();
            prop_assert_eq!(got, want);
        }
        if total(&expect) <= i64::MAX as u128 {
            let mut by_age: BTreeMap<i32, i64> = BTreeMap::new();
            for (&v, &n) in &expect {
                *by_age.entry(age(&s, v)).or_default() += n as i64;
            }
            let got = run(&g, &format!("g.V(){q}.groupCount().by('age')"));
            let [GValue::Map(m)] = got.as_slice() else { panic!("{got:?}") };
            let got: BTreeMap<i32, i64> = m
                .iter()
                .map(|(k, v)| match (k, v) {
                    (GValue::Int32(a), GValue::Int64(c)) => (*a, *c),
                    other => panic!("{other:?}"),
                })
                .collect();
            prop_assert_eq!(got, by_age);
        }
        let distinct: Vec<u64> = expect.keys().copied().collect();
        prop_assert_eq!(ids(&run(&g, &format!("g.V(){q}.dedup()"))), distinct.clone());
        let once: Ends = expect.keys().map(|&v| (v, 1)).collect();
        prop_assert_eq!(
            label_counts(&run(&g, &format!("g.V(){q}.dedup().groupCount().by(label)"))),
            by_label(&once)
        );
        prop_assert_eq!(
            run(&g, &format!("g.V(){q}.dedup().count()")),
            vec![GValue::Int64(distinct.len() as i64)]
        );

        // The body `times` times.
        let mut expect = all.clone();
        for _ in 0..times {
            expect = walk(&s, expect, &steps);
        }
        let body = &q[1..];
        if total(&expect) <= i64::MAX as u128 {
            prop_assert_eq!(
                run(&g, &format!("g.V().repeat({body}).times({times}).count()")),
                vec![GValue::Int64(total(&expect) as i64)],
                "repeat({}).times({})", body, times
            );
        }
        if total(&expect) <= LISTED {
            prop_assert_eq!(ids(&run(&g, &format!("g.V().repeat({body}).times({times})"))), listed(&expect));
        }

        // Half the starts carry a step label, half do not; a dedup after
        // the run sees both kinds.
        let expect = walk(&s, all.clone(), &steps);
        let mixed = format!("g.V().union(identity().as('a'), identity()){q}");
        if total(&expect) * 2 <= LISTED {
            let twice: Ends = expect.iter().map(|(&v, &n)| (v, 2 * n)).collect();
            prop_assert_eq!(ids(&run(&g, &mixed)), listed(&twice));
        }
        prop_assert_eq!(ids(&run(&g, &format!("{mixed}.dedup()"))), distinct.clone());
        prop_assert_eq!(
            run(&g, &format!("{mixed}.dedup().count()")),
            vec![GValue::Int64(distinct.len() as i64)]
        );
        if total(&expect) * 2 <= i64::MAX as u128 {
            let twice: Ends = expect.iter().map(|(&v, &n)| (v, 2 * n)).collect();
            prop_assert_eq!(
                run(&g, &format!("{mixed}.count()")),
                vec![GValue::Int64(total(&twice) as i64)]
            );
            prop_assert_eq!(
                label_counts(&run(&g, &format!("{mixed}.groupCount().by(label)"))),
                by_label(&twice)
            );
            let ages: i64 = twice.iter().map(|(&v, &n)| i64::from(age(&s, v)) * n as i64).sum();
            let got = run(&g, &format!("{mixed}.values('age').sum()"));
            prop_assert_eq!(got.first().and_then(|x| x.as_i64()).unwrap_or(0), ages);
        }
    }
}

/// The number of simple paths (no vertex twice) of 1 to `max` out-edges
/// from `a` to `b`, each parallel edge its own path.
fn simple_paths(s: &Snapshot, a: u64, b: u64, max: usize) -> u64 {
    fn go(s: &Snapshot, path: &mut Vec<u64>, b: u64, max: usize) -> u64 {
        let Some(&v) = path.last() else { return 0 };
        if path.len() > 1 && v == b {
            return 1;
        }
        if path.len() > max {
            return 0;
        }
        let mut n = 0;
        for w in out_of(s, v, None) {
            if !path.contains(&w) {
                path.push(w);
                n += go(s, path, b, max);
                path.pop();
            }
        }
        n
    }
    go(s, &mut vec![a], b, max)
}

/// Out-edges from `a` to `b` by breadth-first search.
fn distance(s: &Snapshot, a: u64, b: u64) -> Option<usize> {
    let mut seen = vec![a];
    let mut level = vec![a];
    for d in 1.. {
        let mut next = Vec::new();
        for &v in &level {
            for w in out_of(s, v, None) {
                if w == b {
                    return Some(d);
                }
                if !seen.contains(&w) {
                    seen.push(w);
                    next.push(w);
                }
            }
        }
        if next.is_empty() {
            return None;
        }
        level = next;
    }
    None
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `repeat(out().simplePath()).until(...)`, the shortest-path idiom,
    /// agrees with a breadth-first search and a count of simple paths.
    #[test]
    fn shortest_and_simple_paths_agree_with_plain_rust(spec in spec(), a in 0usize..24, b in 0usize..24) {
        let g = build(&spec);
        let s = g.snapshot();
        let n = spec.vertices.len();
        let (a, b) = ((a % n) as u64, (b % n) as u64);
        let until = format!("until(hasId({b}).or().loops().is(4))");
        prop_assert_eq!(
            run(&g, &format!("g.V({a}).repeat(out().simplePath()).{until}.hasId({b}).count()")),
            vec![GValue::Int64(simple_paths(&s, a, b, 4) as i64)]
        );
        let got = run(&g, &format!("g.V({a}).repeat(out().simplePath()).{until}.hasId({b}).limit(1).path()"));
        let within = distance(&s, a, b).filter(|&d| d <= 4 && a != b);
        match (within, got.as_slice()) {
            (None, []) => {}
            (Some(d), [GValue::Path(p)]) => {
                let vs: Vec<u64> = p.objects().map(|o| match o {
                    GValue::Vertex(v) => *v,
                    other => panic!("{other}"),
                }).collect();
                prop_assert_eq!(vs.len(), d + 1, "{:?} is not a shortest path", vs);
                prop_assert_eq!((vs[0], vs[d]), (a, b));
                for w in vs.windows(2) {
                    prop_assert!(out_of(&s, w[0], None).contains(&w[1]), "{:?} is not a path", vs);
                }
            }
            (want, got) => prop_assert!(false, "distance {:?}, got {:?}", want, got),
        }
    }
}

/// More starts than one window of the bulk walk, so windows and their
/// merging are crossed; counted against plain Rust.
#[test]
fn a_walk_over_many_windows_counts_every_path() {
    let g = Graph::in_memory(Options::default());
    let n: u64 = 5000;
    let mut tx = g.begin();
    for i in 0..n {
        tx.insert_vertex_with(
            i,
            LABELS[(i % 3) as usize],
            &[("age", Value::Int32((i % 50) as i32))],
        )
        .unwrap();
    }
    // A hub every 500 vertices, and a ring.
    let mut x: u64 = 7;
    for i in 0..n {
        tx.add_edge(i, (i + 1) % n, "knows", &[]).unwrap();
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        tx.add_edge(i, (x >> 33) % n / 500 * 500, "uses", &[])
            .unwrap();
        if i % 97 == 0 {
            tx.add_edge(i, i, "knows", &[]).unwrap();
        }
    }
    tx.commit().unwrap();
    let s = g.snapshot();
    let all = starts(n);
    for (q, steps) in [
        ("out().out().out()", vec![Step::Hop("out", vec![]); 3]),
        (
            "both('knows').in().hasLabel('person').out('uses','knows')",
            vec![
                Step::Hop("both", vec!["knows"]),
                Step::Hop("in", vec![]),
                Step::HasLabel("person"),
                Step::Hop("out", vec!["uses", "knows"]),
            ],
        ),
    ] {
        let expect = walk(&s, all.clone(), &steps);
        assert_eq!(
            run(&g, &format!("g.V().{q}.count()")),
            vec![GValue::Int64(total(&expect) as i64)],
            "{q}"
        );
        assert_eq!(ids(&run(&g, &format!("g.V().{q}"))), listed(&expect), "{q}");
        let distinct: Vec<u64> = expect.keys().copied().collect();
        assert_eq!(
            ids(&run(&g, &format!("g.V().{q}.dedup()"))),
            distinct,
            "{q}"
        );
    }
}

#[test]
fn a_time_limit_stops_a_long_traversal_and_it_writes_nothing() {
    use stratagraph_gremlin::{execute_with, Deadline, Error};
    let g = Graph::in_memory(Options::default());
    let long = "g.addV('x').property(T.id, 1).repeat(identity()).times(900000).count()";
    let limit = std::time::Duration::from_millis(50);
    let got = execute_with(
        &g,
        long,
        &Bindings::new(),
        Some(Deadline::after(limit)),
        |r, _| r,
    );
    match got {
        Err(Error::Timeout { limit: l }) => assert_eq!(l, limit),
        other => panic!("not stopped: {other:?}"),
    }
    assert_eq!(run(&g, "g.V().count()"), vec![GValue::Int64(0)]);
    // The same shape, short, under the same limit, runs and commits.
    let short = "g.addV('x').property(T.id, 1).repeat(identity()).times(10).count()";
    let got = execute_with(
        &g,
        short,
        &Bindings::new(),
        Some(Deadline::after(limit * 100)),
        |r, _| r,
    );
    assert_eq!(got.unwrap(), vec![GValue::Int64(1)]);
    assert_eq!(run(&g, "g.V().count()"), vec![GValue::Int64(1)]);
}

#[test]
fn a_failing_traversal_writes_nothing() {
    let g = Graph::in_memory(Options::default());
    run(
        &g,
        "g.addV('person').property(T.id, 1).property('name', 'marko')",
    );
    let err = execute(
        &g,
        "g.addV('person').property('name', 'x').fail('stop')",
        &Bindings::new(),
    );
    assert!(err.is_err());
    assert_eq!(run(&g, "g.V().count()"), vec![GValue::Int64(1)]);
    assert_eq!(run(&g, "g.V(1).values('name')"), vec![GValue::str("marko")]);
}
