// web-platform-tests webmcp/ (vendored unmodified in ../wpt/, see its README) in the suite's one
// Chromium: the imperative, non-tentative files as an environment check (each file's pass count
// asserted; what Chromium 156 itself fails is listed with reasons in wpt-expected-failures.json),
// and the tentative allow-list file (webmcp PR #289, wpt #62426) against the example app's
// projected schemas. Results are collected from testharnessreport.js's own
// <script id="__testharness__results__"> (upstream's default report, not a hook of ours).
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import vm from "node:vm";
import { here, repo } from "./harness.js";

const WPT = path.join(here, "wpt");
const EXPECTED = JSON.parse(readFileSync(path.join(here, "test/wpt-expected-failures.json"), "utf8")).files;
const TENTATIVE = "webmcp/imperative/register_tool_invalid_subset_schema.tentative.https.html";

/** Each imperative, non-tentative file vendored, with its subtest count and how many pass in Chromium 156. */
const IMPERATIVE = {
  "webmcp/imperative/executeTool-abort.https.html": { subtests: 5, pass: 1 },
  "webmcp/imperative/executeTool-events.https.html": { subtests: 2, pass: 1 },
  "webmcp/imperative/executeTool-invalid-dictionary.https.html": { subtests: 3, pass: 1 },
  "webmcp/imperative/executeTool-self-unregistration.https.html": { subtests: 2, pass: 2 },
  "webmcp/imperative/object-arguments.https.html": { subtests: 1, pass: 1 },
};

const TEST_STATUS = ["PASS", "FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"];
const HARNESS_STATUS = ["OK", "ERROR", "TIMEOUT", "PRECONDITION_FAILED"];

/**
 * The page /common/blank.html that executeTool-events.https.html loads in an iframe (any
 * same-origin document does; WPT's own file is not vendored): ours, not WPT's.
 */
const BLANK = "<!DOCTYPE html><meta charset=utf-8><title>blank (agent-surface's stand-in for WPT's common/blank.html)</title>";

/**
 * The tentative file adapted only in its schemas: its own head and harness, its registerTool
 * call (same name scheme, description and execute), one promise_test per projected schema, which
 * passes when registerTool resolves instead of rejecting with the TypeError the file expects for
 * schemas outside the allow-list.
 */
function adaptedTentative(schemas) {
  const original = readFileSync(path.join(WPT, TENTATIVE), "utf8");
  const cut = original.indexOf('"use strict";');
  assert.ok(cut > 0, `${TENTATIVE} changed shape: no "use strict"`);
  return `${original.slice(0, cut)}"use strict";
const projected = ${JSON.stringify(schemas).replace(/</g, "\\u003c")};
for (const [testName, inputSchema] of projected) {
  promise_test(t => document.modelContext.registerTool({
    name: "mcp-" + testName.replace(/[^a-z0-9]/gi, "-"),
    description: "test",
    inputSchema,
    execute: () => {}
  }), testName);
}
</script>
`;
}

/** ../wpt as a WPT server would serve it (paths from the WPT root), on loopback. */
async function serveWpt() {
  const state = { projected: [] };
  const server = createServer((req, res) => {
    const url = new URL(req.url, "http://x");
    const send = (type, body) => {
      res.writeHead(200, { "content-type": type, "cache-control": "no-store" });
      res.end(body);
    };
    if (url.pathname === "/common/blank.html") return send("text/html", BLANK);
    if (url.pathname === `/${TENTATIVE}` && url.searchParams.get("schemas") === "projected") return send("text/html", adaptedTentative(state.projected));
    const file = path.resolve(WPT, `.${decodeURIComponent(url.pathname)}`);
    if (!file.startsWith(WPT + path.sep) || !existsSync(file) || path.basename(file) === "README.md") {
      res.writeHead(404, { "content-type": "text/plain" });
      return res.end("not found");
    }
    send(file.endsWith(".js") ? "text/javascript" : "text/html", readFileSync(file));
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { state, origin: `http://127.0.0.1:${server.address().port}`, close: () => new Promise((r) => server.close(r)) };
}

/** Runs one test file in a new tab; resolves with testharness's results. */
async function runFile(browser, url) {
  const page = await browser.newPage();
  try {
    await page.goto(url);
    // The harness's own timeout is 10 s; past it testharnessreport.js has written its results.
    const results = await page.waitForSelector("#__testharness__results__", { timeout: 30_000 });
    const data = JSON.parse(await results.evaluate((e) => e.textContent));
    return {
      harness: HARNESS_STATUS[data.status],
      message: data.message,
      tests: data.tests.map((t) => ({ name: t.name, status: TEST_STATUS[t.status], message: t.message })),
    };
  } finally {
    await page.close();
  }
}

/** The results of a file compared with the expected failures: what must hold, as plain data. */
function outcome(file, results) {
  const expected = EXPECTED[file];
  assert.ok(expected, `${file} is not in wpt-expected-failures.json`);
  return {
    harness: results.harness,
    unexpected: results.tests
      .filter((t) => t.status !== (expected.subtests[t.name]?.status ?? "PASS"))
      .map((t) => `${t.status} (expected ${expected.subtests[t.name]?.status ?? "PASS"}): ${t.name}: ${t.message ?? ""}`),
    missing: Object.keys(expected.subtests).filter((name) => !results.tests.some((t) => t.name === name)),
  };
}

/**
 * The tentative file's cases in the form it uses: its script run in Node with testharness's
 * promise_test, promise_rejects_js and registerTool standing in, to collect each
 * test_invalid_subset(schema, name) it declares.
 */
export function tentativeCases() {
  const html = readFileSync(path.join(WPT, TENTATIVE), "utf8");
  const scripts = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]);
  assert.equal(scripts.length, 1, `${TENTATIVE}: one inline script expected`);
  const cases = [];
  let registered;
  const sandbox = {
    TypeError,
    promise_rejects_js: (_t, _ctor, promise) => promise,
    promise_test: (fn, name) => {
      registered = undefined;
      fn({});
      cases.push({ name, schema: registered.inputSchema });
    },
    document: { modelContext: { registerTool: (definition) => ((registered = definition), Promise.resolve()) } },
  };
  vm.runInNewContext(scripts[0], sandbox, { filename: TENTATIVE });
  return JSON.parse(JSON.stringify(cases));
}

