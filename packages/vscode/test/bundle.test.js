// The bundled extension (out/extension.js, esbuild) loads with only `vscode` external and
// exports what VS Code calls.
const { test } = require("node:test");
const assert = require("node:assert/strict");
const Module = require("node:module");
const path = require("node:path");

test("out/extension.js loads with a stand-in vscode module and exports activate/deactivate", () => {
  const bundle = path.join(__dirname, "../out/extension.js");
  const requested = [];
  const resolve = Module._resolveFilename;
  Module._resolveFilename = function (request, ...rest) {
    if (request === "vscode") return "vscode";
    return resolve.call(this, request, ...rest);
  };
  // Anything of it is a class, a function, a namespace: what the bundle touches while loading.
  const stub = new Proxy(function () {}, {
    get: (_, k) => (k === "then" ? undefined : (requested.push(k), stub)),
    construct: () => stub,
    apply: () => stub,
  });
  require.cache.vscode = { id: "vscode", filename: "vscode", loaded: true, exports: stub };
  const load = Module.prototype.require;
  const outside = [];
  Module.prototype.require = function (id) {
    if (this.filename === bundle && !Module.isBuiltin(id) && id !== "vscode") outside.push(id);
    return load.call(this, id);
  };
  try {
    const ext = require(bundle);
    assert.equal(typeof ext.activate, "function");
    assert.equal(typeof ext.deactivate, "function");
    assert.deepEqual(outside, [], "everything but vscode is bundled");
  } finally {
    Module._resolveFilename = resolve;
    Module.prototype.require = load;
    delete require.cache.vscode;
  }
});
