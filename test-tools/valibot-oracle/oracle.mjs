#!/usr/bin/env node
// The oracle side of the Valibot differential test (issue 29).
//
// For every corpus entry it evaluates `setup` + `expr` with the real, pinned valibot 1.5.0 and
// converts it with the real @valibot/to-json-schema 1.8.0 exactly as an app author writes it:
//
//   mode "ignore"  → toJsonSchema(S, { target: "draft-2020-12" })
//   mode "input"   → toJsonSchema(S, { target: "draft-2020-12", typeMode: "input" })
//   mode "output"  → toJsonSchema(S, { target: "draft-2020-12", typeMode: "output" })
//   mode "draft-07"→ toJsonSchema(S)   (the converter's default target; its root $schema dropped)
//
// Each result goes through checkSubset (../subset-check.mjs) and is compared with the entry's
// `expect` so the corpus cannot drift: "match" = the converter returns an in-subset schema (the
// compiler must produce it exactly); "refuse" = the converter throws or leaves the subset (the
// compiler must refuse).
//
// Usage: node oracle.mjs [--corpus file] [--only name[,name…]] [--pretty]
// Output: JSON lines on stdout, the last one `{"summary": {...}}`; a human summary on stderr.
// Exit status: 0 when every entry is consistent, 1 otherwise, 2 on a malformed corpus or the
// wrong versions installed.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { dirname, join } from "node:path";
import * as v from "valibot";
import { toJsonSchema } from "@valibot/to-json-schema";
import { checkSubset, lowerEnums } from "../subset-check.mjs";
import { oracleArgs, readCorpus } from "../oracle-kit.mjs";

const here = dirname(fileURLToPath(import.meta.url));
const PINNED = { valibot: "1.5.0", "@valibot/to-json-schema": "1.8.0" };
export const MODES = ["ignore", "input", "output"];
export function optionsOf(mode) {
  if (mode === "draft-07") return undefined;
  return mode === "ignore" ? { target: "draft-2020-12" } : { target: "draft-2020-12", typeMode: mode };
}

function build(entry) {
  return new Function("v", `"use strict";\n${lowerEnums(entry.setup ?? "")}\nreturn (${entry.expr});`)(v);
}

function validateEntry(e, line, names) {
  const problems = [];
  for (const f of ["name", "expr", "expect"]) if (typeof e[f] !== "string" || e[f] === "") problems.push(`missing ${f}`);
  if (!["match", "refuse"].includes(e.expect)) problems.push(`bad expect ${JSON.stringify(e.expect)}`);
  if (e.modes !== undefined && (!Array.isArray(e.modes) || !e.modes.every((m) => [...MODES, "draft-07"].includes(m)))) problems.push("bad modes");
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
      console.error(`valibot-oracle: ${pkg} ${got} is installed, the oracle is pinned to ${want}; run npm ci`);
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
    let schema;
    let buildError;
    try {
      schema = build(entry);
      if (schema?.kind !== "schema") throw new Error("expr did not evaluate to a Valibot schema");
    } catch (err) {
      buildError = err;
    }
    for (const mode of entry.modes ?? MODES) {
      stats.runs++;
      const line = { name: entry.name, mode };
      let violations;
      if (buildError) {
        line.ok = false;
        line.phase = "build";
        line.error = String(buildError.message ?? buildError);
        violations = [{ pointer: "", keyword: null, message: line.error }];
      } else {
        try {
          line.schema = toJsonSchema(schema, optionsOf(mode));
          line.ok = true;
          // draft-07's root `$schema` is the one normalisation (the compiler and the page drop it
          // alike); the converter writes the rest, v.lazy's `$defs` included, as for draft 2020-12.
          const draft07 = mode === "draft-07" && line.schema?.$schema === "http://json-schema.org/draft-07/schema#";
          violations = checkSubset(draft07 ? (({ $schema: _dialect, ...rest }) => rest)(line.schema) : line.schema);
        } catch (err) {
          line.ok = false;
          line.phase = "toJsonSchema";
          line.error = String(err.message ?? err);
          stats.threw++;
          violations = [{ pointer: "", keyword: null, message: `toJsonSchema threw: ${line.error}` }];
        }
      }
      line.inSubset = violations.length === 0;
      if (!line.inSubset) {
        if (line.ok) stats.outOfSubset++;
        line.violations = violations;
      }
      line.expect = entry.expect;
      const consistent = line.phase !== "build" && (entry.expect === "match" ? line.inSubset : !line.inSubset);
      line.consistent = consistent;
      if (!consistent) {
        stats.inconsistent++;
        inconsistent.push(`${entry.name} [${mode}]: expect ${entry.expect}, ` + (line.phase === "build" ? `expr failed: ${line.error}` : line.inSubset ? "in the subset" : `out of subset: ${violations[0].pointer} ${violations[0].message}`));
      }
      console.log(pretty ? JSON.stringify(line, null, 2) : JSON.stringify(line));
    }
  }
  console.log(JSON.stringify({ summary: { ...PINNED, ...stats } }));
  for (const m of inconsistent) console.error(`valibot-oracle: INCONSISTENT ${m}`);
  console.error(`valibot-oracle: valibot ${PINNED.valibot} + to-json-schema ${PINNED["@valibot/to-json-schema"]}, ${stats.entries} entries (${stats.match} match, ${stats.refuse} refuse), ${stats.runs} runs, ${stats.threw} converter errors, ${stats.outOfSubset} out-of-subset outputs, ${stats.inconsistent} inconsistent`);
  process.exit(stats.inconsistent ? 1 : 0);
}

main();
