// The raw definition helpers: inert identity helpers that return frozen copies and carry no
// provenance (a published registry rejects what they build).
import { describe, expect, it } from "vitest";
import { action, AgentSurfaceDefinitionError, defineAgentComponent, defineAgentProcedureContract, emptyObjectSchema, fromJsonSchema, observation } from "../dist/index.js";

const HASH = `blake3:${"ab".repeat(32)}`;
const rows = fromJsonSchema({ type: "array", items: { type: "string" } });

describe("observation / action", () => {
  it("return a frozen copy with the same fields and handler references; the argument stays the caller's", () => {
    const read = () => ["a"];
    const def = { description: "Rows", output: rows, read, timeoutMs: 50 };
    const o = observation(def);
    expect(o).not.toBe(def);
    expect(o).toEqual(def);
    expect(o.read).toBe(read);
    expect(o.output).toBe(rows);
    expect(Object.isFrozen(o)).toBe(true);
    expect(Object.isFrozen(def)).toBe(false);
    def.description = "changed";
    expect(o.description).toBe("Rows");

    const execute = () => undefined;
    const a = action({ description: "Clear", input: emptyObjectSchema, effect: "local-state", execute });
    expect(a.execute).toBe(execute);
    expect(a.effect).toBe("local-state");
    expect(Object.isFrozen(a)).toBe(true);
    expect(() => {
      a.effect = "navigation";
    }).toThrow(TypeError);
  });

  it("carry no provenance, even when a caller passes one", () => {
    const provenance = { id: "view:demo.rows", contractHash: HASH };
    const o = observation({ description: "Rows", output: rows, read: () => [], provenance });
    expect(Object.hasOwn(o, "provenance")).toBe(false);
    const a = action({ description: "Clear", input: emptyObjectSchema, effect: "local-state", execute() {}, provenance });
    expect(Object.hasOwn(a, "provenance")).toBe(false);
  });

  it("refuse what is not a definition object", () => {
    for (const bad of [null, undefined, 1, "x", []]) {
      expect(() => observation(bad)).toThrow(AgentSurfaceDefinitionError);
      expect(() => action(bad)).toThrow(AgentSurfaceDefinitionError);
    }
  });
});

describe("defineAgentComponent", () => {
  const procedure = defineAgentProcedureContract({ id: "domain:demo.reboot", description: "Reboot", input: emptyObjectSchema, effect: "mutation" }).bind({ execute: async () => null });

  it("returns a frozen copy whose capability maps and procedure list are frozen copies too", () => {
    const value = observation({ description: "Rows", output: rows, read: () => [] });
    const clear = action({ description: "Clear", input: emptyObjectSchema, effect: "local-state", execute() {} });
    const internal = { tenant: "t1" };
    const def = {
      type: "demo.rows",
      description: "Rows",
      instanceId: "main",
      internal,
      observations: { value },
      actions: { clear },
      procedures: [procedure],
    };
    const c = defineAgentComponent(def);
    expect(c).not.toBe(def);
    expect(c).toEqual(def);
    expect(Object.isFrozen(c)).toBe(true);
    for (const part of [c.observations, c.actions, c.procedures]) expect(Object.isFrozen(part)).toBe(true);
    expect(c.observations).not.toBe(def.observations);
    expect(c.actions.clear).toBe(clear);
    expect(c.procedures[0]).toBe(procedure);
    // The caller's objects are neither frozen nor kept: later changes do not reach the copy.
    expect(Object.isFrozen(def.observations)).toBe(false);
    expect(Object.isFrozen(internal)).toBe(false);
    def.observations.extra = value;
    def.procedures.push(procedure);
    expect(Object.keys(c.observations)).toEqual(["value"]);
    expect(c.procedures).toHaveLength(1);
  });

  it("carries no provenance, and optional maps stay absent", () => {
    const c = defineAgentComponent({ type: "demo.shell", description: "Shell", provenance: { id: "view:demo.shell", contractHash: HASH } });
    expect(Object.hasOwn(c, "provenance")).toBe(false);
    expect(Object.hasOwn(c, "observations")).toBe(false);
    expect(Object.hasOwn(c, "verified")).toBe(false);
    expect(c).toEqual({ type: "demo.shell", description: "Shell" });
  });

  it("refuses what is not a definition, and maps or lists of the wrong kind", () => {
    for (const bad of [null, 1, "demo", []]) expect(() => defineAgentComponent(bad)).toThrow(AgentSurfaceDefinitionError);
    expect(() => defineAgentComponent({ type: "demo", description: "x", observations: [] })).toThrow(/observations must be an object/);
    expect(() => defineAgentComponent({ type: "demo", description: "x", actions: null })).toThrow(/actions must be an object/);
    expect(() => defineAgentComponent({ type: "demo", description: "x", procedures: {} })).toThrow(/procedures must be an array/);
  });
});
