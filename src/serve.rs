//! `agent-surface serve --stdio`: a long-lived compiler for the Vite plugin, speaking
//! newline-delimited JSON (documented in docs/serve-protocol.md). The project and its parse
//! cache live as long as the process, so a transform of an unchanged file does no parsing.
//! Bad requests get error responses; nothing a client sends can crash the process; it exits
//! cleanly when stdin closes.

use agent_surface_compiler::compile::{compile_files, compile_shared, Compilation};
use agent_surface_compiler::diagnostics::Diagnostic;
use agent_surface_compiler::paths::normalize;
use agent_surface_compiler::project::Project;
use agent_surface_compiler::source::SourceDb;
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

pub const PROTOCOL: &str = "agent-surface-serve";
pub const PROTOCOL_VERSION: u32 = 1;

/// The handshake line written when the server starts.
pub fn hello(root: &Path) -> Value {
    json!({ "protocol": PROTOCOL, "protocolVersion": PROTOCOL_VERSION, "binaryVersion": env!("CARGO_PKG_VERSION"), "root": root.to_string_lossy() })
}

/// A diagnostic for the plugin: the JSON format plus absolute path and byte offsets.
fn diagnostic_json(d: &Diagnostic, db: &SourceDb) -> Value {
    let mut v = serde_json::to_value(agent_surface_compiler::render::json::to_json(d, db)).unwrap_or(Value::Null);
    let f = db.get(d.primary.span.file);
    if let Some(o) = v.as_object_mut() {
        o.insert("absFile".into(), Value::String(f.path.to_string_lossy().into_owned()));
        o.insert("offset".into(), d.primary.span.lo.into());
        o.insert("endOffset".into(), d.primary.span.hi.into());
    }
    v
}

/// One server: a project that outlives requests.
pub struct Server {
    project: Arc<Project>,
    filter: Option<agent_surface_compiler::discover::FileFilter>,
    /// Transform results by file and text hash. Any change anywhere (new text for a file,
    /// didChange, didRemove) clears it: a contract's result depends on what it imports.
    transforms: std::sync::Mutex<TransformCache>,
}

#[derive(Default)]
struct TransformCache {
    results: std::collections::HashMap<PathBuf, (u64, Value)>,
    texts: std::collections::HashMap<PathBuf, u64>,
}

/// A request-level failure: `code` is stable, `message` human.
struct Failure {
    code: &'static str,
    message: String,
}

fn bad(code: &'static str, message: impl Into<String>) -> Failure {
    Failure { code, message: message.into() }
}

impl Server {
    pub fn new(project: Project) -> Self {
        let filter = agent_surface_compiler::discover::FileFilter::new(&project.config).ok();
        Server { project: Arc::new(project), filter, transforms: Default::default() }
    }

    fn clear_transforms(&self) {
        let mut t = self.transforms.lock().unwrap_or_else(|e| e.into_inner());
        t.results.clear();
        t.texts.clear();
    }

    pub fn root(&self) -> &Path {
        &self.project.config.root
    }

