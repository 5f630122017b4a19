//! Random values and messages survive encode → decode unchanged, in both
//! formats (GraphSON for every value it can express: all but `Custom`).

mod common;

use std::net::IpAddr;

use proptest::prelude::*;
use stratagraph_server::wire::{
    graphbinary, graphson, Bytecode, Edge, EncodeError, EnumKind, Graph, Instruction, LocalDate,
    LocalDateTime, Metrics, OffsetDateTime, Path, Property, RequestMessage, ResponseMessage,
    ResultBody, Status, TraversalMetrics, Tree, Vertex, VertexProperty, Wire, MAX_DEPTH,
};

/// A float with one `NaN`: GraphSON writes `"NaN"`, which reads back as
/// the canonical one.
fn double() -> impl Strategy<Value = f64> {
    any::<f64>().prop_map(|f| if f.is_nan() { f64::NAN } else { f })
}

fn float() -> impl Strategy<Value = f32> {
    any::<f32>().prop_map(|f| if f.is_nan() { f32::NAN } else { f })
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-zA-Z0-9_]{0,8}",
        ".{0,6}",
        Just("@type".to_owned()),
        Just(String::new()),
    ]
}

const MAX_YEAR: i32 = 999_999_999;

fn local_date() -> impl Strategy<Value = LocalDate> {
    (
        prop_oneof![-3000..3000_i32, -MAX_YEAR..=MAX_YEAR],
        1..=12_u8,
        1..=28_u8,
    )
        .prop_map(|(year, month, day)| LocalDate { year, month, day })
}

fn nanos_of_day() -> impl Strategy<Value = i64> {
    prop_oneof![
        0..86_400_000_000_000_i64,
        (0..86_400_i64).prop_map(|s| s * 1_000_000_000),
        (0..86_400_000_i64).prop_map(|ms| ms * 1_000_000),
    ]
}

fn offset() -> impl Strategy<Value = i32> {
    prop_oneof![-64_800..=64_800_i32, (-18..=18_i32).prop_map(|h| h * 3600)]
}

fn offset_date_time() -> impl Strategy<Value = OffsetDateTime> {
    (local_date(), nanos_of_day(), offset()).prop_map(|(date, nanos_of_day, offset_seconds)| {
        OffsetDateTime {
            date_time: LocalDateTime { date, nanos_of_day },
            offset_seconds,
        }
    })
}

fn leaf(with_custom: bool) -> BoxedStrategy<Wire> {
    let mut leaves = vec![
        Just(Wire::Null).boxed(),
        any::<bool>().prop_map(Wire::Bool).boxed(),
        any::<i8>().prop_map(Wire::Byte).boxed(),
        any::<i16>().prop_map(Wire::Short).boxed(),
        any::<i32>().prop_map(Wire::Int).boxed(),
        any::<i64>().prop_map(Wire::Long).boxed(),
        any::<i128>().prop_map(Wire::BigInteger).boxed(),
        float().prop_map(Wire::Float).boxed(),
        double().prop_map(Wire::Double).boxed(),
        (any::<i32>(), any::<i128>())
            .prop_map(|(scale, unscaled)| Wire::BigDecimal { scale, unscaled })
            .boxed(),
        (-3..3_i32, -100_000..100_000_i128)
            .prop_map(|(scale, unscaled)| Wire::BigDecimal { scale, unscaled })
            .boxed(),
        text().prop_map(Wire::String).boxed(),
        any::<[u8; 16]>().prop_map(Wire::Uuid).boxed(),
        any::<i64>().prop_map(Wire::Date).boxed(),
        any::<i64>().prop_map(Wire::Timestamp).boxed(),
        offset_date_time().prop_map(Wire::OffsetDateTime).boxed(),
        offset_date_time().prop_map(Wire::ZonedDateTime).boxed(),
        (any::<i64>(), 0..1_000_000_000_i32)
            .prop_map(|(seconds, nanos)| Wire::Duration { seconds, nanos })
            .boxed(),
        (
            -31_000_000_000_000_000..31_000_000_000_000_000_i64,
            0..1_000_000_000_i32,
        )
            .prop_map(|(seconds, nanos)| Wire::Instant { seconds, nanos })
            .boxed(),
        local_date().prop_map(Wire::LocalDate).boxed(),
        (local_date(), nanos_of_day())
            .prop_map(|(date, nanos_of_day)| {
                Wire::LocalDateTime(LocalDateTime { date, nanos_of_day })
            })
            .boxed(),
        nanos_of_day().prop_map(Wire::LocalTime).boxed(),
        (1..=12_u8, 1..=29_u8)
            .prop_map(|(month, day)| Wire::MonthDay { month, day })
            .boxed(),
        (nanos_of_day(), offset())
            .prop_map(|(nanos_of_day, offset_seconds)| Wire::OffsetTime {
                nanos_of_day,
                offset_seconds,
            })
            .boxed(),
        (any::<i32>(), any::<i32>(), any::<i32>())
            .prop_map(|(years, months, days)| Wire::Period {
                years,
                months,
                days,
            })
            .boxed(),
        (-MAX_YEAR..=MAX_YEAR).prop_map(Wire::Year).boxed(),
        (-MAX_YEAR..=MAX_YEAR, 1..=12_u8)
            .prop_map(|(year, month)| Wire::YearMonth { year, month })
            .boxed(),
        offset().prop_map(Wire::ZoneOffset).boxed(),
        any::<char>().prop_map(Wire::Char).boxed(),
        prop::collection::vec(any::<u8>(), 0..12)
            .prop_map(Wire::ByteBuffer)
            .boxed(),
        any::<IpAddr>().prop_map(Wire::InetAddress).boxed(),
        (prop::sample::select(EnumKind::ALL.to_vec()), text())
            .prop_map(|(kind, name)| Wire::Enum { kind, name })
            .boxed(),
        (text(), text(), any::<i32>())
            .prop_map(|(language, script, arguments)| Wire::Lambda {
                language,
                script,
                arguments,
            })
            .boxed(),
        text().prop_map(Wire::Class).boxed(),
    ];
    if with_custom {
        leaves.push(
            (
                text(),
                prop::collection::vec(any::<u8>(), 0..6),
                prop::collection::vec(any::<u8>(), 0..6),
            )
                .prop_map(|(name, type_info, blob)| Wire::Custom {
                    name,
                    type_info,
                    blob,
                })
                .boxed(),
        );
    }
    prop::strategy::Union::new(leaves).boxed()
}

