//! `agent-surface bridge --http` in process: raw HTTP/1.1 requests on a TCP socket (so every
//! header, `Host` included, is the test's), pages as tokio-tungstenite clients on the same port.
//! Each refusal of docs/bridge.md (token, scheme, Origin, Host), and both revisions: 2025-11-25
//! (initialize, a session, ping) and 2026-07-28 (server/discover, no ping, resultType and cache
//! hints on tools/list, list_changed only on subscriptions/listen).

use crate::{recv, send, tools_frame, WAIT};
use agent_surface_bridge::hub::Log;
use agent_surface_bridge::{Bridge, BridgeOptions};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

struct Http {
    port: u16,
    url: String,
    token: String,
    logs: Arc<Mutex<Vec<String>>>,
}

async fn start(options: BridgeOptions, http: bool) -> Http {
    let logs: Arc<Mutex<Vec<String>>> = Arc::default();
    let l2 = logs.clone();
    let log: Log = Arc::new(move |line: &str| l2.lock().unwrap().push(line.to_string()));
    let bridge = Bridge::bind(options, log).await.unwrap();
    let (port, url, token) = (bridge.port, bridge.url.clone(), bridge.token.clone());
    assert_eq!(bridge.http_banner(), format!("bridge: mcp http://127.0.0.1:{port}/mcp"));
    if http {
        tokio::spawn(bridge.serve_http());
    } else {
        let (_client, server) = tokio::io::duplex(1 << 16);
        let (r, w) = tokio::io::split(server);
        tokio::spawn(async move {
            let _keep = _client;
            bridge.run((r, w)).await
        });
    }
    Http { port, url, token, logs }
}

struct Reply {
    status: u16,
    headers: HashMap<String, String>,
    body: String,
}

impl Reply {
    /// The JSON-RPC messages of the body: one JSON document, or the `data:` lines of an SSE stream.
    fn messages(&self) -> Vec<Value> {
        if self.headers.get("content-type").is_some_and(|t| t.starts_with("application/json")) {
            return vec![serde_json::from_str(&self.body).unwrap()];
        }
        sse_messages(&self.body)
    }
}

fn sse_messages(body: &str) -> Vec<Value> {
    body.lines().filter_map(|l| l.strip_prefix("data:")).filter_map(|d| serde_json::from_str(d.trim()).ok()).collect()
}

fn dechunk(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut rest = raw;
    while let Some(end) = rest.windows(2).position(|w| w == b"\r\n") {
        let size = usize::from_str_radix(std::str::from_utf8(&rest[..end]).unwrap().trim(), 16).unwrap_or(0);
        if size == 0 || rest.len() < end + 2 + size {
            out.extend_from_slice(&rest[end + 2..rest.len().min(end + 2 + size)]);
            break;
        }
        out.extend_from_slice(&rest[end + 2..end + 2 + size]);
        rest = &rest[(end + 4 + size).min(rest.len())..];
    }
    out
}

