//! `mcp-devices MANIFEST`: the devices example app's agent surface as an MCP server over stdio.
//!
//! - Loads and verifies the compiled manifest (a `CapabilityAuthority`), binds every component
//!   (`devices.table`, `app.nav`), procedure (`domain:devices.decommission`,
//!   `domain:devices.reboot`) and external tool (`external:reports.export`, through the exposure
//!   gateway) over an in-memory devices store.
//! - Serves the toolset in direct mode with two-phase confirmations (a remote loop):
//!   `tools/list` with the `listChanged` capability and `notifications/tools/list_changed` when
//!   the tool block changes; `tools/call` → toolset execute with the JSON-RPC request id as
//!   invocationId; failures as `isError: true` results carrying our payload;
//!   `notifications/cancelled` → CANCELLED.
//! - Two-phase retry rule: the model repeats the same tool call with the same arguments; the
//!   host remembers the pending confirmation by (tool, arguments) and attaches it (see
//!   docs/toolset.md). Tool inputs stay exactly the capability's input.
//! - A host control channel that is NOT an MCP tool (a model must never approve its own
//!   confirmations): TCP on 127.0.0.1, newline-delimited commands, one JSON line per answer.
//!   The port is printed on stderr as `control: 127.0.0.1:PORT`. Commands: `pending`,
//!   `approve <id>`, `deny <id>`, `mount <instanceId>`, `unmount <instanceId>`,
//!   `disable <instanceId>`, `enable <instanceId>` (a state-only change), `count <capabilityId>`,
//!   `stats`, `devices`, `slow <ms>`.

mod store;

use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::gateway::{create_agent_exposure_gateway, ConfirmFn, ExposedTools};
use agent_surface_engine::invoke::{AgentInvocationResult, InvocationStatus};
use agent_surface_engine::providers::{tool_block, Provider};
use agent_surface_engine::registry::{AgentSurfaceRegistry, RegistrationHandle, RegistryOptions};
use agent_surface_engine::signal::{AbortController, AbortReason};
use agent_surface_engine::snapshot::{iso8601, AgentConsumer, ConsumerKind};
use agent_surface_engine::toolset::{
    create_agent_toolset, AgentTool, AgentToolset, AgentToolsetOptions, ConfirmationMode, ToolCall, ToolsetMode,
    Topology,
};
use agent_surface_model::canonical::canonical_json;
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, Implementation, ListToolsResult, PaginatedRequestParams,
    ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, Peer, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use store::Store;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

const CONFIRMATION_TTL_MS: u64 = 120_000;

/// A confirmation the host keeps for an external tool (the gateway asks the host; in two-phase
/// mode the host answers "not yet" and lets the model retry).
#[derive(Clone, Debug, PartialEq)]
enum ExternalState {
    Pending,
    Approved,
    Denied,
}

#[derive(Clone, Debug)]
struct ExternalConfirmation {
    id: String,
    capability_id: String,
    summary: String,
    key: String,
    state: ExternalState,
    requested_ms: u64,
}

struct Host {
    authority: CapabilityAuthority,
    registry: AgentSurfaceRegistry,
    toolset: AgentToolset,
    external: ExposedTools,
    consumer: AgentConsumer,
    store: Store,
    mounts: Mutex<BTreeMap<String, RegistrationHandle>>,
    external_confirmations: Mutex<Vec<ExternalConfirmation>>,
    /// Result codes of every tools/call ("OK" for successes).
    outcomes: Mutex<BTreeMap<String, usize>>,
    /// The MCP tool block the client last listed (to announce only real changes).
    listed: Mutex<String>,
    peer: Mutex<Option<Peer<RoleServer>>>,
    next_id: Mutex<u64>,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_millis() as u64).unwrap_or(0)
}

