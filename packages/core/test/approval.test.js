// @vitest-environment happy-dom
//
// createApprovalGuard: the host policy between the page's Approve button and
// registry.confirmations.resolve(). A call waiting for confirmation (a wait-mode toolset, as
// WebMCP's) runs only when the guard lets the approval through.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as core from "../dist/index.js";
import { createApprovalGuard } from "../dist/approval.js";
import { fixtureManifestPath, readJson } from "./paths.js";
import { createDevicesPage, settle } from "./webmcp-page.js";

const manifest = readJson(fixtureManifestPath);

describe("createApprovalGuard", () => {
  let page;
  let toolset;
  beforeEach(() => {
    page = createDevicesPage(core, manifest);
    toolset = core.createAgentToolset(page.registry, { consumer: { kind: "webmcp", id: "agent" }, confirmations: "wait" });
  });
  afterEach(() => {
    toolset.dispose();
    page.registry.dispose();
  });

  /** Starts a decommission and returns the call and its pending confirmation. */
  const start = async () => {
    const tool = toolset.tools().find((t) => t.name === "domain_devices_decommission");
    const call = tool.execute({ ids: ["dev_bbbbbb"] });
    await settle();
    const [pending] = page.registry.confirmations.pending();
    expect(pending.capabilityId).toBe("domain:devices.decommission");
    return { call, pending };
  };

  it("a person's browser (no automation): the approval goes through and the call runs once", async () => {
    // happy-dom reports navigator.webdriver true (it is a test browser): a person's is false.
    Object.defineProperty(navigator, "webdriver", { configurable: true, get: () => false });
    try {
      const guard = createApprovalGuard(page.registry);
      expect(guard.automated).toBe(false);
      expect(guard.inPageApprovals).toBe(true);
      const { call, pending } = await start();
      expect(await guard.approve(pending.confirmationId)).toEqual({ approved: true });
      expect(await call).toMatchObject({ status: "ok" });
      expect(page.state.decommissionCalls).toBe(1);
    } finally {
      delete navigator.webdriver;
    }
  });

  it("under automation an in-page approval is refused: nothing runs, the confirmation stays pending, a denial still settles it", async () => {
    const guard = createApprovalGuard(page.registry, { automation: () => true });
    expect(guard.automated).toBe(true);
    expect(guard.inPageApprovals).toBe(false);
    const { call, pending } = await start();
    const outcome = await guard.approve(pending.confirmationId);
    expect(outcome).toMatchObject({ approved: false, refused: "automation" });
    expect(outcome.message).toMatch(/under automation/);
    await settle();
    expect(page.state.decommissionCalls).toBe(0);
    expect(page.registry.confirmations.pending().map((p) => p.confirmationId)).toEqual([pending.confirmationId]);
    guard.deny(pending.confirmationId, "not me");
    expect(await call).toMatchObject({ status: "error", error: { code: "CONFIRMATION_DENIED", details: { reason: "not me" } } });
    expect(page.state.decommissionCalls).toBe(0);
  });

  it("navigator.webdriver is read at creation and at each approval; redefining it later does not turn the guard off", async () => {
    Object.defineProperty(navigator, "webdriver", { configurable: true, get: () => true });
    const guard = createApprovalGuard(page.registry);
    Object.defineProperty(navigator, "webdriver", { configurable: true, get: () => false });
    try {
      const { pending } = await start();
      expect(await guard.approve(pending.confirmationId)).toMatchObject({ approved: false, refused: "automation" });
      expect(page.state.decommissionCalls).toBe(0);
      guard.deny(pending.confirmationId);
    } finally {
      delete navigator.webdriver;
    }
  });

  it("the host opts in: underAutomation \"allow\" lets the in-page approval through", async () => {
    const guard = createApprovalGuard(page.registry, { underAutomation: "allow", automation: () => true });
    expect(guard.inPageApprovals).toBe(true);
    const { call, pending } = await start();
    expect(await guard.approve(pending.confirmationId)).toEqual({ approved: true });
    expect(await call).toMatchObject({ status: "ok" });
    expect(page.state.decommissionCalls).toBe(1);
  });

  it("a second channel decides every approval, under automation too; a refusal or a throw runs nothing", async () => {
    const asked = [];
    let answer = false;
    const guard = createApprovalGuard(page.registry, {
      automation: () => true,
      secondChannel: async (request) => {
        asked.push(request.capabilityId);
        if (answer === "throw") throw new Error("device unreachable");
        return answer;
      },
    });
    expect(guard.inPageApprovals).toBe(false);
    const { call, pending } = await start();
    expect(await guard.approve(pending.confirmationId)).toMatchObject({ approved: false, refused: "second-channel" });
    answer = "throw";
    expect(await guard.approve(pending.confirmationId)).toMatchObject({ approved: false, refused: "second-channel" });
    expect(page.state.decommissionCalls).toBe(0);
    answer = true;
    expect(await guard.approve(pending.confirmationId)).toEqual({ approved: true });
    expect(await call).toMatchObject({ status: "ok" });
    expect(page.state.decommissionCalls).toBe(1);
    expect(asked).toEqual(["domain:devices.decommission", "domain:devices.decommission", "domain:devices.decommission"]);
    expect(await guard.approve(pending.confirmationId)).toMatchObject({ approved: false, refused: "settled" });
  });

  it("a confirmation denied while the second channel was asked does not run", async () => {
    let release;
    const guard = createApprovalGuard(page.registry, { secondChannel: () => new Promise((r) => (release = r)) });
    const { call, pending } = await start();
    const outcome = guard.approve(pending.confirmationId);
    await settle();
    guard.deny(pending.confirmationId);
    release(true);
    expect(await outcome).toMatchObject({ approved: false, refused: "settled" });
    expect(await call).toMatchObject({ error: { code: "CONFIRMATION_DENIED" } });
    expect(page.state.decommissionCalls).toBe(0);
  });

  it("rejects bad options", () => {
    expect(() => createApprovalGuard(page.registry, { underAutomation: "sometimes" })).toThrow(TypeError);
    expect(() => createApprovalGuard(page.registry, { secondChanel: () => true })).toThrow(/unknown option "secondChanel"/);
    expect(() => createApprovalGuard(page.registry, { secondChannel: true })).toThrow(TypeError);
  });
});
