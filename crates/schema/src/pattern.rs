//! Which regular-expression engine compiles and matches `pattern`.
//!
//! JSON Schema's `pattern` is an ECMAScript regular expression in Unicode (`u` flag) mode. By
//! default (cargo feature `regress`, on by default) the [`regress`](https://docs.rs/regress)
//! crate implements it. A host with its own ECMAScript engine (the browser build has the page's
//! `RegExp`, whose semantics are exactly `pattern`'s) installs it once per process with
//! [`set_pattern_engine`], before the first schema with a `pattern` is checked; the crate can
//! then be built without `regress`. Without the feature and without an installed engine every
//! `pattern` is refused as a schema violation (`SchemaViolationKind::InvalidPattern`).
//!
//! Both the subset checker (is the pattern valid?) and the validator (does a string match?) go
//! through one function (`compile_pattern`), which keeps every compiled pattern in a bounded, process-wide
//! cache: the same patterns recur in every schema of an app. The validator matches patterns of
//! a small deterministic class (literals, classes and quantifiers, see the validator's
//! `pattern` module) with a built-in matcher once the engine has accepted them; every other
//! pattern is matched by the engine.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

/// An ECMAScript regular-expression engine in Unicode (`u` flag) mode, without other flags.
pub trait PatternEngine: Send + Sync {
    /// Compiles `source`, or says why it is not a valid `u`-mode pattern.
    fn compile(&self, source: &str) -> Result<Arc<dyn CompiledPattern>, PatternError>;
}

/// A pattern an engine compiled.
pub trait CompiledPattern: Send + Sync {
    /// `true` if some substring of `text` matches (`pattern` is not implicitly anchored).
    fn is_match(&self, text: &str) -> bool;
}

/// Why a pattern does not compile: the engine's message, shown in the schema violation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternError {
    message: String,
}

impl PatternError {
    pub fn new(message: impl Into<String>) -> Self {
        PatternError { message: message.into() }
    }

    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for PatternError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for PatternError {}

/// [`set_pattern_engine`] was called when an engine was already in use: installed before, or
/// the default engine already compiled a pattern (every cached pattern is that engine's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PatternEngineInUse;

impl fmt::Display for PatternEngineInUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(
            "a pattern engine is already in use in this process; install one once, before the \
             first schema with a pattern is checked",
        )
    }
}

impl std::error::Error for PatternEngineInUse {}

static ENGINE: OnceLock<Box<dyn PatternEngine>> = OnceLock::new();

/// Installs the engine every `pattern` of this process is compiled with. Call it once, before
/// the first schema with a `pattern` is checked or compiled; afterwards (or on a second call)
/// it returns [`PatternEngineInUse`] and changes nothing.
pub fn set_pattern_engine(engine: impl PatternEngine + 'static) -> Result<(), PatternEngineInUse> {
    ENGINE.set(Box::new(engine)).map_err(|_| PatternEngineInUse)
}

/// The engine in use: the installed one, else the default (which is then fixed for the
/// process), if the crate has one.
fn engine() -> Option<&'static dyn PatternEngine> {
    #[cfg(feature = "regress")]
    {
        Some(ENGINE.get_or_init(|| Box::new(RegressEngine)).as_ref())
    }
    #[cfg(not(feature = "regress"))]
    {
        ENGINE.get().map(|e| e.as_ref())
    }
}

/// The default engine: regress with the `u` flag.
#[cfg(feature = "regress")]
#[derive(Clone, Copy, Debug, Default)]
pub struct RegressEngine;

#[cfg(feature = "regress")]
impl PatternEngine for RegressEngine {
    fn compile(&self, source: &str) -> Result<Arc<dyn CompiledPattern>, PatternError> {
        if quantified_word_boundary(source) {
            return Err(PatternError::new("nothing to repeat: \\b and \\B cannot be quantified in Unicode mode"));
        }
        match regress::Regex::with_flags(source, "u") {
            Ok(regex) => Ok(Arc::new(RegressPattern(regex))),
            Err(e) => Err(PatternError::new(e.text)),
        }
    }
}

/// `true` if `source` quantifies `\b` or `\B` outside a class (`\b*`, `\B{2}`): ECMAScript refuses
/// that in Unicode mode (only Annex B's non-Unicode grammar quantifies assertions, and only
/// lookaheads), regress 0.12 accepts it, and the page's `RegExp` would then refuse a schema the
/// compiler let through. A `{` after them is refused either way (a
/// quantifier, or a lone brace `u` mode refuses).
#[cfg(feature = "regress")]
fn quantified_word_boundary(source: &str) -> bool {
    let mut chars = source.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            // An escape: the next character is escaped (longer escapes such as `\u{..}` or
            // `\p{..}` continue with characters that are neither `\` nor a class bracket).
            '\\' => {
                let escaped = chars.next();
                if !in_class
                    && matches!(escaped, Some('b' | 'B'))
                    && matches!(chars.peek(), Some('*' | '+' | '?' | '{'))
                {
                    return true;
                }
            }
            '[' if !in_class => in_class = true,
            ']' if in_class => in_class = false,
            _ => {}
        }
    }
    false
}

#[cfg(feature = "regress")]
struct RegressPattern(regress::Regex);

#[cfg(feature = "regress")]
impl CompiledPattern for RegressPattern {
    #[inline]
    fn is_match(&self, text: &str) -> bool {
        self.0.find(text).is_some()
    }
}

/// Why [`compile_pattern`] gave no pattern.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PatternFailure {
    /// The engine refused it, with its message.
    Invalid(String),
    /// There is no engine: built without `regress` and none installed.
    NoEngine,
}

impl PatternFailure {
    /// What `SchemaViolationKind::InvalidPattern::error` carries.
    pub(crate) fn text(&self) -> String {
        match self {
            PatternFailure::Invalid(e) => e.clone(),
            PatternFailure::NoEngine => "no regular-expression engine: this build of agent-surface-schema has no \
                                         `regress` feature and no engine was installed with \
                                         pattern::set_pattern_engine"
                .to_string(),
        }
    }
}

/// A pattern compiled by the engine in use, or the engine's reason it is not one. Compiled
/// once per process, for checking schemas and for validating: the same patterns (ids, zod's
/// `date-time` and `uuid` expressions) recur in every schema of an app, and compiling them was
/// a tenth of a cold compile. The cache is bounded (a long-lived server meets patterns without
/// end).
pub(crate) fn compile_pattern(source: &str) -> Result<Arc<dyn CompiledPattern>, PatternFailure> {
    type Cache = Mutex<HashMap<String, Result<Arc<dyn CompiledPattern>, String>>>;
    const MAX_CACHED: usize = 1024;
    static CACHE: OnceLock<Cache> = OnceLock::new();
    // Not cached: an engine may still be installed.
    let engine = engine().ok_or(PatternFailure::NoEngine)?;
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(source) {
        return hit.clone().map_err(PatternFailure::Invalid);
    }
    let compiled = engine.compile(source).map_err(|e| e.message);
    let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
    if cache.len() >= MAX_CACHED {
        cache.clear();
    }
    cache.insert(source.to_string(), compiled.clone());
    compiled.map_err(PatternFailure::Invalid)
}
