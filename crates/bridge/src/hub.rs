//! The bridge's state: the connected pages, their tool catalogs, which page is active, the
//! calls in flight and what each MCP client last listed. Every method takes the one lock
//! briefly and never awaits under it.
//!
//! MCP clients: one per stdio connection or Streamable HTTP session (2025-11-25 and older), and
//! one per client implementation (`clientInfo` name and version) for the stateless requests of
//! 2026-07-28. Each has its own listing and its own change notifications: a session's `Peer`
//! (legacy revisions) or its open `subscriptions/listen` streams (2026-07-28).
//!
//! Addressing (docs/bridge.md): `tools/list` answers the tools of the **active page** — the one
//! that connected or gained focus most recently, or that `surface_select` chose — plus the
//! bridge's own `surface_list` and `surface_select`. A `tools/call` goes to the page and the
//! catalog the client last listed, so a call always reaches the tools the model saw: when that
//! page reloaded or closed, the call answers STALE_CAPABILITY until the client lists again.

use crate::protocol::{self, PageInfo};
use agent_surface_model::errors::{AgentCapabilityError, ErrorCode};
use rmcp::service::SubscriptionSink;
use rmcp::{Peer, RoleServer};
use serde_json::{json, Map, Value};
use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::{mpsc, oneshot};

/// Where the bridge's log lines go (stderr in the binary, a buffer in tests).
pub type Log = Arc<dyn Fn(&str) + Send + Sync>;

/// What a page's writer task sends.
#[derive(Debug)]
pub enum Outgoing {
    Text(String),
    Close(u16, String),
}

/// How a call forwarded to a page ended.
#[derive(Debug)]
pub enum Outcome {
    /// The page's `AgentInvocationResult`.
    Result(Value),
    /// The page's socket closed before it answered.
    Disconnected,
}

pub use crate::protocol::{SURFACE_LIST, SURFACE_SELECT};
/// How many dispatched invocation ids the bridge remembers (so a repeated request id never
/// reaches a second page).
const DISPATCHED_MEMORY: usize = 4096;

struct Catalog {
    id: u32,
    surface_version: String,
    tools: Vec<Value>,
    /// Each tool's live state by wire name (what the page said last; see [`with_state`]).
    states: Map<String, Value>,
}

/// The state key of a listed tool's `_meta`.
pub const STATE_META: &str = "agent-surface/state";

/// A tool entry as listed: the page's definition, plus its live state (`available`,
/// `unavailableReason`, `note`) under `_meta["agent-surface/state"]`. The definition's own fields
/// never change with state, so a client's cached definitions (and a model's prompt cache) stay
/// valid; a state change only changes `_meta`, and is announced like any change of the list.
fn with_state(tool: &Value, states: &Map<String, Value>) -> Value {
    let Some(state) = states.get(name_of(tool)).and_then(Value::as_object) else { return tool.clone() };
    let mut kept = Map::new();
    for key in ["available", "unavailableReason", "note"] {
        match (key, state.get(key)) {
            ("available", Some(v @ Value::Bool(_))) => {
                kept.insert(key.into(), v.clone());
            }
            (_, Some(Value::String(text))) if key != "available" => {
                kept.insert(key.into(), Value::String(protocol::truncate(text, 500)));
            }
            _ => {}
        }
    }
    if kept.is_empty() {
        return tool.clone();
    }
    let mut t = tool.clone();
    if let Some(obj) = t.as_object_mut() {
        let meta = obj.entry("_meta").or_insert_with(|| Value::Object(Map::new()));
        if let Some(m) = meta.as_object_mut() {
            m.insert(STATE_META.into(), Value::Object(kept));
        }
    }
    t
}

struct Page {
    label: String,
    info: PageInfo,
    tx: mpsc::UnboundedSender<Outgoing>,
    catalog: Option<Catalog>,
    focus: u64,
    /// Capability ids by wire name: from the tools frame's `capabilities`, and learned from the
    /// page's results (their `capabilityId`).
    capability_ids: HashMap<String, String>,
}

