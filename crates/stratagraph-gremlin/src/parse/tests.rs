//! The parser against TinkerPop's feature files, the grammar's own lists,
//! typed literals, error positions, and random input.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::names;
use crate::ast::{
    BarrierToken, Cardinality, ColumnToken, DirectionToken, DtToken, EnumToken, Expr, GTypeToken,
    MergeToken, OperatorToken, OrderToken, PickToken, PopToken, Pred, Query, ScopeToken, Span,
    Step, Strategy as AstStrategy, TToken, Terminal, Traversal, TxOp,
};
use crate::parse;
use crate::print::{same_ignoring_spans, without_spans};

// ----- Test data ---------------------------------------------------------

fn tinkerpop_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/tinkerpop")
}

fn feature_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            feature_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "feature") {
            out.push(p);
        }
    }
}

/// One traversal text of a feature file and where it is.
struct FeatureText {
    place: String,
    text: String,
}

/// Every traversal in the feature files: the `"""` blocks after `the
/// traversal of` and `the graph initializer of`, and the quoted
/// traversals of `count of "..."` lines (with `\"` unescaped).
fn feature_traversals() -> Vec<FeatureText> {
    let mut files = Vec::new();
    feature_files(&tinkerpop_dir().join("features"), &mut files);
    assert!(
        files.len() > 100,
        "found only {} feature files",
        files.len()
    );
    let mut out = Vec::new();
    for file in files {
        let content = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<&str> = content.lines().collect();
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let mut i = 0;
        while i < lines.len() {
            let line = lines[i].trim_end();
            if line.trim_start().starts_with('#') {
                // A Gherkin comment, possibly a commented-out scenario.
            } else if line.ends_with("the traversal of")
                || line.ends_with("the graph initializer of")
            {
                let mut j = i + 1;
                while j < lines.len()
                    && (lines[j].trim().is_empty() || lines[j].trim().starts_with('#'))
                {
                    j += 1;
                }
                assert_eq!(
                    lines.get(j).map(|l| l.trim()),
                    Some("\"\"\""),
                    "{name}:{}",
                    i + 1
                );
                let mut k = j + 1;
                let mut block = Vec::new();
                while k < lines.len() && lines[k].trim() != "\"\"\"" {
                    block.push(lines[k]);
                    k += 1;
                }
                out.push(FeatureText {
                    place: format!("{name}:{}", j + 2),
                    text: block.join("\n"),
                });
                i = k;
            } else if let Some(at) = line.find("count of \"") {
                let quoted = &line[at + "count of \"".len()..];
                let body = quoted
                    .strip_suffix('"')
                    .expect("count line ends in a quote");
                out.push(FeatureText {
                    place: format!("{name}:{}", i + 1),
                    text: body.replace("\\\"", "\""),
                });
            }
            i += 1;
        }
    }
    out
}

/// Feature traversals that are expected not to parse, by a syntactic
/// property of the text, with the reason.
fn expected_failure(text: &str) -> Option<&'static str> {
    // An integer literal of 39 or more digits is beyond the 128 bits
    // `Expr::BigInt` holds (`g.withSack(10...0n, ...)` in Sack.feature is
    // 10^1000).
    let mut run = 0;
    for c in text.chars() {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        if run >= 39 {
            return Some("integer literal beyond 128 bits");
        }
    }
    None
}

// ----- The feature files -------------------------------------------------

#[test]
fn every_feature_traversal_parses_and_prints_back() {
    let texts = feature_traversals();
    assert!(texts.len() > 2000, "found only {} traversals", texts.len());
    let mut parsed = 0;
    let mut excluded = Vec::new();
    let mut failures = Vec::new();
    for t in &texts {
        let result = parse(&t.text);
        match (expected_failure(&t.text), result) {
            (None, Ok(q)) => {
                parsed += 1;
                assert!(!matches!(q, Query::Empty), "{}: empty", t.place);
                let printed = q.to_string();
                match parse(&printed) {
                    Ok(again) => assert!(
                        same_ignoring_spans(&q, &again),
                        "{}: printed form differs\n{}\n{printed}",
                        t.place,
                        t.text
                    ),
                    Err(e) => {
                        failures.push(format!("{}: printed form fails: {e}\n{printed}", t.place))
                    }
                }
            }
            (None, Err(e)) => failures.push(format!("{}: {e}\n{}", t.place, t.text)),
            (Some(why), Err(e)) => {
                assert!(e.message.contains("128 bits"), "{}: {e}", t.place);
                excluded.push(format!("{} ({why})", t.place));
            }
            (Some(why), Ok(_)) => {
                failures.push(format!("{}: expected to fail ({why}) but parsed", t.place))
            }
        }
    }
    println!(
        "feature traversals: {} found, {parsed} parsed and printed back, {} excluded: {:?}",
        texts.len(),
        excluded.len(),
        excluded
    );
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(excluded.len() <= 1, "{excluded:?}");
}

#[test]
fn feature_traversals_have_the_expected_shapes() {
    let q = parse(
        "g.withStrategies(new SubgraphStrategy(vertices: __.has(\"name\", P.within(\"josh\", \"lop\")),\n\
         \x20                                   edges: __.or(__.has(\"weight\", 0.4).hasLabel(\"created\")))).V()",
    )
    .unwrap();
    let Query::Traversal {
        source,
        traversal,
        terminal: None,
    } = &q
    else {
        panic!("{q:?}")
    };
    assert_eq!(source.len(), 1);
    let Expr::Strategy(s) = &source[0].args[0] else {
        panic!("{source:?}")
    };
    assert_eq!(s.name, "SubgraphStrategy");
    assert_eq!(
        s.config.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        ["vertices", "edges"]
    );
    assert_eq!(traversal.steps[0].name, "V");

    let q = parse("g.V().as(\"v\").mergeE([T.label:\"self\",(OUT):Merge.outV,(IN):Merge.inV])")
        .unwrap();
    let Query::Traversal { traversal, .. } = &q else {
        panic!()
    };
    let Expr::Map(entries) = &traversal.steps[2].args[0] else {
        panic!()
    };
    assert_eq!(entries[0].0, Expr::Enum(EnumToken::T(TToken::Label)));
    assert_eq!(
        entries[1].0,
        Expr::Enum(EnumToken::Direction(DirectionToken::Out))
    );
    assert_eq!(entries[1].1, Expr::Enum(EnumToken::Merge(MergeToken::OutV)));
    assert_eq!(
        entries[2].0,
        Expr::Enum(EnumToken::Direction(DirectionToken::In))
    );
}

