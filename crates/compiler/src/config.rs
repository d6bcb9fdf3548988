//! Project configuration: `agent-surface.config.json` at the root, or the `"agentSurface"` key of
//! `package.json`. The root's `tsconfig.json` is read as TypeScript reads it (JSON with comments,
//! `extends`, `references`), so the path aliases the app already uses resolve without repeating
//! them, each file with those of the tsconfig project that owns it.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

pub const CONFIG_FILE: &str = "agent-surface.config.json";
pub const DEFAULT_OUTPUT: &str = "agent-surface.manifest.json";

/// The configuration file as written.
#[derive(Debug, Default, Deserialize, Clone, PartialEq)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ConfigFile {
    /// Globs (relative to the root) of files to compile. Default: every .ts/.tsx/.mts/.cts file.
    pub include: Option<Vec<String>>,
    /// Globs of files to skip, on top of .gitignore, node_modules and `.d.ts` files.
    #[serde(default)]
    pub exclude: Vec<String>,
    /// Manifest path relative to the root.
    pub output: Option<String>,
    /// Import aliases, as in tsconfig's `compilerOptions.paths` (`"@/*": ["src/*"]`).
    #[serde(default)]
    pub paths: BTreeMap<String, Vec<String>>,
    /// Base directory for `paths`, relative to the root. Default: the root.
    pub base_url: Option<String>,
}

/// The resolved configuration the compiler runs with.
#[derive(Debug, Clone)]
pub struct Config {
    pub root: PathBuf,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub output: PathBuf,
    /// Alias pattern → target patterns, targets already absolute: what a file that no
    /// [`TsProject`] owns resolves with (the root `tsconfig.json`'s own, and the configuration
    /// file's).
    pub paths: Vec<(String, Vec<PathBuf>)>,
    /// The root `tsconfig.json` and the projects its `references` name, in the order a file's
    /// owner is looked for (the first that owns it). Each carries the configuration file's
    /// `paths` too.
    pub ts_projects: Vec<TsProject>,
    /// Where the configuration came from, for messages.
    pub source: Option<PathBuf>,
    /// Every tsconfig file read (or looked for, as an `extends` candidate): a change to one of
    /// them changes the configuration.
    pub inputs: Vec<PathBuf>,
    /// The major version of `zod` the root `package.json` declares (`"zod": "^3.25.0"` → 3):
    /// with 3, imports from `"zod"` are zod 3's API (`crate::zod::v3`). `None`: not declared.
    pub zod_major: Option<u64>,
}

/// A configuration problem: the file and the reason (exit code 2).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub file: PathBuf,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.file.display(), self.message)
    }
}

impl std::error::Error for ConfigError {}

impl Config {
    /// Defaults for `root` with no configuration file.
    pub fn defaults(root: &Path) -> Config {
        Config {
            root: root.to_path_buf(),
            include: vec!["**/*.ts".into(), "**/*.tsx".into(), "**/*.mts".into(), "**/*.cts".into()],
            exclude: Vec::new(),
            output: root.join(DEFAULT_OUTPUT),
            paths: Vec::new(),
            ts_projects: Vec::new(),
            source: None,
            inputs: Vec::new(),
            zod_major: None,
        }
    }

    /// Which aliases `file` (absolute, normalized) resolves its imports with: `0` for
    /// [`Config::paths`], `i + 1` for `ts_projects[i]`, the first project that owns the file.
    pub fn scope_of(&self, file: &Path) -> usize {
        self.ts_projects.iter().position(|p| p.owns(file)).map_or(0, |i| i + 1)
    }

    /// The aliases of a scope ([`Config::scope_of`]).
    pub fn paths_of(&self, scope: usize) -> &[(String, Vec<PathBuf>)] {
        match scope.checked_sub(1).and_then(|i| self.ts_projects.get(i)) {
            Some(p) => &p.paths,
            None => &self.paths,
        }
    }

    /// Whether `path` is part of the configuration: a file at the root named like a
    /// configuration file ([`is_config_name`]), or one the tsconfig chain read or looked for.
    pub fn is_input(&self, path: &Path) -> bool {
        (is_config_name(path) && path.parent() == Some(self.root.as_path())) || self.inputs.iter().any(|p| p == path)
    }

    /// Loads the configuration of the project at `root`.
    pub fn load(root: &Path) -> Result<Config, ConfigError> {
        let mut config = Config::defaults(root);
        let mut file_config = None;
        let config_path = root.join(CONFIG_FILE);
        if config_path.is_file() {
            let text = read(&config_path)?;
            let parsed: ConfigFile = serde_json::from_str(&text).map_err(|e| json_error(&config_path, &e))?;
            file_config = Some((config_path, parsed));
        }
        let package_json = root.join("package.json");
        if package_json.is_file() {
            // An unreadable package.json is reported below only when it holds the configuration.
            let declared: Option<serde_json::Value> =
                std::fs::read_to_string(&package_json).ok().and_then(|t| serde_json::from_str(&t).ok());
            config.zod_major = declared.as_ref().and_then(declared_zod_major);
        }
        if file_config.is_none() {
            let package_json = root.join("package.json");
            if package_json.is_file() {
                let text = read(&package_json)?;
                let value: serde_json::Value =
                    serde_json::from_str(&text).map_err(|e| json_error(&package_json, &e))?;
                if let Some(section) = value.get("agentSurface") {
                    let parsed: ConfigFile = serde_json::from_value(section.clone()).map_err(|e| ConfigError {
                        file: package_json.clone(),
                        message: format!("invalid \"agentSurface\" section: {e}"),
                    })?;
                    file_config = Some((package_json, parsed));
                }
            }
        }

        // tsconfig paths first, so the project's own config overrides them.
        let tsconfig = root.join("tsconfig.json");
        config.inputs.push(tsconfig.clone());
        if tsconfig.is_file() {
            let mut reader = TsReader { inputs: &mut config.inputs, stack: Vec::new() };
            reader.projects(&tsconfig, &mut config.ts_projects)?;
            config.paths = config.ts_projects[0].paths.clone();
        }

        if let Some((path, file)) = file_config {
            if let Some(include) = file.include {
                config.include = include;
            }
            config.exclude = file.exclude;
            if let Some(output) = file.output {
                if output.trim().is_empty() {
                    return Err(ConfigError { file: path, message: "\"output\" must not be empty".into() });
                }
                config.output = root.join(output);
            }
            let base = root.join(file.base_url.as_deref().unwrap_or("."));
            let own: Vec<(String, Vec<PathBuf>)> = file
                .paths
                .into_iter()
                .map(|(alias, targets)| (alias, targets.iter().map(|t| normalize(&base.join(t))).collect()))
                .collect();
            for paths in std::iter::once(&mut config.paths).chain(config.ts_projects.iter_mut().map(|p| &mut p.paths)) {
                for (alias, targets) in &own {
                    paths.retain(|(a, _)| a != alias);
                    paths.push((alias.clone(), targets.clone()));
                }
                // Longest alias first, the `baseUrl` fallback (`*`) still last.
                paths.sort_by_key(|(a, _)| (a == "*", std::cmp::Reverse(a.len()), a.clone()));
            }
            for glob in config.include.iter().chain(config.exclude.iter()) {
                if let Err(e) = globset::Glob::new(glob) {
                    return Err(ConfigError { file: path, message: format!("invalid glob {glob:?}: {e}") });
                }
            }
            config.source = Some(path);
        }
        Ok(config)
    }
}

