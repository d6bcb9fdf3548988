//! The validator for the supported JSON Schema subset (spec: "Supported JSON Schema subset").
//!
//! [`crate::subset::check_schema`] decides which schemas are allowed; this module checks JSON
//! values against an allowed schema. A [`Validator`] is compiled once per schema (the subset is
//! checked, every `pattern` compiled, every `#/$defs/...` reference resolved) and then used for
//! every invocation: for inputs (the registry's `INVALID_INPUT`, whose
//! `details.issues[{path, keyword, message}]` are [`ValidationIssue`]s) and for outputs.
//!
//! Semantics are draft 2020-12 for exactly the subset's keywords, with format assertion on for
//! the five supported formats, ECMAScript (`u`-flag) regular expressions, and ajv-style
//! `useDefaults`: on success [`Validator::validate`] returns the value the handler receives,
//! with `default`s filled in. See `docs/validator.md` for the full rules.
//!
//! ```
//! use agent_surface_schema::SchemaLimits;
//! use agent_surface_schema::validate::Validator;
//! use serde_json::json;
//!
//! // Keys in sorted order: issue order follows the schema map's order, which is sorted unless
//! // serde_json's `preserve_order` feature is on.
//! let schema = json!({
//!     "additionalProperties": false,
//!     "properties": {
//!         "ids": {"type": "array", "items": {"type": "string"}, "minItems": 1},
//!         "mode": {"type": "string", "enum": ["replace", "add"], "default": "replace"}
//!     },
//!     "required": ["ids", "mode"],
//!     "type": "object"
//! });
//! let validator = Validator::new(&schema, &SchemaLimits::default()).unwrap();
//!
//! // Defaults are applied (before `required` is checked); the input is not modified.
//! let input = json!({"ids": ["a"]});
//! assert_eq!(validator.validate(&input).unwrap(), json!({"ids": ["a"], "mode": "replace"}));
//!
//! // Every issue is reported, each with a JSON Pointer into the input.
//! let issues = validator.validate(&json!({"ids": [], "extra": 1})).unwrap_err();
//! let found: Vec<(&str, &str)> =
//!     issues.iter().map(|i| (i.path.as_str(), i.keyword.as_str())).collect();
//! assert_eq!(found, [("", "additionalProperties"), ("/ids", "minItems")]);
//! assert_eq!(issues[1].message, "must have at least 1 item");
//! ```

// `compile` builds the `compiled` nodes once per schema. Each call runs the read-only `fast`
// path first; when it cannot answer alone, `collect` gathers the issues without copying, or
// `eval` (the reference evaluation) applies the schema, inserting defaults. `budget` bounds
// every pass and `message` words the issues; `formats`, `pattern`, `number` and `equality` are
// the leaf checks.
mod budget;
mod collect;
mod compile;
mod compiled;
mod equality;
mod eval;
mod fast;
mod formats;
mod message;
mod number;
mod pattern;

pub use equality::json_equal;
pub use formats::{is_date, is_date_time, is_email, is_uri, is_uuid};
pub use number::{cmp_numbers, is_integer, is_json_number_safe};

use crate::subset::{check_schema, SchemaViolation};
use crate::SchemaLimits;
use compile::Compiler;
use compiled::Compiled;
use fast::Verdict;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// Instance nesting (path segments) beyond which a recursive (`$ref`) schema stops descending
/// into objects and arrays and reports an issue instead, so no input can exhaust the stack.
/// serde_json refuses to parse JSON nested deeper than 128 levels, so parsed input never reaches
/// it; only values built in code can.
pub const MAX_INSTANCE_DEPTH: usize = 128;

/// One reason an instance is invalid: the `details.issues[]` entries of `INVALID_INPUT`.
///
/// Messages are agent-safe: they name the constraint (values the schema itself publishes, such as
/// a bound, an enum or a pattern) and at most a property name or array index of the instance,
/// never internal data or the offending value itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ValidationIssue {
    /// RFC 6901 JSON Pointer into the instance (`""` for the root, `/ids/0`). For `required` and
    /// `additionalProperties` it is the object's pointer and the message names the property.
    pub path: String,
    /// The schema keyword that failed (`type`, `required`, `maxLength`, `anyOf`, ...).
    pub keyword: String,
    /// Human and agent readable, e.g. `must be at most 10 characters`.
    pub message: String,
}

impl fmt::Display for ValidationIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.path.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.path, self.message)
        }
    }
}

/// Options of [`Validator::with_options`]. The runtime uses [`ValidatorOptions::default`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ValidatorOptions {
    /// Assert `format` (date-time, date, uuid, email, uri). Default `true`, as the spec and the
    /// registry require. `false` gives draft 2020-12's default "format-annotation" behaviour,
    /// where `format` never fails validation; it exists for conformance testing (the
    /// JSON-Schema-Test-Suite's `format.json` assumes it), not for production use.
    pub assert_formats: bool,
}

impl Default for ValidatorOptions {
    fn default() -> Self {
        ValidatorOptions { assert_formats: true }
    }
}

impl ValidatorOptions {
    /// Sets [`ValidatorOptions::assert_formats`].
    pub fn assert_formats(mut self, on: bool) -> Self {
        self.assert_formats = on;
        self
    }
}

