//! The project: configuration, the files read so far, the module loader, and what a long-lived
//! project carries from one compile to the next. Every module is read and parsed at most once
//! per compile, whichever thread asks first; the others wait for that result. Modules that a
//! contract imports are loaded on demand even when the prefilter skipped them (a schema
//! constant may live in a file that never mentions `@agent-surface/core`).
//!
//! Every file-system access of the compiler goes through here (`prefilter`, `read`, `load`,
//! `resolve`) and is noted as an input of the file being compiled ([`crate::inputs`]), so its
//! result can be reused while those inputs stay the same.

use crate::config::{Config, ConfigError};
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::{index_module, ModuleIndex};
use crate::inputs::{self, Input, Inputs};
use crate::source::{path_key_bytes, relative_path, FileId, PathKey, PathMap, SourceDb, SourceFile, Span};
use std::collections::{HashMap, HashSet};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use swc_ecma_ast::Module;

/// A parsed module and its index.
#[derive(Debug)]
pub struct ModuleInfo {
    pub file: Arc<SourceFile>,
    pub module: Module,
    pub index: ModuleIndex,
}

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

/// What the byte prefilter found in a file's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prefiltered {
    /// The file does not exist (any more).
    Missing,
    /// Valid UTF-8 that mentions neither the core package nor `instanceId`: it cannot declare
    /// a contract or bind one, so it is not parsed (nor given a file entry).
    Skipped,
    /// It must be compiled: it mentions the core package (`declares`) or `instanceId`, or it
    /// cannot be read as text (which [`Project::load`] reports).
    Candidate { declares: bool },
}

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
    resolved: HashMap<(PathKey, String), Option<PathBuf>, rustc_hash::FxBuildHasher>,
    /// `export *` lookups: (barrel, name) → the module behind it that declares `name`, and the
    /// inputs of that search (a file that reuses the answer depends on them too).
    star_exports: HashMap<(PathKey, String), (Option<PathBuf>, Arc<Inputs>), rustc_hash::FxBuildHasher>,
}

/// Changes reported since the last compile, and the walk they invalidate.
struct Tracking {
    mode: ChangeTracking,
    changed: HashSet<PathBuf>,
    /// Walk again and resolve imports again: files were added or removed (or nothing is known).
    rescan: bool,
    discovered: Option<Arc<Discovered>>,
}

/// The project's files, as the last walk found them.
#[derive(Debug, Default)]
pub struct Discovered {
    pub files: Vec<PathBuf>,
    /// What the walk could not enter ("path: reason").
    pub skipped: Vec<String>,
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
    pub(crate) results: crate::compile::ResultCache,
    /// Unsaved buffers (stdin, editors, the Vite transform) that replace the file on disk.
    overlays: std::sync::RwLock<HashMap<PathBuf, Arc<str>>>,
    parses: AtomicUsize,
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
        let mut t = self.tracking();
        let mut s = self.session();
        s.slots.clear();
        s.star_exports.clear();
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

    /// The raw text of a file: the overlay, else the disk.
    fn read_raw(&self, path: &Path) -> std::io::Result<Arc<[u8]>> {
        match self.overlay(path) {
            Some(text) => Ok(Arc::from(text.as_bytes())),
            None => std::fs::read(path).map(Arc::from),
        }
    }

    /// The byte prefilter, once per file and compile (and across compiles while the file is
    /// not reported changed): only candidates get a file entry (a line table and a hash) and
    /// are parsed.
    pub fn prefilter(&self, path: &Path) -> Prefiltered {
        let path = normalize(path);
        if let Some(p) = self.session().prefiltered.get(path_key_bytes(&path)) {
            return *p;
        }
        let found = match self.read_raw(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Prefiltered::Missing,
            Err(_) => Prefiltered::Candidate { declares: false },
            Ok(bytes) => {
                let declares = crate::compile::mentions_core(&bytes);
                if declares || crate::compile::mentions_instance_id(&bytes) {
                    // Read once: the candidate's entry is made from these bytes.
                    let read = self.file_from_bytes(&path, bytes);
                    self.session().files.entry(PathKey::new(&path)).or_insert(read);
                    Prefiltered::Candidate { declares }
                } else if std::str::from_utf8(&bytes).is_ok() {
                    Prefiltered::Skipped
                } else {
                    // Reported (AS0002) by load: whatever it declares is unknown.
                    Prefiltered::Candidate { declares: false }
                }
            }
        };
        self.session().prefiltered.insert(PathKey(path), found);
        found
    }

