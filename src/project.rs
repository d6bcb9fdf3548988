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

/// Why a module could not be loaded. Its diagnostics were already reported once.
#[derive(Clone, Debug)]
pub enum LoadError {
    NotFound,
    Unreadable { file: Arc<SourceFile>, reason: String },
    Syntax { file: Arc<SourceFile> },
}

type Slot = Arc<OnceLock<Result<Arc<ModuleInfo>, LoadError>>>;

pub struct Project {
    pub config: Config,
    pub db: SourceDb,
    modules: Mutex<HashMap<PathBuf, Slot>>,
    /// Unsaved buffers (stdin, editors) that replace the file on disk.
    overlays: HashMap<PathBuf, Arc<str>>,
    load_diagnostics: Mutex<Vec<Diagnostic>>,
}

impl Project {
    pub fn new(config: Config) -> Self {
        Project {
            config,
            db: SourceDb::new(),
            modules: Mutex::new(HashMap::new()),
            overlays: HashMap::new(),
            load_diagnostics: Mutex::new(Vec::new()),
        }
    }

    /// Uses `text` instead of the file at `path`.
    pub fn set_overlay(&mut self, path: PathBuf, text: Arc<str>) {
        self.overlays.insert(normalize(&path), text);
    }

    pub fn rel(&self, path: &Path) -> String {
        relative_path(&self.config.root, path)
    }

    /// Reads a file's text (overlay first). Invalid UTF-8 and unreadable files become a
    /// diagnostic on a file entry with empty text.
    pub fn read(&self, path: &Path) -> Result<Arc<SourceFile>, LoadError> {
        let path = normalize(path);
        if let Some(f) = self.db.lookup(&path) {
            return match &f.unreadable {
                Some(reason) => Err(LoadError::Unreadable { reason: reason.clone(), file: f }),
                None => Ok(f),
            };
        }
        let rel = self.rel(&path);
        if let Some(text) = self.overlays.get(&path) {
            return Ok(self.db.add(&path, rel, text.clone()));
        }
        match std::fs::read(&path) {
            Ok(bytes) => match String::from_utf8(bytes) {
                Ok(text) => Ok(self.db.add(&path, rel, text.into())),
                Err(e) => {
                    // Keep a lossy rendering so the diagnostic can show the line; up to the first
                    // bad byte the offsets are the same.
                    let valid = e.utf8_error().valid_up_to();
                    let text: Arc<str> = String::from_utf8_lossy(e.as_bytes()).into_owned().into();
                    let prefix = &text[..valid];
                    let line = prefix.matches('\n').count() + 1;
                    let column = prefix.rsplit('\n').next().map_or(0, |l| l.encode_utf16().count()) + 1;
                    let reason = format!("it is not valid UTF-8 (line {line}, column {column}, byte {valid})");
                    let file = self.db.add_unreadable(&path, rel, text, reason.clone());
                    Err(LoadError::Unreadable { file, reason })
                }
            },
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Err(LoadError::NotFound),
            Err(e) => {
                let reason = e.to_string();
                let file = self.db.add_unreadable(&path, rel, Arc::from(""), reason.clone());
                Err(LoadError::Unreadable { file, reason })
            }
        }
    }

    /// Loads (reads, parses, indexes) a module once.
    pub fn load(&self, path: &Path) -> Result<Arc<ModuleInfo>, LoadError> {
        let path = normalize(path);
        let slot: Slot = {
            let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
            modules.entry(path.clone()).or_default().clone()
        };
        slot.get_or_init(|| self.load_uncached(&path)).clone()
    }

    /// Loads a module already read into the db (used after the prefilter looked at its text).
    fn load_uncached(&self, path: &Path) -> Result<Arc<ModuleInfo>, LoadError> {
        let file = match self.read(path) {
            Ok(f) => f,
            Err(e) => {
                if let LoadError::Unreadable { file, reason } = &e {
                    let at = utf8_error_offset(reason).unwrap_or(0);
                    self.report(
                        Diagnostic::new(Code::UnreadableFile, Span::new(file.id, at, at), format!("cannot read {}: {reason}", file.rel))
                            .label("not UTF-8"),
                    );
                }
                return Err(e);
            }
        };
        match crate::parse::parse_module(&file) {
            Ok(module) => {
                let index = index_module(&file, &module);
                Ok(Arc::new(ModuleInfo { file, module, index }))
            }
            Err(diags) => {
                for d in diags {
                    self.report(d);
                }
                Err(LoadError::Syntax { file })
            }
        }
    }

    fn report(&self, d: Diagnostic) {
        self.load_diagnostics.lock().unwrap_or_else(|e| e.into_inner()).push(d);
    }

    /// Diagnostics from reading and parsing, collected so far.
    pub fn take_load_diagnostics(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.load_diagnostics.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Resolves an import specifier from the module at `from` to a project file. `None` for
    /// packages (bare specifiers that no `paths` alias maps) and for files that do not exist.
    pub fn resolve(&self, from: &Path, specifier: &str) -> Option<PathBuf> {
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
        let exists = |p: &Path| self.overlays.contains_key(p) || p.is_file();
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
