// Shared by the bundler tests: a copy of test/app, the compiler's manifest of it, each bundler's
// build of it with the plugin, and running the bundle in a fresh Node process.
import { execFile, execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";

export const packageDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
export const repoDir = path.resolve(packageDir, "../..");
export const coreDir = path.join(repoDir, "packages/core");
export const appDir = path.join(packageDir, "test/app");

export function binary() {
  const bin = process.env.AGENT_SURFACE_BINARY;
  if (!bin || !existsSync(bin)) throw new Error("AGENT_SURFACE_BINARY must name a built agent-surface binary (see test/global-setup.js)");
  return bin;
}

/** A copy of test/app in a temp dir, @agent-surface/core linked as an install would. */
export function copyApp() {
  const tmp = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-surface-unplugin-")));
  const root = path.join(tmp, "app");
  cpSync(appDir, root, { recursive: true });
  mkdirSync(path.join(root, "node_modules/@agent-surface"), { recursive: true });
  symlinkSync(coreDir, path.join(root, "node_modules/@agent-surface/core"), "dir");
  return { root, cleanup: () => rmSync(tmp, { recursive: true, force: true, maxRetries: 20, retryDelay: 200 }) };
}

/** The plugin context a bundler passes its build hooks: warnings collected, errors thrown. */
export const buildContext = (warnings = []) => ({
  meta: { watchMode: false },
  warn: (w) => warnings.push(w),
  error: (e) => {
    throw Object.assign(new Error(e.message), e);
  },
});

/** `agent-surface compile` of the app: its manifest. */
export function compileManifest(root) {
  const out = path.join(root, "compiled.manifest.json");
  execFileSync(binary(), ["compile", root, "--out", out], { stdio: "pipe" });
  return JSON.parse(readFileSync(out, "utf8"));
}

/** Runs a built script bundle in a fresh Node process; returns what its entry reported. */
export async function runBundle(file) {
  const script = `await import(${JSON.stringify(pathToFileURL(file).href)}); process.stdout.write(globalThis.agentSurfaceReport ?? "null");`;
  const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], { timeout: 30_000 });
  return JSON.parse(stdout);
}
