// The compiled authority as a real module: Turbopack has no virtual modules, so the project's
// verified manifest is written to <root>/.agent-surface/authority.js, which the app imports as
// `@agent-surface/next/authority` (an alias). The dev server keeps it current: a change of a
// contract rewrites it (only when the manifest or its errors changed), and Next.js's own watcher
// reloads what imports it.

import { existsSync, mkdirSync, readFileSync, renameSync, watch, writeFileSync } from "node:fs";
import path from "node:path";
import { affectsManifest, authorityModule, errorsOf, errorsToRollupError, toFramedError } from "@agent-surface/unplugin";
import { sessionFor } from "./session.js";

export const AUTHORITY_DIR = ".agent-surface";
export const AUTHORITY_FILE = "authority.js";

export function authorityPath(root) {
  return path.join(root, AUTHORITY_DIR, AUTHORITY_FILE);
}

/** The module's text for a scan: the authority, or (dev) a module that throws the errors. */
export function authoritySource(result) {
  const errors = errorsOf(result.diagnostics);
  if (errors.length === 0) return authorityModule(result.manifest);
  const err = toFramedError(errorsToRollupError(errors));
  return `// agent-surface: the project's contracts have errors; fix them and this module is rewritten.\nthrow new Error(${JSON.stringify(err.message)});\n`;
}

/** Writes `text` to `file` when it differs (atomically: a watcher never reads half a file). */
function writeIfChanged(file, text) {
  let old = null;
  try {
    old = readFileSync(file, "utf8");
  } catch {}
  if (old === text) return false;
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
  return true;
}

/**
 * Scans the project and writes its authority module. With `failOnError` (a production build) a
 * contract's error throws (file:line:column, code, frame) instead.
 * @param {string} root
 * @param {{ binary?: string, failOnError?: boolean }} [options]
 */
export async function generateAuthority(root, options = {}) {
  const session = sessionFor(root, options);
  session.invalidate();
  const result = await session.scan();
  const errors = errorsOf(result.diagnostics);
  if (errors.length && options.failOnError) throw toFramedError(errorsToRollupError(errors));
  const changed = writeIfChanged(authorityPath(root), authoritySource(result));
  return { result, changed };
}

const WATCHERS = Symbol.for("@agent-surface/next/watchers");

/**
 * The dev server's loop: on a change of a file the manifest depends on, tell the compiler, scan
 * and rewrite the authority module when it changed. One watcher per root and process.
 * @param {string} root
 * @param {{ binary?: string, onError?: (err: Error) => void, onUpdate?: (info: { manifestHash: string }) => void }} [options]
 */
export function watchAuthority(root, options = {}) {
  const watchers = (globalThis[WATCHERS] ??= new Map());
  if (watchers.has(root)) return watchers.get(root);
  const session = sessionFor(root, options);
  let pending = new Set();
  let timer = null;
  let running = Promise.resolve();
  const flush = () => {
    timer = null;
    const files = [...pending];
    pending = new Set();
    running = running.then(async () => {
      try {
        const client = session.client;
        if (client && client.running) {
          const gone = files.filter((f) => !existsSync(f));
          const present = files.filter((f) => existsSync(f));
          if (present.length) await client.request("didChange", { files: present });
          if (gone.length) await client.request("didRemove", { files: gone });
        }
        const { result, changed } = await generateAuthority(root, options);
        if (changed) options.onUpdate?.({ manifestHash: result.manifestHash });
      } catch (err) {
        options.onError?.(err);
      }
    });
  };
  const watcher = watch(root, { recursive: true }, (_event, name) => {
    if (!name) return;
    const file = path.join(root, String(name));
    if (/[\\/](?:node_modules|\.next|\.git|\.agent-surface)[\\/]/.test(file)) return;
    if (!affectsManifest(file, root)) return;
    pending.add(file);
    if (!timer) timer = setTimeout(flush, 30);
  });
  watcher.unref();
  const handle = {
    close() {
      watcher.close();
      watchers.delete(root);
    },
  };
  watchers.set(root, handle);
  return handle;
}
