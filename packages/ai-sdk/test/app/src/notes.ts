// The AI SDK adapter's fixture app: a notes board (an observation and two view actions) that
// references two domain procedures, one of them destructive. Compiled by the agent-surface
// compiler into ../agent-surface.manifest.json (committed; test/manifest.test.js checks it is
// current); the tests build the same contracts from that manifest, with its provenance.
import {
  actionContract,
  defineAgentComponentContract,
  defineAgentProcedureContract,
  fromJsonSchema,
  observationContract,
} from "@agent-surface/core";

const NOTE_ID = { type: "string", pattern: "^n[0-9]+$", description: "A note id such as n1" } as const;

const NoteIds = fromJsonSchema({
  type: "object",
  properties: { ids: { type: "array", items: NOTE_ID, minItems: 1, maxItems: 20, uniqueItems: true } },
  required: ["ids"],
  additionalProperties: false,
});

export const notesBoardContract = defineAgentComponentContract({
  type: "notes.board",
  description: "The user's notes board: read the notes, add one, pick the one shown in full.",
  observations: {
    readNotes: observationContract({
      description: "Every note on the board, oldest first, and which one is open.",
      output: fromJsonSchema({
        type: "object",
        properties: {
          notes: {
            type: "array",
            maxItems: 100,
            items: {
              type: "object",
              properties: { id: NOTE_ID, text: { type: "string" }, archived: { type: "boolean" } },
              required: ["id", "text", "archived"],
              additionalProperties: false,
            },
          },
          open: { type: ["string", "null"] },
        },
        required: ["notes", "open"],
        additionalProperties: false,
      }),
    }),
  },
  actions: {
    addNote: actionContract({
      description: "Add a note at the end of the board.",
      input: fromJsonSchema({
        type: "object",
        properties: { text: { type: "string", minLength: 1, maxLength: 280 } },
        required: ["text"],
        additionalProperties: false,
      }),
      output: fromJsonSchema({
        type: "object",
        properties: { id: NOTE_ID },
        required: ["id"],
        additionalProperties: false,
      }),
      effect: "local-state",
    }),
    openNote: actionContract({
      description: "Show one note in full.",
      input: fromJsonSchema({
        type: "object",
        properties: { id: NOTE_ID },
        required: ["id"],
        additionalProperties: false,
      }),
      effect: "local-state",
      idempotent: true,
    }),
  },
});

export const archiveNotes = defineAgentProcedureContract({
  id: "domain:notes.archive",
  description: "Archive notes on the server. They can be restored.",
  input: NoteIds,
  effect: "mutation",
  reversible: true,
});

export const purgeNotes = defineAgentProcedureContract({
  id: "domain:notes.purge",
  description: "Delete notes for good on the server. Cannot be undone.",
  input: NoteIds,
  effect: "destructive",
});
