// Fails the run early, with the fix, when something the tests need is missing.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));

export default function setup() {
  const binary = process.env.AGENT_SURFACE_BINARY ?? here("../../../target/debug/agent-surface");
  const missing: string[] = [];
  if (!existsSync(binary)) missing.push(`the compiler (${binary}): cargo build at the repository root, or set AGENT_SURFACE_BINARY`);
  if (!existsSync(here("../../core/dist/index.js"))) missing.push("packages/core/dist: npm ci && npm run build in packages/core");
  if (!existsSync(here("../../vite/node_modules/magic-string"))) missing.push("packages/vite's dependencies: npm ci in packages/vite");
  if (!existsSync(here("./react18/node_modules/react-dom"))) missing.push("React 18 for the second run: npm ci in packages/react/test/react18");
  if (!existsSync(here("../dist/index.js"))) missing.push("packages/react/dist: npm run build (npm test builds first)");
  if (missing.length > 0) throw new Error(`missing:\n  ${missing.join("\n  ")}`);
}
