//! The pipeline: discover → prefilter → parse → extract → evaluate → build → check → emit.
//! Files are processed in parallel (rayon); everything that leaves this module is sorted, so
//! the manifest and the diagnostics are identical for any thread count or file order.

use crate::cache::{FileOutcome, FileResult};
use crate::config::{Config, ConfigError};
use crate::contracts::{build_contract, CompiledContract};
use crate::diagnostics::{sort_diagnostics, Diagnostic};
use crate::disk_cache::DiskCache;
use crate::evaluate::Evaluator;
use crate::prefilter::Prefiltered;
use crate::project::{LoadError, Project};
use crate::rules;
use crate::source::Span;
use agent_surface_model::limits::AgentSurfaceLimits;
use agent_surface_model::manifest::{
    AssembledManifest, CapabilityContractManifest, ContractLocations, Generator, SourceLocation,
};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

pub const GENERATOR_NAME: &str = "agent-surface";
pub const GENERATOR_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Everything one compile produced.
pub struct Compilation {
    pub project: Arc<Project>,
    /// Files discovered (after include/exclude).
    pub files: Vec<PathBuf>,
    /// What the walk could not enter ("path: reason"): symlink loops, unreadable folders.
    pub skipped: Vec<String>,
    /// Files that passed the prefilter and were parsed as contract candidates.
    pub candidates: usize,
    /// Contracts that compiled cleanly, sorted by id (shared with the project's result cache).
    pub contracts: Vec<Arc<CompiledContract>>,
    /// Contracts (or files holding contracts) that failed to compile.
    pub failed: u32,
    pub diagnostics: Vec<Diagnostic>,
    /// Assembled on first use: an editor wants only the diagnostics.
    manifest: OnceLock<AssembledManifest>,
    pub elapsed: Duration,
    /// Candidate files whose result of an earlier compile was reused (their inputs unchanged).
    pub reused: usize,
    /// How the disk cache served this compile, when it had one.
    pub cache_stats: Option<crate::disk_cache::CacheStats>,
}

impl Compilation {
    /// The manifest of the contracts that compiled (incomplete when some failed).
    pub fn manifest(&self) -> &CapabilityContractManifest {
        self.assembled().manifest()
    }

    fn assembled(&self) -> &AssembledManifest {
        self.manifest.get_or_init(|| {
            AssembledManifest::from_shared(
                Generator { name: GENERATOR_NAME.into(), version: GENERATOR_VERSION.into() },
                self.contracts.iter().map(|c| c.hashed.clone()).collect(),
                self.failed,
            )
        })
    }

    pub fn with_cache_stats(mut self, stats: crate::disk_cache::CacheStats) -> Self {
        self.cache_stats = Some(stats);
        self
    }

    /// Where each contract of the manifest is written (the locations sidecar): the 1-based line
    /// and UTF-16 column of its macro's callee, in its file relative to the root. Not part of the
    /// manifest, so an edit that only moves a contract changes this and nothing else.
    pub fn locations(&self) -> ContractLocations {
        ContractLocations::new(
            self.assembled().manifest_hash(),
            self.contracts.iter().map(|c| (c.contract().id().to_string(), self.source_location(c))),
        )
    }

    /// Where one compiled contract is written.
    pub fn source_location(&self, c: &CompiledContract) -> SourceLocation {
        let file = self.project.db.get(c.file);
        let at = file.line_col(c.call.callee_span.lo);
        SourceLocation { file: file.rel.clone(), line: at.line, column: at.column }
    }

    /// The manifest's completeness (without building the manifest as a value).
    pub fn completeness(&self) -> &agent_surface_model::manifest::Completeness {
        self.assembled().completeness()
    }

    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }
    pub fn warning_count(&self) -> usize {
        self.diagnostics.len() - self.error_count()
    }
}

/// Compiles a project.
pub fn compile(project: Project) -> Result<Compilation, ConfigError> {
    compile_once(project, None)
}

