import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const src = fileURLToPath(new URL("./src/", import.meta.url));

// AS_SRC=1 runs the suites against src/*.ts instead of the build (dist/), for work in progress:
// vite transpiles without type-checking, so one unfinished module does not block the others.
export default defineConfig({
  test: {
    globalSetup: process.env.AS_SRC ? [] : ["./test/global-setup.js"],
  },
  resolve: process.env.AS_SRC
    ? {
        alias: [
          { find: /^(?:\.\.\/)+dist\/(.*)\.js$/, replacement: `${src}$1.ts` },
          { find: /^@agent-surface\/core$/, replacement: `${src}index.ts` },
          { find: /^@agent-surface\/core\/(.*)$/, replacement: `${src}$1.ts` },
        ],
      }
    : {},
});
