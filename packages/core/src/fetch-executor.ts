// createFetchProcedureExecutor: an AgentProcedureExecutor that forwards each domain-procedure call
// to a server endpoint with fetch. The registry hands it calls only after its own pipeline ran
// (availability, policies, input, confirmation, admission); the server still decides what the
// procedure may do. A thrown error or rejection settles the invocation EXECUTION_FAILED (the
// message is not shown to the agent); an aborted signal rejects the fetch.

import type { AgentProcedureCall, AgentProcedureExecutor, JsonValue } from "./types.js";

export interface FetchProcedureExecutorOptions {
  /** The endpoint every call is POSTed to. */
  url: string | URL;
  /** Default: the global `fetch`, read at each call (so a test's stub is seen). */
  fetch?: typeof globalThis.fetch;
  /** Extra request headers (e.g. authorization), or a function read at each call. `content-type` is always `application/json`. */
  headers?: HeadersInit | (() => HeadersInit);
  /** Passed to fetch (e.g. "include" for cookies on a cross-origin endpoint). */
  credentials?: RequestCredentials;
}

/**
 * An executor that POSTs `{ procedureId, input, invocationId }` as JSON to `options.url`, with
 * the call's signal, and resolves with the response body's JSON value. A status outside 2xx, or
 * a body that is not JSON (an empty one included: a procedure without output answers `null`),
 * throws an Error naming the status and the URL.
 */
export function createFetchProcedureExecutor(options: FetchProcedureExecutorOptions): AgentProcedureExecutor {
  if (options === null || typeof options !== "object") throw new TypeError("createFetchProcedureExecutor: expected { url, fetch?, headers?, credentials? }");
  const { url, headers, credentials } = options;
  if (!(typeof url === "string" && url !== "") && !(url instanceof URL)) throw new TypeError("createFetchProcedureExecutor: url must be a non-empty string or a URL");
  if (options.fetch !== undefined && typeof options.fetch !== "function") throw new TypeError("createFetchProcedureExecutor: fetch must be a function");
  const target = String(url);

  return Object.freeze({
    async execute(call: AgentProcedureCall): Promise<JsonValue> {
      const fetchFn = options.fetch ?? globalThis.fetch;
      if (typeof fetchFn !== "function") throw new Error(`procedure ${call.procedureId}: no fetch function (pass options.fetch)`);
      const requestHeaders = new Headers(typeof headers === "function" ? headers() : headers);
      requestHeaders.set("content-type", "application/json");
      if (!requestHeaders.has("accept")) requestHeaders.set("accept", "application/json");
      const body = JSON.stringify({ procedureId: call.procedureId, input: call.input, invocationId: call.invocationId });
      const init: RequestInit = { method: "POST", headers: requestHeaders, body, signal: call.signal };
      if (credentials !== undefined) init.credentials = credentials;
      const response = await fetchFn(target, init);
      if (!response.ok) {
        // Release the connection; the body is not read (it may hold what the agent must not see).
        await response.body?.cancel().catch(() => {});
        throw new Error(`procedure ${call.procedureId}: POST ${target} answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ""}`);
      }
      const text = await response.text();
      try {
        return JSON.parse(text) as JsonValue;
      } catch {
        throw new Error(`procedure ${call.procedureId}: POST ${target} answered HTTP ${response.status} with a body that is not JSON`);
      }
    },
  });
}