/// Compiles a project with the results of an earlier compile kept in `cache` (`--cache-dir`):
/// contract files whose recorded inputs read the same again are neither parsed nor evaluated.
/// The caller saves the cache ([`DiskCache::save`]).
pub fn compile_cached(project: Project, cache: &DiskCache) -> Result<Compilation, ConfigError> {
    compile_once(project, Some(cache))
}

fn compile_once(project: Project, disk: Option<&DiskCache>) -> Result<Compilation, ConfigError> {
    // Compiled once: nothing will ask for its results again.
    project.results.disable();
    let c = compile_with(Arc::new(project), disk)?;
    // Nor for the evaluations and syntax trees behind them: the manifest is assembled without
    // them (peak memory), and they are freed on a thread of their own meanwhile.
    let held = (c.project.memo.clear(), c.project.release_modules());
    // Without a thread (none could be started), freed here.
    let _ = std::thread::Builder::new().name("agent-surface-free".into()).spawn(move || drop(held));
    Ok(c)
}

/// Compiles a long-lived project (server, watch, editor): files whose text did not change are
/// not parsed again, and contract files whose inputs did not change are not compiled again.
pub fn compile_shared(project: Arc<Project>) -> Result<Compilation, ConfigError> {
    compile_with(project, None)
}

fn compile_with(project: Arc<Project>, disk: Option<&DiskCache>) -> Result<Compilation, ConfigError> {
    let started = Instant::now();
    project.begin();
    let discovered = project.discovered()?;
    let limits = AgentSurfaceLimits::default();
    let results: Vec<FileOutcome> = match project.results.take_incremental(&discovered) {
        // Every change was reported: only the dirty files are looked at.
        Some((mut results, dirty)) => {
            let fresh: Vec<(usize, FileOutcome)> = dirty
                .par_iter()
                .filter_map(|p| {
                    discovered
                        .files
                        .binary_search_by(|f| crate::paths::path_bytes(f).cmp(crate::paths::path_bytes(p)))
                        .ok()
                })
                .map(|i| (i, file_result(&project, &discovered.files[i], &limits, disk)))
                .collect();
            for r in results.iter_mut().flatten() {
                r.1 = true;
            }
            for (i, r) in fresh {
                results[i] = r;
            }
            results
        }
        None => {
            let results = discovered.files.par_iter().map(|path| file_result(&project, path, &limits, disk)).collect();
            project.results.retain(&discovered.files);
            results
        }
    };
    let tracked = project.change_tracking() == crate::project::ChangeTracking::Reported;
    project.results.set_last(discovered.clone(), results.clone(), tracked);
    Ok(assemble(project, discovered.files.clone(), discovered.skipped.clone(), results, true, started))
}

/// The contracts of some files only (the Vite transform of one file, `check --stdin-filepath`):
/// per-contract rules and provenance, without the project-wide uniqueness rule.
pub fn compile_files(project: Arc<Project>, paths: &[PathBuf]) -> Compilation {
    let started = Instant::now();
    project.begin();
    let limits = AgentSurfaceLimits::default();
    let results = paths.iter().map(|p| file_result(&project, &crate::paths::normalize(p), &limits, None)).collect();
    assemble(project, paths.to_vec(), Vec::new(), results, false, started)
}

/// The result of one file: `None` when the prefilter skips it; else its result of an earlier
/// compile if its inputs are unchanged (`true`: reused, from this project or from `disk`), or a
/// new one.
fn file_result(project: &Project, path: &Path, limits: &AgentSurfaceLimits, disk: Option<&DiskCache>) -> FileOutcome {
    if !matches!(project.prefilter(path), Prefiltered::Candidate { .. }) {
        return None;
    }
    if let Some(cached) = project.results.reusable(path, |inputs| project.unchanged(inputs)) {
        return Some((cached, true));
    }
    if let Some(disk) = disk {
        if let Some(stored) = disk.restore(project, path) {
            if stored.candidate {
                disk.count(true);
            }
            return Some((Arc::new(stored), true));
        }
    }
    let (mut result, inputs) = crate::inputs::record(|| compile_file(project, path, limits));
    result.load_diagnostics = inputs.all_diagnostics();
    result.inputs = inputs;
    if let Some(disk) = disk {
        if result.candidate {
            disk.count(false);
        }
        disk.store(project, path, &result);
    }
    // A one-shot compile never asks whether a result can be reused.
    if project.results.disabled() {
        result.inputs = Default::default();
    }
    let result = Arc::new(result);
    if result.inputs.untracked {
        project.results.forget(path);
    } else {
        project.results.insert(path, result.clone());
    }
    Some((result, false))
}

