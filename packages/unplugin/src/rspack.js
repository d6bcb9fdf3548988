// The agent-surface plugin for rspack: `import agentSurface from "@agent-surface/unplugin/rspack"`.
import { unplugin } from "./index.js";

export default unplugin.rspack;
