// @agent-surface/core/webmcp: the registry's toolset published through the page's WebMCP
// `modelContext` (the W3C Web Machine Learning CG draft: `document.modelContext.registerTool`).
//
// WebMCP itself validates nothing and treats its annotations as hints. Here every call goes
// through the registry's pipeline (`tool.execute` → `invoke`): inputs are validated, policies
// run, and a capability that requires confirmation waits for the page's own dialog
// (`registry.confirmations`), with the consumer kind "webmcp". The agent cannot approve.

import { explainSurface } from "./explain.js";
import { mcpAnnotations } from "./expose/providers.js";
import { projectForWebMCP } from "./expose/webmcp-schema.js";
import { isThenable } from "./runtime/json.js";
import { bareToolset } from "./toolset.js";
import type { AgentConsumer, AgentInvocationResult, AgentSurfaceRegistry, AgentTool, JsonSchema, JsonValue, Unsubscribe } from "./types.js";

/** The draft's `ToolAnnotations`, plus MCP's hints (implementations drop members they do not know). */
export interface WebMCPToolAnnotations {
  readOnlyHint: boolean;
  untrustedContentHint: boolean;
  consequentialHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
  /** The draft's developer-tool mark: true only for `surface_explain` (`developerTools`). */
  debugging: boolean;
}

/**
 * What a tool's `execute` resolves with: the invocation envelope, plus `isError: true` when its
 * status is "error". WebMCP has no error result of its own (a throwing `execute` only reaches
 * the agent as an `UnknownError` without the envelope); relays map the tool result to MCP's
 * `CallToolResult`, where `isError` is the error flag: `@playwright/mcp` 0.0.83 answers a
 * `webmcp_*` call whose result parses to an object with `isError: true` as an MCP error result
 * (`isError` set), with the whole envelope as its text, so the agent sees an error it can act on.
 */
export type WebMCPToolResult = AgentInvocationResult & { isError?: true };

/** The draft's `ModelContextTool` as this module registers it. */
export interface WebMCPToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The capability's output schema, projected like the input's (Chrome 159+ accepts it; earlier ones drop it). */
  outputSchema?: Record<string, unknown>;
  annotations: WebMCPToolAnnotations;
  /** Resolves with the result envelope (`isError: true` on errors), which the user agent serializes to JSON for the agent. */
  execute(input: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<WebMCPToolResult>;
}

/** The part of the draft's `ModelContext` this module uses. */
export interface WebMCPModelContext {
  registerTool(tool: WebMCPToolDefinition, options?: { signal?: AbortSignal }): unknown;
}

export interface ExposeToWebMCPOptions {
  /** Default: the page's own, `document.modelContext`, else `navigator.modelContext` (older drafts). */
  modelContext?: WebMCPModelContext;
  /** The consumer is `{ kind: "webmcp", id: consumerId }`. Default "default". */
  consumerId?: string;
  /** The toolset's mode. Default "direct" (one tool per capability, named by wire name). */
  mode?: "direct" | "meta";
  /**
   * Also registers `surface_explain`, marked `debugging: true`: why each capability is exposed,
   * disabled or hidden for this consumer (`explainSurface`). For development builds: it shows
   * hidden capabilities and the policies that hid them. Default false.
   */
  developerTools?: boolean;
}

export interface WebMCPExposure {
  /** False when no modelContext was given or found: nothing was published. */
  readonly supported: boolean;
  /** Unregisters every tool (aborting their registration signals) and disposes the toolset. Idempotent. */
  close(): void;
}

const OPTION_KEYS = new Set(["modelContext", "consumerId", "mode", "developerTools"]);

/** The developer tool's name (`developerTools`); no capability's wire name starts with `surface_`. */
export const EXPLAIN_TOOL = "surface_explain";

/** The engine's description prefix: `[<plane> · <effect> · <confirmation>] `. */
const PREFIX = /^\[(view|domain|external) · ([a-z-]+) · ([a-z-]+)\] /;

/** Effects that reach beyond the page: what a browser agent should treat as consequential. */
const BEYOND_THE_PAGE = new Set(["mutation", "destructive", "external-side-effect"]);

interface McpEntry {
  name: string;
  annotations?: { readOnlyHint?: boolean; destructiveHint?: boolean; idempotentHint?: boolean; openWorldHint?: boolean };
}

/**
 * The annotations of one tool. MCP's four hints are the engine's (`toolBlock("mcp")`):
 * readOnly = effect "read"; destructive = effect "destructive", or an irreversible mutation or
 * external side effect; idempotent = the contract's `idempotent`; openWorld = an external side
 * effect or the external plane. The draft's two:
 * - consequentialHint: the effect reaches beyond the page (mutation, destructive, external side
 *   effect), or the contract asks for confirmation ("optional" or "required"). Local UI state and
 *   navigation are not consequential. Meta tools: `surface_invoke` (it can do anything).
 * - untrustedContentHint: openWorldHint — output that comes from outside the app.
 */
