//! Bytecode into gremlin-lang (`stratagraph_server::translate`).
//!
//! - Unit cases: each literal kind and construct has its exact expected
//!   text, which `stratagraph_gremlin::parse` must accept; literals are also
//!   run (`g.inject(x)`) to check that each keeps its type.
//! - Vectors: `tests/vectors/bytecode.txt` holds the bytecode gremlinpython
//!   3.8.2 sends for some hundred traversals (made by
//!   `tests/vectors/make_bytecode.py`), each with the same traversal written
//!   by hand in gremlin-lang. Each is decoded, translated, and both texts
//!   run on fresh copies of TinkerPop's modern graph (read from
//!   `../shared/tinkerpop/data`): their results, and the graphs after them,
//!   must be the same.
//! - Fuzzing: random `Wire` trees and bytecodes translate to `Ok` or `Err`,
//!   never a panic, and well-formed ones always to text the parser accepts.

#![allow(clippy::unwrap_used)] // tests fail loudly by design

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use stratagraph::{DateTime, Graph, Options, Value};
use stratagraph_gremlin::ast::Query;
use stratagraph_gremlin::{execute, Bindings, GValue};
use stratagraph_server::translate::{
    is_tx, to_gremlin_lang, Location, Part, Site, TranslateError, TxOp,
};
use stratagraph_server::wire::{
    graphbinary, Bytecode, Edge, EnumKind, Instruction, LocalDate, LocalDateTime, OffsetDateTime,
    Vertex, VertexProperty, Wire,
};

// ---- builders -----------------------------------------------------------------

fn ins(operator: &str, args: Vec<Wire>) -> Instruction {
    Instruction {
        operator: operator.to_owned(),
        args,
    }
}

/// Bytecode of `steps` with no source instructions.
fn steps(steps: Vec<(&str, Vec<Wire>)>) -> Bytecode {
    Bytecode {
        steps: steps.into_iter().map(|(o, a)| ins(o, a)).collect(),
        sources: Vec::new(),
    }
}

fn with_sources(sources: Vec<(&str, Vec<Wire>)>, mut bc: Bytecode) -> Bytecode {
    bc.sources = sources.into_iter().map(|(o, a)| ins(o, a)).collect();
    bc
}

fn anon(s: Vec<(&str, Vec<Wire>)>) -> Wire {
    Wire::Bytecode(Box::new(steps(s)))
}

fn s(x: &str) -> Wire {
    Wire::String(x.to_owned())
}

fn token(kind: EnumKind, name: &str) -> Wire {
    Wire::token(kind, name)
}

fn p(name: &str, values: Vec<Wire>) -> Wire {
    Wire::P {
        name: name.to_owned(),
        values,
    }
}

fn textp(name: &str, values: Vec<Wire>) -> Wire {
    Wire::TextP {
        name: name.to_owned(),
        values,
    }
}

fn vertex(id: Wire) -> Wire {
    Wire::Vertex(Box::new(Vertex {
        id,
        label: "person".into(),
        properties: Vec::new(),
    }))
}

fn edge(id: Wire) -> Wire {
    Wire::Edge(Box::new(Edge {
        id,
        label: "knows".into(),
        in_v_id: Wire::Long(2),
        in_v_label: "person".into(),
        out_v_id: Wire::Long(1),
        out_v_label: "person".into(),
        properties: Vec::new(),
    }))
}

fn strategy(simple: &str, config: Vec<(&str, Wire)>) -> Wire {
    let package = match simple {
        "ReadOnlyStrategy" => "verification",
        _ => "decoration",
    };
    Wire::TraversalStrategy {
        class: format!(
            "org.apache.tinkerpop.gremlin.process.traversal.strategy.{package}.{simple}"
        ),
        config: config.into_iter().map(|(k, v)| (s(k), v)).collect(),
    }
}

fn inject(w: Wire) -> Bytecode {
    steps(vec![("inject", vec![w])])
}

const UUID_BYTES: [u8; 16] = [
    0x61, 0x00, 0x80, 0x8b, 0x62, 0xf9, 0x42, 0xb7, 0x95, 0x7e, 0xed, 0x66, 0xc3, 0x0f, 0x40, 0xd1,
];

const ODT: OffsetDateTime = OffsetDateTime {
    date_time: LocalDateTime {
        date: LocalDate {
            year: 2007,
            month: 12,
            day: 3,
        },
        nanos_of_day: (10 * 3600 + 15 * 60 + 30) * 1_000_000_000 + 123_456_000,
    },
    offset_seconds: 3600,
};

// ---- checks -------------------------------------------------------------------

/// Translates `bc`, checks the text, and that the parser accepts it.
#[track_caller]
fn check(bc: &Bytecode, expected: &str) {
    let text = match to_gremlin_lang(bc) {
        Ok(t) => t,
        Err(e) => panic!("translation failed: {e}\nbytecode: {bc:?}"),
    };
    assert_eq!(text, expected);
    if let Err(e) = stratagraph_gremlin::parse(&text) {
        panic!("the parser refused {text}: {e}");
    }
}

#[track_caller]
fn check_inject(w: Wire, literal: &str) {
    check(&inject(w), &format!("g.inject({literal})"));
}

#[track_caller]
fn refused(bc: &Bytecode) -> TranslateError {
    match to_gremlin_lang(bc) {
        Ok(t) => panic!("expected an error, got {t}"),
        Err(e) => e,
    }
}

fn site(part: Part, index: usize, operator: &str, argument: Option<usize>) -> Site {
    Site {
        part,
        index,
        operator: operator.to_owned(),
        argument,
    }
}

fn empty_graph() -> Graph {
    Graph::in_memory(Options {
        threads: 1,
        ..Options::default()
    })
}

fn run(g: &Graph, text: &str) -> Result<Vec<GValue>, String> {
    execute(g, text, &Bindings::new()).map_err(|e| e.to_string())
}

fn date(seconds: i64, nanos: u32, offset_seconds: i32) -> GValue {
    GValue::Date(DateTime {
        seconds,
        nanos,
        offset_seconds,
    })
}

// ---- literals -----------------------------------------------------------------

