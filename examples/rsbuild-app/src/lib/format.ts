// Plain helpers: this file never mentions the core package, so the prefilter skips it.
export function formatLastSeen(iso: string | null): string {
  return iso === null ? "never" : new Date(iso).toLocaleString();
}
