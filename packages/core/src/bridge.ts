// @agent-surface/core/bridge: connectAgentBridge(registry, { url, token, consumerId?, names? }) serves
// the registry's toolset (direct mode, consumer kind "mcp-bridge", two-phase confirmations) to
// `agent-surface bridge`, which maps MCP onto it. The protocol (docs/bridge.md) is JSON text
// frames over one WebSocket:
//
//   page → bridge   hello {token, protocol, page}   first frame: the token never goes in a URL
//                   tools {catalog, surfaceVersion, tools, capabilities}   the toolset's MCP tool
//                   block and its wire names' capability ids
//                   result {id, result}             the tool's AgentInvocationResult
//                   pending {id, confirmation}      a wait call needs the user's confirmation
//                                                   ({confirmationId, summary, expiresAt})
//                   focus {}                        this page became the one the user looks at
//                   error {id?, message}            a bridge frame this page could not read
//   bridge → page   welcome {protocol, page}        authenticated: page is this page's id ("p1")
//                   call {id, catalog, name, input, invocationId, wait?}   wait: the client can
//                   wait for a confirmation (the page answers pending, then the final result)
//                   cancel {id}                     notifications/cancelled: abort the call
//                   error {message}                 a page frame the bridge could not read
//
// There is no frame that resolves a confirmation: the user approves in the page's own UI
// (registry.confirmations), never through the bridge.

import { createAgentToolset, catalogIdOf } from "./toolset.js";
import type { AgentInvocationResult, AgentSurfaceRegistry, AgentTool, JsonValue, Unsubscribe } from "./types.js";

export const AGENT_BRIDGE_PROTOCOL = 1;
/** The largest frame either side reads. */
export const MAX_BRIDGE_FRAME_BYTES = 4 << 20;
/** How many catalogs are kept for calls that name an older one. */
const KEPT_CATALOGS = 16;
/** Close codes after which reconnecting cannot help. */
const REFUSED = new Map([
  [4400, "the bridge speaks another protocol version"],
  [4401, "the bridge refused the token"],
  [4403, "the bridge refused this page's origin (start it with --allow-origin)"],
]);

export type AgentBridgeStatus = "connecting" | "connected" | "reconnecting" | "refused" | "closed";

/** The part of the WebSocket API the bridge client uses (the browser's, or any compatible one). */
export interface BridgeSocket {
  readonly readyState: number;
  send(data: string): void;
  close(code?: number, reason?: string): void;
  onopen: ((ev: unknown) => void) | null;
  onmessage: ((ev: { data: unknown }) => void) | null;
  onclose: ((ev: { code: number; reason: string }) => void) | null;
  onerror: ((ev: unknown) => void) | null;
}

export interface AgentBridgeOptions {
  /** The `ws://127.0.0.1:PORT` the bridge printed. */
  url: string;
  /** The token the bridge printed; sent in the first frame, never in the URL. */
  token: string;
  /** The consumer id this page's registry sees for calls through the bridge. Default "mcp-bridge". */
  consumerId?: string;
  /**
   * The toolset's tool names: "prefixed" (default: `view_devices_table_readState`) or
   * "unprefixed" (`devices_table_readState`, for clients that call fixed tool names). A page tool
   * named like one of the bridge's own (`surface_list`, `surface_select`) is left out by the bridge.
   */
  names?: "prefixed" | "unprefixed";
  /** Reconnect (with backoff) after the socket dropped; never after a refusal. Default true. */
  reconnect?: boolean;
  /** Called on every status change (and with the reason of a refusal). */
  onStatus?: (status: AgentBridgeStatus, detail?: string) => void;
  /** A WebSocket constructor, for hosts without `globalThis.WebSocket` (Node 20) and tests. */
  WebSocket?: new (url: string) => BridgeSocket;
}

export interface AgentBridgeConnection {
  readonly status: AgentBridgeStatus;
  /** This page's id at the bridge ("p1"), once connected. */
  readonly page: string | undefined;
  /** Closes the socket and stops serving; calls already running finish in the page. */
  close(): void;
}

