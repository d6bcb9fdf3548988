// The agent-surface plugin for webpack: `import agentSurface from "@agent-surface/unplugin/webpack"`.
import { unplugin } from "./index.js";

export default unplugin.webpack;