/// The major version in the `zod` range of `dependencies`, `devDependencies` or
/// `peerDependencies` (`"3.25.76"`, `"^3.25.0"`, `"~3.24"`, `">=3.25 <4"`, `"npm:zod@^3"`).
fn declared_zod_major(package: &serde_json::Value) -> Option<u64> {
    ["dependencies", "devDependencies", "peerDependencies"].iter().find_map(|section| {
        let range = package.get(section)?.get("zod")?.as_str()?;
        let range = range.rsplit_once('@').map_or(range, |(_, r)| r);
        let digits: String =
            range.trim_start_matches(|c: char| !c.is_ascii_digit()).chars().take_while(char::is_ascii_digit).collect();
        digits.parse().ok()
    })
}

fn read(path: &Path) -> Result<String, ConfigError> {
    std::fs::read_to_string(path)
        .map_err(|e| ConfigError { file: path.to_path_buf(), message: format!("cannot read: {e}") })
}

fn json_error(path: &Path, e: &serde_json::Error) -> ConfigError {
    ConfigError {
        file: path.to_path_buf(),
        message: format!("line {}, column {}: {}", e.line(), e.column(), strip_position(e)),
    }
}

fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

// -- tsconfig ----------------------------------------------------------------------------------
//
// Read as TypeScript reads it (`tsc`'s `parseJsonConfigFileContent` and tsserver's choice of
// project for a file): `extends` (a relative path or a package, one or an array, later ones
// winning, the file itself over all of them), `compilerOptions.baseUrl` and `paths` (targets
// relative to `baseUrl`, else to the file that set `paths`), `files` / `include` / `exclude`
// (relative to the file that set them, `${configDir}` to the one being read), and `references`
// (not inherited), whose projects are searched for the one that owns a file.

/// A tsconfig project: the files it owns (`files`, `include` minus `exclude`) and the aliases
/// its files' imports resolve with.
#[derive(Debug, Clone)]
pub struct TsProject {
    /// The tsconfig file.
    pub file: PathBuf,
    files: Vec<PathBuf>,
    include: globset::GlobSet,
    exclude: globset::GlobSet,
    /// `paths` (longest alias first), then `*` → `baseUrl/*` when `baseUrl` is set.
    pub paths: Vec<(String, Vec<PathBuf>)>,
}

impl TsProject {
    /// Whether the project owns `file` (absolute, normalized), as `tsc` decides.
    pub fn owns(&self, file: &Path) -> bool {
        if self.files.iter().any(|f| f == file) {
            return true;
        }
        let s = glob_text(file);
        self.include.is_match(&s) && !self.exclude.is_match(&s)
    }
}

/// A tsconfig file as written (the keys the compiler reads; TypeScript owns the others).
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct TsConfigFile {
    extends: Option<OneOrMany>,
    #[serde(default)]
    compiler_options: TsCompilerOptions,
    files: Option<Vec<String>>,
    include: Option<Vec<String>>,
    exclude: Option<Vec<String>>,
    references: Option<Vec<TsReference>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct TsCompilerOptions {
    base_url: Option<String>,
    paths: Option<BTreeMap<String, Vec<String>>>,
}

#[derive(Deserialize)]
struct TsReference {
    path: String,
}

/// A value and the folder of the file that set it (what its relative paths are relative to).
type Set<T> = Option<(T, PathBuf)>;

/// A tsconfig with its `extends` chain applied.
#[derive(Default, Clone)]
struct TsMerged {
    base_url: Set<String>,
    paths: Set<BTreeMap<String, Vec<String>>>,
    files: Set<Vec<String>>,
    include: Set<Vec<String>>,
    exclude: Set<Vec<String>>,
}

impl TsMerged {
    /// `over`'s settings replace this one's, key by key (what `extends` does).
    fn overlay(&mut self, over: TsMerged) {
        fn take<T>(a: &mut Set<T>, b: Set<T>) {
            if b.is_some() {
                *a = b;
            }
        }
        take(&mut self.base_url, over.base_url);
        take(&mut self.paths, over.paths);
        take(&mut self.files, over.files);
        take(&mut self.include, over.include);
        take(&mut self.exclude, over.exclude);
    }
}

/// Reads tsconfig files, each once, noting every one it read or looked for.
struct TsReader<'a> {
    inputs: &'a mut Vec<PathBuf>,
    /// The `extends` chain being read (a file in it again is a cycle).
    stack: Vec<PathBuf>,
}

