// A registry that implements only the public AgentSurfaceRegistry interface (snapshot, invoke,
// subscribe, confirmations, getVersion), scripted by the test: the toolset must work on any
// registry of this package through that interface alone.

const freeze = (v) => {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const k of Object.keys(v)) freeze(v[k]);
  }
  return v;
};

const inScope = (type, prefix) => type === prefix || (type.startsWith(prefix) && type[prefix.length] === ".");

export const emptyInput = { type: "object", properties: {}, additionalProperties: false };

/** A component descriptor: `observations` and `actions` by name (each a partial descriptor). */
export function component(type, { instanceId = "main", registrationId = `reg_${type}_${instanceId}`, observations = {}, actions = {} } = {}) {
  return {
    type,
    instanceId,
    registrationId,
    description: `The ${type}`,
    observations: Object.entries(observations).map(([name, o]) => ({
      capabilityId: `view:${type}.${name}`,
      name,
      description: `Reads ${name}`,
      outputSchema: { type: "object" },
      available: true,
      ...o,
    })),
    actions: Object.entries(actions).map(([name, a]) => ({
      capabilityId: `view:${type}.${name}`,
      name,
      description: `Does ${name}`,
      inputSchema: emptyInput,
      effect: "local-state",
      idempotent: false,
      reversible: true,
      confirmation: "never",
      available: true,
      ...a,
    })),
  };
}

export function procedure(capabilityId, registrationId, extra = {}) {
  return {
    capabilityId,
    description: `Runs ${capabilityId}`,
    inputSchema: emptyInput,
    effect: "mutation",
    idempotent: false,
    reversible: false,
    confirmation: "never",
    available: true,
    registrationId,
    component: { type: "x", instanceId: "main" },
    ...extra,
  };
}

/**
 * `fakeRegistry({ components, procedures, answer })`: `answer(invocation, options)` gives each
 * invoke's result (default: ok with the input as output). `set(...)` changes the surface (a new
 * version and a surface-changed event unless `{ event: false }`), `emit(event)` sends one, `settle(cid, outcome)`
 * settles a confirmation's `waitFor`.
 */
export function fakeRegistry({ components = [], procedures = [], answer } = {}) {
  let version = 1;
  let state = { components, procedures };
  let disposed = false;
  const listeners = new Set();
  const waiting = new Map();
  const log = { snapshots: [], invocations: [], waits: [], resolved: [] };
  const ok = (inv) => ({ status: "ok", invocationId: inv.invocationId ?? "inv_generated", capabilityId: inv.capabilityId, output: inv.input ?? null, surfaceVersion: String(version) });

  const registry = Object.freeze({
    surfaceId: "srf_fake",
    register() {
      throw new Error("not in the fake");
    },
    snapshot(ctx = {}) {
      log.snapshots.push(ctx);
      let comps = state.components.filter((c) => !ctx.scope || ctx.scope.some((p) => inScope(c.type, p)));
      let dropped = 0;
      if (ctx.budget?.maxComponents !== undefined && comps.length > ctx.budget.maxComponents) {
        dropped = comps.length - ctx.budget.maxComponents;
        comps = comps.slice(0, ctx.budget.maxComponents);
      }
      const live = new Set(comps.map((c) => c.registrationId));
      return freeze(
        structuredClone({
          surfaceId: "srf_fake",
          surfaceVersion: String(version),
          capturedAt: "2025-01-01T00:00:00.000Z",
          components: comps,
          procedures: state.procedures.filter((p) => live.has(p.registrationId) || !ctx.scope),
          ...(dropped > 0 && { truncated: { droppedComponents: dropped } }),
        }),
      );
    },
    async invoke(inv, options) {
      if (disposed) throw new TypeError("invoke: the registry was disposed");
      log.invocations.push({ inv: structuredClone(inv), options });
      const given = await answer?.(inv, options, log);
      // A frozen answer is returned as it is (a test's deliberately odd result).
      return given !== undefined && Object.isFrozen(given) ? given : freeze(structuredClone(given ?? ok(inv)));
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    confirmations: Object.freeze({
      pending: () => [],
      resolve(confirmationId, resolution) {
        log.resolved.push({ confirmationId, resolution });
        waiting.get(confirmationId)?.("denied");
      },
      waitFor(confirmationId, opts) {
        log.waits.push({ confirmationId, signal: opts?.signal });
        return new Promise((resolve) => {
          waiting.set(confirmationId, resolve);
          opts?.signal?.addEventListener("abort", () => resolve("denied"));
        });
      },
      subscribe: () => () => {},
    }),
    setProcedureExecutor() {},
    getVersion: () => String(version),
    dispose() {
      disposed = true;
      listeners.clear();
    },
  });
  const emit = (event) => {
    for (const l of [...listeners]) l(event);
  };
  return {
    registry,
    log,
    emit,
    listeners,
    version: () => String(version),
    set(next, { event = true } = {}) {
      state = { ...state, ...next };
      version += 1;
      if (event) emit({ type: "surface-changed", surfaceVersion: String(version) });
    },
    settle(confirmationId, outcome = "approved") {
      waiting.get(confirmationId)?.(outcome);
    },
  };
}

/** Lets queued promise callbacks run. */
export const tick = () => new Promise((r) => setTimeout(r, 0));
