// Fails the run early, with the fix, when the build (dist/) is missing: the tests run against
// dist/, what the package exports.
import { existsSync } from "node:fs";
import { packageDir } from "./paths.js";

export default function setup() {
  if (!existsSync(`${packageDir}/dist/index.js`)) {
    throw new Error("packages/core/dist/ is missing: the tests run against the build. Run `npm run build` (or `npm test`, which builds first).");
  }
}