impl Host {
    fn new(authority: CapabilityAuthority) -> Result<Arc<Host>, String> {
        let registry = AgentSurfaceRegistry::new(
            RegistryOptions::new(authority.clone())
                .timer(Arc::new(agent_surface_engine::host::timer::TokioTimer))
                .spawn(Arc::new(agent_surface_engine::host::spawn::TokioSpawn)),
        );
        let consumer = AgentConsumer::new(ConsumerKind::McpBridge, "mcp-devices");
        let toolset = create_agent_toolset(
            &registry,
            AgentToolsetOptions {
                consumer: consumer.clone(),
                mode: ToolsetMode::Direct,
                topology: Some(Topology::Remote),
                confirmations: Some(ConfirmationMode::TwoPhase),
                ..Default::default()
            },
        )
        .map_err(|e| e.to_string())?;
        let store = Store::example();
        let export = store.bind_export(&authority).map_err(|e| e.to_string())?;
        let external =
            create_agent_exposure_gateway(&authority).expose(vec![export.into()]).map_err(|e| e.to_string())?;
        let host = Arc::new(Host {
            authority,
            registry,
            toolset,
            external,
            consumer,
            store,
            mounts: Mutex::default(),
            external_confirmations: Mutex::default(),
            outcomes: Mutex::default(),
            listed: Mutex::default(),
            peer: Mutex::default(),
            next_id: Mutex::new(0),
        });
        host.mount("main")?;
        let nav = host.store.bind_nav(&host.authority).map_err(|e| e.to_string())?;
        let handle = host.registry.register(nav).map_err(|e| e.to_string())?;
        host.mounts.lock().unwrap().insert("app.nav".into(), handle);
        Ok(host)
    }

    /// Mounts a `devices.table` instance (the first one references the procedures).
    fn mount(&self, instance: &str) -> Result<String, String> {
        let key = format!("devices.table#{instance}");
        if self.mounts.lock().unwrap().contains_key(&key) {
            return Err(format!("{instance} is already mounted"));
        }
        let bound = self.store.bind_table(&self.authority, instance).map_err(|e| e.to_string())?;
        let handle = self.registry.register(bound).map_err(|e| e.to_string())?;
        let id = handle.registration_id().to_string();
        self.mounts.lock().unwrap().insert(key, handle);
        Ok(id)
    }

    fn unmount(&self, instance: &str) -> Result<(), String> {
        let handle = self
            .mounts
            .lock()
            .unwrap()
            .remove(&format!("devices.table#{instance}"))
            .ok_or_else(|| format!("{instance} is not mounted"))?;
        handle.unregister();
        Ok(())
    }

    /// A state-only change: the registration stays, its capabilities become (un)available.
    fn set_enabled(&self, instance: &str, enabled: bool) -> Result<(), String> {
        let mounts = self.mounts.lock().unwrap();
        let handle =
            mounts.get(&format!("devices.table#{instance}")).ok_or_else(|| format!("{instance} is not mounted"))?;
        handle
            .update(agent_surface_engine::registry::RegistrationPatch { enabled: Some(enabled), ..Default::default() });
        Ok(())
    }

    fn agent_tools(&self) -> Vec<AgentTool> {
        let mut tools = self.toolset.tools();
        tools.extend(self.external.tools());
        tools.sort_by(|a, b| a.name.cmp(&b.name));
        tools
    }

    /// The MCP tool block: the toolset's direct tools plus the gateway's external tools.
    fn mcp_block(&self) -> Vec<Value> {
        tool_block(&self.agent_tools(), Provider::Mcp).unwrap_or_default()
    }

    fn has_output_schema(&self, name: &str) -> bool {
        self.mcp_block().iter().any(|t| t["name"] == name && t.get("outputSchema").is_some())
    }

    fn record(&self, r: &AgentInvocationResult) {
        let key = r.code().map(|c| c.as_str().to_string()).unwrap_or_else(|| "OK".into());
        *self.outcomes.lock().unwrap().entry(key).or_default() += 1;
    }

    fn host_id(&self) -> String {
        let mut n = self.next_id.lock().unwrap();
        *n += 1;
        format!("host-{n}")
    }

