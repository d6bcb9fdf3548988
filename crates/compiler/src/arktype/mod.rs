//! ArkType 2.x types, statically: `type(...)` definitions (its string grammar — keywords such as
//! `string.email`, literals, `|`, `[]`, bounds `number > 0` / `1 <= string <= 10`, `%` — and
//! object definitions with `key?`, defaults `"number = 5"` and `"+"`), a few builders and
//! methods, and `.toJsonSchema()` as ArkType 2.2.9 computes it: union branches in ArkType's
//! order (its node `hash`), units reduced into their domain, `required` sorted. Proven by the
//! differential test against real ArkType (`crates/compiler/tests/it/arktype_oracle.rs`).
//!
//! What is evaluated is a subset of ArkType; everything else is refused with the construct
//! named ([`Refusal`]): morphs and predicates (`.pipe`, `.narrow`, `string.trim`), non-JSON
//! types (`Date`, `bigint`), formats outside the subset, and the shapes whose branch order this
//! module does not reproduce (several constrained branches in one union, described branches).

use serde_json::{Map, Value as Json};
use std::sync::Arc;

/// The package and its type function.
pub const PACKAGE: &str = "arktype";

/// Why a definition is not evaluated: the construct and the alternative.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub construct: String,
    pub message: String,
    pub help: String,
}