/// Each literal: the wire value, its text, and what `g.inject(text)` gives.
fn literals() -> Vec<(Wire, &'static str, GValue)> {
    use GValue as G;
    use Wire as W;
    let long_string = "a\"b\\c\n\r\t\u{8}\u{c}\u{1}\u{7f}\u{85}é😀'";
    vec![
        (W::Null, "null", G::Null),
        (W::Bool(true), "true", G::Bool(true)),
        (W::Bool(false), "false", G::Bool(false)),
        (W::Byte(-128), "-128b", G::Int8(-128)),
        (W::Byte(127), "127b", G::Int8(127)),
        (W::Short(i16::MIN), "-32768s", G::Int16(i16::MIN)),
        (W::Short(7), "7s", G::Int16(7)),
        (W::Int(i32::MIN), "-2147483648", G::Int32(i32::MIN)),
        (W::Int(i32::MAX), "2147483647", G::Int32(i32::MAX)),
        (W::Long(5), "5L", G::Int64(5)),
        (
            W::Long(i64::MIN),
            "-9223372036854775808L",
            G::Int64(i64::MIN),
        ),
        (
            W::BigInteger(i128::MAX),
            "170141183460469231731687303715884105727n",
            G::BigInt(i128::MAX),
        ),
        (
            W::BigInteger(i128::MIN),
            "-170141183460469231731687303715884105728n",
            G::BigInt(i128::MIN),
        ),
        (W::BigInteger(0), "0n", G::BigInt(0)),
        (W::Float(1.5), "1.5f", G::Float32(1.5)),
        (W::Float(0.1), "0.1f", G::Float32(0.1)),
        (
            W::Float(-3.4028235e38),
            "-3.4028235e38f",
            G::Float32(f32::MIN),
        ),
        (W::Float(f32::INFINITY), "1e39f", G::Float32(f32::INFINITY)),
        (
            W::Float(f32::NEG_INFINITY),
            "-1e39f",
            G::Float32(f32::NEG_INFINITY),
        ),
        // No `Float` NaN literal: it becomes a `Double` NaN.
        (W::Float(f32::NAN), "NaN", G::Float64(f64::NAN)),
        (W::Double(1.5), "1.5d", G::Float64(1.5)),
        (W::Double(100.0), "100.0d", G::Float64(100.0)),
        (W::Double(0.1), "0.1d", G::Float64(0.1)),
        (W::Double(1e300), "1e300d", G::Float64(1e300)),
        (W::Double(1e16), "1e16d", G::Float64(1e16)),
        (W::Double(-0.0), "-0.0d", G::Float64(-0.0)),
        (W::Double(5e-324), "5e-324d", G::Float64(5e-324)),
        (W::Double(f64::NAN), "NaN", G::Float64(f64::NAN)),
        (
            W::Double(f64::INFINITY),
            "Infinity",
            G::Float64(f64::INFINITY),
        ),
        (
            W::Double(f64::NEG_INFINITY),
            "-Infinity",
            G::Float64(f64::NEG_INFINITY),
        ),
        (
            W::BigDecimal {
                scale: 2,
                unscaled: 150,
            },
            "1.50m",
            G::BigDecimal(1.5),
        ),
        (
            W::BigDecimal {
                scale: 0,
                unscaled: -7,
            },
            "-7m",
            G::BigDecimal(-7.0),
        ),
        (
            W::BigDecimal {
                scale: 3,
                unscaled: 5,
            },
            "0.005m",
            G::BigDecimal(0.005),
        ),
        (
            W::BigDecimal {
                scale: 3,
                unscaled: -5,
            },
            "-0.005m",
            G::BigDecimal(-0.005),
        ),
        (
            W::BigDecimal {
                scale: -3,
                unscaled: 12,
            },
            "12e3m",
            G::BigDecimal(12000.0),
        ),
        (
            W::BigDecimal {
                scale: 100,
                unscaled: 15,
            },
            "15e-100m",
            G::BigDecimal(15e-100),
        ),
        (s("plain"), "\"plain\"", G::str("plain")),
        (s(""), "\"\"", G::str("")),
        (
            s(long_string),
            "\"a\\\"b\\\\c\\n\\r\\t\\b\\f\\u0001\\u007f\\u0085é😀'\"",
            G::str(long_string),
        ),
        // No character literal: a one-character string.
        (W::Char('x'), "\"x\"", G::str("x")),
        (W::Char('"'), "\"\\\"\"", G::str("\"")),
        (
            W::Uuid(UUID_BYTES),
            "UUID(\"6100808b-62f9-42b7-957e-ed66c30f40d1\")",
            G::Uuid(UUID_BYTES),
        ),
        (
            W::Date(1_480_000_000_123),
            "datetime(\"2016-11-24T15:06:40.123Z\")",
            date(1_480_000_000, 123_000_000, 0),
        ),
        (
            W::Date(-1),
            "datetime(\"1969-12-31T23:59:59.999Z\")",
            date(-1, 999_000_000, 0),
        ),
        (
            W::Timestamp(0),
            "datetime(\"1970-01-01T00:00:00Z\")",
            date(0, 0, 0),
        ),
        (
            W::Instant {
                seconds: 0,
                nanos: 5,
            },
            "datetime(\"1970-01-01T00:00:00.000000005Z\")",
            date(0, 5, 0),
        ),
        (
            W::OffsetDateTime(ODT),
            "datetime(\"2007-12-03T10:15:30.123456+01:00\")",
            date(1_196_673_330, 123_456_000, 3600),
        ),
        // An offset with seconds, which the executor cuts to minutes: the
        // same instant in UTC.
        (
            W::OffsetDateTime(OffsetDateTime {
                offset_seconds: 3630,
                ..ODT
            }),
            "datetime(\"2007-12-03T09:15:00.123456Z\")",
            date(1_196_673_300, 123_456_000, 0),
        ),
        (
            W::OffsetDateTime(OffsetDateTime {
                offset_seconds: -59,
                ..ODT
            }),
            "datetime(\"2007-12-03T10:16:29.123456Z\")",
            date(1_196_676_989, 123_456_000, 0),
        ),
        (
            W::ZonedDateTime(ODT),
            "datetime(\"2007-12-03T10:15:30.123456+01:00\")",
            date(1_196_673_330, 123_456_000, 3600),
        ),
        (
            W::List(vec![W::Int(1), s("a"), W::List(vec![W::Long(2)])]),
            "[1, \"a\", [2L]]",
            G::list(vec![G::Int32(1), G::str("a"), G::list(vec![G::Int64(2)])]),
        ),
        (W::List(vec![]), "[]", G::list(vec![])),
        (
            W::Set(vec![W::Int(1), W::Int(2)]),
            "{1, 2}",
            G::set(vec![G::Int32(1), G::Int32(2)]),
        ),
        (W::Set(vec![]), "{}", G::set(vec![])),
        (W::Map(vec![]), "[:]", G::map(vec![])),
        (
            W::Map(vec![
                (s("a"), W::Int(1)),
                (W::Int(2), s("b")),
                (W::Long(-3), W::Null),
                (W::Double(1.5), W::Byte(1)),
                (token(EnumKind::T, "id"), W::Long(3)),
                (W::Bool(true), W::Short(1)),
                (W::Double(f64::NAN), W::Int(0)),
                (W::List(vec![W::Int(1)]), W::Int(1)),
                (W::Null, W::Int(5)),
                (s("m"), W::Map(vec![(s("n"), W::Set(vec![W::Int(1)]))])),
            ]),
            "[\"a\": 1, 2: \"b\", -3L: null, 1.5d: 1b, (T.id): 3L, (true): 1s, (NaN): 0, \
             ([1]): 1, (null): 5, \"m\": [\"n\": {1}]]",
            G::map(vec![
                (G::str("a"), G::Int32(1)),
                (G::Int32(2), G::str("b")),
                (G::Int64(-3), G::Null),
                (G::Float64(1.5), G::Int8(1)),
                (G::T(stratagraph_gremlin::ast::TToken::Id), G::Int64(3)),
                (G::Bool(true), G::Int16(1)),
                (G::Float64(f64::NAN), G::Int32(0)),
                (G::list(vec![G::Int32(1)]), G::Int32(1)),
                (G::Null, G::Int32(5)),
                (
                    G::str("m"),
                    G::map(vec![(G::str("n"), G::set(vec![G::Int32(1)]))]),
                ),
            ]),
        ),
        // A binding is its value.
        (
            W::Binding {
                key: "x".into(),
                value: Box::new(W::Long(9)),
            },
            "9L",
            G::Int64(9),
        ),
    ]
}

