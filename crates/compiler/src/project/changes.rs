//! File-system changes as a project needs to hear them: what `watch`, `serve` and the language
//! server all feed a [`Project`] after a watcher event.

use crate::project::Project;
use std::path::PathBuf;

/// A source file, or part of the project's configuration: `agent-surface.config.json`,
/// `package.json` or any `tsconfig*.json` at the root (create-vite's `tsconfig.app.json`), and
/// every file its tsconfig chain read (an `extends` target, a referenced project elsewhere).
fn relevant(project: &Project, path: &std::path::Path) -> bool {
    crate::discover::is_source_file(path) || project.config.is_input(path)
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
pub fn report(project: &Project, change: &FsChange) -> Reported {
    let (path, structural) = match change {
        FsChange::Rescan => {
            project.rescan();
            return Reported { file: None, walk: true };
        }
        FsChange::Path { path, structural } => (path, *structural),
    };
    let relevant_file = relevant(project, path);
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
