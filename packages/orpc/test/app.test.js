// The generator and the registry, end to end: test/app/src/procedures.ts is what the devices
// contract router gives (agent-surface-orpc --check), the compiler compiles it into the committed
// manifest (agent-surface compile --check), and a registry from that manifest forwards the panel's
// procedures to a real oRPC server through createORPCProcedureExecutor.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import * as core from "@agent-surface/core";
import { oc as ocV2 } from "@orpc/contract-v2";
import { oc } from "@orpc/contract";
import * as z from "zod";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { createORPCProcedureExecutor } from "@agent-surface/orpc";
import { checkProcedureContracts, listORPCProcedures, procedureContractsSource } from "@agent-surface/orpc/contracts";
import { contractsOf } from "../../core/test/scenarios/runner.js";
import { devicesContract } from "./app/contract.js";
import { devicesContract as devicesContractV2 } from "./app/contract-v2.js";
import config from "./app/orpc.config.js";
import { startDevicesServer } from "./server.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const appDir = path.join(here, "app");
const cli = path.join(here, "../dist/cli.js");
const generated = path.join(appDir, "src/procedures.ts");
const manifest = JSON.parse(readFileSync(path.join(appDir, "agent-surface.manifest.json"), "utf8"));
/** The compiler under test: $AGENT_SURFACE_BINARY (scripts/test-all.sh sets it), else the workspace's debug build. */
const binary = process.env.AGENT_SURFACE_BINARY ?? path.resolve(here, "../../../target/debug/agent-surface");

