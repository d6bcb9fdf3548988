// Wire names (crates/engine/src/expose/catalog.rs wire_name), checked against an independent
// computation of the hashed suffix (blake3 of the id's UTF-8, first 8 bytes as a little-endian
// u64, 5 bits at a time from the low end), and the catalog of a manifest alone.
import { blake3 } from "@noble/hashes/blake3.js";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { catalogFromManifest, metaTools, wireName } from "../../dist/expose/catalog.js";

const safe = /^[A-Za-z0-9_-]{1,64}$/;

function expected(id) {
  const digest = blake3(new TextEncoder().encode(id));
  let bits = 0n;
  for (let i = 7; i >= 0; i--) bits = (bits << 8n) | BigInt(digest[i]);
  let suffix = "";
  for (let i = 0; i < 8; i++, bits >>= 5n) suffix += "abcdefghijklmnopqrstuvwxyz234567"[Number(bits & 31n)];
  return `${[...id].map((c) => (/[A-Za-z0-9_-]/.test(c) ? c : "_")).join("").slice(0, 55)}_${suffix}`;
}

describe("wireName", () => {
  it("maps every character outside [A-Za-z0-9_-] to _", () => {
    expect(wireName("view:devices.table.readState")).toBe("view_devices_table_readState");
    expect(wireName("domain:devices.decommission")).toBe("domain_devices_decommission");
    expect(wireName("external:reports.export")).toBe("external_reports_export");
    expect(wireName("view:a.b.c__tenant:42.eu")).toBe("view_a_b_c__tenant_42_eu");
    // one _ per character (code point), as the engine's chars
    expect(wireName("view:caf\u00e9.\u{1F600}x")).toBe("view_caf___x");
  });

  it("keeps 64 characters; longer is cut to 55 + _ + 8 base32 characters of the blake3 of the full id", () => {
    const atLimit = `domain:${"a".repeat(57)}`;
    expect(wireName(atLimit)).toBe(atLimit.replace(":", "_"));
    const over = `domain:${"a".repeat(58)}`;
    const w = wireName(over);
    expect(w).toHaveLength(64);
    expect(w).toMatch(safe);
    expect(w).toBe(expected(over));
    expect(wireName(`${over}b`)).not.toBe(w);
    for (const id of ["", "view:\u00e9".repeat(20), `view:${"x".repeat(96)}.${"y".repeat(48)}__${"i".repeat(128)}`]) {
      expect(wireName(id)).toMatch(safe);
      expect(wireName(id)).toBe(expected(id));
    }
  });
});

describe("catalogFromManifest", () => {
  const manifest = JSON.parse(readFileSync(new URL("../api/manifest.json", import.meta.url), "utf8"));

  it("every component as one live instance, every capability available, external tools on the external plane", () => {
    const tools = catalogFromManifest(manifest);
    const names = tools.map((t) => t.name);
    expect(names).toEqual([...names].sort());
    const exported = tools.find((t) => t.name === "external_api_export");
    expect(exported).toMatchObject({ description: "[external · external-side-effect · required] Exports the notes to a file", state: { available: true } });
    expect(exported.traits).toEqual({ plane: "external", effect: "external-side-effect", idempotent: false, reversible: false, confirmation: "required" });
    expect(tools.find((t) => t.name === "view_api_notes_remove")).toMatchObject({ description: "[view · local-state · required] Deletes a note", route: { instanceId: "default", registrationId: "preview", surfaceVersion: "0" } });
    expect(tools.find((t) => t.name === "view_api_notes_remove")).not.toHaveProperty("outputSchema");
    expect(catalogFromManifest(manifest, "meta")).toEqual(metaTools());
  });
});
