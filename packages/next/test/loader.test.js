// The loader (what webpack and Turbopack run on each module) and the generated authority module,
// against the real compiler ($AGENT_SURFACE_BINARY) on a copy of packages/unplugin/test/app.
import assert from "node:assert/strict";
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { authorityPath, generateAuthority } from "../src/index.js";
import { sessionFor } from "../src/session.js";
import { transformModule } from "../src/transform.js";

const here = path.dirname(fileURLToPath(import.meta.url));
let tmp;
let root;

before(() => {
  if (!process.env.AGENT_SURFACE_BINARY) throw new Error("AGENT_SURFACE_BINARY must name a built agent-surface binary");
  tmp = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-surface-next-")));
  root = path.join(tmp, "app");
  cpSync(path.join(here, "../../unplugin/test/app"), root, { recursive: true });
});
after(() => rmSync(tmp, { recursive: true, force: true }));

test("the loader inserts the compiler's provenance, with a source map of the file", async () => {
  const file = path.join(root, "src/external/reports.ts");
  const code = readFileSync(file, "utf8");
  const out = await transformModule(code, file, { root }, () => {});
  assert.match(out.code, /\{"contractHash":"blake3:[0-9a-f]{64}","id":"external:reports\.export"\}\);\n$/);
  assert.equal(out.code.slice(0, code.lastIndexOf(")")), code.slice(0, code.lastIndexOf(")")));
  assert.deepEqual(out.map.sources.map((s) => path.basename(s)), ["reports.ts"]);
  // A module that is not the compiler's (no @agent-surface/core) is left alone.
  assert.equal(await transformModule("export const x = 1;\n", path.join(root, "src/plain.ts"), { root }, () => {}), null);
});

test("a contract's error fails the module at its file:line:column with a code frame", async () => {
  const file = path.join(root, "src/external/reports.ts");
  const code = readFileSync(file, "utf8").replace('effect: "external-side-effect"', 'effect: "local-state"');
  const err = await transformModule(code, file, { root }, () => {}).then(
    () => null,
    (e) => e,
  );
  assert.ok(err, "the transform must fail");
  assert.match(err.message, /src\/external\/reports\.ts:12:11: error AS0401/);
  assert.match(err.message, /> 12 \|   effect: "local-state",/);
});

/** What next dev's watcher does after a save: the compiler reads the file again. */
const saved = (file) => sessionFor(root).client?.request("didChange", { files: [file] });

test("the generated authority module: the manifest, or in a build the error at its location", async () => {
  await saved(path.join(root, "src/external/reports.ts")); // the previous test transformed a broken text
  const { result, changed } = await generateAuthority(root);
  assert.equal(changed, true);
  const text = readFileSync(authorityPath(root), "utf8");
  assert.ok(text.startsWith('import { createCapabilityAuthority } from "@agent-surface/core";'));
  assert.ok(text.includes(result.manifestHash));
  assert.equal((await generateAuthority(root)).changed, false); // unchanged: not rewritten

  const file = path.join(root, "src/external/reports.ts");
  const original = readFileSync(file, "utf8");
  const { writeFileSync } = await import("node:fs");
  writeFileSync(file, original.replace('effect: "external-side-effect"', 'effect: "local-state"'));
  await saved(file);
  try {
    await assert.rejects(generateAuthority(root, { failOnError: true }), /src\/external\/reports\.ts:12:11: error AS0401/);
    // next dev: a module that throws the same error, so the page shows it.
    await generateAuthority(root);
    assert.match(readFileSync(authorityPath(root), "utf8"), /^\/\/ agent-surface: .*\nthrow new Error\(".*AS0401/);
  } finally {
    writeFileSync(file, original);
    await saved(file);
  }
  await sessionFor(root).close();
});