/**
 * What a schema uses, keyword by keyword through properties/items/prefixItems/additionalProperties,
 * with the two distinctions the cases make: additionalProperties false / true / a schema, and a
 * pattern that does / does not compile as a RegExp.
 */
export function features(schema, out = new Set()) {
  if (typeof schema !== "object" || schema === null || Array.isArray(schema)) return out;
  for (const [k, v] of Object.entries(schema)) {
    if (k === "properties" && typeof v === "object" && v !== null) {
      for (const p of Object.values(v)) features(p, out);
    } else if (k === "items") features(v, out);
    else if (k === "prefixItems" && Array.isArray(v)) v.forEach((p) => features(p, out));
    else if (k === "additionalProperties") {
      out.add(v === false ? "additionalProperties:false" : v === true ? "additionalProperties:true" : "additionalProperties:schema");
      features(v, out);
    } else if (k === "pattern") {
      let ok = typeof v === "string";
      try {
        new RegExp(v);
      } catch {
        ok = false;
      }
      out.add(ok ? "pattern" : "pattern:invalid");
    } else out.add(k);
  }
  return out;
}

/**
 * Each case's refused construct: what its schema uses that every case uses too is the shape all
 * cases share (type), the rest is what the case is about.
 */
export function refusedByCase(cases) {
  const all = cases.map((c) => features(c.schema));
  const shared = [...all[0]].filter((f) => all.every((s) => s.has(f)));
  return cases.map((c, i) => ({ name: c.name, refused: [...all[i]].filter((f) => !shared.includes(f)) }));
}

/** The cases a schema falls under: "<case name>: <constructs>". */
export function casesHit(schema, refused) {
  const used = features(schema);
  return refused.filter((c) => c.refused.some((f) => used.has(f))).map((c) => `${c.name}: ${c.refused.filter((f) => used.has(f)).join(", ")}`);
}

