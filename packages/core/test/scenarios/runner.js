// The engine's behavioural scenarios (conformance/scenarios/*.json) through the JavaScript API:
// the same files crates/wasm/tests/scenarios.rs runs natively. Plain ES module with no Node or
// vitest dependency, so the same runner works in Node (test/scenarios.test.js) and in a page in
// headless Chromium (packages/vite/test/browser.test.js).
//
// Time: the registry reads it through `options.now`, and its timers through the global
// setTimeout/clearTimeout looked up when needed (docs/runtime-js.md) — so the runner installs a
// manual clock on globalThis for the scenario and restores the real functions afterwards.

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z, as natively

/** The first mismatch of a partial expectation (`"$any"`, `"$absent"`), or undefined. */
export function mismatch(expected, actual, path = "") {
  if (expected === "$absent") return actual === undefined ? undefined : `${path}: expected absent, got ${JSON.stringify(actual)}`;
  if (actual === undefined) return `${path}: missing, expected ${JSON.stringify(expected)}`;
  if (expected === "$any") return undefined;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      return `${path}: expected ${expected.length} items, got ${JSON.stringify(actual)}`;
    }
    for (let i = 0; i < expected.length; i++) {
      const m = mismatch(expected[i], actual[i], `${path}[${i}]`);
      if (m) return m;
    }
    return undefined;
  }
  if (expected !== null && typeof expected === "object") {
    if (actual === null || typeof actual !== "object" || Array.isArray(actual)) return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [k, v] of Object.entries(expected)) {
      const m = mismatch(v, actual[k], `${path}.${k}`);
      if (m) return m;
    }
    return undefined;
  }
  return expected === actual ? undefined : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

/** A manual clock installed as the global setTimeout/clearTimeout while a scenario runs. */
class ManualTime {
  constructor(start) {
    this.now = start;
    this.timers = new Map();
    this.next = 0;
    this.real = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  }
  install() {
    globalThis.setTimeout = (fn, ms = 0) => {
      const id = ++this.next;
      this.timers.set(id, { at: this.now + Math.max(0, Number(ms) || 0), fn, id });
      return id;
    };
    globalThis.clearTimeout = (id) => {
      this.timers.delete(id);
    };
  }
  restore() {
    globalThis.setTimeout = this.real.setTimeout;
    globalThis.clearTimeout = this.real.clearTimeout;
  }
  /** Lets every microtask and promise chain run (a few real macrotask turns). */
  async settle() {
    for (let i = 0; i < 3; i++) await new Promise((resolve) => this.real.setTimeout.call(globalThis, resolve, 0));
  }
  /** Moves time forward, firing due timers in deadline order, settling after each. */
  async advance(ms) {
    const end = this.now + ms;
    for (;;) {
      const due = [...this.timers.values()].filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers.delete(due.id);
      this.now = Math.max(this.now, due.at);
      due.fn();
      await this.settle();
    }
    this.now = end;
    await this.settle();
  }
}

function policy(spec) {
  const applies = (ctx) => spec.capabilityPrefix === undefined || ctx.capabilityId.startsWith(spec.capabilityPrefix);
  const p = { name: spec.name };
  if (spec.discovery !== undefined) p.onDiscovery = (ctx) => (applies(ctx) ? spec.discovery : "expose");
  if (spec.authorize !== undefined) p.authorize = async (ctx) => (applies(ctx) ? spec.authorize : "allow");
  if (spec.invoke !== undefined) p.invoke = async (ctx) => (applies(ctx) ? spec.invoke : "allow");
  return p;
}

const policies = (list) => (list ?? []).map(policy);

