//! Random and mutated input into every decoder: each call returns `Ok` or a
//! `DecodeError`, never panics; what GraphBinary decodes re-encodes to
//! bytes that decode to the same value.
//!
//! Seeds are the reference vectors and responses; mutations flip bits,
//! truncate, splice, repeat slices, overwrite 4-byte windows with huge or
//! negative lengths and, for GraphSON, swap one `@type` for another and
//! deepen nesting. `STRATAGRAPH_FUZZ_CASES` sets the number of cases per
//! format (default 100000), `STRATAGRAPH_FUZZ_SEED` the random seed.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::{hex, to_hex, vectors};
use stratagraph_server::wire::{frame, graphbinary, graphson};

const GRAPHBINARY: &str = include_str!("vectors/graphbinary.txt");
const GRAPHSON: &str = include_str!("vectors/graphson.txt");
const RESPONSES: &str = include_str!("vectors/responses.txt");

/// xorshift64*: small, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn cases() -> usize {
    std::env::var("STRATAGRAPH_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100_000)
}

fn seed() -> u64 {
    std::env::var("STRATAGRAPH_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5eed_cafe_f00d_beef)
}

/// Lengths a decoder must not trust.
const HOSTILE_INTS: [u32; 8] = [
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0xffff_fffd,
    0x0100_0000,
    0x0000_ffff,
    0,
    1,
];

fn mutate(
    rng: &mut Rng,
    seeds: &[Vec<u8>],
    input: &mut Vec<u8>,
    extra: &dyn Fn(&mut Rng, &mut Vec<u8>),
) {
    for _ in 0..1 + rng.below(4) {
        let len = input.len();
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                input[i] = rng.next() as u8;
            }
            2 => input.truncate(rng.below(len + 1)),
            3 if len >= 4 => {
                let i = rng.below(len - 3);
                let v = HOSTILE_INTS[rng.below(HOSTILE_INTS.len())];
                input[i..i + 4].copy_from_slice(&v.to_be_bytes());
            }
            4 => {
                let i = rng.below(len + 1);
                let n = 1 + rng.below(8);
                let bytes: Vec<u8> = (0..n).map(|_| rng.next() as u8).collect();
                input.splice(i..i, bytes);
            }
            5 if len > 0 => {
                // Repeat a slice: deepens or lengthens what is there.
                let a = rng.below(len);
                let b = (a + 1 + rng.below(16)).min(len);
                let piece = input[a..b].to_vec();
                let times = 1 + rng.below(64);
                for _ in 0..times {
                    input.splice(a..a, piece.iter().copied());
                }
            }
            6 if !seeds.is_empty() => {
                // Splice in part of another seed.
                let other = &seeds[rng.below(seeds.len())];
                let a = rng.below(other.len() + 1);
                let b = a + rng.below(other.len() - a + 1);
                let at = rng.below(len + 1);
                input.splice(at..at, other[a..b].iter().copied());
            }
            7 if len > 0 => {
                let a = rng.below(len);
                let b = (a + 1 + rng.below(8)).min(len);
                input.drain(a..b);
            }
            _ => extra(rng, input),
        }
    }
}

/// Runs `f`, failing the test with the input if it panics.
fn no_panic(what: &str, input: &[u8], f: impl FnOnce()) {
    if catch_unwind(AssertUnwindSafe(f)).is_err() {
        panic!("{what} panicked on input {}", to_hex(input));
    }
}

fn graphbinary_seeds() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = vectors(GRAPHBINARY)
        .into_iter()
        .map(|(_, h)| hex(h))
        .collect();
    for (_, line) in vectors(RESPONSES) {
        if let Some(h) = line.strip_prefix("graphbinary\t") {
            seeds.push(hex(h));
        }
    }
    seeds
}

/// Runs every GraphBinary decoder on `input`; `true` if it decoded as a value.
fn check_graphbinary(input: &[u8]) -> bool {
    let mut decoded = false;
    no_panic("graphbinary::decode", input, || {
        if let Ok(v) = graphbinary::decode(input) {
            decoded = true;
            let again = graphbinary::encode(&v)
                .unwrap_or_else(|e| panic!("decoded value does not re-encode: {e}"));
            assert_eq!(
                graphbinary::decode(&again),
                Ok(v),
                "re-encoded value differs"
            );
        }
    });
    no_panic("graphbinary::decode_prefix", input, || {
        let _ = graphbinary::decode_prefix(input);
    });
    no_panic("graphbinary::decode_request", input, || {
        let body = frame::split_mime_header(input)
            .map(|(_, b)| b)
            .unwrap_or(input);
        let _ = graphbinary::decode_request(body);
        let _ = graphbinary::decode_request(input);
    });
    no_panic("graphbinary::decode_response", input, || {
        if let Ok(r) = graphbinary::decode_response(input) {
            let again = graphbinary::encode_response(&r).expect("re-encode");
            assert_eq!(graphbinary::decode_response(&again), Ok(r));
        }
    });
    decoded
}

