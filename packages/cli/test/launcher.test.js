// The launcher and the binary lookup, with stand-in binaries (shell scripts) in a temp folder.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PLATFORM_PACKAGES, binaryName, findBinary, notFoundMessage, platformKey } from "../index.js";

const launcher = fileURLToPath(new URL("../bin/agent-surface.js", import.meta.url));
const unix = process.platform !== "win32";

function standIn(body) {
  const dir = mkdtempSync(path.join(tmpdir(), "agent-surface-cli-"));
  const file = path.join(dir, "agent-surface");
  writeFileSync(file, `#!/bin/sh\n${body}\n`);
  chmodSync(file, 0o755);
  return file;
}

test("platform keys name the five packages", () => {
  assert.equal(platformKey("linux", "x64", true), "linux-x64-gnu");
  assert.equal(platformKey("linux", "arm64", true), "linux-arm64-gnu");
  assert.equal(platformKey("linux", "x64", false), "linux-x64-musl");
  assert.equal(platformKey("darwin", "arm64"), "darwin-arm64");
  assert.equal(platformKey("win32", "x64"), "win32-x64-msvc");
  for (const key of ["linux-x64-gnu", "linux-arm64-gnu", "darwin-x64", "darwin-arm64", "win32-x64-msvc"]) {
    assert.equal(PLATFORM_PACKAGES[key], `@agent-surface/cli-${key}`);
  }
  assert.equal(PLATFORM_PACKAGES["linux-x64-musl"], undefined);
  assert.equal(binaryName("win32"), "agent-surface.exe");
  assert.equal(binaryName("linux"), "agent-surface");
});

test("AGENT_SURFACE_BINARY overrides the platform package", () => {
  const found = findBinary({ env: { AGENT_SURFACE_BINARY: "some/where/agent-surface" }, resolve: () => assert.fail("not looked up") });
  assert.deepEqual(found, { path: path.resolve("some/where/agent-surface"), source: "env" });
});

test("the platform package's bin/ holds the binary", () => {
  const pkg = mkdtempSync(path.join(tmpdir(), "agent-surface-pkg-"));
  mkdirSync(path.join(pkg, "bin"));
  writeFileSync(path.join(pkg, "package.json"), "{}");
  const wanted = PLATFORM_PACKAGES[platformKey()];
  const resolve = (id) => {
    assert.equal(id, `${wanted}/package.json`);
    return path.join(pkg, "package.json");
  };
  assert.equal(findBinary({ env: {}, resolve }), undefined, "an empty package is no binary");
  writeFileSync(path.join(pkg, "bin", binaryName()), "");
  assert.deepEqual(findBinary({ env: {}, resolve }), { path: path.join(pkg, "bin", binaryName()), source: "package", package: wanted });
  const missing = () => {
    throw Object.assign(new Error("Cannot find module"), { code: "MODULE_NOT_FOUND" });
  };
  assert.equal(findBinary({ env: {}, resolve: missing }), undefined);
});

test("without a binary the launcher says which package is missing and exits 2", () => {
  const env = { ...process.env };
  delete env.AGENT_SURFACE_BINARY;
  const r = spawnSync(process.execPath, [launcher, "--version"], { env, encoding: "utf8" });
  // In this repository no platform package is installed next to packages/cli.
  assert.equal(r.status, 2, r.stderr);
  assert.equal(r.stderr.trim(), notFoundMessage());
  assert.match(r.stderr, /@agent-surface\/cli-|no prebuilt binary/);
});

test("the launcher passes arguments, standard streams and the exit code through", { skip: !unix }, () => {
  const bin = standIn('printf "%s|" "$@"; cat; echo " err" >&2; exit 3');
  const r = spawnSync(process.execPath, [launcher, "check", "a b", "--format", "json"], {
    env: { ...process.env, AGENT_SURFACE_BINARY: bin },
    input: "from stdin",
    encoding: "utf8",
  });
  assert.equal(r.status, 3);
  assert.equal(r.stdout, "check|a b|--format|json|from stdin");
  assert.equal(r.stderr, " err\n");
});

test("a binary killed by a signal kills the launcher with it", { skip: !unix }, () => {
  const bin = standIn("kill -TERM $$");
  const r = spawnSync(process.execPath, [launcher], { env: { ...process.env, AGENT_SURFACE_BINARY: bin } });
  assert.equal(r.status, null);
  assert.equal(r.signal, "SIGTERM");
});

test("a binary that cannot run is an error naming it", () => {
  const r = spawnSync(process.execPath, [launcher], {
    env: { ...process.env, AGENT_SURFACE_BINARY: "/nonexistent/agent-surface" },
    encoding: "utf8",
  });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /could not run \/nonexistent\/agent-surface: .*ENOENT/);
});
