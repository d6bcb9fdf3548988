//! The project: configuration, the files read so far, and the module loader. Every module is
//! read and parsed at most once, whichever thread asks first; the others wait for that result.
//! Modules that a contract imports are loaded on demand even when the prefilter skipped them
//! (a schema constant may live in a file that never mentions `@agent-surface/core`).

use crate::config::Config;
use crate::diagnostics::{Code, Diagnostic};
use crate::extract::{index_module, ModuleIndex};
use crate::source::{relative_path, SourceDb, SourceFile, Span};
use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};
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

/// A load result with the diagnostics reading and parsing produced.
#[derive(Clone, Debug)]
struct Loaded {
    result: Result<Arc<ModuleInfo>, LoadError>,
    diagnostics: Vec<Diagnostic>,
}

type Slot = Arc<OnceLock<Loaded>>;

/// Per-compile memo: each file is read once per compile, each module loaded once, each import
/// specifier resolved once per folder (the file system is probed once per compile, not once
/// per lookup: barrels are searched for every name they re-export).
#[derive(Default)]
struct Session {
    files: HashMap<PathBuf, Result<Arc<SourceFile>, LoadError>>,
    slots: HashMap<PathBuf, Slot>,
    resolved: HashMap<(PathBuf, String), Option<PathBuf>>,
    /// `export *` lookups: (barrel, name) → the module behind it that declares `name`.
    star_exports: HashMap<(PathBuf, String), Option<PathBuf>>,
}

pub struct Project {
    pub config: Config,
    pub db: SourceDb,
    session: Mutex<Session>,
    /// Parsed modules across compiles, by path and content hash: an unchanged file is never
    /// parsed twice.
    cache: Mutex<HashMap<PathBuf, (u64, Loaded)>>,
    /// Unsaved buffers (stdin, editors, the Vite transform) that replace the file on disk.
    overlays: std::sync::RwLock<HashMap<PathBuf, Arc<str>>>,
    parses: std::sync::atomic::AtomicUsize,
}

impl Project {
    pub fn new(config: Config) -> Self {
        Project {
            config,
            db: SourceDb::new(),
            session: Mutex::default(),
            cache: Mutex::default(),
            overlays: Default::default(),
            parses: Default::default(),
        }
    }

    /// Uses `text` instead of the file at `path` (until [`Project::clear_overlay`]).
    pub fn set_overlay(&self, path: PathBuf, text: Arc<str>) {
        self.overlays.write().unwrap_or_else(|e| e.into_inner()).insert(normalize(&path), text);
    }

    pub fn clear_overlay(&self, path: &Path) {
        self.overlays.write().unwrap_or_else(|e| e.into_inner()).remove(&normalize(path));
    }

    fn overlay(&self, path: &Path) -> Option<Arc<str>> {
        self.overlays.read().unwrap_or_else(|e| e.into_inner()).get(path).cloned()
    }

    /// Starts a compile: files are read afresh (once each); parsed modules whose text did not
    /// change are reused from the cache.
    pub fn begin(&self) {
        *self.session.lock().unwrap_or_else(|e| e.into_inner()) = Session::default();
    }

