// The shared scenarios (conformance/scenarios/*.json) through the JavaScript API (the TypeScript
// runtime), in Node; crates/engine/tests/it/scenarios.rs runs the same files on the Rust engine,
// and the Vite e2e test in headless Chromium.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "vitest";
import * as core from "../dist/index.js";
import { explainSurface } from "../dist/explain.js";
import { packageDir } from "./paths.js";
import { runScenario } from "./scenarios/runner.js";

const dir = path.resolve(packageDir, "../../conformance/scenarios");
const manifest = JSON.parse(readFileSync(path.join(dir, "manifest.json"), "utf8"));
const files = readdirSync(dir)
  // manifest.locations.json: the sidecar `agent-surface compile` writes beside the manifest (not committed).
  .filter((f) => f.endsWith(".json") && f !== "manifest.json" && f !== "manifest.locations.json")
  .sort();

for (const file of files) {
  const doc = JSON.parse(readFileSync(path.join(dir, file), "utf8"));
  describe(file, () => {
    for (const scenario of doc.scenarios) {
      test(scenario.name, () => runScenario({ core, explainSurface, manifest, file, scenario }));
    }
  });
}
