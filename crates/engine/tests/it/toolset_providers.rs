//! Provider adapters: the example app's tool block per provider (insta snapshots in
//! `snapshots/providers/`), OpenAI strict mode's rules and their undoing, Anthropic's and
//! Gemini's limits, MCP's explicit annotations, deterministic order.

use crate::toolset_support::*;
use agent_surface_engine::providers::{
    mcp_annotations, strict_input_to_original, tool_block, Provider, ProviderError, ANTHROPIC_MAX_TOOLS,
    OPENAI_MAX_TOOLS,
};
use agent_surface_engine::toolset::{catalog_from_manifest, AgentTool, ToolsetMode};
use agent_surface_model::effects::Effect;
use agent_surface_schema::validate::Validator;
use serde_json::{json, Value};
use std::path::Path;

fn snapshot(name: &str, value: &Value) {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../snapshots/providers"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    let text = serde_json::to_string_pretty(value).unwrap();
    settings.bind(|| insta::assert_snapshot!(name.to_string(), text));
}

fn direct() -> Vec<AgentTool> {
    catalog_from_manifest(&authority(), ToolsetMode::Direct)
}

fn block(provider: Provider) -> Vec<Value> {
    tool_block(&direct(), provider).unwrap()
}

#[test]
fn snapshots_of_the_example_app() {
    let neutral: Vec<Value> = direct().iter().map(|t| serde_json::to_value(t).unwrap()).collect();
    snapshot("neutral", &Value::Array(neutral));
    let meta: Vec<Value> = catalog_from_manifest(&authority(), ToolsetMode::Meta)
        .iter()
        .map(|t| serde_json::to_value(t).unwrap())
        .collect();
    snapshot("meta", &Value::Array(meta));
    snapshot("openai", &Value::Array(block(Provider::OpenAi)));
    snapshot("anthropic", &Value::Array(block(Provider::Anthropic)));
    snapshot("gemini", &Value::Array(block(Provider::Gemini)));
    snapshot("mcp", &Value::Array(block(Provider::Mcp)));
}

#[test]
fn order_is_deterministic_and_the_catalogs() {
    let names: Vec<String> = direct().into_iter().map(|t| t.name).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    for p in [Provider::OpenAi, Provider::Anthropic, Provider::Gemini, Provider::Mcp] {
        let a = serde_json::to_string(&block(p)).unwrap();
        let b = serde_json::to_string(&block(p)).unwrap();
        assert_eq!(a, b, "{} block is byte-stable", p.as_str());
        let entries = block(p);
        let entry_names: Vec<&str> = entries
            .iter()
            .map(|e| e.get("name").or_else(|| e["function"].get("name")).unwrap().as_str().unwrap())
            .collect();
        assert_eq!(entry_names, names, "{} keeps the catalog order", p.as_str());
    }
}

// ---- OpenAI strict ------------------------------------------------------------------------------

/// Walks every schema object of an adapted OpenAI schema.
fn each_schema<'a>(s: &'a Value, out: &mut Vec<&'a Value>) {
    let Some(o) = s.as_object() else { return };
    out.push(s);
    if let Some(props) = o.get("properties").and_then(Value::as_object) {
        props.values().for_each(|p| each_schema(p, out));
    }
    if let Some(i) = o.get("items") {
        each_schema(i, out);
    }
    for k in ["anyOf"] {
        if let Some(bs) = o.get(k).and_then(Value::as_array) {
            bs.iter().for_each(|b| each_schema(b, out));
        }
    }
    if let Some(defs) = o.get("$defs").and_then(Value::as_object) {
        defs.values().for_each(|d| each_schema(d, out));
    }
}

fn accepts_null(s: &Value) -> bool {
    s["type"] == "null"
        || s["type"].as_array().is_some_and(|t| t.contains(&json!("null")))
        || s["anyOf"].as_array().is_some_and(|b| b.iter().any(accepts_null))
}

const OPENAI_STRICT_KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "description",
    "pattern",
    "format",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minItems",
    "maxItems",
];

