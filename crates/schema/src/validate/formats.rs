//! `format` assertions (date-time, date, uuid, email, uri): byte-level checks, no allocation
//! except for IP address literals.

/// The supported `format` values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Format {
    DateTime,
    Date,
    Uuid,
    Email,
    Uri,
}

pub(super) fn format_message(f: Format) -> &'static str {
    match f {
        Format::DateTime => {
            "must be a date-time (RFC 3339, e.g. \"2024-01-31T09:30:00Z\" or \"2024-01-31T09:30:00+01:00\")"
        }
        Format::Date => "must be a date (RFC 3339 full-date YYYY-MM-DD, e.g. \"2024-01-31\")",
        Format::Uuid => "must be a UUID (8-4-4-4-12 hexadecimal digits)",
        Format::Email => "must be an email address",
        Format::Uri => "must be an absolute URI with a scheme (e.g. \"https://example.com/a\")",
    }
}

pub(super) fn check_format(f: Format, s: &str) -> bool {
    match f {
        Format::DateTime => is_date_time(s),
        Format::Date => is_date(s),
        Format::Uuid => is_uuid(s),
        Format::Email => is_email(s),
        Format::Uri => is_uri(s),
    }
}

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

/// `N` ASCII digits as a number.
#[inline]
fn digits<const N: usize>(b: &[u8]) -> Option<u32> {
    let b: &[u8; N] = b.try_into().ok()?;
    let mut v = 0u32;
    for &d in b {
        let x = d.wrapping_sub(b'0');
        if x > 9 {
            return None;
        }
        v = v * 10 + u32::from(x);
    }
    Some(v)
}

/// RFC 3339 `full-date`: `YYYY-MM-DD` with real month and day ranges (proleptic Gregorian).
#[inline]
fn parse_date(b: &[u8]) -> bool {
    if b.len() != 10 || b[4] != b'-' || b[7] != b'-' {
        return false;
    }
    let (Some(y), Some(m), Some(d)) = (digits::<4>(&b[0..4]), digits::<2>(&b[5..7]), digits::<2>(&b[8..10])) else {
        return false;
    };
    (1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m)
}

/// `date` format: RFC 3339 `full-date`.
pub fn is_date(s: &str) -> bool {
    parse_date(s.as_bytes())
}

/// `date-time` format: RFC 3339 `date-time` (`T`/`Z` case-insensitive, fraction optional,
/// offset `Z` or `±HH:MM`). A leap second (`:60`) is accepted only at 23:59 UTC.
pub fn is_date_time(s: &str) -> bool {
    let b = s.as_bytes();
    if b.len() < 20 || !parse_date(&b[..10]) || !matches!(b[10], b'T' | b't') {
        return false;
    }
    let t = &b[11..];
    if t[2] != b':' || t[5] != b':' {
        return false;
    }
    let (Some(hh), Some(mm), Some(ss)) = (digits::<2>(&t[0..2]), digits::<2>(&t[3..5]), digits::<2>(&t[6..8])) else {
        return false;
    };
    if hh > 23 || mm > 59 || ss > 60 {
        return false;
    }
    let mut rest = &t[8..];
    if rest.first() == Some(&b'.') {
        let digits = rest[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if digits == 0 {
            return false;
        }
        rest = &rest[1 + digits..];
    }
    // Offset in minutes east of UTC.
    let offset: i64 = match rest {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), h1, h2, b':', m1, m2] => {
            let (Some(oh), Some(om)) = (digits::<2>(&[*h1, *h2]), digits::<2>(&[*m1, *m2])) else {
                return false;
            };
            if oh > 23 || om > 59 {
                return false;
            }
            let minutes = i64::from(oh * 60 + om);
            if *sign == b'+' {
                minutes
            } else {
                -minutes
            }
        }
        _ => return false,
    };
    if ss == 60 {
        let utc = (i64::from(hh * 60 + mm) - offset).rem_euclid(24 * 60);
        if utc != 23 * 60 + 59 {
            return false;
        }
    }
    true
}

/// `uuid` format: `8-4-4-4-12` hexadecimal digits, any case, any version or variant.
pub fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// RFC 3986 `dec-octet` dotted quad (no leading zeros).
fn is_ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            !p.is_empty()
                && p.len() <= 3
                && p.bytes().all(|c| c.is_ascii_digit())
                && (p.len() == 1 || !p.starts_with('0'))
                && p.parse::<u16>().is_ok_and(|v| v <= 255)
        })
}