    /// tools/call for an external tool: the gateway validates, then asks the host, which
    /// answers two-phase: CONFIRMATION_REQUIRED until the user approved the same call.
    async fn call_external(&self, name: &str, input: Value, call_id: String) -> AgentInvocationResult {
        let key = canonical_json(&json!({"tool": name, "input": input}));
        let existing = {
            let mut list = self.external_confirmations.lock().unwrap();
            let now = now_ms();
            list.retain(|c| c.state != ExternalState::Pending || now < c.requested_ms + CONFIRMATION_TTL_MS);
            list.iter().find(|c| c.key == key).cloned()
        };
        let error = |code: ErrorCode, message: &str, capability_id: &str| AgentInvocationResult {
            status: InvocationStatus::Error,
            invocation_id: call_id.clone(),
            capability_id: capability_id.to_string(),
            output: None,
            error: Some(AgentCapabilityError::new(code, message)),
            surface_version: self.registry.version(),
            surface_changed: false,
        };
        let required = |c: &ExternalConfirmation| {
            let mut r = error(
                ErrorCode::ConfirmationRequired,
                "the user must confirm this operation; once approved, repeat the same call with the same arguments",
                &c.capability_id,
            );
            let e = r
                .error
                .take()
                .unwrap()
                .detail("confirmationId", c.id.clone())
                .detail("expiresAt", iso8601(c.requested_ms + CONFIRMATION_TTL_MS))
                .detail("summary", c.summary.clone());
            r.error = Some(e);
            r
        };
        match existing.as_ref().map(|c| c.state.clone()) {
            Some(ExternalState::Pending) => return required(existing.as_ref().unwrap()),
            Some(ExternalState::Denied) => {
                self.external_confirmations.lock().unwrap().retain(|c| c.key != key);
                return error(
                    ErrorCode::ConfirmationDenied,
                    "the user denied this operation",
                    &existing.unwrap().capability_id,
                );
            }
            _ => {}
        }
        let approved = existing.is_some();
        let asked: Arc<Mutex<Option<(String, Value)>>> = Arc::default();
        let a2 = asked.clone();
        let confirm: ConfirmFn = Arc::new(move |capability_id: &str, effective: &Value| {
            if !approved {
                *a2.lock().unwrap() = Some((capability_id.to_string(), effective.clone()));
            }
            Box::pin(async move { approved })
        });
        let r = self.external.execute(name, input, Some(call_id.clone()), self.consumer.clone(), Some(confirm)).await;
        if approved {
            self.external_confirmations.lock().unwrap().retain(|c| c.key != key);
            return r;
        }
        let asked = asked.lock().unwrap().take();
        match (r.code(), asked) {
            (Some(ErrorCode::ConfirmationDenied), Some((capability_id, effective))) => {
                let description = self
                    .authority
                    .manifest()
                    .contracts
                    .iter()
                    .find(|c| c.id() == capability_id)
                    .map(|c| c.description().to_string())
                    .unwrap_or_default();
                let c = ExternalConfirmation {
                    id: format!("cnf_ext{}", self.host_id().trim_start_matches("host-")),
                    capability_id,
                    summary: format!("{description} — {effective}"),
                    key,
                    state: ExternalState::Pending,
                    requested_ms: now_ms(),
                };
                self.external_confirmations.lock().unwrap().push(c.clone());
                required(&c)
            }
            _ => r,
        }
    }

    fn pending(&self) -> Value {
        let mut out: Vec<Value> = self
            .registry
            .confirmations()
            .pending()
            .into_iter()
            .map(|p| json!({"confirmationId": p.confirmation_id, "capabilityId": p.capability_id, "summary": p.summary, "expiresAt": p.expires_at}))
            .collect();
        for c in self.external_confirmations.lock().unwrap().iter().filter(|c| c.state == ExternalState::Pending) {
            out.push(json!({"confirmationId": c.id, "capabilityId": c.capability_id, "summary": c.summary, "expiresAt": iso8601(c.requested_ms + CONFIRMATION_TTL_MS)}));
        }
        Value::Array(out)
    }

