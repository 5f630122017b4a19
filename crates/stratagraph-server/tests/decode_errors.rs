//! Malformed input is refused with an error that says what and where, and
//! lengths from the input never drive an allocation past the input's size.

mod common;

use common::hex;
use stratagraph_server::wire::{graphbinary, graphson, DecodeError, Wire, MAX_DEPTH};

fn gb_err(bytes: &str) -> String {
    match graphbinary::decode(&hex(bytes)) {
        Ok(v) => panic!("{bytes} decoded to {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn graphbinary_errors_say_what_and_where() {
    assert_eq!(gb_err("7f00"), "unknown type code 0x7f at byte 0");
    // A list of one Int, then an unknown code as the second item.
    assert_eq!(
        gb_err("09000000000201000000000131"),
        "unknown type code 0x31 at byte 12"
    );
    assert_eq!(gb_err("0300fffffffd"), "String length -3 at byte 2");
    assert_eq!(
        gb_err("03000000000a616263"),
        "truncated: String needs 10 bytes at byte 6, 3 left"
    );
    assert_eq!(
        gb_err("0102"),
        "value flag 0x02 for type code 0x01 at byte 1"
    );
    assert_eq!(
        gb_err("01000000000100"),
        "1 bytes left over after the value at byte 6"
    );
    assert_eq!(
        gb_err("2300000000110100000000000000000000000000000000"),
        "invalid BigInteger at byte 6: 17 bytes of two's complement exceed 128 bits"
    );
    assert_eq!(
        gb_err("8400000007e50d01"),
        "invalid LocalDate at byte 2: month 13 outside 1..=12"
    );
    assert_eq!(
        gb_err("110003000000000161"),
        "truncated: Vertex label needs 4 bytes at byte 9, 0 left"
    );
    assert_eq!(
        gb_err("11000100000000010000000178010000000005"),
        "Vertex properties at byte 13: expected List of VertexProperty, found Int"
    );
    assert_eq!(
        gb_err("0e00010000000001fe01"),
        "Path labels at byte 2: expected List, found Int"
    );
    assert_eq!(
        gb_err("8000ff"),
        "invalid Char at byte 2: not one UTF-8 character"
    );
    assert_eq!(
        gb_err("030000000002c328"),
        "invalid String at byte 6: not UTF-8 after 0 bytes"
    );
    assert_eq!(
        gb_err("2700"),
        "truncated: Boolean needs 1 bytes at byte 2, 0 left"
    );
}

#[test]
fn graphbinary_message_errors_say_what_and_where() {
    let err = graphbinary::decode_request(&hex("8041d2")).map(|_| ());
    assert_eq!(
        err.map_err(|e| e.to_string()),
        Err("message version 0x80 at byte 0, expected 0x81".to_owned())
    );
    // Version, uuid, op "", processor "", one argument whose name is an Int.
    let body = format!(
        "81{}{}{}{}{}",
        "00".repeat(16),
        "00000000",
        "00000000",
        "00000001",
        "010000000001fe01"
    );
    assert_eq!(
        graphbinary::decode_request(&hex(&body))
            .map_err(|e| e.to_string())
            .map(|_| ()),
        Err("request arguments at byte 29: expected String keys, found Int".to_owned())
    );
}

#[test]
fn huge_counts_are_refused_without_allocating_for_them() {
    // A List, Map, BulkSet and Bytecode each claiming 2^31-1 items in a few
    // bytes: each fails on the first missing item, not on memory.
    for prefix in [
        "09007fffffff",
        "0a007fffffff",
        "2a007fffffff",
        "15007fffffff",
        "10007fffffff",
    ] {
        let e = graphbinary::decode(&hex(prefix));
        assert!(
            matches!(e, Err(DecodeError::Truncated { .. })),
            "{prefix}: {e:?}"
        );
    }
    let e = graphbinary::decode(&hex("03007fffffff41"));
    assert!(
        matches!(
            e,
            Err(DecodeError::Truncated {
                needed: 0x7fff_ffff,
                left: 1,
                ..
            })
        ),
        "{e:?}"
    );
}

#[test]
fn nesting_past_the_limit_is_refused_in_both_formats() {
    // MAX_DEPTH + 1 lists of one item each.
    let mut bytes = Vec::new();
    for _ in 0..=MAX_DEPTH {
        bytes.extend_from_slice(&hex("090000000001"));
    }
    bytes.extend_from_slice(&hex("fe01"));
    assert!(matches!(
        graphbinary::decode(&bytes),
        Err(DecodeError::TooDeep {
            limit: MAX_DEPTH,
            ..
        })
    ));
    // Trees recurse without a type code at each level: counted all the same.
    let mut tree = hex("2b00");
    for _ in 0..=MAX_DEPTH {
        tree.extend_from_slice(&hex("00000001fe01"));
    }
    assert!(matches!(
        graphbinary::decode(&tree),
        Err(DecodeError::TooDeep { .. })
    ));

    let json = format!(
        "{}1{}",
        "[".repeat(MAX_DEPTH + 1),
        "]".repeat(MAX_DEPTH + 1)
    );
    assert!(matches!(
        graphson::decode(json.as_bytes()),
        Err(DecodeError::GraphSonTooDeep {
            limit: MAX_DEPTH,
            ..
        })
    ));
    let json = format!("{}1{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(
        graphson::decode(json.as_bytes()),
        Err(DecodeError::Json { .. })
    ));
}

fn gs_err(text: &str) -> String {
    match graphson::decode(text.as_bytes()) {
        Ok(v) => panic!("{text} decoded to {v:?}"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn graphson_errors_say_what_and_where() {
    assert_eq!(
        gs_err(r#"{"@type":"g:Int32","@value":2147483648}"#),
        "g:Int32 at $[\"@value\"]: 2147483648 is out of range for Int32"
    );
    assert_eq!(
        gs_err(r#"{"@type":"g:Nope","@value":1}"#),
        "unknown GraphSON type \"g:Nope\" at $"
    );
    assert_eq!(
        gs_err(r#"{"@type":"g:Map","@value":["a"]}"#),
        "g:Map at $[\"@value\"]: 1 items, expected key-value pairs"
    );
    assert_eq!(
        gs_err(r#"{"@type":"gx:BigInteger","@value":"1234567890123456789012345678901234567890"}"#),
        "gx:BigInteger at $[\"@value\"]: BigInteger 1234567890123456789012345678901234567890 exceeds 128 bits"
    );
    assert_eq!(
        gs_err(r#"{"@type":"g:Vertex","@value":{"label":"x"}}"#),
        "g:Vertex at $[\"@value\"]: missing \"id\""
    );
    assert_eq!(
        gs_err(r#"{"@type":"gx:LocalDate","@value":"2021-02-29"}"#),
        "gx:LocalDate at $[\"@value\"]: \"2021-02-29\": day 29 of month 2 in year 2021"
    );
    assert_eq!(
        gs_err("[1, 2"),
        "invalid JSON at byte 5: expected ',' or ']'"
    );
    assert_eq!(
        gs_err("\u{0}"),
        "invalid JSON at byte 0: unexpected character"
    );
    assert!(gs_err("\"\\ud800x\"").starts_with("invalid JSON at byte 3"));
    assert!(matches!(
        graphson::decode(&[0x22, 0xff, 0x22]),
        Err(DecodeError::Json { offset: 1, .. })
    ));
}

#[test]
fn graphson_message_errors_say_what_and_where() {
    let e = graphson::decode_request(br#"{"requestId":"nope","op":"eval"}"#);
    assert_eq!(
        e.map(|_| ()).map_err(|e| e.to_string()),
        Err("at $.requestId: \"nope\" is not a UUID".to_owned())
    );
    let e = graphson::decode_request(br#"{"requestId":"41d2e28a-20a4-4ab0-b379-d810dede3786"}"#);
    assert_eq!(
        e.map(|_| ()).map_err(|e| e.to_string()),
        Err("at $: missing \"op\"".to_owned())
    );
    let e = graphson::decode_response(
        br#"{"requestId":null,"status":{"code":70000},"result":{"data":null}}"#,
    );
    assert_eq!(
        e.map(|_| ()).map_err(|e| e.to_string()),
        Err("at $.status.code: status code must be 0..=65535, found Int".to_owned())
    );
}

#[test]
fn typed_nulls_decode_as_null() {
    for bytes in ["0101", "0301", "1101", "fe01", "00000000000000000001"] {
        assert_eq!(graphbinary::decode(&hex(bytes)), Ok(Wire::Null), "{bytes}");
    }
    assert_eq!(graphson::decode(br#"{"@type":"g:Int32"}"#), Ok(Wire::Null));
}