/// A compiled schema: compile once with [`Validator::new`], validate many times.
///
/// Cloning is cheap (the compiled form is shared behind an [`Arc`]) and the validator is
/// `Send + Sync`, so one instance can serve every invocation of a capability.
#[derive(Clone)]
pub struct Validator {
    inner: Arc<Compiled>,
}

impl fmt::Debug for Validator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Validator")
            .field("schema", &self.inner.schema)
            .field("options", &self.inner.options)
            .finish_non_exhaustive()
    }
}

impl Validator {
    /// Compiles `schema` with the default options (formats asserted).
    ///
    /// Refuses, listing every violation:
    /// - whatever [`check_schema`] refuses (keywords outside the subset, size and depth limits);
    /// - a `pattern` that is not a valid ECMAScript regular expression in Unicode (`u` flag)
    ///   mode, the mode JSON Schema patterns use ([`SchemaViolationKind::InvalidPattern`]);
    /// - a `$ref` that leads back to a schema already being applied to the same value without
    ///   descending into a property or an item (`{"$defs": {"a": {"$ref": "#/$defs/a"}}}`): such
    ///   a schema can never finish validating ([`SchemaViolationKind::InvalidKeywordValue`] for
    ///   `$ref`).
    ///
    /// [`SchemaViolationKind::InvalidPattern`]: crate::subset::SchemaViolationKind::InvalidPattern
    /// [`SchemaViolationKind::InvalidKeywordValue`]: crate::subset::SchemaViolationKind::InvalidKeywordValue
    pub fn new(schema: &Value, limits: impl Into<SchemaLimits>) -> Result<Validator, Vec<SchemaViolation>> {
        Self::with_options(schema, limits, ValidatorOptions::default())
    }

    /// [`Validator::new`] with explicit [`ValidatorOptions`].
    pub fn with_options(
        schema: &Value,
        limits: impl Into<SchemaLimits>,
        options: ValidatorOptions,
    ) -> Result<Validator, Vec<SchemaViolation>> {
        let violations = check_schema(schema, limits);
        if !violations.is_empty() {
            return Err(violations);
        }
        let compiled = Compiler::compile(schema, options)?;
        Ok(Validator { inner: Arc::new(compiled) })
    }

    /// Exactly the violations [`Validator::new`] reports, without building what validating
    /// needs: for checking a schema (every contract's schemas are checked when compiling).
    pub fn check(schema: &Value, limits: impl Into<SchemaLimits>) -> Result<(), Vec<SchemaViolation>> {
        let violations = check_schema(schema, limits);
        if !violations.is_empty() {
            return Err(violations);
        }
        Compiler::build_nodes(schema).map(|_| ())
    }

    /// The schema this validator was compiled from.
    pub fn schema(&self) -> &Value {
        &self.inner.schema
    }

    /// Validates `instance`. On success returns a copy with `default`s applied (what a handler
    /// receives); on failure returns every issue, in document order of the schema, then
    /// instance order. `instance` itself is never modified.
    ///
    /// Outputs are validated with the same call; defaults are then applied to outputs too.
    /// [`Validator::validate_cow`] avoids the copy when no default applies.
    pub fn validate(&self, instance: &Value) -> Result<Value, Vec<ValidationIssue>> {
        self.validate_cow(instance).map(Cow::into_owned)
    }

    /// [`Validator::validate`] without a copy when none is needed: a valid `instance` to which
    /// no default applies comes back borrowed; a copy is made only when a default is inserted.
    pub fn validate_cow<'a>(&self, instance: &'a Value) -> Result<Cow<'a, Value>, Vec<ValidationIssue>> {
        let inner = &*self.inner;
        match inner.fast(instance) {
            Verdict::Valid => Ok(Cow::Borrowed(instance)),
            Verdict::Invalid => match inner.collect(instance) {
                Some(issues) => Err(issues),
                None => inner.apply(instance.clone(), Some(instance)).map(Cow::Owned),
            },
            Verdict::ValidWithDefaults | Verdict::Unknown => {
                inner.apply(instance.clone(), Some(instance)).map(Cow::Owned)
            }
        }
    }

    /// [`Validator::validate`] for a value the caller owns: no copy is made. The value is
    /// consumed either way.
    pub fn validate_owned(&self, instance: Value) -> Result<Value, Vec<ValidationIssue>> {
        let inner = &*self.inner;
        match inner.fast(&instance) {
            Verdict::Valid => Ok(instance),
            Verdict::Invalid => match inner.collect(&instance) {
                Some(issues) => Err(issues),
                None => inner.apply(instance, None),
            },
            Verdict::ValidWithDefaults | Verdict::Unknown => inner.apply(instance, None),
        }
    }

    /// `true` if `instance` is valid (defaults count as applied, as in [`Validator::validate`]).
    /// Always the same answer as `validate(instance).is_ok()`, usually without building
    /// anything: it stops at the first failure and copies nothing unless it cannot decide
    /// otherwise (a default to insert in a schema with `$ref`/`anyOf`, see `Compiled::fast`).
    pub fn is_valid(&self, instance: &Value) -> bool {
        let inner = &*self.inner;
        match inner.fast(instance) {
            Verdict::Valid | Verdict::ValidWithDefaults => true,
            Verdict::Invalid => false,
            Verdict::Unknown => inner.apply(instance.clone(), Some(instance)).is_ok(),
        }
    }
}

#[cfg(test)]
mod differential;
#[cfg(test)]
mod tests;
