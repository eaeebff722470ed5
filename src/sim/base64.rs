//! Standard base64 (RFC 4648, with padding): etcd's JSON gateway carries every key and value
//! this way, and a page carries its WebAssembly so. Small enough to keep here rather than pull
//! in a crate.

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// `bytes` in base64, padded.
pub fn encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The bytes of base64 `text` (padding optional); why not, if it is not base64.
pub fn decode(text: &str) -> Result<Vec<u8>, String> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => return Err(format!("'{}' is not a base64 character", c as char)),
        };
        acc = (acc << 6) | u32::from(value);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    if bits >= 6 {
        return Err("base64 text ends in the middle of a byte".into());
    }
    Ok(out)
}

/// The text of base64 `text`, which must be UTF-8.
pub fn decode_text(text: &str) -> Result<String, String> {
    String::from_utf8(decode(text)?).map_err(|_| "a base64 value is not UTF-8 text".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rfc_4648_vectors_round_trip() {
        for (plain, coded) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(encode(plain.as_bytes()), coded);
            assert_eq!(decode_text(coded).unwrap(), plain);
        }
        let all: Vec<u8> = (0..=255).collect();
        assert_eq!(decode(&encode(&all)).unwrap(), all);
        // etcd's own answer for the key "x/lock/file-lock".
        assert_eq!(
            decode_text("eC9sb2NrL2ZpbGUtbG9jaw==").unwrap(),
            "x/lock/file-lock"
        );
    }

    #[test]
    fn anything_else_is_refused() {
        assert!(decode("a*b").is_err());
        assert!(decode("Z").is_err(), "one character is not a byte");
        assert!(decode_text("/w==").is_err(), "0xff is not UTF-8");
    }
}