// ----- The grammar's own lists -------------------------------------------

fn grammar() -> String {
    std::fs::read_to_string(tinkerpop_dir().join("spec/Gremlin.g4")).unwrap()
}

/// The names after `prefix` in the alternatives of the rule `rule`
/// (`traversalMethod_out` in the rule `traversalMethod` gives `out`).
fn rule_alternatives(grammar: &str, rule: &str, prefix: &str) -> Vec<String> {
    let start = grammar
        .find(&format!("\n{rule}\n"))
        .unwrap_or_else(|| panic!("no rule {rule}"));
    let body = &grammar[start + rule.len() + 2..];
    let body = &body[..body.find(';').unwrap()];
    let mut names: Vec<String> = body
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter_map(|w| w.strip_prefix(prefix))
        .map(str::to_string)
        .collect();
    names.sort();
    names.dedup();
    names
}

#[test]
fn name_tables_match_the_grammar() {
    let g = grammar();
    let mut keywords: Vec<String> = g
        .lines()
        .filter(|l| l.starts_with("K_"))
        .filter_map(|l| l.split('\'').nth(1).map(str::to_string))
        .collect();
    keywords.sort();
    assert_eq!(
        names::KEYWORDS,
        keywords.iter().map(String::as_str).collect::<Vec<_>>()
    );
    assert!(
        names::KEYWORDS.windows(2).all(|w| w[0] < w[1]),
        "KEYWORDS must be sorted"
    );
    assert!(
        names::STEPS.windows(2).all(|w| w[0] < w[1]),
        "STEPS must be sorted"
    );

    let steps = rule_alternatives(&g, "traversalMethod", "traversalMethod_");
    assert_eq!(
        names::STEPS,
        steps.iter().map(String::as_str).collect::<Vec<_>>()
    );
    let start = rule_alternatives(
        &g,
        "traversalSourceSpawnMethod",
        "traversalSourceSpawnMethod_",
    );
    assert_eq!(
        names::START_STEPS,
        start.iter().map(String::as_str).collect::<Vec<_>>()
    );
    let source = rule_alternatives(
        &g,
        "traversalSourceSelfMethod",
        "traversalSourceSelfMethod_",
    );
    assert_eq!(
        names::SOURCE_METHODS,
        source.iter().map(String::as_str).collect::<Vec<_>>()
    );
    let terminals = rule_alternatives(&g, "traversalTerminalMethod", "traversalTerminalMethod_");
    assert_eq!(
        names::TERMINALS,
        terminals.iter().map(String::as_str).collect::<Vec<_>>()
    );
    let preds = rule_alternatives(&g, "traversalPredicate", "traversalPredicate_");
    let mut ours: Vec<&str> = names::P_PREDICATES
        .iter()
        .chain(names::TEXT_PREDICATES)
        .copied()
        .collect();
    ours.sort();
    assert_eq!(ours, preds.iter().map(String::as_str).collect::<Vec<_>>());
    // Every TextP function is written `K_TEXTP DOT ...` in the grammar.
    for p in names::TEXT_PREDICATES {
        let rule = format!("\ntraversalPredicate_{p}\n");
        let at = g.find(&rule).unwrap();
        assert!(g[at..at + 200].contains("K_TEXTP"), "{p}");
    }
}

// ----- Literals ----------------------------------------------------------

/// The single argument of `g.inject(text)`.
fn value(text: &str) -> Expr {
    let q = parse(&format!("g.inject({text})")).unwrap_or_else(|e| panic!("{text}: {e}"));
    let Query::Traversal { mut traversal, .. } = without_spans(&q) else {
        panic!()
    };
    let mut args = traversal.steps.remove(0).args;
    assert_eq!(args.len(), 1, "{text}");
    args.remove(0)
}

fn value_error(text: &str) -> String {
    parse(&format!("g.inject({text})")).expect_err(text).message
}

#[test]
fn integer_literals_are_typed_by_suffix_and_size() {
    assert_eq!(value("1"), Expr::Int32(1));
    assert_eq!(value("-1"), Expr::Int32(-1));
    assert_eq!(value("+7"), Expr::Int32(7));
    assert_eq!(value("1i"), Expr::Int32(1));
    assert_eq!(value("1l"), Expr::Int64(1));
    assert_eq!(value("1L"), Expr::Int64(1));
    assert_eq!(value("1b"), Expr::Int8(1));
    assert_eq!(value("-128b"), Expr::Int8(-128));
    assert_eq!(value("2s"), Expr::Int16(2));
    assert_eq!(value("1n"), Expr::BigInt(1));
    assert_eq!(value("2147483647"), Expr::Int32(i32::MAX));
    assert_eq!(value("-2147483648"), Expr::Int32(i32::MIN));
    assert_eq!(value("3000000000"), Expr::Int64(3_000_000_000));
    assert_eq!(
        value("9223372036854775808"),
        Expr::BigInt(9_223_372_036_854_775_808)
    );
    assert_eq!(
        value("-170141183460469231731687303715884105728n"),
        Expr::BigInt(i128::MIN)
    );
    assert_eq!(value("1_000_000"), Expr::Int32(1_000_000));
    assert_eq!(value("0x1F"), Expr::Int32(31));
    assert_eq!(value("-0x10L"), Expr::Int64(-16));
    assert_eq!(value("0x7fi"), Expr::Int32(127));
    assert_eq!(
        value("0x1b"),
        Expr::Int8(1),
        "a trailing b is the byte suffix, as in TinkerPop"
    );
    assert_eq!(value("017"), Expr::Int32(15));
    assert_eq!(value("0"), Expr::Int32(0));

    assert!(value_error("128b").contains("out of range for a byte"));
    assert!(value_error("32768s").contains("out of range for a short"));
    assert!(value_error("2147483648i").contains("out of range for an int"));
    assert!(value_error("9223372036854775808l").contains("out of range for a long"));
    assert!(value_error("170141183460469231731687303715884105728n").contains("128 bits"));
    assert!(value_error("1000000000000000000000000000000000000000").contains("128 bits"));
    assert!(value_error("08").contains("octal"));
    assert!(value_error("1_").contains("'_'"));
    assert!(value_error("12abc").contains("right after the number"));
}