fn request_text(h: &Http, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut text = format!("{method} {path} HTTP/1.1\r\n");
    if !headers.iter().any(|(k, _)| k.eq_ignore_ascii_case("host")) {
        text += &format!("Host: 127.0.0.1:{}\r\n", h.port);
    }
    for (k, v) in headers {
        text += &format!("{k}: {v}\r\n");
    }
    text += &format!(
        "Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    text
}

fn parse(raw: &[u8]) -> Reply {
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").expect("a header block");
    let head = std::str::from_utf8(&raw[..split]).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let body = &raw[split + 4..];
    let body =
        if headers.get("transfer-encoding").is_some_and(|t| t == "chunked") { dechunk(body) } else { body.to_vec() };
    Reply { status, headers, body: String::from_utf8_lossy(&body).into_owned() }
}

/// One request; the whole answer (the server closes the stream after the response).
async fn request(h: &Http, method: &str, headers: &[(&str, &str)], body: &str) -> Reply {
    let mut s = TcpStream::connect(("127.0.0.1", h.port)).await.unwrap();
    s.write_all(request_text(h, method, "/mcp", headers, body).as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(WAIT, s.read_to_end(&mut raw)).await.expect("an answer in time").unwrap();
    parse(&raw)
}

fn bearer(h: &Http) -> String {
    format!("Bearer {}", h.token)
}

fn refusals(h: &Http) -> Vec<String> {
    h.logs.lock().unwrap().iter().filter(|l| l.starts_with("bridge: refused")).cloned().collect()
}

const LIST: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}"#;

#[tokio::test]
async fn http_refuses_a_missing_or_wrong_token_another_scheme_a_foreign_origin_and_a_rebinding_host() {
    let h = start(BridgeOptions::default(), true).await;
    let auth = bearer(&h);
    let wrong = format!("Bearer {}", "0".repeat(32));
    let basic = format!("Basic {}", h.token);
    let rebinding = format!("rebind.evil.example:{}", h.port);
    let other_port = format!("127.0.0.1:{}", h.port.wrapping_add(1));
    type Case<'a> = (Vec<(&'a str, &'a str)>, u16, &'a str);
    let cases: Vec<Case> = vec![
        (vec![], 401, "no Authorization header (send the bridge's token as Authorization: Bearer <token>)"),
        (vec![("Authorization", &wrong)], 401, "wrong bearer token"),
        (vec![("Authorization", &basic)], 401, "the Authorization header is not a Bearer token"),
        (
            vec![("Authorization", &auth), ("Origin", "http://evil.example")],
            403,
            "origin \"http://evil.example\" is not allowed",
        ),
        (vec![("Authorization", &auth), ("Origin", "null")], 403, "origin \"null\" is not allowed"),
        (vec![("Authorization", &auth), ("Host", &rebinding)], 403, "is not this bridge's loopback address"),
        (vec![("Authorization", &auth), ("Host", &other_port)], 403, "is not this bridge's loopback address"),
    ];
    for (i, (headers, status, reason)) in cases.iter().enumerate() {
        let r = request(&h, "POST", headers, LIST).await;
        assert_eq!(r.status, *status, "{headers:?}: {}", r.body);
        assert!(r.body.contains(reason), "{headers:?}: {}", r.body);
        assert!(!r.body.contains(&h.token), "{}", r.body);
        if *status == 401 {
            assert!(r.headers["www-authenticate"].starts_with("Bearer "));
        }
        let lines = refusals(&h);
        assert_eq!(lines.len(), i + 1, "one line per refusal: {lines:?}");
        let line = &lines[i];
        assert!(line.starts_with("bridge: refused 127.0.0.1:") && line.contains("(POST /mcp): "), "{line}");
        assert!(line.contains(reason), "{line}");
        assert!(!line.contains(&h.token), "the token is never logged: {line}");
    }
    // GET (the session's stream) and DELETE are checked the same way.
    assert_eq!(request(&h, "GET", &[], "").await.status, 401);
    assert_eq!(request(&h, "DELETE", &[("Authorization", &wrong)], "").await.status, 401);
    // Allowed: a local page's origin, localhost as Host, any case of the scheme.
    let lower = format!("bearer {}", h.token);
    let localhost = format!("localhost:{}", h.port);
    for headers in [
        vec![("Authorization", auth.as_str()), ("Origin", "http://localhost:5173")],
        vec![("Authorization", lower.as_str()), ("Host", localhost.as_str())],
    ] {
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"it","version":"0"}}}"#;
        let r = request(&h, "POST", &headers, init).await;
        assert_eq!(r.status, 200, "{headers:?}: {}", r.body);
        assert_eq!(r.messages()[0]["result"]["serverInfo"]["name"], "agent-surface-bridge");
    }
    // Another path: not found (and logged); a page's socket on the same port still works.
    let mut s = TcpStream::connect(("127.0.0.1", h.port)).await.unwrap();
    s.write_all(request_text(&h, "GET", "/other", &[], "").as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).await.unwrap();
    assert_eq!(parse(&raw).status, 404);
    assert!(h.logs.lock().unwrap().iter().any(|l| l.contains("GET /other is neither a WebSocket handshake nor /mcp")));
    let _ = &h.url;
}

