// Type tests (tsc --noEmit, `npm run test:types`): what `fromJsonSchema` infers from a literal
// schema with no generic and no `as const`, and how the handlers of contracts built on it are
// typed. Each `@ts-expect-error` must stay an error. Nothing here runs.
import {
  action,
  actionContract,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  defineExternalAgentToolContract,
  fromJsonSchema,
  observationContract,
  type AgentActionContract,
  type AgentObservationContract,
  type AgentSchema,
  type FromJsonSchema,
  type JsonSchema,
  type JsonValue,
} from "@agent-surface/core";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function assertType<T extends true>(_: T): void {}
/** The value type of an AgentSchema. */
type Of<A> = A extends AgentSchema<infer T> ? T : never;
type JsonObject = { [key: string]: JsonValue };

// ---- type: one name, or several (nullability); integer and number are numbers, formats strings

const str = fromJsonSchema({ type: "string", minLength: 1 });
assertType<Equal<Of<typeof str>, string>>(true);
const int = fromJsonSchema({ type: "integer", minimum: 0 });
assertType<Equal<Of<typeof int>, number>>(true);
const num = fromJsonSchema({ type: "number", multipleOf: 0.5 });
assertType<Equal<Of<typeof num>, number>>(true);
const bool = fromJsonSchema({ type: "boolean" });
assertType<Equal<Of<typeof bool>, boolean>>(true);
const nul = fromJsonSchema({ type: "null" });
assertType<Equal<Of<typeof nul>, null>>(true);
const when = fromJsonSchema({ type: "string", format: "date-time" });
assertType<Equal<Of<typeof when>, string>>(true);
const nullableString = fromJsonSchema({ type: ["string", "null"], format: "email" });
assertType<Equal<Of<typeof nullableString>, string | null>>(true);
const numberish = fromJsonSchema({ type: ["integer", "number", "boolean"] });
assertType<Equal<Of<typeof numberish>, number | boolean>>(true);
const anything = fromJsonSchema({ description: "any JSON value" });
assertType<Equal<Of<typeof anything>, JsonValue>>(true);

// ---- enum and const: literal unions

const status = fromJsonSchema({ enum: ["online", "offline", "maintenance"], description: "Status" });
assertType<Equal<Of<typeof status>, "online" | "offline" | "maintenance">>(true);
const level = fromJsonSchema({ type: "integer", enum: [1, 2, 3] });
assertType<Equal<Of<typeof level>, 1 | 2 | 3>>(true);
const maybeColor = fromJsonSchema({ type: ["string", "null"], enum: ["red", "green", null] });
assertType<Equal<Of<typeof maybeColor>, "red" | "green" | null>>(true);
const tag = fromJsonSchema({ const: "v1" });
assertType<Equal<Of<typeof tag>, "v1">>(true);
const origin = fromJsonSchema({ const: { x: 0, y: [0, 0] } });
assertType<Equal<Of<typeof origin>, { x: 0; y: [0, 0] }>>(true);

// ---- objects: required vs optional, additionalProperties, defaults

const device = fromJsonSchema({
  type: "object",
  properties: {
    id: { type: "string", pattern: "^dev_" },
    name: { type: "string" },
    lastSeen: { type: ["string", "null"], format: "date-time" },
    mode: { enum: ["replace", "add"], default: "replace" },
  },
  required: ["id", "lastSeen"],
  additionalProperties: false,
});
// `mode` has a default: parse inserts it, so it is always there.
assertType<Equal<Of<typeof device>, { id: string; name?: string; lastSeen: string | null; mode: "replace" | "add" }>>(true);

const open = fromJsonSchema({ type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: true });
assertType<Equal<Of<typeof open>, { [key: string]: JsonValue; id: string }>>(true);
// No additionalProperties is additionalProperties: true (other keys are allowed and kept).
const openByDefault = fromJsonSchema({ type: "object", properties: { id: { type: "string" } } });
type OpenByDefault = Of<typeof openByDefault>;
assertType<Equal<OpenByDefault["id"], string | undefined>>(true);
assertType<Equal<OpenByDefault["other"], JsonValue>>(true);
const openValue: OpenByDefault = { extra: [1, "two"] };
// @ts-expect-error id is a string when present
const badOpenValue: OpenByDefault = { id: 1 };

