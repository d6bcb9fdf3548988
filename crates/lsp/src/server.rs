//! The server: one long-lived project per workspace folder, open buffers as overlays, the
//! server's own file watcher, debounced recompiles, and publishing (or answering pulls for)
//! the diagnostics that changed.

use crate::capabilities::{capabilities, client_caps, roots, ClientCaps};
use crate::convert::{apply_change, merge_duplicates, to_lsp};
use crate::uri::{path_to_uri, uri_to_path};
use crate::SOURCE;
use agent_surface_compiler::compile::compile_shared;
use agent_surface_compiler::config::{is_config_name, Config, CONFIG_FILE};
use agent_surface_compiler::discover::is_source_file;
use agent_surface_compiler::paths::normalize;
use agent_surface_compiler::project::changes::{fs_changes, report, FsChange};
use agent_surface_compiler::project::{ChangeTracking, Project};
use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use lsp_types::notification::Notification as _;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// How long after the last change a project is recompiled.
pub const DEBOUNCE: Duration = Duration::from_millis(150);
/// Files that mark a folder as a project (for a file opened outside every workspace folder).
const CONFIG_NAMES: [&str; 3] = [CONFIG_FILE, "package.json", "tsconfig.json"];

/// One workspace folder: its project and the diagnostics of its last compile.
struct Folder {
    root: PathBuf,
    /// `None` while the folder's configuration is invalid (reported with `showMessage`).
    project: Option<Arc<Project>>,
    /// When to recompile; `None` when up to date.
    due: Option<Instant>,
    compiled: bool,
    diagnostics: HashMap<PathBuf, Vec<lsp::Diagnostic>>,
    /// The server's watcher watches the folder: its project hears of every change.
    watched: bool,
}

struct OpenDoc {
    uri: lsp::Uri,
    version: i32,
    text: String,
    /// The version whose diagnostics were last published (`None`: none since it was opened).
    /// An open file is published when its diagnostics change or its version does, never the
    /// same diagnostics twice for one version (a save compiles, and so does the watcher event
    /// the save causes).
    published: Option<i32>,
}

struct Server {
    sender: Sender<Message>,
    /// Watches every folder's files, so a project hears of every change and a compile reads
    /// only what changed (`None`: watching is unavailable, projects rescan on each compile).
    watcher: Option<FolderWatcher>,
    folders: Vec<Folder>,
    open: HashMap<PathBuf, OpenDoc>,
    caps: ClientCaps,
    next_id: i32,
    shutdown: bool,
    /// The client stopped reading: nothing more can be said.
    gone: bool,
}

/// The server's own file watcher: editors' watchers differ in what they report (a folder
/// renamed is often one event for the folder, or none), so the server watches for itself.
struct FolderWatcher {
    watcher: notify::RecommendedWatcher,
    events: Receiver<notify::Result<notify::Event>>,
}

impl FolderWatcher {
    fn new() -> Option<FolderWatcher> {
        let (tx, events) = crossbeam_channel::unbounded();
        let watcher = notify::recommended_watcher(move |e| {
            let _ = tx.send(e);
        })
        .ok()?;
        Some(FolderWatcher { watcher, events })
    }
}

/// A request handler's failure.
struct Failure(ErrorCode, String);

impl Server {
    fn send(&mut self, m: impl Into<Message>) {
        if self.sender.send(m.into()).is_err() {
            self.gone = true;
        }
    }

    fn notify<N: lsp::notification::Notification>(&mut self, params: N::Params) {
        self.send(Notification::new(N::METHOD.to_string(), params));
    }

    fn request<R: lsp::request::Request>(&mut self, params: R::Params) {
        self.next_id += 1;
        let id = RequestId::from(format!("agent-surface-{}", self.next_id));
        self.send(Request::new(id, R::METHOD.to_string(), params));
    }

    fn show_error(&mut self, message: String) {
        self.notify::<lsp::notification::ShowMessage>(lsp::ShowMessageParams { typ: lsp::MessageType::ERROR, message });
    }

