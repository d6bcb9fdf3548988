//! Rule: input schemas that WebMCP's schema allow-list can say (issue 27). WebMCP spec PR #289
//! makes `registerTool` reject any input schema with a keyword outside an allow-list (one `type`,
//! `properties`, `required`, `enum`, bounds, `pattern`, `items`, `prefixItems`,
//! `additionalProperties: false`, `default`, `description`). `exposeToWebMCP` projects each
//! schema into it (`packages/core/src/expose/webmcp-schema.ts`): `$ref` inlined, `const` as a
//! one-value `enum`, unions of enums merged, unions of one type merged, `format` and the like
//! moved into the description. What it cannot project is a field of several types: a type array
//! of two types or more besides `null` (`["string", "number"]`), an `anyOf` whose branches are of
//! different types, and a recursive definition (cut after two expansions). Those reach browser
//! agents untyped, with their shape in words only: a warning (AS0305) names the construct at its
//! keyword. A nullable field of one type (`["string", "null"]`, zod's `.nullable()`) is projected
//! untyped too, but its description says it whole ("type: string or null"): not warned. The
//! pipeline still validates the full schema.

use crate::contracts::BuiltContract;
use crate::diagnostics::{Code, Diagnostic};
use agent_surface_model::ids::capability_id;
use agent_surface_model::manifest::ManifestContract;
use serde_json::{Map, Value};
use std::collections::{BTreeMap, BTreeSet};

/// A construct the projection cannot keep typed: what it is, and the path of its keyword inside
/// the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unprojectable {
    pub construct: String,
    pub path: Vec<String>,
}

/// One warning per unprojectable construct of each input schema.
pub fn check(c: &BuiltContract) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut emit = |id: &str, schema: &Value, prefix: Vec<String>| {
        for u in unprojectable(schema) {
            let mut pointer = prefix.clone();
            pointer.extend(u.path.iter().cloned());
            let at = if u.path.is_empty() { "/".to_string() } else { format!("/{}", u.path.join("/")) };
            out.push(
                Diagnostic::new(
                    Code::SchemaNotProjectableForWebMCP,
                    c.key_span_at(&pointer),
                    format!(
                        "the input schema of `{id}` has {} at {at}: WebMCP's schema allow-list has one `type` per schema, \
                         so browser agents get this field untyped, its shape only in the description",
                        u.construct
                    ),
                )
                .label("no single type for WebMCP")
                .help(
                    "give the field one type (an enum of the literals, separate optional fields instead of a union, \
                     a fixed depth instead of a recursive definition), or accept that WebMCP agents see it untyped; \
                     the pipeline validates the full schema either way",
                ),
            );
        }
    };
    match &c.contract {
        ManifestContract::Component(comp) => {
            for (name, action) in &comp.actions {
                let prefix = vec!["actions".to_string(), name.clone(), "inputSchema".to_string()];
                emit(&capability_id(&comp.r#type, name), &action.input_schema, prefix);
            }
        }
        ManifestContract::Procedure(o) | ManifestContract::ExternalTool(o) => {
            emit(&o.id, &o.input_schema, vec!["inputSchema".to_string()]);
        }
    }
    out
}

/// The constructs of `schema` (a schema of the supported subset) that the WebMCP projection
/// leaves untyped, in document order, each once.
pub fn unprojectable(schema: &Value) -> Vec<Unprojectable> {
    let empty = Map::new();
    let defs = schema.get("$defs").and_then(Value::as_object).unwrap_or(&empty);
    let mut out = Vec::new();
    walk(schema, &mut Vec::new(), defs, &mut out);
    for (name, def) in defs {
        walk(def, &mut vec!["$defs".to_string(), name.clone()], defs, &mut out);
    }
    for name in recursive_defs(defs) {
        out.push(Unprojectable {
            construct: format!("a recursive definition (`#/$defs/{name}` refers to itself), cut after two levels"),
            path: vec!["$defs".to_string(), name],
        });
    }
    let mut seen = BTreeSet::new();
    out.retain(|u| seen.insert(u.path.clone()));
    out
}

fn walk(s: &Value, path: &mut Vec<String>, defs: &Map<String, Value>, out: &mut Vec<Unprojectable>) {
    let Some(obj) = s.as_object() else { return };
    if let Some(Value::Array(types)) = obj.get("type") {
        let non_null = types.iter().filter(|t| t.as_str() != Some("null")).count();
        if non_null > 1 {
            let names: Vec<String> = types.iter().map(|t| t.as_str().unwrap_or("?").to_string()).collect();
            out.push(Unprojectable { construct: format!("`type: [{}]`", names.join(", ")), path: child(path, "type") });
        }
    }
    if let Some(Value::Array(branches)) = obj.get("anyOf") {
        if let Some(kinds) = untyped_union(branches, defs) {
            out.push(Unprojectable { construct: format!("an `anyOf` of {kinds}"), path: child(path, "anyOf") });
        }
        for (i, b) in branches.iter().enumerate() {
            with(path, &["anyOf".to_string(), i.to_string()], |p| walk(b, p, defs, out));
        }
    }
    if let Some(Value::Object(props)) = obj.get("properties") {
        for (name, p) in props {
            with(path, &["properties".to_string(), name.clone()], |path| walk(p, path, defs, out));
        }
    }
    if let Some(items) = obj.get("items") {
        with(path, &["items".to_string()], |p| walk(items, p, defs, out));
    }
    if let Some(Value::Array(items)) = obj.get("prefixItems") {
        for (i, item) in items.iter().enumerate() {
            with(path, &["prefixItems".to_string(), i.to_string()], |p| walk(item, p, defs, out));
        }
    }
}

fn child(path: &[String], key: &str) -> Vec<String> {
    let mut p = path.to_vec();
    p.push(key.to_string());
    p
}

fn with(path: &mut Vec<String>, segs: &[String], f: impl FnOnce(&mut Vec<String>)) {
    let n = path.len();
    path.extend(segs.iter().cloned());
    f(path);
    path.truncate(n);
}

/// A branch with its `$ref` followed (one level: definitions of the root `$defs`).
fn resolve<'a>(b: &'a Value, defs: &'a Map<String, Value>) -> &'a Value {
    match b.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
        Some(name) => defs.get(name).unwrap_or(b),
        None => b,
    }
}