fn properties(inner: BoxedStrategy<Wire>) -> impl Strategy<Value = Vec<Property>> {
    prop::collection::vec(
        (text(), inner).prop_map(|(key, value)| Property { key, value }),
        0..3,
    )
}

/// Vertex properties in GraphSON's order: grouped by label.
fn vertex_properties(inner: BoxedStrategy<Wire>) -> impl Strategy<Value = Vec<VertexProperty>> {
    prop::collection::vec(
        (inner.clone(), "[a-c]", inner.clone(), properties(inner)).prop_map(
            |(id, label, value, properties)| VertexProperty {
                id,
                label,
                value,
                properties,
            },
        ),
        0..3,
    )
    .prop_map(|mut vps| {
        vps.sort_by(|a, b| a.label.cmp(&b.label));
        vps
    })
}

fn metrics(inner: BoxedStrategy<Wire>, nested: bool) -> BoxedStrategy<Metrics> {
    let sub = if nested {
        prop::collection::vec(metrics(inner.clone(), false), 0..2).boxed()
    } else {
        Just(Vec::new()).boxed()
    };
    (
        text(),
        text(),
        0..1_000_000_000_000_i64,
        prop::collection::vec((text(), any::<i64>()), 0..3),
        prop::collection::vec((text(), inner), 0..2),
        sub,
    )
        .prop_map(
            |(id, name, duration_nanos, counts, annotations, nested)| Metrics {
                id,
                name,
                duration_nanos,
                counts,
                annotations,
                nested,
            },
        )
        .boxed()
}

fn instructions(inner: BoxedStrategy<Wire>) -> impl Strategy<Value = Vec<Instruction>> {
    prop::collection::vec(
        ("[a-zA-Z]{1,8}", prop::collection::vec(inner, 0..3))
            .prop_map(|(operator, args)| Instruction { operator, args }),
        0..3,
    )
}

fn tree(inner: BoxedStrategy<Wire>) -> impl Strategy<Value = Tree> {
    let leaf_tree = Just(Tree::default()).boxed();
    leaf_tree.prop_recursive(3, 8, 3, move |sub| {
        prop::collection::vec((inner.clone(), sub), 0..3).prop_map(|branches| Tree { branches })
    })
}