    /// Handles one request line; returns the response line (always one).
    pub fn handle_line(&self, line: &str) -> (Value, bool) {
        let req: Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                return (
                    json!({ "id": null, "error": { "code": "bad-request", "message": format!("not JSON: {e}") } }),
                    false,
                )
            }
        };
        let id = req.get("id").cloned().unwrap_or(Value::Null);
        let Some(method) = req.get("method").and_then(Value::as_str) else {
            return (
                json!({ "id": id, "error": { "code": "bad-request", "message": "a request needs a string `method`" } }),
                false,
            );
        };
        let params = req.get("params").cloned().unwrap_or(json!({}));
        let shutdown = method == "shutdown";
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.dispatch(method, &params)));
        let response = match outcome {
            Ok(Ok(result)) => json!({ "id": id, "result": result }),
            Ok(Err(f)) => json!({ "id": id, "error": { "code": f.code, "message": f.message } }),
            Err(_) => {
                json!({ "id": id, "error": { "code": "internal", "message": "the compiler failed on this request (please report it)" } })
            }
        };
        (response, shutdown)
    }

    fn dispatch(&self, method: &str, params: &Value) -> Result<Value, Failure> {
        match method {
            "scan" => self.scan(),
            "transform" => self.transform(params),
            "didChange" => {
                for f in files_param(params)? {
                    self.project.clear_overlay(&f);
                }
                self.clear_transforms();
                Ok(json!({}))
            }
            "didRemove" => {
                for f in files_param(params)? {
                    self.project.clear_overlay(&f);
                    self.project.forget(&f);
                }
                self.clear_transforms();
                Ok(json!({}))
            }
            "shutdown" => Ok(json!({})),
            other => Err(bad(
                "unknown-method",
                format!("unknown method `{other}` (scan, transform, didChange, didRemove, shutdown)"),
            )),
        }
    }

    fn scan(&self) -> Result<Value, Failure> {
        let c = compile_shared(self.project.clone()).map_err(|e| bad("config", e.to_string()))?;
        Ok(scan_result(&c))
    }

    fn transform(&self, params: &Value) -> Result<Value, Failure> {
        let file = params
            .get("file")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("invalid-params", "transform needs `file` (an absolute path)"))?;
        let code = params
            .get("code")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("invalid-params", "transform needs `code` (the file's text)"))?;
        let path = normalize(Path::new(file));
        if !path.is_absolute() {
            return Err(bad("invalid-params", "`file` must be an absolute path"));
        }
        // Files outside the project's include/exclude (tests, generated code) are not compiled.
        let rel = self.project.rel(&path);
        let in_project = agent_surface_compiler::discover::is_source_file(&path)
            && path.starts_with(&self.project.config.root)
            && self.filter.as_ref().is_some_and(|f| f.matches(&rel));
        if !in_project {
            return Ok(json!({ "edits": [], "contracts": [], "diagnostics": [], "parsed": 0, "inProject": false }));
        }
        let hash = agent_surface_compiler::source::content_hash(code);
        {
            let mut t = self.transforms.lock().unwrap_or_else(|e| e.into_inner());
            if let Some((h, result)) = t.results.get(&path) {
                if *h == hash {
                    let mut r = result.clone();
                    r["parsed"] = 0.into();
                    return Ok(r);
                }
            }
            // New text for a file others may import: every cached result may be stale.
            if t.texts.get(&path).is_some_and(|h| *h != hash) {
                t.results.clear();
            }
            t.texts.insert(path.clone(), hash);
        }
        self.project.set_overlay(path.clone(), Arc::from(code));
        let before = self.project.parse_count();
        let c = compile_files(self.project.clone(), std::slice::from_ref(&path));
        let parsed = self.project.parse_count() - before;
        let edits = agent_surface_compiler::provenance::provenance_edits(&c, &path);
        let contracts: Vec<Value> =
            c.manifest().contracts.iter().map(|m| json!({ "id": m.id(), "contractHash": m.contract_hash() })).collect();
        let result = json!({
            "edits": edits,
            "contracts": contracts,
            "diagnostics": c.diagnostics.iter().map(|d| diagnostic_json(d, &c.project.db)).collect::<Vec<_>>(),
            "parsed": parsed,
            "inProject": true,
        });
        self.transforms.lock().unwrap_or_else(|e| e.into_inner()).results.insert(path, (hash, result.clone()));
        Ok(result)
    }
}

fn files_param(params: &Value) -> Result<Vec<PathBuf>, Failure> {
    let files = params
        .get("files")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("invalid-params", "needs `files`: an array of absolute paths"))?;
    files
        .iter()
        .map(|f| {
            f.as_str()
                .map(|s| normalize(Path::new(s)))
                .ok_or_else(|| bad("invalid-params", "`files` must hold strings"))
        })
        .collect()
}

fn scan_result(c: &Compilation) -> Value {
    json!({
        "manifest": c.manifest().to_value(),
        "manifestHash": c.manifest().manifest_hash,
        "locations": c.locations().locations,
        "complete": c.manifest().completeness.status == agent_surface_model::manifest::CompletenessStatus::Complete,
        "diagnostics": c.diagnostics.iter().map(|d| diagnostic_json(d, &c.project.db)).collect::<Vec<_>>(),
        "files": c.files.len(),
        "elapsedMs": c.elapsed.as_millis() as u64,
    })
}

