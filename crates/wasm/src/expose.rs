//! The spec's `createAgentToolset` and `createAgentExposureGateway` for the page: the engine's
//! toolset (direct and meta catalogs, wire names, two-phase confirmation memory, `wait`
//! confirmations) and gateway, with JSON text across.

use crate::registry::{BindingHost, Cancel, Registry};
use crate::wire;
use crate::Authority;
use agent_surface_engine::authority::CapabilityAuthority;
use agent_surface_engine::consumer::AgentConsumer;
use agent_surface_engine::expose::gateway::{create_agent_exposure_gateway, ConfirmFn, Exposable, ExposedTools};
use agent_surface_engine::expose::providers::{tool_block, Provider};
use agent_surface_engine::expose::toolset::{
    create_agent_toolset, AgentTool, AgentToolset, AgentToolsetOptions, ConfirmationMode, ToolCall, ToolsetMode,
    Topology,
};
use agent_surface_engine::snapshot::SnapshotBudget;
use serde::Deserialize;
use serde_json::Value;
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::Rc;
use wasm_bindgen::prelude::*;

fn throw(text: String) -> JsValue {
    JsValue::from_str(&text)
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ToolsetOptionsWire {
    consumer: AgentConsumer,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    topology: Option<String>,
    #[serde(default)]
    confirmations: Option<String>,
    #[serde(default)]
    scope: Option<Vec<String>>,
    #[serde(default)]
    budget: Option<SnapshotBudget>,
}

fn options(text: &str) -> Result<AgentToolsetOptions, String> {
    let w: ToolsetOptionsWire = wire::parse(text, "toolset options")?;
    let mode = match w.mode.as_deref() {
        None | Some("direct") => ToolsetMode::Direct,
        Some("meta") => ToolsetMode::Meta,
        Some(other) => return Err(wire::misuse(format!("mode must be \"direct\" or \"meta\", not \"{other}\""))),
    };
    let topology = match w.topology.as_deref() {
        None => None,
        Some("embedded") => Some(Topology::Embedded),
        Some("remote") => Some(Topology::Remote),
        Some(other) => {
            return Err(wire::misuse(format!("topology must be \"embedded\" or \"remote\", not \"{other}\"")))
        }
    };
    let confirmations = match w.confirmations.as_deref() {
        None => None,
        Some("wait") => Some(ConfirmationMode::Wait),
        Some("two-phase") => Some(ConfirmationMode::TwoPhase),
        Some(other) => {
            return Err(wire::misuse(format!("confirmations must be \"wait\" or \"two-phase\", not \"{other}\"")))
        }
    };
    Ok(AgentToolsetOptions { consumer: w.consumer, mode, topology, confirmations, scope: w.scope, budget: w.budget })
}

fn provider(name: &str) -> Result<Provider, String> {
    match name {
        "openai" => Ok(Provider::OpenAi),
        "anthropic" => Ok(Provider::Anthropic),
        "gemini" => Ok(Provider::Gemini),
        "mcp" => Ok(Provider::Mcp),
        other => Err(wire::misuse(format!("unknown provider \"{other}\" (openai, anthropic, gemini, mcp)"))),
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct CallWire {
    tool_call_id: Option<String>,
}

fn call(text: &str, cancel: Option<Cancel>) -> Result<ToolCall, String> {
    let w: CallWire = wire::parse(text, "tool call")?;
    Ok(ToolCall { id: w.tool_call_id, signal: cancel.map(|c| c.signal()) })
}

fn result_text(r: &agent_surface_engine::invoke::AgentInvocationResult) -> JsValue {
    JsValue::from_str(&serde_json::to_string(r).unwrap_or_default())
}

/// How many catalogs `tools()` built are kept for their tools' `execute` (a tool executes as
/// it was in its catalog: that catalog's registrationId and surfaceVersion go with the call).
/// A tool from an older catalog executes by name against the newest one.
const KEPT_CATALOGS: usize = 32;

/// The kept catalogs, by id, oldest first.
type Catalogs = RefCell<VecDeque<(u32, Vec<AgentTool>)>>;

/// `AgentToolset`.
#[wasm_bindgen]
pub struct Toolset {
    inner: AgentToolset,
    catalogs: Rc<Catalogs>,
    next_catalog: Cell<u32>,
    listeners: RefCell<HashMap<u32, u64>>,
}

#[wasm_bindgen]
impl Toolset {
    /// `createAgentToolset(registry, options)`; throws `{kind: "misuse"}` (no topology or
    /// confirmations, a budget in direct mode, a malformed option).
    #[wasm_bindgen(constructor)]
    pub fn new(registry: &Registry, options_text: &str) -> Result<Toolset, JsValue> {
        let o = options(options_text).map_err(throw)?;
        let inner = create_agent_toolset(registry.engine(), o).map_err(|e| throw(wire::misuse(e)))?;
        Ok(Toolset { inner, catalogs: Rc::default(), next_catalog: Cell::new(0), listeners: RefCell::default() })
    }

    /// `tools()`: `{catalog, tools: [{name, description, inputSchema, outputSchema?, state}]}`.
    pub fn tools(&self) -> String {
        let tools = self.inner.tools();
        let id = self.keep(tools.clone());
        serde_json::json!({ "catalog": id, "tools": tools }).to_string()
    }

    /// The last catalog's tools in a provider's tool-block format (`openai`, `anthropic`,
    /// `gemini`, `mcp`); throws `{kind: "provider"}` when the provider cannot take it.
    #[wasm_bindgen(js_name = toolBlock)]
    pub fn tool_block(&self, provider_name: &str) -> Result<String, JsValue> {
        let p = provider(provider_name).map_err(throw)?;
        let tools = self.inner.tools();
        tool_block(&tools, p).map(|b| Value::Array(b).to_string()).map_err(|e| throw(wire::error_text("provider", e)))
    }

    #[wasm_bindgen(js_name = wireNameMap)]
    pub fn wire_name_map(&self) -> String {
        serde_json::to_string(&self.inner.wire_name_map()).unwrap_or_else(|_| "{}".into())
    }

    /// `subscribe(listener)`: the listener gets the same JSON as [`Toolset::tools`].
    pub fn subscribe(&self, listener: js_sys::Function) -> u32 {
        let catalogs = self.catalogs.clone();
        let id = self.inner.subscribe(move |tools| {
            let catalog = keep_in(&catalogs, tools.to_vec());
            let text = serde_json::json!({ "catalog": catalog, "tools": tools }).to_string();
            let _ = listener.call1(&JsValue::UNDEFINED, &JsValue::from_str(&text));
        });
        let mine = self.next_catalog.get().wrapping_add(1) ^ 0x8000_0000;
        self.listeners.borrow_mut().insert(mine, id);
        mine
    }

    pub fn unsubscribe(&self, id: u32) {
        if let Some(engine_id) = self.listeners.borrow_mut().remove(&id) {
            self.inner.unsubscribe(engine_id);
        }
    }

    pub fn dispose(&self) {
        self.listeners.borrow_mut().clear();
        self.catalogs.borrow_mut().clear();
        self.inner.dispose();
    }

    /// `tool.execute(input, {toolCallId})` for a tool of catalog `catalog`: a promise of the
    /// result envelope (JSON text). Never rejects for agent-facing outcomes.
    pub fn execute(
        &self,
        catalog: u32,
        name: String,
        input: &str,
        call_text: &str,
        cancel: Option<Cancel>,
    ) -> js_sys::Promise {
        let toolset = self.inner.clone();
        let tool = self
            .catalogs
            .borrow()
            .iter()
            .find(|(id, _)| *id == catalog)
            .and_then(|(_, tools)| tools.iter().find(|t| t.name == name).cloned());
        let parsed = serde_json::from_str::<Value>(input)
            .map_err(|e| wire::misuse(format!("tool input: {e}")))
            .and_then(|i| call(call_text, cancel).map(|c| (i, c)));
        wasm_bindgen_futures::future_to_promise(async move {
            let (input, call) = parsed.map_err(throw)?;
            let r = match tool {
                Some(t) => toolset.execute_tool(&t, input, call).await,
                None => toolset.execute_call(&name, input, call).await,
            };
            Ok(result_text(&r))
        })
    }
}

impl Toolset {
    fn keep(&self, tools: Vec<AgentTool>) -> u32 {
        keep_in(&self.catalogs, tools)
    }
}

thread_local! {
    static CATALOG_SERIAL: Cell<u32> = const { Cell::new(0) };
}

/// Keeps a catalog (reusing the newest one's id when nothing a call carries changed).
fn keep_in(catalogs: &Catalogs, tools: Vec<AgentTool>) -> u32 {
    let mut c = catalogs.borrow_mut();
    if let Some((id, last)) = c.back() {
        if *last == tools && same_routes(last, &tools) {
            return *id;
        }
    }
    let id = CATALOG_SERIAL.with(|s| {
        let n = s.get().wrapping_add(1);
        s.set(n);
        n
    });
    c.push_back((id, tools));
    while c.len() > KEPT_CATALOGS {
        c.pop_front();
    }
    id
}

/// Whether two catalogs route every tool to the same registration and version (`AgentTool`'s
/// equality ignores routes; their Debug form shows them).
fn same_routes(a: &[AgentTool], b: &[AgentTool]) -> bool {
    a.iter().zip(b).all(|(x, y)| format!("{x:?}") == format!("{y:?}"))
}

// ---------------------------------------------------------------------------------------------
// The gateway

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExternalToolWire {
    id: String,
    #[serde(default)]
    raw: bool,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    provenance: Option<Value>,
    #[serde(default)]
    authored: Value,
}

/// `createAgentExposureGateway(authority)`.
#[wasm_bindgen]
pub struct Gateway {
    authority: CapabilityAuthority,
}

#[wasm_bindgen]
impl Gateway {
    #[wasm_bindgen(constructor)]
    pub fn new(authority: &Authority) -> Gateway {
        Gateway { authority: authority.inner.clone() }
    }

    /// `gateway.expose(tools)`: throws `{kind: "definition", code, contract, message}` on any
    /// tool without provenance for this manifest (raw, inert, unknown, stale, changed).
    pub fn expose(&self, tools_text: &str, handlers: BindingHost) -> Result<Exposed, JsValue> {
        let tools: Vec<ExternalToolWire> = wire::parse(tools_text, "tools").map_err(throw)?;
        let mut exposable = Vec::new();
        for t in tools {
            if t.raw {
                let name = t.name.clone().unwrap_or_else(|| t.id.clone());
                return Err(throw(wire::definition(
                    "raw-tool",
                    &t.id,
                    format!("\"{name}\" is a raw tool without compiler provenance"),
                )));
            }
            let provenance = t.provenance.as_ref().and_then(|p| {
                Some(crate::registry::ProvenanceWire {
                    id: p.get("id")?.as_str()?.to_string(),
                    contract_hash: p.get("contractHash")?.as_str()?.to_string(),
                })
            });
            crate::registry::verified_contract(&self.authority, &t.id, provenance.as_ref(), &t.authored)
                .map_err(throw)?;
            let contract =
                self.authority.external_tool(&t.id).map_err(|e| throw(wire::definition("wrong-kind", &t.id, e)))?;
            let binding = crate::registry::external_binding(&handlers, &t.id);
            let bound = contract.bind(binding).map_err(|e| throw(wire::definition("binding", &t.id, e)))?;
            exposable.push(Exposable::Bound(bound));
        }
        let gateway = create_agent_exposure_gateway(&self.authority);
        let inner = gateway.expose(exposable).map_err(|e| throw(wire::definition("gateway", "", e)))?;
        Ok(Exposed { inner: Rc::new(inner) })
    }
}

/// What `expose` accepted.
#[wasm_bindgen]
pub struct Exposed {
    inner: Rc<ExposedTools>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct GatewayCallWire {
    tool_call_id: Option<String>,
    consumer: Option<AgentConsumer>,
}

#[wasm_bindgen]
impl Exposed {
    /// The accepted tools as JSON text (`[{name, description, inputSchema, state}]`).
    pub fn tools(&self) -> String {
        serde_json::to_string(&self.inner.tools()).unwrap_or_else(|_| "[]".into())
    }

    #[wasm_bindgen(js_name = toolBlock)]
    pub fn tool_block(&self, provider_name: &str) -> Result<String, JsValue> {
        let p = provider(provider_name).map_err(throw)?;
        tool_block(&self.inner.tools(), p)
            .map(|b| Value::Array(b).to_string())
            .map_err(|e| throw(wire::error_text("provider", e)))
    }

    /// Runs a tool: a promise of the result envelope. `confirm(id, inputText)` answers a
    /// promise of a boolean for tools whose contract requires confirmation.
    pub fn execute(
        &self,
        name: String,
        input: &str,
        call_text: &str,
        confirm: Option<js_sys::Function>,
    ) -> js_sys::Promise {
        let inner = self.inner.clone();
        let parsed = serde_json::from_str::<Value>(input)
            .map_err(|e| wire::misuse(format!("tool input: {e}")))
            .and_then(|i| wire::parse::<GatewayCallWire>(call_text, "tool call").map(|c| (i, c)));
        wasm_bindgen_futures::future_to_promise(async move {
            let (input, c) = parsed.map_err(throw)?;
            let confirm: Option<ConfirmFn> = confirm.map(|f| {
                let f: ConfirmFn = std::sync::Arc::new(move |id: &str, input: &Value| {
                    let asked =
                        f.call2(&JsValue::UNDEFINED, &JsValue::from_str(id), &JsValue::from_str(&input.to_string()));
                    Box::pin(async move {
                        match asked {
                            Ok(v) => crate::host::settle_text(v).await.is_ok_and(|t| t == "true"),
                            Err(_) => false,
                        }
                    }) as agent_surface_engine::host::BoxFuture<bool>
                });
                f
            });
            let consumer = c.consumer.unwrap_or_else(AgentConsumer::anonymous);
            let r = inner.execute(&name, input, c.tool_call_id, consumer, confirm).await;
            Ok(result_text(&r))
        })
    }
}