    fn resolve(&self, id: &str, approve: bool) -> Result<(), String> {
        {
            let mut list = self.external_confirmations.lock().unwrap();
            if let Some(c) = list.iter_mut().find(|c| c.id == id && c.state == ExternalState::Pending) {
                c.state = if approve { ExternalState::Approved } else { ExternalState::Denied };
                return Ok(());
            }
        }
        self.registry.confirmations().resolve(id, approve).map_err(|e| e.to_string())
    }

    /// One control command → one JSON answer.
    fn control(&self, line: &str) -> Value {
        let mut parts = line.split_whitespace();
        let cmd = parts.next().unwrap_or("");
        let arg = parts.next();
        let ok = |r: Result<Value, String>| match r {
            Ok(v) => json!({"ok": true, "result": v}),
            Err(e) => json!({"ok": false, "error": e}),
        };
        match (cmd, arg) {
            ("pending", None) => ok(Ok(self.pending())),
            ("approve", Some(id)) => ok(self.resolve(id, true).map(|_| Value::Null)),
            ("deny", Some(id)) => ok(self.resolve(id, false).map(|_| Value::Null)),
            ("mount", Some(instance)) => ok(self.mount(instance).map(Value::from)),
            ("unmount", Some(instance)) => ok(self.unmount(instance).map(|_| Value::Null)),
            ("disable", Some(instance)) => ok(self.set_enabled(instance, false).map(|_| Value::Null)),
            ("enable", Some(instance)) => ok(self.set_enabled(instance, true).map(|_| Value::Null)),
            ("count", Some(capability)) => ok(Ok(json!(self.store.executions(capability)))),
            ("stats", None) => ok(Ok(json!({"executions": self.store.all_executions(), "outcomes": *self.outcomes.lock().unwrap(), "surfaceVersion": self.registry.version()}))),
            ("devices", None) => ok(Ok(self.store.device_ids())),
            ("slow", Some(ms)) => ok(ms.parse::<u64>().map(|ms| self.store.set_slow(ms)).map(|_| Value::Null).map_err(|e| e.to_string())),
            _ => ok(Err(format!("unknown command {line:?}; try pending, approve <id>, deny <id>, mount <instanceId>, unmount <instanceId>, disable <instanceId>, enable <instanceId>, count <capabilityId>, stats, devices, slow <ms>"))),
        }
    }
}

/// The result a client sees: the MCP bridge's mapping (`agent_surface_bridge::mcp::to_mcp`), one
/// rule for every MCP surface of agent-surface.
fn to_mcp(r: &AgentInvocationResult, has_output_schema: bool) -> CallToolResult {
    agent_surface_bridge::mcp::to_mcp(&serde_json::to_value(r).unwrap_or(Value::Null), has_output_schema, None)
}

#[derive(Clone)]
struct DevicesServer {
    host: Arc<Host>,
}

impl ServerHandler for DevicesServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
            .with_server_info(Implementation::new("mcp-devices", env!("CARGO_PKG_VERSION")))
            .with_instructions("The devices app's agent surface. Tools marked 'required' need the user's confirmation: the first call returns CONFIRMATION_REQUIRED; once the user approved, repeat the same call with the same arguments.")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let block = self.host.mcp_block();
        *self.host.listed.lock().unwrap() = serde_json::to_string(&block).unwrap_or_default();
        let tools: Result<Vec<Tool>, _> = block.into_iter().map(serde_json::from_value).collect();
        let tools = tools.map_err(|e| McpError::internal_error(format!("tool entry: {e}"), None))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let input = Value::Object(request.arguments.unwrap_or_default());
        // The JSON-RPC request id is the tool call's id: the invocationId.
        let call_id = context.id.to_string();
        let has_output_schema = self.host.has_output_schema(&name);
        let ct = context.ct.clone();
        let r = self.host.call(&name, input, call_id, async move { ct.cancelled().await }).await;
        Ok(to_mcp(&r, has_output_schema).into())
    }
}

