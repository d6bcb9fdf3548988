//! Discover: which files belong to the project. Honours .gitignore (also outside a git
//! checkout), never enters node_modules, skips declaration files, and applies the config's
//! include/exclude globs. The result is sorted so everything downstream is deterministic.

use crate::config::{Config, ConfigError};
use crate::paths::path_bytes;
use globset::{Glob, GlobSet, GlobSetBuilder};
use std::path::{Path, PathBuf};

/// Extensions the compiler reads.
pub const EXTENSIONS: &[&str] = &["ts", "tsx", "mts", "cts"];

/// Whether `path` is a TypeScript source the compiler handles (not a `.d.ts`).
pub fn is_source_file(path: &Path) -> bool {
    let name = match path.file_name().and_then(|n| n.to_str()) {
        Some(n) => n,
        None => return false,
    };
    if name.ends_with(".d.ts") || name.ends_with(".d.mts") || name.ends_with(".d.cts") {
        return false;
    }
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| EXTENSIONS.contains(&e))
}

/// The include/exclude matcher of a config.
pub struct FileFilter {
    include: GlobSet,
    exclude: GlobSet,
}

impl FileFilter {
    pub fn new(config: &Config) -> Result<FileFilter, ConfigError> {
        let build = |globs: &[String]| -> Result<GlobSet, ConfigError> {
            let mut b = GlobSetBuilder::new();
            for g in globs {
                let glob = Glob::new(g).map_err(|e| ConfigError {
                    file: config.source.clone().unwrap_or_else(|| config.root.clone()),
                    message: format!("invalid glob {g:?}: {e}"),
                })?;
                b.add(glob);
            }
            b.build().map_err(|e| ConfigError { file: config.root.clone(), message: e.to_string() })
        };
        Ok(FileFilter { include: build(&config.include)?, exclude: build(&config.exclude)? })
    }

    /// Whether a root-relative, `/`-separated path is part of the project.
    pub fn matches(&self, rel: &str) -> bool {
        self.include.is_match(rel) && !self.exclude.is_match(rel)
    }
}

/// The project's files, as the last walk found them.
#[derive(Debug, Default)]
pub struct Discovered {
    pub files: Vec<PathBuf>,
    /// What the walk could not enter ("path: reason").
    pub skipped: Vec<String>,
}

/// Walks the project root and returns the source files, sorted by path bytes.
pub fn discover(config: &Config) -> Result<Vec<PathBuf>, ConfigError> {
    discover_with_skipped(config).map(|(files, _)| files)
}

/// Like [`discover`], also returning what could not be walked (symlink loops, unreadable
/// folders), each as "path: reason", for a warning.
pub fn discover_with_skipped(config: &Config) -> Result<(Vec<PathBuf>, Vec<String>), ConfigError> {
    let filter = FileFilter::new(config)?;
    let mut skipped = Vec::new();
    let mut files = Vec::new();
    let walker = ignore::WalkBuilder::new(&config.root)
        .hidden(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .follow_links(true)
        .filter_entry(|e| e.file_name() != "node_modules")
        .build();
    for entry in walker {
        // Unreadable directories and symlink loops are skipped: they cannot hold project sources
        // we could compile anyway, and one bad folder must not stop the whole compile.
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                skipped.push(e.to_string());
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        if !is_source_file(path) {
            continue;
        }
        let rel = crate::source::relative_path(&config.root, path);
        if filter.matches(&rel) {
            files.push(path.to_path_buf());
        }
    }
    // By bytes: the order only has to be deterministic, and `Path`'s own comparison parses
    // components (it was a twentieth of a cold compile).
    files.sort_unstable_by(|a, b| path_bytes(a).cmp(path_bytes(b)));
    files.dedup_by(|a, b| path_bytes(a) == path_bytes(b));
    skipped.sort();
    Ok((files, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn honours_gitignore_node_modules_and_dts() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for f in ["src/a.ts", "src/b.tsx", "src/c.d.ts", "node_modules/x/i.ts", "gen/g.ts", "src/d.js", "src/e.mts"] {
            let p = root.join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        std::fs::write(root.join(".gitignore"), "gen/\n").unwrap();
        let files = discover(&Config::defaults(root)).unwrap();
        let rel: Vec<String> = files.iter().map(|p| crate::source::relative_path(root, p)).collect();
        assert_eq!(rel, vec!["src/a.ts", "src/b.tsx", "src/e.mts"]);
    }

    #[test]
    fn exclude_globs_apply() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(root.join("src/a.ts"), "").unwrap();
        std::fs::write(root.join("src/a.test.ts"), "").unwrap();
        let mut config = Config::defaults(root);
        config.exclude = vec!["**/*.test.ts".into()];
        let files = discover(&config).unwrap();
        assert_eq!(files, vec![root.join("src/a.ts")]);
    }
}
