//! The project: configuration, the files read so far, the module loader, and what a long-lived
//! project carries from one compile to the next. Every module is read and parsed at most once
//! per compile, whichever thread asks first; the others wait for that result. Modules that a
//! contract imports are loaded on demand even when the prefilter skipped them (a schema
//! constant may live in a file that never mentions `@agent-surface/core`).
//!
//! Every file-system access of the compiler goes through here (`prefilter`, `read`, `load`,
//! `resolve`) and is noted as an input of the file being compiled ([`crate::inputs`]), so its
//! result can be reused while those inputs stay the same.
//!
//! The loader (`loader`: read, prefilter, parse, once each) and the resolver (`resolve`: import
//! specifiers to files) are `impl Project` blocks of their own; [`changes`] turns file-system
//! events into what a project needs to hear.

pub mod changes;
mod loader;
mod resolve;

use crate::config::{Config, ConfigError};
use crate::diagnostics::Diagnostic;
use crate::discover::Discovered;
use crate::extract::ModuleInfo;
use crate::inputs::{Input, Inputs};
use crate::paths::normalize;
use crate::prefilter::Prefiltered;
use crate::source::{path_key_bytes, relative_path, PathKey, PathMap, SourceDb, SourceFile};
use loader::file_id_of;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

/// Why a module could not be loaded (its diagnostics travel with the cached result).
#[derive(Clone, Debug)]
pub enum LoadError {
    NotFound,
    Unreadable { file: Arc<SourceFile>, reason: String },
    Syntax { file: Arc<SourceFile> },
}

impl LoadError {
    /// The file entry the failure is about (none for a missing file).
    pub fn file(&self) -> Option<&Arc<SourceFile>> {
        match self {
            LoadError::NotFound => None,
            LoadError::Unreadable { file, .. } | LoadError::Syntax { file } => Some(file),
        }
    }
}

/// A load result with the diagnostics reading and parsing produced.
#[derive(Clone, Debug)]
struct Loaded {
    result: Result<Arc<ModuleInfo>, LoadError>,
    diagnostics: Vec<Diagnostic>,
}

type Slot = Arc<OnceLock<Loaded>>;

/// How a long-lived project learns what changed between two compiles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeTracking {
    /// Nobody reports changes: every compile walks the root and reads every file again. Results
    /// of contract files are still reused once their text and every input they read are found
    /// unchanged. One-shot commands and `serve` (whose client reports only some changes).
    Rescan,
    /// The owner reports every change ([`Project::file_changed`],
    /// [`Project::files_added_or_removed`], [`Project::rescan`]): a compile reads again only
    /// the files reported changed, and walks the root again only after files were added or
    /// removed. `compile --watch` and the language server, which watch the file system.
    Reported,
}

/// Per-compile memo: each file is read once per compile, each module loaded once, each import
/// specifier resolved once per folder (the file system is probed once per compile, not once
/// per lookup: barrels are searched for every name they re-export). Under
/// [`ChangeTracking::Reported`] reads and resolutions carry over to the next compile, minus
/// what was reported changed.
#[derive(Default)]
struct Session {
    files: PathMap<Result<Arc<SourceFile>, LoadError>>,
    prefiltered: PathMap<Prefiltered>,
    slots: PathMap<Slot>,
    resolved: HashMap<(PathKey, usize, String), Option<PathBuf>, rustc_hash::FxBuildHasher>,
    /// `export *` lookups: (barrel, name) → the module behind it that declares `name`, and the
    /// inputs of that search (a file that reuses the answer depends on them too).
    star_exports: HashMap<(PathKey, String), StarExport, rustc_hash::FxBuildHasher>,
    /// Each module's `export *` targets, resolved and loaded once per compile for every search
    /// that passes through it, with what that read.
    star_targets: PathMap<StarTargets>,
}

/// A module's `export *` targets in source order, each resolved and loaded when a search first
/// reaches it (`None`: it does not resolve or load), with what that read.
pub(crate) type StarTargets = Arc<Vec<OnceLock<(Option<(PathBuf, Arc<ModuleInfo>)>, Arc<Inputs>)>>>;

/// What an `export *` search found, and the inputs it read.
pub(crate) type StarExport = (Option<PathBuf>, Arc<Inputs>);

