// Definition rules shared by the macros and the authority, mirroring the Rust runtime
// (runtime/src/ids.rs, effects.rs, definition.rs, limits.rs). Not mirrored here: the JSON
// Schema subset checker (runtime/src/schema.rs).

import { canonicalJson, utf8Length } from "./canonical.js";

export const EFFECTS = Object.freeze(["read", "local-state", "navigation", "mutation", "destructive", "external-side-effect"]);
export const CONFIRMATIONS = Object.freeze(["never", "optional", "required"]);
export const AUDITS = Object.freeze(["none", "metadata", "full"]);
export const VIEW_ACTION_EFFECTS = Object.freeze(["local-state", "navigation"]);
export const OPERATION_EFFECTS = Object.freeze(["read", "mutation", "destructive", "external-side-effect"]);

export const MAX_COMPONENT_DESCRIPTION = 500;
export const MAX_CAPABILITY_DESCRIPTION = 300;
export const MAX_META_BYTES = 2048;
const MAX_COMPONENT_TYPE_LEN = 96;

const SEGMENT = "[a-z][a-zA-Z0-9_-]{0,31}";
const COMPONENT_TYPE = new RegExp(`^${SEGMENT}(?:\\.${SEGMENT}){0,7}$`);
const PROCEDURE_ID = new RegExp(`^domain:${SEGMENT}(?:\\.${SEGMENT}){1,7}$`);
const EXTERNAL_TOOL_ID = new RegExp(`^external:${SEGMENT}(?:\\.${SEGMENT}){0,7}$`);
const CAPABILITY_NAME = /^[a-z][a-zA-Z0-9_]{0,47}$/;
const INSTANCE_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;
// Rust's char::is_whitespace (Unicode White_Space), which `str::trim` uses; not JS's trim set.
const RUST_BLANK = /^[\u0009-\u000D\u0020\u0085\u00A0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000]*$/;

/** null when valid, else a message. */
export function checkComponentType(s) {
  if (typeof s !== "string" || s === "") return "component type is empty";
  if (!COMPONENT_TYPE.test(s))
    return `component type "${s}" must be 1 to 8 segments [a-z][a-zA-Z0-9_-]{0,31} joined by "." (e.g. "devices.table")`;
  if (s.length > MAX_COMPONENT_TYPE_LEN) return `component type is ${s.length} characters long; at most ${MAX_COMPONENT_TYPE_LEN} are allowed`;
  return null;
}

export function checkCapabilityName(s) {
  if (typeof s !== "string" || s === "") return "capability name is empty";
  if (!CAPABILITY_NAME.test(s)) return `capability name "${s}" must match [a-z][a-zA-Z0-9_]{0,47} (e.g. "readState")`;
  return null;
}

export function checkProcedureId(s) {
  if (typeof s !== "string" || s === "") return "procedure id is empty";
  if (!PROCEDURE_ID.test(s)) return `procedure id "${s}" must be "domain:" + 2 to 8 segments [a-z][a-zA-Z0-9_-]{0,31} joined by "." (e.g. "domain:devices.delete")`;
  return null;
}

export function checkExternalToolId(s) {
  if (typeof s !== "string" || s === "") return "external tool id is empty";
  if (!EXTERNAL_TOOL_ID.test(s)) return `external tool id "${s}" must be "external:" + 1 to 8 segments [a-z][a-zA-Z0-9_-]{0,31} joined by "." (e.g. "external:crm.export")`;
  return null;
}

export function checkInstanceId(s) {
  if (typeof s !== "string" || s === "") return "instance id is empty";
  if (!INSTANCE_ID.test(s)) return `instance id "${s}" must match [A-Za-z0-9][A-Za-z0-9_.:-]{0,127}`;
  return null;
}

/** Rust's `str` order (UTF-8 bytes = code points), the iteration order of a BTreeMap<String, _>. */
export function cmpCodePoints(a, b) {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done || y.done) return x.done === y.done ? 0 : x.done ? -1 : 1;
    const d = x.value.codePointAt(0) - y.value.codePointAt(0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
}

function escapePointer(seg) {
  return String(seg).replace(/~/g, "~0").replace(/\//g, "~1");
}

export function jsonPointer(segments) {
  return segments.map((s) => `/${escapePointer(s)}`).join("");
}

/**
 * The first definition-rule violation of a manifest contract (already shape-checked), in the
 * order runtime/src/definition.rs reports them, or null. Returns `{ pointer, message }`.
 * The JSON Schema subset check of each schema is NOT performed here.
 */
export function firstContractViolation(c) {
  const out = [];
  const description = (base, text, max) => {
    const pointer = [...base, "description"];
    if (RUST_BLANK.test(text)) out.push({ pointer, message: "description is empty" });
    else if (text.length > max)
      out.push({ pointer, message: `description is ${text.length} characters long (UTF-16 code units); at most ${max} are allowed` });
  };
  const meta = (base, m) => {
    const bytes = utf8Length(canonicalJson(m));
    if (bytes > MAX_META_BYTES)
      out.push({ pointer: [...base, "meta"], message: `meta is ${bytes} bytes as canonical JSON; at most ${MAX_META_BYTES} are allowed` });
  };
  const plane = (base, allowed, nouns, effect, confirmation) => {
    if (!allowed.includes(effect)) {
      out.push({ pointer: [...base, "effect"], message: `${nouns} may only be ${allowed.map((e) => `"${e}"`).join(", ")}; found "${effect}"` });
      return;
    }
    if (effect === "destructive" && confirmation === "never")
      out.push({ pointer: [...base, "confirmation"], message: `confirmation "never" is not allowed for a "destructive" effect` });
  };
  const id = (pointer, message) => {
    if (message) out.push({ pointer, message });
  };
  if (c.kind === "component") {
    id(["type"], checkComponentType(c.type));
    const expected = `view:${c.type}`;
    if (c.id !== expected)
      out.push({ pointer: ["id"], message: `component contract id "${c.id}" does not match its type; expected "${expected}"` });
    description([], c.description, MAX_COMPONENT_DESCRIPTION);
    meta([], c.meta);
    const observationNames = Object.keys(c.observations).sort(cmpCodePoints);
    const actionNames = Object.keys(c.actions).sort(cmpCodePoints);
    for (const name of observationNames) {
      const o = c.observations[name];
      const base = ["observations", name];
      id(base, checkCapabilityName(name));
      description(base, o.description, MAX_CAPABILITY_DESCRIPTION);
      meta(base, o.meta);
    }
    for (const name of actionNames) {
      const a = c.actions[name];
      const base = ["actions", name];
      id(base, checkCapabilityName(name));
      description(base, a.description, MAX_CAPABILITY_DESCRIPTION);
      meta(base, a.meta);
      plane(base, VIEW_ACTION_EFFECTS, "view actions", a.effect, a.confirmation);
    }
    for (const name of actionNames) {
      if (Object.hasOwn(c.observations, name))
        out.push({ pointer: ["actions", name], message: `"${name}" is both an observation and an action; both would be "view:${c.type}.${name}"` });
    }
  } else {
    const external = c.kind === "external-tool";
    id(["id"], external ? checkExternalToolId(c.id) : checkProcedureId(c.id));
    description([], c.description, MAX_CAPABILITY_DESCRIPTION);
    meta([], c.meta);
    plane([], OPERATION_EFFECTS, external ? "external tools" : "domain procedures", c.effect, c.confirmation);
  }
  const first = out[0];
  return first ? { pointer: jsonPointer(first.pointer), message: first.message } : null;
}
