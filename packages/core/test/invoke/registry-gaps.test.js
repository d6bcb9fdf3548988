// Issue 25 gaps of the registry's pipeline and confirmations: waitFor aborted by its signal
// rejects with an AbortError and leaves the confirmation pending; a call that waited for the
// user and then ran has no error audit record; InvokeOptions of the wrong shape are TypeErrors
// naming the field.
import { describe, expect, it } from "vitest";
import { bindNotes, core, makeRegistry, settle } from "../api/helpers.js";

const remove = (r, extra = {}) => r.invoke({ capabilityId: "view:api.notes.remove", input: { id: "n1" }, ...extra });

describe("confirmations.waitFor with a signal", () => {
  it("rejects with an AbortError when the signal aborts (already, or while waiting); the confirmation stays pending and resolvable", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const id = (await remove(r)).error.details.confirmationId;
    const controller = new AbortController();
    const waiting = r.confirmations.waitFor(id, { signal: controller.signal });
    await settle();
    controller.abort();
    const e = await waiting.catch((x) => x);
    expect(e).toBeInstanceOf(DOMException);
    expect(e.name).toBe("AbortError");
    await expect(r.confirmations.waitFor(id, { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    expect(r.confirmations.pending().map((p) => p.confirmationId)).toEqual([id]);
    const later = r.confirmations.waitFor(id);
    r.confirmations.resolve(id, { approved: true });
    expect(await later).toBe("approved");
    expect(await r.confirmations.waitFor("cnf_unknown")).toBe("expired");
    r.dispose();
  });
});

describe("audit of a call that waited for the user", () => {
  it("the CONFIRMATION_REQUIRED step is recorded as confirmation-required, the run as ok: no error record", async () => {
    const records = [];
    const r = makeRegistry({ audit: { record: (x) => records.push(x) } });
    r.register(bindNotes());
    const asked = await remove(r, { invocationId: "rm" });
    const { confirmationId } = asked.error.details;
    r.confirmations.resolve(confirmationId, { approved: true });
    expect((await remove(r, { invocationId: "rm", confirmationId })).status).toBe("ok");
    expect(records.map((x) => [x.status, x.code])).toEqual([
      ["confirmation-required", "CONFIRMATION_REQUIRED"],
      ["ok", null],
    ]);
    r.dispose();
  });
});

describe("InvokeOptions of the wrong shape", () => {
  it("are TypeErrors naming the field (nested arrays included)", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    const req = { capabilityId: "view:api.notes.work", input: {} };
    await expect(r.invoke(req, [])).rejects.toThrow(TypeError);
    await expect(r.invoke(req, { consumer: [] })).rejects.toThrow(/consumer/);
    await expect(r.invoke(req, { consumer: { id: "a", kind: "test", grants: "all" } })).rejects.toThrow(/consumer/);
    await expect(r.invoke(req, { signal: {} })).rejects.toThrow(/signal/);
    await expect(r.invoke(req, { timeoutMs: 1.5 })).rejects.toThrow(/timeoutMs/);
    await expect(r.invoke({ ...req, invocationId: 7 })).rejects.toThrow(/invocationId/);
    expect((await r.invoke(req, { consumer: null, signal: undefined })).status).toBe("ok");
    r.dispose();
  });

  it("input: null is no input (the defaults of an empty object), as natively", async () => {
    const r = makeRegistry();
    r.register(bindNotes());
    expect((await r.invoke({ capabilityId: "view:api.notes.work", input: null })).status).toBe("ok");
    r.dispose();
    expect(core).toBeDefined();
  });
});
