// The compiler recognizes imports from @agent-surface/core by name (AS0015 for anything else):
// its lists in crates/compiler/src/extract.rs must be exactly what this package exports.
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "vitest";
import * as core from "../dist/index.js";
import { packageDir } from "./paths.js";

function compilerList(name) {
  const source = readFileSync(path.resolve(packageDir, "../../crates/compiler/src/extract.rs"), "utf8");
  const body = source.match(new RegExp(`pub const ${name}: &\\[&str\\] = &\\[([^\\]]*)\\];`))?.[1];
  if (body === undefined) throw new Error(`${name} not found in extract.rs`);
  return [...body.matchAll(/"([^"]+)"/g)].map((m) => m[1]).sort();
}

test("the compiler knows every value the package exports, and no other", () => {
  expect(compilerList("CORE_VALUE_EXPORTS")).toEqual(Object.keys(core).sort());
});

test("the compiler knows every type the package's root declarations export", () => {
  const index = readFileSync(path.join(packageDir, "dist/index.d.ts"), "utf8");
  // Modules whose types the root re-exports (`export type * from` or `export type { … } from`).
  const names = new Set();
  for (const m of index.matchAll(/export type \{([^}]*)\} from/g)) {
    for (const n of m[1].split(",")) if (n.trim()) names.add(n.trim().split(/\s+as\s+/).pop());
  }
  for (const m of index.matchAll(/export type \* from "\.\/([^"]+)\.js"/g)) {
    const d = readFileSync(path.join(packageDir, "dist", `${m[1]}.d.ts`), "utf8");
    for (const t of d.matchAll(/^export (?:declare )?(?:type|interface) ([A-Za-z0-9_]+)/gm)) names.add(t[1]);
  }
  expect(readdirSync(path.join(packageDir, "dist")).includes("types.d.ts")).toBe(true);
  expect(compilerList("CORE_TYPE_EXPORTS")).toEqual([...names].sort());
});