    fn log(&mut self, typ: lsp::MessageType, message: String) {
        self.notify::<lsp::notification::LogMessage>(lsp::LogMessageParams { typ, message });
    }

    fn uri_of(&self, path: &Path) -> lsp::Uri {
        self.open.get(path).map(|d| d.uri.clone()).unwrap_or_else(|| path_to_uri(path))
    }

    /// A project with the folder's configuration and the open buffers, or the reason it has none.
    fn new_project(&self, root: &Path, watched: bool) -> Result<Arc<Project>, String> {
        let config = Config::load(root)
            .map_err(|e| format!("agent-surface: invalid configuration, no diagnostics for {}: {e}", root.display()))?;
        let project = Project::new(config);
        if watched {
            project.set_change_tracking(ChangeTracking::Reported);
        }
        for (path, doc) in &self.open {
            project.set_overlay(path.clone(), Arc::from(doc.text.as_str()));
        }
        Ok(Arc::new(project))
    }

    fn add_folder(&mut self, root: PathBuf) -> usize {
        if let Some(i) = self.folders.iter().position(|f| f.root == root) {
            return i;
        }
        let watched = self.watch_folder(&root);
        let project = match self.new_project(&root, watched) {
            Ok(p) => Some(p),
            Err(message) => {
                self.show_error(message);
                None
            }
        };
        self.folders.push(Folder {
            root,
            project,
            due: Some(Instant::now()),
            compiled: false,
            diagnostics: HashMap::new(),
            watched,
        });
        self.folders.len() - 1
    }

    /// Starts watching a folder; false if it cannot be watched (the project then rescans).
    fn watch_folder(&mut self, root: &Path) -> bool {
        use notify::Watcher as _;
        let Some(w) = &mut self.watcher else { return false };
        match w.watcher.watch(root, notify::RecursiveMode::Recursive) {
            Ok(()) => true,
            Err(e) => {
                let message = format!(
                    "agent-surface: cannot watch {} ({e}); every compile reads the whole folder again",
                    root.display()
                );
                self.log(lsp::MessageType::WARNING, message);
                false
            }
        }
    }

    fn remove_folder(&mut self, root: &Path) {
        let Some(i) = self.folders.iter().position(|f| f.root == root) else { return };
        let folder = self.folders.remove(i);
        if folder.watched && !self.folders.iter().any(|f| f.watched && f.root == folder.root) {
            use notify::Watcher as _;
            if let Some(w) = &mut self.watcher {
                let _ = w.watcher.unwatch(&folder.root);
            }
        }
        for path in folder.diagnostics.keys() {
            self.publish(path, Vec::new());
        }
    }

    /// Reloads the configuration of folders rooted at `dir` (a config file there changed).
    fn reload(&mut self, dir: &Path) {
        for i in 0..self.folders.len() {
            if self.folders[i].root != dir {
                continue;
            }
            let project = match self.new_project(dir, self.folders[i].watched) {
                Ok(p) => Some(p),
                Err(message) => {
                    self.show_error(message);
                    None
                }
            };
            self.folders[i].project = project;
            self.schedule(i, Duration::ZERO);
        }
    }

    /// The folder a file belongs to: the innermost root that contains it.
    fn owner(&self, path: &Path) -> Option<usize> {
        self.folders
            .iter()
            .enumerate()
            .filter(|(_, f)| path.starts_with(&f.root))
            .max_by_key(|(_, f)| f.root.as_os_str().len())
            .map(|(i, _)| i)
    }

    /// The owner, or a project for a file outside every workspace folder: the nearest folder
    /// above it holding a configuration, a tsconfig.json or a .git.
    fn owner_or_adopt(&mut self, path: &Path) -> Option<usize> {
        if let Some(i) = self.owner(path) {
            return Some(i);
        }
        let root = path
            .ancestors()
            .skip(1)
            .find(|d| CONFIG_NAMES.iter().any(|n| d.join(n).is_file()) || d.join(".git").exists())?;
        let root = root.to_path_buf();
        self.log(
            lsp::MessageType::INFO,
            format!(
                "agent-surface: {} is outside the workspace folders; using the project at {}",
                path.display(),
                root.display()
            ),
        );
        Some(self.add_folder(root))
    }

