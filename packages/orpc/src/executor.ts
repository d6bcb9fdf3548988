// createORPCProcedureExecutor: an AgentProcedureExecutor that calls each forwarded domain procedure
// on an oRPC server over oRPC's RPC protocol (the wire @orpc/client's RPCLink speaks, 1.x and the
// 2.x betas), with fetch and no runtime dependency. The registry hands it calls only after its own
// pipeline ran (availability, policies, input, confirmation, admission); the server still decides
// what the procedure may do.
//
// The wire (read from @orpc/client and @orpc/server 1.16.1 and 2.0.0-beta.16..30):
// - request: POST <url>/<path segments, each URI-encoded>, `content-type: application/json`,
//   body `{"json": input}` (a JSON input has no `meta`: no Date, BigInt, NaN, undefined...);
// - success (HTTP 200..399): `{"json": output, "meta"?: [...]}` as application/json. `meta`
//   lists values JSON cannot carry, by type code (1.x: numbers, 0 bigint ... 7 map; 2.x: names,
//   "bigint" ... "map") and path. A procedure without output answers `{}` (1.x: `json` absent)
//   or an empty body (2.x). Files (a Blob, multipart/form-data) and event iterators
//   (text/event-stream) are other content types;
// - error (HTTP >= 400): 1.x `{"json": {"defined", "code", "status", "message", "data"}}`,
//   2.x `{"json": {"defined", "inferable", "code", "message", "data"}}` (no status in the body:
//   the HTTP status is the error's, from the handler's errorStatusMap).

import type { AgentProcedureCall, AgentProcedureExecutor, JsonValue } from "@agent-surface/core";

export interface ORPCProcedureExecutorOptions {
  /**
   * The RPC handler's base URL: where `RPCHandler` is mounted (its `prefix`), e.g.
   * `"https://api.example.com/rpc"` or, in a page, `new URL("/rpc", location.origin)`.
   */
  url: string | URL;
  /**
   * The router path of each procedure id. Default: the id's segments after `domain:`
   * (`domain:devices.decommission` → `["devices", "decommission"]`). A record overrides some
   * ids (the others keep the default); a function decides for every id, `undefined` meaning
   * "no procedure on this server" (the call fails, nothing is sent).
   */
  paths?: Readonly<Record<string, readonly string[]>> | ((procedureId: string) => readonly string[] | undefined);
  /**
   * The request header that carries the call's invocation id, for the server to recognise a
   * repeated delivery of the same call (idempotency). Default `"idempotency-key"`; `false`
   * sends none.
   */
  idempotencyHeader?: string | false;
  /** Extra request headers (e.g. authorization), or a function read at each call. */
  headers?: HeadersInit | ((call: AgentProcedureCall) => HeadersInit);
  /** Passed to fetch (e.g. `"include"` for cookies on a cross-origin server). */
  credentials?: RequestCredentials;
  /** Default: the global `fetch`, read at each call. */
  fetch?: typeof globalThis.fetch;
}

/** Why a call failed, without what the server said (its message and data stay out: they may hold what the agent must not see). */
export type ORPCProcedureFailure =
  /** The server answered an oRPC error (`code`, `status`, whether the procedure `defined` it). */
  | "error"
  /** The server answered something that is not oRPC's RPC protocol (another content type, no `json`...). */
  | "malformed"
  /** The output is not JSON: the RPC serializer marked a Date, BigInt, NaN, URL, RegExp, Set, Map, undefined in an array, or a custom type; or a file or an event stream. */
  | "not-json"
  /** The procedure id has no router path (`options.paths`). */
  | "no-path";

/**
 * A failed call. The registry settles the invocation `EXECUTION_FAILED` and logs this message;
 * neither holds the server's message or data.
 */
export class ORPCProcedureError extends Error {
  override readonly name = "ORPCProcedureError";
  readonly procedureId: string;
  readonly failure: ORPCProcedureFailure;
  /** The HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** The oRPC error code (`NOT_FOUND`, `CONFLICT`, a procedure's own...), for `failure: "error"`. */
  readonly code: string | undefined;
  /** Whether the procedure declared this error (`.errors({...})`), for `failure: "error"`. */
  readonly defined: boolean | undefined;