const empty = fromJsonSchema({ type: "object", properties: {}, additionalProperties: false });
assertType<Equal<Of<typeof empty>, Record<string, never>>>(true);
const anyObject = fromJsonSchema({ type: "object" });
assertType<Equal<Of<typeof anyObject>, JsonObject>>(true);
// A required name without a property schema: present, any JSON value.
const requiredOnly = fromJsonSchema({ type: "object", required: ["token"], additionalProperties: false });
assertType<Equal<Of<typeof requiredOnly>, { token: JsonValue }>>(true);

const nested = fromJsonSchema({
  type: "object",
  properties: {
    owner: {
      type: "object",
      properties: { name: { type: "string" }, emails: { type: "array", items: { type: "string", format: "email" } } },
      required: ["name"],
      additionalProperties: false,
    },
  },
  required: ["owner"],
  additionalProperties: false,
});
assertType<Equal<Of<typeof nested>, { owner: { name: string; emails?: string[] } }>>(true);

// Numeric property names are the same keys as the strings `required` lists.
const byCode = fromJsonSchema({ type: "object", properties: { 200: { type: "string" }, "404": { type: "string" } }, required: ["200", "404"], additionalProperties: false });
assertType<Equal<Of<typeof byCode>, { 200: string; "404": string }>>(true);

// ---- arrays

const ids = fromJsonSchema({ type: "array", items: { type: "string" }, minItems: 1, uniqueItems: true });
assertType<Equal<Of<typeof ids>, string[]>>(true);
const matrix = fromJsonSchema({ type: "array", items: { type: "array", items: { type: "number" } } });
assertType<Equal<Of<typeof matrix>, number[][]>>(true);
const list = fromJsonSchema({ type: "array" });
assertType<Equal<Of<typeof list>, JsonValue[]>>(true);
const nullableList = fromJsonSchema({ type: ["array", "null"], items: { enum: ["a", "b"] } });
assertType<Equal<Of<typeof nullableList>, ("a" | "b")[] | null>>(true);

// ---- anyOf: unions, discriminated by const tags; nullable through a null branch

const shape = fromJsonSchema({
  anyOf: [
    { type: "object", properties: { kind: { const: "circle" }, r: { type: "number" } }, required: ["kind", "r"], additionalProperties: false },
    { type: "object", properties: { kind: { const: "rect" }, w: { type: "number" }, h: { type: "number" } }, required: ["kind", "w", "h"], additionalProperties: false },
  ],
});
type Shape = { kind: "circle"; r: number } | { kind: "rect"; w: number; h: number };
assertType<Equal<Of<typeof shape>, Shape>>(true);

const maybeCount = fromJsonSchema({ anyOf: [{ type: "integer" }, { type: "null" }], description: "count or null" });
assertType<Equal<Of<typeof maybeCount>, number | null>>(true);

// The keywords beside anyOf narrow every branch: here the common `id`, and objects only.
const event = fromJsonSchema({
  type: "object",
  properties: { id: { type: "string" } },
  required: ["id"],
  additionalProperties: false,
  anyOf: [
    { properties: { kind: { const: "start" } }, required: ["kind"] },
    { properties: { kind: { const: "stop" }, code: { type: "integer" } }, required: ["kind", "code"] },
  ],
});
assertType<Equal<Of<typeof event>, { id: string; kind: "start" } | { id: string; kind: "stop"; code: number }>>(true);
declare const ev: Of<typeof event>;
if (ev.kind === "stop") assertType<Equal<typeof ev.code, number>>(true);

