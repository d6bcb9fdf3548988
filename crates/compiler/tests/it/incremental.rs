//! Incremental compiles give exactly what a fresh compile gives.
//!
//! A script of edits runs on a copy of the example app: constants changed behind a barrel,
//! syntax broken and fixed in an imported module, a contract file added, an import broken,
//! files deleted, a new module made resolvable, unsaved buffers. After every step three
//! compilers must agree byte for byte (manifest and JSON diagnostics): a fresh project, a
//! long-lived project that rescans ([`ChangeTracking::Rescan`]), and a long-lived project told
//! only what the step touched ([`ChangeTracking::Reported`]), as the watcher and the language
//! server tell it.

use crate::common;

use agent_surface_compiler::compile::{compile, compile_shared, manifest_text, project_at, Compilation};
use agent_surface_compiler::project::{ChangeTracking, Project};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What a compile shows a user: the manifest file and the diagnostics. The file is written
/// from the contracts' canonical texts (kept across compiles); it must be exactly what
/// serializing the manifest gives.
fn observable(c: &Compilation) -> (String, String) {
    let text = manifest_text(c);
    assert_eq!(text, c.manifest().to_pretty_json(), "the spliced manifest text differs from the serialized manifest");
    (text, agent_surface_compiler::render::json::render(&c.diagnostics, &c.project.db))
}

