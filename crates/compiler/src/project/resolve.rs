//! The resolver: import specifiers to project files, as TypeScript probes them (relative
//! paths, `paths` aliases and `baseUrl`, extensions and index files), once per folder, alias
//! scope and compile. A file's aliases are those of the tsconfig project that owns it
//! ([`crate::config::Config::scope_of`]).

use super::{Project, StarExport, StarTargets};
use crate::extract::ModuleInfo;
use crate::inputs::{self, Input};
use crate::paths::normalize;
use crate::source::path_key_bytes;
use crate::source::PathKey;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

impl Project {
    /// Resolves an import specifier from the module at `from` to a project file. `None` for
    /// packages (bare specifiers that no `paths` alias maps) and for files that do not exist.
    pub fn resolve(&self, from: &Path, specifier: &str) -> Option<PathBuf> {
        // Relative specifiers mean the same in every scope: one cache entry per folder.
        let scope = if is_relative(specifier) { 0 } else { self.config.scope_of(from) };
        self.resolve_in(from.parent().unwrap_or(Path::new("")), scope, specifier)
    }

    /// [`Project::resolve`] from a module in folder `dir` whose aliases are `scope`'s.
    pub fn resolve_in(&self, dir: &Path, scope: usize, specifier: &str) -> Option<PathBuf> {
        let key = (PathKey::new(dir), scope, specifier.to_string());
        let cached = self.session().resolved.get(&key).cloned();
        let found = match cached {
            Some(r) => r,
            None => {
                let r = self.resolve_uncached(dir, scope, specifier);
                self.session().resolved.insert(key, r.clone());
                r
            }
        };
        inputs::note(Input::Resolve {
            dir: dir.to_path_buf(),
            scope,
            specifier: specifier.to_string(),
            found: found.clone(),
        });
        found
    }

    /// The module behind the `export *` of the module `barrel` that declares `name` (first
    /// match in source order), searched once per compile. The caller depends on the answer
    /// ([`Input::StarExport`]); what the search read is only watched.
    pub fn star_export(&self, barrel: &ModuleInfo, name: &str) -> Option<PathBuf> {
        let (found, _) = self.star_export_search(barrel, name);
        found
    }

    fn star_export_search(&self, barrel: &ModuleInfo, name: &str) -> StarExport {
        let key = (PathKey::new(&barrel.file.path), name.to_string());
        let cached = self.session().star_exports.get(&key).cloned();
        let (found, searched) = match cached {
            Some(c) => c,
            None => {
                let (found, searched) = inputs::record(|| self.find_star_export(barrel, name, &mut Vec::new()));
                let c = (found, Arc::new(searched));
                self.session().star_exports.insert(key, c.clone());
                c
            }
        };
        inputs::watch(&searched);
        inputs::note(Input::StarExport {
            barrel: barrel.file.path.clone(),
            name: name.to_string(),
            found: found.clone(),
        });
        (found, searched)
    }

    /// What searching `barrel`'s `export *` for `name` finds now (for [`Project::unchanged`]).
    pub(super) fn star_export_now(&self, barrel: &Path, name: &str) -> Option<PathBuf> {
        let m = self.load(barrel).ok()?;
        self.star_export(&m, name)
    }

    /// Which module behind `export *` declares `name` (first match in source order).
    fn find_star_export(
        &self,
        m: &ModuleInfo,
        name: &str,
        visited: &mut Vec<crate::source::FileId>,
    ) -> Option<PathBuf> {
        // By file id: a barrel has tens of modules, and hashing paths dominated this search.
        if visited.contains(&m.file.id) {
            return None;
        }
        visited.push(m.file.id);
        let targets = self.star_targets(m);
        for (i, slot) in targets.iter().enumerate() {
            let (found, read) = slot.get_or_init(|| {
                let (found, read) = inputs::record(|| {
                    let source = &m.index.star_exports[i].0;
                    let target = self.resolve(&m.file.path, source)?;
                    let tm = self.load(&target).ok()?;
                    Some((target, tm))
                });
                (found, Arc::new(read))
            });
            inputs::watch(read);
            let Some((target, tm)) = found else { continue };
            if tm.index.exports.contains_key(name) {
                return Some(target.clone());
            }
            if let Some(found) = self.find_star_export(tm, name, visited) {
                return Some(found);
            }
        }
        None
    }

    /// `m`'s `export *` targets (each resolved and loaded when first reached), once per compile.
    fn star_targets(&self, m: &ModuleInfo) -> StarTargets {
        let mut s = self.session();
        match s.star_targets.get(path_key_bytes(&m.file.path)) {
            Some(t) => t.clone(),
            None => {
                let t: StarTargets = Arc::new((0..m.index.star_exports.len()).map(|_| OnceLock::new()).collect());
                s.star_targets.insert(PathKey::new(&m.file.path), t.clone());
                t
            }
        }
    }

    fn resolve_uncached(&self, dir: &Path, scope: usize, specifier: &str) -> Option<PathBuf> {
        if specifier.starts_with('/') {
            return self.probe(&normalize(Path::new(specifier)));
        }
        if is_relative(specifier) {
            return self.probe(&normalize(&dir.join(specifier)));
        }
        for (alias, targets) in self.config.paths_of(scope) {
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

fn is_relative(specifier: &str) -> bool {
    specifier.starts_with("./")
        || specifier.starts_with("../")
        || specifier == "."
        || specifier == ".."
        || specifier.starts_with('/')
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

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
