//! Zod methods: `.optional()`, `.describe()`, `.meta()`, string and number checks, object
//! methods (`extend`, `pick`, `omit`, `partial`, ...) and `z.toJSONSchema(X, { io })`.

use super::{unsupported, unsupported_string_method, M, OPAQUE_METHODS};
use crate::diagnostics::{Code, Diagnostic};
use crate::evaluate::{json_to_node, Evaluator};
use crate::source::Span;
use crate::value::{Node, Val};
use crate::zod::emit::Io;
use crate::zod::model::{Catchall, Check, Field, Kind, ZodId};
use serde_json::Value as Json;
use swc_common::Spanned;
use swc_ecma_ast::*;

impl Evaluator<'_> {
    pub(in crate::evaluate) fn zod_method(
        &mut self,
        m: &M,
        id: ZodId,
        name: &str,
        call: &CallExpr,
        span: Span,
    ) -> Option<Node> {
        let kind = id.kind.clone();
        let is_string = matches!(kind, Kind::String);
        let is_number = matches!(kind, Kind::Number);
        let is_array = matches!(kind, Kind::Array { .. });
        let with = |_: &mut Self, c: Check| Some(Node::new(span, Val::Zod(id.child(span, Vec::new(), Some(c)))));
        match name {
            "optional" => self.new_node(Kind::Optional(id), span),
            "exactOptional" => self.new_node(Kind::ExactOptional(id), span),
            "nullable" => self.new_node(Kind::Nullable(id), span),
            "nullish" => {
                let n = crate::zod::model::ZodId::of(Kind::Nullable(id), span);
                self.new_node(Kind::Optional(n), span)
            }
            "nonoptional" => self.new_node(Kind::NonOptional(id), span),
            "default" | "prefault" | "catch" => {
                let value = self.value_arg(m, call, 0, &format!(".{name}()"))?;
                let k = match name {
                    "default" => Kind::Default { inner: id, value },
                    "prefault" => Kind::Prefault { inner: id, value },
                    _ => Kind::Catch { inner: id, value },
                };
                self.new_node(k, span)
            }
            "describe" => {
                let d = match self.arg(m, call, 0)?.map(|n| n.val) {
                    Some(Val::Str(s)) => s,
                    _ => return self.not_static(span, ".describe() expects a string"),
                };
                let c = id.child(span, vec![("description".into(), Json::String(d))], None);
                Some(Node::new(span, Val::Zod(c)))
            }
            "meta" => {
                let Some(Node { val: Val::Object(props), .. }) = self.arg(m, call, 0)? else {
                    return self.not_static(span, ".meta() expects an object literal");
                };
                let mut meta = Vec::new();
                for p in props {
                    if matches!(p.value.val, Val::Undefined) {
                        continue;
                    }
                    match p.value.to_json() {
                        Ok(j) => meta.push((p.key, j)),
                        Err(bad) => return self.not_static(bad.span, format!("metadata must be JSON, found {}", bad.val.describe())),
                    }
                }
                let c = id.child(span, meta, None);
                Some(Node::new(span, Val::Zod(c)))
            }
            "brand" => Some(Node::new(span, Val::Zod(id))),
            // The wrapped schema (zod's `.unwrap()`; `.removeDefault()` of a default).
            "unwrap" | "removeDefault" => match &kind {
                Kind::Optional(i) | Kind::ExactOptional(i) | Kind::Nullable(i) | Kind::NonOptional(i) => {
                    Some(Node::new(span, Val::Zod(i.clone())))
                }
                Kind::Default { inner, .. } | Kind::Prefault { inner, .. } | Kind::Catch { inner, .. } => {
                    Some(Node::new(span, Val::Zod(inner.clone())))
                }
                Kind::Array { element } if name == "unwrap" => Some(Node::new(span, Val::Zod(element.clone()))),
                _ => self.not_static(span, format!(".{name}() is evaluated on optional, nullable, default and array schemas")),
            },
            n if OPAQUE_METHODS.contains(&n) => with(self, Check::Opaque),
            "check" => {
                let mut cur = id;
                for (i, a) in call.args.iter().enumerate() {
                    let is_fn = matches!(&*a.expr, Expr::Arrow(_) | Expr::Fn(_));
                    let check = if is_fn {
                        Check::Opaque
                    } else {
                        let arg_span = self.sp(m, a.expr.span());
                        match self.arg(m, call, i)?.map(|n| n.val) {
                            Some(Val::ZodCheck(c)) => c,
                            // A refused check (e.g. z.regex with flags) refuses the schema.
                            Some(Val::Zod(u)) if matches!(u.kind, Kind::Unsupported { .. }) => return Some(Node::new(span, Val::Zod(u))),
                            Some(other) => return self.not_static(arg_span, format!(".check() takes checks such as z.minLength(2) or functions, found {}", other.describe())),
                            None => Check::Opaque,
                        }
                    };
                    cur = cur.child(span, Vec::new(), Some(check));
                }
                if call.args.is_empty() {
                    cur = cur.child(span, Vec::new(), Some(Check::Opaque));
                }
                Some(Node::new(span, Val::Zod(cur)))
            }
            "transform" => {
                let t = crate::zod::model::ZodId::of(Kind::Transform, span);
                self.new_node(Kind::Pipe { input: id, output: t, codec: false }, span)
            }
            "pipe" => {
                let b = self.arg_schema(m, call, 0, ".pipe()")?;
                self.new_node(Kind::Pipe { input: id, output: b, codec: false }, span)
            }
            "or" => {
                let b = self.arg_schema(m, call, 0, ".or()")?;
                self.new_node(Kind::Union { options: vec![id, b] }, span)
            }
            "and" => {
                let b = self.arg_schema(m, call, 0, ".and()")?;
                self.new_node(Kind::Intersection { left: id, right: b }, span)
            }
            "array" => self.new_node(Kind::Array { element: id }, span),
            "readonly" => {
                let at = self.name_span(m, call, span);
                self.new_node(unsupported(".readonly()".into(), ("zod emits `readOnly: true`, outside the subset", "drop .readonly(): agent payloads are copies anyway")), at)
            }
            "min" | "max" | "length" | "nonempty" if is_string || is_array => {
                let c = match name {
                    "nonempty" => Check::MinLength(1.0),
                    _ => {
                        let n = self.arg_number(m, call, 0, &format!(".{name}()"))?;
                        match name {
                            "min" => Check::MinLength(n),
                            "max" => Check::MaxLength(n),
                            _ => Check::LengthEquals(n),
                        }
                    }
                };
                with(self, c)
            }
            "regex" if is_string => {
                let r = self.regex_arg(m, call, 0)?;
                if !r.flags.is_empty() {
                    let at = call.args.first().map(|a| self.sp(m, a.expr.span())).unwrap_or(span);
                    return self.refuse_flags(&r, at);
                }
                with(self, Check::Format { format: "regex".into(), pattern: Some(r), lax: false })
            }
            "email" | "url" | "httpUrl" | "uuid" | "guid" | "datetime" | "date" | "time" | "duration" if is_string => {
                let c = self.string_format(m, name, call, 0)?;
                with(self, c)
            }
            n if is_string && unsupported_string_method(n).is_some() => {
                let u = unsupported_string_method(n).expect("checked");
                let at = self.name_span(m, call, span);
                self.new_node(unsupported(format!(".{n}()"), u), at)
            }
            "min" | "gte" | "max" | "lte" | "gt" | "lt" | "multipleOf" | "step" if is_number => {
                let n = self.arg_number(m, call, 0, &format!(".{name}()"))?;
                let c = match name {
                    "min" | "gte" => Check::GreaterThan { value: n, inclusive: true },
                    "gt" => Check::GreaterThan { value: n, inclusive: false },
                    "max" | "lte" => Check::LessThan { value: n, inclusive: true },
                    "lt" => Check::LessThan { value: n, inclusive: false },
                    _ => Check::MultipleOf(n),
                };
                with(self, c)
            }
            "positive" if is_number => with(self, Check::GreaterThan { value: 0.0, inclusive: false }),
            "negative" if is_number => with(self, Check::LessThan { value: 0.0, inclusive: false }),
            "nonnegative" if is_number => with(self, Check::GreaterThan { value: 0.0, inclusive: true }),
            "nonpositive" if is_number => with(self, Check::LessThan { value: 0.0, inclusive: true }),
            "int" | "safe" if is_number => with(self, Check::NumberFormat("safeint")),
            "extract" | "exclude" if matches!(kind, Kind::Enum(_)) => {
                let Kind::Enum(values) = kind else { unreachable!() };
                let Some(Node { val: Val::Array(items), .. }) = self.arg(m, call, 0)? else {
                    return self.not_static(span, format!(".{name}() expects an array of values"));
                };
                let picked: Vec<Json> = items.iter().filter_map(|n| n.to_json().ok()).collect();
                let keep = values.into_iter().filter(|v| picked.contains(v) == (name == "extract")).collect();
                self.new_node(Kind::Enum(keep), span)
            }
            _ if matches!(kind, Kind::Object { .. }) => self.object_method(m, id, name, call, span),
            other => self.error(
                Diagnostic::new(Code::NotStatic, span, format!("`.{other}()` is not a zod method the compiler evaluates on {}", kind_name(&kind)))
                    .help("see docs/schemas.md for the supported zod API; or pass the JSON Schema literally with fromJsonSchema({...})"),
            ),
        }
    }

    pub(super) fn object_method(&mut self, m: &M, id: ZodId, name: &str, call: &CallExpr, span: Span) -> Option<Node> {
        let Kind::Object { shape, catchall } = id.kind.clone() else { unreachable!() };
        let new = |_ev: &mut Self, shape: Vec<(String, Field)>, catchall: Catchall| {
            let c = id.with_kind(Kind::Object { shape, catchall }, span);
            Some(Node::new(span, Val::Zod(c)))
        };
        let mask = |ev: &mut Self| -> Option<Option<Vec<String>>> {
            match ev.arg(m, call, 0)? {
                None => Some(None),
                Some(Node { val: Val::Object(props), .. }) => Some(Some(
                    props.into_iter().filter(|p| matches!(p.value.val, Val::Bool(true))).map(|p| p.key).collect(),
                )),
                Some(_) => ev.not_static(span, format!(".{name}() expects an object mask like {{ key: true }}")),
            }
        };
        match name {
            "extend" | "safeExtend" => {
                let extra = self.shape_arg(m, call, 0)?;
                new(self, merge_shape(shape, extra), catchall)
            }
            "merge" => {
                let other = self.arg_schema(m, call, 0, ".merge()")?;
                let Kind::Object { shape: extra, catchall: c2 } = other.kind.clone() else {
                    return self.not_static(span, ".merge() expects an object schema");
                };
                new(self, merge_shape(shape, extra), c2)
            }
            "pick" | "omit" => {
                let keys = mask(self)?.unwrap_or_default();
                let picked = if name == "pick" {
                    keys.iter().filter_map(|k| shape.iter().find(|(s, _)| s == k).cloned()).collect()
                } else {
                    shape.into_iter().filter(|(k, _)| !keys.contains(k)).collect()
                };
                new(self, picked, catchall)
            }
            "partial" | "required" => {
                let keys = mask(self)?;
                let mut out = Vec::new();
                for (k, f) in shape {
                    let selected = keys.as_ref().is_none_or(|ks| ks.contains(&k));
                    let f = match (selected, f) {
                        (true, Field::Schema(s)) => {
                            let wrapped = if name == "partial" { Kind::Optional(s) } else { Kind::NonOptional(s) };
                            Field::Schema(crate::zod::model::ZodId::of(wrapped, span))
                        }
                        (_, f) => f,
                    };
                    out.push((k, f));
                }
                new(self, out, catchall)
            }
            "strict" => new(self, shape, Catchall::Strict),
            "strip" => new(self, shape, Catchall::Strip),
            "catchall" => {
                let c = self.arg_schema(m, call, 0, ".catchall()")?;
                if matches!(&c.kind, Kind::Unsupported { construct, .. } if construct == "z.never()") {
                    return new(self, shape, Catchall::Strict);
                }
                let at = self.name_span(m, call, span);
                self.new_node(
                    unsupported(
                        ".catchall()".into(),
                        (
                            "zod emits a schema `additionalProperties`, outside the subset",
                            "declare every property, or use .strict()",
                        ),
                    ),
                    at,
                )
            }
            "passthrough" | "loose" => {
                let at = self.name_span(m, call, span);
                self.new_node(
                    unsupported(
                        format!(".{name}()"),
                        (
                            "zod emits `additionalProperties: {}`, outside the subset",
                            "declare the extra properties, or use .strict() / z.object",
                        ),
                    ),
                    at,
                )
            }
            "keyof" => self.keyof(id, span),
            other => self.not_static(span, format!("`.{other}()` is not a zod object method the compiler evaluates")),
        }
    }

    /// `z.toJSONSchema(X, { io })`.
    pub(super) fn convert_to_json_schema(&mut self, m: &M, call: &CallExpr, span: Span) -> Option<Node> {
        let keep_json = std::mem::take(&mut self.keep_json);
        let root = self.arg_schema(m, call, 0, "z.toJSONSchema")?;
        if root.v3 {
            return self.zod3_wrong_converter(&root, span);
        }
        let io = match self.arg(m, call, 1)? {
            None => Io::Output,
            Some(opts) => {
                let Val::Object(props) = &opts.val else {
                    return self.not_static(opts.span, "the options of z.toJSONSchema must be an object literal");
                };
                let mut io = Io::Output;
                for p in props {
                    match (p.key.as_str(), &p.value.val) {
                        ("io", Val::Str(s)) if s == "input" => io = Io::Input,
                        ("io", Val::Str(s)) if s == "output" => io = Io::Output,
                        (k, _) => {
                            return self.error(
                                Diagnostic::new(Code::SchemaNotEvaluable, p.key_span, format!("the option `{k}` of z.toJSONSchema is not evaluated statically"))
                                    .help("pass only `{ io: \"input\" }` or `{ io: \"output\" }`: the manifest must equal what zod returns at run time"),
                            )
                        }
                    }
                }
                io
            }
        };
        self.resolve_thunks(&root)?;
        let converted = self.convert(&root, io);
        let json = match &*converted {
            Ok(j) => j,
            Err(r) => {
                return self.error(
                    Diagnostic::new(Code::UnsupportedZod, r.span, format!("{}: {}", r.construct, r.message))
                        .label("outside the supported subset")
                        .related(span, "converted to JSON Schema here")
                        .help(r.help.clone()),
                )
            }
        };
        self.set_last_converted(Some((root.clone(), io)));
        if io == Io::Output {
            // An input described in output mode is stricter than what zod parses: note whether
            // the two differ, for the warning on `input` fields.
            let json = json.clone();
            let quick = strips_in_both_modes(&root, &self.targets);
            let mut slow = || match &*self.convert(&root, Io::Input) {
                Ok(i) => **i != *json,
                Err(_) => true,
            };
            let differs = match quick {
                true => {
                    debug_assert!(slow(), "a plain z.object reached in both modes makes input and output differ");
                    true
                }
                false => slow(),
            };
            self.note_output_mode(span, differs);
        }
        if keep_json {
            let json = match &*converted {
                Ok(j) => j,
                Err(_) => unreachable!("refused above"),
            };
            return Some(Node::new(span, Val::Json(json.clone())));
        }
        Some(json_to_node(json, span))
    }

    /// Evaluates every getter and `z.lazy` reachable from `root` (once each).
    pub(in crate::evaluate) fn resolve_thunks(&mut self, root: &ZodId) -> Option<()> {
        let mut stack = vec![root.clone()];
        let mut visited = std::collections::HashSet::new();
        while let Some(n) = stack.pop() {
            if !visited.insert(n.clone()) {
                continue;
            }
            let mut thunks = Vec::new();
            n.refs(&mut stack, &mut thunks);
            for t in thunks {
                if let Some(target) = self.targets.get(&t) {
                    stack.push(target.clone());
                    continue;
                }
                let v = self.eval_thunk(&t)?;
                match v.val {
                    Val::Zod(target) => {
                        self.targets.insert(t, target.clone());
                        stack.push(target);
                    }
                    other => {
                        return self.not_static(
                            v.span,
                            format!("a getter or z.lazy must return a zod schema, found {}", other.describe()),
                        )
                    }
                }
            }
        }
        Some(())
    }
}

