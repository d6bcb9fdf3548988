import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.js"],
    globalSetup: ["./test/global-setup.js"],
    pool: "forks",
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
