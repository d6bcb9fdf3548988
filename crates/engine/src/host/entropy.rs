//! Identifiers that must not be guessable: the surface id (`srf_` + 22), registration ids
//! (`reg_<seq>_` + 8), confirmation ids (`cnf_` + 20) and generated invocation ids (`inv_` +
//! 16), in base62. The bytes come from the operating system through `getrandom` (natively) or
//! `crypto.getRandomValues` (wasm32, `getrandom`'s `wasm_js` backend): a confirmation id is
//! evidence of a user's approval, so a seeded PRNG would not do.

const BASE62: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// `n` base62 characters, uniformly distributed (rejection sampling: bytes ≥ 248 are
/// discarded so no character is favoured).
pub fn base62(n: usize) -> String {
    let mut out = String::with_capacity(n);
    let mut buf = [0u8; 64];
    while out.len() < n {
        fill(&mut buf);
        for &b in &buf {
            if out.len() == n {
                break;
            }
            if b < 248 {
                out.push(BASE62[(b % 62) as usize] as char);
            }
        }
    }
    out
}

/// Fills `buf` from the platform's entropy source. Without one there is no safe fallback for
/// confirmation ids: the engine cannot run.
fn fill(buf: &mut [u8]) {
    getrandom::fill(buf).expect("the platform's entropy source (getrandom) failed");
}

/// A prefixed id: `prefix` + `n` base62 characters (e.g. `id("cnf_", 20)`).
pub fn id(prefix: &str, n: usize) -> String {
    let mut s = String::with_capacity(prefix.len() + n);
    s.push_str(prefix);
    s.push_str(&base62(n));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_base62_of_the_asked_length_and_differ() {
        let a = id("cnf_", 20);
        let b = id("cnf_", 20);
        assert_eq!(a.len(), 24);
        assert!(a.starts_with("cnf_") && a[4..].bytes().all(|c| c.is_ascii_alphanumeric()), "{a}");
        assert_ne!(a, b);
        assert_eq!(base62(0), "");
        assert_eq!(base62(200).len(), 200);
    }
}