fn refuse<T>(construct: impl Into<String>, message: impl Into<String>, help: impl Into<String>) -> Result<T, Refusal> {
    Err(Refusal { construct: construct.into(), message: message.into(), help: help.into() })
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Domain {
    String,
    Number,
    Object,
}

/// A bound: the value and whether it is exclusive.
type Bound = Option<(f64, bool)>;

/// A constrained or plain domain (`string`, `number > 0`, `string.email`).
#[derive(Clone, Debug, PartialEq)]
pub struct Base {
    pub domain: Domain,
    pub integer: bool,
    pub divisor: Option<f64>,
    pub min: Bound,
    pub max: Bound,
    pub pattern: Option<String>,
    pub format: Option<&'static str>,
}

impl Base {
    fn of(domain: Domain) -> Base {
        Base { domain, integer: false, divisor: None, min: None, max: None, pattern: None, format: None }
    }

    fn plain(&self) -> bool {
        *self == Base::of(self.domain)
    }
}

/// Array length bounds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Len {
    pub min: Option<f64>,
    pub max: Option<f64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Prop {
    pub key: String,
    pub value: Arc<ArkType>,
    pub optional: bool,
    pub default: Option<Json>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Object {
    pub props: Vec<Prop>,
    /// `"+": "reject"` or `"delete"`, `.onUndeclaredKey(...)`: `additionalProperties: false`.
    pub closed: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Branch {
    Unit(Json),
    Base(Base),
    /// `None`: `unknown[]` (no `items`).
    Array(Option<Arc<ArkType>>, Len),
    Object(Object),
}

/// What `.optional()` / `.default(v)` made of a type (meaningful as an object property).
#[derive(Clone, Debug, PartialEq)]
pub enum PropMod {
    Optional,
    Default(Json),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ArkType {
    /// `None`: `unknown`.
    pub branches: Option<Vec<Branch>>,
    pub meta: Vec<(String, Json)>,
    pub modifier: Option<PropMod>,
}

impl ArkType {
    pub fn unknown() -> ArkType {
        ArkType { branches: None, meta: Vec::new(), modifier: None }
    }

    pub fn of(branches: Vec<Branch>) -> ArkType {
        ArkType { branches: Some(branches), meta: Vec::new(), modifier: None }
    }

    fn single(&self) -> Option<&Branch> {
        match self.branches.as_deref() {
            Some([b]) => Some(b),
            _ => None,
        }
    }
}

/// `a | b`: ArkType's union, reduced (a unit inside a plain domain of the union disappears,
/// duplicates merge).
pub fn union(parts: &[Arc<ArkType>]) -> Result<ArkType, Refusal> {
    let mut branches: Vec<Branch> = Vec::new();
    for p in parts {
        let Some(bs) = &p.branches else { return Ok(ArkType::unknown()) };
        if !p.meta.is_empty() && bs.len() + parts.len() > 2 {
            return refuse(
                "a described branch of a union",
                "ArkType orders and describes union branches by its own rules this compiler does not reproduce",
                "describe the whole union, or the object property that holds it",
            );
        }
        if !p.meta.is_empty() {
            return refuse(
                "a described branch of a union",
                "ArkType orders and describes union branches by its own rules this compiler does not reproduce",
                "describe the whole union, or the object property that holds it",
            );
        }
        for b in bs {
            if !branches.contains(b) {
                branches.push(b.clone());
            }
        }
    }
    let plain_in =
        |bs: &[Branch], d: Domain| bs.iter().any(|b| matches!(b, Branch::Base(x) if x.domain == d && x.plain()));
    let (has_string, has_number) = (plain_in(&branches, Domain::String), plain_in(&branches, Domain::Number));
    branches.retain(|b| match b {
        Branch::Unit(Json::String(_)) => !has_string,
        Branch::Unit(Json::Number(_)) => !has_number,
        _ => true,
    });
    for d in [Domain::String, Domain::Number] {
        let constrained = branches.iter().any(|b| matches!(b, Branch::Base(x) if x.domain == d && !x.plain()));
        if plain_in(&branches, d) && constrained {
            return refuse(
                "a union of a type and a narrower one",
                "ArkType reduces such unions by its own subtype rules, not reproduced here",
                "keep only the wider type",
            );
        }
    }
    let constrained = branches.iter().filter(|b| hash_kind(b) == "intersection").count();
    if constrained > 1 {
        return refuse(
            "a union of several constrained types (arrays, objects, bounded or formatted strings and numbers)",
            "ArkType orders such branches by its internal node hash, which this compiler does not reproduce",
            "declare one constrained branch per union, e.g. move the alternatives into an object property each, or write the JSON Schema literally",
        );
    }
    Ok(ArkType::of(branches))
}

fn hash_kind(b: &Branch) -> &'static str {
    match b {
        Branch::Unit(_) => "unit",
        Branch::Base(x) if x.plain() => "domain",
        _ => "intersection",
    }
}

/// ArkType's sort key of a union branch (`JSON.stringify({ kind, ...json })`), for the
/// branches this module lets into a union (at most one intersection).
fn hash(b: &Branch) -> String {
    match b {
        Branch::Unit(v) => format!("{{\"kind\":\"unit\",\"unit\":{}}}", serde_json::to_string(v).unwrap_or_default()),
        Branch::Base(x) if x.plain() => format!("{{\"kind\":\"domain\",\"domain\":\"{}\"}}", domain_name(x.domain)),
        _ => "{\"kind\":\"intersection\"".into(),
    }
}

fn domain_name(d: Domain) -> &'static str {
    match d {
        Domain::String => "string",
        Domain::Number => "number",
        Domain::Object => "object",
    }
}

fn num(v: f64) -> Json {
    crate::numbers::json_number(v).unwrap_or(Json::Null)
}

/// `.toJsonSchema()` of `t`, with the root `$schema` ArkType writes.
pub fn to_json_schema(t: &ArkType) -> Result<Json, Refusal> {
    let mut out = Map::new();
    out.insert("$schema".into(), Json::from("https://json-schema.org/draft/2020-12/schema"));
    out.extend(emit(t)?);
    Ok(Json::Object(out))
}

fn emit(t: &ArkType) -> Result<Map<String, Json>, Refusal> {
    let mut out = match &t.branches {
        None => Map::new(),
        Some(bs) => emit_union(bs)?,
    };
    if !t.meta.is_empty() && t.branches.as_ref().is_some_and(|b| b.len() > 1 && !all_enum(b)) {
        return refuse(
            "a described union",
            "ArkType copies the description into every branch by rules not reproduced here",
            "describe the object property that holds the union",
        );
    }
    for (k, v) in &t.meta {
        out.insert(k.clone(), v.clone());
    }
    Ok(out)
}

fn all_enum(bs: &[Branch]) -> bool {
    bs.iter().all(|b| matches!(b, Branch::Unit(v) if !v.is_null()))
        && !(bs.contains(&Branch::Unit(Json::Bool(true))) && bs.contains(&Branch::Unit(Json::Bool(false))))
}

fn emit_union(bs: &[Branch]) -> Result<Map<String, Json>, Refusal> {
    let mut sorted: Vec<&Branch> = bs.iter().collect();
    sorted.sort_by_key(|b| hash(b));
    if sorted.is_empty() {
        return refuse("never", "ArkType emits `enum: []`, outside the subset", "use a type with values");
    }
    if sorted.len() == 1 {
        return emit_branch(sorted[0]);
    }
    if all_enum(bs) {
        let values: Vec<Json> =
            sorted.iter().filter_map(|b| if let Branch::Unit(v) = b { Some(v.clone()) } else { None }).collect();
        return Ok([("enum".to_string(), Json::Array(values))].into_iter().collect());
    }
    let both_bools = bs.contains(&Branch::Unit(Json::Bool(true))) && bs.contains(&Branch::Unit(Json::Bool(false)));
    let mut any_of = Vec::new();
    for b in sorted {
        match b {
            Branch::Unit(Json::Bool(false)) if both_bools => any_of.push(serde_json::json!({ "type": "boolean" })),
            Branch::Unit(Json::Bool(true)) if both_bools => {}
            b => any_of.push(Json::Object(emit_branch(b)?)),
        }
    }
    if any_of.len() == 1 {
        return Ok(any_of.pop().and_then(|j| j.as_object().cloned()).unwrap_or_default());
    }
    Ok([("anyOf".to_string(), Json::Array(any_of))].into_iter().collect())
}

fn emit_branch(b: &Branch) -> Result<Map<String, Json>, Refusal> {
    let mut out = Map::new();
    match b {
        Branch::Unit(Json::Null) => {
            out.insert("type".into(), "null".into());
        }
        Branch::Unit(v) => {
            out.insert("const".into(), v.clone());
        }
        Branch::Base(x) => {
            let ty = match x.domain {
                Domain::Number if x.integer || x.divisor.is_some() => "integer",
                d => domain_name(d),
            };
            out.insert("type".into(), ty.into());
            match x.domain {
                Domain::String => {
                    if let Some((v, excl)) = x.min {
                        out.insert("minLength".into(), num(if excl { v + 1.0 } else { v }));
                    }
                    if let Some((v, excl)) = x.max {
                        out.insert("maxLength".into(), num(if excl { v - 1.0 } else { v }));
                    }
                    if let Some(p) = &x.pattern {
                        out.insert("pattern".into(), p.clone().into());
                    }
                    if let Some(f) = x.format {
                        out.insert("format".into(), f.into());
                    }
                }
                Domain::Number => {
                    if let Some((v, excl)) = x.min {
                        out.insert(if excl { "exclusiveMinimum" } else { "minimum" }.into(), num(v));
                    }
                    if let Some((v, excl)) = x.max {
                        out.insert(if excl { "exclusiveMaximum" } else { "maximum" }.into(), num(v));
                    }
                    if let Some(d) = x.divisor.filter(|d| *d != 1.0) {
                        out.insert("multipleOf".into(), num(d));
                    }
                }
                Domain::Object => {}
            }
        }
        Branch::Array(items, len) => {
            out.insert("type".into(), "array".into());
            if let Some(v) = len.min {
                out.insert("minItems".into(), num(v));
            }
            if let Some(v) = len.max {
                out.insert("maxItems".into(), num(v));
            }
            if let Some(items) = items {
                out.insert("items".into(), Json::Object(emit(items)?));
            }
        }
        Branch::Object(o) => {
            out.insert("type".into(), "object".into());
            let mut props = Map::new();
            let mut required: Vec<String> = Vec::new();
            for p in &o.props {
                let mut j = emit(&p.value)?;
                if let Some(d) = &p.default {
                    j.insert("default".into(), d.clone());
                }
                props.insert(p.key.clone(), Json::Object(j));
                if !p.optional && p.default.is_none() {
                    required.push(p.key.clone());
                }
            }
            if !props.is_empty() {
                out.insert("properties".into(), Json::Object(props));
            }
            // ArkType sorts keys (JS string order: by UTF-16 code units).
            required.sort_by(|a, b| a.encode_utf16().cmp(b.encode_utf16()));
            if !required.is_empty() {
                out.insert("required".into(), required.into_iter().map(Json::String).collect());
            }
            if o.closed {
                out.insert("additionalProperties".into(), Json::Bool(false));
            }
        }
    }
    Ok(out)
}

// -- the string grammar --------------------------------------------------------------------

/// A keyword of ArkType's string grammar.
fn keyword(name: &str) -> Result<ArkType, Refusal> {
    let s = |pattern: &str| {
        let mut b = Base::of(Domain::String);
        b.pattern = Some(pattern.to_string());
        Ok(ArkType::of(vec![Branch::Base(b)]))
    };
    match name {
        "string" => Ok(ArkType::of(vec![Branch::Base(Base::of(Domain::String))])),
        "number" => Ok(ArkType::of(vec![Branch::Base(Base::of(Domain::Number))])),
        "object" => Ok(ArkType::of(vec![Branch::Base(Base::of(Domain::Object))])),
        "boolean" => Ok(ArkType::of(vec![Branch::Unit(Json::Bool(false)), Branch::Unit(Json::Bool(true))])),
        "true" => Ok(ArkType::of(vec![Branch::Unit(Json::Bool(true))])),
        "false" => Ok(ArkType::of(vec![Branch::Unit(Json::Bool(false))])),
        "null" => Ok(ArkType::of(vec![Branch::Unit(Json::Null)])),
        "unknown" => Ok(ArkType::unknown()),
        "number.integer" => {
            let mut b = Base::of(Domain::Number);
            b.integer = true;
            Ok(ArkType::of(vec![Branch::Base(b)]))
        }
        "number.safe" => {
            let mut b = Base::of(Domain::Number);
            b.min = Some((-9007199254740991.0, false));
            b.max = Some((9007199254740991.0, false));
            Ok(ArkType::of(vec![Branch::Base(b)]))
        }
        "string.email" => {
            let mut b = Base::of(Domain::String);
            b.pattern = Some(r"^[\w%+.-]+@[\d.A-Za-z-]+\.[A-Za-z]{2,}$".into());
            b.format = Some("email");
            Ok(ArkType::of(vec![Branch::Base(b)]))
        }
        "string.alpha" => s(r"^[A-Za-z]*$"),
        "string.alphanumeric" => s(r"^[\dA-Za-z]*$"),
        "string.digits" => s(r"^\d*$"),
        "string.hex" => s(r"^[\dA-Fa-f]+$"),
        "string.integer" => s(r"^(?:(?!^-0$)-?(?:(?:0|[1-9]\d*)))$"),
        "string.numeric" => s(r"^(?:(?!^-0\.?0*$)(?:-?(?:(?:0|[1-9]\d*)(?:\.\d+)?)|\.\d+?))$"),
        "string.semver" => s(
            r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[A-Za-z-][\dA-Za-z-]*)(?:\.(?:0|[1-9]\d*|\d*[A-Za-z-][\dA-Za-z-]*))*))?(?:\+([\dA-Za-z-]+(?:\.[\dA-Za-z-]+)*))?$",
        ),
        "string.uuid.v4" => s(r"^[\dA-Fa-f]{8}-[\dA-Fa-f]{4}-4[\dA-Fa-f]{3}-[89ABab][\dA-Fa-f]{3}-[\dA-Fa-f]{12}$"),
        "Date" | "string.date" | "string.date.iso" | "string.date.epoch" | "string.date.parse" | "number.epoch" => refuse(
            format!("`{name}`"),
            "a date is not a JSON value ArkType converts inside the subset (it throws, or emits a pattern for ISO dates of every precision)",
            "use \"string\" with a regex literal such as /^\\d{4}-\\d{2}-\\d{2}$/",
        ),
        "string.trim" | "string.lower" | "string.upper" | "string.capitalize" | "string.normalize"
        | "string.json" | "string.url" | "string.creditCard" | "string.regex" | "string.json.parse"
        | "string.numeric.parse" | "string.integer.parse" | "string.url.parse" => refuse(
            format!("`{name}`"),
            "a morph or predicate: ArkType's toJsonSchema throws on it",
            "validate the plain string, e.g. \"string\" or a regex literal, and transform in the procedure",
        ),
        "bigint" | "symbol" | "undefined" | "never" | "void" | "Function" | "Map" | "Set" | "RegExp" | "Error"
        | "Promise" | "Array" | "FormData" | "ArrayBuffer" => refuse(
            format!("`{name}`"),
            "not a JSON value ArkType converts inside the subset",
            "describe the JSON shape with string, number, boolean, null, arrays and objects",
        ),
        other => refuse(
            format!("`{other}`"),
            "this ArkType keyword is not evaluated statically",
            "see docs/schemas.md for the supported ArkType keywords; or pass the JSON Schema literally with fromJsonSchema({...})",
        ),
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Str(String),
    Num(f64),
    Regex(String, String),
    Op(&'static str),
}

fn tokenize(src: &str) -> Result<Vec<Tok>, Refusal> {
    let bad = |what: &str| {
        refuse(
            format!("\"{src}\""),
            format!("{what} in an ArkType definition"),
            "check the definition against ArkType's syntax",
        )
    };
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    let mut out = Vec::new();
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if c == '\'' || c == '"' {
            let mut s = String::new();
            i += 1;
            while i < chars.len() && chars[i] != c {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    i += 1;
                }
                s.push(chars[i]);
                i += 1;
            }
            if i >= chars.len() {
                return bad("an unterminated string");
            }
            i += 1;
            out.push(Tok::Str(s));
            continue;
        }
        if c == '/' {
            let mut s = String::new();
            i += 1;
            let mut in_class = false;
            while i < chars.len() && (chars[i] != '/' || in_class) {
                if chars[i] == '\\' && i + 1 < chars.len() {
                    s.push(chars[i]);
                    i += 1;
                } else if chars[i] == '[' {
                    in_class = true;
                } else if chars[i] == ']' {
                    in_class = false;
                }
                s.push(chars[i]);
                i += 1;
            }
            if i >= chars.len() {
                return bad("an unterminated regex");
            }
            i += 1;
            let mut flags = String::new();
            while i < chars.len() && chars[i].is_ascii_alphabetic() {
                flags.push(chars[i]);
                i += 1;
            }
            out.push(Tok::Regex(s, flags));
            continue;
        }
        let neg_num = c == '-' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit());
        if c.is_ascii_digit() || neg_num {
            let start = i;
            i += 1;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            match text.parse::<f64>() {
                Ok(n) => out.push(Tok::Num(n)),
                Err(_) => return bad("a malformed number"),
            }
            continue;
        }
        if c.is_ascii_alphabetic() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || matches!(chars[i], '_' | '$' | '.')) {
                i += 1;
            }
            out.push(Tok::Name(chars[start..i].iter().collect()));
            continue;
        }
        let two: String = chars[i..(i + 2).min(chars.len())].iter().collect();
        let op = match two.as_str() {
            "[]" => Some("[]"),
            "<=" => Some("<="),
            ">=" => Some(">="),
            "==" => Some("=="),
            _ => None,
        };
        if let Some(op) = op {
            out.push(Tok::Op(op));
            i += 2;
            continue;
        }
        let op = match c {
            '|' => "|",
            '(' => "(",
            ')' => ")",
            '<' => "<",
            '>' => ">",
            '%' => "%",
            '&' => "&",
            '=' => "=",
            _ => return bad(&format!("the character `{c}`")),
        };
        out.push(Tok::Op(op));
        i += 1;
    }
    Ok(out)
}

