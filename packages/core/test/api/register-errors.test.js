// Spec "Registry" (register's contract with its caller) and "Contract, binding, and authority":
// register throws AgentSurfaceDefinitionError with a machine-readable `code` for every binding
// the authority cannot vouch for — raw, inert, unknown, stale (hash), semantically changed — and
// for structural defects of the binding itself, in every environment, changing nothing.
import { describe, expect, it } from "vitest";
import { bindNotes, bindPanel, core, definitionError, makeRegistry, notesDefinition, provenance, record, settle } from "./helpers.js";

const { action, actionContract, defineAgentComponent, defineAgentComponentContract, defineAgentProcedureContract, emptyObjectSchema } = core;

const handlers = () => ({
  observations: { list: { read: () => ({ items: [] }) }, raw: { read: () => null } },
  actions: Object.fromEntries(["add", "order", "remove", "work", "produce", "open"].map((n) => [n, { execute: () => undefined }])),
});
/** view:api.notes with the compiler's provenance and `edit` applied to its definition. */
const changedNotes = (edit) => {
  const def = notesDefinition();
  edit(def);
  return defineAgentComponentContract(def, provenance("view:api.notes"));
};
const purgeDefinition = (changes = {}) => ({ id: "domain:api.purge", description: "Deletes every note on the server", input: emptyObjectSchema, effect: "destructive", ...changes });

const cases = [
  [
    "raw-definition",
    "a defineAgentComponent definition (no compiler proof)",
    () =>
      defineAgentComponent({
        type: "api.notes",
        description: "The notes list",
        actions: { work: action({ description: "Does some work that takes time", input: emptyObjectSchema, effect: "local-state", execute: () => undefined }) },
      }),
    "view:api.notes",
  ],
  ["inert-contract", "a contract without provenance (not compiled)", () => defineAgentComponentContract(notesDefinition()).bind(handlers()), "view:api.notes"],
  [
    "unknown-contract",
    "a contract this manifest does not contain",
    () => defineAgentComponentContract({ ...notesDefinition(), type: "api.archive" }, { id: "view:api.archive", contractHash: provenance("view:api.notes").contractHash }).bind(handlers()),
    "view:api.archive",
  ],
  [
    "hash-mismatch",
    "a contract compiled as another version (stale manifest)",
    () => defineAgentComponentContract(notesDefinition(), { id: "view:api.notes", contractHash: `blake3:${"1".repeat(64)}` }).bind(handlers()),
    "view:api.notes",
  ],
  ["semantic-change", "a changed description", () => changedNotes((d) => (d.description = "All the notes")).bind(handlers()), "view:api.notes"],
  [
    "semantic-change",
    "a changed effect",
    () =>
      changedNotes((d) => (d.actions = { ...d.actions, work: actionContract({ description: "Does some work that takes time", input: emptyObjectSchema, effect: "navigation" }) })).bind(handlers()),
    "view:api.notes",
  ],
  [
    "semantic-change",
    "a changed confirmation",
    () =>
      changedNotes((d) => (d.actions = { ...d.actions, remove: actionContract({ description: "Deletes a note", input: d.actions.remove.input, effect: "local-state", reversible: false }) })).bind(handlers()),
    "view:api.notes",
  ],
  [
    "semantic-change",
    "a changed input schema",
    () =>
      changedNotes((d) => (d.actions = { ...d.actions, work: actionContract({ description: "Does some work that takes time", input: core.fromJsonSchema({ type: "object" }), effect: "local-state" }) })).bind(handlers()),
    "view:api.notes",
  ],
  ["semantic-change", "changed contract meta", () => changedNotes((d) => (d.meta = { area: "archive" })).bind(handlers()), "view:api.notes"],
  ["semantic-change", "a changed priority", () => changedNotes((d) => (d.priority = 3)).bind(handlers()), "view:api.notes"],
  ["semantic-change", "changed tags", () => changedNotes((d) => (d.tags = [])).bind(handlers()), "view:api.notes"],
  [
    "semantic-change",
    "an observation removed from the definition",
    () => {
      const c = changedNotes((d) => delete d.observations.raw);
      const h = handlers();
      delete h.observations.raw;
      return c.bind(h);
    },
    "view:api.notes",
  ],
  [
    "inert-contract",
    "a referenced procedure without provenance",
    () => bindPanel({ procedures: [defineAgentProcedureContract(purgeDefinition()).bind({})] }),
    "domain:api.purge",
  ],
  [
    "hash-mismatch",
    "a referenced procedure compiled as another version",
    () => bindPanel({ procedures: [defineAgentProcedureContract(purgeDefinition(), { id: "domain:api.purge", contractHash: `blake3:${"2".repeat(64)}` }).bind({})] }),
    "domain:api.purge",
  ],
  [
    "semantic-change",
    "a referenced procedure whose effect changed",
    () => bindPanel({ procedures: [defineAgentProcedureContract(purgeDefinition({ effect: "mutation" }), provenance("domain:api.purge")).bind({})] }),
    "domain:api.purge",
  ],
  ["binding", "binding meta differing from the contract's", () => bindNotes({ meta: { area: "archive" } }), "view:api.notes"],
  ["binding", "a malformed parent", () => bindNotes({ parent: "api.panel" }), "view:api.notes"],
  ["binding", "a negative timeout", () => bindNotes({ actions: { work: { execute: () => undefined, timeoutMs: -1 } } }), "view:api.notes"],
  ["binding", "a non-string unavailableReason", () => bindNotes({ actions: { work: { execute: () => undefined, unavailableReason: 7 } } }), "view:api.notes"],
  ["binding", "a procedures entry that is not a procedure binding", () => bindPanel({ procedures: [core.defineAgentProcedureContract] }), "view:api.panel"],
  ["binding", "something that is not a binding at all", () => 42, null],
  ["invalid-policy", "a policy without a name", () => bindNotes({ policies: [{ authorize: () => "allow" }] }), "view:api.notes"],
  ["invalid-policy", "a capability policy whose phase is not a function", () => bindNotes({ actions: { work: { execute: () => undefined, policies: [{ name: "p", invoke: "allow" }] } } }), "view:api.notes"],
];

