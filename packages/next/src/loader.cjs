// The provenance loader of @agent-surface/next, for webpack and for Turbopack (turbopack.rules):
// sends a TypeScript module that mentions @agent-surface/core to the compiler and inserts each
// contract's provenance, with a source map; a contract's error fails the module's build with
// file:line:column and a code frame (Next.js shows it in the terminal and the dev overlay).
"use strict";

module.exports = function agentSurfaceLoader(source, map) {
  const callback = this.async();
  const options = (typeof this.getOptions === "function" ? this.getOptions() : this.query) || {};
  const root = options.root || this.rootContext || process.cwd();
  const id = this.resourcePath;
  import("./transform.js").then(
    ({ transformModule }) =>
      transformModule(String(source), id, { root, binary: options.binary }, (log) => this.emitWarning(Object.assign(new Error(log.frame ? `${log.message}\n\n${log.frame}` : log.message), { name: "AgentSurfaceWarning" }))).then(
        (result) => (result ? callback(null, result.code, result.map) : callback(null, source, map)),
        (err) => callback(err),
      ),
    (err) => callback(err),
  );
};