// Optional tags stay apart per branch; arrays meet item by item.
const tagged = fromJsonSchema({
  type: "object",
  properties: { id: { type: "string" } },
  required: ["id"],
  additionalProperties: false,
  anyOf: [{ properties: { k: { const: 1 } } }, { properties: { k: { const: 2 } } }],
});
assertType<Equal<Of<typeof tagged>, { id: string; k?: 1 } | { id: string; k?: 2 }>>(true);
const column = fromJsonSchema({ type: "array", anyOf: [{ items: { type: "string" } }, { items: { type: "integer" } }] });
assertType<Equal<Of<typeof column>, string[] | number[]>>(true);
// Both open: other keys stay allowed.
const openTagged = fromJsonSchema({ type: "object", properties: { id: { type: "string" } }, anyOf: [{ properties: { k: { const: 1 } }, required: ["k"] }] });
type OpenTagged = Of<typeof openTagged>;
assertType<Equal<OpenTagged["k"], 1>>(true);
assertType<Equal<OpenTagged["other"], JsonValue>>(true);

// ---- $ref into $defs: between definitions, recursive ones bounded

const order = fromJsonSchema({
  $defs: {
    Money: { type: "object", properties: { amount: { type: "integer" }, currency: { enum: ["EUR", "USD"] } }, required: ["amount", "currency"], additionalProperties: false },
    Line: { type: "object", properties: { sku: { type: "string" }, price: { $ref: "#/$defs/Money" } }, required: ["sku", "price"], additionalProperties: false },
  },
  type: "object",
  properties: { lines: { type: "array", items: { $ref: "#/$defs/Line" } }, total: { $ref: "#/$defs/Money", description: "Sum" } },
  required: ["lines", "total"],
  additionalProperties: false,
});
type Money = { amount: number; currency: "EUR" | "USD" };
assertType<Equal<Of<typeof order>, { lines: { sku: string; price: Money }[]; total: Money }>>(true);

// A nullable reference (zod's .nullable() on a shared schema).
const maybeTotal = fromJsonSchema({
  $defs: { Money: { type: "object", properties: { amount: { type: "integer" } }, required: ["amount"], additionalProperties: false } },
  type: "object",
  properties: { total: { anyOf: [{ $ref: "#/$defs/Money" }, { type: "null" }] } },
  required: ["total"],
  additionalProperties: false,
});
assertType<Equal<Of<typeof maybeTotal>, { total: { amount: number } | null }>>(true);

// The root may itself be a reference; names are JSON Pointer tokens (~1 is "/", ~0 is "~").
const escaped = fromJsonSchema({ $defs: { "a/b~c": { type: "boolean" } }, $ref: "#/$defs/a~1b~0c" });
assertType<Equal<Of<typeof escaped>, boolean>>(true);
// A reference that does not resolve (refused at run time) is JsonValue, not an error here.
const dangling = fromJsonSchema({ $defs: {}, $ref: "#/$defs/Nope" });
assertType<Equal<Of<typeof dangling>, JsonValue>>(true);

const tree = fromJsonSchema({
  $defs: {
    Node: {
      type: "object",
      properties: { label: { type: "string" }, children: { type: "array", items: { $ref: "#/$defs/Node" } } },
      required: ["label", "children"],
      additionalProperties: false,
    },
  },
  $ref: "#/$defs/Node",
});
type Tree = Of<typeof tree>;
declare const t: Tree;
assertType<Equal<typeof t.label, string>>(true);
assertType<Equal<(typeof t.children)[number]["children"][number]["label"], string>>(true);
// Expansion stops after 8 references: the rest is JsonValue (so recursion terminates).
type Deep = Tree["children"][number]["children"][number]["children"][number]["children"][number]["children"][number]["children"][number]["children"][number];
assertType<Equal<Deep["label"], string>>(true);
assertType<Equal<Deep["children"][number], JsonValue>>(true);
// A value of the recursive type is still assignable to it.
const leaf = { label: "leaf", children: [] };
const branch: Tree = { label: "root", children: [{ label: "a", children: [leaf] }, leaf] };
// @ts-expect-error label must be a string at every level
const badBranch: Tree = { label: "root", children: [{ label: 1, children: [] }] };