    /// Folders a change to `path` can affect: its owner and every project that read it.
    fn affected(&mut self, path: &Path) -> Vec<usize> {
        let owner = self.owner_or_adopt(path);
        (0..self.folders.len())
            .filter(|&i| {
                Some(i) == owner
                    || path.starts_with(&self.folders[i].root)
                    || self.folders[i].project.as_ref().is_some_and(|p| p.db.lookup(path).is_some())
            })
            .collect()
    }

    /// Recompile now (after the queued messages) or after the debounce delay.
    fn schedule(&mut self, i: usize, delay: Duration) {
        let at = Instant::now() + delay;
        let f = &mut self.folders[i];
        f.due = Some(match f.due {
            Some(d) if delay.is_zero() => d.min(at),
            _ => at,
        });
    }

    fn schedule_path(&mut self, path: &Path, delay: Duration) {
        for i in self.affected(path) {
            self.schedule(i, delay);
        }
    }

    fn set_overlay(&self, path: &Path, text: &str) {
        let text: Arc<str> = Arc::from(text);
        for p in self.folders.iter().filter_map(|f| f.project.as_ref()) {
            p.set_overlay(path.to_path_buf(), text.clone());
        }
    }

    fn clear_overlay(&self, path: &Path) {
        for p in self.folders.iter().filter_map(|f| f.project.as_ref()) {
            p.clear_overlay(path);
        }
    }

    fn next_due(&self) -> Option<Instant> {
        self.folders.iter().filter_map(|f| f.due).min()
    }

    fn run_due(&mut self) {
        let now = Instant::now();
        for i in 0..self.folders.len() {
            if self.folders[i].due.is_some_and(|d| d <= now) {
                self.compile(i, None);
            }
        }
    }

    /// Recompiles folder `i` and publishes what changed (or, for open files of a pulling
    /// client, asks it to refresh when files other than `pulled` changed).
    fn compile(&mut self, i: usize, pulled: Option<&Path>) {
        self.folders[i].due = None;
        self.folders[i].compiled = true;
        let mut fresh: HashMap<PathBuf, Vec<lsp::Diagnostic>> = HashMap::new();
        if let Some(project) = self.folders[i].project.clone() {
            match compile_shared(project) {
                Ok(c) => {
                    let uri_of = |p: &Path| self.uri_of(p);
                    for d in &c.diagnostics {
                        for (path, diag) in to_lsp(d, &c.project.db, &uri_of) {
                            // A file of a nested folder is that folder's to report.
                            if self.owner(&path).is_none_or(|o| o == i) {
                                fresh.entry(path).or_default().push(diag);
                            }
                        }
                    }
                }
                Err(e) => {
                    let message = format!("agent-surface: {e}");
                    self.show_error(message);
                }
            }
        }
        for diagnostics in fresh.values_mut() {
            merge_duplicates(diagnostics);
        }
        let old = std::mem::replace(&mut self.folders[i].diagnostics, fresh);
        let fresh = &self.folders[i].diagnostics;
        let mut paths: BTreeSet<PathBuf> = old.keys().chain(fresh.keys()).cloned().collect();
        let has_project = self.folders[i].project.is_some();
        if has_project {
            paths.extend(self.open.keys().filter(|p| self.owner(p) == Some(i)).cloned());
        }
        let mut refresh = false;
        let mut publish = Vec::new();
        for path in paths {
            let now = fresh.get(&path).cloned().unwrap_or_default();
            let before = old.get(&path).map(Vec::as_slice).unwrap_or_default();
            let changed = now.as_slice() != before;
            let open = self.open.get(&path);
            if self.caps.pull && open.is_some() {
                refresh |= changed && pulled != Some(path.as_path());
            } else if changed || open.is_some_and(|d| d.published != Some(d.version)) {
                publish.push((path, now));
            }
        }
        for (path, diags) in publish {
            self.publish(&path, diags);
        }
        if refresh && self.caps.refresh {
            self.request::<lsp::request::WorkspaceDiagnosticRefresh>(());
        }
    }