/// Changes reported since the last compile, and the walk they invalidate.
struct Tracking {
    mode: ChangeTracking,
    changed: HashSet<PathBuf>,
    /// Walk again and resolve imports again: files were added or removed (or nothing is known).
    rescan: bool,
    discovered: Option<Arc<Discovered>>,
}

pub struct Project {
    pub config: Config,
    pub db: SourceDb,
    session: Mutex<Session>,
    tracking: Mutex<Tracking>,
    /// Parsed modules across compiles, by path and content hash: an unchanged file is never
    /// parsed twice.
    cache: Mutex<PathMap<(u64, Loaded)>>,
    /// Compile results of contract files across compiles, with their inputs.
    pub(crate) results: crate::cache::ResultCache,
    /// Unsaved buffers (stdin, editors, the Vite transform) that replace the file on disk.
    overlays: std::sync::RwLock<HashMap<PathBuf, Arc<str>>>,
    parses: AtomicUsize,
    /// What evaluating each constant did, shared by every file (and kept across compiles while
    /// what it read is unchanged).
    pub memo: crate::memo::Memo,
}

impl Project {
    pub fn new(config: Config) -> Self {
        Project {
            config,
            db: SourceDb::new(),
            session: Mutex::default(),
            tracking: Mutex::new(Tracking {
                mode: ChangeTracking::Rescan,
                changed: HashSet::new(),
                rescan: true,
                discovered: None,
            }),
            cache: Mutex::default(),
            results: Default::default(),
            overlays: Default::default(),
            parses: Default::default(),
            memo: Default::default(),
        }
    }

    fn session(&self) -> MutexGuard<'_, Session> {
        self.session.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn tracking(&self) -> MutexGuard<'_, Tracking> {
        self.tracking.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// From now on the owner reports every change (see [`ChangeTracking`]).
    pub fn set_change_tracking(&self, mode: ChangeTracking) {
        let mut t = self.tracking();
        t.mode = mode;
        t.rescan = true;
    }

    pub fn change_tracking(&self) -> ChangeTracking {
        self.tracking().mode
    }

    /// The text of `path` may have changed.
    pub fn file_changed(&self, path: &Path) {
        self.tracking().changed.insert(normalize(path));
    }

    /// Files or folders were created, deleted or renamed: walk and resolve again.
    pub fn files_added_or_removed(&self) {
        self.tracking().rescan = true;
    }

    /// Changes were lost (a watcher overflowed): read everything again once.
    pub fn rescan(&self) {
        let mut t = self.tracking();
        t.rescan = true;
        // Handled by `begin` as "every file changed".
        t.changed.insert(PathBuf::new());
    }

    /// Uses `text` instead of the file at `path` (until [`Project::clear_overlay`]).
    pub fn set_overlay(&self, path: PathBuf, text: Arc<str>) {
        let path = normalize(&path);
        self.overlays.write().unwrap_or_else(|e| e.into_inner()).insert(path.clone(), text);
        self.overlay_changed(&path);
    }

    pub fn clear_overlay(&self, path: &Path) {
        let path = normalize(path);
        let removed = self.overlays.write().unwrap_or_else(|e| e.into_inner()).remove(&path).is_some();
        if removed {
            self.overlay_changed(&path);
        }
    }

    fn overlay_changed(&self, path: &Path) {
        self.file_changed(path);
        // A buffer without a file on disk makes an import resolvable (or no longer).
        if !path.is_file() {
            self.files_added_or_removed();
        }
    }

    /// Every unsaved buffer, by path.
    pub fn overlays(&self) -> Vec<(PathBuf, Arc<str>)> {
        self.overlays.read().unwrap_or_else(|e| e.into_inner()).iter().map(|(p, t)| (p.clone(), t.clone())).collect()
    }

    fn overlay(&self, path: &Path) -> Option<Arc<str>> {
        self.overlays.read().unwrap_or_else(|e| e.into_inner()).get(path).cloned()
    }

