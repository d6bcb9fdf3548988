// Fails the run early, with the fix, when the generated engine (wasm/) is missing.
import { existsSync } from "node:fs";
import { packageDir } from "./paths.js";

export default function setup() {
  if (!existsSync(`${packageDir}/wasm/bytes.js`) || !existsSync(`${packageDir}/wasm/agent_surface_wasm.js`)) {
    throw new Error(
      "packages/core/wasm/ is missing: it is generated from crates/wasm. Run `bash scripts/build-wasm.sh` at the repository root (needs wasm-bindgen 0.2.130 and wasm-opt; docs/runtime-js.md).",
    );
  }
}
