// The authority module's text: the manifest as JSON text in a single-quoted literal for
// JSON.parse (engines parse JSON text faster than an object literal); every character a
// manifest can hold survives the round trip, and the JSON reads as itself in the module.
import { describe, expect, it } from "vitest";
import { authorityModule } from "../src/index.js";

/** The value the module hands to createCapabilityAuthority, evaluated as the module would. */
function handedOver(code) {
  const m = /createCapabilityAuthority\((JSON\.parse\('.*'\))\);\n$/s.exec(code);
  expect(m, code).not.toBeNull();
  return new Function(`return ${m[1]}`)();
}

describe("authorityModule", () => {
  it("imports the core and hands the manifest over through JSON.parse", () => {
    const code = authorityModule({ manifestHash: "blake3:00", contracts: [] });
    expect(code.startsWith('import { createCapabilityAuthority } from "@agent-surface/core";\n')).toBe(true);
    expect(code).toContain(`JSON.parse('{"manifestHash":"blake3:00","contracts":[]}')`);
  });

  it("keeps quotes, backslashes, line breaks and line separators of descriptions intact", () => {
    const manifest = { d: `it's "quoted" \\ back\nslash\r\u2028\u2029 ✓ \u{1F600}`, e: ["'", "\\'", "\\\\"] };
    expect(handedOver(authorityModule(manifest))).toEqual(manifest);
  });
});