/** The manifest's contracts as compiled code would define them (the compiler's provenance included). */
export function contractsOf(core, manifest) {
  const s = (schema) => core.fromJsonSchema(schema);
  const out = new Map();
  for (const c of manifest.contracts) {
    const provenance = { id: c.id, contractHash: c.contractHash };
    if (c.kind === "component") {
      const observations = Object.fromEntries(
        Object.entries(c.observations).map(([n, o]) => [n, core.observationContract({ description: o.description, output: s(o.outputSchema), meta: o.meta })]),
      );
      const actions = Object.fromEntries(
        Object.entries(c.actions).map(([n, a]) => [
          n,
          core.actionContract({
            description: a.description,
            input: s(a.inputSchema),
            ...(a.outputSchema === null ? {} : { output: s(a.outputSchema) }),
            effect: a.effect,
            idempotent: a.idempotent,
            reversible: a.reversible,
            confirmation: a.confirmation,
            audit: a.audit,
            meta: a.meta,
          }),
        ]),
      );
      const { type, description, meta, origin, priority, tags } = c;
      out.set(c.id, core.defineAgentComponentContract({ type, description, meta, origin, priority, tags, policies: c.policies, observations, actions }, provenance));
    } else {
      const def = {
        id: c.id,
        description: c.description,
        input: s(c.inputSchema),
        ...(c.outputSchema === null ? {} : { output: s(c.outputSchema) }),
        effect: c.effect,
        idempotent: c.idempotent,
        reversible: c.reversible,
        confirmation: c.confirmation,
        audit: c.audit,
        meta: c.meta,
        policies: c.policies,
        tags: c.tags,
      };
      out.set(c.id, c.kind === "procedure" ? core.defineAgentProcedureContract(def, provenance) : core.defineExternalAgentToolContract(def, provenance));
    }
  }
  return out;
}

class Env {
  constructor(core, explainSurface, manifest, options) {
    this.core = core;
    this.explainSurface = explainSurface;
    this.time = new ManualTime(T0);
    this.time.install();
    this.contracts = contractsOf(core, manifest);
    this.calls = {};
    this.aborted = {};
    this.executorCalls = [];
    this.events = [];
    this.heard = [];
    this.handles = new Map();
    this.results = new Map();
    this.cancels = new Map();
    this.toolsets = new Map();
    this.catalogs = new Map();
    this.registry = core.createAgentSurfaceRegistry({
      authority: core.createCapabilityAuthority(manifest),
      now: () => this.time.now,
      environment: options.environment,
      onDuplicateInstance: options.onDuplicateInstance,
      limits: options.limits,
      policies: policies(options.policies),
    });
    this.registry.subscribe((e) => this.events.push(e.type));
    this.registry.confirmations.subscribe((p) => this.heard.push(p.length));
  }

  count(map, id) {
    map[id] = (map[id] ?? 0) + 1;
  }

  behaviour(b, id) {
    return (input, ctx) => {
      this.count(this.calls, id);
      const finish = () => {
        if (b.throws !== undefined) throw new Error(b.throws);
        if (b.echo) return input;
        return b.returns ?? null;
      };
      if (b.waitsForAbort) {
        // Settles late (a second after the abort), as natively.
        return new Promise((resolve) => {
          ctx.signal.addEventListener("abort", () => {
            this.count(this.aborted, id);
            setTimeout(() => resolve(null), 1000);
          });
        });
      }
      if (b.delayMs !== undefined) return new Promise((resolve) => setTimeout(resolve, b.delayMs)).then(finish);
      return finish();
    };
  }

  settings(b) {
    const out = {};
    if (b.when !== undefined) {
      out.when =
        b.when === "throws"
          ? () => {
              throw new Error("when failed");
            }
          : () => b.when;
    }
    if (b.unavailableReason !== undefined) out.unavailableReason = b.unavailableReason;
    if (b.precondition !== undefined) out.precondition = () => b.precondition;
    if (b.policies !== undefined) out.policies = policies(b.policies);
    if (b.timeoutMs !== undefined) out.timeoutMs = b.timeoutMs;
    return out;
  }

