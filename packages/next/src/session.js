// The compiler session of one Node.js process, shared by the Next.js config (the generated
// authority module) and every run of the loader in this process (webpack's three compilers, or
// one of Turbopack's loader workers): one `agent-surface serve --stdio` child per project root.

import { createSession } from "@agent-surface/unplugin";

const KEY = Symbol.for("@agent-surface/next/sessions");
/** @type {Map<string, ReturnType<typeof createSession>>} */
const sessions = (globalThis[KEY] ??= new Map());

/**
 * @param {string} root
 * @param {{ binary?: string }} [options]
 */
export function sessionFor(root, options = {}) {
  const key = `${root}\0${options.binary ?? ""}`;
  let session = sessions.get(key);
  if (!session) {
    session = createSession({ binary: options.binary }, () => root);
    sessions.set(key, session);
  }
  return session;
}
