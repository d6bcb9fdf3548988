#!/usr/bin/env node
// The oracle side of the zod 3 differential test (issue 29).
//
// For every corpus entry it evaluates `setup` + `expr` with the real, pinned zod 3.25.76 (its
// `zod` entry point, the zod 3 API), calls `zodToJsonSchema(schema)` of the pinned
// zod-to-json-schema 3.25.2 exactly as an app author would (or with the entry's `options`,
// e.g. `{ "$refStrategy": "none" }`), and prints one JSON line per entry. zod-to-json-schema has
// no io mode: every entry runs once, in mode "both" of the compiler's point of view.
//
// Normalisation to the subset (the only one; docs/schemas.md "zod 3"): the root
// `"$schema": "http://json-schema.org/draft-07/schema#"` is removed — the manifest's schemas are
// 2020-12, and the subset's keywords mean the same in both dialects. Then `checkSubset` (shared
// by every oracle, test-tools/subset-check.mjs) decides in or out of the subset:
//
//   expect "match"                 → the library returns a schema inside the subset
//   expect "refuse"                → it throws, returns nothing, or leaves the subset
//   expect "refuse" + policy: true → its schema is in the subset but misrepresents the zod
//                                    schema (a refinement or transform silently dropped, ...)
//
// Usage: node oracle.mjs [--corpus file] [--only name[,name…]] [--pretty]
// Exit status: 0 when every entry is consistent, 1 otherwise (2 on a malformed corpus or versions).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { createRequire } from "node:module";
import { z } from "zod";
import { zodToJsonSchema } from "zod-to-json-schema";
import { checkSubset, lowerEnums } from "../subset-check.mjs";
import { oracleArgs, readCorpus } from "../oracle-kit.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const VERSIONS = {
  zod: [require("zod/package.json").version, "3.25.76"],
  "zod-to-json-schema": [JSON.parse(readFileSync(join(here, "node_modules/zod-to-json-schema/package.json"), "utf8")).version, "3.25.2"],
};
const DRAFT_07 = "http://json-schema.org/draft-07/schema#";

function build(entry) {
  const code = `"use strict";\n${lowerEnums(entry.setup ?? "")}\nreturn (${entry.expr});`;
  return new Function("z", code)(z);
}

const REQUIRED = ["name", "expr", "expect"];
function validateEntry(e, line, names) {
  const problems = [];
  for (const f of REQUIRED) if (typeof e[f] !== "string" || e[f] === "") problems.push(`missing ${f}`);
  if (!["match", "refuse"].includes(e.expect)) problems.push(`bad expect ${JSON.stringify(e.expect)}`);
  if (e.expect === "refuse" && (!e.construct || !e.why)) problems.push("refuse entries need construct and why");
  if (e.policy !== undefined && (e.policy !== true || e.expect !== "refuse")) problems.push("policy: true only on refuse entries");
  if (e.options !== undefined && (typeof e.options !== "object" || e.options === null)) problems.push("options must be an object");
  if (names.has(e.name)) problems.push(`duplicate name ${e.name}`);
  names.add(e.name);
  return problems.map((p) => `corpus line ${line}: ${p}`);
}

function main() {
  const { corpusPath, only, pretty } = oracleArgs(here);
  for (const [name, [have, pinned]] of Object.entries(VERSIONS)) {
    if (have !== pinned) {
      console.error(`zod3-oracle: ${name} ${have} is installed, the oracle is pinned to ${pinned}; run npm ci`);
      process.exit(2);
    }
  }
  const entries = readCorpus(corpusPath, validateEntry);
  const stats = { entries: 0, match: 0, refuse: 0, policy: 0, threw: 0, outOfSubset: 0, inconsistent: 0 };
  const inconsistent = [];
  const warn = console.warn;
  for (const entry of entries) {
    if (only && !only.includes(entry.name)) continue;
    stats.entries++;
    stats[entry.expect]++;
    if (entry.policy) stats.policy++;
    const line = { name: entry.name, io: "both" };
    let violations;
    let buildError;
    try {
      const schema = build(entry);
      if (!schema?._def) throw new Error("expr did not evaluate to a zod 3 schema");
      console.warn = () => {}; // zod-to-json-schema warns on recursion with $refStrategy "none"
      try {
        const out = zodToJsonSchema(schema, entry.options);
        line.ok = true;
        line.schema = JSON.parse(JSON.stringify(out)); // what reaches a manifest: JSON (a BigInt throws)
      } catch (err) {
        line.ok = false;
        line.phase = "zodToJsonSchema";
        line.error = String(err.message ?? err);
      } finally {
        console.warn = warn;
      }
    } catch (err) {
      buildError = err;
      line.ok = false;
      line.phase = "build";
      line.error = String(err.message ?? err);
    }
    if (line.ok) {
      if (line.schema.$schema !== DRAFT_07) {
        violations = [{ pointer: "/$schema", keyword: "$schema", message: `not draft-07: ${line.schema.$schema}` }];
      } else {
        const { $schema, ...normalised } = line.schema;
        line.schema = normalised;
        violations = checkSubset(normalised);
      }
    } else {
      if (!buildError) stats.threw++;
      violations = [{ pointer: "", keyword: null, message: `threw: ${line.error}` }];
    }
    line.inSubset = violations.length === 0;
    if (!line.inSubset) {
      if (line.ok) stats.outOfSubset++;
      line.violations = violations;
    }
    line.expect = entry.expect;
    let consistent;
    if (line.phase === "build") consistent = false;
    else if (entry.expect === "match") consistent = line.inSubset;
    else if (entry.policy) consistent = line.inSubset;
    else consistent = !line.inSubset;
    line.consistent = consistent;
    if (!consistent) {
      stats.inconsistent++;
      inconsistent.push(`${entry.name}: expect ${entry.expect}${entry.policy ? " (policy)" : ""}, ` +
        (line.phase === "build" ? `expr failed: ${line.error}` : line.inSubset ? "output is inside the subset" : `out of subset: ${violations[0].pointer} ${violations[0].message}`));
    }
    console.log(pretty ? JSON.stringify(line, null, 2) : JSON.stringify(line));
  }
  console.log(JSON.stringify({ summary: { zod: VERSIONS.zod[0], "zod-to-json-schema": VERSIONS["zod-to-json-schema"][0], ...stats } }));
  for (const m of inconsistent) console.error(`zod3-oracle: INCONSISTENT ${m}`);
  console.error(
    `zod3-oracle: zod ${VERSIONS.zod[0]} + zod-to-json-schema ${VERSIONS["zod-to-json-schema"][0]}, ${stats.entries} entries ` +
      `(${stats.match} match, ${stats.refuse} refuse of which ${stats.policy} by policy), ${stats.threw} threw, ` +
      `${stats.outOfSubset} out-of-subset outputs, ${stats.inconsistent} inconsistent`,
  );
  process.exit(stats.inconsistent ? 1 : 0);
}

main();
