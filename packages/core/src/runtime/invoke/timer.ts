// Timers on the page's clock: the global setTimeout/clearTimeout looked up when they are needed
// (a test's fake timers, or the scenario runner's manual clock, installed later are seen).

/** Calls `fn` after `ms`; returns what cancels it. Beyond setTimeout's range (~24.8 days) it never fires. */
export function later(ms: number, fn: () => void): () => void {
  if (!(ms <= 0x7fffffff)) return () => {};
  const handle = globalThis.setTimeout(fn, ms);
  return () => globalThis.clearTimeout(handle);
}