    /// Reads a file's text (overlay first), once per compile. Invalid UTF-8 and unreadable
    /// files are an error carrying a file entry for the diagnostic.
    pub fn read(&self, path: &Path) -> Result<Arc<SourceFile>, LoadError> {
        let path = normalize(path);
        let cached = self.session().files.get(path_key_bytes(&path)).cloned();
        let r = match cached {
            Some(r) => r,
            None => {
                let r = self.read_uncached(&path);
                self.session().files.entry(PathKey::new(&path)).or_insert(r).clone()
            }
        };
        inputs::note(Input::Read { path, file: file_id_of(&r) });
        r
    }

    fn read_uncached(&self, path: &Path) -> Result<Arc<SourceFile>, LoadError> {
        match self.read_raw(path) {
            Ok(bytes) => self.file_from_bytes(path, bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(LoadError::NotFound),
            Err(e) => {
                let reason = e.to_string();
                let file = self.db.add_unreadable(path, self.rel(path), Arc::from(""), reason.clone());
                Err(LoadError::Unreadable { file, reason })
            }
        }
    }

    fn file_from_bytes(&self, path: &Path, bytes: Arc<[u8]>) -> Result<Arc<SourceFile>, LoadError> {
        let rel = self.rel(path);
        match std::str::from_utf8(&bytes) {
            Ok(text) => Ok(self.db.add(path, rel, Arc::from(text))),
            Err(e) => {
                // Keep a lossy rendering so the diagnostic can show the line; up to the first
                // bad byte the offsets are the same.
                let valid = e.valid_up_to();
                let text: Arc<str> = String::from_utf8_lossy(&bytes).into_owned().into();
                let prefix = &text[..valid];
                let line = prefix.matches('\n').count() + 1;
                let column = prefix.rsplit('\n').next().map_or(0, |l| l.encode_utf16().count()) + 1;
                let reason = format!("it is not valid UTF-8 (line {line}, column {column}, byte {valid})");
                let file = self.db.add_unreadable(path, rel, text, reason.clone());
                Err(LoadError::Unreadable { file, reason })
            }
        }
    }

    /// Loads (reads, parses, indexes) a module, once per compile, reusing the parse of an
    /// unchanged text from earlier compiles.
    pub fn load(&self, path: &Path) -> Result<Arc<ModuleInfo>, LoadError> {
        let path = normalize(path);
        let slot: Slot = {
            let mut s = self.session();
            match s.slots.get(path_key_bytes(&path)) {
                Some(slot) => slot.clone(),
                None => s.slots.entry(PathKey::new(&path)).or_default().clone(),
            }
        };
        let loaded = slot.get_or_init(|| self.load_cached(&path));
        // Noted here too: another thread may have loaded it for its own file. A load is also a
        // read: one input says both.
        let file = match &loaded.result {
            Ok(m) => Some(m.file.id),
            Err(e) => e.file().map(|f| f.id),
        };
        inputs::note(Input::Load { path, file });
        inputs::note_diagnostics(&loaded.diagnostics);
        loaded.result.clone()
    }

    fn load_cached(&self, path: &Path) -> Loaded {
        let file = match self.read(path) {
            Ok(f) => f,
            Err(LoadError::Unreadable { file, reason }) => {
                let at = utf8_error_offset(&reason).unwrap_or(0);
                let diagnostic = Diagnostic::new(
                    Code::UnreadableFile,
                    Span::new(file.id, at, at),
                    format!("cannot read {}: {reason}", file.rel),
                )
                .label("not UTF-8");
                let loaded = Loaded {
                    result: Err(LoadError::Unreadable { file: file.clone(), reason }),
                    diagnostics: vec![diagnostic],
                };
                // Kept like a parse, so later compiles that reuse a result report it too.
                self.cache
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(PathKey::new(path), (file.hash, loaded.clone()));
                return loaded;
            }
            Err(e) => return Loaded { result: Err(e), diagnostics: Vec::new() },
        };
        if let Some((hash, loaded)) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(path_key_bytes(path)) {
            if *hash == file.hash && loaded_file_id(loaded) == Some(file.id) {
                return loaded.clone();
            }
        }
        self.parses.fetch_add(1, Ordering::Relaxed);
        let loaded = match crate::parse::parse_module(&file) {
            Ok(module) => {
                let index = index_module(&file, &module);
                Loaded {
                    result: Ok(Arc::new(ModuleInfo { file: file.clone(), module, index })),
                    diagnostics: Vec::new(),
                }
            }
            Err(diagnostics) => Loaded { result: Err(LoadError::Syntax { file: file.clone() }), diagnostics },
        };
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).insert(PathKey::new(path), (file.hash, loaded.clone()));
        loaded
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
                    Input::Resolve { dir, specifier, found } => {
                        s.resolved.get(&(PathKey::new(dir), specifier.clone())).map(|r| r == found)
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
            Input::Resolve { dir, specifier, found } => self.resolve_in(dir, specifier) == *found,
        })
    }

    /// Resolves an import specifier from the module at `from` to a project file. `None` for
    /// packages (bare specifiers that no `paths` alias maps) and for files that do not exist.
    pub fn resolve(&self, from: &Path, specifier: &str) -> Option<PathBuf> {
        self.resolve_in(from.parent().unwrap_or(Path::new("")), specifier)
    }

    /// [`Project::resolve`] from a module in folder `dir`.
    pub fn resolve_in(&self, dir: &Path, specifier: &str) -> Option<PathBuf> {
        let key = (PathKey::new(dir), specifier.to_string());
        let cached = self.session().resolved.get(&key).cloned();
        let found = match cached {
            Some(r) => r,
            None => {
                let r = self.resolve_uncached(dir, specifier);
                self.session().resolved.insert(key, r.clone());
                r
            }
        };
        inputs::note(Input::Resolve { dir: dir.to_path_buf(), specifier: specifier.to_string(), found: found.clone() });
        found
    }

    /// The module behind the `export *` of `barrel` that declares `name`, computed by `find` once
    /// per compile.
    pub fn star_export(&self, barrel: &Path, name: &str, find: impl FnOnce() -> Option<PathBuf>) -> Option<PathBuf> {
        let key = (PathKey::new(barrel), name.to_string());
        let cached = self.session().star_exports.get(&key).cloned();
        if let Some((found, searched)) = cached {
            inputs::replay(&searched);
            return found;
        }
        let (found, searched) = inputs::record(find);
        let searched = Arc::new(searched);
        inputs::replay(&searched);
        self.session().star_exports.insert(key, (found.clone(), searched));
        found
    }

    fn resolve_uncached(&self, dir: &Path, specifier: &str) -> Option<PathBuf> {
        if specifier.starts_with("./") || specifier.starts_with("../") || specifier == "." || specifier == ".." {
            return self.probe(&normalize(&dir.join(specifier)));
        }
        if specifier.starts_with('/') {
            return self.probe(&normalize(Path::new(specifier)));
        }
        for (alias, targets) in &self.config.paths {
            let Some(captured) = match_alias(alias, specifier) else { continue };
            for target in targets {
                let target = target.to_string_lossy().replacen('*', captured, 1);
                if let Some(found) = self.probe(&normalize(Path::new(&target))) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// TypeScript's module-file probing: exact file, `.js`→`.ts` rewrites, extensions, index.
    fn probe(&self, base: &Path) -> Option<PathBuf> {
        let exists = |p: &Path| self.overlay(p).is_some() || p.is_file();
        let ext = base.extension().and_then(|e| e.to_str()).unwrap_or("");
        if crate::discover::EXTENSIONS.contains(&ext) && exists(base) {
            return Some(base.to_path_buf());
        }
        let rewrites: &[&str] = match ext {
            "js" => &["ts", "tsx"],
            "jsx" => &["tsx"],
            "mjs" => &["mts"],
            "cjs" => &["cts"],
            _ => &[],
        };
        for r in rewrites {
            let p = base.with_extension(r);
            if exists(&p) {
                return Some(p);
            }
        }
        let s = base.as_os_str().to_string_lossy();
        for e in crate::discover::EXTENSIONS {
            let p = PathBuf::from(format!("{s}.{e}"));
            if exists(&p) {
                return Some(p);
            }
        }
        for e in ["ts", "tsx"] {
            let p = base.join(format!("index.{e}"));
            if exists(&p) {
                return Some(p);
            }
        }
        None
    }
}

/// The byte offset recorded in an invalid-UTF-8 reason.
fn utf8_error_offset(reason: &str) -> Option<u32> {
    let i = reason.rfind("byte ")?;
    reason[i + 5..].trim_end_matches(')').parse().ok()
}

fn loaded_file_id(l: &Loaded) -> Option<FileId> {
    match &l.result {
        Ok(m) => Some(m.file.id),
        Err(e) => e.file().map(|f| f.id),
    }
}

/// The entry a read produced (`None`: no such file).
fn file_id_of(read: &Result<Arc<SourceFile>, LoadError>) -> Option<FileId> {
    match read {
        Ok(f) => Some(f.id),
        Err(e) => e.file().map(|f| f.id),
    }
}

fn match_alias<'s>(alias: &str, specifier: &'s str) -> Option<&'s str> {
    match alias.split_once('*') {
        None => (alias == specifier).then_some(""),
        Some((prefix, suffix)) => {
            if specifier.len() >= prefix.len() + suffix.len()
                && specifier.starts_with(prefix)
                && specifier.ends_with(suffix)
            {
                Some(&specifier[prefix.len()..specifier.len() - suffix.len()])
            } else {
                None
            }
        }
    }
}