#[test]
fn graphbinary_decoders_never_panic() {
    let seeds = graphbinary_seeds();
    let mut rng = Rng(seed() | 1);
    let n = cases();
    let mut valid = 0;
    for case in 0..n {
        let input = if case % 10 == 0 {
            (0..rng.below(64)).map(|_| rng.next() as u8).collect()
        } else {
            let mut input = seeds[rng.below(seeds.len())].clone();
            mutate(&mut rng, &seeds, &mut input, &|rng, input| {
                // A known type code at a random place.
                if !input.is_empty() {
                    let i = rng.below(input.len());
                    input[i] = [0x00, 0x09, 0x0a, 0x10, 0x11, 0x15, 0x2b, 0x88, 0xfe][rng.below(9)];
                }
            });
            input
        };
        valid += usize::from(check_graphbinary(&input));
    }
    eprintln!(
        "graphbinary: {n} cases ({valid} decoded as values), seed {}",
        seed()
    );
}

fn graphson_seeds() -> Vec<Vec<u8>> {
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    for (name, payload) in vectors(GRAPHSON) {
        if name.starts_with("request_") {
            let frame_bytes = hex(payload);
            seeds.push(
                frame_bytes
                    .get(34..)
                    .map(<[u8]>::to_vec)
                    .unwrap_or_default(),
            );
        } else {
            seeds.push(payload.as_bytes().to_vec());
        }
    }
    for (_, line) in vectors(RESPONSES) {
        if let Some(json) = line.strip_prefix("graphson\t") {
            seeds.push(json.as_bytes().to_vec());
        }
    }
    seeds
}

const TYPE_NAMES: &[&str] = &[
    "g:Int32",
    "g:Int64",
    "g:Double",
    "g:Float",
    "g:List",
    "g:Set",
    "g:Map",
    "g:Vertex",
    "g:Edge",
    "g:VertexProperty",
    "g:Property",
    "g:Path",
    "g:Traverser",
    "g:BulkSet",
    "g:Tree",
    "g:P",
    "g:TextP",
    "g:Bytecode",
    "g:Binding",
    "g:Lambda",
    "g:Metrics",
    "g:TraversalMetrics",
    "g:UUID",
    "g:Date",
    "gx:BigInteger",
    "gx:BigDecimal",
    "gx:ByteBuffer",
    "gx:Char",
    "gx:Duration",
    "gx:OffsetDateTime",
    "gx:Period",
    "tinker:graph",
    "g:T",
    "g:SubgraphStrategy",
];

/// Swaps the first `@type` name after a random point for another, or wraps
/// the input in more nesting, or plants a huge number.
fn graphson_extra(rng: &mut Rng, input: &mut Vec<u8>) {
    match rng.below(3) {
        0 => {
            let start = rng.below(input.len() + 1);
            let hay = &input[start..];
            let pos = TYPE_NAMES
                .iter()
                .filter_map(|t| {
                    let t = t.as_bytes();
                    hay.windows(t.len())
                        .position(|w| w == t)
                        .map(|p| (p, t.len()))
                })
                .min();
            if let Some((p, len)) = pos {
                let to = TYPE_NAMES[rng.below(TYPE_NAMES.len())].as_bytes();
                input.splice(start + p..start + p + len, to.iter().copied());
            }
        }
        1 => {
            let depth = rng.below(300);
            let mut wrapped = b"{\"@type\":\"g:List\",\"@value\":[".repeat(depth);
            wrapped.extend_from_slice(input);
            wrapped.extend_from_slice(&b"]}".repeat(depth));
            *input = wrapped;
        }
        _ => {
            let at = rng.below(input.len() + 1);
            let big: &[u8] = [
                &b"123456789012345678901234567890123456789012345"[..],
                b"-9223372036854775809",
                b"1e99999",
                b"\"\\ud800\"",
                b"2147483648",
            ][rng.below(5)];
            input.splice(at..at, big.iter().copied());
        }
    }
}

/// Runs every GraphSON decoder on `input`; `true` if it decoded as a value.
fn check_graphson(input: &[u8]) -> bool {
    let mut decoded = false;
    no_panic("graphson::decode", input, || {
        if let Ok(v) = graphson::decode(input) {
            decoded = true;
            if let Ok(text) = graphson::encode(&v) {
                assert!(
                    graphson::decode(text.as_bytes()).is_ok(),
                    "re-encoded value does not decode: {text}"
                );
            }
        }
    });
    no_panic("graphson::decode_request", input, || {
        let _ = graphson::decode_request(input);
    });
    no_panic("graphson::decode_response", input, || {
        let _ = graphson::decode_response(input);
    });
    no_panic("frame::split_mime_header", input, || {
        let _ = frame::split_mime_header(input);
    });
    decoded
}

#[test]
fn graphson_decoders_never_panic() {
    let seeds = graphson_seeds();
    let mut rng = Rng(seed().rotate_left(17) | 1);
    let n = cases();
    let mut valid = 0;
    for case in 0..n {
        let input = if case % 10 == 0 {
            let alphabet = b"{}[]\":,@typevalu g:Int32Map0123456789-.eE\\ntrufalsn";
            (0..rng.below(64))
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect()
        } else {
            let mut input = seeds[rng.below(seeds.len())].clone();
            mutate(&mut rng, &seeds, &mut input, &graphson_extra);
            input
        };
        valid += usize::from(check_graphson(&input));
    }
    eprintln!(
        "graphson: {n} cases ({valid} decoded as values), seed {}",
        seed()
    );
}
