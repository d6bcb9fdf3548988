//! Build: turn an evaluated root macro call into a manifest contract, every default
//! materialized. The contract is assembled as a node tree in the manifest's own shape, so any
//! later violation (a JSON pointer into the contract) maps back to the source expression that
//! produced it; defaults the author did not write point at the macro call.

use crate::diagnostics::{closest, Code, Diagnostic};
use crate::extract::{MacroCall, RootMacro};
use crate::source::{FileId, Span};
use crate::value::{Node, Prop, Val};
use agent_surface_model::effects::{default_governance, Audit, CapabilityKind, Confirmation, Effect};
use agent_surface_model::manifest::{HashedContract, ManifestContract};
use std::collections::HashSet;

/// A contract that built: the typed contract and its span tree.
#[derive(Debug, Clone)]
pub struct BuiltContract {
    pub contract: ManifestContract,
    /// The contract's JSON as nodes (manifest field names), for pointer → span lookups.
    pub tree: Node,
    /// The macro call.
    pub call_span: Span,
}

impl BuiltContract {
    /// The span a JSON pointer into the contract designates (deepest node reached).
    pub fn span_at(&self, pointer: &[String]) -> Span {
        self.tree.at_pointer(pointer).0.span
    }

    /// The span of the object key a pointer ends at, else the value's span.
    pub fn key_span_at(&self, pointer: &[String]) -> Span {
        self.tree.key_span_at(pointer).unwrap_or_else(|| self.span_at(pointer))
    }
}

/// A top-level field of a definition: its key, the key's span, the value's span.
pub type FieldSpans = (String, Span, Span);

/// A contract that compiled, with where it came from.
#[derive(Debug, Clone)]
pub struct CompiledContract {
    /// The manifest's form of it, hashed once (results are reused across compiles).
    pub hashed: std::sync::Arc<HashedContract>,
    /// The spans of its top-level fields (all the project-wide uniqueness rule points at; the
    /// whole span tree is dropped once the per-contract rules ran).
    spans: Node,
    pub file: FileId,
    pub call: MacroCall,
}

impl CompiledContract {
    /// A contract that passed its rules: `built` is consumed (its contract is hashed, its span
    /// tree cut to the top-level fields).
    pub fn new(built: BuiltContract, file: FileId, call: MacroCall) -> CompiledContract {
        let BuiltContract { contract, tree, .. } = built;
        let spans = match tree.val {
            Val::Object(props) => Node::new(
                tree.span,
                Val::Object(
                    props.into_iter().map(|p| Prop { value: Node::new(p.value.span, Val::Null), ..p }).collect(),
                ),
            ),
            _ => Node::new(tree.span, Val::Null),
        };
        CompiledContract { hashed: std::sync::Arc::new(HashedContract::new(contract)), spans, file, call }
    }

    /// A contract kept by the disk cache: its definition's span and, when that was an object,
    /// each top-level field's key and value spans ([`CompiledContract::top_level_spans`]).
    pub fn from_parts(
        hashed: HashedContract,
        definition: Span,
        fields: Option<Vec<FieldSpans>>,
        file: FileId,
        call: MacroCall,
    ) -> CompiledContract {
        let val = match fields {
            Some(fields) => Val::Object(
                fields
                    .into_iter()
                    .map(|(key, key_span, value)| Prop { key, key_span, value: Node::new(value, Val::Null) })
                    .collect(),
            ),
            None => Val::Null,
        };
        CompiledContract { hashed: std::sync::Arc::new(hashed), spans: Node::new(definition, val), file, call }
    }

    /// All it keeps of the definition's spans (see [`CompiledContract::from_parts`]).
    pub fn top_level_spans(&self) -> (Span, Option<Vec<FieldSpans>>) {
        let fields = match &self.spans.val {
            Val::Object(props) => Some(props.iter().map(|p| (p.key.clone(), p.key_span, p.value.span)).collect()),
            _ => None,
        };
        (self.spans.span, fields)
    }

    pub fn contract(&self) -> &ManifestContract {
        self.hashed.contract()
    }

    /// The span of a top-level field (`["id"]`, `["type"]`).
    pub fn span_at(&self, pointer: &[String]) -> Span {
        self.spans.at_pointer(pointer).0.span
    }
}

const COMPONENT_FIELDS: &[&str] =
    &["type", "description", "meta", "origin", "priority", "policies", "tags", "observations", "actions"];
