// Run before `npm run build` (prebuild) and by the tests' global setup: the generated engine
// (wasm/, from scripts/build-wasm.sh) must be there, with the glue's types that src/engine.ts is
// compiled against. Fails with the fix instead of a TypeScript error about a missing module.
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const wasmDir = join(dirname(fileURLToPath(import.meta.url)), "..", "wasm");
const needed = ["agent_surface_wasm.js", "agent_surface_wasm.d.ts", "bytes.js", "bytes.d.ts"];

/** The files of wasm/ that are missing (empty when it is complete). */
export function missingWasmFiles() {
  return needed.filter((f) => !existsSync(join(wasmDir, f)));
}

export function wasmMessage(missing) {
  return (
    `packages/core/wasm/ lacks ${missing.join(", ")}: it is generated from crates/wasm. Run \`bash scripts/build-wasm.sh\` ` +
    "at the repository root (needs wasm-bindgen 0.2.130 and wasm-opt; docs/runtime-js.md)."
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = missingWasmFiles();
  if (missing.length > 0) {
    console.error(`error: ${wasmMessage(missing)}`);
    process.exit(1);
  }
}