impl TsReader<'_> {
    fn note(&mut self, path: &Path) {
        if !self.inputs.iter().any(|p| p == path) {
            self.inputs.push(path.to_path_buf());
        }
    }

    /// The file as written and with its `extends` chain applied.
    fn read(&mut self, path: &Path) -> Result<(TsConfigFile, TsMerged), ConfigError> {
        self.note(path);
        let text = read(path)?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
        let file: TsConfigFile = serde_json::from_str(&strip_jsonc(text)).map_err(|e| json_error(path, &e))?;
        let dir = path.parent().unwrap_or(Path::new("/")).to_path_buf();
        let mut merged = TsMerged::default();
        let extends = match &file.extends {
            None => Vec::new(),
            Some(OneOrMany::One(s)) => vec![s.clone()],
            Some(OneOrMany::Many(v)) => v.clone(),
        };
        self.stack.push(path.to_path_buf());
        for spec in extends {
            let Some(base) = resolve_extends(&spec, &dir, self) else {
                self.stack.pop();
                return Err(ConfigError {
                    file: path.to_path_buf(),
                    message: format!("\"extends\": cannot find {spec:?} (as a path relative to this file, or a package in node_modules)"),
                });
            };
            if self.stack.contains(&base) {
                let chain: Vec<String> = self.stack.iter().chain([&base]).map(|p| p.display().to_string()).collect();
                self.stack.pop();
                return Err(ConfigError {
                    file: path.to_path_buf(),
                    message: format!("\"extends\" is circular: {}", chain.join(" → ")),
                });
            }
            let result = self.read(&base);
            let (_, base_merged) = match result {
                Ok(r) => r,
                Err(e) => {
                    self.stack.pop();
                    return Err(e);
                }
            };
            merged.overlay(base_merged);
        }
        self.stack.pop();
        let own = TsMerged {
            base_url: file.compiler_options.base_url.clone().map(|v| (v, dir.clone())),
            paths: file.compiler_options.paths.clone().map(|v| (v, dir.clone())),
            files: file.files.clone().map(|v| (v, dir.clone())),
            include: file.include.clone().map(|v| (v, dir.clone())),
            exclude: file.exclude.clone().map(|v| (v, dir.clone())),
        };
        merged.overlay(own);
        Ok((file, merged))
    }

    /// The project of tsconfig `path`, then those its `references` name (depth first, each once).
    fn projects(&mut self, path: &Path, out: &mut Vec<TsProject>) -> Result<(), ConfigError> {
        let (file, merged) = self.read(path)?;
        let dir = path.parent().unwrap_or(Path::new("/"));
        out.push(ts_project(path, merged)?);
        for r in file.references.unwrap_or_default() {
            // A reference names a tsconfig file, or a folder holding a tsconfig.json.
            let target = normalize(&dir.join(&r.path));
            let target = if r.path.ends_with(".json") { target } else { target.join("tsconfig.json") };
            if out.iter().any(|p| p.file == target) {
                continue;
            }
            if !target.is_file() {
                self.note(&target);
                return Err(ConfigError {
                    file: path.to_path_buf(),
                    message: format!("\"references\": {:?} names {}, which does not exist", r.path, target.display()),
                });
            }
            self.projects(&target, out)?;
        }
        Ok(())
    }
}

fn normalize(path: &Path) -> PathBuf {
    crate::paths::normalize(path)
}

/// A path written in a tsconfig: relative to `dir` (the file that set it), or to `config_dir`
/// (the file being read) when it starts with `${configDir}`.
fn ts_path(written: &str, dir: &Path, config_dir: &Path) -> PathBuf {
    match written.strip_prefix("${configDir}") {
        Some(rest) => normalize(&config_dir.join(rest.trim_start_matches(['/', '\\']))),
        None => normalize(&dir.join(written)),
    }
}

/// The project of the tsconfig at `path`, its `extends` chain applied as `merged`.
fn ts_project(path: &Path, merged: TsMerged) -> Result<TsProject, ConfigError> {
    let config_dir = path.parent().unwrap_or(Path::new("/"));
    let base_url = merged.base_url.as_ref().map(|(b, dir)| ts_path(b, dir, config_dir));
    let mut paths: Vec<(String, Vec<PathBuf>)> = match &merged.paths {
        None => Vec::new(),
        Some((map, dir)) => {
            // Targets are relative to `baseUrl` when there is one, else to the file that set `paths`.
            let base = base_url.clone().unwrap_or_else(|| dir.clone());
            map.iter()
                .map(|(alias, targets)| {
                    (alias.clone(), targets.iter().map(|t| ts_path(t, &base, config_dir)).collect())
                })
                .collect()
        }
    };
    sort_aliases(&mut paths);
    // `baseUrl` alone also resolves bare specifiers from it, after `paths`.
    if let Some(base) = &base_url {
        paths.push(("*".into(), vec![base.join("*")]));
    }
    let bad_glob = |glob: &str, e: globset::Error| ConfigError {
        file: path.to_path_buf(),
        message: format!("invalid pattern {glob:?}: {e}"),
    };
    let files: Vec<PathBuf> = match &merged.files {
        Some((list, dir)) => list.iter().map(|f| ts_path(f, dir, config_dir)).collect(),
        None => Vec::new(),
    };
    // No `files` and no `include`: everything under the file's folder; `files` alone: only them.
    let include = match (&merged.include, &merged.files) {
        (Some((list, dir)), _) => list.iter().map(|s| (s.clone(), dir.clone())).collect(),
        (None, None) => vec![("**/*".to_string(), config_dir.to_path_buf())],
        (None, Some(_)) => Vec::new(),
    };
    let exclude = match &merged.exclude {
        Some((list, dir)) => list.iter().map(|s| (s.clone(), dir.clone())).collect(),
        None => ["node_modules", "bower_components", "jspm_packages"]
            .iter()
            .map(|s| (s.to_string(), config_dir.to_path_buf()))
            .collect::<Vec<_>>(),
    };
    let mut inc = globset::GlobSetBuilder::new();
    for (spec, dir) in &include {
        let glob = ts_glob(spec, dir, config_dir, false);
        inc.add(globset::GlobBuilder::new(&glob).literal_separator(true).build().map_err(|e| bad_glob(spec, e))?);
    }
    let mut exc = globset::GlobSetBuilder::new();
    for (spec, dir) in &exclude {
        for glob in [ts_glob(spec, dir, config_dir, true), format!("{}/**", ts_glob(spec, dir, config_dir, true))] {
            exc.add(globset::GlobBuilder::new(&glob).literal_separator(true).build().map_err(|e| bad_glob(spec, e))?);
        }
    }
    Ok(TsProject {
        file: path.to_path_buf(),
        files,
        include: inc.build().map_err(|e| bad_glob("include", e))?,
        exclude: exc.build().map_err(|e| bad_glob("exclude", e))?,
        paths,
    })
}

