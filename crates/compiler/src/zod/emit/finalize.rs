//! The second half of a conversion, after every schema was processed: `$defs` extraction,
//! reference flattening, cycle handling, compacting and intersection folding, and the final
//! JSON value (as zod's `finalize` and `extractDefs` produce them).

use super::Id;
use super::{Gen, RefState, DIALECT, R};
use crate::zod::json::{Obj, J};
use rustc_hash::FxHashMap as HashMap;

impl Gen<'_> {
    pub(super) fn extract_defs(&mut self, root: Id) -> R<()> {
        let mut ids: HashMap<String, Id> = HashMap::default();
        for id in self.order.clone() {
            if let Some(sid) = self.own_id(id) {
                if let Some(other) = ids.get(&sid) {
                    if *other != id {
                        return self.refuse(
                            id,
                            ".meta({ id })",
                            &format!("Duplicate schema id \"{sid}\" detected during JSON Schema conversion. Two different schemas cannot share the same id when converted together."),
                            "give each schema its own id",
                        );
                    }
                }
                ids.insert(sid, id);
            }
        }
        for id in self.order.clone() {
            let s = &self.seen[&id];
            if id == root || self.own_id(id).is_some() || s.cycle {
                self.extract_to_def(id, root);
            }
        }
        Ok(())
    }

    pub(super) fn extract_to_def(&mut self, id: Id, root: Id) {
        let s = self.seen.get(&id).expect("seen");
        if s.schema.has("$ref") {
            return;
        }
        let schema_id = s.schema.get("id").and_then(|v| v.as_str()).map(str::to_string);
        let (reference, def_id) = if id == root && schema_id.is_none() {
            ("#".to_string(), None)
        } else {
            let def_id = schema_id.unwrap_or_else(|| {
                let n = format!("__schema{}", self.counter);
                self.counter += 1;
                n
            });
            (format!("#/$defs/{}", def_id.replace('~', "~0").replace('/', "~1")), Some(def_id))
        };
        let s = self.seen.get_mut(&id).expect("seen");
        s.def = Some(s.schema.clone());
        if def_id.is_some() {
            s.def_id = def_id;
        }
        let mut r = Obj::new();
        r.set("$ref", J::Str(reference));
        s.schema = r;
    }

    /// The object flattening writes into: the extracted body, else the schema.
    pub(super) fn target(&mut self, id: Id) -> &mut Obj {
        let s = self.seen.get_mut(&id).expect("seen");
        match &mut s.def {
            Some(d) => d,
            None => &mut s.schema,
        }
    }

    pub(super) fn flatten(&mut self, id: Id) {
        let state = self.seen[&id].ref_;
        if state == RefState::Done {
            return;
        }
        let cached = self.target(id).clone();
        self.seen.get_mut(&id).expect("seen").ref_ = RefState::Done;
        let parent = self.node(id).parent.as_ref().map(|p| self.id(p));
        let mut ref_target = None;
        if let RefState::To(r) = state {
            ref_target = Some(r);
            self.refs.insert(id, r);
            self.flatten(r);
            let ref_schema = self.seen[&r].schema.clone();
            let ref_def = self.seen[&r].def.clone();
            let is_parent = parent == Some(r);
            let strings = |g: &Gen, j: &J| g.stringify(j);
            let target_snapshot;
            {
                let t = self.target(id);
                t.assign(&ref_schema);
                t.assign(&cached);
                if is_parent {
                    t.0.retain(|(k, _)| k == "$ref" || k == "allOf" || cached.has(k));
                }
                target_snapshot = t.clone();
            }
            if ref_schema.has("$ref") {
                if let Some(def) = ref_def {
                    let drop: Vec<String> = target_snapshot
                        .0
                        .iter()
                        .filter(|(k, v)| {
                            k != "$ref"
                                && k != "allOf"
                                && def.get(k).is_some_and(|d| strings(self, d) == strings(self, v))
                        })
                        .map(|(k, _)| k.clone())
                        .collect();
                    let t = self.target(id);
                    t.0.retain(|(k, _)| !drop.contains(k));
                }
            }
        }
        if let Some(p) = parent.filter(|p| Some(*p) != ref_target) {
            self.flatten(p);
            if let Some(r) = self.seen[&p].schema.get("$ref").cloned() {
                let pdef = self.seen[&p].def.clone();
                let snapshot = {
                    let t = self.target(id);
                    t.set("$ref", r);
                    t.clone()
                };
                if let Some(def) = pdef {
                    let drop: Vec<String> = snapshot
                        .0
                        .iter()
                        .filter(|(k, v)| {
                            k != "$ref"
                                && k != "allOf"
                                && def.get(k).is_some_and(|d| self.stringify(d) == self.stringify(v))
                        })
                        .map(|(k, _)| k.clone())
                        .collect();
                    self.target(id).0.retain(|(k, _)| !drop.contains(k));
                }
            }
        }
    }

    /// JSON.stringify of a value as it stands now (placeholders resolved).
    pub(super) fn stringify(&self, j: &J) -> String {
        let mut out = String::new();
        self.write(j, &mut out, 0);
        out
    }

    pub(super) fn write(&self, j: &J, out: &mut String, depth: usize) {
        if depth > 256 {
            out.push_str("null");
            return;
        }
        match j {
            J::Null => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Num(n) => out.push_str(&crate::numbers::js_number_string(*n)),
            J::Str(s) => out.push_str(&serde_json::to_string(s).unwrap_or_default()),
            J::Arr(a) => {
                out.push('[');
                for (i, x) in a.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    self.write(x, out, depth + 1);
                }
                out.push(']');
            }
            J::Obj(o) => self.write_obj(o, out, depth),
            J::Ref(r) => match self.seen.get(r) {
                Some(s) => self.write_obj(&s.schema, out, depth + 1),
                None => out.push_str("null"),
            },
        }
    }

    pub(super) fn write_obj(&self, o: &Obj, out: &mut String, depth: usize) {
        out.push('{');
        for (i, (k, v)) in o.0.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&serde_json::to_string(k).unwrap_or_default());
            out.push(':');
            self.write(v, out, depth + 1);
        }
        out.push('}');
    }

    /// The object a member value stands for right now.
    pub(super) fn object_of(&self, j: &J) -> Option<Obj> {
        match j {
            J::Obj(o) => Some(o.clone()),
            J::Ref(r) => self.seen.get(r).map(|s| s.schema.clone()),
            _ => None,
        }
    }

    pub(super) fn compact_entry(&mut self, id: Id, visiting: &mut Vec<Id>) {
        if visiting.contains(&id) {
            return;
        }
        visiting.push(id);
        let mut schema = std::mem::take(&mut self.seen.get_mut(&id).expect("seen").schema);
        self.compact(&mut schema, visiting);
        self.seen.get_mut(&id).expect("seen").schema = schema;
        visiting.pop();
    }

    /// `anyOf` of bare `{type}` branches → a `type` array.
    pub(super) fn compact(&mut self, schema: &mut Obj, visiting: &mut Vec<Id>) {
        let Some(J::Arr(options)) = schema.get("anyOf").cloned() else { return };
        if options.is_empty() || schema.has("type") {
            return;
        }
        let mut types: Vec<String> = Vec::new();
        for option in options.iter() {
            let keys_and_type = match option {
                J::Ref(r) => {
                    self.compact_entry(*r, visiting);
                    let s = &self.seen[r].schema;
                    (s.keys(), s.get("type").cloned())
                }
                J::Obj(o) => {
                    let mut o = o.clone();
                    self.compact(&mut o, visiting);
                    (o.keys(), o.get("type").cloned())
                }
                _ => return,
            };
            if keys_and_type.0.len() != 1 || keys_and_type.0[0] != "type" {
                return;
            }
            let members = match keys_and_type.1 {
                Some(J::Str(s)) => vec![s],
                Some(J::Arr(a)) => {
                    let mut v = Vec::new();
                    for m in a {
                        match m {
                            J::Str(s) => v.push(s),
                            _ => return,
                        }
                    }
                    v
                }
                _ => return,
            };
            for m in members {
                if !types.contains(&m) {
                    types.push(m);
                }
            }
        }
        schema.remove("anyOf");
        if types.len() == 1 {
            schema.set("type", J::Str(types.remove(0)));
        } else {
            schema.set("type", J::Arr(types.into_iter().map(J::Str).collect()));
        }
    }

    pub(super) fn fold_objects(&self, members: &[J]) -> Option<Obj> {
        let mut objects = Vec::new();
        for m in members {
            let o = self.object_of(m)?;
            if o.get("type") != Some(&J::str("object")) {
                return None;
            }
            if o.0
                .iter()
                .any(|(k, _)| !["type", "properties", "required", "additionalProperties"].contains(&k.as_str()))
            {
                return None;
            }
            objects.push(o);
        }
        let mut properties = Obj::new();
        let mut required: Vec<String> = Vec::new();
        for object in &objects {
            if let Some(J::Obj(props)) = object.get("properties") {
                for (key, _) in &props.0 {
                    if properties.has(key) {
                        continue;
                    }
                    let mut parts: Vec<J> = Vec::new();
                    for other in &objects {
                        let part = other.get("properties").and_then(|p| p.as_obj()).and_then(|p| p.get(key)).cloned();
                        let Some(part) = part else { continue };
                        if !parts.iter().any(|s| self.stringify(s) == self.stringify(&part)) {
                            parts.push(part);
                        }
                    }
                    let merged = if parts.len() == 1 {
                        parts.remove(0)
                    } else {
                        match self.fold_objects(&parts) {
                            Some(o) => J::Obj(o),
                            None => {
                                let mut a = Obj::new();
                                a.set("allOf", J::Arr(parts));
                                J::Obj(a)
                            }
                        }
                    };
                    properties.set(key, merged);
                }
            }
            if let Some(J::Arr(req)) = object.get("required") {
                for r in req {
                    if let J::Str(s) = r {
                        if !required.contains(s) {
                            required.push(s.clone());
                        }
                    }
                }
            }
        }
        let mut folded = Obj::new();
        folded.set("type", J::str("object"));
        folded.set("properties", J::Obj(properties));
        if !required.is_empty() {
            folded.set("required", J::Arr(required.into_iter().map(J::Str).collect()));
        }
        if objects.iter().all(|o| o.get("additionalProperties") == Some(&J::Bool(false))) {
            folded.set("additionalProperties", J::Bool(false));
        }
        Some(folded)
    }

    pub(super) fn fold_intersection(&self, json: &mut Obj) {
        let Some(J::Arr(all)) = json.get("allOf").cloned() else { return };
        if all.len() < 2 {
            return;
        }
        if ["type", "properties", "required", "additionalProperties"].iter().any(|k| json.has(k)) {
            return;
        }
        let union_of = |j: &J| -> Option<(String, Vec<J>, usize)> {
            let o = self.object_of(j)?;
            for k in ["oneOf", "anyOf"] {
                if let Some(J::Arr(b)) = o.get(k) {
                    return Some((k.to_string(), b.clone(), o.len()));
                }
            }
            None
        };
        let first_union = all.iter().position(|m| union_of(m).is_some());
        let folded = match first_union {
            None => self.fold_objects(&all),
            Some(i) => {
                let (keyword, branches, keys) = union_of(&all[i]).expect("union");
                if keys != 1 {
                    return;
                }
                let rest: Vec<J> = all.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, m)| m.clone()).collect();
                let mut out = Vec::new();
                for b in branches {
                    let mut members = rest.clone();
                    members.push(b);
                    match self.fold_objects(&members) {
                        Some(o) => out.push(J::Obj(o)),
                        None => return,
                    }
                }
                let mut o = Obj::new();
                o.set(&keyword, J::Arr(out));
                Some(o)
            }
        };
        if let Some(f) = folded {
            json.remove("allOf");
            json.assign(&f);
        }
    }

    pub(super) fn finalize(&mut self, root: Id) -> R<serde_json::Value> {
        for id in self.order.clone().into_iter().rev() {
            self.flatten(id);
        }
        for id in self.order.clone() {
            let mut visiting = vec![id];
            let mut target = std::mem::take(self.target(id));
            self.compact(&mut target, &mut visiting);
            *self.target(id) = target;
        }
        // Fold every intersection and every wrapper that inherited its `allOf`, innermost first.
        for x in self.intersections.clone() {
            let mut carriers: Vec<Id> = vec![x];
            for id in &self.order {
                let mut cur = *id;
                let mut hops = 0;
                while let Some(next) = self.refs.get(&cur) {
                    if *next == x {
                        carriers.push(*id);
                        break;
                    }
                    cur = *next;
                    hops += 1;
                    if hops > 64 {
                        break;
                    }
                }
            }
            for c in carriers {
                for which in [true, false] {
                    let s = self.seen.get(&c).expect("seen");
                    let mut obj = if which {
                        s.schema.clone()
                    } else {
                        match &s.def {
                            Some(d) => d.clone(),
                            None => continue,
                        }
                    };
                    self.fold_intersection(&mut obj);
                    let s = self.seen.get_mut(&c).expect("seen");
                    if which {
                        s.schema = obj;
                    } else {
                        s.def = Some(obj);
                    }
                }
            }
        }

        let root_seen = &self.seen[&root];
        let body = if root_seen.def_id.is_some() {
            root_seen.schema.clone()
        } else {
            root_seen.def.clone().unwrap_or_else(|| root_seen.schema.clone())
        };
        let mut result = Obj::new();
        result.set("$schema", J::str(DIALECT));
        result.assign(&body);
        if let (Some(J::Str(rid)), Some(mid)) = (result.get("id").cloned(), self.own_id(root)) {
            if rid == mid {
                result.remove("id");
            }
        }
        let mut defs = Obj::new();
        for id in &self.order {
            let s = &self.seen[id];
            if let (Some(def), Some(def_id)) = (&s.def, &s.def_id) {
                let mut def = def.clone();
                if def.get("id").and_then(|v| v.as_str()) == Some(def_id.as_str()) {
                    def.remove("id");
                }
                defs.set(def_id, J::Obj(def));
            }
        }
        if !defs.is_empty() {
            result.set("$defs", J::Obj(defs));
        }
        let value = self.resolve(&J::Obj(result), 0);
        if value.get("$ref").and_then(|v| v.as_str()) == Some("#") || contains_ref_to_root(&value) {
            return self.refuse(
                root,
                "recursion at the root",
                "the root schema refers to itself, which zod writes as `$ref: \"#\"` (outside the subset)",
                "give the recursive schema an id: .meta({ id: \"Node\" }), so it becomes a $defs entry",
            );
        }
        if let Some(at) = find_key(&value, "allOf") {
            return self.refuse(
                root,
                "z.intersection / .and()",
                &format!("the intersection cannot be folded into one object and stays `allOf` (at {at}), outside the subset"),
                "intersect plain objects only (no descriptions or refinements on the members, no clashing properties), or use .extend()",
            );
        }
        Ok(value)
    }

    pub(super) fn resolve(&self, j: &J, depth: usize) -> serde_json::Value {
        use serde_json::Value;
        if depth > 512 {
            return Value::Null;
        }
        match j {
            J::Null => Value::Null,
            J::Bool(b) => Value::Bool(*b),
            J::Num(n) => crate::numbers::json_number(*n).unwrap_or(Value::Null),
            J::Str(s) => Value::String(s.clone()),
            J::Arr(a) => Value::Array(a.iter().map(|x| self.resolve(x, depth + 1)).collect()),
            J::Obj(o) => self.resolve_obj(o, depth),
            J::Ref(r) => match self.seen.get(r) {
                // The referenced schema is read in place (copying it first was most of a
                // conversion's work on schemas that nest others).
                Some(s) => {
                    if depth + 1 > 512 {
                        return Value::Null;
                    }
                    self.resolve_obj(&s.schema, depth + 1)
                }
                None => Value::Null,
            },
        }
    }

    fn resolve_obj(&self, o: &Obj, depth: usize) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (k, v) in &o.0 {
            m.insert(k.clone(), self.resolve(v, depth + 1));
        }
        serde_json::Value::Object(m)
    }
}

fn contains_ref_to_root(v: &serde_json::Value) -> bool {
    match v {
        serde_json::Value::Object(o) => o.iter().any(|(k, x)| (k == "$ref" && x == "#") || contains_ref_to_root(x)),
        serde_json::Value::Array(a) => a.iter().any(contains_ref_to_root),
        _ => false,
    }
}

/// JSON pointer of the first occurrence of `key`.
fn find_key(v: &serde_json::Value, key: &str) -> Option<String> {
    match v {
        serde_json::Value::Object(o) => {
            if o.contains_key(key) {
                return Some(String::new());
            }
            o.iter().find_map(|(k, x)| find_key(x, key).map(|p| format!("/{k}{p}")))
        }
        serde_json::Value::Array(a) => {
            a.iter().enumerate().find_map(|(i, x)| find_key(x, key).map(|p| format!("/{i}{p}")))
        }
        _ => None,
    }
}
