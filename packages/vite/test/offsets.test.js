import { TraceMap, originalPositionFor } from "@jridgewell/trace-mapping";
import { describe, expect, test } from "vitest";
import { applyEdits, byteOffsetToIndex, byteOffsetsToIndices } from "../src/index.js";

/** Every code-point boundary of `s`: [utf8 byte offset, utf16 index]. */
function boundaries(s) {
  const out = [[0, 0]];
  let bytes = 0;
  let index = 0;
  for (const ch of s) {
    bytes += Buffer.byteLength(ch, "utf8");
    index += ch.length;
    out.push([bytes, index]);
  }
  return out;
}

const SAMPLES = {
  ascii: 'export const x = defineAgentProcedureContract({ id: "domain:a.b" });',
  accents: "const d = \"Exportér le rapport — déjà vu, naïve façade\"; // é è ü ñ",
  cjk: "// 東京の端末を再起動する\nconst label = \"デバイス一覧\"; const x = 1;",
  emoji: "const s = \"🚀 launch 👩‍💻 devs 🇫🇷\"; const t = `😀${1}`;",
  mixed: "a\u00e9\u6771\ud83d\ude80b\u0301\r\n\u2028end",
};

describe("UTF-8 byte offsets to UTF-16 string indices", () => {
  for (const [name, text] of Object.entries(SAMPLES)) {
    test(`every character boundary: ${name}`, () => {
      const b = boundaries(text);
      expect(byteOffsetsToIndices(text, b.map(([bytes]) => bytes))).toEqual(b.map(([, index]) => index));
      for (const [bytes, index] of b) expect(byteOffsetToIndex(text, bytes)).toBe(index);
      // The prefix up to the index re-encodes to exactly that many bytes.
      for (const [bytes, index] of b) expect(Buffer.byteLength(text.slice(0, index))).toBe(bytes);
    });
  }

  test("emoji: a surrogate pair is 4 bytes and 2 code units", () => {
    const s = "x🚀y";
    expect(byteOffsetsToIndices(s, [0, 1, 5, 6])).toEqual([0, 1, 3, 4]);
  });

  test("an offset inside a character, past the end, or out of order is refused", () => {
    expect(() => byteOffsetToIndex("é", 1)).toThrow(/inside a character/);
    expect(() => byteOffsetToIndex("🚀", 2)).toThrow(/inside a character/);
    expect(() => byteOffsetToIndex("東", 3)).not.toThrow();
    expect(() => byteOffsetToIndex("東", 4)).toThrow(/outside the text/);
    expect(() => byteOffsetToIndex("abc", 4)).toThrow(/outside the text/);
    expect(() => byteOffsetsToIndices("aéb", [3, 1])).toThrow(/not ascending/);
    expect(() => byteOffsetsToIndices("abc", [2, 1])).toThrow(/not ascending/);
  });

  test("a lone surrogate counts 3 bytes (as U+FFFD)", () => {
    const s = "a\ud800b";
    expect(byteOffsetsToIndices(s, [1, 4, 5])).toEqual([1, 2, 3]);
  });
});

describe("applyEdits", () => {
  const code = [
    'import { defineAgentProcedureContract as d } from "@agent-surface/core";',
    'export const reboot = d({ id: "domain:devices.reboot", description: "Redémarrer 東京 🚀" });',
    "export const after = 42;",
  ].join("\n");
  const anchor = code.indexOf("}") + 1 + code.slice(code.indexOf("}") + 1).indexOf("}") + 1; // after the object
  const byteOffset = Buffer.byteLength(code.slice(0, anchor));
  const text = ', {"contractHash":"blake3:00","id":"domain:devices.reboot"}';

  test("inserts at the string index of the byte offset", () => {
    expect(byteOffset).toBeGreaterThan(anchor); // non-ASCII before the insertion point
    const out = applyEdits(code, [{ offset: byteOffset, text }], "/app/src/x.ts");
    expect(out.code).toBe(code.slice(0, anchor) + text + code.slice(anchor));
    expect(out.code).toContain('🚀" }, {"contractHash"');
  });

  test("no edits: null", () => {
    expect(applyEdits(code, [], "/app/src/x.ts")).toBeNull();
  });

  test("the hires source map maps every position after the insertion back to the original", () => {
    const out = applyEdits(code, [{ offset: byteOffset, text }], "/app/src/x.ts");
    const map = new TraceMap(out.map);
    expect(map.sources).toEqual(["/app/src/x.ts"]);
    const outLines = out.code.split("\n");
    // Line 2 (1-based), the ")" and ";" right after the inserted literal, and line 3.
    const line2 = outLines[1];
    const paren = line2.lastIndexOf(")");
    const pos = originalPositionFor(map, { line: 2, column: paren });
    expect(pos).toMatchObject({ source: "/app/src/x.ts", line: 2, column: code.split("\n")[1].lastIndexOf(")") });
    expect(originalPositionFor(map, { line: 3, column: outLines[2].indexOf("42") })).toMatchObject({ line: 3, column: outLines[2].indexOf("42") });
    // A token before the insertion is unchanged too.
    const before = line2.indexOf("description");
    expect(originalPositionFor(map, { line: 2, column: before })).toMatchObject({ line: 2, column: before });
  });
});
