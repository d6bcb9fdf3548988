// Fails the whole run early, with a clear message, when what the tests drive is missing.
import { accessSync, constants, existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const coreDir = path.resolve(here, "../../core");
const exampleDir = path.resolve(here, "../../../examples/devices-app");

export default function setup() {
  const bin = process.env.AGENT_SURFACE_BINARY;
  if (!bin) {
    throw new Error(
      "AGENT_SURFACE_BINARY is not set. These tests drive a real agent-surface binary: build it " +
        "(cargo build, at the repository root) and run e.g.\n  AGENT_SURFACE_BINARY=$PWD/../../target/debug/agent-surface npm test",
    );
  }
  try {
    accessSync(bin, constants.X_OK);
  } catch {
    throw new Error(`AGENT_SURFACE_BINARY=${bin} is not an executable file (build it with cargo build at the repository root)`);
  }
  if (!existsSync(path.join(coreDir, "node_modules"))) {
    throw new Error(`packages/core has no node_modules: run npm ci in ${coreDir} (the example app imports @agent-surface/core)`);
  }
  if (!existsSync(path.join(coreDir, "dist/index.js"))) {
    throw new Error(`packages/core is not built (no dist/; @agent-surface/core resolves to it): run npm run build in ${coreDir}`);
  }
  // The tests build copies of the example app with its own install, which links the packages.
  for (const pkg of ["react", "ai-sdk", "orpc"]) {
    const dist = path.join(here, "../..", pkg, "dist/index.js");
    if (!existsSync(dist)) throw new Error(`packages/${pkg} is not built (the example app imports it): run npm ci && npm run build in packages/${pkg}`);
  }
  if (!existsSync(path.join(exampleDir, "node_modules/@agent-surface/react"))) {
    throw new Error(`the example app is not installed (the tests build copies of it): run npm ci in ${exampleDir}`);
  }
}
