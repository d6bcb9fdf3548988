// What every schema-library oracle's command line shares (zod, zod 3, Valibot, ArkType, TypeBox):
// its options and reading its corpus. Plain Node, no dependency.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** `--corpus FILE` (default: corpus.jsonl beside the oracle), `--only a,b`, `--pretty`. */
export function oracleArgs(here) {
  const args = process.argv.slice(2);
  const opt = (flag) => {
    const i = args.indexOf(flag);
    return i >= 0 ? args[i + 1] : undefined;
  };
  return { corpusPath: opt("--corpus") ?? join(here, "corpus.jsonl"), only: opt("--only")?.split(","), pretty: args.includes("--pretty") };
}

/**
 * The corpus's entries, one JSON object a line; `validateEntry(entry, line, names)` returns the
 * entry's problems. Any problem is printed with its line and the oracle exits 2.
 */
export function readCorpus(corpusPath, validateEntry) {
  const entries = [];
  const names = new Set();
  const errors = [];
  readFileSync(corpusPath, "utf8").split("\n").forEach((text, i) => {
    if (!text.trim()) return;
    let e;
    try {
      e = JSON.parse(text);
    } catch (err) {
      errors.push(`corpus line ${i + 1}: ${err.message}`);
      return;
    }
    errors.push(...validateEntry(e, i + 1, names));
    entries.push(e);
  });
  if (errors.length) {
    for (const m of errors) console.error(m);
    process.exit(2);
  }
  return entries;
}
