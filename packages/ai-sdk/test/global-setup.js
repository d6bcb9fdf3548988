// Fails the run early, with the fix, when what the tests import is missing: @agent-surface/core
// resolves (file:../core) to packages/core/dist, which needs the engine (wasm/) and a build.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const coreDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../core");

export default function setup() {
  if (!existsSync(path.join(coreDir, "wasm/bytes.js"))) {
    throw new Error("packages/core has no wasm/ (the engine): run bash scripts/build-wasm.sh at the repository root");
  }
  if (!existsSync(path.join(coreDir, "dist/index.js"))) {
    throw new Error(`packages/core is not built (no dist/): run npm ci && npm run build in ${coreDir}`);
  }
}
