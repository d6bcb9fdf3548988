//! The CLI, driven by argv like a user would: exit codes, files written, `--check`, formats,
//! determinism across checkout paths and thread counts. Output is snapshot-tested per argv.

use crate::common::{copy_dir, example_app, example_manifest, run, Run};
use std::path::{Path, PathBuf};

/// `in 12 ms` → `in <ms> ms`, so timings do not break snapshots.
fn stable(s: &str) -> String {
    let mut out = String::new();
    let mut rest = s;
    while let Some(i) = rest.find(" in ") {
        out.push_str(&rest[..i + 4]);
        rest = &rest[i + 4..];
        let digits = rest.chars().take_while(|c| c.is_ascii_digit()).count();
        if digits > 0 && rest[digits..].starts_with(" ms") {
            out.push_str("<ms>");
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

fn snapshot(name: &str, run: &Run) {
    let text = format!(
        "exit: {}\n---- stdout ----\n{}---- stderr ----\n{}",
        run.code,
        stable(&run.stdout),
        stable(&run.stderr)
    );
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(Path::new(env!("CARGO_MANIFEST_DIR")).join("snapshots/cli"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.bind(|| insta::assert_snapshot!(name.to_string(), text));
}

/// A scratch copy of a fixture project under `parent/name`.
fn copy_project(from: &Path, parent: &Path, name: &str) -> PathBuf {
    let to = parent.join(name);
    copy_dir(from, &to);
    to
}

/// A project's package.json: without one (or a config) no project is found.
const PACKAGE_JSON: &str = "{ \"name\": \"p\", \"private\": true }\n";

/// A contract with an invalid component type (AS0101).
const BAD_CONTRACT: &str = "import { defineAgentComponentContract } from '@agent-surface/core';\nexport const x = defineAgentComponentContract({ type: 'A', description: 'b' });\n";

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn compiles_the_example_app_to_a_complete_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let app = copy_project(&example_app(), tmp.path(), "app");
    let r = run(&app, &["compile"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    snapshot("compile-example-app", &r);
    let manifest = std::fs::read_to_string(app.join("agent-surface.manifest.json")).unwrap();
    let parsed = agent_surface_model::manifest::CapabilityContractManifest::from_json_str(&manifest).unwrap();
    assert_eq!(parsed.completeness.status, agent_surface_model::manifest::CompletenessStatus::Complete);
    assert!(parsed.verify_hashes().is_ok());
    // The manifest's reviewed copy is the example's committed one (its diff shows in review).
    assert!(manifest == std::fs::read_to_string(example_manifest()).unwrap(), "differs from the committed manifest");

    // A second compile finds nothing to write.
    let again = run(&app, &["compile"]);
    assert_eq!(again.code, 0);
    assert!(again.stderr.contains("(unchanged, complete)"), "{}", again.stderr);
}

#[test]
fn identical_bytes_from_different_checkouts_and_thread_counts() {
    let tmp = tempfile::tempdir().unwrap();
    let a = copy_project(&example_app(), tmp.path(), "a");
    let b = copy_project(&example_app(), &tmp.path().join("some/much/deeper/checkout path"), "b");
    assert_eq!(run(&a, &["compile", "--threads", "1"]).code, 0);
    assert_eq!(run(tmp.path(), &["compile", b.to_str().unwrap(), "--threads", "4"]).code, 0);
    let ma = std::fs::read(a.join("agent-surface.manifest.json")).unwrap();
    let mb = std::fs::read(b.join("agent-surface.manifest.json")).unwrap();
    assert_eq!(ma, mb);
    assert!(
        !String::from_utf8(ma).unwrap().contains(tmp.path().to_str().unwrap()),
        "absolute paths leaked into the manifest"
    );
}

#[test]
fn check_flag_catches_missing_and_stale_manifests() {
    let tmp = tempfile::tempdir().unwrap();
    let app = copy_project(&example_app(), tmp.path(), "app");
    let missing = run(&app, &["compile", "--check"]);
    assert_eq!(missing.code, 1);
    assert!(missing.stderr.contains("is missing"), "{}", missing.stderr);
    assert!(!app.join("agent-surface.manifest.json").exists(), "--check must write nothing");

    assert_eq!(run(&app, &["compile"]).code, 0);
    let fresh = run(&app, &["compile", "--check"]);
    assert_eq!(fresh.code, 0, "{}", fresh.stderr);

    // A contract edit makes the committed manifest stale.
    let file = app.join("src/external/reports.ts");
    let text = std::fs::read_to_string(&file).unwrap().replace("Export the devices report", "Export the device report");
    std::fs::write(&file, text).unwrap();
    let before = std::fs::read(app.join("agent-surface.manifest.json")).unwrap();
    let stale = run(&app, &["compile", "--check"]);
    assert_eq!(stale.code, 1);
    snapshot("compile-check-stale", &stale);
    assert_eq!(std::fs::read(app.join("agent-surface.manifest.json")).unwrap(), before, "--check must not rewrite");
}

#[test]
fn errors_exit_1_and_write_an_incomplete_manifest() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    write(&root.join("package.json"), PACKAGE_JSON);
    write(
        &root.join("src/table.ts"),
        "import { defineAgentComponentContract, actionContract, emptyObjectSchema } from '@agent-surface/core';\n\
         export const table = defineAgentComponentContract({\n  type: 'devices.Table',\n  description: 'Devices',\n  actions: {\n    remove: actionContract({ description: 'Remove', input: emptyObjectSchema, effect: 'destructive' }),\n  },\n});\n",
    );
    write(
        &root.join("src/ok.ts"),
        "import { defineAgentProcedureContract, emptyObjectSchema } from '@agent-surface/core';\n\
         export const p = defineAgentProcedureContract({ id: 'domain:devices.list', description: 'List', input: emptyObjectSchema, effect: 'read' });\n",
    );
    let r = run(&root, &["compile"]);
    assert_eq!(r.code, 1);
    snapshot("compile-errors", &r);
    let m = agent_surface_model::manifest::CapabilityContractManifest::from_json_str(
        &std::fs::read_to_string(root.join("agent-surface.manifest.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(m.completeness.status, agent_surface_model::manifest::CompletenessStatus::Incomplete);
    assert_eq!((m.completeness.contracts, m.completeness.failed), (1, 1));

    let json = run(&root, &["check", "--format", "json"]);
    assert_eq!(json.code, 1);
    let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("exactly one JSON document");
    assert_eq!(v["schemaVersion"], 1);
    let codes: Vec<&str> = v["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, vec!["AS0101", "AS0401"]);
    assert_eq!(v["diagnostics"][0]["file"], "src/table.ts");
    assert_eq!((v["diagnostics"][0]["line"].as_u64(), v["diagnostics"][0]["column"].as_u64()), (Some(3), Some(18)));
    snapshot("check-format-json", &json);
}

#[test]
fn a_syntax_error_is_a_located_diagnostic_not_a_crash() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    write(&root.join("package.json"), PACKAGE_JSON);
    write(&root.join("src/broken.tsx"), "import { defineAgentComponentContract } from '@agent-surface/core';\nexport const x = defineAgentComponentContract({ type: 'a', description: 'b' );\nconst y = <div>;\n");
    let r = run(&root, &["check"]);
    assert_eq!(r.code, 1);
    assert!(r.stderr.contains("AS0001"), "{}", r.stderr);
    snapshot("check-syntax-error", &r);
    // The manifest of a project whose contract file does not parse is incomplete.
    let c = run(&root, &["compile", "--format", "json"]);
    let m = std::fs::read_to_string(root.join("agent-surface.manifest.json")).unwrap();
    assert!(m.contains("\"status\": \"incomplete\""), "{m}");
    assert_eq!(c.code, 1);
}

#[test]
fn check_reports_only_the_given_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("p");
    let bad = "import { defineAgentComponentContract } from '@agent-surface/core';\nexport const x = defineAgentComponentContract({ type: 'A', description: 'b' });\n";
    write(&root.join("package.json"), PACKAGE_JSON);
    write(&root.join("src/a/one.ts"), bad);
    write(&root.join("src/b/two.ts"), &bad.replace("'A'", "'B'"));
    let r = run(&root, &["check", "src/b", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    let files: Vec<&str> = v["diagnostics"].as_array().unwrap().iter().map(|d| d["file"].as_str().unwrap()).collect();
    assert_eq!(files, vec!["src/b/two.ts"]);
    assert_eq!(r.code, 1);
    assert_eq!(run(&root, &["check", "src/missing"]).code, 2);
}

#[test]
fn usage_and_configuration_errors_exit_2() {
    let tmp = tempfile::tempdir().unwrap();
    let missing = run(tmp.path(), &["compile", "does-not-exist"]);
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("does not exist"), "{}", missing.stderr);

    write(&tmp.path().join("file.ts"), "");
    let file_root = run(tmp.path(), &["compile", "file.ts"]);
    assert_eq!(file_root.code, 2);
    assert!(file_root.stderr.contains("is not a folder"));

    let root = tmp.path().join("cfg");
    write(&root.join("agent-surface.config.json"), "{\n  \"include\": [\"src/**\"],\n  \"outptu\": \"m.json\"\n}\n");
    let bad = run(&root, &["compile"]);
    assert_eq!(bad.code, 2);
    assert!(
        bad.stderr.contains("agent-surface.config.json")
            && bad.stderr.contains("unknown field `outptu`")
            && bad.stderr.contains("line 3"),
        "{}",
        bad.stderr
    );

    let flag = run(tmp.path(), &["compile", "--format", "yaml"]);
    assert_eq!(flag.code, 2);
    let unknown = run(tmp.path(), &["frobnicate"]);
    assert_eq!(unknown.code, 2);
}

#[test]
fn an_unwritable_output_keeps_the_old_manifest_and_exits_2() {
    let tmp = tempfile::tempdir().unwrap();
    let app = copy_project(&example_app(), tmp.path(), "app");
    let r = run(&app, &["compile", "--out", "no/such/dir/m.json"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("cannot write the manifest"), "{}", r.stderr);
    assert!(!app.join("no").exists());
}

#[test]
fn max_warnings_and_clean_projects() {
    let tmp = tempfile::tempdir().unwrap();
    let app = copy_project(&example_app(), tmp.path(), "app");
    let r = run(&app, &["check", "--max-warnings", "0"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let j = run(&app, &["check", "--format", "json"]);
    assert_eq!(j.stdout, "{\"schemaVersion\":1,\"diagnostics\":[]}\n");
}

/// The example app's committed manifest (what the README's quick start writes, and what the
/// runtime's tests, the packages' tests and the benches read) is exactly what the compiler
/// produces today: `compile --check` in place passes, and a copy elsewhere compiles to the same
/// bytes (regenerate with `cargo run -- compile examples/devices-app`).
#[test]
fn the_example_apps_committed_manifest_is_current() {
    let check = run(&example_app(), &["compile", "--check"]);
    assert_eq!(check.code, 0, "examples/devices-app/agent-surface.manifest.json is stale: {}", check.stderr);
    let tmp = tempfile::tempdir().unwrap();
    let app = copy_project(&example_app(), tmp.path(), "app");
    assert_eq!(run(&app, &["compile"]).code, 0);
    let fresh = std::fs::read_to_string(app.join("agent-surface.manifest.json")).unwrap();
    let committed = std::fs::read_to_string(example_manifest()).unwrap();
    assert!(fresh == committed, "examples/devices-app/agent-surface.manifest.json is stale: regenerate it");
}

/// `check PATH` and `compile` find PATH's project (or the working directory's) by walking up,
/// from anywhere: a project full of errors never passes because the check ran elsewhere.
#[test]
fn check_and_compile_find_the_project_of_their_paths() {
    let tmp = tempfile::tempdir().unwrap();
    let app = tmp.path().join("work/app");
    write(&app.join("package.json"), PACKAGE_JSON);
    write(&app.join("src/ui/bad.ts"), BAD_CONTRACT);
    let elsewhere = tmp.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let app_arg = app.to_str().unwrap();

    let r = run(&elsewhere, &["check", app_arg, "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["diagnostics"][0]["code"], "AS0101");
    assert_eq!(v["diagnostics"][0]["file"], "src/ui/bad.ts", "relative to the project found");

    let file = app.join("src/ui/bad.ts");
    assert_eq!(run(&elsewhere, &["check", file.to_str().unwrap()]).code, 1, "a file finds its project too");
    let sub = run(&app.join("src/ui"), &["check"]);
    assert_eq!(sub.code, 1, "no paths: the working directory's project\n{}", sub.stderr);
    assert!(sub.stderr.contains("AS0101"), "{}", sub.stderr);

    // `compile` from inside the project, and `compile FOLDER` for a folder inside it, compile the
    // project and write its manifest at its root.
    assert_eq!(run(&app.join("src"), &["compile"]).code, 1);
    assert!(app.join("agent-surface.manifest.json").is_file());
    std::fs::remove_file(app.join("agent-surface.manifest.json")).unwrap();
    assert_eq!(run(&elsewhere, &["compile", app.join("src/ui").to_str().unwrap()]).code, 1);
    assert!(app.join("agent-surface.manifest.json").is_file());
    assert!(!app.join("src/ui/agent-surface.manifest.json").exists());
}

/// The nearest folder with the configuration (or an `agentSurface` key) wins over a nearer plain
/// package.json: a monorepo's packages compile as the one project.
#[test]
fn a_configured_folder_wins_over_a_nearer_package_json() {
    let tmp = tempfile::tempdir().unwrap();
    let repo = tmp.path().join("repo");
    write(&repo.join("agent-surface.config.json"), "{}\n");
    write(&repo.join("packages/ui/package.json"), PACKAGE_JSON);
    write(&repo.join("packages/ui/src/bad.ts"), BAD_CONTRACT);
    let r = run(tmp.path(), &["check", "repo/packages/ui/src/bad.ts", "--format", "json"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: serde_json::Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(v["diagnostics"][0]["file"], "packages/ui/src/bad.ts");
}

#[test]
fn a_path_outside_the_given_root_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let app = tmp.path().join("app");
    write(&app.join("package.json"), PACKAGE_JSON);
    write(&app.join("src/ok.ts"), "export const a = 1;\n");
    write(&tmp.path().join("other/bad.ts"), BAD_CONTRACT);
    let r = run(tmp.path(), &["check", "other/bad.ts", "--root", "app"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let (path, root) = (tmp.path().join("other/bad.ts"), tmp.path().join("app"));
    assert!(
        r.stderr.contains(path.to_str().unwrap()) && r.stderr.contains(root.to_str().unwrap()),
        "names both: {}",
        r.stderr
    );
    // Inside the given root it is checked as before.
    assert_eq!(run(tmp.path(), &["check", "app/src", "--root", "app"]).code, 0);
}

#[test]
fn paths_of_two_projects_are_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    for name in ["a", "b"] {
        write(&tmp.path().join(name).join("package.json"), PACKAGE_JSON);
        write(&tmp.path().join(name).join("src/bad.ts"), BAD_CONTRACT);
    }
    let r = run(tmp.path(), &["check", "a/src", "b/src"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stderr.contains("one project at a time"), "{}", r.stderr);
}

/// No agent-surface.config.json and no package.json up to the file-system root: a usage error
/// that says so, never a silent exit 0 and never a walk of the folder we happen to be in.
#[test]
fn no_project_found_is_a_usage_error() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("loose");
    write(&dir.join("src/bad.ts"), BAD_CONTRACT);
    for args in [&["check"][..], &["check", "src"], &["check", "src/bad.ts"], &["compile"], &["compile", "--check"]] {
        let r = run(&dir, args);
        assert_eq!(r.code, 2, "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("no project found"), "{args:?}: {}", r.stderr);
    }
    assert!(!dir.join("agent-surface.manifest.json").exists());
    // From `/`, the same, at once.
    let top_level_project =
        ["package.json", "agent-surface.config.json"].iter().any(|f| Path::new("/").join(f).exists());
    if !top_level_project {
        let r = run(Path::new("/"), &["check"]);
        assert_eq!(r.code, 2, "{}", r.stderr);
        assert!(r.stderr.contains("no project found for /"), "{}", r.stderr);
    }
    // An explicit root is still the root, as documented.
    assert_eq!(run(tmp.path(), &["check", "--root", "loose"]).code, 1);
    assert_eq!(run(tmp.path(), &["compile", "loose"]).code, 1);
}
