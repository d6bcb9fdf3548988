// @agent-surface/unplugin: the one plugin core behind every bundler (unplugin 3). See README.md.
//
// One long-lived `agent-surface serve --stdio` child per plugin instance (per build, or per dev
// server), the compiler's provenance inserted with a source map, the verified authority as the
// module `virtual:agent-surface/authority`, diagnostics as build errors located at the contract.
// Vite additionally gets the dev server hooks (overlay, HMR: a changed manifest reloads the page).

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { findBinary } from "@agent-surface/cli";
import MagicString from "magic-string";
import { createUnplugin } from "unplugin";
import { AgentSurfaceServeError, PROTOCOL, PROTOCOL_VERSION, ServeClient, checkHandshake } from "./child.js";
import { codeFrame, diagnosticKey, errorsToRollupError, formatDiagnostic, toError, toRollupLog } from "./diagnostics.js";
import { byteOffsetToIndex, byteOffsetsToIndices } from "./offsets.js";

export { AgentSurfaceServeError, PROTOCOL, PROTOCOL_VERSION, ServeClient, checkHandshake, byteOffsetToIndex, byteOffsetsToIndices, codeFrame, formatDiagnostic, errorsToRollupError, toRollupLog, toError };

export const VIRTUAL_AUTHORITY_ID = "virtual:agent-surface/authority";
export const RESOLVED_AUTHORITY_ID = "\0" + VIRTUAL_AUTHORITY_ID;
export const CORE = "@agent-surface/core";
export const PLUGIN_NAME = "agent-surface";

const TS_FILE = /\.(?:ts|tsx|mts|cts)$/;
/** Hook filter: TS files, with or without a query (the handler looks at the query). */
export const TS_ID_FILTER = /\.(?:ts|tsx|mts|cts)(?:\?.*)?$/;
/**
 * Text that can hold a contract macro call, the only thing a transform inserts provenance for: a
 * call names the macro's export (imported by that name, perhaps renamed, or called as a member of
 * the package's namespace import); `\u` for an identifier spelled with escapes.
 */
export const MAY_DECLARE = /define(?:Agent(?:Component|Procedure)|ExternalAgentTool)Contract|\\u/;
/** Queries that turn a file into something other than its own module text. */
const NON_MODULE_QUERY = /(?:^|&)(?:raw|url|inline|worker|sharedworker)(?:[&=]|$)/;
/** esbuild: the imports `resolveId` answers (the authority; core is resolved in `setup`). */
const ESBUILD_RESOLVE_FILTER = /^virtual:agent-surface\/authority$/;
/** esbuild: the path unplugin's `load` wants (the authority, in this plugin's namespace). */
const ESBUILD_LOAD_FILTER = /^.virtual:agent-surface\/authority$/;
/** esbuild: the files the plugin's own `onLoad` looks at (see `esbuild.setup`). */
const ESBUILD_TS_FILTER = /\.(?:ts|tsx|mts|cts)$/;
const CONFIG_FILES = new Set(["agent-surface.config.json"]);
/** Rspack: the registry of the authority loaders of the plugin instances, by key. */
export const RSPACK_AUTHORITY_LOADERS = Symbol.for("@agent-surface/unplugin/rspack-authority-loaders");
const RSPACK_AUTHORITY_LOADER = fileURLToPath(new URL("./rspack-authority-loader.js", import.meta.url));
let rspackInstances = 0;
/** Bundlers whose plugin context's `error` throws (Rollup's semantics). */
const THROWING_ERROR = new Set(["vite", "rollup", "rolldown"]);

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
export function splitId(id) {
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
  const file = transformFile(id, root);
  return file && code.includes(CORE) ? file : null;
}

/** `transformTarget` without the text: whether the module's path is one the compiler looks at. */
function transformFile(id, root) {
  if (id.startsWith("\0") || id.startsWith("virtual:") || id.startsWith("/@")) return null;
  const [file, query] = splitId(id);
  if (query && NON_MODULE_QUERY.test(query)) return null;
  if (!TS_FILE.test(file) || !path.isAbsolute(file)) return null;
  if (file.includes("/node_modules/") || file.includes("\\node_modules\\")) return null;
  if (!isInside(root, file)) return null;
  return file;
}

