// What an invocation is and what it answers (crates/engine/src/invoke/request.rs): the request
// and its options as the pipeline reads them (checked: anything that is not of their shape is
// programmer misuse, a TypeError naming the field), the error payload with its fixed retry
// semantics (DECISIONS §6), the result envelope, ids.

import type {
  AgentCapabilityErrorCode,
  AgentCapabilityErrorPayload,
  AgentConsumer,
  AgentInvocationResult,
  AgentRetry,
  JsonValue,
} from "../../types.js";
import { ANONYMOUS, consumerKey, readConsumer } from "../consumer.js";
import { randomId } from "../entropy.js";
import { isObject, jsonCopy } from "../json.js";

/** The request as the pipeline reads it: checked, its input a private JSON copy. */
export interface Req {
  invocationId: string;
  capabilityId: string;
  instanceId?: string;
  registrationId?: string;
  surfaceId?: string;
  surfaceVersion?: string;
  input?: JsonValue;
  confirmationId?: string;
}

/** InvokeOptions, checked. */
export interface Opts {
  consumer: AgentConsumer;
  /** `kind:id`. */
  key: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type CapabilityError = AgentCapabilityErrorPayload;

const RETRY: Record<string, AgentRetry> = {
  CAPABILITY_NOT_AVAILABLE: "after-delay",
  RATE_LIMITED: "after-delay",
  TIMEOUT: "after-delay",
  POLICY_DENIED: "never",
  CONFIRMATION_DENIED: "never",
  CANCELLED: "never",
  EXECUTION_FAILED: "never",
  CONFIRMATION_REQUIRED: "after-confirmation",
};

/** An agent-facing error: `{ code, message, retry, details? }` (retry fixed by the code). */
export function capabilityError(code: AgentCapabilityErrorCode, message: string, details?: Record<string, JsonValue>): CapabilityError {
  const e: CapabilityError = { code, message, retry: RETRY[code] ?? "with-changes" };
  if (details) e.details = details;
  return e;
}

/** Raised inside the pipeline to settle with an error (a value, never seen by callers). */
export class Fail {
  constructor(readonly error: CapabilityError) {}
}

export const fail = (code: AgentCapabilityErrorCode, message: string, details?: Record<string, JsonValue>): Fail =>
  new Fail(capabilityError(code, message, details));

/** The error envelope (not frozen: the caller freezes what it returns). */
export function errorResult(invocationId: string, capabilityId: string, error: CapabilityError, version: string | number, changed: boolean): AgentInvocationResult {
  const r: AgentInvocationResult = { status: "error", invocationId, capabilityId, error, surfaceVersion: String(version) };
  if (changed) r.surfaceChanged = true;
  return r;
}

let lastMs = NaN;
let lastIso = "";

/** ISO-8601 of epoch milliseconds (the last one kept: a burst of settlements shares its millisecond). */
export const iso = (ms: number): string => (ms === lastMs ? lastIso : (lastIso = new Date((lastMs = ms)).toISOString()));

const OPTIONAL = ["invocationId", "instanceId", "registrationId", "surfaceId", "surfaceVersion", "confirmationId"] as const;

/** The request, checked (TypeError `invoke: ...` for misuse); a generated `inv_` id if it has none. */
export function checkRequest(request: unknown): Req {
  if (!isObject(request) || typeof request.capabilityId !== "string") throw new TypeError("invoke: the request needs a capabilityId");
  const r = { capabilityId: request.capabilityId } as Req;
  for (const k of OPTIONAL) {
    const v = request[k];
    if (v === undefined || v === null) continue;
    if (typeof v !== "string") throw new TypeError(`invoke: request.${k} must be a string`);
    r[k] = v;
  }
  // `input: null` is no input, as for the Rust engine (an Option).
  if (request.input !== undefined && request.input !== null) {
    try {
      r.input = jsonCopy<{ input: JsonValue }>({ input: request.input }).input;
    } catch (e) {
      throw new TypeError(`invoke: ${(e as Error).message}`);
    }
  }
  r.invocationId ??= randomId("inv_", 16);
  return r;
}

/** InvokeOptions, checked (TypeError `invoke: options...` for misuse). */
export function checkOptions(options: unknown): Opts {
  if (options === undefined || options === null) return { consumer: ANONYMOUS, key: "embedded:anonymous" };
  if (!isObject(options)) throw new TypeError("invoke: the options must be an object { consumer?, signal?, timeoutMs? }");
  const consumer = readConsumer(options.consumer, "invoke");
  const o: Opts = { consumer, key: consumerKey(consumer) };
  const { signal, timeoutMs } = options;
  if (signal !== undefined) {
    if (!isObject(signal) || typeof (signal as { aborted?: unknown }).aborted !== "boolean" || typeof signal.addEventListener !== "function") {
      throw new TypeError("invoke: options.signal must be an AbortSignal");
    }
    o.signal = signal as unknown as AbortSignal;
  }
  if (timeoutMs !== undefined) {
    if (typeof timeoutMs !== "number" || !Number.isInteger(timeoutMs) || timeoutMs < 0) throw new TypeError("invoke: options.timeoutMs must be a non-negative integer (milliseconds)");
    o.timeoutMs = timeoutMs;
  }
  return o;
}
