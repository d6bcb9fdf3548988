//! `compile --watch`: one long-lived project, recompiled after every change (debounced), the
//! manifest rewritten only when its bytes change, one line per rebuild. The watcher reports
//! every change to the project ([`ChangeTracking::Reported`]), so a rebuild reads only the
//! files that changed, walks the root only after files were added or removed, and compiles
//! again only the contract files that read a changed file.
//!
//! [`ChangeTracking::Reported`]: agent_surface_compiler::project::ChangeTracking::Reported

use agent_surface_compiler::compile::{compile_shared, manifest_text, project_at};
use agent_surface_compiler::emit::{write_if_changed, WriteOutcome};
use agent_surface_compiler::project::changes::{fs_changes, report, FsChange};
use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Paths whose changes cannot affect the manifest.
fn ignored(path: &Path, out: &Path) -> bool {
    path == out
        || path == agent_surface_compiler::emit::locations_path(out)
        || path.components().any(|c| {
            let s = c.as_os_str();
            s == "node_modules" || s == ".git"
        })
        || path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(".tmp"))
}

/// What `compile --watch` needs of the command line.
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// The project root.
    pub root: PathBuf,
    /// The manifest path (default: the configuration's `output`).
    pub out: Option<PathBuf>,
}

pub fn run(args: &WatchOptions) -> ExitCode {
    if !args.root.is_dir() {
        eprintln!("error: the project root {} is not a folder", args.root.display());
        return ExitCode::from(2);
    }
    let mut project = match project_at(&args.root) {
        Ok(p) => watched(p),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let out: PathBuf = match &args.out {
        Some(p) => std::path::absolute(p).unwrap_or_else(|_| p.clone()),
        None => project.config.output.clone(),
    };
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = match notify::recommended_watcher(tx) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: cannot watch files: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = watcher.watch(&project.config.root, RecursiveMode::Recursive) {
        eprintln!("error: cannot watch {}: {e}", project.config.root.display());
        return ExitCode::from(2);
    }
    rebuild(&project, &out, "initial build");
    loop {
        let Ok(first) = rx.recv() else { return ExitCode::SUCCESS };
        let mut events = vec![first];
        // Debounce: editors write in bursts (temp file, rename, chmod).
        let deadline = Instant::now() + Duration::from_millis(60);
        while let Ok(e) = rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            events.push(e);
        }
        let mut changed: Vec<PathBuf> = Vec::new();
        let mut config_changed = false;
        let mut structure_changed = false;
        for change in events.into_iter().flat_map(fs_changes) {
            if let FsChange::Path { path, .. } = &change {
                if ignored(path, &out) {
                    continue;
                }
            }
            let reported = report(&project, &change);
            structure_changed |= reported.walk;
            let Some(path) = reported.file else { continue };
            config_changed |= !agent_surface_compiler::discover::is_source_file(&path);
            if !changed.contains(&path) {
                changed.push(path);
            }
        }
        if changed.is_empty() && structure_changed {
            changed.push(project.config.root.clone());
        }
        if changed.is_empty() {
            continue;
        }
        if config_changed {
            match project_at(&args.root) {
                Ok(p) => project = watched(p),
                Err(e) => {
                    eprintln!("error: {e}");
                    continue;
                }
            }
        }
        let what = match changed.as_slice() {
            [one] if *one == project.config.root => "files added or removed".to_string(),
            [one] => project.rel(one),
            many => format!("{} files", many.len()),
        };
        rebuild(&project, &out, &what);
    }
}

/// The watcher reports every change, so a rebuild reads only what changed.
fn watched(project: agent_surface_compiler::project::Project) -> Arc<agent_surface_compiler::project::Project> {
    project.set_change_tracking(agent_surface_compiler::project::ChangeTracking::Reported);
    Arc::new(project)
}

fn rebuild(project: &Arc<agent_surface_compiler::project::Project>, out: &Path, why: &str) {
    let before = project.parse_count();
    let c = match compile_shared(project.clone()) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return;
        }
    };
    let parsed = project.parse_count() - before;
    if !c.diagnostics.is_empty() {
        let text = agent_surface_compiler::render::pretty::render(
            &c.diagnostics,
            &c.project.db,
            agent_surface_compiler::render::pretty::PrettyOptions { color: false, width: 100 },
        );
        eprint!("{text}");
    }
    let written = match write_if_changed(out, &manifest_text(&c)) {
        Ok(WriteOutcome::Written) => "written",
        Ok(WriteOutcome::Unchanged) => "unchanged",
        Err(e) => {
            eprintln!("error: cannot write the manifest {}: {e}", out.display());
            return;
        }
    };
    if let Err(e) = agent_surface_compiler::emit::write_locations(out, &c.locations()) {
        eprintln!("warning: cannot write the contract locations beside {}: {e}", out.display());
    }
    let status = if c.completeness().status == agent_surface_model::manifest::CompletenessStatus::Complete {
        "complete"
    } else {
        "incomplete"
    };
    eprintln!(
        "[{why}] {} contracts, {} errors, {} warnings, {parsed} parsed in {} ms; manifest {written} ({status})",
        c.contracts.len(),
        c.error_count(),
        c.warning_count(),
        c.elapsed.as_millis()
    );
}