/// Lexically normalizes a path (`a/./b/../c` → `a/c`) without touching the file system, so
/// one file always has one key whatever route imports it.
pub fn normalize(path: &Path) -> PathBuf {
    if is_normal(path) {
        return path.to_path_buf();
    }
    normalize_components(path)
}

/// [`normalize`] component by component (what the byte check in [`is_normal`] short-cuts).
fn normalize_components(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// Whether [`normalize`] would return the path unchanged (the common case, checked on bytes:
/// rebuilding every path component by component was a thirtieth of a cold compile).
fn is_normal(path: &Path) -> bool {
    let b = path.as_os_str().as_encoded_bytes();
    !b.is_empty()
        && !b.ends_with(b"/")
        && !b.ends_with(b"/.")
        && !b.ends_with(b"/..")
        && b != b"."
        && b != b".."
        && !b.starts_with(b"./")
        && !b.starts_with(b"../")
        // No `//`, `/./` or `/../`: one pass over the slashes (three `memmem` searches built a
        // searcher each, per path).
        && memchr::memchr_iter(b'/', b).all(|i| {
            let rest = &b[i + 1..];
            !(rest.starts_with(b"/") || rest.starts_with(b"./") || rest.starts_with(b"../"))
        })
        && (cfg!(unix) || !b.contains(&b'\\'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_lexically() {
        assert_eq!(normalize(Path::new("/a/./b/../c.ts")), PathBuf::from("/a/c.ts"));
        for p in [
            "/a/b.ts",
            "/a//b.ts",
            "/a/./b",
            "./a",
            "../a",
            "a/..",
            "/a/b/",
            "/",
            "a",
            ".",
            "/a/b/.",
            "x/../../y",
            "/a/.b/c",
            "/a/..b/c",
            "/a/b./c",
            "/a/b../c",
            "/.a",
            "//a",
        ] {
            assert_eq!(normalize(Path::new(p)).as_os_str(), normalize_components(Path::new(p)).as_os_str(), "{p}");
        }
    }

    #[test]
    fn aliases_match_with_one_star() {
        assert_eq!(match_alias("@/*", "@/lib/x"), Some("lib/x"));
        assert_eq!(match_alias("@lib", "@lib"), Some(""));
        assert_eq!(match_alias("@/*", "zod"), None);
    }

    #[test]
    fn resolves_like_typescript() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in ["src/a.ts", "src/b.tsx", "src/lib/index.ts", "src/c.ts"] {
            std::fs::create_dir_all(root.join(f).parent().unwrap()).unwrap();
            std::fs::write(root.join(f), "").unwrap();
        }
        let mut config = Config::defaults(root);
        config.paths = vec![("@/*".into(), vec![root.join("src/*")])];
        let p = Project::new(config);
        let from = root.join("src/a.ts");
        assert_eq!(p.resolve(&from, "./b"), Some(root.join("src/b.tsx")));
        assert_eq!(p.resolve(&from, "./c.js"), Some(root.join("src/c.ts")));
        assert_eq!(p.resolve(&from, "./lib"), Some(root.join("src/lib/index.ts")));
        assert_eq!(p.resolve(&from, "@/lib"), Some(root.join("src/lib/index.ts")));
        assert_eq!(p.resolve(&from, "zod"), None);
        assert_eq!(p.resolve(&from, "./missing"), None);
    }
}
