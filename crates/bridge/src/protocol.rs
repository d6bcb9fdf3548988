//! The page protocol, version 1: JSON text frames over one WebSocket per page
//! (docs/bridge.md has the full table).
//!
//! page → bridge: `hello` (first frame, within [`HELLO_TIMEOUT_MS`]), `tools`, `result`,
//! `focus`, `error`. bridge → page: `welcome`, `call`, `cancel`, `error`. There is no frame that
//! resolves a confirmation: approving is the page's own UI's job, never the MCP client's.

use serde::Deserialize;
use serde_json::{json, Map, Value};

pub const PROTOCOL: u64 = 1;
/// The largest frame either side reads (a tool list of a large app fits several times).
pub const MAX_FRAME_BYTES: usize = 4 << 20;
/// The largest `arguments` of one tools/call the bridge forwards.
pub const MAX_ARGUMENTS_BYTES: usize = 1 << 20;
pub const HELLO_TIMEOUT_MS: u64 = 5_000;

/// Close codes (4000–4999 are the application's).
pub const CLOSE_UNAUTHORIZED: u16 = 4401;
pub const CLOSE_FORBIDDEN: u16 = 4403;
pub const CLOSE_BAD_PROTOCOL: u16 = 4400;

#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum PageFrame {
    Hello {
        token: String,
        protocol: u64,
        #[serde(default)]
        page: PageInfo,
    },
    Tools {
        catalog: u32,
        #[serde(rename = "surfaceVersion", default)]
        surface_version: String,
        tools: Vec<Value>,
        /// Optional: each tool's capability id by wire name (`{"view_devices_table_select":
        /// "view:devices.table.select"}`), so the bridge's own errors name the capability.
        #[serde(default)]
        capabilities: Value,
        /// Optional: each tool's live state by wire name (`{"available": false,
        /// "unavailableReason": "…", "note": "…"}`), listed under the tool's
        /// `_meta["agent-surface/state"]` so the definitions themselves stay byte-stable.
        #[serde(default)]
        states: Value,
    },
    Result {
        id: String,
        result: Value,
    },
    /// A call sent with `wait` needs the user's confirmation in the page:
    /// `{confirmationId, summary, expiresAt}`; the final `result` follows.
    Pending {
        id: String,
        confirmation: Value,
    },
    Focus {},
    Error {
        #[serde(default)]
        id: Option<String>,
        message: String,
    },
}

/// What a page says about itself in its hello (shown by `surface_list`).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PageInfo {
    #[serde(default)]
    pub surface_id: String,
    #[serde(default)]
    pub title: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub consumer_id: String,
}

/// Reads one page frame; `Err` says what is wrong in words the page's console can show.
pub fn parse_page_frame(text: &str) -> Result<PageFrame, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let ty = value.get("type").and_then(Value::as_str).map(str::to_string);
    serde_json::from_value(value).map_err(|e| match ty {
        Some(t) => format!("a {t:?} frame: {e}"),
        None => "a frame needs a string \"type\"".to_string(),
    })
}

/// The bridge's own tools (listed beside every page's).
pub const SURFACE_LIST: &str = "surface_list";
pub const SURFACE_SELECT: &str = "surface_select";

/// Checks one MCP tool entry a page listed: a wire-safe name that is not one of the bridge's own
/// (a page toolset with `names: "unprefixed"` could name `domain:surface.list` so) and an object
/// input schema.
pub fn check_tool_entry(tool: &Value) -> Result<&str, String> {
    let name = tool.get("name").and_then(Value::as_str).ok_or("a tool without a string name")?;
    let wire_safe = !name.is_empty()
        && name.len() <= 64
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    if !wire_safe {
        return Err(format!("tool name {name:?} is not wire-safe ([A-Za-z0-9_-]{{1,64}})"));
    }
    if name == SURFACE_LIST || name == SURFACE_SELECT {
        return Err(format!("tool name {name:?} is the bridge's own"));
    }
    if tool.get("inputSchema").and_then(Value::as_object).is_none() {
        return Err(format!("tool {name} has no inputSchema object"));
    }
    Ok(name)
}

/// `s` cut to at most `max` bytes (at a character boundary), with `…` when cut.
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

pub fn welcome(page: &str) -> String {
    json!({"type": "welcome", "protocol": PROTOCOL, "page": page}).to_string()
}

/// A call frame; `wait`: the client can wait for a confirmation (the page answers `pending`,
/// then the final result), else the page answers CONFIRMATION_REQUIRED (two-phase).
pub fn call(id: &str, catalog: u32, name: &str, input: &Map<String, Value>, invocation_id: &str, wait: bool) -> String {
    let mut frame = json!({"type": "call", "id": id, "catalog": catalog, "name": name, "input": input, "invocationId": invocation_id});
    if wait {
        frame["wait"] = json!(true);
    }
    frame.to_string()
}

pub fn cancel(id: &str) -> String {
    json!({"type": "cancel", "id": id}).to_string()
}

pub fn error(message: &str) -> String {
    json!({"type": "error", "message": message}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames() {
        assert!(matches!(
            parse_page_frame(r#"{"type":"hello","token":"t","protocol":1}"#),
            Ok(PageFrame::Hello { protocol: 1, .. })
        ));
        assert!(matches!(parse_page_frame(r#"{"type":"focus"}"#), Ok(PageFrame::Focus {})));
        assert_eq!(parse_page_frame("{").unwrap_err().split(':').next(), Some("not JSON"));
        assert!(parse_page_frame(r#"{"type":"approve","id":"cnf_1"}"#).unwrap_err().starts_with("a \"approve\" frame"));
        assert!(parse_page_frame(r#"[1]"#).unwrap_err().contains("type"));
        assert!(parse_page_frame(r#"{"type":"result","id":3}"#).is_err());
    }

    #[test]
    fn tool_entries() {
        assert_eq!(check_tool_entry(&json!({"name": "view_a_b", "inputSchema": {"type": "object"}})), Ok("view_a_b"));
        assert!(check_tool_entry(&json!({"name": "a b", "inputSchema": {}})).is_err());
        assert!(check_tool_entry(&json!({"name": "x".repeat(65), "inputSchema": {}})).is_err());
        assert!(check_tool_entry(&json!({"name": "ok"})).is_err());
        assert_eq!(
            check_tool_entry(&json!({"name": "surface_list", "inputSchema": {"type": "object"}})),
            Err("tool name \"surface_list\" is the bridge's own".to_string())
        );
        assert!(check_tool_entry(&json!({"name": "surface_select", "inputSchema": {"type": "object"}})).is_err());
    }
}