#[test]
fn float_literals_are_typed_by_suffix() {
    assert_eq!(value("1.0"), Expr::Float64(1.0));
    assert_eq!(value("-0.5"), Expr::Float64(-0.5));
    assert_eq!(value("1e3"), Expr::Float64(1000.0));
    assert_eq!(value("1.7976931348623157E+308d"), Expr::Float64(f64::MAX));
    assert_eq!(value("1.0d"), Expr::Float64(1.0));
    assert_eq!(value("2d"), Expr::Float64(2.0));
    assert_eq!(value("1.0f"), Expr::Float32(1.0));
    assert_eq!(value("0.5F"), Expr::Float32(0.5));
    assert_eq!(value("1f"), Expr::Float32(1.0));
    assert_eq!(value("1.0m"), Expr::BigDecimal("1.0".into()));
    assert_eq!(value("-1_000.50M"), Expr::BigDecimal("-1000.50".into()));
    assert_eq!(value("1m"), Expr::BigDecimal("1".into()));
    assert_eq!(value("Infinity"), Expr::Float64(f64::INFINITY));
    assert_eq!(value("-Infinity"), Expr::Float64(f64::NEG_INFINITY));
    assert_eq!(value("+Infinity"), Expr::Float64(f64::INFINITY));
    assert!(matches!(value("NaN"), Expr::Float64(v) if v.is_nan()));
}

#[test]
fn other_literals() {
    assert_eq!(value("null"), Expr::Null);
    assert_eq!(value("true"), Expr::Bool(true));
    assert_eq!(
        value("'a\\tb\\\\c\\'d\\\"e\\u00e9\\101\\uD83D\\uDE00'"),
        Expr::String("a\tb\\c'd\"eéA😀".into())
    );
    assert_eq!(value("\"multi\nline\""), Expr::String("multi\nline".into()));
    assert_eq!(value("''"), Expr::String(String::new()));
    assert_eq!(
        value("datetime('2023-08-02T00:00:00Z')"),
        Expr::DateTime(Some("2023-08-02T00:00:00Z".into()))
    );
    assert_eq!(value("DateTime()"), Expr::DateTime(None));
    let Expr::Uuid(Some(b)) = value("UUID('6100808b-62f9-42b7-957e-ed66c30f40d1')") else {
        panic!()
    };
    assert_eq!(b[0], 0x61);
    assert_eq!(b[15], 0xd1);
    assert_eq!(value("UUID()"), Expr::Uuid(None));
    assert_eq!(
        value("[1, 'a']"),
        Expr::List(vec![Expr::Int32(1), Expr::String("a".into())])
    );
    assert_eq!(value("[]"), Expr::List(vec![]));
    assert_eq!(value("[:]"), Expr::Map(vec![]));
    assert_eq!(
        value("{1, 2}"),
        Expr::Set(vec![Expr::Int32(1), Expr::Int32(2)])
    );
    assert_eq!(value("{}"), Expr::Set(vec![]));
    assert_eq!(value("1..5"), Expr::Range(1, 5));
    assert_eq!(value("-2..3000000000"), Expr::Range(-2, 3_000_000_000));
    assert_eq!(
        value("[name: 'marko', id: 1, (T.id): 2, T.label: 'x', 'k': 3, 4: 5, (Direction.OUT): 6, [1]: 7]"),
        Expr::Map(vec![
            (Expr::String("name".into()), Expr::String("marko".into())),
            (Expr::String("id".into()), Expr::Int32(1)),
            (Expr::Enum(EnumToken::T(TToken::Id)), Expr::Int32(2)),
            (Expr::Enum(EnumToken::T(TToken::Label)), Expr::String("x".into())),
            (Expr::String("k".into()), Expr::Int32(3)),
            (Expr::Int32(4), Expr::Int32(5)),
            (Expr::Enum(EnumToken::Direction(DirectionToken::Out)), Expr::Int32(6)),
            (Expr::List(vec![Expr::Int32(1)]), Expr::Int32(7)),
        ])
    );
    assert!(value_error("UUID('6100808b-62f9-42b7-957e-ed66c30f40d')").contains("malformed UUID"));
    assert!(value_error("UUID('6100808b062f9-42b7-957e-ed66c30f40d1')").contains("malformed UUID"));
    assert!(value_error("'a'..'c'").contains("string ranges"));
    assert!(value_error("'abc").contains("unterminated string"));
    assert!(value_error("'a\\qb'").contains("invalid escape"));
    assert!(value_error("'\\uD83D'").contains("surrogate"));
    assert!(value_error("[1, 2").contains("',' or ']'"));
}

// ----- Words, tokens, parameters, predicates ----------------------------

fn steps_of(text: &str) -> Vec<Step> {
    let q = parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
    match without_spans(&q) {
        Query::Traversal { traversal, .. } => traversal.steps,
        other => panic!("{other:?}"),
    }
}

fn args_of(text: &str) -> Vec<Expr> {
    steps_of(text).pop().unwrap().args
}

fn e(t: EnumToken) -> Expr {
    Expr::Enum(t)
}

fn var(name: &str) -> Expr {
    Expr::Var(name.into(), Span::default())
}

