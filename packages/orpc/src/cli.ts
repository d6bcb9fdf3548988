#!/usr/bin/env node
// agent-surface-orpc: writes (or checks) the literal procedure contracts of an oRPC contract router.
//
//   agent-surface-orpc <config module> [--check]
//
// The config module's default export is `defineORPCContracts({ router, procedures, output, ... })`
// (a .js/.mjs module; a .ts one on a Node that strips types, >= 22.18). `output` is relative to
// the config module. `--check` writes nothing and exits 1 when the file differs from what the
// router gives now (CI: the page's contracts still match the server's schemas).
// Exit codes: 0 written or current, 1 stale (--check), 2 bad usage or config.

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { checkProcedureContracts, procedureContractsSource, type ORPCContractsConfig } from "./contracts.js";

const USAGE = "usage: agent-surface-orpc <config module> [--check]";

async function main(argv: string[]): Promise<number> {
  const args = argv.filter((a) => a !== "--check");
  const check = argv.includes("--check");
  if (args.length !== 1 || args[0]!.startsWith("-")) {
    console.error(USAGE);
    return 2;
  }
  const configPath = path.resolve(args[0]!);
  if (!existsSync(configPath)) {
    console.error(`error: ${configPath}: no such file\n${USAGE}`);
    return 2;
  }
  let config: ORPCContractsConfig;
  try {
    const mod = (await import(pathToFileURL(configPath).href)) as { default?: ORPCContractsConfig };
    if (mod.default === null || typeof mod.default !== "object") throw new Error("its default export is not the config (export default defineORPCContracts({...}))");
    config = mod.default;
    if (typeof config.output !== "string" || config.output === "") throw new Error("the config has no output (the generated module's path, relative to the config)");
  } catch (e) {
    console.error(`error: ${configPath}: ${(e as Error).message}`);
    return 2;
  }
  const out = path.resolve(path.dirname(configPath), config.output);
  const rel = path.relative(process.cwd(), out) || out;
  // The command as run from the config's folder: the same text whatever the working directory.
  const source = config.source ?? `agent-surface-orpc ${path.basename(configPath)}`;
  try {
    if (check) {
      const current = existsSync(out) ? readFileSync(out, "utf8") : "";
      const result = checkProcedureContracts({ ...config, source }, current);
      if (result.ok) {
        console.log(`${rel} matches the oRPC contract router`);
        return 0;
      }
      console.error(
        `error: ${rel} does not match the oRPC contract router (line ${result.line}):\n  expected: ${result.expected}\n  found:    ${result.actual}\nregenerate it: agent-surface-orpc ${args[0]}`,
      );
      return 1;
    }
    writeFileSync(out, procedureContractsSource({ ...config, source }));
    console.log(`wrote ${rel}`);
    return 0;
  } catch (e) {
    console.error(`error: ${configPath}: ${(e as Error).message}`);
    return 2;
  }
}

process.exitCode = await main(process.argv.slice(2));
