//! The MCP side: an rmcp server whose tools are the active page's (see [`crate::hub`]).
//!
//! - `tools/list`: the page's `toolBlock("mcp")` entries (explicit annotations, `outputSchema`
//!   where declared) and the bridge's `surface_list` / `surface_select`;
//!   `notifications/tools/list_changed` when that list changes.
//! - `tools/call` → the page's `tool.execute(input, { toolCallId })` with the invocation id
//!   `mcp_<bridge>_c<connection>_<n|s><JSON-RPC id>` for a stdio connection or an HTTP session:
//!   a repeated request id dedupes in the page, two bridges or two clients never collide. A
//!   stateless HTTP request (2026-07-28) has no connection to repeat in: `mcp_<bridge>_r<n>`.
//! - Revisions: every revision rmcp knows, negotiated per client (`initialize` for 2025-11-25
//!   and older; `server/discover` and per-request metadata for 2026-07-28, where rmcp answers
//!   `ping` with -32601, adds `resultType`, `ttlMs` and `cacheScope`). `tools.listChanged` is
//!   announced to a legacy session as a notification, and under 2026-07-28 only on the
//!   client's `subscriptions/listen` streams that opted in to `toolsListChanged`.
//! - An action with no output answers empty `content` (no text `"null"`); a string output is the
//!   text itself, unquoted; any other output its JSON text.
//! - A tool the client was not listed is a JSON-RPC error (-32602, `Unknown tool: <name>`).
//! - Failures are `isError: true` results carrying the envelope (as text, under
//!   `_meta["agent-surface/result"]`, and as `structuredContent` unless the tool declares an
//!   `outputSchema`, which clients validate `structuredContent` against even on errors).
//! - `notifications/cancelled` → a `cancel` frame: the page aborts the call (CANCELLED).
//! - A `tools/call` with `_meta.progressToken` can wait for a confirmation: the page keeps the
//!   call open until the user decides there, the client hears `notifications/progress` whose
//!   message names what is pending and where, and the call completes with the final result.

use crate::hub::Notifier;
use crate::hub::{error_envelope, is_bridge_tool, Hub, Outcome, Refused, SURFACE_LIST, SURFACE_SELECT};
use crate::protocol::MAX_ARGUMENTS_BYTES;
use agent_surface_model::errors::ErrorCode;
use rmcp::model::SubscriptionFilter;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult, MetaObject,
    NumberOrString, PaginatedRequestParams, ProgressNotificationParam, ProgressToken, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::Peer;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// A backstop: the page's own timeouts (30 s for a procedure by default) settle long before.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(300);

/// One MCP connection: a stdio client or a Streamable HTTP session (rmcp makes one server per
/// session, and one per stateless request). Its listing is forgotten when it goes.
struct Connection {
    hub: Arc<Hub>,
    /// `c<n>`: names the connection's client in the hub and in invocation ids.
    key: String,
    /// Served over Streamable HTTP (where a request without a session is stateless).
    http: bool,
}

impl Drop for Connection {
    fn drop(&mut self) {
        self.hub.forget_client(&self.key);
    }
}

#[derive(Clone)]
pub struct BridgeServer {
    pub hub: Arc<Hub>,
    conn: Arc<Connection>,
}

/// Who asks, as the hub knows it: the key of its listing and the invocation id of this request.
struct Caller {
    key: String,
    invocation: String,
}

/// `mcp_<bridge>_c1_n42` for a numeric JSON-RPC id, `mcp_<bridge>_c1_s<text>` for a string one.
pub fn invocation_id(session: &str, connection: &str, id: &NumberOrString) -> String {
    match id {
        NumberOrString::Number(n) => format!("mcp_{session}_{connection}_n{n}"),
        NumberOrString::String(s) => format!("mcp_{session}_{connection}_s{s}"),
    }
}

impl BridgeServer {
    /// The server of one new MCP connection (`http`: a Streamable HTTP session or request).
    pub fn new(hub: Arc<Hub>, http: bool) -> BridgeServer {
        let key = format!("c{}", hub.next_connection());
        BridgeServer { conn: Arc::new(Connection { hub: hub.clone(), key, http }), hub }
    }

    /// The connection's client, or for a stateless HTTP request (no `Mcp-Session-Id`: the
    /// 2026-07-28 revision) the client implementation its `_meta` names.
    fn caller(&self, context: &RequestContext<RoleServer>) -> Caller {
        let stateless = self.conn.http
            && context
                .extensions
                .get::<http::request::Parts>()
                .is_some_and(|parts| !parts.headers.contains_key("mcp-session-id"));
        if stateless {
            let who = context.client_info().map(|i| format!("{}/{}", i.name, i.version)).unwrap_or_default();
            let key = format!("info:{}", truncate(&who, 200));
            Caller { key, invocation: format!("mcp_{}_r{}", self.hub.session, self.hub.next_connection()) }
        } else {
            Caller {
                key: self.conn.key.clone(),
                invocation: invocation_id(&self.hub.session, &self.conn.key, &context.id),
            }
        }
    }
}

