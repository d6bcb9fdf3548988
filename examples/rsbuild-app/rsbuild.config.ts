import { defineConfig } from "@rsbuild/core";
import { pluginReact } from "@rsbuild/plugin-react";
import agentSurface from "@agent-surface/unplugin/rsbuild";

export default defineConfig({
  plugins: [pluginReact(), agentSurface()],
  source: { entry: { index: "./src/index.tsx" } },
  // The repository's packages are linked (file:): one React for the app and @agent-surface/react.
  resolve: { alias: { "@": "./src" }, dedupe: ["react", "react-dom"] },
  html: { title: "devices (Rsbuild)" },
});
