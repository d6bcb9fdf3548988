// The contracts of packages/core's API suite (test/api/*.test.js). `agent-surface compile` in
// this folder writes ../manifest.json; test/api/helpers.js defines the same contracts in
// JavaScript with the compiler's provenance (what a compiled build runs), so a difference
// between this file and the helper is a semantic-change at registration.
import {
  actionContract,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  defineExternalAgentToolContract,
  emptyObjectSchema,
  fromJsonSchema,
  fromStandardSchema,
  observationContract,
} from "@agent-surface/core";

// A Standard Schema validator (any library's); the compiler never evaluates it.
declare const evenQuantity: never;

const noteList = fromJsonSchema({
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
});

const anything = fromJsonSchema({ description: "Any JSON value" });

export const notes = defineAgentComponentContract({
  type: "api.notes",
  description: "The notes list",
  meta: { area: "notes" },
  tags: ["notes"],
  observations: {
    list: observationContract({ description: "The notes on screen", output: noteList }),
    raw: observationContract({ description: "Whatever the page holds", output: anything }),
  },
  actions: {
    add: actionContract({
      description: "Adds a note",
      input: fromJsonSchema({
        type: "object",
        properties: {
          text: { type: "string", minLength: 1, maxLength: 40 },
          tag: { type: "string", enum: ["work", "home", "misc"], default: "misc" },
          due: { type: "string", format: "date" },
        },
        required: ["text"],
        additionalProperties: false,
      }),
      output: fromJsonSchema({ type: "object", properties: { id: { type: "string", pattern: "^n[0-9]+$" } }, required: ["id"], additionalProperties: false }),
      effect: "local-state",
      audit: "full",
    }),
    order: actionContract({
      description: "Orders a quantity of paper",
      input: fromStandardSchema(evenQuantity, {
        jsonSchema: {
          type: "object",
          properties: { quantity: { type: "integer", minimum: 1, maximum: 100 } },
          required: ["quantity"],
          additionalProperties: false,
        },
      }),
      effect: "local-state",
    }),
    remove: actionContract({
      description: "Deletes a note",
      input: fromJsonSchema({ type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false }),
      effect: "local-state",
      reversible: false,
      confirmation: "required",
    }),
    work: actionContract({ description: "Does some work that takes time", input: emptyObjectSchema, effect: "local-state" }),
    produce: actionContract({ description: "Returns whatever the page computes", input: emptyObjectSchema, output: anything, effect: "local-state" }),
    open: actionContract({
      description: "Opens a page",
      input: fromJsonSchema({ type: "object", properties: { path: { type: "string", minLength: 1 } }, required: ["path"], additionalProperties: false }),
      effect: "navigation",
    }),
  },
});

export const panel = defineAgentComponentContract({
  type: "api.panel",
  description: "A side panel",
  priority: 10,
  observations: {
    state: observationContract({
      description: "Whether the panel is open",
      output: fromJsonSchema({ type: "object", properties: { open: { type: "boolean" } }, required: ["open"], additionalProperties: false }),
    }),
  },
  actions: {
    toggle: actionContract({ description: "Opens or closes the panel", input: emptyObjectSchema, effect: "local-state", idempotent: false }),
  },
});

export const alpha = defineAgentComponentContract({
  type: "api.alpha",
  description: "A component that sorts before the notes",
  origin: "third-party",
  actions: {
    ping: actionContract({ description: "Answers pong", input: emptyObjectSchema, effect: "local-state" }),
  },
});

export const purge = defineAgentProcedureContract({
  id: "domain:api.purge",
  description: "Deletes every note on the server",
  input: emptyObjectSchema,
  effect: "destructive",
});

export const fetchNote = defineAgentProcedureContract({
  id: "domain:api.fetchNote",
  description: "Fetches a note from the server",
  input: fromJsonSchema({ type: "object", properties: { id: { type: "string" } }, required: ["id"], additionalProperties: false }),
  output: fromJsonSchema({ type: "object", properties: { text: { type: "string" } }, required: ["text"], additionalProperties: false }),
  effect: "read",
});

export const exportNotes = defineExternalAgentToolContract({
  id: "external:api.export",
  description: "Exports the notes to a file",
  input: fromJsonSchema({ type: "object", properties: { format: { type: "string", enum: ["csv", "json"] } }, required: ["format"], additionalProperties: false }),
  output: fromJsonSchema({ type: "object", properties: { bytes: { type: "integer" } }, required: ["bytes"], additionalProperties: false }),
  effect: "external-side-effect",
  confirmation: "required",
});

export const lookup = defineExternalAgentToolContract({
  id: "external:api.lookup",
  description: "Looks a word up in a dictionary",
  input: fromJsonSchema({ type: "object", properties: { word: { type: "string", minLength: 1 } }, required: ["word"], additionalProperties: false }),
  effect: "read",
});

// Shares its suffix with view:api.alpha.ping (duplicateSuffixPolicy).
export const alphaPing = defineAgentProcedureContract({
  id: "domain:api.alpha.ping",
  description: "Pings the server",
  input: emptyObjectSchema,
  effect: "read",
});
