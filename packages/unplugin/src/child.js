// One `agent-surface serve --stdio` child process: spawned lazily, handshake checked, requests
// matched by id, respawned on the next request after it dies, closed idempotently.
// Protocol: docs/serve-protocol.md in the agent-surface repository.

import { spawn } from "node:child_process";

export const PROTOCOL = "agent-surface-serve";
export const PROTOCOL_VERSION = 1;

const STDERR_TAIL = 4096;

/** An error of the compiler process or of the protocol (not a diagnostic of the user's code). */
export class AgentSurfaceServeError extends Error {
  constructor(message, { code, cause } = {}) {
    super(message, cause ? { cause } : undefined);
    this.name = "AgentSurfaceServeError";
    if (code !== undefined) this.code = code;
  }
}

/**
 * Checks the server's first line; returns an error message or null.
 * @param {unknown} hello
 * @param {string} binary
 */
export function checkHandshake(hello, binary) {
  if (hello === null || typeof hello !== "object" || Array.isArray(hello)) {
    return `${binary} did not start with an ${PROTOCOL} handshake (got ${JSON.stringify(hello)})`;
  }
  const { protocol, protocolVersion, binaryVersion } = hello;
  if (protocol !== PROTOCOL || protocolVersion !== PROTOCOL_VERSION) {
    const theirs = `${JSON.stringify(protocol)} version ${JSON.stringify(protocolVersion)}`;
    return (
      `agent-surface protocol mismatch: this plugin (@agent-surface/unplugin) speaks "${PROTOCOL}" version ${PROTOCOL_VERSION}, ` +
      `but ${binary}${typeof binaryVersion === "string" ? ` (agent-surface ${binaryVersion})` : ""} speaks ${theirs}. ` +
      `Install matching versions of the plugin and the agent-surface binary.`
    );
  }
  return null;
}

/**
 * A client of one long-lived compiler process.
 *
 * - `request()` spawns the child if none is running (lazily, and again after it died).
 * - While no request is pending the child and its pipes are unref'd, so the Node.js process
 *   may exit while it lives (the child then sees stdin close and exits on its own).
 * - When the child dies, pending requests fail with an AgentSurfaceServeError naming the method,
 *   the exit status and the end of its stderr; the next request starts a new child.
 */
export class ServeClient {
  /**
   * @param {{ binary: string, root: string, args?: string[], env?: NodeJS.ProcessEnv,
   *           handshakeTimeoutMs?: number, onStderr?: (text: string) => void }} options
   */
  constructor(options) {
    this.binary = options.binary;
    this.root = options.root;
    this.args = options.args ?? ["serve", "--stdio", "--root", options.root];
    this.env = options.env;
    this.handshakeTimeoutMs = options.handshakeTimeoutMs ?? 15000;
    this.onStderr = options.onStderr;
    /** @type {Session | null} */
    this.session = null;
    this.nextId = 1;
    /** how many processes this client has started */
    this.spawns = 0;
  }

  /** The running child's pid, or undefined. */
  get pid() {
    return this.session?.proc.pid;
  }

  /** The handshake of the running child (after it arrived), or undefined. */
  get hello() {
    return this.session?.hello;
  }

  /** True while a child is running or starting. */
  get running() {
    return this.session !== null && !this.session.exited;
  }

  /** Starts the child if needed and resolves with its handshake. */
  start() {
    return this.#ensure().ready;
  }

  /**
   * Sends one request; resolves with its `result`, rejects with an AgentSurfaceServeError on an
   * error response or when the child dies first.
   * @param {string} method
   * @param {object} [params]
   */
  request(method, params) {
    const session = this.#ensure();
    if (session.broken) return Promise.reject(session.broken);
    const id = this.nextId++;
    const line = JSON.stringify(params === undefined ? { id, method } : { id, method, params }) + "\n";
    return new Promise((resolve, reject) => {
      session.pending.set(id, { method, resolve, reject });
      session.retain();
      if (session.hello) session.write(line);
      else session.queue.push(line);
    });
  }

  /**
   * Stops the child (closing its stdin; killing it if it has not exited after `graceMs`).
   * Idempotent; resolves when the child has exited. Pending requests fail.
   */
  close(graceMs = 2000) {
    const session = this.session;
    if (!session) return Promise.resolve();
    this.session = null;
    return session.shutdown(graceMs);
  }

  #ensure() {
    if (this.session && !this.session.exited) return this.session;
    this.spawns++;
    this.session = new Session(this);
    return this.session;
  }
}