/// The progress message of a call waiting for the user: what is pending, where, until when.
fn waiting_message(confirmation: &Value, page: &str) -> String {
    let text = |k: &str| confirmation.get(k).and_then(Value::as_str).map(|s| truncate(s, 500)).unwrap_or_default();
    format!(
        "waiting for the user's confirmation in page {page}: {} (confirmationId {}, expires {}); the user approves or denies it in the page, and this call then completes",
        text("summary"),
        text("confirmationId"),
        text("expiresAt"),
    )
}

/// Whether a page's answer is an `AgentInvocationResult` the client can be given.
fn well_formed(result: &Value) -> bool {
    match result.get("status").and_then(Value::as_str) {
        Some("ok") => true,
        Some("error") => result.pointer("/error/code").and_then(Value::as_str).is_some(),
        _ => false,
    }
}

fn meta(key: &str, value: Value) -> MetaObject {
    MetaObject(Map::from_iter([(key.to_string(), value)]))
}

/// The result a client sees (the same mapping as examples/mcp-devices).
pub fn to_mcp(r: &Value, has_output_schema: bool, page: Option<&str>) -> CallToolResult {
    if r.get("status").and_then(Value::as_str) == Some("ok") {
        let output = r.get("output").cloned().unwrap_or(Value::Null);
        // No output (an action that returns nothing): empty content, not the text "null"; a
        // string is its own text (an agent reads `done`, not `"done"`); anything else its JSON.
        let content = match &output {
            Value::Null => vec![],
            Value::String(text) => vec![ContentBlock::text(text.clone())],
            other => vec![ContentBlock::text(other.to_string())],
        };
        let mut result = CallToolResult::success(content);
        if output.is_object() {
            result.structured_content = Some(output);
        }
        result.meta = Some(meta(
            "agent-surface/invocation",
            json!({"invocationId": r.get("invocationId"), "surfaceVersion": r.get("surfaceVersion"), "page": page}),
        ));
        result
    } else {
        let mut result = CallToolResult::error(vec![ContentBlock::text(r.to_string())]);
        if !has_output_schema {
            result.structured_content = Some(r.clone());
        }
        result.meta = Some(meta("agent-surface/result", r.clone()));
        result
    }
}

impl BridgeServer {
    fn bridge_call(&self, name: &str, input: &Map<String, Value>, invocation: &str) -> CallToolResult {
        let ok = |output: Value| json!({"status": "ok", "invocationId": invocation, "capabilityId": name, "output": output, "surfaceVersion": ""});
        let r = match name {
            SURFACE_LIST => ok(self.hub.pages()),
            SURFACE_SELECT => match input.get("page").and_then(Value::as_str) {
                Some(page) if input.len() == 1 => match self.hub.select(page) {
                    Ok(()) => ok(json!({"active": page})),
                    Err(e) => error_envelope(invocation, name, ErrorCode::PreconditionFailed, &e, &[], ""),
                },
                _ => error_envelope(
                    invocation,
                    name,
                    ErrorCode::InvalidInput,
                    "surface_select takes {\"page\": \"<id from surface_list>\"}",
                    &[],
                    "",
                ),
            },
            _ => unreachable!("only bridge tools"),
        };
        to_mcp(&r, false, None)
    }

