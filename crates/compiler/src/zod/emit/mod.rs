//! `z.toJSONSchema(schema, { io })` as zod 4.6.7 computes it: process every reachable schema
//! once (processors write their keywords, wrappers and clones record a `ref`), extract `$defs`
//! (schemas with an `id`, cycles), flatten refs (own keys win, inherited keys follow), compact
//! `anyOf` of bare types into `type` arrays, fold object intersections, assemble. Constructs
//! whose JSON Schema leaves the supported subset are refused with the construct named.

use super::json::{Obj, J};
use super::model::{Catchall, Check, Field, Kind, Targets, ThunkId, ZodId};
use crate::source::Span;
use rustc_hash::FxHashMap as HashMap;

mod finalize;

pub const DIALECT: &str = "https://json-schema.org/draft/2020-12/schema";

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Io {
    Input,
    Output,
}

/// Why a schema cannot be translated: the construct, at its span, and the alternative.
#[derive(Clone, Debug)]
pub struct Refusal {
    pub span: Span,
    pub construct: String,
    pub message: String,
    pub help: String,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum RefState {
    None,
    To(Id),
    Done,
}

struct Seen {
    schema: Obj,
    count: u32,
    cycle: bool,
    ref_: RefState,
    def: Option<Obj>,
    def_id: Option<String>,
}

/// A node's index in one conversion (`Gen::nodes`): the algorithm below is zod's, written over
/// plain indices.
pub(super) type Id = u32;

struct Gen<'a> {
    targets: &'a Targets,
    /// Every node reachable from the root (through parents and resolved thunks), by index.
    nodes: Vec<ZodId>,
    ids: HashMap<ZodId, Id>,
    io: Io,
    order: Vec<Id>,
    seen: HashMap<Id, Seen>,
    counter: u32,
    intersections: Vec<Id>,
    /// ref targets before flattening cleared them (for intersection carriers).
    refs: HashMap<Id, Id>,
}

type R<T> = Result<T, Refusal>;

const ALLOWED_META: &[&str] = &["id", "title", "description", "examples", "deprecated", "default"];

/// Converts the schema `root` (its thunks already resolved in `targets`).
pub fn to_json_schema(targets: &Targets, root: &ZodId, io: Io) -> R<serde_json::Value> {
    let mut g = Gen {
        targets,
        nodes: Vec::new(),
        ids: HashMap::default(),
        io,
        order: Vec::new(),
        seen: HashMap::default(),
        counter: 0,
        intersections: Vec::new(),
        refs: HashMap::default(),
    };
    let root = g.index(root);
    let mut path = Vec::new();
    g.process(root, &mut path)?;
    g.extract_defs(root)?;
    g.finalize(root)
}