#[test]
fn openai_strict_rules_hold_for_every_tool() {
    let tools = direct();
    for (tool, entry) in tools.iter().zip(block(Provider::OpenAi)) {
        assert_eq!(entry["type"], "function");
        assert_eq!(entry["function"]["strict"], true);
        assert_eq!(entry["function"]["name"], tool.name);
        assert_eq!(entry["function"]["description"], tool.description);
        let params = &entry["function"]["parameters"];
        assert_eq!(params["type"], "object", "{}", tool.name);
        let mut all = Vec::new();
        each_schema(params, &mut all);
        for s in all {
            let o = s.as_object().unwrap();
            for k in o.keys() {
                assert!(OPENAI_STRICT_KEYWORDS.contains(&k.as_str()), "{}: unsupported keyword {k} kept", tool.name);
            }
            if o.get("type") == Some(&json!("object"))
                || o.get("type").and_then(Value::as_array).is_some_and(|t| t.contains(&json!("object")))
                || o.contains_key("properties")
            {
                assert_eq!(o.get("additionalProperties"), Some(&json!(false)), "{}: {s}", tool.name);
                let props: Vec<&String> = o["properties"].as_object().unwrap().keys().collect();
                let required: Vec<&str> =
                    o["required"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
                assert_eq!(
                    props.iter().map(|p| p.as_str()).collect::<Vec<_>>(),
                    required,
                    "{}: every property required",
                    tool.name
                );
            }
        }
        // Optional properties of the original became nullable; required ones did not.
        let original_required: Vec<&str> = tool.input_schema["required"]
            .as_array()
            .map(|a| a.iter().map(|v| v.as_str().unwrap()).collect())
            .unwrap_or_default();
        for (name, p) in params["properties"].as_object().unwrap() {
            assert_eq!(accepts_null(p), !original_required.contains(&name.as_str()), "{}.{name}: {p}", tool.name);
        }
    }
}

#[test]
fn openai_moves_unsupported_keywords_into_descriptions() {
    let entries = block(Provider::OpenAi);
    let find =
        |name: &str| entries.iter().find(|e| e["function"]["name"] == name).unwrap()["function"]["parameters"].clone();
    let reboot = find("domain_devices_reboot");
    assert_eq!(reboot["properties"]["reason"]["type"], json!(["string", "null"]));
    assert_eq!(reboot["properties"]["reason"]["description"], "(maxLength: 200)");
    assert_eq!(reboot["properties"]["notifyOwners"]["description"], "(default: true)");
    assert!(reboot.get("$schema").is_none());
    let select = find("view_devices_table_selectRows");
    assert_eq!(select["properties"]["ids"]["description"], "(uniqueItems: true)");
    assert_eq!(select["properties"]["ids"]["maxItems"], 50, "supported keywords stay");
    let filter = find("view_devices_table_filter");
    assert_eq!(
        filter["properties"]["text"]["description"],
        "Text the device name must contain; empty shows all (maxLength: 80)"
    );
    // An optional enum accepts null through its enum too.
    assert_eq!(filter["properties"]["status"]["enum"], json!(["online", "offline", "maintenance", null]));
    // An untyped optional schema becomes anyOf [it, null].
    let export = find("external_reports_export");
    assert_eq!(export["properties"]["format"]["anyOf"][1], json!({"type": "null"}));
    assert_eq!(export["properties"]["format"]["anyOf"][0]["description"], "(default: csv)");
    // Nested objects follow the same rules.
    let nav = find("view_app_nav_navigate");
    let params = &nav["properties"]["params"];
    assert_eq!(params["type"], json!(["object", "null"]));
    assert_eq!(params["required"], json!(["id"]));
    assert_eq!(params["properties"]["id"]["type"], json!(["string", "null"]));
}

#[test]
fn strict_input_to_original_undoes_null_for_absent() {
    let tools = direct();
    let schema = |name: &str| tools.iter().find(|t| t.name == name).unwrap().input_schema.clone();
    let limits = agent_surface_model::limits::AgentSurfaceLimits::default();

    // What a strict model sends for "only the ids": every other property null.
    let reboot = schema("domain_devices_reboot");
    let sent = json!({"ids": ["dev_abc123"], "reason": null, "notifyOwners": null});
    let back = strict_input_to_original(&reboot, &sent);
    assert_eq!(back, json!({"ids": ["dev_abc123"]}));
    let v = Validator::new(&reboot, &limits).unwrap();
    assert!(v.validate(&sent).is_err(), "the strict form does not validate against the original");
    assert_eq!(
        v.validate(&back).unwrap(),
        json!({"ids": ["dev_abc123"], "notifyOwners": true}),
        "defaults apply to what was absent"
    );
    // Present values pass through untouched.
    let sent = json!({"ids": ["dev_abc123"], "reason": "patch", "notifyOwners": false});
    assert_eq!(strict_input_to_original(&reboot, &sent), sent);

    // Nested: navigate's optional params object and its optional id.
    let nav = schema("view_app_nav_navigate");
    assert_eq!(strict_input_to_original(&nav, &json!({"to": "/devices", "params": null})), json!({"to": "/devices"}));
    assert_eq!(
        strict_input_to_original(&nav, &json!({"to": "/devices/:id", "params": {"id": null}})),
        json!({"to": "/devices/:id", "params": {}})
    );
    // An untyped optional enum.
    let export = schema("external_reports_export");
    assert_eq!(strict_input_to_original(&export, &json!({"format": null, "since": null})), json!({}));

    // A property that may be null in the original keeps its null; a required one too (left
    // for validation to judge); items and $refs are followed.
    let original = json!({
        "type": "object",
        "properties": {
            "lastSeen": {"type": ["string", "null"]},
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "must": {"type": "string"},
            "rows": {"type": "array", "items": {"type": "object", "properties": {"note": {"type": "string"}}}},
            "ref": {"$ref": "#/$defs/R"}
        },
        "required": ["must"],
        "$defs": {"R": {"type": "object", "properties": {"x": {"type": "integer"}}}}
    });
    let sent = json!({"lastSeen": null, "maybe": null, "must": null, "rows": [{"note": null}, {"note": "a"}], "ref": {"x": null}});
    assert_eq!(
        strict_input_to_original(&original, &sent),
        json!({"lastSeen": null, "maybe": null, "must": null, "rows": [{}, {"note": "a"}], "ref": {}})
    );
}

#[test]
fn openai_refuses_more_tools_than_a_request_takes() {
    let one = direct().remove(0);
    let many: Vec<AgentTool> = (0..=OPENAI_MAX_TOOLS)
        .map(|i| {
            let mut t = one.clone();
            t.name = format!("t{i}");
            t
        })
        .collect();
    let err = tool_block(&many, Provider::OpenAi).unwrap_err();
    assert!(matches!(err, ProviderError::TooManyTools { provider: "openai", .. }), "{err}");
    assert!(err.to_string().contains(&OPENAI_MAX_TOOLS.to_string()), "{err}");
}

// ---- Anthropic ----------------------------------------------------------------------------------

#[test]
fn anthropic_entries_and_limits() {
    for (tool, entry) in direct().iter().zip(block(Provider::Anthropic)) {
        assert_eq!(entry.as_object().unwrap().keys().collect::<Vec<_>>(), ["description", "input_schema", "name"]);
        assert_eq!(entry["input_schema"], tool.input_schema, "the original schema, unchanged");
        assert_eq!(entry["input_schema"]["type"], "object");
    }
    let mut bad = direct().remove(0);
    bad.input_schema = json!({"type": "array", "items": {"type": "string"}});
    let err = tool_block(&[bad], Provider::Anthropic).unwrap_err();
    assert!(err.to_string().contains("object root"), "{err}");
    let one = direct().remove(0);
    let many: Vec<AgentTool> = (0..=ANTHROPIC_MAX_TOOLS)
        .map(|i| {
            let mut t = one.clone();
            t.name = format!("t{i}");
            t
        })
        .collect();
    let err = tool_block(&many, Provider::Anthropic).unwrap_err();
    assert!(matches!(err, ProviderError::TooManyTools { provider: "anthropic", .. }), "{err}");
    let mut bad_name = direct().remove(0);
    bad_name.name = "has space".into();
    assert!(tool_block(&[bad_name], Provider::Anthropic).unwrap_err().to_string().contains("^[a-zA-Z0-9_-]{1,64}$"));
}

// ---- Gemini -------------------------------------------------------------------------------------

fn has_key(v: &Value, key: &str) -> bool {
    match v {
        Value::Object(o) => o.contains_key(key) || o.values().any(|x| has_key(x, key)),
        Value::Array(a) => a.iter().any(|x| has_key(x, key)),
        _ => false,
    }
}

#[test]
fn gemini_uses_its_openapi_subset() {
    for entry in block(Provider::Gemini) {
        let params = &entry["parameters"];
        for k in ["$ref", "$defs", "const", "$schema", "additionalProperties", "uniqueItems"] {
            assert!(!has_key(params, k), "{}: {k} in {params}", entry["name"]);
        }
    }
    let entries = block(Provider::Gemini);
    let export = entries.iter().find(|e| e["name"] == "external_reports_export").unwrap();
    assert_eq!(
        export["parameters"]["properties"]["format"],
        json!({"default": "csv", "enum": ["csv", "pdf", "xlsx"], "type": "string"}),
        "an untyped enum gets its values' type"
    );

    let mut tool = direct().remove(0);
    tool.input_schema = json!({
        "type": "object",
        "properties": {
            "kind": {"const": "device"},
            "seen": {"type": ["string", "null"], "format": "date-time"},
            "maybe": {"anyOf": [{"$ref": "#/$defs/Id"}, {"type": "null"}]},
            "either": {"type": ["string", "integer"]}
        },
        "required": ["kind"],
        "additionalProperties": false,
        "$defs": {"Id": {"type": "string", "pattern": "^dev_"}}
    });
    let g = tool_block(&[tool.clone()], Provider::Gemini).unwrap().remove(0);
    let p = &g["parameters"]["properties"];
    assert_eq!(p["kind"], json!({"enum": ["device"], "type": "string"}));
    assert_eq!(p["seen"], json!({"type": "string", "nullable": true, "format": "date-time"}));
    assert_eq!(p["maybe"], json!({"type": "string", "pattern": "^dev_", "nullable": true}));
    assert_eq!(p["either"], json!({"anyOf": [{"type": "string"}, {"type": "integer"}]}));

    tool.input_schema = json!({"type": "object", "properties": {"node": {"$ref": "#/$defs/Node"}}, "$defs": {"Node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/Node"}}}}});
    let err = tool_block(&[tool], Provider::Gemini).unwrap_err();
    assert!(err.to_string().contains("recursive"), "{err}");
}