#[test]
fn literals_have_their_text_and_keep_their_type() {
    let g = empty_graph();
    for (wire, text, expected) in literals() {
        check_inject(wire.clone(), text);
        let query = format!("g.inject({text})");
        let got = run(&g, &query).unwrap_or_else(|e| panic!("{query}: {e}"));
        assert_eq!(
            format!("{got:?}"),
            format!("{:?}", vec![expected]),
            "{query} (from {wire:?})"
        );
    }
}

#[test]
fn values_without_a_literal_are_refused() {
    use Wire as W;
    let refusals = [
        W::Lambda {
            language: "gremlin-groovy".into(),
            script: "it.get()".into(),
            arguments: 1,
        },
        W::ByteBuffer(vec![1, 2]),
        W::InetAddress(std::net::IpAddr::from([127, 0, 0, 1])),
        W::LocalDate(LocalDate {
            year: 2020,
            month: 1,
            day: 1,
        }),
        W::Duration {
            seconds: 1,
            nanos: 0,
        },
        W::Year(2020),
        W::VertexProperty(Box::new(VertexProperty {
            id: W::Long(1),
            label: "name".into(),
            value: s("marko"),
            properties: Vec::new(),
        })),
        W::Traverser {
            bulk: 1,
            value: Box::new(W::Int(1)),
        },
        W::Custom {
            name: "x".into(),
            type_info: vec![],
            blob: vec![],
        },
        W::Class("org.x.ReadOnlyStrategy".into()),
        strategy("ReadOnlyStrategy", vec![]),
    ];
    for w in refusals {
        // Deep inside a list inside a map, it is still found and named.
        let nested = Wire::List(vec![Wire::Int(1), Wire::Map(vec![(s("k"), w.clone())])]);
        for arg in [w.clone(), nested] {
            let e = refused(&steps(vec![("V", vec![]), ("constant", vec![arg])]));
            assert!(
                matches!(e, TranslateError::Unsupported { .. }),
                "{w:?}: {e:?}"
            );
            assert_eq!(
                e.location(),
                &Location(vec![site(Part::Step, 1, "constant", Some(0))]),
                "{e}"
            );
        }
    }
    let lambda = refused(&inject(Wire::Lambda {
        language: "gremlin-groovy".into(),
        script: "x -> x".into(),
        arguments: 1,
    }));
    assert!(
        lambda.what().starts_with("lambdas are not supported"),
        "{lambda}"
    );
    assert_eq!(
        lambda.to_string(),
        "step 0 (\"inject\"), argument 0: lambdas are not supported: gremlin-lang has none \
         (a gremlin-groovy lambda \"x -> x\")"
    );
}

#[test]
fn invalid_dates_are_refused() {
    let mut bad = ODT;
    bad.date_time.date.month = 13;
    let e = refused(&inject(Wire::OffsetDateTime(bad)));
    assert!(matches!(e, TranslateError::Invalid { .. }), "{e}");
    let e = refused(&inject(Wire::Instant {
        seconds: 0,
        nanos: -1,
    }));
    assert!(matches!(e, TranslateError::Invalid { .. }), "{e}");
    // Every millisecond count is a date that can be written.
    for ms in [i64::MIN, i64::MAX] {
        let text = to_gremlin_lang(&inject(Wire::Date(ms))).unwrap();
        stratagraph_gremlin::parse(&text).unwrap();
    }
}

// ---- enums, predicates, traversals --------------------------------------------

#[test]
fn enums_are_qualified() {
    let tokens: &[(EnumKind, &[&str])] = &[
        (EnumKind::T, &["id", "label", "key", "value"]),
        (EnumKind::Direction, &["OUT", "IN", "BOTH"]),
        (EnumKind::Order, &["asc", "desc", "shuffle"]),
        (EnumKind::Pop, &["first", "last", "all", "mixed"]),
        (EnumKind::Scope, &["global", "local"]),
        (EnumKind::Cardinality, &["single", "list", "set"]),
        (EnumKind::Column, &["keys", "values"]),
        (
            EnumKind::Operator,
            &[
                "sum", "minus", "mult", "div", "min", "max", "assign", "and", "or", "addAll",
                "sumLong",
            ],
        ),
        (EnumKind::Pick, &["any", "none", "unproductive"]),
        (EnumKind::Barrier, &["normSack"]),
        (EnumKind::Merge, &["onCreate", "onMatch", "outV", "inV"]),
        (EnumKind::DT, &["second", "minute", "hour", "day"]),
        (
            EnumKind::GType,
            &["INT", "LONG", "STRING", "BIGDECIMAL", "VPROPERTY"],
        ),
    ];
    for (kind, names) in tokens {
        for name in *names {
            let expected = format!("{}.{name}", kind.name());
            check_inject(token(*kind, name), &expected);
        }
    }
    check(
        &steps(vec![
            ("V", vec![]),
            ("order", vec![]),
            ("by", vec![s("age"), token(EnumKind::Order, "desc")]),
        ]),
        "g.V().order().by(\"age\", Order.desc)",
    );
    let e = refused(&inject(token(EnumKind::T, "id).drop(")));
    assert!(matches!(e, TranslateError::Invalid { .. }), "{e}");
}

#[test]
fn predicates() {
    use Wire as W;
    let has = |pred: Wire| steps(vec![("V", vec![]), ("has", vec![s("age"), pred])]);
    let cases = [
        (p("gt", vec![W::Int(1)]), "P.gt(1)"),
        (p("between", vec![W::Int(1), W::Int(5)]), "P.between(1, 5)"),
        (
            p("within", vec![W::Int(1), W::Int(2), W::Int(3)]),
            "P.within(1, 2, 3)",
        ),
        (p("within", vec![]), "P.within()"),
        (
            p("within", vec![W::List(vec![W::Int(1), W::Int(2)])]),
            "P.within([1, 2])",
        ),
        (p("without", vec![s("a")]), "P.without(\"a\")"),
        // A list value spread into the arguments is one list again.
        (p("eq", vec![W::Int(1), W::Int(2)]), "P.eq([1, 2])"),
        (p("neq", vec![]), "P.neq([])"),
        (
            p(
                "and",
                vec![p("gt", vec![W::Int(1)]), p("lt", vec![W::Int(5)])],
            ),
            "P.gt(1).and(P.lt(5))",
        ),
        (
            p(
                "and",
                vec![
                    p("gt", vec![W::Int(1)]),
                    p("lt", vec![W::Int(5)]),
                    p("neq", vec![W::Int(3)]),
                ],
            ),
            "P.gt(1).and(P.lt(5)).and(P.neq(3))",
        ),
        (
            p(
                "or",
                vec![
                    p(
                        "and",
                        vec![p("gt", vec![W::Int(1)]), p("lt", vec![W::Int(5)])],
                    ),
                    p("eq", vec![W::Int(9)]),
                ],
            ),
            "P.gt(1).and(P.lt(5)).or(P.eq(9))",
        ),
        (
            p(
                "and",
                vec![
                    p("gt", vec![W::Int(1)]),
                    p(
                        "or",
                        vec![p("lt", vec![W::Int(5)]), p("eq", vec![W::Int(9)])],
                    ),
                ],
            ),
            "P.gt(1).and(P.lt(5).or(P.eq(9)))",
        ),
        (p("not", vec![p("eq", vec![W::Int(1)])]), "P.not(P.eq(1))"),
        (
            p("typeOf", vec![token(EnumKind::GType, "INT")]),
            "P.typeOf(GType.INT)",
        ),
        (textp("containing", vec![s("x")]), "TextP.containing(\"x\")"),
        (
            p(
                "or",
                vec![
                    textp("startingWith", vec![s("m")]),
                    textp("endingWith", vec![s("h")]),
                ],
            ),
            "TextP.startingWith(\"m\").or(TextP.endingWith(\"h\"))",
        ),
        (
            p(
                "not",
                vec![Wire::Binding {
                    key: "b".into(),
                    value: Box::new(textp("regex", vec![s("^a")])),
                }],
            ),
            "P.not(TextP.regex(\"^a\"))",
        ),
    ];
    for (pred, text) in cases {
        check(&has(pred), &format!("g.V().has(\"age\", {text})"));
    }
    for bad in [
        p("and", vec![p("gt", vec![W::Int(1)])]),
        p("or", vec![p("gt", vec![W::Int(1)]), W::Int(2)]),
        p("not", vec![W::Int(1)]),
        p("gt(1)).drop(", vec![]),
        textp("", vec![]),
    ] {
        let e = refused(&has(bad.clone()));
        assert!(matches!(e, TranslateError::Invalid { .. }), "{bad:?}: {e}");
        assert_eq!(
            e.location(),
            &Location(vec![site(Part::Step, 1, "has", Some(1))])
        );
    }
}

