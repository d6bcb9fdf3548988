//! Project configuration: `agent-surface.config.json` at the root, or the `"agentSurface"` key of
//! `package.json`. `compilerOptions.paths` of `tsconfig.json` are read too (JSON with comments),
//! so path aliases the app already uses resolve without repeating them.

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
    /// Alias pattern → target patterns, targets already absolute.
    pub paths: Vec<(String, Vec<PathBuf>)>,
    /// Where the configuration came from, for messages.
    pub source: Option<PathBuf>,
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
            source: None,
        }
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
        } else {
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
        if tsconfig.is_file() {
            config.paths = read_tsconfig_paths(&tsconfig, root)?;
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
            for (alias, targets) in file.paths {
                config.paths.retain(|(a, _)| a != &alias);
                config.paths.push((alias, targets.iter().map(|t| crate::paths::normalize(&base.join(t))).collect()));
            }
            for glob in config.include.iter().chain(config.exclude.iter()) {
                if let Err(e) = globset::Glob::new(glob) {
                    return Err(ConfigError { file: path, message: format!("invalid glob {glob:?}: {e}") });
                }
            }
            config.source = Some(path);
        }
        // Longest alias first: the most specific pattern wins, as in TypeScript.
        config.paths.sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.0.cmp(&b.0)));
        Ok(config)
    }
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

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct TsConfig {
    #[serde(default)]
    compiler_options: TsCompilerOptions,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct TsCompilerOptions {
    base_url: Option<String>,
    #[serde(default)]
    paths: BTreeMap<String, Vec<String>>,
}

fn read_tsconfig_paths(path: &Path, root: &Path) -> Result<Vec<(String, Vec<PathBuf>)>, ConfigError> {
    let text = read(path)?;
    let json = strip_jsonc(&text);
    let ts: TsConfig = serde_json::from_str(&json).map_err(|e| json_error(path, &e))?;
    let base = root.join(ts.compiler_options.base_url.as_deref().unwrap_or("."));
    Ok(ts
        .compiler_options
        .paths
        .into_iter()
        .map(|(alias, targets)| (alias, targets.iter().map(|t| crate::paths::normalize(&base.join(t))).collect()))
        .collect())
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
}