    /// Starts a compile: under [`ChangeTracking::Rescan`] every file is read afresh (once
    /// each); under [`ChangeTracking::Reported`] only the files reported changed. Parsed
    /// modules whose text did not change are reused either way.
    pub fn begin(&self) {
        self.memo.begin();
        let mut t = self.tracking();
        let mut s = self.session();
        s.slots.clear();
        s.star_exports.clear();
        s.star_targets.clear();
        let everything = t.mode == ChangeTracking::Rescan || t.changed.contains(Path::new(""));
        if everything {
            s.files.clear();
            s.prefiltered.clear();
            t.changed.clear();
        } else {
            // Files outside the watched folder (a `paths` alias into a sibling package) change
            // unreported: they are read again every time.
            let unwatched: Vec<PathBuf> =
                s.files.keys().filter(|p| !self.is_watched(&p.0)).map(|p| p.0.clone()).collect();
            t.changed.extend(unwatched);
            for p in &t.changed {
                s.files.remove(path_key_bytes(p));
                s.prefiltered.remove(path_key_bytes(p));
            }
            self.results.files_changed(&t.changed);
            t.changed.clear();
        }
        if everything || t.rescan {
            s.resolved.clear();
            t.discovered = None;
            t.rescan = false;
            // Imports may resolve elsewhere now: every result checks its inputs again.
            self.results.distrust_all();
        }
    }

    /// Whether a watcher of the project root reports changes of `path` (`compile --watch` and
    /// the language server skip `node_modules` and `.git`).
    fn is_watched(&self, path: &Path) -> bool {
        path.starts_with(&self.config.root)
            && !path.components().any(|c| c.as_os_str() == "node_modules" || c.as_os_str() == ".git")
    }

    /// The project's files: the last walk's while no file was added or removed, else a new walk.
    pub fn discovered(&self) -> Result<Arc<Discovered>, ConfigError> {
        if let Some(d) = self.tracking().discovered.clone() {
            return Ok(d);
        }
        let (files, skipped) = crate::discover::discover_with_skipped(&self.config)?;
        let d = Arc::new(Discovered { files, skipped });
        let mut t = self.tracking();
        // A change reported during the walk invalidates it (for the next compile).
        if !t.rescan {
            t.discovered = Some(d.clone());
        }
        Ok(d)
    }

    /// Forgets every parsed module (a one-shot compile, done evaluating): a later load parses
    /// again. What they held is returned, to be dropped wherever that costs least.
    pub fn release_modules(&self) -> impl Send {
        let mut s = self.session();
        let held =
            (std::mem::take(&mut s.slots), std::mem::take(&mut s.star_exports), std::mem::take(&mut s.star_targets));
        drop(s);
        (held, std::mem::take(&mut *self.cache.lock().unwrap_or_else(|e| e.into_inner())))
    }

    /// Drops cached modules of files that were deleted.
    pub fn forget(&self, path: &Path) {
        let path = normalize(path);
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).remove(path_key_bytes(&path));
        self.results.forget(&path);
        self.db.forget(&path);
        self.file_changed(&path);
        self.files_added_or_removed();
    }

    /// How many files were parsed since the project was created (tests, benchmarks).
    pub fn parse_count(&self) -> usize {
        self.parses.load(Ordering::Relaxed)
    }

    pub fn rel(&self, path: &Path) -> String {
        relative_path(&self.config.root, path)
    }

    /// Whether every input is still what it was: the same text for every file read, the same
    /// answer for every import resolved.
    pub fn unchanged(&self, inputs: &Inputs) -> bool {
        if inputs.untracked {
            return false;
        }
        // What this compile already read or resolved is compared under one lock; the rest is
        // read or resolved (outside it) afterwards. Inputs are normalized paths already.
        let mut pending = Vec::new();
        let known_same = {
            let s = self.session();
            inputs.all(|input| {
                let same = match input {
                    Input::Read { path, file } | Input::Load { path, file } => {
                        s.files.get(path_key_bytes(path)).map(|r| file_id_of(r) == *file)
                    }
                    Input::Resolve { dir, scope, specifier, found } => {
                        s.resolved.get(&(PathKey::new(dir), *scope, specifier.clone())).map(|r| r == found)
                    }
                    Input::StarExport { barrel, name, found } => {
                        s.star_exports.get(&(PathKey::new(barrel), name.clone())).map(|r| r.0 == *found)
                    }
                };
                if same.is_none() {
                    pending.push(input);
                }
                same != Some(false)
            })
        };
        if !known_same {
            return false;
        }
        pending.into_iter().all(|input| match input {
            Input::Read { path, file } | Input::Load { path, file } => file_id_of(&self.read(path)) == *file,
            Input::Resolve { dir, scope, specifier, found } => self.resolve_in(dir, *scope, specifier) == *found,
            Input::StarExport { barrel, name, found } => self.star_export_now(barrel, name) == *found,
        })
    }
}
