// The behavioural scenarios (conformance/scenarios/*.json) through the public JavaScript API:
// the same files crates/engine/tests/it/scenarios.rs runs on the Rust engine natively. Plain ES
// module with no Node or vitest dependency and nothing but the package's public API (no runtime
// internals), so the same runner works in Node (test/scenarios.test.js) and in a page in
// headless Chromium (packages/vite/test/browser.test.js). conformance/README.md lists the step
// kinds.
//
// Time: the registry reads it through `options.now`, and its timers through the global
// setTimeout/clearTimeout looked up when needed (docs/runtime-js.md) — so the runner installs a
// manual clock on globalThis for the scenario and restores the real functions afterwards.

const T0 = 1_767_225_600_000; // 2026-01-01T00:00:00Z, as natively

/** What a described handler, policy, listener or guard throws when the data says it throws. */
const THROWN = "scenario: thrown as described";

/**
 * The first mismatch of a partial expectation, or undefined: objects list the keys that must
 * match (`"$absent"`: missing), arrays match element-wise with equal length, `"$any"` matches
 * any present value, `"$matches:<regex>"` a string the pattern (`u` flag) finds a match in,
 * `"$len:<n>"` an array, object or string of n items.
 */
export function mismatch(expected, actual, path = "") {
  if (expected === "$absent") return actual === undefined ? undefined : `${path}: expected absent, got ${JSON.stringify(actual)}`;
  if (actual === undefined) return `${path}: missing, expected ${JSON.stringify(expected)}`;
  if (expected === "$any") return undefined;
  if (typeof expected === "string" && expected.startsWith("$matches:")) {
    const re = new RegExp(expected.slice("$matches:".length), "u");
    return typeof actual === "string" && re.test(actual) ? undefined : `${path}: expected a match of ${expected}, got ${JSON.stringify(actual)}`;
  }
  if (typeof expected === "string" && expected.startsWith("$len:")) {
    const n = Number(expected.slice("$len:".length));
    const len = Array.isArray(actual) || typeof actual === "string" ? actual.length : actual !== null && typeof actual === "object" ? Object.keys(actual).length : NaN;
    return len === n ? undefined : `${path}: expected ${n} items, got ${JSON.stringify(actual)}`;
  }
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

/** Data macros: `{"$repeat": "ab", "times": 3}` is "ababab"; in a `repeat` step `{{i}}` is the index. */
export function expand(v, i) {
  if (Array.isArray(v)) return v.map((x) => expand(x, i));
  if (v !== null && typeof v === "object") {
    if ("$repeat" in v) return v.$repeat.repeat(v.times);
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, expand(x, i)]));
  }
  if (typeof v === "string" && i !== undefined) return v.split("{{i}}").join(String(i));
  return v;
}

const json = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)));

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

/**
 * An `authority` step's manifest: the scenario manifest with `edits`, resealed through the
 * public hashing functions (`reseal`: true — every contractHash and the manifestHash, the
 * default; "contracts" — only the contract hashes; "manifest" — only the manifestHash; false — none).
 */
export function editedManifest(core, manifest, spec) {
  const m = json(manifest);
  for (const e of spec.edits ?? []) {
    const index = (id) => {
      const i = m.contracts.findIndex((c) => c.id === id);
      if (i < 0) throw new Error(`no contract ${id}`);
      return i;
    };
    if (e.copyContract !== undefined) {
      const i = index(e.copyContract);
      m.contracts.splice(i + 1, 0, json(m.contracts[i]));
      continue;
    }
    if (e.moveContract !== undefined) {
      const [c] = m.contracts.splice(index(e.moveContract), 1);
      m.contracts.splice(e.to, 0, c);
      continue;
    }
    const target = e.contract === undefined ? m : m.contracts[index(e.contract)];
    const tokens = e.pointer
      .split("/")
      .slice(1)
      .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
    const last = tokens.pop();
    let parent = target;
    for (const t of tokens) parent = parent[Array.isArray(parent) ? Number(t) : t];
    if (e.remove) {
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
    } else parent[Array.isArray(parent) ? Number(last) : last] = e.value;
  }
  const reseal = spec.reseal ?? true;
  if (reseal === true || reseal === "contracts") {
    for (const c of Array.isArray(m.contracts) ? m.contracts : []) {
      const { contractHash: _hash, ...semantics } = c;
      c.contractHash = core.blake3Hex(semantics);
    }
  }
  if (reseal === true || reseal === "manifest") {
    const { manifestHash: _hash, ...rest } = m;
    m.manifestHash = core.blake3Hex(rest);
  }
  return m;
}