export function webmcpAnnotations(tool: Pick<AgentTool, "name" | "description">, mcp: McpEntry["annotations"] = {}): WebMCPToolAnnotations {
  const readOnlyHint = mcp.readOnlyHint === true;
  const openWorldHint = mcp.openWorldHint === true;
  const prefix = PREFIX.exec(tool.description);
  const consequentialHint = prefix ? BEYOND_THE_PAGE.has(prefix[2]!) || prefix[3] !== "never" : !readOnlyHint;
  return {
    readOnlyHint,
    untrustedContentHint: openWorldHint,
    consequentialHint,
    destructiveHint: mcp.destructiveHint === true,
    idempotentHint: mcp.idempotentHint === true,
    openWorldHint,
    debugging: false,
  };
}

/** At most this much of a component's description is added to each of its tools' descriptions. */
const COMPONENT_TEXT_MAX = 300;

/** A component's description, for the tools of its capabilities: capability id → "<type>: <description>". */
function componentTexts(registry: AgentSurfaceRegistry, consumer: AgentConsumer): Map<string, string> {
  const out = new Map<string, string>();
  for (const c of registry.snapshot({ consumer }).components) {
    const text = c.description.trim();
    if (text === "") continue;
    const short = text.length > COMPONENT_TEXT_MAX ? `${text.slice(0, COMPONENT_TEXT_MAX - 1).trimEnd()}…` : text;
    for (const d of [...c.observations, ...c.actions]) out.set(d.capabilityId, `${c.type}: ${short}`);
  }
  return out;
}

/**
 * The description the agent reads: the toolset's; the description of the component the tool
 * belongs to (WebMCP has no component level: "\n\nComponent <type>: <text>", at most 300
 * characters of it); the live state that WebMCP has no other channel for.
 */
function describe(tool: AgentTool, component?: string): string {
  let text = tool.description;
  if (component !== undefined) text += `\n\nComponent ${component}`;
  if (!tool.state.available) text += tool.state.unavailableReason ? `\n\nUnavailable now: ${tool.state.unavailableReason}` : "\n\nUnavailable now.";
  if (tool.state.note) text += `\n\nNote: ${tool.state.note}`;
  return text;
}

interface Registration {
  /** What was registered, as JSON: a catalog change re-registers only when this differs. */
  key: string;
  controller: AbortController;
  /** The newest catalog's tool of this name; a call runs through it. */
  tool: AgentTool;
}

function pageModelContext(): WebMCPModelContext | undefined {
  const g = globalThis as { document?: { modelContext?: unknown }; navigator?: { modelContext?: unknown } };
  const candidate = g.document?.modelContext ?? g.navigator?.modelContext;
  return isModelContext(candidate) ? candidate : undefined;
}

function isModelContext(v: unknown): v is WebMCPModelContext {
  return typeof v === "object" && v !== null && typeof (v as { registerTool?: unknown }).registerTool === "function";
}

/**
 * Publishes the registry's toolset through WebMCP: one `registerTool` per tool (names are the
 * direct toolset's wire names), each with its own AbortController; when the catalog changes, the
 * tools whose definition changed are unregistered (signal aborted) and registered again, new ones
 * are registered and gone ones unregistered. `execute` runs the tool through the pipeline and
 * resolves with the result envelope (errors too, flagged `isError: true`: it never rejects), which the user agent
 * serializes to JSON for the agent. Confirmations are "wait": the call stays pending until the
 * page's own dialog resolves it through `registry.confirmations` (or its TTL expires); the
 * agent's cancellation (`options.signal`) settles it CANCELLED.
 *
 * Without a modelContext (none given, none on the page) nothing happens: `supported` is false.
 */