/// Joins per-file results into a compilation: the uniqueness rule (`project_wide`), the
/// diagnostics of every module loaded, the manifest.
fn assemble(
    project: Arc<Project>,
    files: Vec<PathBuf>,
    skipped: Vec<String>,
    results: Vec<FileOutcome>,
    project_wide: bool,
    started: Instant,
) -> Compilation {
    let results: Vec<(Arc<FileResult>, bool)> = results.into_iter().flatten().collect();
    let mut contracts = Vec::new();
    let mut failed = 0;
    let mut diagnostics = Vec::new();
    let mut candidates = 0;
    let mut reused = 0;
    for (r, was_reused) in &results {
        contracts.extend(r.contracts.iter().cloned());
        failed += r.failed;
        diagnostics.extend(r.diagnostics.iter().cloned());
        // Two files that load the same broken module carry the same diagnostics: sorting
        // drops the repeats.
        diagnostics.extend(r.load_diagnostics.iter().cloned());
        candidates += usize::from(r.candidate);
        // Files that only import the core package (no contract) pass the prefilter too; they
        // are not candidates, so not counted here either.
        reused += usize::from(*was_reused && r.candidate);
    }
    if project_wide {
        // Cross-file rule: a duplicate keeps its first declaration (by path and position).
        contracts.sort_by_cached_key(|c| {
            let f = project.db.get(c.file);
            (c.contract().id().to_string(), f.rel.clone(), c.call.span.lo)
        });
        let (unique, duplicate_diags) = rules::uniqueness::check(contracts, &project.db);
        failed += duplicate_diags.len() as u32;
        diagnostics.extend(duplicate_diags);
        contracts = unique;
    }
    sort_diagnostics(&mut diagnostics, &project.db);
    Compilation {
        project,
        files,
        skipped,
        candidates,
        contracts,
        failed,
        diagnostics,
        manifest: OnceLock::new(),
        elapsed: started.elapsed(),
        reused,
        cache_stats: None,
    }
}

/// Compiles one candidate file, its constants from the project's memo; evaluated alone if the
/// memo cannot reproduce what evaluating alone gives (a cycle through a constant, say): the
/// results are the same either way.
fn compile_file(project: &Project, path: &Path, limits: &AgentSurfaceLimits) -> FileResult {
    match compile_file_with(project, path, limits, true) {
        Some(out) => out,
        None => {
            project.memo.note_fallback();
            compile_file_with(project, path, limits, false).expect("alone never diverges")
        }
    }
}