/// The projection's `union`/`merge`: branches that are all enums merge into one enum (null
/// included); branches of one type merge into that type (a nullable one is described as
/// "<type> or null": not warned); branches of different types lose the type. Returns the branch
/// kinds when they do.
fn untyped_union(branches: &[Value], defs: &Map<String, Value>) -> Option<String> {
    let resolved: Vec<&Value> = branches.iter().map(|b| resolve(b, defs)).collect();
    let is_null = |b: &Value| {
        b.get("type").and_then(Value::as_str) == Some("null")
            || b.get("enum").and_then(Value::as_array).is_some_and(|e| e.len() == 1 && e[0].is_null())
            || b.get("const").is_some_and(Value::is_null)
    };
    let is_enum = |b: &Value| b.get("enum").is_some() || b.get("const").is_some();
    let rest: Vec<&Value> = resolved.iter().copied().filter(|b| !is_null(b)).collect();
    let nullable = rest.len() != resolved.len();
    if rest.is_empty() || rest.iter().all(|b| is_enum(b)) {
        return None;
    }
    let kinds: Vec<Option<&str>> = rest.iter().map(|b| kind(b)).collect();
    let one_kind = kinds[0].is_some() && kinds.iter().all(|k| *k == kinds[0]);
    if one_kind {
        return None;
    }
    let mut names: BTreeMap<usize, String> = BTreeMap::new();
    for (i, b) in rest.iter().enumerate() {
        let name = match (kind(b), is_enum(b)) {
            (_, true) => "a literal".to_string(),
            (Some(t), false) => t.to_string(),
            (None, false) => "an untyped schema".to_string(),
        };
        if !names.values().any(|n| *n == name) {
            names.insert(i, name);
        }
    }
    let mut list: Vec<String> = names.into_values().collect();
    if nullable {
        list.push("null".to_string());
    }
    Some(list.join(" and "))
}

/// A branch's type for merging: `integer` merges with `number`.
fn kind(b: &Value) -> Option<&str> {
    match b.get("type").and_then(Value::as_str) {
        Some("integer") => Some("number"),
        other => other,
    }
}

/// Definitions of the root `$defs` that reach themselves through `$ref`s.
fn recursive_defs(defs: &Map<String, Value>) -> Vec<String> {
    let mut refs: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for (name, def) in defs {
        let mut found = BTreeSet::new();
        collect_refs(def, &mut found);
        refs.insert(name.as_str(), found);
    }
    let mut out = Vec::new();
    for name in defs.keys() {
        let mut stack: Vec<String> = refs.get(name.as_str()).map(|r| r.iter().cloned().collect()).unwrap_or_default();
        let mut seen = BTreeSet::new();
        while let Some(n) = stack.pop() {
            if n == *name {
                out.push(name.clone());
                break;
            }
            if seen.insert(n.clone()) {
                if let Some(next) = refs.get(n.as_str()) {
                    stack.extend(next.iter().cloned());
                }
            }
        }
    }
    out
}

