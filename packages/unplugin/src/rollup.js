// The agent-surface plugin for rollup: `import agentSurface from "@agent-surface/unplugin/rollup"`.
import { unplugin } from "./index.js";

export default unplugin.rollup;