class Session {
  /** @param {ServeClient} client */
  constructor(client) {
    this.client = client;
    this.pending = new Map();
    this.queue = [];
    this.hello = undefined;
    this.exited = false;
    this.closing = false;
    this.stderrTail = "";
    this.buffer = "";
    this.refs = 0;
    this.exitPromise = null;
    /** a sticky error (handshake refused) for requests made before the process is gone */
    this.broken = null;

    const { binary, args, root, env } = client;
    const proc = spawn(binary, args, { cwd: root, env: env ?? process.env, stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    this.proc = proc;
    this.exitPromise = new Promise((resolve) => {
      proc.once("exit", (code, signal) => {
        this.#onExit(code, signal);
        resolve();
      });
      proc.once("error", (err) => {
        // spawn failure (ENOENT, EACCES): 'exit' may never come.
        this.#fail(spawnError(binary, err));
        this.exited = true;
        resolve();
      });
    });

    let readyResolve, readyReject;
    this.ready = new Promise((res, rej) => {
      readyResolve = res;
      readyReject = rej;
    });
    this.ready.catch(() => {}); // observed through the pending requests
    this.readyResolve = readyResolve;
    this.readyReject = readyReject;
    this.handshakeTimer = setTimeout(() => {
      this.#fail(new AgentSurfaceServeError(`${binary} sent no ${PROTOCOL} handshake within ${client.handshakeTimeoutMs} ms${this.#tail()}`));
      proc.kill("SIGKILL");
    }, client.handshakeTimeoutMs);
    this.handshakeTimer.unref();

    proc.stdout.setEncoding("utf8");
    proc.stdout.on("data", (chunk) => this.#onData(chunk));
    proc.stderr.setEncoding("utf8");
    proc.stderr.on("data", (chunk) => {
      this.stderrTail = (this.stderrTail + chunk).slice(-STDERR_TAIL);
      client.onStderr?.(chunk);
    });
    proc.stdin.on("error", () => {}); // EPIPE when the child died: reported by 'exit'
    this.retain(); // until the handshake
    this.release = this.release.bind(this);
  }

  /** Keeps the event loop alive while requests are pending (the child is unref'd otherwise). */
  retain() {
    if (this.refs++ === 0 && !this.exited) {
      this.proc.ref();
      this.proc.stdout.ref?.();
      this.proc.stderr.ref?.();
    }
  }

  release() {
    if (this.refs > 0 && --this.refs === 0 && !this.exited) {
      this.proc.unref();
      this.proc.stdout.unref?.();
      this.proc.stderr.unref?.();
      this.proc.stdin.unref?.();
    }
  }

  write(line) {
    if (!this.exited && this.proc.stdin.writable) this.proc.stdin.write(line);
  }

  #onData(chunk) {
    this.buffer += chunk;
    let nl;
    while ((nl = this.buffer.indexOf("\n")) !== -1) {
      const line = this.buffer.slice(0, nl);
      this.buffer = this.buffer.slice(nl + 1);
      if (line.trim() !== "") this.#onLine(line);
    }
  }

  #onLine(line) {
    let msg;
    try {
      msg = JSON.parse(line);
    } catch (e) {
      this.#fail(new AgentSurfaceServeError(`${this.client.binary} wrote a line that is not JSON: ${line.slice(0, 200)}`, { cause: e }));
      this.proc.kill();
      return;
    }
    if (this.hello === undefined) {
      clearTimeout(this.handshakeTimer);
      const problem = checkHandshake(msg, this.client.binary);
      if (problem) {
        this.broken = new AgentSurfaceServeError(problem, { code: "protocol-mismatch" });
        this.#fail(this.broken);
        this.proc.stdin.end();
        this.proc.kill();
        return;
      }
      this.hello = msg;
      this.readyResolve(msg);
      for (const queued of this.queue) this.write(queued);
      this.queue = [];
      this.release();
      return;
    }
    const entry = msg && this.pending.get(msg.id);
    if (!entry) return; // a response to nothing we asked (or id null for an unparsable request)
    this.pending.delete(msg.id);
    if (msg.error) {
      const { code, message } = msg.error;
      entry.reject(new AgentSurfaceServeError(`agent-surface ${entry.method} failed (${code}): ${message}`, { code }));
    } else {
      entry.resolve(msg.result);
    }
    this.release();
  }

  #tail() {
    const t = this.stderrTail.trim();
    return t ? `\n--- agent-surface stderr ---\n${t}` : "";
  }

  #fail(error) {
    if (this.hello === undefined) this.readyReject(error);
    for (const [, entry] of this.pending) {
      entry.reject(error);
    }
    this.pending.clear();
    this.queue = [];
    this.refs = 1;
    this.release();
  }

  #onExit(code, signal) {
    this.exited = true;
    clearTimeout(this.handshakeTimer);
    if (this.pending.size === 0 && this.hello !== undefined) return;
    const status = signal ? `was killed by ${signal}` : `exited with code ${code}`;
    const methods = [...new Set([...this.pending.values()].map((p) => p.method))];
    const what =
      this.closing
        ? `was closed while ${methods.map((m) => `"${m}"`).join(", ")} ${methods.length === 1 ? "was" : "were"} pending`
        : this.hello === undefined
          ? `${status} before its handshake`
          : `${status} while ${methods.map((m) => `"${m}"`).join(", ")} ${methods.length === 1 ? "was" : "were"} pending; the next request starts a new process`;
    this.#fail(new AgentSurfaceServeError(`agent-surface serve (pid ${this.proc.pid}, ${this.client.binary}) ${what}${this.#tail()}`, { code: "child-exited" }));
  }

  shutdown(graceMs) {
    if (!this.exited) {
      this.closing = true;
      // Whoever awaits the exit must not see the event loop end first.
      this.proc.ref();
      this.proc.stdout.ref?.();
      try {
        this.proc.stdin.end();
      } catch {}
      const kill = setTimeout(() => {
        if (!this.exited) this.proc.kill("SIGKILL");
      }, graceMs);
      kill.unref();
      this.exitPromise.then(() => clearTimeout(kill));
    }
    return this.exitPromise;
  }
}

function spawnError(binary, err) {
  if (err && err.code === "ENOENT") {
    return new AgentSurfaceServeError(
      `agent-surface binary not found: ${binary}. Install @agent-surface/cli (with its optional dependencies: it brings the ` +
        `binary of this platform), set AGENT_SURFACE_BINARY to the compiler's path, pass agentSurface({ binary }), ` +
        `or put agent-surface on PATH.`,
      { code: "binary-not-found", cause: err },
    );
  }
  return new AgentSurfaceServeError(`could not start ${binary}: ${err?.message ?? err}`, { code: "spawn-failed", cause: err });
}
