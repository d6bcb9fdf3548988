// @agent-surface/ai-sdk: an agent-surface toolset as the Vercel AI SDK's `tools` (ai ^7).
//
// Each tool of `toolset.tools()` becomes an SDK tool: its description, its JSON Schema through
// the SDK's `jsonSchema()` (no SDK-side validation: the registry validates, and answers an
// invalid input with an INVALID_INPUT envelope the model can act on), and an `execute` that is
// the toolset tool's own `execute` with the SDK's `toolCallId` (the registry's idempotency key)
// and `abortSignal`. The result is the invocation envelope, errors included; nothing is thrown
// into the SDK.

import { jsonSchema, tool } from "ai";
import type { JSONSchema7, JSONValue, Tool, ToolExecutionOptions } from "ai";
import type { AgentInvocationResult, AgentTool, AgentToolset, JsonValue } from "@agent-surface/core";

/** One SDK tool: JSON input, the invocation envelope as output. */
export type AgentSurfaceAiTool = Tool<JsonValue, AgentInvocationResult>;

/** The record `generateText({ tools })` / `streamText({ tools })` take, keyed by wire name. */
export type AgentSurfaceAiTools = Record<string, AgentSurfaceAiTool>;

/** The schema as the SDK passes it to providers: the toolset's, without its `$schema` marker. */
function inputSchemaOf(t: AgentTool): JSONSchema7 {
  const { $schema: _dialect, ...rest } = t.inputSchema as Record<string, unknown>;
  return rest as JSONSchema7;
}

/** The envelope for a call that did not even reach the toolset (`execute` threw, which it must not). */
function failed(t: AgentTool, toolCallId: string, e: unknown): AgentInvocationResult {
  return {
    status: "error",
    invocationId: toolCallId,
    capabilityId: t.name,
    error: {
      code: "EXECUTION_FAILED",
      message: `the tool could not run: ${(e as Error)?.message ?? String(e)}`,
      retry: "never",
    },
    surfaceVersion: "",
  };
}

function sdkTool(t: AgentTool): AgentSurfaceAiTool {
  return tool<JsonValue, AgentInvocationResult, never>({
    description: t.description,
    inputSchema: jsonSchema<JsonValue>(inputSchemaOf(t)),
    execute: async (input: JsonValue, options: ToolExecutionOptions<never>): Promise<AgentInvocationResult> => {
      try {
        return await t.execute(input ?? {}, { toolCallId: options.toolCallId, ...(options.abortSignal ? { signal: options.abortSignal } : {}) });
      } catch (e) {
        return failed(t, options.toolCallId, e);
      }
    },
    // The model reads the whole envelope; an error envelope goes as the SDK's error output
    // ("error-json"), for providers that tell error results apart.
    toModelOutput: ({ output }) =>
      output.status === "ok" ? { type: "json", value: output as unknown as JSONValue } : { type: "error-json", value: output as unknown as JSONValue },
  }) as AgentSurfaceAiTool;
}

/**
 * The toolset's current catalog as the AI SDK's `tools`. Build it for each `generateText` /
 * `streamText` call: every tool executes as it was in this catalog (its registrationId and
 * surfaceVersion go with the call), so a change of the surface during a multi-step loop reaches
 * the model as an envelope (STALE_CAPABILITY, COMPONENT_UNMOUNTED, …, with `surfaceChanged`)
 * and the next call's record is current.
 *
 * Confirmations follow the toolset: with `confirmations: "wait"` (the embedded topology's
 * default) a tool whose contract asks for confirmation does not return until the app's own
 * dialog resolves it through `registry.confirmations` — the SDK's `execute` simply awaits, and
 * the model sees one call and its final result (ok, CONFIRMATION_DENIED or _EXPIRED). Do not
 * add the SDK's own tool approval on top: it gates nothing the pipeline does not already gate,
 * and its approval is not the pipeline's evidence.
 */
export function aiSdkTools(toolset: AgentToolset): AgentSurfaceAiTools {
  if (toolset === null || typeof toolset !== "object" || typeof toolset.tools !== "function") {
    throw new TypeError("aiSdkTools: pass an AgentToolset (createAgentToolset(registry, options))");
  }
  const out: AgentSurfaceAiTools = {};
  for (const t of toolset.tools()) out[t.name] = sdkTool(t);
  return out;
}

/**
 * The catalog's live state as text for a message outside the tool block (the toolset keeps it
 * out of descriptions so they stay cacheable): one line per unavailable tool, with its reason,
 * and per contextual note. Undefined when there is nothing to say.
 */
export function toolStateText(toolset: AgentToolset): string | undefined {
  const lines: string[] = [];
  for (const t of toolset.tools()) {
    if (!t.state.available) lines.push(`- ${t.name} is unavailable${t.state.unavailableReason ? `: ${t.state.unavailableReason}` : "."}`);
    if (t.state.note) lines.push(`- ${t.name}: ${t.state.note}`);
  }
  return lines.length === 0 ? undefined : `Tool state now:\n${lines.join("\n")}`;
}
