import { fileURLToPath } from "node:url";
import react from "@vitejs/plugin-react";
import agentSurface from "@agent-surface/vite";
import { defineConfig, type Plugin } from "vite";
import { createDevicesRpc } from "./server/devices.js";

/** The devices oRPC server (server/devices.js, RPCHandler at /rpc) inside the dev server. */
function devicesRpc(): Plugin {
  return {
    name: "devices-rpc",
    configureServer(server) {
      const rpc = createDevicesRpc();
      server.middlewares.use((req, res, next) => {
        rpc.handle(req, res).then((matched: boolean) => matched || next(), next);
      });
    },
  };
}

export default defineConfig({
  // agentSurface() runs the compiler: AGENT_SURFACE_BINARY, else @agent-surface/cli's binary, else PATH.
  plugins: [react(), agentSurface(), devicesRpc()],
  resolve: {
    alias: { "@": fileURLToPath(new URL("./src", import.meta.url)) },
    // The repository's packages are file: links with their own dev installs of React and the
    // AI SDK; one copy of each in the bundle.
    dedupe: ["react", "react-dom", "ai", "@agent-surface/core"],
  },
});