// Mutually recursive definitions terminate as well.
const mutual = fromJsonSchema({
  $defs: {
    A: { type: "object", properties: { b: { $ref: "#/$defs/B" } }, additionalProperties: false },
    B: { type: "object", properties: { a: { $ref: "#/$defs/A" }, n: { type: "number" } }, additionalProperties: false },
  },
  $ref: "#/$defs/A",
});
declare const m: Of<typeof mutual>;
assertType<Equal<NonNullable<NonNullable<NonNullable<typeof m.b>["a"]>["b"]>["n"], number | undefined>>(true);

// ---- what is not a literal schema is JsonValue; an explicit generic always wins

declare const someSchema: JsonSchema;
const loose = fromJsonSchema(someSchema);
assertType<Equal<typeof loose, AgentSchema<JsonValue>>>(true);
const widened = { type: "string" }; // no `as const`: { type: string }
assertType<Equal<Of<ReturnType<typeof fromJsonSchema<never, typeof widened>>>, JsonValue>>(true);
const declared = { type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false } as const;
assertType<Equal<Of<ReturnType<typeof fromJsonSchema<never, typeof declared>>>, { id: string }>>(true);
assertType<Equal<FromJsonSchema<typeof declared>, { id: string }>>(true);
assertType<Equal<FromJsonSchema<any>, JsonValue>>(true);

type Row = { id: string; online: boolean };
const rows = fromJsonSchema<Row[]>({ type: "array", items: { type: "object" } });
assertType<Equal<typeof rows, AgentSchema<Row[]>>>(true);
const explicitOverInferred = fromJsonSchema<{ id: `dev_${string}` }>({ type: "object", properties: { id: { type: "string" } }, required: ["id"] });
assertType<Equal<Of<typeof explicitOverInferred>, { id: `dev_${string}` }>>(true);

// The schema is the source of truth: its type is not inferred backwards from where it is used.
type Foo = { id: string };
// @ts-expect-error { type: "object" } is any object, not Foo
const notFoo: AgentSchema<Foo> = fromJsonSchema({ type: "object" });
const isFoo: AgentSchema<Foo> = fromJsonSchema({ type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false });

// ---- handlers typed with no annotation

const select = fromJsonSchema({
  type: "object",
  properties: { ids: { type: "array", items: { type: "string" }, maxItems: 50 }, mode: { enum: ["replace", "add"] } },
  required: ["ids"],
  additionalProperties: false,
});
const selected = fromJsonSchema({ type: "object", properties: { count: { type: "integer" } }, required: ["count"], additionalProperties: false });

const selectRows = actionContract({ description: "Select rows", input: select, output: selected, effect: "local-state" });
assertType<Equal<typeof selectRows, AgentActionContract<{ ids: string[]; mode?: "replace" | "add" }, { count: number }>>>(true);
const readShape = observationContract({ description: "The shape", output: shape });
assertType<Equal<typeof readShape, AgentObservationContract<Shape>>>(true);

const view = defineAgentComponentContract({
  type: "demo.view",
  description: "Demo",
  observations: { shape: readShape, tree: observationContract({ description: "Tree", output: tree }) },
  actions: {
    select: selectRows,
    resize: actionContract({
      description: "Resize",
      input: fromJsonSchema({ type: "object", properties: { factor: { type: "number", exclusiveMinimum: 0 } }, required: ["factor"], additionalProperties: false }),
      effect: "local-state",
    }),
  },
});

view.bind({
  observations: {
    shape: { read: () => ({ kind: "circle", r: 2 }) },
    tree: { read: () => branch },
  },
  actions: {
    select: {
      execute: (input) => {
        assertType<Equal<typeof input, { ids: string[]; mode?: "replace" | "add" }>>(true);
        return { count: input.ids.length };
      },
      precondition: (input) => {
        assertType<Equal<typeof input.mode, "replace" | "add" | undefined>>(true);
        return input.ids.length === 0 ? { message: "nothing to select" } : undefined;
      },
    },
    resize: { execute: ({ factor }) => void (factor * 2) },
  },
});

