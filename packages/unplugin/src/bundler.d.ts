import type { AgentSurfaceOptions } from "./index.js";

/** The agent-surface plugin of this bundler (one entry per bundler: vite, rollup, rolldown, webpack, rspack, rsbuild, esbuild). */
declare const agentSurface: (options?: AgentSurfaceOptions) => any;
export default agentSurface;
export type { AgentSurfaceOptions };
