// `pattern` through the page's own RegExp in Unicode mode (`u`, and no other flag: no `g`/`y`,
// so `test` searches the whole string and keeps no `lastIndex` state). A source is compiled once
// per page: the same patterns recur in every schema of an app, and both the subset check (is it
// valid?) and the validator (does it match?) ask for them.

const cache = new Map<string, RegExp | string>();

/** The compiled pattern, or the host's reason (its SyntaxError's message) it is not one. */
export function compilePattern(source: string): RegExp | string {
  let hit = cache.get(source);
  if (hit === undefined) {
    try {
      hit = new RegExp(source, "u");
    } catch (e) {
      hit = e instanceof Error ? e.message : String(e);
    }
    if (cache.size >= 1024) cache.clear();
    cache.set(source, hit);
  }
  return hit;
}