#[test]
fn predicates_run_as_written() {
    // The same filters, written by hand and translated, select the same
    // values.
    let g = empty_graph();
    let data = "g.inject(1, 2, 3, 4, 5, 6)";
    let cases = [
        (
            p(
                "and",
                vec![p("gt", vec![Wire::Int(1)]), p("lt", vec![Wire::Int(5)])],
            ),
            "gt(1).and(lt(5))",
        ),
        (
            p(
                "or",
                vec![
                    p(
                        "and",
                        vec![p("gt", vec![Wire::Int(1)]), p("lt", vec![Wire::Int(5)])],
                    ),
                    p("eq", vec![Wire::Int(6)]),
                ],
            ),
            "gt(1).and(lt(5)).or(eq(6))",
        ),
        (
            p(
                "and",
                vec![
                    p("gt", vec![Wire::Int(1)]),
                    p(
                        "or",
                        vec![p("lt", vec![Wire::Int(3)]), p("eq", vec![Wire::Int(6)])],
                    ),
                ],
            ),
            "gt(1).and(lt(3).or(eq(6)))",
        ),
        (
            p("not", vec![p("within", vec![Wire::Int(2), Wire::Int(4)])]),
            "without(2, 4)",
        ),
        (
            p("between", vec![Wire::Int(2), Wire::Int(4)]),
            "gte(2).and(lt(4))",
        ),
    ];
    for (pred, hand) in cases {
        let bc = steps(vec![
            ("inject", (1..=6).map(Wire::Int).collect()),
            ("is", vec![pred]),
        ]);
        let text = to_gremlin_lang(&bc).unwrap();
        let hand = format!("{data}.is({hand})");
        assert_eq!(
            format!("{:?}", run(&g, &text)),
            format!("{:?}", run(&g, &hand)),
            "{text} against {hand}"
        );
    }
}

#[test]
fn nested_traversals() {
    check(
        &steps(vec![
            ("V", vec![]),
            ("where", vec![anon(vec![("out", vec![s("knows")])])]),
            (
                "union",
                vec![
                    anon(vec![("in", vec![])]),
                    anon(vec![("out", vec![]), ("has", vec![s("name"), s("x")])]),
                ],
            ),
            ("map", vec![anon(vec![])]),
        ]),
        "g.V().where(__.out(\"knows\")).union(__.in(), __.out().has(\"name\", \"x\")).map(__.identity())",
    );
    // gremlinpython's CardinalityValue.
    let card = |name: &str, v: Wire| {
        Wire::Bytecode(Box::new(with_sources(
            vec![(
                "CardinalityValueTraversal",
                vec![token(EnumKind::Cardinality, name), v],
            )],
            Bytecode::default(),
        )))
    };
    check(
        &steps(vec![
            ("mergeV", vec![Wire::Map(vec![(s("name"), s("x"))])]),
            (
                "option",
                vec![
                    token(EnumKind::Merge, "onMatch"),
                    Wire::Map(vec![
                        (s("age"), card("single", Wire::Int(3))),
                        (s("nick"), card("list", s("y"))),
                    ]),
                ],
            ),
        ]),
        "g.mergeV([\"name\": \"x\"]).option(Merge.onMatch, [\"age\": Cardinality.single(3), \
         \"nick\": Cardinality.list(\"y\")])",
    );
    // A traversal spawned from a source is refused, where it stands.
    let spawned = Wire::Bytecode(Box::new(with_sources(
        vec![("withSack", vec![Wire::Int(1)])],
        steps(vec![("V", vec![])]),
    )));
    let e = refused(&steps(vec![("V", vec![]), ("where", vec![spawned])]));
    assert!(matches!(e, TranslateError::Invalid { .. }), "{e}");
    assert_eq!(
        e.location(),
        &Location(vec![site(Part::Step, 1, "where", Some(0))])
    );
    // An error inside a nested traversal names the way down to it.
    let lambda = Wire::Lambda {
        language: "gremlin-groovy".into(),
        script: "it".into(),
        arguments: -1,
    };
    let e = refused(&steps(vec![
        ("V", vec![]),
        (
            "where",
            vec![anon(vec![
                ("out", vec![]),
                (
                    "filter",
                    vec![anon(vec![("map", vec![Wire::Int(1), lambda])])],
                ),
            ])],
        ),
    ]));
    assert_eq!(
        e.location(),
        &Location(vec![
            site(Part::Step, 1, "where", Some(0)),
            site(Part::Step, 1, "filter", Some(0)),
            site(Part::Step, 0, "map", Some(1)),
        ])
    );
    assert!(
        e.to_string().starts_with(
            "step 1 (\"where\"), argument 0 > step 1 (\"filter\"), argument 0 > \
             step 0 (\"map\"), argument 1: lambdas are not supported"
        ),
        "{e}"
    );
}

