// A stand-in for `agent-surface serve --stdio` with scripted misbehaviour (argv[2]).
import { createInterface } from "node:readline";

const mode = process.argv[2];
const out = (v) => process.stdout.write(JSON.stringify(v) + "\n");

if (mode === "version-mismatch") out({ protocol: "agent-surface-serve", protocolVersion: 2, binaryVersion: "9.9.9", root: process.cwd() });
else if (mode === "wrong-protocol") out({ protocol: "something-else", protocolVersion: 1, binaryVersion: "0.1.0" });
else if (mode === "silent") {
  // no handshake at all
} else out({ protocol: "agent-surface-serve", protocolVersion: 1, binaryVersion: "0.0.0-fake", root: process.cwd() });

process.stderr.write(`fake server (${mode}) started\n`);
const rl = createInterface({ input: process.stdin });
rl.on("line", (line) => {
  const req = JSON.parse(line);
  if (req.method === "ping") out({ id: req.id, result: { pong: req.params ?? null } });
  else if (req.method === "crash") {
    process.stderr.write("fake server: crashing on purpose\n");
    process.exit(3);
  } else if (req.method === "hang") {
    // never answered
  } else out({ id: req.id, error: { code: "unknown-method", message: `no method ${req.method}` } });
});
rl.on("close", () => process.exit(0));