/// RFC 3986 `IPv6address` (an embedded IPv4 part must be a strict dotted quad).
fn is_ipv6(s: &str) -> bool {
    fn groups(part: &str, ipv4_last: bool) -> Option<usize> {
        if part.is_empty() {
            return Some(0);
        }
        let pieces: Vec<&str> = part.split(':').collect();
        let mut n = 0;
        for (i, p) in pieces.iter().enumerate() {
            if i + 1 == pieces.len() && ipv4_last && p.contains('.') {
                if !is_ipv4(p) {
                    return None;
                }
                n += 2;
            } else if (1..=4).contains(&p.len()) && p.bytes().all(|c| c.is_ascii_hexdigit()) {
                n += 1;
            } else {
                return None;
            }
        }
        Some(n)
    }
    match s.find("::") {
        Some(i) => {
            let (head, tail) = (&s[..i], &s[i + 2..]);
            if tail.contains("::") {
                return false;
            }
            matches!((groups(head, false), groups(tail, true)), (Some(h), Some(t)) if h + t <= 7)
        }
        None => groups(s, true) == Some(8),
    }
}

fn is_unreserved(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'-' | b'.' | b'_' | b'~')
}

fn is_sub_delim(c: u8) -> bool {
    matches!(c, b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=')
}

/// Every byte is `allowed` or part of a `%HH` escape.
fn all_uri_chars(s: &[u8], allowed: impl Fn(u8) -> bool) -> bool {
    let mut i = 0;
    while i < s.len() {
        if s[i] == b'%' {
            if i + 2 >= s.len() || !(s[i + 1].is_ascii_hexdigit() && s[i + 2].is_ascii_hexdigit()) {
                return false;
            }
            i += 3;
        } else if allowed(s[i]) {
            i += 1;
        } else {
            return false;
        }
    }
    true
}

fn is_pchar(c: u8) -> bool {
    is_unreserved(c) || is_sub_delim(c) || c == b':' || c == b'@'
}

/// `uri` format: an absolute URI per RFC 3986 (`scheme ":" hier-part ["?" query] ["#"
/// fragment]`); ASCII only (an IRI needs `iri`, which the subset does not support).
pub fn is_uri(s: &str) -> bool {
    if !s.is_ascii() {
        return false;
    }
    let b = s.as_bytes();
    let Some(colon) = b.iter().position(|&c| c == b':') else {
        return false;
    };
    let scheme = &b[..colon];
    if scheme.is_empty()
        || !scheme[0].is_ascii_alphabetic()
        || !scheme.iter().all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
    {
        return false;
    }
    let mut rest = &b[colon + 1..];
    if let Some(hash) = rest.iter().position(|&c| c == b'#') {
        if !all_uri_chars(&rest[hash + 1..], |c| is_pchar(c) || c == b'/' || c == b'?') {
            return false;
        }
        rest = &rest[..hash];
    }
    if let Some(q) = rest.iter().position(|&c| c == b'?') {
        if !all_uri_chars(&rest[q + 1..], |c| is_pchar(c) || c == b'/' || c == b'?') {
            return false;
        }
        rest = &rest[..q];
    }
    let path = if let Some(after) = rest.strip_prefix(b"//") {
        let end = after.iter().position(|&c| c == b'/').unwrap_or(after.len());
        if !is_authority(&after[..end]) {
            return false;
        }
        &after[end..]
    } else {
        rest
    };
    all_uri_chars(path, |c| is_pchar(c) || c == b'/')
}

/// RFC 3986 `authority = [ userinfo "@" ] host [ ":" port ]`.
fn is_authority(a: &[u8]) -> bool {
    let (userinfo, hostport) = match a.iter().position(|&c| c == b'@') {
        Some(at) => (Some(&a[..at]), &a[at + 1..]),
        None => (None, a),
    };
    if let Some(u) = userinfo {
        if !all_uri_chars(u, |c| is_unreserved(c) || is_sub_delim(c) || c == b':') {
            return false;
        }
    }
    let (host_ok, port) = if hostport.first() == Some(&b'[') {
        let Some(close) = hostport.iter().position(|&c| c == b']') else {
            return false;
        };
        let literal = std::str::from_utf8(&hostport[1..close]).unwrap_or("");
        let after = &hostport[close + 1..];
        let port = match after {
            [] => &[][..],
            [b':', port @ ..] => port,
            _ => return false,
        };
        (is_ipv6(literal) || is_ipv_future(literal), port)
    } else {
        let (host, port) = match hostport.iter().position(|&c| c == b':') {
            Some(c) => (&hostport[..c], &hostport[c + 1..]),
            None => (hostport, &[][..]),
        };
        (all_uri_chars(host, |c| is_unreserved(c) || is_sub_delim(c)), port)
    };
    host_ok && port.iter().all(u8::is_ascii_digit)
}

/// RFC 3986 `IPvFuture = "v" 1*HEXDIG "." 1*( unreserved / sub-delims / ":" )`.
fn is_ipv_future(s: &str) -> bool {
    let b = s.as_bytes();
    if !matches!(b.first(), Some(b'v' | b'V')) {
        return false;
    }
    let Some(dot) = b.iter().position(|&c| c == b'.') else {
        return false;
    };
    let hex = &b[1..dot];
    let tail = &b[dot + 1..];
    !hex.is_empty()
        && hex.iter().all(u8::is_ascii_hexdigit)
        && !tail.is_empty()
        && tail.iter().all(|&c| is_unreserved(c) || is_sub_delim(c) || c == b':')
}

/// RFC 5322 `atext`.
fn is_atext(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&c)
}