struct Parser<'a> {
    toks: Vec<Tok>,
    at: usize,
    src: &'a str,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Some(Tok::Op(o)) if *o == op) {
            self.at += 1;
            return true;
        }
        false
    }

    fn unsupported<T>(&self, what: &str) -> Result<T, Refusal> {
        refuse(
            format!("\"{}\"", self.src),
            format!("{what} is not evaluated statically"),
            "use keywords, literals, `|`, `[]`, bounds (`>`, `>=`, `<`, `<=`, `==` on lengths) and `%`; or pass the JSON Schema literally",
        )
    }

    fn union(&mut self) -> Result<ArkType, Refusal> {
        let mut parts = vec![Arc::new(self.bounded()?)];
        while self.eat("|") {
            parts.push(Arc::new(self.bounded()?));
        }
        if parts.len() == 1 {
            return Ok(Arc::try_unwrap(parts.pop().expect("one")).unwrap_or_else(|a| (*a).clone()));
        }
        union(&parts)
    }

    fn comparator(&mut self) -> Option<&'static str> {
        ["<=", ">=", "==", "<", ">"].into_iter().find(|&op| self.eat(op))
    }

    fn bounded(&mut self) -> Result<ArkType, Refusal> {
        // `n < T` / `n <= T` (then maybe `< m`)
        let left = match (self.peek().cloned(), self.toks.get(self.at + 1)) {
            (Some(Tok::Num(n)), Some(Tok::Op(o))) if matches!(*o, "<" | "<=" | ">" | ">=" | "==") => {
                self.at += 1;
                let op = self.comparator().map_or_else(|| self.unsupported("a number without a comparator"), Ok)?;
                Some((n, op))
            }
            _ => None,
        };
        let mut t = self.postfix()?;
        if let Some((n, op)) = left {
            t = match op {
                "<" => bound(t, ">", n, self.src)?,
                "<=" => bound(t, ">=", n, self.src)?,
                _ => return self.unsupported("a left bound other than `<` or `<=`"),
            };
        }
        loop {
            if self.eat("%") {
                let Some(Tok::Num(d)) = self.peek().cloned() else { return self.unsupported("`%` without a number") };
                self.at += 1;
                t = divisor(t, d, self.src)?;
                continue;
            }
            if self.eat("&") {
                return self.unsupported("`&`");
            }
            match self.comparator() {
                Some(op) => {
                    let Some(Tok::Num(n)) = self.peek().cloned() else {
                        return self.unsupported("a comparator without a number");
                    };
                    self.at += 1;
                    t = bound(t, op, n, self.src)?;
                }
                None => return Ok(t),
            }
        }
    }

    fn postfix(&mut self) -> Result<ArkType, Refusal> {
        let mut t = self.primary()?;
        while self.eat("[]") {
            t = array_of(t);
        }
        Ok(t)
    }

    fn primary(&mut self) -> Result<ArkType, Refusal> {
        let tok = self.peek().cloned();
        self.at += 1;
        match tok {
            Some(Tok::Op("(")) => {
                let t = self.union()?;
                if !self.eat(")") {
                    return self.unsupported("an unclosed `(`");
                }
                Ok(t)
            }
            Some(Tok::Name(n)) => keyword(&n),
            Some(Tok::Str(s)) => Ok(ArkType::of(vec![Branch::Unit(Json::String(s))])),
            Some(Tok::Num(n)) => Ok(ArkType::of(vec![Branch::Unit(num(n))])),
            Some(Tok::Regex(source, flags)) => {
                if !flags.is_empty() {
                    return refuse(
                        format!("/{source}/{flags}"),
                        "ArkType refuses regex flags in a definition (its toJsonSchema throws)",
                        "write the pattern without flags",
                    );
                }
                let mut b = Base::of(Domain::String);
                b.pattern = Some(source);
                Ok(ArkType::of(vec![Branch::Base(b)]))
            }
            _ => self.unsupported("this definition"),
        }
    }
}