class Env {
  constructor(core, explainSurface, manifest, options) {
    this.core = core;
    this.explainSurface = explainSurface;
    this.manifest = manifest;
    this.time = new ManualTime(T0);
    this.time.install();
    // The registry's log lines: what it writes to the console, "agent-surface: " left out
    // (`logged` steps count them); restored with the clock.
    this.logs = [];
    this.console = {};
    for (const level of ["error", "warn", "info", "log", "debug"]) {
      this.console[level] = console[level];
      console[level] = (...args) => this.logs.push(args.map(String).join(" ").replace(/^agent-surface: /, ""));
    }
    this.contracts = contractsOf(core, manifest);
    this.calls = {};
    this.aborted = {};
    this.callLog = [];
    this.executorCalls = [];
    this.policyCalls = [];
    this.auditRecords = [];
    this.events = [];
    this.heard = [];
    this.cells = new Map();
    this.executorSpec = null;
    this.handles = new Map();
    this.results = new Map();
    this.cancels = new Map();
    this.toolsets = new Map();
    this.catalogs = new Map();
    this.authorities = new Map();
    this.listeners = new Map();
    this.toolListeners = new Map();
    const registryOptions = {
      authority: core.createCapabilityAuthority(manifest),
      now: () => this.time.now,
      environment: options.environment,
      onDuplicateInstance: options.onDuplicateInstance,
      duplicateSuffixPolicy: options.duplicateSuffixPolicy,
      limits: options.limits,
      policies: this.policies(options.policies),
    };
    // `context`: what RegistryOptions.context() returns (handlers and policies see it as `host`).
    if (options.context !== undefined) registryOptions.context = () => options.context;
    // `route`: what RegistryOptions.route() returns (null: undefined).
    if (options.route !== undefined) registryOptions.route = () => options.route ?? undefined;
    // `onRegister`: `{"reject": {type?, origin?, instanceId?}}` rejects the candidates matching every given field; "throws": the guard throws.
    if (options.onRegister !== undefined) {
      const g = options.onRegister;
      registryOptions.onRegister = (c) => {
        if (g === "throws") throw new Error(THROWN);
        const r = g.reject ?? {};
        const hit = (r.type === undefined || r.type === c.type) && (r.origin === undefined || r.origin === c.origin) && (r.instanceId === undefined || r.instanceId === c.instanceId);
        return hit ? "reject" : "accept";
      };
    }
    if (options.audit === true) registryOptions.audit = { record: (r) => this.auditRecords.push(json(r)) };
    for (const k of Object.keys(registryOptions)) if (registryOptions[k] === undefined) delete registryOptions[k];
    this.registry = core.createAgentSurfaceRegistry(registryOptions);
    // An exposure runs with the registry's options (clock, limits, policies, context, audit
    // sink); the registration options have nothing to act on there.
    const { authority, onDuplicateInstance: _d, duplicateSuffixPolicy: _s, route: _r, onRegister: _g, ...gatewayOptions } = registryOptions;
    this.authority = authority;
    this.gatewayOptions = gatewayOptions;
    this.exposures = new Map();
    this.registry.subscribe((e) => this.events.push(json(e)));
    this.registry.confirmations.subscribe((p) => this.heard.push(p.length));
  }

  /**
   * Policies described by data. Filters: `capabilityPrefix`, `consumerKind`, `unlessGrant`
   * (elsewhere the policy exposes and allows). Votes: "hide" | "expose" | {disable} | "throws";
   * "allow" | {deny} | "require-confirmation" | "throws". `authorize` and `invoke` calls are logged.
   */
  policies(list) {
    return (list ?? []).map((spec) => {
      const applies = (ctx) =>
        (spec.capabilityPrefix === undefined || ctx.capabilityId.startsWith(spec.capabilityPrefix)) &&
        (spec.consumerKind === undefined || ctx.consumer.kind === spec.consumerKind) &&
        (spec.unlessGrant === undefined || !(ctx.consumer.grants ?? []).includes(spec.unlessGrant));
      const vote = (v) => {
        if (v === "throws") throw new Error(THROWN);
        return v;
      };
      const log = (phase, ctx) => {
        const entry = { policy: spec.name, phase, capabilityId: ctx.capabilityId, registrationId: ctx.registrationId, consumer: json(ctx.consumer), host: json(ctx.host ?? {}) };
        if (ctx.effectiveInput !== undefined) entry.effectiveInput = json(ctx.effectiveInput);
        this.policyCalls.push(entry);
      };
      const p = { name: spec.name };
      if (spec.discovery !== undefined) p.onDiscovery = (ctx) => (applies(ctx) ? vote(spec.discovery) : "expose");
      if (spec.authorize !== undefined)
        p.authorize = async (ctx) => {
          log("authorize", ctx);
          return applies(ctx) ? vote(spec.authorize) : "allow";
        };
      if (spec.invoke !== undefined)
        p.invoke = async (ctx) => {
          log("invoke", ctx);
          return applies(ctx) ? vote(spec.invoke) : "allow";
        };
      return p;
    });
  }