/// Whether converting `root` reaches a plain `z.object` in input mode and in output mode alike
/// (no pipe or codec, whose sides each mode picks differently, anywhere in the graph): output
/// mode then writes `additionalProperties: false` into it and input mode does not, so the two
/// JSON Schemas differ, with no need to convert in input mode to find out.
fn strips_in_both_modes(root: &ZodId, targets: &crate::zod::model::Targets) -> bool {
    let mut stack = vec![root.clone()];
    let mut seen: std::collections::HashSet<ZodId, rustc_hash::FxBuildHasher> = Default::default();
    let mut strip = false;
    while let Some(z) = stack.pop() {
        if !seen.insert(z.clone()) {
            continue;
        }
        match &z.kind {
            Kind::Pipe { .. } | Kind::Transform => return false,
            Kind::Object { catchall: Catchall::Strip, .. } => strip = true,
            _ => {}
        }
        let mut thunks = Vec::new();
        z.refs(&mut stack, &mut thunks);
        for t in thunks {
            match targets.get(&t) {
                Some(target) => stack.push(target.clone()),
                None => return false,
            }
        }
    }
    strip
}

fn kind_name(k: &Kind) -> &'static str {
    match k {
        Kind::String => "a string schema",
        Kind::Number => "a number schema",
        Kind::Array { .. } => "an array schema",
        Kind::Object { .. } => "an object schema",
        Kind::Enum(_) => "an enum schema",
        _ => "this schema",
    }
}

/// JS spread semantics: an overriding key keeps its original position.
fn merge_shape(mut shape: Vec<(String, Field)>, extra: Vec<(String, Field)>) -> Vec<(String, Field)> {
    for (k, f) in extra {
        match shape.iter_mut().find(|(s, _)| *s == k) {
            Some(slot) => slot.1 = f,
            None => shape.push((k, f)),
        }
    }
    shape
}