#[test]
fn bare_words_are_tokens_and_other_identifiers_parameters() {
    assert_eq!(args_of("g.V().by(id)"), [e(EnumToken::T(TToken::Id))]);
    assert_eq!(
        args_of("g.V().by(T.label)"),
        [e(EnumToken::T(TToken::Label))]
    );
    assert_eq!(
        args_of("g.V().select(values)"),
        [e(EnumToken::Column(ColumnToken::Values))]
    );
    assert_eq!(
        args_of("g.V().select(Column.keys)"),
        [e(EnumToken::Column(ColumnToken::Keys))]
    );
    assert_eq!(
        args_of("g.V().count(local)"),
        [e(EnumToken::Scope(ScopeToken::Local))]
    );
    assert_eq!(
        args_of("g.V().order(Scope.global)"),
        [e(EnumToken::Scope(ScopeToken::Global))]
    );
    assert_eq!(
        args_of("g.V().by('a', desc)"),
        [
            Expr::String("a".into()),
            e(EnumToken::Order(OrderToken::Desc))
        ]
    );
    assert_eq!(
        args_of("g.V().select(first, 'a')"),
        [e(EnumToken::Pop(PopToken::First)), Expr::String("a".into())]
    );
    assert_eq!(
        args_of("g.V().select(Pop.last, 'a')")[0],
        e(EnumToken::Pop(PopToken::Last))
    );
    assert_eq!(
        args_of("g.V().select(all, 'a')")[0],
        e(EnumToken::Pop(PopToken::All))
    );
    assert_eq!(
        args_of("g.V().option(any, out())")[0],
        e(EnumToken::Pick(PickToken::Any))
    );
    assert_eq!(
        args_of("g.V().option(none, out())")[0],
        e(EnumToken::Pick(PickToken::None))
    );
    assert_eq!(
        args_of("g.V().toE(OUT)"),
        [e(EnumToken::Direction(DirectionToken::Out))]
    );
    assert_eq!(
        args_of("g.V().toE(Direction.from)"),
        [e(EnumToken::Direction(DirectionToken::Out))]
    );
    assert_eq!(
        args_of("g.V().toE(to)"),
        [e(EnumToken::Direction(DirectionToken::In))]
    );
    assert_eq!(
        args_of("g.V().sack(sum)"),
        [e(EnumToken::Operator(OperatorToken::Sum))]
    );
    assert_eq!(
        args_of("g.V().sack(Operator.sumLong)"),
        [e(EnumToken::Operator(OperatorToken::SumLong))]
    );
    assert_eq!(
        args_of("g.V().sack(and)"),
        [e(EnumToken::Operator(OperatorToken::And))]
    );
    assert_eq!(
        args_of("g.V().barrier(normSack)"),
        [e(EnumToken::Barrier(BarrierToken::NormSack))]
    );
    assert_eq!(
        args_of("g.V().barrier(Barrier.normSack)"),
        [e(EnumToken::Barrier(BarrierToken::NormSack))]
    );
    assert_eq!(
        args_of("g.V().dateAdd(DT.day, 1)")[0],
        e(EnumToken::Dt(DtToken::Day))
    );
    assert_eq!(
        args_of("g.V().dateAdd(hour, 1)")[0],
        e(EnumToken::Dt(DtToken::Hour))
    );
    assert_eq!(
        args_of("g.V().asNumber(GType.INT)"),
        [e(EnumToken::GType(GTypeToken::Int))]
    );
    assert_eq!(
        args_of("g.V().asNumber(long)"),
        [e(EnumToken::GType(GTypeToken::Long))]
    );
    assert_eq!(
        args_of("g.V().asNumber(list)"),
        [e(EnumToken::GType(GTypeToken::List))]
    );
    assert_eq!(
        args_of("g.V().option(onCreate, [:])")[0],
        e(EnumToken::Merge(MergeToken::OnCreate))
    );
    assert_eq!(
        args_of("g.V().option(Merge.inV, [:])")[0],
        e(EnumToken::Merge(MergeToken::InV))
    );
    assert_eq!(
        args_of("g.V().property(list, 'a', 1)")[0],
        e(EnumToken::Cardinality(Cardinality::List))
    );
    assert_eq!(
        args_of("g.V().property(set, 'a', 1)")[0],
        e(EnumToken::Cardinality(Cardinality::Set))
    );
    assert_eq!(
        args_of("g.V().property(Cardinality.single, 'a', 1)")[0],
        e(EnumToken::Cardinality(Cardinality::Single))
    );
    assert_eq!(
        args_of("g.mergeV([a: Cardinality.list('x'), b: single(1)])"),
        [Expr::Map(vec![
            (
                Expr::String("a".into()),
                Expr::Cardinality(Cardinality::List, Box::new(Expr::String("x".into())))
            ),
            (
                Expr::String("b".into()),
                Expr::Cardinality(Cardinality::Single, Box::new(Expr::Int32(1)))
            ),
        ])]
    );
    assert_eq!(
        args_of("g.V(vid1, xx1, l1, pred1)"),
        [var("vid1"), var("xx1"), var("l1"), var("pred1")]
    );
    assert_eq!(
        args_of("g.V().valueMap().with(WithOptions.tokens, WithOptions.labels)"),
        [
            Expr::String("~tinkerpop.valueMap.tokens".into()),
            Expr::Int32(2)
        ]
    );
    assert_eq!(
        args_of("g.io('f').with(IO.reader, IO.graphson)")[1],
        Expr::String("graphson".into())
    );
    // A keyword that is no token is neither a value nor a parameter.
    let err = parse("g.V(edges)").unwrap_err();
    assert!(err.message.contains("'edges' is a keyword"), "{err}");
    let err = parse("g.V().has('a', out)").unwrap_err();
    assert!(err.message.contains("'(' after the step name out"), "{err}");
    let err = parse("g.V().by(Order.up)").unwrap_err();
    assert!(
        err.message.contains("'up' is not a token of Order"),
        "{err}"
    );
}

