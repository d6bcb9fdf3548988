import { spawnSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, test } from "vitest";
import { AgentSurfaceServeError, ServeClient, checkHandshake } from "../src/index.js";
import { binary, exampleDir as fixtureDir } from "./helpers.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const fake = path.join(here, "fake-server.mjs");
const clients = [];

function fakeClient(mode, extra = {}) {
  const c = new ServeClient({ binary: process.execPath, args: [fake, mode], root: here, ...extra });
  clients.push(c);
  return c;
}

function realClient(root = fixtureDir) {
  const c = new ServeClient({ binary: binary(), root });
  clients.push(c);
  return c;
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(cond, ms = 5000) {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 10));
  }
}

afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()));
});

describe("handshake", () => {
  test("the real binary: protocol agent-surface-serve v1, its version and root", async () => {
    const c = realClient();
    const hello = await c.start();
    expect(hello).toMatchObject({ protocol: "agent-surface-serve", protocolVersion: 1, root: fixtureDir });
    expect(hello.binaryVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("a protocol version mismatch is a clear error naming both versions", async () => {
    const c = fakeClient("version-mismatch");
    const err = await c.request("scan").catch((e) => e);
    expect(err).toBeInstanceOf(AgentSurfaceServeError);
    expect(err.code).toBe("protocol-mismatch");
    expect(err.message).toMatch(/protocol mismatch/);
    expect(err.message).toMatch(/speaks "agent-surface-serve" version 1/);
    expect(err.message).toMatch(/agent-surface 9\.9\.9\) speaks "agent-surface-serve" version 2/);
    // Every later request gets the same answer, not a hang.
    await expect(c.request("scan")).rejects.toThrow(/version 2/);
  });

  test("another protocol is refused", async () => {
    const err = await fakeClient("wrong-protocol").request("scan").catch((e) => e);
    expect(err.message).toMatch(/"something-else" version 1/);
  });

  test("no handshake: a timeout error", async () => {
    // Long enough for the fake server's Node to start and write its stderr line on a loaded CI
    // machine (300 ms was not), so the error can be checked to carry that tail.
    const err = await fakeClient("silent", { handshakeTimeoutMs: 3000 }).request("scan").catch((e) => e);
    expect(err.message).toMatch(/sent no agent-surface-serve handshake within 3000 ms/);
    expect(err.message).toMatch(/fake server \(silent\) started/); // the stderr tail
  });

  test("checkHandshake", () => {
    expect(checkHandshake({ protocol: "agent-surface-serve", protocolVersion: 1, binaryVersion: "1.0.0" }, "x")).toBeNull();
    expect(checkHandshake("hello", "x")).toMatch(/did not start with an agent-surface-serve handshake/);
    expect(checkHandshake({ protocol: "agent-surface-serve", protocolVersion: "1" }, "x")).toMatch(/version "1"/);
  });

  test("a missing binary says how the binary is found", async () => {
    const c = new ServeClient({ binary: "/nonexistent/agent-surface", root: here });
    clients.push(c);
    const err = await c.request("scan").catch((e) => e);
    expect(err.code).toBe("binary-not-found");
    expect(err.message).toMatch(/AGENT_SURFACE_BINARY/);
  });
});

describe("requests", () => {
  test("scan and an error response from the real binary", async () => {
    const c = realClient();
    const scan = await c.request("scan");
    expect(scan.complete).toBe(true);
    expect(scan.manifest.contracts).toHaveLength(9);
    // Format 2: where each contract is written comes beside the manifest, never inside it.
    expect(scan.manifest.formatVersion).toBe(2);
    expect(scan.manifest.contracts.every((m) => !("source" in m))).toBe(true);
    expect(Object.keys(scan.locations).sort()).toEqual(scan.manifest.contracts.map((m) => m.id).sort());
    expect(scan.locations["view:devices.table"]).toMatchObject({ file: "src/components/DevicesTable.tsx", line: expect.any(Number), column: expect.any(Number) });
    const err = await c.request("frobnicate").catch((e) => e);
    expect(err).toBeInstanceOf(AgentSurfaceServeError);
    expect(err.code).toBe("unknown-method");
    // The process survives a bad request.
    await expect(c.request("scan")).resolves.toMatchObject({ complete: true });
    expect(c.spawns).toBe(1);
  });

  test("concurrent requests are matched by id", async () => {
    const c = fakeClient("ok");
    const answers = await Promise.all([1, 2, 3, 4, 5].map((n) => c.request("ping", { n })));
    expect(answers.map((a) => a.pong.n)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe("lifecycle", () => {
  test("the child is restarted after it is killed", async () => {
    const c = realClient();
    await c.request("scan");
    const first = c.pid;
    process.kill(first, "SIGKILL");
    await waitFor(() => !c.running);
    const again = await c.request("scan");
    expect(again.complete).toBe(true);
    expect(c.pid).not.toBe(first);
    expect(c.spawns).toBe(2);
  });

  test("pending requests fail with a clear error when the child dies; the next request respawns", async () => {
    const c = fakeClient("ok");
    await c.start();
    const pending = c.request("hang");
    const crash = c.request("crash");
    const [e1, e2] = await Promise.all([pending.catch((e) => e), crash.catch((e) => e)]);
    for (const e of [e1, e2]) {
      expect(e).toBeInstanceOf(AgentSurfaceServeError);
      expect(e.code).toBe("child-exited");
      expect(e.message).toMatch(/exited with code 3 while "hang", "crash" were pending; the next request starts a new process/);
      expect(e.message).toMatch(/crashing on purpose/);
    }
    await expect(c.request("ping", 1)).resolves.toEqual({ pong: 1 });
    expect(c.spawns).toBe(2);
  });

  test("close is idempotent, waits for the exit, and fails what was pending", async () => {
    const c = fakeClient("ok");
    await c.start();
    const pid = c.pid;
    const pending = c.request("hang").catch((e) => e);
    const a = c.close();
    const b = c.close();
    await Promise.all([a, b, c.close()]);
    expect(alive(pid)).toBe(false);
    expect((await pending).message).toMatch(/was closed while "hang" was pending/);
    expect(c.running).toBe(false);
    await c.close(); // still fine
    // A request after close starts a new child.
    await expect(c.request("ping", 2)).resolves.toEqual({ pong: 2 });
    expect(c.spawns).toBe(2);
  });

  test("the child is unref'd: a Node process may exit while it lives", () => {
    const script = `
      import { ServeClient } from ${JSON.stringify(path.resolve(here, "../src/child.js"))};
      const c = new ServeClient({ binary: ${JSON.stringify(binary())}, root: ${JSON.stringify(fixtureDir)} });
      const r = await c.request("scan");
      console.log("scanned", r.manifest.contracts.length, c.pid);
      // no close(): the process must still exit
    `;
    const t0 = Date.now();
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^scanned 9 \d+/);
    expect(Date.now() - t0).toBeLessThan(15000);
    const pid = Number(r.stdout.trim().split(" ")[2]);
    // The orphaned child sees its stdin close and exits by itself.
    return waitFor(() => !alive(pid), 5000);
  });

  test("a pending request keeps the process alive until it is answered", () => {
    const script = `
      import { ServeClient } from ${JSON.stringify(path.resolve(here, "../src/child.js"))};
      const c = new ServeClient({ binary: ${JSON.stringify(process.execPath)}, args: [${JSON.stringify(fake)}, "ok"], root: ${JSON.stringify(here)} });
      c.request("ping", "late").then((r) => { console.log("answered", r.pong); });
    `;
    const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", timeout: 20000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("answered late");
  });
});

test("a temp root without config works too (the binary's own defaults)", async () => {
  const root = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-surface-empty-")));
  try {
    const c = realClient(root);
    const scan = await c.request("scan");
    expect(scan.manifest.contracts).toEqual([]);
    await c.close();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
