// @agent-surface/next: withAgentSurface(nextConfig) for Next.js 16, with webpack and with
// Turbopack. See README.md and docs/nextjs.md.
//
// - Provenance: a loader (src/loader.cjs) on the project's TypeScript modules, as a webpack rule
//   (enforce: "pre") and as turbopack.rules (Turbopack runs webpack loaders, nothing else).
// - The authority: no virtual modules in Turbopack, so the verified manifest is a real generated
//   module, <root>/.agent-surface/authority.js, imported as `@agent-surface/next/authority`
//   (resolve.alias / turbopack.resolveAlias). `next build` writes it first and fails at a
//   contract's error; `next dev` rewrites it whenever the manifest changes.
// - Server Components and route handlers may import contract modules: a contract definition is
//   inert data, and nothing here adds the page runtime to the server's bundles.

import path from "node:path";
import { fileURLToPath } from "node:url";
import { AUTHORITY_DIR, AUTHORITY_FILE, authorityPath, generateAuthority, watchAuthority } from "./authority-file.js";

export { authorityPath, generateAuthority, watchAuthority };

export const AUTHORITY_MODULE = "@agent-surface/next/authority";
export const LOADER = fileURLToPath(new URL("./loader.cjs", import.meta.url));
const TS_RULE = /\.(?:ts|tsx|mts|cts)$/;

// Next.js's phases (next/constants), by value: this package does not import next.
const PHASE_DEVELOPMENT_SERVER = "phase-development-server";
const PHASE_PRODUCTION_BUILD = "phase-production-build";

/**
 * Next.js's detached telemetry flush also loads the config in the dev phase: no watcher there (a
 * recursive fs.watch keeps a process alive on Linux whatever unref() says).
 */
function isTelemetryFlush() {
  return /[\\/]telemetry[\\/]detached-flush\.js$/.test(process.argv[1] ?? "");
}

/**
 * Wraps a Next.js config (an object or a config function).
 * @param {import("./index.d.ts").NextConfigInput} [nextConfig]
 * @param {import("./index.d.ts").AgentSurfaceNextOptions} [options]
 */
export function withAgentSurface(nextConfig = {}, options = {}) {
  return async function agentSurfaceNextConfig(phase, context) {
    const config = (typeof nextConfig === "function" ? await nextConfig(phase, context) : nextConfig) ?? {};
    const root = path.resolve(options.root ?? process.cwd());
    const loaderOptions = { root, ...(options.binary ? { binary: path.resolve(root, options.binary) } : {}) };
    const binaryOptions = loaderOptions.binary ? { binary: loaderOptions.binary } : {};

    if (phase === PHASE_PRODUCTION_BUILD) {
      // Every diagnostic of the project, also of files no page imports: a contract's error
      // fails `next build` here, with file:line:column and a code frame.
      await generateAuthority(root, { ...binaryOptions, failOnError: true });
    } else if (phase === PHASE_DEVELOPMENT_SERVER && !isTelemetryFlush()) {
      await generateAuthority(root, binaryOptions);
      watchAuthority(root, {
        ...binaryOptions,
        onError: (err) => console.error(`[agent-surface] ${err.message}`),
      });
    }

    const userWebpack = config.webpack;
    const turbopack = config.turbopack ?? {};
    const rule = { loaders: [{ loader: LOADER, options: loaderOptions }], condition: { not: "foreign" } };
    return {
      ...config,
      turbopack: {
        ...turbopack,
        resolveAlias: { ...turbopack.resolveAlias, [AUTHORITY_MODULE]: `./${AUTHORITY_DIR}/${AUTHORITY_FILE}` },
        rules: { ...turbopack.rules, "*.ts": rule, "*.tsx": rule },
      },
      webpack(webpackConfig, ctx) {
        webpackConfig.module.rules.unshift({
          test: TS_RULE,
          exclude: /[\\/]node_modules[\\/]/,
          enforce: "pre",
          use: [{ loader: LOADER, options: loaderOptions }],
        });
        webpackConfig.resolve.alias = { ...webpackConfig.resolve.alias, [`${AUTHORITY_MODULE}$`]: authorityPath(root) };
        return typeof userWebpack === "function" ? userWebpack(webpackConfig, ctx) : webpackConfig;
      },
    };
  };
}

export default withAgentSurface;