  register(spec) {
    const contract = this.contracts.get(`view:${spec.type}`);
    const def = contract.definition;
    const observations = Object.fromEntries(
      Object.keys(def.observations).map((n) => {
        const b = spec.observations?.[n] ?? {};
        const read = this.behaviour(b, `view:${spec.type}.${n}`);
        return [n, { read: () => read(null, undefined), ...this.settings(b) }];
      }),
    );
    const actions = Object.fromEntries(
      Object.keys(def.actions).map((n) => {
        const b = spec.actions?.[n] ?? {};
        return [n, { execute: this.behaviour(b, `view:${spec.type}.${n}`), ...this.settings(b) }];
      }),
    );
    const procedures = (spec.procedures ?? []).map((p) => {
      const c = this.contracts.get(p.id);
      return c.bind(p.forward ? {} : { execute: this.behaviour(p, p.id), ...this.settings(p) });
    });
    const binding = { observations, actions, procedures };
    if (spec.instanceId !== undefined) binding.instanceId = spec.instanceId;
    if (spec.enabled !== undefined) binding.enabled = spec.enabled;
    if (spec.policies !== undefined) binding.policies = policies(spec.policies);
    return this.registry.register(contract.bind(binding));
  }

  refs(v) {
    if (typeof v === "string" && v.startsWith("$") && v !== "$any" && v !== "$absent") {
      const [name, ...path] = v.slice(1).split(".");
      let cur = this.handles.has(name) ? { registrationId: this.handles.get(name).registrationId } : this.results.get(name)?.value;
      if (cur === undefined) throw new Error(`${v}: no result ${name}`);
      for (const p of path) {
        cur = cur?.[p];
        if (cur === undefined) throw new Error(`${v}: no ${p}`);
      }
      return cur;
    }
    if (Array.isArray(v)) return v.map((x) => this.refs(x));
    if (v !== null && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, this.refs(x)]));
    return v;
  }

  start(name, promise) {
    const slot = { value: undefined, done: false };
    this.results.set(name, slot);
    promise.then((v) => {
      slot.value = JSON.parse(JSON.stringify(v));
      slot.done = true;
    });
    return slot;
  }

  check(step, actual, at) {
    if (!("expect" in step)) return;
    const m = mismatch(this.refs(step.expect), actual);
    if (m) throw new Error(`${at}: ${m}\n  actual: ${JSON.stringify(actual)}`);
  }

  equal(actual, expected, at, what) {
    const a = JSON.stringify(actual);
    const e = JSON.stringify(expected);
    if (a !== e) throw new Error(`${at}: ${what}: expected ${e}, got ${a}`);
  }

  sorted(map) {
    return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  async run(step, at) {
    const r = this.registry;
    const name = step.as;
    if ("register" in step) {
      const h = this.register(step.register);
      if (name) this.handles.set(name, h);
    } else if ("handle" in step) {
      const h = this.handles.get(step.handle);
      this.check(step, { status: h.status, registrationId: h.registrationId }, at);
    } else if ("unregister" in step) this.handles.get(step.unregister).unregister();
    else if ("invalidate" in step) this.handles.get(step.invalidate).invalidate();
    else if ("update" in step) this.handles.get(step.update).update(step.patch);
    else if ("version" in step) this.equal(r.getVersion(), step.version, at, "version");
    else if ("snapshot" in step) this.check(step, r.snapshot(step.snapshot), at);
    else if ("explain" in step) this.check(step, this.explainSurface(r, step.explain), at);
    else if ("invoke" in step) {
      const options = { ...(step.options ?? {}) };
      if (step.cancellable) {
        const c = new AbortController();
        this.cancels.set(name ?? at, c);
        options.signal = c.signal;
      }
      const slot = this.start(name ?? at, r.invoke(this.refs(step.invoke), options));
      await this.time.settle();
      if (!step.pending) {
        if (!slot.done) throw new Error(`${at}: the invocation did not settle`);
        this.check(step, slot.value, at);
      }
    } else if ("await" in step) {
      await this.time.settle();
      const slot = this.results.get(step.await);
      if (!slot.done) throw new Error(`${at}: ${step.await} has not settled`);
      this.check(step, slot.value, at);
    } else if ("settled" in step) this.check(step, this.results.get(step.settled).done, at);
    else if ("cancel" in step) this.cancels.get(step.cancel).abort();
    else if ("resolve" in step) {
      let failed = false;
      try {
        r.confirmations.resolve(this.refs(step.resolve), { approved: step.approved, ...(step.reason === undefined ? {} : { reason: step.reason }) });
      } catch {
        failed = true;
      }
      this.equal(failed, step.expectError === true, at, "resolve failed");
      await this.time.settle();
    } else if ("pending" in step) {
      const m = mismatch(step.pending, r.confirmations.pending());
      if (m) throw new Error(`${at}: pending ${m}`);
    } else if ("pendingHeard" in step) this.equal(this.heard, step.pendingHeard, at, "confirmation listeners");
    else if ("advance" in step) await this.time.advance(step.advance);
    else if ("events" in step) {
      await this.time.settle();
      const ignore = step.ignore ?? [];
      const seen = this.events.filter((t) => !ignore.includes(t));
      this.events = [];
      this.equal(seen, step.events, at, "events");
    } else if ("calls" in step) this.equal(this.sorted(this.calls), this.sorted(step.calls), at, "handler calls");
    else if ("aborted" in step) this.equal(this.sorted(this.aborted), this.sorted(step.aborted), at, "aborted handlers");
    else if ("executorCalls" in step) {
      const m = mismatch(step.executorCalls, this.executorCalls);
      if (m) throw new Error(`${at}: executor calls ${m}`);
    } else if ("executor" in step) {
      const returns = step.executor?.returns;
      r.setProcedureExecutor(
        step.executor === null
          ? undefined
          : {
              execute: (call) => {
                this.executorCalls.push({ procedureId: call.procedureId, input: call.input });
                if (returns === undefined) throw new Error("no executor");
                return returns;
              },
            },
      );
    } else if ("toolset" in step) this.toolsets.set(name, this.core.createAgentToolset(r, step.toolset));
    else if ("tools" in step) {
      const tools = this.toolsets.get(step.tools).tools();
      if (name) this.catalogs.set(name, tools);
      this.check(step, JSON.parse(JSON.stringify(tools)), at);
    } else if ("tool" in step) {
      // A tool of a kept catalog (`catalog`) executes as it was in that catalog.
      const tools = step.catalog ? this.catalogs.get(step.catalog) : this.toolsets.get(step.tool).tools();
      const tool = tools.find((t) => t.name === step.name);
      if (!tool) throw new Error(`${at}: no tool ${step.name}`);
      const call = step.toolCallId === undefined ? {} : { toolCallId: step.toolCallId };
      const slot = this.start(name ?? at, tool.execute(step.input ?? {}, call));
      await this.time.settle();
      if (!slot.done) throw new Error(`${at}: the tool call did not settle`);
      this.check(step, slot.value, at);
    } else if ("notContains" in step) {
      const v = JSON.stringify(this.results.get(step.notContains.result).value);
      if (v.includes(step.notContains.text)) throw new Error(`${at}: ${v}`);
    } else if ("dispose" in step) {
      r.dispose();
      await this.time.settle();
    } else throw new Error(`${at}: unknown step ${JSON.stringify(step)}`);
  }
}

/**
 * Runs one scenario; throws an Error naming the file, scenario and step of the first
 * difference. `core` is the package's root module, `explainSurface` its explain entry.
 */
export async function runScenario({ core, explainSurface, manifest, file, scenario }) {
  const env = new Env(core, explainSurface, manifest, scenario.options ?? {});
  try {
    let i = 0;
    for (const step of scenario.steps) {
      i += 1;
      await env.run(step, `${file} "${scenario.name}" step ${i}`);
    }
  } finally {
    env.time.restore();
    env.registry.dispose();
  }
}