export function exposeToWebMCP(registry: AgentSurfaceRegistry, options: ExposeToWebMCPOptions = {}): WebMCPExposure {
  if (options === null || typeof options !== "object") throw new TypeError("exposeToWebMCP: pass { modelContext?, consumerId?, mode? }");
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new TypeError(`exposeToWebMCP: unknown option "${key}" (allowed: ${[...OPTION_KEYS].join(", ")})`);
  }
  if (options.modelContext !== undefined && !isModelContext(options.modelContext)) {
    throw new TypeError("exposeToWebMCP: modelContext must have a registerTool(tool, { signal }) method");
  }
  if (options.consumerId !== undefined && (typeof options.consumerId !== "string" || options.consumerId === "")) {
    throw new TypeError("exposeToWebMCP: consumerId must be a non-empty string");
  }
  const modelContext = options.modelContext ?? pageModelContext();
  if (modelContext === undefined) return Object.freeze({ supported: false, close() {} });

  if (options.developerTools !== undefined && typeof options.developerTools !== "boolean") throw new TypeError("exposeToWebMCP: developerTools must be a boolean");
  const consumer: AgentConsumer = { kind: "webmcp", id: options.consumerId ?? "default" };
  const toolset = bareToolset(registry, {
    consumer,
    mode: options.mode ?? "direct",
    confirmations: "wait",
  });
  const registrations = new Map<string, Registration>();
  let closed = false;

  const register = (tool: AgentTool, definition: Omit<WebMCPToolDefinition, "execute">, key: string) => {
    const controller = new AbortController();
    const entry: Registration = { key, controller, tool };
    registrations.set(tool.name, entry);
    const execute = async (input: Record<string, unknown>, opts?: { signal?: AbortSignal }): Promise<WebMCPToolResult> => {
      const result = await entry.tool.execute((input ?? {}) as JsonValue, opts?.signal ? { signal: opts.signal } : {});
      return result.status === "error" ? { ...result, isError: true } : result;
    };
    let result: unknown;
    try {
      result = modelContext.registerTool({ ...definition, execute }, { signal: controller.signal });
    } catch (e) {
      registrations.delete(tool.name);
      console.error(`agent-surface: WebMCP refused the tool "${tool.name}": ${(e as Error)?.message ?? e}`);
      return;
    }
    if (isThenable(result)) {
      result.then(undefined, (e: unknown) => {
        // Aborting rejects a registration that had not resolved yet: that is ours, not a failure.
        if (controller.signal.aborted) return;
        if (registrations.get(tool.name) === entry) registrations.delete(tool.name);
        console.error(`agent-surface: WebMCP refused the tool "${tool.name}": ${(e as Error)?.message ?? e}`);
      });
    }
  };

  const unregister = (name: string) => {
    const entry = registrations.get(name);
    if (entry === undefined) return;
    registrations.delete(name);
    entry.controller.abort();
  };

  const publish = (tools: AgentTool[]) => {
    if (closed) return;
    const capabilities = toolset.wireNameMap();
    const components = componentTexts(registry, consumer);
    const next = new Set(tools.map((t) => t.name));
    for (const name of [...registrations.keys()]) if (!next.has(name) && name !== EXPLAIN_TOOL) unregister(name);
    for (const tool of tools) {
      const definition = {
        name: tool.name,
        title: capabilities.get(tool.name) ?? tool.name,
        description: describe(tool, components.get(capabilities.get(tool.name) ?? "")),
        // Inside WebMCP's keyword allow-list (a hint; the pipeline validates with the full schema).
        inputSchema: projectForWebMCP(tool.inputSchema).schema,
        ...(outputSchemaOf(tool) !== undefined && { outputSchema: projectForWebMCP(outputSchemaOf(tool)!).schema }),
        annotations: webmcpAnnotations(tool, mcpAnnotations(tool)),
      };
      const key = JSON.stringify(definition);
      const current = registrations.get(tool.name);
      if (current !== undefined && current.key === key) {
        current.tool = tool;
        continue;
      }
      unregister(tool.name);
      register(tool, definition, key);
    }
  };

  let unsubscribe: Unsubscribe | undefined;
  try {
    if (options.developerTools === true) registerExplain(registry, consumer, modelContext, registrations);
    publish(toolset.tools());
    unsubscribe = toolset.subscribe(publish);
  } catch (e) {
    for (const name of [...registrations.keys()]) unregister(name);
    toolset.dispose();
    throw e;
  }

  return Object.freeze({
    supported: true,
    close() {
      if (closed) return;
      closed = true;
      unsubscribe?.();
      for (const name of [...registrations.keys()]) unregister(name);
      toolset.dispose();
    },
  });
}

function outputSchemaOf(tool: AgentTool): JsonSchema | undefined {
  const schema = (tool as AgentTool & { outputSchema?: JsonSchema }).outputSchema;
  return schema !== null && typeof schema === "object" ? schema : undefined;
}

/** `surface_explain` (`developerTools`): a read-only developer tool, `debugging: true`. */
function registerExplain(
  registry: AgentSurfaceRegistry,
  consumer: AgentConsumer,
  modelContext: WebMCPModelContext,
  registrations: Map<string, { key: string; controller: AbortController; tool: AgentTool }>,
) {
  const controller = new AbortController();
  const inputSchema = { type: "object", properties: {}, additionalProperties: false };
  const definition: WebMCPToolDefinition = {
    name: EXPLAIN_TOOL,
    title: "agent-surface: explain the surface",
    description:
      "[developer tool] Why each capability of this page is exposed, disabled or hidden for this agent, with the policies that decided it. For developers debugging the page's agent surface, not for tasks.",
    inputSchema,
    annotations: { readOnlyHint: true, untrustedContentHint: false, consequentialHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false, debugging: true },
    async execute() {
      const output = explainSurface(registry, { consumer });
      return { status: "ok", invocationId: "", capabilityId: EXPLAIN_TOOL, output: output as unknown as JsonValue, surfaceVersion: output.surfaceVersion };
    },
  };
  const tool = { name: EXPLAIN_TOOL, description: definition.description, inputSchema, state: { available: true } } as unknown as AgentTool;
  registrations.set(EXPLAIN_TOOL, { key: "", controller, tool });
  try {
    const result = modelContext.registerTool(definition, { signal: controller.signal });
    if (isThenable(result)) result.then(undefined, (e: unknown) => !controller.signal.aborted && console.error(`agent-surface: WebMCP refused the tool "${EXPLAIN_TOOL}": ${(e as Error)?.message ?? e}`));
  } catch (e) {
    registrations.delete(EXPLAIN_TOOL);
    console.error(`agent-surface: WebMCP refused the tool "${EXPLAIN_TOOL}": ${(e as Error)?.message ?? e}`);
  }
}