#[test]
fn elements_stand_for_ids_or_lookups() {
    use Wire as W;
    check(&steps(vec![("V", vec![vertex(W::Long(1))])]), "g.V(1L)");
    check(
        &steps(vec![(
            "V",
            vec![W::List(vec![vertex(W::Long(1)), vertex(s("k"))])],
        )]),
        "g.V([1L, \"k\"])",
    );
    check(
        &steps(vec![("E", vec![edge(W::Long(7)), edge(W::Int(8))])]),
        "g.E(7L, 8)",
    );
    check(
        &steps(vec![
            ("V", vec![]),
            (
                "hasId",
                vec![p("within", vec![vertex(W::Long(1)), vertex(W::Long(2))])],
            ),
        ]),
        "g.V().hasId(P.within(1L, 2L))",
    );
    check(
        &steps(vec![
            (
                "V",
                vec![W::Binding {
                    key: "v".into(),
                    value: Box::new(vertex(W::Long(3))),
                }],
            ),
            ("out", vec![]),
        ]),
        "g.V(3L).out()",
    );
    check(
        &steps(vec![
            ("addE", vec![s("knows")]),
            ("from", vec![vertex(W::Long(1))]),
            ("to", vec![vertex(s("a"))]),
        ]),
        "g.addE(\"knows\").from(__.V(1L)).to(__.V(\"a\"))",
    );
    check(
        &steps(vec![
            ("V", vec![]),
            ("path", vec![]),
            ("from", vec![s("a")]),
            ("to", vec![s("b")]),
        ]),
        "g.V().path().from(\"a\").to(\"b\")",
    );
    check(
        &steps(vec![(
            "mergeE",
            vec![W::Map(vec![
                (token(EnumKind::T, "label"), s("knows")),
                (token(EnumKind::Direction, "OUT"), vertex(W::Long(1))),
                (token(EnumKind::Direction, "IN"), vertex(W::Long(2))),
            ])],
        )]),
        "g.mergeE([(T.label): \"knows\", (Direction.OUT): 1L, (Direction.IN): 2L])",
    );
    // Anywhere else, an element is refused rather than replaced.
    for bc in [
        inject(vertex(W::Long(1))),
        steps(vec![("V", vec![]), ("is", vec![vertex(W::Long(1))])]),
        steps(vec![
            ("V", vec![]),
            ("is", vec![p("eq", vec![vertex(W::Long(1))])]),
        ]),
        steps(vec![("addE", vec![s("x")]), ("to", vec![edge(W::Long(1))])]),
        steps(vec![
            ("addE", vec![s("x")]),
            ("to", vec![W::List(vec![vertex(W::Long(1))])]),
        ]),
        steps(vec![
            ("V", vec![]),
            ("property", vec![s("x"), vertex(W::Long(1))]),
        ]),
        inject(W::Map(vec![(s("OUT"), vertex(W::Long(1)))])),
    ] {
        let e = refused(&bc);
        assert!(
            matches!(e, TranslateError::Unsupported { .. }),
            "{bc:?}: {e}"
        );
    }
}

#[test]
fn elements_run_as_their_lookups() {
    // g.V(v).out() and addE().from(v).to(v) on the modern graph, against the
    // same written by hand.
    let cases = [
        (
            steps(vec![
                ("V", vec![vertex(Wire::Long(1))]),
                ("out", vec![s("knows")]),
                ("values", vec![s("name")]),
            ]),
            "g.V(1).out('knows').values('name')",
        ),
        (
            steps(vec![
                ("addE", vec![s("likes")]),
                ("from", vec![vertex(Wire::Long(2))]),
                ("to", vec![vertex(Wire::Long(5))]),
                ("inV", vec![]),
                ("values", vec![s("name")]),
            ]),
            "g.V(2).addE('likes').to(__.V(5)).inV().values('name')",
        ),
    ];
    for (bc, hand) in cases {
        let text = to_gremlin_lang(&bc).unwrap();
        let (a, b) = (modern(), modern());
        let got = run(&a, &text);
        assert!(got.as_ref().is_ok_and(|r| !r.is_empty()), "{text}: {got:?}");
        assert_eq!(format!("{got:?}"), format!("{:?}", run(&b, hand)), "{text}");
    }
}

#[test]
fn sources_and_strategies() {
    use Wire as W;
    let v = || steps(vec![("V", vec![])]);
    check(
        &with_sources(
            vec![
                ("withSideEffect", vec![s("a"), W::List(vec![W::Int(1)])]),
                (
                    "withSack",
                    vec![W::Double(1.0), token(EnumKind::Operator, "sum")],
                ),
                ("withBulk", vec![W::Bool(false)]),
                ("withPath", vec![]),
                ("with", vec![s("x")]),
            ],
            v(),
        ),
        "g.withSideEffect(\"a\", [1]).withSack(1.0d, Operator.sum).withBulk(false).withPath()\
         .with(\"x\").V()",
    );
    check(
        &with_sources(
            vec![(
                "withStrategies",
                vec![strategy(
                    "SubgraphStrategy",
                    vec![
                        ("vertices", anon(vec![("hasLabel", vec![s("person")])])),
                        ("checkAdjacentVertices", W::Bool(false)),
                    ],
                )],
            )],
            v(),
        ),
        "g.withStrategies(new SubgraphStrategy(vertices: __.hasLabel(\"person\"), \
         checkAdjacentVertices: false)).V()",
    );
    // OptionsStrategy is what g.with(k, v) sends: it goes back to with().
    check(
        &with_sources(
            vec![(
                "withStrategies",
                vec![
                    strategy("ReadOnlyStrategy", vec![]),
                    strategy(
                        "OptionsStrategy",
                        vec![
                            ("evaluationTimeout", W::Int(500)),
                            ("~odd key", W::Bool(true)),
                        ],
                    ),
                    strategy(
                        "PartitionStrategy",
                        vec![
                            ("partitionKey", s("_p")),
                            ("readPartitions", W::Set(vec![s("a")])),
                        ],
                    ),
                ],
            )],
            v(),
        ),
        "g.withStrategies(ReadOnlyStrategy, new PartitionStrategy(partitionKey: \"_p\", \
         readPartitions: {\"a\"})).with(\"evaluationTimeout\", 500).with(\"~odd key\", true).V()",
    );
    check(
        &with_sources(
            vec![(
                "withStrategies",
                vec![strategy("OptionsStrategy", vec![("x", W::Int(1))])],
            )],
            v(),
        ),
        "g.with(\"x\", 1).V()",
    );
    check(
        &with_sources(
            vec![(
                "withoutStrategies",
                vec![
                    W::Class(
                        "org.apache.tinkerpop.gremlin.process.traversal.strategy.verification.ReadOnlyStrategy"
                            .into(),
                    ),
                    s("CountStrategy"),
                ],
            )],
            v(),
        ),
        "g.withoutStrategies(ReadOnlyStrategy, CountStrategy).V()",
    );
    // A bare source.
    check(
        &with_sources(vec![("withPath", vec![])], Bytecode::default()),
        "g.withPath()",
    );
    check(&Bytecode::default(), "g");

    let bad = [
        (
            "withStrategies",
            vec![strategy("SubgraphStrategy", vec![]), s("x")],
            Some(1),
        ),
        (
            "withStrategies",
            vec![strategy("SubgraphStrategy", vec![("not a key", W::Int(1))])],
            Some(0),
        ),
        (
            "withStrategies",
            vec![Wire::TraversalStrategy {
                class: "a.b.Not A Class".into(),
                config: vec![],
            }],
            Some(0),
        ),
        ("withoutStrategies", vec![W::Int(1)], Some(0)),
        ("withoutStrategies", vec![W::Class("".into())], Some(0)),
        ("with space", vec![], None),
    ];
    for (op, args, argument) in bad {
        let e = refused(&with_sources(vec![(op, args)], v()));
        assert_eq!(
            e.location(),
            &Location(vec![site(Part::Source, 0, op, argument)]),
            "{e}"
        );
    }
}