/** Files whose change can change the manifest. */
export function affectsManifest(file, root) {
  if (file.includes("/node_modules/")) return false;
  if (!isInside(root, file)) return false;
  return TS_FILE.test(file) || CONFIG_FILES.has(path.basename(file));
}

/**
 * Applies the compiler's insertion edits (UTF-8 byte offsets) with magic-string, with a source map
 * that maps every original position (or none, `map: false`, for a build that writes no maps: on
 * the example app the maps were a third of the plugin's own JavaScript time and garbage).
 * @param {{ map?: boolean }} [options]
 * @returns {{ code: string, map: import("magic-string").SourceMap | null } | null}
 */
export function applyEdits(code, edits, file, { map = true } = {}) {
  if (!edits || edits.length === 0) return null;
  const sorted = [...edits].sort((a, b) => a.offset - b.offset);
  const indices = byteOffsetsToIndices(
    code,
    sorted.map((e) => e.offset),
  );
  const s = new MagicString(code);
  sorted.forEach((e, i) => s.appendLeft(indices[i], e.text));
  return { code: s.toString(), map: map ? s.generateMap({ hires: true, source: file, includeContent: true }) : null };
}

/**
 * The authority module's code for a manifest. The manifest travels as JSON text given to
 * `JSON.parse`: engines parse JSON text several times faster than the same object literal
 * (V8 spent 40 ms of a page load parsing the example app's manifest as a literal, against 10 ms
 * for the rest of the runtime).
 */
