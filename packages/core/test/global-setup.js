// Fails the run early, with the fix, when the generated engine (wasm/) or the build (dist/) is
// missing: the tests run against dist/, what the package exports.
import { existsSync } from "node:fs";
import { missingWasmFiles, wasmMessage } from "../scripts/check-wasm.mjs";
import { packageDir } from "./paths.js";

export default function setup() {
  const missing = missingWasmFiles();
  if (missing.length > 0) throw new Error(wasmMessage(missing));
  if (!existsSync(`${packageDir}/dist/index.js`)) {
    throw new Error("packages/core/dist/ is missing: the tests run against the build. Run `npm run build` (or `npm test`, which builds first).");
  }
}
