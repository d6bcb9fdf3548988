// createAgentExposureGateway: the same ceiling as the registry, at provider / MCP assembly. Only
// tools bound from external tool contracts this authority's manifest compiled (same id, same
// hash, same authored semantics) are exposed; anything else throws AgentSurfaceDefinitionError.
// Execution validates the input against the manifest's schema and asks `confirm` for tools
// whose contract requires confirmation (no confirm: CONFIRMATION_DENIED).

import { Gateway as EngineGateway, type Exposed as EngineExposed } from "../wasm/agent_surface_wasm.js";
import { engineAuthority } from "./authority.js";
import { engineError } from "./engine.js";
import { AgentSurfaceDefinitionError } from "./errors.js";
import { deepFreeze, jsonText } from "./json.js";
import { asBinding, authoredOperation, handlerHost, provenanceOf } from "./registry.js";
import { toolExecute } from "./toolset.js";
import type { AgentConsumer, AgentTool, CapabilityAuthority, JsonValue } from "./types.js";

export interface ExposeOptions {
  /** Who calls (default embedded:anonymous). */
  consumer?: AgentConsumer;
  /** Asks the user before a tool whose contract requires confirmation runs. */
  confirm?: (capabilityId: string, input: JsonValue) => boolean | Promise<boolean>;
  /** Host context handed to the tools' `execute` as ctx.host. */
  context?: () => Record<string, unknown>;
  environment?: "development" | "production" | "test";
}

export interface ExposedTools {
  tools(): AgentTool[];
  /** The tools as a provider's tool block ("openai" | "anthropic" | "gemini" | "mcp"). */
  toolBlock(provider: "openai" | "anthropic" | "gemini" | "mcp"): unknown[];
}

export interface AgentExposureGateway {
  expose(tools: unknown[], options?: ExposeOptions): ExposedTools;
}

export function createAgentExposureGateway(authority: CapabilityAuthority): AgentExposureGateway {
  const engine = new EngineGateway(engineAuthority(authority, "createAgentExposureGateway"));
  return Object.freeze({
    expose(tools: unknown[], options: ExposeOptions = {}): ExposedTools {
      if (!Array.isArray(tools)) throw new TypeError("gateway.expose: pass an array of bound external tools");
      const handlers = new Map<string, Record<string, unknown>>();
      const wire = tools.map((t, i) => {
        const b = asBinding(t);
        if (!b) {
          const name = t !== null && typeof t === "object" && typeof (t as { name?: unknown }).name === "string" ? (t as { name: string }).name : `tools[${i}]`;
          return { id: name, raw: true, name };
        }
        if (b.contract.kind !== "external-tool") {
          throw new AgentSurfaceDefinitionError(`gateway.expose: "${b.contract.id}" is not an external tool contract`, { contract: b.contract.id, code: "wrong-kind" });
        }
        handlers.set(b.contract.id, b.handlers);
        return { id: b.contract.id, provenance: provenanceOf(b.contract) ?? null, authored: authoredOperation(b.contract.definition) };
      });
      const development = options.environment === "development";
      const context = () => Object.freeze({ ...(options.context ? options.context() : {}) });
      const host = handlerHost((target, name) => (target === "external" ? handlers.get(name) : undefined), context, development);
      let exposed: EngineExposed;
      try {
        exposed = engine.expose(jsonText(wire), host as never);
      } catch (thrown) {
        const e = engineError(thrown);
        const err = new AgentSurfaceDefinitionError(`gateway.expose: ${e.message}`, { contract: (e.contract as string | undefined) || null });
        (err as unknown as { code: string }).code = (e.code as string | undefined) ?? e.kind;
        throw err;
      }
      const confirm = options.confirm;
      const confirmHost = confirm
        ? (id: string, inputText: string) =>
            Promise.resolve()
              .then(() => confirm(id, JSON.parse(inputText) as JsonValue))
              .then(
                (ok) => String(ok === true),
                () => "false",
              )
        : undefined;
      const consumer = options.consumer;
      const list = (JSON.parse(exposed.tools()) as Array<Omit<AgentTool, "execute">>).map((t) =>
        Object.freeze({
          ...deepFreeze(t),
          execute: toolExecute(
            t.name,
            () => "0",
            (input, callText) =>
              exposed.execute(t.name, input, JSON.stringify({ ...JSON.parse(callText), consumer }), confirmHost as never) as Promise<string>,
          ),
        }),
      ) as AgentTool[];
      return Object.freeze({
        tools: () => [...list],
        toolBlock(provider: "openai" | "anthropic" | "gemini" | "mcp") {
          try {
            return deepFreeze(JSON.parse(exposed.toolBlock(provider)) as unknown[]);
          } catch (thrown) {
            throw new TypeError(`toolBlock: ${engineError(thrown).message}`);
          }
        },
      });
    },
  });
}