const OPTION_KEYS = new Set(["url", "token", "consumerId", "names", "reconnect", "onStatus", "WebSocket"]);
const OPEN = 1;

type Frame = Record<string, unknown>;

function envelope(invocationId: string, name: string, code: string, message: string, retry: string, surfaceVersion: string): AgentInvocationResult {
  return { status: "error", invocationId, capabilityId: name, error: { code, message, retry }, surfaceVersion } as unknown as AgentInvocationResult;
}

/** `connectAgentBridge(registry, { url, token, consumerId? })`. Throws for misuse only. */
export function connectAgentBridge(registry: AgentSurfaceRegistry, options: AgentBridgeOptions): AgentBridgeConnection {
  if (options === null || typeof options !== "object") throw new TypeError("connectAgentBridge: pass { url, token, consumerId? }");
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new TypeError(`connectAgentBridge: unknown option "${key}" (allowed: ${[...OPTION_KEYS].join(", ")})`);
  }
  const { url, token } = options;
  if (typeof url !== "string" || !/^wss?:\/\//.test(url)) throw new TypeError("connectAgentBridge: url must be the ws:// address the bridge printed");
  if (typeof token !== "string" || token === "") throw new TypeError("connectAgentBridge: token must be the token the bridge printed");
  if (/[?#&]token=/.test(url) || url.includes(token)) throw new TypeError("connectAgentBridge: the token goes in the token option, never in the URL");
  const consumerId = options.consumerId ?? "mcp-bridge";
  if (typeof consumerId !== "string" || consumerId === "") throw new TypeError("connectAgentBridge: consumerId must be a non-empty string");
  const Socket = options.WebSocket ?? (globalThis as { WebSocket?: new (url: string) => BridgeSocket }).WebSocket;
  if (typeof Socket !== "function") throw new TypeError("connectAgentBridge: no WebSocket here; pass options.WebSocket");
  const reconnect = options.reconnect !== false;
  if (options.names !== undefined && options.names !== "prefixed" && options.names !== "unprefixed") {
    throw new TypeError('connectAgentBridge: names must be "prefixed" or "unprefixed"');
  }

  const toolset = createAgentToolset(registry, {
    consumer: { id: consumerId, kind: "mcp-bridge" },
    mode: "direct",
    confirmations: "two-phase",
    ...(options.names !== undefined && { names: options.names }),
  });
  const catalogs = new Map<number, readonly AgentTool[]>();
  let sent: { catalog: number; text: string } | undefined;
  let socket: BridgeSocket | undefined;
  let status: AgentBridgeStatus = "connecting";
  let page: string | undefined;
  let closed = false;
  let retryMs = 250;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const inflight = new Map<string, { controller: AbortController; socket: BridgeSocket }>();

  const setStatus = (s: AgentBridgeStatus, detail?: string) => {
    status = s;
    try {
      options.onStatus?.(s, detail);
    } catch (e) {
      console.error(`agent-surface bridge: onStatus threw: ${(e as Error)?.message ?? e}`);
    }
  };
  const send = (ws: BridgeSocket | undefined, frame: Frame) => {
    if (ws && ws.readyState === OPEN && ws === socket) ws.send(JSON.stringify(frame));
  };

  /** Sends the catalog when its id (a route moved), its MCP block or a tool's state changed. */
  const publish = (force = false) => {
    if (status !== "connected") return;
    const tools = toolset.tools();
    const catalog = catalogIdOf(tools);
    if (catalog === undefined) return;
    const block = (toolset as typeof toolset & { toolBlock(provider: "mcp"): unknown[] }).toolBlock("mcp");
    // Each tool's live state (available, unavailableReason, note) travels beside the block, so a
    // state-only change is published without touching the definitions clients cache.
    const states = Object.fromEntries(tools.map((t) => [t.name, t.state as unknown as JsonValue]));
    const text = JSON.stringify([block, states]);
    if (!force && sent && sent.catalog === catalog && sent.text === text) return;
    catalogs.delete(catalog);
    catalogs.set(catalog, tools);
    while (catalogs.size > KEPT_CATALOGS) catalogs.delete(catalogs.keys().next().value as number);
    sent = { catalog, text };
    // `capabilities` (wire name -> capability id) lets the bridge name the capability in the
    // errors it makes itself (a page gone mid-call): wire names cannot be decoded.
    const capabilities = Object.fromEntries(toolset.wireNameMap());
    send(socket, { type: "tools", catalog, surfaceVersion: registry.getVersion(), tools: block as JsonValue, capabilities, states });
  };
  let scheduled = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    queueMicrotask(() => {
      scheduled = false;
      publish();
    });
  };
  const unsubscribe: Unsubscribe[] = [
    registry.subscribe((e) => {
      if (e.type === "surface-changed") schedule();
    }),
    toolset.subscribe(schedule),
  ];
  const onFocus = () => send(socket, { type: "focus" });
  const onVisibility = () => {
    if ((globalThis as { document?: { visibilityState?: string } }).document?.visibilityState === "visible") onFocus();
  };
  type Target = { addEventListener?: (t: string, f: () => void) => void; removeEventListener?: (t: string, f: () => void) => void };
  const win = globalThis as Target;
  const doc = (globalThis as { document?: Target }).document;
  win.addEventListener?.("focus", onFocus);
  doc?.addEventListener?.("visibilitychange", onVisibility);

  const call = async (ws: BridgeSocket, frame: Frame) => {
    const id = frame.id as string;
    const name = typeof frame.name === "string" ? frame.name : "";
    const invocationId = typeof frame.invocationId === "string" ? frame.invocationId : "";
    const tools = typeof frame.catalog === "number" ? catalogs.get(frame.catalog) : undefined;
    let result: AgentInvocationResult;
    if (!tools) {
      result = envelope(invocationId, name, "STALE_CAPABILITY", "this tool list is no longer current in the page; list the tools again", "with-changes", registry.getVersion());
    } else {
      const tool = tools.find((t) => t.name === name);
      if (!tool) {
        result = envelope(invocationId, name, "CAPABILITY_NOT_FOUND", `no tool named ${name}`, "with-changes", registry.getVersion());
      } else {
        const controller = new AbortController();
        inflight.set(id, { controller, socket: ws });
        const input = (frame.input ?? {}) as JsonValue;
        const execute = tool.execute as (input: JsonValue, call: { toolCallId?: string; signal?: AbortSignal }) => Promise<AgentInvocationResult>;
        const callOpts = { toolCallId: invocationId || undefined, signal: controller.signal };
        result = await execute(input, callOpts);
        const details = result.status === "error" && result.error.code === "CONFIRMATION_REQUIRED" ? result.error.details : undefined;
        const cid = details?.confirmationId;
        if (frame.wait === true && typeof cid === "string") {
          // The client can wait (it sent a progressToken): the call stays open here until the
          // user decides in the page; the bridge tells the client what is pending and where.
          const { confirmationId, summary, expiresAt } = details as Record<string, JsonValue>;
          send(ws, { type: "pending", id, confirmation: { confirmationId, summary, expiresAt } as JsonValue });
          await registry.confirmations.waitFor(cid, { signal: controller.signal }).catch(() => undefined);
          if (controller.signal.aborted) {
            try {
              registry.confirmations.resolve(cid, { approved: false, reason: "the call was cancelled while waiting" });
            } catch {
              // already settled
            }
          } else {
            // The same call again: the toolset attaches the confirmation (approved: it runs once;
            // denied or expired: the pipeline answers CONFIRMATION_DENIED / _EXPIRED).
            result = await execute(input, callOpts);
          }
        }
        inflight.delete(id);
      }
    }
    // A socket that closed meanwhile: the bridge already told the client; the result stays in
    // the registry's dedupe cache under its invocation id.
    send(ws, { type: "result", id, result: result as unknown as JsonValue });
  };

  const onFrame = (ws: BridgeSocket, data: unknown) => {
    const fail = (message: string, id?: unknown) => {
      console.warn(`agent-surface bridge: ${message}`);
      send(ws, typeof id === "string" ? { type: "error", id, message } : { type: "error", message });
    };
    if (typeof data !== "string") return fail("a binary frame from the bridge (the protocol is JSON text)");
    if (data.length > MAX_BRIDGE_FRAME_BYTES) return fail(`a ${data.length}-character frame from the bridge (limit ${MAX_BRIDGE_FRAME_BYTES})`);
    let frame: Frame;
    try {
      const parsed: unknown = JSON.parse(data);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return fail("a bridge frame that is not a JSON object");
      frame = parsed as Frame;
    } catch (e) {
      return fail(`a bridge frame that is not JSON: ${(e as Error).message}`);
    }
    switch (frame.type) {
      case "welcome":
        if (frame.protocol !== AGENT_BRIDGE_PROTOCOL) return fail(`the bridge speaks protocol ${String(frame.protocol)}`);
        page = typeof frame.page === "string" ? frame.page : undefined;
        retryMs = 250;
        setStatus("connected", page);
        publish(true);
        return;
      case "call":
        if (status !== "connected") return fail("a call before the welcome", frame.id);
        if (typeof frame.id !== "string" || typeof frame.name !== "string" || typeof frame.catalog !== "number") {
          return fail("a call frame needs a string id, a string name and a numeric catalog", frame.id);
        }
        if (frame.input !== undefined && (frame.input === null || typeof frame.input !== "object" || Array.isArray(frame.input))) {
          return fail("a call's input must be an object", frame.id);
        }
        void call(ws, frame);
        return;
      case "cancel":
        if (typeof frame.id === "string") inflight.get(frame.id)?.controller.abort();
        return;
      case "error":
        console.warn(`agent-surface bridge: the bridge could not read a frame from this page: ${String(frame.message)}`);
        return;
      default:
        return fail(`an unknown bridge frame type ${JSON.stringify(frame.type)}`);
    }
  };

  const open = () => {
    if (closed) return;
    let ws: BridgeSocket;
    try {
      ws = new Socket(url);
    } catch (e) {
      setStatus("reconnecting", (e as Error).message);
      retry();
      return;
    }
    socket = ws;
    ws.onopen = () => {
      const doc = (globalThis as { document?: { title?: string } }).document;
      const loc = (globalThis as { location?: { href?: string } }).location;
      ws.send(
        JSON.stringify({
          type: "hello",
          protocol: AGENT_BRIDGE_PROTOCOL,
          token,
          page: { surfaceId: registry.surfaceId, title: doc?.title ?? "", url: loc?.href ?? "", consumerId },
        }),
      );
    };
    ws.onmessage = (ev) => {
      if (ws === socket) onFrame(ws, ev.data);
    };
    ws.onerror = () => {};
    ws.onclose = (ev) => {
      if (ws !== socket) return;
      socket = undefined;
      page = undefined;
      sent = undefined;
      if (closed) return;
      const refused = REFUSED.get(ev.code);
      if (refused) {
        console.error(`agent-surface bridge: ${refused}${ev.reason ? ` (${ev.reason})` : ""}; not reconnecting`);
        setStatus("refused", refused);
        return;
      }
      if (!reconnect) return setStatus("closed", `closed (${ev.code})`);
      setStatus("reconnecting", `closed (${ev.code})`);
      retry();
    };
  };
  const retry = () => {
    timer = setTimeout(open, retryMs);
    retryMs = Math.min(retryMs * 2, 5_000);
  };
  open();

  return Object.freeze({
    get status() {
      return status;
    },
    get page() {
      return page;
    },
    close() {
      if (closed) return;
      closed = true;
      if (timer !== undefined) clearTimeout(timer);
      for (const u of unsubscribe) u();
      win.removeEventListener?.("focus", onFocus);
      doc?.removeEventListener?.("visibilitychange", onVisibility);
      const ws = socket;
      socket = undefined;
      ws?.close(1000, "closed by the page");
      toolset.dispose();
      setStatus("closed");
    },
  });
}
