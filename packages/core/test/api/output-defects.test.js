// Spec "Serialization rules" + issue 16 (development output defects): functions, symbols,
// bigints, cycles, non-finite numbers and holes in a handler's output are defects. In every
// environment the invocation settles EXECUTION_FAILED with a safe message; in development the
// defect is reported with console.error naming the JSON pointer of the bad value; invoke never
// rejects for it.
import { afterEach, describe, expect, it, vi } from "vitest";
import { bindNotes, makeRegistry } from "./helpers.js";

afterEach(() => {
  vi.restoreAllMocks();
});

const cyclic = () => {
  const v = { a: { b: {} } };
  v.a.b.back = v;
  return v;
};
const defects = [
  ["a function", () => ({ list: [1, () => 1] }), "/list/1", "function"],
  ["a cycle", cyclic, "/a/b/back", "cyclic"],
  ["a bigint", () => ({ total: 10n }), "/total", "bigint"],
  ["a symbol", () => ({ tag: Symbol("t") }), "/tag", "symbol"],
  ["NaN", () => ({ ratio: NaN }), "/ratio", "NaN"],
  ["an array hole", () => [undefined], "/0", "undefined"],
  ["a Map", () => ({ index: new Map() }), "/index", "Map"],
];

function registry(environment, value) {
  const r = makeRegistry({ environment });
  r.register(
    bindNotes({
      actions: { produce: { execute: () => value() } },
      observations: { raw: { read: async () => value() } },
    }),
  );
  return r;
}

describe("output defects", () => {
  for (const [what, value, pointer, kind] of defects) {
    it(`${what}: EXECUTION_FAILED everywhere; console.error names ${pointer} only in development`, async () => {
      const error = vi.spyOn(console, "error").mockImplementation(() => {});
      vi.spyOn(console, "info").mockImplementation(() => {});
      for (const environment of ["production", "test", "development"]) {
        error.mockClear();
        const r = registry(environment, value);
        for (const capabilityId of ["view:api.notes.produce", "view:api.notes.raw"]) {
          const res = await r.invoke({ capabilityId, input: capabilityId.endsWith("produce") ? {} : undefined });
          expect(res, `${environment} ${capabilityId}`).toMatchObject({ status: "error", error: { code: "EXECUTION_FAILED", retry: "never" } });
          expect(JSON.stringify(res)).not.toContain(pointer);
        }
        const lines = error.mock.calls.map((c) => String(c[0]));
        const named = lines.filter((l) => l.includes(`"${pointer}"`));
        if (environment === "development") {
          expect(named, lines.join("\n")).toHaveLength(2);
          expect(named[0]).toContain(kind);
          expect(named[0]).toMatch(/execute of action "produce"/);
          expect(named[1]).toMatch(/read of observation "raw"/);
        } else {
          expect(named, lines.join("\n")).toEqual([]);
        }
        r.dispose();
      }
    });
  }

  it("undefined object properties are not defects (they are stripped)", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const r = registry("development", () => ({ kept: 1, dropped: undefined }));
    expect(await r.invoke({ capabilityId: "view:api.notes.produce", input: {} })).toMatchObject({ status: "ok", output: { kept: 1 } });
    expect(error).not.toHaveBeenCalled();
    r.dispose();
  });

  it("a defect in a precondition failure's details keeps PRECONDITION_FAILED with the message, and is reported in development", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const r = makeRegistry({ environment: "development" });
    r.register(bindNotes({ actions: { add: { execute: () => ({ id: "n1" }), precondition: () => ({ message: "duplicate", details: { at: 1n } }) } } }));
    const res = await r.invoke({ capabilityId: "view:api.notes.add", input: { text: "a" } });
    expect(res.error).toMatchObject({ code: "PRECONDITION_FAILED", message: "duplicate" });
    expect(error.mock.calls.map((c) => String(c[0])).join("\n")).toMatch(/"\/details\/at": bigint/);
    r.dispose();
  });
});
