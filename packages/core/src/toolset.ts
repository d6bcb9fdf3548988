// createAgentToolset: the toolset over a registry of this package (direct or meta tools, wire
// names, confirmations, provider tool blocks); implemented in ./expose/.
export { catalogIdOf, createAgentToolset } from "./expose/toolset.js";