    /// The diagnostics of `path` from its folder's last compile.
    fn current(&self, path: &Path) -> Vec<lsp::Diagnostic> {
        self.owner(path).and_then(|i| self.folders[i].diagnostics.get(path)).cloned().unwrap_or_default()
    }

    fn publish(&mut self, path: &Path, diagnostics: Vec<lsp::Diagnostic>) {
        let version = self.open.get_mut(path).map(|d| {
            d.published = Some(d.version);
            d.version
        });
        let uri = self.uri_of(path);
        self.notify::<lsp::notification::PublishDiagnostics>(lsp::PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        });
    }

    // -- requests ------------------------------------------------------------------------------

    fn handle_request(&mut self, req: Request) -> Result<Value, Failure> {
        if self.shutdown {
            return Err(Failure(ErrorCode::InvalidRequest, "the server is shutting down".into()));
        }
        match req.method.as_str() {
            "shutdown" => {
                self.shutdown = true;
                Ok(Value::Null)
            }
            "initialize" => Err(Failure(ErrorCode::InvalidRequest, "the server is already initialized".into())),
            "textDocument/diagnostic" => {
                let params: lsp::DocumentDiagnosticParams = params(req.params)?;
                let items = self.pull(&params.text_document.uri);
                let report = lsp::DocumentDiagnosticReport::Full(lsp::RelatedFullDocumentDiagnosticReport {
                    related_documents: None,
                    full_document_diagnostic_report: lsp::FullDocumentDiagnosticReport { result_id: None, items },
                });
                Ok(serde_json::to_value(lsp::DocumentDiagnosticReportResult::Report(report)).unwrap_or(Value::Null))
            }
            other => Err(Failure(ErrorCode::MethodNotFound, format!("unknown request `{other}`"))),
        }
    }

    fn pull(&mut self, uri: &lsp::Uri) -> Vec<lsp::Diagnostic> {
        let Some(path) = uri_to_path(uri) else { return Vec::new() };
        let Some(i) = self.owner_or_adopt(&path) else { return Vec::new() };
        if self.folders[i].due.is_some() || !self.folders[i].compiled {
            self.compile(i, Some(&path));
        }
        self.folders[i].diagnostics.get(&path).cloned().unwrap_or_default()
    }

    // -- notifications -------------------------------------------------------------------------

    fn handle_notification(&mut self, n: Notification) -> Result<(), String> {
        match n.method.as_str() {
            lsp::notification::DidOpenTextDocument::METHOD => {
                let p: lsp::DidOpenTextDocumentParams = note_params(n)?;
                let Some(path) = uri_to_path(&p.text_document.uri).filter(|p| is_source_file(p)) else { return Ok(()) };
                self.set_overlay(&path, &p.text_document.text);
                self.open.insert(
                    path.clone(),
                    OpenDoc {
                        uri: p.text_document.uri,
                        version: p.text_document.version,
                        text: p.text_document.text,
                        published: None,
                    },
                );
                if self.caps.pull && !self.current(&path).is_empty() {
                    // The client pulls an open file's diagnostics: clear the pushed ones.
                    self.publish(&path, Vec::new());
                }
                self.schedule_path(&path, Duration::ZERO);
            }
            lsp::notification::DidChangeTextDocument::METHOD => {
                let p: lsp::DidChangeTextDocumentParams = note_params(n)?;
                let Some(path) = uri_to_path(&p.text_document.uri) else { return Ok(()) };
                let Some(doc) = self.open.get_mut(&path) else { return Ok(()) };
                doc.version = p.text_document.version;
                for change in p.content_changes {
                    apply_change(&mut doc.text, change);
                }
                let text = doc.text.clone();
                self.set_overlay(&path, &text);
                self.schedule_path(&path, DEBOUNCE);
            }
            lsp::notification::DidSaveTextDocument::METHOD => {
                let p: lsp::DidSaveTextDocumentParams = note_params(n)?;
                let Some(path) = uri_to_path(&p.text_document.uri) else { return Ok(()) };
                if is_config_file(&path) {
                    self.reload(path.parent().unwrap_or(Path::new("/")));
                    return Ok(());
                }
                if !is_source_file(&path) {
                    return Ok(());
                }
                if let (Some(text), Some(doc)) = (p.text, self.open.get_mut(&path)) {
                    doc.text = text.clone();
                    self.set_overlay(&path, &text);
                }
                self.schedule_path(&path, Duration::ZERO);
            }
            lsp::notification::DidCloseTextDocument::METHOD => {
                let p: lsp::DidCloseTextDocumentParams = note_params(n)?;
                let Some(path) = uri_to_path(&p.text_document.uri) else { return Ok(()) };
                if self.open.remove(&path).is_some() {
                    if self.caps.pull {
                        // No longer pulled: pushed again.
                        let diags = self.current(&path);
                        if !diags.is_empty() {
                            self.publish(&path, diags);
                        }
                    }
                    // The buffer may have differed from the file: back to the disk's text.
                    self.clear_overlay(&path);
                    self.schedule_path(&path, Duration::ZERO);
                }
            }
            lsp::notification::DidChangeWatchedFiles::METHOD => {
                let p: lsp::DidChangeWatchedFilesParams = note_params(n)?;
                for change in p.changes {
                    let Some(path) = uri_to_path(&change.uri) else { continue };
                    if is_config_file(&path) {
                        self.reload(path.parent().unwrap_or(Path::new("/")));
                        continue;
                    }
                    if change.typ == lsp::FileChangeType::DELETED {
                        for project in self.folders.iter().filter_map(|f| f.project.as_ref()) {
                            if !self.open.contains_key(&path) {
                                project.clear_overlay(&path);
                            }
                            project.forget(&path);
                        }
                        self.schedule_path(&path, Duration::ZERO);
                    } else if is_source_file(&path) {
                        if !self.open.contains_key(&path) {
                            self.clear_overlay(&path);
                        }
                        for project in self.folders.iter().filter_map(|f| f.project.as_ref()) {
                            project.file_changed(&path);
                            if change.typ == lsp::FileChangeType::CREATED {
                                project.files_added_or_removed();
                            }
                        }
                        self.schedule_path(&path, Duration::ZERO);
                    }
                }
            }
            lsp::notification::DidChangeWorkspaceFolders::METHOD => {
                let p: lsp::DidChangeWorkspaceFoldersParams = note_params(n)?;
                for f in p.event.removed {
                    if let Some(root) = uri_to_path(&f.uri) {
                        self.remove_folder(&root);
                    }
                }
                for f in p.event.added {
                    if let Some(root) = uri_to_path(&f.uri) {
                        self.add_folder(root);
                    }
                }
            }
            lsp::notification::Initialized::METHOD => self.register_watchers(),
            // $/cancelRequest, $/setTrace, workspace/didChangeConfiguration, ...: nothing to do.
            _ => {}
        }
        Ok(())
    }

    /// Tells the projects about a change the server's watcher saw, and schedules their compile.
    fn files_changed(&mut self, event: notify::Result<notify::Event>) {
        let mut changes = fs_changes(event);
        // A burst (a checkout, a formatter run) is handled at once.
        if let Some(w) = &self.watcher {
            changes.extend(w.events.try_iter().flat_map(fs_changes));
        }
        for change in changes {
            let path = match &change {
                FsChange::Path { path, .. } => Some(normalize(path)),
                FsChange::Rescan => None,
            };
            if path.as_deref().is_some_and(|p| {
                p.components().any(|c| matches!(c.as_os_str().to_str(), Some("node_modules" | ".git")))
            }) {
                continue;
            }
            // Folders whose configuration changed: reloaded.
            let mut reload = Vec::new();
            for i in 0..self.folders.len() {
                let f = &self.folders[i];
                if !path.as_deref().is_none_or(|p| p.starts_with(&f.root)) {
                    continue;
                }
                let Some(project) = f.project.clone() else {
                    // No project (its configuration is invalid): only a configuration change matters.
                    if path.as_deref().is_some_and(is_config_file) {
                        reload.push(f.root.clone());
                    }
                    continue;
                };
                let reported = report(&project, &change);
                if reported.file.as_deref().is_some_and(|file| project.config.is_input(file)) {
                    reload.push(f.root.clone());
                    continue;
                }
                if reported.file.is_some() || reported.walk {
                    self.schedule(i, DEBOUNCE);
                }
            }
            for root in reload {
                self.reload(&root);
            }
        }
    }

    /// Asks the client to watch the project's sources and configuration files for us.
    fn register_watchers(&mut self) {
        if !self.caps.watch_registration {
            return;
        }
        let watchers: Vec<lsp::FileSystemWatcher> =
            ["**/*.{ts,tsx,mts,cts}", "**/{agent-surface.config.json,package.json,tsconfig*.json}"]
                .iter()
                .map(|g| lsp::FileSystemWatcher { glob_pattern: lsp::GlobPattern::String(g.to_string()), kind: None })
                .collect();
        let options = lsp::DidChangeWatchedFilesRegistrationOptions { watchers };
        self.request::<lsp::request::RegisterCapability>(lsp::RegistrationParams {
            registrations: vec![lsp::Registration {
                id: "agent-surface-watched-files".into(),
                method: lsp::notification::DidChangeWatchedFiles::METHOD.into(),
                register_options: serde_json::to_value(options).ok(),
            }],
        });
    }

    /// Handles one message under `catch_unwind`; returns false on `exit`.
    fn handle(&mut self, msg: Message) -> bool {
        match msg {
            Message::Request(req) => {
                let id = req.id.clone();
                let method = req.method.clone();
                let response = match catch_unwind(AssertUnwindSafe(|| self.handle_request(req))) {
                    Ok(Ok(result)) => Response::new_ok(id, result),
                    Ok(Err(Failure(code, message))) => Response::new_err(id, code as i32, message),
                    Err(_) => Response::new_err(
                        id,
                        ErrorCode::InternalError as i32,
                        format!("agent-surface failed on `{method}` (please report it)"),
                    ),
                };
                self.send(response);
                true
            }
            Message::Notification(n) if n.method == "exit" => false,
            Message::Notification(n) => {
                let method = n.method.clone();
                match catch_unwind(AssertUnwindSafe(|| self.handle_notification(n))) {
                    Ok(Ok(())) => {}
                    Ok(Err(e)) => {
                        self.log(lsp::MessageType::WARNING, format!("agent-surface: ignored `{method}`: {e}"))
                    }
                    Err(_) => self
                        .log(lsp::MessageType::ERROR, format!("agent-surface failed on `{method}` (please report it)")),
                }
                true
            }
            Message::Response(r) => {
                if let Err(e) = r.response_result {
                    self.log(
                        lsp::MessageType::WARNING,
                        format!("agent-surface: the client refused request {}: {}", r.id, e.message),
                    );
                }
                true
            }
        }
    }
}