  constructor(
    procedureId: string,
    failure: ORPCProcedureFailure,
    message: string,
    details: { status?: number | undefined; code?: string | undefined; defined?: boolean | undefined } = {},
  ) {
    super(`procedure ${procedureId}: ${message}`);
    this.procedureId = procedureId;
    this.failure = failure;
    this.status = details.status;
    this.code = details.code;
    this.defined = details.defined;
  }
}

/** The default router path of a procedure id: its segments after `domain:`. */
export function defaultProcedurePath(procedureId: string): string[] | undefined {
  if (!procedureId.startsWith("domain:")) return undefined;
  const segments = procedureId.slice("domain:".length).split(".");
  return segments.every((s) => s !== "") ? segments : undefined;
}

/** The RPC serializer's type names, 1.x codes and 2.x names, for the message of a refused output. */
const META_TYPES: Record<string, string> = {
  "0": "bigint",
  "1": "date",
  "2": "nan",
  "3": "undefined",
  "4": "url",
  "5": "regexp",
  "6": "set",
  "7": "map",
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** `/a/0/b` for a meta entry's path (its elements after the type). */
const pointer = (segments: unknown[]) => (segments.length === 0 ? "the output itself" : `/${segments.map((s) => String(s).replaceAll("~", "~0").replaceAll("/", "~1")).join("/")}`);

/**
 * An executor that POSTs each call to `<url>/<router path>` in oRPC's RPC protocol, with the
 * call's signal and its invocation id in the `idempotency-key` header, and resolves with the
 * procedure's output (`null` for none). It rejects with an {@link ORPCProcedureError} when the
 * server answers an error, something other than the RPC protocol's JSON, or an output JSON cannot
 * carry; an aborted signal rejects the fetch (the server's procedure sees its request closed).
 */
export function createORPCProcedureExecutor(options: ORPCProcedureExecutorOptions): AgentProcedureExecutor {
  if (options === null || typeof options !== "object") throw new TypeError("createORPCProcedureExecutor: expected { url, paths?, idempotencyHeader?, headers?, credentials?, fetch? }");
  const { url, paths, headers, credentials } = options;
  if (!(typeof url === "string" && url !== "") && !(url instanceof URL)) throw new TypeError("createORPCProcedureExecutor: url must be a non-empty string or a URL");
  if (paths !== undefined && typeof paths !== "function" && !isRecord(paths)) throw new TypeError("createORPCProcedureExecutor: paths must be a record of procedure id → path segments, or a function");
  if (isRecord(paths)) {
    for (const [id, path] of Object.entries(paths)) {
      if (!Array.isArray(path) || path.length === 0 || !path.every((s) => typeof s === "string" && s !== "")) {
        throw new TypeError(`createORPCProcedureExecutor: paths["${id}"] must be a non-empty array of non-empty strings`);
      }
    }
  }
  const idempotencyHeader = options.idempotencyHeader ?? "idempotency-key";
  if (idempotencyHeader !== false && (typeof idempotencyHeader !== "string" || !/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(idempotencyHeader))) {
    throw new TypeError("createORPCProcedureExecutor: idempotencyHeader must be a header name or false");
  }
  if (options.fetch !== undefined && typeof options.fetch !== "function") throw new TypeError("createORPCProcedureExecutor: fetch must be a function");
  // The base without its trailing slash; the query and fragment (rare) are kept after the path.
  const base = new URL(String(url), typeof location === "object" && location ? location.href : undefined);
  const basePath = base.pathname.replace(/\/+$/, "");

  const pathOf = (procedureId: string): readonly string[] | undefined => {
    if (typeof paths === "function") return paths(procedureId);
    if (paths && Object.hasOwn(paths, procedureId)) return paths[procedureId];
    return defaultProcedurePath(procedureId);
  };

  return Object.freeze({
    async execute(call: AgentProcedureCall): Promise<JsonValue> {
      const id = call.procedureId;
      const path = pathOf(id);
      if (!Array.isArray(path) || path.length === 0 || !path.every((s) => typeof s === "string" && s !== "")) {
        throw new ORPCProcedureError(id, "no-path", "no oRPC router path for this procedure (options.paths)");
      }
      const fetchFn = options.fetch ?? globalThis.fetch;
      if (typeof fetchFn !== "function") throw new Error(`procedure ${id}: no fetch function (pass options.fetch)`);

      const target = new URL(base.href);
      target.pathname = `${basePath}/${path.map(encodeURIComponent).join("/")}`;
      const requestHeaders = new Headers(typeof headers === "function" ? headers(call) : headers);
      requestHeaders.set("content-type", "application/json");
      if (!requestHeaders.has("accept")) requestHeaders.set("accept", "application/json");
      if (idempotencyHeader !== false) requestHeaders.set(idempotencyHeader, call.invocationId);
      const init: RequestInit = { method: "POST", headers: requestHeaders, body: JSON.stringify({ json: call.input }), signal: call.signal };
      if (credentials !== undefined) init.credentials = credentials;
      const where = `POST ${target.pathname}`;

      const response = await fetchFn(target, init);
      const status = response.status;
      const type = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();
      const text = type === "application/json" || type === "" ? await response.text() : undefined;
      if (text === undefined) await response.body?.cancel().catch(() => {});

      if (status < 200 || status >= 400) {
        // An oRPC error: its code and status are kept, its message and data are not.
        let body: unknown;
        try {
          body = text === undefined || text === "" ? undefined : JSON.parse(text);
        } catch {
          body = undefined;
        }
        const error = isRecord(body) ? body.json : undefined;
        if (isRecord(error) && typeof error.code === "string" && typeof error.defined === "boolean") {
          const defined = error.defined === true;
          throw new ORPCProcedureError(id, "error", `${where} answered the oRPC error ${error.code} (HTTP ${status}${defined ? ", defined by the procedure" : ""})`, {
            status,
            code: error.code,
            defined,
          });
        }
        throw new ORPCProcedureError(id, "malformed", `${where} answered HTTP ${status} without an oRPC error body`, { status });
      }

      if (text === undefined) {
        // A file (any content type), a multipart body (files inside the output) or an event iterator.
        throw new ORPCProcedureError(id, "not-json", `${where} answered ${type} (a file or an event stream), not JSON`, { status });
      }
      // 2.x: a procedure without output answers no body at all.
      if (text === "") return null;
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        throw new ORPCProcedureError(id, "malformed", `${where} answered HTTP ${status} with a body that is not JSON`, { status });
      }
      if (!isRecord(body)) throw new ORPCProcedureError(id, "malformed", `${where} answered HTTP ${status} without the RPC protocol's { json } body`, { status });
      const meta = body.meta;
      if (meta !== undefined && meta !== null) {
        if (!Array.isArray(meta) || !meta.every((m) => Array.isArray(m) && m.length >= 1)) {
          throw new ORPCProcedureError(id, "malformed", `${where} answered a malformed meta list`, { status });
        }
        const entries = meta as unknown[][];
        // The output itself undefined (a procedure without output, or one that returned undefined).
        if (entries.length === 1 && entries[0]!.length === 1 && (entries[0]![0] === 3 || entries[0]![0] === "undefined")) return null;
        if (entries.length > 0) {
          const [first] = entries;
          const kind = META_TYPES[String(first![0])] ?? String(first![0]);
          throw new ORPCProcedureError(id, "not-json", `${where} answered an output that is not JSON (${kind} at ${pointer(first!.slice(1))}${entries.length > 1 ? `, and ${entries.length - 1} more` : ""})`, { status });
        }
      }
      // 1.x: a procedure without output answers `{}` (its `json` is undefined, so left out).
      if (!("json" in body)) return null;
      return body.json as JsonValue;
    },
  });
}