fn collect_refs(v: &Value, out: &mut BTreeSet<String>) {
    match v {
        Value::Object(o) => {
            if let Some(name) = o.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/$defs/")) {
                out.insert(name.to_string());
            }
            o.values().for_each(|x| collect_refs(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| collect_refs(x, out)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::testing::*;
    use serde_json::json;

    fn constructs(schema: Value) -> Vec<(String, String)> {
        unprojectable(&schema).into_iter().map(|u| (u.construct, u.path.join("/"))).collect()
    }

    #[test]
    fn what_the_projection_keeps_typed_passes() {
        let s = json!({
            "type": "object",
            "properties": {
                "mode": { "anyOf": [{ "const": "a" }, { "const": "b" }, { "type": "null" }] },
                "n": { "anyOf": [{ "type": "integer", "minimum": 0 }, { "type": "number", "maximum": 9 }] },
                "target": { "anyOf": [
                    { "type": "object", "properties": { "kind": { "const": "a" } } },
                    { "type": "object", "properties": { "kind": { "const": "b" }, "x": { "type": "string" } } }
                ] },
                "email": { "type": "string", "format": "email" },
                "ids": { "type": "array", "items": { "$ref": "#/$defs/id" }, "minItems": 1 }
            },
            "$defs": { "id": { "type": "string" } }
        });
        assert_eq!(constructs(s), vec![]);
    }

    #[test]
    fn type_arrays_and_unions_of_several_types_and_recursion_are_named_nullable_is_not() {
        let s = json!({
            "type": "object",
            "properties": {
                "at": { "type": ["string", "number", "null"] },
                "nullable": { "type": ["string", "null"] },
                "maybe": { "anyOf": [{ "type": "string" }, { "type": "null" }] },
                "value": { "anyOf": [{ "type": "string" }, { "type": "number" }, { "const": "auto" }] },
                "note": { "anyOf": [{ "type": "string", "maxLength": 5 }, { "type": "object" }, { "type": "null" }] },
                "tree": { "$ref": "#/$defs/node" }
            },
            "$defs": { "node": { "type": "object", "properties": { "children": { "type": "array", "items": { "$ref": "#/$defs/node" } } } } }
        });
        assert_eq!(
            constructs(s),
            vec![
                ("`type: [string, number, null]`".to_string(), "properties/at/type".to_string()),
                ("an `anyOf` of string and object and null".to_string(), "properties/note/anyOf".to_string()),
                ("an `anyOf` of string and number and a literal".to_string(), "properties/value/anyOf".to_string()),
                (
                    "a recursive definition (`#/$defs/node` refers to itself), cut after two levels".to_string(),
                    "$defs/node".to_string()
                ),
            ]
        );
    }

    #[test]
    fn warns_at_the_keyword_of_an_action_and_a_procedure() {
        let body = "defineAgentProcedureContract({ id: 'domain:a.b', description: 'd', effect: 'read', \
                    input: fromJsonSchema({ type: 'object', properties: { at: { type: ['string', 'integer'] }, n: { type: ['string', 'null'] } } }) });";
        let d = diagnostics_of(body);
        assert_eq!(d.iter().map(|d| d.0.as_str()).collect::<Vec<_>>(), vec!["AS0305"]);
        assert!(d[0].2.contains("`type: [string, integer]` at /properties/at/type"), "{}", d[0].2);
        assert_eq!(first_span_text(body), "type");
        let action = "defineAgentComponentContract({ type: 'a.b', description: 'd', actions: { set: actionContract({ \
                      description: 'd', effect: 'local-state', input: fromJsonSchema({ type: 'object', properties: { \
                      v: { anyOf: [{ type: 'string' }, { type: 'boolean' }] } } }) }) } });";
        let d = diagnostics_of(action);
        assert_eq!(d.iter().map(|d| d.0.as_str()).collect::<Vec<_>>(), vec!["AS0305"]);
        assert!(d[0].2.contains("`view:a.b.set`") && d[0].2.contains("an `anyOf` of string and boolean"), "{}", d[0].2);
        assert_eq!(first_span_text(action), "anyOf");
        // Output schemas are not registered as input: never warned.
        let output =
            "defineAgentComponentContract({ type: 'a.b', description: 'd', observations: { s: observationContract({ \
                      description: 'd', output: fromJsonSchema({ type: ['string', 'number'] }) }) } });";
        assert_eq!(codes_of(output), Vec::<String>::new());
    }
}