// ---- MCP ----------------------------------------------------------------------------------------

#[test]
fn mcp_annotations_are_explicit_and_follow_the_effect() {
    let tools = direct();
    for (tool, entry) in tools.iter().zip(block(Provider::Mcp)) {
        let ann = entry["annotations"].as_object().unwrap();
        assert_eq!(
            ann.keys().collect::<Vec<_>>(),
            ["destructiveHint", "idempotentHint", "openWorldHint", "readOnlyHint"],
            "{}",
            tool.name
        );
        assert!(ann.values().all(Value::is_boolean));
        assert!(!has_key(&entry["inputSchema"], "$schema"));
        match &tool.output_schema {
            Some(o) if o["type"] == "object" => assert!(entry["outputSchema"].is_object()),
            _ => assert!(entry.get("outputSchema").is_none(), "{}", tool.name),
        }
    }
    let ann = |name: &str| mcp_annotations(tools.iter().find(|t| t.name == name).unwrap());
    let row = |ro: bool, de: bool, id: bool, ow: bool| json!({"readOnlyHint": ro, "destructiveHint": de, "idempotentHint": id, "openWorldHint": ow});
    assert_eq!(ann("view_devices_table_readState"), row(true, false, true, false));
    assert_eq!(ann("view_devices_table_sortBy"), row(false, false, false, false));
    assert_eq!(ann("view_devices_table_clearSelection"), row(false, false, true, false));
    assert_eq!(ann("view_app_nav_navigate"), row(false, false, false, false));
    assert_eq!(ann("domain_devices_reboot"), row(false, false, false, false));
    assert_eq!(ann("domain_devices_decommission"), row(false, true, false, false));
    assert_eq!(ann("external_reports_export"), row(false, true, false, true));

    // Every effect, including the ones the example lacks.
    let mut t = tools.iter().find(|t| t.name == "domain_devices_reboot").unwrap().clone();
    let cases = [
        (Effect::Read, true, row(false, false, true, false)),
        (Effect::Mutation, true, row(false, false, false, false)),
        (Effect::Mutation, false, row(false, true, false, false)),
        (Effect::ExternalSideEffect, true, row(false, false, false, true)),
    ];
    for (effect, reversible, expected) in cases {
        let tr = t.traits.as_mut().unwrap();
        tr.effect = effect;
        tr.reversible = reversible;
        tr.idempotent = effect == Effect::Read;
        let mut expected = expected;
        if effect == Effect::Read {
            expected["readOnlyHint"] = json!(true);
        }
        assert_eq!(mcp_annotations(&t), expected, "{effect:?} reversible={reversible}");
    }

    // Meta tools: discover/read are read-only, invoke may do anything.
    let meta = catalog_from_manifest(&authority(), ToolsetMode::Meta);
    let m = tool_block(&meta, Provider::Mcp).unwrap();
    assert_eq!(m[0]["annotations"], row(true, false, true, false));
    assert_eq!(m[1]["annotations"], row(false, true, false, true));
    assert_eq!(m[2]["annotations"], row(true, false, true, false));
}
