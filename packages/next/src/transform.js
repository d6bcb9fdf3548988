// One module through the compiler (the loader's work; ESM, loaded by loader.cjs).
import { toFramedError } from "@agent-surface/unplugin";
import { sessionFor } from "./session.js";

/**
 * @param {string} code
 * @param {string} id the module's file
 * @param {{ root: string, binary?: string }} options
 * @param {(log: object) => void} warn
 * @returns {Promise<{ code: string, map: object } | null>}
 */
export async function transformModule(code, id, options, warn) {
  const session = sessionFor(options.root, options);
  const result = await session.transform(code, id, {
    warn,
    fail: (log) => {
      throw toFramedError(log);
    },
  });
  if (!result) return null;
  return { code: result.code, map: JSON.parse(result.map.toString()) };
}