  count(map, id) {
    map[id] = (map[id] ?? 0) + 1;
  }

  /**
   * A handler described by data: `delayMs`, `waitsForAbort` (settles a second after its signal
   * aborts), `throws`, `echo`, `context` (returns what it saw), else `returns` (default null).
   * `seen` turns the handler's context into the JSON `context` reports.
   */
  behaviour(b, id, seen) {
    return (input, ctx) => {
      this.count(this.calls, id);
      this.callLog.push({ capabilityId: id, input: input ?? null });
      const finish = () => {
        if (b.throws !== undefined) throw new Error(b.throws);
        if (b.echo) return input;
        if (b.context) return { ...seen(ctx), input: input ?? null };
        return b.returns ?? null;
      };
      if (b.waitsForAbort) {
        const signal = ctx?.signal;
        if (!signal) return null;
        // Settles late (a second after the abort), as natively.
        return new Promise((resolve) => {
          signal.addEventListener("abort", () => {
            this.count(this.aborted, id);
            setTimeout(() => resolve(null), 1000);
          });
        });
      }
      if (b.delayMs !== undefined) return new Promise((resolve) => setTimeout(resolve, b.delayMs)).then(finish);
      return finish();
    };
  }

  static readContext(ctx) {
    return { capabilityId: ctx.capabilityId, registrationId: ctx.registrationId, consumer: json(ctx.consumer), host: json(ctx.host ?? {}) };
  }

  static actionContext(ctx) {
    const v = { ...Env.readContext(ctx), invocationId: ctx.invocationId };
    if (ctx.confirmation !== undefined) v.confirmation = { id: ctx.confirmation.id, approvedAt: ctx.confirmation.approvedAt };
    return v;
  }

  settings(b) {
    const out = {};
    if (b.when !== undefined) {
      if (b.when === "throws")
        out.when = () => {
          throw new Error(THROWN);
        };
      else if (typeof b.when === "object") out.when = () => this.cells.get(b.when.cell) ?? true;
      else out.when = () => b.when;
    }
    if (b.unavailableReason !== undefined) out.unavailableReason = b.unavailableReason;
    if (b.unavailableReasonFn !== undefined) out.unavailableReason = () => b.unavailableReasonFn;
    if (b.precondition !== undefined) {
      const { thrown, ...failure } = b.precondition;
      out.precondition = () => {
        if (thrown) throw failure;
        return failure;
      };
    }
    if (b.policies !== undefined) out.policies = this.policies(b.policies);
    if (b.timeoutMs !== undefined) out.timeoutMs = b.timeoutMs;
    if (b.concurrency !== undefined) out.concurrency = b.concurrency;
    return out;
  }

  /**
   * A described `confirm`: "approve", "deny", "throws", "never" (never answers), or
   * `{approve, delayMs}` (answers after that long); absent: no `confirm`.
   */
  confirmer(v) {
    if (v === undefined) return undefined;
    if (v === "approve") return () => true;
    if (v === "deny") return () => false;
    if (v === "throws")
      return () => {
        throw new Error(THROWN);
      };
    if (v === "never") return () => new Promise(() => {});
    return () => new Promise((resolve) => setTimeout(() => resolve(v.approve), v.delayMs ?? 0));
  }

  /** `$pendingN` against an exposure's confirmations (`exposure` given), else `refs`. */
  pendingRef(v, exposure) {
    const m = exposure === undefined || typeof v !== "string" ? null : /^\$pending(\d+)$/.exec(v);
    if (!m) return this.refs(v);
    const list = this.exposures.get(exposure).confirmations.pending();
    if (!list[Number(m[1])]) throw new Error(`${v}: ${list.length} pending`);
    return list[Number(m[1])].confirmationId;
  }