const OBSERVATION_FIELDS: &[&str] = &["description", "output", "meta"];
const ACTION_FIELDS: &[&str] =
    &["description", "input", "output", "effect", "idempotent", "reversible", "confirmation", "audit", "meta"];
const OPERATION_FIELDS: &[&str] = &[
    "id",
    "description",
    "input",
    "output",
    "effect",
    "confirmation",
    "idempotent",
    "reversible",
    "audit",
    "policies",
    "meta",
    "tags",
];
/// Fields that belong to `.bind()`, not to the contract: a pointed help instead of "unknown".
const BINDING_FIELDS: &[&str] = &[
    "read",
    "execute",
    "when",
    "unavailableReason",
    "precondition",
    "timeoutMs",
    "concurrency",
    "enabled",
    "instanceId",
    "internal",
];

/// Builds a contract from a root macro call's evaluated arguments. Problems are pushed to
/// `diags`; `None` when the contract cannot be built.
pub fn build_contract(
    kind: RootMacro,
    call_span: Span,
    callee_span: Span,
    args: Vec<Option<Node>>,
    output_mode: &HashSet<Span>,
    diags: &mut Vec<Diagnostic>,
) -> Option<BuiltContract> {
    let mut b = Builder { diags, call_span, callee_span, output_mode, ok: true };
    if args.len() != 1 {
        b.push(Diagnostic::new(
            Code::InvalidArguments,
            call_span,
            format!("`{}` takes exactly one argument, the definition object, found {}", kind.export_name(), args.len()),
        ));
        return None;
    }
    let def = args.into_iter().next().flatten()?;
    if !matches!(def.val, Val::Object(_)) {
        b.push(Diagnostic::new(
            Code::InvalidArguments,
            def.span,
            format!("the definition must be an object, found {}", def.val.describe()),
        ));
        return None;
    }
    let tree = match kind {
        RootMacro::Component => b.component(&def),
        RootMacro::Procedure => b.operation(&def, CapabilityKind::DomainProcedure),
        RootMacro::ExternalTool => b.operation(&def, CapabilityKind::ExternalTool),
    };
    if !b.ok {
        return None;
    }
    let mut json = match tree.to_json() {
        Ok(j) => j,
        Err(bad) => {
            let d = not_json(bad);
            b.push(d);
            return None;
        }
    };
    let obj = json.as_object_mut().expect("contract is an object");
    obj.insert("contractHash".into(), serde_json::Value::String(String::new()));
    match serde_json::from_value::<ManifestContract>(json) {
        Ok(contract) => Some(BuiltContract { contract, tree, call_span }),
        Err(e) => {
            b.push(Diagnostic::new(
                Code::InvalidField,
                call_span,
                format!("internal: the contract does not fit the manifest model: {e}"),
            ));
            None
        }
    }
}

/// A diagnostic for a value where JSON is needed, with the rewrite that usually fixes it.
pub fn not_json(bad: &Node) -> Diagnostic {
    let at = bad.via.unwrap_or(bad.span);
    match &bad.val {
        Val::Regex(r) => Diagnostic::new(Code::NotStatic, at, "a regular expression literal is not a JSON value")
            .help(format!("write the pattern as a string: `pattern: {}`", serde_json::Value::String(r.source.clone()))),
        Val::Zod(_) => Diagnostic::new(Code::InvalidField, at, "a zod schema is not a JSON Schema")
            .help("wrap it: `fromStandardSchema(X, { jsonSchema: z.toJSONSchema(X, { io: \"input\" }) })`"),
        Val::Function(..) => Diagnostic::new(Code::NotStatic, at, "a function is not a JSON value"),
        other => Diagnostic::new(Code::InvalidField, at, format!("expected a JSON value, found {}", other.describe())),
    }
}

struct Builder<'d> {
    diags: &'d mut Vec<Diagnostic>,
    call_span: Span,
    /// The macro's name: where "this contract lacks X" points, rather than the whole call.
    callee_span: Span,
    /// `fromStandardSchema` calls whose zod conversion used output mode (and input differs).
    output_mode: &'d HashSet<Span>,
    ok: bool,
}

fn str_node(span: Span, s: &str) -> Node {
    Node::new(span, Val::Str(s.to_string()))
}

fn prop(key: &str, key_span: Span, value: Node) -> Prop {
    Prop { key: key.to_string(), key_span, value }
}

