// The supported JSON Schema subset (spec: "Supported JSON Schema subset"; crates/schema/src/subset):
// checked by the validator's compiler in the same walk that builds the validator (../validate),
// every violation in document order with the Rust checker's pointer, message and help.

export type { SchemaViolation } from "../errors.js";
export { checkSubset, schemaViolations, SUPPORTED_FORMATS, type SchemaLimits } from "../validate/index.js";
