// Does an authored definition still say what its compiled contract says? (crates/model/src/
// authored.rs). The registry and the gateway compare the definition a macro was called with in
// the page (in the manifest's field names) with the manifest's contract: every field the author
// may write, with the defaults the compiler materializes for fields left out. JSON is compared by
// canonical JSON.

import type { ManifestContract } from "../types.js";
import { canonicalJson } from "./canonical.js";
import { defaultGovernance, EFFECTS, type CapabilityKind } from "./effects.js";
import { isPlainObject, rustKeys } from "./json.js";

type Obj = Record<string, unknown>;

/** The fields of an action, procedure or external tool an author may write. */
const CAPABILITY_KEYS = ["description", "inputSchema", "outputSchema", "effect", "idempotent", "reversible", "confirmation", "audit", "meta"];

/** The values the compiler materializes for fields an author left out of one capability. */
function capabilityDefaults(kind: CapabilityKind, authored: Obj): Obj {
  const out: Obj = { meta: {}, outputSchema: null };
  // An unknown effect has no defaults; the effect itself then differs.
  if (kind !== "observation" && EFFECTS.includes(authored.effect as never)) {
    const { effect: _, ...g } = defaultGovernance(kind, authored.effect as never);
    Object.assign(out, g);
  }
  return out;
}

/** Whether the authored value of `key` (or its default) differs from the compiled one. */
function differs(compiled: Obj, authored: Obj, defaults: Obj, key: string): boolean {
  const own = (o: Obj, k: string) => (Object.hasOwn(o, k) && o[k] !== undefined ? o[k] : undefined);
  let mine = own(authored, key);
  if (mine === undefined || (mine === null && key !== "outputSchema")) mine = own(defaults, key);
  const theirs = own(compiled, key);
  return mine === undefined || theirs === undefined ? mine !== theirs : canonicalJson(mine) !== canonicalJson(theirs);
}

/**
 * The first field where `authored` (a JSON definition in the manifest's field names) differs
 * from `contract`, as a JSON pointer into the contract (`"/actions/selectRows/inputSchema"`,
 * names unescaped as in Rust), `""` when `authored` is not an object, or null when they agree.
 */
export function authoredDifference(contract: ManifestContract, authored: unknown): string | null {
  if (!isPlainObject(authored)) return "";
  const compiled = contract as unknown as Obj;
  const first = (c: Obj, a: Obj, defaults: Obj, keys: string[], base: string) => {
    const key = keys.find((k) => differs(c, a, defaults, k));
    return key === undefined ? null : `${base}/${key}`;
  };
  if (contract.kind !== "component") {
    const kind = contract.kind === "procedure" ? "domain-procedure" : "external-tool";
    const defaults = { ...capabilityDefaults(kind, authored), policies: [], tags: [] };
    return first(compiled, authored, defaults, ["id", ...CAPABILITY_KEYS, "policies", "tags"], "");
  }
  const defaults = { meta: {}, origin: "first-party", policies: [], priority: 0, tags: [] };
  const top = first(compiled, authored, defaults, ["type", "description", "meta", "origin", "policies", "priority", "tags"], "");
  if (top !== null) return top;
  for (const plane of ["observations", "actions"] as const) {
    const kind = plane === "observations" ? "observation" : "view-action";
    const mine = isPlainObject(authored[plane]) ? (authored[plane] as Obj) : {};
    const theirs = isPlainObject(compiled[plane]) ? (compiled[plane] as Obj) : {};
    const extra = rustKeys(mine).find((n) => !Object.hasOwn(theirs, n));
    if (extra !== undefined) return `/${plane}/${extra}`;
    for (const name of rustKeys(theirs)) {
      const cap = Object.hasOwn(mine, name) ? mine[name] : undefined;
      if (!isPlainObject(cap)) return `/${plane}/${name}`;
      const keys = kind === "observation" ? ["description", "outputSchema", "meta"] : CAPABILITY_KEYS;
      const at = first(theirs[name] as Obj, cap, capabilityDefaults(kind, cap), keys, `/${plane}/${name}`);
      if (at !== null) return at;
    }
  }
  return null;
}
