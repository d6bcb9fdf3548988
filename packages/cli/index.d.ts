/** Platform package per platform key (`linux-x64-gnu`, `darwin-arm64`, `win32-x64-msvc`, …). */
export declare const PLATFORM_PACKAGES: Readonly<Record<string, string>>;

/** The platform key of a platform/arch pair (and, on Linux, the C library). */
export declare function platformKey(platform?: string, arch?: string, glibc?: boolean): string;

/** `agent-surface.exe` on Windows, `agent-surface` elsewhere. */
export declare function binaryName(platform?: string): string;

export interface FoundBinary {
  path: string;
  /** `env`: `AGENT_SURFACE_BINARY`; `package`: this platform's package. */
  source: "env" | "package";
  package?: string;
}

/** `AGENT_SURFACE_BINARY`, else the binary of this platform's package; `undefined` if neither. */
export declare function findBinary(options?: { env?: NodeJS.ProcessEnv; resolve?: (id: string) => string }): FoundBinary | undefined;

/** Why no binary was found, and what to do about it. */
export declare function notFoundMessage(): string;

/** The binary's path; throws with {@link notFoundMessage} when there is none. */
export declare function binaryPath(options?: { env?: NodeJS.ProcessEnv }): string;
