// The pipeline in its fixed order (DECISIONS §7; crates/engine/src/invoke/pipeline.rs):
// 2 resolve → 3 availability → 4 authorize → 5 effective input → 6 precondition and invoke
// policies → 7 confirmation → 8 admission → 9 execute → 10 output checks; step 1 (dedupe) ran
// before, step 11 (settle) runs after, exactly once per run. Each step throws a Fail to settle.

import type { AgentInvocationResult, JsonValue } from "../../types.js";
import { deepFreeze } from "../json.js";
import type { Parts } from "../parts.js";
import type { Surface } from "../surface.js";
import { authorize, checkAvailable, checkInput, confirmStep, effectiveInput, type Asking, type Confirmer } from "./checks.js";
import { execute } from "./execute.js";
import { admit, release, slotFor } from "./queues.js";
import { checkVersion, type Plan } from "./resolve.js";
import { Fail, errorResult, fail, iso, type Opts, type Req } from "./request.js";

/** Step 2 for a registry: the live surface's target of a request. The gateway passes its own. */
export type Resolver = (surface: Surface, req: Req) => Plan;

/** How a run resolves its target (step 2) and answers a needed confirmation (step 7). */
export interface Route {
  readonly resolve: Resolver;
  readonly confirmer: Confirmer;
}

/** What a run records as it goes, for its settlement. */
interface Ctx {
  readonly startedMs: number;
  readonly startVersion: number;
  registrationId: string | null;
  audit: "none" | "metadata" | "full";
  input?: JsonValue;
}

/**
 * One run of the pipeline for a fresh (not deduplicated) request; resolves exactly once, never
 * rejects. `settled` records the result (dedupe) in the same turn as the settlement.
 */
export async function run(parts: Parts, req: Req, opts: Opts, route: Route, settled: (r: AgentInvocationResult) => void): Promise<AgentInvocationResult> {
  // The run starts on the next microtask, as a spawned task does: a `surface-changed` coalesced
  // for the mutations made before this call goes out before `invocation-started`.
  await undefined;
  const { surface } = parts;
  const ctx: Ctx = { startedMs: surface.now(), startVersion: surface.state.version, registrationId: null, audit: "metadata" };
  // Events are built only for listeners (most invocations have none).
  if (surface.events.listeners.length) surface.events.push({ type: "invocation-started", invocationId: req.invocationId, capabilityId: req.capabilityId, consumerId: opts.key });
  surface.flush();
  let outcome: JsonValue | undefined | Fail;
  try {
    outcome = await pipeline(parts, req, opts, ctx, route);
  } catch (e) {
    if (e instanceof Fail) outcome = e;
    else {
      // A defect of the runtime itself, never a crash of the caller.
      surface.log("error", `${req.capabilityId} (${req.invocationId}): ${(e as Error)?.message ?? e}`);
      outcome = fail("EXECUTION_FAILED", "the capability failed");
    }
  }
  const result = settle(surface, req, opts, ctx, outcome);
  settled(result);
  return result;
}