impl Gen<'_> {
    /// Numbers every node reachable from `root` (nodes first seen get the next index).
    fn index(&mut self, root: &ZodId) -> Id {
        let mut stack = vec![root.clone()];
        while let Some(z) = stack.pop() {
            if self.ids.contains_key(&z) {
                continue;
            }
            self.ids.insert(z.clone(), self.nodes.len() as Id);
            self.nodes.push(z.clone());
            stack.extend(z.parent.iter().cloned());
            let thunk = |t: &ThunkId| self.targets.get(t).cloned();
            match &z.kind {
                Kind::Array { element } => stack.push(element.clone()),
                Kind::Object { shape, .. } => {
                    for (_, f) in shape {
                        match f {
                            Field::Schema(s) => stack.push(s.clone()),
                            Field::Getter(t) => stack.extend(thunk(t)),
                        }
                    }
                }
                Kind::Union { options } => stack.extend(options.iter().cloned()),
                Kind::Intersection { left, right } => stack.extend([left.clone(), right.clone()]),
                Kind::Optional(i) | Kind::ExactOptional(i) | Kind::Nullable(i) | Kind::NonOptional(i) => {
                    stack.push(i.clone())
                }
                Kind::Default { inner, .. } | Kind::Prefault { inner, .. } | Kind::Catch { inner, .. } => {
                    stack.push(inner.clone())
                }
                Kind::Pipe { input, output, .. } => stack.extend([input.clone(), output.clone()]),
                Kind::Lazy(t) => stack.extend(thunk(t)),
                _ => {}
            }
        }
        self.ids[root]
    }

    /// The node with index `id`.
    fn node(&self, id: Id) -> ZodId {
        self.nodes[id as usize].clone()
    }

    /// The index of a node reachable from the root.
    fn id(&self, z: &ZodId) -> Id {
        self.ids[z]
    }

    /// The index of what a resolved thunk evaluated to.
    fn thunk_target(&self, t: &ThunkId) -> Option<Id> {
        self.targets.get(t).map(|z| self.id(z))
    }

    fn refuse<T>(&self, id: Id, construct: &str, message: &str, help: &str) -> R<T> {
        Err(Refusal {
            span: self.node(id).span,
            construct: construct.into(),
            message: message.into(),
            help: help.into(),
        })
    }

    fn process(&mut self, id: Id, path: &mut Vec<Id>) -> R<J> {
        if let Some(s) = self.seen.get_mut(&id) {
            s.count += 1;
            if path.contains(&id) {
                s.cycle = true;
            }
            return Ok(J::Ref(id));
        }
        self.order.push(id);
        self.seen.insert(
            id,
            Seen { schema: Obj::new(), count: 1, cycle: false, ref_: RefState::None, def: None, def_id: None },
        );
        path.push(id);
        let mut json = Obj::new();
        let result = self.processor(id, &mut json, path);
        if let Err(e) = result {
            path.pop();
            return Err(e);
        }
        self.seen.get_mut(&id).expect("seen").schema = json;
        if let Some(parent) = self.node(id).parent.as_ref().map(|p| self.id(p)) {
            let s = self.seen.get_mut(&id).expect("seen");
            if s.ref_ == RefState::None {
                s.ref_ = RefState::To(parent);
            }
            self.process(parent, path)?;
        }
        path.pop();
        if let Some(meta) = self.registry_get(id) {
            for (k, _) in &meta.0 {
                if !ALLOWED_META.contains(&k.as_str()) {
                    return self.refuse(
                        id,
                        &format!(".meta({{ {k} }})"),
                        &format!("the metadata key `{k}` is not part of the supported JSON Schema subset"),
                        "use only title, description, examples, deprecated, default (and id for $defs) in .meta()",
                    );
                }
            }
            self.seen.get_mut(&id).expect("seen").schema.assign(&meta);
        }
        let transforming = self.io == Io::Input && self.is_transforming(id, &mut Vec::new());
        let s = self.seen.get_mut(&id).expect("seen");
        if transforming {
            s.schema.remove("examples");
            s.schema.remove("default");
        }
        if let Some(p) = s.schema.remove("_prefault") {
            if self.io == Io::Input && !s.schema.has("default") {
                s.schema.set("default", p);
            }
        }
        Ok(J::Ref(id))
    }

    /// zod's metadata registry `get`: the parent's metadata without `id`, overlaid with own.
    fn registry_get(&self, id: Id) -> Option<Obj> {
        let n = self.node(id);
        let mut out = Obj::new();
        if let Some(p) = n.parent.as_ref().map(|p| self.id(p)) {
            if let Some(pm) = self.registry_get(p) {
                out.assign(&pm);
                out.remove("id");
            }
        }
        for (k, v) in &n.meta {
            out.set(k, J::from_json(v));
        }
        (!out.is_empty()).then_some(out)
    }

    fn own_id(&self, id: Id) -> Option<String> {
        self.registry_get(id).and_then(|m| m.get("id").and_then(|v| v.as_str().map(str::to_string)))
    }

    fn set_ref(&mut self, id: Id, target: Id) {
        self.seen.get_mut(&id).expect("seen").ref_ = RefState::To(target);
    }

    fn resolve_thunk(&self, id: Id, thunk: &ThunkId) -> R<Id> {
        match self.thunk_target(thunk) {
            Some(t) => Ok(t),
            None => self.refuse(
                id,
                "z.lazy",
                "a lazy schema could not be evaluated",
                "return a zod schema constant from the getter or z.lazy()",
            ),
        }
    }

    fn field(&self, owner: Id, f: &Field) -> R<Id> {
        match f {
            Field::Schema(s) => Ok(self.id(s)),
            Field::Getter(t) => self.resolve_thunk(owner, t),
        }
    }

    fn processor(&mut self, id: Id, json: &mut Obj, path: &mut Vec<Id>) -> R<()> {
        let node = self.node(id);
        match &node.kind {
            Kind::String => self.string(id, json),
            Kind::Number => self.number(id, json),
            Kind::Boolean => {
                json.set("type", J::str("boolean"));
                Ok(())
            }
            Kind::Null => {
                json.set("type", J::str("null"));
                Ok(())
            }
            Kind::Any | Kind::Unknown => Ok(()),
            Kind::Enum(values) => {
                if values.is_empty() {
                    return self.refuse(id, "z.enum([])", "an empty enum accepts nothing (`not: {}`), outside the subset", "give the enum at least one value");
                }
                if values.iter().all(|v| v.is_number()) {
                    json.set("type", J::str("number"));
                }
                if values.iter().all(|v| v.is_string()) {
                    json.set("type", J::str("string"));
                }
                json.set("enum", J::Arr(values.iter().map(J::from_json).collect()));
                Ok(())
            }
            Kind::Literal(values) => {
                if values.is_empty() {
                    return self.refuse(id, "z.literal([])", "a literal with no values accepts nothing", "give the literal a value");
                }
                if values.len() == 1 {
                    let v = &values[0];
                    let t = match v {
                        serde_json::Value::Null => "null",
                        serde_json::Value::Bool(_) => "boolean",
                        serde_json::Value::Number(_) => "number",
                        _ => "string",
                    };
                    json.set("type", J::str(t));
                    json.set("const", J::from_json(v));
                } else {
                    if values.iter().all(|v| v.is_number()) {
                        json.set("type", J::str("number"));
                    }
                    if values.iter().all(|v| v.is_string()) {
                        json.set("type", J::str("string"));
                    }
                    if values.iter().all(|v| v.is_boolean()) {
                        json.set("type", J::str("boolean"));
                    }
                    if values.iter().all(|v| v.is_null()) {
                        json.set("type", J::str("null"));
                    }
                    json.set("enum", J::Arr(values.iter().map(J::from_json).collect()));
                }
                Ok(())
            }
            Kind::TemplateLiteral(pattern) => {
                json.set("type", J::str("string"));
                json.set("pattern", J::Str(pattern.clone()));
                Ok(())
            }
            Kind::Array { element } => {
                let element = element.clone();
                let (min, max) = self.length_bounds(id);
                if let Some(m) = min {
                    json.set("minItems", J::Num(m));
                }
                if let Some(m) = max {
                    json.set("maxItems", J::Num(m));
                }
                json.set("type", J::str("array"));
                let items = self.process(self.id(&element), path)?;
                json.set("items", items);
                Ok(())
            }
            Kind::Object { shape, catchall } => {
                let shape = shape.clone();
                let catchall = catchall.clone();
                json.set("type", J::str("object"));
                let mut props = Obj::new();
                let mut fields = Vec::new();
                for (k, f) in &shape {
                    let fid = self.field(id, f)?;
                    fields.push((k.clone(), fid));
                }
                // JS own-key order: integer-like keys first.
                let mut ordered = Obj::new();
                for (k, fid) in &fields {
                    ordered.set(k, J::Ref(*fid));
                }
                for (k, f) in &ordered.0 {
                    let J::Ref(fid) = f else { continue };
                    let v = self.process(*fid, path)?;
                    props.set(k, v);
                }
                json.set("properties", J::Obj(props));
                let mut required = Vec::new();
                for (k, f) in &ordered.0 {
                    let J::Ref(fid) = f else { continue };
                    let optional = match self.io {
                        Io::Input => self.input_optin(*fid),
                        Io::Output => self.optout(*fid),
                    };
                    if !optional {
                        required.push(J::Str(k.clone()));
                    }
                }
                if !required.is_empty() {
                    json.set("required", J::Arr(required));
                }
                match catchall {
                    Catchall::Strict => json.set("additionalProperties", J::Bool(false)),
                    Catchall::Strip => {
                        if self.io == Io::Output {
                            json.set("additionalProperties", J::Bool(false));
                        }
                    }
                }
                Ok(())
            }
            Kind::Union { options } => {
                let options = options.clone();
                let mut out = Vec::new();
                for o in options {
                    out.push(self.process(self.id(&o), path)?);
                }
                json.set("anyOf", J::Arr(out));
                Ok(())
            }
            Kind::Intersection { left, right } => {
                let (left, right) = (self.id(left), self.id(right));
                let a = self.process(left, path)?;
                let b = self.process(right, path)?;
                let mut all = Vec::new();
                for x in [a, b] {
                    match self.simple_intersection(&x) {
                        Some(inner) => all.extend(inner),
                        None => all.push(x),
                    }
                }
                json.set("allOf", J::Arr(all));
                self.intersections.push(id);
                Ok(())
            }
            Kind::Nullable(inner) => {
                let inner = self.id(inner);
                let v = self.process(inner, path)?;
                let mut null = Obj::new();
                null.set("type", J::str("null"));
                json.set("anyOf", J::Arr(vec![v, J::Obj(null)]));
                Ok(())
            }
            Kind::Optional(inner) | Kind::ExactOptional(inner) | Kind::NonOptional(inner) => {
                let inner = self.id(inner);
                self.process(inner, path)?;
                self.set_ref(id, inner);
                Ok(())
            }
            Kind::Lazy(thunk) => {
                let inner = self.resolve_thunk(id, thunk)?;
                self.process(inner, path)?;
                self.set_ref(id, inner);
                Ok(())
            }
            Kind::Default { inner, value } | Kind::Catch { inner, value } => {
                let (inner, value) = (self.id(inner), J::from_json(value));
                self.process(inner, path)?;
                self.set_ref(id, inner);
                json.set("default", value);
                Ok(())
            }
            Kind::Prefault { inner, value } => {
                let (inner, value) = (self.id(inner), J::from_json(value));
                self.process(inner, path)?;
                self.set_ref(id, inner);
                if self.io == Io::Input {
                    json.set("_prefault", value);
                }
                Ok(())
            }
            Kind::Pipe { input, output, .. } => {
                let (input, output) = (self.id(input), self.id(output));
                let in_is_transform = matches!(self.node(input).kind, Kind::Transform);
                let inner = match self.io {
                    Io::Input if in_is_transform => output,
                    Io::Input => input,
                    Io::Output => output,
                };
                self.process(inner, path)?;
                self.set_ref(id, inner);
                Ok(())
            }
            Kind::Transform if self.io == Io::Output => self.refuse(
                id,
                "transform in output mode",
                "a transform has no JSON Schema for its output",
                "describe the input: z.toJSONSchema(X, { io: \"input\" }), or declare the output shape with .pipe(z.object({...}))",
            ),
            Kind::Transform => self.refuse(
                id,
                "z.transform()",
                "a transform on its own has no input schema",
                "transform a schema instead: z.string().transform(...), or z.preprocess(fn, schema)",
            ),
            Kind::Unsupported { construct, message, help } => {
                let (c, m, h) = (construct.clone(), message.clone(), help.clone());
                self.refuse(id, &c, &m, &h)
            }
        }
    }

    /// `{ allOf: [...] }` with nothing else (at processing time): its members are spread.
    fn simple_intersection(&self, j: &J) -> Option<Vec<J>> {
        let J::Ref(r) = j else { return None };
        let s = &self.seen.get(r)?.schema;
        match (s.len(), s.get("allOf")) {
            (1, Some(J::Arr(items))) => Some(items.clone()),
            _ => None,
        }
    }

    fn checks(&self, id: Id) -> &[Check] {
        &self.nodes[id as usize].checks
    }

    fn length_bounds(&self, id: Id) -> (Option<f64>, Option<f64>) {
        super::model::length_bounds(self.checks(id))
    }

    fn string(&mut self, id: Id, json: &mut Obj) -> R<()> {
        json.set("type", J::str("string"));
        let (min, max) = self.length_bounds(id);
        if let Some(m) = min {
            json.set("minLength", J::Num(m));
        }
        if let Some(m) = max {
            json.set("maxLength", J::Num(m));
        }
        let mut format: Option<String> = None;
        let mut lax = false;
        let mut patterns: Vec<super::model::Regex> = Vec::new();
        for c in self.checks(id) {
            if let Check::Format { format: f, pattern, lax: l } = c {
                format = Some(f.clone());
                lax |= *l;
                if let Some(p) = pattern {
                    if !patterns.iter().any(|x| x.id == p.id) {
                        patterns.push(p.clone());
                    }
                }
            }
        }
        if let Some(f) = &format {
            let mapped = match f.as_str() {
                "email" => Some("email"),
                "url" => Some("uri"),
                "uuid" | "guid" => Some("uuid"),
                "datetime" => Some("date-time"),
                "date" => Some("date"),
                "time" | "regex" => None,
                other => return self.refuse(
                    id,
                    &format!("format \"{other}\""),
                    &format!(
                        "zod emits `format: \"{}\"`, which is outside the supported formats",
                        other.replace('_', "-")
                    ),
                    "use one of z.email(), z.url(), z.uuid(), z.iso.datetime(), z.iso.date(), or a single .regex(...)",
                ),
            };
            if let Some(m) = mapped {
                if !(lax || f == "time") {
                    json.set("format", J::str(m));
                }
            }
        }
        match patterns.len() {
            0 => {}
            1 => json.set("pattern", J::Str(patterns[0].source.clone())),
            _ => {
                return self.refuse(
                    id,
                    "several regexes",
                    "more than one pattern becomes `allOf`, which is outside the subset",
                    "combine the conditions into one .regex(...), or drop the format check next to a .regex(...)",
                )
            }
        }
        Ok(())
    }

    fn number(&mut self, id: Id, json: &mut Obj) -> R<()> {
        let (mut min, mut max, mut exmin, mut exmax): (Option<f64>, Option<f64>, Option<f64>, Option<f64>) =
            (None, None, None, None);
        let mut divisors: Vec<f64> = Vec::new();
        let mut is_int = false;
        fn lo(slot: &mut Option<f64>, v: f64) {
            if slot.is_none_or(|s| v > s) {
                *slot = Some(v);
            }
        }
        fn hi(slot: &mut Option<f64>, v: f64) {
            if slot.is_none_or(|s| v < s) {
                *slot = Some(v);
            }
        }
        for c in self.checks(id) {
            match c {
                Check::GreaterThan { value, inclusive: true } => lo(&mut min, *value),
                Check::GreaterThan { value, inclusive: false } => lo(&mut exmin, *value),
                Check::LessThan { value, inclusive: true } => hi(&mut max, *value),
                Check::LessThan { value, inclusive: false } => hi(&mut exmax, *value),
                Check::MultipleOf(v) if !divisors.contains(v) => divisors.push(*v),
                Check::NumberFormat(f) => {
                    if f.contains("int") {
                        is_int = true;
                    }
                    let (a, b) = match *f {
                        "safeint" => (-9007199254740991.0, 9007199254740991.0),
                        "int32" => (-2147483648.0, 2147483647.0),
                        "uint32" => (0.0, 4294967295.0),
                        "float32" => (-3.4028234663852886e38, 3.4028234663852886e38),
                        _ => (-f64::MAX, f64::MAX),
                    };
                    lo(&mut min, a);
                    hi(&mut max, b);
                }
                _ => {}
            }
        }
        json.set("type", J::str(if is_int { "integer" } else { "number" }));
        if exmin.is_some_and(|e| e >= min.unwrap_or(f64::NEG_INFINITY)) {
            json.set("exclusiveMinimum", J::Num(exmin.unwrap_or_default()));
        } else if let Some(m) = min {
            json.set("minimum", J::Num(m));
        }
        if exmax.is_some_and(|e| e <= max.unwrap_or(f64::INFINITY)) {
            json.set("exclusiveMaximum", J::Num(exmax.unwrap_or_default()));
        } else if let Some(m) = max {
            json.set("maximum", J::Num(m));
        }
        let mut distinct: Vec<f64> = Vec::new();
        for d in divisors {
            if !d.is_finite() || d == 0.0 {
                return self.refuse(
                    id,
                    &format!("multipleOf({d})"),
                    &format!("a multipleOf divisor of {d} cannot be represented in JSON Schema"),
                    "use a positive, finite divisor",
                );
            }
            if !distinct.contains(&d.abs()) {
                distinct.push(d.abs());
            }
        }
        match distinct.len() {
            0 => {}
            1 => json.set("multipleOf", J::Num(distinct[0])),
            _ => {
                return self.refuse(
                    id,
                    "several multipleOf",
                    "more than one divisor becomes `allOf`, which is outside the subset",
                    "use one divisor (their least common multiple)",
                )
            }
        }
        Ok(())
    }

    fn optin(&self, id: Id) -> bool {
        match &self.node(id).kind {
            Kind::Optional(_)
            | Kind::ExactOptional(_)
            | Kind::Default { .. }
            | Kind::Prefault { .. }
            | Kind::Catch { .. }
            | Kind::Transform => true,
            Kind::Nullable(i) => self.optin(self.id(i)),
            Kind::Pipe { input, .. } => self.optin(self.id(input)),
            Kind::Lazy(t) => self.thunk_target(t).is_some_and(|i| self.optin(i)),
            _ => false,
        }
    }

    fn optout(&self, id: Id) -> bool {
        match &self.node(id).kind {
            Kind::Optional(_) | Kind::ExactOptional(_) => true,
            Kind::Catch { inner, .. } | Kind::Nullable(inner) => self.optout(self.id(inner)),
            Kind::Pipe { output, .. } => self.optout(self.id(output)),
            Kind::Lazy(t) => self.thunk_target(t).is_some_and(|i| self.optout(i)),
            _ => false,
        }
    }

    /// zod's `inputOptin`: looks through `.catch()` and a transform pipe.
    fn input_optin(&self, id: Id) -> bool {
        match &self.node(id).kind {
            Kind::Pipe { input, output, .. } if matches!(input.kind, Kind::Transform) => {
                self.input_optin(self.id(output))
            }
            Kind::Catch { inner, .. } => self.input_optin(self.id(inner)),
            _ => self.optin(id),
        }
    }

    fn is_transforming(&self, id: Id, visited: &mut Vec<Id>) -> bool {
        if visited.contains(&id) {
            return false;
        }
        visited.push(id);
        match &self.node(id).kind {
            Kind::Transform => true,
            Kind::Array { element } => self.is_transforming(self.id(element), visited),
            Kind::Lazy(t) => self.thunk_target(t).is_some_and(|i| self.is_transforming(i, visited)),
            Kind::Optional(i) | Kind::ExactOptional(i) | Kind::NonOptional(i) | Kind::Nullable(i) => {
                self.is_transforming(self.id(i), visited)
            }
            Kind::Default { inner, .. } | Kind::Prefault { inner, .. } | Kind::Catch { inner, .. } => {
                self.is_transforming(self.id(inner), visited)
            }
            Kind::Intersection { left, right } => {
                self.is_transforming(self.id(left), visited) || self.is_transforming(self.id(right), visited)
            }
            Kind::Pipe { input, output, codec } => {
                *codec
                    || self.is_transforming(self.id(input), visited)
                    || self.is_transforming(self.id(output), visited)
            }
            Kind::Object { shape, .. } => shape.iter().any(|(_, f)| match f {
                Field::Schema(s) => self.is_transforming(self.id(s), visited),
                Field::Getter(t) => self.thunk_target(t).is_some_and(|i| self.is_transforming(i, visited)),
            }),
            Kind::Union { options } => options.iter().any(|o| self.is_transforming(self.id(o), visited)),
            _ => false,
        }
    }
}