view.bind({
  observations: {
    // @ts-expect-error a circle has r, not w
    shape: { read: () => ({ kind: "circle", w: 2 }) },
    tree: { read: () => branch },
  },
  actions: { select: { execute: () => ({ count: 1 }) }, resize: { execute: () => undefined } },
});

view.bind({
  observations: { shape: { read: () => ({ kind: "rect", w: 1, h: 1 }) }, tree: { read: () => branch } },
  actions: {
    // @ts-expect-error count is an integer, not a string
    select: { execute: async () => ({ count: "1" }) },
    resize: { execute: () => undefined },
  },
});

view.bind({
  observations: { shape: { read: () => ({ kind: "rect", w: 1, h: 1 }) }, tree: { read: () => branch } },
  actions: {
    select: {
      execute: () => ({ count: 1 }),
      // @ts-expect-error mode is "replace" | "add": comparing with "remove" is a mistake
      precondition: (input) => (input.mode === "remove" ? { message: "no" } : undefined),
    },
    resize: { execute: () => undefined },
  },
});

view.bind({
  observations: { shape: { read: () => ({ kind: "rect", w: 1, h: 1 }) }, tree: { read: () => branch } },
  actions: {
    select: { execute: () => ({ count: 1 }) },
    // @ts-expect-error the input has no property `scale`
    resize: { execute: (input) => void input.scale },
  },
});

const reboot = defineAgentProcedureContract({
  id: "domain:demo.reboot",
  description: "Reboot",
  input: fromJsonSchema({ type: "object", properties: { ids: { type: "array", items: { type: "string" } }, force: { type: "boolean", default: false } }, required: ["ids"], additionalProperties: false }),
  output: fromJsonSchema({ type: "object", properties: { scheduled: { type: "integer", minimum: 0 } }, required: ["scheduled"], additionalProperties: false }),
  effect: "mutation",
});
reboot.bind({
  execute: async (input, ctx) => {
    assertType<Equal<typeof input, { ids: string[]; force: boolean }>>(true);
    void ctx.signal;
    return { scheduled: input.force ? input.ids.length : 0 };
  },
  precondition: (input) => (input.ids.length > 50 ? { message: "too many" } : undefined),
});
// @ts-expect-error scheduled is required
reboot.bind({ execute: async () => ({}) });

const exportReport = defineExternalAgentToolContract({
  id: "external:demo.export",
  description: "Export",
  input: fromJsonSchema({ type: "object", properties: { format: { enum: ["csv", "pdf"], default: "csv" }, since: { type: "string", format: "date" } }, additionalProperties: false }),
  output: fromJsonSchema({ anyOf: [{ type: "object", properties: { jobId: { type: "string", format: "uuid" } }, required: ["jobId"], additionalProperties: false }, { type: "null" }] }),
  effect: "external-side-effect",
  confirmation: "required",
});
exportReport.bind({
  execute: (input) => {
    assertType<Equal<typeof input, { format: "csv" | "pdf"; since?: string }>>(true);
    return input.since === undefined ? null : { jobId: "00000000-0000-0000-0000-000000000000" };
  },
});
exportReport.bind({
  // @ts-expect-error the output is { jobId } or null, never a string
  execute: () => "queued",
});

// The raw helper is typed the same way.
action({ description: "Select", input: select, output: selected, effect: "local-state", execute: (input) => ({ count: input.ids.length }) });
// @ts-expect-error the handler returns the wrong shape
action({ description: "Select", input: select, output: selected, effect: "local-state", execute: () => ({ total: 1 }) });

void badBranch;
void notFoo;
void isFoo;
void openValue;
void badOpenValue;