/// `email` format: RFC 5321 `Mailbox`. The local part is a dot-atom (no leading, trailing or
/// doubled dot) or a quoted string; the domain is a hostname (labels of letters, digits and
/// inner hyphens) or an address literal `[IPv4]` / `[IPv6:...]`. ASCII only (`idn-email` is
/// not in the subset).
pub fn is_email(s: &str) -> bool {
    let b = s.as_bytes();
    if !s.is_ascii() || b.is_empty() {
        return false;
    }
    // Local part.
    let domain_start = if b[0] == b'"' {
        let mut i = 1;
        loop {
            match b.get(i) {
                None => return false,
                Some(b'"') => break,
                Some(b'\\') => {
                    if !b.get(i + 1).is_some_and(|c| (32..=126).contains(c)) {
                        return false;
                    }
                    i += 2;
                }
                Some(c) if (32..=126).contains(c) => i += 1,
                Some(_) => return false,
            }
        }
        // b[i] is the closing quote.
        if b.get(i + 1) != Some(&b'@') || i + 1 > 64 {
            return false;
        }
        i + 2
    } else {
        let Some(at) = b.iter().position(|&c| c == b'@') else {
            return false;
        };
        let local = &b[..at];
        if local.is_empty()
            || local.len() > 64
            || !local.split(|&c| c == b'.').all(|atom| !atom.is_empty() && atom.iter().all(|&c| is_atext(c)))
        {
            return false;
        }
        at + 1
    };
    let domain = &s[domain_start..];
    if let Some(literal) = domain.strip_prefix('[').and_then(|d| d.strip_suffix(']')) {
        return match literal.strip_prefix("IPv6:") {
            Some(v6) => is_ipv6(v6),
            None => is_email_ipv4(literal),
        };
    }
    is_hostname(domain)
}

/// RFC 5321 `IPv4-address-literal` (`Snum` is 1 to 3 digits up to 255).
fn is_email_ipv4(s: &str) -> bool {
    let parts: Vec<&str> = s.split('.').collect();
    parts.len() == 4
        && parts.iter().all(|p| {
            (1..=3).contains(&p.len())
                && p.bytes().all(|c| c.is_ascii_digit())
                && p.parse::<u16>().is_ok_and(|v| v <= 255)
        })
}

/// Dot-separated labels of 1 to 63 letters, digits and hyphens, not starting or ending with a
/// hyphen; at most 253 characters.
fn is_hostname(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 253
        && s.split('.').all(|label| {
            let l = label.as_bytes();
            (1..=63).contains(&l.len())
                && l.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-')
                && l[0] != b'-'
                && l[l.len() - 1] != b'-'
        })
}