#[test]
fn transactions() {
    let tx = |arg: Wire| with_sources(vec![("tx", vec![arg])], Bytecode::default());
    assert_eq!(is_tx(&tx(s("commit"))), Some(TxOp::Commit));
    assert_eq!(is_tx(&tx(s("rollback"))), Some(TxOp::Rollback));
    check(&tx(s("commit")), "g.tx().commit()");
    check(&tx(s("rollback")), "g.tx().rollback()");
    assert!(matches!(
        stratagraph_gremlin::parse("g.tx().commit()"),
        Ok(Query::Tx { .. })
    ));
    for not_tx in [
        tx(s("begin")),
        tx(Wire::Int(1)),
        with_sources(vec![("tx", vec![s("commit")])], steps(vec![("V", vec![])])),
        with_sources(
            vec![("withPath", vec![]), ("tx", vec![s("commit")])],
            Bytecode::default(),
        ),
    ] {
        assert_eq!(is_tx(&not_tx), None);
        let e = refused(&not_tx);
        assert!(matches!(e, TranslateError::Invalid { .. }), "{e}");
    }
    assert_eq!(is_tx(&steps(vec![("V", vec![])])), None);
}

#[test]
fn operators_must_be_names() {
    for op in ["", "out()).drop(", "1a", "a b", "é"] {
        let e = refused(&steps(vec![("V", vec![]), (op, vec![])]));
        assert!(matches!(e, TranslateError::Invalid { .. }), "{e}");
        assert_eq!(e.location(), &Location(vec![site(Part::Step, 1, op, None)]));
    }
    // Unknown names are the parser's to refuse.
    let text = to_gremlin_lang(&steps(vec![("V", vec![]), ("frobnicate", vec![])])).unwrap();
    assert_eq!(text, "g.V().frobnicate()");
    assert!(stratagraph_gremlin::parse(&text).is_err());
    // gremlinpython's iterate() appends discard().
    check(
        &steps(vec![("V", vec![]), ("out", vec![]), ("discard", vec![])]),
        "g.V().out().discard()",
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    // Deeper than the limit (and than the parser's), not so deep that
    // dropping the value recurses too far.
    let mut w = Wire::Int(1);
    for _ in 0..1000 {
        w = Wire::List(vec![w]);
    }
    let e = refused(&inject(w));
    assert!(matches!(e, TranslateError::Invalid { .. }), "{e}");
    let mut bc = steps(vec![("identity", vec![])]);
    for _ in 0..1000 {
        bc = steps(vec![("local", vec![Wire::Bytecode(Box::new(bc))])]);
    }
    let e = refused(&bc);
    assert!(matches!(e, TranslateError::Invalid { .. }), "{e}");
    // Nesting well within the limit translates.
    let mut w = Wire::Int(1);
    for _ in 0..100 {
        w = Wire::List(vec![w]);
    }
    let text = to_gremlin_lang(&inject(w)).unwrap();
    stratagraph_gremlin::parse(&text).unwrap();
}

// ---- vectors from gremlinpython ---------------------------------------------------

const VECTORS: &str = include_str!("vectors/bytecode.txt");

/// Cases whose traversal is meant to fail (both texts must then fail).
const MEANT_TO_FAIL: &[&str] = &["read_only_refuses"];

/// `../shared/tinkerpop`, read in place.
fn tinkerpop_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/tinkerpop");
    dir.canonicalize().unwrap_or(dir)
}

/// A GraphSON 3.0 typed value of the modern graph.
fn typed(v: &serde_json::Value) -> Value {
    match v {
        serde_json::Value::String(s) => Value::String(s.clone()),
        serde_json::Value::Bool(b) => Value::Bool(*b),
        serde_json::Value::Object(o) => {
            let ty = o.get("@type").and_then(|t| t.as_str()).unwrap_or("");
            let x = o.get("@value").unwrap_or(&serde_json::Value::Null);
            match ty {
                "g:Int32" => Value::Int32(x.as_i64().and_then(|i| i32::try_from(i).ok()).unwrap()),
                "g:Int64" => Value::Int64(x.as_i64().unwrap()),
                "g:Float" => Value::Float32(x.as_f64().unwrap() as f32),
                "g:Double" => Value::Float64(x.as_f64().unwrap()),
                other => panic!("the modern graph has no {other}"),
            }
        }
        other => panic!("unexpected GraphSON value {other}"),
    }
}

fn raw_id(v: &serde_json::Value) -> u64 {
    match typed(v) {
        Value::Int32(i) => u64::try_from(i).unwrap(),
        Value::Int64(i) => u64::try_from(i).unwrap(),
        other => panic!("id {other:?}"),
    }
}

/// A fresh store holding TinkerPop's modern graph, loaded as the loader
/// loads it: each vertex and edge by its own integer id, with its typed
/// properties.
fn modern() -> Graph {
    let path = tinkerpop_dir().join("data").join("tinkerpop-modern.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let lines: Vec<serde_json::Value> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let g = empty_graph();
    let mut tx = g.begin();
    for v in &lines {
        let mut props: Vec<(String, Value)> = Vec::new();
        if let Some(map) = v["properties"].as_object() {
            for (key, list) in map {
                for vp in list.as_array().unwrap() {
                    props.push((key.clone(), typed(&vp["value"])));
                }
            }
        }
        let refs: Vec<(&str, Value)> = props.iter().map(|(k, x)| (k.as_str(), x.clone())).collect();
        tx.insert_vertex_with(raw_id(&v["id"]), v["label"].as_str().unwrap(), &refs)
            .unwrap();
    }
    for v in &lines {
        let src = raw_id(&v["id"]);
        let Some(out) = v["outE"].as_object() else {
            continue;
        };
        for (label, edges) in out {
            for e in edges.as_array().unwrap() {
                let props: Vec<(String, Value)> = e["properties"]
                    .as_object()
                    .map(|m| m.iter().map(|(k, x)| (k.clone(), typed(x))).collect())
                    .unwrap_or_default();
                let refs: Vec<(&str, Value)> =
                    props.iter().map(|(k, x)| (k.as_str(), x.clone())).collect();
                tx.add_edge_with_id(raw_id(&e["id"]), src, raw_id(&e["inV"]), label, &refs)
                    .unwrap();
            }
        }
    }
    tx.commit().unwrap();
    g
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2)
        .map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap())
        .collect()
}

/// What a query did: its results, then every vertex and edge after it.
fn outcome(g: &Graph, text: &str) -> (Result<Vec<GValue>, String>, String) {
    let result = run(g, text);
    let after = format!(
        "{:?} {:?}",
        run(g, "g.V().elementMap()"),
        run(g, "g.E().elementMap()")
    );
    (result, after)
}

