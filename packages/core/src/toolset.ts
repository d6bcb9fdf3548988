// createAgentToolset: the engine's toolset (crates/engine/src/expose/toolset.rs) over a registry
// of this package — direct tools (one per capability, wire-safe names) or the three meta tools,
// `wait` or `two-phase` confirmations (two-phase remembers a CONFIRMATION_REQUIRED per tool,
// canonical input and consumer and attaches it when the model repeats the call, so a model never
// handles confirmation ids). Each tool's `execute` runs as the tool was in the catalog it came
// from (its registrationId and surfaceVersion go with the call) and never throws.

import { Cancel, Toolset as EngineToolset } from "../wasm/agent_surface_wasm.js";
import { engineError } from "./engine.js";
import { deepFreeze, isPlainObject, jsonText } from "./json.js";
import { engineOf } from "./registry.js";
import type { AgentInvocationResult, AgentSurfaceRegistry, AgentTool, AgentToolset, AgentToolsetOptions, JsonValue, Unsubscribe } from "./types.js";

const OPTION_KEYS = new Set(["consumer", "mode", "topology", "confirmations", "scope", "budget"]);

interface Catalog {
  catalog: number;
  tools: Array<Omit<AgentTool, "execute">>;
}

/** The engine's catalog id of each tools() array (the MCP bridge sends it with every call). */
const catalogIds = new WeakMap<readonly AgentTool[], number>();

/**
 * @internal The engine's id of the catalog a `tools()` array came from: the same id while every
 * tool routes to the same registration and surface version, a new one when a route moved.
 */
export function catalogIdOf(tools: readonly AgentTool[]): number | undefined {
  return catalogIds.get(tools);
}

/** @internal The envelope for a call the engine cannot even read (input that is not JSON). */
export function notJsonResult(name: string, toolCallId: string | undefined, surfaceVersion: string, message: string): AgentInvocationResult {
  return deepFreeze({
    status: "error",
    invocationId: toolCallId ?? "",
    capabilityId: name,
    error: { code: "INVALID_INPUT", message, retry: "with-changes" },
    surfaceVersion,
  }) as unknown as AgentInvocationResult;
}

/** @internal `tool.execute(input, { toolCallId, signal? })` over an engine call that answers JSON text. */
export function toolExecute(
  name: string,
  version: () => string,
  run: (inputText: string, callText: string, cancel: Cancel | undefined) => Promise<string>,
): AgentTool["execute"] {
  return (input: JsonValue, call?: { toolCallId?: string; signal?: AbortSignal }) => {
    const toolCallId = typeof call?.toolCallId === "string" ? call.toolCallId : undefined;
    let inputText: string;
    try {
      inputText = jsonText(input ?? {});
    } catch (e) {
      return Promise.resolve(notJsonResult(name, toolCallId, version(), `the input is not JSON: ${(e as Error).message}`));
    }
    const signal = call?.signal;
    const cancel = signal ? new Cancel() : undefined;
    const onAbort = () => cancel?.abort();
    if (signal?.aborted) onAbort();
    else signal?.addEventListener("abort", onAbort, { once: true });
    return run(inputText, JSON.stringify({ toolCallId }), cancel).then(
      (text) => {
        signal?.removeEventListener("abort", onAbort);
        return deepFreeze(JSON.parse(text)) as AgentInvocationResult;
      },
      (thrown) => {
        signal?.removeEventListener("abort", onAbort);
        let message = "the tool could not run";
        try {
          message = engineError(thrown).message;
        } catch {
          // a trap: keep the generic message
        }
        return notJsonResult(name, toolCallId, version(), message);
      },
    );
  };
}

/** `createAgentToolset(registry, options)`; throws for misuse (no topology or confirmations, a budget in direct mode). */
export function createAgentToolset(registry: AgentSurfaceRegistry, options: AgentToolsetOptions): AgentToolset {
  const engine = engineOf(registry, "createAgentToolset");
  if (!isPlainObject(options)) throw new TypeError("createAgentToolset: pass { consumer, topology | confirmations, mode? }");
  for (const key of Object.keys(options)) {
    if (!OPTION_KEYS.has(key)) throw new TypeError(`createAgentToolset: unknown option "${key}" (allowed: ${[...OPTION_KEYS].join(", ")})`);
  }
  let toolset: EngineToolset;
  try {
    toolset = new EngineToolset(engine, jsonText(options));
  } catch (thrown) {
    if (thrown instanceof TypeError) throw new TypeError(`createAgentToolset: ${thrown.message}`);
    throw new TypeError(`createAgentToolset: ${engineError(thrown).message}`);
  }
  const version = () => registry.getVersion();
  const materialize = (text: string): AgentTool[] => {
    const c = JSON.parse(text) as Catalog;
    const tools = Object.freeze(
      c.tools.map((t) =>
        Object.freeze({
          ...deepFreeze(t),
          execute: toolExecute(t.name, version, (input, call, cancel) => toolset.execute(c.catalog, t.name, input, call, cancel?.handle()) as Promise<string>),
        }),
      ),
    ) as AgentTool[];
    catalogIds.set(tools, c.catalog);
    return tools;
  };
  const api = {
    tools: () => materialize(toolset.tools()),
    wireNameMap: (): ReadonlyMap<string, string> => new Map(Object.entries(JSON.parse(toolset.wireNameMap()) as Record<string, string>)),
    subscribe(listener: (tools: AgentTool[]) => void): Unsubscribe {
      if (typeof listener !== "function") throw new TypeError("toolset.subscribe: the listener must be a function");
      const id = toolset.subscribe((text: string) => {
        try {
          listener(materialize(text));
        } catch (e) {
          console.error(`agent-surface: a toolset listener threw: ${(e as Error)?.message ?? e}`);
        }
      });
      return () => toolset.unsubscribe(id);
    },
    /**
     * The current catalog as a provider's tool block ("openai" | "anthropic" | "gemini" |
     * "mcp"): the engine's rendering (strict-mode schemas, MCP annotations).
     */
    toolBlock(provider: "openai" | "anthropic" | "gemini" | "mcp"): unknown[] {
      try {
        return deepFreeze(JSON.parse(toolset.toolBlock(provider)) as unknown[]);
      } catch (thrown) {
        throw new TypeError(`toolset.toolBlock: ${engineError(thrown).message}`);
      }
    },
    dispose: () => toolset.dispose(),
  };
  return Object.freeze(api) as AgentToolset;
}
