// Compiler diagnostics -> Rollup/Vite errors and warnings (id, loc, code frame).

import { readFileSync } from "node:fs";

/**
 * A code frame like Rollup's / Babel's: a few lines around `line`, a gutter, and carets under
 * the span. `line`/`column` are 1-based, columns in UTF-16 code units (as in the diagnostics).
 * @param {string} source
 * @param {number} line
 * @param {number} column
 * @param {{ endLine?: number, endColumn?: number, context?: number }} [opts]
 */
export function codeFrame(source, line, column, opts = {}) {
  const lines = source.split(/\r\n|\r|\n/);
  if (!(line >= 1 && line <= lines.length)) return "";
  const context = opts.context ?? 2;
  const first = Math.max(1, line - context);
  const last = Math.min(lines.length, line + context);
  const width = String(last).length;
  const text = lines[line - 1];
  const start = Math.max(1, Math.min(column, text.length + 1));
  // The span on the primary line: to endColumn when it ends there, else to the end of the line.
  let end = opts.endLine === line && opts.endColumn > start ? opts.endColumn : opts.endLine > line ? text.length + 1 : start + 1;
  end = Math.max(start + 1, Math.min(end, text.length + 1));
  const out = [];
  for (let n = first; n <= last; n++) {
    const marker = n === line ? ">" : " ";
    const body = lines[n - 1].replace(/\t/g, "  ");
    out.push(`${marker} ${String(n).padStart(width)} | ${body}`.trimEnd());
    if (n === line) {
      const before = text.slice(0, start - 1).replace(/\t/g, "  ").replace(/[^\t]/g, " ");
      const carets = "^".repeat(Math.max(1, text.slice(start - 1, end - 1).replace(/\t/g, "  ").length));
      out.push(`  ${" ".repeat(width)} | ${before}${carets}`);
    }
  }
  return out.join("\n");
}

/** `src/x.ts:12:5: AS0401: message` plus `help:` and related lines. */
export function formatDiagnostic(d) {
  let s = `${d.file}:${d.line}:${d.column}: ${d.severity === "error" ? "error" : d.severity} ${d.code}: ${d.message}`;
  if (d.help) s += `\n  help: ${d.help}`;
  if (Array.isArray(d.related)) {
    for (const r of d.related) {
      if (r && typeof r === "object") {
        const where = r.file ? `${r.file}${r.line ? `:${r.line}${r.column ? `:${r.column}` : ""}` : ""}` : "";
        s += `\n  note: ${where ? `${where}: ` : ""}${r.message ?? ""}`;
      }
    }
  }
  return s;
}

function readSource(file, sources) {
  if (sources && sources.has(file)) return sources.get(file);
  try {
    const text = readFileSync(file, "utf8");
    sources?.set(file, text);
    return text;
  } catch {
    return null;
  }
}

/**
 * A Rollup-style error object for `this.error` / `this.warn` / the overlay.
 * `loc.line` and `loc.column` are both 1-based, the diagnostic's own numbers: Vite prints
 * `file:line:column` from `loc` above the message (overlay and terminal) and opens the editor at
 * it (launch-editor counts columns from 1), so a 0-based column showed a second, different
 * column next to the message's and opened the editor one character early.
 * @param {any} d a diagnostic of the serve protocol
 * @param {{ source?: string, sources?: Map<string,string>, message?: string }} [opts]
 */
export function toRollupLog(d, opts = {}) {
  const file = d.absFile ?? d.file;
  const source = opts.source ?? readSource(file, opts.sources);
  const frame = source != null && d.line ? codeFrame(source, d.line, d.column ?? 1, { endLine: d.endLine, endColumn: d.endColumn }) : undefined;
  const log = {
    message: opts.message ?? formatDiagnostic(d),
    id: file,
    loc: d.line ? { file, line: d.line, column: Math.max(1, d.column ?? 1) } : undefined,
    frame,
    meta: { agentSurface: { code: d.code, severity: d.severity, file: d.file, line: d.line, column: d.column } },
  };
  if (!log.loc) delete log.loc;
  if (!log.frame) delete log.frame;
  return log;
}

/**
 * One error for a list of error diagnostics: the message lists all of them, id/loc/frame are the
 * first one's.
 */
export function errorsToRollupError(errors, opts = {}) {
  const first = errors[0];
  const message =
    errors.length === 1
      ? formatDiagnostic(first)
      : `agent-surface: ${errors.length} errors in agent contracts\n${errors.map((d) => formatDiagnostic(d)).join("\n")}`;
  return toRollupLog(first, { ...opts, message });
}

/** A key to report each diagnostic once. */
export function diagnosticKey(d) {
  return `${d.absFile ?? d.file}\0${d.code}\0${d.offset ?? d.line + ":" + d.column}\0${d.message}`;
}

/**
 * A real Error carrying the Rollup log properties (id, loc, frame, meta), for `this.error`:
 * Vite's dev server rethrows what it is given, and an Error behaves better downstream than a
 * plain object. Its stack is only the message: the plugin's own frames would mislead.
 */
export function toError(log) {
  const err = new Error(log.message);
  err.name = "AgentSurfaceError";
  Object.assign(err, log);
  err.stack = `${err.name}: ${log.message}`;
  return err;
}