#[test]
fn gremlinpython_bytecode_runs_as_the_hand_written_traversal() {
    let vectors: Vec<(&str, &str, &str)> = VECTORS
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let mut parts = l.splitn(3, '\t');
            let (Some(name), Some(hex), Some(gremlin)) = (parts.next(), parts.next(), parts.next())
            else {
                panic!("malformed vector line {l:?}");
            };
            (name, hex, gremlin)
        })
        .collect();
    assert!(vectors.len() >= 60, "only {} vectors", vectors.len());
    let verbose = std::env::var_os("STRATAGRAPH_TRANSLATE_VERBOSE").is_some();
    let mut failures = Vec::new();
    let mut same = 0;
    for (name, hex, hand) in &vectors {
        let bc = match graphbinary::decode(&unhex(hex)) {
            Ok(Wire::Bytecode(bc)) => bc,
            other => {
                failures.push(format!("{name}: decoded to {other:?}"));
                continue;
            }
        };
        let text = match to_gremlin_lang(&bc) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{name}: translation failed: {e}"));
                continue;
            }
        };
        if let Err(e) = stratagraph_gremlin::parse(&text) {
            failures.push(format!("{name}: the parser refused {text}: {e}"));
            continue;
        }
        let (translated, translated_after) = outcome(&modern(), &text);
        let (expected, expected_after) = outcome(&modern(), hand);
        let meant_to_fail = MEANT_TO_FAIL.contains(name);
        let agree = match (&translated, &expected) {
            (Ok(a), Ok(b)) => !meant_to_fail && format!("{a:?}") == format!("{b:?}"),
            (Err(_), Err(_)) => meant_to_fail,
            _ => false,
        };
        if verbose {
            println!("{name}\n  {text}\n  {hand}\n  {translated:?}");
        }
        if agree && translated_after == expected_after {
            same += 1;
        } else {
            failures.push(format!(
                "{name}:\n  translated: {text}\n    gave {translated:?}\n  by hand:    {hand}\n    \
                 gave {expected:?}{}",
                if translated_after == expected_after {
                    String::new()
                } else {
                    format!("\n  graphs after differ:\n    {translated_after}\n    {expected_after}")
                }
            ));
        }
    }
    println!("{same} of {} vectors ran the same", vectors.len());
    assert!(
        failures.is_empty(),
        "{} of {} vectors differ:\n{}",
        failures.len(),
        vectors.len(),
        failures.join("\n")
    );
}

// ---- fuzzing ------------------------------------------------------------------

const OPERATORS: &[&str] = &[
    "V",
    "E",
    "out",
    "has",
    "hasId",
    "to",
    "from",
    "values",
    "inject",
    "withStrategies",
    "withoutStrategies",
    "tx",
    "mergeE",
    "option",
    "by",
    "is",
    "",
    "a b",
    "x)",
];

fn any_enum_kind() -> impl Strategy<Value = EnumKind> {
    prop::sample::select(EnumKind::ALL.to_vec())
}

fn any_leaf() -> impl Strategy<Value = Wire> {
    use Wire as W;
    prop_oneof![
        Just(W::Null),
        any::<bool>().prop_map(W::Bool),
        any::<i8>().prop_map(W::Byte),
        any::<i16>().prop_map(W::Short),
        any::<i32>().prop_map(W::Int),
        any::<i64>().prop_map(W::Long),
        any::<i128>().prop_map(W::BigInteger),
        any::<f32>().prop_map(W::Float),
        any::<f64>().prop_map(W::Double),
        (any::<i32>(), any::<i128>())
            .prop_map(|(scale, unscaled)| W::BigDecimal { scale, unscaled }),
        any::<String>().prop_map(W::String),
        any::<char>().prop_map(W::Char),
        any::<[u8; 16]>().prop_map(W::Uuid),
        any::<i64>().prop_map(W::Date),
        any::<i64>().prop_map(W::Timestamp),
        (any::<i64>(), any::<i32>()).prop_map(|(seconds, nanos)| W::Instant { seconds, nanos }),
        (
            any::<i32>(),
            any::<u8>(),
            any::<u8>(),
            any::<i64>(),
            any::<i32>()
        )
            .prop_map(|(year, month, day, nanos_of_day, offset_seconds)| {
                W::OffsetDateTime(OffsetDateTime {
                    date_time: LocalDateTime {
                        date: LocalDate { year, month, day },
                        nanos_of_day,
                    },
                    offset_seconds,
                })
            }),
        (any::<i64>(), any::<i32>()).prop_map(|(seconds, nanos)| W::Duration { seconds, nanos }),
        (any_enum_kind(), "[a-zA-Z_]{0,6}|.{0,6}").prop_map(|(kind, name)| W::Enum { kind, name }),
        (".{0,8}", ".{0,8}").prop_map(|(language, script)| W::Lambda {
            language,
            script,
            arguments: -1
        }),
        ".{0,20}".prop_map(W::Class),
        prop::collection::vec(any::<u8>(), 0..4).prop_map(W::ByteBuffer),
    ]
}

fn any_wire() -> impl Strategy<Value = Wire> {
    use Wire as W;
    any_leaf().prop_recursive(5, 64, 6, |inner| {
        let instructions = prop::collection::vec(
            (
                prop_oneof![
                    prop::sample::select(OPERATORS.to_vec()).prop_map(String::from),
                    ".{0,6}"
                ],
                prop::collection::vec(inner.clone(), 0..3),
            )
                .prop_map(|(operator, args)| Instruction { operator, args }),
            0..4,
        );
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(W::List),
            prop::collection::vec(inner.clone(), 0..4).prop_map(W::Set),
            prop::collection::vec((inner.clone(), inner.clone()), 0..4).prop_map(W::Map),
            (
                prop::sample::select(vec![
                    "eq", "within", "and", "or", "not", "between", "x y", ""
                ]),
                prop::collection::vec(inner.clone(), 0..3)
            )
                .prop_map(|(name, values)| W::P {
                    name: name.into(),
                    values
                }),
            (".{0,6}", prop::collection::vec(inner.clone(), 0..3))
                .prop_map(|(name, values)| W::TextP { name, values }),
            (".{0,4}", inner.clone()).prop_map(|(key, value)| W::Binding {
                key,
                value: Box::new(value)
            }),
            inner.clone().prop_map(|id| W::Vertex(Box::new(Vertex {
                id,
                label: "v".into(),
                properties: Vec::new()
            }))),
            inner.clone().prop_map(|id| W::Edge(Box::new(Edge {
                id,
                label: "e".into(),
                in_v_id: W::Int(1),
                in_v_label: String::new(),
                out_v_id: W::Int(2),
                out_v_label: String::new(),
                properties: Vec::new(),
            }))),
            (
                ".{0,30}|org.apache.[a-zA-Z]{1,10}",
                prop::collection::vec((inner.clone(), inner.clone()), 0..3)
            )
                .prop_map(|(class, config)| W::TraversalStrategy { class, config }),
            (
                instructions.clone(),
                prop::collection::vec(
                    (
                        prop::sample::select(vec!["tx", "CardinalityValueTraversal", "withSack"])
                            .prop_map(String::from),
                        prop::collection::vec(inner.clone(), 0..3),
                    )
                        .prop_map(|(operator, args)| Instruction { operator, args }),
                    0..2,
                )
            )
                .prop_map(|(steps, sources)| W::Bytecode(Box::new(Bytecode { steps, sources }))),
        ]
    })
}