export function wptSuite(ctx) {
  describe("web-platform-tests webmcp/ (vendored, unmodified) in the suite's Chromium", () => {
    let wpt;
    before(async () => {
      wpt = await serveWpt();
    });
    after(() => wpt?.close());

    for (const [file, counts] of Object.entries(IMPERATIVE)) {
      test(`${file}: ${counts.pass}/${counts.subtests} subtests pass; the rest are Chromium 156's listed failures`, async () => {
        const results = await runFile(ctx.browser, `${wpt.origin}/${file}`);
        assert.equal(results.tests.length, counts.subtests, JSON.stringify(results.tests.map((t) => t.name)));
        assert.equal(results.tests.filter((t) => t.status === "PASS").length, counts.pass, JSON.stringify(results.tests, null, 1));
        assert.deepEqual(outcome(file, results), { harness: EXPECTED[file].harness, unexpected: [], missing: [] });
      });
    }

    test(`${TENTATIVE} as published: Chromium 156 refuses none of its 9 schemas (it does not implement PR #289)`, async () => {
      const results = await runFile(ctx.browser, `${wpt.origin}/${TENTATIVE}`);
      assert.equal(results.tests.length, 9);
      assert.equal(results.tests.filter((t) => t.status === "PASS").length, 0);
      for (const t of results.tests) assert.match(t.message, /Should have rejected/);
      assert.deepEqual(outcome(TENTATIVE, results), { harness: "OK", unexpected: [], missing: [] });
    });

    describe("the tentative file against the example app's projected schemas", () => {
      /** [label, schema] for every inputSchema/outputSchema exposeToWebMCP passed to registerTool. */
      let projected;
      before(async () => {
        // Every route of the app (src/schemas/routes.ts), each in a fresh document: the tools
        // exposeToWebMCP registers there, as handed to registerTool, recorded on their way in.
        const byName = new Map();
        for (const route of ["/devices", "/devices/dev_pr1nt1", "/reports", "/settings"]) {
          const page = await ctx.browser.newPage();
          try {
            await page.evaluateOnNewDocument(() => {
              const original = ModelContext.prototype.registerTool;
              window.__registered = [];
              ModelContext.prototype.registerTool = function (definition, options) {
                window.__registered.push(JSON.parse(JSON.stringify({ name: definition.name, inputSchema: definition.inputSchema, outputSchema: definition.outputSchema })));
                return original.call(this, definition, options);
              };
            });
            await page.goto(`${ctx.origin}${route}`);
            await page.waitForFunction(() => window.__registered.some((d) => d.name === "view_app_nav_navigate"));
            if (route === "/devices") await page.waitForFunction(() => window.__registered.some((d) => d.name === "view_devices_table_readState"));
            const registered = await page.evaluate(() => window.__registered);
            const names = (await page.evaluate(async () => (await document.modelContext.getTools()).map((t) => t.name))).sort();
            assert.deepEqual([...new Set(registered.map((d) => d.name))].sort(), names, `${route}: every tool the page holds went through registerTool`);
            for (const d of registered) {
              if (byName.has(d.name)) assert.deepEqual(d, byName.get(d.name), `${d.name}: one projection on every route`);
              byName.set(d.name, d);
            }
          } finally {
            await page.close();
          }
        }
        projected = [];
        for (const d of byName.values()) {
          projected.push([`${d.name} inputSchema`, d.inputSchema]);
          if (d.outputSchema !== undefined) projected.push([`${d.name} outputSchema`, d.outputSchema]);
        }
      });

      test("every projected schema falls under none of the file's 9 refused cases", () => {
        const cases = tentativeCases();
        assert.equal(cases.length, 9);
        const refused = refusedByCase(cases);
        // Each case names what it refuses (and only its own case catches its schema).
        for (const c of refused) assert.ok(c.refused.length > 0, `${c.name}: no construct of its own`);
        assert.deepEqual(
          cases.map((c) => casesHit(c.schema, refused).map((h) => h.split(": ")[0])),
          cases.map((c) => [c.name]),
        );
        assert.ok(projected.length >= 10, `${projected.length} schemas`);
        const hits = projected.map(([label, schema]) => [label, casesHit(schema, refused)]).filter(([, h]) => h.length > 0);
        assert.deepEqual(hits, []);
      });

      test("the same check catches what the projection removes (packages/core's projectForWebMCP, as built)", async () => {
        const { projectForWebMCP } = await import(pathToFileURL(path.join(repo, "packages/core/dist/expose/webmcp-schema.js")).href);
        const refused = refusedByCase(tentativeCases());
        // Constructs of our subset that zod translations emit (docs/webmcp.md, "The schema projection").
        const raw = {
          type: "object",
          $defs: { Id: { type: "string", pattern: "^dev_[a-z0-9]+$" } },
          properties: { ids: { type: "array", items: { $ref: "#/$defs/Id" }, minItems: 1 }, since: { type: "string", format: "date" }, meta: { type: "object", additionalProperties: true } },
          required: ["ids"],
          additionalProperties: false,
        };
        assert.deepEqual(casesHit(raw, refused).map((h) => h.split(": ")[0]), [
          "registerTool rejects $ref (remote/DAG, excluded)",
          "registerTool rejects format (excluded)",
          "registerTool rejects additionalProperties:true (only false allowed)",
          "registerTool rejects $defs (excluded)",
        ]);
        assert.deepEqual(casesHit(projectForWebMCP(raw).schema, refused), []);
      });

      test("the file adapted only in its schemas: registerTool resolves for every projected schema", async () => {
        wpt.state.projected = projected;
        const results = await runFile(ctx.browser, `${wpt.origin}/${TENTATIVE}?schemas=projected`);
        assert.equal(results.harness, "OK", results.message);
        assert.deepEqual(results.tests.map((t) => t.name), projected.map(([label]) => label));
        assert.deepEqual(results.tests.filter((t) => t.status !== "PASS"), []);
      });
    });
  });
}