    /// One tools/call forwarded to the page, to its end: the page's result, the page gone,
    /// the client's cancellation, or the backstop timeout. `Err`: an unknown tool. With
    /// `progress` (the client sent a progressToken) the call waits in the page for a
    /// confirmation, and each confirmation the page waits for is told as `notifications/progress`.
    pub async fn call(
        &self,
        client: &str,
        name: &str,
        input: Map<String, Value>,
        invocation: String,
        cancelled: impl std::future::Future<Output = ()>,
        progress: Option<(ProgressToken, Peer<RoleServer>)>,
    ) -> Result<CallToolResult, McpError> {
        if is_bridge_tool(name) {
            return Ok(self.bridge_call(name, &input, &invocation));
        }
        let size = serde_json::to_string(&input).map(|s| s.len()).unwrap_or(usize::MAX);
        if size > MAX_ARGUMENTS_BYTES {
            let e = error_envelope(
                &invocation,
                &self.hub.listed_capability_id(client, name),
                ErrorCode::InvalidInput,
                &format!("the arguments are {size} bytes; the bridge forwards at most {MAX_ARGUMENTS_BYTES}"),
                &[("limitBytes", json!(MAX_ARGUMENTS_BYTES))],
                "",
            );
            return Ok(to_mcp(&e, self.hub.listed_output_schema(client, name), None));
        }
        let d = match self.hub.dispatch(client, name, &input, &invocation, progress.is_some()) {
            Ok(d) => d,
            Err(Refused::Envelope(e)) => return Ok(to_mcp(&e, self.hub.listed_output_schema(client, name), None)),
            Err(Refused::UnknownTool) => {
                return Err(McpError::invalid_params(format!("Unknown tool: {}", truncate(name, 200)), None))
            }
        };
        let page = d.page_label.clone();
        let capability = d.capability_id.clone();
        let err = |code, message: &str, details: &[(&str, Value)]| {
            to_mcp(
                &error_envelope(&invocation, &capability, code, message, details, ""),
                d.has_output_schema,
                Some(&page),
            )
        };
        let mut pending = d.pending;
        let mut reply = d.reply;
        let timeout = tokio::time::sleep(CALL_TIMEOUT);
        tokio::pin!(timeout, cancelled);
        let mut told = 0u32;
        let r = loop {
            tokio::select! {
                r = &mut reply => break r,
                Some(confirmation) = pending.recv() => {
                    if let Some((token, peer)) = &progress {
                        let note = ProgressNotificationParam::new(token.clone(), f64::from(told))
                            .with_message(waiting_message(&confirmation, &page));
                        told += 1;
                        // A client gone meanwhile: its cancellation (or the timeout) ends the call.
                        let _ = peer.notify_progress(note).await;
                    }
                }
                _ = &mut cancelled => {
                    self.hub.cancel(&d.call_id);
                    return Ok(err(ErrorCode::Cancelled, "the call was cancelled", &[]));
                }
                _ = &mut timeout => {
                    self.hub.cancel(&d.call_id);
                    return Ok(err(ErrorCode::Timeout, "the page did not answer in time; the bridge asked it to abort the call", &[("reason", json!("bridge-timeout"))]));
                }
            }
        };
        Ok(match r {
                Ok(Outcome::Result(v)) if well_formed(&v) => to_mcp(&v, d.has_output_schema, Some(&page)),
                Ok(Outcome::Result(v)) => {
                    self.hub.log(&format!("bridge: page {page}: a malformed result for {name}: {}", truncate(&v.to_string(), 200)));
                    err(ErrorCode::ExecutionFailed, "the page answered with a malformed result", &[("reason", json!("malformed-result"))])
                }
                Ok(Outcome::Disconnected) | Err(_) => err(
                    ErrorCode::ExecutionFailed,
                    "the page disconnected before it answered; whether the call took effect is unknown: observe the page's state before trying again",
                    &[("reason", json!("page-disconnected")), ("outcome", json!("unknown"))],
                ),
        })
    }
}

pub use crate::protocol::truncate;

impl ServerHandler for BridgeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
            .with_server_info(Implementation::new("agent-surface-bridge", env!("CARGO_PKG_VERSION")))
            .with_instructions("The tools of a live web page (its agent surface), run in the page under its own rules. Tools marked 'required' need the user's confirmation in the page: the first call returns CONFIRMATION_REQUIRED; once the user approved, repeat the same call with the same arguments (a call sent with a progressToken instead waits for the user's decision, with progress notifications naming what is pending). surface_list shows the connected pages; surface_select switches between them.")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let caller = self.caller(&context);
        let mut tools = Vec::new();
        for entry in self.hub.list(&caller.key) {
            match serde_json::from_value::<Tool>(entry.clone()) {
                Ok(t) => tools.push(t),
                Err(e) => self.hub.log(&format!(
                    "bridge: a page tool is not a valid MCP tool ({e}): {}",
                    truncate(&entry.to_string(), 200)
                )),
            }
        }
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        let input = request.arguments.unwrap_or_default();
        let caller = self.caller(&context);
        let ct = context.ct.clone();
        let progress = context.meta.get_progress_token().map(|token| (token, context.peer.clone()));
        self.call(&caller.key, &name, input, caller.invocation, async move { ct.cancelled().await }, progress)
            .await
            .map(Into::into)
    }

    /// A legacy session (stdio or HTTP, after `initialize`) hears of changes as notifications.
    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.hub.add_notifier(&self.conn.key, Notifier::Peer(context.peer));
    }

    /// 2026-07-28: `toolsListChanged` is the one category the bridge has.
    fn accepted_subscription_filter(&self, _requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        Some(SubscriptionFilter::builder().tools_list_changed().build())
    }

    /// 2026-07-28: the stream stays open until the client cancels it; every change of the tool
    /// list is announced on it.
    async fn listen(&self, context: SubscriptionContext) -> Result<(), McpError> {
        let caller = self.caller(context.request_context());
        let id = self.hub.add_notifier(&caller.key, Notifier::Subscription(context.sink().clone()));
        context.cancelled().await;
        self.hub.remove_notifier(&caller.key, id);
        Ok(())
    }
}
