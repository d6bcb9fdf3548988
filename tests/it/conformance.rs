//! conformance/scenarios/manifest.json is what `agent-surface compile` writes for
//! conformance/scenarios/app: the scenarios (run natively by crates/engine/tests/it/scenarios.rs and
//! through the JavaScript API by packages/core) cannot drift from the compiler.

use crate::common::{copy_dir, run};
use std::path::Path;

#[test]
fn scenario_manifest_is_compiled_from_the_app() {
    let scenarios = Path::new(env!("CARGO_MANIFEST_DIR")).join("conformance/scenarios");
    let tmp = tempfile::tempdir().unwrap();
    copy_dir(&scenarios.join("app"), &tmp.path().join("app"));
    let r = run(&tmp.path().join("app"), &["compile"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let compiled = std::fs::read_to_string(tmp.path().join("manifest.json")).unwrap();
    let committed = std::fs::read_to_string(scenarios.join("manifest.json")).unwrap();
    assert!(
        compiled == committed,
        "conformance/scenarios/manifest.json is stale: run `agent-surface compile` in conformance/scenarios/app"
    );
}
