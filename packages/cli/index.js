// @agent-surface/cli: where the native `agent-surface` binary is. The binary ships in one
// package per platform (`@agent-surface/cli-<platform>`), each an optional dependency of this
// one with `os`, `cpu` and `libc` set, so the package manager installs only the one that runs
// here (the way Biome, esbuild and oxlint ship theirs). See README.md.

import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const require = createRequire(import.meta.url);

/** Platform package per `${process.platform}-${process.arch}` (and C library on Linux). */
export const PLATFORM_PACKAGES = Object.freeze({
  "darwin-arm64": "@agent-surface/cli-darwin-arm64",
  "darwin-x64": "@agent-surface/cli-darwin-x64",
  "linux-arm64-gnu": "@agent-surface/cli-linux-arm64-gnu",
  "linux-x64-gnu": "@agent-surface/cli-linux-x64-gnu",
  "win32-x64-msvc": "@agent-surface/cli-win32-x64-msvc",
});

/** Whether this Linux runs on glibc (musl has no `glibcVersionRuntime` in the report header). */
function isGlibc() {
  try {
    return Boolean(process.report?.getReport?.().header?.glibcVersionRuntime);
  } catch {
    return true;
  }
}

/**
 * The platform key of a platform/arch pair: `linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`.
 * @param {string} [platform]
 * @param {string} [arch]
 * @param {boolean} [glibc] on Linux, whether the C library is glibc
 */
export function platformKey(platform = process.platform, arch = process.arch, glibc = platform === "linux" ? isGlibc() : true) {
  if (platform === "linux") return `linux-${arch}-${glibc ? "gnu" : "musl"}`;
  if (platform === "win32") return `win32-${arch}-msvc`;
  return `${platform}-${arch}`;
}

/** The binary's file name on `platform`. */
export function binaryName(platform = process.platform) {
  return platform === "win32" ? "agent-surface.exe" : "agent-surface";
}

/**
 * Where the binary is: the `AGENT_SURFACE_BINARY` environment variable (an override: a binary
 * built with cargo, or one for a platform no package covers), else the binary inside this
 * platform's package. `undefined` when neither is there.
 * @param {{ env?: NodeJS.ProcessEnv, resolve?: (id: string) => string }} [options]
 * @returns {{ path: string, source: "env" | "package", package?: string } | undefined}
 */
export function findBinary(options = {}) {
  const env = options.env ?? process.env;
  if (env.AGENT_SURFACE_BINARY) return { path: path.resolve(env.AGENT_SURFACE_BINARY), source: "env" };
  const pkg = PLATFORM_PACKAGES[platformKey()];
  if (!pkg) return undefined;
  let manifest;
  try {
    manifest = (options.resolve ?? require.resolve)(`${pkg}/package.json`);
  } catch {
    return undefined;
  }
  const binary = path.join(path.dirname(manifest), "bin", binaryName());
  return existsSync(binary) ? { path: binary, source: "package", package: pkg } : undefined;
}

/** Why no binary was found, and what to do about it. */
export function notFoundMessage() {
  const key = platformKey();
  const pkg = PLATFORM_PACKAGES[key];
  if (!pkg) {
    return (
      `agent-surface has no prebuilt binary for ${key}. Build it from source ` +
      "(cargo install --locked --git https://github.com/agent-surface/agent-surface agent-surface) " +
      "and set AGENT_SURFACE_BINARY to its path."
    );
  }
  return (
    `agent-surface: the binary package ${pkg} is not installed. It is an optional dependency of ` +
    "@agent-surface/cli: reinstall without --omit=optional / --no-optional (npm install), or set " +
    "AGENT_SURFACE_BINARY to a binary's path."
  );
}

/**
 * The binary's path, or an error saying why there is none.
 * @param {{ env?: NodeJS.ProcessEnv }} [options]
 */
export function binaryPath(options = {}) {
  const found = findBinary(options);
  if (!found) throw new Error(notFoundMessage());
  return found.path;
}