    /// Drops cached modules of files that were deleted.
    pub fn forget(&self, path: &Path) {
        let path = normalize(path);
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).remove(&path);
        self.db.forget(&path);
    }

    /// How many files were parsed since the project was created (tests, benchmarks).
    pub fn parse_count(&self) -> usize {
        self.parses.load(std::sync::atomic::Ordering::Relaxed)
    }

    pub fn rel(&self, path: &Path) -> String {
        relative_path(&self.config.root, path)
    }

    /// Reads a file's text (overlay first), once per compile. Invalid UTF-8 and unreadable
    /// files are an error carrying a file entry for the diagnostic.
    pub fn read(&self, path: &Path) -> Result<Arc<SourceFile>, LoadError> {
        let path = normalize(path);
        if let Some(r) = self.session.lock().unwrap_or_else(|e| e.into_inner()).files.get(&path) {
            return r.clone();
        }
        let r = self.read_uncached(&path);
        self.session.lock().unwrap_or_else(|e| e.into_inner()).files.insert(path, r.clone());
        r
    }

    fn read_uncached(&self, path: &Path) -> Result<Arc<SourceFile>, LoadError> {
        let rel = self.rel(path);
        if let Some(text) = self.overlay(path) {
            return Ok(self.db.add(path, rel, text));
        }
        match std::fs::read(path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => Ok(self.db.add(path, rel, text.into())),
                Err(e) => {
                    // Keep a lossy rendering so the diagnostic can show the line; up to the first
                    // bad byte the offsets are the same.
                    let valid = e.utf8_error().valid_up_to();
                    let text: Arc<str> = String::from_utf8_lossy(e.as_bytes()).into_owned().into();
                    let prefix = &text[..valid];
                    let line = prefix.matches('\n').count() + 1;
                    let column = prefix.rsplit('\n').next().map_or(0, |l| l.encode_utf16().count()) + 1;
                    let reason = format!("it is not valid UTF-8 (line {line}, column {column}, byte {valid})");
                    let file = self.db.add_unreadable(path, rel, text, reason.clone());
                    Err(LoadError::Unreadable { file, reason })
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(LoadError::NotFound),
            Err(e) => {
                let reason = e.to_string();
                let file = self.db.add_unreadable(path, rel, Arc::from(""), reason.clone());
                Err(LoadError::Unreadable { file, reason })
            }
        }
    }

    /// Loads (reads, parses, indexes) a module, once per compile, reusing the parse of an
    /// unchanged text from earlier compiles.
    pub fn load(&self, path: &Path) -> Result<Arc<ModuleInfo>, LoadError> {
        let path = normalize(path);
        let slot: Slot = {
            let mut session = self.session.lock().unwrap_or_else(|e| e.into_inner());
            session.slots.entry(path.clone()).or_default().clone()
        };
        slot.get_or_init(|| self.load_cached(&path)).result.clone()
    }

    fn load_cached(&self, path: &Path) -> Loaded {
        let file = match self.read(path) {
            Ok(f) => f,
            Err(e) => {
                let mut diagnostics = Vec::new();
                if let LoadError::Unreadable { file, reason } = &e {
                    let at = utf8_error_offset(reason).unwrap_or(0);
                    diagnostics.push(
                        Diagnostic::new(Code::UnreadableFile, Span::new(file.id, at, at), format!("cannot read {}: {reason}", file.rel)).label("not UTF-8"),
                    );
                }
                return Loaded { result: Err(e), diagnostics };
            }
        };
        if let Some((hash, loaded)) = self.cache.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
            if *hash == file.hash && loaded_file_id(loaded) == Some(file.id) {
                return loaded.clone();
            }
        }
        self.parses.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let loaded = match crate::parse::parse_module(&file) {
            Ok(module) => {
                let index = index_module(&file, &module);
                Loaded { result: Ok(Arc::new(ModuleInfo { file: file.clone(), module, index })), diagnostics: Vec::new() }
            }
            Err(diagnostics) => Loaded { result: Err(LoadError::Syntax { file: file.clone() }), diagnostics },
        };
        self.cache.lock().unwrap_or_else(|e| e.into_inner()).insert(path.to_path_buf(), (file.hash, loaded.clone()));
        loaded
    }

    /// Diagnostics from reading and parsing every module this compile loaded.
    pub fn take_load_diagnostics(&self) -> Vec<Diagnostic> {
        let session = self.session.lock().unwrap_or_else(|e| e.into_inner());
        session.slots.values().filter_map(|s| s.get()).flat_map(|l| l.diagnostics.clone()).collect()
    }

    /// Resolves an import specifier from the module at `from` to a project file. `None` for
    /// packages (bare specifiers that no `paths` alias maps) and for files that do not exist.
    pub fn resolve(&self, from: &Path, specifier: &str) -> Option<PathBuf> {
        let key = (from.parent().unwrap_or(Path::new("")).to_path_buf(), specifier.to_string());
        if let Some(r) = self.session.lock().unwrap_or_else(|e| e.into_inner()).resolved.get(&key) {
            return r.clone();
        }
        let r = self.resolve_uncached(from, specifier);
        self.session.lock().unwrap_or_else(|e| e.into_inner()).resolved.insert(key, r.clone());
        r
    }

    /// The module behind the `export *` of `barrel` that declares `name`, computed by `find` once
    /// per compile.
    pub fn star_export(&self, barrel: &Path, name: &str, find: impl FnOnce() -> Option<PathBuf>) -> Option<PathBuf> {
        let key = (barrel.to_path_buf(), name.to_string());
        if let Some(r) = self.session.lock().unwrap_or_else(|e| e.into_inner()).star_exports.get(&key) {
            return r.clone();
        }
        let r = find();
        self.session.lock().unwrap_or_else(|e| e.into_inner()).star_exports.insert(key, r.clone());
        r
    }

    fn resolve_uncached(&self, from: &Path, specifier: &str) -> Option<PathBuf> {
        if specifier.starts_with("./") || specifier.starts_with("../") || specifier == "." || specifier == ".." {
            let base = from.parent().unwrap_or(Path::new("")).join(specifier);
            return self.probe(&normalize(&base));
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

fn loaded_file_id(l: &Loaded) -> Option<crate::source::FileId> {
    match &l.result {
        Ok(m) => Some(m.file.id),
        Err(LoadError::Syntax { file }) | Err(LoadError::Unreadable { file, .. }) => Some(file.id),
        Err(LoadError::NotFound) => None,
    }
}

fn match_alias<'s>(alias: &str, specifier: &'s str) -> Option<&'s str> {
    match alias.split_once('*') {
        None => (alias == specifier).then_some(""),
        Some((prefix, suffix)) => {
            if specifier.len() >= prefix.len() + suffix.len() && specifier.starts_with(prefix) && specifier.ends_with(suffix) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_lexically() {
        assert_eq!(normalize(Path::new("/a/./b/../c.ts")), PathBuf::from("/a/c.ts"));
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