async function pipeline(parts: Parts, req: Req, opts: Opts, ctx: Ctx, route: Route): Promise<JsonValue | undefined> {
  const { surface } = parts;
  // 2. resolve
  const plan = route.resolve(surface, req);
  const reg = plan.reg;
  const owner = reg ? reg.id : plan.owner!;
  ctx.registrationId = owner;
  ctx.audit = plan.audit;
  checkVersion(surface, req, plan.effect);
  const policies = plan.chain;
  const a: Asking = { req, plan, registrationId: owner, consumer: opts.consumer, key: opts.key, host: surface.host() };

  // 3. availability, 4. pre-input authorization
  checkAvailable(parts, a, policies);
  const authorized = authorize(parts, a, policies);
  if (authorized) await authorized;

  // 5. effective input
  const input = effectiveInput(parts, req, plan);
  ctx.input = input;

  // 6. precondition and input-aware policies
  let asked = checkInput(parts, a, input, policies);
  if (typeof asked !== "boolean") asked = await asked;

  // 7. confirmation (observations skip it)
  let evidence = confirmStep(parts, a, input, plan.confirmation === "required" || asked, route.confirmer, opts.signal);
  if (evidence instanceof Promise) evidence = await evidence;

  // 8. admission
  const limits = surface.options.limits;
  const timeoutMs = opts.timeoutMs ?? plan.timeoutMs ?? (plan.kind === "observation" ? limits.observationTimeoutMs : plan.kind === "action" ? limits.actionTimeoutMs : limits.procedureTimeoutMs);
  const slot = slotFor(plan.kind, owner, plan.name, plan.binding?.concurrency, opts.key, limits);
  let refused = admit(parts.inflight.queues, slot, limits, opts.signal);
  if (refused && !(refused instanceof Fail)) refused = await refused;
  if (refused) {
    // Not admitted, not run, not cached: the retry presents the same evidence.
    if (evidence && refused.error.code === "RATE_LIMITED") parts.confirmations.restore(evidence.id);
    throw refused;
  }
  let output: JsonValue;
  try {
    // 9. execute
    const out = execute(parts, a, input, evidence, opts.signal, timeoutMs);
    output = typeof out === "object" && out !== null && out instanceof Promise ? await out : (out as JsonValue);
  } finally {
    release(parts.inflight.queues, slot, limits);
  }

  // 10. output checks: the output schema, the size limit
  const schema = plan.outputSchema;
  if (schema) {
    const v = parts.inflight.validator(surface, schema);
    if (!v) throw fail("EXECUTION_FAILED", "the capability's output schema cannot be used");
    if (!v.validate(output).ok) {
      surface.log("error", `${req.capabilityId} returned output that does not match its schema`);
      throw fail("EXECUTION_FAILED", "the capability returned invalid output", { reason: "invalid-output" });
    }
  }
  // The canonical JSON's length in UTF-8 bytes (JSON.stringify writes strings and numbers as
  // RFC 8785 does; only the key order differs).
  const max = limits.maxOutputBytes;
  const text = JSON.stringify(output);
  if (text.length * 3 > max) {
    const bytes = new TextEncoder().encode(text).length;
    if (bytes > max) throw fail("EXECUTION_FAILED", `the output is ${bytes} bytes; at most ${max} are allowed`, { reason: "output-too-large" });
  }
  // A capability without an output schema that returns null settles with no output.
  return output === null && !schema ? undefined : output;
}

/** Step 11: the result envelope (deep-frozen), the audit record, `invocation-settled`. */
function settle(surface: Surface, req: Req, opts: Opts, ctx: Ctx, outcome: JsonValue | undefined | Fail): AgentInvocationResult {
  const version = surface.state.version;
  const changed = version !== ctx.startVersion;
  let result: AgentInvocationResult;
  if (outcome instanceof Fail) {
    const e = outcome.error;
    if (e.details) deepFreeze(e.details);
    Object.freeze(e);
    result = errorResult(req.invocationId, req.capabilityId, e, version, changed);
  } else {
    result = { status: "ok", invocationId: req.invocationId, capabilityId: req.capabilityId, surfaceVersion: String(version) };
    if (outcome !== undefined) result.output = deepFreeze(outcome);
    if (changed) result.surfaceChanged = true;
  }
  Object.freeze(result);
  const code = result.status === "error" ? result.error.code : undefined;
  const durationMs = Math.max(0, surface.now() - ctx.startedMs);
  if (ctx.audit !== "none") {
    const full = ctx.audit === "full";
    surface.audit({
      invocationId: req.invocationId,
      capabilityId: req.capabilityId,
      registrationId: ctx.registrationId,
      consumerKey: opts.key,
      // The step that asks the user is not a failure: a call that waited and then ran has no error record.
      status: code === "CONFIRMATION_REQUIRED" ? "confirmation-required" : result.status,
      code: code ?? null,
      startedAt: iso(ctx.startedMs),
      durationMs,
      ...(full && ctx.input !== undefined ? { input: ctx.input } : {}),
      ...(full && result.status === "ok" && result.output !== undefined ? { output: result.output } : {}),
    });
  }
  if (surface.events.listeners.length) surface.events.push(
    code
      ? { type: "invocation-settled", invocationId: req.invocationId, capabilityId: req.capabilityId, status: "error", code, durationMs }
      : { type: "invocation-settled", invocationId: req.invocationId, capabilityId: req.capabilityId, status: "ok", durationMs },
  );
  surface.flush();
  return result;
}