impl Host {
    /// tools/call: `cancelled` resolves when the client sends `notifications/cancelled` for
    /// this request (rmcp cancels the request's token); the call then settles CANCELLED.
    async fn call(
        &self,
        name: &str,
        input: Value,
        call_id: String,
        cancelled: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> AgentInvocationResult {
        let controller = AbortController::new();
        let c2 = controller.clone();
        let watcher = tokio::spawn(async move {
            cancelled.await;
            c2.abort(AbortReason::Cancelled);
        });
        let r = if self.external.tools().iter().any(|t| t.name == name) {
            let signal = controller.signal();
            tokio::select! {
                r = self.call_external(name, input, call_id.clone()) => r,
                _ = signal.aborted() => AgentInvocationResult {
                    status: InvocationStatus::Error,
                    invocation_id: call_id,
                    capability_id: name.to_string(),
                    output: None,
                    error: Some(AgentCapabilityError::new(ErrorCode::Cancelled, "the call was cancelled")),
                    surface_version: self.registry.version(),
                    surface_changed: false,
                },
            }
        } else {
            self.toolset
                .execute_call(name, input, ToolCall { id: Some(call_id), signal: Some(controller.signal()) })
                .await
        };
        watcher.abort();
        self.record(&r);
        r
    }
}

async fn control_listener(host: Arc<Host>) -> std::io::Result<()> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    eprintln!("control: {}", listener.local_addr()?);
    loop {
        let (socket, _) = listener.accept().await?;
        let host = host.clone();
        tokio::spawn(async move {
            let (read, mut write) = socket.into_split();
            let mut lines = BufReader::new(read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let answer = host.control(line.trim());
                if write.write_all(format!("{answer}\n").as_bytes()).await.is_err() {
                    break;
                }
            }
        });
    }
}

/// Announces tool-block changes to the client (state-only changes leave the MCP block, which
/// has no state, byte-identical: nothing to announce).
async fn announce(host: Arc<Host>, mut changes: mpsc::UnboundedReceiver<()>) {
    while changes.recv().await.is_some() {
        while changes.try_recv().is_ok() {}
        let current = serde_json::to_string(&host.mcp_block()).unwrap_or_default();
        if *host.listed.lock().unwrap() == current {
            continue;
        }
        let peer = host.peer.lock().unwrap().clone();
        if let Some(peer) = peer {
            let _ = peer.notify_tool_list_changed().await;
        }
    }
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [manifest] = args.as_slice() else {
        eprintln!("usage: mcp-devices MANIFEST  (e.g. examples/devices-app/agent-surface.manifest.json)");
        return std::process::ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(manifest) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {manifest}: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let authority = match CapabilityAuthority::from_json_str(&text) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("error: {manifest}: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("tokio runtime");
    rt.block_on(async move {
        let host = match Host::new(authority) {
            Ok(h) => h,
            Err(e) => {
                eprintln!("error: {e}");
                return std::process::ExitCode::from(1);
            }
        };
        let (tx, rx) = mpsc::unbounded_channel();
        host.toolset.subscribe(move |_| {
            let _ = tx.send(());
        });
        tokio::spawn(control_listener(host.clone()));
        let server = DevicesServer { host: host.clone() };
        let running = match server.serve(rmcp::transport::stdio()).await {
            Ok(r) => r,
            Err(e) => {
                eprintln!("error: MCP initialization: {e}");
                return std::process::ExitCode::from(1);
            }
        };
        *host.peer.lock().unwrap() = Some(running.peer().clone());
        tokio::spawn(announce(host.clone(), rx));
        let _ = running.waiting().await;
        std::process::ExitCode::SUCCESS
    })
}