/// `None`: the memo diverged.
fn compile_file_with(project: &Project, path: &Path, limits: &AgentSurfaceLimits, memo: bool) -> Option<FileResult> {
    let mut out = FileResult::default();
    let file = match project.read(path) {
        Ok(f) => f,
        Err(LoadError::Unreadable { .. }) => {
            // Reported by load(), once. Whatever the file declares is unknown: the manifest
            // cannot claim to be complete.
            let _ = project.load(path);
            out.failed += 1;
            return Some(out);
        }
        Err(_) => return Some(out),
    };
    let declares = matches!(project.prefilter(path), Prefiltered::Candidate { declares: true });
    out.candidate = declares;
    let module = match project.load_own(path) {
        Ok(m) => m,
        Err(_) => {
            // The file mentions the core package but does not parse: whatever contracts it
            // declares are missing, so the manifest must say it is incomplete.
            out.failed += u32::from(declares);
            return Some(out);
        }
    };
    out.diagnostics.extend(rules::id_grammar::check_bind_calls(project, &module));
    let imports = rules::imports::check(&module.index);
    out.diagnostics.extend(imports.diagnostics);
    out.failed += imports.errors;
    if module.index.macro_calls.is_empty() {
        return Some(out);
    }
    let calls = crate::extract::find_calls(&module);
    let mut evaluator = if memo { Evaluator::new(project) } else { Evaluator::alone(project) };
    evaluator.home = Some(file.id);
    for (call_info, call) in module.index.macro_calls.iter().zip(calls.iter()) {
        let before = evaluator.diagnostics.len();
        let args = evaluator.eval_args(&module, call);
        if evaluator.diverged() {
            return None;
        }
        let mut diags: Vec<Diagnostic> = evaluator.diagnostics.drain(before..).collect();
        let built = build_contract(
            call_info.kind,
            call_info.span,
            call_info.callee_span,
            args,
            &evaluator.output_mode_schemas,
            &mut diags,
        );
        if let Some(built) = &built {
            diags.extend(rules::check_contract(built, limits, &project.db));
        }
        let clean = !diags.iter().any(|d| d.is_error());
        out.diagnostics.extend(diags);
        match built {
            Some(built) if clean => {
                out.contracts.push(Arc::new(CompiledContract::new(built, file.id, call_info.clone())))
            }
            _ => out.failed += 1,
        }
    }
    Some(out)
}

/// The manifest bytes as written to disk (written from the contracts' canonical texts).
pub fn manifest_text(c: &Compilation) -> String {
    c.assembled().to_pretty_json()
}

/// For a span, "file:line:column" (1-based, UTF-16 column).
pub fn location(project: &Project, span: Span) -> String {
    let f = project.db.get(span.file);
    let lc = f.line_col(span.lo);
    format!("{}:{}:{}", f.rel, lc.line, lc.column)
}

/// Builds a project from a root directory with its configuration.
pub fn project_at(root: &std::path::Path) -> Result<Project, ConfigError> {
    let root =
        std::path::absolute(root).map_err(|e| ConfigError { file: root.to_path_buf(), message: e.to_string() })?;
    let root = crate::paths::normalize(&root);
    Ok(Project::new(Config::load(&root)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn an_unchanged_file_is_never_parsed_twice() {
        let dir = tempfile::tempdir().unwrap();
        let root = crate::paths::normalize(&std::fs::canonicalize(dir.path()).unwrap());
        let contract = "import { defineAgentComponentContract } from '@agent-surface/core';\nimport { D } from './d';\nexport const c = defineAgentComponentContract({ type: 'a', description: D });\n";
        std::fs::write(root.join("c.ts"), contract).unwrap();
        std::fs::write(root.join("d.ts"), "export const D = 'desc';\n").unwrap();
        let project = Arc::new(Project::new(Config::load(&root).unwrap()));
        let first = compile_shared(project.clone()).unwrap();
        assert_eq!(project.parse_count(), 2);
        let second = compile_shared(project.clone()).unwrap();
        assert_eq!(project.parse_count(), 2, "nothing changed: nothing parsed");
        assert_eq!(first.manifest(), second.manifest());
        std::fs::write(root.join("d.ts"), "export const D = 'changed';\n").unwrap();
        let third = compile_shared(project.clone()).unwrap();
        assert_eq!(project.parse_count(), 3, "only the changed file is parsed again");
        assert_eq!(third.manifest().contracts[0].description(), "changed");
        // An overlay (an unsaved buffer) replaces the file on disk.
        project.set_overlay(root.join("d.ts"), Arc::from("export const D = 'unsaved';\n"));
        let fourth = compile_shared(project.clone()).unwrap();
        assert_eq!(fourth.manifest().contracts[0].description(), "unsaved");
        std::fs::remove_file(root.join("c.ts")).unwrap();
        project.forget(&root.join("c.ts"));
        let fifth = compile_shared(project).unwrap();
        assert!(fifth.manifest().contracts.is_empty(), "a deleted file's contracts are gone");
    }
}