#[tokio::test]
async fn a_stdio_bridge_serves_no_mcp_over_http() {
    let h = start(BridgeOptions::default(), false).await;
    let r = request(&h, "POST", &[("Authorization", &bearer(&h))], LIST).await;
    assert_eq!(r.status, 404);
    assert!(r.body.contains("start it with --http"), "{}", r.body);
}

#[tokio::test]
async fn a_token_from_the_environment_is_used_and_checked() {
    let given = "k".repeat(40);
    let h = start(BridgeOptions { token: Some(given.clone()), ..Default::default() }, true).await;
    assert_eq!(h.token, given);
    let log: Log = Arc::new(|_: &str| {});
    let short = Bridge::bind(BridgeOptions { token: Some("short".into()), ..Default::default() }, log).await;
    assert!(short.err().unwrap().to_string().contains("32 to 256 characters"));
}

fn meta_2026() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "it-2026", "version": "1"},
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

fn rpc_2026(id: u64, method: &str, mut params: Value) -> String {
    params["_meta"] = meta_2026();
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

async fn request_2026(h: &Http, method: &str, body: &str, name: Option<&str>) -> Reply {
    let auth = bearer(h);
    let mut headers =
        vec![("Authorization", auth.as_str()), ("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", method)];
    if let Some(n) = name {
        headers.push(("Mcp-Name", n));
    }
    request(h, "POST", &headers, body).await
}

#[tokio::test]
async fn revision_2025_11_25_initializes_a_session_and_answers_ping() {
    let h = start(BridgeOptions::default(), true).await;
    let auth = bearer(&h);
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"it","version":"0"}}}"#;
    let r = request(&h, "POST", &[("Authorization", &auth)], init).await;
    assert_eq!(r.status, 200);
    let result = &r.messages()[0]["result"];
    assert_eq!(result["protocolVersion"], "2025-11-25");
    assert_eq!(result["capabilities"]["tools"]["listChanged"], true);
    assert!(result.get("resultType").is_none(), "{result}");
    let session = r.headers["mcp-session-id"].clone();
    let with = |extra: Vec<(&'static str, String)>| {
        let mut v = vec![
            ("Authorization", auth.clone()),
            ("Mcp-Session-Id", session.clone()),
            ("MCP-Protocol-Version", "2025-11-25".into()),
        ];
        v.extend(extra);
        v
    };
    let hs = with(vec![]);
    let hs: Vec<(&str, &str)> = hs.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let r = request(&h, "POST", &hs, r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).await;
    assert_eq!(r.status, 202);
    let r = request(&h, "POST", &hs, r#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#).await;
    assert_eq!(r.messages()[0]["result"], json!({}));
    let r = request(&h, "POST", &hs, r#"{"jsonrpc":"2.0","id":3,"method":"tools/list"}"#).await;
    let list = &r.messages()[0]["result"];
    assert!(list.get("ttlMs").is_none() && list.get("resultType").is_none(), "{list}");
    assert_eq!(list["tools"].as_array().unwrap().len(), 2, "surface_list and surface_select: {list}");
}

#[tokio::test]
async fn revision_2026_07_28_discover_no_ping_cache_hints_and_list_changed_only_on_subscriptions_listen() {
    let h = start(BridgeOptions::default(), true).await;
    let r = request_2026(&h, "server/discover", &rpc_2026(1, "server/discover", json!({})), None).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let d = &r.messages()[0]["result"];
    let versions: Vec<&str> = d["supportedVersions"].as_array().unwrap().iter().filter_map(Value::as_str).collect();
    assert!(versions.contains(&"2025-11-25") && versions.contains(&"2026-07-28"), "{d}");
    assert_eq!(d["capabilities"]["tools"]["listChanged"], true, "{d}");
    assert_eq!(d["resultType"], "complete", "{d}");
    // No ping on 2026-07-28.
    let r = request_2026(&h, "ping", &rpc_2026(2, "ping", json!({})), None).await;
    assert_eq!(r.messages()[0]["error"]["code"], -32601, "{}", r.body);
    // tools/list: resultType, ttlMs, cacheScope.
    let r = request_2026(&h, "tools/list", &rpc_2026(3, "tools/list", json!({})), None).await;
    let list = &r.messages()[0]["result"];
    assert_eq!(list["resultType"], "complete", "{list}");
    assert!(list["ttlMs"].is_u64(), "{list}");
    assert!(list["cacheScope"].is_string(), "{list}");
    // subscriptions/listen: acknowledged with toolsListChanged; a page connecting is announced on it.
    let mut s = TcpStream::connect(("127.0.0.1", h.port)).await.unwrap();
    let auth = bearer(&h);
    let body = rpc_2026(
        4,
        "subscriptions/listen",
        json!({"notifications": {"toolsListChanged": true, "promptsListChanged": true}}),
    );
    let headers = [
        ("Authorization", auth.as_str()),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "subscriptions/listen"),
    ];
    s.write_all(request_text(&h, "POST", "/mcp", &headers, &body).as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    let mut read_until = async |raw: &mut Vec<u8>, what: &str| {
        tokio::time::timeout(WAIT, async {
            while !String::from_utf8_lossy(raw).contains(what) {
                let n = s.read(&mut buf).await.unwrap();
                assert!(n > 0, "the stream closed: {}", String::from_utf8_lossy(raw));
                raw.extend_from_slice(&buf[..n]);
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no {what} in {}", String::from_utf8_lossy(raw)));
    };
    read_until(&mut raw, "notifications/subscriptions/acknowledged").await;
    let text = String::from_utf8_lossy(&raw).to_string();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let ack =
        sse_messages(&text).into_iter().find(|m| m["method"] == "notifications/subscriptions/acknowledged").unwrap();
    assert_eq!(ack["params"]["notifications"], json!({"toolsListChanged": true}), "only what the bridge has: {ack}");
    // A page connects and publishes tools: the list changed.
    let mut page = {
        let mut req =
            tokio_tungstenite::tungstenite::client::IntoClientRequest::into_client_request(h.url.as_str()).unwrap();
        req.headers_mut().insert("origin", "http://localhost:5173".parse().unwrap());
        tokio_tungstenite::connect_async(req).await.unwrap().0
    };
    send(&mut page, json!({"type": "hello", "protocol": 1, "token": h.token, "page": {"title": "t"}})).await;
    assert_eq!(recv(&mut page).await["type"], "welcome");
    send(&mut page, tools_frame(1)).await;
    read_until(&mut raw, "notifications/tools/list_changed").await;
    let changed = sse_messages(&String::from_utf8_lossy(&raw))
        .into_iter()
        .find(|m| m["method"] == "notifications/tools/list_changed")
        .unwrap();
    assert_eq!(changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 4, "{changed}");
    // The same client lists (once the tools frame is in) and calls statelessly: the call reaches the page.
    tokio::time::timeout(WAIT, async {
        loop {
            let r = request_2026(&h, "tools/list", &rpc_2026(5, "tools/list", json!({})), None).await;
            if r.messages()[0]["result"]["tools"].as_array().unwrap().iter().any(|t| t["name"] == "view_t_read") {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .expect("the page's tool listed");
    let call = rpc_2026(6, "tools/call", json!({"name": "view_t_read", "arguments": {}}));
    let pending = tokio::spawn({
        let h = Http { port: h.port, url: h.url.clone(), token: h.token.clone(), logs: h.logs.clone() };
        async move { request_2026(&h, "tools/call", &call, Some("view_t_read")).await }
    });
    let frame = recv(&mut page).await;
    assert_eq!(frame["name"], "view_t_read");
    let inv = frame["invocationId"].as_str().unwrap().to_string();
    assert!(inv.starts_with("mcp_") && inv.contains("_r"), "a stateless request's own id: {inv}");
    send(&mut page, json!({"type": "result", "id": frame["id"], "result": {"status": "ok", "invocationId": inv, "capabilityId": "view:t.read", "output": {"n": 1}, "surfaceVersion": "2"}})).await;
    let r = tokio::time::timeout(WAIT, pending).await.unwrap().unwrap();
    let result = &r.messages()[0]["result"];
    assert_eq!(result["structuredContent"], json!({"n": 1}), "{result}");
    assert_eq!(result["resultType"], "complete", "{result}");
    tokio::time::sleep(Duration::from_millis(10)).await;
}
