// The agent-surface plugin for vite: `import agentSurface from "@agent-surface/unplugin/vite"`.
import { unplugin } from "./index.js";

export default unplugin.vite;