/// Files whose change reloads a project's configuration (`tsconfig.app.json` too).
fn is_config_file(path: &Path) -> bool {
    is_config_name(path)
}

fn params<P: serde::de::DeserializeOwned>(v: Value) -> Result<P, Failure> {
    serde_json::from_value(v).map_err(|e| Failure(ErrorCode::InvalidParams, format!("invalid params: {e}")))
}

fn note_params<P: serde::de::DeserializeOwned>(n: Notification) -> Result<P, String> {
    serde_json::from_value(n.params).map_err(|e| format!("invalid params: {e}"))
}

/// Runs a session on `connection` until `exit` (or the client goes away). Returns whether the
/// client shut the server down properly (`shutdown` before `exit` or the end of input): the
/// exit code is 0 then, 1 otherwise, as the protocol asks.
pub fn run(connection: Connection) -> bool {
    let Connection { sender, receiver } = connection;
    // Before `initialize`: requests get ServerNotInitialized, notifications other than exit are
    // dropped.
    let (id, init) = loop {
        match receiver.recv() {
            Ok(Message::Request(r)) if r.method == "initialize" => break (r.id, r.params),
            Ok(Message::Request(r)) => {
                let _ = sender.send(
                    Response::new_err(
                        r.id,
                        ErrorCode::ServerNotInitialized as i32,
                        "the server is not initialized".into(),
                    )
                    .into(),
                );
            }
            Ok(Message::Notification(n)) if n.method == "exit" => return false,
            Ok(_) => {}
            Err(_) => return false,
        }
    };
    let result = lsp::InitializeResult {
        capabilities: capabilities(),
        server_info: Some(lsp::ServerInfo { name: SOURCE.into(), version: Some(env!("CARGO_PKG_VERSION").into()) }),
    };
    let _ = sender.send(Response::new_ok(id, result).into());
    let mut server = Server {
        sender,
        watcher: FolderWatcher::new(),
        folders: Vec::new(),
        open: HashMap::new(),
        caps: client_caps(&init),
        next_id: 0,
        shutdown: false,
        gone: false,
    };
    for root in roots(&init) {
        server.add_folder(root);
    }
    serve(&mut server, &receiver)
}

