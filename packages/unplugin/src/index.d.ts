import type { SourceMap } from "magic-string";

export interface AgentSurfaceOptions {
  /**
   * Path of the `agent-surface` binary (relative paths resolve against the project root).
   * Default: $AGENT_SURFACE_BINARY, then this package's `bin/agent-surface`, then `agent-surface` on PATH.
   */
  binary?: string;
  /** Project root given to the compiler (`serve --root`). Default: the bundler's root (Vite's root, Rolldown's cwd, webpack/Rspack context, esbuild absWorkingDir), else process.cwd(). */
  root?: string;
  /** Receives the compiler's stderr (free-form log text). Default: ignored. */
  onStderr?: (text: string) => void;
  /**
   * Threads the compiler scans the project with (`serve --threads`). Default: half the cores, at
   * least one: the bundler beside it wants the rest.
   */
  threads?: number;
}

/** A compiler diagnostic as the serve protocol sends it (docs/serve-protocol.md). */
export interface ServeDiagnostic {
  code: string;
  severity: "error" | "warning" | "advice" | string;
  message: string;
  /** relative to the project root */
  file: string;
  absFile: string;
  /** 1-based, UTF-16 code units */
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  /** UTF-8 byte offsets of the primary span */
  offset: number;
  endOffset: number;
  help?: string;
  related?: unknown[];
}

export interface TransformEdit {
  /** UTF-8 byte offset into the file's text */
  offset: number;
  text: string;
}

/** Where a contract is written: file relative to the root, 1-based line and UTF-16 column. */
export interface ContractLocation {
  file: string;
  line: number;
  column: number;
}

export interface ScanResult {
  manifest: Record<string, unknown> & { manifestHash: string };
  manifestHash: string;
  /** By contract id (manifest format 2 keeps locations out of the manifest and its hash). */
  locations: Record<string, ContractLocation>;
  complete: boolean;
  diagnostics: ServeDiagnostic[];
  /**
   * The provenance edits of each file whose contracts compiled with no diagnostic in that file,
   * and the SHA-256 (hex) of the UTF-8 text compiled: a transform of that same text gets them.
   */
  provenance: { file: string; sha256: string; edits: TransformEdit[] }[];
  /**
   * The absolute paths of the scanned files with no contract and no diagnostic: their transform
   * gives nothing (absent from an older compiler's scan).
   */
  inert?: string[];
  files: number;
  elapsedMs: number;
}

export interface TransformResult {
  edits: TransformEdit[];
  contracts: { id: string; contractHash: string }[];
  diagnostics: ServeDiagnostic[];
  parsed: number;
}

export interface ServeHandshake {
  protocol: string;
  protocolVersion: number;
  binaryVersion: string;
  root: string;
}

export declare const PROTOCOL: "agent-surface-serve";
export declare const PROTOCOL_VERSION: 1;
export declare const VIRTUAL_AUTHORITY_ID: "virtual:agent-surface/authority";
export declare const RESOLVED_AUTHORITY_ID: "\0virtual:agent-surface/authority";
/** Rspack: the global registry (a `Map`) of the plugin instances' authority loaders, by key (internal). */
export declare const RSPACK_AUTHORITY_LOADERS: unique symbol;

export declare class AgentSurfaceServeError extends Error {
  /** e.g. "protocol-mismatch", "child-exited", "binary-not-found", or a protocol error code */
  code?: string;
}

export interface ServeClientOptions {
  binary: string;
  root: string;
  args?: string[];
  env?: NodeJS.ProcessEnv;
  handshakeTimeoutMs?: number;
  onStderr?: (text: string) => void;
}

/** One lazily started, self-restarting `agent-surface serve --stdio` child. */
export declare class ServeClient {
  constructor(options: ServeClientOptions);
  readonly binary: string;
  readonly root: string;
  readonly pid: number | undefined;
  readonly hello: ServeHandshake | undefined;
  readonly running: boolean;
  /** how many processes this client has started */
  readonly spawns: number;
  start(): Promise<ServeHandshake>;
  request(method: "scan"): Promise<ScanResult>;
  request(method: "transform", params: { file: string; code: string }): Promise<TransformResult>;
  request(method: "didChange" | "didRemove", params: { files: string[] }): Promise<{}>;
  request(method: string, params?: object): Promise<any>;
  /** Idempotent; resolves when the child has exited. */
  close(graceMs?: number): Promise<void>;
}

export declare function checkHandshake(hello: unknown, binary: string): string | null;
export declare function resolveBinary(options?: AgentSurfaceOptions, root?: string, env?: NodeJS.ProcessEnv, packaged?: () => { path: string } | undefined): string;
export declare function transformTarget(id: string, code: string, root: string): string | null;
export declare function compilerThreads(options?: { threads?: number }): number;
export declare function applyEdits(code: string, edits: TransformEdit[], file: string, options?: { map?: boolean }): { code: string; map: SourceMap | null } | null;
export declare function authorityModule(manifest: unknown): string;
export declare function byteOffsetsToIndices(code: string, byteOffsets: readonly number[]): number[];
export declare function byteOffsetToIndex(code: string, byteOffset: number): number;
export declare function codeFrame(source: string, line: number, column: number, opts?: { endLine?: number; endColumn?: number; context?: number }): string;
export declare function formatDiagnostic(d: ServeDiagnostic): string;

export declare function toFramedError(log: object): Error;

export interface AgentSurfacePluginApi {
  readonly client: ServeClient | null;
  readonly root: string;
  scan(): Promise<ScanResult>;
  close(): Promise<void>;
}

/** The unplugin instance: `.vite`, `.rollup`, `.rolldown`, `.webpack`, `.rspack`, `.rsbuild`, `.esbuild`. */
export declare const unplugin: import("unplugin").UnpluginInstance<AgentSurfaceOptions | undefined, false>;
export default unplugin;