describe("the generator (agent-surface-orpc)", () => {
  test("the committed procedures.ts is what the router gives (--check exits 0); a stale one exits 1 naming the line", () => {
    const ok = spawnSync(process.execPath, [cli, path.join(appDir, "orpc.config.js"), "--check"], { encoding: "utf8" });
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    // The server's schema changes (50 → 20 devices at once): the page's contract is stale.
    const tmp = mkdtempSync(path.join(tmpdir(), "orpc-contracts-"));
    try {
      writeFileSync(
        path.join(tmp, "orpc.config.js"),
        [
          `import { defineORPCContracts } from ${JSON.stringify(path.join(here, "../dist/contracts.js"))};`,
          `import base from ${JSON.stringify(path.join(appDir, "orpc.config.js"))};`,
          `import { oc } from ${JSON.stringify(path.join(here, "../node_modules/@orpc/contract/dist/index.mjs"))};`,
          `import * as z from ${JSON.stringify(path.join(here, "../node_modules/zod/index.js"))};`,
          `const ids = z.object({ ids: z.array(z.string().regex(/^dev_[a-z0-9]{6,}$/).describe("A device id such as dev_cam001")).min(1).max(20) });`,
          `export default defineORPCContracts({ ...base, router: { devices: { ...base.router.devices, decommission: oc.input(ids) } }, output: ${JSON.stringify(generated)}, source: "agent-surface-orpc orpc.config.js" });`,
        ].join("\n"),
      );
      const stale = spawnSync(process.execPath, [cli, path.join(tmp, "orpc.config.js"), "--check"], { encoding: "utf8" });
      expect(stale.status).toBe(1);
      expect(stale.stderr).toMatch(/does not match the oRPC contract router \(line 14\):\n {2}expected: +maxItems: 20,\n {2}found: +maxItems: 50,/);
      expect(readFileSync(generated, "utf8")).toMatch(/maxItems: 50,/); // --check writes nothing
      // bad usage and a bad config are exit 2
      expect(spawnSync(process.execPath, [cli], { encoding: "utf8" }).status).toBe(2);
      writeFileSync(path.join(tmp, "empty.js"), "export default 1;\n");
      const bad = spawnSync(process.execPath, [cli, path.join(tmp, "empty.js")], { encoding: "utf8" });
      expect(bad.status).toBe(2);
      expect(bad.stderr).toMatch(/empty\.js: its default export is not the config/);
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test("oRPC 2.0.0-beta's contract router (~orpc.inputSchemas) gives the same contracts as 1.16.1's", () => {
    expect(procedureContractsSource({ ...config, router: devicesContractV2, source: "x" })).toBe(procedureContractsSource({ ...config, router: devicesContract, source: "x" }));
    expect([...listORPCProcedures(devicesContractV2).keys()]).toEqual([...listORPCProcedures(devicesContract).keys()]);
    expect(() => procedureContractsSource({ router: { a: { b: ocV2.input(z.object({ x: z.string() })).input(z.object({ y: z.string() })) } }, procedures: { "a.b": { effect: "read", description: "d" } } })).toThrow(
      /a\.b: 2 input schemas chained/,
    );
  });

  test("descriptions from .route(), ids and names overridable, output absent without .output(); mistakes name the procedure", () => {
    const router = { fleet: { "wipe-all": oc.route({ summary: "Wipe every device." }).input(z.object({ confirm: z.literal(true) })) } };
    const text = procedureContractsSource({ router, procedures: { "fleet.wipe-all": { id: "domain:fleet.wipe", effect: "destructive", exportName: "wipe" } } });
    expect(text).toContain('export const wipe = defineAgentProcedureContract({\n  id: "domain:fleet.wipe",\n  description: "Wipe every device.",');
    expect(text).toContain("const: true");
    expect(text).not.toContain("output:");
    expect(procedureContractsSource({ router, procedures: { "fleet.wipe-all": { effect: "destructive" } } })).toContain("export const fleetWipeAll =");
    expect(() => procedureContractsSource({ router, procedures: { "fleet.wipe": { effect: "read" } } })).toThrow(/no procedure at fleet\.wipe \(it has: fleet\.wipe-all\)/);
    expect(() => procedureContractsSource({ router: devicesContract, procedures: { "devices.crash": { effect: "read" } } })).toThrow(/devices\.crash"\]: no description/);
    // a Date has no JSON Schema: zod's own converter says so, and the procedure is named
    expect(() => procedureContractsSource({ router: devicesContract, procedures: { "devices.lastSeen": { effect: "read", description: "d" } } })).toThrow(/Date/);
    // a schema without Standard JSON Schema: pass the library's converter
    const plain = { "~standard": { version: 1, vendor: "handmade", validate: (v) => ({ value: v }) } };
    const r = { x: { y: oc.input(plain) } };
    expect(() => procedureContractsSource({ router: r, procedures: { "x.y": { effect: "read", description: "d" } } })).toThrow(/x\.y: the input schema \(vendor handmade\) has no Standard JSON Schema converter/);
    const seen = [];
    const converted = procedureContractsSource({
      router: r,
      procedures: { "x.y": { effect: "read", description: "d" } },
      toJsonSchema: (schema, io, p) => (seen.push([schema === plain, io, p]), { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object" }),
    });
    expect(seen).toEqual([[true, "input", ["x", "y"]]]);
    expect(converted).toContain('input: fromJsonSchema({\n    type: "object",\n  }),');
    expect(checkProcedureContracts({ router: r, procedures: { "x.y": { effect: "read", description: "d" } }, toJsonSchema: () => ({ type: "object" }) }, converted)).toEqual({ ok: true });
  });
});

describe("the compiled page: a registry forwarding the panel's procedures to the oRPC server", () => {
  let server;
  let registry;
  const logs = [];
  const consumer = { kind: "embedded", id: "assistant" };
  beforeAll(async () => {
    server = await startDevicesServer(1);
    const contracts = contractsOf(core, manifest);
    // The registry logs a failed handler's message with console.error (no log hook in its options).
    vi.spyOn(console, "error").mockImplementation((...args) => logs.push(args.join(" ")));
    registry = core.createAgentSurfaceRegistry({ authority: core.createCapabilityAuthority(manifest), environment: "test" });
    registry.register(
      contracts.get("view:devices.panel").bind({
        observations: { readDevices: { read: () => ({ ids: [...server.state.devices] }) } },
        // Bound without `execute`: forwarded to the registry's procedure executor.
        procedures: ["domain:devices.decommission", "domain:devices.reboot", "domain:devices.status", "domain:devices.slow"].map((id) => contracts.get(id).bind({})),
      }),
    );
    registry.setProcedureExecutor(createORPCProcedureExecutor({ url: server.url }));
  });
  afterAll(() => {
    vi.restoreAllMocks();
    registry?.dispose();
    return server?.close();
  });

  test("the committed manifest is what the compiler makes of test/app (agent-surface compile --check)", () => {
    if (!existsSync(binary)) throw new Error(`${binary} is missing: cargo build --bin agent-surface, or set AGENT_SURFACE_BINARY`);
    execFileSync(binary, ["compile", appDir, "--check"], { stdio: "pipe" });
    expect(manifest.contracts.map((c) => c.id)).toEqual(["domain:devices.decommission", "domain:devices.reboot", "domain:devices.slow", "domain:devices.status", "view:devices.panel"]);
    // the server's schema, as the page validates it
    expect(manifest.contracts[0].inputSchema.properties.ids).toMatchObject({ maxItems: 50, items: { pattern: "^dev_[a-z0-9]{6,}$" } });
  });

  test("a read and a mutation reach the server once, with the invocation id as idempotency-key", async () => {
    const status = await registry.invoke({ capabilityId: "domain:devices.status", input: { id: "dev_cam001" } }, { consumer });
    expect(status).toMatchObject({ status: "ok", output: { id: "dev_cam001", online: true, note: null, tags: ["a", "b"] } });
    const reboot = await registry.invoke({ invocationId: "call_reboot_1", capabilityId: "domain:devices.reboot", input: { ids: ["dev_cam002"] } }, { consumer });
    expect(reboot).toMatchObject({ status: "ok", output: { scheduled: 1 } });
    expect(server.state.runs.reboot).toBe(1);
    expect(server.state.seen.at(-1)).toMatchObject({ name: "reboot", key: reboot.invocationId, input: { ids: ["dev_cam002"] } });
  });

  test("input the server's schema refuses is INVALID_INPUT in the page: nothing is sent", async () => {
    const before = server.state.seen.length;
    const bad = await registry.invoke({ capabilityId: "domain:devices.reboot", input: { ids: ["cam-1"] } }, { consumer });
    expect(bad).toMatchObject({ status: "error", error: { code: "INVALID_INPUT" } });
    const many = await registry.invoke({ capabilityId: "domain:devices.reboot", input: { ids: Array.from({ length: 51 }, (_, i) => `dev_cam${String(i).padStart(3, "0")}`) } }, { consumer });
    expect(many).toMatchObject({ status: "error", error: { code: "INVALID_INPUT" } });
    expect(server.state.seen.length).toBe(before);
  });

  test("decommission: confirmation in the page, then one run on the server; a server error is EXECUTION_FAILED and its words appear nowhere", async () => {
    const ask = await registry.invoke({ capabilityId: "domain:devices.decommission", input: { ids: ["dev_pr1nt1"] } }, { consumer });
    expect(ask).toMatchObject({ status: "error", error: { code: "CONFIRMATION_REQUIRED" } });
    expect(server.state.runs.decommission).toBe(0);
    const { confirmationId } = ask.error.details;
    registry.confirmations.resolve(confirmationId, { approved: true });
    const done = await registry.invoke({ capabilityId: "domain:devices.decommission", input: { ids: ["dev_pr1nt1"] }, confirmationId }, { consumer });
    expect(done).toMatchObject({ status: "ok" });
    expect(done.output ?? null).toBeNull();
    expect(server.state.runs.decommission).toBe(1);
    expect(server.state.devices.has("dev_pr1nt1")).toBe(false);

    // The same device again: the server answers NOT_FOUND with its own (secret) message.
    const ask2 = await registry.invoke({ capabilityId: "domain:devices.decommission", input: { ids: ["dev_pr1nt1"] } }, { consumer });
    registry.confirmations.resolve(ask2.error.details.confirmationId, { approved: true });
    const failed = await registry.invoke({ capabilityId: "domain:devices.decommission", input: { ids: ["dev_pr1nt1"] }, confirmationId: ask2.error.details.confirmationId }, { consumer });
    expect(failed).toMatchObject({ status: "error", error: { code: "EXECUTION_FAILED" } });
    expect(server.state.runs.decommission).toBe(1);
    expect(JSON.stringify(failed)).not.toMatch(/secret|acme-internal|NOT_FOUND/);
    const logged = logs.join("\n");
    expect(logged).toMatch(/domain:devices\.decommission failed: procedure domain:devices\.decommission: POST \/rpc\/devices\/decommission answered the oRPC error NOT_FOUND \(HTTP 404\)/);
    expect(logged).not.toMatch(/secret|acme-internal/);
  });

  test("the registry's timeout aborts the request: TIMEOUT in the page, the server's procedure sees its signal abort", async () => {
    const result = await registry.invoke({ capabilityId: "domain:devices.slow", input: {} }, { consumer, timeoutMs: 300 });
    expect(result).toMatchObject({ status: "error", error: { code: "TIMEOUT" } });
    expect(server.state.runs.slow).toBe(1);
    await expect.poll(() => server.state.aborted).toEqual(["slow"]);
  });
});
