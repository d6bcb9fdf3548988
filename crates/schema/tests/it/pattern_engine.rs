//! A host's own pattern engine ([`set_pattern_engine`]) compiles every `pattern` and matches
//! those outside the built-in simple class; a second engine is refused.
//!
//! The engine installed here delegates to regress (so every other test in this binary sees the
//! default semantics), records what it compiles and counts the matches it runs, refuses one
//! marker pattern and answers "match" for another whatever regress says, which only the
//! installed engine could cause.

use agent_surface_schema::pattern::{
    set_pattern_engine, CompiledPattern, PatternEngine, PatternEngineInUse, PatternError, RegressEngine,
};
use agent_surface_schema::{check_schema, SchemaLimits, SchemaViolationKind, Validator};
use serde_json::json;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

/// Refused by the test engine (regress accepts it).
const REFUSED: &str = "^refused-by-the-host(?:-engine)?$";
/// Matches every string under the test engine (regress: only "always").
const ALWAYS: &str = "^(?:always)$";

static COMPILED: Mutex<Vec<String>> = Mutex::new(Vec::new());
static MATCHES: AtomicUsize = AtomicUsize::new(0);

struct TestEngine;

struct TestPattern {
    inner: Arc<dyn CompiledPattern>,
    always: bool,
}

impl PatternEngine for TestEngine {
    fn compile(&self, source: &str) -> Result<Arc<dyn CompiledPattern>, PatternError> {
        COMPILED.lock().unwrap().push(source.to_string());
        if source == REFUSED {
            return Err(PatternError::new("refused by the test engine"));
        }
        let inner = RegressEngine.compile(source)?;
        Ok(Arc::new(TestPattern { inner, always: source == ALWAYS }))
    }
}

impl CompiledPattern for TestPattern {
    fn is_match(&self, text: &str) -> bool {
        MATCHES.fetch_add(1, Ordering::Relaxed);
        self.always || self.inner.is_match(text)
    }
}

/// Installs [`TestEngine`] once; every test of the binary calls it before compiling a pattern.
pub fn setup() {
    static INSTALLED: OnceLock<()> = OnceLock::new();
    INSTALLED.get_or_init(|| set_pattern_engine(TestEngine).expect("no pattern was compiled before setup()"));
}

fn compiled(source: &str) -> bool {
    COMPILED.lock().unwrap().iter().any(|s| s == source)
}

#[test]
fn the_installed_engine_compiles_every_pattern() {
    setup();
    let limits = SchemaLimits::default();
    // A pattern the built-in matcher handles is still compiled (validity) by the engine.
    let simple = "^installed-engine-[0-9]+$";
    let v = Validator::new(&json!({"pattern": simple}), limits).unwrap();
    assert!(compiled(simple));
    assert!(v.is_valid(&json!("installed-engine-42")));
    assert!(!v.is_valid(&json!("installed-engine-")));
    // What the engine refuses, the checker and the validator refuse, with its message.
    let schema = json!({"properties": {"x": {"pattern": REFUSED}}});
    let violations = check_schema(&schema, limits);
    assert_eq!(violations.len(), 1, "{violations:#?}");
    assert_eq!(
        violations[0].kind,
        SchemaViolationKind::InvalidPattern { pattern: REFUSED.into(), error: "refused by the test engine".into() }
    );
    assert_eq!(violations[0].json_pointer(), "/properties/x/pattern");
    let e = Validator::new(&schema, limits).unwrap_err();
    assert!(matches!(e[0].kind, SchemaViolationKind::InvalidPattern { .. }), "{e:#?}");
}

#[test]
fn the_installed_engine_matches_patterns_outside_the_simple_class() {
    setup();
    let limits = SchemaLimits::default();
    let before = MATCHES.load(Ordering::Relaxed);
    // Only the test engine says this string matches.
    let v = Validator::new(&json!({"type": "string", "pattern": ALWAYS}), limits).unwrap();
    assert!(v.is_valid(&json!("anything")));
    assert_eq!(v.validate(&json!("anything else")).unwrap(), json!("anything else"));
    // A group: outside the simple class, matched by the engine (here, regress's answer).
    let v = Validator::new(&json!({"pattern": "^(?:a|b)$"}), limits).unwrap();
    assert!(v.is_valid(&json!("a")));
    let issues = v.validate(&json!("c")).unwrap_err();
    assert_eq!(issues[0].keyword, "pattern");
    assert!(MATCHES.load(Ordering::Relaxed) >= before + 4);
}

#[test]
fn a_second_engine_is_refused() {
    setup();
    assert_eq!(set_pattern_engine(TestEngine), Err(PatternEngineInUse));
    assert!(PatternEngineInUse.to_string().contains("already in use"));
}
