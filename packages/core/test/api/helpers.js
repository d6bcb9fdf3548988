// The API suite's contracts (app/src/contracts.ts) as compiled code defines them: the same
// definitions, written out in JavaScript, with the compiler's provenance `{ id, contractHash }`
// from ../manifest.json passed as each macro's extra last argument (what the Vite plugin's
// transform injects). Registering one of them proves the definition equals the manifest's.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as core from "../../dist/index.js";

const {
  actionContract,
  createAgentSurfaceRegistry,
  createCapabilityAuthority,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  defineExternalAgentToolContract,
  emptyObjectSchema,
  fromJsonSchema,
  fromStandardSchema,
  observationContract,
} = core;

export { core };

const here = dirname(fileURLToPath(import.meta.url));
export const manifestPath = join(here, "manifest.json");
export const appDir = join(here, "app");
/** A fresh parsed copy of the compiled manifest. */
export const readManifest = () => JSON.parse(readFileSync(manifestPath, "utf8"));
export const manifest = readManifest();

/** The compiler's provenance of contract `id`, as it appends it to the macro call. */
export function provenance(id) {
  const c = manifest.contracts.find((x) => x.id === id);
  if (!c) throw new Error(`${id} is not in test/api/manifest.json`);
  return { contractHash: c.contractHash, id };
}

/** A verified authority over the suite's manifest. */
export const authority = createCapabilityAuthority(manifest);

/** Standard Schema validate() calls, for the tests that watch them. */
export const standardCalls = [];

/**
 * `evenQuantity` of the app: a Standard Schema (https://standardschema.dev) written by hand, as a
 * library would provide it. Stricter than its JSON Schema: the quantity must also be even.
 */
export const evenQuantity = {
  "~standard": {
    version: 1,
    vendor: "api-suite",
    validate(value) {
      standardCalls.push(value);
      if (value === null || typeof value !== "object" || Array.isArray(value)) return { issues: [{ message: "expected an object" }] };
      const q = value.quantity;
      if (!Number.isInteger(q)) return { issues: [{ message: "quantity must be an integer", path: ["quantity"] }] };
      if (q % 2 !== 0) return { issues: [{ message: "quantity must be even", path: [{ key: "quantity" }] }] };
      return { value: { quantity: q } };
    },
  },
};

export const schemas = {
  noteList: () =>
    fromJsonSchema({
      type: "object",
      properties: {
        items: {
          type: "array",
          items: {
            type: "object",
            properties: { id: { type: "string" }, text: { type: "string" } },
            required: ["id", "text"],
            additionalProperties: false,
          },
        },
      },
      required: ["items"],
      additionalProperties: false,
    }),
  anything: () => fromJsonSchema({ description: "Any JSON value" }),
  addInput: () =>
    fromJsonSchema({
      type: "object",
      properties: {
        text: { type: "string", minLength: 1, maxLength: 40 },
        tag: { type: "string", enum: ["work", "home", "misc"], default: "misc" },
        due: { type: "string", format: "date" },
      },
      required: ["text"],
      additionalProperties: false,
    }),
  addOutput: () =>
    fromJsonSchema({ type: "object", properties: { id: { type: "string", pattern: "^n[0-9]+$" } }, required: ["id"], additionalProperties: false }),
  orderInput: () =>
    fromStandardSchema(evenQuantity, {
      jsonSchema: {
        type: "object",
        properties: { quantity: { type: "integer", minimum: 1, maximum: 100 } },
        required: ["quantity"],
        additionalProperties: false,
      },
    }),
  idInput: () => fromJsonSchema({ type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false }),
  pathInput: () =>
    fromJsonSchema({ type: "object", properties: { path: { type: "string", minLength: 1 } }, required: ["path"], additionalProperties: false }),
  panelState: () =>
    fromJsonSchema({ type: "object", properties: { open: { type: "boolean" } }, required: ["open"], additionalProperties: false }),
  textOutput: () =>
    fromJsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false }),
  exportInput: () =>
    fromJsonSchema({ type: "object", properties: { format: { type: "string", enum: ["csv", "json"] } }, required: ["format"], additionalProperties: false }),
  exportOutput: () => fromJsonSchema({ type: "object", properties: { bytes: { type: "integer" } }, required: ["bytes"], additionalProperties: false }),
  wordInput: () =>
    fromJsonSchema({ type: "object", properties: { word: { type: "string", minLength: 1 } }, required: ["word"], additionalProperties: false }),
};

/**
 * The definition of `view:api.notes` as authored; `change` edits a copy (for semantic-change
 * tests) before the macro runs.
 */
