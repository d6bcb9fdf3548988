//! The bridge in process: MCP as raw JSON-RPC lines over an in-memory pipe, pages as
//! tokio-tungstenite clients. Every security and fault case of docs/bridge.md: token, origin,
//! host, hello first, malformed and oversized frames, a page gone mid-call, a request id that is
//! never sent to a second page, cancellation.

use agent_surface_bridge::hub::Log;
use agent_surface_bridge::{Bridge, BridgeOptions};
use futures_util::{SinkExt, StreamExt};
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

mod http;

type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

struct Harness {
    url: String,
    token: String,
    port: u16,
    logs: Arc<Mutex<Vec<String>>>,
    to_server: tokio::io::WriteHalf<DuplexStream>,
    from_server: mpsc::UnboundedReceiver<Value>,
    next_id: u64,
}

const WAIT: Duration = Duration::from_secs(10);

impl Harness {
    async fn start(options: BridgeOptions) -> Harness {
        let logs: Arc<Mutex<Vec<String>>> = Arc::default();
        let l2 = logs.clone();
        let log: Log = Arc::new(move |line: &str| l2.lock().unwrap().push(line.to_string()));
        let bridge = Bridge::bind(options, log).await.unwrap();
        let (url, token, port) = (bridge.url.clone(), bridge.token.clone(), bridge.port);
        assert_eq!(bridge.banner(), format!("bridge: {url} token={token}"));
        let (client, server) = tokio::io::duplex(8 << 20);
        let (server_read, server_write) = tokio::io::split(server);
        tokio::spawn(async move { bridge.run((server_read, server_write)).await });
        let (client_read, to_server) = tokio::io::split(client);
        let (tx, from_server) = mpsc::unbounded_channel();
        tokio::spawn(async move {
            let mut lines = BufReader::new(client_read).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let _ = tx.send(serde_json::from_str::<Value>(&line).unwrap());
            }
        });
        let mut h = Harness { url, token, port, logs, to_server, from_server, next_id: 0 };
        let init = h
            .request(
                "initialize",
                json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}),
            )
            .await;
        assert_eq!(init["result"]["capabilities"]["tools"]["listChanged"], true);
        h.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).await;
        h
    }

    async fn send(&mut self, v: Value) {
        self.to_server.write_all(format!("{v}\n").as_bytes()).await.unwrap();
    }

    /// The next message with this id (notifications and other answers are kept aside).
    async fn answer(&mut self, id: &Value) -> Value {
        tokio::time::timeout(WAIT, async {
            loop {
                let m = self.from_server.recv().await.expect("the server is gone");
                if &m["id"] == id {
                    return m;
                }
            }
        })
        .await
        .expect("an answer in time")
    }

    async fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = json!(self.next_id);
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})).await;
        self.answer(&id).await
    }

    async fn list(&mut self) -> Vec<String> {
        let r = self.request("tools/list", json!({})).await;
        r["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect()
    }

    fn call_frame(&self, id: &Value, name: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name, "arguments": {}}})
    }

    fn logs(&self) -> Vec<String> {
        self.logs.lock().unwrap().clone()
    }

    async fn wait_log(&self, pred: impl Fn(&str) -> bool) -> String {
        tokio::time::timeout(WAIT, async {
            loop {
                if let Some(l) = self.logs().into_iter().find(|l| pred(l)) {
                    return l;
                }
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("no such log line in {:?}", self.logs()))
    }

    async fn socket(&self, origin: Option<&str>, host: Option<&str>) -> Ws {
        let mut req = self.url.as_str().into_client_request().unwrap();
        if let Some(o) = origin {
            req.headers_mut().insert("origin", o.parse().unwrap());
        }
        if let Some(h) = host {
            req.headers_mut().insert("host", h.parse().unwrap());
        }
        tokio_tungstenite::connect_async(req).await.unwrap().0
    }

    /// A page that said hello and published one tool.
    async fn page(&self, title: &str) -> Ws {
        let mut ws = self.socket(Some("http://localhost:5173"), None).await;
        send(&mut ws, json!({"type": "hello", "protocol": 1, "token": self.token, "page": {"title": title}})).await;
        let welcome = recv(&mut ws).await;
        assert_eq!(welcome["type"], "welcome");
        send(&mut ws, tools_frame(1)).await;
        ws
    }
}

fn tools_frame(catalog: u32) -> Value {
    json!({"type": "tools", "catalog": catalog, "surfaceVersion": "2", "tools": [
        {"name": "view_t_read", "description": "[view · read · never] read", "inputSchema": {"type": "object"},
         "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false}}
    ]})
}

async fn send(ws: &mut Ws, v: Value) {
    ws.send(Message::Text(v.to_string().into())).await.unwrap();
}

/// The next JSON text frame.
async fn recv(ws: &mut Ws) -> Value {
    tokio::time::timeout(WAIT, async {
        loop {
            match ws.next().await.expect("socket open").expect("no socket error") {
                Message::Text(t) => return serde_json::from_str(t.as_str()).unwrap(),
                Message::Ping(_) | Message::Pong(_) => continue,
                other => panic!("unexpected {other:?}"),
            }
        }
    })
    .await
    .expect("a frame in time")
}

/// The close code the bridge sent.
async fn closed_with(ws: &mut Ws) -> (u16, String) {
    tokio::time::timeout(WAIT, async {
        loop {
            match ws.next().await {
                Some(Ok(Message::Close(Some(f)))) => return (u16::from(f.code), f.reason.to_string()),
                Some(Ok(Message::Close(None))) | None => return (0, String::new()),
                Some(Ok(_)) => continue,
                Some(Err(e)) => panic!("socket error instead of a close: {e}"),
            }
        }
    })
    .await
    .expect("closed in time")
}

fn refused(logs: &[String]) -> Vec<String> {
    logs.iter().filter(|l| l.starts_with("bridge: refused")).cloned().collect()
}

fn envelope(answer: &Value) -> Value {
    let r = &answer["result"];
    assert_eq!(r["isError"], true, "{answer}");
    let text: Value = serde_json::from_str(r["content"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(r["_meta"]["agent-surface/result"], text);
    text
}

#[tokio::test]
async fn the_token_is_128_bits_fresh_per_start_and_a_wrong_one_is_refused_4401() {
    let h = Harness::start(BridgeOptions::default()).await;
    let other = Harness::start(BridgeOptions::default()).await;
    assert_eq!(h.token.len(), 32);
    assert_ne!(h.token, other.token);
    assert!(h.url.starts_with("ws://127.0.0.1:") && !h.url.contains(&h.token));
    let mut ws = h.socket(Some("http://127.0.0.1:3000"), None).await;
    send(&mut ws, json!({"type": "hello", "protocol": 1, "token": other.token})).await;
    assert_eq!(closed_with(&mut ws).await, (4401, "wrong token".into()));
    h.wait_log(|l| l.starts_with("bridge: refused")).await;
    let lines = refused(&h.logs());
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].ends_with("(http://127.0.0.1:3000): wrong token"), "{}", lines[0]);
    assert!(!lines[0].contains(&other.token));
}

#[tokio::test]
async fn hello_comes_first_or_the_page_is_refused_4401() {
    let h = Harness::start(BridgeOptions::default()).await;
    let mut ws = h.socket(Some("http://localhost:5173"), None).await;
    send(&mut ws, tools_frame(1)).await;
    assert_eq!(closed_with(&mut ws).await.0, 4401);
    let mut ws = h.socket(Some("http://localhost:5173"), None).await;
    ws.send(Message::Text("{oops".into())).await.unwrap();
    assert_eq!(closed_with(&mut ws).await.0, 4401);
    let mut ws = h.socket(Some("http://localhost:5173"), None).await;
    send(&mut ws, json!({"type": "hello", "protocol": 2, "token": h.token})).await;
    assert_eq!(closed_with(&mut ws).await.0, 4400);
    tokio::time::timeout(WAIT, async {
        while refused(&h.logs()).len() < 3 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    let lines = refused(&h.logs());
    assert!(lines[0].ends_with("the first frame is not a hello"), "{lines:?}");
    assert!(lines[1].contains("not JSON"), "{lines:?}");
    assert!(lines[2].contains("protocol 2"), "{lines:?}");
    // Nothing was served: the client sees no page.
    let mut h = h;
    assert_eq!(h.list().await, ["surface_list", "surface_select"]);
}

#[tokio::test]
async fn origins_outside_the_allow_list_and_foreign_hosts_are_refused_4403() {
    let h = Harness::start(BridgeOptions::default()).await;
    for (origin, host) in [
        (Some("https://evil.example"), None),
        (Some("http://localhost.evil.example:5173"), None),
        (None, None),
        (Some("http://localhost:5173"), Some(format!("rebound.example:{}", h.port))),
    ] {
        let mut ws = h.socket(origin, host.as_deref()).await;
        // Even with the right token: nothing is read before the origin check.
        let _ =
            ws.send(Message::Text(json!({"type": "hello", "protocol": 1, "token": h.token}).to_string().into())).await;
        assert_eq!(closed_with(&mut ws).await, (4403, "origin not allowed".into()), "{origin:?} {host:?}");
    }
    tokio::time::timeout(WAIT, async {
        while refused(&h.logs()).len() < 4 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    let lines = refused(&h.logs());
    assert!(lines[0].contains("origin \"https://evil.example\" is not allowed"), "{lines:?}");
    assert!(lines[2].contains("no Origin header"), "{lines:?}");
    assert!(lines[3].contains("not this bridge's loopback address"), "{lines:?}");

    let only =
        Harness::start(BridgeOptions { allow_origins: vec!["https://app.example".into()], ..Default::default() }).await;
    let mut ws = only.socket(Some("http://localhost:5173"), None).await;
    assert_eq!(closed_with(&mut ws).await.0, 4403);
    let mut ws = only.socket(Some("https://app.example"), None).await;
    send(&mut ws, json!({"type": "hello", "protocol": 1, "token": only.token})).await;
    assert_eq!(recv(&mut ws).await["type"], "welcome");
}

#[tokio::test]
async fn a_call_round_trip_with_the_derived_invocation_id_and_a_repeated_request_id() {
    let mut h = Harness::start(BridgeOptions::default()).await;
    let mut page = h.page("one").await;
    tokio::time::timeout(WAIT, async {
        while !h.list().await.contains(&"view_t_read".to_string()) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    let id = json!(900);
    for round in 0..2 {
        h.send(h.call_frame(&id, "view_t_read")).await;
        let call = recv(&mut page).await;
        assert_eq!(call["type"], "call");
        assert_eq!(call["catalog"], 1);
        assert_eq!(call["name"], "view_t_read");
        let inv = call["invocationId"].as_str().unwrap().to_string();
        assert!(inv.starts_with("mcp_") && inv.ends_with("_n900"), "{inv}");
        // The same request id twice carries the same invocation id (the page's dedupe answers).
        send(&mut page, json!({"type": "result", "id": call["id"], "result": {"status": "ok", "invocationId": inv, "capabilityId": "view:t.read", "output": {"round": round}, "surfaceVersion": "2"}})).await;
        let a = h.answer(&id).await;
        assert_eq!(a["result"]["structuredContent"], json!({"round": round}));
        assert_eq!(a["result"]["_meta"]["agent-surface/invocation"]["invocationId"], inv);
    }
}

#[tokio::test]
async fn malformed_frames_get_an_error_and_the_bridge_keeps_serving() {
    let mut h = Harness::start(BridgeOptions::default()).await;
    let mut page = h.page("one").await;
    ws_text(&mut page, "{not json").await;
    assert!(recv(&mut page).await["message"].as_str().unwrap().starts_with("not JSON"));
    page.send(Message::Binary(vec![1, 2, 3].into())).await.unwrap();
    assert!(recv(&mut page).await["message"].as_str().unwrap().contains("binary frames"));
    send(&mut page, json!({"type": "approve", "confirmationId": "cnf_x"})).await;
    assert!(recv(&mut page).await["message"].as_str().unwrap().contains("approve"));
    // A page tool named like one of the bridge's own (an unprefixed page's `domain:surface.list`)
    // is left out too: the bridge's surface_list keeps answering.
    let own = json!({"name": "surface_list", "inputSchema": {"type": "object"}});
    send(&mut page, json!({"type": "tools", "catalog": 2, "tools": [{"name": "bad name!", "inputSchema": {}}, own, tools_frame(2)["tools"][0]]})).await;
    assert!(recv(&mut page).await["message"].as_str().unwrap().contains("not wire-safe"));
    assert!(recv(&mut page).await["message"].as_str().unwrap().contains("\"surface_list\" is the bridge's own"));
    // A result for a call that does not exist changes nothing.
    send(&mut page, json!({"type": "result", "id": "c999", "result": {"status": "ok"}})).await;
    let names = h.list().await;
    assert_eq!(names, ["surface_list", "surface_select", "view_t_read"]);
    // A malformed result: the client gets a clear error.
    let id = json!(5);
    h.send(h.call_frame(&id, "view_t_read")).await;
    let call = recv(&mut page).await;
    send(&mut page, json!({"type": "result", "id": call["id"], "result": {"nonsense": true}})).await;
    let e = envelope(&h.answer(&id).await);
    assert_eq!(e["error"]["code"], "EXECUTION_FAILED");
    assert_eq!(e["error"]["details"]["reason"], "malformed-result");
    // Oversized arguments from the client are refused before they reach the page.
    let big = json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "view_t_read", "arguments": {"s": "x".repeat(1 << 20)}}});
    h.send(big).await;
    let e = envelope(&h.answer(&json!(6)).await);
    assert_eq!(e["error"]["code"], "INVALID_INPUT");
    // A malformed JSON-RPC line from the client: the server keeps serving.
    h.to_server.write_all(b"{this is not json\n").await.unwrap();
    assert_eq!(h.list().await.len(), 3);
}

async fn ws_text(ws: &mut Ws, s: &str) {
    ws.send(Message::Text(s.to_string().into())).await.unwrap();
}

#[tokio::test]
async fn an_oversized_frame_closes_that_page_1009_and_the_others_are_served() {
    let mut h = Harness::start(BridgeOptions::default()).await;
    let mut big = h.page("big").await;
    let _ = big.send(Message::Text("x".repeat(5 << 20).into())).await;
    assert_eq!(closed_with(&mut big).await.0, u16::from(CloseCode::Size));
    h.wait_log(|l| l.contains("page p1") && l.contains("limit 4194304")).await;
    let _fine = h.page("fine").await;
    tokio::time::timeout(WAIT, async {
        while !h.list().await.contains(&"view_t_read".to_string()) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    let pages = h.request("tools/call", json!({"name": "surface_list", "arguments": {}})).await;
    let pages = &pages["result"]["structuredContent"]["pages"];
    assert_eq!(pages.as_array().unwrap().len(), 1);
    assert_eq!(pages[0]["page"], "p2");
    assert_eq!(pages[0]["title"], "fine");
}

#[tokio::test]
async fn a_page_gone_mid_call_ends_the_call_clearly_and_the_request_id_never_reaches_another_page() {
    let mut h = Harness::start(BridgeOptions::default()).await;
    let mut page = h.page("one").await;
    tokio::time::timeout(WAIT, async {
        while !h.list().await.contains(&"view_t_read".to_string()) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    let id = json!("call-7");
    h.send(h.call_frame(&id, "view_t_read")).await;
    let call = recv(&mut page).await;
    assert!(call["invocationId"].as_str().unwrap().ends_with("_scall-7"));
    drop(page);
    let e = envelope(&h.answer(&id).await);
    assert_eq!(e["error"]["code"], "EXECUTION_FAILED");
    assert_eq!(e["error"]["retry"], "never");
    assert_eq!(e["error"]["details"], json!({"reason": "page-disconnected", "outcome": "unknown"}));
    // The page comes back (a new connection); the client lists again and repeats the request id.
    let mut back = h.page("one again").await;
    tokio::time::timeout(WAIT, async {
        while !h.list().await.contains(&"view_t_read".to_string()) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    h.send(h.call_frame(&id, "view_t_read")).await;
    let e = envelope(&h.answer(&id).await);
    assert_eq!(e["error"]["code"], "EXECUTION_FAILED");
    assert!(e["error"]["message"].as_str().unwrap().contains("not sent again"));
    // The new page received no call.
    let nothing = tokio::time::timeout(Duration::from_millis(200), back.next()).await;
    assert!(nothing.is_err(), "the page got {nothing:?}");
}

#[tokio::test]
async fn cancellation_reaches_the_page_and_a_stale_listing_is_refused() {
    let mut h = Harness::start(BridgeOptions::default()).await;
    let mut page = h.page("one").await;
    tokio::time::timeout(WAIT, async {
        while !h.list().await.contains(&"view_t_read".to_string()) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    let id = json!(41);
    h.send(h.call_frame(&id, "view_t_read")).await;
    let call = recv(&mut page).await;
    h.send(
        json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 41, "reason": "user"}}),
    )
    .await;
    let cancel = recv(&mut page).await;
    assert_eq!(cancel, json!({"type": "cancel", "id": call["id"]}));
    // The page reloads: a new connection; the client's listing is of the old one.
    drop(page);
    let _reloaded = h.page("reloaded").await;
    h.wait_log(|l| l.starts_with("bridge: page p2 connected")).await;
    let e = envelope(&h.request("tools/call", json!({"name": "view_t_read", "arguments": {}})).await);
    assert_eq!(e["error"]["code"], "STALE_CAPABILITY");
    assert_eq!(e["error"]["retry"], "with-changes");
}

/// Lists until `name` is there.
async fn listed(h: &mut Harness, name: &str) {
    tokio::time::timeout(WAIT, async {
        while !h.list().await.contains(&name.to_string()) {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn an_action_with_no_output_answers_empty_content_and_a_string_output_is_its_own_text() {
    let mut h = Harness::start(BridgeOptions::default()).await;
    let mut page = h.page("one").await;
    listed(&mut h, "view_t_read").await;
    for (n, result) in [
        json!({"status": "ok", "invocationId": "i", "capabilityId": "view:t.read", "output": null, "surfaceVersion": "2"}),
        json!({"status": "ok", "invocationId": "i", "capabilityId": "view:t.read", "surfaceVersion": "2"}),
    ]
    .into_iter()
    .enumerate()
    {
        let id = json!(100 + n);
        h.send(h.call_frame(&id, "view_t_read")).await;
        let call = recv(&mut page).await;
        send(&mut page, json!({"type": "result", "id": call["id"], "result": result})).await;
        let a = h.answer(&id).await;
        let r = &a["result"];
        assert_eq!(r["content"], json!([]), "{a}");
        assert!(r.get("structuredContent").is_none(), "{a}");
        assert_ne!(r["isError"], true, "{a}");
        assert_eq!(r["_meta"]["agent-surface/invocation"]["page"], "p1");
    }
    // An output that is not an object is its JSON text, except a string: that is the text itself.
    for (id, output, text) in
        [(102, json!(0), "0"), (103, json!([1, "a"]), "[1,\"a\"]"), (104, json!("done \"now\""), "done \"now\"")]
    {
        h.send(h.call_frame(&json!(id), "view_t_read")).await;
        let call = recv(&mut page).await;
        send(&mut page, json!({"type": "result", "id": call["id"], "result": {"status": "ok", "output": output, "invocationId": "i", "capabilityId": "view:t.read", "surfaceVersion": "2"}})).await;
        let a = h.answer(&json!(id)).await;
        assert_eq!(a["result"]["content"], json!([{"type": "text", "text": text}]), "{a}");
        assert!(a["result"].get("structuredContent").is_none(), "{a}");
    }
}

#[tokio::test]
async fn an_unknown_tool_is_a_json_rpc_invalid_params_error_naming_it_and_never_reaches_the_page() {
    let mut h = Harness::start(BridgeOptions::default()).await;
    let mut page = h.page("one").await;
    // Before the client listed: checked against the active page's catalog.
    tokio::time::timeout(WAIT, async {
        loop {
            let a = h.request("tools/call", json!({"name": "view_t_nope", "arguments": {}})).await;
            if a.get("error").is_some() {
                return a;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await
    .unwrap();
    listed(&mut h, "view_t_read").await;
    let a = h.request("tools/call", json!({"name": "view_t_nope", "arguments": {}})).await;
    assert!(a.get("result").is_none(), "{a}");
    assert_eq!(a["error"]["code"], -32602, "{a}");
    assert_eq!(a["error"]["message"], "Unknown tool: view_t_nope", "{a}");
    // A tool of another page the client has not listed is unknown to this listing.
    let mut other = h.page("two").await;
    send(
        &mut other,
        json!({"type": "tools", "catalog": 1, "surfaceVersion": "1", "tools": [
        {"name": "view_u_only", "inputSchema": {"type": "object"}}]}),
    )
    .await;
    h.wait_log(|l| l.starts_with("bridge: page p2 connected")).await;
    let a = h.request("tools/call", json!({"name": "view_u_only", "arguments": {}})).await;
    assert_eq!(a["error"]["code"], -32602, "{a}");
    for ws in [&mut page, &mut other] {
        let nothing = tokio::time::timeout(Duration::from_millis(200), ws.next()).await;
        assert!(nothing.is_err(), "a page got {nothing:?}");
    }
    // Known tools and the bridge's own still answer results; with no page the faults stay results.
    assert!(h.request("tools/call", json!({"name": "surface_list", "arguments": {}})).await.get("result").is_some());
    drop(page);
    drop(other);
    h.wait_log(|l| l.starts_with("bridge: page p2 disconnected")).await;
    h.wait_log(|l| l.starts_with("bridge: page p1 disconnected")).await;
    assert_eq!(h.list().await, ["surface_list", "surface_select"]);
    let e = envelope(&h.request("tools/call", json!({"name": "view_t_read", "arguments": {}})).await);
    assert_eq!(e["error"]["code"], "CAPABILITY_NOT_AVAILABLE");
}

#[tokio::test]
async fn the_bridges_errors_name_the_capability_id_not_the_wire_name() {
    let mut h = Harness::start(BridgeOptions::default()).await;
    // A page that says each tool's capability id in its tools frame.
    let mut page = h.socket(Some("http://localhost:5173"), None).await;
    send(&mut page, json!({"type": "hello", "protocol": 1, "token": h.token, "page": {"title": "one"}})).await;
    assert_eq!(recv(&mut page).await["type"], "welcome");
    let mut frame = tools_frame(1);
    frame["capabilities"] = json!({"view_t_read": "view:t.read"});
    send(&mut page, frame).await;
    listed(&mut h, "view_t_read").await;
    let id = json!(7);
    h.send(h.call_frame(&id, "view_t_read")).await;
    let _call = recv(&mut page).await;
    drop(page);
    let a = h.answer(&id).await;
    let text = a["result"]["content"][0]["text"].as_str().unwrap().to_string();
    assert!(text.contains("\"capabilityId\":\"view:t.read\"") && !text.contains("view_t_read"), "{text}");
    assert_eq!(envelope(&a)["error"]["details"]["reason"], "page-disconnected");
    // The listed page is gone: STALE_CAPABILITY names it too (from the client's listing).
    let _next = h.page("two").await;
    h.wait_log(|l| l.starts_with("bridge: page p2 connected")).await;
    let e = envelope(&h.request("tools/call", json!({"name": "view_t_read", "arguments": {}})).await);
    assert_eq!(e["error"]["code"], "STALE_CAPABILITY");
    assert_eq!(e["capabilityId"], "view:t.read");

    // A page that does not say: the bridge learns the id from the page's results.
    let mut h = Harness::start(BridgeOptions::default()).await;
    let mut page = h.page("one").await;
    listed(&mut h, "view_t_read").await;
    h.send(h.call_frame(&json!(1), "view_t_read")).await;
    let call = recv(&mut page).await;
    send(&mut page, json!({"type": "result", "id": call["id"], "result": {"nonsense": true}})).await;
    // Before the page ever named it: the wire name is all the bridge has.
    assert_eq!(envelope(&h.answer(&json!(1)).await)["capabilityId"], "view_t_read");
    h.send(h.call_frame(&json!(2), "view_t_read")).await;
    let call = recv(&mut page).await;
    send(&mut page, json!({"type": "result", "id": call["id"], "result": {"status": "ok", "invocationId": call["invocationId"], "capabilityId": "view:t.read", "output": {}, "surfaceVersion": "2"}})).await;
    h.answer(&json!(2)).await;
    h.send(h.call_frame(&json!(3), "view_t_read")).await;
    let _call = recv(&mut page).await;
    h.send(json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 3}})).await;
    assert_eq!(recv(&mut page).await["type"], "cancel");
    // rmcp answers nothing to a cancelled request; the next call's malformed answer names the id.
    h.send(h.call_frame(&json!(4), "view_t_read")).await;
    let call = recv(&mut page).await;
    send(&mut page, json!({"type": "result", "id": call["id"], "result": {"nonsense": true}})).await;
    let e = envelope(&h.answer(&json!(4)).await);
    assert_eq!(e["error"]["details"]["reason"], "malformed-result");
    assert_eq!(e["capabilityId"], "view:t.read");
}

#[tokio::test]
async fn stdio_answers_a_legacy_ping_before_initialize_and_then_initializes() {
    let log: Log = Arc::new(|_: &str| {});
    let bridge = Bridge::bind(BridgeOptions::default(), log).await.unwrap();
    let (client, server) = tokio::io::duplex(1 << 20);
    let (r, w) = tokio::io::split(server);
    tokio::spawn(async move { bridge.run((r, w)).await });
    let (client_read, mut to_server) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    // A JSON value is one line; a JSON string is written as it is (several lines).
    let mut ask = async |line: Value| -> Value {
        let text = line.as_str().map_or_else(|| line.to_string(), str::to_string);
        to_server.write_all(format!("{text}\n").as_bytes()).await.unwrap();
        // The answer; notifications (a list_changed after initialize) are skipped.
        loop {
            let line = tokio::time::timeout(WAIT, lines.next_line()).await.unwrap().unwrap().unwrap();
            let v: Value = serde_json::from_str(&line).unwrap();
            if v.get("id").is_some() {
                return v;
            }
        }
    };
    // 2025-11-25 and older: a ping before initialize (no _meta, or one naming an older revision) is answered {}.
    let pong = ask(json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})).await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 1, "result": {}}));
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2025-11-25"});
    let pong = ask(json!({"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"_meta": meta}})).await;
    assert_eq!(pong["result"], json!({}), "{pong}");
    let init = ask(json!({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "it", "version": "0"}}})).await;
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25", "{init}");
    // notifications/initialized, then a ping in the session (one write, one answer).
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let ping = json!({"jsonrpc": "2.0", "id": 4, "method": "ping"});
    let pong = ask(json!(format!("{initialized}\n{ping}"))).await;
    assert_eq!(pong["result"], json!({}), "{pong}");
}

#[tokio::test]
async fn stdio_serves_2026_07_28_without_initialize_discover_no_ping_cache_hints_and_subscriptions() {
    let log: Log = Arc::new(|_: &str| {});
    let bridge = Bridge::bind(BridgeOptions::default(), log).await.unwrap();
    let token = bridge.token.clone();
    let url = bridge.url.clone();
    let (client, server) = tokio::io::duplex(1 << 20);
    let (r, w) = tokio::io::split(server);
    tokio::spawn(async move { bridge.run((r, w)).await });
    let (client_read, mut to_server) = tokio::io::split(client);
    let mut lines = BufReader::new(client_read).lines();
    let meta = json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {}});
    let mut ask = async |id: u64, method: &str, mut params: Value| -> Value {
        params["_meta"] = meta.clone();
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string() + "\n";
        to_server.write_all(line.as_bytes()).await.unwrap();
        loop {
            let l = tokio::time::timeout(WAIT, lines.next_line()).await.unwrap().unwrap().unwrap();
            let v: Value = serde_json::from_str(&l).unwrap();
            if v["id"] == json!(id) || v.get("id").is_none() {
                return v;
            }
        }
    };
    // A ping before any other request, under 2026-07-28 (its _meta says so): -32601, as later.
    let early = ask(9, "ping", json!({})).await;
    assert_eq!(early["error"]["code"], -32601, "{early}");
    let d = ask(1, "server/discover", json!({})).await;
    assert!(d["result"]["supportedVersions"].as_array().unwrap().contains(&json!("2026-07-28")), "{d}");
    let list = ask(3, "tools/list", json!({})).await;
    assert_eq!(list["result"]["resultType"], "complete", "{list}");
    assert!(list["result"]["ttlMs"].is_u64() && list["result"]["cacheScope"].is_string(), "{list}");
    // Once the first request chose the 2026-07-28 lifecycle, ping is still gone.
    assert_eq!(ask(2, "ping", json!({})).await["error"]["code"], -32601);
    // subscriptions/listen: acknowledged with toolsListChanged, then a page's tools are announced on it.
    let ack = ask(4, "subscriptions/listen", json!({"notifications": {"toolsListChanged": true}})).await;
    assert_eq!(ack["method"], "notifications/subscriptions/acknowledged", "{ack}");
    let mut req = url.as_str().into_client_request().unwrap();
    req.headers_mut().insert("origin", "http://localhost:5173".parse().unwrap());
    let mut page = tokio_tungstenite::connect_async(req).await.unwrap().0;
    send(&mut page, json!({"type": "hello", "protocol": 1, "token": token, "page": {"title": "t"}})).await;
    assert_eq!(recv(&mut page).await["type"], "welcome");
    let changed = tokio::time::timeout(WAIT, lines.next_line()).await.unwrap().unwrap().unwrap();
    let changed: Value = serde_json::from_str(&changed).unwrap();
    assert_eq!(changed["method"], "notifications/tools/list_changed", "{changed}");
    assert_eq!(changed["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"], 4, "{changed}");
}

#[tokio::test]
async fn a_tools_state_is_listed_under_meta_and_a_state_only_change_is_announced_with_the_definitions_unchanged() {
    let mut h = Harness::start(BridgeOptions::default()).await;
    let mut page = h.page("one").await;
    listed(&mut h, "view_t_read").await;
    let mut frame = tools_frame(1);
    frame["states"] = json!({"view_t_read": {"available": false, "unavailableReason": "no rows are loaded", "note": "3 filters", "extra": 1}, "ghost": {"available": false}});
    send(&mut page, frame.clone()).await;
    // The state-only change is announced (the client listed before it).
    tokio::time::timeout(WAIT, async {
        loop {
            let m = h.from_server.recv().await.unwrap();
            if m["method"] == "notifications/tools/list_changed" {
                break;
            }
        }
    })
    .await
    .expect("list_changed for a state-only change");
    let tool = |r: &Value| {
        r["result"]["tools"].as_array().unwrap().iter().find(|t| t["name"] == "view_t_read").cloned().unwrap()
    };
    let r = h.request("tools/list", json!({})).await;
    let off = tool(&r);
    assert_eq!(
        off["_meta"]["agent-surface/state"],
        json!({"available": false, "unavailableReason": "no rows are loaded", "note": "3 filters"})
    );
    let pages = h.request("tools/call", json!({"name": "surface_list", "arguments": {}})).await;
    assert_eq!(
        pages["result"]["structuredContent"]["pages"][0]["unavailable"],
        json!([{"tool": "view_t_read", "state": {"available": false, "unavailableReason": "no rows are loaded", "note": "3 filters"}}])
    );
    // Available again: announced again; only _meta differs from the definition listed before.
    frame["states"] = json!({"view_t_read": {"available": true}});
    send(&mut page, frame).await;
    tokio::time::timeout(WAIT, async {
        loop {
            let m = h.from_server.recv().await.unwrap();
            if m["method"] == "notifications/tools/list_changed" {
                break;
            }
        }
    })
    .await
    .expect("list_changed when it is available again");
    let on = tool(&h.request("tools/list", json!({})).await);
    assert_eq!(on["_meta"]["agent-surface/state"], json!({"available": true}));
    let strip = |mut t: Value| {
        t.as_object_mut().unwrap().remove("_meta");
        t
    };
    assert_eq!(strip(on), strip(off), "the definition itself never changes with state");
}

#[tokio::test]
async fn a_call_with_a_progress_token_waits_for_the_pages_confirmation_and_hears_what_is_pending() {
    let mut h = Harness::start(BridgeOptions::default()).await;
    let mut page = h.page("one").await;
    listed(&mut h, "view_t_read").await;
    // Without a progressToken: a two-phase call (no `wait` in the frame).
    h.send(h.call_frame(&json!(1), "view_t_read")).await;
    let call = recv(&mut page).await;
    assert!(call.get("wait").is_none(), "{call}");
    send(&mut page, json!({"type": "result", "id": call["id"], "result": {"status": "ok", "invocationId": call["invocationId"], "capabilityId": "view:t.read", "output": {}, "surfaceVersion": "2"}})).await;
    h.answer(&json!(1)).await;
    // With one: `wait`, and each `pending` the page sends becomes notifications/progress.
    let mut frame = h.call_frame(&json!(2), "view_t_read");
    frame["params"]["_meta"] = json!({"progressToken": "tok-1"});
    h.send(frame).await;
    let call = recv(&mut page).await;
    assert_eq!(call["wait"], true, "{call}");
    let confirmation =
        json!({"confirmationId": "cnf_abc", "summary": "Decommission 1 device", "expiresAt": "2026-12-04T03:00:00Z"});
    send(&mut page, json!({"type": "pending", "id": call["id"], "confirmation": confirmation})).await;
    let progress = tokio::time::timeout(WAIT, h.from_server.recv()).await.unwrap().unwrap();
    assert_eq!(progress["method"], "notifications/progress", "{progress}");
    assert_eq!(progress["params"]["progressToken"], "tok-1");
    assert_eq!(progress["params"]["progress"], 0.0);
    let message = progress["params"]["message"].as_str().unwrap();
    for part in ["page p1", "Decommission 1 device", "cnf_abc", "2026-12-04T03:00:00Z"] {
        assert!(message.contains(part), "{message}");
    }
    // The call is still open; the page's final result completes it.
    send(&mut page, json!({"type": "result", "id": call["id"], "result": {"status": "ok", "invocationId": call["invocationId"], "capabilityId": "view:t.read", "output": {"done": true}, "surfaceVersion": "2"}})).await;
    let a = h.answer(&json!(2)).await;
    assert_eq!(a["result"]["structuredContent"], json!({"done": true}), "{a}");
}
