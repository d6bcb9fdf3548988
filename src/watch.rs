//! `compile --watch`: one long-lived project, recompiled after every change (debounced), the
//! manifest rewritten only when its bytes change, one line per rebuild. The watcher reports
//! every change to the project ([`ChangeTracking::Reported`]), so a rebuild reads only the
//! files that changed, walks the root only after files were added or removed, and compiles
//! again only the contract files that read a changed file.
//!
//! [`ChangeTracking::Reported`]: crate::project::ChangeTracking::Reported

use crate::cli::CompileArgs;
use crate::compile::{compile_shared, manifest_text, project_at};
use crate::emit::{write_if_changed, WriteOutcome};
use notify::{RecursiveMode, Watcher};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Paths whose changes cannot affect the manifest.
fn ignored(path: &Path, out: &Path) -> bool {
    path == out
        || path.components().any(|c| {
            let s = c.as_os_str();
            s == "node_modules" || s == ".git"
        })
        || path.file_name().is_some_and(|n| n.to_string_lossy().ends_with(".tmp"))
}

fn relevant(path: &Path) -> bool {
    crate::discover::is_source_file(path)
        || path
            .file_name()
            .is_some_and(|n| n == "tsconfig.json" || n == "package.json" || n == crate::config::CONFIG_FILE)
}

/// One file-system change, as a project needs to hear it.
#[derive(Debug)]
pub enum FsChange {
    /// Events were lost (the watcher overflowed or failed): read everything again.
    Rescan,
    /// `path` changed; `structural`: it was created, deleted or renamed (a file or a folder).
    Path { path: PathBuf, structural: bool },
}

/// The changes of one watcher event. Access events (our own reads) are none.
pub fn fs_changes(event: notify::Result<notify::Event>) -> Vec<FsChange> {
    let e = match event {
        Ok(e) => e,
        Err(err) => {
            eprintln!("warning: file watching: {err}; rescanning the project");
            return vec![FsChange::Rescan];
        }
    };
    let mut out = Vec::new();
    if e.need_rescan() {
        out.push(FsChange::Rescan);
    }
    if matches!(e.kind, notify::EventKind::Access(_) | notify::EventKind::Other) {
        return out;
    }
    use notify::event::ModifyKind;
    let structural = matches!(
        e.kind,
        notify::EventKind::Create(_)
            | notify::EventKind::Remove(_)
            | notify::EventKind::Modify(ModifyKind::Name(_))
            | notify::EventKind::Any
    );
    out.extend(e.paths.into_iter().map(|path| FsChange::Path { path, structural }));
    out
}

/// What a change meant for a project.
#[derive(Debug, Default)]
pub struct Reported {
    /// The source or configuration file that changed (its change needs a rebuild).
    pub file: Option<PathBuf>,
    /// The project walks again: files or folders were added, removed or renamed, or events
    /// were lost.
    pub walk: bool,
}

/// Tells `project` about a change.
pub fn report(project: &crate::project::Project, change: &FsChange) -> Reported {
    let (path, structural) = match change {
        FsChange::Rescan => {
            project.rescan();
            return Reported { file: None, walk: true };
        }
        FsChange::Path { path, structural } => (path, *structural),
    };
    let relevant_file = relevant(path);
    // A folder's creation, deletion or rename names no file (and a deleted folder cannot be
    // asked whether it was one: no extension is taken to mean a folder).
    let walk = structural && (relevant_file || path.is_dir() || path.extension().is_none());
    if walk {
        project.files_added_or_removed();
    }
    if !relevant_file {
        return Reported { file: None, walk };
    }
    if !path.exists() {
        project.forget(path);
    }
    project.file_changed(path);
    Reported { file: Some(path.clone()), walk }
}

pub fn run(args: &CompileArgs) -> ExitCode {
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
            config_changed |= !crate::discover::is_source_file(&path);
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
fn watched(project: crate::project::Project) -> Arc<crate::project::Project> {
    project.set_change_tracking(crate::project::ChangeTracking::Reported);
    Arc::new(project)
}

fn rebuild(project: &Arc<crate::project::Project>, out: &Path, why: &str) {
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
        let text = crate::render::pretty::render(
            &c.diagnostics,
            &c.project.db,
            crate::render::pretty::PrettyOptions { color: false, width: 100 },
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
    let status = if c.manifest().completeness.status == agent_surface_runtime::manifest::CompletenessStatus::Complete {
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
