#!/usr/bin/env node
// The oracle side of the ArkType differential test (issue 29).
//
// For every corpus entry it evaluates `setup` + `expr` with the real, pinned arktype 2.2.9
// (`import { type } from "arktype"`), calls `T.toJsonSchema()` exactly as an app author would
// (no options), and prints one JSON line per entry. toJsonSchema has no io mode: every entry
// runs once. ArkType writes 2020-12 (`$schema` kept; no normalisation). `checkSubset` (shared
// by every oracle, test-tools/subset-check.mjs) decides in or out of the subset:
//
//   expect "match"                 → the library returns a schema inside the subset
//   expect "refuse"                → it throws, returns nothing, or leaves the subset
//   expect "refuse" + policy: true → its schema is in the subset but misrepresents the type
//
// Usage: node oracle.mjs [--corpus file] [--only name[,name…]] [--pretty]
// Exit status: 0 when every entry is consistent, 1 otherwise (2 on a malformed corpus or versions).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { type } from "arktype";
import { checkSubset, lowerEnums } from "../subset-check.mjs";
import { oracleArgs, readCorpus } from "../oracle-kit.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const VERSIONS = {
  arktype: [JSON.parse(readFileSync(join(here, "node_modules/arktype/package.json"), "utf8")).version, "2.2.9"],
};
const DIALECT = "https://json-schema.org/draft/2020-12/schema";

function build(entry) {
  const code = `"use strict";\n${lowerEnums(entry.setup ?? "")}\nreturn (${entry.expr});`;
  return new Function("type", code)(type);
}

const REQUIRED = ["name", "expr", "expect"];
function validateEntry(e, line, names) {
  const problems = [];
  for (const f of REQUIRED) if (typeof e[f] !== "string" || e[f] === "") problems.push(`missing ${f}`);
  if (!["match", "refuse"].includes(e.expect)) problems.push(`bad expect ${JSON.stringify(e.expect)}`);
  if (e.expect === "refuse" && (!e.construct || !e.why)) problems.push("refuse entries need construct and why");
  if (e.policy !== undefined && (e.policy !== true || e.expect !== "refuse")) problems.push("policy: true only on refuse entries");
  if (names.has(e.name)) problems.push(`duplicate name ${e.name}`);
  names.add(e.name);
  return problems.map((p) => `corpus line ${line}: ${p}`);
}

function main() {
  const { corpusPath, only, pretty } = oracleArgs(here);
  for (const [name, [have, pinned]] of Object.entries(VERSIONS)) {
    if (have !== pinned) {
      console.error(`arktype-oracle: ${name} ${have} is installed, the oracle is pinned to ${pinned}; run npm ci`);
      process.exit(2);
    }
  }
  const entries = readCorpus(corpusPath, validateEntry);
  const stats = { entries: 0, match: 0, refuse: 0, policy: 0, threw: 0, outOfSubset: 0, inconsistent: 0 };
  const inconsistent = [];
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
      if (typeof schema?.toJsonSchema !== "function") throw new Error("expr did not evaluate to an ArkType type");
      try {
        const out = schema.toJsonSchema();
        line.ok = true;
        line.schema = JSON.parse(JSON.stringify(out)); // what reaches a manifest: JSON (a BigInt throws)
      } catch (err) {
        line.ok = false;
        line.phase = "toJsonSchema";
        line.error = String(err.message ?? err);
      }
    } catch (err) {
      buildError = err;
      line.ok = false;
      line.phase = "build";
      line.error = String(err.message ?? err);
    }
    if (line.ok) {
      violations = line.schema.$schema === DIALECT
        ? checkSubset(line.schema)
        : [{ pointer: "/$schema", keyword: "$schema", message: `not 2020-12: ${line.schema.$schema}` }];
    } else {
      stats.threw++;
      violations = [{ pointer: "", keyword: null, message: `threw: ${line.error}` }];
    }
    line.inSubset = violations.length === 0;
    if (!line.inSubset) {
      if (line.ok) stats.outOfSubset++;
      line.violations = violations;
    }
    line.expect = entry.expect;
    let consistent;
    // ArkType parses definitions when type(...) runs: its throw there is a refusal too.
    if (line.phase === "build") consistent = entry.expect === "refuse" && !entry.policy;
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
  console.log(JSON.stringify({ summary: { arktype: VERSIONS.arktype[0], ...stats } }));
  for (const m of inconsistent) console.error(`arktype-oracle: INCONSISTENT ${m}`);
  console.error(
    `arktype-oracle: arktype ${VERSIONS.arktype[0]}, ${stats.entries} entries ` +
      `(${stats.match} match, ${stats.refuse} refuse of which ${stats.policy} by policy), ${stats.threw} threw, ` +
      `${stats.outOfSubset} out-of-subset outputs, ${stats.inconsistent} inconsistent`,
  );
  process.exit(stats.inconsistent ? 1 : 0);
}

main();
