// The docs' code samples are files of test/docs-app, which the docs quote verbatim: every
// TypeScript/JavaScript block of packages/core/README.md, docs/runtime-js.md and README.md, and
// docs/react.md's vite.config.ts (its other blocks are packages/react/test/app, run by
// packages/react/test/docs.test.tsx). This test checks the quotes, type-checks the app with tsc
// as an app's own check would, builds it with vite.config.ts (this plugin inserts the compiler's
// provenance and serves virtual:agent-surface/authority), runs each sample's bundle in Node and
// checks what the samples' comments say they print.
//
// A sample file starts with `// <its path>` (the first line the doc quotes); comment lines above
// it are notes for this test, not quoted. AS_SRC=1 builds and checks against
// packages/core/src instead of its build (dist/), as packages/core's suites do.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { build } from "vite";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { coreDir, packageDir, removeTempDir, repoDir } from "./helpers.js";

const run = promisify(execFile);
const appDir = path.join(packageDir, "test/docs-app");
const asSrc = Boolean(process.env.AS_SRC);

/** Every file of the docs app, relative to it (no node_modules, dist). */
function appFiles(dir = appDir, rel = "") {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? appFiles(path.join(dir, e.name), `${rel}${e.name}/`) : [`${rel}${e.name}`],
  );
}

/** What a doc quotes of a sample file: from its `// <path>` line on, or null for a non-sample. */
function quotedPart(file) {
  const lines = readFileSync(path.join(appDir, file), "utf8").trimEnd().split("\n");
  const start = lines.indexOf(`// ${file}`);
  if (start < 0 || !lines.slice(0, start).every((l) => l.startsWith("//"))) return null;
  return lines.slice(start).join("\n");
}

const samples = new Map(appFiles().map((f) => [f, quotedPart(f)]).filter(([, q]) => q !== null));