#[test]
fn words_before_parentheses_are_steps_predicates_or_functions() {
    let args = args_of("g.V().where(values('age').is(gt(30)))");
    let Expr::Traversal(t) = &args[0] else {
        panic!("{args:?}")
    };
    assert_eq!(
        t.steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["values", "is"]
    );

    let args = args_of("g.V().local(__.id()).sum()");
    assert!(args.is_empty());
    let steps = steps_of("g.V().local(__.id()).values('a').id().label().and(out()).or(__.in())");
    let names: Vec<_> = steps.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["V", "local", "values", "id", "label", "and", "or"]);

    // `not` of a predicate is P.not; of a traversal the step.
    let args = args_of("g.V().where(not(within('a', 'b')))");
    assert!(matches!(&args[0], Expr::Pred(Pred::Not(_))), "{args:?}");
    let args = args_of("g.V().where(not(out('x')).in())");
    let Expr::Traversal(t) = &args[0] else {
        panic!("{args:?}")
    };
    assert_eq!(
        t.steps.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(),
        ["not", "in"]
    );
    let args = args_of("g.V().where(__.not(out('x')))");
    assert!(matches!(&args[0], Expr::Traversal(_)));

    let call = |name: &str, args: Vec<Expr>| Pred::Call {
        name: name.into(),
        args,
        span: Span::default(),
    };
    let args = args_of("g.V().has('age', P.gt(3).and(lt(5)).or(P.within([1, 2])).negate())");
    assert_eq!(
        args[1],
        Expr::Pred(Pred::Not(Box::new(Pred::Or(
            Box::new(Pred::And(
                Box::new(call("gt", vec![Expr::Int32(3)])),
                Box::new(call("lt", vec![Expr::Int32(5)]))
            )),
            Box::new(call(
                "within",
                vec![Expr::List(vec![Expr::Int32(1), Expr::Int32(2)])]
            ))
        ))))
    );
    let args = args_of("g.V().has('a', TextP.containing('x').and(notRegex('y').or(eq(1))))");
    assert_eq!(
        args[1],
        Expr::Pred(Pred::And(
            Box::new(call("containing", vec![Expr::String("x".into())])),
            Box::new(Pred::Or(
                Box::new(call("notRegex", vec![Expr::String("y".into())])),
                Box::new(call("eq", vec![Expr::Int32(1)]))
            ))
        ))
    );
    assert_eq!(
        args_of("g.V().is(P.within())"),
        [Expr::Pred(call("within", vec![]))]
    );
    assert_eq!(
        args_of("g.V().is(typeOf(list))"),
        [Expr::Pred(call(
            "typeOf",
            vec![e(EnumToken::GType(GTypeToken::List))]
        ))]
    );
    assert_eq!(
        args_of("g.V().is(P.not(gt(1)))"),
        [Expr::Pred(Pred::Not(Box::new(call(
            "gt",
            vec![Expr::Int32(1)]
        ))))]
    );
    assert!(parse("g.V().is(P.not(out()))")
        .unwrap_err()
        .message
        .contains("P.not takes one predicate"));
    assert!(parse("g.V().has('a', P.containing('x'))")
        .unwrap_err()
        .message
        .contains("not a predicate of P"));
    assert!(parse("g.V().has('a', gt(1).and(out()))")
        .unwrap_err()
        .message
        .contains("takes a predicate"));
}

#[test]
fn query_forms() {
    assert_eq!(parse("").unwrap(), Query::Empty);
    assert_eq!(parse("  // nothing\n").unwrap(), Query::Empty);
    assert_eq!(parse("''").unwrap(), Query::Empty);
    assert_eq!(parse("\"\";").unwrap(), Query::Empty);
    assert_eq!(
        parse("g.tx().commit()").unwrap(),
        Query::Tx {
            source: vec![],
            op: TxOp::Commit
        }
    );
    assert_eq!(
        parse("g.tx().begin()").unwrap(),
        Query::Tx {
            source: vec![],
            op: TxOp::Begin
        }
    );
    let q = parse("g.withPath().tx().rollback()").unwrap();
    assert!(matches!(q, Query::Tx { ref source, op: TxOp::Rollback } if source.len() == 1));

    let q = without_spans(&parse("g.withSack(1.0f).withSideEffect('a', [1]).withBulk(false).withPath().with('x', 1).V().next(2)").unwrap());
    let Query::Traversal {
        source,
        traversal,
        terminal,
    } = q
    else {
        panic!()
    };
    let names: Vec<_> = source.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        ["withSack", "withSideEffect", "withBulk", "withPath", "with"]
    );
    assert_eq!(source[0].args, [Expr::Float32(1.0)]);
    assert_eq!(traversal.steps.len(), 1);
    assert_eq!(
        terminal,
        Some(Terminal {
            name: "next".into(),
            args: vec![Expr::Int32(2)],
            span: Span::default()
        })
    );

    for t in [
        "toList",
        "toSet",
        "toBulkSet",
        "next",
        "tryNext",
        "hasNext",
        "iterate",
        "explain",
    ] {
        let q = parse(&format!("g.V().out().{t}()")).unwrap();
        let Query::Traversal {
            terminal: Some(term),
            ..
        } = q
        else {
            panic!("{t}")
        };
        assert_eq!(term.name, t);
    }
    // `.toString()` is accepted and dropped.
    assert_eq!(
        without_spans(&parse("g.V().toString()").unwrap()),
        without_spans(&parse("g.V()").unwrap())
    );
    assert_eq!(
        without_spans(&parse("g.V().toList().toString();").unwrap()),
        without_spans(&parse("g.V().toList()").unwrap())
    );
    // A bare source is a traversal with no steps.
    let Query::Traversal {
        source,
        traversal,
        terminal: None,
    } = parse("g.withPath()").unwrap()
    else {
        panic!()
    };
    assert_eq!((source.len(), traversal.steps.len()), (1, 0));
    assert!(
        matches!(parse("g").unwrap(), Query::Traversal { ref traversal, .. } if traversal.steps.is_empty())
    );

    for start in [
        "V()",
        "E()",
        "addV('x')",
        "addE('x')",
        "inject(1)",
        "mergeV([:])",
        "mergeE([:])",
        "union(out())",
        "call('x')",
        "io('f')",
    ] {
        parse(&format!("g.{start}.count()")).unwrap_or_else(|e| panic!("{start}: {e}"));
    }
    let Query::Traversal { source, .. } =
        without_spans(&parse("g.withoutStrategies(ReadOnlyStrategy, CountStrategy).V()").unwrap())
    else {
        panic!()
    };
    assert_eq!(
        source[0].args,
        [
            Expr::Strategy(AstStrategy {
                name: "ReadOnlyStrategy".into(),
                config: vec![],
                span: Span::default()
            }),
            Expr::Strategy(AstStrategy {
                name: "CountStrategy".into(),
                config: vec![],
                span: Span::default()
            }),
        ]
    );
    let Query::Traversal { source, .. } = without_spans(&parse("g.withStrategies(ReadOnlyStrategy, new SeedStrategy(seed: 1), PartitionStrategy(partitionKey: '_p', new: 1)).V()").unwrap()) else { panic!() };
    assert_eq!(source[0].args.len(), 3);
    let Expr::Strategy(s) = &source[0].args[2] else {
        panic!()
    };
    assert_eq!(
        s.config.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        ["partitionKey", "new"]
    );

    // Whitespace and comments anywhere between tokens.
    let spaced =
        parse("g . V ( 1 , 2 ) // start\n  .out( 'knows' )\n\t.values ( 'name' ) ;").unwrap();
    assert!(same_ignoring_spans(
        &spaced,
        &parse("g.V(1,2).out('knows').values('name')").unwrap()
    ));

    let err = |text: &str| parse(text).unwrap_err().message;
    assert!(err("g.V().out().next().count()").contains("expected the end of the query"));
    assert!(err("g.V().toList(1)").contains("toList takes no arguments"));
    assert!(err("g.V().next('a')").contains("next takes nothing or one integer"));
    assert!(err("g.V(); g.E()").contains("expected the end of the query"));
    assert!(err("g.out()").contains("cannot start a traversal"));
    assert!(err("g.V().withSack(1)").contains("configures the traversal source"));
    assert!(err("g.V().io('x')").contains("can only start a traversal"));
    assert!(err("g.V().where(out().next())").contains("terminal method"));
    assert!(err("g.V(__.start())").contains("unknown step 'start'"));
    assert!(err("g.V(g.V().next())").contains("cannot be an argument"));
    assert!(err("g.V().has('a', new X())").contains("withStrategies"));
    assert!(err("g.tx().go()").contains("begin, commit or rollback"));
    assert!(err("x.V()").contains("a query starting with 'g'"));
    assert!(err("g.withStrategies(new ReadOnlyStrategy(x 1)).V()")
        .contains("':' after the configuration key x"));
}

