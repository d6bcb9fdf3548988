// Step 9, execute (crates/engine/src/invoke/pipeline.rs `execute`): the handler is called
// directly and raced against the timeout, the caller's signal and forced settlement (unmount,
// dispose). Its signal is a real AbortSignal, created only when the handler reads it. A handler
// that lost the race is watched: its late settlement is ignored, and logged.

import type { JsonValue } from "../../types.js";
import type { Evidence } from "../confirm/index.js";
import { isThenable, jsonCopy } from "../json.js";
import type { Parts } from "../parts.js";
import { NO_EXECUTOR } from "../surface.js";
import { label, preconditionFailed, readContext, type Asking } from "./checks.js";
import { fail, type Fail } from "./request.js";
import { later } from "./timer.js";

/** How long a handler that lost the race is still watched for a late settlement (then logged). */
export const LATE_SETTLEMENT_WINDOW_MS = 60_000;

type Reason = "timeout" | "cancelled" | "unmounted" | "disposed";
type Forced = "COMPONENT_UNMOUNTED" | "CANCELLED";

/** The abort reason a handler's signal carries: a TimeoutError, else an AbortError. */
function abortReason(r: Reason): DOMException {
  return new DOMException(`agent-surface: the invocation was ${r === "timeout" ? "timed out" : r}`, r === "timeout" ? "TimeoutError" : "AbortError");
}

/** A running execution: what an unmount or `dispose` settles from outside. */
export interface Execution {
  readonly registrationId: string | undefined;
  readonly navigation: boolean;
  /** Aborts the handler's signal (the first reason stays) and settles the invocation from outside (the first code wins). */
  stop(reason: Reason, code: Forced): void;
}

/** The handler's output as JSON (undefined → null); a value that is not JSON fails the run. */
function output(parts: Parts, v: unknown, what: string, capabilityId: string): JsonValue {
  if (v === undefined) return null;
  try {
    return jsonCopy<JsonValue>(v);
  } catch (e) {
    if (parts.surface.development) console.error(`agent-surface: ${what} returned a value that is not JSON: ${(e as Error).message}`);
    parts.surface.log("error", `${capabilityId} failed: ${what} returned a value that is not JSON`);
    throw fail("EXECUTION_FAILED", "the capability failed");
  }
}

/**
 * How a handler failed: a thrown `PreconditionFailure` (a plain object with a string message,
 * not an Error) is PRECONDITION_FAILED; anything else EXECUTION_FAILED, its message logged and
 * never shown.
 */
function failure(parts: Parts, thrown: unknown, what: string, capabilityId: string): Fail {
  if (typeof thrown === "object" && thrown !== null && !(thrown instanceof Error) && typeof (thrown as { message?: unknown }).message === "string") {
    return preconditionFailed(parts, thrown as { message: string; details?: unknown }, what);
  }
  const m = thrown instanceof Error ? thrown.message : typeof thrown === "string" ? thrown : "the handler threw";
  parts.surface.log("error", `${capabilityId} failed: ${m}`);
  return fail("EXECUTION_FAILED", "the capability failed");
}

const copy = (v: JsonValue | undefined): JsonValue => (typeof v === "object" && v !== null ? jsonCopy<JsonValue>(v) : (v ?? null));