  register(spec) {
    const contracts = spec.authority === undefined ? this.contracts : this.authorities.get(spec.authority).contracts;
    const contract = contracts.get(`view:${spec.type}`);
    if (!contract) throw new Error(`no component ${spec.type}`);
    const def = contract.definition;
    // `omit`: names bound with no handler; `extra`: {observations?, actions?} names the contract does not declare.
    const omit = spec.omit ?? [];
    const names = (declared, extra) => [...Object.keys(declared ?? {}).filter((n) => !omit.includes(n)), ...(extra ?? [])];
    const observations = Object.fromEntries(
      names(def.observations, spec.extra?.observations).map((n) => {
        const b = spec.observations?.[n] ?? {};
        const read = this.behaviour(b, `view:${spec.type}.${n}`, Env.readContext);
        return [n, { read: (ctx) => read(null, ctx), ...this.settings(b) }];
      }),
    );
    const actions = Object.fromEntries(
      names(def.actions, spec.extra?.actions).map((n) => {
        const b = spec.actions?.[n] ?? {};
        return [n, { execute: this.behaviour(b, `view:${spec.type}.${n}`, Env.actionContext), ...this.settings(b) }];
      }),
    );
    const procedures = (spec.procedures ?? []).map((p) => {
      const c = contracts.get(p.id);
      const handlers = { ...this.settings(p) };
      if (!p.forward) handlers.execute = this.behaviour(p, p.id, Env.actionContext);
      if (p.describe !== undefined) handlers.describe = () => p.describe;
      return c.bind(handlers);
    });
    const binding = { observations, actions, procedures };
    if (spec.instanceId !== undefined) binding.instanceId = spec.instanceId;
    if (spec.enabled !== undefined) binding.enabled = spec.enabled;
    if (spec.parent !== undefined) binding.parent = spec.parent;
    if (spec.internal !== undefined) binding.internal = spec.internal;
    if (spec.policies !== undefined) binding.policies = this.policies(spec.policies);
    return this.registry.register(contract.bind(binding));
  }

  /** A raw definition (defineAgentComponent) with the contract's shape: no compiler proof. */
  registerRaw(spec) {
    const c = this.manifest.contracts.find((x) => x.id === `view:${spec.type}`);
    const core = this.core;
    const def = core.defineAgentComponent({
      type: c.type,
      ...(spec.instanceId === undefined ? {} : { instanceId: spec.instanceId }),
      description: c.description,
      observations: Object.fromEntries(
        Object.entries(c.observations).map(([n, o]) => [n, core.observation({ description: o.description, output: core.fromJsonSchema(o.outputSchema), read: () => null })]),
      ),
      actions: Object.fromEntries(
        Object.entries(c.actions).map(([n, a]) => [n, core.action({ description: a.description, input: core.fromJsonSchema(a.inputSchema), effect: a.effect, execute: () => null })]),
      ),
    });
    return this.registry.register(def);
  }

