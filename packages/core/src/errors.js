// Error classes of @agent-surface/core. Messages are safe to show: they name the rule and
// the place (a contract id, a JSON pointer, a handler name), never handler state.

/** A structural defect the author must fix: bad id, missing handler, extra handler name, ... */
export class AgentSurfaceDefinitionError extends Error {
  constructor(message, options = {}) {
    super(message);
    this.name = "AgentSurfaceDefinitionError";
    /** The contract id involved, or null. */
    this.contract = options.contract ?? null;
  }
}

/**
 * A value that does not satisfy an AgentSchema. `issues` has the shape of INVALID_INPUT's
 * `details.issues`: `{ path (RFC 6901 JSON Pointer into the value), keyword, message }`.
 */
export class AgentSchemaError extends Error {
  constructor(message, issues = []) {
    super(message);
    this.name = "AgentSchemaError";
    this.issues = issues;
  }
}

/**
 * A manifest refused by createCapabilityAuthority (or an object refused by
 * assertCapabilityAuthority). `kind` is the kebab-case name the Rust runtime uses
 * (`AuthorityError::kind()`), `contract` the id of the contract it names, or null.
 */
export class CapabilityAuthorityError extends Error {
  constructor(kind, message, details = {}) {
    super(message);
    this.name = "CapabilityAuthorityError";
    this.kind = kind;
    this.contract = details.contract ?? null;
    for (const [k, v] of Object.entries(details)) {
      if (k !== "contract") this[k] = v;
    }
  }
}
