// @agent-surface/vite: the Vite plugin. See README.md.

import path from "node:path";
import { findBinary } from "@agent-surface/cli";
import MagicString from "magic-string";
import { AgentSurfaceServeError, PROTOCOL, PROTOCOL_VERSION, ServeClient, checkHandshake } from "./child.js";
import { codeFrame, diagnosticKey, errorsToRollupError, formatDiagnostic, toError, toRollupLog } from "./diagnostics.js";
import { byteOffsetToIndex, byteOffsetsToIndices } from "./offsets.js";

export { AgentSurfaceServeError, PROTOCOL, PROTOCOL_VERSION, ServeClient, checkHandshake, byteOffsetToIndex, byteOffsetsToIndices, codeFrame, formatDiagnostic };

export const VIRTUAL_AUTHORITY_ID = "virtual:agent-surface/authority";
export const RESOLVED_AUTHORITY_ID = "\0" + VIRTUAL_AUTHORITY_ID;
const CORE = "@agent-surface/core";
const PLUGIN_NAME = "agent-surface";

const TS_FILE = /\.(?:ts|tsx|mts|cts)$/;
/** Hook filter: TS files, with or without a query (the handler looks at the query). */
const TS_ID_FILTER = /\.(?:ts|tsx|mts|cts)(?:\?.*)?$/;
/** Queries that turn a file into something other than its own module text. */
const NON_MODULE_QUERY = /(?:^|&)(?:raw|url|inline|worker|sharedworker)(?:[&=]|$)/;
const CONFIG_FILES = new Set(["agent-surface.config.json"]);

/**
 * Where the compiler binary is: `options.binary`, then AGENT_SURFACE_BINARY, then the binary of
 * this platform's package, installed with @agent-surface/cli (a dependency of this plugin),
 * then `agent-surface` on PATH.
 * @param {{ binary?: string }} [options]
 * @param {string} [root] relative `options.binary` is resolved against it
 * @param {NodeJS.ProcessEnv} [env]
 * @param {() => ({ path: string } | undefined)} [packaged] the installed platform package's binary (tests)
 */
export function resolveBinary(options = {}, root = process.cwd(), env = process.env, packaged = () => findBinary({ env: {} })) {
  if (options.binary) return path.resolve(root, options.binary);
  if (env.AGENT_SURFACE_BINARY) return path.resolve(env.AGENT_SURFACE_BINARY);
  return packaged()?.path ?? "agent-surface";
}

/** Splits a module id into file and query. */
function splitId(id) {
  const q = id.indexOf("?");
  return q === -1 ? [id, ""] : [id.slice(0, q), id.slice(q + 1)];
}

function isInside(root, file) {
  const rel = path.relative(root, file);
  return rel !== "" && !rel.startsWith("..") && !path.isAbsolute(rel);
}

/**
 * Whether `transform` sends this module to the compiler: a .ts/.tsx/.mts/.cts file under the
 * project root, outside node_modules, not a virtual module, whose text mentions
 * "@agent-surface/core".
 * @param {string} id
 * @param {string} code
 * @param {string} root
 * @returns {string | null} the file path when it should be transformed
 */
export function transformTarget(id, code, root) {
  if (id.startsWith("\0") || id.startsWith("virtual:") || id.startsWith("/@")) return null;
  const [file, query] = splitId(id);
  if (query && NON_MODULE_QUERY.test(query)) return null;
  if (!TS_FILE.test(file) || !path.isAbsolute(file)) return null;
  if (file.includes("/node_modules/") || file.includes("\\node_modules\\")) return null;
  if (!isInside(root, file)) return null;
  if (!code.includes(CORE)) return null;
  return file;
}

/** Files whose change can change the manifest. */
function affectsManifest(file, root) {
  if (file.includes("/node_modules/")) return false;
  if (!isInside(root, file)) return false;
  return TS_FILE.test(file) || CONFIG_FILES.has(path.basename(file));
}