/// A path as the glob matchers see it: `/`-separated.
fn glob_text(path: &Path) -> String {
    let s = path.to_string_lossy();
    if cfg!(windows) {
        s.replace('\\', "/")
    } else {
        s.into_owned()
    }
}

/// An `include` or `exclude` entry as an absolute glob. Only `*`, `?` and `**/` are wildcards in
/// a tsconfig; a last component with no `.`, `*` or `?` names a folder, and an included folder
/// means every file under it.
fn ts_glob(spec: &str, dir: &Path, config_dir: &Path, exclude: bool) -> String {
    let spec = spec.replace('\\', "/");
    let segments: Vec<&str> = spec.split('/').collect();
    let first_wild = segments.iter().position(|s| s.contains(['*', '?'])).unwrap_or(segments.len());
    let literal = ts_path(&segments[..first_wild].join("/"), dir, config_dir);
    let mut glob = String::new();
    for c in glob_text(&literal).chars() {
        match c {
            '[' | ']' | '{' | '}' | '\\' => {
                glob.push('[');
                glob.push(c);
                glob.push(']');
            }
            c => glob.push(c),
        }
    }
    for s in &segments[first_wild..] {
        glob.push('/');
        glob.push_str(&s.replace(['[', ']', '{', '}'], "?"));
    }
    let last = segments.last().copied().unwrap_or("");
    if !exclude && !last.contains(['.', '*', '?']) {
        glob.push_str("/**/*");
    }
    glob
}

/// Where an `extends` entry written in a tsconfig in `dir` points: a path relative to it (with
/// `.json` added when that is what exists), or a package in a `node_modules` folder at or above
/// it (its `exports`, its `tsconfig` field, or its `tsconfig.json`). Every candidate tried is noted.
fn resolve_extends(spec: &str, dir: &Path, reader: &mut TsReader<'_>) -> Option<PathBuf> {
    let exists = |p: &Path, reader: &mut TsReader<'_>| {
        if p.is_file() {
            true
        } else {
            reader.note(p);
            false
        }
    };
    let rooted = spec.starts_with("./") || spec.starts_with("../") || Path::new(spec).is_absolute();
    if rooted || spec == "." || spec == ".." {
        let p = normalize(&dir.join(spec));
        if exists(&p, reader) {
            return Some(p);
        }
        let with_json = PathBuf::from(format!("{}.json", p.display()));
        return (!spec.ends_with(".json") && exists(&with_json, reader)).then_some(with_json);
    }
    // A package: `name` or `@scope/name`, then an optional subpath.
    let mut parts = spec.splitn(if spec.starts_with('@') { 3 } else { 2 }, '/');
    let name =
        if spec.starts_with('@') { format!("{}/{}", parts.next()?, parts.next()?) } else { parts.next()?.to_string() };
    let sub = parts.next().filter(|s| !s.is_empty());
    for base in dir.ancestors() {
        let pkg = base.join("node_modules").join(&name);
        if !pkg.is_dir() {
            continue;
        }
        let manifest: Option<serde_json::Value> =
            std::fs::read_to_string(pkg.join("package.json")).ok().and_then(|t| serde_json::from_str(&t).ok());
        if let Some(exports) = manifest.as_ref().and_then(|m| m.get("exports")) {
            let key = sub.map_or(".".to_string(), |s| format!("./{s}"));
            if let Some(target) = export_target(exports, &key) {
                let p = normalize(&pkg.join(target));
                if exists(&p, reader) {
                    return Some(p);
                }
            }
        }
        let candidates: Vec<PathBuf> = match sub {
            Some(sub) => {
                let p = pkg.join(sub);
                vec![p.clone(), PathBuf::from(format!("{}.json", p.display())), p.join("tsconfig.json")]
            }
            None => {
                let field = manifest.as_ref().and_then(|m| m.get("tsconfig")).and_then(|v| v.as_str());
                field.map(|f| pkg.join(f)).into_iter().chain([pkg.join("tsconfig.json")]).collect()
            }
        };
        for c in candidates {
            let c = normalize(&c);
            if exists(&c, reader) {
                return Some(c);
            }
        }
    }
    None
}

