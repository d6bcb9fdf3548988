// Type tests (tsc --noEmit, `npm run test:types`): what the published declarations infer from a
// contract's schemas. Each `@ts-expect-error` must stay an error: if a line stops failing, tsc
// reports the directive as unused and the check fails. Nothing here runs.
import {
  action,
  actionContract,
  defineAgentComponent,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  emptyObjectSchema,
  fromJsonSchema,
  observation,
  observationContract,
  type AgentActionContract,
  type AgentComponentBinding,
  type AgentObservationContract,
  type AgentPolicy,
  type AgentSchema,
  type AgentSurfaceRegistry,
  type JsonValue,
  type RegistryOptions,
} from "@agent-surface/core";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_: T): void {}

type Row = { id: string; online: boolean };
const rows = fromJsonSchema<Row[]>({ type: "array", items: { type: "object" } });
const select = fromJsonSchema<{ ids: string[] }>({ type: "object", properties: { ids: { type: "array", items: { type: "string" } } }, required: ["ids"] });
const selected = fromJsonSchema<{ count: number }>({ type: "object", properties: { count: { type: "integer" } }, required: ["count"] });

// ---- the macros infer each capability's types from its schemas

const readRows = observationContract({ description: "Visible rows", output: rows });
assertType<Equal<typeof readRows, AgentObservationContract<Row[]>>>(true);

const selectRows = actionContract({ description: "Select rows", input: select, output: selected, effect: "local-state" });
assertType<Equal<typeof selectRows, AgentActionContract<{ ids: string[] }, { count: number }>>>(true);

const clear = actionContract({ description: "Clear the selection", input: emptyObjectSchema, effect: "local-state" });
assertType<Equal<typeof clear, AgentActionContract<Record<string, never>, void>>>(true);

// A view action cannot declare an operation effect.
// @ts-expect-error "destructive" is not a view effect
actionContract({ description: "Delete", input: select, effect: "destructive" });

const table = defineAgentComponentContract({
  type: "devices.table",
  description: "The devices table",
  observations: { rows: readRows },
  actions: { select: selectRows, clear },
});

const reboot = defineAgentProcedureContract({ id: "domain:devices.reboot", description: "Reboot", input: select, output: selected, effect: "mutation" });

// ---- a good binding compiles, handlers typed from the schemas

const policy: AgentPolicy = {
  name: "online-only",
  onDiscovery: (ctx) => (ctx.consumer.kind === "test" ? "hide" : { disable: "offline" }),
  authorize: async () => ({ deny: "no" }),
  invoke: (ctx) => (ctx.effectiveInput === null ? "require-confirmation" : "allow"),
};

const bound = table.bind({
  instanceId: "main",
  meta: { page: 1 },
  policies: [policy],
  observations: {
    rows: { read: () => [{ id: "a", online: true }], when: () => true, timeoutMs: 100 },
  },
  actions: {
    select: {
      execute: async (input, ctx) => {
        assertType<Equal<typeof input, { ids: string[] }>>(true);
        assertType<Equal<typeof ctx.signal, AbortSignal>>(true);
        return { count: input.ids.length };
      },
      precondition: (input) => (input.ids.length === 0 ? { message: "nothing to select" } : undefined),
      concurrency: { mode: "parallel", max: 2 },
    },
    clear: { execute: () => undefined },
  },
  procedures: [reboot.bind({ execute: async (input) => ({ count: input.ids.length }) })],
});
assertType<Equal<typeof bound, AgentComponentBinding<{ rows: typeof readRows }, { select: typeof selectRows; clear: typeof clear }>>>(true);

declare const registry: AgentSurfaceRegistry;
registry.register(bound);

// ---- what must not compile

table.bind({
  observations: { rows: { read: () => [] } },
  actions: {
    // @ts-expect-error execute returns the wrong type: { count: string } is not { count: number }
    select: { execute: () => ({ count: "one" }) },
    clear: { execute: () => undefined },
  },
});

table.bind({
  observations: { rows: { read: () => [] } },
  actions: {
    // @ts-expect-error a promise of the wrong type is refused too
    select: { execute: async () => ({ total: 1 }) },
    clear: { execute: () => undefined },
  },
});

