//! Whole-contract validation, shared by the compiler (compile errors) and the registry
//! (`AgentSurfaceDefinitionError`). It only composes the rules of [`crate::ids`],
//! [`crate::effects`], [`agent_surface_schema::subset`] and [`crate::limits`]; no rule is restated here.

use crate::canonical::canonical_json;
use crate::effects::{check_confirmation, check_effect, CapabilityKind, Confirmation, Effect, PlaneError};
use crate::ids::{
    check_capability_name, check_component_type, check_external_tool_id, check_procedure_id, component_contract_id,
    IdError, IdKind,
};
use crate::limits::AgentSurfaceLimits;
use crate::manifest::{ComponentContract, ManifestContract, OperationContract};
use agent_surface_schema::subset::SchemaViolation;
use agent_surface_schema::validate::Validator;
use serde_json::{Map, Value};
use std::fmt;

/// What is wrong with a contract definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DefinitionViolationKind {
    Id(IdError),
    /// A component's `id` is not `view:` + its `type`.
    IdMismatch {
        expected: String,
    },
    DescriptionEmpty,
    /// `len` and `max` are in UTF-16 code units (JavaScript `.length`).
    DescriptionTooLong {
        len: usize,
        max: usize,
    },
    /// `bytes` of canonical JSON.
    MetaTooLarge {
        bytes: usize,
        max: usize,
    },
    EffectNotAllowed(PlaneError),
    ConfirmationNotAllowed(PlaneError),
    Schema(SchemaViolation),
    /// The same name is used for an observation and an action of one component.
    DuplicateCapabilityName {
        name: String,
    },
}

/// One violation. `pointer` holds segments into the contract's manifest JSON, e.g.
/// `["actions", "select", "inputSchema", "properties", "ids", "format"]`, so the compiler can
/// map it to the source span that produced that field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefinitionViolation {
    pub pointer: Vec<String>,
    pub kind: DefinitionViolationKind,
    pub message: String,
    pub help: Option<String>,
}

impl DefinitionViolation {
    /// RFC 6901 JSON Pointer text of `pointer`.
    pub fn json_pointer(&self) -> String {
        agent_surface_schema::subset::json_pointer(&self.pointer)
    }
}

impl fmt::Display for DefinitionViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for DefinitionViolation {}

/// Description length as JavaScript counts it (`.length`, UTF-16 code units), so the limit
/// means the same in the compiler and in a browser runtime.
pub fn description_len(s: &str) -> usize {
    s.encode_utf16().count()
}

/// Validates one contract against every definition rule and the given limits. Returns all
/// violations; empty means valid. Description limits: component
/// `limits.max_component_description`, everything else `limits.max_capability_description`,
/// both counted in UTF-16 code units.
pub fn validate_contract(contract: &ManifestContract, limits: &AgentSurfaceLimits) -> Vec<DefinitionViolation> {
    let mut v = Violations { out: Vec::new(), limits };
    match contract {
        ManifestContract::Component(c) => v.component(c),
        ManifestContract::Procedure(o) => v.operation(o, CapabilityKind::DomainProcedure),
        ManifestContract::ExternalTool(o) => v.operation(o, CapabilityKind::ExternalTool),
    }
    v.out
}

struct Violations<'a> {
    out: Vec<DefinitionViolation>,
    limits: &'a AgentSurfaceLimits,
}

fn seg(parts: &[&str]) -> Vec<String> {
    parts.iter().map(|s| s.to_string()).collect()
}

fn id_help(kind: IdKind) -> &'static str {
    match kind {
        IdKind::ComponentType => "component types look like \"devices.table\"",
        IdKind::ComponentContractId => "component contract ids look like \"view:devices.table\"",
        IdKind::CapabilityName => "capability names look like \"readState\" or \"select_rows\"",
        IdKind::CapabilityId => "capability ids look like \"view:devices.table.readState\"",
        IdKind::ProcedureId => "procedure ids look like \"domain:devices.delete\"",
        IdKind::ExternalToolId => "external tool ids look like \"external:crm.export\"",
        IdKind::InstanceId => "instance ids look like \"default\" or \"row-42\"",
    }
}