struct Pending {
    page: u64,
    name: String,
    reply: oneshot::Sender<Outcome>,
    /// A `wait` call: where the page's `pending` frames go.
    waiting: Option<mpsc::UnboundedSender<Value>>,
}

/// What `tools/list` answers at one moment: which page, which of its catalogs, which bytes.
#[derive(Clone, Debug, PartialEq)]
struct View {
    page: Option<u64>,
    catalog: Option<u32>,
    text: String,
}

/// Where a client hears `notifications/tools/list_changed`.
#[derive(Clone)]
pub enum Notifier {
    /// A session of a legacy revision (2025-11-25 and older): unsolicited notifications.
    Peer(Peer<RoleServer>),
    /// An open `subscriptions/listen` request that opted in to `toolsListChanged` (2026-07-28).
    Subscription(SubscriptionSink),
}

impl Notifier {
    async fn tools_changed(self) {
        let _ = match self {
            Notifier::Peer(p) => p.notify_tool_list_changed().await.map_err(|_| ()),
            Notifier::Subscription(s) => s.notify_tool_list_changed().await.map_err(|_| ()),
        };
    }
}

/// What one MCP client last listed and how it hears of changes.
#[derive(Default)]
struct Client {
    listed: Option<View>,
    /// Tools of the last tools/list that declare an `outputSchema` (clients validate
    /// `structuredContent` against it, even on errors).
    listed_output_schemas: HashSet<String>,
    /// The names of the last tools/list (a call of another name is an unknown tool).
    listed_names: HashSet<String>,
    /// The listed page's capability ids by wire name, as of the last tools/list.
    listed_capability_ids: HashMap<String, String>,
    announced: Option<View>,
    notifiers: BTreeMap<u64, Notifier>,
    seen: u64,
}

/// How many clients the hub remembers (stateless clients are never told goodbye).
const MAX_CLIENTS: usize = 64;

#[derive(Default)]
struct State {
    next_page: u64,
    next_call: u64,
    next_notifier: u64,
    clock: u64,
    pages: BTreeMap<u64, Page>,
    calls: HashMap<String, Pending>,
    clients: HashMap<String, Client>,
    dispatched: HashMap<String, u64>,
    dispatched_order: VecDeque<String>,
}

/// A call the hub did not forward.
pub enum Refused {
    /// A fault: the envelope the client gets as an `isError` result.
    Envelope(Value),
    /// No tool of that name in what the client last listed (a JSON-RPC error, -32602).
    UnknownTool,
}

/// A call the hub forwarded: wait on `reply`.
pub struct Dispatched {
    pub call_id: String,
    pub page_label: String,
    /// The capability id the bridge's own errors name (the wire name when the page never said).
    pub capability_id: String,
    pub has_output_schema: bool,
    pub reply: oneshot::Receiver<Outcome>,
    /// A `wait` call: the confirmations the page says it waits for (`{confirmationId, summary,
    /// expiresAt}`); never yields for a two-phase call.
    pub pending: mpsc::UnboundedReceiver<Value>,
}

pub struct Hub {
    state: Mutex<State>,
    pub log: Log,
    /// Names this bridge in invocation ids (two bridges never collide in one page).
    pub session: String,
    connections: std::sync::atomic::AtomicU64,
}

/// An `AgentInvocationResult` with an error, made by the bridge (same shape as the page's).
pub fn error_envelope(
    invocation_id: &str,
    tool: &str,
    code: ErrorCode,
    message: &str,
    details: &[(&str, Value)],
    surface_version: &str,
) -> Value {
    let mut e = AgentCapabilityError::new(code, message);
    for (k, v) in details {
        e = e.detail(k, v.clone());
    }
    json!({
        "status": "error",
        "invocationId": invocation_id,
        "capabilityId": tool,
        "error": e,
        "surfaceVersion": surface_version,
    })
}