export function notesDefinition() {
  return {
    type: "api.notes",
    description: "The notes list",
    meta: { area: "notes" },
    tags: ["notes"],
    observations: {
      list: observationContract({ description: "The notes on screen", output: schemas.noteList() }),
      raw: observationContract({ description: "Whatever the page holds", output: schemas.anything() }),
    },
    actions: {
      add: actionContract({ description: "Adds a note", input: schemas.addInput(), output: schemas.addOutput(), effect: "local-state", audit: "full" }),
      order: actionContract({ description: "Orders a quantity of paper", input: schemas.orderInput(), effect: "local-state" }),
      remove: actionContract({
        description: "Deletes a note",
        input: schemas.idInput(),
        effect: "local-state",
        reversible: false,
        confirmation: "required",
      }),
      work: actionContract({ description: "Does some work that takes time", input: emptyObjectSchema, effect: "local-state" }),
      produce: actionContract({ description: "Returns whatever the page computes", input: emptyObjectSchema, output: schemas.anything(), effect: "local-state" }),
      open: actionContract({ description: "Opens a page", input: schemas.pathInput(), effect: "navigation" }),
    },
  };
}

export const notes = defineAgentComponentContract(notesDefinition(), provenance("view:api.notes"));

export const panel = defineAgentComponentContract(
  {
    type: "api.panel",
    description: "A side panel",
    priority: 10,
    observations: { state: observationContract({ description: "Whether the panel is open", output: schemas.panelState() }) },
    actions: { toggle: actionContract({ description: "Opens or closes the panel", input: emptyObjectSchema, effect: "local-state", idempotent: false }) },
  },
  provenance("view:api.panel"),
);

export const alpha = defineAgentComponentContract(
  {
    type: "api.alpha",
    description: "A component that sorts before the notes",
    origin: "third-party",
    actions: { ping: actionContract({ description: "Answers pong", input: emptyObjectSchema, effect: "local-state" }) },
  },
  provenance("view:api.alpha"),
);

export const purge = defineAgentProcedureContract(
  { id: "domain:api.purge", description: "Deletes every note on the server", input: emptyObjectSchema, effect: "destructive" },
  provenance("domain:api.purge"),
);

export const fetchNote = defineAgentProcedureContract(
  { id: "domain:api.fetchNote", description: "Fetches a note from the server", input: schemas.idInput(), output: schemas.textOutput(), effect: "read" },
  provenance("domain:api.fetchNote"),
);

export const exportNotes = defineExternalAgentToolContract(
  {
    id: "external:api.export",
    description: "Exports the notes to a file",
    input: schemas.exportInput(),
    output: schemas.exportOutput(),
    effect: "external-side-effect",
    confirmation: "required",
  },
  provenance("external:api.export"),
);

export const lookup = defineExternalAgentToolContract(
  { id: "external:api.lookup", description: "Looks a word up in a dictionary", input: schemas.wordInput(), effect: "read" },
  provenance("external:api.lookup"),
);

export const alphaPing = defineAgentProcedureContract(
  { id: "domain:api.alpha.ping", description: "Pings the server", input: emptyObjectSchema, effect: "read" },
  provenance("domain:api.alpha.ping"),
);

/** `createAgentSurfaceRegistry` over the suite's authority. */
export function makeRegistry(options = {}) {
  return createAgentSurfaceRegistry({ authority, ...options });
}

/**
 * Handlers for every capability of `view:api.notes`, each overridable by name:
 * `bindNotes({ instanceId: "a", actions: { add: { execute } } })`.
 */
export function bindNotes(overrides = {}) {
  const { observations = {}, actions = {}, ...rest } = overrides;
  return notes.bind({
    ...rest,
    observations: {
      list: { read: () => ({ items: [] }) },
      raw: { read: () => null },
      ...observations,
    },
    actions: {
      add: { execute: () => ({ id: "n1" }) },
      order: { execute: () => undefined },
      remove: { execute: () => undefined },
      work: { execute: () => undefined },
      produce: { execute: () => null },
      open: { execute: () => undefined },
      ...actions,
    },
  });
}

export function bindPanel(overrides = {}) {
  const { observations = {}, actions = {}, ...rest } = overrides;
  return panel.bind({
    ...rest,
    observations: { state: { read: () => ({ open: false }) }, ...observations },
    actions: { toggle: { execute: () => undefined }, ...actions },
  });
}

export function bindAlpha(overrides = {}) {
  const { actions = {}, ...rest } = overrides;
  return alpha.bind({ ...rest, actions: { ping: { execute: () => undefined }, ...actions } });
}

/** Every event a registry dispatches, in order. */
export function record(registry) {
  const events = [];
  const stop = registry.subscribe((e) => events.push(e));
  return { events, stop, types: () => events.map((e) => e.type) };
}

const realSetImmediate = globalThis.setImmediate;

/** Lets queued microtasks and promise chains run (a few real macrotask turns, immune to fake timers). */
export async function settle(turns = 3) {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => realSetImmediate(resolve));
}

/** The AgentSurfaceDefinitionError `f` throws (fails the test when it throws nothing or something else). */
export function definitionError(f) {
  let thrown;
  try {
    f();
  } catch (e) {
    thrown = e;
  }
  if (!(thrown instanceof core.AgentSurfaceDefinitionError)) {
    throw new Error(`expected an AgentSurfaceDefinitionError, got ${thrown === undefined ? "no exception" : String(thrown?.stack ?? thrown)}`);
  }
  return thrown;
}

/** A promise and its resolve/reject. */
export function deferred() {
  let resolve;
  let reject;
  const promise = new Promise((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}