  refs(v) {
    if (typeof v === "string" && v.startsWith("$") && v !== "$any" && v !== "$absent" && !v.startsWith("$matches:") && !v.startsWith("$len:")) {
      const [name, ...path] = v.slice(1).split(".");
      // `$pendingN`: the id of the N-th pending confirmation (what the page's dialog shows).
      const pendingIndex = /^pending(\d+)$/.exec(name);
      if (pendingIndex) {
        const list = this.registry.confirmations.pending();
        const entry = list[Number(pendingIndex[1])];
        if (!entry) throw new Error(`${v}: ${list.length} pending`);
        return entry.confirmationId;
      }
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
    promise.then(
      (v) => {
        slot.value = json(v);
        slot.done = true;
      },
      // Programmer misuse (e.g. invoke after dispose): the promise rejects. `onRejected`
      // (set by the step) describes the rejection instead.
      (e) => {
        slot.value = slot.onRejected ? slot.onRejected(e) : { rejected: true };
        slot.done = true;
      },
    );
    return slot;
  }

  keep(name, value) {
    if (name) this.results.set(name, { value, done: true });
  }

  check(step, actual, at) {
    if (!("expect" in step)) return;
    const m = mismatch(this.refs(step.expect), actual);
    if (m) throw new Error(`${at}: ${m}\n  actual: ${JSON.stringify(actual)}`);
  }

  /** `throws: true`: `f` must throw; else it must not. Returns f's value. */
  attempt(step, at, f) {
    let value;
    try {
      value = f();
    } catch (e) {
      if (step.throws !== true) throw new Error(`${at}: unexpected error: ${e?.message ?? e}`);
      return undefined;
    }
    if (step.throws === true) throw new Error(`${at}: expected an error`);
    return value;
  }

  equal(actual, expected, at, what) {
    const a = JSON.stringify(actual);
    const e = JSON.stringify(expected);
    if (a !== e) throw new Error(`${at}: ${what}: expected ${e}, got ${a}`);
  }

  matches(expected, actual, at, what) {
    const m = mismatch(this.refs(expected), actual);
    if (m) throw new Error(`${at}: ${what} ${m}\n  actual: ${JSON.stringify(actual)}`);
  }

  sorted(map) {
    return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  }

  async run(step, at) {
    if ("repeat" in step) {
      for (let i = 0; i < step.repeat; i++) {
        for (const [j, s] of step.steps.entries()) await this.runOne(expand(s, i), `${at} (iteration ${i}, step ${j + 1})`);
      }
    } else await this.runOne(expand(step), at);
  }

  async runOne(step, at) {
    const r = this.registry;
    const name = step.as;
    if ("register" in step) {
      const h = this.attempt(step, at, () => this.register(this.refs(step.register)));
      if (name && h) this.handles.set(name, h);
    } else if ("registerRaw" in step) this.attempt(step, at, () => this.registerRaw(step.registerRaw));
    else if ("handle" in step) {
      const h = this.handles.get(step.handle);
      this.check(step, { status: h.status, registrationId: h.registrationId }, at);
    } else if ("unregister" in step) this.handles.get(step.unregister).unregister();
    else if ("invalidate" in step) this.handles.get(step.invalidate).invalidate();
    else if ("update" in step) this.handles.get(step.update).update(step.patch);
    else if ("version" in step) this.equal(r.getVersion(), step.version, at, "version");
    else if ("snapshot" in step) {
      const v = json(r.snapshot(step.snapshot));
      this.check(step, v, at);
      this.keep(name, v);
    } else if ("explain" in step) {
      const v = this.attempt(step, at, () => json(this.explainSurface(r, step.explain)));
      if (step.throws !== true) {
        this.check(step, v, at);
        this.keep(name, v);
      }
    } else if ("invoke" in step) {
      const options = { ...(step.options ?? {}) };
      if (step.cancellable) {
        const c = new AbortController();
        this.cancels.set(name ?? at, c);
        options.signal = c.signal;
      }
      let promise;
      try {
        promise = r.invoke(this.refs(step.invoke), options);
      } catch {
        promise = Promise.reject(new Error("threw"));
      }
      const slot = this.start(name ?? at, promise);
      await this.time.settle();
      if (!step.pending) {
        if (!slot.done) throw new Error(`${at}: the invocation did not settle`);
        const rejected = slot.value?.rejected === true && Object.keys(slot.value).length === 1;
        this.equal(rejected, step.rejects === true, at, "rejected");
        this.check(step, slot.value, at);
      }
    } else if ("await" in step) {
      await this.time.settle();
      const slot = this.results.get(step.await);
      if (!slot.done) throw new Error(`${at}: ${step.await} has not settled`);
      this.check(step, slot.value, at);
    } else if ("settled" in step) this.check(step, this.results.get(step.settled).done, at);
    else if ("cancel" in step) {
      this.cancels.get(step.cancel).abort();
      await this.time.settle();
    } else if ("resolve" in step) {
      // `exposure`: a pending confirmation of that exposure's tools.
      const controller = step.exposure === undefined ? r.confirmations : this.exposures.get(step.exposure).confirmations;
      let failed = false;
      try {
        controller.resolve(this.pendingRef(step.resolve, step.exposure), { approved: step.approved, ...(step.reason === undefined ? {} : { reason: step.reason }) });
      } catch {
        failed = true;
      }
      this.equal(failed, step.expectError === true, at, "resolve failed");
      await this.time.settle();
    } else if ("waitFor" in step) {
      // `cancellable`: with a signal a `cancel` step aborts; the promise rejects with an AbortError.
      const opts = {};
      if (step.cancellable) {
        const c = new AbortController();
        this.cancels.set(name ?? at, c);
        opts.signal = c.signal;
      }
      const slot = this.start(name ?? at, r.confirmations.waitFor(this.refs(step.waitFor), opts));
      slot.onRejected = (e) => ({ rejected: true, abortError: e?.name === "AbortError" });
      await this.time.settle();
    } else if (Array.isArray(step.pending) || typeof step.pending === "string") {
      const controller = step.exposure === undefined ? r.confirmations : this.exposures.get(step.exposure).confirmations;
      this.matches(step.pending, json(controller.pending()), at, "pending");
    }
    else if ("pendingHeard" in step) this.equal(this.heard, step.pendingHeard, at, "confirmation listeners");
    else if ("advance" in step) await this.time.advance(step.advance);
    else if ("events" in step || "eventsMatch" in step) {
      // `events`: the types of the events since the last such step; `eventsMatch`: the events, partially.
      await this.time.settle();
      const ignore = step.ignore ?? [];
      const seen = this.events.filter((e) => !ignore.includes(e.type));
      this.events = [];
      if ("events" in step)
        this.equal(
          seen.map((e) => e.type),
          step.events,
          at,
          "events",
        );
      else this.matches(step.eventsMatch, seen, at, "events");
    } else if ("calls" in step) this.equal(this.sorted(this.calls), this.sorted(step.calls), at, "handler calls");
    else if ("callLog" in step) this.matches(step.callLog, this.callLog, at, "call log");
    else if ("policyCalls" in step) {
      const calls = this.policyCalls;
      this.policyCalls = [];
      this.matches(step.policyCalls, calls, at, "policy calls");
    } else if ("audit" in step) this.matches(step.audit, this.auditRecords, at, "audit");
    else if ("logged" in step) {
      // How many of the registry's log lines so far match the pattern (`u`).
      const re = new RegExp(step.logged, "u");
      this.check(step, this.logs.filter((m) => re.test(m)).length, at);
    } else if ("auditRecords" in step) {
      // The default audit sink's records, read with the package's readAuditRecords(registry), or
      // an exposure's (`"auditRecords": name`) with its auditRecords().
      const records = typeof step.auditRecords === "string" ? this.exposures.get(step.auditRecords).auditRecords() : this.core.readAuditRecords(r);
      this.check(step, json(records), at);
    } else if ("aborted" in step) this.equal(this.sorted(this.aborted), this.sorted(step.aborted), at, "aborted handlers");
    else if ("executorCalls" in step) this.matches(step.executorCalls, this.executorCalls, at, "executor calls");
    else if ("executor" in step) {
      // A described handler, or null to uninstall it.
      this.executorSpec = step.executor;
      r.setProcedureExecutor(
        step.executor === null
          ? undefined
          : {
              execute: async (call) => {
                this.executorCalls.push({ procedureId: call.procedureId, input: json(call.input), invocationId: call.invocationId });
                const run = this.behaviour(this.executorSpec ?? {}, "executor", (c) => ({ procedureId: c.procedureId, invocationId: c.invocationId }));
                return run(call.input, call);
              },
            },
      );
    } else if ("set" in step) {
      for (const [k, v] of Object.entries(step.set)) this.cells.set(k, v);
    } else if ("toolset" in step) {
      const t = this.attempt(step, at, () => this.core.createAgentToolset(r, step.toolset));
      if (t) this.toolsets.set(name, t);
    } else if ("tools" in step) {
      const tools = this.toolsets.get(step.tools).tools();
      if (name) this.catalogs.set(name, tools);
      this.keep(name, json(tools));
      this.check(step, json(tools), at);
    } else if ("wireNameMap" in step) this.check(step, Object.fromEntries(this.toolsets.get(step.wireNameMap).wireNameMap()), at);
    else if ("toolBlock" in step) {
      const block = this.attempt(step, at, () => json(this.toolsets.get(step.toolBlock).toolBlock(step.provider)));
      if (step.throws !== true) this.check(step, block, at);
    } else if ("toolsetListen" in step) {
      const heard = [];
      this.toolsets.get(step.toolsetListen).subscribe((tools) => heard.push(tools.length));
      this.toolListeners.set(name, heard);
    } else if ("heardTools" in step) {
      await this.time.settle();
      this.check(step, this.toolListeners.get(step.heardTools), at);
    } else if ("disposeToolset" in step) this.toolsets.get(step.disposeToolset).dispose();
    else if ("tool" in step) {
      // A tool of a kept catalog (`catalog`) executes as it was in that catalog.
      const tools = step.catalog ? this.catalogs.get(step.catalog) : this.toolsets.get(step.tool).tools();
      const tool = tools.find((t) => t.name === step.name);
      if (!tool) throw new Error(`${at}: no tool ${step.name}`);
      const call = step.toolCallId === undefined ? {} : { toolCallId: step.toolCallId };
      if (step.cancellable) {
        const c = new AbortController();
        this.cancels.set(name ?? at, c);
        call.signal = c.signal;
      }
      const slot = this.start(name ?? at, tool.execute(this.refs(step.input ?? {}), call));
      await this.time.settle();
      if (!step.pending) {
        if (!slot.done) throw new Error(`${at}: the tool call did not settle`);
        this.check(step, slot.value, at);
      }
    } else if ("listen" in step) {
      // Another registry listener: records event types; `{"throws": true}` throws on each;
      // `{"on": type, "unregister" | "invalidate": handle}` makes that call (a re-entrant
      // mutation) the first time it hears an event of that type.
      const heard = [];
      const spec = step.listen ?? {};
      const call = ["unregister", "invalidate"].find((m) => spec[m] !== undefined);
      const handle = call && this.handles.get(spec[call]);
      let fired = false;
      const unsubscribe = r.subscribe((e) => {
        heard.push(e.type);
        if (handle && e.type === spec.on && !fired) {
          fired = true;
          handle[call]();
        }
        if (spec.throws) throw new Error(THROWN);
      });
      this.listeners.set(name, { heard, unsubscribe });
    } else if ("unlisten" in step) this.listeners.get(step.unlisten).unsubscribe();
    else if ("heard" in step) {
      await this.time.settle();
      this.check(step, this.listeners.get(step.heard).heard, at);
    } else if ("authority" in step) {
      const m = editedManifest(this.core, this.manifest, step.authority);
      let outcome;
      try {
        const authority = this.core.createCapabilityAuthority(m);
        outcome = { ok: true };
        if (name) this.authorities.set(name, { authority, contracts: contractsOf(this.core, m) });
      } catch (e) {
        outcome = { ok: false, kind: e?.kind };
      }
      this.check(step, outcome, at);
    } else if ("expose" in step) {
      // An exposure with the registry's options: `tools` are described handlers bound to
      // external tool contracts (`id`, `describe`, and the settings of any handler); `confirm`
      // and `consumer` are the exposure's too.
      const spec = step.expose;
      const exposed = this.attempt(step, at, () => {
        const tools = spec.tools.map((t) => {
          const handlers = { execute: this.behaviour(t, t.id, Env.actionContext), ...this.settings(t) };
          if (t.describe !== undefined) handlers.describe = () => t.describe;
          return this.contracts.get(t.id).bind(handlers);
        });
        const options = { ...this.gatewayOptions };
        if (spec.consumer !== undefined) options.consumer = spec.consumer;
        const confirm = this.confirmer(spec.confirm);
        if (confirm) options.confirm = confirm;
        return this.core.createAgentExposureGateway(this.authority).expose(tools, options);
      });
      if (exposed) {
        exposed.subscribe((e) => this.events.push(json(e)));
        this.exposures.set(name, exposed);
      }
    } else if ("gatewayTools" in step) this.check(step, json(this.exposures.get(step.gatewayTools).tools()), at);
    else if ("gatewayTool" in step) {
      // A call of an exposed tool (+ `name`, `input`, `toolCallId`, `cancellable`, `pending`).
      const tool = this.exposures
        .get(step.gatewayTool)
        .tools()
        .find((t) => t.name === step.name);
      if (!tool) throw new Error(`${at}: no exposed tool ${step.name}`);
      const call = step.toolCallId === undefined ? {} : { toolCallId: step.toolCallId };
      if (step.cancellable) {
        const c = new AbortController();
        this.cancels.set(name ?? at, c);
        call.signal = c.signal;
      }
      const slot = this.start(name ?? at, tool.execute(this.refs(step.input ?? {}), call));
      await this.time.settle();
      if (!step.pending) {
        if (!slot.done) throw new Error(`${at}: the tool call did not settle`);
        this.check(step, slot.value, at);
      }
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
    Object.assign(console, env.console);
  }
}
