//! The disk cache (`--cache-dir`): a warm run of an unchanged project parses nothing and
//! writes what a cold one writes; an edit recompiles exactly the files that read what changed.
//! (Every fixture's outputs through the cache are compared with the goldens in equivalence.rs;
//! the CLI's report of the cache and a bad cache are tests/it/cache_cli.rs at the root.)

use crate::common::{copy_dir, example_app};
use crate::gen;
use agent_surface_compiler::compile::{compile, compile_cached, manifest_text, Compilation};
use agent_surface_compiler::config::Config;
use agent_surface_compiler::disk_cache::{CacheStats, DiskCache};
use agent_surface_compiler::paths::normalize;
use agent_surface_compiler::project::Project;
use agent_surface_compiler::render::json;
use std::path::{Path, PathBuf};

fn scratch_root(dir: &tempfile::TempDir) -> PathBuf {
    normalize(&std::fs::canonicalize(dir.path()).unwrap()).join("app")
}

/// A compile of `root` through the cache in `cache_dir`: its outputs, how the cache served it,
/// and how many modules it parsed.
fn cached(root: &Path, cache_dir: &Path) -> ((String, String), CacheStats, usize) {
    let project = Project::new(Config::load(root).expect("config"));
    let (cache, note) = DiskCache::open(cache_dir, &project).expect("cache folder");
    assert_eq!(note, None, "the cache reads back");
    let c = compile_cached(project, &cache).expect("compile");
    cache.save().expect("save");
    (outputs(&c), cache.stats(), c.project.parse_count())
}

fn fresh(root: &Path) -> (String, String) {
    outputs(&compile(Project::new(Config::load(root).expect("config"))).expect("compile"))
}

fn outputs(c: &Compilation) -> (String, String) {
    (manifest_text(c), json::render(&c.diagnostics, &c.project.db))
}

#[test]
fn a_warm_run_of_an_unchanged_project_parses_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = scratch_root(&dir);
    copy_dir(&example_app(), &root);
    let cache = dir.path().join("cache");
    let (cold, cold_stats, cold_parses) = cached(&root, &cache);
    assert_eq!(cold, fresh(&root));
    assert_eq!(cold_stats.hits, 0);
    assert!(cold_stats.misses >= 4 && cold_parses >= cold_stats.misses, "{cold_stats:?}, {cold_parses} parsed");
    let (warm, warm_stats, warm_parses) = cached(&root, &cache);
    assert_eq!(warm, cold);
    assert_eq!(warm_stats, CacheStats { hits: cold_stats.misses, misses: 0 });
    assert_eq!(warm_parses, 0, "every contract file came from the cache");
}

#[test]
fn an_edit_recompiles_only_the_files_that_read_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = scratch_root(&dir);
    let opts = gen::GenOptions { files: 400, inject: Some(60), ..Default::default() };
    let s = gen::generate(&root, &opts).expect("generate");
    let cache = dir.path().join("cache");
    let (_, first, _) = cached(&root, &cache);
    assert!(first.misses >= 60, "{first:?}");

    // A comment in one contract file: that file only.
    let text = std::fs::read_to_string(&s.contract_file).unwrap();
    std::fs::write(&s.contract_file, format!("{text}// edited\n")).unwrap();
    let (out, stats, _) = cached(&root, &cache);
    assert_eq!(stats, CacheStats { hits: first.misses - 1, misses: 1 });
    assert_eq!(out, fresh(&root));

    // The shared module every barrel lookup passes through, given a new member: every file
    // whose lookups read it, and the output is a fresh compile's.
    let shared = std::fs::read_to_string(&s.shared_file).unwrap();
    std::fs::write(&s.shared_file, format!("{shared}export const addedForTheTest = 1;\n")).unwrap();
    let (out, stats, _) = cached(&root, &cache);
    assert!(stats.misses > 1 && stats.hits > 0, "{stats:?}");
    assert_eq!(out, fresh(&root));

    // An import that did not resolve, until its file is created.
    let later = s.contract_file.with_file_name("later-contract.ts");
    std::fs::write(
        &later,
        "import { defineAgentComponentContract } from '@agent-surface/core';\nimport { LATER } from './later';\n\nexport const laterContract = defineAgentComponentContract({ type: 'later.panel', description: LATER });\n",
    )
    .unwrap();
    let (out, stats, _) = cached(&root, &cache);
    assert_eq!(out, fresh(&root));
    assert!(out.1.contains("AS0011"), "the import does not resolve yet: {}", out.1);
    assert_eq!(stats.misses, 1, "{stats:?}");
    std::fs::write(later.with_file_name("later.ts"), "export const LATER = 'Appears later.';\n").unwrap();
    let (out, stats, _) = cached(&root, &cache);
    assert_eq!(out, fresh(&root));
    assert!(out.0.contains("Appears later."), "the contract compiles now");
    assert_eq!(stats.misses, 1, "{stats:?}");

    // Removing a contract file drops its entry; its contracts leave the manifest.
    std::fs::remove_file(&s.check_file).unwrap();
    let (out, _, _) = cached(&root, &cache);
    assert_eq!(out, fresh(&root));
}

#[test]
fn a_changed_configuration_starts_cold() {
    let dir = tempfile::tempdir().unwrap();
    let root = scratch_root(&dir);
    copy_dir(&example_app(), &root);
    let cache = dir.path().join("cache");
    cached(&root, &cache);
    let config = root.join("agent-surface.config.json");
    let before = std::fs::read_to_string(&config).unwrap_or_else(|_| "{}".into());
    let mut value: serde_json::Value = serde_json::from_str(&before).unwrap();
    value["exclude"] = serde_json::json!(["**/*.stories.tsx"]);
    std::fs::write(&config, value.to_string()).unwrap();
    let (out, stats, _) = cached(&root, &cache);
    assert_eq!(stats.hits, 0, "{stats:?}");
    assert_eq!(out, fresh(&root));
}