fn any_bytecode() -> impl Strategy<Value = Bytecode> {
    let instruction = |ops: Vec<&'static str>| {
        (
            prop_oneof![prop::sample::select(ops).prop_map(String::from), ".{0,6}"],
            prop::collection::vec(any_wire(), 0..3),
        )
            .prop_map(|(operator, args)| Instruction { operator, args })
    };
    (
        prop::collection::vec(instruction(OPERATORS.to_vec()), 0..4),
        prop::collection::vec(
            instruction(vec![
                "withStrategies",
                "withoutStrategies",
                "withSack",
                "tx",
                "with",
            ]),
            0..3,
        ),
    )
        .prop_map(|(steps, sources)| Bytecode { steps, sources })
}

/// Values every driver may send in a well-formed traversal.
fn literal() -> impl Strategy<Value = Wire> {
    use Wire as W;
    let enums: Vec<(EnumKind, &str)> = vec![
        (EnumKind::T, "id"),
        (EnumKind::T, "label"),
        (EnumKind::Direction, "OUT"),
        (EnumKind::Order, "desc"),
        (EnumKind::Pop, "all"),
        (EnumKind::Scope, "local"),
        (EnumKind::Cardinality, "list"),
        (EnumKind::Column, "values"),
        (EnumKind::Operator, "addAll"),
        (EnumKind::Pick, "any"),
        (EnumKind::Barrier, "normSack"),
        (EnumKind::Merge, "inV"),
        (EnumKind::DT, "hour"),
        (EnumKind::GType, "BIGINT"),
    ];
    let leaf = prop_oneof![
        Just(W::Null),
        any::<bool>().prop_map(W::Bool),
        any::<i8>().prop_map(W::Byte),
        any::<i16>().prop_map(W::Short),
        any::<i32>().prop_map(W::Int),
        any::<i64>().prop_map(W::Long),
        any::<i128>().prop_map(W::BigInteger),
        any::<f32>().prop_map(W::Float),
        any::<f64>().prop_map(W::Double),
        (any::<i32>(), any::<i128>())
            .prop_map(|(scale, unscaled)| W::BigDecimal { scale, unscaled }),
        any::<String>().prop_map(W::String),
        any::<char>().prop_map(W::Char),
        any::<[u8; 16]>().prop_map(W::Uuid),
        any::<i64>().prop_map(W::Date),
        (0..100_000_000_000i64, 0..1_000_000_000i32)
            .prop_map(|(seconds, nanos)| W::Instant { seconds, nanos }),
        prop::sample::select(enums).prop_map(|(kind, name)| W::token(kind, name)),
    ];
    leaf.prop_recursive(4, 48, 5, |inner| {
        let preds = prop::sample::select(vec![
            "eq", "neq", "lt", "lte", "gt", "gte", "inside", "outside", "between", "within",
            "without",
        ]);
        let text_preds = prop::sample::select(vec![
            "containing",
            "notContaining",
            "startingWith",
            "notStartingWith",
            "endingWith",
            "notEndingWith",
            "regex",
            "notRegex",
        ]);
        let pred = prop_oneof![
            (preds, prop::collection::vec(inner.clone(), 0..3)).prop_map(|(name, values)| {
                W::P {
                    name: name.into(),
                    values,
                }
            }),
            (text_preds, inner.clone()).prop_map(|(name, v)| W::TextP {
                name: name.into(),
                values: vec![v],
            }),
        ];
        let pred = pred.prop_recursive(2, 8, 3, |p| {
            prop_oneof![
                (
                    prop::sample::select(vec!["and", "or"]),
                    prop::collection::vec(p.clone(), 2..4)
                )
                    .prop_map(|(name, values)| W::P {
                        name: name.into(),
                        values
                    }),
                p.prop_map(|q| W::P {
                    name: "not".into(),
                    values: vec![q]
                }),
            ]
        });
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(W::List),
            prop::collection::vec(inner.clone(), 0..4).prop_map(W::Set),
            prop::collection::vec((inner.clone(), inner.clone()), 0..4).prop_map(W::Map),
            pred,
            (".{0,4}", inner.clone()).prop_map(|(key, value)| W::Binding {
                key,
                value: Box::new(value)
            }),
            prop::collection::vec(
                (
                    prop::sample::select(vec!["out", "has", "is", "constant", "where", "by"]),
                    prop::collection::vec(inner.clone(), 0..3)
                ),
                0..3
            )
            .prop_map(|s| Wire::Bytecode(Box::new(steps(s)))),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Any bytecode translates to text or an error, never a panic; the
    /// text never makes the parser panic either, and errors display.
    #[test]
    fn translation_never_panics(bc in any_bytecode()) {
        match to_gremlin_lang(&bc) {
            Ok(text) => {
                let _ = stratagraph_gremlin::parse(&text);
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
        let _ = is_tx(&bc);
    }

    /// Any value as an argument translates or is refused, never a panic.
    #[test]
    fn any_argument_never_panics(w in any_wire(), op in prop::sample::select(OPERATORS.to_vec())) {
        let bc = steps(vec![("V", vec![]), (op, vec![w.clone()])]);
        if let Ok(text) = to_gremlin_lang(&bc) {
            let _ = stratagraph_gremlin::parse(&text);
        }
        let sourced = with_sources(vec![(op, vec![w])], Bytecode::default());
        let _ = to_gremlin_lang(&sourced);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Well-formed traversals with arguments of every literal kind always
    /// translate, and the parser always accepts the text.
    #[test]
    fn well_formed_bytecode_always_parses(
        args in prop::collection::vec(literal(), 0..4),
        mid in prop::collection::vec(
            (prop::sample::select(vec!["has", "is", "constant", "where", "property", "V", "hasId"]),
             prop::collection::vec(literal(), 0..3)),
            0..4,
        ),
    ) {
        let mut all = vec![("inject", args)];
        all.extend(mid);
        let bc = steps(all);
        let text = to_gremlin_lang(&bc).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        if let Err(e) = stratagraph_gremlin::parse(&text) {
            return Err(TestCaseError::fail(format!("the parser refused {text}: {e}")));
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Scalars keep their value and type through the text.
    #[test]
    fn scalars_survive_execution(w in prop_oneof![
        any::<i8>().prop_map(Wire::Byte),
        any::<i16>().prop_map(Wire::Short),
        any::<i32>().prop_map(Wire::Int),
        any::<i64>().prop_map(Wire::Long),
        any::<i128>().prop_map(Wire::BigInteger),
        any::<f32>().prop_filter("NaN has no Float literal", |f| !f.is_nan()).prop_map(Wire::Float),
        any::<f64>().prop_map(Wire::Double),
        any::<String>().prop_map(Wire::String),
        any::<[u8; 16]>().prop_map(Wire::Uuid),
    ]) {
        let expected = match &w {
            Wire::Byte(v) => GValue::Int8(*v),
            Wire::Short(v) => GValue::Int16(*v),
            Wire::Int(v) => GValue::Int32(*v),
            Wire::Long(v) => GValue::Int64(*v),
            Wire::BigInteger(v) => GValue::BigInt(*v),
            Wire::Float(v) => GValue::Float32(*v),
            Wire::Double(v) => GValue::Float64(*v),
            Wire::String(v) => GValue::str(v),
            Wire::Uuid(v) => GValue::Uuid(*v),
            _ => GValue::Null,
        };
        let text = to_gremlin_lang(&inject(w)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let got = run(&empty_graph(), &text).map_err(TestCaseError::fail)?;
        prop_assert_eq!(format!("{:?}", got), format!("{:?}", vec![expected]), "{}", text);
    }
}