/// What the loop waits for.
enum Wake {
    Message(Message),
    Files(notify::Result<notify::Event>),
    /// The watcher stopped (its thread ended): projects rescan from now on.
    WatcherGone,
    Due,
    Disconnected,
}

fn next_wake(server: &Server, receiver: &Receiver<Message>) -> Wake {
    let never = crossbeam_channel::never();
    let events = server.watcher.as_ref().map_or(&never, |w| &w.events);
    let timeout = match server.next_due() {
        Some(due) => crossbeam_channel::at(due),
        None => crossbeam_channel::never(),
    };
    crossbeam_channel::select! {
        recv(receiver) -> m => m.map_or(Wake::Disconnected, Wake::Message),
        recv(events) -> e => e.map_or(Wake::WatcherGone, Wake::Files),
        recv(timeout) -> _ => Wake::Due,
    }
}

fn serve(server: &mut Server, receiver: &Receiver<Message>) -> bool {
    loop {
        let msg = match next_wake(server, receiver) {
            Wake::Message(m) => Some(m),
            Wake::Files(e) => {
                server.files_changed(e);
                None
            }
            Wake::WatcherGone => {
                server.watcher = None;
                for f in &mut server.folders {
                    f.watched = false;
                    if let Some(p) = &f.project {
                        p.set_change_tracking(ChangeTracking::Rescan);
                    }
                }
                None
            }
            Wake::Due => None,
            Wake::Disconnected => return server.shutdown,
        };
        if let Some(msg) = msg {
            if !server.handle(msg) {
                return server.shutdown;
            }
            // Take everything already queued before compiling: a burst of opens is one compile.
            while let Ok(m) = receiver.try_recv() {
                if !server.handle(m) {
                    return server.shutdown;
                }
            }
        }
        if catch_unwind(AssertUnwindSafe(|| server.run_due())).is_err() {
            for f in &mut server.folders {
                f.due = None;
            }
            server.log(lsp::MessageType::ERROR, "agent-surface: the compiler failed (please report it)".into());
        }
        if server.gone {
            return false;
        }
    }
}
