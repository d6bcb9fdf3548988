export interface AgentSurfaceNextOptions {
  /** Path of the `agent-surface` binary (relative to the project root). Default: $AGENT_SURFACE_BINARY, then @agent-surface/cli's platform package, then PATH. */
  binary?: string;
  /** The project root given to the compiler. Default: process.cwd() (where `next` runs). */
  root?: string;
}

type Phase = string;
// Next.js's NextConfig, structurally (this package does not depend on next's types).
type AnyConfig = Record<string, any>;
export type NextConfigInput = AnyConfig | ((phase: Phase, context: { defaultConfig: AnyConfig }) => AnyConfig | Promise<AnyConfig>);

/** Wraps a Next.js config: the provenance loader (webpack and Turbopack), the generated authority module, diagnostics as build errors. */
export declare function withAgentSurface(nextConfig?: NextConfigInput, options?: AgentSurfaceNextOptions): (phase: Phase, context: { defaultConfig: AnyConfig }) => Promise<AnyConfig>;
export default withAgentSurface;

export declare const AUTHORITY_MODULE: "@agent-surface/next/authority";
export declare const LOADER: string;
export declare function authorityPath(root: string): string;
export declare function generateAuthority(root: string, options?: { binary?: string; failOnError?: boolean }): Promise<{ result: unknown; changed: boolean }>;
export declare function watchAuthority(root: string, options?: { binary?: string; onError?: (err: Error) => void; onUpdate?: (info: { manifestHash: string }) => void }): { close(): void };
