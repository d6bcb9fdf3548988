// The docs app's build configuration, and the one docs/react.md shows (test/docs.test.js builds
// the docs app with it).
// vite.config.ts
import react from "@vitejs/plugin-react";
import agentSurface from "@agent-surface/vite";
import { defineConfig } from "vite";

export default defineConfig({ plugins: [react(), agentSurface()] });
