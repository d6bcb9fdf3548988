//! The regular expressions zod 4.6.7 emits as `pattern`, as JavaScript `RegExp.prototype.source`
//! strings (verified against the oracle).

pub const EMAIL: &str =
    r"^(?:[A-Za-z0-9_'+\-]+\.)*[A-Za-z0-9_'+\-]*[A-Za-z0-9_+-]@(?:[A-Za-z0-9][A-Za-z0-9\-]*\.)+[A-Za-z]{2,}$";
pub const HTML5_EMAIL: &str = r"^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$";
pub const RFC5322_EMAIL: &str = r#"^(([^<>()\[\]\\.,;:\s@"]+(\.[^<>()\[\]\\.,;:\s@"]+)*)|(".+"))@((\[[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}])|(([a-zA-Z\-0-9]+\.)+[a-zA-Z]{2,}))$"#;
pub const UNICODE_EMAIL: &str = r#"^[^\s@"]{1,64}@[^\s@]{1,255}$"#;
pub const UUID: &str = r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1-8][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}-[0-9a-fA-F]{12}|00000000-0000-0000-0000-000000000000|ffffffff-ffff-ffff-ffff-ffffffffffff)$";
pub const GUID: &str = r"^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$";

/// `z.uuid({ version: "vN" })`, `z.uuidv4()`...
pub fn uuid_version(n: u32) -> String {
    format!(r"^([0-9a-fA-F]{{8}}-[0-9a-fA-F]{{4}}-{n}[0-9a-fA-F]{{3}}-[89abAB][0-9a-fA-F]{{3}}-[0-9a-fA-F]{{12}})$")
}

const DATE: &str = r"(?:(?:\d\d[2468][048]|\d\d[13579][26]|\d\d0[48]|[02468][048]00|[13579][26]00)-02-29|\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\d|30)|(?:02)-(?:0[1-9]|1\d|2[0-8])))";
const HHMM: &str = r"(?:[01]\d|2[0-3]):[0-5]\d";

/// `precision` of `z.iso.time`/`z.iso.datetime`: None (any), -1 (minutes), 0 (seconds), p (p digits).
fn time_source(precision: Option<i64>, seconds_required: bool) -> String {
    match precision {
        Some(-1) => HHMM.to_string(),
        Some(0) => format!("{HHMM}:[0-5]\\d"),
        Some(p) if p > 0 => format!("{HHMM}:[0-5]\\d\\.\\d{{{p}}}"),
        _ if seconds_required => format!("{HHMM}:[0-5]\\d(?:\\.\\d+)?"),
        _ => format!("{HHMM}(?::[0-5]\\d(?:\\.\\d+)?)?"),
    }
}

pub fn date() -> String {
    format!("^{DATE}$")
}

pub fn time(precision: Option<i64>) -> String {
    format!("^{}$", time_source(precision, false))
}

pub fn datetime(precision: Option<i64>, offset: bool, local: bool) -> String {
    let zone = if offset { r"(?:Z|([+-](?:[01]\d|2[0-3]):[0-5]\d))" } else { "(?:Z)" };
    let qualified = format!("{}{zone}", time_source(precision, true));
    if local {
        format!("^{DATE}T(?:{qualified}|{})$", time_source(precision, false))
    } else {
        format!("^{DATE}T(?:{qualified})$")
    }
}

/// Escapes literal text the way zod does for template literals and string checks.
pub fn escape_regex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if ".*+?^${}()|[]\\".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
