//! The bridge's secret: 128 bits of OS entropy, new per start, written as 32 lowercase hex
//! digits. A page proves it was given the token in its first WebSocket frame; the token is never
//! part of a URL (URLs end up in history, logs and `Referer` headers).

/// A fresh token from the operating system's entropy source.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(format!("no OS entropy: {e}")))?;
    Ok(hex(&bytes))
}

/// A short random id (64 bits) naming this bridge's MCP session in invocation ids.
pub fn new_session_id() -> std::io::Result<String> {
    let mut bytes = [0u8; 8];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(format!("no OS entropy: {e}")))?;
    Ok(hex(&bytes))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares a presented token with the real one without an early exit on the first differing
/// byte (the length is not secret: every token is 32 characters).
pub fn token_matches(expected: &str, presented: &str) -> bool {
    let (a, b) = (expected.as_bytes(), presented.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_128_bit_hex_and_fresh() {
        let a = new_token().unwrap();
        let b = new_token().unwrap();
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
        assert_ne!(a, b);
    }

    #[test]
    fn comparison() {
        assert!(token_matches("00ff", "00ff"));
        assert!(!token_matches("00ff", "00fe"));
        assert!(!token_matches("00ff", "00ff0"));
        assert!(!token_matches("00ff", ""));
    }
}