// ----- Spans and errors --------------------------------------------------

#[test]
fn spans_cover_steps_traversals_and_parameters() {
    let text = "g.V(vid1).has('age', P.gt(30)).where(__.out('knows')).toList()";
    let Query::Traversal {
        traversal,
        terminal,
        ..
    } = parse(text).unwrap()
    else {
        panic!()
    };
    let at = |s: Span| &text[s.start..s.end];
    assert_eq!(
        at(traversal.span),
        "V(vid1).has('age', P.gt(30)).where(__.out('knows'))"
    );
    assert_eq!(at(traversal.steps[0].span), "V(vid1)");
    assert_eq!(at(traversal.steps[1].span), "has('age', P.gt(30))");
    let Expr::Var(name, span) = &traversal.steps[0].args[0] else {
        panic!()
    };
    assert_eq!((name.as_str(), at(*span)), ("vid1", "vid1"));
    let Expr::Pred(Pred::Call { span, .. }) = &traversal.steps[1].args[1] else {
        panic!()
    };
    assert_eq!(at(*span), "P.gt(30)");
    let Expr::Traversal(t) = &traversal.steps[2].args[0] else {
        panic!()
    };
    assert_eq!(at(t.span), "__.out('knows')");
    assert_eq!(at(t.steps[0].span), "out('knows')");
    assert_eq!(at(terminal.unwrap().span), "toList()");

    let text = "g.withStrategies(new SeedStrategy(seed: 1)).V()";
    let Query::Traversal { source, .. } = parse(text).unwrap() else {
        panic!()
    };
    let Expr::Strategy(s) = &source[0].args[0] else {
        panic!()
    };
    assert_eq!(&text[s.span.start..s.span.end], "new SeedStrategy(seed: 1)");
}

#[test]
fn errors_name_the_position_and_what_was_expected() {
    let e = parse("g.V().out(").unwrap_err();
    assert_eq!((e.offset, e.line, e.column), (10, 1, 11));
    assert!(e.message.contains("found end of input"), "{e}");

    let e = parse("g.V()\n  .out(\n").unwrap_err();
    assert_eq!((e.offset, e.line, e.column), (14, 3, 1));

    let e = parse("g.V().fooo()").unwrap_err();
    assert_eq!((e.offset, e.line, e.column), (6, 1, 7));
    assert_eq!(e.message, "unknown step 'fooo'");

    let e = parse("g.V().has('a' foo)").unwrap_err();
    assert_eq!(e.offset, 14);
    assert_eq!(
        e.message,
        "expected ',' or ')' after the arguments of has, found 'foo'"
    );

    let e = parse("g.V()\n\t.has('é', 'ü' 'x')").unwrap_err();
    assert_eq!((e.line, e.column), (2, 16));

    let e = parse("g.V().out('a').in(").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("syntax error at line 1, column 19 (byte 18)"),
        "{e}"
    );

    let e = parse("g.V(1) # x").unwrap_err();
    assert_eq!(e.offset, 7);
    assert!(e.message.contains("unexpected character '#'"), "{e}");

    // An earlier syntax error wins over a later lexical one.
    let e = parse("g.V().fooo('unterminated").unwrap_err();
    assert_eq!(e.message, "unknown step 'fooo'");
}

#[test]
fn nesting_is_bounded() {
    let deep =
        |open: &str, close: &str, n: usize| format!("g.V({}1{})", open.repeat(n), close.repeat(n));
    parse(&deep("[", "]", 200)).unwrap();
    for (open, close) in [
        ("[", "]"),
        ("{", "}"),
        ("__.out(", ")"),
        ("out(", ")"),
        ("P.not(", ")"),
        ("[(", "):1]"),
    ] {
        let e = parse(&deep(open, close, 100_000)).unwrap_err();
        assert!(e.message.contains("deeper than 256"), "{open}: {e}");
    }
    let chain = format!("g.V().has('a', gt(1){})", ".and(gt(1))".repeat(100_000));
    assert!(parse(&chain)
        .unwrap_err()
        .message
        .contains("deeper than 256"));
    let chain = format!("g.V().has('a', gt(1){})", ".negate()".repeat(200));
    parse(&chain).unwrap();
    // Long flat chains are fine.
    parse(&format!("g.V(){}", ".out()".repeat(100_000))).unwrap();
}

// ----- Random input ------------------------------------------------------

