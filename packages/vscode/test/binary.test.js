// The extension's choice of binary (out/binary.js, compiled from src/binary.ts).
const { test } = require("node:test");
const assert = require("node:assert/strict");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { serverCommand } = require("../out/binary.js");

function workspace() {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "agent-surface-vscode-")));
}

test("the setting wins, relative to the first workspace folder", () => {
  const ws = workspace();
  assert.deepEqual(serverCommand("/opt/agent-surface", [ws], "linux"), { command: "/opt/agent-surface", args: ["lsp"], source: "setting", shell: false });
  assert.equal(serverCommand("tools/agent-surface", [ws], "linux").command, path.join(ws, "tools/agent-surface"));
});

test("then the workspace's node_modules/.bin, then PATH", () => {
  const ws = workspace();
  const other = workspace();
  assert.deepEqual(serverCommand("", [ws], "linux"), { command: "agent-surface", args: ["lsp"], source: "path", shell: false });
  fs.mkdirSync(path.join(other, "node_modules/.bin"), { recursive: true });
  fs.writeFileSync(path.join(other, "node_modules/.bin/agent-surface"), "");
  assert.deepEqual(serverCommand(undefined, [ws, other], "linux"), {
    command: path.join(other, "node_modules/.bin/agent-surface"),
    args: ["lsp"],
    source: "workspace",
    shell: false,
  });
});

test("Windows' npm shim is a .cmd, run through a shell", () => {
  const ws = workspace();
  fs.mkdirSync(path.join(ws, "node_modules/.bin"), { recursive: true });
  fs.writeFileSync(path.join(ws, "node_modules/.bin/agent-surface.cmd"), "");
  const c = serverCommand("", [ws], "win32");
  assert.equal(c.command, path.join(ws, "node_modules/.bin/agent-surface.cmd"));
  assert.equal(c.shell, true);
});
