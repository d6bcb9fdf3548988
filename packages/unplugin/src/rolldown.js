// The agent-surface plugin for rolldown: `import agentSurface from "@agent-surface/unplugin/rolldown"`.
import { unplugin } from "./index.js";

export default unplugin.rolldown;