fn cases(default: u32) -> u32 {
    std::env::var("STRATAGRAPH_PARSE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn all_tokens() -> Vec<EnumToken> {
    use GTypeToken as G;
    let mut t = vec![
        EnumToken::T(TToken::Id),
        EnumToken::T(TToken::Label),
        EnumToken::T(TToken::Key),
        EnumToken::T(TToken::Value),
        EnumToken::Direction(DirectionToken::Out),
        EnumToken::Direction(DirectionToken::In),
        EnumToken::Direction(DirectionToken::Both),
        EnumToken::Order(OrderToken::Asc),
        EnumToken::Order(OrderToken::Desc),
        EnumToken::Order(OrderToken::Shuffle),
        EnumToken::Scope(ScopeToken::Local),
        EnumToken::Scope(ScopeToken::Global),
        EnumToken::Column(ColumnToken::Keys),
        EnumToken::Column(ColumnToken::Values),
        EnumToken::Pop(PopToken::First),
        EnumToken::Pop(PopToken::Last),
        EnumToken::Pop(PopToken::All),
        EnumToken::Pop(PopToken::Mixed),
        EnumToken::Cardinality(Cardinality::Single),
        EnumToken::Cardinality(Cardinality::Set),
        EnumToken::Cardinality(Cardinality::List),
        EnumToken::Pick(PickToken::Any),
        EnumToken::Pick(PickToken::None),
        EnumToken::Pick(PickToken::Unproductive),
        EnumToken::Merge(MergeToken::OnCreate),
        EnumToken::Merge(MergeToken::OnMatch),
        EnumToken::Merge(MergeToken::OutV),
        EnumToken::Merge(MergeToken::InV),
        EnumToken::Barrier(BarrierToken::NormSack),
        EnumToken::Dt(DtToken::Second),
        EnumToken::Dt(DtToken::Minute),
        EnumToken::Dt(DtToken::Hour),
        EnumToken::Dt(DtToken::Day),
    ];
    use OperatorToken as O;
    for o in [
        O::Sum,
        O::Minus,
        O::Mult,
        O::Div,
        O::Min,
        O::Max,
        O::Assign,
        O::And,
        O::Or,
        O::AddAll,
        O::SumLong,
    ] {
        t.push(EnumToken::Operator(o));
    }
    for g in [
        G::BigDecimal,
        G::BigInt,
        G::Binary,
        G::Boolean,
        G::Byte,
        G::Char,
        G::DateTime,
        G::Double,
        G::Duration,
        G::Edge,
        G::Float,
        G::Graph,
        G::Int,
        G::List,
        G::Long,
        G::Map,
        G::Null,
        G::Number,
        G::Path,
        G::Property,
        G::Set,
        G::Short,
        G::String,
        G::Tree,
        G::Uuid,
        G::Vertex,
        G::VProperty,
    ] {
        t.push(EnumToken::GType(g));
    }
    t
}

/// Identifiers that are not keywords: parameter names, configuration keys.
fn identifier() -> impl Strategy<Value = String> {
    "[a-zA-Z$_][a-zA-Z0-9_]{0,6}".prop_filter("not a keyword", |s| !names::is_keyword(s))
}

fn leaf() -> BoxedStrategy<Expr> {
    prop_oneof![
        Just(Expr::Null),
        any::<bool>().prop_map(Expr::Bool),
        any::<i8>().prop_map(Expr::Int8),
        any::<i16>().prop_map(Expr::Int16),
        any::<i32>().prop_map(Expr::Int32),
        any::<i64>().prop_map(Expr::Int64),
        any::<i128>().prop_map(Expr::BigInt),
        any::<f32>()
            .prop_filter("finite", |v| v.is_finite())
            .prop_map(Expr::Float32),
        proptest::num::f64::ANY.prop_map(Expr::Float64),
        "-?[0-9]{1,6}(\\.[0-9]{1,6})?".prop_map(Expr::BigDecimal),
        any::<String>().prop_map(Expr::String),
        proptest::option::of(any::<String>()).prop_map(Expr::DateTime),
        proptest::option::of(any::<[u8; 16]>()).prop_map(Expr::Uuid),
        (any::<i64>(), any::<i64>()).prop_map(|(a, b)| Expr::Range(a, b)),
        proptest::sample::select(all_tokens()).prop_map(Expr::Enum),
        identifier().prop_map(|n| Expr::Var(n, Span::default())),
    ]
    .boxed()
}

/// `asNumber` and `typeOf` read a bare `null` as `GType.NULL`, so a null
/// argument of theirs has no text; the generator leaves it out.
fn fit_args(name: &str, mut args: Vec<Expr>) -> Vec<Expr> {
    if name == "asNumber" || name == "typeOf" {
        args.retain(|a| *a != Expr::Null);
    }
    args
}

fn step_of(
    names: &'static [&'static str],
    arg: BoxedStrategy<Expr>,
) -> impl Strategy<Value = Step> {
    (
        proptest::sample::select(names),
        proptest::collection::vec(arg, 0..3),
    )
        .prop_map(|(name, args)| Step {
            name: name.to_string(),
            args: fit_args(name, args),
            span: Span::default(),
        })
}

fn pred(arg: BoxedStrategy<Expr>) -> BoxedStrategy<Pred> {
    let names: Vec<&'static str> = names::P_PREDICATES
        .iter()
        .chain(names::TEXT_PREDICATES)
        .copied()
        .filter(|n| *n != "not")
        .collect();
    let call = (
        proptest::sample::select(names),
        proptest::collection::vec(arg, 0..3),
    )
        .prop_map(|(name, args)| Pred::Call {
            name: name.to_string(),
            args: fit_args(name, args),
            span: Span::default(),
        });
    call.prop_recursive(3, 8, 2, |p| {
        prop_oneof![
            (p.clone(), p.clone()).prop_map(|(a, b)| Pred::And(Box::new(a), Box::new(b))),
            (p.clone(), p.clone()).prop_map(|(a, b)| Pred::Or(Box::new(a), Box::new(b))),
            p.prop_map(|a| Pred::Not(Box::new(a))),
        ]
    })
    .boxed()
}

