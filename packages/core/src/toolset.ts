// createAgentToolset: the toolset over a registry of this package (direct or meta tools, wire
// names, confirmations, provider tool blocks); implemented in ./expose/.
export { createAgentToolset } from "./expose/toolset.js";
/** @internal The catalog id of a `tools()` array (src/bridge.ts sends it with every call). */
export { catalogIdOf } from "./expose/toolset.js";
/** @internal A toolset without provider tool blocks (src/webmcp.ts). */
export { bareToolset } from "./expose/toolset.js";