/// The target of subpath `key` (`.` or `./sub`) in a package.json `exports` value, under the
/// conditions TypeScript resolves an `extends` with (`node`, `require`, `types`, `default`).
fn export_target(exports: &serde_json::Value, key: &str) -> Option<String> {
    use serde_json::Value;
    fn pick(v: &Value, star: &str) -> Option<String> {
        match v {
            Value::String(s) => Some(s.replace('*', star)),
            Value::Array(items) => items.iter().find_map(|i| pick(i, star)),
            Value::Object(conditions) => conditions
                .iter()
                .find(|(k, _)| matches!(k.as_str(), "node" | "require" | "types" | "default"))
                .and_then(|(_, v)| pick(v, star)),
            _ => None,
        }
    }
    let subpaths = match exports {
        Value::Object(map) if map.keys().any(|k| k.starts_with('.')) => map,
        other => return (key == ".").then(|| pick(other, "")).flatten(),
    };
    if let Some(v) = subpaths.get(key) {
        return pick(v, "");
    }
    subpaths.iter().find_map(|(pattern, v)| {
        let (prefix, suffix) = pattern.split_once('*')?;
        let rest = key.strip_prefix(prefix)?.strip_suffix(suffix)?;
        pick(v, rest)
    })
}

/// Longest alias first: the most specific pattern wins, as in TypeScript.
fn sort_aliases(paths: &mut [(String, Vec<PathBuf>)]) {
    paths.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
}

/// Whether a file's name makes it a configuration file: `agent-surface.config.json`,
/// `package.json`, `tsconfig.json` or `tsconfig.*.json` (`tsconfig.app.json`, the layout
/// create-vite writes). A long-lived project reloads its configuration when one changes;
/// [`Config::inputs`] lists the others it read (an `extends` target with another name).
pub fn is_config_name(path: &Path) -> bool {
    path.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n == CONFIG_FILE || n == "package.json" || (n.starts_with("tsconfig") && n.ends_with(".json")))
}

/// The project a path belongs to, found as eslint and Relay find theirs: walking up from `start`
/// (a file's folder, or the folder itself) to the nearest folder with `agent-surface.config.json`
/// or a `package.json` with an `"agentSurface"` key, or else to the nearest folder with a
/// `package.json`. `None` when no folder up to the file-system root has either: the caller must
/// say so rather than compile some folder that is not a project. `start` should be absolute.
pub fn find_root(start: &Path) -> Option<PathBuf> {
    let first = if start.is_dir() { start } else { start.parent()? };
    let mut nearest_package = None;
    for dir in first.ancestors() {
        if dir.join(CONFIG_FILE).is_file() {
            return Some(dir.to_path_buf());
        }
        let package_json = dir.join("package.json");
        if package_json.is_file() {
            // An unreadable or malformed package.json still marks a project (loading it then
            // reports what is wrong with it).
            let configured = std::fs::read_to_string(&package_json)
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .is_some_and(|v| v.get("agentSurface").is_some());
            if configured {
                return Some(dir.to_path_buf());
            }
            nearest_package.get_or_insert_with(|| dir.to_path_buf());
        }
    }
    nearest_package
}

/// Turns JSON-with-comments (tsconfig's dialect) into JSON: drops `//` and `/* */` comments and
/// trailing commas, keeping line structure so error positions still match.
pub fn strip_jsonc(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let c = bytes[i];
        if in_string {
            let ch_len = utf8_len(c);
            out.push_str(&text[i..i + ch_len]);
            if c == b'\\' && i + 1 < bytes.len() {
                let next_len = utf8_len(bytes[i + 1]);
                out.push_str(&text[i + 1..i + 1 + next_len]);
                i += 1 + next_len;
                continue;
            }
            if c == b'"' {
                in_string = false;
            }
            i += ch_len;
            continue;
        }
        match c {
            b'"' => {
                in_string = true;
                out.push('"');
                i += 1;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    if bytes[i] == b'\n' {
                        out.push('\n');
                    }
                    i += 1;
                }
                i += 2;
            }
            b',' => {
                // Trailing when only whitespace and comments stand between it and the bracket.
                if !matches!(bytes.get(skip_trivia(bytes, i + 1)), Some(b'}') | Some(b']')) {
                    out.push(',');
                }
                i += 1;
            }
            _ => {
                let ch_len = utf8_len(c);
                out.push_str(&text[i..i + ch_len]);
                i += ch_len;
            }
        }
    }
    out
}