table.bind({
  observations: {
    // @ts-expect-error read returns the wrong type
    rows: { read: () => [{ id: 1, online: true }] },
  },
  actions: { select: { execute: () => ({ count: 1 }) }, clear: { execute: () => undefined } },
});

table.bind({
  // @ts-expect-error the observation `rows` has no read
  observations: { rows: { timeoutMs: 5 } },
  actions: { select: { execute: () => ({ count: 1 }) }, clear: { execute: () => undefined } },
});

table.bind({
  // @ts-expect-error the declared observation `rows` is not bound at all
  observations: {},
  actions: { select: { execute: () => ({ count: 1 }) }, clear: { execute: () => undefined } },
});

table.bind({
  observations: { rows: { read: () => [] } },
  actions: {
    select: { execute: () => ({ count: 1 }) },
    clear: { execute: () => undefined },
    // @ts-expect-error `reset` is not an action of the contract
    reset: { execute: () => undefined },
  },
});

table.bind({
  observations: { rows: { read: () => [] } },
  actions: {
    select: { execute: () => ({ count: 1 }) },
    // @ts-expect-error an action without output returns nothing
    clear: { execute: () => 42 },
  },
});

table.bind({
  observations: { rows: { read: () => [] } },
  actions: {
    select: { execute: () => ({ count: 1 }) },
    clear: { execute: () => undefined },
  },
  // @ts-expect-error identity stays the contract's: a binding cannot set a description
  description: "other",
});

table.bind({
  observations: { rows: { read: () => [] } },
  actions: {
    select: {
      execute: () => ({ count: 1 }),
      // @ts-expect-error the effect is governance, not a runtime setting
      effect: "navigation",
    },
    clear: { execute: () => undefined },
  },
});

// @ts-expect-error the procedure's execute returns the wrong type
reboot.bind({ execute: async () => "rebooted" });

const policyAsksInAuthorize: AgentPolicy = {
  name: "p",
  // @ts-expect-error authorize cannot ask for a confirmation (only invoke, which sees the input)
  authorize: () => "require-confirmation",
};

// A contract without capabilities binds with no maps at all.
defineAgentComponentContract({ type: "app.shell", description: "Shell" }).bind({});

// ---- the raw helpers: TOut comes from `output` only (NoInfer)

const rawSelect = action({ description: "Select", input: select, output: selected, effect: "local-state", execute: (input) => ({ count: input.ids.length }) });
assertType<Equal<typeof rawSelect.execute, (input: { ids: string[] }, ctx: import("@agent-surface/core").AgentActionContext) => { count: number } | Promise<{ count: number }>>>(true);

declare const maybe: boolean;
// Without NoInfer, TOut would be inferred as the common supertype of the schema's type and the
// handler's return, { count: number } | null, and the schema would still fit it: this would compile.
// @ts-expect-error the handler may return null, which the output schema does not allow
action({ description: "Select", input: select, output: selected, effect: "local-state", execute: () => (maybe ? { count: 1 } : null) });

// @ts-expect-error the same for an observation's read
observation({ description: "Rows", output: rows, read: () => (maybe ? [] : null) });

const rawRows = observation({ description: "Rows", output: rows, read: () => [] });
assertType<Equal<typeof rawRows.output, AgentSchema<Row[]>>>(true);

defineAgentComponent({ type: "devices.table", description: "Raw", observations: { rows: rawRows }, actions: { select: rawSelect } });

// JsonValue is the payload constraint.
// @ts-expect-error undefined is not JSON
const notJson: JsonValue = undefined;

// ---- onRegister sees { type, instanceId, origin, internal } (what the registry passes at run time)

const guard: RegistryOptions["onRegister"] = (candidate) => {
  assertType<Equal<typeof candidate.type, string>>(true);
  assertType<Equal<typeof candidate.internal, Readonly<Record<string, unknown>>>>(true);
  // @ts-expect-error the candidate's field is `type` (events name it componentType, the candidate does not)
  void candidate.componentType;
  return candidate.origin === "first-party" ? "accept" : "reject";
};
void guard;

void policyAsksInAuthorize;
void notJson;
