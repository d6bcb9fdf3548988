//! `agent-surface serve --stdio`: a long-lived compiler for the Vite plugin, speaking
//! newline-delimited JSON (documented in docs/serve-protocol.md). The project and its parse
//! cache live as long as the process, so a transform of an unchanged file does no parsing.
//! Bad requests get error responses; nothing a client sends can crash the process; it exits
//! cleanly when stdin closes.
//!
//! Over stdio a `scan` runs on a thread of its own (scans one after another, in order), so the
//! transforms a bundler asks for meanwhile are answered without waiting for the whole project:
//! they compile on a second project with the same configuration and texts while the scan holds
//! the first. Everything else is handled in the order it arrives.

use agent_surface_compiler::compile::{compile_files, compile_shared, Compilation};
use agent_surface_compiler::diagnostics::Diagnostic;
use agent_surface_compiler::paths::normalize;
use agent_surface_compiler::project::Project;
use agent_surface_compiler::source::SourceDb;
use serde_json::{json, Value};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

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
    /// Held by the compile that uses `project` (one at a time: a compile starts by clearing the
    /// project's per-compile state).
    busy: Mutex<()>,
    /// Where a transform compiles while a scan holds `project`: the same configuration and the
    /// same texts given by `transform`, caches of its own (made on first use).
    side: std::sync::OnceLock<(Arc<Project>, Mutex<()>)>,
    filter: Option<agent_surface_compiler::discover::FileFilter>,
    /// Transform results by file and text hash. Any change anywhere (new text for a file,
    /// didChange, didRemove) clears it: a contract's result depends on what it imports.
    transforms: Mutex<TransformCache>,
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
        Server {
            project: Arc::new(project),
            busy: Mutex::new(()),
            side: std::sync::OnceLock::new(),
            filter,
            transforms: Default::default(),
        }
    }

    /// The projects that exist (the main one, and the side one once made).
    fn projects(&self) -> impl Iterator<Item = &Arc<Project>> {
        std::iter::once(&self.project).chain(self.side.get().map(|(p, _)| p))
    }

    /// The main project, waiting for a running scan to end.
    fn wait_idle(&self) -> MutexGuard<'_, ()> {
        self.busy.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `f` on every project with none compiling: didChange and didRemove come after the
    /// scans asked for before them, and forgetting a file must not race a compile.
    fn on_every_project(&self, f: impl Fn(&Project)) {
        let _idle = self.wait_idle();
        f(&self.project);
        if let Some((side, lock)) = self.side.get() {
            let _idle = lock.lock().unwrap_or_else(|e| e.into_inner());
            f(side);
        }
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
        match Request::parse(line) {
            Ok(req) => (self.respond(&req), req.method == "shutdown"),
            Err(response) => (response, false),
        }
    }

    /// The response to one request.
    fn respond(&self, req: &Request) -> Value {
        let id = &req.id;
        let outcome =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.dispatch(&req.method, &req.params)));
        match outcome {
            Ok(Ok(result)) => json!({ "id": id, "result": result }),
            Ok(Err(f)) => json!({ "id": id, "error": { "code": f.code, "message": f.message } }),
            Err(_) => {
                json!({ "id": id, "error": { "code": "internal", "message": "the compiler failed on this request (please report it)" } })
            }
        }
    }

    fn dispatch(&self, method: &str, params: &Value) -> Result<Value, Failure> {
        match method {
            "scan" => self.scan(),
            "transform" => self.transform(params),
            "didChange" => {
                let files = files_param(params)?;
                self.on_every_project(|p| {
                    for f in &files {
                        p.clear_overlay(f);
                    }
                });
                self.clear_transforms();
                Ok(json!({}))
            }
            "didRemove" => {
                let files = files_param(params)?;
                self.on_every_project(|p| {
                    for f in &files {
                        p.clear_overlay(f);
                        p.forget(f);
                    }
                });
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
        let _idle = self.wait_idle();
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
        // The text is the file's for every later request, whichever project compiles them.
        let text: Arc<str> = Arc::from(code);
        // The main project (its caches are warm from the scans) unless a scan holds it: then the
        // side project, rather than waiting for the whole project's compile.
        let (project, _held) = match self.busy.try_lock() {
            Ok(g) => (&self.project, g),
            Err(TryLockError::Poisoned(e)) => (&self.project, e.into_inner()),
            Err(TryLockError::WouldBlock) => {
                let (side, lock) = self.side.get_or_init(|| {
                    let side = Project::new(self.project.config.clone());
                    // The texts given before it existed (later ones go to both).
                    for (p, t) in self.project.overlays() {
                        side.set_overlay(p, t);
                    }
                    (Arc::new(side), Mutex::new(()))
                });
                (side, lock.lock().unwrap_or_else(|e| e.into_inner()))
            }
        };
        for p in self.projects() {
            p.set_overlay(path.clone(), text.clone());
        }
        let before = project.parse_count();
        let c = compile_files(project.clone(), std::slice::from_ref(&path));
        let parsed = project.parse_count() - before;
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

/// A request line, read.
struct Request {
    id: Value,
    method: String,
    params: Value,
}

impl Request {
    /// The request, or the error response to a line that is none.
    fn parse(line: &str) -> Result<Request, Value> {
        let req: Value = serde_json::from_str(line).map_err(
            |e| json!({ "id": null, "error": { "code": "bad-request", "message": format!("not JSON: {e}") } }),
        )?;
        let id = req.get("id").cloned().unwrap_or(Value::Null);
        let Some(method) = req.get("method").and_then(Value::as_str) else {
            return Err(
                json!({ "id": id, "error": { "code": "bad-request", "message": "a request needs a string `method`" } }),
            );
        };
        Ok(Request { method: method.to_string(), params: req.get("params").cloned().unwrap_or(json!({})), id })
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

/// The provenance edits of each file whose contracts compiled without a diagnostic in it, with
/// the SHA-256 of the text compiled: a client given that same text for a transform may apply them
/// without asking (a build, whose scan reports every diagnostic anyway).
fn scan_provenance(c: &Compilation) -> Vec<Value> {
    use sha2::Digest;
    let with_diagnostics = diagnosed_files(c);
    let mut files: Vec<_> = c.contracts.iter().map(|cc| cc.file).filter(|f| !with_diagnostics.contains(f)).collect();
    files.sort();
    files.dedup();
    files
        .into_iter()
        .map(|id| {
            let f = c.project.db.get(id);
            let digest = sha2::Sha256::digest(f.text.as_bytes());
            let sha256: String = digest.iter().map(|b| format!("{b:02x}")).collect();
            json!({
                "file": f.path.to_string_lossy(),
                "sha256": sha256,
                "edits": agent_surface_compiler::provenance::provenance_edits(c, &f.path),
            })
        })
        .collect()
}

/// The files a diagnostic of the compilation is located in.
fn diagnosed_files(c: &Compilation) -> std::collections::HashSet<agent_surface_compiler::source::FileId> {
    c.diagnostics.iter().map(|d| d.primary.span.file).collect()
}

/// The scanned files that declare no contract and have no diagnostic: a transform of the text the
/// scan read gives nothing, so a build may leave them to the bundler unread.
fn scan_inert(c: &Compilation) -> Vec<String> {
    let db = &c.project.db;
    let touched: std::collections::HashSet<PathBuf> = diagnosed_files(c)
        .into_iter()
        .chain(c.contracts.iter().map(|cc| cc.file))
        .map(|id| db.get(id).path.clone())
        .collect();
    c.files.iter().filter(|f| !touched.contains(*f)).map(|f| f.to_string_lossy().into_owned()).collect()
}

fn scan_result(c: &Compilation) -> Value {
    json!({
        "provenance": scan_provenance(c),
        "inert": scan_inert(c),
        "manifest": c.manifest().to_value(),
        "manifestHash": c.manifest().manifest_hash,
        "locations": c.locations().locations,
        "complete": c.manifest().completeness.status == agent_surface_model::manifest::CompletenessStatus::Complete,
        "diagnostics": c.diagnostics.iter().map(|d| diagnostic_json(d, &c.project.db)).collect::<Vec<_>>(),
        "files": c.files.len(),
        "elapsedMs": c.elapsed.as_millis() as u64,
    })
}

/// Writes one response line (whole: the scan thread writes too).
fn write_line(out: &Mutex<std::io::Stdout>, v: &Value) -> std::io::Result<()> {
    let mut out = out.lock().unwrap_or_else(|e| e.into_inner());
    writeln!(out, "{v}")?;
    out.flush()
}

/// Work for the scan thread, in request order.
enum Job {
    Scan(Request),
    /// Answered once every scan asked for before it has been.
    Barrier(std::sync::mpsc::Sender<()>),
}

/// Runs the protocol on stdin/stdout until stdin closes or `shutdown`. Scans run on a thread of
/// their own, one after another, so a transform asked for during a scan is answered without
/// waiting for it. `didChange`, `didRemove` and `shutdown` wait for the scans asked for before
/// them (a scan sees the texts given before it, and no later notification); the end of stdin
/// too, so every request is answered.
pub fn run_stdio(server: Server, pool: rayon::ThreadPool) -> std::io::Result<()> {
    let server = Arc::new(server);
    // Both threads compile in `pool` (parser-sized stacks; parallel iterators stay in it).
    let pool = Arc::new(pool);
    let out = Arc::new(Mutex::new(std::io::stdout()));
    write_line(&out, &hello(server.root()))?;
    let (jobs, queue) = std::sync::mpsc::channel::<Job>();
    // Without a thread (none could be started), scans are answered in line.
    let scanner = {
        let (server, out, pool) = (server.clone(), out.clone(), pool.clone());
        std::thread::Builder::new()
            .name("agent-surface-scan".into())
            .spawn(move || {
                for job in queue {
                    match job {
                        // A client that went away is seen by the reader (stdin closes).
                        Job::Scan(req) => drop(write_line(&out, &pool.install(|| server.respond(&req)))),
                        Job::Barrier(done) => drop(done.send(())),
                    }
                }
            })
            .ok()
    };
    let jobs = scanner.as_ref().map(|_| jobs);
    // Waits for the scans asked for so far.
    let barrier = || {
        if let Some(jobs) = &jobs {
            let (done, wait) = std::sync::mpsc::channel();
            if jobs.send(Job::Barrier(done)).is_ok() {
                let _ = wait.recv();
            }
        }
    };
    for line in std::io::stdin().lock().lines() {
        let line = match line {
            Ok(l) => l,
            // Invalid UTF-8 on the wire: answer and go on.
            Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                write_line(
                    &out,
                    &json!({ "id": null, "error": { "code": "bad-request", "message": "the request line is not UTF-8" } }),
                )?;
                continue;
            }
            Err(e) => return Err(e),
        };
        if line.trim().is_empty() {
            continue;
        }
        let req = match Request::parse(&line) {
            Ok(req) => req,
            Err(response) => {
                write_line(&out, &response)?;
                continue;
            }
        };
        let req = match (req.method.as_str(), &jobs) {
            ("scan", Some(jobs)) => match jobs.send(Job::Scan(req)) {
                Ok(()) => continue,
                Err(std::sync::mpsc::SendError(job)) => match job {
                    Job::Scan(req) => req,
                    Job::Barrier(_) => continue,
                },
            },
            ("didChange" | "didRemove" | "shutdown", _) => {
                barrier();
                req
            }
            _ => req,
        };
        write_line(&out, &server.respond(&req))?;
        if req.method == "shutdown" {
            return Ok(());
        }
    }
    barrier();
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
    fn a_scan_gives_the_edits_of_each_clean_contract_file_and_the_hash_of_its_text() {
        use sha2::Digest;
        let (s, _d) = server();
        let file = s.root().join("c.ts");
        let bad = s.root().join("bad.ts");
        std::fs::write(&bad, "import { defineAgentComponentContract } from '@agent-surface/core';\nexport const b = defineAgentComponentContract({ type: 'Not A Type!', description: 'x' });\n").unwrap();
        let code = std::fs::read_to_string(&file).unwrap();
        let (scan, _) = s.handle_line("{\"id\":1,\"method\":\"scan\"}");
        let provenance = scan["result"]["provenance"].as_array().unwrap().clone();
        // bad.ts has a diagnostic (AS0101): only a transform gives what to do with it.
        assert_eq!(scan["result"]["diagnostics"][0]["file"], "bad.ts", "{scan}");
        assert_eq!(provenance.len(), 1, "{scan}");
        assert_eq!(provenance[0]["file"], file.to_string_lossy().as_ref());
        let sha256: String = sha2::Sha256::digest(code.as_bytes()).iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(provenance[0]["sha256"], sha256);
        let req = json!({ "id": 2, "method": "transform", "params": { "file": file, "code": code } }).to_string();
        let (t, _) = s.handle_line(&req);
        assert_eq!(t["result"]["edits"].as_array().unwrap().len(), 1, "{t}");
        assert_eq!(provenance[0]["edits"], t["result"]["edits"]);
    }

    #[test]
    fn a_scan_names_the_files_a_transform_leaves_alone() {
        let (s, _d) = server();
        let root = s.root().to_path_buf();
        std::fs::write(root.join("plain.ts"), "export const x = 1;\n").unwrap();
        std::fs::write(root.join("uses.ts"), "import type { ContractProvenance } from '@agent-surface/core';\nexport let p: ContractProvenance | undefined;\n").unwrap();
        std::fs::write(root.join("bad.ts"), "import { defineAgentComponentContract } from '@agent-surface/core';\nexport const b = defineAgentComponentContract({ type: 'Not A Type!', description: 'x' });\n").unwrap();
        let (scan, _) = s.handle_line("{\"id\":1,\"method\":\"scan\"}");
        let mut inert: Vec<String> =
            scan["result"]["inert"].as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect();
        inert.sort();
        // Not c.ts (a contract) nor bad.ts (a diagnostic); each inert file transforms to nothing.
        let expected: Vec<String> =
            ["plain.ts", "uses.ts"].iter().map(|f| root.join(f).to_string_lossy().into_owned()).collect();
        assert_eq!(inert, expected, "{scan}");
        for file in &inert {
            let code = std::fs::read_to_string(file).unwrap();
            let (t, _) = s.handle_line(
                &json!({ "id": 2, "method": "transform", "params": { "file": file, "code": code } }).to_string(),
            );
            assert_eq!(t["result"]["edits"], json!([]), "{t}");
            assert_eq!(t["result"]["diagnostics"], json!([]), "{t}");
        }
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
