//! The bridge's secret: 128 bits of OS entropy, new per start, written as 32 lowercase hex
//! digits. A page proves it was given the token in its first WebSocket frame; the token is never
//! part of a URL (URLs end up in history, logs and `Referer` headers).

/// A fresh token from the operating system's entropy source.
pub fn new_token() -> std::io::Result<String> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(format!("no OS entropy: {e}")))?;
    Ok(hex(&bytes))
}

/// A token the user chose (to keep one in a client's configuration): at least 32 characters
/// of `[A-Za-z0-9_-]`, so it is as hard to guess as a drawn one and fits a header unquoted.
pub fn check_given(token: &str) -> Result<String, String> {
    let ok_chars = token.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if token.len() < 32 || token.len() > 256 || !ok_chars {
        return Err(format!(
            "a token is 32 to 256 characters of [A-Za-z0-9_-] (this one has {} characters{})",
            token.len(),
            if ok_chars { "" } else { ", some outside that set" }
        ));
    }
    Ok(token.to_string())
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
    fn given_tokens() {
        assert!(check_given(&"a".repeat(32)).is_ok());
        assert!(check_given(&"a".repeat(31)).unwrap_err().contains("31 characters"));
        let bad = check_given(&format!("{} x", "a".repeat(32))).unwrap_err();
        assert!(bad.contains("outside") && !bad.contains("aaaa"));
    }

    #[test]
    fn comparison() {
        assert!(token_matches("00ff", "00ff"));
        assert!(!token_matches("00ff", "00fe"));
        assert!(!token_matches("00ff", "00ff0"));
        assert!(!token_matches("00ff", ""));
    }
}
