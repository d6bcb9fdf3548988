//! Does an authored definition still say what its compiled contract says?
//!
//! In the page, a contract object carries the compiler's provenance (`{id, contractHash}`) and the
//! definition the macro was called with at run time. If the source changed after the manifest
//! was compiled (a stale build, a hand-edited bundle, provenance copied onto another definition),
//! the hash still names the manifest's contract but the handlers would run under different
//! semantics. The registry and the gateway therefore compare the *authored* definition, in the
//! manifest's field names (`inputSchema`, not the `AgentSchema`), with the manifest's contract:
//! every field the author may write, with the defaults the compiler materializes for fields the
//! author left out ([`default_governance`], empty `meta`/`tags`/`policies`, priority 0, origin
//! `"first-party"`, `outputSchema: null`). Schemas and other JSON are compared by canonical JSON.
//!
//! The authored shape (what `@agent-surface/core` sends):
//! - component: `{type, description, meta?, origin?, priority?, policies?, tags?, observations:
//!   {name: {description, outputSchema, meta?}}, actions: {name: {description, inputSchema,
//!   outputSchema?, effect, idempotent?, reversible?, confirmation?, audit?, meta?}}}`
//! - procedure / external tool: `{id, description, inputSchema, outputSchema?, effect,
//!   idempotent?, reversible?, confirmation?, audit?, meta?, policies?, tags?}`

use crate::canonical::canonical_json;
use crate::effects::{default_governance, CapabilityKind, Effect, Governance};
use crate::manifest::ManifestContract;
use serde_json::{json, Map, Value};

/// The first field where `authored` differs from `contract`, as a JSON pointer into the
/// contract (`"/actions/selectRows/inputSchema"`), or `None` when they agree.
pub fn authored_difference(contract: &ManifestContract, authored: &Value) -> Option<String> {
    let Some(authored) = authored.as_object() else { return Some(String::new()) };
    let compiled = contract.to_value();
    match contract {
        ManifestContract::Component(_) => {
            let defaults = json!({ "meta": {}, "origin": "first-party", "policies": [], "priority": 0, "tags": [] });
            for key in ["type", "description", "meta", "origin", "policies", "priority", "tags"] {
                if let Some(field) = differs(&compiled, authored, &defaults, key) {
                    return Some(format!("/{field}"));
                }
            }
            for (plane, kind) in
                [("observations", CapabilityKind::Observation), ("actions", CapabilityKind::ViewAction)]
            {
                let empty = Map::new();
                let mine = authored.get(plane).and_then(Value::as_object).unwrap_or(&empty);
                let theirs = compiled[plane].as_object().unwrap_or(&empty);
                if let Some(name) = mine.keys().find(|n| !theirs.contains_key(*n)) {
                    return Some(format!("/{plane}/{name}"));
                }
                for (name, compiled_cap) in theirs {
                    let Some(cap) = mine.get(name).and_then(Value::as_object) else {
                        return Some(format!("/{plane}/{name}"));
                    };
                    let keys: &[&str] = if kind == CapabilityKind::Observation {
                        &["description", "outputSchema", "meta"]
                    } else {
                        &CAPABILITY_KEYS
                    };
                    let defaults = capability_defaults(kind, cap);
                    for key in keys {
                        if let Some(field) = differs(compiled_cap, cap, &defaults, key) {
                            return Some(format!("/{plane}/{name}/{field}"));
                        }
                    }
                }
            }
            None
        }
        ManifestContract::Procedure(_) | ManifestContract::ExternalTool(_) => {
            let kind = if matches!(contract, ManifestContract::Procedure(_)) {
                CapabilityKind::DomainProcedure
            } else {
                CapabilityKind::ExternalTool
            };
            let mut defaults = capability_defaults(kind, authored);
            defaults["policies"] = json!([]);
            defaults["tags"] = json!([]);
            for key in ["id"].iter().chain(CAPABILITY_KEYS.iter()).chain(["policies", "tags"].iter()) {
                if let Some(field) = differs(&compiled, authored, &defaults, key) {
                    return Some(format!("/{field}"));
                }
            }
            None
        }
    }
}

/// The fields of an action, procedure or external tool an author may write.
const CAPABILITY_KEYS: [&str; 9] = [
    "description",
    "inputSchema",
    "outputSchema",
    "effect",
    "idempotent",
    "reversible",
    "confirmation",
    "audit",
    "meta",
];

