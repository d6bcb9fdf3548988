// Fails the run early, with the fix, when what the tests import is missing: @agent-surface/core
// resolves (file:../core) to packages/core/dist, which needs a build.
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const coreDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../core");

export default function setup() {
  if (!existsSync(path.join(coreDir, "dist/index.js"))) {
    throw new Error(`packages/core is not built (no dist/): run npm ci && npm run build in ${coreDir}`);
  }
}
