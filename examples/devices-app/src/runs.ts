// How many times each consequential handler actually ran, shown in the page's footer (and read
// by the end-to-end test): the proof that approval runs a procedure once and denial never.
export const runs = { decommission: 0, reboot: 0, export: 0, rename: 0, ping: 0, tag: 0, label: 0 };
export const runLog: string[] = [];

export function ran(what: keyof typeof runs, detail: string) {
  runs[what] += 1;
  runLog.push(`${what}: ${detail}`);
  for (const l of listeners) l();
}

const listeners = new Set<() => void>();
export function subscribeRuns(l: () => void) {
  listeners.add(l);
  return () => {
    listeners.delete(l);
  };
}