/// The values the compiler materializes for fields an author left out of one capability.
fn capability_defaults(kind: CapabilityKind, authored: &Map<String, Value>) -> Value {
    let mut out = json!({ "meta": {}, "outputSchema": null });
    if kind == CapabilityKind::Observation {
        return out;
    }
    // An unknown effect has no defaults; the effect itself then differs.
    let effect = authored.get("effect").cloned().and_then(|e| serde_json::from_value::<Effect>(e).ok());
    if let Some(effect) = effect {
        let Governance { idempotent, reversible, confirmation, audit, .. } = default_governance(kind, effect);
        out["idempotent"] = json!(idempotent);
        out["reversible"] = json!(reversible);
        out["confirmation"] = serde_json::to_value(confirmation).unwrap_or(Value::Null);
        out["audit"] = serde_json::to_value(audit).unwrap_or(Value::Null);
    }
    out
}

/// `Some(key)` when the authored value (or its default) differs from the compiled one.
fn differs(compiled: &Value, authored: &Map<String, Value>, defaults: &Value, key: &str) -> Option<String> {
    let mine = authored.get(key).filter(|v| !v.is_null() || key == "outputSchema").or_else(|| defaults.get(key));
    let theirs = compiled.get(key);
    let same = match (mine, theirs) {
        (Some(a), Some(b)) => canonical_json(a) == canonical_json(b),
        (None, None) => true,
        _ => false,
    };
    (!same).then(|| key.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::Effect;
    use crate::manifest::{ActionContract, ComponentContract, ObservationContract, OperationContract};

    fn counter() -> ManifestContract {
        let mut c = ComponentContract::new("demo.counter", "A counter");
        c.observations.insert("value".into(), ObservationContract::new("The value", json!({ "type": "integer" })));
        c.actions.insert(
            "increment".into(),
            ActionContract::new(
                "Adds one",
                json!({ "type": "object" }),
                default_governance(CapabilityKind::ViewAction, Effect::LocalState),
            ),
        );
        ManifestContract::Component(c)
    }

    fn authored_counter() -> Value {
        json!({
            "type": "demo.counter",
            "description": "A counter",
            "observations": { "value": { "description": "The value", "outputSchema": { "type": "integer" } } },
            "actions": { "increment": { "description": "Adds one", "inputSchema": { "type": "object" }, "effect": "local-state" } }
        })
    }

    #[test]
    fn an_unchanged_definition_with_defaults_left_out_agrees() {
        assert_eq!(authored_difference(&counter(), &authored_counter()), None);
    }

    #[test]
    fn explicit_defaults_agree_too() {
        let mut a = authored_counter();
        a["priority"] = json!(0);
        a["actions"]["increment"]["reversible"] = json!(true);
        a["actions"]["increment"]["confirmation"] = json!("never");
        assert_eq!(authored_difference(&counter(), &a), None);
    }

    #[test]
    fn each_changed_field_is_named_by_its_pointer() {
        let cases: [(&str, Value, &str); 6] = [
            ("/description", json!("Another counter"), "/description"),
            ("/observations/value/outputSchema", json!({ "type": "string" }), "/observations/value/outputSchema"),
            ("/actions/increment/description", json!("Adds two"), "/actions/increment/description"),
            ("/actions/increment/confirmation", json!("required"), "/actions/increment/confirmation"),
            ("/actions/increment/effect", json!("navigation"), "/actions/increment/effect"),
            ("/tags", json!(["x"]), "/tags"),
        ];
        for (at, value, expected) in cases {
            let mut a = authored_counter();
            let (parent, key) = at.rsplit_once('/').unwrap();
            let target = if parent.is_empty() { &mut a } else { a.pointer_mut(parent).unwrap() };
            target[key] = value;
            assert_eq!(authored_difference(&counter(), &a).as_deref(), Some(expected), "{at}");
        }
    }

    #[test]
    fn added_or_missing_capabilities_differ() {
        let mut a = authored_counter();
        a["actions"]["reset"] = json!({ "description": "x", "inputSchema": {}, "effect": "local-state" });
        assert_eq!(authored_difference(&counter(), &a).as_deref(), Some("/actions/reset"));
        let mut a = authored_counter();
        a["observations"] = json!({});
        assert_eq!(authored_difference(&counter(), &a).as_deref(), Some("/observations/value"));
    }

    #[test]
    fn operations_compare_with_their_kind_defaults() {
        let op = OperationContract::new(
            "domain:devices.decommission",
            "Remove devices",
            json!({ "type": "object" }),
            default_governance(CapabilityKind::DomainProcedure, Effect::Destructive),
        );
        let contract = ManifestContract::Procedure(op);
        let authored = json!({
            "id": "domain:devices.decommission",
            "description": "Remove devices",
            "inputSchema": { "type": "object" },
            "effect": "destructive"
        });
        assert_eq!(authored_difference(&contract, &authored), None, "destructive defaults to confirmation required");
        let mut weaker = authored.clone();
        weaker["confirmation"] = json!("never");
        assert_eq!(authored_difference(&contract, &weaker).as_deref(), Some("/confirmation"));
    }
}
