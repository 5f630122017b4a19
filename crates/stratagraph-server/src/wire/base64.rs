//! Standard base64 (RFC 4648, with padding), which GraphSON uses for
//! `gx:ByteBuffer` as Java's `Base64` does. Small enough to keep here
//! rather than take a dependency.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Encodes `bytes` with padding.
pub(crate) fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk.first().copied().unwrap_or(0),
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(char::from(ALPHABET[(n >> (18 - 6 * i)) as usize & 63]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

fn sextet(c: u8) -> Option<u32> {
    let v = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => return None,
    };
    Some(u32::from(v))
}

/// Decodes standard base64; padding may be left off. Returns the offset of
/// the first character that is not base64 on failure.
pub(crate) fn decode(text: &str) -> Result<Vec<u8>, usize> {
    let bytes = text.as_bytes();
    let body_len = bytes.len()
        - bytes
            .iter()
            .rev()
            .take(2)
            .take_while(|&&c| c == b'=')
            .count();
    let body = &bytes[..body_len];
    if body_len % 4 == 1 || (body_len < bytes.len() && !bytes.len().is_multiple_of(4)) {
        return Err(body_len);
    }
    let mut out = Vec::with_capacity(body_len / 4 * 3 + 2);
    for (ci, chunk) in body.chunks(4).enumerate() {
        let mut n = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            n |= sextet(c).ok_or(ci * 4 + i)? << (18 - 6 * i);
        }
        let full = [(n >> 16) as u8, (n >> 8) as u8, n as u8];
        out.extend_from_slice(&full[..chunk.len() - 1]);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_every_tail_length() {
        for len in 0..10 {
            let data: Vec<u8> = (0..len).map(|i| (i * 37 + 200) as u8).collect();
            let text = encode(&data);
            assert_eq!(decode(&text), Ok(data.clone()));
            assert_eq!(decode(text.trim_end_matches('=')), Ok(data));
        }
        assert_eq!(encode(b"some bytes for you"), "c29tZSBieXRlcyBmb3IgeW91");
        assert!(decode("a").is_err());
        assert!(decode("ab=c").is_err());
    }
}
