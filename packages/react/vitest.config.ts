// Two runs of the same tests: React 19 (this package's devDependencies) and React 18 (a separate
// install under test/react18/, aliased here: npm cannot alias react-dom@18 beside react@19,
// because react-dom's peer dependency on react resolves to the top-level 19).
//
// The fixture contracts (test/app/src/contracts.ts) are imported through @agent-surface/vite, as
// an app's are: the plugin compiles test/app with the real compiler (AGENT_SURFACE_BINARY, else
// the repository's target/debug/agent-surface), inserts each macro call's provenance and serves
// `virtual:agent-surface/authority`.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import agentSurface from "@agent-surface/vite";
import { defineConfig } from "vitest/config";

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const repoBinary = here("../../target/debug/agent-surface");
const binary = process.env.AGENT_SURFACE_BINARY ?? (existsSync(repoBinary) ? repoBinary : undefined);
const react18 = (name: string) => here(`./test/react18/node_modules/${name}`);

export default defineConfig({
  plugins: [agentSurface({ root: "test/app", binary })],
  // The fixture app imports this package by name, as an app does: the build under test.
  resolve: { alias: [{ find: /^@agent-surface\/react$/, replacement: here("./dist/index.js") }] },
  test: {
    globalSetup: ["./test/global-setup.ts"],
    setupFiles: ["./test/setup.ts"],
    environment: "happy-dom",
    include: ["test/**/*.test.{ts,tsx}"],
    projects: [
      { extends: true, test: { name: "react19", env: { EXPECTED_REACT_MAJOR: "19" } } },
      {
        extends: true,
        resolve: {
          alias: [
            { find: /^react$/, replacement: react18("react/index.js") },
            { find: /^react\/(.*)$/, replacement: react18("react/$1.js") },
            { find: /^react-dom$/, replacement: react18("react-dom/index.js") },
            { find: /^react-dom\/(.*)$/, replacement: react18("react-dom/$1.js") },
            { find: /^@testing-library\/react$/, replacement: react18("@testing-library/react/dist/index.js") },
          ],
        },
        test: { name: "react18", env: { EXPECTED_REACT_MAJOR: "18" } },
      },
    ],
  },
});