enum Edit {
    Write(&'static str, String),
    Delete(&'static str),
    Overlay(&'static str, &'static str),
    ClearOverlay(&'static str),
}

struct Script {
    root: PathBuf,
    rescan: Arc<Project>,
    reported: Arc<Project>,
}

impl Script {
    fn new(root: &Path) -> Script {
        let rescan = Arc::new(project_at(root).unwrap());
        let reported = Arc::new(project_at(root).unwrap());
        reported.set_change_tracking(ChangeTracking::Reported);
        Script { root: root.to_path_buf(), rescan, reported }
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.root.join(rel)).unwrap()
    }

    /// Applies one step's edits, then checks that the three compilers agree; returns the fresh
    /// compile and how many files the reported project reused.
    fn step(&self, what: &str, edits: Vec<Edit>) -> (Compilation, usize) {
        for e in edits {
            match e {
                Edit::Write(rel, text) => {
                    let p = self.root.join(rel);
                    let existed = p.exists();
                    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
                    std::fs::write(&p, text).unwrap();
                    self.reported.file_changed(&p);
                    if !existed {
                        self.reported.files_added_or_removed();
                    }
                }
                Edit::Delete(rel) => {
                    let p = self.root.join(rel);
                    std::fs::remove_file(&p).unwrap();
                    self.reported.forget(&p);
                    self.rescan.forget(&p);
                }
                Edit::Overlay(rel, text) => {
                    for p in [&self.rescan, &self.reported] {
                        p.set_overlay(self.root.join(rel), Arc::from(text));
                    }
                }
                Edit::ClearOverlay(rel) => {
                    for p in [&self.rescan, &self.reported] {
                        p.clear_overlay(&self.root.join(rel));
                    }
                }
            }
        }
        let rescan = compile_shared(self.rescan.clone()).unwrap();
        let reported = compile_shared(self.reported.clone()).unwrap();
        // The fresh project sees the same unsaved buffers.
        let fresh_project = project_at(&self.root).unwrap();
        for (path, text) in self.rescan.overlays() {
            fresh_project.set_overlay(path, text);
        }
        let fresh = compile(fresh_project).unwrap();
        let expected = observable(&fresh);
        assert_eq!(observable(&rescan), expected, "{what}: the rescanning project differs from a fresh compile");
        assert_eq!(observable(&reported), expected, "{what}: the reported project differs from a fresh compile");
        (fresh, reported.reused)
    }
}

#[test]
fn incremental_compiles_match_fresh_ones_through_an_edit_script() {
    let dir = tempfile::tempdir().unwrap();
    let root = agent_surface_compiler::paths::normalize(&std::fs::canonicalize(dir.path()).unwrap());
    common::copy_dir(&common::example_app(), &root);
    let s = Script::new(&root);

    let (first, _) = s.step("first compile", vec![]);
    assert_eq!(first.error_count(), 0);
    let contracts = first.manifest().contracts.len();

    let (_, reused) = s.step("nothing changed", vec![]);
    assert_eq!(reused, first.candidates, "every candidate file is reused when nothing changed");

    // A constant behind the `export *` barrel: only the files that read it are compiled again.
    let devices = s.read("src/schemas/devices.ts");
    let (c, reused) = s.step(
        "a barrel constant changed",
        vec![Edit::Write("src/schemas/devices.ts", devices.replace("maxLength: 120", "maxLength: 80"))],
    );
    assert!(c.manifest().to_pretty_json().contains("\"maxLength\": 80"));
    assert!(
        reused > 0 && reused < c.candidates,
        "some files reused, the dependents recompiled ({reused} of {})",
        c.candidates
    );

    // Rewritten with the same text: its readers check their inputs, find them unchanged and
    // are trusted again; the next real change must still reach them.
    let edited = devices.replace("maxLength: 120", "maxLength: 80");
    let (_, reused) =
        s.step("a barrel constant rewritten unchanged", vec![Edit::Write("src/schemas/devices.ts", edited)]);
    assert_eq!(reused, first.candidates);
    let (c, _) = s.step(
        "the barrel constant changed again",
        vec![Edit::Write("src/schemas/devices.ts", devices.replace("maxLength: 120", "maxLength: 60"))],
    );
    assert!(c.manifest().to_pretty_json().contains("\"maxLength\": 60"));

    let (c, _) = s.step(
        "syntax error in an imported module",
        vec![Edit::Write("src/schemas/devices.ts", format!("{devices}\nexport const = ;\n"))],
    );
    assert!(c.diagnostics.iter().any(|d| d.code.id() == "AS0001"), "the imported module's syntax error is reported");
    let (c, _) = s.step("the same error again (results reused)", vec![]);
    assert!(
        c.diagnostics.iter().any(|d| d.code.id() == "AS0001"),
        "a reused result still reports the modules it loaded"
    );
    s.step("syntax fixed", vec![Edit::Write("src/schemas/devices.ts", devices.clone())]);

    let extra = "import { defineAgentProcedureContract, emptyObjectSchema, fromJsonSchema } from \"@agent-surface/core\";\nimport { DEVICE_ID } from \"@/schemas\";\nexport const probe = defineAgentProcedureContract({ id: \"domain:devices.probe\", description: \"Probe a device.\", input: emptyObjectSchema, output: fromJsonSchema({ type: \"object\", properties: { id: DEVICE_ID } }), effect: \"read\" });\n";
    let (c, _) = s.step("a contract file added", vec![Edit::Write("src/domain/probe.ts", extra.to_string())]);
    assert_eq!(
        c.manifest().contracts.len(),
        contracts + 1,
        "{}",
        agent_surface_compiler::render::json::render(&c.diagnostics, &c.project.db)
    );

    let (c, _) = s.step(
        "an import made unresolvable",
        vec![Edit::Write("src/domain/probe.ts", extra.replace("\"@/schemas\"", "\"@/schemas/devicez\""))],
    );
    assert!(
        c.diagnostics.iter().any(|d| d.is_error() && d.message.contains("devicez")),
        "{:?}",
        c.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
    let (c, _) = s.step(
        "the missing module created",
        vec![Edit::Write("src/schemas/devicez.ts", "export { DEVICE_ID } from \"./devices\";\n".into())],
    );
    assert_eq!(c.manifest().contracts.len(), contracts + 1, "a created file makes the import resolve");

    let (c, _) = s.step("the module deleted again", vec![Edit::Delete("src/schemas/devicez.ts")]);
    assert_eq!(c.manifest().contracts.len(), contracts);

    let (c, _) = s.step("an unsaved buffer", vec![Edit::Overlay("src/domain/probe.ts", "export const nothing = 1;\n")]);
    assert_eq!(c.manifest().contracts.len(), contracts);
    let (c, _) = s.step("the buffer closed", vec![Edit::ClearOverlay("src/domain/probe.ts")]);
    assert!(c.error_count() > 0, "back to the file on disk, with its unresolvable import");

    let (c, _) = s.step("a contract file deleted", vec![Edit::Delete("src/domain/probe.ts")]);
    assert_eq!(observable(&c), observable(&first), "back where it started");
}

#[test]
fn editing_a_barrel_member_recompiles_only_the_files_that_use_its_values() {
    // A generated app with contracts in 60 files, every one importing zod schemas through the
    // `@/shared/zod` barrel (or straight from a member): each barrel search passes through the
    // first member, `shared_file`.
    let dir = tempfile::tempdir().unwrap();
    let root = agent_surface_compiler::paths::normalize(&std::fs::canonicalize(dir.path()).unwrap()).join("app");
    let opts = crate::gen::GenOptions { files: 400, inject: Some(60), ..Default::default() };
    let summary = crate::gen::generate(&root, &opts).unwrap();
    let rel = summary.shared_file.strip_prefix(&root).unwrap().to_string_lossy().to_string();
    let rel: &'static str = Box::leak(rel.into_boxed_str());
    let s = Script::new(&root);
    let (first, _) = s.step("first compile", vec![]);
    assert_eq!(first.error_count(), 0);
    assert_eq!(first.candidates, 60);
    // The files that use a value of the shared module: its feature's (`Billing0…`), and the
    // next feature's links, whose module imports its ids.
    let text = s.read(rel);
    let feature =
        text.lines().find_map(|l| l.strip_prefix("export const ")).unwrap().split("IdZ").next().unwrap().to_string();
    let next = first.manifest().contracts.len();
    let users = (0..first.files.len())
        .map(|i| &first.files[i])
        .filter(|p| {
            std::fs::read_to_string(p)
                .is_ok_and(|t| t.contains("@agent-surface/core") && (t.contains(&feature) || t.contains("Link")))
        })
        .count();
    assert!(users < 60 / 2, "{users} of 60 contract files use the shared module");

    let computed = s.reported.memo.computed();
    let (_, reused) =
        s.step("a comment added to the shared module", vec![Edit::Write(rel, format!("{text}// edited\n"))]);
    assert!(reused >= 60 - users, "{reused} results reused; only the {users} users of the module compile again");
    let recomputed = s.reported.memo.computed() - computed;
    assert!(recomputed < 60, "{recomputed} memo entries computed again");

    let (c, reused) =
        s.step("a value of the shared module changed", vec![Edit::Write(rel, text.replacen(".max(", ".max(7 + ", 1))]);
    assert!(reused >= 60 - users, "{reused} results reused");
    assert_eq!(c.manifest().contracts.len(), next);

    // An export added to the first member shadows a later member's: every search for that name
    // now finds the first member, and the files using it get its schema.
    let shadowed = text.lines().rev().find_map(|l| l.strip_prefix("export const ")).unwrap().split(' ').next().unwrap();
    let shadowing = format!("{text}\nexport const {shadowed}X = 1;\n");
    s.step("an unrelated export added", vec![Edit::Write(rel, shadowing)]);
    // A name some contract file imports through the barrel, declared by a later member.
    let name = first
        .files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .flat_map(|t| t.lines().map(str::to_string).collect::<Vec<_>>())
        .filter_map(|l| {
            l.strip_suffix(" } from \"@/shared/zod\";").map(|l| l.trim_start_matches("import { ").to_string())
        })
        .flat_map(|names| names.split(", ").map(str::to_string).collect::<Vec<_>>())
        .find(|n| !n.starts_with(&feature) && n.ends_with("FilterInput"))
        .expect("a barrel import of a later member's schema");
    let name = name.as_str();
    let (c, _) = s.step(
        "an export shadowing a later barrel member's",
        vec![Edit::Write(rel, format!("{text}\nexport const {name} = z.string().describe(\"shadowed\");\n"))],
    );
    assert!(c.manifest().to_pretty_json().contains("\"shadowed\""), "the shadowing schema is used");
    let (c, _) = s.step("the shadowing export removed", vec![Edit::Write(rel, text.clone())]);
    assert_eq!(observable(&c), observable(&first), "back where it started");
}

#[test]
fn a_reported_project_trusts_its_reports() {
    let dir = tempfile::tempdir().unwrap();
    let root = agent_surface_compiler::paths::normalize(&std::fs::canonicalize(dir.path()).unwrap());
    common::copy_dir(&common::example_app(), &root);
    let project = Arc::new(project_at(&root).unwrap());
    project.set_change_tracking(ChangeTracking::Reported);
    let before = compile_shared(project.clone()).unwrap();
    let file = root.join("src/schemas/devices.ts");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&file, text.replace("maxLength: 120", "maxLength: 80")).unwrap();
    // Not reported: the project does not read the file again (that is the point of the mode).
    let unreported = compile_shared(project.clone()).unwrap();
    assert_eq!(unreported.manifest(), before.manifest());
    assert_eq!(unreported.reused, unreported.candidates);
    project.file_changed(&file);
    let reported = compile_shared(project.clone()).unwrap();
    assert_ne!(reported.manifest(), before.manifest());
    // A lost change (a watcher overflow) makes it read everything again.
    std::fs::write(&file, text).unwrap();
    project.rescan();
    assert_eq!(compile_shared(project).unwrap().manifest(), before.manifest());
}

#[test]
fn a_did_you_mean_that_lists_a_folder_is_not_reused() {
    let dir = tempfile::tempdir().unwrap();
    let root = agent_surface_compiler::paths::normalize(&std::fs::canonicalize(dir.path()).unwrap());
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("src/a.ts"), "import { defineAgentComponentContract } from \"@agent-surface/core\";\nimport { D } from \"./constantz\";\nexport const c = defineAgentComponentContract({ type: \"a\", description: D });\n").unwrap();
    std::fs::write(root.join("src/constants.ts"), "export const D = \"d\";\n").unwrap();
    let project = Arc::new(project_at(&root).unwrap());
    let first = compile_shared(project.clone()).unwrap();
    assert!(first.diagnostics.iter().any(|d| d.help.as_deref().is_some_and(|h| h.contains("./constants"))));
    // The suggestion came from listing src/: a new file there could change it.
    assert_eq!(compile_shared(project).unwrap().reused, 0);
}

#[test]
fn files_outside_the_watched_folder_are_read_again_every_time() {
    // A monorepo: the app imports a sibling package through a `paths` alias. A watcher of the
    // app's folder never hears of that package's changes, so they are never trusted.
    let dir = tempfile::tempdir().unwrap();
    let base = agent_surface_compiler::paths::normalize(&std::fs::canonicalize(dir.path()).unwrap());
    let root = base.join("app");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(base.join("lib")).unwrap();
    std::fs::write(root.join("agent-surface.config.json"), r#"{ "paths": { "@lib/*": ["../lib/*"] } }"#).unwrap();
    std::fs::write(root.join("src/a.ts"), "import { defineAgentComponentContract } from \"@agent-surface/core\";\nimport { D } from \"@lib/text\";\nexport const c = defineAgentComponentContract({ type: \"a\", description: D });\n").unwrap();
    std::fs::write(base.join("lib/text.ts"), "export const D = \"first\";\n").unwrap();
    let project = Arc::new(project_at(&root).unwrap());
    project.set_change_tracking(ChangeTracking::Reported);
    let first = compile_shared(project.clone()).unwrap();
    assert_eq!(
        first.manifest().contracts[0].description(),
        "first",
        "{:?}",
        first.diagnostics.iter().map(|d| &d.message).collect::<Vec<_>>()
    );
    std::fs::write(base.join("lib/text.ts"), "export const D = \"second\";\n").unwrap();
    let second = compile_shared(project).unwrap();
    assert_eq!(second.manifest().contracts[0].description(), "second");
}