/** The fenced code blocks of a Markdown text: [{ lang, text }]. */
function codeBlocks(markdown) {
  return [...markdown.matchAll(/^```([\w-]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1], text: m[2].trimEnd() }));
}

const SCRIPT = new Set(["ts", "tsx", "js", "jsx", "typescript", "javascript", "mjs"]);
const docs = ["packages/core/README.md", "docs/runtime-js.md", "README.md"];

describe("the docs quote the docs app verbatim", () => {
  test.each(docs)("every TypeScript/JavaScript block of %s is a sample file", (doc) => {
    const blocks = codeBlocks(readFileSync(path.join(repoDir, doc), "utf8")).filter((b) => SCRIPT.has(b.lang));
    for (const block of blocks) {
      const file = /^\/\/ (\S+)$/m.exec(block.text.split("\n")[0])?.[1];
      expect(file && samples.has(file), `${doc}: a block that is no sample file of test/docs-app:\n${block.text}`).toBe(true);
      expect(block.text, `${doc} quotes ${file}`).toBe(samples.get(file));
    }
  });

  test("docs/react.md's vite.config.ts is the docs app's", () => {
    const blocks = codeBlocks(readFileSync(path.join(repoDir, "docs/react.md"), "utf8"));
    expect(blocks.map((b) => b.text)).toContain(samples.get("vite.config.ts"));
  });

  test("every sample is quoted by a doc", () => {
    const quoted = ["docs/react.md", ...docs].flatMap((d) => codeBlocks(readFileSync(path.join(repoDir, d), "utf8")).map((b) => b.text));
    for (const [file, text] of samples) expect(quoted, `${file} is quoted nowhere`).toContain(text);
  });
});

/** A copy of the docs app whose node_modules link the packages, as an app's install would. */
function copyDocsApp() {
  const tmp = realpathSync(mkdtempSync(path.join(tmpdir(), "agent-surface-docs-")));
  const root = path.join(tmp, "app");
  cpSync(appDir, root, { recursive: true });
  const link = (target, name) => {
    mkdirSync(path.dirname(path.join(root, "node_modules", name)), { recursive: true });
    symlinkSync(target, path.join(root, "node_modules", name), "dir");
  };
  link(coreDir, "@agent-surface/core");
  link(packageDir, "@agent-surface/vite");
  for (const dep of ["vite", "@vitejs/plugin-react"]) link(path.join(packageDir, "node_modules", dep), dep);
  return { root, cleanup: () => removeTempDir(tmp) };
}

/** Imports a built sample in a fresh Node process; returns the argument lists of its console.log calls. */
async function runSample(file) {
  const script = `const logs = []; console.log = (...args) => logs.push(args);
await import(${JSON.stringify(pathToFileURL(file).href)});
process.stdout.write(JSON.stringify(logs));`;
  const { stdout } = await run(process.execPath, ["--input-type=module", "-e", script], { timeout: 30_000 });
  return JSON.parse(stdout);
}

describe("the docs app", () => {
  let app;
  const entries = ["main", "agent", "explain", "audit", "table"];
  const logs = {};

  beforeAll(async () => {
    app = copyDocsApp();
    const alias = asSrc
      ? [
          { find: /^@agent-surface\/core$/, replacement: path.join(coreDir, "src/index.ts") },
          { find: /^@agent-surface\/core\/(.*)$/, replacement: path.join(coreDir, "src/$1.ts") },
        ]
      : [];
    await build({
      root: app.root,
      configFile: path.join(app.root, "vite.config.ts"),
      logLevel: "silent",
      resolve: { alias },
      build: {
        target: "es2022",
        minify: false,
        rolldownOptions: {
          input: Object.fromEntries(entries.map((e) => [e, path.join(app.root, `src/${e}.ts`)])),
          output: { entryFileNames: "[name].js" },
        },
      },
    });
    for (const e of entries) logs[e] = await runSample(path.join(app.root, `dist/${e}.js`));
    if (process.env.DOCS_DUMP) console.error(JSON.stringify(logs, null, 1));
  }, 120_000);

  afterAll(() => app?.cleanup());

  test("type-checks (tsc, strict)", async () => {
    const tsc = path.join(coreDir, "node_modules/typescript/bin/tsc");
    let project = "tsconfig.json";
    if (asSrc) {
      project = "tsconfig.src.json";
      const paths = { "@agent-surface/core": [path.join(coreDir, "src/index.ts")], "@agent-surface/core/*": [path.join(coreDir, "src/*.ts")] };
      writeFileSync(path.join(app.root, project), JSON.stringify({ extends: "./tsconfig.json", compilerOptions: { paths } }));
    }
    const result = await run(process.execPath, [tsc, "-p", project], { cwd: app.root }).catch((e) => e);
    expect(`${result.stdout ?? ""}${result.stderr ?? ""}`).toBe("");
  });

  test("src/main.ts: an invoked action, and a refused input", () => {
    const [[ok], [refused]] = logs.main;
    expect(logs.main).toHaveLength(2);
    expect(ok).toEqual({
      status: "ok",
      invocationId: expect.stringMatching(/^inv_/),
      capabilityId: "view:demo.counter.increment",
      output: { value: 42 },
      surfaceVersion: "1",
    });
    expect(refused).toMatchObject({
      status: "error",
      capabilityId: "view:demo.counter.increment",
      error: { code: "INVALID_INPUT", retry: "with-changes", details: { issues: [{ path: "/by", keyword: "maximum" }] } },
    });
  });

  test("src/agent.ts: the toolset's tools, a read, a call and its redelivery", () => {
    const mine = logs.agent.slice(2);
    expect(mine[0]).toEqual(["view_demo_counter_increment", "view_demo_counter_value"]);
    expect(mine[1][0]).toMatchObject({ status: "ok", capabilityId: "view:demo.counter.value", output: { value: 42 } });
    expect(mine[2][0]).toMatchObject({ status: "ok", capabilityId: "view:demo.counter.increment", output: { value: 44 } });
    expect(mine[3][0]).toEqual(mine[2][0]);
  });

  test("src/explain.ts: why each capability is exposed", () => {
    expect(logs.explain.slice(2)).toEqual([
      ["view:demo.counter.value", "expose"],
      ["view:demo.counter.increment", "expose"],
    ]);
  });

  test("src/audit.ts: the default sink's records of src/main.ts's calls", () => {
    const [ok, refused] = logs.audit.slice(0, 2).map(([result]) => result.invocationId);
    expect(logs.audit.slice(2)).toEqual([
      [ok, "view:demo.counter.increment", "ok", null],
      [refused, "view:demo.counter.increment", "error", "INVALID_INPUT"],
    ]);
  });

  test("src/table.ts binds with its inferred handler types", () => {
    expect(logs.table).toEqual([]);
  });
});