/// A graph whose edges join its own vertices, with their labels (what
/// GraphBinary, which does not carry edge end labels, can give back).
fn graph(inner: BoxedStrategy<Wire>) -> impl Strategy<Value = Graph> {
    (
        prop::collection::vec(("[a-z]{0,4}", vertex_properties(inner.clone())), 0..4),
        prop::collection::vec(
            (
                inner.clone(),
                text(),
                any::<usize>(),
                any::<usize>(),
                properties(inner),
            ),
            0..4,
        ),
    )
        .prop_map(|(vs, es)| {
            let vertices: Vec<Vertex> = vs
                .into_iter()
                .enumerate()
                .map(|(i, (label, properties))| Vertex {
                    id: Wire::Long(i as i64),
                    label,
                    properties,
                })
                .collect();
            let edges = if vertices.is_empty() {
                Vec::new()
            } else {
                es.into_iter()
                    .map(|(id, label, a, b, properties)| {
                        let (out_v, in_v) =
                            (&vertices[a % vertices.len()], &vertices[b % vertices.len()]);
                        Edge {
                            id,
                            label,
                            in_v_id: in_v.id.clone(),
                            in_v_label: in_v.label.clone(),
                            out_v_id: out_v.id.clone(),
                            out_v_label: out_v.label.clone(),
                            properties,
                        }
                    })
                    .collect()
            };
            Graph { vertices, edges }
        })
}

fn wire(with_custom: bool) -> impl Strategy<Value = Wire> {
    leaf(with_custom).prop_recursive(4, 48, 4, |inner| {
        let list = prop::collection::vec(inner.clone(), 0..4);
        let strategy_class = "[a-z]{1,4}(\\.[a-z]{1,4}){0,2}\\.[A-Z][a-z]{0,5}Strategy";
        prop_oneof![
            list.clone().prop_map(Wire::List),
            list.clone().prop_map(Wire::Set),
            prop::collection::vec((inner.clone(), inner.clone()), 0..3).prop_map(Wire::Map),
            (inner.clone(), text(), vertex_properties(inner.clone())).prop_map(
                |(id, label, properties)| Wire::Vertex(Box::new(Vertex {
                    id,
                    label,
                    properties
                }))
            ),
            (
                (inner.clone(), text(), inner.clone(), text()),
                (inner.clone(), text(), properties(inner.clone()))
            )
                .prop_map(
                    |((id, label, in_v_id, in_v_label), (out_v_id, out_v_label, properties))| {
                        Wire::Edge(Box::new(Edge {
                            id,
                            label,
                            in_v_id,
                            in_v_label,
                            out_v_id,
                            out_v_label,
                            properties,
                        }))
                    }
                ),
            vertex_properties(inner.clone()).prop_filter_map("one", |mut v| v
                .pop()
                .map(|vp| Wire::VertexProperty(Box::new(vp)))),
            (text(), inner.clone())
                .prop_map(|(key, value)| Wire::Property(Box::new(Property { key, value }))),
            (
                prop::collection::vec(prop::collection::vec(text(), 0..3), 0..3),
                list.clone()
            )
                .prop_map(|(labels, objects)| Wire::Path(Box::new(Path { labels, objects }))),
            graph(inner.clone()).prop_map(|g| Wire::Graph(Box::new(g))),
            prop::collection::vec((inner.clone(), any::<i64>()), 0..3).prop_map(Wire::BulkSet),
            (any::<i64>(), inner.clone()).prop_map(|(bulk, value)| Wire::Traverser {
                bulk,
                value: Box::new(value)
            }),
            tree(inner.clone()).prop_map(Wire::Tree),
            (
                prop::sample::select(vec!["gt", "within", "without", "and", "or", "between", "x"]),
                list.clone()
            )
                .prop_map(|(name, values)| Wire::P {
                    name: name.to_owned(),
                    values
                }),
            (text(), list.clone()).prop_map(|(name, values)| Wire::TextP { name, values }),
            (text(), inner.clone()).prop_map(|(key, value)| Wire::Binding {
                key,
                value: Box::new(value)
            }),
            (
                strategy_class,
                prop::collection::vec((inner.clone(), inner.clone()), 0..3)
            )
                .prop_map(|(class, config)| Wire::TraversalStrategy { class, config }),
            (
                strategy_class,
                prop::collection::vec((text().prop_map(Wire::String), inner.clone()), 0..3)
            )
                .prop_map(|(class, config)| Wire::TraversalStrategy { class, config }),
            (instructions(inner.clone()), instructions(inner.clone()))
                .prop_map(|(steps, sources)| Wire::Bytecode(Box::new(Bytecode { steps, sources }))),
            metrics(inner.clone(), true).prop_map(|m| Wire::Metrics(Box::new(m))),
            (
                0..1_000_000_000_000_i64,
                prop::collection::vec(metrics(inner, true), 0..2)
            )
                .prop_map(|(duration_nanos, metrics)| Wire::TraversalMetrics(
                    Box::new(TraversalMetrics {
                        duration_nanos,
                        metrics
                    })
                )),
        ]
    })
}

fn string_pairs() -> impl Strategy<Value = Vec<(String, Wire)>> {
    prop::collection::vec((text(), wire(false)), 0..3)
}

