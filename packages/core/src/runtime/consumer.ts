// Who is asking (crates/engine/src/consumer.rs): the consumer of a surface. Its key,
// `kind:id`, scopes dedupe, admission queues and confirmations.

import type { AgentConsumer } from "../types.js";
import { isPlainObject } from "./json.js";

export const KINDS = ["embedded", "webmcp", "mcp-bridge", "test", "other"];

/** The default consumer: `embedded:anonymous`. */
export const ANONYMOUS: AgentConsumer = Object.freeze({ id: "anonymous", kind: "embedded" });

/** `kind + ":" + id`. */
export function consumerKey(c: AgentConsumer): string {
  return `${c.kind}:${c.id}`;
}

/**
 * A caller's consumer, checked and copied (frozen; `grants` only when non-empty, as the engine
 * writes it); undefined or null is the anonymous consumer. TypeError naming `who` otherwise.
 */
export function readConsumer(v: unknown, who: string): AgentConsumer {
  if (v === undefined || v === null) return ANONYMOUS;
  const fail = (): never => {
    throw new TypeError(`${who}: consumer must be an object { id: string, kind: ${KINDS.map((k) => `"${k}"`).join(" | ")}, grants?: string[] }`);
  };
  if (!isPlainObject(v)) fail();
  const { id, kind, grants } = v as Record<string, unknown>;
  if (typeof id !== "string" || typeof kind !== "string" || !KINDS.includes(kind)) fail();
  if (grants !== undefined && grants !== null && !(Array.isArray(grants) && grants.every((g) => typeof g === "string"))) fail();
  const c: { id: string; kind: AgentConsumer["kind"]; grants?: string[] } = { id: id as string, kind: kind as AgentConsumer["kind"] };
  if (Array.isArray(grants) && grants.length > 0) c.grants = Object.freeze([...grants]) as string[];
  return Object.freeze(c);
}