describe("register refuses what the authority cannot vouch for", () => {
  for (const [code, what, make, contract] of cases) {
    it(`${code}: ${what}`, async () => {
      for (const environment of ["production", "development", "test"]) {
        const r = makeRegistry({ environment });
        const events = record(r);
        const e = definitionError(() => r.register(make()));
        expect(e.code, environment).toBe(code);
        expect(e.contract).toBe(contract);
        expect(e.name).toBe("AgentSurfaceDefinitionError");
        // nothing changed: no version step, no event, nothing in the snapshot
        expect(r.getVersion()).toBe("0");
        expect(r.snapshot().components).toEqual([]);
        await settle(1);
        expect(events.events).toEqual([]);
        r.dispose();
      }
    });
  }

  it("the semantic-change message names the JSON pointer that differs", () => {
    const r = makeRegistry();
    expect(definitionError(() => r.register(changedNotes((d) => (d.description = "x")).bind(handlers()))).message).toMatch(/\/description/);
    expect(
      definitionError(() =>
        r.register(changedNotes((d) => (d.actions = { ...d.actions, work: actionContract({ description: "Does some work that takes time", input: emptyObjectSchema, effect: "navigation" }) })).bind(handlers())),
      ).message,
    ).toMatch(/\/actions\/work\/effect/);
    r.dispose();
  });

  it("a registry policy that is malformed is refused at construction (invalid-policy)", () => {
    expect(definitionError(() => makeRegistry({ policies: [{ name: "" }] })).code).toBe("invalid-policy");
  });

  it("binding meta equal to the contract's is accepted", () => {
    const r = makeRegistry();
    expect(r.register(bindNotes({ meta: { area: "notes" } })).status).toBe("active");
    r.dispose();
  });

  it("registry limits stricter than the manifest's make a compiled contract invalid (code invalid)", () => {
    const r = makeRegistry({ limits: { maxComponentDescription: 5 } });
    const e = definitionError(() => r.register(bindNotes()));
    expect(e.code).toBe("invalid");
    expect(e.message).toMatch(/\/description/);
    r.dispose();
  });

  it("register on a disposed registry throws (code disposed)", () => {
    const r = makeRegistry();
    r.dispose();
    expect(definitionError(() => r.register(bindNotes())).code).toBe("disposed");
  });

  it("a refused registration leaves the next one unaffected", () => {
    const r = makeRegistry();
    definitionError(() => r.register(defineAgentComponentContract(notesDefinition()).bind(handlers())));
    const h = r.register(bindNotes());
    expect(h.status).toBe("active");
    expect(r.getVersion()).toBe("1");
    r.dispose();
  });
});