/// Parses a string definition.
pub fn parse(src: &str) -> Result<ArkType, Refusal> {
    if src.trim_start().starts_with("Record<") {
        return refuse(
            format!("\"{src}\""),
            "ArkType emits a schema `additionalProperties` for a Record, outside the subset",
            "list the keys as object properties",
        );
    }
    let toks = tokenize(src)?;
    let mut p = Parser { toks, at: 0, src };
    let t = p.union()?;
    if p.at != p.toks.len() {
        return p.unsupported("this definition");
    }
    Ok(t)
}

pub fn array_of(t: ArkType) -> ArkType {
    let items = if t.branches.is_none() && t.meta.is_empty() { None } else { Some(Arc::new(t)) };
    ArkType::of(vec![Branch::Array(items, Len::default())])
}

fn bound(t: ArkType, op: &str, n: f64, src: &str) -> Result<ArkType, Refusal> {
    let no = |what: &str| {
        refuse(
            format!("\"{src}\""),
            format!("a bound on {what} is not evaluated statically"),
            "bound a single string, number or array type",
        )
    };
    let Some(b) = t.single().cloned() else { return no("a union") };
    let (min, max) = match op {
        ">" => (Some((n, true)), None),
        ">=" => (Some((n, false)), None),
        "<" => (None, Some((n, true))),
        "<=" => (None, Some((n, false))),
        _ => (Some((n, false)), Some((n, false))),
    };
    let set = |slot: &mut Bound, v: Bound| -> bool {
        match (slot.is_some(), v) {
            (_, None) => true,
            (true, Some(_)) => false,
            (false, v) => {
                *slot = v;
                true
            }
        }
    };
    let b = match b {
        Branch::Base(mut x) if x.domain != Domain::Object => {
            if x.domain == Domain::Number && op == "==" {
                return no("a number with `==`");
            }
            if !(set(&mut x.min, min) && set(&mut x.max, max)) {
                return no("a type bounded twice on one side");
            }
            // A bounded keyword is a new node: ArkType keeps its pattern, not its `format`.
            x.format = None;
            Branch::Base(x)
        }
        Branch::Array(items, mut len) => {
            let lo = min.map(|(v, e)| if e { v + 1.0 } else { v });
            let hi = max.map(|(v, e)| if e { v - 1.0 } else { v });
            if (lo.is_some() && len.min.is_some()) || (hi.is_some() && len.max.is_some()) {
                return no("a type bounded twice on one side");
            }
            len.min = len.min.or(lo);
            len.max = len.max.or(hi);
            Branch::Array(items, len)
        }
        _ => return no("this type"),
    };
    Ok(ArkType { branches: Some(vec![b]), ..t })
}

