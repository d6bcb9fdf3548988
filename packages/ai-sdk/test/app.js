// The fixture app (test/app: src/notes.ts compiled into agent-surface.manifest.json) as its
// compiled code would run it: the contracts built by the macros with the compiler's provenance
// as their extra last argument (the core scenario runner's contractsOf), a registry from the
// verified authority, the board bound to live state and its two procedures to counting handlers.
import { readFileSync } from "node:fs";
import * as core from "@agent-surface/core";
import { contractsOf } from "../../core/test/scenarios/runner.js";

export const manifestPath = new URL("./app/agent-surface.manifest.json", import.meta.url);
export const manifest = JSON.parse(readFileSync(manifestPath, "utf8"));

export function createNotesApp({ consumer = { kind: "embedded", id: "assistant" }, toolset = {} } = {}) {
  const contracts = contractsOf(core, manifest);
  const state = {
    notes: [
      { id: "n1", text: "call the plumber", archived: false },
      { id: "n2", text: "renew the passport", archived: false },
    ],
    open: null,
    next: 3,
    calls: { readNotes: 0, addNote: 0, openNote: 0, archive: 0, purge: 0 },
    purged: [],
    /** Makes the archive handler throw. */
    failArchive: false,
  };
  const registry = core.createAgentSurfaceRegistry({ authority: core.createCapabilityAuthority(manifest), environment: "test" });
  const handle = registry.register(
    contracts.get("view:notes.board").bind({
      observations: {
        readNotes: {
          read: () => {
            state.calls.readNotes += 1;
            return { notes: state.notes, open: state.open };
          },
        },
      },
      actions: {
        addNote: {
          execute: ({ text }) => {
            state.calls.addNote += 1;
            const id = `n${state.next++}`;
            state.notes = [...state.notes, { id, text, archived: false }];
            return { id };
          },
        },
        openNote: {
          execute: ({ id }) => {
            state.calls.openNote += 1;
            state.open = id;
          },
          when: () => state.notes.length > 0,
          unavailableReason: "the board is empty",
        },
      },
      procedures: [
        contracts.get("domain:notes.archive").bind({
          execute: ({ ids }) => {
            state.calls.archive += 1;
            if (state.failArchive) throw new Error("the server is down");
            state.notes = state.notes.map((n) => (ids.includes(n.id) ? { ...n, archived: true } : n));
            return null;
          },
        }),
        contracts.get("domain:notes.purge").bind({
          execute: ({ ids }, ctx) => {
            state.calls.purge += 1;
            if (ctx.confirmation === undefined) throw new Error("purged without confirmation evidence");
            state.purged.push(...ids);
            state.notes = state.notes.filter((n) => !ids.includes(n.id));
            return null;
          },
        }),
      ],
    }),
  );
  const agentToolset = core.createAgentToolset(registry, { consumer, topology: "embedded", ...toolset });
  return { core, registry, handle, state, toolset: agentToolset };
}