fn request() -> impl Strategy<Value = RequestMessage> {
    (any::<[u8; 16]>(), text(), text(), string_pairs()).prop_map(
        |(request_id, op, processor, args)| RequestMessage {
            request_id,
            op,
            processor,
            args,
        },
    )
}

fn response() -> impl Strategy<Value = ResponseMessage> {
    (
        proptest::option::of(any::<[u8; 16]>()),
        any::<u16>(),
        proptest::option::of(text()),
        string_pairs(),
        string_pairs(),
        wire(false),
    )
        .prop_map(
            |(request_id, code, message, attributes, meta, data)| ResponseMessage {
                request_id,
                status: Status {
                    code,
                    message,
                    attributes,
                },
                result: ResultBody { meta, data },
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn graphbinary_values_round_trip(v in wire(true)) {
        let bytes = graphbinary::encode(&v).expect("encode");
        prop_assert_eq!(graphbinary::decode(&bytes), Ok(v));
    }

    #[test]
    fn graphson_values_round_trip(v in wire(false)) {
        let text = graphson::encode(&v).expect("encode");
        prop_assert_eq!(graphson::decode(text.as_bytes()), Ok(v), "{}", text);
    }

    #[test]
    fn graphson_output_is_json(v in wire(false)) {
        let text = graphson::encode(&v).expect("encode");
        // serde_json refuses numbers past f64's range (a BigDecimal of 1E+400),
        // which JSON's grammar allows.
        if let Err(e) = serde_json::from_str::<serde_json::Value>(&text) {
            prop_assert!(e.to_string().contains("number out of range"), "{}: {}", e, text);
        }
    }

    #[test]
    fn requests_round_trip(r in request()) {
        let bytes = graphbinary::encode_request(&r).expect("encode");
        prop_assert_eq!(graphbinary::decode_request(&bytes), Ok(r.clone()));
        let text = graphson::encode_request(&r).expect("encode");
        prop_assert_eq!(graphson::decode_request(text.as_bytes()), Ok(r), "{}", text);
    }

    #[test]
    fn responses_round_trip(r in response()) {
        let bytes = graphbinary::encode_response(&r).expect("encode");
        prop_assert_eq!(graphbinary::decode_response(&bytes), Ok(r.clone()));
        let text = graphson::encode_response(&r).expect("encode");
        prop_assert_eq!(graphson::decode_response(text.as_bytes()), Ok(r), "{}", text);
    }
}

fn nested_lists(depth: usize) -> Wire {
    let mut v = Wire::Int(1);
    for _ in 1..depth {
        v = Wire::List(vec![v]);
    }
    v
}

#[test]
fn nesting_up_to_the_limit_round_trips_and_past_it_is_refused() {
    let ok = nested_lists(MAX_DEPTH);
    let bytes = graphbinary::encode(&ok).expect("at the limit");
    assert_eq!(graphbinary::decode(&bytes).as_ref(), Ok(&ok));
    let text = graphson::encode(&ok).expect("at the limit");
    assert_eq!(graphson::decode(text.as_bytes()).as_ref(), Ok(&ok));

    let deep = nested_lists(MAX_DEPTH + 1);
    assert_eq!(
        graphbinary::encode(&deep),
        Err(EncodeError::TooDeep { limit: MAX_DEPTH })
    );
    assert_eq!(
        graphson::encode(&deep),
        Err(EncodeError::TooDeep { limit: MAX_DEPTH })
    );
}

#[test]
fn graphson_refuses_custom_values() {
    let custom = Wire::Custom {
        name: "janusgraph.RelationIdentifier".into(),
        type_info: vec![],
        blob: vec![1, 2],
    };
    assert!(matches!(
        graphson::encode(&custom),
        Err(EncodeError::NotExpressible { .. })
    ));
}

#[test]
fn out_of_range_time_values_are_refused_when_encoded() {
    let bad = [
        Wire::LocalDate(LocalDate {
            year: 2021,
            month: 2,
            day: 29,
        }),
        Wire::MonthDay { month: 13, day: 1 },
        Wire::ZoneOffset(18 * 3600 + 1),
        Wire::Duration {
            seconds: 0,
            nanos: 1_000_000_000,
        },
        Wire::LocalTime(-1),
    ];
    for v in bad {
        assert!(
            matches!(
                graphbinary::encode(&v),
                Err(EncodeError::InvalidValue { .. })
            ),
            "{v:?}"
        );
        assert!(
            matches!(graphson::encode(&v), Err(EncodeError::InvalidValue { .. })),
            "{v:?}"
        );
    }
}
