// The agent-surface plugin for rsbuild: `import agentSurface from "@agent-surface/unplugin/rsbuild"`.
import { unplugin } from "./index.js";

export default unplugin.rsbuild;
