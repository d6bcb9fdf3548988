#!/usr/bin/env node
// The oracle side of the zod differential test (issue 3, DECISIONS.md §9).
//
// For every corpus entry it evaluates `setup` + `expr` with the real, pinned zod 4.6.7, calls
// `z.toJSONSchema(schema, { io })` exactly as an app author would (no other option), and prints
// one JSON line per (entry, io mode). Each result is run through `checkSubset`, a JavaScript
// mirror of the supported JSON Schema subset (spec/core-api.md "Supported JSON Schema subset",
// crates/schema/src/subset/), and compared with the entry's `expect` so the corpus cannot drift:
//
//   expect "match"                 → zod returns a schema and it is inside the subset
//   expect "refuse"                → zod throws, or its schema leaves the subset
//   expect "refuse" + policy: true → zod returns an in-subset schema that misrepresents the zod
//                                    schema (e.g. regex flags dropped); refused by policy
//
// Usage: node oracle.mjs [--corpus file] [--only name[,name…]] [--pretty]
// Output: JSON lines on stdout, the last one `{"summary": {...}}`; a human summary on stderr.
// Exit status: 0 when every entry is consistent, 1 otherwise (2 on a malformed corpus).

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { createRequire } from "node:module";
import { z } from "zod";

const here = dirname(fileURLToPath(import.meta.url));
const ZOD_VERSION = createRequire(import.meta.url)("zod/package.json").version;
const PINNED = "4.6.7";

// The supported subset and the enum lowering: ../subset-check.mjs, shared by every oracle (the
// zod 3 and ArkType oracles import them from here too).
import { checkSubset, lowerEnums } from "../subset-check.mjs";
import { oracleArgs, readCorpus } from "../oracle-kit.mjs";
export { checkSubset, lowerEnums };

const ptrText = (segs) => segs.map((s) => "/" + String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("");
const isObj = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

/** Patterns that are valid without flags but not under the `u` flag (informational only). */
function nonUnicodePatterns(schema, segs = [], found = []) {
  if (Array.isArray(schema)) schema.forEach((v, i) => nonUnicodePatterns(v, [...segs, i], found));
  else if (isObj(schema)) {
    for (const [k, v] of Object.entries(schema)) {
      if (k === "pattern" && typeof v === "string") {
        try {
          new RegExp(v, "u");
        } catch {
          found.push(ptrText([...segs, k]));
        }
      } else if (typeof v === "object") nonUnicodePatterns(v, [...segs, k], found);
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// Corpus evaluation


function build(entry) {
  const code = `"use strict";\n${lowerEnums(entry.setup ?? "")}\nreturn (${entry.expr});`;
  return new Function("z", code)(z);
}

const REQUIRED = ["name", "expr", "io", "expect"];
function validateEntry(e, line, names) {
  const problems = [];
  for (const f of REQUIRED) if (typeof e[f] !== "string" || e[f] === "") problems.push(`missing ${f}`);
  if (!["input", "output", "both"].includes(e.io)) problems.push(`bad io ${JSON.stringify(e.io)}`);
  if (!["match", "refuse"].includes(e.expect)) problems.push(`bad expect ${JSON.stringify(e.expect)}`);
  if (e.expect === "refuse" && (!e.construct || !e.why)) problems.push("refuse entries need construct and why");
  if (e.policy !== undefined && (e.policy !== true || e.expect !== "refuse")) problems.push("policy: true only on refuse entries");
  if (e.setup !== undefined && typeof e.setup !== "string") problems.push("setup must be a string");
  if (names.has(e.name)) problems.push(`duplicate name ${e.name}`);
  names.add(e.name);
  return problems.map((p) => `corpus line ${line}: ${p}`);
}

function main() {
  const { corpusPath, only, pretty } = oracleArgs(here);

  if (ZOD_VERSION !== PINNED) {
    console.error(`zod-oracle: zod ${ZOD_VERSION} is installed, the oracle is pinned to ${PINNED}; run npm ci`);
    process.exit(2);
  }

  const entries = readCorpus(corpusPath, validateEntry);

  const stats = { entries: 0, match: 0, refuse: 0, policy: 0, runs: 0, zodThrew: 0, outOfSubset: 0, inconsistent: 0 };
  const inconsistent = [];
  for (const entry of entries) {
    if (only && !only.includes(entry.name)) continue;
    stats.entries++;
    stats[entry.expect]++;
    if (entry.policy) stats.policy++;
    let schema;
    let buildError;
    try {
      schema = build(entry);
      if (!schema?._zod) throw new Error("expr did not evaluate to a zod schema");
    } catch (err) {
      buildError = err;
    }
    for (const io of entry.io === "both" ? ["input", "output"] : [entry.io]) {
      stats.runs++;
      const line = { name: entry.name, io };
      let violations;
      if (buildError) {
        // a corpus bug, never an expected outcome
        line.ok = false;
        line.phase = "build";
        line.error = String(buildError.message ?? buildError);
      } else {
        try {
          line.schema = z.toJSONSchema(schema, { io });
          line.ok = true;
        } catch (err) {
          line.ok = false;
          line.phase = "toJSONSchema";
          line.error = String(err.message ?? err);
        }
      }
      // keep `ok` right after name/io, then schema/error
      const ordered = { name: line.name, io, ok: line.ok };
      if (line.ok) {
        ordered.schema = line.schema;
        violations = checkSubset(line.schema);
        const nonU = nonUnicodePatterns(line.schema);
        if (nonU.length) ordered.patternsInvalidUnderUFlag = nonU;
      } else {
        ordered.phase = line.phase;
        ordered.error = line.error;
        stats.zodThrew++;
        violations = [{ pointer: "", keyword: null, message: `zod threw: ${line.error}` }];
      }
      ordered.inSubset = violations.length === 0;
      if (!ordered.inSubset) {
        stats.outOfSubset += line.ok ? 1 : 0;
        ordered.violations = violations;
      }
      ordered.expect = entry.expect;
      let consistent;
      if (line.phase === "build") consistent = false;
      else if (entry.expect === "match") consistent = ordered.inSubset;
      else if (entry.policy) consistent = ordered.inSubset; // a policy refusal must be needed
      else consistent = !ordered.inSubset;
      ordered.consistent = consistent;
      if (!consistent) {
        stats.inconsistent++;
        inconsistent.push(`${entry.name} [${io}]: expect ${entry.expect}${entry.policy ? " (policy)" : ""}, ` +
          (line.phase === "build" ? `expr failed: ${line.error}` : ordered.inSubset ? "zod output is inside the subset" : `out of subset: ${violations[0].pointer} ${violations[0].message}`));
      }
      console.log(pretty ? JSON.stringify(ordered, null, 2) : JSON.stringify(ordered));
    }
  }
  console.log(JSON.stringify({ summary: { zod: ZOD_VERSION, ...stats } }));
  for (const m of inconsistent) console.error(`zod-oracle: INCONSISTENT ${m}`);
  console.error(
    `zod-oracle: zod ${ZOD_VERSION}, ${stats.entries} entries (${stats.match} match, ${stats.refuse} refuse of which ${stats.policy} by policy), ` +
      `${stats.runs} runs, ${stats.zodThrew} zod errors, ${stats.outOfSubset} out-of-subset outputs, ${stats.inconsistent} inconsistent`,
  );
  process.exit(stats.inconsistent ? 1 : 0);
}

// Run only as a script (importing it runs nothing).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
