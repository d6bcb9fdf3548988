#!/usr/bin/env node
// The `agent-surface` command: runs the native binary of this platform (or AGENT_SURFACE_BINARY)
// with the same arguments, standard streams and exit code.

import { spawnSync } from "node:child_process";
import { findBinary, notFoundMessage } from "../index.js";

const found = findBinary();
if (!found) {
  console.error(notFoundMessage());
  process.exit(2);
}
const result = spawnSync(found.path, process.argv.slice(2), { stdio: "inherit", windowsHide: true });
if (result.error) {
  console.error(`agent-surface: could not run ${found.path}: ${result.error.message}`);
  process.exit(2);
}
if (result.signal) {
  // Die of the same signal, so a shell or a supervisor sees what happened.
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