impl Violations<'_> {
    fn push(&mut self, pointer: Vec<String>, kind: DefinitionViolationKind, message: String, help: Option<String>) {
        self.out.push(DefinitionViolation { pointer, kind, message, help });
    }

    fn id(&mut self, pointer: Vec<String>, r: Result<(), IdError>) {
        if let Err(e) = r {
            let help = Some(id_help(e.kind).to_string());
            let message = e.message.clone();
            self.push(pointer, DefinitionViolationKind::Id(e), message, help);
        }
    }

    fn description(&mut self, base: &[String], text: &str, max: usize) {
        let mut pointer = base.to_vec();
        pointer.push("description".into());
        if text.trim().is_empty() {
            self.push(
                pointer,
                DefinitionViolationKind::DescriptionEmpty,
                "description is empty".into(),
                Some("say what it is for: agents choose capabilities by their descriptions".into()),
            );
            return;
        }
        let len = description_len(text);
        if len > max {
            self.push(
                pointer,
                DefinitionViolationKind::DescriptionTooLong { len, max },
                format!("description is {len} characters long (UTF-16 code units); at most {max} are allowed"),
                Some("shorten it; put details in the schemas' property descriptions".into()),
            );
        }
    }

    fn meta(&mut self, base: &[String], meta: &Map<String, Value>) {
        let bytes = canonical_json(&Value::Object(meta.clone())).len();
        let max = self.limits.max_meta_bytes;
        if bytes > max {
            let mut pointer = base.to_vec();
            pointer.push("meta".into());
            self.push(
                pointer,
                DefinitionViolationKind::MetaTooLarge { bytes, max },
                format!("meta is {bytes} bytes as canonical JSON; at most {max} are allowed"),
                Some("keep meta to small identifiers; look larger data up at run time".into()),
            );
        }
    }

    fn schema(&mut self, base: &[String], field: &str, schema: &Value) {
        // What compiling a validator refuses: the subset (`check_schema`) and then what only
        // compiling finds, a `$ref` that loops back to the same value without descending. A
        // contract whose schema cannot be compiled could never be invoked (found by fuzzing).
        let violations = Validator::check(schema, self.limits).err().unwrap_or_default();
        for sv in violations {
            let mut pointer = base.to_vec();
            pointer.push(field.into());
            pointer.extend(sv.pointer.iter().cloned());
            let (message, help) = (sv.message.clone(), sv.help.clone());
            self.push(pointer, DefinitionViolationKind::Schema(sv), message, help);
        }
    }

    fn plane(&mut self, base: &[String], kind: CapabilityKind, effect: Effect, confirmation: Confirmation) {
        let with = |f: &str| {
            let mut p = base.to_vec();
            p.push(f.into());
            p
        };
        if let Err(e) = check_effect(kind, effect) {
            let (m, h) = (e.message.clone(), Some(e.help.clone()));
            self.push(with("effect"), DefinitionViolationKind::EffectNotAllowed(e), m, h);
            // The confirmation default follows from a legal effect; judging it against an
            // effect the plane refuses would only repeat the same mistake.
            return;
        }
        if let Err(e) = check_confirmation(effect, confirmation) {
            let (m, h) = (e.message.clone(), Some(e.help.clone()));
            self.push(with("confirmation"), DefinitionViolationKind::ConfirmationNotAllowed(e), m, h);
        }
    }

    fn component(&mut self, c: &ComponentContract) {
        let root: Vec<String> = Vec::new();
        self.id(seg(&["type"]), check_component_type(&c.r#type));
        let expected = component_contract_id(&c.r#type);
        if c.id != expected {
            self.push(
                seg(&["id"]),
                DefinitionViolationKind::IdMismatch { expected: expected.clone() },
                format!("component contract id \"{}\" does not match its type; expected \"{expected}\"", c.id),
                None,
            );
        }
        self.description(&root, &c.description, self.limits.max_component_description);
        self.meta(&root, &c.meta);

        let max = self.limits.max_capability_description;
        for (name, o) in &c.observations {
            let base = seg(&["observations", name]);
            self.id(base.clone(), check_capability_name(name));
            self.description(&base, &o.description, max);
            self.meta(&base, &o.meta);
            self.schema(&base, "outputSchema", &o.output_schema);
        }
        for (name, a) in &c.actions {
            let base = seg(&["actions", name]);
            self.id(base.clone(), check_capability_name(name));
            self.description(&base, &a.description, max);
            self.meta(&base, &a.meta);
            self.plane(&base, CapabilityKind::ViewAction, a.effect, a.confirmation);
            self.schema(&base, "inputSchema", &a.input_schema);
            if let Some(out) = &a.output_schema {
                self.schema(&base, "outputSchema", out);
            }
        }
        for name in c.actions.keys().filter(|n| c.observations.contains_key(*n)) {
            self.push(
                seg(&["actions", name]),
                DefinitionViolationKind::DuplicateCapabilityName { name: name.clone() },
                format!(
                    "\"{name}\" is both an observation and an action; both would be \
                     \"view:{}.{name}\"",
                    c.r#type
                ),
                Some("rename the observation or the action".into()),
            );
        }
    }

    fn operation(&mut self, o: &OperationContract, kind: CapabilityKind) {
        let root: Vec<String> = Vec::new();
        let id_check = match kind {
            CapabilityKind::ExternalTool => check_external_tool_id(&o.id),
            _ => check_procedure_id(&o.id),
        };
        self.id(seg(&["id"]), id_check);
        self.description(&root, &o.description, self.limits.max_capability_description);
        self.meta(&root, &o.meta);
        self.plane(&root, kind, o.effect, o.confirmation);
        self.schema(&root, "inputSchema", &o.input_schema);
        if let Some(out) = &o.output_schema {
            self.schema(&root, "outputSchema", out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::effects::{default_governance, PlaneErrorReason};
    use crate::ids::IdErrorReason;
    use crate::manifest::samples::{sample_component, sample_external, sample_procedure};
    use crate::manifest::{ActionContract, ObservationContract};
    use agent_surface_schema::subset::SchemaViolationKind;
    use serde_json::json;
    use DefinitionViolationKind as K;

    fn validate(c: ManifestContract) -> Vec<DefinitionViolation> {
        validate_contract(&c, &AgentSurfaceLimits::default())
    }

    fn comp(c: ComponentContract) -> Vec<DefinitionViolation> {
        validate(ManifestContract::Component(c))
    }

    fn ptr(s: &[&str]) -> Vec<String> {
        seg(s)
    }

    #[test]
    fn valid_samples_pass() {
        assert_eq!(comp(sample_component()), vec![]);
        assert_eq!(validate(ManifestContract::Procedure(sample_procedure())), vec![]);
        assert_eq!(validate(ManifestContract::ExternalTool(sample_external())), vec![]);
    }

    #[test]
    fn component_type_and_id() {
        let mut c = sample_component();
        c.r#type = "Devices.table".into();
        c.id = component_contract_id(&c.r#type);
        let vs = comp(c);
        assert_eq!(vs.len(), 1, "{vs:#?}");
        assert_eq!(vs[0].pointer, ptr(&["type"]));
        let K::Id(e) = &vs[0].kind else { panic!("{vs:?}") };
        assert_eq!((e.reason, e.position), (IdErrorReason::BadStart, Some(0)));
        assert!(vs[0].message.contains("segment \"Devices\""));

        let mut c = sample_component();
        c.id = "view:other".into();
        let vs = comp(c);
        assert_eq!(vs.len(), 1);
        assert_eq!(
            (vs[0].pointer.clone(), vs[0].kind.clone()),
            (ptr(&["id"]), K::IdMismatch { expected: "view:devices.table".into() })
        );
    }

    #[test]
    fn capability_names() {
        let mut c = sample_component();
        c.observations.insert("Read-State".into(), ObservationContract::new("x", json!({})));
        c.actions.insert("do-it".into(), c.actions["open"].clone());
        let vs = comp(c);
        let got: Vec<(Vec<String>, IdErrorReason)> = vs
            .iter()
            .map(|v| match &v.kind {
                K::Id(e) => (v.pointer.clone(), e.reason),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            got,
            vec![
                (ptr(&["observations", "Read-State"]), IdErrorReason::BadStart),
                (ptr(&["actions", "do-it"]), IdErrorReason::BadChar),
            ]
        );
    }

    #[test]
    fn descriptions_count_utf16_units() {
        let limits = AgentSurfaceLimits::default();
        let mut c = sample_component();
        c.description = "x".repeat(500);
        assert_eq!(comp(c.clone()), vec![]);
        c.description = "x".repeat(501);
        let vs = comp(c.clone());
        assert_eq!(vs[0].kind, K::DescriptionTooLong { len: 501, max: 500 });
        assert_eq!(vs[0].pointer, ptr(&["description"]));
        // 150 emoji = 300 UTF-16 units (OK for a capability); 151 = 302 (too long).
        let mut c = sample_component();
        c.actions.get_mut("open").unwrap().description = "😀".repeat(150);
        assert_eq!(comp(c.clone()), vec![]);
        c.actions.get_mut("open").unwrap().description = "😀".repeat(151);
        let vs = comp(c);
        assert_eq!(vs[0].kind, K::DescriptionTooLong { len: 302, max: limits.max_capability_description });
        assert_eq!(vs[0].pointer, ptr(&["actions", "open", "description"]));
        assert_eq!(description_len("é😀"), 3);

        let mut c = sample_component();
        c.observations.get_mut("readState").unwrap().description = "  ".into();
        let vs = comp(c);
        assert_eq!(
            (vs[0].kind.clone(), vs[0].pointer.clone()),
            (K::DescriptionEmpty, ptr(&["observations", "readState", "description"]))
        );

        let mut p = sample_procedure();
        p.description = "p".repeat(301);
        let vs = validate(ManifestContract::Procedure(p));
        assert_eq!(vs[0].kind, K::DescriptionTooLong { len: 301, max: 300 });
        let mut p = sample_external();
        p.description = String::new();
        assert_eq!(validate(ManifestContract::ExternalTool(p))[0].kind, K::DescriptionEmpty);
    }

    #[test]
    fn meta_size() {
        let mut c = sample_component();
        // {"k":"..."} is 8 bytes plus the string.
        c.meta = Map::new();
        c.meta.insert("k".into(), json!("v".repeat(2040)));
        assert_eq!(comp(c.clone()), vec![]);
        c.meta.insert("k".into(), json!("v".repeat(2041)));
        let vs = comp(c);
        assert_eq!(vs[0].kind, K::MetaTooLarge { bytes: 2049, max: 2048 });
        assert_eq!(vs[0].pointer, ptr(&["meta"]));

        let mut c = sample_component();
        c.actions.get_mut("select").unwrap().meta.insert("k".into(), json!("v".repeat(3000)));
        assert_eq!(comp(c)[0].pointer, ptr(&["actions", "select", "meta"]));
        let mut p = sample_procedure();
        p.meta.insert("k".into(), json!("v".repeat(3000)));
        assert_eq!(validate(ManifestContract::Procedure(p))[0].pointer, ptr(&["meta"]));
    }

    #[test]
    fn plane_rules() {
        let mut c = sample_component();
        let a = c.actions.get_mut("select").unwrap();
        a.effect = Effect::Mutation;
        let vs = comp(c);
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].pointer, ptr(&["actions", "select", "effect"]));
        let K::EffectNotAllowed(e) = &vs[0].kind else { panic!() };
        assert_eq!(
            e.reason,
            PlaneErrorReason::EffectNotAllowed { kind: CapabilityKind::ViewAction, effect: Effect::Mutation }
        );
        assert!(vs[0].help.as_deref().unwrap().contains("defineAgentProcedureContract"));

        let mut p = sample_procedure();
        p.confirmation = Confirmation::Never;
        let vs = validate(ManifestContract::Procedure(p));
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].pointer, ptr(&["confirmation"]));
        assert!(matches!(vs[0].kind, K::ConfirmationNotAllowed(_)));
        assert_eq!(
            vs[0].help.as_deref(),
            Some("use confirmation: \"required\" (the default for destructive effects) or \"optional\"")
        );

        // A destructive view action (confirmation "never") is reported once, for the effect:
        // the confirmation rule is only judged against an effect the plane allows.
        let mut c = sample_component();
        let a = c.actions.get_mut("open").unwrap();
        a.effect = Effect::Destructive;
        let kinds: Vec<_> = comp(c).into_iter().map(|v| v.pointer).collect();
        assert_eq!(kinds, vec![ptr(&["actions", "open", "effect"])]);

        let mut t = sample_external();
        t.effect = Effect::LocalState;
        let vs = validate(ManifestContract::ExternalTool(t));
        assert_eq!(vs[0].pointer, ptr(&["effect"]));
        assert!(matches!(&vs[0].kind, K::EffectNotAllowed(e)
            if e.reason == PlaneErrorReason::EffectNotAllowed { kind: CapabilityKind::ExternalTool, effect: Effect::LocalState }));
    }

    #[test]
    fn schema_violations_get_field_pointers() {
        let mut c = sample_component();
        c.actions.insert(
            "select".into(),
            ActionContract::new(
                "Select",
                json!({"type": "object", "properties": {"ids": {"type": "string", "format": "ipv4"}}}),
                default_governance(CapabilityKind::ViewAction, Effect::LocalState),
            ),
        );
        c.actions.get_mut("select").unwrap().output_schema = Some(json!({"oneOf": []}));
        c.observations.get_mut("readState").unwrap().output_schema = json!(true);
        let vs = comp(c);
        let got: Vec<Vec<String>> = vs.iter().map(|v| v.pointer.clone()).collect();
        assert_eq!(
            got,
            vec![
                ptr(&["observations", "readState", "outputSchema"]),
                ptr(&["actions", "select", "inputSchema", "properties", "ids", "format"]),
                ptr(&["actions", "select", "outputSchema", "oneOf"]),
            ]
        );
        assert!(
            matches!(&vs[1].kind, K::Schema(sv) if sv.kind == SchemaViolationKind::UnsupportedFormat { format: "ipv4".into() }
            && sv.pointer == ptr(&["properties", "ids", "format"]))
        );
        assert_eq!(vs[1].json_pointer(), "/actions/select/inputSchema/properties/ids/format");
        assert!(vs[2].help.as_deref().unwrap().contains("anyOf"));

        let mut p = sample_procedure();
        p.input_schema = json!({"$ref": "#/$defs/nope"});
        p.output_schema = Some(json!({"additionalProperties": {}}));
        let vs = validate(ManifestContract::Procedure(p));
        assert_eq!(
            vs.iter().map(|v| v.json_pointer()).collect::<Vec<_>>(),
            vec!["/inputSchema/$ref", "/outputSchema/additionalProperties"]
        );
    }

    #[test]
    fn schema_limits_come_from_limits() {
        let mut p = sample_procedure();
        p.input_schema = json!({"type": "array", "items": {"type": "array", "items": {}}});
        let strict = AgentSurfaceLimits { max_schema_depth: 2, ..Default::default() };
        let vs = validate_contract(&ManifestContract::Procedure(p.clone()), &strict);
        assert!(matches!(&vs[0].kind, K::Schema(sv) if sv.kind == SchemaViolationKind::TooDeep { depth: 3, max: 2 }));
        assert_eq!(vs[0].pointer, ptr(&["inputSchema", "items", "items"]));
        assert_eq!(validate(ManifestContract::Procedure(p)), vec![]);
    }

    #[test]
    fn duplicate_capability_names() {
        let mut c = sample_component();
        c.observations.insert("open".into(), ObservationContract::new("Open state", json!({})));
        let vs = comp(c);
        assert_eq!(vs.len(), 1);
        assert_eq!(vs[0].kind, K::DuplicateCapabilityName { name: "open".into() });
        assert_eq!(vs[0].pointer, ptr(&["actions", "open"]));
        assert!(vs[0].message.contains("view:devices.table.open"));
    }

    #[test]
    fn operation_ids() {
        let mut p = sample_procedure();
        p.id = "external:devices.delete".into();
        let vs = validate(ManifestContract::Procedure(p));
        assert_eq!(vs[0].pointer, ptr(&["id"]));
        assert!(
            matches!(&vs[0].kind, K::Id(e) if e.reason == IdErrorReason::MissingPrefix && e.kind == IdKind::ProcedureId)
        );
        assert_eq!(vs[0].help.as_deref(), Some("procedure ids look like \"domain:devices.delete\""));

        let mut t = sample_external();
        t.id = "domain:crm.export".into();
        let vs = validate(ManifestContract::ExternalTool(t));
        assert!(matches!(&vs[0].kind, K::Id(e) if e.kind == IdKind::ExternalToolId));

        let mut p = sample_procedure();
        p.id = "domain:devices".into();
        let vs = validate(ManifestContract::Procedure(p));
        assert!(matches!(&vs[0].kind, K::Id(e) if e.reason == IdErrorReason::TooFewSegments));
    }

    #[test]
    fn reports_everything_at_once() {
        let mut c = sample_component();
        c.r#type = "X".into();
        c.id = component_contract_id("X");
        c.description = String::new();
        c.actions.get_mut("select").unwrap().effect = Effect::Mutation;
        c.actions.get_mut("open").unwrap().input_schema = json!({"allOf": []});
        let vs = comp(c);
        let kinds: Vec<&str> = vs
            .iter()
            .map(|v| match v.kind {
                K::Id(_) => "id",
                K::DescriptionEmpty => "description",
                K::EffectNotAllowed(_) => "effect",
                K::Schema(_) => "schema",
                _ => "other",
            })
            .collect();
        assert_eq!(kinds, vec!["id", "description", "schema", "effect"]);
    }
}
