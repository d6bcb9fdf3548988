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
    POOL.with(|pool| {
        let mut pool = pool.borrow_mut();
        while out.len() < n {
            let b = pool.next();
            if b < 248 {
                out.push(BASE62[(b % 62) as usize] as char);
            }
        }
    });
    out
}

/// OS entropy fetched a block at a time (one `crypto.getRandomValues` call in the page cost
/// more than the rest of an invocation id's work); every byte is used once.
struct Pool {
    bytes: [u8; 512],
    at: usize,
}

impl Pool {
    fn next(&mut self) -> u8 {
        if self.at == self.bytes.len() {
            fill(&mut self.bytes);
            self.at = 0;
        }
        let b = self.bytes[self.at];
        // Not kept once handed out.
        self.bytes[self.at] = 0;
        self.at += 1;
        b
    }
}

thread_local! {
    static POOL: std::cell::RefCell<Pool> = const { std::cell::RefCell::new(Pool { bytes: [0; 512], at: 512 }) };
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
        // Across refills of the pool (512 bytes) ids keep differing.
        let many: std::collections::HashSet<String> = (0..200).map(|_| base62(16)).collect();
        assert_eq!(many.len(), 200);
    }
}
