#!/usr/bin/env node
// The oracle side of the TypeBox differential test (issue 29).
//
// TypeBox builders are JSON Schema: a page passes the value to `fromJsonSchema(T)`, which reads
// its own enumerable keys (TypeBox's markers are symbols in 0.34 and non-enumerable `~` keys in
// 1.x). For every corpus entry this evaluates `setup` + `expr` with the real, pinned TypeBox in
// each mode and prints that JSON (`JSON.parse(JSON.stringify(T))`):
//
//   mode "typebox"  → typebox 1.4.3           (import Type from "typebox")
//   mode "sinclair" → @sinclair/typebox 0.34.52 (import { Type } from "@sinclair/typebox")
//
// Each result goes through checkSubset (../subset-check.mjs) and is compared with the entry's
// `expect`: "match" = in the subset (the compiler must produce it exactly); "refuse" = outside
// the subset or TypeBox throws (the compiler must refuse).
//
// Usage: node oracle.mjs [--corpus file] [--only name[,name…]] [--pretty]
// Exit status: 0 consistent, 1 some entry disagrees with its `expect`, 2 bad corpus or versions.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import TypeV1 from "typebox";
import { Type as Type034 } from "@sinclair/typebox";
import { checkSubset, lowerEnums } from "../subset-check.mjs";
import { oracleArgs, readCorpus } from "../oracle-kit.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const PINNED = { typebox: "1.4.3", "@sinclair/typebox": "0.34.52" };
export const MODES = ["typebox", "sinclair"];
const TYPES = { typebox: TypeV1, sinclair: Type034 };

function build(entry, mode) {
  return new Function("Type", `"use strict";\n${lowerEnums(entry.setup ?? "")}\nreturn (${entry.expr});`)(TYPES[mode]);
}

function validateEntry(e, line, names) {
  const problems = [];
  for (const f of ["name", "expr", "expect"]) if (typeof e[f] !== "string" || e[f] === "") problems.push(`missing ${f}`);
  if (!["match", "refuse"].includes(e.expect)) problems.push(`bad expect ${JSON.stringify(e.expect)}`);
  if (e.modes !== undefined && (!Array.isArray(e.modes) || !e.modes.every((m) => MODES.includes(m)))) problems.push("bad modes");
  if (e.expect === "refuse" && (!e.construct || !e.why)) problems.push("refuse entries need construct and why");
  if (names.has(e.name)) problems.push(`duplicate name ${e.name}`);
  names.add(e.name);
  return problems.map((p) => `corpus line ${line}: ${p}`);
}

function main() {
  const { corpusPath, only, pretty } = oracleArgs(here);
  for (const [pkg, want] of Object.entries(PINNED)) {
    const got = JSON.parse(readFileSync(join(here, "node_modules", pkg, "package.json"), "utf8")).version;
    if (got !== want) {
      console.error(`typebox-oracle: ${pkg} ${got} is installed, the oracle is pinned to ${want}; run npm ci`);
      process.exit(2);
    }
  }
  const entries = readCorpus(corpusPath, validateEntry);
  const stats = { entries: 0, match: 0, refuse: 0, runs: 0, threw: 0, outOfSubset: 0, inconsistent: 0 };
  const inconsistent = [];
  for (const entry of entries) {
    if (only && !only.includes(entry.name)) continue;
    stats.entries++;
    stats[entry.expect]++;
    for (const mode of entry.modes ?? MODES) {
      stats.runs++;
      const line = { name: entry.name, mode };
      let violations;
      try {
        const t = build(entry, mode);
        if (t === null || typeof t !== "object") throw new Error("expr did not evaluate to a schema object");
        line.schema = JSON.parse(JSON.stringify(t));
        line.ok = true;
        violations = checkSubset(line.schema);
      } catch (err) {
        line.ok = false;
        line.error = String(err.message ?? err);
        stats.threw++;
        violations = [{ pointer: "", keyword: null, message: `TypeBox threw: ${line.error}` }];
      }
      line.inSubset = violations.length === 0;
      if (!line.inSubset) {
        if (line.ok) stats.outOfSubset++;
        line.violations = violations;
      }
      line.expect = entry.expect;
      const consistent = entry.expect === "match" ? line.inSubset : !line.inSubset;
      line.consistent = consistent;
      if (!consistent) {
        stats.inconsistent++;
        inconsistent.push(`${entry.name} [${mode}]: expect ${entry.expect}, ` + (line.inSubset ? "in the subset" : `out of subset: ${violations[0].pointer} ${violations[0].message}`));
      }
      console.log(pretty ? JSON.stringify(line, null, 2) : JSON.stringify(line));
    }
  }
  console.log(JSON.stringify({ summary: { ...PINNED, ...stats } }));
  for (const m of inconsistent) console.error(`typebox-oracle: INCONSISTENT ${m}`);
  console.error(`typebox-oracle: typebox ${PINNED.typebox} and @sinclair/typebox ${PINNED["@sinclair/typebox"]}, ${stats.entries} entries (${stats.match} match, ${stats.refuse} refuse), ${stats.runs} runs, ${stats.threw} TypeBox errors, ${stats.outOfSubset} out-of-subset outputs, ${stats.inconsistent} inconsistent`);
  process.exit(stats.inconsistent ? 1 : 0);
}

main();
