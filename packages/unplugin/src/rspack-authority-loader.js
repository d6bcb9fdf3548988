// Rspack: the loader of the authority module (see `rspack` in index.js). Rspack runs it only for
// the one virtual file its rule names; the plugin instance is found by the key in the options.
import { RSPACK_AUTHORITY_LOADERS } from "./index.js";

export default function authorityLoader() {
  const callback = this.async();
  const { key } = this.getOptions();
  const load = globalThis[RSPACK_AUTHORITY_LOADERS]?.get(key);
  if (!load) return callback(new Error(`agent-surface: no plugin instance ${key} for ${this.resource}`));
  load(this).then(
    (code) => callback(null, code),
    (err) => callback(err),
  );
}
