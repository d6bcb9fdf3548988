// The agent-surface plugin for esbuild: `import agentSurface from "@agent-surface/unplugin/esbuild"`.
import { unplugin } from "./index.js";

export default unplugin.esbuild;
