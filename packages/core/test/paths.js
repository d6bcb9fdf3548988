// Shared files, resolved relative to the package directory (packages/core).
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), "..");
export const fixtureManifestPath = resolve(packageDir, "../../examples/devices-app/agent-surface.manifest.json");
export const hashingVectorsPath = resolve(packageDir, "../../conformance/hashing-vectors.json");

export const readJson = (path) => JSON.parse(readFileSync(path, "utf8"));
export const readText = (path) => readFileSync(path, "utf8");