/// The index of the first byte at or after `i` that is neither whitespace nor inside a comment.
fn skip_trivia(bytes: &[u8], mut i: usize) -> usize {
    loop {
        match (bytes.get(i), bytes.get(i + 1)) {
            (Some(c), _) if c.is_ascii_whitespace() => i += 1,
            (Some(b'/'), Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            (Some(b'/'), Some(b'*')) => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            _ => return i,
        }
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xff => 4,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_declared_zod_major_is_read_from_package_json() {
        let major = |v: serde_json::Value| declared_zod_major(&v);
        assert_eq!(major(serde_json::json!({"dependencies": {"zod": "^3.25.0"}})), Some(3));
        assert_eq!(major(serde_json::json!({"devDependencies": {"zod": "~3.24"}})), Some(3));
        assert_eq!(major(serde_json::json!({"peerDependencies": {"zod": ">=3.25 <4"}})), Some(3));
        assert_eq!(major(serde_json::json!({"dependencies": {"zod": "npm:zod@^3.25.1"}})), Some(3));
        assert_eq!(major(serde_json::json!({"dependencies": {"zod": "4.6.7"}})), Some(4));
        assert_eq!(major(serde_json::json!({"dependencies": {"react": "19"}})), None);
    }

    #[test]
    fn jsonc_comments_and_trailing_commas_are_dropped() {
        let src = "{\n // c\n \"a\": \"//not a comment\", /* b */\n \"b\": [1,2,],\n}";
        let v: serde_json::Value = serde_json::from_str(&strip_jsonc(src)).unwrap();
        assert_eq!(v, serde_json::json!({"a": "//not a comment", "b": [1, 2]}));
    }

    #[test]
    fn a_comment_after_a_trailing_comma_keeps_it_trailing() {
        let parse = |src: &str| -> serde_json::Value {
            serde_json::from_str(&strip_jsonc(src)).unwrap_or_else(|e| panic!("{src:?}: {e}"))
        };
        assert_eq!(parse("[1, /* c */ ]"), serde_json::json!([1]));
        assert_eq!(parse("{\"a\": 1, // c\n}"), serde_json::json!({"a": 1}));
        assert_eq!(parse("{\"a\": [1, 2, /* x */ // y\n /* z */], /* w */\n}"), serde_json::json!({"a": [1, 2]}));
        assert_eq!(
            parse("{\"a\": {\"b\": [[1,/*c*/],{\"c\":2,//d\n},],}, \"s\": \", /* ]\",}"),
            serde_json::json!({"a": {"b": [[1], {"c": 2}]}, "s": ", /* ]"})
        );
        // Not trailing: a comment between two values keeps the comma.
        assert_eq!(parse("[1, /* c */ 2]"), serde_json::json!([1, 2]));
        assert_eq!(parse("{\"a\": 1, // c\n \"b\": 2}"), serde_json::json!({"a": 1, "b": 2}));
        // An unterminated comment after a comma is the end of the text, as it is elsewhere.
        assert!(serde_json::from_str::<serde_json::Value>(&strip_jsonc("[1, /* c")).is_err());
    }

    #[test]
    fn unknown_keys_are_refused_with_file_and_position() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE), "{\n  \"inclde\": []\n}").unwrap();
        let err = Config::load(dir.path()).unwrap_err();
        assert!(err.file.ends_with(CONFIG_FILE));
        assert!(err.message.contains("unknown field `inclde`"), "{}", err.message);
        assert!(err.message.starts_with("line 2"), "{}", err.message);
    }

    #[test]
    fn wrong_types_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(CONFIG_FILE), "{\"exclude\": \"x\"}").unwrap();
        let err = Config::load(dir.path()).unwrap_err();
        assert!(err.message.contains("invalid type"), "{}", err.message);
    }

    #[test]
    fn the_root_is_the_nearest_configured_folder_else_the_nearest_package() {
        let dir = tempfile::tempdir().unwrap();
        let top = dir.path();
        let deep = top.join("apps/web/src/components");
        std::fs::create_dir_all(&deep).unwrap();
        assert_eq!(find_root(&deep), None, "no project anywhere up");
        std::fs::write(top.join("apps/web/package.json"), "{\"name\":\"web\"}").unwrap();
        assert_eq!(find_root(&deep), Some(top.join("apps/web")));
        std::fs::write(deep.join("Table.tsx"), "").unwrap();
        assert_eq!(find_root(&deep.join("Table.tsx")), Some(top.join("apps/web")), "a file starts at its folder");
        std::fs::write(top.join(CONFIG_FILE), "{}").unwrap();
        assert_eq!(find_root(&deep), Some(top.to_path_buf()), "a configured folder wins over a nearer package.json");
        std::fs::remove_file(top.join(CONFIG_FILE)).unwrap();
        std::fs::write(top.join("package.json"), "{\"agentSurface\":{}}").unwrap();
        assert_eq!(find_root(&deep), Some(top.to_path_buf()), "so does an agentSurface key");
    }

    #[test]
    fn package_json_section_and_tsconfig_paths() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("package.json"), r#"{"name":"x","agentSurface":{"output":"out/m.json"}}"#)
            .unwrap();
        std::fs::write(
            dir.path().join("tsconfig.json"),
            "{ // app\n \"compilerOptions\": { \"paths\": { \"@/*\": [\"src/*\"], }, } }",
        )
        .unwrap();
        let c = Config::load(dir.path()).unwrap();
        assert_eq!(c.output, dir.path().join("out/m.json"));
        assert_eq!(c.paths, vec![("@/*".to_string(), vec![dir.path().join("src/*")])]);
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }

    fn tmp() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = normalize(&std::fs::canonicalize(dir.path()).unwrap());
        (dir, root)
    }

    /// The aliases `file` resolves with, targets relative to `root`.
    fn aliases(c: &Config, root: &Path, file: &str) -> Vec<(String, Vec<String>)> {
        c.paths_of(c.scope_of(&root.join(file)))
            .iter()
            .map(|(a, t)| {
                let t = t.iter().map(|t| t.strip_prefix(root).unwrap_or(t).display().to_string()).collect();
                (a.clone(), t)
            })
            .collect()
    }

    /// create-vite's react-ts layout: a solution tsconfig.json, the app's aliases in
    /// tsconfig.app.json (which owns `src`), tsconfig.node.json owning vite.config.ts.
    #[test]
    fn create_vite_layout_each_file_gets_its_projects_aliases() {
        let (_d, root) = tmp();
        write(
            &root,
            "tsconfig.json",
            r##"{
  "files": [],
  "references": [
    { "path": "./tsconfig.app.json" },
    { "path": "./tsconfig.node.json" }
  ]
}"##,
        );
        write(
            &root,
            "tsconfig.app.json",
            r##"{
  "compilerOptions": {
    "tsBuildInfoFile": "./node_modules/.tmp/tsconfig.app.tsbuildinfo",
    "target": "ES2022",
    /* Bundler mode */
    "moduleResolution": "bundler",
    "jsx": "react-jsx",
    "baseUrl": ".",
    "paths": { "@/*": ["./src/*"] },
  },
  "include": ["src"]
}"##,
        );
        write(
            &root,
            "tsconfig.node.json",
            r##"{ "compilerOptions": { "types": ["node"] }, "include": ["vite.config.ts"] }"##,
        );
        let c = Config::load(&root).unwrap();
        let files: Vec<_> = c.ts_projects.iter().map(|p| p.file.strip_prefix(&root).unwrap().to_path_buf()).collect();
        assert_eq!(files, ["tsconfig.json", "tsconfig.app.json", "tsconfig.node.json"].map(PathBuf::from));
        assert_eq!(c.scope_of(&root.join("src/components/Table.tsx")), 2, "owned by tsconfig.app.json");
        assert_eq!(c.scope_of(&root.join("vite.config.ts")), 3, "owned by tsconfig.node.json");
        assert_eq!(c.scope_of(&root.join("scripts/x.ts")), 0, "owned by none: the root's (no) aliases");
        assert_eq!(
            aliases(&c, &root, "src/components/Table.tsx"),
            [("@/*".to_string(), vec!["src/*".to_string()]), ("*".to_string(), vec!["*".to_string()])]
        );
        assert!(aliases(&c, &root, "vite.config.ts").is_empty());
        assert!(aliases(&c, &root, "scripts/x.ts").is_empty());
        for f in ["tsconfig.json", "tsconfig.app.json", "tsconfig.node.json"] {
            assert!(c.inputs.contains(&root.join(f)), "{f} is an input");
        }
    }

    #[test]
    fn extends_relative_with_or_without_json_later_entries_and_the_file_itself_win() {
        let (_d, root) = tmp();
        // `paths` targets are relative to the file that set `paths` when there is no baseUrl.
        write(
            &root,
            "configs/base.json",
            r##"{ "compilerOptions": { "paths": { "@base/*": ["../lib/*"] } }, "include": ["../lib"] }"##,
        );
        write(&root, "configs/other.json", r##"{ "compilerOptions": { "paths": { "@other/*": ["../other/*"] } } }"##);
        write(&root, "tsconfig.json", r##"{ "extends": ["./configs/other.json", "./configs/base"] }"##);
        let c = Config::load(&root).unwrap();
        // The later `extends` entry's `paths` replace the earlier one's (`paths` is one option).
        assert_eq!(aliases(&c, &root, "lib/a.ts"), [("@base/*".to_string(), vec!["lib/*".to_string()])]);
        // `include` came from base.json: relative to base.json's folder.
        assert_eq!(c.scope_of(&root.join("lib/a.ts")), 1);
        assert_eq!(c.scope_of(&root.join("src/a.ts")), 0);
        // The file's own option wins over everything it extends; a baseUrl from the file makes
        // the inherited paths relative to it.
        write(
            &root,
            "tsconfig.json",
            r##"{ "extends": ["./configs/other.json", "./configs/base"], "compilerOptions": { "baseUrl": "./src/deep" } }"##,
        );
        let c = Config::load(&root).unwrap();
        assert_eq!(
            aliases(&c, &root, "lib/a.ts"),
            [("@base/*".to_string(), vec!["src/lib/*".to_string()]), ("*".to_string(), vec!["src/deep/*".to_string()])]
        );
        assert!(c.inputs.contains(&root.join("configs/base.json")));
    }

    #[test]
    fn extends_a_package_scoped_with_a_subpath_through_exports_or_its_tsconfig_field() {
        let (_d, root) = tmp();
        write(
            &root,
            "node_modules/@acme/tsconfig/package.json",
            r##"{ "name": "@acme/tsconfig", "exports": { "./react": "./react.json", "./*": "./presets/*.json" } }"##,
        );
        write(
            &root,
            "node_modules/@acme/tsconfig/react.json",
            r##"{ "compilerOptions": { "paths": { "#react/*": ["./r/*"] } } }"##,
        );
        write(
            &root,
            "node_modules/@acme/tsconfig/presets/lib.json",
            r##"{ "compilerOptions": { "paths": { "#lib/*": ["./l/*"] } } }"##,
        );
        write(
            &root,
            "node_modules/base-config/package.json",
            r##"{ "name": "base-config", "tsconfig": "./config/tsconfig.base.json" }"##,
        );
        write(
            &root,
            "node_modules/base-config/config/tsconfig.base.json",
            r##"{ "compilerOptions": { "baseUrl": "${configDir}/src" } }"##,
        );
        write(
            &root,
            "node_modules/plain/tsconfig.json",
            r##"{ "compilerOptions": { "paths": { "#plain": ["./p.ts"] } } }"##,
        );
        write(
            &root,
            "node_modules/plain/strict.json",
            r##"{ "compilerOptions": { "paths": { "#strict": ["./s.ts"] } } }"##,
        );
        let first = |spec: &str| {
            write(&root, "tsconfig.json", &format!(r##"{{ "extends": "{spec}" }}"##));
            let c = Config::load(&root).unwrap_or_else(|e| panic!("{spec}: {e}"));
            aliases(&c, &root, "src/a.ts")
        };
        let pkg = "node_modules/@acme/tsconfig";
        assert_eq!(first("@acme/tsconfig/react"), [("#react/*".to_string(), vec![format!("{pkg}/r/*")])]);
        assert_eq!(first("@acme/tsconfig/lib"), [("#lib/*".to_string(), vec![format!("{pkg}/presets/l/*")])]);
        // `${configDir}` is the folder of the tsconfig being read, not of the package's file.
        assert_eq!(first("base-config"), [("*".to_string(), vec!["src/*".to_string()])]);
        assert_eq!(first("plain"), [("#plain".to_string(), vec!["node_modules/plain/p.ts".to_string()])]);
        assert_eq!(first("plain/strict"), [("#strict".to_string(), vec!["node_modules/plain/s.ts".to_string()])]);
        assert_eq!(first("plain/strict.json"), [("#strict".to_string(), vec!["node_modules/plain/s.ts".to_string()])]);
        // Found from a folder below too: node_modules is looked for upwards.
        write(&root, "app/tsconfig.json", r##"{ "extends": "plain" }"##);
        let c = Config::load(&root.join("app")).unwrap();
        assert_eq!(c.paths.len(), 1);
    }

    #[test]
    fn references_name_files_or_folders_and_are_searched_depth_first_but_not_inherited() {
        let (_d, root) = tmp();
        write(
            &root,
            "tsconfig.base.json",
            r##"{ "references": [{ "path": "./never" }], "compilerOptions": { "paths": { "@/*": ["./src/*"] } } }"##,
        );
        write(
            &root,
            "tsconfig.json",
            r##"{ "extends": "./tsconfig.base.json", "include": ["src/**/*.ts"], "exclude": ["src/**/*.test.ts"], "references": [{ "path": "./packages/ui" }] }"##,
        );
        write(
            &root,
            "packages/ui/tsconfig.json",
            r##"{ "files": ["./index.ts"], "references": [{ "path": "../tests/tsconfig.tests.json" }], "compilerOptions": { "paths": { "@ui/*": ["./*"] } } }"##,
        );
        write(
            &root,
            "packages/tests/tsconfig.tests.json",
            r##"{ "include": ["../../src/**/*.test.ts"], "compilerOptions": { "paths": { "@t/*": ["./*"] } } }"##,
        );
        let c = Config::load(&root).unwrap();
        assert_eq!(c.ts_projects.len(), 3, "the base's references are not inherited");
        assert_eq!(c.scope_of(&root.join("src/a.ts")), 1);
        assert_eq!(c.scope_of(&root.join("src/a.tsx")), 0, "not matched by src/**/*.ts");
        assert_eq!(c.scope_of(&root.join("packages/ui/index.ts")), 2, "listed in files");
        assert_eq!(c.scope_of(&root.join("packages/ui/other.ts")), 0, "files alone includes nothing else");
        assert_eq!(
            c.scope_of(&root.join("src/deep/a.test.ts")),
            3,
            "excluded from the root, owned by the tests project"
        );
        assert_eq!(aliases(&c, &root, "src/a.test.ts"), [("@t/*".to_string(), vec!["packages/tests/*".to_string()])]);
    }

    #[test]
    fn no_files_and_no_include_own_everything_but_node_modules() {
        let (_d, root) = tmp();
        write(&root, "tsconfig.json", r##"{ "compilerOptions": { "paths": { "~/*": ["./app/*"] } } }"##);
        let c = Config::load(&root).unwrap();
        assert_eq!(c.scope_of(&root.join("app/deep/x.tsx")), 1);
        assert_eq!(c.scope_of(&root.join("x.ts")), 1);
        assert_eq!(c.scope_of(&root.join("node_modules/p/x.ts")), 0);
        // A folder name with glob characters is matched literally.
        let (_d2, odd) = tmp();
        let odd = odd.join("a [b] {c}");
        write(&odd, "tsconfig.json", r##"{ "include": ["src"] }"##);
        let c = Config::load(&odd).unwrap();
        assert_eq!(c.scope_of(&odd.join("src/x.ts")), 1);
        assert_eq!(c.scope_of(&odd.join("other/x.ts")), 0);
    }

    #[test]
    fn the_configuration_files_paths_apply_in_every_project() {
        let (_d, root) = tmp();
        write(&root, "tsconfig.json", r##"{ "files": [], "references": [{ "path": "./tsconfig.app.json" }] }"##);
        write(
            &root,
            "tsconfig.app.json",
            r##"{ "compilerOptions": { "baseUrl": ".", "paths": { "@/*": ["./src/*"], "#x": ["./x.ts"] } }, "include": ["src"] }"##,
        );
        write(&root, CONFIG_FILE, r##"{ "paths": { "@/*": ["app/*"] } }"##);
        let c = Config::load(&root).unwrap();
        assert_eq!(
            aliases(&c, &root, "src/a.ts"),
            [
                ("@/*".to_string(), vec!["app/*".to_string()]),
                ("#x".to_string(), vec!["x.ts".to_string()]),
                ("*".to_string(), vec!["*".to_string()])
            ]
        );
        assert_eq!(aliases(&c, &root, "other.ts"), [("@/*".to_string(), vec!["app/*".to_string()])]);
    }

    #[test]
    fn broken_tsconfig_chains_are_refused_naming_the_file() {
        let (_d, root) = tmp();
        write(&root, "tsconfig.json", r##"{ "extends": "./missing" }"##);
        let e = Config::load(&root).unwrap_err();
        assert_eq!(e.file, root.join("tsconfig.json"));
        assert!(e.message.contains("\"extends\": cannot find \"./missing\""), "{}", e.message);
        assert!(Config::load(&root).unwrap_err().to_string().contains("tsconfig.json"));
        write(&root, "tsconfig.json", r##"{ "extends": "@nope/config" }"##);
        assert!(Config::load(&root).unwrap_err().message.contains("@nope/config"));
        write(&root, "tsconfig.json", r##"{ "extends": "./a.json" }"##);
        write(&root, "a.json", r##"{ "extends": "./tsconfig.json" }"##);
        let e = Config::load(&root).unwrap_err();
        assert!(e.message.contains("circular") && e.message.contains("a.json"), "{}", e.message);
        write(&root, "tsconfig.json", r##"{ "references": [{ "path": "./tsconfig.app.json" }] }"##);
        let e = Config::load(&root).unwrap_err();
        assert!(e.message.contains("tsconfig.app.json") && e.message.contains("does not exist"), "{}", e.message);
        assert!(Config::load(&root).map(|_| ()).is_err());
        write(&root, "tsconfig.json", "{ \"extends\": \"./a.json\" }");
        write(&root, "a.json", "{ \"compilerOptions\": { \"paths\": { \"@/*\": \"src/*\" } } }");
        let e = Config::load(&root).unwrap_err();
        assert_eq!(e.file, root.join("a.json"), "the file with the mistake");
        assert!(e.message.starts_with("line 1"), "{}", e.message);
    }

    #[test]
    fn configuration_names() {
        for n in ["tsconfig.json", "tsconfig.app.json", "tsconfig.node.json", "package.json", CONFIG_FILE] {
            assert!(is_config_name(Path::new(n)), "{n}");
        }
        for n in ["src/tsconfig.ts", "data.json", "app.json"] {
            assert!(!is_config_name(Path::new(n)), "{n}");
        }
    }
}
