//! Which pages may connect: the `Origin` a browser sends with the WebSocket handshake, and the
//! `Host` it addressed (a DNS-rebinding page reaches 127.0.0.1 under its own host name).

/// The origins `--allow-origin` named (exact matches), or the default: `http://localhost:*` and
/// `http://127.0.0.1:*` (any port, or none).
#[derive(Clone, Debug, Default)]
pub struct OriginPolicy {
    pub allowed: Vec<String>,
}

impl OriginPolicy {
    /// `Ok(())` when a page with this `Origin` header may connect, else the reason.
    pub fn check(&self, origin: Option<&str>) -> Result<(), String> {
        let Some(origin) = origin else {
            return Err("the handshake has no Origin header (browsers always send one)".into());
        };
        let ok = if self.allowed.is_empty() {
            is_default_local(origin)
        } else {
            self.allowed.iter().any(|a| a.trim_end_matches('/') == origin)
        };
        if ok {
            Ok(())
        } else if self.allowed.is_empty() {
            Err(format!("origin {origin:?} is not allowed (default: http://localhost:* and http://127.0.0.1:*; add --allow-origin {origin})"))
        } else {
            Err(format!("origin {origin:?} is not allowed (--allow-origin {})", self.allowed.join(" --allow-origin ")))
        }
    }
}

fn is_default_local(origin: &str) -> bool {
    ["http://localhost", "http://127.0.0.1"].iter().any(|base| match origin.strip_prefix(base) {
        Some("") => true,
        Some(rest) => rest.strip_prefix(':').is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit())),
        None => false,
    })
}

/// `Ok(())` when the handshake's `Host` header names this listener by a loopback name (or by
/// the `--host` the bridge was given), so a page served from another host name that resolves
/// to 127.0.0.1 cannot reach it.
pub fn check_host(host_header: Option<&str>, bound_host: &str, port: u16) -> Result<(), String> {
    let Some(host) = host_header else { return Err("the handshake has no Host header".into()) };
    let port = port.to_string();
    let allowed = ["127.0.0.1", "localhost", "[::1]", bound_host];
    let ok =
        allowed.iter().any(|name| host.strip_prefix(name).and_then(|r| r.strip_prefix(':')) == Some(port.as_str()));
    if ok {
        Ok(())
    } else {
        Err(format!("Host {host:?} is not this bridge's loopback address"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_local_http_only() {
        let p = OriginPolicy::default();
        for ok in ["http://localhost:5173", "http://127.0.0.1:8080", "http://localhost"] {
            assert!(p.check(Some(ok)).is_ok(), "{ok}");
        }
        for bad in [
            "https://localhost:5173",
            "http://localhost.evil.example",
            "http://127.0.0.1.nip.io:80",
            "http://localhost:",
            "http://localhost:80x",
            "null",
            "http://example.com",
        ] {
            assert!(p.check(Some(bad)).is_err(), "{bad}");
        }
        assert!(p.check(None).is_err());
    }

    #[test]
    fn allow_origin_is_exact() {
        let p = OriginPolicy { allowed: vec!["https://app.example".into(), "http://localhost:3000/".into()] };
        assert!(p.check(Some("https://app.example")).is_ok());
        assert!(p.check(Some("http://localhost:3000")).is_ok());
        assert!(p.check(Some("http://localhost:3001")).is_err());
        assert!(p.check(Some("https://app.example.evil")).is_err());
    }

    #[test]
    fn host_must_be_loopback_with_our_port() {
        assert!(check_host(Some("127.0.0.1:4000"), "127.0.0.1", 4000).is_ok());
        assert!(check_host(Some("localhost:4000"), "127.0.0.1", 4000).is_ok());
        assert!(check_host(Some("localhost:4001"), "127.0.0.1", 4000).is_err());
        assert!(check_host(Some("evil.example:4000"), "127.0.0.1", 4000).is_err());
        assert!(check_host(None, "127.0.0.1", 4000).is_err());
    }
}