fn divisor(t: ArkType, d: f64, src: &str) -> Result<ArkType, Refusal> {
    match t.single().cloned() {
        Some(Branch::Base(mut x))
            if x.domain == Domain::Number && x.divisor.is_none() && d.fract() == 0.0 && d > 0.0 =>
        {
            x.divisor = Some(d);
            Ok(ArkType { branches: Some(vec![Branch::Base(x)]), ..t })
        }
        _ => refuse(
            format!("\"{src}\""),
            "`%` is evaluated only on a number, with a positive integer",
            "write `number % 2`",
        ),
    }
}

/// A string property definition with a default: `"number = 5"`.
pub fn split_default(src: &str) -> Option<(&str, &str)> {
    let i = src.find(" = ")?;
    Some((&src[..i], src[i + 3..].trim()))
}

/// The value of a default written in a string definition.
pub fn default_literal(text: &str) -> Option<Json> {
    match text {
        "true" => Some(Json::Bool(true)),
        "false" => Some(Json::Bool(false)),
        "null" => Some(Json::Null),
        "[]" => Some(Json::Array(Vec::new())),
        _ => {
            if let Some(s) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
                return Some(Json::String(s.to_string()));
            }
            if let Some(s) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
                return Some(Json::String(s.to_string()));
            }
            text.parse::<f64>().ok().map(num)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn js(src: &str) -> Json {
        let mut j = to_json_schema(&parse(src).unwrap()).unwrap();
        j.as_object_mut().unwrap().remove("$schema");
        j
    }

    fn j(text: &str) -> Json {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn the_grammar_and_the_branch_order() {
        assert_eq!(
            js("string | number | null"),
            j(r#"{"anyOf":[{"type":"number"},{"type":"string"},{"type":"null"}]}"#)
        );
        assert_eq!(js("10 | 2 | 'x'"), j(r#"{"enum":["x",10,2]}"#));
        assert_eq!(
            js("1 <= string[] <= 3"),
            j(r#"{"type":"array","minItems":1,"maxItems":3,"items":{"type":"string"}}"#)
        );
        assert_eq!(js("string | 'x' | null"), j(r#"{"anyOf":[{"type":"string"},{"type":"null"}]}"#));
        assert_eq!(js("boolean | 'x'"), j(r#"{"anyOf":[{"const":"x"},{"type":"boolean"}]}"#));
        assert!(parse("string[] | number[]").is_err());
    }
}