fn expr() -> BoxedStrategy<Expr> {
    leaf()
        .prop_recursive(4, 32, 4, |inner| {
            use proptest::collection::vec;
            prop_oneof![
                vec(inner.clone(), 0..4).prop_map(Expr::List),
                vec(inner.clone(), 0..4).prop_map(Expr::Set),
                vec((inner.clone(), inner.clone()), 0..3).prop_map(Expr::Map),
                (
                    proptest::sample::select(vec![
                        Cardinality::Single,
                        Cardinality::Set,
                        Cardinality::List
                    ]),
                    inner.clone()
                )
                    .prop_map(|(c, v)| Expr::Cardinality(c, Box::new(v))),
                vec(step_of(names::STEPS, inner.clone()), 1..4).prop_map(|steps| Expr::Traversal(
                    Traversal {
                        steps,
                        span: Span::default()
                    }
                )),
                pred(inner).prop_map(Expr::Pred),
            ]
        })
        .boxed()
}

fn strategy(configurable: bool) -> impl Strategy<Value = Expr> {
    let config = if configurable { 0..3usize } else { 0..1usize };
    (
        "[A-Z][a-zA-Z]{0,6}Strategy",
        proptest::collection::vec((identifier(), expr()), config),
    )
        .prop_map(|(name, config)| {
            Expr::Strategy(AstStrategy {
                name,
                config,
                span: Span::default(),
            })
        })
}

fn source_step() -> impl Strategy<Value = Step> {
    let step = |name: &str, args: Vec<Expr>| Step {
        name: name.to_string(),
        args,
        span: Span::default(),
    };
    let s = |t: String| Expr::String(t);
    prop_oneof![
        expr().prop_map(move |e| step("withSack", vec![e])),
        (any::<String>(), expr()).prop_map(move |(k, e)| step("withSideEffect", vec![s(k), e])),
        any::<bool>().prop_map(move |b| step("withBulk", vec![Expr::Bool(b)])),
        Just(step("withPath", vec![])),
        (any::<String>(), expr()).prop_map(move |(k, e)| step("with", vec![s(k), e])),
        proptest::collection::vec(strategy(true), 1..3)
            .prop_map(move |a| step("withStrategies", a)),
        proptest::collection::vec(strategy(false), 1..3)
            .prop_map(move |a| step("withoutStrategies", a)),
    ]
}

fn query() -> impl Strategy<Value = Query> {
    use proptest::collection::vec;
    let terminal = proptest::option::of((
        proptest::sample::select(names::TERMINALS),
        any::<i32>(),
        any::<bool>(),
    ))
    .prop_map(|t| {
        t.map(|(name, n, with_arg)| Terminal {
            name: name.to_string(),
            args: if name == "next" && with_arg {
                vec![Expr::Int32(n)]
            } else {
                vec![]
            },
            span: Span::default(),
        })
    });
    let traversal = (
        vec(source_step(), 0..3),
        step_of(names::START_STEPS, expr()),
        vec(step_of(names::STEPS, expr()), 0..4),
        terminal,
    )
        .prop_map(|(source, first, rest, terminal)| {
            let mut steps = vec![first];
            steps.extend(rest);
            Query::Traversal {
                source,
                traversal: Traversal {
                    steps,
                    span: Span::default(),
                },
                terminal,
            }
        });
    let bare_source = vec(source_step(), 0..3).prop_map(|source| Query::Traversal {
        source,
        traversal: Traversal::default(),
        terminal: None,
    });
    let tx = (
        vec(source_step(), 0..2),
        proptest::sample::select(vec![TxOp::Begin, TxOp::Commit, TxOp::Rollback]),
    )
        .prop_map(|(source, op)| Query::Tx { source, op });
    prop_oneof![8 => traversal, 1 => bare_source, 1 => tx, 1 => Just(Query::Empty)]
}

/// Characters that make mutated traversals interesting to the parser.
const MUTATION_CHARS: &[char] = &[
    '(', ')', '[', ']', '{', '}', '.', ',', ':', ';', '\'', '"', '\\', '-', '+', '_', ' ', '\n',
    '0', '1', '9', 'e', 'f', 'L', 'n', 'x', 'g', 'P', 'u', '/', '#', 'é', '\u{0}',
];

fn mutate(text: &str, edits: &[(u8, usize, usize, usize)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for &(kind, at, len, pick) in edits {
        let at = if chars.is_empty() {
            0
        } else {
            at % (chars.len() + 1)
        };
        let end = (at + len % 8).min(chars.len());
        match kind % 5 {
            0 => {
                chars.drain(at..end);
            }
            1 => chars.insert(at, MUTATION_CHARS[pick % MUTATION_CHARS.len()]),
            2 => {
                let copy: Vec<char> = chars[at..end].to_vec();
                chars.splice(at..at, copy);
            }
            3 => chars.truncate(at),
            _ => {
                if at < chars.len() {
                    chars[at] = MUTATION_CHARS[pick % MUTATION_CHARS.len()];
                }
            }
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(10_000), ..ProptestConfig::default() })]

    #[test]
    fn printed_queries_parse_back_equal(q in query()) {
        let text = q.to_string();
        let back = parse(&text).map_err(|e| TestCaseError::fail(format!("{e}\n{text}")))?;
        prop_assert!(same_ignoring_spans(&q, &back), "{text}\n{q:?}\n{back:?}");
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..300)) {
        let _ = parse(&String::from_utf8_lossy(&bytes));
    }

    #[test]
    fn random_gremlinish_text_never_panics(text in "[gV_.()\\[\\]{}:,'\"\\\\0-9a-zA-Z \n-]{0,120}") {
        let _ = parse(&text);
    }
}

#[test]
fn mutated_feature_traversals_never_panic() {
    let texts = feature_traversals();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: cases(10_000),
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    let edits = proptest::collection::vec(
        (any::<u8>(), any::<usize>(), any::<usize>(), any::<usize>()),
        1..6,
    );
    runner
        .run(&(0..texts.len(), edits), |(i, edits)| {
            let text = mutate(&texts[i].text, &edits);
            if let Ok(q) = parse(&text) {
                // Whatever parses prints back to itself.
                let printed = q.to_string();
                let again =
                    parse(&printed).map_err(|e| TestCaseError::fail(format!("{e}\n{printed}")))?;
                prop_assert!(same_ignoring_spans(&q, &again), "{text}\n{printed}");
            }
            Ok(())
        })
        .unwrap();
}
