// The fixture app's committed manifest: the engine verifies it, and (with the compiler under
// test, $AGENT_SURFACE_BINARY, as scripts/test-all.sh sets it) it is what the compiler makes of
// test/app/src today.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createCapabilityAuthority } from "@agent-surface/core";
import { expect, test } from "vitest";
import { manifest } from "./app.js";

const appDir = fileURLToPath(new URL("./app", import.meta.url));

test("the committed manifest verifies: the board and its two procedures", () => {
  const authority = createCapabilityAuthority(manifest);
  expect(authority.manifest.contracts.map((c) => c.id)).toEqual(["domain:notes.archive", "domain:notes.purge", "view:notes.board"]);
  expect(authority.contract("domain:notes.purge")).toMatchObject({ effect: "destructive", confirmation: "required" });
});

test("the committed manifest is current (agent-surface compile --check)", (ctx) => {
  const bin = process.env.AGENT_SURFACE_BINARY;
  if (!bin) ctx.skip("AGENT_SURFACE_BINARY is not set (scripts/test-all.sh sets it to the binary cargo built)");
  // Exits 1, printing why, when the manifest on disk is missing or stale.
  execFileSync(bin, ["compile", appDir, "--check"], { stdio: "pipe" });
});
