//! The MCP side: an rmcp server whose tools are the active page's (see [`crate::hub`]).
//!
//! - `tools/list`: the page's `toolBlock("mcp")` entries (explicit annotations, `outputSchema`
//!   where declared) and the bridge's `surface_list` / `surface_select`;
//!   `notifications/tools/list_changed` when that list changes.
//! - `tools/call` → the page's `tool.execute(input, { toolCallId })` with the invocation id
//!   `mcp_<session>_<n|s><JSON-RPC id>`: a repeated request id dedupes in the page, two bridges
//!   (two clients) never collide.
//! - An action with no output answers empty `content` (no text `"null"`).
//! - A tool the client was not listed is a JSON-RPC error (-32602, `Unknown tool: <name>`).
//! - Failures are `isError: true` results carrying the envelope (as text, under
//!   `_meta["agent-surface/result"]`, and as `structuredContent` unless the tool declares an
//!   `outputSchema`, which clients validate `structuredContent` against even on errors).
//! - `notifications/cancelled` → a `cancel` frame: the page aborts the call (CANCELLED).

use crate::hub::{error_envelope, is_bridge_tool, Hub, Outcome, Refused, SURFACE_LIST, SURFACE_SELECT};
use crate::protocol::MAX_ARGUMENTS_BYTES;
use agent_surface_model::errors::ErrorCode;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult, MetaObject,
    NumberOrString, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler};
use serde_json::{json, Map, Value};
use std::sync::Arc;
use std::time::Duration;

/// A backstop: the page's own timeouts (30 s for a procedure by default) settle long before.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(300);

#[derive(Clone)]
pub struct BridgeServer {
    pub hub: Arc<Hub>,
}

/// `mcp_<session>_n42` for a numeric JSON-RPC id, `mcp_<session>_s<text>` for a string one.
pub fn invocation_id(session: &str, id: &NumberOrString) -> String {
    match id {
        NumberOrString::Number(n) => format!("mcp_{session}_n{n}"),
        NumberOrString::String(s) => format!("mcp_{session}_s{s}"),
    }
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
        // No output (an action that returns nothing): empty content, not the text "null".
        let content = if output.is_null() { vec![] } else { vec![ContentBlock::text(output.to_string())] };
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
    /// the client's cancellation, or the backstop timeout. `Err`: an unknown tool.
    pub async fn call(
        &self,
        name: &str,
        input: Map<String, Value>,
        invocation: String,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<CallToolResult, McpError> {
        if is_bridge_tool(name) {
            return Ok(self.bridge_call(name, &input, &invocation));
        }
        let size = serde_json::to_string(&input).map(|s| s.len()).unwrap_or(usize::MAX);
        if size > MAX_ARGUMENTS_BYTES {
            let e = error_envelope(
                &invocation,
                &self.hub.listed_capability_id(name),
                ErrorCode::InvalidInput,
                &format!("the arguments are {size} bytes; the bridge forwards at most {MAX_ARGUMENTS_BYTES}"),
                &[("limitBytes", json!(MAX_ARGUMENTS_BYTES))],
                "",
            );
            return Ok(to_mcp(&e, self.hub.listed_output_schema(name), None));
        }
        let d = match self.hub.dispatch(name, &input, &invocation) {
            Ok(d) => d,
            Err(Refused::Envelope(e)) => return Ok(to_mcp(&e, self.hub.listed_output_schema(name), None)),
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
        Ok(tokio::select! {
            r = d.reply => match r {
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
            },
            _ = cancelled => {
                self.hub.cancel(&d.call_id);
                err(ErrorCode::Cancelled, "the call was cancelled", &[])
            }
            _ = tokio::time::sleep(CALL_TIMEOUT) => {
                self.hub.cancel(&d.call_id);
                err(ErrorCode::Timeout, "the page did not answer in time; the bridge asked it to abort the call", &[("reason", json!("bridge-timeout"))])
            }
        })
    }
}

pub fn truncate(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

impl ServerHandler for BridgeServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build())
            .with_server_info(Implementation::new("agent-surface-bridge", env!("CARGO_PKG_VERSION")))
            .with_instructions("The tools of a live web page (its agent surface), run in the page under its own rules. Tools marked 'required' need the user's confirmation in the page: the first call returns CONFIRMATION_REQUIRED; once the user approved, repeat the same call with the same arguments. surface_list shows the connected pages; surface_select switches between them.")
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        let mut tools = Vec::new();
        for entry in self.hub.list() {
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
        let invocation = invocation_id(&self.hub.session, &context.id);
        let ct = context.ct.clone();
        self.call(&name, input, invocation, async move { ct.cancelled().await }).await.map(Into::into)
    }
}