/// The bridge's own tools. `surface_select` only changes which page `tools/list` shows; no
/// bridge tool reaches a page's confirmations.
fn bridge_tools() -> Vec<Value> {
    vec![
        json!({
            "name": SURFACE_LIST,
            "description": "[bridge · read] The pages connected to this bridge (one surface each): page id, title, URL, whether it is the active page whose tools are listed, and how many tools it has.",
            "inputSchema": {"type": "object", "properties": {}, "additionalProperties": false},
            "annotations": {"readOnlyHint": true, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
        }),
        json!({
            "name": SURFACE_SELECT,
            "description": "[bridge · navigation] Make another connected page the active one: the tool list then shows its tools (list the tools again after this call).",
            "inputSchema": {
                "type": "object",
                "properties": {"page": {"type": "string", "description": "A page id from surface_list, e.g. \"p2\"."}},
                "required": ["page"],
                "additionalProperties": false,
            },
            "annotations": {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, "openWorldHint": false},
        }),
    ]
}

impl State {
    fn active(&self) -> Option<(u64, &Page)> {
        self.pages.iter().max_by_key(|(_, p)| p.focus).map(|(id, p)| (*id, p))
    }

    fn tick(&mut self) -> u64 {
        self.clock += 1;
        self.clock
    }

    /// The tool list of this moment: the bridge's tools and the active page's, by name.
    fn view(&self) -> (View, Vec<Value>) {
        let mut tools = bridge_tools();
        let (page, catalog) = match self.active() {
            Some((id, p)) => {
                if let Some(c) = &p.catalog {
                    tools.extend(
                        c.tools.iter().filter(|t| !is_bridge_tool(name_of(t))).map(|t| with_state(t, &c.states)),
                    );
                }
                (Some(id), p.catalog.as_ref().map(|c| c.id))
            }
            None => (None, None),
        };
        tools.sort_by(|a, b| name_of(a).cmp(name_of(b)));
        let text = serde_json::to_string(&tools).unwrap_or_default();
        (View { page, catalog, text }, tools)
    }

    /// The capability id behind a wire name: as that page said, else as the client's listing
    /// said, else the wire name itself.
    fn capability_id(&self, client: &str, page: Option<u64>, name: &str) -> String {
        page.and_then(|p| self.pages.get(&p))
            .and_then(|p| p.capability_ids.get(name))
            .or_else(|| self.clients.get(client).and_then(|c| c.listed_capability_ids.get(name)))
            .cloned()
            .unwrap_or_else(|| name.to_string())
    }

    /// The client's state, created on first use; the least recently seen is forgotten past
    /// [`MAX_CLIENTS`].
    fn client(&mut self, key: &str) -> &mut Client {
        let t = self.tick();
        if !self.clients.contains_key(key) && self.clients.len() >= MAX_CLIENTS {
            if let Some(old) = self.clients.iter().min_by_key(|(_, c)| c.seen).map(|(k, _)| k.clone()) {
                self.clients.remove(&old);
            }
        }
        let c = self.clients.entry(key.to_string()).or_default();
        c.seen = t;
        c
    }
}

fn name_of(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or("")
}

pub fn is_bridge_tool(name: &str) -> bool {
    name == SURFACE_LIST || name == SURFACE_SELECT
}

impl Hub {
    pub fn new(log: Log, session: String) -> Arc<Hub> {
        Arc::new(Hub { state: Mutex::default(), log, session, connections: Default::default() })
    }

    /// A fresh number for an MCP connection (or a stateless request).
    pub fn next_connection(&self) -> u64 {
        self.connections.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn log(&self, line: &str) {
        (self.log)(line)
    }

    /// A client will hear of changes through `notifier` (until [`Hub::remove_notifier`]).
    /// Returns the id to remove it with. A change since the client's last listing is announced
    /// at once.
    pub fn add_notifier(&self, client: &str, notifier: Notifier) -> u64 {
        let mut st = self.lock();
        st.next_notifier += 1;
        let id = st.next_notifier;
        st.client(client).notifiers.insert(id, notifier);
        self.announce(&mut st);
        id
    }

    pub fn remove_notifier(&self, client: &str, id: u64) {
        if let Some(c) = self.lock().clients.get_mut(client) {
            c.notifiers.remove(&id);
        }
    }

    /// A session ended: its listing and notifiers are forgotten.
    pub fn forget_client(&self, client: &str) {
        self.lock().clients.remove(client);
    }

    /// Sends `notifications/tools/list_changed` to every client whose last listing differs
    /// from the list now and that was not told of this list yet (one notification per change).
    fn announce(&self, st: &mut State) {
        let (view, _) = st.view();
        for c in st.clients.values_mut() {
            if c.notifiers.is_empty() || c.listed.as_ref() == Some(&view) || c.announced.as_ref() == Some(&view) {
                continue;
            }
            c.announced = Some(view.clone());
            for n in c.notifiers.values().cloned() {
                tokio::spawn(n.tools_changed());
            }
        }
    }

    /// A page passed the hello: it becomes the active page. Returns its id and label.
    pub fn connect(&self, info: PageInfo, tx: mpsc::UnboundedSender<Outgoing>) -> (u64, String) {
        let mut st = self.lock();
        st.next_page += 1;
        let id = st.next_page;
        let label = format!("p{id}");
        let focus = st.tick();
        st.pages
            .insert(id, Page { label: label.clone(), info, tx, catalog: None, focus, capability_ids: HashMap::new() });
        self.announce(&mut st);
        (id, label)
    }

    /// The page's socket is gone: its calls in flight end with a clear error.
    pub fn disconnect(&self, page: u64) {
        let mut st = self.lock();
        let Some(p) = st.pages.remove(&page) else { return };
        let ids: Vec<String> = st.calls.iter().filter(|(_, c)| c.page == page).map(|(id, _)| id.clone()).collect();
        for id in &ids {
            if let Some(c) = st.calls.remove(id) {
                let _ = c.reply.send(Outcome::Disconnected);
            }
        }
        self.log(&format!("bridge: page {} disconnected ({} call(s) in flight)", p.label, ids.len()));
        self.announce(&mut st);
    }

    /// A page's catalog; `capabilities` (optional) maps its wire names to capability ids,
    /// `states` (optional) gives each tool's live state.
    pub fn set_tools(
        &self,
        page: u64,
        catalog: u32,
        surface_version: String,
        tools: Vec<Value>,
        capabilities: Value,
        states: Value,
    ) {
        let mut st = self.lock();
        if let Some(p) = st.pages.get_mut(&page) {
            // Only the names of this catalog are kept (a page cannot grow the map without bound).
            let names: std::collections::HashSet<&str> = tools.iter().map(name_of).collect();
            p.capability_ids.retain(|wire, _| names.contains(wire.as_str()));
            if let Value::Object(m) = capabilities {
                for (wire, id) in m {
                    if let (true, Value::String(id)) = (names.contains(wire.as_str()), id) {
                        p.capability_ids.insert(wire, id);
                    }
                }
            }
            let states = match states {
                Value::Object(m) => m.into_iter().filter(|(wire, _)| names.contains(wire.as_str())).collect(),
                _ => Map::new(),
            };
            p.catalog = Some(Catalog { id: catalog, surface_version, tools, states });
        }
        self.announce(&mut st);
    }

    pub fn focus(&self, page: u64) {
        let mut st = self.lock();
        let t = st.tick();
        if let Some(p) = st.pages.get_mut(&page) {
            p.focus = t;
        }
        self.announce(&mut st);
    }

    /// A page's answer to one of its calls (a page cannot settle another page's call).
    pub fn settle(&self, page: u64, call_id: &str, result: Value) -> bool {
        let mut st = self.lock();
        match st.calls.get(call_id) {
            Some(c) if c.page == page => {
                let c = st.calls.remove(call_id).expect("present");
                if let Some(id) = result.get("capabilityId").and_then(Value::as_str) {
                    if id != c.name {
                        let id = id.to_string();
                        if let Some(p) = st.pages.get_mut(&page) {
                            p.capability_ids.insert(c.name.clone(), id);
                        }
                    }
                }
                let _ = c.reply.send(Outcome::Result(result));
                true
            }
            _ => false,
        }
    }

    /// A page waits for the user's confirmation of one of its `wait` calls (a page cannot speak
    /// for another page's call; a two-phase call has nobody waiting).
    pub fn pending(&self, page: u64, call_id: &str, confirmation: Value) -> bool {
        let st = self.lock();
        match st.calls.get(call_id) {
            Some(Pending { page: p, waiting: Some(w), .. }) if *p == page => w.send(confirmation).is_ok(),
            _ => false,
        }
    }

    /// The client cancelled (or the bridge gave up on) a call: the page is told to abort it.
    pub fn cancel(&self, call_id: &str) {
        let mut st = self.lock();
        if let Some(c) = st.calls.remove(call_id) {
            if let Some(p) = st.pages.get(&c.page) {
                let _ = p.tx.send(Outgoing::Text(protocol::cancel(call_id)));
            }
        }
    }

    /// `tools/list` for one client: what it sees from now on (and where its calls go).
    pub fn list(&self, client: &str) -> Vec<Value> {
        let mut st = self.lock();
        let (view, tools) = st.view();
        let ids = st.active().map(|(_, p)| p.capability_ids.clone()).unwrap_or_default();
        let c = st.client(client);
        c.listed = Some(view);
        c.listed_output_schemas =
            tools.iter().filter(|t| t.get("outputSchema").is_some()).map(|t| name_of(t).to_string()).collect();
        c.listed_names = tools.iter().map(|t| name_of(t).to_string()).collect();
        c.listed_capability_ids = ids.into_iter().filter(|(wire, _)| c.listed_names.contains(wire)).collect();
        tools
    }

    /// The capability id the bridge's errors name for a tool of the client's listing.
    pub fn listed_capability_id(&self, client: &str, name: &str) -> String {
        self.lock().capability_id(client, None, name)
    }

    /// Whether the client's last tools/list gave `name` an `outputSchema`.
    pub fn listed_output_schema(&self, client: &str, name: &str) -> bool {
        self.lock().clients.get(client).is_some_and(|c| c.listed_output_schemas.contains(name))
    }

    /// `surface_list`'s answer.
    pub fn pages(&self) -> Value {
        let st = self.lock();
        let active = st.active().map(|(id, _)| id);
        let pages: Vec<Value> = st
            .pages
            .iter()
            .map(|(id, p)| {
                json!({
                    "page": p.label,
                    "title": p.info.title,
                    "url": p.info.url,
                    "surfaceId": p.info.surface_id,
                    "active": Some(*id) == active,
                    "tools": p.catalog.as_ref().map_or(0, |c| c.tools.len()),
                    // The tools a model cannot use right now, and why (their state, as listed).
                    "unavailable": p.catalog.as_ref().map_or(Vec::new(), |c| c.tools.iter().filter_map(|t| {
                        let state = with_state(t, &c.states).pointer(&format!("/_meta/{}", STATE_META.replace('/', "~1"))).cloned()?;
                        (state.get("available") == Some(&Value::Bool(false))).then(|| json!({"tool": name_of(t), "state": state}))
                    }).collect()),
                    "surfaceVersion": p.catalog.as_ref().map(|c| c.surface_version.clone()),
                })
            })
            .collect();
        json!({ "pages": pages })
    }

    /// `surface_select`: makes the page with this label the active one.
    pub fn select(&self, label: &str) -> Result<(), String> {
        let mut st = self.lock();
        let t = st.tick();
        let known: Vec<String> = st.pages.values().map(|p| p.label.clone()).collect();
        let Some(p) = st.pages.values_mut().find(|p| p.label == label) else {
            return Err(format!("no connected page {label:?} (connected: {})", known.join(", ")));
        };
        p.focus = t;
        self.announce(&mut st);
        Ok(())
    }

    /// Forwards a tools/call to the page (and catalog) the client last listed, or refuses it:
    /// an unknown tool, or a fault with the envelope the client gets.
    pub fn dispatch(
        &self,
        client: &str,
        name: &str,
        input: &Map<String, Value>,
        invocation_id: &str,
        wait: bool,
    ) -> Result<Dispatched, Refused> {
        let mut st = self.lock();
        let earlier = st.dispatched.get(invocation_id).copied();
        let c = st.client(client);
        let listed = c.listed.clone();
        let listed_output_schema = c.listed_output_schemas.contains(name);
        let listed_has = c.listed_names.contains(name);
        // An unknown tool: not in the client's last listing of a page, or (when it listed no
        // page) not in the active page's catalog. With no catalog to check against, the
        // faults below say why (no page, no tools yet). A repeated request id goes on to its page.
        if earlier.is_none() {
            let unknown = match (&listed, st.active()) {
                (Some(View { page: Some(_), .. }), _) => !listed_has,
                (_, Some((_, p))) => p.catalog.as_ref().is_some_and(|c| !c.tools.iter().any(|t| name_of(t) == name)),
                _ => false,
            };
            if unknown {
                return Err(Refused::UnknownTool);
            }
        }
        let target = earlier.or_else(|| listed.as_ref().and_then(|v| v.page)).or_else(|| st.active().map(|(id, _)| id));
        let capability_id = st.capability_id(client, target, name);
        let refuse = |code, message: &str, details: &[(&str, Value)]| {
            Err(Refused::Envelope(error_envelope(invocation_id, &capability_id, code, message, details, "")))
        };
        // A request id already sent to a page is never sent to another one.
        if let Some(p) = earlier {
            if !st.pages.contains_key(&p) {
                return refuse(
                    ErrorCode::ExecutionFailed,
                    "this call was already sent to a page that disconnected before it answered; it is not sent again (whether it took effect is unknown: observe the page's state before trying again)",
                    &[("reason", json!("page-disconnected")), ("outcome", json!("unknown"))],
                );
            }
        }
        let (page, catalog) = match (earlier, &listed) {
            (Some(p), _) => (p, st.pages.get(&p).and_then(|p| p.catalog.as_ref()).map(|c| c.id)),
            (None, Some(View { page: Some(p), catalog, .. })) => {
                if !st.pages.contains_key(p) {
                    return refuse(
                        ErrorCode::StaleCapability,
                        "the page these tools came from reloaded or closed; list the tools again",
                        &[("reason", json!("page-gone"))],
                    );
                }
                (*p, *catalog)
            }
            _ => match st.active() {
                Some((id, p)) => (id, p.catalog.as_ref().map(|c| c.id)),
                None => {
                    return refuse(
                        ErrorCode::CapabilityNotAvailable,
                        "no page is connected to the bridge; open the app (it connects with connectAgentBridge) and try again",
                        &[("reason", json!("no-page"))],
                    )
                }
            },
        };
        let p = st.pages.get(&page).expect("checked above");
        let Some(catalog) = catalog else {
            return refuse(
                ErrorCode::CapabilityNotAvailable,
                "the page has not published its tools yet; try again shortly",
                &[("reason", json!("no-tools-yet"))],
            );
        };
        let has_output_schema = listed_output_schema
            || p.catalog
                .as_ref()
                .and_then(|c| c.tools.iter().find(|t| name_of(t) == name))
                .is_some_and(|t| t.get("outputSchema").is_some());
        let label = p.label.clone();
        let tx = p.tx.clone();
        st.next_call += 1;
        let call_id = format!("c{}", st.next_call);
        let (reply_tx, reply) = oneshot::channel();
        let (pending_tx, pending) = mpsc::unbounded_channel();
        let waiting = wait.then_some(pending_tx);
        st.calls.insert(call_id.clone(), Pending { page, name: name.to_string(), reply: reply_tx, waiting });
        if earlier.is_none() {
            st.dispatched.insert(invocation_id.to_string(), page);
            st.dispatched_order.push_back(invocation_id.to_string());
            while st.dispatched_order.len() > DISPATCHED_MEMORY {
                if let Some(old) = st.dispatched_order.pop_front() {
                    st.dispatched.remove(&old);
                }
            }
        }
        if tx.send(Outgoing::Text(protocol::call(&call_id, catalog, name, input, invocation_id, wait))).is_err() {
            // The writer is gone: the page is disconnecting right now.
            if let Some(c) = st.calls.remove(&call_id) {
                let _ = c.reply.send(Outcome::Disconnected);
            }
        }
        Ok(Dispatched { call_id, page_label: label, capability_id, has_output_schema, reply, pending })
    }
}