impl Builder<'_> {
    fn push(&mut self, d: Diagnostic) {
        if d.is_error() {
            self.ok = false;
        }
        self.diags.push(d);
    }

    /// Reports fields outside `allowed`, with a pointed help for binding-only fields and typos.
    fn check_fields(&mut self, def: &Node, allowed: &[&str], what: &str) {
        let Val::Object(props) = &def.val else { return };
        for p in props {
            if allowed.contains(&p.key.as_str()) {
                continue;
            }
            let help = if BINDING_FIELDS.contains(&p.key.as_str()) {
                format!("`{}` is runtime behaviour: pass it to `.bind()`, not to the contract", p.key)
            } else if let Some(close) = closest(&p.key, allowed.iter().copied()) {
                format!("did you mean `{close}`? {what} fields: {}", allowed.join(", "))
            } else {
                format!("{what} fields: {}", allowed.join(", "))
            };
            self.push(
                Diagnostic::new(Code::UnknownField, p.key_span, format!("unknown field `{}` in {what}", p.key))
                    .help(help),
            );
        }
    }

    /// A required field; a missing one is reported at `anchor` (the macro name or the
    /// capability's key), not across the whole definition.
    fn required<'n>(&mut self, def: &'n Node, key: &str, what: &str, anchor: Span) -> Option<&'n Prop> {
        let p = def.get(key).filter(|p| !matches!(p.value.val, Val::Undefined));
        if p.is_none() {
            self.push(
                Diagnostic::new(Code::MissingField, anchor, format!("{what} is missing the required field `{key}`"))
                    .label(format!("needs `{key}`")),
            );
        }
        p
    }

    fn optional<'n>(&self, def: &'n Node, key: &str) -> Option<&'n Prop> {
        def.get(key).filter(|p| !matches!(p.value.val, Val::Undefined))
    }

    /// Reports a wrong value where the definition uses it; a value written elsewhere (a
    /// constant) is shown as "defined here".
    fn invalid(&mut self, node: &Node, message: String) -> Node {
        let mut d = Diagnostic::new(Code::InvalidField, node.via.unwrap_or(node.span), message);
        if node.via.is_some() {
            d = d.related(node.span, "defined here");
        }
        self.push(d);
        Node::new(node.span, Val::Null)
    }

    fn string(&mut self, p: &Prop) -> Node {
        match &p.value.val {
            Val::Str(_) => p.value.clone(),
            other => self.invalid(&p.value, format!("`{}` must be a string, found {}", p.key, other.describe())),
        }
    }

    fn boolean(&mut self, p: &Prop) -> Node {
        match &p.value.val {
            Val::Bool(_) => p.value.clone(),
            other => self.invalid(&p.value, format!("`{}` must be true or false, found {}", p.key, other.describe())),
        }
    }

    fn integer(&mut self, p: &Prop) -> Node {
        match &p.value.val {
            Val::Num(n) if n.fract() == 0.0 && n.abs() <= 9_007_199_254_740_991.0 => p.value.clone(),
            Val::Num(n) => self.invalid(&p.value, format!("`{}` must be an integer, found {n}", p.key)),
            other => self.invalid(&p.value, format!("`{}` must be an integer, found {}", p.key, other.describe())),
        }
    }

    /// Plain JSON object (`meta`).
    fn json_object(&mut self, p: &Prop) -> Node {
        match &p.value.val {
            Val::Object(_) => match p.value.to_json() {
                Ok(_) => p.value.clone(),
                Err(bad) => {
                    let d = not_json(bad);
                    self.push(d);
                    Node::new(p.value.span, Val::Null)
                }
            },
            other => self
                .invalid(&p.value, format!("`{}` must be an object of JSON values, found {}", p.key, other.describe())),
        }
    }

    fn string_array(&mut self, p: &Prop) -> Node {
        match &p.value.val {
            Val::Array(items) => {
                for item in items {
                    if !matches!(item.val, Val::Str(_)) {
                        let item = item.clone();
                        self.invalid(
                            &item,
                            format!("`{}` must be an array of strings, found {} in it", p.key, item.val.describe()),
                        );
                    }
                }
                p.value.clone()
            }
            other => {
                self.invalid(&p.value, format!("`{}` must be an array of strings, found {}", p.key, other.describe()))
            }
        }
    }

    /// Policy attachments: JSON objects naming the policy (`{ name: "..." , ... }`).
    fn policies(&mut self, p: &Prop) -> Node {
        match &p.value.val {
            Val::Array(items) => {
                for item in items {
                    let named = matches!(item.get("name").map(|n| &n.value.val), Some(Val::Str(_)));
                    if !named || item.to_json().is_err() {
                        let item = item.clone();
                        self.push(
                            Diagnostic::new(Code::InvalidField, item.via.unwrap_or(item.span), "a policy attachment must be a JSON object with a string `name`")
                                .help("policies in a contract are declarative: `{ name: \"tenant-admin\", ...options }`; policy code is attached with `.bind()`"),
                        );
                    }
                }
                p.value.clone()
            }
            other => self.invalid(&p.value, format!("`policies` must be an array, found {}", other.describe())),
        }
    }

    /// A schema field: must be an `AgentSchema` built by a core constructor.
    fn schema(&mut self, p: &Prop) -> Node {
        match &p.value.val {
            // Shared, not copied: the schema is written once and used by every contract that names it.
            Val::Schema(json) => Node { span: json.span, via: json.via, val: Val::Inline(json.clone()) },
            Val::Object(_) => {
                self.push(
                    Diagnostic::new(Code::InvalidField, p.value.via.unwrap_or(p.value.span), format!("`{}` must be an AgentSchema, found a plain object", p.key))
                        .help("wrap the JSON Schema: `fromJsonSchema({ type: \"object\", ... })`, or use `fromStandardSchema`"),
                );
                Node::new(p.value.span, Val::Null)
            }
            Val::Zod(_) => {
                let io = if p.key == "input" { "{ io: \"input\" }" } else { "{ io: \"output\" }" };
                self.push(
                    Diagnostic::new(
                        Code::InvalidField,
                        p.value.via.unwrap_or(p.value.span),
                        format!("`{}` must be an AgentSchema, found a zod schema", p.key),
                    )
                    .help(format!("wrap it: `fromStandardSchema(X, {{ jsonSchema: z.toJSONSchema(X, {io}) }})`")),
                );
                Node::new(p.value.span, Val::Null)
            }
            other => self.invalid(
                &p.value,
                format!(
                    "`{}` must be an AgentSchema (fromJsonSchema, fromStandardSchema or emptyObjectSchema), found {}",
                    p.key,
                    other.describe()
                ),
            ),
        }
    }

    fn enum_value<T: std::str::FromStr>(&mut self, p: &Prop, allowed: &[&str]) -> Option<T> {
        match &p.value.val {
            Val::Str(s) => match s.parse::<T>() {
                Ok(v) => Some(v),
                Err(_) => {
                    let list = allowed.iter().map(|a| format!("\"{a}\"")).collect::<Vec<_>>().join(", ");
                    let help = match closest(s, allowed.iter().copied()) {
                        Some(c) => format!("did you mean \"{c}\"? expected one of {list}"),
                        None => format!("expected one of {list}"),
                    };
                    self.push(
                        Diagnostic::new(
                            Code::InvalidField,
                            p.value.via.unwrap_or(p.value.span),
                            format!("\"{s}\" is not a valid `{}`", p.key),
                        )
                        .help(help),
                    );
                    None
                }
            },
            other => {
                let d = Diagnostic::new(
                    Code::InvalidField,
                    p.value.span,
                    format!("`{}` must be a string, found {}", p.key, other.describe()),
                );
                self.push(d);
                None
            }
        }
    }

    fn component(&mut self, def: &Node) -> Node {
        const WHAT: &str = "a component contract";
        self.check_fields(def, COMPONENT_FIELDS, WHAT);
        let call = self.call_span;
        let mut out: Vec<Prop> = vec![prop("kind", call, str_node(call, "component"))];
        let ty = self.required(def, "type", WHAT, self.callee_span).map(|p| (p.key_span, self.string(p)));
        if let Some((key_span, ty)) = ty {
            let id = match &ty.val {
                Val::Str(s) => agent_surface_model::ids::component_contract_id(s),
                _ => String::new(),
            };
            out.push(prop("id", key_span, str_node(ty.span, &id)));
            out.push(prop("type", key_span, ty));
        }
        self.description(def, WHAT, self.callee_span, &mut out);
        self.common(def, &mut out, true);

        let observations = self.capabilities(def, "observations", |b, name_prop| b.observation(name_prop));
        out.push(observations);
        let actions = self.capabilities(def, "actions", |b, name_prop| b.action(name_prop));
        out.push(actions);
        Node::new(def.span, Val::Object(out))
    }

    fn description(&mut self, def: &Node, what: &str, anchor: Span, out: &mut Vec<Prop>) {
        if let Some(p) = self.required(def, "description", what, anchor) {
            let v = self.string(p);
            out.push(prop("description", p.key_span, v));
        }
    }

    /// meta, origin/priority (components), policies, tags with their defaults.
    fn common(&mut self, def: &Node, out: &mut Vec<Prop>, component: bool) {
        let call = self.call_span;
        let meta = match self.optional(def, "meta") {
            Some(p) => (p.key_span, self.json_object(p)),
            None => (call, Node::new(call, Val::Object(vec![]))),
        };
        out.push(prop("meta", meta.0, meta.1));
        if component {
            let origin = match self.optional(def, "origin") {
                Some(p) => (p.key_span, self.string(p)),
                None => (call, str_node(call, "first-party")),
            };
            out.push(prop("origin", origin.0, origin.1));
            let priority = match self.optional(def, "priority") {
                Some(p) => (p.key_span, self.integer(p)),
                None => (call, Node::new(call, Val::Num(0.0))),
            };
            out.push(prop("priority", priority.0, priority.1));
        }
        let policies = match self.optional(def, "policies") {
            Some(p) => (p.key_span, self.policies(p)),
            None => (call, Node::new(call, Val::Array(vec![]))),
        };
        out.push(prop("policies", policies.0, policies.1));
        let tags = match self.optional(def, "tags") {
            Some(p) => (p.key_span, self.string_array(p)),
            None => (call, Node::new(call, Val::Array(vec![]))),
        };
        out.push(prop("tags", tags.0, tags.1));
    }

    fn capabilities(
        &mut self,
        def: &Node,
        field: &str,
        mut each: impl FnMut(&mut Self, &Prop) -> Option<Node>,
    ) -> Prop {
        let call = self.call_span;
        let Some(p) = self.optional(def, field) else {
            return prop(field, call, Node::new(call, Val::Object(vec![])));
        };
        let Val::Object(entries) = &p.value.val else {
            let v = self.invalid(
                &p.value,
                format!("`{field}` must be an object of named contracts, found {}", p.value.val.describe()),
            );
            return prop(field, p.key_span, v);
        };
        let mut out = Vec::new();
        for entry in entries {
            if let Some(v) = each(self, entry) {
                out.push(Prop { key: entry.key.clone(), key_span: entry.key_span, value: v });
            }
        }
        prop(field, p.key_span, Node::new(p.value.span, Val::Object(out)))
    }

    fn observation(&mut self, entry: &Prop) -> Option<Node> {
        const WHAT: &str = "an observation contract";
        let def = match &entry.value.val {
            Val::Observation(def) => def,
            other => {
                let hint = matches!(other, Val::Action(_))
                    .then_some(" (an action contract belongs in `actions`)")
                    .unwrap_or("");
                self.push(
                    Diagnostic::new(
                        Code::InvalidField,
                        entry.key_span,
                        format!(
                            "observation `{}` must be an observationContract(...), found {}{hint}",
                            entry.key,
                            other.describe()
                        ),
                    )
                    .label("not wrapped in observationContract")
                    .help("observations: { name: observationContract({ description, output }) }"),
                );
                return None;
            }
        };
        self.check_fields(def, OBSERVATION_FIELDS, WHAT);
        let mut out = Vec::new();
        self.description(def, WHAT, entry.key_span, &mut out);
        if let Some(p) = self.required(def, "output", WHAT, entry.key_span) {
            let s = self.schema(p);
            out.push(prop("outputSchema", p.key_span, s));
        }
        let meta = match self.optional(def, "meta") {
            Some(p) => (p.key_span, self.json_object(p)),
            None => (def.span, Node::new(def.span, Val::Object(vec![]))),
        };
        out.push(prop("meta", meta.0, meta.1));
        Some(Node::new(entry.value.span, Val::Object(out)))
    }

    fn action(&mut self, entry: &Prop) -> Option<Node> {
        const WHAT: &str = "an action contract";
        let def = match &entry.value.val {
            Val::Action(def) => def,
            other => {
                let hint = matches!(other, Val::Observation(_))
                    .then_some(" (an observation contract belongs in `observations`)")
                    .unwrap_or("");
                self.push(
                    Diagnostic::new(
                        Code::InvalidField,
                        entry.key_span,
                        format!(
                            "action `{}` must be an actionContract(...), found {}{hint}",
                            entry.key,
                            other.describe()
                        ),
                    )
                    .label("not wrapped in actionContract")
                    .help("actions: { name: actionContract({ description, input, effect }) }"),
                );
                return None;
            }
        };
        self.check_fields(def, ACTION_FIELDS, WHAT);
        let mut out = Vec::new();
        self.description(def, WHAT, entry.key_span, &mut out);
        self.governed_io(def, WHAT, CapabilityKind::ViewAction, entry.key_span, &mut out);
        let meta = match self.optional(def, "meta") {
            Some(p) => (p.key_span, self.json_object(p)),
            None => (def.span, Node::new(def.span, Val::Object(vec![]))),
        };
        out.push(prop("meta", meta.0, meta.1));
        Some(Node::new(entry.value.span, Val::Object(out)))
    }

    /// inputSchema, outputSchema and governance with defaults from the effect.
    fn governed_io(&mut self, def: &Node, what: &str, kind: CapabilityKind, anchor: Span, out: &mut Vec<Prop>) {
        if let Some(p) = self.required(def, "input", what, anchor) {
            if matches!(p.value.val, Val::Schema(_)) && self.output_mode.contains(&p.value.span) {
                self.push(
                    Diagnostic::new(Code::ZodInputInOutputMode, p.value.via.unwrap_or(p.value.span), "this input schema was converted in zod's output mode (the default of z.toJSONSchema)")
                        .label("z.toJSONSchema(X) describes what zod returns, not what it accepts")
                        .help("convert inputs with `z.toJSONSchema(X, { io: \"input\" })`: in output mode fields with defaults become required and unknown keys are refused, so agents are asked for more than the app needs"),
                );
            }
            let s = self.schema(p);
            out.push(prop("inputSchema", p.key_span, s));
        }
        match self.optional(def, "output") {
            Some(p) => {
                let s = self.schema(p);
                out.push(prop("outputSchema", p.key_span, s));
            }
            None => out.push(prop("outputSchema", def.span, Node::new(def.span, Val::Null))),
        }
        let effect_prop = self.required(def, "effect", what, anchor);
        let Some(effect_prop) = effect_prop else { return };
        let effect_names: Vec<&str> = Effect::ALL.iter().map(|e| e.as_str()).collect();
        let Some(effect) = self.enum_value::<Effect>(effect_prop, &effect_names) else { return };
        let defaults = default_governance(kind, effect);
        out.push(prop("effect", effect_prop.key_span, effect_prop.value.clone()));
        let call = def.span;
        for (field, default) in [("idempotent", defaults.idempotent), ("reversible", defaults.reversible)] {
            let v = match self.optional(def, field) {
                Some(p) => (p.key_span, self.boolean(p)),
                None => (call, Node::new(call, Val::Bool(default))),
            };
            out.push(prop(field, v.0, v.1));
        }
        let confirmation = match self.optional(def, "confirmation") {
            Some(p) => {
                self.enum_value::<Confirmation>(p, &["never", "optional", "required"]);
                (p.key_span, p.value.clone())
            }
            None => (call, str_node(call, defaults.confirmation.as_str())),
        };
        out.push(prop("confirmation", confirmation.0, confirmation.1));
        let audit = match self.optional(def, "audit") {
            Some(p) => {
                self.enum_value::<Audit>(p, &["none", "metadata", "full"]);
                (p.key_span, p.value.clone())
            }
            None => (call, str_node(call, defaults.audit.as_str())),
        };
        out.push(prop("audit", audit.0, audit.1));
    }

    fn operation(&mut self, def: &Node, kind: CapabilityKind) -> Node {
        let (what, kind_str) = match kind {
            CapabilityKind::DomainProcedure => ("a procedure contract", "procedure"),
            _ => ("an external tool contract", "external-tool"),
        };
        self.check_fields(def, OPERATION_FIELDS, what);
        let call = self.call_span;
        let mut out = vec![prop("kind", call, str_node(call, kind_str))];
        let anchor = self.callee_span;
        if let Some(p) = self.required(def, "id", what, anchor) {
            let v = self.string(p);
            out.push(prop("id", p.key_span, v));
        }
        self.description(def, what, anchor, &mut out);
        self.governed_io(def, what, kind, anchor, &mut out);
        self.common(def, &mut out, false);
        Node::new(def.span, Val::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_suggests_typos_only() {
        assert_eq!(closest("descripton", COMPONENT_FIELDS.iter().copied()), Some("description"));
        assert_eq!(closest("zzz", COMPONENT_FIELDS.iter().copied()), None);
    }
}
