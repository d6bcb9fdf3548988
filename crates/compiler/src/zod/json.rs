//! JSON values with JavaScript object semantics (own-key order: integer-like keys ascending,
//! then strings in insertion order) and placeholders for schemas that are still being
//! processed, so the emitter can mirror zod's in-place, shared-reference algorithm.

#[derive(Clone, Debug, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Num(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Obj),
    /// The (current) schema object of a processed node (its index in the conversion).
    Ref(u32),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Obj(pub Vec<(String, J)>);

/// Whether a key is an array index for JS property order (`"0"`, `"10"`, not `"01"`).
fn is_index(k: &str) -> bool {
    !k.is_empty()
        && k.len() <= 10
        && k.bytes().all(|b| b.is_ascii_digit())
        && (k == "0" || !k.starts_with('0'))
        && k.parse::<u64>().is_ok_and(|n| n < u32::MAX as u64)
}

impl Obj {
    pub fn new() -> Obj {
        Obj(Vec::new())
    }
    pub fn get(&self, k: &str) -> Option<&J> {
        self.0.iter().find(|(key, _)| key == k).map(|(_, v)| v)
    }
    pub fn get_mut(&mut self, k: &str) -> Option<&mut J> {
        self.0.iter_mut().find(|(key, _)| key == k).map(|(_, v)| v)
    }
    pub fn has(&self, k: &str) -> bool {
        self.0.iter().any(|(key, _)| key == k)
    }
    /// Sets a property with JS semantics: an existing key keeps its position.
    pub fn set(&mut self, k: &str, v: J) {
        if let Some(slot) = self.get_mut(k) {
            *slot = v;
            return;
        }
        if is_index(k) {
            let n: u64 = k.parse().unwrap_or(0);
            let pos = self
                .0
                .iter()
                .position(|(key, _)| !is_index(key) || key.parse::<u64>().unwrap_or(0) > n)
                .unwrap_or(self.0.len());
            self.0.insert(pos, (k.to_string(), v));
        } else {
            self.0.push((k.to_string(), v));
        }
    }
    pub fn remove(&mut self, k: &str) -> Option<J> {
        let i = self.0.iter().position(|(key, _)| key == k)?;
        Some(self.0.remove(i).1)
    }
    pub fn keys(&self) -> Vec<String> {
        self.0.iter().map(|(k, _)| k.clone()).collect()
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// `Object.assign(self, other)`.
    pub fn assign(&mut self, other: &Obj) {
        for (k, v) in &other.0 {
            self.set(k, v.clone());
        }
    }
}

impl J {
    pub fn str(s: &str) -> J {
        J::Str(s.to_string())
    }
    pub fn as_obj(&self) -> Option<&Obj> {
        match self {
            J::Obj(o) => Some(o),
            _ => None,
        }
    }
    pub fn as_str(&self) -> Option<&str> {
        match self {
            J::Str(s) => Some(s),
            _ => None,
        }
    }
    pub fn from_json(v: &serde_json::Value) -> J {
        use serde_json::Value;
        match v {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Number(n) => J::Num(n.as_f64().unwrap_or(0.0)),
            Value::String(s) => J::Str(s.clone()),
            Value::Array(a) => J::Arr(a.iter().map(J::from_json).collect()),
            Value::Object(o) => {
                let mut obj = Obj::new();
                for (k, x) in o {
                    obj.set(k, J::from_json(x));
                }
                J::Obj(obj)
            }
        }
    }
}