/// Runs the protocol on stdin/stdout until stdin closes or `shutdown`.
pub fn run_stdio(server: Server) -> std::io::Result<()> {
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    writeln!(out, "{}", hello(server.root()))?;
    out.flush()?;
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(l) => l,
            // Invalid UTF-8 on the wire: answer and go on.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                writeln!(
                    out,
                    "{}",
                    json!({ "id": null, "error": { "code": "bad-request", "message": "the request line is not UTF-8" } })
                )?;
                out.flush()?;
                continue;
            }
            Err(e) => return Err(e),
        };
        if line.trim().is_empty() {
            continue;
        }
        let (response, shutdown) = server.handle_line(&line);
        writeln!(out, "{response}")?;
        out.flush()?;
        if shutdown {
            break;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_surface_compiler::config::Config;

    fn server() -> (Server, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let root = normalize(&std::fs::canonicalize(dir.path()).unwrap());
        std::fs::write(root.join("c.ts"), "import { defineAgentComponentContract } from '@agent-surface/core';\nexport const c = defineAgentComponentContract({ type: 'a', description: 'é' });\n").unwrap();
        (Server::new(Project::new(Config::load(&root).unwrap())), dir)
    }

    #[test]
    fn bad_requests_get_error_responses() {
        let (s, _d) = server();
        for (line, code) in [
            ("{", "bad-request"),
            ("[]", "bad-request"),
            ("{\"id\":1}", "bad-request"),
            ("{\"id\":1,\"method\":\"nope\"}", "unknown-method"),
            ("{\"id\":1,\"method\":\"transform\",\"params\":{}}", "invalid-params"),
            ("{\"id\":1,\"method\":\"transform\",\"params\":{\"file\":\"rel.ts\",\"code\":\"\"}}", "invalid-params"),
        ] {
            let (r, _) = s.handle_line(line);
            assert_eq!(r["error"]["code"], code, "{line}: {r}");
        }
    }

    #[test]
    fn transform_of_an_unchanged_file_does_no_parsing() {
        let (s, _d) = server();
        let file = s.root().join("c.ts");
        let code = std::fs::read_to_string(&file).unwrap();
        let req = json!({ "id": 1, "method": "transform", "params": { "file": file, "code": code } }).to_string();
        let (first, _) = s.handle_line(&req);
        assert_eq!(first["result"]["parsed"], 1, "{first}");
        assert_eq!(first["result"]["edits"].as_array().unwrap().len(), 1);
        let (second, _) = s.handle_line(&req);
        assert_eq!(second["result"]["parsed"], 0);
        assert_eq!(second["result"]["edits"], first["result"]["edits"]);
        let (scan, _) = s.handle_line("{\"id\":2,\"method\":\"scan\"}");
        assert_eq!(scan["result"]["complete"], true, "{scan}");
    }

    #[test]
    fn a_comment_above_a_contract_moves_its_location_not_the_manifest() {
        let (s, _d) = server();
        let file = s.root().join("c.ts");
        let scan = |s: &Server| s.handle_line("{\"id\":1,\"method\":\"scan\"}").0["result"].clone();
        let before = scan(&s);
        assert_eq!(before["locations"]["view:a"], json!({"file": "c.ts", "line": 2, "column": 18}), "{before}");
        let code = std::fs::read_to_string(&file).unwrap().replace("export const", "// a comment\nexport const");
        let req = json!({ "id": 2, "method": "transform", "params": { "file": file, "code": code } }).to_string();
        let (t, _) = s.handle_line(&req);
        assert_eq!(t["result"]["edits"].as_array().unwrap().len(), 1, "{t}");
        let after = scan(&s);
        assert_eq!(after["locations"]["view:a"]["line"], 3);
        assert_eq!(after["manifestHash"], before["manifestHash"]);
        assert_eq!(after["manifest"], before["manifest"]);
    }
}