/**
 * Applies the compiler's insertion edits (UTF-8 byte offsets) with magic-string.
 * @returns {{ code: string, map: import("magic-string").SourceMap } | null}
 */
export function applyEdits(code, edits, file) {
  if (!edits || edits.length === 0) return null;
  const sorted = [...edits].sort((a, b) => a.offset - b.offset);
  const indices = byteOffsetsToIndices(
    code,
    sorted.map((e) => e.offset),
  );
  const s = new MagicString(code);
  sorted.forEach((e, i) => s.appendLeft(indices[i], e.text));
  return { code: s.toString(), map: s.generateMap({ hires: true, source: file, includeContent: true }) };
}

/** The virtual module's code for a manifest. */
export function authorityModule(manifest) {
  return `import { createCapabilityAuthority } from ${JSON.stringify(CORE)};\nexport default createCapabilityAuthority(${JSON.stringify(manifest)});\n`;
}

/**
 * The Vite plugin.
 * @param {import("./index.d.ts").AgentSurfaceOptions} [options]
 * @returns {import("vite").Plugin}
 */
export default function agentSurface(options = {}) {
  /** @type {import("vite").ResolvedConfig | undefined} */
  let config;
  let root = options.root ? path.resolve(options.root) : process.cwd();
  let isBuild = false;
  /** @type {import("vite").ViteDevServer | undefined} */
  let server;
  /** @type {ServeClient | null} */
  let client = null;

  // The latest scan: reused until a file notification bumps `generation`.
  let generation = 0;
  /** @type {{ generation: number, promise: Promise<any> } | null} */
  let scanCache = null;
  /** manifestHash of the latest completed scan (the baseline for HMR decisions) */
  let lastHash = null;
  /** the dev server's first scan, if started */
  let baseline = null;
  /** the rescan shared by the hotUpdate calls (one per environment) of one file event */
  let rescan = null;
  const reported = new Set();

  function getClient() {
    if (!client) {
      client = new ServeClient({
        binary: resolveBinary(options, root),
        root,
        onStderr: options.onStderr,
      });
    }
    return client;
  }

  function scan() {
    if (scanCache && scanCache.generation === generation) return scanCache.promise;
    const gen = generation;
    const promise = getClient()
      .request("scan")
      .then((result) => {
        if (gen === generation) lastHash = result.manifestHash;
        return result;
      });
    scanCache = { generation: gen, promise };
    promise.catch(() => {
      if (scanCache && scanCache.promise === promise) scanCache = null;
    });
    return promise;
  }

  function closeClient() {
    const c = client;
    client = null;
    scanCache = null;
    rescan = null;
    return c ? c.close() : Promise.resolve();
  }

  /** Warnings once each (per build, or per dev server until the file changes). */
  function warnOnce(ctx, diagnostics, sources) {
    for (const d of diagnostics) {
      if (d.severity === "error") continue;
      const key = diagnosticKey(d);
      if (reported.has(key)) continue;
      reported.add(key);
      ctx.warn(toRollupLog(d, { sources }));
    }
  }

  function forgetReported(file) {
    for (const key of reported) if (key.startsWith(file + "\0")) reported.delete(key);
  }

  function errorsOf(diagnostics) {
    return diagnostics.filter((d) => d.severity === "error");
  }

  function overlayError(diagnostics) {
    const errors = errorsOf(diagnostics);
    if (!server || errors.length === 0) return;
    const log = errorsToRollupError(errors);
    server.ws.send({ type: "error", err: { message: log.message, stack: "", id: log.id, frame: log.frame, loc: log.loc, plugin: PLUGIN_NAME } });
  }

  return {
    name: PLUGIN_NAME,
    enforce: "pre",

    configResolved(resolved) {
      config = resolved;
      root = options.root ? path.resolve(resolved.root, options.root) : resolved.root;
      isBuild = resolved.command === "build";
    },

    configureServer(devServer) {
      server = devServer;
      devServer.httpServer?.once("close", () => {
        closeClient();
      });
    },

    async buildStart() {
      reported.clear();
      if (isBuild) {
        // Every diagnostic of the project, also of files the bundle never imports.
        const result = await scan();
        warnOnce(this, result.diagnostics);
        const errors = errorsOf(result.diagnostics);
        if (errors.length) this.error(toError(errorsToRollupError(errors)));
      } else if (server) {
        // The baseline for HMR decisions, and start-up errors for the overlay (buffered by Vite
        // until a browser connects). Not awaited: the server starts meanwhile.
        baseline = scan().then(
          (result) => overlayError(result.diagnostics),
          (err) => config?.logger.error(`[${PLUGIN_NAME}] ${err.message}`, { error: err }),
        );
      }
    },

    resolveId: {
      filter: { id: /^virtual:agent-surface\/authority$/ },
      handler(id) {
        if (id === VIRTUAL_AUTHORITY_ID) return RESOLVED_AUTHORITY_ID;
        return null;
      },
    },

    load: {
      filter: { id: /^\0virtual:agent-surface\/authority$/ },
      async handler(id) {
        if (id !== RESOLVED_AUTHORITY_ID) return null;
        const result = await scan();
        const errors = errorsOf(result.diagnostics);
        if (errors.length) this.error(toError(errorsToRollupError(errors)));
        return { code: authorityModule(result.manifest), moduleSideEffects: true };
      },
    },

    transform: {
      filter: { id: TS_ID_FILTER, code: CORE },
      async handler(code, id) {
        const file = transformTarget(id, code, root);
        if (!file) return null;
        const result = await getClient().request("transform", { file, code });
        const sources = new Map([[file, code]]);
        warnOnce(this, result.diagnostics, sources);
        const errors = errorsOf(result.diagnostics);
        if (errors.length) this.error(toError(errorsToRollupError(errors, { sources })));
        return applyEdits(code, result.edits, file);
      },
    },

    watchChange(id, change) {
      const [file] = splitId(id);
      if (!affectsManifest(file, root)) return;
      generation++;
      forgetReported(file);
      // A fresh child reads the disk anyway; only a running one holds texts to drop.
      if (client && client.running) {
        const method = change?.event === "delete" ? "didRemove" : "didChange";
        return client.request(method, { files: [file] }).then(
          () => {},
          () => {},
        );
      }
    },

    async hotUpdate({ type, file, modules, timestamp }) {
      if (!affectsManifest(file, root)) return;
      const key = `${type}\0${file}\0${timestamp}`;
      if (!rescan || rescan.key !== key) {
        const before = baseline;
        const promise = (async () => {
          if (before) await before;
          const previous = lastHash;
          generation++; // also when watchChange did not run (files changed outside the watcher)
          let result;
          try {
            result = await scan();
          } catch (err) {
            config?.logger.error(`[${PLUGIN_NAME}] ${err.message}`, { error: err });
            return { changed: false };
          }
          return { changed: previous !== null && previous !== result.manifestHash, result };
        })();
        rescan = { key, promise };
      }
      const { changed } = await rescan.promise;
      if (!changed) return; // no contract changed: regular HMR
      const env = this.environment;
      const authority = env.moduleGraph.getModuleById(RESOLVED_AUTHORITY_ID);
      if (authority) env.moduleGraph.invalidateModule(authority);
      if (env.name === "client") {
        env.hot.send({ type: "full-reload", path: "*", triggeredBy: file });
        return [];
      }
      return authority ? [...modules, authority] : undefined;
    },

    async buildEnd() {
      if (isBuild) await closeClient();
    },

    async closeBundle() {
      await closeClient();
    },

    /** For tests and tools: the plugin's compiler client (started lazily). */
    api: {
      get client() {
        return client;
      },
      get root() {
        return root;
      },
      scan,
      close: closeClient,
    },
  };
}

export { agentSurface };
