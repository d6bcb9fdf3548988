//! `pattern` in the page: the host's ECMAScript `RegExp` instead of a bundled regex engine.
//!
//! JSON Schema's `pattern` is an ECMA-262 regular expression in Unicode mode, so the page's own
//! `new RegExp(source, "u")` *is* its semantics, and the module does not carry `regress` (the
//! default engine natively; about 73 kB of the module after gzip). [`install`] puts
//! [`RegExpEngine`] in place once, when the module starts (`#[wasm_bindgen(start)]` runs inside
//! `initSync`), before any schema is checked.
//!
//! - **Validity.** A source the `RegExp` constructor throws on (a `SyntaxError`) is an invalid
//!   pattern, with the host's message, at the same place regress refused it: the schema crate
//!   calls the engine from the subset check and from the validator's compile step, so a schema
//!   with such a pattern is refused when it is built, never when a value is validated.
//! - **Matching.** `RegExp.prototype.test` without the `g` or `y` flag searches the whole string
//!   and ignores `lastIndex`: the unanchored search `pattern` means (regress's `find`).
//! - **Compiled once.** A `RegExp` is a JS value, neither `Send` nor `Sync`, while the schema
//!   crate's engines must be both (it keeps compiled patterns in a process-wide cache). So the
//!   compiled pattern handed to the schema crate is the source text, and the `RegExp` objects
//!   live in this thread's bounded cache keyed by that text (a wasm32 page has one thread);
//!   one evicted from the cache is compiled again at its next use.
//!
//! Built natively (the crate's unit tests) the module compiles but nothing installs it: there is
//! no JS host, and the native build keeps the schema crate's `regress` feature.

use agent_surface_model::schema::pattern::{set_pattern_engine, CompiledPattern, PatternEngine, PatternError};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;
use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The host's `RegExp`, bound here because js-sys's constructor does not catch what it
    /// throws.
    #[wasm_bindgen(extends = js_sys::RegExp, js_name = RegExp)]
    type HostRegExp;

    /// `new RegExp(source, flags)`, or the `SyntaxError` it threw.
    #[wasm_bindgen(catch, constructor, js_class = RegExp)]
    fn new(source: &str, flags: &str) -> Result<HostRegExp, JsValue>;
}

/// Unicode mode, and nothing else: no `g`/`y` (which would make `test` stateful), no `i`, `m`,
/// `s`; `v` is a different syntax.
const FLAGS: &str = "u";

/// At most this many `RegExp` objects are kept; the schema crate's own cache holds 1024 compiled
/// patterns, and a page's schemas have far fewer distinct patterns than either bound.
const MAX_CACHED: usize = 1024;

thread_local! {
    static REGEXPS: RefCell<HashMap<String, HostRegExp>> = RefCell::new(HashMap::new());
}

/// The host's message for what `RegExp` threw (a `SyntaxError`'s `message`), else its text.
fn message_of(thrown: &JsValue) -> String {
    match thrown.dyn_ref::<js_sys::Error>() {
        Some(e) => String::from(e.message()),
        None => thrown.as_string().unwrap_or_else(|| "the host's RegExp refused the pattern".to_string()),
    }
}

/// Calls `f` with `source` compiled by the host: the cached `RegExp`, or a new one (then cached).
fn with_regexp<R>(source: &str, f: impl Fn(&HostRegExp) -> R) -> Result<R, String> {
    if let Some(result) = REGEXPS.with_borrow(|cache| cache.get(source).map(&f)) {
        return Ok(result);
    }
    let re = HostRegExp::new(source, FLAGS).map_err(|thrown| message_of(&thrown))?;
    let result = f(&re);
    REGEXPS.with_borrow_mut(|cache| {
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert(source.to_string(), re);
    });
    Ok(result)
}

/// The schema crate's [`PatternEngine`] over the host's `RegExp` in Unicode mode.
#[derive(Clone, Copy, Debug, Default)]
pub struct RegExpEngine;

impl PatternEngine for RegExpEngine {
    fn compile(&self, source: &str) -> Result<Arc<dyn CompiledPattern>, PatternError> {
        with_regexp(source, |_| ()).map_err(PatternError::new)?;
        Ok(Arc::new(RegExpPattern { source: source.into() }))
    }
}

/// A pattern the host accepted: its source; the `RegExp` is in this thread's cache.
struct RegExpPattern {
    source: Box<str>,
}

impl CompiledPattern for RegExpPattern {
    fn is_match(&self, text: &str) -> bool {
        // The host accepted this source when it was compiled, so it accepts it again after an
        // eviction; `false` would only follow a host that changed its mind.
        with_regexp(&self.source, |re| re.test(text)).unwrap_or(false)
    }
}

/// Installs [`RegExpEngine`] for every `pattern` of this module. Called once at start; a second
/// call changes nothing.
pub fn install() {
    // Err only when an engine is already in use, which is then this one (nothing else installs
    // one, and this build has no default engine).
    let _ = set_pattern_engine(RegExpEngine);
}

#[cfg(test)]
mod tests;