export function authorityModule(manifest) {
  // A single-quoted literal: only `\\` and `'` need escaping, so the JSON text reads as itself.
  const text = JSON.stringify(manifest).replace(/[\\']/g, (c) => `\\${c}`);
  return `import { createCapabilityAuthority } from ${JSON.stringify(CORE)};\nexport default createCapabilityAuthority(JSON.parse('${text}'));\n`;
}

/**
 * An Error for a diagnostic log whose message also carries the code frame: bundlers other than
 * Rollup's family print only an error's message.
 */
export function toFramedError(log) {
  const err = toError(log);
  if (log.frame) {
    err.message = `${log.message}\n\n${log.frame}`;
    err.stack = `${err.name}: ${err.message}`;
  }
  return err;
}

/**
 * How many threads the compiler child scans with: `options.threads`, else half the cores (at least
 * one). The bundler beside it wants the cores, and each idle worker spins on one: on 2 cores, a
 * second worker added a third to the child's CPU time in a build.
 * @param {{ threads?: number }} options
 */
export function compilerThreads(options = {}) {
  if (options.threads !== undefined) {
    if (!Number.isInteger(options.threads) || options.threads < 1) throw new TypeError(`agent-surface: \`threads\` must be a positive integer (got ${options.threads})`);
    return options.threads;
  }
  return Math.max(1, Math.floor(os.availableParallelism() / 2));
}

/**
 * The compiler session of one plugin instance: the child, the latest scan (reused until a file
 * notification bumps the generation), the warnings already reported.
 * @param {{ binary?: string, onStderr?: (text: string) => void }} options
 * @param {() => string} getRoot
 * @param {() => boolean} [wantsMaps] whether the bundler writes source maps (then transforms make them)
 */
export function createSession(options, getRoot, wantsMaps = () => true) {
  /** @type {ServeClient | null} */
  let client = null;
  /** the exits of the children closed so far (a close resolves when every earlier one did) */
  let closing = Promise.resolve();
  let generation = 0;
  /** @type {{ generation: number, promise: Promise<any> } | null} */
  let scanCache = null;
  /** manifestHash of the latest completed scan */
  let lastHash = null;
  /** the provenance edits of the current generation's completed scan, by file */
  let scanned = null;
  const reported = new Set();
  /** keys of the error diagnostics this build already failed on (transform, load) */
  const failed = new Set();

  const session = {
    get client() {
      return client;
    },
    get lastHash() {
      return lastHash;
    },
    getClient() {
      if (!client) {
        const root = getRoot();
        const args = ["serve", "--stdio", "--root", root, "--threads", String(compilerThreads(options))];
        client = new ServeClient({ binary: resolveBinary(options, root), root, args, onStderr: options.onStderr });
      }
      return client;
    },
    /** The scan of the current generation (shared by concurrent callers). */
    scan() {
      if (scanCache && scanCache.generation === generation) return scanCache.promise;
      const gen = generation;
      const promise = session
        .getClient()
        .request("scan")
        .then((result) => {
          if (gen === generation) {
            lastHash = result.manifestHash;
            scanned = { generation: gen, provenance: new Map((result.provenance ?? []).map((p) => [p.file, p])), inert: new Set(result.inert ?? []) };
          }
          return result;
        });
      scanCache = { generation: gen, promise };
      promise.catch(() => {
        if (scanCache && scanCache.promise === promise) scanCache = null;
      });
      return promise;
    },
    /** Forgets the cached scan: the next one reads the files again. */
    invalidate() {
      generation++;
    },
    /** Stops the child; resolves when it (and any child closed before it) has exited. */
    close() {
      const c = client;
      client = null;
      scanCache = null;
      scanned = null;
      if (c) {
        const exited = c.close();
        closing = closing.then(() => exited);
      }
      return closing;
    },
    /** Warnings once each (per build, or per dev server until the file changes). */
    warnOnce(warn, diagnostics, sources) {
      for (const d of diagnostics) {
        if (d.severity === "error") continue;
        const key = diagnosticKey(d);
        if (reported.has(key)) continue;
        reported.add(key);
        warn(toRollupLog(d, { sources }));
      }
    },
    /** Remembers errors reported as a build failure, so buildEnd does not report them twice. */
    markFailed(diagnostics) {
      for (const d of diagnostics) failed.add(diagnosticKey(d));
    },
    get failed() {
      return failed;
    },
    forgetReported(file) {
      for (const key of reported) if (key.startsWith(file + "\0")) reported.delete(key);
    },
    clearReported() {
      reported.clear();
      failed.clear();
    },
    /**
     * Whether the current generation's completed scan found neither a contract nor a diagnostic
     * in this file: its transform would give nothing, so a build need not even read it.
     */
    scannedInert(file) {
      return scanned !== null && scanned.generation === generation && scanned.inert.has(file);
    },
    /**
     * The transform of one module from the current generation's completed scan, without asking
     * the compiler: when the scan compiled this very text (its SHA-256) and found no diagnostic
     * in the file. Undefined when it cannot tell (then ask: `transform`).
     * @returns {{ code: string, map: import("magic-string").SourceMap } | null | undefined}
     */
    scannedTransform(code, id) {
      if (!scanned || scanned.generation !== generation) return undefined;
      const file = transformTarget(id, code, getRoot());
      if (!file) return null;
      const entry = scanned.provenance.get(file);
      if (!entry || createHash("sha256").update(code).digest("hex") !== entry.sha256) return undefined;
      return applyEdits(code, entry.edits, file, { map: wantsMaps() });
    },
    /**
     * The transform of one module: provenance edits applied, warnings reported, errors thrown
     * through `fail`. Null when the module is not the compiler's or nothing changes.
     */
    async transform(code, id, { warn, fail }) {
      const root = getRoot();
      const file = transformTarget(id, code, root);
      if (!file) return null;
      const result = await session.getClient().request("transform", { file, code });
      const sources = new Map([[file, code]]);
      session.warnOnce(warn, result.diagnostics, sources);
      const errors = errorsOf(result.diagnostics);
      if (errors.length) {
        session.markFailed(errors);
        fail(errorsToRollupError(errors, { sources }));
      }
      return applyEdits(code, result.edits, file, { map: wantsMaps() });
    },
  };
  return session;
}

/** A warning as esbuild reports it (what unplugin makes of a plugin context's `warn`). */
function toEsbuildMessage(log) {
  const location = log.loc ? { file: log.loc.file, line: log.loc.line, column: log.loc.column } : null;
  return { id: log.id, pluginName: log.plugin, text: log.message, location, detail: log.meta, notes: [] };
}

export function errorsOf(diagnostics) {
  return diagnostics.filter((d) => d.severity === "error");
}

/**
 * The unplugin factory.
 * @param {import("./index.d.ts").AgentSurfaceOptions} [options]
 * @param {import("unplugin").UnpluginContextMeta} [meta]
 */
export function unpluginFactory(options = {}, meta = { framework: "vite" }) {
  const framework = meta.framework;
  /** @type {import("vite").ResolvedConfig | undefined} */
  let config;
  let root = options.root ? path.resolve(options.root) : process.cwd();
  // Vite says in configResolved; Rollup and Rolldown in this.meta.watchMode; webpack and Rspack
  // through their compiler. A one-off build closes the child at its end.
  let isBuild = true;
  /** @type {import("vite").ViteDevServer | undefined} */
  let server;
  /**
   * Whether the build writes source maps, so the transforms must make theirs: told by Vite,
   * esbuild, webpack, Rspack and Rolldown (which asks for each build's output options before the
   * build) below; unknown to Rollup until its output (so yes). A dev server or a watching Rolldown
   * always makes them.
   */
  let sourceMaps = true;
  const session = createSession(options, () => root, () => sourceMaps);
  /** the dev server's first scan, if started */
  let baseline = null;
  /** a build's project-wide scan, started in buildStart, reported in buildEnd */
  let projectCheck = null;
  /** the rescan shared by the hotUpdate calls (one per environment) of one file event */
  let rescan = null;

  /** Reports a diagnostic error the way this bundler shows it, and throws. */
  function fail(ctx, log) {
    if (THROWING_ERROR.has(framework) && ctx && typeof ctx.error === "function") ctx.error(toError(log));
    throw toFramedError(log);
  }

  function warner(ctx) {
    return (log) => {
      if (THROWING_ERROR.has(framework)) ctx.warn(log);
      else ctx.warn(log.frame ? { ...log, message: `${log.message}\n\n${log.frame}` } : log);
    };
  }

  function closeClient() {
    rescan = null;
    return session.close();
  }

  function overlayError(diagnostics) {
    const errors = errorsOf(diagnostics);
    if (!server || errors.length === 0) return;
    const log = errorsToRollupError(errors);
    server.ws.send({ type: "error", err: { message: log.message, stack: "", id: log.id, frame: log.frame, loc: log.loc, plugin: PLUGIN_NAME } });
  }

  /** webpack and Rspack: watch mode keeps the child; a one-off build closes it when done. */
  function webpackLike(compiler) {
    // `devtool: false` with a SourceMapDevToolPlugin of one's own still writes maps.
    sourceMaps = Boolean(compiler.options.devtool) || (compiler.options.plugins ?? []).some((p) => /SourceMapDevToolPlugin$/.test(p?.constructor?.name ?? ""));
    // Told to stop, not waited for here: `compiler.close()` (its shutdown hook) waits for the exit.
    compiler.hooks.done.tap(PLUGIN_NAME, () => {
      if (!compiler.watchMode) closeClient();
    });
    compiler.hooks.watchClose.tap(PLUGIN_NAME, () => {
      closeClient();
    });
    compiler.hooks.shutdown?.tapPromise(PLUGIN_NAME, () => closeClient());
  }

  // The hooks with their filters. Vite 7+ applies the filters itself and gets these objects as
  // they are (its `vite` entry below); unplugin wraps them for the other bundlers.
  const resolveId = {
    filter: { id: /^(?:\0?virtual:agent-surface\/authority|@agent-surface\/core)$/ },
    handler(id, importer) {
      if (id === VIRTUAL_AUTHORITY_ID || id === RESOLVED_AUTHORITY_ID) return RESOLVED_AUTHORITY_ID;
      // Rollup resolves a virtual module's imports from nowhere: the authority's import of
      // @agent-surface/core is the project's (resolved from its root).
      if (id === CORE && importer === RESOLVED_AUTHORITY_ID && (framework === "rollup" || framework === "rolldown") && this?.resolve) {
        return this.resolve(CORE, path.join(root, "package.json"), { skipSelf: true });
      }
      return null;
    },
  };

  /**
   * webpack and Rspack: the authority module depends on the files of the project's contracts
   * (and the configuration), so a watch-mode rebuild after a change to one loads it again.
   */
  function watchContractFiles(ctx, result) {
    const add = typeof ctx?.addDependency === "function" ? (f) => ctx.addDependency(f) : typeof ctx?.addWatchFile === "function" ? (f) => ctx.addWatchFile(f) : null;
    if (!add) return;
    const files = new Set(Object.values(result.locations ?? {}).map((l) => path.resolve(root, l.file)));
    for (const name of CONFIG_FILES) files.add(path.join(root, name));
    for (const file of files) add(file);
  }

  const load = {
    filter: { id: /^\0virtual:agent-surface\/authority$/ },
    async handler(id) {
      if (id !== RESOLVED_AUTHORITY_ID) return null;
      const result = await session.scan();
      const errors = errorsOf(result.diagnostics);
      if (errors.length) {
        session.markFailed(errors);
        fail(this, errorsToRollupError(errors));
      }
      if (framework === "webpack" || framework === "rspack") watchContractFiles(this, result);
      return { code: authorityModule(result.manifest), moduleSideEffects: true };
    },
  };

  const transform = {
    filter: { id: TS_ID_FILTER, code: CORE },
    async handler(code, id) {
      const ask = () => session.transform(code, id, { warn: warner(this), fail: (log) => fail(this, log) });
      // A build checks the whole project (buildStart's scan, reported in buildEnd), so a module
      // that can declare no contract, which would get no edits, needs no round trip to the
      // compiler for its diagnostics either: the entry module would otherwise wait for the
      // child's start and the scan before the bundler could follow its imports. The dev server
      // has no such check: there every module the compiler would look at goes to it.
      // Nor does one whose text the build's scan compiled: the scan's edits for it are the ones a
      // transform would give. A module that may declare one waits for that scan rather than ask
      // the child, which would parse it and its imports a second time beside the scan (a third
      // of the child's CPU in a Rolldown build of the example app).
      if (!projectCheck) return ask();
      if (!MAY_DECLARE.test(code)) return null;
      // (a failed scan: the transform says how the child failed)
      const scanned = await projectCheck.then(() => session.scannedTransform(code, id), () => undefined);
      return scanned !== undefined ? scanned : ask();
    },
  };

  return {
    name: PLUGIN_NAME,
    enforce: "pre",

    options(inputOptions) {
      // Rolldown's `cwd` is the project's directory (Rollup has none: process.cwd()).
      if (framework === "rolldown" && options.root === undefined && inputOptions?.cwd) root = path.resolve(inputOptions.cwd);
      if (framework === "rolldown") sourceMaps = true; // until this build's outputOptions say
    },

    buildStart() {
      session.clearReported();
      if (framework === "rollup" || framework === "rolldown") isBuild = !this?.meta?.watchMode;
      if (framework === "rolldown" && !isBuild) sourceMaps = true; // (several outputs may rebuild once)
      if (framework !== "vite" || isBuild) {
        // Every diagnostic of the project, also of files the bundle never imports: the child and
        // its scan start now, but the bundler goes on resolving and parsing meanwhile instead of
        // waiting (the plugin's fixed cost, off the build's critical path). The authority's
        // `load` awaits the same scan; `buildEnd` reports what it found.
        const scan = session.scan();
        scan.catch(() => {}); // awaited in buildEnd; a build that fails first never asks
        projectCheck = scan;
      } else if (server) {
        // The baseline for HMR decisions, and start-up errors for the overlay (buffered by Vite
        // until a browser connects). Not awaited: the server starts meanwhile.
        baseline = session.scan().then(
          (result) => overlayError(result.diagnostics),
          (err) => config?.logger.error(`[${PLUGIN_NAME}] ${err.message}`, { error: err }),
        );
      }
    },

    // Rspack gets the authority natively (see `rspack` below): unplugin's resolveId would be a
    // JavaScript call from Rust for each of the bundle's module requests.
    resolveId: framework === "rspack" ? undefined : resolveId,
    load: framework === "rspack" ? undefined : load,
    transform,

    watchChange(id, change) {
      const [file] = splitId(id);
      if (!affectsManifest(file, root)) return;
      session.invalidate();
      session.forgetReported(file);
      // A fresh child reads the disk anyway; only a running one holds texts to drop.
      const client = session.client;
      if (client && client.running) {
        const method = change?.event === "delete" ? "didRemove" : "didChange";
        return client.request(method, { files: [file] }).then(
          () => {},
          () => {},
        );
      }
    },

    async buildEnd(error) {
      const check = projectCheck;
      projectCheck = null;
      if (check && !error) {
        // The project-wide diagnostics of buildStart's scan, minus the errors a transform or
        // the authority's load already failed on (webpack and Rspack still get here then).
        let result;
        try {
          result = await check;
        } catch (err) {
          await closeClient();
          throw err;
        }
        session.warnOnce(warner(this), result.diagnostics);
        const errors = errorsOf(result.diagnostics).filter((d) => !session.failed.has(diagnosticKey(d)));
        if (errors.length) {
          await closeClient();
          fail(this, errorsToRollupError(errors));
        }
      }
      // The child is told to stop, not waited for: it exits while the bundler writes its output
      // (closeBundle, which Vite, Rollup and Rolldown call at the end, waits for the exit).
      if (framework === "vite" || framework === "rollup" || framework === "rolldown") {
        if (isBuild) closeClient();
      } else if (framework === "esbuild") {
        // esbuild tells no plugin which files a rebuild saw change: the next build's fresh
        // child reads them all again.
        closeClient();
      }
    },

    async closeBundle() {
      await closeClient();
    },

    vite: {
      // copies: unplugin replaces the handlers of the objects above with its filtering wrappers
      resolveId: { ...resolveId },
      load: { ...load },
      transform: { ...transform },

      config(userConfig, env) {
        if (env?.command !== "build") return;
        // A build starts the compiler child and its scan now, while Vite resolves the config and
        // sets the build up on one core: buildStart then finds the scan done or under way, and
        // less of the child's work competes with the bundler's threads (on 2 cores, a tenth of a
        // Vite build). A root the resolved config moves is scanned again (configResolved).
        const base = userConfig?.root ? path.resolve(userConfig.root) : process.cwd();
        root = options.root ? path.resolve(base, options.root) : base;
        session.scan().catch(() => {}); // its errors are the build's scan's, reported from buildStart on
      },

      configResolved(resolved) {
        config = resolved;
        const resolvedRoot = options.root ? path.resolve(resolved.root, options.root) : resolved.root;
        if (resolvedRoot !== root) {
          session.invalidate(); // nothing of the other root's scan is this build's
          closeClient();
        }
        root = resolvedRoot;
        isBuild = resolved.command === "build";
        sourceMaps = !isBuild || Boolean(resolved.build?.sourcemap) || Object.values(resolved.environments ?? {}).some((env) => Boolean(env?.build?.sourcemap));
      },

      configureServer(devServer) {
        server = devServer;
        devServer.httpServer?.once("close", () => {
          closeClient();
        });
      },

      async hotUpdate({ type, file, modules, timestamp }) {
        if (!affectsManifest(file, root)) return;
        const key = `${type}\0${file}\0${timestamp}`;
        if (!rescan || rescan.key !== key) {
          const before = baseline;
          const promise = (async () => {
            if (before) await before;
            const previous = session.lastHash;
            session.invalidate(); // also when watchChange did not run (files changed outside the watcher)
            let result;
            try {
              result = await session.scan();
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
    },

    rolldown: {
      // Rolldown asks before each build (a generate or write builds again), Rollup after it.
      outputOptions(output) {
        sourceMaps = Boolean(output?.sourcemap);
        return null;
      },
    },

    webpack(compiler) {
      if (options.root === undefined && compiler.options.context) root = compiler.options.context;
      // webpack reads `virtual:` as a URL scheme before any resolver plugin sees the request.
      compiler.hooks.normalModuleFactory.tap(PLUGIN_NAME, (factory) => {
        factory.hooks.beforeResolve.tap(PLUGIN_NAME, (data) => {
          if (data.request === VIRTUAL_AUTHORITY_ID) data.request = RESOLVED_AUTHORITY_ID;
        });
      });
      webpackLike(compiler);
    },

    rspack(compiler) {
      if (options.root === undefined && compiler.options.context) root = compiler.options.context;
      // The authority without a JavaScript hook per module request: Rspack's own (Rust)
      // NormalModuleReplacementPlugin points the import at a virtual file, and a rule that
      // matches only that file runs the loader that awaits the scan.
      const { rspack } = compiler;
      const file = path.join(compiler.options.context ?? root, "node_modules/.virtual/agent-surface", `authority-${++rspackInstances}.js`);
      const key = `${process.pid}:${rspackInstances}`;
      const loaders = (globalThis[RSPACK_AUTHORITY_LOADERS] ??= new Map());
      loaders.set(key, (loaderContext) => load.handler.call(loaderContext, RESOLVED_AUTHORITY_ID).then((result) => result.code));
      new rspack.experiments.VirtualModulesPlugin({ [file]: "" }).apply(compiler);
      new rspack.NormalModuleReplacementPlugin(/^virtual:agent-surface\/authority$/, file).apply(compiler);
      compiler.options.module.rules.unshift({
        test: new RegExp(`^${file.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
        type: "javascript/auto",
        use: [{ loader: RSPACK_AUTHORITY_LOADER, options: { key } }],
      });
      compiler.hooks.shutdown?.tap(PLUGIN_NAME, () => {
        loaders.delete(key);
      });
      webpackLike(compiler);
    },

    esbuild: {
      // esbuild calls a plugin's JavaScript only for paths its (Go) filters match; unplugin's
      // default filters match every path, so every import and every file of the bundle,
      // node_modules included, would make a round trip to JavaScript just to be declined.
      onResolveFilter: ESBUILD_RESOLVE_FILTER,
      onLoadFilter: ESBUILD_LOAD_FILTER,
      setup(build) {
        const initial = build.initialOptions;
        if (options.root === undefined && initial.absWorkingDir) root = initial.absWorkingDir;
        sourceMaps = Boolean(initial.sourcemap);
        // The authority module lives in this plugin's namespace, where esbuild has no directory
        // to resolve its import of @agent-surface/core from: resolve it from the project root.
        build.onResolve({ filter: /^@agent-surface\/core$/, namespace: PLUGIN_NAME }, (args) => build.resolve(args.path, { kind: args.kind, resolveDir: root }));
        build.onDispose?.(() => {
          closeClient();
        });
        // The transform, without unplugin's: it would read every TypeScript file of the bundle
        // in JavaScript (asynchronously: open, stat, read, close) only to hand most of them back
        // untouched, and esbuild reads them again. Here a file the build's scan found inert is
        // not read at all, any other is read at once, and only a file the compiler changes (or
        // warns about) goes back to esbuild as contents.
        build.onLoad({ filter: ESBUILD_TS_FILTER, namespace: "file" }, async (args) => {
          const id = args.path + (args.suffix ?? "");
          if (!transformFile(id, root) || (projectCheck && session.scannedInert(args.path))) return undefined;
          let code;
          try {
            code = readFileSync(args.path, "utf8");
          } catch {
            return undefined; // esbuild reports the unreadable file itself
          }
          if (!code.includes(CORE)) return undefined;
          const warnings = [];
          const ctx = { warn: (log) => warnings.push(toEsbuildMessage(log)) };
          const result = await transform.handler.call(ctx, code, id);
          if (!result && warnings.length === 0) return undefined;
          let contents = result ? result.code : code;
          if (result?.map) contents += `\n//# sourceMappingURL=${result.map.toUrl()}`;
          return { contents, loader: /\.tsx$/.test(args.path) ? "tsx" : "ts", warnings };
        });
      },
    },

    /** For tests and tools: the plugin's compiler client (started lazily). */
    api: {
      get client() {
        return session.client;
      },
      get root() {
        return root;
      },
      scan: () => session.scan(),
      close: closeClient,
    },
  };
}

export const unplugin = /* #__PURE__ */ createUnplugin(unpluginFactory);

export default unplugin;
