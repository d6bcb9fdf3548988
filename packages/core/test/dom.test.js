// @vitest-environment happy-dom
//
// The package in a DOM environment (happy-dom, as a component test would run it): it loads, and
// the runtime verifies a manifest, without fetching anything.
import { afterEach, describe, expect, it, vi } from "vitest";
import { fixtureManifestPath, readText } from "./paths.js";

const fixtureText = readText(fixtureManifestPath);

describe("under a DOM environment", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("loads and verifies with fetch and streaming compilation unavailable", async () => {
    expect(typeof window).toBe("object");
    expect(typeof document.createElement).toBe("function");
    const refuse = vi.fn(() => {
      throw new Error("the package must not fetch");
    });
    vi.stubGlobal("fetch", refuse);
    vi.stubGlobal("WebAssembly", Object.create(WebAssembly, { instantiateStreaming: { value: refuse }, compileStreaming: { value: refuse } }));
    vi.resetModules();
    const core = await import("../dist/index.js");

    const authority = core.createCapabilityAuthority(JSON.parse(fixtureText));
    core.assertCapabilityAuthority(authority);
    expect(authority.manifest.manifestHash).toBe(JSON.parse(fixtureText).manifestHash);
    const tampered = JSON.parse(fixtureText);
    tampered.contracts[0].description = "changed";
    expect(() => core.createCapabilityAuthority(tampered)).toThrow(core.CapabilityAuthorityError);
    expect(core.blake3Hex({})).toBe("blake3:6e46dd10defc9b56c29a6ec56b508c21f54c08192194e4df25bf36f0c9c3c279");
    expect(core.fromJsonSchema({ type: "object", properties: { n: { type: "integer", default: 1 } } }).parse({})).toEqual({ n: 1 });

    const pre = document.createElement("pre");
    pre.textContent = authority.manifest.manifestHash;
    document.body.append(pre);
    expect(document.body.textContent).toContain("blake3:");
    expect(refuse).not.toHaveBeenCalled();
  });
});
