// Error classes of @agent-surface/core. Messages are safe to show: they name the rule and
// the place (a contract id, a JSON pointer, a handler name), never handler state.

import type { AgentSchemaIssue, CapabilityAuthorityErrorKind } from "./types.js";

/** A JSON Schema outside the supported subset: one violation the engine found. */
export interface SchemaViolation {
  /** RFC 6901 JSON Pointer into the schema. */
  pointer: string;
  message: string;
  help: string | null;
}

/** A structural defect the author must fix: bad id, missing handler, extra handler name, ... */
export class AgentSurfaceDefinitionError extends Error {
  override readonly name = "AgentSurfaceDefinitionError" as const;
  /** The contract id involved, or null. */
  readonly contract: string | null;
  /** A machine-readable reason, when the thrower gives one (e.g. a registry refusing a binding); absent otherwise. */
  declare readonly code?: string;
  /** For a JSON Schema outside the supported subset: every violation the engine found. */
  declare violations?: ReadonlyArray<SchemaViolation>;

  constructor(message: string, options: { contract?: string | null; code?: string } = {}) {
    super(message);
    this.contract = options.contract ?? null;
    if (options.code !== undefined) this.code = options.code;
  }
}

/**
 * A value that does not satisfy an AgentSchema. `issues` has the shape of INVALID_INPUT's
 * `details.issues`: `{ path (RFC 6901 JSON Pointer into the value), keyword, message }`.
 */
export class AgentSchemaError extends Error {
  override readonly name = "AgentSchemaError" as const;
  readonly issues: AgentSchemaIssue[];

  constructor(message: string, issues: AgentSchemaIssue[] = []) {
    super(message);
    this.issues = issues;
  }
}

/**
 * A manifest refused by createCapabilityAuthority (or an object refused by
 * assertCapabilityAuthority). `kind` is the kebab-case name the Rust runtime uses
 * (`AuthorityError::kind()`), `contract` the id of the contract it names, or null.
 */
export class CapabilityAuthorityError extends Error {
  override readonly name = "CapabilityAuthorityError" as const;
  readonly kind: CapabilityAuthorityErrorKind;
  /** The id of the contract the refusal names, or null. */
  readonly contract: string | null;
  /** Kind-specific details (`expected`/`found` hashes, `declared`/`actual` counts, `failed`, `found` formatVersion, `pointer`, `previous`). */
  readonly [detail: string]: unknown;

  constructor(kind: CapabilityAuthorityErrorKind, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.kind = kind;
    this.contract = (details["contract"] as string | null | undefined) ?? null;
    for (const [k, v] of Object.entries(details)) {
      if (k !== "contract") (this as Record<string, unknown>)[k] = v;
    }
  }
}