/** Step 9: calls the handler; its output (JSON), or a Fail thrown (or rejected). */
export function execute(
  parts: Parts,
  a: Asking,
  input: JsonValue | undefined,
  evidence: Evidence | undefined,
  signal: AbortSignal | undefined,
  timeoutMs: number,
): JsonValue | Promise<JsonValue> {
  const { surface, inflight } = parts;
  const { plan, req } = a;
  const cap = req.capabilityId;
  // A procedure referenced without a local `execute` goes to the registry's executor (its
  // absence was checked at step 3; one uninstalled since is the same answer).
  const executor = plan.binding?.forwarded ? surface.procedureExecutor : undefined;
  if (plan.binding?.forwarded && !executor) throw fail("CAPABILITY_NOT_AVAILABLE", "the capability is not available now", { reason: NO_EXECUTOR });
  const st = surface.state;
  if (st.disposed) throw fail("CANCELLED", "the surface was disposed");
  if (plan.reg && !st.regs.has(plan.reg.id)) throw fail("COMPONENT_UNMOUNTED", "the component was unmounted");
  // Cancelled while waiting for admission: never dispatch.
  if (signal?.aborted) throw fail("CANCELLED", "the invocation was cancelled");

  let controller: AbortController | undefined;
  let reason: DOMException | undefined;
  let forced: Forced | undefined;
  let onForce: (() => void) | undefined;
  const abort = (r: Reason) => {
    if (reason) return;
    reason = abortReason(r);
    controller?.abort(reason);
  };
  const run: Execution = {
    registrationId: plan.reg?.id,
    navigation: plan.effect === "navigation",
    stop(r, code) {
      abort(r);
      if (forced) return;
      forced = code;
      onForce?.();
    },
  };
  /** A handler's context (frozen) whose `signal` is created when first read (most handlers never read it). */
  const context = (fields: object) =>
    Object.freeze(
      Object.defineProperty(fields, "signal", {
        get() {
          if (!controller) {
            controller = new AbortController();
            if (reason) controller.abort(reason);
          }
          return controller.signal;
        },
      }),
    );
  const what = executor ? `the procedure executor for "${cap}"` : `the ${plan.observation ? "read" : "execute"} of ${label(plan)}`;
  inflight.executions.add(run);
  let value: unknown;
  try {
    if (plan.observation) value = plan.observation.read(readContext(a));
    else if (executor) value = executor.execute(context({ procedureId: cap, input: copy(input), invocationId: req.invocationId }) as never);
    else {
      const fields: Record<string, unknown> = { capabilityId: cap, registrationId: a.registrationId, consumer: a.consumer, host: a.host, invocationId: req.invocationId };
      if (evidence) fields.confirmation = Object.freeze({ id: evidence.id, approvedAt: evidence.approvedAt });
      value = plan.binding!.execute(copy(input), context(fields) as never);
    }
  } catch (e) {
    inflight.executions.delete(run);
    throw failure(parts, e, what, cap);
  }
  if (!isThenable(value)) {
    inflight.executions.delete(run);
    return output(parts, value, what, cap);
  }
  return new Promise<JsonValue>((resolve, reject) => {
    let lost: { code: string; at: number } | undefined;
    let over = false;
    const end = () => {
      over = true;
      stop();
      signal?.removeEventListener("abort", onAbort);
      onForce = undefined;
      inflight.executions.delete(run);
    };
    // The race is lost: the invocation settles now; the handler is watched for a late settlement.
    const lose = (f: Fail) => {
      if (over) return;
      end();
      lost = { code: f.error.code, at: surface.now() };
      reject(f);
    };
    const stop = later(timeoutMs, () => {
      abort("timeout");
      surface.log("warn", `${cap} timed out after ${timeoutMs} ms; a late settlement is ignored`);
      lose(fail("TIMEOUT", `the capability did not finish within ${timeoutMs} ms`));
    });
    const onAbort = () => {
      abort("cancelled");
      lose(fail("CANCELLED", "the invocation was cancelled"));
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    onForce = () => {
      // dispose() unregisters everything first: its unmount is a cancellation.
      const code = surface.state.disposed ? "CANCELLED" : forced!;
      lose(fail(code, code === "COMPONENT_UNMOUNTED" ? "the component was unmounted" : "the invocation was cancelled"));
    };
    if (forced) onForce();
    const late = (how: string) => {
      if (!lost || surface.now() - lost.at > LATE_SETTLEMENT_WINDOW_MS) return;
      surface.logRecord({
        level: "warn",
        message: `${cap} (${req.invocationId}) ${how} after its invocation had settled ${lost.code}; the late settlement is ignored`,
        kind: "late-settlement",
        invocationId: req.invocationId,
        capabilityId: cap,
      });
    };
    Promise.resolve(value).then(
      (v) => {
        if (over) return late("succeeded");
        end();
        try {
          resolve(output(parts, v, what, cap));
        } catch (f) {
          reject(f);
        }
      },
      (e) => {
        if (over) return late("failed");
        end();
        reject(failure(parts, e, what, cap));
      },
    );
  });
}
